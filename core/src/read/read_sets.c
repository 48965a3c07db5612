/* Extraction of a piece's sets (node, side, edge, face and element
 * sets): their entries read whole from every member holding part of the
 * piece, de-duplicated, with distribution factors; and the set variables
 * of a step (read.c drives both). */
#include "read/read.h"

#include <netcdf.h>
#include <stdio.h>

#include "read/plan.h"

/* One set entry gathered from some member, before de-duplication. */
typedef struct {
  int64_t entry;   /* piece-local node, element, edge or face */
  int extra;       /* side (side sets) or orientation (edge/face sets) */
  int file;        /* member it was read from */
  int64_t fpos;    /* its position in that member's copy of the set */
  int64_t df_at;   /* offset of its df in the gathered df array, -1 if none */
  int df_n;
} set_item_t;

static int cmp_item(const void *a, const void *b) {
  const set_item_t *x = a, *y = b;
  if (x->entry != y->entry) return (x->entry > y->entry) - (x->entry < y->entry);
  if (x->extra != y->extra) return (x->extra > y->extra) - (x->extra < y->extra);
  if (x->file != y->file) return (x->file > y->file) - (x->file < y->file);
  return (x->fpos > y->fpos) - (x->fpos < y->fpos);
}

/* Sort key of set_src_t entries: (file, fpos). */
typedef struct {
  int file;
  int64_t fpos, dst;
} src_item_t;

static int cmp_src(const void *a, const void *b) {
  const src_item_t *x = a, *y = b;
  if (x->file != y->file) return (x->file > y->file) - (x->file < y->file);
  return (x->fpos > y->fpos) - (x->fpos < y->fpos);
}

/* Nodes on side `side` (1-based) of entry `rel` of poly element block b
 * in member j, or -1 if there is no such side: a polygon's side k is its
 * edge from node k to node k+1 (2 nodes; in 2D only), a polyhedron's side
 * k is its k-th face (that face's node count, read from the member). */
typedef struct {
  int file, block;   /* whose face list is held, -1 none */
  long long *faces;  /* the block's whole facconn in that member */
} faces_cache_t;

static int poly_side_nodes(mxn_dataset_t *ds, faces_cache_t *fc, int j, int b, int64_t rel,
                           int side, int *out) {
  const mxn_structure_t *s = &ds->s;
  mxn__file_t *f = mxn__file(ds, j);
  int status = MXN_OK, varid, q = -1;
  if (!f) return ds->err.status;
  const int64_t *eo;
  *out = -1;
  MXN_CHECK(mxn__poly_offsets(ds, j, MXN__ELEM, b, &eo));
  if (side < 1 || side > eo[rel + 1] - eo[rel]) goto done;
  if (s->blocks[b].poly == MXN_POLY_NSIDED) {
    if (s->num_dim == 2) *out = 2;
    goto done;
  }
  const mxn__span_t *span = mxn__span_of(&f->kb[MXN__ELEM], b);
  if (span) q = span->q;
  char name[40];
  mxn__name_d(name, sizeof name, mxn__ex_blk[MXN__ELEM].fconn, q + 1);
  /* The block's face list, read whole once per member and block: side
   * sets name sides all over a block, one read each would be many. */
  if (fc->file != j || fc->block != b) {
    int64_t nref = eo[mxn__blk_count(&f->kb[MXN__ELEM], b)];
    free(fc->faces);
    fc->file = fc->block = -1;
    fc->faces = mxn__malloc((size_t)(nref > 0 ? nref : 1) * sizeof *fc->faces);
    if (!fc->faces) return MXN_ERR_NOMEM;
    if (!mxn__file_open(ds, j, &status)) goto done;
    size_t start = 0, count = (size_t)nref; /* exactly nref, whatever the variable holds */
    if (q < 0 || (varid = mxn__m_var(f, name)) < 0 ||
        (nref > 0 && mxn__m_get(f, varid, &start, &count, NULL, fc->faces, 'l') != 0)) {
      status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: element block %lld (NFACED): cannot read %s",
                          f->path, (long long)s->blocks[b].id, name);
      goto done;
    }
    fc->file = j;
    fc->block = b;
    ds->io.read_calls++;
    ds->io.bytes_read += nref * (int64_t)sizeof(int64_t);
  }
  long long face = fc->faces[eo[rel] + side - 1];
  if (face < 1 || face > f->kb[MXN__FACE].num) goto done;
  int fb = mxn__block_of(f, MXN__FACE, face - 1);
  if (fb < 0) goto done;
  if (s->face_blocks[fb].poly) {
    const int64_t *fo;
    MXN_CHECK(mxn__poly_offsets(ds, j, MXN__FACE, fb, &fo));
    int64_t fr = face - 1 - mxn__blk_start(&f->kb[MXN__FACE], fb);
    *out = (int)(fo[fr + 1] - fo[fr]);
  } else {
    *out = s->face_blocks[fb].nodes_per_elem;
  }
