/* Per-time-step re-balancing of a parallel load (load.h,
 * mxn_load_rebalance): weights at the step, the imbalance policy, new
 * owners by a string shift (seed dynamic-load-balance-rankdlb.txt), Zoltan
 * REPARTITION (zoltan-load-balancing-fluidity.txt) or neighbour diffusion
 * (luna-patch-rope-data-distribution.txt), then the piece rebuilt from
 * what each rank keeps plus what it gained. This file is the driver, the
 * weighing and the rebuild; the strategies that find new owners are in
 * rebalance_cuts.c and rebalance_diffuse.c. */
#include "rebalance/rebal_common.h"

#include <math.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

static double now(void) { return mxn__now(); }

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
  if (!sum || !gsum || !cnt || !gcnt) status = MXN_ERR_NOMEM;
  for (int64_t k = 0; status == MXN_OK && k < n; k++) {
    int p = part ? part[k] : R;
    sum[p] += w[k];
    cnt[p]++;
  }
  if (status == MXN_OK) {
    memcpy(gsum, sum, (size_t)N * sizeof *gsum);
    memcpy(gcnt, cnt, (size_t)N * sizeof *gcnt);
  }
  /* a rank short of memory still takes part in the sums, which fail */
  if ((status = mxn__comm_reduce_f64(comm, status, MXN__SUM, gsum, N)) != MXN_OK ||
      (status = mxn__comm_reduce_i64(comm, status, MXN__SUM, gcnt, N)) != MXN_OK)
    goto done;
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
  /* the sets' own nodes, edges and faces (no element brings them: the
   * subset left them out), again */
  if (status == MXN_OK && (ld->set_ents[0].n > 0 || ld->set_ents[1].n > 0 || ld->set_ents[2].n > 0))
    status = mxn__load_set_nodes_append(ld, np, old->step, gap, ld->o.node_var_selection,
                                        ld->o.elem_var_selection, e);
  if (status == MXN_OK) status = mxn__piece_sort(np, s);
  if (status != MXN_OK && !e->msg[0])
    mxn_error_set(e, status, "rank %d: reading its gained elements failed: %s", R,
                  mxn_strerror(status));
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  rep->elements_reused = kept;
  /* swap in; then the halo around the new owned piece */
  mxn__load_halo_free(ld->halo, old->num_blocks);
  ld->halo = NULL;
  mxn__entity_owners_free(&ld->ef_owners);
  ld->piece = np;
  np = NULL;
  if (ld->o.ghost_levels > 0) {
    ld->st.ghost_files = 0;
    ld->st.ghost_nodes = 0;
    ld->st.ghost_elements = 0;
    status = mxn__load_halo(ld, &ld->o, ld->dir, old->step, e);
  }
  /* (the halo's failure is agreed: every rank skips this alike) */
  if (status == MXN_OK) status = mxn__load_entity_owners(ld, e);
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

/* One re-balance's working state, shared by the steps below; freed by
 * rebal_free. */
typedef struct {
  mxn_load_t *ld;
  const mxn_rebalance_opts_t *o;
  mxn_rebalance_report_t rep;
  mxn_error_t e;
  int N, R, zoltan;
  double tol;
  mxn_rebal_strategy strat;
  mxn_part_method m;
  owned_t ow;
  int64_t *perm;
  double *ws;
  int *part, *spart;
  mover_t *mv, *recv;
  diff_rec_t *drec;
  int64_t nrecv, ndrec;
  mxn_idset_t mine;
  double t0, t_fresh; /* balancing's start; the time of measuring a fresh partition */
  double after, wnew; /* the imbalance after; my new owned weight */
  int64_t min_count;  /* the smallest part's element count after */
  mxn_io_counters_t c0;
} rebal_t;

static void rebal_free(rebal_t *c) {
  owned_free(&c->ow);
  free(c->perm);
  free(c->ws);
  free(c->part);
  free(c->spart);
  free(c->mv);
  free(c->recv);
  free(c->drec);
  mxn_idset_free(&c->mine);
}

