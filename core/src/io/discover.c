/* Discovery of a dataset's members: a name given (a member, a base name
 * or a plain file) is turned into the list of member paths of its spread
 * set `base.M.r` (one directory listing), or one file. */
#include "io/discover.h"
#include "io/store.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

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

int mxn__spread_name(const char *name, size_t *base_len, long *M, long *rank, int *width) {
  return parse_spread_name(name, base_len, M, rank, width);
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

/* One listing of the directory of the set `base.M.*`: marks in present[]
 * the members the naming pattern names that are regular files there, and rejects
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
    char path[PATH_MAX];
    mxn__path_of_rank(ds, r, path, sizeof path);
    const char *want = strrchr(path, '/');
    want = want ? want + 1 : path;
    if (e->d_type == DT_REG && strcmp(e->d_name, want) == 0) present[r] = 1;
  }
  closedir(d);
}

/* The ranks [*lo, *hi) of an M-member set that `sel` looks at, and every
 * *step-th of them it takes. */
static void select_span(const mxn_member_select_t *sel, long M, long *lo, long *hi, long *step) {
  *lo = 0;
  *hi = M;
  *step = sel->stride > 0 ? sel->stride : 1;
  if (sel->last > sel->first) {
    *lo = sel->first < 0 ? 0 : sel->first;
    *hi = sel->last < M ? sel->last : M;
  } else {
    *step = 1; /* IOSS: the stride goes with a range */
  }
}

/* Whether `sel` takes rank r of the span (select_span). */
static int select_takes(const mxn_member_select_t *sel, long step, long named, long r) {
  return (r - sel->first) % step == 0 && (!sel->named_only || named < 0 || r == named);
}

int mxn_member_select_count(const mxn_member_select_t *sel, long M, long named) {
  if (!sel) return (int)M;
  long lo, hi, step;
  select_span(sel, M, &lo, &hi, &step);
  int n = 0;
  for (long r = lo; r < hi; r++) n += select_takes(sel, step, named, r);
  return n;
}

/* The members of an M-file set that ds->st.sel chooses (`named`: the rank
 * the path names, or -1 for a base name): *K of them, their ranks in
 * ds->st.member_rank unless every member is chosen. None chosen is an
 * error naming the set and the selection. */
static int choose_members(mxn_dataset_t *ds, const char *path, long M, long named, int *K) {
  const mxn_member_select_t *sel = &ds->st.sel;
  long lo, hi, step;
  select_span(sel, M, &lo, &hi, &step);
  int n = mxn_member_select_count(sel, M, named);
  if (n == M) { /* the whole set */
    *K = (int)M;
    return MXN_OK;
  }
  if (n == 0) {
    char what[160] = "";
    int at = 0;
    if (sel->named_only && named >= 0)
      at = snprintf(what, sizeof what, "the member named, rank %ld, alone", named);
    if (sel->last > sel->first && at >= 0 && (size_t)at < sizeof what)
      at += snprintf(what + at, sizeof what - (size_t)at, "%sranks %d <= r < %d", at ? "; " : "",
                     sel->first, sel->last);
    if (sel->last > sel->first && step > 1 && at >= 0 && (size_t)at < sizeof what)
      snprintf(what + at, sizeof what - (size_t)at, " by %ld", step);
    return MXN_DS_ERR(ds, MXN_ERR_FILESET,
                      "%s: the member selection (%s) chooses none of the set's %ld files", path,
                      what, M);
  }
  if (!(ds->st.member_rank = mxn__malloc((size_t)n * sizeof *ds->st.member_rank))) return MXN_ERR_NOMEM;
  n = 0;
  for (long r = lo; r < hi; r++)
    if (select_takes(sel, step, named, r)) ds->st.member_rank[n++] = (int)r;
  *K = n;
  return MXN_OK;
}

/* Find the member files for `path`: their count and naming pattern (no
 * records yet: the open makes those it keeps), and which of them the
 * selection chooses. */
static int discover(mxn_dataset_t *ds, const char *path) {
  int status = MXN_OK;
  char *present = NULL;
  size_t bl;
  long M = 1, r = -1;
  int width = 1, named = 0;
  char *base = NULL;
  if (is_regular_file(path) && parse_spread_name(path, &bl, &M, &r, &width) &&
      M >= 1 && r < M) {
    named = 1;
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
  ds->st.set_M = (int)M;
  /* The members chosen (a plain file is read whole): their ranks, in
   * order, where not every member is. */
  int K = (int)M;
  if (base && (status = choose_members(ds, path, M, named ? r : -1, &K)) != MXN_OK) {
    free(base);
    return status;
  }
  ds->nfiles = K;
  ds->st.fpages = mxn__calloc((size_t)mxn__fpage_count(ds), sizeof *ds->st.fpages);
  if (!ds->st.fpages) {
    free(base);
    return MXN_ERR_NOMEM;
  }
  mxn__reads_init(&ds->st.reads, &ds->io);
  if (!base) {
    ds->st.name_width = -1;
    if (!(ds->st.name_base = strdup(path)) || !(ds->st.path0 = mxn__path_dup(ds, 0))) return MXN_ERR_NOMEM;
    return MXN_OK;
  }
  base[bl] = '\0';
  ds->st.name_width = width;
  if (!(ds->st.name_base = strdup(base)) || !(ds->st.path0 = mxn__path_dup(ds, 0))) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  char stray[PATH_MAX + 512];
  if (!(present = mxn__calloc((size_t)M, 1))) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  scan_members(ds, base, M, present, stray, sizeof stray);
  /* Only the members chosen need to be there. */
  for (int j = 0; j < K; j++) {
    long rank = ds->st.member_rank ? ds->st.member_rank[j] : j;
    if (present[rank]) continue;
    char mp[PATH_MAX];
    mxn__path_make(ds, j, mp, sizeof mp);
    if (!is_regular_file(mp)) {
      status = MXN_DS_ERR(ds, MXN_ERR_FILESET,
                          "%s: member %ld of the %ld-file set is missing", mp, rank, M);
      goto done;
    }
  }
  if (stray[0]) status = MXN_DS_ERR(ds, MXN_ERR_FILESET, "%s", stray);
done:
  free(present);
  free(base);
  return status;
}

int mxn_dataset_select_members(mxn_dataset_t *ds, const mxn_member_select_t *sel) {
  if (!ds) return MXN_ERR_ARG;
  if (ds->opened || ds->st.fpages)
    return MXN_DS_ERR(ds, MXN_ERR_ARG, "mxn_dataset_select_members: the dataset is already open");
  if (sel && sel->stride < 0)
    return MXN_DS_ERR(ds, MXN_ERR_ARG, "mxn_dataset_select_members: stride %d is negative",
                      sel->stride);
  if (sel)
    ds->st.sel = *sel;
  else
    memset(&ds->st.sel, 0, sizeof ds->st.sel);
  return MXN_OK;
}

/* The pieces of mxn_dataset_open, also for a collective open (load.c). */
int mxn__dataset_discover(mxn_dataset_t *ds, const char *path) {
  if (!ds) return MXN_ERR_ARG;
  if (!path || !*path) return MXN_DS_ERR(ds, MXN_ERR_ARG, "no dataset path given");
  if (ds->opened || ds->st.fpages)
    return MXN_DS_ERR(ds, MXN_ERR_ARG, "%s: this handle already holds a dataset", path);
  mxn_error_clear(&ds->err);
  int status = discover(ds, path);
  if (status != MXN_OK && ds->err.status == MXN_OK)
    MXN_DS_ERR(ds, status, "%s: %s", path, mxn_strerror(status));
  return status;
}
