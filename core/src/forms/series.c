/* Adaptive file series (mxn/series.h): the segments of a run whose mesh
 * changed (`out.e`, `out.e-s002`, ..., each a plain file or a spread set),
 * found from one name by one directory listing or from a list of names,
 * each checked complete by the dataset discovery (discover.c) and its
 * member 0's header read for the dimension and times; then the series'
 * steps as the union of the segments' times. Rank 0 does the file work
 * and broadcasts the result, status and message included. */
#include "comm.h"
#include "io/discover.h"
#include "structure/structure.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

struct mxn_series {
  int nseg;
  mxn_series_segment_t *seg;
  char **paths;       /* the segments' paths (seg[k].path points here) */
  double **times;     /* the segments' times (seg[k].times) */
  int nsteps;
  double *stimes;     /* the series' times */
  mxn_series_step_t *steps;
};

/* ---- names ---- */

/* A name as the series sees it: where it lives, what dataset it names,
 * and its segment. */
typedef struct {
  char dir[PATH_MAX];  /* "." when the name has no directory */
  char *stem;          /* the dataset's name without `.M.r` (malloc'd) */
  long M;              /* 0: a plain file; > 0: a member of a spread set of M;
                          -1: a base name (a spread set of an M to be found) */
  size_t root_len;     /* stem[0..root_len) is the series' root (`out.e`) */
  long number;         /* 1 without `-sNNN`, else NNN */
  int width;           /* digits of NNN as written, 0 without `-sNNN` */
  const char *given;   /* the path as given */
} name_t;

static int is_regular_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* `-sNNN` (3 digits or more, at most 9) at the end of stem[0..n): 1 with
 * the number and the root's length. */
static int parse_segment_suffix(const char *stem, size_t n, long *number, size_t *root_len,
                                int *width) {
  size_t i = n;
  while (i > 0 && isdigit((unsigned char)stem[i - 1])) i--;
  size_t digits = n - i;
  if (digits < 3 || digits > 9 || i < 3 || stem[i - 1] != 's' || stem[i - 2] != '-') return 0;
  *number = strtol(stem + i, NULL, 10);
  *root_len = i - 2;
  *width = (int)digits;
  return *number >= 1;
}

static void split_path(const char *path, char *dir, size_t dirlen, const char **base) {
  const char *slash = strrchr(path, '/');
  if (slash) {
    snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
    if (dir[0] == '\0') snprintf(dir, dirlen, "/");
    *base = slash + 1;
  } else {
    snprintf(dir, dirlen, ".");
    *base = path;
  }
}

/* Classify a path given by the caller. */
static int classify(const char *path, name_t *nm, mxn_error_t *e) {
  const char *base;
  memset(nm, 0, sizeof *nm);
  nm->given = path;
  split_path(path, nm->dir, sizeof nm->dir, &base);
  size_t bl = strlen(base);
  long M, r;
  int w;
  if (is_regular_file(path)) {
    if (mxn__spread_name(base, &bl, &M, &r, &w) && M >= 1 && r < M)
      nm->M = M;
    else
      bl = strlen(base), nm->M = 0;
  } else {
    nm->M = -1;
  }
  if (!base[0]) return mxn_error_set(e, MXN_ERR_IO, "%s: not a file name", path);
  nm->stem = strndup(base, bl);
  if (!nm->stem) return mxn_error_set(e, MXN_ERR_NOMEM, "out of memory");
  if (!parse_segment_suffix(nm->stem, bl, &nm->number, &nm->root_len, &nm->width)) {
    nm->number = 1;
    nm->width = 0;
    nm->root_len = bl;
  }
  return MXN_OK;
}

static void join_path(char *out, size_t len, const char *dir, const char *name) {
  if (strcmp(dir, ".") == 0)
    snprintf(out, len, "%s", name);
  else if (strcmp(dir, "/") == 0)
    snprintf(out, len, "/%s", name);
  else
    snprintf(out, len, "%s/%s", dir, name);
}

/* ---- discovery from one name ---- */

