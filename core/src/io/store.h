/* Private to the core: the member store (io/). The dataset handle, its
 * member records held in pages (files.c), the cache of open members under
 * the open-file caps, the reads by netCDF name (member.c), the members'
 * paths (files.c, discover.c) and the arena of their small arrays
 * (arena.c). The stages above reach members through the functions here. */
#ifndef MXN_IO_STORE_H
#define MXN_IO_STORE_H

#include "internal.h"
#include "io/exo_names.h"
#include "io/records.h"

/* Most member files kept open at once (one netCDF id each); the actual
 * cap also stays under half of `ulimit -n`, so sets of thousands of
 * members open fine. A member beyond the cap is closed and opened again
 * on each pass over the set, so a low cap opens a large set's members
 * many times over. */
#define MXN__MAX_OPEN_FILES 4096

/* Most netCDF-4 members kept open at once, within that cap. An open HDF5
 * file holds its metadata cache (a fixed table, and the object headers
 * and chunk indexes it has read), however little is read from it, and
 * HDF5 opens one again cheaply. */
#define MXN__MAX_OPEN_H5 32

/* Whether a dataset's id maps are trusted, and the fallbacks when not
 * (ids.c): settled once, before the first file domain is used. */
typedef struct mxn__ids {
  int state;               /* MXN__IDS_UNSETTLED, _SETTLING, _SETTLED */
  int probe;               /* the shared-node check notes a conflict, not refuses */
  int nodes_checked;       /* the shared-node check has run (settle did it) */
  int dup_file[MXN__NEK];  /* lowest member repeating an id of kind e, or -1 */
  int64_t dup_id[MXN__NEK];
  int conflict_file;       /* node id at different points: the later member, or -1 */
  int conflict_other;      /* ... and the earlier one */
  int64_t conflict_id;
  double lo[3], h;         /* the grid of coordinate node ids */
} mxn__ids_t;
enum { MXN__IDS_UNSETTLED = 0, MXN__IDS_SETTLING, MXN__IDS_SETTLED };
/* The grid of coordinate node ids: steps per axis (three axes' indices
 * fit one positive 64-bit id). */
#define MXN__ID_GRID_BITS 21
#define MXN__ID_GRID_N ((int64_t)1 << MXN__ID_GRID_BITS)

/* The member store (io/): the member records in pages, how members are
 * named and their paths, the members open under the open-file caps, the
 * state the reads share, and the arena of the records' small arrays. Only
 * io/ touches these fields; the stages above go through the functions of
 * this header (records: mxn__file_held, mxn__file_set, mxn__record_*;
 * paths: mxn__path*; opens: mxn__member_*, mxn__members_keep; reads:
 * mxn__m_*, mxn__store_keep_reads; the whole: mxn__store_*). */
typedef struct mxn__store {
  /* Member records, NULL where not held: a serial open holds every
   * member's; a collective open only those of the members the rank
   * summarised, and others are rebuilt from their headers on first use
   * (mxn__file, structure/records.c). In pages of MXN__FPAGE members, made
   * where a member of the page is held (mxn__file_held, mxn__file_set): a
   * rank keeps a pointer per page, not per member, for members it never
   * uses. */
  mxn__file_t ***fpages;
  /* How members are named (discover.c): name_base.M.j, j zero-padded to
   * name_width digits; name_width < 0: one member, name_base itself. */
  char *name_base;
  int name_width;
  /* The members an open reads (mxn_dataset_select_members), and what
   * discover.c made of it: the set's M by its names (set_M), and the rank
   * (in the names) of each of the nfiles members opened, NULL when every
   * member is (member j is rank j). */
  mxn_member_select_t sel;
  int set_M;
  int *member_rank;
  /* Paths of members without a record (mxn_dataset_file_path): a ring,
   * so a message naming two members has both. */
  char *path_ring[4];
  int path_next;
  char *path0;             /* member 0's, kept: callers name the dataset by it */
  uint64_t use_clock;
  int open_count;
  int h5_open_count;       /* of those, netCDF-4 members (HDF5 handles) */
  int max_open;            /* open-file cap, from RLIMIT_NOFILE */
  int max_open_h5;         /* netCDF-4 members' cap (MXN__MAX_OPEN_H5) */
  mxn__reads_t reads;
  /* The members' small arrays (blocks, sets, truth tables, map ids: the
   * merge and index_members make two dozen a member on every rank), carved
   * from chunks mxn_dataset_destroy frees together (arena.c). */
  struct mxn__chunk *arena;
  size_t arena_used, arena_cap; /* bytes of the newest chunk */
} mxn__store_t;

