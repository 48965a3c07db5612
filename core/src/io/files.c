/* Member records as the dataset holds them, and the members' paths: the
 * pages of record pointers (a page made where one of its members is held),
 * a record made and held, and the path of any member made from the set's
 * naming pattern. What a record holds is filled by the merge (merge.c) and
 * rebuilt on first use where it was not kept (records.c); opening and
 * closing is member.c's. */
#include "io/store.h"

#include <stdio.h>

void mxn__path_of_rank(const mxn_dataset_t *ds, long rank, char *out, size_t cap) {
  if (ds->name_width < 0)
    snprintf(out, cap, "%s", ds->name_base);
  else
    snprintf(out, cap, "%s.%d.%0*ld", ds->name_base, ds->set_M, ds->name_width, rank);
}

void mxn__path_make(const mxn_dataset_t *ds, int j, char *out, size_t cap) {
  mxn__path_of_rank(ds, ds->member_rank ? ds->member_rank[j] : j, out, cap);
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
  f->j = j;
  f->rd = &ds->reads;
  if (!(f->path = mxn__path_dup(ds, j))) {
    free(f);
    return NULL;
  }
  return f;
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
    if (f) free(f->path); /* new: neither open nor holding a domain */
    free(f);
    return MXN_ERR_NOMEM;
  }
  return MXN_OK;
}

/* A domain is one block (mxn_dataset_file_domain): its arrays go with it
 * (under ASan the padding between them is poisoned: the allocator's own
 * free accepts that). */
void mxn__file_domain_free(mxn_file_domain_t *d) { free(d); }
