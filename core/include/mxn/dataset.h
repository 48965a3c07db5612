/**
 * \file dataset.h
 * An Exodus II dataset stored as one file or as a spread set of M files
 * (`base.M.j`, Nemesis or any member set carrying global id maps).
 *
 * Opening reads the structure of every member (dimension, blocks, sets,
 * variable names, time values) and merges it as the union over files: a
 * block may be empty or absent in some files. A selection
 * (mxn_dataset_select_members()) opens some members only, as if the set
 * had only them. Each file's id maps (its file
 * domain F_j) are read on demand, once, by mxn_dataset_file_domain().
 *
 * Handles are not thread-safe. All calls here are local (one process).
 */
#ifndef MXN_DATASET_H
#define MXN_DATASET_H

#include "mxn/idset.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Room for an Exodus name (entity, variable, element type) with its NUL. */
#define MXN_NAME_LEN 256

/** Kinds of blocks by how their entries list nodes (mxn_block_info_t.poly). */
#define MXN_POLY_NONE 0   /**< fixed nodes_per_elem per entry */
#define MXN_POLY_NSIDED 1 /**< polygons (element or face blocks): a node count per entry */
#define MXN_POLY_NFACED 2 /**< polyhedra (element blocks): a face count per entry, the
                               faces living in NSIDED (or fixed) face blocks */

/** An element, edge or face block as the union over files. For edge and
 *  face blocks "element" below reads "edge" or "face". */
typedef struct mxn_block_info {
  mxn_gid_t id;                 /**< Exodus block id */
  char name[MXN_NAME_LEN];      /**< block name, "" if unnamed */
  char type[MXN_NAME_LEN];      /**< element type as stored, e.g. "HEX8", "QUAD4" */
  int nodes_per_elem;
  int num_attr;                 /**< attributes per element */
  char (*attr_names)[MXN_NAME_LEN]; /**< num_attr names ("" if unnamed) */
  int64_t num_elements;         /**< sum over files (counts overlap twice) */
  int edges_per_elem;           /**< element blocks: element->edge connectivity
                                     entries per element, 0 if none */
  int faces_per_elem;           /**< element blocks: element->face entries, 0 if none */
  /** MXN_POLY_NONE, or MXN_POLY_NSIDED / MXN_POLY_NFACED: entries have
   *  varying numbers of nodes (faces); nodes_per_elem and faces_per_elem
   *  are then 0 and num_conn counts the references. */
  int poly;
  int64_t num_conn;             /**< poly blocks: node (NSIDED) or face (NFACED)
                                     references, sum over files; else 0 */
} mxn_block_info_t;

/** A node, side, edge, face or element set as the union over files. */
typedef struct mxn_set_info {
  mxn_gid_t id;
  char name[MXN_NAME_LEN];
  int64_t num_entries;          /**< sum over files (shared entries count twice) */
  int has_df;                   /**< distribution factors stored in some file */
} mxn_set_info_t;

/** A numbered map (Exodus `ex_put_num_map`: one integer per node, edge,
 *  face or element, beside the id map), matched across files by id. */
typedef struct mxn_map_info {
  mxn_gid_t id;
  char name[MXN_NAME_LEN];
} mxn_map_info_t;

/** The variables of one kind of block or set, and where they exist. */
typedef struct mxn_var_list {
  int num;                          /**< number of variables */
  char (*names)[MXN_NAME_LEN];      /**< num names */
  /** (blocks or sets of the kind) x num: 1 where the variable is stored on
   *  that block or set in some file that holds entries of it */
  int *truth;
} mxn_var_list_t;

/** Room for a QA record's string and for an information line with their
 *  NUL: Exodus keeps 32 and 80 characters (its MAX_STR_LENGTH and
 *  MAX_LINE_LENGTH) and reads them so. */
#define MXN_QA_LEN 33
#define MXN_INFO_LEN 81

