/* Private: the core's rank-to-rank communication (comm.c). Every exchange
 * of the core goes through here: status agreement, and the all-to-all of
 * bytes, where counts and displacements beyond INT_MAX are handled. */
#ifndef MXN_COMM_H
#define MXN_COMM_H

#include "mxn/status.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* (mxn_agree, the agreement with a message, is public: mxn/directory.h.) */

/* mxn_agree, or `status` unchanged when comm is MPI_COMM_NULL (a serial
 * caller). Collective otherwise. */
int mxn__agree_or_local(MPI_Comm comm, int status, mxn_error_t *err);

/* The worst (most negative) status any rank of comm passed: one
 * MPI_Allreduce. Collective; MXN_ERR_MPI if it fails. */
int mxn__worst(MPI_Comm comm, int status);

/* Whether every rank of comm passed ok != 0 (mxn__worst of MXN_OK or
 * MXN_ERR_NOMEM), before an exchange that a rank short of memory cannot
 * take part in. Collective. */
int mxn__all_ok(MPI_Comm comm, int ok);

/* Move bytes whose counts both sides know: sbuf holds scount[r] bytes for
 * rank r at byte offset sdisp[r], rbuf receives rcount[r] bytes from rank
 * r at rdisp[r]. Counts and offsets are 64-bit: an exchange whose
 * per-peer counts or offsets pass an int (or the round limit) goes in
 * rounds. `status`: the caller's so far; a rank that failed still calls
 * it (nothing is then read), and every rank returns the worst status of
 * all, without exchanging, when any failed. Collective. */
int mxn__comm_alltoallv(MPI_Comm comm, int status, const void *sbuf, const int64_t *scount,
                        const int64_t *sdisp, void *rbuf, const int64_t *rcount,
                        const int64_t *rdisp);

/* Bytes grouped by destination (scount[r] bytes for rank r, in rank
 * order) to their ranks: the counts go first, then the bytes into *rbuf
 * (malloc'ed, in source rank order; rcount[r] gets the bytes from rank r,
 * comm size entries). `status`: the caller's so far; a rank that failed
 * before the exchange still calls it (sbuf is then not read), and every
 * rank returns the worst status of all, without exchanging, when any
 * failed (also when one cannot allocate its receive buffer). Collective. */
int mxn__comm_exchange(MPI_Comm comm, int status, const void *sbuf, const int64_t *scount,
                       void **rbuf, int64_t *rcount);

/* mxn__comm_exchange of int64 words: scount and rcount (comm size each)
 * count words, *rbuf (malloc'ed) gets *rn words in source rank order.
 * Collective. */
int mxn__comm_exchange_i64(MPI_Comm comm, int status, const int64_t *sbuf, const int64_t *scount,
                           int64_t **rbuf, int64_t *rn, int64_t *rcount);

/* Send each item of isz bytes to rank dest[k]; the items received come in
 * source rank order, each rank's in its sending order, into *recv
 * (malloc'ed), *nrecv of them; per-source counts of items into
 * rcount_items (comm size entries) when not NULL. `status` as for
 * mxn__comm_exchange. Collective. */
int mxn__comm_send_items(MPI_Comm comm, int status, const void *items, size_t isz, int64_t n,
                         const int *dest, void **recv, int64_t *nrecv, int64_t *rcount_items);

/* mxn__comm_send_items for a communicator of `size` ranks, without the
 * per-source counts; _if with the caller's status so far. */
int mxn__send_to(MPI_Comm comm, int size, const void *items, size_t isz, int64_t n,
                 const int *dest, void **recv, int64_t *nrecv);
int mxn__send_to_if(MPI_Comm comm, int size, int status, const void *items, size_t isz,
                    int64_t n, const int *dest, void **recv, int64_t *nrecv);

/* The reductions below: SUM, MIN or MAX over the ranks. */
typedef enum { MXN__SUM, MXN__MIN, MXN__MAX } mxn__op;

/* Reduce v[0..n) in place over comm by op (the same n and op on every
 * rank), with the caller's status so far: a rank that failed still calls
 * it (its v is then not read), and when any rank failed every rank
 * returns the worst status of all (v then unspecified). Collective;
 * MXN_ERR_MPI if MPI fails. */
