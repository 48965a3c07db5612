// Ghost layers of the parallel load (core/src/load/halo.c, load.c), run on 2..5
// ranks, on generated sets and the spread sets of shared/data, with several
// partitioning methods and L = 1, 2, 3:
//  - the halo of every rank equals a brute-force serial computation: the
//    elements within L node hops of the rank's owned elements, not owned by
//    it, each at its hop distance;
//  - every halo element is owned by exactly one other rank, the one the
//    halo names; its connectivity and field values equal the serial read;
//  - every node has exactly one owner, the owner of the adjacent element
//    with the highest global id, and all ranks agree on it;
//  - each block is ordered owned, depth 1, ..., depth L in contiguous
//    ranges, ascending ids within each; with inner_first the owned cells
//    touching no shared node come first.
#include <exodusII.h>

#include <map>
#include <set>

#include "mpi_helpers.h"
#include "test_mpi.h"
#include "test_support.h"

using namespace mxntest;

namespace {

struct GenCase {
  const char *name, *args;
  int M;
};

const GenCase gen_cases[] = {
    {"hex", "--type hex --dims 9 7 5 --blocks 2 --steps 2", 3},
    {"tet", "--type tet --dims 5 4 4 --steps 1", 4},
    {"quad", "--type quad --dims 14 11 --blocks 3 --steps 2", 2},
    {"mixed", "--type mixed --dims 6 4 3 --steps 1", 3},
    {"shuffled", "--type hex --dims 6 5 4 --shuffle-ids 3 --id-offset 1000 --id-stride 7 --steps 1", 5},
    // layers cutting across the members' rows: strided step reads
    {"rows", "--type hex --dims 24 16 10 --steps 2", 4},
};

std::string make_gen(const GenCase &gc) {
  static std::map<std::string, std::string> made;
  auto it = made.find(gc.name);
  if (it != made.end()) return it->second;
  return made[gc.name] = generated_set(std::string("halo_") + gc.name, gc.args, gc.M);
}

// The whole mesh read serially, with its node -> element adjacency.
struct Whole {
  WholeMesh whole;
  mxn_dataset_t *ds;
  mxn_piece_t *all;
  std::map<int64_t, std::pair<int, int64_t>> elem;  // id -> (block, index)
  std::map<int64_t, int64_t> node;                  // id -> index
  std::vector<std::vector<int64_t>> node_elems;     // node index -> element ids
  bool ok = false;

