/**
 * \file extract.h
 * Extraction of a subset of a dataset (a "piece") by the minimal cover:
 * wanted global element ids → greedy cover of the element domain by the
 * files' domains → coalesced partial reads of connectivity, attributes,
 * coordinates, sets and fields (seed mxn-repartitioning-algorithm.txt §II.B-C).
 *
 * Local ordering of a piece: nodes by ascending global id; within a block,
 * elements by ascending global id; blocks in structure order; edges and
 * faces likewise. Connectivity (element/edge/face to node, element to edge
 * and face) is renumbered to 0-based local indices, which is how the
 * element partition propagates to edges and faces (seed: "indirect
 * connectivity"). Sets are restricted to the piece. The extraction plan is kept in the piece, so each
 * time step's fields are read with the same plan (mxn_piece_read_step()).
 */
#ifndef MXN_EXTRACT_H
#define MXN_EXTRACT_H

#include "mxn/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One element block of a piece (structure block of the same index), or
 *  one edge or face block (then "element" reads "edge" or "face"). */
typedef struct mxn_piece_block {
  int64_t num_elements;
  mxn_gid_t *elem_ids;   /**< ascending global ids */
  mxn_gid_t *orig_ids;   /**< original ids (original_global_id_map) or NULL */
  /** The member each entry was read from: j of mxn_dataset_file_path(ds, j),
   *  0 for a single file. An entry several members hold (overlapping
   *  members) names the one the cover read it from; a ghost element (halo)
   *  and an element a re-balance moved keep the member their first reader
   *  read them from. NULL only in pieces built without reading members. */
  int32_t *member;
  int64_t *conn;         /**< num_elements * nodes_per_elem local node indices; for a
                              poly block conn_off[num_elements] of them */
  /** Poly blocks (mxn_block_info_t.poly), else NULL: num_elements + 1
   *  offsets, entry k's nodes are conn[conn_off[k] .. conn_off[k+1]).
   *  NSIDED: the polygon's nodes in order. NFACED: the distinct nodes of
   *  its faces, in order of first appearance (derived, for centroids,
   *  ghosts and node ownership; files store only the faces). */
  int64_t *conn_off;
  /** NFACED blocks, else NULL: num_elements + 1 offsets into face_conn
   *  (entry k's faces are face_conn[face_off[k] .. face_off[k+1])). */
  int64_t *face_off;
  double *attr;          /**< num_elements * num_attr, or NULL */
  double **elem_vars;    /**< [variables of the kind]: values at the current step,
                              NULL where undefined; NaN for entries from a member
                              without the variable */
  /** Element blocks with edges/faces_per_elem > 0: num_elements * edges
   *  (faces) per element local edge (face) indices over the piece's
   *  concatenated edge (face) blocks; else NULL. */
  int64_t *edge_conn, *face_conn;
  mxn_gid_t **maps;      /**< [numbered maps of the kind]: one value per element */
} mxn_piece_block_t;

/** A set restricted to a piece. Entries are local indices: nodes (node
 *  sets), elements over the concatenated element blocks (side and element
 *  sets), edges or faces over the concatenated edge/face blocks. */
typedef struct mxn_piece_set {
  int64_t n;
  int64_t *entries;
  int *sides;            /**< side sets: 1-based sides, else NULL */
  int *orient;           /**< edge and face sets: orientations, else NULL */
  /** The member each entry was read from: of the members one extraction
   *  read that list it, the lowest-numbered (an entry several members
   *  list, such as a node on their border, is kept once; entries a later
   *  extraction adds keep theirs). A parallel load agrees node-set
   *  entries' over the ranks after opening and after each re-balance: the
   *  lowest-numbered member listing the node, as on one rank. NULL in sets
   *  of pieces built without reading members (they are empty). */
  int32_t *member;
  double *df;            /**< side sets: df_offsets[n] values; other sets: n values; or NULL */
  int64_t *df_offsets;   /**< side sets with df: n+1 offsets into df, else NULL */
  int num_vars;          /**< variables of the set kind (length of vars) */
  double **vars;         /**< [num_vars]: n values at the current step, NULL where undefined
                              (NaN for entries from a member without the variable) */
} mxn_piece_set_t;

/** What a piece read, from where. */
typedef struct mxn_piece_stats {
  int files_in_cover;    /**< files the element cover chose */
  int64_t elem_runs;     /**< coalesced element runs read */
  int64_t node_runs;     /**< coalesced node runs read */
  int64_t edge_runs, face_runs; /**< coalesced edge / face runs read */
} mxn_piece_stats_t;

