/* The shared-node check: see nodecheck.h. */
#include "structure/nodecheck.h"

#include "comm.h"
#include "mxn/directory.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

/* A candidate: member `file` stores node `id` at position `pos`. */
typedef struct {
  int64_t id, pos;
  int32_t file, rank;
} cand_t;

/* A copy's coordinates, sent to the node's home. */
typedef struct {
  int64_t id, pos;
  double x[3];
  int32_t file, pad;
} copy_t;

/* Nodes of a member closer than this are read in one run. */
#define RUN_GAP 256

/* This rank's status, with its message (out of memory, or the dataset's
 * own), agreed over comm. */
static int settle(MPI_Comm comm, mxn_dataset_t *ds, int rank, int status, mxn_error_t *err) {
  if (status == MXN_ERR_NOMEM)
    mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  else if (status != MXN_OK)
    mxn_error_set(err, status, "%s", ds->err.msg);
  return mxn__agree_or_local(comm, status, err);
}

/* Send items to their ranks, or keep them all (serial). */
static int route(MPI_Comm comm, const void *items, size_t isz, int64_t n, const int *dest,
                 void **recv, int64_t *nrecv) {
  if (comm != MPI_COMM_NULL) {
    int size;
    MPI_Comm_size(comm, &size);
    return mxn__send_to(comm, size, items, isz, n, dest, recv, nrecv);
  }
  *recv = mxn__malloc((size_t)n * isz + 1);
  if (!*recv) return MXN_ERR_NOMEM;
  if (n) memcpy(*recv, items, (size_t)n * isz);
  *nrecv = n;
  return MXN_OK;
}

/* The positions member j says it shares (its node communication maps), or
 * all of them (-1 in *n: none stated). Maps that list a node the member
 * does not have are a writer's hint left from another mesh (ParaView's
 * readers do not read them): none stated, and *stale is the first such
 * entry (-1: none; 0 and negative entries as 0). */
static int stated_shared(mxn_dataset_t *ds, int j, int64_t **pos, int64_t *n, int64_t *stale) {
  int status = MXN_OK, varid;
  int64_t *v = NULL;
  char *seen = NULL;
  *pos = NULL;
  *n = -1;
  *stale = -1;
  const mxn__file_t *f = mxn__file_open(ds, j, &status);
  if (!f) return status;
  if ((varid = mxn__m_var(f, MXN__EX_NEM_COMM_NIDS)) < 0) return MXN_OK;
  int64_t dl = mxn__m_ndims(f, varid) == 1 ? mxn__m_dimlen(f, varid, 0) : -1;
  if (dl < 0)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: n_comm_nids (node communication maps) is not a list",
                      mxn__path(ds, j));
  size_t len = (size_t)dl, start = 0;
  MXN_ALLOC_RAW(v, len);    /* read whole below */
  MXN_ALLOC_RAW(*pos, len); /* its first *n are set, and only they are read */
  if (len && mxn__m_get(f, varid, &start, &len, NULL, v, 'l') != 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read n_comm_nids (node communication maps)",
                        mxn__path(ds, j));
    goto done;
  }
  ds->io.read_calls++;
  ds->io.bytes_read += (int64_t)len * (int64_t)sizeof(int);
  ds->io.check_bytes_read += (int64_t)len * (int64_t)sizeof(int);
  int64_t nn = f->num_nodes;
  /* A node shared with several members is listed once per member: marks
   * over the member's nodes give the positions ascending and distinct (a
   * sort took a tenth of the check for a thousand small members). */
  MXN_ALLOC(seen, nn);
  for (size_t i = 0; i < len; i++) {
    if (v[i] < 1 || v[i] > nn) {
      *stale = v[i] < 1 ? 0 : v[i];
      goto done; /* none stated: *pos freed below */
    }
    seen[v[i] - 1] = 1;
  }
  int64_t u = 0;
  for (int64_t p = 0; p < nn && u < (int64_t)len; p++)
    if (seen[p]) (*pos)[u++] = p;
  *n = u;
done:
  free(seen);
  free(v);
  if (status != MXN_OK || *stale >= 0) {
    free(*pos);
    *pos = NULL;
  }
  return status;
}

