// Sets shown whole whatever blocks are selected (issue 58, core/src/
// load_sets.c and the partition's set-named elements in load.c), on 1 and
// 3 ranks: a mesh of 4 hexes in two blocks and one node of no element,
// with a node set on the unselected block's nodes only, a node set holding
// the free node, and a side set naming a side of each block. Loaded with
// only the second block selected (and with every block), plain and split
// in 2 members, with the files and RCB methods, without and with a ghost
// layer:
//  - every entry of every set is in some rank's piece, with its node's
//    coordinates and nodal values; with ghosts (node and element owners)
//    exactly one rank owns it;
//  - the unselected block holds no element but those a side set names;
//  - owned_elements counts the shown elements only: summed over the ranks,
//    the selected blocks' count (the side set's element of the unselected
//    block is carried, in carried_elements).
// And edge and face sets shown whole the same way (EdgeFaceSets below).
#include <exodusII.h>

#include <array>
#include <cstring>
#include <map>

#include "mpi_helpers.h"
#include "test_mpi.h"
#include "test_support.h"

using namespace mxntest;

namespace {

// Node (i, j, k) of the 5 x 2 x 2 grid: ids 1..20; node 21 is free.
int64_t node_id(int i, int j, int k) { return 1 + i + 5 * (j + 2 * k); }

const std::vector<int64_t> kSet1 = {1, 6, 11, 16};  // x = 0: block 10's nodes only
const std::vector<int64_t> kSet2 = {5, 21};         // x = 4 (block 20) and the free node
// (element, side): element 1's x-min face (block 10), element 4's x-max face (block 20)
const std::vector<std::pair<int64_t, int>> kSides = {{1, 4}, {4, 2}};

double x_of(int64_t id) { return id == 21 ? 10.0 : double((id - 1) % 5); }
double val_of(int64_t id) { return 1000.0 + double(id); }

// The mesh, written with the Exodus API (rank 0).
bool write_mesh(const std::string &path) {
  int cpu = 8, io = 8;
  int ex = ex_create(path.c_str(), EX_CLOBBER, &cpu, &io);
  if (ex < 0) return false;
  bool ok = ex_put_init(ex, "sets on unselected blocks", 3, 21, 4, 2, 2, 1) >= 0;
  std::vector<double> x(21), y(21), z(21);
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 5; i++) {
        int64_t n = node_id(i, j, k) - 1;
        x[n] = i;
        y[n] = j;
        z[n] = k;
      }
  x[20] = y[20] = z[20] = 10.0;
  ok = ok && ex_put_coord(ex, x.data(), y.data(), z.data()) >= 0;
  for (int b = 0; b < 2; b++) {
    ok = ok && ex_put_block(ex, EX_ELEM_BLOCK, 10 * (b + 1), "HEX8", 2, 8, 0, 0, 0) >= 0;
    std::vector<int> conn;
    for (int i = 2 * b; i < 2 * b + 2; i++) {
      const int c[8][3] = {{i, 0, 0}, {i + 1, 0, 0}, {i + 1, 1, 0}, {i, 1, 0},
                           {i, 0, 1}, {i + 1, 0, 1}, {i + 1, 1, 1}, {i, 1, 1}};
      for (auto &q : c) conn.push_back(int(node_id(q[0], q[1], q[2])));
    }
    ok = ok && ex_put_conn(ex, EX_ELEM_BLOCK, 10 * (b + 1), conn.data(), nullptr, nullptr) >= 0;
  }
  std::vector<int> s1(kSet1.begin(), kSet1.end()), s2(kSet2.begin(), kSet2.end());
  ok = ok && ex_put_set_param(ex, EX_NODE_SET, 1, 4, 0) >= 0 &&
       ex_put_set(ex, EX_NODE_SET, 1, s1.data(), nullptr) >= 0;
  ok = ok && ex_put_set_param(ex, EX_NODE_SET, 2, 2, 0) >= 0 &&
       ex_put_set(ex, EX_NODE_SET, 2, s2.data(), nullptr) >= 0;
  std::vector<int> se, ss;
  for (auto &p : kSides) {
    se.push_back(int(p.first));
    ss.push_back(p.second);
  }
  ok = ok && ex_put_set_param(ex, EX_SIDE_SET, 3, 2, 0) >= 0 &&
       ex_put_set(ex, EX_SIDE_SET, 3, se.data(), ss.data()) >= 0;
  const char *names[1] = {"val"};
  ok = ok && ex_put_variable_param(ex, EX_NODAL, 1) >= 0 &&
       ex_put_variable_names(ex, EX_NODAL, 1, (char **)names) >= 0;
  double t = 1.0;
  std::vector<double> v(21);
  for (int n = 0; n < 21; n++) v[n] = val_of(n + 1);
  ok = ok && ex_put_time(ex, 1, &t) >= 0 &&
       ex_put_var(ex, 1, EX_NODAL, 1, 1, 21, v.data()) >= 0;
  return ex_close(ex) >= 0 && ok;
}

