/* Private: the directory's ids stored in several members (directory.c),
 * which the id trust of an open (structure/ids.c) tells apart as one
 * element stored twice or one id given to several elements. */
#ifndef MXN_PARTITION_REPEATS_H
#define MXN_PARTITION_REPEATS_H

#include "internal.h"
#include "mxn/directory.h"

/* A copy of an element id: member `file` stores it at position `pos`. */
typedef struct {
  mxn_gid_t id;
  int64_t pos;
  int32_t file, pad;
} mxn__copy_t;

/* The entries of this rank's share of the directory whose id is stored in
 * two or more members, sorted by id (*out malloc'ed, *n of them). Local. */
int mxn__directory_repeats(const mxn_directory_t *d, mxn__copy_t **out, int64_t *n);

#endif /* MXN_PARTITION_REPEATS_H */
