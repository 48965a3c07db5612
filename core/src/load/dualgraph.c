/* The dual graph of a load's elements (elements sharing a side are
 * neighbours), built over the ranks by a rendezvous of sides, and the
 * element quality that weighs its edges for MXN_PART_GRAPH. */
#include "comm.h"
#include "load/load_ctx.h"

#include <math.h>
#include <string.h>

/* A side of an element, on its way to the rendezvous of its corner nodes. */
typedef struct {
  mxn_gid_t key[4];  /* sorted corner node ids, INT64_MAX padded */
  mxn_gid_t elem;
  double q;          /* the element's quality */
  int32_t rank, pad;
} side_rec_t;

/* A neighbour found at the rendezvous, on its way to the element's rank. */
typedef struct {
  mxn_gid_t elem, nbr;
  double q;          /* the poorer quality of the two */
  int32_t nbr_rank, pad;
} nbr_rec_t;

static int cmp_side_rec(const void *a, const void *b) {
  const side_rec_t *x = a, *y = b;
  for (int i = 0; i < 4; i++)
    if (x->key[i] != y->key[i]) return (x->key[i] > y->key[i]) - (x->key[i] < y->key[i]);
  return (x->elem > y->elem) - (x->elem < y->elem);
}

static int cmp_nbr_rec(const void *a, const void *b) {
  const nbr_rec_t *x = a, *y = b;
  if (x->elem != y->elem) return (x->elem > y->elem) - (x->elem < y->elem);
  return (x->nbr > y->nbr) - (x->nbr < y->nbr);
}

/* The dual graph of elements spread over ranks: elements are neighbours
 * when they share a side (same corner nodes). Each side goes to the rank
 * its corner ids hash to; that rank pairs the elements it receives for the
 * same side. Adjacency is returned in the order of `ids` (the piece order
 * of `pc`), by global id, with the neighbour's rank. */
