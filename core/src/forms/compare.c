/* Comparison of two datasets by global ids (mxn diff). */
#include "structure/structure.h"

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
    char *b = mxn__realloc(r->buf, cap);
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

/* Sort order of a block's entries by (possibly original) id. */
typedef struct {
  int64_t id, k;
} idk_t;

/* A set entry in global terms: the id of its node/element/edge/face, its
 * side or orientation, its distribution factors and its index in the
 * piece set (for the set's variables). */
typedef struct {
  int64_t id;
  int extra;
  int ndf;
  const double *df;
  int64_t i;
} rec_t;

typedef struct {
  const char *path;
  mxn_dataset_t *ds;
  const mxn_structure_t *s;
  mxn_piece_t *pc;
  int64_t id_shift; /* subtracted from every element id */
  int64_t node_shift;
  /* Edge and face ids by piece-local index (concatenated blocks). */
  mxn_gid_t *ent_ids[MXN__NBK];
  /* Per block kind and block: entries sorted by id. */
  idk_t **order[MXN__NBK];
  /* Per set kind and set: records sorted by (id, extra). */
  rec_t **recs[MXN__NSK];
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

static void side_free(side_t *x) {
  for (int k = 0; k < MXN__NBK; k++) {
    free(x->ent_ids[k]);
    if (x->order[k] && x->s) {
      int nb;
      mxn__sblocks(x->s, k, &nb);
      for (int b = 0; b < nb; b++) free(x->order[k][b]);
    }
    free(x->order[k]);
  }
  for (int sk = 0; sk < MXN__NSK; sk++) {
    if (x->recs[sk] && x->s) {
      int n;
      mxn__ssets(x->s, sk, &n);
      for (int q = 0; q < n; q++) free(x->recs[sk][q]);
    }
    free(x->recs[sk]);
  }
  mxn_piece_destroy(&x->pc);
  mxn_dataset_destroy(&x->ds);
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

/* Id of entry k of block b of kind `kind` (elements: original id where
 * nem_spread recorded one), shifted. */
static int64_t entry_id(const side_t *x, int kind, int b, int64_t k) {
  int nb;
  const mxn_piece_block_t *pb = &mxn__pblocks(x->pc, kind, &nb)[b];
  if (kind != MXN__ELEM) return pb->elem_ids[k];
  return (pb->orig_ids ? pb->orig_ids[k] : pb->elem_ids[k]) - x->id_shift;
}

static int cmp_idk(const void *p, const void *q) {
  const idk_t *x = p, *y = q;
  return (x->id > y->id) - (x->id < y->id);
}

static int cmp_rec(const void *p, const void *q) {
  const rec_t *x = p, *y = q;
  if (x->id != y->id) return (x->id > y->id) - (x->id < y->id);
  return (x->extra > y->extra) - (x->extra < y->extra);
}

/* Orders, flattened edge/face ids and sorted set records of one side. */
static int index_side(side_t *x) {
  int status = MXN_OK;
  const mxn_piece_t *pc = x->pc;
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    const mxn_piece_block_t *pbs = mxn__pblocks(pc, k, &nb);
    int64_t total = 0;
    for (int b = 0; b < nb; b++) total += pbs[b].num_elements;
    MXN_ALLOC(x->ent_ids[k], total);
    MXN_ALLOC(x->order[k], nb > 0 ? nb : 0);
    int64_t at = 0;
    for (int b = 0; b < nb; b++) {
      int64_t n = pbs[b].num_elements;
      MXN_ALLOC(x->order[k][b], n);
      for (int64_t i = 0; i < n; i++) {
        x->order[k][b][i] = (idk_t){entry_id(x, k, b, i), i};
        x->ent_ids[k][at++] = entry_id(x, k, b, i);
      }
      qsort(x->order[k][b], (size_t)n, sizeof **x->order[k], cmp_idk);
    }
  }
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int n;
    const mxn_piece_set_t *ps = mxn__psets(pc, sk, &n);
    MXN_ALLOC(x->recs[sk], n);
    for (int q = 0; q < n; q++) {
      MXN_ALLOC(x->recs[sk][q], ps[q].n);
      for (int64_t i = 0; i < ps[q].n; i++) {
        rec_t *rc = &x->recs[sk][q][i];
        int64_t e = ps[q].entries[i];
        rc->i = i;
        if (sk == MXN__NSET)
          rc->id = pc->node_ids[e] - x->node_shift;
        else if (sk == MXN__ESET)
          rc->id = x->ent_ids[MXN__EDGE][e];
        else if (sk == MXN__FSET)
          rc->id = x->ent_ids[MXN__FACE][e];
        else
          rc->id = x->ent_ids[MXN__ELEM][e];
        rc->extra = ps[q].sides ? ps[q].sides[i] : ps[q].orient ? ps[q].orient[i] : 0;
        if (!ps[q].df) {
          rc->ndf = 0;
          rc->df = NULL;
        } else if (ps[q].df_offsets) {
          rc->ndf = (int)(ps[q].df_offsets[i + 1] - ps[q].df_offsets[i]);
          rc->df = ps[q].df + ps[q].df_offsets[i];
        } else {
          rc->ndf = 1;
          rc->df = ps[q].df + i;
        }
      }
      qsort(x->recs[sk][q], (size_t)ps[q].n, sizeof *x->recs[sk][q], cmp_rec);
    }
  }
done:
  return status;
}

