/*
 * mxn_gen — structured Exodus II meshes whose every stored value can be
 * computed from global ids, for use as test oracles and benchmark input.
 *
 * Deliberately independent of libmxn: it talks to the Exodus II C API
 * (exoIIv2c 6.02) directly, so tests of the core are checked against a
 * second, simple implementation.
 *
 * Usage (see usage_text below, printed by --help):
 *   mxn_gen --type hex|tet|quad|wedge|mixed --dims NX NY [NZ] [--blocks K]
 *           [--steps T] [--int64] [--id-offset O] [--id-stride S]
 *           [--shuffle-ids SEED] [--no-sets | --sets S] [--no-vars]
 *           [--word-size 4|8]
 *           [--hot-spot] [--format nc3|nc4] [--compress L]
 *           [--series K [--series-overlap]] [--step-offset S]
 *           OUT.e
 * Exit codes: 0 ok, 2 bad usage (nothing written), 1 I/O or memory error
 * (the partial output file is removed).
 *
 * ---------------------------------------------------------------------------
 * GEOMETRY. Box [0,NX]x[0,NY]x[0,NZ], unit spacing, node (i,j,k) at
 * x=i, y=j, z=k. 2D (quad): num_dim 2, nodes (i,j), NZ treated as 1.
 *
 * NODE ORDER. Node file index n (0-based) = i + (NX+1)*(j + (NY+1)*k);
 * the Exodus local node number is n+1.
 *
 * CELLS AND BLOCKS. K blocks are slabs along x: block b (0-based) holds the
 * grid cells with x0(b) <= i < x0(b+1), x0(b) = floor(b*NX/K) (needs
 * K <= NX). Block id 10*(b+1), name "block_<id>". Within a block cells are
 * ordered k outermost, then j, then i; each cell emits nsub elements:
 *   hex   HEX8   nsub 1
 *   wedge WEDGE6 nsub 2: triangles in the xy plane split by the diagonal
 *         (0,0)-(1,1) of the cell, extruded along z; sub 0 = (0,0),(1,0),(1,1),
 *         sub 1 = (0,0),(1,1),(0,1). Conforming with hex across x faces.
 *   tet   TET4   nsub 6: Kuhn split, all six share the cell diagonal
 *         (0,0,0)-(1,1,1); sub s follows axis order xyz,xzy,yxz,yzx,zxy,zyx.
 *         Conforming among tets; a tet slab next to a hex/wedge slab meets
 *         it quad face against two triangles (same nodes, no hanging nodes).
 *   quad  QUAD4  nsub 1 (2D)
 *   mixed block b has type hex, wedge, tet for b mod 3 = 0, 1, 2 (3D;
 *         --blocks defaults to 3 for mixed, 1 otherwise).
 * Element file index e (0-based) = E(b) + ((i-x0(b)) + nx(b)*(j + NY*k))*nsub
 * + s, where E(b) is the number of elements in blocks before b and
 * nx(b) = x0(b+1)-x0(b). Every element has positive volume in the Exodus
 * convention (side normals from the Exodus side tables point outward).
 * Note for VTK: Exodus WEDGE6 and VTK_WEDGE orient the base triangle
 * oppositely; ParaView's IOSSReader reorders wedges (positive VTK volumes),
 * its legacy ExodusIIReader does not (negative VTK volumes).
 *
 * GLOBAL IDS. For N entities (nodes or elements) and file index q:
 *   gid(q) = O + 1 + S*p(q)           (O = --id-offset, default 0;
 *                                      S = --id-stride, default 1)
 *   p(q)   = q                         without --shuffle-ids
 *   p(q)   = (A*q + C) mod N           with --shuffle-ids SEED, where
 *     G = floor(N * 0.6180339887498949)   (IEEE double product, G < N)
 *     a0 = (G + SEED mod N) mod N; A = smallest a >= max(a0,1) with
 *     gcd(a, N) = 1; C = (SEED + floor(N/2)) mod N.
 * Nodes and elements use the same O, S, SEED with their own N. The A, C, N
 * actually used are also written as info records. Ids are stored with
 * ex_put_id_map(EX_NODE_MAP / EX_ELEM_MAP).
 *
 * SETS (unless --no-sets). Entries in increasing file order. S node sets
 * and S side sets (--sets S, default 2; S <= NX+1):
 *   node set q (1-based) holds the nodes on the plane x = i(q),
 *     i(q) = floor((q-1)*NX/(S-1)) (S = 1: x = 0), named "x_min" (q = 1),
 *     "x_max" (q = S > 1), else "x_<i(q)>": with S = 2 node set 1 "x_min"
 *     holds x=0 and node set 2 "x_max" x=NX.
 *     distribution factor of node n: gid(n) / 2.
 *   side set 1 "y_min": element sides on y=0.
 *   side set 2 "z_max": sides on z=NZ (3D), "y_max": sides on y=NY (2D).
 *   side set q >= 3 "y_max_<q>": the sides on y=NY of the cells in the
 *     x slab floor((q-3)*NX/(S-2)) <= i < floor((q-2)*NX/(S-2)) (with
 *     many sets most of them are local to a few members of a split, as
 *     the blocks are).
 *     Sides use Exodus side numbering (HEX8 y=0 side 1, z=1 side 6; WEDGE6
 *     y=0 side 1 of sub 0, top side 5; TET4 and QUAD4 likewise), ordered by
 *     element then side number. Distribution factor of the j-th node
 *     (0-based, Exodus side node order) of a side of element e:
 *     gid(e) + j/8.
 *
 * VARIABLES (unless --no-vars). T steps (default 3), step k = 0..T-1 is
 * Exodus time step k+1 with time t_k = (k+1)/4.
 *   global  "step_index"       = k
 *   global  "time_sq"          = t_k^2 = (k+1)^2/16
 *   nodal   "node_gid_time"    = gid(n) + k/16
 *   nodal   "nodal_x"          = x(n) + k
 *   nodal   "disp_x", "disp_y"[, "disp_z"] (with --displacement only)
 *                              = (k+1) * coordinate(n) / 64
 *   element "elem_gid_time"    = -(gid(e) + k/16)          (every block)
 *   element "elem_block_only"  = 2*gid(e) + k/16      (first block only:
 *                                 truth table 1 for block 10, 0 elsewhere)
 *   element "hot_spot"         (every block, with --hot-spot only): a
 *     moving hot spot for per-step load balancing, the cost of a cell
 *     concentrated around a centre that travels across the mesh:
 *       hot_spot = 1 + P * exp(-|c - p_k|^2 / (2 s^2))   (P = 9, or
 *                                                        --hot-spot-peak P)
 *     c = centre of the element's grid cell (i+1/2, j+1/2[, k+1/2]),
 *     s = 0.08 * max(NX, NY), p_k = a + (b - a) * k / max(T-1, 1) with
 *     a = (0.1 NX, 0.2 NY, NZ/2), b = (0.9 NX, 0.8 NY, NZ/2): the spot
 *     crosses the mesh diagonally over the T steps. Not dyadic.
 * Attribute on the first block only: "attr_gid" = gid(e).
 * All these are dyadic, so exact in double for gid < 2^48 (T < 2^20); with
 * --word-size 4 (float storage) they are exact only while gid < 2^19 and
 * T <= 16.
 *
 * ADAPTIVE SERIES (--series K). K files OUT, OUT-s002, ..., OUT-s<K>
 * (3 digits, as MOOSE/libMesh name the files of a run whose mesh changes),
 * segment s = 0..K-1 written as the single file above with
 *   dims     floor(D*(s+2)/2) for each given dim D (NX 40: 40, 60, 80, ...)
 *   blocks   B + s (B = --blocks): every segment has its own block layout
 *   ids      --id-offset O + s*1000000 (nodes and elements)
 *   steps    T each; its step kl is series step k = s*T + kl, or with
 *            --series-overlap k = s*(T-1) + kl (a segment's first time
 *            repeats the previous segment's last, to test which wins).
 * --step-offset S writes a single file whose step kl is series step
 * k = S + kl: a segment made by hand (other dims, blocks, --hot-spot)
 * that continues another file's times.
 * Every formula under VARIABLES takes the series step k, so the times
 * t_k = (k+1)/4 continue across segments and any value of any segment
 * follows from its gid, position and k. The hot spot crosses the mesh once
 * over the whole series.
 *
 * FILE. Coordinate names x, y[, z]; title "mxn_gen <options>" (the options
 * as given, without the output path, truncated to 80 characters); four info
 * records giving the id formula and O, S, A, C, N for nodes and elements.
 * Integers always pass the API as int64; --int64 also stores them as int64
 * (netCDF-4) and then allows ids beyond 2^31-1, otherwise the file is
 * netCDF 64-bit offset and every id and count must fit in a 32-bit int.
 * --format nc4 (or --compress L > 0) writes netCDF-4 through Exodus's own
 * options (EX_NETCDF4 | EX_NOCLASSIC, ex_set_option compression level and
 * shuffle): a file as Exodus-based codes write it, with netCDF's default
 * chunks; exodus 6.02 compresses coordinates, connectivity, maps, sets and
 * nodal variables, not the element variables of a truth table. (mxn's own
 * writer chooses its chunks, see core/src/nc4copy.c.)
 * Sets go through ex_put_concat_sets because exodus 6.02's ex_put_set_param
 * defines the set lists of an int64 database as NC_USHORT (values > 65535
 * then fail with NC_ERANGE).
 *
 * Everything is defined before the large arrays are written, so netCDF never
 * has to move written data; 100^3 hexes with 5 steps take about 1.5 s.
 */
