/* Datasets: the public mxn_dataset_* calls. An open, serial or
 * collective, finds the members (discover.c), summarises their headers
 * (summary.c) and merges the summaries into the structure (merge.c); the
 * members themselves are opened and read in member.c. */
#include "comm.h"
#include "structure/ids.h"
#include "structure/structure.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>

int mxn_dataset_create(mxn_dataset_t **ds) {
  if (!ds) return MXN_ERR_ARG;
  *ds = mxn__calloc(1, sizeof **ds);
  if (!*ds) return MXN_ERR_NOMEM;
  (*ds)->s.num_nodes_global = -1;
  (*ds)->s.num_elements_global = -1;
  mxn__store_init(*ds);
  if (mxn__merge_state_new(*ds) != MXN_OK) {
    mxn_dataset_destroy(ds);
    return MXN_ERR_NOMEM;
  }
  return MXN_OK;
}

int mxn_dataset_open(mxn_dataset_t *ds, const char *path) {
  int status = mxn__dataset_discover(ds, path);
  if (status != MXN_OK) return status; /* it has said what it could not find */
  /* every member's record is kept; the members stay open, up to the cap */
  for (int j = 0; status == MXN_OK && j < ds->nfiles; j++) {
    char *buf = NULL;
    size_t len = 0;
    if (mxn__record_hold(ds, j) != MXN_OK) {
      status = MXN_DS_ERR(ds, MXN_ERR_NOMEM, "%s: out of memory", path);
      break;
    }
    status = mxn__member_summary(ds, j, 0, &buf, &len);
    if (status == MXN_OK) status = mxn__member_merge(ds, j, buf, len);
    free(buf);
  }
  status = mxn__dataset_finish(ds, status, path);
  /* A dataset opened alone settles whether its ids can be trusted over
   * every member now (ids.c); a collective load does it in a phase of
   * its own. */
  if (status == MXN_OK) {
    mxn_error_t e;
    mxn_error_clear(&e);
    if ((status = mxn__ids_settle(MPI_COMM_NULL, ds, 0, ds->nfiles, &e)) != MXN_OK) {
      mxn_error_set(&ds->err, status, "%s", e.msg[0] ? e.msg : mxn_strerror(status));
      ds->opened = 0; /* a failed open exposes no structure */
    }
  }
  return status;
}

/* The dataset's structure, read collectively: rank R reads the headers of
 * members R*M/N .. (R+1)*M/N-1 (the ones whose domains it publishes next),
 * the summaries go to every rank (one allgather), and every rank merges
 * all of them in member order, so the structure and any error are the same
 * everywhere while no rank opens every member. A rank keeps the records of
 * its own members only; others are rebuilt where a phase uses them
 * (mxn__file). Collective; errors agreed. */
int mxn__dataset_open_members(MPI_Comm comm, mxn_dataset_t *ds, const char *path, mxn_error_t *e) {
  int N, R, status;
  MPI_Comm_size(comm, &N);
  MPI_Comm_rank(comm, &R);
  char **bufs = NULL, *all = NULL;
  size_t *lens = NULL;
  int64_t *mylens = NULL, *alllens = NULL;
  int64_t *bcnt = NULL;
  char *mine = NULL;
  status = mxn__dataset_discover(ds, path);
  if (status != MXN_OK) mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
  if ((status = mxn_agree(comm, status, e)) != MXN_OK) return status;
  int M = ds->nfiles;
  int fbeg = (int)((int64_t)R * M / N), fend = (int)((int64_t)(R + 1) * M / N);
  bufs = mxn__calloc((size_t)M + 1, sizeof *bufs);
  lens = mxn__calloc((size_t)M + 1, sizeof *lens);
  mylens = mxn__calloc((size_t)(fend - fbeg) + 1, sizeof *mylens);
  bcnt = mxn__calloc((size_t)N + 1, sizeof *bcnt);
  if (!bufs || !lens || !mylens || !bcnt)
    status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
  for (int j = fbeg; status == MXN_OK && j < fend; j++)
    if (mxn__record_hold(ds, j) != MXN_OK)
      status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
  /* My members' summaries; after a failure the rest say "not read" (the
   * merge stops at the first failing member anyway). */
  int failed = 0;
  size_t mytotal = 0;
  for (int j = fbeg; status == MXN_OK && j < fend; j++) {
    int st = mxn__member_summary(ds, j, failed, &bufs[j], &lens[j]);
    if (st == MXN_ERR_NOMEM && !bufs[j])
      status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
    failed |= st != MXN_OK;
    mylens[j - fbeg] = (int64_t)lens[j];
    mytotal += lens[j];
  }
  if (status == MXN_OK && !(mine = mxn__malloc(mytotal + 1)))
    status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
  if ((status = mxn_agree(comm, status, e)) != MXN_OK) goto done;
  for (size_t j = (size_t)fbeg, at = 0; j < (size_t)fend; at += lens[j], j++)
    memcpy(mine + at, bufs[j], lens[j]);
  /* Everyone's summary lengths (rank r's members come in order, so they
   * arrive in member order), then the summaries. */
  status = mxn__comm_allgatherv(comm, MXN_OK, mylens, (int64_t)(fend - fbeg) * (int64_t)sizeof *mylens,
                                (void **)&alllens, bcnt);
  if (status == MXN_OK) status = mxn__comm_allgatherv(comm, status, mine, (int64_t)mytotal, (void **)&all, bcnt);
  if (status == MXN_ERR_NOMEM) mxn_error_set(e, status, "out of memory on rank %d", R);
  else if (status != MXN_OK) mxn_error_set(e, status, "gathering the member summaries failed");
  if ((status = mxn_agree(comm, status, e)) != MXN_OK) goto done;
  {
    char **views = mxn__calloc((size_t)M + 1, sizeof *views);
    size_t *vlens = mxn__calloc((size_t)M + 1, sizeof *vlens);
    if (!views || !vlens) {
      status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory on rank %d", R);
    } else {
      int64_t at = 0;
      for (int j = 0; j < M; at += alllens[j], j++) {
        views[j] = all + at;
        vlens[j] = (size_t)alllens[j];
      }
      status = mxn__dataset_merge(ds, views, vlens);
      if (status != MXN_OK) mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
    }
    free(views);
    free(vlens);
  }
  status = mxn_agree(comm, status, e);
  /* Every member's header passed mxn__file_open's checks on the rank that
   * summarised it: a later first open here (a ghost layer, a re-balance)
   * needs no second look. */
  for (int j = 0; status == MXN_OK && j < M; j++)
    if (mxn__file_held(ds, j)) mxn__file_held(ds, j)->nc_checked = 1;
done:
  for (int j = 0; bufs && j < M; j++) free(bufs[j]);
  free(bufs);
  free(lens);
  free(alllens);
  free(mylens);
  free(bcnt);
  free(mine);
  free(all);
  return status;
}

