/* Private: one Zoltan run of mxn_partition() (part_zoltan.c). */
#ifndef MXN_PART_ZOLTAN_H
#define MXN_PART_ZOLTAN_H

#include "mxn/partition.h"

/* Partition `in` into nparts with Zoltan's `method` (RCB, RIB, HSFC,
 * GRAPH) at tolerance tol; the part of every local element lands in
 * part[]. use_w, use_ew: pass the element and edge weights; seed: of
 * Zoltan's generator (graph); repart, no_remap, refine: as in
 * mxn_part_opts_t. Collective; errors not agreed (the caller agrees). */
int mxn__zoltan_run(MPI_Comm comm, mxn_part_method method, const mxn_part_input_t *in,
                    int nparts, double tol, int use_w, int use_ew, unsigned seed, int repart,
                    int no_remap, int refine, int *part, mxn_error_t *err);

#endif /* MXN_PART_ZOLTAN_H */
