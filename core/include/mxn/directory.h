/**
 * \file directory.h
 * A distributed directory of file domains: global id → every (file, file
 * position) holding it, spread over the ranks of a communicator by a hash
 * of the id (a rendezvous), so that no rank holds entries for the whole
 * mesh (core/README.md, the load's phases).
 *
 * Each file's id map is published by the one rank that read it; any rank
 * then asks for the ids it needs. Only ids travel, never bulk data.
 * All calls are collective over the communicator given at creation and
 * return the same status on every rank.
 */
#ifndef MXN_DIRECTORY_H
#define MXN_DIRECTORY_H

#include <mpi.h>

#include "mxn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque directory handle. */
typedef struct mxn_directory mxn_directory_t;

/**
 * Publish this rank's entries: entry k says global id `ids[k]` is at
 * position `pos[k]` (0-based) of file `file[k]`. An id may appear in
 * several files (shared nodes, overlapping members) and on several ranks.
 * \param [in]  comm  communicator (duplicated; collective)
 * \param [in]  n     local entries (>= 0; arrays may be NULL when 0)
 * \param [out] dir   the directory; free with mxn_directory_destroy()
 * \param [out] err   detail on failure; may be NULL
 * \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM, MXN_ERR_MPI (same on every rank).
 */
int mxn_directory_create(MPI_Comm comm, int64_t n, const mxn_gid_t *ids,
                         const int32_t *file, const int64_t *pos,
                         mxn_directory_t **dir, mxn_error_t *err);

/**
 * Look up `n` ids (any order, repeats allowed). For query k, its entries
 * are file[off[k] .. off[k+1]) and pos[...], ordered by file then position;
 * an id nobody published has none.
 * \param [out] off   malloc'ed n+1 offsets (caller frees)
 * \param [out] file  malloc'ed off[n] file indices (caller frees)
 * \param [out] pos   malloc'ed off[n] positions (caller frees)
 * \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM, MXN_ERR_MPI. Collective.
 */
int mxn_directory_query(mxn_directory_t *dir, int64_t n, const mxn_gid_t *ids,
                        int64_t **off, int32_t **file, int64_t **pos,
                        mxn_error_t *err);

/** Entries this rank stores for the directory (its share). Local. */
int64_t mxn_directory_local_size(const mxn_directory_t *dir);

/** Distinct ids over all ranks' shares, and the smallest id stored by more
 *  than one file (*dup_id = -1, files -1 when none) with the first two of
 *  its files. Collective. Used to check the count a file set declares
 *  (Nemesis global counts) against what its members hold. */
int mxn_directory_distinct(mxn_directory_t *dir, int64_t *distinct, mxn_gid_t *dup_id,
                           int32_t *dup_file_a, int32_t *dup_file_b, mxn_error_t *err);

/** Free the directory and set *dir = NULL. Accepts NULL. Local. */
void mxn_directory_destroy(mxn_directory_t **dir);

/** Home rank of an id in a communicator of `size` ranks. Local. */
int mxn_directory_home(mxn_gid_t id, int size);

/**
 * Agree on a status over `comm`: every rank returns the smallest (most
 * negative) status any rank passed, and `err` (if not NULL) receives the
 * message of the lowest rank that failed with it, so every rank reports
 * the same error. Collective.
 */
int mxn_agree(MPI_Comm comm, int status, mxn_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* MXN_DIRECTORY_H */
