/* Whether a dataset's id maps can be trusted, and what stands in for them
 * when not. Writers that number each block or each rank from 0 give one id
 * to several elements or nodes (ParaView's ExodusIIWriter on a multi-block
 * input repeats ids within a member); ParaView's own readers show such
 * sets, so MxN falls back instead of refusing them:
 *
 * - a member repeating an element id: every element's id becomes its
 *   member's offset (the elements of the members before it) + its
 *   position + 1, in member order;
 * - a member repeating a node id, or one node id at different points in
 *   two members (the shared-node check): nodes are matched by their
 *   coordinates, rounded to a grid of 2^21 steps along the longest side
 *   of the dataset's bounding box (about 4.8e-7 of it; points closer
 *   than that are one node), and element ids fall back too: without
 *   trusted node ids an element stored twice cannot be told from two
 *   elements given one id.
 *
 * Node ids that several members share with the same coordinates are the
 * usual Nemesis case, not a problem. The fallback is said once, in
 * s.id_warning, naming the member and the first repeated id. */
#include "comm.h"
#include "structure/ids.h"
#include "structure/structure.h"
#include "structure/nodecheck.h"

#include <float.h>
#include <stdarg.h>
#include <stdio.h>

/* The bounding box of members fbeg..fend-1's nodes, over every rank, and
 * the grid on it. Collective (comm MPI_COMM_NULL: serial). */
static int coord_grid(MPI_Comm comm, mxn_dataset_t *ds, int fbeg, int fend, mxn_error_t *err) {
  int status = MXN_OK, nd = ds->s.num_dim;
  double box[6] = {DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX}; /* lo, -hi */
  double *buf = NULL;
  for (int j = fbeg; j < fend && status == MXN_OK; j++) {
    const mxn__file_t *f = mxn__file(ds, j);
    if (!f) {
      status = ds->err.status;
      break;
    }
    int64_t n = f->num_nodes;
    if (n == 0) continue;
    if (!(f = mxn__file_open(ds, j, &status))) break;
    free(buf);
    MXN_ALLOC_RAW_OR(buf, 3 * n, read_done);
    double *xyz[3] = {buf, buf + n, buf + 2 * n};
    if (mxn__m_coords(f, nd, 0, n, 1, xyz)) {
      status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read the node coordinates", f->path);
      break;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += n * nd * (int64_t)sizeof(double);
    ds->io.check_bytes_read += n * nd * (int64_t)sizeof(double);
    for (int d = 0; d < nd; d++)
      for (int64_t i = 0; i < n; i++) {
        double x = xyz[d][i];
        if (!isfinite(x)) continue;
        if (x < box[d]) box[d] = x;
        if (-x < box[3 + d]) box[3 + d] = -x;
      }
  }
read_done:
  free(buf);
  if (status == MXN_ERR_NOMEM) mxn_error_set(err, status, "out of memory reading node coordinates");
  else if (status != MXN_OK) mxn_error_set(err, status, "%s", ds->err.msg);
  if ((status = mxn__agree_or_local(comm, status, err)) != MXN_OK) return status;
  if (comm != MPI_COMM_NULL &&
      (status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__MIN, box, 6)) != MXN_OK)
    return mxn_error_set(err, status, "reducing the nodes' bounding box failed");
  double side = 0;
  for (int d = 0; d < 3; d++) {
    ds->ids.lo[d] = d < nd && box[d] < DBL_MAX ? box[d] : 0;
    double ext = d < nd && box[d] < DBL_MAX ? -box[3 + d] - box[d] : 0;
    if (ext > side) side = ext;
  }
  ds->ids.h = side > 0 ? side / (double)(MXN__ID_GRID_N - 1) : 1;
  return MXN_OK;
}

/* The lowest member noting a repeat (or conflict) over every rank, its
 * lowest id and (other: NULL, or the conflict's earlier member) the member
 * that goes with it: *file -1 when none. Collective (serial: as noted). */
