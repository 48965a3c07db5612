/* The dataset's structure merged from its members' summaries (summary.h),
 * member by member in order, checked for agreement, then indexed per
 * member by structure block and set. */
#include "summary.h"

#include <stdio.h>

/* Position of block (set) `id` in the structure's list, or -1. Members
 * list their blocks and sets in one order as a rule (every member of a
 * nem_spread or ParaView set declares all of them), so the member's own
 * position `hint` is tried first: a search of the whole list for each
 * made a member of K blocks cost K*K (1000 blocks in 4096 members: most of
 * the open). */
static int find_block(const mxn_block_info_t *blocks, int n, int64_t id, int hint) {
  if (hint >= 0 && hint < n && blocks[hint].id == id) return hint;
  for (int b = 0; b < n; b++)
    if (blocks[b].id == id) return b;
  return -1;
}

static int find_set(const mxn_set_info_t *sets, int n, int64_t id, int hint) {
  if (hint >= 0 && hint < n && sets[hint].id == id) return hint;
  for (int k = 0; k < n; k++)
    if (sets[k].id == id) return k;
  return -1;
}

static int grow(void **p, size_t elem, int n) {
  void *q = mxn__realloc(*p, elem * (size_t)(n + 1));
  if (!q) return MXN_ERR_NOMEM;
  *p = q;
  memset((char *)q + elem * (size_t)n, 0, elem);
  return MXN_OK;
}

/* n zeroed elements for ptr from the dataset's arena (freed only with the
 * dataset), NULL for n == 0: the arrays are indexed only below counts that
 * are then 0. Out of memory: MXN_ERR_NOMEM, to `done`. */
#define ARENA_ALLOC0(ptr, n)                                               \
  do {                                                                     \
    (ptr) = NULL;                                                          \
    if ((n) > 0 && !((ptr) = mxn__arena_calloc(ds, (size_t)(n), sizeof *(ptr)))) { \
      status = MXN_ERR_NOMEM;                                              \
      goto done;                                                           \
    }                                                                      \
  } while (0)

/* Where the structure keeps the sets / numbered maps of a kind. */
static mxn_set_info_t **set_list(mxn_structure_t *s, int sk) {
  switch (sk) {
    case MXN__NSET: return &s->node_sets;
    case MXN__SSET: return &s->side_sets;
    case MXN__ESET: return &s->edge_sets;
    case MXN__FSET: return &s->face_sets;
    default: return &s->elem_sets;
  }
}
static int *set_count(mxn_structure_t *s, int sk) {
  switch (sk) {
    case MXN__NSET: return &s->num_node_sets;
    case MXN__SSET: return &s->num_side_sets;
    case MXN__ESET: return &s->num_edge_sets;
    case MXN__FSET: return &s->num_face_sets;
    default: return &s->num_elem_sets;
  }
}
static mxn_map_info_t **map_list(mxn_structure_t *s, int e) {
  return e == MXN__ELEM ? &s->elem_maps
         : e == MXN__EDGE ? &s->edge_maps
         : e == MXN__FACE ? &s->face_maps
                          : &s->node_maps;
}
static int *map_count(mxn_structure_t *s, int e) {
  return e == MXN__ELEM ? &s->num_elem_maps
         : e == MXN__EDGE ? &s->num_edge_maps
         : e == MXN__FACE ? &s->num_face_maps
                          : &s->num_node_maps;
}

/* Merge member j's blocks of kind k from its summary: union over members
 * by id, type and sizes checked for agreement. */
