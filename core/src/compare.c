/* Comparison of two datasets by global ids (mxn diff). */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct {
  char *buf;
  size_t len, cap;
  int listed, count, max;
} report_t;

static void say(report_t *r, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  size_t n = strlen(line);
  if (r->len + n + 2 > r->cap) {
    size_t cap = (r->cap + n + 2) * 2;
    char *b = realloc(r->buf, cap);
    if (!b) return;
    r->buf = b;
    r->cap = cap;
  }
  memcpy(r->buf + r->len, line, n);
  r->len += n;
  r->buf[r->len++] = '\n';
  r->buf[r->len] = '\0';
}

/* Record one difference; the first `max` are listed. */
#define DIFF(r, ...)                                   \
  do {                                                 \
    (r)->count++;                                      \
    if ((r)->listed < (r)->max) {                      \
      (r)->listed++;                                   \
      say((r), __VA_ARGS__);                           \
    }                                                  \
  } while (0)

typedef struct {
  const char *path;
  mxn_dataset_t *ds;
  const mxn_structure_t *s;
  mxn_piece_t *pc;
  int64_t id_shift; /* subtracted from every id */
  int64_t node_shift;
} side_t;

static int load(side_t *x, mxn_error_t *err) {
  int status = mxn_dataset_create(&x->ds);
  if (status != MXN_OK) return mxn_error_set(err, status, "out of memory");
  status = mxn_dataset_open(x->ds, x->path);
  if (status == MXN_OK) {
    mxn_extract_opts_t eo;
    memset(&eo, 0, sizeof eo);
    eo.gap = 1 << 20;
    status = mxn_extract(x->ds, NULL, &eo, &x->pc);
  }
  if (status != MXN_OK) return mxn_error_set(err, status, "%s", mxn_dataset_errmsg(x->ds));
  x->s = mxn_dataset_structure(x->ds);
  return MXN_OK;
}

static int close_enough(double a, double b, const mxn_compare_opts_t *o) {
  if (a == b || (isnan(a) && isnan(b))) return 1;
  double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  return fabs(a - b) <= o->abs_tol + o->rel_tol * m;
}

/* Element type key that survives writers' spellings (HEX vs HEX8). */
static void type_key(const mxn_block_info_t *b, char key[16]) {
  char t[4] = {0};
  for (int i = 0; i < 3 && b->type[i]; i++) t[i] = (char)toupper((unsigned char)b->type[i]);
  snprintf(key, 16, "%s%d", t, b->nodes_per_elem);
}

/* Elements of block b of piece pc: ids (shifted) in ascending order. */
static int64_t elem_id(const side_t *x, int b, int64_t k) {
  const mxn_piece_block_t *pb = &x->pc->blocks[b];
  return (pb->orig_ids ? pb->orig_ids[k] : pb->elem_ids[k]) - x->id_shift;
}

static int pair_blocks(side_t *a, side_t *b, const mxn_compare_opts_t *o, int *pair,
                       report_t *r) {
  /* pair[ba] = bb or -1 */
  for (int i = 0; i < a->s->num_blocks; i++) pair[i] = -1;
  int *used = calloc((size_t)b->s->num_blocks + 1, sizeof *used);
  if (!used) return MXN_ERR_NOMEM;
  for (int i = 0; i < a->s->num_blocks; i++) {
    if (o->match_blocks_by_type && a->pc->blocks[i].num_elements == 0) continue;
    char ka[16], kb[16];
    type_key(&a->s->blocks[i], ka);
    for (int j = 0; j < b->s->num_blocks; j++) {
      if (used[j]) continue;
      int match;
      if (o->match_blocks_by_type) {
        type_key(&b->s->blocks[j], kb);
        match = b->pc->blocks[j].num_elements > 0 && strcmp(ka, kb) == 0;
      } else {
        match = a->s->blocks[i].id == b->s->blocks[j].id;
      }
      if (match) {
        pair[i] = j;
        used[j] = 1;
        break;
      }
    }
    if (pair[i] < 0 && a->pc->blocks[i].num_elements > 0)
      DIFF(r, "block %lld (%s, %lld elements) of A has no counterpart in B",
           (long long)a->s->blocks[i].id, a->s->blocks[i].type,
           (long long)a->pc->blocks[i].num_elements);
  }
  for (int j = 0; j < b->s->num_blocks; j++)
    if (!used[j] && b->pc->blocks[j].num_elements > 0)
      DIFF(r, "block %lld (%s, %lld elements) of B has no counterpart in A",
           (long long)b->s->blocks[j].id, b->s->blocks[j].type,
           (long long)b->pc->blocks[j].num_elements);
  free(used);
  return MXN_OK;
}

