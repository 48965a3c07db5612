/* A piece's fields at one time step (mxn_piece_read_step): the nodal,
 * element, edge, face and set variables along the plan the extraction
 * made (read.c), each member's variable by its own position (a member
 * lacking one gives NaN), and the global variables. */
#include "read/read.h"

#include <limits.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>

#include "read/plan.h"

/* Member j's time at `step` against the dataset's (member 0's), compared
 * once per member and step: the open compares only a member's first and
 * last. MXN_ERR_INCONSISTENT naming the member and step if they differ. */
static int step_time_check(mxn_dataset_t *ds, int j, int step) {
  const mxn_structure_t *s = &ds->s;
  int nt = s->num_times, status = MXN_OK;
  if (j == 0 || step <= 0 || step >= nt - 1) return MXN_OK; /* compared at the open */
  mxn__file_t *f = mxn__file(ds, j);
  if (!f) return ds->err.status;
  if (f->time_ok && (f->time_ok[step >> 3] >> (step & 7) & 1)) return MXN_OK;
  if (!f->time_ok && !(f->time_ok = mxn__calloc((size_t)nt / 8 + 1, 1))) return MXN_ERR_NOMEM;
  const mxn__file_t *of = mxn__file_open(ds, j, &status);
  if (!of) return status;
  int v = mxn__m_var(of, MXN__EX_TIME_WHOLE);
  size_t start = (size_t)step, count = 1;
  double t = 0;
  if (v < 0 || mxn__m_get(of, v, &start, &count, NULL, &t, 'd'))
    return MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read its time at step %d", f->path, step + 1);
  ds->io.read_calls++;
  ds->io.bytes_read += (int64_t)sizeof(double);
  if (!mxn__same_time(t, s->times[step]))
    return MXN_DS_ERR(ds, MXN_ERR_INCONSISTENT, "%s: time step %d is %.17g, in %s it is %.17g",
                      f->path, step + 1, t, mxn__path(ds, 0), s->times[step]);
  f->time_ok[step >> 3] |= (unsigned char)(1u << (step & 7));
  return MXN_OK;
}

/* The variable id of the member's own variable p (0-based: its position
 * in member f's list, mxn__var_pos) of structure block b (k: block kind,
 * -1 for nodal variables); -1 when the member stores it otherwise (nodal
 * variables all in one vals_nod_var, older files). */
static int var_id(const mxn__file_t *f, int k, int p, int b) {
  char name[64];
  if (k < 0) {
    mxn__name_d(name, sizeof name, MXN__EX_VALS_NOD_VAR_D, p + 1);
  } else {
    int q = mxn__file_block(f, k, b);
    if (q <= 0) return -1;
    int fam = k == MXN__ELEM ? MXN__V_ELEM : k == MXN__EDGE ? MXN__V_EDGE : MXN__V_FACE;
    snprintf(name, sizeof name, mxn__ex_var[fam].vals, p + 1, q);
  }
  return mxn__m_var(f, name);
}

/* var_id() of dataset variable v of nv (the member's own p) of segment sg,
 * looked up once: a step read of M = 1024 members asked for about a
 * thousand names per step and rank. -1 as there; -3 out of memory. */
static int seg_varid(mxn__plan_t *plan, const mxn__file_t *f, segment_t *sg, int k, int v,
                     int p, int nv) {
  if (!sg->varids) {
    if (!(sg->varids = mxn__plan_alloc(plan, ((size_t)nv + 1) * sizeof *sg->varids))) return -3;
    for (int i = 0; i < nv; i++) sg->varids[i] = -2;
  }
  if (sg->varids[v] == -2) sg->varids[v] = var_id(f, k, p, sg->block);
  return sg->varids[v];
}

/* One step run of member f's own variable p at `step` into plan->buf:
 * run->count values for a contiguous run; run->n values, one per entry,
 * for a strided one; one read either way. k: block kind (-1 nodal), varid:
 * var_id() of the variable in member f; -1 for a nodal variable in the
 * older layout (vals_nod_var[step][variable][node]). */
static int read_var_run(mxn_dataset_t *ds, mxn__plan_t *plan, const mxn__file_t *f, int step,
                        int k, int p, int varid, const run_t *run) {
  int status = MXN_OK;
  int strided = run->stride > 1;
  int64_t n = strided ? run->n : run->count;
  MXN_CHECK(mxn__plan_buf(plan, n));
  if (varid >= 0) {
    size_t start[2] = {(size_t)step, (size_t)run->start}, count[2] = {1, (size_t)n};
    ptrdiff_t stride[2] = {1, strided ? (ptrdiff_t)run->stride : 1};
    if (mxn__m_get(f, varid, start, count, stride, plan->buf, 'd')) return MXN_ERR_IO;
  } else {
    int all = k < 0 ? mxn__m_var(f, MXN__EX_VALS_NOD_VAR) : -1;
    size_t start[3] = {(size_t)step, (size_t)p, (size_t)run->start}, count[3] = {1, 1, (size_t)n};
    ptrdiff_t stride[3] = {1, 1, strided ? (ptrdiff_t)run->stride : 1};
    if (all < 0 || mxn__m_ndims(f, all) != 3 ||
        mxn__m_get(f, all, start, count, stride, plan->buf, 'd'))
      return MXN_ERR_IO;
  }
  ds->io.read_calls++;
  ds->io.bytes_read += n * (int64_t)sizeof(double);
done:
  return status;
}