static int agree_first(MPI_Comm comm, int *file, int64_t *id, int *other) {
  if (comm == MPI_COMM_NULL) return MXN_OK;
  int none = *file < 0;
  int64_t v[3] = {none ? INT32_MAX : *file, none ? INT64_MAX : *id,
                  none || !other ? INT32_MAX : *other};
  int status = mxn__comm_lexmin_i64(comm, MXN_OK, v, 3);
  if (status != MXN_OK) return status;
  if (other) *other = v[2] == INT32_MAX ? -1 : (int)v[2];
  *file = v[0] == INT32_MAX ? -1 : (int)v[0];
  *id = v[1];
  return MXN_OK;
}

void mxn__ids_elems_repeated(mxn_dataset_t *ds, int file, int other, int64_t id, const char *why) {
  mxn_structure_t *s = &ds->s;
  s->id_fallback |= MXN_IDS_ELEM_BY_POSITION;
  snprintf(s->id_warning, sizeof s->id_warning,
           "%s: element id %lld is also stored in %s, %s: element ids are not used: elements "
           "are numbered by member and position (member offset + position)",
           mxn__path(ds, file), (long long)id, mxn__path(ds, other), why);
  if (s->num_elements_global >= 0) s->num_elements_global = s->num_elements_sum;
  mxn__dataset_drop_domains(ds);
}

void mxn__hint(mxn_dataset_t *ds, const char *fmt, ...) {
  mxn_structure_t *s = &ds->s;
  if (s->hint_warning[0]) return; /* the first disagreement only */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->hint_warning, sizeof s->hint_warning, fmt, ap);
  va_end(ap);
}

void mxn__hint_elements(mxn_dataset_t *ds, int64_t distinct) {
  mxn_structure_t *s = &ds->s;
  if (!s->hint_warning[0])
    snprintf(s->hint_warning, sizeof s->hint_warning,
             "%s: the members hold %lld distinct element ids where their Nemesis global counts "
             "say %lld; going on with what the members hold",
             mxn__path(ds, 0), (long long)distinct, (long long)s->num_elements_global);
  s->num_elements_global = distinct;
}

/* Serially, with every member's domain at hand, as the collective load
 * does with its directory: element ids stored in several members of a set
 * whose Nemesis counts say each element is stored once, or whose copies
 * are different elements (mxn__ids_check_overlap). */
static int repeated_across(mxn_dataset_t *ds, mxn_error_t *err) {
  const mxn_structure_t *s = &ds->s;
  if (ds->nfiles < 2) return MXN_OK;
  mxn__copy_t *all = mxn__malloc(((size_t)s->num_elements_sum + 1) * sizeof *all);
  if (!all) return mxn_error_set(err, MXN_ERR_NOMEM, "out of memory comparing the members' element ids");
  int64_t n = 0;
  for (int j = 0; j < ds->nfiles; j++) {
    const mxn_file_domain_t *d = mxn__file_dom(ds, j);
    for (int64_t q = 0; d && q < d->num_elements && n < s->num_elements_sum; q++, n++)
      all[n] = (mxn__copy_t){d->elem_map[q], q, j, 0};
  }
  /* stable by id: copies of one id stay in member order */
  int status = mxn__radix_sort(all, n, sizeof *all);
  if (status != MXN_OK) {
    free(all);
    return mxn_error_set(err, status, "out of memory comparing the members' element ids");
  }
  /* the ids stored in two or more members, with all their copies */
  int64_t k = 0, distinct = 0, first = -1;
  for (int64_t a = 0, b; a < n; a = b) {
    int files = 1;
    for (b = a + 1; b < n && all[b].id == all[a].id; b++) files += all[b].file != all[b - 1].file;
    distinct++;
    if (files < 2) continue;
    if (first < 0) first = k;
    for (int64_t i = a; i < b; i++) all[k++] = all[i];
  }
  if (s->num_elements_global >= 0 && s->num_elements_sum == s->num_elements_global &&
      distinct != s->num_elements_global && first >= 0) {
    mxn__ids_elems_repeated(ds, all[first + 1].file, all[first].file, all[first].id,
                            "where the Nemesis global counts say each element is stored once");
  } else if (k > 0) {
    int again = 0;
    status = mxn__ids_check_overlap(MPI_COMM_NULL, ds, all, k, &again, err);
  }
  free(all);
  return status;
}