done:
  return status;
}

/* Distribution factors per entry of side set si in member f (member j):
 * one per node of each side, counted from the element's topology, into
 * cnt[0..n-1]; nd factors in all. */
static int side_df_counts(mxn_dataset_t *ds, faces_cache_t *fcache, const mxn__file_t *f, int j,
                          const mxn_set_info_t *si, int64_t n, int64_t nd, const int64_t *ent,
                          const int64_t *extra, int64_t nfile, int *cnt) {
  const mxn_structure_t *s = &ds->s;
  int status = MXN_OK;
  /* Nodes per side from the element's topology (Exodus 6.02's
   * ex_get_side_set_node_count is unsafe with the 64-bit API). */
  /* Sides of elements of a type MxN does not know (the block's
   * type is carried through unchanged) share the factors the
   * known sides leave, equally; anything else is an error. */
  int64_t known = 0, unknown = 0;
  for (int64_t i = 0; i < n; i++) {
    int b = (ent[i] >= 1 && ent[i] <= nfile) ? mxn__block_of(f, MXN__ELEM, ent[i] - 1) : -1;
    if (b >= 0 && s->blocks[b].poly) {
      MXN_CHECK(poly_side_nodes(ds, fcache, j, b,
                                ent[i] - 1 - mxn__blk_start(&f->kb[MXN__ELEM], b),
                                (int)extra[i], &cnt[i]));
    } else {
      cnt[i] = b < 0 ? -1
                     : mxn__side_node_count(s->blocks[b].type, s->blocks[b].nodes_per_elem,
                                            s->num_dim, (int)extra[i]);
    }
    if (cnt[i] >= 0) {
      known += cnt[i];
    } else if (b >= 0 && !s->blocks[b].poly && !mxn__known_type(s->blocks[b].type)) {
      unknown++;
    } else {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: side set %lld: entry %lld (element %lld, side %lld) "
                          "names an unknown element or side",
                          f->path, (long long)si->id, (long long)i + 1,
                          (long long)ent[i], (long long)extra[i]);
      goto done;
    }
  }
  if (unknown > 0) {
    int64_t left = nd - known;
    if (left < 0 || left % unknown != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: side set %lld: %lld sides on elements of unknown "
                          "types cannot share the %lld distribution factors the "
                          "other sides leave",
                          f->path, (long long)si->id, (long long)unknown,
                          (long long)left);
      goto done;
    }
    for (int64_t i = 0; i < n; i++)
      if (cnt[i] < 0) cnt[i] = left / unknown;
  }
done:
  return status;
}

/* Set q of kind sk in the piece from its gathered items (nitems, with
 * their distribution factors in dfs): sorted, the first copy of each
 * entry kept (lowest member first), and the sources of its variables by
 * member (the plan's set_src). */