static int merge_blocks(mxn_dataset_t *ds, int j, int k, int64_t nblk, rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = &ds->files[j];
  mxn__blocks_t *kb = &f->kb[k];
  const char *what = mxn__blk_what[k];
  mxn_block_info_t **sb = k == MXN__ELEM ? &s->blocks : k == MXN__EDGE ? &s->edge_blocks
                                                                       : &s->face_blocks;
  int *nsb = k == MXN__ELEM ? &s->num_blocks : k == MXN__EDGE ? &s->num_edge_blocks
                                                              : &s->num_face_blocks;
  int status = MXN_OK;
  char name[MXN_NAME_LEN], topo[MXN_NAME_LEN], an[MXN_NAME_LEN];
  kb->nblk = (int)nblk;
  ARENA_ALLOC0(kb->blk_of_file, kb->nblk);
  ARENA_ALLOC0(kb->file_count, kb->nblk);
  ARENA_ALLOC0(kb->file_conn, kb->nblk);
  for (int q = 0; q < kb->nblk && !r->bad; q++) {
    int64_t id = r_i64(r);
    r_str(r, name, sizeof name);
    r_str(r, topo, sizeof topo);
    int64_t num_entry = r_i64(r), npe = r_i64(r), ned = r_i64(r), nfa = r_i64(r), nat = r_i64(r);
    if (r->bad) break;
    kb->file_count[q] = num_entry;
    int poly = mxn__poly_kind(topo);
    kb->file_conn[q] = poly == MXN_POLY_NSIDED ? npe : poly == MXN_POLY_NFACED ? nfa : 0;
    if (poly) npe = nfa = 0; /* per-file totals, not per entry */
    int b = find_block(*sb, *nsb, id, q);
    if (b < 0) {
      MXN_CHECK(grow((void **)sb, sizeof **sb, *nsb));
      b = (*nsb)++;
      mxn_block_info_t *bi = &(*sb)[b];
      bi->id = id;
      snprintf(bi->name, sizeof bi->name, "%s", name);
    }
    mxn_block_info_t *bi = &(*sb)[b];
    if (num_entry > 0) {
      int known = bi->nodes_per_elem > 0 || bi->type[0] != '\0';
      if (known && (bi->nodes_per_elem != npe || strcasecmp(bi->type, topo) != 0 ||
                    bi->num_attr != nat || bi->edges_per_elem != ned ||
                    bi->faces_per_elem != nfa)) {
        status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                            "%s: %s block %lld is %s with %lld nodes, %lld edges, %lld "
                            "faces and %lld attributes, elsewhere %s with %d, %d, %d "
                            "and %d: members of different datasets?",
                            f->path, what, (long long)id, topo, (long long)npe, (long long)ned,
                            (long long)nfa, (long long)nat, bi->type, bi->nodes_per_elem,
                            bi->edges_per_elem, bi->faces_per_elem, bi->num_attr);
        goto done;
      }
      if (!known) {
        snprintf(bi->type, sizeof bi->type, "%s", topo);
        bi->nodes_per_elem = (int)npe;
        bi->edges_per_elem = (int)ned;
        bi->faces_per_elem = (int)nfa;
        bi->num_attr = (int)nat;
        bi->poly = poly;
        if (bi->num_attr > 0) MXN_ALLOC(bi->attr_names, bi->num_attr);
      }
      for (int64_t a = 0; a < nat; a++) {
        r_str(r, an, sizeof an);
        if (!known) snprintf(bi->attr_names[a], MXN_NAME_LEN, "%s", an);
      }
      if (bi->name[0] == '\0') snprintf(bi->name, sizeof bi->name, "%s", name);
    }
    bi->num_elements += num_entry;
    bi->num_conn += kb->file_conn[q];
    kb->blk_of_file[q] = b;
  }
done:
  return status;
}

/* Where the structure keeps family v's count and names. */
static void fam_names(mxn_structure_t *s, int v, int **num, char (***names)[MXN_NAME_LEN]) {
  switch (v) {
    case MXN__V_NODAL: *num = &s->num_node_vars, *names = &s->node_var_names; break;
    case MXN__V_ELEM: *num = &s->num_elem_vars, *names = &s->elem_var_names; break;
    case MXN__V_GLOBAL: *num = &s->num_global_vars, *names = &s->global_var_names; break;
    case MXN__V_EDGE: *num = &s->edge_vars.num, *names = &s->edge_vars.names; break;
    case MXN__V_FACE: *num = &s->face_vars.num, *names = &s->face_vars.names; break;
    default: {
      mxn_var_list_t *vl = (mxn_var_list_t *)mxn__svars(s, v - MXN__V_SET0);
      *num = &vl->num;
      *names = &vl->names;
    }
  }
}

