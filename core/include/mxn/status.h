/**
 * \file status.h
 * Status codes returned by every libmxn call, and the common index types.
 *
 * Every function of the core returns an `int` status: MXN_OK (0) on success,
 * a negative `mxn_status` on failure. The core never prints, aborts or exits;
 * the detailed message (file name, block id, rank) is kept in the handle the
 * call worked on (e.g. mxn_dataset_errmsg()).
 */
#ifndef MXN_STATUS_H
#define MXN_STATUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Global ids (element, node, set member): 64-bit everywhere. */
typedef int64_t mxn_gid_t;

/** Status codes. Keep in step with the table in src/status.c. */
typedef enum mxn_status {
  MXN_OK = 0,
  MXN_ERR_ARG = -1,         /**< invalid argument (NULL, out of range) */
  MXN_ERR_NOMEM = -2,       /**< allocation failed */
  MXN_ERR_IO = -3,          /**< a file could not be opened, read or written */
  MXN_ERR_FORMAT = -4,      /**< not an Exodus II file, or malformed content */
  MXN_ERR_FILESET = -5,     /**< spread file set incomplete or inconsistent */
  MXN_ERR_NOMAP = -6,       /**< a spread set member has no global id maps */
  MXN_ERR_INCONSISTENT = -7,/**< members disagree (block type, ids, sizes) */
  MXN_ERR_NOTFOUND = -8,    /**< a wanted id is in no file of the set */
  MXN_ERR_UNSUPPORTED = -9, /**< valid input this version cannot handle */
  MXN_ERR_PARTITION = -10,  /**< the partitioner failed */
  MXN_ERR_MPI = -11,        /**< an MPI call failed */
  MXN_ERR_DIFFERENT = -12   /**< a comparison found differences */
} mxn_status;

/** Longest detailed message kept by a handle, including the NUL. */
#define MXN_ERRMSG_LEN 1024

/**
 * A detailed error: the status and a message naming the file, block or rank.
 * Handles embed one; calls that work without a handle take a pointer to one
 * (which may be NULL when the caller does not want the text).
 */
typedef struct mxn_error {
  int status;                 /**< last failing status, MXN_OK if none */
  char msg[MXN_ERRMSG_LEN];   /**< human-readable detail, "" if none */
} mxn_error_t;

/**
 * Record an error in `err` (if not NULL) with a printf-style message and
 * return `status`, so callers can write `return mxn_error_set(e, MXN_ERR_IO, ...)`.
 * Local.
 */
int mxn_error_set(mxn_error_t *err, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Reset `err` to no error. Accepts NULL. Local. */
void mxn_error_clear(mxn_error_t *err);

/** Short fixed description of a status code (never NULL). Local. */
const char *mxn_strerror(int status);

#ifdef __cplusplus
}
#endif
#endif /* MXN_STATUS_H */
