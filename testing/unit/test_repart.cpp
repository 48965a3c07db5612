// REPART (core/src/forms/repart.c), run on 1..4 ranks: each rank writes its piece
// of an M-file set as one member of an N-file set. Checked:
//  - the join of the N members equals the join of the M input files exactly
//    (every block, set, map, variable and step);
//  - the Nemesis metadata equals a brute-force reference computed from the
//    members' node maps: global counts, internal/border nodes, border
//    elements (touching a border node), node communication maps per
//    neighbour;
//  - loading the written set on the same N ranks by files gives each rank
//    exactly its own member;
//  - failures (missing input member, one rank unable to write) leave no
//    member and no temporary file, with the same message on every rank.
#include <exodusII.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "mpi_helpers.h"
#include "test_mpi.h"
#include "test_support.h"

using namespace mxntest;

namespace {

void expect_equal(const std::string &a, const std::string &b) {
  mxn_error_t err;
  mxn_error_clear(&err);
  char *report = nullptr;
  int st = mxn_compare(a.c_str(), b.c_str(), nullptr, &report, &err);
  EXPECT_EQ(MXN_OK, st) << a << " vs " << b << ": " << err.msg << "\n" << (report ? report : "");
  free(report);
}

// Regular files in `dir` whose name starts with `prefix`.
std::vector<std::string> files_with_prefix(const std::string &dir, const std::string &prefix) {
  std::vector<std::string> v;
  std::error_code ec;
  for (auto &e : std::filesystem::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && e.is_regular_file(ec)) v.push_back(n);
  }
  std::sort(v.begin(), v.end());
  return v;
}

// One member as written: ids, blocks, Nemesis maps, all by global id.
struct Member {
  std::vector<int64_t> node_ids, elem_ids;
  std::vector<std::vector<int64_t>> elem_nodes;  // local node indices (0-based)
  int64_t nng = 0, neg = 0;
  std::map<int64_t, int64_t> blk_g, ns_g, nsdf_g, ss_g, ssdf_g;
  int nproc = 0;
  std::set<int64_t> int_nodes, bor_nodes, int_elems, bor_elems;  // global ids
  std::map<int, std::vector<int64_t>> cmaps;                     // neighbour -> node gids
};

