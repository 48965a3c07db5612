/* Member I/O: opening one member file (checked; netCDF-3 through
 * netCDF, netCDF-4 through HDF5 handles, h5light.c), the cache of open
 * members under the open-file cap, which members stay open
 * (mxn__members_keep), and the reads by netCDF name the summary and the
 * extraction make of it (the only code that reads a member's data).
 * Members are read by netCDF name under Exodus II's naming rules, not
 * through the Exodus API: see summary.c for why. */
#include "io/h5light.h"
#include "io/store.h"
#include "io/nc3check.h"

#include <errno.h>
#include <netcdf.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------- opening members ---------- */

static int is_open(const mxn__file_t *f) { return f->ncid >= 0 || f->h5; }

/* Whether member f is read through its HDF5 handle (h5light.c). */
static int via_h5(const mxn__file_t *f) { return f->ncid < 0 && f->h5; }

/* Close member f. */
void mxn__member_close(mxn_dataset_t *ds, mxn__file_t *f) {
  if (f->h5) {
    mxn__h5_close(f->h5);
    f->h5 = NULL;
    ds->st.h5_open_count--;
    if (f->ncid < 0) ds->st.open_count--;
  }
  if (f->ncid >= 0) {
    nc_close(f->ncid);
    f->ncid = -1;
    mxn__m_names_drop(f);
    ds->st.open_count--;
  }
}

/* Make room for member `keep` by closing another (with `h5`, a netCDF-4
 * one): the most recently used one. Reads go over the members in passes
 * (a step reads every member of the plan in order), and for a pass over
 * more members than the cap the least recently used is the next one
 * needed, so LRU would reopen every member on every pass; closing the most
 * recent keeps the others open and reopens only the excess. 1 if one was
 * closed, 0 if none is open. */
static int close_one(mxn_dataset_t *ds, int keep, int h5) {
  int victim = -1;
  for (int j = 0; j < ds->nfiles; j++) {
    const mxn__file_t *f = mxn__file_held(ds, j);
    if (j != keep && f && is_open(f) && (!h5 || f->h5) &&
        (victim < 0 || f->last_use > mxn__file_held(ds, victim)->last_use))
      victim = j;
  }
  if (victim >= 0) mxn__member_close(ds, mxn__file_held(ds, victim));
  return victim >= 0;
}

/* Byte counts from a damaged header can exceed 64 bits: saturate instead
 * of overflowing (signed overflow is undefined). */
static int64_t sat_mul(int64_t a, uint64_t b) {
  if (a <= 0 || b == 0) return 0;
  return (uint64_t)a > (uint64_t)INT64_MAX / b ? INT64_MAX : (int64_t)((uint64_t)a * b);
}

static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

/* ---------- a netCDF-3 member's names ---------- */

/* netCDF finds a dimension or variable by name only after normalising the
 * name (a utf8proc pass and an allocation per lookup): about half of a
 * small member's summary was those lookups, and its checks looked up the
 * same names again. A member's first open therefore lists its dimensions
 * and variables once, from what nc_open parsed, and the checks and the
 * summary look names up here. Exodus's names are ASCII, which
 * normalisation leaves as they are, so an exact match finds what netCDF
 * finds. Kept for netCDF-3 only: listing a netCDF-4 member's variables
 * would load each one's HDF5 metadata. */
typedef struct {
  const char *name;
  int64_t n;      /* a dimension's length; a variable's entries (saturating) */
} nm_ent_t;

typedef struct {
  int n;
  nm_ent_t *ent;  /* by netCDF id */
  int *slot;      /* open addressing: ids by name, -1 empty */
  unsigned mask;
} nm_list_t;

struct mxn__names {
  nm_list_t dim, var;
  int64_t data_bytes; /* what the header declares for the variables (nc_data_bytes) */
  char *text;         /* the names, each NUL-terminated */
};

static unsigned nm_hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static int nm_find(const nm_list_t *l, const char *name) {
  for (unsigned h = nm_hash(name) & l->mask;; h = (h + 1) & l->mask) {
    int i = l->slot[h];
    if (i < 0 || strcmp(l->ent[i].name, name) == 0) return i;
  }
}

/* Room for n entries and their hash slots (at least twice as many). */
static int nm_alloc(nm_list_t *l, int n) {
  unsigned cap = 8;
  while (cap < 2u * (unsigned)n) cap *= 2;
  l->n = n;
  l->mask = cap - 1;
  l->ent = mxn__malloc((size_t)(n > 0 ? n : 1) * sizeof *l->ent);
  l->slot = mxn__malloc(cap * sizeof *l->slot);
  if (!l->ent || !l->slot) return MXN_ERR_NOMEM;
  for (unsigned h = 0; h < cap; h++) l->slot[h] = -1;
  return MXN_OK;
}

static void nm_add(nm_list_t *l, int id) {
  unsigned h = nm_hash(l->ent[id].name) & l->mask;
  while (l->slot[h] >= 0) h = (h + 1) & l->mask;
  l->slot[h] = id;
}

static void names_free(struct mxn__names *nm) {
  if (!nm) return;
  free(nm->dim.ent);
  free(nm->dim.slot);
  free(nm->var.ent);
  free(nm->var.slot);
  free(nm->text);
  free(nm);
}

/* Member f's names, NULL where it has none. */
static const struct mxn__names *names_for(const mxn__file_t *f) {
  return f->rd && f->rd->names_of == f ? f->rd->names : NULL;
}

