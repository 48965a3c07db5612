/* The core's communication layer (comm.h): the agreement on a status that
 * keeps ranks from waiting for one that left, and the one all-to-all of
 * bytes every exchange goes through. MPI counts and displacements are
 * int; byte counts here are 64-bit, and an exchange whose per-peer counts
 * or offsets pass what an int (or the round limit) holds goes in rounds,
 * each peer's bytes described by a derived datatype with a 64-bit offset. */
#include "comm.h"

#include "internal.h"
#include "mxn/directory.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Set on a rank that learned from mxn__worst that another rank failed,
 * while it did not itself: the next agreement lets a rank that failed
 * first-hand tell the story ("rank 1: out of memory ..."), not the lowest
 * rank that only heard of it. Cleared by every agreement. */
static _Thread_local int heard_of_failure;

/* The most bytes one rank sends one peer in one round (tests lower it). */
static int64_t round_limit = INT_MAX;
static _Thread_local int last_rounds;

void mxn__comm_set_round_limit(int64_t bytes) { round_limit = bytes > 0 && bytes < INT_MAX ? bytes : INT_MAX; }

int mxn__comm_last_rounds(void) { return last_rounds; }

int mxn_agree(MPI_Comm comm, int status, mxn_error_t *err) {
  int size, rank;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return mxn_error_set(err, MXN_ERR_MPI, "MPI communicator unusable");
  int worst = status;
  if (MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return mxn_error_set(err, MXN_ERR_MPI, "MPI_Allreduce failed while agreeing on a status");
  int heard = heard_of_failure;
  heard_of_failure = 0;
  if (worst == MXN_OK) return MXN_OK;
  /* The lowest rank that failed with the worst status tells its story;
   * one that failed first-hand before one that only heard of it. */
  int teller = status != worst ? 2 * size : heard ? size + rank : rank, first = 2 * size;
  MPI_Allreduce(&teller, &first, 1, MPI_INT, MPI_MIN, comm);
  first %= size;
  char msg[MXN_ERRMSG_LEN];
  memset(msg, 0, sizeof msg);
  if (rank == first) {
    if (err && strncmp(err->msg, "rank ", 5) == 0)
      memcpy(msg, err->msg, sizeof msg); /* already agreed once */
    else if (err && err->msg[0])
      snprintf(msg, sizeof msg, "rank %d: %.1000s", rank, err->msg);
    else
      snprintf(msg, sizeof msg, "rank %d: %s", rank, mxn_strerror(worst));
  }
  MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, comm);
  if (err) {
    memcpy(err->msg, msg, sizeof msg);
    err->status = worst;
  }
  return worst;
}

int mxn__agree_or_local(MPI_Comm comm, int status, mxn_error_t *err) {
  return comm == MPI_COMM_NULL ? status : mxn_agree(comm, status, err);
}

