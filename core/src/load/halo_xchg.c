/* The per-step exchange of the ghosts' fields (halo.h): ghosts built
 * from their owners' records ask the owners once for the entries they
 * hold, and every step the owners send those entries' values. */
#include "load/halo.h"

#include "comm.h"

#include <stdint.h>

void mxn__halo_xchg_free(mxn__halo_xchg_t **px) {
  if (!px || !*px) return;
  mxn__halo_xchg_t *x = *px;
  free(x->send_off);
  free(x->recv_off);
  free(x->send_blk);
  free(x->recv_blk);
  free(x->send_at);
  free(x->recv_at);
  free(x->own_elems);
  free(x);
  *px = NULL;
}

/* Values a step moves per entry of block blk (-1: nodes): one per
 * variable the piece holds there. The same on every rank: the structure's
 * truth table and the load's selection decide which arrays exist. */
static int64_t vals_per_entry(const mxn_piece_t *pc, int blk) {
  int64_t n = 0;
  if (blk < 0) {
    for (int v = 0; pc->node_vars && v < pc->plan_num_node_vars; v++) n += pc->node_vars[v] != NULL;
  } else {
    const mxn_piece_block_t *pb = &pc->blocks[blk];
    for (int v = 0; pb->elem_vars && v < pc->plan_num_elem_vars; v++) n += pb->elem_vars[v] != NULL;
  }
  return n;
}

/* An owned element of a block by id: ids sorted with their positions. */
typedef struct {
  mxn_gid_t id;
  int64_t at;
} id_at_t;

