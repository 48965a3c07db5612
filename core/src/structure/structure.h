/* Private to the core: the dataset's structure (structure/): an open's
 * steps (summaries, merge, finish), member records rebuilt on first use,
 * whether the id maps are trusted, the file domains. */
#ifndef MXN_STRUCTURE_H
#define MXN_STRUCTURE_H

#include "io/store.h"

/* Settle whether members fbeg..fend-1's id maps (all members' when serial)
 * are trusted: their domains read, repeated ids agreed, the shared-node
 * check run, and the fallbacks chosen (s.id_fallback, s.id_warning).
 * comm MPI_COMM_NULL: serial, over all members. Collective otherwise;
 * errors agreed. A settled dataset returns at once. */
int mxn__ids_settle(MPI_Comm comm, mxn_dataset_t *ds, int fbeg, int fend, mxn_error_t *err);
/* Element ids repeated across members (`id` in `file`, also in `other`,
 * `why` the copies are not one element): numbered by member and position
 * from now on, said in s.id_warning, the domains dropped to be read again
 * (ids.c). Local; the callers agree. */
void mxn__ids_elems_repeated(mxn_dataset_t *ds, int file, int other, int64_t id, const char *why);
/* The members hold `distinct` element ids where their Nemesis global
 * count (a writer's hint) says another number: said in s.hint_warning
 * (the first such disagreement only), and the count set to what the
 * members hold (ids.c). Local; the callers pass the same on every rank. */
void mxn__hint_elements(mxn_dataset_t *ds, int64_t distinct);
/* Any other writer's hint the members do not bear out (a set's count of
 * distribution factors): said in s.hint_warning, printf-style, unless an
 * earlier disagreement is said there already (ids.c). Local: only the
 * rank that reads the member knows. */
void mxn__hint(mxn_dataset_t *ds, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Node ids from coordinates on the settled grid (ids.c), n nodes. */
void mxn__ids_from_coords(const mxn_dataset_t *ds, int64_t n, double *const xyz[3],
                          mxn_gid_t *out);

/* Member j open for reads (through netCDF, capped), its record made first
 * where not held (records.c): the member, or NULL with the error set and
 * *status. Opened in netCDF's share mode, as
 * Exodus 6.02 opens files for reading: each read goes to the file, and a
 * strided read (nc_get_vars) makes one read call per entry. */
mxn__file_t *mxn__file_open(mxn_dataset_t *ds, int j, int *status);
/* Member j's record: the one held, or else rebuilt from its header (opened,
 * summarised, merged into the settled structure and indexed) and held from
 * then on; NULL with the error in ds->err (naming the member) if it cannot
 * be (records.c). */
mxn__file_t *mxn__file(mxn_dataset_t *ds, int j);
/* An open in three steps (dataset.c, serial or collective): find the
 * members (discover.c); summarize some of them (summary.c: member j's
 * header as a byte stream holding its error if it cannot be read; skip:
 * a stream saying it was not read; *buf is malloc'd); merge every
 * member's summary, in order, into the structure (merge.c: all at once,
 * or member by member and then mxn__dataset_finish, which indexes the
 * members or names `path` in the error). */
int mxn__member_summary(mxn_dataset_t *ds, int j, int skip, char **buf, size_t *len);
int mxn__dataset_merge(mxn_dataset_t *ds, char *const *bufs, const size_t *lens);
int mxn__member_merge(mxn_dataset_t *ds, int j, const char *buf, size_t len);
int mxn__dataset_finish(mxn_dataset_t *ds, int status, const char *path);
/* mxn_dataset_open_collective() with the error in *e and no argument
 * check: the load's own open (dataset.c). Collective; errors agreed. */
int mxn__dataset_open_members(MPI_Comm comm, mxn_dataset_t *ds, const char *path, mxn_error_t *e);
/* What an open that failed while merging members leaves (merge.c). */
void mxn__merging_free(mxn_dataset_t *ds);
/* Member j's per-member index once the structure is known (merge.c: its
 * variables' positions, truth rows by the dataset's variables, spans sorted). */
int mxn__member_index(mxn_dataset_t *ds, int j);
/* Free every member's id maps and positions (file domains); a later
 * mxn_dataset_file_domain() reads them again. */
void mxn__dataset_drop_domains(mxn_dataset_t *ds);
/* Member j's prefix sums of the per-entry counts of poly block b of kind
 * k (read once, cached in its record; records.c). */
int mxn__poly_offsets(mxn_dataset_t *ds, int j, int k, int b, const int64_t **off);

/* The summaries' and the merge's state of a new dataset (ds->mg;
 * MXN_ERR_NOMEM), freed with it, and its bytes (merge.c). */
int mxn__merge_state_new(mxn_dataset_t *ds);
void mxn__merge_state_free(mxn_dataset_t *ds);
size_t mxn__merge_state_bytes(const mxn_dataset_t *ds);

#endif /* MXN_STRUCTURE_H */
