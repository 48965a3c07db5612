/* Writing pieces as Exodus II files (plain, or Nemesis spread members). */
#include "structure/structure.h"
#include "forms/nc4copy.h"

#include <errno.h>
#include <exodusII.h>
#include <stdio.h>
#include <unistd.h>

struct mxn_writer {
  int exoid;
  int level;               /* deflate level; < 0: netCDF-3, no copy */
  char *path, *tmp;
  const mxn_structure_t *s;
  int *btruth[MXN__NBK];   /* per block kind: blocks x vars actually written */
  int *struth[MXN__NSK];   /* per set kind: sets x vars actually written */
  mxn_io_counters_t io;
};

#define W_CHECK(call, ...)                                            \
  do {                                                                \
    if ((call) < 0) {                                                 \
      status = mxn_error_set(err, MXN_ERR_IO, __VA_ARGS__);           \
      goto done;                                                      \
    }                                                                 \
    w->io.write_calls++;                                              \
  } while (0)

int mxn_file_format_check(const mxn_file_format_t *f, mxn_error_t *err) {
  if (!f) return MXN_OK;
  if (f->format != MXN_FORMAT_DEFAULT && f->format != MXN_FORMAT_NC3 &&
      f->format != MXN_FORMAT_NC4)
    return mxn_error_set(err, MXN_ERR_ARG, "file format %d: not a known format", (int)f->format);
  if (f->compress < 0 || f->compress > 9)
    return mxn_error_set(err, MXN_ERR_ARG, "compression level %d: not in 0-9", f->compress);
  if (f->compress > 0 && f->format == MXN_FORMAT_NC3)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "compression level %d: netCDF-3 files cannot be compressed (use netCDF-4)",
                         f->compress);
  return MXN_OK;
}

mxn_io_counters_t mxn_writer_counters(const mxn_writer_t *w) {
  mxn_io_counters_t z;
  memset(&z, 0, sizeof z);
  return w ? w->io : z;
}

/* 0-based local indices -> 1-based Exodus numbers. */
static int plus_one(const int64_t *in, int64_t n, int64_t **out) {
  int status = MXN_OK;
  MXN_ALLOC(*out, n);
  for (int64_t i = 0; i < n; i++) (*out)[i] = in[i] + 1;
done:
  return status;
}

/* A poly block's connectivity (NSIDED: nodes; NFACED: faces, never the
 * derived nodes) and its per-entry counts. */
static int write_poly(mxn_writer_t *w, ex_entity_type bt, const mxn_block_info_t *bi,
                      const mxn_piece_block_t *pb, mxn_error_t *err) {
  int status = MXN_OK;
  int64_t *buf = NULL;
  int *cnt = NULL;
  int nfaced = bi->poly == MXN_POLY_NFACED;
  const int64_t *off = nfaced ? pb->face_off : pb->conn_off;
  const int64_t *ref = nfaced ? pb->face_conn : pb->conn;
  const char *what = mxn__blk_what[bt == EX_FACE_BLOCK ? MXN__FACE : MXN__ELEM];
  int64_t n = pb->num_elements, nref = off[n];
  MXN_CHECK(plus_one(ref, nref, &buf));
  MXN_ALLOC(cnt, n);
  for (int64_t k = 0; k < n; k++) cnt[k] = (int)(off[k + 1] - off[k]);
  W_CHECK(ex_put_conn(w->exoid, bt, bi->id, nfaced ? NULL : buf, NULL, nfaced ? buf : NULL),
          "%s: %s block %lld (%s): cannot write connectivity", w->tmp, what, (long long)bi->id,
          bi->type);
  W_CHECK(ex_put_entity_count_per_polyhedra(w->exoid, bt, bi->id, cnt),
          "%s: %s block %lld (%s): cannot write the per-entry counts", w->tmp, what,
          (long long)bi->id, bi->type);
  w->io.bytes_written += nref * (int64_t)sizeof(int64_t) + n * (int64_t)sizeof(int);
done:
  free(buf);
  free(cnt);
  return status;
}

static int put_names(int exoid, ex_entity_type t, int n, const char *base,
                     size_t stride) {
  if (n <= 0) return 0;
  char **p = mxn__malloc((size_t)n * sizeof *p);
  if (!p) return -1;
  for (int k = 0; k < n; k++) p[k] = (char *)(base + stride * (size_t)k);
  int rc = ex_put_names(exoid, t, p);
  free(p);
  return rc;
}

