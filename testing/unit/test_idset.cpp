// Unit tests for mxn/idset.h: sorted unique id sets and their set algebra.
//
// Every operation is compared against a brute-force std::set / std:: algorithm
// reference on many random sets (fixed seeds) drawn from several id
// distributions: dense, sparse over all of int64, negative, near INT64_MAX,
// near INT64_MIN and straddling 2^31. Position mappings are checked through
// their defining invariants, and every return code is asserted.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mxn/idset.h"
#include "random_ids.h"

// The core's private form of the intersection that stores through the
// positions (internal.h).
extern "C" int64_t mxn__idset_match(const mxn_idset_t *a, const mxn_idset_t *b, const int64_t *at,
                                    const int64_t *val, int64_t *dst);

namespace {

using namespace mxntest;

// A set that frees itself; tests pass &s.s to the C API.
struct Set {
  mxn_idset_t s = MXN_IDSET_INIT;
  Set() = default;
  Set(const Set &) = delete;
  Set &operator=(const Set &) = delete;
  ~Set() { mxn_idset_free(&s); }
};

// A malloc'ed position array the library hands back; freed with free().
struct Pos {
  int64_t *p = nullptr;
  Pos() = default;
  Pos(const Pos &) = delete;
  Pos &operator=(const Pos &) = delete;
  ~Pos() { std::free(p); }
};

enum class Kind { Dense, Sparse, Negative, NearMax, NearMin, Above2p31, Mixed };
const Kind kAllKinds[] = {Kind::Dense,   Kind::Sparse,  Kind::Negative, Kind::NearMax,
                          Kind::NearMin, Kind::Above2p31, Kind::Mixed};

std::string KindName(Kind k) {
  switch (k) {
  case Kind::Dense: return "Dense";
  case Kind::Sparse: return "Sparse";
  case Kind::Negative: return "Negative";
  case Kind::NearMax: return "NearMax";
  case Kind::NearMin: return "NearMin";
  case Kind::Above2p31: return "Above2p31";
  case Kind::Mixed: return "Mixed";
  }
  return "?";
}

// `count` ids of the given kind, unsorted, repeats allowed (dense kinds repeat
// often because their range is only about twice `count`).
Ids Draw(std::mt19937_64 &rng, Kind kind, size_t count) {
  Ids v;
  v.reserve(count);
  const int64_t span = 2 * static_cast<int64_t>(count) + 2;
  const int64_t dense_base = Uni(rng, -1000, 1000);
  const int64_t neg_base = Uni(rng, -(int64_t(1) << 40), -span - 1);
  for (size_t i = 0; i < count; i++) {
    Kind k = kind;
    if (k == Kind::Mixed) k = kAllKinds[Uni(rng, 0, 5)];
    int64_t x = 0;
    switch (k) {
    case Kind::Dense: x = Uni(rng, dense_base, dense_base + span); break;
    case Kind::Sparse: x = Uni(rng, kMin, kMax); break;
    case Kind::Negative: x = Uni(rng, neg_base, neg_base + span); break;
    case Kind::NearMax: x = Uni(rng, kMax - span, kMax); break;
    case Kind::NearMin: x = Uni(rng, kMin, kMin + span); break;
    case Kind::Above2p31: {
      // Straddle 2^31 (the int32 overflow point) and 2^32.
      int64_t c = (i % 2) ? (int64_t(1) << 31) : (int64_t(1) << 32);
      x = Uni(rng, c - span / 4, c + span);
      break;
    }
    case Kind::Mixed: break;
    }
    v.push_back(x);
  }
  // The extremes themselves must work wherever they can occur.
  if (count > 2 && (kind == Kind::Sparse || kind == Kind::Mixed || kind == Kind::NearMax))
    v[Uni(rng, 0, count - 1)] = kMax;
  if (count > 2 && (kind == Kind::Sparse || kind == Kind::Mixed || kind == Kind::NearMin))
    v[Uni(rng, 0, count - 1)] = kMin;
  return v;
}

// s holds exactly `want` (sorted unique), with ids == NULL iff n == 0.
::testing::AssertionResult SameSet(const mxn_idset_t &s, const Ids &want) {
  if (s.n != static_cast<int64_t>(want.size()))
    return ::testing::AssertionFailure() << "n = " << s.n << ", want " << want.size();
  if ((s.n == 0) != (s.ids == nullptr))
    return ::testing::AssertionFailure() << "ids is " << (s.ids ? "non-NULL" : "NULL")
                                         << " with n = " << s.n;
  for (int64_t k = 0; k < s.n; k++)
    if (s.ids[k] != want[k])
      return ::testing::AssertionFailure() << "ids[" << k << "] = " << s.ids[k] << ", want "
                                           << want[k];
  return ::testing::AssertionSuccess();
}

// Build a set from a sorted unique vector through the public builder.
void Make(const Ids &v, Set &out) {
  ASSERT_EQ(mxn_idset_from_array(v.empty() ? nullptr : v.data(), static_cast<int64_t>(v.size()),
                                 &out.s),
            MXN_OK);
  ASSERT_TRUE(SameSet(out.s, v));
}

const size_t kSizes[] = {0, 1, 2, 3, 5, 8, 17, 64, 100, 257, 1000, 4000};
const double kDensities[] = {0.0, 0.05, 0.5, 0.95, 1.0};

// ---------------------------------------------------------------- random --

class IdsetRandom : public ::testing::TestWithParam<Kind> {
protected:
  std::mt19937_64 rng{0x5eed0000u + static_cast<unsigned>(GetParam())};
};

TEST_P(IdsetRandom, FromArrayMatchesStdSet) {
  for (size_t n : kSizes) {
    for (int rep = 0; rep < 4 && !HasFailure(); rep++) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", rep = " + std::to_string(rep));
      Ids in = Draw(rng, GetParam(), n);
      // Repeat some entries and shuffle so the sort/dedup path is exercised.
      for (size_t r = 0; r < n / 3; r++) in.push_back(in[Uni(rng, 0, n - 1)]);
      std::shuffle(in.begin(), in.end(), rng);
      const Ids copy = in;
      Set s;
      ASSERT_EQ(mxn_idset_from_array(in.empty() ? nullptr : in.data(),
                                     static_cast<int64_t>(in.size()), &s.s),
                MXN_OK);
      EXPECT_TRUE(SameSet(s.s, SortedUnique(in)));
      EXPECT_EQ(in, copy) << "input was modified";
      EXPECT_TRUE(mxn_ids_sorted_unique(s.s.ids, s.s.n));
    }
  }
}

