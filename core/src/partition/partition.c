/* Element partitioners: contiguous id runs and the Hilbert "string" (the
 * string itself: part_string.c), and Zoltan's RCB, RIB, HSFC and graph
 * (PHG) methods, with Fluidity's empty-part retries (seeds
 * dynamic-load-balance-rankdlb.txt, zoltan-load-balancing-fluidity.txt).
 *
 * Every failure that may be local to one rank is agreed over the
 * communicator (mxn__agree, part_agree.h) before returning, so all ranks
 * leave with the same status and no rank is left waiting in a collective. */
#include "mxn/partition.h"

#include "comm.h"
#include "internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/part_agree.h"
#include "partition/part_string.h"

#include <zoltan.h>

#define MXN__DEFAULT_TOL 1.05

/* ------------------------------------------------------------------ */
/* Method names                                                        */

#define MXN__NAME_OF(e, number, name, label, what) [e] = name,
#define MXN__LABEL_OF(e, number, name, label, what) [e] = label,
static const char *const mxn__method_names[] = {MXN_PART_METHODS(MXN__NAME_OF)};
static const char *const mxn__method_labels[] = {MXN_PART_METHODS(MXN__LABEL_OF)};
#undef MXN__NAME_OF
#undef MXN__LABEL_OF
_Static_assert(sizeof mxn__method_names / sizeof mxn__method_names[0] == MXN_PART_NUM_METHODS,
               "MXN_PART_NUM_METHODS counts the table");
#define MXN__NMETHODS ((int)(sizeof mxn__method_names / sizeof mxn__method_names[0]))

/* ASCII case-insensitive equality; strcasecmp is POSIX, not C11. */
static int mxn__streq_nocase(const char *a, const char *b) {
  for (;; a++, b++) {
    int ca = (unsigned char)*a, cb = (unsigned char)*b;
    if (ca >= 'A' && ca <= 'Z') ca += 'a' - 'A';
    if (cb >= 'A' && cb <= 'Z') cb += 'a' - 'A';
    if (ca != cb) return 0;
    if (ca == 0) return 1;
  }
}

int mxn_part_method_parse(const char *name, mxn_part_method *m) {
  if (!name || !m) return MXN_ERR_ARG;
  for (int i = 0; i < MXN__NMETHODS; i++)
    if (mxn__streq_nocase(name, mxn__method_names[i])) {
      *m = (mxn_part_method)i;
      return MXN_OK;
    }
  return MXN_ERR_ARG;
}

const char *mxn_part_method_name(mxn_part_method m) {
  if ((int)m < 0 || (int)m >= MXN__NMETHODS) return "unknown";
  return mxn__method_names[m];
}

const char *mxn_part_method_label(mxn_part_method m) {
  if ((int)m < 0 || (int)m >= MXN__NMETHODS) return NULL;
  return mxn__method_labels[m];
}

/* ------------------------------------------------------------------ */
/* Hilbert keys                                                        */

#define MXN__HBITS 21

/* Grid coordinate of x on 2^21 cells over [lo, hi]. NaN, a NaN/inf box or a
 * flat axis give 0; the comparisons are written so NaN falls to 0. */
static uint32_t mxn__quantize(double x, double lo, double hi) {
  const uint32_t top = (UINT32_C(1) << MXN__HBITS) - 1;
  double ext = hi - lo;
  if (!(ext > 0) || !isfinite(ext)) return 0;
  double t = (x - lo) / ext;
  if (!(t > 0)) return 0;
  if (t >= 1) return top;
  uint32_t c = (uint32_t)(t * (double)(UINT32_C(1) << MXN__HBITS));
  return c > top ? top : c;
}

/* Skilling, "Programming the Hilbert curve" (AIP Conf. Proc. 707, 2004):
 * axes -> transposed Hilbert index, then the transpose is read out bit
 * plane by bit plane into one 63-bit key. */
