/* Header summaries: what the dataset's structure needs from one member,
 * read by netCDF name under Exodus II's naming rules (the dimension,
 * variable and attribute names of exodusII_int.h) into the byte stream
 * summary.h describes.
 *
 * Why not through the Exodus API: each Exodus call finds the file in a
 * list of every open file, and each block's or set's parameters look its
 * id up by reading the whole id array again, so a member of K blocks cost
 * K reads of K ids, and a rank summarising a thousand members spent most
 * of the open there (ex_get_stat_ptr, ex_id_lkup). Here every array is
 * read once, at a known position. What each read means follows Exodus
 * 6.02: a block or set whose status is 0 is a NULL entity (no entries,
 * type "NULL"); a missing count dimension is 0; a missing truth table is
 * derived from which value variables exist; names are cut at 32
 * characters, the length Exodus reads them at unless told otherwise. */
#include "structure/summary.h"
#include "structure/merge_state.h"
#include "io/nc3check.h"

#include <ctype.h>
#include <limits.h>
#include <netcdf.h>
#include <stdio.h>

/* Names as Exodus 6.02 reads them by default (its maximum read name
 * length), and the longest block type it keeps (MAX_STR_LENGTH). */
#define NAME_READ 32
#define TYPE_READ 32
/* Exodus 8's assemblies: variable assembly_entity<id> each. */
#define ASSEMBLY_VAR MXN__EX_ASSEMBLY_VAR

/* Names from old writers may carry junk after the NUL or trailing blanks. */
static void clean_name(char *s, size_t cap) {
  s[cap - 1] = '\0';
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++)
    if (!isprint((unsigned char)s[i])) s[i] = ' ';
  while (n > 0 && s[n - 1] == ' ') s[--n] = '\0';
}

/* Whether name is prefix followed by one or more decimal digits only. */
static int all_digits_after(const char *name, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(name, prefix, n) != 0 || !name[n]) return 0;
  for (const char *c = name + n; *c; c++)
    if (*c < '0' || *c > '9') return 0;
  return 1;
}

/* Length of dimension `name` numbered q (fmt with q for its "%d"); 1
 * if the member has it, else 0 (mxn__nc_dimlen). */
static int dim_len_q(const mxn__file_t *f, const char *fmt, long long q, int64_t *len) {
  char name[NC_MAX_NAME + 1];
  mxn__name_d(name, sizeof name, fmt, q);
  return mxn__m_dim(f, name, len);
}
static int var_id_q(const mxn__file_t *f, const char *fmt, long long q) {
  char name[NC_MAX_NAME + 1];
  mxn__name_d(name, sizeof name, fmt, q);
  return mxn__m_var(f, name);
}

/* The first n values of a one-dimensional variable as int64; 0 on success. */
static int get_i64(const mxn__file_t *f, int v, int64_t n, int64_t *out) {
  size_t start = 0, count = (size_t)n;
  if (v < 0 || n <= 0) return v < 0 ? -1 : 0;
  return mxn__m_read(f, v, &start, &count, out, 'l');
}

/* The n rows of name variable `name` ([n][len] characters) as stored,
 * into *raw (n * *len bytes; *raw, of *cap bytes, grown as needed and
 * kept by the caller): 0; 1 when the member has no such variable, -1 when
 * it cannot be read (then *len is 0). */
static int names_raw(const mxn__file_t *f, const char *name, int64_t n, char **raw, size_t *cap,
                     size_t *len) {
  int v = mxn__m_var(f, name);
  *len = 0;
  if (v < 0) return 1;
  int64_t l = n > 0 && mxn__m_ndims(f, v) == 2 ? mxn__m_dimlen(f, v, 1) : -1;
  if (l <= 0) return -1;
  if ((size_t)n * l > *cap) {
    char *r = mxn__realloc(*raw, (size_t)n * l);
    if (!r) return -1;
    *raw = r;
    *cap = (size_t)n * l;
  }
  size_t start[2] = {0, 0}, count[2] = {(size_t)n, l};
  if (mxn__m_read(f, v, start, count, *raw, 'c') != 0) return -1;
  *len = (size_t)l;
  return 0;
}

/* Row k of raw names `len` wide, cut at NAME_READ and cleaned, into one
 * (room for NAME_READ + 1). */
static void name_row(const char *raw, size_t len, int64_t k, char *one) {
  size_t keep = len < NAME_READ ? len : NAME_READ;
  memcpy(one, raw + (size_t)k * len, keep);
  one[keep] = '\0';
  clean_name(one, NAME_READ + 1);
}

/* n names from variable `name` into fixed slots (names_raw, name_row); a
 * member without the variable leaves them empty (and 1 is returned); -1
 * when it exists but cannot be read. */
static int read_names(const mxn__file_t *f, const char *name, int64_t n,
                      char (*out)[MXN_NAME_LEN]) {
  char *raw = NULL;
  size_t len, cap = 0;
  for (int64_t k = 0; k < n; k++) out[k][0] = '\0';
  if (n <= 0) return 0;
  int rc = names_raw(f, name, n, &raw, &cap, &len);
  for (int64_t k = 0; rc == 0 && k < n; k++) name_row(raw, len, k, out[k]);
  free(raw);
  return rc;
}

/* The key of a member's declarations (decl_entities), written against
 * the previous member's: while it matches, nothing is copied (at counts
 * the matching bytes); from the first difference on, it is built in buf
 * (the matching prefix, then the rest). */
typedef struct {
  const char *prev;
  size_t prev_len, at;
  int differs;
  wbuf_t buf;
  char *rows;         /* the names read last (names_raw) */
  size_t rows_cap;
} declkey_t;

