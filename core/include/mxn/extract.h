/**
 * \file extract.h
 * Extraction of a subset of a dataset (a "piece") by the minimal cover:
 * wanted global element ids → greedy cover of the element domain by the
 * files' domains → coalesced partial reads of connectivity, attributes,
 * coordinates, sets and fields (seed mxn-repartitioning-algorithm.txt §II.B-C).
 *
 * Local ordering of a piece: nodes by ascending global id; within a block,
 * elements by ascending global id; blocks in structure order. Element-to-node
 * connectivity is renumbered to 0-based local node indices. Sets are
 * restricted to the piece. The extraction plan is kept in the piece, so each
 * time step's fields are read with the same plan (mxn_piece_read_step()).
 */
#ifndef MXN_EXTRACT_H
#define MXN_EXTRACT_H

#include "mxn/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One block of a piece (structure block of the same index). */
typedef struct mxn_piece_block {
  int64_t num_elements;
  mxn_gid_t *elem_ids;   /**< ascending global ids */
  mxn_gid_t *orig_ids;   /**< original ids (original_global_id_map) or NULL */
  int64_t *conn;         /**< num_elements * nodes_per_elem local node indices */
  double *attr;          /**< num_elements * num_attr, or NULL */
  double **elem_vars;    /**< [num_elem_vars]: values at the current step, NULL where undefined */
} mxn_piece_block_t;

/** A node set (entries are local node indices) or side set (local element
 *  indices over the concatenated blocks, with 1-based sides). */
typedef struct mxn_piece_set {
  int64_t n;
  int64_t *entries;
  int *sides;            /**< side sets only */
  double *df;            /**< node sets: n values; side sets: df_offsets[n] values; or NULL */
  int64_t *df_offsets;   /**< side sets with df: n+1 offsets into df, else NULL */
} mxn_piece_set_t;

/** What a piece read, from where. */
typedef struct mxn_piece_stats {
  int files_in_cover;    /**< files the element cover chose */
  int64_t elem_runs;     /**< coalesced element runs read */
  int64_t node_runs;     /**< coalesced node runs read */
} mxn_piece_stats_t;

/** Extraction options. Zero-initialize, then set what you need. */
typedef struct mxn_extract_opts {
  /** Gap (in entries) up to which two runs are merged into one read: more
   *  bytes, fewer calls. 0 = read exactly the wanted entries. */
  int64_t gap;
  /** Skip attributes / sets when nonzero. */
  int no_attributes, no_sets;
} mxn_extract_opts_t;

typedef struct mxn__plan mxn__plan_t;

/** A piece of a dataset, in memory. Free with mxn_piece_destroy(). */
typedef struct mxn_piece {
  int num_dim;
  int64_t num_nodes;
  mxn_gid_t *node_ids;       /**< ascending global node ids */
  double *coord[3];          /**< num_dim arrays of num_nodes */
  int num_blocks;            /**< == structure num_blocks */
  mxn_piece_block_t *blocks;
  int64_t num_elements;      /**< over all blocks */
  int num_node_sets, num_side_sets;
  mxn_piece_set_t *node_sets;
  mxn_piece_set_t *side_sets;
  int step;                  /**< 0-based step of the field values, -1 if none read */
  double time;
  double **node_vars;        /**< [num_node_vars] arrays of num_nodes (after read_step) */
  double *global_vars;       /**< [num_global_vars] (after read_step) */
  mxn_piece_stats_t stats;
  int plan_num_node_vars;    /**< length of node_vars */
  int plan_num_elem_vars;    /**< length of each block's elem_vars */
  mxn__plan_t *plan;         /**< private: the cached extraction plan */
} mxn_piece_t;

/**
 * Extract the elements `want` (global ids; NULL = every element of the
 * dataset) with their nodes, connectivity, attributes and sets.
 * \param [in]  ds    an open dataset
 * \param [in]  want  sorted wanted ids or NULL
 * \param [in]  opts  NULL for defaults
 * \param [out] out   the piece; free with mxn_piece_destroy()
 * \return MXN_OK; MXN_ERR_NOTFOUND if a wanted id is in no file; I/O and
 *   format errors naming the file and block (mxn_dataset_errmsg()). Local.
 */
int mxn_extract(mxn_dataset_t *ds, const mxn_idset_t *want,
                const mxn_extract_opts_t *opts, mxn_piece_t **out);

/**
 * Read all nodal, element and global variables of time step `step`
 * (0-based) into the piece, reusing its extraction plan. Local.
 */
int mxn_piece_read_step(mxn_dataset_t *ds, mxn_piece_t *piece, int step);

/** Free a piece and set *p = NULL. Accepts NULL. Local. */
void mxn_piece_destroy(mxn_piece_t **p);

#ifdef __cplusplus
}
#endif
#endif /* MXN_EXTRACT_H */
