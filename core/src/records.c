/* Member records: made where a member is used, and rebuilt from the
 * member's header where a collective open did not keep them (the rank did
 * not summarise the member): a rank keeps the records of its own members
 * and of those its phases touch, not one for each of the M members. Also
 * members' paths, made from the set's naming pattern. */
#include "internal.h"

#include <stdio.h>

void mxn__path_make(const mxn_dataset_t *ds, int j, char *out, size_t cap) {
  if (ds->name_width < 0)
    snprintf(out, cap, "%s", ds->name_base);
  else
    snprintf(out, cap, "%s.%d.%0*d", ds->name_base, ds->nfiles, ds->name_width, j);
}

char *mxn__path_dup(const mxn_dataset_t *ds, int j) {
  size_t cap = strlen(ds->name_base) + 48;
  char *p = mxn__malloc(cap);
  if (p) mxn__path_make(ds, j, p, cap);
  return p;
}

const char *mxn__path(mxn_dataset_t *ds, int j) {
  if (mxn__file_held(ds, j) && mxn__file_held(ds, j)->path) return mxn__file_held(ds, j)->path;
  if (j == 0 && ds->path0) return ds->path0;
  char *p = mxn__path_dup(ds, j);
  if (!p) return "(member path: out of memory)";
  int at = ds->path_next++ % 4;
  free(ds->path_ring[at]);
  ds->path_ring[at] = p;
  return p;
}

mxn__file_t *mxn__record_new(mxn_dataset_t *ds, int j) {
  mxn__file_t *f = mxn__calloc(1, sizeof *f);
  if (!f) return NULL;
  f->ncid = -1;
  f->rd = &ds->reads;
  if (!(f->path = mxn__path_dup(ds, j))) {
    free(f);
    return NULL;
  }
  return f;
}

void mxn__record_free(mxn_dataset_t *ds, mxn__file_t *f) {
  if (!f) return;
  mxn__member_close(ds, f);
  free(f->path);
  /* their blocks', sets' and maps' arrays are in the arena */
  for (int k = 0; k < MXN__NBK; k++)
    for (int i = 0; i < f->kb[k].nspan; i++) free(f->kb[k].span[i].ent_off);
  free(f->time_ok);
  mxn__file_domain_free(f->dom);
  free(f);
}

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
  ds->decl_prev_j = -1; /* no "as member j-1": there is no j-1 here */
  /* Its header is metadata the open read already, not payload: the reads'
   * counters stay as they were (the member's open is counted). */
  const mxn_io_counters_t was = ds->io;
  /* The summary reads the header through netCDF: a netCDF-4 member goes
   * to its light handle after it, as in the collective open (member.c). */
  const int light = ds->light;
  ds->light = 0;
  int status = mxn__member_summary(ds, j, 0, &buf, &len);
  ds->light = light;
  if (status == MXN_OK) mxn__member_summarised(ds, j);
  const int64_t opened = ds->io.files_opened;
  ds->io = was;
  ds->io.files_opened = opened;
  if (status == MXN_OK) {
    ds->settled = 1;
    status = mxn__member_merge(ds, j, buf, len);
    if (status == MXN_OK) status = mxn__member_index(ds, j);
    ds->settled = 0;
  }
  free(buf);
  if (status != MXN_OK) {
    if (ds->err.status == MXN_OK) MXN_DS_ERR(ds, status, "%s: %s", f->path, mxn_strerror(status));
    mxn__file_set(ds, j, NULL);
    mxn__record_free(ds, f);
  }
  return status;
}

int mxn__file_set(mxn_dataset_t *ds, int j, mxn__file_t *f) {
  mxn__file_t ***pg = &ds->fpages[j >> MXN__FPAGE_BITS];
  if (!*pg && !f) return MXN_OK;
  if (!*pg && !(*pg = mxn__calloc(MXN__FPAGE, sizeof **pg))) return MXN_ERR_NOMEM;
  (*pg)[j & (MXN__FPAGE - 1)] = f;
  return MXN_OK;
}

int mxn__record_hold(mxn_dataset_t *ds, int j) {
  mxn__file_t *f = mxn__record_new(ds, j);
  if (!f || mxn__file_set(ds, j, f) != MXN_OK) {
    mxn__record_free(ds, f);
    return MXN_ERR_NOMEM;
  }
  return MXN_OK;
}

mxn__file_t *mxn__file(mxn_dataset_t *ds, int j) {
  if (j < 0 || j >= ds->nfiles) return NULL;
  if (!mxn__file_held(ds, j) && rebuild(ds, j) != MXN_OK) return NULL;
  return mxn__file_held(ds, j);
}
