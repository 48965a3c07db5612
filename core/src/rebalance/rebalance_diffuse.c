/* New owners for a re-balance by diffusion (DIFFUSION; see rebalance.c
 * for the driver): over rounds, overloaded ranks hand border elements to
 * lighter neighbours, each rank talking only to its neighbours plus one
 * owner directory hashed by id. */
#include "rebalance/rebal_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* Diffusion (LuNA Patch): neighbour-only exchanges over rounds.      */

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

/* A diffusion's working state over its rounds; freed by diff_free. */
typedef struct {
  diff_rec_t *mine, *got; /* my owned records; those received */
  int64_t nmine, ngot;
  int64_t *adj_off; /* the dual graph (first round without a cache) */
  mxn_gid_t *adj_ids;
  int *adj_ranks;
  double *adj_q, *ones;
  mxn_piece_block_t *vb;
  idpos_t *loc;       /* my records by id */
  mxn_gid_t *ext;     /* foreign neighbours (ne of them) and their owners */
  int *extown;
  int64_t ne;
  char *border;       /* my records with a foreign neighbour */
  id_owner_t *eo;     /* foreign neighbours by id */
  int *nb;            /* per rank: a neighbour */
  double *nbw, *give; /* per rank: its weight; what I give it */
  int *dest;          /* per record: its new rank */
  int64_t *queue;
  MPI_Request *req;
} diff_t;

static void diff_free(diff_t *d) {
  free(d->mine);
  free(d->got);
  free(d->adj_off);
  free(d->adj_ids);
  free(d->adj_ranks);
  free(d->adj_q);
  free(d->ones);
  free(d->vb);
  free(d->loc);
  free(d->border);
  free(d->eo);
  free(d->ext);
  free(d->extown);
  free(d->dest);
  free(d->nb);
  free(d->nbw);
  free(d->give);
  free(d->queue);
  free(d->req);
}

/* The rounds' arrays and my records: the ones the last diffusion left
 * (with this step's weights) when every rank still has them, else from
 * the dual graph. Collective. */
static int diff_setup(mxn_load_t *ld, const owned_t *ow, diff_t *d, mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  int status = MXN_OK, N = ld->size, R = ld->rank;
  int64_t allc = ld->dcache && ld->dcache_gen == ld->gen && ld->ndcache == ow->n;
  if ((status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__MIN, &allc, 1)) != MXN_OK)
    return mxn_error_set(e, status, "diffusion: agreeing on the kept records failed");
  /* the rounds' arrays; a failure is agreed with the setup's below */
  d->nb = mxn__calloc((size_t)N + 1, sizeof *d->nb);
  d->nbw = mxn__calloc((size_t)N + 1, sizeof *d->nbw);
  d->give = mxn__calloc((size_t)N + 1, sizeof *d->give);
  d->req = mxn__calloc(2 * (size_t)N + 1, sizeof *d->req);
  if (!d->nb || !d->nbw || !d->give || !d->req) status = MXN_ERR_NOMEM;
  if (allc) {
    /* the owned set the last diffusion left: its records, this step's
     * weights (looked up by id) */
    idpos_t *byid = mxn__malloc(((size_t)ow->n + 1) * sizeof *byid);
    diff_rec_t *mine = d->mine = mxn__malloc(((size_t)ow->n + 1) * sizeof *mine);
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
    return mxn_agree(ld->comm, status, e);
  }
  mxn_piece_t view;
  if (status == MXN_OK) status = owned_view(ld, &view, &d->vb);
  if (status == MXN_OK && !(d->ones = mxn__calloc((size_t)ow->n + 1, sizeof *d->ones)))
    status = MXN_ERR_NOMEM;
  if (status != MXN_OK)
    mxn_error_set(e, status, "rank %d: diffusion setup failed: %s", R, mxn_strerror(status));
  /* the dual graph is collective */
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) return status;
  status = mxn__dual_graph_dist(ld->comm, N, R, s, &view, ow->ids, d->ones, &d->adj_off,
                                &d->adj_ids, &d->adj_ranks, &d->adj_q);
  int64_t nmine = d->nmine;
  if (status == MXN_OK) {
    d->mine = mxn__malloc(((size_t)nmine + 1) * sizeof *d->mine);
    if (!d->mine) status = MXN_ERR_NOMEM;
  }
  diff_rec_t *mine = d->mine;
  for (int64_t i = 0; status == MXN_OK && i < nmine; i++) {
    memset(&mine[i], 0, sizeof mine[i]);
    mine[i].id = ow->ids[i];
    mine[i].w = ow->w[i];
    int64_t na = d->adj_off[i + 1] - d->adj_off[i];
    mine[i].nadj = na < DIFF_MAXADJ ? na : DIFF_MAXADJ;
    for (int64_t j = 0; j < mine[i].nadj; j++) mine[i].adj[j] = d->adj_ids[d->adj_off[i] + j];
  }
  if (status != MXN_OK && !e->msg[0])
    mxn_error_set(e, status, "rank %d: diffusion setup failed: %s", R, mxn_strerror(status));
  return mxn_agree(ld->comm, status, e);
}

