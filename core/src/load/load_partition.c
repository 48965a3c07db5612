/* The partition of a load's elements (load.h, "method"): the inputs a
 * method needs (centroids, weights, the dual graph), the file-order
 * methods of the load itself (FILES: whole files, or the string of
 * elements cut where a piece ends; MAP: a user's map file), Zoltan and
 * the string methods through mxn_partition(), and the move of each id to
 * its part. Only ids and weights travel. */
#include "load/load_ctx.h"
#include "partition/partmap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The member each element of pc was read from, in concatenated order
 * (pc's plan), into file[pc->num_elements]. */
static int files_in_piece_order(const mxn_piece_t *pc, int32_t *file) {
  int status = MXN_OK;
  int64_t *bstart = NULL;
  MXN_ALLOC(bstart, pc->num_blocks + 1);
  for (int b = 0; b < pc->num_blocks; b++) bstart[b + 1] = bstart[b] + pc->blocks[b].num_elements;
  mxn__plan_elem_sources(pc, bstart, NULL, file, NULL);
done:
  free(bstart);
  return status;
}

typedef struct {
  uint64_t key;
  int64_t k;
} key_index_t;

static int cmp_key_index(const void *a, const void *b) {
  const key_index_t *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->k > y->k) - (x->k < y->k);
}

/* Element centroids and weights of `pc` in concatenated block order. */
static int geometry_and_weights(mxn_dataset_t *ds, mxn_piece_t *pc, const mxn_load_opts_t *o,
                                int need_geom, double **cent, double **w, mxn_gid_t **ids,
                                mxn_error_t *err) {
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  int status = MXN_OK, field = -1;
  int64_t n = pc->num_elements;
  MXN_ALLOC(*ids, n);
  MXN_ALLOC(*w, n);
  if (need_geom) MXN_ALLOC(*cent, 3 * n);
  if (o->weight_field) {
    for (int v = 0; v < s->num_elem_vars; v++)
      if (strcmp(s->elem_var_names[v], o->weight_field) == 0) field = v;
    if (field < 0) {
      status = mxn_error_set(err, MXN_ERR_ARG, "%s: no element variable '%s' to weigh elements by",
                             mxn_dataset_file_path(ds, 0), o->weight_field);
      goto done;
    }
    if (o->weight_step < 0 || o->weight_step >= s->num_times) {
      status = mxn_error_set(err, MXN_ERR_ARG, "%s: weight step %d does not exist (%d steps)",
                             mxn_dataset_file_path(ds, 0), o->weight_step + 1, s->num_times);
      goto done;
    }
    if ((status = mxn_piece_read_step(ds, pc, o->weight_step)) != MXN_OK) {
      mxn_error_set(err, status, "%s", mxn_dataset_errmsg(ds));
      goto done;
    }
  }
  for (int b = 0, e = 0; b < pc->num_blocks; b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    int bnpe = s->blocks[b].nodes_per_elem;
    double bw = o->block_weights ? o->block_weights[b] : 1.0;
    for (int64_t k = 0; k < pb->num_elements; k++, e++) {
      /* poly blocks: the mean of the polygon's nodes, or of the distinct
       * nodes of a polyhedron's faces */
      const int64_t *ec = pb->conn + mxn__conn_at(pb, bnpe, k);
      int npe = mxn__conn_n(pb, bnpe, k);
      (*ids)[e] = pb->elem_ids[k];
      double wt = bw;
      if (field >= 0) wt *= pb->elem_vars[field] ? fabs(pb->elem_vars[field][k]) : 0.0;
      (*w)[e] = isfinite(wt) ? wt : 0.0;
      if (need_geom)
        for (int d = 0; d < 3; d++) {
          double sum = 0;
          if (d < s->num_dim)
            for (int c = 0; c < npe; c++) sum += pc->coord[d][ec[c]];
          /* NaN/inf coordinates are data, not structure: such an element
           * is placed at 0 for partitioning (the partitioners refuse them). */
          double c = (npe > 0 && d < s->num_dim) ? sum / npe : 0.0;
          (*cent)[3 * e + d] = isfinite(c) ? c : 0.0;
        }
    }
  }
done:
  return status;
}

