/* Exodus element topology: the sides of each element type (the one copy of
 * the side tables: the dual graph, the halo, side set distribution factors
 * and the reader plugin use them) and the node counts of sides.
 *
 * The side set answers (mxn_side_nodes, mxn__side_node_count) are those of
 * the Exodus library's ex_get_side_set_node_count/_list (API 6.02). Where
 * that version fails or contradicts itself (TRI4, TRI7, SHELL9's node
 * list, TET14/15, WEDGE16/18, PYRAMID14, the list of a higher-order
 * triangular face), they follow the later Exodus tables, which extend the
 * same layout: corners, mid-edge nodes, then a face's centre node.
 * testing/unit/test_topology.cpp compares every type with the library. */
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

/* The sides of each element type, numbered as the Exodus II manual's
 * figures: per side its corner nodes (0-based within the element, -1
 * padded) and its mid-edge nodes in the order of the side's edges (higher
 * order elements); centre nodes are per node count below. The corner
 * tables also serve the dual graph and the halo (mxn__side_corners), which
 * compare corners as sets, so only side sets see their order. */
static const int hex_sides[6][4] = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6},
                                    {0, 4, 7, 3}, {0, 3, 2, 1}, {4, 5, 6, 7}};
static const int hex_mids[6][4] = {{8, 13, 16, 12}, {9, 14, 17, 13}, {10, 15, 18, 14},
                                   {12, 19, 15, 11}, {11, 10, 9, 8}, {16, 17, 18, 19}};
static const int tet_sides[4][4] = {{0, 1, 3, -1}, {1, 2, 3, -1}, {0, 3, 2, -1}, {0, 2, 1, -1}};
static const int tet_mids[4][4] = {{4, 8, 7, -1}, {5, 9, 8, -1}, {7, 9, 6, -1}, {6, 5, 4, -1}};
static const int wedge_sides[5][4] = {{0, 1, 4, 3}, {1, 2, 5, 4}, {0, 3, 5, 2}, {0, 2, 1, -1},
                                      {3, 4, 5, -1}};
static const int wedge_mids[5][4] = {{6, 10, 12, 9}, {7, 11, 13, 10}, {9, 14, 11, 8},
                                     {8, 7, 6, -1}, {12, 13, 14, -1}};
static const int pyr_sides[5][4] = {{0, 1, 4, -1}, {1, 2, 4, -1}, {2, 3, 4, -1}, {0, 4, 3, -1},
                                    {0, 3, 2, 1}};
static const int pyr_mids[5][4] = {{5, 10, 9, -1}, {6, 11, 10, -1}, {7, 12, 11, -1},
                                   {9, 12, 8, -1}, {8, 7, 6, 5}};
/* A quadrilateral shell: front and back faces, then its four edges, which
 * are also the sides of a quadrilateral (rows 2 to 5). */
static const int shell_sides[6][4] = {{0, 1, 2, 3},   {0, 3, 2, 1},   {0, 1, -1, -1},
                                      {1, 2, -1, -1}, {2, 3, -1, -1}, {3, 0, -1, -1}};
static const int shell_mids[6][4] = {{4, 5, 6, 7},    {7, 6, 5, 4},    {4, -1, -1, -1},
                                     {5, -1, -1, -1}, {6, -1, -1, -1}, {7, -1, -1, -1}};
/* A triangular shell likewise; rows 2 to 4 are a 2D triangle's sides. */
static const int trishell_sides[5][4] = {
    {0, 1, 2, -1}, {2, 1, 0, -1}, {0, 1, -1, -1}, {1, 2, -1, -1}, {2, 0, -1, -1}};
static const int trishell_mids[5][4] = {
    {3, 4, 5, -1}, {5, 4, 3, -1}, {3, -1, -1, -1}, {4, -1, -1, -1}, {5, -1, -1, -1}};
/* Both sides of a bar are the whole bar in its own direction. */
static const int bar_sides[2][4] = {{0, 1, -1, -1}, {0, 1, -1, -1}};
static const int bar_mids[2][4] = {{2, -1, -1, -1}, {2, -1, -1, -1}};
static const int point_sides[1][4] = {{0, -1, -1, -1}};

/* Centre nodes per side of the forms that have them (-1: none). */
static const int hex27_centres[6] = {25, 24, 26, 23, 21, 22};
static const int tet8_centres[4] = {4, 5, 7, 6};
static const int tet14_centres[4] = {13, 11, 12, 10};
static const int wedge18_centres[5] = {15, 16, 17, -1, -1};
static const int pyr14_centres[5] = {-1, -1, -1, -1, 13};
static const int shell9_centres[6] = {8, 8, -1, -1, -1, -1};
static const int trishell4_centres[5] = {3, 3, -1, -1, -1};
static const int trishell7_centres[5] = {6, 6, -1, -1, -1};

/* One node count of a type: whether its sides carry mid-edge nodes and
 * which centre nodes they carry. */
typedef struct side_form {
  int npe, mids;
  const int *centres;
} side_form;

/* One type's sides as side sets see them (shells have faces and edges) and
 * the node counts Exodus gives that type. */
typedef struct side_table {
  const int (*corners)[4];
  const int (*mids)[4];
  int num_sides;
  side_form forms[5];
} side_table;

