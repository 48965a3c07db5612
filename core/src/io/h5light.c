/* HDF5 handles on netCDF-4 members (member.c): the member's HDF5 file
 * and only the datasets read, instead of netCDF's open file. netCDF's
 * open loads every dataset of the member, its attribute tables and its
 * dimension scales, and keeps them while the file is open, however
 * little is read from it; the summary
 * asks for a few dozen dimensions, attributes and small variables, and a
 * step reads four or five variables.
 *
 * The header as netCDF-4 stores it: each dimension a dataset of its own
 * name whose extent is its length, marked as a dimension scale (a CLASS
 * attribute); an unlimited dimension's scale keeps the extent it was made
 * with, so time_step is the longer of it and time_whole's records (the
 * node and global values' records where time_whole has none, records
 * never written reading as the fill value, as netCDF reads them);
 * attributes as HDF5 attributes (text as one fixed-length string, numbers
 * as a list); character variables as one-byte strings. A variable named
 * like a dimension it is not the coordinate of is stored as
 * _nc4_non_coord_NAME.
 *
 * A variable's id is MXN__H5_VAR0 plus its place among the root group's
 * links sorted by name, listed by the member's first open and kept by its
 * record for the next ones (mxn__h5_names_t): the same on every open of
 * the file, and no netCDF id (a plan caches ids per member: one used with
 * the other kind fails, it never reads another variable). The HDF5 error
 * stack is silenced around each call and its printing restored after: the
 * core is a guest in the caller's process.
 *
 * Deflated chunks (with or without shuffle) of little-endian numbers are
 * decoded here, not by HDF5's filter pipeline: read as stored, inflated
 * by libdeflate and unshuffled straight into the caller's array
 * (direct_read; core/README.md has the measurements). */
#include "io/h5light.h"
#include "io/exo_names.h"
#include "io/store.h"

#include <hdf5.h>
#ifdef MXN_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variable's dataset and what the reads ask of it each time, found
 * once: its data space (selected anew by each read), rank, extent, chunk
 * sizes (0: not chunked) and whether its chunks are filtered. `direct`:
 * its chunks can be decoded here (direct_read): deflate, after shuffle
 * or alone, of little-endian numbers of `es` bytes, `kind` 'i' (signed
 * integers) or 'f' (IEEE floats); the filters' places in the pipeline
 * (-1: no shuffle) name the bits of a chunk's filter mask. */
typedef struct {
  hid_t d, sp;
  int nd, filtered;
  int rec; /* its first dimension is unlimited: records past its extent read as fill */
  size_t len[MXN__BOX_DIMS], ch[MXN__BOX_DIMS];
  int direct, shuffle_at, deflate_at;
  char kind;
  size_t es;
} var_t;

/* The root group's link names, sorted: a variable's id is its place here. */
struct mxn__h5_names {
  int n;
  char **names; /* into text */
  char *text;
};

struct mxn__h5 {
  hid_t file, dapl, dxpl;
  int nvars;
  char *const *names; /* the member's list (mxn__h5_names_t), not this handle's */
  var_t *var;         /* opened on first use, d = -1 until then */
};

/* direct_read's decompressor and buffers: a chunk as stored, decoded. */
struct mxn__h5_scratch {
  void *dec;
  unsigned char *raw, *chunk;
  size_t raw_cap, chunk_cap;
};

void mxn__h5_scratch_free(mxn__h5_scratch_t **scratch) {
  mxn__h5_scratch_t *w = *scratch;
  if (!w) return;
#ifdef MXN_HAVE_LIBDEFLATE
  if (w->dec) libdeflate_free_decompressor(w->dec);
#endif
  free(w->raw);
  free(w->chunk);
  free(w);
  *scratch = NULL;
}

typedef struct {
  H5E_auto2_t fn;
  void *data;
} quiet_t;

