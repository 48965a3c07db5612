/* Exodus element topology facts the core needs: nodes per side. */
#include "internal.h"

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

/* Corner nodes (0-based, within the element) of each side, by type; the
 * side numbering of the Exodus II manual. Used to find elements that share
 * a side (the dual graph of the parallel graph partitioner). */
static const int hex_sides[6][4] = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6},
                                    {0, 4, 7, 3}, {0, 3, 2, 1}, {4, 5, 6, 7}};
static const int tet_sides[4][4] = {{0, 1, 3, -1}, {1, 2, 3, -1}, {0, 3, 2, -1}, {0, 2, 1, -1}};
static const int wedge_sides[5][4] = {{0, 1, 4, 3}, {1, 2, 5, 4}, {0, 3, 5, 2}, {0, 2, 1, -1},
                                      {3, 4, 5, -1}};
static const int pyr_sides[5][4] = {{0, 1, 4, -1}, {1, 2, 4, -1}, {2, 3, 4, -1}, {3, 0, 4, -1},
                                    {0, 3, 2, 1}};
static const int quad_sides[4][4] = {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 3, -1, -1}, {3, 0, -1, -1}};
static const int tri_sides[3][4] = {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 0, -1, -1}};
static const int shell_sides[1][4] = {{0, 1, 2, 3}};
static const int trishell_sides[1][4] = {{0, 1, 2, -1}};

int mxn__side_corners(const char *type, int num_dim, const int (**sides)[4]) {
  if (type_is(type, "HEX")) return *sides = hex_sides, 6;
  if (type_is(type, "TET")) return *sides = tet_sides, 4;
  if (type_is(type, "WEDGE")) return *sides = wedge_sides, 5;
  if (type_is(type, "PYR")) return *sides = pyr_sides, 5;
  if (type_is(type, "TRISHELL")) return *sides = trishell_sides, 1;
  if (type_is(type, "SHELL") || type_is(type, "QUADSHELL"))
    return *sides = num_dim == 3 ? shell_sides : quad_sides, num_dim == 3 ? 1 : 4;
  if (type_is(type, "QUAD")) return *sides = num_dim == 3 ? shell_sides : quad_sides, num_dim == 3 ? 1 : 4;
  if (type_is(type, "TRI")) return *sides = num_dim == 3 ? trishell_sides : tri_sides, num_dim == 3 ? 1 : 3;
  *sides = NULL;
  return 0;
}
