/* mxn: the command-line forms of MxN (info, join, split, diff, and the
 * collective repart and stats, run under mpiexec).
 * Exit codes: 0 success, 1 failure (message on stderr naming the file),
 * 2 bad usage; diff exits 1 when the datasets differ and 3 when one
 * cannot be read. The collective commands exit with the same code on
 * every rank and only rank 0 prints. */
#include "mxn/mxn.h"
#include "mxn_args.h"
#include "mxn_cli.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage_main(FILE *f) {
  fprintf(f,
          "usage: mxn COMMAND [ARGS]\n"
          "\n"
          "Load-time MxN repartitioning of Exodus II datasets (version %s).\n"
          "A DATASET is a plain Exodus file, any member of a spread set\n"
          "(mesh.e.4.0), or the base name of one (mesh.e). A file of an\n"
          "adaptive series (out.e, out.e-s002, ...) names the whole series,\n"
          "which info, stats, join and repart take segment by segment.\n"
          "\n"
          "commands:\n"
          "  info DATASET [--json]          files, counts, blocks, sets, variables, times\n"
          "  join DATASET OUT               M files -> 1 file\n"
          "  split MESH OUTBASE -n M [--method M]\n"
          "                                 1 -> M files OUTBASE.M.j with Nemesis metadata\n"
          "  diff A B [options]             compare two datasets by global ids\n"
          "  repart DATASET OUTBASE [--method M]\n"
          "                                 M -> N files OUTBASE.N.i, one per MPI rank\n"
          "                                 (run as: mpiexec -n N mxn repart ...)\n"
          "  stats DATASET [-n N] [--json]  the parallel load's partition and reads per\n"
          "                                 rank, without writing (under mpiexec -n N)\n"
          "\n"
          "Run 'mxn COMMAND --help' for a command's options.\n",
          MXN_VERSION_STRING);
}




/* ---------- adaptive series (mxn/series.h) ---------- */


/* Warnings of a dataset (mxn_structure_warnings(), one a line): each on
 * stderr as "warning: TEXT", whatever --quiet says. */
static void print_warnings(const char *w) {
  while (w && *w) {
    const char *nl = strchr(w, '\n');
    int n = nl ? (int)(nl - w) : (int)strlen(w);
    fprintf(stderr, "warning: %.*s\n", n, w);
    w += n + (nl ? 1 : 0);
  }
}

/* Where a form written from a series puts segment g: OUT for the segment
 * named without -sNNN, else OUT-sNNN with NNN as the input wrote it. */
static void segment_out(char *buf, size_t cap, const char *out, const mxn_series_segment_t *g) {
  if (g->width == 0)
    snprintf(buf, cap, "%s", out);
  else
    snprintf(buf, cap, "%s-s%0*d", out, g->width, g->number);
}

/* ---------- info ---------- */



static void json_names(FILE *f, int n, char (*names)[MXN_NAME_LEN]) {
  fputc('[', f);
  for (int k = 0; k < n; k++) {
    if (k) fputs(", ", f);
    json_str(f, names[k]);
  }
  fputc(']', f);
}

/* Per-entry size of a block as text: "x8", or for poly blocks the range
 * of node (n) or face (f) counts, e.g. "3-6n", "5-6f". */
static const char *per_entry(const mxn_block_info_t *bi, const mxn_piece_block_t *pb, char *buf,
                             size_t cap, long long *lo_out, long long *hi_out) {
  if (!bi->poly) {
    snprintf(buf, cap, "x%d", bi->nodes_per_elem);
    *lo_out = *hi_out = bi->nodes_per_elem;
    return buf;
  }
  const int64_t *off = bi->poly == MXN_POLY_NFACED ? pb->face_off : pb->conn_off;
  long long lo = 0, hi = 0;
  for (int64_t k = 0; off && k < pb->num_elements; k++) {
    long long c = (long long)(off[k + 1] - off[k]);
    if (k == 0 || c < lo) lo = c;
    if (k == 0 || c > hi) hi = c;
  }
  snprintf(buf, cap, "%lld-%lld%c", lo, hi, bi->poly == MXN_POLY_NFACED ? 'f' : 'n');
  *lo_out = lo;
  *hi_out = hi;
  return buf;
}

