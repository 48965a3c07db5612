/* The shared-node check: see nodecheck.h. */
#include "nodecheck.h"

#include "halo.h"
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

static int agree(MPI_Comm comm, int status, mxn_error_t *err) {
  return comm == MPI_COMM_NULL ? status : mxn_agree(comm, status, err);
}

/* This rank's status, with its message (out of memory, or the dataset's
 * own), agreed over comm. */
static int settle(MPI_Comm comm, mxn_dataset_t *ds, int rank, int status, mxn_error_t *err) {
  if (status == MXN_ERR_NOMEM)
    mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  else if (status != MXN_OK)
    mxn_error_set(err, status, "%s", mxn_dataset_errmsg(ds));
  return agree(comm, status, err);
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
 * all of them (-1 in *n: none stated). */
static int stated_shared(mxn_dataset_t *ds, int j, int64_t **pos, int64_t *n) {
  int status = MXN_OK, varid;
  int64_t *v = NULL;
  char *seen = NULL;
  *pos = NULL;
  *n = -1;
  const mxn__file_t *f = mxn__file_open(ds, j, &status);
  if (!f) return status;
  if ((varid = mxn__m_var(f, "n_comm_nids")) < 0) return MXN_OK;
  int64_t dl = mxn__m_ndims(f, varid) == 1 ? mxn__m_dimlen(f, varid, 0) : -1;
  if (dl < 0)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: n_comm_nids (node communication maps) is not a list",
                      ds->files[j].path);
  size_t len = (size_t)dl, start = 0;
  MXN_ALLOC_RAW(v, len);    /* read whole below */
  MXN_ALLOC_RAW(*pos, len); /* its first *n are set, and only they are read */
  if (len && mxn__m_get(f, varid, &start, &len, NULL, v, 'l') != 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read n_comm_nids (node communication maps)",
                        ds->files[j].path);
    goto done;
  }
  ds->io.read_calls++;
  ds->io.bytes_read += (int64_t)len * (int64_t)sizeof(int);
  int64_t nn = ds->files[j].num_nodes;
  /* A node shared with several members is listed once per member: marks
   * over the member's nodes give the positions ascending and distinct (a
   * sort took a tenth of the check for a thousand small members). */
  MXN_ALLOC(seen, nn);
  for (size_t i = 0; i < len; i++) {
    if (v[i] < 1 || v[i] > nn) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: its node communication maps list node %lld, outside its nodes 1..%lld",
                          ds->files[j].path, (long long)v[i], (long long)nn);
      goto done;
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
  if (status != MXN_OK) {
    free(*pos);
    *pos = NULL;
  }
  return status;
}

/* Read the coordinates of copies[0..n) (one member, ascending positions)
 * in runs of nearby nodes. */
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
    if (mxn__m_coords(f, nd, first, count, 1, xyz)) {
      status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read coordinates of nodes %lld..%lld",
                          ds->files[j].path, (long long)first + 1, (long long)(first + count));
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += count * nd * (int64_t)sizeof(double);
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
 * index) pairs and one permutation (qsort with a comparator took a third of
 * the check for a thousand small members). Positions fit in 40 bits. */
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

/* The copies of the nodes members fbeg..fend-1 state they share, with their
 * coordinates, in member order; *lo and *hi (from INT64_MAX and INT64_MIN)
 * widened to hold their ids; *mx: their largest finite coordinate, taken
 * from each member's copies just read (a pass over all of them afterwards
 * missed the cache on every one: 1M hex in 1024 members, 4 ranks, 150 k
 * copies a rank). */
static int stated_copies(mxn_dataset_t *ds, int fbeg, int fend, int64_t *const *stated,
                         const int64_t *nstated, copy_t **out, int64_t *n, double *mx,
                         int64_t *lo, int64_t *hi) {
  int status = MXN_OK;
  int64_t total = 0, k = 0;
  for (int j = fbeg; j < fend; j++) total += nstated[j - fbeg];
  copy_t *c = mxn__malloc(((size_t)total + 1) * sizeof *c);
  if (!c) status = MXN_ERR_NOMEM;
  for (int j = fbeg; j < fend && status == MXN_OK; j++) {
    const mxn_file_domain_t *fd;
    if ((status = mxn_dataset_file_domain(ds, j, &fd)) != MXN_OK) break;
    int64_t m = nstated[j - fbeg];
    for (int64_t i = 0; i < m; i++) {
      int64_t p = stated[j - fbeg][i], id = fd->node_map[p];
      c[k + i] = (copy_t){id, p, {0, 0, 0}, j, 0};
      *lo = id < *lo ? id : *lo;
      *hi = id > *hi ? id : *hi;
    }
    /* stated positions are ascending and distinct: runs read as they come */
    status = read_copies(ds, j, c + k, m);
    if (status == MXN_OK) {
      double mj = max_coord(c + k, m);
      if (mj > *mx) *mx = mj;
    }
    k += m;
  }
  if (status != MXN_OK) {
    free(c);
    return status;
  }
  *out = c;
  *n = total;
  return MXN_OK;
}