  explicit Whole(const std::string &path) : whole(path), ds(whole.ds), all(whole.pc) {
    EXPECT_TRUE(whole.ok());
    if (!whole.ok()) return;
    const mxn_structure_t *s = mxn_dataset_structure(ds);
    node_elems.resize(all->num_nodes);
    for (int64_t v = 0; v < all->num_nodes; v++) node[all->node_ids[v]] = v;
    for (int b = 0; b < all->num_blocks; b++) {
      int npe = s->blocks[b].nodes_per_elem;
      for (int64_t k = 0; k < all->blocks[b].num_elements; k++) {
        int64_t id = all->blocks[b].elem_ids[k];
        elem[id] = {b, k};
        for (int c = 0; c < npe; c++) node_elems[all->blocks[b].conn[k * npe + c]].push_back(id);
      }
    }
    ok = true;
  }
  std::vector<int64_t> nodes_of(int64_t id) const {
    const mxn_structure_t *s = mxn_dataset_structure(ds);
    auto [b, k] = elem.at(id);
    int npe = s->blocks[b].nodes_per_elem;
    std::vector<int64_t> v;
    for (int c = 0; c < npe; c++) v.push_back(all->blocks[b].conn[k * npe + c]);
    return v;
  }
};

struct HaloCase {
  std::string path;
  mxn_part_method method;
  int L;
  bool inner_first;
  bool check_node_values = true;  // members of some writers disagree on shared nodes
};

void check_halo(const HaloCase &hc) {
  Watchdog wd(120);
  int R = mpi_rank();
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = hc.method;
  o.ghost_levels = hc.L;
  o.inner_first = hc.inner_first;
  mxn_load_t *ld = nullptr;
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_load_open(MPI_COMM_WORLD, hc.path.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  const mxn_structure_t *s = mxn_load_structure(ld);
  const mxn_piece_t *pc = mxn_load_piece(ld);
  const mxn_load_halo_t *h = mxn_load_halo(ld);
  ASSERT_NE(nullptr, h);
  ASSERT_EQ(hc.L, h->levels);
  Whole w(hc.path);
  ASSERT_TRUE(w.ok);

  // Ranges: contiguous, monotone, depth array agrees, ids ascending.
  std::vector<int64_t> owned;
  std::map<int64_t, int> got_depth, got_owner;
  for (int b = 0; b < pc->num_blocks; b++) {
    const int64_t *off = h->block_off[b];
    ASSERT_EQ(0, off[0]);
    ASSERT_EQ(pc->blocks[b].num_elements, off[hc.L + 1]) << "block " << b;
    for (int k = 0; k <= hc.L; k++) {
      ASSERT_LE(off[k], off[k + 1]);
      for (int64_t i = off[k]; i < off[k + 1]; i++) {
        int64_t id = pc->blocks[b].elem_ids[i];
        EXPECT_EQ(k, h->elem_depth[b][i]) << "element " << id;
        if (i > off[k] && !(k == 0 && hc.inner_first))
          EXPECT_LT(pc->blocks[b].elem_ids[i - 1], id) << "block " << b << " depth " << k;
        if (k == 0) {
          owned.push_back(id);
          EXPECT_EQ(R, h->elem_owner[b][i]);
        } else {
          EXPECT_TRUE(got_depth.emplace(id, k).second) << "element " << id << " twice";
          got_owner[id] = h->elem_owner[b][i];
        }
      }
    }
  }
  bool unique = true;
  std::map<int64_t, int> owner = gather_owners(owned, &unique);
  EXPECT_TRUE(unique) << "an element is owned by two ranks";
  EXPECT_EQ(w.elem.size(), owner.size()) << "elements owned by no rank";
  int64_t total_ghosts = 0;
  for (int b = 0; b < pc->num_blocks; b++) total_ghosts += h->block_off[b][hc.L + 1] - h->block_off[b][1];
  EXPECT_EQ(total_ghosts, mxn_load_stats(ld).ghost_elements);

  // Brute force: breadth-first over node hops from my owned elements.
  std::map<int64_t, int> want;
  std::set<int64_t> reached(owned.begin(), owned.end());
  std::vector<int64_t> layer = owned;
  for (int k = 1; k <= hc.L; k++) {
    std::vector<int64_t> next;
    for (int64_t id : layer)
      for (int64_t v : w.nodes_of(id))
        for (int64_t nb : w.node_elems[v])
          if (reached.insert(nb).second) {
            next.push_back(nb);
            want[nb] = k;
          }
    layer = next;
  }
  EXPECT_EQ(want.size(), got_depth.size()) << "rank " << R << " halo size";
  for (auto &[id, k] : want) {
    auto it = got_depth.find(id);
    if (it == got_depth.end()) {
      ADD_FAILURE() << "rank " << R << ": element " << id << " (depth " << k << ") missing";
      break;
    }
    EXPECT_EQ(k, it->second) << "element " << id;
  }
  for (auto &[id, r] : got_owner) {
    EXPECT_NE(R, r) << "ghost " << id << " owned by me";
    EXPECT_EQ(owner[id], r) << "ghost " << id;
  }

  // Connectivity by global ids and element values at the last step equal
  // the serial read; node owners follow the highest adjacent element id.
  int step = s->num_times - 1;
  if (step >= 0) {
    ASSERT_EQ(MXN_OK, mxn_load_read_step(ld, step, &err)) << err.msg;
    ASSERT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.all, step)) << mxn_dataset_errmsg(w.ds);
  }
  for (int b = 0; b < pc->num_blocks; b++) {
    int npe = s->blocks[b].nodes_per_elem;
    for (int64_t i = 0; i < pc->blocks[b].num_elements; i++) {
      int64_t id = pc->blocks[b].elem_ids[i];
      auto [wb, wk] = w.elem.at(id);
      ASSERT_EQ(b, wb);
      for (int c = 0; c < npe; c++)
        ASSERT_EQ(w.all->node_ids[w.all->blocks[b].conn[wk * npe + c]],
                  pc->node_ids[pc->blocks[b].conn[i * npe + c]])
            << "element " << id;
      int na = s->blocks[b].num_attr;
      if (na > 0 && pc->blocks[b].attr && w.all->blocks[b].attr)
        for (int a = 0; a < na; a++)
          ASSERT_EQ(w.all->blocks[b].attr[wk * na + a], pc->blocks[b].attr[i * na + a])
              << "element " << id << " attribute " << a + 1;
      if (pc->blocks[b].orig_ids && w.all->blocks[b].orig_ids)
        ASSERT_EQ(w.all->blocks[b].orig_ids[wk], pc->blocks[b].orig_ids[i]) << "element " << id;
      for (int m = 0; m < s->num_elem_maps && pc->blocks[b].maps; m++)
        ASSERT_EQ(w.all->blocks[b].maps[m][wk], pc->blocks[b].maps[m][i])
            << "element " << id << " map " << m + 1;
      for (int v = 0; step >= 0 && v < s->num_elem_vars; v++)
        if (pc->blocks[b].elem_vars[v])
          ASSERT_EQ(w.all->blocks[b].elem_vars[v][wk], pc->blocks[b].elem_vars[v][i])
              << "element " << id << " variable " << s->elem_var_names[v];
    }
  }
  std::vector<int64_t> my_owned_nodes;
  for (int64_t v = 0; v < pc->num_nodes; v++) {
    int64_t id = pc->node_ids[v];
    int64_t wv = w.node.at(id), best = INT64_MIN;
    for (int64_t e : w.node_elems[wv]) best = std::max(best, e);
    ASSERT_EQ(owner[best], h->node_owner[v]) << "node " << id;
    if (h->node_owner[v] == R) my_owned_nodes.push_back(id);
    for (int d = 0; d < s->num_dim; d++) ASSERT_EQ(w.all->coord[d][wv], pc->coord[d][v]);
    for (int m = 0; m < s->num_node_maps && pc->node_maps; m++)
      ASSERT_EQ(w.all->node_maps[m][wv], pc->node_maps[m][v]) << "node " << id << " map " << m + 1;
    for (int k = 0; hc.check_node_values && step >= 0 && k < s->num_node_vars; k++)
      if (pc->node_vars[k])
        ASSERT_EQ(w.all->node_vars[k][wv], pc->node_vars[k][v]) << "node " << id << " variable "
                                                                << s->node_var_names[k];
  }
  EXPECT_EQ((int64_t)my_owned_nodes.size(), h->owned_nodes);
  // Every node of the mesh that some element uses is owned exactly once.
  bool node_unique = true;
  std::map<int64_t, int> node_owner = gather_owners(my_owned_nodes, &node_unique);
  EXPECT_TRUE(node_unique) << "a node has two owners";
  int64_t used_nodes = 0;
  for (auto &ne : w.node_elems) used_nodes += !ne.empty();
  EXPECT_EQ(used_nodes, (int64_t)node_owner.size());