int mxn__comm_reduce_i64(MPI_Comm comm, int status, mxn__op op, int64_t *v, int64_t n);
int mxn__comm_reduce_f64(MPI_Comm comm, int status, mxn__op op, double *v, int64_t n);
/* ... of bytes (flags), MIN or MAX only. */
int mxn__comm_reduce_u8(MPI_Comm comm, int status, mxn__op op, unsigned char *v, int64_t n);

/* The lexicographically smallest tuple v[0..n) of any rank (n <= 15), in
 * place: where the smallest first entry ties, the second decides, and so
 * on (a lowest id with the files that go with it). `status` as for
 * mxn__comm_reduce_i64. Collective. */
int mxn__comm_lexmin_i64(MPI_Comm comm, int status, int64_t *v, int n);

/* The sums of mine[0..n) over the ranks before this one (0 on the first)
 * into before, and over every rank into total (NULL: not wanted).
 * `status` as for mxn__comm_reduce_i64. Collective. */
int mxn__comm_exscan_i64(MPI_Comm comm, int status, const int64_t *mine, int64_t n,
                         int64_t *before, int64_t *total);
int mxn__comm_exscan_f64(MPI_Comm comm, int status, const double *mine, int64_t n,
                         double *before, double *total);

/* An exclusive scan of one item of `bytes` bytes by a user operation
 * `fn` (called with len 1 and items of that size; associative, as
 * MPI_Op_create's non-commutative ones): *before gets the combination
 * of the items of the ranks before this one, left as it is on the first.
 * `status` as for mxn__comm_reduce_i64. Collective. */
int mxn__comm_exscan_op(MPI_Comm comm, int status, const void *mine, void *before, int64_t bytes,
                        MPI_User_function *fn);

/* Every rank's `bytes` bytes (the same count everywhere) into all, in rank
 * order (comm size times bytes). `status` as for mxn__comm_reduce_i64.
 * Collective. */
int mxn__comm_allgather(MPI_Comm comm, int status, const void *mine, int64_t bytes, void *all);

/* Every rank's bytes, each rank its own count: *all (malloc'ed) gets them
 * in rank order, counts[r] (comm size entries) rank r's count. `status`
 * as for mxn__comm_exchange. Collective. */
int mxn__comm_allgatherv(MPI_Comm comm, int status, const void *mine, int64_t bytes, void **all,
                         int64_t *counts);

/* root's `bytes` bytes of buf to every rank's buf (the same count on
 * every rank). `status` as for mxn__comm_reduce_i64. Collective. */
int mxn__comm_bcast(MPI_Comm comm, int status, int root, void *buf, int64_t bytes);

/* root's *bytes bytes at *buf to every other rank, which gets *bytes and
 * a malloc'ed copy in *buf (root keeps its own). `status` as for
 * mxn__comm_exchange: also a rank that cannot allocate its copy fails
 * every rank (the copies then freed, *buf NULL on the other ranks).
 * Collective. */
int mxn__comm_bcast_alloc(MPI_Comm comm, int status, int root, void **buf, int64_t *bytes);

/* Each rank r with nb[r] != 0 (comm size entries) gets `mine` and sends
 * back its own into theirs[r]: a symmetric neighbour relation (r names
 * me when I name r), so no rank waits on one that does not answer. req:
 * 2 comm size requests of scratch, allocated and agreed by the caller
 * before (this allocates nothing, so it has no rank-local failure).
 * Collective among neighbours. */
int mxn__comm_neighbours_f64(MPI_Comm comm, const int *nb, double mine, double *theirs,
                             MPI_Request *req);

/* For tests: the most bytes one rank sends to one peer in one round of
 * mxn__comm_alltoallv (bytes <= 0: back to the default, INT_MAX). Set
 * alike on every rank. */
void mxn__comm_set_round_limit(int64_t bytes);

/* How many rounds the last exchange on this thread took (for tests). */
int mxn__comm_last_rounds(void);

#ifdef __cplusplus
}
#endif

#endif /* MXN_COMM_H */
