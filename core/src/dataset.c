/* Datasets: discovery of spread file sets, merged structure, file domains. */
#include "internal.h"
#include "nc3check.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <exodusII.h>
#include <limits.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------- small helpers ---------- */


/* Names from old writers may carry junk after the NUL or trailing blanks. */
static void clean_name(char *s, size_t cap) {
  s[cap - 1] = '\0';
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++)
    if (!isprint((unsigned char)s[i])) s[i] = ' ';
  while (n > 0 && s[n - 1] == ' ') s[--n] = '\0';
}

static int is_regular_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Split "base.M.r" into its parts; r keeps its width. Returns 1 on match. */
static int parse_spread_name(const char *name, size_t *base_len, long *M,
                             long *rank, int *width) {
  size_t n = strlen(name);
  size_t i = n;
  while (i > 0 && isdigit((unsigned char)name[i - 1])) i--;
  if (i == n || i == 0 || name[i - 1] != '.') return 0;
  size_t r0 = i;
  size_t j = i - 1;
  while (j > 0 && isdigit((unsigned char)name[j - 1])) j--;
  if (j == i - 1 || j == 0 || name[j - 1] != '.') return 0;
  if (n - r0 > 9 || (i - 1) - j > 9) return 0;
  *M = strtol(name + j, NULL, 10);
  *rank = strtol(name + r0, NULL, 10);
  *width = (int)(n - r0);
  *base_len = j - 1;
  return 1;
}

/* Whether a directory entry is stem.M.r, and its parts. The stem is
 * compared first: in a directory of several sets (or other files) most
 * names are rejected before they are parsed. */
static int stem_member(const char *name, const char *stem, size_t stem_len, long *M,
                       long *rank, int *width) {
  size_t bl;
  return strncmp(name, stem, stem_len) == 0 && name[stem_len] == '.' &&
         parse_spread_name(name, &bl, M, rank, width) && bl == stem_len;
}

static char *member_name(const char *base, size_t base_len, long M, long r,
                         int width) {
  size_t cap = base_len + 48;
  char *p = mxn__malloc(cap);
  if (p) snprintf(p, cap, "%.*s.%ld.%0*ld", (int)base_len, base, M, width, r);
  return p;
}

/* ---------- discovery ---------- */

/* One listing of the directory of the set `base.M.*`: marks in present[]
 * the members ds->files[] names that are regular files there, and rejects
 * ranks >= M (stray files from another decomposition would otherwise be
 * silently ignored; reported after any missing member). A member the
 * listing leaves unsure (no type given, a link) is left unmarked, for a
 * stat to decide: one stat per member on every rank took as long as a
 * thousand members' summaries took to merge. */
static void scan_members(mxn_dataset_t *ds, const char *base, long M, char *present,
                         char *stray, size_t straylen) {
  const char *slash = strrchr(base, '/');
  char dir[PATH_MAX];
  const char *stem = base;
  stray[0] = '\0';
  if (slash) {
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - base), base);
    if (dir[0] == '\0') snprintf(dir, sizeof dir, "/");
    stem = slash + 1;
  } else {
    snprintf(dir, sizeof dir, ".");
  }
  DIR *d = opendir(dir);
  if (!d) return;
  size_t stem_len = strlen(stem);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    long m, r;
    int w;
    if (!stem_member(e->d_name, stem, stem_len, &m, &r, &w) || m != M) continue;
    if (r >= M) {
      if (!stray[0])
        snprintf(stray, straylen,
                 "%s/%s: stray member: rank %ld is not below the %ld files its name declares", dir,
                 e->d_name, r, M);
      continue;
    }
    const char *want = strrchr(ds->files[r].path, '/');
    want = want ? want + 1 : ds->files[r].path;
    if (e->d_type == DT_REG && strcmp(e->d_name, want) == 0) present[r] = 1;
  }
  closedir(d);
}

/* Find the member files for `path`; fills ds->files[].path. */
static int discover(mxn_dataset_t *ds, const char *path) {
  int status = MXN_OK;
  char *present = NULL;
  size_t bl;
  long M = 1, r;
  int width = 1;
  char *base = NULL;
  if (is_regular_file(path) && parse_spread_name(path, &bl, &M, &r, &width) &&
      M >= 1 && r < M) {
    base = strndup(path, bl);
    if (!base) return MXN_ERR_NOMEM;
  } else if (is_regular_file(path)) {
    M = 1;
  } else {
    /* A base name: look for base.M.r beside it. */
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    const char *stem = slash ? slash + 1 : path;
    if (slash)
      snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
      snprintf(dir, sizeof dir, ".");
    if (slash && dir[0] == '\0') snprintf(dir, sizeof dir, "/");
    DIR *d = opendir(dir);
    long found_M = -1;
    int found_w = 0, ambiguous = 0;
    if (d) {
      struct dirent *e;
      size_t stem_len = strlen(stem);
      while ((e = readdir(d)) != NULL) {
        long m, rr;
        int w;
        if (!stem_member(e->d_name, stem, stem_len, &m, &rr, &w)) continue;
        if (found_M >= 0 && m != found_M) ambiguous = 1;
        if (found_M < 0 || rr == 0) {
          found_M = m;
          found_w = w;
        }
      }
      closedir(d);
    }
    if (found_M < 0)
      return MXN_DS_ERR(ds, MXN_ERR_IO,
                        "%s: no such file, and no spread set %s.M.r beside it",
                        path, path);
    if (ambiguous)
      return MXN_DS_ERR(ds, MXN_ERR_FILESET,
                        "%s: several spread sets with different file counts "
                        "share this base name; open one member explicitly",
                        path);
    M = found_M;
    width = found_w;
    base = strdup(path);
    if (!base) return MXN_ERR_NOMEM;
    bl = strlen(base);
  }
  if (M < 1 || M > 1000000) {
    free(base);
    return MXN_DS_ERR(ds, MXN_ERR_FILESET, "%s: file count %ld is out of range",
                      path, M);
  }
  ds->files = mxn__calloc((size_t)M, sizeof *ds->files);
  if (!ds->files) {
    free(base);
    return MXN_ERR_NOMEM;
  }
  ds->nfiles = (int)M;
  for (long j = 0; j < M; j++) ds->files[j].exoid = -1;
  if (!base) {
    ds->files[0].path = strdup(path);
    if (!ds->files[0].path) return MXN_ERR_NOMEM;
    return MXN_OK;
  }
  for (long j = 0; j < M; j++) {
    ds->files[j].path = member_name(base, bl, M, j, width);
    if (!ds->files[j].path) {
      status = MXN_ERR_NOMEM;
      goto done;
    }
  }
  char stray[PATH_MAX + 512];
  if (!(present = mxn__calloc((size_t)M, 1))) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  scan_members(ds, base, M, present, stray, sizeof stray);
  for (long j = 0; j < M; j++) {
    if (!present[j] && !is_regular_file(ds->files[j].path)) {
      status = MXN_DS_ERR(ds, MXN_ERR_FILESET,
                          "%s: member %ld of the %ld-file set is missing",
                          ds->files[j].path, j, M);
      goto done;
    }
  }
  if (stray[0]) status = MXN_DS_ERR(ds, MXN_ERR_FILESET, "%s", stray);
done:
  free(present);
  free(base);
  return status;
}

/* ---------- opening members ---------- */

/* Make room for member `keep` by closing another: the most recently used
 * one. Reads go over the members in passes (a step reads every member of
 * the plan in order), and for a pass over more members than the cap the
 * least recently used is the next one needed, so LRU would reopen every
 * member on every pass; closing the most recent keeps the others open and
 * reopens only the excess. 1 if one was closed, 0 if none is open. */
static int is_open(const mxn__file_t *f) { return f->exoid >= 0; }

/* Close member f. */
static void close_member(mxn_dataset_t *ds, mxn__file_t *f) {
  if (f->exoid >= 0) {
    int ex_was = mxn__ex_quiet();
    ex_close(f->exoid);
    mxn__ex_restore(ex_was);
    f->exoid = -1;
    ds->open_count--;
  }
}

static int close_one(mxn_dataset_t *ds, int keep) {
  int victim = -1;
  for (int j = 0; j < ds->nfiles; j++)
    if (j != keep && is_open(&ds->files[j]) &&
        (victim < 0 || ds->files[j].last_use > ds->files[victim].last_use))
      victim = j;
  if (victim >= 0) close_member(ds, &ds->files[victim]);
  return victim >= 0;
}

/* Byte counts from a damaged header can exceed 64 bits: saturate instead
 * of overflowing (signed overflow is undefined). */
static int64_t sat_mul(int64_t a, uint64_t b) {
  if (a <= 0 || b == 0) return 0;
  return (uint64_t)a > (uint64_t)INT64_MAX / b ? INT64_MAX : (int64_t)((uint64_t)a * b);
}

static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

/* The data bytes a netCDF-3 header declares (fixed-size variables and
 * every record), saturating; -1 when it is not netCDF-3 or cannot say. */
