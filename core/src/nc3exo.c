/* What a member summary asks of Exodus, answered from a netCDF-3 member
 * read directly (nc3exo.h). The names are Exodus's (exodusII_int.h); the
 * answers follow Exodus 6.02 as the summary uses it, and a test compares
 * the two summaries of every member of every test dataset byte for byte. */
#include "nc3exo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exodus reads names at most this long unless told otherwise (the core
 * does not tell it). */
#define X_NAME_READ 32

typedef struct {
  const char *ids, *status, *names;
} kind_names_t;

/* Variables of the kinds the direct summary takes. */
static kind_names_t kind_names(ex_entity_type t) {
  switch (t) {
    case EX_ELEM_BLOCK: return (kind_names_t){"eb_prop1", "eb_status", "eb_names"};
    case EX_NODE_SET: return (kind_names_t){"ns_prop1", "ns_status", "ns_names"};
    case EX_SIDE_SET: return (kind_names_t){"ss_prop1", "ss_status", "ss_names"};
    case EX_ELEM_MAP: return (kind_names_t){"em_prop1", NULL, "emap_names"};
    case EX_NODE_MAP: return (kind_names_t){"nm_prop1", NULL, "nmap_names"};
    default: return (kind_names_t){NULL, NULL, NULL};
  }
}

typedef struct {
  const char *count, *names, *tab;
} var_names_t;

static var_names_t var_names(ex_entity_type t) {
  switch (t) {
    case EX_NODAL: return (var_names_t){"num_nod_var", "name_nod_var", NULL};
    case EX_GLOBAL: return (var_names_t){"num_glo_var", "name_glo_var", NULL};
    case EX_ELEM_BLOCK: return (var_names_t){"num_elem_var", "name_elem_var", "elem_var_tab"};
    case EX_NODE_SET: return (var_names_t){"num_nset_var", "name_nset_var", "nset_var_tab"};
    case EX_SIDE_SET: return (var_names_t){"num_sset_var", "name_sset_var", "sset_var_tab"};
    default: return (var_names_t){NULL, NULL, NULL};
  }
}

static int64_t dim_or_0(const mxn__nc3_t *h, const char *name) {
  int64_t n = 0;
  return mxn__nc3_dim(h, name, &n) ? n : 0;
}

/* Variable `name` whole as int64 values (n of them); 0 on success. */
static int read_all_l(const mxn__nc3_t *h, const char *name, int64_t n, int64_t *out) {
  int v = mxn__nc3_var(h, name);
  if (v < 0) return -1;
  if (n == 0) return 0;
  if (h->vars[v].nd != 1 || mxn__nc3_var_dim(h, v, 0) != (uint64_t)n) return -1;
  size_t start = 0, count = (size_t)n;
  return mxn__nc3_get(h, v, &start, &count, NULL, out, 'l') == 0 ? 0 : -1;
}

/* Whether entry q (1-based) of status variable `name` is 0: Exodus's
 * NULL (empty) entity. */
static int status_zero(const mxn__nc3_t *h, const char *name, int q) {
  int sv = name ? mxn__nc3_var(h, name) : -1;
  int64_t st = 1;
  size_t s = (size_t)q - 1, c = 1;
  return sv >= 0 && h->vars[sv].nd == 1 && mxn__nc3_var_dim(h, sv, 0) >= (uint64_t)q &&
         mxn__nc3_get(h, sv, &s, &c, NULL, &st, 'l') == 0 && st == 0;
}

/* Position (1-based) of `id` among the kind's ids and whether its status
 * marks it empty (Exodus's NULL entity), as Exodus looks it up: the first
 * entry with that id. 0 if absent or unreadable. */