/* One JSON array of blocks (element, edge or face). */
static void json_blocks(const char *key, int n, const mxn_block_info_t *bi,
                        const mxn_piece_block_t *pb, int elements) {
  printf("  \"%s\": [", key);
  for (int b = 0; b < n; b++) {
    printf("%s\n    {\"id\": %lld, \"name\": ", b ? "," : "", (long long)bi[b].id);
    json_str(stdout, bi[b].name);
    printf(", \"type\": ");
    json_str(stdout, bi[b].type);
    if (elements)
      printf(", \"nodes_per_element\": %d, \"edges_per_element\": %d, "
             "\"faces_per_element\": %d",
             bi[b].nodes_per_elem, bi[b].edges_per_elem, bi[b].faces_per_elem);
    else
      printf(", \"nodes_per_entry\": %d", bi[b].nodes_per_elem);
    if (bi[b].poly) {
      char t[48];
      long long lo, hi;
      per_entry(&bi[b], &pb[b], t, sizeof t, &lo, &hi);
      const int64_t *off = bi[b].poly == MXN_POLY_NFACED ? pb[b].face_off : pb[b].conn_off;
      printf(", \"poly\": \"%s\", \"min_per_entry\": %lld, \"max_per_entry\": %lld, "
             "\"references\": %lld",
             bi[b].poly == MXN_POLY_NFACED ? "faces" : "nodes", lo, hi,
             off ? (long long)off[pb[b].num_elements] : 0LL);
    }
    printf(", \"attributes\": %d, \"count\": %lld}", bi[b].num_attr,
           (long long)pb[b].num_elements);
  }
  printf("%s],\n", n ? "\n  " : "");
}

/* One JSON array of sets. */
static void json_sets(const char *key, int n, const mxn_set_info_t *si,
                      const mxn_piece_set_t *ps) {
  printf("  \"%s\": [", key);
  for (int q = 0; q < n; q++) {
    printf("%s\n    {\"id\": %lld, \"name\": ", q ? "," : "", (long long)si[q].id);
    json_str(stdout, si[q].name);
    printf(", \"count\": %lld, \"distribution_factors\": %s}", (long long)ps[q].n,
           ps[q].df ? "true" : "false");
  }
  printf("%s],\n", n ? "\n  " : "");
}

static void json_maps(int n, const mxn_map_info_t *m) {
  fputc('[', stdout);
  for (int k = 0; k < n; k++) {
    if (k) fputs(", ", stdout);
    json_str(stdout, m[k].name);
  }
  fputc(']', stdout);
}

static void text_blocks(const char *what, const char *unit, int n, const mxn_block_info_t *bi,
                        const mxn_piece_block_t *pb) {
  printf("%-9s %d\n", what, n);
  for (int b = 0; b < n; b++) {
    char t[48];
    long long lo, hi;
    printf("  id %-8lld %-10s %-6s %8lld %-9s %s\n", (long long)bi[b].id,
           bi[b].type[0] ? bi[b].type : "(empty)", per_entry(&bi[b], &pb[b], t, sizeof t, &lo, &hi),
           (long long)pb[b].num_elements, unit, bi[b].name);
  }
}

static void text_sets(const char *what, const char *unit, int n, const mxn_set_info_t *si,
                      const mxn_piece_set_t *ps) {
  printf("%-9s %d\n", what, n);
  for (int q = 0; q < n; q++)
    printf("  id %-8lld %10lld %-9s %s\n", (long long)si[q].id, (long long)ps[q].n, unit,
           si[q].name);
}

/* A segment of a series as info shows it: its dataset (for the member
 * names) and its exact counts. */
typedef struct {
  mxn_dataset_t *ds;
  int64_t nodes, elements;
} seg_info_t;

static int segment_info(const mxn_series_segment_t *g, seg_info_t *si, mxn_error_t *err) {
  mxn_piece_t *pc = NULL;
  if (mxn_dataset_create(&si->ds) != MXN_OK)
    return mxn_error_set(err, MXN_ERR_NOMEM, "out of memory");
  int st = mxn_dataset_open(si->ds, g->path);
  if (st == MXN_OK) {
    mxn_extract_opts_t eo;
    memset(&eo, 0, sizeof eo);
    eo.gap = 1 << 20;
    eo.no_attributes = 1;
    st = mxn_extract(si->ds, NULL, &eo, &pc);
  }
  if (st != MXN_OK)
    return mxn_error_set(err, st, "series segment %d: %s", g->number, mxn_dataset_errmsg(si->ds));
  si->nodes = pc->num_nodes;
  si->elements = pc->num_elements;
  mxn_piece_destroy(&pc);
  return MXN_OK;
}

/* The series' part of info --json: the segment of each step and the
 * segments. */
static void info_segments_json(const mxn_series_t *sr, const seg_info_t *si) {
  int n = mxn_series_num_segments(sr), T = mxn_series_num_steps(sr);
  printf(",\n  \"step_segments\": [");
  for (int i = 0; i < T; i++) {
    mxn_series_step_t w;
    mxn_series_step(sr, i, &w);
    printf("%s%d", i ? ", " : "", mxn_series_segment(sr, w.segment)->number);
  }
  printf("],\n  \"segments\": [");
  for (int k = 0; k < n; k++) {
    const mxn_series_segment_t *g = mxn_series_segment(sr, k);
    const mxn_structure_t *s = mxn_dataset_structure(si[k].ds);
    printf("%s\n    {\"number\": %d, \"dataset\": ", k ? "," : "", g->number);
    json_str(stdout, g->path);
    printf(", \"num_files\": %d, \"file_names\": [", s->num_files);
    for (int j = 0; j < s->num_files; j++) {
      if (j) printf(", ");
      json_str(stdout, mxn_dataset_file_path(si[k].ds, j));
    }
    printf("], \"num_dim\": %d, \"num_nodes\": %lld, \"num_elements\": %lld, \"times\": [",
           g->num_dim, (long long)si[k].nodes, (long long)si[k].elements);
    for (int t = 0; t < g->num_times; t++) printf("%s%.17g", t ? ", " : "", g->times[t]);
    printf("], \"first_step\": %d, \"num_series_steps\": %d}", g->first_step + 1,
           g->num_series_steps);
  }
  printf("\n  ]");
}

