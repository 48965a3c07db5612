/* Private: the load handle, shared by load.c (open, steps), the files of
 * its phases (load_partition.c, dualgraph.c, ghosts.c) and rebalance.c
 * (per-step re-balancing). */
#ifndef MXN_LOAD_CTX_H
#define MXN_LOAD_CTX_H

#include "comm.h"
#include "load/halo.h"
#include "read/plan.h"
#include "read/read.h"
#include "partition/greedy.h"

#include <time.h>

/* The parallel load's cap on merged read gaps (mxn_extract_opts_t
 * gap_share): they may add at most 8% to the bytes a rank's piece reads,
 * over all its members and entity kinds, so bytes read stay within 1.1 of
 * those needed where a small member holds a rank's entries scattered
 * among another's. */
#define MXN__GAP_SHARE 0.08

/* Bytes read for entries: the members' id maps and sets, read whole,
 * and the coordinates that settle the ids, aside. */
static inline int64_t mxn__data_bytes(mxn_io_counters_t c) {
  return c.bytes_read - c.map_bytes_read - c.set_bytes_read - c.check_bytes_read;
}

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
  /* owners of the piece's edges and faces (entity_owners.c); all NULL
   * when the dataset has none */
  mxn_load_entity_owners_t ef_owners;
  /* Nodes, edges and faces (set_ents[0], [1], [2]) a node, edge or face
   * set lists that no piece held, which this rank reads (load_sets.c), and
   * the members it reads them from: again after every re-balance. Empty,
   * NULL when there are none. set_bare: some rank reads such edges or
   * faces, whose nodes other pieces may hold (the same on every rank). */
  mxn_idset_t set_ents[3];
  char *set_ents_mask;
  int set_bare;
  /* The blocks shown (the open's block selection, NULL = all): the
   * elements of others a side or element set names are carried, not
   * counted as owned (mxn__load_count_owned). */
  int *shown_blocks;
};

/* The halo of the owned piece ld->piece, appended layer by layer (see
 * ghosts.c). Meshes of cells with nodes only take each ghost from its
 * owner's record (nothing read) and set up ld->hx, the per-step exchange
 * of their fields; others read the layers from the files. With step >= 0
 * (the step the owned piece holds, after a re-balance) the ghosts get that
 * step's fields too. Collective; errors agreed. */
/* The owners of the edges and faces of ld->piece (mxn_load_entity_owners)
 * into ld->ef_owners, after the piece and its halo are complete: anew after
 * every change of the piece. Nothing (no collective step) when the
 * dataset has no edge or face blocks. Collective; errors agreed. */
int mxn__load_entity_owners(mxn_load_t *ld, mxn_error_t *e);
void mxn__entity_owners_free(mxn_load_entity_owners_t *o);

int mxn__load_halo(mxn_load_t *ld, const mxn_load_opts_t *opts, mxn_directory_t *dir, int step,
                   mxn_error_t *e);

/* Node, edge and face sets shown whole (load_sets.c): after the piece is
 * read and before its halo, the nodes, edges and faces such a set lists
 * that no rank's piece holds are given, each to one rank, and appended to
 * its piece (ld->set_ents).
 * fbeg..fend: the members this rank summarised; gap and the variable
 * selections as the piece was read with. Collective; errors agreed. */
int mxn__load_set_nodes(mxn_load_t *ld, int fbeg, int fend, int64_t gap, const int *node_vars,
                        const int *elem_vars, mxn_error_t *e);
/* Append ld->set_ents to piece pc with their values at `step` (-1:
 * none yet), nodes sorted by id after. Local; the caller agrees. */
int mxn__load_set_nodes_append(mxn_load_t *ld, mxn_piece_t *pc, int step, int64_t gap,
                               const int *node_vars, const int *elem_vars, mxn_error_t *e);

/* The piece's owned elements (halo depth 0, or all without a halo) into
 * ld->st: owned_elements those of the shown blocks, carried_elements the
 * others (ld->shown_blocks). Local. load.c. */
void mxn__load_count_owned(mxn_load_t *ld);

/* The dual graph (elements sharing a side) of elements spread over the
 * ranks, in the order of `ids` (pc's concatenated order): neighbour ids,
 * their ranks and the poorer quality of each pair (quality may be any
 * per-element array). Collective; errors not agreed. dualgraph.c. */
