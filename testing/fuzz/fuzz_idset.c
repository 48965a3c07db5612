/* libFuzzer harness: the id-set algebra (idset.h) and the greedy cover
 * (cover.h) against brute-force references.
 *
 * Input: byte 0 gives the number of file domains (0..7); then the arrays
 * P, F_0, F_1, ...: a count byte (0..63) followed by that many values. A
 * value byte below 0xF0 is a small id (b % 48 - 8, so sets overlap and
 * hold negatives); 0xF0 and above takes the next 8 bytes as a raw int64
 * (the extremes INT64_MIN/MAX and sign-crossing ranges). Arrays are
 * unsorted with repeats; sets are built with mxn_idset_from_array_pos.
 *
 * Checked: sets strictly increasing and holding exactly the input values;
 * positions; find; intersection (both mappings, count), difference, union
 * by membership; copy; and the cover: E_j = R ∩ F_j of the remnant, MF/MP
 * mappings, each member of P once, `uncovered` = P minus every F_j, and the
 * greedy choice (most remaining members, ties to the lowest index)
 * replayed naively. Any violation aborts (a finding). */
#include "mxn/cover.h"
#include "mxn/idset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXF 8
#define CHECK(c)            \
  do {                      \
    if (!(c)) abort();      \
  } while (0)

typedef struct {
  const uint8_t *p;
  size_t n;
} rd_t;

static int rd_byte(rd_t *r, uint8_t *b) {
  if (r->n == 0) return 0;
  *b = *r->p++;
  r->n--;
  return 1;
}

static int64_t rd_value(rd_t *r) {
  uint8_t b = 0;
  rd_byte(r, &b);
  if (b < 0xF0) return (int64_t)(b % 48) - 8;
  uint64_t v = 0;
  for (int k = 0; k < 8; k++) {
    uint8_t c = 0;
    rd_byte(r, &c);
    v = v << 8 | c;
  }
  return (int64_t)v;
}

/* Brute-force membership in an unsorted array. */
static int in_array(const int64_t *a, int64_t n, int64_t v) {
  for (int64_t k = 0; k < n; k++)
    if (a[k] == v) return 1;
  return 0;
}

static int in_set(const mxn_idset_t *s, int64_t v) { return in_array(s->ids, s->n, v); }

static void check_set(const mxn_idset_t *s) {
  CHECK(s->n >= 0);
  CHECK(s->n == 0 || s->ids != NULL);
  CHECK(mxn_ids_sorted_unique(s->ids, s->n));
  for (int64_t k = 1; k < s->n; k++) CHECK(s->ids[k - 1] < s->ids[k]);
}

/* Build a set from an array and check it against the array. */
static void build(const int64_t *a, int64_t n, mxn_idset_t *s) {
  int64_t *pos = NULL;
  CHECK(mxn_idset_from_array_pos(a, n, s, &pos) == MXN_OK);
  check_set(s);
  CHECK(s->n <= n);
  for (int64_t k = 0; k < n; k++) {
    CHECK(pos[k] >= 0 && pos[k] < s->n);
    CHECK(s->ids[pos[k]] == a[k]);
    CHECK(mxn_idset_find(s, a[k]) == pos[k]);
  }
  for (int64_t k = 0; k < s->n; k++) CHECK(in_array(a, n, s->ids[k]));
  free(pos);
  /* The plain builder gives the same set. */
  mxn_idset_t t = MXN_IDSET_INIT;
  CHECK(mxn_idset_from_array(a, n, &t) == MXN_OK);
  CHECK(t.n == s->n && (t.n == 0 || !memcmp(t.ids, s->ids, (size_t)t.n * sizeof *t.ids)));
  mxn_idset_free(&t);
  CHECK(t.ids == NULL && t.n == 0);
}

static void check_algebra(const mxn_idset_t *a, const mxn_idset_t *b) {
  mxn_idset_t e = MXN_IDSET_INIT, d = MXN_IDSET_INIT, u = MXN_IDSET_INIT, c = MXN_IDSET_INIT;
  int64_t *pa = NULL, *pb = NULL;
  CHECK(mxn_idset_intersect(a, b, &e, &pa, &pb) == MXN_OK);
  check_set(&e);
  CHECK(mxn_idset_intersect_count(a, b) == e.n);
  int64_t both = 0;
  for (int64_t k = 0; k < a->n; k++) both += in_set(b, a->ids[k]);
  CHECK(both == e.n);
  for (int64_t k = 0; k < e.n; k++) {
    CHECK(pa[k] >= 0 && pa[k] < a->n && a->ids[pa[k]] == e.ids[k]);
    CHECK(pb[k] >= 0 && pb[k] < b->n && b->ids[pb[k]] == e.ids[k]);
  }
  CHECK(mxn_idset_difference(a, b, &d) == MXN_OK);
  check_set(&d);
  CHECK(d.n == a->n - e.n);
  for (int64_t k = 0; k < d.n; k++) CHECK(in_set(a, d.ids[k]) && !in_set(b, d.ids[k]));
  CHECK(mxn_idset_union(a, b, &u) == MXN_OK);
  check_set(&u);
  CHECK(u.n == a->n + b->n - e.n);
  for (int64_t k = 0; k < u.n; k++) CHECK(in_set(a, u.ids[k]) || in_set(b, u.ids[k]));
  CHECK(mxn_idset_copy(a, &c) == MXN_OK);
  CHECK(c.n == a->n && (c.n == 0 || (c.ids != a->ids &&
                                     !memcmp(c.ids, a->ids, (size_t)c.n * sizeof *c.ids))));
  /* Not members: neighbours of members, where they are not members. */
  for (int64_t k = 0; k < a->n; k++) {
    int64_t v = a->ids[k];
    if (v < INT64_MAX && !in_set(a, v + 1)) CHECK(mxn_idset_find(a, v + 1) == -1);
    if (v > INT64_MIN && !in_set(a, v - 1)) CHECK(mxn_idset_find(a, v - 1) == -1);
  }
  free(pa);
  free(pb);
  mxn_idset_free(&e);
  mxn_idset_free(&d);
  mxn_idset_free(&u);
  mxn_idset_free(&c);
}

