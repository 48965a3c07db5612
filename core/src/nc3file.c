/* Direct reads of netCDF-3 members from the table the header walk keeps
 * (nc3check.h). The layout is that of the netCDF classic format
 * specification: big-endian values; a fixed-size variable's values in
 * row-major order from its begin; a record variable's values of record r
 * from begin + r * recsize, where recsize sums every record variable's
 * per-record size rounded up to 4 bytes (unrounded when there is only one
 * record variable). */
#include "nc3check.h"

#include "alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define NC3_READ_DIMS 8 /* more dimensions: read through netCDF */

void mxn__name_d(char *out, size_t cap, const char *fmt, long long q) {
  const char *pc = strstr(fmt, "%d");
  if (!cap) return;
  char digits[24];
  int nd = 0;
  unsigned long long u = q < 0 ? 0ull - (unsigned long long)q : (unsigned long long)q;
  do digits[nd++] = (char)('0' + u % 10); while (u /= 10);
  if (q < 0) digits[nd++] = '-';
  size_t n = 0;
  for (const char *c = fmt; *c && n + 1 < cap; c++) {
    if (c == pc) {
      while (nd > 0 && n + 1 < cap) out[n++] = digits[--nd];
      c++; /* past the 'd' */
    } else {
      out[n++] = *c;
    }
  }
  out[n] = '\0';
}

