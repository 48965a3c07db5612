/* Sorted unique id sets and their linear-time algebra. */
#include "mxn/idset.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Pairs (id, input index) sorted by id, for the position-returning builder. */
typedef struct {
  mxn_gid_t id;
  int64_t at;
} id_at_t;

/* Stable LSD radix sort of n records of size sz by the int64 key at their
 * start (11 bits a pass, only as many passes as the key range needs):
 * the rendezvous sorts hundreds of thousands of records per rank. */
/* One counting pass of the radix sort: records of sz bytes from src to dst
 * by the 11-bit digit at `shift` of (key - lo). SZ is a constant where the
 * caller knows it, so the copies inline. */
#define RADIX_PASS(SZ)                                                              \
  do {                                                                              \
    for (int64_t i = 0; i < n; i++) {                                               \
      int64_t k;                                                                    \
      memcpy(&k, src + i * (SZ), sizeof k);                                         \
      memcpy(dst + cnt[((uint64_t)k - (uint64_t)lo) >> shift & 2047]++ * (SZ),       \
             src + i * (SZ), (SZ));                                                 \
    }                                                                               \
  } while (0)

int mxn__radix_sort(void *recs, int64_t n, size_t sz) {
  if (n < 2) return MXN_OK;
  char *a = recs;
  int64_t lo, hi, prev;
  int sorted = 1;
  memcpy(&lo, a, sizeof lo);
  hi = prev = lo;
  for (int64_t i = 1; i < n; i++) {
    int64_t k;
    memcpy(&k, a + i * sz, sizeof k);
    if (k < lo) lo = k;
    if (k > hi) hi = k;
    if (k < prev) sorted = 0;
    prev = k;
  }
  if (sorted) return MXN_OK; /* already in order: the sort is stable */
  char *tmp = mxn__malloc((size_t)n * sz);
  int64_t *cnt = mxn__calloc(2048 + 1, sizeof *cnt);
  if (!tmp || !cnt) {
    free(tmp);
    free(cnt);
    return MXN_ERR_NOMEM;
  }
  uint64_t range = (uint64_t)hi - (uint64_t)lo;
  char *src = a, *dst = tmp;
  for (int shift = 0; shift < 64 && (range >> shift) > 0; shift += 11) {
    memset(cnt, 0, (2048 + 1) * sizeof *cnt);
    for (int64_t i = 0; i < n; i++) {
      int64_t k;
      memcpy(&k, src + i * sz, sizeof k);
      cnt[(((uint64_t)k - (uint64_t)lo) >> shift & 2047) + 1]++;
    }
    for (int d = 0; d < 2048; d++) cnt[d + 1] += cnt[d];
    switch (sz) {
      case 8: RADIX_PASS(8); break;
      case 16: RADIX_PASS(16); break;
      case 24: RADIX_PASS(24); break;
      case 32: RADIX_PASS(32); break;
      case 48: RADIX_PASS(48); break;
      default: RADIX_PASS(sz); break;
    }
    char *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, (size_t)n * sz);
  free(tmp);
  free(cnt);
  return MXN_OK;
}
#undef RADIX_PASS

/* After mxn__radix_sort by the leading key: order each run of equal keys
 * by cmp as well (runs are short: a few holders of one id). */
void mxn__sort_ties(void *recs, int64_t n, size_t sz, int (*cmp)(const void *, const void *)) {
  char *a = recs;
  for (int64_t i = 0; i < n;) {
    int64_t k0, k1, j = i + 1;
    memcpy(&k0, a + i * sz, sizeof k0);
    while (j < n && (memcpy(&k1, a + j * sz, sizeof k1), k1 == k0)) j++;
    if (j - i > 1) qsort(a + i * sz, (size_t)(j - i), sz, cmp);
    i = j;
  }
}

/* A usable set descriptor. n < 0, or members without an array, would make the
 * merges below size their buffers wrongly (union overran its buffer), so they
 * are rejected as MXN_ERR_ARG. Sortedness is the caller's promise: checking
 * it would double the cost of every operation. */
static int set_ok(const mxn_idset_t *s) {
  return s && s->n >= 0 && (s->n == 0 || s->ids);
}

int mxn_ids_sorted_unique(const mxn_gid_t *ids, int64_t n) {
  for (int64_t i = 1; i < n; i++)
    if (ids[i - 1] >= ids[i]) return 0;
  return 1;
}

void mxn_idset_free(mxn_idset_t *s) {
  if (!s) return;
  free(s->ids);
  s->ids = NULL;
  s->n = 0;
}