static int set_from_items(mxn__plan_t *plan, int sk, int q, const mxn_var_list_t *vl,
                          set_item_t *items, int64_t nitems, const double *dfs,
                          mxn_piece_set_t *ps) {
  int status = MXN_OK, side = sk == MXN__SSET;
  src_item_t *src = NULL;
  /* Sort and keep the first copy of each entry (lowest member first). */
  if (nitems > 0) qsort(items, (size_t)nitems, sizeof *items, cmp_item);
  int64_t m = 0;
  for (int64_t i = 0; i < nitems; i++)
    if (m == 0 || items[i].entry != items[m - 1].entry || items[i].extra != items[m - 1].extra)
      items[m++] = items[i];
  ps->n = m;
  MXN_ALLOC(ps->entries, m);
  if (side) MXN_ALLOC(ps->sides, m);
  if (sk == MXN__ESET || sk == MXN__FSET) MXN_ALLOC(ps->orient, m);
  MXN_ALLOC(ps->member, m);
  int any_df = 0;
  int64_t total_df = 0;
  for (int64_t i = 0; i < m; i++) {
    if (items[i].df_at >= 0) any_df = 1;
    total_df += items[i].df_n;
  }
  if (any_df) {
    MXN_ALLOC(ps->df, total_df);
    if (side) MXN_ALLOC(ps->df_offsets, m + 1);
  }
  int64_t o = 0;
  for (int64_t i = 0; i < m; i++) {
    ps->entries[i] = items[i].entry;
    if (ps->sides) ps->sides[i] = items[i].extra;
    if (ps->orient) ps->orient[i] = items[i].extra;
    ps->member[i] = items[i].file;
    if (any_df) {
      if (side) ps->df_offsets[i] = o;
      if (items[i].df_at >= 0)
        memcpy(ps->df + o, dfs + items[i].df_at, (size_t)items[i].df_n * sizeof *dfs);
      o += items[i].df_n;
    }
  }
  if (any_df && side) ps->df_offsets[m] = o;
  /* Variables: storage where defined, and the sources by member. */
  ps->num_vars = vl->num;
  MXN_ALLOC(ps->vars, vl->num);
  int any_var = 0;
  for (int v = 0; v < vl->num; v++)
    if (vl->truth[(int64_t)q * vl->num + v]) {
      MXN_ALLOC(ps->vars[v], m);
      any_var = 1;
    }
  if (any_var && m > 0) {
    set_src_t *ss = &plan->set_src[sk][q];
    MXN_ALLOC(src, m);
    for (int64_t i = 0; i < m; i++) src[i] = (src_item_t){items[i].file, items[i].fpos, i};
    qsort(src, (size_t)m, sizeof *src, cmp_src);
    ss->n = m;
    MXN_ALLOC(ss->file, m);
    MXN_ALLOC(ss->pos, m);
    MXN_ALLOC(ss->dst, m);
    for (int64_t i = 0; i < m; i++) {
      ss->file[i] = src[i].file;
      ss->pos[i] = src[i].fpos;
      ss->dst[i] = src[i].dst;
    }
  }
done:
  free(src);
  return status;
}

/* The spans of one set kind in the candidate members, grouped by
 * structure set: set q's are start[q] .. start[q+1]-1, ascending by
 * member; each is member file[r]'s span span[r]. */
typedef struct {
  int64_t *start;
  int *file, *span;
} set_spans_t;

static void set_spans_free(set_spans_t *b) {
  MXN_FREE(b->start);
  MXN_FREE(b->file);
  MXN_FREE(b->span);
}

static int spans_by_set(mxn_dataset_t *ds, const char *cand, int sk, int nsets,
                        set_spans_t *b) {
  int status = MXN_OK;
  set_spans_free(b);
  MXN_ALLOC(b->start, (size_t)nsets + 1);
  for (int j = 0; j < ds->nfiles; j++) {
    if (!cand[j]) continue;
    const mxn__file_t *f = mxn__file(ds, j);
    if (!f) {
      status = ds->err.status;
      goto done;
    }
    const mxn__sets_t *fs = &f->sk[sk];
    for (int i = 0; i < fs->nspan; i++) b->start[fs->span[i].q + 1]++;
  }
  for (int q = 0; q < nsets; q++) b->start[q + 1] += b->start[q];
  MXN_ALLOC(b->file, (size_t)b->start[nsets] + 1);
  MXN_ALLOC(b->span, (size_t)b->start[nsets] + 1);
  for (int j = 0; j < ds->nfiles; j++) {
    if (!cand[j]) continue;
    const mxn__sets_t *fs = &mxn__file_held(ds, j)->sk[sk]; /* made above */
    for (int i = 0; i < fs->nspan; i++) {
      int64_t r = b->start[fs->span[i].q]++;
      b->file[r] = j;
      b->span[r] = i;
    }
  }
  for (int q = nsets; q > 0; q--) b->start[q] = b->start[q - 1];
  b->start[0] = 0;
done:
  return status;
}

