/* Option parsing of the mxn command-line tool (see mxn_args.h). */
#include "mxn_args.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Record the message and return the bad-usage code. */
static int usage(const char **msg, const char *m) {
  *msg = m;
  return MXN_CLI_USAGE;
}

/* A whole-string integer in [lo, hi]: strtol, not atoi, so a typo is an
 * error rather than 0. */
static int parse_long(const char *s, long lo, long hi, long *v) {
  char *end;
  long x = strtol(s, &end, 10);
  if (end == s || *end || x < lo || x > hi) return 0;
  *v = x;
  return 1;
}

/* A whole-string number in [lo, hi]; NaN fails every comparison. */
static int parse_double(const char *s, double lo, double hi, double *v) {
  char *end;
  double x = strtod(s, &end);
  if (end == s || *end || !(x >= lo) || !(x <= hi)) return 0;
  *v = x;
  return 1;
}

/* --format nc3|nc4 and --compress LEVEL (join, split, repart): 1 when
 * argv[*i] was one of them (consumed with its value), 0 when not,
 * MXN_CLI_USAGE for a bad value. */
static int parse_file_format(int argc, char **argv, int *i, mxn_file_format_t *f,
                             const char **msg) {
  const char *o = argv[*i];
  long v;
  if (*i + 1 >= argc) return 0;
  if (!strcmp(o, "--format")) {
    const char *fv = argv[++*i];
    if (!strcmp(fv, "nc3"))
      f->format = MXN_FORMAT_NC3;
    else if (!strcmp(fv, "nc4"))
      f->format = MXN_FORMAT_NC4;
    else
      return usage(msg, "--format needs nc3 or nc4");
    return 1;
  }
  if (!strcmp(o, "--compress")) {
    if (!parse_long(argv[++*i], 0, 9, &v)) return usage(msg, "--compress needs a level in 0..9");
    f->compress = (int)v;
    return 1;
  }
  return 0;
}

/* A level above 0 makes netCDF-4 files; asked together with nc3, say so. */
static int check_file_format(const mxn_file_format_t *f, const char **msg) {
  if (f->compress > 0 && f->format == MXN_FORMAT_NC3)
    return usage(msg, "--compress needs netCDF-4 files: use --format nc4 (or no --format)");
  return 0;
}

static int parse_info(int argc, char **argv, mxn_cli_args_t *a, const char **msg) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      a->json = 1;
    else if (argv[i][0] == '-')
      return usage(msg, "unknown option");
    else if (a->np < 1)
      a->pos[a->np++] = argv[i];
    else
      return usage(msg, "one DATASET expected");
  }
  if (a->np != 1) return usage(msg, "DATASET missing");
  return 0;
}

static int parse_join(int argc, char **argv, mxn_cli_args_t *a, const char **msg) {
  for (int i = 1; i < argc; i++) {
    int ff = parse_file_format(argc, argv, &i, &a->form.file, msg);
    if (ff) {
      if (ff == MXN_CLI_USAGE) return ff;
    } else if (!strcmp(argv[i], "--int64"))
      a->form.int64 = a->int64 = 1;
    else if (!strcmp(argv[i], "--quiet"))
      a->quiet = 1;
    else if (argv[i][0] == '-')
      return usage(msg, "unknown option");
    else if (a->np < 2)
      a->pos[a->np++] = argv[i];
    else
      return usage(msg, "too many arguments");
  }
  if (a->np != 2) return usage(msg, "DATASET and OUT expected");
  return check_file_format(&a->form.file, msg);
}

