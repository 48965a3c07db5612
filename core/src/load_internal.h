/* Private: the load handle, shared by load.c (open, steps) and
 * rebalance.c (per-step re-balancing). */
#ifndef MXN_LOAD_INTERNAL_H
#define MXN_LOAD_INTERNAL_H

#include "halo.h"
#include "plan.h"

struct mxn_load {
  MPI_Comm comm;
  int rank, size;
  mxn_dataset_t *ds;
  mxn_piece_t *piece;
  mxn_load_stats_t st;
  int64_t *step_bytes; /* needed bytes per step, computed once */
  mxn_load_halo_t *halo; /* NULL until the ghost work fills it */
  /* Ghosts built from their owners' records: the per-step exchange of
   * their fields (NULL when there are none, or they were read from files) */
  mxn__halo_xchg_t *hx;
  /* Kept with opts.dynamic for mxn_load_rebalance(): */
  int dynamic;
  mxn_directory_t *dir;  /* global element id -> (member, position) */
  mxn_load_opts_t o;     /* the open's options; the pointers below owned */
  int *node_sel, *elem_sel;
  /* SHIFT: the owned ids in string order (NULL until first needed), and
   * the string as positions in the owned elements while the piece is the
   * one it was computed for (gen counts piece rebuilds) */
  mxn_gid_t *str;
  int64_t nstr;
  int64_t *str_perm;
  int64_t gen, str_gen;
  /* DIFFUSION: the owned elements with their side neighbours (records of
   * rebalance.c) as the last diffusion left them, valid while gen ==
   * dcache_gen: the dual graph is not built again */
  void *dcache;
  int64_t ndcache, dcache_gen;
};

/* The halo of the owned piece ld->piece, appended layer by layer (see
 * load.c). Meshes of cells with nodes only take each ghost from its
 * owner's record (nothing read) and set up ld->hx, the per-step exchange
 * of their fields; others read the layers from the files. With step >= 0
 * (the step the owned piece holds, after a re-balance) the ghosts get that
 * step's fields too. Collective; errors agreed. */
int mxn__load_halo(mxn_load_t *ld, const mxn_load_opts_t *opts, mxn_directory_t *dir, int step,
                   mxn_error_t *e);

/* The dual graph (elements sharing a side) of elements spread over the
 * ranks, in the order of `ids` (pc's concatenated order): neighbour ids,
 * their ranks and the poorer quality of each pair (quality may be any
 * per-element array). Collective; errors not agreed. load.c. */
int mxn__dual_graph_dist(MPI_Comm comm, int size, int rank, const mxn_structure_t *s,
                         const mxn_piece_t *pc, const mxn_gid_t *ids, const double *quality,
                         int64_t **adj_off, mxn_gid_t **adj_ids, int **adj_ranks,
                         double **adj_q);

void mxn__load_halo_free(mxn_load_halo_t *h, int nb);

/* Add what the dataset read between counters c0 and c1 to ld's stats: the
 * entries' bytes to bytes_read, id maps and sets to their own counters,
 * the calls; files_opened becomes c1's. Returns the entries' bytes. */
static inline int64_t mxn__load_count_reads(mxn_load_t *ld, mxn_io_counters_t c0,
                                            mxn_io_counters_t c1) {
  int64_t data = mxn__data_bytes(c1) - mxn__data_bytes(c0);
  ld->st.bytes_read += data;
  ld->st.map_bytes_read += c1.map_bytes_read - c0.map_bytes_read;
  ld->st.set_bytes_read += c1.set_bytes_read - c0.set_bytes_read;
  ld->st.read_calls += c1.read_calls - c0.read_calls;
  ld->st.files_opened = c1.files_opened;
  return data;
}

#endif /* MXN_LOAD_INTERNAL_H */