/* Merge member j's n variable names of family v into the dataset's list,
 * matched by name: members written by ParaView's parallel writer, for one,
 * may list a variable some others lack, or list them in another order.
 * The list is the union in order of first appearance, member by member, so
 * members that agree give their own list. f->var_of records the dataset's
 * index of each of the member's variables. A name the member lists twice
 * matches the dataset's variables of that name in turn. */
static int merge_vars(mxn_dataset_t *ds, int j, int v, int n, char (*got)[MXN_NAME_LEN]) {
  mxn__file_t *f = &ds->files[j];
  int status = MXN_OK;
  int *num;
  char(**names)[MXN_NAME_LEN];
  fam_names(&ds->s, v, &num, &names);
  int *of;
  ARENA_ALLOC0(of, n);
  f->nvar[v] = n;
  f->var_of[v] = of;
  /* The common case, a member listing what the dataset has so far in the
   * same order, compares each name once. */
  int k = 0;
  while (k < n && k < *num && strcmp(got[k], (*names)[k]) == 0) {
    of[k] = k;
    k++;
  }
  if (k == n) goto done;
  /* Otherwise room for the rest as new names, made once; a name is looked
   * for among the earlier members' only (this member's new ones are its
   * own already). */
  const int before = *num;
  char(*grown)[MXN_NAME_LEN] = mxn__realloc(*names, (size_t)(before + n - k) * sizeof **names);
  if (!grown) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  *names = grown;
  for (; k < n; k++) {
    int at = -1;
    for (int d = 0; d < before && at < 0; d++) {
      if (strcmp(got[k], (*names)[d]) != 0) continue;
      int taken = 0;
      for (int i = 0; i < k && !taken; i++) taken = of[i] == d;
      if (!taken) at = d;
    }
    if (at < 0) {
      memcpy((*names)[*num], got[k], MXN_NAME_LEN);
      at = (*num)++;
    }
    of[k] = at;
  }
done:
  return status;
}

/* Merge member j's sets of every kind from its summary: union over
 * members by id. A malformed stream leaves r->bad set. */
static int merge_sets(mxn_dataset_t *ds, int j, const int64_t *nsets_of, rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = &ds->files[j];
  int status = MXN_OK;
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int n = (int)nsets_of[sk];
    mxn_set_info_t **sets = set_list(s, sk);
    int *nsets = set_count(s, sk);
    mxn__sets_t *fs = &f->sk[sk];
    if (n <= 0) continue;
    fs->nfile = n;
    ARENA_ALLOC0(fs->ids, n);
    ARENA_ALLOC0(fs->file_count, n);
    ARENA_ALLOC0(fs->file_df, n);
    for (int k = 0; k < n && !r->bad; k++) {
      char name[MXN_NAME_LEN];
      fs->ids[k] = r_i64(r);
      r_str(r, name, sizeof name);
      int64_t cnt = r_i64(r), ndf = r_i64(r);
      fs->file_count[k] = cnt;
      fs->file_df[k] = ndf;
      int q = find_set(*sets, *nsets, fs->ids[k], k);
      if (q < 0) {
        MXN_CHECK(grow((void **)sets, sizeof **sets, *nsets));
        q = (*nsets)++;
        (*sets)[q].id = fs->ids[k];
        snprintf((*sets)[q].name, MXN_NAME_LEN, "%s", name);
      }
      if ((*sets)[q].name[0] == '\0') snprintf((*sets)[q].name, MXN_NAME_LEN, "%s", name);
      (*sets)[q].num_entries += cnt;
      if (ndf > 0) (*sets)[q].has_df = 1;
    }
  }
done:
  return status;
}

/* Merge member j's summary (`len` bytes at `buf`) into the structure. */
/* Member j's numbered maps (nmaps_of per entity kind, of members with
 * nents_of entities) from the stream: the union by id per entity kind;
 * nem_spread's record of the original element ids is one of them. */
