/* The parallel MxN load (load.h): file domains in a distributed directory,
 * a partition that moves only ids, and each rank's piece read through the
 * greedy cover of its part. mxn_load_open() is a list of phases, each a
 * function below (the partition in load_partition.c, the ghost layers in
 * ghosts.c); the load's steps are read here too. */
#include "structure/ids.h"
#include "load/load_ctx.h"
#include "structure/nodecheck.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

static double now(void) { return mxn__load_now(); }

/* count_distinct's word to publish the element ids again (not a status:
 * positive, never returned from the load). */
#define MXN__IDS_AGAIN 1

void mxn_load_opts_init(mxn_load_opts_t *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->method = MXN_PART_FILES;
  o->imbalance_tol = 1.05;
  o->gap = -1;
}

const mxn_structure_t *mxn_load_structure(const mxn_load_t *ld) {
  return ld ? mxn_dataset_structure(ld->ds) : NULL;
}
const mxn_piece_t *mxn_load_piece(const mxn_load_t *ld) { return ld ? ld->piece : NULL; }
const mxn_load_halo_t *mxn_load_halo(const mxn_load_t *ld) { return ld ? ld->halo : NULL; }

int mxn_load_take_block(mxn_load_t *ld, int b, int64_t **conn, mxn_gid_t **elem_ids) {
  if (conn) *conn = NULL;
  if (elem_ids) *elem_ids = NULL;
  if (!ld || !ld->piece || b < 0 || b >= ld->piece->num_blocks)
    return MXN_ERR_ARG;
  /* A re-balance rebuilds the piece from its mesh; a poly block's entries
   * go with offsets that stay in the piece. */
  if (ld->dynamic || mxn_dataset_structure(ld->ds)->blocks[b].poly) return MXN_ERR_ARG;
  mxn_piece_block_t *pb = &ld->piece->blocks[b];
  if (conn) {
    *conn = pb->conn;
    pb->conn = NULL;
  }
  if (elem_ids) {
    *elem_ids = pb->elem_ids;
    pb->elem_ids = NULL;
  }
  return MXN_OK;
}
mxn_load_stats_t mxn_load_stats(const mxn_load_t *ld) {
  mxn_load_stats_t z;
  memset(&z, 0, sizeof z);
  return ld ? ld->st : z;
}

void mxn_load_close(mxn_load_t **pld) {
  if (!pld || !*pld) return;
  mxn_load_t *ld = *pld;
  mxn__load_halo_free(ld->halo, ld->piece ? ld->piece->num_blocks : 0);
  mxn__halo_xchg_free(&ld->hx);
  mxn__entity_owners_free(&ld->ef_owners);
  mxn_piece_destroy(&ld->piece);
  mxn_directory_destroy(&ld->dir);
  free(ld->node_sel);
  free(ld->elem_sel);
  for (int t = 0; t < 3; t++) mxn_idset_free(&ld->set_ents[t]);
  free(ld->set_ents_mask);
  free(ld->shown_blocks);
  free(ld->str);
  free(ld->str_perm);
  free(ld->dcache);
  mxn_dataset_destroy(&ld->ds);
  if (ld->comm != MPI_COMM_NULL) MPI_Comm_free(&ld->comm);
  free(ld);
  *pld = NULL;
}

/* Is the element at position `pos` of member `file` in a selected block? */
static int block_selected(const mxn_dataset_t *ds, const int *selection, int file, int64_t pos) {
  if (!selection) return 1;
  const mxn__span_t *run = mxn__span_at(&mxn__file_held(ds, file)->kb[MXN__ELEM], pos); /* held: its domain is */
  return run && selection[run->b] != 0;
}

/* ------------------------------------------------------------------ */
/* The phases of mxn_load_open(), in order; each takes the context,      */
/* agrees on its status (or hands it to the next phase, as said) and    */
/* times itself into the load's stats.                                  */


/* Open: the options checked, the dataset's structure read collectively
 * (unless `given`, already open). Sets M, fbeg, fend and path. */
static int phase_open(mxn__load_ctx_t *c, mxn_dataset_t *given, double t0) {
  mxn_load_t *ld = c->ld;
  const mxn_load_opts_t *opts = c->opts;
  mxn_error_t *e = c->e;
  int status = MXN_OK, N = c->N, R = c->R;
  if (opts->imbalance_tol != 0 && opts->imbalance_tol < 1.0)
    status = mxn_error_set(e, MXN_ERR_ARG, "imbalance tolerance %g is below 1", opts->imbalance_tol);
  if (status == MXN_OK && (opts->ghost_levels < 0 || opts->ghost_levels > 100))
    status = mxn_error_set(e, MXN_ERR_ARG, "ghost levels %d is outside 0..100", opts->ghost_levels);
  if (status == MXN_OK && !given) status = mxn_dataset_create(&ld->ds);
  if (status != MXN_OK && !e->msg[0]) mxn_error_set(e, status, "cannot create a dataset on rank %d", R);
  if (status == MXN_OK && !given && opts->members &&
      (status = mxn_dataset_select_members(ld->ds, opts->members)) != MXN_OK)
    mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ld->ds));
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) return status;
  if (!given && (status = mxn__dataset_open_members(ld->comm, ld->ds, c->path, e)) != MXN_OK) return status;
  if (given) c->path = mxn_dataset_file_path(ld->ds, 0);
  c->M = mxn_dataset_structure(ld->ds)->num_files;
  c->fbeg = (int)((int64_t)R * c->M / N);
  c->fend = (int)((int64_t)(R + 1) * c->M / N);
  ld->st.seconds_open = now() - t0;
  return MXN_OK;
}

