/* Private declarations shared by the core's modules (not installed). */
#ifndef MXN_INTERNAL_H
#define MXN_INTERNAL_H

#include "mxn/mxn.h"
#include "alloc.h"

#include <exodusII.h>

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Run `expr`; on a non-OK status jump to `label` with `status` set. The
 * _OR forms name the label: in a function with collective steps, work
 * between two steps that fails goes on to the next step (which every
 * rank calls, and which fails on all of them when one brings a failure)
 * rather than to the cleanup, where a rank alone would leave the others
 * waiting. */
#define MXN_CHECK_OR(expr, label)      \
  do {                                 \
    status = (expr);                   \
    if (status != MXN_OK) goto label;  \
  } while (0)
#define MXN_CHECK(expr) MXN_CHECK_OR(expr, done)

/* Allocate n elements of *ptr's type (n may be 0: returns a valid pointer);
 * on failure jump to `label` (MXN_ALLOC: `done`) with MXN_ERR_NOMEM. */
#define MXN_ALLOC_OR(ptr, n, label)                                         \
  do {                                                                      \
    (ptr) = mxn__calloc((size_t)(n) > 0 ? (size_t)(n) : 1, sizeof *(ptr));  \
    if (!(ptr)) {                                                           \
      status = MXN_ERR_NOMEM;                                               \
      goto label;                                                           \
    }                                                                       \
  } while (0)
#define MXN_ALLOC(ptr, n) MXN_ALLOC_OR(ptr, n, done)

/* As MXN_ALLOC(_OR), not zeroed: for arrays written before they are read
 * (a calloc from the heap clears every byte first). */
#define MXN_ALLOC_RAW_OR(ptr, n, label)                                       \
  do {                                                                        \
    (ptr) = mxn__malloc(((size_t)(n) > 0 ? (size_t)(n) : 1) * sizeof *(ptr)); \
    if (!(ptr)) {                                                             \
      status = MXN_ERR_NOMEM;                                                 \
      goto label;                                                             \
    }                                                                         \
  } while (0)
#define MXN_ALLOC_RAW(ptr, n) MXN_ALLOC_RAW_OR(ptr, n, done)

/* Free a buffer early and forget it, so a later cleanup path frees nothing
 * twice. */
#define MXN_FREE(ptr) \
  do {                \
    free(ptr);        \
    (ptr) = NULL;     \
  } while (0)

/* Most member files kept open at once (one netCDF id each); the actual
 * cap also stays under half of `ulimit -n`, so sets of thousands of
 * members open fine. A member beyond the cap is closed and opened again
 * on each pass over the set: at 256, one rank reading 1024 members opened
 * them 8,250 times. */
#define MXN__MAX_OPEN_FILES 4096

/* Most netCDF-4 members kept open at once, within that cap. An open HDF5
 * file holds its metadata cache (a 512 KB table, and the object headers
 * and chunk indexes it has read: about 1 MB a member of the 1M hex set in
 * 1024), however little is read from it; HDF5 opens one again in a
 * fraction of a millisecond. */
#define MXN__MAX_OPEN_H5 32

/* Entity kinds with global ids. The first three are organised in blocks
 * (MXN__NBK block kinds); numbered maps exist for all four. */
enum { MXN__ELEM = 0, MXN__EDGE = 1, MXN__FACE = 2, MXN__NODE = 3 };
/* The parallel load's cap on merged read gaps (mxn_extract_opts_t
 * gap_share): they may add at most 8% to the bytes a rank's piece reads,
 * over all its members and entity kinds, so bytes read stay within 1.1 of
 * those needed where a small member holds a rank's entries scattered
 * among another's. */
#define MXN__GAP_SHARE 0.08

/* Bytes read for entries: the members' id maps and sets, read whole,
 * and the coordinates that settle the ids, aside. */
static inline int64_t mxn__data_bytes(mxn_io_counters_t c) {
  return c.bytes_read - c.map_bytes_read - c.set_bytes_read - c.check_bytes_read;
}

#define MXN__NBK 3
#define MXN__NEK 4

/* Set kinds. */
enum { MXN__NSET = 0, MXN__SSET, MXN__ESET, MXN__FSET, MXN__ELSET, MXN__NSK };

/* Variable families: one name list each, merged across members. */
enum {
  MXN__V_NODAL = 0, MXN__V_ELEM, MXN__V_GLOBAL, MXN__V_EDGE, MXN__V_FACE,
  MXN__V_SET0,                       /* + set kind */
  MXN__NV = MXN__V_SET0 + MXN__NSK
};