TEST_P(IdsetRandom, FromArraySortedInputIsCopied) {
  for (size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Ids in = SortedUnique(Draw(rng, GetParam(), n));
    Set s;
    ASSERT_EQ(mxn_idset_from_array(in.empty() ? nullptr : in.data(),
                                   static_cast<int64_t>(in.size()), &s.s),
              MXN_OK);
    EXPECT_TRUE(SameSet(s.s, in));
    if (!in.empty()) EXPECT_NE(s.s.ids, in.data()) << "the set must own its own array";
  }
}

TEST_P(IdsetRandom, FromArrayPosMapsEveryInputEntry) {
  for (size_t n : kSizes) {
    for (int rep = 0; rep < 4 && !HasFailure(); rep++) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", rep = " + std::to_string(rep));
      Ids in = Draw(rng, GetParam(), n);
      for (size_t r = 0; r < n / 2; r++) in.push_back(in[Uni(rng, 0, n - 1)]);
      std::shuffle(in.begin(), in.end(), rng);
      const int64_t m = static_cast<int64_t>(in.size());
      Set s;
      Pos pos;
      pos.p = reinterpret_cast<int64_t *>(0x1); // must be overwritten, also for n == 0
      ASSERT_EQ(mxn_idset_from_array_pos(in.empty() ? nullptr : in.data(), m, &s.s, &pos.p),
                MXN_OK);
      ASSERT_TRUE(SameSet(s.s, SortedUnique(in)));
      if (m == 0) {
        EXPECT_EQ(pos.p, nullptr);
        continue;
      }
      ASSERT_NE(pos.p, nullptr);
      for (int64_t i = 0; i < m; i++) {
        ASSERT_GE(pos.p[i], 0) << "i = " << i;
        ASSERT_LT(pos.p[i], s.s.n) << "i = " << i;
        ASSERT_EQ(s.s.ids[pos.p[i]], in[i]) << "out.ids[pos[" << i << "]] != input[" << i << "]";
      }
      // pos == NULL behaves like mxn_idset_from_array().
      Set t;
      ASSERT_EQ(mxn_idset_from_array_pos(in.data(), m, &t.s, nullptr), MXN_OK);
      EXPECT_TRUE(SameSet(t.s, SortedUnique(in)));
    }
  }
}