/** Exodus's entity type codes (`ex_entity_type`), as assemblies store the
 *  type of their members. */
#define MXN_ENTITY_ELEM_BLOCK 1
#define MXN_ENTITY_NODE_SET 2
#define MXN_ENTITY_SIDE_SET 3
#define MXN_ENTITY_EDGE_BLOCK 6
#define MXN_ENTITY_EDGE_SET 7
#define MXN_ENTITY_FACE_BLOCK 8
#define MXN_ENTITY_FACE_SET 9
#define MXN_ENTITY_ELEM_SET 10
#define MXN_ENTITY_ASSEMBLY 16
#define MXN_ENTITY_BLOB 17

/** An Exodus assembly (`ex_put_assembly`, Exodus 8): a named group of
 *  entities of one type (blocks, sets, or other assemblies), as member 0
 *  stores it. */
typedef struct mxn_assembly_info {
  mxn_gid_t id;
  char name[MXN_NAME_LEN];      /**< "" if unnamed; cut at 32 characters */
  int type;                     /**< MXN_ENTITY_* of every member, as stored */
  int64_t num_members;
  mxn_gid_t *members;           /**< num_members entity ids (block, set or
                                     assembly ids of `type`), as stored */
} mxn_assembly_info_t;

/** Merged structure of the dataset. Owned by the dataset handle. */
typedef struct mxn_structure {
  char title[MXN_NAME_LEN * 2];
  int num_dim;
  /** Members opened: M, or fewer when a selection chose some of them
   *  (mxn_dataset_select_members(); member j of the dataset is then the
   *  j-th member chosen, mxn_dataset_file_path() names it) */
  int num_files;
  /** The set's file count as its names say (M of `base.M.r`; 1 for a
   *  plain file): num_files unless a selection opened fewer */
  int num_files_set;
  int64_t num_nodes_sum;        /**< sum of per-file node counts */
  int64_t num_elements_sum;     /**< sum of per-file element counts */
  /** From Nemesis global info, else -1. Also -1 when a selection opened
   *  some of the members only: the counts are those of the whole set,
   *  not of the members read, so they are neither checked nor kept. */
  int64_t num_nodes_global;
  int64_t num_elements_global;  /**< as num_nodes_global */
  int num_blocks;
  mxn_block_info_t *blocks;
  int num_node_sets;
  mxn_set_info_t *node_sets;
  int num_side_sets;
  mxn_set_info_t *side_sets;
  /* Variables: the union over the members, matched by name (members may
   * list different ones); an entity of a member lacking one reads NaN. */
  int num_node_vars, num_elem_vars, num_global_vars;
  char (*node_var_names)[MXN_NAME_LEN];
  char (*elem_var_names)[MXN_NAME_LEN];
  char (*global_var_names)[MXN_NAME_LEN];
  /** num_blocks * num_elem_vars: 1 where a variable exists on a block in some file */
  int *elem_var_truth;
  int num_times;
  double *times;                /**< num_times time values (from file 0) */
  char coord_names[3][MXN_NAME_LEN];
  /* Edge and face blocks (union over files, like element blocks). Element
   * blocks may refer to their entries through edges/faces_per_elem. */
  int num_edge_blocks, num_face_blocks;
  mxn_block_info_t *edge_blocks, *face_blocks;
  int64_t num_edges_sum, num_faces_sum;  /**< sums of per-file counts */
  /* Edge, face and element sets (node and side sets are above). */
  int num_edge_sets, num_face_sets, num_elem_sets;
  mxn_set_info_t *edge_sets, *face_sets, *elem_sets;
  /* Variables on edge/face blocks (truth over those blocks) and on each
   * kind of set (values per set entry; truth over the sets of the kind). */
  mxn_var_list_t edge_vars, face_vars;
  mxn_var_list_t node_set_vars, side_set_vars, edge_set_vars, face_set_vars,
      elem_set_vars;
  /* Numbered maps per entity kind (`original_global_id_map` included). */
  int num_node_maps, num_edge_maps, num_face_maps, num_elem_maps;
  mxn_map_info_t *node_maps, *edge_maps, *face_maps, *elem_maps;
  int num_qa, num_info;         /**< QA and info records of file 0 */
  /** Member 0's QA records (Exodus `ex_get_qa`): num_qa of them, each
   *  [0] code name, [1] code version, [2] date, [3] time, cut at 32
   *  characters and trailing blanks removed as Exodus reads them; NULL
   *  when num_qa is 0. A member whose records cannot be read (a count
   *  without the variable) gives empty strings. */
  char (*qa_records)[4][MXN_QA_LEN];
  /** Member 0's information records (`ex_get_info`): num_info lines, cut
   *  at 80 characters, trailing blanks removed; NULL when num_info is 0. */
  char (*info_records)[MXN_INFO_LEN];
  /** Member 0's assemblies (Exodus 8), in ascending id order; NULL when
   *  num_assemblies is 0. A file written before assemblies has none. */
  int num_assemblies;
  mxn_assembly_info_t *assemblies;
  int has_original_elem_ids;    /**< every file has `original_global_id_map` */
  int int64_ids;                /**< some member stores 64-bit ids */
  int float_word_size;          /**< 4 or 8, of file 0 */
  /** Id maps that could not be trusted (a member repeats an element or
   *  node id, or one node id stands for different points in two members):
   *  MXN_IDS_* bits of the fallback taken, 0 when the maps are used as
   *  written. Known once the members' id maps are read: after the first
   *  file domain of a dataset opened serially, after mxn_load_open(). */
  int id_fallback;
  /** The warning that goes with it, naming the member and the first
   *  duplicate id ("" when id_fallback is 0). */
  char id_warning[MXN_ERRMSG_LEN];
  /** A writer's hint the members disagree with, said once: the first
   *  disagreement, naming the file and both numbers, e.g. "mesh.e.4.0:
   *  the members hold 1660 distinct element ids where their Nemesis
   *  global counts say 1680; going on with what the members hold", or
   *  a member's node communication maps listing a node it does not have
   *  (all its nodes are then compared in the shared-node check) (""
   *  when the hints agree or there are none). Hints are checked, never
   *  trusted: the members' content is read and num_elements_global set to
   *  it. Known after mxn_load_open(), or serially after the first
   *  extraction of the whole dataset (mxn_extract() with want NULL). */
  char hint_warning[MXN_ERRMSG_LEN];
} mxn_structure_t;

