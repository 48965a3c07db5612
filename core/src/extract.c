/* Extraction of a piece through the minimal cover (seed §II.B-C): plan
 * once, read geometry and sets once, read fields per step with the plan.
 *
 * Elements are what a caller asks for. Edges and faces follow the elements
 * that refer to them (element->edge/face connectivity): the element
 * partition is propagated to the other cell types, as the seed's "indirect
 * connectivity" says. Nodes follow elements, edges and faces alike. Each
 * kind gets its own greedy cover, preferring the members already read. */
#include "internal.h"

#include <netcdf.h>
#include <stdio.h>

/* Longest single read, in entries: bounds the scratch buffer. */
#define MXN__MAX_RUN 262144

#include "plan.h"


static int cmp_pair(const void *a, const void *b) {
  const pair_t *x = a, *y = b;
  if (x->off != y->off) return (x->off > y->off) - (x->off < y->off);
  return (x->dst > y->dst) - (x->dst < y->dst);
}

void mxn__plan_elem_sources(const mxn_piece_t *pc, const int64_t *bstart, const char *only,
                            int32_t *file, int64_t *off) {
  for (int i = 0; i < pc->plan->nseg[MXN__ELEM]; i++) {
    const segment_t *sg = &pc->plan->seg[MXN__ELEM][i];
    for (int64_t x = 0; x < sg->n; x++) {
      int64_t e = bstart[sg->block] + sg->dst[x];
      if (only && !only[e]) continue;
      file[e] = sg->file;
      if (off) off[e] = sg->off[x];
    }
  }
}

int mxn__cmp_seg_file(const void *a, const void *b) {
  const segment_t *x = a, *y = b;
  return (x->file > y->file) - (x->file < y->file);
}

struct mxn__plan_mem {
  mxn__plan_mem_t *next;
  size_t used, cap, pad; /* the data after this header stays 16-byte aligned */
};

/* Blocks grow from 64 KiB to 8 MiB; a request of more than a quarter of
 * the next block gets a block of its own behind the current one, so the
 * current one's room is not left unused. */
#define PLAN_MEM_FIRST ((size_t)64 << 10)
#define PLAN_MEM_LAST ((size_t)8 << 20)
/* Under AddressSanitizer every request is a block of its own, so writes
 * past a segment's arrays are still caught. */
#define PLAN_MEM_EACH MXN_ASAN

void *mxn__plan_alloc(mxn__plan_t *p, size_t bytes) {
  size_t asked = bytes ? bytes : 1;
  if (bytes > SIZE_MAX - 15) return NULL;
  bytes = bytes ? (bytes + 15) & ~(size_t)15 : 16;
  mxn__plan_mem_t *m = p->mem;
  if (m && bytes <= m->cap - m->used) {
    void *r = (char *)(m + 1) + m->used;
    m->used += bytes;
    return r;
  }
  size_t cap = m ? 2 * m->cap : PLAN_MEM_FIRST;
  if (cap > PLAN_MEM_LAST) cap = PLAN_MEM_LAST;
  int own = PLAN_MEM_EACH || bytes > cap / 4;
  if (own) cap = PLAN_MEM_EACH ? asked : bytes;
  if (cap > SIZE_MAX - sizeof *m) return NULL;
  mxn__plan_mem_t *b = mxn__malloc(sizeof *b + cap);
  if (!b) return NULL;
  b->cap = cap;
  b->used = own ? cap : bytes; /* a block of its own is full */
  if (own && m) { /* behind the current block, which keeps its room */
    b->next = m->next;
    m->next = b;
  } else {
    b->next = m;
    p->mem = b;
  }
  return b + 1;
}

static void set_src_free(set_src_t *s) {
  free(s->file);
  free(s->pos);
  free(s->dst);
}

void mxn__plan_free(mxn__plan_t *p) {
  if (!p) return;
  for (int k = 0; k < MXN__NBK; k++) free(p->seg[k]);
  free(p->node_seg);
  for (int k = 0; k < MXN__NSK; k++) {
    if (p->set_src[k])
      for (int q = 0; q < p->nsets[k]; q++) set_src_free(&p->set_src[k][q]);
    free(p->set_src[k]);
  }
  free(p->buf);
  for (mxn__plan_mem_t *m = p->mem, *next; m; m = next) {
    next = m->next;
    free(m);
  }
  free(p);
}

/* Sort a segment's (offset, destination) pairs into s->off / s->dst. */
int mxn__segment_sort(mxn__plan_t *p, segment_t *s, pair_t *pairs, int64_t n) {
  int status = MXN_OK;
  MXN_CHECK(mxn__radix_sort(pairs, n, sizeof *pairs));
  mxn__sort_ties(pairs, n, sizeof *pairs, cmp_pair);
  s->n = n;
  s->off = mxn__plan_alloc(p, (size_t)n * sizeof *s->off);
  s->dst = mxn__plan_alloc(p, (size_t)n * sizeof *s->dst);
  if (!s->off || !s->dst) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    s->off[i] = pairs[i].off;
    s->dst[i] = pairs[i].dst;
  }
done:
  return status;
}

/* Coalesce a sorted segment's offsets into runs: offsets closer than `gap`
 * entries share one read. */
int mxn__segment_runs(mxn__plan_t *p, segment_t *s, int64_t gap) {
  int status = MXN_OK;
  const int64_t n = s->n;
  /* Count the runs first: room for one per entry would be mostly unused
   * (a whole member is one run) and, from 4 MiB on, populated in full. */
  int64_t nruns = 0;
  {
    int64_t start = 0, end = 0; /* the open run: [start, end) */
    for (int64_t i = 0; i < n; i++) {
      if (nruns && s->off[i] - end <= gap && s->off[i] + 1 - start <= MXN__MAX_RUN) {
        end = s->off[i] + 1;
      } else {
        nruns++;
        start = s->off[i];
        end = start + 1;
      }
    }
  }
  if (!(s->runs = mxn__plan_alloc(p, (size_t)nruns * sizeof *s->runs))) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  s->nruns = 0;
  for (int64_t i = 0; i < n; i++) {
    run_t *r = s->nruns ? &s->runs[s->nruns - 1] : NULL;
    if (r && s->off[i] - (r->start + r->count) <= gap &&
        s->off[i] + 1 - r->start <= MXN__MAX_RUN) {
      r->count = s->off[i] + 1 - r->start;
      r->n++;
    } else {
      s->runs[s->nruns++] = (run_t){s->off[i], 1, i, 1, 1};
    }
  }
done:
  return status;
}

int mxn__segment_build(mxn__plan_t *p, segment_t *s, pair_t *pairs, int64_t n, int64_t gap) {
  int status = MXN_OK;
  MXN_CHECK(mxn__segment_sort(p, s, pairs, n));
  MXN_CHECK(mxn__segment_runs(p, s, gap));
done:
  return status;
}

int64_t mxn__gap_within(const segment_t *segs, int nseg, const double *width, int64_t gap,
                        double budget, double *spent) {
  *spent = 0;
  if (gap <= 0 || nseg <= 0) return gap > 0 ? gap : 0;
  /* The widest gap there is (the histogram below needs no more room). */
  int64_t widest = 0;
  for (int i = 0; i < nseg; i++)
    for (int64_t e = 1; e < segs[i].n; e++) {
      int64_t g = segs[i].off[e] - segs[i].off[e - 1] - 1;
      if (g > widest && g <= gap) widest = g;
    }
  if (widest == 0) return gap; /* nothing between wanted entries to merge */
  gap = widest;
  /* cost[g]: the bytes read beyond the wanted entries if every gap of g
   * entries is merged. Gaps wider than `gap` never merge and cost nothing. */
  double *cost = calloc((size_t)gap + 1, sizeof *cost);
  if (!cost) return 0; /* no room to weigh them: merge none, read exactly */
  for (int i = 0; i < nseg; i++) {
    const segment_t *sg = &segs[i];
    for (int64_t e = 1; e < sg->n; e++) {
      int64_t g = sg->off[e] - sg->off[e - 1] - 1;
      if (g > 0 && g <= gap) cost[g] += (double)g * width[i];
    }
  }
  double sum = 0;
  int64_t best = 0;
  for (int64_t g = 1; g <= gap; g++) {
    if (sum + cost[g] > budget) break;
    sum += cost[g];
    best = g;
  }
  free(cost);
  *spent = sum;
  return best;
}

/* The gap kind k's segments (nodes: k = MXN__NODE) merge with, within
 * what is left of the plan's budget (mxn_extract_opts_t gap_share over the
 * wanted bytes of every kind so far); width[i]: bytes per entry of seg i. */
static int64_t plan_gap(mxn__plan_t *plan, const mxn_extract_opts_t *opts, const segment_t *segs,
                        int nseg, const double *width) {
  if (opts->gap_share <= 0) return opts->gap;
  for (int i = 0; i < nseg; i++) plan->gap_want += (double)segs[i].n * width[i];
  double spent;
  int64_t g = mxn__gap_within(segs, nseg, width, opts->gap,
                              opts->gap_share * plan->gap_want - plan->gap_spent, &spent);
  plan->gap_spent += spent;
  return g;
}

int mxn__plan_buf(mxn__plan_t *p, int64_t doubles) {
  if (doubles <= p->buf_cap) return MXN_OK;
  double *b = mxn__realloc(p->buf, (size_t)doubles * sizeof *b);
  if (!b) return MXN_ERR_NOMEM;
  p->buf = b;
  p->buf_cap = doubles;
  return MXN_OK;
}

void mxn__piece_block_free(mxn_piece_block_t *pb, int nvars, int nmaps) {
  free(pb->elem_ids);
  free(pb->orig_ids);
  free(pb->conn);
  free(pb->conn_off);
  free(pb->face_off);
  free(pb->edge_conn);
  free(pb->face_conn);
  free(pb->attr);
  if (pb->elem_vars) {
    for (int v = 0; v < nvars; v++) free(pb->elem_vars[v]);
    free(pb->elem_vars);
  }
  if (pb->maps) {
    for (int m = 0; m < nmaps; m++) free(pb->maps[m]);
    free(pb->maps);
  }
}

