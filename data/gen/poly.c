/*
 * mxn_gen --type poly-hex|poly-mixed|polygon — polyhedral and polygonal
 * Exodus II meshes (NFACED element blocks over NSIDED face blocks, NSIDED
 * element blocks), with values that follow formulas of the global ids.
 * Like the rest of mxn_gen this talks to exoIIv2c directly, not to libmxn.
 *
 * GEOMETRY. Unit cells of the box [0,NX]x[0,NY]x[0,NZ] (2D: [0,NX]x[0,NY]);
 * grid node (i,j,k) has file index i + (NX+1)*(j + (NY+1)*k) at (i,j,k).
 * K slabs along x as for the other types (block id 10*(b+1), name
 * "block_<id>"); cells run k, then j, then i within a slab.
 *
 *   poly-hex    every cell one NFACED hexahedron (6 quadrilateral faces).
 *   poly-mixed  slab b: b mod 3 = 0 hexahedra; 1 two prisms per cell (the
 *               xy triangles (0,0),(1,0),(1,1) and (0,0),(1,1),(0,1)
 *               extruded along z: 2 triangles + 3 quadrilaterals each);
 *               2 six pyramids per cell (each cell face the base of one,
 *               apex at the cell centre, an extra node appended after the
 *               grid nodes in cell order). --blocks defaults to 3.
 *   polygon     2D, NSIDED element blocks: horizontal edge (i,j)-(i+1,j)
 *               carries a midpoint node (appended after the grid nodes in
 *               edge order j, then i) when (i + 2j) mod 3 = 0, so a cell
 *               is a quadrilateral, pentagon or hexagon; a cell without
 *               midpoints and (7i + j) mod 5 = 0 is split into the
 *               triangles (0,0),(1,0),(1,1) and (0,0),(1,1),(0,1).
 *               Nodes counterclockwise.
 *
 * FACES (3D). Every distinct face once (shared faces are shared: keyed by
 * their sorted nodes), numbered in order of first use, its nodes ordered
 * counterclockwise seen from outside the element that first used it.
 * One NSIDED face block id 100 "faces"; with --split-faces two fixed-type
 * blocks instead, TRI3 id 101 "tri_faces" (first) and QUAD4 id 102
 * "quad_faces", each keeping the order of first use.
 *
 * IDS. gid(q) = O + 1 + q for nodes, elements and faces (O = --id-offset),
 * written with ex_put_id_map.
 *
 * SETS. Node set 1 "x_min": nodes with x = 0, distribution factor gid/2.
 * Side sets 1 "y_min" (sides on y = 0) and 2 "z_max" (z = NZ; 2D "y_max",
 * y = NY): a polyhedron's side k is its k-th face, a polygon's side k its
 * edge from node k to node k+1 (Exodus numbering for NFACED/NSIDED);
 * distribution factor of the j-th node of a side of element e (face or
 * edge node order): gid(e) + j/8.
 *
 * VARIABLES (unless --no-vars), step k = 0..T-1 at time (k+1)/4:
 *   global  step_index = k
 *   nodal   node_gid_time = gid(n) + k/16
 *   element elem_gid_time = -(gid(e) + k/16)
 *   face    face_gid_time = gid(f) + k/16 (3D)
 */
#include "poly.h"

#include <exodusII.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  int type; /* 0 poly-hex, 1 poly-mixed, 2 polygon */
  int64_t nx, ny, nz;
  int blocks, steps, vars, split_faces;
  int64_t id_offset;
  const char *out;
  char title[81];
} popts;

/* Growable int64 array. */
typedef struct {
  int64_t *v;
  int64_t n, cap;
} vec;

static int vpush(vec *a, int64_t x) {
  if (a->n == a->cap) {
    int64_t cap = a->cap ? 2 * a->cap : 1024;
    int64_t *q = realloc(a->v, (size_t)cap * sizeof *q);
    if (!q) return -1;
    a->v = q;
    a->cap = cap;
  }
  a->v[a->n++] = x;
  return 0;
}

