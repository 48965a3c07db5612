/* JOIN and SPLIT: the single-process forms, on the shared routines. */
#include "forms/nemmaps.h"
#include "structure/nodecheck.h"
#include "forms/varview.h"

#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mxn_member_name(const char *base, int M, int j, char *out, size_t cap) {
  int width = 1;
  for (int m = M; m >= 10; m /= 10) width++;
  snprintf(out, cap, "%s.%d.%0*d", base, M, width, j);
}

/* Content this version cannot carry through must stop the job, never be
 * dropped silently: polyhedral blocks are refused when the dataset is
 * opened, sets with several distribution factors per edge/face/element
 * entry when they are read. Everything else is carried. */
static int open_ds(const char *in, mxn_dataset_t **ds, mxn_error_t *err) {
  int status = mxn_dataset_create(ds);
  if (status != MXN_OK) return mxn_error_set(err, status, "out of memory");
  status = mxn_dataset_open(*ds, in);
  if (status != MXN_OK) mxn_error_set(err, status, "%s", mxn_dataset_errmsg(*ds));
  return status;
}

/* The options of a join or split given none: every default the header
 * documents (gap < 0: the default gap). */
static const mxn_form_opts_t form_defaults = {.gap = -1};

/* Extraction options of the forms: the given gap, or 4096 entries. */
static mxn_extract_opts_t form_extract_opts(const mxn_form_opts_t *opts) {
  mxn_extract_opts_t eo;
  memset(&eo, 0, sizeof eo);
  eo.gap = opts->gap >= 0 ? opts->gap : 4096;
  return eo;
}

/* The dataset at `in` opened and read whole into one piece, for join and
 * split: a node id several members store must have the same coordinates
 * in each (checked before, a single file has nothing to check). The
 * reading time goes to rep->seconds_read. */
static int read_whole(const char *in, const mxn_form_opts_t *opts, mxn_dataset_t **ds,
                      mxn_piece_t **piece, mxn_form_report_t *rep, mxn_error_t *err) {
  int status = open_ds(in, ds, err);
  if (status != MXN_OK) return status;
  const mxn_structure_t *s = mxn_dataset_structure(*ds);
  if ((status = mxn__check_shared_nodes(MPI_COMM_NULL, *ds, 0, s->num_files, err)) != MXN_OK)
    return status;
  mxn_extract_opts_t eo = form_extract_opts(opts);
  double t0 = now();
  if ((status = mxn_extract(*ds, NULL, &eo, piece)) != MXN_OK)
    return mxn_error_set(err, status, "%s", mxn_dataset_errmsg(*ds));
  rep->seconds_read = now() - t0;
  return MXN_OK;
}

/* Write `piece` and every time step of it to `path`. */
/* Write `piece` of ds at every step to path; `view` (or NULL) is how the
 * structure and piece are written (variables dropped or added). */
static int write_all_view(mxn_dataset_t *ds, mxn_piece_t *piece, mxn__var_view_t *view,
                          const char *path, const mxn_write_opts_t *wo, mxn_form_report_t *rep,
                          mxn_error_t *err) {
  const mxn_structure_t *s = &ds->s;
  const mxn_structure_t *ws = view ? &view->s : s;
  mxn_piece_t *wp = view ? &view->p : piece;
  mxn_writer_t *w = NULL;
  int status = mxn_writer_create(path, ws, wp, wo, &w, err);
  if (status != MXN_OK) return status;
  for (int t = 0; t < s->num_times; t++) {
    double t0 = now();
    status = mxn_piece_read_step(ds, piece, t);
    if (status != MXN_OK) {
      mxn_error_set(err, status, "%s", mxn_dataset_errmsg(ds));
      break;
    }
    double t1 = now();
    mxn__var_view_sync(view, piece);
    status = mxn_writer_put_step(w, wp, t, err);
    if (rep) {
      rep->seconds_read += t1 - t0;
      rep->seconds_write += now() - t1;
    }
    if (status != MXN_OK) break;
  }
  if (rep) {
    mxn_io_counters_t c = mxn_writer_counters(w);
    rep->written.bytes_written += c.bytes_written;
    rep->written.write_calls += c.write_calls;
  }
  int cs = mxn_writer_close(&w, status == MXN_OK, err);
  return status != MXN_OK ? status : cs;
}