static void key_put(declkey_t *key, const void *x, size_t n) {
  if (n == 0) return;
  if (!key->differs) {
    if (n <= key->prev_len - key->at && memcmp(key->prev + key->at, x, n) == 0) {
      key->at += n;
      return;
    }
    key->differs = 1;
    w_raw(&key->buf, key->prev, key->at);
  }
  w_raw(&key->buf, x, n);
  key->at += n;
}

static void key_i64(declkey_t *key, int64_t v) { key_put(key, &v, sizeof v); }

/* n declared entities of kind `slot` (blocks by kind, then sets by kind
 * after them): their ids and the rows of name variable `name` as stored
 * (absent or unreadable: unnamed, which is legal) into the key: the slot,
 * n, the name width (0: unnamed), the ids, the rows. Members of one set
 * mostly declare the same entities under the same names (nem_spread and
 * ParaView's writer declare every block and set in every member): the
 * key is compared with the previous member's as read, and only a member
 * whose key differs has its names cleaned and put in the stream
 * (decl_of_key); with thousands of blocks and sets that cleaning and
 * writing had been most of each member's summary. */
static void decl_entities(const mxn__file_t *f, int slot, const char *name, int64_t n,
                          const int64_t *ids, declkey_t *key) {
  size_t len = 0;
  if (n > 0) names_raw(f, name, n, &key->rows, &key->rows_cap, &len);
  key_i64(key, slot);
  key_i64(key, n);
  key_i64(key, (int64_t)len);
  if (n > 0) key_put(key, ids, (size_t)n * sizeof *ids);
  if (len > 0) key_put(key, key->rows, (size_t)n * len);
}

/* The declarations the key (decl_entities) holds, into the stream: per
 * kind the count then (id, name) pairs. */
static void decl_of_key(const char *key, size_t nkey, wbuf_t *w) {
  rbuf_t r = {key, nkey, 0, 0};
  while (r.at < r.n && !r.bad) {
    r_i64(&r); /* the slot */
    int64_t n = r_i64(&r), len = r_i64(&r);
    if (r.bad || n < 0 || len < 0) break;
    const char *ids = r.p + r.at, *raw = ids + (size_t)n * sizeof(int64_t);
    r.at += (size_t)n * (sizeof(int64_t) + (size_t)len);
    w_i64(w, n);
    for (int64_t k = 0; k < n; k++) {
      int64_t id;
      char one[NAME_READ + 1] = "";
      memcpy(&id, ids + (size_t)k * sizeof id, sizeof id);
      if (len > 0) name_row(raw, (size_t)len, k, one);
      w_i64(w, id);
      w_str(w, one);
    }
  }
}

/* Which of n entities a kind's status variable marks as NULL (status 0):
 * null[k] set; none where the member has no status variable. */
static int read_null(const mxn__file_t *f, const char *stat_var, int64_t n, unsigned char *null) {
  int v = mxn__m_var(f, stat_var), status = MXN_OK;
  int64_t *st = NULL;
  memset(null, 0, (size_t)n);
  if (v < 0 || n <= 0) return MXN_OK;
  MXN_ALLOC(st, n);
  if (get_i64(f, v, n, st) == 0)
    for (int64_t k = 0; k < n; k++) null[k] = st[k] == 0;
done:
  free(st);
  return status;
}


/* One block's parameters, as Exodus's ex_block holds them. */
typedef struct {
  int64_t num_entry, nodes, edges, faces, attrs;
  char topology[TYPE_READ + 1];
} blk_param_t;

/* Block q (0-based position) of kind k: a NULL block (null) has no
 * entries and type "NULL"; otherwise its counts (a missing one is 0, but
 * the entry count must exist) and the type its connectivity variable
 * names (elem_type). -1 when the member does not hold them; -2 (why says
 * it) when the type is longer than Exodus allows (mxn__exodus_att_check:
 * a netCDF-3 header walk refuses it before, this says the same of other
 * formats). */
static int block_param(const mxn__file_t *f, int k, int q, int null, blk_param_t *b, char *why,
                       size_t whylen) {
  const mxn__ex_blk_names_t *bn = &mxn__ex_blk[k];
  memset(b, 0, sizeof *b);
  if (null) {
    strcpy(b->topology, "NULL");
    return 0;
  }
  if (!dim_len_q(f, bn->entries, q + 1, &b->num_entry)) return -1;
  /* A declared block without entries says nothing more that is used
   * (writers that declare every block in every member make most blocks
   * of a member such; each name lookup costs) */
  if (b->num_entry == 0) return 0;
  dim_len_q(f, bn->nodes, q + 1, &b->nodes);
  if (bn->edges) dim_len_q(f, bn->edges, q + 1, &b->edges);
  if (bn->faces) dim_len_q(f, bn->faces, q + 1, &b->faces);
  dim_len_q(f, bn->attrs, q + 1, &b->attrs);
  const char *conn = b->nodes > 0 ? bn->conn : b->edges > 0 ? bn->econn
                                  : b->faces > 0 ? bn->fconn : NULL;
  if (!conn) return 0;
  char name[NC_MAX_NAME + 1];
  mxn__name_d(name, sizeof name, conn, q + 1);
  int v = mxn__m_var(f, name);
  size_t len = 0;
  char type[NC_MAX_NAME + 1024];
  if (v < 0 || mxn__m_att_len(f, v, MXN__EX_ELEM_TYPE, &len) != 0) return -1;
  if (mxn__exodus_att_check(name, MXN__EX_ELEM_TYPE, len, why, whylen)) return -2;
  if (len >= sizeof type || mxn__m_att_get(f, v, MXN__EX_ELEM_TYPE, type, 'c') != 0) return -1;
  type[len] = '\0';
  size_t keep = strnlen(type, TYPE_READ);
  memcpy(b->topology, type, keep);
  b->topology[keep] = '\0';
  return 0;
}