void mxn_piece_destroy(mxn_piece_t **pp) {
  if (!pp || !*pp) return;
  mxn_piece_t *p = *pp;
  free(p->node_ids);
  for (int d = 0; d < 3; d++) free(p->coord[d]);
  const int nvars[MXN__NBK] = {p->plan_num_elem_vars, p->plan_num_edge_vars,
                               p->plan_num_face_vars};
  const int nmaps[MXN__NBK] = {p->num_elem_maps, p->num_edge_maps, p->num_face_maps};
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    mxn_piece_block_t *blocks = mxn__pblocks(p, k, &nb);
    if (!blocks) continue;
    for (int b = 0; b < nb; b++) mxn__piece_block_free(&blocks[b], nvars[k], nmaps[k]);
    free(blocks);
  }
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int n;
    mxn_piece_set_t *sets = mxn__psets(p, sk, &n);
    if (!sets) continue;
    for (int q = 0; q < n; q++) {
      free(sets[q].entries);
      free(sets[q].sides);
      free(sets[q].orient);
      free(sets[q].df);
      free(sets[q].df_offsets);
      if (sets[q].vars)
        for (int v = 0; v < sets[q].num_vars; v++) free(sets[q].vars[v]);
      free(sets[q].vars);
    }
    free(sets);
  }
  if (p->node_maps) {
    for (int m = 0; m < p->num_node_maps; m++) free(p->node_maps[m]);
    free(p->node_maps);
  }
  if (p->node_vars) {
    for (int v = 0; v < p->plan_num_node_vars; v++) free(p->node_vars[v]);
    free(p->node_vars);
  }
  free(p->global_vars);
  mxn__plan_free(p->plan);
  free(p);
  *pp = NULL;
}

/* Union of all members' ids of entity kind e. */
static int all_ids(mxn_dataset_t *ds, int e, mxn_idset_t *out) {
  int status = MXN_OK;
  int64_t total = 0;
  mxn_gid_t *cat = NULL;
  for (int j = 0; j < ds->nfiles; j++) total += mxn__dom_set(ds->files[j].dom, e)->n;
  MXN_ALLOC(cat, total);
  int64_t k = 0;
  for (int j = 0; j < ds->nfiles; j++) {
    const mxn_idset_t *s = mxn__dom_set(ds->files[j].dom, e);
    if (s->n) memcpy(cat + k, s->ids, (size_t)s->n * sizeof *cat);
    k += s->n;
  }
  MXN_CHECK(mxn_idset_from_array(cat, total, out));
done:
  free(cat);
  return status;
}

/* Ids of entity kind e marked in the members (mark[j][l]: file-local entry
 * l is used), together with the `extra` ids. */
static int marked_ids(mxn_dataset_t *ds, int e, char **mark, const mxn_idset_t *extra,
                      mxn_idset_t *out) {
  int status = MXN_OK;
  mxn_gid_t *gids = NULL;
  int64_t total = extra ? extra->n : 0;
  for (int j = 0; j < ds->nfiles; j++)
    if (mark && mark[j])
      for (int64_t l = 0; l < mxn__dom_n(ds->files[j].dom, e); l++) total += mark[j][l];
  MXN_ALLOC(gids, total);
  int64_t k = 0;
  for (int j = 0; j < ds->nfiles; j++)
    if (mark && mark[j]) {
      const mxn_gid_t *map = mxn__dom_map(ds->files[j].dom, e);
      for (int64_t l = 0; l < mxn__dom_n(ds->files[j].dom, e); l++)
        if (mark[j][l]) gids[k++] = map[l];
    }
  if (extra && extra->n) memcpy(gids + k, extra->ids, (size_t)extra->n * sizeof *gids);
  MXN_CHECK(mxn_idset_from_array(gids, total, out));
done:
  free(gids);
  return status;
}

/* Greedy cover of P by the domains of entity kind e, preferring the
 * members already read (cand): other members are used only for what those
 * lack (ids no chosen element refers to), and then join cand. F is scratch
 * of ds->nfiles entries. The caller reports out->uncovered. */
static int cover_pref(mxn_dataset_t *ds, int e, const mxn_idset_t *P, char *cand,
                      const char *allowed, mxn_idset_t *F, mxn_cover_t *out) {
  int status = MXN_OK, M = ds->nfiles;
  mxn_cover_t rest;
  memset(&rest, 0, sizeof rest);
  for (int j = 0; j < M; j++)
    F[j] = cand[j] ? *mxn__dom_set(ds->files[j].dom, e) : (mxn_idset_t)MXN_IDSET_INIT;
  MXN_CHECK(mxn__cover_greedy(P, F, M, 0, out));
  if (out->uncovered.n == 0) goto done;
  for (int j = 0; j < M; j++)
    F[j] = (allowed && !allowed[j]) ? (mxn_idset_t)MXN_IDSET_INIT
                                    : *mxn__dom_set(ds->files[j].dom, e);
  MXN_CHECK(mxn__cover_greedy(&out->uncovered, F, M, 0, &rest));
  if (rest.nparts == 0) goto done;
  for (int c = 0; c < rest.nparts; c++) cand[rest.parts[c].file] = 1;
  mxn_cover_free(out);
  for (int j = 0; j < M; j++)
    F[j] = cand[j] ? *mxn__dom_set(ds->files[j].dom, e) : (mxn_idset_t)MXN_IDSET_INIT;
  MXN_CHECK(mxn__cover_greedy(P, F, M, 0, out));
done:
  mxn_cover_free(&rest);
  return status;
}

/* Block of kind k holding file position `fpos` of member f (a member's
 * blocks are contiguous). */
static int block_of(const mxn__file_t *f, int k, int64_t fpos) {
  const mxn__blocks_t *kb = &f->kb[k];
  for (int q = 0; q < kb->nblk; q++) {
    int b = kb->blk_of_file[q];
    if (fpos >= kb->blk_start[b] && fpos < kb->blk_start[b] + kb->blk_count[b]) return b;
  }
  return -1;
}

/* Lazily allocated per-member marks of used entries of entity kind e. */
static int mark_of(mxn_dataset_t *ds, char **mark, int j, int e) {
  if (mark[j]) return MXN_OK;
  int64_t n = mxn__file_count(&ds->files[j], e);
  mark[j] = mxn__calloc((size_t)n + 1, 1);
  return mark[j] ? MXN_OK : MXN_ERR_NOMEM;
}

/* File-local position (1-based) of structure block b of kind k in member
 * f, as Exodus numbers its variables; 0 if the member has none. */
static int file_block(const mxn__file_t *f, int k, int b) {
  for (int i = 0; i < f->kb[k].nblk; i++)
    if (f->kb[k].blk_of_file[i] == b) return i + 1;
  return 0;
}

/* File-local position (1-based) of the set of kind sk with id `id` in
 * member f (the first, as Exodus looks ids up); 0 if it has none. */
static int file_set(const mxn__file_t *f, int sk, int64_t id) {
  for (int i = 0; i < f->sk[sk].nfile; i++)
    if (f->sk[sk].ids[i] == id) return i + 1;
  return 0;
}

/* Connectivity of a poly block's segment: the members' per-entry counts
 * give each run's range in the flat reference list (NSIDED: nodes,
 * NFACED: faces), read with one netCDF call per run; references stay
 * member-local 1-based numbers here (renumbered with the others) and mark
 * what the piece needs. */
static int read_poly_conn(mxn_dataset_t *ds, mxn_piece_t *piece, int k, const segment_t *sg,
                          const mxn_block_info_t *bi, mxn_piece_block_t *pb,
                          char **mark[MXN__NEK]) {
  int status = MXN_OK, varid, q = -1, nd = 0;
  mxn__file_t *f = &ds->files[sg->file];
  const mxn__blocks_t *kb = &f->kb[k];
  mxn__plan_t *plan = piece->plan;
  const int64_t *eo;
  int nfaced = bi->poly == MXN_POLY_NFACED;
  int ent = nfaced ? MXN__FACE : MXN__NODE;
  int64_t nfile = nfaced ? f->kb[MXN__FACE].num : f->num_nodes;
  int64_t *dst = nfaced ? pb->face_conn : pb->conn;
  const int64_t *doff = nfaced ? pb->face_off : pb->conn_off;
  MXN_CHECK(mxn__poly_offsets(ds, sg->file, k, sg->block, &eo));
  if (!mxn__file_open(ds, sg->file, &status)) goto done;
  for (int i = 0; i < kb->nblk; i++)
    if (kb->blk_of_file[i] == sg->block) q = i;
  char name[40];
  mxn__name_d(name, sizeof name, nfaced ? "facconn%d" : k == MXN__FACE ? "fbconn%d" : "connect%d",
              q + 1);
  if (q < 0 || (varid = mxn__m_var(f, name)) < 0 || (nd = mxn__m_ndims(f, varid)) != 1) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: %s block %lld (%s): no one-dimensional connectivity variable %s",
                        f->path, mxn__blk_what[k], (long long)bi->id, bi->type, name);
    goto done;
  }
  for (int64_t r = 0; r < sg->nruns; r++) {
    const run_t *run = &sg->runs[r];
    int64_t a = eo[run->start], len = eo[run->start + run->count] - a;
    MXN_CHECK(mxn__plan_buf(plan, len > 0 ? len : 1));
    long long *v = (long long *)plan->buf;
    size_t start = (size_t)a, count = (size_t)len;
    if (len > 0 && mxn__m_get(f, varid, &start, &count, NULL, v, 'l') != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_IO,
                          "%s: %s block %lld (%s): cannot read the references of entries "
                          "%lld..%lld",
                          f->path, mxn__blk_what[k], (long long)bi->id, bi->type,
                          (long long)run->start + 1, (long long)(run->start + run->count));
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += len * (int64_t)sizeof(int64_t);
    for (int64_t e = run->first; e < run->first + run->n; e++) {
      int64_t rel = sg->off[e], d = doff[sg->dst[e]];
      for (int64_t c = eo[rel]; c < eo[rel + 1]; c++) {
        int64_t x = v[c - a];
        if (x < 1 || x > nfile) {
          status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                              "%s: %s block %lld (%s): %s %lld refers to %s %lld, the file "
                              "has %lld %ss",
                              f->path, mxn__blk_what[k], (long long)bi->id, bi->type,
                              mxn__blk_what[k], (long long)pb->elem_ids[sg->dst[e]],
                              mxn__ent_what[ent], (long long)x, (long long)nfile,
                              mxn__ent_what[ent]);
          goto done;
        }
        dst[d + c - eo[rel]] = x;
        mark[ent][sg->file][x - 1] = 1;
      }
    }
  }
done:
  return status;
}

/* The entities of block kind k the piece holds (sorted P, covered by cov):
 * piece blocks in id order, one segment per (file, block) coalesced into
 * runs, connectivity read as file-local 1-based numbers (renumbered once
 * every kind is known) marking the nodes, edges and faces it uses,
 * attributes and original ids. p2local[i] receives the local index of
 * P->ids[i] over the concatenated blocks. */
