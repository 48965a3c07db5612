/* The weighted "string" partitioner (seeds dynamic-load-balance-rankdlb.txt,
 * luna-patch-rope-data-distribution.txt): elements ordered by a key (id or
 * Hilbert index) over the communicator by a distributed sample sort, then
 * cut into equal-weight parts without skipping a part. Used by
 * mxn_partition's LINEAR and SFC methods and as Zoltan's last fallback. */
#include "partition/part_string.h"

#include "comm.h"
#include "partition/part_agree.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The weighted string: distributed sample sort + cut                  */

/* One element on its way through the sort: the key orders the string, the
 * id breaks ties, (rank, idx) say where its part number must go back to. */
typedef struct mxn__rec {
  uint64_t key;
  int64_t id;
  double w;
  int64_t idx;
  int32_t rank;
  int32_t pad;
} mxn__rec;

typedef struct mxn__sample {
  uint64_t key;
  int64_t id;
  double wt; /* how many elements this sample stands for */
} mxn__sample;

typedef struct mxn__reply {
  int64_t idx;
  int64_t part;
} mxn__reply;

static int mxn__key_cmp(uint64_t ka, int64_t ia, uint64_t kb, int64_t ib) {
  if (ka != kb) return (ka > kb) - (ka < kb);
  return (ia > ib) - (ia < ib);
}

static int mxn__rec_cmp(const void *a, const void *b) {
  const mxn__rec *x = a, *y = b;
  return mxn__key_cmp(x->key, x->id, y->key, y->id);
}

static int mxn__sample_cmp(const void *a, const void *b) {
  const mxn__sample *x = a, *y = b;
  return mxn__key_cmp(x->key, x->id, y->key, y->id);
}

/* The cut must never skip a part while elements remain (Fluidity rule):
 * along the string q_i = max(lo_i, min(p_i, q_{i-1} + 1)), where p_i is the
 * equal-weight cut and lo_i = nparts - N + i keeps one element for every
 * later part. Each step is a clamp x -> max(a, min(b, x + c)) with a <= b;
 * clamps compose into clamps, so the ranks chain theirs with one
 * MPI_Exscan instead of passing the last part along rank by rank. */
typedef struct mxn__clamp {
  int64_t a, b, c;
} mxn__clamp;

/* Far outside any part number, with room to add N without overflow. */
#define MXN__CLAMP_INF (INT64_C(1) << 62)

static int64_t mxn__max64(int64_t x, int64_t y) { return x > y ? x : y; }
static int64_t mxn__min64(int64_t x, int64_t y) { return x < y ? x : y; }

/* First f, then g. */
static mxn__clamp mxn__clamp_then(mxn__clamp f, mxn__clamp g) {
  mxn__clamp h;
  h.a = mxn__max64(mxn__min64(f.a + g.c, g.b), g.a);
  h.b = mxn__max64(mxn__min64(f.b + g.c, g.b), g.a);
  h.c = f.c + g.c;
  return h;
}

static int64_t mxn__clamp_apply(mxn__clamp f, int64_t x) {
  return mxn__max64(f.a, mxn__min64(f.b, x + f.c));
}

/* MPI user op: `in` holds lower ranks, so the result is "in, then inout". */
static void mxn__clamp_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  mxn__clamp *x = in, *y = inout;
  for (int i = 0; i < *len; i++) y[i] = mxn__clamp_then(x[i], y[i]);
}

/* Equal-weight cut at an element's weighted midpoint. */
static int64_t mxn__cut_at(double before, double w, double total, int nparts) {
  double f = total > 0 ? (before + 0.5 * w) / total * (double)nparts : 0;
  int64_t p = f > 0 ? (int64_t)f : 0;
  return p > nparts - 1 ? nparts - 1 : p;
}

/* Lowest part element i of N may take so that every later part still gets
 * one; with fewer elements than parts there is no such limit, and the
 * step rule alone gives the elements parts 0..N-1. */
static int64_t mxn__lower_limit(int nparts, int64_t ntot, int64_t i) {
  return ntot >= nparts ? (int64_t)nparts - ntot + i : -MXN__CLAMP_INF;
}

/* Part numbers q[0..m) for this rank's slice r[0..m) of the globally sorted
 * string: equal-weight pieces, no part skipped while elements remain.
 * Allocates nothing, so it has no rank-local failure. */
