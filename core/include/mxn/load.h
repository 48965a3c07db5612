/**
 * \file load.h
 * The parallel MxN load: N ranks open a dataset written as M files and each
 * ends up with its own balanced piece, read by itself through the minimal
 * cover of its piece by the files (core/README.md, "The load, phase by phase").
 *
 * Steps inside mxn_load_open():
 *  1. member files are dealt to ranks in contiguous ranges (rank R gets
 *     R*M/N .. (R+1)*M/N-1); each rank reads the headers of its members
 *     only, the header summaries are allgathered and every rank merges all
 *     of them in member order into the same structure (no rank opens every
 *     member); errors are agreed so all ranks fail alike, naming the file;
 *  2. each file's id maps are read by its one owner and published in a
 *     distributed directory (mxn_directory_t): global id -> (file,
 *     position);
 *  3. the elements are partitioned into N parts (method, weights); only ids
 *     move between ranks;
 *  4. each rank queries the directory for its part, computes the greedy
 *     cover and extracts its piece from the cover's files alone.
 * Field values are read per time step with the cached plan.
 *
 * All functions taking a load handle are collective over its communicator
 * unless marked local, and return the same status on every rank.
 */
#ifndef MXN_LOAD_H
#define MXN_LOAD_H

#include <mpi.h>

#include "mxn/extract.h"
#include "mxn/partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of a load: start from mxn_load_opts_init(), then set what you
 *  need. (Zero-initialised they are the same but for `gap`, then 0.) */
typedef struct mxn_load_opts {
  /** Partitioning method; MXN_PART_FILES (0) by default. */
  mxn_part_method method;
  double imbalance_tol;       /**< <= 1: default 1.05 */
  /** Element weights from this element variable (absolute value, floored
   *  at 1e-6 of the mean so no element weighs 0), at `weight_step`. NULL =
   *  uniform (or per-block factors). */
  const char *weight_field;
  int weight_step;
  /** Per structure block weight factors (NULL = 1). */
  const double *block_weights;
  /** MXN_PART_MAP: text file of lines "element_id part" ('#' comments). */
  const char *map_file;
  /** Read coalescing gap in entries (<0 = default). */
  int64_t gap;
  /** Ghost layers around each piece (0..n): the elements within this many
   *  node hops of the rank's own elements, owned by other ranks. In meshes
   *  of cells with nodes only (no edge or face references, no polygons or
   *  polyhedra) each comes from its owner, which holds it already:
   *  connectivity, coordinates, attributes and maps when the halo is
   *  found, its fields at every mxn_load_read_step() by one exchange, so
   *  a rank reads no member for its ghosts. Otherwise the layers are read
   *  from the files through the members' id maps. */
  int ghost_levels;
  /** With ghosts: order each block's owned elements inner cells first
   *  (touching no node another rank's elements touch), then edge cells, so
   *  compute on inner cells can overlap a halo exchange. */
  int inner_first;
  /** Selection (NULL = all): one flag per structure element block; the
   *  elements of unselected blocks are neither partitioned nor read. */
  const int *block_selection;
  /** Selection (NULL = all): one flag per nodal / element variable; the
   *  unselected ones are never read (their piece arrays are NULL). */
  const int *node_var_selection, *elem_var_selection;
  /** Nonzero: keep what mxn_load_rebalance() needs between steps (the
   *  element directory, about 20 bytes per element spread over the ranks,
   *  and the options above). Without it mxn_load_rebalance() fails with
   *  MXN_ERR_ARG. */
  int dynamic;
  /** The members to read (NULL = all): see mxn_member_select_t. Used by
   *  mxn_load_open(); mxn_load_open_dataset() takes the dataset as its
   *  open chose them (mxn_dataset_select_members()). */
  const mxn_member_select_t *members;
} mxn_load_opts_t;

/** Defaults: method MXN_PART_FILES, tolerance 1.05, no weights. Local. */
void mxn_load_opts_init(mxn_load_opts_t *o);