static int read_blocks(mxn_dataset_t *ds, mxn_piece_t *piece, int k, const mxn_idset_t *P,
                       const mxn_cover_t *cov, const mxn_extract_opts_t *opts,
                       char **mark[MXN__NEK], int64_t *p2local) {
  const mxn_structure_t *s = &ds->s;
  int M = ds->nfiles, NB;
  const mxn_block_info_t *sb = mxn__sblocks(s, k, &NB);
  mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &NB);
  mxn__plan_t *plan = piece->plan;
  const char *what = mxn__blk_what[k];
  int status = MXN_OK;
  int *file_of = NULL, *blk_of = NULL;
  int64_t *fpos_of = NULL, *idx_in_blk = NULL, *blk_fill = NULL, *blk_local0 = NULL,
          *seg_count = NULL, *start = NULL, *fill = NULL;
  pair_t *pairs = NULL;
  double *width = NULL;

  /* Where each wanted entity is: file, position, block. */
  MXN_ALLOC_RAW(file_of, P->n);
  MXN_ALLOC_RAW(fpos_of, P->n);
  MXN_ALLOC_RAW(blk_of, P->n);
  for (int c = 0; c < cov->nparts; c++) {
    const mxn_cover_part_t *cp = &cov->parts[c];
    const mxn__file_t *f = &ds->files[cp->file];
    const int64_t *pos = mxn__dom_pos(f->dom, k);
    for (int64_t i = 0; i < cp->E.n; i++) {
      int64_t p = cp->mp[i], fpos = pos[cp->mf[i]];
      file_of[p] = cp->file;
      fpos_of[p] = fpos;
      blk_of[p] = block_of(f, k, fpos);
      if (blk_of[p] < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s %lld lies in no block", f->path, what,
                            (long long)P->ids[p]);
        goto done;
      }
    }
  }

  /* Piece blocks: entities of each block in global id order. */
  MXN_ALLOC_RAW(idx_in_blk, P->n);
  MXN_ALLOC(blk_fill, NB);
  for (int64_t p = 0; p < P->n; p++) idx_in_blk[p] = blk_fill[blk_of[p]]++;
  MXN_ALLOC(blk_local0, NB + 1);
  for (int b = 0; b < NB; b++) {
    mxn_piece_block_t *pb = &pblocks[b];
    const mxn_block_info_t *bi = &sb[b];
    int64_t n = blk_fill[b];
    pb->num_elements = n;
    blk_local0[b + 1] = blk_local0[b] + n;
    MXN_ALLOC_RAW(pb->elem_ids, MXN__CAP(piece, n));
    if (bi->poly) {
      /* Offsets from the members' per-entry counts (NFACED: into the
       * faces; its nodes are derived once the faces are known). */
      MXN_ALLOC(pb->conn_off, n + 1);
      if (bi->poly == MXN_POLY_NFACED) MXN_ALLOC(pb->face_off, n + 1);
      continue;
    }
    MXN_ALLOC_RAW(pb->conn, MXN__CAP(piece, n) * bi->nodes_per_elem);
    if (bi->edges_per_elem > 0) MXN_ALLOC(pb->edge_conn, MXN__CAP(piece, n) * bi->edges_per_elem);
    if (bi->faces_per_elem > 0) MXN_ALLOC(pb->face_conn, MXN__CAP(piece, n) * bi->faces_per_elem);
    if (bi->num_attr > 0 && !opts->no_attributes) MXN_ALLOC(pb->attr, MXN__CAP(piece, n) * bi->num_attr);
    if (k == MXN__ELEM && s->has_original_elem_ids) MXN_ALLOC(pb->orig_ids, MXN__CAP(piece, n));
  }
  for (int64_t p = 0; p < P->n; p++) {
    pblocks[blk_of[p]].elem_ids[idx_in_blk[p]] = P->ids[p];
    p2local[p] = blk_local0[blk_of[p]] + idx_in_blk[p];
  }
  /* Poly blocks: each entry's reference count, then offsets and storage. */
  for (int64_t p = 0; p < P->n; p++) {
    int b = blk_of[p];
    if (!sb[b].poly) continue;
    const int64_t *eo;
    MXN_CHECK(mxn__poly_offsets(ds, file_of[p], k, b, &eo));
    int64_t rel = fpos_of[p] - ds->files[file_of[p]].kb[k].blk_start[b];
    int64_t *off = sb[b].poly == MXN_POLY_NFACED ? pblocks[b].face_off : pblocks[b].conn_off;
    off[idx_in_blk[p] + 1] = eo[rel + 1] - eo[rel];
  }
  for (int b = 0; b < NB; b++) {
    mxn_piece_block_t *pb = &pblocks[b];
    if (!sb[b].poly) continue;
    int64_t *off = sb[b].poly == MXN_POLY_NFACED ? pb->face_off : pb->conn_off;
    for (int64_t i = 0; i < pb->num_elements; i++) off[i + 1] += off[i];
    if (sb[b].poly == MXN_POLY_NFACED)
      MXN_ALLOC(pb->face_conn, off[pb->num_elements]);
    else
      MXN_ALLOC(pb->conn, off[pb->num_elements]);
  }

  /* Segments: one per (file, block), coalesced into runs; bucket P by
   * (file, block) with one counting pass. */
  MXN_ALLOC(seg_count, (int64_t)M * NB);
  for (int64_t p = 0; p < P->n; p++) seg_count[(int64_t)file_of[p] * NB + blk_of[p]]++;
  int nseg = 0;
  for (int64_t i = 0; i < (int64_t)M * NB; i++) nseg += seg_count[i] > 0;
  MXN_ALLOC(plan->seg[k], nseg);
  MXN_ALLOC_RAW(pairs, P->n);
  MXN_ALLOC(start, (int64_t)M * NB + 1);
  MXN_ALLOC(fill, (int64_t)M * NB + 1);
  for (int64_t i = 0; i < (int64_t)M * NB; i++) start[i + 1] = start[i] + seg_count[i];
  for (int64_t p = 0; p < P->n; p++) {
    int64_t key = (int64_t)file_of[p] * NB + blk_of[p];
    const mxn__file_t *f = &ds->files[file_of[p]];
    pairs[start[key] + fill[key]++] =
        (pair_t){fpos_of[p] - f->kb[k].blk_start[blk_of[p]], idx_in_blk[p]};
  }
  for (int j = 0; j < M; j++)
    for (int b = 0; b < NB; b++) {
      int64_t key = (int64_t)j * NB + b;
      if (seg_count[key] == 0) continue;
      segment_t *sg = &plan->seg[k][plan->nseg[k]++];
      sg->file = j;
      sg->block = b;
      MXN_CHECK(mxn__segment_sort(plan, sg, pairs + start[key], seg_count[key]));
    }
  {
    /* Bytes per entry of each segment: its block's references, attributes
     * and numbered-map values (poly blocks: their mean references). */
    int nmaps;
    mxn__smaps(s, k, &nmaps);
    MXN_ALLOC(width, plan->nseg[k]);
    for (int i = 0; i < plan->nseg[k]; i++) {
      const mxn_block_info_t *bi = &sb[plan->seg[k][i].block];
      double refs = bi->nodes_per_elem + bi->edges_per_elem + bi->faces_per_elem + bi->num_attr +
                    nmaps;
      if (bi->poly && bi->num_elements > 0)
        refs += 1 + (double)bi->num_conn / (double)bi->num_elements;
      width[i] = 8 * (refs > 0 ? refs : 1);
    }
    int64_t gap = plan_gap(plan, opts, plan->seg[k], plan->nseg[k], width);
    for (int i = 0; i < plan->nseg[k]; i++) {
      segment_t *sg = &plan->seg[k][i];
      MXN_CHECK(mxn__segment_runs(plan, sg, gap));
      if (k == MXN__ELEM)
        piece->stats.elem_runs += sg->nruns;
      else if (k == MXN__EDGE)
        piece->stats.edge_runs += sg->nruns;
      else
        piece->stats.face_runs += sg->nruns;
    }
  }

  /* Connectivity (file-local numbers for now) and attributes. */
  for (int i = 0; i < plan->nseg[k]; i++) {
    segment_t *sg = &plan->seg[k][i];
    mxn__file_t *f = &ds->files[sg->file];
    const mxn_block_info_t *bi = &sb[sg->block];
    mxn_piece_block_t *pb = &pblocks[sg->block];
    int npe = bi->nodes_per_elem, epe = bi->edges_per_elem, fpe = bi->faces_per_elem;
    int na = pb->attr ? bi->num_attr : 0;
    int64_t nfile[3] = {f->num_nodes, f->kb[MXN__EDGE].num, f->kb[MXN__FACE].num};
    int q = file_block(f, k, sg->block);
    if (!mxn__file_open(ds, sg->file, &status)) goto done;
    MXN_CHECK(mark_of(ds, mark[MXN__NODE], sg->file, MXN__NODE));
    if (epe > 0) MXN_CHECK(mark_of(ds, mark[MXN__EDGE], sg->file, MXN__EDGE));
    if (fpe > 0 || bi->poly == MXN_POLY_NFACED)
      MXN_CHECK(mark_of(ds, mark[MXN__FACE], sg->file, MXN__FACE));
    if (bi->poly) {
      MXN_CHECK(read_poly_conn(ds, piece, k, sg, bi, pb, mark));
      if (na == 0 && !pb->orig_ids) continue;
    }
    for (int64_t r = 0; r < sg->nruns; r++) {
      const run_t *run = &sg->runs[r];
      int64_t per = npe + epe + fpe > na ? npe + epe + fpe : na;
      MXN_CHECK(mxn__plan_buf(plan, run->count * (per > 0 ? per : 1)));
      int64_t *nconn = (int64_t *)plan->buf;
      int64_t *econn = nconn + run->count * npe, *fconn = econn + run->count * epe;
      /* Exodus's variables: a block's node references, and an element
       * block's edge and face references */
      static const char *const conn_var[MXN__NBK] = {"connect%d", "ebconn%d", "fbconn%d"};
      if (!bi->poly &&
          ((npe > 0 && mxn__m_rows(f, conn_var[k], q, run->start, run->count, npe, nconn, 'l')) ||
           (epe > 0 && mxn__m_rows(f, "edgconn%d", q, run->start, run->count, epe, econn, 'l')) ||
           (fpe > 0 && mxn__m_rows(f, "facconn%d", q, run->start, run->count, fpe, fconn, 'l')))) {
        status = MXN_DS_ERR(ds, MXN_ERR_IO,
                            "%s: %s block %lld: cannot read connectivity of entries "
                            "%lld..%lld",
                            f->path, what, (long long)bi->id, (long long)run->start + 1,
                            (long long)(run->start + run->count));
        goto done;
      }
      if (!bi->poly) {
        ds->io.read_calls++;
        ds->io.bytes_read += run->count * (npe + epe + fpe) * (int64_t)sizeof(int64_t);
      }
      for (int64_t e = run->first; e < run->first + run->n; e++) {
        int64_t at = sg->off[e] - run->start;
        /* Node, edge and face references, each checked against the file. */
        const int64_t *src[3] = {nconn + at * npe, econn + at * epe, fconn + at * fpe};
        int64_t *dst[3] = {pb->conn + sg->dst[e] * npe,
                           pb->edge_conn ? pb->edge_conn + sg->dst[e] * epe : NULL,
                           pb->face_conn ? pb->face_conn + sg->dst[e] * fpe : NULL};
        const int width[3] = {npe, epe, fpe};
        const int ent[3] = {MXN__NODE, MXN__EDGE, MXN__FACE};
        for (int t = 0; t < 3 && !bi->poly; t++) {
          if (width[t] <= 0) continue; /* and its marks may not exist */
          /* in locals: a store through the char marks may alias anything,
           * and the compiler reloaded every pointer and bound after each */
          const int64_t *restrict in = src[t];
          int64_t *restrict out = dst[t];
          char *restrict mk = mark[ent[t]][sg->file];
          const uint64_t nf = (uint64_t)nfile[t];
          const int w = width[t];
          int bad = -1;
          for (int c = 0; c < w; c++) {
            int64_t v = in[c];
            if ((uint64_t)v - 1 >= nf) { /* v < 1 or v > nf */
              bad = c;
              break;
            }
            out[c] = v;
            mk[v - 1] = 1;
          }
          if (bad >= 0) {
            status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                                "%s: %s block %lld: %s %lld refers to %s %lld, the "
                                "file has %lld %ss",
                                f->path, what, (long long)bi->id, what,
                                (long long)pb->elem_ids[sg->dst[e]], mxn__ent_what[ent[t]],
                                (long long)in[bad], (long long)nfile[t], mxn__ent_what[ent[t]]);
            goto done;
          }
        }
        if (pb->orig_ids)
          pb->orig_ids[sg->dst[e]] =
              f->dom->orig_elem_ids
                  ? f->dom->orig_elem_ids[f->kb[k].blk_start[sg->block] + sg->off[e]]
                  : pb->elem_ids[sg->dst[e]];
      }
      if (na > 0) {
        static const char *const attr_var[MXN__NBK] = {"attrib%d", "eattrb%d", "fattrb%d"};
        if (mxn__m_rows(f, attr_var[k], q, run->start, run->count, na, plan->buf, 'd')) {
          status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s block %lld: cannot read attributes",
                              f->path, what, (long long)bi->id);
          goto done;
        }
        ds->io.read_calls++;
        ds->io.bytes_read += run->count * na * (int64_t)sizeof(double);
        for (int64_t e = run->first; e < run->first + run->n; e++)
          memcpy(pb->attr + sg->dst[e] * na, plan->buf + (sg->off[e] - run->start) * na,
                 (size_t)na * sizeof(double));
      }
    }
  }