/* Sort order of a block's elements by (possibly original) id. */
typedef struct {
  int64_t id, k;
} idk_t;
static int cmp_idk(const void *p, const void *q) {
  const idk_t *x = p, *y = q;
  return (x->id > y->id) - (x->id < y->id);
}
static int block_order(const side_t *x, int b, idk_t **out) {
  int64_t n = x->pc->blocks[b].num_elements;
  *out = malloc(((size_t)n + 1) * sizeof **out);
  if (!*out) return MXN_ERR_NOMEM;
  for (int64_t k = 0; k < n; k++) (*out)[k] = (idk_t){elem_id(x, b, k), k};
  qsort(*out, (size_t)n, sizeof **out, cmp_idk);
  return MXN_OK;
}

static void compare_mesh(side_t *a, side_t *b, const int *pair, idk_t **oa, idk_t **ob,
                         const mxn_compare_opts_t *o, report_t *r) {
  const mxn_piece_t *A = a->pc, *B = b->pc;
  if (a->s->num_dim != b->s->num_dim)
    DIFF(r, "dimension: A %d, B %d", a->s->num_dim, b->s->num_dim);
  if (A->num_nodes != B->num_nodes)
    DIFF(r, "node count: A %lld, B %lld", (long long)A->num_nodes, (long long)B->num_nodes);
  if (A->num_elements != B->num_elements)
    DIFF(r, "element count: A %lld, B %lld", (long long)A->num_elements,
         (long long)B->num_elements);
  int64_t n = A->num_nodes < B->num_nodes ? A->num_nodes : B->num_nodes;
  int dim = a->s->num_dim < b->s->num_dim ? a->s->num_dim : b->s->num_dim;
  for (int64_t i = 0; i < n; i++) {
    int64_t ia = A->node_ids[i] - a->node_shift, ib = B->node_ids[i] - b->node_shift;
    if (ia != ib) {
      DIFF(r, "node ids differ: A's node #%lld is %lld, B's is %lld", (long long)i,
           (long long)ia, (long long)ib);
      return; /* everything keyed on nodes would differ too */
    }
    for (int d = 0; d < dim; d++)
      if (!close_enough(A->coord[d][i], B->coord[d][i], o))
        DIFF(r, "node %lld: coordinate %c A %.17g B %.17g", (long long)ia, "xyz"[d],
             A->coord[d][i], B->coord[d][i]);
  }
  for (int i = 0; i < a->s->num_blocks; i++) {
    int j = pair[i];
    if (j < 0) continue;
    const mxn_piece_block_t *pa = &A->blocks[i], *pb = &B->blocks[j];
    const mxn_block_info_t *ba = &a->s->blocks[i], *bb = &b->s->blocks[j];
    if (pa->num_elements != pb->num_elements) {
      DIFF(r, "block %lld: A has %lld elements, B's block %lld has %lld", (long long)ba->id,
           (long long)pa->num_elements, (long long)bb->id, (long long)pb->num_elements);
      continue;
    }
    if (ba->nodes_per_elem != bb->nodes_per_elem) {
      DIFF(r, "block %lld: %d nodes per element in A, %d in B", (long long)ba->id,
           ba->nodes_per_elem, bb->nodes_per_elem);
      continue;
    }
    int npe = ba->nodes_per_elem;
    for (int64_t k = 0; k < pa->num_elements; k++) {
      int64_t ka = oa[i][k].k, kb = ob[j][k].k;
      if (oa[i][k].id != ob[j][k].id) {
        DIFF(r, "block %lld: element ids differ (A %lld, B %lld)", (long long)ba->id,
             (long long)oa[i][k].id, (long long)ob[j][k].id);
        break;
      }
      for (int c = 0; c < npe; c++) {
        int64_t na = A->node_ids[pa->conn[ka * npe + c]] - a->node_shift;
        int64_t nb = B->node_ids[pb->conn[kb * npe + c]] - b->node_shift;
        if (na != nb) {
          DIFF(r, "element %lld: node %d is %lld in A, %lld in B", (long long)oa[i][k].id, c + 1,
               (long long)na, (long long)nb);
          break;
        }
      }
      if (ba->num_attr == bb->num_attr && pa->attr && pb->attr)
        for (int t = 0; t < ba->num_attr; t++)
          if (!close_enough(pa->attr[ka * ba->num_attr + t], pb->attr[kb * ba->num_attr + t], o))
            DIFF(r, "element %lld: attribute %d A %.17g B %.17g", (long long)oa[i][k].id, t + 1,
                 pa->attr[ka * ba->num_attr + t], pb->attr[kb * ba->num_attr + t]);
    }
    if (ba->num_attr != bb->num_attr)
      DIFF(r, "block %lld: %d attributes in A, %d in B", (long long)ba->id, ba->num_attr,
           bb->num_attr);
  }
}