/* Member j's blocks of kind k: every declared block's id and name into
 * `key` (decl_entities); into `w` those holding entries (the spans), each with its
 * position, entries, topology, sizes and attribute names; their positions
 * into spans (room for nblk), their number into *nspan. */
static int summarize_blocks(mxn_dataset_t *ds, int j, int k, int64_t nblk, declkey_t *key,
                            wbuf_t *w, int *spans, int *nspan) {
  const mxn__file_t *f = mxn__file_held(ds, j);
  const mxn__ex_blk_names_t *bn = &mxn__ex_blk[k];
  const char *what = mxn__blk_what[k];
  int status = MXN_OK;
  int64_t *ids = NULL;
  unsigned char *null = NULL;
  char(*an)[MXN_NAME_LEN] = NULL;
  wbuf_t body = {0};
  *nspan = 0;
  MXN_ALLOC(ids, nblk);
  MXN_ALLOC(null, nblk);
  if (nblk > 0) {
    if (get_i64(f, mxn__m_var(f, bn->ids), nblk, ids) != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s block ids", f->path, what);
      goto done;
    }
    MXN_CHECK(read_null(f, bn->stat, nblk, null));
  }
  decl_entities(f, k, bn->names, nblk, ids, key);
  for (int64_t q = 0; q < nblk; q++) {
    blk_param_t blk;
    char why[200];
    int rc = block_param(f, k, (int)q, null[q], &blk, why, sizeof why);
    if (rc == -2) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: not a readable Exodus II file (damaged: %s)",
                          f->path, why);
      goto done;
    }
    if (rc != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s block %lld: cannot read its parameters",
                          f->path, what, (long long)ids[q]);
      goto done;
    }
    /* declared, empty: its id and name said it (block_param gave it no
     * type to check, NULL or none) */
    if (blk.num_entry == 0) continue;
    clean_name(blk.topology, sizeof blk.topology);
    int poly = mxn__poly_kind(blk.topology);
    /* Polygons may be elements or faces, polyhedra only elements; an
     * NSIDED edge is no edge. */
    if ((poly == MXN_POLY_NSIDED && k == MXN__EDGE) || (poly == MXN_POLY_NFACED && k != MXN__ELEM)) {
      status = MXN_DS_ERR(ds, MXN_ERR_UNSUPPORTED, "%s: %s block %lld: %s %s blocks are not supported",
                          f->path, what, (long long)ids[q], blk.topology, what);
      goto done;
    }
    if (poly == MXN_POLY_NFACED && blk.num_entry > 0 &&
        (blk.faces == 0 || blk.nodes != 0 || blk.edges != 0)) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld: NFACED with %lld face, %lld node and %lld edge "
                          "references (polyhedra list faces only)",
                          f->path, what, (long long)ids[q], (long long)blk.faces,
                          (long long)blk.nodes, (long long)blk.edges);
      goto done;
    }
    if (poly == MXN_POLY_NSIDED && (blk.edges != 0 || blk.faces != 0)) {
      status = MXN_DS_ERR(ds, MXN_ERR_UNSUPPORTED,
                          "%s: %s block %lld: NSIDED entries with edge or face references are "
                          "not supported",
                          f->path, what, (long long)ids[q]);
      goto done;
    }
    if (blk.num_entry > 0 && blk.nodes == 0 && poly != MXN_POLY_NFACED) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld: %lld entries of type '%s' with 0 nodes each",
                          f->path, what, (long long)ids[q], (long long)blk.num_entry,
                          blk.topology);
      goto done;
    }
    if (blk.num_entry <= 0) continue; /* declared, empty: its id and name said it */
    spans[(*nspan)++] = (int)q;
    w_i64(&body, q);
    w_str(&body, blk.topology);
    w_i64(&body, blk.num_entry);
    w_i64(&body, blk.nodes);
    w_i64(&body, blk.edges);
    w_i64(&body, blk.faces);
    w_i64(&body, blk.attrs);
    if (blk.attrs > 0) {
      MXN_ALLOC(an, blk.attrs);
      char name[NC_MAX_NAME + 1];
      mxn__name_d(name, sizeof name, bn->attr_names, q + 1);
      /* unnamed attributes are legal */
      if (read_names(f, name, blk.attrs, an) < 0) memset(an, 0, (size_t)blk.attrs * sizeof *an);
      for (int64_t a = 0; a < blk.attrs; a++) w_str(&body, an[a]);
      MXN_FREE(an);
    }
  }
  w_i64(w, *nspan);
  w_raw(w, body.p, body.n);
  if (body.nomem) w->nomem = 1;
done:
  free(body.p);
  free(ids);
  free(null);
  free(an);
  return status;
}


/* Member j's sets of every kind: each declared set's id and name into
 * `key` (decl_entities); into `body` those with entries or factors (the spans), each with
 * its position, entries and distribution factors; their positions into
 * spans[sk] (room for nsets_of[sk], malloc'd here), their number into
 * nspan[sk]. */