/**
 * Every warning of a structure (id_warning, hint_warning), one a line in
 * that order, into buf (at most cap bytes, cut there; "" when none).
 * What a reader or tool says once per dataset.
 * \return the number of warnings. Local.
 */
int mxn_structure_warnings(const mxn_structure_t *s, char *buf, size_t cap);

/** Exodus's name of an entity type code (`ex_name_of_object`): "element
 *  block", "node set", "side set", "edge block", "edge set", "face block",
 *  "face set", "element set", "assembly", "blob"; "unknown" otherwise.
 *  Static storage. Local. */
const char *mxn_entity_type_name(int type);

/** Element ids are the member's offset (elements of the members before
 *  it) + position + 1, in member order, not the members' elem_num_map. */
#define MXN_IDS_ELEM_BY_POSITION 1
/** Nodes are matched across members by their coordinates (rounded to a
 *  grid of 2^-21 of the dataset's bounding box), not by node_num_map. */
#define MXN_IDS_NODE_BY_COORDS 2

/**
 * The domain of one file: its global ids, in file order and as sorted sets
 * with the positions of each member in file order.
 */
typedef struct mxn_file_domain {
  int64_t num_nodes, num_elements;
  mxn_gid_t *node_map;      /**< num_nodes global node ids, file order */
  mxn_gid_t *elem_map;      /**< num_elements global element ids, file order */
  mxn_idset_t nodes;        /**< sorted node ids */
  int64_t *node_pos;        /**< nodes.ids[k] is at file position node_pos[k] */
  mxn_idset_t elems;        /**< sorted element ids */
  int64_t *elem_pos;        /**< elems.ids[k] is at file position elem_pos[k] */
  mxn_gid_t *orig_elem_ids; /**< original_global_id_map (file order) or NULL */
  /* Edges and faces, like nodes: ids from edge_num_map/face_num_map (a
   * single file without them numbers its entries 1..n). */
  int64_t num_edges, num_faces;
  mxn_gid_t *edge_map, *face_map; /**< global ids, file order */
  mxn_idset_t edges, faces;       /**< sorted ids */
  int64_t *edge_pos, *face_pos;   /**< file position of each sorted id */
} mxn_file_domain_t;