static int write_all(mxn_dataset_t *ds, mxn_piece_t *piece, const char *path,
                     const mxn_write_opts_t *wo, mxn_form_report_t *rep, mxn_error_t *err) {
  return write_all_view(ds, piece, NULL, path, wo, rep, err);
}

int mxn_join(const char *in, const char *out, const mxn_form_opts_t *opts,
             mxn_form_report_t *rep, mxn_error_t *err) {
  if (!in || !out) return mxn_error_set(err, MXN_ERR_ARG, "join: input and output paths needed");
  if (!opts) opts = &form_defaults;
  if (mxn_file_format_check(&opts->file, err) != MXN_OK) return MXN_ERR_ARG;
  mxn_form_report_t local;
  if (!rep) rep = &local;
  memset(rep, 0, sizeof *rep);
  mxn_dataset_t *ds = NULL;
  mxn_piece_t *piece = NULL;
  int status = read_whole(in, opts, &ds, &piece, rep, err);
  if (status != MXN_OK) goto done;
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  mxn_write_opts_t wo;
  memset(&wo, 0, sizeof wo);
  wo.int64 = opts->int64 || s->int64_ids;
  wo.word_size = s->float_word_size;
  wo.file = opts->file;
  wo.use_original_ids = s->has_original_elem_ids;
  {
    /* Members repeating elements carry ghost copies (repart --ghosts): one
     * copy of each is kept, and their vtkGhostType means nothing in one
     * file, so it is dropped. */
    int64_t held = 0;
    for (int j = 0; j < ds->nfiles; j++) held += mxn__file_dom(ds, j) ? mxn__file_dom(ds, j)->elems.n : 0;
    int has_ghost_var = 0;
    for (int v = 0; v < s->num_elem_vars; v++)
      has_ghost_var |= strcmp(s->elem_var_names[v], MXN_GHOST_VAR) == 0;
    mxn__var_view_t view;
    int use_view = held > piece->num_elements && has_ghost_var;
    if (use_view && (status = mxn__var_view(s, piece, MXN_GHOST_VAR, NULL, NULL, &view)) != MXN_OK) {
      mxn_error_set(err, status, "join: out of memory");
      goto done;
    }
    status = write_all_view(ds, piece, use_view ? &view : NULL, out, &wo, rep, err);
    if (use_view) mxn__var_view_free(&view);
  }
  rep->files_in = s->num_files;
  rep->files_out = 1;
  mxn_structure_warnings(s, rep->warnings, sizeof rep->warnings);
  rep->num_nodes = piece->num_nodes;
  rep->num_elements = piece->num_elements;
  rep->num_steps = s->num_times;
  rep->read = mxn_dataset_counters(ds);
done:
  mxn_piece_destroy(&piece);
  mxn_dataset_destroy(&ds);
  return status;
}

typedef struct {
  int64_t node;
  int part;
} node_part_t;

static int cmp_node_part(const void *a, const void *b) {
  const node_part_t *x = a, *y = b;
  if (x->node != y->node) return (x->node > y->node) - (x->node < y->node);
  return (x->part > y->part) - (x->part < y->part);
}