static int parts_from_map(const char *path, int nparts, int64_t n, const mxn_gid_t *ids, int *part,
                          mxn_error_t *err) {
  FILE *f = fopen(path, "r");
  if (!f) return mxn_error_set(err, MXN_ERR_IO, "%s: cannot open the partition map", path);
  int status = mxn__part_map_read(f, path, nparts, n, ids, part, err);
  if (status == MXN_OK && ferror(f))
    status = mxn_error_set(err, MXN_ERR_IO, "%s: cannot read the partition map", path);
  fclose(f);
  return status;
}

/* Cut the string of elements, in (file, position) order over the ranks,
 * into `size` pieces of equal weight: whole files go to ranks and a file
 * is cut only where a piece ends inside it. `w` in that order. */
static int parts_from_files(MPI_Comm comm, int size, int64_t n, const double *w, int *part) {
  double mine = 0, before = 0, total = 0;
  for (int64_t k = 0; k < n; k++) mine += w[k];
  int64_t cnt = n, cbefore = 0, ctotal = 0;
  int status = mxn__comm_exscan_f64(comm, MXN_OK, &mine, 1, &before, &total);
  if (status == MXN_OK) status = mxn__comm_exscan_i64(comm, status, &cnt, 1, &cbefore, &ctotal);
  if (status != MXN_OK) return status;
  double acc = before;
  for (int64_t k = 0; k < n; k++) {
    int p;
    if (total > 0) {
      /* the part whose share holds this element's midpoint */
      p = (int)floor((acc + 0.5 * w[k]) / total * size);
    } else {
      p = (int)((cbefore + k) * size / (ctotal > 0 ? ctotal : 1));
    }
    /* Never skip a part while elements remain for the later ones. */
    int64_t g = cbefore + k;
    if (p > (int)g) p = (int)g;
    int64_t left = ctotal - g; /* this one and the rest */
    if (p < size - left) p = (int)(size - left);
    if (p < 0) p = 0;
    if (p >= size) p = size - 1;
    part[k] = p;
    acc += w[k];
  }
  return MXN_OK;
}

/* Reorder, within every file of mine that the string cut (its elements
 * got more than one part), the elements (ids, weights) by the Hilbert key
 * of their centroids. Reads the geometry of those files only. */