void read_member(const std::string &path, int part, Member &m) {
  int cpu = 8, io = 0;
  float ver;
  int ex = ex_open(path.c_str(), EX_READ, &cpu, &io, &ver);
  ASSERT_GE(ex, 0) << path;
  ex_set_int64_status(ex, EX_ALL_INT64_API);
  ex_init_params ip;
  ASSERT_GE(ex_get_init_ext(ex, &ip), 0);
  m.node_ids.resize(ip.num_nodes);
  m.elem_ids.resize(ip.num_elem);
  if (ip.num_nodes) ASSERT_GE(ex_get_id_map(ex, EX_NODE_MAP, m.node_ids.data()), 0);
  if (ip.num_elem) ASSERT_GE(ex_get_id_map(ex, EX_ELEM_MAP, m.elem_ids.data()), 0);
  std::vector<int64_t> bids(ip.num_elem_blk);
  if (ip.num_elem_blk) ASSERT_GE(ex_get_ids(ex, EX_ELEM_BLOCK, bids.data()), 0);
  for (int64_t id : bids) {
    char type[MAX_STR_LENGTH + 1];
    int64_t nel = 0, npe = 0, ned = 0, nfa = 0, nat = 0;
    ASSERT_GE(ex_get_block(ex, EX_ELEM_BLOCK, id, type, &nel, &npe, &ned, &nfa, &nat), 0);
    std::vector<int64_t> conn(nel * npe + 1);
    if (nel * npe) ASSERT_GE(ex_get_conn(ex, EX_ELEM_BLOCK, id, conn.data(), nullptr, nullptr), 0);
    for (int64_t k = 0; k < nel; k++) {
      std::vector<int64_t> en;
      for (int64_t c = 0; c < npe; c++) en.push_back(conn[k * npe + c] - 1);
      m.elem_nodes.push_back(en);
    }
  }
  ASSERT_EQ((size_t)ip.num_elem, m.elem_nodes.size());
  int64_t nbg, nnsg, nssg;
  ASSERT_GE(ex_get_init_global(ex, &m.nng, &m.neg, &nbg, &nnsg, &nssg), 0);
  char ftype[2];
  int nprocf;
  ASSERT_GE(ex_get_init_info(ex, &m.nproc, &nprocf, ftype), 0);
  std::vector<int64_t> ids(nbg + 1), c1(nbg + 1);
  if (nbg) ASSERT_GE(ex_get_eb_info_global(ex, ids.data(), c1.data()), 0);
  for (int64_t b = 0; b < nbg; b++) m.blk_g[ids[b]] = c1[b];
  ids.assign(nnsg + 1, 0);
  c1.assign(nnsg + 1, 0);
  std::vector<int64_t> c2(nnsg + 1);
  if (nnsg) ASSERT_GE(ex_get_ns_param_global(ex, ids.data(), c1.data(), c2.data()), 0);
  for (int64_t q = 0; q < nnsg; q++) {
    m.ns_g[ids[q]] = c1[q];
    m.nsdf_g[ids[q]] = c2[q];
  }
  ids.assign(nssg + 1, 0);
  c1.assign(nssg + 1, 0);
  c2.assign(nssg + 1, 0);
  if (nssg) ASSERT_GE(ex_get_ss_param_global(ex, ids.data(), c1.data(), c2.data()), 0);
  for (int64_t q = 0; q < nssg; q++) {
    m.ss_g[ids[q]] = c1[q];
    m.ssdf_g[ids[q]] = c2[q];
  }
  int64_t nin, nbn, nen, nie, nbe, nnc, nec;
  ASSERT_GE(ex_get_loadbal_param(ex, &nin, &nbn, &nen, &nie, &nbe, &nnc, &nec, part), 0);
  EXPECT_EQ(0, nen);
  EXPECT_EQ(ip.num_nodes, nin + nbn);
  EXPECT_EQ(ip.num_elem, nie + nbe);
  std::vector<int64_t> a(nin + 1), b(nbn + 1), c(1);
  ASSERT_GE(ex_get_processor_node_maps(ex, a.data(), b.data(), c.data(), part), 0);
  for (int64_t k = 0; k < nin; k++) m.int_nodes.insert(m.node_ids.at(a[k] - 1));
  for (int64_t k = 0; k < nbn; k++) m.bor_nodes.insert(m.node_ids.at(b[k] - 1));
  a.assign(nie + 1, 0);
  b.assign(nbe + 1, 0);
  ASSERT_GE(ex_get_processor_elem_maps(ex, a.data(), b.data(), part), 0);
  for (int64_t k = 0; k < nie; k++) m.int_elems.insert(m.elem_ids.at(a[k] - 1));
  for (int64_t k = 0; k < nbe; k++) m.bor_elems.insert(m.elem_ids.at(b[k] - 1));
  std::vector<int64_t> cids(nnc + 1), ccnt(nnc + 1), eids(nec + 1), ecnt(nec + 1);
  ASSERT_GE(ex_get_cmap_params(ex, cids.data(), ccnt.data(), eids.data(), ecnt.data(), part), 0);
  for (int64_t k = 0; k < nnc; k++) {
    std::vector<int64_t> nodes(ccnt[k] + 1), procs(ccnt[k] + 1);
    ASSERT_GE(ex_get_node_cmap(ex, cids[k], nodes.data(), procs.data(), part), 0);
    std::vector<int64_t> &v = m.cmaps[(int)cids[k]];
    EXPECT_TRUE(v.empty()) << "two maps for neighbour " << cids[k];
    for (int64_t i = 0; i < ccnt[k]; i++) {
      EXPECT_EQ(cids[k], procs[i]);
      v.push_back(m.node_ids.at(nodes[i] - 1));
    }
  }
  ex_close(ex);
}