int mxn_dataset_open_collective(MPI_Comm comm, mxn_dataset_t *ds, const char *path,
                                mxn_error_t *err) {
  mxn_error_t e;
  mxn_error_clear(&e);
  int status = ds && path && *path ? MXN_OK : mxn_error_set(&e, MXN_ERR_ARG, "no dataset or path given");
  if ((status = mxn_agree(comm, status, &e)) == MXN_OK) {
    status = mxn__dataset_open_members(comm, ds, path, &e);
  }
  if (status != MXN_OK && err) *err = e;
  return status;
}

static void free_var_list(mxn_var_list_t *v) {
  free(v->names);
  free(v->truth);
}

static void free_structure(mxn_structure_t *s) {
  for (int b = 0; b < s->num_blocks; b++) free(s->blocks[b].attr_names);
  for (int b = 0; b < s->num_edge_blocks; b++) free(s->edge_blocks[b].attr_names);
  for (int b = 0; b < s->num_face_blocks; b++) free(s->face_blocks[b].attr_names);
  free(s->blocks);
  free(s->edge_blocks);
  free(s->face_blocks);
  free(s->node_sets);
  free(s->side_sets);
  free(s->edge_sets);
  free(s->face_sets);
  free(s->elem_sets);
  free(s->node_var_names);
  free(s->elem_var_names);
  free(s->global_var_names);
  free(s->elem_var_truth);
  free_var_list(&s->edge_vars);
  free_var_list(&s->face_vars);
  free_var_list(&s->node_set_vars);
  free_var_list(&s->side_set_vars);
  free_var_list(&s->edge_set_vars);
  free_var_list(&s->face_set_vars);
  free_var_list(&s->elem_set_vars);
  free(s->node_maps);
  free(s->edge_maps);
  free(s->face_maps);
  free(s->elem_maps);
  free(s->times);
  free(s->qa_records);
  free(s->info_records);
  for (int a = 0; a < s->num_assemblies; a++) free(s->assemblies[a].members);
  free(s->assemblies);
  memset(s, 0, sizeof *s);
}

void mxn_dataset_destroy(mxn_dataset_t **pds) {
  if (!pds || !*pds) return;
  mxn_dataset_t *ds = *pds;
  mxn__merging_free(ds);
  mxn__store_free(ds);
  mxn__merge_state_free(ds);
  free(ds->glob_vals);
  free_structure(&ds->s);
  free(ds);
  *pds = NULL;
}

/* The header metadata a rank holds for the dataset: the handle, the
 * structure's arrays (blocks with their attribute names, sets, maps,
 * variable names and truth tables, times), member 0's global variables
 * kept with its summary, a pointer per member, the member records held
 * with their paths, and the arena of per-member tables. Not the paths
 * made from the naming pattern for members without a record. Not the members' id maps (domains), the
 * poly blocks' offsets or read buffers: those are data, read on demand.
 * Sizes as the arrays are used, the arena's chunks as allocated. */