/* The stale maps of the lowest member any rank found (key, the lowest
 * over the ranks: member << 40 | entry, INT64_MAX for none), said once in
 * hint_warning, alike on every rank. Local. */
static void hint_stale_maps(mxn_dataset_t *ds, int64_t key) {
  if (key == INT64_MAX || ds->s.hint_warning[0]) return;
  const int64_t low = ((int64_t)1 << 40) - 1;
  snprintf(ds->s.hint_warning, sizeof ds->s.hint_warning,
           "%s: its Nemesis node communication maps list node %lld, which it does not have; "
           "going on with the nodes its id map gives",
           mxn__path(ds, (int)(key >> 40)), (long long)(key & low));
}

/* Read the coordinates of copies[0..n) (one member, ascending positions)
 * in runs of nearby nodes. A compressed member's boxes of whole chunks
 * are kept for its reader, which reads them next (mxn__reads_keep). */
static int read_copies(mxn_dataset_t *ds, int j, copy_t *copies, int64_t n) {
  int status = MXN_OK, nd = ds->s.num_dim;
  double *buf = NULL;
  const mxn__file_t *f = mxn__file_open(ds, j, &status);
  if (!f) return status;
  for (int64_t a = 0, b; a < n; a = b) {
    for (b = a + 1; b < n && copies[b].pos - copies[b - 1].pos <= RUN_GAP; b++) continue;
    int64_t first = copies[a].pos, count = copies[b - 1].pos - first + 1;
    free(buf);
    MXN_ALLOC_RAW(buf, 3 * count); /* its first nd columns are read whole, only they are used */
    double *xyz[3] = {buf, buf + count, buf + 2 * count};
    mxn__store_keep_reads(ds, 1);
    int bad = mxn__m_coords(f, nd, first, count, 1, xyz);
    mxn__store_keep_reads(ds, 0);
    if (bad) {
      status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read coordinates of nodes %lld..%lld",
                          mxn__path(ds, j), (long long)first + 1, (long long)(first + count));
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += count * nd * (int64_t)sizeof(double);
    ds->io.check_bytes_read += count * nd * (int64_t)sizeof(double);
    /* one pass over the copies; the columns a mesh of fewer dimensions
     * lacks are zero */
    const double *restrict cx = nd > 0 ? xyz[0] : NULL, *restrict cy = nd > 1 ? xyz[1] : NULL,
                           *restrict cz = nd > 2 ? xyz[2] : NULL;
    for (int64_t k = a; k < b; k++) {
      int64_t at = copies[k].pos - first;
      copies[k].x[0] = cx ? cx[at] : 0;
      copies[k].x[1] = cy ? cy[at] : 0;
      copies[k].x[2] = cz ? cz[at] : 0;
    }
  }
done:
  free(buf);
  return status;
}

/* Order copies[0..n) by member, then position: a radix sort of (key,
 * index) pairs and one permutation (qsort with a comparator was a large share
 * of the check for a thousand small members). Positions fit in 40 bits. */
static int sort_file_pos(copy_t **copies, int64_t n) {
  struct {
    int64_t key, at;
  } *order = mxn__malloc(((size_t)n + 1) * sizeof *order);
  copy_t *out = mxn__malloc(((size_t)n + 1) * sizeof *out);
  int status = order && out ? MXN_OK : MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < n; i++) {
    order[i].key = (int64_t)(*copies)[i].file << 40 | (*copies)[i].pos;
    order[i].at = i;
  }
  if (status == MXN_OK) status = mxn__radix_sort(order, n, sizeof *order);
  for (int64_t i = 0; status == MXN_OK && i < n; i++) out[i] = (*copies)[order[i].at];
  free(order);
  if (status != MXN_OK) {
    free(out);
    return status;
  }
  free(*copies);
  *copies = out;
  return MXN_OK;
}

static int same(double a, double b, double tol) {
  if (a == b) return 1; /* infinities too */
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return fabs(a - b) <= tol;
}

/* The largest finite coordinate in copies[0..n) (0 if none), by its
 * magnitude's bits: for doubles of sign 0 the order of the bits as
 * integers is the order of the values, and the magnitudes of NaN and
 * infinity are those from 0x7FF0000000000000 on. No branch and no
 * conversion per coordinate (a comparison of doubles per coordinate took
 * 31 instructions a copy). */
