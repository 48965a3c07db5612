/* Private to the partitioners (partition.c, part_string.c): their status
 * agreement, whose messages name mxn_partition's method, and an allocation
 * that notes its failure instead of jumping past the next agreement. */
#ifndef MXN_PART_AGREE_H
#define MXN_PART_AGREE_H

#include "comm.h"
#include "internal.h"

#include <mpi.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Agreement over the communicator                                     */

/* Tell a rank whose own status differs from the agreed one why it fails. */
static inline void mxn__note_other(mxn_error_t *err, int mine, int all, const char *method) {
  if (!err || all == mine) return;
  if (mine == MXN_OK) {
    mxn_error_set(err, all, "mxn_partition(%s): %s on another rank", method,
                  mxn_strerror(all));
  } else {
    char own[MXN_ERRMSG_LEN];
    snprintf(own, sizeof own, "%s", err->msg);
    mxn_error_set(err, all, "mxn_partition(%s): %s on another rank; here: %s", method,
                  mxn_strerror(all), own);
  }
}

/* All ranks leave with the most negative status any rank had. Called
 * before every collective that follows a step which may fail on one rank
 * only (allocation, checks), so no rank waits for one that has left. */
static inline int mxn__agree(MPI_Comm comm, int status, mxn_error_t *err,
                      const char *method) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (status != MXN_OK && err && err->msg[0] == '\0')
    mxn_error_set(err, status, "mxn_partition(%s): %s on rank %d", method,
                  mxn_strerror(status), rank);
  const int all = mxn__worst(comm, status); /* MXN_ERR_MPI when it fails */
  mxn__note_other(err, status, all, method);
  return all;
}

/* calloc of n >= 0 items that records MXN_ERR_NOMEM in *status instead of
 * jumping away, so a failing rank still reaches the next mxn__agree. */
static inline void *calloc_noted(int64_t n, size_t size, int *status) {
  void *p = mxn__calloc(n > 0 ? (size_t)n : 1, size);
  if (!p) *status = MXN_ERR_NOMEM;
  return p;
}

#endif /* MXN_PART_AGREE_H */
