/* Datasets: discovery of spread file sets, merged structure, file domains. */
#include "internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <exodusII.h>
#include <limits.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <sys/stat.h>

/* ---------- small helpers ---------- */

int64_t mxn__lower_bound(const int64_t *a, int64_t n, int64_t v) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

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

static char *member_name(const char *base, size_t base_len, long M, long r,
                         int width) {
  size_t cap = base_len + 48;
  char *p = malloc(cap);
  if (p) snprintf(p, cap, "%.*s.%ld.%0*ld", (int)base_len, base, M, width, r);
  return p;
}

/* ---------- discovery ---------- */

/* Members of the set `base.M.*` in `dir`: rejects ranks >= M (stray files
 * from another decomposition would otherwise be silently ignored). */
static int check_strays(mxn_dataset_t *ds, const char *base, long M) {
  const char *slash = strrchr(base, '/');
  char dir[PATH_MAX];
  const char *stem = base;
  if (slash) {
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - base), base);
    if (dir[0] == '\0') snprintf(dir, sizeof dir, "/");
    stem = slash + 1;
  } else {
    snprintf(dir, sizeof dir, ".");
  }
  DIR *d = opendir(dir);
  if (!d) return MXN_OK;
  size_t stem_len = strlen(stem);
  int status = MXN_OK;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t bl;
    long m, r;
    int w;
    if (!parse_spread_name(e->d_name, &bl, &m, &r, &w)) continue;
    if (bl != stem_len || strncmp(e->d_name, stem, bl) != 0 || m != M) continue;
    if (r >= M) {
      status = MXN_DS_ERR(ds, MXN_ERR_FILESET,
                          "%s/%s: stray member: rank %ld is not below the %ld "
                          "files its name declares",
                          dir, e->d_name, r, M);
      break;
    }
  }
  closedir(d);
  return status;
}

/* Find the member files for `path`; fills ds->files[].path. */
static int discover(mxn_dataset_t *ds, const char *path) {
  int status = MXN_OK;
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
        size_t b;
        if (!parse_spread_name(e->d_name, &b, &m, &rr, &w)) continue;
        if (b != stem_len || strncmp(e->d_name, stem, b) != 0) continue;
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
  ds->files = calloc((size_t)M, sizeof *ds->files);
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
    if (!is_regular_file(ds->files[j].path)) {
      status = MXN_DS_ERR(ds, MXN_ERR_FILESET,
                          "%s: member %ld of the %ld-file set is missing",
                          ds->files[j].path, j, M);
      goto done;
    }
  }
  status = check_strays(ds, base, M);
done:
  free(base);
  return status;
}

/* ---------- opening members ---------- */

static void close_lru(mxn_dataset_t *ds) {
  int victim = -1;
  for (int j = 0; j < ds->nfiles; j++)
    if (ds->files[j].exoid >= 0 &&
        (victim < 0 || ds->files[j].last_use < ds->files[victim].last_use))
      victim = j;
  if (victim >= 0) {
    ex_close(ds->files[victim].exoid);
    ds->files[victim].exoid = -1;
    ds->open_count--;
  }
}

int mxn__file_exoid(mxn_dataset_t *ds, int j, int *exoid) {
  mxn__file_t *f = &ds->files[j];
  f->last_use = ++ds->use_clock;
  if (f->exoid >= 0) {
    *exoid = f->exoid;
    return MXN_OK;
  }
  if (ds->open_count >= MXN__MAX_OPEN_FILES) close_lru(ds);
  struct stat st;
  if (stat(f->path, &st) != 0)
    return MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot open: %s", f->path,
                      strerror(errno));
  if (st.st_size == 0)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                      "%s: empty file (0 bytes), not an Exodus II file",
                      f->path);
  FILE *probe = fopen(f->path, "rb");
  if (!probe)
    return MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot open: %s", f->path,
                      strerror(errno));
  fclose(probe);
  int cpu_ws = 8, io_ws = 0;
  float version = 0;
  int id = ex_open(f->path, EX_READ, &cpu_ws, &io_ws, &version);
  if (id < 0)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                      "%s: not a readable Exodus II file (netCDF open failed; "
                      "truncated or another format?)",
                      f->path);
  /* All ids and counts come back as int64_t, whatever the file stores. */
  ex_set_int64_status(id, EX_ALL_INT64_API);
  f->exoid = id;
  ds->open_count++;
  ds->io.files_opened++;
  *exoid = id;
  return MXN_OK;
}

