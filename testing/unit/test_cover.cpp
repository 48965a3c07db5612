// Unit tests for mxn/cover.h: the greedy minimal cover of a partition domain P
// by file domains F_0..F_{M-1} (seed mxn-repartitioning-algorithm.txt §III).
//
// Random P and files of many shapes (empty, equal to P, nested, duplicated,
// disjoint, P members in no file) are checked two ways:
//  - invariants that hold for any correct cover: the E_j and `uncovered`
//    partition P, E_j ⊆ F_j with F_j.ids[mf[k]] == E.ids[k] and
//    P.ids[mp[k]] == E.ids[k], uncovered == P − ∪F_j;
//  - the exact greedy sequence, recomputed by brute force straight from the
//    seed: at each step the unchosen j with the smallest |R − F_j| (ties: the
//    lowest j), skipping files that would not shrink R;
// and the core's private form without E.ids must give the same parts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mxn/cover.h"
#include "random_ids.h"

// The core's private form (internal.h): the same cover, optionally
// without E.ids.
extern "C" int mxn__cover_greedy(const mxn_idset_t *P, const mxn_idset_t *F, int nfiles, int ids,
                                 mxn_cover_t *out);

namespace {

using namespace mxntest;

// Owns a list of C sets built from vectors, so F can be passed as an array.
struct Sets {
  std::vector<mxn_idset_t> s;
  Sets() = default;
  Sets(const Sets &) = delete;
  Sets &operator=(const Sets &) = delete;
  ~Sets() {
    for (auto &x : s) mxn_idset_free(&x);
  }
  void Add(const Ids &v) {
    mxn_idset_t x = MXN_IDSET_INIT;
    int rc = mxn_idset_from_array(v.empty() ? nullptr : v.data(), int64_t(v.size()), &x);
    ASSERT_EQ(rc, MXN_OK);
    ASSERT_EQ(x.n, int64_t(v.size())) << "test input must be sorted unique";
    s.push_back(x);
  }
  const mxn_idset_t *data() const { return s.empty() ? nullptr : s.data(); }
  int size() const { return int(s.size()); }
};

struct Cover {
  mxn_cover_t c;
  Cover() { std::memset(&c, 0, sizeof c); }
  Cover(const Cover &) = delete;
  Cover &operator=(const Cover &) = delete;
  ~Cover() { mxn_cover_free(&c); }
};

Ids ToVec(const mxn_idset_t &s) { return s.n ? Ids(s.ids, s.ids + s.n) : Ids(); }

Ids Inter(const Ids &a, const Ids &b) {
  Ids r;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}
Ids Minus(const Ids &a, const Ids &b) {
  Ids r;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}
Ids Union(const Ids &a, const Ids &b) {
  Ids r;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}

// The seed's algorithm, written from §III.D with std:: set operations.
struct RefCover {
  std::vector<int> files;
  std::vector<Ids> E;
  Ids uncovered;
};

RefCover ReferenceGreedy(const Ids &P, const std::vector<Ids> &F) {
  RefCover ref;
  Ids R = P;
  std::vector<bool> chosen(F.size(), false);
  while (!R.empty()) {
    int best = -1;
    size_t best_d = R.size(); // a file must shrink R to be worth reading
    for (size_t j = 0; j < F.size(); j++) {
      if (chosen[j]) continue;
      size_t d = Minus(R, F[j]).size(); // D_{k,j} = R_{k-1} − F_j
      if (d < best_d) {                 // strict: ties keep the lowest j
        best_d = d;
        best = int(j);
      }
    }
    if (best < 0) break;
    chosen[best] = true;
    ref.files.push_back(best);
    ref.E.push_back(Inter(R, F[best]));
    R = Minus(R, F[best]);
  }
  ref.uncovered = R;
  return ref;
}

// Invariants any correct cover satisfies, independent of the greedy order.
void CheckInvariants(const Ids &P, const std::vector<Ids> &F, const Sets &Pset, const Sets &Fset,
                     const mxn_cover_t &c) {
  const mxn_idset_t &p = Pset.s[0];
  ASSERT_GE(c.nparts, 0);
  ASSERT_LE(c.nparts, int(F.size()));
  if (c.nparts > 0) ASSERT_NE(c.parts, nullptr);
  std::vector<int> hits(P.size(), 0);
  std::vector<bool> used(F.size(), false);
  int64_t prev_size = std::numeric_limits<int64_t>::max();
  for (int k = 0; k < c.nparts; k++) {
    SCOPED_TRACE("part " + std::to_string(k));
    const mxn_cover_part_t &part = c.parts[k];
    ASSERT_GE(part.file, 0);
    ASSERT_LT(part.file, int(F.size()));
    ASSERT_FALSE(used[part.file]) << "file " << part.file << " chosen twice";
    used[part.file] = true;
    const mxn_idset_t &f = Fset.s[part.file];
    // A chosen file contributes something, and E is a set.
    ASSERT_GT(part.E.n, 0) << "file " << part.file << " chosen for nothing";
    ASSERT_NE(part.E.ids, nullptr);
    ASSERT_NE(part.mf, nullptr);
    ASSERT_NE(part.mp, nullptr);
    ASSERT_TRUE(mxn_ids_sorted_unique(part.E.ids, part.E.n));
    // Greedy takes the biggest piece first, so the pieces never grow.
    EXPECT_LE(part.E.n, prev_size);
    prev_size = part.E.n;
    for (int64_t i = 0; i < part.E.n; i++) {
      const int64_t id = part.E.ids[i], mf = part.mf[i], mp = part.mp[i];
      ASSERT_TRUE(mf >= 0 && mf < f.n) << "mf[" << i << "] = " << mf;
      ASSERT_TRUE(mp >= 0 && mp < p.n) << "mp[" << i << "] = " << mp;
      ASSERT_EQ(f.ids[mf], id) << "F_j.ids[mf[" << i << "]] != E.ids[" << i << "]";
      ASSERT_EQ(p.ids[mp], id) << "P.ids[mp[" << i << "]] != E.ids[" << i << "]";
      hits[mp]++;
    }
  }
  // uncovered == P − ∪F_j exactly.
  Ids all_f;
  for (const Ids &f : F) all_f = Union(all_f, f);
  const Ids want_unc = Minus(P, all_f);
  const Ids unc = ToVec(c.uncovered);
  EXPECT_EQ(unc, want_unc) << "uncovered != P - union(F)";
  EXPECT_EQ(c.uncovered.ids == nullptr, c.uncovered.n == 0);
  for (int64_t id : unc) {
    auto it = std::lower_bound(P.begin(), P.end(), id);
    ASSERT_TRUE(it != P.end() && *it == id) << "uncovered id " << id << " not in P";
    hits[it - P.begin()]++;
  }
  // Every member of P extracted exactly once or reported uncovered once:
  // the E_j are pairwise disjoint and, with `uncovered`, union to P.
  for (size_t i = 0; i < P.size(); i++)
    ASSERT_EQ(hits[i], 1) << "P member " << P[i] << " covered " << hits[i] << " times";
}

// Runs the cover, checks the invariants and the exact greedy sequence.
void CheckCover(const Ids &P, const std::vector<Ids> &F, Cover *keep = nullptr) {
  Sets Pset, Fset;
  Pset.Add(P);
  for (const Ids &f : F) Fset.Add(f);
  if (::testing::Test::HasFatalFailure()) return;
  Cover local;
  Cover &cov = keep ? *keep : local;
  ASSERT_EQ(mxn_cover_greedy(&Pset.s[0], Fset.data(), Fset.size(), &cov.c), MXN_OK);
  CheckInvariants(P, F, Pset, Fset, cov.c);
  if (::testing::Test::HasFatalFailure()) return;

  const RefCover ref = ReferenceGreedy(P, F);
  std::vector<int> got;
  for (int k = 0; k < cov.c.nparts; k++) got.push_back(cov.c.parts[k].file);
  ASSERT_EQ(got, ref.files) << "greedy order differs from the brute-force reference";
  for (int k = 0; k < cov.c.nparts; k++)
    EXPECT_EQ(ToVec(cov.c.parts[k].E), ref.E[k]) << "E of part " << k;
  EXPECT_EQ(ToVec(cov.c.uncovered), ref.uncovered);

  // The core's private form without ids: the same parts (files, counts,
  // MF, MP) with E.ids NULL, and the same uncovered ids.
  Cover priv;
  ASSERT_EQ(mxn__cover_greedy(&Pset.s[0], Fset.data(), Fset.size(), 0, &priv.c), MXN_OK);
  ASSERT_EQ(priv.c.nparts, cov.c.nparts);
  for (int k = 0; k < cov.c.nparts; k++) {
    const mxn_cover_part_t &a = cov.c.parts[k], &b = priv.c.parts[k];
    EXPECT_EQ(a.file, b.file) << "private form, part " << k;
    ASSERT_EQ(a.E.n, b.E.n) << "private form, part " << k;
    EXPECT_EQ(nullptr, b.E.ids) << "private form, part " << k;
    EXPECT_TRUE(std::equal(a.mf, a.mf + a.E.n, b.mf)) << "private form, part " << k;
    EXPECT_TRUE(std::equal(a.mp, a.mp + a.E.n, b.mp)) << "private form, part " << k;
  }
  EXPECT_EQ(ToVec(priv.c.uncovered), ref.uncovered) << "private form";
}

// A sorted universe of u distinct ids from one of several id distributions.
Ids Universe(std::mt19937_64 &rng, size_t u, int kind) {
  std::set<int64_t> s;
  const int64_t span = 4 * int64_t(u) + 4;
  const int64_t base = Uni(rng, -100, 100);
  while (s.size() < u) {
    switch (kind) {
    case 0: s.insert(Uni(rng, base, base + span)); break;                   // dense
    case 1: s.insert(Uni(rng, kMin, kMax)); break;                          // sparse
    case 2: s.insert(Uni(rng, -span - 1000000, -1000000)); break;           // negative
    case 3: s.insert(Uni(rng, kMax - span, kMax)); break;                   // near max
    case 4: s.insert(Uni(rng, kMin, kMin + span)); break;                   // near min
    case 5: s.insert(Uni(rng, (int64_t(1) << 31) - span / 2,                // above 2^31
                         (int64_t(1) << 31) + span));
      break;
    default: s.insert(Uni(rng, -span, span)); break; // straddles zero
    }
  }
  return Ids(s.begin(), s.end());
}

// One random scenario: P ⊆ universe, and nfiles files of mixed shapes.
void RandomScenario(std::mt19937_64 &rng, size_t u, int nfiles, Ids &P, std::vector<Ids> &F) {
  const Ids U = Universe(rng, u, int(Uni(rng, 0, 6)));
  const double densities[] = {0.0, 0.1, 0.5, 0.9, 1.0};
  P = Sample(rng, U, densities[Uni(rng, 0, 4)]);
  F.clear();
  for (int j = 0; j < nfiles; j++) {
    Ids f;
    switch (Uni(rng, 0, 9)) {
    case 0: break; // empty file
    case 1: f = P; break;
    case 2: f = Sample(rng, U, densities[Uni(rng, 1, 4)]); break;
    case 3: // subset of an earlier file
      if (j > 0) f = Sample(rng, F[Uni(rng, 0, j - 1)], 0.5);
      break;
    case 4: // superset of an earlier file
      if (j > 0) f = Union(F[Uni(rng, 0, j - 1)], Sample(rng, U, 0.2));
      break;
    case 5: // duplicate of an earlier file: exact ties
      if (j > 0) f = F[Uni(rng, 0, j - 1)];
      break;
    case 6: // disjoint from P
      f = Sample(rng, Minus(U, P), 0.7);
      break;
    case 7: { // a contiguous block of the universe
      if (!U.empty()) {
        size_t a = size_t(Uni(rng, 0, int64_t(U.size()) - 1));
        size_t b = size_t(Uni(rng, int64_t(a), int64_t(U.size()) - 1));
        f.assign(U.begin() + a, U.begin() + b + 1);
      }
      break;
    }
    case 8: f = Sample(rng, P, 0.3); break; // small piece of P
    default: f = Sample(rng, U, 0.05); break;
    }
    F.push_back(f);
  }
  // Sometimes punch holes: members of P that no file holds.
  if (Uni(rng, 0, 2) == 0 && !P.empty()) {
    const Ids holes = Sample(rng, P, 0.1);
    for (Ids &f : F) f = Minus(f, holes);
  }
}

// ------------------------------------------------------------- random ---

TEST(CoverRandom, SmallScenariosMatchBruteForceGreedy) {
  std::mt19937_64 rng(20240601);
  const size_t sizes[] = {0, 1, 2, 3, 5, 10, 30, 100};
  int trials = 0;
  for (size_t u : sizes) {
    for (int nfiles = 0; nfiles <= 8; nfiles++) {
      for (int rep = 0; rep < 25; rep++) {
        SCOPED_TRACE("u = " + std::to_string(u) + ", nfiles = " + std::to_string(nfiles) +
                     ", rep = " + std::to_string(rep));
        Ids P;
        std::vector<Ids> F;
        RandomScenario(rng, u, nfiles, P, F);
        CheckCover(P, F);
        trials++;
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_EQ(trials, 8 * 9 * 25);
}

TEST(CoverRandom, LargerScenariosMatchBruteForceGreedy) {
  std::mt19937_64 rng(777);
  for (int rep = 0; rep < 40; rep++) {
    const size_t u = size_t(Uni(rng, 500, 5000));
    const int nfiles = int(Uni(rng, 1, 32));
    SCOPED_TRACE("u = " + std::to_string(u) + ", nfiles = " + std::to_string(nfiles) +
                 ", rep = " + std::to_string(rep));
    Ids P;
    std::vector<Ids> F;
    RandomScenario(rng, u, nfiles, P, F);
    CheckCover(P, F);
    if (HasFailure()) return;
  }
}

// Spread-file layout: files are disjoint (each id in exactly one file) and P
// takes any part of their union. Exactly the files meeting P are read, each
// for all of F_j ∩ P, largest first, ties by file index.
TEST(CoverRandom, PartitionLikeFilesPickExactlyThoseMeetingP) {
  std::mt19937_64 rng(4242);
  for (int rep = 0; rep < 200; rep++) {
    const size_t u = size_t(Uni(rng, 0, 400));
    const int nfiles = int(Uni(rng, 1, 12));
    SCOPED_TRACE("u = " + std::to_string(u) + ", nfiles = " + std::to_string(nfiles) +
                 ", rep = " + std::to_string(rep));
    const Ids U = Universe(rng, u, int(Uni(rng, 0, 6)));
    std::vector<Ids> F(nfiles);
    const bool blocks = rep % 2 == 0; // contiguous blocks, or interleaved ids
    for (size_t i = 0; i < U.size(); i++) {
      size_t j = blocks ? i * nfiles / std::max<size_t>(U.size(), 1) : size_t(Uni(rng, 0, nfiles - 1));
      F[j].push_back(U[i]);
    }
    // P = the whole union (every non-empty file read), or a random part of it.
    const Ids P = (rep % 4 < 2) ? U : Sample(rng, U, rep % 4 == 2 ? 0.3 : 0.02);
    Cover cov;
    CheckCover(P, F, &cov);
    if (HasFailure()) return;
    EXPECT_EQ(cov.c.uncovered.n, 0);
    std::vector<int> meeting;
    for (int j = 0; j < nfiles; j++)
      if (!Inter(P, F[j]).empty()) meeting.push_back(j);
    // Expected order: |F_j ∩ P| decreasing, stable in j.
    std::stable_sort(meeting.begin(), meeting.end(), [&](int x, int y) {
      return Inter(P, F[x]).size() > Inter(P, F[y]).size();
    });
    std::vector<int> got;
    for (int k = 0; k < cov.c.nparts; k++) {
      got.push_back(cov.c.parts[k].file);
      EXPECT_EQ(ToVec(cov.c.parts[k].E), Inter(P, F[cov.c.parts[k].file]));
    }
    EXPECT_EQ(got, meeting);
    if (HasFailure()) return;
  }
}

// -------------------------------------------------------- hand-made -----

Ids Range(int64_t lo, int64_t hi) { // [lo, hi]
  Ids r;
  for (int64_t x = lo; x <= hi; x++) r.push_back(x);
  return r;
}

std::vector<int> Files(const mxn_cover_t &c) {
  std::vector<int> v;
  for (int k = 0; k < c.nparts; k++) v.push_back(c.parts[k].file);
  return v;
}

TEST(Cover, GreedyTakesTheBigFileFirst) {
  // Reading files in order would take F0 first; the greedy takes F1 (9 ids),
  // then F2 for the last one, and never opens F0.
  const Ids P = Range(1, 10);
  const std::vector<Ids> F = {{1, 2}, Range(1, 9), {10}};
  Cover cov;
  CheckCover(P, F, &cov);
  ASSERT_EQ(Files(cov.c), (std::vector<int>{1, 2}));
  const mxn_cover_part_t &p0 = cov.c.parts[0], &p1 = cov.c.parts[1];
  EXPECT_EQ(ToVec(p0.E), Range(1, 9));
  for (int64_t k = 0; k < 9; k++) {
    EXPECT_EQ(p0.mf[k], k);
    EXPECT_EQ(p0.mp[k], k);
  }
  EXPECT_EQ(ToVec(p1.E), Ids{10});
  EXPECT_EQ(p1.mf[0], 0);
  EXPECT_EQ(p1.mp[0], 9);
  EXPECT_EQ(cov.c.uncovered.n, 0);
  EXPECT_EQ(cov.c.uncovered.ids, nullptr);
}

TEST(Cover, OverlapIsExtractedOnceFromTheFirstChosenFile) {
  // F1 holds 5 of P, F0 holds 3; they share {4, 5}, which come from F1 only.
  const Ids P = Range(1, 8);
  const std::vector<Ids> F = {{4, 5, 6, 100}, {0, 1, 2, 3, 4, 5}, {7, 8}};
  Cover cov;
  CheckCover(P, F, &cov);
  ASSERT_EQ(Files(cov.c), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(ToVec(cov.c.parts[0].E), (Ids{1, 2, 3, 4, 5}));
  EXPECT_EQ(ToVec(cov.c.parts[1].E), (Ids{7, 8}));
  EXPECT_EQ(ToVec(cov.c.parts[2].E), (Ids{6}));
  // 6 is at position 2 in F0 and position 5 in P.
  EXPECT_EQ(cov.c.parts[2].mf[0], 2);
  EXPECT_EQ(cov.c.parts[2].mp[0], 5);
  // 1..5 sit at positions 1..5 of F1.
  for (int64_t k = 0; k < 5; k++) EXPECT_EQ(cov.c.parts[0].mf[k], k + 1);
}

TEST(Cover, ExtremeIdsAndPositions) {
  const int64_t two31 = int64_t(1) << 31;
  const Ids P = {kMin, -1, 0, two31, kMax};
  const std::vector<Ids> F = {{kMin, kMax}, {-1, 0, 5, two31}};
  Cover cov;
  CheckCover(P, F, &cov);
  ASSERT_EQ(Files(cov.c), (std::vector<int>{1, 0}));
  const mxn_cover_part_t &a = cov.c.parts[0], &b = cov.c.parts[1];
  EXPECT_EQ(ToVec(a.E), (Ids{-1, 0, two31}));
  EXPECT_EQ(a.mf[0], 0);
  EXPECT_EQ(a.mf[1], 1);
  EXPECT_EQ(a.mf[2], 3);
  EXPECT_EQ(a.mp[0], 1);
  EXPECT_EQ(a.mp[1], 2);
  EXPECT_EQ(a.mp[2], 3);
  EXPECT_EQ(ToVec(b.E), (Ids{kMin, kMax}));
  EXPECT_EQ(b.mf[0], 0);
  EXPECT_EQ(b.mf[1], 1);
  EXPECT_EQ(b.mp[0], 0);
  EXPECT_EQ(b.mp[1], 4);
}

TEST(Cover, TiesGoToTheLowestFileIndex) {
  {
    // Equal contributions: F0 before F1; F2 (a copy of F0) then adds nothing.
    Cover cov;
    CheckCover(Range(1, 4), {{1, 2}, {3, 4}, {1, 2}}, &cov);
    EXPECT_EQ(Files(cov.c), (std::vector<int>{0, 1}));
  }
  {
    // Same, with the tie between the higher indices.
    Cover cov;
    CheckCover(Range(1, 4), {{1}, {3, 4}, {1, 2}}, &cov);
    EXPECT_EQ(Files(cov.c), (std::vector<int>{1, 2}));
  }
  {
    // Overlapping tie: F0 wins {1,2}; F1 then only brings 3.
    Cover cov;
    CheckCover({1, 2, 3}, {{1, 2}, {2, 3}}, &cov);
    ASSERT_EQ(Files(cov.c), (std::vector<int>{0, 1}));
    EXPECT_EQ(ToVec(cov.c.parts[1].E), Ids{3});
    EXPECT_EQ(cov.c.parts[1].mf[0], 1);
    EXPECT_EQ(cov.c.parts[1].mp[0], 2);
  }
  {
    // Identical files equal to P: only the first is read.
    Cover cov;
    CheckCover(Range(-3, 3), {{}, Range(-3, 3), Range(-3, 3), Range(-3, 3)}, &cov);
    EXPECT_EQ(Files(cov.c), (std::vector<int>{1}));
  }
  {
    // A file with more ids overall but fewer in P loses to a smaller one.
    Cover cov;
    CheckCover({10, 20, 30}, {Range(0, 15), {20, 30}}, &cov);
    EXPECT_EQ(Files(cov.c), (std::vector<int>{1, 0}));
  }
}

TEST(Cover, DeterministicAcrossRuns) {
  std::mt19937_64 rng(99);
  for (int rep = 0; rep < 50; rep++) {
    Ids P;
    std::vector<Ids> F;
    RandomScenario(rng, 200, 10, P, F);
    Sets Pset, Fset;
    Pset.Add(P);
    for (const Ids &f : F) Fset.Add(f);
    Cover a, b;
    ASSERT_EQ(mxn_cover_greedy(&Pset.s[0], Fset.data(), Fset.size(), &a.c), MXN_OK);
    ASSERT_EQ(mxn_cover_greedy(&Pset.s[0], Fset.data(), Fset.size(), &b.c), MXN_OK);
    ASSERT_EQ(a.c.nparts, b.c.nparts);
    for (int k = 0; k < a.c.nparts; k++) {
      EXPECT_EQ(a.c.parts[k].file, b.c.parts[k].file);
      EXPECT_EQ(ToVec(a.c.parts[k].E), ToVec(b.c.parts[k].E));
      EXPECT_EQ(0, std::memcmp(a.c.parts[k].mf, b.c.parts[k].mf,
                               sizeof(int64_t) * size_t(a.c.parts[k].E.n)));
      EXPECT_EQ(0, std::memcmp(a.c.parts[k].mp, b.c.parts[k].mp,
                               sizeof(int64_t) * size_t(a.c.parts[k].E.n)));
    }
    EXPECT_EQ(ToVec(a.c.uncovered), ToVec(b.c.uncovered));
  }
}

TEST(Cover, EmptyAndDegenerateInputs) {
  {
    // No files at all (F may be NULL): everything is uncovered.
    Sets Pset;
    Pset.Add({-2, 7, kMax});
    Cover cov;
    ASSERT_EQ(mxn_cover_greedy(&Pset.s[0], nullptr, 0, &cov.c), MXN_OK);
    EXPECT_EQ(cov.c.nparts, 0);
    EXPECT_EQ(ToVec(cov.c.uncovered), (Ids{-2, 7, kMax}));
  }
  {
    // Empty P: nothing to read, nothing uncovered.
    Cover cov;
    CheckCover({}, {{1, 2}, Range(0, 9)}, &cov);
    EXPECT_EQ(cov.c.nparts, 0);
    EXPECT_EQ(cov.c.uncovered.n, 0);
    EXPECT_EQ(cov.c.uncovered.ids, nullptr);
  }
  {
    // Only empty files and files disjoint from P.
    Cover cov;
    CheckCover({5, 6}, {{}, {1, 2}, {}, {7}}, &cov);
    EXPECT_EQ(cov.c.nparts, 0);
    EXPECT_EQ(ToVec(cov.c.uncovered), (Ids{5, 6}));
  }
  {
    // Single-member P in the last file; P members missing from every file.
    Cover cov;
    CheckCover({1, 2, 3, 4}, {{9}, {}, {2, 4, 8}}, &cov);
    EXPECT_EQ(Files(cov.c), (std::vector<int>{2}));
    EXPECT_EQ(ToVec(cov.c.uncovered), (Ids{1, 3}));
  }
  {
    // A garbage output struct is fully overwritten.
    Sets Pset, Fset;
    Pset.Add({1});
    Fset.Add({1});
    mxn_cover_t c;
    std::memset(&c, 0xAB, sizeof c);
    ASSERT_EQ(mxn_cover_greedy(&Pset.s[0], Fset.data(), 1, &c), MXN_OK);
    EXPECT_EQ(c.nparts, 1);
    EXPECT_EQ(c.uncovered.n, 0);
    EXPECT_EQ(c.uncovered.ids, nullptr);
    mxn_cover_free(&c);
  }
}

// ------------------------------------------------------------ errors ----

TEST(CoverErrors, NullAndNegativeArguments) {
  Sets Pset, Fset;
  Pset.Add({1, 2, 3});
  Fset.Add({1, 2});
  Fset.Add({3});
  Cover cov;
  EXPECT_EQ(mxn_cover_greedy(nullptr, Fset.data(), 2, &cov.c), MXN_ERR_ARG);
  EXPECT_EQ(mxn_cover_greedy(&Pset.s[0], Fset.data(), 2, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_cover_greedy(&Pset.s[0], nullptr, 2, &cov.c), MXN_ERR_ARG);
  EXPECT_EQ(mxn_cover_greedy(&Pset.s[0], Fset.data(), -1, &cov.c), MXN_ERR_ARG);
  EXPECT_EQ(cov.c.nparts, 0);
  EXPECT_EQ(cov.c.parts, nullptr);
}

TEST(CoverErrors, MalformedSetsAreArgumentErrors) {
  Sets Pset, Fset;
  Pset.Add({1, 2, 3});
  Fset.Add({1, 2});
  Fset.Add({3});
  const mxn_idset_t negative = {nullptr, -1};
  const mxn_idset_t no_array = {nullptr, 2};
  Cover cov;
  EXPECT_EQ(mxn_cover_greedy(&negative, Fset.data(), 2, &cov.c), MXN_ERR_ARG);
  EXPECT_EQ(mxn_cover_greedy(&no_array, Fset.data(), 2, &cov.c), MXN_ERR_ARG);
  for (const mxn_idset_t *bad : {&negative, &no_array}) {
    const mxn_idset_t F[3] = {Fset.s[0], *bad, Fset.s[1]};
    EXPECT_EQ(mxn_cover_greedy(&Pset.s[0], F, 3, &cov.c), MXN_ERR_ARG);
  }
  EXPECT_EQ(cov.c.nparts, 0);
  EXPECT_EQ(cov.c.parts, nullptr);
}

TEST(CoverErrors, FreeIsSafeOnNullZeroedAndTwice) {
  mxn_cover_free(nullptr);
  mxn_cover_t z;
  std::memset(&z, 0, sizeof z);
  mxn_cover_free(&z);
  EXPECT_EQ(z.nparts, 0);
  EXPECT_EQ(z.parts, nullptr);

  Sets Pset, Fset;
  Pset.Add(Range(1, 10));
  Fset.Add(Range(1, 5));
  Fset.Add(Range(6, 12));
  mxn_cover_t c;
  ASSERT_EQ(mxn_cover_greedy(&Pset.s[0], Fset.data(), 2, &c), MXN_OK);
  ASSERT_EQ(c.nparts, 2);
  mxn_cover_free(&c);
  EXPECT_EQ(c.nparts, 0);
  EXPECT_EQ(c.parts, nullptr);
  EXPECT_EQ(c.uncovered.ids, nullptr);
  EXPECT_EQ(c.uncovered.n, 0);
  mxn_cover_free(&c); // second free is a no-op
}

} // namespace
