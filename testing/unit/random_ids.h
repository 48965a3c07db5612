// What the randomised tests of id sets (test_idset) and of the file cover
// (test_cover) share: the id vector type, the int64 extremes, a uniform
// draw, a Bernoulli sample of a universe, and sort-and-deduplicate.
#ifndef MXN_TEST_RANDOM_IDS_H
#define MXN_TEST_RANDOM_IDS_H

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace mxntest {

using Ids = std::vector<int64_t>;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Uniform in [lo, hi].
inline int64_t Uni(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Each member of u kept with probability p, in u's order.
inline Ids Sample(std::mt19937_64 &rng, const Ids &u, double p) {
  std::bernoulli_distribution keep(p);
  Ids out;
  for (int64_t x : u)
    if (keep(rng)) out.push_back(x);
  return out;
}

inline Ids SortedUnique(Ids v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace mxntest

#endif
