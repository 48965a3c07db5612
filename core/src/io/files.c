/* Member records as the dataset holds them, and the members' paths: the
 * pages of record pointers (a page made where one of its members is held),
 * a record made and held, and the path of any member made from the set's
 * naming pattern. What a record holds is filled by the merge (merge.c) and
 * rebuilt on first use where it was not kept (records.c); opening and
 * closing is member.c's. */
#include "io/h5light.h"
#include "io/store.h"

#include <stdio.h>
#include <sys/resource.h>

/* ---------- the store as a whole ---------- */

void mxn__store_init(mxn_dataset_t *ds) {
  /* Keep at most half the descriptors the process may open (netCDF and
   * the caller need the rest), between 16 and MXN__MAX_OPEN_FILES. */
  struct rlimit rl;
  int64_t cap = MXN__MAX_OPEN_FILES;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (int64_t)rl.rlim_cur / 2 < cap)
    cap = (int64_t)rl.rlim_cur / 2;
  ds->st.max_open = cap < 16 ? 16 : (int)cap;
  ds->st.max_open_h5 = MXN__MAX_OPEN_H5;
}

void mxn__store_free(mxn_dataset_t *ds) {
  mxn__store_t *st = &ds->st;
  for (int j = 0; st->fpages && j < ds->nfiles; j++) mxn__record_free(ds, mxn__file_held(ds, j));
  for (int p = 0; st->fpages && p < mxn__fpage_count(ds); p++) free(st->fpages[p]);
  free(st->fpages);
  free(st->name_base);
  free(st->member_rank);
  free(st->path0);
  for (int i = 0; i < 4; i++) free(st->path_ring[i]);
  mxn__h5_scratch_free(&st->reads.h5s);
  mxn__reads_drop(&st->reads);
  mxn__arena_free(ds);
  memset(st, 0, sizeof *st);
}

size_t mxn__store_bytes(const mxn_dataset_t *ds) {
  const mxn__store_t *st = &ds->st;
  size_t b = mxn__arena_bytes(ds);
  for (int p = 0; st->fpages && p < mxn__fpage_count(ds); p++)
    b += sizeof *st->fpages + (st->fpages[p] ? MXN__FPAGE * sizeof **st->fpages : 0);
  if (st->name_base) b += strlen(st->name_base) + 1;
  if (st->member_rank) b += (size_t)ds->nfiles * sizeof *st->member_rank;
  if (st->path0) b += strlen(st->path0) + 1;
  for (int j = 0; st->fpages && j < ds->nfiles; j++)
    if (mxn__file_held(ds, j)) b += sizeof *mxn__file_held(ds, j) + strlen(mxn__file_held(ds, j)->path) + 1;
  return b;
}

int mxn__store_set_m(const mxn_dataset_t *ds) { return ds->st.set_M; }
int mxn__store_ranks_named(const mxn_dataset_t *ds) { return ds->st.member_rank != NULL; }
void mxn__store_attach(mxn_dataset_t *ds, mxn__file_t *f) { f->rd = &ds->st.reads; }
void mxn__store_keep_reads(mxn_dataset_t *ds, int on) { mxn__reads_keep(&ds->st.reads, on); }
void mxn__store_drop_reads(mxn_dataset_t *ds) { mxn__reads_drop(&ds->st.reads); }
int mxn__store_keeping(const mxn_dataset_t *ds) { return ds->st.reads.keeping; }

/* ---------- paths ---------- */

void mxn__path_of_rank(const mxn_dataset_t *ds, long rank, char *out, size_t cap) {
  if (ds->st.name_width < 0)
    snprintf(out, cap, "%s", ds->st.name_base);
  else
    snprintf(out, cap, "%s.%d.%0*ld", ds->st.name_base, ds->st.set_M, ds->st.name_width, rank);
}

void mxn__path_make(const mxn_dataset_t *ds, int j, char *out, size_t cap) {
  mxn__path_of_rank(ds, ds->st.member_rank ? ds->st.member_rank[j] : j, out, cap);
}

char *mxn__path_dup(const mxn_dataset_t *ds, int j) {
  size_t cap = strlen(ds->st.name_base) + 48;
  char *p = mxn__malloc(cap);
  if (p) mxn__path_make(ds, j, p, cap);
  return p;
}

const char *mxn__path(mxn_dataset_t *ds, int j) {
  if (mxn__file_held(ds, j) && mxn__file_held(ds, j)->path) return mxn__file_held(ds, j)->path;
  if (j == 0 && ds->st.path0) return ds->st.path0;
  char *p = mxn__path_dup(ds, j);
  if (!p) return "(member path: out of memory)";
  int at = ds->st.path_next++ % 4;
  free(ds->st.path_ring[at]);
  ds->st.path_ring[at] = p;
  return p;
}

mxn__file_t *mxn__record_new(mxn_dataset_t *ds, int j) {
  mxn__file_t *f = mxn__calloc(1, sizeof *f);
  if (!f) return NULL;
  f->ncid = -1;
  f->j = j;
  f->rd = &ds->st.reads;
  if (!(f->path = mxn__path_dup(ds, j))) {
    free(f);
    return NULL;
  }
  return f;
}

int mxn__file_set(mxn_dataset_t *ds, int j, mxn__file_t *f) {
  mxn__file_t ***pg = &ds->st.fpages[j >> MXN__FPAGE_BITS];
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