/* What the directory holds of one segment number. */
typedef struct {
  long number;
  int width;           /* of its first name seen */
  char *plain;         /* the plain file's name, or NULL */
  char *member;        /* a spread member's name (the first seen), or NULL */
  long M;              /* that member's M */
  char *other_member;  /* a member of a spread set of another M or stem, or NULL */
  char *other_plain;   /* a second plain name for the same number (`-s02` vs `-s002`) */
} found_t;

static void found_free(found_t *f, int n) {
  for (int k = 0; f && k < n; k++) {
    free(f[k].plain);
    free(f[k].member);
    free(f[k].other_member);
    free(f[k].other_plain);
  }
  free(f);
}

static int cmp_found(const void *a, const void *b) {
  long x = ((const found_t *)a)->number, y = ((const found_t *)b)->number;
  return (x > y) - (x < y);
}

/* Whether directory entry `ent` is a name of the series rooted at
 * root[0..rl): its number, and M (0 for a plain file) with the length of
 * its stem. */
static int series_entry(const char *ent, const char *root, size_t rl, long *number, int *width,
                        long *M, size_t *stem_len) {
  if (strncmp(ent, root, rl) != 0) return 0;
  const char *rest = ent + rl;
  size_t sl = rl;
  *number = 1;
  *width = 0;
  if (rest[0] == '-' && rest[1] == 's') {
    size_t d = 2;
    while (isdigit((unsigned char)rest[d])) d++;
    if (d - 2 < 3 || d - 2 > 9) return 0;
    if (rest[d] != '\0' && rest[d] != '.') return 0;
    *number = strtol(rest + 2, NULL, 10);
    *width = (int)(d - 2);
    if (*number < 1) return 0;
    sl = rl + d;
  }
  if (ent[sl] == '\0') {
    *M = 0;
    *stem_len = sl;
    return 1;
  }
  size_t bl;
  long r;
  int w;
  if (!mxn__spread_name(ent, &bl, M, &r, &w) || bl != sl || *M < 1 || r >= *M) return 0;
  *stem_len = sl;
  return 1;
}

/* List the directory of `nm` for the names of its series, one record per
 * segment number, sorted. */
static int scan_series(const name_t *nm, found_t **out, int *nout, mxn_error_t *e) {
  int status = MXN_OK, n = 0, cap = 0;
  found_t *f = NULL;
  DIR *d = opendir(nm->dir);
  if (!d) return mxn_error_set(e, MXN_ERR_IO, "%s: cannot list its directory %s", nm->given,
                               nm->dir);
  struct dirent *ent;
  while ((ent = readdir(d)) != NULL) {
    long number, M;
    size_t sl;
    int width;
    if (!series_entry(ent->d_name, nm->stem, nm->root_len, &number, &width, &M, &sl)) continue;
    if (ent->d_type != DT_REG) {
      char p[PATH_MAX * 2];
      join_path(p, sizeof p, nm->dir, ent->d_name);
      if (!is_regular_file(p)) continue;
    }
    int k = 0;
    while (k < n && f[k].number != number) k++;
    if (k == n) {
      if (n == cap) {
        cap = cap ? 2 * cap : 16;
        found_t *g = realloc(f, (size_t)cap * sizeof *f);
        if (!g) {
          status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory listing %s", nm->dir);
          break;
        }
        f = g;
      }
      memset(&f[n++], 0, sizeof *f);
      f[k].number = number;
      f[k].width = width;
    }
    char **slot;
    if (M == 0)
      slot = f[k].plain ? (f[k].other_plain ? NULL : &f[k].other_plain) : &f[k].plain;
    else if (!f[k].member) {
      slot = &f[k].member;
      f[k].M = M;
    } else {
      /* another member of the same set is nothing new */
      size_t bl0 = strlen(f[k].member), bl1;
      long m0, r0, r1, m1;
      int w;
      mxn__spread_name(f[k].member, &bl0, &m0, &r0, &w);
      mxn__spread_name(ent->d_name, &bl1, &m1, &r1, &w);
      int same = m0 == m1 && bl0 == bl1 && strncmp(f[k].member, ent->d_name, bl0) == 0;
      slot = same || f[k].other_member ? NULL : &f[k].other_member;
    }
    if (slot && !(*slot = strdup(ent->d_name))) {
      status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory listing %s", nm->dir);
      break;
    }
  }
  closedir(d);
  if (status != MXN_OK) {
    found_free(f, n);
    return status;
  }
  if (n > 1) qsort(f, (size_t)n, sizeof *f, cmp_found);
  *out = f;
  *nout = n;
  return MXN_OK;
}

