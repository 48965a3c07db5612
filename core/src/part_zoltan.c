/* One Zoltan run of mxn_partition() (partition.h): the query callbacks
 * over a mxn_part_input_t and the parameters of each method. The
 * fallbacks when a part comes out empty stay in partition.c. */
#include "part_zoltan.h"

#include "internal.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

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
int mxn__zoltan_run(MPI_Comm comm, mxn_part_method method,
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
