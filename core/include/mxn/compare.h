/**
 * \file compare.h
 * Compare two datasets by global ids (what `mxn diff` does): coordinates per
 * node id; element, edge and face blocks (ids, connectivity as node ids,
 * element->edge/face connectivity as edge/face ids, attributes); node,
 * side, edge, face and element sets as sets of ids with sides or
 * orientations and distribution factors; numbered maps per entity, matched
 * by name; every variable (nodal, element, edge, face, set, global) at
 * every step. Truth tables count only through the values: a variable
 * defined on a block or set in one dataset and not in the other differs.
 * Entity order, file count and id-map storage do not matter. Local.
 */
#ifndef MXN_COMPARE_H
#define MXN_COMPARE_H

#include "mxn/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mxn_compare_opts {
  double abs_tol;           /**< |a-b| <= abs_tol + rel_tol*max(|a|,|b|); 0,0 = exact */
  double rel_tol;
  int match_blocks_by_type; /**< pair non-empty blocks by element type, not id */
  int common_only;          /**< compare only variables and sets both hold */
  int ignore_ids_offset;    /**< compare ids after subtracting each side's minimum
                                 (0-based vs 1-based writers) */
  int max_report;           /**< differences listed (0 = 20) */
} mxn_compare_opts_t;

/**
 * Compare dataset `a` with dataset `b` (paths as for mxn_dataset_open()).
 * \param [out] report  malloc'ed text listing differences and what was
 *                      skipped (caller frees); may be NULL
 * \return MXN_OK when equal, MXN_ERR_DIFFERENT when not, other errors when
 *   a dataset cannot be read (detail in err).
 */
int mxn_compare(const char *a, const char *b, const mxn_compare_opts_t *opts,
                char **report, mxn_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* MXN_COMPARE_H */