/** Opaque dataset handle. */
typedef struct mxn_dataset mxn_dataset_t;

/** Create an empty handle. \return MXN_OK or MXN_ERR_NOMEM. Local. */
int mxn_dataset_create(mxn_dataset_t **ds);

/**
 * Open a dataset: a plain Exodus file (M = 1), any member of a spread set
 * (`x.e.4.2`), or the base name of one (`x.e` when `x.e.4.0` … exist).
 * Ranks may be zero-padded (`x.e.12.03`). Reads and merges the structure.
 * \return MXN_OK; MXN_ERR_IO (missing/unreadable), MXN_ERR_FORMAT (not Exodus),
 *   MXN_ERR_FILESET (member missing, counts disagree), MXN_ERR_INCONSISTENT
 *   (members of different datasets). Details in mxn_dataset_errmsg(). Local.
 */
int mxn_dataset_open(mxn_dataset_t *ds, const char *path);

/**
 * Which members of a spread set an open reads: IOSS's FileRange and
 * FileStride (ParaView's IOSSReader), and its ScanForRelatedFiles off for
 * a member's name. Zero-initialised: every member.
 *
 * The dataset opened is then the union of the chosen members alone, as
 * if the set had only them: their elements, the nodes they store (a node
 * shared with a member not chosen is in a chosen member's file too), the
 * entries of sets they hold, the blocks, sets and variables they declare.
 * Member j of the dataset is the j-th chosen, in rank order. A plain file
 * (not named `base.M.r`) is read whole, whatever the selection.
 */
typedef struct mxn_member_select {
  /** When last > first: the members of rank r, first <= r < last (ranks
   *  as the names number them, 0..M-1; last beyond M reads as M).
   *  Otherwise (IOSS's default [0, -1]) every member. */
  int first, last;
  /** Of those, every stride-th from first: (r - first) % stride == 0.
   *  0 reads as 1; negative is an error. */
  int stride;
  /** Nonzero, and the path names a member (`x.e.4.2`): that member alone
   *  (and only if the range above, when given, chooses it). A base name
   *  or a plain file: no effect. */
  int named_only;
} mxn_member_select_t;

/**
 * Choose the members the next open of `ds` (mxn_dataset_open(),
 * mxn_dataset_open_collective()) reads. Call between mxn_dataset_create()
 * and the open; `sel` is copied (NULL: every member). An open whose
 * selection chooses no member fails with MXN_ERR_FILESET naming the set
 * and the range; only the chosen members need to exist.
 * 
eturn MXN_OK, or MXN_ERR_ARG (no handle, already opened, negative
 *   stride; message in mxn_dataset_errmsg()). Local.
 */
int mxn_dataset_select_members(mxn_dataset_t *ds, const mxn_member_select_t *sel);

/**
 * How many members of an M-member spread set `sel` chooses (NULL: all M),
 * `named` the rank a member's path names (used with sel->named_only; -1
 * for a base name): what an open with that selection reads, 0 where it
 * fails with MXN_ERR_FILESET. Local.
 */
int mxn_member_select_count(const mxn_member_select_t *sel, long M, long named);

