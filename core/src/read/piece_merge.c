/* Growing a piece in place: appending another piece of the same dataset
 * (the halo layers of a parallel load, each read through its own cover),
 * and reordering the elements of a block. Both keep the extraction plan
 * consistent, so every later time step reads the grown piece with one
 * plan. */
#include "read/plan.h"

/* One kind of entity (nodes, or the edges/faces/elements of one block
 * kind) as it is merged: for every entity of b, its index in the result
 * (-1 = not taken: already in a); for every one of a, its new index. */
typedef struct {
  int nb;                /* blocks (1 for nodes) */
  int64_t *a_cnt, *b_new; /* per block: a's entities, b's new ones */
  int64_t *a_off, *b_off, *r_off; /* per block + 1: concatenated offsets */
  int64_t *b_to;         /* b concatenated -> result concatenated, always set */
  int64_t *b_slot;       /* b concatenated -> result within-block index, -1 if not new */
} kind_map_t;

static void kind_map_free(kind_map_t *m) {
  free(m->a_cnt);
  free(m->b_new);
  free(m->a_off);
  free(m->b_off);
  free(m->r_off);
  free(m->b_to);
  free(m->b_slot);
}

/* New concatenated index of a's entity c of this kind. */
static int64_t a_to(const kind_map_t *m, int64_t c) {
  int blk = 0;
  while (blk + 1 < m->nb && c >= m->a_off[blk + 1]) blk++;
  return m->r_off[blk] + (c - m->a_off[blk]);
}

/* Ids of a piece's entities of one kind, concatenated over its blocks. */
static int64_t kind_count(const mxn_piece_t *p, int k, int blk) {
  if (k == MXN__NODE) return p->num_nodes;
  int nb;
  return mxn__pblocks(p, k, &nb)[blk].num_elements;
}
static const mxn_gid_t *kind_ids(const mxn_piece_t *p, int k, int blk) {
  if (k == MXN__NODE) return p->node_ids;
  int nb;
  return mxn__pblocks(p, k, &nb)[blk].elem_ids;
}

/* Map the entities of kind k of b into a: unions for nodes, edges and
 * faces; for elements every one of b must be new. */
static int kind_map_build(const mxn_piece_t *a, const mxn_piece_t *b, int k, const char *take,
                          kind_map_t *m, mxn_error_t *err) {
  int status = MXN_OK;
  int nb = 1;
  if (k != MXN__NODE) mxn__pblocks(a, k, &nb);
  m->nb = nb;
  MXN_ALLOC(m->a_cnt, nb);
  MXN_ALLOC(m->b_new, nb);
  MXN_ALLOC(m->a_off, nb + 1);
  MXN_ALLOC(m->b_off, nb + 1);
  MXN_ALLOC(m->r_off, nb + 1);
  for (int q = 0; q < nb; q++) {
    m->a_cnt[q] = kind_count(a, k, q);
    m->a_off[q + 1] = m->a_off[q] + m->a_cnt[q];
    m->b_off[q + 1] = m->b_off[q] + kind_count(b, k, q);
  }
  MXN_ALLOC(m->b_to, m->b_off[nb]);
  MXN_ALLOC(m->b_slot, m->b_off[nb]);
  {
    /* a's ids of the kind, all blocks, sorted with their positions (the
     * concatenation usually is sorted already: then it is searched as is) */
    mxn_gid_t *own = NULL; /* the concatenation, when there is more than one block */
    const mxn_gid_t *cat = nb == 1 ? kind_ids(a, k, 0) : NULL;
    mxn_idset_t A = MXN_IDSET_INIT;
    int64_t *apos = NULL, *inv = NULL;
    int64_t na = m->a_off[nb];
    if (!cat || na == 0) {
      MXN_ALLOC(own, na);
      for (int q = 0; q < nb; q++)
        if (m->a_cnt[q]) memcpy(own + m->a_off[q], kind_ids(a, k, q), (size_t)m->a_cnt[q] * sizeof *own);
      cat = own;
    }
    int sorted = 1;
    for (int64_t i = 1; i < na && sorted; i++) sorted = cat[i - 1] < cat[i];
    if (!sorted) {
      status = mxn_idset_from_array_pos(cat, na, &A, &apos);
      /* apos[i]: place of cat[i] in A; invert to find a's position of an id */
      inv = status == MXN_OK ? mxn__malloc(((size_t)A.n + 1) * sizeof *inv) : NULL;
      if (status == MXN_OK && !inv) status = MXN_ERR_NOMEM;
      for (int64_t i = 0; status == MXN_OK && i < na; i++) inv[apos[i]] = i;
    }
    for (int q = 0; status == MXN_OK && q < nb; q++) {
      const mxn_gid_t *ids = kind_ids(b, k, q);
      for (int64_t i = 0; i < m->b_off[q + 1] - m->b_off[q]; i++) {
        int64_t c = m->b_off[q] + i, f;
        if (take && !take[c]) { /* left out (a subset): no place in a */
          m->b_slot[c] = -1;
          m->b_to[c] = -1;
          continue;
        }
        if (sorted) {
          f = mxn__lower_bound(cat, na, ids[i]);
          if (f >= na || cat[f] != ids[i]) f = -1;
        } else {
          f = mxn_idset_find(&A, ids[i]);
          if (f >= 0) f = inv[f];
        }
        if (f >= 0 && k == MXN__ELEM) {
          status = mxn_error_set(err, MXN_ERR_ARG, "element %lld is in both pieces",
                                 (long long)ids[i]);
          break;
        }
        m->b_slot[c] = f >= 0 ? -1 : m->a_cnt[q] + m->b_new[q]++;
        m->b_to[c] = f >= 0 ? -2 - f : 0; /* resolved below */
      }
    }
    free(own);
    free(apos);
    free(inv);
    mxn_idset_free(&A);
    if (status != MXN_OK) goto done;
  }
  for (int q = 0; q < nb; q++) m->r_off[q + 1] = m->r_off[q] + m->a_cnt[q] + m->b_new[q];
  for (int q = 0; q < nb; q++)
    for (int64_t c = m->b_off[q]; c < m->b_off[q + 1]; c++)
      m->b_to[c] = m->b_slot[c] >= 0    ? m->r_off[q] + m->b_slot[c]
                   : m->b_to[c] == -1 ? -1
                                      : a_to(m, -2 - m->b_to[c]);
done:
  return status;
}