/** Per-rank figures of a load (mxn stats, benchmarks). */
typedef struct mxn_load_stats {
  int rank, nranks;
  /** Elements this rank owns that are shown: those of the selected blocks
   *  (opts.block_selection; all without one). */
  int64_t owned_elements;
  /** The weight of every element this rank owns, the carried ones
   *  included: what the partition balanced (as imbalance). */
  double owned_weight;
  int cover_files;          /**< member files this rank's piece is read from */
  int files_overlapping;    /**< member files holding any of its elements */
  int64_t num_nodes;
  /** By the piece's extraction and steps, the members' id maps and sets
   *  aside (map_bytes_read, set_bytes_read). */
  int64_t bytes_read;
  /** The piece's own entries (coordinates, references, attributes,
   *  numbered-map values), no gaps, no id maps, no sets. */
  int64_t bytes_needed;
  /** The members' whole id maps this rank read in the load (in any phase:
   *  partition, piece, halo, re-balances), once per member it touches: what
   *  finding entries by global id costs beside bytes_read. */
  int64_t map_bytes_read;
  /** The members' sets this rank read in the load, whole per member it
   *  reads from (to keep its piece's entries): beside bytes_read. */
  int64_t set_bytes_read;
  int64_t read_calls, files_opened;
  int64_t partition_bytes_read; /**< reads made only to partition (centroids, weights) */
  /** Phases: structure, partition, cover + plan, piece extraction (of
   *  which plan is a part), last time step read. */
  double seconds_open, seconds_partition, seconds_plan, seconds_read, seconds_step;
  int64_t ghost_elements;   /**< halo elements of all depths in the piece */
  int64_t ghost_nodes;      /**< piece nodes another rank owns */
  int ghost_files;          /**< member files the halo was read from (0 when
                                 its owners sent it) */
  int64_t ghost_bytes_read; /**< of bytes_read, the halo's share */
  double seconds_ghost;     /**< finding the halo and reading it */
  /* Global, the same on every rank: */
  int64_t total_elements;   /**< owned_elements summed over the ranks: the shown elements */
  double imbalance;         /**< max / average owned weight over ranks */
  /** The open's check that every node several members store has the same
   *  coordinates in each: bytes read for it (node communication maps and
   *  the copies compared) and its seconds. */
  int64_t check_bytes_read;
  double seconds_check;
  /** The directory: the members' element domains published, the distinct
   *  ids counted, each element's initial owner found (the shared-node
   *  check between them is seconds_check). */
  double seconds_directory;
  /** Of netCDF-4 members' compressed variables: the bytes of the chunks
   *  this rank decompressed in the load, beside bytes_read (0 for other
   *  members). */
  int64_t bytes_decompressed;
  /** The header metadata this rank holds for the dataset once open: the
   *  merged structure's arrays (blocks, sets, maps, variable names, truth
   *  tables, times), the member records and their per-member tables
   *  (blocks, sets, truth tables, variable positions). Not the members'
   *  id maps, the piece, the directory or any read buffer. What grows
   *  with members x blocks (scale benchmark, testing/benchmarks). */
  int64_t metadata_bytes;
  /** Elements of unselected blocks this rank owns and carries, not shown:
   *  those a side set or element set names (sets are shown whole whatever
   *  blocks are selected; a side is made from its element). Not in
   *  owned_elements nor total_elements. */
  int64_t carried_elements;
  /** Of seconds_plan: the wall seconds inside member reads while the piece
   *  was extracted (its bytes read and decoded, with its sets). The rest of
   *  seconds_plan is the cover, the plan and placing the values. */
  double seconds_piece_read;
  /** Wall seconds inside member reads in the load after the members'
   *  open, every phase from the ids on (the io counters' seconds_reading). */
  double seconds_io;
  /** Of seconds_ghost: putting the owned cells of each block in order,
   *  inner cells first (mxn_load_opts_t.inner_first; 0 without). The
   *  halo's depths need no reordering: each layer is appended after the
   *  last. */
  double seconds_order;
} mxn_load_stats_t;

/** VTK's ghost flags (vtkDataSetAttributes::DUPLICATECELL and
 *  DUPLICATEPOINT), for the `vtkGhostType` arrays of cells and points. */
#define MXN_GHOST_DUPLICATECELL 1
#define MXN_GHOST_DUPLICATEPOINT 1
/** Name of the element variable marking ghost copies in written sets
 *  (what ParaView's readers understand). */
#define MXN_GHOST_VAR "vtkGhostType"

/**
 * The halo of a rank's piece: which elements are its own and which are
 * ghosts of what depth, and who owns every node (seed
 * lfric-distributed-memory-halos.txt). Arrays follow the piece: per
 * element block of the piece, in piece order; nodes in piece order.
 *
 * Order: within each element block, owned elements come first (ascending
 * global id, or inner cells then edge cells with inner_first), then halo
 * depth 1, 2, ..., L, each ascending by global id. Nodes: those of owned
 * elements first (ascending global id), then the ones each halo depth adds.
 */
