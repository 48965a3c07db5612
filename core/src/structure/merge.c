/* The dataset's structure merged from its members' summaries (summary.h),
 * member by member in order, checked for agreement, then indexed per
 * member by structure block and set. */
#include "structure/summary.h"
#include "structure/merge_state.h"

#include <limits.h>
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

/* A member rebuilt after the open (records.c) declaring what the dataset
 * has not: its header changed since. */
static int unsettled(mxn_dataset_t *ds, int j, const char *kind, const char *what, int64_t id) {
  return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                    "%s: %s %s %lld is not the dataset's: the member changed since the "
                    "dataset was opened",
                    mxn__path(ds, j), kind, what, (long long)id);
}

/* While an open merges its members: what it keeps of members whose
 * records it drops, and the facts later phases ask of every member. */
struct mxn__merging {
  mxn__file_t *scratch[2]; /* records of members not held, by parity */
  mxn__file_t *prev;       /* member j-1's record (for "as member j-1") */
  int prev_held, same;     /* ... whether held; whether j said "as j-1" */
  mxn__arena_state_t decl_keep; /* the arrays of the last member not held
                                   that declared its own blocks and sets */
  mxn__arena_state_t spare;     /* an emptied one, for the next such member
                                   (a zeroed chunk each made the open of
                                   16384 members slower than keeping them) */
  /* Variables stored per structure block or set (family v: [obj][var],
   * rows x cols as far as they have grown): the structure's truth tables. */
  unsigned char *truth[MXN__NV];
  int rows[MXN__NV], cols[MXN__NV];
  mxn_error_t check;       /* the first member failing member_checks */
  mxn__file_t *cur;        /* the scratch record being merged, or NULL */
  int all_orig, any_orig;  /* original element ids in every / some member */
};

/* The record member j's summary merges into: its own, or a scratch one. */
static mxn__file_t *rec(const mxn_dataset_t *ds, int j) {
  return ds->mg->merging && ds->mg->merging->cur ? ds->mg->merging->cur : mxn__file_held(ds, j);
}

/* Mark variable x stored on object o in family v's gathered truth table,
 * growing it (by doubling) as blocks, sets and variables are added. */
static int pend_mark(struct mxn__merging *m, int v, int o, int x) {
  if (x >= m->cols[v]) {
    int nc = m->cols[v] * 2 > x + 1 ? m->cols[v] * 2 : x + 8;
    unsigned char *t = mxn__calloc((size_t)(m->rows[v] > 0 ? m->rows[v] : 1) * (size_t)nc, 1);
    if (!t) return MXN_ERR_NOMEM;
    for (int r = 0; r < m->rows[v]; r++)
      memcpy(t + (size_t)r * (size_t)nc, m->truth[v] + (size_t)r * (size_t)m->cols[v], (size_t)m->cols[v]);
    free(m->truth[v]);
    m->truth[v] = t;
    m->cols[v] = nc;
  }
  if (o >= m->rows[v]) {
    int nr = m->rows[v] * 2 > o + 1 ? m->rows[v] * 2 : o + 16;
    unsigned char *t = mxn__realloc(m->truth[v], (size_t)nr * (size_t)m->cols[v]);
    if (!t) return MXN_ERR_NOMEM;
    memset(t + (size_t)m->rows[v] * (size_t)m->cols[v], 0, (size_t)(nr - m->rows[v]) * (size_t)m->cols[v]);
    m->truth[v] = t;
    m->rows[v] = nr;
  }
  m->truth[v][(size_t)o * (size_t)m->cols[v] + (size_t)x] = 1;
  return MXN_OK;
}

/* Member f's truth rows of family v (by its own variables) into the
 * gathered table: a variable exists on a block or set where some member
 * stores it and holds entries there. */
