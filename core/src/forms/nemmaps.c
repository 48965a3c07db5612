/* A member's Nemesis maps: see nemmaps.h. */
#include "forms/nemmaps.h"

void mxn__nem_maps_free(mxn__nem_maps_t *m) {
  free(m->int_nodes);
  free(m->bor_nodes);
  free(m->int_elems);
  free(m->bor_elems);
  free(m->cmap_parts);
  free(m->cmap_off);
  free(m->cmap_nodes);
  memset(m, 0, sizeof *m);
}

int mxn__nem_maps_split(const mxn_structure_t *s, const mxn_piece_t *pc, const char *bor,
                        mxn__nem_maps_t *m) {
  int status = MXN_OK;
  m->nint_n = m->nbor_n = m->nint_e = m->nbor_e = 0;
  MXN_ALLOC_RAW(m->int_nodes, pc->num_nodes);
  MXN_ALLOC_RAW(m->bor_nodes, pc->num_nodes);
  MXN_ALLOC_RAW(m->int_elems, pc->num_elements);
  MXN_ALLOC_RAW(m->bor_elems, pc->num_elements);
  for (int64_t i = 0; i < pc->num_nodes; i++) {
    if (bor[i])
      m->bor_nodes[m->nbor_n++] = i;
    else
      m->int_nodes[m->nint_n++] = i;
  }
  int64_t e = 0; /* over the concatenated blocks */
  for (int b = 0; b < pc->num_blocks; b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    int bnpe = s->blocks[b].nodes_per_elem;
    for (int64_t k = 0; k < pb->num_elements; k++, e++) {
      int is_bor = 0, npe = mxn__conn_n(pb, bnpe, k);
      const int64_t *ec = pb->conn + mxn__conn_at(pb, bnpe, k);
      for (int c = 0; c < npe && !is_bor; c++) is_bor = bor[ec[c]];
      if (is_bor)
        m->bor_elems[m->nbor_e++] = e;
      else
        m->int_elems[m->nint_e++] = e;
    }
  }
done:
  return status;
}

void mxn__nem_maps_lend(const mxn__nem_maps_t *m, mxn_nemesis_part_t *nm) {
  nm->num_int_nodes = m->nint_n;
  nm->num_bor_nodes = m->nbor_n;
  nm->int_nodes = m->int_nodes;
  nm->bor_nodes = m->bor_nodes;
  nm->num_int_elems = m->nint_e;
  nm->num_bor_elems = m->nbor_e;
  nm->int_elems = m->int_elems;
  nm->bor_elems = m->bor_elems;
  nm->num_node_cmaps = m->ncmaps;
  nm->node_cmap_parts = m->cmap_parts;
  nm->node_cmap_off = m->cmap_off;
  nm->node_cmap_nodes = m->cmap_nodes;
}