typedef struct mxn_load_halo {
  int levels;               /**< L, the ghost layers asked for */
  /** Per block: levels + 2 offsets; owned elements are [off[0], off[1]),
   *  halo depth k (1..L) is [off[k], off[k+1]). */
  int64_t **block_off;
  /** Per block: owned elements [0, owned_inner[b]) are inner cells (with
   *  inner_first; -1 otherwise). */
  int64_t *owned_inner;
  /** Per block, per element: 0 for owned, k for halo depth k. */
  unsigned char **elem_depth;
  /** Per block, per element: the rank owning it. */
  int **elem_owner;
  /** Per piece node: the one rank owning it, the owner of the adjacent
   *  element with the highest global id. Nodes owned elsewhere carry
   *  DUPLICATEPOINT. */
  int *node_owner;
  int64_t owned_nodes;      /**< piece nodes this rank owns */
} mxn_load_halo_t;

/** Opaque load handle. */
typedef struct mxn_load mxn_load_t;

/** This rank's halo (borrowed). Local. */
const mxn_load_halo_t *mxn_load_halo(const mxn_load_t *ld);

/**
 * Who owns the edges and faces of this rank's piece. An edge or face that
 * elements of several ranks refer to (through their edge or face
 * connectivity; a polyhedron through its faces) is in each of their
 * pieces, ghosts' pieces included; exactly one rank owns it: the owner of
 * the referring element with the highest global id (as for nodes, see
 * mxn_load_halo_t.node_owner). One no element refers to belongs to the
 * lowest rank holding it. This holds with or without ghost layers, and
 * anew after every re-balance. Arrays follow the piece: edges (faces) of
 * the concatenated edge (face) blocks in piece order.
 */
typedef struct mxn_load_entity_owners {
  int *edge_owner;      /**< per piece edge: the rank owning it; NULL without edge blocks */
  int *face_owner;      /**< per piece face: the rank owning it; NULL without face blocks */
  int64_t owned_edges;  /**< piece edges this rank owns */
  int64_t owned_faces;  /**< piece faces this rank owns */
} mxn_load_entity_owners_t;

/** The owners of this rank's edges and faces (borrowed, valid until the
 *  next re-balance or the close), or NULL when the dataset has no edge or
 *  face blocks. Local (the load computed them collectively). */
const mxn_load_entity_owners_t *mxn_load_entity_owners(const mxn_load_t *ld);

/**
 * Open `path` on every rank of `comm`, partition it into one part per rank
 * and read this rank's piece (mesh part: coordinates, connectivity, sets).
 * \param [out] out  the handle, NULL on failure (the message is in err);
 *                   close with mxn_load_close()
 * \param [out] err  detail on failure, identical on every rank; may be NULL
 * \return MXN_OK or the agreed error. Collective.
 */
int mxn_load_open(MPI_Comm comm, const char *path, const mxn_load_opts_t *opts,
                  mxn_load_t **out, mxn_error_t *err);

/**
 * mxn_dataset_open() over a communicator: each rank reads the headers of
 * its share of the members (ceil(M/N) at most) and the summaries are
 * exchanged, so every rank ends with the same structure having opened only
 * its share. For a reader's information pass on N ranks (the plugin's
 * RequestInformation). `ds` comes from mxn_dataset_create().
 * \return MXN_OK or the first error of any rank, the same on every rank,
 * its message in `err`. Collective.
 */
int mxn_dataset_open_collective(MPI_Comm comm, mxn_dataset_t *ds, const char *path,
                                mxn_error_t *err);

/**
 * mxn_load_open() on a dataset that mxn_dataset_open_collective() has
 * already opened over the same ranks (a reader whose information pass
 * opened the members need not open them again for the load). The load
 * takes the dataset over: `*ds` is set to NULL on return, whatever the
 * result; the dataset is closed with the load, or at once on failure.
 * The rank order of `comm` may differ from that of the open; each rank
 * then reads the headers and maps it needs on demand.
 * \param [in,out] ds  the opened dataset, given up; NULL or an unopened
 *                     dataset on any rank is an error on every rank
 * \return MXN_OK or the agreed error (message in `err`). Collective.
 */
int mxn_load_open_dataset(MPI_Comm comm, mxn_dataset_t **ds, const mxn_load_opts_t *opts,
                          mxn_load_t **out, mxn_error_t *err);

/** The structure of the dataset (borrowed). Local. */
const mxn_structure_t *mxn_load_structure(const mxn_load_t *ld);

