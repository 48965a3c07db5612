/* Owners of the edges and faces of a load's pieces (load.h,
 * mxn_load_entity_owners): an edge or face referred to by elements of
 * several ranks is in each of their pieces; exactly one rank owns it, the
 * owner of the referring element with the highest global id, as a node
 * belongs to the owner of its adjacent element with the highest id
 * (halo.c). Found through a rendezvous by id, so that it holds with or
 * without ghost layers. */
#include "comm.h"
#include "load/load_ctx.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A holder's registration of one edge (face) at the rendezvous rank. */
typedef struct {
  mxn_gid_t id;      /* sort key: the edge's (face's) global id */
  mxn_gid_t maxelem; /* highest id of my owned elements referring to it, INT64_MIN if none */
  int64_t loc;       /* the holder's piece index of it */
  int rank;          /* the holder */
  int pad;
} ereg_t;

/* The rendezvous' answer to one registration. */
typedef struct {
  int64_t loc;
  int owner;
  int pad;
} erep_t;

void mxn__entity_owners_free(mxn_load_entity_owners_t *o) {
  if (!o) return;
  free(o->edge_owner);
  free(o->face_owner);
  memset(o, 0, sizeof *o);
}

/* The highest id of my owned elements referring to each of the n edges
 * (faces: faces = 1) of pc, INT64_MIN for none. */
static void max_owned_referrer(const mxn_structure_t *s, const mxn_piece_t *pc,
                               const mxn_load_halo_t *h, int faces, int64_t n, mxn_gid_t *best) {
  for (int64_t i = 0; i < n; i++) best[i] = INT64_MIN;
  for (int b = 0; b < pc->num_blocks; b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    const int64_t *ref = faces ? pb->face_conn : pb->edge_conn;
    const int per = faces ? s->blocks[b].faces_per_elem : s->blocks[b].edges_per_elem;
    const int nfaced = faces && s->blocks[b].poly == MXN_POLY_NFACED && pb->face_off;
    if (!ref || (per <= 0 && !nfaced)) continue;
    /* owned elements: depth 0 of the halo, or all of them without one */
    const unsigned char *depth = h && h->elem_depth ? h->elem_depth[b] : NULL;
    for (int64_t k = 0; k < pb->num_elements; k++) {
      if (depth && depth[k] != 0) continue;
      const int64_t a = nfaced ? pb->face_off[k] : k * per;
      const int64_t z = nfaced ? pb->face_off[k + 1] : a + per;
      for (int64_t c = a; c < z; c++)
        if (ref[c] >= 0 && ref[c] < n && pb->elem_ids[k] > best[ref[c]]) best[ref[c]] = pb->elem_ids[k];
    }
  }
}

/* Owners of the edges (faces = 0) or faces of my piece into *owner.
 * Collective; errors agreed. */