/* The arguments checked and the strategy resolved. Collective. */
static int rebal_check(rebal_t *c, int step) {
  mxn_load_t *ld = c->ld;
  const mxn_rebalance_opts_t *o = c->o;
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  int status = MXN_OK;
  if (!ld->dynamic)
    status = mxn_error_set(&c->e, MXN_ERR_ARG,
                           "mxn_load_rebalance: the load was not opened with opts.dynamic");
  else if (step < 0 || step >= s->num_times)
    status = mxn_error_set(&c->e, MXN_ERR_ARG, "%s: time step %d does not exist (%d steps)",
                           mxn_dataset_file_path(ld->ds, 0), step + 1, s->num_times);
  else if ((int)o->strategy < 0 || (int)o->strategy > MXN_REBAL_REFINE)
    status = mxn_error_set(&c->e, MXN_ERR_ARG, "mxn_load_rebalance: unknown strategy %d", (int)o->strategy);
  if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
  c->tol = o->imbalance_tol > 1 ? o->imbalance_tol
           : ld->o.imbalance_tol > 1 ? ld->o.imbalance_tol : 1.05;
  c->strat = o->strategy;
  c->m = ld->o.method;
  mxn_part_method m = c->m;
  c->zoltan = m == MXN_PART_RCB || m == MXN_PART_RIB || m == MXN_PART_HSFC || m == MXN_PART_GRAPH;
  if (c->strat == MXN_REBAL_AUTO) c->strat = c->zoltan ? MXN_REBAL_REPARTITION : MXN_REBAL_SHIFT;
  if (c->strat == MXN_REBAL_REPARTITION && !c->zoltan)
    status = mxn_error_set(&c->e, MXN_ERR_ARG,
                           "mxn_load_rebalance: repartition needs a Zoltan method (rcb, rib, "
                           "hsfc, graph), the load used %s", mxn_part_method_name(m));
  if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
  c->rep.strategy = c->strat;
  return MXN_OK;
}

/* 1. the step's fields, with the cached plan; 2. the weights of the owned
 * elements, floored. Collective. */
static int rebal_weigh(rebal_t *c, int step) {
  mxn_load_t *ld = c->ld;
  const mxn_rebalance_opts_t *o = c->o;
  owned_t *ow = &c->ow;
  int status = MXN_OK;
  if (ld->piece->step != step && (status = mxn_load_read_step(ld, step, &c->e)) != MXN_OK)
    return status;
  c->c0 = mxn_dataset_counters(ld->ds);
  c->t0 = now(); /* balancing starts after the step's read */

  status = collect_owned(ld, ow);
  if (status != MXN_OK) mxn_error_set(&c->e, status, "out of memory on rank %d", c->R);
  else status = weigh(ld, step, o, ow, &c->e);
  if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
  double tot = 0, fl = o->weight_floor;
  int64_t ctot = ow->n;
  for (int64_t k = 0; k < ow->n; k++) tot += ow->w[k];
  if ((status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__SUM, &tot, 1)) != MXN_OK ||
      (status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__SUM, &ctot, 1)) != MXN_OK)
    return mxn_error_set(&c->e, status, "summing the weights failed");
  if (!(fl > 0)) fl = ctot > 0 && tot > 0 ? 1e-6 * tot / ctot : 1e-6;
  for (int64_t k = 0; k < ow->n; k++)
    if (ow->w[k] < fl) ow->w[k] = fl;
  return MXN_OK;
}

/* 3. the policy: the imbalance before, the string order when needed and,
 * if asked, a fresh partition measured. Collective. */
