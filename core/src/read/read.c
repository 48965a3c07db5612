/* Extraction of a piece through the minimal cover (seed §II.B-C): plan
 * once, read geometry and sets once, read fields per step with the plan.
 *
 * Elements are what a caller asks for. Edges and faces follow the elements
 * that refer to them (element->edge/face connectivity): the element
 * partition is propagated to the other cell types, as the seed's "indirect
 * connectivity" says. Nodes follow elements, edges and faces alike. Each
 * kind gets its own greedy cover, preferring the members already read. */
#include "partition/greedy.h"
#include "read/read.h"

#include <netcdf.h>
#include <stdio.h>

#include "read/plan.h"


void mxn__piece_block_free(mxn_piece_block_t *pb, int nvars, int nmaps) {
  free(pb->elem_ids);
  free(pb->orig_ids);
  free(pb->member);
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
      free(sets[q].member);
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
  for (int j = 0; j < ds->nfiles; j++) total += mxn__dom_set(mxn__file_dom(ds, j), e)->n;
  MXN_ALLOC(cat, total);
  int64_t k = 0;
  for (int j = 0; j < ds->nfiles; j++) {
    const mxn_idset_t *s = mxn__dom_set(mxn__file_dom(ds, j), e);
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
      for (int64_t l = 0; l < mxn__dom_n(mxn__file_dom(ds, j), e); l++) total += mark[j][l];
  MXN_ALLOC(gids, total);
  int64_t k = 0;
  for (int j = 0; j < ds->nfiles; j++)
    if (mark && mark[j]) {
      const mxn_gid_t *map = mxn__dom_map(mxn__file_dom(ds, j), e);
      for (int64_t l = 0; l < mxn__dom_n(mxn__file_dom(ds, j), e); l++)
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
    F[j] = cand[j] ? *mxn__dom_set(mxn__file_dom(ds, j), e) : (mxn_idset_t)MXN_IDSET_INIT;
  MXN_CHECK(mxn__cover_greedy(P, F, M, 0, out));
  if (out->uncovered.n == 0) goto done;
  for (int j = 0; j < M; j++)
    F[j] = (allowed && !allowed[j]) ? (mxn_idset_t)MXN_IDSET_INIT
                                    : *mxn__dom_set(mxn__file_dom(ds, j), e);
  MXN_CHECK(mxn__cover_greedy(&out->uncovered, F, M, 0, &rest));
  if (rest.nparts == 0) goto done;
  for (int c = 0; c < rest.nparts; c++) cand[rest.parts[c].file] = 1;
  mxn_cover_free(out);
  for (int j = 0; j < M; j++)
    F[j] = cand[j] ? *mxn__dom_set(mxn__file_dom(ds, j), e) : (mxn_idset_t)MXN_IDSET_INIT;
  MXN_CHECK(mxn__cover_greedy(P, F, M, 0, out));
done:
  mxn_cover_free(&rest);
  return status;
}

/* Numbered map values of every entity of the piece, read along the same
 * segments as connectivity and coordinates. A member without a map
 * contributes zeros. */
static int read_maps(mxn_dataset_t *ds, mxn_piece_t *piece) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  const char *const *map_var = mxn__ex_map;
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
      const mxn__file_t *f = mxn__file_held(ds, sg->file); /* held: its domain made the segment */
      int64_t base = e == MXN__NODE ? 0 : mxn__blk_start(&f->kb[e], sg->block);
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
                            mxn__path(ds, 0), (long long)s->blocks[b].id,
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

/* Coordinates of the piece's nodes along its node segments. Single nodes
 * at a constant stride (a halo layer cutting across a member's node rows)
 * are read with one strided read per coordinate, in either layout
 * (mxn__m_coords). The boxes kept for it (the shared-node check's, the
 * partition's of a member it cut) are freed after, and the recent ones. */
static int read_coords(mxn_dataset_t *ds, mxn_piece_t *piece) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK, nd = s->num_dim;
  for (int d = 0; d < nd; d++) MXN_ALLOC_RAW(piece->coord[d], MXN__CAP(piece, piece->num_nodes));
  for (int i = 0; i < plan->nnode_seg; i++) {
    segment_t *sg = &plan->node_seg[i];
    const mxn__file_t *f = mxn__file_open(ds, sg->file, &status);
    if (!f) goto done;
    MXN_CHECK(mxn__plan_step_runs(plan, sg));
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
                            mxn__path(ds, sg->file), (long long)run->start + 1,
                            (long long)(run->start + (run->n - 1) * (run->stride > 1 ? run->stride : 1) + 1));
        goto done;
      }
      ds->io.bytes_read += len * nd * (int64_t)sizeof(double);
      for (int64_t e = run->first; e < run->first + run->n; e++)
        for (int d = 0; d < nd; d++) piece->coord[d][sg->dst[e]] = src[d][mxn__run_at(sg, run, e)];
    }
  }