int mxn__dual_graph_dist(MPI_Comm comm, int size, int rank, const mxn_structure_t *s,
                           const mxn_piece_t *pc, const mxn_gid_t *ids, const double *quality,
                           int64_t **adj_off, mxn_gid_t **adj_ids, int **adj_ranks,
                           double **adj_q) {
  int status = MXN_OK;
  side_rec_t *sides = NULL, *got = NULL;
  nbr_rec_t *pairs = NULL, *back = NULL;
  int *dest = NULL, *pdest = NULL;
  int64_t nsides = 0, ngot = 0, npairs = 0, nback = 0, n = pc->num_elements;
  int64_t *fstart = NULL;
  /* Two exchanges every rank calls: work that fails before one goes on to
   * it (sync_), where the failure is agreed. */
  MXN_ALLOC_OR(fstart, pc->num_face_blocks + 1, sync_sides);
  for (int fb = 0; fb < pc->num_face_blocks; fb++)
    fstart[fb + 1] = fstart[fb] + pc->face_blocks[fb].num_elements;
  for (int b = 0; b < pc->num_blocks; b++) {
    const int(*tab)[4];
    const mxn_piece_block_t *pb = &pc->blocks[b];
    if (s->blocks[b].poly == MXN_POLY_NSIDED)
      nsides += pb->conn_off[pb->num_elements]; /* one side per polygon edge */
    else if (s->blocks[b].poly == MXN_POLY_NFACED)
      nsides += pb->face_off[pb->num_elements];
    else
      nsides += pb->num_elements * mxn__side_corners(s->blocks[b].type, s->num_dim, &tab);
  }
  MXN_ALLOC_OR(sides, nsides, sync_sides);
  MXN_ALLOC_OR(dest, nsides, sync_sides);
  {
    int64_t q = 0;
    for (int b = 0, e = 0; b < pc->num_blocks; b++) {
      const int(*tab)[4];
      const mxn_piece_block_t *pb = &pc->blocks[b];
      int poly = s->blocks[b].poly;
      int ns = poly ? 0 : mxn__side_corners(s->blocks[b].type, s->num_dim, &tab);
      int npe = s->blocks[b].nodes_per_elem;
      for (int64_t k = 0; k < pb->num_elements; k++, e++) {
        if (poly == MXN_POLY_NSIDED)
          ns = (int)(pb->conn_off[k + 1] - pb->conn_off[k]);
        else if (poly == MXN_POLY_NFACED)
          ns = (int)(pb->face_off[k + 1] - pb->face_off[k]);
        for (int f = 0; f < ns; f++) {
          side_rec_t r;
          memset(&r, 0, sizeof r);
          for (int c = 0; c < 4; c++) r.key[c] = INT64_MAX;
          if (poly == MXN_POLY_NSIDED) {
            /* polygon edge f: nodes f and f+1 */
            const int64_t *ec = pb->conn + pb->conn_off[k];
            r.key[0] = pc->node_ids[ec[f]];
            r.key[1] = pc->node_ids[ec[(f + 1) % ns]];
          } else if (poly == MXN_POLY_NFACED) {
            /* face f: its 4 smallest node ids (all of a triangle's or
             * quadrilateral's, so polyhedra meet standard elements) */
            int64_t face = pb->face_conn[pb->face_off[k] + f];
            int fb = (int)mxn__lower_bound(fstart + 1, pc->num_face_blocks, face + 1);
            const mxn_piece_block_t *pf = &pc->face_blocks[fb];
            int fnpe = s->face_blocks[fb].nodes_per_elem;
            const int64_t *fc = pf->conn + mxn__conn_at(pf, fnpe, face - fstart[fb]);
            int nn = mxn__conn_n(pf, fnpe, face - fstart[fb]);
            for (int c = 0; c < nn; c++) {
              mxn_gid_t g = pc->node_ids[fc[c]];
              if (g >= r.key[3]) continue;
              int j = 3;
              for (; j > 0 && r.key[j - 1] > g; j--) r.key[j] = r.key[j - 1];
              r.key[j] = g;
            }
          } else {
            for (int c = 0; c < 4; c++)
              r.key[c] = (tab[f][c] >= 0 && tab[f][c] < npe)
                             ? pc->node_ids[pb->conn[k * npe + tab[f][c]]]
                             : INT64_MAX;
          }
          for (int i = 1; i < 4; i++) /* sort the 4 corners */
            for (int j = i; j > 0 && r.key[j - 1] > r.key[j]; j--) {
              mxn_gid_t t = r.key[j];
              r.key[j] = r.key[j - 1];
              r.key[j - 1] = t;
            }
          r.elem = pc->blocks[b].elem_ids[k];
          r.q = quality[e];
          r.rank = rank;
          uint64_t h = 1469598103934665603ull;
          for (int c = 0; c < 4; c++) h = (h ^ (uint64_t)r.key[c]) * 1099511628211ull;
          dest[q] = (int)(h % (uint64_t)size);
          sides[q++] = r;
        }
      }
    }
  }
sync_sides:
  MXN_CHECK(mxn__send_to_if(comm, size, status, sides, sizeof *sides, nsides, dest, (void **)&got,
                            &ngot));
  qsort(got, (size_t)ngot, sizeof *got, cmp_side_rec);
  /* Pairs within each group of equal sides. */
  for (int64_t a = 0, b2; a < ngot; a = b2) {
    for (b2 = a + 1; b2 < ngot && memcmp(got[b2].key, got[a].key, sizeof got[a].key) == 0; b2++) {
    }
    npairs += (b2 - a) * (b2 - a - 1);
  }
  MXN_ALLOC_OR(pairs, npairs, sync_pairs);
  MXN_ALLOC_OR(pdest, npairs, sync_pairs);
  {
    int64_t q = 0;
    for (int64_t a = 0, b2; a < ngot; a = b2) {
      for (b2 = a + 1; b2 < ngot && memcmp(got[b2].key, got[a].key, sizeof got[a].key) == 0; b2++) {
      }
      for (int64_t i = a; i < b2; i++)
        for (int64_t j = a; j < b2; j++)
          if (i != j && got[i].elem != got[j].elem) {
            pairs[q] = (nbr_rec_t){got[i].elem, got[j].elem,
                                   got[i].q < got[j].q ? got[i].q : got[j].q, got[j].rank, 0};
            pdest[q++] = got[i].rank;
          }
    }
    npairs = q;
  }
sync_pairs:
  MXN_CHECK(mxn__send_to_if(comm, size, status, pairs, sizeof *pairs, npairs, pdest,
                            (void **)&back, &nback));
  qsort(back, (size_t)nback, sizeof *back, cmp_nbr_rec);
  {
    /* CSR in the order of ids: find each element's run of neighbours. */
    mxn_idset_t byid = MXN_IDSET_INIT;
    int64_t *at = NULL, *first = NULL, *count = NULL;
    status = mxn_idset_from_array_pos(ids, n, &byid, &at);
    if (status == MXN_OK) {
      first = mxn__calloc((size_t)n + 1, sizeof *first);
      count = mxn__calloc((size_t)n + 1, sizeof *count);
      if (!first || !count) status = MXN_ERR_NOMEM;
    }
    int64_t m = 0;
    for (int64_t i = 0; status == MXN_OK && i < nback; i++) {
      if (m > 0 && back[i].elem == back[m - 1].elem && back[i].nbr == back[m - 1].nbr) continue;
      back[m++] = back[i]; /* de-duplicated in place */
    }
    for (int64_t i = 0; status == MXN_OK && i < m; i++) {
      int64_t q = mxn_idset_find(&byid, back[i].elem);
      if (q < 0) continue;
      if (count[q] == 0) first[q] = i;
      count[q]++;
    }
    if (status == MXN_OK) {
      *adj_off = mxn__calloc((size_t)n + 1, sizeof **adj_off);
      *adj_ids = mxn__malloc((size_t)m * sizeof **adj_ids + 1);
      *adj_ranks = mxn__malloc((size_t)m * sizeof **adj_ranks + 1);
      *adj_q = mxn__malloc((size_t)m * sizeof **adj_q + 1);
      if (!*adj_off || !*adj_ids || !*adj_ranks || !*adj_q) status = MXN_ERR_NOMEM;
    }
    for (int64_t e = 0; status == MXN_OK && e < n; e++) {
      int64_t q = at[e];
      (*adj_off)[e + 1] = (*adj_off)[e] + count[q];
      for (int64_t i = 0; i < count[q]; i++) {
        (*adj_ids)[(*adj_off)[e] + i] = back[first[q] + i].nbr;
        (*adj_ranks)[(*adj_off)[e] + i] = back[first[q] + i].nbr_rank;
        (*adj_q)[(*adj_off)[e] + i] = back[first[q] + i].q;
      }
    }
    mxn_idset_free(&byid);
    free(at);
    free(first);
    free(count);
  }
done:
  free(fstart);
  free(sides);
  free(got);
  free(pairs);
  free(back);
  free(dest);
  free(pdest);
  return status;
}