static const side_table hex = {hex_sides, hex_mids, 6,
                               {{8, 0, NULL}, {20, 1, NULL}, {27, 1, hex27_centres}}};
static const side_table tet = {tet_sides,
                               tet_mids,
                               4,
                               {{4, 0, NULL},
                                {8, 0, tet8_centres},
                                {10, 1, NULL},
                                {14, 1, tet14_centres},
                                {15, 1, tet14_centres}}};
static const side_table wedge = {
    wedge_sides, wedge_mids, 5,
    {{6, 0, NULL}, {15, 1, NULL}, {16, 1, NULL}, {18, 1, wedge18_centres}}};
static const side_table pyr = {pyr_sides, pyr_mids, 5,
                               {{5, 0, NULL}, {13, 1, NULL}, {14, 1, pyr14_centres}}};
static const side_table shell = {shell_sides, shell_mids, 6,
                                 {{4, 0, NULL}, {8, 1, NULL}, {9, 1, shell9_centres}}};
static const side_table quad = {shell_sides + 2, shell_mids + 2, 4,
                                {{4, 0, NULL}, {8, 1, NULL}, {9, 1, NULL}}};
static const side_table trishell = {
    trishell_sides, trishell_mids, 5,
    {{3, 0, NULL}, {4, 0, trishell4_centres}, {6, 1, NULL}, {7, 1, trishell7_centres}}};
static const side_table tri = {trishell_sides + 2, trishell_mids + 2, 3,
                               {{3, 0, NULL}, {4, 0, NULL}, {6, 1, NULL}, {7, 1, NULL}}};
static const side_table bar = {bar_sides, bar_mids, 2, {{2, 0, NULL}, {3, 1, NULL}}};
static const side_table point = {point_sides, NULL, 1, {{1, 0, NULL}}};

/* The table of an element type in a mesh of num_dim dimensions, or NULL.
 * Types are told apart by their first three letters, as Exodus does: so
 * TRISHELL is a TRI (a shell in 3D, edges only in 2D) and QUADSHELL a
 * QUAD, while SHELL is a shell in any mesh. EDGE and POINT are MxN's. */
static const side_table *table_of(const char *type, int num_dim) {
  if (!type) return NULL;
  if (type_is(type, "HEX")) return &hex;
  if (type_is(type, "TET")) return &tet;
  if (type_is(type, "WED")) return &wedge;
  if (type_is(type, "PYR")) return &pyr;
  if (type_is(type, "SHE")) return &shell;
  if (type_is(type, "QUA")) return &quad;
  if (type_is(type, "TRI")) return num_dim == 3 ? &trishell : &tri;
  if (type_is(type, "BAR") || type_is(type, "BEA") || type_is(type, "TRU") ||
      type_is(type, "EDGE"))
    return &bar;
  if (type_is(type, "SPH") || type_is(type, "CIR") || type_is(type, "POINT")) return &point;
  return NULL;
}

int mxn_side_nodes(const char *type, int npe, int num_dim, int side,
                   int nodes[MXN_MAX_SIDE_NODES], int *num_corners) {
  if (num_corners) *num_corners = 0;
  const side_table *t = table_of(type, num_dim);
  if (!t || !nodes || side < 1 || side > t->num_sides) return -1;
  const side_form *f = NULL;
  for (int i = 0; i < 5 && t->forms[i].npe > 0; i++)
    if (t->forms[i].npe == npe) f = &t->forms[i];
  if (!f) return -1;
  const int k = side - 1;
  int n = 0;
  for (int c = 0; c < 4 && t->corners[k][c] >= 0; c++) nodes[n++] = t->corners[k][c];
  if (num_corners) *num_corners = n;
  if (f->mids)
    for (int c = 0; c < 4 && t->mids[k][c] >= 0; c++) nodes[n++] = t->mids[k][c];
  if (f->centres && f->centres[k] >= 0) nodes[n++] = f->centres[k];
  return n;
}

/* Node counts of sides: the table's; for a node count it does not list (a
 * HEX9, a HEXSHELL), the corners, plus mid-edge nodes from the quadratic
 * form's count on, as Exodus counts those. */
int mxn__side_node_count(const char *type, int npe, int num_dim, int side) {
  int nodes[MXN_MAX_SIDE_NODES], corners;
  int n = mxn_side_nodes(type, npe, num_dim, side, nodes, &corners);
  if (n >= 0) return n;
  const side_table *t = table_of(type, num_dim);
  if (t == &point && side >= 1) return 1; /* as MxN has always counted */
  if (!t || side < 1 || side > t->num_sides || npe < t->forms[0].npe) return -1;
  n = mxn_side_nodes(type, t->forms[0].npe, num_dim, side, nodes, &corners);
  for (int i = 1; i < 5 && t->forms[i].npe > 0; i++)
    if (t->forms[i].mids && npe >= t->forms[i].npe) {
      for (int c = 0; c < 4 && t->mids[side - 1][c] >= 0; c++) n++;
      break;
    }
  return n;
}

/* The types mxn__side_node_count knows: every one of them has a side 1. */
int mxn__known_type(const char *type) { return table_of(type, 3) != NULL; }

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