static int merge_maps(mxn_dataset_t *ds, int j, const int64_t nmaps_of[MXN__NEK],
                      const int64_t nents_of[MXN__NEK], rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = &ds->files[j];
  int status = MXN_OK;
  for (int e = 0; e < MXN__NEK && !r->bad; e++) {
    int nm = (int)nmaps_of[e];
    if (nm <= 0 || nents_of[e] == 0) continue;
    f->nmap[e] = nm;
    ARENA_ALLOC0(f->map_ids[e], nm);
    mxn_map_info_t **maps = map_list(s, e);
    int *nmaps = map_count(s, e);
    for (int k = 0; k < nm && !r->bad; k++) {
      char name[MXN_NAME_LEN];
      f->map_ids[e][k] = r_i64(r);
      r_str(r, name, sizeof name);
      int q = -1;
      for (int m = 0; m < *nmaps; m++)
        if ((*maps)[m].id == f->map_ids[e][k]) q = m;
      if (q < 0) {
        MXN_CHECK(grow((void **)maps, sizeof **maps, *nmaps));
        q = (*nmaps)++;
        (*maps)[q].id = f->map_ids[e][k];
      }
      if ((*maps)[q].name[0] == '\0') snprintf((*maps)[q].name, MXN_NAME_LEN, "%s", name);
      if (e == MXN__ELEM && strcmp(name, "original_global_id_map") == 0) {
        f->have_orig_map = 1;
        f->orig_map_id = (int)f->map_ids[e][k];
      }
    }
  }
done:
  return status;
}

