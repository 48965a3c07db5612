/**
 * \file idset.h
 * Sorted sets of unique 64-bit global ids and the set algebra of the MxN
 * algorithm (seed mxn-repartitioning-algorithm.txt §II.B, §III).
 *
 * All operations are local (no MPI) and linear in the sizes of their sorted
 * operands. A set owns its array; free it with mxn_idset_free().
 */
#ifndef MXN_IDSET_H
#define MXN_IDSET_H

#include "mxn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A sorted set of unique ids. `ids` is NULL when n == 0. */
typedef struct mxn_idset {
  mxn_gid_t *ids; /**< strictly increasing, length n; owned by the set */
  int64_t n;      /**< number of members */
} mxn_idset_t;

/** Empty set initializer. */
#define MXN_IDSET_INIT {NULL, 0}

/**
 * Build a set from an arbitrary array (unsorted, repeats allowed).
 * \param [in]  ids  n ids (may be NULL if n == 0); not modified
 * \param [in]  n    number of ids, >= 0
 * \param [out] out  receives the set; free with mxn_idset_free()
 * \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM. Local. O(n log n).
 */
int mxn_idset_from_array(const mxn_gid_t *ids, int64_t n, mxn_idset_t *out);

/**
 * Like mxn_idset_from_array() but also returns, for each input entry, the
 * position of its id in the resulting set.
 * \param [out] pos  if not NULL, receives a malloc'ed array of n positions
 *                   (caller frees with free())
 */
int mxn_idset_from_array_pos(const mxn_gid_t *ids, int64_t n, mxn_idset_t *out,
                             int64_t **pos);

/** Free the members of `s` (not `s` itself) and reset it to empty. Accepts NULL. */
void mxn_idset_free(mxn_idset_t *s);

/** Deep copy. \return MXN_OK, MXN_ERR_NOMEM. Local. */
int mxn_idset_copy(const mxn_idset_t *s, mxn_idset_t *out);

/** True if `ids[0..n)` is strictly increasing. Local. */
int mxn_ids_sorted_unique(const mxn_gid_t *ids, int64_t n);

/**
 * Position of `id` in `s`, or -1 if absent. Local. O(log n).
 */
int64_t mxn_idset_find(const mxn_idset_t *s, mxn_gid_t id);

/**
 * Intersection E = A ∩ B with both position mappings (the seed's
 * swIVSetIntersect()): for k in [0, E.n), A.ids[pos_a[k]] == E.ids[k] and
 * B.ids[pos_b[k]] == E.ids[k].
 * \param [in]  a, b    sorted sets
 * \param [out] out     E; free with mxn_idset_free()
 * \param [out] pos_a   if not NULL: malloc'ed array of E.n positions into A
 *                      (MF when A is a file domain); caller frees
 * \param [out] pos_b   if not NULL: positions into B (MP when B is P_i)
 * \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM. Local. O(|A| + |B|) at most;
 * where the sets interleave in runs (a member's ids in a rank's part) about
 * |E| plus a logarithm per run, since the walk gallops over the other's runs.
 */
int mxn_idset_intersect(const mxn_idset_t *a, const mxn_idset_t *b,
                        mxn_idset_t *out, int64_t **pos_a, int64_t **pos_b);

/** Number of members of A ∩ B, without building it. Local. */
int64_t mxn_idset_intersect_count(const mxn_idset_t *a, const mxn_idset_t *b);

/** Difference A − B. \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM. Local. */
int mxn_idset_difference(const mxn_idset_t *a, const mxn_idset_t *b,
                         mxn_idset_t *out);

/** Union A ∪ B. \return MXN_OK, MXN_ERR_ARG, MXN_ERR_NOMEM. Local. */
int mxn_idset_union(const mxn_idset_t *a, const mxn_idset_t *b,
                    mxn_idset_t *out);

#ifdef __cplusplus
}
#endif
#endif /* MXN_IDSET_H */
