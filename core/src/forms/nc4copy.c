/* Turning a file the writer made into netCDF-4 (HDF5), chunked and
 * optionally compressed.
 *
 * Why a copy: the writer goes through the Exodus API, and Exodus 6.02
 * defines each variable and ends define mode inside one call, so nobody
 * can set a variable's chunking between the two; left alone, netCDF picks
 * chunks that cut connectivity across an element's nodes (500000 x 3 for
 * a hex block) and whole-array chunks of 8 MB for 1M nodes, and Exodus's
 * own compression option misses the element variables of a truth table.
 * So the writer writes netCDF-3 as always and, on commit, this module
 * copies the file variable by variable with the storage below. The copy
 * costs one extra pass over a file the page cache still holds. */
#include "forms/nc4copy.h"

#include "structure/structure.h"

#include <netcdf.h>
#include <stdio.h>
#include <unistd.h>

/* Storage of each variable. Readers cut a member along its entity
 * dimension (a range of nodes, of a block's elements, of a set's entries)
 * and read per-step fields one step at a time, so:
 * - a chunk spans every dimension whole but the longest one (the entity
 *   dimension), so it holds whole entities (all 8 nodes of a hex);
 * - per-step variables (first dimension time_step) get one step per chunk;
 *   those whose step is under SMALL_BYTES (times, globals, small sets)
 *   pack several steps, so a long run is not thousands of tiny chunks;
 * - a chunk holds about CHUNK_BYTES at most (128 Ki doubles or 64-bit
 *   ids, 256 Ki 32-bit ids), the entity dimension cut into equal chunks:
 *   a chunk fits HDF5's default cache of 1 MiB per dataset, so even a
 *   reader that keeps the defaults decompresses each chunk once, and a
 *   partial read decompresses under 1 MiB beyond its range at either end;
 * - fixed-size variables stay contiguous when nothing is compressed (a
 *   range of a contiguous dataset is read directly), and so do those
 *   under SMALL_BYTES (names, block ids), where deflate saves nothing. */
#define CHUNK_BYTES ((size_t)1 << 20)
#define SMALL_BYTES ((size_t)4096)
/* Bytes moved per read/write call of the copy (whole chunk rows). */
#define COPY_BYTES ((size_t)16 << 20)

#define NC_CALL(call, ...)                                     \
  do {                                                         \
    int nc_rc_ = (call);                                       \
    if (nc_rc_ != NC_NOERR) {                                  \
      char what_[640];                                         \
      snprintf(what_, sizeof what_, __VA_ARGS__);              \
      status = mxn_error_set(err, MXN_ERR_IO, "%s: %s", what_, \
                             nc_strerror(nc_rc_));             \
      goto done;                                               \
    }                                                          \
  } while (0)

/* Chunk shape of a variable with `nd` dimensions of lengths `len`
 * (`rec`: the first is the unlimited time dimension). */
static void chunk_shape(int nd, const size_t *len, int rec, size_t tsize, size_t *chunk) {
  int split = -1;
  size_t row = tsize; /* bytes of one step (rec) or of the whole variable */
  for (int d = rec ? 1 : 0; d < nd; d++) {
    chunk[d] = len[d] > 0 ? len[d] : 1;
    row *= chunk[d];
    if (split < 0 || len[d] > len[split]) split = d;
  }
  if (rec) chunk[0] = row < SMALL_BYTES ? SMALL_BYTES / row : 1;
  if (split >= 0 && row > CHUNK_BYTES) {
    size_t pieces = (row + CHUNK_BYTES - 1) / CHUNK_BYTES;
    chunk[split] = (len[split] + pieces - 1) / pieces;
  }
}

/* Copy one variable's values in slabs of whole chunk rows along the first
 * dimension (`rows` entries of it at a time, `nrows` in all). */
static int copy_values(int in, int out, int v, int nd, const size_t *len, size_t nrows,
                       size_t step_rows, size_t tsize, const char *from, const char *name,
                       mxn_error_t *err) {
  int status = MXN_OK;
  char *buf = NULL;
  size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], row = tsize;
  for (int d = 1; d < nd; d++) row *= len[d];
  if (nd == 0) {
    MXN_ALLOC_RAW(buf, tsize);
    NC_CALL(nc_get_var(in, v, buf), "%s: variable %s: cannot read", from, name);
    NC_CALL(nc_put_var(out, v, buf), "%s: variable %s: cannot copy", from, name);
    goto done;
  }
  if (row == 0 || nrows == 0) goto done;
  size_t per = step_rows * (COPY_BYTES / (step_rows * row) > 0 ? COPY_BYTES / (step_rows * row) : 1);
  if (per > nrows) per = nrows;
  MXN_ALLOC_RAW(buf, per * row);
  for (int d = 1; d < nd; d++) {
    start[d] = 0;
    count[d] = len[d];
  }
  for (size_t r = 0; r < nrows; r += per) {
    start[0] = r;
    count[0] = nrows - r < per ? nrows - r : per;
    NC_CALL(nc_get_vara(in, v, start, count, buf), "%s: variable %s: cannot read rows %zu-%zu",
            from, name, r, r + count[0]);
    NC_CALL(nc_put_vara(out, v, start, count, buf), "%s: variable %s: cannot copy rows %zu-%zu",
            from, name, r, r + count[0]);
  }
done:
  free(buf);
  return status;
}