#include <errno.h>
#include <exodusII.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "poly.h"

enum { GEN_OK = 0, GEN_IO = 1, GEN_USAGE = 2 };

static const char usage_text[] =
  "Usage: mxn_gen --type hex|tet|quad|wedge|mixed --dims NX NY [NZ]\n"
  "               [--blocks K] [--steps T] [--int64] [--id-offset O]\n"
  "               [--id-stride S] [--shuffle-ids SEED] [--no-sets]\n"
  "               [--sets S] [--no-vars] [--word-size 4|8] [--hot-spot] [--displacement]\n"
  "               [--format nc3|nc4] [--compress L]\n"
  "               [--series K [--series-overlap]] [--step-offset S] OUT.e\n"
  "\n"
  "Writes a structured Exodus II mesh of the box [0,NX]x[0,NY]x[0,NZ] (unit\n"
  "spacing) whose ids, sets, attributes and variables all follow formulas\n"
  "of the global ids, so tests can check any extracted value exactly.\n"
  "\n"
  "Options:\n"
  "  --type T          poly-hex, poly-mixed, polygon: polyhedral (NFACED over\n"
  "                    NSIDED faces) and polygonal meshes, see data/gen/poly.c\n"
  "                    (options --dims --blocks --steps --no-vars --id-offset\n"
  "                    --split-faces only).\n"
  "                    hex (HEX8), tet (6 TET4 per cell, Kuhn split on the\n"
  "                    (0,0,0)-(1,1,1) diagonal), wedge (2 WEDGE6 per cell,\n"
  "                    triangles in xy split on the (0,0)-(1,1) diagonal,\n"
  "                    extruded along z), quad (QUAD4, 2D, needs 2 dims),\n"
  "                    mixed (block b is hex, wedge, tet for b mod 3 = 0,1,2;\n"
  "                    hex|wedge slabs share quad faces, a tet slab meets its\n"
  "                    neighbours quad face against two triangles: same\n"
  "                    nodes, but not face-conforming).\n"
  "  --dims NX NY [NZ] cells per direction (NZ required in 3D, absent in 2D).\n"
  "  --blocks K        K slabs along x, ids 10,20,..., names block_<id>;\n"
  "                    K <= NX. Default 1 (mixed: 3).\n"
  "  --steps T         time steps, default 3; t_k = (k+1)/4 for k=0..T-1.\n"
  "  --int64           store ids and bulk integers as int64 (netCDF-4);\n"
  "                    required once an id or count exceeds 2^31-1.\n"
  "  --id-offset O     ids start after O (default 0).\n"
  "  --id-stride S     ids advance by S (default 1).\n"
  "  --shuffle-ids SEED  permute ids (see below).\n"
  "  --no-sets         no node sets or side sets.\n"
  "  --sets S          S node sets and S side sets (default 2, S <= NX+1;\n"
  "                    0 is --no-sets), see Sets below.\n"
  "  --no-vars         no variables and no time steps.\n"
  "  --word-size 4|8   floating-point size stored in the file (default 8).\n"
  "  --format nc3|nc4  nc3 (default): netCDF 64-bit offset (with --int64:\n"
  "                    netCDF-4); nc4: netCDF-4 (HDF5) as Exodus writes it.\n"
  "  --compress L      deflate level L (0-9) with shuffle, Exodus's own\n"
  "                    compression option; L > 0 writes nc4.\n"
  "  --displacement    nodal variables disp_x, disp_y[, disp_z] = (k+1) x/64\n"
  "                    (each coordinate): a displacement ParaView's readers\n"
  "                    apply, moving the mesh to (1 + (k+1)/64) times itself.\n"
  "  --hot-spot        a third element variable \"hot_spot\": 1 + 9 exp(-d^2/2s^2),\n"
  "                    d from a centre crossing the mesh diagonally over the\n"
  "                    steps (s = 0.08 max(NX,NY)); a moving load to balance.\n"
  "  --hot-spot-peak P  the spot's height P instead of 9 (implies --hot-spot).\n"
  "  --series K        an adaptive series of K files OUT, OUT-s002, ...,\n"
  "                    OUT-s<K> (3 digits) whose meshes differ, see Series.\n"
  "  --series-overlap  each segment's first time equals the previous\n"
  "                    segment's last (needs --series K >= 2, --steps >= 2).\n"
  "  --step-offset S   one file whose steps are series steps S, S+1, ...\n"
  "                    (times (S+1)/4, ...): a hand-made later segment.\n"
  "  -h, --help        this text.\n"
  "\n"
  "Order: node file index n = i + (NX+1)*(j + (NY+1)*k) for node (i,j,k) at\n"
  "(x,y,z) = (i,j,k). Block b holds cells floor(b*NX/K) <= i <\n"
  "floor((b+1)*NX/K); cells run k, then j, then i (fastest) within a block,\n"
  "each cell emitting its 1/2/6 sub-elements in order.\n"
  "\n"
  "Ids, for N nodes (or elements) and 0-based file index q:\n"
  "  gid(q) = O + 1 + S*p(q), p(q) = q, or with --shuffle-ids SEED\n"
  "  p(q) = (A*q + C) mod N, G = floor(N*0.6180339887498949),\n"
  "  A = smallest a >= max((G + SEED mod N) mod N, 1) with gcd(a,N) = 1,\n"
  "  C = (SEED + floor(N/2)) mod N. A, C, N are also in the info records.\n"
  "\n"
  "Sets: node sets 1 (x=0) and 2 (x=NX), distribution factor gid(n)/2;\n"
  "side sets 1 (sides on y=0) and 2 (sides on z=NZ, in 2D y=NY) in Exodus\n"
  "side numbering, distribution factor of side node j (0-based) of element e\n"
  "gid(e) + j/8. With --sets S: node set q (1-based) on the plane\n"
  "x = floor((q-1)*NX/(S-1)); side sets q >= 3 the sides on y=NY of the\n"
  "x slab floor((q-3)*NX/(S-2)) <= i < floor((q-2)*NX/(S-2)).\n"
  "\n"
  "Variables at step k (time t_k = (k+1)/4):\n"
  "  global  step_index = k, time_sq = t_k^2\n"
  "  nodal   node_gid_time = gid(n) + k/16, nodal_x = x(n) + k\n"
  "  element elem_gid_time = -(gid(e) + k/16) on every block,\n"
  "          elem_block_only = 2*gid(e) + k/16 on the first block only.\n"
  "Attribute attr_gid = gid(e) on the first block only.\n"
  "Values are exact in double for gid < 2^48; with --word-size 4 only for\n"
  "gid < 2^19 and T <= 16.\n"
  "\n"
  "Series (--series K; hex, tet, quad, wedge, mixed): segment s = 0..K-1 is\n"
  "the file above with dims floor(D*(s+2)/2) for each given D (40 40 40:\n"
  "64k, 216k, 512k hexes), --blocks B+s, ids after O + s*1000000, and T\n"
  "steps that continue the series: step kl of segment s is series step\n"
  "k = s*T + kl (--series-overlap: s*(T-1) + kl), and every variable above\n"
  "takes that k, so t_k = (k+1)/4 runs on across the segments.\n"
  "\n"
  "Exit status: 0 ok, 2 bad usage, 1 I/O error (partial file removed).\n";