static int rebal_policy(rebal_t *c) {
  mxn_load_t *ld = c->ld;
  const mxn_rebalance_opts_t *o = c->o;
  owned_t *ow = &c->ow;
  int status, N = c->N, R = c->R;
  status = part_imbalance(ld->comm, N, R, ow->n, ow->w, NULL, &c->rep.imbalance_before, NULL);
  if (status != MXN_OK) {
    mxn_error_set(&c->e, status, "summing the rank weights failed on rank %d: %s", R,
                  mxn_strerror(status));
    return status;
  }
  c->rep.imbalance_after = c->rep.imbalance_before;
  {
    /* the figures follow the step's weights, re-balanced or not */
    double mw = 0;
    for (int64_t k = 0; k < ow->n; k++) mw += ow->w[k];
    ld->st.owned_weight = mw;
    ld->st.imbalance = c->rep.imbalance_before;
  }
  c->part = mxn__calloc((size_t)ow->n + 1, sizeof *c->part);
  c->perm = mxn__calloc((size_t)ow->n + 1, sizeof *c->perm);
  c->ws = mxn__calloc((size_t)ow->n + 1, sizeof *c->ws);
  c->spart = mxn__calloc((size_t)ow->n + 1, sizeof *c->spart);
  if (!c->part || !c->perm || !c->ws || !c->spart)
    status = mxn_error_set(&c->e, MXN_ERR_NOMEM, "rank %d: out of memory re-balancing", R);
  /* collective steps next */
  if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
  int need_string = c->strat == MXN_REBAL_SHIFT ||
                    (!c->zoltan && (o->measure_fresh || c->strat == MXN_REBAL_FRESH));
  if (need_string) {
    status = mxn__rebal_string_order(ld, ow, c->perm, &c->e);
    if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
    for (int64_t i = 0; i < ow->n; i++) c->ws[i] = ow->w[c->perm[i]];
  }
  if (o->measure_fresh || c->strat == MXN_REBAL_FRESH) {
    /* a fresh partition of the step: equal cuts of the string, or Zoltan
     * from scratch (parts as Zoltan numbers them) */
    double fi = 0, tf0 = now();
    if (c->zoltan) {
      status = mxn__rebal_zoltan_parts(ld, ow, c->tol, 0, c->part, &c->e);
    } else {
      status = mxn__rebal_shift_cuts(ld->comm, N, R, ow->n, c->ws, c->tol, 0.0, c->spart);
      for (int64_t i = 0; i < ow->n; i++) c->part[c->perm[i]] = c->spart[i];
    }
    if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
    int64_t mvall = 0;
    for (int64_t i = 0; i < ow->n; i++) mvall += c->part[i] != R;
    if ((status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__SUM, &mvall, 1)) != MXN_OK)
      return mxn_error_set(&c->e, status, "counting the elements moved failed");
    status = part_imbalance(ld->comm, N, R, ow->n, ow->w, c->part, &fi, NULL);
    if (status != MXN_OK) return status;
    c->rep.fresh_migrated = mvall;
    c->rep.fresh_imbalance = fi;
    /* measuring the fresh partition is not balancing */
    if (c->strat != MXN_REBAL_FRESH) c->t_fresh = now() - tf0;
  }
  return MXN_OK;
}

/* 4. new owners by the strategy: part[] (owned order) or, diffusing, the
 * new owned records; the imbalance after and the smallest part's count.
 * Collective. */
