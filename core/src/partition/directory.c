/* Distributed directory of file domains by id-hash rendezvous. */
#include "mxn/directory.h"

#include "comm.h"
#include "partition/repeats.h"
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  mxn_gid_t id;
  int64_t pos;
  int32_t file;
  int32_t pad;
} entry_t;

struct mxn_directory {
  MPI_Comm comm;
  int size;
  int64_t n;
  entry_t *e; /* this rank's share, sorted by (id, file, pos) */
};

static int cmp_entry(const void *a, const void *b) {
  const entry_t *x = a, *y = b;
  if (x->id != y->id) return (x->id > y->id) - (x->id < y->id);
  if (x->file != y->file) return (x->file > y->file) - (x->file < y->file);
  return (x->pos > y->pos) - (x->pos < y->pos);
}

int mxn_directory_home(mxn_gid_t id, int size) {
  /* splitmix64 finaliser: consecutive ids spread evenly over ranks. */
  uint64_t z = (uint64_t)id + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (int)(z % (uint64_t)size);
}

/* Send `n` items of `size` bytes to rank dest[k] (comm.c): the received
 * items (malloc'ed) and their count, and the per-source counts (malloc'ed,
 * comm size) when wanted. A rank that cannot allocate its buffers fails
 * the call on every rank. */
static int exchange(MPI_Comm comm, int nranks, const void *items, size_t size, int64_t n,
                    const int *dest, void **recv, int64_t *nrecv, int64_t **rcounts_out) {
  int64_t *rc = rcounts_out ? mxn__malloc(((size_t)nranks + 1) * sizeof *rc) : NULL;
  *recv = NULL;
  *nrecv = 0;
  int status = rcounts_out && !rc ? MXN_ERR_NOMEM : MXN_OK;
  status = mxn__comm_send_items(comm, status, items, size, n, dest, recv, nrecv, rc);
  if (status == MXN_OK && rcounts_out) {
    *rcounts_out = rc;
    rc = NULL;
  }
  free(rc);
  return status;
}

int mxn_directory_create(MPI_Comm comm, int64_t n, const mxn_gid_t *ids, const int32_t *file,
                         const int64_t *pos, mxn_directory_t **out, mxn_error_t *err) {
  int status = MXN_OK;
  mxn_directory_t *d = NULL;
  entry_t *mine = NULL;
  int *dest = NULL;
  void *got = NULL;
  if (!out) return mxn_error_set(err, MXN_ERR_ARG, "directory: no output handle");
  *out = NULL;
  if (n < 0 || (n > 0 && (!ids || !file || !pos)) || n > INT32_MAX)
    status = mxn_error_set(err, MXN_ERR_ARG, "directory: bad local entries (n = %lld)", (long long)n);
  d = mxn__calloc(1, sizeof *d);
  mine = mxn__malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *mine);
  dest = mxn__malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *dest);
  if (status == MXN_OK && (!d || !mine || !dest))
    status = mxn_error_set(err, MXN_ERR_NOMEM, "directory: out of memory for %lld entries", (long long)n);
  /* Collective: every rank duplicates, whatever its own arguments were. */
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) {
    dup = MPI_COMM_NULL;
    if (status == MXN_OK) status = mxn_error_set(err, MXN_ERR_MPI, "directory: MPI_Comm_dup failed");
  }
  if (d)
    d->comm = dup;
  else if (dup != MPI_COMM_NULL)
    MPI_Comm_free(&dup);
  if ((status = mxn_agree(comm, status, err)) != MXN_OK) goto done;
  MPI_Comm_size(d->comm, &d->size);
  for (int64_t k = 0; k < n; k++) {
    mine[k] = (entry_t){ids[k], pos[k], file[k], 0};
    dest[k] = mxn_directory_home(ids[k], d->size);
  }
  status = exchange(d->comm, d->size, mine, sizeof *mine, n, dest, &got, &d->n, NULL);
  if (status != MXN_OK) mxn_error_set(err, status, "directory: exchanging %lld entries failed", (long long)n);
  if ((status = mxn_agree(comm, status, err)) != MXN_OK) goto done;
  d->e = got;
  got = NULL;
  if (mxn__radix_sort(d->e, d->n, sizeof *d->e) != MXN_OK)
    status = mxn_error_set(err, MXN_ERR_NOMEM, "directory: out of memory sorting %lld entries",
                           (long long)d->n);
  else
    mxn__sort_ties(d->e, d->n, sizeof *d->e, cmp_entry);
  if ((status = mxn_agree(comm, status, err)) != MXN_OK) goto done;
  *out = d;
  d = NULL;