/* Faces: nodes (0-based) by offsets; a hash of sorted node keys. */
typedef struct {
  vec nodes, off; /* off: n+1 */
  int64_t *slot;  /* hash table of face indices, -1 empty */
  int64_t hcap;
} faces_t;

static uint64_t face_hash(const int64_t *key, int n) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < n; i++) h = (h ^ (uint64_t)key[i]) * 1099511628211ull;
  return h;
}

static void sort_key(const int64_t *nd, int n, int64_t *key) {
  for (int i = 0; i < n; i++) key[i] = nd[i];
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && key[j - 1] > key[j]; j--) {
      int64_t t = key[j];
      key[j] = key[j - 1];
      key[j - 1] = t;
    }
}

static int face_same(const faces_t *F, int64_t f, const int64_t *key, int n) {
  int64_t a = F->off.v[f], m = F->off.v[f + 1] - a;
  if (m != n) return 0;
  int64_t k2[8];
  sort_key(F->nodes.v + a, n, k2);
  return memcmp(k2, key, (size_t)n * sizeof *key) == 0;
}

static int rehash(faces_t *F) {
  int64_t cap = F->hcap ? 2 * F->hcap : 4096;
  int64_t *s = malloc((size_t)cap * sizeof *s);
  if (!s) return -1;
  for (int64_t i = 0; i < cap; i++) s[i] = -1;
  for (int64_t f = 0; f + 1 < F->off.n; f++) {
    int64_t key[8];
    int n = (int)(F->off.v[f + 1] - F->off.v[f]);
    sort_key(F->nodes.v + F->off.v[f], n, key);
    uint64_t h = face_hash(key, n) % (uint64_t)cap;
    while (s[h] >= 0) h = (h + 1) % (uint64_t)cap;
    s[h] = f;
  }
  free(F->slot);
  F->slot = s;
  F->hcap = cap;
  return 0;
}

/* Index of the face with nodes nd (any order), added in this order if new. */
static int64_t face_get(faces_t *F, const int64_t *nd, int n) {
  int64_t nf = F->off.n - 1;
  if (2 * (nf + 1) >= F->hcap && rehash(F) < 0) return -1;
  int64_t key[8];
  sort_key(nd, n, key);
  uint64_t h = face_hash(key, n) % (uint64_t)F->hcap;
  while (F->slot[h] >= 0) {
    if (face_same(F, F->slot[h], key, n)) return F->slot[h];
    h = (h + 1) % (uint64_t)F->hcap;
  }
  for (int i = 0; i < n; i++)
    if (vpush(&F->nodes, nd[i]) < 0) return -1;
  if (vpush(&F->off, F->nodes.n) < 0) return -1;
  F->slot[h] = nf;
  return nf;
}

static int usage(const char *msg) {
  fprintf(stderr, "mxn_gen: %s\n", msg);
  fprintf(stderr,
          "usage: mxn_gen --type poly-hex|poly-mixed|polygon --dims NX NY [NZ] [--blocks K]\n"
          "               [--steps T] [--no-vars] [--split-faces] [--id-offset O] OUT.e\n");
  return 2;
}