/* ---- the segments found, before their headers are read ---- */

typedef struct {
  char *path;   /* the path given to the dataset discovery */
  long number;
  int width;    /* digits of its number as named, 0 without `-sNNN` */
  int named;    /* the caller named it: its path stays as given */
} seg_name_t;

/* From one name: the segments beside it. The named one keeps its path;
 * for the others, the form of the name given (plain or spread) is taken
 * where a segment has both. */
static int segments_from_one(const char *path, seg_name_t **out, int *nout, mxn_error_t *e) {
  int status = MXN_OK, n = 0;
  found_t *f = NULL;
  seg_name_t *s = NULL;
  name_t nm;
  MXN_CHECK(classify(path, &nm, e));
  MXN_CHECK(scan_series(&nm, &f, &n, e));
  int mine = -1;
  for (int k = 0; k < n; k++)
    if (f[k].number == nm.number) mine = k;
  if (mine < 0) {
    /* nothing beside it has its name (a path that exists neither as a
     * file nor as a spread set's base): the dataset discovery says so */
    MXN_ALLOC(s, 1);
    if (!(s[0].path = strdup(path))) {
      status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory");
      goto done;
    }
    s[0].number = nm.number;
    s[0].width = nm.width;
    s[0].named = 1;
    *out = s;
    *nout = 1;
    s = NULL;
    goto done;
  }
  MXN_ALLOC(s, n);
  for (int k = 0; k < n; k++) {
    char p[PATH_MAX * 2];
    const found_t *g = &f[k];
    s[k].number = g->number;
    s[k].width = k == mine ? nm.width : g->width;
    if (k == mine) {
      snprintf(p, sizeof p, "%s", path);
      s[k].named = 1;
    } else if (g->other_plain) {
      char a[PATH_MAX * 2], b[PATH_MAX * 2];
      join_path(a, sizeof a, nm.dir, g->plain);
      join_path(b, sizeof b, nm.dir, g->other_plain);
      status = mxn_error_set(e, MXN_ERR_FILESET,
                             "%s and %s: two files for segment %ld of the series", a, b,
                             g->number);
      goto done;
    } else {
      int spread = g->member && (nm.M != 0 || !g->plain);
      if (spread && g->other_member) {
        char a[PATH_MAX * 2], b[PATH_MAX * 2];
        join_path(a, sizeof a, nm.dir, g->member);
        join_path(b, sizeof b, nm.dir, g->other_member);
        status = mxn_error_set(e, MXN_ERR_FILESET,
                               "%s and %s: two spread sets for segment %ld of the series; "
                               "give the files of the series explicitly",
                               a, b, g->number);
        goto done;
      }
      join_path(p, sizeof p, nm.dir, spread ? g->member : g->plain);
    }
    if (!(s[k].path = strdup(p))) {
      status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory");
      goto done;
    }
  }
  *out = s;
  *nout = n;
  s = NULL;
done:
  if (s)
    for (int k = 0; k < n; k++) free(s[k].path);
  free(s);
  found_free(f, n);
  free(nm.stem);
  return status;
}

/* From a list: one segment per dataset named (members of one spread set
 * count once), by number when every name has the same root, else in the
 * order given. */
