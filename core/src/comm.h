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