/** Extraction options. Zero-initialize, then set what you need. */
typedef struct mxn_extract_opts {
  /** Gap (in entries) up to which two runs are merged into one read: more
   *  bytes, fewer calls. 0 = read exactly the wanted entries. */
  int64_t gap;
  /** Cap on what merged gaps may add (0 = none): over all members and
   *  entity kinds, the bytes read beyond the wanted entries stay within
   *  gap_share times the wanted entries' bytes (narrowest gaps merged
   *  first, elements, edges and faces before nodes). */
  double gap_share;
  /** Skip attributes / sets when nonzero. */
  int no_attributes, no_sets;
  /** Ids to include besides those the wanted elements reach (NULL = none):
   *  nodes, edges and faces no element refers to ("orphans") travel with
   *  the piece they are given to, so that a split loses none of them. */
  const mxn_idset_t *extra_nodes, *extra_edges, *extra_faces;
  /** If not NULL: one flag per member file; only flagged members are
   *  opened and their id maps read (the parallel load passes the files of
   *  its cover, so no rank reads every member's maps). Wanted ids must all
   *  lie in flagged members. Ignored for a whole-dataset extraction. */
  const char *file_mask;
  /** Variable selection (NULL = all): one flag per nodal / element
   *  variable; unselected ones get NULL arrays in the piece and are never
   *  read. */
  const int *node_var_mask, *elem_var_mask;
  /** Spare capacity (a fraction, >= 0) of the piece's per-entity arrays,
   *  for entities appended later (the parallel load's ghost layers) to
   *  grow into without copying. 0: none. */
  double reserve;
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
  /* Edges and faces: those the piece's elements refer to (every one for a
   * whole-dataset extraction) plus the extra ones asked for; ascending ids
   * within each block, blocks in structure order. */
  int num_edge_blocks, num_face_blocks;  /**< == structure counts */
  mxn_piece_block_t *edge_blocks, *face_blocks;
  int64_t num_edges, num_faces;          /**< over all edge / face blocks */
  int num_edge_sets, num_face_sets, num_elem_sets;
  mxn_piece_set_t *edge_sets, *face_sets, *elem_sets;
  /** Numbered maps, in structure order: node maps hold num_nodes values;
   *  edge, face and element maps live in the blocks (maps[]). */
  int num_node_maps, num_edge_maps, num_face_maps, num_elem_maps;
  mxn_gid_t **node_maps;
  int step;                  /**< 0-based step of the field values, -1 if none read */
  double time;
  double **node_vars;        /**< [num_node_vars] arrays of num_nodes (after read_step);
                                  NULL for unselected variables; NaN at nodes no
                                  member holding them has the variable for */
  double *global_vars;       /**< [num_global_vars] (after read_step) */
  mxn_piece_stats_t stats;
  int plan_num_node_vars;    /**< length of node_vars */
  int plan_num_elem_vars;    /**< length of each block's elem_vars */
  int plan_num_edge_vars, plan_num_face_vars; /**< same for edge / face blocks */
  mxn__plan_t *plan;         /**< private: the cached extraction plan */
} mxn_piece_t;

/**
 * Extract the elements `want` (global ids; NULL = every element, edge, face
 * and node of the dataset) with their nodes, edges and faces (those the
 * elements refer to, plus opts->extra_*), connectivity, attributes,
 * numbered maps and sets.
 * \param [in]  ds    an open dataset
 * \param [in]  want  sorted wanted ids or NULL
 * \param [in]  opts  NULL for defaults
 * \param [out] out   the piece; free with mxn_piece_destroy()
 * \return MXN_OK; MXN_ERR_NOTFOUND if a wanted (or extra) id is in no file;
 *   MXN_ERR_UNSUPPORTED for an edge, face or element set with several
 *   distribution factors per entry; I/O and format errors naming the file
 *   and block (mxn_dataset_errmsg()). Local.
 */
int mxn_extract(mxn_dataset_t *ds, const mxn_idset_t *want,
                const mxn_extract_opts_t *opts, mxn_piece_t **out);

/**
 * Read all variables of time step `step` (0-based) into the piece: nodal,
 * element, edge, face, set and global, reusing its extraction plan. Local.
 */
int mxn_piece_read_step(mxn_dataset_t *ds, mxn_piece_t *piece, int step);

/** Free a piece and set *p = NULL. Accepts NULL. Local. */
void mxn_piece_destroy(mxn_piece_t **p);

#ifdef __cplusplus
}
#endif
#endif /* MXN_EXTRACT_H */