/* ---------- structure ---------- */

static int find_block(const mxn_structure_t *s, int64_t id) {
  for (int b = 0; b < s->num_blocks; b++)
    if (s->blocks[b].id == id) return b;
  return -1;
}

static int find_set(const mxn_set_info_t *sets, int n, int64_t id) {
  for (int k = 0; k < n; k++)
    if (sets[k].id == id) return k;
  return -1;
}

static int grow(void **p, size_t elem, int n) {
  void *q = realloc(*p, elem * (size_t)(n + 1));
  if (!q) return MXN_ERR_NOMEM;
  *p = q;
  memset((char *)q + elem * (size_t)n, 0, elem);
  return MXN_OK;
}

/* Read names of `n` entities/variables into fixed-size slots. */
static int read_names(mxn_dataset_t *ds, int exoid, ex_entity_type t, int n,
                      char (*out)[MXN_NAME_LEN], int is_var) {
  int status = MXN_OK;
  char **ptrs = NULL;
  if (n <= 0) return MXN_OK;
  MXN_ALLOC(ptrs, n);
  for (int k = 0; k < n; k++) {
    memset(out[k], 0, MXN_NAME_LEN);
    ptrs[k] = out[k];
  }
  int rc = is_var ? ex_get_variable_names(exoid, t, n, ptrs)
                  : ex_get_names(exoid, t, ptrs);
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

static int has_nc_var(int exoid, const char *name) {
  int v;
  return nc_inq_varid(exoid, name, &v) == NC_NOERR;
}

static int has_nc_dim(int exoid, const char *name) {
  int d;
  return nc_inq_dimid(exoid, name, &d) == NC_NOERR;
}

/* Merge member j's variable names into the structure (or check them). */
/* `*from` is the member that set the names (-1 before any). A member
 * without entities of the kind (`empty`) may carry no variables of it:
 * Exodus cannot define nodal variables on a file with 0 nodes. */
static int merge_vars(mxn_dataset_t *ds, int j, int exoid, ex_entity_type t,
                      int *num, char (**names)[MXN_NAME_LEN],
                      const char *what, int empty, int *from) {
  int status = MXN_OK;
  int n = 0;
  char(*tmp)[MXN_NAME_LEN] = NULL;
  if (ex_get_variable_param(exoid, t, &n) < 0)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s variable count",
                      ds->files[j].path, what);
  if (empty && n == 0) return MXN_OK;
  if (*from < 0) {
    *from = j;
    free(*names);
    *names = NULL;
    *num = n;
    MXN_ALLOC(*names, n);
    if (read_names(ds, exoid, t, n, *names, 1) != MXN_OK) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s variable names",
                          ds->files[j].path, what);
      goto done;
    }
    return MXN_OK;
  }
  if (n != *num) {
    status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                        "%s: has %d %s variables, %s has %d: members of "
                        "different datasets?",
                        ds->files[j].path, n, what, ds->files[*from].path, *num);
    goto done;
  }
  MXN_ALLOC(tmp, n);
  if (read_names(ds, exoid, t, n, tmp, 1) != MXN_OK) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s variable names",
                        ds->files[j].path, what);
    goto done;
  }
  for (int k = 0; k < n; k++)
    if (strcmp(tmp[k], (*names)[k]) != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                          "%s: %s variable %d is '%s', in %s it is '%s'",
                          ds->files[j].path, what, k + 1, tmp[k],
                          ds->files[*from].path, (*names)[k]);
      goto done;
    }
done:
  free(tmp);
  return status;
}