done:
  free(file_of);
  free(fpos_of);
  free(blk_of);
  free(idx_in_blk);
  free(blk_fill);
  free(blk_local0);
  free(seg_count);
  free(start);
  free(fill);
  free(pairs);
  free(width);
  return status;
}

/* Numbered map values of every entity of the piece, read along the same
 * segments as connectivity and coordinates. A member without a map
 * contributes zeros. */
static int read_maps(mxn_dataset_t *ds, mxn_piece_t *piece) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  static const char *const map_var[MXN__NEK] = {"elem_map%d", "edge_map%d", "face_map%d",
                                                "node_map%d"};
  for (int e = 0; e < MXN__NEK; e++) {
    int nmaps;
    const mxn_map_info_t *maps = mxn__smaps(s, e, &nmaps);
    if (nmaps == 0) continue;
    int nseg = e == MXN__NODE ? plan->nnode_seg : plan->nseg[e];
    segment_t *segs = e == MXN__NODE ? plan->node_seg : plan->seg[e];
    int nb = 0;
    mxn_piece_block_t *pblocks = e == MXN__NODE ? NULL : mxn__pblocks(piece, e, &nb);
    if (e == MXN__NODE) {
      MXN_ALLOC(piece->node_maps, nmaps);
      for (int m = 0; m < nmaps; m++) MXN_ALLOC(piece->node_maps[m], MXN__CAP(piece, piece->num_nodes));
    } else {
      for (int b = 0; b < nb; b++) {
        MXN_ALLOC(pblocks[b].maps, nmaps);
        for (int m = 0; m < nmaps; m++) MXN_ALLOC(pblocks[b].maps[m], MXN__CAP(piece, pblocks[b].num_elements));
      }
    }
    for (int i = 0; i < nseg; i++) {
      segment_t *sg = &segs[i];
      const mxn__file_t *f = &ds->files[sg->file];
      int64_t base = e == MXN__NODE ? 0 : f->kb[e].blk_start[sg->block];
      for (int m = 0; m < nmaps; m++) {
        int fm = mxn__file_map(f, e, maps[m].id);
        if (fm < 0) continue;
        mxn_gid_t *out = e == MXN__NODE ? piece->node_maps[m] : pblocks[sg->block].maps[m];
        if (!mxn__file_open(ds, sg->file, &status)) goto done;
        for (int64_t r = 0; r < sg->nruns; r++) {
          const run_t *run = &sg->runs[r];
          MXN_CHECK(mxn__plan_buf(plan, run->count));
          int64_t *v = (int64_t *)plan->buf;
          if (mxn__m_rows(f, map_var[e], fm + 1, base + run->start, run->count, 1, v, 'l')) {
            status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s map %lld ('%s'): cannot read entries "
                                "%lld..%lld",
                                f->path, mxn__ent_what[e], (long long)maps[m].id, maps[m].name,
                                (long long)(base + run->start + 1),
                                (long long)(base + run->start + run->count));
            goto done;
          }
          ds->io.read_calls++;
          ds->io.bytes_read += run->count * (int64_t)sizeof(int64_t);
          for (int64_t x = run->first; x < run->first + run->n; x++)
            out[sg->dst[x]] = v[sg->off[x] - run->start];
        }
      }
    }
  }
done:
  return status;
}

static int read_sets(mxn_dataset_t *ds, mxn_piece_t *piece, const char *cand,
                     int64_t **l2p[MXN__NEK], const mxn_idset_t *P, const int64_t *p2local);

int mxn__nfaced_nodes(mxn_dataset_t *ds, mxn_piece_t *piece, int b) {
  const mxn_structure_t *s = &ds->s;
  mxn_piece_block_t *pb = &piece->blocks[b];
  int status = MXN_OK;
  int64_t *fstart = NULL, *conn = NULL, *off = NULL, cap = 0, n = 0;
  /* Piece face index -> (face block, entry). */
  MXN_ALLOC(fstart, piece->num_face_blocks + 1);
  for (int fb = 0; fb < piece->num_face_blocks; fb++)
    fstart[fb + 1] = fstart[fb] + piece->face_blocks[fb].num_elements;
  MXN_ALLOC(off, pb->num_elements + 1);
  for (int64_t k = 0; k < pb->num_elements; k++) {
    int64_t first = n;
    for (int64_t x = pb->face_off[k]; x < pb->face_off[k + 1]; x++) {
      int64_t face = pb->face_conn[x];
      if (face < 0 || face >= fstart[piece->num_face_blocks]) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: element block %lld: polyhedron %lld refers to a face the "
                            "piece lacks",
                            ds->files[0].path, (long long)s->blocks[b].id,
                            (long long)pb->elem_ids[k]);
        goto done;
      }
      int fb = (int)(mxn__lower_bound(fstart + 1, piece->num_face_blocks, face + 1));
      const mxn_piece_block_t *pf = &piece->face_blocks[fb];
      int64_t fk = face - fstart[fb];
      int npe = s->face_blocks[fb].nodes_per_elem;
      int64_t c0 = mxn__conn_at(pf, npe, fk);
      int nn = mxn__conn_n(pf, npe, fk);
      if (n + nn > cap) {
        cap = 2 * (n + nn) + 64;
        int64_t *g = mxn__realloc(conn, (size_t)cap * sizeof *g);
        if (!g) {
          status = MXN_ERR_NOMEM;
          goto done;
        }
        conn = g;
      }
      for (int c = 0; c < nn; c++) {
        int64_t v = pf->conn[c0 + c];
        int64_t i = first;
        while (i < n && conn[i] != v) i++;
        if (i == n) conn[n++] = v;
      }
    }
    off[k + 1] = n;
  }
  free(pb->conn);
  free(pb->conn_off);
  pb->conn = conn ? conn : mxn__calloc(1, sizeof *conn);
  pb->conn_off = off;
  conn = NULL;
  off = NULL;
  if (!pb->conn) status = MXN_ERR_NOMEM;
done:
  free(fstart);
  free(conn);
  free(off);
  return status;
}

/* An empty piece of structure s: counts, empty blocks of every kind, an
 * empty plan. */
static int piece_shell(const mxn_structure_t *s, mxn_piece_t **out) {
  int status = MXN_OK;
  mxn_piece_t *piece = NULL;
  MXN_ALLOC(piece, 1);
  MXN_ALLOC(piece->plan, 1);
  piece->num_dim = s->num_dim;
  piece->step = -1;
  piece->plan_num_node_vars = s->num_node_vars;
  piece->plan_num_elem_vars = s->num_elem_vars;
  piece->plan_num_edge_vars = s->edge_vars.num;
  piece->plan_num_face_vars = s->face_vars.num;
  piece->num_node_maps = s->num_node_maps;
  piece->num_edge_maps = s->num_edge_maps;
  piece->num_face_maps = s->num_face_maps;
  piece->num_elem_maps = s->num_elem_maps;
  MXN_ALLOC(piece->blocks, s->num_blocks);
  piece->num_blocks = s->num_blocks;
  MXN_ALLOC(piece->edge_blocks, s->num_edge_blocks);
  piece->num_edge_blocks = s->num_edge_blocks;
  MXN_ALLOC(piece->face_blocks, s->num_face_blocks);
  piece->num_face_blocks = s->num_face_blocks;
  *out = piece;
  return MXN_OK;
done:
  mxn_piece_destroy(&piece);
  return status;
}