/* The series' part of info's text. */
static void info_segments_text(const mxn_series_t *sr, const seg_info_t *si) {
  int n = mxn_series_num_segments(sr);
  for (int k = 0; k < n; k++) {
    const mxn_series_segment_t *g = mxn_series_segment(sr, k);
    const mxn_structure_t *s = mxn_dataset_structure(si[k].ds);
    printf("segment   %d  %s\n", g->number, g->path);
    printf("  files     %d%s\n", s->num_files, s->num_files > 1 ? " (spread set)" : "");
    for (int j = 0; j < s->num_files && s->num_files > 1; j++)
      if (j < 3 || j == s->num_files - 1)
        printf("            %s\n", mxn_dataset_file_path(si[k].ds, j));
      else if (j == 3)
        printf("            ...\n");
    printf("  nodes     %lld\n  elements  %lld\n  times     %d", (long long)si[k].nodes,
           (long long)si[k].elements, g->num_times);
    if (g->num_times > 0) printf(" (%.6g .. %.6g)", g->times[0], g->times[g->num_times - 1]);
    if (g->num_series_steps > 0)
      printf(", series steps %d..%d%s\n", g->first_step + 1,
             g->first_step + g->num_series_steps,
             g->num_series_steps < g->num_times ? " (some times read from a later segment)" : "");
    else
      printf(", no series step (every time read from a later segment)\n");
  }
}