/* The element ids of my members (fbeg..fend-1) with their member and
 * position, in file position order (so the "files" string follows the
 * files): c->pub_*. Collective; errors agreed. */
static int publish_domains(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  mxn_dataset_t *ds = ld->ds;
  mxn_error_t *e = c->e;
  int status = MXN_OK;
  for (int j = c->fbeg; j < c->fend && status == MXN_OK; j++) {
    const mxn_file_domain_t *d;
    if ((status = mxn_dataset_file_domain(ds, j, &d)) != MXN_OK) break;
    c->npub += d->elems.n;
  }
  if (status != MXN_OK) mxn_error_set(e, status, "%s", mxn_dataset_errmsg(ds));
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) return status;
  c->pub_ids = mxn__malloc(((size_t)c->npub + 1) * sizeof *c->pub_ids);
  c->pub_file = mxn__malloc(((size_t)c->npub + 1) * sizeof *c->pub_file);
  c->pub_pos = mxn__malloc(((size_t)c->npub + 1) * sizeof *c->pub_pos);
  if (!c->pub_ids || !c->pub_file || !c->pub_pos) status = mxn_error_set(e, MXN_ERR_NOMEM, "out of memory");
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) return status;
  int64_t k = 0;
  for (int j = c->fbeg; j < c->fend; j++) {
    const mxn_file_domain_t *d = mxn__file_dom(ds, j);
    for (int64_t q = 0; q < d->num_elements; q++) {
      c->pub_ids[k] = d->elem_map[q];
      c->pub_file[k] = j;
      c->pub_pos[k] = q;
      k++;
    }
  }
  return MXN_OK;
}

/* Whether each id is stored once over the set (c->unique), and the set's
 * own count of its elements (Nemesis) against the distinct ids: a count
 * the members do not bear out is a warning (mxn__hint_elements), unless
 * it shows one id given to several elements (ids.c). The same answer on
 * every rank. Collective; errors agreed. */
static int count_distinct(mxn__load_ctx_t *c, int64_t *ndistinct) {
  mxn_load_t *ld = c->ld;
  mxn_dataset_t *ds = ld->ds;
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  mxn_error_t *e = c->e;
  int status = MXN_OK;
  int64_t distinct = 0, total = 0;
  mxn_gid_t dup = -1;
  int32_t fa = -1, fb = -1;
  if ((status = mxn_directory_distinct(c->dir, &distinct, &dup, &fa, &fb, e)) != MXN_OK) return status;
  total = c->npub;
  if ((status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__SUM, &total, 1)) != MXN_OK)
    return mxn_error_set(e, status, "counting the published ids failed");
  c->unique = distinct == total;
  *ndistinct = distinct;
  /* Fewer distinct ids than the set declares means one id was given to
   * two elements. */
  int declared = s->num_elements_global >= 0;
  /* Members that, by their Nemesis counts, store each element once but
   * repeat an id: numbered by member and position instead (ids.c); the
   * caller publishes them again. */
  if (declared && distinct != s->num_elements_global && dup >= 0 && fa >= 0 && fb >= 0 &&
      s->num_elements_sum == s->num_elements_global &&
      !(s->id_fallback & MXN_IDS_ELEM_BY_POSITION)) {
    mxn__ids_elems_repeated(ds, fb, fa, dup,
                            "where the Nemesis global counts say each element is stored once");
    return MXN__IDS_AGAIN;
  }
  /* Otherwise the count is a writer's hint, checked by the caller once
   * the ids are settled. */
  return mxn_agree(ld->comm, status, e);
}

/* Directory: my members' element domains published in the distributed
 * directory (global id -> member, position), whether ids are stored
 * once. Collective; errors agreed. */
static int phase_directory(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  const mxn_load_opts_t *opts = c->opts;
  int status;
  double t1 = now();
  if ((status = publish_domains(c)) != MXN_OK) return status;
  if ((status = mxn_directory_create(ld->comm, c->npub, c->pub_ids, c->pub_file, c->pub_pos,
                                     &c->dir, c->e)) != MXN_OK)
    return status;
  /* Ids stored once over the set (members that do not overlap, the usual
   * case): each element's initial owner is the member that published it
   * and the partition carries each id's member along, so neither the
   * owners' nor the part's directory query is needed. */
  int64_t distinct = -1;
  status = count_distinct(c, &distinct);
  /* Ids stored in several members: one element stored twice (an
   * overlap), or one id given to several elements (ids.c)? */
  if (status == MXN_OK && !c->unique &&
      !(mxn_dataset_structure(ld->ds)->id_fallback & MXN_IDS_ELEM_BY_POSITION)) {
    mxn__copy_t *rep = NULL;
    int64_t nrep = 0;
    int again = 0;
    status = mxn__directory_repeats(c->dir, &rep, &nrep);
    if (status != MXN_OK) mxn_error_set(c->e, status, "rank %d: out of memory", c->R);
    if ((status = mxn_agree(ld->comm, status, c->e)) == MXN_OK)
      status = mxn__ids_check_overlap(ld->comm, ld->ds, rep, nrep, &again, c->e);
    free(rep);
    if (status == MXN_OK && again) status = MXN__IDS_AGAIN;
  }
  if (status == MXN__IDS_AGAIN) {
    MXN_FREE(c->pub_ids);
    MXN_FREE(c->pub_file);
    MXN_FREE(c->pub_pos);
    c->npub = 0;
    mxn_directory_destroy(&c->dir);
    if ((status = publish_domains(c)) != MXN_OK) return status;
    if ((status = mxn_directory_create(ld->comm, c->npub, c->pub_ids, c->pub_file, c->pub_pos,
                                       &c->dir, c->e)) != MXN_OK)
      return status;
    status = count_distinct(c, &distinct);
  }
  if (status != MXN_OK) return status;
  /* The Nemesis element count is a writer's hint (a framework that adapted
   * the mesh may leave it stale): checked against the settled ids, said
   * once, not trusted. The same on every rank (distinct is global). */
  if (mxn_dataset_structure(ld->ds)->num_elements_global >= 0 &&
      distinct != mxn_dataset_structure(ld->ds)->num_elements_global)
    mxn__hint_elements(ld->ds, distinct);
  /* Nothing below queries the directory of a set whose ids are stored
   * once, unless a re-balance keeps it or the ghosts are read through the
   * id maps: its memory goes before the piece's arrives. */
  if (c->unique && !opts->dynamic &&
      (opts->ghost_levels == 0 || mxn__halo_from_owners(mxn_dataset_structure(ld->ds))))
    mxn_directory_destroy(&c->dir);
  ld->st.seconds_directory = now() - t1;
  return MXN_OK;
}