// Nemesis metadata of `outbase.N.*` against a brute force over the members
// and the serial read `ref` of the input. Local (rank 0).
void check_nemesis(const std::string &outbase, int N, const mxn_structure_t *s, const mxn_piece_t *ref) {
  std::vector<Member> m(N);
  char name[4096];
  for (int p = 0; p < N; p++) {
    mxn_member_name(outbase.c_str(), N, p, name, sizeof name);
    SCOPED_TRACE(name);
    read_member(name, p, m[p]);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::map<int64_t, std::set<int>> holders;
  int64_t elems = 0;
  for (int p = 0; p < N; p++) {
    for (int64_t id : m[p].node_ids) holders[id].insert(p);
    elems += (int64_t)m[p].elem_ids.size();
  }
  EXPECT_EQ(ref->num_elements, elems) << "every element written once";
  EXPECT_EQ(ref->num_nodes, (int64_t)holders.size());
  // Global counts from the serial read of the input.
  std::map<int64_t, int64_t> blk, ns, nsdf, ss, ssdf;
  for (int b = 0; b < s->num_blocks; b++) blk[s->blocks[b].id] = ref->blocks[b].num_elements;
  for (int q = 0; q < s->num_node_sets; q++) {
    ns[s->node_sets[q].id] = ref->node_sets[q].n;
    nsdf[s->node_sets[q].id] = ref->node_sets[q].df ? ref->node_sets[q].n : 0;
  }
  for (int q = 0; q < s->num_side_sets; q++) {
    const mxn_piece_set_t &ps = ref->side_sets[q];
    ss[s->side_sets[q].id] = ps.n;
    ssdf[s->side_sets[q].id] = ps.df && ps.df_offsets ? ps.df_offsets[ps.n] : 0;
  }
  for (int p = 0; p < N; p++) {
    SCOPED_TRACE("member " + std::to_string(p));
    const Member &x = m[p];
    EXPECT_EQ(N, x.nproc);
    EXPECT_EQ(ref->num_nodes, x.nng);
    EXPECT_EQ(ref->num_elements, x.neg);
    EXPECT_EQ(blk, x.blk_g);
    EXPECT_EQ(ns, x.ns_g);
    EXPECT_EQ(nsdf, x.nsdf_g);
    EXPECT_EQ(ss, x.ss_g);
    EXPECT_EQ(ssdf, x.ssdf_g);
    // Border nodes: held by another member too; maps: exactly the nodes
    // shared with each neighbour, in ascending id order, none to itself.
    std::set<int64_t> bor, in;
    std::map<int, std::vector<int64_t>> cm;
    std::vector<int64_t> sorted_ids = x.node_ids;
    std::sort(sorted_ids.begin(), sorted_ids.end());
    for (int64_t id : sorted_ids) {
      const std::set<int> &h = holders[id];
      (h.size() > 1 ? bor : in).insert(id);
      for (int q : h)
        if (q != p) cm[q].push_back(id);
    }
    EXPECT_EQ(in, x.int_nodes);
    EXPECT_EQ(bor, x.bor_nodes);
    EXPECT_EQ(cm, x.cmaps);
    std::set<int64_t> be, ie;
    for (size_t e = 0; e < x.elem_ids.size(); e++) {
      bool touches = false;
      for (int64_t li : x.elem_nodes[e]) touches = touches || bor.count(x.node_ids.at(li));
      (touches ? be : ie).insert(x.elem_ids[e]);
    }
    EXPECT_EQ(ie, x.int_elems);
    EXPECT_EQ(be, x.bor_elems);
  }
  // Symmetry: what p shares with q, q shares with p.
  for (int p = 0; p < N; p++)
    for (auto &kv : m[p].cmaps) {
      auto back = m[kv.first].cmaps.find(p);
      ASSERT_NE(back, m[kv.first].cmaps.end());
      EXPECT_EQ(kv.second, back->second);
    }
}

struct Dataset {
  const char *label;
  const char *gen_args;  // generated (then split into M files) when not null
  int M;
  const char *shared_set;  // else a set under shared/data
};

const Dataset datasets[] = {
    {"hex_M3", "--type hex --dims 8 6 5 --blocks 2 --steps 3", 3, nullptr},
    {"shuffled_M7", "--type hex --dims 5 4 3 --blocks 2 --shuffle-ids 7 --id-offset 100 --id-stride 3", 7, nullptr},
    {"quad_M2", "--type quad --dims 9 7 --blocks 2 --steps 2", 2, nullptr},
    {"int64_M3", "--type hex --dims 4 3 3 --blocks 2 --int64 --id-offset 3000000000 --shuffle-ids 3", 3, nullptr},
    {"mug_M4", nullptr, 0, "nemesis/mug/inertial-M4/mug.e"},
    {"disk_M12", nullptr, 0, "nemesis/disk_out_ref/inertial-M12/disk_out_ref.e"},
    {"crush_scattered_M3", nullptr, 0, "nemesis/block_crush_1/scattered-M3/block_crush_1.e"},
    {"coarse_random_M3", nullptr, 0, "nemesis/coarseGrid/random-M3/coarseGrid.e"},
    // single files: edge and face blocks and sets; shells beside hexes
    {"edgeface_M1", nullptr, 0, "meshes/edgeFaceElem.exii"},
    {"twoblock_M1", nullptr, 0, "meshes/2block1.g"},
};

// The input of a case, made by rank 0 in a directory of its own.
std::string input_of(const Dataset &d, const std::string &dir) {
  if (d.shared_set) return shared(d.shared_set);
  std::string base = dir + "/in.e";
  int ok = 1;
  if (mpi_rank() == 0) {
    std::string mesh = generate(dir, "mesh.e", d.gen_args);
    mxn_error_t err;
    mxn_error_clear(&err);
    ok = mxn_split(mesh.c_str(), base.c_str(), d.M, MXN_PART_RCB, nullptr, nullptr, &err) == MXN_OK;
    EXPECT_TRUE(ok) << err.msg;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? base : "";
}

// Load the N-member set `set` on the N ranks by files: each rank must get
// exactly the elements of its own member, read from that member alone.
void expect_own_members(const std::string &set) {
  const int N = mpi_size(), R = mpi_rank();
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t *ld = nullptr;
  int st = mxn_load_open(MPI_COMM_WORLD, set.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  mxn_load_stats_t ls = mxn_load_stats(ld);
  if (ls.owned_elements > 0) {
    EXPECT_EQ(1, ls.cover_files);
    EXPECT_EQ(1, ls.files_overlapping);
  }
  mxn_dataset_t *mds = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&mds));
  ASSERT_EQ(MXN_OK, mxn_dataset_open(mds, set.c_str())) << mxn_dataset_errmsg(mds);
  const mxn_file_domain_t *dom = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_file_domain(mds, R, &dom)) << mxn_dataset_errmsg(mds);
  char name[4096];
  mxn_member_name(set.c_str(), N, R, name, sizeof name);
  EXPECT_STREQ(name, mxn_dataset_file_path(mds, R));
  std::vector<int64_t> have;
  const mxn_piece_t *pc = mxn_load_piece(ld);
  for (int b = 0; b < pc->num_blocks; b++)
    have.insert(have.end(), pc->blocks[b].elem_ids, pc->blocks[b].elem_ids + pc->blocks[b].num_elements);
  std::sort(have.begin(), have.end());
  EXPECT_EQ(std::vector<int64_t>(dom->elems.ids, dom->elems.ids + dom->elems.n), have);
  mxn_dataset_destroy(&mds);
  mxn_load_close(&ld);
}