static int cmd_info(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("usage: mxn info DATASET [--json]\n\n"
           "Print the dataset's file count M, global node and element counts\n"
           "(distinct global ids over all files), element blocks (id, name,\n"
           "type, count), edge and face blocks, node, side, edge, face and\n"
           "element sets, numbered maps, assemblies, QA and information records,\n"
           "variables and time values.\n"
           "--json prints one JSON object with the keys files, num_files,\n"
           "num_dim, num_nodes, num_elements, blocks, node_sets, side_sets,\n"
           "variables {nodal, element, global, edge, face, node_set, side_set,\n"
           "edge_set, face_set, element_set}, times, num_edges, num_faces,\n"
           "edge_blocks, face_blocks, edge_sets, face_sets, element_sets,\n"
           "maps {node, edge, face, element}, qa_records (member 0's QA records,\n"
           "each [code, version, date, time]), info_records (its information\n"
           "lines), assemblies (id, name, type of its members, member ids),\n"
           "id_fallback {elements_by_position, nodes_by_coordinates, warning},\n"
           "hint_warning.\n"
           "The text output lists assemblies, QA and information records where\n"
           "there are any.\n"
           "Id maps that cannot be trusted (an id repeated within a member, one\n"
           "node id at different points in two members) are replaced, as the\n"
           "text output's \"warning\" line says: elements by member and position,\n"
           "nodes by their coordinates.\n"
           "Writers' hints are checked, not trusted: Nemesis global counts the\n"
           "members do not bear out (as after mesh adaptivity) are said once\n"
           "(hint_warning) and what the members hold is read.\n"
           "Warnings also go to stderr as \"warning: ...\".\n\n"
           SERIES_HELP
           "For a series of several segments, info describes its first segment\n"
           "(files, counts, blocks, sets, variables) but gives the series' times,\n"
           "then each segment: its files, M, nodes, elements, times and the\n"
           "series steps read from it. --json adds the keys step_segments (the\n"
           "segment number of each series step) and segments: one object per\n"
           "segment with number, dataset, num_files, file_names, num_dim,\n"
           "num_nodes, num_elements, times, first_step (1-based; 0 when every\n"
           "time of it is read from a later segment) and num_series_steps. A\n"
           "single dataset prints as it always did.\n");
    return 0;
  }
  mxn_cli_args_t a;
  const char *msg;
  if (mxn_cli_parse(argc, argv, &a, &msg)) return bad_usage("info", msg);
  const char *path = a.pos[0];
  int json = a.json;
  mxn_dataset_t *ds = NULL;
  mxn_piece_t *pc = NULL;
  mxn_series_t *sr = NULL;
  seg_info_t *si = NULL;
  int rc = 1, nseg = 0;
  mxn_error_t serr;
  /* A series of several segments: info shows the first with the series'
   * times, then every segment (each read whole for its counts). */
  int kind = series_of(MPI_COMM_NULL, path, &sr, &serr);
  if (kind == SERIES_FAILED) return fail("info", serr.msg);
  if (kind == SERIES_MANY) {
    nseg = mxn_series_num_segments(sr);
    if (!(si = calloc((size_t)nseg, sizeof *si))) {
      fail("info", "out of memory");
      goto done;
    }
    for (int k = 0; k < nseg; k++)
      if (segment_info(mxn_series_segment(sr, k), &si[k], &serr) != MXN_OK) {
        fail("info", serr.msg);
        goto done;
      }
  }
  const char *open_path = nseg ? mxn_series_segment(sr, 0)->path : path;
  if (mxn_dataset_create(&ds) != MXN_OK) {
    fail("info", "out of memory");
    goto done;
  }
  if (mxn_dataset_open(ds, open_path) != MXN_OK) {
    fail("info", mxn_dataset_errmsg(ds));
    goto done;
  }
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  /* Exact counts (distinct ids, sets without repeats) come from a full
   * extraction of the mesh part, which reads no field values. */
  mxn_extract_opts_t eo;
  memset(&eo, 0, sizeof eo);
  eo.gap = 1 << 20;
  eo.no_attributes = 1;
  if (mxn_extract(ds, NULL, &eo, &pc) != MXN_OK) {
    fail("info", mxn_dataset_errmsg(ds));
    goto done;
  }
  {
    char w[2 * MXN_ERRMSG_LEN];
    mxn_structure_warnings(s, w, sizeof w);
    print_warnings(w);
  }
  if (json) {
    printf("{\n  \"dataset\": ");
    json_str(stdout, path);
    printf(",\n  \"files\": %d,\n  \"num_files\": %d,\n  \"file_names\": [", s->num_files,
           s->num_files);
    for (int j = 0; j < s->num_files; j++) {
      if (j) printf(", ");
      json_str(stdout, mxn_dataset_file_path(ds, j));
    }
    printf("],\n  \"title\": ");
    json_str(stdout, s->title);
    printf(",\n  \"num_dim\": %d,\n  \"num_nodes\": %lld,\n  \"num_elements\": %lld,\n",
           s->num_dim, (long long)pc->num_nodes, (long long)pc->num_elements);
    json_blocks("blocks", s->num_blocks, s->blocks, pc->blocks, 1);
    json_sets("node_sets", s->num_node_sets, s->node_sets, pc->node_sets);
    json_sets("side_sets", s->num_side_sets, s->side_sets, pc->side_sets);
    printf("  \"variables\": {\"nodal\": ");
    json_names(stdout, s->num_node_vars, s->node_var_names);
    printf(", \"element\": ");
    json_names(stdout, s->num_elem_vars, s->elem_var_names);
    printf(", \"global\": ");
    json_names(stdout, s->num_global_vars, s->global_var_names);
    const struct {
      const char *key;
      const mxn_var_list_t *v;
    } vk[] = {{"edge", &s->edge_vars},          {"face", &s->face_vars},
              {"node_set", &s->node_set_vars},  {"side_set", &s->side_set_vars},
              {"edge_set", &s->edge_set_vars},  {"face_set", &s->face_set_vars},
              {"element_set", &s->elem_set_vars}};
    for (size_t k = 0; k < sizeof vk / sizeof vk[0]; k++) {
      printf(", \"%s\": ", vk[k].key);
      json_names(stdout, vk[k].v->num, vk[k].v->names);
    }
    printf("},\n  \"times\": [");
    const int nt = nseg ? mxn_series_num_steps(sr) : s->num_times;
    const double *times = nseg ? mxn_series_times(sr) : s->times;
    for (int t = 0; t < nt; t++) printf("%s%.17g", t ? ", " : "", times[t]);
    printf("],\n  \"num_edges\": %lld,\n  \"num_faces\": %lld,\n", (long long)pc->num_edges,
           (long long)pc->num_faces);
    json_blocks("edge_blocks", s->num_edge_blocks, s->edge_blocks, pc->edge_blocks, 0);
    json_blocks("face_blocks", s->num_face_blocks, s->face_blocks, pc->face_blocks, 0);
    json_sets("edge_sets", s->num_edge_sets, s->edge_sets, pc->edge_sets);
    json_sets("face_sets", s->num_face_sets, s->face_sets, pc->face_sets);
    json_sets("element_sets", s->num_elem_sets, s->elem_sets, pc->elem_sets);
    printf("  \"maps\": {\"node\": ");
    json_maps(s->num_node_maps, s->node_maps);
    printf(", \"edge\": ");
    json_maps(s->num_edge_maps, s->edge_maps);
    printf(", \"face\": ");
    json_maps(s->num_face_maps, s->face_maps);
    printf(", \"element\": ");
    json_maps(s->num_elem_maps, s->elem_maps);
    printf("},\n  \"qa_records\": [");
    for (int q = 0; q < s->num_qa; q++) {
      printf("%s\n    [", q ? "," : "");
      for (int k = 0; k < 4; k++) {
        if (k) printf(", ");
        json_str(stdout, s->qa_records[q][k]);
      }
      printf("]");
    }
    printf("%s],\n  \"info_records\": [", s->num_qa ? "\n  " : "");
    for (int i = 0; i < s->num_info; i++) {
      printf("%s\n    ", i ? "," : "");
      json_str(stdout, s->info_records[i]);
    }
    printf("%s],\n  \"assemblies\": [", s->num_info ? "\n  " : "");
    for (int a = 0; a < s->num_assemblies; a++) {
      const mxn_assembly_info_t *as = &s->assemblies[a];
      printf("%s\n    {\"id\": %lld, \"name\": ", a ? "," : "", (long long)as->id);
      json_str(stdout, as->name);
      printf(", \"type\": ");
      json_str(stdout, mxn_entity_type_name(as->type));
      printf(", \"members\": [");
      for (int64_t m = 0; m < as->num_members; m++)
        printf("%s%lld", m ? ", " : "", (long long)as->members[m]);
      printf("]}");
    }
    printf("%s]", s->num_assemblies ? "\n  " : "");
    /* Content this version would refuse is refused when the dataset opens
     * (polyhedra), so nothing is ever listed here; the key stays for
     * scripts written against earlier versions. */
    printf(",\n  \"unsupported\": {},\n");
    printf("  \"id_fallback\": {\"elements_by_position\": %s, \"nodes_by_coordinates\": %s, "
           "\"warning\": ",
           s->id_fallback & MXN_IDS_ELEM_BY_POSITION ? "true" : "false",
           s->id_fallback & MXN_IDS_NODE_BY_COORDS ? "true" : "false");
    json_str(stdout, s->id_warning);
    printf("}");
    printf(",\n  \"hint_warning\": ");
    json_str(stdout, s->hint_warning);
    if (nseg) info_segments_json(sr, si);
    printf("\n}\n");
  } else {
    printf("dataset   %s\n", path);
    if (nseg)
      printf("series    %d segments; up to 'times', segment %d (%s)\n", nseg,
             mxn_series_segment(sr, 0)->number, open_path);
    printf("files     %d%s\n", s->num_files, s->num_files > 1 ? " (spread set)" : "");
    for (int j = 0; j < s->num_files && s->num_files > 1; j++)
      if (j < 3 || j == s->num_files - 1)
        printf("          %s\n", mxn_dataset_file_path(ds, j));
      else if (j == 3)
        printf("          ...\n");
    printf("title     %s\n", s->title);
    if (s->id_fallback) printf("warning   %s\n", s->id_warning);
    if (s->hint_warning[0]) printf("warning   %s\n", s->hint_warning);
    printf("dimension %d\nnodes     %lld\nelements  %lld\n", s->num_dim,
           (long long)pc->num_nodes, (long long)pc->num_elements);
    printf("blocks    %d\n", s->num_blocks);
    for (int b = 0; b < s->num_blocks; b++) {
      char t[48];
      long long lo, hi;
      printf("  id %-8lld %-10s %-6s %8lld elements  %s\n", (long long)s->blocks[b].id,
             s->blocks[b].type[0] ? s->blocks[b].type : "(empty)",
             per_entry(&s->blocks[b], &pc->blocks[b], t, sizeof t, &lo, &hi),
             (long long)pc->blocks[b].num_elements, s->blocks[b].name);
    }
    if (s->num_edge_blocks) {
      printf("edges     %lld\n", (long long)pc->num_edges);
      text_blocks("edge blks", "edges", s->num_edge_blocks, s->edge_blocks, pc->edge_blocks);
    }
    if (s->num_face_blocks) {
      printf("faces     %lld\n", (long long)pc->num_faces);
      text_blocks("face blks", "faces", s->num_face_blocks, s->face_blocks, pc->face_blocks);
    }
    text_sets("node sets", "nodes", s->num_node_sets, s->node_sets, pc->node_sets);
    text_sets("side sets", "sides", s->num_side_sets, s->side_sets, pc->side_sets);
    if (s->num_edge_sets) text_sets("edge sets", "edges", s->num_edge_sets, s->edge_sets, pc->edge_sets);
    if (s->num_face_sets) text_sets("face sets", "faces", s->num_face_sets, s->face_sets, pc->face_sets);
    if (s->num_elem_sets)
      text_sets("elem sets", "elements", s->num_elem_sets, s->elem_sets, pc->elem_sets);
    if (s->num_node_maps + s->num_edge_maps + s->num_face_maps + s->num_elem_maps) {
      printf("maps      node %d, edge %d, face %d, element %d\n", s->num_node_maps,
             s->num_edge_maps, s->num_face_maps, s->num_elem_maps);
      const mxn_map_info_t *mk[4] = {s->node_maps, s->edge_maps, s->face_maps, s->elem_maps};
      const int nk[4] = {s->num_node_maps, s->num_edge_maps, s->num_face_maps, s->num_elem_maps};
      const char *wk[4] = {"node", "edge", "face", "element"};
      for (int k = 0; k < 4; k++)
        for (int m = 0; m < nk[k]; m++)
          printf("  %-8s id %-8lld %s\n", wk[k], (long long)mk[k][m].id, mk[k][m].name);
    }
    if (s->num_assemblies) {
      printf("assemblies %d\n", s->num_assemblies);
      for (int a = 0; a < s->num_assemblies; a++) {
        const mxn_assembly_info_t *as = &s->assemblies[a];
        printf("  id %-8lld %-13s %4lld members  %s:", (long long)as->id,
               mxn_entity_type_name(as->type), (long long)as->num_members, as->name);
        for (int64_t m = 0; m < as->num_members; m++) printf(" %lld", (long long)as->members[m]);
        printf("\n");
      }
    }
    if (s->num_qa) printf("qa        %d\n", s->num_qa);
    for (int q = 0; q < s->num_qa; q++)
      printf("  %-32s %-32s %-32s %s\n", s->qa_records[q][0], s->qa_records[q][1],
             s->qa_records[q][2], s->qa_records[q][3]);
    if (s->num_info) printf("info      %d\n", s->num_info);
    for (int i = 0; i < s->num_info; i++) printf("  %s\n", s->info_records[i]);
    printf("variables nodal %d, element %d, global %d\n", s->num_node_vars, s->num_elem_vars,
           s->num_global_vars);
    for (int v = 0; v < s->num_node_vars; v++) printf("  nodal    %s\n", s->node_var_names[v]);
    for (int v = 0; v < s->num_elem_vars; v++) printf("  element  %s\n", s->elem_var_names[v]);
    for (int v = 0; v < s->num_global_vars; v++) printf("  global   %s\n", s->global_var_names[v]);
    const struct {
      const char *what;
      const mxn_var_list_t *v;
    } vk[] = {{"edge", &s->edge_vars},          {"face", &s->face_vars},
              {"node set", &s->node_set_vars},  {"side set", &s->side_set_vars},
              {"edge set", &s->edge_set_vars},  {"face set", &s->face_set_vars},
              {"elem set", &s->elem_set_vars}};
    for (size_t k = 0; k < sizeof vk / sizeof vk[0]; k++)
      for (int v = 0; v < vk[k].v->num; v++) printf("  %-8s %s\n", vk[k].what, vk[k].v->names[v]);
    const int nt = nseg ? mxn_series_num_steps(sr) : s->num_times;
    const double *times = nseg ? mxn_series_times(sr) : s->times;
    printf("times     %d", nt);
    if (nt > 0) printf(" (%.6g .. %.6g)", times[0], times[nt - 1]);
    if (nseg) printf(" over the series");
    printf("\n");
    if (nseg) info_segments_text(sr, si);
  }
  rc = 0;
