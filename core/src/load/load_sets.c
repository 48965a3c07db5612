/* Node, edge and face sets shown whole (issue 58): a node, edge or face
 * that such a set lists but that no rank's piece holds (of unselected
 * blocks only, or of no element at all) is read by exactly one rank, which
 * appends it to its piece with its nodes, coordinates, maps, values and
 * set entries.
 *
 * Who holds what is settled at a rendezvous by (kind, id): every rank
 * sends there the ids of its pieces' node-, edge- and face-set entries
 * ("held") and the entries its members listed but its piece lacks
 * ("wanted", with the member); the members that no rank read from have
 * their sets listed by the rank that summarised them. A wanted entity
 * nobody holds goes to the rank that listed it from the lowest member
 * (lowest rank on a tie). Which these are depends on the block selection
 * alone, not on the partition: a re-balance appends the same ones again
 * (mxn__load_set_nodes_append). Ownership: such a node, edge or face is in
 * one piece only, so the halo (nodes) and the entity owners (edges and
 * faces) make its rank its owner; an appended edge's or face's nodes that
 * other pieces hold go to a rank with an element around them
 * (mxn__halo_find with every node registered, ld->set_bare). */
#include "load/load_ctx.h"

#include <stdlib.h>
#include <string.h>

/* The rendezvous rank of an entity id of a kind. */
static int home_of(mxn_gid_t id, int kind, int N) {
  uint64_t h = ((uint64_t)id + (uint64_t)kind * 0x632BE59BD9B4E019ull) * 0x9E3779B97F4A7C15ull;
  return (int)((h >> 33) % (uint64_t)N);
}

/* An item at the rendezvous: entity kind and id, member (-1: held),
 * sending rank. */
typedef struct {
  mxn_gid_t id;
  int32_t kind, file;
  int64_t rank;
} ask_t;

static int cmp_ask(const void *x, const void *y) {
  const ask_t *a = x, *b = y;
  if (a->kind != b->kind) return (a->kind > b->kind) - (a->kind < b->kind);
  if (a->id != b->id) return (a->id > b->id) - (a->id < b->id);
  if (a->file != b->file) return (a->file > b->file) - (a->file < b->file);
  return (a->rank > b->rank) - (a->rank < b->rank);
}

static int cmp_set_ent(const void *x, const void *y) {
  const mxn__set_ent_t *a = x, *b = y;
  if (a->kind != b->kind) return (a->kind > b->kind) - (a->kind < b->kind);
  if (a->id != b->id) return (a->id > b->id) - (a->id < b->id);
  return (a->file > b->file) - (a->file < b->file);
}

static int same_ent(const ask_t *a, const ask_t *b) { return a->id == b->id && a->kind == b->kind; }

/* The held entities of pc's sets of kind sk (entity kind e) appended to
 * out[*n..]: their global ids. */
static void held_ids(const mxn_piece_t *pc, int sk, int e, int R, ask_t *out, int64_t *n) {
  int nsets, nb = 0;
  const mxn_piece_set_t *ps = mxn__psets(pc, sk, &nsets);
  const mxn_piece_block_t *pb = e == MXN__NODE ? NULL : mxn__pblocks(pc, e, &nb);
  for (int q = 0; q < nsets; q++)
    for (int64_t i = 0; i < ps[q].n; i++) {
      int64_t k = ps[q].entries[i];
      mxn_gid_t id;
      if (e == MXN__NODE) {
        id = pc->node_ids[k];
      } else {
        int b = 0;
        while (b + 1 < nb && k >= pb[b].num_elements) k -= pb[b++].num_elements;
        id = pb[b].elem_ids[k];
      }
      out[(*n)++] = (ask_t){id, e, -1, R};
    }
}

