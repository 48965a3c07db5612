/* Per-time-step re-balancing of a parallel load (load.h,
 * mxn_load_rebalance): weights at the step, the imbalance policy, new
 * owners by a string shift (seed dynamic-load-balance-rankdlb.txt), Zoltan
 * REPARTITION (zoltan-load-balancing-fluidity.txt) or neighbour diffusion
 * (luna-patch-rope-data-distribution.txt), then the piece rebuilt from
 * what each rank keeps plus what it gained. */
#include "load_internal.h"

#include <math.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const strategy_names[] = {"auto",      "shift", "repartition",
                                             "diffusion", "fresh", "refine"};
#define NSTRAT 6

const char *mxn_rebal_strategy_name(mxn_rebal_strategy s) {
  return (int)s >= 0 && (int)s < NSTRAT ? strategy_names[s] : "unknown";
}

int mxn_rebal_strategy_parse(const char *name, mxn_rebal_strategy *s) {
  if (!name || !s) return MXN_ERR_ARG;
  for (int i = 0; i < NSTRAT; i++)
    if (strcasecmp(name, strategy_names[i]) == 0) {
      *s = (mxn_rebal_strategy)i;
      return MXN_OK;
    }
  return MXN_ERR_ARG;
}

/* Owned elements of block b: the halo's first range, or the whole block. */
static int64_t owned_in(const mxn_load_t *ld, int b) {
  return ld->halo ? ld->halo->block_off[b][1] : ld->piece->blocks[b].num_elements;
}

/* The piece without its ghosts: a shallow copy whose blocks (*vb, the
 * caller frees it) count only the owned elements. Local. */
static int owned_view(const mxn_load_t *ld, mxn_piece_t *view, mxn_piece_block_t **vb) {
  *view = *ld->piece;
  *vb = mxn__calloc((size_t)view->num_blocks + 1, sizeof **vb);
  if (!*vb) return MXN_ERR_NOMEM;
  view->num_elements = 0;
  for (int b = 0; b < view->num_blocks; b++) {
    (*vb)[b] = view->blocks[b];
    (*vb)[b].num_elements = owned_in(ld, b);
    view->num_elements += (*vb)[b].num_elements;
  }
  view->blocks = *vb;
  return MXN_OK;
}

/* The owned elements, concatenated over blocks: ids, weights, centroids. */
typedef struct {
  int64_t n;
  mxn_gid_t *ids;
  double *w;
  double *cent; /* 3 per element */
  int *blk;
  int64_t *at;  /* index in its piece block */
} owned_t;

static void owned_free(owned_t *o) {
  free(o->ids);
  free(o->w);
  free(o->cent);
  free(o->blk);
  free(o->at);
  memset(o, 0, sizeof *o);
}

/* Weights of the owned elements at the piece's step (see
 * mxn_rebalance_opts_t). Local; the caller agrees. */
static int weigh(mxn_load_t *ld, int step, const mxn_rebalance_opts_t *o, owned_t *ow,
                 mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  const mxn_piece_t *pc = ld->piece;
  int status = MXN_OK, field = -1, R = ld->rank;
  const char *path = mxn_dataset_file_path(ld->ds, 0);
  if (o->weight_field) {
    for (int v = 0; v < s->num_elem_vars; v++)
      if (strcmp(s->elem_var_names[v], o->weight_field) == 0) field = v;
    if (field < 0)
      return mxn_error_set(e, MXN_ERR_ARG, "%s: no element variable '%s' to weigh elements by",
                           path, o->weight_field);
    if (ld->elem_sel && !ld->elem_sel[field])
      return mxn_error_set(e, MXN_ERR_ARG,
                           "%s: weight variable '%s' is not among the selected element variables",
                           path, o->weight_field);
  }
  for (int b = 0; b < s->num_blocks && o->block_weights; b++)
    if (!isfinite(o->block_weights[b]) || o->block_weights[b] < 0)
      return mxn_error_set(e, MXN_ERR_ARG, "%s: weight factor %g of block %lld is not a finite number >= 0",
                           path, o->block_weights[b], (long long)s->blocks[b].id);
  for (int64_t i = 0; i < ow->n; i++) {
    int b = ow->blk[i];
    int64_t k = ow->at[i];
    const mxn_piece_block_t *pb = &pc->blocks[b];
    double w = o->block_weights ? o->block_weights[b] : 1.0;
    if (field >= 0) {
      /* a block without the variable (truth table) weighs 0, then the floor */
      double x = pb->elem_vars && pb->elem_vars[field] ? pb->elem_vars[field][k] : 0.0;
      if (!isfinite(x))
        return mxn_error_set(e, MXN_ERR_ARG,
                             "%s: weight variable '%s' is %g at element %lld of block %lld, "
                             "step %d (rank %d): weights must be finite",
                             path, o->weight_field, x, (long long)ow->ids[i],
                             (long long)s->blocks[b].id, step + 1, R);
      if (o->weight_abs) x = fabs(x);
      if (x < 0)
        return mxn_error_set(e, MXN_ERR_ARG,
                             "%s: weight variable '%s' is negative (%g) at element %lld of block "
                             "%lld, step %d (rank %d); take its absolute value or pick another",
                             path, o->weight_field, x, (long long)ow->ids[i],
                             (long long)s->blocks[b].id, step + 1, R);
      w *= x;
    }
    if (o->cost) {
      double c = o->cost[i];
      if (!isfinite(c) || c < 0)
        return mxn_error_set(e, MXN_ERR_ARG,
                             "measured cost %g of element %lld (block %lld, rank %d) is not a "
                             "finite number >= 0",
                             c, (long long)ow->ids[i], (long long)s->blocks[b].id, R);
      w *= c;
    }
    ow->w[i] = w;
  }
  return status;
}

/* Owned ids, block/position and centroids from the piece. */
static int collect_owned(mxn_load_t *ld, owned_t *ow) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  const mxn_piece_t *pc = ld->piece;
  int status = MXN_OK;
  int64_t n = 0;
  for (int b = 0; b < pc->num_blocks; b++) n += owned_in(ld, b);
  ow->n = n;
  MXN_ALLOC(ow->ids, n);
  MXN_ALLOC(ow->w, n);
  MXN_ALLOC(ow->cent, 3 * n);
  MXN_ALLOC(ow->blk, n);
  MXN_ALLOC(ow->at, n);
  for (int b = 0, e = 0; b < pc->num_blocks; b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    int npe = s->blocks[b].nodes_per_elem;
    for (int64_t k = 0; k < owned_in(ld, b); k++, e++) {
      ow->ids[e] = pb->elem_ids[k];
      ow->blk[e] = b;
      ow->at[e] = k;
      for (int d = 0; d < 3; d++) {
        double sum = 0;
        if (d < s->num_dim)
          for (int c = 0; c < npe; c++) sum += pc->coord[d][pb->conn[k * npe + c]];
        ow->cent[3 * e + d] = (npe > 0 && d < s->num_dim) ? sum / npe : 0.0;
      }
    }
  }
done:
  return status;
}

/* max / average of the per-part sums of w over parts part[] (NULL: this
 * rank's own), and the smallest part's element count. Collective. */
