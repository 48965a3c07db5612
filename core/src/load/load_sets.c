/* Node sets shown whole (issue 58): a node that a node set lists but that
 * no rank's piece holds (a node of unselected blocks only, or of no element
 * at all) is read by exactly one rank, which appends it to its piece with
 * its coordinates, maps, nodal values and set entries.
 *
 * Who holds what is settled at a rendezvous by node id: every rank sends
 * there the node ids of its pieces' node-set entries ("held") and the
 * node-set entries its members listed but its piece lacks ("wanted", with
 * the member); the members that no rank read from have their node sets
 * listed by the rank that summarised them. A wanted node nobody holds goes
 * to the rank that listed it from the lowest member (lowest rank on a
 * tie). Which nodes these are depends on the block selection alone, not on
 * the partition: a re-balance appends the same nodes again
 * (mxn__load_set_nodes_append). Ownership: such a node is in one piece
 * only, so the halo makes its rank its owner. */
#include "load/load_ctx.h"

#include <stdlib.h>
#include <string.h>

/* The rendezvous rank of a node id. */
static int home_of(mxn_gid_t id, int N) {
  uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
  return (int)((h >> 33) % (uint64_t)N);
}

/* An item at the rendezvous: node id, member (-1: held), sending rank. */
typedef struct {
  mxn_gid_t id;
  int64_t file;
  int64_t rank;
} ask_t;

static int cmp_ask(const void *x, const void *y) {
  const ask_t *a = x, *b = y;
  if (a->id != b->id) return (a->id > b->id) - (a->id < b->id);
  if (a->file != b->file) return (a->file > b->file) - (a->file < b->file);
  return (a->rank > b->rank) - (a->rank < b->rank);
}

static int cmp_set_node(const void *x, const void *y) {
  const mxn__set_node_t *a = x, *b = y;
  if (a->id != b->id) return (a->id > b->id) - (a->id < b->id);
  return (a->file > b->file) - (a->file < b->file);
}

int mxn__load_set_nodes_append(mxn_load_t *ld, mxn_piece_t *pc, int step, int64_t gap,
                               const int *node_vars, const int *elem_vars, mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  int status = MXN_OK;
  mxn_piece_t *more = NULL;
  mxn_idset_t none = MXN_IDSET_INIT;
  if (ld->set_nodes.n == 0) return MXN_OK;
  mxn_extract_opts_t xo;
  memset(&xo, 0, sizeof xo);
  xo.gap = gap;
  xo.gap_share = MXN__GAP_SHARE;
  xo.file_mask = ld->set_nodes_mask;
  xo.extra_nodes = &ld->set_nodes;
  xo.node_var_mask = node_vars;
  xo.elem_var_mask = elem_vars;
  if ((status = mxn_extract(ld->ds, &none, &xo, &more)) != MXN_OK) {
    mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ld->ds));
    goto done;
  }
  if (step >= 0 && (status = mxn_piece_read_step(ld->ds, more, step)) != MXN_OK) {
    mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ld->ds));
    goto done;
  }
  /* (the plan of `more` holds no missed entries worth keeping) */
  if ((status = mxn__piece_append(s, pc, &more, gap, e)) != MXN_OK) goto done;
  /* nodes ascending by id again, as the halo expects them */
  status = mxn__piece_sort(pc, s);
done:
  if (status != MXN_OK && !e->msg[0])
    mxn_error_set(e, status, "rank %d: reading the node sets' own nodes failed", ld->rank);
  mxn_piece_destroy(&more);
  return status;
}