int mxn__halo_xchg_build(MPI_Comm comm, const mxn_structure_t *s, const mxn_piece_t *pc,
                         int64_t own_nodes, const int64_t *own_elems, int *const *elem_owner,
                         mxn__halo_xchg_t **out, mxn_error_t *err) {
  int status = MXN_OK, size, rank, nb = pc->num_blocks;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  mxn__halo_xchg_t *x = NULL;
  int *src = NULL;
  int64_t *fill = NULL, *scnt = NULL, *rcnt = NULL;
  int64_t *req = NULL, *got = NULL, ngot = 0;
  id_at_t *ix = NULL;
  *out = NULL;
  mxn_error_t e;
  mxn_error_clear(&e);

  MXN_ALLOC(x, 1);
  x->size = size;
  x->own_nodes = own_nodes;
  MXN_ALLOC(x->own_elems, nb);
  for (int b = 0; b < nb; b++) x->own_elems[b] = own_elems[b];
  MXN_ALLOC(x->recv_off, size + 1);
  MXN_ALLOC(x->send_off, size + 1);
  /* What comes from where: every ghost element from its owner, every
   * ghost node from the owner of the first ghost element using it. */
  int64_t ngn = pc->num_nodes - own_nodes;
  MXN_ALLOC_RAW(src, ngn);
  for (int64_t v = 0; v < ngn; v++) src[v] = -1;
  for (int pass = 0; pass < 2; pass++) {
    for (int b = 0; b < nb; b++) {
      const mxn_piece_block_t *pb = &pc->blocks[b];
      int npe = s->blocks[b].nodes_per_elem;
      for (int64_t i = own_elems[b]; i < pb->num_elements; i++) {
        int o = elem_owner[b][i];
        if (o < 0 || o >= size || o == rank) {
          status = mxn_error_set(&e, MXN_ERR_INCONSISTENT, "rank %d: ghost element %lld has owner %d",
                                 rank, (long long)pb->elem_ids[i], o);
          goto done;
        }
        if (pass == 0) {
          x->recv_off[o + 1]++;
        } else {
          int64_t k = x->recv_off[o] + fill[o]++;
          x->recv_blk[k] = b;
          x->recv_at[k] = i;
          req[2 * k] = pb->elem_ids[i];
          req[2 * k + 1] = b;
        }
        const int64_t *ec = pb->conn + mxn__conn_at(pb, npe, i);
        for (int c = 0, m = mxn__conn_n(pb, npe, i); c < m; c++) {
          int64_t v = ec[c] - own_nodes;
          if (v < 0) continue;
          if (pass == 0 && src[v] < 0) {
            src[v] = o;
            x->recv_off[o + 1]++;
          } else if (pass == 1 && src[v] == o) {
            int64_t k = x->recv_off[o] + fill[o]++;
            x->recv_blk[k] = -1;
            x->recv_at[k] = ec[c];
            req[2 * k] = pc->node_ids[ec[c]];
            req[2 * k + 1] = -1;
            src[v] = -2 - o; /* asked once */
          }
        }
      }
    }
    if (pass == 0) {
      for (int64_t v = 0; v < ngn; v++)
        if (src[v] < 0) {
          status = mxn_error_set(&e, MXN_ERR_INCONSISTENT, "rank %d: ghost node %lld is in no ghost element",
                                 rank, (long long)pc->node_ids[own_nodes + v]);
          goto done;
        }
      for (int r = 0; r < size; r++) x->recv_off[r + 1] += x->recv_off[r];
      MXN_ALLOC_RAW(x->recv_blk, x->recv_off[size]);
      MXN_ALLOC_RAW(x->recv_at, x->recv_off[size]);
      MXN_ALLOC_RAW(req, 2 * x->recv_off[size]);
      MXN_ALLOC(fill, size);
      MXN_ALLOC(scnt, size);
      MXN_ALLOC(rcnt, size);
    }
  }
  for (int r = 0; r < size; r++) scnt[r] = 2 * (x->recv_off[r + 1] - x->recv_off[r]);
done:
  if (status != MXN_OK && !e.msg[0]) mxn_error_set(&e, status, "out of memory on rank %d", rank);
  if ((status = mxn_agree(comm, status, &e)) != MXN_OK) goto fail;
  if ((status = mxn__comm_exchange_i64(comm, MXN_OK, req, scnt, &got, &ngot, rcnt)) != MXN_OK) {
    mxn_error_set(&e, status, "rank %d: the ghost requests failed", rank);
    goto fail;
  }
  /* The entries asked of me, looked up among my own. */
  for (int r = 0; r < size; r++) x->send_off[r + 1] = x->send_off[r] + rcnt[r] / 2;
  int64_t ns = x->send_off[size];
  x->send_blk = mxn__malloc(((size_t)ns + 1) * sizeof *x->send_blk);
  x->send_at = mxn__malloc(((size_t)ns + 1) * sizeof *x->send_at);
  if (!x->send_blk || !x->send_at) status = mxn_error_set(&e, MXN_ERR_NOMEM, "out of memory on rank %d", rank);
  for (int b = 0; status == MXN_OK && b < nb; b++) {
    const mxn_piece_block_t *pb = &pc->blocks[b];
    free(ix);
    ix = mxn__malloc(((size_t)own_elems[b] + 1) * sizeof *ix);
    if (!ix) {
      status = mxn_error_set(&e, MXN_ERR_NOMEM, "out of memory on rank %d", rank);
      break;
    }
    for (int64_t i = 0; i < own_elems[b]; i++) ix[i] = (id_at_t){pb->elem_ids[i], i};
    if (mxn__radix_sort(ix, own_elems[b], sizeof *ix) != MXN_OK) {
      status = mxn_error_set(&e, MXN_ERR_NOMEM, "out of memory on rank %d", rank);
      break;
    }
    for (int64_t k = 0; k < ns; k++) {
      mxn_gid_t id = got[2 * k];
      int64_t blk = got[2 * k + 1], lo = 0, hi = own_elems[b];
      if (blk != b) continue;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ix[mid].id < id) lo = mid + 1;
        else hi = mid;
      }
      if (lo == own_elems[b] || ix[lo].id != id) {
        status = mxn_error_set(&e, MXN_ERR_INCONSISTENT, "rank %d: asked for element %lld of block "
                               "%lld, which it does not own", rank, (long long)id,
                               (long long)s->blocks[b].id);
        break;
      }
      x->send_blk[k] = b;
      x->send_at[k] = ix[lo].at;
    }
  }
  for (int64_t k = 0; status == MXN_OK && k < ns; k++) {
    mxn_gid_t id = got[2 * k];
    int64_t blk = got[2 * k + 1];
    if (blk >= 0 && blk < nb) continue;
    int64_t v = mxn__lower_bound(pc->node_ids, own_nodes, id);
    if (blk != -1 || v == own_nodes || pc->node_ids[v] != id) {
      status = mxn_error_set(&e, MXN_ERR_INCONSISTENT, "rank %d: asked for node %lld, which its "
                             "elements do not use", rank, (long long)id);
      break;
    }
    x->send_blk[k] = -1;
    x->send_at[k] = v;
  }
  if ((status = mxn_agree(comm, status, &e)) != MXN_OK) goto fail;
  *out = x;
  x = NULL;