int mxn__worst(MPI_Comm comm, int status) {
  int worst = status;
  if (MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return MXN_ERR_MPI;
  if (status == MXN_OK && worst != MXN_OK) heard_of_failure = 1;
  return worst;
}

int mxn__all_ok(MPI_Comm comm, int ok) { return mxn__worst(comm, ok ? MXN_OK : MXN_ERR_NOMEM) == MXN_OK; }

/* What this rank's side of an exchange needs: need[0] the rounds its
 * largest per-peer count takes, need[1] 1 when some count or offset does
 * not fit an int. The exchange goes by the maximum over the ranks. */
static void local_need(int size, const int64_t *scount, const int64_t *sdisp,
                       const int64_t *rcount, const int64_t *rdisp, int64_t need[2]) {
  int64_t peer = 0, end = 0;
  for (int r = 0; r < size; r++) {
    if (scount[r] > peer) peer = scount[r];
    if (rcount[r] > peer) peer = rcount[r];
    if (sdisp[r] + scount[r] > end) end = sdisp[r] + scount[r];
    if (rdisp[r] + rcount[r] > end) end = rdisp[r] + rcount[r];
  }
  need[0] = (peer + round_limit - 1) / round_limit;
  need[1] = peer > round_limit || end > INT_MAX;
}

/* One peer's piece of round k (of pieces of `lim` bytes) as a datatype:
 * *n 1 and *t an hindexed type at the piece's 64-bit offset, or *n 0 when
 * nothing of this peer's bytes is left for round k. */
static int round_type(int64_t count, int64_t disp, int64_t k, int64_t lim, int *n,
                      MPI_Datatype *t) {
  int64_t from = k * lim, len = count - from;
  *n = 0;
  *t = MPI_BYTE;
  if (len <= 0) return MPI_SUCCESS;
  if (len > lim) len = lim;
  int blen = (int)len;
  MPI_Aint at = (MPI_Aint)(disp + from);
  int rc = MPI_Type_create_hindexed(1, &blen, &at, MPI_BYTE, t);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(t);
  if (rc != MPI_SUCCESS) {
    *t = MPI_BYTE;
    return rc;
  }
  *n = 1;
  return MPI_SUCCESS;
}

/* Scratch of one exchange: allocated before the reduction that agrees on
 * the rounds, so a rank short of it fails there with every other. */
typedef struct {
  int *ic;          /* 4 size: the plain call's counts and offsets; the
                       rounds' counts (2 size) and zero offsets (size) */
  MPI_Datatype *ty; /* 2 size: the rounds' types, send then receive */
} scratch_t;

static int scratch_get(int size, scratch_t *w) {
  w->ic = mxn__calloc(4 * (size_t)size, sizeof *w->ic);
  w->ty = mxn__malloc(2 * (size_t)size * sizeof *w->ty);
  return w->ic && w->ty ? MXN_OK : MXN_ERR_NOMEM;
}

static void scratch_free(scratch_t *w) {
  free(w->ic);
  free(w->ty);
}

/* Agree on a status (each rank's own) and on the rounds, in one
 * reduction: the status negated under MPI_MAX. Returns the worst status;
 * all[1..2] the maximum need (local_need) over the ranks. */
static int agree_rounds(MPI_Comm comm, int status, const int64_t need[2], int64_t all[3]) {
  int64_t mine[3] = {-(int64_t)status, need[0], need[1]};
  if (MPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS) return MXN_ERR_MPI;
  int worst = (int)-all[0];
  if (status == MXN_OK && worst != MXN_OK) heard_of_failure = 1;
  return worst;
}

/* The exchange, once every rank knows the rounds and whether one plain
 * MPI_Alltoallv does (big == 0: every count and offset fits an int and
 * no per-peer count passes the round limit). */
static int run(MPI_Comm comm, int size, scratch_t *w, const void *sbuf, const int64_t *scount,
               const int64_t *sdisp, void *rbuf, const int64_t *rcount, const int64_t *rdisp,
               int64_t rounds, int big) {
  int *ic = w->ic;
  if (!big) {
    for (int r = 0; r < size; r++) {
      ic[r] = (int)scount[r];
      ic[size + r] = (int)sdisp[r];
      ic[2 * size + r] = (int)rcount[r];
      ic[3 * size + r] = (int)rdisp[r];
    }
    last_rounds = 1;
    return MPI_Alltoallv((void *)sbuf, ic, ic + size, MPI_BYTE, rbuf, ic + 2 * size,
                         ic + 3 * size, MPI_BYTE, comm) == MPI_SUCCESS
               ? MXN_OK
               : MXN_ERR_MPI;
  }
  /* Rounds: in round k each peer's bytes [k lim, (k+1) lim), through
   * MPI_Alltoallw with one hindexed type per peer (its offset 64-bit,
   * its MPI displacement 0). */
  int status = MXN_OK;
  int *sn = ic, *rn = ic + size, *zero = ic + 2 * size;
  MPI_Datatype *ty = w->ty;
  memset(zero, 0, (size_t)size * sizeof *zero);
  last_rounds = (int)rounds;
  for (int64_t k = 0; k < rounds && status == MXN_OK; k++) {
    for (int r = 0; r < 2 * size; r++) ty[r] = MPI_BYTE;
    for (int r = 0; r < size; r++)
      if (round_type(scount[r], sdisp[r], k, round_limit, &sn[r], &ty[r]) != MPI_SUCCESS ||
          round_type(rcount[r], rdisp[r], k, round_limit, &rn[r], &ty[size + r]) != MPI_SUCCESS)
        status = MXN_ERR_MPI;
    if (status == MXN_OK &&
        MPI_Alltoallw((void *)sbuf, sn, zero, ty, rbuf, rn, zero, ty + size, comm) != MPI_SUCCESS)
      status = MXN_ERR_MPI;
    for (int r = 0; r < 2 * size; r++)
      if (ty[r] != MPI_BYTE) MPI_Type_free(&ty[r]);
  }
  return status;
}

int mxn__comm_alltoallv(MPI_Comm comm, int status, const void *sbuf, const int64_t *scount,
                        const int64_t *sdisp, void *rbuf, const int64_t *rcount,
                        const int64_t *rdisp) {
  int size;
  MPI_Comm_size(comm, &size);
  scratch_t w;
  int64_t need[2] = {0, 0}, all[3];
  if (status == MXN_OK) status = scratch_get(size, &w);
  else memset(&w, 0, sizeof w);
  if (status == MXN_OK) local_need(size, scount, sdisp, rcount, rdisp, need);
  if ((status = agree_rounds(comm, status, need, all)) == MXN_OK)
    status = run(comm, size, &w, sbuf, scount, sdisp, rbuf, rcount, rdisp, all[1], (int)all[2]);
  scratch_free(&w);
  return status;
}

int mxn__comm_exchange(MPI_Comm comm, int status, const void *sbuf, const int64_t *scount,
                       void **rbuf, int64_t *rcount) {
  int size;
  MPI_Comm_size(comm, &size);
  int64_t *sd = NULL, *rd = NULL;
  scratch_t w;
  memset(&w, 0, sizeof w);
  *rbuf = NULL;
  if (status == MXN_OK) {
    sd = mxn__calloc((size_t)size + 1, sizeof *sd);
    rd = mxn__calloc((size_t)size + 1, sizeof *rd);
    if (!sd || !rd || scratch_get(size, &w) != MXN_OK) status = MXN_ERR_NOMEM;
  }
  if ((status = mxn__worst(comm, status)) != MXN_OK) goto done;
  if (MPI_Alltoall((void *)scount, 1, MPI_INT64_T, rcount, 1, MPI_INT64_T, comm) != MPI_SUCCESS) {
    status = MXN_ERR_MPI;
    goto done;
  }
  for (int r = 0; r < size; r++) {
    sd[r + 1] = sd[r] + scount[r];
    rd[r + 1] = rd[r] + rcount[r];
  }
  *rbuf = mxn__malloc((size_t)rd[size] + 1);
  /* one reduction agrees on the receive buffers and on the rounds */
  int64_t need[2], all[3];
  local_need(size, scount, sd, rcount, rd, need);
  if ((status = agree_rounds(comm, *rbuf ? MXN_OK : MXN_ERR_NOMEM, need, all)) != MXN_OK) goto done;
  status = run(comm, size, &w, sbuf, scount, sd, *rbuf, rcount, rd, all[1], (int)all[2]);
done:
  if (status != MXN_OK) {
    free(*rbuf);
    *rbuf = NULL;
  }
  scratch_free(&w);
  free(sd);
  free(rd);
  return status;
}

int mxn__comm_exchange_i64(MPI_Comm comm, int status, const int64_t *sbuf, const int64_t *scount,
                           int64_t **rbuf, int64_t *rn, int64_t *rcount) {
  const int64_t w = (int64_t)sizeof **rbuf;
  int size;
  MPI_Comm_size(comm, &size);
  int64_t *sb = NULL;
  *rbuf = NULL;
  if (status == MXN_OK) {
    /* in bytes for the exchange, back to words after */
    sb = mxn__malloc((size_t)size * sizeof *sb);
    if (!sb) status = MXN_ERR_NOMEM;
    for (int r = 0; sb && r < size; r++) sb[r] = scount[r] * w;
  }
  status = mxn__comm_exchange(comm, status, sbuf, sb, (void **)rbuf, rcount);
  if (status == MXN_OK) {
    *rn = 0;
    for (int r = 0; r < size; r++) {
      rcount[r] /= w;
      *rn += rcount[r];
    }
  }
  free(sb);
  return status;
}

int mxn__comm_send_items(MPI_Comm comm, int status, const void *items, size_t isz, int64_t n,
                         const int *dest, void **recv, int64_t *nrecv, int64_t *rcount_items) {
  int size;
  MPI_Comm_size(comm, &size);
  int64_t *sc = NULL, *rc = NULL, *at = NULL;
  char *sbuf = NULL;
  void *rbuf = NULL;
  if (status == MXN_OK) {
    sc = mxn__calloc((size_t)size, sizeof *sc);
    rc = mxn__calloc((size_t)size, sizeof *rc);
    at = mxn__calloc((size_t)size, sizeof *at);
    sbuf = mxn__malloc((size_t)n * isz + 1);
    if (!sc || !rc || !at || !sbuf) status = MXN_ERR_NOMEM;
  }
  if (status == MXN_OK) {
    /* bucketed by destination, each bucket in the items' order */
    for (int64_t k = 0; k < n; k++) sc[dest[k]] += (int64_t)isz;
    for (int r = 1; r < size; r++) at[r] = at[r - 1] + sc[r - 1];
    for (int64_t k = 0; k < n; k++) {
      memcpy(sbuf + at[dest[k]], (const char *)items + k * (int64_t)isz, isz);
      at[dest[k]] += (int64_t)isz;
    }
  }
  status = mxn__comm_exchange(comm, status, sbuf, sc, &rbuf, rc);
  if (status == MXN_OK) {
    int64_t bytes = 0;
    for (int r = 0; r < size; r++) {
      bytes += rc[r];
      if (rcount_items) rcount_items[r] = rc[r] / (int64_t)isz;
    }
    *recv = rbuf;
    *nrecv = bytes / (int64_t)isz;
    rbuf = NULL;
  }
  free(sc);
  free(rc);
  free(at);
  free(sbuf);
  free(rbuf);
  return status;
}

int mxn__send_to(MPI_Comm comm, int size, const void *items, size_t isz, int64_t n,
                 const int *dest, void **recv, int64_t *nrecv) {
  return mxn__comm_send_items(comm, MXN_OK, items, isz, n, dest, recv, nrecv, NULL);
}

int mxn__send_to_if(MPI_Comm comm, int size, int status, const void *items, size_t isz,
                    int64_t n, const int *dest, void **recv, int64_t *nrecv) {
  return mxn__comm_send_items(comm, status, items, isz, n, dest, recv, nrecv, NULL);
}

/* ------------------------------------------------------------------ */
/* Reductions, scans, gathers and broadcasts, each with the status.    */

/* Reductions of up to this many values carry the status in the same
 * call (one more entry); longer ones agree on it first. */
#define MXN__FOLD_MAX 15

static MPI_Op op_of(mxn__op op) { return op == MXN__SUM ? MPI_SUM : op == MXN__MIN ? MPI_MIN : MPI_MAX; }

/* In-place reduction of n values of type t (w bytes each), in pieces of
 * at most 2^30 values so that a count above INT_MAX needs no refusal. */
static int reduce_raw(MPI_Comm comm, mxn__op op, void *v, int64_t n, MPI_Datatype t, size_t w) {
  const int64_t piece = (int64_t)1 << 30;
  for (int64_t at = 0; at < n; at += piece) {
    int64_t k = n - at < piece ? n - at : piece;
    if (MPI_Allreduce(MPI_IN_PLACE, (char *)v + (size_t)at * w, (int)k, t, op_of(op), comm) !=
        MPI_SUCCESS)
      return MXN_ERR_MPI;
  }
  return MXN_OK;
}

/* The worst status from the folded entry f of a reduction by op (MIN:
 * the status itself, MAX: its negation, SUM: the number of ranks that
 * failed, after which one agreement names the worst). */
static int folded_worst(MPI_Comm comm, int status, mxn__op op, double f) {
  int worst;
  if (op == MXN__SUM) {
    if (f == 0) return MXN_OK;
    return mxn__worst(comm, status);
  }
  worst = op == MXN__MIN ? (int)f : (int)-f;
  if (status == MXN_OK && worst != MXN_OK) heard_of_failure = 1;
  return worst;
}

static double fold_entry(int status, mxn__op op) {
  return op == MXN__SUM ? (status != MXN_OK) : op == MXN__MIN ? status : -status;
}

int mxn__comm_reduce_i64(MPI_Comm comm, int status, mxn__op op, int64_t *v, int64_t n) {
  if (n > MXN__FOLD_MAX) {
    if ((status = mxn__worst(comm, status)) != MXN_OK) return status;
    return reduce_raw(comm, op, v, n, MPI_INT64_T, sizeof *v);
  }
  int64_t b[MXN__FOLD_MAX + 1];
  const int64_t idle = op == MXN__SUM ? 0 : op == MXN__MIN ? INT64_MAX : INT64_MIN;
  for (int64_t i = 0; i < n; i++) b[i] = status == MXN_OK ? v[i] : idle;
  b[n] = (int64_t)fold_entry(status, op);
  if (MPI_Allreduce(MPI_IN_PLACE, b, (int)n + 1, MPI_INT64_T, op_of(op), comm) != MPI_SUCCESS)
    return MXN_ERR_MPI;
  if ((status = folded_worst(comm, status, op, (double)b[n])) != MXN_OK) return status;
  memcpy(v, b, (size_t)n * sizeof *v);
  return MXN_OK;
}

int mxn__comm_reduce_f64(MPI_Comm comm, int status, mxn__op op, double *v, int64_t n) {
  if (n > MXN__FOLD_MAX) {
    if ((status = mxn__worst(comm, status)) != MXN_OK) return status;
    return reduce_raw(comm, op, v, n, MPI_DOUBLE, sizeof *v);
  }
  double b[MXN__FOLD_MAX + 1];
  const double idle = op == MXN__SUM ? 0 : op == MXN__MIN ? INFINITY : -INFINITY;
  for (int64_t i = 0; i < n; i++) b[i] = status == MXN_OK ? v[i] : idle;
  b[n] = fold_entry(status, op);
  if (MPI_Allreduce(MPI_IN_PLACE, b, (int)n + 1, MPI_DOUBLE, op_of(op), comm) != MPI_SUCCESS)
    return MXN_ERR_MPI;
  if ((status = folded_worst(comm, status, op, b[n])) != MXN_OK) return status;
  memcpy(v, b, (size_t)n * sizeof *v);
  return MXN_OK;
}

int mxn__comm_reduce_u8(MPI_Comm comm, int status, mxn__op op, unsigned char *v, int64_t n) {
  if ((status = mxn__worst(comm, status)) != MXN_OK) return status;
  return reduce_raw(comm, op, v, n, MPI_UNSIGNED_CHAR, 1);
}

/* The lexicographic minimum of int64 tuples (their length from the
 * datatype's size). */
static void lexmin_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  int size;
  MPI_Type_size(*dt, &size);
  int w = size / (int)sizeof(int64_t);
  const int64_t *x = in;
  int64_t *y = inout;
  for (int i = 0; i < *len; i++, x += w, y += w)
    for (int k = 0; k < w; k++)
      if (x[k] != y[k]) {
        if (x[k] < y[k]) memcpy(y, x, (size_t)w * sizeof *y);
        break;
      }
}

