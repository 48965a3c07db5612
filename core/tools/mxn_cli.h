/* What the mxn tool's commands share (defined in mxn_cli.c): messages,
 * the collective commands' rank helpers and option help, the adaptive
 * series a DATASET argument names, JSON output. Private to the tool. */
#ifndef MXN_CLI_H
#define MXN_CLI_H

#include "mxn/mxn.h"

#include <mpi.h>
#include <stdio.h>

/* Whether --help or -h is among the arguments. */
int wants_help(int argc, char **argv);
/* A failure of command cmd (msg on stderr); returns 1. */
int fail(const char *cmd, const char *msg);
/* Bad usage of command cmd (msg and the help hint on stderr); returns 2. */
int bad_usage(const char *cmd, const char *msg);

/* The collective commands: every rank parses the same arguments and so
 * reaches the same verdict; only rank 0 speaks. */
int world_rank(void);
int world_size(void);
int coll_fail(const char *cmd, const char *msg);
int coll_bad_usage(const char *cmd, const char *msg);
/* The options repart and stats share, as their help lists them. */
extern const char *const coll_options_help;

/* What a DATASET argument turned out to be (series_of). */
enum { SERIES_SINGLE = 0, SERIES_MANY = 1, SERIES_FAILED = -1 };
int series_of(MPI_Comm comm, const char *path, mxn_series_t **s, mxn_error_t *err);

/* The series' rule for equal times, as the help texts state it. */
#define SERIES_HELP                                                                 \
  "An adaptive series (a run whose mesh changed, one dataset per mesh) is\n"       \
  "named as MOOSE/libMesh write it: OUT (segment 1), OUT-s002, OUT-s003, ...\n"    \
  "(3 or more digits: OUT-s0002 too), each a plain file or a spread set of\n"      \
  "its own M (OUT-s002.6.3). Any file of any segment (or a spread segment's\n"     \
  "base name) names the whole series: every file of the naming that exists,\n"    \
  "by number, gaps allowed (OUT, OUT-s005); a form written from it keeps the\n"  \
  "numbers (OUT, OUT-s005).\n"                                                    \
  "Its time steps are the union of the segments' times in increasing order;\n"     \
  "where two segments hold the same time, the later segment's step is read.\n"

/* JSON output: a number (null where not finite), a quoted string. */
void json_num(const char *key, double v, const char *after);
void json_str(FILE *f, const char *s);

/* mpiexec -n N mxn stats ... (mxn_stats.c) */
int cmd_stats(int argc, char **argv);

#endif /* MXN_CLI_H */