/* The dataset handle: its error, its structure, the member store, and
 * what the stages above keep of it. The merge's own state is apart, behind
 * `mg` (structure/merge.c). */
struct mxn_dataset {
  mxn_error_t err;
  mxn_structure_t s;
  int nfiles;
  int opened;
  mxn_io_counters_t io;
  mxn__store_t st;         /* io/ alone touches its fields */
  /* Member 0's global variables at every step, [step * glob_nvars + v],
   * read with its summary (NULL when there are none or too many to keep):
   * a time step then needs no rank to open member 0 for them. */
  double *glob_vals;
  int glob_nvars;
  int nodal_min;           /* fewest nodal variables a member lists */
  mxn__ids_t ids;          /* whether the id maps are trusted (ids.c) */
  /* The summaries' and the merge's state (structure/merge.c): what they
   * keep while an open works and for records rebuilt later. */
  struct mxn__merge_state *mg;
};

/* The store of a new dataset: its open-file caps set (the rest zero);
 * everything it holds freed (records closed first); the bytes of its
 * record pointers, names and records held (files.c). */
void mxn__store_init(mxn_dataset_t *ds);
void mxn__store_free(mxn_dataset_t *ds);
size_t mxn__store_bytes(const mxn_dataset_t *ds);
/* The set's M by its members' names, and whether members are named by
 * their rank in the set (some members of a set chosen). */
int mxn__store_set_m(const mxn_dataset_t *ds);
int mxn__store_ranks_named(const mxn_dataset_t *ds);
/* Record f reads through the dataset's shared read state. */
void mxn__store_attach(mxn_dataset_t *ds, mxn__file_t *f);
/* mxn__reads_keep and mxn__reads_drop on the dataset's read state, and
 * whether it keeps boxes now. */
void mxn__store_keep_reads(mxn_dataset_t *ds, int on);
void mxn__store_drop_reads(mxn_dataset_t *ds);
int mxn__store_keeping(const mxn_dataset_t *ds);

/* The same for a member whose record is held (member.c: what the
 * summaries open), never rebuilding one. */
mxn__file_t *mxn__member_open(mxn_dataset_t *ds, int j, int *status);
/* Member j's record if held, else NULL (nothing read): for facts only held
 * members can have (an open handle, a domain read). */
#define MXN__FPAGE_BITS 6
#define MXN__FPAGE (1 << MXN__FPAGE_BITS)
static inline int mxn__fpage_count(const mxn_dataset_t *ds) {
  return (ds->nfiles + MXN__FPAGE - 1) >> MXN__FPAGE_BITS;
}
static inline mxn__file_t *mxn__file_held(const mxn_dataset_t *ds, int j) {
  mxn__file_t **pg = ds->st.fpages[j >> MXN__FPAGE_BITS];
  return pg ? pg[j & (MXN__FPAGE - 1)] : NULL;
}
static inline const mxn_file_domain_t *mxn__file_dom(const mxn_dataset_t *ds, int j) {
  const mxn__file_t *f = mxn__file_held(ds, j);
  return f ? f->dom : NULL;
}
/* Hold f (NULL: none) as member j's record; MXN_ERR_NOMEM if its page
 * cannot be made (files.c). */