static int part_imbalance(MPI_Comm comm, int N, int R, int64_t n, const double *w, const int *part,
                          double *imb, int64_t *min_count) {
  int status = MXN_OK;
  double *sum = NULL, *gsum = NULL;
  int64_t *cnt = NULL, *gcnt = NULL;
  sum = mxn__calloc((size_t)N + 1, sizeof *sum);
  gsum = mxn__calloc((size_t)N + 1, sizeof *gsum);
  cnt = mxn__calloc((size_t)N + 1, sizeof *cnt);
  gcnt = mxn__calloc((size_t)N + 1, sizeof *gcnt);
  if (!mxn__all_ok(comm, sum && gsum && cnt && gcnt)) { /* before the sums */
    status = MXN_ERR_NOMEM;
    goto done;
  }
  for (int64_t k = 0; k < n; k++) {
    int p = part ? part[k] : R;
    sum[p] += w[k];
    cnt[p]++;
  }
  if (MPI_Allreduce(sum, gsum, N, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS ||
      MPI_Allreduce(cnt, gcnt, N, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS) {
    status = MXN_ERR_MPI;
    goto done;
  }
  double mx = 0, tot = 0;
  int64_t mn = INT64_MAX;
  for (int p = 0; p < N; p++) {
    tot += gsum[p];
    if (gsum[p] > mx) mx = gsum[p];
    if (gcnt[p] < mn) mn = gcnt[p];
  }
  *imb = tot > 0 ? mx / (tot / N) : 1.0;
  if (min_count) *min_count = mn;
done:
  free(sum);
  free(gsum);
  free(cnt);
  free(gcnt);
  return status;
}

typedef struct {
  uint64_t k1, k2;
  mxn_gid_t id;
  int64_t e;
} skey_t;

static int cmp_skey(const void *a, const void *b) {
  const skey_t *x = a, *y = b;
  if (x->k1 != y->k1) return (x->k1 > y->k1) - (x->k1 < y->k1);
  if (x->k2 != y->k2) return (x->k2 > y->k2) - (x->k2 < y->k2);
  return (x->id > y->id) - (x->id < y->id);
}

typedef struct {
  mxn_gid_t id;
  int64_t e;
} idpos_t;

static int cmp_idpos(const void *a, const void *b) {
  const idpos_t *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* The owned elements in string order: perm[i] = owned index of the i-th.
 * The string kept from the last shift if it still holds the owned set,
 * else by key: files = (member, position) as read; linear = id; others =
 * Hilbert key of the centroid over the global box (the sfc order).
 * Collective (the box). */
static int string_order(mxn_load_t *ld, const owned_t *ow, int64_t *perm, mxn_error_t *e) {
  int status = MXN_OK, ok = ld->str && ld->nstr == ow->n;
  idpos_t *ip = NULL;
  skey_t *sk = NULL;
  uint64_t *hk = NULL;
  /* the same piece as last time: the same string (agreed, so that every
   * rank takes the same collective path) */
  int fast = ld->str_perm && ld->str_gen == ld->gen && ld->nstr == ow->n, allfast = 0;
  if (MPI_Allreduce(&fast, &allfast, 1, MPI_INT, MPI_MIN, ld->comm) != MPI_SUCCESS)
    return mxn_error_set(e, MXN_ERR_MPI, "rank %d: MPI_Allreduce failed", ld->rank);
  if (allfast) {
    memcpy(perm, ld->str_perm, (size_t)ow->n * sizeof *perm);
    return MXN_OK;
  }
  /* ok: 1 the kept string holds, 0 it does not, -1 out of memory (the
   * agreement below tells every rank) */
  if (!(ip = mxn__malloc(((size_t)ow->n + 1) * sizeof *ip))) ok = -1;
  for (int64_t i = 0; ip && i < ow->n; i++) ip[i] = (idpos_t){ow->ids[i], i};
  if (ip) qsort(ip, (size_t)ow->n, sizeof *ip, cmp_idpos);
  for (int64_t i = 0; ok == 1 && i < ow->n; i++) {
    /* every string id must be owned */
    idpos_t key = {ld->str[i], 0};
    idpos_t *f = bsearch(&key, ip, (size_t)ow->n, sizeof *ip, cmp_idpos);
    if (!f) ok = 0;
    else perm[i] = f->e;
  }
  int all = ok;
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ld->comm) != MPI_SUCCESS) {
    status = MXN_ERR_MPI;
    goto done;
  }
  if (all < 0) status = MXN_ERR_NOMEM;
  if (all) goto done;
  mxn_part_method m = ld->o.method;
  sk = mxn__calloc((size_t)ow->n + 1, sizeof *sk);
  /* the Hilbert keys' box is collective: every rank learns first */
  int geometric = m != MXN_PART_FILES && m != MXN_PART_LINEAR;
  if (geometric ? !mxn__all_ok(ld->comm, sk != NULL) : !sk) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  if (m == MXN_PART_FILES) {
    const mxn__plan_t *plan = ld->piece->plan;
    int64_t *boff = NULL;
    MXN_ALLOC(boff, ld->piece->num_blocks + 1);
    for (int b = 0; b < ld->piece->num_blocks; b++) boff[b + 1] = boff[b] + owned_in(ld, b);
    for (int i = 0; i < plan->nseg[MXN__ELEM]; i++) {
      const segment_t *sg = &plan->seg[MXN__ELEM][i];
      for (int64_t x = 0; x < sg->n; x++)
        if (sg->dst[x] < owned_in(ld, sg->block)) {
          int64_t q = boff[sg->block] + sg->dst[x];
          sk[q] = (skey_t){(uint64_t)sg->file, ((uint64_t)sg->block << 40) | (uint64_t)sg->off[x],
                           ow->ids[q], q};
        }
    }
    free(boff);
  } else if (m == MXN_PART_LINEAR) {
    for (int64_t i = 0; i < ow->n; i++) sk[i] = (skey_t){0, 0, ow->ids[i], i};
  } else {
    double box[6], gbox[6], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int dim = mxn_dataset_structure(ld->ds)->num_dim;
    for (int d = 0; d < 6; d++) box[d] = INFINITY;
    for (int64_t k = 0; k < ow->n; k++)
      for (int d = 0; d < dim; d++) {
        double x = ow->cent[3 * k + d];
        if (x < box[d]) box[d] = x;
        if (-x < box[3 + d]) box[3 + d] = -x;
      }
    if (MPI_Allreduce(box, gbox, 6, MPI_DOUBLE, MPI_MIN, ld->comm) != MPI_SUCCESS) {
      status = MXN_ERR_MPI;
      goto done;
    }
    for (int d = 0; d < dim; d++) {
      lo[d] = gbox[d];
      hi[d] = -gbox[3 + d];
    }
    MXN_ALLOC(hk, ow->n);
    mxn_hilbert_keys(ow->n, ow->cent, lo, hi, hk);
    for (int64_t i = 0; i < ow->n; i++) sk[i] = (skey_t){hk[i], 0, ow->ids[i], i};
  }
  qsort(sk, (size_t)ow->n, sizeof *sk, cmp_skey);
  for (int64_t i = 0; i < ow->n; i++) perm[i] = sk[i].e;
  /* kept for the next steps, by id (survives a rebuild) and by position */
  free(ld->str);
  ld->str = mxn__malloc(((size_t)ow->n + 1) * sizeof *ld->str);
  if (!ld->str) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  for (int64_t i = 0; i < ow->n; i++) ld->str[i] = ow->ids[perm[i]];
  ld->nstr = ow->n;
done:
  if (status == MXN_OK) {
    free(ld->str_perm);
    ld->str_perm = mxn__malloc(((size_t)ow->n + 1) * sizeof *ld->str_perm);
    if (ld->str_perm) {
      memcpy(ld->str_perm, perm, (size_t)ow->n * sizeof *perm);
      ld->str_gen = ld->gen;
    }
  }
  if (status != MXN_OK) mxn_error_set(e, status, "rank %d: ordering the string failed", ld->rank);
  free(ip);
  free(sk);
  free(hk);
  return status;
}

/* RankDLB cut shift: the ranks' weights W_r (allgathered), old cuts c_i =
 * W_0 + ... + W_{i-1}; new cuts c_i moved as little as possible so that
 * every part weighs at most U = avg * (1 + frac (tol - 1)) (forward pass,
 * each cut clamped into what keeps the remaining parts feasible). S[i] =
 * new c_i - old c_i is the weight moving across cut i (to rank i-1 if
 * positive). Elements go to the part whose range holds their midpoint.
 * ws and part in string order. Collective. */
static int shift_cuts(MPI_Comm comm, int N, int R, int64_t n, const double *ws, double tol,
                      double frac, int *part) {
  int status = MXN_OK;
  double *W = NULL, *c = NULL, *cold = NULL;
  double mine = 0;
  for (int64_t k = 0; k < n; k++) mine += ws[k];
  W = mxn__calloc((size_t)N + 1, sizeof *W);
  c = mxn__calloc((size_t)N + 1, sizeof *c);
  cold = mxn__calloc((size_t)N + 1, sizeof *cold);
  if (!mxn__all_ok(comm, W && c && cold)) { /* before the gather all take part in */
    status = MXN_ERR_NOMEM;
    goto done;
  }
  if (MPI_Allgather(&mine, 1, MPI_DOUBLE, W, 1, MPI_DOUBLE, comm) != MPI_SUCCESS) {
    status = MXN_ERR_MPI;
    goto done;
  }
  for (int r = 0; r < N; r++) cold[r + 1] = cold[r] + W[r];
  double T = cold[N], A = T / N, U = A * (1.0 + frac * (tol - 1.0));
  c[0] = 0;
  c[N] = T;
  for (int i = 1; i < N; i++) {
    double lo = fmax(c[i - 1], T - (N - i) * U), hi = fmin(c[i - 1] + U, T);
    double x = cold[i];
    c[i] = x < lo ? lo : x > hi ? hi : x;
  }
  double acc = cold[R];
  for (int64_t k = 0; k < n; k++) {
    double m = acc + 0.5 * ws[k];
    int p = 0;
    while (p < N - 1 && c[p + 1] <= m) p++;
    part[k] = p;
    acc += ws[k];
  }
done:
  free(W);
  free(c);
  free(cold);
  return status;
}

/* Zoltan on the owned elements (current ranks = current parts): a fresh
 * partition (repart 0), REPARTITION (1) or PHG REFINE on the dual graph (2). */
static int zoltan_parts(mxn_load_t *ld, const owned_t *ow, double tol, int repart, int *part,
                        mxn_error_t *e) {
  mxn_part_method method = repart == 2 ? MXN_PART_GRAPH : ld->o.method;
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  int status = MXN_OK;
  int64_t *adj_off = NULL;
  mxn_gid_t *adj_ids = NULL;
  int *adj_ranks = NULL;
  double *adj_q = NULL, *ones = NULL;
  mxn_piece_block_t *vb = NULL;
  mxn_part_input_t in;
  memset(&in, 0, sizeof in);
  in.n = ow->n;
  in.dim = s->num_dim;
  in.ids = ow->ids;
  in.centroids = ow->cent;
  in.weights = ow->w;
  if (method == MXN_PART_GRAPH) {
    /* the dual graph of the owned elements */
    mxn_piece_t view;
    MXN_CHECK(owned_view(ld, &view, &vb));
    MXN_ALLOC(ones, ow->n);
    status = mxn__dual_graph_dist(ld->comm, ld->size, ld->rank, s, &view, ow->ids, ones, &adj_off,
                                  &adj_ids, &adj_ranks, &adj_q);
    if (status != MXN_OK) mxn_error_set(e, status, "rank %d: building the dual graph failed", ld->rank);
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    in.adj_off = adj_off;
    in.adj_ids = adj_ids;
    in.adj_ranks = adj_ranks;
  }
  mxn_part_opts_t po;
  memset(&po, 0, sizeof po);
  po.imbalance_tol = tol;
  po.repartition = repart != 0;
  po.refine = repart == 2;
  po.no_remap = !repart;
  status = mxn_partition(ld->comm, method, &in, ld->size, &po, part, e);
done:
  free(adj_off);
  free(adj_ids);
  free(adj_ranks);
  free(adj_q);
  free(ones);
  free(vb);
  return status;
}

/* ---------------------------------------------------------------- */
/* RCB tree shift: REPARTITION for rcb.                               */
/*
 * Zoltan's RCB ignores LB_APPROACH: with REPARTITION it finds every
 * median again and only renumbers the parts (RCB_REUSE merely starts the
 * median search at the old cut), so it moves as much as a fresh RCB.
 * This keeps the bisection tree of the current owners instead and moves
 * each cut only as far as the tolerance needs (RankDLB applied to every
 * node of the tree): the node's parts are split into the two groups and
 * along the axis that separate the current owners best (their boxes
 * overlap least); the node's elements are ordered along that axis (ties:
 * left group, then elements from outside the node, then right group, then
 * id) and the cut stays at the weight the left group holds, clamped into
 * what leaves every part of both sides under avg (1 + frac (tol - 1)).
 * The cut's position is found by bisection on the order (one allreduce of
 * a weight per halving, at most 128), never by gathering elements.
 */

typedef struct {
  uint64_t a, b; /* the order along the axis, then group and id */
  double w;
  int64_t e;     /* owned index */
} tkey_t;

static int cmp_tkey(const void *x, const void *y) {
  const tkey_t *p = x, *q = y;
  if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
  if (p->b != q->b) return (p->b > q->b) - (p->b < q->b);
  return (p->e > q->e) - (p->e < q->e);
}

/* A double as an unsigned integer of the same order. */
static uint64_t order_bits(double x) {
  uint64_t u;
  if (x == 0) x = 0; /* -0 == +0 */
  memcpy(&u, &x, sizeof u);
  return (u >> 63) ? ~u : u | (1ull << 63);
}

/* Local weight of the sorted keys k[0..n) that are <= (a, b): prefix[]
 * holds the running sums (prefix[0] = 0). */
static double weight_upto(const tkey_t *k, const double *prefix, int64_t n, uint64_t a,
                          uint64_t b) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t m = lo + (hi - lo) / 2;
    if (k[m].a < a || (k[m].a == a && k[m].b <= b)) lo = m + 1;
    else hi = m;
  }
  return prefix[lo];
}

