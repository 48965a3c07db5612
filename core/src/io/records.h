/* Private to the core: what the member store knows of one member file
 * (io/files.c holds the records, io/member.c opens and reads the member,
 * structure/merge.c fills them): its blocks and sets as sparse spans by
 * structure block and set, its numbered maps, its variables' positions, and
 * the boxes of the reads the members share. */
#ifndef MXN_IO_RECORDS_H
#define MXN_IO_RECORDS_H

#include "internal.h"

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
 * only the last box kept, a rank reading part of a compressed member
 * decompressed its chunks again for every run and variable. */
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
                              (a bit each; read_step.c), or NULL */
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

/* Position of numbered map `id` among member f's maps of entity kind e
 * (the first with that id), or -1. */
static inline int mxn__file_map(const mxn__file_t *f, int e, int64_t id) {
  for (int m = 0; m < f->nmap[e]; m++)
    if (f->map_ids[e][m] == id) return m;
  return -1;
}

#endif /* MXN_IO_RECORDS_H */