static int64_t nc_data_bytes(int ncid) {
  int fmt = 0, nvars = 0, unlim = -1;
  if (nc_inq_format(ncid, &fmt) != NC_NOERR) return -1;
  if (fmt != NC_FORMAT_CLASSIC && fmt != NC_FORMAT_64BIT_OFFSET
#ifdef NC_FORMAT_CDF5
      && fmt != NC_FORMAT_CDF5
#endif
  )
    return -1;
  size_t nrec = 0;
  if (nc_inq_nvars(ncid, &nvars) != NC_NOERR) return -1;
  if (nc_inq_unlimdim(ncid, &unlim) == NC_NOERR && unlim >= 0)
    nc_inq_dimlen(ncid, unlim, &nrec);
  int64_t fixed = 0, per_rec = 0;
  for (int v = 0; v < nvars; v++) {
    nc_type t;
    int nd = 0, dims[NC_MAX_VAR_DIMS];
    size_t tsize = 0, len = 0;
    if (nc_inq_var(ncid, v, NULL, &t, &nd, dims, NULL) != NC_NOERR ||
        nc_inq_type(ncid, t, NULL, &tsize) != NC_NOERR)
      return -1;
    int64_t bytes = (int64_t)tsize;
    int is_rec = 0;
    for (int d = 0; d < nd; d++) {
      if (dims[d] == unlim) {
        is_rec = 1;
        continue;
      }
      if (nc_inq_dimlen(ncid, dims[d], &len) != NC_NOERR) return -1;
      bytes = sat_mul(bytes, (uint64_t)len);
    }
    if (is_rec)
      per_rec = sat_add(per_rec, bytes);
    else
      fixed = sat_add(fixed, bytes);
  }
  return sat_add(fixed, sat_mul(per_rec, (uint64_t)nrec));
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

/* Exodus reads some variables whole (nc_get_var: ids, times, truth tables,
 * id and numbered maps, set entries and distribution factors) into arrays
 * the caller sizes by a dimension. A damaged header that gives such a
 * variable another shape made netCDF write past mxn's arrays (found by
 * fuzz_dataset). So each of them must hold exactly what its dimensions say;
 * '#' stands for the number the variable's name ends with. */
typedef struct {
  const char *var;   /* name, or prefix of numbered names */
  int numbered;      /* name = var + decimal number */
  const char *dim[2];/* expected dimensions (product); none: a scalar */
} shape_rule_t;

static const shape_rule_t shape_rules[] = {
    {"eb_prop", 1, {"num_el_blk"}},          {"ed_prop", 1, {"num_ed_blk"}},
    {"fa_prop", 1, {"num_fa_blk"}},          {"ns_prop", 1, {"num_node_sets"}},
    {"ss_prop", 1, {"num_side_sets"}},       {"es_prop", 1, {"num_edge_sets"}},
    {"fs_prop", 1, {"num_face_sets"}},       {"els_prop", 1, {"num_elem_sets"}},
    {"em_prop", 1, {"num_elem_maps"}},       {"nm_prop", 1, {"num_node_maps"}},
    {"edm_prop", 1, {"num_edge_maps"}},      {"fam_prop", 1, {"num_face_maps"}},
    {"time_whole", 0, {"time_step"}},
    {"elem_var_tab", 0, {"num_el_blk", "num_elem_var"}},
    {"edge_var_tab", 0, {"num_ed_blk", "num_edge_var"}},
    {"face_var_tab", 0, {"num_fa_blk", "num_face_var"}},
    {"nset_var_tab", 0, {"num_node_sets", "num_nset_var"}},
    {"sset_var_tab", 0, {"num_side_sets", "num_sset_var"}},
    {"eset_var_tab", 0, {"num_edge_sets", "num_eset_var"}},
    {"fset_var_tab", 0, {"num_face_sets", "num_fset_var"}},
    {"elset_var_tab", 0, {"num_elem_sets", "num_elset_var"}},
    {"node_num_map", 0, {"num_nodes"}},      {"elem_num_map", 0, {"num_elem"}},
    {"edge_num_map", 0, {"num_edge"}},       {"face_num_map", 0, {"num_face"}},
    {"node_map", 1, {"num_nodes"}},          {"elem_map", 1, {"num_elem"}},
    {"edge_map", 1, {"num_edge"}},           {"face_map", 1, {"num_face"}},
    {"node_ns", 1, {"num_nod_ns#"}},         {"dist_fact_ns", 1, {"num_nod_ns#"}},
    {"elem_ss", 1, {"num_side_ss#"}},        {"side_ss", 1, {"num_side_ss#"}},
    {"dist_fact_ss", 1, {"num_df_ss#"}},     {"edge_es", 1, {"num_edge_es#"}},
    {"ornt_es", 1, {"num_edge_es#"}},        {"dist_fact_es", 1, {"num_df_es#"}},
    {"face_fs", 1, {"num_face_fs#"}},        {"ornt_fs", 1, {"num_face_fs#"}},
    {"dist_fact_fs", 1, {"num_df_fs#"}},     {"elem_els", 1, {"num_ele_els#"}},
    {"dist_fact_els", 1, {"num_df_els#"}},   {"nem_ftype", 0, {NULL}},
    {"coordx", 0, {"num_nodes"}},            {"coordy", 0, {"num_nodes"}},
    {"coordz", 0, {"num_nodes"}},            {"coord", 0, {"num_dim", "num_nodes"}},
};

/* A member's variable count, variable v's name (into buf; NULL if
 * unknown), its entries (product of its dimensions, -1 on error), and
 * dimension `name`'s length (1 if it exists, else 0), through netCDF. */
static int mv_nvars(int ncid) {
  int n = 0;
  return nc_inq_nvars(ncid, &n) == NC_NOERR ? n : 0;
}

static const char *mv_varname(int ncid, int v, char buf[NC_MAX_NAME + 1]) {
  return nc_inq_varname(ncid, v, buf) == NC_NOERR ? buf : NULL;
}

static int64_t mv_entries(int ncid, int v) {
  int nd = 0, dims[NC_MAX_VAR_DIMS];
  if (nc_inq_varndims(ncid, v, &nd) != NC_NOERR || nd < 0 || nd > NC_MAX_VAR_DIMS ||
      nc_inq_vardimid(ncid, v, dims) != NC_NOERR)
    return -1;
  int64_t n = 1;
  for (int d = 0; d < nd; d++) {
    size_t len = 0;
    if (nc_inq_dimlen(ncid, dims[d], &len) != NC_NOERR) return -1;
    n = sat_mul(n, (uint64_t)len);
  }
  return n;
}

static int mv_dimlen(int ncid, const char *name, int64_t *len) {
  int did;
  size_t l = 0;
  if (nc_inq_dimid(ncid, name, &did) != NC_NOERR || nc_inq_dimlen(ncid, did, &l) != NC_NOERR)
    return 0;
  *len = (int64_t)l;
  return 1;
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

#define NSHAPE_RULES ((int)(sizeof shape_rules / sizeof *shape_rules))
#define SHAPE_BUCKETS 64

/* A name's bucket among the shape rules: of its first two bytes (the
 * second may be its terminating NUL; no rule matches a name that short). */
static int shape_bucket(const char *name) {
  unsigned b0 = (unsigned char)name[0], b1 = (unsigned char)name[1];
  return (int)((b0 * 31u + b1) & (SHAPE_BUCKETS - 1));
}

static int check_var_shapes(mxn_dataset_t *ds, const char *path, int ncid) {
  /* The rules by their first two letters, chained in table order: a
   * variable is held against those of its letters only (against all 47 in
   * turn, the scan was two thirds of this check: 28 k instructions a
   * member; by first letter alone, a third of it was still the "e" and
   * "n" rules). Every rule's name has two letters or more. */
  int head[SHAPE_BUCKETS], next[NSHAPE_RULES];
  for (int b = 0; b < SHAPE_BUCKETS; b++) head[b] = -1;
  for (int r = NSHAPE_RULES - 1; r >= 0; r--) {
    int b = shape_bucket(shape_rules[r].var);
    next[r] = head[b];
    head[b] = r;
  }
  int nvars = mv_nvars(ncid);
  for (int v = 0; v < nvars; v++) {
    char buf[NC_MAX_NAME + 1];
    const char *name = mv_varname(ncid, v, buf);
    if (!name || !name[0]) continue;
    for (int r = head[shape_bucket(name)]; r >= 0; r = next[r]) {
      const shape_rule_t *sr = &shape_rules[r];
      size_t pl = starts_with(name, sr->var);
      if (!pl) continue;
      const char *num = name + pl;
      if (sr->numbered ? !all_digits(num) : *num != '\0') continue;
      int64_t want = 1, have = mv_entries(ncid, v);
      char dn[2][NC_MAX_NAME + 1];
      for (int d = 0; d < 2 && sr->dim[d]; d++) {
        rule_dim(dn[d], sr->dim[d], num);
        int64_t len = 0;
        if (!mv_dimlen(ncid, dn[d], &len))
          return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: damaged Exodus file: variable '%s' without its dimension '%s'",
                            path, name, dn[d]);
        want = sat_mul(want, (uint64_t)len);
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

/* The attributes of an open netCDF file (one that is not netCDF-3, whose
 * header walk checks them) against what Exodus 6.02 can hold
 * (mxn__exodus_att_check), global ones first, then each variable's in
 * order, as the walk meets them. 0 if sound, else 1 and a reason. */
static int check_exodus_atts(int ncid, char *why, size_t whylen) {
  int nvars = 0;
  if (nc_inq_nvars(ncid, &nvars) != NC_NOERR) return 0;
  for (int v = NC_GLOBAL; v < nvars; v++) {
    char var[NC_MAX_NAME + 1] = "", att[NC_MAX_NAME + 1];
    int natts = 0;
    if ((v >= 0 && nc_inq_varname(ncid, v, var) != NC_NOERR) ||
        nc_inq_varnatts(ncid, v, &natts) != NC_NOERR)
      continue;
    for (int k = 0; k < natts; k++) {
      size_t len;
      if (nc_inq_attname(ncid, v, k, att) == NC_NOERR &&
          nc_inq_attlen(ncid, v, att, &len) == NC_NOERR &&
          mxn__exodus_att_check(v >= 0 ? var : NULL, att, len, why, whylen))
        return 1;
    }
  }
  return 0;
}

/* The netCDF id the next nc_open or ex_open will get: netCDF hands out the
 * lowest free one. Found by creating an in-memory dataset (no file is
 * written) and dropping it; -1 if that fails. */
static int next_nc_id(void) {
  int id;
  if (nc_create("mxn-next-id", NC_DISKLESS | NC_CLOBBER, &id) != NC_NOERR) return -1;
  nc_abort(id);
  return id;
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

/* Open member j through Exodus where it is not open yet (LRU-capped). */
static int open_member_quiet(mxn_dataset_t *ds, int j);
static int open_member(mxn_dataset_t *ds, int j) {
  mxn__file_t *f = &ds->files[j];
  f->last_use = ++ds->use_clock;
  if (f->exoid >= 0) return MXN_OK;
  int ex_was = mxn__ex_quiet();
  int status = open_member_quiet(ds, j);
  mxn__ex_restore(ex_was);
  return status;
}

static int open_member_quiet(mxn_dataset_t *ds, int j) {
  mxn__file_t *f = &ds->files[j];
  /* room for the Exodus id and, on a first look, a probe's */
  while (ds->open_count + (f->nc_checked ? 1 : 2) > ds->max_open && close_one(ds, j)) continue;
  int first = !f->nc_checked, probe_id = -1, leak_id = -1;
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
   * the counts in it (gigabyte allocations, crashes on damaged files), and
   * Exodus 6.02 the lengths of some attributes. A file that is not
   * netCDF-3 is opened by netCDF alone first and its attributes checked
   * there: ex_open (Exodus 6.02) leaves a descriptor open when netCDF
   * fails with an errno, and prints to stderr for files that look like
   * HDF5; the core never prints. Once per member: a reopen after the
   * open-file cap closed it needs no second look. */
  char magic[4] = {0};
  if (first) {
    char why[200];
    int check = mxn__nc3_header_check(fd, (int64_t)st.st_size, magic, why, sizeof why);
    if (check < 0)
      return MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot open: %s", f->path, why);
    if (check == 1)
      return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: not a readable Exodus II file (damaged netCDF header: %s)",
                        f->path, why);
    if (check == 2)
      return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: not a readable Exodus II file (damaged: %s)",
                        f->path, why);
    if (check == 0) {
      int rc = nc_open(f->path, NC_NOWRITE, &probe_id);
      if (rc != NC_NOERR)
        return open_refused(ds, f->path, magic, rc);
      if (check_exodus_atts(probe_id, why, sizeof why)) {
        nc_close(probe_id);
        return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: not a readable Exodus II file (damaged: %s)",
                          f->path, why);
      }
    }
  }
  leak_id = next_nc_id();
  int cpu_ws = 8, io_ws = 0;
  float version = 0;
  /* Exodus 6.02 opens every file for reading in netCDF's share mode,
   * EX_NOSHARE or not (strace: an lseek and a read of its own for each
   * value or run asked for). Opening without it (nc_open, then Exodus's
   * ex_conv_ini as ex_open does) was tried and measured no faster on 1024
   * members: netCDF's two 8 KiB buffers then re-read the header's block
   * each time reads alternate between the small variables beside it and
   * the data further on, and per-step reads were slower. The same id
   * serves the reads by netCDF variable id. */
  int id = ex_open(f->path, EX_READ, &cpu_ws, &io_ws, &version);
  if (id < 0) {
    /* ex_open (6.02) does not close the netCDF id it opened when a later
     * check fails (a damaged header): the file stayed open under the id
     * next_nc_id() foresaw. Close it if it is open (else nc_close only
     * answers NC_EBADID). */
    if (leak_id >= 0 && leak_id != probe_id) nc_close(leak_id);
    if (probe_id >= 0) nc_close(probe_id);
    /* netCDF's own reason, when it is netCDF that refuses the file */
    int probe, rc = first && probe_id < 0 ? nc_open(f->path, NC_NOWRITE, &probe) : NC_NOERR;
    if (rc != NC_NOERR) return open_refused(ds, f->path, magic, rc);
    if (first && probe_id < 0) nc_close(probe);
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                      "%s: not a readable Exodus II file (netCDF opens it, "
                      "Exodus does not: not Exodus, or a damaged header)",
                      f->path);
  }
  if (probe_id >= 0) nc_close(probe_id);
  int status = check_not_truncated(ds, f->path, nc_data_bytes(id), (int64_t)st.st_size);
  f->open_size = (int64_t)st.st_size;
  if (status == MXN_OK && first) status = check_var_shapes(ds, f->path, id);
  if (status != MXN_OK) {
    ex_close(id);
    return status;
  }
  /* All ids and counts come back as int64_t, whatever the file stores. */
  ex_set_int64_status(id, EX_ALL_INT64_API);
  f->exoid = id;
  ds->open_count++;
  f->nc_checked = 1;
  ds->io.files_opened++;
  return MXN_OK;
}

mxn__file_t *mxn__file_open(mxn_dataset_t *ds, int j, int *status) {
  *status = open_member(ds, j);
  return *status == MXN_OK ? &ds->files[j] : NULL;
}

int mxn__m_var(const mxn__file_t *f, const char *name) {
  int v;
  return nc_inq_varid(f->exoid, name, &v) == NC_NOERR ? v : -1;
}

int mxn__m_ndims(const mxn__file_t *f, int v) {
  int nd;
  return nc_inq_varndims(f->exoid, v, &nd) == NC_NOERR ? nd : -1;
}

int64_t mxn__m_dimlen(const mxn__file_t *f, int v, int d) {
  int dims[NC_MAX_VAR_DIMS];
  size_t len;
  if (nc_inq_vardimid(f->exoid, v, dims) != NC_NOERR ||
      nc_inq_dimlen(f->exoid, dims[d], &len) != NC_NOERR)
    return -1;
  return (int64_t)len;
}

int mxn__m_get(const mxn__file_t *f, int v, const size_t *start, const size_t *count,
               const ptrdiff_t *stride, void *out, char as) {
  int id = f->exoid;
  switch (as) {
    case 'd': return nc_get_vars_double(id, v, start, count, stride, out);
    case 'l': return nc_get_vars_longlong(id, v, start, count, stride, out);
    default: return nc_get_vars_text(id, v, start, count, stride, out);
  }
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

/* A member's coordinates, one variable per dimension (else one "coord"). */
static const char *const coord_var[3] = {"coordx", "coordy", "coordz"};

int mxn__m_coords(const mxn__file_t *f, int nd, int64_t first, int64_t n, int64_t stride,
                  double *xyz[3]) {
  ptrdiff_t st[2] = {1, (ptrdiff_t)stride};
  int coord = -1;
  for (int d = 0; d < nd; d++) {
    int v = coord >= 0 ? -1 : mxn__m_var(f, coord_var[d]);
    if (v >= 0) {
      /* each coordinate a variable of its own */
      size_t start = (size_t)first, count = (size_t)n;
      if (mxn__m_get(f, v, &start, &count, &st[1], xyz[d], 'd')) return -1;
      continue;
    }
    /* all in one [num_dim, num_nodes] variable (older files) */
    if (coord < 0 && ((coord = mxn__m_var(f, "coord")) < 0 || mxn__m_ndims(f, coord) != 2))
      return -1;
    size_t start[2] = {(size_t)d, (size_t)first}, count[2] = {1, (size_t)n};
    if (mxn__m_get(f, coord, start, count, st, xyz[d], 'd')) return -1;
  }
  return 0;
}

/* Whether a member's time a is the dataset's b: within 1e-9 relative
 * (two NaNs, or a NaN against anything, are not told apart, as before). */
static int same_time(double a, double b) {
  return !(fabs(a - b) > 1e-9 * (fabs(b) + 1e-30) && a != b);
}

int mxn__step_time_check(mxn_dataset_t *ds, int j, int step) {
  const mxn_structure_t *s = &ds->s;
  mxn__file_t *f = &ds->files[j];
  int nt = s->num_times, status = MXN_OK;
  if (j == 0 || step <= 0 || step >= nt - 1) return MXN_OK; /* compared at the open */
  if (f->time_ok && (f->time_ok[step >> 3] >> (step & 7) & 1)) return MXN_OK;
  if (!f->time_ok && !(f->time_ok = mxn__calloc((size_t)nt / 8 + 1, 1))) return MXN_ERR_NOMEM;
  const mxn__file_t *of = mxn__file_open(ds, j, &status);
  if (!of) return status;
  int v = mxn__m_var(of, "time_whole");
  size_t start = (size_t)step, count = 1;
  double t = 0;
  if (v < 0 || mxn__m_get(of, v, &start, &count, NULL, &t, 'd'))
    return MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read its time at step %d", f->path, step + 1);
  ds->io.read_calls++;
  ds->io.bytes_read += (int64_t)sizeof(double);
  if (!same_time(t, s->times[step]))
    return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT, "%s: time step %d is %.17g, in %s it is %.17g",
                      f->path, step + 1, t, ds->files[0].path, s->times[step]);
  f->time_ok[step >> 3] |= (unsigned char)(1u << (step & 7));
  return MXN_OK;
}

int mxn__files_recheck(mxn_dataset_t *ds, int step) {
  for (int j = 0; j < ds->nfiles; j++) {
    const mxn__file_t *f = &ds->files[j];
    struct stat st;
    /* the path Exodus opened */
    if (!is_open(f) || stat(f->path, &st) != 0) continue;
    if ((int64_t)st.st_size < f->open_size)
      return MXN_DS_ERR(ds, MXN_ERR_IO,
                        "%s: cut short since it was opened (%lld bytes now, %lld "
                        "then): cannot read time step %d",
                        f->path, (long long)st.st_size, (long long)f->open_size, step + 1);
  }
  return MXN_OK;
}

/* ---------- structure ---------- */

static int find_block(const mxn_block_info_t *blocks, int n, int64_t id) {
  for (int b = 0; b < n; b++)
    if (blocks[b].id == id) return b;
  return -1;
}

static int find_set(const mxn_set_info_t *sets, int n, int64_t id) {
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

/* The dataset's arena (struct mxn_dataset): chunks of ARENA_CHUNK bytes,
 * zeroed, each array 16-byte aligned; one larger than a quarter chunk gets
 * a chunk of its own, behind the newest so that one's room stays in use.
 * Under AddressSanitizer every array is a chunk of its own, so an overrun
 * from one into the next is still caught. */
struct mxn__chunk {
  struct mxn__chunk *next;
  size_t pad; /* the data 16-byte aligned */
  unsigned char data[];
};
#define ARENA_CHUNK ((size_t)32 << 10)

/* n zeroed elements of `size` from the arena; NULL out of memory. */
static void *arena_calloc(mxn_dataset_t *ds, size_t n, size_t size) {
  if (size && n > (SIZE_MAX - 2 * ARENA_CHUNK) / size) return NULL;
  size_t bytes = (n * size + 15) & ~(size_t)15;
  if (ds->arena && bytes <= ds->arena_cap - ds->arena_used) {
    void *p = ds->arena->data + ds->arena_used;
    ds->arena_used += bytes;
    return p;
  }
  int own = MXN_ASAN || bytes > ARENA_CHUNK / 4;
  size_t cap = own ? bytes : ARENA_CHUNK;
  struct mxn__chunk *c = mxn__calloc(1, sizeof *c + cap);
  if (!c) return NULL;
  if (own && ds->arena) { /* behind the newest chunk */
    c->next = ds->arena->next;
    ds->arena->next = c;
  } else {
    c->next = ds->arena;
    ds->arena = c;
    ds->arena_used = bytes;
    ds->arena_cap = cap;
  }
  return c->data;
}

/* n zeroed elements for ptr from the dataset's arena (freed only with the
 * dataset), NULL for n == 0: the arrays are indexed only below counts that
 * are then 0. Out of memory: MXN_ERR_NOMEM, to `done`. */
#define ARENA_ALLOC0(ptr, n)                                               \
  do {                                                                     \
    (ptr) = NULL;                                                          \
    if ((n) > 0 && !((ptr) = arena_calloc(ds, (size_t)(n), sizeof *(ptr)))) { \
      status = MXN_ERR_NOMEM;                                              \
      goto done;                                                           \
    }                                                                      \
  } while (0)

static void arena_free(mxn_dataset_t *ds) {
  while (ds->arena) {
    struct mxn__chunk *c = ds->arena;
    ds->arena = c->next;
    free(c);
  }
  ds->arena_used = ds->arena_cap = 0;
}

/* ---------- member summaries ----------
 * Everything the structure needs from one member's header is read with
 * the Exodus API into a byte stream (summarize_member) and merged into the
 * structure from that stream (merge_member). A serial open does both, one
 * member after the other; a collective open (mxn__dataset_summaries,
 * load.c) lets each rank read only a share of the members and exchange the
 * streams, so no rank opens every member. Either way the members are
 * merged in order 0..M-1 by the same code, so the structure and any error
 * are the same. A member that cannot be read gives a stream holding just
 * its error. */
typedef struct {
  char *p;
  size_t n, cap;
  int nomem;
} wbuf_t;

typedef struct {
  const char *p;
  size_t n, at;
  int bad;
} rbuf_t;

static void w_raw(wbuf_t *w, const void *x, size_t n) {
  if (w->nomem) return;
  if (w->n + n > w->cap) {
    size_t cap = w->cap ? w->cap : 1024;
    while (cap < w->n + n) cap *= 2;
    char *q = mxn__realloc(w->p, cap);
    if (!q) {
      w->nomem = 1;
      return;
    }
    w->p = q;
    w->cap = cap;
  }
  memcpy(w->p + w->n, x, n);
  w->n += n;
}
static void w_i64(wbuf_t *w, int64_t v) { w_raw(w, &v, sizeof v); }
static void w_f64(wbuf_t *w, double v) { w_raw(w, &v, sizeof v); }
static void w_str(wbuf_t *w, const char *s) {
  int64_t n = (int64_t)strlen(s);
  w_i64(w, n);
  w_raw(w, s, (size_t)n);
}

static void r_raw(rbuf_t *r, void *x, size_t n) {
  if (r->bad || n > r->n - r->at) {
    r->bad = 1;
    memset(x, 0, n);
    return;
  }
  memcpy(x, r->p + r->at, n);
  r->at += n;
}
static int64_t r_i64(rbuf_t *r) {
  int64_t v;
  r_raw(r, &v, sizeof v);
  return v;
}
static double r_f64(rbuf_t *r) {
  double v;
  r_raw(r, &v, sizeof v);
  return v;
}
static void r_str(rbuf_t *r, char *out, size_t cap) {
  int64_t n = r_i64(r);
  out[0] = '\0';
  if (r->bad || n < 0 || (size_t)n >= cap || (size_t)n > r->n - r->at) {
    r->bad = 1;
    return;
  }
  memcpy(out, r->p + r->at, (size_t)n);
  out[n] = '\0';
  r->at += (size_t)n;
}

/* Read names of `n` entities/variables into fixed-size slots. */
static int read_names(int exoid, ex_entity_type t, int n,
                      char (*out)[MXN_NAME_LEN], int is_var) {
  int status = MXN_OK;
  char **ptrs = NULL;
  if (n <= 0) return MXN_OK;
  MXN_ALLOC(ptrs, n);
  for (int k = 0; k < n; k++) {
    memset(out[k], 0, MXN_NAME_LEN);
    ptrs[k] = out[k];
  }
  int rc = is_var ? ex_get_variable_names(exoid, t, n, ptrs) : ex_get_names(exoid, t, ptrs);
  if (rc < 0) {
    /* Unnamed entities are legal; unreadable variable names are not. */
    if (is_var) status = MXN_ERR_FORMAT;
    for (int k = 0; k < n; k++) out[k][0] = '\0';
  }
  for (int k = 0; k < n; k++) clean_name(out[k], MXN_NAME_LEN);
done:
  free(ptrs);
  return status;
}

static int has_nc_dim(int exoid, const char *name) {
  int d;
  return nc_inq_dimid(exoid, name, &d) == NC_NOERR;
}

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

/* Variable families in the order a summary stores them: nodal, element,
 * global, edge, face, then the set kinds. */
static const ex_entity_type fam_type[MXN__NV] = {EX_NODAL, EX_ELEM_BLOCK, EX_GLOBAL,
                                                 EX_EDGE_BLOCK, EX_FACE_BLOCK, EX_NODE_SET,
                                                 EX_SIDE_SET, EX_EDGE_SET, EX_FACE_SET,
                                                 EX_ELEM_SET};
static const char *const fam_what[MXN__NV] = {"nodal", "element", "global", "edge", "face",
                                              "node set", "side set", "edge set", "face set",
                                              "element set"};

/* Member j's blocks of kind k into the stream: per block id, name,
 * topology, sizes, attribute names. */
static int summarize_blocks(mxn_dataset_t *ds, int j, int exoid, int k,
                            int64_t nblk, wbuf_t *w) {
  const mxn__file_t *f = &ds->files[j];
  const char *what = mxn__blk_what[k];
  ex_entity_type t = mxn__blk_type[k];
  int status = MXN_OK;
  int64_t *ids = NULL;
  char(*names)[MXN_NAME_LEN] = NULL;
  char(*an)[MXN_NAME_LEN] = NULL;
  char **ap = NULL;
  MXN_ALLOC(ids, nblk);
  MXN_ALLOC(names, nblk);
  if (nblk > 0) {
    if (ex_get_ids(exoid, t, ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s block ids", f->path, what);
      goto done;
    }
    MXN_CHECK(read_names(exoid, t, (int)nblk, names, 0));
  }
  for (int64_t q = 0; q < nblk; q++) {
    ex_block blk;
    memset(&blk, 0, sizeof blk);
    blk.id = ids[q];
    blk.type = t;
    if (ex_get_block_param(exoid, &blk) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s block %lld: cannot read its parameters",
                          f->path, what, (long long)ids[q]);
      goto done;
    }
    if (blk.num_entry < 0 || blk.num_nodes_per_entry < 0 || blk.num_attribute < 0 ||
        blk.num_edges_per_entry < 0 || blk.num_faces_per_entry < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s block %lld: negative sizes", f->path, what,
                          (long long)ids[q]);
      goto done;
    }
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
        (blk.num_faces_per_entry == 0 || blk.num_nodes_per_entry != 0 || blk.num_edges_per_entry != 0)) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld: NFACED with %lld face, %lld node and %lld edge "
                          "references (polyhedra list faces only)",
                          f->path, what, (long long)ids[q], (long long)blk.num_faces_per_entry,
                          (long long)blk.num_nodes_per_entry, (long long)blk.num_edges_per_entry);
      goto done;
    }
    if (poly == MXN_POLY_NSIDED && (blk.num_edges_per_entry != 0 || blk.num_faces_per_entry != 0)) {
      status = MXN_DS_ERR(ds, MXN_ERR_UNSUPPORTED,
                          "%s: %s block %lld: NSIDED entries with edge or face references are "
                          "not supported",
                          f->path, what, (long long)ids[q]);
      goto done;
    }
    if (blk.num_entry > 0 && blk.num_nodes_per_entry == 0 && poly != MXN_POLY_NFACED) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld: %lld entries of type '%s' with 0 nodes each",
                          f->path, what, (long long)ids[q], (long long)blk.num_entry,
                          blk.topology);
      goto done;
    }
    w_i64(w, blk.id);
    w_str(w, names[q]);
    w_str(w, blk.topology);
    w_i64(w, blk.num_entry);
    w_i64(w, blk.num_nodes_per_entry);
    w_i64(w, blk.num_edges_per_entry);
    w_i64(w, blk.num_faces_per_entry);
    w_i64(w, blk.num_attribute);
    int na = blk.num_entry > 0 ? (int)blk.num_attribute : 0;
    if (na > 0) {
      MXN_ALLOC(an, na);
      MXN_ALLOC(ap, na);
      for (int a = 0; a < na; a++) ap[a] = an[a];
      /* Unnamed attributes are legal. */
      if (ex_get_attr_names(exoid, t, blk.id, ap) < 0)
        for (int a = 0; a < na; a++) an[a][0] = '\0';
      for (int a = 0; a < na; a++) {
        clean_name(an[a], MXN_NAME_LEN);
        w_str(w, an[a]);
      }
      free(an);
      free(ap);
      an = NULL;
      ap = NULL;
    }
  }
