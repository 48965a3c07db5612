/* The members node-set entries name, agreed over the ranks: a node on the
 * border of members is listed by each of them, and each rank kept the
 * lowest-numbered of the members it read (read_sets.c); ranks that read
 * other members hold other values. One rendezvous by node id makes every
 * rank's value the lowest over all ranks holding the entry, which (each
 * member's elements being read by some rank) is the lowest-numbered member
 * listing it: what a one-rank read gives, whatever N. */
#include "internal.h"

#include "load/load_ctx.h"
#include "comm.h"

/* One node-set entry on its way to its node's rendezvous rank and back. */
typedef struct {
  int64_t node;   /* global node id */
  int32_t set;    /* node set index */
  int32_t member; /* lowest member seen */
} set_member_t;

/* Sort key: (set, node), the received index kept apart. */
typedef struct {
  int64_t node;
  int64_t set;
  int64_t at;
} member_key_t;

static int cmp_member_key(const void *x, const void *y) {
  const member_key_t *a = x, *b = y;
  if (a->set != b->set) return (a->set > b->set) - (a->set < b->set);
  if (a->node != b->node) return (a->node > b->node) - (a->node < b->node);
  return (a->at > b->at) - (a->at < b->at);
}

static int rendezvous_rank(int64_t node, int size) { return (int)((uint64_t)node % (uint64_t)size); }

int mxn__agree_set_members(MPI_Comm comm, int status, mxn_piece_t *pc) {
  int size, rank;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  set_member_t *out = NULL, *got = NULL, *back = NULL;
  member_key_t *keys = NULL;
  int *dest = NULL, *src = NULL;
  int64_t n = 0, ngot = 0, nback = 0, *rcount = NULL;
  if (size == 1) return mxn__worst(comm, status);
  /* This rank's entries, in (rendezvous rank, set, entry) order. */
  for (int q = 0; status == MXN_OK && q < pc->num_node_sets; q++)
    if (pc->node_sets[q].member) n += pc->node_sets[q].n;
  if (status == MXN_OK) {
    MXN_ALLOC_OR(out, n, send);
    MXN_ALLOC_OR(dest, n, send);
    int64_t k = 0;
    for (int r = 0; r < size; r++)
      for (int q = 0; q < pc->num_node_sets; q++) {
        const mxn_piece_set_t *ps = &pc->node_sets[q];
        if (!ps->member) continue;
        for (int64_t i = 0; i < ps->n; i++) {
          int64_t id = pc->node_ids[ps->entries[i]];
          if (rendezvous_rank(id, size) != r) continue;
          out[k] = (set_member_t){id, q, ps->member[i]};
          dest[k++] = r;
        }
      }
  }
send:
  MXN_ALLOC_OR(rcount, size, exchange);
exchange:
  status = mxn__comm_send_items(comm, status, out, sizeof *out, n, dest, (void **)&got, &ngot,
                                rcount);
  /* At the rendezvous: the lowest member per (set, node), sent back to
   * every rank in the order it came. */
  if (status == MXN_OK) {
    MXN_ALLOC_OR(keys, ngot, reply);
    MXN_ALLOC_OR(src, ngot, reply);
    for (int64_t i = 0; i < ngot; i++) keys[i] = (member_key_t){got[i].node, got[i].set, i};
    qsort(keys, (size_t)ngot, sizeof *keys, cmp_member_key);
    for (int64_t a = 0, b; a < ngot; a = b) {
      int32_t low = got[keys[a].at].member;
      for (b = a; b < ngot && keys[b].set == keys[a].set && keys[b].node == keys[a].node; b++)
        if (got[keys[b].at].member < low) low = got[keys[b].at].member;
      for (int64_t c = a; c < b; c++) got[keys[c].at].member = low;
    }
    for (int r = 0, i = 0; r < size; r++)
      for (int64_t j = 0; j < rcount[r]; j++) src[i++] = r;
  }
reply:
  status = mxn__comm_send_items(comm, status, got, sizeof *got, status == MXN_OK ? ngot : 0, src,
                                (void **)&back, &nback, NULL);
  /* The answers come in the order this rank sent (by rendezvous rank, each
   * in sending order): walked the same way. */
  if (status == MXN_OK && nback == n) {
    int64_t k = 0;
    for (int r = 0; r < size; r++)
      for (int q = 0; q < pc->num_node_sets; q++) {
        mxn_piece_set_t *ps = &pc->node_sets[q];
        if (!ps->member) continue;
        for (int64_t i = 0; i < ps->n; i++)
          if (rendezvous_rank(pc->node_ids[ps->entries[i]], size) == r) ps->member[i] = back[k++].member;
      }
  } else if (status == MXN_OK) {
    status = MXN_ERR_MPI; /* an answer per entry sent, or the exchange went wrong */
  }
  free(out);
  free(dest);
  free(got);
  free(keys);
  free(src);
  free(back);
  free(rcount);
  return mxn__worst(comm, status);
}