static int hilbert_order_cut_files(mxn_dataset_t *ds, int fbeg, int fend, int64_t n,
                                   mxn_gid_t *ids, const int32_t *file, double *w,
                                   const int *part, int *cut_any, mxn_error_t *err) {
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  int status = MXN_OK;
  char *mask = NULL;
  mxn_piece_t *pc = NULL;
  double *cent = NULL, *wt = NULL;
  mxn_gid_t *gid = NULL;
  uint64_t *key = NULL;
  mxn_idset_t want = MXN_IDSET_INIT;
  *cut_any = 0;
  MXN_ALLOC(mask, s->num_files);
  for (int64_t a = 0; a < n;) {
    int64_t b = a;
    int cut = 0;
    while (b < n && file[b] == file[a]) {
      cut |= part[b] != part[a];
      b++;
    }
    if (cut && file[a] >= fbeg && file[a] < fend) {
      *cut_any = 1;
      memset(mask, 0, (size_t)s->num_files);
      mask[file[a]] = 1;
      mxn_extract_opts_t xo;
      memset(&xo, 0, sizeof xo);
      xo.gap = 4096;
      xo.no_sets = 1;
      xo.no_attributes = 1;
      xo.file_mask = mask;
      MXN_CHECK(mxn_idset_from_array(ids + a, b - a, &want));
      /* a compressed member's boxes are kept for this rank's extraction,
       * which reads its part of the member next (mxn__reads_keep) */
      mxn__store_keep_reads(ds, 1);
      status = mxn_extract(ds, &want, &xo, &pc);
      mxn__store_keep_reads(ds, 0);
      if (status != MXN_OK) {
        mxn_error_set(err, status, "%s", mxn_dataset_errmsg(ds));
        goto done;
      }
      mxn_load_opts_t plain; /* no weights: the centroids alone order the range */
      memset(&plain, 0, sizeof plain);
      MXN_CHECK(geometry_and_weights(ds, pc, &plain, 1, &cent, &wt, &gid, err));
      int64_t m = pc->num_elements;
      double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      for (int64_t k = 0; k < m; k++)
        for (int d = 0; d < 3; d++) {
          double x = cent[3 * k + d];
          if (k == 0 || x < lo[d]) lo[d] = x;
          if (k == 0 || x > hi[d]) hi[d] = x;
        }
      MXN_ALLOC(key, m);
      mxn_hilbert_keys(m, cent, lo, hi, key);
      /* The range's new order: its elements by (Hilbert key, piece order). */
      {
        key_index_t *kk = NULL;
        mxn_idset_t byid = MXN_IDSET_INIT;
        int64_t *at = NULL;
        double *wold = NULL;
        MXN_ALLOC(kk, m);
        for (int64_t k = 0; k < m; k++) kk[k] = (key_index_t){key[k], k};
        qsort(kk, (size_t)m, sizeof *kk, cmp_key_index);
        /* old weights by id: wold[i] belongs to the i-th smallest id */
        status = mxn_idset_from_array_pos(ids + a, b - a, &byid, &at);
        if (status == MXN_OK) {
          wold = mxn__malloc((size_t)(b - a) * sizeof *wold + 1);
          if (!wold) status = MXN_ERR_NOMEM;
        }
        if (status == MXN_OK) {
          for (int64_t k = 0; k < b - a; k++) wold[at[k]] = w[a + k];
          for (int64_t k = 0; k < m; k++) {
            mxn_gid_t id = gid[kk[k].k];
            ids[a + k] = id;
            w[a + k] = wold[mxn_idset_find(&byid, id)];
          }
        }
        free(wold);
        free(at);
        mxn_idset_free(&byid);
        free(kk);
        if (status != MXN_OK) goto done;
      }
      mxn_piece_destroy(&pc);
      mxn_idset_free(&want);
      free(cent);
      free(wt);
      free(gid);
      free(key);
      cent = wt = NULL;
      gid = NULL;
      key = NULL;
    }
    a = b;
  }
done:
  free(mask);
  mxn_piece_destroy(&pc);
  mxn_idset_free(&want);
  free(cent);
  free(wt);
  free(gid);
  free(key);
  return status;
}

/* Whole files to ranks: the files in order, in N contiguous groups whose
 * boundaries sit at the file boundary nearest each ideal cut. Taken
 * (*ok = 1) only when every group is non-empty and the heaviest is within
 * `tol` of the average; otherwise the caller cuts files. Needs one sum of
 * a per-file weight array (M numbers, not per-element data). */
static int parts_from_whole_files(MPI_Comm comm, int N, int M, int64_t n, const int32_t *file,
                                  const double *w, double tol, int *part, int *ok) {
  int status = MXN_OK;
  double *fw = NULL, *all = NULL;
  int *group = NULL;
  *ok = 0;
  if (M < N) return MXN_OK; /* some rank would get no file */
  fw = mxn__calloc((size_t)M, sizeof *fw);
  all = mxn__calloc((size_t)M, sizeof *all);
  group = mxn__calloc((size_t)M, sizeof *group);
  if (!fw || !all || !group) status = MXN_ERR_NOMEM;
  for (int64_t k = 0; status == MXN_OK && k < n; k++) fw[file[k]] += w[k];
  if (status == MXN_OK) memcpy(all, fw, (size_t)M * sizeof *all);
  /* a rank short of memory still takes part in the sum, which fails */
  if ((status = mxn__comm_reduce_f64(comm, status, MXN__SUM, all, M)) != MXN_OK) goto done;
  double total = 0;
  for (int j = 0; j < M; j++) total += all[j];
  if (total <= 0) goto done;
  /* boundary r: first file of group r */
  double acc = 0, heaviest = 0, gw = 0;
  int g = 0;
  for (int j = 0; j < M; j++) {
    /* move to the next group when this file's midpoint passes the ideal
     * cut, as long as enough files remain for the later groups */
    while (g < N - 1 && gw > 0 &&
           (acc + 0.5 * all[j] > (g + 1) * total / N || M - j <= N - 1 - g)) {
      if (gw > heaviest) heaviest = gw;
      gw = 0;
      g++;
    }
    group[j] = g;
    gw += all[j];
    acc += all[j];
  }
  if (gw > heaviest) heaviest = gw;
  if (g != N - 1) goto done; /* a group stayed empty */
  if (heaviest > tol * total / N) goto done;
  for (int64_t k = 0; k < n; k++) part[k] = group[file[k]];
  *ok = 1;
done:
  free(fw);
  free(all);
  free(group);
  return status;
}

