/* REPART (repart.h): every rank writes its loaded piece as one member of a
 * new spread set, with the Nemesis metadata found through the distributed
 * directory, all or nothing. */
#include "comm.h"
#include "forms/nemmaps.h"
#include "forms/varview.h"

#include "alloc.h"

#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A border node of this rank and one other rank holding it. */
typedef struct {
  int part;
  int64_t node; /* local index */
} cpair_t;

static int cmp_cpair(const void *a, const void *b) {
  const cpair_t *x = a, *y = b;
  if (x->part != y->part) return (x->part > y->part) - (x->part < y->part);
  return (x->node > y->node) - (x->node < y->node);
}

/* This rank's Nemesis maps, and which of its nodes it counts globally. */
typedef struct {
  mxn__nem_maps_t m;
  /* Per local node: 1 when this rank is the lowest rank holding it, so
   * that each distinct node is counted by exactly one rank. */
  char *counts_node;
} nem_local_t;

static void nem_local_free(nem_local_t *n) {
  mxn__nem_maps_free(&n->m);
  MXN_FREE(n->counts_node);
}

/* Build the maps from the holders of each local node (holder[off[i] ..
 * off[i+1]), ascending ranks, this rank among them). Local. */
static int nem_local_build(const mxn_structure_t *s, const mxn_piece_t *pc, int rank,
                           const int64_t *off, const int32_t *holder, nem_local_t *nb,
                           mxn_error_t *err) {
  int status = MXN_OK;
  char *bor = NULL;
  cpair_t *pairs = NULL;
  int64_t npairs = 0;
  memset(nb, 0, sizeof *nb);
  mxn__nem_maps_t *m = &nb->m;
  int64_t nn = pc->num_nodes;
  MXN_ALLOC(bor, nn);
  MXN_ALLOC(nb->counts_node, nn);
  for (int64_t i = 0; i < nn; i++) {
    int found = 0;
    for (int64_t k = off[i]; k < off[i + 1]; k++) found |= holder[k] == rank;
    if (!found) {
      /* The directory returns what was published; losing an entry is a bug
       * that would silently break the communication maps. */
      status = mxn_error_set(err, MXN_ERR_INCONSISTENT,
                             "repart: rank %d: the directory lost node %lld", rank,
                             (long long)pc->node_ids[i]);
      goto done;
    }
    bor[i] = off[i + 1] - off[i] > 1;
    nb->counts_node[i] = holder[off[i]] == rank;
    if (bor[i]) npairs += off[i + 1] - off[i] - 1;
  }
  /* Interior and border nodes and elements (as nem_slice). */
  MXN_CHECK(mxn__nem_maps_split(s, pc, bor, m));
  /* One node communication map per neighbouring rank, in rank order; nodes
   * in ascending local index, which is ascending global id on both sides. */
  MXN_ALLOC(pairs, npairs);
  npairs = 0;
  for (int64_t i = 0; i < nn; i++)
    if (bor[i])
      for (int64_t k = off[i]; k < off[i + 1]; k++)
        if (holder[k] != rank) pairs[npairs++] = (cpair_t){holder[k], i};
  qsort(pairs, (size_t)npairs, sizeof *pairs, cmp_cpair);
  for (int64_t k = 0; k < npairs; k++) m->ncmaps += k == 0 || pairs[k].part != pairs[k - 1].part;
  MXN_ALLOC(m->cmap_parts, m->ncmaps);
  MXN_ALLOC(m->cmap_off, m->ncmaps + 1);
  MXN_ALLOC(m->cmap_nodes, npairs);
  for (int64_t k = 0, c = -1; k < npairs; k++) {
    if (k == 0 || pairs[k].part != pairs[k - 1].part) m->cmap_parts[++c] = pairs[k].part;
    m->cmap_off[c + 1] = k + 1;
    m->cmap_nodes[k] = pairs[k].node;
  }
done:
  if (status == MXN_ERR_NOMEM)
    mxn_error_set(err, status, "repart: rank %d: out of memory building the Nemesis maps", rank);
  free(bor);
  free(pairs);
  if (status != MXN_OK) nem_local_free(nb);
  return status;
}

/* Length of the global-count vector: distinct nodes, elements, then per
 * block, node set (entries, df) and side set (sides, df). */