/* Append (id, file, kind) to a growing list. */
static int miss_push(mxn__set_ent_t **list, int64_t *n, int64_t *cap, mxn_gid_t id, int file,
                     int kind) {
  if (*n == *cap) {
    int64_t nc = *cap ? 2 * *cap : 256;
    mxn__set_ent_t *g = mxn__realloc(*list, (size_t)nc * sizeof *g);
    if (!g) return MXN_ERR_NOMEM;
    *list = g;
    *cap = nc;
  }
  (*list)[(*n)++] = (mxn__set_ent_t){id, file, kind};
  return MXN_OK;
}

int mxn__member_set_ents(mxn_dataset_t *ds, int j, mxn__set_ent_t **out, int64_t *n,
                         int64_t *cap) {
  static const int kinds[3] = {MXN__NSET, MXN__ESET, MXN__FSET};
  static const int ents[3] = {MXN__NODE, MXN__EDGE, MXN__FACE};
  int status = MXN_OK;
  int64_t *ent = NULL;
  const mxn_file_domain_t *d;
  MXN_CHECK(mxn_dataset_file_domain(ds, j, &d));
  mxn__file_t *f = mxn__file(ds, j);
  if (!f) return ds->err.status;
  for (int t = 0; t < 3; t++) {
    const int sk = kinds[t], e = ents[t];
    const mxn__sets_t *fs = &f->sk[sk];
    int nsets;
    const mxn_set_info_t *sets = mxn__ssets(&ds->s, sk, &nsets);
    int64_t nfile = mxn__dom_n(d, e);
    const mxn_gid_t *map = mxn__dom_map(d, e);
    for (int i = 0; i < fs->nspan; i++) {
      const mxn__set_span_t *sr = &fs->span[i];
      if (sr->count <= 0) continue;
      if (!mxn__file_open(ds, j, &status)) goto done;
      free(ent);
      ent = NULL;
      MXN_ALLOC(ent, sr->count);
      if (mxn__m_rows(f, mxn__ex_set_entries[sk], sr->k + 1, 0, sr->count, 1, ent, 'l')) {
        status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s %lld: cannot read its entries", f->path,
                            mxn__set_what[sk], (long long)sets[sr->q].id);
        goto done;
      }
      ds->io.read_calls++;
      ds->io.bytes_read += sr->count * (int64_t)sizeof(int64_t);
      ds->io.set_bytes_read += sr->count * (int64_t)sizeof(int64_t);
      for (int64_t x = 0; x < sr->count; x++) {
        if (ent[x] < 1 || ent[x] > nfile) {
          status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s %lld names %s %lld of %lld", f->path,
                              mxn__set_what[sk], (long long)sets[sr->q].id, mxn__ent_what[e],
                              (long long)ent[x], (long long)nfile);
          goto done;
        }
        MXN_CHECK(miss_push(out, n, cap, map[ent[x] - 1], j, e));
      }
    }
  }
done:
  free(ent);
  return status;
}

int mxn__member_set_elems(mxn_dataset_t *ds, int j, char *mark, int64_t nmark) {
  int status = MXN_OK;
  int64_t *ent = NULL;
  mxn__file_t *f = mxn__file(ds, j);
  if (!f) return ds->err.status;
  static const int kinds[2] = {MXN__SSET, MXN__ELSET};
  const char *const var[2] = {mxn__ex_set_entries[MXN__SSET],
                              mxn__ex_set_entries[MXN__ELSET]};
  for (int t = 0; t < 2; t++) {
    const mxn__sets_t *fs = &f->sk[kinds[t]];
    int nsets;
    const mxn_set_info_t *sets = mxn__ssets(&ds->s, kinds[t], &nsets);
    for (int i = 0; i < fs->nspan; i++) {
      const mxn__set_span_t *sr = &fs->span[i];
      if (sr->count <= 0) continue;
      if (!mxn__file_open(ds, j, &status)) goto done;
      free(ent);
      ent = NULL;
      MXN_ALLOC(ent, sr->count);
      if (mxn__m_rows(f, var[t], sr->k + 1, 0, sr->count, 1, ent, 'l')) {
        status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s %lld: cannot read its entries", f->path,
                            mxn__set_what[kinds[t]], (long long)sets[sr->q].id);
        goto done;
      }
      ds->io.read_calls++;
      ds->io.bytes_read += sr->count * (int64_t)sizeof(int64_t);
      ds->io.set_bytes_read += sr->count * (int64_t)sizeof(int64_t);
      for (int64_t x = 0; x < sr->count; x++)
        if (ent[x] >= 1 && ent[x] <= nmark) mark[ent[x] - 1] = 1;
    }
  }