void mxn__m_names_drop(mxn__file_t *f) {
  if (!names_for(f)) return;
  names_free(f->rd->names);
  f->rd->names = NULL;
  f->rd->names_of = NULL;
}

/* Append name to the text (growing it; entries point into it only once
 * it is complete, see names_of). */
static int text_add(char **text, size_t *n, size_t *cap, const char *name) {
  size_t len = strlen(name) + 1;
  if (*n + len > *cap) {
    size_t c = *cap ? *cap : 4096;
    while (c < *n + len) c *= 2;
    char *t = mxn__realloc(*text, c);
    if (!t) return MXN_ERR_NOMEM;
    *text = t;
    *cap = c;
  }
  memcpy(*text + *n, name, len);
  *n += len;
  return MXN_OK;
}

/* The names of open netCDF-3 file ncid (see above) into *out; also the
 * data bytes its header declares: fixed-size variables and every record,
 * saturating. MXN_ERR_FORMAT when netCDF cannot list them. */
static int names_of(int ncid, struct mxn__names **out) {
  int status = MXN_OK, ndims = 0, nvars = 0, unlim = -1;
  size_t ntext = 0, captext = 0, *at = NULL;
  struct mxn__names *nm = mxn__calloc(1, sizeof *nm);
  *out = NULL;
  if (!nm) return MXN_ERR_NOMEM;
  if (nc_inq_ndims(ncid, &ndims) != NC_NOERR || nc_inq_nvars(ncid, &nvars) != NC_NOERR ||
      ndims < 0 || nvars < 0) {
    status = MXN_ERR_FORMAT;
    goto done;
  }
  if (nc_inq_unlimdim(ncid, &unlim) != NC_NOERR) unlim = -1;
  if ((status = nm_alloc(&nm->dim, ndims)) != MXN_OK ||
      (status = nm_alloc(&nm->var, nvars)) != MXN_OK)
    goto done;
  if (!(at = mxn__malloc((size_t)(ndims + nvars + 1) * sizeof *at))) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  char name[NC_MAX_NAME + 1];
  for (int d = 0; d < ndims; d++) {
    size_t len = 0;
    if (nc_inq_dim(ncid, d, name, &len) != NC_NOERR) {
      status = MXN_ERR_FORMAT;
      goto done;
    }
    at[d] = ntext;
    nm->dim.ent[d].n = (int64_t)len;
    if ((status = text_add(&nm->text, &ntext, &captext, name)) != MXN_OK) goto done;
  }
  int64_t fixed = 0, per_rec = 0, nrec = unlim >= 0 && unlim < ndims ? nm->dim.ent[unlim].n : 0;
  for (int v = 0; v < nvars; v++) {
    nc_type t;
    int nd = 0, dims[NC_MAX_VAR_DIMS];
    size_t tsize = 0;
    if (nc_inq_var(ncid, v, name, &t, &nd, dims, NULL) != NC_NOERR ||
        nc_inq_type(ncid, t, NULL, &tsize) != NC_NOERR || nd < 0 || nd > NC_MAX_VAR_DIMS) {
      status = MXN_ERR_FORMAT;
      goto done;
    }
    int64_t entries = 1, bytes = (int64_t)tsize;
    int is_rec = 0;
    for (int k = 0; k < nd; k++) {
      if (dims[k] < 0 || dims[k] >= ndims) {
        status = MXN_ERR_FORMAT;
        goto done;
      }
      uint64_t len = (uint64_t)nm->dim.ent[dims[k]].n;
      entries = sat_mul(entries, len);
      if (dims[k] == unlim) is_rec = 1;
      else bytes = sat_mul(bytes, len);
    }
    nm->var.ent[v].n = entries;
    if (is_rec) per_rec = sat_add(per_rec, bytes);
    else fixed = sat_add(fixed, bytes);
    at[ndims + v] = ntext;
    if ((status = text_add(&nm->text, &ntext, &captext, name)) != MXN_OK) goto done;
  }
  nm->data_bytes = sat_add(fixed, sat_mul(per_rec, (uint64_t)nrec));
  for (int d = 0; d < ndims; d++) {
    nm->dim.ent[d].name = nm->text + at[d];
    nm_add(&nm->dim, d);
  }
  for (int v = 0; v < nvars; v++) {
    nm->var.ent[v].name = nm->text + at[ndims + v];
    nm_add(&nm->var, v);
  }
  *out = nm;
  nm = NULL;
done:
  free(at);
  names_free(nm);
  return status;
}

/* netCDF-3 reads past the end of a file as zeros, so a cut-off copy would
 * pass for valid data: require at least the bytes its header declares for
 * the variables (`need`: the header itself is not counted, so this is a
 * lower bound). netCDF-4 files need no check: HDF5 refuses truncated files
 * on open. */
static int check_not_truncated(mxn_dataset_t *ds, const char *path, int64_t need,
                               int64_t file_size) {
  if (need >= 0 && file_size < need)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                      "%s: truncated: the file has %lld bytes but its netCDF "
                      "header declares at least %lld bytes of data",
                      path, (long long)file_size, (long long)need);
  return MXN_OK;
}


int mxn__nc_dimlen(int ncid, const char *name, int64_t *len) {
  int did;
  size_t l = 0;
  *len = 0;
  if (nc_inq_dimid(ncid, name, &did) != NC_NOERR || nc_inq_dimlen(ncid, did, &l) != NC_NOERR)
    return 0;
  *len = (int64_t)l;
  return 1;
}