static int put_var_names(int exoid, ex_entity_type t, int n,
                         char (*names)[MXN_NAME_LEN]) {
  if (n <= 0) return 0;
  if (ex_put_variable_param(exoid, t, n) < 0) return -1;
  char **p = mxn__malloc((size_t)n * sizeof *p);
  if (!p) return -1;
  for (int k = 0; k < n; k++) p[k] = names[k];
  int rc = ex_put_variable_names(exoid, t, n, p);
  free(p);
  return rc;
}

static int write_nemesis(mxn_writer_t *w, const mxn_structure_t *s,
                         const mxn_nemesis_part_t *nm, mxn_error_t *err) {
  int status = MXN_OK, ex = w->exoid, pr = nm->part;
  int64_t *ids = NULL, *a = NULL, *b = NULL, *c = NULL, *cnt = NULL, *ecnt = NULL,
          *procs = NULL, *sides = NULL;
  /* Nemesis cannot describe a mesh without elements or blocks (its global
   * dimensions would be 0, which netCDF-3 takes for a second unlimited
   * dimension): such members are plain Exodus files, read by name. */
  if (nm->num_elems_global == 0 || s->num_blocks == 0) return MXN_OK;
  W_CHECK(ex_put_init_info(ex, nm->num_parts, 1, "p"),
          "%s: cannot write Nemesis init info", w->path);
  W_CHECK(ex_put_init_global(ex, nm->num_nodes_global, nm->num_elems_global,
                             s->num_blocks, s->num_node_sets, s->num_side_sets),
          "%s: cannot write Nemesis global counts", w->path);
  W_CHECK(ex_put_loadbal_param(ex, nm->num_int_nodes, nm->num_bor_nodes, 0,
                               nm->num_int_elems, nm->num_bor_elems,
                               nm->num_node_cmaps, nm->num_elem_cmaps, pr),
          "%s: cannot write load-balance parameters", w->path);
  if (s->num_blocks > 0) {
    MXN_ALLOC(ids, s->num_blocks);
    for (int k = 0; k < s->num_blocks; k++) ids[k] = s->blocks[k].id;
    W_CHECK(ex_put_eb_info_global(ex, ids, (void *)nm->blk_count_global),
            "%s: cannot write global block info", w->path);
    free(ids);
    ids = NULL;
  }
  if (s->num_node_sets > 0) {
    MXN_ALLOC(ids, s->num_node_sets);
    for (int k = 0; k < s->num_node_sets; k++) ids[k] = s->node_sets[k].id;
    W_CHECK(ex_put_ns_param_global(ex, ids, (void *)nm->ns_count_global,
                                   (void *)nm->ns_df_count_global),
            "%s: cannot write global node set info", w->path);
    free(ids);
    ids = NULL;
  }
  if (s->num_side_sets > 0) {
    MXN_ALLOC(ids, s->num_side_sets);
    for (int k = 0; k < s->num_side_sets; k++) ids[k] = s->side_sets[k].id;
    W_CHECK(ex_put_ss_param_global(ex, ids, (void *)nm->ss_count_global,
                                   (void *)nm->ss_df_count_global),
            "%s: cannot write global side set info", w->path);
    free(ids);
    ids = NULL;
  }
  MXN_CHECK(plus_one(nm->int_nodes, nm->num_int_nodes, &a));
  MXN_CHECK(plus_one(nm->bor_nodes, nm->num_bor_nodes, &b));
  W_CHECK(ex_put_processor_node_maps(ex, a, b, NULL, pr),
          "%s: cannot write internal/border node maps", w->path);
  free(a);
  free(b);
  a = b = NULL;
  MXN_CHECK(plus_one(nm->int_elems, nm->num_int_elems, &a));
  MXN_CHECK(plus_one(nm->bor_elems, nm->num_bor_elems, &b));
  W_CHECK(ex_put_processor_elem_maps(ex, a, b, pr),
          "%s: cannot write internal/border element maps", w->path);
  free(a);
  free(b);
  a = b = NULL;

  MXN_ALLOC(ids, nm->num_node_cmaps + nm->num_elem_cmaps);
  MXN_ALLOC(cnt, nm->num_node_cmaps);
  MXN_ALLOC(ecnt, nm->num_elem_cmaps);
  for (int k = 0; k < nm->num_node_cmaps; k++) {
    ids[k] = nm->node_cmap_parts[k];
    cnt[k] = nm->node_cmap_off[k + 1] - nm->node_cmap_off[k];
  }
  for (int k = 0; k < nm->num_elem_cmaps; k++) {
    ids[nm->num_node_cmaps + k] = nm->elem_cmap_parts[k];
    ecnt[k] = nm->elem_cmap_off[k + 1] - nm->elem_cmap_off[k];
  }
  W_CHECK(ex_put_cmap_params(ex, ids, cnt, ids + nm->num_node_cmaps, ecnt, pr),
          "%s: cannot write communication map parameters", w->path);
  for (int k = 0; k < nm->num_node_cmaps; k++) {
    int64_t o = nm->node_cmap_off[k], n = cnt[k];
    MXN_CHECK(plus_one(nm->node_cmap_nodes + o, n, &a));
    MXN_ALLOC(procs, n);
    for (int64_t i = 0; i < n; i++) procs[i] = nm->node_cmap_parts[k];
    W_CHECK(ex_put_node_cmap(ex, ids[k], a, procs, pr),
            "%s: cannot write node communication map %d", w->path, k);
    free(a);
    free(procs);
    a = procs = NULL;
  }
  for (int k = 0; k < nm->num_elem_cmaps; k++) {
    int64_t o = nm->elem_cmap_off[k], n = ecnt[k];
    MXN_CHECK(plus_one(nm->elem_cmap_elems + o, n, &a));
    MXN_ALLOC(procs, n);
    MXN_ALLOC(sides, n);
    for (int64_t i = 0; i < n; i++) {
      procs[i] = nm->elem_cmap_parts[k];
      sides[i] = nm->elem_cmap_sides[o + i];
    }
    W_CHECK(ex_put_elem_cmap(ex, ids[nm->num_node_cmaps + k], a, sides, procs, pr),
            "%s: cannot write element communication map %d", w->path, k);
    free(a);
    free(procs);
    free(sides);
    a = procs = sides = NULL;
  }
done:
  free(ids);
  free(a);
  free(b);
  free(c);
  free(cnt);
  free(ecnt);
  free(procs);
  free(sides);
  return status;
}