static uint64_t mxn__hilbert3(uint32_t x[3]) {
  const uint32_t M = UINT32_C(1) << (MXN__HBITS - 1);
  uint32_t P, Q, t;
  for (Q = M; Q > 1; Q >>= 1) { /* inverse undo */
    P = Q - 1;
    for (int i = 0; i < 3; i++) {
      if (x[i] & Q) {
        x[0] ^= P;
      } else {
        t = (x[0] ^ x[i]) & P;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (int i = 1; i < 3; i++) x[i] ^= x[i - 1]; /* Gray encode */
  t = 0;
  for (Q = M; Q > 1; Q >>= 1)
    if (x[2] & Q) t ^= Q - 1;
  for (int i = 0; i < 3; i++) x[i] ^= t;
  uint64_t key = 0;
  for (int b = MXN__HBITS - 1; b >= 0; b--)
    for (int i = 0; i < 3; i++) key = (key << 1) | ((x[i] >> b) & 1u);
  return key;
}

void mxn_hilbert_keys(int64_t n, const double *xyz, const double lo[3],
                      const double hi[3], uint64_t *key) {
  if (n <= 0 || !xyz || !lo || !hi || !key) return;
  for (int64_t k = 0; k < n; k++) {
    uint32_t c[3];
    for (int d = 0; d < 3; d++) c[d] = mxn__quantize(xyz[3 * k + d], lo[d], hi[d]);
    key[k] = mxn__hilbert3(c);
  }
}

/* ------------------------------------------------------------------ */
/* Dual graph                                                          */

static int mxn__cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int mxn_dual_graph(int64_t n, const int64_t *conn_off, const int64_t *conn,
                   int64_t num_nodes, int min_shared, int64_t **adj_off,
                   int64_t **adj) {
  if (!adj_off || !adj) return MXN_ERR_ARG;
  *adj_off = NULL;
  *adj = NULL;
  if (n < 0 || num_nodes < 0 || min_shared < 1 || (n > 0 && !conn_off))
    return MXN_ERR_ARG;
  if (n > 0) {
    if (conn_off[0] < 0) return MXN_ERR_ARG;
    for (int64_t k = 0; k < n; k++)
      if (conn_off[k + 1] < conn_off[k]) return MXN_ERR_ARG;
    if (conn_off[n] > conn_off[0] && !conn) return MXN_ERR_ARG;
    for (int64_t j = conn_off[0]; j < conn_off[n]; j++)
      if (conn[j] < 0 || conn[j] >= num_nodes) return MXN_ERR_ARG;
  }

  int status = MXN_OK;
  int64_t *nstart = NULL, *cur = NULL, *mark = NULL, *nelem = NULL, *touched = NULL;
  int32_t *shared = NULL;
  int64_t *off = NULL, *out = NULL;
  int64_t cap = 0, len = 0;

  /* Node -> element incidence (CSR). `mark[v] == k` means node v was
   * already seen for element k, so elements listing a node twice
   * (collapsed hexes) count it once. */
  MXN_ALLOC(nstart, num_nodes + 1);
  MXN_ALLOC(mark, num_nodes);
  for (int64_t v = 0; v < num_nodes; v++) mark[v] = -1;
  for (int64_t k = 0; k < n; k++)
    for (int64_t j = conn_off[k]; j < conn_off[k + 1]; j++) {
      int64_t v = conn[j];
      if (mark[v] == k) continue;
      mark[v] = k;
      nstart[v + 1]++;
    }
  for (int64_t v = 0; v < num_nodes; v++) nstart[v + 1] += nstart[v];
  MXN_ALLOC(nelem, nstart[num_nodes]);
  for (int64_t v = 0; v < num_nodes; v++) mark[v] = -1;
  MXN_ALLOC(cur, num_nodes);
  memcpy(cur, nstart, (size_t)num_nodes * sizeof *cur);
  for (int64_t k = 0; k < n; k++)
    for (int64_t j = conn_off[k]; j < conn_off[k + 1]; j++) {
      int64_t v = conn[j];
      if (mark[v] == k) continue;
      mark[v] = k;
      nelem[cur[v]++] = k; /* elements in ascending order per node */
    }

  /* For each element, count shared distinct nodes with every element met
   * through its nodes; only touched counters are reset, so the work is
   * O(connectivity * mean node degree), never O(n^2). */
  MXN_ALLOC(shared, n);
  MXN_ALLOC(touched, n);
  MXN_ALLOC(off, n + 1);
  cap = 4 * n + 16; /* grown by doubling; hexes have 6 face neighbours */
  MXN_ALLOC(out, cap);
  for (int64_t v = 0; v < num_nodes; v++) mark[v] = -1;
  for (int64_t k = 0; k < n; k++) {
    int64_t nt = 0;
    for (int64_t j = conn_off[k]; j < conn_off[k + 1]; j++) {
      int64_t v = conn[j];
      if (mark[v] == k) continue;
      mark[v] = k;
      for (int64_t i = nstart[v]; i < nstart[v + 1]; i++) {
        int64_t e = nelem[i];
        if (e == k) continue;
        if (shared[e]++ == 0) touched[nt++] = e;
      }
    }
    off[k] = len;
    for (int64_t t = 0; t < nt; t++) {
      int64_t e = touched[t];
      if (shared[e] >= min_shared) {
        if (len == cap) {
          int64_t *grown = mxn__realloc(out, (size_t)(2 * cap) * sizeof *out);
          if (!grown) {
            status = MXN_ERR_NOMEM;
            goto done;
          }
          out = grown;
          cap *= 2;
        }
        out[len++] = e;
      }
      shared[e] = 0;
    }
    qsort(out + off[k], (size_t)(len - off[k]), sizeof *out, mxn__cmp_i64);
  }
  off[n] = len;
  if (len < cap) { /* give back the slack; keep the big block if this fails */
    int64_t *fit = mxn__realloc(out, (size_t)(len > 0 ? len : 1) * sizeof *out);
    if (fit) out = fit;
  }
  *adj_off = off;
  *adj = out;
  off = NULL;
  out = NULL;

done:
  free(nstart);
  free(cur);
  free(mark);
  free(nelem);
  free(touched);
  free(shared);
  free(off);
  free(out);
  return status;
}

/* LINEAR: the string in global id order. Flipping the sign bit keeps the
 * order of negative ids under the unsigned key. */
static int mxn__linear(MPI_Comm comm, const mxn_part_input_t *in, int nparts,
                       int *part, mxn_error_t *err) {
  int status = MXN_OK;
  uint64_t *keys = calloc_noted(in->n, sizeof *keys, &status);
  MXN_CHECK(mxn__agree(comm, status, err, "linear"));
  for (int64_t k = 0; k < in->n; k++)
    keys[k] = (uint64_t)in->ids[k] ^ (UINT64_C(1) << 63);
  status = mxn__string_partition(comm, in->n, in->ids, in->weights, keys, nparts, part, err, "linear");
done:
  free(keys);
  return status;
}

/* SFC: the string in Hilbert order over the global bounding box. */
static int mxn__sfc(MPI_Comm comm, const mxn_part_input_t *in, int nparts,
                    int *part, mxn_error_t *err) {
  int status = MXN_OK;
  double box[6], gbox[6], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  uint64_t *keys = calloc_noted(in->n, sizeof *keys, &status);
  MXN_CHECK(mxn__agree(comm, status, err, "sfc"));

  /* min in box[0..3), -max in box[3..6): one MPI_MIN does both. */
  for (int d = 0; d < 6; d++) box[d] = INFINITY;
  for (int64_t k = 0; k < in->n; k++)
    for (int d = 0; d < in->dim; d++) {
      double x = in->centroids[3 * k + d];
      if (x < box[d]) box[d] = x; /* NaN compares false: left out */
      if (-x < box[3 + d]) box[3 + d] = -x;
    }
  memcpy(gbox, box, sizeof gbox);
  if ((status = mxn__comm_reduce_f64(comm, MXN_OK, MXN__MIN, gbox, 6)) != MXN_OK) {
    status = mxn_error_set(err, status, "mxn_partition(sfc): reducing the bounding box failed");
    goto done;
  }
  for (int d = 0; d < in->dim; d++) {
    lo[d] = gbox[d];
    hi[d] = -gbox[3 + d];
  }
  /* Components past dim are documented as 0 but not trusted: a flat box
   * axis maps every point to 0 there. */
  mxn_hilbert_keys(in->n, in->centroids, lo, hi, keys);
  status = mxn__string_partition(comm, in->n, in->ids, in->weights, keys, nparts, part, err, "sfc");
done:
  free(keys);
  return status;
}

/* ------------------------------------------------------------------ */
/* One Zoltan run: the query callbacks over a mxn_part_input_t and the  */
/* parameters of each method                                           */

/* Zoltan's generator is a process-wide static; it is exported but not
 * declared in the installed headers (Trilinos 13: zz/zz_rand.h). Seeding it
 * before each PHG run makes the graph partition independent of what ran
 * before in the same process. It stays: Zoltan has no parameter for the
 * seed (its parameter tables know PARMETIS_SEED, for ParMETIS only, and
 * PHG_RANDOMIZE_INPUT, which only switches the input shuffle), and the
 * library exports Zoltan_Srand under this signature. */
extern void Zoltan_Srand(unsigned int seed, unsigned int *myidum);

typedef struct mxn__zctx {
  const mxn_part_input_t *in;
  int rank;
  int use_ew;
} mxn__zctx;

/* 64-bit ids as two ZOLTAN_ID_TYPE words (unsigned int in Debian's build). */
static void mxn__gid_put(ZOLTAN_ID_PTR g, int64_t id) {
  uint64_t u = (uint64_t)id;
  g[0] = (ZOLTAN_ID_TYPE)(u & 0xffffffffu);
  g[1] = (ZOLTAN_ID_TYPE)(u >> 32);
}

/* Self-loops are dropped: they mean nothing to a partitioner. */
static int mxn__is_self(const mxn__zctx *z, int64_t k, int64_t j) {
  const mxn_part_input_t *in = z->in;
  return in->adj_ids[j] == in->ids[k] && (!in->adj_ranks || in->adj_ranks[j] == z->rank);
}

static int mxn__z_num_obj(void *data, int *ierr) {
  const mxn__zctx *z = data;
  *ierr = ZOLTAN_OK;
  return (int)z->in->n;
}

static void mxn__z_obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids,
                            ZOLTAN_ID_PTR lids, int wdim, float *w, int *ierr) {
  const mxn__zctx *z = data;
  const mxn_part_input_t *in = z->in;
  if (ngid != 2 || nlid != 1) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  for (int64_t k = 0; k < in->n; k++) {
    mxn__gid_put(gids + 2 * k, in->ids[k]);
    lids[k] = (ZOLTAN_ID_TYPE)k;
    if (wdim > 0) {
      double wk = in->weights ? in->weights[k] : 1.0;
      w[k * wdim] = wk > FLT_MAX ? FLT_MAX : (float)wk;
      for (int d = 1; d < wdim; d++) w[k * wdim + d] = 0;
    }
  }
  *ierr = ZOLTAN_OK;
}

static int mxn__z_num_geom(void *data, int *ierr) {
  const mxn__zctx *z = data;
  *ierr = ZOLTAN_OK;
  return z->in->dim;
}

static void mxn__z_geom_multi(void *data, int ngid, int nlid, int num_obj,
                              ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int num_dim,
                              double *geom, int *ierr) {
  const mxn__zctx *z = data;
  const mxn_part_input_t *in = z->in;
  if (nlid != 1 || num_dim != in->dim) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  for (int i = 0; i < num_obj; i++) {
    int64_t k = lids[i];
    for (int d = 0; d < num_dim; d++) geom[i * num_dim + d] = in->centroids[3 * k + d];
  }
  *ierr = ZOLTAN_OK;
}

static void mxn__z_num_edges_multi(void *data, int ngid, int nlid, int num_obj,
                                   ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                                   int *num_edges, int *ierr) {
  const mxn__zctx *z = data;
  const mxn_part_input_t *in = z->in;
  if (nlid != 1) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  for (int i = 0; i < num_obj; i++) {
    int64_t k = lids[i];
    int c = 0;
    for (int64_t j = in->adj_off[k]; j < in->adj_off[k + 1]; j++)
      if (!mxn__is_self(z, k, j)) c++;
    num_edges[i] = c;
  }
  *ierr = ZOLTAN_OK;
}

static void mxn__z_edge_list_multi(void *data, int ngid, int nlid, int num_obj,
                                   ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                                   int *num_edges, ZOLTAN_ID_PTR nbor_gids,
                                   int *nbor_procs, int wdim, float *ewgts,
                                   int *ierr) {
  const mxn__zctx *z = data;
  const mxn_part_input_t *in = z->in;
  if (ngid != 2 || nlid != 1) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  int64_t at = 0;
  for (int i = 0; i < num_obj; i++) {
    int64_t k = lids[i];
    for (int64_t j = in->adj_off[k]; j < in->adj_off[k + 1]; j++) {
      if (mxn__is_self(z, k, j)) continue;
      mxn__gid_put(nbor_gids + 2 * at, in->adj_ids[j]);
      nbor_procs[at] = in->adj_ranks ? in->adj_ranks[j] : z->rank;
      if (wdim > 0) {
        double we = (z->use_ew && in->edge_weights) ? in->edge_weights[j] : 1.0;
        ewgts[at * wdim] = we > FLT_MAX ? FLT_MAX : (float)we;
        for (int d = 1; d < wdim; d++) ewgts[at * wdim + d] = 0;
      }
      at++;
    }
  }
  *ierr = ZOLTAN_OK;
}

static const char *mxn__zoltan_method(mxn_part_method m) {
  switch (m) {
  case MXN_PART_RCB: return "RCB";
  case MXN_PART_RIB: return "RIB";
  case MXN_PART_HSFC: return "HSFC";
  case MXN_PART_GRAPH: return "GRAPH";
  default: return NULL;
  }
}

/* One Zoltan run; the part of every local element lands in part[]. */
static int mxn__zoltan_run(MPI_Comm comm, mxn_part_method method,
                           const mxn_part_input_t *in, int nparts, double tol,
                           int use_w, int use_ew, unsigned seed, int repart, int no_remap,
                           int refine, int *part, mxn_error_t *err) {
  static int initialized = 0;
  const char *name = mxn_part_method_name(method);
  int status = MXN_OK, rank = 0;
  struct Zoltan_Struct *zz = NULL;
  int changes = 0, ngid = 0, nlid = 0, nimp = 0, nexp = 0;
  ZOLTAN_ID_PTR imp_g = NULL, imp_l = NULL, exp_g = NULL, exp_l = NULL;
  int *imp_p = NULL, *imp_to = NULL, *exp_p = NULL, *exp_to = NULL;
  int have_lists = 0;
  mxn__zctx z;
  char buf[64];

  MPI_Comm_rank(comm, &rank);
  z.in = in;
  z.rank = rank;
  z.use_ew = use_ew;

  if (!initialized) {
    float ver;
    if (Zoltan_Initialize(0, NULL, &ver) != ZOLTAN_OK) {
      status = mxn_error_set(err, MXN_ERR_PARTITION,
                             "mxn_partition(%s): Zoltan_Initialize failed", name);
      goto done;
    }
    initialized = 1;
  }
  zz = Zoltan_Create(comm);
  if (!zz) {
    status = mxn_error_set(err, MXN_ERR_PARTITION,
                           "mxn_partition(%s): Zoltan_Create failed", name);
    goto done;
  }

  int zst = ZOLTAN_OK;
#define MXN__ZSET(k, v)                                          \
  do {                                                           \
    if (zst == ZOLTAN_OK && Zoltan_Set_Param(zz, (k), (v)) != ZOLTAN_OK) \
      zst = ZOLTAN_FATAL;                                        \
  } while (0)
  MXN__ZSET("DEBUG_LEVEL", "0");
  MXN__ZSET("LB_METHOD", mxn__zoltan_method(method));
  /* A fresh partition, or (per-step re-balancing) a migration-aware
   * repartition of the input, whose ranks are the current parts. */
  MXN__ZSET("LB_APPROACH", refine && method == MXN_PART_GRAPH ? "REFINE"
                           : repart                            ? "REPARTITION"
                                                               : "PARTITION");
  MXN__ZSET("REMAP", no_remap ? "0" : "1");
  if (repart && method == MXN_PART_RCB) MXN__ZSET("RCB_REUSE", "1");
  MXN__ZSET("NUM_GID_ENTRIES", "2");
  MXN__ZSET("NUM_LID_ENTRIES", "1");
  /* Flags agreed over all ranks: Zoltan hangs if ranks disagree. */
  MXN__ZSET("OBJ_WEIGHT_DIM", use_w ? "1" : "0");
  snprintf(buf, sizeof buf, "%.6f", tol);
  MXN__ZSET("IMBALANCE_TOL", buf);
  /* Every local object with its part, not just the movers. */
  MXN__ZSET("RETURN_LISTS", "PARTITION ASSIGNMENTS");
  snprintf(buf, sizeof buf, "%d", nparts);
  MXN__ZSET("NUM_GLOBAL_PARTS", buf);
  if (method == MXN_PART_GRAPH) {
    MXN__ZSET("GRAPH_PACKAGE", "PHG");
    /* PHG drops hyperedges larger than this fraction of all vertices and
     * warns on stdout when none remain; a dual graph's hyperedges are
     * small, so keep them all (only tiny meshes ever hit the default). */
    MXN__ZSET("PHG_EDGE_SIZE_THRESHOLD", "1.0");
    MXN__ZSET("EDGE_WEIGHT_DIM", use_ew ? "1" : "0");
  }
#undef MXN__ZSET
  if (zst != ZOLTAN_OK) {
    status = mxn_error_set(err, MXN_ERR_PARTITION,
                           "mxn_partition(%s): Zoltan_Set_Param failed", name);
    goto done;
  }

  Zoltan_Set_Num_Obj_Fn(zz, mxn__z_num_obj, &z);
  Zoltan_Set_Obj_List_Fn(zz, mxn__z_obj_list, &z);
  if (method == MXN_PART_GRAPH) {
    Zoltan_Set_Num_Edges_Multi_Fn(zz, mxn__z_num_edges_multi, &z);
    Zoltan_Set_Edge_List_Multi_Fn(zz, mxn__z_edge_list_multi, &z);
    Zoltan_Srand(seed, NULL);
  } else {
    Zoltan_Set_Num_Geom_Fn(zz, mxn__z_num_geom, &z);
    Zoltan_Set_Geom_Multi_Fn(zz, mxn__z_geom_multi, &z);
  }

  int rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &imp_g, &imp_l,
                               &imp_p, &imp_to, &nexp, &exp_g, &exp_l, &exp_p,
                               &exp_to);
  have_lists = 1;
  if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN) {
    status = mxn_error_set(err, rc == ZOLTAN_MEMERR ? MXN_ERR_NOMEM : MXN_ERR_PARTITION,
                           "mxn_partition(%s): Zoltan_LB_Partition failed (code %d) "
                           "on rank %d",
                           name, rc, rank);
    goto done;
  }

  /* Check Zoltan's answer rather than trust it: every local element once,
   * every part in range. */
  for (int64_t k = 0; k < in->n; k++) part[k] = -1;
  for (int i = 0; i < nexp; i++) {
    ZOLTAN_ID_TYPE k = exp_l[i];
    if ((int64_t)k >= in->n || exp_to[i] < 0 || exp_to[i] >= nparts) {
      status = mxn_error_set(err, MXN_ERR_PARTITION,
                             "mxn_partition(%s): Zoltan returned local id %u part %d "
                             "out of range on rank %d",
                             name, (unsigned)k, exp_to[i], rank);
      goto done;
    }
    part[k] = exp_to[i];
  }
  for (int64_t k = 0; k < in->n; k++)
    if (part[k] < 0) {
      status = mxn_error_set(err, MXN_ERR_PARTITION,
                             "mxn_partition(%s): Zoltan gave no part to element %lld "
                             "on rank %d",
                             name, (long long)in->ids[k], rank);
      goto done;
    }

done:
  if (have_lists) {
    Zoltan_LB_Free_Part(&imp_g, &imp_l, &imp_p, &imp_to);
    Zoltan_LB_Free_Part(&exp_g, &exp_l, &exp_p, &exp_to);
  }
  if (zz) Zoltan_Destroy(&zz);
  return status;
}

