/* libFuzzer harness: the mxn command-line option parser (core/tools/mxn_args.h).
 *
 * Input: byte 0 picks the command (info, join, split, diff, repart, stats);
 * the rest is split at NUL bytes into at most 31 arguments, each copied to
 * its own allocation so that reading past an argument is caught by ASan.
 *
 * Checked: the parser returns 0 or the usage code (never the
 * unknown-command code), with a non-empty message on bad usage; accepted
 * command lines satisfy what the tool relies on (positional counts, -n,
 * --ghosts, --tolerance, --imbalance, --weight-step, --max in range, a map
 * file exactly with method map, strings pointing into argv); parsing is
 * repeatable. */
#include "mxn_args.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)            \
  do {                      \
    if (!(c)) abort();      \
  } while (0)

static const char *const cmds[] = {"info", "join", "split", "diff", "repart", "stats"};

static int points_into(char **argv, int argc, const char *p) {
  for (int i = 1; i < argc; i++)
    if (argv[i] == p) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int c = data[0] % 6;
  char *argv[32];
  int argc = 0;
  argv[argc] = malloc(strlen(cmds[c]) + 1);
  CHECK(argv[argc]);
  strcpy(argv[argc++], cmds[c]);
  size_t start = 1;
  for (size_t k = 1; k <= size && argc < 32; k++) {
    if (k == size || data[k] == 0) {
      size_t len = k - start;
      char *s = malloc(len + 1);
      CHECK(s);
      memcpy(s, data + start, len);
      s[len] = 0;
      argv[argc++] = s;
      start = k + 1;
    }
  }
  mxn_cli_args_t a, b;
  const char *msg = NULL, *msg2 = NULL;
  int rc = mxn_cli_parse(argc, argv, &a, &msg);
  CHECK(rc == 0 || rc == MXN_CLI_USAGE);
  CHECK(msg != NULL);
  if (rc == MXN_CLI_USAGE) CHECK(msg[0] != 0);
  if (rc == 0) {
    const int need[6] = {1, 2, 2, 2, 2, 1};
    CHECK(a.np == need[c]);
    for (int k = 0; k < a.np; k++) CHECK(points_into(argv, argc, a.pos[k]) && a.pos[k][0] != '-');
    switch (c) {
      case 2: /* split */
        CHECK(a.nparts >= 1 && a.nparts <= 1000000);
        CHECK(a.form.imbalance_tol == 0 || (a.form.imbalance_tol >= 1 && a.form.imbalance_tol <= 1e6));
        CHECK(strcmp(mxn_part_method_name(a.method), "unknown") != 0);
        break;
      case 3: /* diff */
        CHECK(a.cmp.abs_tol >= 0 && a.cmp.rel_tol >= 0 && !isnan(a.cmp.abs_tol) &&
              !isnan(a.cmp.rel_tol));
        CHECK(a.cmp.max_report >= 0 && a.cmp.max_report <= 1000000000);
        break;
      case 4: /* repart */
      case 5: /* stats */
        CHECK(a.lo.ghost_levels >= 0 && a.lo.ghost_levels <= 100);
        CHECK(a.lo.weight_step >= 0 && a.lo.weight_step < 1000000000);
        CHECK(a.lo.weight_step == 0 || a.lo.weight_field != NULL);
        CHECK((a.lo.method == MXN_PART_MAP) == (a.lo.map_file != NULL));
        if (a.lo.map_file) CHECK(points_into(argv, argc, a.lo.map_file));
        if (a.lo.weight_field) CHECK(points_into(argv, argc, a.lo.weight_field));
        CHECK(a.nparts >= 0 && a.nparts <= 1000000);
        CHECK(c == 5 || (a.nparts == 0 && !a.json));
        /* stats --steps / --rebalance / --fresh */
        CHECK(a.steps >= -1 && a.steps <= 1000000000);
        CHECK(c == 5 || (a.steps == 0 && !a.fresh && !a.rebal_none));
        if (a.rebal_none || a.fresh || a.strategy != MXN_REBAL_AUTO) CHECK(a.steps != 0);
        CHECK(c == 4 || !a.quiet);
        CHECK(strcmp(mxn_part_method_name(a.lo.method), "unknown") != 0);
        break;
      default:
        break;
    }
  }
  CHECK(mxn_cli_parse(argc, argv, &b, &msg2) == rc && !strcmp(msg, msg2));
  if (rc == 0) CHECK(b.np == a.np && b.nparts == a.nparts && b.lo.method == a.lo.method);
  for (int i = 0; i < argc; i++) free(argv[i]);
  return 0;
}