/* What the partition needs beside the ids: centroids (3 per element)
 * and the dual graph with its edge weights, in the order of ids0. */
typedef struct {
  double *cent;
  int64_t *adj_off;
  mxn_gid_t *adj_ids;
  int *adj_ranks;
  double *edge_w;
} part_in_t;

static void part_in_free(part_in_t *pi) {
  free(pi->cent);
  free(pi->adj_off);
  free(pi->adj_ids);
  free(pi->adj_ranks);
  free(pi->edge_w);
  memset(pi, 0, sizeof *pi);
}

/* The weights of my initial elements (c->w0, scaled to their maximum),
 * and what the method needs beside them: read from my own members.
 * Collective; errors agreed. */
static int partition_inputs(mxn__load_ctx_t *c, mxn_part_method method, int need_geom,
                            part_in_t *pi) {
  mxn_load_t *ld = c->ld;
  const mxn_load_opts_t *opts = c->opts;
  mxn_error_t *e = c->e;
  mxn_dataset_t *ds = ld->ds;
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  int status = MXN_OK, N = c->N, R = c->R, M = c->M, fbeg = c->fbeg, fend = c->fend;
  char *mask0 = NULL;
  mxn_idset_t S0 = MXN_IDSET_INIT;
  mxn_piece_t *pc0 = NULL;
  /* w0 comes from geometry_and_weights() when geometry or weights are read
   * (allocating it here too leaked n0 doubles per load: ASan), else 1.0. */
  mxn_io_counters_t cp0 = mxn_dataset_counters(ds);
  if (need_geom || opts->weight_field || opts->block_weights) {
    /* Geometry and weights of my initial elements, read from my files. */
    mxn_extract_opts_t xo;
    memset(&xo, 0, sizeof xo);
    xo.gap = opts->gap >= 0 ? opts->gap : 4096;
    xo.no_sets = 1;
    xo.no_attributes = 1;
    /* (failures agreed below, before anything collective) */
    if (!(mask0 = mxn__calloc((size_t)M + 1, 1)))
      status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory", R);
    for (int j = fbeg; mask0 && j < fend; j++) mask0[j] = 1;
    xo.file_mask = mask0; /* my elements are all in my files: open no other */
    if (status == MXN_OK && (status = mxn_idset_from_array(c->ids0, c->n0, &S0)) != MXN_OK)
      mxn_error_set(e, status, "rank %d: out of memory", R);
    /* a compressed member's boxes are kept for this rank's extraction,
     * which reads the elements of its part that lie in these members
     * (up to MXN__KEPT_BOXES bytes; mxn__reads_keep) */
    mxn__store_keep_reads(ds, 1);
    if (status == MXN_OK && (status = mxn_extract(ds, &S0, &xo, &pc0)) != MXN_OK)
      mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
    mxn__store_keep_reads(ds, 0);
    /* Reads of my members may fail here alone (a damaged member): agree
     * before anything collective follows. */
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    {
      mxn_gid_t *gid_order = NULL;
      status = geometry_and_weights(ds, pc0, opts, need_geom, &pi->cent, &c->w0, &gid_order, e);
      status = mxn_agree(ld->comm, status, e);
      if (status == MXN_OK && method == MXN_PART_GRAPH) {
        double *quality = NULL;
        status = mxn__element_quality(s, pc0, &quality);
        if (status != MXN_OK) mxn_error_set(e, status, "rank %d: out of memory", R);
        if ((status = mxn_agree(ld->comm, status, e)) == MXN_OK) {
          status = mxn__dual_graph_dist(ld->comm, N, R, s, pc0, gid_order, quality, &pi->adj_off, &pi->adj_ids,
                                   &pi->adj_ranks, &pi->edge_w);
          if (status != MXN_OK)
            mxn_error_set(e, status, "rank %d: building the dual graph failed: %s", R,
                          mxn_strerror(status));
          if ((status = mxn_agree(ld->comm, status, e)) == MXN_OK)
            status = mxn__quality_edge_weights(ld->comm, pc0->num_elements, pi->adj_off, pi->edge_w);
        }
        free(quality);
      }
      if (status == MXN_OK && method == MXN_PART_FILES) {
        /* The files string keeps (file, position) order: look the weights
         * up for ids0 rather than adopting the piece's order. */
        mxn_idset_t byid = MXN_IDSET_INIT;
        int64_t *at = NULL;
        double *wf = mxn__malloc(((size_t)c->n0 + 1) * sizeof *wf);
        status = wf ? mxn_idset_from_array_pos(gid_order, c->n0, &byid, &at) : MXN_ERR_NOMEM;
        /* at[i]: place of gid_order[i] in byid; invert it in place of a search */
        int64_t *inv = status == MXN_OK ? mxn__malloc(((size_t)c->n0 + 1) * sizeof *inv) : NULL;
        if (status == MXN_OK && !inv) status = MXN_ERR_NOMEM;
        for (int64_t i = 0; status == MXN_OK && i < c->n0; i++) inv[at[i]] = i;
        for (int64_t k = 0; status == MXN_OK && k < c->n0; k++) {
          int64_t q = mxn_idset_find(&byid, c->ids0[k]);
          wf[k] = q >= 0 ? c->w0[inv[q]] : 0.0;
        }
        free(inv);
        mxn_idset_free(&byid);
        free(at);
        free(gid_order);
        free(c->w0);
        c->w0 = wf;
      } else if (status == MXN_OK) {
        free(c->ids0);
        c->ids0 = gid_order; /* piece order from here on */
        if (c->unique) status = files_in_piece_order(pc0, c->file0); /* and their members */
      } else {
        free(gid_order);
      }
    }
    mxn_piece_destroy(&pc0);
    /* the weights' scaling below is collective: what failed so far first */
    if (status != MXN_OK && !e->msg[0])
      mxn_error_set(e, status, "rank %d: reading the partition's weights failed: %s", R,
                    mxn_strerror(status));
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    if (opts->weight_field) {
      /* Only ratios matter: scale by the largest weight first, so sums of
       * weights near DBL_MAX stay finite. No element may weigh 0: floor at
       * 1e-6 of the mean. */
      double gmx = 0;
      for (int64_t k = 0; k < c->n0; k++)
        if (c->w0[k] > gmx) gmx = c->w0[k];
      if ((status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__MAX, &gmx, 1)) != MXN_OK) {
        mxn_error_set(e, status, "scaling the partition's weights failed");
        goto done;
      }
      if (gmx > 0) {
        for (int64_t k = 0; k < c->n0; k++) c->w0[k] /= gmx;
        c->wscale = gmx;
      }
      double tot = 0;
      int64_t ctot = c->n0;
      for (int64_t k = 0; k < c->n0; k++) tot += c->w0[k];
      if ((status = mxn__comm_reduce_f64(ld->comm, MXN_OK, MXN__SUM, &tot, 1)) != MXN_OK ||
          (status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__SUM, &ctot, 1)) != MXN_OK) {
        mxn_error_set(e, status, "summing the partition's weights failed");
        goto done;
      }
      double floor_w = ctot > 0 && tot > 0 ? 1e-6 * tot / ctot : 1.0;
      for (int64_t k = 0; k < c->n0; k++)
        if (c->w0[k] < floor_w) c->w0[k] = floor_w;
    }
  } else {
    /* no goto here: the agree below tells the other ranks */
    c->w0 = mxn__malloc(((size_t)c->n0 + 1) * sizeof *c->w0);
    if (!c->w0)
      status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory", R);
    for (int64_t k = 0; c->w0 && k < c->n0; k++) c->w0[k] = 1.0;
  }
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  ld->st.partition_bytes_read = mxn__data_bytes(mxn_dataset_counters(ds)) - mxn__data_bytes(cp0);
done:
  mxn_piece_destroy(&pc0);
  mxn_idset_free(&S0);
  free(mask0);
  return status;
}