/* Ids: whether the members' id maps can be trusted (no member repeats an
 * id, a node id several members store has the same coordinates in each),
 * and the fallbacks when not (ids.c); before the directory, which
 * publishes the element ids it settles. Timed and counted as the
 * shared-node check, which it runs. Collective; errors agreed. */
static int phase_ids(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  double tc = now();
  mxn_io_counters_t cc = c->c0 = mxn_dataset_counters(ld->ds);
  int status = mxn__ids_settle(ld->comm, ld->ds, c->fbeg, c->fend, c->e);
  if (status != MXN_OK) return status;
  ld->st.check_bytes_read = mxn_dataset_counters(ld->ds).check_bytes_read - cc.check_bytes_read;
  ld->st.seconds_check = now() - tc;
  return MXN_OK;
}

/* A node id several members store has the same coordinates in each (run
 * by phase_ids already, unless the dataset came settled).
 * Collective; errors agreed. */
static int phase_check_nodes(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  double tc = now();
  mxn_io_counters_t cc = mxn_dataset_counters(ld->ds);
  int status = mxn__check_shared_nodes(ld->comm, ld->ds, c->fbeg, c->fend, c->e);
  if (status != MXN_OK) return status;
  ld->st.check_bytes_read += mxn_dataset_counters(ld->ds).check_bytes_read - cc.check_bytes_read;
  ld->st.seconds_check += now() - tc;
  return MXN_OK;
}

/* Initial owners: an element held by several files belongs, for now, to
 * the owner of the lowest of them; of those, the elements of selected
 * blocks go to the partition (c->ids0, c->file0; c->part allocated).
 * Collective (the query, whose errors are agreed); an allocation that
 * fails here is not agreed but left in *pending: the partition's first
 * agreement covers it (the others would wait in its exchanges). */
static int phase_owners(mxn__load_ctx_t *c, int *pending) {
  mxn_load_t *ld = c->ld;
  mxn_dataset_t *ds = ld->ds;
  int status = MXN_OK;
  double t1 = now();
  int32_t *qfile = NULL;
  int64_t *qoff = NULL, *qpos = NULL, npub = c->npub;
  /* A selection of every block (the reader's default) selects nothing
   * out: no lookup of each element's block. */
  const int *sel = c->opts->block_selection;
  int every = sel != NULL;
  for (int b = 0; every && b < ds->s.num_blocks; b++) every = sel[b] != 0;
  if (every) sel = NULL;
  /* Elements of unselected blocks that a side set or element set names go
   * to the partition too: a set is shown whole whatever blocks are
   * selected (as IOSSReader shows it), and a side is made from its
   * element. The elements are in the piece, their blocks not shown. */
  char **named = NULL;
  if (sel) {
    named = mxn__calloc((size_t)(c->fend - c->fbeg) + 1, sizeof *named);
    if (!named) status = mxn_error_set(c->e, MXN_ERR_NOMEM, "rank %d: out of memory", c->R);
    for (int j = c->fbeg; status == MXN_OK && j < c->fend; j++) {
      int64_t ne = mxn__file_dom(ds, j)->num_elements;
      named[j - c->fbeg] = mxn__calloc((size_t)ne + 1, 1);
      if (!named[j - c->fbeg]) status = mxn_error_set(c->e, MXN_ERR_NOMEM, "rank %d: out of memory", c->R);
      else if ((status = mxn__member_set_elems(ds, j, named[j - c->fbeg], ne)) != MXN_OK)
        mxn_error_set(c->e, status, "%s", mxn_dataset_errmsg(ds));
    }
      /* kept to count the shown elements apart from the carried ones */
    ld->shown_blocks = mxn__malloc(((size_t)ds->s.num_blocks + 1) * sizeof *ld->shown_blocks);
    if (status == MXN_OK && !ld->shown_blocks)
      status = mxn_error_set(c->e, MXN_ERR_NOMEM, "rank %d: out of memory", c->R);
    if (ld->shown_blocks) memcpy(ld->shown_blocks, sel, (size_t)ds->s.num_blocks * sizeof *sel);
    if ((status = mxn_agree(ld->comm, status, c->e)) != MXN_OK) goto out;
  }
  if (!c->unique) {
    status = mxn_directory_query(c->dir, npub, c->pub_ids, &qoff, &qfile, &qpos, c->e);
    if (status != MXN_OK) goto out;
  }
  c->ids0 = mxn__malloc(((size_t)npub + 1) * sizeof *c->ids0);
  c->file0 = mxn__malloc(((size_t)npub + 1) * sizeof *c->file0);
  c->part = mxn__malloc(((size_t)npub + 1) * sizeof *c->part);
  if (!c->ids0 || !c->file0 || !c->part)
    status = mxn_error_set(c->e, MXN_ERR_NOMEM, "rank %d: out of memory for %lld element ids", c->R,
                           (long long)npub);
  for (int64_t k = 0; status == MXN_OK && k < npub; k++)
    if ((c->unique || (qoff[k + 1] > qoff[k] && qfile[qoff[k]] == c->pub_file[k] &&
                       qpos[qoff[k]] == c->pub_pos[k])) &&
        (block_selected(ds, sel, c->pub_file[k], c->pub_pos[k]) ||
         named[c->pub_file[k] - c->fbeg][c->pub_pos[k]])) {
      c->file0[c->n0] = c->pub_file[k];
      c->ids0[c->n0++] = c->pub_ids[k];
    }
  free(qoff);
  free(qfile);
  free(qpos);
  /* The published lists are done with (the directory holds its own copy):
   * what a load no longer needs goes before the piece is read, so the
   * piece's arrays reuse that memory rather than new pages. */
  MXN_FREE(c->pub_ids);
  MXN_FREE(c->pub_file);
  MXN_FREE(c->pub_pos);
  *pending = status;
  ld->st.seconds_directory += now() - t1;
  status = MXN_OK;
out:
  for (int j = c->fbeg; named && j < c->fend; j++) free(named[j - c->fbeg]);
  free(named);
  return status;
}