done:
  free(ids);
  free(names);
  free(an);
  free(ap);
  return status;
}

/* At most this many global values (steps x variables, 1 MiB) are kept from
 * member 0's summary; beyond it each step reads its own. */
#define GLOB_KEEP 131072

/* Member j's header as a stream (see above). Returns the member's status;
 * the stream then holds it and its message. */
static int summarize_member(mxn_dataset_t *ds, int j, wbuf_t *w) {
  mxn__file_t *f = &ds->files[j];
  int status = MXN_OK, exoid;
  char(*names)[MXN_NAME_LEN] = NULL;
  double *times = NULL, *glob = NULL;
  int *truth = NULL, n_glob = 0, ex_was = mxn__ex_quiet();
  int64_t *ids = NULL;
  wbuf_t body = {0};
  if ((status = open_member(ds, j)) != MXN_OK) goto done;
  exoid = f->exoid;

  ex_init_params p;
  memset(&p, 0, sizeof p);
  if (ex_get_init_ext(exoid, &p) < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                        "%s: netCDF file without Exodus II header (no num_dim "
                        "or block counts)",
                        f->path);
    goto done;
  }
  if (p.num_dim < 1 || p.num_dim > 3 || p.num_nodes < 0 || p.num_elem < 0 ||
      p.num_elem_blk < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: invalid header (dimension %lld)", f->path,
                        (long long)p.num_dim);
    goto done;
  }
  if (p.num_edge < 0 || p.num_face < 0 || p.num_edge_blk < 0 || p.num_face_blk < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: invalid header (negative edge/face counts)",
                        f->path);
    goto done;
  }
  {
    /* Every block, set and map stores at least one byte (its id): more of
     * them than the file has bytes is a damaged header, and sizing arrays
     * by it asked for 16 GB (fuzz_dataset). */
    const int64_t cnt[] = {p.num_elem_blk, p.num_edge_blk, p.num_face_blk, p.num_node_sets,
                           p.num_side_sets, p.num_edge_sets, p.num_face_sets, p.num_elem_sets,
                           p.num_elem_maps, p.num_edge_maps, p.num_face_maps, p.num_node_maps};
    for (size_t c = 0; c < sizeof cnt / sizeof *cnt; c++)
      if (cnt[c] < 0 || cnt[c] > f->open_size) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: invalid header (%lld blocks, sets or maps of one kind in a "
                            "file of %lld bytes)",
                            f->path, (long long)cnt[c], (long long)f->open_size);
        goto done;
      }
  }
  const int64_t head[] = {p.num_dim,       p.num_nodes,     p.num_elem,      p.num_edge,
                          p.num_face,      p.num_elem_blk,  p.num_edge_blk,  p.num_face_blk,
                          p.num_node_sets, p.num_side_sets, p.num_edge_sets, p.num_face_sets,
                          p.num_elem_sets, p.num_elem_maps, p.num_edge_maps, p.num_face_maps,
                          p.num_node_maps};
  for (size_t i = 0; i < sizeof head / sizeof *head; i++) w_i64(&body, head[i]);
  {
    char title[MXN_NAME_LEN * 2];
    snprintf(title, sizeof title, "%s", p.title);
    clean_name(title, sizeof title);
    w_str(&body, title);
  }
  w_i64(&body, ex_inquire_int(exoid, EX_INQ_DB_FLOAT_SIZE) == 4 ? 4 : 8);
  {
    char cn[3][MXN_NAME_LEN];
    char *cp[3] = {cn[0], cn[1], cn[2]};
    memset(cn, 0, sizeof cn);
    if (ex_get_coord_names(exoid, cp) < 0)
      for (int d = 0; d < 3; d++) cn[d][0] = '\0';
    for (int d = 0; d < 3; d++) {
      clean_name(cn[d], MXN_NAME_LEN);
      w_str(&body, cn[d]);
    }
  }
  w_i64(&body, ex_inquire_int(exoid, EX_INQ_QA));
  w_i64(&body, ex_inquire_int(exoid, EX_INQ_INFO));
  w_i64(&body, (ex_int64_status(exoid) & EX_IDS_INT64_DB) != 0);
  /* Nemesis: global counts, file count. */
  {
    int64_t nng = 0, neg = 0, nbg = 0, nnsg = 0, nssg = 0;
    int ok = has_nc_dim(exoid, "num_nodes_global") &&
             ex_get_init_global(exoid, &nng, &neg, &nbg, &nnsg, &nssg) >= 0;
    w_i64(&body, ok);
    w_i64(&body, nng);
    w_i64(&body, neg);
    int nproc = 0, nproc_file = 0;
    char ftype[2] = "";
    ok = has_nc_dim(exoid, "num_processors") &&
         ex_get_init_info(exoid, &nproc, &nproc_file, ftype) >= 0;
    w_i64(&body, ok);
    w_i64(&body, nproc);
  }
  /* Blocks. */
  const int64_t nblk_of[MXN__NBK] = {p.num_elem_blk, p.num_edge_blk, p.num_face_blk};
  for (int k = 0; k < MXN__NBK; k++) MXN_CHECK(summarize_blocks(ds, j, exoid, k, nblk_of[k], &body));
  /* Sets: id, name, entries, distribution factors. */
  const int64_t nsets_of[MXN__NSK] = {p.num_node_sets, p.num_side_sets, p.num_edge_sets,
                                      p.num_face_sets, p.num_elem_sets};
  for (int sk = 0; sk < MXN__NSK; sk++) {
    ex_entity_type t = mxn__set_type[sk];
    int n = (int)nsets_of[sk];
    if (n <= 0) continue;
    MXN_ALLOC(ids, n);
    MXN_ALLOC(names, n);
    if (ex_get_ids(exoid, t, ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s ids", f->path,
                          mxn__set_what[sk]);
      goto done;
    }
    MXN_CHECK(read_names(exoid, t, n, names, 0));
    for (int k = 0; k < n; k++) {
      int64_t cnt = 0, ndf = 0;
      if (ex_get_set_param(exoid, t, ids[k], &cnt, &ndf) < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s %lld: cannot read its size", f->path,
                            mxn__set_what[sk], (long long)ids[k]);
        goto done;
      }
      w_i64(&body, ids[k]);
      w_str(&body, names[k]);
      w_i64(&body, cnt);
      w_i64(&body, ndf);
    }
    free(ids);
    free(names);
    ids = NULL;
    names = NULL;
  }
  /* Variables of each family that can have them here: count, names, and
   * the truth table over the member's blocks or sets. */
  for (int v = 0; v < MXN__NV; v++) {
    int64_t nobj = v == MXN__V_NODAL || v == MXN__V_GLOBAL ? 0
                   : v == MXN__V_ELEM                      ? p.num_elem_blk
                   : v == MXN__V_EDGE                      ? p.num_edge_blk
                   : v == MXN__V_FACE                      ? p.num_face_blk
                                                           : nsets_of[v - MXN__V_SET0];
    if ((v == MXN__V_EDGE || v == MXN__V_FACE || v >= MXN__V_SET0) && nobj <= 0) continue;
    int n = 0;
    if (ex_get_variable_param(exoid, fam_type[v], &n) < 0 ||
        n < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s variable count", f->path,
                          fam_what[v]);
      goto done;
    }
    if (n > f->open_size) {
      /* every variable's name takes bytes of the file (name_*_var): more
       * variables than bytes is a damaged count, and sizing the names by
       * it asked for gigabytes (fuzz_dataset) */
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: invalid header (%d %s variables in a file of %lld bytes)", f->path,
                          n, fam_what[v], (long long)f->open_size);
      goto done;
    }
    w_i64(&body, n);
    MXN_ALLOC(names, n);
    if (read_names(exoid, fam_type[v], n, names, 1) != MXN_OK) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s variable names", f->path,
                          fam_what[v]);
      goto done;
    }
    for (int k = 0; k < n; k++) w_str(&body, names[k]);
    free(names);
    names = NULL;
    if (v == MXN__V_GLOBAL) n_glob = n;
    if (nobj > 0 && n > 0 && v != MXN__V_NODAL && v != MXN__V_GLOBAL) {
      MXN_ALLOC(truth, nobj * n);
      if (ex_get_truth_table(exoid, fam_type[v], (int)nobj, n, truth) < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s variable truth table",
                            f->path, fam_what[v]);
        goto done;
      }
      for (int64_t i = 0; i < nobj * n; i++) w_i64(&body, truth[i] != 0);
      free(truth);
      truth = NULL;
    }
  }
  /* Nodes have coordinates: a header declaring nodes without them made
   * the id map of a member without one (1..n) 10 GB (fuzz_dataset). The
   * shape check holds them to num_nodes where they are. */
  if (p.num_nodes > 0 && mxn__m_var(f, "coord") < 0) {
    for (int d = 0; d < p.num_dim && status == MXN_OK; d++)
      if (mxn__m_var(f, coord_var[d]) < 0)
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: damaged Exodus file: %lld nodes but no %s (coordinates)",
                            f->path, (long long)p.num_nodes, coord_var[d]);
    if (status != MXN_OK) goto done;
  }
  /* Time values. */
  int nt = (int)ex_inquire_int(exoid, EX_INQ_TIME);
  if (nt < 0) nt = 0;
  /* Member 0's times are the dataset's. Another member gives its first
   * and last (a read each: a record variable's values lie a record apart),
   * and its others are compared when a step is first read from it
   * (mxn__step_time_check): 200 steps of 1024 members took 51 k reads a
   * rank of 4 here, 0.06-0.2 s of the open. */
  int nw = j == 0 || nt <= 2 ? nt : 2, rc = 0;
  MXN_ALLOC(times, nw);
  if (nw == nt && nt > 0)
    rc = ex_get_all_times(exoid, times);
  for (int i = 0; nw < nt && i < 2 && rc >= 0; i++) { /* first, last */
    int k = i ? nt - 1 : 0;
    rc = ex_get_time(exoid, k + 1, &times[i]);
  }
  if (rc < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read time values", f->path);
    goto done;
  }
  w_i64(&body, nt);
  w_i64(&body, nw);
  for (int k = 0; k < nw; k++) w_f64(&body, times[k]);
  /* Member 0 also gives its global variables at every step, where they fit
   * in GLOB_KEEP values: a step's read then takes them from the dataset and
   * no rank opens member 0 for them (the load's ranks each opened it once
   * per step before). 0 values: not kept, read per step as before. */
  int64_t nglob = 0;
  if (j == 0 && nt > 0 && n_glob > 0 && (int64_t)n_glob * nt <= GLOB_KEEP) {
    int varid;
    size_t start[2] = {0, 0}, count[2] = {(size_t)nt, (size_t)n_glob};
    MXN_ALLOC(glob, (int64_t)n_glob * nt);
    if ((varid = mxn__m_var(f, "vals_glo_var")) >= 0 &&
        mxn__m_get(f, varid, start, count, NULL, glob, 'd') == 0) {
      nglob = (int64_t)n_glob * nt;
      ds->io.read_calls++;
      ds->io.bytes_read += nglob * (int64_t)sizeof(double);
    }
  }
  w_i64(&body, nglob);
  for (int64_t k = 0; k < nglob; k++) w_f64(&body, glob[k]);
  /* Id maps present. */
  w_i64(&body, mxn__m_var(f, "node_num_map") >= 0);
  w_i64(&body, mxn__m_var(f, "elem_num_map") >= 0);
  w_i64(&body, mxn__m_var(f, "edge_num_map") >= 0);
  w_i64(&body, mxn__m_var(f, "face_num_map") >= 0);
  /* Numbered maps: ids and names (a member without entities of the kind
   * has no values to give, and exodus 6.02 leaves such maps without an id). */
  const int64_t nmaps_of[MXN__NEK] = {p.num_elem_maps, p.num_edge_maps, p.num_face_maps,
                                      p.num_node_maps};
  const int64_t nents_of[MXN__NEK] = {p.num_elem, p.num_edge, p.num_face, p.num_nodes};
  for (int e = 0; e < MXN__NEK; e++) {
    int nm = (int)nmaps_of[e];
    if (nm <= 0 || nents_of[e] == 0) continue;
    MXN_ALLOC(ids, nm);
    MXN_ALLOC(names, nm);
    if (ex_get_ids(exoid, mxn__map_type[e], ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s map ids", f->path,
                          mxn__ent_what[e]);
      goto done;
    }
    MXN_CHECK(read_names(exoid, mxn__map_type[e], nm, names, 0));
    for (int k = 0; k < nm; k++) {
      w_i64(&body, ids[k]);
      w_str(&body, names[k]);
    }
    free(ids);
    free(names);
    ids = NULL;
    names = NULL;
  }
  if (body.nomem) status = MXN_ERR_NOMEM;