/* Storage for the field values (selected variables only), filled by
 * mxn_piece_read_step(). */
static int alloc_fields(mxn_dataset_t *ds, mxn_piece_t *piece, const mxn_extract_opts_t *opts) {
  const mxn_structure_t *s = &ds->s;
  int status = MXN_OK;
  MXN_ALLOC(piece->node_vars, s->num_node_vars);
  /* Unselected variables get no storage and are never read. */
  for (int v = 0; v < s->num_node_vars; v++)
    if (!opts->node_var_mask || opts->node_var_mask[v])
      MXN_ALLOC(piece->node_vars[v], MXN__CAP(piece, piece->num_nodes));
  MXN_ALLOC(piece->global_vars, s->num_global_vars);
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &nb);
    mxn_var_list_t vl = mxn__bvars(s, k);
    for (int b = 0; b < nb; b++) {
      mxn_piece_block_t *pb = &pblocks[b];
      MXN_ALLOC(pb->elem_vars, vl.num);
      for (int v = 0; v < vl.num; v++)
        if (vl.truth[(int64_t)b * vl.num + v] &&
            (k != MXN__ELEM || !opts->elem_var_mask || opts->elem_var_mask[v]))
          MXN_ALLOC(pb->elem_vars[v], MXN__CAP(piece, pb->num_elements));
    }
  }

done:
  return status;
}

/* The strided runs of a segment (time steps, and coordinates and
 * attributes of a halo layer): its runs, with 3 or more consecutive single
 * entries at one stride joined into a strided run. */
static int step_runs(mxn__plan_t *plan, segment_t *sg) {
  if (sg->vruns || sg->nruns == 0) return MXN_OK;
  sg->vruns = mxn__plan_alloc(plan, (size_t)sg->nruns * sizeof *sg->vruns);
  if (!sg->vruns) return MXN_ERR_NOMEM;
  int64_t m = 0;
  for (int64_t r = 0; r < sg->nruns;) {
    run_t a = sg->runs[r];
    a.stride = 1;
    int64_t q = r + 1;
    if (a.n == 1 && q < sg->nruns && sg->runs[q].n == 1) {
      int64_t d = sg->runs[q].start - a.start;
      while (q < sg->nruns && sg->runs[q].n == 1 && sg->runs[q].start - sg->runs[q - 1].start == d)
        q++;
      if (q - r >= 3 && d > 1) {
        a.n = q - r;
        a.count = (a.n - 1) * d + 1;
        a.stride = d;
      } else {
        q = r + 1;
      }
    }
    sg->vruns[m++] = a;
    r = q;
  }
  sg->nvruns = m;
  return MXN_OK;
}

/* Where the value of entry e of a run is in plan->buf after a read of
 * the run (read_var_run, read_coords, attributes). */
static inline int64_t run_at(const segment_t *sg, const run_t *run, int64_t e) {
  return run->stride > 1 ? (sg->off[e] - run->start) / run->stride : sg->off[e] - run->start;
}

/* Coordinates of the piece's nodes along its node segments. Single nodes
 * at a constant stride (a halo layer cutting across a member's node rows)
 * are read with one strided read per coordinate, in either layout
 * (mxn__m_coords). */
static int read_coords(mxn_dataset_t *ds, mxn_piece_t *piece) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK, nd = s->num_dim;
  for (int d = 0; d < nd; d++) MXN_ALLOC_RAW(piece->coord[d], MXN__CAP(piece, piece->num_nodes));
  for (int i = 0; i < plan->nnode_seg; i++) {
    segment_t *sg = &plan->node_seg[i];
    const mxn__file_t *f = mxn__file_open(ds, sg->file, &status);
    if (!f) goto done;
    MXN_CHECK(step_runs(plan, sg));
    for (int64_t r = 0; r < sg->nvruns; r++) {
      const run_t *run = &sg->vruns[r];
      int64_t len = run->stride > 1 ? run->n : run->count;
      MXN_CHECK(mxn__plan_buf(plan, len * 3));
      double *x = plan->buf, *y = x + len, *z = y + len, *src[3] = {x, y, z};
      /* one read per run, per coordinate where strided */
      int bad = mxn__m_coords(f, nd, run->start, len, run->stride > 1 ? run->stride : 1, src);
      ds->io.read_calls += run->stride > 1 ? nd : 1;
      if (bad) {
        status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read coordinates of nodes %lld..%lld",
                            ds->files[sg->file].path, (long long)run->start + 1,
                            (long long)(run->start + (run->n - 1) * (run->stride > 1 ? run->stride : 1) + 1));
        goto done;
      }
      ds->io.bytes_read += len * nd * (int64_t)sizeof(double);
      for (int64_t e = run->first; e < run->first + run->n; e++)
        for (int d = 0; d < nd; d++) piece->coord[d][sg->dst[e]] = src[d][run_at(sg, run, e)];
    }
  }

done:
  return status;
}

/* mxn_extract's per-kind scratch: ids, covers, marks and numberings, freed
 * and emptied (again safe to free). */
static void extract_scratch_free(int M, mxn_idset_t P[MXN__NEK], mxn_cover_t cov[MXN__NEK],
                                 char **mark[MXN__NEK], int64_t **l2p[MXN__NEK],
                                 int64_t *p2local[MXN__NBK]) {
  for (int e = 0; e < MXN__NEK; e++) {
    mxn_idset_free(&P[e]);
    mxn_cover_free(&cov[e]);
    if (mark[e])
      for (int j = 0; j < M; j++) free(mark[e][j]);
    free(mark[e]);
    mark[e] = NULL;
    if (l2p[e])
      for (int j = 0; j < M; j++) free(l2p[e][j]);
    free(l2p[e]);
    l2p[e] = NULL;
  }
  for (int k = 0; k < MXN__NBK; k++) {
    free(p2local[k]);
    p2local[k] = NULL;
  }
}

