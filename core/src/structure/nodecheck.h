/* Private: the shared-node check of an open (nodecheck.c). */
#ifndef MXN_NODECHECK_H
#define MXN_NODECHECK_H

#include "structure/structure.h"

#include <mpi.h>

/* A node id stored by several members must have the same coordinates in
 * each: otherwise which copy a rank shows depends on its cover, ranks
 * disagree on the mesh, and a join keeps one copy silently.
 *
 * Each rank checks the members fbeg..fend-1 it read the id maps of. The
 * candidates of a member are the nodes its Nemesis node communication maps
 * list (`n_comm_nids`: the member's own statement of which nodes it shares)
 * or, for a member without them or whose maps list a node it does not have
 * (a stale hint, said once in s.hint_warning), all its nodes. Candidates go by id to a
 * hash-home rank; only ids held by two or more members come back to be
 * read (their coordinates, in coalesced runs) and compared at home.
 * Coordinates differing by more than 1e-6 of the largest magnitude among
 * the compared ones (so a float member beside a double one passes) are
 * refused, naming the node, both members and both positions.
 *
 * comm MPI_COMM_NULL: serial, over all members (fbeg 0, fend M).
 * Collective otherwise; the same status on every rank. */
int mxn__check_shared_nodes(MPI_Comm comm, mxn_dataset_t *ds, int fbeg, int fend, mxn_error_t *err);

#endif /* MXN_NODECHECK_H */