static int mxn__string_cut(MPI_Comm comm, int rank, int nprocs,
                           const mxn__rec *r, int64_t m, int nparts, int *q,
                           mxn_error_t *err, const char *method) {
  int status = MXN_OK;
  double wl = 0, wb = 0, wt = 0;
  int64_t g0 = 0, ntot = m, x = -1; /* x: part of the element before */
  mxn__clamp mine = {-MXN__CLAMP_INF, MXN__CLAMP_INF, 0};
  mxn__clamp before = {-MXN__CLAMP_INF, MXN__CLAMP_INF, 0};

  for (int64_t j = 0; j < m; j++) wl += r[j].w;
  wt = wl;
  if (nprocs > 1) {
    if ((status = mxn__comm_exscan_f64(comm, MXN_OK, &wl, 1, &wb, &wt)) != MXN_OK ||
        (status = mxn__comm_exscan_i64(comm, MXN_OK, &m, 1, &g0, &ntot)) != MXN_OK) {
      status = mxn_error_set(err, status, "mxn_partition(%s): the weight prefix failed", method);
      goto done;
    }
  }

  if (nprocs > 1) {
    double w = wb;
    for (int64_t j = 0; j < m; j++) {
      int64_t lo = mxn__lower_limit(nparts, ntot, g0 + j);
      int64_t p = mxn__cut_at(w, r[j].w, wt, nparts);
      mxn__clamp step = {lo, mxn__max64(lo, p), 1};
      mine = mxn__clamp_then(mine, step);
      w += r[j].w;
    }
    if ((status = mxn__comm_exscan_op(comm, MXN_OK, &mine, &before, (int64_t)sizeof mine,
                                      mxn__clamp_op)) != MXN_OK) {
      status = mxn_error_set(err, status, "mxn_partition(%s): the scan of the cut failed", method);
      goto done;
    }
    if (rank > 0) x = mxn__clamp_apply(before, -1);
  }
  for (int64_t j = 0; j < m; j++) {
    int64_t lo = mxn__lower_limit(nparts, ntot, g0 + j);
    x = mxn__max64(lo, mxn__min64(mxn__cut_at(wb, r[j].w, wt, nparts), x + 1));
    q[j] = (int)x;
    wb += r[j].w;
  }

done:
  return status;
}

/* Parts for this rank's elements: sort (key, id) over the communicator,
 * cut the weighted string, send each part number back to its element.
 * The sort is a sample sort: every rank contributes S regular samples
 * weighted by its element count, all ranks pick the same P-1 splitters
 * from them, and one all-to-all (comm.c) moves the records. */
