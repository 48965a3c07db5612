/* A member's file domain: its id maps read whole, as sorted sets with
 * each id's position in the file (mxn_dataset_file_domain). */
#include "structure/structure.h"

/* ---------- file domains ---------- */

/* Member j's id map of entity kind e (MXN__ELEM...MXN__NODE; n ids) into out. */
static int read_map(mxn_dataset_t *ds, int j, int e, int64_t n, int stored, int64_t *out) {
  const char *const *map_var = mxn__ex_num_map;
  if (n == 0) return MXN_OK;
  if (!stored) {
    /* A single file without maps numbers its entities 1..n. */
    for (int64_t i = 0; i < n; i++) out[i] = i + 1;
    return MXN_OK;
  }
  if (mxn__m_rows(mxn__file_held(ds, j), map_var[e], 0, 0, n, 1, out, 'l'))
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s id map", mxn__file_held(ds, j)->path,
                      mxn__ent_what[e]);
  ds->io.read_calls++;
  ds->io.bytes_read += n * (int64_t)sizeof(int64_t);
  ds->io.map_bytes_read += n * (int64_t)sizeof(int64_t);
  return MXN_OK;
}

/* Under AddressSanitizer each array of a domain's block is followed by
 * DOM_PAD poisoned words, so an overrun into the next array is caught. */
#if MXN_ASAN
#include <sanitizer/asan_interface.h>
#define DOM_PAD 2
#else
#define DOM_PAD 0
#endif

/* The next n words of a domain's block. */
static int64_t *dom_take(int64_t **next, int64_t n) {
  int64_t *r = *next;
  *next += n + DOM_PAD;
#if MXN_ASAN
  ASAN_POISON_MEMORY_REGION(r + n, DOM_PAD * sizeof *r);
#endif
  return r;
}

/* Member j's ids of kind e as the dataset's settlement says (ids.c): the
 * id map as written, or elements by member and position, or nodes by
 * their coordinates. */
static int fill_map(mxn_dataset_t *ds, int j, int e, int64_t n, int stored, int64_t *out) {
  const mxn_structure_t *s = &ds->s;
  if (e == MXN__ELEM && (s->id_fallback & MXN_IDS_ELEM_BY_POSITION)) {
    /* (the records of the members before j, rebuilt where not held: a
     * fallback for sets repeating element ids) */
    int64_t off = 0;
    for (int i = 0; i < j; i++) {
      const mxn__file_t *fi = mxn__file(ds, i);
      if (!fi) return ds->err.status;
      off += fi->kb[MXN__ELEM].num;
    }
    for (int64_t i = 0; i < n; i++) out[i] = off + i + 1;
    return MXN_OK;
  }
  if (e != MXN__NODE || !(s->id_fallback & MXN_IDS_NODE_BY_COORDS) || n == 0)
    return read_map(ds, j, e, n, stored, out);
  int status = MXN_OK;
  double *buf = NULL;
  MXN_ALLOC_RAW(buf, 3 * n);
  double *xyz[3] = {buf, buf + n, buf + 2 * n};
  for (int64_t i = 0; i < n; i++) xyz[1][i] = xyz[2][i] = 0; /* absent axes */
  if (mxn__m_coords(mxn__file_held(ds, j), s->num_dim, 0, n, 1, xyz)) {
    status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read the node coordinates", mxn__file_held(ds, j)->path);
    goto done;
  }
  ds->io.read_calls++;
  ds->io.bytes_read += n * s->num_dim * (int64_t)sizeof(double);
  ds->io.map_bytes_read += n * s->num_dim * (int64_t)sizeof(double);
  mxn__ids_from_coords(ds, n, xyz, out);
done:
  free(buf);
  return status;
}

/* Note member j's first repeated id of kind e (map[0..n), the set tmp
 * with each entry's place tpos) where no lower member has one noted. */
static void note_repeat(mxn_dataset_t *ds, int j, int e, const int64_t *map, int64_t n,
                        const mxn_idset_t *tmp, const int64_t *tpos) {
  mxn__ids_t *ids = &ds->ids;
  if (ids->dup_file[e] >= 0 && ids->dup_file[e] <= j) return;
  /* the first position whose id an earlier position already holds */
  char *seen = mxn__calloc((size_t)tmp->n + 1, 1);
  int64_t dup = map[0];
  for (int64_t i = 0; seen && i < n; i++) {
    if (seen[tpos[i]]) {
      dup = map[i];
      break;
    }
    seen[tpos[i]] = 1;
  }
  free(seen);
  ids->dup_file[e] = j;
  ids->dup_id[e] = dup;
}

