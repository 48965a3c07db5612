/* Bounds check of a netCDF-3 header (nc3check.h). The layout is the one of
 * the netCDF classic format specification: magic "CDF" + version (1
 * classic, 2 64-bit offset, 5 CDF5), numrecs, then the dimension, global
 * attribute and variable lists; big-endian; names and values padded to 4
 * bytes; CDF5 widens counts and lengths to 8 bytes. */
#include "nc3check.h"

#include "alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NC3_MAX_NAME 256   /* NC_MAX_NAME */
#define NC3_MAX_DIMS 1024  /* NC_MAX_VAR_DIMS */

typedef struct {
  int fd;
  unsigned char *buf;
  uint64_t have, pos, size;
  size_t cap;
  int wide;   /* CDF5: 8-byte counts */
  int off64;  /* 64-bit offset or CDF5: 8-byte begins */
  char *why;
  size_t whylen;
  int exo_bad;                  /* the attribute rules below were broken */
  char last[NC3_MAX_NAME + 1];  /* the name name() read last */
  char var[NC3_MAX_NAME + 1];   /* the variable whose attributes are read */
  mxn__nc3_t *tab;              /* the table being filled, or NULL (a check only) */
  int tab_nomem;
} nc3_t;

/* Make n more bytes available at pos when they are not yet in the buffer;
 * 0 when the file has no more. The buffer grows by doubling from 8 KiB: a
 * header is a few KiB, and reading far past it cost more than the walk for
 * a dataset of many small members (the copy lands in pages touched for the
 * first time). */
static int refill(nc3_t *r, uint64_t n) {
  if (n > r->size || r->pos > r->size - n) return 0;
  uint64_t want = r->have < 4096 ? 8192 : 2 * r->have;
  if (want < r->pos + n) want = r->pos + n;
  if (want > r->size) want = r->size;
  if (want > r->cap) {
    unsigned char *b = mxn__realloc(r->buf, (size_t)want);
    if (!b) return -1;
    r->buf = b;
    r->cap = (size_t)want;
  }
  while (r->have < want) {
    errno = 0; /* a short file is no system error */
    ssize_t got = read(r->fd, r->buf + r->have, (size_t)(want - r->have));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    r->have += (uint64_t)got;
  }
  return r->pos + n <= r->have ? 1 : -1;
}

/* 1 when n bytes from pos are in the buffer (read there if need be), 0
 * when the file has no more, -1 on a read error. The buffer holds only
 * bytes of the file (have <= size) and pos <= have: bytes already read
 * need no other test. Inline, as the walk asks for every 4-byte word (a
 * call for each: 139 k calls and about 10 M of the walk's 22 M
 * instructions on a rank summarising 256 members of 1M hex). */
static inline int avail(nc3_t *r, uint64_t n) {
  return n <= r->have - r->pos ? 1 : refill(r, n);
}

static inline uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline int get_u32(nc3_t *r, uint64_t *v) {
  int a = avail(r, 4);
  *v = 0; /* set on every path: the compiler cannot see that callers read it only after a 1 */
  if (a != 1) return a;
  *v = be32(r->buf + r->pos);
  r->pos += 4;
  return 1;
}

static inline int get_u64(nc3_t *r, uint64_t *v) {
  int a = avail(r, 8);
  *v = 0;
  if (a != 1) return a;
  *v = (uint64_t)be32(r->buf + r->pos) << 32 | be32(r->buf + r->pos + 4);
  r->pos += 8;
  return 1;
}

/* A count or length: 4 bytes, 8 in CDF5. */
static inline int get_n(nc3_t *r, uint64_t *v) { return r->wide ? get_u64(r, v) : get_u32(r, v); }

static uint64_t pad4(uint64_t n) { return (n + 3) / 4 * 4; }

#define FAIL(...)                                        \
  do {                                                   \
    snprintf(r->why, r->whylen, __VA_ARGS__);            \
    return 1;                                            \
  } while (0)
/* Read or fail with `what` as the reason (or pass on a read error). */
#define NEED(call, ...)                                  \
  do {                                                   \
    int a_ = (call);                                     \
    if (a_ < 0) return -1;                               \
    if (a_ == 0) FAIL(__VA_ARGS__);                      \
  } while (0)

/* A name, kept in r->last. */
static int name(nc3_t *r, const char *what, uint64_t k) {
  uint64_t len;
  NEED(get_n(r, &len), "%s %llu: name cut off", what, (unsigned long long)k);
  if (len == 0 || len > NC3_MAX_NAME)
    FAIL("%s %llu: name of %llu characters", what, (unsigned long long)k, (unsigned long long)len);
  NEED(avail(r, pad4(len)), "%s %llu: name cut off", what, (unsigned long long)k);
  memcpy(r->last, r->buf + r->pos, (size_t)len);
  r->last[len] = 0;
  r->pos += pad4(len);
  return 0;
}