/* Element quality for the graph's edge weights (seed
 * zoltan-load-balancing-fluidity.txt): the shortest over the longest
 * distance between two of the element's nodes, in (0, 1]; flat or
 * collapsed elements score near 0. Type-agnostic. */
int mxn__element_quality(const mxn_structure_t *s, const mxn_piece_t *pc, double **out) {
  int status = MXN_OK;
  MXN_ALLOC(*out, pc->num_elements);
  for (int b = 0, e = 0; b < pc->num_blocks; b++) {
    int bnpe = s->blocks[b].nodes_per_elem;
    for (int64_t k = 0; k < pc->blocks[b].num_elements; k++, e++) {
      double lo = INFINITY, hi = 0;
      const mxn_piece_block_t *pb = &pc->blocks[b];
      const int64_t *c = pb->conn + mxn__conn_at(pb, bnpe, k);
      int npe = mxn__conn_n(pb, bnpe, k);
      for (int i = 0; i < npe; i++)
        for (int j = i + 1; j < npe; j++) {
          double d2 = 0;
          for (int d = 0; d < s->num_dim; d++) {
            double x = pc->coord[d][c[i]] - pc->coord[d][c[j]];
            d2 += x * x;
          }
          if (d2 < lo) lo = d2;
          if (d2 > hi) hi = d2;
        }
      (*out)[e] = (hi > 0 && isfinite(lo)) ? sqrt(lo / hi) : 1.0;
    }
  }
done:
  return status;
}

/* Fluidity's rule: an edge weighs more the poorer the quality of its
 * elements (1/q), and edges within 10% of the heaviest anywhere become
 * uncuttable (total number of edges + 1). In place: q in, weights out. */
int mxn__quality_edge_weights(MPI_Comm comm, int64_t n, const int64_t *adj_off, double *w) {
  int64_t m = adj_off ? adj_off[n] : 0, total = 0;
  double mx = 0, gmx = 0;
  for (int64_t i = 0; i < m; i++) {
    w[i] = 1.0 / (w[i] > 1e-3 ? w[i] : 1e-3);
    if (w[i] > mx) mx = w[i];
  }
  int status;
  gmx = mx;
  total = m;
  if ((status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__MAX, &gmx, 1)) != MXN_OK ||
      (status = mxn__comm_reduce_i64(comm, MXN_OK, MXN__SUM, &total, 1)) != MXN_OK)
    return status;
  /* Uniform meshes (every edge at the maximum) keep plain weights. */
  double mn = gmx, gmn;
  for (int64_t i = 0; i < m; i++)
    if (w[i] < mn) mn = w[i];
  gmn = mn;
  if ((status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__MIN, &gmn, 1)) != MXN_OK) return status;
  if (gmx > 0 && gmn < 0.9 * gmx)
    for (int64_t i = 0; i < m; i++)
      if (w[i] >= 0.9 * gmx) w[i] = (double)total + 1;
  return MXN_OK;
}