/* Every element's part (c->part) by the method. Collective; errors
 * agreed. */
static int partition_decide(mxn__load_ctx_t *c, mxn_part_method method, int need_geom,
                            part_in_t *pi) {
  mxn_load_t *ld = c->ld;
  const mxn_load_opts_t *opts = c->opts;
  mxn_error_t *e = c->e;
  mxn_dataset_t *ds = ld->ds;
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  int status = MXN_OK, N = c->N, R = c->R, M = c->M, fbeg = c->fbeg, fend = c->fend;
  int whole = 0;
  if (method == MXN_PART_FILES) {
    /* Whole files first: if some contiguous grouping of the files meets
     * the tolerance, no file is cut at all. */
    status = parts_from_whole_files(ld->comm, N, M, c->n0, c->file0, c->w0,
                                    opts->imbalance_tol > 1 ? opts->imbalance_tol : 1.05, c->part,
                                    &whole);
    if (status != MXN_OK)
      mxn_error_set(e, status, "partitioning by files failed on rank %d: %s", R,
                    mxn_strerror(status));
    /* Every step below is agreed before the next collective one, so a rank
     * that failed alone (a member it read is damaged) never leaves the
     * others waiting in a collective it skipped. */
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  }
  if (method == MXN_PART_FILES && !whole) {
    status = parts_from_files(ld->comm, N, c->n0, c->w0, c->part);
    if (status != MXN_OK)
      mxn_error_set(e, status, "partitioning by files failed on rank %d: %s", R,
                    mxn_strerror(status));
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    /* A file the string cuts is cut along the Hilbert curve of its
     * elements, not along its storage order: reorder such files' elements
     * (they are contiguous here and owned by this rank) and cut again.
     * Uncut files keep their place, so they stay whole. */
    int cut_any = 0;
    status = hilbert_order_cut_files(ds, fbeg, fend, c->n0, c->ids0, c->file0, c->w0, c->part, &cut_any, e);
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
    int64_t any = cut_any;
    status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__MAX, &any, 1);
    if (status == MXN_OK && any) status = parts_from_files(ld->comm, N, c->n0, c->w0, c->part);
    if (status != MXN_OK)
      mxn_error_set(e, status, "partitioning by files failed on rank %d: %s", R,
                    mxn_strerror(status));
  } else if (method == MXN_PART_FILES) {
    /* whole files: the parts are decided (and agreed) above */
  } else if (method == MXN_PART_MAP) {
    /* ids must be sorted for the lookup: they are unless weights reordered */
    int64_t *perm = NULL;
    mxn_idset_t sorted = MXN_IDSET_INIT;
    status = mxn_idset_from_array_pos(c->ids0, c->n0, &sorted, &perm);
    int *sp = NULL;
    if (status == MXN_OK) {
      sp = mxn__calloc((size_t)c->n0 + 1, sizeof *sp);
      if (!sp) status = MXN_ERR_NOMEM;
    }
    if (status == MXN_OK) status = parts_from_map(opts->map_file, N, sorted.n, sorted.ids, sp, e);
    if (status == MXN_OK)
      for (int64_t k = 0; k < c->n0; k++) c->part[k] = sp[perm[k]];
    free(sp);
    free(perm);
    mxn_idset_free(&sorted);
  } else {
    mxn_part_input_t in;
    memset(&in, 0, sizeof in);
    in.n = c->n0;
    in.dim = need_geom ? s->num_dim : 0;
    in.ids = c->ids0;
    in.centroids = pi->cent;
    in.weights = c->w0;
    in.adj_off = pi->adj_off;
    in.adj_ids = pi->adj_ids;
    in.adj_ranks = pi->adj_ranks;
    in.edge_weights = pi->edge_w;
    mxn_part_opts_t po;
    memset(&po, 0, sizeof po);
    po.imbalance_tol = opts->imbalance_tol;
    status = mxn_partition(ld->comm, method, &in, N, &po, c->part, e);
  }
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
done:
  return status;
}

