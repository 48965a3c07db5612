/* Extraction of a piece through the minimal cover (seed §II.B-C): plan
 * once, read geometry and sets once, read fields per step with the plan. */
#include "internal.h"

#include <exodusII.h>
#include <stdio.h>

/* Longest single read, in entries: bounds the scratch buffer. */
#define MXN__MAX_RUN 262144

/* A coalesced range of file positions read with one call. */
typedef struct {
  int64_t start, count; /* file offset (0-based, within block or node list) */
  int64_t first, n;     /* entries [first, first+n) of the segment */
} run_t;

/* Everything one file contributes to one block (or to the nodes). */
typedef struct {
  int file;
  int block;            /* structure block, -1 for nodes */
  int64_t n;
  int64_t *off;         /* ascending offsets in the file's block / node list */
  int64_t *dst;         /* index in the piece block / piece nodes */
  int64_t nruns;
  run_t *runs;
} segment_t;

struct mxn__plan {
  int nelem_seg, nnode_seg;
  segment_t *elem_seg, *node_seg;
  double *buf;
  int64_t buf_cap;      /* doubles */
};

typedef struct {
  int64_t off, dst;
} pair_t;

static int cmp_pair(const void *a, const void *b) {
  const pair_t *x = a, *y = b;
  if (x->off != y->off) return (x->off > y->off) - (x->off < y->off);
  return (x->dst > y->dst) - (x->dst < y->dst);
}


static void segment_free(segment_t *s) {
  free(s->off);
  free(s->dst);
  free(s->runs);
}

static void plan_free(mxn__plan_t *p) {
  if (!p) return;
  for (int i = 0; i < p->nelem_seg; i++) segment_free(&p->elem_seg[i]);
  for (int i = 0; i < p->nnode_seg; i++) segment_free(&p->node_seg[i]);
  free(p->elem_seg);
  free(p->node_seg);
  free(p->buf);
  free(p);
}

/* Sort a segment's (offset, destination) pairs and coalesce them into runs:
 * offsets closer than `gap` entries share one read. */
static int segment_build(segment_t *s, pair_t *pairs, int64_t n, int64_t gap) {
  int status = MXN_OK;
  qsort(pairs, (size_t)n, sizeof *pairs, cmp_pair);
  s->n = n;
  MXN_ALLOC(s->off, n);
  MXN_ALLOC(s->dst, n);
  for (int64_t i = 0; i < n; i++) {
    s->off[i] = pairs[i].off;
    s->dst[i] = pairs[i].dst;
  }
  MXN_ALLOC(s->runs, n);
  s->nruns = 0;
  for (int64_t i = 0; i < n; i++) {
    run_t *r = s->nruns ? &s->runs[s->nruns - 1] : NULL;
    if (r && s->off[i] - (r->start + r->count) <= gap &&
        s->off[i] + 1 - r->start <= MXN__MAX_RUN) {
      r->count = s->off[i] + 1 - r->start;
      r->n++;
    } else {
      s->runs[s->nruns++] = (run_t){s->off[i], 1, i, 1};
    }
  }
done:
  return status;
}

static int plan_buf(mxn__plan_t *p, int64_t doubles) {
  if (doubles <= p->buf_cap) return MXN_OK;
  double *b = realloc(p->buf, (size_t)doubles * sizeof *b);
  if (!b) return MXN_ERR_NOMEM;
  p->buf = b;
  p->buf_cap = doubles;
  return MXN_OK;
}

void mxn_piece_destroy(mxn_piece_t **pp) {
  if (!pp || !*pp) return;
  mxn_piece_t *p = *pp;
  free(p->node_ids);
  for (int d = 0; d < 3; d++) free(p->coord[d]);
  for (int b = 0; b < p->num_blocks; b++) {
    mxn_piece_block_t *pb = &p->blocks[b];
    free(pb->elem_ids);
    free(pb->orig_ids);
    free(pb->conn);
    free(pb->attr);
    if (pb->elem_vars) {
      for (int v = 0; v < p->plan_num_elem_vars; v++) free(pb->elem_vars[v]);
      free(pb->elem_vars);
    }
  }
  free(p->blocks);
  for (int pass = 0; pass < 2; pass++) {
    mxn_piece_set_t *sets = pass ? p->side_sets : p->node_sets;
    int n = pass ? p->num_side_sets : p->num_node_sets;
    for (int k = 0; k < n; k++) {
      free(sets[k].entries);
      free(sets[k].sides);
      free(sets[k].df);
      free(sets[k].df_offsets);
    }
    free(sets);
  }
  if (p->node_vars) {
    for (int v = 0; v < p->plan_num_node_vars; v++) free(p->node_vars[v]);
    free(p->node_vars);
  }
  free(p->global_vars);
  plan_free(p->plan);
  free(p);
  *pp = NULL;
}