int mxn__comm_lexmin_i64(MPI_Comm comm, int status, int64_t *v, int n) {
  /* the status first: the worst one is the smallest, and wins */
  int64_t b[MXN__FOLD_MAX + 1];
  if (n < 0 || n > MXN__FOLD_MAX) return MXN_ERR_ARG;
  b[0] = status;
  for (int i = 0; i < n; i++) b[i + 1] = status == MXN_OK ? v[i] : INT64_MAX;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int rc = MPI_Type_contiguous(n + 1, MPI_INT64_T, &t);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
  if (rc == MPI_SUCCESS) rc = MPI_Op_create(lexmin_fn, 1, &op);
  if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, b, 1, t, op, comm);
  if (op != MPI_OP_NULL) MPI_Op_free(&op);
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  if (rc != MPI_SUCCESS) return MXN_ERR_MPI;
  int worst = (int)b[0];
  if (status == MXN_OK && worst != MXN_OK) heard_of_failure = 1;
  if (worst != MXN_OK) return worst;
  memcpy(v, b + 1, (size_t)n * sizeof *v);
  return MXN_OK;
}

/* The exclusive sum of n values of type t (w bytes each; int64 or double:
 * zero is all zero bytes in both), then their total, which carries the
 * status when n is short. */
static int exscan_sum(MPI_Comm comm, int status, const void *mine, int64_t n, void *before,
                      void *total, MPI_Datatype t, size_t w) {
  const int64_t piece = (int64_t)1 << 30;
  union {
    double d[MXN__FOLD_MAX];
    int64_t i[MXN__FOLD_MAX];
  } b, tb;
  const void *src = mine;
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (n > MXN__FOLD_MAX) {
    /* long scans agree first; a failed rank's values are not read */
    if ((status = mxn__worst(comm, status)) != MXN_OK) return status;
  } else {
    /* a failed rank takes part with zeros */
    if (status == MXN_OK) memcpy(&b, mine, (size_t)n * w);
    else memset(&b, 0, (size_t)n * w);
    src = &b;
  }
  for (int64_t at = 0; at < n; at += piece) {
    int k = (int)(n - at < piece ? n - at : piece);
    if (MPI_Exscan((char *)src + (size_t)at * w, (char *)before + (size_t)at * w, k, t, MPI_SUM,
                   comm) != MPI_SUCCESS)
      return MXN_ERR_MPI;
  }
  if (rank == 0) memset(before, 0, (size_t)n * w); /* MPI_Exscan leaves it undefined */
  if (n > MXN__FOLD_MAX) {
    if (!total) return MXN_OK;
    memcpy(total, mine, (size_t)n * w);
    return reduce_raw(comm, MXN__SUM, total, n, t, w);
  }
  tb = b;
  status = t == MPI_DOUBLE ? mxn__comm_reduce_f64(comm, status, MXN__SUM, tb.d, n)
                           : mxn__comm_reduce_i64(comm, status, MXN__SUM, tb.i, n);
  if (status == MXN_OK && total) memcpy(total, &tb, (size_t)n * w);
  return status;
}