/* Exodus entity types and words for messages, by kind. */
static const ex_entity_type mxn__blk_type[MXN__NBK] = {EX_ELEM_BLOCK, EX_EDGE_BLOCK,
                                                       EX_FACE_BLOCK};
static const char *const mxn__blk_what[MXN__NBK] = {"element", "edge", "face"};
static const ex_entity_type mxn__set_type[MXN__NSK] = {EX_NODE_SET, EX_SIDE_SET, EX_EDGE_SET,
                                                       EX_FACE_SET, EX_ELEM_SET};
static const char *const mxn__set_what[MXN__NSK] = {"node set", "side set", "edge set",
                                                    "face set", "element set"};
static const ex_entity_type mxn__map_type[MXN__NEK] = {EX_ELEM_MAP, EX_EDGE_MAP, EX_FACE_MAP,
                                                       EX_NODE_MAP};
static const char *const mxn__ent_what[MXN__NEK] = {"element", "edge", "face", "node"};

/* Where a file domain keeps entity kind e's ids: their count, the
 * file-order map, the sorted set and each set entry's file position. The
 * domain's builder (domain.c) writes through these; readers take the
 * const views below. */
typedef struct {
  int64_t *n;
  mxn_gid_t **map;
  mxn_idset_t *set;
  int64_t **pos;
} mxn__dom_kind_t;

static inline mxn__dom_kind_t mxn__dom_kind(mxn_file_domain_t *d, int e) {
  switch (e) {
    case MXN__NODE: return (mxn__dom_kind_t){&d->num_nodes, &d->node_map, &d->nodes, &d->node_pos};
    case MXN__ELEM:
      return (mxn__dom_kind_t){&d->num_elements, &d->elem_map, &d->elems, &d->elem_pos};
    case MXN__EDGE: return (mxn__dom_kind_t){&d->num_edges, &d->edge_map, &d->edges, &d->edge_pos};
    default: return (mxn__dom_kind_t){&d->num_faces, &d->face_map, &d->faces, &d->face_pos};
  }
}
/* Read-only views of the same fields. */
static inline const mxn_idset_t *mxn__dom_set(const mxn_file_domain_t *d, int e) {
  return mxn__dom_kind((mxn_file_domain_t *)d, e).set;
}
static inline const int64_t *mxn__dom_pos(const mxn_file_domain_t *d, int e) {
  return *mxn__dom_kind((mxn_file_domain_t *)d, e).pos;
}
static inline const mxn_gid_t *mxn__dom_map(const mxn_file_domain_t *d, int e) {
  return *mxn__dom_kind((mxn_file_domain_t *)d, e).map;
}
static inline int64_t mxn__dom_n(const mxn_file_domain_t *d, int e) {
  return *mxn__dom_kind((mxn_file_domain_t *)d, e).n;
}

/* One span of a member: a block holding entries there: its structure block b, its position q
 * among the blocks the member declares (0-based; Exodus numbers the
 * member's variables by q + 1), its entries, the file position of the
 * first, poly blocks' total references and, read on first use, the
 * prefix sums of their per-entry node/face counts (count + 1 values). */
typedef struct mxn__span {
  int b, q;
  int64_t count, start, conn;
  int64_t *ent_off;
} mxn__span_t;

/* One member's blocks of one kind, sparse: a member holds entries of few
 * of a model's blocks, while writers such as nem_spread declare every
 * block in every member; a table per structure block in each member would
 * make the dataset's metadata grow with members x blocks. */
typedef struct mxn__blocks {
  int64_t num;             /* entities of the kind in the file */
  int nblk;                /* blocks the file declares */
  const int *blk_of_file;  /* file block q -> structure block (members that
                              declare the same list share one array) */
  int nspan;               /* its non-empty blocks ... */
  mxn__span_t *span;       /* ... ascending by structure block */
  int in_file_order;       /* the spans ascend by file position too */
  int *truth;              /* spans x the dataset's variables of the kind
                              (by the member's own variables until indexed) */
  int has_map;             /* stores the kind's id map (elem/edge/face_num_map) */
} mxn__blocks_t;

/* One span of a member's sets: a set holding entries or factors there: its structure set q, its position k
 * among the sets the member declares, entries, distribution factors. */
typedef struct mxn__set_span {
  int q, k;
  int64_t count, df;
} mxn__set_span_t;

/* One member's sets of one kind, sparse as its blocks are. */
typedef struct mxn__sets {
  int nfile;               /* sets the file declares */
  const int64_t *ids;      /* their ids, file order (shared like blk_of_file) */
  int nspan;               /* its sets with entries or factors ... */
  mxn__set_span_t *span;   /* ... ascending by structure set */
  int *truth;              /* spans x the dataset's variables of the kind */
} mxn__sets_t;