static int rebal_new_owners(rebal_t *c) {
  mxn_load_t *ld = c->ld;
  owned_t *ow = &c->ow;
  int status = MXN_OK, N = c->N, R = c->R;
  double tol = c->tol;
  mxn_rebal_strategy strat = c->strat;
  if (strat == MXN_REBAL_FRESH) {
    /* computed above into part */
    status = part_imbalance(ld->comm, N, R, ow->n, ow->w, c->part, &c->after, &c->min_count);
  } else if (strat == MXN_REBAL_SHIFT) {
    static const double fracs[] = {0.95, 0.8, 0.5, 0.25, 0.0};
    for (int t = 0; t < 5; t++) {
      status = mxn__rebal_shift_cuts(ld->comm, N, R, ow->n, c->ws, tol, fracs[t], c->spart);
      if (status == MXN_OK)
        status = part_imbalance(ld->comm, N, R, ow->n, c->ws, c->spart, &c->after, &c->min_count);
      if (status != MXN_OK) break;
      c->rep.retries = t;
      if (c->after <= tol && c->min_count > 0) break;
    }
    for (int64_t i = 0; i < ow->n; i++) c->part[c->perm[i]] = c->spart[i];
  } else if (strat == MXN_REBAL_REPARTITION && c->m == MXN_PART_RCB) {
    static const double fracs[] = {0.95, 0.8, 0.5, 0.25, 0.0};
    for (int t = 0; t < 5; t++) {
      status = mxn__rebal_tree_shift(ld->comm, N, R, ow, tol, fracs[t], c->part);
      if (status == MXN_OK)
        status = part_imbalance(ld->comm, N, R, ow->n, ow->w, c->part, &c->after, &c->min_count);
      if (status != MXN_OK) break;
      c->rep.retries = t;
      if (c->after <= tol && c->min_count > 0) break;
    }
  } else if (strat == MXN_REBAL_REPARTITION || strat == MXN_REBAL_REFINE) {
    double t = tol;
    for (int tries = 0; tries < 4; tries++) {
      status = mxn__rebal_zoltan_parts(ld, ow, t, strat == MXN_REBAL_REFINE ? 2 : 1, c->part,
                                       &c->e);
      if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
      status = part_imbalance(ld->comm, N, R, ow->n, ow->w, c->part, &c->after, &c->min_count);
      if (status != MXN_OK) break;
      c->rep.retries = tries;
      if (c->after <= tol && c->min_count > 0) break;
      t = 1.0 + 0.5 * (t - 1.0); /* Fluidity: tighten and retry */
    }
  } else { /* DIFFUSION */
    status = mxn__rebal_diffuse(ld, ow, tol, c->o->max_rounds, &c->drec, &c->ndrec, &c->rep.rounds,
                                &c->e);
    if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
    double W = 0;
    for (int64_t i = 0; i < c->ndrec; i++) W += c->drec[i].w;
    double Wmax = W, Wsum = W;
    c->min_count = c->ndrec;
    if ((status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__MAX, &Wmax, 1)) != MXN_OK ||
        (status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__SUM, &Wsum, 1)) != MXN_OK ||
        (status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__MIN, &c->min_count, 1)) != MXN_OK)
      return mxn_error_set(&c->e, status, "reducing the new owners' weights failed");
    c->after = Wsum > 0 ? Wmax / (Wsum / N) : 1.0;
  }
  if (status != MXN_OK)
    mxn_error_set(&c->e, status, "computing new owners failed on rank %d: %s", R,
                  mxn_strerror(status));
  return mxn_agree(ld->comm, status, &c->e);
}

/* The last resort when a part came out empty: equal cuts of the Hilbert
 * string, no edge weights (Fluidity), then equal element counts; the
 * strategy becomes SHIFT. Collective. */
static int rebal_last_resort(rebal_t *c) {
  mxn_load_t *ld = c->ld;
  owned_t *ow = &c->ow;
  int status = MXN_OK, N = c->N, R = c->R;
  int64_t ntot = ow->n;
  if ((status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__SUM, &ntot, 1)) != MXN_OK)
    return mxn_error_set(&c->e, status, "counting the owned elements failed");
  if (!(c->min_count == 0 && ntot >= N)) return MXN_OK;
  free(c->drec);
  c->drec = NULL;
  c->ndrec = 0;
  c->strat = MXN_REBAL_SHIFT;
  free(ld->str);
  ld->str = NULL;
  free(ld->str_perm);
  ld->str_perm = NULL;
  mxn_part_method keepm = ld->o.method;
  ld->o.method = MXN_PART_SFC;
  status = mxn__rebal_string_order(ld, ow, c->perm, &c->e);
  ld->o.method = keepm;
  if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
  for (int64_t i = 0; i < ow->n; i++) c->ws[i] = ow->w[c->perm[i]];
  status = mxn__rebal_shift_cuts(ld->comm, N, R, ow->n, c->ws, c->tol, 0.0, c->spart);
  if (status == MXN_OK)
    status = part_imbalance(ld->comm, N, R, ow->n, c->ws, c->spart, &c->after, &c->min_count);
  c->rep.fell_back = 1;
  if (status == MXN_OK && c->min_count == 0) {
    /* a few elements carry (nearly) all the weight: equal-weight cuts
     * still leave parts inside one element; equal element counts never
     * do (N <= elements) */
    double *unit = mxn__malloc(((size_t)ow->n + 1) * sizeof *unit);
    if (!unit) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < ow->n; i++) unit[i] = 1.0;
    if (status == MXN_OK)
      status = mxn__rebal_shift_cuts(ld->comm, N, R, ow->n, unit, c->tol, 0.0, c->spart);
    free(unit);
    if (status == MXN_OK)
      status = part_imbalance(ld->comm, N, R, ow->n, c->ws, c->spart, &c->after, &c->min_count);
    c->rep.fell_back = 2;
  }
  for (int64_t i = 0; i < ow->n; i++) c->part[c->perm[i]] = c->spart[i];
  if (status != MXN_OK)
    mxn_error_set(&c->e, status, "the fallback partition failed on rank %d: %s", R,
                  mxn_strerror(status));
  return mxn_agree(ld->comm, status, &c->e);
}