/* What all ranks agreed on about the input. Ranks with no elements may
 * pass NULL arrays and dim 0; they follow the others. */
typedef struct mxn__global {
  int dim;      /* common dim of ranks with elements */
  int has_w;    /* element weights given */
  int has_ew;   /* edge weights given (graph) */
  int has_cent; /* centroids given by every rank with elements */
} mxn__global;

/* Whether any part in [0, nparts) has no element over the communicator. */
static int mxn__any_empty(MPI_Comm comm, const int *part, int64_t n, int nparts,
                          int *empty, mxn_error_t *err, const char *method) {
  int status = MXN_OK;
  int64_t *cnt = calloc_noted(nparts, sizeof *cnt, &status);
  int64_t *gcnt = calloc_noted(nparts, sizeof *gcnt, &status);
  MXN_CHECK(mxn__agree(comm, status, err, method));
  for (int64_t k = 0; k < n; k++) cnt[part[k]]++;
  memcpy(gcnt, cnt, (size_t)nparts * sizeof *gcnt);
  if ((status = mxn__comm_reduce_i64(comm, MXN_OK, MXN__SUM, gcnt, nparts)) != MXN_OK) {
    status = mxn_error_set(err, status, "mxn_partition(%s): summing the part sizes failed", method);
    goto done;
  }
  *empty = 0;
  for (int p = 0; p < nparts && !*empty; p++)
    if (gcnt[p] == 0) *empty = 1;
done:
  free(cnt);
  free(gcnt);
  return status;
}