int mxn__file_set(mxn_dataset_t *ds, int j, mxn__file_t *f);
/* A new record held for member j (mxn__record_new); MXN_ERR_NOMEM. */
int mxn__record_hold(mxn_dataset_t *ds, int j);
/* Member j's path (files.c): its record's where held, else made from
 * the naming pattern into the dataset's ring of paths (valid until four
 * more are made). */
const char *mxn__path(mxn_dataset_t *ds, int j);
/* Member j's path made from the pattern into out (cap bytes), or malloc'd;
 * the path of the set's member of rank `rank` (its name's last number),
 * chosen by the selection or not. */
void mxn__path_make(const mxn_dataset_t *ds, int j, char *out, size_t cap);
void mxn__path_of_rank(const mxn_dataset_t *ds, long rank, char *out, size_t cap);
char *mxn__path_dup(const mxn_dataset_t *ds, int j);
/* A new record for member j, its path made from the pattern (NULL: out of
 * memory; files.c), and one freed with what it holds (closed first;
 * member.c). */
mxn__file_t *mxn__record_new(mxn_dataset_t *ds, int j);
void mxn__record_free(mxn_dataset_t *ds, mxn__file_t *f);
/* Reads by netCDF variable of an open member: its id for `name` (-1 if
 * absent), its dimension count and lengths, and values at start/count
 * (stride NULL: 1) as double ('d'), int64 ('l') or text ('c'), through
 * nc_get_vars_*; 0 on success. */
int mxn__m_var(const mxn__file_t *f, const char *name);
/* Length of dimension `name` of open netCDF file ncid into *len: 1 if
 * it has one, else 0 and *len 0 (a missing count is 0 to Exodus). */
int mxn__nc_dimlen(int ncid, const char *name, int64_t *len);
/* The same for open member f, by its name index where it has one. */
int mxn__m_dim(const mxn__file_t *f, const char *name, int64_t *len);
/* Free member f's name index (what its first open built for the checks
 * and the summary's lookups; later lookups ask netCDF). */
void mxn__m_names_drop(mxn__file_t *f);
/* Member f's summary is read: its name index is freed, and a netCDF-4
 * member closes the datasets its header was read from (those a step
 * reads open again as they are read). */
void mxn__m_header_done(mxn__file_t *f);
/* fn(name, data) for each variable of open member f whose name starts
 * with prefix (netCDF: in id order; netCDF-4 read through HDF5: in name
 * order), until it returns nonzero (then that value); 0 when all were
 * seen, -1 when the member's variables cannot be listed. */
int mxn__m_each_var(const mxn__file_t *f, const char *prefix,
                    int (*fn)(const char *name, void *data), void *data);
int mxn__m_ndims(const mxn__file_t *f, int v);
int64_t mxn__m_dimlen(const mxn__file_t *f, int v, int d);
int mxn__m_get(const mxn__file_t *f, int v, const size_t *start, const size_t *count,
               const ptrdiff_t *stride, void *out, char as);
/* The same read as it is asked (no box of whole chunks kept: the
 * summary's reads of the header's small variables); -1 also for v < 0. */
int mxn__m_read(const mxn__file_t *f, int v, const size_t *start, const size_t *count,
                void *out, char as);
/* Keep each box read from now on besides the recent ones (on 1), up to
 * MXN__KEPT_BOXES bytes, or stop adding to them (0); reads inside a kept
 * box copy from it until mxn__reads_drop frees them all, the recent
 * ones too. Boxes are by member number and variable id, the same from one
 * open of a member to the next (a netCDF-4 member's ids are its record's
 * names). */
#define MXN__KEPT_BOXES ((size_t)32 << 20)
void mxn__reads_keep(mxn__reads_t *rd, int on);
void mxn__reads_drop(mxn__reads_t *rd);
/* A dataset's read state before its first read: no box held. */
void mxn__reads_init(mxn__reads_t *rd, mxn_io_counters_t *io);
/* Attribute `name` of variable v (NC_GLOBAL: a global one): its netCDF
 * length (0, or -1 where there is none) and its values as text ('c', len
 * bytes, not terminated), double ('d') or int64 ('l'; 0 on success). */
