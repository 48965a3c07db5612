// Collective helpers shared by the tests that check a distributed load
// against a brute-force answer (test_halo, test_poly).
#ifndef MXN_TEST_MPI_HELPERS_H
#define MXN_TEST_MPI_HELPERS_H

#include <mpi.h>

#include <cstdint>
#include <map>
#include <vector>

#include "test_mpi.h"

namespace mxntest {

// Every rank's owned element ids, gathered on every rank: id -> owning
// rank. *unique is false when some id is owned by two ranks.
inline std::map<int64_t, int> gather_owners(const std::vector<int64_t> &mine, bool *unique) {
  int n = (int)mine.size(), N = mpi_size();
  std::vector<int> counts(N), displs(N + 1, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < N; r++) displs[r + 1] = displs[r] + counts[r];
  std::vector<int64_t> all(displs[N] + 1);
  MPI_Allgatherv(mine.data(), n, MPI_INT64_T, all.data(), counts.data(), displs.data(),
                 MPI_INT64_T, MPI_COMM_WORLD);
  std::map<int64_t, int> owner;
  *unique = true;
  for (int r = 0; r < N; r++)
    for (int i = displs[r]; i < displs[r + 1]; i++)
      if (!owner.emplace(all[i], r).second) *unique = false;
  return owner;
}

}  // namespace mxntest

#endif