/* Union of all members' element (or node) ids. */
static int all_ids(mxn_dataset_t *ds, int nodes, mxn_idset_t *out) {
  int status = MXN_OK;
  int64_t total = 0;
  mxn_gid_t *cat = NULL;
  for (int j = 0; j < ds->nfiles; j++)
    total += nodes ? ds->files[j].dom->nodes.n : ds->files[j].dom->elems.n;
  MXN_ALLOC(cat, total);
  int64_t k = 0;
  for (int j = 0; j < ds->nfiles; j++) {
    const mxn_idset_t *s = nodes ? &ds->files[j].dom->nodes : &ds->files[j].dom->elems;
    memcpy(cat + k, s->ids, (size_t)s->n * sizeof *cat);
    k += s->n;
  }
  MXN_CHECK(mxn_idset_from_array(cat, total, out));
done:
  free(cat);
  return status;
}

/* Block of file position `fpos` in member f (its blocks are contiguous). */
static int block_of(const mxn__file_t *f, int64_t fpos) {
  for (int k = 0; k < f->nblk; k++) {
    int b = f->blk_of_file[k];
    if (fpos >= f->blk_start[b] && fpos < f->blk_start[b] + f->blk_count[b]) return b;
  }
  return -1;
}

static int read_sets(mxn_dataset_t *ds, mxn_piece_t *piece, const char *cand,
                     int64_t **l2p, const mxn_idset_t *P, const int64_t *p2local);