static int segments_from_list(const char *const *paths, int np, seg_name_t **out, int *nout,
                              mxn_error_t *e) {
  int status = MXN_OK, n = 0;
  name_t *nm = NULL;
  seg_name_t *s = NULL;
  int *keep = NULL;
  MXN_ALLOC(nm, np);
  MXN_ALLOC(keep, np);
  for (int i = 0; i < np; i++) MXN_CHECK(classify(paths[i], &nm[i], e));
  int one_root = 1;
  for (int i = 1; i < np; i++)
    one_root &= strcmp(nm[i].dir, nm[0].dir) == 0 && nm[i].root_len == nm[0].root_len &&
                strncmp(nm[i].stem, nm[0].stem, nm[0].root_len) == 0;
  /* Names of one dataset (same directory, stem and M) collapse. */
  for (int i = 0; i < np; i++) {
    keep[i] = 1;
    for (int j = 0; j < i && keep[i]; j++)
      if (keep[j] && strcmp(nm[i].dir, nm[j].dir) == 0 && strcmp(nm[i].stem, nm[j].stem) == 0 &&
          nm[i].M == nm[j].M)
        keep[i] = 0;
  }
  MXN_ALLOC(s, np);
  for (int i = 0; i < np; i++) {
    if (!keep[i]) continue;
    if (one_root)
      for (int k = 0; k < n; k++)
        if (s[k].number == nm[i].number) {
          status = mxn_error_set(e, MXN_ERR_FILESET,
                                 "%s and %s: two datasets for segment %ld of the series",
                                 s[k].path, paths[i], nm[i].number);
          goto done;
        }
    if (!(s[n].path = strdup(paths[i]))) {
      status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory");
      goto done;
    }
    /* names of different roots: numbered by their place, written back
     * as the first name and -s002, -s003, ... */
    s[n].number = one_root ? nm[i].number : n + 1;
    s[n].width = one_root ? nm[i].width : n ? 3 : 0;
    s[n].named = 1;
    n++;
  }
  if (one_root) {
    /* insertion sort by number: lists are short */
    for (int k = 1; k < n; k++)
      for (int j = k; j > 0 && s[j - 1].number > s[j].number; j--) {
        seg_name_t t = s[j];
        s[j] = s[j - 1];
        s[j - 1] = t;
      }
  }
  *out = s;
  *nout = n;
  s = NULL;
done:
  if (s)
    for (int k = 0; k < n; k++) free(s[k].path);
  free(s);
  for (int i = 0; nm && i < np; i++) free(nm[i].stem);
  free(nm);
  free(keep);
  return status;
}

/* ---- headers ---- */

/* One segment's header as it is sent: path, number, M, dimension, times. */
typedef struct {
  char *path;
  long number;
  int width, M, num_dim, num_times;
  double *times;
} seg_head_t;

/* Member 0's spatial dimension and times: two dimensions and one
 * variable, not the whole header a summary reads, through the member
 * reads (member.c: the header checks of an open, and a netCDF-4 member
 * through HDF5, where netCDF's open loads its whole header). The
 * segment's other members are checked when it is opened as a dataset. */
static int read_head(mxn_dataset_t *ds, seg_head_t *h, mxn_error_t *e) {
  const char *file = mxn__path(ds, 0);
  int status = mxn__record_hold(ds, 0);
  if (status != MXN_OK) return mxn_error_set(e, status, "out of memory");
  const mxn__file_t *f = mxn__member_open(ds, 0, &status);
  if (!f) return mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
  int64_t nd = 0, nt = 0;
  if (!mxn__m_dim(f, MXN__EX_NUM_DIM, &nd) || nd < 1 || nd > 3)
    return mxn_error_set(e, MXN_ERR_FORMAT, "%s: not an Exodus II file (no num_dim of 1-3)", file);
  mxn__m_dim(f, MXN__EX_TIME_STEP, &nt);
  if (nt > INT_MAX / 2)
    return mxn_error_set(e, MXN_ERR_FORMAT, "%s: %lld time steps", file, (long long)nt);
  h->num_dim = (int)nd;
  h->num_times = (int)nt;
  MXN_ALLOC(h->times, nt);
  size_t start = 0, count = (size_t)nt;
  if (nt > 0 && mxn__m_read(f, mxn__m_var(f, MXN__EX_TIME_WHOLE), &start, &count, h->times, 'd') != 0)
    status = mxn_error_set(e, MXN_ERR_FORMAT, "%s: its %lld time values cannot be read", file,
                           (long long)nt);
done:
  if (status == MXN_ERR_NOMEM && !e->msg[0]) mxn_error_set(e, status, "out of memory");
  return status;
}

