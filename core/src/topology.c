/* Exodus element topology: the sides of each element type (the one copy of
 * the side tables: the dual graph, the halo and the reader plugin use them)
 * and the node counts of sides. */
#include "internal.h"
#include "mxn/topology.h"

#include <ctype.h>

/* Upper-cased first letters of an element type, for prefix tests. */
static int type_is(const char *type, const char *prefix) {
  size_t n = strlen(prefix);
  for (size_t i = 0; i < n; i++)
    if (toupper((unsigned char)type[i]) != prefix[i]) return 0;
  return 1;
}

/* Side numbering follows the Exodus II manual's element figures. Higher
 * order elements have the same sides with more nodes per side. */
int mxn__side_node_count(const char *type, int npe, int side) {
  if (side < 1) return -1;
  if (type_is(type, "HEX")) {
    if (side > 6) return -1;
    return npe >= 27 ? 9 : npe >= 20 ? 8 : 4;
  }
  if (type_is(type, "TET")) {
    if (side > 4) return -1;
    return npe >= 10 ? 6 : 3;
  }
  if (type_is(type, "WEDGE")) {
    if (side > 5) return -1;
    int quad = side <= 3;
    if (npe >= 15) return quad ? 8 : 6;
    return quad ? 4 : 3;
  }
  if (type_is(type, "PYR")) {
    if (side > 5) return -1;
    int quad = side == 5;
    if (npe >= 13) return quad ? 8 : 6;
    return quad ? 4 : 3;
  }
  if (type_is(type, "SHELL") || type_is(type, "QUADSHELL")) {
    if (side > 6) return -1;
    if (side <= 2) return npe >= 8 ? npe : 4;
    return npe >= 8 ? 3 : 2;
  }
  if (type_is(type, "TRISHELL")) {
    if (side > 5) return -1;
    if (side <= 2) return npe >= 6 ? npe : 3;
    return npe >= 6 ? 3 : 2;
  }
  if (type_is(type, "QUAD")) {
    if (side > 4) return -1;
    return npe >= 8 ? 3 : 2;
  }
  if (type_is(type, "TRI")) {
    if (side > 3) return -1;
    return npe >= 6 ? 3 : 2;
  }
  if (type_is(type, "BEAM") || type_is(type, "BAR") || type_is(type, "TRUSS") ||
      type_is(type, "EDGE")) {
    return side <= 2 ? npe : -1;
  }
  if (type_is(type, "SPHERE") || type_is(type, "CIRCLE")) return 1;
  return -1;
}

/* The types mxn__side_node_count knows: every one of them has a side 1. */
int mxn__known_type(const char *type) { return mxn__side_node_count(type, 1, 1) >= 0; }

/* The sides of each element type, numbered as the Exodus II manual's
 * figures: per side its corner nodes (0-based within the element, -1
 * padded), its mid-edge nodes in the order of the side's edges (higher
 * order elements) and, for a face that has one, its centre node. The corner
 * tables serve the dual graph and the halo (mxn__side_corners), all three
 * the sides of side sets (mxn_side_nodes). */
static const int hex_sides[6][4] = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6},
                                    {0, 4, 7, 3}, {0, 3, 2, 1}, {4, 5, 6, 7}};
static const int hex_mids[6][4] = {{8, 13, 16, 12}, {9, 14, 17, 13}, {10, 15, 18, 14},
                                   {12, 19, 15, 11}, {11, 10, 9, 8}, {16, 17, 18, 19}};
static const int hex_centres[6] = {25, 24, 26, 23, 21, 22}; /* HEX27 */
static const int tet_sides[4][4] = {{0, 1, 3, -1}, {1, 2, 3, -1}, {0, 3, 2, -1}, {0, 2, 1, -1}};
static const int tet_mids[4][4] = {{4, 8, 7, -1}, {5, 9, 8, -1}, {7, 9, 6, -1}, {6, 5, 4, -1}};
static const int wedge_sides[5][4] = {{0, 1, 4, 3}, {1, 2, 5, 4}, {0, 3, 5, 2}, {0, 2, 1, -1},
                                      {3, 4, 5, -1}};
static const int wedge_mids[5][4] = {{6, 10, 12, 9}, {7, 11, 13, 10}, {9, 14, 11, 8},
                                     {8, 7, 6, -1}, {12, 13, 14, -1}};
static const int pyr_sides[5][4] = {{0, 1, 4, -1}, {1, 2, 4, -1}, {2, 3, 4, -1}, {3, 0, 4, -1},
                                    {0, 3, 2, 1}};
static const int pyr_mids[5][4] = {{5, 10, 9, -1}, {6, 11, 10, -1}, {7, 12, 11, -1},
                                   {8, 9, 12, -1}, {8, 7, 6, 5}};
/* A quadrilateral shell: front and back faces, then its four edges, which
 * are also the sides of a 2D quadrilateral (rows 2 to 5). */
static const int shell_sides[6][4] = {{0, 1, 2, 3},   {0, 3, 2, 1},   {0, 1, -1, -1},
                                      {1, 2, -1, -1}, {2, 3, -1, -1}, {3, 0, -1, -1}};
static const int shell_mids[6][4] = {{4, 5, 6, 7},    {7, 6, 5, 4},    {4, -1, -1, -1},
                                     {5, -1, -1, -1}, {6, -1, -1, -1}, {7, -1, -1, -1}};