int mxn_extract(mxn_dataset_t *ds, const mxn_idset_t *want,
                const mxn_extract_opts_t *opts, mxn_piece_t **out) {
  if (!ds || !out) return MXN_ERR_ARG;
  *out = NULL;
  if (!ds->opened) return MXN_DS_ERR(ds, MXN_ERR_ARG, "extract: the dataset is not open");
  mxn_extract_opts_t defaults;
  memset(&defaults, 0, sizeof defaults);
  if (!opts) opts = &defaults;
  const mxn_structure_t *s = &ds->s;
  int M = ds->nfiles, NB = s->num_blocks;
  int status = MXN_OK;
  mxn_piece_t *piece = NULL;
  mxn_idset_t P = MXN_IDSET_INIT, PN = MXN_IDSET_INIT;
  mxn_idset_t *F = NULL;
  mxn_cover_t ecov, ncov;
  memset(&ecov, 0, sizeof ecov);
  memset(&ncov, 0, sizeof ncov);
  int *file_of = NULL, *blk_of = NULL;
  int64_t *fpos_of = NULL, *idx_in_blk = NULL, *blk_fill = NULL, *p2local = NULL;
  int64_t *seg_count = NULL, **l2p = NULL, *blk_local0 = NULL;
  int *elem_file = NULL;
  char *cand = NULL, **mark = NULL;
  pair_t *pairs = NULL;
  mxn_gid_t *gids = NULL;

  for (int j = 0; j < M; j++) {
    const mxn_file_domain_t *d;
    MXN_CHECK(mxn_dataset_file_domain(ds, j, &d));
  }
  MXN_ALLOC(piece, 1);
  MXN_ALLOC(piece->plan, 1);
  piece->num_dim = s->num_dim;
  piece->num_blocks = NB;
  piece->step = -1;
  piece->plan_num_node_vars = s->num_node_vars;
  piece->plan_num_elem_vars = s->num_elem_vars;
  MXN_ALLOC(piece->blocks, NB);

  /* 1. P and its greedy cover by the files' element domains. */
  if (want)
    MXN_CHECK(mxn_idset_copy(want, &P));
  else
    MXN_CHECK(all_ids(ds, 0, &P));
  MXN_ALLOC(F, M);
  for (int j = 0; j < M; j++) F[j] = ds->files[j].dom->elems; /* borrowed */
  MXN_CHECK(mxn_cover_greedy(&P, F, M, &ecov));
  if (ecov.uncovered.n > 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_NOTFOUND,
                        "%s: %lld wanted element ids are in no file of the set "
                        "(first: %lld)",
                        ds->files[0].path, (long long)ecov.uncovered.n,
                        (long long)ecov.uncovered.ids[0]);
    goto done;
  }
  piece->stats.files_in_cover = ecov.nparts;

  /* 2. Where each wanted element is: file, position, block. */
  MXN_ALLOC(file_of, P.n);
  MXN_ALLOC(fpos_of, P.n);
  MXN_ALLOC(blk_of, P.n);
  MXN_ALLOC(cand, M);
  for (int c = 0; c < ecov.nparts; c++) {
    const mxn_cover_part_t *cp = &ecov.parts[c];
    const mxn__file_t *f = &ds->files[cp->file];
    cand[cp->file] = 1;
    for (int64_t k = 0; k < cp->E.n; k++) {
      int64_t p = cp->mp[k], fpos = f->dom->elem_pos[cp->mf[k]];
      file_of[p] = cp->file;
      fpos_of[p] = fpos;
      blk_of[p] = block_of(f, fpos);
      if (blk_of[p] < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: element %lld lies in no block",
                            f->path, (long long)P.ids[p]);
        goto done;
      }
    }
  }
  if (!want)
    for (int j = 0; j < M; j++) cand[j] = 1; /* a join reads every member */

  /* 3. Piece blocks: elements of each block in global id order. */
  MXN_ALLOC(idx_in_blk, P.n);
  MXN_ALLOC(blk_fill, NB);
  for (int64_t p = 0; p < P.n; p++) idx_in_blk[p] = blk_fill[blk_of[p]]++;
  MXN_ALLOC(blk_local0, NB + 1);
  for (int b = 0; b < NB; b++) {
    mxn_piece_block_t *pb = &piece->blocks[b];
    const mxn_block_info_t *bi = &s->blocks[b];
    pb->num_elements = blk_fill[b];
    blk_local0[b + 1] = blk_local0[b] + blk_fill[b];
    MXN_ALLOC(pb->elem_ids, pb->num_elements);
    MXN_ALLOC(pb->conn, pb->num_elements * bi->nodes_per_elem);
    if (bi->num_attr > 0 && !opts->no_attributes)
      MXN_ALLOC(pb->attr, pb->num_elements * bi->num_attr);
    if (s->has_original_elem_ids) MXN_ALLOC(pb->orig_ids, pb->num_elements);
  }
  piece->num_elements = P.n;
  MXN_ALLOC(p2local, P.n);
  for (int64_t p = 0; p < P.n; p++) {
    piece->blocks[blk_of[p]].elem_ids[idx_in_blk[p]] = P.ids[p];
    p2local[p] = blk_local0[blk_of[p]] + idx_in_blk[p];
  }

  /* 4. Element segments: one per (file, block), coalesced into runs. */
  MXN_ALLOC(seg_count, (int64_t)M * NB);
  for (int64_t p = 0; p < P.n; p++) seg_count[(int64_t)file_of[p] * NB + blk_of[p]]++;
  int nseg = 0;
  for (int64_t i = 0; i < (int64_t)M * NB; i++) nseg += seg_count[i] > 0;
  mxn__plan_t *plan = piece->plan;
  MXN_ALLOC(plan->elem_seg, nseg);
  MXN_ALLOC(pairs, P.n);
  {
    /* Bucket P by (file, block) with one counting pass. */
    int64_t *start = NULL;
    MXN_ALLOC(start, (int64_t)M * NB + 1);
    for (int64_t i = 0; i < (int64_t)M * NB; i++) start[i + 1] = start[i] + seg_count[i];
    int64_t *fill = NULL;
    fill = calloc((size_t)M * NB + 1, sizeof *fill);
    if (!fill) {
      free(start);
      status = MXN_ERR_NOMEM;
      goto done;
    }
    for (int64_t p = 0; p < P.n; p++) {
      int64_t key = (int64_t)file_of[p] * NB + blk_of[p];
      const mxn__file_t *f = &ds->files[file_of[p]];
      pairs[start[key] + fill[key]++] =
          (pair_t){fpos_of[p] - f->blk_start[blk_of[p]], idx_in_blk[p]};
    }
    free(fill);
    for (int j = 0; j < M && status == MXN_OK; j++)
      for (int b = 0; b < NB; b++) {
        int64_t key = (int64_t)j * NB + b;
        if (seg_count[key] == 0) continue;
        segment_t *sg = &plan->elem_seg[plan->nelem_seg++];
        sg->file = j;
        sg->block = b;
        status = segment_build(sg, pairs + start[key], seg_count[key], opts->gap);
        if (status != MXN_OK) break;
        piece->stats.elem_runs += sg->nruns;
      }
    free(start);
    if (status != MXN_OK) goto done;
  }

  /* 5. Read connectivity (file-local node numbers for now) and attributes. */
  MXN_ALLOC(l2p, M);
  MXN_ALLOC(mark, M);
  for (int i = 0; i < plan->nelem_seg; i++) {
    segment_t *sg = &plan->elem_seg[i];
    mxn__file_t *f = &ds->files[sg->file];
    const mxn_block_info_t *bi = &s->blocks[sg->block];
    mxn_piece_block_t *pb = &piece->blocks[sg->block];
    int npe = bi->nodes_per_elem, na = pb->attr ? bi->num_attr : 0;
    int exoid;
    MXN_CHECK(mxn__file_exoid(ds, sg->file, &exoid));
    if (!mark[sg->file]) {
      mark[sg->file] = calloc((size_t)f->num_nodes + 1, 1);
      if (!mark[sg->file]) {
        status = MXN_ERR_NOMEM;
        goto done;
      }
    }
    for (int64_t r = 0; r < sg->nruns; r++) {
      const run_t *run = &sg->runs[r];
      int64_t per = npe > na ? npe : na;
      MXN_CHECK(plan_buf(plan, run->count * (per > 0 ? per : 1)));
      int64_t *conn = (int64_t *)plan->buf;
      if (npe > 0) {
        if (ex_get_partial_conn(exoid, EX_ELEM_BLOCK, bi->id, run->start + 1,
                                run->count, conn, NULL, NULL) < 0) {
          status = MXN_DS_ERR(ds, MXN_ERR_IO,
                              "%s: block %lld: cannot read connectivity of "
                              "elements %lld..%lld",
                              f->path, (long long)bi->id, (long long)run->start + 1,
                              (long long)(run->start + run->count));
          goto done;
        }
        ds->io.read_calls++;
        ds->io.bytes_read += run->count * npe * (int64_t)sizeof(int64_t);
      }
      for (int64_t e = run->first; e < run->first + run->n; e++) {
        const int64_t *src = conn + (sg->off[e] - run->start) * npe;
        int64_t *dstc = pb->conn + sg->dst[e] * npe;
        for (int k = 0; k < npe; k++) {
          if (src[k] < 1 || src[k] > f->num_nodes) {
            status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                                "%s: block %lld: element %lld refers to node %lld, "
                                "the file has %lld nodes",
                                f->path, (long long)bi->id,
                                (long long)pb->elem_ids[sg->dst[e]], (long long)src[k],
                                (long long)f->num_nodes);
            goto done;
          }
          dstc[k] = src[k];
          mark[sg->file][src[k] - 1] = 1;
        }
        if (pb->orig_ids)
          pb->orig_ids[sg->dst[e]] =
              f->dom->orig_elem_ids ? f->dom->orig_elem_ids[f->blk_start[sg->block] + sg->off[e]]
                                    : pb->elem_ids[sg->dst[e]];
      }
      if (na > 0) {
        if (ex_get_partial_attr(exoid, EX_ELEM_BLOCK, bi->id, run->start + 1,
                                run->count, plan->buf) < 0) {
          status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: block %lld: cannot read attributes",
                              f->path, (long long)bi->id);
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

  /* 6. The piece's nodes: every node of a join, else the referenced ones. */
  if (!want) {
    MXN_CHECK(all_ids(ds, 1, &PN));
  } else {
    int64_t total = 0;
    for (int j = 0; j < M; j++)
      if (mark[j])
        for (int64_t l = 0; l < ds->files[j].num_nodes; l++) total += mark[j][l];
    MXN_ALLOC(gids, total);
    int64_t k = 0;
    for (int j = 0; j < M; j++)
      if (mark[j])
        for (int64_t l = 0; l < ds->files[j].num_nodes; l++)
          if (mark[j][l]) gids[k++] = ds->files[j].dom->node_map[l];
    MXN_CHECK(mxn_idset_from_array(gids, total, &PN));
    free(gids);
    gids = NULL;
  }
  piece->num_nodes = PN.n;
  MXN_ALLOC(piece->node_ids, PN.n);
  if (PN.n) memcpy(piece->node_ids, PN.ids, (size_t)PN.n * sizeof *PN.ids);

  /* file-local node -> piece node, for every candidate file. */
  for (int j = 0; j < M; j++) {
    if (!cand[j]) continue;
    const mxn_file_domain_t *d = ds->files[j].dom;
    MXN_ALLOC(l2p[j], d->num_nodes);
    for (int64_t l = 0; l < d->num_nodes; l++) l2p[j][l] = -1;
    mxn_idset_t E = MXN_IDSET_INIT;
    int64_t *pa = NULL, *pb = NULL;
    MXN_CHECK(mxn_idset_intersect(&d->nodes, &PN, &E, &pa, &pb));
    for (int64_t k = 0; k < E.n; k++) l2p[j][d->node_pos[pa[k]]] = pb[k];
    mxn_idset_free(&E);
    free(pa);
    free(pb);
  }
  for (int i = 0; i < plan->nelem_seg; i++) {
    segment_t *sg = &plan->elem_seg[i];
    mxn_piece_block_t *pb = &piece->blocks[sg->block];
    int npe = s->blocks[sg->block].nodes_per_elem;
    for (int64_t e = 0; e < sg->n; e++) {
      int64_t *c = pb->conn + sg->dst[e] * npe;
      for (int k = 0; k < npe; k++) c[k] = l2p[sg->file][c[k] - 1];
    }
  }

  /* 7. Node cover among the candidate files, then coordinates. */
  for (int j = 0; j < M; j++) F[j] = cand[j] ? ds->files[j].dom->nodes : (mxn_idset_t)MXN_IDSET_INIT;
  MXN_CHECK(mxn_cover_greedy(&PN, F, M, &ncov));
  if (ncov.uncovered.n > 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_NOTFOUND, "%s: node %lld is in no file of the set",
                        ds->files[0].path, (long long)ncov.uncovered.ids[0]);
    goto done;
  }
  MXN_ALLOC(plan->node_seg, ncov.nparts);
  free(pairs);
  pairs = NULL;
  MXN_ALLOC(pairs, PN.n);
  for (int c = 0; c < ncov.nparts; c++) {
    const mxn_cover_part_t *cp = &ncov.parts[c];
    const mxn_file_domain_t *d = ds->files[cp->file].dom;
    for (int64_t k = 0; k < cp->E.n; k++) pairs[k] = (pair_t){d->node_pos[cp->mf[k]], cp->mp[k]};
    segment_t *sg = &plan->node_seg[plan->nnode_seg++];
    sg->file = cp->file;
    sg->block = -1;
    MXN_CHECK(segment_build(sg, pairs, cp->E.n, opts->gap));
    piece->stats.node_runs += sg->nruns;
  }
  for (int d = 0; d < s->num_dim; d++) MXN_ALLOC(piece->coord[d], PN.n);
  for (int i = 0; i < plan->nnode_seg; i++) {
    segment_t *sg = &plan->node_seg[i];
    int exoid;
    MXN_CHECK(mxn__file_exoid(ds, sg->file, &exoid));
    for (int64_t r = 0; r < sg->nruns; r++) {
      const run_t *run = &sg->runs[r];
      MXN_CHECK(plan_buf(plan, run->count * 3));
      double *x = plan->buf, *y = x + run->count, *z = y + run->count;
      if (ex_get_partial_coord(exoid, run->start + 1, run->count, x,
                               s->num_dim > 1 ? y : NULL, s->num_dim > 2 ? z : NULL) < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read coordinates of nodes %lld..%lld",
                            ds->files[sg->file].path, (long long)run->start + 1,
                            (long long)(run->start + run->count));
        goto done;
      }
      ds->io.read_calls++;
      ds->io.bytes_read += run->count * s->num_dim * (int64_t)sizeof(double);
      double *src[3] = {x, y, z};
      for (int64_t e = run->first; e < run->first + run->n; e++)
        for (int d = 0; d < s->num_dim; d++)
          piece->coord[d][sg->dst[e]] = src[d][sg->off[e] - run->start];
    }
  }

  /* 8. Sets restricted to the piece. */
  if (!opts->no_sets) MXN_CHECK(read_sets(ds, piece, cand, l2p, &P, p2local));

  /* 9. Field storage, filled by mxn_piece_read_step(). */
  MXN_ALLOC(piece->node_vars, s->num_node_vars);
  for (int v = 0; v < s->num_node_vars; v++) MXN_ALLOC(piece->node_vars[v], PN.n);
  MXN_ALLOC(piece->global_vars, s->num_global_vars);
  for (int b = 0; b < NB; b++) {
    mxn_piece_block_t *pb = &piece->blocks[b];
    MXN_ALLOC(pb->elem_vars, s->num_elem_vars);
    for (int v = 0; v < s->num_elem_vars; v++)
      if (s->elem_var_truth[(int64_t)b * s->num_elem_vars + v])
        MXN_ALLOC(pb->elem_vars[v], pb->num_elements);
  }

  *out = piece;
  piece = NULL;