/* A set as sorted (id, side, df...) records, in global terms. */
typedef struct {
  int64_t id;
  int side;
  int ndf;
  const double *df;
} rec_t;
static int cmp_rec(const void *p, const void *q) {
  const rec_t *x = p, *y = q;
  if (x->id != y->id) return (x->id > y->id) - (x->id < y->id);
  return (x->side > y->side) - (x->side < y->side);
}

static int set_records(const side_t *x, int side, int q, rec_t **out) {
  const mxn_piece_set_t *ps = side ? &x->pc->side_sets[q] : &x->pc->node_sets[q];
  *out = malloc(((size_t)ps->n + 1) * sizeof **out);
  if (!*out) return MXN_ERR_NOMEM;
  /* local element index -> (block, k) for side sets */
  for (int64_t i = 0; i < ps->n; i++) {
    rec_t *rc = &(*out)[i];
    if (!side) {
      rc->id = x->pc->node_ids[ps->entries[i]] - x->node_shift;
      rc->side = 0;
      rc->ndf = ps->df ? 1 : 0;
      rc->df = ps->df ? ps->df + i : NULL;
    } else {
      int64_t e = ps->entries[i];
      int b = 0;
      while (e >= x->pc->blocks[b].num_elements) e -= x->pc->blocks[b++].num_elements;
      rc->id = elem_id(x, b, e);
      rc->side = ps->sides[i];
      rc->ndf = ps->df ? (int)(ps->df_offsets[i + 1] - ps->df_offsets[i]) : 0;
      rc->df = ps->df ? ps->df + ps->df_offsets[i] : NULL;
    }
  }
  qsort(*out, (size_t)ps->n, sizeof **out, cmp_rec);
  return MXN_OK;
}

static int compare_sets(side_t *a, side_t *b, const mxn_compare_opts_t *o, report_t *r) {
  for (int side = 0; side < 2; side++) {
    int na = side ? a->s->num_side_sets : a->s->num_node_sets;
    int nb = side ? b->s->num_side_sets : b->s->num_node_sets;
    const mxn_set_info_t *sa = side ? a->s->side_sets : a->s->node_sets;
    const mxn_set_info_t *sb = side ? b->s->side_sets : b->s->node_sets;
    const char *what = side ? "side set" : "node set";
    for (int i = 0; i < na; i++) {
      int j = -1;
      for (int k = 0; k < nb; k++)
        if (sb[k].id == sa[i].id) j = k;
      const mxn_piece_set_t *pa = side ? &a->pc->side_sets[i] : &a->pc->node_sets[i];
      if (j < 0) {
        if (o->common_only)
          say(r, "skipped: %s %lld (only in A)", what, (long long)sa[i].id);
        else if (pa->n > 0)
          DIFF(r, "%s %lld: only in A", what, (long long)sa[i].id);
        continue;
      }
      const mxn_piece_set_t *pb = side ? &b->pc->side_sets[j] : &b->pc->node_sets[j];
      if (pa->n != pb->n) {
        DIFF(r, "%s %lld: %lld entries in A, %lld in B", what, (long long)sa[i].id,
             (long long)pa->n, (long long)pb->n);
        continue;
      }
      rec_t *ra = NULL, *rb = NULL;
      if (set_records(a, side, i, &ra) != MXN_OK || set_records(b, side, j, &rb) != MXN_OK) {
        free(ra);
        free(rb);
        return MXN_ERR_NOMEM;
      }
      for (int64_t k = 0; k < pa->n; k++) {
        if (ra[k].id != rb[k].id || ra[k].side != rb[k].side) {
          DIFF(r, "%s %lld: entry (%lld,%d) in A, (%lld,%d) in B", what, (long long)sa[i].id,
               (long long)ra[k].id, ra[k].side, (long long)rb[k].id, rb[k].side);
          break;
        }
        if (ra[k].ndf != rb[k].ndf) {
          DIFF(r, "%s %lld: entry %lld has %d distribution factors in A, %d in B", what,
               (long long)sa[i].id, (long long)ra[k].id, ra[k].ndf, rb[k].ndf);
          break;
        }
        for (int d = 0; d < ra[k].ndf; d++)
          if (!close_enough(ra[k].df[d], rb[k].df[d], o))
            DIFF(r, "%s %lld: entry %lld: distribution factor A %.17g B %.17g", what,
                 (long long)sa[i].id, (long long)ra[k].id, ra[k].df[d], rb[k].df[d]);
      }
      free(ra);
      free(rb);
    }
    for (int k = 0; k < nb; k++) {
      int found = 0;
      for (int i = 0; i < na; i++) found |= sa[i].id == sb[k].id;
      const mxn_piece_set_t *pb = side ? &b->pc->side_sets[k] : &b->pc->node_sets[k];
      if (found) continue;
      if (o->common_only)
        say(r, "skipped: %s %lld (only in B)", what, (long long)sb[k].id);
      else if (pb->n > 0)
        DIFF(r, "%s %lld: only in B", what, (long long)sb[k].id);
    }
  }
  return MXN_OK;
}