/* Grow *arr (n_old items of size sz) to n_new, keeping its contents. */
static int grow(void *arr, int64_t n_new, size_t sz) {
  void **p = arr;
  if (!*p) return MXN_OK;
  void *q = mxn__realloc(*p, (size_t)(n_new > 0 ? n_new : 1) * sz);
  if (!q) return MXN_ERR_NOMEM;
  *p = q;
  return MXN_OK;
}

/* The new entities of b's segment `sg` (kind map m, block q) as a segment
 * of a: offsets kept, destinations renumbered. */
static int segment_take(mxn__plan_t *plan, const segment_t *sg, const kind_map_t *m, int q,
                        int64_t gap, segment_t *out, int *kept) {
  int status = MXN_OK;
  pair_t *pairs = NULL;
  MXN_ALLOC(pairs, sg->n);
  int64_t n = 0;
  for (int64_t i = 0; i < sg->n; i++) {
    int64_t slot = m->b_slot[m->b_off[q] + sg->dst[i]];
    if (slot >= 0) pairs[n++] = (pair_t){sg->off[i], slot};
  }
  memset(out, 0, sizeof *out);
  *kept = n > 0;
  if (n > 0) {
    out->file = sg->file;
    out->block = sg->block;
    MXN_CHECK(mxn__segment_build(plan, out, pairs, n, gap));
  }
done:
  free(pairs);
  return status;
}

/* Append b's segments of one kind to a's plan. */
static int plan_take(mxn__plan_t *plan, segment_t **aseg, int *anseg, const segment_t *bseg,
                     int bnseg, const kind_map_t *m, int is_node, int64_t gap) {
  int status = MXN_OK;
  segment_t *grown = mxn__realloc(*aseg, (size_t)(*anseg + bnseg + 1) * sizeof *grown);
  if (!grown) return MXN_ERR_NOMEM;
  *aseg = grown;
  for (int i = 0; i < bnseg; i++) {
    int kept = 0;
    MXN_CHECK(segment_take(plan, &bseg[i], m, is_node ? 0 : bseg[i].block, gap, &grown[*anseg],
                           &kept));
    if (kept) (*anseg)++;
  }
  qsort(*aseg, (size_t)*anseg, sizeof **aseg, mxn__cmp_seg_file);
done:
  return status;
}

/* Offsets and references of b's new entries of poly block q appended to
 * a's (NSIDED: nodes; NFACED: faces and the derived nodes), renumbered.
 * a's own face references are shifted by the caller. */
static int merge_poly(mxn_piece_block_t *pa, const mxn_piece_block_t *pb, int q, int64_t na,
                      int64_t n, int poly, const kind_map_t *mk, const kind_map_t *mnode,
                      const kind_map_t *mface) {
  int status = MXN_OK;
  int64_t *len = NULL, *src = NULL;
  MXN_ALLOC(len, n - na);
  MXN_ALLOC(src, n - na);
  for (int64_t i = 0; i < pb->num_elements; i++) {
    int64_t slot = mk->b_slot[mk->b_off[q] + i];
    if (slot < 0) continue;
    src[slot - na] = i;
  }
  for (int t = 0; t < 2; t++) {
    /* t = 0: nodes (both kinds), t = 1: faces (NFACED) */
    if (t == 1 && poly != MXN_POLY_NFACED) break;
    int64_t **off = t == 0 ? &pa->conn_off : &pa->face_off;
    int64_t **ref = t == 0 ? &pa->conn : &pa->face_conn;
    const int64_t *boff = t == 0 ? pb->conn_off : pb->face_off;
    const int64_t *bref = t == 0 ? pb->conn : pb->face_conn;
    const kind_map_t *m = t == 0 ? mnode : mface;
    int64_t *o = mxn__realloc(*off, (size_t)(n + 1) * sizeof *o);
    if (!o) {
      status = MXN_ERR_NOMEM;
      goto done;
    }
    *off = o;
    for (int64_t j = 0; j < n - na; j++) o[na + j + 1] = o[na + j] + boff[src[j] + 1] - boff[src[j]];
    int64_t *r = mxn__realloc(*ref, (size_t)(o[n] > 0 ? o[n] : 1) * sizeof *r);
    if (!r) {
      status = MXN_ERR_NOMEM;
      goto done;
    }
    *ref = r;
    for (int64_t j = 0; j < n - na; j++)
      for (int64_t c = boff[src[j]]; c < boff[src[j] + 1]; c++)
        r[o[na + j] + c - boff[src[j]]] = m->b_to[bref[c]];
  }
done:
  free(len);
  free(src);
  return status;
}

/* Blocks of kind k: a's entities, then b's new ones; connectivity of b
 * renumbered through the node/edge/face maps. */
