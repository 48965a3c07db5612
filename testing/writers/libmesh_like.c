/* A Nemesis spread set written the way libMesh (MOOSE's mesh library)
 * writes its parallel output after adaptive refinement (issue 58: files
 * from writers other than ours and SEACAS). Test data, made at test time.
 *
 * usage: libmesh_like [--stale-maps] OUTBASE   (writes OUTBASE.3.0, .3.1, .3.2)
 *
 * --stale-maps: member 1's node communication map, border node map and
 * border element map each start with an entry past the member's nodes or
 * elements, as maps kept from the mesh before adaptation would. libMesh
 * computes its maps afresh at each write; this is a code that does not
 * (ParaView's readers do not read these maps).
 *
 * What libMesh's Nemesis_IO_Helper does, read from its source
 * (src/mesh/nemesis_io_helper.C), and reproduced here call by call through
 * the Exodus/Nemesis API as it does:
 *
 *  - the Nemesis calls first (init info "p", global counts, global block,
 *    node set and side set parameters, load-balance parameters,
 *    communication maps, internal/border node and element maps), then
 *    ex_put_init with the mesh's spatial dimension (2 here: libMesh before
 *    2020 wrote 3, LIBMESH_DIM, for every mesh), the global number of
 *    blocks and sets;
 *  - global counts from the whole refinement hierarchy: num_elems_global is
 *    parallel_n_elem(), every element including the inactive parents of
 *    refined ones, so it is larger than the active elements the members
 *    hold; side set global counts count the boundary entries stored on the
 *    coarse (level-0) elements, not the active children's sides written;
 *    block global counts count active elements (right);
 *  - element blocks are subdomains, so block ids start at 0; a member with
 *    no element of a block writes it with type "Empty" and 0 elements (a
 *    NULL block); names are the subdomain names, empty here;
 *  - node and element id maps are libMesh's ids + 1: after refinement not
 *    contiguous (the parents' ids are not written);
 *  - nodes numbered in the member by increasing libMesh id, elements by
 *    block, then by id; node and side sets without distribution factors;
 *    no QA or information records, no coordinate names.
 *
 * The mesh: a 4x4 grid of QUAD4 on [0,4]x[0,4] (libMesh ids 0..15, nodes
 * 0..24), its bottom elements 1 and 2 refined once (children 16..19 and
 * 20..23, new nodes 25..33, hanging nodes on their coarse neighbours).
 * Subdomain 0 is x < 2, subdomain 1 x > 2. Processor 0: column 0 and the
 * children of 1; processor 1: column 1 above row 0 and the children of 2;
 * processor 2: the rest. Boundary ids (libMesh's for a generated square):
 * side set and node set 0 "bottom", side set 2 "top". Variables: nodal
 * u = x + 2 y + 10 t, element err = (libMesh id + 1) + 100 t, global dt =
 * t / 2, at t = 0.5 and 1.0. */
#include <exodusII.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NP 3
#define MAXN 64
#define MAXE 32

typedef struct {
  int id;        /* libMesh id */
  int nodes[4];  /* libMesh node ids, counter-clockwise from lower left */
  int active, parent, sub, proc;
  int x0, y0, s; /* lower left corner and size, in half units */
} elem_t;

static double nx[MAXN], ny[MAXN];
static int nnodes;
static elem_t el[MAXE];
static int nelems;

/* the node at half-grid point (hx, hy), made if new */
static int node_at(int hx, int hy) {
  for (int n = 0; n < nnodes; n++)
    if (nx[n] == hx / 2.0 && ny[n] == hy / 2.0) return n;
  nx[nnodes] = hx / 2.0;
  ny[nnodes] = hy / 2.0;
  return nnodes++;
}

static void quad(elem_t *e, int x0, int y0, int s) {
  e->x0 = x0, e->y0 = y0, e->s = s;
  e->nodes[0] = node_at(x0, y0);
  e->nodes[1] = node_at(x0 + s, y0);
  e->nodes[2] = node_at(x0 + s, y0 + s);
  e->nodes[3] = node_at(x0, y0 + s);
}