/* Variable v of A matched to B by name; -1 if B lacks it. */
static int var_match(int na, char (*a)[MXN_NAME_LEN], int nb, char (*b)[MXN_NAME_LEN], int v) {
  (void)na;
  for (int k = 0; k < nb; k++)
    if (strcmp(a[v], b[k]) == 0) return k;
  return -1;
}

static void check_var_names(const char *what, int na, char (*a)[MXN_NAME_LEN], int nb,
                            char (*b)[MXN_NAME_LEN], const mxn_compare_opts_t *o, report_t *r) {
  for (int v = 0; v < na; v++)
    if (var_match(na, a, nb, b, v) < 0) {
      if (o->common_only)
        say(r, "skipped: %s variable '%s' (only in A)", what, a[v]);
      else
        DIFF(r, "%s variable '%s': only in A", what, a[v]);
    }
  for (int v = 0; v < nb; v++)
    if (var_match(nb, b, na, a, v) < 0) {
      if (o->common_only)
        say(r, "skipped: %s variable '%s' (only in B)", what, b[v]);
      else
        DIFF(r, "%s variable '%s': only in B", what, b[v]);
    }
}

static int compare_fields(side_t *a, side_t *b, const int *pair, idk_t **oa, idk_t **ob,
                          const mxn_compare_opts_t *o, report_t *r) {
  const mxn_structure_t *sa = a->s, *sb = b->s;
  check_var_names("nodal", sa->num_node_vars, sa->node_var_names, sb->num_node_vars,
                  sb->node_var_names, o, r);
  check_var_names("element", sa->num_elem_vars, sa->elem_var_names, sb->num_elem_vars,
                  sb->elem_var_names, o, r);
  check_var_names("global", sa->num_global_vars, sa->global_var_names, sb->num_global_vars,
                  sb->global_var_names, o, r);
  if (sa->num_times != sb->num_times) {
    DIFF(r, "time steps: A %d, B %d", sa->num_times, sb->num_times);
    return MXN_OK;
  }
  int same_nodes = a->pc->num_nodes == b->pc->num_nodes;
  for (int t = 0; t < sa->num_times; t++) {
    if (!close_enough(sa->times[t], sb->times[t], o))
      DIFF(r, "time step %d: A %.17g B %.17g", t + 1, sa->times[t], sb->times[t]);
    int st = mxn_piece_read_step(a->ds, a->pc, t);
    if (st == MXN_OK) st = mxn_piece_read_step(b->ds, b->pc, t);
    if (st != MXN_OK) return st;
    for (int v = 0; v < sa->num_global_vars; v++) {
      int w = var_match(sa->num_global_vars, sa->global_var_names, sb->num_global_vars,
                        sb->global_var_names, v);
      if (w >= 0 && !close_enough(a->pc->global_vars[v], b->pc->global_vars[w], o))
        DIFF(r, "step %d: global '%s' A %.17g B %.17g", t + 1, sa->global_var_names[v],
             a->pc->global_vars[v], b->pc->global_vars[w]);
    }
    for (int v = 0; v < sa->num_node_vars && same_nodes; v++) {
      int w = var_match(sa->num_node_vars, sa->node_var_names, sb->num_node_vars,
                        sb->node_var_names, v);
      if (w < 0) continue;
      for (int64_t i = 0; i < a->pc->num_nodes; i++)
        if (!close_enough(a->pc->node_vars[v][i], b->pc->node_vars[w][i], o))
          DIFF(r, "step %d: nodal '%s' at node %lld: A %.17g B %.17g", t + 1,
               sa->node_var_names[v], (long long)(a->pc->node_ids[i] - a->node_shift),
               a->pc->node_vars[v][i], b->pc->node_vars[w][i]);
    }
    for (int v = 0; v < sa->num_elem_vars; v++) {
      int w = var_match(sa->num_elem_vars, sa->elem_var_names, sb->num_elem_vars,
                        sb->elem_var_names, v);
      if (w < 0) continue;
      for (int i = 0; i < sa->num_blocks; i++) {
        int j = pair[i];
        if (j < 0 || a->pc->blocks[i].num_elements != b->pc->blocks[j].num_elements) continue;
        const double *va = a->pc->blocks[i].elem_vars[v], *vb = b->pc->blocks[j].elem_vars[w];
        if (!va && !vb) continue;
        if (!va || !vb) {
          if (a->pc->blocks[i].num_elements > 0)
            DIFF(r, "block %lld: element '%s' defined in only one of A and B",
                 (long long)sa->blocks[i].id, sa->elem_var_names[v]);
          continue;
        }
        for (int64_t k = 0; k < a->pc->blocks[i].num_elements; k++)
          if (!close_enough(va[oa[i][k].k], vb[ob[j][k].k], o))
            DIFF(r, "step %d: element '%s' at element %lld: A %.17g B %.17g", t + 1,
                 sa->elem_var_names[v], (long long)oa[i][k].id, va[oa[i][k].k], vb[ob[j][k].k]);
      }
    }
  }
  return MXN_OK;
}