static int read_member_structure(mxn_dataset_t *ds, int j) {
  mxn_structure_t *s = &ds->s;
  mxn__file_t *f = &ds->files[j];
  int status = MXN_OK, exoid;
  int64_t *ids = NULL;
  char(*names)[MXN_NAME_LEN] = NULL;
  int *truth = NULL;
  double *times = NULL;
  MXN_CHECK(mxn__file_exoid(ds, j, &exoid));

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
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: invalid header (dimension %lld)",
                        f->path, (long long)p.num_dim);
    goto done;
  }
  f->num_nodes = p.num_nodes;
  f->num_elems = p.num_elem;
  if (j == 0) {
    s->num_dim = (int)p.num_dim;
    snprintf(s->title, sizeof s->title, "%s", p.title);
    clean_name(s->title, sizeof s->title);
    s->float_word_size = ex_inquire_int(exoid, EX_INQ_DB_FLOAT_SIZE) == 4 ? 4 : 8;
    char *cn[3] = {s->coord_names[0], s->coord_names[1], s->coord_names[2]};
    for (int d = 0; d < 3; d++) memset(s->coord_names[d], 0, MXN_NAME_LEN);
    if (ex_get_coord_names(exoid, cn) < 0)
      for (int d = 0; d < 3; d++) s->coord_names[d][0] = '\0';
    for (int d = 0; d < 3; d++) clean_name(s->coord_names[d], MXN_NAME_LEN);
    s->num_qa = (int)ex_inquire_int(exoid, EX_INQ_QA);
    s->num_info = (int)ex_inquire_int(exoid, EX_INQ_INFO);
  } else if (p.num_dim != s->num_dim) {
    status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                        "%s: is %lldD but %s is %dD: members of different datasets",
                        f->path, (long long)p.num_dim, ds->files[0].path, s->num_dim);
    goto done;
  }
  s->num_nodes_sum += p.num_nodes;
  s->num_elements_sum += p.num_elem;
  if (p.num_edge_blk > s->num_edge_blocks) s->num_edge_blocks = (int)p.num_edge_blk;
  if (p.num_face_blk > s->num_face_blocks) s->num_face_blocks = (int)p.num_face_blk;
  if (p.num_edge_sets > s->num_edge_sets) s->num_edge_sets = (int)p.num_edge_sets;
  if (p.num_face_sets > s->num_face_sets) s->num_face_sets = (int)p.num_face_sets;
  if (p.num_elem_sets > s->num_elem_sets) s->num_elem_sets = (int)p.num_elem_sets;
  if (ex_int64_status(exoid) & EX_IDS_INT64_DB) s->int64_ids = 1;

  /* Nemesis global counts tie the members of one decomposition together. */
  if (has_nc_dim(exoid, "num_nodes_global")) {
    int64_t nng = 0, neg = 0, nbg = 0, nnsg = 0, nssg = 0;
    if (ex_get_init_global(exoid, &nng, &neg, &nbg, &nnsg, &nssg) >= 0) {
      if (j == 0 || s->num_nodes_global < 0) {
        s->num_nodes_global = nng;
        s->num_elements_global = neg;
      } else if (nng != s->num_nodes_global || neg != s->num_elements_global) {
        status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                            "%s: Nemesis global counts (%lld nodes, %lld elements) "
                            "differ from %s (%lld, %lld): members of different "
                            "datasets",
                            f->path, (long long)nng, (long long)neg,
                            ds->files[0].path, (long long)s->num_nodes_global,
                            (long long)s->num_elements_global);
        goto done;
      }
    }
  }
  if (has_nc_dim(exoid, "num_processors")) {
    int nproc = 0, nproc_file = 0;
    char ftype[2] = "";
    if (ex_get_init_info(exoid, &nproc, &nproc_file, ftype) >= 0 &&
        ds->nfiles > 1 && nproc != ds->nfiles) {
      status = MXN_DS_ERR(ds, MXN_ERR_FILESET,
                          "%s: Nemesis data says the set has %d files, the "
                          "name says %d",
                          f->path, nproc, ds->nfiles);
      goto done;
    }
  }

  /* Element blocks: union over members, checked for agreement. */
  f->nblk = (int)p.num_elem_blk;
  MXN_ALLOC(ids, f->nblk);
  MXN_ALLOC(names, f->nblk);
  MXN_ALLOC(f->blk_of_file, f->nblk);
  if (f->nblk > 0) {
    if (ex_get_ids(exoid, EX_ELEM_BLOCK, ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read element block ids",
                          f->path);
      goto done;
    }
    MXN_CHECK(read_names(ds, exoid, EX_ELEM_BLOCK, f->nblk, names, 0));
  }
  for (int k = 0; k < f->nblk; k++) {
    ex_block blk;
    memset(&blk, 0, sizeof blk);
    blk.id = ids[k];
    blk.type = EX_ELEM_BLOCK;
    if (ex_get_block_param(exoid, &blk) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: block %lld: cannot read its parameters",
                          f->path, (long long)ids[k]);
      goto done;
    }
    if (blk.num_entry < 0 || blk.num_nodes_per_entry < 0 || blk.num_attribute < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: block %lld: negative sizes",
                          f->path, (long long)ids[k]);
      goto done;
    }
    clean_name(blk.topology, sizeof blk.topology);
    if (blk.num_entry > 0 && blk.num_nodes_per_entry == 0 &&
        strncasecmp(blk.topology, "NFACED", 6) != 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: block %lld: %lld elements of type '%s' with 0 nodes each",
                          f->path, (long long)ids[k], (long long)blk.num_entry,
                          blk.topology);
      goto done;
    }
    if (strncasecmp(blk.topology, "NSIDED", 6) == 0 ||
        strncasecmp(blk.topology, "NFACED", 6) == 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_UNSUPPORTED,
                          "%s: block %lld: polyhedral/polygonal (%s) blocks are "
                          "not supported yet",
                          f->path, (long long)ids[k], blk.topology);
      goto done;
    }
    int b = find_block(s, blk.id);
    if (b < 0) {
      MXN_CHECK(grow((void **)&s->blocks, sizeof *s->blocks, s->num_blocks));
      b = s->num_blocks++;
      mxn_block_info_t *bi = &s->blocks[b];
      bi->id = blk.id;
      snprintf(bi->name, sizeof bi->name, "%s", names[k]);
    }
    mxn_block_info_t *bi = &s->blocks[b];
    int empty = blk.num_entry == 0;
    if (!empty) {
      int known = bi->nodes_per_elem > 0 || bi->type[0] != '\0';
      if (known && (bi->nodes_per_elem != blk.num_nodes_per_entry ||
                    strcasecmp(bi->type, blk.topology) != 0 ||
                    bi->num_attr != blk.num_attribute)) {
        status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                            "%s: block %lld is %s with %lld nodes and %lld "
                            "attributes, elsewhere %s with %d and %d: members "
                            "of different datasets?",
                            f->path, (long long)blk.id, blk.topology,
                            (long long)blk.num_nodes_per_entry,
                            (long long)blk.num_attribute, bi->type,
                            bi->nodes_per_elem, bi->num_attr);
        goto done;
      }
      if (!known) {
        snprintf(bi->type, sizeof bi->type, "%s", blk.topology);
        bi->nodes_per_elem = (int)blk.num_nodes_per_entry;
        bi->num_attr = (int)blk.num_attribute;
        if (bi->num_attr > 0) {
          MXN_ALLOC(bi->attr_names, bi->num_attr);
          char **ap = NULL;
          MXN_ALLOC(ap, bi->num_attr);
          for (int a = 0; a < bi->num_attr; a++) ap[a] = bi->attr_names[a];
          if (ex_get_attr_names(exoid, EX_ELEM_BLOCK, blk.id, ap) < 0)
            for (int a = 0; a < bi->num_attr; a++) bi->attr_names[a][0] = '\0';
          for (int a = 0; a < bi->num_attr; a++)
            clean_name(bi->attr_names[a], MXN_NAME_LEN);
          free(ap);
        }
      }
      if (bi->name[0] == '\0') snprintf(bi->name, sizeof bi->name, "%s", names[k]);
    }
    bi->num_elements += blk.num_entry;
    f->blk_of_file[k] = b;
  }
  free(ids);
  ids = NULL;
  free(names);
  names = NULL;

  /* Node sets and side sets. */
  for (int pass = 0; pass < 2; pass++) {
    ex_entity_type t = pass == 0 ? EX_NODE_SET : EX_SIDE_SET;
    int n = (int)(pass == 0 ? p.num_node_sets : p.num_side_sets);
    mxn_set_info_t **sets = pass == 0 ? &s->node_sets : &s->side_sets;
    int *nsets = pass == 0 ? &s->num_node_sets : &s->num_side_sets;
    if (n <= 0) continue;
    MXN_ALLOC(ids, n);
    MXN_ALLOC(names, n);
    if (ex_get_ids(exoid, t, ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read %s set ids", f->path,
                          pass == 0 ? "node" : "side");
      goto done;
    }
    MXN_CHECK(read_names(ds, exoid, t, n, names, 0));
    for (int k = 0; k < n; k++) {
      int64_t cnt = 0, ndf = 0;
      if (ex_get_set_param(exoid, t, ids[k], &cnt, &ndf) < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: %s set %lld: cannot read its size",
                            f->path, pass == 0 ? "node" : "side", (long long)ids[k]);
        goto done;
      }
      int q = find_set(*sets, *nsets, ids[k]);
      if (q < 0) {
        MXN_CHECK(grow((void **)sets, sizeof **sets, *nsets));
        q = (*nsets)++;
        (*sets)[q].id = ids[k];
        snprintf((*sets)[q].name, MXN_NAME_LEN, "%s", names[k]);
      }
      if ((*sets)[q].name[0] == '\0')
        snprintf((*sets)[q].name, MXN_NAME_LEN, "%s", names[k]);
      (*sets)[q].num_entries += cnt;
      if (ndf > 0) (*sets)[q].has_df = 1;
    }
    free(ids);
    ids = NULL;
    free(names);
    names = NULL;
  }

  /* Variables must agree across members. */
  MXN_CHECK(merge_vars(ds, j, exoid, EX_NODAL, &s->num_node_vars, &s->node_var_names, "nodal",
                       p.num_nodes == 0, &ds->vars_from[0]));
  MXN_CHECK(merge_vars(ds, j, exoid, EX_ELEM_BLOCK, &s->num_elem_vars, &s->elem_var_names,
                       "element", p.num_elem == 0, &ds->vars_from[1]));
  MXN_CHECK(merge_vars(ds, j, exoid, EX_GLOBAL, &s->num_global_vars, &s->global_var_names,
                       "global", 0, &ds->vars_from[2]));

  /* Time steps must agree too. */
  int nt = (int)ex_inquire_int(exoid, EX_INQ_TIME);
  if (nt < 0) nt = 0;
  MXN_ALLOC(times, nt);
  if (nt > 0 && ex_get_all_times(exoid, times) < 0) {
    status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read time values", f->path);
    goto done;
  }
  if (j == 0) {
    s->num_times = nt;
    s->times = times;
    times = NULL;
  } else {
    if (nt != s->num_times) {
      status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                          "%s: has %d time steps, %s has %d", f->path, nt,
                          ds->files[0].path, s->num_times);
      goto done;
    }
    for (int k = 0; k < nt; k++)
      if (fabs(times[k] - s->times[k]) > 1e-9 * (fabs(s->times[k]) + 1e-30) &&
          times[k] != s->times[k]) {
        status = MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT,
                            "%s: time step %d is %.17g, in %s it is %.17g",
                            f->path, k + 1, times[k], ds->files[0].path,
                            s->times[k]);
        goto done;
      }
  }

  /* Which element variables this member stores on which of its blocks. */
  if (s->num_elem_vars > 0 && f->nblk > 0) {
    MXN_ALLOC(truth, (int64_t)f->nblk * s->num_elem_vars);
    if (ex_get_truth_table(exoid, EX_ELEM_BLOCK, f->nblk, s->num_elem_vars, truth) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the element variable truth table",
                          f->path);
      goto done;
    }
    f->elem_truth = truth; /* indexed by file block for now; remapped later */
    truth = NULL;
  }

  /* Id maps and nem_spread's record of the original element ids. */
  f->has_node_map = has_nc_var(exoid, "node_num_map");
  f->has_elem_map = has_nc_var(exoid, "elem_num_map");
  if (p.num_elem_maps > 0) {
    int nm = (int)p.num_elem_maps;
    MXN_ALLOC(ids, nm);
    MXN_ALLOC(names, nm);
    if (ex_get_ids(exoid, EX_ELEM_MAP, ids) >= 0 &&
        read_names(ds, exoid, EX_ELEM_MAP, nm, names, 0) == MXN_OK) {
      for (int k = 0; k < nm; k++)
        if (strcmp(names[k], "original_global_id_map") == 0) {
          f->have_orig_map = 1;
          f->orig_map_id = (int)ids[k];
        }
    }
    free(ids);
    ids = NULL;
    free(names);
    names = NULL;
  }
