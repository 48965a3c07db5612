// Collective helpers shared by the tests that check a distributed load
// against a brute-force answer: a generated set every rank reads, gathers
// of every rank's values, and who owns each element.
#ifndef MXN_TEST_MPI_HELPERS_H
#define MXN_TEST_MPI_HELPERS_H

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "test_mpi.h"

namespace mxntest {

// A mesh mxn_gen makes from `args`, written by rank 0 as DIR/mesh.e and
// split by RCB into M files DIR/set.e.M.*, DIR being world_tmpdir(dir_name):
// the set's base name on every rank, or "" on every rank when rank 0 could
// not make it. *mesh, when asked, gets the mesh's path. Collective.
inline std::string generated_set(const std::string &dir_name, const std::string &args, int M,
                                 std::string *mesh = nullptr) {
  std::string dir = world_tmpdir(dir_name);
  std::string base = dir + "/set.e";
  if (mesh) *mesh = dir + "/mesh.e";
  int ok = 1;
  if (mpi_rank() == 0) {
    std::string made = generate(dir, "mesh.e", args);
    mxn_error_t err;
    mxn_error_clear(&err);
    int st = mxn_split(made.c_str(), base.c_str(), M, MXN_PART_RCB, nullptr, nullptr, &err);
    EXPECT_EQ(MXN_OK, st) << err.msg;
    ok = st == MXN_OK;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? base : "";
}

template <class T> MPI_Datatype mpi_type_of();
template <> inline MPI_Datatype mpi_type_of<int64_t>() { return MPI_INT64_T; }
template <> inline MPI_Datatype mpi_type_of<long long>() { return MPI_LONG_LONG; }
template <> inline MPI_Datatype mpi_type_of<double>() { return MPI_DOUBLE; }

// Every rank's values concatenated in rank order, on rank 0 only (root)
// or on every rank. *displs, when asked, gets the N + 1 offsets of each
// rank's values in the result (where there is a result). Collective.
template <class T>
std::vector<T> gather_values(const std::vector<T> &mine, bool root, std::vector<int> *displs) {
  int n = (int)mine.size(), N = mpi_size();
  std::vector<int> counts(N), d(N + 1, 0);
  if (root)
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  else
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < N; r++) d[r + 1] = d[r] + counts[r];
  bool here = !root || mpi_rank() == 0;
  std::vector<T> all(here ? d[N] + 1 : 1);  // never empty: data() is a buffer
  if (root)
    MPI_Gatherv(mine.data(), n, mpi_type_of<T>(), all.data(), counts.data(), d.data(),
                mpi_type_of<T>(), 0, MPI_COMM_WORLD);
  else
    MPI_Allgatherv(mine.data(), n, mpi_type_of<T>(), all.data(), counts.data(), d.data(),
                   mpi_type_of<T>(), MPI_COMM_WORLD);
  all.resize(here ? d[N] : 0);
  if (displs) *displs = d;
  return all;
}

// On rank 0 every rank's values; elsewhere nothing.
template <class T>
std::vector<T> gather_on_root(const std::vector<T> &mine, std::vector<int> *displs = nullptr) {
  return gather_values(mine, true, displs);
}

// On every rank every rank's values.
template <class T>
std::vector<T> gather_all(const std::vector<T> &mine, std::vector<int> *displs = nullptr) {
  return gather_values(mine, false, displs);
}

// Every rank's owned element ids, gathered on every rank: id -> owning
// rank. *unique is false when some id is owned by two ranks.
inline std::map<int64_t, int> gather_owners(const std::vector<int64_t> &mine, bool *unique) {
  int N = mpi_size();
  std::vector<int> displs;
  std::vector<int64_t> all = gather_all(mine, &displs);
  std::map<int64_t, int> owner;
  *unique = true;
  for (int r = 0; r < N; r++)
    for (int i = displs[r]; i < displs[r + 1]; i++)
      if (!owner.emplace(all[i], r).second) *unique = false;
  return owner;
}

}  // namespace mxntest

#endif