/* The members holding my part (c->mask): where each id is stored once,
 * every member holding any of it; else the greedy cover of P by the
 * members' intersections with it. Local; the caller agrees. */
static int choose_members(mxn__load_ctx_t *c, const int64_t *qoff, const int32_t *qfile) {
  mxn_load_t *ld = c->ld;
  mxn_error_t *e = c->e;
  int status = MXN_OK, M = c->M, unique = c->unique;
  mxn_idset_t *F = NULL;
  mxn_cover_t cov;
  memset(&cov, 0, sizeof cov);
  /* F_j ∩ P for every file j that holds some of P. Where each id is
   * stored once, every F_j is disjoint from the others and the greedy
   * cover takes each non-empty one: the mask is the members holding any
   * of P, without the cover's intersections (59 of the load's 252 M
   * instructions in intersections, one rank reading 1M hex in 64
   * members). */
  c->mask = mxn__calloc((size_t)M + 1, sizeof *c->mask);
  int64_t *cnt = mxn__calloc((size_t)M + 1, sizeof *cnt);
  F = unique ? NULL : mxn__calloc((size_t)M + 1, sizeof *F);
  if (!c->mask || !cnt || (!unique && !F)) status = MXN_ERR_NOMEM;
  for (int64_t i = 0; status == MXN_OK && i < qoff[c->P.n]; i++) cnt[qfile[i]]++;
  for (int j = 0; status == MXN_OK && j < M; j++) {
    if (cnt[j] > 0) ld->st.files_overlapping++;
    if (unique) {
      c->mask[j] = cnt[j] > 0;
      continue;
    }
    F[j].ids = cnt[j] ? mxn__malloc((size_t)cnt[j] * sizeof *F[j].ids) : NULL;
    if (cnt[j] && !F[j].ids) status = MXN_ERR_NOMEM;
  }
  free(cnt);
  if (!unique) {
    const mxn_idset_t *P = &c->P;
    for (int64_t k = 0; k < P->n && status == MXN_OK; k++)
      for (int64_t i = qoff[k]; i < qoff[k + 1]; i++) F[qfile[i]].ids[F[qfile[i]].n++] = P->ids[k];
    if (status == MXN_OK) status = mxn__cover_greedy(P, F, M, 0, &cov);
    if (status == MXN_OK && cov.uncovered.n > 0)
      status = mxn_error_set(e, MXN_ERR_NOTFOUND, "element %lld is in no file of %s",
                             (long long)cov.uncovered.ids[0], c->path);
    for (int k = 0; status == MXN_OK && k < cov.nparts; k++) c->mask[cov.parts[k].file] = 1;
  }
  if (status == MXN_ERR_NOMEM)
    mxn_error_set(e, status, "rank %d: out of memory choosing the files to read", c->R);
  for (int j = 0; F && j < M; j++) free(F[j].ids);
  free(F);
  mxn_cover_free(&cov);
  return status;
}

/* Cover: where my part's elements are (their members came along, or the
 * directory says), and the members to read them from (c->mask).
 * `status`: the partition's, not yet agreed. Collective; errors agreed. */
