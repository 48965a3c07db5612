/* Greedy minimal cover (seed mxn-repartitioning-algorithm.txt §III). */
#include "mxn/cover.h"

#include <stdlib.h>
#include <string.h>

void mxn_cover_free(mxn_cover_t *c) {
  if (!c) return;
  for (int k = 0; k < c->nparts; k++) {
    mxn_idset_free(&c->parts[k].E);
    free(c->parts[k].mf);
    free(c->parts[k].mp);
  }
  free(c->parts);
  mxn_idset_free(&c->uncovered);
  memset(c, 0, sizeof *c);
}

int mxn_cover_greedy(const mxn_idset_t *P, const mxn_idset_t *F, int nfiles,
                     mxn_cover_t *out) {
  if (!P || !out || nfiles < 0 || (nfiles > 0 && !F)) return MXN_ERR_ARG;
  /* Malformed sets (n < 0, or members without an array) are caller bugs;
   * without this check they surface as NOMEM or are silently ignored. */
  if (P->n < 0 || (P->n > 0 && !P->ids)) return MXN_ERR_ARG;
  for (int j = 0; j < nfiles; j++)
    if (F[j].n < 0 || (F[j].n > 0 && !F[j].ids)) return MXN_ERR_ARG;
  memset(out, 0, sizeof *out);
  int status = MXN_ERR_NOMEM;
  mxn_idset_t R = MXN_IDSET_INIT;
  char *chosen = calloc((size_t)nfiles + 1, 1);
  if (!chosen) goto done;
  out->parts = calloc((size_t)nfiles + 1, sizeof *out->parts);
  if (!out->parts) goto done;
  if ((status = mxn_idset_copy(P, &R)) != MXN_OK) goto done;

  while (R.n > 0) {
    /* |R - F_j| is smallest where |R ∩ F_j| is largest; ties go to the
     * lowest j so every rank computes the same cover. */
    int best = -1;
    int64_t best_hit = 0;
    for (int j = 0; j < nfiles; j++) {
      if (chosen[j]) continue;
      int64_t hit = mxn_idset_intersect_count(&R, &F[j]);
      if (hit > best_hit) {
        best_hit = hit;
        best = j;
      }
    }
    if (best < 0) break; /* what is left is in no file */
    chosen[best] = 1;

    mxn_cover_part_t *part = &out->parts[out->nparts];
    part->file = best;
    /* E_j = R ∩ F_j gives MF_j; E_j ∩ P gives MP_j. */
    if ((status = mxn_idset_intersect(&F[best], &R, &part->E, &part->mf, NULL)) != MXN_OK)
      goto done;
    out->nparts++;
    mxn_idset_t tmp = MXN_IDSET_INIT;
    if ((status = mxn_idset_intersect(&part->E, P, &tmp, NULL, &part->mp)) != MXN_OK)
      goto done;
    mxn_idset_free(&tmp);
    mxn_idset_t next = MXN_IDSET_INIT;
    if ((status = mxn_idset_difference(&R, &part->E, &next)) != MXN_OK) goto done;
    mxn_idset_free(&R);
    R = next;
  }
  out->uncovered = R;
  R = (mxn_idset_t)MXN_IDSET_INIT;
  status = MXN_OK;
done:
  mxn_idset_free(&R);
  free(chosen);
  if (status != MXN_OK) mxn_cover_free(out);
  return status;
}