static void build(void) {
  for (int j = 0; j < 5; j++)
    for (int i = 0; i < 5; i++) node_at(2 * i, 2 * j); /* nodes 0..24: i + 5 j */
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 4; i++) {
      elem_t *e = &el[nelems];
      e->id = nelems++;
      quad(e, 2 * i, 2 * j, 2);
      e->active = 1, e->parent = -1, e->sub = i < 2 ? 0 : 1;
      e->proc = i == 0 ? 0 : (i == 1 && j > 0) ? 1 : 2;
    }
  /* refine 1 and 2: children in libMesh's order (lower left, lower right,
   * upper left, upper right), on the processor libMesh's partitioner gave */
  const int refine[2] = {1, 2}, child_proc[2] = {0, 1};
  for (int r = 0; r < 2; r++) {
    elem_t *p = &el[refine[r]];
    p->active = 0;
    p->proc = child_proc[r];
    for (int c = 0; c < 4; c++) {
      elem_t *e = &el[nelems];
      e->id = nelems++;
      quad(e, p->x0 + (c % 2), p->y0 + (c / 2), 1);
      e->active = 1, e->parent = p->id, e->sub = p->sub, e->proc = child_proc[r];
    }
  }
}

/* Exodus side (1..4) of e on which e and f touch along a segment, or 0 */
static int touching_side(const elem_t *e, const elem_t *f) {
  int ex1 = e->x0 + e->s, ey1 = e->y0 + e->s, fx1 = f->x0 + f->s, fy1 = f->y0 + f->s;
  int xo = (e->x0 < fx1 && f->x0 < ex1), yo = (e->y0 < fy1 && f->y0 < ey1);
  if (xo && f->y0 + f->s == e->y0) return 1; /* bottom */
  if (yo && f->x0 == ex1) return 2;          /* right */
  if (xo && f->y0 == ey1) return 3;          /* top */
  if (yo && fx1 == e->x0) return 4;          /* left */
  return 0;
}

static int touches(int proc, int node) {
  for (int k = 0; k < nelems; k++)
    if (el[k].active && el[k].proc == proc)
      for (int a = 0; a < 4; a++)
        if (el[k].nodes[a] == node) return 1;
  return 0;
}