done:
  free(ids);
  free(names);
  free(truth);
  free(times);
  return status;
}

/* Per-member arrays indexed by structure block/set, once the union is known. */
static int index_members(mxn_dataset_t *ds) {
  mxn_structure_t *s = &ds->s;
  int status = MXN_OK;
  int64_t *ids = NULL;
  MXN_ALLOC(s->elem_var_truth, (int64_t)s->num_blocks * s->num_elem_vars);
  int all_orig = ds->nfiles > 0;
  for (int j = 0; j < ds->nfiles; j++) {
    mxn__file_t *f = &ds->files[j];
    int exoid;
    MXN_CHECK(mxn__file_exoid(ds, j, &exoid));
    MXN_ALLOC(f->blk_count, s->num_blocks);
    MXN_ALLOC(f->blk_start, s->num_blocks);
    MXN_ALLOC(f->blk_present, s->num_blocks);
    int *truth = NULL;
    MXN_ALLOC(truth, (int64_t)s->num_blocks * s->num_elem_vars);
    int64_t pos = 0;
    for (int k = 0; k < f->nblk; k++) {
      int b = f->blk_of_file[k];
      ex_block blk;
      memset(&blk, 0, sizeof blk);
      blk.id = s->blocks[b].id;
      blk.type = EX_ELEM_BLOCK;
      if (ex_get_block_param(exoid, &blk) < 0) {
        free(truth);
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: block %lld: cannot read its parameters",
                            f->path, (long long)blk.id);
        goto done;
      }
      f->blk_present[b] = 1;
      f->blk_count[b] = blk.num_entry;
      f->blk_start[b] = pos;
      pos += blk.num_entry;
      for (int v = 0; v < s->num_elem_vars; v++) {
        int t = f->elem_truth ? f->elem_truth[(int64_t)k * s->num_elem_vars + v] : 0;
        truth[(int64_t)b * s->num_elem_vars + v] = t;
        if (t && blk.num_entry > 0) s->elem_var_truth[(int64_t)b * s->num_elem_vars + v] = 1;
      }
    }
    if (pos != f->num_elems) {
      free(truth);
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: blocks hold %lld elements but the header says %lld",
                          f->path, (long long)pos, (long long)f->num_elems);
      goto done;
    }
    free(f->elem_truth);
    f->elem_truth = truth;

    for (int pass = 0; pass < 2; pass++) {
      ex_entity_type t = pass == 0 ? EX_NODE_SET : EX_SIDE_SET;
      int nss = pass == 0 ? s->num_node_sets : s->num_side_sets;
      const mxn_set_info_t *sets = pass == 0 ? s->node_sets : s->side_sets;
      int64_t **cnt = pass == 0 ? &f->ns_count : &f->ss_count;
      int64_t **df = pass == 0 ? &f->ns_df : &f->ss_df;
      MXN_ALLOC(*cnt, nss);
      MXN_ALLOC(*df, nss);
      int nfile = (int)ex_inquire_int(exoid, pass == 0 ? EX_INQ_NODE_SETS : EX_INQ_SIDE_SETS);
      if (nfile <= 0) continue;
      MXN_ALLOC(ids, nfile);
      if (ex_get_ids(exoid, t, ids) < 0) {
        status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read set ids", f->path);
        goto done;
      }
      for (int k = 0; k < nfile; k++) {
        int q = find_set(sets, nss, ids[k]);
        int64_t c = 0, d = 0;
        if (q >= 0 && ex_get_set_param(exoid, t, ids[k], &c, &d) >= 0) {
          (*cnt)[q] = c;
          (*df)[q] = d;
        }
      }
      free(ids);
      ids = NULL;
    }
    if (!f->have_orig_map) all_orig = 0;
    if (ds->nfiles > 1 && f->num_elems > 0 && (!f->has_elem_map || !f->has_node_map)) {
      status = MXN_DS_ERR(ds, MXN_ERR_NOMAP,
                          "%s: member of a %d-file spread set stores no %s, so "
                          "its global ids are unknown (write the set with "
                          "global id maps)",
                          f->path, ds->nfiles,
                          !f->has_elem_map ? "element id map (elem_num_map)"
                                           : "node id map (node_num_map)");
      goto done;
    }
  }
  s->has_original_elem_ids = all_orig;
