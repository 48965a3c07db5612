/**
 * \file cover.h
 * Greedy minimal cover of a partition domain P by file domains F_1..F_M
 * (seed mxn-repartitioning-algorithm.txt §III).
 *
 * Starting from R_0 = P, each step picks the not-yet-chosen file j whose
 * difference R_{k-1} − F_j is smallest (ties: the lowest j), records
 * E_j = R_{k-1} ∩ F_j with MF_j (positions in F_j) and MP_j (positions in P),
 * and continues with R_k = R_{k-1} − F_j until R is empty or no file covers
 * anything more. Files may overlap; each member of P is extracted exactly once.
 */
#ifndef MXN_COVER_H
#define MXN_COVER_H

#include "mxn/idset.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What to extract from one chosen file. */
typedef struct mxn_cover_part {
  int file;        /**< index j of the file domain in the input array */
  mxn_idset_t E;   /**< E_j: members of P taken from this file */
  int64_t *mf;     /**< MF_j: E.n positions into F_j */
  int64_t *mp;     /**< MP_j: E.n positions into P */
} mxn_cover_part_t;

/** Result of mxn_cover_greedy(). Free with mxn_cover_free(). */
typedef struct mxn_cover {
  int nparts;               /**< number of files chosen */
  mxn_cover_part_t *parts;  /**< in the order they were chosen */
  mxn_idset_t uncovered;    /**< members of P in no F_j (empty on success) */
} mxn_cover_t;

/**
 * Compute the greedy cover of P by F[0..nfiles).
 * \param [in]  P       the partition domain
 * \param [in]  F       nfiles file domains (any may be empty)
 * \param [in]  nfiles  >= 0
 * \param [out] out     the cover; out->uncovered lists what no file holds
 *                      (the call still returns MXN_OK: callers decide)
 * \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM. Local.
 */
int mxn_cover_greedy(const mxn_idset_t *P, const mxn_idset_t *F, int nfiles,
                     mxn_cover_t *out);

/** Free everything the cover owns and zero it. Accepts NULL. */
void mxn_cover_free(mxn_cover_t *c);

#ifdef __cplusplus
}
#endif
#endif /* MXN_COVER_H */
