// Helpers for the collective tests (test_load, test_repart): every rank of
// MPI_COMM_WORLD runs the same tests in the same order, so anything that
// decides whether to go on (skip, stop) must be decided alike on all ranks,
// or one rank waits forever in a collective the others never enter.
#ifndef MXN_TEST_MPI_H
#define MXN_TEST_MPI_H

#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "mxn/mxn.h"
#include "test_support.h"

namespace mxntest {

inline int mpi_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int mpi_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// True on every rank iff `ok` on every rank.
inline bool all_ok(bool ok) {
  int v = ok ? 1 : 0;
  EXPECT_EQ(MPI_SUCCESS, MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
  return v != 0;
}

// A directory every rank of this run sees: made by rank 0, named by the
// rank count so that runs at other counts (ctest -j) never share it.
inline std::string world_tmpdir(const std::string &name) {
  std::string d = std::string(MXN_TEST_TMP) + "/np" + std::to_string(mpi_size()) + "_" + name;
  int ok = 1;
  if (mpi_rank() == 0) ok = run("rm -rf '" + d + "' && mkdir -p '" + d + "'") == 0;
  EXPECT_EQ(MPI_SUCCESS, MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD));
  EXPECT_TRUE(ok) << d;
  return d;
}

// The status and message every rank got must be the ones rank 0 got.
inline void expect_agreed(int status, const char *msg) {
  int lo = status, hi = status;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi) << "ranks disagree on the status; rank " << mpi_rank() << " has " << status;
  char m0[MXN_ERRMSG_LEN];
  memset(m0, 0, sizeof m0);
  snprintf(m0, sizeof m0, "%s", msg);
  MPI_Bcast(m0, (int)sizeof m0, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_STREQ(m0, msg) << "rank " << mpi_rank() << " has another message than rank 0";
}

// A hung collective must fail the test in seconds, not at ctest's timeout:
// SIGALRM ends the process with a message naming the test.
inline void watchdog_fire(int) {
  static const char m[] = "watchdog: a collective call hung\n";
  ssize_t r = write(2, m, sizeof m - 1);
  (void)r;
  _exit(124);
}

struct Watchdog {
  explicit Watchdog(unsigned seconds) {
    signal(SIGALRM, watchdog_fire);
    alarm(seconds);
  }
  ~Watchdog() { alarm(0); }
};

// Base names of every spread set under shared/data/{nemesis,spread}:
// files named base.M.j, listed once per set.
inline std::vector<std::string> shared_sets() {
  std::set<std::string> bases;
  std::error_code ec;
  const std::regex member(R"((.*)\.([0-9]+)\.([0-9]+))");
  for (const char *top : {"nemesis", "spread"}) {
    std::filesystem::path root = shared(top);
    if (!std::filesystem::is_directory(root, ec)) continue;
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      std::smatch m;
      std::string name = it->path().filename().string();
      if (!std::regex_match(name, m, member)) continue;
      std::string rel = std::filesystem::relative(it->path().parent_path(), shared(""), ec).string();
      bases.insert(rel + "/" + m[1].str());
    }
  }
  return {bases.begin(), bases.end()};
}

// A name gtest accepts.
inline std::string test_name(std::string s) {
  for (auto &c : s)
    if (!isalnum((unsigned char)c)) c = '_';
  return s;
}

}  // namespace mxntest

#endif