static int phase_cover(mxn__load_ctx_t *c, int status) {
  mxn_load_t *ld = c->ld;
  mxn_error_t *e = c->e;
  int R = c->R;
  int32_t *qfile = NULL;
  int64_t *qoff = NULL, *qpos = NULL;
  c->t_cover = now();
  if (status == MXN_OK) status = mxn_idset_from_array(c->pids, c->nmine, &c->P);
  if (status != MXN_OK) mxn_error_set(e, status, "rank %d: out of memory sorting its part", R);
  /* agreed before the collective query, so no rank skips it alone */
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  if (c->unique) {
    /* each id once, with the member it came with (mine: sorted like P) */
    qoff = mxn__malloc(((size_t)c->P.n + 1) * sizeof *qoff);
    qfile = mxn__malloc(((size_t)c->P.n + 1) * sizeof *qfile);
    status = qoff && qfile ? MXN_OK : mxn_error_set(e, MXN_ERR_NOMEM, "rank %d: out of memory", R);
    if (status == MXN_OK && c->P.n != c->nmine)
      status = mxn_error_set(e, MXN_ERR_INCONSISTENT, "rank %d: an element id reached it twice", R);
    for (int64_t k = 0; status == MXN_OK && k < c->P.n; k++) {
      qoff[k] = k;
      qfile[k] = c->mine[k].file;
    }
    if (status == MXN_OK) qoff[c->P.n] = c->P.n;
  } else {
    status = mxn_directory_query(c->dir, c->P.n, c->P.ids, &qoff, &qfile, &qpos, e);
  }
  if ((status = mxn_agree(ld->comm, status, e)) != MXN_OK) goto done;
  /* (a failure choosing is agreed here: no collective call comes before) */
  status = choose_members(c, qoff, qfile);
  status = mxn_agree(ld->comm, status, e);
done:
  /* The cover is decided (mask): its inputs go before the piece is read. */
  MXN_FREE(c->mine);
  MXN_FREE(c->pids);
  free(qoff);
  free(qfile);
  free(qpos);
  return status;
}

/* Read: my piece, extracted from the members of the cover alone, with
 * room for the ghost layers that follow. Collective; errors agreed. */
static int phase_read(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  const mxn_load_opts_t *opts = c->opts;
  mxn_dataset_t *ds = ld->ds;
  int status;
  c->c1 = mxn_dataset_counters(ds);
  mxn_extract_opts_t xo;
  memset(&xo, 0, sizeof xo);
  xo.gap = opts->gap >= 0 ? opts->gap : 64;
  xo.gap_share = MXN__GAP_SHARE;
  xo.file_mask = c->mask;
  if (opts->ghost_levels > 0 && c->P.n > 0) {
    /* Room for the ghost layers, appended next: about L times the
     * surface of a compact piece, 6 n^(2/3) cells of n. */
    double r = 6.0 * opts->ghost_levels / cbrt((double)c->P.n);
    xo.reserve = r < 1 ? r : 1;
  }
  xo.node_var_mask = opts->node_var_selection;
  xo.elem_var_mask = opts->elem_var_selection;
  if ((status = mxn_extract(ds, &c->P, &xo, &ld->piece)) != MXN_OK)
    mxn_error_set(c->e, status, "%s", mxn_dataset_errmsg(ds));
  if ((status = mxn_agree(ld->comm, status, c->e)) != MXN_OK) return status;
  ld->st.seconds_plan = now() - c->t_cover;
  ld->st.seconds_piece_read = mxn_dataset_counters(ds).seconds_reading - c->c1.seconds_reading;
  return MXN_OK;
}

/* Set nodes: the nodes a node set lists that no piece holds (of
 * unselected blocks only, or of no element), each read by one rank
 * (load_sets.c). Timed with the read. Collective; errors agreed. */
static int phase_set_nodes(mxn__load_ctx_t *c) {
  const mxn_load_opts_t *opts = c->opts;
  int64_t gap = opts->gap >= 0 ? opts->gap : 64;
  int status = mxn__load_set_nodes(c->ld, c->fbeg, c->fend, gap, opts->node_var_selection,
                                   opts->elem_var_selection, c->e);
  c->ld->st.seconds_plan = now() - c->t_cover;
  c->ld->st.seconds_piece_read =
      mxn_dataset_counters(c->ld->ds).seconds_reading - c->c1.seconds_reading;
  return status;
}

/* Ghosts: the halo layers around my piece (opts->ghost_levels).
 * Collective; errors agreed. */
static int phase_ghosts(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  const mxn_load_opts_t *opts = c->opts;
  /* The members' id maps served the partition and the cover; time steps
   * go by the plan and the halo schedule. Without re-balances nothing asks
   * for them again (and what would, reads them anew), and they grow with
   * the mesh. Ghost layers built from their owners' records need them
   * neither, so they go before the layers are made, off the rank's
   * high-water; layers read through the id maps drop them after. */
  c->drop_early = !opts->dynamic && mxn__halo_from_owners(mxn_dataset_structure(ld->ds));
  if (c->drop_early) mxn__dataset_drop_domains(ld->ds);
  if (opts->ghost_levels > 0) {
    double tg = now();
    int status = mxn__load_halo(ld, opts, c->dir, -1, c->e);
    if (status != MXN_OK) return status;
    ld->st.seconds_ghost = now() - tg;
  }
  return MXN_OK;
}

/* What the piece itself needs from the files: its entries with their
 * numbered-map values; no gaps, no id maps, no sets, not the ghosts
 * their owners sent. */
