/* Extraction of a piece's blocks (element, edge and face): connectivity,
 * poly blocks' references, attributes and original ids, read along the
 * plan's segments (read.c drives it). */
#include "read/read.h"

#include <netcdf.h>
#include <stdio.h>

#include "read/plan.h"

/* Lazily allocated per-member marks of used entries of entity kind e. */
static int mark_of(mxn_dataset_t *ds, char **mark, int j, int e) {
  if (mark[j]) return MXN_OK;
  const mxn__file_t *f = mxn__file(ds, j);
  if (!f) return ds->err.status;
  int64_t n = mxn__file_count(f, e);
  mark[j] = mxn__calloc((size_t)n + 1, 1);
  return mark[j] ? MXN_OK : MXN_ERR_NOMEM;
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
  mxn__file_t *f = mxn__file_held(ds, sg->file); /* held: its domain made the segment */
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
  const mxn__span_t *span = mxn__span_of(kb, sg->block);
  if (span) q = span->q;
  char name[40];
  mxn__name_d(name, sizeof name, nfaced ? mxn__ex_blk[MXN__ELEM].fconn : mxn__ex_blk[k].conn,
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

/* Segment sg of block kind k: its connectivity (file-local numbers for
 * now, marking what the piece uses), original ids and attributes, run by
 * run. */
static int read_block_segment(mxn_dataset_t *ds, mxn_piece_t *piece, int k, const segment_t *sg,
                              char **mark[MXN__NEK]) {
  const mxn_structure_t *s = &ds->s;
  int NB;
  const mxn_block_info_t *sb = mxn__sblocks(s, k, &NB);
  mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &NB);
  mxn__plan_t *plan = piece->plan;
  const char *what = mxn__blk_what[k];
  int status = MXN_OK;
  mxn__file_t *f = mxn__file_held(ds, sg->file); /* held: its domain made the segment */
  const mxn_block_info_t *bi = &sb[sg->block];
  mxn_piece_block_t *pb = &pblocks[sg->block];
  int npe = bi->nodes_per_elem, epe = bi->edges_per_elem, fpe = bi->faces_per_elem;
  int na = pb->attr ? bi->num_attr : 0;
  int64_t nfile[3] = {f->num_nodes, f->kb[MXN__EDGE].num, f->kb[MXN__FACE].num};
  int q = mxn__file_block(f, k, sg->block);
  if (!mxn__file_open(ds, sg->file, &status)) goto done;
  MXN_CHECK(mark_of(ds, mark[MXN__NODE], sg->file, MXN__NODE));
  if (epe > 0) MXN_CHECK(mark_of(ds, mark[MXN__EDGE], sg->file, MXN__EDGE));
  if (fpe > 0 || bi->poly == MXN_POLY_NFACED)
    MXN_CHECK(mark_of(ds, mark[MXN__FACE], sg->file, MXN__FACE));
  if (bi->poly) {
    MXN_CHECK(read_poly_conn(ds, piece, k, sg, bi, pb, mark));
    if (na == 0 && !pb->orig_ids) return MXN_OK;
  }
  for (int64_t r = 0; r < sg->nruns; r++) {
    const run_t *run = &sg->runs[r];
    int64_t per = npe + epe + fpe > na ? npe + epe + fpe : na;
    MXN_CHECK(mxn__plan_buf(plan, run->count * (per > 0 ? per : 1)));
    int64_t *nconn = (int64_t *)plan->buf;
    int64_t *econn = nconn + run->count * npe, *fconn = econn + run->count * epe;
    /* Exodus's variables: a block's node references, and an element
     * block's edge and face references */
    if (!bi->poly &&
        ((npe > 0 && mxn__m_rows(f, mxn__ex_blk[k].conn, q, run->start, run->count, npe, nconn, 'l')) ||
         (epe > 0 && mxn__m_rows(f, mxn__ex_blk[MXN__ELEM].econn, q, run->start, run->count, epe, econn, 'l')) ||
         (fpe > 0 && mxn__m_rows(f, mxn__ex_blk[MXN__ELEM].fconn, q, run->start, run->count, fpe, fconn, 'l')))) {
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
                ? f->dom->orig_elem_ids[mxn__blk_start(&f->kb[k], sg->block) + sg->off[e]]
                : pb->elem_ids[sg->dst[e]];
    }
    if (na > 0) {
      if (mxn__m_rows(f, mxn__ex_blk_attr[k], q, run->start, run->count, na, plan->buf, 'd')) {
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
done:
  return status;
}

/* The entities of block kind k the piece holds (sorted P, covered by cov):
 * piece blocks in id order, one segment per (file, block) coalesced into
 * runs, connectivity read as file-local 1-based numbers (renumbered once
 * every kind is known) marking the nodes, edges and faces it uses,
 * attributes and original ids. p2local[i] receives the local index of
 * P->ids[i] over the concatenated blocks. */
int mxn__read_blocks(mxn_dataset_t *ds, mxn_piece_t *piece, int k, const mxn_idset_t *P,
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
          *seg_count = NULL, *start = NULL, *fill = NULL, *span0 = NULL, *key_of = NULL;
  pair_t *pairs = NULL;
  double *width = NULL;

  /* Where each wanted entity is: file, position, block. */
  MXN_ALLOC_RAW(file_of, P->n);
  MXN_ALLOC_RAW(fpos_of, P->n);
  MXN_ALLOC_RAW(blk_of, P->n);
  for (int c = 0; c < cov->nparts; c++) {
    const mxn_cover_part_t *cp = &cov->parts[c];
    const mxn__file_t *f = mxn__file_held(ds, cp->file); /* held: its domain is in the cover */
    const int64_t *pos = mxn__dom_pos(f->dom, k);
    for (int64_t i = 0; i < cp->E.n; i++) {
      int64_t p = cp->mp[i], fpos = pos[cp->mf[i]];
      file_of[p] = cp->file;
      fpos_of[p] = fpos;
      blk_of[p] = mxn__block_of(f, k, fpos);
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
  for (int b = 0; b < NB; b++) MXN_ALLOC_RAW(pblocks[b].member, MXN__CAP(piece, pblocks[b].num_elements));
  for (int64_t p = 0; p < P->n; p++) {
    pblocks[blk_of[p]].elem_ids[idx_in_blk[p]] = P->ids[p];
    pblocks[blk_of[p]].member[idx_in_blk[p]] = (int32_t)file_of[p];
    p2local[p] = blk_local0[blk_of[p]] + idx_in_blk[p];
  }
  /* Poly blocks: each entry's reference count, then offsets and storage. */
  for (int64_t p = 0; p < P->n; p++) {
    int b = blk_of[p];
    if (!sb[b].poly) continue;
    const int64_t *eo;
    MXN_CHECK(mxn__poly_offsets(ds, file_of[p], k, b, &eo));
    int64_t rel = fpos_of[p] - mxn__blk_start(&mxn__file_held(ds, file_of[p])->kb[k], b);
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

  /* Segments: one per (file, block), in that order, coalesced into runs;
   * P bucketed with one counting pass over the members' spans (each
   * member's one after the other: no table of members x blocks). */
  MXN_ALLOC(span0, M + 1);
  /* (the cover's members are held; others have no entry of P) */
  for (int j = 0; j < M; j++) span0[j + 1] = span0[j] + (mxn__file_held(ds, j) ? mxn__file_held(ds, j)->kb[k].nspan : 0);
  const int64_t nkey = span0[M];
  MXN_ALLOC(key_of, P->n);
  MXN_ALLOC(seg_count, nkey);
  for (int64_t p = 0; p < P->n; p++) {
    const mxn__blocks_t *kb = &mxn__file_held(ds, file_of[p])->kb[k];
    key_of[p] = span0[file_of[p]] + (mxn__span_of(kb, blk_of[p]) - kb->span);
    seg_count[key_of[p]]++;
  }
  int nseg = 0;
  for (int64_t i = 0; i < nkey; i++) nseg += seg_count[i] > 0;
  MXN_ALLOC(plan->seg[k], nseg);
  MXN_ALLOC_RAW(pairs, P->n);
  MXN_ALLOC(start, nkey + 1);
  MXN_ALLOC(fill, nkey + 1);
  for (int64_t i = 0; i < nkey; i++) start[i + 1] = start[i] + seg_count[i];
  for (int64_t p = 0; p < P->n; p++) {
    const mxn__blocks_t *kb = &mxn__file_held(ds, file_of[p])->kb[k];
    int64_t key = key_of[p];
    pairs[start[key] + fill[key]++] =
        (pair_t){fpos_of[p] - kb->span[key - span0[file_of[p]]].start, idx_in_blk[p]};
  }
  for (int j = 0; j < M; j++)
    for (int64_t key = span0[j]; key < span0[j + 1]; key++) {
      if (seg_count[key] == 0) continue;
      segment_t *sg = &plan->seg[k][plan->nseg[k]++];
      sg->file = j;
      sg->block = mxn__file_held(ds, j)->kb[k].span[key - span0[j]].b;
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
    int64_t gap = mxn__plan_gap(plan, opts, plan->seg[k], plan->nseg[k], width);
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
  for (int i = 0; i < plan->nseg[k]; i++)
    MXN_CHECK(read_block_segment(ds, piece, k, &plan->seg[k][i], mark));
done:
  free(file_of);
  free(fpos_of);
  free(blk_of);
  free(idx_in_blk);
  free(blk_fill);
  free(blk_local0);
  free(seg_count);
  free(span0);
  free(key_of);
  free(start);
  free(fill);
  free(pairs);
  free(width);
  return status;
}
