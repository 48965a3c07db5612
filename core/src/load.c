/* The parallel MxN load (load.h): file domains in a distributed directory,
 * a partition that moves only ids, and each rank's piece read through the
 * greedy cover of its part. */
#include "load_internal.h"
#include "nodecheck.h"
#include "partmap.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mxn_load_opts_init(mxn_load_opts_t *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->method = MXN_PART_FILES;
  o->imbalance_tol = 1.05;
  o->gap = -1;
}

const mxn_structure_t *mxn_load_structure(const mxn_load_t *ld) {
  return ld ? mxn_dataset_structure(ld->ds) : NULL;
}
const mxn_piece_t *mxn_load_piece(const mxn_load_t *ld) { return ld ? ld->piece : NULL; }
const mxn_load_halo_t *mxn_load_halo(const mxn_load_t *ld) { return ld ? ld->halo : NULL; }

int mxn_load_take_block(mxn_load_t *ld, int b, int64_t **conn, mxn_gid_t **elem_ids) {
  if (conn) *conn = NULL;
  if (elem_ids) *elem_ids = NULL;
  if (!ld || !ld->piece || b < 0 || b >= ld->piece->num_blocks)
    return MXN_ERR_ARG;
  /* A re-balance rebuilds the piece from its mesh; a poly block's entries
   * go with offsets that stay in the piece. */
  if (ld->dynamic || mxn_dataset_structure(ld->ds)->blocks[b].poly) return MXN_ERR_ARG;
  mxn_piece_block_t *pb = &ld->piece->blocks[b];
  if (conn) {
    *conn = pb->conn;
    pb->conn = NULL;
  }
  if (elem_ids) {
    *elem_ids = pb->elem_ids;
    pb->elem_ids = NULL;
  }
  return MXN_OK;
}
mxn_load_stats_t mxn_load_stats(const mxn_load_t *ld) {
  mxn_load_stats_t z;
  memset(&z, 0, sizeof z);
  return ld ? ld->st : z;
}

static void halo_free(mxn_load_halo_t *h, int nb);

void mxn_load_close(mxn_load_t **pld) {
  if (!pld || !*pld) return;
  mxn_load_t *ld = *pld;
  halo_free(ld->halo, ld->piece ? ld->piece->num_blocks : 0);
  mxn__halo_xchg_free(&ld->hx);
  mxn_piece_destroy(&ld->piece);
  mxn_directory_destroy(&ld->dir);
  free(ld->node_sel);
  free(ld->elem_sel);
  free(ld->str);
  free(ld->str_perm);
  free(ld->dcache);
  mxn_dataset_destroy(&ld->ds);
  if (ld->comm != MPI_COMM_NULL) MPI_Comm_free(&ld->comm);
  free(ld);
  *pld = NULL;
}

/* An element on its way to its owner: id and weight. */
/* An element id on its way to its owner, with its weight and (ids stored
 * once in the set) the member holding it. */
typedef struct {
  mxn_gid_t id;
  double w;
  int32_t file, pad;
} moving_t;

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

/* Send each item to rank dest[k] (MPI_Alltoallv of fixed-size records).
 * Every rank learns whether all could allocate their buffers (and, with
 * _if, whether all arrived without a failure) before each exchange, so one
 * rank out of memory fails the call on all of them rather than leaving the
 * others waiting in the exchange. */
int mxn__send_to(MPI_Comm comm, int size, const void *items, size_t isz, int64_t n,
                 const int *dest, void **recv, int64_t *nrecv) {
  return mxn__send_to_if(comm, size, MXN_OK, items, isz, n, dest, recv, nrecv);
}

int mxn__send_to_if(MPI_Comm comm, int size, int status, const void *items, size_t isz,
                    int64_t n, const int *dest, void **recv, int64_t *nrecv) {
  int *sc = NULL, *rc = NULL, *sd = NULL, *rd = NULL, *fill = NULL;
  char *sbuf = NULL, *rbuf = NULL;
  if (status == MXN_OK) {
    sc = mxn__calloc((size_t)size, sizeof *sc);
    rc = mxn__calloc((size_t)size, sizeof *rc);
    sd = mxn__calloc((size_t)size + 1, sizeof *sd);
    rd = mxn__calloc((size_t)size + 1, sizeof *rd);
    fill = mxn__calloc((size_t)size, sizeof *fill);
    sbuf = mxn__malloc((size_t)n * isz + 1);
    if (!sc || !rc || !sd || !rd || !fill || !sbuf) status = MXN_ERR_NOMEM;
  }
  if ((status = mxn__worst(comm, status)) != MXN_OK) goto done;
  for (int64_t k = 0; k < n; k++) sc[dest[k]] += (int)isz;
  for (int r = 0; r < size; r++) sd[r + 1] = sd[r] + sc[r];
  for (int64_t k = 0; k < n; k++) {
    memcpy(sbuf + sd[dest[k]] + fill[dest[k]], (const char *)items + k * (int64_t)isz, isz);
    fill[dest[k]] += (int)isz;
  }
  if (MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm) != MPI_SUCCESS) {
    status = MXN_ERR_MPI;
    goto done;
  }
  for (int r = 0; r < size; r++) rd[r + 1] = rd[r] + rc[r];
  rbuf = mxn__malloc((size_t)rd[size] + 1);
  if ((status = mxn__worst(comm, rbuf ? MXN_OK : MXN_ERR_NOMEM)) != MXN_OK) goto done;
  if (MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm) != MPI_SUCCESS) {
    status = MXN_ERR_MPI;
    goto done;
  }
  *recv = rbuf;
  *nrecv = rd[size] / (int64_t)isz;
  rbuf = NULL;
done:
  free(sc);
  free(rc);
  free(sd);
  free(rd);
  free(fill);
  free(sbuf);
  free(rbuf);
  return status;
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

/* MXN_PART_MAP: the part of each of my elements from a text file of
 * "element_id part" lines (see partmap.h). */