int mxn__ids_settle(MPI_Comm comm, mxn_dataset_t *ds, int fbeg, int fend, mxn_error_t *err) {
  mxn__ids_t *g = &ds->ids;
  mxn_structure_t *s = &ds->s;
  int status = MXN_OK;
  if (g->state == MXN__IDS_SETTLED) return MXN_OK;
  g->state = MXN__IDS_SETTLING;
  for (int e = 0; e < MXN__NEK; e++) g->dup_file[e] = -1;
  g->conflict_file = g->conflict_other = -1;
  s->id_fallback = 0;
  s->id_warning[0] = '\0';

  /* 1. My members' id maps as written, repeats noted (domain.c). */
  for (int j = fbeg; j < fend && status == MXN_OK; j++) {
    const mxn_file_domain_t *d;
    if ((status = mxn_dataset_file_domain(ds, j, &d)) != MXN_OK)
      mxn_error_set(err, status, "%s", ds->err.msg);
  }
  if ((status = mxn__agree_or_local(comm, status, err)) != MXN_OK) goto done;
  for (int e = 0; e < MXN__NEK && status == MXN_OK; e++)
    status = agree_first(comm, &g->dup_file[e], &g->dup_id[e], NULL);
  if (status != MXN_OK) {
    mxn_error_set(err, status, "agreeing on repeated ids failed");
    goto done;
  }
  if (g->dup_file[MXN__EDGE] >= 0 || g->dup_file[MXN__FACE] >= 0) {
    int e = g->dup_file[MXN__EDGE] >= 0 ? MXN__EDGE : MXN__FACE;
    status = mxn_error_set(err, MXN_ERR_FORMAT, "%s: %s id %lld appears more than once in the id map",
                           mxn__path(ds, g->dup_file[e]), mxn__ent_what[e],
                           (long long)g->dup_id[e]);
    goto done;
  }

  /* 2. Node ids no member repeats: the members that share one must put it
   * at one point; a conflict is noted here, not refused. */
  if (g->dup_file[MXN__NODE] < 0) {
    g->probe = 1;
    status = mxn__check_shared_nodes(comm, ds, fbeg, fend, err);
    g->probe = 0;
    if (status != MXN_OK) goto done;
    if ((status = agree_first(comm, &g->conflict_file, &g->conflict_id, &g->conflict_other)) !=
        MXN_OK) {
      mxn_error_set(err, status, "agreeing on conflicting node ids failed");
      goto done;
    }
    g->nodes_checked = 1;
  }

  /* 3. The fallbacks, and the warning that names them. */
  int bad_nodes = g->dup_file[MXN__NODE] >= 0 || g->conflict_file >= 0;
  if (g->dup_file[MXN__ELEM] >= 0 || bad_nodes) s->id_fallback |= MXN_IDS_ELEM_BY_POSITION;
  if (bad_nodes) s->id_fallback |= MXN_IDS_NODE_BY_COORDS;
  if (!s->id_fallback) {
    if (comm == MPI_COMM_NULL) status = repeated_across(ds, err);
    goto done;
  }
  if (bad_nodes && (status = coord_grid(comm, ds, fbeg, fend, err)) != MXN_OK) goto done;
  char why[MXN_ERRMSG_LEN / 2];
  if (g->dup_file[MXN__NODE] >= 0)
    snprintf(why, sizeof why, "%s: node id %lld appears more than once in the member's id map",
             mxn__path(ds, g->dup_file[MXN__NODE]), (long long)g->dup_id[MXN__NODE]);
  else if (g->conflict_file >= 0)
    snprintf(why, sizeof why, "%s: node id %lld is at another point in %s",
             mxn__path(ds, g->conflict_file), (long long)g->conflict_id,
             mxn__path(ds, g->conflict_other));
  else
    snprintf(why, sizeof why, "%s: element id %lld appears more than once in the member's id map",
             mxn__path(ds, g->dup_file[MXN__ELEM]), (long long)g->dup_id[MXN__ELEM]);
  if (bad_nodes)
    snprintf(s->id_warning, sizeof s->id_warning,
             "%s: the id maps are not used: nodes are matched by their coordinates (within "
             "%.3g, 2^-21 of the bounding box's longest side) and elements numbered by member "
             "and position",
             why, g->h);
  else
    snprintf(s->id_warning, sizeof s->id_warning,
             "%s: element ids are not used: elements are numbered by member and position "
             "(member offset + position)",
             why);
  /* The Nemesis counts described the ids as written. */
  if (s->id_fallback & MXN_IDS_ELEM_BY_POSITION) s->num_elements_global = s->num_elements_sum;
  if (bad_nodes) {
    s->num_nodes_global = -1;
    /* the grid's ids take 63 bits: what MxN writes from the set stores them so */
    s->int64_ids = 1;
  }
  /* The domains read so far hold the ids as written: read again. */
  mxn__dataset_drop_domains(ds);
done:
  g->state = status == MXN_OK ? MXN__IDS_SETTLED : MXN__IDS_UNSETTLED;
  return status;
}

