/* Private: a member's Nemesis node and element maps, as SPLIT (forms.c,
 * from the global node -> parts relation) and REPART (repart.c, from the
 * directory's holders of each node) build them (nemmaps.c). */
#ifndef MXN_NEMMAPS_H
#define MXN_NEMMAPS_H

#include "internal.h"

/* Indices are 0-based local ones into the piece: nodes, or elements over
 * the concatenated blocks. */
typedef struct {
  int64_t *int_nodes, *bor_nodes, *int_elems, *bor_elems;
  int64_t nint_n, nbor_n, nint_e, nbor_e;
  int ncmaps;                /* node communication maps, one per neighbour */
  int *cmap_parts;           /* the neighbour of each */
  int64_t *cmap_off;         /* ncmaps + 1 offsets into cmap_nodes */
  int64_t *cmap_nodes;
} mxn__nem_maps_t;

void mxn__nem_maps_free(mxn__nem_maps_t *m);

/* m's interior and border lists of pc: node i is a border node where
 * bor[i] (another part holds it too), an element a border element where
 * it touches a border node. Leaves the communication maps alone. MXN_OK,
 * or MXN_ERR_NOMEM with what was allocated left in m for the caller's
 * mxn__nem_maps_free. */
int mxn__nem_maps_split(const mxn_structure_t *s, const mxn_piece_t *pc, const char *bor,
                        mxn__nem_maps_t *m);

/* Lend m's lists and maps to the writer's Nemesis data (nm keeps its
 * global counts and part numbers). */
void mxn__nem_maps_lend(const mxn__nem_maps_t *m, mxn_nemesis_part_t *nm);

#endif
