/* Finding the halo of each rank's piece in parallel (load.h, "ghost
 * layers"): a node rendezvous (each node's record lives on the rank its id
 * hashes to) knows which ranks' elements touch the node and which rank
 * owns it. Only the nodes other ranks may hold are registered
 * (scan_piece): those of a piece's boundary sides, or every node when the
 * mesh has cells that can meet without sharing a side. The elements of a
 * layer are asked from the ranks holding the frontier nodes. No rank ever holds the global adjacency. Each halo element
 * comes from its owner as a record with its connectivity by global node id,
 * coordinates, attributes and maps (plan.h), so the files are not read
 * for it; its fields follow every step by the exchange
 * (mxn__halo_xchg_run, halo_xchg.c). */
#include "load/halo.h"

#include "comm.h"
#include "read/plan.h"

#include <stdint.h>

/* A node registered by a rank: the highest element id it has around it, and the
 * node's index in that rank's piece. */
typedef struct {
  mxn_gid_t node, maxelem;
  int32_t rank, loc;
} nreg_t;

/* What the rendezvous tells a rank about a node: its owner, one other rank
 * holding it (-1: no other) and, when the node was registered by the
 * receiver, its index in the receiver's piece (else -1). */
typedef struct {
  mxn_gid_t node;
  int32_t owner, other, loc, pad;
} nrep_t;

/* A node asked of the rendezvous or of a holder, by `rank`. */
typedef struct {
  mxn_gid_t node;
  int32_t rank, pad;
} nask_t;

/* An element received from its owner, at offset `at` of the stream. */
typedef struct {
  mxn_gid_t gid;
  int64_t at;
  int32_t owner, pad;
} cand_t;


/* A (requester, element) pair a holder answers, as one key: requester in
 * the high 32 bits, the element's concatenated index in the holder's piece
 * (< 2^31, see register_boundary_nodes) in the low ones, so one radix sort
 * orders by requester, then element. */
typedef int64_t ans_t;
#define ANS_KEY(to, elem) ((int64_t)(to) << 32 | (int64_t)(elem))
#define ANS_TO(a) ((int)((a) >> 32))
#define ANS_ELEM(a) ((a) & 0xffffffff)
static int home_of(mxn_gid_t id, int size) {
  uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
  return (int)((h >> 29) % (uint64_t)size);
}

void mxn__halo_free(mxn__halo_found_t *h) {
  if (!h) return;
  free(h->gid);
  free(h->depth);
  free(h->owner);
  free(h->node_owner);
  free(h->node_shared);
  free(h->rv_ids);
  free(h->rv_off);
  free(h->rv_rank);
  free(h->rv_owner);
  free(h->rec);
  free(h->rec_at);
  memset(h, 0, sizeof *h);
}

/* Ask the rendezvous about `n` nodes (sorted, unique): for each, its owner
 * and the ranks other than mine holding it. Replies come back as nrep_t.
 * `status`: the caller's so far (see mxn__comm_exchange); two exchanges, each
 * agreed. */
static int ask_rendezvous(MPI_Comm comm, int size, int rank, int status, const mxn__halo_found_t *h,
                          int64_t n, const mxn_gid_t *nodes, nrep_t **rep, int64_t *nrep) {
  nask_t *q = NULL, *got = NULL;
  nrep_t *out = NULL;
  int *dest = NULL, *odest = NULL;
  int64_t ngot = 0, nout = 0;
  if (status == MXN_OK) {
    q = mxn__malloc(((size_t)n + 1) * sizeof *q);
    dest = mxn__malloc(((size_t)n + 1) * sizeof *dest);
    if (!q || !dest) status = MXN_ERR_NOMEM;
  }
  for (int64_t i = 0; status == MXN_OK && i < n; i++) {
    q[i] = (nask_t){nodes[i], rank, 0};
    dest[i] = home_of(nodes[i], size);
  }
  status = mxn__send_to_if(comm, size, status, q, sizeof *q, n, dest, (void **)&got, &ngot);
  if (status != MXN_OK) goto done; /* on every rank alike */
  for (int64_t i = 0; i < ngot; i++) {
    int64_t k = mxn__lower_bound(h->rv_ids, h->rv_n, got[i].node);
    if (k < h->rv_n && h->rv_ids[k] == got[i].node) nout += h->rv_off[k + 1] - h->rv_off[k];
    nout++;
  }
  out = mxn__malloc(((size_t)nout + 1) * sizeof *out);
  odest = mxn__malloc(((size_t)nout + 1) * sizeof *odest);
  if (!out || !odest) status = MXN_ERR_NOMEM;
  nout = 0;
  for (int64_t i = 0; status == MXN_OK && i < ngot; i++) {
    int64_t k = mxn__lower_bound(h->rv_ids, h->rv_n, got[i].node);
    int found = k < h->rv_n && h->rv_ids[k] == got[i].node, any = 0;
    int owner = found ? h->rv_owner[k] : -1;
    if (found)
      for (int64_t r = h->rv_off[k]; r < h->rv_off[k + 1]; r++)
        if (h->rv_rank[r] != got[i].rank) {
          out[nout] = (nrep_t){got[i].node, owner, h->rv_rank[r], -1, 0};
          odest[nout++] = got[i].rank;
          any = 1;
        }
    if (!any) {
      out[nout] = (nrep_t){got[i].node, owner, -1, -1, 0};
      odest[nout++] = got[i].rank;
    }
  }
  status = mxn__send_to_if(comm, size, status, out, sizeof *out, nout, odest, (void **)rep, nrep);
done:
  free(q);
  free(got);
  free(out);
  free(dest);
  free(odest);
  return status;
}