/* All sets of kind sk of a piece in one concatenated call: exodus 6.02's
 * ex_put_set_param stores entry lists of 64-bit files as 16-bit integers. */
static int put_sets(mxn_writer_t *w, const mxn_structure_t *s, const mxn_piece_t *piece,
                    int sk, mxn_error_t *err) {
  int status = MXN_OK, n;
  const mxn_set_info_t *si = mxn__ssets(s, sk, &n);
  const mxn_piece_set_t *sets = mxn__psets(piece, sk, &n);
  int side = sk == MXN__SSET, has_extra = side || sk == MXN__ESET || sk == MXN__FSET;
  int64_t *ids = NULL, *cnt = NULL, *ndf = NULL, *eidx = NULL, *didx = NULL, *ent = NULL,
          *extra = NULL;
  double *df = NULL;
  int64_t total = 0, total_df = 0;
  MXN_ALLOC(ids, n);
  MXN_ALLOC(cnt, n);
  MXN_ALLOC(ndf, n);
  MXN_ALLOC(eidx, n);
  MXN_ALLOC(didx, n);
  for (int q = 0; q < n; q++) {
    const mxn_piece_set_t *ps = &sets[q];
    ids[q] = si[q].id;
    cnt[q] = ps->n;
    ndf[q] = !ps->df ? 0 : side ? ps->df_offsets[ps->n] : ps->n;
    eidx[q] = total;
    didx[q] = total_df;
    total += cnt[q];
    total_df += ndf[q];
  }
  MXN_ALLOC(ent, total);
  if (has_extra) MXN_ALLOC(extra, total);
  MXN_ALLOC(df, total_df);
  for (int q = 0; q < n; q++) {
    const mxn_piece_set_t *ps = &sets[q];
    const int *x = side ? ps->sides : ps->orient;
    for (int64_t i = 0; i < ps->n; i++) {
      ent[eidx[q] + i] = ps->entries[i] + 1;
      if (has_extra) extra[eidx[q] + i] = x ? x[i] : 0;
    }
    if (ndf[q] > 0) memcpy(df + didx[q], ps->df, (size_t)ndf[q] * sizeof *df);
  }
  ex_set_specs spec;
  spec.sets_ids = ids;
  spec.num_entries_per_set = cnt;
  spec.num_dist_per_set = ndf;
  spec.sets_entry_index = eidx;
  spec.sets_dist_index = didx;
  spec.sets_entry_list = ent;
  spec.sets_extra_list = extra;
  spec.sets_dist_fact = df;
  W_CHECK(ex_put_concat_sets(w->exoid, mxn__set_type[sk], &spec),
          "%s: cannot write the %ss (first id %lld)", w->tmp, mxn__set_what[sk],
          (long long)(n > 0 ? ids[0] : 0));
  w->io.bytes_written += total * (has_extra ? 2 : 1) * (int64_t)sizeof(int64_t) +
                         total_df * (int64_t)sizeof(double);
done:
  free(ids);
  free(cnt);
  free(ndf);
  free(eidx);
  free(didx);
  free(ent);
  free(extra);
  free(df);
  return status;
}

