/* Private: telling an overlap from a repeated element id (ids.c), with the
 * directory's copies of ids stored in several members (partition/repeats.h). */
#ifndef MXN_IDS_H
#define MXN_IDS_H

#include "structure/structure.h"
#include "partition/repeats.h"

/* Copies of one element id in several members are one element stored
 * twice (an overlap, as `repart --ghosts` writes) when they have the same
 * global nodes; otherwise the id was given to several elements, and the
 * elements are numbered by member and position (mxn__ids_elems_repeated).
 * `copies`: this rank's share of the repeated ids (n, sorted by id); each
 * copy is read by the rank holding its member in the load's split
 * (rank r: members r*M/size .. (r+1)*M/size - 1) or, serially, here.
 * *again: 1 when the fallback was taken (the same on every rank).
 * Collective (comm MPI_COMM_NULL: serial); errors agreed. */
int mxn__ids_check_overlap(MPI_Comm comm, mxn_dataset_t *ds, const mxn__copy_t *copies, int64_t n,
                           int *again, mxn_error_t *err);

#endif /* MXN_IDS_H */