static int copy_atts(int in, int iv, int out, int ov, const char *from, const char *name,
                     mxn_error_t *err) {
  int status = MXN_OK, natts;
  char att[NC_MAX_NAME + 1];
  NC_CALL(nc_inq_varnatts(in, iv, &natts), "%s: %s: cannot count attributes", from, name);
  for (int a = 0; a < natts; a++) {
    NC_CALL(nc_inq_attname(in, iv, a, att), "%s: %s: cannot name attribute %d", from, name, a);
    NC_CALL(nc_copy_att(in, iv, att, out, ov), "%s: %s: cannot copy attribute %s", from, name,
            att);
  }
done:
  return status;
}

int mxn__nc4_copy(const char *from, const char *to, int level, mxn_error_t *err) {
  int status = MXN_OK, in = -1, out = -1, ndims, nvars, unlim, old_fill;
  size_t nrec = 0;
  NC_CALL(nc_open(from, NC_NOWRITE, &in), "%s: cannot open for the netCDF-4 copy", from);
  NC_CALL(nc_create(to, NC_NETCDF4 | NC_CLOBBER, &out), "%s: cannot create", to);
  /* Every value is copied: filling first would write each byte twice. */
  NC_CALL(nc_set_fill(out, NC_NOFILL, &old_fill), "%s: cannot turn off fill values", to);
  NC_CALL(nc_inq(in, &ndims, &nvars, NULL, &unlim), "%s: cannot read the header", from);
  if (unlim >= 0) NC_CALL(nc_inq_dimlen(in, unlim, &nrec), "%s: cannot read the steps", from);
  /* netCDF-3 numbers dimensions and variables 0..n-1 in definition order;
   * defining them in that order here gives the same ids. */
  for (int d = 0; d < ndims; d++) {
    char name[NC_MAX_NAME + 1];
    size_t len;
    int id;
    NC_CALL(nc_inq_dim(in, d, name, &len), "%s: cannot read dimension %d", from, d);
    NC_CALL(nc_def_dim(out, name, d == unlim ? NC_UNLIMITED : len, &id),
            "%s: cannot define dimension %s", to, name);
  }
  MXN_CHECK(copy_atts(in, NC_GLOBAL, out, NC_GLOBAL, from, "global", err));
  for (int v = 0; v < nvars; v++) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int nd, dims[NC_MAX_VAR_DIMS], id;
    size_t len[NC_MAX_VAR_DIMS], chunk[NC_MAX_VAR_DIMS], tsize, bytes;
    NC_CALL(nc_inq_var(in, v, name, &type, &nd, dims, NULL), "%s: cannot read variable %d",
            from, v);
    NC_CALL(nc_inq_type(in, type, NULL, &tsize), "%s: variable %s: unknown type", from, name);
    NC_CALL(nc_def_var(out, name, type, nd, dims, &id), "%s: cannot define variable %s", to,
            name);
    MXN_CHECK(copy_atts(in, v, out, id, from, name, err));
    int rec = nd > 0 && dims[0] == unlim;
    bytes = tsize;
    for (int d = 0; d < nd; d++) {
      NC_CALL(nc_inq_dimlen(in, dims[d], &len[d]), "%s: variable %s: dimension %d", from, name,
              d);
      bytes *= len[d];
    }
    if (!rec && (level == 0 || bytes < SMALL_BYTES)) {
      NC_CALL(nc_def_var_chunking(out, id, NC_CONTIGUOUS, NULL),
              "%s: variable %s: cannot make contiguous", to, name);
      continue;
    }
    chunk_shape(nd, len, rec, tsize, chunk);
    NC_CALL(nc_def_var_chunking(out, id, NC_CHUNKED, chunk), "%s: variable %s: cannot chunk", to,
            name);
    if (level > 0)
      NC_CALL(nc_def_var_deflate(out, id, 1, 1, level), "%s: variable %s: cannot compress", to,
              name);
  }
  NC_CALL(nc_enddef(out), "%s: cannot write the header", to);
  for (int v = 0; v < nvars; v++) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int nd, dims[NC_MAX_VAR_DIMS], storage;
    size_t len[NC_MAX_VAR_DIMS], chunk[NC_MAX_VAR_DIMS], tsize;
    NC_CALL(nc_inq_var(in, v, name, &type, &nd, dims, NULL), "%s: cannot read variable %d",
            from, v);
    NC_CALL(nc_inq_type(in, type, NULL, &tsize), "%s: variable %s: unknown type", from, name);
    for (int d = 0; d < nd; d++)
      NC_CALL(nc_inq_dimlen(in, dims[d], &len[d]), "%s: variable %s: dimension %d", from, name,
              d);
    NC_CALL(nc_inq_var_chunking(out, v, &storage, chunk), "%s: variable %s: chunking", to, name);
    size_t step_rows = storage == NC_CHUNKED && nd > 0 ? chunk[0] : 1;
    MXN_CHECK(copy_values(in, out, v, nd, len, nd > 0 ? len[0] : 1, step_rows, tsize, from, name,
                          err));
  }
  int rc = nc_close(out);
  out = -1;
  NC_CALL(rc, "%s: cannot finish the netCDF-4 file (disk full?)", to);
done:
  if (out >= 0) nc_close(out);
  if (in >= 0) nc_close(in);
  if (status != MXN_OK) unlink(to);
  return status;
}