/* ---------- an overlap, or one id given to several elements ---------- */

/* What a copy is made of: its block and a fingerprint of its global nodes
 * (a sum and a mix of them, order-free: a member may store an element's
 * nodes from another corner). Poly blocks: the block alone. */
typedef struct {
  int64_t at;      /* the copy's index at its asker */
  uint64_t sum, mix;
  int32_t block, pad;
} print_t;

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* The print of member j's element at position pos (its domain read). */
static int print_of(mxn_dataset_t *ds, int j, int64_t pos, print_t *p) {
  int status = MXN_OK;
  const mxn_file_domain_t *d;
  if ((status = mxn_dataset_file_domain(ds, j, &d)) != MXN_OK) return status;
  mxn__file_t *f = mxn__file_held(ds, j); /* held: its domain is */
  const mxn__blocks_t *kb = &f->kb[MXN__ELEM];
  p->block = -1;
  p->sum = p->mix = 0;
  const mxn__span_t *span = mxn__span_at(kb, pos);
  if (!span) return status;
  int b = span->b, q = span->q;
  p->block = b;
  const mxn_block_info_t *bi = &ds->s.blocks[b];
  int npe = bi->nodes_per_elem;
  if (!bi->poly && npe > 0) {
    int64_t conn[64], *c = npe <= 64 ? conn : mxn__malloc((size_t)npe * sizeof *c);
    if (!c) return MXN_ERR_NOMEM;
    if (!mxn__file_open(ds, j, &status) ||
        mxn__m_rows(f, mxn__ex_blk[MXN__ELEM].conn, q + 1, pos - span->start, 1, npe, c, 'l')) {
      if (status == MXN_OK)
        status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: element block %lld: cannot read connectivity",
                            f->path, (long long)bi->id);
    } else {
      ds->io.read_calls++;
      ds->io.bytes_read += npe * (int64_t)sizeof(int64_t);
      ds->io.check_bytes_read += npe * (int64_t)sizeof(int64_t);
      for (int i = 0; i < npe; i++) {
        uint64_t g = c[i] >= 1 && c[i] <= d->num_nodes ? (uint64_t)d->node_map[c[i] - 1] : ~0ull;
        p->sum += g;
        p->mix += mix64(g);
      }
    }
    if (c != conn) free(c);
  }
  return status;
}

/* The rank that holds member j in the load's split of M members over
 * size ranks (rank r: members r*M/size .. (r+1)*M/size - 1). */
static int owner_of(int j, int M, int size) {
  int r = (int)((int64_t)j * size / M);
  while (r > 0 && (int64_t)r * M / size > j) r--;
  while (r + 1 < size && (int64_t)(r + 1) * M / size <= j) r++;
  return r;
}