#define CHECK(call)                                                  \
  do {                                                               \
    if ((call) < 0) {                                                \
      fprintf(stderr, "libmesh_like: %s failed (%s)\n", #call, path); \
      return 1;                                                      \
    }                                                                \
  } while (0)

static int write_member(const char *base, int proc, int stale) {
  char path[4096];
  snprintf(path, sizeof path, "%s.%d.%d", base, NP, proc);
  /* the member's nodes (by libMesh id) and elements (by block, then id) */
  int lnode[MAXN], nln = 0, lelem[MAXE], nle = 0, pos_of[MAXN];
  for (int n = 0; n < nnodes; n++) {
    pos_of[n] = 0;
    if (touches(proc, n)) lnode[nln++] = n, pos_of[n] = nln;
  }
  int blk_count[2] = {0, 0}, glob_count[2] = {0, 0};
  for (int b = 0; b < 2; b++)
    for (int k = 0; k < nelems; k++)
      if (el[k].active && el[k].sub == b) {
        glob_count[b]++;
        if (el[k].proc == proc) lelem[nle++] = k, blk_count[b]++;
      }

  /* border elements: a side touching an element of another processor */
  int mapi[MAXE], nmi = 0, mapb[MAXE], nmb = 0;
  int ce_elem[NP][MAXE], ce_side[NP][MAXE], ce_proc[NP][MAXE], nce[NP] = {0};
  for (int i = 0; i < nle; i++) {
    const elem_t *e = &el[lelem[i]];
    int border = 0;
    for (int k = 0; k < nelems; k++) {
      int s;
      if (!el[k].active || el[k].proc == proc || !(s = touching_side(e, &el[k]))) continue;
      border = 1;
      int q = el[k].proc, dup = 0;
      for (int m = 0; m < nce[q]; m++) dup |= ce_elem[q][m] == i + 1 && ce_side[q][m] == s;
      if (!dup) ce_elem[q][nce[q]] = i + 1, ce_side[q][nce[q]] = s, ce_proc[q][nce[q]++] = q;
    }
    if (border)
      mapb[nmb++] = i + 1;
    else
      mapi[nmi++] = i + 1;
  }
  /* border nodes: touched by another processor's elements too */
  int nodi[MAXN], nni = 0, nodb[MAXN], nnb = 0;
  int cn_node[NP][MAXN], cn_proc[NP][MAXN], ncn[NP] = {0};
  for (int i = 0; i < nln; i++) {
    int border = 0;
    for (int q = 0; q < NP; q++)
      if (q != proc && touches(q, lnode[i])) {
        border = 1;
        cn_node[q][ncn[q]] = i + 1, cn_proc[q][ncn[q]++] = q;
      }
    if (border)
      nodb[nnb++] = i + 1;
    else
      nodi[nni++] = i + 1;
  }
  if (stale && proc == 1) { /* maps from a larger mesh: past this member's entries */
    for (int q = 0; q < NP; q++)
      if (ncn[q]) {
        cn_node[q][0] = nln + 5;
        break;
      }
    if (nnb) nodb[0] = nln + 5;
    if (nmb) mapb[0] = nle + 5;
  }
  int ncmap = 0, ecmap = 0;
  int ncmap_ids[NP], ncmap_cnt[NP], ecmap_ids[NP], ecmap_cnt[NP];
  for (int q = 0; q < NP; q++) {
    if (ncn[q]) ncmap_ids[ncmap] = q, ncmap_cnt[ncmap++] = ncn[q];
    if (nce[q]) ecmap_ids[ecmap] = q, ecmap_cnt[ecmap++] = nce[q];
  }

  /* the global side set counts from the level-0 elements' boundary entries
   * on each processor (libMesh counts the coarse sides, the members hold the
   * active children's) */
  int bottom_coarse = 0, top_coarse = 0;
  for (int k = 0; k < 16; k++) bottom_coarse += el[k].y0 == 0, top_coarse += el[k].y0 + 2 == 8;
  int bottom_nodes = 0;
  for (int n = 0; n < nnodes; n++) bottom_nodes += ny[n] == 0;

  int cpu = 8, io = 8;
  int exoid = ex_create(path, EX_CLOBBER, &cpu, &io);
  if (exoid < 0) {
    fprintf(stderr, "libmesh_like: cannot create %s\n", path);
    return 1;
  }
  CHECK(ex_put_init_info(exoid, NP, 1, "p"));
  CHECK(ex_put_init_global(exoid, nnodes, nelems, 2, 1, 2));
  int blk_ids[2] = {0, 1}, blk_cnt[2] = {glob_count[0], glob_count[1]};
  CHECK(ex_put_eb_info_global(exoid, blk_ids, blk_cnt));
  int ns_ids[1] = {0}, ns_cnt[1] = {bottom_nodes}, ns_df[1] = {0};
  CHECK(ex_put_ns_param_global(exoid, ns_ids, ns_cnt, ns_df));
  int ss_ids[2] = {0, 2}, ss_cnt[2] = {bottom_coarse, top_coarse}, ss_df[2] = {0, 0};
  CHECK(ex_put_ss_param_global(exoid, ss_ids, ss_cnt, ss_df));
  CHECK(ex_put_loadbal_param(exoid, nni, nnb, 0, nmi, nmb, ncmap, ecmap, proc));
  CHECK(ex_put_cmap_params(exoid, ncmap_ids, ncmap_cnt, ecmap_ids, ecmap_cnt, proc));
  for (int m = 0; m < ncmap; m++) {
    int q = ncmap_ids[m];
    CHECK(ex_put_node_cmap(exoid, q, cn_node[q], cn_proc[q], proc));
  }
  CHECK(ex_put_processor_node_maps(exoid, nodi, nodb, NULL, proc));
  for (int m = 0; m < ecmap; m++) {
    int q = ecmap_ids[m];
    CHECK(ex_put_elem_cmap(exoid, q, ce_elem[q], ce_side[q], ce_proc[q], proc));
  }
  CHECK(ex_put_processor_elem_maps(exoid, mapi, mapb, proc));

  CHECK(ex_put_init(exoid, "libMesh-like adapted mesh", 2, nln, nle, 2, 1, 2));
  double x[MAXN], y[MAXN];
  int ids[MAXN];
  for (int i = 0; i < nln; i++) x[i] = nx[lnode[i]], y[i] = ny[lnode[i]], ids[i] = lnode[i] + 1;
  CHECK(ex_put_coord(exoid, x, y, NULL));
  CHECK(ex_put_id_map(exoid, EX_NODE_MAP, ids));
  int off = 0, eids[MAXE];
  for (int b = 0; b < 2; b++) {
    if (!blk_count[b]) {
      CHECK(ex_put_block(exoid, EX_ELEM_BLOCK, b, "Empty", 0, 0, 0, 0, 0));
      continue;
    }
    CHECK(ex_put_block(exoid, EX_ELEM_BLOCK, b, "QUAD4", blk_count[b], 4, 0, 0, 0));
    int conn[4 * MAXE];
    for (int i = 0; i < blk_count[b]; i++)
      for (int a = 0; a < 4; a++) conn[4 * i + a] = pos_of[el[lelem[off + i]].nodes[a]];
    CHECK(ex_put_conn(exoid, EX_ELEM_BLOCK, b, conn, NULL, NULL));
    off += blk_count[b];
  }
  for (int i = 0; i < nle; i++) eids[i] = el[lelem[i]].id + 1;
  CHECK(ex_put_id_map(exoid, EX_ELEM_MAP, eids));
  char *noname[2] = {"", ""};
  CHECK(ex_put_names(exoid, EX_ELEM_BLOCK, noname));

  /* node set 0 "bottom": the member's nodes at y = 0 */
  int ns[MAXN], nns = 0;
  for (int i = 0; i < nln; i++)
    if (ny[lnode[i]] == 0) ns[nns++] = i + 1;
  CHECK(ex_put_set_param(exoid, EX_NODE_SET, 0, nns, 0));
  if (nns) CHECK(ex_put_set(exoid, EX_NODE_SET, 0, ns, NULL));
  char *nsname[1] = {"bottom"};
  CHECK(ex_put_names(exoid, EX_NODE_SET, nsname));
  /* side sets 0 "bottom" and 2 "top": the active elements' sides there */
  for (int s = 0; s < 2; s++) {
    int se[MAXE], ss[MAXE], nss = 0;
    for (int i = 0; i < nle; i++) {
      const elem_t *e = &el[lelem[i]];
      if (s == 0 && e->y0 == 0) se[nss] = i + 1, ss[nss++] = 1;
      if (s == 1 && e->y0 + e->s == 8) se[nss] = i + 1, ss[nss++] = 3;
    }
    CHECK(ex_put_set_param(exoid, EX_SIDE_SET, ss_ids[s], nss, 0));
    if (nss) CHECK(ex_put_set(exoid, EX_SIDE_SET, ss_ids[s], se, ss));
  }
  char *ssname[2] = {"bottom", "top"};
  CHECK(ex_put_names(exoid, EX_SIDE_SET, ssname));

  char *nvar[1] = {"u"}, *evar[1] = {"err"}, *gvar[1] = {"dt"};
  CHECK(ex_put_variable_param(exoid, EX_NODAL, 1));
  CHECK(ex_put_variable_names(exoid, EX_NODAL, 1, nvar));
  CHECK(ex_put_variable_param(exoid, EX_ELEM_BLOCK, 1));
  CHECK(ex_put_variable_names(exoid, EX_ELEM_BLOCK, 1, evar));
  int truth[2] = {1, 1};
  CHECK(ex_put_truth_table(exoid, EX_ELEM_BLOCK, 2, 1, truth));
  CHECK(ex_put_variable_param(exoid, EX_GLOBAL, 1));
  CHECK(ex_put_variable_names(exoid, EX_GLOBAL, 1, gvar));
  for (int step = 1; step <= 2; step++) {
    double t = 0.5 * step, v[MAXN], dt = t / 2;
    CHECK(ex_put_time(exoid, step, &t));
    for (int i = 0; i < nln; i++) v[i] = x[i] + 2 * y[i] + 10 * t;
    CHECK(ex_put_var(exoid, step, EX_NODAL, 1, 1, nln, v));
    off = 0;
    for (int b = 0; b < 2; b++) {
      if (!blk_count[b]) continue;
      for (int i = 0; i < blk_count[b]; i++) v[i] = eids[off + i] + 100 * t;
      CHECK(ex_put_var(exoid, step, EX_ELEM_BLOCK, 1, b, blk_count[b], v));
      off += blk_count[b];
    }
    CHECK(ex_put_var(exoid, step, EX_GLOBAL, 1, 0, 1, &dt));
  }
  CHECK(ex_close(exoid));
  return 0;
}

int main(int argc, char **argv) {
  int stale = argc == 3 && !strcmp(argv[1], "--stale-maps");
  if (argc != 2 && !stale) {
    fprintf(stderr, "usage: libmesh_like [--stale-maps] OUTBASE\n");
    return 2;
  }
  ex_opts(0); /* errors are reported here, with the file */
  build();
  for (int p = 0; p < NP; p++)
    if (write_member(argv[argc - 1], p, stale)) return 1;
  return 0;
}
