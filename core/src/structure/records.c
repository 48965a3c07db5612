/* Member records on first use: rebuilt from the member's header where a
 * collective open did not keep them (the rank did not summarise the
 * member): a rank keeps the records of its own members and of those its
 * phases touch, not one for each of the M members. Also what a record
 * reads on first use (a poly block's per-entry offsets) and the open of a
 * member by number, its record made first. Storage and paths: files.c. */
#include "structure/structure.h"
#include "structure/merge_state.h"

#include <stdio.h>

/* Member j's record made again from its header: summarised alone (its
 * declarations in full), merged into the settled structure (looked up,
 * nothing added or counted) and indexed. Its header passed the checks of
 * a first open on the rank that summarised it when the dataset was opened. */
static int rebuild(mxn_dataset_t *ds, int j) {
  char *buf = NULL;
  size_t len = 0;
  mxn__file_t *f = mxn__record_new(ds, j);
  if (!f) return MXN_DS_ERR(ds, MXN_ERR_NOMEM, "%s: out of memory", mxn__path(ds, j));
  f->nc_checked = 1;
  if (mxn__file_set(ds, j, f) != MXN_OK) {
    mxn__record_free(ds, f);
    return MXN_DS_ERR(ds, MXN_ERR_NOMEM, "%s: out of memory", mxn__path(ds, j));
  }
  mxn_error_clear(&ds->err); /* what fails below says so itself */
  ds->mg->decl_prev_j = -1; /* no "as member j-1": there is no j-1 here */
  /* Its header is metadata the open read already, not payload: the reads'
   * counters stay as they were (the member's open is counted). */
  const mxn_io_counters_t was = ds->io;
  int status = mxn__member_summary(ds, j, 0, &buf, &len);
  const int64_t opened = ds->io.files_opened;
  ds->io = was;
  ds->io.files_opened = opened;
  if (status == MXN_OK) {
    ds->mg->settled = 1;
    status = mxn__member_merge(ds, j, buf, len);
    if (status == MXN_OK) status = mxn__member_index(ds, j);
    ds->mg->settled = 0;
  }
  free(buf);
  if (status != MXN_OK) {
    if (ds->err.status == MXN_OK) MXN_DS_ERR(ds, status, "%s: %s", f->path, mxn_strerror(status));
    mxn__file_set(ds, j, NULL);
    mxn__record_free(ds, f);
  }
  return status;
}

mxn__file_t *mxn__file(mxn_dataset_t *ds, int j) {
  if (j < 0 || j >= ds->nfiles) return NULL;
  if (!mxn__file_held(ds, j) && rebuild(ds, j) != MXN_OK) return NULL;
  return mxn__file_held(ds, j);
}

/* The per-entry counts of a poly block are read once per member, with
 * netCDF (Exodus 6.02 gives them as 32-bit ints only) and prefix-summed:
 * partial reads of the connectivity go by these offsets, never by
 * ex_get_partial_conn, whose start/count for NSIDED/NFACED blocks are
 * positions in the flat reference list, not entries. */
int mxn__poly_offsets(mxn_dataset_t *ds, int j, int k, int b, const int64_t **off) {
  mxn__file_t *f = mxn__file(ds, j);
  if (!f) return ds->err.status;
  mxn__blocks_t *kb = &f->kb[k];
  int nb, status = MXN_OK, q = -1, varid;
  const mxn_block_info_t *sb = mxn__sblocks(&ds->s, k, &nb);
  int64_t *o = NULL;
  static const int64_t none[1] = {0}; /* a block without entries here */
  mxn__span_t *span = mxn__span_of(kb, b);
  *off = none;
  if (!span) return MXN_OK;
  if (span->ent_off) {
    *off = span->ent_off;
    return MXN_OK;
  }
  q = span->q;
  int64_t n = span->count;
  MXN_ALLOC(o, n + 1);
  if (q >= 0 && n > 0) {
    char name[40];
    mxn__name_d(name, sizeof name, mxn__ex_blk_epecnt[k], q + 1);
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
    if (o[n] != span->conn) {
      status = MXN_DS_ERR(ds, MXN_ERR_FORMAT,
                          "%s: %s block %lld (%s): per-entry counts sum to %lld but the block "
                          "holds %lld references",
                          f->path, mxn__blk_what[k], (long long)sb[b].id, sb[b].type,
                          (long long)o[n], (long long)span->conn);
      goto done;
    }
  }
  span->ent_off = o;
  *off = o;
  o = NULL;
done:
  free(o);
  return status;
}

mxn__file_t *mxn__file_open(mxn_dataset_t *ds, int j, int *status) {
  if (!mxn__file(ds, j)) {
    *status = ds->err.status != MXN_OK ? ds->err.status : MXN_ERR_ARG;
    return NULL;
  }
  return mxn__member_open(ds, j, status);
}