class RepartMatrix : public ::testing::TestWithParam<std::tuple<Dataset, mxn_part_method>> {};

TEST_P(RepartMatrix, JoinEqualsInputAndNemesisIsRight) {
  auto [d, method] = GetParam();
  if (d.shared_set && !have_shared()) GTEST_SKIP() << "shared data absent";
  const int N = mpi_size(), R = mpi_rank();
  std::string dir = world_tmpdir(std::string("repart_") + d.label + "_" + mxn_part_method_name(method));
  std::string in = input_of(d, dir);
  ASSERT_FALSE(in.empty());
  std::string out = dir + "/out.e";
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = method;
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_form_report_t rep;
  int st = mxn_repart(MPI_COMM_WORLD, in.c_str(), out.c_str(), &o, &rep, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  EXPECT_EQ(N, rep.files_out);
  EXPECT_LE(rep.min_part_elements, rep.max_part_elements);
  // The report is the same everywhere.
  int64_t r0[4] = {rep.num_nodes, rep.num_elements, rep.min_part_elements, rep.read.bytes_read};
  int64_t mine[4] = {r0[0], r0[1], r0[2], r0[3]};
  MPI_Bcast(r0, 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
  for (int k = 0; k < 4; k++) EXPECT_EQ(r0[k], mine[k]) << k;

  // Rank 0 alone reads the result; its ASSERTs leave the lambda only, so
  // it still meets the others in the collectives below.
  if (R == 0) [&] {
    {
      WholeMesh w(in);
      ASSERT_TRUE(w.ok());
      const mxn_structure_t *s = w.s();
      const mxn_piece_t *all = w.pc;
      EXPECT_EQ(s->num_files, rep.files_in);
      EXPECT_EQ(all->num_nodes, rep.num_nodes);
      EXPECT_EQ(all->num_elements, rep.num_elements);
      EXPECT_EQ(s->num_times, rep.num_steps);
      if (N <= all->num_elements) EXPECT_GT(rep.min_part_elements, 0);
      // Exactly the N members, no temporary file.
      std::vector<std::string> want;
      char name[4096];
      for (int p = 0; p < N; p++) {
        mxn_member_name("out.e", N, p, name, sizeof name);
        want.push_back(name);
      }
      std::sort(want.begin(), want.end());
      EXPECT_EQ(want, files_with_prefix(dir, "out.e"));
      check_nemesis(out, N, s, all);
    }
    // join(repart(x)) == join(x)
    ASSERT_EQ(MXN_OK, mxn_join(in.c_str(), (dir + "/ref.e").c_str(), nullptr, nullptr, &err)) << err.msg;
    ASSERT_EQ(MXN_OK, mxn_join(out.c_str(), (dir + "/joined.e").c_str(), nullptr, nullptr, &err)) << err.msg;
    expect_equal(dir + "/ref.e", dir + "/joined.e");
  }();
  MPI_Barrier(MPI_COMM_WORLD);

  // When the members are equal, loading the set back on N ranks by files
  // gives each rank its own member.
  if (rep.min_part_elements == rep.max_part_elements) expect_own_members(out);
}

INSTANTIATE_TEST_SUITE_P(Sets, RepartMatrix,
                         ::testing::Combine(::testing::ValuesIn(datasets),
                                            ::testing::Values(MXN_PART_FILES, MXN_PART_RCB, MXN_PART_SFC)),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).label) + "_" +
                                  mxn_part_method_name(std::get<1>(info.param));
                         });