// The plain mesh and its split in 2 members, made once by rank 0.
struct Files {
  std::string plain, spread;
};
const Files &files() {
  static Files f;
  static bool made = false;
  if (made) return f;
  made = true;
  std::string dir = world_tmpdir("load_sets");
  f.plain = dir + "/mesh.e";
  f.spread = dir + "/set.e";
  int ok = 1;
  if (mpi_rank() == 0) {
    ok = write_mesh(f.plain);
    mxn_error_t err;
    mxn_error_clear(&err);
    int st = ok ? mxn_split(f.plain.c_str(), f.spread.c_str(), 2, MXN_PART_RCB, nullptr, nullptr, &err)
                : MXN_ERR_IO;
    EXPECT_EQ(MXN_OK, st) << err.msg;
    ok = ok && st == MXN_OK;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  EXPECT_TRUE(ok);
  return f;
}

// Sums over the ranks of per-key counts (keys the same on every rank).
std::vector<long long> summed(std::vector<long long> v) {
  MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

struct Case {
  bool spread;
  mxn_part_method method;
  int ghosts;
  bool every_block;
};

class LoadSets : public ::testing::TestWithParam<Case> {};

TEST_P(LoadSets, EverySetEntryIsReadOnceWhateverBlocksAreSelected) {
  const Case c = GetParam();
  const Files &f = files();
  ASSERT_TRUE(all_ok(!f.plain.empty()));
  const std::string path = c.spread ? f.spread : f.plain;
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = c.method;
  o.ghost_levels = c.ghosts;
  int sel[2] = {0, 1};  // block 20 only
  if (!c.every_block) o.block_selection = sel;
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t *ld = nullptr;
  int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  ASSERT_EQ(MXN_OK, mxn_load_read_step(ld, 0, &err)) << err.msg;
  const mxn_structure_t *s = mxn_load_structure(ld);
  const mxn_piece_t *pc = mxn_load_piece(ld);
  const mxn_load_halo_t *h = mxn_load_halo(ld);
  const int R = mpi_rank();
  ASSERT_EQ(2, s->num_node_sets);
  ASSERT_EQ(1, s->num_side_sets);
  ASSERT_NE(nullptr, pc->node_vars[0]);

  // Node sets: per expected id, the ranks holding the entry and owning it;
  // every entry held has the node's coordinates and value.
  for (int q = 0; q < 2; q++) {
    const std::vector<int64_t> &want = s->node_sets[q].id == 1 ? kSet1 : kSet2;
    std::vector<long long> held(want.size(), 0), owned(want.size(), 0);
    long long stray = 0;
    const mxn_piece_set_t &ps = pc->node_sets[q];
    for (int64_t i = 0; i < ps.n; i++) {
      int64_t v = ps.entries[i];
      ASSERT_TRUE(v >= 0 && v < pc->num_nodes);
      int64_t id = pc->node_ids[v];
      auto it = std::find(want.begin(), want.end(), id);
      if (it == want.end()) {
        stray++;
        continue;
      }
      held[it - want.begin()]++;
      if (!h || h->node_owner[v] == R) owned[it - want.begin()]++;
      EXPECT_EQ(x_of(id), pc->coord[0][v]) << "node " << id;
      EXPECT_EQ(val_of(id), pc->node_vars[0][v]) << "node " << id;
    }
    EXPECT_EQ(0, stray) << "node set " << s->node_sets[q].id;
    held = summed(held);
    owned = summed(owned);
    for (size_t k = 0; k < want.size(); k++) {
      EXPECT_GE(held[k], 1) << "node set " << s->node_sets[q].id << ": node " << want[k] << " on no rank";
      if (h) EXPECT_EQ(1, owned[k]) << "node set " << s->node_sets[q].id << ": node " << want[k];
    }
  }
  // The side set: each (element, side) owned by one rank, from the
  // element's block.
  {
    std::vector<long long> owned(kSides.size(), 0);
    long long stray = 0;
    const mxn_piece_set_t &ps = pc->side_sets[0];
    for (int64_t i = 0; i < ps.n; i++) {
      int64_t e = ps.entries[i];
      int b = 0;
      while (b < pc->num_blocks && e >= pc->blocks[b].num_elements) e -= pc->blocks[b].num_elements, b++;
      ASSERT_LT(b, pc->num_blocks);
      std::pair<int64_t, int> key(pc->blocks[b].elem_ids[e], ps.sides[i]);
      auto it = std::find(kSides.begin(), kSides.end(), key);
      if (it == kSides.end()) {
        stray++;
        continue;
      }
      if (!h || h->elem_depth[b][e] == 0) owned[it - kSides.begin()]++;
    }
    EXPECT_EQ(0, stray);
    owned = summed(owned);
    for (size_t k = 0; k < kSides.size(); k++)
      EXPECT_EQ(1, owned[k]) << "side set 3: element " << kSides[k].first << " side " << kSides[k].second;
  }
  // The unselected block: only the element the side set names.
  if (!c.every_block)
    for (int64_t k = 0; k < pc->blocks[0].num_elements; k++)
      EXPECT_EQ(1, pc->blocks[0].elem_ids[k]) << "block 10 holds element " << pc->blocks[0].elem_ids[k];
  // The figures count what is shown: block 20's 2 elements, or all 4; the
  // side set's element 1 of block 10 is carried.
  {
    mxn_load_stats_t st = mxn_load_stats(ld);
    std::vector<long long> n = summed({st.owned_elements, st.carried_elements});
    EXPECT_EQ(c.every_block ? 4 : 2, n[0]);
    EXPECT_EQ(c.every_block ? 0 : 1, n[1]);
    EXPECT_EQ(n[0], st.total_elements);
  }
  mxn_load_close(&ld);
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (bool spread : {false, true})
    for (mxn_part_method m : {MXN_PART_FILES, MXN_PART_RCB})
      for (int g : {0, 1})
        for (bool every : {false, true}) v.push_back({spread, m, g, every});
  return v;
}

std::string case_name(const ::testing::TestParamInfo<Case> &i) {
  const Case &c = i.param;
  return std::string(c.spread ? "M2" : "plain") + (c.method == MXN_PART_FILES ? "_files" : "_rcb") +
         "_ghosts" + std::to_string(c.ghosts) + (c.every_block ? "_allblocks" : "_block20");
}

INSTANTIATE_TEST_SUITE_P(Sets, LoadSets, ::testing::ValuesIn(cases()), case_name);

// Edge and face sets whose edges or faces no selected element refers to.
// The same 4 hexes (block 10: elements 1-2, block 20: 3-4); each element
// refers to one edge (its x-edge at y = z = 0: edge k of element k) and
// one face (its x-min face: face k of element k). Edge 5 (x = 0, z = 1,
// along y: block 10's nodes only) and edge 6 (x = 4, z = 0, along y:
// block 20's nodes), face 5 (x = 4) and face 6 (x = 0.. a quad of block
// 10's nodes at y = 0) belong to no element. Edge set 60 lists edges 1
// (only element 1 of block 10 refers to it), 3 (element 3) and the
// orphans 5 and 6; face set 70 lists faces 1, 2 (block 10's elements
// only), 4 (element 4), 5 and 6. Each set has a variable: 100 + id.
namespace ef {
const std::vector<std::array<int64_t, 2>> kEdges = {
    {node_id(0, 0, 0), node_id(1, 0, 0)}, {node_id(1, 0, 0), node_id(2, 0, 0)},
    {node_id(2, 0, 0), node_id(3, 0, 0)}, {node_id(3, 0, 0), node_id(4, 0, 0)},
    {node_id(0, 0, 1), node_id(0, 1, 1)}, {node_id(4, 0, 0), node_id(4, 1, 0)}};
std::array<int64_t, 4> x_face(int i) {
  return {node_id(i, 0, 0), node_id(i, 0, 1), node_id(i, 1, 1), node_id(i, 1, 0)};
}
const std::vector<std::array<int64_t, 4>> kFaces = {
    x_face(0), x_face(1), x_face(2), x_face(3), x_face(4),
    {node_id(0, 0, 0), node_id(1, 0, 0), node_id(1, 0, 1), node_id(0, 0, 1)}};
const std::vector<int64_t> kEdgeSet = {1, 3, 5, 6};
const std::vector<int64_t> kFaceSet = {1, 2, 4, 5, 6};
double esv(int64_t id) { return 100.0 + double(id); }

bool write_mesh(const std::string &path) {
  int cpu = 8, io = 8;
  int ex = ex_create(path.c_str(), EX_CLOBBER, &cpu, &io);
  if (ex < 0) return false;
  ex_init_params p;
  memset(&p, 0, sizeof p);
  snprintf(p.title, sizeof p.title, "edge and face sets on unselected blocks");
  p.num_dim = 3;
  p.num_nodes = 20;
  p.num_edge = 6;
  p.num_edge_blk = 1;
  p.num_face = 6;
  p.num_face_blk = 1;
  p.num_elem = 4;
  p.num_elem_blk = 2;
  p.num_edge_sets = 1;
  p.num_face_sets = 1;
  bool ok = ex_put_init_ext(ex, &p) >= 0;
  std::vector<double> x(20), y(20), z(20);
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 5; i++) {
        int64_t n = node_id(i, j, k) - 1;
        x[n] = i;
        y[n] = j;
        z[n] = k;
      }
  ok = ok && ex_put_coord(ex, x.data(), y.data(), z.data()) >= 0;
  ok = ok && ex_put_block(ex, EX_EDGE_BLOCK, 30, "EDGE2", 6, 2, 0, 0, 0) >= 0;
  std::vector<int> econn, fconn;
  for (auto &e : kEdges) econn.insert(econn.end(), e.begin(), e.end());
  for (auto &f : kFaces) fconn.insert(fconn.end(), f.begin(), f.end());
  ok = ok && ex_put_conn(ex, EX_EDGE_BLOCK, 30, econn.data(), nullptr, nullptr) >= 0;
  ok = ok && ex_put_block(ex, EX_FACE_BLOCK, 40, "QUAD4", 6, 4, 0, 0, 0) >= 0;
  ok = ok && ex_put_conn(ex, EX_FACE_BLOCK, 40, fconn.data(), nullptr, nullptr) >= 0;
  for (int b = 0; b < 2; b++) {
    ok = ok && ex_put_block(ex, EX_ELEM_BLOCK, 10 * (b + 1), "HEX8", 2, 8, 1, 1, 0) >= 0;
    std::vector<int> conn, ec, fc;
    for (int i = 2 * b; i < 2 * b + 2; i++) {
      const int c[8][3] = {{i, 0, 0}, {i + 1, 0, 0}, {i + 1, 1, 0}, {i, 1, 0},
                           {i, 0, 1}, {i + 1, 0, 1}, {i + 1, 1, 1}, {i, 1, 1}};
      for (auto &q : c) conn.push_back(int(node_id(q[0], q[1], q[2])));
      ec.push_back(i + 1);
      fc.push_back(i + 1);
    }
    ok = ok && ex_put_conn(ex, EX_ELEM_BLOCK, 10 * (b + 1), conn.data(), ec.data(), fc.data()) >= 0;
  }
  std::vector<int> es(kEdgeSet.begin(), kEdgeSet.end()), fs(kFaceSet.begin(), kFaceSet.end());
  std::vector<int> eo(es.size(), 1), fo(fs.size(), 1);
  ok = ok && ex_put_set_param(ex, EX_EDGE_SET, 60, int64_t(es.size()), 0) >= 0 &&
       ex_put_set(ex, EX_EDGE_SET, 60, es.data(), eo.data()) >= 0;
  ok = ok && ex_put_set_param(ex, EX_FACE_SET, 70, int64_t(fs.size()), 0) >= 0 &&
       ex_put_set(ex, EX_FACE_SET, 70, fs.data(), fo.data()) >= 0;
  const char *nn[1] = {"val"}, *en[1] = {"esv"}, *fn[1] = {"fsv"};
  ok = ok && ex_put_variable_param(ex, EX_NODAL, 1) >= 0 &&
       ex_put_variable_names(ex, EX_NODAL, 1, (char **)nn) >= 0;
  ok = ok && ex_put_variable_param(ex, EX_EDGE_SET, 1) >= 0 &&
       ex_put_variable_names(ex, EX_EDGE_SET, 1, (char **)en) >= 0;
  ok = ok && ex_put_variable_param(ex, EX_FACE_SET, 1) >= 0 &&
       ex_put_variable_names(ex, EX_FACE_SET, 1, (char **)fn) >= 0;
  double t = 1.0;
  std::vector<double> v(20), ev, fv;
  for (int n = 0; n < 20; n++) v[n] = val_of(n + 1);
  for (int64_t id : kEdgeSet) ev.push_back(esv(id));
  for (int64_t id : kFaceSet) fv.push_back(esv(id));
  ok = ok && ex_put_time(ex, 1, &t) >= 0 && ex_put_var(ex, 1, EX_NODAL, 1, 1, 20, v.data()) >= 0 &&
       ex_put_var(ex, 1, EX_EDGE_SET, 1, 60, int64_t(ev.size()), ev.data()) >= 0 &&
       ex_put_var(ex, 1, EX_FACE_SET, 1, 70, int64_t(fv.size()), fv.data()) >= 0;
  return ex_close(ex) >= 0 && ok;
}

const Files &files() {
  static Files f;
  static bool made = false;
  if (made) return f;
  made = true;
  std::string dir = world_tmpdir("load_ef_sets");
  f.plain = dir + "/mesh.e";
  f.spread = dir + "/set.e";
  int ok = 1;
  if (mpi_rank() == 0) {
    ok = write_mesh(f.plain);
    mxn_error_t err;
    mxn_error_clear(&err);
    int st = ok ? mxn_split(f.plain.c_str(), f.spread.c_str(), 2, MXN_PART_RCB, nullptr, nullptr, &err)
                : MXN_ERR_IO;
    EXPECT_EQ(MXN_OK, st) << err.msg;
    ok = ok && st == MXN_OK;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  EXPECT_TRUE(ok);
  return f;
}
}  // namespace ef

class EdgeFaceSets : public ::testing::TestWithParam<Case> {};

// Every entry of the edge and face sets is owned by exactly one rank
// (mxn_load_entity_owners), with its edge's or face's nodes in order, their
// coordinates and nodal values, and the set variable; none is left out,
// whatever blocks are selected.
TEST_P(EdgeFaceSets, EveryEntryIsOwnedOnceWhateverBlocksAreSelected) {
  const Case c = GetParam();
  const Files &f = ef::files();
  ASSERT_TRUE(all_ok(!f.plain.empty()));
  const std::string path = c.spread ? f.spread : f.plain;
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = c.method;
  o.ghost_levels = c.ghosts;
  int sel[2] = {0, 1};  // block 20 only
  if (!c.every_block) o.block_selection = sel;
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t *ld = nullptr;
  int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  ASSERT_EQ(MXN_OK, mxn_load_read_step(ld, 0, &err)) << err.msg;
  const mxn_structure_t *s = mxn_load_structure(ld);
  const mxn_piece_t *pc = mxn_load_piece(ld);
  const mxn_load_entity_owners_t *eo = mxn_load_entity_owners(ld);
  const int R = mpi_rank();
  ASSERT_EQ(1, s->num_edge_sets);
  ASSERT_EQ(1, s->num_face_sets);
  ASSERT_NE(nullptr, pc->node_vars[0]);
  for (int faces = 0; faces < 2; faces++) {
    const char *what = faces ? "face set 70" : "edge set 60";
    const std::vector<int64_t> &want = faces ? ef::kFaceSet : ef::kEdgeSet;
    const mxn_piece_set_t &ps = faces ? pc->face_sets[0] : pc->edge_sets[0];
    const mxn_piece_block_t &pb = faces ? pc->face_blocks[0] : pc->edge_blocks[0];
    const int per = faces ? 4 : 2;
    const int *owner = eo ? (faces ? eo->face_owner : eo->edge_owner) : nullptr;
    std::vector<long long> held(want.size(), 0), owned(want.size(), 0);
    long long stray = 0;
    ASSERT_NE(nullptr, ps.vars);
    ASSERT_NE(nullptr, ps.vars[0]);
    for (int64_t i = 0; i < ps.n; i++) {
      int64_t k = ps.entries[i];
      ASSERT_TRUE(k >= 0 && k < pb.num_elements) << what;
      int64_t id = pb.elem_ids[k];
      auto it = std::find(want.begin(), want.end(), id);
      if (it == want.end()) {
        stray++;
        continue;
      }
      held[it - want.begin()]++;
      if (!owner || owner[k] == R) owned[it - want.begin()]++;
      EXPECT_EQ(ef::esv(id), ps.vars[0][i]) << what << ": entry " << id;
      for (int q = 0; q < per; q++) {
        int64_t v = pb.conn[k * per + q];
        ASSERT_TRUE(v >= 0 && v < pc->num_nodes) << what;
        int64_t nid = pc->node_ids[v];
        int64_t expect = faces ? ef::kFaces[size_t(id - 1)][size_t(q)] : ef::kEdges[size_t(id - 1)][size_t(q)];
        EXPECT_EQ(expect, nid) << what << ": entry " << id << " node " << q;
        EXPECT_EQ(x_of(nid), pc->coord[0][v]) << "node " << nid;
        EXPECT_EQ(val_of(nid), pc->node_vars[0][v]) << "node " << nid;
      }
    }
    EXPECT_EQ(0, stray) << what;
    held = summed(held);
    owned = summed(owned);
    for (size_t k = 0; k < want.size(); k++) {
      EXPECT_GE(held[k], 1) << what << ": entry " << want[k] << " on no rank";
      EXPECT_EQ(1, owned[k]) << what << ": entry " << want[k];
    }
  }
  // Every node of the piece owned by exactly one rank (with ghosts: the
  // halo's owners), the set entries' nodes among them.
  if (const mxn_load_halo_t *h = mxn_load_halo(ld)) {
    std::vector<long long> own(21, 0);
    for (int64_t v = 0; v < pc->num_nodes; v++)
      if (h->node_owner[v] == R) own[size_t(pc->node_ids[v])]++;
    own = summed(own);
    std::vector<long long> held(21, 0);
    for (int64_t v = 0; v < pc->num_nodes; v++) held[size_t(pc->node_ids[v])] = 1;
    held = summed(held);
    for (int64_t id = 1; id <= 20; id++)
      if (held[size_t(id)]) EXPECT_EQ(1, own[size_t(id)]) << "node " << id;
  }
  // No element of the unselected block: no set names one.
  if (!c.every_block) EXPECT_EQ(0, summed({(long long)pc->blocks[0].num_elements})[0]);
  mxn_load_close(&ld);
}

INSTANTIATE_TEST_SUITE_P(Sets, EdgeFaceSets, ::testing::ValuesIn(cases()), case_name);

}  // namespace