int mxn__ids_check_overlap(MPI_Comm comm, mxn_dataset_t *ds, const mxn__copy_t *copies, int64_t n,
                           int *again, mxn_error_t *err) {
  int status = MXN_OK, size = 1, rank = 0, M = ds->nfiles;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
  }
  *again = 0;
  mxn__copy_t *ask = NULL, *got = NULL;
  print_t *prints = NULL, *back = NULL;
  int *dest = NULL, *rdest = NULL;
  int64_t ngot = 0, nback = 0, *cnt = NULL;
  /* 1. Each copy to the rank holding its member, which prints it. */
  ask = mxn__malloc(((size_t)n + 1) * sizeof *ask);
  dest = mxn__malloc(((size_t)n + 1) * sizeof *dest);
  if (comm != MPI_COMM_NULL) cnt = mxn__calloc((size_t)size, sizeof *cnt);
  if (!ask || !dest || (comm != MPI_COMM_NULL && !cnt)) status = MXN_ERR_NOMEM;
  for (int64_t k = 0; status == MXN_OK && k < n; k++) {
    ask[k] = copies[k];
    ask[k].id = k; /* where the print goes back to */
    dest[k] = owner_of(copies[k].file, M, size);
  }
  if (comm != MPI_COMM_NULL) {
    /* with the counts from each rank, for the replies */
    status = mxn__comm_send_items(comm, status, ask, sizeof *ask, status == MXN_OK ? n : 0, dest,
                                  (void **)&got, &ngot, cnt);
  } else if (status == MXN_OK) {
    got = ask;
    ngot = n;
    ask = NULL;
  }
  /* the sources, in order, for the replies (the exchange keeps source
   * order); a failure here is agreed by the replies' exchange */
  if (comm != MPI_COMM_NULL && status == MXN_OK) {
    rdest = mxn__malloc(((size_t)ngot + 1) * sizeof *rdest);
    if (!rdest) status = MXN_ERR_NOMEM;
    for (int64_t r = 0, k = 0; status == MXN_OK && r < size; r++)
      for (int64_t i = 0; i < cnt[r]; i++) rdest[k++] = (int)r;
  }
  prints = mxn__malloc(((size_t)ngot + 1) * sizeof *prints);
  if (!prints && status == MXN_OK) status = MXN_ERR_NOMEM;
  for (int64_t k = 0; status == MXN_OK && k < ngot; k++) {
    status = print_of(ds, got[k].file, got[k].pos, &prints[k]);
    prints[k].at = got[k].id;
  }
  if (status == MXN_ERR_NOMEM) mxn_error_set(err, status, "rank %d: out of memory comparing copies of element ids", rank);
  else if (status != MXN_OK) mxn_error_set(err, status, "%s", ds->err.msg);
  /* 2. The prints back to the askers, in the copies' order. */
  if (comm != MPI_COMM_NULL) {
    status = mxn__send_to_if(comm, size, status, prints, sizeof *prints, status == MXN_OK ? ngot : 0,
                             rdest, (void **)&back, &nback);
  } else if (status == MXN_OK) {
    back = prints;
    nback = ngot;
    prints = NULL;
  }
  if ((status = mxn__agree_or_local(comm, status, err)) != MXN_OK) goto done;
  /* 3. Copies of one id that differ: the lowest such id, its members. */
  print_t *by = mxn__malloc(((size_t)n + 1) * sizeof *by);
  int64_t bad[3] = {INT64_MAX, -1, -1};
  if (!by) status = MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < nback; i++)
    if (back[i].at >= 0 && back[i].at < n) by[back[i].at] = back[i];
  for (int64_t a = 0, b; status == MXN_OK && a < n; a = b) {
    for (b = a + 1; b < n && copies[b].id == copies[a].id; b++) continue;
    for (int64_t i = a + 1; i < b; i++)
      if ((by[i].block != by[a].block || by[i].sum != by[a].sum || by[i].mix != by[a].mix) &&
          copies[a].id < bad[0]) {
        bad[0] = copies[a].id;
        bad[1] = copies[a].file < copies[i].file ? copies[a].file : copies[i].file;
        bad[2] = copies[a].file < copies[i].file ? copies[i].file : copies[a].file;
      }
  }
  free(by);
  if (status != MXN_OK) mxn_error_set(err, status, "rank %d: out of memory comparing copies of element ids", rank);
  if ((status = mxn__agree_or_local(comm, status, err)) != MXN_OK) goto done;
  /* the lowest such id over the ranks, with its members */
  if (comm != MPI_COMM_NULL && (status = mxn__comm_lexmin_i64(comm, MXN_OK, bad, 3)) != MXN_OK) {
    mxn_error_set(err, status, "agreeing on the copies of element ids failed");
    goto done;
  }
  if (bad[0] != INT64_MAX) {
    mxn__ids_elems_repeated(ds, (int)bad[2], (int)bad[1], bad[0], "as another element");
    *again = 1;
  }
done:
  free(ask);
  free(got);
  free(prints);
  free(back);
  free(dest);
  free(rdest);
  free(cnt);
  return status;
}