done:
  free(mine);
  free(dest);
  free(got);
  mxn_directory_destroy(&d);
  return status;
}

int64_t mxn_directory_local_size(const mxn_directory_t *d) { return d ? d->n : 0; }

int mxn_directory_distinct(mxn_directory_t *d, int64_t *distinct, mxn_gid_t *dup_id,
                           int32_t *dup_file_a, int32_t *dup_file_b, mxn_error_t *err) {
  if (!d) return mxn_error_set(err, MXN_ERR_ARG, "mxn_directory_distinct: no directory");
  int64_t mine = 0;
  /* the smallest duplicated id here, with its first two files */
  int64_t dup[3] = {INT64_MAX, -1, -1};
  for (int64_t k = 0; k < d->n; k++) {
    if (k == 0 || d->e[k].id != d->e[k - 1].id) {
      mine++;
    } else if (d->e[k].file != d->e[k - 1].file && d->e[k].id < dup[0]) {
      dup[0] = d->e[k].id;
      dup[1] = d->e[k - 1].file;
      dup[2] = d->e[k].file;
    }
  }
  int rank = 0;
  MPI_Comm_rank(d->comm, &rank);
  /* the smallest duplicate, with the files of the lowest rank holding it */
  int64_t low[4] = {dup[0], dup[0] != INT64_MAX ? rank : INT_MAX, dup[1], dup[2]};
  int status = mxn__comm_reduce_i64(d->comm, MXN_OK, MXN__SUM, &mine, 1);
  if (status == MXN_OK) status = mxn__comm_lexmin_i64(d->comm, status, low, 4);
  if (status != MXN_OK)
    return mxn_error_set(err, status, "mxn_directory_distinct: counting the distinct ids failed");
  *distinct = mine;
  *dup_id = low[0] == INT64_MAX ? -1 : low[0];
  *dup_file_a = low[0] == INT64_MAX ? -1 : (int32_t)low[2];
  *dup_file_b = low[0] == INT64_MAX ? -1 : (int32_t)low[3];
  return MXN_OK;
}

int mxn__directory_repeats(const mxn_directory_t *d, mxn__copy_t **out, int64_t *n) {
  int64_t k = 0;
  *out = NULL;
  *n = 0;
  for (int pass = 0; pass < 2; pass++) {
    k = 0;
    for (int64_t a = 0, b; d && a < d->n; a = b) {
      int files = 1;
      for (b = a + 1; b < d->n && d->e[b].id == d->e[a].id; b++) files += d->e[b].file != d->e[b - 1].file;
      if (files < 2) continue;
      for (int64_t i = a; i < b; i++, k++)
        if (pass) (*out)[k] = (mxn__copy_t){d->e[i].id, d->e[i].pos, d->e[i].file, 0};
    }
    if (!pass && !(*out = mxn__malloc(((size_t)k + 1) * sizeof **out))) return MXN_ERR_NOMEM;
  }
  *n = k;
  return MXN_OK;
}

void mxn_directory_destroy(mxn_directory_t **pd) {
  if (!pd || !*pd) return;
  mxn_directory_t *d = *pd;
  if (d->comm != MPI_COMM_NULL && d->comm != 0) MPI_Comm_free(&d->comm);
  free(d->e);
  free(d);
  *pd = NULL;
}

/* A reply travels as (query index at the asker, file, pos). */
typedef struct {
  int64_t q, pos;
  int32_t file;
  int32_t pad;
} reply_t;

typedef struct {
  mxn_gid_t id;
  int64_t q;
} ask_t;

static int cmp_reply(const void *a, const void *b) {
  const reply_t *x = a, *y = b;
  if (x->q != y->q) return (x->q > y->q) - (x->q < y->q);
  if (x->file != y->file) return (x->file > y->file) - (x->file < y->file);
  return (x->pos > y->pos) - (x->pos < y->pos);
}