static int parse(int argc, char **argv, popts *o) {
  memset(o, 0, sizeof *o);
  o->steps = 3;
  o->vars = 1;
  int nd = 0;
  int64_t d[3] = {0, 0, 0};
  snprintf(o->title, sizeof o->title, "mxn_gen");
  for (int a = 1; a < argc; a++) {
    const char *s = argv[a];
    int more = a + 1 < argc;
    if (!strcmp(s, "--type") && more) {
      const char *t = argv[++a];
      if (!strcmp(t, "poly-hex")) o->type = 0;
      else if (!strcmp(t, "poly-mixed")) o->type = 1;
      else if (!strcmp(t, "polygon")) o->type = 2;
      else return usage("unknown poly --type");
    } else if (!strcmp(s, "--dims")) {
      while (a + 1 < argc && nd < 3 && argv[a + 1][0] >= '0' && argv[a + 1][0] <= '9') {
        char *end;
        d[nd] = strtoll(argv[++a], &end, 10);
        if (*end || d[nd] < 1 || d[nd] > 100000) return usage("bad --dims value");
        nd++;
      }
    } else if (!strcmp(s, "--blocks") && more) {
      o->blocks = atoi(argv[++a]);
      if (o->blocks < 1) return usage("bad --blocks");
    } else if (!strcmp(s, "--steps") && more) {
      o->steps = atoi(argv[++a]);
      if (o->steps < 0 || o->steps > 1000) return usage("bad --steps");
    } else if (!strcmp(s, "--id-offset") && more) {
      o->id_offset = strtoll(argv[++a], NULL, 10);
      if (o->id_offset < 0) return usage("bad --id-offset");
    } else if (!strcmp(s, "--no-vars")) {
      o->vars = 0;
    } else if (!strcmp(s, "--split-faces")) {
      o->split_faces = 1;
    } else if (s[0] == '-') {
      return usage("unknown option for the poly types");
    } else {
      if (o->out) return usage("more than one output file");
      o->out = s;
      continue;
    }
  }
  for (int a = 1; a < argc; a++) {
    size_t len = strlen(o->title);
    if (argv[a] != o->out && len < sizeof o->title - 1)
      snprintf(o->title + len, sizeof o->title - len, " %s", argv[a]);
  }
  if (!o->out) return usage("no output file given");
  int want = o->type == 2 ? 2 : 3;
  if (nd != want) return usage(o->type == 2 ? "polygon is 2D: --dims NX NY" : "--dims NX NY NZ");
  o->nx = d[0];
  o->ny = d[1];
  o->nz = want == 3 ? d[2] : 1;
  if (o->blocks == 0) o->blocks = o->type == 1 && o->nx >= 3 ? 3 : 1;
  if (o->blocks > o->nx) return usage("--blocks exceeds NX");
  if (!o->vars) o->steps = 0;
  return 0;
}

#define CK(call, what)                                                       \
  do {                                                                       \
    if ((call) < 0) {                                                        \
      fprintf(stderr, "mxn_gen: %s: %s failed\n", o->out, what);             \
      goto done;                                                             \
    }                                                                        \
  } while (0)