static int summarize_sets(mxn_dataset_t *ds, int j, const int64_t nsets_of[MXN__NSK],
                          declkey_t *key, wbuf_t *body, int *spans[MXN__NSK], int nspan[MXN__NSK]) {
  const mxn__file_t *f = mxn__file_held(ds, j);
  int status = MXN_OK;
  int64_t *ids = NULL;
  unsigned char *null = NULL;
  wbuf_t rb = {0};
  for (int sk = 0; sk < MXN__NSK; sk++) {
    const mxn__ex_set_names_t *sn = &mxn__ex_set[sk];
    int64_t n = nsets_of[sk];
    if (n <= 0) continue;
    MXN_ALLOC(spans[sk], n);
    MXN_ALLOC(ids, n);
    MXN_ALLOC(null, n);
    if (get_i64(f, mxn__m_var(f, sn->ids), n, ids) != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s ids", f->path,
                          mxn__set_what[sk]);
      goto done;
    }
    MXN_CHECK(read_null(f, sn->stat, n, null));
    decl_entities(f, MXN__NBK + sk, sn->names, n, ids, key);
    rb.n = 0;
    for (int64_t k = 0; k < n; k++) {
      int64_t cnt = 0, ndf = 0;
      if (!null[k]) {
        if (!dim_len_q(f, sn->entries, k + 1, &cnt)) {
          status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s %lld: cannot read its size", f->path,
                              mxn__set_what[sk], (long long)ids[k]);
          goto done;
        }
        if (cnt == 0) continue; /* declared, empty (its factors too) */
        if (sk == MXN__NSET)
          ndf = var_id_q(f, sn->df, k + 1) >= 0 ? cnt : 0;
        else
          dim_len_q(f, sn->df, k + 1, &ndf);
      }
      if (cnt <= 0 && ndf <= 0) continue;
      spans[sk][nspan[sk]++] = (int)k;
      w_i64(&rb, k);
      w_i64(&rb, cnt);
      w_i64(&rb, ndf);
    }
    w_i64(body, nspan[sk]);
    w_raw(body, rb.p, rb.n);
    if (rb.nomem) body->nomem = 1;
    MXN_FREE(ids);
    MXN_FREE(null);
  }
done:
  free(rb.p);
  free(ids);
  free(null);
  return status;
}


/* Family v's truth table over n variables on the nrow objects `rows`
 * (positions among the member's nobj): out[i][var] for rows[i], from the
 * stored table, or where the member stores none, from whether each value
 * variable exists. 0 on success. */
static int read_truth(const mxn__file_t *f, int v, int64_t nobj, int n, const int *rows, int nrow,
                      unsigned char *out) {
  const mxn__ex_var_names_t *vn = &mxn__ex_var[v];
  int tab = mxn__m_var(f, vn->tab);
  if (tab >= 0) {
    int64_t *all = mxn__malloc((size_t)(nobj * n) * sizeof *all);
    size_t start[2] = {0, 0}, count[2] = {(size_t)nobj, (size_t)n};
    int rc = all && mxn__m_read(f, tab, start, count, all, 'l') == 0 ? 0 : -1;
    for (int i = 0; i < nrow && rc == 0; i++)
      for (int k = 0; k < n; k++) out[(int64_t)i * n + k] = all[(int64_t)rows[i] * n + k] != 0;
    free(all);
    return rc;
  }
  for (int i = 0; i < nrow; i++)
    for (int k = 0; k < n; k++) {
      char name[NC_MAX_NAME + 1];
      snprintf(name, sizeof name, vn->vals, k + 1, rows[i] + 1);
      out[(int64_t)i * n + k] = mxn__m_var(f, name) >= 0;
    }
  return 0;
}

/* The spans (summarize_blocks, summarize_sets) of the objects a variable
 * family lives on: their positions and number. */
typedef struct {
  int *blk[MXN__NBK], nblk[MXN__NBK];
  int *set[MXN__NSK], nset[MXN__NSK];
} spans_t;

/* Member j's variables of each family that can have them here into the
 * stream: count, names, and the truth table over the member's blocks or
 * sets holding entries (one byte a value); *n_glob: its global
 * variables. */
static int summarize_vars(mxn_dataset_t *ds, int j, const int64_t nblk_of[MXN__NBK],
                          const int64_t nsets_of[MXN__NSK], const spans_t *spans, wbuf_t *body,
                          int *n_glob) {
  const mxn__file_t *f = mxn__file_held(ds, j);
  int status = MXN_OK;
  unsigned char *truth = NULL;
  char(*names)[MXN_NAME_LEN] = NULL;
  for (int v = 0; v < MXN__NV; v++) {
    int64_t nobj = mxn__fam_objects(v, nblk_of, nsets_of);
    if (nobj < 0) continue;
    int64_t n = 0;
    mxn__m_dim(f, mxn__ex_var[v].count, &n);
    if (n > f->open_size || n > INT_MAX) {
      /* every variable's name takes bytes of the file (name_*_var): more
       * variables than bytes is a damaged count, and sizing the names by
       * it asked for gigabytes (fuzz_dataset) */
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: invalid header (%lld %s variables in a file of %lld bytes)", f->path,
                          (long long)n, mxn__fam_what[v], (long long)f->open_size);
      goto done;
    }
    w_i64(body, n);
    MXN_ALLOC(names, n);
    /* a member without the names variable gives blank names (Exodus 6.02
     * warns and goes on) */
    if (read_names(f, mxn__ex_var[v].names, n, names) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s variable names", f->path,
                          mxn__fam_what[v]);
      goto done;
    }
    for (int64_t k = 0; k < n; k++) w_str(body, names[k]);
    MXN_FREE(names);
    if (v == MXN__V_GLOBAL) *n_glob = (int)n;
    if (nobj > 0 && n > 0 && v != MXN__V_NODAL && v != MXN__V_GLOBAL) {
      const int *rows = v == MXN__V_ELEM   ? spans->blk[MXN__ELEM]
                        : v == MXN__V_EDGE ? spans->blk[MXN__EDGE]
                        : v == MXN__V_FACE ? spans->blk[MXN__FACE]
                                           : spans->set[v - MXN__V_SET0];
      int nrow = v == MXN__V_ELEM   ? spans->nblk[MXN__ELEM]
                 : v == MXN__V_EDGE ? spans->nblk[MXN__EDGE]
                 : v == MXN__V_FACE ? spans->nblk[MXN__FACE]
                                    : spans->nset[v - MXN__V_SET0];
      MXN_ALLOC(truth, (int64_t)nrow * n);
      if (read_truth(f, v, nobj, (int)n, rows, nrow, truth) != 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s variable truth table",
                            f->path, mxn__fam_what[v]);
        goto done;
      }
      w_raw(body, truth, (size_t)nrow * (size_t)n);
      MXN_FREE(truth);
    }
  }