int mxn__exodus_att_check(const char *var, const char *att, uint64_t len, char *why,
                          size_t whylen) {
  static const char *const scalar[] = {"api_version", "api version", "version", "file_size",
                                       "floating_point_word_size", "floating point word size",
                                       "maximum_name_length", "int64_status"};
  static const char *const types[] = {"elem_type", "entity_type1", "entity_type2"};
  if (!var) {
    for (size_t k = 0; k < sizeof scalar / sizeof *scalar; k++)
      if (len != 1 && !strcmp(att, scalar[k])) {
        snprintf(why, whylen, "global attribute '%s' holds %llu values, not 1", scalar[k],
                 (unsigned long long)len);
        return 1;
      }
    /* lengths count the terminating NUL Exodus writes */
    if (len > 81 && !strcmp(att, "title")) {
      snprintf(why, whylen, "a title of %llu characters (at most 81)", (unsigned long long)len);
      return 1;
    }
    return 0;
  }
  for (size_t k = 0; k < sizeof types / sizeof *types; k++)
    if (len > 33 && !strcmp(att, types[k])) {
      snprintf(why, whylen, "attribute '%s' of '%s' has %llu characters (at most 33)", types[k],
               var, (unsigned long long)len);
      return 1;
    }
  return 0;
}

/* Bytes per value of netCDF type t (CDF5 types only in CDF5), 0 if unknown. */
static uint64_t type_size(const nc3_t *r, uint64_t t) {
  static const uint64_t sz[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
  if (t >= 1 && t <= 6) return sz[t];
  if (r->wide && t >= 7 && t <= 11) return sz[t];
  return 0;
}

/* A list header: tag and count; ABSENT is two zeros. */
static int list(nc3_t *r, uint64_t tag, const char *what, uint64_t min_each, uint64_t *n) {
  uint64_t t;
  NEED(get_u32(r, &t), "%s list cut off", what);
  NEED(get_n(r, n), "%s list cut off", what);
  if (t == 0 && *n == 0) return 0;
  if (t != tag) FAIL("%s list has tag %llu", what, (unsigned long long)t);
  if (*n > (r->size - r->pos) / min_each)
    FAIL("%llu %ss do not fit in the file", (unsigned long long)*n, what);
  return 0;
}


/* ---------- the table a direct open keeps ---------- */

/* A table array of *cap elements resized to c; 0 out of memory. */
static int tab_resize(nc3_t *r, void **p, int *cap, int c, size_t sz) {
  void *q = mxn__realloc(*p, (size_t)c * sz);
  if (!q) {
    r->tab_nomem = 1;
    return 0;
  }
  *p = q;
  *cap = c;
  return 1;
}
/* Room for one more element: doubling from 16. */
#define TAB_ROOM(r, arr, n, cap) \
  ((n) < (cap) || tab_resize(r, (void **)&(arr), &(cap), (cap) ? 2 * (cap) : 16, sizeof *(arr)))
/* Room for n elements at once where a list states its length (checked
 * against the file's size). A damaged header's counts only fit the file's
 * size: those beyond a sound header's grow as they are met. */
#define TAB_RESERVE(r, arr, cap, n)                                                   \
  do {                                                                                \
    if ((r)->tab && !(r)->tab_nomem && (n) > (uint64_t)(cap) && (n) <= 65536)         \
      tab_resize(r, (void **)&(arr), &(cap), (int)(n), sizeof *(arr));                \
  } while (0)

/* Copy n bytes into the table's arena; its offset, or UINT32_MAX. */
static uint32_t tab_keep(nc3_t *r, const void *x, size_t n) {
  mxn__nc3_t *t = r->tab;
  if (t->arena_n + n + 1 > UINT32_MAX) { /* offsets are 32-bit */
    r->tab_nomem = 1;
    return UINT32_MAX;
  }
  if (t->arena_n + n + 1 > t->arena_cap) {
    size_t cap = t->arena_cap ? t->arena_cap : 4096;
    while (cap < t->arena_n + n + 1) cap *= 2;
    char *q = mxn__realloc(t->arena, cap);
    if (!q) {
      r->tab_nomem = 1;
      return UINT32_MAX;
    }
    t->arena = q;
    t->arena_cap = cap;
  }
  uint32_t at = (uint32_t)t->arena_n;
  memcpy(t->arena + at, x, n);
  t->arena[at + n] = 0;
  t->arena_n += n + 1;
  return at;
}

static int attrs(nc3_t *r, const char *owner, uint64_t k) {
  uint64_t n;
  int rc = list(r, 12, "attribute", 12, &n);
  if (rc) return rc;
  for (uint64_t a = 0; a < n; a++) {
    if ((rc = name(r, "attribute", a))) return rc;
    uint64_t t, nv;
    NEED(get_u32(r, &t), "%s %llu: attribute %llu cut off", owner, (unsigned long long)k,
         (unsigned long long)a);
    uint64_t ts = type_size(r, t);
    if (!ts)
      FAIL("%s %llu: attribute %llu of unknown type %llu", owner, (unsigned long long)k,
           (unsigned long long)a, (unsigned long long)t);
    NEED(get_n(r, &nv), "%s %llu: attribute %llu cut off", owner, (unsigned long long)k,
         (unsigned long long)a);
    if (nv > (r->size - r->pos) / ts)
      FAIL("%s %llu: attribute %llu: %llu values do not fit in the file", owner,
           (unsigned long long)k, (unsigned long long)a, (unsigned long long)nv);
    NEED(avail(r, pad4(nv * ts)), "%s %llu: attribute %llu cut off", owner,
         (unsigned long long)k, (unsigned long long)a);
    if (r->tab && !r->tab_nomem) {
      mxn__nc3_t *tb = r->tab;
      if (TAB_ROOM(r, tb->atts, tb->natts, tb->atts_cap)) {
        mxn__nc3_att_t *at = &tb->atts[tb->natts];
        at->name = tab_keep(r, r->last, strlen(r->last));
        at->val = tab_keep(r, r->buf + r->pos, (size_t)(nv * ts));
        at->var = strcmp(owner, "global") ? (int)k : -1;
        at->type = (int)t;
        at->n = nv;
        tb->natts++;
      }
    }
    r->pos += pad4(nv * ts);
    /* the first broken Exodus attribute is kept; the walk goes on, as a
     * damaged netCDF header is the worse fault */
    if (!r->exo_bad && mxn__exodus_att_check(strcmp(owner, "global") ? r->var : NULL, r->last,
                                             nv, r->why, r->whylen))
      r->exo_bad = 1;
  }
  return 0;
}

static int walk(nc3_t *r) {
  uint64_t numrecs, ndims, nvars;
  NEED(get_n(r, &numrecs), "header cut off");
  int rc = list(r, 10, "dimension", r->wide ? 16 : 8, &ndims);
  if (rc) return rc;
  if (r->tab) TAB_RESERVE(r, r->tab->dims, r->tab->dims_cap, ndims);
  uint64_t nrecdims = 0;
  for (uint64_t d = 0; d < ndims; d++) {
    if ((rc = name(r, "dimension", d))) return rc;
    uint64_t len;
    NEED(get_n(r, &len), "dimension %llu cut off", (unsigned long long)d);
    if (len == 0 && ++nrecdims > 1) FAIL("more than one unlimited dimension");
    if (r->tab && !r->tab_nomem) {
      mxn__nc3_t *tb = r->tab;
      if (TAB_ROOM(r, tb->dims, tb->ndims, tb->dims_cap)) {
        tb->dims[tb->ndims].name = tab_keep(r, r->last, strlen(r->last));
        tb->dims[tb->ndims].len = len;
        if (len == 0) tb->rec_dim = tb->ndims;
        tb->ndims++;
      }
    }
  }
  if ((rc = attrs(r, "global", 0))) return rc;
  rc = list(r, 11, "variable", r->wide ? 48 : 24, &nvars);
  if (rc) return rc;
  if (r->tab) {
    TAB_RESERVE(r, r->tab->vars, r->tab->vars_cap, nvars);
    TAB_RESERVE(r, r->tab->dimids, r->tab->ids_cap, 2 * nvars);
    TAB_RESERVE(r, r->tab->atts, r->tab->atts_cap, r->tab->natts + nvars);
  }
  for (uint64_t v = 0; v < nvars; v++) {
    if ((rc = name(r, "variable", v))) return rc;
    memcpy(r->var, r->last, sizeof r->var);
    uint64_t nd, id, t, vsize, begin;
    NEED(get_n(r, &nd), "variable %llu cut off", (unsigned long long)v);
    if (nd > NC3_MAX_DIMS)
      FAIL("variable %llu: %llu dimensions", (unsigned long long)v, (unsigned long long)nd);
    mxn__nc3_t *tb = r->tab && !r->tab_nomem ? r->tab : NULL;
    int nid0 = tb ? tb->nids : 0, natt0 = tb ? tb->natts : 0;
    for (uint64_t k = 0; k < nd; k++) {
      NEED(get_n(r, &id), "variable %llu cut off", (unsigned long long)v);
      if (id >= ndims)
        FAIL("variable %llu: dimension id %llu of %llu", (unsigned long long)v,
             (unsigned long long)id, (unsigned long long)ndims);
      if (tb && TAB_ROOM(r, tb->dimids, tb->nids, tb->ids_cap)) tb->dimids[tb->nids++] = (int)id;
    }
    if ((rc = attrs(r, "variable", v))) return rc;
    NEED(get_u32(r, &t), "variable %llu cut off", (unsigned long long)v);
    if (!type_size(r, t))
      FAIL("variable %llu of unknown type %llu", (unsigned long long)v, (unsigned long long)t);
    NEED(get_n(r, &vsize), "variable %llu cut off", (unsigned long long)v);
    NEED(r->off64 ? get_u64(r, &begin) : get_u32(r, &begin), "variable %llu cut off",
         (unsigned long long)v);
    if (tb && !r->tab_nomem && TAB_ROOM(r, tb->vars, tb->nvars, tb->vars_cap)) {
      mxn__nc3_var_t *x = &tb->vars[tb->nvars++];
      x->name = tab_keep(r, r->var, strlen(r->var));
      x->type = (int)t;
      x->nd = (int)nd;
      x->dim0 = (uint32_t)nid0;
      x->att0 = natt0;
      x->natt = tb->natts - natt0;
      x->begin = begin;
    }
  }
  if (r->tab) r->tab->numrecs = numrecs;
  return 0;
}

int mxn__open_read(const char *path) {
  int fd;
  do fd = open(path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  return fd;
}

int mxn__nc3_open(const char *path, int64_t size, char magic[4], char *why, size_t whylen,
                  mxn__nc3_t **h) {
  int fd = mxn__open_read(path);
  if (fd < 0) {
    if (whylen) snprintf(why, whylen, "%s", strerror(errno));
    memset(magic, 0, 4);
    if (h) *h = NULL;
    return -1;
  }
  return mxn__nc3_open_fd(fd, size, magic, why, whylen, h);
}

int mxn__nc3_open_fd(int fd, int64_t size, char magic[4], char *why, size_t whylen,
                     mxn__nc3_t **h) {
  if (whylen) why[0] = 0;
  memset(magic, 0, 4);
  if (h) *h = NULL;
  nc3_t r;
  memset(&r, 0, sizeof r);
  r.fd = fd;
  r.size = size > 0 ? (uint64_t)size : 0;
  r.why = why;
  r.whylen = whylen;
  int rc = 0;
  int a = avail(&r, 4);
  if (a == 1) memcpy(magic, r.buf, 4);
  if (a == 1 && !memcmp(r.buf, "CDF", 3) && (r.buf[3] == 1 || r.buf[3] == 2 || r.buf[3] == 5)) {
    r.wide = r.buf[3] == 5;
    r.off64 = r.buf[3] != 1;
    r.pos = 4;
    if (h && !(r.tab = mxn__calloc(1, sizeof *r.tab))) r.tab_nomem = 1;
    if (r.tab) {
      r.tab->rec_dim = -1;
      r.tab->fd = -1; /* the descriptor is the table's once it is handed out */
    }
    rc = walk(&r);
    if (rc == 0 && r.exo_bad) rc = 2;
    else if (rc == 0) rc = 3;
  } else if (a < 0) {
    if (whylen) snprintf(why, whylen, "%s", errno ? strerror(errno) : "read error");
    rc = -1;
  }
  /* A table is handed out for a sound header only; without memory for it
   * the caller reads the member the other way. */
  if (rc == 3 && r.tab && !r.tab_nomem) {
    r.tab->head = r.buf;
    r.tab->head_n = r.have;
    r.buf = NULL;
    r.tab->fd = fd;
    r.tab->wide = r.wide;
    if (mxn__nc3_finish(r.tab) == 0) {
      *h = r.tab;
      return rc;
    }
    r.tab->fd = -1;
  }
  free(r.buf);
  mxn__nc3_close(r.tab);
  close(fd);
  return rc;
}

int mxn__nc3_header_check(const char *path, int64_t size, char magic[4], char *why,
                          size_t whylen) {
  return mxn__nc3_open(path, size, magic, why, whylen, NULL);
}