/* pair[ba] = bb or -1, for the blocks of kind k. */
static int pair_blocks(side_t *a, side_t *b, int k, const mxn_compare_opts_t *o, int *pair,
                       report_t *r) {
  int na, nb;
  const mxn_block_info_t *sa = mxn__sblocks(a->s, k, &na), *sb = mxn__sblocks(b->s, k, &nb);
  const mxn_piece_block_t *pa = mxn__pblocks(a->pc, k, &na), *pb = mxn__pblocks(b->pc, k, &nb);
  const char *what = mxn__blk_what[k];
  for (int i = 0; i < na; i++) pair[i] = -1;
  int *used = mxn__calloc((size_t)nb + 1, sizeof *used);
  if (!used) return MXN_ERR_NOMEM;
  for (int i = 0; i < na; i++) {
    if (o->match_blocks_by_type && pa[i].num_elements == 0) continue;
    char ka[16], kb[16];
    type_key(&sa[i], ka);
    for (int j = 0; j < nb; j++) {
      if (used[j]) continue;
      int match;
      if (o->match_blocks_by_type) {
        type_key(&sb[j], kb);
        match = pb[j].num_elements > 0 && strcmp(ka, kb) == 0;
      } else {
        match = sa[i].id == sb[j].id;
      }
      if (match) {
        pair[i] = j;
        used[j] = 1;
        break;
      }
    }
    if (pair[i] < 0 && pa[i].num_elements > 0)
      DIFF(r, "%s block %lld (%s, %lld entries) of A has no counterpart in B", what,
           (long long)sa[i].id, sa[i].type, (long long)pa[i].num_elements);
  }
  for (int j = 0; j < nb; j++)
    if (!used[j] && pb[j].num_elements > 0)
      DIFF(r, "%s block %lld (%s, %lld entries) of B has no counterpart in A", what,
           (long long)sb[j].id, sb[j].type, (long long)pb[j].num_elements);
  free(used);
  return MXN_OK;
}

static int compare_nodes(side_t *a, side_t *b, const mxn_compare_opts_t *o, report_t *r) {
  const mxn_piece_t *A = a->pc, *B = b->pc;
  if (a->s->num_dim != b->s->num_dim)
    DIFF(r, "dimension: A %d, B %d", a->s->num_dim, b->s->num_dim);
  if (A->num_nodes != B->num_nodes)
    DIFF(r, "node count: A %lld, B %lld", (long long)A->num_nodes, (long long)B->num_nodes);
  if (A->num_elements != B->num_elements)
    DIFF(r, "element count: A %lld, B %lld", (long long)A->num_elements,
         (long long)B->num_elements);
  if (A->num_edges != B->num_edges)
    DIFF(r, "edge count: A %lld, B %lld", (long long)A->num_edges, (long long)B->num_edges);
  if (A->num_faces != B->num_faces)
    DIFF(r, "face count: A %lld, B %lld", (long long)A->num_faces, (long long)B->num_faces);
  int64_t n = A->num_nodes < B->num_nodes ? A->num_nodes : B->num_nodes;
  int dim = a->s->num_dim < b->s->num_dim ? a->s->num_dim : b->s->num_dim;
  for (int64_t i = 0; i < n; i++) {
    int64_t ia = A->node_ids[i] - a->node_shift, ib = B->node_ids[i] - b->node_shift;
    if (ia != ib) {
      DIFF(r, "node ids differ: A's node #%lld is %lld, B's is %lld", (long long)i,
           (long long)ia, (long long)ib);
      return 0; /* everything keyed on nodes would differ too */
    }
    for (int d = 0; d < dim; d++)
      if (!close_enough(A->coord[d][i], B->coord[d][i], o))
        DIFF(r, "node %lld: coordinate %c A %.17g B %.17g", (long long)ia, "xyz"[d],
             A->coord[d][i], B->coord[d][i]);
  }
  return A->num_nodes == B->num_nodes;
}

