// JOIN and SPLIT (core/src/forms.c) checked through mxn_compare: a split
// followed by a join must reproduce the original exactly, for the real
// meshes in shared/data and for generated ones; joins of spread sets made
// by other tools must equal the mesh they were made from.
#include <exodusII.h>

#include <map>
#include <set>

#include "mxn/mxn.h"
#include "test_support.h"

using namespace mxntest;

namespace {

// Exact comparison; on failure the report says what differs.
void expect_equal(const std::string &a, const std::string &b, const mxn_compare_opts_t *o = nullptr) {
  mxn_error_t err;
  mxn_error_clear(&err);
  char *report = nullptr;
  int st = mxn_compare(a.c_str(), b.c_str(), o, &report, &err);
  EXPECT_EQ(MXN_OK, st) << a << " vs " << b << ": " << err.msg << "\n" << (report ? report : "");
  free(report);
}

void round_trip(const std::string &mesh, const std::string &dir, int M, mxn_part_method method) {
  mxn_error_t err;
  mxn_error_clear(&err);
  std::string base = dir + "/split.e";
  mxn_form_report_t rep;
  ASSERT_EQ(MXN_OK, mxn_split(mesh.c_str(), base.c_str(), M, method, nullptr, &rep, &err))
      << mesh << " M=" << M << " " << mxn_part_method_name(method) << ": " << err.msg;
  EXPECT_EQ(M, rep.files_out);
  char member[4096];
  for (int j = 0; j < M; j++) {
    mxn_member_name(base.c_str(), M, j, member, sizeof member);
    EXPECT_TRUE(exists(member)) << member;
  }
  // No part is empty while M <= elements.
  if (M <= rep.num_elements) EXPECT_GT(rep.min_part_elements, 0);
  std::string joined = dir + "/joined.e";
  ASSERT_EQ(MXN_OK, mxn_join(base.c_str(), joined.c_str(), nullptr, nullptr, &err)) << err.msg;
  expect_equal(mesh, joined);
}

// Nemesis metadata of a split: global counts, internal+border = all,
// communication maps symmetric between neighbours.
void check_nemesis(const std::string &base, int M, int64_t nodes_g, int64_t elems_g) {
  char member[4096];
  // (part, neighbour) -> shared node global ids
  std::map<std::pair<int, int>, std::set<int64_t>> shared_nodes;
  for (int p = 0; p < M; p++) {
    mxn_member_name(base.c_str(), M, p, member, sizeof member);
    int cpu = 8, io = 0;
    float ver;
    int ex = ex_open(member, EX_READ, &cpu, &io, &ver);
    ASSERT_GE(ex, 0) << member;
    ex_set_int64_status(ex, EX_ALL_INT64_API);
    int64_t nng, neg, nbg, nnsg, nssg;
    ASSERT_GE(ex_get_init_global(ex, &nng, &neg, &nbg, &nnsg, &nssg), 0);
    EXPECT_EQ(nodes_g, nng);
    EXPECT_EQ(elems_g, neg);
    int nproc, nprocf;
    char ftype[2];
    ASSERT_GE(ex_get_init_info(ex, &nproc, &nprocf, ftype), 0);
    EXPECT_EQ(M, nproc);
    int64_t nin, nbn, nen, nie, nbe, nnc, nec;
    ASSERT_GE(ex_get_loadbal_param(ex, &nin, &nbn, &nen, &nie, &nbe, &nnc, &nec, p), 0);
    ex_init_params ip;
    ASSERT_GE(ex_get_init_ext(ex, &ip), 0);
    EXPECT_EQ(ip.num_nodes, nin + nbn) << member;
    EXPECT_EQ(ip.num_elem, nie + nbe) << member;
    if (M == 1) EXPECT_EQ(0, nbn);
    std::vector<int64_t> nmap(ip.num_nodes);
    if (ip.num_nodes) ASSERT_GE(ex_get_id_map(ex, EX_NODE_MAP, nmap.data()), 0);
    std::vector<int64_t> ids(nnc + 1), cnts(nnc + 1), eids(nec + 1), ecnts(nec + 1);
    ASSERT_GE(ex_get_cmap_params(ex, ids.data(), cnts.data(), eids.data(), ecnts.data(), p), 0);
    int64_t total = 0;
    for (int64_t c = 0; c < nnc; c++) {
      std::vector<int64_t> nodes(cnts[c] + 1), procs(cnts[c] + 1);
      ASSERT_GE(ex_get_node_cmap(ex, ids[c], nodes.data(), procs.data(), p), 0);
      for (int64_t k = 0; k < cnts[c]; k++) {
        EXPECT_NE(p, procs[k]);
        shared_nodes[{p, (int)procs[k]}].insert(nmap[nodes[k] - 1]);
      }
      total += cnts[c];
    }
    EXPECT_GE(total, nbn);  // every border node is in at least one map
    ex_close(ex);
  }
  for (auto &kv : shared_nodes) {
    auto back = shared_nodes.find({kv.first.second, kv.first.first});
    ASSERT_NE(back, shared_nodes.end());
    EXPECT_EQ(kv.second, back->second) << "parts " << kv.first.first << "," << kv.first.second;
  }
}

class SharedMeshRoundTrip : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(SharedMeshRoundTrip, SplitThenJoinIsExact) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  auto [name, M] = GetParam();
  std::string dir = tmpdir("rt_" + name + "_" + std::to_string(M));
  round_trip(shared("meshes/" + name), dir, M, MXN_PART_RCB);
}