static double max_coord(const copy_t *copies, int64_t n) {
  uint64_t mx = 0;
  for (int64_t i = 0; i < n; i++)
    for (int d = 0; d < 3; d++) {
      uint64_t u;
      memcpy(&u, &copies[i].x[d], sizeof u);
      u &= UINT64_C(0x7FFFFFFFFFFFFFFF);
      u = u < UINT64_C(0x7FF0000000000000) ? u : 0;
      mx = u > mx ? u : mx;
    }
  double x;
  memcpy(&x, &mx, sizeof x);
  return x;
}

/* The tolerance of the comparison: 1e-6 of the largest finite coordinate
 * any rank holds, mx being this rank's. `status`: the caller's so far (the
 * worst of all returned). Collective: every rank calls it. */
static int tolerance_of(MPI_Comm comm, int status, double mx, double *tol) {
  double scale = mx;
  if (comm != MPI_COMM_NULL) status = mxn__comm_reduce_f64(comm, status, MXN__MAX, &scale, 1);
  *tol = 1e-6 * scale;
  return status;
}

/* The id range [*lo, *hi] of copies[0..n) (*lo > *hi: none). */
static void id_range(const copy_t *copies, int64_t n, int64_t *lo, int64_t *hi) {
  int64_t a = INT64_MAX, b = INT64_MIN;
  for (int64_t i = 0; i < n; i++) {
    a = copies[i].id < a ? copies[i].id : a;
    b = copies[i].id > b ? copies[i].id : b;
  }
  *lo = a;
  *hi = b;
}

/* Where the first copy of each id is: a table by id instead of a sort by
 * id (radix-sorting the 48-byte copies was the check's largest item with a
 * thousand small members). Where the ids are compact
 * (mxn__id_table_span), it is indexed by id - lo (at most 64 bytes a
 * copy, about what the copy itself takes): a member's copies come in
 * position order, which follows its ids, and neighbouring members share
 * faces, so most lookups find their line in cache. A hash of the id placed
 * consecutive ids far apart and missed the cache on nearly every first
 * probe, which made the comparison about twice as slow. Other
 * ranges: open addressing on a hash. Entries are index + 1 in the array
 * of first copies; 0: none yet. */
typedef struct {
  int64_t lo;
  uint32_t *near; /* compact ids: by id - lo */
  int64_t *slot;  /* others: open addressing */
  uint64_t mask;
  int bits;
} firsts_t;

/* A table for n copies of ids within [lo, hi]; MXN_ERR_NOMEM. */
static int firsts_init(firsts_t *t, int64_t lo, int64_t hi, int64_t n) {
  memset(t, 0, sizeof *t);
  t->lo = lo;
  uint64_t span = mxn__id_table_span(lo, hi, n);
  if (span > 0) return (t->near = mxn__calloc((size_t)span, sizeof *t->near)) ? MXN_OK : MXN_ERR_NOMEM;
  t->bits = 4;
  while (t->bits < 62 && ((int64_t)1 << t->bits) < 2 * n) t->bits++;
  t->mask = ((uint64_t)1 << t->bits) - 1;
  return (t->slot = mxn__calloc((size_t)t->mask + 1, sizeof *t->slot)) ? MXN_OK : MXN_ERR_NOMEM;
}

/* Index + 1 in `firsts` of the first copy of `id`, 0 if none; *at: the
 * table's place for it. */
static inline int64_t firsts_find(const firsts_t *t, const copy_t *firsts, int64_t id, uint64_t *at) {
  if (t->near) {
    *at = (uint64_t)id - (uint64_t)t->lo;
    return t->near[*at];
  }
  uint64_t h = ((uint64_t)id * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - t->bits);
  while (t->slot[h] && firsts[t->slot[h] - 1].id != id) h = (h + 1) & t->mask;
  *at = h;
  return t->slot[h];
}

static inline void firsts_put(firsts_t *t, uint64_t at, int64_t first) {
  if (t->near)
    t->near[at] = (uint32_t)first; /* below UINT32_MAX: mxn__id_table_span */
  else
    t->slot[at] = first;
}

static void firsts_free(firsts_t *t) {
  free(t->near);
  free(t->slot);
}

/* Of the differing pairs, the one of the lowest id is refused: the pair a
 * sort by id would have found first, whatever order the copies came in. */