/* The block of concatenated element index e (bstart: the blocks' first
 * indices, nb + 1 of them). */
static int block_of(const int64_t *bstart, int nb, int64_t e) {
  int lo = 0, hi = nb - 1; /* the last block starting at or before e */
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (bstart[mid] <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Node -> owned elements (concatenated index) for the nodes with
 * slot[v] >= 0 only (the nodes other ranks asked about: few, on the piece's
 * boundary for layer 1), CSR over slots: one pass over the cells listed in
 * `only` (all cells if NULL) collects (slot, element) pairs, a counting sort groups them, in place of
 * a node -> element map of the whole piece. An element repeating a node is
 * listed once per repeat: the answers are de-duplicated anyway. */
static int asked_elements(const mxn_structure_t *s, const mxn_piece_t *pc, const int64_t *bstart,
                          const int32_t *only, int64_t nonly, const int32_t *slot, int64_t nslot,
                          int64_t **off, int32_t **elems) {
  int status = MXN_OK;
  int64_t *pairs = NULL, np = 0, cap = 1024;
  int64_t *fill = NULL;
  MXN_ALLOC(pairs, cap);
  for (int64_t i = 0, n = only ? nonly : pc->num_elements; i < n; i++) {
    int64_t e = only ? only[i] : i;
    int b = block_of(bstart, pc->num_blocks, e);
    const mxn_piece_block_t *pb = &pc->blocks[b];
    int npe = s->blocks[b].nodes_per_elem;
    int64_t k = e - bstart[b];
    const int64_t *ec = pb->conn + mxn__conn_at(pb, npe, k);
    for (int c = 0, m = mxn__conn_n(pb, npe, k); c < m; c++) {
      if (slot[ec[c]] < 0) continue;
      if (np == cap) {
        int64_t *g = mxn__realloc(pairs, (size_t)(2 * cap) * sizeof *g);
        if (!g) {
          status = MXN_ERR_NOMEM;
          goto done;
        }
        pairs = g;
        cap *= 2;
      }
      pairs[np++] = (int64_t)slot[ec[c]] << 32 | e;
    }
  }
  MXN_ALLOC(*off, nslot + 1);
  for (int64_t i = 0; i < np; i++) (*off)[(pairs[i] >> 32) + 1]++;
  for (int64_t i = 0; i < nslot; i++) (*off)[i + 1] += (*off)[i];
  MXN_ALLOC(*elems, np);
  MXN_ALLOC(fill, nslot);
  for (int64_t i = 0; i < np; i++) {
    int64_t q = pairs[i] >> 32;
    (*elems)[(*off)[q] + fill[q]++] = (int32_t)(pairs[i] & 0xffffffff);
  }
done:
  free(pairs);
  free(fill);
  return status;
}

/* splitmix64's finalizer: a local node index spread over 64 bits. */
static uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* A side's hash from the sum of its corners' (symmetric in the corners). */
static inline uint64_t side_hash(uint64_t sum) {
  sum *= 0x9E3779B97F4A7C15ull;
  return sum ^ (sum >> 29);
}

/* Corners of a linear cell type's sides (mxn__side_corners) and its node
 * count; 0 sides if the block is not of linear solids (3D) or linear
 * planar cells (2D). */
static int solid_sides(const mxn_structure_t *s, const mxn_block_info_t *bi,
                       const int (**sides)[4], int *corners) {
  int ns = bi->poly ? 0 : mxn__side_corners(bi->type, s->num_dim, sides);
  *corners = 0;
  if (ns == 0) return 0;
  int k0 = (*sides)[0][2] < 0 ? 2 : (*sides)[0][3] < 0 ? 3 : 4;
  if (s->num_dim == 3 ? ns < 4 || k0 < 3 : s->num_dim != 2 || k0 != 2) return 0;
  for (int q = 0; q < ns; q++)
    for (int c = 0; c < 4; c++)
      if ((*sides)[q][c] >= *corners) *corners = (*sides)[q][c] + 1;
  return bi->nodes_per_elem == *corners ? ns : 0;
}

/* Which nodes of the piece other ranks' cells may also touch (*bnd, or
 * NULL: any node), the cells with such a node (*edge, concatenated
 * indices; NULL with *bnd), and for those nodes the highest element id
 * around them (mxe).
 *
 * In a mesh of solids (3D) or of planar cells (2D) that do not overlap, a
 * node all of whose sides (faces in 3D, edges in 2D) through it are each
 * shared by two of the piece's cells is surrounded by the piece: no other
 * cell can touch it. Sides are matched without a table: the hash of a
 * side's corner set is XORed into each of its corners, so a side listed by
 * two cells cancels, and a corner left non-zero lies on an unmatched side
 * (missing one needs a 64-bit collision; an extra node only costs a
 * registration). Shells, beams, particles and polyhedra can meet other
 * cells without sharing a side, and higher-order cells have nodes off
 * their corners: one such block anywhere in the mesh makes every rank take
 * all its nodes. The choice depends on the structure only, so it is the
 * same on every rank. */
static int scan_piece(const mxn_structure_t *s, const mxn_piece_t *pc, int all_nodes, mxn_gid_t *mxe,
                      char **bnd, int32_t **edge, int64_t *nedge) {
  int status = MXN_OK, corners, solid = !all_nodes;
  const int(*sides)[4];
  uint64_t *x = NULL, *hv = NULL;
  int64_t nn = pc->num_nodes;
  *bnd = NULL;
  *edge = NULL;
  *nedge = 0;
  for (int b = 0; b < s->num_blocks; b++)
    if (s->blocks[b].num_elements > 0 && solid_sides(s, &s->blocks[b], &sides, &corners) == 0)
      solid = 0;
  if (solid) {
    MXN_ALLOC(x, nn);
    MXN_ALLOC_RAW(hv, nn);
    for (int64_t v = 0; v < nn; v++) hv[v] = mix64((uint64_t)v);
  }
  for (int b = 0; solid && b < pc->num_blocks; b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    int npe = s->blocks[b].nodes_per_elem;
    int ns = pb->num_elements ? solid_sides(s, &s->blocks[b], &sides, &corners) : 0;
    const int(*hex)[4] = NULL;
    mxn__side_corners("HEX", 3, &hex);
    if (ns == 6 && npe == 8 && sides == hex) {
      /* Hexahedra, the common case, unrolled: each corner gets the XOR of
       * its three sides' hashes in one update. The sides are topology.c's
       * hex table: {0,1,5,4} {1,2,6,5} {2,3,7,6} {0,4,7,3} {0,3,2,1}
       * {4,5,6,7}. */
      for (int64_t k = 0; k < pb->num_elements; k++) {
        const int64_t *ec = pb->conn + k * 8;
        uint64_t h0 = hv[ec[0]], h1 = hv[ec[1]], h2 = hv[ec[2]], h3 = hv[ec[3]];
        uint64_t h4 = hv[ec[4]], h5 = hv[ec[5]], h6 = hv[ec[6]], h7 = hv[ec[7]];
        uint64_t f0 = side_hash(h0 + h1 + h5 + h4), f1 = side_hash(h1 + h2 + h6 + h5);
        uint64_t f2 = side_hash(h2 + h3 + h7 + h6), f3 = side_hash(h0 + h4 + h7 + h3);
        uint64_t f4 = side_hash(h0 + h3 + h2 + h1), f5 = side_hash(h4 + h5 + h6 + h7);
        x[ec[0]] ^= f0 ^ f3 ^ f4;
        x[ec[1]] ^= f0 ^ f1 ^ f4;
        x[ec[2]] ^= f1 ^ f2 ^ f4;
        x[ec[3]] ^= f2 ^ f3 ^ f4;
        x[ec[4]] ^= f0 ^ f3 ^ f5;
        x[ec[5]] ^= f0 ^ f1 ^ f5;
        x[ec[6]] ^= f1 ^ f2 ^ f5;
        x[ec[7]] ^= f2 ^ f3 ^ f5;
      }
      continue;
    }
    for (int64_t k = 0; k < pb->num_elements; k++) {
      const int64_t *ec = pb->conn + k * npe;
      for (int q = 0; q < ns; q++) {
        const int *sq = sides[q];
        uint64_t sum = hv[ec[sq[0]]] + hv[ec[sq[1]]];
        if (sq[2] >= 0) sum += hv[ec[sq[2]]];
        if (sq[3] >= 0) sum += hv[ec[sq[3]]];
        sum = side_hash(sum);
        x[ec[sq[0]]] ^= sum;
        x[ec[sq[1]]] ^= sum;
        if (sq[2] >= 0) x[ec[sq[2]]] ^= sum;
        if (sq[3] >= 0) x[ec[sq[3]]] ^= sum;
      }
    }
  }
  for (int64_t v = 0; v < nn; v++) mxe[v] = INT64_MIN;
  if (!solid) {
    /* every node registered: the highest element id around each */
    for (int b = 0; b < pc->num_blocks; b++) {
      const mxn_piece_block_t *pb = &pc->blocks[b];
      int npe = s->blocks[b].nodes_per_elem;
      for (int64_t k = 0; k < pb->num_elements; k++) {
        const int64_t *ec = pb->conn + mxn__conn_at(pb, npe, k);
        for (int c = 0, n = mxn__conn_n(pb, npe, k); c < n; c++)
          if (pb->elem_ids[k] > mxe[ec[c]]) mxe[ec[c]] = pb->elem_ids[k];
      }
    }
    goto done;
  }
  MXN_ALLOC_RAW(*bnd, nn);
  for (int64_t v = 0; v < nn; v++) (*bnd)[v] = x[v] != 0;
  MXN_ALLOC_RAW(*edge, pc->num_elements);
  for (int b = 0, e0 = 0; b < pc->num_blocks; e0 += (int)pc->blocks[b].num_elements, b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    int npe = s->blocks[b].nodes_per_elem;
    for (int64_t k = 0; k < pb->num_elements; k++) {
      const int64_t *ec = pb->conn + k * npe;
      int on = 0;
      for (int c = 0; c < npe && !on; c++) on = (*bnd)[ec[c]];
      if (!on) continue;
      (*edge)[(*nedge)++] = (int32_t)(e0 + k);
      /* the registered nodes (bnd) are all nodes of edge cells: their
       * highest element ids come from those cells alone */
      for (int c = 0; c < npe; c++)
        if (pb->elem_ids[k] > mxe[ec[c]]) mxe[ec[c]] = pb->elem_ids[k];
    }
  }

done:
  free(x);
  free(hv);
  return status;
}

/* What the steps of mxn__halo_find share. */
typedef struct {
  MPI_Comm comm;
  int size, rank, L, all_nodes;
  const mxn_structure_t *s;
  const mxn_piece_t *pc;
  mxn__halo_found_t *h;
  int64_t nn;
  nreg_t *reg, *got;
  nrep_t *rep;
  nask_t *req, *asked;
  ans_t *ans;
  int *dest;
  int64_t *cnt, *rcnt;
  int64_t *n2e_off, *sbuf, *rbuf;
  int32_t *n2e;  /* element indices: 4 bytes each */
  int32_t *slot; /* per piece node: its index among the asked nodes, or -1 */
  int64_t *aloc; /* per asked node: its piece node, or -1 */
  mxn_gid_t *seen, *front, *known, *mxe;
  int *front_rank; /* per frontier node: the rank whose record brought it */
  nask_t *fr;
  int64_t nknown;
  char *bnd;
  int32_t *rv_loc; /* per registration at this rendezvous: the node's index at its rank */
  int64_t *bstart; /* per block: its first element's concatenated index */
  int32_t *edge;   /* the cells touching nodes in bnd (scan_piece) */
  int64_t nedge;
  int64_t ngot, nrep, nseen, nfront, nasked;
  int64_t nf, nnew; /* a layer's frontier nodes (with repeats) and new elements */
} halo_find_t;

/* Step 1 of mxn__halo_find: the registration at the rendezvous. Ends in
 * its collective step. */
static int register_boundary_nodes(halo_find_t *c) {
  int status = MXN_OK;
  const mxn_piece_t *pc = c->pc;
  int64_t nn = c->nn, ne = pc->num_elements, nreg = 0;
  MXN_ALLOC_OR(c->bstart, pc->num_blocks + 1, sync_reg);
  for (int b = 0; b < pc->num_blocks; b++)
    c->bstart[b + 1] = c->bstart[b] + pc->blocks[b].num_elements;
  /* (Answers hold 32-bit element indices: a rank owning 2^31 elements
   * would hold well over 100 GB of connectivity first.) */
  if (ne > INT32_MAX || nn > INT32_MAX) {
    status = MXN_ERR_UNSUPPORTED;
    goto sync_reg;
  }

  /* 1. Register the nodes other ranks may hold (boundary_nodes), each
   * with the highest element id around it. A node no other rank registers
   * is mine alone. */
  MXN_ALLOC_RAW_OR(c->mxe, nn, sync_reg);
  MXN_CHECK_OR(scan_piece(c->s, pc, c->all_nodes, c->mxe, &c->bnd, &c->edge, &c->nedge), sync_reg);
  for (int64_t v = 0; v < nn; v++) nreg += !c->bnd || c->bnd[v];
  MXN_ALLOC_RAW_OR(c->reg, nreg, sync_reg);
  MXN_ALLOC_RAW_OR(c->dest, nreg, sync_reg);
  for (int64_t v = 0, q = 0; v < nn; v++)
    if (!c->bnd || c->bnd[v]) {
      c->reg[q] = (nreg_t){pc->node_ids[v], c->mxe[v], c->rank, (int32_t)v};
      c->dest[q++] = home_of(pc->node_ids[v], c->size);
    }
  free(c->mxe);
  c->mxe = NULL;
  free(c->bnd);
  c->bnd = NULL;
sync_reg:
  return mxn__send_to_if(c->comm, c->size, status, c->reg, sizeof *c->reg, nreg, c->dest,
                         (void **)&c->got, &c->ngot);
}

/* The rendezvous' table of the registrations it got: each node's
 * registering ranks and owner (the rank with the highest element id
 * around it). Also tells each node's owner and sharers back to its
 * holders; ends in that collective step. */
static int settle_node_owners(halo_find_t *c) {
  int status = MXN_OK;
  mxn__halo_found_t *h = c->h;
  nreg_t *got = c->got;
  int64_t ngot = c->ngot, nn = c->nn, nout = 0;
  nrep_t *out = NULL;
  int *odest = NULL;
  char *bare = NULL; /* per registration: no element of its rank's piece touches the node */
  free(c->reg); /* early: the load's peak memory is here */
  c->reg = NULL;
  /* by node, then rank: received in rank order, and the sort is stable */
  MXN_CHECK_OR(mxn__radix_sort(got, ngot, sizeof *got), sync_rep);
  {
    int64_t nu = 0;
    for (int64_t i = 0; i < ngot; i++) nu += (i == 0 || got[i].node != got[i - 1].node);
    h->rv_n = nu;
    MXN_ALLOC_OR(h->rv_ids, nu, sync_rep);
    MXN_ALLOC_OR(h->rv_off, nu + 1, sync_rep);
    MXN_ALLOC_OR(h->rv_rank, ngot, sync_rep);
    MXN_ALLOC_OR(c->rv_loc, ngot, sync_rep);
    MXN_ALLOC_OR(h->rv_owner, nu, sync_rep);
    MXN_ALLOC_OR(bare, ngot, sync_rep);
    int64_t u = -1;
    mxn_gid_t best = 0;
    for (int64_t i = 0; i < ngot; i++) {
      if (i == 0 || got[i].node != got[i - 1].node) {
        u++;
        h->rv_ids[u] = got[i].node;
        h->rv_off[u] = i;
        best = got[i].maxelem;
        h->rv_owner[u] = got[i].rank;
      }
      h->rv_rank[i] = got[i].rank;
      c->rv_loc[i] = got[i].loc;
      bare[i] = got[i].maxelem == INT64_MIN;
      if (got[i].maxelem > best) {
        best = got[i].maxelem;
        h->rv_owner[u] = got[i].rank;
      }
    }
    h->rv_off[nu] = ngot;
  }
  free(c->got);
  c->got = NULL;
  /* Each node's owner and sharers, back to its holders (shared ones only:
   * a node no other rank holds is mine). */
  MXN_ALLOC_RAW_OR(h->node_owner, nn, sync_rep); /* every entry set below */
  MXN_ALLOC_OR(h->node_shared, nn, sync_rep);
  /* the layers' list of nodes already processed (see 2.) */
  MXN_ALLOC_OR(c->seen, 1, sync_rep);
  for (int64_t v = 0; v < nn; v++) h->node_owner[v] = c->rank;
  for (int64_t u = 0; u < h->rv_n; u++) {
    int64_t g = h->rv_off[u + 1] - h->rv_off[u];
    if (g > 1) nout += g * (g - 1);
  }
  MXN_ALLOC_RAW_OR(out, nout, sync_rep);
  MXN_ALLOC_RAW_OR(odest, nout, sync_rep);
  nout = 0;
  for (int64_t u = 0; u < h->rv_n; u++)
    for (int64_t i = h->rv_off[u]; h->rv_off[u + 1] - h->rv_off[u] > 1 && i < h->rv_off[u + 1]; i++)
      for (int64_t j = h->rv_off[u]; j < h->rv_off[u + 1]; j++)
        if (i != j) {
          /* a holder with no element around the node owes no cells
           * around it, and is owed none (it needs no ghosts there) */
          int other = bare[i] || bare[j] ? -1 : h->rv_rank[j];
          out[nout] = (nrep_t){h->rv_ids[u], h->rv_owner[u], other, c->rv_loc[i], 0};
          odest[nout++] = h->rv_rank[i];
        }
sync_rep:
  status = mxn__send_to_if(c->comm, c->size, status, out, sizeof *out, nout, odest,
                           (void **)&c->rep, &c->nrep);
  free(out);
  free(odest);
  free(bare);
  return status;
}

/* Nodes already processed: the piece's (ascending) and `seen`, the
 * ones the layers added (kept sorted; far fewer). Marks my shared nodes
 * and their owners from the registration replies. */
static void take_owner_replies(halo_find_t *c) {
  c->nseen = 0;
  for (int64_t i = 0; i < c->nrep; i++) {
    int64_t v = c->rep[i].loc; /* a registration reply: my own node */
    if (v >= 0 && v < c->nn && c->pc->node_ids[v] == c->rep[i].node) {
      c->h->node_owner[v] = c->rep[i].owner;
      c->h->node_shared[v] = 1;
    }
  }
}

/* Steps 2a and 2b of a layer. After layer 1, ends in the asks' collective
 * step; layer 1 has none (a failure goes on to the answers' step). */
static int ask_holders(halo_find_t *c, int layer, int status) {
  int64_t nreq = 0;
  /* 2a. (node, holder) pairs of the frontier; `status` carries what the
   * last layer's local work found (it continues here on a failure). */
  if (layer > 1) {
    free(c->rep);
    c->rep = NULL;
    status = ask_rendezvous(c->comm, c->size, c->rank, status, c->h, c->nfront, c->front, &c->rep,
                            &c->nrep);
    if (status != MXN_OK) return status; /* on every rank alike */
  }
  nrep_t *rep = c->rep;
  /* 2b. Ask each holder for its elements around those nodes. For layer
   * 1 the registration replies have done it: a holder told that another
   * rank holds a node owes it its cells around the node, as the other
   * owes it theirs. */
  free(c->asked);
  c->asked = NULL;
  if (layer == 1) {
    MXN_ALLOC_OR(c->asked, c->nrep, sync_ask); /* layer 1 has no ask exchange */
    c->nasked = 0;
    for (int64_t i = 0; i < c->nrep; i++)
      if (rep[i].other >= 0 && rep[i].other != c->rank)
        c->asked[c->nasked++] = (nask_t){rep[i].node, rep[i].other, rep[i].loc};
  }
  free(c->req);
  free(c->dest);
  c->req = NULL;
  c->dest = NULL;
  if (layer > 1) MXN_ALLOC_OR(c->req, c->nrep, sync_ask);
  if (layer > 1) MXN_ALLOC_OR(c->dest, c->nrep, sync_ask);
  for (int64_t i = 0; layer > 1 && i < c->nrep; i++) {
    int to = rep[i].other;
    if (rep[i].owner < 0) {
      /* Not registered: the node is inside the piece of the rank whose
       * record brought it (scan_piece), which alone holds it. */
      int64_t f = mxn__lower_bound(c->front, c->nfront, rep[i].node);
      to = f < c->nfront && c->front[f] == rep[i].node ? c->front_rank[f] : -1;
    }
    if (to >= 0 && to != c->rank) {
      c->req[nreq] = (nask_t){rep[i].node, c->rank, 0};
      c->dest[nreq++] = to;
    }
  }
sync_ask:
  if (layer > 1)
    status = mxn__send_to_if(c->comm, c->size, status, c->req, sizeof *c->req, nreq, c->dest,
                             (void **)&c->asked, &c->nasked);
  return status;
}

/* Step 2c of a layer. Ends in the answers' collective step, which a
 * failure before (`status`) goes on to. */
static int answer_holders(halo_find_t *c, int layer, int status) {
  const mxn_structure_t *s = c->s;
  const mxn_piece_t *pc = c->pc;
  int64_t nn = c->nn, nslot = 0, nans = 0, words = 0, m = 0, rn = 0;
  if (status != MXN_OK) goto sync_ans;
  /* 2c. Holders answer: each element once per requester, with its nodes
   * by global id. The elements around the asked nodes only. */
  if (!c->slot) {
    MXN_ALLOC_OR(c->slot, nn, sync_ans);
    for (int64_t v = 0; v < nn; v++) c->slot[v] = -1;
  }
  int32_t *slot = c->slot;
  nask_t *asked = c->asked;
  free(c->aloc);
  MXN_ALLOC_OR(c->aloc, c->nasked, sync_ans);
  int64_t *aloc = c->aloc;
  for (int64_t i = 0; i < c->nasked; i++) {
    /* layer 1's asks are my registration replies: they know the node */
    int64_t v = layer == 1 ? asked[i].pad : mxn__lower_bound(pc->node_ids, nn, asked[i].node);
    aloc[i] = v >= 0 && v < nn && pc->node_ids[v] == asked[i].node ? v : -1;
    if (aloc[i] >= 0 && slot[v] < 0) slot[v] = (int32_t)nslot++;
  }
  free(c->n2e_off);
  free(c->n2e);
  c->n2e_off = NULL;
  c->n2e = NULL;
  /* Layer 1 asks about registered nodes only: the edge cells hold them. */
  MXN_CHECK_OR(asked_elements(s, pc, c->bstart, layer == 1 ? c->edge : NULL, c->nedge, slot, nslot,
                              &c->n2e_off, &c->n2e),
               sync_ans);
  const int64_t *n2e_off = c->n2e_off, *bstart = c->bstart;
  for (int64_t i = 0; i < c->nasked; i++)
    if (aloc[i] >= 0) nans += n2e_off[slot[aloc[i]] + 1] - n2e_off[slot[aloc[i]]];
  free(c->ans);
  MXN_ALLOC_OR(c->ans, nans, sync_ans);
  ans_t *ans = c->ans;
  nans = 0;
  for (int64_t i = 0; i < c->nasked; i++)
    if (aloc[i] >= 0)
      for (int64_t j = n2e_off[slot[aloc[i]]]; j < n2e_off[slot[aloc[i]] + 1]; j++)
        ans[nans++] = ANS_KEY(asked[i].rank, c->n2e[j]);
  for (int64_t i = 0; i < c->nasked; i++)
    if (aloc[i] >= 0) slot[aloc[i]] = -1; /* clean for the next layer */
  MXN_CHECK_OR(mxn__radix_sort(ans, nans, sizeof *ans), sync_ans);
  free(c->cnt);
  MXN_ALLOC_OR(c->cnt, c->size, sync_ans);
  for (int64_t i = 0; i < nans; i++) {
    if (m > 0 && ans[i] == ans[m - 1]) continue;
    ans[m++] = ans[i];
    int b = block_of(bstart, pc->num_blocks, ANS_ELEM(ans[i]));
    words += mxn__halo_rec_len(
        s, b,
        mxn__conn_n(&pc->blocks[b], s->blocks[b].nodes_per_elem, ANS_ELEM(ans[i]) - bstart[b]));
  }
  nans = m;
  free(c->sbuf);
  MXN_ALLOC_OR(c->sbuf, words, sync_ans);
  words = 0;
  for (int64_t i = 0; i < nans; i++) {
    int64_t e = ANS_ELEM(ans[i]);
    int b = block_of(bstart, pc->num_blocks, e);
    const mxn_piece_block_t *pb = &pc->blocks[b];
    int64_t k = e - bstart[b];
    int np = mxn__conn_n(pb, s->blocks[b].nodes_per_elem, k);
    const int64_t *ec = pb->conn + mxn__conn_at(pb, s->blocks[b].nodes_per_elem, k);
    int64_t *rec = c->sbuf + words, len = mxn__halo_rec_len(s, b, np);
    int nd = s->num_dim, nnm = s->num_node_maps, na = s->blocks[b].num_attr;
    rec[0] = pb->elem_ids[k];
    rec[1] = np;
    rec[2] = b;
    rec[3] = pb->orig_ids ? pb->orig_ids[k] : pb->elem_ids[k];
    rec[4] = pb->member ? pb->member[k] : -1;
    int64_t *nid = rec + MXN__REC_HEAD, *nown = nid + np, *xyz = nown + np;
    int64_t *nmap = xyz + (int64_t)np * nd, *att = nmap + (int64_t)np * nnm, *emap = att + na;
    for (int q = 0; q < np; q++) {
      int64_t v = ec[q];
      nid[q] = pc->node_ids[v];
      nown[q] = c->h->node_owner[v];
      for (int d = 0; d < nd; d++) memcpy(&xyz[q * nd + d], &pc->coord[d][v], sizeof(double));
      for (int p = 0; p < nnm; p++) nmap[q * nnm + p] = pc->node_maps ? pc->node_maps[p][v] : 0;
    }
    if (pb->attr)
      memcpy(att, pb->attr + k * na, (size_t)na * sizeof(double));
    else
      memset(att, 0, (size_t)na * sizeof(double));
    for (int q = 0; q < s->num_elem_maps; q++) emap[q] = pb->maps ? pb->maps[q][k] : 0;
    words += len;
    c->cnt[ANS_TO(ans[i])] += len;
  }
  free(c->rcnt);
  MXN_ALLOC_OR(c->rcnt, c->size, sync_ans);
sync_ans:
  free(c->rbuf);
  c->rbuf = NULL;
  return mxn__comm_exchange_i64(c->comm, status, c->sbuf, c->cnt, &c->rbuf, &rn, c->rcnt);
}

/* Step 2d of a layer, local: a failure goes on to the next layer's ask,
 * which fails everywhere; after the last layer the caller ends. */
static int take_layer(halo_find_t *c, int layer) {
  int status = MXN_OK;
  const mxn_structure_t *s = c->s;
  mxn__halo_found_t *h = c->h;
  const int64_t *rbuf = c->rbuf, *rcnt = c->rcnt;
  /* 2d. New elements become this layer; their unseen nodes the next
   * frontier. The sender of each record is its owner. */
  int64_t ncand = 0;
  c->nf = 0;
  for (int64_t r = 0, at = 0; r < c->size; r++)
    for (int64_t end = at + rcnt[r]; at < end;
         at += mxn__halo_rec_len(s, rbuf[at + 2], rbuf[at + 1]))
      ncand++;
  cand_t *cand = mxn__malloc(((size_t)ncand + 1) * sizeof *cand);
  if (!cand)
    return MXN_ERR_NOMEM; /* last layer: no collective step left here; else
                           * the next layer's ask fails everywhere */
  ncand = 0;
  for (int64_t r = 0, at = 0; r < c->size; r++)
    for (int64_t end = at + rcnt[r]; at < end;
         at += mxn__halo_rec_len(s, rbuf[at + 2], rbuf[at + 1]))
      cand[ncand++] = (cand_t){rbuf[at], at, (int32_t)r, 0};
  if ((status = mxn__radix_sort(cand, ncand, sizeof *cand)) != MXN_OK) {
    free(cand);
    return status;
  }
  int64_t nnew = 0, nodes_new = 0, rec_words = 0;
  for (int64_t i = 0; i < ncand; i++) {
    mxn_gid_t g = cand[i].gid;
    if (nnew > 0 && cand[nnew - 1].gid == g) continue;
    /* Never one of mine: answers come from other ranks, with elements
     * they own, and every element has one owner. */
    int64_t k = mxn__lower_bound(c->known, c->nknown, g);
    if (k < c->nknown && c->known[k] == g) continue;
    cand[nnew++] = cand[i];
    nodes_new += rbuf[cand[i].at + 1];
    rec_words += mxn__halo_rec_len(s, rbuf[cand[i].at + 2], rbuf[cand[i].at + 1]);
  }
  c->nnew = nnew;
  mxn_gid_t *a1 = mxn__realloc(h->gid, (size_t)(h->ng + nnew + 1) * sizeof *a1);
  if (a1) h->gid = a1;
  int *d1 = mxn__realloc(h->depth, (size_t)(h->ng + nnew + 1) * sizeof *d1);
  if (d1) h->depth = d1;
  int *o1 = mxn__realloc(h->owner, (size_t)(h->ng + nnew + 1) * sizeof *o1);
  if (o1) h->owner = o1;
  mxn_gid_t *k1 = mxn__realloc(c->known, (size_t)(c->nknown + nnew + 1) * sizeof *k1);
  if (k1) c->known = k1;
  int64_t *ra = mxn__realloc(h->rec_at, (size_t)(h->ng + nnew + 1) * sizeof *ra);
  if (ra) h->rec_at = ra;
  int64_t *rw = mxn__realloc(h->rec, (size_t)(h->nrec + rec_words + 1) * sizeof *rw);
  if (rw) h->rec = rw;
  free(c->fr);
  c->fr = mxn__malloc(((size_t)nodes_new + 1) * sizeof *c->fr);
  if (!a1 || !d1 || !o1 || !k1 || !c->fr || !ra || !rw) {
    free(cand);
    return MXN_ERR_NOMEM;
  }
  for (int64_t i = 0; i < nnew; i++) {
    int64_t len = mxn__halo_rec_len(s, rbuf[cand[i].at + 2], rbuf[cand[i].at + 1]);
    h->rec_at[h->ng] = h->nrec;
    memcpy(h->rec + h->nrec, rbuf + cand[i].at, (size_t)len * sizeof *h->rec);
    h->nrec += len;
    h->gid[h->ng] = cand[i].gid;
    h->depth[h->ng] = layer;
    h->owner[h->ng++] = cand[i].owner;
    c->known[c->nknown + i] = cand[i].gid;
    for (int64_t q = 0; layer < c->L && q < rbuf[cand[i].at + 1]; q++)
      c->fr[c->nf++] = (nask_t){rbuf[cand[i].at + MXN__REC_HEAD + q], cand[i].owner, 0};
  }
  free(cand);
  return status;
}

/* The next frontier (before every layer but the first): the nodes of the
 * layer just taken, unique, unseen. Local, as take_layer. */
static int next_frontier(halo_find_t *c) {
  int status;
  const mxn_piece_t *pc = c->pc;
  nask_t *fr = c->fr;
  int64_t nf = c->nf, nn = c->nn;
  c->nknown += c->nnew;
  if ((status = mxn__radix_sort(c->known, c->nknown, sizeof *c->known)) != MXN_OK) return status;
  /* next frontier: unique, unseen */
  if ((status = mxn__radix_sort(fr, nf, sizeof *fr)) != MXN_OK) return status;
  free(c->front);
  free(c->front_rank);
  c->front = mxn__malloc(((size_t)nf + 1) * sizeof *c->front);
  c->front_rank = mxn__malloc(((size_t)nf + 1) * sizeof *c->front_rank);
  if (!c->front || !c->front_rank) return MXN_ERR_NOMEM;
  int64_t u = 0;
  for (int64_t i = 0; i < nf; i++) {
    if (i > 0 && fr[i].node == fr[i - 1].node) continue;
    int64_t k = mxn__lower_bound(c->seen, c->nseen, fr[i].node);
    if (k < c->nseen && c->seen[k] == fr[i].node) continue;
    k = mxn__lower_bound(pc->node_ids, nn, fr[i].node);
    if (k < nn && pc->node_ids[k] == fr[i].node) continue;
    c->front_rank[u] = fr[i].rank;
    c->front[u++] = fr[i].node;
  }
  c->nfront = u;
  mxn_gid_t *ns = mxn__realloc(c->seen, (size_t)(c->nseen + c->nfront + 1) * sizeof *ns);
  if (!ns) return MXN_ERR_NOMEM;
  c->seen = ns;
  if (c->nfront) memcpy(c->seen + c->nseen, c->front, (size_t)c->nfront * sizeof *c->seen);
  c->nseen += c->nfront;
  return mxn__radix_sort(c->seen, c->nseen, sizeof *c->seen);
}

static void halo_find_free(halo_find_t *c) {
  free(c->reg);
  free(c->got);
  free(c->rep);
  free(c->req);
  free(c->asked);
  free(c->ans);
  free(c->dest);
  free(c->cnt);
  free(c->rcnt);
  free(c->n2e_off);
  free(c->n2e);
  free(c->sbuf);
  free(c->rbuf);
  free(c->bstart);
  free(c->edge);
  free(c->seen);
  free(c->front);
  free(c->front_rank);
  free(c->fr);
  free(c->slot);
  free(c->aloc);
  free(c->mxe);
  free(c->bnd);
  free(c->rv_loc);
  free(c->known);
}

int mxn__halo_find(MPI_Comm comm, const mxn_structure_t *s, const mxn_piece_t *pc, int L,
                   int all_nodes, mxn__halo_found_t *h, mxn_error_t *err) {
  halo_find_t c = {.comm = comm, .s = s, .pc = pc, .L = L, .all_nodes = all_nodes, .h = h,
                   .nn = pc->num_nodes};
  MPI_Comm_size(comm, &c.size);
  MPI_Comm_rank(comm, &c.rank);
  memset(h, 0, sizeof *h);

  /* Every collective step below is called by every rank: work between two
   * steps that fails goes to the next step (the sync_ labels) with its
   * status, and the step fails on every rank alike (mxn__send_to_if,
   * mxn__comm_exchange_i64, ask_rendezvous agree first). Only after the last step
   * may a rank leave alone: the caller agrees. */
  int status = register_boundary_nodes(&c); /* 1. */
  if (status != MXN_OK) goto done;          /* on every rank alike */
  status = settle_node_owners(&c);
  if (status != MXN_OK) goto done;

  /* 2. Layers. The frontier of layer 1 is every shared node of mine (the
   * registration replies); of layer k, the nodes layer k-1 added. */
  take_owner_replies(&c);
  for (int layer = 1; layer <= L; layer++) {
    status = ask_holders(&c, layer, status); /* 2a, 2b */
    /* on every rank alike (layer 1's asks are local: a failure goes on to
     * the answers' step) */
    if (status != MXN_OK && layer > 1) goto done;
    status = answer_holders(&c, layer, status); /* 2c */
    if (status != MXN_OK) goto done;            /* on every rank alike */
    status = take_layer(&c, layer);             /* 2d */
    if (status == MXN_OK && layer < L)          /* no next layer to ask for after L */
      status = next_frontier(&c);
  }
done:
  if (status != MXN_OK)
    mxn_error_set(err, status, "finding the ghost layers failed on rank %d: %s", c.rank,
                  mxn_strerror(status));
  halo_find_free(&c);
  return status;
}

/* ------------------------------------------------------------------ */