// ---------- failures leave nothing behind ----------

// Run repart, expect the same failure everywhere naming `file`, and no
// member or temporary file under `dir` starting with "out.e".
void expect_repart_fails(const std::string &in, const std::string &dir, const std::string &file) {
  Watchdog wd(120);
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_form_report_t rep;
  int st = mxn_repart(MPI_COMM_WORLD, in.c_str(), (dir + "/out.e").c_str(), nullptr, &rep, &err);
  expect_agreed(st, err.msg);
  EXPECT_NE(MXN_OK, st);
  EXPECT_NE(nullptr, strstr(err.msg, file.c_str())) << err.msg;
  MPI_Barrier(MPI_COMM_WORLD);
  if (mpi_rank() == 0) EXPECT_EQ(std::vector<std::string>(), files_with_prefix(dir, "out.e"));
}

TEST(RepartErrors, MissingInputMember) {
  std::string dir = world_tmpdir("repart_err_missing");
  std::string in = input_of(datasets[0], dir);
  ASSERT_FALSE(in.empty());
  if (mpi_rank() == 0) EXPECT_EQ(0, remove((in + ".3.2").c_str()));
  MPI_Barrier(MPI_COMM_WORLD);
  expect_repart_fails(in, dir, in + ".3.2");
}

// The last rank cannot move its member into place (a directory has the
// name): every rank must take its member back.
TEST(RepartErrors, OneRankCannotWrite) {
  const int N = mpi_size();
  std::string dir = world_tmpdir("repart_err_write");
  std::string in = input_of(datasets[0], dir);
  ASSERT_FALSE(in.empty());
  char name[4096];
  mxn_member_name((dir + "/out.e").c_str(), N, N - 1, name, sizeof name);
  if (mpi_rank() == 0) EXPECT_EQ(0, run(std::string("mkdir -p '") + name + "' && touch '" + name + "/keep'"));
  MPI_Barrier(MPI_COMM_WORLD);
  expect_repart_fails(in, dir, name);
  if (mpi_rank() == 0) EXPECT_TRUE(exists(std::string(name) + "/keep"));
}