done:
  free(ids);
  return status;
}

int mxn_dataset_create(mxn_dataset_t **ds) {
  if (!ds) return MXN_ERR_ARG;
  *ds = calloc(1, sizeof **ds);
  if (!*ds) return MXN_ERR_NOMEM;
  (*ds)->s.num_nodes_global = -1;
  (*ds)->s.num_elements_global = -1;
  for (int k = 0; k < 3; k++) (*ds)->vars_from[k] = -1;
  return MXN_OK;
}

int mxn_dataset_open(mxn_dataset_t *ds, const char *path) {
  if (!ds) return MXN_ERR_ARG;
  if (!path || !*path) return MXN_DS_ERR(ds, MXN_ERR_ARG, "no dataset path given");
  if (ds->opened || ds->files)
    return MXN_DS_ERR(ds, MXN_ERR_ARG, "%s: this handle already holds a dataset", path);
  mxn_error_clear(&ds->err);
  /* The core never prints: keep the Exodus library quiet too. */
  ex_opts(EX_DEFAULT);
  int status = discover(ds, path);
  if (status != MXN_OK) {
    if (ds->err.status == MXN_OK) MXN_DS_ERR(ds, status, "%s: %s", path, mxn_strerror(status));
    return status;
  }
  for (int j = 0; j < ds->nfiles; j++) {
    status = read_member_structure(ds, j);
    if (status != MXN_OK) goto fail;
  }
  status = index_members(ds);
  if (status != MXN_OK) goto fail;
  ds->s.num_files = ds->nfiles;
  ds->opened = 1;
  return MXN_OK;
fail:
  if (ds->err.status == MXN_OK)
    MXN_DS_ERR(ds, status, "%s: %s", path, mxn_strerror(status));
  return status;
}