/* ---------------------------------------------------------------- cells */

typedef enum { CELL_HEX, CELL_WEDGE, CELL_TET, CELL_QUAD, CELL_MIXED } cell_kind;

/* Corner of a grid cell: bit 0 = +x, bit 1 = +y, bit 2 = +z. */
typedef struct cell_desc {
  const char *topology;
  int npe;                  /* nodes per element */
  int nsub;                 /* elements per grid cell */
  int conn[6][8];           /* corners of each sub-element, Exodus order */
  int nsides;
  int side_len[6];
  int side_nodes[6][4];     /* 1-based element node positions, Exodus order */
} cell_desc;

static const cell_desc cell_table[4] = {
  [CELL_HEX] = { "HEX8", 8, 1, { { 0, 1, 3, 2, 4, 5, 7, 6 } }, 6,
                 { 4, 4, 4, 4, 4, 4 },
                 { { 1, 2, 6, 5 }, { 2, 3, 7, 6 }, { 3, 4, 8, 7 },
                   { 1, 5, 8, 4 }, { 1, 4, 3, 2 }, { 5, 6, 7, 8 } } },
  [CELL_WEDGE] = { "WEDGE6", 6, 2,
                   { { 0, 1, 3, 4, 5, 7 }, { 0, 3, 2, 4, 7, 6 } }, 5,
                   { 4, 4, 4, 3, 3 },
                   { { 1, 2, 5, 4 }, { 2, 3, 6, 5 }, { 1, 4, 6, 3 },
                     { 1, 3, 2 }, { 4, 5, 6 } } },
  /* Kuhn: path 0 -> a -> a+b -> 7 for each axis order, nodes 2 and 3
     swapped for odd orders so every volume is positive. */
  [CELL_TET] = { "TET4", 4, 6,
                 { { 0, 1, 3, 7 }, { 0, 5, 1, 7 }, { 0, 3, 2, 7 },
                   { 0, 2, 6, 7 }, { 0, 4, 5, 7 }, { 0, 6, 4, 7 } }, 4,
                 { 3, 3, 3, 3 },
                 { { 1, 2, 4 }, { 2, 3, 4 }, { 1, 4, 3 }, { 1, 3, 2 } } },
  [CELL_QUAD] = { "QUAD4", 4, 1, { { 0, 1, 3, 2 } }, 4, { 2, 2, 2, 2 },
                  { { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 1 } } },
};

/* The (sub-element, side) pairs of one cell lying on a cell face. */
typedef struct face_sides {
  int count;
  int sub[12];
  int side[12];             /* 1-based Exodus side number */
  int nodes;                /* sum of side node counts */
} face_sides;

/* Sides of kind whose nodes all have corner bit `bit` equal to `val`. */
static face_sides find_face_sides(cell_kind kind, int bit, int val)
{
  const cell_desc *c = &cell_table[kind];
  face_sides fs = { 0 };
  for (int s = 0; s < c->nsub; s++) {
    for (int f = 0; f < c->nsides; f++) {
      int on = 1;
      for (int j = 0; j < c->side_len[f]; j++) {
        int corner = c->conn[s][c->side_nodes[f][j] - 1];
        if (((corner & bit) != 0) != (val != 0))
          on = 0;
      }
      if (on) {
        fs.sub[fs.count] = s;
        fs.side[fs.count] = f + 1;
        fs.nodes += c->side_len[f];
        fs.count++;
      }
    }
  }
  return fs;
}

/* ------------------------------------------------------------- options */

typedef struct gen_opts {
  cell_kind kind;
  int kind_given;
  int64_t dims[3];
  int ndims;
  int blocks;               /* 0: default */
  int steps;
  int int64;
  int64_t id_offset, id_stride;
  int shuffle;
  uint64_t seed;
  int sets, vars;           /* sets: node sets and side sets, each */
  int hot_spot;
  double hot_peak;
  int displacement;         /* nodal disp_x, disp_y[, disp_z] */
  int word_size;
  int format;               /* 0: default, 3: nc3, 4: nc4 */
  int compress;             /* deflate level, 0: none */
  int series;               /* segments of an adaptive series, 0: one file */
  int series_overlap;       /* a segment's first time repeats the previous last */
  int step0;                /* global step index of this file's first step */
  int steps_total;          /* steps of the whole series (the hot spot's path) */
  const char *out;
  char title[MAX_LINE_LENGTH + 1];
} gen_opts;

static void usage_error(const char *fmt, ...)
{
  va_list ap;
  fputs("mxn_gen: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'mxn_gen --help'.\n", stderr);
}

/* Whole-string signed integer in [lo, hi]. */
static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
    return -1;
  *out = (int64_t)v;
  return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
  char *end = NULL;
  if (s[0] == '-' || s[0] == '\0')
    return -1;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0')
    return -1;
  *out = (uint64_t)v;
  return 0;
}

static int is_integer(const char *s)
{
  int64_t v;
  return parse_i64(s, INT64_MIN, INT64_MAX, &v) == 0;
}

