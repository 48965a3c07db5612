/* The member summary's wire format (private to summary.c and merge.c).
 *
 * Everything the structure needs from one member's header is read (by
 * netCDF name, under Exodus II's naming rules) into a byte stream
 * (summary.c) and merged into the
 * structure from that stream (merge.c). A serial open does both, one
 * member after the other; a collective open (mxn_dataset_open_collective)
 * lets each rank read only a share of the members and exchange the
 * streams, so no rank opens every member. Either way the members are
 * merged in order 0..M-1 by the same code, so the structure and any error
 * are the same. A member that cannot be read gives a stream holding just
 * its error. The stream is native-endian 64-bit integers and doubles and
 * length-prefixed strings: it only travels between ranks of one job. */
#ifndef MXN_SUMMARY_H
#define MXN_SUMMARY_H

#include "structure/structure.h"

typedef struct {
  char *p;
  size_t n, cap;
  int nomem;
} wbuf_t;

typedef struct {
  const char *p;
  size_t n, at;
  int bad;
} rbuf_t;

static inline void w_raw(wbuf_t *w, const void *x, size_t n) {
  if (w->nomem || n == 0) return;
  if (w->n + n > w->cap) {
    size_t cap = w->cap ? w->cap : 1024;
    while (cap < w->n + n) cap *= 2;
    char *q = mxn__realloc(w->p, cap);
    if (!q) {
      w->nomem = 1;
      return;
    }
    w->p = q;
    w->cap = cap;
  }
  memcpy(w->p + w->n, x, n);
  w->n += n;
}
static inline void w_i64(wbuf_t *w, int64_t v) { w_raw(w, &v, sizeof v); }
static inline void w_f64(wbuf_t *w, double v) { w_raw(w, &v, sizeof v); }
static inline void w_str(wbuf_t *w, const char *s) {
  int64_t n = (int64_t)strlen(s);
  w_i64(w, n);
  w_raw(w, s, (size_t)n);
}

static inline void r_raw(rbuf_t *r, void *x, size_t n) {
  if (r->bad || n > r->n - r->at) {
    r->bad = 1;
    memset(x, 0, n);
    return;
  }
  memcpy(x, r->p + r->at, n);
  r->at += n;
}
static inline int64_t r_i64(rbuf_t *r) {
  int64_t v;
  r_raw(r, &v, sizeof v);
  return v;
}
static inline double r_f64(rbuf_t *r) {
  double v;
  r_raw(r, &v, sizeof v);
  return v;
}
static inline void r_str(rbuf_t *r, char *out, size_t cap) {
  int64_t n = r_i64(r);
  out[0] = '\0';
  if (r->bad || n < 0 || (size_t)n >= cap || (size_t)n > r->n - r->at) {
    r->bad = 1;
    return;
  }
  memcpy(out, r->p + r->at, (size_t)n);
  out[n] = '\0';
  r->at += (size_t)n;
}

/* Variable families, as messages name them, in the order a summary stores them:
 * nodal, element, global, edge, face, then the set kinds. */
static const char *const mxn__fam_what[MXN__NV] = {"nodal", "element", "global", "edge", "face",
                                              "node set", "side set", "edge set", "face set",
                                              "element set"};

/* The objects variable family v is defined over in a member of nblk_of
 * blocks and nsets_of sets of each kind (0 for nodal and global
 * variables), or -1 when the stream holds nothing of the family for the
 * member (edge, face and set variables of a member without such objects).
 * The summary that writes the stream and the merge that reads it go by
 * this one rule. */
static inline int64_t mxn__fam_objects(int v, const int64_t *nblk_of, const int64_t *nsets_of) {
  int64_t nobj = v == MXN__V_NODAL || v == MXN__V_GLOBAL ? 0
                 : v == MXN__V_ELEM                      ? nblk_of[MXN__ELEM]
                 : v == MXN__V_EDGE                      ? nblk_of[MXN__EDGE]
                 : v == MXN__V_FACE                      ? nblk_of[MXN__FACE]
                                                         : nsets_of[v - MXN__V_SET0];
  return (v == MXN__V_EDGE || v == MXN__V_FACE || v >= MXN__V_SET0) && nobj <= 0 ? -1 : nobj;
}

#endif /* MXN_SUMMARY_H */