/* A round's neighbours: my records by id, the foreign neighbours and
 * their owners, the border records, the neighbour ranks. Collective. */
static int diff_neighbours(mxn_load_t *ld, diff_t *d, mxn_error_t *e) {
  int status = MXN_OK, N = ld->size, R = ld->rank;
  const diff_rec_t *mine = d->mine;
  int64_t nmine = d->nmine;
  /* my elements by id; the foreign neighbours and their owners */
  free(d->loc);
  idpos_t *loc = d->loc = mxn__malloc(((size_t)nmine + 1) * sizeof *loc);
  if (!loc) status = MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < nmine; i++) loc[i] = (idpos_t){mine[i].id, i};
  if (status == MXN_OK) qsort(loc, (size_t)nmine, sizeof *loc, cmp_idpos);
  int64_t next = 0;
  for (int64_t i = 0; status == MXN_OK && i < nmine; i++) next += mine[i].nadj;
  free(d->ext);
  free(d->extown);
  d->ext = mxn__malloc(((size_t)next + 1) * sizeof *d->ext);
  d->extown = mxn__malloc(((size_t)next + 1) * sizeof *d->extown);
  if (!d->ext || !d->extown) status = MXN_ERR_NOMEM;
  int64_t ne = 0;
  free(d->border);
  d->border = mxn__calloc((size_t)nmine + 1, 1);
  if (!d->border) status = MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < nmine; i++)
    for (int64_t j = 0; j < mine[i].nadj; j++) {
      idpos_t key = {mine[i].adj[j], 0};
      if (!bsearch(&key, loc, (size_t)nmine, sizeof *loc, cmp_idpos)) {
        d->ext[ne++] = mine[i].adj[j];
        d->border[i] = 1;
      }
    }
  d->ne = ne;
  if (status != MXN_OK) mxn_error_set(e, status, "rank %d: out of memory in diffusion", R);
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) return status;
  if ((status = owners_of(ld->comm, N, R, mine, nmine, d->border, d->ext, ne, d->extown)) !=
      MXN_OK) {
    mxn_error_set(e, status, "diffusion: looking up the neighbours' owners failed");
    return status;
  }
  memset(d->nb, 0, (size_t)N * sizeof *d->nb);
  for (int64_t i = 0; i < ne; i++)
    if (d->extown[i] >= 0 && d->extown[i] != R) d->nb[d->extown[i]] = 1;
  /* foreign neighbours by id, for the border search */
  free(d->eo);
  d->eo = mxn__malloc(((size_t)ne + 1) * sizeof *d->eo);
  if (!d->eo) {
    status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory in diffusion", R);
  } else {
    for (int64_t i = 0; i < ne; i++) d->eo[i] = (id_owner_t){d->ext[i], d->extown[i]};
    qsort(d->eo, (size_t)ne, sizeof *d->eo, cmp_id_owner);
  }
  return mxn_agree(ld->comm, status, e);
}