/* Each id to its part's rank, with its weight and member: c->mine
 * (sorted by id), c->pids. Collective; errors agreed, but for the sort at
 * the end (*pending), which the caller's next agreement covers. */
static int move_ids(mxn__load_ctx_t *c, part_in_t *pi, int *pending) {
  mxn_load_t *ld = c->ld;
  mxn_error_t *e = c->e;
  int status = MXN_OK, N = c->N, R = c->R;
  mxn__moving_t *mv = NULL;
  /* short of memory, a rank still calls the exchange, which then fails
   * everywhere (mxn__send_to_if) */
  mv = mxn__malloc(((size_t)c->n0 + 1) * sizeof *mv);
  if (!mv)
    status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory moving %lld element ids", R,
                           (long long)c->n0);
  for (int64_t k = 0; mv && k < c->n0; k++) mv[k] = (mxn__moving_t){c->ids0[k], c->w0[k], c->file0[k], 0};
  int sent = mxn__send_to_if(ld->comm, N, status, mv, sizeof *mv, c->n0, c->part, (void **)&c->mine, &c->nmine);
  if (status == MXN_OK && sent != MXN_OK)
    status = mxn_error_set(e, sent, "moving element ids to their owners failed: %s",
                           mxn_strerror(sent));
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  /* Sent: the partition's inputs are done with. */
  MXN_FREE(mv);
  MXN_FREE(c->ids0);
  MXN_FREE(c->file0);
  MXN_FREE(c->w0);
  MXN_FREE(pi->cent);
  MXN_FREE(c->part);
  if (mxn__radix_sort(c->mine, c->nmine, sizeof *c->mine) != MXN_OK) status = MXN_ERR_NOMEM;
  /* agreed below, before the collective query */
  if (!(c->pids = mxn__malloc(((size_t)c->nmine + 1) * sizeof *c->pids))) status = MXN_ERR_NOMEM;
  ld->st.owned_weight = 0;
  for (int64_t k = 0; status == MXN_OK && k < c->nmine; k++) {
    c->pids[k] = c->mine[k].id;
    ld->st.owned_weight += c->mine[k].w;
  }
  c->ow_scaled = ld->st.owned_weight;
  ld->st.owned_weight *= c->wscale; /* in the field's units */
  ld->st.owned_elements = c->nmine;
  *pending = status;
  status = MXN_OK;