done:
  if (status != MXN_OK && ds->err.status == MXN_OK)
    MXN_DS_ERR(ds, status, "%s: %s", f->path, mxn_strerror(status));
  w_i64(w, status);
  if (status != MXN_OK) {
    w_str(w, ds->err.msg);
  } else {
    w_raw(w, body.p, body.n);
  }
  if (w->nomem && status == MXN_OK) status = MXN_ERR_NOMEM;
  free(body.p);
  free(names);
  free(times);
  free(glob);
  free(truth);
  free(ids);
  mxn__ex_restore(ex_was);
  return status;
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
    int b = find_block(*sb, *nsb, id);
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

/* Merge member j's variable names of family v (or check them against the
 * member that set them, `*from`). A member without entities of the kind
 * (`empty`) may carry no variables of it: Exodus cannot define nodal
 * variables on a file with 0 nodes. */
static int merge_vars(mxn_dataset_t *ds, int j, int v, int n, char (*got)[MXN_NAME_LEN],
                      int empty) {
  mxn_structure_t *s = &ds->s;
  int status = MXN_OK;
  int *num;
  char(**names)[MXN_NAME_LEN];
  int *from = &ds->vars_from[v];
  switch (v) {
    case MXN__V_NODAL: num = &s->num_node_vars, names = &s->node_var_names; break;
    case MXN__V_ELEM: num = &s->num_elem_vars, names = &s->elem_var_names; break;
    case MXN__V_GLOBAL: num = &s->num_global_vars, names = &s->global_var_names; break;
    case MXN__V_EDGE: num = &s->edge_vars.num, names = &s->edge_vars.names; break;
    case MXN__V_FACE: num = &s->face_vars.num, names = &s->face_vars.names; break;
    default: {
      mxn_var_list_t *vl = (mxn_var_list_t *)mxn__svars(s, v - MXN__V_SET0);
      num = &vl->num;
      names = &vl->names;
    }
  }
  if (empty && n == 0) return MXN_OK;
  if (*from < 0) {
    *from = j;
    free(*names);
    *names = NULL;
    *num = n;
    MXN_ALLOC(*names, n);
    for (int k = 0; k < n; k++) memcpy((*names)[k], got[k], MXN_NAME_LEN);
    return MXN_OK;
  }
  if (n != *num)
    return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                      "%s: has %d %s variables, %s has %d: members of "
                      "different datasets?",
                      ds->files[j].path, n, fam_what[v], ds->files[*from].path, *num);
  for (int k = 0; k < n; k++)
    if (strcmp(got[k], (*names)[k]) != 0)
      return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT, "%s: %s variable %d is '%s', in %s it is '%s'",
                        ds->files[j].path, fam_what[v], k + 1, got[k], ds->files[*from].path,
                        (*names)[k]);