static int merge_blocks(const mxn_structure_t *s, mxn_piece_t *a, const mxn_piece_t *b, int k,
                        const kind_map_t *mk, const kind_map_t *mnode, const kind_map_t *medge,
                        const kind_map_t *mface) {
  int status = MXN_OK, nb;
  const mxn_block_info_t *sb = mxn__sblocks(s, k, &nb);
  mxn_piece_block_t *ab = mxn__pblocks(a, k, &nb);
  const mxn_piece_block_t *bb = mxn__pblocks(b, k, &nb);
  mxn_var_list_t vl = mxn__bvars(s, k);
  int nmaps;
  mxn__smaps(s, k, &nmaps);
  for (int q = 0; q < nb; q++) {
    mxn_piece_block_t *pa = &ab[q];
    const mxn_piece_block_t *pb = &bb[q];
    const mxn_block_info_t *bi = &sb[q];
    int64_t na = pa->num_elements, n = na + mk->b_new[q];
    int npe = bi->nodes_per_elem, epe = bi->edges_per_elem, fpe = bi->faces_per_elem;
    int nat = bi->num_attr;
    if (n == na) continue;
    MXN_CHECK(grow(&pa->elem_ids, n, sizeof *pa->elem_ids));
    MXN_CHECK(grow(&pa->orig_ids, n, sizeof *pa->orig_ids));
    MXN_CHECK(grow(&pa->member, n, sizeof *pa->member));
    if (bi->poly) {
      MXN_CHECK(merge_poly(pa, pb, q, na, n, bi->poly, mk, mnode, mface));
    } else {
      MXN_CHECK(grow(&pa->conn, n * npe, sizeof *pa->conn));
      MXN_CHECK(grow(&pa->edge_conn, n * epe, sizeof *pa->edge_conn));
      MXN_CHECK(grow(&pa->face_conn, n * fpe, sizeof *pa->face_conn));
    }
    MXN_CHECK(grow(&pa->attr, n * nat, sizeof *pa->attr));
    if (pa->elem_vars)
      for (int v = 0; v < vl.num; v++) MXN_CHECK(grow(&pa->elem_vars[v], n, sizeof(double)));
    if (pa->maps)
      for (int mm = 0; mm < nmaps; mm++) MXN_CHECK(grow(&pa->maps[mm], n, sizeof(mxn_gid_t)));
    for (int64_t i = 0; i < pb->num_elements; i++) {
      int64_t slot = mk->b_slot[mk->b_off[q] + i];
      if (slot < 0) continue;
      pa->elem_ids[slot] = pb->elem_ids[i];
      if (pa->orig_ids) pa->orig_ids[slot] = pb->orig_ids ? pb->orig_ids[i] : pb->elem_ids[i];
      if (pa->member) pa->member[slot] = pb->member ? pb->member[i] : -1;
      for (int c = 0; c < npe; c++) pa->conn[slot * npe + c] = mnode->b_to[pb->conn[i * npe + c]];
      if (pa->edge_conn && pb->edge_conn)
        for (int c = 0; c < epe; c++)
          pa->edge_conn[slot * epe + c] = medge->b_to[pb->edge_conn[i * epe + c]];
      if (pa->face_conn && pb->face_conn)
        for (int c = 0; c < fpe; c++)
          pa->face_conn[slot * fpe + c] = mface->b_to[pb->face_conn[i * fpe + c]];
      if (pa->attr && pb->attr) memcpy(pa->attr + slot * nat, pb->attr + i * nat, (size_t)nat * sizeof(double));
      if (pa->elem_vars)
        for (int v = 0; v < vl.num; v++)
          if (pa->elem_vars[v])
            pa->elem_vars[v][slot] = pb->elem_vars && pb->elem_vars[v] ? pb->elem_vars[v][i] : 0.0;
      if (pa->maps)
        for (int mm = 0; mm < nmaps; mm++)
          pa->maps[mm][slot] = pb->maps && pb->maps[mm] ? pb->maps[mm][i] : 0;
    }
    pa->num_elements = n;
  }
  /* a's references to edges and faces of shifted blocks */
  if (k == MXN__ELEM || k == MXN__FACE) {
    for (int q = 0; q < nb; q++) {
      mxn_piece_block_t *pa = &ab[q];
      int64_t na = pa->num_elements - mk->b_new[q];
      if (pa->edge_conn)
        for (int64_t i = 0; i < na * sb[q].edges_per_elem; i++)
          pa->edge_conn[i] = a_to(medge, pa->edge_conn[i]);
      if (pa->face_conn) {
        int64_t nref = pa->face_off ? pa->face_off[na] : na * sb[q].faces_per_elem;
        for (int64_t i = 0; i < nref; i++) pa->face_conn[i] = a_to(mface, pa->face_conn[i]);
      }
    }
  }
done:
  return status;
}

typedef struct {
  int64_t entry;
  int extra;
} entry_key_t;

static int cmp_entry_key(const void *x, const void *y) {
  const entry_key_t *a = x, *b = y;
  if (a->entry != b->entry) return (a->entry > b->entry) - (a->entry < b->entry);
  return (a->extra > b->extra) - (a->extra < b->extra);
}

typedef struct {
  int file;
  int64_t pos, dst;
} src_key_t;