typedef struct {
  int bad;
  copy_t first, other;
} conflict_t;

static void conflict_note(conflict_t *w, const copy_t *first, const copy_t *other) {
  if (w->bad && other->id >= w->first.id) return;
  w->bad = 1;
  w->first = *first;
  w->other = *other;
}

static int conflict_error(mxn_dataset_t *ds, const conflict_t *w, mxn_error_t *err) {
  const copy_t *p = &w->first, *q = &w->other;
  const copy_t *lo = p->file < q->file ? p : q, *hi = p->file < q->file ? q : p;
  if (ds->ids.probe) {
    /* the settlement's check (ids.c): noted, and the ids fall back */
    if (ds->ids.conflict_file < 0 || hi->file < ds->ids.conflict_file ||
        (hi->file == ds->ids.conflict_file && hi->id < ds->ids.conflict_id)) {
      ds->ids.conflict_file = hi->file;
      ds->ids.conflict_other = lo->file;
      ds->ids.conflict_id = hi->id;
    }
    return MXN_OK;
  }
  return mxn_error_set(err, MXN_ERR_FORMAT,
                       "%s: node %lld (its node %lld) is at (%.9g, %.9g, %.9g), but at "
                       "(%.9g, %.9g, %.9g) in %s (its node %lld): a node several members "
                       "store must have the same coordinates in each",
                       mxn__path(ds, hi->file), (long long)hi->id,
                       (long long)hi->pos + 1, hi->x[0], hi->x[1], hi->x[2], lo->x[0], lo->x[1],
                       lo->x[2], mxn__path(ds, lo->file), (long long)lo->pos + 1);
}

static int within(const copy_t *p, const copy_t *c, double tol) {
  return same(p->x[0], c->x[0], tol) && same(p->x[1], c->x[1], tol) && same(p->x[2], c->x[2], tol);
}

/* Compare each copy with the first copy of its id (copies[0..n), any
 * order; the first is the earliest), ids within [id_lo, id_hi]. */
static int compare_copies(mxn_dataset_t *ds, const copy_t *copies, int64_t n, int64_t id_lo,
                          int64_t id_hi, double tol, mxn_error_t *err) {
  firsts_t t;
  if (firsts_init(&t, id_lo, id_hi, n) != MXN_OK) return MXN_ERR_NOMEM;
  conflict_t w = {0};
  for (int64_t i = 0; i < n; i++) {
    uint64_t at;
    int64_t first = firsts_find(&t, copies, copies[i].id, &at);
    if (!first)
      firsts_put(&t, at, i + 1);
    else if (!within(&copies[first - 1], &copies[i], tol))
      conflict_note(&w, &copies[first - 1], &copies[i]);
  }
  firsts_free(&t);
  return w.bad ? conflict_error(ds, &w, err) : MXN_OK;
}

/* A copy that differs from its rank's first copy of the id in some bit,
 * kept until the tolerance is known. */
typedef struct {
  copy_t copy;
  int64_t first;
} pending_t;

/* Where every member states its shared nodes: the copies of the nodes
 * members fbeg..fend-1 state, read member by member and compared at once
 * with this rank's first copy of their id. Only the first copies are kept
 * (*firsts, *nfirst, in member order): about half a rank's copies where
 * members are small, where keeping every copy for a comparison afterwards
 * backed them all and walked them twice more.
 * A copy equal to its first copy passes; one that differs in some bit
 * waits in *pend (*npend) for the tolerance, which needs every rank's
 * largest coordinate (*mx: this rank's, over all its copies). */
