/* A bounds check of a netCDF classic / 64-bit offset / CDF5 header before
 * netCDF parses it (private to the core). */
#ifndef MXN_NC3CHECK_H
#define MXN_NC3CHECK_H

#include <stddef.h>
#include <stdint.h>

/**
 * Walk the header of the netCDF-3 file `path` (`size` bytes) and check that
 * every count and length it declares fits in the file: names, dimensions,
 * attributes and their values, variables and their dimension ids, types.
 * netCDF 4.9.0 trusts these counts: a damaged header made nc_open allocate
 * gigabytes or crash (found by testing/fuzz/fuzz_dataset). Data offsets
 * are not checked here (a truncated file has its own message).
 * \param [out] magic  the file's first four bytes (zeros where it is shorter),
 *                    so the caller can name the format without reading again
 * \param [out] why  on failure: what is wrong, e.g. "variable 3: 70000 dimensions"
 * The walk also checks the attributes Exodus 6.02 reads into fixed buffers
 * (the numeric global ones hold one value, the title at most 81
 * characters, element and entity types at most 33).
 * \return 3 when the file is netCDF-3 and its header is sound, Exodus
 *         attributes included; 0 when it is not netCDF-3 (HDF5, other:
 *         netCDF decides); 1 when the netCDF header is damaged; 2 when it is
 *         sound but an Exodus attribute is not (why says which); -1 if it
 *         cannot be read (why: the system's reason, e.g. "Permission
 *         denied").
 *         Local.
 */
int mxn__nc3_header_check(const char *path, int64_t size, char magic[4], char *why,
                          size_t whylen);

/**
 * Exodus 6.02 reads some attributes whole into fixed buffers: the numeric
 * global ones into scalars (ex_open, ex_inquire_int), the title into 81
 * bytes, element and entity types into 33 (NUL included). A damaged file
 * with longer ones made Exodus overwrite its stack ("stack smashing
 * detected" in ex_inquire_int, found by fuzz_dataset). The one rule for
 * both open paths: the netCDF-3 header walk and, for other formats, a
 * netCDF open (dataset.c).
 * \param var  the variable the attribute belongs to, NULL for a global one
 * \param len  the attribute's length (values, or characters of a text)
 * \return 1 and why when Exodus could not hold it, else 0. Local.
 */
int mxn__exodus_att_check(const char *var, const char *att, uint64_t len, char *why,
                          size_t whylen);


/* ---------- direct reads of netCDF-3 members ----------
 * The same walk can keep what it reads as a table, and the member is then
 * read with pread and a byte swap: no netCDF or Exodus handle, no records
 * held per open member. Offsets follow the classic format specification:
 * a fixed-size variable's values lie at its begin in row-major order; a
 * record variable's values of record r at begin + r * recsize. */

typedef struct {
  uint32_t name;  /* offset of its NUL-terminated name in the arena */
  uint64_t len;   /* 0 for the record dimension */
} mxn__nc3_dim_t;

typedef struct {
  uint32_t name, val; /* arena offsets: name, raw (big-endian) values */
  int var;            /* the variable it belongs to, -1 for a global one */
  int type;           /* netCDF type number (NC_CHAR = 2, NC_INT = 4, ...) */
  uint64_t n;         /* values */
} mxn__nc3_att_t;

typedef struct {
  uint32_t name, dim0; /* dimension ids are dimids[dim0 .. dim0 + nd - 1] */
  int type, nd;
  int rec;             /* its first dimension is the record dimension */
  int att0, natt;      /* its attributes: atts[att0 .. att0 + natt - 1] */
  uint64_t begin;      /* file offset of its first value */
  uint64_t inner;      /* values per record (record variables) or in all */
} mxn__nc3_var_t;

typedef struct mxn__nc3 {
  int fd, wide, rec_dim; /* wide: CDF5; rec_dim: -1 without one */
  uint64_t numrecs, recsize;
  int64_t data_bytes;    /* the bytes of data the header declares (fixed-size
                            variables and every record; saturating) */
  int ndims, natts, nvars, nids;
  int dims_cap, atts_cap, vars_cap, ids_cap;
  mxn__nc3_dim_t *dims;
  mxn__nc3_att_t *atts;
  mxn__nc3_var_t *vars;
  int *dimids;
  char *arena;
  size_t arena_n, arena_cap;
  int *hash;      /* names of variables and dimensions, open addressing */
  uint32_t hmask;
  char *block;    /* once finished: the arrays, arena and hash above, in one
                     block (NULL while walking, and under AddressSanitizer) */
  /* The file's first bytes as the walk read them (the header and, in
   * the same reads, the small variables netCDF places right after it:
   * ids, status flags, names): values there are copied, not read again. */
  unsigned char *head;
  uint64_t head_n;
  /* While a member is summarized (mxn__nc3_window), small reads beyond
   * the head go through two windows of MXN__NC3_WIN bytes each: the
   * names, tables and first time values Exodus writes side by side. A
   * window starts a quarter of its size before the read that filled it
   * (the summary reads names in an order that steps back a little), and
   * the one used less recently is refilled. */
  unsigned char *win;
  uint64_t win_at[2], win_n[2];
  int win_next;
} mxn__nc3_t;