/* Numbered maps the writer keeps. A join that restored the original
 * element ids from nem_spread's original_global_id_map has used it up. A
 * piece without entities of the kind stores none: exodus 6.02 writes no id
 * for a map over 0 entries (it reads back as -1). */
static int map_kept(const mxn_structure_t *s, int e, int m, const mxn_write_opts_t *opts,
                    const mxn_piece_t *piece) {
  int n;
  const mxn_map_info_t *maps = mxn__smaps(s, e, &n);
  int64_t count = e == MXN__NODE   ? piece->num_nodes
                  : e == MXN__ELEM ? piece->num_elements
                  : e == MXN__EDGE ? piece->num_edges
                                   : piece->num_faces;
  if (count == 0) return 0;
  return !(e == MXN__ELEM && opts->use_original_ids && s->has_original_elem_ids &&
           strcmp(maps[m].name, "original_global_id_map") == 0);
}

/* Variable names of one kind and the truth table actually written: a
 * variable exists on a block or set where the structure has it and the
 * piece holds entries there. */
static int put_vars_truth(mxn_writer_t *w, ex_entity_type t, const mxn_var_list_t *vl,
                          int nobj, const int64_t *entries, int **truth, const char *what,
                          mxn_error_t *err) {
  int status = MXN_OK;
  if (vl->num <= 0 || nobj <= 0) return MXN_OK;
  W_CHECK(put_var_names(w->exoid, t, vl->num, vl->names), "%s: cannot define %s variables",
          w->tmp, what);
  MXN_ALLOC(*truth, (int64_t)nobj * vl->num);
  for (int b = 0; b < nobj; b++)
    for (int v = 0; v < vl->num; v++)
      (*truth)[(int64_t)b * vl->num + v] = vl->truth[(int64_t)b * vl->num + v] && entries[b] > 0;
  W_CHECK(ex_put_truth_table(w->exoid, t, nobj, vl->num, *truth),
          "%s: cannot write the %s variable truth table", w->tmp, what);
done:
  return status;
}