done:
  free(ent);
  return status;
}

/* Gather each set of every kind from the candidate members, keep entries
 * in the piece, drop repeats (shared nodes, edges, faces appear in several
 * members), order by local entry. Remember where each kept entry came from:
 * set variables are values per entry. */
int mxn__read_sets(mxn_dataset_t *ds, mxn_piece_t *piece, const char *cand,
                     int64_t **l2p[MXN__NEK], const mxn_idset_t *P, const int64_t *p2local) {
  /* Entity kind each set kind's entries name. */
  static const int ent_of[MXN__NSK] = {MXN__NODE, MXN__ELEM, MXN__EDGE, MXN__FACE, MXN__ELEM};
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  set_item_t *items = NULL;
  double *dfs = NULL;
  int64_t *ent = NULL, *extra = NULL;
  double *df = NULL;
  int *cnt = NULL;
  faces_cache_t fcache = {-1, -1, NULL};
  set_spans_t by_set = {NULL, NULL, NULL};
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int nsets;
    const mxn_set_info_t *sets = mxn__ssets(s, sk, &nsets);
    const mxn_var_list_t *vl = mxn__svars(s, sk);
    mxn_piece_set_t **psets = sk == MXN__NSET   ? &piece->node_sets
                              : sk == MXN__SSET ? &piece->side_sets
                              : sk == MXN__ESET ? &piece->edge_sets
                              : sk == MXN__FSET ? &piece->face_sets
                                                : &piece->elem_sets;
    int *pn = sk == MXN__NSET   ? &piece->num_node_sets
              : sk == MXN__SSET ? &piece->num_side_sets
              : sk == MXN__ESET ? &piece->num_edge_sets
              : sk == MXN__FSET ? &piece->num_face_sets
                                : &piece->num_elem_sets;
    MXN_ALLOC(*psets, nsets);
    *pn = nsets;
    MXN_ALLOC(plan->set_src[sk], nsets);
    plan->nsets[sk] = nsets;
    int e = ent_of[sk], side = sk == MXN__SSET;
    int has_extra = sk == MXN__SSET || sk == MXN__ESET || sk == MXN__FSET;
    const char *what = mxn__set_what[sk];
    /* Exodus's variables of a set: entries, the second value of each
     * (sides, orientations), distribution factors */
    const char *const *ent_var = mxn__ex_set_entries, *const *extra_var = mxn__ex_set_extra,
                      *const *df_var = mxn__ex_set_df;
    /* The candidate members' spans by set, each set's in member order:
     * spans, members and sets each once (not every set against every
     * member: a model of 1000 sets in 4096 members). */
    MXN_CHECK(spans_by_set(ds, cand, sk, nsets, &by_set));
    for (int q = 0; q < nsets; q++) {
      const mxn_set_info_t *si = &sets[q];
      mxn_piece_set_t *ps = &(*psets)[q];
      int64_t nitems = 0, ndf = 0, cap_items = 0, cap_df = 0;
      for (int64_t r = by_set.start[q]; r < by_set.start[q + 1]; r++) {
        int j = by_set.file[r];
        mxn__file_t *f = mxn__file_held(ds, j); /* held: spans_by_set made it */
        const mxn__set_span_t *sr = &f->sk[sk].span[by_set.span[r]];
        int64_t n = sr->count, nd = sr->df;
        if (n <= 0) continue;
        int64_t nfile = mxn__file_count(f, e);
        int fq = sr->k + 1; /* its position in the member, as Exodus numbers it */
        if (!mxn__file_open(ds, j, &status)) goto done;
        MXN_ALLOC(ent, n);
        if (has_extra) MXN_ALLOC(extra, n);
        if (mxn__m_rows(f, ent_var[sk], fq, 0, n, 1, ent, 'l') ||
            (has_extra && mxn__m_rows(f, extra_var[sk], fq, 0, n, 1, extra, 'l'))) {
          status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s %lld: cannot read its entries", f->path,
                              what, (long long)si->id);
          goto done;
        }
        ds->io.read_calls++;
        ds->io.bytes_read += n * (has_extra ? 2 : 1) * (int64_t)sizeof(int64_t);
        ds->io.set_bytes_read += n * (has_extra ? 2 : 1) * (int64_t)sizeof(int64_t);
        if (nd > 0) {
          MXN_ALLOC(df, nd);
          if (mxn__m_rows(f, df_var[sk], fq, 0, nd, 1, df, 'd')) {
            status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s %lld: cannot read distribution factors",
                                f->path, what, (long long)si->id);
            goto done;
          }
          ds->io.read_calls++;
          ds->io.bytes_read += nd * (int64_t)sizeof(double);
          ds->io.set_bytes_read += nd * (int64_t)sizeof(double);
          /* Per-entry df counts: one per entry, except a side set's, which
           * has one per node of each side. */
          MXN_ALLOC(cnt, n);
          int64_t sum = n;
          if (!side || nd == n) {
            for (int64_t i = 0; i < n; i++) cnt[i] = 1;
          } else {
            MXN_CHECK(side_df_counts(ds, &fcache, f, j, si, n, nd, ent, extra, nfile, cnt));
            sum = 0;
            for (int64_t i = 0; i < n; i++) sum += cnt[i];
          }
          if (sum != nd) {
            /* The count of factors is a writer's hint that the entries do
             * not bear out: said once, and this member's factors of the
             * set left out (ParaView's readers open such files). */
            mxn__hint(ds, "%s: %s %lld: %lld distribution factors for %lld entries needing "
                          "%lld; going on without this member's factors of the set",
                      f->path, what, (long long)si->id, (long long)nd, (long long)n,
                      (long long)sum);
            nd = 0;
          }
        }
        if (nitems + n > cap_items) {
          cap_items = 2 * (nitems + n);
          set_item_t *ni = mxn__realloc(items, (size_t)cap_items * sizeof *ni);
          if (!ni) {
            status = MXN_ERR_NOMEM;
            goto done;
          }
          items = ni;
        }
        if (ndf + nd > cap_df) {
          cap_df = 2 * (ndf + nd);
          double *nd2 = mxn__realloc(dfs, (size_t)cap_df * sizeof *nd2);
          if (!nd2) {
            status = MXN_ERR_NOMEM;
            goto done;
          }
          dfs = nd2;
        }
        int64_t dfo = 0;
        for (int64_t i = 0; i < n; i++) {
          int64_t local = -1;
          int c = (nd > 0) ? cnt[i] : 0;
          if (ent[i] < 1 || ent[i] > nfile) {
            status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s %lld names %s %lld of %lld", f->path,
                                what, (long long)si->id, mxn__ent_what[e], (long long)ent[i],
                                (long long)nfile);
            goto done;
          }
          if (e == MXN__ELEM) {
            int64_t p = mxn_idset_find(P, f->dom->elem_map[ent[i] - 1]);
            local = p >= 0 ? p2local[p] : -1;
          } else if (l2p[e][j]) {
            local = l2p[e][j][ent[i] - 1];
          }
          if (local >= 0) {
            items[nitems++] = (set_item_t){local, has_extra ? (int)extra[i] : 0, j, i,
                                           c > 0 ? ndf : -1, c};
            if (c > 0) memcpy(dfs + ndf, df + dfo, (size_t)c * sizeof *dfs);
            ndf += c;
          } else if (e != MXN__ELEM) {
            /* a node, edge or face another rank may hold, or none */
            MXN_CHECK(miss_push(&plan->set_miss, &plan->nset_miss, &plan->set_miss_cap,
                                mxn__dom_map(f->dom, e)[ent[i] - 1], j, e));
          }
          dfo += c;
        }
        free(ent);
        ent = NULL;
        free(extra);
        extra = NULL;
        free(df);
        df = NULL;
        free(cnt);
        cnt = NULL;
      }
      MXN_CHECK(set_from_items(plan, sk, q, vl, items, nitems, dfs, ps));
    }
  }