static int cmp_src_key(const void *x, const void *y) {
  const src_key_t *a = x, *b = y;
  if (a->file != b->file) return (a->file > b->file) - (a->file < b->file);
  return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Distribution factors of entry i of a set: count and first value. */
static int64_t set_df(const mxn_piece_set_t *ps, int64_t i, int64_t *at) {
  if (!ps->df) return 0;
  if (ps->df_offsets) {
    *at = ps->df_offsets[i];
    return ps->df_offsets[i + 1] - ps->df_offsets[i];
  }
  *at = i;
  return 1;
}

/* Sets: a's entries renumbered, then those of b that a lacks. */
/* Nodes on side `side` of entry k of poly block blk of piece p (blocks
 * already merged): a polygon's edge (2D: 2), a polyhedron's face (its
 * node count); -1 if there is no such side. */
static int poly_side_count(const mxn_structure_t *s, const mxn_piece_t *p, int blk, int64_t k,
                           int side) {
  const mxn_piece_block_t *pb = &p->blocks[blk];
  if (s->blocks[blk].poly == MXN_POLY_NSIDED)
    return s->num_dim == 2 && side >= 1 && side <= pb->conn_off[k + 1] - pb->conn_off[k] ? 2 : -1;
  if (side < 1 || side > pb->face_off[k + 1] - pb->face_off[k]) return -1;
  int64_t face = pb->face_conn[pb->face_off[k] + side - 1];
  for (int fb = 0; fb < p->num_face_blocks; fb++) {
    const mxn_piece_block_t *pf = &p->face_blocks[fb];
    if (face < pf->num_elements)
      return mxn__conn_n(pf, s->face_blocks[fb].nodes_per_elem, face);
    face -= pf->num_elements;
  }
  return -1;
}

static int merge_sets(const mxn_structure_t *s, mxn_piece_t *a, const mxn_piece_t *b,
                      kind_map_t *maps[MXN__NEK]) {
  static const int ent_of[MXN__NSK] = {MXN__NODE, MXN__ELEM, MXN__EDGE, MXN__FACE, MXN__ELEM};
  int status = MXN_OK;
  entry_key_t *keys = NULL;
  src_key_t *src = NULL;
  int64_t *take = NULL;
  mxn_piece_set_t nw;
  memset(&nw, 0, sizeof nw);
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int nsets;
    mxn_piece_set_t *as = mxn__psets(a, sk, &nsets);
    const mxn_piece_set_t *bs = mxn__psets(b, sk, &nsets);
    const kind_map_t *m = maps[ent_of[sk]];
    int side = sk == MXN__SSET;
    for (int q = 0; q < nsets; q++) {
      mxn_piece_set_t *pa = &as[q];
      const mxn_piece_set_t *pb = &bs[q];
      /* a's entries take their new numbers */
      for (int64_t i = 0; i < pa->n; i++) pa->entries[i] = a_to(m, pa->entries[i]);
      if (pb->n == 0) continue;
      MXN_ALLOC(keys, pa->n);
      for (int64_t i = 0; i < pa->n; i++)
        keys[i] = (entry_key_t){pa->entries[i], pa->sides ? pa->sides[i] : pa->orient ? pa->orient[i] : 0};
      qsort(keys, (size_t)pa->n, sizeof *keys, cmp_entry_key);
      MXN_ALLOC(take, pb->n);
      int64_t nt = 0, ndf = 0;
      for (int64_t i = 0; i < pb->n; i++) {
        if (m->b_to[pb->entries[i]] < 0) continue; /* its entity was left out */
        entry_key_t key = {m->b_to[pb->entries[i]], pb->sides ? pb->sides[i] : pb->orient ? pb->orient[i] : 0};
        if (pa->n && bsearch(&key, keys, (size_t)pa->n, sizeof *keys, cmp_entry_key)) continue;
        take[nt++] = i;
      }
      free(keys);
      keys = NULL;
      if (nt == 0) {
        free(take);
        take = NULL;
        continue;
      }
      int64_t n = pa->n + nt;
      /* distribution factors: a side's count from its topology where one
       * piece has none */
      int want_df = pa->df || pb->df;
      int64_t *cnt = NULL;
      if (want_df) {
        MXN_ALLOC(cnt, n);
        for (int64_t i = 0; i < n; i++) {
          const mxn_piece_set_t *ps = i < pa->n ? pa : pb;
          int64_t e = i < pa->n ? i : take[i - pa->n], at = 0;
          if (ps->df) {
            cnt[i] = set_df(ps, e, &at);
          } else if (side) {
            /* block of the element: from its new concatenated index */
            int64_t c = i < pa->n ? ps->entries[e] : m->b_to[ps->entries[e]];
            int blk = 0;
            while (blk + 1 < m->nb && c >= m->r_off[blk + 1]) blk++;
            int nc = s->blocks[blk].poly
                         ? poly_side_count(s, a, blk, c - m->r_off[blk], ps->sides[e])
                         : mxn__side_node_count(s->blocks[blk].type,
                                                s->blocks[blk].nodes_per_elem, s->num_dim,
                                                ps->sides[e]);
            cnt[i] = nc > 0 ? nc : 0;
          } else {
            cnt[i] = 1;
          }
          ndf += cnt[i];
        }
        MXN_ALLOC(nw.df, ndf);
        if (side) MXN_ALLOC(nw.df_offsets, n + 1);
        int64_t o = 0;
        for (int64_t i = 0; i < n; i++) {
          const mxn_piece_set_t *ps = i < pa->n ? pa : pb;
          int64_t e = i < pa->n ? i : take[i - pa->n], at = 0;
          if (nw.df_offsets) nw.df_offsets[i] = o;
          if (ps->df && set_df(ps, e, &at) > 0) memcpy(nw.df + o, ps->df + at, (size_t)cnt[i] * sizeof(double));
          o += cnt[i];
        }
        if (nw.df_offsets) nw.df_offsets[n] = o;
        free(cnt);
      }
      MXN_CHECK(grow(&pa->entries, n, sizeof *pa->entries));
      MXN_CHECK(grow(&pa->sides, n, sizeof *pa->sides));
      MXN_CHECK(grow(&pa->orient, n, sizeof *pa->orient));
      MXN_CHECK(grow(&pa->member, n, sizeof *pa->member));
      for (int64_t t = 0; t < nt; t++) {
        int64_t i = take[t];
        pa->entries[pa->n + t] = m->b_to[pb->entries[i]];
        if (pa->sides) pa->sides[pa->n + t] = pb->sides[i];
        if (pa->orient) pa->orient[pa->n + t] = pb->orient[i];
        if (pa->member) pa->member[pa->n + t] = pb->member ? pb->member[i] : -1;
      }
      if (want_df) {
        free(pa->df);
        free(pa->df_offsets);
        pa->df = nw.df;
        pa->df_offsets = nw.df_offsets;
        nw.df = NULL;
        nw.df_offsets = NULL;
      }
      for (int v = 0; v < pa->num_vars; v++) MXN_CHECK(grow(&pa->vars[v], n, sizeof(double)));
      /* where set variables come from: a's sources, then b's taken ones */
      set_src_t *sa = &a->plan->set_src[sk][q];
      const set_src_t *sbsrc = &b->plan->set_src[sk][q];
      if (sbsrc->n > 0) {
        int64_t *newpos = NULL;
        MXN_ALLOC(newpos, pb->n);
        for (int64_t i = 0; i < pb->n; i++) newpos[i] = -1;
        for (int64_t t = 0; t < nt; t++) newpos[take[t]] = pa->n + t;
        MXN_ALLOC(src, sa->n + sbsrc->n);
        int64_t ns = 0;
        for (int64_t i = 0; i < sa->n; i++) src[ns++] = (src_key_t){sa->file[i], sa->pos[i], sa->dst[i]};
        for (int64_t i = 0; i < sbsrc->n; i++)
          if (newpos[sbsrc->dst[i]] >= 0)
            src[ns++] = (src_key_t){sbsrc->file[i], sbsrc->pos[i], newpos[sbsrc->dst[i]]};
        free(newpos);
        qsort(src, (size_t)ns, sizeof *src, cmp_src_key);
        MXN_CHECK(grow(&sa->file, ns, sizeof *sa->file));
        MXN_CHECK(grow(&sa->pos, ns, sizeof *sa->pos));
        MXN_CHECK(grow(&sa->dst, ns, sizeof *sa->dst));
        if (!sa->file) {
          MXN_ALLOC(sa->file, ns);
          MXN_ALLOC(sa->pos, ns);
          MXN_ALLOC(sa->dst, ns);
        }
        for (int64_t i = 0; i < ns; i++) {
          sa->file[i] = src[i].file;
          sa->pos[i] = src[i].pos;
          sa->dst[i] = src[i].dst;
        }
        sa->n = ns;
        free(src);
        src = NULL;
      }
      pa->n = n;
      free(take);
      take = NULL;
    }
  }
done:
  free(keys);
  free(src);
  free(take);
  free(nw.df);
  free(nw.df_offsets);
  return status;
}

