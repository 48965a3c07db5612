/* Copying a written netCDF file into netCDF-4 (HDF5) with the writer's
 * chunking and compression (nc4copy.c). Private to the writer. */
#ifndef MXN_NC4COPY_H
#define MXN_NC4COPY_H

#include "mxn/status.h"

/* Copy every dimension, attribute and variable of the netCDF file `from`
 * into a new netCDF-4 file `to` (replaced if present), compressed with
 * deflate level `level` (0-9, 0 = none) and shuffle. On failure `to` is
 * removed. Returns MXN_OK, MXN_ERR_IO (naming the file and variable) or
 * MXN_ERR_NOMEM. */
int mxn__nc4_copy(const char *from, const char *to, int level, mxn_error_t *err);

#endif /* MXN_NC4COPY_H */