int mxn__member_merge(mxn_dataset_t *ds, int j, const char *buf, size_t len) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = &ds->files[j];
  rbuf_t rb = {buf, len, 0, 0}, *r = &rb;
  int status = (int)r_i64(r);
  /* a family's variable names, side by side here where there are few of
   * them (a calloc and free each, three times a member on every rank) */
  char few[8][MXN_NAME_LEN], (*many)[MXN_NAME_LEN] = NULL;
  double two[2], *times = NULL;
  if (r->bad) return MXN_DS_ERR(ds, MXN_ERR_MPI, "%s: empty member summary", f->path);
  if (status != MXN_OK) {
    char msg[sizeof ds->err.msg];
    r_str(r, msg, sizeof msg);
    return mxn_error_set(&ds->err, status, "%s", msg);
  }
  int64_t h[17];
  for (int i = 0; i < 17; i++) h[i] = r_i64(r);
  const int64_t num_dim = h[0], num_nodes = h[1], num_elem = h[2], num_edge = h[3],
                num_face = h[4];
  const int64_t *nblk_of = h + 5, *nsets_of = h + 8, *nmaps_of = h + 13;
  char title[sizeof s->title];
  r_str(r, title, sizeof title);
  int fws = (int)r_i64(r);
  char cn[3][MXN_NAME_LEN];
  for (int d = 0; d < 3; d++) r_str(r, cn[d], MXN_NAME_LEN);
  int nqa = (int)r_i64(r), ninfo = (int)r_i64(r), i64ids = (int)r_i64(r);
  int glob_ok = (int)r_i64(r);
  int64_t nng = r_i64(r), neg = r_i64(r);
  int nproc_ok = (int)r_i64(r), nproc = (int)r_i64(r);
  if (r->bad) goto bad;

  f->num_nodes = num_nodes;
  f->kb[MXN__ELEM].num = num_elem;
  f->kb[MXN__EDGE].num = num_edge;
  f->kb[MXN__FACE].num = num_face;
  if (j == 0) {
    s->num_dim = (int)num_dim;
    snprintf(s->title, sizeof s->title, "%s", title);
    s->float_word_size = fws;
    for (int d = 0; d < 3; d++) memcpy(s->coord_names[d], cn[d], MXN_NAME_LEN);
    s->num_qa = nqa;
    s->num_info = ninfo;
  } else if (num_dim != s->num_dim) {
    return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                      "%s: is %lldD but %s is %dD: members of different datasets", f->path,
                      (long long)num_dim, ds->files[0].path, s->num_dim);
  }
  s->num_nodes_sum += num_nodes;
  s->num_elements_sum += num_elem;
  s->num_edges_sum += num_edge;
  s->num_faces_sum += num_face;
  if (i64ids) s->int64_ids = 1;

  /* Nemesis global counts tie the members of one decomposition together. */
  if (glob_ok) {
    if (j == 0 || s->num_nodes_global < 0) {
      s->num_nodes_global = nng;
      s->num_elements_global = neg;
    } else if (nng != s->num_nodes_global || neg != s->num_elements_global) {
      return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                        "%s: Nemesis global counts (%lld nodes, %lld elements) "
                        "differ from %s (%lld, %lld): members of different "
                        "datasets",
                        f->path, (long long)nng, (long long)neg, ds->files[0].path,
                        (long long)s->num_nodes_global, (long long)s->num_elements_global);
    }
  }
  if (nproc_ok && ds->nfiles > 1 && nproc != ds->nfiles)
    return MXN_DS_ERR(ds, MXN_ERR_FILESET,
                      "%s: Nemesis data says the set has %d files, the "
                      "name says %d",
                      f->path, nproc, ds->nfiles);

  /* Element, edge and face blocks: union over members, checked for agreement. */
  for (int k = 0; k < MXN__NBK; k++) MXN_CHECK(merge_blocks(ds, j, k, nblk_of[k], r));
  if (r->bad) goto bad;

  /* Sets of every kind: union over members by id. */
  MXN_CHECK(merge_sets(ds, j, nsets_of, r));
  if (r->bad) goto bad;

  /* Variables: the union over members by name; truth tables by file
   * block/set and the member's own variables for now (remapped by
   * index_members). */
  for (int v = 0; v < MXN__NV; v++) {
    int64_t nobj = mxn__fam_objects(v, nblk_of, nsets_of);
    if (nobj < 0) continue;
    int n = (int)r_i64(r);
    if (r->bad || n < 0 || n > (int)(r->n - r->at)) goto bad;
    char(*names)[MXN_NAME_LEN] = few;
    if (n > 8) {
      free(many);
      MXN_ALLOC(many, n);
      names = many;
    } else {
      memset(few, 0, (size_t)n * sizeof *few);
    }
    for (int k = 0; k < n; k++) r_str(r, names[k], MXN_NAME_LEN);
    if (r->bad) goto bad;
    MXN_CHECK(merge_vars(ds, j, v, n, names));
    if (nobj > 0 && n > 0 && v != MXN__V_NODAL && v != MXN__V_GLOBAL) {
      int *truth;
      ARENA_ALLOC0(truth, nobj * n);
      for (int64_t i = 0; i < nobj * n; i++) truth[i] = (int)r_i64(r);
      if (v == MXN__V_ELEM) f->kb[MXN__ELEM].truth = truth;
      else if (v == MXN__V_EDGE) f->kb[MXN__EDGE].truth = truth;
      else if (v == MXN__V_FACE) f->kb[MXN__FACE].truth = truth;
      else f->sk[v - MXN__V_SET0].truth = truth;
    }
  }
  if (r->bad) goto bad;

  /* Time steps must agree too: every one of member 0's, the first and the
   * last of another's (the rest when a step is read from it). */
  int nt = (int)r_i64(r), nw = (int)r_i64(r);
  if (r->bad || nt < 0 || nw < 0 || nw > nt || (j == 0 && nw != nt) ||
      (nw < nt && nw != 2) || (size_t)nw > (r->n - r->at) / sizeof(double))
    goto bad;
  if (j == 0 || nw > 2) MXN_ALLOC(times, nw); /* member 0's are kept */
  double *tv = times ? times : two;
  for (int k = 0; k < nw; k++) tv[k] = r_f64(r);
  if (j == 0) {
    s->num_times = nt;
    s->times = times;
    times = NULL;
  } else {
    if (nt != s->num_times) {
      status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT, "%s: has %d time steps, %s has %d", f->path,
                          nt, ds->files[0].path, s->num_times);
      goto done;
    }
    for (int i = 0; i < nw; i++) {
      int k = nw < nt && i == 1 ? nt - 1 : i; /* first and last only: the last second */
      if (!mxn__same_time(tv[i], s->times[k])) {
        status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT, "%s: time step %d is %.17g, in %s it is %.17g",
                            f->path, k + 1, tv[i], ds->files[0].path, s->times[k]);
        goto done;
      }
    }
  }

  /* Member 0's global variables at every step, when it kept them. */
  int64_t nglob = r_i64(r);
  if (r->bad || nglob < 0 || (size_t)nglob > (r->n - r->at) / sizeof(double) ||
      (j > 0 && nglob > 0) || (nglob > 0 && nt > 0 && nglob % nt != 0))
    goto bad;
  if (nglob > 0 && nt > 0) {
    free(ds->glob_vals);
    MXN_ALLOC(ds->glob_vals, nglob);
    for (int64_t k = 0; k < nglob; k++) ds->glob_vals[k] = r_f64(r);
    ds->glob_nvars = (int)(nglob / nt);
  }

  /* Id maps. */
  f->has_node_map = (int)r_i64(r);
  f->kb[MXN__ELEM].has_map = (int)r_i64(r);
  f->kb[MXN__EDGE].has_map = (int)r_i64(r);
  f->kb[MXN__FACE].has_map = (int)r_i64(r);

  /* Numbered maps: union by id per entity kind. */
  {
    const int64_t nents_of[MXN__NEK] = {num_elem, num_edge, num_face, num_nodes};
    MXN_CHECK(merge_maps(ds, j, nmaps_of, nents_of, r));
  }
  if (r->bad || r->at != r->n) goto bad;