/* Smallest key K (over all ranks) with W(<= K) >= c; *wlt, *wle the
 * weights below and up to it. Collective; the same answer on every rank. */
static int select_key(MPI_Comm comm, const tkey_t *k, const double *prefix, int64_t n, double c,
                      uint64_t *Ka, uint64_t *Kb, double *wlt, double *wle) {
  uint64_t lo = 0, hi = UINT64_MAX;
  double w[2], g[2];
  while (lo < hi) {
    uint64_t m = lo + (hi - lo) / 2;
    w[0] = weight_upto(k, prefix, n, m, UINT64_MAX);
    if (MPI_Allreduce(w, g, 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) return MXN_ERR_MPI;
    if (g[0] >= c) hi = m;
    else lo = m + 1;
  }
  *Ka = lo;
  uint64_t blo = 0, bhi = UINT64_MAX;
  while (blo < bhi) {
    uint64_t m = blo + (bhi - blo) / 2;
    w[0] = weight_upto(k, prefix, n, *Ka, m);
    if (MPI_Allreduce(w, g, 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) return MXN_ERR_MPI;
    if (g[0] >= c) bhi = m;
    else blo = m + 1;
  }
  *Kb = blo;
  /* below K: up to (Ka, Kb - 1), or up to (Ka - 1, max) */
  w[0] = blo > 0 ? weight_upto(k, prefix, n, *Ka, blo - 1)
         : *Ka > 0 ? weight_upto(k, prefix, n, *Ka - 1, UINT64_MAX) : 0.0;
  w[1] = weight_upto(k, prefix, n, *Ka, blo);
  if (MPI_Allreduce(w, g, 2, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) return MXN_ERR_MPI;
  *wlt = g[0];
  *wle = g[1];
  return MXN_OK;
}

/* Parts of a node ordered by the centre of their boxes along axis d
 * (parts holding nothing in the node last). */
typedef struct {
  double c;
  int slot, empty;
} pctr_t;

static int cmp_pctr(const void *x, const void *y) {
  const pctr_t *p = x, *q = y;
  if (p->empty != q->empty) return p->empty - q->empty;
  if (p->c != q->c) return (p->c > q->c) - (p->c < q->c);
  return p->slot - q->slot;
}

/* New parts of the owned elements: the current owners' bisection tree
 * with every cut shifted as little as possible (see above). A node is a
 * list of parts (pl[off .. off + np)); it is split where its parts'
 * boxes, ordered along an axis, overlap least (a tree Zoltan made, whatever
 * its numbering, or the last shift, is found again exactly); ties: the
 * most even split. frac = 0 cuts every node at its share of the weight.
 * Collective. */
static int tree_shift(MPI_Comm comm, int N, int R, const owned_t *ow, double tol, double frac,
                      int *part) {
  int status = MXN_OK;
  int *noff = NULL, *nend = NULL, *queue = NULL, *pl = NULL, *where = NULL, *tmp = NULL;
  double *box = NULL, *gbox = NULL, *wp = NULL, *gwp = NULL, *prefix = NULL, *pre = NULL,
         *suf = NULL;
  pctr_t *ord = NULL;
  tkey_t *k = NULL;
  int64_t n = ow->n;
  double Wall = 0, Wtot = 0;
  for (int64_t i = 0; i < n; i++) Wall += ow->w[i];
  if (MPI_Allreduce(&Wall, &Wtot, 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) return MXN_ERR_MPI;
  double U = Wtot / N * (1.0 + frac * (tol - 1.0));
  /* (one agreement on them all: the cuts below are collective) */
  noff = mxn__calloc((size_t)n + 1, sizeof *noff);
  nend = mxn__calloc((size_t)n + 1, sizeof *nend);
  k = mxn__calloc((size_t)n + 1, sizeof *k);
  prefix = mxn__calloc((size_t)n + 2, sizeof *prefix);
  queue = mxn__calloc(4 * (size_t)N + 4, sizeof *queue); /* 2N - 1 nodes */
  pl = mxn__calloc((size_t)N + 1, sizeof *pl);
  where = mxn__calloc((size_t)N + 1, sizeof *where);
  tmp = mxn__calloc((size_t)N + 1, sizeof *tmp);
  ord = mxn__calloc((size_t)N + 1, sizeof *ord);
  /* per slot of the node: box (lo, -hi per axis), then the node's own box */
  box = mxn__calloc(6 * ((size_t)N + 1), sizeof *box);
  gbox = mxn__calloc(6 * ((size_t)N + 1), sizeof *gbox);
  pre = mxn__calloc(6 * ((size_t)N + 1), sizeof *pre);
  suf = mxn__calloc(6 * ((size_t)N + 1), sizeof *suf);
  wp = mxn__calloc((size_t)N + 1, sizeof *wp);
  gwp = mxn__calloc((size_t)N + 1, sizeof *gwp);
  if (!mxn__all_ok(comm, noff && nend && k && prefix && queue && pl && where && tmp && ord && box &&
                             gbox && pre && suf && wp && gwp)) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  for (int p = 0; p < N; p++) pl[p] = where[p] = p;
  for (int64_t i = 0; i < n; i++) nend[i] = N;
  int qh = 0, qt = 0;
  queue[qt++] = 0;
  queue[qt++] = N;
  while (qh < qt) {
    int off = queue[qh++], end = queue[qh++], np = end - off;
    if (np < 2) continue;
    int mine = where[R] >= off && where[R] < end ? where[R] - off : np; /* np: outside */
    for (int x = 0; x < 6 * (np + 1); x++) box[x] = INFINITY;
    memset(wp, 0, (size_t)(np + 1) * sizeof *wp);
    for (int64_t i = 0; i < n; i++) {
      if (noff[i] != off || nend[i] != end) continue;
      wp[mine] += ow->w[i];
      for (int d = 0; d < 3; d++) {
        double x = ow->cent[3 * i + d];
        for (int s = mine == np; s < 2; s++) { /* my part's box, the node's box */
          double *bx = &box[6 * (s ? np : mine)];
          if (x < bx[d]) bx[d] = x;
          if (-x < bx[3 + d]) bx[3 + d] = -x;
        }
      }
    }
    if (MPI_Allreduce(box, gbox, 6 * (np + 1), MPI_DOUBLE, MPI_MIN, comm) != MPI_SUCCESS ||
        MPI_Allreduce(wp, gwp, np + 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) {
      status = MXN_ERR_MPI;
      goto done;
    }
    double W = 0;
    for (int p = 0; p <= np; p++) W += gwp[p];
    int cut = np / 2, axis = -1;
    double best = INFINITY;
    for (int d = 0; d < 3; d++) {
      for (int j = 0; j < np; j++) {
        int empty = !isfinite(gbox[6 * j + d]);
        ord[j] = (pctr_t){empty ? 0.0 : gbox[6 * j + d] - gbox[6 * j + 3 + d], j, empty};
      }
      qsort(ord, (size_t)np, sizeof *ord, cmp_pctr);
      /* union boxes of the first j (pre) and of the last np - j (suf) */
      for (int x = 0; x < 6; x++) pre[x] = suf[6 * np + x] = INFINITY;
      for (int j = 0; j < np; j++)
        for (int x = 0; x < 6; x++) {
          pre[6 * (j + 1) + x] = fmin(pre[6 * j + x], gbox[6 * ord[j].slot + x]);
          int t = np - 1 - j;
          suf[6 * t + x] = fmin(suf[6 * (t + 1) + x], gbox[6 * ord[t].slot + x]);
        }
      for (int cm = 1; cm < np; cm++) {
        const double *L = &pre[6 * cm], *Rb = &suf[6 * cm];
        if (!isfinite(L[d]) || !isfinite(Rb[d])) continue; /* one side holds nothing */
        double ext = fmax(-L[3 + d], -Rb[3 + d]) - fmin(L[d], Rb[d]);
        if (!(ext > 0)) continue;
        double ov = fmax(0.0, fmin(-L[3 + d], -Rb[3 + d]) - fmax(L[d], Rb[d])) / ext;
        double score = ov + 1e-9 * abs(2 * cm - np);
        if (score < best) {
          best = score;
          cut = cm;
          axis = d;
          for (int j = 0; j < np; j++) tmp[j] = pl[off + ord[j].slot];
        }
      }
    }
    int mid = off + cut;
    double share = (double)cut / np, Wl = 0, Win = 0;
    if (axis >= 0) {
      /* the node's parts in the chosen order: left group first */
      for (int j = 0; j < np; j++) {
        Win += gwp[j];
        if (j < cut) Wl += gwp[where[tmp[j]] - off];
      }
      for (int j = 0; j < np; j++) {
        pl[off + j] = tmp[j];
        where[tmp[j]] = off + j;
      }
    }
    double cold = Wl + (W - Win) * share;
    if (axis < 0) {
      /* nothing to keep: the node's longest extent, cut at its share */
      double ext = -1;
      axis = 0;
      for (int d = 0; d < 3; d++) {
        double e = -gbox[6 * np + 3 + d] - gbox[6 * np + d];
        if (e > ext) ext = e, axis = d;
      }
      cold = W * share;
    }
    double cmin = W - (np - cut) * U, cmax = cut * U, c;
    if (frac <= 0 || cmin > cmax) c = W * share;
    else c = cold < cmin ? cmin : cold > cmax ? cmax : cold;
    /* my elements of the node in the order along the axis */
    int g = where[R] >= off && where[R] < mid ? 0 : where[R] >= mid && where[R] < end ? 2 : 1;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
      if (noff[i] != off || nend[i] != end) continue;
      k[m].a = order_bits(ow->cent[3 * i + axis]);
      k[m].b = ((uint64_t)g << 62) | ((uint64_t)ow->ids[i] & ((1ull << 62) - 1));
      k[m].w = ow->w[i];
      k[m].e = i;
      m++;
    }
    qsort(k, (size_t)m, sizeof *k, cmp_tkey);
    prefix[0] = 0;
    for (int64_t j = 0; j < m; j++) prefix[j + 1] = prefix[j] + k[j].w;
    uint64_t Ka = UINT64_MAX, Kb = UINT64_MAX;
    double wlt = W, wle = W;
    int all_left = c >= W;
    if (!all_left) {
      status = select_key(comm, k, prefix, m, c, &Ka, &Kb, &wlt, &wle);
      if (status != MXN_OK) goto done;
    }
    /* the element at K goes left if that is closer to c */
    int k_left = all_left || wle - c <= c - wlt;
    for (int64_t j = 0; j < m; j++) {
      int left = k[j].a < Ka || (k[j].a == Ka && (k[j].b < Kb || (k[j].b == Kb && k_left)));
      int64_t i = k[j].e;
      if (left) nend[i] = mid;
      else noff[i] = mid;
    }
    queue[qt++] = off;
    queue[qt++] = mid;
    queue[qt++] = mid;
    queue[qt++] = end;
  }
  for (int64_t i = 0; i < n; i++) part[i] = pl[noff[i]];
done:
  free(noff);
  free(nend);
  free(queue);
  free(pl);
  free(where);
  free(tmp);
  free(ord);
  free(box);
  free(gbox);
  free(pre);
  free(suf);
  free(wp);
  free(gwp);
  free(prefix);
  free(k);
  return status;
}

/* ---------------------------------------------------------------- */
/* Diffusion (LuNA Patch): neighbour-only exchanges over rounds.      */

#define DIFF_MAXADJ 12
typedef struct {
  mxn_gid_t id;
  double w;
  int64_t nadj;
  mxn_gid_t adj[DIFF_MAXADJ];
} diff_rec_t;

typedef struct {
  mxn_gid_t id;
  int64_t owner;
} id_owner_t;

static int cmp_id_owner(const void *a, const void *b) {
  const id_owner_t *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

static int hash_rank(mxn_gid_t id, int N) {
  uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
  return (int)((h >> 17) % (uint64_t)N);
}

/* The owners of `ids` (n, any order) from an owner directory hashed by id:
 * every rank registers its border elements (those with a neighbour it
 * does not own: only those can be asked for, as every id asked is a
 * neighbour of the asker's), then asks. Collective. */
static int owners_of(MPI_Comm comm, int N, int R, const diff_rec_t *mine, int64_t nmine,
                     const char *border, const mxn_gid_t *ids, int64_t n, int *owner) {
  int status = MXN_OK;
  id_owner_t *reg = NULL, *got = NULL, *q = NULL, *ans = NULL, *back = NULL;
  int *dest = NULL, *qdest = NULL, *adest = NULL;
  int64_t ngot = 0, nback = 0, nreg = 0, nasked = 0;
  id_owner_t *asked = NULL;
  /* three exchanges every rank calls: a failure between them goes on to
   * the next, which then fails everywhere (mxn__send_to_if) */
  MXN_ALLOC_OR(reg, nmine, sync_reg);
  MXN_ALLOC_OR(dest, nmine, sync_reg);
  for (int64_t i = 0; i < nmine; i++)
    if (border[i]) {
      reg[nreg] = (id_owner_t){mine[i].id, R};
      dest[nreg++] = hash_rank(mine[i].id, N);
    }
sync_reg:
  MXN_CHECK(mxn__send_to_if(comm, N, status, reg, sizeof *reg, nreg, dest, (void **)&got, &ngot));
  qsort(got, (size_t)ngot, sizeof *got, cmp_id_owner);
  MXN_ALLOC_OR(q, n, sync_ask);
  MXN_ALLOC_OR(qdest, n, sync_ask);
  for (int64_t i = 0; i < n; i++) {
    q[i] = (id_owner_t){ids[i], R}; /* owner field: who asks */
    qdest[i] = hash_rank(ids[i], N);
  }
sync_ask:
  MXN_CHECK(mxn__send_to_if(comm, N, status, q, sizeof *q, n, qdest, (void **)&asked, &nasked));
  ans = mxn__malloc(((size_t)nasked + 1) * sizeof *ans);
  adest = mxn__malloc(((size_t)nasked + 1) * sizeof *adest);
  if (!ans || !adest) status = MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < nasked; i++) {
    id_owner_t *f = bsearch(&asked[i], got, (size_t)ngot, sizeof *got, cmp_id_owner);
    ans[i] = (id_owner_t){asked[i].id, f ? f->owner : -1};
    adest[i] = (int)asked[i].owner;
  }
  MXN_CHECK(mxn__send_to_if(comm, N, status, ans, sizeof *ans, nasked, adest, (void **)&back,
                            &nback));
  qsort(back, (size_t)nback, sizeof *back, cmp_id_owner);
  for (int64_t i = 0; i < n; i++) {
    id_owner_t key = {ids[i], 0};
    id_owner_t *f = bsearch(&key, back, (size_t)nback, sizeof *back, cmp_id_owner);
    owner[i] = f ? (int)f->owner : -1;
  }
done:
  free(reg);
  free(got);
  free(q);
  free(asked);
  free(ans);
  free(back);
  free(dest);
  free(qdest);
  free(adest);
  return status;
}

/* Rounds of LuNA-Patch diffusion over the owned elements: neighbours are
 * the ranks owning an element adjacent (a shared side) to one of mine;
 * each rank learns only its neighbours' weights (point-to-point); a rank
 * heavier than its group's average (itself and its neighbours) by more
 * than half the tolerance's excess gives the excess, split over the
 * lighter neighbours by their deficit and halved (several may feed the
 * same neighbour), as border elements grown inward from the shared side
 * (never its last element). Stops when the global imbalance (one
 * allreduce per round, only to stop) is under tol. Out: the new owned
 * records. Collective. */
static int diffuse(mxn_load_t *ld, const owned_t *ow, double tol, int max_rounds,
                   diff_rec_t **out, int64_t *nout, int *rounds, mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  int status = MXN_OK, N = ld->size, R = ld->rank;
  diff_rec_t *mine = NULL, *got = NULL;
  int64_t nmine = ow->n, ngot = 0;
  int64_t *adj_off = NULL;
  mxn_gid_t *adj_ids = NULL, *ext = NULL;
  int *adj_ranks = NULL, *extown = NULL, *dest = NULL, *nb = NULL;
  double *adj_q = NULL, *ones = NULL, *nbw = NULL, *give = NULL;
  mxn_piece_block_t *vb = NULL;
  idpos_t *loc = NULL;
  char *border = NULL;
  id_owner_t *eo = NULL;
  int64_t *queue = NULL;
  MPI_Request *req = NULL;
  *rounds = 0;
  int cached = ld->dcache && ld->dcache_gen == ld->gen && ld->ndcache == ow->n, allc = 0;
  if (MPI_Allreduce(&cached, &allc, 1, MPI_INT, MPI_MIN, ld->comm) != MPI_SUCCESS) {
    status = mxn_error_set(e, MXN_ERR_MPI, "diffusion: MPI_Allreduce failed");
    goto done;
  }
  /* the rounds' arrays; a failure is agreed with the setup's below */
  nb = mxn__calloc((size_t)N + 1, sizeof *nb);
  nbw = mxn__calloc((size_t)N + 1, sizeof *nbw);
  give = mxn__calloc((size_t)N + 1, sizeof *give);
  req = mxn__calloc(2 * (size_t)N + 1, sizeof *req);
  if (!nb || !nbw || !give || !req) status = MXN_ERR_NOMEM;
  if (allc) {
    /* the owned set the last diffusion left: its records, this step's
     * weights (looked up by id) */
    idpos_t *byid = mxn__malloc(((size_t)ow->n + 1) * sizeof *byid);
    mine = mxn__malloc(((size_t)ow->n + 1) * sizeof *mine);
    if (!byid || !mine) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < ow->n; i++) byid[i] = (idpos_t){ow->ids[i], i};
    if (status == MXN_OK) {
      qsort(byid, (size_t)ow->n, sizeof *byid, cmp_idpos);
      memcpy(mine, ld->dcache, (size_t)ow->n * sizeof *mine);
    }
    for (int64_t i = 0; status == MXN_OK && i < ow->n; i++) {
      idpos_t key = {mine[i].id, 0};
      idpos_t *f = bsearch(&key, byid, (size_t)ow->n, sizeof *byid, cmp_idpos);
      if (!f) status = MXN_ERR_INCONSISTENT;
      else mine[i].w = ow->w[f->e];
    }
    free(byid);
    if (status == MXN_ERR_NOMEM)
      mxn_error_set(e, status, "rank %d: out of memory in diffusion", R);
    else if (status != MXN_OK)
      mxn_error_set(e, status, "rank %d: diffusion cache does not match", R);
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  } else {
    mxn_piece_t view;
    if (status == MXN_OK) status = owned_view(ld, &view, &vb);
    if (status == MXN_OK && !(ones = mxn__calloc((size_t)ow->n + 1, sizeof *ones)))
      status = MXN_ERR_NOMEM;
    if (status != MXN_OK)
      mxn_error_set(e, status, "rank %d: diffusion setup failed: %s", R, mxn_strerror(status));
    /* the dual graph is collective */
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    status = mxn__dual_graph_dist(ld->comm, N, R, s, &view, ow->ids, ones, &adj_off, &adj_ids,
                                  &adj_ranks, &adj_q);
    if (status == MXN_OK) {
      mine = mxn__malloc(((size_t)nmine + 1) * sizeof *mine);
      if (!mine) status = MXN_ERR_NOMEM;
    }
    for (int64_t i = 0; status == MXN_OK && i < nmine; i++) {
      memset(&mine[i], 0, sizeof mine[i]);
      mine[i].id = ow->ids[i];
      mine[i].w = ow->w[i];
      int64_t na = adj_off[i + 1] - adj_off[i];
      mine[i].nadj = na < DIFF_MAXADJ ? na : DIFF_MAXADJ;
      for (int64_t j = 0; j < mine[i].nadj; j++) mine[i].adj[j] = adj_ids[adj_off[i] + j];
    }
    if (status != MXN_OK && !e->msg[0])
      mxn_error_set(e, status, "rank %d: diffusion setup failed: %s", R, mxn_strerror(status));
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  }
  if (max_rounds <= 0) max_rounds = 20;
  for (int round = 0; round < max_rounds; round++) {
    /* stop when balanced */
    double W = 0, Wmax = 0, Wsum = 0;
    for (int64_t i = 0; i < nmine; i++) W += mine[i].w;
    if (MPI_Allreduce(&W, &Wmax, 1, MPI_DOUBLE, MPI_MAX, ld->comm) != MPI_SUCCESS ||
        MPI_Allreduce(&W, &Wsum, 1, MPI_DOUBLE, MPI_SUM, ld->comm) != MPI_SUCCESS) {
      status = mxn_error_set(e, MXN_ERR_MPI, "diffusion: MPI_Allreduce failed");
      goto done;
    }
    if (Wsum <= 0 || Wmax <= tol * Wsum / N) break;
    (*rounds)++;
    /* my elements by id; the foreign neighbours and their owners */
    free(loc);
    loc = mxn__malloc(((size_t)nmine + 1) * sizeof *loc);
    if (!loc) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nmine; i++) loc[i] = (idpos_t){mine[i].id, i};
    if (status == MXN_OK) qsort(loc, (size_t)nmine, sizeof *loc, cmp_idpos);
    int64_t next = 0;
    for (int64_t i = 0; status == MXN_OK && i < nmine; i++) next += mine[i].nadj;
    free(ext);
    free(extown);
    ext = mxn__malloc(((size_t)next + 1) * sizeof *ext);
    extown = mxn__malloc(((size_t)next + 1) * sizeof *extown);
    if (!ext || !extown) status = MXN_ERR_NOMEM;
    int64_t ne = 0;
    free(border);
    border = mxn__calloc((size_t)nmine + 1, 1);
    if (!border) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nmine; i++)
      for (int64_t j = 0; j < mine[i].nadj; j++) {
        idpos_t key = {mine[i].adj[j], 0};
        if (!bsearch(&key, loc, (size_t)nmine, sizeof *loc, cmp_idpos)) {
          ext[ne++] = mine[i].adj[j];
          border[i] = 1;
        }
      }
    if (status != MXN_OK) mxn_error_set(e, status, "rank %d: out of memory in diffusion", R);
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    if ((status = owners_of(ld->comm, N, R, mine, nmine, border, ext, ne, extown)) != MXN_OK) {
      mxn_error_set(e, status, "diffusion: looking up the neighbours' owners failed");
      goto done;
    }
    memset(nb, 0, (size_t)N * sizeof *nb);
    for (int64_t i = 0; i < ne; i++)
      if (extown[i] >= 0 && extown[i] != R) nb[extown[i]] = 1;
    /* foreign neighbours by id, for the border search */
    free(eo);
    eo = mxn__malloc(((size_t)ne + 1) * sizeof *eo);
    if (!eo) {
      status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory in diffusion", R);
    } else {
      for (int64_t i = 0; i < ne; i++) eo[i] = (id_owner_t){ext[i], extown[i]};
      qsort(eo, (size_t)ne, sizeof *eo, cmp_id_owner);
    }
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    /* neighbours' weights: point-to-point with the neighbours only (the
     * relation is symmetric: sides are shared both ways) */
    int nr = 0;
    for (int r = 0; r < N; r++)
      if (nb[r]) {
        MPI_Irecv(&nbw[r], 1, MPI_DOUBLE, r, 77, ld->comm, &req[nr++]);
        MPI_Isend(&W, 1, MPI_DOUBLE, r, 77, ld->comm, &req[nr++]);
      }
    if (MPI_Waitall(nr, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
      status = mxn_error_set(e, MXN_ERR_MPI, "diffusion: exchanging weights failed");
      goto done;
    }
    double gsum = W, deficit = 0;
    int gn = 1;
    for (int r = 0; r < N; r++)
      if (nb[r]) gsum += nbw[r], gn++;
    double gavg = gsum / gn;
    memset(give, 0, (size_t)N * sizeof *give);
    if (W > gavg * (1.0 + 0.5 * (tol - 1.0))) {
      for (int r = 0; r < N; r++)
        if (nb[r] && nbw[r] < gavg) deficit += gavg - nbw[r];
      for (int r = 0; r < N && deficit > 0; r++)
        if (nb[r] && nbw[r] < gavg) give[r] = 0.5 * (W - gavg) * (gavg - nbw[r]) / deficit;
    }
    /* border elements for each receiver, grown inward breadth first */
    free(dest);
    dest = mxn__malloc(((size_t)nmine + 1) * sizeof *dest);
    free(queue);
    queue = mxn__malloc(((size_t)nmine + 1) * sizeof *queue);
    if (!dest || !queue) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nmine; i++) dest[i] = R;
    int64_t left = nmine;
    for (int r = 0; status == MXN_OK && r < N; r++) {
      if (give[r] <= 0) continue;
      int64_t qh = 0, qt = 0;
      /* seeds: my elements touching r's, in id order */
      for (int64_t x = 0, ei = 0; x < nmine; x++) {
        int64_t i = loc[x].e;
        (void)ei;
        if (dest[i] != R) continue;
        int touch = 0;
        for (int64_t j = 0; j < mine[i].nadj && !touch; j++) {
          id_owner_t key = {mine[i].adj[j], 0};
          id_owner_t *f = bsearch(&key, eo, (size_t)ne, sizeof *eo, cmp_id_owner);
          touch = f && f->owner == r;
        }
        if (touch) {
          queue[qt++] = i;
          dest[i] = -1 - r; /* queued for r */
        }
      }
      double given = 0;
      while (qh < qt && given < give[r] && left > 1) {
        int64_t i = queue[qh++];
        dest[i] = r;
        given += mine[i].w;
        left--;
        for (int64_t j = 0; j < mine[i].nadj; j++) {
          idpos_t key = {mine[i].adj[j], 0};
          idpos_t *f = bsearch(&key, loc, (size_t)nmine, sizeof *loc, cmp_idpos);
          if (f && dest[f->e] == R) {
            queue[qt++] = f->e;
            dest[f->e] = -1 - r;
          }
        }
      }
      for (int64_t x = qh; x < qt; x++) dest[queue[x]] = R; /* not taken */
    }
    if (status != MXN_OK) mxn_error_set(e, status, "rank %d: out of memory in diffusion", R);
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    free(got);
    got = NULL;
    status = mxn__send_to(ld->comm, N, mine, sizeof *mine, nmine, dest, (void **)&got, &ngot);
    if (status != MXN_OK) mxn_error_set(e, status, "diffusion: moving elements failed");
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    free(mine);
    mine = got;
    nmine = ngot;
    got = NULL;
  }
  *out = mine;
  *nout = nmine;
  mine = NULL;
done:
  free(mine);
  free(got);
  free(adj_off);
  free(adj_ids);
  free(adj_ranks);
  free(adj_q);
  free(ones);
  free(vb);
  free(loc);
  free(border);
  free(eo);
  free(ext);
  free(extown);
  free(dest);
  free(nb);
  free(nbw);
  free(give);
  free(queue);
  free(req);
  return status;
}

/* ---------------------------------------------------------------- */
/* The new piece: kept + gained, then the halo.                       */

typedef struct {
  mxn_gid_t id;
  double w;
  int64_t g; /* global string position (SHIFT), else 0 */
} mover_t;

static int cmp_mover_g(const void *a, const void *b) {
  const mover_t *x = a, *y = b;
  if (x->g != y->g) return (x->g > y->g) - (x->g < y->g);
  return (x->id > y->id) - (x->id < y->id);
}

/* Rebuild this rank's piece for its new owned set `mine` (sorted by id):
 * keep the owned elements that stay (no read), read the gained ones
 * through their cover with the step's fields, sort, then the halo (reusing
 * what the old piece held). Collective; errors agreed. */
static int rebuild(mxn_load_t *ld, int step, const mxn_idset_t *mine, const owned_t *ow,
                   mxn_rebalance_report_t *rep, mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  mxn_dataset_t *ds = ld->ds;
  int status = MXN_OK, R = ld->rank, M = s->num_files;
  mxn_piece_t *old = ld->piece, *np = NULL, *more = NULL;
  char *keep = NULL, *mask = NULL;
  mxn_idset_t G = MXN_IDSET_INIT, *F = NULL;
  int64_t *qoff = NULL, *qpos = NULL;
  int32_t *qfile = NULL;
  mxn_cover_t cov;
  memset(&cov, 0, sizeof cov);
  int64_t gap = ld->o.gap >= 0 ? ld->o.gap : 64;

  keep = mxn__calloc((size_t)old->num_elements + 1, 1);
  G.ids = mxn__malloc(((size_t)mine->n + 1) * sizeof *G.ids);
  if (!keep || !G.ids) status = MXN_ERR_NOMEM;
  int64_t lost = 0, kept = 0;
  {
    /* kept: owned now and before; gained: owned now only */
    mxn_gid_t *was = NULL;
    if (status == MXN_OK) {
      was = mxn__malloc(((size_t)ow->n + 1) * sizeof *was);
      if (!was) status = MXN_ERR_NOMEM;
    }
    if (status == MXN_OK) {
      memcpy(was, ow->ids, (size_t)ow->n * sizeof *was);
      if (mxn__radix_sort(was, ow->n, sizeof *was) != MXN_OK) status = MXN_ERR_NOMEM;
    }
    for (int64_t i = 0; status == MXN_OK && i < ow->n; i++) {
      int64_t c = 0;
      for (int b = 0; b < ow->blk[i]; b++) c += old->blocks[b].num_elements;
      if (mxn_idset_find(mine, ow->ids[i]) >= 0) {
        keep[c + ow->at[i]] = 1;
        kept++;
      } else {
        lost++;
      }
    }
    for (int64_t i = 0; status == MXN_OK && i < mine->n; i++) {
      int64_t q = mxn__lower_bound(was, ow->n, mine->ids[i]);
      if (q >= ow->n || was[q] != mine->ids[i]) G.ids[G.n++] = mine->ids[i];
    }
    free(was);
  }
  rep->gained = G.n;
  rep->lost = lost;
  if (status == MXN_OK) status = mxn__piece_subset(s, old, keep, gap, 0, &np, e);
  if (status != MXN_OK && !e->msg[0]) mxn_error_set(e, status, "rank %d: keeping its elements failed", R);
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  /* the gained elements: where they are, their cover, read */
  status = mxn_directory_query(ld->dir, G.n, G.ids, &qoff, &qfile, &qpos, e);
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  if (G.n > 0) {
    int64_t *cnt = NULL;
    /* (agreed below: no collective step before) */
    mask = mxn__calloc((size_t)M + 1, sizeof *mask);
    cnt = mxn__calloc((size_t)M + 1, sizeof *cnt);
    F = mxn__calloc((size_t)M + 1, sizeof *F);
    if (!mask || !cnt || !F) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < qoff[G.n]; i++) cnt[qfile[i]]++;
    for (int j = 0; j < M && status == MXN_OK; j++) {
      F[j].ids = cnt[j] ? mxn__malloc((size_t)cnt[j] * sizeof *F[j].ids) : NULL;
      if (cnt[j] && !F[j].ids) status = MXN_ERR_NOMEM;
    }
    free(cnt);
    for (int64_t k = 0; k < G.n && status == MXN_OK; k++)
      for (int64_t i = qoff[k]; i < qoff[k + 1]; i++) F[qfile[i]].ids[F[qfile[i]].n++] = G.ids[k];
    if (status == MXN_OK) status = mxn__cover_greedy(&G, F, M, 0, &cov);
    if (status == MXN_OK && cov.uncovered.n > 0)
      status = mxn_error_set(e, MXN_ERR_NOTFOUND, "element %lld is in no file of %s",
                             (long long)cov.uncovered.ids[0], mxn_dataset_file_path(ds, 0));
    for (int c = 0; status == MXN_OK && c < cov.nparts; c++) mask[cov.parts[c].file] = 1;
    mxn_extract_opts_t xo;
    memset(&xo, 0, sizeof xo);
    xo.gap = gap;
    xo.gap_share = MXN__GAP_SHARE; /* as the load's own piece read */
    xo.file_mask = mask;
    xo.node_var_mask = ld->o.node_var_selection;
    xo.elem_var_mask = ld->o.elem_var_selection;
    if (status == MXN_OK && (status = mxn_extract(ds, &G, &xo, &more)) != MXN_OK)
      mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
    if (status == MXN_OK && old->step >= 0 && (status = mxn_piece_read_step(ds, more, old->step)) != MXN_OK)
      mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
    if (status == MXN_OK) status = mxn__piece_append(s, np, &more, gap, e);
  }
  if (status == MXN_OK) status = mxn__piece_sort(np, s);
  if (status != MXN_OK && !e->msg[0])
    mxn_error_set(e, status, "rank %d: reading its gained elements failed: %s", R,
                  mxn_strerror(status));
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  rep->elements_reused = kept;
  /* swap in; then the halo around the new owned piece */
  mxn__load_halo_free(ld->halo, old->num_blocks);
  ld->halo = NULL;
  ld->piece = np;
  np = NULL;
  if (ld->o.ghost_levels > 0) {
    ld->st.ghost_files = 0;
    ld->st.ghost_nodes = 0;
    ld->st.ghost_elements = 0;
    status = mxn__load_halo(ld, &ld->o, ld->dir, old->step, e);
  }
  mxn_piece_destroy(&old);
done:
  /* before the swap the old piece is still the handle's; after it, it was
   * freed above whatever the halo's outcome */
  mxn_piece_destroy(&np);
  mxn_piece_destroy(&more);
  free(keep);
  free(mask);
  mxn_idset_free(&G);
  if (F)
    for (int j = 0; j < M; j++) free(F[j].ids);
  free(F);
  free(qoff);
  free(qfile);
  free(qpos);
  mxn_cover_free(&cov);
  (void)step;
  return status;
}