int64_t mxn__dataset_metadata_bytes(const mxn_dataset_t *ds) {
  if (!ds) return 0;
  const mxn_structure_t *s = &ds->s;
  const size_t name = MXN_NAME_LEN, nint = sizeof(int);
  size_t b = sizeof *ds + mxn__store_bytes(ds) + mxn__merge_state_bytes(ds);
  const mxn_block_info_t *bk[3] = {s->blocks, s->edge_blocks, s->face_blocks};
  const int nbk[3] = {s->num_blocks, s->num_edge_blocks, s->num_face_blocks};
  for (int k = 0; k < 3; k++) {
    b += (size_t)nbk[k] * sizeof *bk[k];
    for (int q = 0; q < nbk[k]; q++) b += (size_t)bk[k][q].num_attr * name;
  }
  b += (size_t)(s->num_node_sets + s->num_side_sets + s->num_edge_sets + s->num_face_sets +
                s->num_elem_sets) * sizeof(mxn_set_info_t);
  b += (size_t)(s->num_node_maps + s->num_edge_maps + s->num_face_maps + s->num_elem_maps) *
       sizeof(mxn_map_info_t);
  b += (size_t)(s->num_node_vars + s->num_elem_vars + s->num_global_vars) * name;
  b += (size_t)s->num_blocks * (size_t)s->num_elem_vars * nint;
  const mxn_var_list_t *vl[7] = {&s->edge_vars,     &s->face_vars,     &s->node_set_vars,
                                 &s->side_set_vars, &s->edge_set_vars, &s->face_set_vars,
                                 &s->elem_set_vars};
  const int nobj[7] = {s->num_edge_blocks, s->num_face_blocks, s->num_node_sets,
                       s->num_side_sets,   s->num_edge_sets,   s->num_face_sets,
                       s->num_elem_sets};
  for (int k = 0; k < 7; k++) b += (size_t)vl[k]->num * (name + (size_t)nobj[k] * nint);
  b += (size_t)s->num_times * sizeof(double);
  b += (size_t)s->num_qa * sizeof *s->qa_records + (size_t)s->num_info * sizeof *s->info_records;
  for (int a = 0; a < s->num_assemblies; a++)
    b += sizeof *s->assemblies + (size_t)s->assemblies[a].num_members * sizeof(mxn_gid_t);
  if (ds->glob_vals) b += (size_t)s->num_times * (size_t)ds->glob_nvars * sizeof(double);
  return (int64_t)b;
}

const char *mxn_entity_type_name(int type) {
  switch (type) {
    case MXN_ENTITY_ELEM_BLOCK: return "element block";
    case MXN_ENTITY_NODE_SET: return "node set";
    case MXN_ENTITY_SIDE_SET: return "side set";
    case MXN_ENTITY_EDGE_BLOCK: return "edge block";
    case MXN_ENTITY_EDGE_SET: return "edge set";
    case MXN_ENTITY_FACE_BLOCK: return "face block";
    case MXN_ENTITY_FACE_SET: return "face set";
    case MXN_ENTITY_ELEM_SET: return "element set";
    case MXN_ENTITY_ASSEMBLY: return "assembly";
    case MXN_ENTITY_BLOB: return "blob";
    default: return "unknown";
  }
}

const mxn_structure_t *mxn_dataset_structure(const mxn_dataset_t *ds) {
  return ds && ds->opened ? &ds->s : NULL;
}

int mxn_structure_warnings(const mxn_structure_t *s, char *buf, size_t cap) {
  int n = 0;
  size_t at = 0;
  if (buf && cap) buf[0] = '\0';
  if (!s) return 0;
  const char *w[2] = {s->id_fallback ? s->id_warning : "", s->hint_warning};
  for (int i = 0; i < 2; i++) {
    if (!w[i][0]) continue;
    if (buf && at < cap) {
      int k = snprintf(buf + at, cap - at, "%s%s", n ? "\n" : "", w[i]);
      at = k < 0 ? cap : at + (size_t)k;
    }
    n++;
  }
  return n;
}

const char *mxn_dataset_file_path(const mxn_dataset_t *ds, int j) {
  if (!ds || j < 0 || j >= ds->nfiles) return NULL;
  /* a member without a record: its path made in the dataset's ring */
  return mxn__path((mxn_dataset_t *)ds, j);
}

const char *mxn_dataset_errmsg(const mxn_dataset_t *ds) {
  if (!ds) return "no dataset handle";
  return ds->err.msg;
}

int mxn_dataset_errcode(const mxn_dataset_t *ds) {
  return ds ? ds->err.status : MXN_ERR_ARG;
}

mxn_io_counters_t mxn_dataset_counters(const mxn_dataset_t *ds) {
  mxn_io_counters_t z;
  memset(&z, 0, sizeof z);
  return ds ? ds->io : z;
}
