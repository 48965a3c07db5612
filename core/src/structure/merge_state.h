/* Private to structure/: the state the summaries and the merge keep in a
 * dataset (ds->mg), apart from the member store: what an open works with
 * while it merges members, and what records rebuilt later share. Made with
 * the dataset, freed with it (merge.c). */
#ifndef MXN_STRUCTURE_MERGE_STATE_H
#define MXN_STRUCTURE_MERGE_STATE_H

#include "structure/structure.h"

struct mxn__merge_state {
  /* While an open summarises members (summary.c): the declarations (block
   * and set ids and names) of the last member it summarised, so a member
   * declaring the same ones sends a flag instead (nem_spread and ParaView's
   * writer declare every block and set in every member). */
  int decl_prev_j;
  char *decl_prev;
  size_t decl_prev_len;
  /* While members are merged (merge.c): the last member's block names by
   * kind, for a later member that declares the same blocks. */
  char (*decl_names[MXN__NBK])[MXN_NAME_LEN];
  struct mxn__merging *merging; /* while members are merged (merge.c) */
  int vars_from[MXN__NV];  /* member that defined each family's names */
  /* The declarations (block and set lists) of the last record held, which
   * a record rebuilt later shares where it declares the same (merge.c). */
  const int *decl_of[MXN__NBK];
  int decl_of_n[MXN__NBK];
  const int64_t *decl_ids[MXN__NSK];
  int decl_ids_n[MXN__NSK];
  /* Merging a member rebuilt after the open (records.c): the structure is
   * settled, so the merge only looks up, adds nothing and counts nothing. */
  int settled;
};

#endif /* MXN_STRUCTURE_MERGE_STATE_H */