/* Find each segment's members (the dataset discovery: a missing member is
 * named there) and read member 0's header. */
static int read_segment(const seg_name_t *sn, int several, seg_head_t *h, mxn_error_t *e) {
  mxn_dataset_t *ds = NULL;
  int status = mxn_dataset_create(&ds);
  if (status != MXN_OK) return mxn_error_set(e, status, "out of memory");
  h->number = sn->number;
  h->width = sn->width;
  if (!(h->path = strdup(sn->path))) {
    status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory");
    goto done;
  }
  if ((status = mxn__dataset_discover(ds, sn->path)) != MXN_OK) {
    if (several)
      mxn_error_set(e, status, "series segment %ld: %s", sn->number, mxn_dataset_errmsg(ds));
    else
      mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
    goto done;
  }
  h->M = ds->nfiles;
  if (!sn->named) {
    /* found by the listing: named by its plain file or member 0 */
    char *p = strdup(mxn__path(ds, 0));
    if (!p) {
      status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory");
      goto done;
    }
    free(h->path);
    h->path = p;
  }
  status = read_head(ds, h, e);
done:
  mxn_dataset_destroy(&ds);
  return status;
}

/* ---- what rank 0 sends ---- */

typedef struct {
  char *b;
  size_t n, cap;
  int bad;
} buf_t;

static void put(buf_t *b, const void *p, size_t n) {
  if (b->bad || n == 0) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + n) cap *= 2;
    char *q = realloc(b->b, cap);
    if (!q) {
      b->bad = 1;
      return;
    }
    b->b = q;
    b->cap = cap;
  }
  memcpy(b->b + b->n, p, n);
  b->n += n;
}

static int get(const char *b, size_t n, size_t *at, void *p, size_t len) {
  if (*at + len > n) return 0;
  if (len > 0) memcpy(p, b + *at, len);
  *at += len;
  return 1;
}

/* Rank 0's work: the segments and their headers, checked, packed. */
static void find_series(const char *const *paths, int np, buf_t *out) {
  mxn_error_t e;
  mxn_error_clear(&e);
  seg_name_t *sn = NULL;
  seg_head_t *h = NULL;
  int n = 0, status;
  if (np == 1)
    status = segments_from_one(paths[0], &sn, &n, &e);
  else
    status = segments_from_list(paths, np, &sn, &n, &e);
  if (status == MXN_OK && !(h = mxn__calloc((size_t)n + 1, sizeof *h)))
    status = mxn_error_set(&e, MXN_ERR_NOMEM, "out of memory");
  /* Numbers may skip (segments not kept, as when only some are archived):
   * the series is the segments that exist, by number. */
  for (int k = 0; status == MXN_OK && k < n; k++) {
    status = read_segment(&sn[k], n > 1, &h[k], &e);
    if (status == MXN_OK && k > 0 && h[k].num_dim != h[0].num_dim)
      status = mxn_error_set(&e, MXN_ERR_INCONSISTENT,
                             "%s has %d spatial dimensions but %s, earlier in the series, has %d",
                             h[k].path, h[k].num_dim, h[0].path, h[0].num_dim);
  }
  if (status != MXN_OK && e.status == MXN_OK) mxn_error_set(&e, status, "%s", mxn_strerror(status));
  int32_t st = status, ns = status == MXN_OK ? n : 0;
  put(out, &st, sizeof st);
  put(out, e.msg, sizeof e.msg);
  put(out, &ns, sizeof ns);
  for (int k = 0; k < ns; k++) {
    int32_t len = (int32_t)strlen(h[k].path);
    int64_t num = h[k].number;
    int32_t v[4] = {h[k].M, h[k].num_dim, h[k].num_times, h[k].width};
    put(out, &len, sizeof len);
    put(out, h[k].path, (size_t)len);
    put(out, &num, sizeof num);
    put(out, v, sizeof v);
    put(out, h[k].times, (size_t)h[k].num_times * sizeof(double));
  }
  for (int k = 0; sn && k < n; k++) free(sn[k].path);
  for (int k = 0; h && k < n; k++) {
    free(h[k].path);
    free(h[k].times);
  }
  free(sn);
  free(h);
}

