/* Private: structure and piece views with one element variable dropped
 * or added (varview.c). */
#ifndef MXN_VARVIEW_H
#define MXN_VARVIEW_H

#include "internal.h"

typedef struct {
  mxn_structure_t s;  /* the structure, element variables changed */
  mxn_piece_t p;      /* the piece, blocks' elem_vars changed; never destroy */
  int nb;
  char (*names)[MXN_NAME_LEN];
  int *truth;
  mxn_piece_block_t *blocks;
} mxn__var_view_t;

/* View s and pc without the element variable `drop` (NULL: none) and with
 * `add` (NULL: none) on every block holding add_vals[b] (num_elements
 * values each; overrides a variable of that name). The views borrow s's
 * and pc's arrays: keep them alive, and free with mxn__var_view_free(). */
int mxn__var_view(const mxn_structure_t *s, const mxn_piece_t *pc, const char *drop,
                  const char *add, double *const *add_vals, mxn__var_view_t *v);
void mxn__var_view_free(mxn__var_view_t *v);

/* After a step was read into pc: carry its step and time into the view
 * (the value arrays are shared already). Accepts v == NULL. */
static inline void mxn__var_view_sync(mxn__var_view_t *v, const mxn_piece_t *pc) {
  if (!v) return;
  v->p.step = pc->step;
  v->p.time = pc->time;
}

#endif /* MXN_VARVIEW_H */
