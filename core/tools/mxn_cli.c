/* What the mxn tool's commands share (declared in mxn_cli.h): messages,
 * the collective commands' rank helpers and option help, the adaptive
 * series a DATASET argument names, JSON output. */
#include "mxn_cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *prog = "mxn";

int wants_help(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
  return 0;
}

int fail(const char *cmd, const char *msg) {
  fprintf(stderr, "%s %s: error: %s\n", prog, cmd, msg);
  return 1;
}

int bad_usage(const char *cmd, const char *msg) {
  fprintf(stderr, "%s %s: %s (see 'mxn %s --help')\n", prog, cmd, msg, cmd);
  return 2;
}

/* The series `path` belongs to. SERIES_SINGLE (*s may be NULL): one
 * dataset, which the command reads as it always did; also when the series
 * cannot be made and `path` alone cannot be opened either, so that the
 * dataset's own error reaches the user in the words it always had.
 * SERIES_MANY: several segments in *s. SERIES_FAILED: the series' error
 * in *err (a missing member, a segment that cannot be read).
 * Collective over comm unless MPI_COMM_NULL. */
int series_of(MPI_Comm comm, const char *path, mxn_series_t **s, mxn_error_t *err) {
  const char *paths[1] = {path};
  *s = NULL;
  mxn_error_clear(err);
  if (mxn_series_open(comm, paths, 1, s, err) == MXN_OK) {
    if (mxn_series_num_segments(*s) > 1) return SERIES_MANY;
    mxn_series_close(s);
    return SERIES_SINGLE;
  }
  int R = 0, alone = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &R);
  if (R == 0) {
    mxn_dataset_t *ds = NULL;
    alone = mxn_dataset_create(&ds) == MXN_OK && mxn_dataset_open(ds, path) == MXN_OK;
    mxn_dataset_destroy(&ds);
  }
  if (comm != MPI_COMM_NULL) MPI_Bcast(&alone, 1, MPI_INT, 0, comm);
  return alone ? SERIES_FAILED : SERIES_SINGLE;
}

/* A JSON number; null where the value is not finite (JSON has no inf). */
void json_num(const char *key, double v, const char *after) {
  if (isfinite(v))
    printf("\"%s\": %.17g%s", key, v, after);
  else
    printf("\"%s\": null%s", key, after);
}

void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* Every rank parses the same arguments and so reaches the same verdict;
 * only rank 0 speaks, so N ranks do not print N copies. */
int world_rank(void) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size(void) {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

int coll_fail(const char *cmd, const char *msg) {
  if (world_rank() == 0) fail(cmd, msg);
  return 1;
}

int coll_bad_usage(const char *cmd, const char *msg) {
  if (world_rank() == 0) bad_usage(cmd, msg);
  return 2;
}

const char *const coll_options_help =
    "  --method M        files (default: whole member files to ranks, cut only\n"
    "                    where needed), linear (global id ranges), sfc (Hilbert\n"
    "                    curve of centroids), rcb, rib, hsfc, graph (Zoltan),\n"
    "                    map (the element -> rank file given with --map)\n"
    "  --map FILE        lines 'element_id rank' ('#' starts a comment)\n"
    "  --weights FIELD   weigh elements by |element variable FIELD|\n"
    "  --weight-step S   ... at time step S (1-based, default 1)\n"
    "  --tolerance T     accepted max/average weight (default 1.05)\n"
    "  --ghosts L        also read L layers of ghost elements around each piece\n"
    "                    (elements within L node hops, owned by other ranks)\n";