done:
  free(truth);
  free(names);
  return status;
}


/* An integer global attribute, or `dflt` where the member has none. */
static int64_t global_int(const mxn__file_t *f, const char *name, int64_t dflt) {
  long long v;
  size_t len = 0;
  if (mxn__m_att_len(f, NC_GLOBAL, name, &len) != 0 || len != 1 ||
      mxn__m_att_get(f, NC_GLOBAL, name, &v, 'l') != 0)
    return dflt;
  return (int64_t)v;
}

/* Member j's counts, checked, into h and the stream, then its title,
 * word size, coordinate names, QA and info counts, id width and Nemesis
 * globals. */
static int summarize_head(mxn_dataset_t *ds, int j, int64_t h[H_NUM], wbuf_t *body) {
  const mxn__file_t *f = mxn__file_held(ds, j);
  for (int i = 0; i < H_NUM; i++)
    if (!mxn__m_dim(f, mxn__ex_head_dim[i], &h[i]) && i == H_DIM)
      return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: netCDF file without Exodus II header (no num_dim or block counts)",
                        f->path);
  if (h[H_DIM] < 1 || h[H_DIM] > 3)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: invalid header (dimension %lld)", f->path,
                      (long long)h[H_DIM]);
  /* Every block, set and map stores at least one byte (its id): more of
   * them than the file has bytes is a damaged header, and sizing arrays
   * by it asked for 16 GB (fuzz_dataset). */
  for (int i = H_ELBLK; i < H_NUM; i++)
    if (h[i] > f->open_size)
      return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: invalid header (%lld blocks, sets or maps of one kind in a file of "
                        "%lld bytes)",
                        f->path, (long long)h[i], (long long)f->open_size);
  for (int i = 0; i < H_NUM; i++) w_i64(body, h[i]);
  {
    /* the title, cut at Exodus's line length (80) */
    char title[MXN_NAME_LEN * 2] = "";
    size_t len = 0;
    char *t = NULL;
    if (mxn__m_att_len(f, NC_GLOBAL, MXN__EX_TITLE, &len) == 0 && (t = mxn__malloc(len + 1)) &&
        mxn__m_att_get(f, NC_GLOBAL, MXN__EX_TITLE, t, 'c') == 0) {
      t[len] = '\0';
      snprintf(title, 81, "%s", t);
    }
    free(t);
    clean_name(title, sizeof title);
    w_str(body, title);
  }
  int64_t ws = global_int(f, MXN__EX_WORD_SIZE,
                          global_int(f, "floating point word size", 8));
  w_i64(body, ws == 4 ? 4 : 8);
  {
    char cn[3][MXN_NAME_LEN];
    if (read_names(f, MXN__EX_COOR_NAMES, h[H_DIM], cn) < 0) memset(cn, 0, sizeof cn);
    for (int d = (int)h[H_DIM]; d < 3; d++) cn[d][0] = '\0';
    for (int d = 0; d < 3; d++) w_str(body, cn[d]);
  }
  int64_t nqa = 0, ninfo = 0;
  mxn__m_dim(f, MXN__EX_NUM_QA, &nqa);
  mxn__m_dim(f, MXN__EX_NUM_INFO, &ninfo);
  w_i64(body, nqa);
  w_i64(body, ninfo);
  w_i64(body, (global_int(f, MXN__EX_INT64_STATUS, 0) & EX_IDS_INT64_DB) != 0);
  /* Nemesis: global counts (those of nodes, elements and element blocks
   * make the set), and the file count. */
  int64_t nng = 0, neg = 0, nbg = 0, nproc = 0, npf = 0;
  int ok = mxn__m_dim(f, MXN__EX_NEM_NODES_GLOBAL, &nng) & mxn__m_dim(f, MXN__EX_NEM_ELEMS_GLOBAL, &neg) &
           mxn__m_dim(f, MXN__EX_NEM_EL_BLK_GLOBAL, &nbg);
  w_i64(body, ok);
  w_i64(body, ok ? nng : 0);
  w_i64(body, ok ? neg : 0);
  ok = mxn__m_dim(f, MXN__EX_NEM_PROCESSORS, &nproc) & mxn__m_dim(f, MXN__EX_NEM_PROCS_FILE, &npf);
  w_i64(body, ok);
  w_i64(body, ok ? nproc : 0);
  return MXN_OK;
}

/* At most this many global values (steps x variables, 1 MiB) are kept from
 * member 0's summary; beyond it each step reads its own. */
#define GLOB_KEEP 131072

/* Member j's time values into the stream; member 0 also its global
 * variables at every step (n_glob of them), where they fit. */