/* np_off/np_part: CSR of global node (index in `all`) -> sorted parts. */
static int nem_build(const mxn_structure_t *s, const mxn_piece_t *all,
                     const mxn_piece_t *pc, int part, const int64_t *np_off,
                     const int *np_part, int nparts, mxn__nem_maps_t *nb) {
  int status = MXN_OK;
  int64_t *g = NULL; /* piece node -> global node index */
  int64_t *cnt = NULL;
  char *bor = NULL;
  memset(nb, 0, sizeof *nb);
  MXN_ALLOC(g, pc->num_nodes);
  for (int64_t i = 0, k = 0; i < pc->num_nodes; i++) {
    while (all->node_ids[k] < pc->node_ids[i]) k++;
    g[i] = k;
  }
  MXN_ALLOC(bor, pc->num_nodes);
  for (int64_t i = 0; i < pc->num_nodes; i++) bor[i] = np_off[g[i] + 1] - np_off[g[i]] > 1;
  MXN_CHECK(mxn__nem_maps_split(s, pc, bor, nb));
  /* One node communication map per neighbouring part, in part order. */
  MXN_ALLOC(cnt, nparts);
  for (int64_t i = 0; i < pc->num_nodes; i++)
    if (bor[i])
      for (int64_t k = np_off[g[i]]; k < np_off[g[i] + 1]; k++)
        if (np_part[k] != part) cnt[np_part[k]]++;
  for (int q = 0; q < nparts; q++) nb->ncmaps += cnt[q] > 0;
  MXN_ALLOC(nb->cmap_parts, nb->ncmaps);
  MXN_ALLOC(nb->cmap_off, nb->ncmaps + 1);
  for (int q = 0, c = 0; q < nparts; q++)
    if (cnt[q] > 0) {
      nb->cmap_parts[c] = q;
      nb->cmap_off[c + 1] = nb->cmap_off[c] + cnt[q];
      cnt[q] = nb->cmap_off[c]; /* from here on: the fill position */
      c++;
    }
  MXN_ALLOC(nb->cmap_nodes, nb->cmap_off[nb->ncmaps]);
  for (int64_t i = 0; i < pc->num_nodes; i++)
    if (bor[i])
      for (int64_t k = np_off[g[i]]; k < np_off[g[i] + 1]; k++)
        if (np_part[k] != part) nb->cmap_nodes[cnt[np_part[k]]++] = i;
done:
  free(g);
  free(cnt);
  free(bor);
  if (status != MXN_OK) mxn__nem_maps_free(nb);
  return status;
}

/* Ids of orphans (nodes, edges or faces no element refers to) given to
 * each part: ids[off[p] .. off[p+1]). */
typedef struct {
  int64_t *off;
  mxn_gid_t *ids;
} orphans_t;

/* Growable list of (node, part) pairs. */
typedef struct {
  node_part_t *a;
  int64_t n, cap;
} np_list_t;

static int np_push(np_list_t *l, int64_t node, int part) {
  if (l->n == l->cap) {
    int64_t cap = l->cap ? 2 * l->cap : 1024;
    node_part_t *a = mxn__realloc(l->a, (size_t)cap * sizeof *a);
    if (!a) return MXN_ERR_NOMEM;
    l->a = a;
    l->cap = cap;
  }
  l->a[l->n++] = (node_part_t){node, part};
  return MXN_OK;
}

/* Bucket (id, part) choices into per-part id lists. */
static int orphans_build(const mxn_gid_t *ids, const int *part, int64_t n, int nparts,
                         orphans_t *o) {
  int status = MXN_OK;
  MXN_ALLOC(o->off, nparts + 1);
  MXN_ALLOC(o->ids, n);
  for (int64_t i = 0; i < n; i++) o->off[part[i] + 1]++;
  for (int p = 0; p < nparts; p++) o->off[p + 1] += o->off[p];
  for (int64_t i = 0; i < n; i++) o->ids[o->off[part[i]]++] = ids[i];
  for (int p = nparts; p > 0; p--) o->off[p] = o->off[p - 1];
  o->off[0] = 0;
done:
  return status;
}

/* Which parts each node of the whole mesh `all` lands in (CSR np_off /
 * np_part over all's nodes, parts ascending), given the element parts.
 * A part holds the nodes of its elements and of the edges and faces they
 * refer to. Edges and faces no element refers to go to the part of an
 * element sharing their first node, else to part 0; nodes nothing refers
 * to go to part 0. Those orphans are listed per part in orph[0..2] (nodes,
 * edges, faces), so that join(split(x)) == x even for them. */