int mxn_extract(mxn_dataset_t *ds, const mxn_idset_t *want,
                const mxn_extract_opts_t *opts, mxn_piece_t **out) {
  if (!ds || !out) return MXN_ERR_ARG;
  *out = NULL;
  if (!ds->opened) return MXN_DS_ERR(ds, MXN_ERR_ARG, "extract: the dataset is not open");
  mxn_extract_opts_t defaults;
  memset(&defaults, 0, sizeof defaults);
  if (!opts) opts = &defaults;
  const mxn_structure_t *s = &ds->s;
  int M = ds->nfiles;
  int status = MXN_OK;
  mxn_piece_t *piece = NULL;
  /* Per entity kind (MXN__ELEM, EDGE, FACE, NODE): the piece's sorted ids,
   * their cover, per-member marks of used entries, and member-local ->
   * piece-local numbering. */
  mxn_idset_t P[MXN__NEK];
  mxn_cover_t cov[MXN__NEK];
  char **mark[MXN__NEK];
  int64_t **l2p[MXN__NEK];
  int64_t *p2local[MXN__NBK];
  for (int e = 0; e < MXN__NEK; e++) {
    P[e] = (mxn_idset_t)MXN_IDSET_INIT;
    memset(&cov[e], 0, sizeof cov[e]);
    mark[e] = NULL;
    l2p[e] = NULL;
  }
  for (int k = 0; k < MXN__NBK; k++) p2local[k] = NULL;
  mxn_idset_t *F = NULL;
  char *cand = NULL;
  pair_t *pairs = NULL;

  /* The members this extraction may use; only their id maps are read. */
  const char *allowed = want ? opts->file_mask : NULL;
  for (int j = 0; j < M; j++) {
    const mxn_file_domain_t *d;
    if (allowed && !allowed[j]) continue;
    MXN_CHECK(mxn_dataset_file_domain(ds, j, &d));
  }
  for (int e = 0; e < MXN__NEK; e++) {
    MXN_ALLOC(mark[e], M);
    MXN_ALLOC(l2p[e], M);
  }
  MXN_ALLOC(F, M);
  MXN_ALLOC(cand, M);
  MXN_CHECK(piece_shell(s, &piece));
  mxn__plan_t *plan = piece->plan;
  plan->reserve = opts->reserve > 0 && opts->reserve < 16 ? opts->reserve : 0;

  /* 1. Elements: P and its greedy cover by the files' element domains. */
  if (want)
    MXN_CHECK(mxn_idset_copy(want, &P[MXN__ELEM]));
  else
    MXN_CHECK(all_ids(ds, MXN__ELEM, &P[MXN__ELEM]));
  /* A set with a member duplicated, or taken from another decomposition,
   * opens fine but lacks elements its Nemesis data promises. */
  if (!want && s->num_elements_global >= 0 && P[MXN__ELEM].n != s->num_elements_global) {
    status = MXN_DS_ERR(ds, MXN_ERR_FILESET,
                        "%s: the %d files hold %lld distinct elements but their "
                        "Nemesis data declares %lld: a member is duplicated or "
                        "from another decomposition",
                        ds->files[0].path, M, (long long)P[MXN__ELEM].n,
                        (long long)s->num_elements_global);
    goto done;
  }
  for (int j = 0; j < M; j++) /* borrowed */
    F[j] = (allowed && !allowed[j]) ? (mxn_idset_t)MXN_IDSET_INIT : ds->files[j].dom->elems;
  MXN_CHECK(mxn__cover_greedy(&P[MXN__ELEM], F, M, 0, &cov[MXN__ELEM]));
  if (cov[MXN__ELEM].uncovered.n > 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_NOTFOUND,
                        "%s: %lld wanted element ids are in no file of the set "
                        "(first: %lld)",
                        ds->files[0].path, (long long)cov[MXN__ELEM].uncovered.n,
                        (long long)cov[MXN__ELEM].uncovered.ids[0]);
    goto done;
  }
  piece->stats.files_in_cover = cov[MXN__ELEM].nparts;
  for (int c = 0; c < cov[MXN__ELEM].nparts; c++) cand[cov[MXN__ELEM].parts[c].file] = 1;
  if (!want)
    for (int j = 0; j < M; j++) cand[j] = 1; /* a join reads every member */
  MXN_ALLOC_RAW(p2local[MXN__ELEM], P[MXN__ELEM].n);
  MXN_CHECK(read_blocks(ds, piece, MXN__ELEM, &P[MXN__ELEM], &cov[MXN__ELEM], opts, mark,
                        p2local[MXN__ELEM]));
  piece->num_elements = P[MXN__ELEM].n;
  mxn_cover_free(&cov[MXN__ELEM]); /* read: a cover is only the reads' plan */

  /* 2. Edges and faces: those the elements refer to (every one for a
   * join), plus the extra ones asked for; then 3. nodes of all of them. */
  for (int e = MXN__EDGE; e < MXN__NEK; e++) {
    const mxn_idset_t *extra = e == MXN__EDGE ? opts->extra_edges
                               : e == MXN__FACE ? opts->extra_faces
                                                : opts->extra_nodes;
    if (!want)
      MXN_CHECK(all_ids(ds, e, &P[e]));
    else
      MXN_CHECK(marked_ids(ds, e, mark[e], extra, &P[e]));
    MXN_CHECK(cover_pref(ds, e, &P[e], cand, allowed, F, &cov[e]));
    if (cov[e].uncovered.n > 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_NOTFOUND, "%s: %s %lld is in no file of the set",
                          ds->files[0].path, mxn__ent_what[e],
                          (long long)cov[e].uncovered.ids[0]);
      goto done;
    }
    if (e == MXN__NODE) break;
    MXN_ALLOC_RAW(p2local[e], P[e].n);
    MXN_CHECK(read_blocks(ds, piece, e, &P[e], &cov[e], opts, mark, p2local[e]));
    mxn_cover_free(&cov[e]);
    if (e == MXN__EDGE)
      piece->num_edges = P[e].n;
    else
      piece->num_faces = P[e].n;
  }
  const mxn_idset_t *PN = &P[MXN__NODE];
  piece->num_nodes = PN->n;
  MXN_ALLOC_RAW(piece->node_ids, MXN__CAP(piece, PN->n));
  if (PN->n) memcpy(piece->node_ids, PN->ids, (size_t)PN->n * sizeof *PN->ids);

  /* Node segments, then coordinates. */
  MXN_ALLOC(plan->node_seg, cov[MXN__NODE].nparts);
  MXN_ALLOC_RAW(pairs, PN->n);
  for (int c = 0; c < cov[MXN__NODE].nparts; c++) {
    const mxn_cover_part_t *cp = &cov[MXN__NODE].parts[c];
    const mxn_file_domain_t *d = ds->files[cp->file].dom;
    for (int64_t i = 0; i < cp->E.n; i++) pairs[i] = (pair_t){d->node_pos[cp->mf[i]], cp->mp[i]};
    segment_t *sg = &plan->node_seg[plan->nnode_seg++];
    sg->file = cp->file;
    sg->block = -1;
    MXN_CHECK(mxn__segment_sort(plan, sg, pairs, cp->E.n));
  }
  {
    double *width = NULL;
    MXN_ALLOC(width, plan->nnode_seg);
    int nmaps;
    mxn__smaps(s, MXN__NODE, &nmaps);
    for (int i = 0; i < plan->nnode_seg; i++) width[i] = 8.0 * (s->num_dim + nmaps);
    int64_t gap = plan_gap(plan, opts, plan->node_seg, plan->nnode_seg, width);
    free(width);
    for (int i = 0; i < plan->nnode_seg; i++) {
      MXN_CHECK(mxn__segment_runs(plan, &plan->node_seg[i], gap));
      piece->stats.node_runs += plan->node_seg[i].nruns;
    }
  }
  free(pairs);
  pairs = NULL;
  mxn_cover_free(&cov[MXN__NODE]);
  /* Visit members in file order when reading (see mxn_piece_read_step). */
  qsort(plan->node_seg, (size_t)plan->nnode_seg, sizeof *plan->node_seg, mxn__cmp_seg_file);
  MXN_CHECK(read_coords(ds, piece));

  /* 4. Member-local node/edge/face numbers -> piece-local indices, for
   * every member read, then connectivity renumbered with them. */
  for (int e = MXN__EDGE; e < MXN__NEK; e++) {
    if (P[e].n == 0) continue;
    for (int j = 0; j < M; j++) {
      if (!cand[j]) continue;
      const mxn_file_domain_t *d = ds->files[j].dom;
      int64_t n = mxn__dom_n(d, e);
      MXN_ALLOC(l2p[e][j], n);
      for (int64_t l = 0; l < n; l++) l2p[e][j][l] = -1;
      (void)mxn__idset_match(mxn__dom_set(d, e), &P[e], mxn__dom_pos(d, e),
                             e == MXN__NODE ? NULL : p2local[e], l2p[e][j]);
    }
  }
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    const mxn_block_info_t *sb = mxn__sblocks(s, k, &nb);
    mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &nb);
    for (int i = 0; i < plan->nseg[k]; i++) {
      segment_t *sg = &plan->seg[k][i];
      mxn_piece_block_t *pb = &pblocks[sg->block];
      const mxn_block_info_t *bi = &sb[sg->block];
      int64_t *conn[3] = {pb->conn, pb->edge_conn, pb->face_conn};
      const int width[3] = {bi->nodes_per_elem, bi->edges_per_elem, bi->faces_per_elem};
      const int64_t *off[3] = {pb->conn_off, NULL, pb->face_off};
      const int ent[3] = {MXN__NODE, MXN__EDGE, MXN__FACE};
      for (int t = 0; t < 3; t++) {
        if (bi->poly == MXN_POLY_NFACED && t == 0) continue; /* derived below */
        if (!conn[t] || (width[t] == 0 && !off[t])) continue;
        const int64_t *map = l2p[ent[t]][sg->file];
        for (int64_t x = 0; x < sg->n; x++) {
          int64_t c0 = off[t] ? off[t][sg->dst[x]] : sg->dst[x] * width[t];
          int64_t c1 = off[t] ? off[t][sg->dst[x] + 1] : c0 + width[t];
          int64_t *c = conn[t];
          for (int64_t q = c0; q < c1; q++) c[q] = map[c[q] - 1];
        }
      }
    }
  }

  /* Polyhedra: their nodes through their faces. */
  for (int b = 0; b < s->num_blocks; b++)
    if (s->blocks[b].poly == MXN_POLY_NFACED) MXN_CHECK(mxn__nfaced_nodes(ds, piece, b));

  /* 5. Sets restricted to the piece, 6. numbered maps. */
  if (!opts->no_sets)
    MXN_CHECK(read_sets(ds, piece, cand, l2p, &P[MXN__ELEM], p2local[MXN__ELEM]));
  MXN_CHECK(read_maps(ds, piece));

  /* 7. Field storage, filled by mxn_piece_read_step(), once the scratch is
   * gone: allocated beside it, the fields made the load's high-water mark
   * (1M hex on 4 ranks: 95 MB of heap on a rank, 9 MB of it fields and
   * 35 MB scratch). */
  extract_scratch_free(M, P, cov, mark, l2p, p2local);
  free(F);
  free(cand);
  F = NULL;
  cand = NULL;
  MXN_CHECK(alloc_fields(ds, piece, opts));

  *out = piece;
  piece = NULL;
done:
  mxn_piece_destroy(&piece);
  extract_scratch_free(M, P, cov, mark, l2p, p2local);
  free(F);
  free(cand);
  free(pairs);
  return status;
}

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
  mxn__file_t *f = &ds->files[j];
  int status = MXN_OK, varid, q = -1;
  const int64_t *eo;
  *out = -1;
  MXN_CHECK(mxn__poly_offsets(ds, j, MXN__ELEM, b, &eo));
  if (side < 1 || side > eo[rel + 1] - eo[rel]) goto done;
  if (s->blocks[b].poly == MXN_POLY_NSIDED) {
    if (s->num_dim == 2) *out = 2;
    goto done;
  }
  const mxn__blocks_t *kb = &f->kb[MXN__ELEM];
  for (int i = 0; i < kb->nblk; i++)
    if (kb->blk_of_file[i] == b) q = i;
  char name[40];
  mxn__name_d(name, sizeof name, "facconn%d", q + 1);
  /* The block's face list, read whole once per member and block: side
   * sets name sides all over a block, one read each would be many. */
  if (fc->file != j || fc->block != b) {
    int64_t nref = eo[f->kb[MXN__ELEM].blk_count[b]];
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
  int fb = block_of(f, MXN__FACE, face - 1);
  if (fb < 0) goto done;
  if (s->face_blocks[fb].poly) {
    const int64_t *fo;
    MXN_CHECK(mxn__poly_offsets(ds, j, MXN__FACE, fb, &fo));
    int64_t fr = face - 1 - f->kb[MXN__FACE].blk_start[fb];
    *out = (int)(fo[fr + 1] - fo[fr]);
  } else {
    *out = s->face_blocks[fb].nodes_per_elem;
  }
done:
  return status;
}

/* Gather each set of every kind from the candidate members, keep entries
 * in the piece, drop repeats (shared nodes, edges, faces appear in several
 * members), order by local entry. Remember where each kept entry came from:
 * set variables are values per entry. */