TEST(RepartErrors, NoOutputDirectory) {
  std::string dir = world_tmpdir("repart_err_nodir");
  std::string in = input_of(datasets[0], dir);
  ASSERT_FALSE(in.empty());
  expect_repart_fails(in, dir + "/missing", "missing/out.e");
}

TEST(RepartErrors, BadArguments) {
  Watchdog wd(60);
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_repart(MPI_COMM_WORLD, nullptr, "x", nullptr, nullptr, &err);
  expect_agreed(st, err.msg);
  EXPECT_EQ(MXN_ERR_ARG, st);
  // One rank alone passing bad arguments still fails everyone, at once.
  std::string dir = world_tmpdir("repart_err_args");
  std::string in = input_of(datasets[0], dir);
  std::string out = dir + "/out.e";
  st = mxn_repart(MPI_COMM_WORLD, in.c_str(), mpi_rank() == mpi_size() - 1 ? nullptr : out.c_str(),
                  nullptr, nullptr, &err);
  expect_agreed(st, err.msg);
  EXPECT_EQ(MXN_ERR_ARG, st);
}

// Writing twice to the same base replaces the set.
TEST(Repart, OverwritesAnEarlierSet) {
  std::string dir = world_tmpdir("repart_twice");
  std::string in = input_of(datasets[0], dir);
  ASSERT_FALSE(in.empty());
  std::string out = dir + "/out.e";
  mxn_error_t err;
  for (mxn_part_method m : {MXN_PART_LINEAR, MXN_PART_FILES}) {
    mxn_load_opts_t o;
    mxn_load_opts_init(&o);
    o.method = m;
    int st = mxn_repart(MPI_COMM_WORLD, in.c_str(), out.c_str(), &o, nullptr, &err);
    expect_agreed(st, err.msg);
    ASSERT_EQ(MXN_OK, st) << err.msg;
  }
  if (mpi_rank() == 0) [&] {
    ASSERT_EQ(MXN_OK, mxn_join(out.c_str(), (dir + "/joined.e").c_str(), nullptr, nullptr, &err)) << err.msg;
    ASSERT_EQ(MXN_OK, mxn_join(in.c_str(), (dir + "/ref.e").c_str(), nullptr, nullptr, &err)) << err.msg;
    expect_equal(dir + "/ref.e", dir + "/joined.e");
  }();
  MPI_Barrier(MPI_COMM_WORLD);
}