static int assign_parts(const mxn_structure_t *s, const mxn_piece_t *all, const int *part,
                        int nparts, int64_t **np_off, int **np_part, orphans_t orph[3]) {
  int status = MXN_OK;
  np_list_t l;
  memset(&l, 0, sizeof l);
  int *node_part = NULL, *ent_part = NULL, *opart = NULL;
  mxn_gid_t *oids = NULL;
  int64_t *ent_off = NULL, *ent_nodes = NULL;
  mxn_gid_t *ent_ids = NULL;
  /* Elements' nodes; node_part[v]: part of the first element using v. */
  MXN_ALLOC(node_part, all->num_nodes);
  for (int64_t v = 0; v < all->num_nodes; v++) node_part[v] = -1;
  for (int b = 0, e = 0; b < all->num_blocks; b++) {
    const mxn_piece_block_t *pb = &all->blocks[b];
    int bnpe = s->blocks[b].nodes_per_elem;
    for (int64_t k = 0; k < pb->num_elements; k++, e++)
      for (int c = 0; c < mxn__conn_n(pb, bnpe, k); c++) {
        int64_t v = pb->conn[mxn__conn_at(pb, bnpe, k) + c];
        MXN_CHECK(np_push(&l, v, part[e]));
        if (node_part[v] < 0) node_part[v] = part[e];
      }
  }
  /* Edges, then faces: flattened node lists, parts of the elements that
   * refer to them, orphans. */
  for (int t = 1; t <= 2; t++) {
    int kind = t == 1 ? MXN__EDGE : MXN__FACE, nb;
    const mxn_block_info_t *sb = mxn__sblocks(s, kind, &nb);
    const mxn_piece_block_t *pbs = mxn__pblocks(all, kind, &nb);
    int64_t n = t == 1 ? all->num_edges : all->num_faces;
    MXN_ALLOC(ent_off, n + 1);
    MXN_ALLOC(ent_ids, n);
    for (int b = 0, x = 0; b < nb; b++)
      for (int64_t k = 0; k < pbs[b].num_elements; k++, x++) {
        ent_off[x + 1] = ent_off[x] + mxn__conn_n(&pbs[b], sb[b].nodes_per_elem, k);
        ent_ids[x] = pbs[b].elem_ids[k];
      }
    MXN_ALLOC(ent_nodes, ent_off[n]);
    for (int b = 0, x = 0; b < nb; b++) {
      int64_t len = mxn__conn_len(&pbs[b], sb[b].nodes_per_elem);
      if (len) memcpy(ent_nodes + ent_off[x], pbs[b].conn, (size_t)len * sizeof *ent_nodes);
      x += (int)pbs[b].num_elements;
    }
    MXN_ALLOC(ent_part, n);
    for (int64_t x = 0; x < n; x++) ent_part[x] = -1;
    for (int b = 0, e = 0; b < all->num_blocks; b++) {
      const mxn_piece_block_t *pb = &all->blocks[b];
      int w = t == 1 ? s->blocks[b].edges_per_elem : s->blocks[b].faces_per_elem;
      const int64_t *ec = t == 1 ? pb->edge_conn : pb->face_conn;
      const int64_t *eoff = t == 2 ? pb->face_off : NULL; /* polyhedra */
      if (!ec || (w == 0 && !eoff)) {
        e += (int)pb->num_elements;
        continue;
      }
      for (int64_t k = 0; k < pb->num_elements; k++, e++)
        for (int c = 0; c < (eoff ? eoff[k + 1] - eoff[k] : w); c++) {
          int64_t x = eoff ? ec[eoff[k] + c] : ec[k * w + c];
          if (ent_part[x] < 0) ent_part[x] = part[e];
          for (int64_t q = ent_off[x]; q < ent_off[x + 1]; q++)
            MXN_CHECK(np_push(&l, ent_nodes[q], part[e]));
        }
    }
    int64_t no = 0;
    MXN_ALLOC(oids, n);
    MXN_ALLOC(opart, n);
    for (int64_t x = 0; x < n; x++) {
      if (ent_part[x] >= 0) continue;
      int p = ent_off[x + 1] > ent_off[x] && node_part[ent_nodes[ent_off[x]]] >= 0
                  ? node_part[ent_nodes[ent_off[x]]]
                  : 0;
      oids[no] = ent_ids[x];
      opart[no++] = p;
      for (int64_t q = ent_off[x]; q < ent_off[x + 1]; q++) MXN_CHECK(np_push(&l, ent_nodes[q], p));
    }
    MXN_CHECK(orphans_build(oids, opart, no, nparts, &orph[t]));
    free(oids);
    free(opart);
    free(ent_off);
    free(ent_ids);
    free(ent_nodes);
    free(ent_part);
    oids = NULL;
    opart = NULL;
    ent_off = ent_nodes = NULL;
    ent_ids = NULL;
    ent_part = NULL;
  }
  /* Nodes nothing refers to. */
  {
    char *used = NULL;
    int64_t no = 0;
    MXN_ALLOC(used, all->num_nodes);
    for (int64_t i = 0; i < l.n; i++) used[l.a[i].node] = 1;
    MXN_ALLOC(oids, all->num_nodes);
    MXN_ALLOC(opart, all->num_nodes);
    for (int64_t v = 0; v < all->num_nodes; v++)
      if (!used[v]) {
        oids[no] = all->node_ids[v];
        opart[no++] = 0;
      }
    free(used);
    for (int64_t i = 0; i < no; i++) {
      int64_t v = mxn__lower_bound(all->node_ids, all->num_nodes, oids[i]);
      MXN_CHECK(np_push(&l, v, 0));
    }
    MXN_CHECK(orphans_build(oids, opart, no, nparts, &orph[0]));
  }
  qsort(l.a, (size_t)l.n, sizeof *l.a, cmp_node_part);
  MXN_ALLOC(*np_off, all->num_nodes + 1);
  MXN_ALLOC(*np_part, l.n);
  {
    int64_t m = 0;
    for (int64_t k = 0; k < l.n; k++) {
      if (k > 0 && l.a[k].node == l.a[k - 1].node && l.a[k].part == l.a[k - 1].part) continue;
      (*np_part)[m++] = l.a[k].part;
      (*np_off)[l.a[k].node + 1]++;
    }
    for (int64_t i = 0; i < all->num_nodes; i++) (*np_off)[i + 1] += (*np_off)[i];
  }
done:
  free(l.a);
  free(node_part);
  free(ent_part);
  free(opart);
  free(oids);
  free(ent_off);
  free(ent_nodes);
  free(ent_ids);
  return status;
}