fail:
  if (status != MXN_OK && err) *err = e;
  mxn__halo_xchg_free(&x);
  free(src);
  free(fill);
  free(scnt);
  free(rcnt);
  free(req);
  free(got);
  free(ix);
  return status;
}

int mxn__halo_xchg_run(MPI_Comm comm, const mxn__halo_xchg_t *x, mxn_piece_t *pc,
                       mxn_error_t *err) {
  int status = MXN_OK, size = x->size, rank, nb = pc->num_blocks;
  MPI_Comm_rank(comm, &rank);
  /* counts and offsets in bytes, 64-bit (comm.c) */
  int64_t *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
  int64_t *per = NULL;
  double *sbuf = NULL, *rbuf = NULL;
  mxn_error_t e;
  mxn_error_clear(&e);
  MXN_ALLOC(per, nb + 1); /* per[b + 1]: values per entry of block b; per[0] nodes */
  for (int b = -1; b < nb; b++) per[b + 1] = vals_per_entry(pc, b);
  MXN_ALLOC(sc, size);
  MXN_ALLOC(sd, size + 1);
  MXN_ALLOC(rc, size);
  MXN_ALLOC(rd, size + 1);
  const int64_t dsz = (int64_t)sizeof *sbuf;
  for (int r = 0; r < size; r++) {
    int64_t a = 0, z = 0;
    for (int64_t k = x->send_off[r]; k < x->send_off[r + 1]; k++) a += per[x->send_blk[k] + 1];
    for (int64_t k = x->recv_off[r]; k < x->recv_off[r + 1]; k++) z += per[x->recv_blk[k] + 1];
    sc[r] = a * dsz;
    rc[r] = z * dsz;
    sd[r + 1] = sd[r] + sc[r];
    rd[r + 1] = rd[r] + rc[r];
  }
  MXN_ALLOC_RAW(sbuf, sd[size] / dsz);
  MXN_ALLOC_RAW(rbuf, rd[size] / dsz);
  for (int64_t k = 0, w = 0; k < x->send_off[size]; k++) {
    int blk = x->send_blk[k];
    int64_t at = x->send_at[k];
    if (blk < 0) {
      for (int v = 0; v < pc->plan_num_node_vars; v++)
        if (pc->node_vars[v]) sbuf[w++] = pc->node_vars[v][at];
    } else {
      double **ev = pc->blocks[blk].elem_vars;
      for (int v = 0; ev && v < pc->plan_num_elem_vars; v++)
        if (ev[v]) sbuf[w++] = ev[v][at];
    }
  }
done:
  if (status != MXN_OK && !e.msg[0]) mxn_error_set(&e, status, "out of memory on rank %d", rank);
  if ((status = mxn_agree(comm, status, &e)) != MXN_OK) goto fail;
  if ((status = mxn__comm_alltoallv(comm, MXN_OK, sbuf, sc, sd, rbuf, rc, rd)) != MXN_OK) {
    mxn_error_set(&e, status, "rank %d: the ghost field exchange failed", rank);
    goto fail;
  }
  for (int64_t k = 0, w = 0; k < x->recv_off[size]; k++) {
    int blk = x->recv_blk[k];
    int64_t at = x->recv_at[k];
    if (blk < 0) {
      for (int v = 0; v < pc->plan_num_node_vars; v++)
        if (pc->node_vars[v]) pc->node_vars[v][at] = rbuf[w++];
    } else {
      double **ev = pc->blocks[blk].elem_vars;
      for (int v = 0; ev && v < pc->plan_num_elem_vars; v++)
        if (ev[v]) ev[v][at] = rbuf[w++];
    }
  }
fail:
  if (status != MXN_OK && err) *err = e;
  free(per);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(sbuf);
  free(rbuf);
  return status;
}