int mxn__m_dim(const mxn__file_t *f, const char *name, int64_t *len) {
  const struct mxn__names *nm = names_for(f);
  *len = 0;
  if (via_h5(f)) return mxn__h5_dim(f->h5, name, len);
  if (!nm) return mxn__nc_dimlen(f->ncid, name, len);
  int d = nm_find(&nm->dim, name);
  *len = d >= 0 ? nm->dim.ent[d].n : 0;
  return d >= 0;
}

/* Length of `prefix` when `name` starts with it, else 0 (prefixes are
 * not empty). One pass: a strlen and a strncmp per rule had made this
 * check a sixth of a small member's summary. */
static size_t starts_with(const char *name, const char *prefix) {
  size_t i = 0;
  for (; prefix[i]; i++)
    if (name[i] != prefix[i]) return 0;
  return i;
}

/* Whether s is one or more decimal digits and nothing else. */
static int all_digits(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* A rule's dimension name: `dim` with its '#' replaced by `num`. */
static void rule_dim(char out[NC_MAX_NAME + 1], const char *dim, const char *num) {
  size_t n = 0;
  for (; dim[n] && dim[n] != '#' && n < NC_MAX_NAME; n++) out[n] = dim[n];
  if (dim[n] == '#')
    for (; *num && n < NC_MAX_NAME; num++) out[n++] = *num;
  out[n] = '\0';
}

#define NSHAPE_RULES ((int)(sizeof mxn__ex_shape_rules / sizeof *mxn__ex_shape_rules))
#define SHAPE_BUCKETS 64

/* A name's bucket among the shape rules: of its first two bytes (the
 * second may be its terminating NUL; no rule matches a name that short). */
static int shape_bucket(const char *name) {
  unsigned b0 = (unsigned char)name[0], b1 = (unsigned char)name[1];
  return (int)((b0 * 31u + b1) & (SHAPE_BUCKETS - 1));
}

static int check_var_shapes(mxn_dataset_t *ds, const char *path, const struct mxn__names *nm) {
  /* The rules by their first two letters, chained in table order: a
   * variable is held against those of its letters only (against all 47 in
   * turn, the scan was most of this check; by first letter alone, the
   * many "e" and "n" rules still were). Every rule's name has two letters or more. */
  int head[SHAPE_BUCKETS], next[NSHAPE_RULES];
  for (int b = 0; b < SHAPE_BUCKETS; b++) head[b] = -1;
  for (int r = NSHAPE_RULES - 1; r >= 0; r--) {
    int b = shape_bucket(mxn__ex_shape_rules[r].var);
    next[r] = head[b];
    head[b] = r;
  }
  for (int v = 0; v < nm->var.n; v++) {
    const char *name = nm->var.ent[v].name;
    if (!name[0]) continue;
    for (int r = head[shape_bucket(name)]; r >= 0; r = next[r]) {
      const mxn__ex_shape_rule_t *sr = &mxn__ex_shape_rules[r];
      size_t pl = starts_with(name, sr->var);
      if (!pl) continue;
      const char *num = name + pl;
      if (sr->numbered ? !all_digits(num) : *num != '\0') continue;
      int64_t want = 1, have = nm->var.ent[v].n;
      char dn[2][NC_MAX_NAME + 1];
      for (int d = 0; d < 2 && sr->dim[d]; d++) {
        rule_dim(dn[d], sr->dim[d], num);
        int k = nm_find(&nm->dim, dn[d]);
        if (k < 0)
          return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: damaged Exodus file: variable '%s' without its dimension '%s'",
                            path, name, dn[d]);
        want = sat_mul(want, (uint64_t)nm->dim.ent[k].n);
      }
      if (have != want)
        return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: damaged Exodus file: variable '%s' has %lld entries where its "
                          "dimension%s say%s %lld",
                          path, name, (long long)have, sr->dim[1] ? "s" : "",
                          sr->dim[1] ? "" : "s", (long long)want);
      break;
    }
  }
  return MXN_OK;
}

/* netCDF refused member `path` (nc_open's rc): say so, naming the format
 * its first bytes show. */
static int open_refused(mxn_dataset_t *ds, const char *path, const char magic[4], int rc) {
  return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                    "%s: not a readable Exodus II file (%s open failed: %s; "
                    "truncated or another format?)",
                    path, memcmp(magic, "\211HDF", 4) == 0 ? "netCDF-4/HDF5" : "netCDF",
                    nc_strerror(rc));
}

/* The global attributes of an open netCDF file (not netCDF-3, whose
 * header walk checks them) against what Exodus allows them to hold
 * (mxn__exodus_att_check): 1 and a reason if one does not fit. The
 * element types are checked where the summary reads them; variables'
 * attributes are not walked (for netCDF-4 that loads every variable's
 * metadata). */
typedef struct {
  char *why;
  size_t whylen;
} why_t;

static int global_att_bad(const char *att, uint64_t len, void *data) {
  why_t *w = data;
  return mxn__exodus_att_check(NULL, att, len, w->why, w->whylen);
}