int mxn__comm_exscan_i64(MPI_Comm comm, int status, const int64_t *mine, int64_t n,
                         int64_t *before, int64_t *total) {
  return exscan_sum(comm, status, mine, n, before, total, MPI_INT64_T, sizeof *mine);
}

int mxn__comm_exscan_f64(MPI_Comm comm, int status, const double *mine, int64_t n,
                         double *before, double *total) {
  return exscan_sum(comm, status, mine, n, before, total, MPI_DOUBLE, sizeof *mine);
}

/* A datatype of `bytes` contiguous bytes, whatever their count: whole
 * pieces of 2^30 bytes and the rest, so no int count caps it. */
static int bytes_type(int64_t bytes, MPI_Datatype *t) {
  const int64_t piece = (int64_t)1 << 30;
  int64_t q = bytes / piece;
  int r = (int)(bytes % piece), rc;
  *t = MPI_DATATYPE_NULL;
  if (q == 0) {
    rc = MPI_Type_contiguous(r, MPI_BYTE, t);
  } else {
    MPI_Datatype g = MPI_DATATYPE_NULL, qg = MPI_DATATYPE_NULL;
    rc = MPI_Type_contiguous((int)piece, MPI_BYTE, &g);
    if (rc == MPI_SUCCESS) rc = MPI_Type_contiguous((int)q, g, &qg);
    int bl[2] = {1, r};
    MPI_Aint at[2] = {0, (MPI_Aint)(q * piece)};
    MPI_Datatype ts[2] = {qg, MPI_BYTE};
    if (rc == MPI_SUCCESS) rc = MPI_Type_create_struct(2, bl, at, ts, t);
    if (qg != MPI_DATATYPE_NULL) MPI_Type_free(&qg);
    if (g != MPI_DATATYPE_NULL) MPI_Type_free(&g);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(t);
  if (rc != MPI_SUCCESS && *t != MPI_DATATYPE_NULL) MPI_Type_free(t);
  return rc == MPI_SUCCESS ? MXN_OK : MXN_ERR_MPI;
}

int mxn__comm_exscan_op(MPI_Comm comm, int status, const void *mine, void *before, int64_t bytes,
                        MPI_User_function *fn) {
  if ((status = mxn__worst(comm, status)) != MXN_OK) return status;
  MPI_Datatype t;
  MPI_Op op = MPI_OP_NULL;
  if (bytes_type(bytes, &t) != MXN_OK) return MXN_ERR_MPI;
  int rc = MPI_Op_create(fn, 0, &op);
  if (rc == MPI_SUCCESS) rc = MPI_Exscan((void *)mine, before, 1, t, op, comm);
  if (op != MPI_OP_NULL) MPI_Op_free(&op);
  MPI_Type_free(&t);
  return rc == MPI_SUCCESS ? MXN_OK : MXN_ERR_MPI;
}

int mxn__comm_allgather(MPI_Comm comm, int status, const void *mine, int64_t bytes, void *all) {
  if ((status = mxn__worst(comm, status)) != MXN_OK) return status;
  MPI_Datatype t;
  if (bytes_type(bytes, &t) != MXN_OK) return MXN_ERR_MPI;
  int rc = MPI_Allgather((void *)mine, 1, t, all, 1, t, comm);
  MPI_Type_free(&t);
  return rc == MPI_SUCCESS ? MXN_OK : MXN_ERR_MPI;
}

int mxn__comm_allgatherv(MPI_Comm comm, int status, const void *mine, int64_t bytes, void **all,
                         int64_t *counts) {
  int size;
  MPI_Comm_size(comm, &size);
  int64_t *sc = NULL;
  *all = NULL;
  /* every rank's count, then this rank's bytes to every rank: the
   * all-to-all of bytes handles 64-bit counts and offsets */
  if (status == MXN_OK && !(sc = mxn__calloc(3 * (size_t)size + 1, sizeof *sc)))
    status = MXN_ERR_NOMEM;
  if ((status = mxn__comm_allgather(comm, status, &bytes, sizeof bytes, counts)) != MXN_OK)
    goto done;
  int64_t *sd = sc + size, *rd = sc + 2 * size, total = 0;
  for (int r = 0; r < size; r++) {
    sc[r] = bytes;
    sd[r] = 0;
    rd[r] = total;
    total += counts[r];
  }
  *all = mxn__malloc((size_t)total + 1);
  status = mxn__comm_alltoallv(comm, *all ? MXN_OK : MXN_ERR_NOMEM, mine, sc, sd, *all, counts, rd);
done:
  if (status != MXN_OK) {
    free(*all);
    *all = NULL;
  }
  free(sc);
  return status;
}

int mxn__comm_bcast(MPI_Comm comm, int status, int root, void *buf, int64_t bytes) {
  if ((status = mxn__worst(comm, status)) != MXN_OK) return status;
  MPI_Datatype t;
  if (bytes_type(bytes, &t) != MXN_OK) return MXN_ERR_MPI;
  int rc = MPI_Bcast(buf, 1, t, root, comm);
  MPI_Type_free(&t);
  return rc == MPI_SUCCESS ? MXN_OK : MXN_ERR_MPI;
}

int mxn__comm_bcast_alloc(MPI_Comm comm, int status, int root, void **buf, int64_t *bytes) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int64_t len = rank == root && status == MXN_OK ? *bytes : 0;
  if ((status = mxn__comm_bcast(comm, status, root, &len, sizeof len)) != MXN_OK) return status;
  if (rank != root) {
    *buf = NULL;
    *bytes = len;
    if (!(*buf = mxn__malloc((size_t)len + 1))) status = MXN_ERR_NOMEM;
  }
  status = mxn__comm_bcast(comm, status, root, *buf, len);
  if (status != MXN_OK && rank != root) {
    free(*buf);
    *buf = NULL;
  }
  return status;
}

int mxn__comm_neighbours_f64(MPI_Comm comm, const int *nb, double mine, double *theirs,
                             MPI_Request *req) {
  int size, nr = 0, rc = MPI_SUCCESS;
  MPI_Comm_size(comm, &size);
  for (int r = 0; r < size; r++)
    if (nb[r]) {
      req[nr] = req[nr + 1] = MPI_REQUEST_NULL;
      if (MPI_Irecv(&theirs[r], 1, MPI_DOUBLE, r, 77, comm, &req[nr++]) != MPI_SUCCESS ||
          MPI_Isend(&mine, 1, MPI_DOUBLE, r, 77, comm, &req[nr++]) != MPI_SUCCESS)
        rc = MPI_ERR_OTHER;
    }
  if (MPI_Waitall(nr, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) rc = MPI_ERR_OTHER;
  return rc == MPI_SUCCESS ? MXN_OK : MXN_ERR_MPI;
}
