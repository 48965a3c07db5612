/* Private: the parallel halo search of a load (halo.c). */
#ifndef MXN_HALO_H
#define MXN_HALO_H

#include "internal.h"
#include "read/plan.h"

#include <mpi.h>

/* What mxn__halo_find() found for one rank. */
typedef struct {
  int64_t ng;              /* halo elements found */
  mxn_gid_t *gid;          /* their ids, layer by layer, ascending within a layer */
  int *depth;              /* 1..L */
  int *owner;              /* owning rank */
  /* Per halo element, as its owner holds it: a record (plan.h,
   * mxn__halo_rec_len words) at rec + rec_at[i]. */
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
 * element with the highest global id; a node no element of any piece
 * touches: the lowest rank holding it). `all_nodes` (the same on every
 * rank): every node is registered, not only those on the piece's
 * boundary, for pieces holding nodes of no element of theirs that other
 * pieces may hold inside (the nodes of a set's own edges and faces,
 * load_sets.c). Collective; local errors are not agreed (the caller
 * agrees). */
int mxn__halo_find(MPI_Comm comm, const mxn_structure_t *s, const mxn_piece_t *pc, int L,
                   int all_nodes, mxn__halo_found_t *h, mxn_error_t *err);

void mxn__halo_free(mxn__halo_found_t *h);

/* The per-step halo exchange of a load whose ghosts came from their owners
 * (mxn__piece_from_records): which piece entries this rank sends to and
 * receives from each rank. Entries are elements (blk >= 0, index in that
 * block) or nodes (blk -1, piece node index), grouped by rank in rank
 * order; a step sends, per entry, the values of every variable the piece
 * holds for it (node variables, or the block's element variables), in
 * variable order. */
typedef struct {
  int size;
  int64_t *send_off, *recv_off;  /* size + 1 offsets into the lists */
  int32_t *send_blk, *recv_blk;
  int64_t *send_at, *recv_at;
  int64_t own_nodes;             /* piece nodes before the halo's: [0, own_nodes) */
  int64_t *own_elems;            /* per block: elements before the halo's */
} mxn__halo_xchg_t;

/* Build the exchange for piece pc, whose elements [own_elems[b], end) of
 * each block and nodes [own_nodes, end) came from records, elem_owner
 * giving each element's owner: each rank asks the owners for what it
 * needs (a ghost node from the owner of the first ghost element using it)
 * and they look the ids up among their own entries. Collective; errors
 * agreed (MXN_ERR_INCONSISTENT names an id an owner does not hold). */
int mxn__halo_xchg_build(MPI_Comm comm, const mxn_structure_t *s, const mxn_piece_t *pc,
                         int64_t own_nodes, const int64_t *own_elems, int *const *elem_owner,
                         mxn__halo_xchg_t **out, mxn_error_t *err);

/* Send the owned values of the current step's fields and receive the
 * ghosts'. Collective; errors agreed. */
int mxn__halo_xchg_run(MPI_Comm comm, const mxn__halo_xchg_t *x, mxn_piece_t *pc,
                       mxn_error_t *err);

void mxn__halo_xchg_free(mxn__halo_xchg_t **x);

#endif /* MXN_HALO_H */