int mxn__load_set_nodes_append(mxn_load_t *ld, mxn_piece_t *pc, int step, int64_t gap,
                               const int *node_vars, const int *elem_vars, mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  int status = MXN_OK;
  mxn_piece_t *more = NULL;
  mxn_idset_t none = MXN_IDSET_INIT;
  if (ld->set_ents[0].n == 0 && ld->set_ents[1].n == 0 && ld->set_ents[2].n == 0) return MXN_OK;
  mxn_extract_opts_t xo;
  memset(&xo, 0, sizeof xo);
  xo.gap = gap;
  xo.gap_share = MXN__GAP_SHARE;
  xo.file_mask = ld->set_ents_mask;
  xo.extra_nodes = &ld->set_ents[0];
  xo.extra_edges = &ld->set_ents[1];
  xo.extra_faces = &ld->set_ents[2];
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
  /* nodes ascending by id again, as the halo expects them (appended
   * edges and faces follow each block's: nothing orders them) */
  status = mxn__piece_sort(pc, s);
done:
  if (status != MXN_OK && !e->msg[0])
    mxn_error_set(e, status, "rank %d: reading the sets' own nodes, edges and faces failed", ld->rank);
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
  mxn__set_ent_t *want = NULL;
  int64_t nwant = 0, capw = 0;
  unsigned char *read = NULL;
  ask_t *out = NULL, *got = NULL, *rep = NULL, *mine = NULL;
  int *dest = NULL, *rdest = NULL;
  int64_t ngot = 0, nmine = 0;
  /* Without node, edge or face sets there is nothing to settle (the same
   * on every rank). */
  if (s->num_node_sets == 0 && s->num_edge_sets == 0 && s->num_face_sets == 0) {
    MXN_FREE(plan->set_miss);
    plan->nset_miss = plan->set_miss_cap = 0;
    return MXN_OK;
  }
  want = plan->set_miss;
  nwant = plan->nset_miss;
  capw = plan->set_miss_cap;
  plan->set_miss = NULL;
  plan->nset_miss = plan->set_miss_cap = 0;
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
  /* Sets of the members no rank read, by the rank that summarised them. */
  for (int j = fbeg; j < fend && status == MXN_OK; j++)
    if (!read[j] && (status = mxn__member_set_ents(ds, j, &want, &nwant, &capw)) != MXN_OK)
      mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
  /* Wanted: one per entity, the lowest member; held: my sets' entities. */
  if (status == MXN_OK && nwant > 1) qsort(want, (size_t)nwant, sizeof *want, cmp_set_ent);
  int64_t u = 0;
  for (int64_t i = 0; status == MXN_OK && i < nwant; i++)
    if (u == 0 || want[i].id != want[u - 1].id || want[i].kind != want[u - 1].kind) want[u++] = want[i];
  nwant = u;
  int64_t nheld = 0;
  for (int q = 0; q < pc->num_node_sets; q++) nheld += pc->node_sets[q].n;
  for (int q = 0; q < pc->num_edge_sets; q++) nheld += pc->edge_sets[q].n;
  for (int q = 0; q < pc->num_face_sets; q++) nheld += pc->face_sets[q].n;
  if (status == MXN_OK) {
    out = mxn__malloc(((size_t)(nwant + nheld) + 1) * sizeof *out);
    dest = mxn__malloc(((size_t)(nwant + nheld) + 1) * sizeof *dest);
    if (!out || !dest) status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory", ld->rank);
  }
  int64_t nout = 0;
  for (int64_t i = 0; status == MXN_OK && i < nwant; i++)
    out[nout++] = (ask_t){want[i].id, want[i].kind, want[i].file, ld->rank};
  if (status == MXN_OK) {
    held_ids(pc, MXN__NSET, MXN__NODE, ld->rank, out, &nout);
    held_ids(pc, MXN__ESET, MXN__EDGE, ld->rank, out, &nout);
    held_ids(pc, MXN__FSET, MXN__FACE, ld->rank, out, &nout);
  }
  if (status == MXN_OK && nout > 1) qsort(out, (size_t)nout, sizeof *out, cmp_ask);
  u = 0;
  for (int64_t i = 0; status == MXN_OK && i < nout; i++)
    if (u == 0 || !same_ent(&out[i], &out[u - 1]) || out[i].file != out[u - 1].file) out[u++] = out[i];
  nout = u;
  for (int64_t i = 0; status == MXN_OK && i < nout; i++) dest[i] = home_of(out[i].id, out[i].kind, N);
  status = mxn__send_to_if(ld->comm, N, status, out, sizeof *out, nout, dest, (void **)&got, &ngot);
  if (status != MXN_OK) {
    if (!e->msg[0]) mxn_error_set(e, status, "rank %d: exchanging the sets' entities failed", ld->rank);
    goto done;
  }
  /* At the rendezvous: an entity no rank holds goes to its lowest (member,
   * rank); held ones sort first (file -1). */
  if (ngot > 1) qsort(got, (size_t)ngot, sizeof *got, cmp_ask);
  int64_t nrep = 0;
  for (int64_t i = 0; i < ngot; i++)
    if ((i == 0 || !same_ent(&got[i], &got[i - 1])) && got[i].file >= 0) nrep++;
  rep = mxn__malloc(((size_t)nrep + 1) * sizeof *rep);
  rdest = mxn__malloc(((size_t)nrep + 1) * sizeof *rdest);
  if (!rep || !rdest) status = mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory", ld->rank);
  nrep = 0;
  for (int64_t i = 0; status == MXN_OK && i < ngot; i++)
    if ((i == 0 || !same_ent(&got[i], &got[i - 1])) && got[i].file >= 0) {
      rep[nrep] = got[i];
      rdest[nrep++] = (int)got[i].rank;
    }
  status = mxn__send_to_if(ld->comm, N, status, rep, sizeof *rep, nrep, rdest, (void **)&mine, &nmine);
  if (status != MXN_OK) {
    if (!e->msg[0]) mxn_error_set(e, status, "rank %d: exchanging the sets' entities failed", ld->rank);
    goto done;
  }
  /* My entities to read: kept for re-balances, appended now. */
  int64_t bare = 0; /* edges and faces I read: their nodes others may hold */
  if (nmine > 0) {
    int64_t cnt[3] = {0, 0, 0};
    ld->set_ents_mask = mxn__calloc((size_t)M + 1, 1);
    if (!ld->set_ents_mask) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nmine; i++)
      cnt[mine[i].kind == MXN__NODE ? 0 : mine[i].kind == MXN__EDGE ? 1 : 2]++;
    for (int t = 0; status == MXN_OK && t < 3; t++)
      if (cnt[t] > 0 && !(ld->set_ents[t].ids = mxn__malloc((size_t)cnt[t] * sizeof *ld->set_ents[t].ids)))
        status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < nmine; i++) {
      mxn_idset_t *to = &ld->set_ents[mine[i].kind == MXN__NODE ? 0 : mine[i].kind == MXN__EDGE ? 1 : 2];
      to->ids[to->n++] = mine[i].id;
      ld->set_ents_mask[mine[i].file] = 1;
    }
    for (int t = 0; status == MXN_OK && t < 3; t++)
      if (ld->set_ents[t].n > 1)
        status = mxn__radix_sort(ld->set_ents[t].ids, ld->set_ents[t].n, sizeof *ld->set_ents[t].ids);
    bare = cnt[1] + cnt[2];
    if (status == MXN_OK) status = mxn__load_set_nodes_append(ld, pc, -1, gap, node_vars, elem_vars, e);
    if (status != MXN_OK && !e->msg[0]) mxn_error_set(e, status, "rank %d: out of memory", ld->rank);
  }
  /* Whether any rank appended an edge or face: the same on every rank. */
  status = mxn__comm_reduce_i64(ld->comm, status, MXN__MAX, &bare, 1);
  if (status == MXN_OK) ld->set_bare = bare > 0;
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