/* Zoltan with Fluidity's rule: on an empty part tighten the tolerance,
 * then (graph) drop the edge weights, then cut the Hilbert string, or the
 * id string when there are no centroids. */
static int mxn__zoltan(MPI_Comm comm, mxn_part_method method,
                       const mxn_part_input_t *in, const mxn__global *glob,
                       int nparts, int64_t ntot, double tol, unsigned seed,
                       int repart, int no_remap, int refine, int *part, mxn_error_t *err) {
  const char *name = mxn_part_method_name(method);
  int status = MXN_OK;
  int use_ew = glob->has_ew;
  double t = tol;
  int tightened = 0;
  for (;;) {
    status = mxn__zoltan_run(comm, method, in, nparts, t, glob->has_w, use_ew, seed,
                             repart, no_remap, refine, part, err);
    status = mxn__agree(comm, status, err, name);
    if (status != MXN_OK) return status;
    if (ntot < nparts) return MXN_OK; /* empty parts cannot be avoided */
    int empty = 0;
    status = mxn__any_empty(comm, part, in->n, nparts, &empty, err, name);
    if (status != MXN_OK) return status;
    if (!empty) return MXN_OK;
    if (tightened < 4 && t > 1.01) {
      t = 1.0 + 0.5 * (t - 1.0);
      tightened++;
    } else if (method == MXN_PART_GRAPH && use_ew) {
      use_ew = 0;
      t = tol;
      tightened = 4; /* straight to the string if this fails too */
    } else {
      break;
    }
  }
  if (glob->has_cent) return mxn__sfc(comm, in, nparts, part, err);
  return mxn__linear(comm, in, nparts, part, err);
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */

static int mxn__ge_lookup(const int64_t *sorted, int64_t n, int64_t v) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && sorted[lo] == v;
}