static int lookup(const mxn__nc3_t *h, ex_entity_type t, int64_t id, int *null) {
  kind_names_t kn = kind_names(t);
  int v = mxn__nc3_var(h, kn.ids);
  *null = 0;
  if (v < 0 || h->vars[v].nd != 1) return 0;
  size_t n = (size_t)mxn__nc3_var_dim(h, v, 0);
  /* a member's blocks and sets are few: their ids on the stack (asked once
   * per block and set of every member, on the member's rank) */
  int64_t few[64];
  int64_t *ids = n <= 64 ? few : malloc(n * sizeof *ids);
  if (!ids) return 0;
  size_t start = 0;
  int at = 0;
  if (n && mxn__nc3_get(h, v, &start, &n, NULL, ids, 'l') == 0)
    for (size_t i = 0; i < n && !at; i++)
      if (ids[i] == id) at = (int)i + 1;
  if (ids != few) free(ids);
  *null = at && status_zero(h, kn.status, at);
  return at;
}

/* One row of a names variable as Exodus gives it: at most X_NAME_READ
 * characters, up to the first NUL, trailing white space off. */
static void take_name(const char *row, uint64_t len, char *out) {
  size_t n = 0, cap = len < X_NAME_READ ? (size_t)len : X_NAME_READ;
  while (n < cap && row[n]) n++;
  while (n > 0 && isspace((unsigned char)row[n - 1])) n--;
  memcpy(out, row, n);
  out[n] = '\0';
}

/* n names from variable `name` [n, len] (absent: all empty), read at once. */
static int read_names(const mxn__nc3_t *h, const char *name, int n, char **out) {
  int v = mxn__nc3_var(h, name);
  for (int i = 0; i < n; i++) out[i][0] = '\0';
  if (v < 0 || n == 0) return 0;
  if (h->vars[v].nd != 2 || mxn__nc3_var_dim(h, v, 0) < (uint64_t)n) return -1;
  uint64_t len = mxn__nc3_var_dim(h, v, 1);
  if (len == 0) return 0;
  char few[2048];
  size_t bytes = (size_t)n * (size_t)len;
  char *rows = bytes <= sizeof few ? few : malloc(bytes);
  size_t start[2] = {0, 0}, count[2] = {(size_t)n, (size_t)len};
  int rc = rows && mxn__nc3_get(h, v, start, count, NULL, rows, 'c') == 0 ? 0 : -1;
  for (int i = 0; rc == 0 && i < n; i++) take_name(rows + (size_t)i * len, len, out[i]);
  if (rows != few) free(rows);
  return rc;
}

static int text_att(const mxn__nc3_t *h, int v, const char *name, char *out, size_t cap) {
  const mxn__nc3_att_t *a = mxn__nc3_att(h, v, name);
  out[0] = '\0';
  if (!a || a->type != 2 || a->n >= cap) return -1;
  memcpy(out, mxn__nc3_name(h, a->val), (size_t)a->n);
  out[a->n] = '\0';
  return 0;
}

/* The block's sizes, as dimension names of its position q. */
static void block_dims(int q, int64_t *ne, int64_t *npe, int64_t *epe, int64_t *fpe,
                       int64_t *na, const mxn__nc3_t *h, int *have_ne) {
  char name[64];
  mxn__name_d(name, sizeof name, "num_el_in_blk%d", q);
  *have_ne = mxn__nc3_dim(h, name, ne);
  mxn__name_d(name, sizeof name, "num_nod_per_el%d", q);
  *npe = dim_or_0(h, name);
  mxn__name_d(name, sizeof name, "num_edg_per_el%d", q);
  *epe = dim_or_0(h, name);
  mxn__name_d(name, sizeof name, "num_fac_per_el%d", q);
  *fpe = dim_or_0(h, name);
  mxn__name_d(name, sizeof name, "num_att_in_blk%d", q);
  *na = dim_or_0(h, name);
}

/* Every set of the kind has its size dimension or is empty by its status. */
static int sets_sized(const mxn__nc3_t *h, ex_entity_type t, const char *count, const char *fmt) {
  int64_t n = dim_or_0(h, count), x;
  int v = mxn__nc3_var(h, kind_names(t).ids);
  for (int q = 1; q <= n; q++) {
    char name[64];
    mxn__name_d(name, sizeof name, fmt, q);
    if (mxn__nc3_dim(h, name, &x)) continue;
    int null;
    int64_t id;
    size_t s = (size_t)q - 1, c = 1;
    if (mxn__nc3_get(h, v, &s, &c, NULL, &id, 'l') != 0 || lookup(h, t, id, &null) != q || !null)
      return 0;
  }
  return 1;
}

