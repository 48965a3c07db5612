/* Private: the spread-set name rule of discover.c, for the series'
 * directory scan (series.c), which sorts the names beside a segment into
 * plain files and spread members by the same rule as an open. */
#ifndef MXN_DISCOVER_H
#define MXN_DISCOVER_H

#include <stddef.h>

/* Whether file name `name` is a spread member `base.M.r` (M and r decimal,
 * r of any width): then 1, with the base's length, M, r and r's width. */
int mxn__spread_name(const char *name, size_t *base_len, long *M, long *rank, int *width);

#endif /* MXN_DISCOVER_H */
