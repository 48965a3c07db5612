/* Option parsing of the mxn command-line tool, kept out of main() so that
 * the fuzzer (testing/fuzz/fuzz_args.c) and tests can drive it without
 * MPI. Nothing here prints, allocates or touches MPI: a parse either fills
 * the arguments or returns the bad-usage exit code with a message that the
 * caller prints (on rank 0 only, for the collective commands). */
#ifndef MXN_ARGS_H
#define MXN_ARGS_H

#include "mxn/mxn.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Exit code of a bad command line (see core/tools/mxn.c). */
#define MXN_CLI_USAGE 2

/** What one command line says. Strings point into argv (borrowed). */
typedef struct mxn_cli_args {
  const char *pos[2];        /**< positional arguments, in order */
  int np;                    /**< how many of pos[] were given */
  int quiet, json, int64;    /**< --quiet, --json, --int64 */
  int nparts;                /**< -n: split M (files), stats N (ranks check); 0 if absent */
  mxn_part_method method;    /**< split --method (default RCB) */
  mxn_form_opts_t form;      /**< join / split options */
  mxn_compare_opts_t cmp;    /**< diff options */
  mxn_load_opts_t lo;        /**< repart / stats options */
  /** stats --steps: re-balance at each step (0: no --steps; -1: all) */
  int steps;
  int rebal_none;            /**< stats --rebalance none (measure only) */
  int fresh;                 /**< stats --fresh (measure a fresh partition too) */
  mxn_rebal_strategy strategy; /**< stats --rebalance S (default auto) */
} mxn_cli_args_t;

/**
 * Parse the arguments of one command: argv[0] is the command name
 * ("info", "join", "split", "diff", "repart" or "stats") and argv[1..argc)
 * its arguments. `--help` is not handled here (the caller checks it first).
 * Every check of the command line is made here, in the order the tool
 * reports them, including the count of positional arguments; what needs
 * MPI (stats -n against the number of ranks) or files is left to the caller.
 * \param [out] a    the parsed arguments (always initialized)
 * \param [out] msg  on bad usage: a static message, e.g. "unknown --method"
 * \return 0 when usable; MXN_CLI_USAGE on bad usage; -1 for an unknown
 *         command or NULL arguments. Local.
 */
int mxn_cli_parse(int argc, char **argv, mxn_cli_args_t *a, const char **msg);

#ifdef __cplusplus
}
#endif
#endif /* MXN_ARGS_H */