static int global_atts_bad(const mxn__file_t *f, char *why, size_t whylen) {
  why_t w = {why, whylen};
  if (via_h5(f)) return mxn__h5_global_atts(f->h5, global_att_bad, &w);
  int natts = 0, nc = f->ncid;
  if (nc_inq_varnatts(nc, NC_GLOBAL, &natts) != NC_NOERR) return 0;
  for (int k = 0; k < natts; k++) {
    char att[NC_MAX_NAME + 1];
    size_t len;
    if (nc_inq_attname(nc, NC_GLOBAL, k, att) == NC_NOERR &&
        nc_inq_attlen(nc, NC_GLOBAL, att, &len) == NC_NOERR && global_att_bad(att, len, &w))
      return 1;
  }
  return 0;
}

/* Whether an open netCDF file says it is Exodus II as Exodus 6.02's
 * ex_open requires: a version attribute, and a floating-point word size
 * (either spelling) of 4 or 8 bytes. */
static int is_exodus(const mxn__file_t *f) {
  double version;
  long long ws = 0;
  size_t len = 0;
  if (mxn__m_att_len(f, NC_GLOBAL, MXN__EX_VERSION, &len) != 0 || len != 1 ||
      mxn__m_att_get(f, NC_GLOBAL, MXN__EX_VERSION, &version, 'd') != 0)
    return 0;
  const char *wsn = MXN__EX_WORD_SIZE;
  if (mxn__m_att_len(f, NC_GLOBAL, wsn, &len) != 0) wsn = "floating point word size";
  if (mxn__m_att_len(f, NC_GLOBAL, wsn, &len) != 0 || len != 1 ||
      mxn__m_att_get(f, NC_GLOBAL, wsn, &ws, 'l') != 0)
    return 0;
  return ws == 4 || ws == 8;
}

/* nc_open of a member for reading, without chunk caches (see open_member). */
static int nc_open_nocache(const char *path, int *id) {
  size_t cache_size, cache_nelems;
  float cache_pre;
  int had = nc_get_chunk_cache(&cache_size, &cache_nelems, &cache_pre) == NC_NOERR;
  if (had) nc_set_chunk_cache(0, 1, 1.0f);
  int rc = nc_open(path, NC_NOWRITE | NC_SHARE, id);
  if (had) nc_set_chunk_cache(cache_size, cache_nelems, cache_pre);
  return rc;
}

void mxn__record_free(mxn_dataset_t *ds, mxn__file_t *f) {
  if (!f) return;
  mxn__member_close(ds, f);
  free(f->path);
  /* their blocks', sets' and maps' arrays are in the arena */
  for (int k = 0; k < MXN__NBK; k++)
    for (int i = 0; i < f->kb[k].nspan; i++) free(f->kb[k].span[i].ent_off);
  free(f->time_ok);
  mxn__h5_names_free(f->h5_names);
  mxn__file_domain_free(f->dom);
  free(f);
}

/* The first four bytes of file `path` into magic (left as they are where
 * it cannot be read: netCDF then says why). */
static void read_magic(const char *path, char magic[4]) {
  int fd = mxn__open_read(path);
  if (fd < 0) return;
  if (read(fd, magic, 4) != 4) memset(magic, 0, 4);
  close(fd);
}