/* Append b's entities to a; with `take` (per entity kind, concatenated
 * over the kind's blocks, NULL = all) only the flagged ones. */
static int append_impl(const mxn_structure_t *s, mxn_piece_t *a, const mxn_piece_t *b,
                       char *const take[MXN__NEK], int no_sets, int64_t gap, mxn_error_t *err) {
  int status = MXN_OK;
  kind_map_t km[MXN__NEK];
  memset(km, 0, sizeof km);
  kind_map_t *maps[MXN__NEK] = {&km[MXN__ELEM], &km[MXN__EDGE], &km[MXN__FACE], &km[MXN__NODE]};
  for (int k = 0; k < MXN__NEK; k++)
    MXN_CHECK(kind_map_build(a, b, k, take ? take[k] : NULL, &km[k], err));

  /* Nodes: a's keep their indices, b's new ones follow. */
  {
    kind_map_t *m = &km[MXN__NODE];
    int64_t na = a->num_nodes, n = na + m->b_new[0];
    MXN_CHECK(grow(&a->node_ids, n, sizeof *a->node_ids));
    for (int d = 0; d < 3; d++) MXN_CHECK(grow(&a->coord[d], n, sizeof(double)));
    if (a->node_maps)
      for (int mm = 0; mm < a->num_node_maps; mm++) MXN_CHECK(grow(&a->node_maps[mm], n, sizeof(mxn_gid_t)));
    if (a->node_vars)
      for (int v = 0; v < a->plan_num_node_vars; v++) MXN_CHECK(grow(&a->node_vars[v], n, sizeof(double)));
    for (int64_t i = 0; i < b->num_nodes; i++) {
      int64_t slot = m->b_slot[i];
      if (slot < 0) continue;
      a->node_ids[slot] = b->node_ids[i];
      for (int d = 0; d < 3; d++)
        if (a->coord[d]) a->coord[d][slot] = b->coord[d] ? b->coord[d][i] : 0.0;
      if (a->node_maps)
        for (int mm = 0; mm < a->num_node_maps; mm++)
          a->node_maps[mm][slot] = b->node_maps ? b->node_maps[mm][i] : 0;
      if (a->node_vars)
        for (int v = 0; v < a->plan_num_node_vars; v++)
          if (a->node_vars[v])
            a->node_vars[v][slot] = b->node_vars && b->node_vars[v] ? b->node_vars[v][i] : 0.0;
    }
    a->num_nodes = n;
    MXN_CHECK(plan_take(a->plan, &a->plan->node_seg, &a->plan->nnode_seg, b->plan->node_seg,
                        b->plan->nnode_seg, m, 1, gap));
  }
  /* Edges and faces (they refer to nodes), then elements (to all). */
  static const int order[MXN__NBK] = {MXN__EDGE, MXN__FACE, MXN__ELEM};
  for (int o = 0; o < MXN__NBK; o++) {
    int k = order[o];
    MXN_CHECK(merge_blocks(s, a, b, k, &km[k], &km[MXN__NODE], &km[MXN__EDGE], &km[MXN__FACE]));
    MXN_CHECK(plan_take(a->plan, &a->plan->seg[k], &a->plan->nseg[k], b->plan->seg[k], b->plan->nseg[k],
                        &km[k], 0, gap));
  }
  a->num_elements = km[MXN__ELEM].r_off[km[MXN__ELEM].nb];
  a->num_edges = km[MXN__EDGE].r_off[km[MXN__EDGE].nb];
  a->num_faces = km[MXN__FACE].r_off[km[MXN__FACE].nb];
  if (!no_sets) MXN_CHECK(merge_sets(s, a, b, maps));
  a->stats.elem_runs += b->stats.elem_runs;
  a->stats.node_runs += b->stats.node_runs;
  a->stats.edge_runs += b->stats.edge_runs;
  a->stats.face_runs += b->stats.face_runs;
done:
  for (int k = 0; k < MXN__NEK; k++) kind_map_free(&km[k]);
  return status;
}

