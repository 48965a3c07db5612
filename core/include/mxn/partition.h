/**
 * \file partition.h
 * Element partitioners: contiguous id ranges, the Hilbert-curve "string"
 * (seeds dynamic-load-balance-rankdlb.txt, luna-patch-rope-data-distribution.txt),
 * and Zoltan's RCB, RIB, HSFC and graph (PHG) methods
 * (seed zoltan-load-balancing-fluidity.txt).
 *
 * The input lives distributed over `comm`: each rank passes its own elements
 * (for the single-process CLI, comm = MPI_COMM_SELF and one rank holds all).
 * MPI must be initialized. Collective over `comm`.
 */
#ifndef MXN_PARTITION_H
#define MXN_PARTITION_H

#include <mpi.h>
#include "mxn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The partition methods, one table: the enumerator, its number, the
 *  name the CLI's --method takes (mxn_part_method_parse, _name) and the
 *  label of the reader's PartitionMethod list. The number is the value of
 *  that property, which the proxy XML's enumeration (xml/MxNReader.xml)
 *  repeats: test_partition's PartitionMethodTable checks the XML against
 *  this table. The reader offers the first MXN_PART_NUM_READER methods;
 *  MAP needs a map file (the CLI's --map). FILES is 0, so that a
 *  zero-initialised mxn_load_opts_t has the load's default.
 *
 *  X(enumerator, number, name, label, what it does) */
#define MXN_PART_METHODS(X)                                                                     \
  X(MXN_PART_FILES, 0, "files", "Files", "whole files to ranks, cut only where needed")        \
  X(MXN_PART_SFC, 1, "sfc", "SFC", "Hilbert order of centroids cut into equal-weight pieces")  \
  X(MXN_PART_RCB, 2, "rcb", "RCB", "Zoltan recursive coordinate bisection")                    \
  X(MXN_PART_RIB, 3, "rib", "RIB", "Zoltan recursive inertial bisection")                      \
  X(MXN_PART_HSFC, 4, "hsfc", "HSFC", "Zoltan Hilbert space-filling curve")                    \
  X(MXN_PART_GRAPH, 5, "graph", "Graph", "Zoltan graph partitioning (PHG) of the dual graph")  \
  X(MXN_PART_LINEAR, 6, "linear", "Linear", "contiguous runs in global id order")              \
  X(MXN_PART_MAP, 7, "map", "Map", "a user-given element -> part file (parallel load)")

#define MXN_PART_ENUMERATOR_(e, number, name, label, what) e = number,
typedef enum mxn_part_method { MXN_PART_METHODS(MXN_PART_ENUMERATOR_) } mxn_part_method;
#undef MXN_PART_ENUMERATOR_

/** How many methods the table holds; the reader offers the first
 *  MXN_PART_NUM_READER (numbers 0 .. MXN_PART_NUM_READER - 1). */
#define MXN_PART_NUM_METHODS 8
#define MXN_PART_NUM_READER 7

/** Parse "linear", "sfc", "rcb", "rib", "hsfc", "graph", "files", "map"
 *  (case-insensitive). FILES and MAP are decided by the parallel load
 *  (load.h), not by mxn_partition(), which rejects them with MXN_ERR_ARG.
 *  \return MXN_OK or MXN_ERR_ARG. Local. */
int mxn_part_method_parse(const char *name, mxn_part_method *m);

/** Lower-case name of a method ("unknown" outside the table). Local. */
const char *mxn_part_method_name(mxn_part_method m);

/** The reader's label of a method ("Files", "SFC", ...; NULL outside the
 *  table). Local. */
const char *mxn_part_method_label(mxn_part_method m);

/** The elements this rank contributes. Arrays are borrowed.
 *  A rank with n = 0 may leave every array NULL and dim 0; ranks with
 *  elements must agree on dim and on whether weights / edge weights are
 *  given (all or none), else every rank gets MXN_ERR_ARG. */
typedef struct mxn_part_input {
  int64_t n;                    /**< elements on this rank */
  int dim;                      /**< 1..3: coordinates per centroid */
  const mxn_gid_t *ids;         /**< n global element ids (unique over comm) */
  const double *centroids;      /**< n*3 (x,y,z; unused components 0) */
  const double *weights;        /**< n weights > 0, or NULL for 1 */
  /* Dual graph (MXN_PART_GRAPH only): neighbours of element k are
   * adj_ids[adj_off[k] .. adj_off[k+1]), by global id, living on rank
   * adj_ranks[...] (NULL: all on this rank). Edge weights optional. */
  const int64_t *adj_off;
  const mxn_gid_t *adj_ids;
  const int *adj_ranks;
  const double *edge_weights;
} mxn_part_input_t;

/** Options. Zero-initialized means defaults. Rank 0's are used on all
 *  ranks. The seed re-seeds Zoltan's generator before a graph run, so equal
 *  inputs and seeds give equal parts. */
typedef struct mxn_part_opts {
  double imbalance_tol;  /**< e.g. 1.05; <= 1 means the default 1.05 */
  unsigned seed;         /**< for methods with randomness */
  /** Zoltan methods: nonzero = LB_APPROACH REPARTITION, the caller's
   *  elements being the current parts (rank r holds part r): Zoltan keeps
   *  migration small (REMAP, RCB_REUSE for rcb, PHG's migration cost for
   *  graph). Ignored by linear and sfc. */
  int repartition;
  /** MXN_PART_GRAPH only: nonzero = LB_APPROACH REFINE, PHG improving the
   *  current parts (rank r holds part r) with little migration (overrides
   *  repartition). */
  int refine;
  /** Zoltan methods: nonzero = REMAP 0, parts numbered as Zoltan cuts
   *  them, not renumbered to overlap the current distribution (how a
   *  fresh load that knows nothing of the current owners numbers them). */
  int no_remap;
} mxn_part_opts_t;

/**
 * Assign each local element a part in [0, nparts).
 * Parts are never empty while nparts <= total elements: when a method
 * leaves one empty, it is retried with a tighter tolerance, then (graph)
 * without edge weights, then with the Hilbert string, or the id string
 * when no centroids were given (Fluidity rule; the fallback is silent). With more parts than elements, LINEAR and SFC use
 * parts 0..N-1 and leave the rest empty.
 * LINEAR and SFC sort over `comm` and cut the weighted string so that no
 * part is skipped; their result does not depend on how the elements are
 * spread over the ranks (up to rounding in sums of non-unit weights). Global ids must be unique over `comm`.
 * GRAPH: self-loops are ignored; with adj_ranks NULL every neighbour must
 * be one of this rank's elements. Weights are passed to Zoltan as float.
 * \param [in]  comm    communicator (collective)
 * \param [in]  method  partitioning method
 * \param [in]  in      this rank's elements
 * \param [in]  nparts  >= 1
 * \param [in]  opts    NULL for defaults
 * \param [out] part    in->n part numbers (caller allocates)
 * \param [out] err     detail on failure; may be NULL
 * \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM, MXN_ERR_PARTITION, MXN_ERR_MPI,
 *         MXN_ERR_UNSUPPORTED (more than INT_MAX elements on a rank for
 *         Zoltan or a multi-rank sort); the same status on every rank.
 */
int mxn_partition(MPI_Comm comm, mxn_part_method method,
                  const mxn_part_input_t *in, int nparts,
                  const mxn_part_opts_t *opts, int *part, mxn_error_t *err);

/**
 * Hilbert index of each point on a 2^21 grid over the bounding box
 * [lo, hi] (3D; for 2D pass z = 0). Local. Keys are < 2^63; points outside
 * the box clamp to it; a flat axis (lo == hi), a NaN coordinate or a NaN
 * box bound gives grid coordinate 0 on that axis.
 * \param [out] key  n keys
 */
void mxn_hilbert_keys(int64_t n, const double *xyz, const double lo[3],
                      const double hi[3], uint64_t *key);

/**
 * Dual graph of a serial mesh: elements are neighbours when they share at
 * least `min_shared` nodes. Element k has nodes conn[conn_off[k]..conn_off[k+1])
 * (local node indices < num_nodes). Nodes listed twice by one element
 * count once. Neighbours come sorted, without self or duplicates; the
 * work is O(connectivity x mean elements per node).
 * \param [out] adj_off  malloc'ed n+1 offsets (caller frees)
 * \param [out] adj      malloc'ed neighbour element indices (caller frees)
 * \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM. Local.
 */
int mxn_dual_graph(int64_t n, const int64_t *conn_off, const int64_t *conn,
                   int64_t num_nodes, int min_shared, int64_t **adj_off,
                   int64_t **adj);

#ifdef __cplusplus
}
#endif
#endif /* MXN_PARTITION_H */