done:
  for (int k = 0; si && k < nseg; k++) mxn_dataset_destroy(&si[k].ds);
  free(si);
  mxn_series_close(&sr);
  mxn_piece_destroy(&pc);
  mxn_dataset_destroy(&ds);
  return rc;
}

/* ---------- join / split ---------- */

static void print_report(const char *what, const mxn_form_report_t *r) {
  printf("%s: %d file(s) -> %d file(s): %lld nodes, %lld elements, %d time steps\n", what,
         r->files_in, r->files_out, (long long)r->num_nodes, (long long)r->num_elements,
         r->num_steps);
  printf("  read %.1f MB in %lld calls from %lld file opens (%.2f s); wrote %.1f MB (%.2f s)",
         r->read.bytes_read / 1e6, (long long)r->read.read_calls,
         (long long)r->read.files_opened, r->seconds_read, r->written.bytes_written / 1e6,
         r->seconds_write);
  if (r->files_out > 1)
    printf("; partition %.2f s; elements per file %lld..%lld", r->seconds_partition,
           (long long)r->min_part_elements, (long long)r->max_part_elements);
  printf("\n");
}

/* The writing commands' file format options. */
static const char *format_help =
    "  --format nc3|nc4  nc3 (default): netCDF-3 64-bit offset files, as Exodus\n"
    "                    writes them (64-bit ids: netCDF-4); nc4: netCDF-4\n"
    "                    (HDF5), chunked along the entities, a step per chunk\n"
    "  --compress L      deflate level L (0-9) with shuffle; L > 0 writes nc4\n";