int mxn__piece_append(const mxn_structure_t *s, mxn_piece_t *a, mxn_piece_t **pb, int64_t gap,
                      mxn_error_t *err) {
  if (!s || !a || !pb || !*pb) return MXN_ERR_ARG;
  int status = append_impl(s, a, *pb, NULL, 0, gap, err);
  if (status == MXN_OK) mxn_piece_destroy(pb);
  return status;
}

/* A piece with no entity, allocated like `src` (every array src has is
 * there, empty), so that appending to it keeps what src keeps. */
static int shell_like(const mxn_piece_t *src, mxn_piece_t **out) {
  int status = MXN_OK;
  mxn_piece_t *p = NULL;
  MXN_ALLOC(p, 1);
  MXN_ALLOC(p->plan, 1);
  p->num_dim = src->num_dim;
  p->step = src->step;
  p->time = src->time;
  p->plan_num_node_vars = src->plan_num_node_vars;
  p->plan_num_elem_vars = src->plan_num_elem_vars;
  p->plan_num_edge_vars = src->plan_num_edge_vars;
  p->plan_num_face_vars = src->plan_num_face_vars;
  p->num_node_maps = src->num_node_maps;
  p->num_edge_maps = src->num_edge_maps;
  p->num_face_maps = src->num_face_maps;
  p->num_elem_maps = src->num_elem_maps;
  MXN_ALLOC(p->node_ids, 1);
  for (int d = 0; d < 3; d++)
    if (src->coord[d]) MXN_ALLOC(p->coord[d], 1);
  if (src->node_maps) {
    MXN_ALLOC(p->node_maps, p->num_node_maps);
    for (int m = 0; m < p->num_node_maps; m++)
      if (src->node_maps[m]) MXN_ALLOC(p->node_maps[m], 1);
  }
  if (src->node_vars) {
    MXN_ALLOC(p->node_vars, p->plan_num_node_vars);
    for (int v = 0; v < p->plan_num_node_vars; v++)
      if (src->node_vars[v]) MXN_ALLOC(p->node_vars[v], 1);
  }
  p->num_blocks = src->num_blocks;
  p->num_edge_blocks = src->num_edge_blocks;
  p->num_face_blocks = src->num_face_blocks;
  MXN_ALLOC(p->blocks, p->num_blocks);
  MXN_ALLOC(p->edge_blocks, p->num_edge_blocks);
  MXN_ALLOC(p->face_blocks, p->num_face_blocks);
  const int nvars[MXN__NBK] = {p->plan_num_elem_vars, p->plan_num_edge_vars, p->plan_num_face_vars};
  const int nmaps[MXN__NBK] = {p->num_elem_maps, p->num_edge_maps, p->num_face_maps};
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    const mxn_piece_block_t *sb = mxn__pblocks(src, k, &nb);
    mxn_piece_block_t *pbk = mxn__pblocks(p, k, &nb);
    for (int q = 0; q < nb; q++) {
      const mxn_piece_block_t *x = &sb[q];
      mxn_piece_block_t *y = &pbk[q];
      MXN_ALLOC(y->elem_ids, 1);
      if (x->orig_ids) MXN_ALLOC(y->orig_ids, 1);
      if (x->member) MXN_ALLOC(y->member, 1);
      if (x->conn) MXN_ALLOC(y->conn, 1);
      if (x->edge_conn) MXN_ALLOC(y->edge_conn, 1);
      if (x->face_conn) MXN_ALLOC(y->face_conn, 1);
      if (x->attr) MXN_ALLOC(y->attr, 1);
      if (x->elem_vars) {
        MXN_ALLOC(y->elem_vars, nvars[k]);
        for (int v = 0; v < nvars[k]; v++)
          if (x->elem_vars[v]) MXN_ALLOC(y->elem_vars[v], 1);
      }
      if (x->maps) {
        MXN_ALLOC(y->maps, nmaps[k]);
        for (int m = 0; m < nmaps[k]; m++)
          if (x->maps[m]) MXN_ALLOC(y->maps[m], 1);
      }
    }
  }
  p->num_node_sets = src->num_node_sets;
  p->num_side_sets = src->num_side_sets;
  p->num_edge_sets = src->num_edge_sets;
  p->num_face_sets = src->num_face_sets;
  p->num_elem_sets = src->num_elem_sets;
  MXN_ALLOC(p->node_sets, p->num_node_sets);
  MXN_ALLOC(p->side_sets, p->num_side_sets);
  MXN_ALLOC(p->edge_sets, p->num_edge_sets);
  MXN_ALLOC(p->face_sets, p->num_face_sets);
  MXN_ALLOC(p->elem_sets, p->num_elem_sets);
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int n;
    const mxn_piece_set_t *ss = mxn__psets(src, sk, &n);
    mxn_piece_set_t *ps = mxn__psets(p, sk, &n);
    p->plan->nsets[sk] = n;
    MXN_ALLOC(p->plan->set_src[sk], n);
    for (int q = 0; q < n; q++) {
      MXN_ALLOC(ps[q].entries, 1);
      if (ss[q].sides) MXN_ALLOC(ps[q].sides, 1);
      if (ss[q].orient) MXN_ALLOC(ps[q].orient, 1);
      if (ss[q].member) MXN_ALLOC(ps[q].member, 1);
      ps[q].num_vars = ss[q].num_vars;
      if (ss[q].vars) {
        MXN_ALLOC(ps[q].vars, ss[q].num_vars);
        for (int v = 0; v < ss[q].num_vars; v++)
          if (ss[q].vars[v]) MXN_ALLOC(ps[q].vars[v], 1);
      }
    }
  }
  *out = p;
  return MXN_OK;
done:
  mxn_piece_destroy(&p);
  return status;
}