/** Close files and free everything, set *ds = NULL. Accepts NULL. Local. */
void mxn_dataset_destroy(mxn_dataset_t **ds);

/** The merged structure (valid after a successful open). Borrowed. */
const mxn_structure_t *mxn_dataset_structure(const mxn_dataset_t *ds);

/** Path of member j (0 <= j < M). Borrowed: valid until the handle is
 *  destroyed for member 0 and where the handle keeps member j's record (a
 *  serial open keeps every member's); otherwise (a collective open keeps
 *  its own members') made in a ring of four buffers of the handle, valid
 *  until four more such paths are asked for. Copy it to keep it. */
const char *mxn_dataset_file_path(const mxn_dataset_t *ds, int j);

/**
 * The domain of file j, read on first use and cached in the handle.
 * Fails with MXN_ERR_NOMAP for a member of a spread set (M > 1) that stores
 * no id map for entities it holds (nodes, elements, edges, faces); with MXN_ERR_FORMAT for repeated ids in a file.
 * \param [out] dom  borrowed pointer, valid until the handle is destroyed
 * Local.
 */
int mxn_dataset_file_domain(mxn_dataset_t *ds, int j,
                            const mxn_file_domain_t **dom);

/**
 * Where member j keeps element block b (an index into the structure's
 * blocks): the file position of its first element and its elements (0
 * where the member holds none; a declared empty block starts where the
 * next one does). Per member and block on request: the dataset keeps only
 * the blocks each member holds elements of, so its metadata does not grow
 * with members x blocks.
 * A member whose record a collective open did not keep (the rank did not
 * summarise it) has it rebuilt from its header here.
 * \return 1 if the member declares the block, 0 if not, MXN_ERR_ARG for
 *   bad arguments, or the error of reading the member's header (then in
 *   mxn_dataset_errmsg()). Local.
 */
int mxn_dataset_file_block(const mxn_dataset_t *ds, int j, int b, int64_t *start, int64_t *count);

/** Detailed message of the last error (never NULL). */
const char *mxn_dataset_errmsg(const mxn_dataset_t *ds);

/** Status of the last error (MXN_OK if none). */
int mxn_dataset_errcode(const mxn_dataset_t *ds);

/** I/O counters kept per handle since creation. */
typedef struct mxn_io_counters {
  int64_t bytes_read;    /**< payload bytes read from members */
  /** Of bytes_read: the members' whole id maps (node, element, edge, face
   *  and original element ids), read once per member to find entries by
   *  global id. */
  int64_t map_bytes_read;
  /** Of bytes_read: the members' sets (entries, sides or orientations,
   *  distribution factors), read whole per member to keep the entries of
   *  a piece. */
  int64_t set_bytes_read;
  /** Of bytes_read: node coordinates read to settle whether the id maps
   *  can be trusted (the shared-node check's copies; the bounding box of
   *  nodes matched by coordinates). */
  int64_t check_bytes_read;
  int64_t read_calls;    /**< bulk-data read calls */
  int64_t files_opened;  /**< member opens */
  int64_t bytes_written;
  int64_t write_calls;
  /** Of netCDF-4 members' compressed variables: the bytes of the chunks
   *  decompressed (whole chunks, so at least what the reads asked of
   *  them). A chunk a load needs is decompressed once per step: reads
   *  are widened to chunk boundaries, and later reads inside one of the
   *  latest boxes read copy from it. */
  int64_t bytes_decompressed;
  /** Wall seconds inside the member reads counted here (the netCDF or
   *  HDF5 calls, decoding and decompression included): what the reads
   *  themselves cost, apart from the work around them. */
  double seconds_reading;
} mxn_io_counters_t;

/** Current counters. Local. */
mxn_io_counters_t mxn_dataset_counters(const mxn_dataset_t *ds);

#ifdef __cplusplus
}
#endif
#endif /* MXN_DATASET_H */
