// Element sides (core/src/topology.c, mxn_side_nodes) against the Exodus
// library, and a 3D mesh with triangular and quadrilateral shells whose side
// sets carry one distribution factor per face node, loaded by the core on 1
// and N ranks.
#include <exodusII.h>
#include <gtest/gtest.h>

#include "mxn/topology.h"
#include "mpi_helpers.h"
#include "test_mpi.h"

#include <map>
#include <tuple>

using namespace mxntest;

namespace {

// ---------- every topology against ex_get_side_set_node_count/_list ----------

struct Topo {
  const char *type;
  int npe;
  int sides2d, sides3d;  // 0: not a type of that dimension
};

// Every Exodus type and node count MxN knows, with its number of sides in
// 2D and 3D meshes (Exodus: TRI is a shell with 5 sides in 3D).
const Topo kTopos[] = {
    {"SPHERE", 1, 1, 1},     {"BAR2", 2, 2, 2},        {"BAR3", 3, 2, 2},
    {"BEAM2", 2, 2, 2},      {"BEAM3", 3, 2, 2},       {"TRUSS2", 2, 2, 2},
    {"TRUSS3", 3, 2, 2},     {"TRI3", 3, 3, 5},        {"TRI4", 4, 3, 5},
    {"TRI6", 6, 3, 5},       {"TRI7", 7, 3, 5},        {"TRISHELL3", 3, 3, 5},
    {"TRISHELL4", 4, 3, 5},  {"TRISHELL6", 6, 3, 5},   {"TRISHELL7", 7, 3, 5},
    {"QUAD4", 4, 4, 4},      {"QUAD8", 8, 4, 4},       {"QUAD9", 9, 4, 4},
    {"SHELL4", 4, 6, 6},     {"SHELL8", 8, 6, 6},      {"SHELL9", 9, 6, 6},
    {"TETRA4", 4, 0, 4},     {"TETRA8", 8, 0, 4},      {"TETRA10", 10, 0, 4},
    {"TETRA14", 14, 0, 4},   {"TETRA15", 15, 0, 4},    {"WEDGE6", 6, 0, 5},
    {"WEDGE15", 15, 0, 5},   {"WEDGE16", 16, 0, 5},    {"WEDGE18", 18, 0, 5},
    {"PYRAMID5", 5, 0, 5},   {"PYRAMID13", 13, 0, 5},  {"PYRAMID14", 14, 0, 5},
    {"HEX8", 8, 0, 6},       {"HEX20", 20, 0, 6},      {"HEX27", 27, 0, 6},
};

void PrintTo(const Topo &t, std::ostream *os) { *os << t.type; }

using Sides = std::vector<std::vector<int>>;  // per side, 0-based element nodes

// Where Exodus 6.02 has no answer (TRI4, TRI7, TET14/15, WEDGE16/18,
// PYRAMID14: node counts it does not know; TRI4 and TRI7 in 2D: it counts 0
// nodes per side), the sides later Exodus versions define, written out here
// from their element figures: corners, mid-edge nodes, then the centre.
const std::map<std::pair<std::string, int>, Sides> &later_exodus() {
  static const Sides tri4_2d = {{0, 1}, {1, 2}, {2, 0}};
  static const Sides tri7_2d = {{0, 1, 3}, {1, 2, 4}, {2, 0, 5}};
  static const Sides tri4_3d = {{0, 1, 2, 3}, {2, 1, 0, 3}, {0, 1}, {1, 2}, {2, 0}};
  static const Sides tri7_3d = {
      {0, 1, 2, 3, 4, 5, 6}, {2, 1, 0, 5, 4, 3, 6}, {0, 1, 3}, {1, 2, 4}, {2, 0, 5}};
  static const Sides tet14 = {{0, 1, 3, 4, 8, 7, 13},
                              {1, 2, 3, 5, 9, 8, 11},
                              {0, 3, 2, 7, 9, 6, 12},
                              {0, 2, 1, 6, 5, 4, 10}};
  static const Sides wedge16 = {{0, 1, 4, 3, 6, 10, 12, 9},
                                {1, 2, 5, 4, 7, 11, 13, 10},
                                {0, 3, 5, 2, 9, 14, 11, 8},
                                {0, 2, 1, 8, 7, 6},
                                {3, 4, 5, 12, 13, 14}};
  static const Sides wedge18 = {{0, 1, 4, 3, 6, 10, 12, 9, 15},
                                {1, 2, 5, 4, 7, 11, 13, 10, 16},
                                {0, 3, 5, 2, 9, 14, 11, 8, 17},
                                {0, 2, 1, 8, 7, 6},
                                {3, 4, 5, 12, 13, 14}};
  static const Sides pyr14 = {{0, 1, 4, 5, 10, 9},
                              {1, 2, 4, 6, 11, 10},
                              {2, 3, 4, 7, 12, 11},
                              {0, 4, 3, 9, 12, 8},
                              {0, 3, 2, 1, 8, 7, 6, 5, 13}};
  static const std::map<std::pair<std::string, int>, Sides> m = {
      {{"TRI4", 2}, tri4_2d},       {{"TRI7", 2}, tri7_2d},       {{"TRISHELL4", 2}, tri4_2d},
      {{"TRISHELL7", 2}, tri7_2d},  {{"TRI4", 3}, tri4_3d},       {{"TRI7", 3}, tri7_3d},
      {{"TRISHELL4", 3}, tri4_3d},  {{"TRISHELL7", 3}, tri7_3d},  {{"TETRA14", 3}, tet14},
      {{"TETRA15", 3}, tet14},      {{"WEDGE16", 3}, wedge16},    {{"WEDGE18", 3}, wedge18},
      {{"PYRAMID14", 3}, pyr14},
  };
  return m;
}

// Where Exodus 6.02 counts a side's nodes right but its node list is short
// or padded (SHELL9 lists corners only; the triangular faces of WEDGE15 and
// PYRAMID13 get a 7th, stray entry): the list is compared on its common
// leading part.
bool list_defective_in_602(const std::string &type, int npe, int side) {
  if (type == "SHELL9") return true;
  if (type == "WEDGE15") return side >= 4;
  if (type == "PYRAMID13") return side <= 4;
  return false;
}

// The element's connectivity: a permutation, so that a side's node ids
// tell which element-local nodes Exodus took.
int conn_of(int npe, int k) { return npe - k; }

// One element of `type` in a num_dim mesh, side set 100 + s on its side s
// for every side, with one distribution factor per node as MxN counts them.
void write_one_element(const std::string &path, const Topo &t, int num_dim, int nsides) {
  int cpu = 8, io = 8;
  int ex = ex_create(path.c_str(), EX_CLOBBER, &cpu, &io);
  ASSERT_GE(ex, 0) << path;
  ASSERT_GE(ex_put_init(ex, "one element", num_dim, t.npe, 1, 1, 0, nsides), 0);
  std::vector<double> x(t.npe), y(t.npe), z(t.npe);
  for (int k = 0; k < t.npe; k++) x[k] = k, y[k] = k % 3, z[k] = k % 5;
  ASSERT_GE(ex_put_coord(ex, x.data(), y.data(), num_dim == 3 ? z.data() : nullptr), 0);
  ASSERT_GE(ex_put_block(ex, EX_ELEM_BLOCK, 1, t.type, 1, t.npe, 0, 0, 0), 0);
  std::vector<int> conn(t.npe);
  for (int k = 0; k < t.npe; k++) conn[k] = conn_of(t.npe, k);
  ASSERT_GE(ex_put_conn(ex, EX_ELEM_BLOCK, 1, conn.data(), nullptr, nullptr), 0);
  for (int s = 1; s <= nsides; s++) {
    int nodes[MXN_MAX_SIDE_NODES];
    int n = mxn_side_nodes(t.type, t.npe, num_dim, s, nodes, nullptr);
    ASSERT_GT(n, 0) << t.type << " side " << s << " in " << num_dim << "D";
    int elem = 1, side = s;
    ASSERT_GE(ex_put_set_param(ex, EX_SIDE_SET, 100 + s, 1, n), 0);
    ASSERT_GE(ex_put_set(ex, EX_SIDE_SET, 100 + s, &elem, &side), 0);
    std::vector<double> df(n, 1.0);
    ASSERT_GE(ex_put_set_dist_fact(ex, EX_SIDE_SET, 100 + s, df.data()), 0);
  }
  ex_close(ex);
}

class SidesAgainstExodus : public ::testing::TestWithParam<std::tuple<Topo, int>> {};

TEST_P(SidesAgainstExodus, CountsAndNodeOrder) {
  const Topo t = std::get<0>(GetParam());
  const int dim = std::get<1>(GetParam());
  const int nsides = dim == 2 ? t.sides2d : t.sides3d;
  int nodes[MXN_MAX_SIDE_NODES], corners = 0;
  // The table has exactly these sides and node counts.
  EXPECT_EQ(-1, mxn_side_nodes(t.type, t.npe, dim, 0, nodes, nullptr));
  EXPECT_EQ(-1, mxn_side_nodes(t.type, t.npe, dim, nsides + 1, nodes, nullptr));
  EXPECT_EQ(-1, mxn_side_nodes(t.type, t.npe + 30, dim, 1, nodes, nullptr));

  std::string dir = tmpdir("topology_" + std::string(t.type) + "_" + std::to_string(dim));
  std::string path = dir + "/one.e";
  ASSERT_NO_FATAL_FAILURE(write_one_element(path, t, dim, nsides));
  int cpu = 8, io = 0;
  float version = 0;
  int ex = ex_open(path.c_str(), EX_READ, &cpu, &io, &version);
  ASSERT_GE(ex, 0) << path;
  const auto later = later_exodus().find({t.type, dim});
  for (int s = 1; s <= nsides; s++) {
    SCOPED_TRACE(std::string(t.type) + " in " + std::to_string(dim) + "D, side " +
                 std::to_string(s));
    int n = mxn_side_nodes(t.type, t.npe, dim, s, nodes, &corners);
    ASSERT_GT(n, 0);
    ASSERT_LE(n, MXN_MAX_SIDE_NODES);
    EXPECT_GE(corners, 1);
    EXPECT_LE(corners, n);
    std::vector<int> mine(nodes, nodes + n);
    if (later != later_exodus().end()) {
      EXPECT_EQ(later->second[s - 1], mine);
      continue;
    }
    int count = -1, listed = -1;
    std::vector<int> list(64, 0);
    ASSERT_GE(ex_get_side_set_node_count(ex, 100 + s, &count), 0);
    ASSERT_GE(ex_get_side_set_node_list(ex, 100 + s, &listed, list.data()), 0);
    // Distribution factors: one per node Exodus counts.
    EXPECT_EQ(count, n) << "node count";
    std::vector<int> theirs;
    for (int k = 0; k < listed && k < 64; k++) {
      int local = -1;
      for (int j = 0; j < t.npe; j++)
        if (conn_of(t.npe, j) == list[k]) local = j;
      theirs.push_back(local);
    }
    if (listed != count) {
      EXPECT_TRUE(list_defective_in_602(t.type, t.npe, s))
          << "Exodus counts " << count << " nodes and lists " << listed;
      size_t m = std::min(theirs.size(), mine.size());
      theirs.resize(m);
      mine.resize(m);
    }
    EXPECT_EQ(theirs, mine) << "node order";
  }
  ex_close(ex);
}

std::string topo_name(const ::testing::TestParamInfo<std::tuple<Topo, int>> &i) {
  return std::string(std::get<0>(i.param).type) + "_" + std::to_string(std::get<1>(i.param)) + "D";
}

// Each type in the dimensions it exists in.
std::vector<std::tuple<Topo, int>> every_type() {
  std::vector<std::tuple<Topo, int>> v;
  for (const Topo &t : kTopos)
    for (int dim : {2, 3})
      if ((dim == 2 ? t.sides2d : t.sides3d) > 0) v.emplace_back(t, dim);
  return v;
}

INSTANTIATE_TEST_SUITE_P(EveryType, SidesAgainstExodus, ::testing::ValuesIn(every_type()),
                         topo_name);

TEST(Sides, TypesAreMatchedByTheirFirstLettersInAnyCase) {
  int a[MXN_MAX_SIDE_NODES], b[MXN_MAX_SIDE_NODES];
  // Exodus reads QUADSHELL as a QUAD and TRIANGLE as a TRI.
  EXPECT_EQ(2, mxn_side_nodes("QUADSHELL4", 4, 3, 1, a, nullptr));
  EXPECT_EQ(-1, mxn_side_nodes("QUADSHELL4", 4, 3, 5, a, nullptr));
  EXPECT_EQ(3, mxn_side_nodes("triangle", 3, 3, 2, a, nullptr));
  EXPECT_EQ(3, mxn_side_nodes("TRI3", 3, 3, 2, b, nullptr));
  EXPECT_EQ(std::vector<int>(a, a + 3), std::vector<int>(b, b + 3));
  EXPECT_EQ(4, mxn_side_nodes("shell", 4, 2, 2, a, nullptr));
  EXPECT_EQ(-1, mxn_side_nodes("NOTATYPE", 4, 3, 1, a, nullptr));
  EXPECT_EQ(-1, mxn_side_nodes(nullptr, 4, 3, 1, a, nullptr));
}

// ---------- a 3D mesh with TRI3 and SHELL4 blocks and per-node factors ----------

// nx*ny*nz hexahedra (block 1), their top face split into TRI3 triangles
// (block 2) and their y = 0 face covered by SHELL4 quadrilaterals (block 3),
// sharing the hexahedra's nodes. Side sets, all with one distribution
// factor per side node (the value: 10 * element id + position in the side):
//   11: every triangle, its face (side 1, or 2 every other one), and the
//       edge on y = 0 (side 3) of the triangles along it;
//   12: the hexahedra's bottom faces (side 5);
//   13: every shell's face (side 1) and the edge on x = nx (side 4) of the
//       shells along it;
//   14: the triangles' faces again, without factors.
struct ShellMesh {
  int nx, ny, nz;
  int hexes() const { return nx * ny * nz; }
  int tris() const { return 2 * nx * ny; }
  int shells() const { return nx * nz; }
  int64_t ss_size(int id) const {
    switch (id) {
      case 11: return tris() + nx;
      case 12: return nx * ny;
      case 13: return shells() + nz;
      case 14: return tris();
    }
    return -1;
  }
  int64_t ss_df(int id) const {
    switch (id) {
      case 11: return 3 * tris() + 2 * nx;
      case 12: return 4 * nx * ny;
      case 13: return 4 * shells() + 2 * nz;
    }
    return 0;
  }
};

int node_at(const ShellMesh &m, int i, int j, int k) {
  return 1 + i + (m.nx + 1) * (j + (m.ny + 1) * k);
}

void write_shell_mesh(const std::string &path, const ShellMesh &m) {
  int cpu = 8, io = 8;
  int ex = ex_create(path.c_str(), EX_CLOBBER, &cpu, &io);
  ASSERT_GE(ex, 0) << path;
  const int nn = (m.nx + 1) * (m.ny + 1) * (m.nz + 1);
  ASSERT_GE(ex_put_init(ex, "hexes with triangle and quadrilateral shells", 3, nn,
                        m.hexes() + m.tris() + m.shells(), 3, 0, 4),
            0);
  std::vector<double> x(nn), y(nn), z(nn);
  for (int k = 0; k <= m.nz; k++)
    for (int j = 0; j <= m.ny; j++)
      for (int i = 0; i <= m.nx; i++) {
        int v = node_at(m, i, j, k) - 1;
        x[v] = i, y[v] = j, z[v] = k;
      }
  ASSERT_GE(ex_put_coord(ex, x.data(), y.data(), z.data()), 0);
  std::vector<int> hex, tri, shell;
  for (int k = 0; k < m.nz; k++)
    for (int j = 0; j < m.ny; j++)
      for (int i = 0; i < m.nx; i++)
        for (int c : {node_at(m, i, j, k), node_at(m, i + 1, j, k), node_at(m, i + 1, j + 1, k),
                      node_at(m, i, j + 1, k), node_at(m, i, j, k + 1),
                      node_at(m, i + 1, j, k + 1), node_at(m, i + 1, j + 1, k + 1),
                      node_at(m, i, j + 1, k + 1)})
          hex.push_back(c);
  for (int j = 0; j < m.ny; j++)
    for (int i = 0; i < m.nx; i++) {
      int a = node_at(m, i, j, m.nz), b = node_at(m, i + 1, j, m.nz);
      int c = node_at(m, i + 1, j + 1, m.nz), d = node_at(m, i, j + 1, m.nz);
      for (int v : {a, b, c, a, c, d}) tri.push_back(v);
    }
  for (int k = 0; k < m.nz; k++)
    for (int i = 0; i < m.nx; i++)
      for (int v : {node_at(m, i, 0, k), node_at(m, i + 1, 0, k), node_at(m, i + 1, 0, k + 1),
                    node_at(m, i, 0, k + 1)})
        shell.push_back(v);
  ASSERT_GE(ex_put_block(ex, EX_ELEM_BLOCK, 1, "HEX8", m.hexes(), 8, 0, 0, 0), 0);
  ASSERT_GE(ex_put_block(ex, EX_ELEM_BLOCK, 2, "TRI3", m.tris(), 3, 0, 0, 0), 0);
  ASSERT_GE(ex_put_block(ex, EX_ELEM_BLOCK, 3, "SHELL4", m.shells(), 4, 0, 0, 0), 0);
  ASSERT_GE(ex_put_conn(ex, EX_ELEM_BLOCK, 1, hex.data(), nullptr, nullptr), 0);
  ASSERT_GE(ex_put_conn(ex, EX_ELEM_BLOCK, 2, tri.data(), nullptr, nullptr), 0);
  ASSERT_GE(ex_put_conn(ex, EX_ELEM_BLOCK, 3, shell.data(), nullptr, nullptr), 0);

  const int tri0 = m.hexes() + 1, shell0 = m.hexes() + m.tris() + 1;
  auto put = [&](int id, const std::vector<int> &elems, const std::vector<int> &sides,
                 const std::vector<int> &nodes_per_side) {
    int64_t ndf = 0;
    for (int n : nodes_per_side) ndf += n;
    ASSERT_GE(ex_put_set_param(ex, EX_SIDE_SET, id, (int64_t)elems.size(), ndf), 0);
    ASSERT_GE(ex_put_set(ex, EX_SIDE_SET, id, elems.data(), sides.data()), 0);
    if (ndf == 0) return;
    std::vector<double> df;
    for (size_t e = 0; e < elems.size(); e++)
      for (int p = 0; p < nodes_per_side[e]; p++) df.push_back(10.0 * elems[e] + p);
    ASSERT_GE(ex_put_set_dist_fact(ex, EX_SIDE_SET, id, df.data()), 0);
  };
  std::vector<int> el, sd, np;
  for (int t = 0; t < m.tris(); t++) el.push_back(tri0 + t), sd.push_back(1 + t % 2), np.push_back(3);
  for (int i = 0; i < m.nx; i++) el.push_back(tri0 + 2 * i), sd.push_back(3), np.push_back(2);
  ASSERT_NO_FATAL_FAILURE(put(11, el, sd, np));
  el.clear(), sd.clear(), np.clear();
  for (int e = 0; e < m.nx * m.ny; e++) el.push_back(1 + e), sd.push_back(5), np.push_back(4);
  ASSERT_NO_FATAL_FAILURE(put(12, el, sd, np));
  el.clear(), sd.clear(), np.clear();
  for (int q = 0; q < m.shells(); q++) el.push_back(shell0 + q), sd.push_back(1), np.push_back(4);
  for (int k = 0; k < m.nz; k++)
    el.push_back(shell0 + k * m.nx + m.nx - 1), sd.push_back(4), np.push_back(2);
  ASSERT_NO_FATAL_FAILURE(put(13, el, sd, np));
  el.clear(), sd.clear(), np.clear();
  for (int t = 0; t < m.tris(); t++) el.push_back(tri0 + t), sd.push_back(1 + t % 2), np.push_back(0);
  ASSERT_NO_FATAL_FAILURE(put(14, el, sd, np));
  ex_close(ex);
}

// A side set's entries as (element id, side) with their factors.
using SideEntries = std::map<std::pair<int64_t, int>, std::vector<double>>;

SideEntries entries_of(const mxn_piece_t *pc, const mxn_piece_set_t &ps) {
  SideEntries out;
  for (int64_t i = 0; i < ps.n; i++) {
    int64_t e = ps.entries[i];
    int b = 0;
    while (b < pc->num_blocks && e >= pc->blocks[b].num_elements) e -= pc->blocks[b++].num_elements;
    std::vector<double> df;
    if (ps.df)
      for (int64_t k = ps.df_offsets[i]; k < ps.df_offsets[i + 1]; k++) df.push_back(ps.df[k]);
    out[{b < pc->num_blocks ? pc->blocks[b].elem_ids[e] : -1, ps.sides[i]}] = df;
  }
  return out;
}

// What the file holds: the side set's entries and factors as written.
void expect_written(const ShellMesh &m, int id, const SideEntries &got) {
  ASSERT_EQ(m.ss_size(id), (int64_t)got.size()) << "side set " << id;
  int64_t ndf = 0;
  for (const auto &kv : got) {
    const std::vector<double> &df = kv.second;
    ndf += (int64_t)df.size();
    for (size_t p = 0; p < df.size(); p++)
      EXPECT_EQ(10.0 * kv.first.first + p, df[p])
          << "side set " << id << ", element " << kv.first.first << " side " << kv.first.second;
  }
  EXPECT_EQ(m.ss_df(id), ndf) << "side set " << id;
}

const ShellMesh kMesh = {6, 5, 4};

std::string shell_mesh_path(const std::string &dir) { return dir + "/shells3d.e"; }

TEST(ShellSideSets, SerialReadHasEveryFactor) {
  std::string path = shell_mesh_path(tmpdir("topology_shells"));
  ASSERT_NO_FATAL_FAILURE(write_shell_mesh(path, kMesh));
  WholeMesh w(path);
  ASSERT_TRUE(w.ok());
  const mxn_structure_t *s = w.s();
  ASSERT_EQ(4, s->num_side_sets);
  EXPECT_EQ(kMesh.hexes() + kMesh.tris() + kMesh.shells(), w.pc->num_elements);
  for (int q = 0; q < s->num_side_sets; q++) {
    const int id = (int)s->side_sets[q].id;
    EXPECT_EQ(kMesh.ss_size(id), s->side_sets[q].num_entries) << "side set " << id;
    EXPECT_EQ(id != 14, s->side_sets[q].has_df != 0) << "side set " << id;
    expect_written(kMesh, id, entries_of(w.pc, w.pc->side_sets[q]));
  }
}

// The side sets of Exodus files as the Exodus library lists their nodes:
// per (element id, side), the side's node ids then its factors, over all
// the files (the same entry in two files must agree).
using ExodusSides = std::map<std::pair<int64_t, int>, std::vector<double>>;

void exodus_sides(const std::vector<std::string> &paths, int id, ExodusSides *out) {
  for (const std::string &path : paths) {
    int cpu = 8, io = 0;
    float version = 0;
    int ex = ex_open(path.c_str(), EX_READ, &cpu, &io, &version);
    ASSERT_GE(ex, 0) << path;
    ex_init_params p;
    ASSERT_GE(ex_get_init_ext(ex, &p), 0);
    std::vector<int> nmap(p.num_nodes), emap(p.num_elem);
    ASSERT_GE(ex_get_id_map(ex, EX_NODE_MAP, nmap.data()), 0);
    ASSERT_GE(ex_get_id_map(ex, EX_ELEM_MAP, emap.data()), 0);
    int n = 0, nd = 0;
    if (ex_get_set_param(ex, EX_SIDE_SET, id, &n, &nd) < 0 || n == 0) {
      ex_close(ex);
      continue;
    }
    std::vector<int> elems(n), sides(n), counts(n), nodes(9 * n);
    std::vector<double> df(nd);
    ASSERT_GE(ex_get_set(ex, EX_SIDE_SET, id, elems.data(), sides.data()), 0);
    ASSERT_GE(ex_get_side_set_node_list(ex, id, counts.data(), nodes.data()), 0);
    if (nd > 0) ASSERT_GE(ex_get_set_dist_fact(ex, EX_SIDE_SET, id, df.data()), 0);
    for (int i = 0, at = 0; i < n; at += counts[i++]) {
      std::vector<double> v;
      for (int k = 0; k < counts[i]; k++) v.push_back(nmap[nodes[at + k] - 1]);
      for (int k = 0; nd > 0 && k < counts[i]; k++) v.push_back(df[at + k]);
      auto ins = out->insert({{emap[elems[i] - 1], sides[i]}, v});
      if (!ins.second) EXPECT_EQ(ins.first->second, v) << path << ": side set " << id;
    }
    ex_close(ex);
  }
}

// The same mesh split into members by the CLI opens too, and joins back;
// the Exodus library lists the same side nodes and factors in the members
// and in the joined file as in the original.
TEST(ShellSideSets, SplitAndJoinKeepTheSets) {
  std::string dir = tmpdir("topology_shells_split");
  std::string path = shell_mesh_path(dir);
  ASSERT_NO_FATAL_FAILURE(write_shell_mesh(path, kMesh));
  std::string mxn = std::string(MXN_BIN_DIR) + "/mxn";
  ASSERT_EQ(0, run(mxn + " split '" + path + "' '" + dir + "/m.e' -n 3 > /dev/null"));
  ASSERT_EQ(0, run(mxn + " join '" + dir + "/m.e.3.0' '" + dir + "/j.e' > /dev/null"));
  for (std::string p : {dir + "/m.e.3.0", dir + "/j.e"}) {
    WholeMesh w(p);
    ASSERT_TRUE(w.ok());
    ASSERT_EQ(4, w.s()->num_side_sets);
    for (int q = 0; q < w.s()->num_side_sets; q++)
      expect_written(kMesh, (int)w.s()->side_sets[q].id, entries_of(w.pc, w.pc->side_sets[q]));
  }
  for (int id : {11, 12, 13, 14}) {
    ExodusSides orig, members, joined;
    ASSERT_NO_FATAL_FAILURE(exodus_sides({path}, id, &orig));
    ASSERT_NO_FATAL_FAILURE(
        exodus_sides({dir + "/m.e.3.0", dir + "/m.e.3.1", dir + "/m.e.3.2"}, id, &members));
    ASSERT_NO_FATAL_FAILURE(exodus_sides({dir + "/j.e"}, id, &joined));
    EXPECT_EQ(kMesh.ss_size(id), (int64_t)orig.size());
    EXPECT_EQ(orig, members) << "side set " << id;
    EXPECT_EQ(orig, joined) << "side set " << id;
  }
}

// Loaded on every rank of MPI_COMM_WORLD: the union of the pieces' side
// set entries, with their factors, is the file's. Collective.
TEST(ShellSideSets, LoadOnEveryRank) {
  std::string dir = world_tmpdir("topology_shells_load");
  std::string path = shell_mesh_path(dir);
  bool wrote = true;
  if (mpi_rank() == 0) {
    write_shell_mesh(path, kMesh);
    wrote = !::testing::Test::HasFatalFailure();
  }
  if (!all_ok(wrote)) FAIL() << "rank 0 could not write " << path;
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t *ld = nullptr;
  int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  const mxn_structure_t *s = mxn_load_structure(ld);
  const mxn_piece_t *pc = mxn_load_piece(ld);
  int64_t owned = pc->num_elements;
  MPI_Allreduce(MPI_IN_PLACE, &owned, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(kMesh.hexes() + kMesh.tris() + kMesh.shells(), owned);
  for (int q = 0; q < s->num_side_sets; q++) {
    // Every rank's entries, flattened (element, side, factors...), to rank 0.
    SideEntries mine = entries_of(pc, pc->side_sets[q]);
    std::vector<double> flat;
    for (const auto &kv : mine) {
      flat.push_back((double)kv.first.first);
      flat.push_back(kv.first.second);
      flat.push_back((double)kv.second.size());
      flat.insert(flat.end(), kv.second.begin(), kv.second.end());
    }
    std::vector<double> all = gather_on_root(flat);
    if (mpi_rank() != 0) continue;
    SideEntries every;
    for (size_t k = 0; k < all.size();) {
      std::pair<int64_t, int> key{(int64_t)all[k], (int)all[k + 1]};
      size_t nd = (size_t)all[k + 2];
      std::vector<double> df(all.begin() + k + 3, all.begin() + k + 3 + nd);
      k += 3 + nd;
      auto ins = every.insert({key, df});
      if (!ins.second) EXPECT_EQ(ins.first->second, df) << "two ranks disagree";
    }
    expect_written(kMesh, (int)s->side_sets[q].id, every);
  }
  mxn_load_close(&ld);
}

}  // namespace

// Writes the mesh where the pvbatch comparison with ParaView's own reader
// finds it (a fixture of testing/CMakeLists.txt): MXN_SHELL_MESH.
TEST(ShellSideSets, WriteForParaView) {
  const char *p = std::getenv("MXN_SHELL_MESH");
  if (!p) GTEST_SKIP() << "MXN_SHELL_MESH not set";
  ASSERT_NO_FATAL_FAILURE(write_shell_mesh(p, kMesh));
}