/* Returns GEN_OK, GEN_USAGE, or -1 for --help (already printed). */
static int parse_args(int argc, char **argv, gen_opts *o)
{
  int rc = GEN_USAGE;
  int out_index = -1;

  memset(o, 0, sizeof *o);
  o->steps = 3;
  o->hot_peak = 9.0;
  o->id_stride = 1;
  o->sets = 2;
  o->vars = 1;
  o->word_size = 8;

  for (int a = 1; a < argc; a++) {
    const char *arg = argv[a];
    int has_next = a + 1 < argc;
    int64_t v;
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      fputs(usage_text, stdout);
      rc = -1;
      goto done;
    } else if (!strcmp(arg, "--type")) {
      if (!has_next) { usage_error("--type needs a value"); goto done; }
      const char *t = argv[++a];
      if (!strcmp(t, "hex")) o->kind = CELL_HEX;
      else if (!strcmp(t, "tet")) o->kind = CELL_TET;
      else if (!strcmp(t, "wedge")) o->kind = CELL_WEDGE;
      else if (!strcmp(t, "quad")) o->kind = CELL_QUAD;
      else if (!strcmp(t, "mixed")) o->kind = CELL_MIXED;
      else { usage_error("unknown --type '%s' (hex, tet, quad, wedge, mixed)", t); goto done; }
      o->kind_given = 1;
    } else if (!strcmp(arg, "--dims")) {
      o->ndims = 0;
      for (int d = 0; d < 3; d++) {
        /* The third count is optional: take it only if it is a number. */
        if (a + 1 >= argc || (d == 2 && !is_integer(argv[a + 1])))
          break;
        if (parse_i64(argv[a + 1], 1, INT32_MAX, &v) != 0) {
          usage_error("--dims: '%s' is not a positive cell count", argv[a + 1]);
          goto done;
        }
        o->dims[o->ndims++] = v;
        a++;
      }
      if (o->ndims < 2) { usage_error("--dims needs NX NY [NZ]"); goto done; }
    } else if (!strcmp(arg, "--blocks")) {
      if (!has_next || parse_i64(argv[++a], 1, 100000, &v) != 0) {
        usage_error("--blocks needs a count in 1..100000"); goto done;
      }
      o->blocks = (int)v;
    } else if (!strcmp(arg, "--steps")) {
      if (!has_next || parse_i64(argv[++a], 0, 1000000, &v) != 0) {
        usage_error("--steps needs a count in 0..1000000"); goto done;
      }
      o->steps = (int)v;
    } else if (!strcmp(arg, "--int64")) {
      o->int64 = 1;
    } else if (!strcmp(arg, "--id-offset")) {
      if (!has_next || parse_i64(argv[++a], 0, INT64_MAX - 1, &v) != 0) {
        usage_error("--id-offset needs an integer >= 0"); goto done;
      }
      o->id_offset = v;
    } else if (!strcmp(arg, "--id-stride")) {
      if (!has_next || parse_i64(argv[++a], 1, INT64_MAX, &v) != 0) {
        usage_error("--id-stride needs an integer >= 1"); goto done;
      }
      o->id_stride = v;
    } else if (!strcmp(arg, "--shuffle-ids")) {
      if (!has_next || parse_u64(argv[++a], &o->seed) != 0) {
        usage_error("--shuffle-ids needs a seed, an integer >= 0"); goto done;
      }
      o->shuffle = 1;
    } else if (!strcmp(arg, "--no-sets")) {
      o->sets = 0;
    } else if (!strcmp(arg, "--sets")) {
      if (!has_next || parse_i64(argv[++a], 0, 1000000, &v) != 0) {
        usage_error("--sets needs a count in 0..1000000"); goto done;
      }
      o->sets = (int)v;
    } else if (!strcmp(arg, "--displacement")) {
      o->displacement = 1;
    } else if (!strcmp(arg, "--hot-spot")) {
      o->hot_spot = 1;
    } else if (!strcmp(arg, "--hot-spot-peak")) {
      char *end;
      if (!has_next || (o->hot_peak = strtod(argv[++a], &end), *end) || !(o->hot_peak >= 0) ||
          o->hot_peak > 1e12) {
        usage_error("--hot-spot-peak needs a number >= 0"); goto done;
      }
      o->hot_spot = 1;
    } else if (!strcmp(arg, "--series")) {
      if (!has_next || parse_i64(argv[++a], 1, 999, &v) != 0) {
        usage_error("--series needs a segment count in 1..999"); goto done;
      }
      o->series = (int)v;
    } else if (!strcmp(arg, "--series-overlap")) {
      o->series_overlap = 1;
    } else if (!strcmp(arg, "--step-offset")) {
      if (!has_next || parse_i64(argv[++a], 0, 1000000, &v) != 0) {
        usage_error("--step-offset needs a step count in 0..1000000"); goto done;
      }
      o->step0 = (int)v;
    } else if (!strcmp(arg, "--no-vars")) {
      o->vars = 0;
    } else if (!strcmp(arg, "--word-size")) {
      if (!has_next || parse_i64(argv[++a], 4, 8, &v) != 0 || (v != 4 && v != 8)) {
        usage_error("--word-size needs 4 or 8"); goto done;
      }
      o->word_size = (int)v;
    } else if (!strcmp(arg, "--format")) {
      const char *f = has_next ? argv[++a] : "";
      if (!strcmp(f, "nc3")) o->format = 3;
      else if (!strcmp(f, "nc4")) o->format = 4;
      else { usage_error("--format needs nc3 or nc4"); goto done; }
    } else if (!strcmp(arg, "--compress")) {
      if (!has_next || parse_i64(argv[++a], 0, 9, &v) != 0) {
        usage_error("--compress needs a level in 0..9"); goto done;
      }
      o->compress = (int)v;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      usage_error("unknown option '%s'", arg);
      goto done;
    } else {
      if (out_index >= 0) {
        usage_error("more than one output file ('%s', '%s')", argv[out_index], arg);
        goto done;
      }
      out_index = a;
    }
  }

  if (!o->kind_given) { usage_error("--type is required"); goto done; }
  if (o->compress > 0 && o->format == 3) {
    usage_error("--compress needs netCDF-4 files: use --format nc4 (or no --format)");
    goto done;
  }
  if (o->compress > 0) o->format = 4;
  if (o->int64 && o->format == 3) {
    usage_error("--int64 stores netCDF-4 files: drop --format nc3");
    goto done;
  }
  if (o->ndims == 0) { usage_error("--dims is required"); goto done; }
  if (o->kind == CELL_QUAD && o->ndims != 2) {
    usage_error("--type quad is 2D: give --dims NX NY"); goto done;
  }
  if (o->kind != CELL_QUAD && o->ndims != 3) {
    usage_error("3D types need --dims NX NY NZ"); goto done;
  }
  if (out_index < 0) { usage_error("no output file given"); goto done; }
  o->out = argv[out_index];
  if (o->blocks == 0) {
    o->blocks = o->kind == CELL_MIXED ? 3 : 1;
    if (o->blocks > o->dims[0]) {
      usage_error("--type mixed has 3 blocks by default and needs NX >= 3 "
                  "(or give --blocks)");
      goto done;
    }
  }
  if (o->blocks > o->dims[0]) {
    usage_error("--blocks %d exceeds NX = %" PRId64 " (blocks are x slabs)",
                o->blocks, o->dims[0]);
    goto done;
  }
  if (o->sets > o->dims[0] + 1) {
    usage_error("--sets %d exceeds NX+1 = %" PRId64 " (sets are x planes and slabs)",
                o->sets, o->dims[0] + 1);
    goto done;
  }
  if (!o->vars)
    o->steps = 0;
  if (o->series_overlap && o->series < 2) {
    usage_error("--series-overlap needs --series K with K >= 2"); goto done;
  }
  if (o->series_overlap && o->steps < 2) {
    usage_error("--series-overlap needs --steps T with T >= 2 (each segment "
                "adds T-1 new times)");
    goto done;
  }
  if (o->step0 > 0 && o->series > 0) {
    usage_error("--step-offset is for single files (a --series numbers its own steps)");
    goto done;
  }
  o->steps_total = o->step0 + o->steps;

  /* Title: the options without the output path. */
  snprintf(o->title, sizeof o->title, "mxn_gen");
  for (int a = 1; a < argc; a++) {
    size_t len = strlen(o->title);
    if (a != out_index && len < sizeof o->title - 1)
      snprintf(o->title + len, sizeof o->title - len, " %s", argv[a]);
  }
  rc = GEN_OK;
done:
  return rc;
}

/* -------------------------------------------------------------- layout */

typedef struct id_map {
  int64_t n, offset, stride;
  int shuffle;
  uint64_t a, c;
} id_map;

typedef struct layout {
  int dim;
  int64_t nx, ny, nz;       /* cells; nz = 1 in 2D */
  int64_t num_nodes, num_elems;
  int nblk;
  int64_t *x0;              /* nblk+1 slab boundaries (cell index in x) */
  int64_t *elem_off;        /* nblk+1 element offsets E(b) */
  cell_kind *kind;          /* nblk */
  id_map node_ids, elem_ids;
} layout;

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static void id_map_init(id_map *m, int64_t n, const gen_opts *o)
{
  m->n = n;
  m->offset = o->id_offset;
  m->stride = o->id_stride;
  m->shuffle = o->shuffle;
  m->a = 1;
  m->c = 0;
  if (o->shuffle && n > 0) {
    uint64_t un = (uint64_t)n;
    uint64_t g = (uint64_t)((double)n * 0.6180339887498949);
    if (g >= un)            /* cannot happen for n < 2^53; keep G < N anyway */
      g = un - 1;
    uint64_t a0 = (g + o->seed % un) % un;
    uint64_t a = a0 < 1 ? 1 : a0;
    while (gcd_u64(a, un) != 1)
      a++;                  /* terminates: gcd(N-1, N) = 1 */
    m->a = a;
    m->c = (o->seed % un + un / 2) % un;
  }
}

/* gid of every entity in file order; p advances by A mod N, so no
   multiplication can overflow. */
