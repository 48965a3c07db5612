/* A structure and piece seen with their element variables changed, for
 * writing: one variable dropped (a join of a ghosted set drops its
 * vtkGhostType) or one added or overridden (repart --ghosts writes
 * vtkGhostType). Nothing is copied but pointers. */
#include "forms/varview.h"

void mxn__var_view_free(mxn__var_view_t *v) {
  if (!v) return;
  if (v->blocks)
    for (int b = 0; b < v->nb; b++) free(v->blocks[b].elem_vars);
  free(v->blocks);
  free(v->names);
  free(v->truth);
  memset(v, 0, sizeof *v);
}

int mxn__var_view(const mxn_structure_t *s, const mxn_piece_t *pc, const char *drop,
                  const char *add, double *const *add_vals, mxn__var_view_t *v) {
  int status = MXN_OK;
  memset(v, 0, sizeof *v);
  int nv = s->num_elem_vars, nb = s->num_blocks;
  int d = -1, a = -1;
  for (int i = 0; i < nv; i++) {
    if (drop && strcmp(s->elem_var_names[i], drop) == 0) d = i;
    if (add && strcmp(s->elem_var_names[i], add) == 0) a = i;
  }
  /* new variable list: old minus the dropped one, plus the added one at
   * its old place or at the end */
  int nnew = nv - (d >= 0) + (add && a < 0);
  v->nb = nb;
  MXN_ALLOC(v->names, nnew);
  MXN_ALLOC(v->truth, (int64_t)nb * nnew);
  MXN_ALLOC(v->blocks, nb);
  for (int b = 0; b < nb; b++) {
    v->blocks[b] = pc->blocks[b];
    MXN_ALLOC(v->blocks[b].elem_vars, nnew);
  }
  for (int i = 0, o = 0; i < nv + 1; i++) {
    int extra = i == nv;
    if (extra && !(add && a < 0)) break;
    if (!extra && i == d) continue;
    if (!extra) memcpy(v->names[o], s->elem_var_names[i], MXN_NAME_LEN);
    if (extra) {
      memset(v->names[o], 0, MXN_NAME_LEN);
      strncpy(v->names[o], add, MXN_NAME_LEN - 1);
    }
    for (int b = 0; b < nb; b++) {
      int mine = extra || i == a;
      v->truth[(int64_t)b * nnew + o] = mine ? 1 : s->elem_var_truth[(int64_t)b * nv + i];
      v->blocks[b].elem_vars[o] = mine ? add_vals[b]
                                       : (pc->blocks[b].elem_vars ? pc->blocks[b].elem_vars[i] : NULL);
    }
    o++;
  }
  v->s = *s;
  v->s.num_elem_vars = nnew;
  v->s.elem_var_names = v->names;
  v->s.elem_var_truth = v->truth;
  v->p = *pc;
  v->p.blocks = v->blocks;
  v->p.plan_num_elem_vars = nnew;
done:
  if (status != MXN_OK) mxn__var_view_free(v);
  return status;
}