/* The one of n records (each `size` bytes, ascending by the int at
 * `key_at` in each) whose key is `key`, NULL if none: a member's block
 * and set spans are found by structure block or set so. */
static inline void *mxn__find_by_key(const void *base, int n, size_t size, size_t key_at,
                                     int key) {
  const char *p = (const char *)base;
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, k;
    memcpy(&k, p + (size_t)mid * size + key_at, sizeof k);
    if (k == key) return (void *)(p + (size_t)mid * size);
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return NULL;
}
/* The span of structure block b in kb, NULL if the member holds no entry
 * of it. */
static inline mxn__span_t *mxn__span_of(const mxn__blocks_t *kb, int b) {
  return (mxn__span_t *)mxn__find_by_key(kb->span, kb->nspan, sizeof *kb->span,
                                         offsetof(mxn__span_t, b), b);
}
/* Entries of structure block b in the member (0 if none). */
static inline int64_t mxn__blk_count(const mxn__blocks_t *kb, int b) {
  const mxn__span_t *r = mxn__span_of(kb, b);
  return r ? r->count : 0;
}
/* File position of structure block b's first entry (0 if it has none). */
static inline int64_t mxn__blk_start(const mxn__blocks_t *kb, int b) {
  const mxn__span_t *r = mxn__span_of(kb, b);
  return r ? r->start : 0;
}
/* Whether variable v (of nv the dataset has for the kind) is stored on
 * structure block b in the member. */
static inline int mxn__blk_truth(const mxn__blocks_t *kb, int b, int nv, int v) {
  const mxn__span_t *r = mxn__span_of(kb, b);
  return r && kb->truth ? kb->truth[(int64_t)(r - kb->span) * nv + v] : 0;
}
/* The span holding file position fpos of the member's entries, or NULL. */
static inline const mxn__span_t *mxn__span_at(const mxn__blocks_t *kb, int64_t fpos) {
  if (kb->in_file_order) {
    int lo = 0, hi = kb->nspan - 1;
    while (lo <= hi) {
      int mid = (lo + hi) / 2;
      const mxn__span_t *r = &kb->span[mid];
      if (fpos < r->start) hi = mid - 1;
      else if (fpos >= r->start + r->count) lo = mid + 1;
      else return r;
    }
    return NULL;
  }
  for (int i = 0; i < kb->nspan; i++)
    if (fpos >= kb->span[i].start && fpos < kb->span[i].start + kb->span[i].count) return &kb->span[i];
  return NULL;
}
/* The span of structure set q in fs, NULL if the member has nothing of it. */
static inline const mxn__set_span_t *mxn__set_span_of(const mxn__sets_t *fs, int q) {
  return (const mxn__set_span_t *)mxn__find_by_key(fs->span, fs->nspan, sizeof *fs->span,
                                                   offsetof(mxn__set_span_t, q), q);
}
/* Whether variable v (of nv) is stored on structure set q in the member. */
static inline int mxn__set_truth(const mxn__sets_t *fs, int q, int nv, int v) {
  const mxn__set_span_t *r = mxn__set_span_of(fs, q);
  return r && fs->truth ? fs->truth[(int64_t)(r - fs->span) * nv + v] : 0;
}

/* A box: part of a chunked, compressed netCDF-4 variable read whole on
 * chunk boundaries, from which reads inside it copy instead of
 * decompressing those chunks again (member.c). */
#define MXN__BOX_DIMS 4
typedef struct mxn__box {
  int key, varid; /* its member's number and variable; key -1: none */
  char as;        /* its values' type ('d', 'l', 'c') */
  int nd;
  size_t start[MXN__BOX_DIMS], count[MXN__BOX_DIMS];
  char *buf;
  size_t cap;
  uint64_t used; /* a recent box's last use (mxn__reads_t.clock); 0: never */
} mxn__box_t;

/* The boxes of the latest reads kept, at most this many and this many
 * bytes: an extraction reads a member's runs one after another, and for
 * each run its coordinates, maps, connectivity and fields in turn, so one
 * box per variable of the member being read serves all its runs. With
 * only the last box kept, a rank reading part of a compressed member (M =
 * 4 on N = 3) decompressed its chunks 124 times over. */
#define MXN__RECENT_BOXES 16
#define MXN__RECENT_BYTES ((size_t)32 << 20)

/* The state member reads share (member.c): the counters they add to, the
 * boxes of the latest reads (recent, until mxn__reads_drop) and, while
 * `keeping` (mxn__reads_keep), every box read since, up to
 * MXN__KEPT_BOXES bytes: the shared-node check reads the coordinates of
 * the members it checks, which their reader then reads again
 * (mxn__reads_drop frees them). */