/* Open member j where it is not open yet (capped: see close_one). */
static int open_member(mxn_dataset_t *ds, int j) {
  mxn__file_t *f = mxn__file_held(ds, j);
  if (!f) return MXN_DS_ERR(ds, MXN_ERR_ARG, "%s: member %d opened without its record",
                            mxn__path(ds, j), j);
  f->last_use = ++ds->st.use_clock;
  if (is_open(f)) return MXN_OK;
  while (ds->st.open_count + 1 > ds->st.max_open && close_one(ds, j, 0)) continue;
  int first = !f->nc_checked;
  /* A first look walks the header from the descriptor it opens here and
   * takes the size from that descriptor: a stat of the path before the
   * open looked the path up a second time. */
  struct stat st;
  int fd = first ? mxn__open_read(f->path) : -1;
  if (first ? fd < 0 || fstat(fd, &st) != 0 : stat(f->path, &st) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot open: %s", f->path, strerror(e));
  }
  if (st.st_size == 0) {
    if (fd >= 0) close(fd);
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                      "%s: empty file (0 bytes), not an Exodus II file",
                      f->path);
  }
  /* Our bounds check of a netCDF-3 header comes first: netCDF 4.9.0 trusts
   * the counts in it (gigabyte allocations, crashes on damaged files). A
   * file that is not netCDF-3 has its attributes checked once netCDF has
   * opened it. Once per member: a reopen after the open-file cap closed
   * it needs no second look. */
  char magic[4] = {0}, why[200];
  int check = 0;
  if (first) {
    check = mxn__nc3_header_check(fd, (int64_t)st.st_size, magic, why, sizeof why);
    if (check < 0)
      return MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot open: %s", f->path, why);
    if (check == 1)
      return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: not a readable Exodus II file (damaged netCDF header: %s)",
                        f->path, why);
    if (check == 2)
      return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: not a readable Exodus II file (damaged: %s)",
                        f->path, why);
  }
  /* A netCDF-4 member is read through HDF5 (h5light.c): netCDF's open
   * loads every dataset's metadata, its attribute tables and dimension
   * scales (where HDF5 opens the file and lists the root group's names in
   * a fraction of the time), and keeps them while the member is open,
   * however little is read; the reads open
   * only the datasets they read. A file HDF5 cannot open goes to netCDF,
   * which says what is wrong with it. */
  if (!first && !f->nc4) read_magic(f->path, magic); /* a record rebuilt (records.c) */
  int hdf5 = f->nc4 || memcmp(magic, "\211HDF", 4) == 0, nc3 = 0, status = MXN_OK;
  mxn__h5_t *h = NULL;
  if (hdf5 && mxn__h5_open(f->path, &f->h5_names, &h) == MXN_OK) {
    f->h5 = h;
    f->nc4 = 1;
    ds->st.h5_open_count++;
    while (ds->st.h5_open_count > ds->st.max_open_h5 && close_one(ds, j, 1)) continue;
  } else {
    /* Share mode, as Exodus 6.02 opens members for reading: each read goes
     * to the file. Without it netCDF's two 8 KiB buffers re-read the
     * header's block each time reads alternate between the small variables
     * beside it and the data further on, and per-step reads were slower. */
    int id, fmt = 0, rc = nc_open_nocache(f->path, &id);
    if (rc != NC_NOERR) return open_refused(ds, f->path, magic, rc);
    f->ncid = id;
    f->nc4 = nc_inq_format(id, &fmt) == NC_NOERR &&
             (fmt == NC_FORMAT_NETCDF4 || fmt == NC_FORMAT_NETCDF4_CLASSIC);
    nc3 = fmt == NC_FORMAT_CLASSIC || fmt == NC_FORMAT_64BIT_OFFSET
#ifdef NC_FORMAT_CDF5
          || fmt == NC_FORMAT_CDF5
#endif
        ;
  }
  ds->st.open_count++;
  struct mxn__names *nm = NULL;
  if (first && check == 0 && global_atts_bad(f, why, sizeof why))
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: not a readable Exodus II file (damaged: %s)",
                        f->path, why);
  else if (first && !is_exodus(f))
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: not a readable Exodus II file (netCDF opens it, "
                        "Exodus does not: not Exodus, or a damaged header)",
                        f->path);
  /* The names of a netCDF-3 member (or one of another format that is not
   * netCDF-4) serve the checks below and, on the first open, the
   * summary's lookups; a reopen needs them for the byte count only. */
  if (status == MXN_OK && !f->nc4 && (status = names_of(f->ncid, &nm)) == MXN_ERR_FORMAT)
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: not a readable Exodus II file (netCDF cannot list its dimensions "
                        "and variables)",
                        f->path);
  if (status == MXN_OK)
    status = check_not_truncated(ds, f->path, nm && nc3 ? nm->data_bytes : -1,
                                 (int64_t)st.st_size);
  f->open_size = (int64_t)st.st_size;
  /* netCDF-3 variables are checked against the shapes Exodus gives them
   * (a look at the header in memory). A netCDF-4 member's would load every
   * variable's HDF5 metadata, which its reads do not need: they all ask
   * for counts the member's dimensions give, and HDF5 refuses counts
   * beyond a variable's own shape. */
  if (status == MXN_OK && first && nm) status = check_var_shapes(ds, f->path, nm);
  if (status != MXN_OK || !first) {
    names_free(nm);
    nm = NULL;
  }
  if (status != MXN_OK) {
    mxn__member_close(ds, f);
    return status;
  }
  if (nm) {
    if (f->rd) {
      names_free(f->rd->names); /* a member's left by a summary that stopped early */
      f->rd->names = nm;
      f->rd->names_of = f;
    } else {
      names_free(nm);
    }
  }
  f->nc_checked = 1;
  ds->io.files_opened++;
  return MXN_OK;
}

void mxn__m_header_done(mxn__file_t *f) {
  if (!f) return;
  mxn__m_names_drop(f);
  if (via_h5(f)) mxn__h5_forget(f->h5);
}

void mxn__members_keep(mxn_dataset_t *ds, const char *need, int hdf5) {
  int h5 = 0;
  for (int j = 0; j < ds->nfiles; j++) {
    mxn__file_t *f = mxn__file_held(ds, j); /* only a held member can be open */
    if (!f || !is_open(f) || (need[j] && !(hdf5 && via_h5(f)))) continue;
    h5 |= via_h5(f);
    mxn__member_close(ds, f);
  }
  if (h5) mxn__h5_release();
}

mxn__file_t *mxn__member_open(mxn_dataset_t *ds, int j, int *status) {
  *status = open_member(ds, j);
  return *status == MXN_OK ? mxn__file_held(ds, j) : NULL;
}

int mxn__m_var(const mxn__file_t *f, const char *name) {
  const struct mxn__names *nm = names_for(f);
  if (nm) return nm_find(&nm->var, name);
  if (via_h5(f)) return mxn__h5_var(f->h5, name);
  int v;
  return nc_inq_varid(f->ncid, name, &v) == NC_NOERR ? v : -1;
}

int mxn__m_each_var(const mxn__file_t *f, const char *prefix,
                    int (*fn)(const char *name, void *data), void *data) {
  const struct mxn__names *nm = names_for(f);
  if (nm) {
    for (int v = 0; v < nm->var.n; v++)
      if (starts_with(nm->var.ent[v].name, prefix)) {
        int rc = fn(nm->var.ent[v].name, data);
        if (rc) return rc;
      }
    return 0;
  }
  if (via_h5(f)) return mxn__h5_each_name(f->h5, prefix, fn, data);
  int nvars;
  if (nc_inq_nvars(f->ncid, &nvars) != NC_NOERR) return -1;
  for (int v = 0; v < nvars; v++) {
    char name[NC_MAX_NAME + 1];
    if (nc_inq_varname(f->ncid, v, name) != NC_NOERR) return -1;
    if (starts_with(name, prefix)) {
      int rc = fn(name, data);
      if (rc) return rc;
    }
  }
  return 0;
}