static void id_map_fill(const id_map *m, int64_t *gid)
{
  uint64_t un = (uint64_t)m->n;
  uint64_t p = m->shuffle ? m->c : 0;
  for (int64_t q = 0; q < m->n; q++) {
    gid[q] = m->offset + 1 + m->stride * (int64_t)p;
    if (m->shuffle) {
      p += m->a;
      if (p >= un)
        p -= un;
    } else {
      p++;
    }
  }
}

/* 0 if ids offset+1 .. offset+1+stride*(n-1) fit below limit. */
static int id_map_fits(const id_map *m, int64_t limit)
{
  if (m->n <= 1)
    return m->offset < limit;
  if (m->offset > limit - 1)
    return 0;
  return m->stride <= (limit - 1 - m->offset) / (m->n - 1);
}

static void layout_free(layout *l)
{
  free(l->x0);
  free(l->elem_off);
  free(l->kind);
  l->x0 = l->elem_off = NULL;
  l->kind = NULL;
}

/* Returns GEN_OK, GEN_USAGE (limits) or GEN_IO (memory). */
static int layout_init(layout *l, const gen_opts *o)
{
  int rc = GEN_IO;
  const int64_t limit = o->int64 ? INT64_MAX : INT32_MAX;

  memset(l, 0, sizeof *l);
  l->dim = o->kind == CELL_QUAD ? 2 : 3;
  l->nx = o->dims[0];
  l->ny = o->dims[1];
  l->nz = l->dim == 3 ? o->dims[2] : 1;
  l->nblk = o->blocks;
  l->x0 = calloc((size_t)l->nblk + 1, sizeof *l->x0);
  l->elem_off = calloc((size_t)l->nblk + 1, sizeof *l->elem_off);
  l->kind = calloc((size_t)l->nblk, sizeof *l->kind);
  if (!l->x0 || !l->elem_off || !l->kind) {
    fprintf(stderr, "mxn_gen: out of memory\n");
    goto done;
  }

  /* Dimensions are <= INT32_MAX each, so these products fit in int64 as
     long as each partial product is checked against the limit. */
  rc = GEN_USAGE;
  int64_t plane = l->ny * l->nz;                      /* < 2^62 */
  int64_t nodes_plane = (l->ny + 1) * (l->dim == 3 ? l->nz + 1 : 1);
  if (nodes_plane > limit / (l->nx + 1)) {
    fprintf(stderr, "mxn_gen: %s: too many nodes for %s\n", o->out,
            o->int64 ? "int64" : "a 32-bit file (use --int64)");
    goto done;
  }
  l->num_nodes = nodes_plane * (l->nx + 1);
  for (int b = 0; b <= l->nblk; b++)
    l->x0[b] = (int64_t)b * l->nx / l->nblk;
  for (int b = 0; b < l->nblk; b++) {
    static const cell_kind mixed[3] = { CELL_HEX, CELL_WEDGE, CELL_TET };
    l->kind[b] = o->kind == CELL_MIXED ? mixed[b % 3] : o->kind;
    int64_t cells_x = l->x0[b + 1] - l->x0[b];
    int nsub = cell_table[l->kind[b]].nsub;
    int npe = cell_table[l->kind[b]].npe;
    if (plane > limit / cells_x / nsub / npe
        || plane * cells_x * nsub > limit - l->elem_off[b]) {
      fprintf(stderr, "mxn_gen: %s: too many elements for %s\n", o->out,
              o->int64 ? "int64" : "a 32-bit file (use --int64)");
      goto done;
    }
    l->elem_off[b + 1] = l->elem_off[b] + plane * cells_x * nsub;
  }
  l->num_elems = l->elem_off[l->nblk];

  id_map_init(&l->node_ids, l->num_nodes, o);
  id_map_init(&l->elem_ids, l->num_elems, o);
  if (!id_map_fits(&l->node_ids, limit) || !id_map_fits(&l->elem_ids, limit)) {
    fprintf(stderr, "mxn_gen: %s: ids O + 1 + S*(N-1) exceed %s\n", o->out,
            o->int64 ? "int64" : "2^31-1 (use --int64)");
    goto done;
  }
  rc = GEN_OK;
done:
  return rc;
}

/* ------------------------------------------------------------- writing */

/* Prints "mxn_gen: FILE: <what>: <exodus message>". */
static void report_ex(const char *path, const char *fmt, ...)
{
  const char *msg = NULL, *func = NULL;
  int err = 0;
  va_list ap;
  ex_get_err(&msg, &func, &err);
  fprintf(stderr, "mxn_gen: %s: ", path);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " failed");
  if (msg && msg[0])
    fprintf(stderr, ": %s", msg);
  if (err != 0)
    fprintf(stderr, " (error %d)", err);
  fputc('\n', stderr);
}

#define EX_CALL(call, ...)                        \
  do {                                            \
    if ((call) < 0) {                             \
      report_ex(path, __VA_ARGS__);               \
      goto done;                                  \
    }                                             \
  } while (0)

#define ALLOC(ptr, count)                                                  \
  do {                                                                     \
    (ptr) = malloc(((size_t)(count) > 0 ? (size_t)(count) : 1) * sizeof *(ptr)); \
    if (!(ptr)) {                                                          \
      fprintf(stderr, "mxn_gen: %s: out of memory\n", path);              \
      goto done;                                                           \
    }                                                                      \
  } while (0)

static int64_t node_index(const layout *l, int64_t i, int64_t j, int64_t k)
{
  return i + (l->nx + 1) * (j + (l->ny + 1) * k);
}

/* One side set: the sides lying in a boundary layer of cells, chosen by a
   corner bit (2 = +y, 4 = +z) and its value (0 = low face, 1 = high), of
   the cells ilo <= i < ihi. */
typedef struct side_set_plan {
  int64_t id;
  char name[MAX_STR_LENGTH + 1];
  int bit, val;
  int64_t ilo, ihi;
} side_set_plan;

/* The S side sets of --sets S (see SETS at the top). */
static void plan_side_sets(const layout *l, int nsets, side_set_plan *ss)
{
  for (int q = 0; q < nsets; q++) {
    side_set_plan *p = &ss[q];
    p->id = q + 1;
    p->ilo = 0;
    p->ihi = l->nx;
    if (q == 0) {
      snprintf(p->name, sizeof p->name, "y_min");
      p->bit = 2, p->val = 0;
    } else if (q == 1) {
      snprintf(p->name, sizeof p->name, l->dim == 3 ? "z_max" : "y_max");
      p->bit = l->dim == 3 ? 4 : 2, p->val = 1;
    } else {
      snprintf(p->name, sizeof p->name, "y_max_%d", q + 1);
      p->bit = 2, p->val = 1;
      p->ilo = (int64_t)(q - 2) * l->nx / (nsets - 2);
      p->ihi = (int64_t)(q - 1) * l->nx / (nsets - 2);
    }
  }
}

/* Node sets and side sets, each type in one ex_put_concat_sets call:
   exodus 6.02's ex_put_set_param defines the entry lists of an int64
   database as NC_USHORT, which truncates; the concat path types them
   correctly. */