int mxn_gen_poly_main(int argc, char **argv) {
  popts op, *o = &op;
  int rc = parse(argc, argv, o);
  if (rc) return rc;
  rc = 1;
  const int dim = o->type == 2 ? 2 : 3;
  const int64_t nx = o->nx, ny = o->ny, nz = o->nz;
  const int64_t ngrid = dim == 3 ? (nx + 1) * (ny + 1) * (nz + 1) : (nx + 1) * (ny + 1);
  faces_t F;
  memset(&F, 0, sizeof F);
  vec x = {0}, y = {0}, z = {0}; /* coordinates as int64 of 2*value */
  vec *eref = NULL, *eoff = NULL; /* per block: references (faces or nodes), counts */
  int64_t *ftype_idx = NULL, *fperm = NULL, *vals = NULL, *gid = NULL, *buf = NULL;
  double *dx = NULL, *dy = NULL, *dz = NULL, *dv = NULL;
  int *cnt = NULL;
  int exoid = -1, created = 0;
  int K = o->blocks;
  int64_t *mid = NULL;
  eref = calloc((size_t)K, sizeof *eref);
  eoff = calloc((size_t)K, sizeof *eoff);
  if (!eref || !eoff) goto nomem;
  for (int64_t k = 0; k <= (dim == 3 ? nz : 0); k++)
    for (int64_t j = 0; j <= ny; j++)
      for (int64_t i = 0; i <= nx; i++)
        if (vpush(&x, 2 * i) || vpush(&y, 2 * j) || vpush(&z, 2 * k)) goto nomem;
  /* polygon: midpoints of horizontal edges */
  if (o->type == 2) {
    mid = malloc((size_t)(nx * (ny + 1)) * sizeof *mid);
    if (!mid) goto nomem;
    for (int64_t j = 0; j <= ny; j++)
      for (int64_t i = 0; i < nx; i++) {
        mid[j * nx + i] = -1;
        if ((i + 2 * j) % 3 == 0) {
          mid[j * nx + i] = x.n;
          if (vpush(&x, 2 * i + 1) || vpush(&y, 2 * j) || vpush(&z, 0)) goto nomem;
        }
      }
  }
  if (vpush(&F.off, 0)) goto nomem;
  for (int b = 0; b < K; b++) {
    int64_t i0 = b * nx / K, i1 = (b + 1) * nx / K;
    int kind = o->type == 0 ? 0 : o->type == 1 ? b % 3 : 3;
    for (int64_t k = 0; k < nz; k++)
      for (int64_t j = 0; j < ny; j++)
        for (int64_t i = i0; i < i1; i++) {
          int64_t c[8];
          for (int bit = 0; bit < 8; bit++)
            c[bit] = (i + (bit & 1)) + (nx + 1) * ((j + ((bit >> 1) & 1)) + (ny + 1) * (k + ((bit >> 2) & 1)));
          if (kind == 3) { /* polygon */
            int64_t m0 = mid[j * nx + i], m1 = mid[(j + 1) * nx + i];
            int64_t p[6];
            int np = 0;
            if (m0 < 0 && m1 < 0 && (7 * i + j) % 5 == 0) {
              const int tri[2][3] = {{0, 1, 3}, {0, 3, 2}};
              for (int s = 0; s < 2; s++) {
                for (int q = 0; q < 3; q++)
                  if (vpush(&eref[b], c[tri[s][q]])) goto nomem;
                if (vpush(&eoff[b], 3)) goto nomem;
              }
              continue;
            }
            p[np++] = c[0];
            if (m0 >= 0) p[np++] = m0;
            p[np++] = c[1];
            p[np++] = c[3];
            if (m1 >= 0) p[np++] = m1;
            p[np++] = c[2];
            for (int q = 0; q < np; q++)
              if (vpush(&eref[b], p[q])) goto nomem;
            if (vpush(&eoff[b], np)) goto nomem;
            continue;
          }
          /* faces of the cell, outward: x-, x+, y-, y+, z-, z+ */
          static const int hexf[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                         {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
          if (kind == 0) {
            for (int f = 0; f < 6; f++) {
              int64_t nd[4] = {c[hexf[f][0]], c[hexf[f][1]], c[hexf[f][2]], c[hexf[f][3]]};
              int64_t fi = face_get(&F, nd, 4);
              if (fi < 0 || vpush(&eref[b], fi)) goto nomem;
            }
            if (vpush(&eoff[b], 6)) goto nomem;
          } else if (kind == 1) {
            static const int pr[2][5][4] = {
                {{0, 3, 1, -1}, {4, 5, 7, -1}, {0, 1, 5, 4}, {1, 3, 7, 5}, {0, 4, 7, 3}},
                {{0, 2, 3, -1}, {4, 7, 6, -1}, {0, 4, 6, 2}, {2, 6, 7, 3}, {0, 3, 7, 4}}};
            for (int s = 0; s < 2; s++) {
              for (int f = 0; f < 5; f++) {
                int n = pr[s][f][3] < 0 ? 3 : 4;
                int64_t nd[4];
                for (int q = 0; q < n; q++) nd[q] = c[pr[s][f][q]];
                int64_t fi = face_get(&F, nd, n);
                if (fi < 0 || vpush(&eref[b], fi)) goto nomem;
              }
              if (vpush(&eoff[b], 5)) goto nomem;
            }
          } else {
            int64_t apex = x.n;
            if (vpush(&x, 2 * i + 1) || vpush(&y, 2 * j + 1) || vpush(&z, 2 * k + 1)) goto nomem;
            for (int f = 0; f < 6; f++) {
              int64_t nd[4] = {c[hexf[f][0]], c[hexf[f][1]], c[hexf[f][2]], c[hexf[f][3]]};
              int64_t fi = face_get(&F, nd, 4);
              if (fi < 0 || vpush(&eref[b], fi)) goto nomem;
              for (int q = 0; q < 4; q++) {
                int64_t t[3] = {nd[(q + 1) % 4], nd[q], apex};
                fi = face_get(&F, t, 3);
                if (fi < 0 || vpush(&eref[b], fi)) goto nomem;
              }
              if (vpush(&eoff[b], 5)) goto nomem;
            }
          }
        }
  }
  const int64_t nnodes = x.n, nfaces = F.off.n - 1;
  int64_t nelem = 0;
  for (int b = 0; b < K; b++) nelem += eoff[b].n;
  (void)ngrid;

  /* Face blocks: one NSIDED, or TRI3 then QUAD4 (new order fperm). */
  int nfb = 0;
  int64_t fb_n[2] = {0, 0};
  fperm = malloc((size_t)(nfaces + 1) * sizeof *fperm); /* old -> new */
  if (!fperm) goto nomem;
  if (dim == 3) {
    if (o->split_faces) {
      for (int64_t f = 0; f < nfaces; f++) fb_n[F.off.v[f + 1] - F.off.v[f] == 3 ? 0 : 1]++;
      int64_t at[2] = {0, fb_n[0]};
      for (int64_t f = 0; f < nfaces; f++) fperm[f] = at[F.off.v[f + 1] - F.off.v[f] == 3 ? 0 : 1]++;
      nfb = (fb_n[0] > 0) + (fb_n[1] > 0);
    } else {
      for (int64_t f = 0; f < nfaces; f++) fperm[f] = f;
      nfb = 1;
    }
  }

  int cpu_ws = 8, io_ws = 8;
  exoid = ex_create(o->out, EX_CLOBBER | EX_ALL_INT64_API | EX_LARGE_MODEL, &cpu_ws, &io_ws);
  if (exoid < 0) {
    fprintf(stderr, "mxn_gen: %s: cannot create\n", o->out);
    goto done;
  }
  created = 1;
  ex_init_params par;
  memset(&par, 0, sizeof par);
  snprintf(par.title, sizeof par.title, "%s", o->title);
  par.num_dim = dim;
  par.num_nodes = nnodes;
  par.num_elem = nelem;
  par.num_elem_blk = K;
  par.num_face = dim == 3 ? nfaces : 0;
  par.num_face_blk = nfb;
  par.num_node_sets = 1;
  par.num_side_sets = 2;
  CK(ex_put_init_ext(exoid, &par), "ex_put_init_ext");
  /* Definitions first. */
  if (dim == 3) {
    if (!o->split_faces) {
      CK(ex_put_block(exoid, EX_FACE_BLOCK, 100, "NSIDED", nfaces, F.nodes.n, 0, 0, 0),
         "ex_put_block(face 100)");
    } else {
      if (fb_n[0]) CK(ex_put_block(exoid, EX_FACE_BLOCK, 101, "TRI3", fb_n[0], 3, 0, 0, 0), "ex_put_block(101)");
      if (fb_n[1]) CK(ex_put_block(exoid, EX_FACE_BLOCK, 102, "QUAD4", fb_n[1], 4, 0, 0, 0), "ex_put_block(102)");
    }
  }
  for (int b = 0; b < K; b++) {
    int64_t nref = eref[b].n;
    if (dim == 3)
      CK(ex_put_block(exoid, EX_ELEM_BLOCK, 10 * (b + 1), "NFACED", eoff[b].n, 0, 0, nref, 0),
         "ex_put_block(element)");
    else
      CK(ex_put_block(exoid, EX_ELEM_BLOCK, 10 * (b + 1), "NSIDED", eoff[b].n, nref, 0, 0, 0),
         "ex_put_block(element)");
  }
  if (o->vars) {
    char *g[1] = {"step_index"}, *nv[1] = {"node_gid_time"}, *ev[1] = {"elem_gid_time"},
         *fv[1] = {"face_gid_time"};
    CK(ex_put_variable_param(exoid, EX_GLOBAL, 1), "global vars");
    CK(ex_put_variable_names(exoid, EX_GLOBAL, 1, g), "global var names");
    CK(ex_put_variable_param(exoid, EX_NODAL, 1), "nodal vars");
    CK(ex_put_variable_names(exoid, EX_NODAL, 1, nv), "nodal var names");
    CK(ex_put_variable_param(exoid, EX_ELEM_BLOCK, 1), "element vars");
    CK(ex_put_variable_names(exoid, EX_ELEM_BLOCK, 1, ev), "element var names");
    if (dim == 3) {
      CK(ex_put_variable_param(exoid, EX_FACE_BLOCK, 1), "face vars");
      CK(ex_put_variable_names(exoid, EX_FACE_BLOCK, 1, fv), "face var names");
    }
  }
  {
    char *names[64];
    char nb[64][32];
    for (int b = 0; b < K && b < 64; b++) {
      snprintf(nb[b], sizeof nb[b], "block_%d", 10 * (b + 1));
      names[b] = nb[b];
    }
    if (K <= 64) CK(ex_put_names(exoid, EX_ELEM_BLOCK, names), "block names");
    if (dim == 3) {
      char *fn[2] = {o->split_faces ? (fb_n[0] ? "tri_faces" : "quad_faces") : "faces", "quad_faces"};
      CK(ex_put_names(exoid, EX_FACE_BLOCK, fn), "face block names");
    }
  }
  /* Node set x_min. */
  {
    vec ns = {0};
    for (int64_t n = 0; n < nnodes; n++)
      if (x.v[n] == 0 && vpush(&ns, n + 1)) goto nomem;
    dv = malloc((size_t)(ns.n + 1) * sizeof *dv);
    if (!dv) goto nomem;
    for (int64_t q = 0; q < ns.n; q++) dv[q] = (double)(o->id_offset + ns.v[q]) / 2;
    CK(ex_put_set_param(exoid, EX_NODE_SET, 1, ns.n, ns.n), "node set param");
    CK(ex_put_set(exoid, EX_NODE_SET, 1, ns.v, NULL), "node set");
    CK(ex_put_set_dist_fact(exoid, EX_NODE_SET, 1, dv), "node set df");
    char *nsn[1] = {"x_min"};
    CK(ex_put_names(exoid, EX_NODE_SET, nsn), "node set names");
    free(ns.v);
    free(dv);
    dv = NULL;
  }
  /* Side sets: y_min (y = 0) and z_max (z = NZ; 2D: y_max, y = NY). A
   * polyhedron's side k is its k-th face, a polygon's side k its edge from
   * node k to node k+1; df of the j-th node of a side of element e
   * (face or edge node order): gid(e) + j/8. */
  for (int ss = 0; ss < 2; ss++) {
    vec se = {0}, sd = {0};
    vec df2 = {0}; /* df as int64 of 8*value */
    int64_t e0 = 0;
    for (int b = 0; b < K; b++) {
      int64_t at = 0;
      for (int64_t q = 0; q < eoff[b].n; q++) {
        int64_t n = eoff[b].v[q];
        for (int64_t k = 0; k < n; k++) {
          int64_t nd[8];
          int nn = 0;
          if (dim == 3) {
            int64_t f = eref[b].v[at + k];
            for (int64_t c = F.off.v[f]; c < F.off.v[f + 1]; c++) nd[nn++] = F.nodes.v[c];
          } else {
            nd[nn++] = eref[b].v[at + k];
            nd[nn++] = eref[b].v[at + (k + 1) % n];
          }
          int on = 1;
          for (int c = 0; c < nn; c++) {
            int64_t v = ss == 0 ? y.v[nd[c]] : dim == 3 ? z.v[nd[c]] : y.v[nd[c]];
            int64_t want = ss == 0 ? 0 : 2 * (dim == 3 ? nz : ny);
            on = on && v == want;
          }
          if (!on) continue;
          if (vpush(&se, e0 + q + 1) || vpush(&sd, k + 1)) goto nomem;
          for (int c = 0; c < nn; c++)
            if (vpush(&df2, 8 * (o->id_offset + 1 + e0 + q) + c)) goto nomem;
        }
        at += n;
      }
      e0 += eoff[b].n;
    }
    free(dv);
    dv = malloc((size_t)(df2.n + 1) * sizeof *dv);
    if (!dv) goto nomem;
    for (int64_t q = 0; q < df2.n; q++) dv[q] = df2.v[q] / 8.0;
    CK(ex_put_set_param(exoid, EX_SIDE_SET, ss + 1, se.n, df2.n), "side set param");
    CK(ex_put_set(exoid, EX_SIDE_SET, ss + 1, se.v, sd.v), "side set");
    if (df2.n) CK(ex_put_set_dist_fact(exoid, EX_SIDE_SET, ss + 1, dv), "side set df");
    free(se.v);
    free(sd.v);
    free(df2.v);
    free(dv);
    dv = NULL;
  }
  {
    char *ssn[2] = {"y_min", dim == 3 ? "z_max" : "y_max"};
    CK(ex_put_names(exoid, EX_SIDE_SET, ssn), "side set names");
  }
  /* Coordinates, ids. */
  dx = malloc((size_t)nnodes * sizeof *dx);
  dy = malloc((size_t)nnodes * sizeof *dy);
  dz = malloc((size_t)nnodes * sizeof *dz);
  int64_t maxn = nnodes > nelem ? nnodes : nelem;
  if (nfaces > maxn) maxn = nfaces;
  gid = malloc((size_t)(maxn + 1) * sizeof *gid);
  if (!dx || !dy || !dz || !gid) goto nomem;
  for (int64_t n = 0; n < nnodes; n++) {
    dx[n] = x.v[n] / 2.0;
    dy[n] = y.v[n] / 2.0;
    dz[n] = z.v[n] / 2.0;
  }
  CK(ex_put_coord(exoid, dx, dy, dim == 3 ? dz : NULL), "ex_put_coord");
  {
    char *cn[3] = {"x", "y", "z"};
    CK(ex_put_coord_names(exoid, cn), "coordinate names");
  }
  for (int64_t q = 0; q < nnodes; q++) gid[q] = o->id_offset + 1 + q;
  CK(ex_put_id_map(exoid, EX_NODE_MAP, gid), "node id map");
  for (int64_t q = 0; q < nelem; q++) gid[q] = o->id_offset + 1 + q;
  CK(ex_put_id_map(exoid, EX_ELEM_MAP, gid), "element id map");
  if (dim == 3) {
    for (int64_t q = 0; q < nfaces; q++) gid[q] = o->id_offset + 1 + q;
    CK(ex_put_id_map(exoid, EX_FACE_MAP, gid), "face id map");
  }
  /* Face blocks: nodes in new face order. */
  if (dim == 3) {
    int64_t *inv = malloc((size_t)(nfaces + 1) * sizeof *inv);
    if (!inv) goto nomem;
    for (int64_t f = 0; f < nfaces; f++) inv[fperm[f]] = f;
    buf = malloc((size_t)(F.nodes.n + 1) * sizeof *buf);
    cnt = malloc((size_t)(nfaces + 1) * sizeof *cnt);
    if (!buf || !cnt) {
      free(inv);
      goto nomem;
    }
    int64_t at = 0;
    for (int64_t q = 0; q < nfaces; q++) {
      int64_t f = inv[q];
      cnt[q] = (int)(F.off.v[f + 1] - F.off.v[f]);
      for (int64_t c = F.off.v[f]; c < F.off.v[f + 1]; c++) buf[at++] = F.nodes.v[c] + 1;
    }
    free(inv);
    if (!o->split_faces) {
      CK(ex_put_conn(exoid, EX_FACE_BLOCK, 100, buf, NULL, NULL), "face connectivity");
      CK(ex_put_entity_count_per_polyhedra(exoid, EX_FACE_BLOCK, 100, cnt), "face counts");
    } else {
      if (fb_n[0]) CK(ex_put_conn(exoid, EX_FACE_BLOCK, 101, buf, NULL, NULL), "face connectivity");
      if (fb_n[1]) CK(ex_put_conn(exoid, EX_FACE_BLOCK, 102, buf + 3 * fb_n[0], NULL, NULL), "face connectivity");
    }
  }
  for (int b = 0; b < K; b++) {
    free(buf);
    free(cnt);
    buf = malloc((size_t)(eref[b].n + 1) * sizeof *buf);
    cnt = malloc((size_t)(eoff[b].n + 1) * sizeof *cnt);
    if (!buf || !cnt) goto nomem;
    for (int64_t q = 0; q < eref[b].n; q++) buf[q] = (dim == 3 ? fperm[eref[b].v[q]] : eref[b].v[q]) + 1;
    for (int64_t q = 0; q < eoff[b].n; q++) cnt[q] = (int)eoff[b].v[q];
    if (eoff[b].n == 0) continue;
    CK(ex_put_conn(exoid, EX_ELEM_BLOCK, 10 * (b + 1), dim == 3 ? NULL : buf, NULL,
                   dim == 3 ? buf : NULL),
       "element connectivity");
    CK(ex_put_entity_count_per_polyhedra(exoid, EX_ELEM_BLOCK, 10 * (b + 1), cnt), "element counts");
  }
  /* Variables. */
  free(dv);
  dv = malloc((size_t)(maxn + 1) * sizeof *dv);
  if (!dv) goto nomem;
  for (int s = 0; s < o->steps; s++) {
    double t = (s + 1) / 4.0, gval = s;
    CK(ex_put_time(exoid, s + 1, &t), "ex_put_time");
    CK(ex_put_var(exoid, s + 1, EX_GLOBAL, 1, 0, 1, &gval), "global var");
    for (int64_t q = 0; q < nnodes; q++) dv[q] = (double)(o->id_offset + 1 + q) + s / 16.0;
    CK(ex_put_var(exoid, s + 1, EX_NODAL, 1, 1, nnodes, dv), "nodal var");
    int64_t e0 = 0;
    for (int b = 0; b < K; b++) {
      for (int64_t q = 0; q < eoff[b].n; q++) dv[q] = -((double)(o->id_offset + 1 + e0 + q) + s / 16.0);
      CK(ex_put_var(exoid, s + 1, EX_ELEM_BLOCK, 1, 10 * (b + 1), eoff[b].n, dv), "element var");
      e0 += eoff[b].n;
    }
    if (dim == 3) {
      if (!o->split_faces) {
        for (int64_t q = 0; q < nfaces; q++) dv[q] = (double)(o->id_offset + 1 + q) + s / 16.0;
        CK(ex_put_var(exoid, s + 1, EX_FACE_BLOCK, 1, 100, nfaces, dv), "face var");
      } else {
        for (int fb = 0, f0 = 0; fb < 2; f0 += (int)fb_n[fb], fb++) {
          if (!fb_n[fb]) continue;
          for (int64_t q = 0; q < fb_n[fb]; q++) dv[q] = (double)(o->id_offset + 1 + f0 + q) + s / 16.0;
          CK(ex_put_var(exoid, s + 1, EX_FACE_BLOCK, 1, 101 + fb, fb_n[fb], dv), "face var");
        }
      }
    }
  }
  rc = 0;
  goto done;
nomem:
  fprintf(stderr, "mxn_gen: %s: out of memory\n", o->out);
done:
  if (exoid >= 0 && ex_close(exoid) < 0 && rc == 0) {
    fprintf(stderr, "mxn_gen: %s: ex_close failed\n", o->out);
    rc = 1;
  }
  if (rc != 0 && created) unlink(o->out);
  for (int b = 0; b < K && eref; b++) free(eref[b].v);
  for (int b = 0; b < K && eoff; b++) free(eoff[b].v);
  free(eref);
  free(eoff);
  free(F.nodes.v);
  free(F.off.v);
  free(F.slot);
  free(x.v);
  free(y.v);
  free(z.v);
  free(mid);
  free(ftype_idx);
  free(fperm);
  free(vals);
  free(gid);
  free(buf);
  free(dx);
  free(dy);
  free(dz);
  free(dv);
  free(cnt);
  return rc;
}
