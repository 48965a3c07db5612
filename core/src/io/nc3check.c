/* Bounds check of a netCDF-3 header (nc3check.h). The layout is the one of
 * the netCDF classic format specification: magic "CDF" + version (1
 * classic, 2 64-bit offset, 5 CDF5), numrecs, then the dimension, global
 * attribute and variable lists; big-endian; names and values padded to 4
 * bytes; CDF5 widens counts and lengths to 8 bytes. */
#include "io/nc3check.h"
#include "io/exo_names.h"

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
  /* the older spellings with blanks too, as Exodus still reads them */
  static const char *const scalar[] = {MXN__EX_API_VERSION, "api version", MXN__EX_VERSION,
                                       MXN__EX_FILE_SIZE, MXN__EX_WORD_SIZE,
                                       "floating point word size", MXN__EX_MAX_NAME_LENGTH,
                                       MXN__EX_INT64_STATUS};
  static const char *const types[] = {MXN__EX_ELEM_TYPE, MXN__EX_ENTITY_TYPE1,
                                      MXN__EX_ENTITY_TYPE2};
  if (!var) {
    for (size_t k = 0; k < sizeof scalar / sizeof *scalar; k++)
      if (len != 1 && !strcmp(att, scalar[k])) {
        snprintf(why, whylen, "global attribute '%s' holds %llu values, not 1", scalar[k],
                 (unsigned long long)len);
        return 1;
      }
    /* lengths count the terminating NUL Exodus writes */
    if (len > 81 && !strcmp(att, MXN__EX_TITLE)) {
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
  uint64_t nrecdims = 0;
  for (uint64_t d = 0; d < ndims; d++) {
    if ((rc = name(r, "dimension", d))) return rc;
    uint64_t len;
    NEED(get_n(r, &len), "dimension %llu cut off", (unsigned long long)d);
    if (len == 0 && ++nrecdims > 1) FAIL("more than one unlimited dimension");
  }
  if ((rc = attrs(r, "global", 0))) return rc;
  rc = list(r, 11, "variable", r->wide ? 48 : 24, &nvars);
  if (rc) return rc;
  for (uint64_t v = 0; v < nvars; v++) {
    if ((rc = name(r, "variable", v))) return rc;
    memcpy(r->var, r->last, sizeof r->var);
    uint64_t nd, id, t, vsize, begin;
    NEED(get_n(r, &nd), "variable %llu cut off", (unsigned long long)v);
    if (nd > NC3_MAX_DIMS)
      FAIL("variable %llu: %llu dimensions", (unsigned long long)v, (unsigned long long)nd);
    for (uint64_t k = 0; k < nd; k++) {
      NEED(get_n(r, &id), "variable %llu cut off", (unsigned long long)v);
      if (id >= ndims)
        FAIL("variable %llu: dimension id %llu of %llu", (unsigned long long)v,
             (unsigned long long)id, (unsigned long long)ndims);
    }
    if ((rc = attrs(r, "variable", v))) return rc;
    NEED(get_u32(r, &t), "variable %llu cut off", (unsigned long long)v);
    if (!type_size(r, t))
      FAIL("variable %llu of unknown type %llu", (unsigned long long)v, (unsigned long long)t);
    NEED(get_n(r, &vsize), "variable %llu cut off", (unsigned long long)v);
    NEED(r->off64 ? get_u64(r, &begin) : get_u32(r, &begin), "variable %llu cut off",
         (unsigned long long)v);
  }
  return 0;
}

int mxn__open_read(const char *path) {
  int fd;
  do fd = open(path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  return fd;
}

int mxn__nc3_header_check(int fd, int64_t size, char magic[4], char *why, size_t whylen) {
  if (whylen) why[0] = 0;
  memset(magic, 0, 4);
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
    rc = walk(&r);
    if (rc == 0 && r.exo_bad) rc = 2;
    else if (rc == 0) rc = 3;
  } else if (a < 0) {
    if (whylen) snprintf(why, whylen, "%s", errno ? strerror(errno) : "read error");
    rc = -1;
  }
  free(r.buf);
  close(fd);
  return rc;
}
