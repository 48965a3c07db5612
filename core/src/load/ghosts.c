/* The ghost layers of a load (load.h, "ghost_levels"): the halo that
 * halo.c finds, appended to the owned piece layer by layer, with the
 * depth and owner of every element and the owner of every node. */
#include "load/load_ctx.h"

#include <stdlib.h>
#include <string.h>

static void halo_free(mxn_load_halo_t *h, int nb) {
  if (!h) return;
  for (int b = 0; b < nb; b++) {
    if (h->block_off) free(h->block_off[b]);
    if (h->elem_depth) free(h->elem_depth[b]);
    if (h->elem_owner) free(h->elem_owner[b]);
  }
  free(h->block_off);
  free(h->elem_depth);
  free(h->elem_owner);
  free(h->owned_inner);
  free(h->node_owner);
  free(h);
}

typedef struct {
  mxn_gid_t gid;
  int owner;
} gid_owner_t;

static int cmp_gid_owner(const void *a, const void *b) {
  const gid_owner_t *x = a, *y = b;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

void mxn__load_halo_free(mxn_load_halo_t *h, int nb) { halo_free(h, nb); }

/* Whether ghost elements are built from their owners' records (no element
 * refers to edges or faces, none is a polygon or polyhedron); otherwise
 * they are read through the id maps, which queries the directory. */
int mxn__halo_from_owners(const mxn_structure_t *s) {
  for (int b = 0; b < s->num_blocks; b++)
    if (s->blocks[b].edges_per_elem > 0 || s->blocks[b].faces_per_elem > 0 || s->blocks[b].poly)
      return 0;
  return 1;
}

/* Depth and owner of every element of the piece pc (its blocks' layers
 * in h->block_off), owner of every node: owned nodes from the halo
 * search, the halo's nodes from the owners' records. Local; the caller
 * agrees. */
static int halo_owners(const mxn__halo_found_t *hf, mxn_load_halo_t *h, const mxn_piece_t *pc,
                       int nb, int L, int R, int64_t owned_nodes, mxn_error_t *e) {
  int status = MXN_OK;
  gid_owner_t *go = NULL;
  go = mxn__malloc(((size_t)hf->ng + 1) * sizeof *go);
  h->node_owner = mxn__malloc(((size_t)pc->num_nodes + 1) * sizeof *h->node_owner);
  if (!go || !h->node_owner) status = MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < hf->ng; i++) go[i] = (gid_owner_t){hf->gid[i], hf->owner[i]};
  if (status == MXN_OK) status = mxn__radix_sort(go, hf->ng, sizeof *go);
  for (int b = 0; status == MXN_OK && b < nb; b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    h->elem_depth[b] = mxn__malloc((size_t)pb->num_elements + 1);
    h->elem_owner[b] = mxn__malloc(((size_t)pb->num_elements + 1) * sizeof **h->elem_owner);
    if (!h->elem_depth[b] || !h->elem_owner[b]) {
      status = MXN_ERR_NOMEM;
      break;
    }
    for (int k = 0; k <= L; k++)
      for (int64_t i = h->block_off[b][k]; i < h->block_off[b][k + 1]; i++) {
        h->elem_depth[b][i] = (unsigned char)(k < 255 ? k : 255);
        if (k == 0) {
          h->elem_owner[b][i] = R;
        } else {
          gid_owner_t key = {pb->elem_ids[i], 0};
          gid_owner_t *f = bsearch(&key, go, (size_t)hf->ng, sizeof *go, cmp_gid_owner);
          h->elem_owner[b][i] = f ? f->owner : -1;
        }
      }
  }
  for (int64_t v = 0; status == MXN_OK && v < owned_nodes; v++) h->node_owner[v] = hf->node_owner[v];
  if (status != MXN_OK) mxn_error_set(e, status, "out of memory on rank %d", R);
  if (status == MXN_OK) {
    /* Nodes the halo added: their owners came with the records (each
     * element's owner knows the owners of its nodes). */
    int64_t nq = 0;
    for (int64_t i = 0; i < hf->ng; i++) nq += hf->rec[hf->rec_at[i] + 1];
    gid_owner_t *no = mxn__malloc(((size_t)nq + 1) * sizeof *no);
    if (!no) status = MXN_ERR_NOMEM;
    nq = 0;
    for (int64_t i = 0; status == MXN_OK && i < hf->ng; i++) {
      const int64_t *r = hf->rec + hf->rec_at[i];
      for (int64_t c = 0; c < r[1]; c++)
        no[nq++] = (gid_owner_t){r[MXN__REC_HEAD + c], (int)r[MXN__REC_HEAD + r[1] + c]};
    }
    if (status == MXN_OK) status = mxn__radix_sort(no, nq, sizeof *no);
    for (int64_t v = owned_nodes; status == MXN_OK && v < pc->num_nodes; v++) {
      gid_owner_t key = {pc->node_ids[v], 0};
      gid_owner_t *f = bsearch(&key, no, (size_t)nq, sizeof *no, cmp_gid_owner);
      if (!f) status = mxn_error_set(e, MXN_ERR_INCONSISTENT, "rank %d: halo node %lld has no owner",
                                     R, (long long)pc->node_ids[v]);
      else h->node_owner[v] = f->owner;
    }
    free(no);
  }
  free(go);
  return status;
}

