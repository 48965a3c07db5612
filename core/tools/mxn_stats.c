/* mxn stats: the parallel load's partition, reads and phases per rank,
 * without writing (and with --steps, the per-step re-balancing), for a
 * dataset or each segment of an adaptive series; text or JSON. */
#include "mxn/mxn.h"
#include "mxn_args.h"
#include "mxn_cli.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void stats_json(const char *path, int num_files, const mxn_cli_args_t *a,
                       const mxn_load_stats_t *all, int n) {
  int64_t br = 0, bn = 0, mb = 0, sb = 0, pbr = 0, rc = 0, fo = 0, bd = 0, meta = 0;
  double wsum = 0, wmax = 0, sec[5] = {0, 0, 0, 0, 0};
  for (int r = 0; r < n; r++) {
    br += all[r].bytes_read;
    bd += all[r].bytes_decompressed;
    bn += all[r].bytes_needed;
    mb += all[r].map_bytes_read;
    sb += all[r].set_bytes_read;
    pbr += all[r].partition_bytes_read;
    rc += all[r].read_calls;
    fo += all[r].files_opened;
    /* every rank holds its own copy: the largest is what a rank needs */
    if (all[r].metadata_bytes > meta) meta = all[r].metadata_bytes;
    wsum += all[r].owned_weight;
    if (all[r].owned_weight > wmax) wmax = all[r].owned_weight;
    const double t[5] = {all[r].seconds_open, all[r].seconds_partition, all[r].seconds_plan,
                         all[r].seconds_read, all[r].seconds_step};
    for (int k = 0; k < 5; k++)
      if (t[k] > sec[k]) sec[k] = t[k];
  }
  printf("{\n  \"dataset\": ");
  json_str(stdout, path);
  printf(",\n  \"files\": %d,\n  \"ranks\": %d,\n  \"method\": ", num_files, n);
  json_str(stdout, mxn_part_method_name(a->lo.method));
  printf(",\n  \"weights\": ");
  if (a->lo.weight_field)
    json_str(stdout, a->lo.weight_field);
  else
    printf("null");
  printf(",\n  \"tolerance\": %.17g,\n  \"total_elements\": %lld,\n  ",
         a->lo.imbalance_tol > 1 ? a->lo.imbalance_tol : 1.05, (long long)all[0].total_elements);
  json_num("imbalance", all[0].imbalance, ",\n  ");
  json_num("max_weight", wmax, ",\n  ");
  json_num("avg_weight", n > 0 ? wsum / n : 0.0, ",\n");
  printf("  \"bytes_read\": %lld,\n  \"bytes_needed\": %lld,\n  \"map_bytes_read\": %lld,\n"
         "  \"set_bytes_read\": %lld,\n  \"partition_bytes_read\": %lld,\n"
         "  \"read_calls\": %lld,\n  \"files_opened\": %lld,\n  \"metadata_bytes\": %lld,\n",
         (long long)br, (long long)bn, (long long)mb, (long long)sb, (long long)pbr,
         (long long)rc, (long long)fo, (long long)meta);
  /* compressed netCDF-4 members only: other sets print what they did */
  if (bd > 0) printf("  \"bytes_decompressed\": %lld,\n", (long long)bd);
  printf("  \"seconds_max\": {\"open\": %.6f, \"partition\": %.6f, \"plan\": %.6f, "
         "\"read\": %.6f, \"step\": %.6f},\n",
         sec[0], sec[1], sec[2], sec[3], sec[4]);
  if (a->lo.ghost_levels > 0) {
    int64_t g = 0;
    for (int r = 0; r < n; r++) g += all[r].ghost_elements;
    printf("  \"ghost_levels\": %d,\n  \"ghost_elements\": %lld,\n", a->lo.ghost_levels,
           (long long)g);
  }
  printf("  \"ranks_detail\": [");
  for (int r = 0; r < n; r++) {
    const mxn_load_stats_t *x = &all[r];
    printf("%s\n    {\"rank\": %d, \"owned\": %lld, ", r ? "," : "", x->rank,
           (long long)x->owned_elements);
    json_num("weight", x->owned_weight, ", ");
    printf("\"cover_files\": %d, "
           "\"files_overlapping\": %d, \"nodes\": %lld, \"bytes_read\": %lld, "
           "\"bytes_needed\": %lld, \"map_bytes_read\": %lld, \"set_bytes_read\": %lld, "
           "\"partition_bytes_read\": %lld, \"read_calls\": %lld, "
           "\"files_opened\": %lld, \"metadata_bytes\": %lld, "
           "\"seconds\": {\"open\": %.6f, \"partition\": %.6f, \"plan\": %.6f, \"read\": %.6f, "
           "\"piece_read\": %.6f, \"io\": %.6f",
           x->cover_files,
           x->files_overlapping, (long long)x->num_nodes, (long long)x->bytes_read,
           (long long)x->bytes_needed, (long long)x->map_bytes_read,
           (long long)x->set_bytes_read, (long long)x->partition_bytes_read,
           (long long)x->read_calls, (long long)x->files_opened,
           (long long)x->metadata_bytes, x->seconds_open,
           x->seconds_partition, x->seconds_plan, x->seconds_read, x->seconds_piece_read,
           x->seconds_io);
    if (a->lo.ghost_levels > 0)
      printf(", \"ghost\": %.6f, \"order\": %.6f}, \"ghosts\": %lld, \"ghost_nodes\": %lld, "
             "\"ghost_files\": %d, \"ghost_bytes_read\": %lld}",
             x->seconds_ghost, x->seconds_order, (long long)x->ghost_elements, (long long)x->ghost_nodes,
             x->ghost_files, (long long)x->ghost_bytes_read);
    else
      printf("}}");
  }
  printf("\n  ]");
}