done:
  return status;
}

/* Merge member j's summary (`len` bytes at `buf`) into the structure. */
static int merge_member(mxn_dataset_t *ds, int j, const char *buf, size_t len) {
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
  int64_t set_entries[MXN__NSK] = {0};
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
      int q = find_set(*sets, *nsets, fs->ids[k]);
      if (q < 0) {
        MXN_CHECK(grow((void **)sets, sizeof **sets, *nsets));
        q = (*nsets)++;
        (*sets)[q].id = fs->ids[k];
        snprintf((*sets)[q].name, MXN_NAME_LEN, "%s", name);
      }
      if ((*sets)[q].name[0] == '\0') snprintf((*sets)[q].name, MXN_NAME_LEN, "%s", name);
      (*sets)[q].num_entries += cnt;
      if (ndf > 0) (*sets)[q].has_df = 1;
      set_entries[sk] += cnt;
    }
  }
  if (r->bad) goto bad;

  /* Variables must agree across members; truth tables by file block/set
   * for now (remapped by index_members). */
  for (int v = 0; v < MXN__NV; v++) {
    int64_t nobj = v == MXN__V_NODAL || v == MXN__V_GLOBAL ? 0
                   : v == MXN__V_ELEM                      ? nblk_of[MXN__ELEM]
                   : v == MXN__V_EDGE                      ? nblk_of[MXN__EDGE]
                   : v == MXN__V_FACE                      ? nblk_of[MXN__FACE]
                                                           : nsets_of[v - MXN__V_SET0];
    if ((v == MXN__V_EDGE || v == MXN__V_FACE || v >= MXN__V_SET0) && nobj <= 0) continue;
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
    int empty = v == MXN__V_NODAL    ? num_nodes == 0
                : v == MXN__V_ELEM   ? num_elem == 0
                : v == MXN__V_GLOBAL ? 0
                : v == MXN__V_EDGE   ? num_edge == 0
                : v == MXN__V_FACE   ? num_face == 0
                                     : set_entries[v - MXN__V_SET0] == 0;
    MXN_CHECK(merge_vars(ds, j, v, n, names, empty));
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
      if (!same_time(tv[i], s->times[k])) {
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

  /* Numbered maps: union by id per entity kind; nem_spread's record of the
   * original element ids is one of them. */
  const int64_t nents_of[MXN__NEK] = {num_elem, num_edge, num_face, num_nodes};
  const int64_t nm_of[MXN__NEK] = {nmaps_of[0], nmaps_of[1], nmaps_of[2], nmaps_of[3]};
  for (int e = 0; e < MXN__NEK && !r->bad; e++) {
    int nm = (int)nm_of[e];
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
    for (int k = 0; k < MXN__NBK; k++) {
      mxn__blocks_t *kb = &f->kb[k];
      int nb;
      (void)mxn__sblocks(s, k, &nb);
      mxn_var_list_t vl = mxn__bvars(s, k);
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
          int t = kb->truth ? kb->truth[(int64_t)q * vl.num + v] : 0;
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
        int q = find_set(sets, nss, fs->ids[k]);
        if (q < 0) continue;
        int64_t c = fs->file_count[k], d = fs->file_df[k];
        fs->count[q] = c;
        fs->df[q] = d;
        for (int v = 0; v < vl->num; v++) {
          int t = fs->truth ? fs->truth[(int64_t)k * vl->num + v] : 0;
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

int mxn_dataset_create(mxn_dataset_t **ds) {
  if (!ds) return MXN_ERR_ARG;
  *ds = mxn__calloc(1, sizeof **ds);
  if (!*ds) return MXN_ERR_NOMEM;
  (*ds)->s.num_nodes_global = -1;
  (*ds)->s.num_elements_global = -1;
  for (int k = 0; k < MXN__NV; k++) (*ds)->vars_from[k] = -1;
  /* Keep at most half the descriptors the process may open (netCDF and
   * the caller need the rest), between 16 and MXN__MAX_OPEN_FILES. */
  struct rlimit rl;
  int64_t cap = MXN__MAX_OPEN_FILES;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (int64_t)rl.rlim_cur / 2 < cap)
    cap = (int64_t)rl.rlim_cur / 2;
  (*ds)->max_open = cap < 16 ? 16 : (int)cap;
  return MXN_OK;
}

/* The pieces of mxn_dataset_open, also for a collective open (load.c). */
int mxn__dataset_discover(mxn_dataset_t *ds, const char *path) {
  if (!ds) return MXN_ERR_ARG;
  if (!path || !*path) return MXN_DS_ERR(ds, MXN_ERR_ARG, "no dataset path given");
  if (ds->opened || ds->files)
    return MXN_DS_ERR(ds, MXN_ERR_ARG, "%s: this handle already holds a dataset", path);
  mxn_error_clear(&ds->err);
  int status = discover(ds, path);
  if (status != MXN_OK && ds->err.status == MXN_OK)
    MXN_DS_ERR(ds, status, "%s: %s", path, mxn_strerror(status));
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

/* The end of an open after its members' merge: the index over them, or
 * the error, naming `path` where nothing more precise was said. */
static int finish_open(mxn_dataset_t *ds, int status, const char *path) {
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
    status = merge_member(ds, j, bufs[j], lens[j]);
  return finish_open(ds, status, ds->files[0].path);
}

int mxn_dataset_open(mxn_dataset_t *ds, const char *path) {
  int status = mxn__dataset_discover(ds, path);
  if (status != MXN_OK) return status; /* it has said what it could not find */
  /* the members stay open, up to the cap */
  for (int j = 0; status == MXN_OK && j < ds->nfiles; j++) {
    wbuf_t w = {0};
    status = summarize_member(ds, j, &w);
    if (status == MXN_OK) status = merge_member(ds, j, w.p, w.n);
    free(w.p);
  }
  return finish_open(ds, status, path);
}

void mxn__dataset_drop_domains(mxn_dataset_t *ds) {
  for (int j = 0; ds && j < ds->nfiles; j++) {
    mxn__file_domain_free(ds->files[j].dom);
    ds->files[j].dom = NULL; /* read again by mxn_dataset_file_domain() if asked */
  }
}

/* A domain is one block (mxn_dataset_file_domain): its arrays go with it
 * (under ASan the padding between them is poisoned: the allocator's own
 * free accepts that). */
void mxn__file_domain_free(mxn_file_domain_t *d) { free(d); }

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
  memset(s, 0, sizeof *s);
}

void mxn_dataset_destroy(mxn_dataset_t **pds) {
  if (!pds || !*pds) return;
  mxn_dataset_t *ds = *pds;
  for (int j = 0; j < ds->nfiles; j++) {
    mxn__file_t *f = &ds->files[j];
    close_member(ds, f);
    free(f->path);
    /* their blocks', sets' and maps' arrays are in the arena */
    for (int k = 0; k < MXN__NBK; k++) {
      if (f->kb[k].ent_off) {
        int nb;
        (void)mxn__sblocks(&ds->s, k, &nb);
        for (int b = 0; b < nb; b++) free(f->kb[k].ent_off[b]);
        free(f->kb[k].ent_off);
      }
    }
    free(f->time_ok);
    mxn__file_domain_free(f->dom);
  }
  free(ds->files);
  free(ds->glob_vals);
  arena_free(ds);
  free_structure(&ds->s);
  free(ds);
  *pds = NULL;
}

const mxn_structure_t *mxn_dataset_structure(const mxn_dataset_t *ds) {
  return ds && ds->opened ? &ds->s : NULL;
}

const char *mxn_dataset_file_path(const mxn_dataset_t *ds, int j) {
  if (!ds || j < 0 || j >= ds->nfiles) return NULL;
  return ds->files[j].path;
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

/* ---------- poly blocks ---------- */

/* The per-entry counts of a poly block are read once per member, with
 * netCDF (Exodus 6.02 gives them as 32-bit ints only) and prefix-summed:
 * partial reads of the connectivity go by these offsets, never by
 * ex_get_partial_conn, whose start/count for NSIDED/NFACED blocks are
 * positions in the flat reference list, not entries. */
int mxn__poly_offsets(mxn_dataset_t *ds, int j, int k, int b, const int64_t **off) {
  mxn__file_t *f = &ds->files[j];
  mxn__blocks_t *kb = &f->kb[k];
  int nb, status = MXN_OK, q = -1, varid;
  const mxn_block_info_t *sb = mxn__sblocks(&ds->s, k, &nb);
  int64_t *o = NULL;
  *off = NULL;
  if (!kb->ent_off) MXN_ALLOC(kb->ent_off, nb);
  if (kb->ent_off[b]) {
    *off = kb->ent_off[b];
    return MXN_OK;
  }
  for (int i = 0; i < kb->nblk; i++)
    if (kb->blk_of_file[i] == b) q = i;
  int64_t n = kb->blk_count ? kb->blk_count[b] : 0;
  MXN_ALLOC(o, n + 1);
  if (q >= 0 && n > 0) {
    char name[40];
    mxn__name_d(name, sizeof name, k == MXN__FACE ? "fbepecnt%d" : "ebepecnt%d", q + 1);
    if (!mxn__file_open(ds, j, &status)) goto done;
    int64_t *cnt = o + 1;
    /* Read exactly n counts: a damaged file's variable may be longer. */
    size_t start = 0, count = (size_t)n;
    if ((varid = mxn__m_var(f, name)) < 0 ||
        mxn__m_get(f, varid, &start, &count, NULL, cnt, 'l') != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld (%s): cannot read its per-entry counts (%s)",
                          f->path, mxn__blk_what[k], (long long)sb[b].id, sb[b].type, name);
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += n * (int64_t)sizeof(int64_t);
    int min = sb[b].poly == MXN_POLY_NFACED ? 4 : 3; /* a tetrahedron, a triangle */
    for (int64_t i = 0; i < n; i++) {
      if (o[i + 1] < min) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                            "%s: %s block %lld (%s): entry %lld has %lld %s (at least %d needed)",
                            f->path, mxn__blk_what[k], (long long)sb[b].id, sb[b].type,
                            (long long)i + 1, (long long)o[i + 1],
                            sb[b].poly == MXN_POLY_NFACED ? "faces" : "nodes", min);
        goto done;
      }
      o[i + 1] += o[i];
    }
    if (o[n] != kb->file_conn[q]) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld (%s): per-entry counts sum to %lld but the block "
                          "holds %lld references",
                          f->path, mxn__blk_what[k], (long long)sb[b].id, sb[b].type,
                          (long long)o[n], (long long)kb->file_conn[q]);
      goto done;
    }
  }
  kb->ent_off[b] = o;
  *off = o;
  o = NULL;
done:
  free(o);
  return status;
}

/* ---------- file domains ---------- */

/* Member j's id map of entity kind e (MXN__ELEM...MXN__NODE; n ids) into out. */
static int read_map(mxn_dataset_t *ds, int j, int e, int64_t n, int stored, int64_t *out) {
  static const char *const map_var[MXN__NEK] = {"elem_num_map", "edge_num_map", "face_num_map",
                                                "node_num_map"};
  if (n == 0) return MXN_OK;
  if (!stored) {
    /* A single file without maps numbers its entities 1..n. */
    for (int64_t i = 0; i < n; i++) out[i] = i + 1;
    return MXN_OK;
  }
  if (mxn__m_rows(&ds->files[j], map_var[e], 0, 0, n, 1, out, 'l'))
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s id map", ds->files[j].path,
                      mxn__ent_what[e]);
  ds->io.read_calls++;
  ds->io.bytes_read += n * (int64_t)sizeof(int64_t);
  ds->io.map_bytes_read += n * (int64_t)sizeof(int64_t);
  return MXN_OK;
}