const char *mxn__x_summary_why(const mxn__nc3_t *h) {
  static const char *const none[] = {"num_ed_blk", "num_fa_blk", "num_edge_sets",
                                     "num_face_sets", "num_elem_sets", "num_edge_maps",
                                     "num_face_maps", "num_edge", "num_face"};
  int64_t n;
  if (!mxn__nc3_dim(h, "num_dim", &n)) return "no num_dim";
  for (size_t i = 0; i < sizeof none / sizeof *none; i++)
    if (dim_or_0(h, none[i]) != 0) return none[i];
  const mxn__nc3_att_t *title = mxn__nc3_att(h, -1, "title");
  /* Exodus reads the title into 81 bytes: 80 characters and a NUL, or
   * 81 of which the last is the NUL Exodus writes */
  if (title && (title->type != 2 || title->n > 81 ||
                (title->n == 81 && mxn__nc3_name(h, title->val)[80] != '\0')))
    return "title";
  int64_t nblk = dim_or_0(h, "num_el_blk");
  if (dim_or_0(h, "num_elem") > 0 && nblk == 0) return "elements without blocks";
  /* ids of every kind present where it has entries */
  const struct {
    ex_entity_type t;
    const char *count;
  } kinds[] = {{EX_ELEM_BLOCK, "num_el_blk"}, {EX_NODE_SET, "num_node_sets"},
               {EX_SIDE_SET, "num_side_sets"}, {EX_ELEM_MAP, "num_elem_maps"},
               {EX_NODE_MAP, "num_node_maps"}};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (dim_or_0(h, kinds[i].count) > 0 && mxn__nc3_var(h, kind_names(kinds[i].t).ids) < 0)
      return "ids missing";
  /* every non-empty element block: its count, and a connectivity variable
   * with a type where it has nodes; no edge or face references */
  for (int q = 1; q <= nblk; q++) {
    int64_t ne, npe, epe, fpe, na;
    int have_ne;
    block_dims(q, &ne, &npe, &epe, &fpe, &na, h, &have_ne);
    char name[64];
    mxn__name_d(name, sizeof name, "connect%d", q);
    int cv = mxn__nc3_var(h, name);
    if (epe || fpe) return "edge or face references";
    if (!have_ne) {
      /* only a block Exodus finds empty by its status may lack it */
      if (!status_zero(h, kind_names(EX_ELEM_BLOCK).status, q)) return "block size";
      continue;
    }
    if (npe > 0) {
      const mxn__nc3_att_t *a = cv >= 0 ? mxn__nc3_att(h, cv, "elem_type") : NULL;
      if (!a || a->type != 2) return "block type";
    }
  }
  /* node and side sets: their sizes, where Exodus does not find them empty */
  if (!sets_sized(h, EX_NODE_SET, "num_node_sets", "num_nod_ns%d") ||
      !sets_sized(h, EX_SIDE_SET, "num_side_sets", "num_side_ss%d"))
    return "set size";
  /* variables: names where there are some, truth tables where they apply */
  const ex_entity_type fams[] = {EX_NODAL, EX_GLOBAL, EX_ELEM_BLOCK, EX_NODE_SET, EX_SIDE_SET};
  const char *objs[] = {NULL, NULL, "num_el_blk", "num_node_sets", "num_side_sets"};
  for (int i = 0; i < 5; i++) {
    var_names_t vn = var_names(fams[i]);
    if (dim_or_0(h, vn.count) <= 0) continue;
    if (mxn__nc3_var(h, vn.names) < 0) return "variable names";
    if (objs[i] && dim_or_0(h, objs[i]) > 0 && mxn__nc3_var(h, vn.tab) < 0) return "truth table";
  }
  if (dim_or_0(h, "time_step") > 0 && mxn__nc3_var(h, "time_whole") < 0) return "times";
  /* Nemesis: all of the global counts Exodus asks for or none */
  int g = mxn__nc3_dim(h, "num_nodes_global", &n);
  if (g && (!mxn__nc3_dim(h, "num_elems_global", &n) || !mxn__nc3_dim(h, "num_el_blk_global", &n)))
    return "Nemesis global counts";
  if (mxn__nc3_dim(h, "num_processors", &n) && !mxn__nc3_dim(h, "num_procs_file", &n))
    return "Nemesis file counts";
  return NULL;
}

