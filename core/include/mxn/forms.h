/**
 * \file forms.h
 * The single-process forms of MxN repartitioning (seed §I): JOIN (M files
 * → 1) and SPLIT (1 → M files with Nemesis metadata), built from the same
 * extraction and writing routines as the parallel reader.
 */
#ifndef MXN_FORMS_H
#define MXN_FORMS_H

#include "mxn/partition.h"
#include "mxn/write.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a join or split did. */
typedef struct mxn_form_report {
  int files_in, files_out;
  int64_t num_nodes, num_elements;  /**< of the whole mesh */
  int num_steps;
  mxn_io_counters_t read, written;
  double seconds_read, seconds_partition, seconds_write;
  int64_t min_part_elements, max_part_elements; /**< split only */
  /** What the input's members said that could not be trusted (repeated
   *  ids, a writer's hint they disagree with: mxn_structure_warnings()),
   *  one a line, the same on every rank; "" when none. A tool says it
   *  once (mxn prints "warning: ..." on stderr). */
  char warnings[2 * MXN_ERRMSG_LEN];
} mxn_form_report_t;

typedef struct mxn_form_opts {
  int int64;                /**< write 64-bit ids (also automatic when the input has them) */
  int64_t gap;              /**< read coalescing gap in entries; <0 = default */
  double imbalance_tol;     /**< split: partitioner tolerance (0 = default) */
  mxn_file_format_t file;   /**< format and compression of the files written */
} mxn_form_opts_t;

/**
 * Join the dataset at `in` (any member or base name) into one file `out`:
 * every element, edge and face block, every set, numbered map, variable and
 * time step, entities ordered by global id, original element ids restored
 * where nem_spread recorded them.
 * \return MXN_OK or an error with detail in `err`. Local; MPI not needed.
 */
int mxn_join(const char *in, const char *out, const mxn_form_opts_t *opts,
             mxn_form_report_t *report, mxn_error_t *err);

/**
 * Split the dataset at `in` into `nparts` files `outbase.M.j` (j zero-padded
 * to the width of M, as nem_spread does), each with global id maps and
 * Nemesis metadata (global counts, internal/border node and element maps,
 * node communication maps). Elements are assigned with `method` on
 * MPI_COMM_SELF (MPI must be initialized for the Zoltan methods); edges and
 * faces go with the elements that refer to them. Nodes, edges and faces no
 * element refers to are kept too: an edge or face goes to the part of an
 * element sharing its first node (else part 0), a node to part 0.
 * \return MXN_OK or an error with detail in `err`. Local.
 */
int mxn_split(const char *in, const char *outbase, int nparts,
              mxn_part_method method, const mxn_form_opts_t *opts,
              mxn_form_report_t *report, mxn_error_t *err);

/** Name of member j of an M-file set: "base.M.j" with j padded to the width of M.
 *  Writes at most `cap` bytes. Local. */
void mxn_member_name(const char *base, int M, int j, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* MXN_FORMS_H */