// "files: whole files to ranks, cut only where needed" (load.h): a set of N
// members whose sizes differ but stay within the tolerance loads back on N
// ranks without cutting any member; one beyond it is cut, within tolerance.
TEST(Repart, FilesMethodCutsOnlyWhereNeeded) {
  const int N = mpi_size();
  std::string dir = world_tmpdir("repart_files_cut");
  std::string in = input_of(datasets[0], dir);  // 240 elements
  ASSERT_FALSE(in.empty());
  for (double skew : {1.03, 1.5}) {
    SCOPED_TRACE("member 0 holds " + std::to_string(skew) + " x the mean");
    // Member 0 gets skew x the mean, the others share the rest: contiguous
    // runs of element ids, written with the map method.
    std::string map = dir + "/skew.txt", out = dir + "/skew" + std::to_string((int)(skew * 100)) + ".e";
    if (mpi_rank() == 0) [&] {
      WholeMesh w(in);
      ASSERT_TRUE(w.ok());
      const mxn_piece_t *all = w.pc;
      std::vector<int64_t> ids;
      for (int b = 0; b < all->num_blocks; b++)
        ids.insert(ids.end(), all->blocks[b].elem_ids, all->blocks[b].elem_ids + all->blocks[b].num_elements);
      std::sort(ids.begin(), ids.end());
      size_t n0 = N == 1 ? ids.size() : (size_t)std::lround(skew * ids.size() / N);
      FILE *f = fopen(map.c_str(), "w");
      ASSERT_NE(nullptr, f);
      for (size_t k = 0; k < ids.size(); k++) {
        int p = k < n0 ? 0 : 1 + (int)((k - n0) * (N - 1) / (ids.size() - n0));
        fprintf(f, "%lld %d\n", (long long)ids[k], p);
      }
      ASSERT_EQ(0, fclose(f));
    }();
    MPI_Barrier(MPI_COMM_WORLD);
    mxn_load_opts_t o;
    mxn_load_opts_init(&o);
    o.method = MXN_PART_MAP;
    o.map_file = map.c_str();
    mxn_error_t err;
    mxn_error_clear(&err);
    int st = mxn_repart(MPI_COMM_WORLD, in.c_str(), out.c_str(), &o, nullptr, &err);
    expect_agreed(st, err.msg);
    ASSERT_EQ(MXN_OK, st) << err.msg;
    if (skew < 1.05) {
      expect_own_members(out);
    } else {
      mxn_load_t *ld = nullptr;
      st = mxn_load_open(MPI_COMM_WORLD, out.c_str(), nullptr, &ld, &err);
      expect_agreed(st, err.msg);
      ASSERT_EQ(MXN_OK, st) << err.msg;
      EXPECT_LE(mxn_load_stats(ld).imbalance, 1.05 + 1e-12);
      mxn_load_close(&ld);
    }
  }
}

}  // namespace

// A set whose members overlap (written by repart --ghosts 1: each member
// also stores its neighbours' cells) takes the load's directory queries
// (ids stored twice), a set without overlap skips them. Either way every
// element is owned by exactly one rank, so the owned ids of all ranks are
// the input's ids, each once, for every method.
TEST(Repart, OverlappingMembersLoadEachElementOnce) {
  const int N = mpi_size(), R = mpi_rank();
  std::string dir = world_tmpdir("repart_overlap");
  std::string in = input_of(datasets[0], dir);
  ASSERT_FALSE(in.empty());
  std::string out = dir + "/ghosted.e";
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.ghost_levels = 1;
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_repart(MPI_COMM_WORLD, in.c_str(), out.c_str(), &o, nullptr, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  std::vector<mxn_gid_t> want;
  for (const std::string &set : {in, out})
    for (mxn_part_method m : {MXN_PART_FILES, MXN_PART_RCB}) {
      SCOPED_TRACE(set + " method " + mxn_part_method_name(m));
      mxn_load_opts_t lo;
      mxn_load_opts_init(&lo);
      lo.method = m;
      mxn_load_t *ld = nullptr;
      mxn_error_clear(&err);
      st = mxn_load_open(MPI_COMM_WORLD, set.c_str(), &lo, &ld, &err);
      expect_agreed(st, err.msg);
      ASSERT_EQ(MXN_OK, st) << err.msg;
      const mxn_piece_t *p = mxn_load_piece(ld);
      if (set == out && m == MXN_PART_FILES && N > 1) {
        // ids stored twice: the part's query names every member holding
        // them, so some rank sees its cells in a neighbour's member too
        int over = (int)mxn_load_stats(ld).files_overlapping, most = 0;
        MPI_Allreduce(&over, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        EXPECT_GE(most, 2);
      }
      std::vector<mxn_gid_t> mine;
      for (int b = 0; b < p->num_blocks; b++)
        mine.insert(mine.end(), p->blocks[b].elem_ids, p->blocks[b].elem_ids + p->blocks[b].num_elements);
      std::vector<mxn_gid_t> all = gather_all(mine);
      mxn_load_close(&ld);
      std::vector<mxn_gid_t> sorted = all;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end())
          << "an element is owned twice (rank " << R << ")";
      if (want.empty()) want = sorted; // the plain input, files method
      EXPECT_EQ(want, sorted);
    }
}