static int pend_truth(mxn_dataset_t *ds, const mxn__file_t *f, int v) {
  struct mxn__merging *m = ds->mg->merging;
  const int n = f->nvar[v];
  const int *rows;
  int nrow, status = MXN_OK;
  if (v == MXN__V_ELEM || v == MXN__V_EDGE || v == MXN__V_FACE) {
    const mxn__blocks_t *kb = &f->kb[v == MXN__V_ELEM ? MXN__ELEM : v == MXN__V_EDGE ? MXN__EDGE : MXN__FACE];
    rows = kb->truth;
    nrow = kb->nspan;
    for (int i = 0; i < nrow; i++)
      for (int k = 0; k < n; k++)
        if (rows[(int64_t)i * n + k]) MXN_CHECK(pend_mark(m, v, kb->span[i].b, f->var_of[v][k]));
  } else {
    const mxn__sets_t *fs = &f->sk[v - MXN__V_SET0];
    rows = fs->truth;
    nrow = fs->nspan;
    for (int i = 0; i < nrow; i++)
      for (int k = 0; k < n && fs->span[i].count > 0; k++)
        if (rows[(int64_t)i * n + k]) MXN_CHECK(pend_mark(m, v, fs->span[i].q, f->var_of[v][k]));
  }
done:
  return status;
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

static mxn_block_info_t **block_list(mxn_structure_t *s, int k) {
  return k == MXN__ELEM ? &s->blocks : k == MXN__EDGE ? &s->edge_blocks : &s->face_blocks;
}
static int *block_count(mxn_structure_t *s, int k) {
  return k == MXN__ELEM ? &s->num_blocks : k == MXN__EDGE ? &s->num_edge_blocks
                                                          : &s->num_face_blocks;
}

/* Member j's declared blocks of kind k (nblk, from its header) from its
 * summary's declarations: the union over members by id; the member's
 * names kept for its spans. */
static int merge_block_decl(mxn_dataset_t *ds, int j, int k, int64_t nblk, rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  mxn__blocks_t *kb = &rec(ds, j)->kb[k];
  mxn_block_info_t **sb = block_list(s, k);
  int *nsb = block_count(s, k);
  int status = MXN_OK, *of;
  if (r_i64(r) != nblk || r->bad) {
    r->bad = 1;
    return MXN_OK;
  }
  char(*names)[MXN_NAME_LEN] = mxn__realloc(ds->mg->decl_names[k], (size_t)(nblk > 0 ? nblk : 1) *
                                                                   sizeof *names);
  if (!names) return MXN_ERR_NOMEM;
  ds->mg->decl_names[k] = names;
  /* rebuilt: into a buffer of its own first, to share the held one's */
  if (ds->mg->settled) MXN_ALLOC_RAW(of, nblk);
  else ARENA_ALLOC0(of, nblk);
  for (int q = 0; q < nblk && !r->bad; q++) {
    int64_t id = r_i64(r);
    r_str(r, names[q], MXN_NAME_LEN);
    if (r->bad) break;
    int b = find_block(*sb, *nsb, id, q);
    if (b < 0 && ds->mg->settled) {
      status = unsettled(ds, j, mxn__blk_what[k], "block", id);
      goto done;
    }
    if (b < 0) {
      MXN_CHECK(grow((void **)sb, sizeof **sb, *nsb));
      b = (*nsb)++;
      (*sb)[b].id = id;
      snprintf((*sb)[b].name, MXN_NAME_LEN, "%s", names[q]);
    }
    of[q] = b;
  }
  kb->nblk = (int)nblk;
  if (ds->mg->settled) {
    int *mine = of;
    if (ds->mg->decl_of[k] && ds->mg->decl_of_n[k] == nblk && !memcmp(mine, ds->mg->decl_of[k], (size_t)nblk * sizeof *of)) {
      of = (int *)ds->mg->decl_of[k];
    } else if ((of = nblk > 0 ? mxn__arena_calloc(ds, (size_t)nblk, sizeof *of) : NULL)) {
      memcpy(of, mine, (size_t)nblk * sizeof *of);
    }
    free(mine);
    if (!of && nblk > 0) return MXN_ERR_NOMEM;
  }
  kb->blk_of_file = of;
  if (!(ds->mg->merging && ds->mg->merging->cur)) { /* held: in the dataset's arena */
    ds->mg->decl_of[k] = of;
    ds->mg->decl_of_n[k] = (int)nblk;
  }
  return status;
done:
  if (ds->mg->settled) free(of);
  return status;
}

/* Member j's declared sets of every kind from its summary's declarations:
 * the union over members by id. */
static int merge_set_decl(mxn_dataset_t *ds, int j, const int64_t *nsets_of, rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = rec(ds, j);
  int status = MXN_OK;
  for (int sk = 0; sk < MXN__NSK && !r->bad; sk++) {
    int n = (int)nsets_of[sk];
    if (n <= 0) continue;
    if (r_i64(r) != n) {
      r->bad = 1;
      break;
    }
    mxn_set_info_t **sets = set_list(s, sk);
    int *nsets = set_count(s, sk);
    int64_t *ids;
    if (ds->mg->settled) MXN_ALLOC_RAW(ids, n); /* as merge_block_decl's */
    else ARENA_ALLOC0(ids, n);
    for (int k = 0; k < n && !r->bad; k++) {
      char name[MXN_NAME_LEN];
      ids[k] = r_i64(r);
      r_str(r, name, sizeof name);
      int q = find_set(*sets, *nsets, ids[k], k);
      if (q < 0 && ds->mg->settled) {
        status = unsettled(ds, j, mxn__set_what[sk], "", ids[k]);
        free(ids);
        goto done;
      }
      if (q < 0) {
        MXN_CHECK(grow((void **)sets, sizeof **sets, *nsets));
        q = (*nsets)++;
        (*sets)[q].id = ids[k];
      }
      if ((*sets)[q].name[0] == '\0' && !ds->mg->settled)
        snprintf((*sets)[q].name, MXN_NAME_LEN, "%s", name);
    }
    f->sk[sk].nfile = n;
    if (ds->mg->settled) {
      int64_t *mine = ids;
      if (ds->mg->decl_ids[sk] && ds->mg->decl_ids_n[sk] == n &&
          !memcmp(mine, ds->mg->decl_ids[sk], (size_t)n * sizeof *ids)) {
        ids = (int64_t *)ds->mg->decl_ids[sk];
      } else {
        ids = mxn__arena_calloc(ds, (size_t)n, sizeof *ids);
        if (ids) memcpy(ids, mine, (size_t)n * sizeof *ids);
      }
      free(mine);
      if (!ids) {
        status = MXN_ERR_NOMEM;
        goto done;
      }
    }
    f->sk[sk].ids = ids;
    if (!(ds->mg->merging && ds->mg->merging->cur)) {
      ds->mg->decl_ids[sk] = ids;
      ds->mg->decl_ids_n[sk] = n;
    }
  }
done:
  return status;
}

/* Member j's declarations as member j-1's (the summary's flag): the same
 * arrays, shared. */
static int same_decl(mxn_dataset_t *ds, int j, const int64_t *nblk_of, const int64_t *nsets_of) {
  if (j == 0) return 0;
  mxn__file_t *f = rec(ds, j), *p = ds->mg->merging->prev;
  if (!p) return 0;
  for (int k = 0; k < MXN__NBK; k++) {
    if (p->kb[k].nblk != nblk_of[k] || (nblk_of[k] > 0 && !ds->mg->decl_names[k])) return 0;
    f->kb[k].nblk = p->kb[k].nblk;
    f->kb[k].blk_of_file = p->kb[k].blk_of_file;
  }
  for (int sk = 0; sk < MXN__NSK; sk++) {
    if (p->sk[sk].nfile != (nsets_of[sk] > 0 ? nsets_of[sk] : 0)) return 0;
    f->sk[sk].nfile = p->sk[sk].nfile;
    f->sk[sk].ids = p->sk[sk].ids;
  }
  return 1;
}

/* Member j's blocks of kind k holding entries (its spans) from its
 * summary: sizes and types checked for agreement with the other members',
 * added to the structure's counts. In the member's order here;
 * index_members sorts them by structure block. */
static int merge_block_runs(mxn_dataset_t *ds, int j, int k, rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = rec(ds, j);
  mxn__blocks_t *kb = &f->kb[k];
  const char *what = mxn__blk_what[k];
  mxn_block_info_t *sb = *block_list(s, k);
  int status = MXN_OK;
  char topo[MXN_NAME_LEN], an[MXN_NAME_LEN];
  int64_t nspan = r_i64(r);
  if (r->bad || nspan < 0 || nspan > kb->nblk) {
    r->bad = 1;
    return MXN_OK;
  }
  kb->nspan = (int)nspan;
  ARENA_ALLOC0(kb->span, nspan);
  int64_t pos = 0;
  for (int i = 0; i < kb->nspan && !r->bad; i++) {
    int64_t q = r_i64(r);
    r_str(r, topo, sizeof topo);
    int64_t num_entry = r_i64(r), npe = r_i64(r), ned = r_i64(r), nfa = r_i64(r), nat = r_i64(r);
    if (r->bad || q < (i ? kb->span[i - 1].q + 1 : 0) || q >= kb->nblk || num_entry <= 0 ||
        nat < 0) {
      r->bad = 1;
      break;
    }
    int b = kb->blk_of_file[q];
    mxn__span_t *span = &kb->span[i];
    int poly = mxn__poly_kind(topo);
    *span = (mxn__span_t){.b = b, .q = (int)q, .count = num_entry, .start = pos,
                        .conn = poly == MXN_POLY_NSIDED ? npe : poly == MXN_POLY_NFACED ? nfa : 0};
    pos += num_entry;
    if (poly) npe = nfa = 0; /* per-file totals, not per entry */
    mxn_block_info_t *bi = &sb[b];
    int known = bi->nodes_per_elem > 0 || bi->type[0] != '\0';
    if (known && (bi->nodes_per_elem != npe || strcasecmp(bi->type, topo) != 0 ||
                  bi->num_attr != nat || bi->edges_per_elem != ned || bi->faces_per_elem != nfa)) {
      status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                          "%s: %s block %lld is %s with %lld nodes, %lld edges, %lld "
                          "faces and %lld attributes, elsewhere %s with %d, %d, %d "
                          "and %d: members of different datasets?",
                          f->path, what, (long long)bi->id, topo, (long long)npe, (long long)ned,
                          (long long)nfa, (long long)nat, bi->type, bi->nodes_per_elem,
                          bi->edges_per_elem, bi->faces_per_elem, bi->num_attr);
      goto done;
    }
    if (!known && ds->mg->settled) {
      status = unsettled(ds, j, what, "block", bi->id);
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
    if (ds->mg->settled) continue; /* counted when the dataset was opened */
    if (bi->name[0] == '\0') snprintf(bi->name, sizeof bi->name, "%s", ds->mg->decl_names[k][q]);
    bi->num_elements += num_entry;
    bi->num_conn += span->conn;
  }
done:
  return status;
}

/* Member j's sets with entries or factors (its spans) from its summary,
 * added to the structure's counts. */
static int merge_set_runs(mxn_dataset_t *ds, int j, const int64_t *nsets_of, rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = rec(ds, j);
  int status = MXN_OK;
  for (int sk = 0; sk < MXN__NSK && !r->bad; sk++) {
    if (nsets_of[sk] <= 0) continue;
    mxn__sets_t *fs = &f->sk[sk];
    mxn_set_info_t *sets = *set_list(s, sk);
    int nsets = *set_count(s, sk);
    int64_t nspan = r_i64(r);
    if (r->bad || nspan < 0 || nspan > fs->nfile) {
      r->bad = 1;
      break;
    }
    fs->nspan = (int)nspan;
    ARENA_ALLOC0(fs->span, nspan);
    for (int i = 0; i < fs->nspan && !r->bad; i++) {
      int64_t k = r_i64(r), cnt = r_i64(r), ndf = r_i64(r);
      if (r->bad || k < (i ? fs->span[i - 1].k + 1 : 0) || k >= fs->nfile || cnt < 0 || ndf < 0) {
        r->bad = 1;
        break;
      }
      int q = find_set(sets, nsets, fs->ids[k], (int)k);
      fs->span[i] = (mxn__set_span_t){.q = q, .k = (int)k, .count = cnt, .df = ndf};
      if (ds->mg->settled) continue;
      sets[q].num_entries += cnt;
      if (ndf > 0) sets[q].has_df = 1;
    }
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
  mxn__file_t *f = rec(ds, j);
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
  if (ds->mg->settled) { /* every name is the dataset's already */
    for (; k < n; k++) {
      int at = -1;
      for (int d = 0; d < *num && at < 0; d++) {
        if (strcmp(got[k], (*names)[d]) != 0) continue;
        int taken = 0;
        for (int i = 0; i < k && !taken; i++) taken = of[i] == d;
        if (!taken) at = d;
      }
      if (at < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                            "%s: variable %s is not the dataset's: the member changed since "
                            "the dataset was opened", f->path, got[k]);
        goto done;
      }
      of[k] = at;
    }
    goto done;
  }
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

/* Merge member j's summary (`len` bytes at `buf`) into the structure. */
/* Member j's numbered maps (nmaps_of per entity kind, of members with
 * nents_of entities) from the stream: the union by id per entity kind;
 * nem_spread's record of the original element ids is one of them. */
static int merge_maps(mxn_dataset_t *ds, int j, const int64_t nmaps_of[MXN__NEK],
                      const int64_t nents_of[MXN__NEK], rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = rec(ds, j);
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
      if (q < 0 && ds->mg->settled) {
        status = unsettled(ds, j, mxn__ent_what[e], "map", f->map_ids[e][k]);
        goto done;
      }
      if (q < 0) {
        MXN_CHECK(grow((void **)maps, sizeof **maps, *nmaps));
        q = (*nmaps)++;
        (*maps)[q].id = f->map_ids[e][k];
      }
      if ((*maps)[q].name[0] == '\0' && !ds->mg->settled)
        snprintf((*maps)[q].name, MXN_NAME_LEN, "%s", name);
      if (e == MXN__ELEM && strcmp(name, "original_global_id_map") == 0) {
        f->have_orig_map = 1;
        f->orig_map_id = (int)f->map_ids[e][k];
      }
    }
  }
done:
  return status;
}

