// The distributed directory (core/src/partition/directory.c) and collective error
// agreement, run under mpiexec at several rank counts: every query must
// return exactly the entries a brute-force global table holds.
#include <mpi.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "mxn/mxn.h"
#include "test_support.h"

namespace {

int rank_of(MPI_Comm c) {
  int r;
  MPI_Comm_rank(c, &r);
  return r;
}
int size_of(MPI_Comm c) {
  int s;
  MPI_Comm_size(c, &s);
  return s;
}

// Entries every rank can recompute: "file" f owned by rank f % size holds
// ids in a window that overlaps its neighbour's (shared ids), some 64-bit.
struct Entry {
  int64_t id;
  int32_t file;
  int64_t pos;
};

std::vector<Entry> all_entries(int nfiles) {
  std::vector<Entry> v;
  for (int f = 0; f < nfiles; f++) {
    int64_t base = (f % 2 ? (int64_t)1 << 33 : 0) + 100 * f;
    for (int64_t p = 0; p < 150; p++) v.push_back({base + p, f, p});
  }
  return v;
}

TEST(Directory, QueriesReturnEveryEntryOfEveryFile) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = rank_of(comm), size = size_of(comm);
  const int nfiles = 7;
  std::vector<Entry> all = all_entries(nfiles);
  std::vector<int64_t> ids, pos;
  std::vector<int32_t> file;
  for (const Entry &e : all)
    if (e.file % size == rank) {
      ids.push_back(e.id);
      file.push_back(e.file);
      pos.push_back(e.pos);
    }
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_directory_t *dir = nullptr;
  ASSERT_EQ(MXN_OK, mxn_directory_create(comm, (int64_t)ids.size(), ids.data(), file.data(),
                                         pos.data(), &dir, &err))
      << err.msg;
  // Every entry is stored exactly once over the ranks.
  int64_t local = mxn_directory_local_size(dir), total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, comm);
  EXPECT_EQ((int64_t)all.size(), total);

  std::map<int64_t, std::vector<std::pair<int32_t, int64_t>>> truth;
  for (const Entry &e : all) truth[e.id].push_back({e.file, e.pos});
  for (auto &kv : truth) std::sort(kv.second.begin(), kv.second.end());

  // Each rank asks a different random mix, with repeats and unknown ids.
  std::mt19937_64 rng(1000 + rank);
  std::vector<int64_t> q;
  for (int k = 0; k < 400; k++) q.push_back(all[rng() % all.size()].id);
  q.push_back(-5);
  q.push_back(((int64_t)1 << 40) + 1);
  if (rank == 1) q.clear();  // a rank with nothing to ask still takes part
  int64_t *off = nullptr, *qpos = nullptr;
  int32_t *qfile = nullptr;
  ASSERT_EQ(MXN_OK, mxn_directory_query(dir, (int64_t)q.size(), q.data(), &off, &qfile, &qpos, &err))
      << err.msg;
  for (size_t k = 0; k < q.size(); k++) {
    std::vector<std::pair<int32_t, int64_t>> got;
    for (int64_t i = off[k]; i < off[k + 1]; i++) got.push_back({qfile[i], qpos[i]});
    auto it = truth.find(q[k]);
    if (it == truth.end())
      EXPECT_TRUE(got.empty()) << q[k];
    else
      EXPECT_EQ(it->second, got) << "id " << q[k];
  }
  free(off);
  free(qfile);
  free(qpos);
  mxn_directory_destroy(&dir);
  mxn_directory_destroy(&dir);
}

TEST(Directory, EmptyEverywhere) {
  mxn_directory_t *dir = nullptr;
  mxn_error_t err;
  ASSERT_EQ(MXN_OK, mxn_directory_create(MPI_COMM_WORLD, 0, nullptr, nullptr, nullptr, &dir, &err));
  int64_t *off = nullptr, *pos = nullptr;
  int32_t *file = nullptr;
  int64_t id = 7;
  ASSERT_EQ(MXN_OK, mxn_directory_query(dir, 1, &id, &off, &file, &pos, &err));
  EXPECT_EQ(0, off[1]);
  free(off);
  free(file);
  free(pos);
  mxn_directory_destroy(&dir);
}

// A bad argument on one rank fails every rank with that rank's message.
TEST(Directory, OneRanksBadArgumentFailsAllRanksAlike) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = rank_of(comm), size = size_of(comm);
  int bad = size - 1;
  mxn_directory_t *dir = nullptr;
  mxn_error_t err;
  mxn_error_clear(&err);
  int64_t id = 1, pos = 0;
  int32_t file = 0;
  int st = mxn_directory_create(comm, rank == bad ? -3 : 1, &id, &file, &pos, &dir, &err);
  EXPECT_EQ(MXN_ERR_ARG, st);
  EXPECT_EQ(nullptr, dir);
  std::string expect = "rank " + std::to_string(bad) + ":";
  EXPECT_EQ(0, strncmp(err.msg, expect.c_str(), expect.size())) << err.msg;
  // Every rank holds the same message.
  char first[MXN_ERRMSG_LEN];
  memcpy(first, err.msg, sizeof first);
  MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, comm);
  EXPECT_STREQ(first, err.msg);
}

TEST(Agree, SmallestStatusAndLowestFailingRanksMessage) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = rank_of(comm), size = size_of(comm);
  mxn_error_t err;
  mxn_error_clear(&err);
  EXPECT_EQ(MXN_OK, mxn_agree(comm, MXN_OK, &err));
  int st = MXN_OK;
  if (size > 1 && rank >= 1) st = mxn_error_set(&err, rank == size - 1 ? MXN_ERR_IO : MXN_ERR_ARG,
                                                "file f%d.e broken", rank);
  if (size == 1) st = mxn_error_set(&err, MXN_ERR_IO, "file f0.e broken");
  int got = mxn_agree(comm, st, &err);
  // MXN_ERR_IO (-3) < MXN_ERR_ARG (-1): the IO failure wins, told by its rank.
  EXPECT_EQ(MXN_ERR_IO, got);
  int teller = size == 1 ? 0 : size - 1;
  EXPECT_NE(nullptr, strstr(err.msg, ("f" + std::to_string(teller) + ".e").c_str())) << err.msg;
}

}  // namespace