TEST_P(IdsetRandom, SortedUniqueAgreesWithBruteForce) {
  for (size_t n : kSizes) {
    for (int rep = 0; rep < 4; rep++) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", rep = " + std::to_string(rep));
      Ids v = Draw(rng, GetParam(), n);
      if (rep % 2) v = SortedUnique(v); // half the time a real set
      bool want = true;
      for (size_t i = 1; i < v.size(); i++)
        if (!(v[i - 1] < v[i])) want = false;
      EXPECT_EQ(mxn_ids_sorted_unique(v.empty() ? nullptr : v.data(),
                                      static_cast<int64_t>(v.size())) != 0,
                want);
    }
  }
}

TEST_P(IdsetRandom, FindMembersAndAbsentIds) {
  for (size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Ids v = SortedUnique(Draw(rng, GetParam(), n));
    Set s;
    Make(v, s);
    const std::set<int64_t> ref(v.begin(), v.end());
    for (size_t k = 0; k < v.size(); k++) ASSERT_EQ(mxn_idset_find(&s.s, v[k]), int64_t(k));
    // Neighbours of members, the extremes, and random probes.
    Ids probes = {kMin, kMin + 1, -1, 0, 1, int64_t(1) << 31, kMax - 1, kMax};
    for (int64_t x : v) {
      if (x > kMin) probes.push_back(x - 1);
      if (x < kMax) probes.push_back(x + 1);
    }
    Ids more = Draw(rng, GetParam(), 200);
    probes.insert(probes.end(), more.begin(), more.end());
    for (int64_t x : probes) {
      auto it = ref.find(x);
      int64_t want = it == ref.end() ? -1 : std::distance(ref.begin(), it);
      ASSERT_EQ(mxn_idset_find(&s.s, x), want) << "id " << x;
    }
  }
}

TEST_P(IdsetRandom, IntersectMatchesStdAndMapsPositions) {
  for (size_t u : kSizes) {
    const Ids universe = SortedUnique(Draw(rng, GetParam(), u));
    for (double pa : kDensities) {
      for (double pb : kDensities) {
        if (HasFailure()) return;
        SCOPED_TRACE("u = " + std::to_string(u) + ", pa = " + std::to_string(pa) +
                     ", pb = " + std::to_string(pb));
        Ids va = Sample(rng, universe, pa), vb = Sample(rng, universe, pb);
        // A few members outside the shared universe, so neither is a subset.
        Ids xa = Draw(rng, GetParam(), u / 10), xb = Draw(rng, GetParam(), u / 10);
        va.insert(va.end(), xa.begin(), xa.end());
        vb.insert(vb.end(), xb.begin(), xb.end());
        va = SortedUnique(va);
        vb = SortedUnique(vb);
        Set a, b;
        Make(va, a);
        Make(vb, b);
        Ids want;
        std::set_intersection(va.begin(), va.end(), vb.begin(), vb.end(),
                              std::back_inserter(want));

        Set e;
        Pos pa_, pb_;
        ASSERT_EQ(mxn_idset_intersect(&a.s, &b.s, &e.s, &pa_.p, &pb_.p), MXN_OK);
        ASSERT_TRUE(SameSet(e.s, want));
        if (e.s.n == 0) {
          EXPECT_EQ(pa_.p, nullptr);
          EXPECT_EQ(pb_.p, nullptr);
        } else {
          ASSERT_NE(pa_.p, nullptr);
          ASSERT_NE(pb_.p, nullptr);
        }
        for (int64_t k = 0; k < e.s.n; k++) {
          ASSERT_TRUE(pa_.p[k] >= 0 && pa_.p[k] < a.s.n) << "k = " << k;
          ASSERT_TRUE(pb_.p[k] >= 0 && pb_.p[k] < b.s.n) << "k = " << k;
          ASSERT_EQ(a.s.ids[pa_.p[k]], e.s.ids[k]) << "A.ids[pos_a[k]] != E.ids[k], k = " << k;
          ASSERT_EQ(b.s.ids[pb_.p[k]], e.s.ids[k]) << "B.ids[pos_b[k]] != E.ids[k], k = " << k;
        }
        EXPECT_EQ(mxn_idset_intersect_count(&a.s, &b.s), int64_t(want.size()));
        EXPECT_EQ(mxn_idset_intersect_count(&b.s, &a.s), int64_t(want.size()));

        // Either mapping may be omitted; the other must still be right.
        Set e2;
        Pos only_b;
        ASSERT_EQ(mxn_idset_intersect(&a.s, &b.s, &e2.s, nullptr, &only_b.p), MXN_OK);
        ASSERT_TRUE(SameSet(e2.s, want));
        for (int64_t k = 0; k < e2.s.n; k++) ASSERT_EQ(only_b.p[k], pb_.p[k]);
        Set e3;
        Pos only_a;
        ASSERT_EQ(mxn_idset_intersect(&a.s, &b.s, &e3.s, &only_a.p, nullptr), MXN_OK);
        ASSERT_TRUE(SameSet(e3.s, want));
        for (int64_t k = 0; k < e3.s.n; k++) ASSERT_EQ(only_a.p[k], pa_.p[k]);
        Set e4;
        ASSERT_EQ(mxn_idset_intersect(&b.s, &a.s, &e4.s, nullptr, nullptr), MXN_OK);
        ASSERT_TRUE(SameSet(e4.s, want));
      }
    }
  }
}