static quiet_t quiet_on(void) {
  quiet_t q = {NULL, NULL};
  H5Eget_auto2(H5E_DEFAULT, &q.fn, &q.data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return q;
}

static void quiet_off(quiet_t q) { H5Eset_auto2(H5E_DEFAULT, q.fn, q.data); }

void mxn__h5_close(mxn__h5_t *h) {
  if (!h) return;
  quiet_t q = quiet_on();
  for (int v = 0; h->var && v < h->nvars; v++) {
    if (h->var[v].sp >= 0) H5Sclose(h->var[v].sp);
    if (h->var[v].d >= 0) H5Dclose(h->var[v].d);
  }
  if (h->dapl >= 0) H5Pclose(h->dapl);
  if (h->dxpl >= 0) H5Pclose(h->dxpl);
  if (h->file >= 0) H5Fclose(h->file);
  quiet_off(q);
  free(h->var);
  free(h);
}

void mxn__h5_names_free(mxn__h5_names_t *nm) {
  if (!nm) return;
  free(nm->names);
  free(nm->text);
  free(nm);
}

/* The names of the root group's links, gathered (text grows: offsets). */
typedef struct {
  char *text;
  size_t n, cap;
  size_t *at;
  int count, acap;
  int nomem;
} links_t;

static herr_t add_link(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  links_t *l = data;
  size_t len = strlen(name) + 1;
  if (l->count == l->acap) {
    int c = l->acap ? 2 * l->acap : 64;
    size_t *a = mxn__realloc(l->at, (size_t)c * sizeof *a);
    if (!a) return (l->nomem = 1), -1;
    l->at = a;
    l->acap = c;
  }
  if (l->n + len > l->cap) {
    size_t c = l->cap ? 2 * l->cap : 4096;
    while (c < l->n + len) c *= 2;
    char *t = mxn__realloc(l->text, c);
    if (!t) return (l->nomem = 1), -1;
    l->text = t;
    l->cap = c;
  }
  memcpy(l->text + l->n, name, len);
  l->at[l->count++] = l->n;
  l->n += len;
  return 0;
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The root group's link names of open file `file`, sorted, into *out. */
static int list_names(hid_t file, mxn__h5_names_t **out) {
  links_t l = {0};
  hsize_t idx = 0;
  quiet_t q = quiet_on();
  int listed = H5Literate(file, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, add_link, &l) >= 0;
  quiet_off(q);
  int status = l.nomem ? MXN_ERR_NOMEM : listed ? MXN_OK : MXN_ERR_IO;
  mxn__h5_names_t *nm = status == MXN_OK ? mxn__calloc(1, sizeof *nm) : NULL;
  if (status == MXN_OK &&
      (!nm || !(nm->names = mxn__malloc(((size_t)l.count + 1) * sizeof *nm->names))))
    status = MXN_ERR_NOMEM;
  if (status == MXN_OK) {
    nm->n = l.count;
    nm->text = l.text;
    l.text = NULL;
    for (int v = 0; v < nm->n; v++) nm->names[v] = nm->text + l.at[v];
    qsort(nm->names, (size_t)nm->n, sizeof *nm->names, cmp_name);
    *out = nm;
    nm = NULL;
  }
  mxn__h5_names_free(nm);
  free(l.at);
  free(l.text);
  return status;
}

int mxn__h5_open(const char *path, mxn__h5_names_t **names, mxn__h5_t **out) {
  *out = NULL;
  mxn__h5_t *h = mxn__calloc(1, sizeof *h);
  if (!h) return MXN_ERR_NOMEM;
  h->file = h->dapl = h->dxpl = -1;
  quiet_t q = quiet_on();
  /* No chunk cache: reads of compressed chunks keep their box (member.c). */
  if ((h->dapl = H5Pcreate(H5P_DATASET_ACCESS)) >= 0) H5Pset_chunk_cache(h->dapl, 0, 0, 1.0);
  h->dxpl = H5Pcreate(H5P_DATASET_XFER);
  h->file = h->dapl >= 0 && h->dxpl >= 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  quiet_off(q);
  int status = h->file >= 0 ? MXN_OK : MXN_ERR_IO;
  if (status == MXN_OK && !*names) status = list_names(h->file, names);
  if (status == MXN_OK) {
    h->nvars = (*names)->n;
    h->names = (*names)->names;
    if (!(h->var = mxn__malloc(((size_t)h->nvars + 1) * sizeof *h->var))) status = MXN_ERR_NOMEM;
  }
  for (int v = 0; status == MXN_OK && v < h->nvars; v++) h->var[v].d = h->var[v].sp = -1;
  if (status != MXN_OK) {
    mxn__h5_close(h);
    return status;
  }
  *out = h;
  return MXN_OK;
}

static int find(const mxn__h5_t *h, const char *name) {
  int lo = 0, hi = h->nvars - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, c = strcmp(h->names[mid], name);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

int mxn__h5_each_name(const mxn__h5_t *h, const char *prefix,
                      int (*fn)(const char *name, void *data), void *data) {
  size_t plen = strlen(prefix);
  int lo = 0, hi = h->nvars; /* the first name not below prefix */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (strcmp(h->names[mid], prefix) < 0) lo = mid + 1;
    else hi = mid;
  }
  for (int v = lo; v < h->nvars && strncmp(h->names[v], prefix, plen) == 0; v++) {
    int rc = fn(h->names[v], data);
    if (rc) return rc;
  }
  return 0;
}

int mxn__h5_var(const mxn__h5_t *h, const char *name) {
  int v = find(h, name);
  if (v < 0) {
    /* netCDF's name for the dataset of a variable named like a dimension
     * it is not the coordinate of */
    char alt[64 + NC_MAX_NAME];
    snprintf(alt, sizeof alt, "_nc4_non_coord_%s", name);
    v = find(h, alt);
  }
  return v < 0 ? -1 : MXN__H5_VAR0 + v;
}

/* Whether the chunks of dataset d (creation list pl) can be decoded by
 * direct_read, noting in x what it needs: the filters deflate, or shuffle
 * then deflate, and numbers as this host stores them. Anything else
 * (Fletcher-32, szip, big-endian or unsigned values, strings) is read
 * through HDF5's own pipeline. */
static int direct_ok(hid_t d, hid_t pl, var_t *x) {
#if defined(MXN_HAVE_LIBDEFLATE) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  int nf = H5Pget_nfilters(pl);
  x->shuffle_at = x->deflate_at = -1;
  for (int i = 0; i < nf; i++) {
    unsigned flags, cd[8];
    size_t ncd = 8;
    H5Z_filter_t id = H5Pget_filter2(pl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
    if (id == H5Z_FILTER_SHUFFLE && x->shuffle_at < 0 && x->deflate_at < 0) x->shuffle_at = i;
    else if (id == H5Z_FILTER_DEFLATE && x->deflate_at < 0) x->deflate_at = i;
    else return 0;
  }
  if (x->deflate_at < 0 || x->deflate_at > 31) return 0;
  hid_t t = H5Dget_type(d);
  if (t < 0) return 0;
  H5T_class_t c = H5Tget_class(t);
  x->es = H5Tget_size(t);
  x->kind = 0;
  if (c == H5T_INTEGER && (x->es == 4 || x->es == 8) && H5Tget_order(t) == H5T_ORDER_LE &&
      H5Tget_sign(t) == H5T_SGN_2)
    x->kind = 'i';
  else if (c == H5T_FLOAT && ((x->es == 8 && H5Tequal(t, H5T_IEEE_F64LE) > 0) ||
                              (x->es == 4 && H5Tequal(t, H5T_IEEE_F32LE) > 0)))
    x->kind = 'f';
  H5Tclose(t);
  return x->kind != 0;
#else
  (void)d;
  (void)pl;
  (void)x;
  return 0;
#endif
}

/* Variable v, its dataset opened on first use; NULL if it cannot be. */
static var_t *var(mxn__h5_t *h, int v) {
  v -= MXN__H5_VAR0;
  if (v < 0 || v >= h->nvars) return NULL;
  var_t *x = &h->var[v];
  if (x->d >= 0) return x;
  quiet_t q = quiet_on();
  hid_t d = H5Dopen2(h->file, h->names[v], h->dapl);
  hid_t sp = d >= 0 ? H5Dget_space(d) : -1, pl = d >= 0 ? H5Dget_create_plist(d) : -1;
  hsize_t dims[MXN__BOX_DIMS], maxd[MXN__BOX_DIMS], ch[MXN__BOX_DIMS];
  int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1, ok = 0;
  if (pl >= 0 && nd >= 0 && nd <= MXN__BOX_DIMS && H5Sget_simple_extent_dims(sp, dims, maxd) >= 0) {
    int chunked = H5Pget_layout(pl) == H5D_CHUNKED && H5Pget_chunk(pl, nd, ch) == nd;
    for (int k = 0; k < nd; k++) {
      x->len[k] = (size_t)dims[k];
      x->ch[k] = chunked ? (size_t)ch[k] : 0;
    }
    x->nd = nd;
    x->rec = nd >= 1 && maxd[0] == H5S_UNLIMITED;
    x->filtered = chunked && H5Pget_nfilters(pl) > 0;
    x->direct = x->filtered && nd >= 1 && direct_ok(d, pl, x);
    ok = 1;
  }
  if (pl >= 0) H5Pclose(pl);
  if (ok) {
    x->d = d;
    x->sp = sp;
  } else {
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
  }
  quiet_off(q);
  return ok ? x : NULL;
}

int mxn__h5_shape(mxn__h5_t *h, int v, size_t *len, size_t *chunk, int *filtered) {
  const var_t *x = var(h, v);
  if (!x) return -1;
  for (int k = 0; k < x->nd; k++) {
    if (len) len[k] = x->len[k];
    if (chunk) chunk[k] = x->ch[k];
  }
  if (filtered) *filtered = x->filtered;
  return x->nd;
}

int mxn__h5_direct(mxn__h5_t *h, int v) {
  const var_t *x = var(h, v);
  return x && x->direct;
}

/* The memory type of a read as `as` from dataset d ('c': netCDF's
 * characters, one-byte strings, read as stored), or -1 (to be closed
 * when it is not a predefined type: *own). */
static hid_t mem_type(hid_t d, char as, int *own) {
  *own = 0;
  if (as == 'd') return H5T_NATIVE_DOUBLE;
  if (as == 'l') return H5T_NATIVE_LLONG;
  if (as != 'c') return -1;
  hid_t t = H5Dget_type(d);
  if (t < 0) return -1;
  if (H5Tget_class(t) != H5T_STRING || H5Tget_size(t) != 1 || H5Tis_variable_str(t) != 0) {
    H5Tclose(t);
    return -1;
  }
  *own = 1;
  return t;
}

#ifdef MXN_HAVE_LIBDEFLATE
/* `run` 4-byte values from p, their bytes in planes n apart (the
 * shuffle's layout), as bit patterns into u. Written to be vectorized
 * (CMakeLists.txt builds this file with the vectorizer on). */
static void gather4(const unsigned char *restrict p, size_t n, size_t run,
                    uint32_t *restrict u) {
  const unsigned char *p0 = p, *p1 = p + n, *p2 = p + 2 * n, *p3 = p + 3 * n;
  for (size_t i = 0; i < run; i++)
    u[i] = (uint32_t)p0[i] | (uint32_t)p1[i] << 8 | (uint32_t)p2[i] << 16 | (uint32_t)p3[i] << 24;
}

/* `run` elements from element e of a decoded chunk of n elements (its
 * bytes in planes where `planes`: shuffled) into out[o...] as 'd'
 * (double) or 'l' (long long), converted as HDF5 converts them. Values
 * are unshuffled in pieces of PIECE through a small buffer. */
#define PIECE 1024
static void put_run(const var_t *x, const unsigned char *src, size_t n, int planes, size_t e,
                    size_t run, void *out, size_t o, char as) {
  double *od = (double *)out + o;
  long long *ol = (long long *)out + o;
  uint32_t lo[PIECE], hi[PIECE];
  uint64_t u[PIECE];
  for (size_t at = 0; at < run; at += PIECE) {
    size_t m = run - at < PIECE ? run - at : PIECE;
    const void *v; /* the piece's values as stored, unshuffled */
    if (!planes) {
      v = src + (e + at) * x->es;
    } else if (x->es == 4) {
      gather4(src + e + at, n, m, lo);
      v = lo;
    } else { /* the low four bytes' planes, then the high four's */
      gather4(src + e + at, n, m, lo);
      gather4(src + 4 * n + e + at, n, m, hi);
      for (size_t i = 0; i < m; i++) u[i] = (uint64_t)lo[i] | (uint64_t)hi[i] << 32;
      v = u;
    }
    if (x->kind == 'i' && x->es == 4) {
      const int32_t *s = v;
      if (as == 'l') for (size_t i = 0; i < m; i++) ol[at + i] = s[i];
      else for (size_t i = 0; i < m; i++) od[at + i] = s[i];
    } else if (x->kind == 'i') {
      const int64_t *s = v;
      if (as == 'l') memcpy(ol + at, s, m * 8);
      else for (size_t i = 0; i < m; i++) od[at + i] = (double)s[i];
    } else if (x->es == 8) {
      memcpy(od + at, v, m * 8);
    } else {
      const float *s = v;
      for (size_t i = 0; i < m; i++) od[at + i] = s[i];
    }
  }
}
#undef PIECE

static int grow(unsigned char **buf, size_t *cap, size_t need) {
  if (need <= *cap) return 1;
  unsigned char *b = mxn__realloc(*buf, need);
  if (!b) return 0;
  *buf = b;
  *cap = need;
  return 1;
}

/* The box st/ct of variable x (x->direct) read chunk by chunk: each chunk
 * as stored (H5Dread_chunk), inflated by libdeflate and its values
 * gathered from the shuffle's byte planes straight into out, converted.
 * HDF5's own pipeline inflates with zlib, unshuffles into a second
 * buffer, converts, then scatters: three passes over the values where
 * this makes one, and libdeflate inflates faster than zlib (figures in
 * testing/benchmarks/BENCHMARKS.md). Returns 0 when read, 1
 * where HDF5 should read it instead (a chunk never written, a stored
 * size that does not fit, a value kind not converted here), -1 on an
 * error reading. Each chunk is decoded once per call: the boxes member.c
 * asks for are whole chunks. */
static int direct_read(mxn__h5_scratch_t *w, const var_t *x, const hsize_t *st,
                       const hsize_t *ct, void *out, char as) {
  if ((as != 'd' && as != 'l') || (x->kind == 'f' && as != 'd')) return 1;
  int nd = x->nd;
  size_t n = 1;
  for (int d = 0; d < nd; d++) n *= x->ch[d];
  size_t bytes = n * x->es;
  if (!w->dec && !(w->dec = libdeflate_alloc_decompressor())) return 1;
  if (!grow(&w->chunk, &w->chunk_cap, bytes)) return 1;
  hsize_t c0[MXN__BOX_DIMS], ci[MXN__BOX_DIMS], c1[MXN__BOX_DIMS];
  size_t ostr[MXN__BOX_DIMS], cstr[MXN__BOX_DIMS];
  for (int d = nd - 1; d >= 0; d--) {
    c0[d] = ci[d] = st[d] / x->ch[d];
    c1[d] = (st[d] + ct[d] - 1) / x->ch[d];
    ostr[d] = d == nd - 1 ? 1 : ostr[d + 1] * (size_t)ct[d + 1];
    cstr[d] = d == nd - 1 ? 1 : cstr[d + 1] * x->ch[d + 1];
  }
  for (;;) {
    hsize_t off[MXN__BOX_DIMS], stored = 0;
    for (int d = 0; d < nd; d++) off[d] = ci[d] * x->ch[d];
    if (H5Dget_chunk_storage_size(x->d, off, &stored) < 0 || stored == 0) return 1;
    if (!grow(&w->raw, &w->raw_cap, (size_t)stored)) return 1;
    uint32_t mask = 0;
    if (H5Dread_chunk(x->d, H5P_DEFAULT, off, &mask, w->raw) < 0) return -1;
    const unsigned char *src = w->chunk;
    if (mask & (1u << x->deflate_at)) { /* stored as it was (the filter was optional) */
      if (stored != bytes) return 1;
      src = w->raw;
    } else {
      size_t got = 0;
      if (libdeflate_zlib_decompress(w->dec, w->raw, (size_t)stored, w->chunk, bytes, &got) !=
              LIBDEFLATE_SUCCESS ||
          got != bytes)
        return 1; /* HDF5 then says what is wrong */
    }
    int planes = x->shuffle_at >= 0 && !(mask & (1u << x->shuffle_at)) && x->es > 1;
    /* the chunk's part of the box, row by row along the last dimension */
    hsize_t lo[MXN__BOX_DIMS], hi[MXN__BOX_DIMS], r[MXN__BOX_DIMS];
    for (int d = 0; d < nd; d++) {
      lo[d] = off[d] > st[d] ? off[d] : st[d];
      hi[d] = off[d] + x->ch[d] < st[d] + ct[d] ? off[d] + x->ch[d] : st[d] + ct[d];
      r[d] = lo[d];
    }
    size_t run = (size_t)(hi[nd - 1] - lo[nd - 1]);
    for (;;) {
      size_t e = 0, o = 0;
      for (int d = 0; d < nd; d++) {
        e += (size_t)(r[d] - off[d]) * cstr[d];
        o += (size_t)(r[d] - st[d]) * ostr[d];
      }
      put_run(x, src, n, planes, e, run, out, o, as);
      int d = nd - 2;
      while (d >= 0 && ++r[d] == hi[d]) r[d] = lo[d], d--;
      if (d < 0) break;
    }
    int d = nd - 1;
    while (d >= 0 && ++ci[d] > c1[d]) ci[d] = c0[d], d--;
    if (d < 0) break;
  }
  return 0;
}
#endif

/* The part of a read inside the dataset's extent (records past it are
 * mxn__h5_get's). */
static int get_in_extent(var_t *x, mxn__h5_t *h, mxn__h5_scratch_t **scratch, const hsize_t *st,
                         const hsize_t *ct, const hsize_t *sd, void *out, char as) {
  hsize_t total = 1;
  for (int k = 0; k < x->nd; k++) total *= ct[k];
  if (total == 0) return 0;
  quiet_t q = quiet_on();
  int rc = -1, own = 0;
#ifdef MXN_HAVE_LIBDEFLATE
  int unit = 1;
  for (int k = 0; k < x->nd; k++) unit = unit && sd[k] == 1;
  if (x->direct && unit) {
    mxn__h5_scratch_t *mine = NULL, **w = scratch ? scratch : &mine;
    if (!*w) *w = mxn__calloc(1, sizeof **w);
    rc = *w ? direct_read(*w, x, st, ct, out, as) : 1;
    mxn__h5_scratch_free(&mine);
    if (rc != 1) {
      quiet_off(q);
      return rc;
    }
  }
  rc = -1;
#endif
  hid_t mt = mem_type(x->d, as, &own);
  /* the selection's own shape: HDF5 maps a memory space of another shape
   * to the chunks element by element (a scalar: the whole of it) */
  hid_t ms = x->nd > 0 ? H5Screate_simple(x->nd, ct, NULL) : H5Screate(H5S_SCALAR);
  /* A read that converts its values (4-byte integers to 8) goes through a
   * buffer HDF5 allocates and clears for each read, 1 MB unless told: the
   * read's own size where smaller (the summaries make many small reads,
   * each of which would clear the whole buffer). */
  hid_t xfer = H5P_DEFAULT;
  if (total * sizeof(long long) < ((size_t)1 << 20) &&
      H5Pset_buffer(h->dxpl, total * sizeof(long long), NULL, NULL) >= 0)
    xfer = h->dxpl;
  if (mt >= 0 && ms >= 0 &&
      (x->nd == 0 || H5Sselect_hyperslab(x->sp, H5S_SELECT_SET, st, sd, ct, NULL) >= 0) &&
      H5Dread(x->d, mt, ms, x->nd > 0 ? x->sp : H5S_ALL, xfer, out) >= 0)
    rc = 0;
  if (ms >= 0) H5Sclose(ms);
  if (own) H5Tclose(mt);
  quiet_off(q);
  return rc;
}

/* n values of dataset x's fill value (netCDF's, which netCDF-4 stores as
 * the dataset's HDF5 fill value) into out as `as`. */
static int put_fill(var_t *x, void *out, hsize_t n, char as) {
  double fd = 0;
  long long fl = 0;
  quiet_t q = quiet_on();
  hid_t pl = H5Dget_create_plist(x->d);
  int ok = pl >= 0 && (as == 'c' || H5Pget_fill_value(pl, as == 'd' ? H5T_NATIVE_DOUBLE
                                                                     : H5T_NATIVE_LLONG,
                                                       as == 'd' ? (void *)&fd : (void *)&fl) >= 0);
  if (pl >= 0) H5Pclose(pl);
  quiet_off(q);
  if (!ok) return -1;
  for (hsize_t i = 0; i < n; i++) {
    if (as == 'd') ((double *)out)[i] = fd;
    else if (as == 'l') ((long long *)out)[i] = fl;
    else ((char *)out)[i] = 0; /* NC_FILL_CHAR */
  }
  return 0;
}

int mxn__h5_get(mxn__h5_t *h, mxn__h5_scratch_t **scratch, int v, const size_t *start,
                const size_t *count, const ptrdiff_t *stride, void *out, char as) {
  var_t *x = var(h, v);
  if (!x || x->nd < 0 || (as != 'd' && as != 'l' && as != 'c')) return -1;
  hsize_t st[MXN__BOX_DIMS], ct[MXN__BOX_DIMS], sd[MXN__BOX_DIMS], rest = 0, row = 1;
  for (int k = 0; k < x->nd; k++) {
    st[k] = start[k];
    ct[k] = count[k];
    sd[k] = stride ? (hsize_t)stride[k] : 1;
    if (k > 0) row *= ct[k];
  }
  /* A record variable's records up to the unlimited dimension's length
   * that were never written (netCDF-4 extends only the variables written:
   * meshio writes node values and never time_whole) read as its fill
   * value, as netCDF reads them. Records are the outermost index, so the
   * written ones are the read's first. */
  if (x->rec && ct[0] > 0 && sd[0] > 0 && st[0] + (ct[0] - 1) * sd[0] >= x->len[0]) {
    hsize_t in = st[0] < x->len[0] ? (x->len[0] - st[0] + sd[0] - 1) / sd[0] : 0;
    rest = ct[0] - in;
    ct[0] = in;
  }
  if (get_in_extent(x, h, scratch, st, ct, sd, out, as) != 0) return -1;
  if (!rest) return 0;
  size_t es = as == 'd' ? sizeof(double) : as == 'l' ? sizeof(long long) : 1;
  return put_fill(x, (char *)out + ct[0] * row * es, rest * row, as);
}

void mxn__h5_release(void) {
  quiet_t q = quiet_on();
  H5garbage_collect();
  quiet_off(q);
}

void mxn__h5_forget(mxn__h5_t *h) {
  quiet_t q = quiet_on();
  for (int v = 0; v < h->nvars; v++) {
    if (h->var[v].sp >= 0) H5Sclose(h->var[v].sp);
    if (h->var[v].d >= 0) H5Dclose(h->var[v].d);
    h->var[v].d = h->var[v].sp = -1;
  }
  quiet_off(q);
}

/* ---------- the header as netCDF-4 stores it ---------- */

int mxn__h5_dim(mxn__h5_t *h, const char *name, int64_t *len) {
  *len = 0;
  int v = find(h, name);
  if (v < 0) return 0;
  quiet_t q = quiet_on();
  hid_t d = H5Dopen2(h->file, name, h->dapl), sp = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t n = 0, max = 0;
  int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
           H5Sget_simple_extent_dims(sp, &n, &max) == 1 && H5Aexists(d, "CLASS") > 0;
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  quiet_off(q);
  if (!ok) return 0;
  *len = (int64_t)n;
  /* An unlimited dimension's scale keeps the extent it was made with (0):
   * netCDF gives the longest of its variables. Exodus's one is time_step,
   * whose steps are the records of time_whole (written with each step's
   * values, ex_put_time). Where time_whole holds none, a writer that
   * does not go through Exodus may still have written values (meshio
   * writes node values and never the times): their records are the steps
   * netCDF counts, the times its fill value (mxn__h5_get). Only then are
   * the value variables' datasets opened, the nodal ones and the global
   * ones (element values alone are not looked for). */
  if (max != H5S_UNLIMITED || strcmp(name, MXN__EX_TIME_STEP) != 0) return 1;
  static const char *const recs[] = {MXN__EX_TIME_WHOLE, MXN__EX_VALS_NOD_VAR1,
                                     MXN__EX_VALS_NOD_VAR, MXN__EX_VALS_GLO_VAR};
  for (int i = 0; i < 4; i++) {
    size_t ext[MXN__BOX_DIMS];
    int tv = mxn__h5_var(h, recs[i]);
    if (tv >= 0 && mxn__h5_shape(h, tv, ext, NULL, NULL) >= 1 && (int64_t)ext[0] > *len)
      *len = (int64_t)ext[0];
    if (i == 0 && *len > 0) break; /* the times written: Exodus's case */
  }
  return 1;
}

/* The object attributes of variable v are on (-1: the root group, netCDF's
 * global ones), or -1. */
static hid_t att_owner(mxn__h5_t *h, int v) {
  if (v == -1) return h->file;
  var_t *x = var(h, v);
  return x ? x->d : -1;
}

/* netCDF's length of attribute a: characters of a text one (a fixed
 * string), values of another; -1 for a kind netCDF-4 does not write for
 * Exodus (variable-length strings, compound types). *text: whether it is
 * text. */
static int64_t att_len(hid_t a, int *text) {
  hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
  int64_t n = -1;
  if (t >= 0 && sp >= 0) {
    H5T_class_t c = H5Tget_class(t);
    H5S_class_t sc = H5Sget_simple_extent_type(sp);
    hssize_t np = sc == H5S_NULL ? 0 : H5Sget_simple_extent_npoints(sp);
    *text = c == H5T_STRING;
    if (np >= 0 && c == H5T_STRING && H5Tis_variable_str(t) == 0)
      n = (int64_t)np * (int64_t)H5Tget_size(t);
    else if (np >= 0 && (c == H5T_INTEGER || c == H5T_FLOAT))
      n = (int64_t)np;
  }
  if (sp >= 0) H5Sclose(sp);
  if (t >= 0) H5Tclose(t);
  return n;
}

/* Attribute `name` of variable v (-1: a global one) opened, or -1 where
 * there is none (the error stack quiet). */
static hid_t att_open(mxn__h5_t *h, int v, const char *name) {
  hid_t o = att_owner(h, v);
  return o >= 0 && H5Aexists(o, name) > 0 ? H5Aopen(o, name, H5P_DEFAULT) : -1;
}

int mxn__h5_att_len(mxn__h5_t *h, int v, const char *name, size_t *len) {
  quiet_t q = quiet_on();
  hid_t a = att_open(h, v, name);
  int text = 0;
  int64_t n = a >= 0 ? att_len(a, &text) : -1;
  if (a >= 0) H5Aclose(a);
  quiet_off(q);
  if (n < 0) return -1;
  *len = (size_t)n;
  return 0;
}

int mxn__h5_att_get(mxn__h5_t *h, int v, const char *name, void *out, char as) {
  quiet_t q = quiet_on();
  hid_t a = att_open(h, v, name);
  int text = 0, rc = -1;
  int64_t n = a >= 0 ? att_len(a, &text) : -1;
  if (n == 0) {
    rc = 0;
  } else if (n > 0 && text == (as == 'c')) {
    hid_t mt = as == 'd' ? H5T_NATIVE_DOUBLE : as == 'l' ? H5T_NATIVE_LLONG : H5Aget_type(a);
    if (mt >= 0 && H5Aread(a, mt, out) >= 0) rc = 0;
    if (as == 'c' && mt >= 0) H5Tclose(mt);
  }
  if (a >= 0) H5Aclose(a);
  quiet_off(q);
  return rc;
}

typedef struct {
  int (*fn)(const char *name, uint64_t len, void *data);
  void *data;
  int stop;
} each_t;

static herr_t each_att(hid_t o, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  each_t *e = data;
  hid_t a = H5Aopen(o, name, H5P_DEFAULT);
  int text = 0;
  int64_t n = a >= 0 ? att_len(a, &text) : -1;
  if (a >= 0) H5Aclose(a);
  if (n >= 0 && e->fn(name, (uint64_t)n, e->data)) return (e->stop = 1), 1;
  return 0;
}

int mxn__h5_global_atts(mxn__h5_t *h, int (*fn)(const char *name, uint64_t len, void *data),
                        void *data) {
  each_t e = {fn, data, 0};
  hsize_t idx = 0;
  quiet_t q = quiet_on();
  H5Aiterate2(h->file, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, each_att, &e);
  quiet_off(q);
  return e.stop;
}