/* The tolerance of the comparison: 1e-6 of the largest finite coordinate
 * any rank holds, mx being this rank's. Collective: every rank calls it. */
static double tolerance_of(MPI_Comm comm, double mx) {
  double scale = mx;
  if (comm != MPI_COMM_NULL) MPI_Allreduce(&mx, &scale, 1, MPI_DOUBLE, MPI_MAX, comm);
  return 1e-6 * scale;
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

/* Compare each copy with the first copy of its id (copies[0..n), any
 * order; the first is the earliest), ids within [id_lo, id_hi]: a table
 * of first copies by id instead of a sort by id (radix-sorting the 48-byte
 * copies was the check's largest item with a thousand small members).
 * Where the ids are compact (mxn__id_table_span), the table is indexed by
 * id - id_lo (at most 64 bytes a copy, about what the copy itself takes):
 * a member's copies come in position order, which follows its ids, and
 * neighbouring members share faces, so most lookups find their line in
 * cache. A hash of the id placed consecutive ids far
 * apart and missed the cache on nearly every first probe (perf, 1M hex on
 * 2 ranks, a rank's time in this function: 1024 members 12.8 ms with the
 * hash, 6.6 ms so; 64 members 2.6 and 1.3 ms). Other ranges: open
 * addressing on a hash. Of the differing pairs, the one of the lowest id
 * is refused, the pair a sort would have found first. With nfirst, the
 * first copies are moved to the front of copies, in order, and *nfirst
 * counts them. */
static int compare_copies(mxn_dataset_t *ds, copy_t *copies, int64_t n, int64_t id_lo,
                          int64_t id_hi, double tol, int64_t *nfirst, mxn_error_t *err) {
  uint64_t span = mxn__id_table_span(id_lo, id_hi, n);
  int direct = span > 0;
  int bits = 4;
  while (!direct && bits < 62 && ((int64_t)1 << bits) < 2 * n) bits++;
  uint64_t mask = ((uint64_t)1 << bits) - 1;
  /* index + 1 of an id's first copy; 0: none yet */
  uint32_t *near = direct ? mxn__calloc((size_t)span, sizeof *near) : NULL;
  int64_t *slot = direct ? NULL : mxn__calloc((size_t)mask + 1, sizeof *slot);
  if (!near && !slot) return MXN_ERR_NOMEM;
  copy_t bad_first = {0}, bad_other = {0};
  int bad = 0;
  int64_t nf = 0;
  for (int64_t i = 0; i < n; i++) {
    const copy_t *c = &copies[i];
    int64_t first;
    uint64_t h = 0;
    if (direct) {
      h = (uint64_t)c->id - (uint64_t)id_lo;
      first = near[h];
    } else {
      h = ((uint64_t)c->id * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits);
      while (slot[h] && copies[slot[h] - 1].id != c->id) h = (h + 1) & mask;
      first = slot[h];
    }
    if (!first) { /* the first copy of its id */
      if (nfirst) copies[nf] = *c; /* nf <= i: that place is done with */
      first = (nfirst ? nf : i) + 1;
      if (direct)
        near[h] = (uint32_t)first;
      else
        slot[h] = first;
      nf++;
      continue;
    }
    const copy_t *p = &copies[first - 1];
    if (same(p->x[0], c->x[0], tol) && same(p->x[1], c->x[1], tol) && same(p->x[2], c->x[2], tol))
      continue;
    if (!bad || c->id < bad_first.id) {
      bad = 1;
      bad_first = *p;
      bad_other = *c;
    }
  }
  free(near);
  free(slot);
  if (nfirst) *nfirst = nf;
  if (!bad) return MXN_OK;
  const copy_t *p = &bad_first, *q = &bad_other;
  const copy_t *lo = p->file < q->file ? p : q, *hi = p->file < q->file ? q : p;
  return mxn_error_set(err, MXN_ERR_FORMAT,
                       "%s: node %lld (its node %lld) is at (%.9g, %.9g, %.9g), but at "
                       "(%.9g, %.9g, %.9g) in %s (its node %lld): a node several members "
                       "store must have the same coordinates in each",
                       mxn_dataset_file_path(ds, hi->file), (long long)hi->id,
                       (long long)hi->pos + 1, hi->x[0], hi->x[1], hi->x[2], lo->x[0], lo->x[1],
                       lo->x[2], mxn_dataset_file_path(ds, lo->file), (long long)lo->pos + 1);
}

/* Where every member states its shared nodes: the copies of this rank's
 * members are compared here first, and only the first copy of each id
 * goes to the id's home, to be compared there with the other ranks'
 * (most copies of a node are on one rank: with 256 members of 1000 cells
 * a rank, 1M hex on 4, sending and sorting every copy at home made the
 * check 0.028-0.036 s, this 0.019-0.028 s). A copy is within tol of its
 * rank's first copy, which is within tol of the first copy at home.
 * Collective. */
static int compare_stated(MPI_Comm comm, mxn_dataset_t *ds, int rank, int size, copy_t *copies,
                          int64_t n, double mx, int64_t lo, int64_t hi, mxn_error_t *err) {
  double tol = tolerance_of(comm, mx); /* mx: max_coord(copies, n) */
  copy_t *asked = NULL;
  int64_t nasked = 0, nrep = 0;
  int *dest = NULL;
  int status = compare_copies(ds, copies, n, lo, hi, tol, &nrep, err); /* lo, hi: id_range */
  if (status == MXN_OK && size > 1) {
    dest = mxn__malloc(((size_t)nrep + 1) * sizeof *dest);
    if (!dest) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nrep; i++) dest[i] = mxn_directory_home(copies[i].id, size);
  }
  if (size > 1) {
    /* every rank sends, failed or not (nothing then), so none waits alone */
    int rs = route(comm, copies, sizeof *copies, status == MXN_OK ? nrep : 0, dest,
                   (void **)&asked, &nasked);
    if (status == MXN_OK) status = rs;
    if (status == MXN_OK) {
      id_range(asked, nasked, &lo, &hi);
      status = compare_copies(ds, asked, nasked, lo, hi, tol, NULL, err);
    }
  }
  free(asked);
  free(dest);
  if (status == MXN_ERR_NOMEM) mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  return agree(comm, status, err);
}