/* The global variables at `step`, each from the first member that lists
 * it: member 0 lists them all unless members differ in their variables.
 * Member 0's are kept from its summary where it had few enough. */
int mxn__global_source(mxn_dataset_t *ds, int d) {
  /* member 0 as a rule: records are rebuilt where not held */
  int j = 0;
  const mxn__file_t *f;
  while ((f = mxn__file(ds, j)) && j < ds->nfiles - 1 && mxn__var_pos(f, MXN__V_GLOBAL, d) < 0) j++;
  return f ? j : -1;
}

static int read_globals(mxn_dataset_t *ds, mxn_piece_t *piece, int step) {
  const mxn_structure_t *s = &ds->s;
  const int n = s->num_global_vars;
  int status = MXN_OK, *src = NULL, left = n;
  if (ds->glob_vals && ds->glob_nvars == n) { /* nothing to open */
    memcpy(piece->global_vars, ds->glob_vals + (int64_t)step * n, (size_t)n * sizeof(double));
    return MXN_OK;
  }
  MXN_ALLOC(src, n);
  for (int d = 0; d < n; d++)
    if ((src[d] = mxn__global_source(ds, d)) < 0) {
      status = ds->err.status;
      goto done;
    }
  for (int j = 0; j < ds->nfiles && left > 0; j++) {
    int any = 0;
    for (int d = 0; d < n; d++) any |= src[d] == j;
    if (!any) continue;
    const mxn__file_t *f = mxn__file_held(ds, j); /* made above */
    int nj = f->nvar[MXN__V_GLOBAL];
    if (nj <= 0) continue;
    if (j == 0 && ds->glob_vals && ds->glob_nvars == nj) {
      for (int d = 0; d < n; d++)
        if (src[d] == 0) {
          piece->global_vars[d] = ds->glob_vals[(int64_t)step * nj + f->var_pos[MXN__V_GLOBAL][d]];
          left--;
        }
      continue;
    }
    if (!mxn__file_open(ds, j, &status)) goto done;
    MXN_CHECK(mxn__plan_buf(piece->plan, nj));
    int varid = mxn__m_var(f, MXN__EX_VALS_GLO_VAR);
    size_t start[2] = {(size_t)step, 0}, count[2] = {1, (size_t)nj};
    if (varid < 0 || mxn__m_get(f, varid, start, count, NULL, piece->plan->buf, 'd')) {
      status = MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read global variables at step %d", f->path,
                          step + 1);
      goto done;
    }
    ds->io.read_calls++;
    ds->io.bytes_read += nj * (int64_t)sizeof(double);
    for (int d = 0; d < n; d++)
      if (src[d] == j) {
        piece->global_vars[d] = piece->plan->buf[f->var_pos[MXN__V_GLOBAL][d]];
        left--;
      }
  }
done:
  free(src);
  return status;
}

/* Variable v (the member's own p; of nv in its family, block kind k, -1
 * nodal) of segment sg at `step`, each entry into out[sg->dst[e]].
 * MXN_ERR_IO is the caller's to describe. */
static int read_seg_var(mxn_dataset_t *ds, mxn__plan_t *plan, const mxn__file_t *f, int step,
                        int k, int v, int p, int nv, segment_t *sg, double *out) {
  int status = MXN_OK;
  MXN_CHECK(mxn__plan_step_runs(plan, sg));
  int varid = seg_varid(plan, f, sg, k, v, p, nv);
  if (varid == -3) return MXN_ERR_NOMEM;
  for (int64_t r = 0; r < sg->nvruns; r++) {
    const run_t *run = &sg->vruns[r];
    MXN_CHECK(read_var_run(ds, plan, f, step, k, p, varid, run));
    for (int64_t e = run->first; e < run->first + run->n; e++)
      out[sg->dst[e]] = plan->buf[mxn__run_at(sg, run, e)];
  }
done:
  return status;
}

/* Nodal segment sg's selected variables at `step` into the piece. */
static int read_node_seg(mxn_dataset_t *ds, mxn_piece_t *piece, int step, segment_t *sg) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  for (int v = 0; v < s->num_node_vars; v++) {
    if (!piece->node_vars[v]) continue; /* not selected */
    int p = mxn__var_pos(mxn__file_held(ds, sg->file), MXN__V_NODAL, v);
    if (p < 0) {
      /* A member without the variable: no value (NaN). */
      for (int64_t e = 0; e < sg->n; e++) piece->node_vars[v][sg->dst[e]] = NAN;
      continue;
    }
    const mxn__file_t *f = mxn__file_open(ds, sg->file, &status);
    if (!f) goto done;
    status = read_seg_var(ds, plan, f, step, -1, v, p, s->num_node_vars, sg, piece->node_vars[v]);
    if (status == MXN_ERR_IO)
      MXN_DS_ERR(ds, MXN_ERR_IO, "%s: cannot read nodal variable '%s' at step %d",
                 mxn__path(ds, sg->file), s->node_var_names[v], step + 1);
    if (status != MXN_OK) goto done;
  }