/* Element centroids over the concatenated blocks of a piece. */
static int centroids(const mxn_structure_t *s, const mxn_piece_t *pc, double **out) {
  int status = MXN_OK;
  MXN_ALLOC(*out, pc->num_elements * 3);
  for (int b = 0, e = 0; b < pc->num_blocks; b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    int bnpe = s->blocks[b].nodes_per_elem;
    for (int64_t k = 0; k < pb->num_elements; k++, e++)
      for (int d = 0; d < s->num_dim; d++) {
        double sum = 0;
        int npe = mxn__conn_n(pb, bnpe, k);
        const int64_t *ec = pb->conn + mxn__conn_at(pb, bnpe, k);
        for (int c = 0; c < npe; c++) sum += pc->coord[d][ec[c]];
        (*out)[e * 3 + d] = npe > 0 ? sum / npe : 0.0;
      }
  }
done:
  return status;
}

int mxn_split(const char *in, const char *outbase, int nparts, mxn_part_method method,
              const mxn_form_opts_t *opts, mxn_form_report_t *rep, mxn_error_t *err) {
  if (!in || !outbase || nparts < 1)
    return mxn_error_set(err, MXN_ERR_ARG, "split: need input, output base and a part count >= 1");
  if (!opts) opts = &form_defaults;
  if (mxn_file_format_check(&opts->file, err) != MXN_OK) return MXN_ERR_ARG;
  mxn_form_report_t local;
  if (!rep) rep = &local;
  memset(rep, 0, sizeof *rep);
  mxn_dataset_t *ds = NULL;
  mxn_piece_t *all = NULL, *pc = NULL;
  double *cent = NULL;
  mxn_gid_t *ids = NULL, *want_ids = NULL;
  int *part = NULL, *np_part = NULL;
  int64_t *adj_off = NULL, *adj = NULL, *conn_off = NULL, *conn = NULL, *np_off = NULL;
  mxn_gid_t *adj_ids = NULL;
  orphans_t orph[3];
  memset(orph, 0, sizeof orph);
  int64_t *blk_g = NULL, *ns_g = NULL, *nsdf_g = NULL, *ss_g = NULL, *ssdf_g = NULL;
  int64_t *psize = NULL;
  mxn__nem_maps_t nb;
  memset(&nb, 0, sizeof nb);
  char *path = NULL;
  int parts_written = 0;
  /* The whole mesh once: geometry for the partitioner, global counts. */
  int status = read_whole(in, opts, &ds, &all, rep, err);
  if (status != MXN_OK) goto done;
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  mxn_extract_opts_t eo = form_extract_opts(opts);
  double t0;
  int64_t n = all->num_elements;
  MXN_CHECK(centroids(s, all, &cent));
  MXN_ALLOC(ids, n);
  MXN_ALLOC(conn_off, n + 1);
  for (int b = 0, e = 0; b < all->num_blocks; b++)
    for (int64_t k = 0; k < all->blocks[b].num_elements; k++, e++) {
      ids[e] = all->blocks[b].elem_ids[k];
      conn_off[e + 1] = conn_off[e] + mxn__conn_n(&all->blocks[b], s->blocks[b].nodes_per_elem, k);
    }
  MXN_ALLOC(conn, conn_off[n]);
  for (int b = 0, e = 0; b < all->num_blocks; b++) {
    int64_t len = mxn__conn_len(&all->blocks[b], s->blocks[b].nodes_per_elem);
    memcpy(conn + conn_off[e], all->blocks[b].conn, (size_t)len * sizeof *conn);
    e += (int)all->blocks[b].num_elements;
  }

  /* Partition. */
  t0 = now();
  MXN_ALLOC(part, n);
  mxn_part_input_t pin;
  memset(&pin, 0, sizeof pin);
  pin.n = n;
  pin.dim = s->num_dim;
  pin.ids = ids;
  pin.centroids = cent;
  if (method == MXN_PART_GRAPH) {
    MXN_CHECK(mxn_dual_graph(n, conn_off, conn, all->num_nodes, s->num_dim, &adj_off, &adj));
    MXN_ALLOC(adj_ids, adj_off[n]);
    for (int64_t k = 0; k < adj_off[n]; k++) adj_ids[k] = ids[adj[k]];
    pin.adj_off = adj_off;
    pin.adj_ids = adj_ids;
  }
  mxn_part_opts_t po;
  memset(&po, 0, sizeof po);
  po.imbalance_tol = opts->imbalance_tol;
  status = mxn_partition(MPI_COMM_SELF, method, &pin, nparts, &po, part, err);
  if (status != MXN_OK) goto done;
  rep->seconds_partition = now() - t0;

  /* Node -> parts, for border nodes and communication maps; orphans
   * (nodes, edges, faces no element refers to) given to parts. */
  MXN_CHECK(assign_parts(s, all, part, nparts, &np_off, &np_part, orph));

  /* Global counts for every member's Nemesis header. */
  MXN_ALLOC(blk_g, s->num_blocks);
  for (int b = 0; b < s->num_blocks; b++) blk_g[b] = all->blocks[b].num_elements;
  MXN_ALLOC(ns_g, s->num_node_sets);
  MXN_ALLOC(nsdf_g, s->num_node_sets);
  for (int q = 0; q < s->num_node_sets; q++) {
    ns_g[q] = all->node_sets[q].n;
    nsdf_g[q] = all->node_sets[q].df ? all->node_sets[q].n : 0;
  }
  MXN_ALLOC(ss_g, s->num_side_sets);
  MXN_ALLOC(ssdf_g, s->num_side_sets);
  for (int q = 0; q < s->num_side_sets; q++) {
    ss_g[q] = all->side_sets[q].n;
    ssdf_g[q] = all->side_sets[q].df ? all->side_sets[q].df_offsets[all->side_sets[q].n] : 0;
  }

  /* Each part: extract its elements through the cover, write it. */
  /* Bucket the elements by part once (ids stay ascending in each bucket). */
  MXN_ALLOC(psize, nparts + 1);
  for (int64_t e = 0; e < n; e++) psize[part[e] + 1]++;
  for (int p = 0; p < nparts; p++) psize[p + 1] += psize[p];
  MXN_ALLOC(want_ids, n);
  for (int64_t e = 0; e < n; e++) want_ids[psize[part[e]]++] = ids[e];
  for (int p = nparts; p > 0; p--) psize[p] = psize[p - 1];
  psize[0] = 0;
  size_t plen = strlen(outbase) + 32;
  MXN_ALLOC(path, plen);
  rep->min_part_elements = n;
  for (int p = 0; p < nparts; p++) {
    int64_t m = psize[p + 1] - psize[p];
    mxn_idset_t want = MXN_IDSET_INIT;
    MXN_CHECK(mxn_idset_from_array(want_ids + psize[p], m, &want));
    /* The orphans given to this part travel with its elements. */
    mxn_idset_t extra[3] = {MXN_IDSET_INIT, MXN_IDSET_INIT, MXN_IDSET_INIT};
    for (int t = 0; t < 3 && status == MXN_OK; t++)
      status = mxn_idset_from_array(orph[t].ids + orph[t].off[p],
                                    orph[t].off[p + 1] - orph[t].off[p], &extra[t]);
    mxn_extract_opts_t eop = eo;
    eop.extra_nodes = &extra[0];
    eop.extra_edges = &extra[1];
    eop.extra_faces = &extra[2];
    t0 = now();
    if (status == MXN_OK) status = mxn_extract(ds, &want, &eop, &pc);
    mxn_idset_free(&want);
    for (int t = 0; t < 3; t++) mxn_idset_free(&extra[t]);
    if (status != MXN_OK) {
      mxn_error_set(err, status, "%s", mxn_dataset_errmsg(ds));
      goto done;
    }
    rep->seconds_read += now() - t0;
    MXN_CHECK(nem_build(s, all, pc, p, np_off, np_part, nparts, &nb));
    mxn_nemesis_part_t nm;
    memset(&nm, 0, sizeof nm);
    nm.num_parts = nparts;
    nm.part = p;
    nm.num_nodes_global = all->num_nodes;
    nm.num_elems_global = all->num_elements;
    nm.blk_count_global = blk_g;
    nm.ns_count_global = ns_g;
    nm.ns_df_count_global = nsdf_g;
    nm.ss_count_global = ss_g;
    nm.ss_df_count_global = ssdf_g;
    mxn__nem_maps_lend(&nb, &nm);
    mxn_write_opts_t wo;
    memset(&wo, 0, sizeof wo);
    wo.int64 = opts->int64 || s->int64_ids;
    wo.word_size = s->float_word_size;
    wo.file = opts->file;
    wo.nemesis = &nm;
    mxn_member_name(outbase, nparts, p, path, plen);
    status = write_all(ds, pc, path, &wo, rep, err);
    mxn__nem_maps_free(&nb);
    mxn_piece_destroy(&pc);
    if (status != MXN_OK) goto done;
    parts_written++;
    if (m < rep->min_part_elements) rep->min_part_elements = m;
    if (m > rep->max_part_elements) rep->max_part_elements = m;
  }
  rep->files_in = s->num_files;
  rep->files_out = nparts;
  mxn_structure_warnings(s, rep->warnings, sizeof rep->warnings);
  rep->num_nodes = all->num_nodes;
  rep->num_elements = n;
  rep->num_steps = s->num_times;
  rep->read = mxn_dataset_counters(ds);
done:
  for (int t = 0; t < 3; t++) {
    free(orph[t].off);
    free(orph[t].ids);
  }
  /* A failed split leaves no partial set behind: remove the members this
   * call already moved into place. */
  if (status != MXN_OK && path)
    for (int p = 0; p < parts_written; p++) {
      mxn_member_name(outbase, nparts, p, path, strlen(outbase) + 32);
      remove(path);
    }
  mxn__nem_maps_free(&nb);
  mxn_piece_destroy(&pc);
  mxn_piece_destroy(&all);
  mxn_dataset_destroy(&ds);
  free(cent);
  free(ids);
  free(want_ids);
  free(part);
  free(np_part);
  free(np_off);
  free(adj_off);
  free(adj);
  free(adj_ids);
  free(conn_off);
  free(conn);
  free(blk_g);
  free(ns_g);
  free(nsdf_g);
  free(ss_g);
  free(ssdf_g);
  free(psize);
  free(path);
  return status;
}