/**
 * Hand element block b's connectivity and element ids over to the caller,
 * who owns them from then on (release them with free()): a reader wraps
 * them in its own arrays instead of copying them. The piece's pointers are
 * NULL afterwards. Nothing the load does later reads them (time steps and
 * the ghosts' values go by the extraction plan and the halo schedule),
 * except a re-balance, so a load opened with opts.dynamic refuses, and so
 * does a poly block.
 * \param [out] conn      the block's num_elements * nodes_per_elem local
 *                        node indices (its capacity may be larger), or NULL
 *                        to leave them in the piece
 * \param [out] elem_ids  its ascending global element ids, or NULL to leave
 *                        them in the piece
 * \return MXN_OK, or MXN_ERR_ARG (no load, no such block, a dynamic load,
 *         a poly block) with both outputs NULL. Local.
 */
int mxn_load_take_block(mxn_load_t *ld, int b, int64_t **conn, mxn_gid_t **elem_ids);

/** This rank's piece (borrowed; fields hold the last step read). Local. */
const mxn_piece_t *mxn_load_piece(const mxn_load_t *ld);

/** Read every variable of `step` (0-based) into the piece. Collective. */
int mxn_load_read_step(mxn_load_t *ld, int step, mxn_error_t *err);

/** Figures of this rank (global ones filled on every rank). Local. */
mxn_load_stats_t mxn_load_stats(const mxn_load_t *ld);

/** How mxn_load_rebalance() moves work when the imbalance is over the
 *  tolerance (seeds dynamic-load-balance-rankdlb.txt,
 *  zoltan-load-balancing-fluidity.txt, luna-patch-rope-data-distribution.txt). */
typedef enum mxn_rebal_strategy {
  /** SHIFT for the string methods (files, sfc, linear, map), REPARTITION
   *  for the Zoltan ones (rcb, rib, hsfc, graph). */
  MXN_REBAL_AUTO = 0,
  /** RankDLB: the owned elements form one string over the ranks (Hilbert
   *  order of centroids; for files, (member, position) order); only the
   *  N-1 cut points move. The transfers S[i] across cut i are computed on
   *  every rank from the allgathered rank weights, each cut moving as
   *  little as needed to bring every rank under the tolerance (tried at
   *  95%, 80%, 50%, 25% of the allowed excess, then 0 = equal cuts). */
  MXN_REBAL_SHIFT,
  /** Migration-aware re-partitioning for the Zoltan methods. rib, hsfc,
   *  graph: Zoltan with LB_APPROACH=REPARTITION and the current owners as
   *  the current parts (REMAP on). rcb: Zoltan's RCB recomputes every
   *  median whatever the approach (it only renumbers the parts, moving as
   *  much as a fresh RCB), so the bisection tree of the current owners is
   *  kept instead and each of its cuts shifted only as far as the
   *  tolerance needs (the SHIFT rule applied to every node of the tree;
   *  tried at 95%, 80%, 50%, 25% of the allowed excess, then 0 = every
   *  node cut at its share). */
  MXN_REBAL_REPARTITION,
  /** LuNA Patch diffusion: each rank compares its weight with the ranks
   *  whose elements touch its own (node neighbours) only; an overloaded
   *  rank gives border elements (grown inward layer by layer from the
   *  shared nodes) to under-loaded neighbours; at most `max_rounds`
   *  rounds, stopping early once under the tolerance. */
  MXN_REBAL_DIFFUSION,
  /** A fresh partition of the step's weights (same method, no memory of
   *  the current owners): the reference the others are measured against. */
  MXN_REBAL_FRESH,
  /** Zoltan PHG with LB_APPROACH=REFINE on the dual graph of the owned
   *  elements: improves the current owners, whatever method made them,
   *  with little migration. */
  MXN_REBAL_REFINE
} mxn_rebal_strategy;

/** Options of one re-balance; zero-initialize, then set what you need. */
typedef struct mxn_rebalance_opts {
  mxn_rebal_strategy strategy;
  /** Over this max/avg owned weight, re-balance; <= 1: the load's
   *  tolerance. Under it the partition and the cached plan are kept. */
  double imbalance_tol;
  /** Weights, multiplied together: an element variable at the step
   *  (NULL = none), per structure block factors (NULL = 1) and a
   *  measured cost per owned element (NULL = none; in piece order, owned
   *  elements of block 0, then of block 1, ...: e.g. the seconds the
   *  caller's pipeline spent on it last step). With none of them every
   *  element weighs 1. */
  const char *weight_field;
  const double *block_weights;
  const double *cost;
  /** Field values: nonzero takes the absolute value. Without it a
   *  negative value is an error. NaN or infinite values are always an
   *  error (MXN_ERR_ARG naming the variable, block, element, step and
   *  rank, on every rank); so are negative, NaN or infinite costs and
   *  block factors. */
  int weight_abs;
  /** Weights below this floor are raised to it, so no weight is 0.
   *  <= 0: 1e-6 of the mean weight (1e-6 when every weight is 0). */
  double weight_floor;
  /** DIFFUSION: rounds of neighbour exchange (<= 0: 20). */
  int max_rounds;
  /** Nonzero: re-balance even when under the tolerance. */
  int force;
  /** Nonzero: also compute (not apply) a fresh partition of the step's
   *  weights and report how many elements it would have moved. */
  int measure_fresh;
} mxn_rebalance_opts_t;