int mxn_dataset_file_domain(mxn_dataset_t *ds, int j, const mxn_file_domain_t **out) {
  if (!ds || !out || !ds->opened || j < 0 || j >= ds->nfiles) return MXN_ERR_ARG;
  mxn__file_t *f = mxn__file(ds, j);
  if (!f) return ds->err.status;
  if (f->dom) {
    *out = f->dom;
    return MXN_OK;
  }
  int status = MXN_OK;
  mxn_file_domain_t *d = NULL;
  mxn_idset_t tmp = MXN_IDSET_INIT;
  int64_t *tpos = NULL;
  if (!mxn__file_open(ds, j, &status)) return status;
  /* The domain is one block: its maps, sets and positions lie side by
   * side and go back to the heap in one piece (mxn__file_domain_free).
   * Made one array at a time, a thousand small members' domains left the
   * memory they free after the extraction in pieces that the plan's and
   * the piece's long-lived small arrays kept apart. The block comes before
   * the temporaries that build it, which go back to the heap's top. */
  int64_t nk[MXN__NEK];
  for (int e = 0; e < MXN__NEK; e++) nk[e] = mxn__file_count(f, e);
  int orig = f->have_orig_map && nk[MXN__ELEM] > 0;
  size_t words = (orig ? (size_t)nk[MXN__ELEM] : 0) + 15 * DOM_PAD;
  for (int e = 0; e < MXN__NEK; e++) words += 3 * (size_t)nk[e]; /* map, ids, positions */
  size_t head = (sizeof *d + 7) & ~(size_t)7;
  size_t bytes = head + words * sizeof(int64_t);
  char *block = mxn__malloc(bytes);
  if (!block) return MXN_ERR_NOMEM;
  d = (mxn_file_domain_t *)block;
  memset(d, 0, sizeof *d);
  int64_t *next = (int64_t *)(block + head);
#define TAKE(n) dom_take(&next, (n))
  for (int e = 0; e < MXN__NEK; e++) {
    int64_t n = nk[e];
    mxn__dom_kind_t dk = mxn__dom_kind(d, e);
    mxn_gid_t *map = *dk.map = TAKE(n);
    mxn_idset_t *set = dk.set;
    int64_t **pos = dk.pos;
    *dk.n = n;
    set->ids = TAKE(n);
    *pos = TAKE(n);
    int stored = e == MXN__NODE ? f->has_node_map : f->kb[e].has_map;
    MXN_CHECK(fill_map(ds, j, e, n, stored, map));
    /* from_array_pos maps input -> set; invert to set -> the first file
     * position of each id. A repeated id is noted for the dataset's
     * settlement (ids.c), which decides what stands in for such maps;
     * nodes on the coordinate grid repeat where a member stores one point
     * twice, and both positions are that node. */
    MXN_CHECK(mxn_idset_from_array_pos(map, n, &tmp, &tpos));
    if (tmp.n != n) note_repeat(ds, j, e, map, n, &tmp, tpos);
    if (tmp.n > 0) memcpy(set->ids, tmp.ids, (size_t)tmp.n * sizeof *set->ids);
    set->n = tmp.n;
    for (int64_t i = n - 1; i >= 0; i--) (*pos)[tpos[i]] = i;
    mxn_idset_free(&tmp);
    free(tpos);
    tpos = NULL;
  }
  if (orig) d->orig_elem_ids = TAKE(d->num_elements);
#undef TAKE
  if (orig) {
    /* Exodus's elem_map<position of the map's id among the member's> */
    int m = mxn__file_map(f, MXN__ELEM, f->orig_map_id) + 1;
    if (mxn__m_rows(f, mxn__ex_map[MXN__ELEM], m, 0, d->num_elements, 1, d->orig_elem_ids, 'l')) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read original_global_id_map",
                          f->path);
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += d->num_elements * (int64_t)sizeof(int64_t);
    ds->io.map_bytes_read += d->num_elements * (int64_t)sizeof(int64_t);
  }
  f->dom = d;
  d = NULL;
  *out = f->dom;
done:
  mxn_idset_free(&tmp);
  free(tpos);
  mxn__file_domain_free(d);
  return status;
}

void mxn__dataset_drop_domains(mxn_dataset_t *ds) {
  for (int j = 0; ds && j < ds->nfiles; j++) {
    if (!mxn__file_held(ds, j)) continue;
    mxn__file_domain_free(mxn__file_held(ds, j)->dom);
    mxn__file_held(ds, j)->dom = NULL; /* read again by mxn_dataset_file_domain() if asked */
  }
}

/* Node ids from coordinates on the dataset's grid (ids.c settles it):
 * each axis's cell index, three packed in one positive id. */
void mxn__ids_from_coords(const mxn_dataset_t *ds, int64_t n, double *const xyz[3],
                          mxn_gid_t *out) {
  const mxn__ids_t *g = &ds->ids;
  int nd = ds->s.num_dim;
  for (int64_t i = 0; i < n; i++) {
    int64_t id = 0;
    for (int d = 0; d < 3; d++) {
      double t = d < nd ? (xyz[d][i] - g->lo[d]) / g->h + 0.5 : 0;
      int64_t q = t >= 0 && t < (double)MXN__ID_GRID_N ? (int64_t)t : t >= (double)MXN__ID_GRID_N ? MXN__ID_GRID_N - 1 : 0;
      id = id << MXN__ID_GRID_BITS | q;
    }
    out[i] = id + 1;
  }
}

int mxn_dataset_file_block(const mxn_dataset_t *ds, int j, int b, int64_t *start, int64_t *count) {
  if (!ds || !ds->opened || j < 0 || j >= ds->nfiles || b < 0 || b >= ds->s.num_blocks || !start ||
      !count)
    return MXN_ERR_ARG;
  const mxn__file_t *f = mxn__file((mxn_dataset_t *)ds, j); /* rebuilt where not held */
  if (!f) return ds->err.status;
  const mxn__blocks_t *kb = &f->kb[MXN__ELEM];
  const mxn__span_t *sp = mxn__span_of(kb, b);
  int declared = 0;
  *start = *count = 0;
  if (sp) {
    *start = sp->start;
    *count = sp->count;
    return 1;
  }
  /* declared empty: it starts where the blocks before it end */
  for (int q = 0; q < kb->nblk && !declared; q++) {
    if (kb->blk_of_file[q] == b) declared = 1;
    else if ((sp = mxn__span_of(kb, kb->blk_of_file[q])) && sp->q == q) *start += sp->count;
  }
  if (!declared) *start = 0;
  return declared;
}