/* Rank-local checks of the input; the caller agrees on the result. */
static int mxn__check_input(mxn_part_method method, const mxn_part_input_t *in,
                            int nparts, const int *part, int rank, int nprocs,
                            mxn_error_t *err) {
  const char *name = mxn_part_method_name(method);
  int status = MXN_OK;
  int64_t *sorted = NULL;
  if ((int)method < 0 || (int)method >= MXN__NMETHODS)
    return mxn_error_set(err, MXN_ERR_ARG, "mxn_partition: unknown method %d (argument 2)",
                         (int)method);
  if (method == MXN_PART_FILES || method == MXN_PART_MAP)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition: method '%s' needs the file layout and is decided "
                         "by the parallel load (load.h), not here",
                         name);
  if (!in)
    return mxn_error_set(err, MXN_ERR_ARG, "mxn_partition(%s): input is NULL (argument 3)",
                         name);
  if (nparts < 1)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(%s): nparts = %d, must be >= 1 (argument 4)",
                         name, nparts);
  if (in->n < 0)
    return mxn_error_set(err, MXN_ERR_ARG, "mxn_partition(%s): n = %lld on rank %d",
                         name, (long long)in->n, rank);
  if (in->n == 0) return MXN_OK;
  if (!part)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(%s): part is NULL (argument 6) on rank %d",
                         name, rank);
  if (!in->ids)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(%s): ids are NULL on rank %d", name, rank);
  if (nprocs > 1 && in->n > INT_MAX)
    return mxn_error_set(err, MXN_ERR_UNSUPPORTED,
                         "mxn_partition(%s): %lld elements on rank %d (at most "
                         "INT_MAX per rank)",
                         name, (long long)in->n, rank);
  if ((method == MXN_PART_RCB || method == MXN_PART_RIB || method == MXN_PART_HSFC ||
       method == MXN_PART_GRAPH) &&
      in->n > INT_MAX)
    return mxn_error_set(err, MXN_ERR_UNSUPPORTED,
                         "mxn_partition(%s): %lld elements on rank %d (Zoltan takes "
                         "at most INT_MAX per rank)",
                         name, (long long)in->n, rank);
  if (in->weights)
    for (int64_t k = 0; k < in->n; k++)
      if (!(in->weights[k] > 0) || !isfinite(in->weights[k]))
        return mxn_error_set(err, MXN_ERR_ARG,
                             "mxn_partition(%s): weight %g of element %lld on rank %d "
                             "is not a finite positive number",
                             name, in->weights[k], (long long)in->ids[k], rank);
  int geometric = method == MXN_PART_SFC || method == MXN_PART_RCB ||
                  method == MXN_PART_RIB || method == MXN_PART_HSFC;
  if (geometric || (in->centroids && method == MXN_PART_GRAPH)) {
    if (!in->centroids)
      return mxn_error_set(err, MXN_ERR_ARG,
                           "mxn_partition(%s): centroids are NULL on rank %d", name,
                           rank);
    if (in->dim < 1 || in->dim > 3)
      return mxn_error_set(err, MXN_ERR_ARG, "mxn_partition(%s): dim = %d, must be 1..3",
                           name, in->dim);
  }
  /* Zoltan's geometric methods cannot place NaN or infinite points. */
  if (method == MXN_PART_RCB || method == MXN_PART_RIB || method == MXN_PART_HSFC)
    for (int64_t k = 0; k < in->n; k++)
      for (int d = 0; d < in->dim; d++)
        if (!isfinite(in->centroids[3 * k + d]))
          return mxn_error_set(err, MXN_ERR_ARG,
                               "mxn_partition(%s): centroid of element %lld on rank %d "
                               "is not finite",
                               name, (long long)in->ids[k], rank);
  if (method != MXN_PART_GRAPH) return MXN_OK;

  const int64_t *off = in->adj_off;
  if (!off)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(graph): no dual graph (adj_off is NULL) on rank %d",
                         rank);
  if (off[0] < 0)
    return mxn_error_set(err, MXN_ERR_ARG, "mxn_partition(graph): adj_off[0] < 0 on rank %d",
                         rank);
  for (int64_t k = 0; k < in->n; k++)
    if (off[k + 1] < off[k] || off[k + 1] - off[k] > INT_MAX)
      return mxn_error_set(err, MXN_ERR_ARG,
                           "mxn_partition(graph): adj_off not ascending at element %lld "
                           "on rank %d",
                           (long long)in->ids[k], rank);
  if (off[in->n] - off[0] > INT_MAX)
    return mxn_error_set(err, MXN_ERR_UNSUPPORTED,
                         "mxn_partition(graph): %lld graph edges on rank %d (Zoltan "
                         "takes at most INT_MAX)",
                         (long long)(off[in->n] - off[0]), rank);
  if (off[in->n] > off[0] && !in->adj_ids)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(graph): adj_ids is NULL on rank %d", rank);
  for (int64_t j = off[0]; j < off[in->n]; j++) {
    if (in->adj_ranks && (in->adj_ranks[j] < 0 || in->adj_ranks[j] >= nprocs))
      return mxn_error_set(err, MXN_ERR_ARG,
                           "mxn_partition(graph): neighbour rank %d out of range on "
                           "rank %d",
                           in->adj_ranks[j], rank);
    if (in->edge_weights &&
        (!(in->edge_weights[j] >= 0) || !isfinite(in->edge_weights[j])))
      return mxn_error_set(err, MXN_ERR_ARG,
                           "mxn_partition(graph): edge weight %g on rank %d is not a "
                           "finite number >= 0",
                           in->edge_weights[j], rank);
  }
  /* Without adj_ranks every neighbour claims to be local: check it is, or
   * Zoltan would look for an object nobody owns. */
  if (!in->adj_ranks && off[in->n] > off[0]) {
    sorted = mxn__malloc((size_t)in->n * sizeof *sorted);
    if (!sorted)
      return mxn_error_set(err, MXN_ERR_NOMEM, "mxn_partition(graph): out of memory");
    memcpy(sorted, in->ids, (size_t)in->n * sizeof *sorted);
    qsort(sorted, (size_t)in->n, sizeof *sorted, mxn__cmp_i64);
    for (int64_t k = 0; k < in->n && status == MXN_OK; k++)
      for (int64_t j = off[k]; j < off[k + 1]; j++)
        if (!mxn__ge_lookup(sorted, in->n, in->adj_ids[j])) {
          status = mxn_error_set(err, MXN_ERR_ARG,
                                 "mxn_partition(graph): neighbour %lld of element %lld "
                                 "is not on rank %d and adj_ranks is NULL",
                                 (long long)in->adj_ids[j], (long long)in->ids[k], rank);
          break;
        }
    free(sorted);
  }
  return status;
}