/* 5. my new owned set (ids move, nothing else), the migration counted,
 * the new string kept for SHIFT. Collective. */
static int rebal_owned_set(rebal_t *c) {
  mxn_load_t *ld = c->ld;
  owned_t *ow = &c->ow;
  int status = MXN_OK, N = c->N, R = c->R;
  if (c->drec) {
    /* (a failure is agreed below, before the next collective step) */
    if (!(c->recv = mxn__malloc(((size_t)c->ndrec + 1) * sizeof *c->recv)))
      status = mxn_error_set(&c->e, MXN_ERR_NOMEM, "rank %d: out of memory re-balancing", R);
    c->nrecv = c->recv ? c->ndrec : 0;
    for (int64_t i = 0; i < c->nrecv; i++) c->recv[i] = (mover_t){c->drec[i].id, c->drec[i].w, 0};
  } else {
    int64_t before = 0;
    if ((status = mxn__comm_exscan_i64(ld->comm, MXN_OK, &ow->n, 1, &before, NULL)) != MXN_OK)
      return mxn_error_set(&c->e, status, "numbering the owned elements failed");
    /* short of memory, a rank still calls the exchange, which then fails
     * everywhere (mxn__send_to_if) */
    mover_t *mv = c->mv = mxn__malloc(((size_t)ow->n + 1) * sizeof *mv);
    if (!mv) status = mxn_error_set(&c->e, MXN_ERR_NOMEM, "rank %d: out of memory re-balancing", R);
    int *dst = c->spart;
    if (c->strat == MXN_REBAL_SHIFT) {
      for (int64_t i = 0; mv && i < ow->n; i++)
        mv[i] = (mover_t){ow->ids[c->perm[i]], c->ws[i], before + i};
    } else {
      for (int64_t i = 0; mv && i < ow->n; i++) mv[i] = (mover_t){ow->ids[i], ow->w[i], 0};
      dst = c->part;
    }
    int sent = mxn__send_to_if(ld->comm, N, status, mv, sizeof *mv, ow->n, dst, (void **)&c->recv,
                               &c->nrecv);
    if (status == MXN_OK && sent != MXN_OK)
      status = mxn_error_set(&c->e, sent, "moving element ids failed: %s", mxn_strerror(sent));
    if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
  }
  {
    int64_t moved = 0, all = 0;
    for (int64_t i = 0; i < ow->n; i++)
      moved += c->drec ? 0 : (c->strat == MXN_REBAL_SHIFT ? c->spart[i] : c->part[i]) != R;
    if (c->drec) {
      /* elements I hold now that I did not own */
      mxn_idset_t was = MXN_IDSET_INIT;
      if (status == MXN_OK) status = mxn_idset_from_array(ow->ids, ow->n, &was);
      for (int64_t i = 0; status == MXN_OK && i < c->nrecv; i++)
        moved += mxn_idset_find(&was, c->recv[i].id) < 0;
      mxn_idset_free(&was);
    }
    if (status != MXN_OK && !c->e.msg[0])
      mxn_error_set(&c->e, status, "out of memory on rank %d", R);
    if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
    all = moved;
    if ((status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__SUM, &all, 1)) != MXN_OK)
      return mxn_error_set(&c->e, status, "counting the elements moved failed");
    c->rep.migrated = all;
  }
  mover_t *recv = c->recv;
  int64_t nrecv = c->nrecv;
  if (c->strat == MXN_REBAL_SHIFT) {
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
  if (status == MXN_OK) {
    mxn_gid_t *ids = mxn__malloc(((size_t)nrecv + 1) * sizeof *ids);
    if (!ids) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nrecv; i++) {
      ids[i] = recv[i].id;
      c->wnew += recv[i].w;
    }
    if (status == MXN_OK) status = mxn_idset_from_array(ids, nrecv, &c->mine);
    free(ids);
  }
  if (status != MXN_OK) mxn_error_set(&c->e, status, "out of memory on rank %d", R);
  if ((status = mxn_agree(ld->comm, status, &c->e)) != MXN_OK) return status;
  c->rep.seconds_balance = now() - c->t0 - c->t_fresh;
  return MXN_OK;
}

