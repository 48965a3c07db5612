/* Header summaries: what the dataset's structure needs from one member,
 * read through Exodus into the byte stream summary.h describes. */
#include "summary.h"

#include <ctype.h>
#include <exodusII.h>
#include <netcdf.h>
#include <stdio.h>

/* Names from old writers may carry junk after the NUL or trailing blanks. */
static void clean_name(char *s, size_t cap) {
  s[cap - 1] = '\0';
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++)
    if (!isprint((unsigned char)s[i])) s[i] = ' ';
  while (n > 0 && s[n - 1] == ' ') s[--n] = '\0';
}

/* Read names of `n` entities/variables into fixed-size slots. */
static int read_names(int exoid, ex_entity_type t, int n,
                      char (*out)[MXN_NAME_LEN], int is_var) {
  int status = MXN_OK;
  char **ptrs = NULL;
  if (n <= 0) return MXN_OK;
  MXN_ALLOC(ptrs, n);
  for (int k = 0; k < n; k++) {
    memset(out[k], 0, MXN_NAME_LEN);
    ptrs[k] = out[k];
  }
  int rc = is_var ? ex_get_variable_names(exoid, t, n, ptrs) : ex_get_names(exoid, t, ptrs);
  if (rc < 0) {
    /* Unnamed entities are legal; unreadable variable names are not. */
    if (is_var) status = MXN_ERR_FORMAT;
    for (int k = 0; k < n; k++) out[k][0] = '\0';
  }
  for (int k = 0; k < n; k++) clean_name(out[k], MXN_NAME_LEN);
done:
  free(ptrs);
  return status;
}

static int has_nc_dim(int exoid, const char *name) {
  int d;
  return nc_inq_dimid(exoid, name, &d) == NC_NOERR;
}

/* Variable families in the order a summary stores them: nodal, element,
 * global, edge, face, then the set kinds. */
static const ex_entity_type fam_type[MXN__NV] = {EX_NODAL, EX_ELEM_BLOCK, EX_GLOBAL,
                                                 EX_EDGE_BLOCK, EX_FACE_BLOCK, EX_NODE_SET,
                                                 EX_SIDE_SET, EX_EDGE_SET, EX_FACE_SET,
                                                 EX_ELEM_SET};
/* Member j's blocks of kind k into the stream: per block id, name,
 * topology, sizes, attribute names. */