done:
  /* the boxes kept for this extraction go (an extraction made while they
   * are being kept, for its caller's next one, keeps them) */
  if (!mxn__store_keeping(ds)) mxn__store_drop_reads(ds);
  return status;
}

/* Nodal variables member j lists of the dataset's. */
static int nodal_vars_of(const mxn__file_t *f, int nv) {
  int c = 0;
  for (int v = 0; v < nv; v++) c += mxn__var_pos(f, MXN__V_NODAL, v) >= 0;
  return c;
}

/* Where members differ in their nodal variables, a node several members
 * hold is read from one that has the variables: the cover's choice moves,
 * node by node, to a member holding it with more of them (ties keep the
 * cover's choice), so a value stored for a shared node is never hidden by
 * a member lacking it. Every member holding a piece node is considered,
 * not only the extraction's own, so ranks sharing a node read it alike.
 * file[i], pos[i]: piece node i's member and position there, changed in
 * place; *moved: whether any moved. Where members hold disjoint
 * variables of a node, those of the member with the most are read. */
static int prefer_nodal_vars(mxn_dataset_t *ds, const mxn_idset_t *PN, int *file, int64_t *pos,
                             int *moved) {
  const int M = ds->nfiles, nv = ds->s.num_node_vars;
  int status = MXN_OK, *have = NULL, fewest = nv;
  int64_t *at = NULL;
  *moved = 0;
  if (ds->nodal_min >= nv) goto done; /* every member has them all (the open's merge) */
  /* The fewest among the members read from (held: their domains are) */
  for (int64_t i = 0; i < PN->n; i++) {
    int h = nodal_vars_of(mxn__file_held(ds, file[i]), nv);
    if (h < fewest) fewest = h;
  }
  if (fewest == nv) goto done; /* every node already read from a member with them all */
  MXN_ALLOC(have, M);
  for (int j = 0; j < M; j++) { /* (records rebuilt where not held: rare) */
    const mxn__file_t *f = mxn__file(ds, j);
    if (!f) {
      status = ds->err.status;
      goto done;
    }
    have[j] = nodal_vars_of(f, nv);
  }
  MXN_ALLOC_RAW(at, PN->n);
  for (int j = 0; j < M; j++) {
    if (have[j] <= fewest) continue;
    const mxn_file_domain_t *d;
    MXN_CHECK(mxn_dataset_file_domain(ds, j, &d));
    for (int64_t i = 0; i < PN->n; i++) at[i] = -1;
    (void)mxn__idset_match(PN, &d->nodes, NULL, d->node_pos, at);
    for (int64_t i = 0; i < PN->n; i++)
      if (at[i] >= 0 && have[j] > have[file[i]]) {
        file[i] = j;
        pos[i] = at[i];
        *moved = 1;
      }
  }
done:
  free(have);
  free(at);
  return status;
}

/* The piece's node segments from the nodes' cover (every member's node
 * positions sorted, coalesced into runs within the plan's gap budget), or
 * from the members prefer_nodal_vars chose. */