static int stated_firsts(mxn_dataset_t *ds, int fbeg, int fend, int64_t *const *stated,
                         const int64_t *nstated, copy_t **firsts, int64_t *nfirst,
                         pending_t **pend, int64_t *npend, double *mx) {
  int status = MXN_OK;
  int64_t total = 0, most = 0, lo = INT64_MAX, hi = INT64_MIN, nf = 0, np = 0, pcap = 0;
  copy_t *f = NULL, *c = NULL;
  pending_t *pd = NULL;
  firsts_t t;
  memset(&t, 0, sizeof t);
  *firsts = NULL;
  *pend = NULL;
  *nfirst = *npend = 0;
  /* the ids' range first, for the table */
  for (int j = fbeg; j < fend && status == MXN_OK; j++) {
    const mxn_file_domain_t *fd;
    if ((status = mxn_dataset_file_domain(ds, j, &fd)) != MXN_OK) break;
    int64_t m = nstated[j - fbeg];
    for (int64_t i = 0; i < m; i++) {
      int64_t id = fd->node_map[stated[j - fbeg][i]];
      lo = id < lo ? id : lo;
      hi = id > hi ? id : hi;
    }
    total += m;
    most = m > most ? m : most;
  }
  if (status != MXN_OK) return status;
  /* room for every copy, backed only as first copies arrive (realloc does
   * not back its buffer at once) */
  f = mxn__realloc(NULL, ((size_t)total + 1) * sizeof *f);
  c = mxn__malloc(((size_t)most + 1) * sizeof *c);
  if (!f || !c || firsts_init(&t, lo, hi, total) != MXN_OK) status = MXN_ERR_NOMEM;
  for (int j = fbeg; j < fend && status == MXN_OK; j++) {
    const mxn_file_domain_t *fd = mxn__file_dom(ds, j); /* made above */
    int64_t m = nstated[j - fbeg];
    for (int64_t i = 0; i < m; i++) {
      int64_t p = stated[j - fbeg][i];
      c[i] = (copy_t){fd->node_map[p], p, {0, 0, 0}, j, 0};
    }
    /* stated positions are ascending and distinct: runs read as they come */
    if ((status = read_copies(ds, j, c, m)) != MXN_OK) break;
    double mj = max_coord(c, m);
    if (mj > *mx) *mx = mj;
    for (int64_t i = 0; i < m; i++) {
      uint64_t at;
      int64_t first = firsts_find(&t, f, c[i].id, &at);
      if (!first) {
        f[nf++] = c[i];
        firsts_put(&t, at, nf);
        continue;
      }
      const copy_t *q = &f[first - 1];
      if (q->x[0] == c[i].x[0] && q->x[1] == c[i].x[1] && q->x[2] == c[i].x[2]) continue;
      if (np == pcap) {
        int64_t cap = pcap ? 2 * pcap : 64;
        pending_t *g = mxn__realloc(pd, (size_t)cap * sizeof *g);
        if (!g) {
          status = MXN_ERR_NOMEM;
          break;
        }
        pd = g;
        pcap = cap;
      }
      pd[np++] = (pending_t){c[i], first - 1};
    }
  }
  firsts_free(&t);
  free(c);
  if (status != MXN_OK) {
    free(f);
    free(pd);
    return status;
  }
  *firsts = f;
  *nfirst = nf;
  *pend = pd;
  *npend = np;
  return MXN_OK;
}

/* Where every member states its shared nodes: this rank's copies are
 * compared here first (stated_firsts), and only the first copy of each id
 * goes to the id's home, to be compared there with the other ranks'
 * (most copies of a node are on one rank, so sending and sorting every
 * copy at home moved and sorted what this rank can settle itself). A copy is within tol of its
 * rank's first copy, which is within tol of the first copy at home.
 * Collective. */
static int compare_stated(MPI_Comm comm, mxn_dataset_t *ds, int rank, int size, copy_t *firsts,
                          int64_t nfirst, const pending_t *pend, int64_t npend, double mx,
                          mxn_error_t *err) {
  double tol;
  copy_t *asked = NULL;
  int64_t nasked = 0;
  int *dest = NULL;
  int status = tolerance_of(comm, MXN_OK, mx, &tol);
  if (status != MXN_OK) return mxn_error_set(err, status, "rank %d: reducing the coordinates' scale failed", rank);
  conflict_t w = {0};
  for (int64_t i = 0; i < npend; i++)
    if (!within(&firsts[pend[i].first], &pend[i].copy, tol))
      conflict_note(&w, &firsts[pend[i].first], &pend[i].copy);
  if (w.bad) status = conflict_error(ds, &w, err);
  if (status == MXN_OK && size > 1) {
    dest = mxn__malloc(((size_t)nfirst + 1) * sizeof *dest);
    if (!dest) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nfirst; i++) dest[i] = mxn_directory_home(firsts[i].id, size);
  }
  if (size > 1) {
    /* every rank sends, failed or not (nothing then), so none waits alone */
    int rs = route(comm, firsts, sizeof *firsts, status == MXN_OK ? nfirst : 0, dest,
                   (void **)&asked, &nasked);
    if (status == MXN_OK) status = rs;
    if (status == MXN_OK) {
      int64_t lo, hi;
      id_range(asked, nasked, &lo, &hi);
      status = compare_copies(ds, asked, nasked, lo, hi, tol, err);
    }
  }
  free(asked);
  free(dest);
  if (status == MXN_ERR_NOMEM) mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  return mxn__agree_or_local(comm, status, err);
}