int mxn__dual_graph_dist(MPI_Comm comm, int size, int rank, const mxn_structure_t *s,
                         const mxn_piece_t *pc, const mxn_gid_t *ids, const double *quality,
                         int64_t **adj_off, mxn_gid_t **adj_ids, int **adj_ranks,
                         double **adj_q);

/* Per element of pc, in concatenated order: the shortest over the longest
 * distance between two of its nodes, in (0, 1] (*out malloc'ed). Local.
 * dualgraph.c. */
int mxn__element_quality(const mxn_structure_t *s, const mxn_piece_t *pc, double **out);

/* Edge weights from the qualities `w` of the dual graph's pairs (in
 * place): 1/q, and edges within 10% of the heaviest anywhere uncuttable.
 * Collective. dualgraph.c. */
int mxn__quality_edge_weights(MPI_Comm comm, int64_t n, const int64_t *adj_off, double *w);

void mxn__load_halo_free(mxn_load_halo_t *h, int nb);

/* Every node-set entry's member (mxn_piece_set_t.member) made the lowest
 * any rank holding the entry read it from: the lowest-numbered member
 * listing it, as on one rank (setmembers.c). `status`: the caller's so
 * far. Collective; errors agreed. */
int mxn__agree_set_members(MPI_Comm comm, int status, mxn_piece_t *pc);

/* Whether ghost elements are built from their owners' records (no element
 * refers to edges or faces, none is a polygon or polyhedron); otherwise
 * they are read through the id maps, which queries the directory.
 * ghosts.c. */
int mxn__halo_from_owners(const mxn_structure_t *s);

/* Seconds on a monotonic clock, for the phase timers. */
static inline double mxn__load_now(void) { return mxn__now(); }

/* An element id on its way to its owner, with its weight and (ids stored
 * once in the set) the member holding it. */
typedef struct {
  mxn_gid_t id;
  double w;
  int32_t file, pad;
} mxn__moving_t;

/* What the phases of mxn_load_open() hand on to each other (load.c): each
 * phase takes it, fills its part and frees what the next ones no longer
 * need; mxn__load_ctx_free() frees the rest. */
typedef struct {
  mxn_load_t *ld;
  const mxn_load_opts_t *opts;
  mxn_error_t *e;
  const char *path;
  int N, R;                 /* ranks, this rank */
  int M, fbeg, fend;        /* members; this rank's are fbeg..fend-1 */
  int unique;               /* every element id is stored once over the set */
  mxn_directory_t *dir;     /* NULL once nothing queries it */
  mxn_io_counters_t c0;     /* the dataset's counters when the ids began to be settled */
  /* published: my members' elements, their member and position */
  int64_t npub;
  mxn_gid_t *pub_ids;
  int32_t *pub_file;
  int64_t *pub_pos;
  /* the partition's input: the elements this rank starts with (ids0,
   * file0, weights w0) and their parts */
  int64_t n0;
  mxn_gid_t *ids0;
  int32_t *file0;
  double *w0;
  int *part;
  double wscale;            /* weights were divided by their maximum */
  /* the partition's output: my part (mine sorted by id, pids its ids) */
  mxn__moving_t *mine;
  int64_t nmine;
  mxn_gid_t *pids;
  double ow_scaled;         /* my owned weight in the scaled units */
  /* the cover: P my part's ids, mask the members to read them from */
  mxn_idset_t P;
  char *mask;
  double t_cover;           /* when the cover began (seconds_plan, _read) */
  mxn_io_counters_t c1;     /* counters before the piece is read */
  int drop_early;           /* the id maps went before the ghost layers */
} mxn__load_ctx_t;

/* Partition the elements ids0 of the context (status: the caller's so
 * far, not yet agreed) and move their ids to their parts: fills mine,
 * nmine, pids, the partition's stats. Collective; returns an agreed
 * status, and in *pending one not yet agreed (sorting my part), for the
 * next phase to agree. load_partition.c. */
int mxn__load_partition(mxn__load_ctx_t *c, int status, int *pending);

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

#endif /* MXN_LOAD_CTX_H */