/* ---------------------------------------------------------------- */

static int rebalance(mxn_load_t *ld, int step, const mxn_rebalance_opts_t *opts,
                     mxn_rebalance_report_t *rep_out, mxn_error_t *err);

int mxn_load_rebalance(mxn_load_t *ld, int step, const mxn_rebalance_opts_t *opts,
                       mxn_rebalance_report_t *rep_out, mxn_error_t *err) {
  if (!ld) return mxn_error_set(err, MXN_ERR_ARG, "mxn_load_rebalance: no load handle");
  return rebalance(ld, step, opts, rep_out, err);
}

static int rebalance(mxn_load_t *ld, int step, const mxn_rebalance_opts_t *opts,
                     mxn_rebalance_report_t *rep_out, mxn_error_t *err) {
  mxn_error_t e;
  mxn_error_clear(&e);
  mxn_rebalance_opts_t defaults;
  memset(&defaults, 0, sizeof defaults);
  const mxn_rebalance_opts_t *o = opts ? opts : &defaults;
  mxn_rebalance_report_t rep;
  memset(&rep, 0, sizeof rep);
  rep.step = step;
  rep.fresh_migrated = -1;
  int status = MXN_OK, N = ld->size, R = ld->rank;
  owned_t ow;
  memset(&ow, 0, sizeof ow);
  int64_t *perm = NULL;
  double *ws = NULL;
  int *part = NULL, *spart = NULL;
  mover_t *mv = NULL, *recv = NULL;
  diff_rec_t *drec = NULL;
  int64_t nrecv = 0, ndrec = 0;
  mxn_idset_t mine = MXN_IDSET_INIT;
  double t0 = now();
  mxn_io_counters_t c0 = mxn_dataset_counters(ld->ds);
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);

  if (!ld->dynamic)
    status = mxn_error_set(&e, MXN_ERR_ARG,
                           "mxn_load_rebalance: the load was not opened with opts.dynamic");
  else if (step < 0 || step >= s->num_times)
    status = mxn_error_set(&e, MXN_ERR_ARG, "%s: time step %d does not exist (%d steps)",
                           mxn_dataset_file_path(ld->ds, 0), step + 1, s->num_times);
  else if ((int)o->strategy < 0 || (int)o->strategy > MXN_REBAL_REFINE)
    status = mxn_error_set(&e, MXN_ERR_ARG, "mxn_load_rebalance: unknown strategy %d", (int)o->strategy);
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  double tol = o->imbalance_tol > 1 ? o->imbalance_tol
               : ld->o.imbalance_tol > 1 ? ld->o.imbalance_tol : 1.05;
  mxn_rebal_strategy strat = o->strategy;
  mxn_part_method m = ld->o.method;
  int zoltan = m == MXN_PART_RCB || m == MXN_PART_RIB || m == MXN_PART_HSFC || m == MXN_PART_GRAPH;
  if (strat == MXN_REBAL_AUTO) strat = zoltan ? MXN_REBAL_REPARTITION : MXN_REBAL_SHIFT;
  if (strat == MXN_REBAL_REPARTITION && !zoltan)
    status = mxn_error_set(&e, MXN_ERR_ARG,
                           "mxn_load_rebalance: repartition needs a Zoltan method (rcb, rib, "
                           "hsfc, graph), the load used %s", mxn_part_method_name(m));
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  rep.strategy = strat;

  /* 1. the step's fields, with the cached plan */
  if (ld->piece->step != step && (status = mxn_load_read_step(ld, step, &e)) != MXN_OK) goto done;
  c0 = mxn_dataset_counters(ld->ds);
  t0 = now(); /* balancing starts after the step's read */

  /* 2. weights of the owned elements */
  status = collect_owned(ld, &ow);
  if (status != MXN_OK) mxn_error_set(&e, status, "out of memory on rank %d", R);
  else status = weigh(ld, step, o, &ow, &e);
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  {
    double sum = 0, tot = 0, fl = o->weight_floor;
    int64_t cnt = ow.n, ctot = 0;
    for (int64_t k = 0; k < ow.n; k++) sum += ow.w[k];
    MPI_Allreduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM, ld->comm);
    MPI_Allreduce(&cnt, &ctot, 1, MPI_INT64_T, MPI_SUM, ld->comm);
    if (!(fl > 0)) fl = ctot > 0 && tot > 0 ? 1e-6 * tot / ctot : 1e-6;
    for (int64_t k = 0; k < ow.n; k++)
      if (ow.w[k] < fl) ow.w[k] = fl;
  }

  /* 3. the policy */
  status = part_imbalance(ld->comm, N, R, ow.n, ow.w, NULL, &rep.imbalance_before, NULL);
  if (status != MXN_OK) {
    mxn_error_set(&e, status, "MPI_Allreduce of the rank weights failed");
    goto done;
  }
  rep.imbalance_after = rep.imbalance_before;
  {
    /* the figures follow the step's weights, re-balanced or not */
    double mw = 0;
    for (int64_t k = 0; k < ow.n; k++) mw += ow.w[k];
    ld->st.owned_weight = mw;
    ld->st.imbalance = rep.imbalance_before;
  }
  part = mxn__calloc((size_t)ow.n + 1, sizeof *part);
  perm = mxn__calloc((size_t)ow.n + 1, sizeof *perm);
  ws = mxn__calloc((size_t)ow.n + 1, sizeof *ws);
  spart = mxn__calloc((size_t)ow.n + 1, sizeof *spart);
  if (!part || !perm || !ws || !spart)
    status = mxn_error_set(&e, MXN_ERR_NOMEM, "rank %d: out of memory re-balancing", R);
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done; /* collective steps next */
  int need_string = strat == MXN_REBAL_SHIFT || (!zoltan && (o->measure_fresh || strat == MXN_REBAL_FRESH));
  if (need_string) {
    status = string_order(ld, &ow, perm, &e);
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    for (int64_t i = 0; i < ow.n; i++) ws[i] = ow.w[perm[i]];
  }
  double t_fresh = 0; /* measuring the fresh partition is not balancing */
  if (o->measure_fresh || strat == MXN_REBAL_FRESH) {
    /* a fresh partition of the step: equal cuts of the string, or Zoltan
     * from scratch (parts as Zoltan numbers them) */
    double fi = 0, tf0 = now();
    if (zoltan) {
      status = zoltan_parts(ld, &ow, tol, 0, part, &e);
    } else {
      status = shift_cuts(ld->comm, N, R, ow.n, ws, tol, 0.0, spart);
      for (int64_t i = 0; i < ow.n; i++) part[perm[i]] = spart[i];
    }
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    int64_t mv1 = 0, mvall = 0;
    for (int64_t i = 0; i < ow.n; i++) mv1 += part[i] != R;
    MPI_Allreduce(&mv1, &mvall, 1, MPI_INT64_T, MPI_SUM, ld->comm);
    status = part_imbalance(ld->comm, N, R, ow.n, ow.w, part, &fi, NULL);
    if (status != MXN_OK) goto done;
    rep.fresh_migrated = mvall;
    rep.fresh_imbalance = fi;
    if (strat != MXN_REBAL_FRESH) t_fresh = now() - tf0;
  }
  if (rep.imbalance_before <= tol && !o->force) {
    rep.seconds_balance = now() - t0 - t_fresh;
    goto report;
  }

  /* 4. new owners */
  int64_t min_count = 0;
  double after = 0;
  if (strat == MXN_REBAL_FRESH) {
    /* computed above into part */
    status = part_imbalance(ld->comm, N, R, ow.n, ow.w, part, &after, &min_count);
  } else if (strat == MXN_REBAL_SHIFT) {
    static const double fracs[] = {0.95, 0.8, 0.5, 0.25, 0.0};
    for (int t = 0; t < 5; t++) {
      status = shift_cuts(ld->comm, N, R, ow.n, ws, tol, fracs[t], spart);
      if (status == MXN_OK) status = part_imbalance(ld->comm, N, R, ow.n, ws, spart, &after, &min_count);
      if (status != MXN_OK) break;
      rep.retries = t;
      if (after <= tol && min_count > 0) break;
    }
    for (int64_t i = 0; i < ow.n; i++) part[perm[i]] = spart[i];
  } else if (strat == MXN_REBAL_REPARTITION && m == MXN_PART_RCB) {
    static const double fracs[] = {0.95, 0.8, 0.5, 0.25, 0.0};
    for (int t = 0; t < 5; t++) {
      status = tree_shift(ld->comm, N, R, &ow, tol, fracs[t], part);
      if (status == MXN_OK) status = part_imbalance(ld->comm, N, R, ow.n, ow.w, part, &after, &min_count);
      if (status != MXN_OK) break;
      rep.retries = t;
      if (after <= tol && min_count > 0) break;
    }
  } else if (strat == MXN_REBAL_REPARTITION || strat == MXN_REBAL_REFINE) {
    double t = tol;
    for (int tries = 0; tries < 4; tries++) {
      status = zoltan_parts(ld, &ow, t, strat == MXN_REBAL_REFINE ? 2 : 1, part, &e);
      if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
      status = part_imbalance(ld->comm, N, R, ow.n, ow.w, part, &after, &min_count);
      if (status != MXN_OK) break;
      rep.retries = tries;
      if (after <= tol && min_count > 0) break;
      t = 1.0 + 0.5 * (t - 1.0); /* Fluidity: tighten and retry */
    }
  } else { /* DIFFUSION */
    status = diffuse(ld, &ow, tol, o->max_rounds, &drec, &ndrec, &rep.rounds, &e);
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    double W = 0;
    for (int64_t i = 0; i < ndrec; i++) W += drec[i].w;
    int64_t cnt = ndrec;
    double Wmax = 0, Wsum = 0;
    MPI_Allreduce(&W, &Wmax, 1, MPI_DOUBLE, MPI_MAX, ld->comm);
    MPI_Allreduce(&W, &Wsum, 1, MPI_DOUBLE, MPI_SUM, ld->comm);
    MPI_Allreduce(&cnt, &min_count, 1, MPI_INT64_T, MPI_MIN, ld->comm);
    after = Wsum > 0 ? Wmax / (Wsum / N) : 1.0;
  }
  if (status != MXN_OK)
    mxn_error_set(&e, status, "computing new owners failed on rank %d: %s", R, mxn_strerror(status));
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  int64_t ntot = 0;
  MPI_Allreduce(&ow.n, &ntot, 1, MPI_INT64_T, MPI_SUM, ld->comm);
  if (min_count == 0 && ntot >= N) {
    /* last resort: equal cuts of the Hilbert string, no edge weights
     * (Fluidity), then equal element counts */
    free(drec);
    drec = NULL;
    ndrec = 0;
    strat = MXN_REBAL_SHIFT;
    free(ld->str);
    ld->str = NULL;
    free(ld->str_perm);
    ld->str_perm = NULL;
    mxn_part_method keepm = ld->o.method;
    ld->o.method = MXN_PART_SFC;
    status = string_order(ld, &ow, perm, &e);
    ld->o.method = keepm;
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    for (int64_t i = 0; i < ow.n; i++) ws[i] = ow.w[perm[i]];
    status = shift_cuts(ld->comm, N, R, ow.n, ws, tol, 0.0, spart);
    if (status == MXN_OK) status = part_imbalance(ld->comm, N, R, ow.n, ws, spart, &after, &min_count);
    rep.fell_back = 1;
    if (status == MXN_OK && min_count == 0) {
      /* a few elements carry (nearly) all the weight: equal-weight cuts
       * still leave parts inside one element; equal element counts never
       * do (N <= elements) */
      double *unit = mxn__malloc(((size_t)ow.n + 1) * sizeof *unit);
      if (!unit) status = MXN_ERR_NOMEM;
      for (int64_t i = 0; status == MXN_OK && i < ow.n; i++) unit[i] = 1.0;
      if (status == MXN_OK) status = shift_cuts(ld->comm, N, R, ow.n, unit, tol, 0.0, spart);
      free(unit);
      if (status == MXN_OK) status = part_imbalance(ld->comm, N, R, ow.n, ws, spart, &after, &min_count);
      rep.fell_back = 2;
    }
    for (int64_t i = 0; i < ow.n; i++) part[perm[i]] = spart[i];
    if (status != MXN_OK)
      mxn_error_set(&e, status, "the fallback partition failed on rank %d: %s", R,
                    mxn_strerror(status));
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  }
  rep.imbalance_after = after;

  /* 5. my new owned set (ids move, nothing else) */
  if (drec) {
    /* (a failure is agreed below, before the next collective step) */
    if (!(recv = mxn__malloc(((size_t)ndrec + 1) * sizeof *recv)))
      status = mxn_error_set(&e, MXN_ERR_NOMEM, "rank %d: out of memory re-balancing", R);
    nrecv = recv ? ndrec : 0;
    for (int64_t i = 0; i < nrecv; i++) recv[i] = (mover_t){drec[i].id, drec[i].w, 0};
  } else {
    int64_t before = 0;
    MPI_Exscan(&ow.n, &before, 1, MPI_INT64_T, MPI_SUM, ld->comm);
    if (R == 0) before = 0;
    /* short of memory, a rank still calls the exchange, which then fails
     * everywhere (mxn__send_to_if) */
    mv = mxn__malloc(((size_t)ow.n + 1) * sizeof *mv);
    if (!mv) status = mxn_error_set(&e, MXN_ERR_NOMEM, "rank %d: out of memory re-balancing", R);
    int *dst = spart;
    if (strat == MXN_REBAL_SHIFT) {
      for (int64_t i = 0; mv && i < ow.n; i++) mv[i] = (mover_t){ow.ids[perm[i]], ws[i], before + i};
    } else {
      for (int64_t i = 0; mv && i < ow.n; i++) mv[i] = (mover_t){ow.ids[i], ow.w[i], 0};
      dst = part;
    }
    int sent = mxn__send_to_if(ld->comm, N, status, mv, sizeof *mv, ow.n, dst, (void **)&recv,
                               &nrecv);
    if (status == MXN_OK && sent != MXN_OK)
      status = mxn_error_set(&e, sent, "moving element ids failed: %s", mxn_strerror(sent));
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  }
  {
    int64_t moved = 0, all = 0;
    for (int64_t i = 0; i < ow.n; i++)
      moved += drec ? 0 : (strat == MXN_REBAL_SHIFT ? spart[i] : part[i]) != R;
    if (drec) {
      /* elements I hold now that I did not own */
      mxn_idset_t was = MXN_IDSET_INIT;
      if (status == MXN_OK) status = mxn_idset_from_array(ow.ids, ow.n, &was);
      for (int64_t i = 0; status == MXN_OK && i < nrecv; i++) moved += mxn_idset_find(&was, recv[i].id) < 0;
      mxn_idset_free(&was);
    }
    if (status != MXN_OK && !e.msg[0]) mxn_error_set(&e, status, "out of memory on rank %d", R);
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    MPI_Allreduce(&moved, &all, 1, MPI_INT64_T, MPI_SUM, ld->comm);
    rep.migrated = all;
  }
  if (strat == MXN_REBAL_SHIFT) {
    /* the new string: received in global string order */
    qsort(recv, (size_t)nrecv, sizeof *recv, cmp_mover_g);
    free(ld->str);
    ld->str = mxn__malloc(((size_t)nrecv + 1) * sizeof *ld->str);
    if (!ld->str) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nrecv; i++) ld->str[i] = recv[i].id;
    ld->nstr = nrecv;
  } else {
    free(ld->str);
    ld->str = NULL;
    ld->nstr = 0;
  }
  double wnew = 0;
  if (status == MXN_OK) {
    mxn_gid_t *ids = mxn__malloc(((size_t)nrecv + 1) * sizeof *ids);
    if (!ids) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nrecv; i++) {
      ids[i] = recv[i].id;
      wnew += recv[i].w;
    }
    if (status == MXN_OK) status = mxn_idset_from_array(ids, nrecv, &mine);
    free(ids);
  }
  if (status != MXN_OK) mxn_error_set(&e, status, "out of memory on rank %d", R);
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  rep.seconds_balance = now() - t0 - t_fresh;

  /* 6. only what changed is re-read */
  double t1 = now();
  if (rep.migrated > 0) {
    status = rebuild(ld, step, &mine, &ow, &rep, &e);
    ld->gen++; /* a new piece: string positions must be found again */
    if (status != MXN_OK) goto done;
  }
  if (drec) {
    /* the diffusion's records are the owned set now: kept for the next */
    free(ld->dcache);
    ld->dcache = drec;
    ld->ndcache = ndrec;
    ld->dcache_gen = ld->gen;
    drec = NULL;
  }
  if (rep.migrated > 0) {
    rep.rebalanced = 1;
    rep.seconds_migrate = now() - t1;
    ld->st.owned_elements = mine.n;
    ld->st.owned_weight = wnew;
    ld->st.num_nodes = ld->piece->num_nodes;
    ld->st.imbalance = rep.imbalance_after;
  }

report:
  {
    mxn_io_counters_t c1 = mxn_dataset_counters(ld->ds);
    rep.bytes_read = mxn__load_count_reads(ld, c0, c1);
    double tv[2] = {rep.seconds_balance, rep.seconds_migrate}, tm[2];
    MPI_Allreduce(&rep.bytes_read, &rep.bytes_read_all, 1, MPI_INT64_T, MPI_SUM, ld->comm);
    MPI_Allreduce(tv, tm, 2, MPI_DOUBLE, MPI_MAX, ld->comm);
    rep.seconds_balance = tm[0];
    rep.seconds_migrate = tm[1];
  }
done:
  if (rep_out) *rep_out = rep;
  if (status != MXN_OK && err) *err = e;
  owned_free(&ow);
  free(perm);
  free(ws);
  free(part);
  free(spart);
  free(mv);
  free(recv);
  free(drec);
  mxn_idset_free(&mine);
  return status;
}