/* 6. only what changed is re-read: the new piece and its halo. Collective. */
static int rebal_migrate(rebal_t *c, int step) {
  mxn_load_t *ld = c->ld;
  int status = MXN_OK;
  double t1 = now();
  if (c->rep.migrated > 0) {
    status = rebuild(ld, step, &c->mine, &c->ow, &c->rep, &c->e);
    ld->gen++; /* a new piece: string positions must be found again */
    if (status != MXN_OK) return status;
    /* entries read anew take the lowest member of any rank again */
    if ((status = mxn__agree_set_members(ld->comm, MXN_OK, ld->piece)) != MXN_OK)
      return mxn_error_set(&c->e, status, "rank %d: cannot agree on the members of node-set entries",
                           ld->rank);
  }
  if (c->drec) {
    /* the diffusion's records are the owned set now: kept for the next */
    free(ld->dcache);
    ld->dcache = c->drec;
    ld->ndcache = c->ndrec;
    ld->dcache_gen = ld->gen;
    c->drec = NULL;
  }
  if (c->rep.migrated > 0) {
    c->rep.rebalanced = 1;
    c->rep.seconds_migrate = now() - t1;
    mxn__load_count_owned(ld); /* of c->mine.n: the shown ones */
    ld->st.owned_weight = c->wnew;
    ld->st.num_nodes = ld->piece->num_nodes;
    ld->st.imbalance = c->rep.imbalance_after;
  }
  return MXN_OK;
}

/* The report's reads and times, over all ranks. Collective. */
static int rebal_report(rebal_t *c) {
  mxn_load_t *ld = c->ld;
  mxn_rebalance_report_t *rep = &c->rep;
  mxn_io_counters_t c1 = mxn_dataset_counters(ld->ds);
  rep->bytes_read = mxn__load_count_reads(ld, c->c0, c1);
  double tv[2] = {rep->seconds_balance, rep->seconds_migrate};
  double tm[2] = {tv[0], tv[1]};
  int status;
  rep->bytes_read_all = rep->bytes_read;
  if ((status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__SUM, &rep->bytes_read_all, 1)) != MXN_OK ||
      (status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__MAX, tm, 2)) != MXN_OK)
    return mxn_error_set(&c->e, status, "summing the re-balance's report failed");
  rep->seconds_balance = tm[0];
  rep->seconds_migrate = tm[1];
  return MXN_OK;
}

static int rebalance(mxn_load_t *ld, int step, const mxn_rebalance_opts_t *opts,
                     mxn_rebalance_report_t *rep_out, mxn_error_t *err) {
  rebal_t c;
  memset(&c, 0, sizeof c);
  mxn_error_clear(&c.e);
  mxn_rebalance_opts_t defaults;
  memset(&defaults, 0, sizeof defaults);
  c.ld = ld;
  c.o = opts ? opts : &defaults;
  c.rep.step = step;
  c.rep.fresh_migrated = -1;
  c.N = ld->size;
  c.R = ld->rank;
  c.mine = (mxn_idset_t)MXN_IDSET_INIT;
  c.t0 = now();
  c.c0 = mxn_dataset_counters(ld->ds);

  int status = rebal_check(&c, step);
  if (status == MXN_OK) status = rebal_weigh(&c, step);
  if (status == MXN_OK) status = rebal_policy(&c);
  if (status != MXN_OK) goto done;
  if (c.rep.imbalance_before <= c.tol && !c.o->force) {
    c.rep.seconds_balance = now() - c.t0 - c.t_fresh;
  } else {
    status = rebal_new_owners(&c);
    if (status == MXN_OK) status = rebal_last_resort(&c);
    if (status == MXN_OK) {
      c.rep.imbalance_after = c.after;
      status = rebal_owned_set(&c);
    }
    if (status == MXN_OK) status = rebal_migrate(&c, step);
    if (status != MXN_OK) goto done;
  }
  status = rebal_report(&c);
done:
  if (rep_out) *rep_out = c.rep;
  if (status != MXN_OK && err) *err = c.e;
  rebal_free(&c);
  return status;
}