/* Blocks of kind k: entry ids, connectivity as node ids (elements also as
 * edge and face ids), attributes. */
static void compare_blocks(side_t *a, side_t *b, int k, const int *pair,
                           const mxn_compare_opts_t *o, report_t *r) {
  int na, nb;
  const mxn_block_info_t *sa = mxn__sblocks(a->s, k, &na), *sb = mxn__sblocks(b->s, k, &nb);
  const mxn_piece_block_t *A = mxn__pblocks(a->pc, k, &na), *B = mxn__pblocks(b->pc, k, &nb);
  const char *what = mxn__blk_what[k];
  for (int i = 0; i < na; i++) {
    int j = pair[i];
    if (j < 0) continue;
    const mxn_piece_block_t *pa = &A[i], *pb = &B[j];
    const mxn_block_info_t *ba = &sa[i], *bb = &sb[j];
    const idk_t *oa = a->order[k][i], *ob = b->order[k][j];
    if (pa->num_elements != pb->num_elements) {
      DIFF(r, "%s block %lld: A has %lld entries, B's block %lld has %lld", what,
           (long long)ba->id, (long long)pa->num_elements, (long long)bb->id,
           (long long)pb->num_elements);
      continue;
    }
    if (pa->num_elements == 0) continue;
    if (ba->poly != bb->poly) {
      DIFF(r, "%s block %lld: type %s in A, %s in B", what, (long long)ba->id, ba->type, bb->type);
      continue;
    }
    if (ba->nodes_per_elem != bb->nodes_per_elem || ba->edges_per_elem != bb->edges_per_elem ||
        ba->faces_per_elem != bb->faces_per_elem) {
      DIFF(r, "%s block %lld: %d nodes, %d edges, %d faces per entry in A, %d, %d, %d in B",
           what, (long long)ba->id, ba->nodes_per_elem, ba->edges_per_elem, ba->faces_per_elem,
           bb->nodes_per_elem, bb->edges_per_elem, bb->faces_per_elem);
      continue;
    }
    /* Node, edge and face references, each compared as global ids. */
    const int width[3] = {ba->nodes_per_elem, ba->edges_per_elem, ba->faces_per_elem};
    /* Poly blocks: per-entry lists by offsets (the derived nodes of a
     * polyhedron follow from its faces, which are compared). */
    const int64_t *offa[3] = {ba->poly == MXN_POLY_NSIDED ? pa->conn_off : NULL, NULL,
                              ba->poly == MXN_POLY_NFACED ? pa->face_off : NULL};
    const int64_t *offb[3] = {bb->poly == MXN_POLY_NSIDED ? pb->conn_off : NULL, NULL,
                              bb->poly == MXN_POLY_NFACED ? pb->face_off : NULL};
    const int64_t *ca[3] = {pa->conn, pa->edge_conn, pa->face_conn};
    const int64_t *cb[3] = {pb->conn, pb->edge_conn, pb->face_conn};
    const char *refw[3] = {"node", "edge", "face"};
    for (int64_t e = 0; e < pa->num_elements; e++) {
      int64_t ka = oa[e].k, kb = ob[e].k;
      if (oa[e].id != ob[e].id) {
        DIFF(r, "%s block %lld: %s ids differ (A %lld, B %lld)", what, (long long)ba->id, what,
             (long long)oa[e].id, (long long)ob[e].id);
        break;
      }
      for (int t = 0; t < 3; t++) {
        if (offa[t] && offb[t]) {
          int64_t la = offa[t][ka + 1] - offa[t][ka], lb = offb[t][kb + 1] - offb[t][kb];
          if (la != lb) {
            DIFF(r, "%s %lld: %lld %ss in A, %lld in B", what, (long long)oa[e].id,
                 (long long)la, refw[t], (long long)lb);
            continue;
          }
          for (int64_t c = 0; c < la; c++) {
            int64_t xa = ca[t][offa[t][ka] + c], xb = cb[t][offb[t][kb] + c];
            int64_t ia = t == 0 ? a->pc->node_ids[xa] - a->node_shift : a->ent_ids[t][xa];
            int64_t ib = t == 0 ? b->pc->node_ids[xb] - b->node_shift : b->ent_ids[t][xb];
            if (ia != ib) {
              DIFF(r, "%s %lld: %s %lld is %lld in A, %lld in B", what, (long long)oa[e].id,
                   refw[t], (long long)c + 1, (long long)ia, (long long)ib);
              break;
            }
          }
          continue;
        }
        if (width[t] == 0) continue;
        if (!ca[t] || !cb[t]) {
          if (ca[t] != cb[t])
            DIFF(r, "%s %lld: %s connectivity in only one of A and B", what,
                 (long long)oa[e].id, refw[t]);
          continue;
        }
        for (int c = 0; c < width[t]; c++) {
          int64_t xa = ca[t][ka * width[t] + c], xb = cb[t][kb * width[t] + c];
          int64_t ia = t == 0 ? a->pc->node_ids[xa] - a->node_shift : a->ent_ids[t][xa];
          int64_t ib = t == 0 ? b->pc->node_ids[xb] - b->node_shift : b->ent_ids[t][xb];
          if (ia != ib) {
            DIFF(r, "%s %lld: %s %d is %lld in A, %lld in B", what, (long long)oa[e].id,
                 refw[t], c + 1, (long long)ia, (long long)ib);
            break;
          }
        }
      }
      if (ba->num_attr == bb->num_attr && pa->attr && pb->attr)
        for (int t = 0; t < ba->num_attr; t++)
          if (!close_enough(pa->attr[ka * ba->num_attr + t], pb->attr[kb * ba->num_attr + t], o))
            DIFF(r, "%s %lld: attribute %d A %.17g B %.17g", what, (long long)oa[e].id, t + 1,
                 pa->attr[ka * ba->num_attr + t], pb->attr[kb * ba->num_attr + t]);
    }
    if (ba->num_attr != bb->num_attr)
      DIFF(r, "%s block %lld: %d attributes in A, %d in B", what, (long long)ba->id,
           ba->num_attr, bb->num_attr);
  }
}