/* ---- the series' steps ---- */

typedef struct {
  double t;
  int seg, step;
} rec_t;

static int cmp_rec(const void *a, const void *b) {
  const rec_t *x = a, *y = b;
  /* NaN times sort last, so the comparison stays an order */
  int nx = isnan(x->t), ny = isnan(y->t);
  if (nx != ny) return nx - ny;
  if (!nx && x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->seg != y->seg) return x->seg - y->seg;
  return x->step - y->step;
}

/* The union of the segments' times; of equal times the later segment's
 * (and within one, the later step's) is kept. */
static int build_steps(mxn_series_t *s) {
  int status = MXN_OK;
  int64_t total = 0;
  rec_t *r = NULL;
  for (int k = 0; k < s->nseg; k++) total += s->seg[k].num_times;
  if (total > INT_MAX / 2) return MXN_ERR_UNSUPPORTED;
  MXN_ALLOC(r, total);
  int64_t at = 0;
  for (int k = 0; k < s->nseg; k++)
    for (int j = 0; j < s->seg[k].num_times; j++) r[at++] = (rec_t){s->seg[k].times[j], k, j};
  qsort(r, (size_t)total, sizeof *r, cmp_rec);
  MXN_ALLOC(s->stimes, total);
  MXN_ALLOC(s->steps, total);
  int n = 0;
  for (int64_t i = 0; i < total;) {
    int64_t g = i;
    while (i + 1 < total && mxn__same_time(r[i + 1].t, r[g].t)) i++;
    s->steps[n] = (mxn_series_step_t){r[i].seg, r[i].step, r[i].t};
    s->stimes[n++] = r[i].t;
    i++;
  }
  s->nsteps = n;
  for (int k = 0; k < s->nseg; k++) s->seg[k].first_step = -1;
  for (int i = n - 1; i >= 0; i--) {
    mxn_series_segment_t *g = &s->seg[s->steps[i].segment];
    g->first_step = i;
    g->num_series_steps++;
  }
done:
  free(r);
  return status;
}

/* Unpack what rank 0 found. */
static int unpack(const char *b, size_t n, mxn_series_t **out, mxn_error_t *e) {
  int status = MXN_OK;
  size_t at = 0;
  int32_t st, ns;
  mxn_error_t got;
  mxn_series_t *s = NULL;
  if (!get(b, n, &at, &st, sizeof st) || !get(b, n, &at, got.msg, sizeof got.msg) ||
      !get(b, n, &at, &ns, sizeof ns))
    return mxn_error_set(e, MXN_ERR_MPI, "series: short message from rank 0");
  got.msg[sizeof got.msg - 1] = '\0';
  if (st != MXN_OK) return mxn_error_set(e, st, "%s", got.msg);
  MXN_ALLOC(s, 1);
  MXN_ALLOC(s->seg, ns);
  MXN_ALLOC(s->paths, ns);
  MXN_ALLOC(s->times, ns);
  s->nseg = ns;
  for (int k = 0; k < ns; k++) {
    int32_t len, v[4];
    int64_t num;
    if (!get(b, n, &at, &len, sizeof len) || len < 0) goto short_msg;
    MXN_ALLOC(s->paths[k], (size_t)len + 1);
    if (!get(b, n, &at, s->paths[k], (size_t)len) || !get(b, n, &at, &num, sizeof num) ||
        !get(b, n, &at, v, sizeof v) || v[2] < 0)
      goto short_msg;
    MXN_ALLOC(s->times[k], v[2]);
    if (!get(b, n, &at, s->times[k], (size_t)v[2] * sizeof(double))) goto short_msg;
    s->seg[k] = (mxn_series_segment_t){.path = s->paths[k], .number = (int)num, .num_files = v[0],
                                       .num_dim = v[1], .num_times = v[2], .times = s->times[k],
                                       .width = v[3]};
  }
  if ((status = build_steps(s)) != MXN_OK) {
    mxn_error_set(e, status, "series: %s building its %s", mxn_strerror(status), "steps");
    goto done;
  }
  *out = s;
  s = NULL;
  goto done;
short_msg:
  status = mxn_error_set(e, MXN_ERR_MPI, "series: short message from rank 0");
done:
  if (status == MXN_ERR_NOMEM && e && e->status == MXN_OK)
    mxn_error_set(e, status, "out of memory reading the series");
  mxn_series_close(&s);
  return status;
}