  // Inner cells first: an inner cell touches no node another rank's
  // elements touch.
  if (hc.inner_first)
    for (int b = 0; b < pc->num_blocks; b++) {
      ASSERT_GE(h->owned_inner[b], 0);
      ASSERT_LE(h->owned_inner[b], h->block_off[b][1]);
      for (int64_t i = 0; i < h->block_off[b][1]; i++) {
        bool edge = false;
        for (int64_t v : w.nodes_of(pc->blocks[b].elem_ids[i]))
          for (int64_t e : w.node_elems[v]) edge |= owner[e] != R;
        EXPECT_EQ(i >= h->owned_inner[b], edge) << "block " << b << " owned cell " << i;
      }
    }
  mxn_load_close(&ld);
}

TEST(Halo, GeneratedSetsEveryMethodAndDepth) {
  for (const GenCase &gc : gen_cases) {
    std::string path = make_gen(gc);
    ASSERT_TRUE(all_ok(!path.empty()));
    for (mxn_part_method m : {MXN_PART_FILES, MXN_PART_RCB, MXN_PART_GRAPH})
      for (int L : {1, 2, 3}) {
        SCOPED_TRACE(std::string(gc.name) + " method " + std::to_string(m) + " L " + std::to_string(L));
        check_halo({path, m, L, false});
        if (::testing::Test::HasFatalFailure()) return;
      }
  }
}