int mxn__m_ndims(const mxn__file_t *f, int v) {
  int nd;
  if (via_h5(f)) return mxn__h5_shape(f->h5, v, NULL, NULL, NULL);
  return nc_inq_varndims(f->ncid, v, &nd) == NC_NOERR ? nd : -1;
}

int64_t mxn__m_dimlen(const mxn__file_t *f, int v, int d) {
  int dims[NC_MAX_VAR_DIMS];
  size_t len;
  if (via_h5(f)) {
    size_t ext[MXN__BOX_DIMS];
    int nd = mxn__h5_shape(f->h5, v, ext, NULL, NULL);
    return d >= 0 && d < nd ? (int64_t)ext[d] : -1;
  }
  if (nc_inq_vardimid(f->ncid, v, dims) != NC_NOERR ||
      nc_inq_dimlen(f->ncid, dims[d], &len) != NC_NOERR)
    return -1;
  return (int64_t)len;
}

static int get_plain(int id, int v, const size_t *start, const size_t *count,
                     const ptrdiff_t *stride, void *out, char as) {
  switch (as) {
    case 'd': return nc_get_vars_double(id, v, start, count, stride, out);
    case 'l': return nc_get_vars_longlong(id, v, start, count, stride, out);
    default: return nc_get_vars_text(id, v, start, count, stride, out);
  }
}

static size_t as_size(char as) { return as == 'd' ? sizeof(double) : as == 'l' ? sizeof(long long) : 1; }

/* Boxes of chunked variables are kept up to this size: beyond it a read
 * goes to netCDF as asked (each chunk it touches is still decompressed
 * once within that call). */
#define BOX_KEEP ((size_t)32 << 20)

/* Whether box b holds the part start/count (every st-th entry along each
 * dimension) of variable v of member `key`, as `as`. */
static int box_holds(const mxn__box_t *b, int key, int v, char as, int nd, const size_t *start,
                     const size_t *count, const size_t *st) {
  if (b->key != key || b->varid != v || b->as != as || b->nd != nd) return 0;
  for (int d = 0; d < nd; d++)
    if (start[d] < b->start[d] || start[d] + (count[d] - 1) * st[d] + 1 > b->start[d] + b->count[d])
      return 0;
  return 1;
}

/* Copy that part of box b into out. */
static void box_copy(const mxn__box_t *b, const size_t *start, const size_t *count,
                     const size_t *st, char *out) {
  size_t es = as_size(b->as), nd = (size_t)b->nd, idx[MXN__BOX_DIMS] = {0};
  size_t last = nd - 1, row = count[last] * es;
  for (;;) {
    /* position of the row's first entry in the box */
    size_t at = 0;
    for (size_t d = 0; d < nd; d++)
      at = at * b->count[d] + start[d] + (d < last ? idx[d] * st[d] : 0) - b->start[d];
    if (st[last] == 1) {
      memcpy(out, b->buf + at * es, row);
    } else {
      for (size_t i = 0; i < count[last]; i++)
        memcpy(out + i * es, b->buf + (at + i * st[last]) * es, es);
    }
    out += row;
    size_t d = last;
    while (d-- > 0) {
      if (++idx[d] < count[d]) break;
      idx[d] = 0;
    }
    if (d == (size_t)-1) return;
  }
}

void mxn__reads_keep(mxn__reads_t *rd, int on) { rd->keeping = on; }

/* Recent box b empty: its buffer freed, never used, no key. */
static void box_clear(mxn__box_t *b) {
  free(b->buf);
  memset(b, 0, sizeof *b);
  b->key = -1;
}

void mxn__reads_init(mxn__reads_t *rd, mxn_io_counters_t *io) {
  rd->io = io;
  for (int i = 0; i < MXN__RECENT_BOXES; i++) box_clear(&rd->recent[i]);
}

void mxn__reads_drop(mxn__reads_t *rd) {
  for (int i = 0; i < rd->nkept; i++) free(rd->kept[i].buf);
  free(rd->kept);
  rd->kept = NULL;
  rd->nkept = rd->kept_cap = 0;
  rd->kept_bytes = 0;
  for (int i = 0; i < MXN__RECENT_BOXES; i++) box_clear(&rd->recent[i]);
  rd->clock = 0;
}

/* A box of `bytes` to read into: a new kept one (`keep`: keeping, and
 * within MXN__KEPT_BOXES), else the recent box used longest ago (one never
 * used first), its buffer grown, the others' buffers freed from the
 * longest unused on while the recent ones' exceed MXN__RECENT_BYTES; NULL
 * if out of memory. Its key is -1 until it is read. */
