/* Private declarations shared by the core's modules (not installed). */
#ifndef MXN_INTERNAL_H
#define MXN_INTERNAL_H

#include "mxn/mxn.h"

#include <stdlib.h>
#include <string.h>

/* Run `expr`; on a non-OK status jump to the function's single cleanup
 * label `done` with `status` set. */
#define MXN_CHECK(expr)                \
  do {                                 \
    status = (expr);                   \
    if (status != MXN_OK) goto done;   \
  } while (0)

/* Allocate n elements of *ptr's type (n may be 0: returns a valid pointer). */
#define MXN_ALLOC(ptr, n)                                                   \
  do {                                                                      \
    (ptr) = calloc((size_t)(n) > 0 ? (size_t)(n) : 1, sizeof *(ptr));       \
    if (!(ptr)) {                                                           \
      status = MXN_ERR_NOMEM;                                               \
      goto done;                                                            \
    }                                                                       \
  } while (0)

/* Files kept open at once, so sets of thousands of members stay under the
 * default `ulimit -n`. */
#define MXN__MAX_OPEN_FILES 64

/* What the dataset knows of one member file. */
typedef struct mxn__file {
  char *path;
  int exoid;               /* -1 while closed */
  uint64_t last_use;       /* for closing the least recently used */
  int64_t num_nodes, num_elems;
  int nblk;                /* blocks the file declares */
  int *blk_of_file;        /* file block k -> structure block */
  int64_t *blk_count;      /* per structure block */
  int64_t *blk_start;      /* per structure block */
  int *blk_present;        /* per structure block */
  int64_t *ns_count, *ns_df; /* per structure node set (0 if absent) */
  int64_t *ss_count, *ss_df; /* per structure side set */
  int *elem_truth;         /* structure blocks x elem vars */
  int has_node_map, has_elem_map;
  int orig_map_id;         /* id of original_global_id_map, or 0 */
  int have_orig_map;
  mxn_file_domain_t *dom;  /* loaded on demand */
} mxn__file_t;

struct mxn_dataset {
  mxn_error_t err;
  mxn_structure_t s;
  int nfiles;
  mxn__file_t *files;
  uint64_t use_clock;
  int open_count;
  mxn_io_counters_t io;
  int opened;
  int vars_from[3];        /* member that defined nodal/element/global names */
};

/* Exodus id of member j, opening it if needed (LRU-capped). */
int mxn__file_exoid(mxn_dataset_t *ds, int j, int *exoid);

/* Record an error in the dataset and return it. */
#define MXN_DS_ERR(ds, code, ...) mxn_error_set(&(ds)->err, (code), __VA_ARGS__)

/* Position of the first element >= v in sorted a[0..n). */
int64_t mxn__lower_bound(const int64_t *a, int64_t n, int64_t v);

/* Free a file domain's members and the struct. */
void mxn__file_domain_free(mxn_file_domain_t *d);

/* Number of nodes on side `side` (1-based) of an element of type `type`
 * with `npe` nodes, or -1 when the type or side is unknown. */
int mxn__side_node_count(const char *type, int npe, int side);

#endif /* MXN_INTERNAL_H */