// Ghosts travel from their owners with everything the piece holds of them:
// numbered node and element maps (and attributes, checked above) equal the
// serial read for every ghost.
TEST(Halo, NumberedMapsTravelWithTheGhosts) {
  std::string dir = world_tmpdir("halo_maps");
  std::string base = dir + "/set.e";
  int ok = 1;
  if (mpi_rank() == 0) {
    std::string mesh = generate(dir, "mesh.e", "--type hex --dims 8 6 4 --blocks 2 --steps 2");
    int cpu = 8, io = 8;
    float ver = 0;
    int ex = ex_open(mesh.c_str(), EX_WRITE, &cpu, &io, &ver);
    ok = ex >= 0;
    ex_init_params p;
    if (ok) ok = ex_get_init_ext(ex, &p) >= 0 && ex_put_map_param(ex, 1, 1) >= 0;
    std::vector<int> nv(p.num_nodes), ev(p.num_elem);
    for (int64_t i = 0; ok && i < p.num_nodes; i++) nv[i] = (int)(7 * i + 3);
    for (int64_t i = 0; ok && i < p.num_elem; i++) ev[i] = (int)(5 * i + 1);
    if (ok)
      ok = ex_put_num_map(ex, EX_NODE_MAP, 1, nv.data()) >= 0 &&
           ex_put_num_map(ex, EX_ELEM_MAP, 1, ev.data()) >= 0;
    if (ex >= 0) ex_close(ex);
    EXPECT_TRUE(ok) << "adding maps to " << mesh;
    mxn_error_t err;
    mxn_error_clear(&err);
    int st = ok ? mxn_split(mesh.c_str(), base.c_str(), 3, MXN_PART_RCB, nullptr, nullptr, &err)
                : MXN_ERR_IO;
    EXPECT_EQ(MXN_OK, st) << err.msg;
    ok = st == MXN_OK;
  }
  ASSERT_TRUE(all_ok(ok));
  {
    mxn_dataset_t *ds = nullptr;
    ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
    ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, base.c_str())) << mxn_dataset_errmsg(ds);
    const mxn_structure_t *s = mxn_dataset_structure(ds);
    EXPECT_EQ(1, s->num_node_maps);
    EXPECT_EQ(1, s->num_elem_maps);
    mxn_dataset_destroy(&ds);
  }
  for (int L : {1, 2}) {
    SCOPED_TRACE("L " + std::to_string(L));
    check_halo({base, MXN_PART_RCB, L, false});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Halo, InnerCellsFirst) {
  for (const GenCase &gc : gen_cases) {
    std::string path = make_gen(gc);
    SCOPED_TRACE(gc.name);
    check_halo({path, MXN_PART_SFC, 2, true});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Halo, SharedSpreadSets) {
  std::vector<std::string> sets = shared_sets();
  if (!all_ok(!sets.empty())) GTEST_SKIP() << "no shared data";
  for (const std::string &set : sets)
    for (mxn_part_method m : {MXN_PART_FILES, MXN_PART_RCB}) {
      SCOPED_TRACE(set + " method " + std::to_string(m));
      check_halo({shared(set), m, m == MXN_PART_FILES ? 1 : 2, false, false});
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// Elements referring to edges and faces take the other path: each layer
// extracted through the members' id maps, with its sets, and merged.
TEST(Halo, EdgeAndFaceBlocksThroughTheMaps) {
  if (!all_ok(have_shared())) GTEST_SKIP() << "no shared data";
  for (const char *mesh : {"edgeFaceElem.exii", "2block1.g"}) {
    std::string dir = world_tmpdir(std::string("halo_shared_") + test_name(mesh));
    std::string base = dir + "/set.e";
    int ok = 1;
    if (mpi_rank() == 0) {
      mxn_error_t err;
      mxn_error_clear(&err);
      int st = mxn_split(shared(std::string("meshes/") + mesh).c_str(), base.c_str(), 3,
                         MXN_PART_LINEAR, nullptr, nullptr, &err);
      EXPECT_EQ(MXN_OK, st) << err.msg;
      ok = st == MXN_OK;
    }
    ASSERT_TRUE(all_ok(ok));
    SCOPED_TRACE(mesh);
    check_halo({base, MXN_PART_LINEAR, 1, false});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Halo, BadGhostLevelsFailOnEveryRank) {
  std::string path = make_gen(gen_cases[0]);
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.ghost_levels = -1;
  mxn_load_t *ld = nullptr;
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  EXPECT_EQ(MXN_ERR_ARG, st);
  EXPECT_NE(nullptr, strstr(err.msg, "ghost levels")) << err.msg;
  EXPECT_EQ(nullptr, ld);
}

}  // namespace