static int read_sets(mxn_dataset_t *ds, mxn_piece_t *piece, const char *cand,
                     int64_t **l2p[MXN__NEK], const mxn_idset_t *P, const int64_t *p2local) {
  /* Entity kind each set kind's entries name. */
  static const int ent_of[MXN__NSK] = {MXN__NODE, MXN__ELEM, MXN__EDGE, MXN__FACE, MXN__ELEM};
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  set_item_t *items = NULL;
  src_item_t *src = NULL;
  double *dfs = NULL;
  int64_t *ent = NULL, *extra = NULL;
  double *df = NULL;
  int *cnt = NULL;
  faces_cache_t fcache = {-1, -1, NULL};
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
    static const char *const ent_var[MXN__NSK] = {"node_ns%d", "elem_ss%d", "edge_es%d",
                                                  "face_fs%d", "elem_els%d"};
    static const char *const extra_var[MXN__NSK] = {NULL, "side_ss%d", "ornt_es%d", "ornt_fs%d",
                                                    NULL};
    static const char *const df_var[MXN__NSK] = {"dist_fact_ns%d", "dist_fact_ss%d",
                                                 "dist_fact_es%d", "dist_fact_fs%d",
                                                 "dist_fact_els%d"};
    for (int q = 0; q < nsets; q++) {
      const mxn_set_info_t *si = &sets[q];
      mxn_piece_set_t *ps = &(*psets)[q];
      int64_t nitems = 0, ndf = 0, cap_items = 0, cap_df = 0;
      for (int j = 0; j < ds->nfiles; j++) {
        mxn__file_t *f = &ds->files[j];
        int64_t n = f->sk[sk].count[q], nd = f->sk[sk].df[q];
        if (!cand[j] || n <= 0) continue;
        int64_t nfile = mxn__file_count(f, e);
        int fq = file_set(f, sk, si->id);
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
          if (!side || nd == n) {
            if (nd != n) {
              status = MXN_DS_ERR(ds, MXN_ERR_UNSUPPORTED,
                                  "%s: %s %lld: %lld distribution factors for %lld "
                                  "entries; only one per entry is supported",
                                  f->path, what, (long long)si->id, (long long)nd,
                                  (long long)n);
              goto done;
            }
            for (int64_t i = 0; i < n; i++) cnt[i] = 1;
          } else {
            /* Nodes per side from the element's topology (Exodus 6.02's
             * ex_get_side_set_node_count is unsafe with the 64-bit API). */
            /* Sides of elements of a type MxN does not know (the block's
             * type is carried through unchanged) share the factors the
             * known sides leave, equally; anything else is an error. */
            int64_t known = 0, unknown = 0;
            for (int64_t i = 0; i < n; i++) {
              int b = (ent[i] >= 1 && ent[i] <= nfile) ? block_of(f, MXN__ELEM, ent[i] - 1) : -1;
              if (b >= 0 && s->blocks[b].poly) {
                MXN_CHECK(poly_side_nodes(ds, &fcache, j, b,
                                          ent[i] - 1 - f->kb[MXN__ELEM].blk_start[b],
                                          (int)extra[i], &cnt[i]));
              } else {
                cnt[i] = b < 0 ? -1
                               : mxn__side_node_count(s->blocks[b].type, s->blocks[b].nodes_per_elem,
                                                      (int)extra[i]);
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
          }
          int64_t sum = 0;
          for (int64_t i = 0; i < n; i++) sum += cnt[i];
          if (sum != nd) {
            status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                                "%s: %s %lld: %lld distribution factors for "
                                "%lld entries needing %lld",
                                f->path, what, (long long)si->id, (long long)nd, (long long)n,
                                (long long)sum);
            goto done;
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
        free(src);
        src = NULL;
      }
    }
  }
done:
  free(fcache.faces);
  free(items);
  free(src);
  free(dfs);
  free(ent);
  free(extra);
  free(df);
  free(cnt);
  return status;
}

/* Set variables of one step, member by member (each member once). */
static int read_set_vars(mxn_dataset_t *ds, mxn_piece_t *piece, int step) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  static const char *const var_name[MXN__NSK] = {"vals_nset_var%dns%d", "vals_sset_var%dss%d",
                                                 "vals_eset_var%des%d", "vals_fset_var%dfs%d",
                                                 "vals_elset_var%des%d"};
  int64_t *cur[MXN__NSK] = {NULL};
  int any = 0;
  for (int sk = 0; sk < MXN__NSK; sk++) {
    MXN_ALLOC(cur[sk], plan->nsets[sk]);
    for (int q = 0; q < plan->nsets[sk]; q++) any |= plan->set_src[sk][q].n > 0;
  }
  for (int j = 0; j < ds->nfiles && any; j++) {
    const mxn__file_t *f = &ds->files[j];
    for (int sk = 0; sk < MXN__NSK; sk++) {
      int nsets;
      const mxn_set_info_t *sets = mxn__ssets(s, sk, &nsets);
      const mxn_var_list_t *vl = mxn__svars(s, sk);
      mxn_piece_set_t *psets = mxn__psets(piece, sk, &nsets);
      for (int q = 0; q < plan->nsets[sk]; q++) {
        const set_src_t *ss = &plan->set_src[sk][q];
        int64_t a = cur[sk][q], b = a;
        while (b < ss->n && ss->file[b] == j) b++;
        if (b == a) continue;
        cur[sk][q] = b;
        int64_t nfile = f->sk[sk].count[q];
        for (int v = 0; v < vl->num; v++) {
          double *out = psets[q].vars[v];
          if (!out) continue;
          if (!f->sk[sk].truth[(int64_t)q * vl->num + v]) {
            /* Absent in this member: not stored, so it reads as 0. */
            for (int64_t i = a; i < b; i++) out[ss->dst[i]] = 0.0;
            continue;
          }
          if (!mxn__file_open(ds, j, &status)) goto done;
          MXN_CHECK(mxn__plan_buf(plan, nfile));
          char name[80];
          snprintf(name, sizeof name, var_name[sk], v + 1, file_set(f, sk, sets[q].id));
          int varid = mxn__m_var(f, name);
          size_t start[2] = {(size_t)step, 0}, count[2] = {1, (size_t)nfile};
          if (varid < 0 || mxn__m_get(f, varid, start, count, NULL, plan->buf, 'd')) {
            status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s %lld: cannot read variable '%s' at step %d",
                                f->path, mxn__set_what[sk], (long long)sets[q].id,
                                vl->names[v], step + 1);
            goto done;
          }
          ds->io.read_calls++;
          ds->io.bytes_read += nfile * (int64_t)sizeof(double);
          for (int64_t i = a; i < b; i++) out[ss->dst[i]] = plan->buf[ss->pos[i]];
        }
      }
    }
  }
done:
  for (int sk = 0; sk < MXN__NSK; sk++) free(cur[sk]);
  return status;
}

/* The variable id of variable v (0-based) of structure block b in member
 * f (k: block kind, -1 for nodal variables); -1 when the member stores it
 * otherwise (nodal variables all in one vals_nod_var, older files). */
static int var_id(const mxn__file_t *f, int k, int v, int b) {
  char name[64];
  static const char *const fmt[MXN__NBK] = {"vals_elem_var%deb%d", "vals_edge_var%deb%d",
                                            "vals_face_var%dfb%d"};
  if (k < 0) {
    mxn__name_d(name, sizeof name, "vals_nod_var%d", v + 1);
  } else {
    int q = file_block(f, k, b);
    if (q <= 0) return -1;
    snprintf(name, sizeof name, fmt[k], v + 1, q);
  }
  return mxn__m_var(f, name);
}

/* var_id() of variable v of nv of segment sg, looked up once: a step
 * read of M = 1024 members asked for about a thousand names per step and
 * rank. -1 as there; -3 out of memory. */
static int seg_varid(mxn__plan_t *plan, const mxn__file_t *f, segment_t *sg, int k, int v,
                     int nv) {
  if (!sg->varids) {
    if (!(sg->varids = mxn__plan_alloc(plan, ((size_t)nv + 1) * sizeof *sg->varids))) return -3;
    for (int i = 0; i < nv; i++) sg->varids[i] = -2;
  }
  if (sg->varids[v] == -2) sg->varids[v] = var_id(f, k, v, sg->block);
  return sg->varids[v];
}

/* One step run of variable v at `step` into plan->buf: run->count values
 * for a contiguous run; run->n values, one per entry, for a strided one;
 * one read either way. k: block kind (-1 nodal), varid: var_id() of the
 * variable in member f; -1 for a nodal variable in the older layout
 * (vals_nod_var[step][variable][node]). */
static int read_var_run(mxn_dataset_t *ds, mxn__plan_t *plan, const mxn__file_t *f, int step,
                        int k, int v, int varid, const run_t *run) {
  int status = MXN_OK;
  int strided = run->stride > 1;
  int64_t n = strided ? run->n : run->count;
  MXN_CHECK(mxn__plan_buf(plan, n));
  if (varid >= 0) {
    size_t start[2] = {(size_t)step, (size_t)run->start}, count[2] = {1, (size_t)n};
    ptrdiff_t stride[2] = {1, strided ? (ptrdiff_t)run->stride : 1};
    if (mxn__m_get(f, varid, start, count, stride, plan->buf, 'd')) return MXN_ERR_IO;
  } else {
    int all = k < 0 ? mxn__m_var(f, "vals_nod_var") : -1;
    size_t start[3] = {(size_t)step, (size_t)v, (size_t)run->start}, count[3] = {1, 1, (size_t)n};
    ptrdiff_t stride[3] = {1, 1, strided ? (ptrdiff_t)run->stride : 1};
    if (all < 0 || mxn__m_ndims(f, all) != 3 ||
        mxn__m_get(f, all, start, count, stride, plan->buf, 'd'))
      return MXN_ERR_IO;
  }
  ds->io.read_calls++;
  ds->io.bytes_read += n * (int64_t)sizeof(double);
done:
  return status;
}

