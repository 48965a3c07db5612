/**
 * \file series.h
 * An adaptive file series: a run whose mesh changed, written as one
 * dataset per mesh (a *segment*), read as one time series.
 *
 * Naming (MOOSE/libMesh): the first segment is `out.e`, the next ones
 * `out.e-s002`, `out.e-s003`, ... (the number zero-padded to 3 digits or
 * more: `out.e-s0002` is segment 2). Each segment is a plain file or a
 * spread set of its own M (`out.e.4.0`, `out.e-s002.6.3`, zero-padded
 * ranks such as `out.e-s0002.12.07` recognised), found as
 * mxn_dataset_open() finds one.
 *
 * Segments are numbered from their names (1 for the name without `-s`);
 * a series is every segment of the naming that exists, ordered by number:
 * it may start at any number and skip numbers (`out.e`, `out.e-s005`, as
 * when only some segments are archived); a segment's `number` is the NNN
 * of its name either way. The steps of
 * the series are the union of the segments' time values, in increasing
 * order; where two segments hold the same time value (equal within
 * 1e-9 relative), the later segment's step is the series' step, as the
 * IOSS reader does for a restarted run.
 *
 * Opening reads one header per segment (member 0's: its spatial dimension
 * and time values), not every member. A single file or spread set that is
 * not part of a series opens as a series of one segment whose path is the
 * path given, so callers can treat every dataset as a series.
 *
 * Handles are not thread-safe; every call but mxn_series_open() is local.
 */
#ifndef MXN_SERIES_H
#define MXN_SERIES_H

#include "mxn/status.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One segment of a series: a dataset as mxn_dataset_open() and
 *  mxn_load_open() take it. Owned by the series handle. */
typedef struct mxn_series_segment {
  /** The dataset's path: the path given when it names this segment,
   *  else the plain file or member 0 of the spread set. */
  const char *path;
  int number;          /**< 1 for the name without `-sNNN`, else NNN */
  /** Digits of NNN as the name writes them (`-s0002`: 4), 0 for the name
   *  without `-sNNN`: what a form written from the series (mxn join,
   *  repart) names its segments by. In a list of names of different
   *  roots, segment k > 1 is numbered k, width 3. */
  int width;
  int num_files;       /**< M: 1 for a plain file */
  int num_dim;         /**< spatial dimension */
  int num_times;       /**< time steps the segment holds */
  const double *times; /**< its num_times time values (member 0's) */
  /** The first series step that reads this segment (-1 when none does:
   *  every time of it is also a later segment's), and how many do (its
   *  steps not overlaid by a later segment's equal time). They follow
   *  each other unless the segments' times interleave. */
  int first_step;
  int num_series_steps;
} mxn_series_segment_t;

/** Where a step of the series lives. */
typedef struct mxn_series_step {
  int segment;  /**< index into the series' segments (0-based) */
  int step;     /**< step within that segment (0-based, as mxn_load_read_step takes it) */
  double time;  /**< its time value */
} mxn_series_step_t;

/** Opaque series handle. */
typedef struct mxn_series mxn_series_t;

/**
 * Find the segments of a series and read their headers.
 * \param [in] comm    MPI_COMM_NULL to open on this process alone; else
 *                     collective: rank 0 lists the directories and reads
 *                     the headers, every rank gets the same series or the
 *                     same error
 * \param [in] paths   npaths == 1: a member of any segment (`out.e`,
 *                     `out.e-s002`, `out.e-s002.6.3`) or the base name of
 *                     a spread segment (`out.e-s002`); the series is
 *                     discovered beside it. npaths > 1: the files of the
 *                     series (plain files, members or base names of
 *                     spread sets; members of one segment count once),
 *                     ordered by segment number when they share one name
 *                     root, else taken in the order given
 * \param [out] out    the series, NULL on failure; free with mxn_series_close()
 * \param [out] err    on failure the message, naming the files: a
 *                     spread segment missing a member (that member), two
 *                     segments of different spatial dimension (both), a
 *                     segment that cannot be read (it); may be NULL
 * \return MXN_OK; MXN_ERR_ARG, MXN_ERR_IO, MXN_ERR_FORMAT, MXN_ERR_FILESET
 *   (incomplete or ambiguous segment), MXN_ERR_INCONSISTENT
 *   (dimensions differ). Collective over comm unless MPI_COMM_NULL.
 */
int mxn_series_open(MPI_Comm comm, const char *const *paths, int npaths, mxn_series_t **out,
                    mxn_error_t *err);

/** Free the series and set *s = NULL. Accepts NULL. Local. */
void mxn_series_close(mxn_series_t **s);

/** Number of segments (>= 1). Local. */
int mxn_series_num_segments(const mxn_series_t *s);

/** Segment k (0 <= k < mxn_series_num_segments()), borrowed; NULL out of
 *  range. Local. */
const mxn_series_segment_t *mxn_series_segment(const mxn_series_t *s, int k);

/** Whether the series has one segment (a dataset with no `-sNNN`
 *  siblings, or a list naming one dataset): its path is then the path
 *  given, and it reads as that dataset always did. Local. */
int mxn_series_is_single(const mxn_series_t *s);

/** Number of steps of the series (the union of the segments' times). Local. */
int mxn_series_num_steps(const mxn_series_t *s);

/** The series' time values, mxn_series_num_steps() of them in increasing
 *  order (borrowed; NULL when there are none). Local. */
const double *mxn_series_times(const mxn_series_t *s);

/**
 * Where series step `step` lives.
 * \return MXN_OK, or MXN_ERR_ARG when step is out of range. Local.
 */
int mxn_series_step(const mxn_series_t *s, int step, mxn_series_step_t *out);

/** The step to show at time t: the last step whose time is <= t (within
 *  the 1e-9 relative tolerance), 0 when t is before the first; -1 when
 *  the series has no steps. Local. */
int mxn_series_step_at_time(const mxn_series_t *s, double t);

#ifdef __cplusplus
}
#endif
#endif /* MXN_SERIES_H */
