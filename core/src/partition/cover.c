/* Greedy minimal cover (seed mxn-repartitioning-algorithm.txt §III). */
#include "mxn/cover.h"

#include "alloc.h"
#include "partition/greedy.h"

#include <stdlib.h>
#include <string.h>

void mxn_cover_free(mxn_cover_t *c) {
  if (!c) return;
  for (int k = 0; k < c->nparts; k++) {
    mxn_idset_free(&c->parts[k].E);
    free(c->parts[k].mf);
    free(c->parts[k].mp);
  }
  free(c->parts);
  mxn_idset_free(&c->uncovered);
  memset(c, 0, sizeof *c);
}

/* Max-heap of file indices ordered by (hits descending, index ascending),
 * the greedy rule's order. */
static int heap_before(const int64_t *hits, int a, int b) {
  return hits[a] > hits[b] || (hits[a] == hits[b] && a < b);
}

static void heap_push(int *h, int *n, const int64_t *hits, int j) {
  int i = (*n)++;
  h[i] = j;
  while (i > 0 && heap_before(hits, h[i], h[(i - 1) / 2])) {
    int p = (i - 1) / 2, t = h[p];
    h[p] = h[i];
    h[i] = t;
    i = p;
  }
}

static int heap_pop(int *h, int *n, const int64_t *hits) {
  int top = h[0];
  h[0] = h[--(*n)];
  for (int i = 0;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < *n && heap_before(hits, h[l], h[m])) m = l;
    if (r < *n && heap_before(hits, h[r], h[m])) m = r;
    if (m == i) break;
    int t = h[m];
    h[m] = h[i];
    h[i] = t;
    i = m;
  }
  return top;
}

/* P's positions by id, where its ids are compact (mxn__id_table_span):
 * at[id - P->ids[0]] = position + 1, 0 where the id is not in P. NULL
 * where they spread wider, or out of memory: the intersections then walk
 * the sets. */
static uint32_t *position_table(const mxn_idset_t *P) {
  uint64_t span = P->n ? mxn__id_table_span(P->ids[0], P->ids[P->n - 1], P->n) : 0;
  if (!span) return NULL;
  uint32_t *at = mxn__calloc((size_t)span, sizeof *at);
  if (!at) return NULL;
  const mxn_gid_t lo = P->ids[0];
  for (int64_t i = 0; i < P->n; i++) at[(uint64_t)P->ids[i] - (uint64_t)lo] = (uint32_t)(i + 1);
  return at;
}

/* F ∩ P as mxn_idset_intersect gives its positions (*mf into F, *mp into
 * P, both NULL where it is empty; *n members), through P's position table:
 * one look-up for each of F's ids in P's range, in id order, where the
 * walk galloped between the runs in which a small member's ids interleave
 * with a rank's part, which costs a search per run where runs are short.
 * With few large members, longer runs, the two are about even. */
static int intersect_by_table(const mxn_idset_t *F, const mxn_idset_t *P, const uint32_t *at,
                              int64_t **mf, int64_t **mp, int64_t *n) {
  *mf = *mp = NULL;
  *n = 0;
  if (F->n == 0 || P->n == 0) return MXN_OK;
  const mxn_gid_t lo = P->ids[0], hi = P->ids[P->n - 1];
  int64_t a = mxn__lower_bound(F->ids, F->n, lo);
  int64_t b = a + mxn__lower_bound(F->ids + a, F->n - a, hi);
  if (b < F->n && F->ids[b] == hi) b++;
  int64_t cap = b - a < P->n ? b - a : P->n;
  if (cap <= 0) return MXN_OK;
  int64_t *pf = mxn__malloc((size_t)cap * sizeof *pf), *pp = mxn__malloc((size_t)cap * sizeof *pp);
  if (!pf || !pp) {
    free(pf);
    free(pp);
    return MXN_ERR_NOMEM;
  }
  int64_t k = 0;
  for (int64_t i = a; i < b; i++) {
    uint32_t q = at[(uint64_t)F->ids[i] - (uint64_t)lo];
    if (!q) continue;
    pf[k] = i;
    pp[k] = (int64_t)q - 1;
    k++;
  }
  if (k == 0) {
    free(pf);
    free(pp);
    return MXN_OK;
  }
  *mf = pf;
  *mp = pp;
  *n = k;
  return MXN_OK;
}

int mxn_cover_greedy(const mxn_idset_t *P, const mxn_idset_t *F, int nfiles,
                     mxn_cover_t *out) {
  return mxn__cover_greedy(P, F, nfiles, 1, out);
}