int mxn__part_map_read(FILE *f, const char *path, int nparts, int64_t n, const mxn_gid_t *ids,
                       int *part, mxn_error_t *err) {
  int status = MXN_OK;
  char *seen = mxn__calloc((size_t)n + 1, 1);
  if (!seen) return MXN_ERR_NOMEM;
  /* Lines of any length: read character by character into a growing
   * buffer (no fixed line buffer to split a long line). */
  size_t cap = 256, len = 0;
  char *line = mxn__malloc(cap);
  long lineno = 0;
  int ch = 0;
  while (status == MXN_OK && line && ch != EOF) {
    len = 0;
    while ((ch = fgetc(f)) != EOF && ch != '\n') {
      if (len + 1 >= cap) {
        char *bigger = mxn__realloc(line, cap * 2);
        if (!bigger) {
          status = MXN_ERR_NOMEM;
          break;
        }
        line = bigger;
        cap *= 2;
      }
      line[len++] = (char)ch;
    }
    if (status != MXN_OK || (ch == EOF && len == 0)) break;
    line[len] = '\0';
    lineno++;
    char *p = line;
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    if (*p == '#' || *p == '\0') continue;
    /* strtoll/strtol rather than sscanf, whose overflow is undefined: an id
     * beyond 64 bits is an error, not a silently clamped id. */
    char *e1, *e2 = NULL;
    errno = 0;
    long long id = strtoll(p, &e1, 10);
    int id_range = errno == ERANGE;
    errno = 0;
    long pt = e1 == p ? 0 : strtol(e1, &e2, 10);
    int pt_range = errno == ERANGE;
    if (e1 == p || e2 == e1 || !isspace((unsigned char)*e1)) {
      status = mxn_error_set(err, MXN_ERR_FORMAT, "%s:%ld: expected 'element_id part'", path, lineno);
      break;
    }
    while (isspace((unsigned char)*e2)) e2++;
    if (*e2 && *e2 != '#') {
      status = mxn_error_set(err, MXN_ERR_FORMAT, "%s:%ld: expected 'element_id part'", path, lineno);
      break;
    }
    if (id_range) {
      status = mxn_error_set(err, MXN_ERR_FORMAT,
                             "%s:%ld: element id is outside the 64-bit range", path, lineno);
      break;
    }
    if (pt_range || pt < 0 || pt >= nparts) {
      status = mxn_error_set(err, MXN_ERR_FORMAT, "%s:%ld: part %ld is outside 0..%d", path, lineno,
                             pt, nparts - 1);
      break;
    }
    int64_t k = mxn__lower_bound(ids, n, id);
    if (k < n && ids[k] == id) {
      if (seen[k] && part[k] != (int)pt) {
        status = mxn_error_set(err, MXN_ERR_FORMAT, "%s:%ld: element %lld is given part %ld, "
                               "and part %d on an earlier line", path, lineno, id, pt, part[k]);
        break;
      }
      part[k] = (int)pt;
      seen[k] = 1;
    }
  }
  if (!line) status = MXN_ERR_NOMEM;
  free(line);
  for (int64_t k = 0; k < n && status == MXN_OK; k++)
    if (!seen[k])
      status = mxn_error_set(err, MXN_ERR_FORMAT, "%s: element %lld has no part", path,
                             (long long)ids[k]);
  free(seen);
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
  if (MPI_Exscan(&mine, &before, 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) return MXN_ERR_MPI;
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) before = 0;
  if (MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) return MXN_ERR_MPI;
  int64_t cnt = n, cbefore = 0, ctotal = 0;
  MPI_Exscan(&cnt, &cbefore, 1, MPI_INT64_T, MPI_SUM, comm);
  if (rank == 0) cbefore = 0;
  MPI_Allreduce(&cnt, &ctotal, 1, MPI_INT64_T, MPI_SUM, comm);
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
static int element_quality(const mxn_structure_t *s, const mxn_piece_t *pc, double **out) {
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
static int quality_edge_weights(MPI_Comm comm, int64_t n, const int64_t *adj_off, double *w) {
  int64_t m = adj_off ? adj_off[n] : 0, total = 0;
  double mx = 0, gmx = 0;
  for (int64_t i = 0; i < m; i++) {
    w[i] = 1.0 / (w[i] > 1e-3 ? w[i] : 1e-3);
    if (w[i] > mx) mx = w[i];
  }
  if (MPI_Allreduce(&mx, &gmx, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS ||
      MPI_Allreduce(&m, &total, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
    return MXN_ERR_MPI;
  /* Uniform meshes (every edge at the maximum) keep plain weights. */
  double mn = gmx, gmn = gmx;
  for (int64_t i = 0; i < m; i++)
    if (w[i] < mn) mn = w[i];
  MPI_Allreduce(&mn, &gmn, 1, MPI_DOUBLE, MPI_MIN, comm);
  if (gmx > 0 && gmn < 0.9 * gmx)
    for (int64_t i = 0; i < m; i++)
      if (w[i] >= 0.9 * gmx) w[i] = (double)total + 1;
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
      if ((status = mxn_extract(ds, &want, &xo, &pc)) != MXN_OK) {
        mxn_error_set(err, status, "%s", mxn_dataset_errmsg(ds));
        goto done;
      }
      mxn_load_opts_t plain;
      mxn_load_opts_init(&plain);
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

/* Is the element at position `pos` of member `file` in a selected block? */
static int block_selected(const mxn_dataset_t *ds, const int *selection, int file, int64_t pos) {
  if (!selection) return 1;
  const mxn__blocks_t *kb = &ds->files[file].kb[MXN__ELEM];
  for (int q = 0; q < kb->nblk; q++) {
    int b = kb->blk_of_file[q];
    if (pos >= kb->blk_start[b] && pos < kb->blk_start[b] + kb->blk_count[b]) return selection[b] != 0;
  }
  return 0;
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
  if (!mxn__all_ok(comm, fw && all && group)) { /* before the sum all take part in */
    status = MXN_ERR_NOMEM;
    goto done;
  }
  for (int64_t k = 0; k < n; k++) fw[file[k]] += w[k];
  if (MPI_Allreduce(fw, all, M, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) {
    status = MXN_ERR_MPI;
    goto done;
  }
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

/* The halo of the owned piece (seed lfric-distributed-memory-halos.txt):
 * layers found through the node rendezvous, each built from its owners'
 * records (or read through its own cover) and appended to the piece, so
 * each block holds owned elements, then depth 1, 2, ..., L. */
void mxn__load_halo_free(mxn_load_halo_t *h, int nb) { halo_free(h, nb); }

/* Whether ghost elements are built from their owners' records (no element
 * refers to edges or faces, none is a polygon or polyhedron); otherwise
 * they are read through the id maps, which queries the directory. */
static int halo_from_owners(const mxn_structure_t *s) {
  for (int b = 0; b < s->num_blocks; b++)
    if (s->blocks[b].edges_per_elem > 0 || s->blocks[b].faces_per_elem > 0 || s->blocks[b].poly)
      return 0;
  return 1;
}

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
  gid_owner_t *go = NULL;
  mxn_idset_t G = MXN_IDSET_INIT;
  mxn_piece_t *more = NULL;
  mxn_piece_t *pc = ld->piece;
  int64_t owned_nodes = pc->num_nodes;
  mxn__halo_xchg_free(&ld->hx);

  /* Local work until the next collective step: one agreement covers it. */
  status = mxn__halo_find(ld->comm, s, pc, L, &hf, e);
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

  /* Each layer appended after the last. */
  mxn_io_counters_t c0 = mxn_dataset_counters(ld->ds);
  mask = mxn__calloc((size_t)M + 1, 1);
  used = mxn__calloc((size_t)M + 1, 1);
  if (status == MXN_OK && (!mask || !used))
    status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
  /* Elements referring to edges or faces (or polygons, polyhedra) are read
   * through the id maps; all others come from their owners' records. */
  int from_owners = halo_from_owners(s);
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

  /* Depth and owner of every element; owner of every node. */
  go = mxn__malloc(((size_t)hf.ng + 1) * sizeof *go);
  h->node_owner = mxn__malloc(((size_t)pc->num_nodes + 1) * sizeof *h->node_owner);
  if (!go || !h->node_owner) status = MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < hf.ng; i++) go[i] = (gid_owner_t){hf.gid[i], hf.owner[i]};
  if (status == MXN_OK) status = mxn__radix_sort(go, hf.ng, sizeof *go);
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
          gid_owner_t *f = bsearch(&key, go, (size_t)hf.ng, sizeof *go, cmp_gid_owner);
          h->elem_owner[b][i] = f ? f->owner : -1;
        }
      }
  }
  for (int64_t v = 0; status == MXN_OK && v < owned_nodes; v++) h->node_owner[v] = hf.node_owner[v];
  if (status != MXN_OK) mxn_error_set(e, status, "out of memory on rank %d", R);
  if (status == MXN_OK) {
    /* Nodes the halo added: their owners came with the records (each
     * element's owner knows the owners of its nodes). */
    int64_t nq = 0;
    for (int64_t i = 0; i < hf.ng; i++) nq += hf.rec[hf.rec_at[i] + 1];
    gid_owner_t *no = mxn__malloc(((size_t)nq + 1) * sizeof *no);
    if (!no) status = MXN_ERR_NOMEM;
    nq = 0;
    for (int64_t i = 0; status == MXN_OK && i < hf.ng; i++) {
      const int64_t *r = hf.rec + hf.rec_at[i];
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
  free(go);
  return status;
}

/* mxn_load_open() and mxn_load_open_dataset(): `given` is a dataset
 * already opened collectively (taken over, destroyed on failure), or NULL
 * to open `path`. */
static int load_open(MPI_Comm comm, const char *path, mxn_dataset_t *given,
                     const mxn_load_opts_t *opts, mxn_load_t **out, mxn_error_t *err) {
  mxn_load_opts_t defaults;
  mxn_load_opts_init(&defaults);
  if (!opts) opts = &defaults;
  if (!out) {
    mxn_dataset_destroy(&given);
    return mxn_error_set(err, MXN_ERR_ARG, "mxn_load_open: no output handle");
  }
  *out = NULL;
  int status = MXN_OK;
  mxn_error_t e;
  mxn_error_clear(&e);
  double t0 = now();
  mxn_load_t *ld = mxn__calloc(1, sizeof *ld);
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) status = mxn_error_set(&e, MXN_ERR_MPI, "MPI_Comm_dup failed");
  if (!ld) {
    status = mxn_error_set(&e, MXN_ERR_NOMEM, "out of memory");
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    mxn_dataset_destroy(&given);
  } else {
    ld->comm = dup;
    ld->ds = given; /* the load's from here: closed with it */
  }
  if ((status = mxn_agree(comm, status, &e)) != MXN_OK) goto fail;
  MPI_Comm_rank(ld->comm, &ld->rank);
  MPI_Comm_size(ld->comm, &ld->size);
  int N = ld->size, R = ld->rank;
  ld->st.rank = R;
  ld->st.nranks = N;

  mxn_directory_t *dir = NULL;
  mxn_gid_t *pub_ids = NULL, *ids0 = NULL, *pids = NULL;
  int32_t *file0 = NULL;
  int64_t *adj_off = NULL;
  mxn_gid_t *adj_ids = NULL;
  int *adj_ranks = NULL;
  double *edge_w = NULL;
  int32_t *pub_file = NULL, *qfile = NULL;
  int64_t *pub_pos = NULL, *qoff = NULL, *qpos = NULL;
  int64_t npub = 0, n0 = 0;
  double *w0 = NULL, *cent = NULL;
  double wscale = 1.0; /* weights are divided by their maximum */
  double ow_scaled = 0; /* my owned weight in those units */
  int *part = NULL;
  moving_t *mv = NULL, *mine = NULL;
  int64_t nmine = 0;
  mxn_piece_t *pc0 = NULL;
  mxn_idset_t P = MXN_IDSET_INIT, S0 = MXN_IDSET_INIT;
  char *mask = NULL, *mask0 = NULL;
  mxn_idset_t *F = NULL;
  mxn_cover_t cov;
  memset(&cov, 0, sizeof cov);

  /* 1. Structure, on every rank; the same failure everywhere. */
  if (opts->imbalance_tol != 0 && opts->imbalance_tol < 1.0)
    status = mxn_error_set(&e, MXN_ERR_ARG, "imbalance tolerance %g is below 1", opts->imbalance_tol);
  if (status == MXN_OK && (opts->ghost_levels < 0 || opts->ghost_levels > 100))
    status = mxn_error_set(&e, MXN_ERR_ARG, "ghost levels %d is outside 0..100", opts->ghost_levels);
  if (status == MXN_OK && !given) status = mxn_dataset_create(&ld->ds);
  if (status != MXN_OK && !e.msg[0]) mxn_error_set(&e, status, "cannot create a dataset on rank %d", R);
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  if (!given && (status = mxn__dataset_open_members(ld->comm, ld->ds, path, &e)) != MXN_OK) goto done;
  mxn_dataset_t *ds = ld->ds;
  if (given) path = mxn_dataset_file_path(ds, 0);
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  int M = s->num_files;
  int fbeg = (int)((int64_t)R * M / N), fend = (int)((int64_t)(R + 1) * M / N);
  ld->st.seconds_open = now() - t0;

  /* 2. My files' element domains, published in the directory. */
  double t1 = now();
  mxn_io_counters_t c0 = mxn_dataset_counters(ds);
  for (int j = fbeg; j < fend && status == MXN_OK; j++) {
    const mxn_file_domain_t *d;
    if ((status = mxn_dataset_file_domain(ds, j, &d)) != MXN_OK) break;
    npub += d->elems.n;
  }
  if (status != MXN_OK) mxn_error_set(&e, status, "%s", mxn_dataset_errmsg(ds));
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  pub_ids = mxn__malloc(((size_t)npub + 1) * sizeof *pub_ids);
  pub_file = mxn__malloc(((size_t)npub + 1) * sizeof *pub_file);
  pub_pos = mxn__malloc(((size_t)npub + 1) * sizeof *pub_pos);
  if (!pub_ids || !pub_file || !pub_pos) status = mxn_error_set(&e, MXN_ERR_NOMEM, "out of memory");
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  {
    int64_t k = 0;
    for (int j = fbeg; j < fend; j++) {
      const mxn_file_domain_t *d = ds->files[j].dom;
      /* in file position order, so the "files" string follows the files */
      for (int64_t q = 0; q < d->num_elements; q++) {
        pub_ids[k] = d->elem_map[q];
        pub_file[k] = j;
        pub_pos[k] = q;
        k++;
      }
    }
  }
  if ((status = mxn_directory_create(ld->comm, npub, pub_ids, pub_file, pub_pos, &dir, &e)) != MXN_OK)
    goto done;
  /* Ids stored once over the set (members that do not overlap, the usual
   * case): each element's initial owner is the member that published it
   * and the partition carries each id's member along, so neither the
   * owners' nor the part's directory query is needed. */
  int unique = 0;
  {
    int64_t distinct = 0, total = 0;
    mxn_gid_t dup = -1;
    int32_t fa = -1, fb = -1;
    if ((status = mxn_directory_distinct(dir, &distinct, &dup, &fa, &fb, &e)) != MXN_OK) goto done;
    if (MPI_Allreduce(&npub, &total, 1, MPI_INT64_T, MPI_SUM, ld->comm) != MPI_SUCCESS) {
      status = mxn_error_set(&e, MXN_ERR_MPI, "MPI_Allreduce failed counting the published ids");
      goto done;
    }
    unique = distinct == total;
    /* The count the set declares (Nemesis) against the distinct ids its
     * members hold: fewer means one id was given to two elements. The
     * same answer on every rank. */
    int declared = s->num_elements_global >= 0;
    if (declared && distinct != s->num_elements_global && dup >= 0)
      status = mxn_error_set(&e, MXN_ERR_FORMAT,
                             "%s: element %lld is also stored in %s: the members hold %lld "
                             "distinct element ids where their Nemesis global counts say %lld "
                             "(one id given to two elements?)",
                             mxn_dataset_file_path(ds, fb), (long long)dup,
                             mxn_dataset_file_path(ds, fa), (long long)distinct,
                             (long long)s->num_elements_global);
    else if (declared && distinct != s->num_elements_global)
      status = mxn_error_set(&e, MXN_ERR_FORMAT,
                             "%s: the members hold %lld distinct element ids where their "
                             "Nemesis global counts say %lld",
                             mxn_dataset_file_path(ds, 0), (long long)distinct,
                             (long long)s->num_elements_global);
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  }
  /* Nothing below queries the directory of a set whose ids are stored
   * once, unless a re-balance keeps it or the ghosts are read through the
   * id maps: its memory goes before the piece's arrives. */
  if (unique && !opts->dynamic && (opts->ghost_levels == 0 || halo_from_owners(s)))
    mxn_directory_destroy(&dir);

  /* A node id several members store has the same coordinates in each. */
  {
    double tc = now();
    mxn_io_counters_t cc = mxn_dataset_counters(ds);
    if ((status = mxn__check_shared_nodes(ld->comm, ds, fbeg, fend, &e)) != MXN_OK) goto done;
    ld->st.check_bytes_read = mxn__data_bytes(mxn_dataset_counters(ds)) - mxn__data_bytes(cc);
    ld->st.seconds_check = now() - tc;
  }

  /* 3. Initial owners: an element held by several files belongs, for now,
   * to the owner of the lowest of them. */
  if (!unique) {
    status = mxn_directory_query(dir, npub, pub_ids, &qoff, &qfile, &qpos, &e);
    if (status != MXN_OK) goto done;
  }
  /* From here to the partition's agreement no rank may leave alone: an
   * allocation that fails is agreed there (the others would wait in the
   * partition's exchanges). */
  ids0 = mxn__malloc(((size_t)npub + 1) * sizeof *ids0);
  file0 = mxn__malloc(((size_t)npub + 1) * sizeof *file0);
  part = mxn__malloc(((size_t)npub + 1) * sizeof *part);
  if (!ids0 || !file0 || !part)
    status = mxn_error_set(&e, MXN_ERR_NOMEM, "rank %d: out of memory for %lld element ids", R,
                           (long long)npub);
  for (int64_t k = 0; status == MXN_OK && k < npub; k++)
    if ((unique || (qoff[k + 1] > qoff[k] && qfile[qoff[k]] == pub_file[k] &&
                    qpos[qoff[k]] == pub_pos[k])) &&
        block_selected(ds, opts->block_selection, pub_file[k], pub_pos[k])) {
      file0[n0] = pub_file[k];
      ids0[n0++] = pub_ids[k];
    }
  MXN_FREE(qoff);
  MXN_FREE(qfile);
  MXN_FREE(qpos);
  /* The published lists are done with (the directory holds its own copy):
   * what a load no longer needs goes before the piece is read, so the
   * piece's arrays reuse that memory rather than new pages. */
  MXN_FREE(pub_ids);
  MXN_FREE(pub_file);
  MXN_FREE(pub_pos);

  /* 4. Partition: only ids (and weights) move. */
  t1 = now();
  mxn_part_method method = opts->method;
  int need_geom = method == MXN_PART_SFC || method == MXN_PART_RCB || method == MXN_PART_RIB ||
                  method == MXN_PART_HSFC || method == MXN_PART_GRAPH;
  if (status == MXN_OK && method == MXN_PART_MAP && !opts->map_file)
    status = mxn_error_set(&e, MXN_ERR_ARG, "the map method needs a map file");
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  memset(part, 0, ((size_t)n0 + 1) * sizeof *part);
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
      status = mxn_error_set(&e, MXN_ERR_NOMEM, "rank %d: out of memory", R);
    for (int j = fbeg; mask0 && j < fend; j++) mask0[j] = 1;
    xo.file_mask = mask0; /* my elements are all in my files: open no other */
    if (status == MXN_OK && (status = mxn_idset_from_array(ids0, n0, &S0)) != MXN_OK)
      mxn_error_set(&e, status, "rank %d: out of memory", R);
    if (status == MXN_OK && (status = mxn_extract(ds, &S0, &xo, &pc0)) != MXN_OK)
      mxn_error_set(&e, status, "%s", mxn_dataset_errmsg(ds));
    /* Reads of my members may fail here alone (a damaged member): agree
     * before anything collective follows. */
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    {
      mxn_gid_t *gid_order = NULL;
      status = geometry_and_weights(ds, pc0, opts, need_geom, &cent, &w0, &gid_order, &e);
      status = mxn_agree(ld->comm, status, &e);
      if (status == MXN_OK && method == MXN_PART_GRAPH) {
        double *quality = NULL;
        status = element_quality(s, pc0, &quality);
        if (status != MXN_OK) mxn_error_set(&e, status, "rank %d: out of memory", R);
        if ((status = mxn_agree(ld->comm, status, &e)) == MXN_OK) {
          status = mxn__dual_graph_dist(ld->comm, N, R, s, pc0, gid_order, quality, &adj_off, &adj_ids,
                                   &adj_ranks, &edge_w);
          if (status != MXN_OK)
            mxn_error_set(&e, status, "rank %d: building the dual graph failed: %s", R,
                          mxn_strerror(status));
          if ((status = mxn_agree(ld->comm, status, &e)) == MXN_OK)
            status = quality_edge_weights(ld->comm, pc0->num_elements, adj_off, edge_w);
        }
        free(quality);
      }
      if (status == MXN_OK && method == MXN_PART_FILES) {
        /* The files string keeps (file, position) order: look the weights
         * up for ids0 rather than adopting the piece's order. */
        mxn_idset_t byid = MXN_IDSET_INIT;
        int64_t *at = NULL;
        double *wf = mxn__malloc(((size_t)n0 + 1) * sizeof *wf);
        status = wf ? mxn_idset_from_array_pos(gid_order, n0, &byid, &at) : MXN_ERR_NOMEM;
        /* at[i]: place of gid_order[i] in byid; invert it in place of a search */
        int64_t *inv = status == MXN_OK ? mxn__malloc(((size_t)n0 + 1) * sizeof *inv) : NULL;
        if (status == MXN_OK && !inv) status = MXN_ERR_NOMEM;
        for (int64_t i = 0; status == MXN_OK && i < n0; i++) inv[at[i]] = i;
        for (int64_t k = 0; status == MXN_OK && k < n0; k++) {
          int64_t q = mxn_idset_find(&byid, ids0[k]);
          wf[k] = q >= 0 ? w0[inv[q]] : 0.0;
        }
        free(inv);
        mxn_idset_free(&byid);
        free(at);
        free(gid_order);
        free(w0);
        w0 = wf;
      } else if (status == MXN_OK) {
        free(ids0);
        ids0 = gid_order; /* piece order from here on */
        if (unique) status = files_in_piece_order(pc0, file0); /* and their members */
      } else {
        free(gid_order);
      }
    }
    mxn_piece_destroy(&pc0);
    /* the weights' scaling below is collective: what failed so far first */
    if (status != MXN_OK && !e.msg[0])
      mxn_error_set(&e, status, "rank %d: reading the partition's weights failed: %s", R,
                    mxn_strerror(status));
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    if (opts->weight_field) {
      /* Only ratios matter: scale by the largest weight first, so sums of
       * weights near DBL_MAX stay finite. No element may weigh 0: floor at
       * 1e-6 of the mean. */
      double mx = 0, gmx = 0;
      for (int64_t k = 0; k < n0; k++)
        if (w0[k] > mx) mx = w0[k];
      MPI_Allreduce(&mx, &gmx, 1, MPI_DOUBLE, MPI_MAX, ld->comm);
      if (gmx > 0) {
        for (int64_t k = 0; k < n0; k++) w0[k] /= gmx;
        wscale = gmx;
      }
      double sum = 0, tot = 0;
      int64_t cnt = n0, ctot = 0;
      for (int64_t k = 0; k < n0; k++) sum += w0[k];
      MPI_Allreduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM, ld->comm);
      MPI_Allreduce(&cnt, &ctot, 1, MPI_INT64_T, MPI_SUM, ld->comm);
      double floor_w = ctot > 0 && tot > 0 ? 1e-6 * tot / ctot : 1.0;
      for (int64_t k = 0; k < n0; k++)
        if (w0[k] < floor_w) w0[k] = floor_w;
    }
  } else {
    /* no goto here: the agree below tells the other ranks */
    w0 = mxn__malloc(((size_t)n0 + 1) * sizeof *w0);
    if (!w0)
      status = mxn_error_set(&e, MXN_ERR_NOMEM, "rank %d: out of memory", R);
    for (int64_t k = 0; w0 && k < n0; k++) w0[k] = 1.0;
  }
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  ld->st.partition_bytes_read = mxn__data_bytes(mxn_dataset_counters(ds)) - mxn__data_bytes(cp0);
  int whole = 0;
  if (method == MXN_PART_FILES) {
    /* Whole files first: if some contiguous grouping of the files meets
     * the tolerance, no file is cut at all. */
    status = parts_from_whole_files(ld->comm, N, M, n0, file0, w0,
                                    opts->imbalance_tol > 1 ? opts->imbalance_tol : 1.05, part,
                                    &whole);
    if (status != MXN_OK)
      mxn_error_set(&e, status, "partitioning by files failed on rank %d: %s", R,
                    mxn_strerror(status));
    /* Every step below is agreed before the next collective one, so a rank
     * that failed alone (a member it read is damaged) never leaves the
     * others waiting in a collective it skipped. */
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  }
  if (method == MXN_PART_FILES && !whole) {
    status = parts_from_files(ld->comm, N, n0, w0, part);
    if (status != MXN_OK)
      mxn_error_set(&e, status, "partitioning by files failed on rank %d: %s", R,
                    mxn_strerror(status));
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    /* A file the string cuts is cut along the Hilbert curve of its
     * elements, not along its storage order: reorder such files' elements
     * (they are contiguous here and owned by this rank) and cut again.
     * Uncut files keep their place, so they stay whole. */
    int cut_any = 0;
    status = hilbert_order_cut_files(ds, fbeg, fend, n0, ids0, file0, w0, part, &cut_any, &e);
    if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
    int any = cut_any;
    MPI_Allreduce(&cut_any, &any, 1, MPI_INT, MPI_MAX, ld->comm);
    if (any) status = parts_from_files(ld->comm, N, n0, w0, part);
    if (status != MXN_OK)
      mxn_error_set(&e, status, "partitioning by files failed on rank %d: %s", R,
                    mxn_strerror(status));
  } else if (method == MXN_PART_FILES) {
    /* whole files: the parts are decided (and agreed) above */
  } else if (method == MXN_PART_MAP) {
    /* ids must be sorted for the lookup: they are unless weights reordered */
    int64_t *perm = NULL;
    mxn_idset_t sorted = MXN_IDSET_INIT;
    status = mxn_idset_from_array_pos(ids0, n0, &sorted, &perm);
    int *sp = NULL;
    if (status == MXN_OK) {
      sp = mxn__calloc((size_t)n0 + 1, sizeof *sp);
      if (!sp) status = MXN_ERR_NOMEM;
    }
    if (status == MXN_OK) status = parts_from_map(opts->map_file, N, sorted.n, sorted.ids, sp, &e);
    if (status == MXN_OK)
      for (int64_t k = 0; k < n0; k++) part[k] = sp[perm[k]];
    free(sp);
    free(perm);
    mxn_idset_free(&sorted);
  } else {
    mxn_part_input_t in;
    memset(&in, 0, sizeof in);
    in.n = n0;
    in.dim = need_geom ? s->num_dim : 0;
    in.ids = ids0;
    in.centroids = cent;
    in.weights = w0;
    in.adj_off = adj_off;
    in.adj_ids = adj_ids;
    in.adj_ranks = adj_ranks;
    in.edge_weights = edge_w;
    mxn_part_opts_t po;
    memset(&po, 0, sizeof po);
    po.imbalance_tol = opts->imbalance_tol;
    status = mxn_partition(ld->comm, method, &in, N, &po, part, &e);
  }
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  /* short of memory, a rank still calls the exchange, which then fails
   * everywhere (mxn__send_to_if) */
  mv = mxn__malloc(((size_t)n0 + 1) * sizeof *mv);
  if (!mv)
    status = mxn_error_set(&e, MXN_ERR_NOMEM, "rank %d: out of memory moving %lld element ids", R,
                           (long long)n0);
  for (int64_t k = 0; mv && k < n0; k++) mv[k] = (moving_t){ids0[k], w0[k], file0[k], 0};
  int sent = mxn__send_to_if(ld->comm, N, status, mv, sizeof *mv, n0, part, (void **)&mine, &nmine);
  if (status == MXN_OK && sent != MXN_OK)
    status = mxn_error_set(&e, sent, "moving element ids to their owners failed: %s",
                           mxn_strerror(sent));
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  /* Sent: the partition's inputs are done with. */
  MXN_FREE(mv);
  MXN_FREE(ids0);
  MXN_FREE(file0);
  MXN_FREE(w0);
  MXN_FREE(cent);
  MXN_FREE(part);
  if (mxn__radix_sort(mine, nmine, sizeof *mine) != MXN_OK) status = MXN_ERR_NOMEM;
  /* agreed below, before the collective query */
  if (!(pids = mxn__malloc(((size_t)nmine + 1) * sizeof *pids))) status = MXN_ERR_NOMEM;
  ld->st.owned_weight = 0;
  for (int64_t k = 0; status == MXN_OK && k < nmine; k++) {
    pids[k] = mine[k].id;
    ld->st.owned_weight += mine[k].w;
  }
  ow_scaled = ld->st.owned_weight;
  ld->st.owned_weight *= wscale; /* in the field's units */
  ld->st.owned_elements = nmine;
  ld->st.seconds_partition = now() - t1;

  /* 5. My part's cover: where its elements are, the greedy choice of
   * files, then the piece read from those files alone. */
  t1 = now();
  if (status == MXN_OK) status = mxn_idset_from_array(pids, nmine, &P);
  if (status != MXN_OK) mxn_error_set(&e, status, "rank %d: out of memory sorting its part", R);
  /* agreed before the collective query, so no rank skips it alone */
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  if (unique) {
    /* each id once, with the member it came with (mine: sorted like P) */
    qoff = mxn__malloc(((size_t)P.n + 1) * sizeof *qoff);
    qfile = mxn__malloc(((size_t)P.n + 1) * sizeof *qfile);
    status = qoff && qfile ? MXN_OK : mxn_error_set(&e, MXN_ERR_NOMEM, "rank %d: out of memory", R);
    if (status == MXN_OK && P.n != nmine)
      status = mxn_error_set(&e, MXN_ERR_INCONSISTENT, "rank %d: an element id reached it twice", R);
    for (int64_t k = 0; status == MXN_OK && k < P.n; k++) {
      qoff[k] = k;
      qfile[k] = mine[k].file;
    }
    if (status == MXN_OK) qoff[P.n] = P.n;
  } else {
    status = mxn_directory_query(dir, P.n, P.ids, &qoff, &qfile, &qpos, &e);
  }
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  {
    /* F_j ∩ P for every file j that holds some of P (a failure here is
     * agreed after the cover: no collective call comes before). Where
     * each id is stored once, every F_j is disjoint from the others and
     * the greedy cover takes each non-empty one: the mask is the members
     * holding any of P, without the cover's intersections (59 of the
     * load's 252 M instructions in intersections, one rank reading 1M
     * hex in 64 members). */
    mask = mxn__calloc((size_t)M + 1, sizeof *mask);
    int64_t *cnt = mxn__calloc((size_t)M + 1, sizeof *cnt);
    F = unique ? NULL : mxn__calloc((size_t)M + 1, sizeof *F);
    if (!mask || !cnt || (!unique && !F)) status = MXN_ERR_NOMEM;
    for (int64_t i = 0; status == MXN_OK && i < qoff[P.n]; i++) cnt[qfile[i]]++;
    for (int j = 0; status == MXN_OK && j < M; j++) {
      if (cnt[j] > 0) ld->st.files_overlapping++;
      if (unique) {
        mask[j] = cnt[j] > 0;
        continue;
      }
      F[j].ids = cnt[j] ? mxn__malloc((size_t)cnt[j] * sizeof *F[j].ids) : NULL;
      if (cnt[j] && !F[j].ids) status = MXN_ERR_NOMEM;
    }
    free(cnt);
    if (!unique) {
      for (int64_t k = 0; k < P.n && status == MXN_OK; k++)
        for (int64_t i = qoff[k]; i < qoff[k + 1]; i++) F[qfile[i]].ids[F[qfile[i]].n++] = P.ids[k];
      if (status == MXN_OK) status = mxn__cover_greedy(&P, F, M, 0, &cov);
      if (status == MXN_OK && cov.uncovered.n > 0)
        status = mxn_error_set(&e, MXN_ERR_NOTFOUND, "element %lld is in no file of %s",
                               (long long)cov.uncovered.ids[0], path);
      for (int c = 0; status == MXN_OK && c < cov.nparts; c++) mask[cov.parts[c].file] = 1;
    }
    if (status == MXN_ERR_NOMEM)
      mxn_error_set(&e, status, "rank %d: out of memory choosing the files to read", R);
  }
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  /* The cover is decided (mask): its inputs go before the piece is read. */
  for (int j = 0; F && j < M; j++) free(F[j].ids);
  MXN_FREE(F);
  mxn_cover_free(&cov);
  MXN_FREE(mine);
  MXN_FREE(pids);
  MXN_FREE(qoff);
  MXN_FREE(qfile);
  MXN_FREE(qpos);
  mxn_io_counters_t c1 = mxn_dataset_counters(ds);
  {
    mxn_extract_opts_t xo;
    memset(&xo, 0, sizeof xo);
    xo.gap = opts->gap >= 0 ? opts->gap : 64;
    xo.gap_share = MXN__GAP_SHARE;
    xo.file_mask = mask;
    if (opts->ghost_levels > 0 && P.n > 0) {
      /* Room for the ghost layers, appended next: about L times the
       * surface of a compact piece, 6 n^(2/3) cells of n. */
      double r = 6.0 * opts->ghost_levels / cbrt((double)P.n);
      xo.reserve = r < 1 ? r : 1;
    }
    xo.node_var_mask = opts->node_var_selection;
    xo.elem_var_mask = opts->elem_var_selection;
    if ((status = mxn_extract(ds, &P, &xo, &ld->piece)) != MXN_OK)
      mxn_error_set(&e, status, "%s", mxn_dataset_errmsg(ds));
  }
  if ((status = mxn_agree(ld->comm, status, &e)) != MXN_OK) goto done;
  ld->st.seconds_plan = now() - t1;
  /* The members' id maps served the partition and the cover; time steps
   * go by the plan and the halo schedule. Without re-balances nothing asks
   * for them again (and what would, reads them anew): on 8M hex over 4
   * ranks they are about 200 MB per rank. Ghost layers built from their
   * owners' records need them neither, so they go before the layers are
   * made (13 of the 87 MB of a rank's high-water on 1M hex, N = 4);
   * layers read through the id maps drop them after. */
  int drop_early = !opts->dynamic && halo_from_owners(s);
  if (drop_early) mxn__dataset_drop_domains(ds);
  if (opts->ghost_levels > 0) {
    double tg = now();
    if ((status = mxn__load_halo(ld, opts, dir, -1, &e)) != MXN_OK) goto done;
    ld->st.seconds_ghost = now() - tg;
  }
  mxn_io_counters_t c2 = mxn_dataset_counters(ds);
  ld->st.cover_files = ld->piece->stats.files_in_cover;
  ld->st.num_nodes = ld->piece->num_nodes;
  ld->st.bytes_read = mxn__data_bytes(c2) - mxn__data_bytes(c1);
  ld->st.map_bytes_read = c2.map_bytes_read - c0.map_bytes_read;
  ld->st.set_bytes_read = c2.set_bytes_read - c0.set_bytes_read;
  ld->st.read_calls = c2.read_calls - c0.read_calls;
  ld->st.files_opened = c2.files_opened;
  {
    /* What the piece itself needs from the files: its entries with their
     * numbered-map values; no gaps, no id maps, no sets, not the ghosts
     * their owners sent. */
    const mxn_piece_t *pc = ld->piece;
    const mxn__halo_xchg_t *hx = ld->hx;
    int64_t own_nodes = hx ? hx->own_nodes : pc->num_nodes;
    int64_t b = own_nodes * (s->num_dim + pc->num_node_maps) * (int64_t)sizeof(double);
    /* Blocks of every kind: node, edge and face references (poly blocks:
     * their references and one count per entry), attributes. */
    for (int kind = 0; kind < MXN__NBK; kind++) {
      int nb;
      const mxn_block_info_t *sb = mxn__sblocks(s, kind, &nb);
      const mxn_piece_block_t *pbs = mxn__pblocks(pc, kind, &nb);
      for (int k = 0; k < nb; k++) {
        const mxn_piece_block_t *pb = &pbs[k];
        int64_t ne = hx && kind == MXN__ELEM ? hx->own_elems[k] : pb->num_elements;
        int nmaps = kind == MXN__ELEM   ? pc->num_elem_maps
                    : kind == MXN__EDGE ? pc->num_edge_maps
                                        : pc->num_face_maps;
        int64_t refs = ne * (sb[k].nodes_per_elem + sb[k].edges_per_elem +
                             sb[k].faces_per_elem + sb[k].num_attr + nmaps);
        if (sb[k].poly == MXN_POLY_NSIDED && pb->conn_off)
          refs += pb->conn_off[pb->num_elements] + pb->num_elements;
        if (sb[k].poly == MXN_POLY_NFACED && pb->face_off)
          refs += pb->face_off[pb->num_elements] + pb->num_elements;
        b += refs * (int64_t)sizeof(double);
      }
    }
    ld->st.bytes_needed = b;
  }
  ld->st.total_elements = 0;
  MPI_Allreduce(&ld->st.owned_elements, &ld->st.total_elements, 1, MPI_INT64_T, MPI_SUM, ld->comm);
  {
    /* in the scaled units, where sums of huge weights stay finite */
    double mine = ow_scaled, mx = 0, sum = 0;
    MPI_Allreduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, ld->comm);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, ld->comm);
    ld->st.imbalance = sum > 0 ? mx / (sum / N) : 1.0;
  }
  ld->st.seconds_read = now() - t1;
  if (opts->dynamic) {
    /* what a later re-balance needs: the directory and the options */
    ld->dynamic = 1;
    ld->dir = dir;
    dir = NULL;
    ld->o = *opts;
    ld->o.block_selection = NULL; /* used up: the partition is done */
    ld->o.map_file = NULL;
    ld->o.weight_field = NULL;
    ld->o.block_weights = NULL;
    if (opts->node_var_selection) {
      ld->node_sel = mxn__malloc(((size_t)s->num_node_vars + 1) * sizeof *ld->node_sel);
      if (ld->node_sel) memcpy(ld->node_sel, opts->node_var_selection, (size_t)s->num_node_vars * sizeof(int));
      else status = MXN_ERR_NOMEM;
    }
    if (opts->elem_var_selection) {
      ld->elem_sel = mxn__malloc(((size_t)s->num_elem_vars + 1) * sizeof *ld->elem_sel);
      if (ld->elem_sel) memcpy(ld->elem_sel, opts->elem_var_selection, (size_t)s->num_elem_vars * sizeof(int));
      else status = MXN_ERR_NOMEM;
    }
    ld->o.node_var_selection = ld->node_sel;
    ld->o.elem_var_selection = ld->elem_sel;
    if (status != MXN_OK) mxn_error_set(&e, status, "out of memory on rank %d", R);
    status = mxn_agree(ld->comm, status, &e);
  } else if (status == MXN_OK && !drop_early) {
    mxn__dataset_drop_domains(ds); /* the layers were read through them */
  }
done:
  mxn_directory_destroy(&dir);
  free(pub_ids);
  free(pub_file);
  free(pub_pos);
  free(ids0);
  free(file0);
  free(adj_off);
  free(adj_ids);
  free(adj_ranks);
  free(edge_w);
  free(pids);
  free(qoff);
  free(qfile);
  free(qpos);
  free(w0);
  free(cent);
  free(part);
  free(mv);
  free(mine);
  mxn_piece_destroy(&pc0);
  mxn_idset_free(&P);
  mxn_idset_free(&S0);
  free(mask);
  free(mask0);
  if (F)
    for (int j = 0; ld && ld->ds && j < ld->ds->nfiles; j++) free(F[j].ids);
  free(F);
  mxn_cover_free(&cov);
  if (status == MXN_OK) {
    *out = ld;
    return MXN_OK;
  }
fail:
  if (err) *err = e;
  mxn_load_close(&ld);
  return status;
}