int mxn__check_shared_nodes(MPI_Comm comm, mxn_dataset_t *ds, int fbeg, int fend, mxn_error_t *err) {
  int status = MXN_OK, size = 1, rank = 0;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
  }
  if (ds->nfiles < 2) return MXN_OK; /* the same on every rank */
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
  for (int j = fbeg; j < fend && status == MXN_OK; j++) {
    status = stated_shared(ds, j, &stated[j - fbeg], &nstated[j - fbeg]);
    ncand += nstated[j - fbeg] >= 0 ? nstated[j - fbeg] : ds->files[j].num_nodes;
  }
  /* Where every member states its shared nodes, the stated ones are the
   * ones to compare: their coordinates are read now and go home in one
   * exchange (the general way below sends ids, asks the holders of shared
   * ones and has them send coordinates: three exchanges and two sorts more,
   * a third of an open of a thousand small members). */
  int all_stated = 1;
  for (int j = fbeg; j < fend && status == MXN_OK; j++)
    if (nstated[j - fbeg] < 0) all_stated = 0;
  if ((status = settle(comm, ds, rank, status, err)) != MXN_OK) goto done;
  if (comm != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, &all_stated, 1, MPI_INT, MPI_LAND, comm);
  if (all_stated) {
    double mx = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    status = stated_copies(ds, fbeg, fend, stated, nstated, &back, &nback, &mx, &lo, &hi);
    if ((status = settle(comm, ds, rank, status, err)) != MXN_OK) goto done;
    status = compare_stated(comm, ds, rank, size, back, nback, mx, lo, hi, err);
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
  if ((status = agree(comm, status, err)) != MXN_OK) goto done;
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
    if (status != MXN_OK) mxn_error_set(err, status, "%s", mxn_dataset_errmsg(ds));
  }
  for (int64_t i = 0; status == MXN_OK && i < nback; i++) dest[i] = mxn_directory_home(back[i].id, size);
  if (status == MXN_ERR_NOMEM) mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  if ((status = agree(comm, status, err)) != MXN_OK) goto done;
  status = route(comm, back, sizeof *back, nback, dest, (void **)&asked, &nasked);

  /* 4. Compare at home (the tolerance is collective: every rank asks). */
  double tol = tolerance_of(comm, max_coord(asked, status == MXN_OK ? nasked : 0));
  if (status == MXN_OK) {
    int64_t lo, hi;
    id_range(asked, nasked, &lo, &hi);
    status = compare_copies(ds, asked, nasked, lo, hi, tol, NULL, err);
  }
  if (status == MXN_ERR_NOMEM) mxn_error_set(err, status, "rank %d: out of memory checking shared nodes", rank);
  status = agree(comm, status, err);
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