#define MXN__NC3_WIN 1024

/**
 * mxn__nc3_header_check() that also keeps the table: with h != NULL and a
 * sound header (return 3) *h is the member, its descriptor open; NULL
 * where memory for the table ran out or the header describes something
 * the direct reads do not take (more dimensions than 8, sizes beyond 64
 * bits, a streaming record count): read such a member through netCDF.
 */
int mxn__nc3_open(const char *path, int64_t size, char magic[4], char *why, size_t whylen,
                  mxn__nc3_t **h);
/* A file opened for reading (close-on-exec), the open retried when a
 * signal interrupts it: its descriptor, or -1 with errno set. */
int mxn__open_read(const char *path);
/* mxn__nc3_open() of a descriptor the caller opened for reading: it is
 * the table's where *h is set, and closed on every other return. */
int mxn__nc3_open_fd(int fd, int64_t size, char magic[4], char *why, size_t whylen,
                     mxn__nc3_t **h);
/* Sizes, record size, data bytes and name index after the walk
 * (nc3file.c); 0 if the member can be read directly. */
int mxn__nc3_finish(mxn__nc3_t *h);
/* Small reads (up to a quarter of the window) through a window of their
 * own (on = 1), or as asked (on = 0: the window and the head freed, the
 * summary that used them being done). A summary's dozen reads of a few
 * bytes each become about half as many; extraction reads as asked, so
 * its byte counts are what it read. 0, or -1 without memory (the reads
 * then go as asked). */
int mxn__nc3_window(mxn__nc3_t *h, int on);
/* Free the head (the file's first bytes the walk read): after a member's
 * summary a load serves a few reads a rank from it, and 256 open members
 * held 2 MB of heads a rank (1M hex in 1024 members, 4 ranks). Reads
 * then go to the file. */
void mxn__nc3_drop_head(mxn__nc3_t *h);
/* Close the descriptor and free the table; accepts NULL. */
void mxn__nc3_close(mxn__nc3_t *h);

static inline const char *mxn__nc3_name(const mxn__nc3_t *h, uint32_t at) {
  return h->arena + at;
}
/* Variable `name`'s id, or -1. */
int mxn__nc3_var(const mxn__nc3_t *h, const char *name);
/* 1 and *len (the record count for the record dimension) if dimension
 * `name` exists, else 0. */
int mxn__nc3_dim(const mxn__nc3_t *h, const char *name, int64_t *len);
/* Length of dimension d of variable v (the record count for the record
 * dimension). */
uint64_t mxn__nc3_var_dim(const mxn__nc3_t *h, int v, int d);
/* Attribute `name` of variable v (-1: global), or NULL. */
const mxn__nc3_att_t *mxn__nc3_att(const mxn__nc3_t *h, int v, const char *name);
/* Its first value as a double; 0 if it has none or is text. */
int mxn__nc3_att_double(const mxn__nc3_t *h, const mxn__nc3_att_t *a, double *x);

/**
 * Read the values of variable v at start/count (stride: NULL for 1) as
 * netCDF's nc_get_vars_double / _longlong / _text would: as = 'd', 'l' or
 * 'c'. Runs contiguous in the file are one pread each.
 * \return 0; -1 for coordinates outside the variable or text asked of
 *         numbers (or the other way round); -2 when the file cannot be
 *         read there (short or failed read); -3 when a value does not fit
 *         the type asked for (netCDF's NC_ERANGE; the others are written).
 */
int mxn__nc3_get(const mxn__nc3_t *h, int v, const size_t *start, const size_t *count,
                 const ptrdiff_t *stride, void *out, char as);

/* Most bytes between two variables mxn__nc3_get_each reads in one call. */
#define MXN__NC3_GAP 4096

/**
 * Values first..first+n-1 of each of the nv (<= 3) one-dimensional,
 * fixed-size variables v[] of one numeric type, into out[k], as
 * mxn__nc3_get would read them one by one, in a single system call
 * (preadv) when the variables lie in the file in that order less than
 * MXN__NC3_GAP bytes apart: a node's coordinates, stored one variable per
 * axis, are three reads otherwise.
 * \return 1 done; 0 not so placed (nothing read: read them one by one);
 *         -2 when the file cannot be read there; -3 as mxn__nc3_get.
 */
int mxn__nc3_get_each(const mxn__nc3_t *h, int nv, const int *v, uint64_t first, uint64_t n,
                      void *const *out, char as);

/**
 * A variable or dimension name numbered q: fmt with its first "%d"
 * replaced by q's decimal digits, every other character as it is, into
 * out (cap > 0 bytes, always terminated, cut short like snprintf): what
 * snprintf gives for the one-"%d" formats the core names things by.
 * Names of blocks, sets and maps are made this way dozens of times a
 * member, where snprintf's own parsing cost more than the lookup the
 * name was for.
 */
void mxn__name_d(char *out, size_t cap, const char *fmt, long long q);

#endif /* MXN_NC3CHECK_H */