int mxn_load_open(MPI_Comm comm, const char *path, const mxn_load_opts_t *opts, mxn_load_t **out,
                  mxn_error_t *err) {
  return load_open(comm, path, NULL, opts, out, err);
}

int mxn_load_open_dataset(MPI_Comm comm, mxn_dataset_t **ds, const mxn_load_opts_t *opts,
                          mxn_load_t **out, mxn_error_t *err) {
  mxn_error_t e;
  mxn_error_clear(&e);
  mxn_dataset_t *given = ds ? *ds : NULL;
  if (ds) *ds = NULL;
  int status = given && mxn_dataset_structure(given) && given->nfiles > 0
                   ? MXN_OK
                   : mxn_error_set(&e, MXN_ERR_ARG, "mxn_load_open_dataset: no open dataset given");
  if ((status = mxn_agree(comm, status, &e)) != MXN_OK) {
    mxn_dataset_destroy(&given);
    if (out) *out = NULL;
    if (err) *err = e;
    return status;
  }
  return load_open(comm, NULL, given, opts, out, err);
}

static int read_step(mxn_load_t *ld, int step, mxn_error_t *err);

int mxn_load_read_step(mxn_load_t *ld, int step, mxn_error_t *err) {
  if (!ld) return mxn_error_set(err, MXN_ERR_ARG, "mxn_load_read_step: no load handle");
  return read_step(ld, step, err);
}

