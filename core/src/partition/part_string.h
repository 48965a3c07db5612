/* Private: the weighted string partitioner (part_string.c). */
#ifndef MXN_PART_STRING_H
#define MXN_PART_STRING_H

#include "mxn/status.h"
#include "mxn/idset.h"

#include <mpi.h>
#include <stdint.h>

/* Parts for this rank's n elements (ids, weights or NULL for 1, keys):
 * the elements sorted by (key, id) over the communicator and cut into
 * nparts pieces of equal weight, no part skipped while elements remain;
 * part[k] receives element k's part. `method` names the caller in error
 * messages. Collective; errors agreed. */
int mxn__string_partition(MPI_Comm comm, int64_t n, const mxn_gid_t *ids, const double *weights,
                          const uint64_t *keys, int nparts, int *part, mxn_error_t *err,
                          const char *method);

#endif /* MXN_PART_STRING_H */