done:
  mxn_piece_destroy(&piece);
  mxn_idset_free(&P);
  mxn_idset_free(&PN);
  free(F);
  mxn_cover_free(&ecov);
  mxn_cover_free(&ncov);
  free(file_of);
  free(fpos_of);
  free(blk_of);
  free(idx_in_blk);
  free(blk_fill);
  free(blk_local0);
  free(p2local);
  free(seg_count);
  free(elem_file);
  free(pairs);
  free(gids);
  if (l2p)
    for (int j = 0; j < M; j++) free(l2p[j]);
  free(l2p);
  if (mark)
    for (int j = 0; j < M; j++) free(mark[j]);
  free(mark);
  free(cand);
  return status;
}

/* One set entry gathered from some member, before de-duplication. */
typedef struct {
  int64_t entry;   /* piece-local node or element */
  int side;
  int64_t df_at;   /* offset of its df in the gathered df array, -1 if none */
  int df_n;
} set_item_t;

static int cmp_item(const void *a, const void *b) {
  const set_item_t *x = a, *y = b;
  if (x->entry != y->entry) return (x->entry > y->entry) - (x->entry < y->entry);
  if (x->side != y->side) return (x->side > y->side) - (x->side < y->side);
  return (x->df_at > y->df_at) - (x->df_at < y->df_at);
}