/* Under AddressSanitizer each array of a domain's block is followed by
 * DOM_PAD poisoned words, so an overrun into the next array is caught. */
#if MXN_ASAN
#include <sanitizer/asan_interface.h>
#define DOM_PAD 2
#else
#define DOM_PAD 0
#endif

/* The next n words of a domain's block. */
static int64_t *dom_take(int64_t **next, int64_t n) {
  int64_t *r = *next;
  *next += n + DOM_PAD;
#if MXN_ASAN
  ASAN_POISON_MEMORY_REGION(r + n, DOM_PAD * sizeof *r);
#endif
  return r;
}

int mxn_dataset_file_domain(mxn_dataset_t *ds, int j, const mxn_file_domain_t **out) {
  if (!ds || !out || !ds->opened || j < 0 || j >= ds->nfiles) return MXN_ERR_ARG;
  mxn__file_t *f = &ds->files[j];
  if (f->dom) {
    *out = f->dom;
    return MXN_OK;
  }
  int status = MXN_OK;
  mxn_file_domain_t *d = NULL;
  mxn_idset_t tmp = MXN_IDSET_INIT;
  int64_t *tpos = NULL;
  if (!mxn__file_open(ds, j, &status)) return status;
  /* The domain is one block: its maps, sets and positions lie side by
   * side and go back to the heap in one piece (mxn__file_domain_free).
   * Made one array at a time, a thousand small members' domains left the
   * memory they free after the extraction in pieces that the plan's and
   * the piece's long-lived small arrays kept apart. The block comes before
   * the temporaries that build it, which go back to the heap's top. */
  int64_t nk[MXN__NEK];
  for (int e = 0; e < MXN__NEK; e++) nk[e] = mxn__file_count(f, e);
  int NB = ds->s.num_blocks, orig = f->have_orig_map && nk[MXN__ELEM] > 0;
  size_t words = 2 * (size_t)NB + (orig ? (size_t)nk[MXN__ELEM] : 0) + 15 * DOM_PAD;
  for (int e = 0; e < MXN__NEK; e++) words += 3 * (size_t)nk[e]; /* map, ids, positions */
  size_t head = (sizeof *d + 7) & ~(size_t)7;
  size_t bytes = head + words * sizeof(int64_t) + (size_t)NB * sizeof(int);
  char *block = mxn__malloc(bytes);
  if (!block) return MXN_ERR_NOMEM;
  d = (mxn_file_domain_t *)block;
  memset(d, 0, sizeof *d);
  int64_t *next = (int64_t *)(block + head);
#define TAKE(n) dom_take(&next, (n))
  for (int e = 0; e < MXN__NEK; e++) {
    int64_t n = nk[e];
    mxn__dom_kind_t dk = mxn__dom_kind(d, e);
    mxn_gid_t *map = *dk.map = TAKE(n);
    mxn_idset_t *set = dk.set;
    int64_t **pos = dk.pos;
    *dk.n = n;
    set->ids = TAKE(n);
    *pos = TAKE(n);
    int stored = e == MXN__NODE ? f->has_node_map : f->kb[e].has_map;
    MXN_CHECK(read_map(ds, j, e, n, stored, map));
    /* from_array_pos maps input -> set; invert to set -> file position, and
     * reject repeated ids (a set shorter than the map). */
    MXN_CHECK(mxn_idset_from_array_pos(map, n, &tmp, &tpos));
    if (tmp.n != n) {
      /* Find one repeated id to name it. */
      int64_t dup = 0;
      for (int64_t i = 0, seen = -1; i < n && seen < 0; i++)
        if (tmp.ids[tpos[i]] == map[i] && i > 0) {
          for (int64_t k = 0; k < i; k++)
            if (map[k] == map[i]) {
              dup = map[i];
              seen = i;
              break;
            }
        }
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s id %lld appears more than once in the id map",
                          f->path, mxn__ent_what[e], (long long)dup);
      goto done;
    }
    if (n > 0) memcpy(set->ids, tmp.ids, (size_t)n * sizeof *set->ids);
    set->n = n;
    for (int64_t i = 0; i < n; i++) (*pos)[tpos[i]] = i;
    mxn_idset_free(&tmp);
    free(tpos);
    tpos = NULL;
  }
  d->blk_count = TAKE(NB);
  d->blk_start = TAKE(NB);
  memcpy(d->blk_count, f->kb[MXN__ELEM].blk_count, sizeof(int64_t) * (size_t)NB);
  memcpy(d->blk_start, f->kb[MXN__ELEM].blk_start, sizeof(int64_t) * (size_t)NB);
  if (orig) d->orig_elem_ids = TAKE(d->num_elements);
  d->blk_present = (int *)next;
  memcpy(d->blk_present, f->kb[MXN__ELEM].blk_present, sizeof(int) * (size_t)NB);
#undef TAKE
  if (orig) {
    /* Exodus's elem_map<position of the map's id among the member's> */
    int m = mxn__file_map(f, MXN__ELEM, f->orig_map_id) + 1;
    if (mxn__m_rows(f, "elem_map%d", m, 0, d->num_elements, 1, d->orig_elem_ids, 'l')) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read original_global_id_map",
                          f->path);
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += d->num_elements * (int64_t)sizeof(int64_t);
    ds->io.map_bytes_read += d->num_elements * (int64_t)sizeof(int64_t);
  }
  f->dom = d;
  d = NULL;
  *out = f->dom;
done:
  mxn_idset_free(&tmp);
  free(tpos);
  mxn__file_domain_free(d);
  return status;
}