typedef struct mxn__reads {
  mxn_io_counters_t *io;
  mxn__box_t recent[MXN__RECENT_BOXES];
  uint64_t clock; /* counts the recent boxes' uses */
  struct mxn__h5_scratch *h5s; /* netCDF-4 chunk decoding's buffers (h5light.c) */
  mxn__box_t *kept;
  int nkept, kept_cap, keeping;
  size_t kept_bytes;
  /* The netCDF-3 dimensions and variables by name of one open member
   * (names_of), from its first open until mxn__m_names_drop or its close:
   * one at a time, as members are summarised (member.c). */
  struct mxn__names *names;
  const struct mxn__file *names_of;
} mxn__reads_t;

/* What the dataset knows of one member file. */
typedef struct mxn__file {
  char *path;
  int j;                   /* its number in the dataset */
  int ncid;                /* its netCDF id, -1 while closed or read through h5 */
  struct mxn__h5 *h5;      /* a netCDF-4 member's HDF5 handle (h5light.c), or NULL */
  struct mxn__h5_names *h5_names; /* its names, kept from open to open */
  int nc4;                 /* stored as netCDF-4 (HDF5) */
  mxn__reads_t *rd;        /* the dataset's shared read state */
  int64_t open_size;       /* its size in bytes when it was opened */
  int nc_checked;          /* its header passed mxn__file_open's checks, here or (a
                              collective open) on the rank that summarised it */
  uint64_t last_use;       /* for closing the least recently used */
  int64_t num_nodes;
  mxn__blocks_t kb[MXN__NBK];
  mxn__sets_t sk[MXN__NSK];
  int nmap[MXN__NEK];      /* numbered maps the file stores, per entity kind */
  int64_t *map_ids[MXN__NEK];
  int has_node_map;
  int orig_map_id;         /* id of original_global_id_map, or 0 */
  int have_orig_map;
  mxn_file_domain_t *dom;  /* loaded on demand */
  unsigned char *time_ok;  /* steps whose time was compared with member 0's
                              (a bit each; extract_step.c), or NULL */
  /* Its variables per family (MXN__V_*): members may list different ones,
   * in other orders, so they are matched by name (merge.c). nvar: how many
   * it lists; var_of[k]: the dataset's index of its k-th; var_pos[v]: its
   * own 0-based position of dataset variable v, -1 where it lacks it (set
   * once the union is known; what every read by variable number uses). */
  int nvar[MXN__NV];
  int *var_of[MXN__NV];
  int *var_pos[MXN__NV];
} mxn__file_t;

/* Member f's own position of dataset variable v of family fam, -1 if it
 * lacks it. */
static inline int mxn__var_pos(const mxn__file_t *f, int fam, int v) {
  return f->var_pos[fam] ? f->var_pos[fam][v] : -1;
}

/* Entries of entity kind e (MXN__ELEM ... MXN__NODE) member f stores. */
static inline int64_t mxn__file_count(const mxn__file_t *f, int e) {
  return e == MXN__NODE ? f->num_nodes : f->kb[e].num;
}

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

struct mxn_dataset {
  mxn_error_t err;
  mxn_structure_t s;
  int nfiles;
  /* Member records, NULL where not held: a serial open holds every
   * member's; a collective open only those of the members the rank
   * summarised, and others are rebuilt from their headers on first use
   * (mxn__file, records.c). In pages of MXN__FPAGE members, made where a
   * member of the page is held (mxn__file_held, mxn__file_set): a rank
   * keeps a pointer per page, not per member, for members it never uses. */
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
  mxn_io_counters_t io;
  mxn__reads_t reads;
  int opened;
  int vars_from[MXN__NV];    /* member that defined each family's names */
  int max_open;            /* open-file cap, from RLIMIT_NOFILE */
  int max_open_h5;         /* netCDF-4 members' cap (MXN__MAX_OPEN_H5) */
  /* Member 0's global variables at every step, [step * glob_nvars + v],
   * read with its summary (NULL when there are none or too many to keep):
   * a time step then needs no rank to open member 0 for them. */
  double *glob_vals;
  int glob_nvars;
  /* The members' small arrays (blocks, sets, truth tables, map ids: the
   * merge and index_members make two dozen a member on every rank), carved
   * from chunks mxn_dataset_destroy frees together (arena.c). */
  struct mxn__chunk *arena;
  size_t arena_used, arena_cap; /* bytes of the newest chunk */
  mxn__ids_t ids;          /* whether the id maps are trusted (ids.c) */
  /* While an open summarises members (summary.c): the declarations (block
   * and set ids and names) of the last member it summarised, so a member
   * declaring the same ones sends a flag instead (nem_spread and ParaView's
   * writer declare every block and set in every member). */
  int decl_prev_j;
  char *decl_prev;
  size_t decl_prev_len;
  /* While members are merged (merge.c): the last member's block names by
   * kind, for a later member that declares the same blocks. */
  char (*decl_names[MXN__NBK])[MXN_NAME_LEN];
  struct mxn__merging *merging; /* while members are merged (merge.c) */
  int nodal_min;           /* fewest nodal variables a member lists */
  /* The declarations (block and set lists) of the last record held, which
   * a record rebuilt later shares where it declares the same (merge.c). */
  const int *decl_of[MXN__NBK];
  int decl_of_n[MXN__NBK];
  const int64_t *decl_ids[MXN__NSK];
  int decl_ids_n[MXN__NSK];
  /* Merging a member rebuilt after the open (records.c): the structure is
   * settled, so the merge only looks up, adds nothing and counts nothing. */
  int settled;
};