static mxn__box_t *box_for(mxn__reads_t *rd, size_t bytes, int keep) {
  if (keep) {
    if (rd->nkept == rd->kept_cap) {
      int c = rd->kept_cap ? 2 * rd->kept_cap : 16;
      mxn__box_t *k = mxn__realloc(rd->kept, (size_t)c * sizeof *k);
      if (!k) return NULL;
      rd->kept = k;
      rd->kept_cap = c;
    }
    mxn__box_t *b = &rd->kept[rd->nkept];
    memset(b, 0, sizeof *b);
    if (!(b->buf = mxn__malloc(bytes))) return NULL;
    b->cap = bytes;
    b->key = -1;
    rd->nkept++;
    rd->kept_bytes += bytes;
    return b;
  }
  mxn__box_t *b = &rd->recent[0];
  for (int i = 1; i < MXN__RECENT_BOXES; i++)
    if (rd->recent[i].used < b->used) b = &rd->recent[i];
  b->key = -1;
  b->used = ++rd->clock;
  if (b->cap < bytes) {
    char *nb = mxn__realloc(b->buf, bytes);
    if (!nb) return NULL;
    b->buf = nb;
    b->cap = bytes;
  }
  for (;;) {
    size_t held = 0;
    mxn__box_t *old = NULL;
    for (int i = 0; i < MXN__RECENT_BOXES; i++) {
      mxn__box_t *x = &rd->recent[i];
      held += x->cap;
      if (x != b && x->buf && (!old || x->used < old->used)) old = x;
    }
    if (held <= MXN__RECENT_BYTES || !old) break;
    box_clear(old);
  }
  return b;
}

/* A plain read of member f's variable v: through netCDF, or its HDF5
 * handle (0 or -1 from that, as a netCDF status). */
static int plain(const mxn__file_t *f, int v, const size_t *start, const size_t *count,
                 const ptrdiff_t *stride, void *out, char as) {
  mxn_io_counters_t *io = f->rd ? f->rd->io : NULL;
  double t0 = io ? mxn__now() : 0;
  int rc;
  if (via_h5(f))
    rc = mxn__h5_get(f->h5, f->rd ? &f->rd->h5s : NULL, v, start, count, stride, out, as)
             ? NC_EHDFERR
             : NC_NOERR;
  else
    rc = get_plain(f->ncid, v, start, count, stride, out, as);
  if (io) io->seconds_reading += mxn__now() - t0;
  return rc;
}

/* Variable v's rank, extent and chunk sizes, where its chunks are
 * compressed (the reads that take a box); 0 where it is read as asked. */
static int boxed_shape(const mxn__file_t *f, int v, size_t *len, size_t *ch) {
  int id = f->ncid, nd = 0, storage = 0, deflate = 0, shuffle = 0, level = 0;
  if (via_h5(f)) {
    int filtered = 0;
    nd = mxn__h5_shape(f->h5, v, len, ch, &filtered);
    return nd >= 1 && filtered ? nd : 0;
  }
  /* Chunks stored as they are read as asked: HDF5 reads the part a read
   * selects. Compressed ones are widened to whole chunks, strided reads (a
   * halo layer's single entries) included. */
  int dims[MXN__BOX_DIMS];
  if (nc_inq_varndims(id, v, &nd) != NC_NOERR || nd < 1 || nd > MXN__BOX_DIMS ||
      nc_inq_var_chunking(id, v, &storage, ch) != NC_NOERR || storage != NC_CHUNKED ||
      nc_inq_var_deflate(id, v, &shuffle, &deflate, &level) != NC_NOERR || !deflate ||
      nc_inq_vardimid(id, v, dims) != NC_NOERR)
    return 0;
  for (int d = 0; d < nd; d++)
    if (nc_inq_dimlen(id, dims[d], &len[d]) != NC_NOERR) return 0;
  return nd;
}

int mxn__m_read(const mxn__file_t *f, int v, const size_t *start, const size_t *count,
                void *out, char as) {
  return v < 0 ? -1 : plain(f, v, start, count, NULL, out, as) == NC_NOERR ? 0 : -1;
}

int mxn__m_att_len(const mxn__file_t *f, int v, const char *name, size_t *len) {
  if (via_h5(f)) return mxn__h5_att_len(f->h5, v, name, len);
  return nc_inq_attlen(f->ncid, v, name, len) == NC_NOERR ? 0 : -1;
}

int mxn__m_att_get(const mxn__file_t *f, int v, const char *name, void *out, char as) {
  if (via_h5(f)) return mxn__h5_att_get(f->h5, v, name, out, as);
  int rc = as == 'd'   ? nc_get_att_double(f->ncid, v, name, out)
           : as == 'l' ? nc_get_att_longlong(f->ncid, v, name, out)
                       : nc_get_att_text(f->ncid, v, name, out);
  return rc == NC_NOERR ? 0 : -1;
}

