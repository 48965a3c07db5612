/* The core's ground floor (private, not installed): the error and
 * allocation macros, the kinds of entities, sets and variables, views of the
 * public structure and piece by kind, the sorts and id helpers, and the
 * element topology tables. Every stage folder builds on it; it includes
 * nothing of theirs. The member store is io/store.h. */
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
#include <time.h>

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

/* Entity kinds with global ids. The first three are organised in blocks
 * (MXN__NBK block kinds); numbered maps exist for all four. */
enum { MXN__ELEM = 0, MXN__EDGE = 1, MXN__FACE = 2, MXN__NODE = 3 };

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
 * members' node numbers, read.c). */
int64_t mxn__idset_match(const mxn_idset_t *a, const mxn_idset_t *b, const int64_t *at,
                         const int64_t *val, int64_t *dst);

/* Position of the first element >= v in sorted a[0..n). */
int64_t mxn__lower_bound(const int64_t *a, int64_t n, int64_t v);

/* Free a file domain's members and the struct. */
void mxn__file_domain_free(mxn_file_domain_t *d);

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

/* Seconds on a monotonic clock, for the phase and read timers. */
static inline double mxn__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif /* MXN_INTERNAL_H */