done:
  set_spans_free(&by_set);
  free(fcache.faces);
  free(items);
  free(dfs);
  free(ent);
  free(extra);
  free(df);
  free(cnt);
  return status;
}

/* One member's share of one set's sources (set_src_t entries a..b-1). */
typedef struct {
  int j, sk, q;
  int64_t a, b;
} set_run_t;

static int run_cmp(const void *x, const void *y) {
  const set_run_t *r = x, *s = y;
  if (r->j != s->j) return r->j < s->j ? -1 : 1;
  if (r->sk != s->sk) return r->sk < s->sk ? -1 : 1;
  return (r->q > s->q) - (r->q < s->q);
}

/* Set variables of one step, member by member (each member once). The
 * runs of sources are listed and ordered by member first: a pass over
 * every set for every member would cost members x sets each step. */
int mxn__read_set_vars(mxn_dataset_t *ds, mxn_piece_t *piece, int step) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  set_run_t *runs = NULL;
  int64_t nrun = 0, cap = 0;
  for (int sk = 0; sk < MXN__NSK; sk++)
    for (int q = 0; q < plan->nsets[sk]; q++) {
      const set_src_t *ss = &plan->set_src[sk][q];
      for (int64_t a = 0, b; a < ss->n; a = b) {
        for (b = a + 1; b < ss->n && ss->file[b] == ss->file[a];) b++;
        if (nrun == cap) {
          cap = cap ? 2 * cap : 64;
          set_run_t *nr = mxn__realloc(runs, (size_t)cap * sizeof *nr);
          if (!nr) {
            status = MXN_ERR_NOMEM;
            goto done;
          }
          runs = nr;
        }
        runs[nrun++] = (set_run_t){ss->file[a], sk, q, a, b};
      }
    }
  if (nrun > 1) qsort(runs, (size_t)nrun, sizeof *runs, run_cmp);
  for (int64_t r = 0; r < nrun; r++) {
    const int j = runs[r].j, sk = runs[r].sk, q = runs[r].q;
    const int64_t a = runs[r].a, b = runs[r].b;
    const mxn__file_t *f = mxn__file_held(ds, j); /* held: its spans made the run */
    int nsets;
    const mxn_set_info_t *sets = mxn__ssets(s, sk, &nsets);
    const mxn_var_list_t *vl = mxn__svars(s, sk);
    mxn_piece_set_t *psets = mxn__psets(piece, sk, &nsets);
    const set_src_t *ss = &plan->set_src[sk][q];
    const mxn__set_span_t *sr = mxn__set_span_of(&f->sk[sk], q);
    int64_t nfile = sr ? sr->count : 0;
    for (int v = 0; v < vl->num; v++) {
      double *out = psets[q].vars[v];
      if (!out) continue;
      int p = mxn__var_pos(f, MXN__V_SET0 + sk, v);
      if (p < 0 || !mxn__set_truth(&f->sk[sk], q, vl->num, v)) {
        /* The member lacks the variable: no value (NaN); it has it but
         * not on this set (truth table): not stored, so it reads as 0. */
        double none = p < 0 ? NAN : 0.0;
        for (int64_t i = a; i < b; i++) out[ss->dst[i]] = none;
        continue;
      }
      if (!mxn__file_open(ds, j, &status)) goto done;
      MXN_CHECK(mxn__plan_buf(plan, nfile));
      char name[80];
      snprintf(name, sizeof name, mxn__ex_var[MXN__V_SET0 + sk].vals, p + 1, sr->k + 1);
      int varid = mxn__m_var(f, name);
      size_t start[2] = {(size_t)step, 0}, count[2] = {1, (size_t)nfile};
      if (varid < 0 || mxn__m_get(f, varid, start, count, NULL, plan->buf, 'd')) {
        status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s %lld: cannot read variable '%s' at step %d",
                            f->path, mxn__set_what[sk], (long long)sets[q].id, vl->names[v],
                            step + 1);
        goto done;
      }
      ds->io.read_calls++;
      ds->io.bytes_read += nfile * (int64_t)sizeof(double);
      for (int64_t i = a; i < b; i++) out[ss->dst[i]] = plan->buf[ss->pos[i]];
    }
  }
done:
  free(runs);
  return status;
}