int mxn_series_open(MPI_Comm comm, const char *const *paths, int npaths, mxn_series_t **out,
                    mxn_error_t *err) {
  int status = MXN_OK, R = 0;
  buf_t b = {0};
  mxn_error_clear(err);
  if (out) *out = NULL;
  if (!out || !paths || npaths < 1)
    status = mxn_error_set(err, MXN_ERR_ARG, "mxn_series_open: %s",
                           !out ? "argument 4 (out) is NULL" : "no paths given");
  for (int i = 0; status == MXN_OK && i < npaths; i++)
    if (!paths[i] || !paths[i][0])
      status = mxn_error_set(err, MXN_ERR_ARG, "mxn_series_open: path %d is empty", i);
  if ((status = mxn__agree_or_local(comm, status, err)) != MXN_OK) return status;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &R);
  int64_t len = 0;
  if (R == 0) {
    find_series(paths, npaths, &b);
    if (b.bad) status = MXN_ERR_NOMEM;
    len = (int64_t)b.n;
  }
  /* rank 0's description to every rank: a rank short of memory (rank 0
   * describing, another taking its copy) fails them all */
  if (comm != MPI_COMM_NULL) status = mxn__comm_bcast_alloc(comm, status, 0, (void **)&b.b, &len);
  if (status == MXN_ERR_NOMEM)
    status = mxn_error_set(err, MXN_ERR_NOMEM, "out of memory reading the series");
  else if (status != MXN_OK)
    status = mxn_error_set(err, status, "series: the broadcast from rank 0 failed");
  else
    status = unpack(b.b, (size_t)len, out, err);
  free(b.b);
  /* A rank that could not unpack (out of memory) fails them all, so none
   * goes on to a collective alone; rank 0's own verdict, the same on every
   * rank, keeps its words. */
  int worst = comm != MPI_COMM_NULL ? mxn__worst(comm, status) : status;
  if (worst != MXN_OK && status == MXN_OK)
    status = mxn_error_set(err, worst, "series: another rank could not take the series (%s)",
                           mxn_strerror(worst));
  if (status != MXN_OK) mxn_series_close(out);
  return status;
}

void mxn_series_close(mxn_series_t **s) {
  if (!s || !*s) return;
  mxn_series_t *p = *s;
  for (int k = 0; k < p->nseg; k++) {
    if (p->paths) free(p->paths[k]);
    if (p->times) free(p->times[k]);
  }
  free(p->paths);
  free(p->times);
  free(p->seg);
  free(p->stimes);
  free(p->steps);
  free(p);
  *s = NULL;
}

int mxn_series_num_segments(const mxn_series_t *s) { return s ? s->nseg : 0; }

const mxn_series_segment_t *mxn_series_segment(const mxn_series_t *s, int k) {
  return s && k >= 0 && k < s->nseg ? &s->seg[k] : NULL;
}

int mxn_series_is_single(const mxn_series_t *s) { return s && s->nseg == 1; }

int mxn_series_num_steps(const mxn_series_t *s) { return s ? s->nsteps : 0; }

const double *mxn_series_times(const mxn_series_t *s) { return s && s->nsteps ? s->stimes : NULL; }

int mxn_series_step(const mxn_series_t *s, int step, mxn_series_step_t *out) {
  if (!s || !out || step < 0 || step >= s->nsteps) return MXN_ERR_ARG;
  *out = s->steps[step];
  return MXN_OK;
}

int mxn_series_step_at_time(const mxn_series_t *s, double t) {
  if (!s || s->nsteps == 0) return -1;
  int k = 0;
  for (int i = 0; i < s->nsteps; i++)
    if (s->stimes[i] <= t || mxn__same_time(t, s->stimes[i])) k = i;
  return k;
}