/* Gather each node/side set from the candidate members, keep entries in the
 * piece, drop repeats (shared nodes appear in several members), order by
 * local entry. */
static int read_sets(mxn_dataset_t *ds, mxn_piece_t *piece, const char *cand,
                     int64_t **l2p, const mxn_idset_t *P, const int64_t *p2local) {
  const mxn_structure_t *s = &ds->s;
  int status = MXN_OK;
  set_item_t *items = NULL;
  double *dfs = NULL;
  int64_t *ent = NULL, *extra = NULL;
  double *df = NULL;
  int *cnt = NULL;
  piece->num_node_sets = s->num_node_sets;
  piece->num_side_sets = s->num_side_sets;
  MXN_ALLOC(piece->node_sets, s->num_node_sets);
  MXN_ALLOC(piece->side_sets, s->num_side_sets);
  for (int pass = 0; pass < 2; pass++) {
    int side = pass == 1;
    int nsets = side ? s->num_side_sets : s->num_node_sets;
    for (int q = 0; q < nsets; q++) {
      const mxn_set_info_t *si = side ? &s->side_sets[q] : &s->node_sets[q];
      mxn_piece_set_t *ps = side ? &piece->side_sets[q] : &piece->node_sets[q];
      int64_t nitems = 0, ndf = 0, cap_items = 0, cap_df = 0;
      for (int j = 0; j < ds->nfiles; j++) {
        mxn__file_t *f = &ds->files[j];
        int64_t n = side ? f->ss_count[q] : f->ns_count[q];
        int64_t nd = side ? f->ss_df[q] : f->ns_df[q];
        if (!cand[j] || n <= 0) continue;
        int exoid;
        MXN_CHECK(mxn__file_exoid(ds, j, &exoid));
        MXN_ALLOC(ent, n);
        if (side) MXN_ALLOC(extra, n);
        if (ex_get_set(exoid, side ? EX_SIDE_SET : EX_NODE_SET, si->id, ent, extra) < 0) {
          status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s set %lld: cannot read its entries",
                              f->path, side ? "side" : "node", (long long)si->id);
          goto done;
        }
        ds->io.read_calls++;
        ds->io.bytes_read += n * (side ? 2 : 1) * (int64_t)sizeof(int64_t);
        if (nd > 0) {
          MXN_ALLOC(df, nd);
          if (ex_get_set_dist_fact(exoid, side ? EX_SIDE_SET : EX_NODE_SET, si->id, df) < 0) {
            status = MXN_DS_ERR(ds, MXN_ERR_IO,
                                "%s: %s set %lld: cannot read distribution factors",
                                f->path, side ? "side" : "node", (long long)si->id);
            goto done;
          }
          ds->io.read_calls++;
          ds->io.bytes_read += nd * (int64_t)sizeof(double);
          /* Per-entry df counts: one per node of a node set; for a side
           * set, the nodes of each side. */
          MXN_ALLOC(cnt, n);
          if (!side || nd == n) {
            for (int64_t i = 0; i < n; i++) cnt[i] = 1;
          } else {
            /* Nodes per side from the element's topology (Exodus 6.02's
             * ex_get_side_set_node_count is unsafe with the 64-bit API). */
            for (int64_t i = 0; i < n; i++) {
              int b = (ent[i] >= 1 && ent[i] <= f->num_elems) ? block_of(f, ent[i] - 1) : -1;
              cnt[i] = b < 0 ? -1
                             : mxn__side_node_count(s->blocks[b].type, s->blocks[b].nodes_per_elem,
                                                    (int)extra[i]);
              if (cnt[i] < 0) {
                status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                                    "%s: side set %lld: entry %lld (element %lld, side %lld) "
                                    "names an unknown element or side",
                                    f->path, (long long)si->id, (long long)i + 1,
                                    (long long)ent[i], (long long)extra[i]);
                goto done;
              }
            }
          }
          int64_t sum = 0;
          for (int64_t i = 0; i < n; i++) sum += cnt[i];
          if (sum != nd) {
            status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                                "%s: %s set %lld: %lld distribution factors for "
                                "%lld entries needing %lld",
                                f->path, side ? "side" : "node", (long long)si->id,
                                (long long)nd, (long long)n, (long long)sum);
            goto done;
          }
        }
        if (nitems + n > cap_items) {
          cap_items = 2 * (nitems + n);
          set_item_t *ni = realloc(items, (size_t)cap_items * sizeof *ni);
          if (!ni) {
            status = MXN_ERR_NOMEM;
            goto done;
          }
          items = ni;
        }
        if (ndf + nd > cap_df) {
          cap_df = 2 * (ndf + nd);
          double *nd2 = realloc(dfs, (size_t)cap_df * sizeof *nd2);
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
          if (!side) {
            if (ent[i] < 1 || ent[i] > f->num_nodes) {
              status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: node set %lld names node %lld of %lld",
                                  f->path, (long long)si->id, (long long)ent[i],
                                  (long long)f->num_nodes);
              goto done;
            }
            local = l2p[j][ent[i] - 1];
          } else {
            if (ent[i] < 1 || ent[i] > f->num_elems) {
              status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: side set %lld names element %lld of %lld",
                                  f->path, (long long)si->id, (long long)ent[i],
                                  (long long)f->num_elems);
              goto done;
            }
            int64_t p = mxn_idset_find(P, f->dom->elem_map[ent[i] - 1]);
            local = p >= 0 ? p2local[p] : -1;
          }
          if (local >= 0) {
            items[nitems++] = (set_item_t){local, side ? (int)extra[i] : 0,
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
      /* Sort and keep the first copy of each entry. */
      if (nitems > 0) qsort(items, (size_t)nitems, sizeof *items, cmp_item);
      int64_t m = 0;
      for (int64_t i = 0; i < nitems; i++)
        if (m == 0 || items[i].entry != items[m - 1].entry || items[i].side != items[m - 1].side)
          items[m++] = items[i];
      ps->n = m;
      MXN_ALLOC(ps->entries, m);
      if (side) MXN_ALLOC(ps->sides, m);
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
        if (side) ps->sides[i] = items[i].side;
        if (any_df) {
          if (side) ps->df_offsets[i] = o;
          if (items[i].df_at >= 0)
            memcpy(ps->df + o, dfs + items[i].df_at, (size_t)items[i].df_n * sizeof *dfs);
          o += items[i].df_n;
        }
      }
      if (any_df && side) ps->df_offsets[m] = o;
    }
  }