void mxn__file_domain_free(mxn_file_domain_t *d) {
  if (!d) return;
  free(d->node_map);
  free(d->elem_map);
  mxn_idset_free(&d->nodes);
  mxn_idset_free(&d->elems);
  free(d->node_pos);
  free(d->elem_pos);
  free(d->blk_count);
  free(d->blk_start);
  free(d->blk_present);
  free(d->orig_elem_ids);
  free(d);
}

static void free_structure(mxn_structure_t *s) {
  for (int b = 0; b < s->num_blocks; b++) free(s->blocks[b].attr_names);
  free(s->blocks);
  free(s->node_sets);
  free(s->side_sets);
  free(s->node_var_names);
  free(s->elem_var_names);
  free(s->global_var_names);
  free(s->elem_var_truth);
  free(s->times);
  memset(s, 0, sizeof *s);
}

void mxn_dataset_destroy(mxn_dataset_t **pds) {
  if (!pds || !*pds) return;
  mxn_dataset_t *ds = *pds;
  for (int j = 0; j < ds->nfiles; j++) {
    mxn__file_t *f = &ds->files[j];
    if (f->exoid >= 0) ex_close(f->exoid);
    free(f->path);
    free(f->blk_of_file);
    free(f->blk_count);
    free(f->blk_start);
    free(f->blk_present);
    free(f->ns_count);
    free(f->ns_df);
    free(f->ss_count);
    free(f->ss_df);
    free(f->elem_truth);
    mxn__file_domain_free(f->dom);
  }
  free(ds->files);
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

/* ---------- file domains ---------- */

static int read_map(mxn_dataset_t *ds, int j, int exoid, ex_entity_type t,
                    int64_t n, int stored, int64_t **out) {
  int status = MXN_OK;
  MXN_ALLOC(*out, n);
  if (n == 0) return MXN_OK;
  if (!stored) {
    /* A single file without maps numbers its entities 1..n. */
    for (int64_t i = 0; i < n; i++) (*out)[i] = i + 1;
    return MXN_OK;
  }
  if (ex_get_id_map(exoid, t, *out) < 0)
    return MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read the %s id map",
                      ds->files[j].path, t == EX_NODE_MAP ? "node" : "element");
  ds->io.read_calls++;
  ds->io.bytes_read += n * (int64_t)sizeof(int64_t);
done:
  return status;
}