/* Set q of kind sk of B matching A's set of id `id`, or -1. */
static int find_set(const mxn_structure_t *s, int sk, int64_t id) {
  int n;
  const mxn_set_info_t *si = mxn__ssets(s, sk, &n);
  for (int q = 0; q < n; q++)
    if (si[q].id == id) return q;
  return -1;
}

static void compare_sets(side_t *a, side_t *b, const mxn_compare_opts_t *o, report_t *r) {
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int na, nb;
    const mxn_set_info_t *sa = mxn__ssets(a->s, sk, &na), *sb = mxn__ssets(b->s, sk, &nb);
    const mxn_piece_set_t *Pa = mxn__psets(a->pc, sk, &na), *Pb = mxn__psets(b->pc, sk, &nb);
    const char *what = mxn__set_what[sk];
    for (int i = 0; i < na; i++) {
      int j = find_set(b->s, sk, sa[i].id);
      const mxn_piece_set_t *pa = &Pa[i];
      if (j < 0) {
        if (o->common_only)
          say(r, "skipped: %s %lld (only in A)", what, (long long)sa[i].id);
        else if (pa->n > 0)
          DIFF(r, "%s %lld: only in A", what, (long long)sa[i].id);
        continue;
      }
      const mxn_piece_set_t *pb = &Pb[j];
      if (pa->n != pb->n) {
        DIFF(r, "%s %lld: %lld entries in A, %lld in B", what, (long long)sa[i].id,
             (long long)pa->n, (long long)pb->n);
        continue;
      }
      const rec_t *ra = a->recs[sk][i], *rb = b->recs[sk][j];
      for (int64_t k = 0; k < pa->n; k++) {
        if (ra[k].id != rb[k].id || ra[k].extra != rb[k].extra) {
          DIFF(r, "%s %lld: entry (%lld,%d) in A, (%lld,%d) in B", what, (long long)sa[i].id,
               (long long)ra[k].id, ra[k].extra, (long long)rb[k].id, rb[k].extra);
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
    }
    for (int k = 0; k < nb; k++) {
      if (find_set(a->s, sk, sb[k].id) >= 0) continue;
      if (o->common_only)
        say(r, "skipped: %s %lld (only in B)", what, (long long)sb[k].id);
      else if (Pb[k].n > 0)
        DIFF(r, "%s %lld: only in B", what, (long long)sb[k].id);
    }
  }
}

/* Numbered maps nem_spread's join consumed: the ids came from them. */
static int map_is_ids(const side_t *x, int e, const mxn_map_info_t *m) {
  return e == MXN__ELEM && x->s->has_original_elem_ids &&
         strcmp(m->name, "original_global_id_map") == 0;
}

/* Numbered maps, matched by name, compared per entity id. */
static void compare_maps(side_t *a, side_t *b, const int *const pair[MXN__NBK], int same_nodes,
                         const mxn_compare_opts_t *o, report_t *r) {
  for (int e = 0; e < MXN__NEK; e++) {
    int na, nb;
    const mxn_map_info_t *ma = mxn__smaps(a->s, e, &na), *mb = mxn__smaps(b->s, e, &nb);
    const char *what = mxn__ent_what[e];
    for (int i = 0; i < na; i++) {
      if (map_is_ids(a, e, &ma[i])) continue;
      int j = -1;
      for (int k = 0; k < nb && j < 0; k++)
        if (!map_is_ids(b, e, &mb[k]) && strcmp(ma[i].name, mb[k].name) == 0) j = k;
      if (j < 0) {
        if (o->common_only)
          say(r, "skipped: %s map '%s' (only in A)", what, ma[i].name);
        else
          DIFF(r, "%s map '%s': only in A", what, ma[i].name);
        continue;
      }
      if (e == MXN__NODE) {
        if (!same_nodes) continue;
        for (int64_t v = 0; v < a->pc->num_nodes; v++)
          if (a->pc->node_maps[i][v] != b->pc->node_maps[j][v]) {
            DIFF(r, "node map '%s' at node %lld: A %lld B %lld", ma[i].name,
                 (long long)(a->pc->node_ids[v] - a->node_shift),
                 (long long)a->pc->node_maps[i][v], (long long)b->pc->node_maps[j][v]);
            break;
          }
        continue;
      }
      int nba, nbb;
      const mxn_piece_block_t *A = mxn__pblocks(a->pc, e, &nba), *B = mxn__pblocks(b->pc, e, &nbb);
      for (int x = 0; x < nba; x++) {
        int y = pair[e][x];
        if (y < 0 || A[x].num_elements != B[y].num_elements) continue;
        const idk_t *oa = a->order[e][x], *ob = b->order[e][y];
        for (int64_t k = 0; k < A[x].num_elements; k++)
          if (A[x].maps[i][oa[k].k] != B[y].maps[j][ob[k].k]) {
            DIFF(r, "%s map '%s' at %s %lld: A %lld B %lld", what, ma[i].name, what,
                 (long long)oa[k].id, (long long)A[x].maps[i][oa[k].k],
                 (long long)B[y].maps[j][ob[k].k]);
            break;
          }
      }
    }
    for (int k = 0; k < nb; k++) {
      if (map_is_ids(b, e, &mb[k])) continue;
      int found = 0;
      for (int i = 0; i < na; i++)
        found |= !map_is_ids(a, e, &ma[i]) && strcmp(ma[i].name, mb[k].name) == 0;
      if (found) continue;
      if (o->common_only)
        say(r, "skipped: %s map '%s' (only in B)", what, mb[k].name);
      else
        DIFF(r, "%s map '%s': only in B", what, mb[k].name);
    }
  }
}

/* Variable v of A matched to B by name; -1 if B lacks it. */
static int var_match(char (*a)[MXN_NAME_LEN], int nb, char (*b)[MXN_NAME_LEN], int v) {
  for (int k = 0; k < nb; k++)
    if (strcmp(a[v], b[k]) == 0) return k;
  return -1;
}

static void check_var_names(const char *what, int na, char (*a)[MXN_NAME_LEN], int nb,
                            char (*b)[MXN_NAME_LEN], const mxn_compare_opts_t *o, report_t *r) {
  for (int v = 0; v < na; v++)
    if (var_match(a, nb, b, v) < 0) {
      if (o->common_only)
        say(r, "skipped: %s variable '%s' (only in A)", what, a[v]);
      else
        DIFF(r, "%s variable '%s': only in A", what, a[v]);
    }
  for (int v = 0; v < nb; v++)
    if (var_match(b, na, a, v) < 0) {
      if (o->common_only)
        say(r, "skipped: %s variable '%s' (only in B)", what, b[v]);
      else
        DIFF(r, "%s variable '%s': only in B", what, b[v]);
    }
}

/* Values of one variable on two matched objects (blocks or sets) of n
 * entries, in the given orders. NULL means "not defined there": the truth
 * tables themselves are not compared, only whether values exist. */
static void compare_values(const char *obj, int64_t id, const char *name, int step, int64_t n,
                           const double *va, const double *vb, const idk_t *oa,
                           const idk_t *ob, const rec_t *ra, const rec_t *rb,
                           const char *ent, const mxn_compare_opts_t *o, report_t *r) {
  if (!va && !vb) return;
  if (!va || !vb) {
    if (n > 0) DIFF(r, "%s %lld: variable '%s' defined in only one of A and B", obj, (long long)id,
                    name);
    return;
  }
  for (int64_t k = 0; k < n; k++) {
    int64_t ia = oa ? oa[k].k : ra[k].i, ib = ob ? ob[k].k : rb[k].i;
    int64_t eid = oa ? oa[k].id : ra[k].id;
    if (!close_enough(va[ia], vb[ib], o))
      DIFF(r, "step %d: %s %lld: '%s' at %s %lld: A %.17g B %.17g", step, obj, (long long)id,
           name, ent, (long long)eid, va[ia], vb[ib]);
  }
}

static int compare_fields(side_t *a, side_t *b, const int *const pair[MXN__NBK], int same_nodes,
                          const mxn_compare_opts_t *o, report_t *r) {
  const mxn_structure_t *sa = a->s, *sb = b->s;
  check_var_names("nodal", sa->num_node_vars, sa->node_var_names, sb->num_node_vars,
                  sb->node_var_names, o, r);
  check_var_names("global", sa->num_global_vars, sa->global_var_names, sb->num_global_vars,
                  sb->global_var_names, o, r);
  for (int k = 0; k < MXN__NBK; k++) {
    mxn_var_list_t va = mxn__bvars(sa, k), vb = mxn__bvars(sb, k);
    check_var_names(mxn__blk_what[k], va.num, va.names, vb.num, vb.names, o, r);
  }
  for (int sk = 0; sk < MXN__NSK; sk++) {
    const mxn_var_list_t *va = mxn__svars(sa, sk), *vb = mxn__svars(sb, sk);
    check_var_names(mxn__set_what[sk], va->num, va->names, vb->num, vb->names, o, r);
  }
  if (sa->num_times != sb->num_times) {
    DIFF(r, "time steps: A %d, B %d", sa->num_times, sb->num_times);
    return MXN_OK;
  }
  for (int t = 0; t < sa->num_times; t++) {
    if (!close_enough(sa->times[t], sb->times[t], o))
      DIFF(r, "time step %d: A %.17g B %.17g", t + 1, sa->times[t], sb->times[t]);
    int st = mxn_piece_read_step(a->ds, a->pc, t);
    if (st == MXN_OK) st = mxn_piece_read_step(b->ds, b->pc, t);
    if (st != MXN_OK) return st;
    for (int v = 0; v < sa->num_global_vars; v++) {
      int w = var_match(sa->global_var_names, sb->num_global_vars, sb->global_var_names, v);
      if (w >= 0 && !close_enough(a->pc->global_vars[v], b->pc->global_vars[w], o))
        DIFF(r, "step %d: global '%s' A %.17g B %.17g", t + 1, sa->global_var_names[v],
             a->pc->global_vars[v], b->pc->global_vars[w]);
    }
    for (int v = 0; v < sa->num_node_vars && same_nodes; v++) {
      int w = var_match(sa->node_var_names, sb->num_node_vars, sb->node_var_names, v);
      if (w < 0) continue;
      for (int64_t i = 0; i < a->pc->num_nodes; i++)
        if (!close_enough(a->pc->node_vars[v][i], b->pc->node_vars[w][i], o))
          DIFF(r, "step %d: nodal '%s' at node %lld: A %.17g B %.17g", t + 1,
               sa->node_var_names[v], (long long)(a->pc->node_ids[i] - a->node_shift),
               a->pc->node_vars[v][i], b->pc->node_vars[w][i]);
    }
    for (int k = 0; k < MXN__NBK; k++) {
      mxn_var_list_t la = mxn__bvars(sa, k), lb = mxn__bvars(sb, k);
      int na, nb;
      const mxn_block_info_t *ba = mxn__sblocks(sa, k, &na);
      const mxn_piece_block_t *A = mxn__pblocks(a->pc, k, &na), *B = mxn__pblocks(b->pc, k, &nb);
      char obj[32];
      snprintf(obj, sizeof obj, "%s block", mxn__blk_what[k]);
      for (int v = 0; v < la.num; v++) {
        int w = var_match(la.names, lb.num, lb.names, v);
        if (w < 0) continue;
        for (int i = 0; i < na; i++) {
          int j = pair[k][i];
          if (j < 0 || A[i].num_elements != B[j].num_elements) continue;
          compare_values(obj, ba[i].id, la.names[v], t + 1, A[i].num_elements,
                         A[i].elem_vars[v], B[j].elem_vars[w], a->order[k][i],
                         b->order[k][j], NULL, NULL, mxn__blk_what[k], o, r);
        }
      }
    }
    for (int sk = 0; sk < MXN__NSK; sk++) {
      const mxn_var_list_t *la = mxn__svars(sa, sk), *lb = mxn__svars(sb, sk);
      int na, nb;
      const mxn_set_info_t *si = mxn__ssets(sa, sk, &na);
      const mxn_piece_set_t *A = mxn__psets(a->pc, sk, &na), *B = mxn__psets(b->pc, sk, &nb);
      for (int v = 0; v < la->num; v++) {
        int w = var_match(la->names, lb->num, lb->names, v);
        if (w < 0) continue;
        for (int i = 0; i < na; i++) {
          int j = find_set(sb, sk, si[i].id);
          if (j < 0 || A[i].n != B[j].n) continue;
          compare_values(mxn__set_what[sk], si[i].id, la->names[v], t + 1, A[i].n,
                         A[i].vars[v], B[j].vars[w], NULL, NULL, a->recs[sk][i],
                         b->recs[sk][j], "entry", o, r);
        }
      }
    }
  }
  return MXN_OK;
}

static int64_t min_elem_id(const side_t *x) {
  int64_t m = INT64_MAX;
  for (int b = 0; b < x->pc->num_blocks; b++)
    for (int64_t k = 0; k < x->pc->blocks[b].num_elements; k++)
      if (entry_id(x, MXN__ELEM, b, k) < m) m = entry_id(x, MXN__ELEM, b, k);
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
  int *pair[MXN__NBK] = {NULL, NULL, NULL};
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
  MXN_CHECK(index_side(&a));
  MXN_CHECK(index_side(&b));
  for (int k = 0; k < MXN__NBK; k++) {
    int n;
    mxn__sblocks(a.s, k, &n);
    MXN_ALLOC(pair[k], n);
    MXN_CHECK(pair_blocks(&a, &b, k, opts, pair[k], &r));
  }
  int same_nodes = compare_nodes(&a, &b, opts, &r);
  for (int k = 0; k < MXN__NBK; k++) compare_blocks(&a, &b, k, pair[k], opts, &r);
  compare_sets(&a, &b, opts, &r);
  compare_maps(&a, &b, (const int *const *)pair, same_nodes, opts, &r);
  status = compare_fields(&a, &b, (const int *const *)pair, same_nodes, opts, &r);
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
  for (int k = 0; k < MXN__NBK; k++) free(pair[k]);
  side_free(&a);
  side_free(&b);
  if (report)
    *report = r.buf;
  else
    free(r.buf);
  return status;
}