int mxn__load_set_nodes(mxn_load_t *ld, int fbeg, int fend, int64_t gap, const int *node_vars,
                        const int *elem_vars, mxn_error_t *e) {
  mxn_dataset_t *ds = ld->ds;
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  mxn_piece_t *pc = ld->piece;
  mxn__plan_t *plan = pc->plan;
  const int N = ld->size, M = s->num_files;
  int status = MXN_OK;
  mxn__set_node_t *want = NULL;
  int64_t nwant = 0, capw = 0;
  unsigned char *read = NULL;
  ask_t *out = NULL, *got = NULL, *rep = NULL, *mine = NULL;
  int *dest = NULL, *rdest = NULL;
  int64_t ngot = 0, nmine = 0;
  /* Without node sets there is nothing to settle (the same on every rank). */
  if (s->num_node_sets == 0) {
    MXN_FREE(plan->nset_miss);
    plan->nnset_miss = plan->nset_miss_cap = 0;
    return MXN_OK;
  }
  want = plan->nset_miss;
  nwant = plan->nnset_miss;
  capw = plan->nset_miss_cap;
  plan->nset_miss = NULL;
  plan->nnset_miss = plan->nset_miss_cap = 0;
  /* The members some rank read from. */
  read = mxn__calloc((size_t)M + 1, 1);
  if (!read) status = MXN_ERR_NOMEM;
  for (int i = 0; read && i < plan->nnode_seg; i++) read[plan->node_seg[i].file] = 1;
  for (int k = 0; read && k < MXN__NBK; k++)
    for (int i = 0; i < plan->nseg[k]; i++) read[plan->seg[k][i].file] = 1;
  if (status != MXN_OK) mxn_error_set(e, status, "rank %d: out of memory", ld->rank);
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  if ((status = mxn__comm_reduce_u8(ld->comm, MXN_OK, MXN__MAX, read, M)) != MXN_OK) {
    mxn_error_set(e, status, "combining the members read failed");
    goto done;
  }
  /* Node sets of the members no rank read, by the rank that summarised
   * them. */
  for (int j = fbeg; j < fend && status == MXN_OK; j++)
    if (!read[j] && (status = mxn__member_set_nodes(ds, j, &want, &nwant, &capw)) != MXN_OK)
      mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
  /* Wanted: one per node, the lowest member; held: my node-set nodes. */
  if (status == MXN_OK && nwant > 1) qsort(want, (size_t)nwant, sizeof *want, cmp_set_node);
  int64_t u = 0;
  for (int64_t i = 0; status == MXN_OK && i < nwant; i++)
    if (u == 0 || want[i].id != want[u - 1].id) want[u++] = want[i];
  nwant = u;
  int64_t nheld = 0;
  for (int q = 0; q < pc->num_node_sets; q++) nheld += pc->node_sets[q].n;
  if (status == MXN_OK) {
    out = mxn__malloc(((size_t)(nwant + nheld) + 1) * sizeof *out);
    dest = mxn__malloc(((size_t)(nwant + nheld) + 1) * sizeof *dest);
    if (!out || !dest) status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory", ld->rank);
  }
  int64_t nout = 0;
  for (int64_t i = 0; status == MXN_OK && i < nwant; i++)
    out[nout++] = (ask_t){want[i].id, want[i].file, ld->rank};
  for (int q = 0; status == MXN_OK && q < pc->num_node_sets; q++)
    for (int64_t i = 0; i < pc->node_sets[q].n; i++)
      out[nout++] = (ask_t){pc->node_ids[pc->node_sets[q].entries[i]], -1, ld->rank};
  if (status == MXN_OK && nout > 1) qsort(out, (size_t)nout, sizeof *out, cmp_ask);
  u = 0;
  for (int64_t i = 0; status == MXN_OK && i < nout; i++)
    if (u == 0 || out[i].id != out[u - 1].id || out[i].file != out[u - 1].file) out[u++] = out[i];
  nout = u;
  for (int64_t i = 0; status == MXN_OK && i < nout; i++) dest[i] = home_of(out[i].id, N);
  status = mxn__send_to_if(ld->comm, N, status, out, sizeof *out, nout, dest, (void **)&got, &ngot);
  if (status != MXN_OK) {
    if (!e->msg[0]) mxn_error_set(e, status, "rank %d: exchanging the node sets' nodes failed", ld->rank);
    goto done;
  }
  /* At the rendezvous: a node no rank holds goes to its lowest (member,
   * rank); held ones sort first (file -1). */
  if (ngot > 1) qsort(got, (size_t)ngot, sizeof *got, cmp_ask);
  int64_t nrep = 0;
  for (int64_t i = 0; i < ngot; i++)
    if ((i == 0 || got[i].id != got[i - 1].id) && got[i].file >= 0) nrep++;
  rep = mxn__malloc(((size_t)nrep + 1) * sizeof *rep);
  rdest = mxn__malloc(((size_t)nrep + 1) * sizeof *rdest);
  if (!rep || !rdest) status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory", ld->rank);
  nrep = 0;
  for (int64_t i = 0; status == MXN_OK && i < ngot; i++)
    if ((i == 0 || got[i].id != got[i - 1].id) && got[i].file >= 0) {
      rep[nrep] = got[i];
      rdest[nrep++] = (int)got[i].rank;
    }
  status = mxn__send_to_if(ld->comm, N, status, rep, sizeof *rep, nrep, rdest, (void **)&mine, &nmine);
  if (status != MXN_OK) {
    if (!e->msg[0]) mxn_error_set(e, status, "rank %d: exchanging the node sets' nodes failed", ld->rank);
    goto done;
  }
  /* My nodes to read: kept for re-balances, appended now. */
  if (nmine > 0) {
    ld->set_nodes_mask = mxn__calloc((size_t)M + 1, 1);
    ld->set_nodes.ids = mxn__malloc((size_t)nmine * sizeof *ld->set_nodes.ids);
    if (!ld->set_nodes_mask || !ld->set_nodes.ids) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nmine; i++) {
      ld->set_nodes.ids[i] = mine[i].id;
      ld->set_nodes_mask[mine[i].file] = 1;
    }
    if (status == MXN_OK) {
      ld->set_nodes.n = nmine;
      status = mxn__radix_sort(ld->set_nodes.ids, nmine, sizeof *ld->set_nodes.ids);
    }
    if (status == MXN_OK) status = mxn__load_set_nodes_append(ld, pc, -1, gap, node_vars, elem_vars, e);
    if (status != MXN_OK && !e->msg[0]) mxn_error_set(e, status, "rank %d: out of memory", ld->rank);
  }
  status = mxn_agree(ld->comm, status, e);
done:
  free(want);
  free(read);
  free(out);
  free(dest);
  free(got);
  free(rep);
  free(rdest);
  free(mine);
  return status;
}