static int64_t ncounts(const mxn_structure_t *s) {
  return 2 + (int64_t)s->num_blocks + 2 * (int64_t)s->num_node_sets + 2 * (int64_t)s->num_side_sets;
}

/* This rank's share of every global count. Elements and side set entries
 * are owned by one rank, so plain sums count them once; nodes and node set
 * entries are counted by the lowest rank holding the node. Local. */
/* This rank's share of the global counts; with a halo, only what it owns
 * (ghost copies are counted by their owners). */
static void local_counts(const mxn_structure_t *s, const mxn_piece_t *pc, const nem_local_t *nb,
                         const mxn_load_halo_t *h, int64_t *c) {
  int64_t nodes = 0;
  for (int64_t i = 0; i < pc->num_nodes; i++) nodes += nb->counts_node[i];
  c[0] = nodes;
  int64_t *blk = c + 2, *ns = blk + s->num_blocks, *nsdf = ns + s->num_node_sets;
  int64_t *ss = nsdf + s->num_node_sets, *ssdf = ss + s->num_side_sets;
  c[1] = 0;
  for (int b = 0; b < s->num_blocks; b++) {
    blk[b] = b < pc->num_blocks ? (h ? h->block_off[b][1] : pc->blocks[b].num_elements) : 0;
    c[1] += blk[b];
  }
  for (int q = 0; q < s->num_node_sets; q++) {
    ns[q] = nsdf[q] = 0;
    if (q >= pc->num_node_sets) continue;
    const mxn_piece_set_t *ps = &pc->node_sets[q];
    for (int64_t k = 0; k < ps->n; k++) ns[q] += nb->counts_node[ps->entries[k]];
    nsdf[q] = ps->df ? ns[q] : 0;
  }
  for (int q = 0; q < s->num_side_sets; q++) {
    ss[q] = ssdf[q] = 0;
    if (q >= pc->num_side_sets) continue;
    const mxn_piece_set_t *ps = &pc->side_sets[q];
    for (int64_t k = 0; k < ps->n; k++) {
      if (h) {
        /* the entry's element: owned iff within its block's owned range */
        int64_t e = ps->entries[k];
        int b = 0;
        while (b + 1 < pc->num_blocks && e >= pc->blocks[b].num_elements) e -= pc->blocks[b++].num_elements;
        if (e >= h->block_off[b][1]) continue;
      }
      ss[q]++;
      if (ps->df && ps->df_offsets) ssdf[q] += ps->df_offsets[k + 1] - ps->df_offsets[k];
    }
  }
}

int mxn_repart(MPI_Comm comm, const char *in, const char *outbase, const mxn_load_opts_t *opts,
               mxn_form_report_t *rep, mxn_error_t *err) {
  return mxn_repart_format(comm, in, outbase, opts, NULL, rep, err);
}

