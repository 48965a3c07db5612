/* Private to the core: the greedy cover's variant for the load and the
 * read (cover.c). */
#ifndef MXN_PARTITION_GREEDY_H
#define MXN_PARTITION_GREEDY_H

#include "internal.h"

/* mxn_cover_greedy, where ids 0 leaves the parts' E.ids unbuilt (NULL;
 * E.n, MF and MP are set), for callers that use the positions or the
 * files alone: gathering the ids from P's scattered positions is a
 * random walk over P, as costly as the greedy loop's own work. */
int mxn__cover_greedy(const mxn_idset_t *P, const mxn_idset_t *F, int nfiles, int ids,
                      mxn_cover_t *out);

#endif /* MXN_PARTITION_GREEDY_H */