INSTANTIATE_TEST_SUITE_P(AllSharedMeshes, SharedMeshRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(shared_meshes()),
                                            ::testing::Values(1, 2, 3, 7)),
                         [](const auto &info) {
                           std::string n = std::get<0>(info.param);
                           for (auto &c : n)
                             if (!isalnum((unsigned char)c)) c = '_';
                           return n + "_M" + std::to_string(std::get<1>(info.param));
                         });

struct GenCase {
  const char *name, *args;
};

class GeneratedRoundTrip : public ::testing::TestWithParam<std::tuple<GenCase, int>> {};

TEST_P(GeneratedRoundTrip, SplitThenJoinIsExact) {
  auto [gc, M] = GetParam();
  std::string dir = tmpdir(std::string("gen_") + gc.name + "_" + std::to_string(M));
  std::string mesh = generate(dir, "mesh.e", gc.args);
  round_trip(mesh, dir, M, MXN_PART_RCB);
}

const GenCase gen_cases[] = {
    {"hex", "--type hex --dims 6 5 4 --blocks 3 --steps 3"},
    {"tet", "--type tet --dims 4 3 3 --blocks 2 --steps 2"},
    {"quad", "--type quad --dims 9 7 --blocks 2 --steps 2"},
    {"wedge", "--type wedge --dims 4 4 3 --blocks 2 --steps 2"},
    {"mixed", "--type mixed --dims 6 3 3 --steps 2"},
    {"shuffled", "--type hex --dims 5 4 3 --blocks 2 --shuffle-ids 7 --id-offset 100 --id-stride 3"},
    {"int64", "--type hex --dims 4 3 3 --blocks 2 --int64 --id-offset 3000000000 --shuffle-ids 3"},
    {"float4", "--type hex --dims 4 4 4 --word-size 4 --steps 2"},
    // > 65535 nodes per file: exodus 6.02 writes 64-bit set entries wrongly
    // through ex_put_set_param (16-bit); the writer must not.
    {"int64_big", "--type hex --dims 42 40 40 --int64 --steps 1 --id-offset 3000000000"},
};

INSTANTIATE_TEST_SUITE_P(Generated, GeneratedRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(gen_cases), ::testing::Values(1, 2, 3, 7)),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).name) + "_M" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Every partitioning method gives a valid split of the same mesh.
class MethodRoundTrip : public ::testing::TestWithParam<mxn_part_method> {};

TEST_P(MethodRoundTrip, SplitThenJoinIsExact) {
  std::string dir = tmpdir(std::string("method_") + mxn_part_method_name(GetParam()));
  std::string mesh = generate(dir, "mesh.e", "--type hex --dims 8 6 5 --blocks 2 --steps 2");
  round_trip(mesh, dir, 5, GetParam());
  check_nemesis(dir + "/split.e", 5, 9 * 7 * 6, 8 * 6 * 5);
}

INSTANTIATE_TEST_SUITE_P(AllMethods, MethodRoundTrip,
                         ::testing::Values(MXN_PART_LINEAR, MXN_PART_SFC, MXN_PART_RCB, MXN_PART_RIB,
                                           MXN_PART_HSFC, MXN_PART_GRAPH),
                         [](const auto &info) { return std::string(mxn_part_method_name(info.param)); });

