/**
 * \file write.h
 * Writing a piece as one Exodus II file, optionally with the Nemesis
 * load-balance metadata of a spread set member (what nem_spread writes).
 *
 * The file is written under a temporary name beside `path` and renamed on
 * a successful mxn_writer_close(), so a failure never leaves a partial file
 * under the final name. A netCDF-4 file (mxn_file_format_t) is written as
 * netCDF-3 first and copied into netCDF-4 with the writer's chunks and
 * compression at the close (core/src/nc4copy.c says why and which chunks).
 * Local.
 */
#ifndef MXN_WRITE_H
#define MXN_WRITE_H

#include "mxn/extract.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Nemesis metadata of one member of a spread set. Indices are 0-based
 *  local indices into the piece (nodes, or elements over the concatenated
 *  blocks); the writer converts to Exodus' 1-based numbering. */
typedef struct mxn_nemesis_part {
  int num_parts;                  /**< M */
  int part;                       /**< this member, 0 <= part < M */
  int64_t num_nodes_global, num_elems_global;
  const int64_t *blk_count_global;    /**< per structure block */
  const int64_t *ns_count_global;     /**< per node set (entries) */
  const int64_t *ns_df_count_global;  /**< per node set (df) */
  const int64_t *ss_count_global;     /**< per side set (sides) */
  const int64_t *ss_df_count_global;  /**< per side set (df) */
  int64_t num_int_nodes, num_bor_nodes;
  const int64_t *int_nodes, *bor_nodes;
  int64_t num_int_elems, num_bor_elems;
  const int64_t *int_elems, *bor_elems;
  int num_node_cmaps;             /**< one per neighbouring part */
  const int *node_cmap_parts;     /**< neighbour part of each map */
  const int64_t *node_cmap_off;   /**< num_node_cmaps+1 offsets into node_cmap_nodes */
  const int64_t *node_cmap_nodes; /**< shared local node indices */
  int num_elem_cmaps;
  const int *elem_cmap_parts;
  const int64_t *elem_cmap_off;
  const int64_t *elem_cmap_elems; /**< local element index */
  const int *elem_cmap_sides;     /**< 1-based side shared with the neighbour */
} mxn_nemesis_part_t;

/** On-disk format of a written file. */
typedef enum mxn_format {
  MXN_FORMAT_DEFAULT = 0, /**< NC3, or NC4 when compression is asked for */
  MXN_FORMAT_NC3 = 1,     /**< netCDF-3 (64-bit offset), as Exodus writes by default */
  MXN_FORMAT_NC4 = 2      /**< netCDF-4 (HDF5); ids stay as `int64` says */
} mxn_format;

/** Format and compression of written files; zero-initialize for netCDF-3
 *  without compression (the files of earlier versions, byte for byte). */
typedef struct mxn_file_format {
  mxn_format format;
  /** Deflate level 0-9 (0: none); with shuffle. Needs netCDF-4: an
   *  explicit MXN_FORMAT_NC3 with a level > 0 is an argument error. */
  int compress;
} mxn_file_format_t;

/** Writer options; zero-initialize. */
typedef struct mxn_write_opts {
  int int64;                          /**< store 64-bit ids and maps */
  mxn_file_format_t file;             /**< format and compression */
  int word_size;                      /**< 4 or 8 for floats; 0 = 8 */
  int use_original_ids;               /**< write original_global_id_map ids as the element map */
  const mxn_nemesis_part_t *nemesis;  /**< NULL: a plain Exodus file */
} mxn_write_opts_t;

typedef struct mxn_writer mxn_writer_t;

/**
 * Check a file format request: a known format, a level in 0-9, no level
 * above 0 with an explicit MXN_FORMAT_NC3. NULL is the default (valid).
 * \return MXN_OK or MXN_ERR_ARG with the reason in `err`. Local.
 */
int mxn_file_format_check(const mxn_file_format_t *f, mxn_error_t *err);

/**
 * Create `path` and write the mesh part of `piece` (coordinates, element,
 * edge and face blocks, attributes, id maps, numbered maps, sets, variable
 * names and truth tables, Nemesis data).
 * \param [in]  s      structure of the source dataset (names, types, vars)
 * \param [out] w      writer; close with mxn_writer_close()
 * \param [out] err    detail on failure (names the file); may be NULL
 * \return MXN_OK, MXN_ERR_IO, MXN_ERR_NOMEM, MXN_ERR_ARG (also for a bad
 *         `opts->file`, see mxn_file_format_check()).
 */
int mxn_writer_create(const char *path, const mxn_structure_t *s,
                      const mxn_piece_t *piece, const mxn_write_opts_t *opts,
                      mxn_writer_t **w, mxn_error_t *err);

/** Append the field values the piece holds now as output step `out_step`
 *  (0-based, consecutive) with the piece's time value. */
int mxn_writer_put_step(mxn_writer_t *w, const mxn_piece_t *piece, int out_step,
                        mxn_error_t *err);

/** Bytes and calls written so far. */
mxn_io_counters_t mxn_writer_counters(const mxn_writer_t *w);

/**
 * Finish: close the file and move it to its final name.
 * \param [in] commit  nonzero to keep the file, 0 to discard it (error paths)
 * Sets *w = NULL. Accepts NULL.
 */
int mxn_writer_close(mxn_writer_t **w, int commit, mxn_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* MXN_WRITE_H */