static const int shell_centres[6] = {8, 8, -1, -1, -1, -1}; /* SHELL9 */
/* A triangular shell likewise; rows 2 to 4 are a 2D triangle's sides. */
static const int trishell_sides[5][4] = {
    {0, 1, 2, -1}, {0, 2, 1, -1}, {0, 1, -1, -1}, {1, 2, -1, -1}, {2, 0, -1, -1}};
static const int trishell_mids[5][4] = {
    {3, 4, 5, -1}, {5, 4, 3, -1}, {3, -1, -1, -1}, {4, -1, -1, -1}, {5, -1, -1, -1}};
static const int bar_sides[2][4] = {{0, 1, -1, -1}, {1, 0, -1, -1}};
static const int bar_mids[2][4] = {{2, -1, -1, -1}, {2, -1, -1, -1}};
static const int point_sides[1][4] = {{0, -1, -1, -1}};

int mxn__side_corners(const char *type, int num_dim, const int (**sides)[4]) {
  if (type_is(type, "HEX")) return *sides = hex_sides, 6;
  if (type_is(type, "TET")) return *sides = tet_sides, 4;
  if (type_is(type, "WEDGE")) return *sides = wedge_sides, 5;
  if (type_is(type, "PYR")) return *sides = pyr_sides, 5;
  /* the dual graph joins shells by their face only */
  if (type_is(type, "TRISHELL")) return *sides = trishell_sides, 1;
  if (type_is(type, "SHELL") || type_is(type, "QUADSHELL") || type_is(type, "QUAD"))
    return *sides = num_dim == 3 ? shell_sides : shell_sides + 2, num_dim == 3 ? 1 : 4;
  if (type_is(type, "TRI"))
    return *sides = num_dim == 3 ? trishell_sides : trishell_sides + 2, num_dim == 3 ? 1 : 3;
  *sides = NULL;
  return 0;
}

/* One type's side tables as mxn_side_nodes uses them, and the node counts
 * of its linear, higher-order and centre-node forms (0: no such form). */
typedef struct side_table {
  const int (*corners)[4];
  const int (*mids)[4];
  const int *centres;
  int num_sides;
  int npe_linear, npe_quadratic, npe_centred;
} side_table;

/* The table of an element type as side sets see it (shells have faces and
 * edges), or NULL. */
static int side_table_of(const char *type, int num_dim, side_table *t) {
  static const side_table hex = {hex_sides, hex_mids, hex_centres, 6, 8, 20, 27};
  static const side_table tet = {tet_sides, tet_mids, NULL, 4, 4, 10, 0};
  static const side_table wedge = {wedge_sides, wedge_mids, NULL, 5, 6, 15, 0};
  static const side_table pyr = {pyr_sides, pyr_mids, NULL, 5, 5, 13, 0};
  static const side_table trishell = {trishell_sides, trishell_mids, NULL, 5, 3, 6, 0};
  static const side_table shell = {shell_sides, shell_mids, shell_centres, 6, 4, 8, 9};
  static const side_table quad = {shell_sides + 2, shell_mids + 2, NULL, 4, 4, 8, 9};
  static const side_table tri = {trishell_sides + 2, trishell_mids + 2, NULL, 3, 3, 6, 0};
  static const side_table bar = {bar_sides, bar_mids, NULL, 2, 2, 3, 0};
  static const side_table point = {point_sides, NULL, NULL, 1, 1, 0, 0};
  const side_table *p = NULL;
  if (type_is(type, "HEX"))
    p = &hex;
  else if (type_is(type, "TET"))
    p = &tet;
  else if (type_is(type, "WEDGE"))
    p = &wedge;
  else if (type_is(type, "PYR"))
    p = &pyr;
  else if (type_is(type, "TRISHELL") || (type_is(type, "TRI") && num_dim == 3))
    p = &trishell;
  else if (type_is(type, "SHELL") || type_is(type, "QUADSHELL") ||
           (type_is(type, "QUAD") && num_dim == 3))
    p = &shell;
  else if (type_is(type, "QUAD"))
    p = &quad;
  else if (type_is(type, "TRI"))
    p = &tri;
  else if (type_is(type, "BAR") || type_is(type, "BEAM") || type_is(type, "TRUSS") ||
           type_is(type, "EDGE"))
    p = &bar;
  else if (type_is(type, "SPHERE") || type_is(type, "CIRCLE") || type_is(type, "POINT"))
    p = &point;
  if (p) *t = *p;
  return p != NULL;
}

int mxn_side_nodes(const char *type, int npe, int num_dim, int side,
                   int nodes[MXN_MAX_SIDE_NODES], int *num_corners) {
  side_table t;
  if (num_corners) *num_corners = 0;
  if (!type || !nodes || !side_table_of(type, num_dim, &t)) return -1;
  if (side < 1 || side > t.num_sides) return -1;
  if (npe <= 0 || (npe != t.npe_linear && npe != t.npe_quadratic && npe != t.npe_centred))
    return -1;
  const int k = side - 1;
  int n = 0;
  for (int c = 0; c < 4 && t.corners[k][c] >= 0; c++) nodes[n++] = t.corners[k][c];
  if (num_corners) *num_corners = n;
  if (npe != t.npe_linear) {
    for (int c = 0; c < 4 && t.mids[k][c] >= 0; c++) nodes[n++] = t.mids[k][c];
    if (npe == t.npe_centred && t.centres && t.centres[k] >= 0) nodes[n++] = t.centres[k];
  }
  return n;
}