int mxn_idset_copy(const mxn_idset_t *s, mxn_idset_t *out) {
  if (!set_ok(s) || !out) return MXN_ERR_ARG;
  out->ids = NULL;
  out->n = 0;
  if (s->n == 0) return MXN_OK;
  out->ids = mxn__malloc((size_t)s->n * sizeof *out->ids);
  if (!out->ids) return MXN_ERR_NOMEM;
  memcpy(out->ids, s->ids, (size_t)s->n * sizeof *out->ids);
  out->n = s->n;
  return MXN_OK;
}

int mxn_idset_from_array(const mxn_gid_t *ids, int64_t n, mxn_idset_t *out) {
  if (!out || n < 0 || (n > 0 && !ids)) return MXN_ERR_ARG;
  out->ids = NULL;
  out->n = 0;
  if (n == 0) return MXN_OK;
  mxn_gid_t *v = mxn__malloc((size_t)n * sizeof *v);
  if (!v) return MXN_ERR_NOMEM;
  memcpy(v, ids, (size_t)n * sizeof *v);
  /* Input that is already a set (file maps usually are) skips the sort. */
  if (!mxn_ids_sorted_unique(v, n)) {
    if (mxn__radix_sort(v, n, sizeof *v) != MXN_OK) {
      free(v);
      return MXN_ERR_NOMEM;
    }
    int64_t m = 1;
    for (int64_t i = 1; i < n; i++)
      if (v[i] != v[m - 1]) v[m++] = v[i];
    n = m;
  }
  out->ids = v;
  out->n = n;
  return MXN_OK;
}

int mxn_idset_from_array_pos(const mxn_gid_t *ids, int64_t n, mxn_idset_t *out,
                             int64_t **pos) {
  if (!pos) return mxn_idset_from_array(ids, n, out);
  if (!out || n < 0 || (n > 0 && !ids)) return MXN_ERR_ARG;
  out->ids = NULL;
  out->n = 0;
  *pos = NULL;
  if (n == 0) return MXN_OK;
  int status = MXN_ERR_NOMEM;
  id_at_t *pairs = mxn__malloc((size_t)n * sizeof *pairs);
  mxn_gid_t *v = mxn__malloc((size_t)n * sizeof *v);
  int64_t *p = mxn__malloc((size_t)n * sizeof *p);
  if (!pairs || !v || !p) goto done;
  for (int64_t i = 0; i < n; i++) pairs[i] = (id_at_t){ids[i], i};
  /* stable by id: equal ids keep their input order, as cmp_id_at wants */
  if (mxn__radix_sort(pairs, n, sizeof *pairs) != MXN_OK) goto done;
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++) {
    if (m == 0 || pairs[i].id != v[m - 1]) v[m++] = pairs[i].id;
    p[pairs[i].at] = m - 1;
  }
  out->ids = v;
  out->n = m;
  *pos = p;
  v = NULL;
  p = NULL;
  status = MXN_OK;
done:
  free(pairs);
  free(v);
  free(p);
  return status;
}

int64_t mxn__lower_bound(const int64_t *a, int64_t n, int64_t v) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int64_t mxn_idset_find(const mxn_idset_t *s, mxn_gid_t id) {
  if (!set_ok(s)) return -1;
  int64_t lo = mxn__lower_bound(s->ids, s->n, id);
  return (lo < s->n && s->ids[lo] == id) ? lo : -1;
}

/* First index >= lo of sorted a[0..n) whose value is >= x: exponential
 * then binary search, so a walk over a small set through a large one costs
 * O(small * log(large / small)). */
static int64_t gallop(const mxn_gid_t *a, int64_t n, int64_t lo, mxn_gid_t x) {
  int64_t step = 1, hi = lo;
  while (hi < n && a[hi] < x) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > n) hi = n;
  return lo + mxn__lower_bound(a + lo, hi - lo, x);
}

/* The one intersection walk behind count, intersect and match: a merge
 * that gallops on whichever side falls behind by more than one step, so
 * it costs about the common members plus a logarithm per switch between
 * runs. A member's few thousand ids against a rank's part of 250 k (a
 * linear merge walked the whole part for every member: a seventh of a
 * load's instructions at M = 64, N = 4) or a small set through a large
 * one both cost little. Each common id goes to v, its positions i in a
 * and j in b to pa and pb, and with dst, dst[at ? at[i] : i] = val ?
 * val[j] : j; any output may be NULL. Returns the number of common
 * members. */