done:
  return status;
}

/* Segment sg of block kind k: its block's selected variables at `step`. */
static int read_block_seg(mxn_dataset_t *ds, mxn_piece_t *piece, int step, int k,
                          segment_t *sg) {
  const mxn_structure_t *s = &ds->s;
  mxn__plan_t *plan = piece->plan;
  int nb, status = MXN_OK;
  const mxn_block_info_t *sb = mxn__sblocks(s, k, &nb);
  mxn_piece_block_t *pb = &mxn__pblocks(piece, k, &nb)[sg->block];
  mxn_var_list_t vl = mxn__bvars(s, k);
  const int fam = k == MXN__ELEM ? MXN__V_ELEM : k == MXN__EDGE ? MXN__V_EDGE : MXN__V_FACE;
  const mxn__file_t *f = mxn__file_held(ds, sg->file); /* held: its domain made the segment */
  for (int v = 0; v < vl.num; v++) {
    if (!pb->elem_vars[v]) continue;
    int p = mxn__var_pos(f, fam, v);
    if (p < 0 || !mxn__blk_truth(&f->kb[k], sg->block, vl.num, v)) {
      /* The member lacks the variable: no value (NaN); it has it but not
       * on this block (truth table): not stored, so it reads as 0, as it
       * always has. */
      double none = p < 0 ? NAN : 0.0;
      for (int64_t e = 0; e < sg->n; e++) pb->elem_vars[v][sg->dst[e]] = none;
      continue;
    }
    if (!mxn__file_open(ds, sg->file, &status)) goto done;
    status = read_seg_var(ds, plan, f, step, k, v, p, vl.num, sg, pb->elem_vars[v]);
    if (status == MXN_ERR_IO)
      MXN_DS_ERR(ds, MXN_ERR_IO, "%s: %s block %lld: cannot read %s variable '%s' at step %d",
                 f->path, mxn__blk_what[k], (long long)sb[sg->block].id, mxn__blk_what[k],
                 vl.names[v], step + 1);
    if (status != MXN_OK) goto done;
  }
done:
  return status;
}

int mxn_piece_read_step(mxn_dataset_t *ds, mxn_piece_t *piece, int step) {
  if (!ds || !piece || !piece->plan) return MXN_ERR_ARG;
  const mxn_structure_t *s = &ds->s;
  if (step < 0 || step >= s->num_times)
    return MXN_DS_ERR(ds, MXN_ERR_ARG, "%s: time step %d does not exist (the dataset has %d)",
                      mxn__path(ds, 0), step + 1, s->num_times);
  mxn__plan_t *plan = piece->plan;
  int status = MXN_OK;
  MXN_CHECK(mxn__files_recheck(ds, step));
  /* Every member read at this step has its time (compared once): the
   * sets' members here, the segments' ones as they are read. */
  for (int sk = 0; sk < MXN__NSK; sk++)
    for (int q = 0; q < plan->nsets[sk]; q++) {
      const set_src_t *ss = &plan->set_src[sk][q]; /* sorted by member */
      for (int64_t i = 0; i < ss->n; i++)
        if (i == 0 || ss->file[i] != ss->file[i - 1])
          MXN_CHECK(step_time_check(ds, ss->file[i], step));
    }
  /* Member-major order: each member is visited once per step, its time
   * checked and its nodal and block values read together, so a set of
   * more members than the open caps (MXN__MAX_OPEN_FILES, and the lower
   * one of netCDF-4 members) opens each one once a step, not once for
   * each family of values. The segment lists are sorted by member; the
   * walk takes the lowest member at the head of any list, so every
   * segment is read once in any order. */
  int in = 0, ik[MXN__NBK] = {0};
  for (;;) {
    int j = in < plan->nnode_seg ? plan->node_seg[in].file : INT_MAX;
    for (int k = 0; k < MXN__NBK; k++)
      if (ik[k] < plan->nseg[k] && plan->seg[k][ik[k]].file < j) j = plan->seg[k][ik[k]].file;
    if (j == INT_MAX) break;
    MXN_CHECK(step_time_check(ds, j, step));
    for (; in < plan->nnode_seg && plan->node_seg[in].file == j; in++)
      MXN_CHECK(read_node_seg(ds, piece, step, &plan->node_seg[in]));
    for (int k = 0; k < MXN__NBK; k++)
      for (; ik[k] < plan->nseg[k] && plan->seg[k][ik[k]].file == j; ik[k]++)
        MXN_CHECK(read_block_seg(ds, piece, step, k, &plan->seg[k][ik[k]]));
  }
  if (s->num_global_vars > 0) MXN_CHECK(read_globals(ds, piece, step));
  MXN_CHECK(mxn__read_set_vars(ds, piece, step));
  piece->step = step;
  piece->time = s->times[step];
done:
  /* the step's boxes of decompressed chunks are not held between steps */
  mxn__store_drop_reads(ds);
  return status;
}