static int read_step(mxn_load_t *ld, int step, mxn_error_t *err) {
  mxn_error_t e;
  mxn_error_clear(&e);
  double t0 = now();
  mxn_io_counters_t c0 = mxn_dataset_counters(ld->ds);
  int status = mxn_piece_read_step(ld->ds, ld->piece, step);
  if (status != MXN_OK) mxn_error_set(&e, status, "%s", mxn_dataset_errmsg(ld->ds));
  status = mxn_agree(ld->comm, status, &e);
  /* ghosts built from records: their values from their owners */
  if (status == MXN_OK && ld->hx) status = mxn__halo_xchg_run(ld->comm, ld->hx, ld->piece, &e);
  if (status != MXN_OK) {
    if (err) *err = e;
    return status;
  }
  mxn_io_counters_t c1 = mxn_dataset_counters(ld->ds);
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  const mxn_piece_t *pc = ld->piece;
  /* from the files: the selected variables' values, all but the ghosts
   * their owners send */
  int nsel = 0;
  for (int v = 0; v < pc->plan_num_node_vars; v++) nsel += pc->node_vars && pc->node_vars[v];
  int64_t need = (ld->hx ? ld->hx->own_nodes : pc->num_nodes) * nsel;
  for (int b = 0; b < pc->num_blocks; b++)
    for (int v = 0; v < s->num_elem_vars; v++)
      if (pc->blocks[b].elem_vars && pc->blocks[b].elem_vars[v])
        need += ld->hx ? ld->hx->own_elems[b] : pc->blocks[b].num_elements;
  ld->st.bytes_needed += need * (int64_t)sizeof(double) + s->num_global_vars * (int64_t)sizeof(double);
  mxn__load_count_reads(ld, c0, c1);
  ld->st.seconds_step = now() - t0;
  return MXN_OK;
}