done:
  free(mv);
  return status;
}

int mxn__load_partition(mxn__load_ctx_t *c, int status, int *pending) {
  mxn_load_t *ld = c->ld;
  const mxn_load_opts_t *opts = c->opts;
  mxn_error_t *e = c->e;
  part_in_t pi;
  memset(&pi, 0, sizeof pi);
  *pending = MXN_OK;
  double t1 = mxn__load_now();
  mxn_part_method method = opts->method;
  int need_geom = method == MXN_PART_SFC || method == MXN_PART_RCB || method == MXN_PART_RIB ||
                  method == MXN_PART_HSFC || method == MXN_PART_GRAPH;
  if (status == MXN_OK && method == MXN_PART_MAP && !opts->map_file)
    status = mxn_error_set(e, MXN_ERR_ARG, "the map method needs a map file");
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  memset(c->part, 0, ((size_t)c->n0 + 1) * sizeof *c->part);
  if ((status = partition_inputs(c, method, need_geom, &pi)) != MXN_OK) goto done;
  if ((status = partition_decide(c, method, need_geom, &pi)) != MXN_OK) goto done;
  if ((status = move_ids(c, &pi, pending)) != MXN_OK) goto done;
  ld->st.seconds_partition = mxn__load_now() - t1;
done:
  part_in_free(&pi);
  return status;
}