static int64_t piece_bytes_needed(const mxn_structure_t *s, const mxn_piece_t *pc,
                                  const mxn__halo_xchg_t *hx) {
  int64_t own_nodes = hx ? hx->own_nodes : pc->num_nodes;
  int64_t b = own_nodes * (s->num_dim + pc->num_node_maps) * (int64_t)sizeof(double);
  /* Blocks of every kind: node, edge and face references (poly blocks:
   * their references and one count per entry), attributes. */
  for (int kind = 0; kind < MXN__NBK; kind++) {
    int nb;
    const mxn_block_info_t *sb = mxn__sblocks(s, kind, &nb);
    const mxn_piece_block_t *pbs = mxn__pblocks(pc, kind, &nb);
    for (int k = 0; k < nb; k++) {
      const mxn_piece_block_t *pb = &pbs[k];
      int64_t ne = hx && kind == MXN__ELEM ? hx->own_elems[k] : pb->num_elements;
      int nmaps = kind == MXN__ELEM   ? pc->num_elem_maps
                  : kind == MXN__EDGE ? pc->num_edge_maps
                                      : pc->num_face_maps;
      int64_t refs = ne * (sb[k].nodes_per_elem + sb[k].edges_per_elem +
                           sb[k].faces_per_elem + sb[k].num_attr + nmaps);
      if (sb[k].poly == MXN_POLY_NSIDED && pb->conn_off)
        refs += pb->conn_off[pb->num_elements] + pb->num_elements;
      if (sb[k].poly == MXN_POLY_NFACED && pb->face_off)
        refs += pb->face_off[pb->num_elements] + pb->num_elements;
      b += refs * (int64_t)sizeof(double);
    }
  }
  return b;
}

/* Hints: a writer's hint that one rank's read found wrong (a set's count
 * of distribution factors in a member only that rank read) is said alike
 * on every rank, so the rank that reports it (the plugin's first, the
 * CLI's) has it: the lowest finding rank's, the first a rank noted.
 * Collective. */
static int phase_hints(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  char *w = ld->ds->s.hint_warning;
  int64_t who = w[0] ? c->R : INT64_MAX;
  int status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__MIN, &who, 1);
  if (status == MXN_OK && who != INT64_MAX)
    status = mxn__comm_bcast(ld->comm, MXN_OK, (int)who, w, (int64_t)sizeof ld->ds->s.hint_warning);
  if (status != MXN_OK)
    mxn_error_set(c->e, status, "rank %d: cannot agree on the writers' hints", c->R);
  return status;
}

void mxn__load_count_owned(mxn_load_t *ld) {
  const mxn_piece_t *pc = ld->piece;
  const mxn_load_halo_t *h = ld->halo;
  int64_t shown = 0, carried = 0;
  for (int b = 0; pc && b < pc->num_blocks; b++) {
    int64_t n = pc->blocks[b].num_elements;
    if (h && h->elem_depth && h->elem_depth[b]) {
      n = 0;
      for (int64_t k = 0; k < pc->blocks[b].num_elements; k++) n += h->elem_depth[b][k] == 0;
    }
    if (!ld->shown_blocks || ld->shown_blocks[b]) shown += n;
    else carried += n;
  }
  ld->st.owned_elements = shown;
  ld->st.carried_elements = carried;
}

/* The load's figures: what was read, what the piece needs, the totals
 * and the imbalance over the ranks. Collective (reductions). */
static int phase_stats(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  const mxn_piece_t *pc = ld->piece;
  mxn_io_counters_t c2 = mxn_dataset_counters(ld->ds);
  ld->st.cover_files = pc->stats.files_in_cover;
  ld->st.num_nodes = pc->num_nodes;
  ld->st.bytes_read = mxn__data_bytes(c2) - mxn__data_bytes(c->c1);
  ld->st.map_bytes_read = c2.map_bytes_read - c->c0.map_bytes_read;
  ld->st.set_bytes_read = c2.set_bytes_read - c->c0.set_bytes_read;
  ld->st.read_calls = c2.read_calls - c->c0.read_calls;
  ld->st.files_opened = c2.files_opened;
  ld->st.bytes_decompressed = c2.bytes_decompressed - c->c0.bytes_decompressed;
  ld->st.seconds_io = c2.seconds_reading - c->c0.seconds_reading;
  ld->st.bytes_needed = piece_bytes_needed(s, pc, ld->hx);
  ld->st.metadata_bytes = mxn__dataset_metadata_bytes(ld->ds);
  mxn__load_count_owned(ld);
  ld->st.total_elements = ld->st.owned_elements;
  /* in the scaled units, where sums of huge weights stay finite */
  double mx = c->ow_scaled, sum = c->ow_scaled;
  int status = mxn__comm_reduce_i64(ld->comm, MXN_OK, MXN__SUM, &ld->st.total_elements, 1);
  if (status == MXN_OK) status = mxn__comm_reduce_f64(ld->comm, status, MXN__MAX, &mx, 1);
  if (status == MXN_OK) status = mxn__comm_reduce_f64(ld->comm, status, MXN__SUM, &sum, 1);
  if (status != MXN_OK) return mxn_error_set(c->e, status, "summing the load's statistics failed");
  ld->st.imbalance = sum > 0 ? mx / (sum / c->N) : 1.0;
  ld->st.seconds_read = now() - c->t_cover;
  return MXN_OK;
}

/* Keep: with opts->dynamic, what a later re-balance needs (the directory
 * and the options); else the id maps go if the ghosts kept them.
 * Collective; errors agreed. */