int mxn__piece_subset(const mxn_structure_t *s, const mxn_piece_t *src, const char *elem_take,
                      int64_t gap, int no_sets, mxn_piece_t **out, mxn_error_t *err) {
  if (!s || !src || !out) return MXN_ERR_ARG;
  *out = NULL;
  int status = MXN_OK;
  char *take[MXN__NEK] = {NULL, NULL, NULL, NULL};
  mxn_piece_t *p = NULL;
  int64_t nk[MXN__NEK] = {src->num_elements, src->num_edges, src->num_faces, src->num_nodes};
  for (int k = 0; k < MXN__NEK; k++) MXN_ALLOC(take[k], nk[k]);
  memcpy(take[MXN__ELEM], elem_take, (size_t)src->num_elements);
  /* What the kept elements refer to: faces, then edges (of elements and
   * faces), then nodes (of all three). */
  static const int order[MXN__NBK] = {MXN__ELEM, MXN__FACE, MXN__EDGE};
  for (int o = 0; o < MXN__NBK; o++) {
    int k = order[o], nb;
    const mxn_block_info_t *sb = mxn__sblocks(s, k, &nb);
    const mxn_piece_block_t *pbk = mxn__pblocks(src, k, &nb);
    for (int q = 0, c = 0; q < nb; q++) {
      const mxn_piece_block_t *x = &pbk[q];
      int npe = sb[q].nodes_per_elem, epe = sb[q].edges_per_elem, fpe = sb[q].faces_per_elem;
      for (int64_t i = 0; i < x->num_elements; i++, c++) {
        if (!take[k][c]) continue;
        for (int j = 0; x->conn && j < npe; j++) take[MXN__NODE][x->conn[i * npe + j]] = 1;
        for (int j = 0; x->edge_conn && j < epe; j++) take[MXN__EDGE][x->edge_conn[i * epe + j]] = 1;
        for (int j = 0; x->face_conn && j < fpe; j++) take[MXN__FACE][x->face_conn[i * fpe + j]] = 1;
      }
    }
  }
  MXN_CHECK(shell_like(src, &p));
  if (src->global_vars) {
    free(p->global_vars);
    MXN_ALLOC(p->global_vars, s->num_global_vars);
    memcpy(p->global_vars, src->global_vars, (size_t)s->num_global_vars * sizeof(double));
  }
  MXN_CHECK(append_impl(s, p, src, take, no_sets, gap, err));
  p->stats = src->stats;
  *out = p;
  p = NULL;
done:
  for (int k = 0; k < MXN__NEK; k++) free(take[k]);
  mxn_piece_destroy(&p);
  return status;
}

typedef struct {
  mxn_gid_t id;
  int64_t i;
} id_at_t;

static int cmp_id_at(const void *x, const void *y) {
  const id_at_t *a = x, *b = y;
  return (a->id > b->id) - (a->id < b->id);
}

/* The permutation sorting ids[0..n) ascending: perm[new] = old. */
static int sort_perm(const mxn_gid_t *ids, int64_t n, int64_t *perm, int *already) {
  int status = MXN_OK;
  id_at_t *t = NULL;
  *already = 1;
  for (int64_t i = 1; i < n && *already; i++) *already = ids[i - 1] < ids[i];
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  if (*already) return MXN_OK;
  MXN_ALLOC(t, n);
  for (int64_t i = 0; i < n; i++) t[i] = (id_at_t){ids[i], i};
  qsort(t, (size_t)n, sizeof *t, cmp_id_at);
  for (int64_t i = 0; i < n; i++) perm[i] = t[i].i;
done:
  free(t);
  return status;
}

int mxn__piece_permute_nodes(mxn_piece_t *p, const mxn_structure_t *s, const int64_t *perm) {
  int status = MXN_OK;
  int64_t n = p->num_nodes, *inv = NULL;
  void *tmp = NULL;
  MXN_ALLOC(inv, n);
  MXN_ALLOC(tmp, n * (int64_t)sizeof(double));
  for (int64_t i = 0; i < n; i++) inv[perm[i]] = i;
  {
    /* every per-node array, gathered through perm */
    int na = 1 + 3 + p->num_node_maps + p->plan_num_node_vars;
    for (int a = 0; a < na; a++) {
      void *arr;
      size_t sz;
      if (a == 0) arr = p->node_ids, sz = sizeof(mxn_gid_t);
      else if (a < 4) arr = p->coord[a - 1], sz = sizeof(double);
      else if (a < 4 + p->num_node_maps) arr = p->node_maps ? p->node_maps[a - 4] : NULL, sz = sizeof(mxn_gid_t);
      else arr = p->node_vars ? p->node_vars[a - 4 - p->num_node_maps] : NULL, sz = sizeof(double);
      if (!arr) continue;
      for (int64_t i = 0; i < n; i++) memcpy((char *)tmp + i * sz, (char *)arr + perm[i] * sz, sz);
      memcpy(arr, tmp, (size_t)n * sz);
    }
  }
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    const mxn_block_info_t *sb = mxn__sblocks(s, k, &nb);
    mxn_piece_block_t *pbk = mxn__pblocks(p, k, &nb);
    for (int q = 0; q < nb; q++)
      if (pbk[q].conn)
        for (int64_t i = 0; i < pbk[q].num_elements * sb[q].nodes_per_elem; i++)
          pbk[q].conn[i] = inv[pbk[q].conn[i]];
  }
  for (int q = 0; q < p->num_node_sets; q++)
    for (int64_t i = 0; i < p->node_sets[q].n; i++)
      p->node_sets[q].entries[i] = inv[p->node_sets[q].entries[i]];
  for (int i = 0; i < p->plan->nnode_seg; i++) {
    segment_t *sg = &p->plan->node_seg[i];
    for (int64_t x = 0; x < sg->n; x++) sg->dst[x] = inv[sg->dst[x]];
  }
done:
  free(inv);
  free(tmp);
  return status;
}