static int cmd_join(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("usage: mxn join DATASET OUT [--int64] [--format nc3|nc4] [--compress L]\n"
           "                [--quiet]\n\n"
           "Join the M files of DATASET into the single Exodus file OUT (what\n"
           "SEACAS epu does): every element, edge and face block, every set,\n"
           "numbered map, variable and time step; entities ordered by global id;\n"
           "element ids that nem_spread kept in original_global_id_map are\n"
           "restored. OUT appears only when complete.\n\n"
           "A DATASET of an adaptive series is joined segment by segment into a\n"
           "series of the same names: OUT, OUT-s002, OUT-s003, ... (the numbers\n"
           "as wide as the input's), each segment reported on its own line.\n\n"
           SERIES_HELP "\n%s",
           format_help);
    return 0;
  }
  mxn_cli_args_t a;
  const char *msg;
  if (mxn_cli_parse(argc, argv, &a, &msg)) return bad_usage("join", msg);
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_form_report_t rep;
  mxn_series_t *sr = NULL;
  int kind = series_of(MPI_COMM_NULL, a.pos[0], &sr, &err);
  if (kind == SERIES_FAILED) return fail("join", err.msg);
  if (kind == SERIES_SINGLE) {
    if (mxn_join(a.pos[0], a.pos[1], &a.form, &rep, &err) != MXN_OK) return fail("join", err.msg);
    print_warnings(rep.warnings);
    if (!a.quiet) print_report("join", &rep);
    return 0;
  }
  int rc = 0;
  for (int k = 0; rc == 0 && k < mxn_series_num_segments(sr); k++) {
    const mxn_series_segment_t *g = mxn_series_segment(sr, k);
    char out[4096];
    segment_out(out, sizeof out, a.pos[1], g);
    if (mxn_join(g->path, out, &a.form, &rep, &err) != MXN_OK) {
      char m[MXN_ERRMSG_LEN + 64];
      snprintf(m, sizeof m, "series segment %d: %s", g->number, err.msg);
      rc = fail("join", m);
    } else {
      print_warnings(rep.warnings);
      if (!a.quiet) {
        printf("segment %d: %s -> %s\n", g->number, g->path, out);
        print_report("join", &rep);
      }
    }
  }
  mxn_series_close(&sr);
  return rc;
}

