/* Adaptive file series (mxn/series.h): the segments of a run whose mesh
 * changed, found from one member or a list, and the map from the series'
 * steps to (segment, step). */
#include "internal.h"

struct mxn_series {
  int nseg;
  mxn_series_segment_t *seg;
  int nsteps;
  double *times;
  mxn_series_step_t *steps;
  int single;
};

int mxn_series_open(MPI_Comm comm, const char *const *paths, int npaths, mxn_series_t **out,
                    mxn_error_t *err) {
  (void)comm;
  (void)paths;
  (void)npaths;
  if (out) *out = NULL;
  return mxn_error_set(err, MXN_ERR_UNSUPPORTED, "series: not implemented yet");
}

void mxn_series_close(mxn_series_t **s) {
  if (!s || !*s) return;
  free(*s);
  *s = NULL;
}

int mxn_series_num_segments(const mxn_series_t *s) { return s ? s->nseg : 0; }

const mxn_series_segment_t *mxn_series_segment(const mxn_series_t *s, int k) {
  return s && k >= 0 && k < s->nseg ? &s->seg[k] : NULL;
}

int mxn_series_is_single(const mxn_series_t *s) { return s ? s->single : 0; }

int mxn_series_num_steps(const mxn_series_t *s) { return s ? s->nsteps : 0; }

const double *mxn_series_times(const mxn_series_t *s) { return s && s->nsteps ? s->times : NULL; }

int mxn_series_step(const mxn_series_t *s, int step, mxn_series_step_t *out) {
  if (!s || !out || step < 0 || step >= s->nsteps) return MXN_ERR_ARG;
  *out = s->steps[step];
  return MXN_OK;
}

int mxn_series_step_at_time(const mxn_series_t *s, double t) {
  if (!s || s->nsteps == 0) return -1;
  int k = 0;
  for (int i = 0; i < s->nsteps; i++)
    if (s->times[i] <= t || mxn__same_time(t, s->times[i])) k = i;
  return k;
}