int mxn_directory_query(mxn_directory_t *d, int64_t n, const mxn_gid_t *ids, int64_t **off,
                        int32_t **file, int64_t **pos, mxn_error_t *err) {
  int status = MXN_OK;
  ask_t *asks = NULL, *got = NULL;
  reply_t *rep = NULL, *back = NULL;
  int *dest = NULL, *rdest = NULL;
  int64_t *rcounts = NULL;
  int64_t ngot = 0, nrep = 0, nback = 0;
  if (!d || !off || !file || !pos) return mxn_error_set(err, MXN_ERR_ARG, "directory query: missing argument");
  *off = NULL;
  *file = NULL;
  *pos = NULL;
  if (n < 0 || (n > 0 && !ids) || n > INT32_MAX)
    status = mxn_error_set(err, MXN_ERR_ARG, "directory query: bad ids (n = %lld)", (long long)n);
  asks = mxn__malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *asks);
  dest = mxn__malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *dest);
  if (status == MXN_OK && (!asks || !dest)) status = mxn_error_set(err, MXN_ERR_NOMEM, "directory query: out of memory");
  if ((status = mxn_agree(d->comm, status, err)) != MXN_OK) goto done;
  for (int64_t k = 0; k < n; k++) {
    asks[k] = (ask_t){ids[k], k};
    dest[k] = mxn_directory_home(ids[k], d->size);
  }
  status = exchange(d->comm, d->size, asks, sizeof *asks, n, dest, (void **)&got, &ngot, &rcounts);
  if ((status = mxn_agree(d->comm, status, err)) != MXN_OK) goto done;

  /* Answer every ask with all entries of its id, addressed to the asker. */
  {
    int64_t cap = ngot + 16;
    rep = mxn__malloc((size_t)cap * sizeof *rep);
    rdest = mxn__malloc((size_t)cap * sizeof *rdest);
    if (!rep || !rdest) status = MXN_ERR_NOMEM;
    int src = 0;
    int64_t left = rcounts ? (d->size > 0 ? rcounts[0] : 0) : 0;
    /* An asker's ids usually come ascending (an id set): search each from
     * where the previous one was found, galloping, instead of from 0. */
    int64_t from = 0;
    for (int64_t k = 0; k < ngot && status == MXN_OK; k++) {
      int new_src = 0;
      while (left == 0) {
        left = rcounts[++src];
        new_src = 1;
      }
      left--;
      if (new_src || (k > 0 && got[k].id < got[k - 1].id)) from = 0;
      int64_t lo = from, hi = from, step = 1;
      while (hi < d->n && d->e[hi].id < got[k].id) {
        lo = hi + 1;
        hi = lo + step;
        step *= 2;
      }
      if (hi > d->n) hi = d->n;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (d->e[mid].id < got[k].id) lo = mid + 1; else hi = mid;
      }
      from = lo;
      for (int64_t i = lo; i < d->n && d->e[i].id == got[k].id; i++) {
        if (nrep == cap) {
          cap *= 2;
          reply_t *r2 = mxn__realloc(rep, (size_t)cap * sizeof *rep);
          int *d2 = mxn__realloc(rdest, (size_t)cap * sizeof *rdest);
          if (r2) rep = r2;
          if (d2) rdest = d2;
          if (!r2 || !d2) {
            status = MXN_ERR_NOMEM;
            break;
          }
        }
        rep[nrep] = (reply_t){got[k].q, d->e[i].pos, d->e[i].file, 0};
        rdest[nrep++] = src;
      }
    }
  }
  if (status != MXN_OK) mxn_error_set(err, status, "directory query: out of memory answering");
  if ((status = mxn_agree(d->comm, status, err)) != MXN_OK) goto done;
  status = exchange(d->comm, d->size, rep, sizeof *rep, nrep, rdest, (void **)&back, &nback, NULL);
  if ((status = mxn_agree(d->comm, status, err)) != MXN_OK) goto done;
  if (mxn__radix_sort(back, nback, sizeof *back) != MXN_OK)
    status = mxn_error_set(err, MXN_ERR_NOMEM, "directory query: out of memory");
  else
    mxn__sort_ties(back, nback, sizeof *back, cmp_reply);
  *off = mxn__calloc((size_t)n + 1, sizeof **off);
  *file = mxn__malloc(((size_t)nback + 1) * sizeof **file);
  *pos = mxn__malloc(((size_t)nback + 1) * sizeof **pos);
  if (!*off || !*file || !*pos) status = mxn_error_set(err, MXN_ERR_NOMEM, "directory query: out of memory");
  if ((status = mxn_agree(d->comm, status, err)) != MXN_OK) {
    free(*off);
    free(*file);
    free(*pos);
    *off = NULL;
    *file = NULL;
    *pos = NULL;
    goto done;
  }
  for (int64_t i = 0; i < nback; i++) {
    (*off)[back[i].q + 1]++;
    (*file)[i] = back[i].file;
    (*pos)[i] = back[i].pos;
  }
  for (int64_t k = 0; k < n; k++) (*off)[k + 1] += (*off)[k];
done:
  free(asks);
  free(got);
  free(rep);
  free(back);
  free(dest);
  free(rcounts);
  free(rdest);
  return status;
}