static int summarize_times(mxn_dataset_t *ds, int j, int n_glob, wbuf_t *body) {
  const mxn__file_t *f = mxn__file_held(ds, j);
  int status = MXN_OK;
  double *times = NULL, *glob = NULL;
  int64_t nt = 0;
  mxn__m_dim(f, MXN__EX_TIME_STEP, &nt);
  /* Member 0's times are the dataset's. Another member gives its first
   * and last (a read each: a record variable's values lie a record apart),
   * and its others are compared when a step is first read from it
   * (read_step.c, step_time_check): reading every step's time of every
   * member here would cost a read per step and member in the open. */
  int64_t nw = j == 0 || nt <= 2 ? nt : 2;
  int tv = mxn__m_var(f, MXN__EX_TIME_WHOLE), rc = 0;
  MXN_ALLOC(times, nw);
  if (nw > 0 && tv < 0) rc = -1;
  if (nw == nt && nt > 0 && tv >= 0) {
    size_t start = 0, count = (size_t)nt;
    rc = mxn__m_read(f, tv, &start, &count, times, 'd');
  }
  for (int i = 0; nw < nt && i < 2 && rc == 0; i++) { /* first, last */
    size_t k = (size_t)(i ? nt - 1 : 0), one = 1;
    rc = mxn__m_read(f, tv, &k, &one, &times[i], 'd');
  }
  if (rc != 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read time values", f->path);
    goto done;
  }
  w_i64(body, nt);
  w_i64(body, nw);
  for (int64_t k = 0; k < nw; k++) w_f64(body, times[k]);
  /* Member 0 also gives its global variables at every step, where they fit
   * in GLOB_KEEP values: a step's read then takes them from the dataset and
   * no rank opens member 0 for them (the load's ranks each opened it once
   * per step before). 0 values: not kept, read per step as before. */
  int64_t nglob = 0;
  if (j == 0 && nt > 0 && n_glob > 0 && (int64_t)n_glob * nt <= GLOB_KEEP) {
    int varid;
    size_t start[2] = {0, 0}, count[2] = {(size_t)nt, (size_t)n_glob};
    MXN_ALLOC(glob, (int64_t)n_glob * nt);
    if ((varid = mxn__m_var(f, MXN__EX_VALS_GLO_VAR)) >= 0 &&
        mxn__m_get(f, varid, start, count, NULL, glob, 'd') == 0) {
      nglob = (int64_t)n_glob * nt;
      ds->io.read_calls++;
      ds->io.bytes_read += nglob * (int64_t)sizeof(double);
    }
  }
  w_i64(body, nglob);
  for (int64_t k = 0; k < nglob; k++) w_f64(body, glob[k]);
done:
  free(times);
  free(glob);
  return status;
}

/* Member j's id maps into the stream: which of the four it stores, and
 * its numbered maps' ids and names (a member without entities of the
 * kind has no values to give, and Exodus 6.02 leaves such maps without
 * an id). */
static int summarize_maps(mxn_dataset_t *ds, int j, const int64_t h[H_NUM],
                          wbuf_t *body) {
  const char *const *map_ids = mxn__ex_map_ids, *const *map_names = mxn__ex_map_names;
  const mxn__file_t *f = mxn__file_held(ds, j);
  int status = MXN_OK;
  int64_t *ids = NULL;
  char(*names)[MXN_NAME_LEN] = NULL;
  w_i64(body, mxn__m_var(f, mxn__ex_num_map[MXN__NODE]) >= 0);
  w_i64(body, mxn__m_var(f, mxn__ex_num_map[MXN__ELEM]) >= 0);
  w_i64(body, mxn__m_var(f, mxn__ex_num_map[MXN__EDGE]) >= 0);
  w_i64(body, mxn__m_var(f, mxn__ex_num_map[MXN__FACE]) >= 0);
  const int64_t nmaps_of[MXN__NEK] = {h[H_ELMAP], h[H_EDMAP], h[H_FAMAP], h[H_NMAP]};
  const int64_t nents_of[MXN__NEK] = {h[H_ELEM], h[H_EDGE], h[H_FACE], h[H_NODES]};
  for (int e = 0; e < MXN__NEK; e++) {
    int64_t nm = nmaps_of[e];
    if (nm <= 0 || nents_of[e] == 0) continue;
    MXN_ALLOC(ids, nm);
    MXN_ALLOC(names, nm);
    if (get_i64(f, mxn__m_var(f, map_ids[e]), nm, ids) != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s map ids", f->path,
                          mxn__ent_what[e]);
      goto done;
    }
    if (read_names(f, map_names[e], nm, names) < 0) memset(names, 0, (size_t)nm * sizeof *names);
    for (int64_t k = 0; k < nm; k++) {
      w_i64(body, ids[k]);
      w_str(body, names[k]);
    }
    MXN_FREE(ids);
    MXN_FREE(names);
  }
done:
  free(ids);
  free(names);
  return status;
}

/* ---------- member 0's records: QA, information, assemblies ---------- */

/* Row k of `width`-character text rows as stored, as Exodus's ex_get_qa
 * and ex_get_info read it: up to its NUL or `keep` characters, trailing
 * blanks removed (out: room for keep + 1). */
static void text_row(const char *raw, size_t width, int64_t k, size_t keep, char *out) {
  const char *row = raw + (size_t)k * width;
  size_t n = 0;
  while (n < width && n < keep && row[n] != '\0') {
    out[n] = row[n];
    n++;
  }
  while (n > 0 && isspace((unsigned char)out[n - 1])) n--;
  out[n] = '\0';
}

/* `rows` rows of text variable `name` ([rows][width] characters, width the
 * variable's last dimension, of `nd` dimensions), each cut and trimmed into
 * the stream; a member without the variable, or one that cannot be read,
 * gives empty strings (Exodus would refuse the read, not the file). */