/* Member 0's records (summary.c, summarize_records) into the structure:
 * MXN_ERR_MPI where the stream is malformed. Taken where the structure
 * has none yet (the open's merge of member 0). */
static int merge_records(mxn_dataset_t *ds, rbuf_t *r) {
  mxn_structure_t *s = &ds->s;
  int status = MXN_OK;
  char(*qa)[4][MXN_QA_LEN] = NULL, (*info)[MXN_INFO_LEN] = NULL;
  mxn_assembly_info_t *as = NULL;
  int64_t nas = 0;
  /* the counts are the header's, read with it (s->num_qa, s->num_info) */
  if ((size_t)s->num_qa > (r->n - r->at) / 32 || (size_t)s->num_info > (r->n - r->at) / 8)
    return MXN_ERR_MPI;
  if (s->num_qa > 0) MXN_ALLOC(qa, s->num_qa);
  for (int i = 0; i < s->num_qa; i++)
    for (int k = 0; k < 4; k++) r_str(r, qa[i][k], MXN_QA_LEN);
  if (s->num_info > 0) MXN_ALLOC(info, s->num_info);
  for (int i = 0; i < s->num_info; i++) r_str(r, info[i], MXN_INFO_LEN);
  nas = r_i64(r);
  if (r->bad || nas < 0 || (size_t)nas > (r->n - r->at) / 32) {
    status = MXN_ERR_MPI;
    goto done;
  }
  if (nas > 0) MXN_ALLOC(as, nas);
  for (int64_t i = 0; i < nas; i++) {
    as[i].id = r_i64(r);
    as[i].type = (int)r_i64(r);
    r_str(r, as[i].name, MXN_NAME_LEN);
    as[i].num_members = r_i64(r);
    if (r->bad || as[i].num_members < 0 ||
        (size_t)as[i].num_members > (r->n - r->at) / sizeof(int64_t)) {
      status = MXN_ERR_MPI;
      goto done;
    }
    MXN_ALLOC_RAW(as[i].members, as[i].num_members);
    r_raw(r, as[i].members, (size_t)as[i].num_members * sizeof *as[i].members);
  }
  if (r->bad) {
    status = MXN_ERR_MPI;
    goto done;
  }
  if (!ds->mg->settled && !s->qa_records && !s->info_records && !s->assemblies) {
    s->qa_records = qa;
    s->info_records = info;
    s->assemblies = as;
    s->num_assemblies = (int)nas;
    qa = NULL;
    info = NULL;
    as = NULL;
  }
done:
  free(qa);
  free(info);
  for (int64_t i = 0; as && i < nas; i++) free(as[i].members);
  free(as);
  return status;
}