int mxn_writer_create(const char *path, const mxn_structure_t *s,
                      const mxn_piece_t *piece, const mxn_write_opts_t *opts,
                      mxn_writer_t **out, mxn_error_t *err) {
  if (!path || !s || !piece || !out)
    return mxn_error_set(err, MXN_ERR_ARG, "writer: missing argument");
  *out = NULL;
  mxn_write_opts_t defaults;
  memset(&defaults, 0, sizeof defaults);
  if (!opts) opts = &defaults;
  int fstat = mxn_file_format_check(&opts->file, err);
  if (fstat != MXN_OK) return fstat;
  int ex_was = mxn__ex_quiet(), status = MXN_OK;
  int64_t *buf = NULL, *ebuf = NULL, *fbuf = NULL, *cnt = NULL;
  char (*names)[MXN_NAME_LEN] = NULL;
  mxn_writer_t *w = NULL;
  MXN_ALLOC(w, 1);
  w->exoid = -1;
  w->level = opts->file.format == MXN_FORMAT_NC4 || opts->file.compress > 0 ? opts->file.compress
                                                                              : -1;
  w->s = s;
  w->path = strdup(path);
  size_t tl = strlen(path) + 32;
  w->tmp = mxn__malloc(tl);
  if (!w->path || !w->tmp) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  snprintf(w->tmp, tl, "%s.tmp%ld", path, (long)getpid());

  int cpu_ws = 8, io_ws = opts->word_size == 4 ? 4 : 8;
  int mode = EX_CLOBBER;
  if (opts->int64) mode |= EX_ALL_INT64_DB;
  w->exoid = ex_create(w->tmp, mode, &cpu_ws, &io_ws);
  if (w->exoid < 0) {
    status = mxn_error_set(err, MXN_ERR_IO, "%s: cannot create: %s", w->tmp,
                           errno ? strerror(errno) : "netCDF error");
    goto done;
  }
  ex_set_int64_status(w->exoid, EX_ALL_INT64_API);
  int ex = w->exoid;

  ex_init_params p;
  memset(&p, 0, sizeof p);
  snprintf(p.title, sizeof p.title, "%.80s", s->title);
  p.num_dim = s->num_dim;
  p.num_nodes = piece->num_nodes;
  p.num_elem = piece->num_elements;
  p.num_elem_blk = s->num_blocks;
  p.num_edge = piece->num_edges;
  p.num_edge_blk = s->num_edge_blocks;
  p.num_face = piece->num_faces;
  p.num_face_blk = s->num_face_blocks;
  p.num_node_sets = s->num_node_sets;
  p.num_side_sets = s->num_side_sets;
  p.num_edge_sets = s->num_edge_sets;
  p.num_face_sets = s->num_face_sets;
  p.num_elem_sets = s->num_elem_sets;
  int64_t *nmaps_out[MXN__NEK] = {&p.num_elem_maps, &p.num_edge_maps, &p.num_face_maps,
                                  &p.num_node_maps};
  for (int e = 0; e < MXN__NEK; e++) {
    int nm;
    mxn__smaps(s, e, &nm);
    for (int m = 0; m < nm; m++) *nmaps_out[e] += map_kept(s, e, m, opts, piece);
  }
  W_CHECK(ex_put_init_ext(ex, &p), "%s: cannot write the Exodus header", w->tmp);

  if (opts->nemesis) MXN_CHECK(write_nemesis(w, s, opts->nemesis, err));

  /* Coordinates. */
  {
    char *cn[3] = {(char *)s->coord_names[0], (char *)s->coord_names[1],
                   (char *)s->coord_names[2]};
    W_CHECK(ex_put_coord_names(ex, cn), "%s: cannot write coordinate names", w->tmp);
    W_CHECK(ex_put_coord(ex, piece->coord[0], s->num_dim > 1 ? piece->coord[1] : NULL,
                         s->num_dim > 2 ? piece->coord[2] : NULL),
            "%s: cannot write coordinates", w->tmp);
    w->io.bytes_written += piece->num_nodes * s->num_dim * (int64_t)sizeof(double);
  }

  /* Blocks of every kind (edges and faces first: elements refer to them),
   * in structure order; empty ones keep the structure whole. */
  int maxn = s->num_blocks;
  if (s->num_edge_blocks > maxn) maxn = s->num_edge_blocks;
  if (s->num_face_blocks > maxn) maxn = s->num_face_blocks;
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int n;
    mxn__ssets(s, sk, &n);
    if (n > maxn) maxn = n;
  }
  for (int e = 0; e < MXN__NEK; e++) {
    int n;
    mxn__smaps(s, e, &n);
    if (n > maxn) maxn = n;
  }
  MXN_ALLOC(names, maxn + 1);
  static const int order[MXN__NBK] = {MXN__EDGE, MXN__FACE, MXN__ELEM};
  for (int o = 0; o < MXN__NBK; o++) {
    int k = order[o], nb;
    const mxn_block_info_t *sb = mxn__sblocks(s, k, &nb);
    const mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &nb);
    ex_entity_type bt = mxn__blk_type[k];
    const char *what = mxn__blk_what[k];
    if (nb == 0) continue;
    for (int b = 0; b < nb; b++) {
      const mxn_block_info_t *bi = &sb[b];
      const char *type = bi->type[0] ? bi->type : "NULL";
      /* Poly blocks declare their total references instead of a per-entry count. */
      const mxn_piece_block_t *pb = &pblocks[b];
      int64_t npe = bi->nodes_per_elem, fpe = bi->faces_per_elem;
      if (bi->poly == MXN_POLY_NSIDED) npe = pb->conn_off ? pb->conn_off[pb->num_elements] : 0;
      if (bi->poly == MXN_POLY_NFACED) fpe = pb->face_off ? pb->face_off[pb->num_elements] : 0;
      W_CHECK(ex_put_block(ex, bt, bi->id, type, pb->num_elements, npe, bi->edges_per_elem, fpe,
                           bi->num_attr),
              "%s: cannot define %s block %lld", w->tmp, what, (long long)bi->id);
    }
    for (int b = 0; b < nb; b++) snprintf(names[b], MXN_NAME_LEN, "%s", sb[b].name);
    W_CHECK(put_names(ex, bt, nb, names[0], MXN_NAME_LEN), "%s: cannot write %s block names",
            w->tmp, what);
    for (int b = 0; b < nb; b++) {
      const mxn_block_info_t *bi = &sb[b];
      const mxn_piece_block_t *pb = &pblocks[b];
      if (pb->num_elements == 0) continue;
      if (bi->poly) {
        MXN_CHECK(write_poly(w, bt, bi, pb, err));
        goto attrs;
      }
      int64_t nc = pb->num_elements * bi->nodes_per_elem;
      int64_t ne = pb->edge_conn ? pb->num_elements * bi->edges_per_elem : 0;
      int64_t nf = pb->face_conn ? pb->num_elements * bi->faces_per_elem : 0;
      if (nc > 0) {
        MXN_CHECK(plus_one(pb->conn, nc, &buf));
        if (ne > 0) MXN_CHECK(plus_one(pb->edge_conn, ne, &ebuf));
        if (nf > 0) MXN_CHECK(plus_one(pb->face_conn, nf, &fbuf));
        W_CHECK(ex_put_conn(ex, bt, bi->id, buf, ebuf, fbuf),
                "%s: %s block %lld: cannot write connectivity", w->tmp, what, (long long)bi->id);
        w->io.bytes_written += (nc + ne + nf) * (int64_t)sizeof(int64_t);
        free(buf);
        free(ebuf);
        free(fbuf);
        buf = ebuf = fbuf = NULL;
      }
    attrs:
      if (bi->num_attr > 0 && pb->attr) {
        W_CHECK(ex_put_attr(ex, bt, bi->id, pb->attr), "%s: %s block %lld: cannot write attributes",
                w->tmp, what, (long long)bi->id);
        char **an = mxn__malloc((size_t)bi->num_attr * sizeof *an);
        if (!an) {
          status = MXN_ERR_NOMEM;
          goto done;
        }
        for (int a = 0; a < bi->num_attr; a++) an[a] = bi->attr_names[a];
        int rc = ex_put_attr_names(ex, bt, bi->id, an);
        free(an);
        W_CHECK(rc, "%s: %s block %lld: cannot write attribute names", w->tmp, what,
                (long long)bi->id);
      }
    }
  }

  /* Id maps: nodes, then elements, edges and faces in block order. */
  W_CHECK(ex_put_id_map(ex, EX_NODE_MAP, piece->node_ids), "%s: cannot write the node id map",
          w->tmp);
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    const mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &nb);
    int64_t total = k == MXN__ELEM ? piece->num_elements
                    : k == MXN__EDGE ? piece->num_edges
                                     : piece->num_faces;
    if (k != MXN__ELEM && total == 0) continue; /* no num_edge/num_face dimension */
    MXN_ALLOC(buf, total);
    int64_t at = 0;
    for (int b = 0; b < nb; b++) {
      const mxn_piece_block_t *pb = &pblocks[b];
      const mxn_gid_t *src =
          (k == MXN__ELEM && opts->use_original_ids && pb->orig_ids) ? pb->orig_ids : pb->elem_ids;
      if (pb->num_elements) memcpy(buf + at, src, (size_t)pb->num_elements * sizeof *buf);
      at += pb->num_elements;
    }
    W_CHECK(ex_put_id_map(ex, mxn__map_type[k], buf), "%s: cannot write the %s id map", w->tmp,
            mxn__blk_what[k]);
    free(buf);
    buf = NULL;
  }

  /* Numbered maps, values concatenated like the id maps. */
  for (int e = 0; e < MXN__NEK; e++) {
    int nm, nb = 0, nw = 0;
    const mxn_map_info_t *maps = mxn__smaps(s, e, &nm);
    const mxn_piece_block_t *pblocks = e == MXN__NODE ? NULL : mxn__pblocks(piece, e, &nb);
    int64_t total = e == MXN__NODE   ? piece->num_nodes
                    : e == MXN__ELEM ? piece->num_elements
                    : e == MXN__EDGE ? piece->num_edges
                                     : piece->num_faces;
    for (int m = 0; m < nm; m++) {
      if (!map_kept(s, e, m, opts, piece)) continue;
      MXN_ALLOC(buf, total);
      if (e == MXN__NODE) {
        if (total) memcpy(buf, piece->node_maps[m], (size_t)total * sizeof *buf);
      } else {
        int64_t at = 0;
        for (int b = 0; b < nb; b++) {
          const mxn_piece_block_t *pb = &pblocks[b];
          if (pb->num_elements) memcpy(buf + at, pb->maps[m], (size_t)pb->num_elements * sizeof *buf);
          at += pb->num_elements;
        }
      }
      W_CHECK(ex_put_num_map(ex, mxn__map_type[e], maps[m].id, buf),
              "%s: cannot write %s map %lld ('%s')", w->tmp, mxn__ent_what[e],
              (long long)maps[m].id, maps[m].name);
      w->io.bytes_written += total * (int64_t)sizeof(int64_t);
      free(buf);
      buf = NULL;
      snprintf(names[nw++], MXN_NAME_LEN, "%s", maps[m].name);
    }
    W_CHECK(put_names(ex, mxn__map_type[e], nw, names[0], MXN_NAME_LEN),
            "%s: cannot write %s map names", w->tmp, mxn__ent_what[e]);
  }

  /* Sets of every kind (all of them, empty where the piece has none). */
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int n;
    const mxn_set_info_t *si = mxn__ssets(s, sk, &n);
    if (n == 0) continue;
    MXN_CHECK(put_sets(w, s, piece, sk, err));
    for (int q = 0; q < n; q++) snprintf(names[q], MXN_NAME_LEN, "%s", si[q].name);
    W_CHECK(put_names(ex, mxn__set_type[sk], n, names[0], MXN_NAME_LEN),
            "%s: cannot write %s names", w->tmp, mxn__set_what[sk]);
  }

  /* Variables and truth tables. */
  W_CHECK(put_var_names(ex, EX_GLOBAL, s->num_global_vars, s->global_var_names),
          "%s: cannot define global variables", w->tmp);
  /* Exodus cannot define nodal variables without nodes; readers accept a
   * member that has none (see merge_vars in merge.c). */
  W_CHECK(put_var_names(ex, EX_NODAL, piece->num_nodes > 0 ? s->num_node_vars : 0,
                        s->node_var_names),
          "%s: cannot define nodal variables", w->tmp);
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    const mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &nb);
    mxn_var_list_t vl = mxn__bvars(s, k);
    MXN_ALLOC(cnt, nb);
    for (int b = 0; b < nb; b++) cnt[b] = pblocks[b].num_elements;
    MXN_CHECK(put_vars_truth(w, mxn__blk_type[k], &vl, nb, cnt, &w->btruth[k],
                             mxn__blk_what[k], err));
    free(cnt);
    cnt = NULL;
  }
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int n;
    const mxn_piece_set_t *ps = mxn__psets(piece, sk, &n);
    MXN_ALLOC(cnt, n);
    for (int q = 0; q < n; q++) cnt[q] = ps[q].n;
    MXN_CHECK(put_vars_truth(w, mxn__set_type[sk], mxn__svars(s, sk), n, cnt, &w->struth[sk],
                             mxn__set_what[sk], err));
    free(cnt);
    cnt = NULL;
  }
  *out = w;
  w = NULL;