/* stats --steps: one row per step of the re-balancing (rank 0's reports;
 * the figures in them are global). */
static void steps_json(const mxn_cli_args_t *a, const mxn_rebalance_report_t *rp, int n,
                       const int *seg) {
  printf(",\n  \"rebalance\": ");
  json_str(stdout, a->rebal_none ? "none" : mxn_rebal_strategy_name(n > 0 ? rp[0].strategy : a->strategy));
  printf(",\n  \"steps\": [");
  for (int i = 0; i < n; i++)
    printf("%s\n    {\"step\": %d, \"imbalance_before\": %.17g, \"imbalance_after\": %.17g, "
           "\"migrated\": %lld, \"bytes_read\": %lld}",
           i ? "," : "", seg ? i + 1 : rp[i].step + 1, rp[i].imbalance_before,
           rp[i].imbalance_after, (long long)rp[i].migrated, (long long)rp[i].bytes_read_all);
  printf("\n  ],\n  \"steps_detail\": [");
  for (int i = 0; i < n; i++) {
    printf("%s\n    {\"step\": %d, \"rebalanced\": %d, \"fresh_migrated\": %lld, "
           "\"fresh_imbalance\": %.17g, \"retries\": %d, \"rounds\": %d, \"fell_back\": %d, "
           "\"seconds_balance\": %.6f, \"seconds_migrate\": %.6f",
           i ? "," : "", seg ? i + 1 : rp[i].step + 1, rp[i].rebalanced,
           (long long)rp[i].fresh_migrated, rp[i].fresh_imbalance, rp[i].retries, rp[i].rounds,
           rp[i].fell_back, rp[i].seconds_balance, rp[i].seconds_migrate);
    /* a series: the segment (its number) and the step within it */
    if (seg) printf(", \"segment\": %d, \"segment_step\": %d", seg[i], rp[i].step + 1);
    printf("}");
  }
  printf("\n  ]");
}

static void steps_text(const mxn_cli_args_t *a, const mxn_rebalance_report_t *rp, int n,
                       const int *seg) {
  printf("re-balancing (%s) per step:\n%5s %10s %10s %10s %10s %12s %9s %9s%s\n",
         a->rebal_none ? "none" : mxn_rebal_strategy_name(n > 0 ? rp[0].strategy : a->strategy),
         "step", "imb before", "imb after", "migrated", "fresh", "bytes read", "s balance",
         "s migrate", seg ? " segment (step)" : "");
  for (int i = 0; i < n; i++) {
    printf("%5d %10.4f %10.4f %10lld %10lld %12lld %9.3f %9.3f", seg ? i + 1 : rp[i].step + 1,
           rp[i].imbalance_before, rp[i].imbalance_after, (long long)rp[i].migrated,
           (long long)rp[i].fresh_migrated, (long long)rp[i].bytes_read_all,
           rp[i].seconds_balance, rp[i].seconds_migrate);
    /* a series: the segment, marked where the mesh changes */
    if (seg)
      printf(" %7d (%d)%s", seg[i], rp[i].step + 1,
             i > 0 && seg[i] != seg[i - 1] ? "  <- new mesh" : "");
    printf("\n");
  }
}