static int cmd_split(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("usage: mxn split MESH OUTBASE -n M [--method linear|sfc|rcb|rib|hsfc|graph]\n"
           "                 [--imbalance TOL] [--int64] [--format nc3|nc4]\n"
           "                 [--compress L] [--quiet]\n\n"
           "Split MESH into M files OUTBASE.M.j (j zero-padded to the width of M,\n"
           "like nem_spread). Each file has global node/element id maps and the\n"
           "Nemesis load-balance metadata: global counts, internal and border\n"
           "node and element maps, node communication maps.\n"
           "methods: rcb (default), rib, hsfc, graph (Zoltan; graph = PHG on the\n"
           "dual graph), sfc (Hilbert curve of centroids cut into equal pieces),\n"
           "linear (contiguous global id ranges).\n\n%s",
           format_help);
    return 0;
  }
  mxn_cli_args_t a;
  const char *msg;
  if (mxn_cli_parse(argc, argv, &a, &msg)) return bad_usage("split", msg);
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_form_report_t rep;
  if (mxn_split(a.pos[0], a.pos[1], a.nparts, a.method, &a.form, &rep, &err) != MXN_OK)
    return fail("split", err.msg);
  print_warnings(rep.warnings);
  if (!a.quiet) print_report("split", &rep);
  return 0;
}

/* ---------- diff ---------- */

static int cmd_diff(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("usage: mxn diff A B [--tol T] [--rel R] [--by-type] [--common]\n"
           "                    [--id-offset] [--max N]\n\n"
           "Compare datasets A and B by global ids: coordinates per node id,\n"
           "connectivity as node ids per element, edge and face id (element\n"
           "edges and faces as their ids), attributes, node, side, edge, face\n"
           "and element sets as sets of ids, numbered maps by name, every\n"
           "variable at every time step. Order and file count do not matter.\n"
           "Exit 0 when equal, 1 when they differ, 3 when a dataset cannot be\n"
           "read.\n"
           "  --tol T, --rel R  accept |a-b| <= T + R*max(|a|,|b|) (default exact)\n"
           "  --by-type         pair non-empty blocks by element type, not id\n"
           "  --common          compare only variables and sets both hold\n"
           "  --id-offset       ids may differ by a constant (0- vs 1-based)\n"
           "  --max N           list at most N differences\n");
    return 0;
  }
  mxn_cli_args_t a;
  const char *msg;
  if (mxn_cli_parse(argc, argv, &a, &msg)) return bad_usage("diff", msg);
  mxn_error_t err;
  mxn_error_clear(&err);
  char *report = NULL;
  int st = mxn_compare(a.pos[0], a.pos[1], &a.cmp, &report, &err);
  if (report) fputs(report, stdout);
  free(report);
  if (st == MXN_OK) {
    printf("equal\n");
    return 0;
  }
  if (st == MXN_ERR_DIFFERENT) return 1;
  fail("diff", err.msg);
  return 3;
}

/* ---------- repart / stats (collective, under mpiexec) ---------- */