/** What one mxn_load_rebalance() did. Global figures are the same on
 *  every rank. */
typedef struct mxn_rebalance_report {
  int step;
  int rebalanced;            /**< 1 if the partition changed */
  mxn_rebal_strategy strategy; /**< the one used (AUTO resolved) */
  double imbalance_before;   /**< max / avg owned weight at the step, old owners */
  double imbalance_after;    /**< the same with the new owners */
  int64_t migrated;          /**< global: elements whose owner changed */
  int64_t fresh_migrated;    /**< global: a fresh partition's, -1 if not measured */
  double fresh_imbalance;    /**< the fresh partition's imbalance, 0 if not measured */
  int64_t gained, lost;      /**< this rank's owned elements gained / lost */
  int64_t bytes_read;        /**< this rank: read for the gained elements and
                                  new ghosts (mesh and the step's fields), the
                                  members' id maps and sets aside (they are
                                  in the load stats' map_bytes_read and
                                  set_bytes_read) */
  int64_t bytes_read_all;    /**< global sum of bytes_read */
  int64_t elements_reused;   /**< this rank: owned elements
                                  taken from the old piece, not re-read */
  double seconds_balance;    /**< max over ranks: weights, policy, new owners
                                  (after the step's read; measure_fresh's
                                  own partition not included) */
  double seconds_migrate;    /**< max over ranks: rebuilding the piece */
  int retries;               /**< tolerance tightenings (Fluidity rule) */
  int rounds;                /**< DIFFUSION rounds run */
  int fell_back;             /**< the last resort taken when the strategy
                                  left a rank empty at every tolerance:
                                  0 none, 1 equal-weight cuts of the
                                  Hilbert string (no edge weights), 2 equal
                                  element counts along it (the weights sit
                                  on so few elements that equal weights
                                  would still leave a rank empty) */
} mxn_rebalance_report_t;

/**
 * Re-balance for time step `step` (0-based): read the step with the cached
 * plan when the piece does not hold it, weigh the owned elements (opts),
 * measure the imbalance (max/avg over ranks) and, if it is over the
 * tolerance (or opts->force), move elements to new owners with the
 * strategy, never leaving a rank empty (tighter tolerance and retry;
 * last resort a fresh equal-weight Hilbert string cut, or equal element
 * counts along it if a rank would still be empty). Then each rank
 * keeps what stays (mesh, fields, plan entries), reads only the elements
 * it gained and the ghosts it did not hold (with the step's fields) and
 * drops what it lost; the plan is updated, not rebuilt. The piece and halo
 * are then exactly what mxn_load_open() would give for the same owners,
 * with the step read (same order, same values).
 * Borrowed pointers from mxn_load_piece()/mxn_load_halo() are invalid
 * after a re-balance that changed the partition.
 * The load must be opened with opts.dynamic.
 * \param [out] rep  the report; may be NULL
 * \return MXN_OK or the agreed error (bad weights: MXN_ERR_ARG). On error
 *   the piece is unchanged unless the error came while rebuilding it (then
 *   the handle only accepts mxn_load_close()). Collective.
 */
int mxn_load_rebalance(mxn_load_t *ld, int step, const mxn_rebalance_opts_t *opts,
                       mxn_rebalance_report_t *rep, mxn_error_t *err);

/** Name of a strategy ("auto", "shift", "repartition", "diffusion",
 *  "fresh", "refine"). Local. */
const char *mxn_rebal_strategy_name(mxn_rebal_strategy s);

/** Parse a strategy name (case-insensitive).
 *  \return MXN_OK or MXN_ERR_ARG. Local. */
int mxn_rebal_strategy_parse(const char *name, mxn_rebal_strategy *s);

/** Close files, free everything, set *ld = NULL. Accepts NULL. Local. */
void mxn_load_close(mxn_load_t **ld);

#ifdef __cplusplus
}
#endif
#endif /* MXN_LOAD_H */
