/* Private: the parallel halo search of a load (halo.c). */
#ifndef MXN_HALO_H
#define MXN_HALO_H

#include "internal.h"

#include <mpi.h>

#define MXN__HALO_REC_LEN(npe) (6 + 4 * (int64_t)(npe))

/* What mxn__halo_find() found for one rank. */
typedef struct {
  int64_t ng;              /* halo elements found */
  mxn_gid_t *gid;          /* their ids, layer by layer, ascending within a layer */
  int *depth;              /* 1..L */
  int *owner;              /* owning rank */
  /* Per halo element, where its owner read it from: a record of
   * MXN__HALO_REC_LEN(npe) words at rec + rec_at[i]: id, npe, block,
   * member file, offset in that member's block, original id, then npe node
   * ids, npe node members, npe node positions in those members, npe node
   * owners (as the element's owner knows them from the rendezvous). */
  int64_t *rec, *rec_at, nrec;
  int *node_owner;         /* per node of the owned piece: owning rank */
  char *node_shared;       /* per node of the owned piece: another rank's elements touch it */
  /* The node rendezvous this rank keeps: the registered nodes hashed here
   * (those another rank may hold too, halo.c scan_piece), ascending, each
   * with the ranks that registered it and its owner. */
  int64_t rv_n;
  mxn_gid_t *rv_ids;
  int64_t *rv_off;
  int *rv_rank;
  int *rv_owner;
} mxn__halo_found_t;

/* Find the L halo layers of the owned piece `pc` of every rank of comm
 * (elements within L node hops of the rank's own elements, owned by other
 * ranks) and the owner of every node of pc (the owner of the adjacent
 * element with the highest global id). Collective; local errors are not
 * agreed (the caller agrees). */
int mxn__halo_find(MPI_Comm comm, const mxn_structure_t *s, const mxn_piece_t *pc, int L,
                   mxn__halo_found_t *h, mxn_error_t *err);

void mxn__halo_free(mxn__halo_found_t *h);

/* Send each fixed-size item to rank dest[k] (alltoallv); load.c. */
int mxn__send_to(MPI_Comm comm, int size, const void *items, size_t isz, int64_t n,
                 const int *dest, void **recv, int64_t *nrecv);

#endif /* MXN_HALO_H */