static int phase_keep(mxn__load_ctx_t *c) {
  mxn_load_t *ld = c->ld;
  const mxn_load_opts_t *opts = c->opts;
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  int status = MXN_OK;
  if (!opts->dynamic) {
    if (!c->drop_early) mxn__dataset_drop_domains(ld->ds); /* the layers were read through them */
    return MXN_OK;
  }
  ld->dynamic = 1;
  ld->dir = c->dir;
  c->dir = NULL;
  ld->o = *opts;
  ld->o.block_selection = NULL; /* used up: the partition is done */
  ld->o.map_file = NULL;
  ld->o.weight_field = NULL;
  ld->o.block_weights = NULL;
  if (opts->node_var_selection) {
    ld->node_sel = mxn__malloc(((size_t)s->num_node_vars + 1) * sizeof *ld->node_sel);
    if (ld->node_sel) memcpy(ld->node_sel, opts->node_var_selection, (size_t)s->num_node_vars * sizeof(int));
    else status = MXN_ERR_NOMEM;
  }
  if (opts->elem_var_selection) {
    ld->elem_sel = mxn__malloc(((size_t)s->num_elem_vars + 1) * sizeof *ld->elem_sel);
    if (ld->elem_sel) memcpy(ld->elem_sel, opts->elem_var_selection, (size_t)s->num_elem_vars * sizeof(int));
    else status = MXN_ERR_NOMEM;
  }
  ld->o.node_var_selection = ld->node_sel;
  ld->o.elem_var_selection = ld->elem_sel;
  if (status != MXN_OK) mxn_error_set(c->e, status, "out of memory on rank %d", c->R);
  return mxn_agree(ld->comm, status, c->e);
}

/* Members are kept open only while needed (member.c, mxn__members_keep).
 * Once the cover is known, the members this rank summarised or published
 * domains from but does not read are closed, unless ghost layers are read
 * through the id maps next (they may read those members again). */
static void close_outside_cover(mxn__load_ctx_t *c) {
  const mxn_load_opts_t *opts = c->opts;
  mxn_dataset_t *ds = c->ld->ds;
  if (!c->mask || (opts->ghost_levels > 0 && !mxn__halo_from_owners(mxn_dataset_structure(ds))))
    return;
  mxn__members_keep(ds, c->mask, 0);
}

/* At the end of a load that is not re-balanced, the netCDF-3 members the
 * plan reads at each step (its segments' and sets' members, and the one
 * of the global variables when member 0's summary did not keep them) stay
 * open for the steps; every other member is closed, netCDF-4 ones too
 * (mxn__members_keep: the steps open those they read again, holding only
 * the datasets of the step values). A member needed again later is
 * opened again. */
static void keep_step_members(mxn_load_t *ld) {
  mxn_dataset_t *ds = ld->ds;
  const mxn__plan_t *plan = ld->piece ? ld->piece->plan : NULL;
  char *need = plan ? mxn__calloc((size_t)ds->nfiles + 1, 1) : NULL;
  if (!need) return; /* all stay open, as they are */
  for (int i = 0; i < plan->nnode_seg; i++) need[plan->node_seg[i].file] = 1;
  for (int k = 0; k < MXN__NBK; k++)
    for (int i = 0; i < plan->nseg[k]; i++) need[plan->seg[k][i].file] = 1;
  for (int sk = 0; sk < MXN__NSK; sk++)
    for (int q = 0; q < plan->nsets[sk]; q++)
      for (int64_t i = 0; i < plan->set_src[sk][q].n; i++) need[plan->set_src[sk][q].file[i]] = 1;
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  if (s->num_global_vars > 0 && !(ds->glob_vals && ds->glob_nvars == s->num_global_vars))
    for (int d = 0; d < s->num_global_vars; d++) {
      int j = mxn__global_source(ds, d);
      if (j >= 0) need[j] = 1; /* (a failure is the step's to report) */
    }
  mxn__members_keep(ds, need, 1);
  free(need);
}

static void ctx_free(mxn__load_ctx_t *c) {
  mxn_directory_destroy(&c->dir);
  free(c->pub_ids);
  free(c->pub_file);
  free(c->pub_pos);
  free(c->ids0);
  free(c->file0);
  free(c->w0);
  free(c->part);
  free(c->mine);
  free(c->pids);
  mxn_idset_free(&c->P);
  free(c->mask);
}

/* mxn_load_open() and mxn_load_open_dataset(): `given` is a dataset
 * already opened collectively (taken over, destroyed on failure), or NULL
 * to open `path`. */