static int summarize_blocks(mxn_dataset_t *ds, int j, int exoid, int k,
                            int64_t nblk, wbuf_t *w) {
  const mxn__file_t *f = &ds->files[j];
  const char *what = mxn__blk_what[k];
  ex_entity_type t = mxn__blk_type[k];
  int status = MXN_OK;
  int64_t *ids = NULL;
  char(*names)[MXN_NAME_LEN] = NULL;
  char(*an)[MXN_NAME_LEN] = NULL;
  char **ap = NULL;
  MXN_ALLOC(ids, nblk);
  MXN_ALLOC(names, nblk);
  if (nblk > 0) {
    if (ex_get_ids(exoid, t, ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s block ids", f->path, what);
      goto done;
    }
    MXN_CHECK(read_names(exoid, t, (int)nblk, names, 0));
  }
  for (int64_t q = 0; q < nblk; q++) {
    ex_block blk;
    memset(&blk, 0, sizeof blk);
    blk.id = ids[q];
    blk.type = t;
    if (ex_get_block_param(exoid, &blk) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s block %lld: cannot read its parameters",
                          f->path, what, (long long)ids[q]);
      goto done;
    }
    if (blk.num_entry < 0 || blk.num_nodes_per_entry < 0 || blk.num_attribute < 0 ||
        blk.num_edges_per_entry < 0 || blk.num_faces_per_entry < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s block %lld: negative sizes", f->path, what,
                          (long long)ids[q]);
      goto done;
    }
    clean_name(blk.topology, sizeof blk.topology);
    int poly = mxn__poly_kind(blk.topology);
    /* Polygons may be elements or faces, polyhedra only elements; an
     * NSIDED edge is no edge. */
    if ((poly == MXN_POLY_NSIDED && k == MXN__EDGE) || (poly == MXN_POLY_NFACED && k != MXN__ELEM)) {
      status = MXN_DS_ERR(ds, MXN_ERR_UNSUPPORTED, "%s: %s block %lld: %s %s blocks are not supported",
                          f->path, what, (long long)ids[q], blk.topology, what);
      goto done;
    }
    if (poly == MXN_POLY_NFACED && blk.num_entry > 0 &&
        (blk.num_faces_per_entry == 0 || blk.num_nodes_per_entry != 0 || blk.num_edges_per_entry != 0)) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld: NFACED with %lld face, %lld node and %lld edge "
                          "references (polyhedra list faces only)",
                          f->path, what, (long long)ids[q], (long long)blk.num_faces_per_entry,
                          (long long)blk.num_nodes_per_entry, (long long)blk.num_edges_per_entry);
      goto done;
    }
    if (poly == MXN_POLY_NSIDED && (blk.num_edges_per_entry != 0 || blk.num_faces_per_entry != 0)) {
      status = MXN_DS_ERR(ds, MXN_ERR_UNSUPPORTED,
                          "%s: %s block %lld: NSIDED entries with edge or face references are "
                          "not supported",
                          f->path, what, (long long)ids[q]);
      goto done;
    }
    if (blk.num_entry > 0 && blk.num_nodes_per_entry == 0 && poly != MXN_POLY_NFACED) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld: %lld entries of type '%s' with 0 nodes each",
                          f->path, what, (long long)ids[q], (long long)blk.num_entry,
                          blk.topology);
      goto done;
    }
    w_i64(w, blk.id);
    w_str(w, names[q]);
    w_str(w, blk.topology);
    w_i64(w, blk.num_entry);
    w_i64(w, blk.num_nodes_per_entry);
    w_i64(w, blk.num_edges_per_entry);
    w_i64(w, blk.num_faces_per_entry);
    w_i64(w, blk.num_attribute);
    int na = blk.num_entry > 0 ? (int)blk.num_attribute : 0;
    if (na > 0) {
      MXN_ALLOC(an, na);
      MXN_ALLOC(ap, na);
      for (int a = 0; a < na; a++) ap[a] = an[a];
      /* Unnamed attributes are legal. */
      if (ex_get_attr_names(exoid, t, blk.id, ap) < 0)
        for (int a = 0; a < na; a++) an[a][0] = '\0';
      for (int a = 0; a < na; a++) {
        clean_name(an[a], MXN_NAME_LEN);
        w_str(w, an[a]);
      }
      free(an);
      free(ap);
      an = NULL;
      ap = NULL;
    }
  }
done:
  free(ids);
  free(names);
  free(an);
  free(ap);
  return status;
}

/* Member j's sets of every kind into the stream: id, name, entries,
 * distribution factors. */
static int summarize_sets(mxn_dataset_t *ds, int j, int exoid, const int64_t nsets_of[MXN__NSK],
                          wbuf_t *body) {
  const mxn__file_t *f = &ds->files[j];
  int status = MXN_OK;
  int64_t *ids = NULL;
  char(*names)[MXN_NAME_LEN] = NULL;
  for (int sk = 0; sk < MXN__NSK; sk++) {
    ex_entity_type t = mxn__set_type[sk];
    int n = (int)nsets_of[sk];
    if (n <= 0) continue;
    MXN_ALLOC(ids, n);
    MXN_ALLOC(names, n);
    if (ex_get_ids(exoid, t, ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s ids", f->path,
                          mxn__set_what[sk]);
      goto done;
    }
    MXN_CHECK(read_names(exoid, t, n, names, 0));
    for (int k = 0; k < n; k++) {
      int64_t cnt = 0, ndf = 0;
      if (ex_get_set_param(exoid, t, ids[k], &cnt, &ndf) < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s %lld: cannot read its size", f->path,
                            mxn__set_what[sk], (long long)ids[k]);
        goto done;
      }
      w_i64(body, ids[k]);
      w_str(body, names[k]);
      w_i64(body, cnt);
      w_i64(body, ndf);
    }
    free(ids);
    free(names);
    ids = NULL;
    names = NULL;
  }
done:
  free(ids);
  free(names);
  return status;
}

/* Member j's variables of each family that can have them here into the
 * stream: count, names, and the truth table over the member's blocks or
 * sets; *n_glob: its global variables. */