done:
  free(many);
  free(times);
  return status;
bad:
  free(many);
  free(times);
  return MXN_DS_ERR(ds, MXN_ERR_MPI, "%s: member summary is malformed", f->path);
}

/* Per-member arrays indexed by structure block/set, once the union is known. */
static int index_members(mxn_dataset_t *ds) {
  mxn_structure_t *s = &ds->s;
  int status = MXN_OK;
  int *truth = NULL;
  /* Structure truth tables: a variable exists on a block or set where some
   * member stores it and holds entries there. */
  MXN_ALLOC(s->elem_var_truth, (int64_t)s->num_blocks * s->num_elem_vars);
  MXN_ALLOC(s->edge_vars.truth, (int64_t)s->num_edge_blocks * s->edge_vars.num);
  MXN_ALLOC(s->face_vars.truth, (int64_t)s->num_face_blocks * s->face_vars.num);
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int nss;
    mxn__ssets(s, sk, &nss);
    mxn_var_list_t *vl = (mxn_var_list_t *)mxn__svars(s, sk);
    MXN_ALLOC(vl->truth, (int64_t)nss * vl->num);
  }
  int all_orig = ds->nfiles > 0, any_orig = 0;
  for (int j = 0; j < ds->nfiles; j++) {
    mxn__file_t *f = &ds->files[j];
    /* The member's own position of each dataset variable, -1 if absent. */
    for (int v = 0; v < MXN__NV; v++) {
      int *num;
      char(**names)[MXN_NAME_LEN];
      fam_names(s, v, &num, &names);
      ARENA_ALLOC0(f->var_pos[v], *num);
      for (int d = 0; d < *num; d++) f->var_pos[v][d] = -1;
      for (int k = 0; k < f->nvar[v]; k++) f->var_pos[v][f->var_of[v][k]] = k;
    }
    for (int k = 0; k < MXN__NBK; k++) {
      mxn__blocks_t *kb = &f->kb[k];
      int nb;
      (void)mxn__sblocks(s, k, &nb);
      mxn_var_list_t vl = mxn__bvars(s, k);
      const int fam = k == MXN__ELEM ? MXN__V_ELEM : k == MXN__EDGE ? MXN__V_EDGE : MXN__V_FACE;
      ARENA_ALLOC0(kb->blk_count, nb);
      ARENA_ALLOC0(kb->blk_start, nb);
      ARENA_ALLOC0(kb->blk_present, nb);
      ARENA_ALLOC0(truth, (int64_t)nb * vl.num);
      int64_t pos = 0;
      for (int q = 0; q < kb->nblk; q++) {
        int b = kb->blk_of_file[q];
        int64_t num_entry = kb->file_count[q];
        kb->blk_present[b] = 1;
        kb->blk_count[b] = num_entry;
        kb->blk_start[b] = pos;
        pos += num_entry;
        for (int v = 0; v < vl.num; v++) {
          int p = mxn__var_pos(f, fam, v);
          int t = kb->truth && p >= 0 ? kb->truth[(int64_t)q * f->nvar[fam] + p] : 0;
          truth[(int64_t)b * vl.num + v] = t;
          if (t && num_entry > 0) vl.truth[(int64_t)b * vl.num + v] = 1;
        }
      }
      if (pos != kb->num) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: %s blocks hold %lld entries but the header says %lld",
                            f->path, mxn__blk_what[k], (long long)pos, (long long)kb->num);
        goto done;
      }
      kb->truth = truth; /* the one by file block stays in the arena */
    }

    for (int sk = 0; sk < MXN__NSK; sk++) {
      mxn__sets_t *fs = &f->sk[sk];
      int nss;
      const mxn_set_info_t *sets = mxn__ssets(s, sk, &nss);
      const mxn_var_list_t *vl = mxn__svars(s, sk);
      ARENA_ALLOC0(fs->count, nss);
      ARENA_ALLOC0(fs->df, nss);
      ARENA_ALLOC0(truth, (int64_t)nss * vl->num);
      for (int k = 0; k < fs->nfile; k++) {
        int q = find_set(sets, nss, fs->ids[k], k);
        if (q < 0) continue;
        int64_t c = fs->file_count[k], d = fs->file_df[k];
        fs->count[q] = c;
        fs->df[q] = d;
        for (int v = 0; v < vl->num; v++) {
          int p = mxn__var_pos(f, MXN__V_SET0 + sk, v);
          int t = fs->truth && p >= 0 ? fs->truth[(int64_t)k * f->nvar[MXN__V_SET0 + sk] + p] : 0;
          truth[(int64_t)q * vl->num + v] = t;
          if (t && c > 0) vl->truth[(int64_t)q * vl->num + v] = 1;
        }
      }
      fs->truth = truth;
    }
    /* A member without elements has no original ids to record. */
    if (!f->have_orig_map && f->kb[MXN__ELEM].num > 0) all_orig = 0;
    any_orig |= f->have_orig_map;
    /* Without id maps a member's entities cannot be matched with the
     * other members' (shared nodes, edges, faces). */
    if (ds->nfiles > 1) {
      const char *missing = NULL;
      if (f->kb[MXN__ELEM].num > 0 && !f->kb[MXN__ELEM].has_map)
        missing = "element id map (elem_num_map)";
      else if (f->num_nodes > 0 && !f->has_node_map)
        missing = "node id map (node_num_map)";
      else if (f->kb[MXN__EDGE].num > 0 && !f->kb[MXN__EDGE].has_map)
        missing = "edge id map (edge_num_map)";
      else if (f->kb[MXN__FACE].num > 0 && !f->kb[MXN__FACE].has_map)
        missing = "face id map (face_num_map)";
      if (missing) {
        status = MXN_DS_ERR(ds, MXN_ERR_NOMAP,
                            "%s: member of a %d-file spread set stores no %s, so "
                            "its global ids are unknown (write the set with "
                            "global id maps)",
                            f->path, ds->nfiles, missing);
        goto done;
      }
    }
  }
  s->has_original_elem_ids = all_orig && any_orig;
done:
  return status;
}

/* The end of an open after its members' merge: the index over them, or
 * the error, naming `path` where nothing more precise was said. */
int mxn__dataset_finish(mxn_dataset_t *ds, int status, const char *path) {
  if (status == MXN_OK) status = index_members(ds);
  if (status == MXN_OK) {
    ds->s.num_files = ds->nfiles;
    ds->opened = 1;
  } else if (ds->err.status == MXN_OK) {
    MXN_DS_ERR(ds, status, "%s: %s", path, mxn_strerror(status));
  }
  return status;
}

int mxn__dataset_merge(mxn_dataset_t *ds, char *const *bufs, const size_t *lens) {
  int status = MXN_OK;
  mxn_error_clear(&ds->err);
  for (int j = 0; j < ds->nfiles && status == MXN_OK; j++)
    status = mxn__member_merge(ds, j, bufs[j], lens[j]);
  return mxn__dataset_finish(ds, status, ds->files[0].path);
}