done:
  free(buf);
  free(ebuf);
  free(fbuf);
  free(cnt);
  free(names);
  if (w) mxn_writer_close(&w, 0, NULL);
  mxn__ex_restore(ex_was);
  return status;
}

int mxn_writer_put_step(mxn_writer_t *w, const mxn_piece_t *piece, int out_step,
                        mxn_error_t *err) {
  if (!w || !piece || out_step < 0)
    return mxn_error_set(err, MXN_ERR_ARG, "writer: bad step arguments");
  const mxn_structure_t *s = w->s;
  int ex_was = mxn__ex_quiet(), status = MXN_OK, ex = w->exoid, t = out_step + 1;
  double time = piece->time;
  W_CHECK(ex_put_time(ex, t, &time), "%s: cannot write time step %d", w->tmp, t);
  if (s->num_global_vars > 0)
    W_CHECK(ex_put_var(ex, t, EX_GLOBAL, 1, 0, s->num_global_vars, piece->global_vars),
            "%s: cannot write global variables at step %d", w->tmp, t);
  for (int v = 0; v < s->num_node_vars && piece->num_nodes > 0; v++) {
    W_CHECK(ex_put_var(ex, t, EX_NODAL, v + 1, 1, piece->num_nodes, piece->node_vars[v]),
            "%s: cannot write nodal variable '%s' at step %d", w->tmp, s->node_var_names[v], t);
    w->io.bytes_written += piece->num_nodes * (int64_t)sizeof(double);
  }
  for (int k = 0; k < MXN__NBK; k++) {
    int nb;
    const mxn_block_info_t *sb = mxn__sblocks(s, k, &nb);
    const mxn_piece_block_t *pblocks = mxn__pblocks(piece, k, &nb);
    mxn_var_list_t vl = mxn__bvars(s, k);
    if (!w->btruth[k]) continue;
    for (int b = 0; b < nb; b++) {
      const mxn_piece_block_t *pb = &pblocks[b];
      for (int v = 0; v < vl.num; v++) {
        if (!w->btruth[k][(int64_t)b * vl.num + v] || !pb->elem_vars[v]) continue;
        W_CHECK(ex_put_var(ex, t, mxn__blk_type[k], v + 1, sb[b].id, pb->num_elements,
                           pb->elem_vars[v]),
                "%s: %s block %lld: cannot write %s variable '%s' at step %d", w->tmp,
                mxn__blk_what[k], (long long)sb[b].id, mxn__blk_what[k], vl.names[v], t);
        w->io.bytes_written += pb->num_elements * (int64_t)sizeof(double);
      }
    }
  }
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int n;
    const mxn_set_info_t *si = mxn__ssets(s, sk, &n);
    const mxn_piece_set_t *ps = mxn__psets(piece, sk, &n);
    const mxn_var_list_t *vl = mxn__svars(s, sk);
    if (!w->struth[sk]) continue;
    for (int q = 0; q < n; q++)
      for (int v = 0; v < vl->num; v++) {
        if (!w->struth[sk][(int64_t)q * vl->num + v] || !ps[q].vars || !ps[q].vars[v]) continue;
        W_CHECK(ex_put_var(ex, t, mxn__set_type[sk], v + 1, si[q].id, ps[q].n, ps[q].vars[v]),
                "%s: %s %lld: cannot write variable '%s' at step %d", w->tmp, mxn__set_what[sk],
                (long long)si[q].id, vl->names[v], t);
        w->io.bytes_written += ps[q].n * (int64_t)sizeof(double);
      }
  }