static int summarize_vars(mxn_dataset_t *ds, int j, int exoid, const ex_init_params *p,
                          const int64_t nsets_of[MXN__NSK], wbuf_t *body, int *n_glob) {
  const mxn__file_t *f = &ds->files[j];
  int status = MXN_OK;
  int *truth = NULL;
  char(*names)[MXN_NAME_LEN] = NULL;
  for (int v = 0; v < MXN__NV; v++) {
    int64_t nobj = v == MXN__V_NODAL || v == MXN__V_GLOBAL ? 0
                   : v == MXN__V_ELEM                      ? p->num_elem_blk
                   : v == MXN__V_EDGE                      ? p->num_edge_blk
                   : v == MXN__V_FACE                      ? p->num_face_blk
                                                           : nsets_of[v - MXN__V_SET0];
    if ((v == MXN__V_EDGE || v == MXN__V_FACE || v >= MXN__V_SET0) && nobj <= 0) continue;
    int n = 0;
    if (ex_get_variable_param(exoid, fam_type[v], &n) < 0 ||
        n < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s variable count", f->path,
                          mxn__fam_what[v]);
      goto done;
    }
    if (n > f->open_size) {
      /* every variable's name takes bytes of the file (name_*_var): more
       * variables than bytes is a damaged count, and sizing the names by
       * it asked for gigabytes (fuzz_dataset) */
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: invalid header (%d %s variables in a file of %lld bytes)", f->path,
                          n, mxn__fam_what[v], (long long)f->open_size);
      goto done;
    }
    w_i64(body, n);
    MXN_ALLOC(names, n);
    if (read_names(exoid, fam_type[v], n, names, 1) != MXN_OK) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s variable names", f->path,
                          mxn__fam_what[v]);
      goto done;
    }
    for (int k = 0; k < n; k++) w_str(body, names[k]);
    free(names);
    names = NULL;
    if (v == MXN__V_GLOBAL) *n_glob = n;
    if (nobj > 0 && n > 0 && v != MXN__V_NODAL && v != MXN__V_GLOBAL) {
      MXN_ALLOC(truth, nobj * n);
      if (ex_get_truth_table(exoid, fam_type[v], (int)nobj, n, truth) < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s variable truth table",
                            f->path, mxn__fam_what[v]);
        goto done;
      }
      for (int64_t i = 0; i < nobj * n; i++) w_i64(body, truth[i] != 0);
      free(truth);
      truth = NULL;
    }
  }
done:
  free(truth);
  free(names);
  return status;
}

/* At most this many global values (steps x variables, 1 MiB) are kept from
 * member 0's summary; beyond it each step reads its own. */
#define GLOB_KEEP 131072

/* Member j's header as a stream (see above). Returns the member's status;
 * the stream then holds it and its message. */