static int write_sets(int exoid, const char *path, const layout *l, int nsets,
                      const side_set_plan *ss, const int64_t *node_gid,
                      const int64_t *elem_gid)
{
  int rc = GEN_IO;
  int64_t *ids = NULL, *counts = NULL, *ndf = NULL, *entry_idx = NULL, *df_idx = NULL;
  int64_t *entries = NULL, *extra = NULL;
  double *df = NULL;
  char **names = NULL;      /* node sets', then side sets' */
  int64_t nk = l->dim == 3 ? l->nz + 1 : 1;
  int64_t ns_count = (l->ny + 1) * nk;
  int64_t n = 0, nd = 0, total = 0, total_df = 0;
  ex_set_specs spec;

  ALLOC(ids, nsets);
  ALLOC(counts, nsets);
  ALLOC(ndf, nsets);
  ALLOC(entry_idx, nsets);
  ALLOC(df_idx, nsets);
  ALLOC(names, 2 * nsets);
  for (int q = 0; q < 2 * nsets; q++)
    names[q] = NULL;
  for (int q = 0; q < 2 * nsets; q++)
    ALLOC(names[q], MAX_STR_LENGTH + 1);

  /* node set q on the plane x = i(q): 1 (x = 0) and 2 (x = NX) by default */
  ALLOC(entries, nsets * ns_count);
  ALLOC(df, nsets * ns_count);
  for (int s = 0; s < nsets; s++) {
    int64_t i = nsets == 1 ? 0 : (int64_t)s * l->nx / (nsets - 1);
    ids[s] = s + 1;
    counts[s] = ndf[s] = ns_count;
    entry_idx[s] = df_idx[s] = n;
    if (s == 0)
      snprintf(names[s], MAX_STR_LENGTH + 1, "x_min");
    else if (s == nsets - 1)
      snprintf(names[s], MAX_STR_LENGTH + 1, "x_max");
    else
      snprintf(names[s], MAX_STR_LENGTH + 1, "x_%" PRId64, i);
    for (int64_t k = 0; k < nk; k++)
      for (int64_t j = 0; j <= l->ny; j++) {
        int64_t q = node_index(l, i, j, k);
        entries[n] = q + 1;
        df[n] = 0.5 * (double)node_gid[q];
        n++;
      }
  }
  spec = (ex_set_specs){ ids, counts, ndf, entry_idx, df_idx, entries, NULL, df };
  EX_CALL(ex_put_concat_sets(exoid, EX_NODE_SET, &spec), "ex_put_concat_sets (node sets)");
  free(entries);
  free(df);
  entries = NULL;
  df = NULL;

  /* side sets: count first, then fill in file order; block b's cells in
     a set's x range are lo(b) <= i < hi(b) */
#define SS_RANGE(p, b, lo, hi)                                        \
  int64_t lo = (p)->ilo > l->x0[b] ? (p)->ilo : l->x0[b];             \
  int64_t hi = (p)->ihi < l->x0[(b) + 1] ? (p)->ihi : l->x0[(b) + 1]
  for (int s = 0; s < nsets; s++) {
    counts[s] = ndf[s] = 0;
    for (int b = 0; b < l->nblk; b++) {
      SS_RANGE(&ss[s], b, lo, hi);
      if (hi <= lo)
        continue;
      face_sides fs = find_face_sides(l->kind[b], ss[s].bit, ss[s].val);
      int64_t layer = (hi - lo) * (ss[s].bit == 2 ? l->nz : l->ny);
      counts[s] += layer * fs.count;
      ndf[s] += layer * fs.nodes;
    }
    total += counts[s];
    total_df += ndf[s];
  }
  ALLOC(entries, total);
  ALLOC(extra, total);
  ALLOC(df, total_df);
  n = nd = 0;
  for (int s = 0; s < nsets; s++) {
    ids[s] = ss[s].id;
    entry_idx[s] = n;
    df_idx[s] = nd;
    snprintf(names[nsets + s], MAX_STR_LENGTH + 1, "%s", ss[s].name);
    for (int b = 0; b < l->nblk; b++) {
      SS_RANGE(&ss[s], b, lo, hi);
      if (hi <= lo)
        continue;
      const cell_desc *c = &cell_table[l->kind[b]];
      face_sides fs = find_face_sides(l->kind[b], ss[s].bit, ss[s].val);
      int64_t cells_x = l->x0[b + 1] - l->x0[b];
      int64_t jlo = 0, jhi = l->ny, klo = 0, khi = l->nz;
      if (ss[s].bit == 2) {
        jlo = ss[s].val ? l->ny - 1 : 0;
        jhi = jlo + 1;
      } else {
        klo = ss[s].val ? l->nz - 1 : 0;
        khi = klo + 1;
      }
      for (int64_t k = klo; k < khi; k++)
        for (int64_t j = jlo; j < jhi; j++)
          for (int64_t ci = lo - l->x0[b]; ci < hi - l->x0[b]; ci++) {
            int64_t cell = ci + cells_x * (j + l->ny * k);
            for (int t = 0; t < fs.count; t++) {
              int64_t e = l->elem_off[b] + cell * c->nsub + fs.sub[t];
              entries[n] = e + 1;
              extra[n] = fs.side[t];
              n++;
              for (int q = 0; q < c->side_len[fs.side[t] - 1]; q++)
                df[nd++] = (double)elem_gid[e] + 0.125 * q;
            }
          }
    }
  }
#undef SS_RANGE
  spec = (ex_set_specs){ ids, counts, ndf, entry_idx, df_idx, entries, extra, df };
  EX_CALL(ex_put_concat_sets(exoid, EX_SIDE_SET, &spec), "ex_put_concat_sets (side sets)");
  EX_CALL(ex_put_names(exoid, EX_NODE_SET, names), "ex_put_names (node sets)");
  EX_CALL(ex_put_names(exoid, EX_SIDE_SET, names + nsets), "ex_put_names (side sets)");
  rc = GEN_OK;
done:
  if (names)
    for (int q = 0; q < 2 * nsets; q++)
      free(names[q]);
  free(names);
  free(ids);
  free(counts);
  free(ndf);
  free(entry_idx);
  free(df_idx);
  free(entries);
  free(extra);
  free(df);
  return rc;
}

static int write_block_conn(int exoid, const char *path, const layout *l, int b)
{
  int rc = GEN_IO;
  const cell_desc *c = &cell_table[l->kind[b]];
  int64_t cells_x = l->x0[b + 1] - l->x0[b];
  int64_t nel = l->elem_off[b + 1] - l->elem_off[b];
  int64_t *conn = NULL, *out;
  int64_t corner_off[8];
  int64_t id = 10 * (int64_t)(b + 1);

  ALLOC(conn, nel * c->npe);
  for (int q = 0; q < 8; q++)
    corner_off[q] = node_index(l, q & 1, (q >> 1) & 1, l->dim == 3 ? (q >> 2) & 1 : 0);
  out = conn;
  for (int64_t k = 0; k < l->nz; k++)
    for (int64_t j = 0; j < l->ny; j++)
      for (int64_t i = l->x0[b]; i < l->x0[b] + cells_x; i++) {
        int64_t base = node_index(l, i, j, k) + 1;   /* 1-based */
        for (int s = 0; s < c->nsub; s++)
          for (int v = 0; v < c->npe; v++)
            *out++ = base + corner_off[c->conn[s][v]];
      }
  EX_CALL(ex_put_conn(exoid, EX_ELEM_BLOCK, id, conn, NULL, NULL),
          "ex_put_conn (block %" PRId64 ")", id);
  rc = GEN_OK;
done:
  free(conn);
  return rc;
}

static int write_info(int exoid, const char *path, const layout *l)
{
  int rc = GEN_IO;
  char lines[6][MAX_LINE_LENGTH + 1];
  char *ptrs[6];
  const id_map *maps[2] = { &l->node_ids, &l->elem_ids };
  const char *what[2] = { "node", "elem" };
  int n = 0;

  snprintf(lines[n++], sizeof lines[0],
           "mxn_gen test mesh: every value follows from ids, see mxn_gen --help");
  snprintf(lines[n++], sizeof lines[0],
           "gid(q) = O + 1 + S*p(q), q = 0-based file index; p(q) = %s",
           l->node_ids.shuffle ? "(A*q + C) mod N" : "q");
  for (int m = 0; m < 2; m++)
    snprintf(lines[n++], sizeof lines[0],
             "%s ids: O=%" PRId64 " S=%" PRId64 " A=%" PRIu64 " C=%" PRIu64 " N=%" PRId64,
             what[m], maps[m]->offset, maps[m]->stride, maps[m]->a, maps[m]->c,
             maps[m]->n);
  for (int q = 0; q < n; q++)
    ptrs[q] = lines[q];
  EX_CALL(ex_put_info(exoid, n, ptrs), "ex_put_info");
  rc = GEN_OK;
done:
  return rc;
}