done:
  mxn__ex_restore(ex_was);
  return status;
}

int mxn_writer_close(mxn_writer_t **pw, int commit, mxn_error_t *err) {
  if (!pw || !*pw) return MXN_OK;
  mxn_writer_t *w = *pw;
  int status = MXN_OK, ex_was = mxn__ex_quiet();
  if (w->exoid >= 0 && ex_close(w->exoid) < 0 && commit)
    status = mxn_error_set(err, MXN_ERR_IO, "%s: closing failed (disk full?)", w->tmp);
  mxn__ex_restore(ex_was);
  if (w->tmp && commit && status == MXN_OK && w->level >= 0) {
    /* netCDF-4: the Exodus file is copied with the chunks and compression
     * of nc4copy.c under a second temporary name, which replaces it. */
    size_t l = strlen(w->tmp) + 8;
    char *h5 = mxn__malloc(l);
    if (!h5)
      status = MXN_ERR_NOMEM;
    else {
      snprintf(h5, l, "%s.nc4", w->tmp);
      status = mxn__nc4_copy(w->tmp, h5, w->level, err);
      if (status == MXN_OK && rename(h5, w->tmp) != 0) {
        status = mxn_error_set(err, MXN_ERR_IO, "%s: cannot move into place: %s", w->tmp,
                               strerror(errno));
        unlink(h5);
      }
      free(h5);
    }
  }
  if (w->tmp) {
    if (commit && status == MXN_OK) {
      if (rename(w->tmp, w->path) != 0) {
        status = mxn_error_set(err, MXN_ERR_IO, "%s: cannot move into place: %s", w->path,
                               strerror(errno));
        unlink(w->tmp); /* a failed write leaves nothing behind */
      }
    } else {
      unlink(w->tmp);
    }
  }
  free(w->path);
  free(w->tmp);
  for (int k = 0; k < MXN__NBK; k++) free(w->btruth[k]);
  for (int k = 0; k < MXN__NSK; k++) free(w->struth[k]);
  free(w);
  *pw = NULL;
  return status;
}