int mxn__m_get(const mxn__file_t *f, int v, const size_t *start, const size_t *count,
               const ptrdiff_t *stride, void *out, char as) {
  size_t ch[MXN__BOX_DIMS], len[MXN__BOX_DIMS], box0[MXN__BOX_DIMS], boxn[MXN__BOX_DIMS],
      st[MXN__BOX_DIMS];
  size_t req = 1, box = 1;
  mxn__reads_t *rd = f->rd;
  int nd = f->nc4 && rd ? boxed_shape(f, v, len, ch) : 0;
  if (nd < 1) return plain(f, v, start, count, stride, out, as);
  for (int d = 0; d < nd; d++) {
    if (stride && stride[d] < 1) return plain(f, v, start, count, stride, out, as);
    st[d] = stride ? (size_t)stride[d] : 1;
  }
  int id = f->j, exact = 1;
  for (int d = 0; d < nd; d++) {
    if (count[d] == 0) return NC_NOERR;
    size_t extent = (count[d] - 1) * st[d] + 1;
    if (ch[d] == 0 || start[d] + extent > len[d])
      return plain(f, v, start, count, stride, out, as); /* netCDF says what is wrong */
    box0[d] = start[d] / ch[d] * ch[d];
    size_t end = (start[d] + extent + ch[d] - 1) / ch[d] * ch[d];
    boxn[d] = (end < len[d] ? end : len[d]) - box0[d];
    exact = exact && st[d] == 1 && box0[d] == start[d] && boxn[d] == count[d];
    req *= count[d];
    box *= boxn[d];
  }
  /* inside a recent box, or a kept one: copy */
  for (int i = 0; i < MXN__RECENT_BOXES; i++)
    if (box_holds(&rd->recent[i], id, v, as, nd, start, count, st)) {
      rd->recent[i].used = ++rd->clock;
      box_copy(&rd->recent[i], start, count, st, out);
      return NC_NOERR;
    }
  for (int i = 0; i < rd->nkept; i++)
    if (box_holds(&rd->kept[i], id, v, as, nd, start, count, st)) {
      box_copy(&rd->kept[i], start, count, st, out);
      return NC_NOERR;
    }
  size_t es = as_size(as);
  int rc;
  int keep = rd->keeping && rd->kept_bytes + box * es <= MXN__KEPT_BOXES;
  if ((exact && !keep) || box * es > BOX_KEEP) {
    /* on chunk boundaries already (and not to be kept), or too big to
     * keep: as asked */
    rc = plain(f, v, start, count, stride, out, as);
    if (rc == NC_NOERR) rd->io->bytes_decompressed += (int64_t)(box * es);
    return rc;
  }
  mxn__box_t *b = box_for(rd, box * es, keep);
  if (!b) return plain(f, v, start, count, stride, out, as);
  if ((rc = plain(f, v, box0, boxn, NULL, b->buf, as)) != NC_NOERR) return rc;
  b->key = id;
  b->varid = v;
  b->as = as;
  b->nd = nd;
  memcpy(b->start, box0, sizeof box0);
  memcpy(b->count, boxn, sizeof boxn);
  /* the widening is read too */
  rd->io->bytes_read += (int64_t)(box * es) - (int64_t)(req * es);
  rd->io->bytes_decompressed += (int64_t)(box * es);
  box_copy(b, start, count, st, out);
  return NC_NOERR;
}

void mxn__name_d(char *out, size_t cap, const char *fmt, long long q) {
  const char *pc = strstr(fmt, "%d");
  if (!cap) return;
  char digits[24];
  int nd = 0;
  unsigned long long u = q < 0 ? 0ull - (unsigned long long)q : (unsigned long long)q;
  do digits[nd++] = (char)('0' + u % 10); while (u /= 10);
  if (q < 0) digits[nd++] = '-';
  size_t n = 0;
  for (const char *c = fmt; *c && n + 1 < cap; c++) {
    if (c == pc) {
      while (nd > 0 && n + 1 < cap) out[n++] = digits[--nd];
      c++; /* past the 'd' */
    } else {
      out[n++] = *c;
    }
  }
  out[n] = '\0';
}

int mxn__m_rows(const mxn__file_t *f, const char *fmt, int q, int64_t start, int64_t count,
                int64_t width, void *out, char as) {
  char name[64];
  mxn__name_d(name, sizeof name, fmt, q);
  int v = mxn__m_var(f, name), nd = v >= 0 ? mxn__m_ndims(f, v) : -1;
  if (nd != 1 && nd != 2) return -1;
  size_t st[2] = {(size_t)start, 0}, ct[2] = {(size_t)count, (size_t)width};
  return mxn__m_get(f, v, st, ct, NULL, out, as) == 0 ? 0 : -1;
}

int mxn__m_coords(const mxn__file_t *f, int nd, int64_t first, int64_t n, int64_t stride,
                  double *xyz[3]) {
  ptrdiff_t st[2] = {1, (ptrdiff_t)stride};
  int coord = -1;
  for (int d = 0; d < nd; d++) {
    int v = coord >= 0 ? -1 : mxn__m_var(f, mxn__coord_var[d]);
    if (v >= 0) {
      /* each coordinate a variable of its own */
      size_t start = (size_t)first, count = (size_t)n;
      if (mxn__m_get(f, v, &start, &count, &st[1], xyz[d], 'd')) return -1;
      continue;
    }
    /* all in one [num_dim, num_nodes] variable (older files) */
    if (coord < 0 && ((coord = mxn__m_var(f, MXN__EX_COORD)) < 0 || mxn__m_ndims(f, coord) != 2))
      return -1;
    size_t start[2] = {(size_t)d, (size_t)first}, count[2] = {1, (size_t)n};
    if (mxn__m_get(f, coord, start, count, st, xyz[d], 'd')) return -1;
  }
  return 0;
}

int mxn__files_recheck(mxn_dataset_t *ds, int step) {
  for (int j = 0; j < ds->nfiles; j++) {
    const mxn__file_t *f = mxn__file_held(ds, j); /* members without a record are closed */
    struct stat st;
    /* the path Exodus opened */
    if (!f || !is_open(f) || stat(f->path, &st) != 0) continue;
    if ((int64_t)st.st_size < f->open_size)
      return MXN_DS_ERR(ds, MXN_ERR_IO,
                        "%s: cut short since it was opened (%lld bytes now, %lld "
                        "then): cannot read time step %d",
                        f->path, (long long)st.st_size, (long long)f->open_size, step + 1);
  }
  return MXN_OK;
}
