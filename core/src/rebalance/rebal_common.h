/* Private to the per-step re-balancing: the owned elements it works on
 * and the strategies that give them new owners, shared by rebalance.c
 * (the driver: weights, policy, the new piece), rebalance_cuts.c (the
 * string shift, Zoltan, the RCB tree shift) and rebalance_diffuse.c
 * (neighbour diffusion). */
#ifndef MXN_REBAL_COMMON_H
#define MXN_REBAL_COMMON_H

#include "load/load_ctx.h"

/* Owned elements of block b: the halo's first range, or the whole block. */
static inline int64_t owned_in(const mxn_load_t *ld, int b) {
  return ld->halo ? ld->halo->block_off[b][1] : ld->piece->blocks[b].num_elements;
}

/* The piece without its ghosts: a shallow copy whose blocks (*vb, the
 * caller frees it) count only the owned elements. Local. */
static inline int owned_view(const mxn_load_t *ld, mxn_piece_t *view,
                             mxn_piece_block_t **vb) {
  *view = *ld->piece;
  *vb = mxn__calloc((size_t)view->num_blocks + 1, sizeof **vb);
  if (!*vb) return MXN_ERR_NOMEM;
  view->num_elements = 0;
  for (int b = 0; b < view->num_blocks; b++) {
    (*vb)[b] = view->blocks[b];
    (*vb)[b].num_elements = owned_in(ld, b);
    view->num_elements += (*vb)[b].num_elements;
  }
  view->blocks = *vb;
  return MXN_OK;
}

/* The owned elements, concatenated over blocks: ids, weights, centroids. */
typedef struct {
  int64_t n;
  mxn_gid_t *ids;
  double *w;
  double *cent; /* 3 per element */
  int *blk;
  int64_t *at;  /* index in its piece block */
} owned_t;

/* An element id and its index (owned, or in a record array), by id. */
typedef struct {
  mxn_gid_t id;
  int64_t e;
} idpos_t;

static inline int cmp_idpos(const void *a, const void *b) {
  const idpos_t *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* Diffusion's record of an owned element: id, weight, neighbours. */
#define DIFF_MAXADJ 12
typedef struct {
  mxn_gid_t id;
  double w;
  int64_t nadj;
  mxn_gid_t adj[DIFF_MAXADJ];
} diff_rec_t;

/* New owners (rebalance_cuts.c). Each is described at its definition. */
int mxn__rebal_string_order(mxn_load_t *ld, const owned_t *ow, int64_t *perm, mxn_error_t *e);
int mxn__rebal_shift_cuts(MPI_Comm comm, int N, int R, int64_t n, const double *ws, double tol,
                          double frac, int *part);
int mxn__rebal_zoltan_parts(mxn_load_t *ld, const owned_t *ow, double tol, int repart, int *part,
                            mxn_error_t *e);
int mxn__rebal_tree_shift(MPI_Comm comm, int N, int R, const owned_t *ow, double tol, double frac,
                          int *part);

/* New owned records by neighbour diffusion (rebalance_diffuse.c). */
int mxn__rebal_diffuse(mxn_load_t *ld, const owned_t *ow, double tol, int max_rounds,
                       diff_rec_t **out, int64_t *nout, int *rounds, mxn_error_t *e);

#endif