int mxn_partition(MPI_Comm comm, mxn_part_method method,
                  const mxn_part_input_t *in, int nparts,
                  const mxn_part_opts_t *opts, int *part, mxn_error_t *err) {
  const char *name = mxn_part_method_name(method);
  int status = MXN_OK, rank = 0, nprocs = 1, flag = 0;
  mxn_error_clear(err);

  if (MPI_Initialized(&flag) != MPI_SUCCESS || !flag)
    return mxn_error_set(err, MXN_ERR_MPI, "mxn_partition(%s): MPI is not initialized",
                         name);
  if (comm == MPI_COMM_NULL)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(%s): communicator is MPI_COMM_NULL (argument 1)",
                         name);
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
      MPI_Comm_size(comm, &nprocs) != MPI_SUCCESS)
    return mxn_error_set(err, MXN_ERR_MPI, "mxn_partition(%s): bad communicator", name);

  status = mxn__check_input(method, in, nparts, part, rank, nprocs, err);

  /* One reduction (all MPI_MIN, maxima negated) agrees on the status and
   * on what the ranks holding elements passed: the same method, nparts and
   * dim, and weights, edge weights and centroids on all of them or none.
   * Zoltan waits forever when ranks disagree on such parameters. */
  int has = status == MXN_OK && in->n > 0;
  int64_t nedges = 0;
  if (status == MXN_OK && method == MXN_PART_GRAPH && in->n > 0)
    nedges = in->adj_off[in->n] - in->adj_off[0];
  int w = has && in->weights, c = has && in->centroids;
  int ew = status == MXN_OK && nedges > 0 && in->edge_weights;
  int64_t g[13] = {status,
               nparts, -nparts,
               (int)method, -(int)method,
               has ? in->dim : INT_MAX, has ? -in->dim : 0,
               has ? w : 1, -w,
               nedges > 0 ? ew : 1, -ew,
               has ? c : 1, -c};
  /* (the status travels as g[0], so every rank's arguments are read) */
  int agreed = mxn__comm_reduce_i64(comm, MXN_OK, MXN__MIN, g, 13);
  if (agreed != MXN_OK)
    return mxn_error_set(err, agreed, "mxn_partition(%s): agreeing on the arguments failed", name);
  mxn__note_other(err, status, (int)g[0], name);
  if (g[0] != MXN_OK) return (int)g[0];
  if (g[1] != -g[2] || g[3] != -g[4])
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(%s): ranks disagree on the method or nparts",
                         name);
  mxn__global glob = {g[6] < 0 ? (int)-g[6] : 0, (int)-g[8], (int)-g[10], (int)g[11]};
  int geometric = method != MXN_PART_LINEAR && method != MXN_PART_GRAPH;
  if (g[6] < 0 && g[5] != -g[6] && (geometric || glob.has_cent))
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(%s): ranks disagree on dim (%d to %d)", name,
                         (int)g[5], (int)-g[6]);
  if (g[7] == 0 && -g[8] == 1)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(%s): weights given on some ranks, NULL on others",
                         name);
  if (g[9] == 0 && -g[10] == 1)
    return mxn_error_set(err, MXN_ERR_ARG,
                         "mxn_partition(%s): edge weights given on some ranks, NULL on "
                         "others",
                         name);

  /* Options are rank 0's, so every rank runs the same retries. */
  double ov[5] = {opts ? opts->imbalance_tol : 0, opts ? (double)opts->seed : 0,
                  opts ? (double)opts->repartition : 0, opts ? (double)opts->no_remap : 0,
                  opts ? (double)opts->refine : 0};
  int64_t ntot = in->n;
  if ((status = mxn__comm_bcast(comm, MXN_OK, 0, ov, (int64_t)sizeof ov)) != MXN_OK ||
      (status = mxn__comm_reduce_i64(comm, MXN_OK, MXN__SUM, &ntot, 1)) != MXN_OK)
    return mxn_error_set(err, status, "mxn_partition(%s): agreeing on the options and the element count failed",
                         name);
  if (nparts == 1 || ntot == 0) {
    for (int64_t k = 0; k < in->n; k++) part[k] = 0;
    return MXN_OK;
  }
  double tol = ov[0];
  if (!(tol > 1.0) || !isfinite(tol)) tol = MXN__DEFAULT_TOL;
  unsigned seed = (unsigned)ov[1];

  /* Ranks without elements take the common dim. */
  mxn_part_input_t loc = *in;
  loc.dim = glob.dim;
  in = &loc;

  switch (method) {
  case MXN_PART_LINEAR: status = mxn__linear(comm, in, nparts, part, err); break;
  case MXN_PART_SFC: status = mxn__sfc(comm, in, nparts, part, err); break;
  default:
    status = mxn__zoltan(comm, method, in, &glob, nparts, ntot, tol, seed, ov[2] != 0,
                         ov[3] != 0, ov[4] != 0, part, err);
    break;
  }
  /* Local failures (allocation) inside the string methods are agreed here;
   * the Zoltan path has already agreed. */
  return mxn__agree(comm, status, err, name);
}