static void check_cover(const mxn_idset_t *P, const mxn_idset_t *F, int nf) {
  mxn_cover_t cv;
  CHECK(mxn_cover_greedy(P, F, nf, &cv) == MXN_OK);
  CHECK(cv.nparts >= 0 && cv.nparts <= nf);
  check_set(&cv.uncovered);
  /* Replay the greedy choice on a remnant kept as flags over P. */
  char *left = calloc((size_t)P->n + 1, 1), *used = calloc(MAXF, 1);
  CHECK(left && used);
  memset(left, 1, (size_t)P->n);
  for (int k = 0; k < cv.nparts; k++) {
    const mxn_cover_part_t *pt = &cv.parts[k];
    CHECK(pt->file >= 0 && pt->file < nf && !used[pt->file]);
    int64_t best = 0;
    int bestj = -1;
    for (int j = 0; j < nf; j++) {
      if (used[j]) continue;
      int64_t h = 0;
      for (int64_t q = 0; q < P->n; q++) h += left[q] && in_set(&F[j], P->ids[q]);
      if (h > best) best = h, bestj = j;
    }
    CHECK(bestj == pt->file);
    used[pt->file] = 1;
    check_set(&pt->E);
    CHECK(pt->E.n == best);
    for (int64_t q = 0; q < pt->E.n; q++) {
      CHECK(pt->mf[q] >= 0 && pt->mf[q] < F[pt->file].n);
      CHECK(F[pt->file].ids[pt->mf[q]] == pt->E.ids[q]);
      CHECK(pt->mp[q] >= 0 && pt->mp[q] < P->n && P->ids[pt->mp[q]] == pt->E.ids[q]);
      CHECK(left[pt->mp[q]]);
      left[pt->mp[q]] = 0;
    }
  }
  /* Nothing left that an unused file could cover, and uncovered = the rest. */
  int64_t rest = 0;
  for (int64_t q = 0; q < P->n; q++) {
    if (!left[q]) continue;
    rest++;
    CHECK(mxn_idset_find(&cv.uncovered, P->ids[q]) >= 0);
    for (int j = 0; j < nf; j++) CHECK(!in_set(&F[j], P->ids[q]));
  }
  CHECK(rest == cv.uncovered.n);
  free(left);
  free(used);
  mxn_cover_free(&cv);
  CHECK(cv.nparts == 0 && cv.parts == NULL && cv.uncovered.n == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rd_t r = {data, size};
  uint8_t b = 0;
  if (!rd_byte(&r, &b)) return 0;
  int nf = b % MAXF;
  mxn_idset_t P = MXN_IDSET_INIT, F[MAXF];
  for (int j = 0; j < MAXF; j++) F[j] = (mxn_idset_t)MXN_IDSET_INIT;
  int64_t vals[64];
  for (int s = 0; s <= nf; s++) {
    uint8_t cnt = 0;
    rd_byte(&r, &cnt);
    int64_t n = cnt % 64;
    for (int64_t k = 0; k < n; k++) vals[k] = rd_value(&r);
    build(vals, n, s == 0 ? &P : &F[s - 1]);
  }
  check_algebra(&P, nf > 0 ? &F[0] : &P);
  if (nf > 1) check_algebra(&F[0], &F[1]);
  check_cover(&P, F, nf);
  /* Malformed descriptors are refused, not read. */
  mxn_idset_t bad = {NULL, 3}, out = MXN_IDSET_INIT;
  CHECK(mxn_idset_union(&P, &bad, &out) == MXN_ERR_ARG);
  CHECK(mxn_cover_greedy(&bad, F, nf, (mxn_cover_t[1]){{0}}) == MXN_ERR_ARG);
  mxn_idset_free(&P);
  for (int j = 0; j < MAXF; j++) mxn_idset_free(&F[j]);
  return 0;
}