/* Bytes per value of netCDF type t, 0 if unknown. */
static uint64_t type_size(int t) {
  static const uint64_t sz[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
  return t >= 1 && t <= 11 ? sz[t] : 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static uint32_t name_hash(const char *s) {
  uint32_t x = 2166136261u;
  for (; *s; s++) x = (x ^ (unsigned char)*s) * 16777619u;
  return x;
}

/* Hash entries: 0 empty, else 2 * id + (1 for a dimension) + 1. */
static void hash_put(mxn__nc3_t *h, const char *name, int code) {
  uint32_t i = name_hash(name) & h->hmask;
  while (h->hash[i]) i = (i + 1) & h->hmask;
  h->hash[i] = code;
}

static int hash_find(const mxn__nc3_t *h, const char *name, int dim) {
  if (!h->hash) return -1;
  for (uint32_t i = name_hash(name) & h->hmask; h->hash[i]; i = (i + 1) & h->hmask) {
    int code = h->hash[i] - 1, id = code >> 1;
    if ((code & 1) != dim) continue;
    uint32_t at = dim ? h->dims[id].name : h->vars[id].name;
    if (!strcmp(h->arena + at, name)) return id;
  }
  return -1;
}

/* Bytes of n elements of `size`, rounded up to 16 (the block's parts
 * stay aligned). */
static size_t part(size_t n, size_t size) { return (n * size + 15) & ~(size_t)15; }

/* The table's arrays, its names and the name index (hcap entries, zeroed)
 * in one block of their exact sizes. The walk grew its arrays by
 * doubling: 10 KB a member of 1M hex split 1024 ways where 6 KB are
 * used, held by every open member. Under AddressSanitizer the arrays
 * stay apart, so that an overrun from one into the next is caught.
 * 0, or 1 without memory. */
static int compact(mxn__nc3_t *h, uint32_t hcap) {
  if (MXN_ASAN) return !(h->hash = mxn__calloc(hcap, sizeof *h->hash));
  size_t sd = part((size_t)h->ndims, sizeof *h->dims);
  size_t sa = part((size_t)h->natts, sizeof *h->atts);
  size_t sv = part((size_t)h->nvars, sizeof *h->vars);
  size_t si = part((size_t)h->nids, sizeof *h->dimids);
  size_t sh = part(hcap, sizeof *h->hash), sr = part(h->arena_n, 1);
  char *b = mxn__malloc(sd + sa + sv + si + sh + sr);
  if (!b) return 1;
  char *at = b;
#define MOVE(arr, bytes, n)                                           \
  do {                                                                \
    if (n) memcpy(at, arr, (size_t)(n) * sizeof *(arr));              \
    free(arr);                                                        \
    arr = (void *)at;                                                 \
    at += bytes;                                                      \
  } while (0)
  MOVE(h->dims, sd, h->ndims);
  MOVE(h->atts, sa, h->natts);
  MOVE(h->vars, sv, h->nvars);
  MOVE(h->dimids, si, h->nids);
  MOVE(h->arena, sr, h->arena_n);
#undef MOVE
  h->hash = (int *)at;
  memset(h->hash, 0, sh);
  h->dims_cap = h->ndims;
  h->atts_cap = h->natts;
  h->vars_cap = h->nvars;
  h->ids_cap = h->nids;
  h->arena_cap = h->arena_n;
  h->block = b;
  return 0;
}

int mxn__nc3_finish(mxn__nc3_t *h) {
  /* a streaming file's record count is not in its header */
  if (h->numrecs == (h->wide ? UINT64_MAX : 0xFFFFFFFFu)) return 1;
  uint64_t recsize = 0, last = 0, fixed = 0, per_rec = 0;
  int nrec = 0;
  for (int v = 0; v < h->nvars; v++) {
    mxn__nc3_var_t *x = &h->vars[v];
    uint64_t ts = type_size(x->type), n = 1;
    if (x->nd > NC3_READ_DIMS || !ts) return 1;
    x->rec = x->nd > 0 && h->dimids[x->dim0] == h->rec_dim;
    for (int d = x->rec; d < x->nd; d++) {
      uint64_t len = h->dims[h->dimids[x->dim0 + d]].len;
      if (len == 0) return 1; /* the record dimension past the first place */
      if (n > UINT64_MAX / 8 / len) return 1;
      n *= len;
    }
    x->inner = n;
    uint64_t bytes = n * ts; /* fits: n <= UINT64_MAX / 8 */
    if (x->rec) {
      last = bytes;
      recsize += (last + 3) / 4 * 4;
      per_rec = sat_add(per_rec, bytes);
      nrec++;
    } else {
      fixed = sat_add(fixed, bytes);
    }
  }
  h->recsize = nrec == 1 ? last : recsize;
  uint64_t all = per_rec && h->numrecs > (UINT64_MAX - fixed) / per_rec
                     ? UINT64_MAX
                     : fixed + per_rec * h->numrecs;
  h->data_bytes = all > INT64_MAX ? INT64_MAX : (int64_t)all;
  uint32_t cap = 16;
  while (cap < 2u * (uint32_t)(h->nvars + h->ndims) + 1) cap *= 2;
  if (compact(h, cap)) return 1;
  h->hmask = cap - 1;
  for (int v = 0; v < h->nvars; v++) hash_put(h, h->arena + h->vars[v].name, 2 * v + 1);
  for (int d = 0; d < h->ndims; d++) hash_put(h, h->arena + h->dims[d].name, 2 * d + 2);
  return 0;
}

void mxn__nc3_close(mxn__nc3_t *h) {
  if (!h) return;
  if (h->fd >= 0) close(h->fd);
  if (h->block) {
    free(h->block);
  } else {
    free(h->dims);
    free(h->atts);
    free(h->vars);
    free(h->dimids);
    free(h->arena);
    free(h->hash);
  }
  free(h->head);
  free(h->win);
  free(h);
}

int mxn__nc3_var(const mxn__nc3_t *h, const char *name) { return hash_find(h, name, 0); }

int mxn__nc3_dim(const mxn__nc3_t *h, const char *name, int64_t *len) {
  int d = hash_find(h, name, 1);
  if (d < 0) return 0;
  *len = (int64_t)(d == h->rec_dim ? h->numrecs : h->dims[d].len);
  return 1;
}

uint64_t mxn__nc3_var_dim(const mxn__nc3_t *h, int v, int d) {
  int id = h->dimids[h->vars[v].dim0 + d];
  return id == h->rec_dim ? h->numrecs : h->dims[id].len;
}

const mxn__nc3_att_t *mxn__nc3_att(const mxn__nc3_t *h, int v, const char *name) {
  int a0 = 0, n = 0;
  if (v >= 0) {
    a0 = h->vars[v].att0;
    n = h->vars[v].natt;
  } else {
    while (n < h->natts && h->atts[n].var < 0) n++;
  }
  for (int a = a0; a < a0 + n; a++)
    if (!strcmp(h->arena + h->atts[a].name, name)) return &h->atts[a];
  return NULL;
}

static uint64_t be(const unsigned char *p, int n) {
  uint64_t x = 0;
  for (int i = 0; i < n; i++) x = x << 8 | p[i];
  return x;
}

/* Value i of raw big-endian values of type t as a double, and whether it
 * is integral; as an int64 where *iv is non-NULL (1 if in range). */
static double to_double(const unsigned char *p, int t) {
  switch (t) {
    case 1: return (double)(signed char)p[0];
    case 3: return (double)(int16_t)be(p, 2);
    case 4: return (double)(int32_t)be(p, 4);
    case 5: {
      uint32_t u = (uint32_t)be(p, 4);
      float f;
      memcpy(&f, &u, 4);
      return (double)f;
    }
    case 6: {
      uint64_t u = be(p, 8);
      double d;
      memcpy(&d, &u, 8);
      return d;
    }
    case 7: return (double)p[0];
    case 8: return (double)(uint16_t)be(p, 2);
    case 9: return (double)(uint32_t)be(p, 4);
    case 10: return (double)(int64_t)be(p, 8);
    case 11: return (double)be(p, 8);
    default: return 0;
  }
}

/* As int64 (netCDF's conversion: integers exactly, reals truncated);
 * returns 0 when the value does not fit. */
static int to_int64(const unsigned char *p, int t, int64_t *out) {
  if (t == 10) {
    *out = (int64_t)be(p, 8);
    return 1;
  }
  if (t == 11) {
    uint64_t u = be(p, 8);
    *out = (int64_t)u;
    return u <= (uint64_t)INT64_MAX;
  }
  if (t == 5 || t == 6) {
    double d = to_double(p, t);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
      *out = INT64_MIN;
      return 0;
    }
    *out = (int64_t)d;
    return 1;
  }
  *out = (int64_t)to_double(p, t); /* 8 to 32-bit integers are exact in a double */
  return 1;
}

/* n raw values of type t at raw into 8-byte doubles ('d') or int64s ('l')
 * at dst, forward (raw lies at the end of dst's span: each value is read
 * before its place is written). The common types have loops of their own:
 * this runs over every value a load reads. 1 if a value did not fit. */
static int convert(const unsigned char *raw, unsigned char *dst, uint64_t n, int t, char as) {
  int bad = 0;
  if ((t == 6 && as == 'd') || (t == 10 && as == 'l')) {
    /* same width: a byte swap in place */
    for (uint64_t i = 0; i < n; i++) {
      uint64_t u;
      memcpy(&u, raw + 8 * i, 8);
      u = __builtin_bswap64(u);
      memcpy(dst + 8 * i, &u, 8);
    }
  } else if (t == 4 && as == 'l') {
    for (uint64_t i = 0; i < n; i++) {
      uint32_t u;
      memcpy(&u, raw + 4 * i, 4);
      int64_t l = (int32_t)__builtin_bswap32(u);
      memcpy(dst + 8 * i, &l, 8);
    }
  } else if (t == 5 && as == 'd') {
    for (uint64_t i = 0; i < n; i++) {
      uint32_t u;
      float f;
      memcpy(&u, raw + 4 * i, 4);
      u = __builtin_bswap32(u);
      memcpy(&f, &u, 4);
      double d = f;
      memcpy(dst + 8 * i, &d, 8);
    }
  } else {
    uint64_t ts = type_size(t);
    for (uint64_t i = 0; i < n; i++) {
      if (as == 'd') {
        double d = to_double(raw + i * ts, t);
        memcpy(dst + i * 8, &d, 8);
      } else {
        int64_t l;
        if (!to_int64(raw + i * ts, t, &l)) bad = 1;
        memcpy(dst + i * 8, &l, 8);
      }
    }
  }
  return bad;
}

int mxn__nc3_att_double(const mxn__nc3_t *h, const mxn__nc3_att_t *a, double *x) {
  if (!a || a->n == 0 || a->type == 2 || !type_size(a->type)) return 0;
  *x = to_double((const unsigned char *)h->arena + a->val, a->type);
  return 1;
}

void mxn__nc3_drop_head(mxn__nc3_t *h) {
  free(h->head);
  h->head = NULL;
  h->head_n = 0;
}

int mxn__nc3_window(mxn__nc3_t *h, int on) {
  if (!on) {
    free(h->win);
    h->win = NULL;
    mxn__nc3_drop_head(h);
  } else if (!h->win && !(h->win = malloc(2 * MXN__NC3_WIN))) {
    return -1;
  }
  h->win_at[0] = h->win_at[1] = h->win_n[0] = h->win_n[1] = 0;
  h->win_next = 0;
  return 0;
}

/* Bytes at..at+n-1 are in window w. */
static int in_window(const mxn__nc3_t *h, int w, uint64_t at, uint64_t n) {
  return at >= h->win_at[w] && at - h->win_at[w] <= h->win_n[w] &&
         n <= h->win_n[w] - (at - h->win_at[w]);
}

/* n bytes at offset `at` into buf; 0, or -2 on a short or failed read. */
static int read_at(const mxn__nc3_t *h, void *buf, uint64_t n, uint64_t at) {
  if (at <= h->head_n && n <= h->head_n - at) {
    memcpy(buf, h->head + at, n);
    return 0;
  }
  if (h->win && n <= MXN__NC3_WIN / 4) {
    /* the window is a cache of the file's bytes: the table is the
     * caller's const view, its storage is not const */
    mxn__nc3_t *m = (mxn__nc3_t *)h;
    int w = in_window(m, 0, at, n) ? 0 : in_window(m, 1, at, n) ? 1 : -1;
    if (w < 0) {
      w = m->win_next;
      uint64_t from = at > MXN__NC3_WIN / 4 ? at - MXN__NC3_WIN / 4 : 0;
      ssize_t got;
      do got = pread(m->fd, m->win + w * MXN__NC3_WIN, MXN__NC3_WIN, (off_t)from);
      while (got < 0 && errno == EINTR);
      m->win_at[w] = from;
      m->win_n[w] = got > 0 ? (uint64_t)got : 0;
    }
    m->win_next = !w;
    if (in_window(m, w, at, n)) {
      memcpy(buf, m->win + w * MXN__NC3_WIN + (at - m->win_at[w]), n);
      return 0;
    }
  }
  char *p = buf;
  while (n > 0) {
    ssize_t got = pread(h->fd, p, n, (off_t)at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -2;
    p += got;
    n -= (uint64_t)got;
    at += (uint64_t)got;
  }
  return 0;
}

int mxn__nc3_get(const mxn__nc3_t *h, int v, const size_t *start, const size_t *count,
                 const ptrdiff_t *stride, void *out, char as) {
  if (v < 0 || v >= h->nvars) return -1;
  const mxn__nc3_var_t *x = &h->vars[v];
  int nd = x->nd, t = x->type;
  uint64_t ts = type_size(t);
  if ((as == 'c') != (t == 2)) return -1;
  uint64_t shape[NC3_READ_DIMS], mult[NC3_READ_DIMS], total = 1;
  for (int d = nd - 1; d >= 0; d--) {
    shape[d] = mxn__nc3_var_dim(h, v, d);
    mult[d] = d == nd - 1 ? 1 : mult[d + 1] * shape[d + 1];
    uint64_t st = stride ? (uint64_t)stride[d] : 1;
    if ((stride && stride[d] < 1) || start[d] > shape[d] ||
        (count[d] > 0 && (count[d] - 1) > (shape[d] - start[d] - 1) / st) ||
        (count[d] > 0 && start[d] >= shape[d]))
      return -1;
    total *= count[d];
  }
  if (total == 0) return 0;
  /* The trailing dimensions read as one run: whole ones, and before them
   * one read in part at stride 1 (never the record dimension). */
  int k = nd;
  while (k > 0) {
    int d = k - 1;
    if ((x->rec && d == 0) || (stride && stride[d] != 1 && count[d] > 1)) break;
    k = d;
    if (start[d] != 0 || count[d] != shape[d]) break;
  }
  uint64_t run = 1;
  for (int d = k; d < nd; d++) run *= count[d];
  size_t osz = as == 'c' ? 1 : 8;
  size_t idx[NC3_READ_DIMS] = {0};
  int rc = 0;
  for (uint64_t pos = 0; pos < total; pos += run) {
    uint64_t off = x->begin;
    for (int d = 0; d < nd; d++) {
      uint64_t i = start[d] + (d < k ? idx[d] * (stride ? (uint64_t)stride[d] : 1) : 0);
      if (x->rec && d == 0)
        off += i * h->recsize;
      else
        off += i * mult[d] * ts;
    }
    /* raw values at the end of their place in out, converted forward */
    unsigned char *dst = (unsigned char *)out + pos * osz;
    unsigned char *raw = dst + run * (osz - ts);
    if (read_at(h, raw, run * ts, off)) return -2;
    if (as != 'c' && convert(raw, dst, run, t, as)) rc = -3;
    for (int d = k - 1; d >= 0; d--) {
      if (++idx[d] < count[d]) break;
      idx[d] = 0;
    }
  }
  return rc;
}

int mxn__nc3_get_each(const mxn__nc3_t *h, int nv, const int *v, uint64_t first, uint64_t n,
                      void *const *out, char as) {
  if (nv < 1 || nv > 3 || n == 0 || as == 'c' || v[0] < 0 || v[0] >= h->nvars) return 0;
  const mxn__nc3_var_t *x0 = &h->vars[v[0]];
  uint64_t ts = type_size(x0->type);
  size_t osz = 8;
  unsigned char gap[MXN__NC3_GAP];
  struct iovec iov[5];
  int niov = 0;
  uint64_t end = 0, from = 0;
  for (int k = 0; k < nv; k++) {
    if (v[k] < 0 || v[k] >= h->nvars) return 0;
    const mxn__nc3_var_t *x = &h->vars[v[k]];
    if (x->nd != 1 || x->rec || x->type != x0->type || x->type == 2 ||
        first > mxn__nc3_var_dim(h, v[k], 0) || n > mxn__nc3_var_dim(h, v[k], 0) - first)
      return 0;
    uint64_t at = x->begin + first * ts;
    if (k == 0) {
      from = at;
    } else {
      if (at < end || at - end > MXN__NC3_GAP) return 0;
      if (at > end) iov[niov++] = (struct iovec){gap, (size_t)(at - end)};
    }
    /* raw values at the end of their place in out, converted forward */
    iov[niov++] = (struct iovec){(unsigned char *)out[k] + n * (osz - ts), (size_t)(n * ts)};
    end = at + n * ts;
  }
  uint64_t want = end - from, got_all = 0;
  while (got_all < want) {
    ssize_t got = preadv(h->fd, iov, niov, (off_t)(from + got_all));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -2;
    got_all += (uint64_t)got;
    /* a short read: skip what arrived and ask for the rest */
    uint64_t skip = (uint64_t)got;
    int i = 0;
    while (i < niov && skip >= iov[i].iov_len) skip -= iov[i++].iov_len;
    memmove(iov, iov + i, (size_t)(niov - i) * sizeof *iov);
    niov -= i;
    if (niov > 0) {
      iov[0].iov_base = (unsigned char *)iov[0].iov_base + skip;
      iov[0].iov_len -= skip;
    }
  }
  int rc = 1;
  for (int k = 0; k < nv; k++) {
    unsigned char *dst = out[k];
    if (convert(dst + n * (osz - ts), dst, n, x0->type, as)) rc = -3;
  }
  return rc;
}