int mxn__piece_sort(mxn_piece_t *p, const mxn_structure_t *s) {
  int status = MXN_OK, already;
  int64_t *perm = NULL;
  for (int b = 0; b < p->num_blocks; b++) {
    free(perm);
    perm = NULL;
    MXN_ALLOC(perm, p->blocks[b].num_elements);
    MXN_CHECK(sort_perm(p->blocks[b].elem_ids, p->blocks[b].num_elements, perm, &already));
    if (!already) MXN_CHECK(mxn__piece_permute_elems(p, s, b, perm));
  }
  free(perm);
  perm = NULL;
  MXN_ALLOC(perm, p->num_nodes);
  MXN_CHECK(sort_perm(p->node_ids, p->num_nodes, perm, &already));
  if (!already) MXN_CHECK(mxn__piece_permute_nodes(p, s, perm));
done:
  free(perm);
  return status;
}

/* A per-element array of a block: base, values per element, value size. */
typedef struct {
  void *arr;
  int64_t w;
  size_t sz;
} elem_array_t;

/* Reorder a poly block's variable-length lists (nodes, and faces of
 * NFACED) through perm. */
static int permute_poly(mxn_piece_block_t *pb, const int64_t *perm) {
  int status = MXN_OK;
  int64_t n = pb->num_elements, *o = NULL, *r = NULL;
  for (int t = 0; t < 2; t++) {
    int64_t **off = t == 0 ? &pb->conn_off : &pb->face_off;
    int64_t **ref = t == 0 ? &pb->conn : &pb->face_conn;
    if (!*off) continue;
    MXN_ALLOC(o, n + 1);
    for (int64_t e = 0; e < n; e++) o[e + 1] = o[e] + (*off)[perm[e] + 1] - (*off)[perm[e]];
    MXN_ALLOC(r, o[n]);
    for (int64_t e = 0; e < n; e++)
      memcpy(r + o[e], *ref + (*off)[perm[e]], (size_t)(o[e + 1] - o[e]) * sizeof *r);
    free(*off);
    free(*ref);
    *off = o;
    *ref = r;
    o = r = NULL;
  }
done:
  free(o);
  free(r);
  return status;
}

int mxn__piece_permute_elems(mxn_piece_t *p, const mxn_structure_t *s, int blk,
                             const int64_t *perm) {
  int status = MXN_OK;
  mxn_piece_block_t *pb = &p->blocks[blk];
  const mxn_block_info_t *bi = &s->blocks[blk];
  int64_t n = pb->num_elements, *inv = NULL, off = 0;
  void *tmp = NULL;
  for (int q = 0; q < blk; q++) off += p->blocks[q].num_elements;
  MXN_ALLOC(inv, n);
  for (int64_t i = 0; i < n; i++) inv[perm[i]] = i;
  if (pb->conn_off) MXN_CHECK(permute_poly(pb, perm));
  /* Each per-element array of width w: gather through perm. */
  const elem_array_t arrays[] = {
      {pb->elem_ids, 1, sizeof(mxn_gid_t)},
      {pb->orig_ids, 1, sizeof(mxn_gid_t)},
      {pb->member, 1, sizeof(int32_t)},
      {pb->conn, bi->nodes_per_elem, sizeof(int64_t)},
      {pb->edge_conn, bi->edges_per_elem, sizeof(int64_t)},
      {pb->face_conn, bi->faces_per_elem, sizeof(int64_t)},
      {pb->attr, bi->num_attr, sizeof(double)}};
  const int na = (int)(sizeof arrays / sizeof arrays[0]);
  size_t maxw = 1;
  for (int i = 0; i < na; i++)
    if ((size_t)arrays[i].w * arrays[i].sz > maxw) maxw = (size_t)arrays[i].w * arrays[i].sz;
  tmp = mxn__malloc((size_t)(n > 0 ? n : 1) * (maxw > sizeof(double) ? maxw : sizeof(double)));
  if (!tmp) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  for (int i = 0; i < na + p->plan_num_elem_vars + p->num_elem_maps; i++) {
    void *arr;
    int64_t w = 1;
    size_t sz;
    if (i < na) {
      arr = arrays[i].arr;
      w = arrays[i].w;
      sz = arrays[i].sz;
    } else if (i < na + p->plan_num_elem_vars) {
      arr = pb->elem_vars ? pb->elem_vars[i - na] : NULL;
      sz = sizeof(double);
    } else {
      arr = pb->maps ? pb->maps[i - na - p->plan_num_elem_vars] : NULL;
      sz = sizeof(mxn_gid_t);
    }
    if (!arr || w <= 0) continue;
    size_t row = (size_t)w * sz;
    for (int64_t e = 0; e < n; e++) memcpy((char *)tmp + e * row, (char *)arr + perm[e] * row, row);
    memcpy(arr, tmp, (size_t)n * row);
  }
  /* The plan writes each element's values where it now is. */
  for (int i = 0; i < p->plan->nseg[MXN__ELEM]; i++) {
    segment_t *sg = &p->plan->seg[MXN__ELEM][i];
    if (sg->block != blk) continue;
    for (int64_t x = 0; x < sg->n; x++) sg->dst[x] = inv[sg->dst[x]];
  }
  /* Side and element sets name elements by concatenated index. */
  static const int elem_set_kinds[2] = {MXN__SSET, MXN__ELSET};
  for (int t = 0; t < 2; t++) {
    int ns, sk = elem_set_kinds[t];
    mxn_piece_set_t *sets = mxn__psets(p, sk, &ns);
    for (int q = 0; q < ns; q++)
      for (int64_t i = 0; i < sets[q].n; i++) {
        int64_t c = sets[q].entries[i];
        if (c >= off && c < off + n) sets[q].entries[i] = off + inv[c - off];
      }
  }
done:
  free(inv);
  free(tmp);
  return status;
}