static int load_open(MPI_Comm comm, const char *path, mxn_dataset_t *given,
                     const mxn_load_opts_t *opts, mxn_load_t **out, mxn_error_t *err) {
  mxn_load_opts_t defaults;
  mxn_load_opts_init(&defaults);
  if (!opts) opts = &defaults;
  if (!out) {
    mxn_dataset_destroy(&given);
    return mxn_error_set(err, MXN_ERR_ARG, "mxn_load_open: no output handle");
  }
  *out = NULL;
  int status = MXN_OK;
  mxn_error_t e;
  mxn_error_clear(&e);
  double t0 = now();
  mxn_load_t *ld = mxn__calloc(1, sizeof *ld);
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) status = mxn_error_set(&e, MXN_ERR_MPI, "MPI_Comm_dup failed");
  if (!ld) {
    status = mxn_error_set(&e, MXN_ERR_NOMEM, "out of memory");
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    mxn_dataset_destroy(&given);
  } else {
    ld->comm = dup;
    ld->ds = given; /* the load's from here: closed with it */
  }
  if ((status = mxn_agree(comm, status, &e)) != MXN_OK) goto fail;
  mxn__load_ctx_t c;
  memset(&c, 0, sizeof c);
  c.ld = ld;
  c.opts = opts;
  c.e = &e;
  c.path = path;
  c.wscale = 1.0;
  MPI_Comm_rank(ld->comm, &c.R);
  MPI_Comm_size(ld->comm, &c.N);
  ld->rank = ld->st.rank = c.R;
  ld->size = ld->st.nranks = c.N;

  if ((status = phase_open(&c, given, t0)) != MXN_OK) goto done;
  if ((status = phase_ids(&c)) != MXN_OK) goto done;
  if ((status = phase_directory(&c)) != MXN_OK) goto done;
  if ((status = phase_check_nodes(&c)) != MXN_OK) goto done;
  int pending = MXN_OK; /* failed, not yet agreed: the next agreement tells */
  if ((status = phase_owners(&c, &pending)) != MXN_OK) goto done;
  if ((status = mxn__load_partition(&c, pending, &pending)) != MXN_OK) goto done;
  if ((status = phase_cover(&c, pending)) != MXN_OK) goto done;
  close_outside_cover(&c);
  if ((status = phase_read(&c)) != MXN_OK) goto done;
  if ((status = phase_set_nodes(&c)) != MXN_OK) goto done;
  if ((status = phase_ghosts(&c)) != MXN_OK) goto done;
  if ((status = mxn__load_entity_owners(ld, &e)) != MXN_OK) goto done;
  if ((status = mxn__agree_set_members(ld->comm, MXN_OK, ld->piece)) != MXN_OK) {
    mxn_error_set(&e, status, "rank %d: cannot agree on the members of node-set entries", c.R);
    goto done;
  }
  if ((status = phase_hints(&c)) != MXN_OK) goto done;
  if ((status = phase_stats(&c)) != MXN_OK) goto done;
  status = phase_keep(&c);
  if (status == MXN_OK && !ld->dynamic) keep_step_members(ld);
done:
  ctx_free(&c);
  if (status == MXN_OK) {
    *out = ld;
    return MXN_OK;
  }
fail:
  if (err) *err = e;
  mxn_load_close(&ld);
  return status;
}

int mxn_load_open(MPI_Comm comm, const char *path, const mxn_load_opts_t *opts, mxn_load_t **out,
                  mxn_error_t *err) {
  return load_open(comm, path, NULL, opts, out, err);
}

int mxn_load_open_dataset(MPI_Comm comm, mxn_dataset_t **ds, const mxn_load_opts_t *opts,
                          mxn_load_t **out, mxn_error_t *err) {
  mxn_error_t e;
  mxn_error_clear(&e);
  mxn_dataset_t *given = ds ? *ds : NULL;
  if (ds) *ds = NULL;
  int status = given && mxn_dataset_structure(given) && given->nfiles > 0
                   ? MXN_OK
                   : mxn_error_set(&e, MXN_ERR_ARG, "mxn_load_open_dataset: no open dataset given");
  if ((status = mxn_agree(comm, status, &e)) != MXN_OK) {
    mxn_dataset_destroy(&given);
    if (out) *out = NULL;
    if (err) *err = e;
    return status;
  }
  return load_open(comm, NULL, given, opts, out, err);
}

static int read_step(mxn_load_t *ld, int step, mxn_error_t *err);

int mxn_load_read_step(mxn_load_t *ld, int step, mxn_error_t *err) {
  if (!ld) return mxn_error_set(err, MXN_ERR_ARG, "mxn_load_read_step: no load handle");
  return read_step(ld, step, err);
}

static int read_step(mxn_load_t *ld, int step, mxn_error_t *err) {
  mxn_error_t e;
  mxn_error_clear(&e);
  double t0 = now();
  mxn_io_counters_t c0 = mxn_dataset_counters(ld->ds);
  int status = mxn_piece_read_step(ld->ds, ld->piece, step);
  if (status != MXN_OK) mxn_error_set(&e, status, "%s", mxn_dataset_errmsg(ld->ds));
  status = mxn_agree(ld->comm, status, &e);
  /* ghosts built from records: their values from their owners */
  if (status == MXN_OK && ld->hx) status = mxn__halo_xchg_run(ld->comm, ld->hx, ld->piece, &e);
  if (status != MXN_OK) {
    if (err) *err = e;
    return status;
  }
  mxn_io_counters_t c1 = mxn_dataset_counters(ld->ds);
  const mxn_structure_t *s = mxn_dataset_structure(ld->ds);
  const mxn_piece_t *pc = ld->piece;
  /* from the files: the selected variables' values, all but the ghosts
   * their owners send */
  int nsel = 0;
  for (int v = 0; v < pc->plan_num_node_vars; v++) nsel += pc->node_vars && pc->node_vars[v];
  int64_t need = (ld->hx ? ld->hx->own_nodes : pc->num_nodes) * nsel;
  for (int b = 0; b < pc->num_blocks; b++)
    for (int v = 0; v < s->num_elem_vars; v++)
      if (pc->blocks[b].elem_vars && pc->blocks[b].elem_vars[v])
        need += ld->hx ? ld->hx->own_elems[b] : pc->blocks[b].num_elements;
  ld->st.bytes_needed += need * (int64_t)sizeof(double) + s->num_global_vars * (int64_t)sizeof(double);
  mxn__load_count_reads(ld, c0, c1);
  ld->st.seconds_step = now() - t0;
  return MXN_OK;
}