/* Member j open for reads (through netCDF, capped), its record made first
 * where not held (records.c): the member, or NULL with the error set and
 * *status. Opened in netCDF's share mode, as
 * Exodus 6.02 opens files for reading: each read goes to the file, and a
 * strided read (nc_get_vars) makes one read call per entry. */
mxn__file_t *mxn__file_open(mxn_dataset_t *ds, int j, int *status);
/* The same for a member whose record is held (member.c: what the
 * summaries open), never rebuilding one. */
mxn__file_t *mxn__member_open(mxn_dataset_t *ds, int j, int *status);
/* Member j's record: the one held, or else rebuilt from its header (opened,
 * summarised, merged into the settled structure and indexed) and held from
 * then on; NULL with the error in ds->err (naming the member) if it cannot
 * be (records.c). */
mxn__file_t *mxn__file(mxn_dataset_t *ds, int j);
/* The member a step reads dataset global variable d from: the first that
 * lists it (member 0 as a rule), its record made; -1 with the error in
 * ds->err if a record cannot be (extract_step.c). */
int mxn__global_source(mxn_dataset_t *ds, int d);
/* Member j's record if held, else NULL (nothing read): for facts only held
 * members can have (an open handle, a domain read). */
#define MXN__FPAGE_BITS 6
#define MXN__FPAGE (1 << MXN__FPAGE_BITS)
static inline int mxn__fpage_count(const mxn_dataset_t *ds) {
  return (ds->nfiles + MXN__FPAGE - 1) >> MXN__FPAGE_BITS;
}
static inline mxn__file_t *mxn__file_held(const mxn_dataset_t *ds, int j) {
  mxn__file_t **pg = ds->fpages[j >> MXN__FPAGE_BITS];
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
/* What an open that failed while merging members leaves (merge.c). */
void mxn__merging_free(mxn_dataset_t *ds);
/* A new record for member j, its path made from the pattern (NULL: out of
 * memory; files.c), and one freed with what it holds (closed first;
 * member.c). */
mxn__file_t *mxn__record_new(mxn_dataset_t *ds, int j);
void mxn__record_free(mxn_dataset_t *ds, mxn__file_t *f);
/* Member j's per-member index once the structure is known (merge.c: its
 * variables' positions, truth rows by the dataset's variables, spans sorted). */
int mxn__member_index(mxn_dataset_t *ds, int j);
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
/* Position of numbered map `id` among member f's maps of entity kind e
 * (the first with that id), or -1. */
static inline int mxn__file_map(const mxn__file_t *f, int e, int64_t id) {
  for (int m = 0; m < f->nmap[e]; m++)
    if (f->map_ids[e][m] == id) return m;
  return -1;
}
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

/* An open in three steps (dataset.c, serial or collective): find the
 * members (discover.c); summarize some of them (summary.c: member j's
 * header as a byte stream holding its error if it cannot be read; skip:
 * a stream saying it was not read; *buf is malloc'd); merge every
 * member's summary, in order, into the structure (merge.c: all at once,
 * or member by member and then mxn__dataset_finish, which indexes the
 * members or names `path` in the error). */
int mxn__dataset_discover(mxn_dataset_t *ds, const char *path);
int mxn__member_summary(mxn_dataset_t *ds, int j, int skip, char **buf, size_t *len);
int mxn__dataset_merge(mxn_dataset_t *ds, char *const *bufs, const size_t *lens);
int mxn__member_merge(mxn_dataset_t *ds, int j, const char *buf, size_t len);
int mxn__dataset_finish(mxn_dataset_t *ds, int status, const char *path);
/* mxn_dataset_open_collective() with the error in *e and no argument
 * check: the load's own open (dataset.c). Collective; errors agreed. */
int mxn__dataset_open_members(MPI_Comm comm, mxn_dataset_t *ds, const char *path, mxn_error_t *e);
/* Close member f where it is open (member.c). */
void mxn__member_close(mxn_dataset_t *ds, mxn__file_t *f);
/* Members kept open only while needed (member.c): close every open member
 * j with !need[j], and with `hdf5` every one
 * read through HDF5 (netCDF-4). An open HDF5 file holds its metadata cache, half a megabyte
 * however little was read, and HDF5 opens one again in well under a
 * millisecond (netCDF-4 members closed at the end of a load took 38 MB
 * off the peak of N = 4, 1M hex in 64 members, and steps took no
 * longer); their freed blocks go back to the heap (mxn__h5_release). */
void mxn__members_keep(mxn_dataset_t *ds, const char *need, int hdf5);
/* HDF5 handles (h5light.c): a netCDF-4 member's HDF5 file, its variables
 * by name (ids from MXN__H5_VAR0 up, never netCDF's), datasets opened on
 * first use. */
#define MXN__H5_VAR0 (1 << 24)
typedef struct mxn__h5 mxn__h5_t;
/* The root group's names, which give the ids: listed by the first open
 * (*names NULL: set, the caller's to free) and handed to the next ones,
 * which do not list them again (a member opened again for each step
 * listed its 90 names, a fifth of the step at 1024 members). The handle
 * uses them until it is closed. */
typedef struct mxn__h5_names mxn__h5_names_t;
int mxn__h5_open(const char *path, mxn__h5_names_t **names, mxn__h5_t **out);
void mxn__h5_close(mxn__h5_t *h);
void mxn__h5_names_free(mxn__h5_names_t *nm);
int mxn__h5_var(const mxn__h5_t *h, const char *name);
/* fn(name, data) for each root-group name starting with prefix, in name
 * order, until it returns nonzero (then that value, else 0). */
int mxn__h5_each_name(const mxn__h5_t *h, const char *prefix,
                      int (*fn)(const char *name, void *data), void *data);
/* Variable v's rank (-1: none), extent and chunk sizes (0: not chunked), and
 * whether its chunks are filtered; len, chunk, filtered may be NULL. */
int mxn__h5_shape(mxn__h5_t *h, int v, size_t *len, size_t *chunk, int *filtered);
/* The decoder and buffers of the chunks the core decodes (mxn__h5_direct
 * below), shared by the reads given them: made on first use, a chunk as
 * stored and as decoded (a few MB at most), freed by
 * mxn__h5_scratch_free. */
typedef struct mxn__h5_scratch mxn__h5_scratch_t;
void mxn__h5_scratch_free(mxn__h5_scratch_t **scratch);
/* Values at start/count (stride NULL: 1) of variable v as double ('d'),
 * int64 ('l') or netCDF characters ('c'); a scalar is read whole. Chunks
 * the core decodes use *scratch (scratch NULL: buffers made for this read
 * alone). 0 on success. */
int mxn__h5_get(mxn__h5_t *h, mxn__h5_scratch_t **scratch, int v, const size_t *start,
                const size_t *count, const ptrdiff_t *stride, void *out, char as);
/* Whether variable v's chunks are decoded by the core (deflate, or shuffle
 * then deflate, of little-endian numbers, with libdeflate) rather than by
 * HDF5's filter pipeline. */
int mxn__h5_direct(mxn__h5_t *h, int v);
/* HDF5 gives the blocks on its free lists back to the heap (it keeps them
 * for reuse otherwise, up to tens of megabytes). */
void mxn__h5_release(void);
/* Close the datasets opened so far (they open again when read). */
void mxn__h5_forget(mxn__h5_t *h);
/* The header as netCDF-4 stores it, for the summary: dimension `name`'s
 * length (1 if there is one, else 0 and *len 0); attribute `name` of
 * variable v (-1: a global one) its netCDF length (characters of text,
 * else values; 0 on success, -1 where there is none) and its values as
 * text ('c', len bytes, not terminated), double ('d') or int64 ('l');
 * fn(name, length, data) for each global attribute until it returns
 * nonzero (then 1, else 0). */
int mxn__h5_dim(mxn__h5_t *h, const char *name, int64_t *len);
int mxn__h5_att_len(mxn__h5_t *h, int v, const char *name, size_t *len);
int mxn__h5_att_get(mxn__h5_t *h, int v, const char *name, void *out, char as);
int mxn__h5_global_atts(mxn__h5_t *h, int (*fn)(const char *name, uint64_t len, void *data),
                        void *data);
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

/* A member's coordinate variables, one per dimension (older files: one
 * [num_dim, num_nodes] variable "coord"). */
static const char *const mxn__coord_var[3] = {"coordx", "coordy", "coordz"};
/* Whether a member's time a is the dataset's b: within 1e-9 relative
 * (two NaNs, or a NaN against anything, are not told apart, as before). */
static inline int mxn__same_time(double a, double b) {
  return !(fabs(a - b) > 1e-9 * (fabs(b) + 1e-30) && a != b);
}

/* Stable LSD radix sort of n records of sz bytes by the int64 key each
 * starts with (idset.c); MXN_ERR_NOMEM when its buffer cannot be had. */
int mxn__radix_sort(void *recs, int64_t n, size_t sz);
/* Then order runs of equal leading keys by cmp. */
void mxn__sort_ties(void *recs, int64_t n, size_t sz, int (*cmp)(const void *, const void *));

/* Tables indexed by an id less the lowest one, 4 bytes an id of the range
 * (the covers' positions of P, cover.c; the shared-node check's first
 * copies, nodecheck.c), serve n entries whose ids span at most 16 ids an
 * entry: at most 64 bytes an entry. The range's size, or 0 where the ids
 * spread wider, n is 0, or n does not fit the 4-byte entries. */
static inline uint64_t mxn__id_table_span(int64_t lo, int64_t hi, int64_t n) {
  if (n <= 0 || n >= (int64_t)UINT32_MAX || hi < lo) return 0;
  uint64_t d = (uint64_t)hi - (uint64_t)lo;
  return d < (uint64_t)16 * (uint64_t)n ? d + 1 : 0;
}

/* mxn_cover_greedy, where ids 0 leaves the parts' E.ids unbuilt (NULL;
 * E.n, MF and MP are set), for callers that use the positions or the
 * files alone: gathering the ids from P's scattered positions was a third
 * of the greedy loop's time (perf, 1M hex in 1024 members, 2 ranks). */
int mxn__cover_greedy(const mxn_idset_t *P, const mxn_idset_t *F, int nfiles, int ids,
                      mxn_cover_t *out);

/* Exodus's error reporting is one option of the whole process (ex_opts):
 * the core, which never prints, asks for the quiet default around its own
 * Exodus calls and gives the caller's setting back after them. ex_opts
 * (Exodus 6.02) returns the options it replaces. */
static inline int mxn__ex_quiet(void) { return ex_opts(EX_DEFAULT); }
static inline void mxn__ex_restore(int was) { (void)ex_opts(was); }

/* Record an error in the dataset and return it. */
#define MXN_DS_ERR(ds, code, ...) mxn_error_set(&(ds)->err, (code), __VA_ARGS__)

/* For each id of a also in b, at positions i in a and j in b: dst[at ?
 * at[i] : i] = val ? val[j] : j; the number of such ids (0 for a
 * malformed set). mxn_idset_intersect without its three arrays, for
 * callers that only store through the positions (a thousand small
 * members' node numbers, extract.c). */
int64_t mxn__idset_match(const mxn_idset_t *a, const mxn_idset_t *b, const int64_t *at,
                         const int64_t *val, int64_t *dst);

/* Position of the first element >= v in sorted a[0..n). */
int64_t mxn__lower_bound(const int64_t *a, int64_t n, int64_t v);

/* Free a file domain's members and the struct. */
void mxn__file_domain_free(mxn_file_domain_t *d);
/* Free every member's id maps and positions (file domains); a later
 * mxn_dataset_file_domain() reads them again. */
void mxn__dataset_drop_domains(mxn_dataset_t *ds);

/* The structure's blocks of kind k (MXN__ELEM/EDGE/FACE) and their count. */
static inline mxn_block_info_t *mxn__sblocks(const mxn_structure_t *s, int k, int *n) {
  *n = k == MXN__ELEM ? s->num_blocks : k == MXN__EDGE ? s->num_edge_blocks : s->num_face_blocks;
  return k == MXN__ELEM ? s->blocks : k == MXN__EDGE ? s->edge_blocks : s->face_blocks;
}

/* The variables of block kind k (element ones live in flat fields). */
static inline mxn_var_list_t mxn__bvars(const mxn_structure_t *s, int k) {
  if (k == MXN__ELEM) {
    mxn_var_list_t v = {s->num_elem_vars, s->elem_var_names, s->elem_var_truth};
    return v;
  }
  return k == MXN__EDGE ? s->edge_vars : s->face_vars;
}

/* The structure's sets of kind k (MXN__NSET...) and their count. */
static inline mxn_set_info_t *mxn__ssets(const mxn_structure_t *s, int k, int *n) {
  switch (k) {
    case MXN__NSET: *n = s->num_node_sets; return s->node_sets;
    case MXN__SSET: *n = s->num_side_sets; return s->side_sets;
    case MXN__ESET: *n = s->num_edge_sets; return s->edge_sets;
    case MXN__FSET: *n = s->num_face_sets; return s->face_sets;
    default: *n = s->num_elem_sets; return s->elem_sets;
  }
}

/* The variables on sets of kind k. */
static inline const mxn_var_list_t *mxn__svars(const mxn_structure_t *s, int k) {
  switch (k) {
    case MXN__NSET: return &s->node_set_vars;
    case MXN__SSET: return &s->side_set_vars;
    case MXN__ESET: return &s->edge_set_vars;
    case MXN__FSET: return &s->face_set_vars;
    default: return &s->elem_set_vars;
  }
}

/* The structure's numbered maps of entity kind k (MXN__ELEM...MXN__NODE). */
static inline mxn_map_info_t *mxn__smaps(const mxn_structure_t *s, int k, int *n) {
  switch (k) {
    case MXN__ELEM: *n = s->num_elem_maps; return s->elem_maps;
    case MXN__EDGE: *n = s->num_edge_maps; return s->edge_maps;
    case MXN__FACE: *n = s->num_face_maps; return s->face_maps;
    default: *n = s->num_node_maps; return s->node_maps;
  }
}

/* MXN_POLY_* kind of an Exodus topology name. */
static inline int mxn__poly_kind(const char *topo) {
  if (strncasecmp(topo, "NSIDED", 6) == 0) return MXN_POLY_NSIDED;
  if (strncasecmp(topo, "NFACED", 6) == 0) return MXN_POLY_NFACED;
  return MXN_POLY_NONE;
}

/* Where entry k's nodes start in a piece block's conn, and how many. */
static inline int64_t mxn__conn_at(const mxn_piece_block_t *pb, int npe, int64_t k) {
  return pb->conn_off ? pb->conn_off[k] : k * npe;
}
static inline int mxn__conn_n(const mxn_piece_block_t *pb, int npe, int64_t k) {
  return pb->conn_off ? (int)(pb->conn_off[k + 1] - pb->conn_off[k]) : npe;
}
/* Total node references of a piece block. */
static inline int64_t mxn__conn_len(const mxn_piece_block_t *pb, int npe) {
  return pb->conn_off ? pb->conn_off[pb->num_elements] : pb->num_elements * npe;
}

/* Member j's prefix sums of the per-entry counts of poly block b of kind
 * k (read once, cached in its record; records.c). */
int mxn__poly_offsets(mxn_dataset_t *ds, int j, int k, int b, const int64_t **off);

/* A piece's blocks of kind k and their count. */
static inline mxn_piece_block_t *mxn__pblocks(const mxn_piece_t *p, int k, int *n) {
  *n = k == MXN__ELEM ? p->num_blocks : k == MXN__EDGE ? p->num_edge_blocks : p->num_face_blocks;
  return k == MXN__ELEM ? p->blocks : k == MXN__EDGE ? p->edge_blocks : p->face_blocks;
}

/* A piece's sets of kind k and their count. */
static inline mxn_piece_set_t *mxn__psets(const mxn_piece_t *p, int k, int *n) {
  switch (k) {
    case MXN__NSET: *n = p->num_node_sets; return p->node_sets;
    case MXN__SSET: *n = p->num_side_sets; return p->side_sets;
    case MXN__ESET: *n = p->num_edge_sets; return p->edge_sets;
    case MXN__FSET: *n = p->num_face_sets; return p->face_sets;
    default: *n = p->num_elem_sets; return p->elem_sets;
  }
}

/* Number of nodes on side `side` (1-based) of an element of type `type`
 * with `npe` nodes in a mesh of `num_dim` dimensions (a TRI's sides are
 * faces and edges in 3D, edges in 2D), or -1 when the type or side is
 * unknown. */
int mxn__side_node_count(const char *type, int npe, int num_dim, int side);
/* 1 when the element type is one whose sides MxN knows. */
int mxn__known_type(const char *type);

/* Corner nodes of each side of an element type (rows of 4, -1 padded):
 * returns the number of sides and points *sides at the table, or 0 for
 * types without sides to share (spheres, beams, unknown). */
int mxn__side_corners(const char *type, int num_dim, const int (**sides)[4]);

#endif /* MXN_INTERNAL_H */