static int records_text(const mxn__file_t *f, const char *name, int nd, int64_t rows,
                        size_t keep, wbuf_t *body) {
  int status = MXN_OK, v = mxn__m_var(f, name);
  char *raw = NULL, *one = NULL;
  int64_t width = v >= 0 && mxn__m_ndims(f, v) == nd ? mxn__m_dimlen(f, v, nd - 1) : -1;
  int ok = width > 0 && (nd == 2 || mxn__m_dimlen(f, v, 1) == 4);
  MXN_ALLOC_RAW(one, keep + 1);
  if (ok) {
    MXN_ALLOC_RAW(raw, rows * width);
    size_t start[3] = {0, 0, 0}, count[3] = {(size_t)(nd == 3 ? rows / 4 : rows), 4, 4};
    count[nd - 1] = (size_t)width;
    ok = mxn__m_read(f, v, start, count, raw, 'c') == 0;
  }
  for (int64_t k = 0; k < rows; k++) {
    if (ok) text_row(raw, (size_t)width, k, keep, one);
    else one[0] = '\0';
    w_str(body, one);
  }
done:
  free(raw);
  free(one);
  return status;
}

/* An assembly as the member stores it (Exodus 8: variable
 * assembly_entity<id> of its member ids, attributes _id, _type, _name). */
typedef struct {
  int64_t id, type, n;
  char name[NAME_READ + 1];
  int64_t *members;
} assembly_t;

typedef struct {
  char **names;
  int n, cap, nomem;
} namelist_t;

static int collect_name(const char *name, void *data) {
  namelist_t *l = data;
  if (l->n == l->cap) {
    int c = l->cap ? 2 * l->cap : 16;
    char **p = mxn__realloc(l->names, (size_t)c * sizeof *p);
    if (!p) return (l->nomem = 1);
    l->names = p;
    l->cap = c;
  }
  if (!(l->names[l->n] = strdup(name))) return (l->nomem = 1);
  l->n++;
  return 0;
}

static int by_assembly_id(const void *x, const void *y) {
  int64_t a = ((const assembly_t *)x)->id, b = ((const assembly_t *)y)->id;
  return (a > b) - (a < b);
}

/* One assembly's variable read into *a (its id, type, name, members). */
static int read_assembly(mxn_dataset_t *ds, const mxn__file_t *f, const char *var,
                         assembly_t *a) {
  int status = MXN_OK, v = mxn__m_var(f, var);
  size_t len = 0;
  long long x;
  char *t = NULL;
  if (v < 0) /* listed, so there (and -1 would name the global attributes) */
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot find variable %s", f->path, var);
  const char *digits = var + strlen(ASSEMBLY_VAR);
  /* the id: its attribute, else the number the name ends with */
  a->id = mxn__m_att_len(f, v, "_id", &len) == 0 && len == 1 &&
                  mxn__m_att_get(f, v, "_id", &x, 'l') == 0
              ? (int64_t)x
              : strtoll(digits, NULL, 10);
  a->type = mxn__m_att_len(f, v, "_type", &len) == 0 && len == 1 &&
                    mxn__m_att_get(f, v, "_type", &x, 'l') == 0
                ? (int64_t)x
                : -1;
  a->name[0] = '\0';
  if (mxn__m_att_len(f, v, "_name", &len) == 0 && len > 0) {
    MXN_ALLOC_RAW(t, len + 1);
    if (mxn__m_att_get(f, v, "_name", t, 'c') == 0) {
      t[len] = '\0';
      snprintf(a->name, sizeof a->name, "%s", t);
      clean_name(a->name, sizeof a->name);
    }
  }
  a->n = v >= 0 && mxn__m_ndims(f, v) == 1 ? mxn__m_dimlen(f, v, 0) : -1;
  if (a->n < 0 || a->type < 0 || a->n > f->open_size) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: assembly %lld (%s): damaged (no type or entries)",
                        f->path, (long long)a->id, var);
    goto done;
  }
  MXN_ALLOC_RAW(a->members, a->n);
  if (a->n > 0 && get_i64(f, v, a->n, a->members) != 0)
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the entities of assembly %lld",
                        f->path, (long long)a->id);
done:
  free(t);
  return status;
}

/* Member 0's assemblies into the stream, by ascending id: their count,
 * then each one's id, type, name, member count and member ids. */
static int summarize_assemblies(mxn_dataset_t *ds, const mxn__file_t *f, wbuf_t *body) {
  int status = MXN_OK;
  namelist_t l = {0};
  assembly_t *a = NULL;
  int rc = mxn__m_each_var(f, ASSEMBLY_VAR, collect_name, &l);
  if (l.nomem) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  if (rc < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot list its variables", f->path);
    goto done;
  }
  MXN_ALLOC(a, l.n);
  int n = 0;
  for (int i = 0; i < l.n; i++) {
    if (!all_digits_after(l.names[i], ASSEMBLY_VAR)) continue; /* not one of Exodus's */
    MXN_CHECK(read_assembly(ds, f, l.names[i], &a[n]));
    n++;
  }
  qsort(a, (size_t)n, sizeof *a, by_assembly_id);
  w_i64(body, n);
  for (int i = 0; i < n; i++) {
    w_i64(body, a[i].id);
    w_i64(body, a[i].type);
    w_str(body, a[i].name);
    w_i64(body, a[i].n);
    w_raw(body, a[i].members, (size_t)a[i].n * sizeof *a[i].members);
  }
done:
  for (int i = 0; i < l.n; i++) free(l.names[i]);
  free(l.names);
  for (int i = 0; a && i < l.n; i++) free(a[i].members);
  free(a);
  return status;
}

/* Member 0's QA and information records and its assemblies, read once when
 * the dataset is opened (a record rebuilt later, on a rank that did not
 * summarise member 0, has them from the structure): a flag, then, where
 * it is 1, num_qa x 4 strings, num_info strings and the assemblies. */