static void stats_text(const char *path, int num_files, const mxn_cli_args_t *a,
                       const mxn_load_stats_t *all, int n) {
  printf("stats: %s: %d file(s) on %d rank(s), method %s%s%s\n", path, num_files, n,
         mxn_part_method_name(a->lo.method), a->lo.weight_field ? ", weights " : "",
         a->lo.weight_field ? a->lo.weight_field : "");
  printf("%6s %10s %12s %6s %8s %10s %11s %11s %9s %9s %7s %6s\n", "rank", "owned", "weight",
         "cover", "overlap", "nodes", "MB read", "MB needed", "MB maps", "MB sets", "reads",
         "opens");
  int64_t br = 0, bn = 0, mb = 0, sb = 0;
  double sec[4] = {0, 0, 0, 0};
  for (int r = 0; r < n; r++) {
    const mxn_load_stats_t *x = &all[r];
    printf("%6d %10lld %12.6g %6d %8d %10lld %11.3f %11.3f %9.3f %9.3f %7lld %6lld\n", x->rank,
           (long long)x->owned_elements, x->owned_weight, x->cover_files, x->files_overlapping,
           (long long)x->num_nodes, x->bytes_read / 1e6, x->bytes_needed / 1e6,
           x->map_bytes_read / 1e6, x->set_bytes_read / 1e6, (long long)x->read_calls,
           (long long)x->files_opened);
    br += x->bytes_read;
    bn += x->bytes_needed;
    mb += x->map_bytes_read;
    sb += x->set_bytes_read;
    const double t[4] = {x->seconds_open, x->seconds_partition, x->seconds_plan, x->seconds_read};
    for (int k = 0; k < 4; k++)
      if (t[k] > sec[k]) sec[k] = t[k];
  }
  if (a->lo.ghost_levels > 0) {
    printf("ghost layers %d:\n%6s %10s %12s %12s %11s %9s\n", a->lo.ghost_levels, "rank",
           "ghosts", "ghost nodes", "ghost files", "MB (ghost)", "seconds");
    for (int r = 0; r < n; r++)
      printf("%6d %10lld %12lld %12d %11.3f %9.3f\n", all[r].rank,
             (long long)all[r].ghost_elements, (long long)all[r].ghost_nodes, all[r].ghost_files,
             all[r].ghost_bytes_read / 1e6, all[r].seconds_ghost);
  }
  printf("total elements %lld; imbalance %.4f (max/avg weight); read %.3f MB for %.3f MB needed"
         " (and %.3f MB of id maps, %.3f MB of sets)\n",
         (long long)all[0].total_elements, all[0].imbalance, br / 1e6, bn / 1e6, mb / 1e6,
         sb / 1e6);
  printf("seconds (max over ranks): open %.3f, partition %.3f, plan %.3f, read %.3f\n", sec[0],
         sec[1], sec[2], sec[3]);
}

/* The figures of one segment's load in stats --json of a series. */
static void stats_segment_json(const mxn_series_segment_t *g, int num_files,
                               const mxn_load_stats_t *all, int n, int first) {
  int64_t br = 0, bn = 0, rc = 0, fo = 0;
  double sec[4] = {0, 0, 0, 0};
  for (int r = 0; r < n; r++) {
    br += all[r].bytes_read;
    bn += all[r].bytes_needed;
    rc += all[r].read_calls;
    fo += all[r].files_opened;
    const double t[4] = {all[r].seconds_open, all[r].seconds_partition, all[r].seconds_plan,
                         all[r].seconds_read};
    for (int k = 0; k < 4; k++)
      if (t[k] > sec[k]) sec[k] = t[k];
  }
  printf("%s\n    {\"number\": %d, \"dataset\": ", first ? "" : ",", g->number);
  json_str(stdout, g->path);
  printf(", \"files\": %d, \"total_elements\": %lld, ", num_files,
         (long long)all[0].total_elements);
  json_num("imbalance", all[0].imbalance, ", ");
  printf("\"bytes_read\": %lld, \"bytes_needed\": %lld, \"read_calls\": %lld, "
         "\"files_opened\": %lld, \"seconds_max\": {\"open\": %.6f, \"partition\": %.6f, "
         "\"plan\": %.6f, \"read\": %.6f}}",
         (long long)br, (long long)bn, (long long)rc, (long long)fo, sec[0], sec[1], sec[2],
         sec[3]);
}