int mxn__x_summary_ok(const mxn__nc3_t *h) { return mxn__x_summary_why(h) == NULL; }

int mxn__x_init(const mxn__nc3_t *h, ex_init_params *p) {
  memset(p, 0, sizeof *p);
  const mxn__nc3_att_t *title = mxn__nc3_att(h, -1, "title");
  if (title) {
    size_t n = title->n < sizeof p->title - 1 ? (size_t)title->n : sizeof p->title - 1;
    memcpy(p->title, mxn__nc3_name(h, title->val), n);
    p->title[n] = '\0';
  }
  p->num_dim = dim_or_0(h, "num_dim");
  p->num_nodes = dim_or_0(h, "num_nodes");
  p->num_elem = dim_or_0(h, "num_elem");
  p->num_elem_blk = dim_or_0(h, "num_el_blk");
  p->num_node_sets = dim_or_0(h, "num_node_sets");
  p->num_side_sets = dim_or_0(h, "num_side_sets");
  p->num_elem_maps = dim_or_0(h, "num_elem_maps");
  p->num_node_maps = dim_or_0(h, "num_node_maps");
  return 0;
}

double mxn__x_word_size(const mxn__nc3_t *h) {
  double x = 0;
  const mxn__nc3_att_t *ws = mxn__nc3_att(h, -1, "floating_point_word_size");
  if (!ws) ws = mxn__nc3_att(h, -1, "floating point word size");
  mxn__nc3_att_double(h, ws, &x);
  return x;
}

int mxn__x_exodus_opens(const mxn__nc3_t *h) {
  double v, ws = mxn__x_word_size(h);
  return mxn__nc3_att_double(h, mxn__nc3_att(h, -1, "version"), &v) && (ws == 4 || ws == 8);
}

int64_t mxn__x_dim(const mxn__nc3_t *h, const char *name) { return dim_or_0(h, name); }

int mxn__x_coord_names(const mxn__nc3_t *h, char **names) {
  int n = (int)dim_or_0(h, "num_dim");
  return read_names(h, "coor_names", n > 3 ? 3 : n, names);
}

int mxn__x_ids_int64(const mxn__nc3_t *h) {
  double x = 0;
  mxn__nc3_att_double(h, mxn__nc3_att(h, -1, "int64_status"), &x);
  return ((int)x & EX_IDS_INT64_DB) != 0;
}

int mxn__x_init_global(const mxn__nc3_t *h, int64_t *nng, int64_t *neg) {
  *nng = *neg = 0;
  if (!mxn__nc3_dim(h, "num_nodes_global", nng)) return 0;
  *neg = dim_or_0(h, "num_elems_global");
  return 1;
}

int mxn__x_init_info(const mxn__nc3_t *h, int *nproc) {
  int64_t n = 0;
  *nproc = 0;
  if (!mxn__nc3_dim(h, "num_processors", &n)) return 0;
  *nproc = (int)n;
  return 1;
}

int mxn__x_ids(const mxn__nc3_t *h, ex_entity_type t, int64_t n, int64_t *ids) {
  return read_all_l(h, kind_names(t).ids, n, ids);
}

int mxn__x_names(const mxn__nc3_t *h, ex_entity_type t, int n, char **names, int is_var) {
  return read_names(h, is_var ? var_names(t).names : kind_names(t).names, n, names);
}