static int64_t intersect_walk(const mxn_idset_t *a, const mxn_idset_t *b, mxn_gid_t *v,
                              int64_t *pa, int64_t *pb, const int64_t *at, const int64_t *val,
                              int64_t *dst) {
  int64_t k = 0, i = 0, j = 0;
  const mxn_gid_t *x = a->ids, *y = b->ids;
  while (i < a->n && j < b->n) {
    if (x[i] < y[j]) {
      if (++i < a->n && x[i] < y[j]) i = gallop(x, a->n, i, y[j]);
    } else if (x[i] > y[j]) {
      if (++j < b->n && y[j] < x[i]) j = gallop(y, b->n, j, x[i]);
    } else {
      if (v) v[k] = x[i];
      if (pa) pa[k] = i;
      if (pb) pb[k] = j;
      if (dst) dst[at ? at[i] : i] = val ? val[j] : j;
      k++;
      i++;
      j++;
    }
  }
  return k;
}

int64_t mxn__idset_match(const mxn_idset_t *a, const mxn_idset_t *b, const int64_t *at,
                         const int64_t *val, int64_t *dst) {
  if (!set_ok(a) || !set_ok(b) || !dst) return 0;
  return intersect_walk(a, b, NULL, NULL, NULL, at, val, dst);
}

int64_t mxn_idset_intersect_count(const mxn_idset_t *a, const mxn_idset_t *b) {
  if (!set_ok(a) || !set_ok(b)) return 0;
  return intersect_walk(a, b, NULL, NULL, NULL, NULL, NULL, NULL);
}

int mxn_idset_intersect(const mxn_idset_t *a, const mxn_idset_t *b,
                        mxn_idset_t *out, int64_t **pos_a, int64_t **pos_b) {
  if (!set_ok(a) || !set_ok(b) || !out) return MXN_ERR_ARG;
  out->ids = NULL;
  out->n = 0;
  if (pos_a) *pos_a = NULL;
  if (pos_b) *pos_b = NULL;
  int64_t cap = a->n < b->n ? a->n : b->n;
  if (cap == 0) return MXN_OK;
  int status = MXN_ERR_NOMEM;
  mxn_gid_t *v = mxn__malloc((size_t)cap * sizeof *v);
  int64_t *pa = pos_a ? mxn__malloc((size_t)cap * sizeof *pa) : NULL;
  int64_t *pb = pos_b ? mxn__malloc((size_t)cap * sizeof *pb) : NULL;
  if (!v || (pos_a && !pa) || (pos_b && !pb)) goto done;
  int64_t k = intersect_walk(a, b, v, pa, pb, NULL, NULL, NULL);
  if (k == 0) {
    status = MXN_OK;
    goto done;
  }
  out->ids = v;
  out->n = k;
  if (pos_a) *pos_a = pa;
  if (pos_b) *pos_b = pb;
  return MXN_OK;
done:
  free(v);
  free(pa);
  free(pb);
  return status;
}

int mxn_idset_difference(const mxn_idset_t *a, const mxn_idset_t *b,
                         mxn_idset_t *out) {
  if (!set_ok(a) || !set_ok(b) || !out) return MXN_ERR_ARG;
  out->ids = NULL;
  out->n = 0;
  if (a->n == 0) return MXN_OK;
  mxn_gid_t *v = mxn__malloc((size_t)a->n * sizeof *v);
  if (!v) return MXN_ERR_NOMEM;
  int64_t i = 0, j = 0, k = 0;
  while (i < a->n) {
    while (j < b->n && b->ids[j] < a->ids[i]) j++;
    if (j < b->n && b->ids[j] == a->ids[i])
      i++;
    else
      v[k++] = a->ids[i++];
  }
  if (k == 0) {
    free(v);
    return MXN_OK;
  }
  out->ids = v;
  out->n = k;
  return MXN_OK;
}

int mxn_idset_union(const mxn_idset_t *a, const mxn_idset_t *b,
                    mxn_idset_t *out) {
  if (!set_ok(a) || !set_ok(b) || !out) return MXN_ERR_ARG;
  out->ids = NULL;
  out->n = 0;
  int64_t cap = a->n + b->n;
  if (cap == 0) return MXN_OK;
  mxn_gid_t *v = mxn__malloc((size_t)cap * sizeof *v);
  if (!v) return MXN_ERR_NOMEM;
  int64_t i = 0, j = 0, k = 0;
  while (i < a->n || j < b->n) {
    if (j >= b->n || (i < a->n && a->ids[i] < b->ids[j]))
      v[k++] = a->ids[i++];
    else if (i >= a->n || b->ids[j] < a->ids[i])
      v[k++] = b->ids[j++];
    else {
      v[k++] = a->ids[i++];
      j++;
    }
  }
  out->ids = v;
  out->n = k;
  return MXN_OK;
}