int mxn__string_partition(MPI_Comm comm, int64_t n, const mxn_gid_t *ids, const double *weights,
                          const uint64_t *keys, int nparts, int *part, mxn_error_t *err,
                          const char *method) {
  int status = MXN_OK, rank = 0, nprocs = 1, S = 0;
  mxn__rec *recs = NULL, *got = NULL;
  mxn__sample *mine = NULL, *all = NULL, *split = NULL;
  mxn__reply *rep = NULL, *back = NULL;
  int64_t *scount = NULL, *rcount = NULL, *sdisp = NULL, *rdisp = NULL, *cur = NULL;
  int *q = NULL;
  int64_t m = 0, ns = 0;
  double tot = 0, cum = 0;

  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nprocs);
  S = nprocs < 32 ? 32 : (nprocs > 128 ? 128 : nprocs);
  ns = (int64_t)S * nprocs;
  recs = calloc_noted(n, sizeof *recs, &status);
  if (nprocs == 1) {
    q = calloc_noted(n, sizeof *q, &status);
  } else {
    mine = calloc_noted(S, sizeof *mine, &status);
    all = calloc_noted(ns, sizeof *all, &status);
    split = calloc_noted(nprocs, sizeof *split, &status);
    scount = calloc_noted(nprocs, sizeof *scount, &status);
    rcount = calloc_noted(nprocs, sizeof *rcount, &status);
    sdisp = calloc_noted(nprocs, sizeof *sdisp, &status);
    rdisp = calloc_noted(nprocs, sizeof *rdisp, &status);
    cur = calloc_noted(nprocs, sizeof *cur, &status);
  }
  MXN_CHECK(mxn__agree(comm, status, err, method));

  for (int64_t k = 0; k < n; k++) {
    recs[k].key = keys[k];
    recs[k].id = ids[k];
    recs[k].w = weights ? weights[k] : 1.0;
    recs[k].idx = k;
    recs[k].rank = rank;
  }
  qsort(recs, (size_t)n, sizeof *recs, mxn__rec_cmp);

  if (nprocs == 1) {
    MXN_CHECK(mxn__string_cut(comm, rank, nprocs, recs, n, nparts, q, err, method));
    for (int64_t j = 0; j < n; j++) part[recs[j].idx] = q[j];
    goto done;
  }

  /* Regular samples, each worth n/S elements, so ranks holding very
   * different counts still give balanced buckets. */
  for (int s = 0; s < S && n > 0; s++) {
    int64_t j = ((2 * (int64_t)s + 1) * n) / (2 * (int64_t)S);
    mine[s].key = recs[j].key;
    mine[s].id = recs[j].id;
    mine[s].wt = (double)n / S;
  }
  if ((status = mxn__comm_allgather(comm, MXN_OK, mine, (int64_t)S * (int64_t)sizeof *mine, all)) !=
      MXN_OK) {
    status = mxn_error_set(err, status, "mxn_partition(%s): gathering the sort samples failed",
                           method);
    goto done;
  }
  qsort(all, (size_t)ns, sizeof *all, mxn__sample_cmp);
  for (int64_t i = 0; i < ns; i++) tot += all[i].wt;
  /* Splitter b closes bucket b: the first sample where the weight so far
   * reaches (b+1)/P of the total. */
  for (int64_t i = 0, b = 0; b < nprocs - 1; b++) {
    double target = tot * (double)(b + 1) / nprocs;
    while (i < ns - 1 && cum + all[i].wt < target) cum += all[i++].wt;
    split[b] = all[i];
  }
  for (int64_t k = 0, b = 0; k < n; k++) { /* recs are sorted: one sweep */
    while (b < nprocs - 1 &&
           mxn__key_cmp(recs[k].key, recs[k].id, split[b].key, split[b].id) > 0)
      b++;
    scount[b]++;
  }
  /* The records to their buckets' ranks (comm.c: counts in bytes, any
   * size); got arrives in rank order, each rank's sorted. */
  for (int r = 0; r < nprocs; r++) scount[r] *= (int64_t)sizeof *recs;
  status = mxn__comm_exchange(comm, MXN_OK, recs, scount, (void **)&got, rcount);
  if (status != MXN_OK) {
    mxn_error_set(err, status, "mxn_partition(%s): the exchange of the sort failed", method);
    goto done;
  }
  for (int r = 0; r < nprocs; r++) {
    scount[r] /= (int64_t)sizeof *recs;
    rcount[r] /= (int64_t)sizeof *recs;
    m += rcount[r];
  }
  for (int r = 1; r < nprocs; r++) {
    sdisp[r] = sdisp[r - 1] + scount[r - 1];
    rdisp[r] = rdisp[r - 1] + rcount[r - 1];
  }
  q = calloc_noted(m, sizeof *q, &status);
  rep = calloc_noted(m, sizeof *rep, &status);
  back = calloc_noted(n, sizeof *back, &status);
  MXN_CHECK(mxn__agree(comm, status, err, method));
  qsort(got, (size_t)m, sizeof *got, mxn__rec_cmp);
  MXN_CHECK(mxn__string_cut(comm, rank, nprocs, got, m, nparts, q, err, method));

  /* (index, part) go back where each element came from: the forward
   * counts, swapped. */
  memcpy(cur, rdisp, (size_t)nprocs * sizeof *cur);
  for (int64_t j = 0; j < m; j++) {
    int r = got[j].rank;
    rep[cur[r]].idx = got[j].idx;
    rep[cur[r]].part = q[j];
    cur[r]++;
  }
  for (int r = 0; r < nprocs; r++) { /* in bytes */
    scount[r] *= (int64_t)sizeof *rep;
    sdisp[r] *= (int64_t)sizeof *rep;
    rcount[r] *= (int64_t)sizeof *rep;
    rdisp[r] *= (int64_t)sizeof *rep;
  }
  status = mxn__comm_alltoallv(comm, MXN_OK, rep, rcount, rdisp, back, scount, sdisp);
  if (status != MXN_OK) {
    mxn_error_set(err, status, "mxn_partition(%s): the exchange of the parts failed", method);
    goto done;
  }
  for (int64_t k = 0; k < n; k++) part[back[k].idx] = (int)back[k].part;

done:
  free(recs);
  free(got);
  free(mine);
  free(all);
  free(split);
  free(rep);
  free(back);
  free(scount);
  free(rcount);
  free(sdisp);
  free(rdisp);
  free(cur);
  free(q);
  return status;
}