int mxn__m_att_len(const mxn__file_t *f, int v, const char *name, size_t *len);
int mxn__m_att_get(const mxn__file_t *f, int v, const char *name, void *out, char as);
/* Rows start..start+count-1 of member f's variable named `fmt` with q
 * (as printf: Exodus numbers a block's, set's or map's variables by its
 * position in the member), whose rows hold `width` values (a
 * one-dimensional variable: width 1), as 'l' or 'd' into out: what
 * ex_get_partial_conn, _attr, _num_map, ex_get_set and the id maps read.
 * 0 on success. */
int mxn__m_rows(const mxn__file_t *f, const char *fmt, int q, int64_t start, int64_t count,
                int64_t width, void *out, char as);
/* Coordinates first, first + stride, ... (n of them, 0-based) of member
 * f's nodes into xyz[0..nd-1], whether it stores them as coordx/y/z or
 * as one coord variable (as ex_get_partial_coord); 0 on success. */
int mxn__m_coords(const mxn__file_t *f, int nd, int64_t first, int64_t n, int64_t stride,
                  double *xyz[3]);
/* A variable or dimension name numbered q: fmt with its first "%d"
 * replaced by q's decimal digits, every other character as it is, into
 * out (cap > 0 bytes, always terminated, cut short like snprintf). Names
 * of blocks, sets and maps are made this way dozens of times a member,
 * where snprintf's own parsing cost more than the lookup the name was
 * for. */
void mxn__name_d(char *out, size_t cap, const char *fmt, long long q);
/* Members still open from earlier reads are checked again before a later
 * time step is read: a member cut short since it was opened would read as
 * zeros (netCDF-3 pads reads past the end), so refuse it, naming it. A
 * member deleted while open is still read through its open handle. */
int mxn__files_recheck(mxn_dataset_t *ds, int step);

/* Find the members of the dataset named `path` (discover.c: the first of
 * an open's steps, structure/structure.h). */
int mxn__dataset_discover(mxn_dataset_t *ds, const char *path);
/* Close member f where it is open (member.c). */
void mxn__member_close(mxn_dataset_t *ds, mxn__file_t *f);
/* Members kept open only while needed (member.c): close every open member
 * j with !need[j], and with `hdf5` every one
 * read through HDF5 (netCDF-4). An open HDF5 file holds its metadata
 * cache however little was read, and HDF5 opens one again cheaply, so
 * closing them lowers a rank's peak without slowing the steps; their
 * freed blocks go back to the heap (mxn__h5_release). */
void mxn__members_keep(mxn_dataset_t *ds, const char *need, int hdf5);
/* n zeroed elements of `size` from the dataset's arena (arena.c), each
 * array 16-byte aligned, freed only with the dataset (mxn__arena_free);
 * NULL out of memory. */
void *mxn__arena_calloc(mxn_dataset_t *ds, size_t n, size_t size);
void mxn__arena_free(mxn_dataset_t *ds);
/* An arena set aside: the merge gives a member whose record it does not
 * keep an arena of its own (swapped in and out), freed with the record. */
typedef struct mxn__arena_state {
  struct mxn__chunk *arena;
  size_t used, cap;
} mxn__arena_state_t;
void mxn__arena_swap(mxn_dataset_t *ds, mxn__arena_state_t *other);
void mxn__arena_release(mxn__arena_state_t *a);
/* Empty it for reuse: its newest chunk kept (zeroed where used), the
 * others freed. */
void mxn__arena_reset(mxn__arena_state_t *a);
/* Bytes of the arena's chunks, headers and unused room included (arena.c),
 * and of all the header metadata the dataset holds (dataset.c: what
 * mxn_load_stats_t.metadata_bytes reports). */
size_t mxn__arena_bytes(const mxn_dataset_t *ds);
int64_t mxn__dataset_metadata_bytes(const mxn_dataset_t *ds);


#endif /* MXN_IO_STORE_H */