TEST(Split, NemesisMetadataOfRealMesh) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  std::string dir = tmpdir("nem_mug");
  mxn_error_t err;
  ASSERT_EQ(MXN_OK, mxn_split(shared("meshes/mug.e").c_str(), (dir + "/mug.e").c_str(), 7,
                              MXN_PART_RCB, nullptr, nullptr, &err))
      << err.msg;
  check_nemesis(dir + "/mug.e", 7, 3774, 2476);
}

TEST(Split, MorePartsThanElementsLeavesEmptyFilesAndJoinsBack) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  std::string dir = tmpdir("too_many_parts");
  // cube.g has 8 elements.
  round_trip(shared("meshes/cube.g"), dir, 11, MXN_PART_RCB);
}

TEST(Split, ZeroPaddedNames) {
  std::string dir = tmpdir("padding");
  std::string mesh = generate(dir, "m.e", "--type hex --dims 12 2 2 --blocks 1 --steps 1");
  mxn_error_t err;
  ASSERT_EQ(MXN_OK, mxn_split(mesh.c_str(), (dir + "/p.e").c_str(), 12, MXN_PART_LINEAR, nullptr,
                              nullptr, &err))
      << err.msg;
  EXPECT_TRUE(exists(dir + "/p.e.12.00"));
  EXPECT_TRUE(exists(dir + "/p.e.12.11"));
  EXPECT_FALSE(exists(dir + "/p.e.12.0"));
}

// Joins of spread sets written by other tools equal the mesh they came from.
class NemesisJoin : public ::testing::TestWithParam<std::tuple<const char *, const char *>> {};

TEST_P(NemesisJoin, EqualsOriginal) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  auto [set, orig] = GetParam();
  std::string dir = tmpdir(std::string("nj_") + std::to_string(std::hash<std::string>{}(set)));
  std::string out = dir + "/joined.e";
  mxn_error_t err;
  mxn_form_report_t rep;
  ASSERT_EQ(MXN_OK, mxn_join(shared(set).c_str(), out.c_str(), nullptr, &rep, &err)) << err.msg;
  EXPECT_GT(rep.files_in, 1);
  expect_equal(shared(std::string("meshes/") + orig), out);
}

INSTANTIATE_TEST_SUITE_P(
    SeacasSets, NemesisJoin,
    ::testing::Values(
        std::make_tuple("nemesis/block_crush_1/inertial-M3/block_crush_1.e.3.0", "block_crush_1.ex2"),
        std::make_tuple("nemesis/block_crush_1/scattered-M3/block_crush_1.e", "block_crush_1.ex2"),
        std::make_tuple("nemesis/coarseGrid/inertial-M4/coarseGrid.e.4.2", "coarseGrid.e"),
        std::make_tuple("nemesis/coarseGrid/random-M3/coarseGrid.e", "coarseGrid.e"),
        std::make_tuple("nemesis/disk_out_ref/inertial-M12/disk_out_ref.e.12.07", "disk_out_ref.ex2"),
        std::make_tuple("nemesis/disk_out_ref/inertial-M4/disk_out_ref.e", "disk_out_ref.ex2"),
        std::make_tuple("nemesis/disk_out_ref/inertial-M4-int64/disk_out_ref.e.4.0", "disk_out_ref.ex2"),
        std::make_tuple("nemesis/disk_out_ref/multikl-M7/disk_out_ref.e.7.6", "disk_out_ref.ex2"),
        std::make_tuple("nemesis/mug/inertial-M4/mug.e.4.1", "mug.e"),
        std::make_tuple("nemesis/mug/multikl-M3/mug.e", "mug.e")));

// ParaView's writer keeps geometry, connectivity and nodal fields but not
// sets, block ids or the original variable list: compare what it kept.
TEST(ParaViewSpreadJoin, Disk4EqualsDiskOutRefWhereItHoldsData) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  std::string dir = tmpdir("pv_disk4");
  std::string out = dir + "/joined.e";
  mxn_error_t err;
  ASSERT_EQ(MXN_OK, mxn_join(shared("spread/paraview-writer/disk4.ex2").c_str(), out.c_str(),
                             nullptr, nullptr, &err))
      << err.msg;
  mxn_compare_opts_t o{};
  o.match_blocks_by_type = 1;
  o.common_only = 1;
  expect_equal(shared("meshes/disk_out_ref.ex2"), out, &o);
  // ... and the comparison is not vacuous: nodal fields were compared.
  mxn_dataset_t *ds = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, out.c_str()));
  EXPECT_EQ(9, mxn_dataset_structure(ds)->num_node_vars);
  mxn_dataset_destroy(&ds);
}