static int write_file(const gen_opts *o, const layout *l)
{
  int rc = GEN_IO;
  const char *path = o->out;
  int exoid = -1, created = 0;
  int cpu_ws = 8, io_ws = o->word_size;
  int64_t *node_gid = NULL, *elem_gid = NULL, *blk_ids = NULL;
  double *x = NULL, *y = NULL, *z = NULL, *vals = NULL, *vals2 = NULL;
  char **blk_names = NULL;
  int *truth = NULL;
  int64_t max_blk = 0;
  side_set_plan *ss = NULL;
  int mode = EX_CLOBBER | EX_ALL_INT64_API
             | (o->int64 ? (EX_ALL_INT64_DB | EX_NETCDF4) : EX_LARGE_MODEL)
             | (o->format == 4 ? (EX_NETCDF4 | EX_NOCLASSIC) : 0);

  exoid = ex_create(path, mode, &cpu_ws, &io_ws);
  if (exoid < 0) {
    report_ex(path, "ex_create");
    goto done;
  }
  created = 1;
  if (o->compress > 0 &&
      (ex_set_option(exoid, EX_OPT_COMPRESSION_LEVEL, o->compress) < 0 ||
       ex_set_option(exoid, EX_OPT_COMPRESSION_SHUFFLE, 1) < 0)) {
    report_ex(path, "ex_set_option (compression)");
    goto done;
  }

  /* --- definitions first: netCDF classic files would otherwise move
         already-written bulk data on every later redefinition. */
  ex_init_params par;
  memset(&par, 0, sizeof par);
  snprintf(par.title, sizeof par.title, "%s", o->title);
  par.num_dim = l->dim;
  par.num_nodes = l->num_nodes;
  par.num_elem = l->num_elems;
  par.num_elem_blk = l->nblk;
  par.num_node_sets = o->sets;
  par.num_side_sets = o->sets;
  EX_CALL(ex_put_init_ext(exoid, &par), "ex_put_init_ext");

  ALLOC(blk_ids, l->nblk);
  ALLOC(blk_names, l->nblk);
  for (int b = 0; b < l->nblk; b++)
    blk_names[b] = NULL;
  for (int b = 0; b < l->nblk; b++) {
    const cell_desc *c = &cell_table[l->kind[b]];
    int64_t nel = l->elem_off[b + 1] - l->elem_off[b];
    blk_ids[b] = 10 * (int64_t)(b + 1);
    if (nel > max_blk)
      max_blk = nel;
    EX_CALL(ex_put_block(exoid, EX_ELEM_BLOCK, blk_ids[b], c->topology, nel,
                         c->npe, 0, 0, b == 0 ? 1 : 0),
            "ex_put_block (block %" PRId64 ")", blk_ids[b]);
    ALLOC(blk_names[b], MAX_STR_LENGTH + 1);
    snprintf(blk_names[b], MAX_STR_LENGTH + 1, "block_%" PRId64, blk_ids[b]);
  }
  EX_CALL(ex_put_names(exoid, EX_ELEM_BLOCK, blk_names), "ex_put_names (blocks)");
  {
    char *attr_names[1] = { "attr_gid" };
    EX_CALL(ex_put_attr_names(exoid, EX_ELEM_BLOCK, blk_ids[0], attr_names),
            "ex_put_attr_names (block %" PRId64 ")", blk_ids[0]);
  }

  if (o->vars) {
    char *gnames[2] = { "step_index", "time_sq" };
    char *nnames[5] = { "node_gid_time", "nodal_x", "disp_x", "disp_y", "disp_z" };
    int nnv = o->displacement ? 2 + l->dim : 2;
    char *enames[3] = { "elem_gid_time", "elem_block_only", "hot_spot" };
    int nev = o->hot_spot ? 3 : 2;
    EX_CALL(ex_put_variable_param(exoid, EX_GLOBAL, 2), "ex_put_variable_param (global)");
    EX_CALL(ex_put_variable_names(exoid, EX_GLOBAL, 2, gnames), "ex_put_variable_names (global)");
    EX_CALL(ex_put_variable_param(exoid, EX_NODAL, nnv), "ex_put_variable_param (nodal)");
    EX_CALL(ex_put_variable_names(exoid, EX_NODAL, nnv, nnames), "ex_put_variable_names (nodal)");
    EX_CALL(ex_put_variable_param(exoid, EX_ELEM_BLOCK, nev), "ex_put_variable_param (element)");
    EX_CALL(ex_put_variable_names(exoid, EX_ELEM_BLOCK, nev, enames), "ex_put_variable_names (element)");
    ALLOC(truth, nev * l->nblk);
    for (int b = 0; b < l->nblk; b++) {
      truth[nev * b] = 1;
      truth[nev * b + 1] = b == 0;
      if (nev > 2)
        truth[nev * b + 2] = 1;
    }
    EX_CALL(ex_put_truth_table(exoid, EX_ELEM_BLOCK, l->nblk, nev, truth),
            "ex_put_truth_table");
  }

  if (write_info(exoid, path, l) != GEN_OK)
    goto done;
  {
    char *cnames[3] = { "x", "y", "z" };
    EX_CALL(ex_put_coord_names(exoid, cnames), "ex_put_coord_names");
  }

  /* Sets and id maps define their variables as they write them; the
     large bulk arrays come only after the last definition. */
  ALLOC(node_gid, l->num_nodes);
  ALLOC(elem_gid, l->num_elems);
  id_map_fill(&l->node_ids, node_gid);
  id_map_fill(&l->elem_ids, elem_gid);
  ALLOC(ss, o->sets);
  plan_side_sets(l, o->sets, ss);
  if (o->sets && write_sets(exoid, path, l, o->sets, ss, node_gid, elem_gid) != GEN_OK)
    goto done;
  EX_CALL(ex_put_id_map(exoid, EX_NODE_MAP, node_gid), "ex_put_id_map (nodes)");
  EX_CALL(ex_put_id_map(exoid, EX_ELEM_MAP, elem_gid), "ex_put_id_map (elements)");

  /* --- bulk data */
  ALLOC(x, l->num_nodes);
  ALLOC(y, l->num_nodes);
  ALLOC(z, l->num_nodes);
  for (int64_t k = 0, q = 0; k < (l->dim == 3 ? l->nz + 1 : 1); k++)
    for (int64_t j = 0; j <= l->ny; j++)
      for (int64_t i = 0; i <= l->nx; i++, q++) {
        x[q] = (double)i;
        y[q] = (double)j;
        z[q] = (double)k;
      }
  EX_CALL(ex_put_coord(exoid, x, y, l->dim == 3 ? z : NULL), "ex_put_coord");
  if (!o->displacement) { /* (the displacement is made of them) */
    free(y);
    free(z);
    y = z = NULL;
  }

  for (int b = 0; b < l->nblk; b++)
    if (write_block_conn(exoid, path, l, b) != GEN_OK)
      goto done;

  {
    int64_t nel0 = l->elem_off[1];
    ALLOC(vals, nel0);
    for (int64_t e = 0; e < nel0; e++)
      vals[e] = (double)elem_gid[e];
    EX_CALL(ex_put_attr(exoid, EX_ELEM_BLOCK, blk_ids[0], vals),
            "ex_put_attr (block %" PRId64 ")", blk_ids[0]);
    free(vals);
    vals = NULL;
  }

  if (o->vars && o->steps > 0) {
    ALLOC(vals, l->num_nodes > max_blk ? l->num_nodes : max_blk);
    ALLOC(vals2, max_blk);
    for (int kl = 0; kl < o->steps; kl++) {
      /* k is the step's index in the whole series (the file's own index
         in a single file), so every formula continues across segments. */
      int k = o->step0 + kl;
      int step = kl + 1;
      double t = 0.25 * (k + 1);
      double frac = 0.0625 * k;
      double glob[2] = { (double)k, t * t };
      EX_CALL(ex_put_time(exoid, step, &t), "ex_put_time (step %d)", step);
      EX_CALL(ex_put_glob_vars(exoid, step, 2, glob), "ex_put_glob_vars (step %d)", step);
      for (int64_t q = 0; q < l->num_nodes; q++)
        vals[q] = (double)node_gid[q] + frac;
      EX_CALL(ex_put_var(exoid, step, EX_NODAL, 1, 1, l->num_nodes, vals),
              "ex_put_var (node_gid_time, step %d)", step);
      for (int64_t q = 0; q < l->num_nodes; q++)
        vals[q] = x[q] + (double)k;
      EX_CALL(ex_put_var(exoid, step, EX_NODAL, 2, 1, l->num_nodes, vals),
              "ex_put_var (nodal_x, step %d)", step);
      if (o->displacement) {
        const double *coords[3] = { x, y, z };
        for (int d = 0; d < l->dim; d++) {
          for (int64_t q = 0; q < l->num_nodes; q++)
            vals[q] = (double)(k + 1) * coords[d][q] / 64.0;
          EX_CALL(ex_put_var(exoid, step, EX_NODAL, 3 + d, 1, l->num_nodes, vals),
                  "ex_put_var (disp, step %d)", step);
        }
      }
      for (int b = 0; b < l->nblk; b++) {
        int64_t e0 = l->elem_off[b], nel = l->elem_off[b + 1] - e0;
        for (int64_t e = 0; e < nel; e++)
          vals[e] = -((double)elem_gid[e0 + e] + frac);
        EX_CALL(ex_put_var(exoid, step, EX_ELEM_BLOCK, 1, blk_ids[b], nel, vals),
                "ex_put_var (elem_gid_time, block %" PRId64 ", step %d)", blk_ids[b], step);
        if (b == 0) {
          for (int64_t e = 0; e < nel; e++)
            vals2[e] = 2.0 * (double)elem_gid[e0 + e] + frac;
          EX_CALL(ex_put_var(exoid, step, EX_ELEM_BLOCK, 2, blk_ids[b], nel, vals2),
                  "ex_put_var (elem_block_only, block %" PRId64 ", step %d)",
                  blk_ids[b], step);
        }
        if (o->hot_spot) {
          const cell_desc *c = &cell_table[l->kind[b]];
          double f = o->steps_total > 1 ? (double)k / (double)(o->steps_total - 1) : 0.0;
          double px = (0.1 + 0.8 * f) * (double)l->nx, py = (0.2 + 0.6 * f) * (double)l->ny;
          double pz = l->dim == 3 ? 0.5 * (double)l->nz : 0.5;
          double sg = 0.08 * (double)(l->nx > l->ny ? l->nx : l->ny);
          int64_t e = 0;
          for (int64_t kk = 0; kk < l->nz; kk++)
            for (int64_t j = 0; j < l->ny; j++)
              for (int64_t i = l->x0[b]; i < l->x0[b + 1]; i++) {
                double dx = (double)i + 0.5 - px, dy = (double)j + 0.5 - py;
                double dz = l->dim == 3 ? (double)kk + 0.5 - pz : 0.0;
                double v = 1.0 + o->hot_peak * exp(-(dx * dx + dy * dy + dz * dz) / (2.0 * sg * sg));
                for (int sub = 0; sub < c->nsub; sub++)
                  vals2[e++] = v;
              }
          EX_CALL(ex_put_var(exoid, step, EX_ELEM_BLOCK, 3, blk_ids[b], nel, vals2),
                  "ex_put_var (hot_spot, block %" PRId64 ", step %d)", blk_ids[b], step);
        }
      }
    }
  }

  {
    int id = exoid;
    exoid = -1;
    EX_CALL(ex_close(id), "ex_close");
  }
  rc = GEN_OK;
done:
  if (exoid >= 0)
    ex_close(exoid);
  if (rc != GEN_OK && created)
    unlink(path);
  if (blk_names)
    for (int b = 0; b < l->nblk; b++)
      free(blk_names[b]);
  free(blk_names);
  free(blk_ids);
  free(ss);
  free(truth);
  free(node_gid);
  free(elem_gid);
  free(x);
  free(y);
  free(z);
  free(vals);
  free(vals2);
  return rc;
}