static int plan_nodes(mxn_dataset_t *ds, mxn_piece_t *piece, const mxn_extract_opts_t *opts,
                      const mxn_idset_t *PN, const mxn_cover_t *cov) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK, moved = 0;
  pair_t *pairs = NULL;
  int *file = NULL;
  int64_t *pos = NULL, *cnt = NULL;
  /* some member lacks a nodal variable (said by the open's merge) */
  int partial = ds->nfiles > 1 && ds->nodal_min < s->num_node_vars;
  if (partial) {
    MXN_ALLOC_RAW(file, PN->n);
    MXN_ALLOC_RAW(pos, PN->n);
    for (int c = 0; c < cov->nparts; c++) {
      const mxn_cover_part_t *cp = &cov->parts[c];
      const mxn_file_domain_t *d = mxn__file_dom(ds, cp->file);
      for (int64_t i = 0; i < cp->E.n; i++) {
        file[cp->mp[i]] = cp->file;
        pos[cp->mp[i]] = d->node_pos[cp->mf[i]];
      }
    }
    MXN_CHECK(prefer_nodal_vars(ds, PN, file, pos, &moved));
  }
  MXN_ALLOC_RAW(pairs, piece->num_nodes);
  if (moved) {
    /* one segment per member, its nodes in piece order */
    MXN_ALLOC(plan->node_seg, ds->nfiles);
    MXN_ALLOC(cnt, ds->nfiles);
    for (int64_t i = 0; i < PN->n; i++) cnt[file[i]]++;
    for (int j = 0; j < ds->nfiles; j++) {
      if (cnt[j] == 0) continue;
      int64_t m = 0;
      for (int64_t i = 0; i < PN->n; i++)
        if (file[i] == j) pairs[m++] = (pair_t){pos[i], i};
      segment_t *sg = &plan->node_seg[plan->nnode_seg++];
      sg->file = j;
      sg->block = -1;
      MXN_CHECK(mxn__segment_sort(plan, sg, pairs, m));
    }
  } else {
    MXN_ALLOC(plan->node_seg, cov->nparts);
    for (int c = 0; c < cov->nparts; c++) {
      const mxn_cover_part_t *cp = &cov->parts[c];
      const mxn_file_domain_t *d = mxn__file_dom(ds, cp->file);
      for (int64_t i = 0; i < cp->E.n; i++) pairs[i] = (pair_t){d->node_pos[cp->mf[i]], cp->mp[i]};
      segment_t *sg = &plan->node_seg[plan->nnode_seg++];
      sg->file = cp->file;
      sg->block = -1;
      MXN_CHECK(mxn__segment_sort(plan, sg, pairs, cp->E.n));
    }
  }
  {
    double *width = NULL;
    MXN_ALLOC(width, plan->nnode_seg);
    int nmaps;
    mxn__smaps(s, MXN__NODE, &nmaps);
    for (int i = 0; i < plan->nnode_seg; i++) width[i] = 8.0 * (s->num_dim + nmaps);
    int64_t gap = mxn__plan_gap(plan, opts, plan->node_seg, plan->nnode_seg, width);
    free(width);
    for (int i = 0; i < plan->nnode_seg; i++) {
      MXN_CHECK(mxn__segment_runs(plan, &plan->node_seg[i], gap));
      piece->stats.node_runs += plan->node_seg[i].nruns;
    }
  }
done:
  free(pairs);
  free(file);
  free(pos);
  free(cnt);
  return status;
}

/* Member-local node/edge/face numbers -> piece-local indices (l2p), for
 * every member read (cand), then the piece's connectivity renumbered with
 * them. */