// wavelet20 has no original file: check it is the whole 20^3 box with its
// 0-based ids, each hex a unit cube, nothing lost or repeated.
TEST(ParaViewSpreadJoin, Wavelet20IsTheWholeBoxWithZeroBasedIds) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  std::string dir = tmpdir("pv_wavelet");
  std::string out = dir + "/joined.e";
  mxn_error_t err;
  ASSERT_EQ(MXN_OK, mxn_join(shared("spread/paraview-writer/wavelet20.ex2.3.0").c_str(), out.c_str(),
                             nullptr, nullptr, &err))
      << err.msg;
  mxn_dataset_t *ds = nullptr;
  mxn_piece_t *pc = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, out.c_str()));
  ASSERT_EQ(MXN_OK, mxn_extract(ds, nullptr, nullptr, &pc));
  EXPECT_EQ(8000, pc->num_elements);
  EXPECT_EQ(21 * 21 * 21, pc->num_nodes);
  EXPECT_EQ(0, pc->node_ids[0]);
  EXPECT_EQ(9260, pc->node_ids[pc->num_nodes - 1]);
  std::set<int64_t> cells;
  for (int b = 0; b < pc->num_blocks; b++) {
    const mxn_piece_block_t &pb = pc->blocks[b];
    for (int64_t k = 0; k < pb.num_elements; k++) {
      cells.insert(pb.elem_ids[k]);
      double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
      for (int c = 0; c < 8; c++)
        for (int d = 0; d < 3; d++) {
          double x = pc->coord[d][pb.conn[k * 8 + c]];
          lo[d] = std::min(lo[d], x);
          hi[d] = std::max(hi[d], x);
        }
      for (int d = 0; d < 3; d++) EXPECT_DOUBLE_EQ(1.0, hi[d] - lo[d]);
    }
  }
  EXPECT_EQ(8000u, cells.size());
  EXPECT_EQ(0, *cells.begin());
  EXPECT_EQ(7999, *cells.rbegin());
  mxn_piece_destroy(&pc);
  mxn_dataset_destroy(&ds);
}

// The comparison itself must see differences, or every test above is vacuous.
TEST(Compare, DetectsChangedValues) {
  std::string dir = tmpdir("cmp");
  std::string a = generate(dir, "a.e", "--type hex --dims 3 3 3 --steps 2");
  std::string b = generate(dir, "b.e", "--type hex --dims 3 3 3 --steps 2 --id-offset 1");
  std::string c = generate(dir, "c.e", "--type hex --dims 3 3 3 --steps 3");
  std::string d = generate(dir, "d.e", "--type hex --dims 3 3 3 --steps 2 --no-sets");
  mxn_error_t err;
  char *rep = nullptr;
  EXPECT_EQ(MXN_OK, mxn_compare(a.c_str(), a.c_str(), nullptr, &rep, &err));
  free(rep);
  EXPECT_EQ(MXN_ERR_DIFFERENT, mxn_compare(a.c_str(), b.c_str(), nullptr, &rep, &err));
  free(rep);
  EXPECT_EQ(MXN_ERR_DIFFERENT, mxn_compare(a.c_str(), c.c_str(), nullptr, &rep, &err));
  free(rep);
  EXPECT_EQ(MXN_ERR_DIFFERENT, mxn_compare(a.c_str(), d.c_str(), nullptr, &rep, &err));
  free(rep);
  mxn_compare_opts_t o{};
  o.common_only = 1;
  EXPECT_EQ(MXN_OK, mxn_compare(a.c_str(), d.c_str(), &o, &rep, &err));
  free(rep);
  // Ids shifted by one differ, unless offsets are ignored; the fields encode
  // the ids, so they still differ then.
  o = {};
  o.ignore_ids_offset = 1;
  o.max_report = 100000;
  EXPECT_EQ(MXN_ERR_DIFFERENT, mxn_compare(a.c_str(), b.c_str(), &o, &rep, &err));
  ASSERT_NE(nullptr, rep);
  EXPECT_NE(nullptr, strstr(rep, "node_gid_time"));
  free(rep);
}

}  // namespace