int mxn_dataset_file_domain(mxn_dataset_t *ds, int j, const mxn_file_domain_t **out) {
  if (!ds || !out || !ds->opened || j < 0 || j >= ds->nfiles) return MXN_ERR_ARG;
  mxn__file_t *f = &ds->files[j];
  if (f->dom) {
    *out = f->dom;
    return MXN_OK;
  }
  int status = MXN_OK, exoid;
  mxn_file_domain_t *d = NULL;
  MXN_ALLOC(d, 1);
  MXN_CHECK(mxn__file_exoid(ds, j, &exoid));
  d->num_nodes = f->num_nodes;
  d->num_elements = f->num_elems;
  MXN_CHECK(read_map(ds, j, exoid, EX_NODE_MAP, f->num_nodes, f->has_node_map, &d->node_map));
  MXN_CHECK(read_map(ds, j, exoid, EX_ELEM_MAP, f->num_elems, f->has_elem_map, &d->elem_map));
  MXN_CHECK(mxn_idset_from_array_pos(d->node_map, d->num_nodes, &d->nodes, &d->node_pos));
  MXN_CHECK(mxn_idset_from_array_pos(d->elem_map, d->num_elements, &d->elems, &d->elem_pos));
  /* from_array_pos maps input -> set; invert to set -> file position, and
   * reject repeated ids (a set shorter than the map). */
  for (int pass = 0; pass < 2; pass++) {
    mxn_idset_t *set = pass ? &d->elems : &d->nodes;
    int64_t **pos = pass ? &d->elem_pos : &d->node_pos;
    const int64_t *map = pass ? d->elem_map : d->node_map;
    int64_t n = pass ? d->num_elements : d->num_nodes;
    if (set->n != n) {
      /* Find one repeated id to name it. */
      int64_t dup = 0;
      for (int64_t i = 0, seen = -1; i < n && seen < 0; i++)
        if (set->ids[(*pos)[i]] == map[i] && i > 0) {
          for (int64_t k = 0; k < i; k++)
            if (map[k] == map[i]) {
              dup = map[i];
              seen = i;
              break;
            }
        }
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s id %lld appears more than once in the id map",
                          f->path, pass ? "element" : "node", (long long)dup);
      goto done;
    }
    int64_t *inv = NULL;
    MXN_ALLOC(inv, n);
    for (int64_t i = 0; i < n; i++) inv[(*pos)[i]] = i;
    free(*pos);
    *pos = inv;
  }
  MXN_ALLOC(d->blk_count, ds->s.num_blocks);
  MXN_ALLOC(d->blk_start, ds->s.num_blocks);
  MXN_ALLOC(d->blk_present, ds->s.num_blocks);
  memcpy(d->blk_count, f->blk_count, sizeof(int64_t) * (size_t)ds->s.num_blocks);
  memcpy(d->blk_start, f->blk_start, sizeof(int64_t) * (size_t)ds->s.num_blocks);
  memcpy(d->blk_present, f->blk_present, sizeof(int) * (size_t)ds->s.num_blocks);
  if (f->have_orig_map && f->num_elems > 0) {
    MXN_ALLOC(d->orig_elem_ids, f->num_elems);
    if (ex_get_num_map(exoid, EX_ELEM_MAP, f->orig_map_id, d->orig_elem_ids) < 0) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT, "%s: cannot read original_global_id_map",
                          f->path);
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += f->num_elems * (int64_t)sizeof(int64_t);
  }
  f->dom = d;
  d = NULL;
  *out = f->dom;
done:
  mxn__file_domain_free(d);
  return status;
}