/* stats of a series of several segments: a load per segment (a new one
 * where the mesh changes, so --steps re-balancing starts afresh there),
 * the per-rank table of each, then the steps across the segments.
 * Collective; every rank walks the same segments and steps. */
static int stats_series(mxn_cli_args_t *a, const mxn_series_t *sr) {
  int N = world_size(), R = world_rank(), nseg = mxn_series_num_segments(sr),
      T = mxn_series_num_steps(sr), rc = 0;
  int nrp = a->steps ? (a->steps < 0 || a->steps > T ? T : a->steps) : 0;
  mxn_error_t err;
  mxn_error_clear(&err);
  /* the loads: each segment once, or with --steps one per run of steps
   * in one segment (times of segments may interleave) */
  int *vis = calloc((size_t)(nseg + nrp) + 1, sizeof *vis), nvis = 0;
  int *segnum = calloc((size_t)nrp + 1, sizeof *segnum);
  int *vfiles = calloc((size_t)(nseg + nrp) + 1, sizeof *vfiles);
  mxn_rebalance_report_t *rp = calloc((size_t)nrp + 1, sizeof *rp);
  mxn_load_stats_t *all = R == 0 ? calloc((size_t)(nseg + nrp + 1) * (size_t)N, sizeof *all) : NULL;
  int ok = vis && segnum && vfiles && rp && (R != 0 || all), all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    rc = coll_fail("stats", "out of memory");
    goto done;
  }
  for (int i = 0; i < nrp; i++) {
    mxn_series_step_t w;
    mxn_series_step(sr, i, &w);
    if (nvis == 0 || vis[nvis - 1] != w.segment) vis[nvis++] = w.segment;
  }
  if (nrp == 0)
    for (int k = 0; k < nseg; k++) vis[nvis++] = k;
  mxn_rebalance_opts_t ro;
  memset(&ro, 0, sizeof ro);
  ro.strategy = a->strategy;
  ro.weight_field = a->lo.weight_field;
  ro.weight_abs = 1;
  ro.imbalance_tol = a->rebal_none ? 1e300 : a->lo.imbalance_tol;
  ro.measure_fresh = a->fresh;
  int si = 0;
  for (int v = 0; rc == 0 && v < nvis; v++) {
    const mxn_series_segment_t *g = mxn_series_segment(sr, vis[v]);
    mxn_load_t *ld = NULL;
    int st = mxn_load_open(MPI_COMM_WORLD, g->path, &a->lo, &ld, &err);
    for (; st == MXN_OK && si < nrp; si++) {
      mxn_series_step_t w;
      mxn_series_step(sr, si, &w);
      if (w.segment != vis[v]) break;
      segnum[si] = g->number;
      st = mxn_load_rebalance(ld, w.step, &ro, &rp[si], &err);
    }
    if (st != MXN_OK) {
      char m[MXN_ERRMSG_LEN + 64];
      snprintf(m, sizeof m, "series segment %d: %s", g->number, err.msg);
      rc = coll_fail("stats", m);
    } else {
      mxn_load_stats_t mine = mxn_load_stats(ld);
      mine.num_nodes = mxn_load_piece(ld)->num_nodes;
      vfiles[v] = mxn_load_structure(ld)->num_files;
      if (MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all ? all + (size_t)v * N : NULL,
                     (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = coll_fail("stats", "gathering the per-rank figures failed");
    }
    mxn_load_close(&ld);
  }
  if (rc == 0 && R == 0) {
    if (a->json) {
      /* the keys of a dataset's stats describe the first load */
      stats_json(a->pos[0], vfiles[0], a, all, N);
      printf(",\n  \"segments\": [");
      for (int v = 0; v < nvis; v++)
        stats_segment_json(mxn_series_segment(sr, vis[v]), vfiles[v], all + (size_t)v * N, N,
                           v == 0);
      printf("\n  ]");
      if (a->steps) steps_json(a, rp, nrp, segnum);
      printf("\n}\n");
    } else {
      for (int v = 0; v < nvis; v++) {
        const mxn_series_segment_t *g = mxn_series_segment(sr, vis[v]);
        printf("%ssegment %d of the series (%d segments, %d steps):\n", v ? "\n" : "",
               g->number, nseg, T);
        stats_text(g->path, vfiles[v], a, all + (size_t)v * N, N);
      }
      if (a->steps) {
        printf("\n");
        steps_text(a, rp, nrp, segnum);
      }
    }
    fflush(stdout);
  }
done:
  free(vis);
  free(segnum);
  free(vfiles);
  free(rp);
  free(all);
  return rc;
}

int cmd_stats(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    if (world_rank() == 0)
      printf("usage: mpiexec -n N mxn stats DATASET [-n N] [--method M] [--map FILE]\n"
             "                 [--weights FIELD] [--weight-step S] [--tolerance T]\n"
             "                 [--ghosts L] [--json]\n"
             "                 [--steps all|K [--rebalance S] [--fresh]]\n\n"
             "Dry run of the parallel load on N ranks: partition DATASET, read each\n"
             "rank's piece through its cover, write nothing. Rank 0 prints, per rank:\n"
             "owned elements, their weight, member files read (cover) and holding\n"
             "any of its elements (overlap), nodes, bytes read vs needed, bytes of\n"
             "the members' id maps (to find entries by global id) and sets (to keep\n"
             "the piece's entries), read whole per member and not in bytes read,\n"
             "read calls and file opens; then the global imbalance (max/avg\n"
             "weight) and the seconds of each phase. -n N only checks the rank\n"
             "count: one process cannot stand for N ranks, run it under\n"
             "mpiexec -n N.\n"
             "--json prints one object with the keys dataset, files, ranks, method,\n"
             "weights, tolerance, total_elements, imbalance, max_weight, avg_weight,\n"
             "bytes_read, bytes_needed, map_bytes_read, set_bytes_read,\n"
             "partition_bytes_read, read_calls, files_opened, metadata_bytes (the\n"
             "largest over ranks: the bytes of header metadata a rank holds for the\n"
             "dataset, structure and member tables), seconds_max, and\n"
             "ranks_detail: one row per rank with rank, owned, weight, cover_files,\n"
             "files_overlapping, nodes, bytes_read, bytes_needed, map_bytes_read,\n"
             "set_bytes_read, partition_bytes_read, read_calls, files_opened,\n"
             "metadata_bytes, seconds {open, partition, plan, read, piece_read,\n"
             "io} (piece_read: of plan, the time inside member reads; io: inside\n"
             "member reads in the whole load).\n"
             "With --ghosts L also ghost_levels and ghost_elements (all ranks) and,\n"
             "per rank, ghosts, ghost_nodes, ghost_files, ghost_bytes_read and\n"
             "seconds.ghost (finding and reading the halo) and seconds.order (of\n"
             "ghost: owned cells put inner first, a library option; 0 here).\n"
             "--steps all (or K: the first K steps) re-balances at every step: the\n"
             "step's weights (|FIELD| of --weights, floored at 1e-6 of the mean),\n"
             "and when max/avg is over the tolerance new owners by --rebalance S:\n"
             "auto (shift for files/sfc/linear/map, repartition for Zoltan methods),\n"
             "shift (RankDLB cut points of the string), repartition (Zoltan\n"
             "LB_APPROACH=REPARTITION), refine (Zoltan PHG LB_APPROACH=REFINE on\n"
             "the dual graph, any method), diffusion (LuNA Patch, neighbours only),\n"
             "fresh (a new partition), none (measure only). Each rank then reads\n"
             "only what it gained. --json adds rebalance, steps (rows with exactly\n"
             "step, imbalance_before, imbalance_after, migrated, bytes_read: steps\n"
             "1-based, migrated elements and bytes re-read over all ranks) and\n"
             "steps_detail (rebalanced, fresh_migrated (-1 without --fresh: what a\n"
             "fresh partition would move), fresh_imbalance, retries, rounds,\n"
             "fell_back, seconds_balance, seconds_migrate).\n\n"
             SERIES_HELP
             "On a series of several segments each segment is loaded in turn (a\n"
             "new partition where the mesh changes; --steps re-balancing starts\n"
             "afresh there) and its per-rank table printed under its name; the\n"
             "steps are the series' (1-based), each row with its segment and its\n"
             "step within it (--json: steps_detail's segment and segment_step),\n"
             "and --json adds segments: per load, number, dataset, files,\n"
             "total_elements, imbalance, bytes_read, bytes_needed, read_calls,\n"
             "files_opened and seconds_max; the other keys describe the first.\n\n%s",
             coll_options_help);
    return 0;
  }
  mxn_cli_args_t a;
  const char *msg;
  if (mxn_cli_parse(argc, argv, &a, &msg)) return coll_bad_usage("stats", msg);
  int N = world_size(), R = world_rank();
  if (a.nparts > 0 && a.nparts != N) {
    char msg[160];
    if (N == 1)
      snprintf(msg, sizeof msg, "-n %d needs %d processes: run 'mpiexec -n %d mxn stats ...'",
               a.nparts, a.nparts, a.nparts);
    else
      snprintf(msg, sizeof msg, "-n %d disagrees with the %d ranks mxn runs on", a.nparts, N);
    return coll_bad_usage("stats", msg);
  }
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t *ld = NULL;
  if (a.steps) a.lo.dynamic = 1;
  mxn_series_t *sr = NULL;
  int kind = series_of(MPI_COMM_WORLD, a.pos[0], &sr, &err);
  if (kind == SERIES_FAILED) return coll_fail("stats", err.msg);
  if (kind == SERIES_MANY) {
    int src = stats_series(&a, sr);
    mxn_series_close(&sr);
    return src;
  }
  if (mxn_load_open(MPI_COMM_WORLD, a.pos[0], &a.lo, &ld, &err) != MXN_OK) {
    mxn_load_close(&ld);
    return coll_fail("stats", err.msg);
  }
  mxn_rebalance_report_t *rp = NULL;
  int nrp = 0;
  if (a.steps) {
    int T = mxn_load_structure(ld)->num_times;
    nrp = a.steps < 0 || a.steps > T ? T : a.steps;
    rp = calloc((size_t)nrp + 1, sizeof *rp);
    int ok = rp != NULL, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
      free(rp);
      mxn_load_close(&ld);
      return coll_fail("stats", "out of memory");
    }
    mxn_rebalance_opts_t ro;
    memset(&ro, 0, sizeof ro);
    ro.strategy = a.strategy;
    ro.weight_field = a.lo.weight_field;
    ro.weight_abs = 1;
    ro.imbalance_tol = a.rebal_none ? 1e300 : a.lo.imbalance_tol;
    ro.measure_fresh = a.fresh;
    for (int t = 0; t < nrp; t++)
      if (mxn_load_rebalance(ld, t, &ro, &rp[t], &err) != MXN_OK) {
        free(rp);
        mxn_load_close(&ld);
        return coll_fail("stats", err.msg);
      }
  }
  mxn_load_stats_t mine = mxn_load_stats(ld);
  mine.num_nodes = mxn_load_piece(ld)->num_nodes; /* the piece is the authority */
  mxn_load_stats_t *all = R == 0 ? calloc((size_t)N, sizeof *all) : NULL;
  /* Out of memory on rank 0 must not leave the others in the gather. */
  int ok = R != 0 || all != NULL;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) {
    mxn_load_close(&ld);
    return coll_fail("stats", "out of memory on rank 0");
  }
  /* The same binary on every rank: the struct travels as bytes. */
  int rc = MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
                      MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    free(all);
    mxn_load_close(&ld);
    return coll_fail("stats", "gathering the per-rank figures failed");
  }
  if (R == 0) {
    if (a.json) {
      stats_json(a.pos[0], mxn_load_structure(ld)->num_files, &a, all, N);
      if (a.steps) steps_json(&a, rp, nrp, NULL);
      printf("\n}\n");
    } else {
      stats_text(a.pos[0], mxn_load_structure(ld)->num_files, &a, all, N);
      if (a.steps) steps_text(&a, rp, nrp, NULL);
    }
    fflush(stdout);
  }
  free(rp);
  free(all);
  mxn_load_close(&ld);
  return 0;
}