int mxn__check_shared_nodes(MPI_Comm comm, mxn_dataset_t *ds, int fbeg, int fend, mxn_error_t *err) {
  int status = MXN_OK, size = 1, rank = 0;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
  }
  if (ds->nfiles < 2) return MXN_OK; /* the same on every rank */
  if (!ds->ids.probe) {
    /* The settlement of the ids runs this check itself (ids.c); nodes
     * matched by coordinates are at one point by construction. */
    if (ds->ids.nodes_checked || (ds->s.id_fallback & MXN_IDS_NODE_BY_COORDS)) return MXN_OK;
  }
  cand_t *cand = NULL, *got = NULL;
  copy_t *ask = NULL, *asked = NULL, *back = NULL;
  int *dest = NULL;
  int64_t ncand = 0, ngot = 0, nask = 0, nasked = 0, nback = 0;
  int64_t **stated = NULL, *nstated = NULL;

  /* 1. My members' candidates, to their homes. */
  int nmine = fend - fbeg;
  stated = mxn__calloc((size_t)nmine + 1, sizeof *stated);
  nstated = mxn__calloc((size_t)nmine + 1, sizeof *nstated);
  if (!stated || !nstated) status = MXN_ERR_NOMEM;
  int64_t stale_key = INT64_MAX; /* hint_stale_maps */
  for (int j = fbeg; j < fend && status == MXN_OK; j++) {
    int64_t stale;
    status = stated_shared(ds, j, &stated[j - fbeg], &nstated[j - fbeg], &stale);
    if (stale >= 0 && stale_key == INT64_MAX)
      stale_key = (int64_t)j << 40 | (stale < ((int64_t)1 << 40) ? stale : ((int64_t)1 << 40) - 1);
    const mxn__file_t *f = status == MXN_OK ? mxn__file(ds, j) : NULL;
    if (f) ncand += nstated[j - fbeg] >= 0 ? nstated[j - fbeg] : f->num_nodes;
    else if (status == MXN_OK) status = ds->err.status;
  }
  /* Where every member states its shared nodes, the stated ones are the
   * ones to compare: their coordinates are read now and go home in one
   * exchange (the general way below sends ids, asks the holders of shared
   * ones and has them send coordinates: three exchanges and two sorts more,
   * a large share of an open of a thousand small members). */
  int all_stated = 1;
  for (int j = fbeg; j < fend && status == MXN_OK; j++)
    if (nstated[j - fbeg] < 0) all_stated = 0;
  if ((status = settle(comm, ds, rank, status, err)) != MXN_OK) goto done;
  int64_t both[2] = {all_stated, stale_key}; /* the lowest of each over the ranks */
  if (comm != MPI_COMM_NULL && (status = mxn__comm_reduce_i64(comm, MXN_OK, MXN__MIN, both, 2)) != MXN_OK) {
    mxn_error_set(err, status, "rank %d: agreeing on the stated shared nodes failed", rank);
    goto done;
  }
  all_stated = (int)both[0];
  if (!all_stated) hint_stale_maps(ds, both[1]); /* stale maps: not all stated */
  if (all_stated) {
    double mx = 0;
    pending_t *pend = NULL;
    int64_t npend = 0;
    status = stated_firsts(ds, fbeg, fend, stated, nstated, &back, &nback, &pend, &npend, &mx);
    if ((status = settle(comm, ds, rank, status, err)) == MXN_OK)
      status = compare_stated(comm, ds, rank, size, back, nback, pend, npend, mx, err);
    free(pend);
    goto done;
  }
  if (status == MXN_OK) {
    cand = mxn__malloc(((size_t)ncand + 1) * sizeof *cand);
    dest = mxn__malloc(((size_t)ncand + 1) * sizeof *dest);
    if (!cand || !dest) status = MXN_ERR_NOMEM;
  }
  for (int j = fbeg, k = 0; j < fend && status == MXN_OK; j++) {
    const mxn_file_domain_t *d;
    if ((status = mxn_dataset_file_domain(ds, j, &d)) != MXN_OK) break;
    int64_t n = nstated[j - fbeg] >= 0 ? nstated[j - fbeg] : d->num_nodes;
    for (int64_t i = 0; i < n; i++, k++) {
      int64_t p = nstated[j - fbeg] >= 0 ? stated[j - fbeg][i] : i;
      cand[k] = (cand_t){d->node_map[p], p, j, rank};
      dest[k] = mxn_directory_home(d->node_map[p], size);
    }
  }
  if ((status = settle(comm, ds, rank, status, err)) != MXN_OK) goto done;
  status = route(comm, cand, sizeof *cand, ncand, dest, (void **)&got, &ngot);
  free(cand);
  free(dest);
  cand = NULL;
  dest = NULL;
  if (status == MXN_OK) status = mxn__radix_sort(got, ngot, sizeof *got);

  /* 2. At home: ids two or more members hold go back to be read. A group
   * of equal ids holds distinct members (a member lists an id once, and
   * one rank publishes it), so two entries are two members. */
  if (status == MXN_OK) {
    ask = mxn__malloc(((size_t)ngot + 1) * sizeof *ask);
    dest = mxn__malloc(((size_t)ngot + 1) * sizeof *dest);
    if (!ask || !dest) status = MXN_ERR_NOMEM;
  }
  for (int64_t a = 0, b; status == MXN_OK && a < ngot; a = b) {
    for (b = a + 1; b < ngot && got[b].id == got[a].id; b++) continue;
    for (int64_t k = a; b - a > 1 && k < b; k++) {
      ask[nask] = (copy_t){got[k].id, got[k].pos, {0, 0, 0}, got[k].file, 0};
      dest[nask++] = got[k].rank;
    }
  }
  free(got);
  got = NULL;
  if (status != MXN_OK) mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  if ((status = mxn__agree_or_local(comm, status, err)) != MXN_OK) goto done;
  status = route(comm, ask, sizeof *ask, nask, dest, (void **)&asked, &nasked);
  free(ask);
  free(dest);
  ask = NULL;
  dest = NULL;

  /* 3. Holders read the copies asked for, member by member, and send them
   * home. */
  if (status == MXN_OK) status = sort_file_pos(&asked, nasked);
  if (status == MXN_OK) {
    back = asked;
    nback = nasked;
    asked = NULL;
    nasked = 0;
    dest = mxn__malloc(((size_t)nback + 1) * sizeof *dest);
    if (!dest) status = MXN_ERR_NOMEM;
  }
  for (int64_t a = 0, b; status == MXN_OK && a < nback; a = b) {
    for (b = a + 1; b < nback && back[b].file == back[a].file; b++) continue;
    status = read_copies(ds, back[a].file, back + a, b - a);
    if (status != MXN_OK) mxn_error_set(err, status, "%s", ds->err.msg);
  }
  for (int64_t i = 0; status == MXN_OK && i < nback; i++) dest[i] = mxn_directory_home(back[i].id, size);
  if (status == MXN_ERR_NOMEM) mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  if ((status = mxn__agree_or_local(comm, status, err)) != MXN_OK) goto done;
  status = route(comm, back, sizeof *back, nback, dest, (void **)&asked, &nasked);

  /* 4. Compare at home (the tolerance is collective: every rank asks). */
  double tol;
  status = tolerance_of(comm, status, max_coord(asked, status == MXN_OK ? nasked : 0), &tol);
  if (status == MXN_OK) {
    int64_t lo, hi;
    id_range(asked, nasked, &lo, &hi);
    status = compare_copies(ds, asked, nasked, lo, hi, tol, err);
  }
  if (status == MXN_ERR_NOMEM) mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  status = mxn__agree_or_local(comm, status, err);
done:
  for (int j = 0; stated && j < nmine; j++) free(stated[j]);
  free(stated);
  free(nstated);
  free(cand);
  free(got);
  free(ask);
  free(asked);
  free(back);
  free(dest);
  return status;
}