int mxn__cover_greedy(const mxn_idset_t *P, const mxn_idset_t *F, int nfiles, int ids,
                      mxn_cover_t *out) {
  if (!P || !out || nfiles < 0 || (nfiles > 0 && !F)) return MXN_ERR_ARG;
  /* Malformed sets (n < 0, or members without an array) are caller bugs;
   * without this check they surface as NOMEM or are silently ignored. */
  if (P->n < 0 || (P->n > 0 && !P->ids)) return MXN_ERR_ARG;
  for (int j = 0; j < nfiles; j++)
    if (F[j].n < 0 || (F[j].n > 0 && !F[j].ids)) return MXN_ERR_ARG;
  memset(out, 0, sizeof *out);
  int status = MXN_ERR_NOMEM;
  /* Each file's members of P, as positions (MF into F_j, MP into P), found
   * once; the remnant R is P minus what is marked covered. */
  int64_t **mf = mxn__calloc((size_t)nfiles + 1, sizeof *mf);
  int64_t **mp = mxn__calloc((size_t)nfiles + 1, sizeof *mp);
  int64_t *hits = mxn__calloc((size_t)nfiles + 1, sizeof *hits);
  int *heap = mxn__malloc(((size_t)nfiles + 1) * sizeof *heap);
  char *covered = mxn__calloc((size_t)P->n + 1, 1);
  uint32_t *at = NULL;
  if (!mf || !mp || !hits || !heap || !covered) goto done;
  out->parts = mxn__calloc((size_t)nfiles + 1, sizeof *out->parts);
  if (!out->parts) goto done;
  int nheap = 0;
  at = position_table(P);
  for (int j = 0; j < nfiles; j++) {
    if (at) {
      if ((status = intersect_by_table(&F[j], P, at, &mf[j], &mp[j], &hits[j])) != MXN_OK)
        goto done;
    } else {
      mxn_idset_t E = MXN_IDSET_INIT;
      if ((status = mxn_idset_intersect(&F[j], P, &E, &mf[j], &mp[j])) != MXN_OK) goto done;
      hits[j] = E.n;
      mxn_idset_free(&E);
    }
    if (hits[j] > 0) heap_push(heap, &nheap, hits, j);
  }

  /* Lazy greedy: |R ∩ F_j| only shrinks as R does, so a stored count is
   * an upper bound. The top of the heap (most hits, lowest j on ties) is
   * the file the plain greedy rule picks once its count is brought up to
   * date and still on top; otherwise it goes back with its true count. */
  while (nheap > 0) {
    int j = heap_pop(heap, &nheap, hits);
    /* The loops below through restrict locals: a store to the char marks
     * may alias anything, and the compiler reloaded mp[j], P->ids and the
     * output pointer after each. */
    int64_t *restrict fj = mf[j], *restrict pj = mp[j];
    const int64_t hj = hits[j];
    int64_t now = 0;
    for (int64_t k = 0; k < hj; k++) now += !covered[pj[k]];
    if (now == 0) continue;
    if (now < hj) {
      /* Compact to the still uncovered members, then re-queue. */
      int64_t m = 0;
      for (int64_t k = 0; k < hj; k++)
        if (!covered[pj[k]]) {
          fj[m] = fj[k];
          pj[m] = pj[k];
          m++;
        }
      hits[j] = m;
      heap_push(heap, &nheap, hits, j);
      continue;
    }
    mxn_cover_part_t *part = &out->parts[out->nparts++];
    part->file = j;
    part->E.n = now;
    if (ids && !(part->E.ids = mxn__malloc((size_t)now * sizeof *part->E.ids))) {
      status = MXN_ERR_NOMEM; /* the intersections left it MXN_OK */
      goto done;
    }
    {
      mxn_gid_t *restrict out = part->E.ids;
      const mxn_gid_t *restrict pids = P->ids;
      char *restrict cov = covered;
      if (out)
        for (int64_t k = 0; k < now; k++) out[k] = pids[pj[k]];
      for (int64_t k = 0; k < now; k++) cov[pj[k]] = 1;
    }
    part->mf = mf[j];
    part->mp = mp[j];
    mf[j] = mp[j] = NULL;
  }
  {
    int64_t left = 0;
    for (int64_t i = 0; i < P->n; i++) left += !covered[i];
    if (left > 0) {
      out->uncovered.ids = mxn__malloc((size_t)left * sizeof *out->uncovered.ids);
      if (!out->uncovered.ids) {
        status = MXN_ERR_NOMEM;
        goto done;
      }
      for (int64_t i = 0; i < P->n; i++)
        if (!covered[i]) out->uncovered.ids[out->uncovered.n++] = P->ids[i];
    }
  }
  status = MXN_OK;
done:
  if (mf)
    for (int j = 0; j < nfiles; j++) free(mf[j]);
  if (mp)
    for (int j = 0; j < nfiles; j++) free(mp[j]);
  free(mf);
  free(mp);
  free(hits);
  free(heap);
  free(covered);
  free(at);
  if (status != MXN_OK) mxn_cover_free(out);
  return status;
}