/* A round's shares: the neighbours' weights (point-to-point with the
 * neighbours only: the relation is symmetric, sides are shared both
 * ways), then give[r], what I hand neighbour r when I am over my group's
 * average. Collective among neighbours. */
static int diff_shares(mxn_load_t *ld, diff_t *d, double W, double tol, mxn_error_t *e) {
  int N = ld->size;
  int *nb = d->nb;
  double *nbw = d->nbw, *give = d->give;
  int status = mxn__comm_neighbours_f64(ld->comm, nb, W, nbw, d->req);
  if (status != MXN_OK) return mxn_error_set(e, status, "diffusion: exchanging weights failed");
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
  return MXN_OK;
}

/* A round's movers: dest[i] for every record, border elements for each
 * receiver grown inward breadth first, never my last. Collective (the
 * agreement). */
static int diff_pick(mxn_load_t *ld, diff_t *d, mxn_error_t *e) {
  int status = MXN_OK, N = ld->size, R = ld->rank;
  const diff_rec_t *mine = d->mine;
  int64_t nmine = d->nmine, ne = d->ne;
  const idpos_t *loc = d->loc;
  const id_owner_t *eo = d->eo;
  free(d->dest);
  int *dest = d->dest = mxn__malloc(((size_t)nmine + 1) * sizeof *dest);
  free(d->queue);
  int64_t *queue = d->queue = mxn__malloc(((size_t)nmine + 1) * sizeof *queue);
  if (!dest || !queue) status = MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < nmine; i++) dest[i] = R;
  int64_t left = nmine;
  for (int r = 0; status == MXN_OK && r < N; r++) {
    if (d->give[r] <= 0) continue;
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
    while (qh < qt && given < d->give[r] && left > 1) {
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
  return mxn_agree(ld->comm, status, e);
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
int mxn__rebal_diffuse(mxn_load_t *ld, const owned_t *ow, double tol, int max_rounds,
                       diff_rec_t **out, int64_t *nout, int *rounds, mxn_error_t *e) {
  int status = MXN_OK, N = ld->size;
  diff_t d;
  memset(&d, 0, sizeof d);
  d.nmine = ow->n;
  *rounds = 0;
  if ((status = diff_setup(ld, ow, &d, e)) != MXN_OK) goto done;
  if (max_rounds <= 0) max_rounds = 20;
  for (int round = 0; round < max_rounds; round++) {
    /* stop when balanced */
    double W = 0;
    for (int64_t i = 0; i < d.nmine; i++) W += d.mine[i].w;
    double Wmax = W, Wsum = W;
    if ((status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__MAX, &Wmax, 1)) != MXN_OK ||
        (status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__SUM, &Wsum, 1)) != MXN_OK) {
      status = mxn_error_set(e, status, "diffusion: reducing the rank weights failed");
      goto done;
    }
    if (Wsum <= 0 || Wmax <= tol * Wsum / N) break;
    (*rounds)++;
    if ((status = diff_neighbours(ld, &d, e)) != MXN_OK) goto done;
    if ((status = diff_shares(ld, &d, W, tol, e)) != MXN_OK) goto done;
    if ((status = diff_pick(ld, &d, e)) != MXN_OK) goto done;
    free(d.got);
    d.got = NULL;
    status = mxn__send_to(ld->comm, N, d.mine, sizeof *d.mine, d.nmine, d.dest, (void **)&d.got,
                          &d.ngot);
    if (status != MXN_OK) mxn_error_set(e, status, "diffusion: moving elements failed");
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    free(d.mine);
    d.mine = d.got;
    d.nmine = d.ngot;
    d.got = NULL;
  }
  *out = d.mine;
  *nout = d.nmine;
  d.mine = NULL;
done:
  diff_free(&d);
  return status;
}