/* Segment s (0-based) of an adaptive series: the grid grows by (s+2)/2
   per direction, gains s blocks, its ids start s*SERIES_ID_SHIFT later,
   and its steps continue the previous segment's. */
enum { SERIES_ID_SHIFT = 1000000 };

static int series_segment(const gen_opts *o, int s, char *path, size_t path_size,
                          gen_opts *seg)
{
  *seg = *o;
  if (s == 0)
    snprintf(path, path_size, "%s", o->out);
  else
    snprintf(path, path_size, "%s-s%03d", o->out, s + 1);
  seg->out = path;
  for (int d = 0; d < o->ndims; d++)
    seg->dims[d] = o->dims[d] * (s + 2) / 2;
  seg->blocks = o->blocks + s;
  if (seg->blocks > seg->dims[0]) {
    fprintf(stderr, "mxn_gen: %s: segment %d needs %d blocks but has NX = %" PRId64
            " (give a larger NX)\n", path, s + 1, seg->blocks, seg->dims[0]);
    return GEN_USAGE;
  }
  if (o->id_offset > INT64_MAX - 1 - (int64_t)s * SERIES_ID_SHIFT) {
    fprintf(stderr, "mxn_gen: %s: --id-offset too large for segment %d\n", path, s + 1);
    return GEN_USAGE;
  }
  seg->id_offset = o->id_offset + (int64_t)s * SERIES_ID_SHIFT;
  seg->step0 = s * (o->steps - o->series_overlap);   /* (o->step0 is 0) */
  seg->steps_total = o->series * (o->steps - o->series_overlap) + o->series_overlap;
  return GEN_OK;
}

static int write_series(const gen_opts *o)
{
  int rc = GEN_OK;
  size_t path_size = strlen(o->out) + 16;
  char *path = malloc(path_size);
  if (!path) {
    fprintf(stderr, "mxn_gen: out of memory\n");
    return GEN_IO;
  }
  /* Check every segment's limits before writing any of them. */
  for (int s = 0; s < o->series && rc == GEN_OK; s++) {
    gen_opts seg;
    layout l;
    rc = series_segment(o, s, path, path_size, &seg);
    if (rc == GEN_OK) {
      rc = layout_init(&l, &seg);
      layout_free(&l);
    }
  }
  for (int s = 0; s < o->series && rc == GEN_OK; s++) {
    gen_opts seg;
    layout l;
    series_segment(o, s, path, path_size, &seg);
    rc = layout_init(&l, &seg);
    if (rc == GEN_OK)
      rc = write_file(&seg, &l);
    layout_free(&l);
  }
  free(path);
  return rc;
}

int main(int argc, char **argv)
{
  gen_opts o;
  layout l;
  int rc;

  memset(&l, 0, sizeof l);
  /* Polyhedral and polygonal meshes have their own writer (poly.c). */
  for (int a = 1; a + 1 < argc; a++)
    if (!strcmp(argv[a], "--type") &&
        (!strcmp(argv[a + 1], "poly-hex") || !strcmp(argv[a + 1], "poly-mixed") ||
         !strcmp(argv[a + 1], "polygon"))) {
      ex_opts(EX_DEFAULT);
      return mxn_gen_poly_main(argc, argv);
    }
  rc = parse_args(argc, argv, &o);
  if (rc != GEN_OK) {
    rc = rc < 0 ? GEN_OK : rc;   /* --help */
    goto done;
  }
  /* Our own messages name the file; keep the library quiet. */
  ex_opts(EX_DEFAULT);
  if (o.series > 0) {
    rc = write_series(&o);
    goto done;
  }
  rc = layout_init(&l, &o);
  if (rc != GEN_OK)
    goto done;
  rc = write_file(&o, &l);
  if (rc == GEN_IO && (o.int64 || o.format == 4)) {
    /* After a failed write, HDF5 1.10's exit handler crashes on the file
       it could not close; the partial file is already removed, so leave
       without running exit handlers to keep the exit status. */
    layout_free(&l);
    fflush(NULL);
    _Exit(rc);
  }
done:
  layout_free(&l);
  return rc;
}