int mxn_piece_read_step(mxn_dataset_t *ds, mxn_piece_t *piece, int step) {
  if (!ds || !piece || !piece->plan) return MXN_ERR_ARG;
  const mxn_structure_t *s = &ds->s;
  if (step < 0 || step >= s->num_times)
    return MXN_DS_ERR(ds, MXN_ERR_ARG, "%s: time step %d does not exist (the dataset has %d)",
                      ds->files[0].path, step + 1, s->num_times);
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  MXN_CHECK(mxn__files_recheck(ds, step));
  /* Every member read at this step has its time (compared once). */
  for (int i = 0; i < plan->nnode_seg; i++)
    MXN_CHECK(mxn__step_time_check(ds, plan->node_seg[i].file, step));
  for (int k = 0; k < MXN__NBK; k++)
    for (int i = 0; i < plan->nseg[k]; i++)
      MXN_CHECK(mxn__step_time_check(ds, plan->seg[k][i].file, step));
  for (int sk = 0; sk < MXN__NSK; sk++)
    for (int q = 0; q < plan->nsets[sk]; q++) {
      const set_src_t *ss = &plan->set_src[sk][q]; /* sorted by member */
      for (int64_t i = 0; i < ss->n; i++)
        if (i == 0 || ss->file[i] != ss->file[i - 1])
          MXN_CHECK(mxn__step_time_check(ds, ss->file[i], step));
    }
  /* File-major order: each member is visited once per step, so sets with
   * more members than the open-file cap are not reopened per variable. */
  for (int i = 0; i < plan->nnode_seg; i++)
    for (int v = 0; v < s->num_node_vars; v++) {
      if (!piece->node_vars[v]) continue; /* not selected */
      segment_t *sg = &plan->node_seg[i];
      const mxn__file_t *f = mxn__file_open(ds, sg->file, &status);
      if (!f) goto done;
      MXN_CHECK(step_runs(plan, sg));
      int varid = seg_varid(plan, f, sg, -1, v, s->num_node_vars);
      if (varid == -3) {
        status = MXN_ERR_NOMEM;
        goto done;
      }
      for (int64_t r = 0; r < sg->nvruns; r++) {
        const run_t *run = &sg->vruns[r];
        if ((status = read_var_run(ds, plan, f, step, -1, v, varid, run)) != MXN_OK) {
          if (status == MXN_ERR_IO)
            MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read nodal variable '%s' at step %d",
                       ds->files[sg->file].path, s->node_var_names[v], step + 1);
          goto done;
        }
        for (int64_t e = run->first; e < run->first + run->n; e++)
          piece->node_vars[v][sg->dst[e]] = plan->buf[run_at(sg, run, e)];
      }
    }
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    const mxn_block_info_t *sb = mxn__sblocks(s, k, &nb);
    mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &nb);
    mxn_var_list_t vl = mxn__bvars(s, k);
    for (int i = 0; i < plan->nseg[k]; i++) {
      segment_t *sg = &plan->seg[k][i];
      const mxn__file_t *f = &ds->files[sg->file];
      mxn_piece_block_t *pb = &pblocks[sg->block];
      for (int v = 0; v < vl.num; v++) {
        if (!pb->elem_vars[v]) continue;
        if (!f->kb[k].truth[(int64_t)sg->block * vl.num + v]) {
          /* Absent in this member: not stored, so it reads as 0. */
          for (int64_t e = 0; e < sg->n; e++) pb->elem_vars[v][sg->dst[e]] = 0.0;
          continue;
        }
        if (!mxn__file_open(ds, sg->file, &status)) goto done;
        MXN_CHECK(step_runs(plan, sg));
        int varid = seg_varid(plan, f, sg, k, v, vl.num);
        if (varid == -3) {
          status = MXN_ERR_NOMEM;
          goto done;
        }
        for (int64_t r = 0; r < sg->nvruns; r++) {
          const run_t *run = &sg->vruns[r];
          if ((status = read_var_run(ds, plan, f, step, k, v, varid, run)) != MXN_OK) {
            if (status == MXN_ERR_IO)
              MXN_DS_ERR(ds, MXN_ERR_IO,
                         "%s: %s block %lld: cannot read %s variable '%s' at step %d", f->path,
                         mxn__blk_what[k], (long long)sb[sg->block].id, mxn__blk_what[k],
                         vl.names[v], step + 1);
            goto done;
          }
          for (int64_t e = run->first; e < run->first + run->n; e++)
            pb->elem_vars[v][sg->dst[e]] = plan->buf[run_at(sg, run, e)];
        }
      }
    }
  }
  if (s->num_global_vars > 0 && ds->glob_vals && ds->glob_nvars == s->num_global_vars) {
    /* kept from member 0's summary: nothing to open */
    memcpy(piece->global_vars, ds->glob_vals + (int64_t)step * s->num_global_vars,
           (size_t)s->num_global_vars * sizeof(double));
  } else if (s->num_global_vars > 0) {
    const mxn__file_t *f = mxn__file_open(ds, 0, &status);
    if (!f) goto done;
    int varid = mxn__m_var(f, "vals_glo_var");
    size_t start[2] = {(size_t)step, 0}, count[2] = {1, (size_t)s->num_global_vars};
    if (varid < 0 || mxn__m_get(f, varid, start, count, NULL, piece->global_vars, 'd')) {
      status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read global variables at step %d",
                          ds->files[0].path, step + 1);
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += s->num_global_vars * (int64_t)sizeof(double);
  }
  MXN_CHECK(read_set_vars(ds, piece, step));
  piece->step = step;
  piece->time = s->times[step];
done:
  return status;
}

/* A node of a piece built from records: id (the radix sort key), the
 * record and the node's place in it, and the connectivity entry it came
 * from. */
typedef struct {
  mxn_gid_t id;
  const int64_t *rec;
  int64_t c, at;
} known_node_t;

/* A record's element, for ordering: block, then id. */
typedef struct {
  int block;
  mxn_gid_t id;
  const int64_t *rec;
} known_elem_t;

static int cmp_known_elem(const void *a, const void *b) {
  const known_elem_t *x = a, *y = b;
  if (x->block != y->block) return (x->block > y->block) - (x->block < y->block);
  return (x->id > y->id) - (x->id < y->id);
}

int mxn__piece_from_records(mxn_dataset_t *ds, int64_t n, const int64_t *const *recs,
                            const mxn_extract_opts_t *opts, mxn_piece_t **out) {
  const mxn_structure_t *s = &ds->s;
  int status = MXN_OK, NB = s->num_blocks, nd = s->num_dim, nnm = s->num_node_maps;
  mxn_piece_t *piece = NULL;
  known_elem_t *el = NULL;
  known_node_t *nodes = NULL;
  int64_t *local = NULL, nnodes = 0;
  *out = NULL;
  if (n < 0) return MXN_ERR_ARG;
  for (int b = 0; b < NB; b++)
    if (s->blocks[b].edges_per_elem > 0 || s->blocks[b].faces_per_elem > 0 || s->blocks[b].poly)
      return MXN_DS_ERR(ds, MXN_ERR_UNSUPPORTED,
                        "%s: element block %lld refers to edges or faces, or is polygonal",
                        ds->files[0].path, (long long)s->blocks[b].id);
  MXN_CHECK(piece_shell(s, &piece));

  /* Check each record against the structure, order elements by block and id. */
  MXN_ALLOC(el, n);
  int64_t total_conn = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t *r = recs[i];
    int64_t b = r[2], npe = r[1];
    if (b < 0 || b >= NB || npe != s->blocks[b].nodes_per_elem) {
      status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                          "%s: element %lld: its owner's record (block index %lld, %lld nodes) "
                          "does not match the structure",
                          ds->files[0].path, (long long)r[0], (long long)b, (long long)npe);
      goto done;
    }
    el[i] = (known_elem_t){(int)b, r[0], r};
    total_conn += npe;
  }
  qsort(el, (size_t)n, sizeof *el, cmp_known_elem);
  /* Nodes: every record's, unique by id. */
  MXN_ALLOC(nodes, total_conn);
  for (int64_t i = 0; i < n; i++) {
    const int64_t *r = el[i].rec;
    for (int64_t c = 0; c < r[1]; c++, nnodes++)
      nodes[nnodes] = (known_node_t){r[MXN__REC_HEAD + c], r, c, nnodes};
  }
  /* Unique by id; local[t]: the piece node of connectivity entry t (in
   * the order the elements are stored below), so no search per entry. */
  MXN_CHECK(mxn__radix_sort(nodes, nnodes, sizeof *nodes));
  MXN_ALLOC(local, total_conn);
  {
    int64_t u = 0;
    for (int64_t i = 0; i < nnodes; i++) {
      if (u == 0 || nodes[i].id != nodes[u - 1].id) nodes[u++] = nodes[i];
      local[nodes[i].at] = u - 1;
    }
    nnodes = u;
  }
  piece->num_nodes = nnodes;
  MXN_ALLOC(piece->node_ids, nnodes);
  for (int64_t i = 0; i < nnodes; i++) piece->node_ids[i] = nodes[i].id;

  /* Blocks: ids, connectivity by local node, original ids. */
  for (int64_t i = 0; i < n; i++) piece->blocks[el[i].block].num_elements++;
  for (int b = 0; b < NB; b++) {
    mxn_piece_block_t *pb = &piece->blocks[b];
    const mxn_block_info_t *bi = &s->blocks[b];
    MXN_ALLOC(pb->elem_ids, pb->num_elements);
    MXN_ALLOC(pb->conn, pb->num_elements * bi->nodes_per_elem);
    if (bi->num_attr > 0 && !opts->no_attributes) MXN_ALLOC(pb->attr, pb->num_elements * bi->num_attr);
    if (s->has_original_elem_ids) MXN_ALLOC(pb->orig_ids, pb->num_elements);
  }
  piece->num_elements = n;
  /* Coordinates and maps: the arrays (the plan reads nothing), then the
   * records' values. */
  MXN_CHECK(read_coords(ds, piece));
  MXN_CHECK(read_maps(ds, piece));
  for (int64_t v = 0; v < nnodes; v++) {
    const int64_t *r = nodes[v].rec, npe = r[1], c = nodes[v].c;
    const int64_t *xyz = r + MXN__REC_HEAD + 2 * npe, *nmap = xyz + npe * nd;
    for (int d = 0; d < nd; d++) memcpy(&piece->coord[d][v], &xyz[c * nd + d], sizeof(double));
    for (int q = 0; q < nnm; q++) piece->node_maps[q][v] = nmap[c * nnm + q];
  }
  for (int64_t i = 0, k = 0, t = 0; i < n; i++, k++) {
    if (i > 0 && el[i].block != el[i - 1].block) k = 0;
    mxn_piece_block_t *pb = &piece->blocks[el[i].block];
    const int64_t *r = el[i].rec, npe = r[1];
    int na = s->blocks[el[i].block].num_attr;
    const int64_t *att = r + MXN__REC_HEAD + npe * (2 + nd + nnm), *emap = att + na;
    pb->elem_ids[k] = r[0];
    if (pb->orig_ids) pb->orig_ids[k] = r[3];
    for (int64_t c = 0; c < npe; c++) pb->conn[k * npe + c] = local[t++];
    if (pb->attr) memcpy(pb->attr + k * na, att, (size_t)na * sizeof(double));
    for (int q = 0; q < s->num_elem_maps; q++) pb->maps[q][k] = emap[q];
  }

  /* Sets: none (a halo's elements and nodes are in the sets of their
   * owners' pieces), but every set is there, empty, so pieces merge. */
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int nsets;
    mxn__ssets(s, sk, &nsets);
    const mxn_var_list_t *vl = mxn__svars(s, sk);
    mxn_piece_set_t *sets = NULL;
    MXN_ALLOC(sets, nsets);
    switch (sk) {
      case MXN__NSET: piece->node_sets = sets; piece->num_node_sets = nsets; break;
      case MXN__SSET: piece->side_sets = sets; piece->num_side_sets = nsets; break;
      case MXN__ESET: piece->edge_sets = sets; piece->num_edge_sets = nsets; break;
      case MXN__FSET: piece->face_sets = sets; piece->num_face_sets = nsets; break;
      default: piece->elem_sets = sets; piece->num_elem_sets = nsets; break;
    }
    MXN_ALLOC(piece->plan->set_src[sk], nsets);
    piece->plan->nsets[sk] = nsets;
    for (int q = 0; q < nsets; q++) {
      MXN_ALLOC(sets[q].entries, 1);
      sets[q].num_vars = vl->num;
      MXN_ALLOC(sets[q].vars, vl->num);
    }
  }
  MXN_CHECK(alloc_fields(ds, piece, opts));
  *out = piece;
  piece = NULL;
done:
  mxn_piece_destroy(&piece);
  free(el);
  free(nodes);
  free(local);
  return status;
}