done:
  free(items);
  free(dfs);
  free(ent);
  free(extra);
  free(df);
  free(cnt);
  return status;
}

int mxn_piece_read_step(mxn_dataset_t *ds, mxn_piece_t *piece, int step) {
  if (!ds || !piece || !piece->plan) return MXN_ERR_ARG;
  const mxn_structure_t *s = &ds->s;
  if (step < 0 || step >= s->num_times)
    return MXN_DS_ERR(ds, MXN_ERR_ARG, "%s: time step %d does not exist (the dataset has %d)",
                      ds->files[0].path, step + 1, s->num_times);
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK, exoid;
  for (int v = 0; v < s->num_node_vars; v++)
    for (int i = 0; i < plan->nnode_seg; i++) {
      segment_t *sg = &plan->node_seg[i];
      MXN_CHECK(mxn__file_exoid(ds, sg->file, &exoid));
      for (int64_t r = 0; r < sg->nruns; r++) {
        const run_t *run = &sg->runs[r];
        MXN_CHECK(plan_buf(plan, run->count));
        if (ex_get_partial_var(exoid, step + 1, EX_NODAL, v + 1, 1, run->start + 1,
                               run->count, plan->buf) < 0) {
          status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read nodal variable '%s' at step %d",
                              ds->files[sg->file].path, s->node_var_names[v], step + 1);
          goto done;
        }
        ds->io.read_calls++;
        ds->io.bytes_read += run->count * (int64_t)sizeof(double);
        for (int64_t e = run->first; e < run->first + run->n; e++)
          piece->node_vars[v][sg->dst[e]] = plan->buf[sg->off[e] - run->start];
      }
    }
  for (int i = 0; i < plan->nelem_seg; i++) {
    segment_t *sg = &plan->elem_seg[i];
    const mxn__file_t *f = &ds->files[sg->file];
    mxn_piece_block_t *pb = &piece->blocks[sg->block];
    for (int v = 0; v < s->num_elem_vars; v++) {
      if (!pb->elem_vars[v]) continue;
      if (!f->elem_truth[(int64_t)sg->block * s->num_elem_vars + v]) {
        /* Absent in this member: not stored, so it reads as 0. */
        for (int64_t e = 0; e < sg->n; e++) pb->elem_vars[v][sg->dst[e]] = 0.0;
        continue;
      }
      MXN_CHECK(mxn__file_exoid(ds, sg->file, &exoid));
      for (int64_t r = 0; r < sg->nruns; r++) {
        const run_t *run = &sg->runs[r];
        MXN_CHECK(plan_buf(plan, run->count));
        if (ex_get_partial_var(exoid, step + 1, EX_ELEM_BLOCK, v + 1, s->blocks[sg->block].id,
                               run->start + 1, run->count, plan->buf) < 0) {
          status = MXN_DS_ERR(ds, MXN_ERR_IO,
                              "%s: block %lld: cannot read element variable '%s' at step %d",
                              f->path, (long long)s->blocks[sg->block].id,
                              s->elem_var_names[v], step + 1);
          goto done;
        }
        ds->io.read_calls++;
        ds->io.bytes_read += run->count * (int64_t)sizeof(double);
        for (int64_t e = run->first; e < run->first + run->n; e++)
          pb->elem_vars[v][sg->dst[e]] = plan->buf[sg->off[e] - run->start];
      }
    }
  }
  if (s->num_global_vars > 0) {
    MXN_CHECK(mxn__file_exoid(ds, 0, &exoid));
    if (ex_get_glob_vars(exoid, step + 1, s->num_global_vars, piece->global_vars) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read global variables at step %d",
                          ds->files[0].path, step + 1);
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += s->num_global_vars * (int64_t)sizeof(double);
  }
  piece->step = step;
  piece->time = s->times[step];
done:
  return status;
}