static int summarize_member(mxn_dataset_t *ds, int j, wbuf_t *w) {
  mxn__file_t *f = &ds->files[j];
  int status = MXN_OK, exoid;
  char(*names)[MXN_NAME_LEN] = NULL;
  double *times = NULL, *glob = NULL;
  int n_glob = 0, ex_was = mxn__ex_quiet();
  int64_t *ids = NULL;
  wbuf_t body = {0};
  if (!mxn__file_open(ds, j, &status)) goto done;
  exoid = f->exoid;

  ex_init_params p;
  memset(&p, 0, sizeof p);
  if (ex_get_init_ext(exoid, &p) < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: netCDF file without Exodus II header (no num_dim "
                        "or block counts)",
                        f->path);
    goto done;
  }
  if (p.num_dim < 1 || p.num_dim > 3 || p.num_nodes < 0 || p.num_elem < 0 ||
      p.num_elem_blk < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: invalid header (dimension %lld)", f->path,
                        (long long)p.num_dim);
    goto done;
  }
  if (p.num_edge < 0 || p.num_face < 0 || p.num_edge_blk < 0 || p.num_face_blk < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: invalid header (negative edge/face counts)",
                        f->path);
    goto done;
  }
  {
    /* Every block, set and map stores at least one byte (its id): more of
     * them than the file has bytes is a damaged header, and sizing arrays
     * by it asked for 16 GB (fuzz_dataset). */
    const int64_t cnt[] = {p.num_elem_blk, p.num_edge_blk, p.num_face_blk, p.num_node_sets,
                           p.num_side_sets, p.num_edge_sets, p.num_face_sets, p.num_elem_sets,
                           p.num_elem_maps, p.num_edge_maps, p.num_face_maps, p.num_node_maps};
    for (size_t c = 0; c < sizeof cnt / sizeof *cnt; c++)
      if (cnt[c] < 0 || cnt[c] > f->open_size) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: invalid header (%lld blocks, sets or maps of one kind in a "
                            "file of %lld bytes)",
                            f->path, (long long)cnt[c], (long long)f->open_size);
        goto done;
      }
  }
  const int64_t head[] = {p.num_dim,       p.num_nodes,     p.num_elem,      p.num_edge,
                          p.num_face,      p.num_elem_blk,  p.num_edge_blk,  p.num_face_blk,
                          p.num_node_sets, p.num_side_sets, p.num_edge_sets, p.num_face_sets,
                          p.num_elem_sets, p.num_elem_maps, p.num_edge_maps, p.num_face_maps,
                          p.num_node_maps};
  for (size_t i = 0; i < sizeof head / sizeof *head; i++) w_i64(&body, head[i]);
  {
    char title[MXN_NAME_LEN * 2];
    snprintf(title, sizeof title, "%s", p.title);
    clean_name(title, sizeof title);
    w_str(&body, title);
  }
  w_i64(&body, ex_inquire_int(exoid, EX_INQ_DB_FLOAT_SIZE) == 4 ? 4 : 8);
  {
    char cn[3][MXN_NAME_LEN];
    char *cp[3] = {cn[0], cn[1], cn[2]};
    memset(cn, 0, sizeof cn);
    if (ex_get_coord_names(exoid, cp) < 0)
      for (int d = 0; d < 3; d++) cn[d][0] = '\0';
    for (int d = 0; d < 3; d++) {
      clean_name(cn[d], MXN_NAME_LEN);
      w_str(&body, cn[d]);
    }
  }
  w_i64(&body, ex_inquire_int(exoid, EX_INQ_QA));
  w_i64(&body, ex_inquire_int(exoid, EX_INQ_INFO));
  w_i64(&body, (ex_int64_status(exoid) & EX_IDS_INT64_DB) != 0);
  /* Nemesis: global counts, file count. */
  {
    int64_t nng = 0, neg = 0, nbg = 0, nnsg = 0, nssg = 0;
    int ok = has_nc_dim(exoid, "num_nodes_global") &&
             ex_get_init_global(exoid, &nng, &neg, &nbg, &nnsg, &nssg) >= 0;
    w_i64(&body, ok);
    w_i64(&body, nng);
    w_i64(&body, neg);
    int nproc = 0, nproc_file = 0;
    char ftype[2] = "";
    ok = has_nc_dim(exoid, "num_processors") &&
         ex_get_init_info(exoid, &nproc, &nproc_file, ftype) >= 0;
    w_i64(&body, ok);
    w_i64(&body, nproc);
  }
  /* Blocks. */
  const int64_t nblk_of[MXN__NBK] = {p.num_elem_blk, p.num_edge_blk, p.num_face_blk};
  for (int k = 0; k < MXN__NBK; k++) MXN_CHECK(summarize_blocks(ds, j, exoid, k, nblk_of[k], &body));
  /* Sets: id, name, entries, distribution factors. */
  const int64_t nsets_of[MXN__NSK] = {p.num_node_sets, p.num_side_sets, p.num_edge_sets,
                                      p.num_face_sets, p.num_elem_sets};
  MXN_CHECK(summarize_sets(ds, j, exoid, nsets_of, &body));
  /* Variables of each family that can have them here: count, names, and
   * the truth table over the member's blocks or sets. */
  MXN_CHECK(summarize_vars(ds, j, exoid, &p, nsets_of, &body, &n_glob));
  /* Nodes have coordinates: a header declaring nodes without them made
   * the id map of a member without one (1..n) 10 GB (fuzz_dataset). The
   * shape check holds them to num_nodes where they are. */
  if (p.num_nodes > 0 && mxn__m_var(f, "coord") < 0) {
    for (int d = 0; d < p.num_dim && status == MXN_OK; d++)
      if (mxn__m_var(f, mxn__coord_var[d]) < 0)
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: damaged Exodus file: %lld nodes but no %s (coordinates)",
                            f->path, (long long)p.num_nodes, mxn__coord_var[d]);
    if (status != MXN_OK) goto done;
  }
  /* Time values. */
  int nt = (int)ex_inquire_int(exoid, EX_INQ_TIME);
  if (nt < 0) nt = 0;
  /* Member 0's times are the dataset's. Another member gives its first
   * and last (a read each: a record variable's values lie a record apart),
   * and its others are compared when a step is first read from it
   * (mxn__step_time_check): 200 steps of 1024 members took 51 k reads a
   * rank of 4 here, 0.06-0.2 s of the open. */
  int nw = j == 0 || nt <= 2 ? nt : 2, rc = 0;
  MXN_ALLOC(times, nw);
  if (nw == nt && nt > 0)
    rc = ex_get_all_times(exoid, times);
  for (int i = 0; nw < nt && i < 2 && rc >= 0; i++) { /* first, last */
    int k = i ? nt - 1 : 0;
    rc = ex_get_time(exoid, k + 1, &times[i]);
  }
  if (rc < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read time values", f->path);
    goto done;
  }
  w_i64(&body, nt);
  w_i64(&body, nw);
  for (int k = 0; k < nw; k++) w_f64(&body, times[k]);
  /* Member 0 also gives its global variables at every step, where they fit
   * in GLOB_KEEP values: a step's read then takes them from the dataset and
   * no rank opens member 0 for them (the load's ranks each opened it once
   * per step before). 0 values: not kept, read per step as before. */
  int64_t nglob = 0;
  if (j == 0 && nt > 0 && n_glob > 0 && (int64_t)n_glob * nt <= GLOB_KEEP) {
    int varid;
    size_t start[2] = {0, 0}, count[2] = {(size_t)nt, (size_t)n_glob};
    MXN_ALLOC(glob, (int64_t)n_glob * nt);
    if ((varid = mxn__m_var(f, "vals_glo_var")) >= 0 &&
        mxn__m_get(f, varid, start, count, NULL, glob, 'd') == 0) {
      nglob = (int64_t)n_glob * nt;
      ds->io.read_calls++;
      ds->io.bytes_read += nglob * (int64_t)sizeof(double);
    }
  }
  w_i64(&body, nglob);
  for (int64_t k = 0; k < nglob; k++) w_f64(&body, glob[k]);
  /* Id maps present. */
  w_i64(&body, mxn__m_var(f, "node_num_map") >= 0);
  w_i64(&body, mxn__m_var(f, "elem_num_map") >= 0);
  w_i64(&body, mxn__m_var(f, "edge_num_map") >= 0);
  w_i64(&body, mxn__m_var(f, "face_num_map") >= 0);
  /* Numbered maps: ids and names (a member without entities of the kind
   * has no values to give, and exodus 6.02 leaves such maps without an id). */
  const int64_t nmaps_of[MXN__NEK] = {p.num_elem_maps, p.num_edge_maps, p.num_face_maps,
                                      p.num_node_maps};
  const int64_t nents_of[MXN__NEK] = {p.num_elem, p.num_edge, p.num_face, p.num_nodes};
  for (int e = 0; e < MXN__NEK; e++) {
    int nm = (int)nmaps_of[e];
    if (nm <= 0 || nents_of[e] == 0) continue;
    MXN_ALLOC(ids, nm);
    MXN_ALLOC(names, nm);
    if (ex_get_ids(exoid, mxn__map_type[e], ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s map ids", f->path,
                          mxn__ent_what[e]);
      goto done;
    }
    MXN_CHECK(read_names(exoid, mxn__map_type[e], nm, names, 0));
    for (int k = 0; k < nm; k++) {
      w_i64(&body, ids[k]);
      w_str(&body, names[k]);
    }
    free(ids);
    free(names);
    ids = NULL;
    names = NULL;
  }
  if (body.nomem) status = MXN_ERR_NOMEM;
done:
  if (status != MXN_OK && ds->err.status == MXN_OK)
    MXN_DS_ERR(ds, status, "%s: %s", f->path, mxn_strerror(status));
  w_i64(w, status);
  if (status != MXN_OK) {
    w_str(w, ds->err.msg);
  } else {
    w_raw(w, body.p, body.n);
  }
  if (w->nomem && status == MXN_OK) status = MXN_ERR_NOMEM;
  free(body.p);
  free(names);
  free(times);
  free(glob);
  free(ids);
  mxn__ex_restore(ex_was);
  return status;
}

int mxn__member_summary(mxn_dataset_t *ds, int j, int skip, char **buf, size_t *len) {
  wbuf_t w = {0};
  int status;
  if (skip) {
    status = MXN_ERR_IO;
    w_i64(&w, status);
    w_str(&w, "member not read: an earlier member failed");
  } else {
    status = summarize_member(ds, j, &w);
  }
  if (w.nomem) {
    free(w.p);
    *buf = NULL;
    *len = 0;
    return MXN_ERR_NOMEM;
  }
  *buf = w.p;
  *len = w.n;
  return status;
}