static int64_t min_elem_id(const side_t *x) {
  int64_t m = INT64_MAX;
  for (int b = 0; b < x->pc->num_blocks; b++)
    for (int64_t k = 0; k < x->pc->blocks[b].num_elements; k++)
      if (elem_id(x, b, k) < m) m = elem_id(x, b, k);
  return m == INT64_MAX ? 0 : m;
}

int mxn_compare(const char *pa, const char *pb, const mxn_compare_opts_t *opts, char **report,
                mxn_error_t *err) {
  if (report) *report = NULL;
  if (!pa || !pb) return mxn_error_set(err, MXN_ERR_ARG, "compare: two datasets needed");
  mxn_compare_opts_t defaults;
  memset(&defaults, 0, sizeof defaults);
  if (!opts) opts = &defaults;
  report_t r;
  memset(&r, 0, sizeof r);
  r.max = opts->max_report > 0 ? opts->max_report : 20;
  side_t a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.path = pa;
  b.path = pb;
  int *pair = NULL;
  idk_t **oa = NULL, **ob = NULL;
  int status = load(&a, err);
  if (status == MXN_OK) status = load(&b, err);
  if (status != MXN_OK) goto done;
  if (opts->ignore_ids_offset) {
    /* Compare ids relative to each side's smallest one. */
    int64_t ma = min_elem_id(&a), mb = min_elem_id(&b);
    a.id_shift = ma;
    b.id_shift = mb;
    a.node_shift = a.pc->num_nodes ? a.pc->node_ids[0] : 0;
    b.node_shift = b.pc->num_nodes ? b.pc->node_ids[0] : 0;
  }
  MXN_ALLOC(pair, a.s->num_blocks);
  MXN_ALLOC(oa, a.s->num_blocks);
  MXN_ALLOC(ob, b.s->num_blocks);
  for (int i = 0; i < a.s->num_blocks; i++) MXN_CHECK(block_order(&a, i, &oa[i]));
  for (int j = 0; j < b.s->num_blocks; j++) MXN_CHECK(block_order(&b, j, &ob[j]));
  MXN_CHECK(pair_blocks(&a, &b, opts, pair, &r));
  compare_mesh(&a, &b, pair, oa, ob, opts, &r);
  MXN_CHECK(compare_sets(&a, &b, opts, &r));
  status = compare_fields(&a, &b, pair, oa, ob, opts, &r);
  if (status != MXN_OK) {
    mxn_error_set(err, status, "%s%s", mxn_dataset_errmsg(a.ds), mxn_dataset_errmsg(b.ds));
    goto done;
  }
  if (r.count > r.listed) say(&r, "... %d more differences", r.count - r.listed);
  if (r.count > 0) {
    say(&r, "%d difference(s) between %s and %s", r.count, pa, pb);
    status = mxn_error_set(err, MXN_ERR_DIFFERENT, "%d difference(s) between %s and %s", r.count,
                           pa, pb);
  }
done:
  if (oa)
    for (int i = 0; i < a.s->num_blocks; i++) free(oa[i]);
  if (ob)
    for (int j = 0; j < b.s->num_blocks; j++) free(ob[j]);
  free(oa);
  free(ob);
  free(pair);
  mxn_piece_destroy(&a.pc);
  mxn_piece_destroy(&b.pc);
  mxn_dataset_destroy(&a.ds);
  mxn_dataset_destroy(&b.ds);
  if (report)
    *report = r.buf;
  else
    free(r.buf);
  return status;
}