TEST_P(IdsetRandom, DifferenceAndUnionMatchStd) {
  for (size_t u : kSizes) {
    const Ids universe = SortedUnique(Draw(rng, GetParam(), u));
    for (double pa : kDensities) {
      for (double pb : kDensities) {
        if (HasFailure()) return;
        SCOPED_TRACE("u = " + std::to_string(u) + ", pa = " + std::to_string(pa) +
                     ", pb = " + std::to_string(pb));
        Ids va = Sample(rng, universe, pa), vb = Sample(rng, universe, pb);
        Ids xb = Draw(rng, GetParam(), u / 10);
        vb.insert(vb.end(), xb.begin(), xb.end());
        vb = SortedUnique(vb);
        Set a, b;
        Make(va, a);
        Make(vb, b);

        Ids amb, bma, uni;
        std::set_difference(va.begin(), va.end(), vb.begin(), vb.end(), std::back_inserter(amb));
        std::set_difference(vb.begin(), vb.end(), va.begin(), va.end(), std::back_inserter(bma));
        std::set_union(va.begin(), va.end(), vb.begin(), vb.end(), std::back_inserter(uni));

        Set d1, d2, u1, u2, self_d, self_u;
        ASSERT_EQ(mxn_idset_difference(&a.s, &b.s, &d1.s), MXN_OK);
        EXPECT_TRUE(SameSet(d1.s, amb)) << "A - B";
        ASSERT_EQ(mxn_idset_difference(&b.s, &a.s, &d2.s), MXN_OK);
        EXPECT_TRUE(SameSet(d2.s, bma)) << "B - A";
        ASSERT_EQ(mxn_idset_union(&a.s, &b.s, &u1.s), MXN_OK);
        EXPECT_TRUE(SameSet(u1.s, uni)) << "A | B";
        ASSERT_EQ(mxn_idset_union(&b.s, &a.s, &u2.s), MXN_OK);
        EXPECT_TRUE(SameSet(u2.s, uni)) << "B | A";
        ASSERT_EQ(mxn_idset_difference(&a.s, &a.s, &self_d.s), MXN_OK);
        EXPECT_TRUE(SameSet(self_d.s, {})) << "A - A";
        ASSERT_EQ(mxn_idset_union(&a.s, &a.s, &self_u.s), MXN_OK);
        EXPECT_TRUE(SameSet(self_u.s, va)) << "A | A";

        // (A - B) | (A & B) == A, as the cover relies on it.
        Set i, back;
        ASSERT_EQ(mxn_idset_intersect(&a.s, &b.s, &i.s, nullptr, nullptr), MXN_OK);
        ASSERT_EQ(mxn_idset_union(&d1.s, &i.s, &back.s), MXN_OK);
        EXPECT_TRUE(SameSet(back.s, va));
      }
    }
  }
}