static int cmd_repart(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    if (world_rank() == 0)
      printf("usage: mpiexec -n N mxn repart DATASET OUTBASE [--method M] [--map FILE]\n"
             "                  [--weights FIELD] [--weight-step S] [--tolerance T]\n"
             "                  [--ghosts L] [--format nc3|nc4] [--compress L] [--quiet]\n\n"
             "The parallel form of M -> N: each of the N ranks loads its balanced\n"
             "piece of DATASET (M files), reading only the member files that cover\n"
             "it, and writes it as OUTBASE.N.i (i = rank, zero-padded to the width\n"
             "of N) with global id maps, every variable and time step, and the\n"
             "Nemesis load-balance metadata (global counts, internal/border node\n"
             "and element maps, node communication maps). The set appears only\n"
             "when every rank has written its member; if one rank fails, all\n"
             "exit 1 with the same message and no member is left behind.\n"
             "With --ghosts L each member also holds its L ghost layers, marked by\n"
             "the element variable vtkGhostType (1 on ghost copies, 0 on owned\n"
             "elements); mxn join keeps one copy of each element and drops it.\n\n"
             "A DATASET of an adaptive series is re-partitioned segment by segment,\n"
             "each on its own (a new partition per mesh), into a series of the same\n"
             "names: OUTBASE.N.i, OUTBASE-s002.N.i, OUTBASE-s003.N.i, ... (the\n"
             "numbers as wide as the input's), each segment reported on its own line.\n\n"
             SERIES_HELP "\n%s%s",
             coll_options_help, format_help);
    return 0;
  }
  mxn_cli_args_t a;
  const char *msg;
  if (mxn_cli_parse(argc, argv, &a, &msg)) return coll_bad_usage("repart", msg);
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_form_report_t rep;
  mxn_series_t *sr = NULL;
  int kind = series_of(MPI_COMM_WORLD, a.pos[0], &sr, &err);
  if (kind == SERIES_FAILED) return coll_fail("repart", err.msg);
  if (kind == SERIES_SINGLE) {
    if (mxn_repart_format(MPI_COMM_WORLD, a.pos[0], a.pos[1], &a.lo, &a.form.file, &rep, &err) !=
        MXN_OK)
      return coll_fail("repart", err.msg);
    if (world_rank() == 0) print_warnings(rep.warnings);
    if (!a.quiet && world_rank() == 0) print_report("repart", &rep);
    return 0;
  }
  /* every rank walks the same segments and stops at the same one (the
   * repart's errors are agreed) */
  int rc = 0;
  for (int k = 0; rc == 0 && k < mxn_series_num_segments(sr); k++) {
    const mxn_series_segment_t *g = mxn_series_segment(sr, k);
    char out[4096];
    segment_out(out, sizeof out, a.pos[1], g);
    if (mxn_repart_format(MPI_COMM_WORLD, g->path, out, &a.lo, &a.form.file, &rep, &err) !=
        MXN_OK) {
      char m[MXN_ERRMSG_LEN + 64];
      snprintf(m, sizeof m, "series segment %d: %s", g->number, err.msg);
      rc = coll_fail("repart", m);
    } else if (world_rank() == 0) {
      print_warnings(rep.warnings);
      if (!a.quiet) {
        printf("segment %d: %s -> %s.%d.*\n", g->number, g->path, out, world_size());
        print_report("repart", &rep);
      }
    }
  }
  mxn_series_close(&sr);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage_main(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage_main(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("mxn %s\n", MXN_VERSION_STRING);
    return 0;
  }
  /* Zoltan needs MPI even for one process; mxn also runs under mpiexec.
   * Started alone, Open MPI 4 forks a daemon (orted) for the singleton,
   * and that daemon removes the session directory it shares with other
   * jobs of the user only after mxn has exited: a second mxn started at
   * once (`mxn join ... && mxn diff ...`) can find the directory gone
   * under it and stop in MPI_Init ("A call to mkdir was unable to create
   * the desired directory"). mxn never spawns, so it asks for no daemon;
   * a value the user set is kept, and other MPIs ignore the variable. */
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  MPI_Init(&argc, &argv);
  int rc;
  if (!strcmp(cmd, "info"))
    rc = cmd_info(argc - 1, argv + 1);
  else if (!strcmp(cmd, "join"))
    rc = cmd_join(argc - 1, argv + 1);
  else if (!strcmp(cmd, "split"))
    rc = cmd_split(argc - 1, argv + 1);
  else if (!strcmp(cmd, "diff"))
    rc = cmd_diff(argc - 1, argv + 1);
  else if (!strcmp(cmd, "repart"))
    rc = cmd_repart(argc - 1, argv + 1);
  else if (!strcmp(cmd, "stats"))
    rc = cmd_stats(argc - 1, argv + 1);
  else {
    fprintf(stderr, "mxn: unknown command '%s'\n\n", cmd);
    usage_main(stderr);
    rc = 2;
  }
  MPI_Finalize();
  return rc;
}