int mxn_repart_format(MPI_Comm comm, const char *in, const char *outbase,
                      const mxn_load_opts_t *opts, const mxn_file_format_t *file,
                      mxn_form_report_t *rep, mxn_error_t *err) {
  mxn_form_report_t local_rep;
  if (!rep) rep = &local_rep;
  memset(rep, 0, sizeof *rep);
  int rank = 0, size = 0;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return mxn_error_set(err, MXN_ERR_MPI, "repart: unusable communicator");
  int status = MXN_OK;
  if (!in || !outbase)
    status = mxn_error_set(err, MXN_ERR_ARG, "repart: input and output base needed");
  else
    status = mxn_file_format_check(file, err);
  /* Arguments are checked collectively so that a rank given bad ones does
   * not leave the others waiting in the load. */
  if ((status = mxn_agree(comm, status, err)) != MXN_OK) return status;

  mxn_load_opts_t lo;
  if (opts)
    lo = *opts;
  else
    mxn_load_opts_init(&lo);

  mxn_load_t *ld = NULL;
  mxn_directory_t *dir = NULL;
  int32_t *self = NULL, *holder = NULL;
  int64_t *lpos = NULL, *off = NULL, *hpos = NULL, *cnt = NULL, *glob = NULL;
  nem_local_t nb;
  mxn__var_view_t view;
  memset(&view, 0, sizeof view);
  int use_view = 0;
  double **gvals = NULL;
  int gvals_n = 0;
  memset(&nb, 0, sizeof nb);
  char *path = NULL;
  mxn_writer_t *w = NULL;
  int moved = 0;

  double t0 = now();
  status = mxn_load_open(comm, in, &lo, &ld, err);
  if (status != MXN_OK) goto done; /* agreed by the load */
  double t_load = now() - t0;
  const mxn_structure_t *s = mxn_load_structure(ld);
  const mxn_piece_t *pc = mxn_load_piece(ld);
  int64_t nn = pc->num_nodes;

  /* Who else holds my nodes: publish (node id, my rank, local index) and
   * ask for my own ids back. */
  self = mxn__malloc(((size_t)nn + 1) * sizeof *self);
  lpos = mxn__malloc(((size_t)nn + 1) * sizeof *lpos);
  if (!self || !lpos)
    status = mxn_error_set(err, MXN_ERR_NOMEM, "repart: rank %d: out of memory", rank);
  else
    for (int64_t i = 0; i < nn; i++) {
      self[i] = rank;
      lpos[i] = i;
    }
  if ((status = mxn_agree(comm, status, err)) != MXN_OK) goto done;
  status = mxn_directory_create(comm, nn, pc->node_ids, self, lpos, &dir, err);
  if (status != MXN_OK) goto done;
  status = mxn_directory_query(dir, nn, pc->node_ids, &off, &holder, &hpos, err);
  if (status != MXN_OK) goto done;
  mxn_directory_destroy(&dir);

  /* Nemesis maps, and this rank's share of the global counts. */
  int64_t nc = ncounts(s);
  status = nem_local_build(s, pc, rank, off, holder, &nb, err);
  if (status == MXN_OK) {
    cnt = mxn__calloc((size_t)nc, sizeof *cnt);
    glob = mxn__calloc((size_t)nc, sizeof *glob);
    if (!cnt || !glob)
      status = mxn_error_set(err, MXN_ERR_NOMEM, "repart: rank %d: out of memory", rank);
    else
      local_counts(s, pc, &nb, mxn_load_halo(ld), cnt);
  }
  if ((status = mxn_agree(comm, status, err)) != MXN_OK) goto done;
  memcpy(glob, cnt, (size_t)nc * sizeof *glob);
  if ((status = mxn__comm_reduce_i64(comm, MXN_OK, MXN__SUM, glob, nc)) != MXN_OK) {
    status = mxn_error_set(err, status, "repart: summing the global counts failed");
    goto done;
  }
  int64_t emin = mxn_load_stats(ld).owned_elements, emax = emin;
  if ((status = mxn__comm_reduce_i64(comm, MXN_OK, MXN__MIN, &emin, 1)) != MXN_OK ||
      (status = mxn__comm_reduce_i64(comm, MXN_OK, MXN__MAX, &emax, 1)) != MXN_OK) {
    status = mxn_error_set(err, status, "repart: reducing part sizes failed");
    goto done;
  }

  mxn_nemesis_part_t nm;
  memset(&nm, 0, sizeof nm);
  nm.num_parts = size;
  nm.part = rank;
  nm.num_nodes_global = glob[0];
  nm.num_elems_global = glob[1];
  nm.blk_count_global = glob + 2;
  nm.ns_count_global = glob + 2 + s->num_blocks;
  nm.ns_df_count_global = nm.ns_count_global + s->num_node_sets;
  nm.ss_count_global = nm.ns_df_count_global + s->num_node_sets;
  nm.ss_df_count_global = nm.ss_count_global + s->num_side_sets;
  mxn__nem_maps_lend(&nb.m, &nm);
  mxn_write_opts_t wo;
  memset(&wo, 0, sizeof wo);
  wo.int64 = s->int64_ids;
  wo.word_size = s->float_word_size;
  if (file) wo.file = *file;
  /* Ids stay the load's global ids; an original_global_id_map travels as a
   * numbered map, so a later join restores the original ids. */
  wo.nemesis = &nm;

  /* Write under a temporary name (the writer's), every step. */
  size_t plen = strlen(outbase) + 32;
  path = mxn__malloc(plen);
  if (!path)
    status = mxn_error_set(err, MXN_ERR_NOMEM, "repart: rank %d: out of memory", rank);
  else {
    mxn_member_name(outbase, size, rank, path, plen);
    t0 = now();
    const mxn_load_halo_t *h = mxn_load_halo(ld);
    if (h) {
      /* Ghost copies are marked by vtkGhostType = 1 (DUPLICATECELL). */
      gvals_n = pc->num_blocks;
      gvals = mxn__calloc((size_t)gvals_n + 1, sizeof *gvals);
      for (int b = 0; gvals && b < pc->num_blocks; b++) {
        gvals[b] = mxn__malloc(((size_t)pc->blocks[b].num_elements + 1) * sizeof **gvals);
        if (!gvals[b]) break;
        for (int64_t i = 0; i < pc->blocks[b].num_elements; i++)
          gvals[b][i] = h->elem_depth[b][i] > 0 ? MXN_GHOST_DUPLICATECELL : 0;
      }
      status = gvals && (pc->num_blocks == 0 || gvals[pc->num_blocks - 1])
                   ? mxn__var_view(s, pc, NULL, MXN_GHOST_VAR, gvals, &view)
                   : MXN_ERR_NOMEM;
      use_view = status == MXN_OK;
      if (status != MXN_OK) mxn_error_set(err, status, "repart: rank %d: out of memory", rank);
    }
    if (status == MXN_OK)
      status = mxn_writer_create(path, use_view ? &view.s : s, use_view ? &view.p : pc, &wo, &w, err);
    rep->seconds_write = now() - t0;
  }
  if ((status = mxn_agree(comm, status, err)) != MXN_OK) goto done;
  double t_steps = 0;
  for (int t = 0; t < s->num_times; t++) {
    t0 = now();
    status = mxn_load_read_step(ld, t, err);
    if (status != MXN_OK) goto done; /* agreed by the load */
    double t1 = now();
    t_steps += t1 - t0;
    if (use_view) mxn__var_view_sync(&view, pc);
    status = mxn_writer_put_step(w, use_view ? &view.p : pc, t, err);
    rep->seconds_write += now() - t1;
    /* Agree at every step: a rank whose disk is full stops everyone now,
     * not after the last step. */
    if ((status = mxn_agree(comm, status, err)) != MXN_OK) goto done;
  }
  mxn_io_counters_t wc = mxn_writer_counters(w);

  /* Every member is complete: move them into place, then agree once more;
   * if any rank could not, the others take theirs back. */
  t0 = now();
  status = mxn_writer_close(&w, 1, err);
  rep->seconds_write += now() - t0;
  moved = status == MXN_OK;
  if ((status = mxn_agree(comm, status, err)) != MXN_OK) goto done;

  /* The report, the same on every rank. */
  mxn_load_stats_t st = mxn_load_stats(ld);
  int64_t sums[5] = {st.bytes_read + st.partition_bytes_read, st.read_calls, st.files_opened,
                     wc.bytes_written, wc.write_calls};
  double secs[3] = {t_load - st.seconds_partition + t_steps, st.seconds_partition,
                    rep->seconds_write};
  if ((status = mxn__comm_reduce_i64(comm, MXN_OK, MXN__SUM, sums, 5)) != MXN_OK ||
      (status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__MAX, secs, 3)) != MXN_OK) {
    status = mxn_error_set(err, status, "repart: reducing the report failed");
    goto done;
  }
  rep->files_in = s->num_files;
  rep->files_out = size;
  mxn_structure_warnings(s, rep->warnings, sizeof rep->warnings);
  rep->num_nodes = glob[0];
  rep->num_elements = glob[1];
  rep->num_steps = s->num_times;
  rep->read.bytes_read = sums[0];
  rep->read.read_calls = sums[1];
  rep->read.files_opened = sums[2];
  rep->written.bytes_written = sums[3];
  rep->written.write_calls = sums[4];
  rep->seconds_read = secs[0];
  rep->seconds_partition = secs[1];
  rep->seconds_write = secs[2];
  rep->min_part_elements = emin;
  rep->max_part_elements = emax;
done:
  /* All or nothing: an unfinished member is discarded by its writer, a
   * member already moved into place is removed. */
  mxn_writer_close(&w, 0, NULL);
  if (status != MXN_OK && moved && path) remove(path);
  mxn_directory_destroy(&dir);
  mxn_load_close(&ld);
  nem_local_free(&nb);
  mxn__var_view_free(&view);
  for (int b = 0; gvals && b < gvals_n; b++) free(gvals[b]);
  free(gvals);
  free(self);
  free(lpos);
  free(off);
  free(holder);
  free(hpos);
  free(cnt);
  free(glob);
  free(path);
  return status;
}
