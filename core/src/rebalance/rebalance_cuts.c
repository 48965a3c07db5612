/* New owners for a re-balance by cutting an order of the owned elements
 * (see rebalance.c for the driver): the string order and its shifted cuts
 * (SHIFT, the fresh and last-resort cuts), Zoltan on the owned elements
 * (REPARTITION, REFINE) and, for rcb, the shift of the current bisection
 * tree's cuts. */
#include "rebalance/rebal_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* The owned elements in string order: perm[i] = owned index of the i-th.
 * The string kept from the last shift if it still holds the owned set,
 * else by key: files = (member, position) as read; linear = id; others =
 * Hilbert key of the centroid over the global box (the sfc order).
 * Collective (the box). */
int mxn__rebal_string_order(mxn_load_t *ld, const owned_t *ow, int64_t *perm, mxn_error_t *e) {
  int status = MXN_OK, ok = ld->str && ld->nstr == ow->n;
  idpos_t *ip = NULL;
  skey_t *sk = NULL;
  uint64_t *hk = NULL;
  /* the same piece as last time: the same string (agreed, so that every
   * rank takes the same collective path) */
  int64_t allfast = ld->str_perm && ld->str_gen == ld->gen && ld->nstr == ow->n;
  if ((status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__MIN, &allfast, 1)) != MXN_OK)
    return mxn_error_set(e, status, "rank %d: agreeing on the kept string failed", ld->rank);
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
  int64_t all = ok;
  if ((status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__MIN, &all, 1)) != MXN_OK) goto done;
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
    memcpy(gbox, box, sizeof gbox);
    if ((status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__MIN, gbox, 6)) != MXN_OK) goto done;
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
int mxn__rebal_shift_cuts(MPI_Comm comm, int N, int R, int64_t n, const double *ws, double tol,
                          double frac, int *part) {
  int status = MXN_OK;
  double *W = NULL, *c = NULL, *cold = NULL;
  double mine = 0;
  for (int64_t k = 0; k < n; k++) mine += ws[k];
  W = mxn__calloc((size_t)N + 1, sizeof *W);
  c = mxn__calloc((size_t)N + 1, sizeof *c);
  cold = mxn__calloc((size_t)N + 1, sizeof *cold);
  /* a rank short of memory still takes part in the gather, which fails */
  if ((status = mxn__comm_allgather(comm, W && c && cold ? MXN_OK : MXN_ERR_NOMEM, &mine,
                                    (int64_t)sizeof mine, W)) != MXN_OK)
    goto done;
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
int mxn__rebal_zoltan_parts(mxn_load_t *ld, const owned_t *ow, double tol, int repart, int *part,
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
  double g[2];
  int status;
  while (lo < hi) {
    uint64_t m = lo + (hi - lo) / 2;
    g[0] = weight_upto(k, prefix, n, m, UINT64_MAX);
    if ((status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__SUM, g, 1)) != MXN_OK) return status;
    if (g[0] >= c) hi = m;
    else lo = m + 1;
  }
  *Ka = lo;
  uint64_t blo = 0, bhi = UINT64_MAX;
  while (blo < bhi) {
    uint64_t m = blo + (bhi - blo) / 2;
    g[0] = weight_upto(k, prefix, n, *Ka, m);
    if ((status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__SUM, g, 1)) != MXN_OK) return status;
    if (g[0] >= c) bhi = m;
    else blo = m + 1;
  }
  *Kb = blo;
  /* below K: up to (Ka, Kb - 1), or up to (Ka - 1, max) */
  g[0] = blo > 0 ? weight_upto(k, prefix, n, *Ka, blo - 1)
         : *Ka > 0 ? weight_upto(k, prefix, n, *Ka - 1, UINT64_MAX) : 0.0;
  g[1] = weight_upto(k, prefix, n, *Ka, blo);
  if ((status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__SUM, g, 2)) != MXN_OK) return status;
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
int mxn__rebal_tree_shift(MPI_Comm comm, int N, int R, const owned_t *ow, double tol, double frac,
                          int *part) {
  int status = MXN_OK;
  int *noff = NULL, *nend = NULL, *queue = NULL, *pl = NULL, *where = NULL, *tmp = NULL;
  double *box = NULL, *gbox = NULL, *wp = NULL, *gwp = NULL, *prefix = NULL, *pre = NULL,
         *suf = NULL;
  pctr_t *ord = NULL;
  tkey_t *k = NULL;
  int64_t n = ow->n;
  double Wtot = 0;
  for (int64_t i = 0; i < n; i++) Wtot += ow->w[i];
  if ((status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__SUM, &Wtot, 1)) != MXN_OK) return status;
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
    memcpy(gbox, box, 6 * ((size_t)np + 1) * sizeof *gbox);
    memcpy(gwp, wp, ((size_t)np + 1) * sizeof *gwp);
    if ((status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__MIN, gbox, 6 * (np + 1))) != MXN_OK ||
        (status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__SUM, gwp, np + 1)) != MXN_OK)
      goto done;
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