static int summarize_records(mxn_dataset_t *ds, int j, wbuf_t *body) {
  const mxn__file_t *f = mxn__file_held(ds, j);
  int with = j == 0 && !ds->opened;
  w_i64(body, with);
  if (!with) return MXN_OK;
  int64_t nqa = 0, ninfo = 0;
  int status = MXN_OK;
  mxn__m_dim(f, MXN__EX_NUM_QA, &nqa);
  mxn__m_dim(f, MXN__EX_NUM_INFO, &ninfo);
  if (nqa > f->open_size || ninfo > f->open_size)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: invalid header (%lld QA, %lld info records)",
                      f->path, (long long)nqa, (long long)ninfo);
  MXN_CHECK(records_text(f, MXN__EX_QA, 3, 4 * nqa, MXN_QA_LEN - 1, body));
  MXN_CHECK(records_text(f, MXN__EX_INFO, 2, ninfo, MXN_INFO_LEN - 1, body));
  MXN_CHECK(summarize_assemblies(ds, f, body));
done:
  return status;
}

/* Member j's header as a stream (see above). Returns the member's status;
 * the stream then holds it and its message. */
static int summarize_member(mxn_dataset_t *ds, int j, wbuf_t *w) {
  mxn__file_t *f = mxn__file_held(ds, j);
  int status = MXN_OK, n_glob = 0, same = 0;
  int64_t h[H_NUM];
  wbuf_t head = {0}, body = {0};
  declkey_t key = {ds->mg->decl_prev, ds->mg->decl_prev_len, 0, 0, {0}, NULL, 0};
  spans_t spans = {0};
  if (!mxn__member_open(ds, j, &status)) goto done;
  MXN_CHECK(summarize_head(ds, j, h, &head));
  const int64_t nblk_of[MXN__NBK] = {h[H_ELBLK], h[H_EDBLK], h[H_FABLK]};
  for (int k = 0; k < MXN__NBK; k++) {
    MXN_ALLOC(spans.blk[k], nblk_of[k]);
    MXN_CHECK(summarize_blocks(ds, j, k, nblk_of[k], &key, &body, spans.blk[k],
                               &spans.nblk[k]));
  }
  const int64_t nsets_of[MXN__NSK] = {h[H_NSET], h[H_SSET], h[H_ESET], h[H_FSET], h[H_ELSET]};
  MXN_CHECK(summarize_sets(ds, j, nsets_of, &key, &body, spans.set, spans.nset));
  MXN_CHECK(summarize_vars(ds, j, nblk_of, nsets_of, &spans, &body, &n_glob));
  /* Nodes have coordinates: a header declaring nodes without them made
   * the id map of a member without one (1..n) 10 GB (fuzz_dataset). The
   * shape check holds them to num_nodes where they are. */
  if (h[H_NODES] > 0 && mxn__m_var(f, MXN__EX_COORD) < 0) {
    for (int d = 0; d < h[H_DIM] && status == MXN_OK; d++)
      if (mxn__m_var(f, mxn__coord_var[d]) < 0)
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: damaged Exodus file: %lld nodes but no %s (coordinates)",
                            f->path, (long long)h[H_NODES], mxn__coord_var[d]);
    if (status != MXN_OK) goto done;
  }
  MXN_CHECK(summarize_times(ds, j, n_glob, &body));
  MXN_CHECK(summarize_maps(ds, j, h, &body));
  MXN_CHECK(summarize_records(ds, j, &body));
  /* The declarations once per run of members that repeat them: a flag
   * says "as member j-1" when this open summarised j-1 just before and
   * read the same declarations there (the same key: ds->mg->decl_prev). */
  same = ds->mg->decl_prev_j == j - 1 && j > 0 && !key.differs && key.at == key.prev_len;
  if (!same && !key.differs) w_raw(&key.buf, key.prev, key.at); /* a prefix of the last */
  if (head.nomem || key.buf.nomem || body.nomem) status = MXN_ERR_NOMEM;
done:
  if (status != MXN_OK && ds->err.status == MXN_OK)
    MXN_DS_ERR(ds, status, "%s: %s", f->path, mxn_strerror(status));
  w_i64(w, status);
  if (status != MXN_OK) {
    w_str(w, ds->err.msg);
  } else {
    w_raw(w, head.p, head.n);
    w_i64(w, same);
    if (!same) decl_of_key(key.buf.p, key.buf.n, w);
    w_raw(w, body.p, body.n);
    if (!same) {
      free(ds->mg->decl_prev);
      ds->mg->decl_prev = key.buf.p;
      ds->mg->decl_prev_len = key.buf.n;
      key.buf.p = NULL;
    }
    ds->mg->decl_prev_j = j;
  }
  if (w->nomem && status == MXN_OK) status = MXN_ERR_NOMEM;
  mxn__m_header_done(f); /* the lookups are done */
  free(head.p);
  free(key.buf.p);
  free(key.rows);
  free(body.p);
  for (int k = 0; k < MXN__NBK; k++) free(spans.blk[k]);
  for (int k = 0; k < MXN__NSK; k++) free(spans.set[k]);
  return status;
}

int mxn__member_summary(mxn_dataset_t *ds, int j, int skip, char **buf, size_t *len) {
  wbuf_t w = {0};
  int status;
  if (skip) {
    status = MXN_ERR_IO;
    w_i64(&w, status);
    w_str(&w, "member not read: an earlier member failed");
  } else {
    status = summarize_member(ds, j, &w);
  }
  if (w.nomem) {
    free(w.p);
    *buf = NULL;
    *len = 0;
    return MXN_ERR_NOMEM;
  }
  *buf = w.p;
  *len = w.n;
  return status;
}