static int renumber(mxn_dataset_t *ds, mxn_piece_t *piece, const mxn_idset_t P[MXN__NEK],
                    const char *cand, int64_t **l2p[MXN__NEK], int64_t *const p2local[MXN__NBK]) {
  const mxn_structure_t *s = &ds->s;
  const mxn__plan_t *plan = piece->plan;
  int M = ds->nfiles, status = MXN_OK;
  for (int e = MXN__EDGE; e < MXN__NEK; e++) {
    if (P[e].n == 0) continue;
    for (int j = 0; j < M; j++) {
      if (!cand[j]) continue;
      const mxn_file_domain_t *d = mxn__file_dom(ds, j);
      int64_t n = mxn__dom_n(d, e);
      MXN_ALLOC(l2p[e][j], n);
      for (int64_t l = 0; l < n; l++) l2p[e][j][l] = -1;
      (void)mxn__idset_match(mxn__dom_set(d, e), &P[e], mxn__dom_pos(d, e),
                             e == MXN__NODE ? NULL : p2local[e], l2p[e][j]);
      /* Nodes matched by coordinates (ids.c): a member storing one point
       * twice has its later positions resolve through the first. */
      const mxn_idset_t *ds_set = mxn__dom_set(d, e);
      for (int64_t l = 0; ds_set->n < n && l < n; l++)
        if (l2p[e][j][l] < 0) {
          int64_t k = mxn_idset_find(ds_set, mxn__dom_map(d, e)[l]);
          if (k >= 0) l2p[e][j][l] = l2p[e][j][mxn__dom_pos(d, e)[k]];
        }
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
  /* The Nemesis element count is a writer's hint: a framework that adapted
   * the mesh may leave it stale (so may a member duplicated by hand).
   * Checked, said once, not trusted: what the members hold is read. */
  if (!want && s->num_elements_global >= 0 && P[MXN__ELEM].n != s->num_elements_global)
    mxn__hint_elements(ds, P[MXN__ELEM].n);
  for (int j = 0; j < M; j++) /* borrowed */
    F[j] = (allowed && !allowed[j]) ? (mxn_idset_t)MXN_IDSET_INIT : mxn__file_dom(ds, j)->elems;
  MXN_CHECK(mxn__cover_greedy(&P[MXN__ELEM], F, M, 0, &cov[MXN__ELEM]));
  if (cov[MXN__ELEM].uncovered.n > 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_NOTFOUND,
                        "%s: %lld wanted element ids are in no file of the set "
                        "(first: %lld)",
                        mxn__path(ds, 0), (long long)cov[MXN__ELEM].uncovered.n,
                        (long long)cov[MXN__ELEM].uncovered.ids[0]);
    goto done;
  }
  piece->stats.files_in_cover = cov[MXN__ELEM].nparts;
  for (int c = 0; c < cov[MXN__ELEM].nparts; c++) cand[cov[MXN__ELEM].parts[c].file] = 1;
  if (!want)
    for (int j = 0; j < M; j++) cand[j] = 1; /* a join reads every member */
  MXN_ALLOC_RAW(p2local[MXN__ELEM], P[MXN__ELEM].n);
  MXN_CHECK(mxn__read_blocks(ds, piece, MXN__ELEM, &P[MXN__ELEM], &cov[MXN__ELEM], opts, mark,
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
                          mxn__path(ds, 0), mxn__ent_what[e],
                          (long long)cov[e].uncovered.ids[0]);
      goto done;
    }
    if (e == MXN__NODE) break;
    MXN_ALLOC_RAW(p2local[e], P[e].n);
    MXN_CHECK(mxn__read_blocks(ds, piece, e, &P[e], &cov[e], opts, mark, p2local[e]));
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
  MXN_CHECK(plan_nodes(ds, piece, opts, PN, &cov[MXN__NODE]));
  mxn_cover_free(&cov[MXN__NODE]);
  /* Visit members in file order when reading (see mxn_piece_read_step). */
  qsort(plan->node_seg, (size_t)plan->nnode_seg, sizeof *plan->node_seg, mxn__cmp_seg_file);
  MXN_CHECK(read_coords(ds, piece));

  /* 4. Member-local node/edge/face numbers -> piece-local indices, for
   * every member read, then connectivity renumbered with them. */
  MXN_CHECK(renumber(ds, piece, P, cand, l2p, p2local));

  /* Polyhedra: their nodes through their faces. */
  for (int b = 0; b < s->num_blocks; b++)
    if (s->blocks[b].poly == MXN_POLY_NFACED) MXN_CHECK(mxn__nfaced_nodes(ds, piece, b));

  /* 5. Sets restricted to the piece, 6. numbered maps. */
  if (!opts->no_sets)
    MXN_CHECK(mxn__read_sets(ds, piece, cand, l2p, &P[MXN__ELEM], p2local[MXN__ELEM]));
  MXN_CHECK(read_maps(ds, piece));

  /* 7. Field storage, filled by mxn_piece_read_step(), once the scratch is
   * gone: allocated beside it, the fields and the scratch together made the
   * load's high-water mark. */
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
                        mxn__path(ds, 0), (long long)s->blocks[b].id);
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
                          mxn__path(ds, 0), (long long)r[0], (long long)b, (long long)npe);
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
    MXN_ALLOC(pb->member, pb->num_elements);
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
    pb->member[k] = (int32_t)r[4];
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