int mxn__x_block_param(const mxn__nc3_t *h, ex_block *blk) {
  int null, q = lookup(h, EX_ELEM_BLOCK, blk->id, &null);
  if (q <= 0) return -1;
  if (null) {
    snprintf(blk->topology, sizeof blk->topology, "NULL");
    blk->num_entry = blk->num_nodes_per_entry = blk->num_edges_per_entry = 0;
    blk->num_faces_per_entry = blk->num_attribute = 0;
    return 0;
  }
  int have_ne;
  int64_t ne, npe, epe, fpe, na;
  block_dims(q, &ne, &npe, &epe, &fpe, &na, h, &have_ne);
  if (!have_ne) return -1;
  blk->num_entry = ne;
  blk->num_nodes_per_entry = npe;
  blk->num_edges_per_entry = epe;
  blk->num_faces_per_entry = fpe;
  blk->num_attribute = na;
  if (npe > 0) {
    char name[64];
    mxn__name_d(name, sizeof name, "connect%d", q);
    char type[MAX_STR_LENGTH + 2];
    if (text_att(h, mxn__nc3_var(h, name), "elem_type", type, sizeof type)) return -1;
    size_t n = strlen(type);
    while (n > 0 && isspace((unsigned char)type[n - 1])) type[--n] = '\0';
    snprintf(blk->topology, sizeof blk->topology, "%s", type);
  }
  return 0;
}

int mxn__x_attr_names(const mxn__nc3_t *h, int64_t id, int n, char **names) {
  int null, q = lookup(h, EX_ELEM_BLOCK, id, &null);
  char name[64];
  mxn__name_d(name, sizeof name, "attrib_name%d", q);
  if (q <= 0) return -1;
  return read_names(h, name, n, names);
}

int mxn__x_set_param(const mxn__nc3_t *h, ex_entity_type t, int64_t id, int64_t *cnt,
                     int64_t *ndf) {
  int null, q = lookup(h, t, id, &null);
  char name[64];
  *cnt = *ndf = 0;
  if (q <= 0) return -1;
  if (null) return 0;
  if (t == EX_NODE_SET) {
    mxn__name_d(name, sizeof name, "num_nod_ns%d", q);
    if (!mxn__nc3_dim(h, name, cnt)) return -1;
    mxn__name_d(name, sizeof name, "dist_fact_ns%d", q);
    if (mxn__nc3_var(h, name) >= 0) *ndf = *cnt;
    return 0;
  }
  mxn__name_d(name, sizeof name, "num_side_ss%d", q);
  if (!mxn__nc3_dim(h, name, cnt)) return -1;
  mxn__name_d(name, sizeof name, "num_df_ss%d", q);
  *ndf = dim_or_0(h, name);
  return 0;
}

int mxn__x_var_param(const mxn__nc3_t *h, ex_entity_type t, int *n) {
  var_names_t vn = var_names(t);
  if (!vn.count) return -1;
  *n = (int)dim_or_0(h, vn.count);
  return 0;
}

int mxn__x_truth(const mxn__nc3_t *h, ex_entity_type t, int nobj, int n, int *truth) {
  int64_t *v = malloc((size_t)nobj * (size_t)n * sizeof *v + 1);
  int vid = mxn__nc3_var(h, var_names(t).tab), rc = -1;
  if (v && vid >= 0 && h->vars[vid].nd == 2 && mxn__nc3_var_dim(h, vid, 0) == (uint64_t)nobj &&
      mxn__nc3_var_dim(h, vid, 1) == (uint64_t)n) {
    size_t start[2] = {0, 0}, count[2] = {(size_t)nobj, (size_t)n};
    if (mxn__nc3_get(h, vid, start, count, NULL, v, 'l') == 0) {
      for (int64_t i = 0; i < (int64_t)nobj * n; i++) truth[i] = (int)v[i];
      rc = 0;
    }
  }
  free(v);
  return rc;
}

/* n time values from step k0 on. */
static int read_times(const mxn__nc3_t *h, int k0, int n, double *out) {
  int v = mxn__nc3_var(h, "time_whole");
  size_t start = (size_t)k0, count = (size_t)n;
  if (v < 0 || h->vars[v].nd != 1 || k0 < 0 || n < 0) return -1;
  return mxn__nc3_get(h, v, &start, &count, NULL, out, 'd') == 0 ? 0 : -1;
}

int mxn__x_time(const mxn__nc3_t *h, int k, double *t) { return read_times(h, k, 1, t); }

int mxn__x_times(const mxn__nc3_t *h, int nt, double *times) { return read_times(h, 0, nt, times); }