TEST_P(IdsetRandom, CopyIsDeepAndEqual) {
  for (size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Ids v = SortedUnique(Draw(rng, GetParam(), n));
    Set s, c;
    Make(v, s);
    c.s.ids = reinterpret_cast<mxn_gid_t *>(0x1); // garbage out must be overwritten
    c.s.n = 12345;
    ASSERT_EQ(mxn_idset_copy(&s.s, &c.s), MXN_OK);
    ASSERT_TRUE(SameSet(c.s, v));
    if (!v.empty()) {
      EXPECT_NE(c.s.ids, s.s.ids);
      c.s.ids[0] ^= 1; // the copy is independent of the original
      EXPECT_EQ(s.s.ids[0], v[0]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, IdsetRandom, ::testing::ValuesIn(kAllKinds),
                         [](const ::testing::TestParamInfo<Kind> &i) { return KindName(i.param); });

// Runs of consecutive ids, as a member's cells are within a rank's part:
// each side alternates between runs it has and runs it lacks, of lengths
// from 1 to 300, so the walk switches sides at every run end and gallops
// over the other's runs; checked against std::set_intersection, with the
// positions, both ways round.
TEST(IdsetRuns, IntersectOfRunsMatchesStd) {
  std::mt19937_64 rng(0x12a5);
  for (int trial = 0; trial < 200; trial++) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int64_t maxrun = trial < 100 ? 4 : 300;
    Ids va, vb;
    int64_t id = static_cast<int64_t>(rng() % 1000) - 500;
    for (int r = 0; r < 60; r++) {
      const int64_t len = 1 + static_cast<int64_t>(rng() % maxrun);
      const unsigned who = rng() % 4; // 0: a only, 1: b only, 2: both, 3: neither
      for (int64_t k = 0; k < len; k++, id++) {
        if (who == 0 || who == 2) va.push_back(id);
        if (who == 1 || who == 2) vb.push_back(id);
      }
    }
    Ids want;
    std::set_intersection(va.begin(), va.end(), vb.begin(), vb.end(), std::back_inserter(want));
    Set a, b;
    Make(va, a);
    Make(vb, b);
    for (int swap = 0; swap < 2; swap++) {
      const Set &x = swap ? b : a, &y = swap ? a : b;
      Set e;
      Pos px, py;
      ASSERT_EQ(mxn_idset_intersect(&x.s, &y.s, &e.s, &px.p, &py.p), MXN_OK);
      ASSERT_TRUE(SameSet(e.s, want));
      for (int64_t k = 0; k < e.s.n; k++) {
        ASSERT_EQ(x.s.ids[px.p[k]], e.s.ids[k]) << "k = " << k;
        ASSERT_EQ(y.s.ids[py.p[k]], e.s.ids[k]) << "k = " << k;
      }
      EXPECT_EQ(mxn_idset_intersect_count(&x.s, &y.s), int64_t(want.size()));
      // mxn__idset_match: dst[at[i]] = val[j] for the common ids (at a
      // permutation of x's positions), dst[i] = j without at and val;
      // every other entry untouched.
      std::vector<int64_t> at(x.s.n), val(y.s.n), got(x.s.n, -1), plain(x.s.n, -1);
      std::vector<int64_t> want_at(x.s.n, -1), want_plain(x.s.n, -1);
      for (int64_t i = 0; i < x.s.n; i++) at[i] = x.s.n - 1 - i;
      for (int64_t j = 0; j < y.s.n; j++) val[j] = 7 * j + 3;
      for (int64_t k = 0; k < e.s.n; k++) {
        want_at[at[px.p[k]]] = val[py.p[k]];
        want_plain[px.p[k]] = py.p[k];
      }
      ASSERT_EQ(mxn__idset_match(&x.s, &y.s, at.data(), val.data(), got.data()), e.s.n);
      ASSERT_EQ(mxn__idset_match(&x.s, &y.s, nullptr, nullptr, plain.data()), e.s.n);
      EXPECT_EQ(got, want_at);
      EXPECT_EQ(plain, want_plain);
    }
  }
}

// ------------------------------------------------------------ fixed cases --

TEST(Idset, ExtremesAndSignsOrderCorrectly) {
  // Comparison by subtraction would overflow here.
  const Ids in = {kMax, 0, kMin, -1, int64_t(1) << 31, (int64_t(1) << 31) - 1, kMax, kMin, 1,
                  -(int64_t(1) << 31) - 1};
  Set s;
  Pos pos;
  ASSERT_EQ(mxn_idset_from_array_pos(in.data(), int64_t(in.size()), &s.s, &pos.p), MXN_OK);
  const Ids want = {kMin, -(int64_t(1) << 31) - 1, -1, 0, 1, (int64_t(1) << 31) - 1,
                    int64_t(1) << 31, kMax};
  ASSERT_TRUE(SameSet(s.s, want));
  const int64_t want_pos[] = {7, 3, 0, 2, 6, 5, 7, 0, 4, 1};
  for (size_t i = 0; i < in.size(); i++) EXPECT_EQ(pos.p[i], want_pos[i]) << "i = " << i;
  EXPECT_EQ(mxn_idset_find(&s.s, kMin), 0);
  EXPECT_EQ(mxn_idset_find(&s.s, kMax), 7);
  EXPECT_EQ(mxn_idset_find(&s.s, kMax - 1), -1);
  EXPECT_EQ(mxn_idset_find(&s.s, kMin + 1), -1);
}

TEST(Idset, SmallHandCases) {
  Set a, b, e, d, u;
  Make({1, 3, 5, 7, 9}, a);
  Make({0, 3, 4, 9, 10}, b);
  Pos pa, pb;
  ASSERT_EQ(mxn_idset_intersect(&a.s, &b.s, &e.s, &pa.p, &pb.p), MXN_OK);
  ASSERT_TRUE(SameSet(e.s, {3, 9}));
  EXPECT_EQ(pa.p[0], 1);
  EXPECT_EQ(pa.p[1], 4);
  EXPECT_EQ(pb.p[0], 1);
  EXPECT_EQ(pb.p[1], 3);
  ASSERT_EQ(mxn_idset_difference(&a.s, &b.s, &d.s), MXN_OK);
  EXPECT_TRUE(SameSet(d.s, {1, 5, 7}));
  ASSERT_EQ(mxn_idset_union(&a.s, &b.s, &u.s), MXN_OK);
  EXPECT_TRUE(SameSet(u.s, {0, 1, 3, 4, 5, 7, 9, 10}));
  EXPECT_EQ(mxn_idset_intersect_count(&a.s, &b.s), 2);
}

TEST(Idset, EmptyOperands) {
  Set a, empty, e, d1, d2, u1, u2, c;
  Make({-5, 0, 5}, a);
  Pos pa, pb;
  pa.p = reinterpret_cast<int64_t *>(0x1);
  pb.p = reinterpret_cast<int64_t *>(0x1);
  ASSERT_EQ(mxn_idset_intersect(&a.s, &empty.s, &e.s, &pa.p, &pb.p), MXN_OK);
  EXPECT_TRUE(SameSet(e.s, {}));
  EXPECT_EQ(pa.p, nullptr);
  EXPECT_EQ(pb.p, nullptr);
  EXPECT_EQ(mxn_idset_intersect_count(&empty.s, &a.s), 0);
  ASSERT_EQ(mxn_idset_difference(&a.s, &empty.s, &d1.s), MXN_OK);
  EXPECT_TRUE(SameSet(d1.s, {-5, 0, 5}));
  ASSERT_EQ(mxn_idset_difference(&empty.s, &a.s, &d2.s), MXN_OK);
  EXPECT_TRUE(SameSet(d2.s, {}));
  ASSERT_EQ(mxn_idset_union(&empty.s, &a.s, &u1.s), MXN_OK);
  EXPECT_TRUE(SameSet(u1.s, {-5, 0, 5}));
  ASSERT_EQ(mxn_idset_union(&empty.s, &empty.s, &u2.s), MXN_OK);
  EXPECT_TRUE(SameSet(u2.s, {}));
  ASSERT_EQ(mxn_idset_copy(&empty.s, &c.s), MXN_OK);
  EXPECT_TRUE(SameSet(c.s, {}));
  EXPECT_EQ(mxn_idset_find(&empty.s, 0), -1);
  EXPECT_TRUE(mxn_ids_sorted_unique(nullptr, 0));
  const mxn_gid_t one = kMin;
  EXPECT_TRUE(mxn_ids_sorted_unique(&one, 1));
  const mxn_gid_t dup[] = {4, 4};
  EXPECT_FALSE(mxn_ids_sorted_unique(dup, 2));
  const mxn_gid_t down[] = {kMax, kMin};
  EXPECT_FALSE(mxn_ids_sorted_unique(down, 2));
}

// ------------------------------------------------------------ error paths --

TEST(IdsetErrors, FromArrayRejectsBadArguments) {
  const mxn_gid_t ids[] = {3, 1, 2};
  Set s;
  Pos pos;
  EXPECT_EQ(mxn_idset_from_array(ids, 3, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_from_array(ids, -1, &s.s), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_from_array(nullptr, 3, &s.s), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_from_array_pos(ids, 3, nullptr, &pos.p), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_from_array_pos(ids, -1, &s.s, &pos.p), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_from_array_pos(nullptr, 3, &s.s, &pos.p), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_from_array_pos(ids, 3, nullptr, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_from_array_pos(ids, -1, &s.s, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(pos.p, nullptr);
  // NULL ids with n == 0 is the empty set, not an error.
  ASSERT_EQ(mxn_idset_from_array(nullptr, 0, &s.s), MXN_OK);
  EXPECT_TRUE(SameSet(s.s, {}));
  ASSERT_EQ(mxn_idset_from_array_pos(nullptr, 0, &s.s, &pos.p), MXN_OK);
  EXPECT_TRUE(SameSet(s.s, {}));
  EXPECT_EQ(pos.p, nullptr);
}

TEST(IdsetErrors, AlgebraRejectsNullArguments) {
  Set a, b, out;
  Make({1, 2}, a);
  Make({2, 3}, b);
  Pos pa, pb;
  EXPECT_EQ(mxn_idset_intersect(nullptr, &b.s, &out.s, &pa.p, &pb.p), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_intersect(&a.s, nullptr, &out.s, &pa.p, &pb.p), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_intersect(&a.s, &b.s, nullptr, &pa.p, &pb.p), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_difference(nullptr, &b.s, &out.s), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_difference(&a.s, nullptr, &out.s), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_difference(&a.s, &b.s, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_union(nullptr, &b.s, &out.s), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_union(&a.s, nullptr, &out.s), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_union(&a.s, &b.s, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_copy(nullptr, &out.s), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_copy(&a.s, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_idset_find(nullptr, 1), -1);
  EXPECT_EQ(mxn_idset_intersect_count(nullptr, &b.s), 0);
  EXPECT_EQ(mxn_idset_intersect_count(&a.s, nullptr), 0);
  EXPECT_EQ(pa.p, nullptr);
  EXPECT_EQ(pb.p, nullptr);
  EXPECT_TRUE(SameSet(out.s, {}));
}

TEST(IdsetErrors, MalformedSetsAreArgumentErrors) {
  // A set with n < 0, or n > 0 and no array, is a caller bug: MXN_ERR_ARG,
  // never an allocation failure, a crash or a silently empty result.
  Set good, out;
  Make({1, 2, 3}, good);
  const mxn_idset_t negative = {nullptr, -1};
  const mxn_idset_t no_array = {nullptr, 3};
  for (const mxn_idset_t *bad : {&negative, &no_array}) {
    SCOPED_TRACE(bad == &negative ? "n < 0" : "ids == NULL, n > 0");
    Pos pa, pb;
    EXPECT_EQ(mxn_idset_intersect(bad, &good.s, &out.s, &pa.p, &pb.p), MXN_ERR_ARG);
    EXPECT_EQ(mxn_idset_intersect(&good.s, bad, &out.s, &pa.p, &pb.p), MXN_ERR_ARG);
    EXPECT_EQ(mxn_idset_difference(bad, &good.s, &out.s), MXN_ERR_ARG);
    EXPECT_EQ(mxn_idset_difference(&good.s, bad, &out.s), MXN_ERR_ARG);
    EXPECT_EQ(mxn_idset_union(bad, &good.s, &out.s), MXN_ERR_ARG);
    EXPECT_EQ(mxn_idset_union(&good.s, bad, &out.s), MXN_ERR_ARG);
    EXPECT_EQ(mxn_idset_copy(bad, &out.s), MXN_ERR_ARG);
    EXPECT_EQ(mxn_idset_find(bad, 1), -1);
    EXPECT_EQ(pa.p, nullptr);
    EXPECT_EQ(pb.p, nullptr);
    EXPECT_TRUE(SameSet(out.s, {}));
  }
  const mxn_idset_t negative_empty = {nullptr, -1};
  EXPECT_EQ(mxn_idset_intersect_count(&negative_empty, &good.s), 0);
}

TEST(IdsetErrors, FreeIsSafeOnNullEmptyAndTwice) {
  mxn_idset_free(nullptr);
  mxn_idset_t empty = MXN_IDSET_INIT;
  mxn_idset_free(&empty);
  EXPECT_EQ(empty.ids, nullptr);
  EXPECT_EQ(empty.n, 0);
  mxn_idset_t s = MXN_IDSET_INIT;
  const mxn_gid_t ids[] = {9, 8, 7};
  ASSERT_EQ(mxn_idset_from_array(ids, 3, &s), MXN_OK);
  mxn_idset_free(&s);
  EXPECT_EQ(s.ids, nullptr);
  EXPECT_EQ(s.n, 0);
  mxn_idset_free(&s); // freeing again is harmless
  EXPECT_EQ(s.n, 0);
}

// ---------------------------------------------------------- linear time --

// 10M-member operands: a merge finishes in tens of milliseconds, anything
// quadratic would not finish at all. The bound is deliberately loose, and
// on the process's CPU time: wall time on a busy machine (a CI run beside
// other jobs) went past 2 s for a linear intersect.
TEST(IdsetLarge, TenMillionMembersInLinearTime) {
  const int64_t n = 10 * 1000 * 1000;
  const int64_t base = int64_t(1) << 32; // ids above 2^32 throughout
  Ids va(n), vb(n);
  for (int64_t i = 0; i < n; i++) {
    va[i] = base + 2 * i;
    vb[i] = base + 3 * i;
  }
  Set a, b;
  ASSERT_EQ(mxn_idset_from_array(va.data(), n, &a.s), MXN_OK);
  ASSERT_EQ(mxn_idset_from_array(vb.data(), n, &b.s), MXN_OK);
  ASSERT_EQ(a.s.n, n);
  ASSERT_EQ(b.s.n, n);
  Ids().swap(va);
  Ids().swap(vb);
  const double limit = 30.0; // CPU seconds per operation

  struct Clock {  // CPU time of this process, as a steady_clock-like clock
    using duration = std::chrono::duration<double>;
    static std::chrono::time_point<Clock, duration> now() {
      return std::chrono::time_point<Clock, duration>(
          duration(double(std::clock()) / CLOCKS_PER_SEC));
    }
  };
  auto t0 = Clock::now();
  Set e;
  Pos pa, pb;
  ASSERT_EQ(mxn_idset_intersect(&a.s, &b.s, &e.s, &pa.p, &pb.p), MXN_OK);
  double t_int = std::chrono::duration<double>(Clock::now() - t0).count();
  // A ∩ B = multiples of 6 below 2n: base + 6k, at 3k in A and 2k in B.
  const int64_t ne = (2 * n + 5) / 6;
  ASSERT_EQ(e.s.n, ne);
  for (int64_t k = 0; k < ne; k++) {
    if (e.s.ids[k] != base + 6 * k || pa.p[k] != 3 * k || pb.p[k] != 2 * k) {
      FAIL() << "wrong intersection at k = " << k;
    }
  }

  t0 = Clock::now();
  EXPECT_EQ(mxn_idset_intersect_count(&a.s, &b.s), ne);
  double t_cnt = std::chrono::duration<double>(Clock::now() - t0).count();

  t0 = Clock::now();
  Set d;
  ASSERT_EQ(mxn_idset_difference(&a.s, &b.s, &d.s), MXN_OK);
  double t_dif = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_EQ(d.s.n, n - ne);
  EXPECT_TRUE(mxn_ids_sorted_unique(d.s.ids, d.s.n));
  for (int64_t k = 0; k < d.s.n; k++)
    if ((d.s.ids[k] - base) % 2 != 0 || (d.s.ids[k] - base) % 3 == 0)
      FAIL() << "A - B holds " << d.s.ids[k];

  t0 = Clock::now();
  Set u;
  ASSERT_EQ(mxn_idset_union(&a.s, &b.s, &u.s), MXN_OK);
  double t_uni = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_EQ(u.s.n, 2 * n - ne);
  EXPECT_TRUE(mxn_ids_sorted_unique(u.s.ids, u.s.n));
  EXPECT_EQ(u.s.ids[0], base);
  EXPECT_EQ(u.s.ids[u.s.n - 1], base + 3 * (n - 1));

  t0 = Clock::now();
  for (int64_t k = 0; k < n; k += 997) ASSERT_EQ(mxn_idset_find(&a.s, base + 2 * k), k);
  double t_find = std::chrono::duration<double>(Clock::now() - t0).count();

  EXPECT_LT(t_int, limit) << "intersect of 2 x 10M took " << t_int << " s";
  EXPECT_LT(t_cnt, limit) << "intersect_count took " << t_cnt << " s";
  EXPECT_LT(t_dif, limit) << "difference took " << t_dif << " s";
  EXPECT_LT(t_uni, limit) << "union took " << t_uni << " s";
  EXPECT_LT(t_find, limit) << "10k finds took " << t_find << " s";
}

} // namespace