static int settle(mxn_load_t *ld, int faces, int **owner, int64_t *owned, mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  const mxn_piece_t *pc = ld->piece;
  const int nkb = faces ? pc->num_face_blocks : pc->num_edge_blocks;
  const mxn_piece_block_t *kb = faces ? pc->face_blocks : pc->edge_blocks;
  const int64_t n = faces ? pc->num_faces : pc->num_edges;
  const int R = ld->rank, N = ld->size;
  int status = MXN_OK;
  mxn_gid_t *best = NULL;
  ereg_t *reg = NULL, *got = NULL;
  erep_t *rep = NULL, *back = NULL;
  int *dest = NULL, *rdest = NULL;
  int64_t ngot = 0, nback = 0;
  *owned = 0;
  MXN_ALLOC_RAW_OR(*owner, n, sync_reg);
  MXN_ALLOC_RAW_OR(best, n, sync_reg);
  MXN_ALLOC_RAW_OR(reg, n, sync_reg);
  MXN_ALLOC_RAW_OR(dest, n, sync_reg);
  max_owned_referrer(s, pc, ld->halo, faces, n, best);
  {
    int64_t i = 0;
    for (int kbi = 0; kbi < nkb; kbi++)
      for (int64_t k = 0; k < kb[kbi].num_elements; k++, i++) {
        const mxn_gid_t id = kb[kbi].elem_ids[k];
        reg[i] = (ereg_t){id, best[i], i, R, 0};
        dest[i] = (int)((uint64_t)id % (uint64_t)N);
      }
    if (i != n)
      status = mxn_error_set(e, MXN_ERR_INCONSISTENT, "rank %d: %lld %s in blocks, %lld in the piece", R,
                             (long long)i, faces ? "faces" : "edges", (long long)n);
  }
sync_reg:
  status = mxn__send_to_if(ld->comm, N, status, reg, sizeof *reg, status == MXN_OK ? n : 0, dest,
                           (void **)&got, &ngot);
  free(reg);
  reg = NULL;
  free(dest);
  dest = NULL;
  if (status != MXN_OK) goto done;
  /* By id; the registrations came in rank order and the sort is stable,
   * so among equal highest referrers (none: orphans) the lowest rank wins. */
  MXN_CHECK_OR(mxn__radix_sort(got, ngot, sizeof *got), sync_rep);
  MXN_ALLOC_RAW_OR(rep, ngot, sync_rep);
  MXN_ALLOC_RAW_OR(rdest, ngot, sync_rep);
  for (int64_t i = 0; i < ngot;) {
    int64_t j = i;
    int win = got[i].rank;
    mxn_gid_t top = got[i].maxelem;
    for (; j < ngot && got[j].id == got[i].id; j++)
      if (got[j].maxelem > top) {
        top = got[j].maxelem;
        win = got[j].rank;
      }
    for (int64_t k = i; k < j; k++) {
      rep[k] = (erep_t){got[k].loc, win, 0};
      rdest[k] = got[k].rank;
    }
    i = j;
  }
sync_rep:
  status = mxn__send_to_if(ld->comm, N, status, rep, sizeof *rep, status == MXN_OK ? ngot : 0, rdest,
                           (void **)&back, &nback);
  if (status != MXN_OK) goto done;
  if (nback != n)
    status = mxn_error_set(e, MXN_ERR_INCONSISTENT, "rank %d: %lld owner replies for %lld %s", R,
                           (long long)nback, (long long)n, faces ? "faces" : "edges");
  for (int64_t i = 0; status == MXN_OK && i < nback; i++) {
    if (back[i].loc < 0 || back[i].loc >= n) {
      status = mxn_error_set(e, MXN_ERR_INCONSISTENT, "rank %d: owner reply for no %s of its piece", R,
                             faces ? "face" : "edge");
      break;
    }
    (*owner)[back[i].loc] = back[i].owner;
  }
  for (int64_t i = 0; status == MXN_OK && i < n; i++) *owned += (*owner)[i] == R;
done:
  /* every rank comes here, whatever failed where */
  if (status != MXN_OK && !e->msg[0])
    mxn_error_set(e, status, "rank %d: settling the owners of the %s failed: %s", R,
                  faces ? "faces" : "edges", mxn_strerror(status));
  status = mxn_agree(ld->comm, status, e);
  free(best);
  free(reg);
  free(dest);
  free(got);
  free(rep);
  free(rdest);
  free(back);
  if (status != MXN_OK) {
    free(*owner);
    *owner = NULL;
    *owned = 0;
  }
  return status;
}

int mxn__load_entity_owners(mxn_load_t *ld, mxn_error_t *e) {
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  mxn__entity_owners_free(&ld->ef_owners);
  /* The same on every rank (the structure is), so either all take part or none. */
  if (s->num_edge_blocks <= 0 && s->num_face_blocks <= 0) return MXN_OK;
  mxn_load_entity_owners_t o;
  memset(&o, 0, sizeof o);
  int status = MXN_OK;
  if (s->num_edge_blocks > 0) status = settle(ld, 0, &o.edge_owner, &o.owned_edges, e);
  if (status == MXN_OK && s->num_face_blocks > 0) status = settle(ld, 1, &o.face_owner, &o.owned_faces, e);
  if (status != MXN_OK) {
    mxn__entity_owners_free(&o);
    return status;
  }
  ld->ef_owners = o;
  return MXN_OK;
}

const mxn_load_entity_owners_t *mxn_load_entity_owners(const mxn_load_t *ld) {
  return ld && (ld->ef_owners.edge_owner || ld->ef_owners.face_owner) ? &ld->ef_owners : NULL;
}