static int merge_summary(mxn_dataset_t *ds, int j, const char *buf, size_t len) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = rec(ds, j);
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
  if (j == 0 && !ds->mg->settled) {
    s->num_dim = (int)num_dim;
    snprintf(s->title, sizeof s->title, "%s", title);
    s->float_word_size = fws;
    for (int d = 0; d < 3; d++) memcpy(s->coord_names[d], cn[d], MXN_NAME_LEN);
    s->num_qa = nqa;
    s->num_info = ninfo;
  } else if (num_dim != s->num_dim) {
    return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                      "%s: is %lldD but %s is %dD: members of different datasets", f->path,
                      (long long)num_dim, mxn__path(ds, 0), s->num_dim);
  }
  if (!ds->mg->settled) {
    s->num_nodes_sum += num_nodes;
    s->num_elements_sum += num_elem;
    s->num_edges_sum += num_edge;
    s->num_faces_sum += num_face;
    if (i64ids) s->int64_ids = 1;
  }

  /* Nemesis global counts tie the members of one decomposition together
   * (checked at the open: the id settlement may have changed them since). */
  if (glob_ok && !ds->mg->settled) {
    if (j == 0 || s->num_nodes_global < 0) {
      s->num_nodes_global = nng;
      s->num_elements_global = neg;
    } else if (nng != s->num_nodes_global || neg != s->num_elements_global) {
      return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                        "%s: Nemesis global counts (%lld nodes, %lld elements) "
                        "differ from %s (%lld, %lld): members of different "
                        "datasets",
                        f->path, (long long)nng, (long long)neg, mxn__path(ds, 0),
                        (long long)s->num_nodes_global, (long long)s->num_elements_global);
    }
  }
  if (nproc_ok && mxn__store_set_m(ds) > 1 && nproc != mxn__store_set_m(ds))
    return MXN_DS_ERR(ds, MXN_ERR_FILESET,
                      "%s: Nemesis data says the set has %d files, the "
                      "name says %d",
                      f->path, nproc, mxn__store_set_m(ds));

  /* The blocks and sets the member declares (as member j-1's where the
   * summary says so): their union over members by id. */
  int same = (int)r_i64(r);
  if (r->bad || (same && (ds->mg->settled || !same_decl(ds, j, nblk_of, nsets_of)))) goto bad;
  if (ds->mg->merging) ds->mg->merging->same = same;
  for (int k = 0; k < MXN__NBK && !same; k++)
    MXN_CHECK(merge_block_decl(ds, j, k, nblk_of[k], r));
  if (!same) MXN_CHECK(merge_set_decl(ds, j, nsets_of, r));
  if (r->bad) goto bad;

  /* Those holding entries, checked for agreement and counted. */
  for (int k = 0; k < MXN__NBK; k++) MXN_CHECK(merge_block_runs(ds, j, k, r));
  MXN_CHECK(merge_set_runs(ds, j, nsets_of, r));
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
      /* over the spans, one byte a value */
      int **tp = v == MXN__V_ELEM   ? &f->kb[MXN__ELEM].truth
                 : v == MXN__V_EDGE ? &f->kb[MXN__EDGE].truth
                 : v == MXN__V_FACE ? &f->kb[MXN__FACE].truth
                                    : &f->sk[v - MXN__V_SET0].truth;
      int64_t nrow = v == MXN__V_ELEM   ? f->kb[MXN__ELEM].nspan
                     : v == MXN__V_EDGE ? f->kb[MXN__EDGE].nspan
                     : v == MXN__V_FACE ? f->kb[MXN__FACE].nspan
                                        : f->sk[v - MXN__V_SET0].nspan;
      if ((size_t)(nrow * n) > r->n - r->at) goto bad;
      ARENA_ALLOC0(*tp, nrow * n);
      for (int64_t i = 0; i < nrow * n; i++) (*tp)[i] = (unsigned char)r->p[r->at + (size_t)i];
      r->at += (size_t)(nrow * n);
      if (!ds->mg->settled) MXN_CHECK(pend_truth(ds, f, v));
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
  if (j == 0 && !ds->mg->settled) {
    s->num_times = nt;
    s->times = times;
    times = NULL;
  } else {
    if (nt != s->num_times) {
      status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT, "%s: has %d time steps, %s has %d", f->path,
                          nt, mxn__path(ds, 0), s->num_times);
      goto done;
    }
    for (int i = 0; i < nw; i++) {
      int k = nw < nt && i == 1 ? nt - 1 : i; /* first and last only: the last second */
      if (!mxn__same_time(tv[i], s->times[k])) {
        status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT, "%s: time step %d is %.17g, in %s it is %.17g",
                            f->path, k + 1, tv[i], mxn__path(ds, 0), s->times[k]);
        goto done;
      }
    }
  }

  /* Member 0's global variables at every step, when it kept them. */
  int64_t nglob = r_i64(r);
  if (r->bad || nglob < 0 || (size_t)nglob > (r->n - r->at) / sizeof(double) ||
      (j > 0 && nglob > 0) || (nglob > 0 && nt > 0 && nglob % nt != 0))
    goto bad;
  if (nglob > 0 && nt > 0 && ds->mg->settled) {
    r->at += (size_t)nglob * sizeof(double); /* kept when the dataset was opened */
  } else if (nglob > 0 && nt > 0) {
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
  /* Member 0's QA and information records and assemblies, once. */
  int with = (int)r_i64(r);
  if (r->bad || (with && j != 0)) goto bad;
  if (with) {
    status = merge_records(ds, r);
    if (status == MXN_ERR_MPI) goto bad;
    MXN_CHECK(status);
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

/* Order of spans by structure block (set). */
static int by_block(const void *x, const void *y) {
  int a = ((const mxn__span_t *)x)->b, b = ((const mxn__span_t *)y)->b;
  return (a > b) - (a < b);
}
static int by_set(const void *x, const void *y) {
  int a = ((const mxn__set_span_t *)x)->q, b = ((const mxn__set_span_t *)y)->q;
  return (a > b) - (a < b);
}

/* Position of `key` in the n ascending `keys` (it is there). */
static int row_of(const int *keys, int n, int key) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Sort n spans (each `size` bytes) by cmp, and their truth rows (nv ints
 * each, *rows) with them: a span's row is found by its position in the
 * member (the int at `pos_at`), ascending before the sort. The sorted
 * rows are new (arena): rare (spans declared in another order than the
 * first member's). */
static int sort_with_rows(mxn_dataset_t *ds, void *span, int n, size_t size, size_t pos_at,
                          int (*cmp)(const void *, const void *), int **rows, int nv) {
  int status = MXN_OK, *was, *truth;
  char *sp = span;
  ARENA_ALLOC0(was, n);
  for (int i = 0; i < n; i++) memcpy(&was[i], sp + (size_t)i * size + pos_at, sizeof *was);
  qsort(span, (size_t)n, size, cmp);
  ARENA_ALLOC0(truth, (int64_t)n * nv);
  for (int i = 0; i < n && nv > 0; i++) {
    int pos;
    memcpy(&pos, sp + (size_t)i * size + pos_at, sizeof pos);
    memcpy(truth + (int64_t)i * nv, *rows + (int64_t)row_of(was, n, pos) * nv,
           (size_t)nv * sizeof *truth);
  }
  *rows = truth;
done:
  return status;
}

/* Member j's spans of block kind k, once the union is known: their truth
 * rows by the dataset's variables, sorted by structure block. */
static int index_blocks(mxn_dataset_t *ds, int j, int k) {
  mxn__file_t *f = rec(ds, j);
  mxn__blocks_t *kb = &f->kb[k];
  const mxn_var_list_t vl = mxn__bvars(&ds->s, k);
  const int fam = k == MXN__ELEM ? MXN__V_ELEM : k == MXN__EDGE ? MXN__V_EDGE : MXN__V_FACE;
  int status = MXN_OK, *truth = NULL, sorted = 1;
  for (int i = 1; i < kb->nspan; i++)
    if (kb->span[i].b <= kb->span[i - 1].b) sorted = 0;
  ARENA_ALLOC0(truth, (int64_t)kb->nspan * vl.num);
  for (int i = 0; i < kb->nspan; i++)
    for (int v = 0; v < vl.num; v++) {
      int p = mxn__var_pos(f, fam, v);
      truth[(int64_t)i * vl.num + v] = kb->truth && p >= 0 ? kb->truth[(int64_t)i * f->nvar[fam] + p] : 0;
    }
  kb->truth = truth; /* the one by the member's variables stays in the arena */
  kb->in_file_order = 1;
  if (!sorted) {
    MXN_CHECK(sort_with_rows(ds, kb->span, kb->nspan, sizeof *kb->span, offsetof(mxn__span_t, q),
                             by_block, &kb->truth, vl.num));
    for (int i = 1; i < kb->nspan; i++)
      if (kb->span[i].start < kb->span[i - 1].start) kb->in_file_order = 0;
  }
done:
  return status;
}

/* Member j's spans of set kind sk, as index_blocks does its blocks'. */
static int index_sets(mxn_dataset_t *ds, int j, int sk) {
  mxn__file_t *f = rec(ds, j);
  mxn__sets_t *fs = &f->sk[sk];
  const mxn_var_list_t *vl = mxn__svars(&ds->s, sk);
  const int fam = MXN__V_SET0 + sk;
  int status = MXN_OK, *truth = NULL, sorted = 1;
  ARENA_ALLOC0(truth, (int64_t)fs->nspan * vl->num);
  for (int i = 0; i < fs->nspan; i++) {
    if (i > 0 && fs->span[i].q <= fs->span[i - 1].q) sorted = 0;
    for (int v = 0; v < vl->num; v++) {
      int p = mxn__var_pos(f, fam, v);
      truth[(int64_t)i * vl->num + v] = fs->truth && p >= 0 ? fs->truth[(int64_t)i * f->nvar[fam] + p] : 0;
    }
  }
  fs->truth = truth;
  if (!sorted)
    MXN_CHECK(sort_with_rows(ds, fs->span, fs->nspan, sizeof *fs->span,
                             offsetof(mxn__set_span_t, k), by_set, &fs->truth, vl->num));
done:
  return status;
}

int mxn__member_index(mxn_dataset_t *ds, int j) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = rec(ds, j);
  int status = MXN_OK;
  /* The member's own position of each dataset variable, -1 if absent. */
  for (int v = 0; v < MXN__NV; v++) {
    int *num;
    char(**names)[MXN_NAME_LEN];
    fam_names(s, v, &num, &names);
    ARENA_ALLOC0(f->var_pos[v], *num);
    for (int d = 0; d < *num; d++) f->var_pos[v][d] = -1;
    for (int k = 0; k < f->nvar[v]; k++) f->var_pos[v][f->var_of[v][k]] = k;
  }
  for (int k = 0; k < MXN__NBK; k++) MXN_CHECK(index_blocks(ds, j, k));
  for (int sk = 0; sk < MXN__NSK; sk++) MXN_CHECK(index_sets(ds, j, sk));
done:
  return status;
}

/* Member j's checks that need no other member (its spans against its
 * entry counts, its id maps), error in ds->err. */
static int member_checks(mxn_dataset_t *ds, int j) {
  const mxn__file_t *f = rec(ds, j);
  for (int k = 0; k < MXN__NBK; k++) {
    const mxn__blocks_t *kb = &f->kb[k];
    int64_t pos = 0;
    for (int i = 0; i < kb->nspan; i++) pos += kb->span[i].count;
    if (pos != kb->num)
      return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s blocks hold %lld entries but the header says %lld",
                        f->path, mxn__blk_what[k], (long long)pos, (long long)kb->num);
  }
  /* Without id maps a member's entities cannot be matched with the other
   * members' (shared nodes, edges, faces). */
  if (ds->nfiles <= 1) return MXN_OK;
  const char *missing = NULL;
  if (f->kb[MXN__ELEM].num > 0 && !f->kb[MXN__ELEM].has_map)
    missing = "element id map (elem_num_map)";
  else if (f->num_nodes > 0 && !f->has_node_map)
    missing = "node id map (node_num_map)";
  else if (f->kb[MXN__EDGE].num > 0 && !f->kb[MXN__EDGE].has_map)
    missing = "edge id map (edge_num_map)";
  else if (f->kb[MXN__FACE].num > 0 && !f->kb[MXN__FACE].has_map)
    missing = "face id map (face_num_map)";
  if (!missing) return MXN_OK;
  return MXN_DS_ERR(ds, MXN_ERR_NOMAP,
                    "%s: member of a %d-file spread set stores no %s, so "
                    "its global ids are unknown (write the set with "
                    "global id maps)",
                    f->path, mxn__store_set_m(ds), missing);
}

/* What merging member j adds beyond the structure: the facts later phases
 * ask of all members (their checks' first failure, kept for after the
 * merge as the index reported it; original ids; nodal variables). */
static void merge_facts(mxn_dataset_t *ds, int j) {
  struct mxn__merging *m = ds->mg->merging;
  const mxn__file_t *f = rec(ds, j);
  mxn_error_t keep = ds->err;
  int st = member_checks(ds, j);
  if (st != MXN_OK && m->check.status == MXN_OK) m->check = ds->err;
  ds->err = keep;
  if (!f->have_orig_map && f->kb[MXN__ELEM].num > 0) m->all_orig = 0;
  m->any_orig |= f->have_orig_map;
  if (f->nvar[MXN__V_NODAL] < ds->nodal_min) ds->nodal_min = f->nvar[MXN__V_NODAL];
}

static void merging_end(mxn_dataset_t *ds) {
  struct mxn__merging *m = ds->mg->merging;
  if (!m) return;
  for (int i = 0; i < 2; i++) {
    if (m->scratch[i]) free(m->scratch[i]->path);
    free(m->scratch[i]);
  }
  mxn__arena_release(&m->decl_keep);
  mxn__arena_release(&m->spare);
  for (int v = 0; v < MXN__NV; v++) free(m->truth[v]);
  free(m);
  ds->mg->merging = NULL;
}

/* Member j's declarations shared with member j-1's, whose record is not
 * kept: copied into the dataset's arena. */
static int own_decl(mxn_dataset_t *ds, mxn__file_t *f) {
  int status = MXN_OK;
  for (int k = 0; k < MXN__NBK; k++) {
    int *of;
    ARENA_ALLOC0(of, f->kb[k].nblk);
    if (of) memcpy(of, f->kb[k].blk_of_file, (size_t)f->kb[k].nblk * sizeof *of);
    f->kb[k].blk_of_file = ds->mg->decl_of[k] = of;
    ds->mg->decl_of_n[k] = f->kb[k].nblk;
  }
  for (int sk = 0; sk < MXN__NSK; sk++) {
    int64_t *ids;
    ARENA_ALLOC0(ids, f->sk[sk].nfile);
    if (ids) memcpy(ids, f->sk[sk].ids, (size_t)f->sk[sk].nfile * sizeof *ids);
    f->sk[sk].ids = ds->mg->decl_ids[sk] = ids;
    ds->mg->decl_ids_n[sk] = f->sk[sk].nfile;
  }
done:
  return status;
}

/* Member j's summary merged: into its record where it has one (held, or
 * being rebuilt: ds->mg->settled); otherwise into a scratch record whose
 * arrays come from an arena of their own, dropped after the merge, the
 * structure keeping what it learnt. Declarations a next member may share
 * stay until a later member declares others. */
int mxn__member_merge(mxn_dataset_t *ds, int j, const char *buf, size_t len) {
  if (ds->mg->settled) return merge_summary(ds, j, buf, len);
  int status = MXN_OK;
  struct mxn__merging *m = ds->mg->merging;
  if (!m) {
    if (!(m = ds->mg->merging = mxn__calloc(1, sizeof *m))) return MXN_ERR_NOMEM;
    m->all_orig = ds->nfiles > 0;
    ds->nodal_min = INT_MAX;
  }
  mxn__file_t *f = mxn__file_held(ds, j);
  const int held = f != NULL;
  mxn__arena_state_t own = m->spare;
  if (!held) {
    if (!m->scratch[j & 1] && !(m->scratch[j & 1] = mxn__calloc(1, sizeof *f))) return MXN_ERR_NOMEM;
    f = m->scratch[j & 1];
    free(f->path);
    memset(f, 0, sizeof *f);
    f->ncid = -1;
    f->j = j;
    mxn__store_attach(ds, f);
    if (!(f->path = mxn__path_dup(ds, j))) return MXN_ERR_NOMEM;
    m->cur = f;
    memset(&m->spare, 0, sizeof m->spare); /* in use: own */
    mxn__arena_swap(ds, &own);
  }
  m->same = 0;
  status = merge_summary(ds, j, buf, len);
  if (status == MXN_OK && held && m->same && m->prev && !m->prev_held) status = own_decl(ds, f);
  if (status == MXN_OK) merge_facts(ds, j);
  if (!held) {
    mxn__arena_swap(ds, &own);
    m->cur = NULL;
    if (m->same) {
      mxn__arena_reset(&own);
      m->spare = own;
    } else {
      mxn__arena_release(&m->decl_keep);
      m->decl_keep = own;
    }
  }
  m->prev = f;
  m->prev_held = held;
  return status;
}

/* The structure's truth tables from those the merge gathered. */
static int settle_truth(mxn_dataset_t *ds) {
  mxn_structure_t *s = &ds->s;
  struct mxn__merging *m = ds->mg->merging;
  int status = MXN_OK;
  for (int v = 0; v < MXN__NV; v++) {
    if (v == MXN__V_NODAL || v == MXN__V_GLOBAL) continue;
    int nobj, *truth, nv;
    if (v == MXN__V_ELEM) {
      nobj = s->num_blocks;
      nv = s->num_elem_vars;
      MXN_ALLOC(s->elem_var_truth, (int64_t)nobj * nv);
      truth = s->elem_var_truth;
    } else {
      mxn_var_list_t *vl = v == MXN__V_EDGE ? &s->edge_vars
                           : v == MXN__V_FACE ? &s->face_vars
                                              : (mxn_var_list_t *)mxn__svars(s, v - MXN__V_SET0);
      if (v == MXN__V_EDGE) nobj = s->num_edge_blocks;
      else if (v == MXN__V_FACE) nobj = s->num_face_blocks;
      else mxn__ssets(s, v - MXN__V_SET0, &nobj);
      nv = vl->num;
      MXN_ALLOC(vl->truth, (int64_t)nobj * nv);
      truth = vl->truth;
    }
    for (int o = 0; m && o < nobj && o < m->rows[v]; o++)
      for (int x = 0; x < nv && x < m->cols[v]; x++)
        truth[(int64_t)o * nv + x] = m->truth[v][(int64_t)o * m->cols[v] + x];
  }
done:
  return status;
}

/* The end of an open after its members' merge: the index over the members
 * held, or the error, naming `path` where nothing more precise was said. */
int mxn__dataset_finish(mxn_dataset_t *ds, int status, const char *path) {
  if (status == MXN_OK && ds->mg->merging && ds->mg->merging->check.status != MXN_OK) {
    ds->err = ds->mg->merging->check;
    status = ds->err.status;
  }
  if (status == MXN_OK) status = settle_truth(ds);
  for (int j = 0; j < ds->nfiles && status == MXN_OK; j++)
    if (mxn__file_held(ds, j)) status = mxn__member_index(ds, j);
  if (status == MXN_OK) {
    ds->s.has_original_elem_ids = ds->mg->merging && ds->mg->merging->all_orig && ds->mg->merging->any_orig;
    ds->s.num_files = ds->nfiles;
    ds->s.num_files_set = mxn__store_set_m(ds);
    /* Some members only: the Nemesis counts are the whole set's (checked
     * above to agree between the members read, as those of one set). */
    if (mxn__store_ranks_named(ds)) ds->s.num_nodes_global = ds->s.num_elements_global = -1;
    ds->opened = 1;
  } else if (ds->err.status == MXN_OK) {
    MXN_DS_ERR(ds, status, "%s: %s", path, mxn_strerror(status));
  }
  merging_end(ds);
  return status;
}

int mxn__dataset_merge(mxn_dataset_t *ds, char *const *bufs, const size_t *lens) {
  int status = MXN_OK;
  mxn_error_clear(&ds->err);
  for (int j = 0; j < ds->nfiles && status == MXN_OK; j++)
    status = mxn__member_merge(ds, j, bufs[j], lens[j]);
  return mxn__dataset_finish(ds, status, mxn__path(ds, 0));
}

void mxn__merging_free(mxn_dataset_t *ds) {
  if (ds->mg) merging_end(ds);
}

int mxn__merge_state_new(mxn_dataset_t *ds) {
  ds->mg = mxn__calloc(1, sizeof *ds->mg);
  if (!ds->mg) return MXN_ERR_NOMEM;
  ds->mg->decl_prev_j = -1;
  for (int k = 0; k < MXN__NV; k++) ds->mg->vars_from[k] = -1;
  return MXN_OK;
}

void mxn__merge_state_free(mxn_dataset_t *ds) {
  if (!ds->mg) return;
  free(ds->mg->decl_prev);
  for (int k = 0; k < MXN__NBK; k++) free(ds->mg->decl_names[k]);
  free(ds->mg);
  ds->mg = NULL;
}

size_t mxn__merge_state_bytes(const mxn_dataset_t *ds) { return ds->mg ? sizeof *ds->mg : 0; }