/* The halo of the owned piece (seed lfric-distributed-memory-halos.txt):
 * layers found through the node rendezvous, each built from its owners'
 * records (or read through its own cover) and appended to the piece, so
 * each block holds owned elements, then depth 1, 2, ..., L. */
int mxn__load_halo(mxn_load_t *ld, const mxn_load_opts_t *opts, mxn_directory_t *dir, int step,
                   mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  int status = MXN_OK, L = opts->ghost_levels, N = ld->size, R = ld->rank, M = s->num_files;
  int nb = s->num_blocks;
  mxn__halo_found_t hf;
  memset(&hf, 0, sizeof hf);
  mxn_load_halo_t *h = NULL;
  int64_t *perm = NULL, *qoff = NULL, *qpos = NULL;
  int32_t *qfile = NULL;
  char *mask = NULL, *used = NULL;
  mxn_idset_t G = MXN_IDSET_INIT;
  mxn_piece_t *more = NULL;
  mxn_piece_t *pc = ld->piece;
  int64_t owned_nodes = pc->num_nodes;
  mxn__halo_xchg_free(&ld->hx);

  /* Local work until the next collective step: one agreement covers it. */
  status = mxn__halo_find(ld->comm, s, pc, L, ld->set_bare, &hf, e);
  h = status == MXN_OK ? mxn__calloc(1, sizeof *h) : NULL;
  if (h) {
    h->levels = L;
    h->block_off = mxn__calloc((size_t)nb + 1, sizeof *h->block_off);
    h->elem_depth = mxn__calloc((size_t)nb + 1, sizeof *h->elem_depth);
    h->elem_owner = mxn__calloc((size_t)nb + 1, sizeof *h->elem_owner);
    h->owned_inner = mxn__calloc((size_t)nb + 1, sizeof *h->owned_inner);
  }
  if (status == MXN_OK && (!h || !h->block_off || !h->elem_depth || !h->elem_owner || !h->owned_inner))
    status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
  for (int b = 0; status == MXN_OK && b < nb; b++) {
    h->block_off[b] = mxn__calloc((size_t)L + 2, sizeof **h->block_off);
    if (!h->block_off[b]) status = MXN_ERR_NOMEM;
  }
  /* Inner cells first where asked: owned elements touching no shared node. */
  double t_order = mxn__now();
  for (int b = 0; status == MXN_OK && b < nb; b++) {
    mxn_piece_block_t *pb = &pc->blocks[b];
    int bnpe = s->blocks[b].nodes_per_elem;
    h->owned_inner[b] = -1;
    if (!opts->inner_first) continue;
    free(perm);
    perm = mxn__malloc(((size_t)pb->num_elements + 1) * sizeof *perm);
    if (!perm) {
      status = MXN_ERR_NOMEM;
      break;
    }
    int64_t q = 0;
    for (int pass = 0; pass < 2; pass++)
      for (int64_t k = 0; k < pb->num_elements; k++) {
        int edge = 0, npe = mxn__conn_n(pb, bnpe, k);
        const int64_t *ec = pb->conn + mxn__conn_at(pb, bnpe, k);
        for (int c = 0; c < npe && !edge; c++) edge = hf.node_shared[ec[c]];
        if (edge == pass) perm[q++] = k;
      }
    h->owned_inner[b] = 0;
    for (int64_t k = 0; k < pb->num_elements; k++) {
      int edge = 0, npe = mxn__conn_n(pb, bnpe, k);
      const int64_t *ec = pb->conn + mxn__conn_at(pb, bnpe, k);
      for (int c = 0; c < npe && !edge; c++) edge = hf.node_shared[ec[c]];
      h->owned_inner[b] += !edge;
    }
    status = mxn__piece_permute_elems(pc, s, b, perm);
  }
  if (status != MXN_OK && !e->msg[0])
    mxn_error_set(e, status, "ordering the owned cells failed on rank %d: %s", R,
                  mxn_strerror(status));
  for (int b = 0; status == MXN_OK && b < nb; b++) h->block_off[b][1] = pc->blocks[b].num_elements;
  ld->st.seconds_order = mxn__now() - t_order;

  /* Each layer appended after the last. */
  mxn_io_counters_t c0 = mxn_dataset_counters(ld->ds);
  mask = mxn__calloc((size_t)M + 1, 1);
  used = mxn__calloc((size_t)M + 1, 1);
  if (status == MXN_OK && (!mask || !used))
    status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
  /* Elements referring to edges or faces (or polygons, polyhedra) are read
   * through the id maps; all others come from their owners' records. */
  int from_owners = mxn__halo_from_owners(s);
  /* Building from records is local: the agreement after the first layer
   * covers what failed so far. The id maps' path queries the directory
   * first, so it agrees now. */
  if (!from_owners && (status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  const int64_t **recs = NULL;
  for (int k = 1, at = 0; k <= L; k++) {
    int64_t n = 0;
    while (at + n < hf.ng && hf.depth[at + n] == k) n++;
    mxn_extract_opts_t xo;
    memset(&xo, 0, sizeof xo);
    /* A layer is thin and strided in its members: coalesce less. */
    xo.gap = opts->gap >= 0 && opts->gap < 8 ? opts->gap : 8;
    xo.node_var_mask = opts->node_var_selection;
    xo.elem_var_mask = opts->elem_var_selection;
    if (from_owners) {
      /* Built from the owners' records: nothing is read. */
      free(recs);
      recs = mxn__malloc(((size_t)n + 1) * sizeof *recs);
      if (!recs) status = MXN_ERR_NOMEM;
      for (int64_t i = 0; status == MXN_OK && i < n; i++) recs[i] = hf.rec + hf.rec_at[at + i];
      if (status == MXN_OK && n > 0 &&
          (status = mxn__piece_from_records(ld->ds, n, recs, &xo, &more)) != MXN_OK)
        mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ld->ds));
    } else {
      mxn_idset_free(&G);
      status = mxn_idset_from_array(hf.gid + at, n, &G);
      free(qoff);
      free(qfile);
      free(qpos);
      qoff = NULL;
      qfile = NULL;
      qpos = NULL;
      if (status == MXN_OK) status = mxn_directory_query(dir, G.n, G.ids, &qoff, &qfile, &qpos, e);
      if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
      memset(mask, 0, (size_t)M);
      for (int64_t i = 0; i < (G.n ? qoff[G.n] : 0); i++) mask[qfile[i]] = 1;
      xo.file_mask = mask;
      if (G.n > 0 && (status = mxn_extract(ld->ds, &G, &xo, &more)) != MXN_OK)
        mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ld->ds));
      for (int j = 0; status == MXN_OK && j < M; j++) used[j] |= mask[j];
    }
    at += (int)n;
    if (status == MXN_OK && more) status = mxn__piece_append(s, pc, &more, xo.gap, e);
    if (status != MXN_OK && !e->msg[0])
      mxn_error_set(e, status, "reading ghost layer %d failed on rank %d: %s", k, R,
                    mxn_strerror(status));
    if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) {
      free(recs);
      goto done;
    }
    for (int b = 0; b < nb; b++) h->block_off[b][k + 1] = pc->blocks[b].num_elements;
  }
  free(recs);
  ld->st.ghost_bytes_read = mxn__data_bytes(mxn_dataset_counters(ld->ds)) - mxn__data_bytes(c0);
  for (int j = 0; j < M; j++) ld->st.ghost_files += used[j];

  status = halo_owners(&hf, h, pc, nb, L, R, owned_nodes, e);
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  for (int64_t v = 0; v < pc->num_nodes; v++) {
    if (h->node_owner[v] == R) h->owned_nodes++;
    else ld->st.ghost_nodes++;
  }
  ld->st.ghost_elements = hf.ng;
  ld->halo = h;
  h = NULL;
  if (from_owners) {
    /* Their fields come from their owners, every step. */
    int64_t *own = mxn__malloc(((size_t)nb + 1) * sizeof *own);
    status = own ? MXN_OK : mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
    for (int b = 0; own && b < nb; b++) own[b] = ld->halo->block_off[b][1];
    if ((status = mxn_agree(ld->comm, status, e)) == MXN_OK)
      status = mxn__halo_xchg_build(ld->comm, s, pc, owned_nodes, own, ld->halo->elem_owner, &ld->hx, e);
    free(own);
    if (status == MXN_OK && step >= 0) status = mxn__halo_xchg_run(ld->comm, ld->hx, pc, e);
  } else if (step >= 0) {
    /* The layers came without fields. */
    status = mxn_piece_read_step(ld->ds, pc, step);
    if (status != MXN_OK) mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ld->ds));
    status = mxn_agree(ld->comm, status, e);
  }
  (void)N;
done:
  halo_free(h, nb);
  mxn__halo_free(&hf);
  mxn_idset_free(&G);
  mxn_piece_destroy(&more);
  free(perm);
  free(qoff);
  free(qfile);
  free(qpos);
  free(mask);
  free(used);
  return status;
}