static int parse_split(int argc, char **argv, mxn_cli_args_t *a, const char **msg) {
  for (int i = 1; i < argc; i++) {
    long v;
    int ff = parse_file_format(argc, argv, &i, &a->form.file, msg);
    if (ff) {
      if (ff == MXN_CLI_USAGE) return ff;
    } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
      if (!parse_long(argv[++i], 1, 1000000, &v))
        return usage(msg, "-n needs a count in 1..1000000");
      a->nparts = (int)v;
    } else if (!strcmp(argv[i], "--method") && i + 1 < argc) {
      if (mxn_part_method_parse(argv[++i], &a->method) != MXN_OK)
        return usage(msg, "unknown --method");
    } else if (!strcmp(argv[i], "--imbalance") && i + 1 < argc) {
      /* The bound is --tolerance's: NaN or inf reached Zoltan before. */
      if (!parse_double(argv[++i], 1.0, 1e6, &a->form.imbalance_tol))
        return usage(msg, "--imbalance needs a number >= 1");
    } else if (!strcmp(argv[i], "--int64")) {
      a->form.int64 = a->int64 = 1;
    } else if (!strcmp(argv[i], "--quiet")) {
      a->quiet = 1;
    } else if (argv[i][0] == '-') {
      return usage(msg, "unknown option or missing value");
    } else if (a->np < 2) {
      a->pos[a->np++] = argv[i];
    } else {
      return usage(msg, "too many arguments");
    }
  }
  if (a->np != 2) return usage(msg, "MESH and OUTBASE expected");
  if (a->nparts < 1) return usage(msg, "-n M is required");
  return check_file_format(&a->form.file, msg);
}

static int parse_diff(int argc, char **argv, mxn_cli_args_t *a, const char **msg) {
  for (int i = 1; i < argc; i++) {
    if ((!strcmp(argv[i], "--tol") || !strcmp(argv[i], "--rel")) && i + 1 < argc) {
      /* atof would turn a typo into 0, an exact comparison. */
      double v;
      if (!parse_double(argv[i + 1], 0.0, HUGE_VAL, &v))
        return usage(msg, "--tol and --rel need a number >= 0");
      if (!strcmp(argv[i], "--tol"))
        a->cmp.abs_tol = v;
      else
        a->cmp.rel_tol = v;
      i++;
    } else if (!strcmp(argv[i], "--by-type")) {
      a->cmp.match_blocks_by_type = 1;
    } else if (!strcmp(argv[i], "--common")) {
      a->cmp.common_only = 1;
    } else if (!strcmp(argv[i], "--id-offset")) {
      a->cmp.ignore_ids_offset = 1;
    } else if (!strcmp(argv[i], "--max") && i + 1 < argc) {
      long v;
      if (!parse_long(argv[++i], 0, 1000000000, &v)) return usage(msg, "--max needs a count >= 0");
      a->cmp.max_report = (int)v;
    } else if (argv[i][0] == '-') {
      return usage(msg, "unknown option or missing value");
    } else if (a->np < 2) {
      a->pos[a->np++] = argv[i];
    } else {
      return usage(msg, "too many arguments");
    }
  }
  if (a->np != 2) return usage(msg, "A and B expected");
  return 0;
}

/* repart and stats share their options; `stats` also takes -n and --json,
 * repart --quiet. */
static int parse_coll(int stats, int argc, char **argv, mxn_cli_args_t *a, const char **msg) {
  int method_given = 0;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    int has_val = i + 1 < argc;
    long v;
    int ff = stats ? 0 : parse_file_format(argc, argv, &i, &a->form.file, msg);
    if (ff) {
      if (ff == MXN_CLI_USAGE) return ff;
    } else if (!strcmp(o, "--method") && has_val) {
      if (mxn_part_method_parse(argv[++i], &a->lo.method) != MXN_OK)
        return usage(msg, "unknown --method");
      method_given = 1;
    } else if (!strcmp(o, "--map") && has_val) {
      a->lo.map_file = argv[++i];
    } else if (!strcmp(o, "--weights") && has_val) {
      a->lo.weight_field = argv[++i];
    } else if (!strcmp(o, "--weight-step") && has_val) {
      if (!parse_long(argv[++i], 1, 1000000000, &v))
        return usage(msg, "--weight-step needs a step number >= 1");
      a->lo.weight_step = (int)(v - 1);
    } else if (!strcmp(o, "--tolerance") && has_val) {
      /* strtod, not atof: a typo must not become tolerance 0. */
      if (!parse_double(argv[++i], 1.0, 1e6, &a->lo.imbalance_tol))
        return usage(msg, "--tolerance needs a number >= 1");
    } else if (!strcmp(o, "--ghosts") && has_val) {
      if (!parse_long(argv[++i], 0, 100, &v))
        return usage(msg, "--ghosts needs a layer count in 0..100");
      a->lo.ghost_levels = (int)v;
    } else if (stats && !strcmp(o, "-n") && has_val) {
      if (!parse_long(argv[++i], 1, 1000000, &v))
        return usage(msg, "-n needs a count in 1..1000000");
      a->nparts = (int)v;
    } else if (stats && !strcmp(o, "--json")) {
      a->json = 1;
    } else if (stats && !strcmp(o, "--steps") && has_val) {
      const char *sv = argv[++i];
      if (!strcmp(sv, "all")) {
        a->steps = -1;
      } else {
        if (!parse_long(sv, 1, 1000000000, &v))
          return usage(msg, "--steps needs 'all' or a step count >= 1");
        a->steps = (int)v;
      }
    } else if (stats && !strcmp(o, "--rebalance") && has_val) {
      const char *sv = argv[++i];
      if (!strcmp(sv, "none"))
        a->rebal_none = 1;
      else if (mxn_rebal_strategy_parse(sv, &a->strategy) != MXN_OK)
        return usage(msg, "--rebalance needs auto, shift, repartition, refine, "
                          "diffusion, fresh or none");
    } else if (stats && !strcmp(o, "--fresh")) {
      a->fresh = 1;
    } else if (!stats && !strcmp(o, "--quiet")) {
      a->quiet = 1;
    } else if (o[0] == '-') {
      return usage(msg, "unknown option or missing value");
    } else if (a->np < 2) {
      a->pos[a->np++] = o;
    } else {
      return usage(msg, "too many arguments");
    }
  }
  if (a->lo.map_file && !method_given) a->lo.method = MXN_PART_MAP;
  if (a->lo.method == MXN_PART_MAP && !a->lo.map_file)
    return usage(msg, "--method map needs --map FILE");
  if (a->lo.map_file && a->lo.method != MXN_PART_MAP)
    return usage(msg, "--map FILE goes with --method map");
  if (a->lo.weight_step > 0 && !a->lo.weight_field)
    return usage(msg, "--weight-step needs --weights FIELD");
  if ((a->rebal_none || a->fresh || a->strategy != MXN_REBAL_AUTO) && !a->steps)
    return usage(msg, "--rebalance and --fresh go with --steps");
  if (stats && a->np != 1) return usage(msg, "one DATASET expected");
  if (!stats && a->np != 2) return usage(msg, "DATASET and OUTBASE expected");
  return stats ? 0 : check_file_format(&a->form.file, msg);
}

int mxn_cli_parse(int argc, char **argv, mxn_cli_args_t *a, const char **msg) {
  static const char *none = "";
  if (msg) *msg = none;
  if (!a) return -1;
  memset(a, 0, sizeof *a);
  a->method = MXN_PART_RCB;
  a->form.gap = -1;
  mxn_load_opts_init(&a->lo);
  if (argc < 1 || !argv || !argv[0] || !msg) return -1;
  for (int i = 1; i < argc; i++)
    if (!argv[i]) return -1;
  const char *cmd = argv[0];
  if (!strcmp(cmd, "info")) return parse_info(argc, argv, a, msg);
  if (!strcmp(cmd, "join")) return parse_join(argc, argv, a, msg);
  if (!strcmp(cmd, "split")) return parse_split(argc, argv, a, msg);
  if (!strcmp(cmd, "diff")) return parse_diff(argc, argv, a, msg);
  if (!strcmp(cmd, "repart")) return parse_coll(0, argc, argv, a, msg);
  if (!strcmp(cmd, "stats")) return parse_coll(1, argc, argv, a, msg);
  return -1;
}
