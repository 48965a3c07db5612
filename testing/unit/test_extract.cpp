// Extraction through the minimal cover (core/src/read/read.c), checked value
// by value against the generator's formulas (data/gen/mxn_gen.c: node
// variable node_gid_time = gid + k/16, nodal_x = x + k, element variable
// elem_gid_time = -(gid + k/16), elem_block_only = 2 gid + k/16 on the
// first block, global step_index = k) and against a full read of the
// original single file.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "mxn/mxn.h"
#include "test_support.h"

using namespace mxntest;

namespace {

struct Elem {
  int block;
  std::vector<int64_t> nodes;  // global node ids
};

struct Reference {
  std::map<int64_t, Elem> elems;
  std::map<int64_t, std::array<double, 3>> coords;
  std::vector<std::set<int64_t>> node_sets;
  std::vector<std::set<std::pair<int64_t, int>>> side_sets;
};

class Extract : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = tmpdir("extract");
    mesh_ = generate(dir_, "mesh.e", "--type hex --dims 10 8 6 --blocks 3 --steps 3 --shuffle-ids 5 --id-offset 40");
    mxn_error_t err;
    ASSERT_EQ(MXN_OK, mxn_split(mesh_.c_str(), (dir_ + "/spread.e").c_str(), 5, MXN_PART_RCB, nullptr,
                                nullptr, &err))
        << err.msg;
    // The reference: everything of the original single file.
    WholeMesh w(mesh_);
    ASSERT_TRUE(w.ok());
    const mxn_structure_t *s = w.s();
    const mxn_piece_t *pc = w.pc;
    std::vector<int64_t> local_elem;  // concatenated local -> gid
    for (int b = 0; b < pc->num_blocks; b++) {
      int npe = s->blocks[b].nodes_per_elem;
      for (int64_t k = 0; k < pc->blocks[b].num_elements; k++) {
        Elem e{b, {}};
        for (int c = 0; c < npe; c++) e.nodes.push_back(pc->node_ids[pc->blocks[b].conn[k * npe + c]]);
        ref_.elems[pc->blocks[b].elem_ids[k]] = e;
        local_elem.push_back(pc->blocks[b].elem_ids[k]);
      }
    }
    for (int64_t i = 0; i < pc->num_nodes; i++)
      ref_.coords[pc->node_ids[i]] = {pc->coord[0][i], pc->coord[1][i], pc->coord[2][i]};
    for (int q = 0; q < pc->num_node_sets; q++) {
      std::set<int64_t> ns;
      for (int64_t i = 0; i < pc->node_sets[q].n; i++) ns.insert(pc->node_ids[pc->node_sets[q].entries[i]]);
      ref_.node_sets.push_back(ns);
    }
    for (int q = 0; q < pc->num_side_sets; q++) {
      std::set<std::pair<int64_t, int>> ss;
      for (int64_t i = 0; i < pc->side_sets[q].n; i++)
        ss.insert({local_elem[pc->side_sets[q].entries[i]], pc->side_sets[q].sides[i]});
      ref_.side_sets.push_back(ss);
    }
  }

  void SetUp() override {
    ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds_));
    ASSERT_EQ(MXN_OK, mxn_dataset_open(ds_, (dir_ + "/spread.e").c_str())) << mxn_dataset_errmsg(ds_);
    ASSERT_EQ(5, mxn_dataset_structure(ds_)->num_files);
  }
  void TearDown() override { mxn_dataset_destroy(&ds_); }

  std::vector<int64_t> all_elem_ids() const {
    std::vector<int64_t> v;
    for (auto &kv : ref_.elems) v.push_back(kv.first);
    return v;
  }

  // Check a piece against the reference and the formulas at every step.
  void check_piece(mxn_piece_t *pc, const std::set<int64_t> &want) {
    const mxn_structure_t *s = mxn_dataset_structure(ds_);
    std::set<int64_t> got, nodes_expected;
    for (int b = 0; b < pc->num_blocks; b++) {
      const mxn_piece_block_t &pb = pc->blocks[b];
      int npe = s->blocks[b].nodes_per_elem;
      for (int64_t k = 0; k < pb.num_elements; k++) {
        int64_t id = pb.elem_ids[k];
        if (k > 0) EXPECT_LT(pb.elem_ids[k - 1], id) << "ascending within a block";
        got.insert(id);
        auto it = ref_.elems.find(id);
        ASSERT_NE(it, ref_.elems.end()) << id;
        EXPECT_EQ(it->second.block, b) << "element " << id;
        for (int c = 0; c < npe; c++) {
          int64_t local = pb.conn[k * npe + c];
          ASSERT_GE(local, 0);
          ASSERT_LT(local, pc->num_nodes);
          EXPECT_EQ(it->second.nodes[c], pc->node_ids[local]) << "element " << id << " node " << c;
          nodes_expected.insert(it->second.nodes[c]);
        }
        // attr_gid = gid on the first block
        if (b == 0) {
          ASSERT_NE(nullptr, pb.attr);
          EXPECT_EQ((double)id, pb.attr[k]);
        }
      }
    }
    EXPECT_EQ(want, got);
    EXPECT_EQ((int64_t)got.size(), pc->num_elements);
    ASSERT_EQ((int64_t)nodes_expected.size(), pc->num_nodes) << "exactly the referenced nodes";
    int64_t i = 0;
    for (int64_t n : nodes_expected) {
      ASSERT_EQ(n, pc->node_ids[i]);
      for (int d = 0; d < 3; d++) EXPECT_EQ(ref_.coords[n][d], pc->coord[d][i]);
      i++;
    }
    // Sets: the reference restricted to the piece.
    for (int q = 0; q < pc->num_node_sets; q++) {
      std::set<int64_t> exp, have;
      for (int64_t n : ref_.node_sets[q])
        if (nodes_expected.count(n)) exp.insert(n);
      for (int64_t k = 0; k < pc->node_sets[q].n; k++) {
        int64_t n = pc->node_ids[pc->node_sets[q].entries[k]];
        have.insert(n);
        ASSERT_NE(nullptr, pc->node_sets[q].df);
        EXPECT_EQ(n / 2.0, pc->node_sets[q].df[k]) << "df = gid/2";
      }
      EXPECT_EQ(exp, have) << "node set " << q;
    }
    std::vector<int64_t> local_elem;
    for (int b = 0; b < pc->num_blocks; b++)
      for (int64_t k = 0; k < pc->blocks[b].num_elements; k++) local_elem.push_back(pc->blocks[b].elem_ids[k]);
    for (int q = 0; q < pc->num_side_sets; q++) {
      std::set<std::pair<int64_t, int>> exp, have;
      for (auto &e : ref_.side_sets[q])
        if (want.count(e.first)) exp.insert(e);
      const mxn_piece_set_t &ps = pc->side_sets[q];
      for (int64_t k = 0; k < ps.n; k++) {
        int64_t e = local_elem[ps.entries[k]];
        have.insert({e, ps.sides[k]});
        ASSERT_NE(nullptr, ps.df_offsets);
        for (int64_t d = ps.df_offsets[k]; d < ps.df_offsets[k + 1]; d++)
          EXPECT_EQ(e + (d - ps.df_offsets[k]) / 8.0, ps.df[d]) << "side df = gid + j/8";
      }
      EXPECT_EQ(exp, have) << "side set " << q;
    }
    // Fields at every step, reusing the plan.
    for (int t = 0; t < s->num_times; t++) {
      ASSERT_EQ(MXN_OK, mxn_piece_read_step(ds_, pc, t)) << mxn_dataset_errmsg(ds_);
      EXPECT_EQ(t, pc->step);
      EXPECT_EQ((t + 1) / 4.0, pc->time);
      EXPECT_EQ(t, pc->global_vars[0]);
      for (int64_t n = 0; n < pc->num_nodes; n++) {
        EXPECT_EQ(pc->node_ids[n] + t / 16.0, pc->node_vars[0][n]);
        EXPECT_EQ(pc->coord[0][n] + t, pc->node_vars[1][n]);
      }
      for (int b = 0; b < pc->num_blocks; b++) {
        const mxn_piece_block_t &pb = pc->blocks[b];
        if (pb.num_elements == 0) continue;
        ASSERT_NE(nullptr, pb.elem_vars[0]);
        for (int64_t k = 0; k < pb.num_elements; k++)
          EXPECT_EQ(-(pb.elem_ids[k] + t / 16.0), pb.elem_vars[0][k]);
        if (b == 0) {
          ASSERT_NE(nullptr, pb.elem_vars[1]);
          for (int64_t k = 0; k < pb.num_elements; k++)
            EXPECT_EQ(2.0 * pb.elem_ids[k] + t / 16.0, pb.elem_vars[1][k]);
        } else {
          EXPECT_EQ(nullptr, pb.elem_vars[1]) << "elem_block_only is not defined on block " << b;
        }
      }
    }
  }

  static std::string dir_, mesh_;
  static Reference ref_;
  mxn_dataset_t *ds_ = nullptr;
};

std::string Extract::dir_, Extract::mesh_;
Reference Extract::ref_;

TEST_F(Extract, RandomSubsetsMatchTheOriginalValueByValue) {
  std::mt19937_64 rng(12345);
  std::vector<int64_t> ids = all_elem_ids();
  ASSERT_EQ(480u, ids.size());
  for (size_t size : {1, 2, 17, 100, 333, 480}) {
    std::shuffle(ids.begin(), ids.end(), rng);
    std::set<int64_t> want(ids.begin(), ids.begin() + size);
    std::vector<int64_t> w(want.begin(), want.end());
    mxn_idset_t W;
    ASSERT_EQ(MXN_OK, mxn_idset_from_array(w.data(), (int64_t)w.size(), &W));
    mxn_piece_t *pc = nullptr;
    ASSERT_EQ(MXN_OK, mxn_extract(ds_, &W, nullptr, &pc)) << mxn_dataset_errmsg(ds_);
    check_piece(pc, want);
    EXPECT_LE(pc->stats.files_in_cover, 5);
    EXPECT_GE(pc->stats.files_in_cover, 1);
    mxn_piece_destroy(&pc);
    mxn_idset_free(&W);
  }
}

TEST_F(Extract, FullExtractionIsTheWholeMesh) {
  mxn_piece_t *pc = nullptr;
  ASSERT_EQ(MXN_OK, mxn_extract(ds_, nullptr, nullptr, &pc));
  std::vector<int64_t> ids = all_elem_ids();
  check_piece(pc, std::set<int64_t>(ids.begin(), ids.end()));
  EXPECT_EQ(5, pc->stats.files_in_cover);
  mxn_piece_destroy(&pc);
}

// One file's elements are covered by that file alone, and reading them
// costs less than reading everything.
TEST_F(Extract, OneFilesElementsAreReadFromThatFileOnly) {
  const mxn_file_domain_t *d = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_file_domain(ds_, 2, &d));
  mxn_io_counters_t before = mxn_dataset_counters(ds_);
  mxn_piece_t *pc = nullptr;
  ASSERT_EQ(MXN_OK, mxn_extract(ds_, &d->elems, nullptr, &pc));
  mxn_io_counters_t after = mxn_dataset_counters(ds_);
  EXPECT_EQ(1, pc->stats.files_in_cover);
  int64_t part_bytes = after.bytes_read - before.bytes_read;
  check_piece(pc, std::set<int64_t>(d->elems.ids, d->elems.ids + d->elems.n));
  mxn_piece_destroy(&pc);

  before = mxn_dataset_counters(ds_);
  ASSERT_EQ(MXN_OK, mxn_extract(ds_, nullptr, nullptr, &pc));
  after = mxn_dataset_counters(ds_);
  int64_t all_bytes = after.bytes_read - before.bytes_read;
  EXPECT_GT(part_bytes, 0);
  EXPECT_LT(part_bytes * 2, all_bytes) << "one of five files should cost well under half";
  EXPECT_GT(after.read_calls, 0);
  EXPECT_LE(after.files_opened, 5) << "each member opened once";
  mxn_piece_destroy(&pc);
}

// Coalescing trades bytes for calls and never changes the values.
TEST_F(Extract, GapCoalescingKeepsValuesAndCutsCalls) {
  std::vector<int64_t> ids = all_elem_ids();
  std::vector<int64_t> w;
  for (size_t i = 0; i < ids.size(); i += 3) w.push_back(ids[i]);
  mxn_idset_t W;
  ASSERT_EQ(MXN_OK, mxn_idset_from_array(w.data(), (int64_t)w.size(), &W));
  mxn_extract_opts_t o{};
  int64_t runs[2];
  for (int g = 0; g < 2; g++) {
    o.gap = g ? 1000 : 0;
    mxn_piece_t *pc = nullptr;
    ASSERT_EQ(MXN_OK, mxn_extract(ds_, &W, &o, &pc));
    check_piece(pc, std::set<int64_t>(w.begin(), w.end()));
    runs[g] = pc->stats.elem_runs + pc->stats.node_runs;
    mxn_piece_destroy(&pc);
  }
  EXPECT_LT(runs[1], runs[0]);
  mxn_idset_free(&W);
}

// gap_share caps what merged gaps add, over all members: a piece whose
// entries lie in one tight run plus a scattered tail reads within the share
// of the exact read, merging fewer gaps than an uncapped read but more
// than none, and its values are the same.
TEST_F(Extract, GapShareCapsWhatMergedGapsAdd) {
  std::vector<int64_t> ids = all_elem_ids();
  std::vector<int64_t> w;
  for (size_t i = 0; i < ids.size(); i++)
    if (i < ids.size() / 2 || i % 3 == 0) w.push_back(ids[i]);
  mxn_idset_t W;
  ASSERT_EQ(MXN_OK, mxn_idset_from_array(w.data(), (int64_t)w.size(), &W));
  const double share = 0.08;
  struct Way {
    int64_t gap;
    double share;
    int64_t bytes = 0, runs = 0;
  } ways[] = {{0, 0}, {1000, 0}, {1000, share}};
  for (Way &way : ways) {
    mxn_extract_opts_t o{};
    o.gap = way.gap;
    o.gap_share = way.share;
    mxn_io_counters_t a = mxn_dataset_counters(ds_);
    mxn_piece_t *pc = nullptr;
    ASSERT_EQ(MXN_OK, mxn_extract(ds_, &W, &o, &pc)) << mxn_dataset_errmsg(ds_);
    mxn_io_counters_t b = mxn_dataset_counters(ds_);
    check_piece(pc, std::set<int64_t>(w.begin(), w.end()));
    // Entries only: id maps and the coordinates that settle them (read
    // once, by the first way) and sets aside.
    way.bytes = (b.bytes_read - b.map_bytes_read - b.set_bytes_read - b.check_bytes_read) -
                (a.bytes_read - a.map_bytes_read - a.set_bytes_read - a.check_bytes_read);
    way.runs = pc->stats.elem_runs + pc->stats.node_runs;
    mxn_piece_destroy(&pc);
  }
  const Way &exact = ways[0], &all = ways[1], &capped = ways[2];
  EXPECT_GT(all.bytes, (1 + share) * exact.bytes) << "the case must need the cap";
  EXPECT_LE(capped.bytes, (1 + share) * exact.bytes);
  EXPECT_GT(capped.bytes, exact.bytes) << "the cap leaves room that narrow gaps use";
  EXPECT_LT(all.runs, capped.runs);
  EXPECT_LT(capped.runs, exact.runs);
  mxn_idset_free(&W);
}

TEST_F(Extract, UnknownIdIsAnErrorNamingTheDataset) {
  int64_t bogus[] = {all_elem_ids()[0], 999999};
  mxn_idset_t W;
  ASSERT_EQ(MXN_OK, mxn_idset_from_array(bogus, 2, &W));
  mxn_piece_t *pc = nullptr;
  EXPECT_EQ(MXN_ERR_NOTFOUND, mxn_extract(ds_, &W, nullptr, &pc));
  EXPECT_EQ(nullptr, pc);
  EXPECT_NE(nullptr, strstr(mxn_dataset_errmsg(ds_), "spread.e.5.0"));
  EXPECT_NE(nullptr, strstr(mxn_dataset_errmsg(ds_), "999999"));
  mxn_idset_free(&W);
}

TEST_F(Extract, EmptyWantGivesAnEmptyPiece) {
  mxn_idset_t W = MXN_IDSET_INIT;
  mxn_piece_t *pc = nullptr;
  ASSERT_EQ(MXN_OK, mxn_extract(ds_, &W, nullptr, &pc));
  EXPECT_EQ(0, pc->num_elements);
  EXPECT_EQ(0, pc->num_nodes);
  EXPECT_EQ(MXN_OK, mxn_piece_read_step(ds_, pc, 0));
  mxn_piece_destroy(&pc);
  mxn_piece_destroy(&pc);  // NULL-safe
}

}  // namespace

namespace {

// With a file mask only the flagged members are opened and their maps
// read; ids outside them are not found.
TEST(ExtractMask, OnlyFlaggedMembersAreRead) {
  std::string dir = tmpdir("extract_mask");
  std::string mesh = generate(dir, "m.e", "--type hex --dims 8 4 4 --steps 2");
  mxn_error_t err;
  ASSERT_EQ(MXN_OK, mxn_split(mesh.c_str(), (dir + "/s.e").c_str(), 4, MXN_PART_LINEAR, nullptr,
                              nullptr, &err));
  mxn_dataset_t *ds = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, (dir + "/s.e").c_str()));
  // Linear split of ids 1..128 into 4: file 1 holds 33..64.
  std::vector<int64_t> w;
  for (int64_t id = 40; id <= 50; id++) w.push_back(id);
  mxn_idset_t W;
  ASSERT_EQ(MXN_OK, mxn_idset_from_array(w.data(), (int64_t)w.size(), &W));
  char mask[4] = {0, 1, 0, 0};
  mxn_extract_opts_t o{};
  o.file_mask = mask;
  mxn_io_counters_t before = mxn_dataset_counters(ds);
  mxn_piece_t *pc = nullptr;
  ASSERT_EQ(MXN_OK, mxn_extract(ds, &W, &o, &pc)) << mxn_dataset_errmsg(ds);
  EXPECT_EQ(11, pc->num_elements);
  EXPECT_EQ(1, pc->stats.files_in_cover);
  mxn_io_counters_t after = mxn_dataset_counters(ds);
  EXPECT_EQ(0, after.files_opened - before.files_opened) << "member 1 is already open from opening";
  mxn_piece_destroy(&pc);
  mask[1] = 0;
  mask[2] = 1;
  EXPECT_EQ(MXN_ERR_NOTFOUND, mxn_extract(ds, &W, &o, &pc));
  mxn_idset_free(&W);
  mxn_dataset_destroy(&ds);
}

}  // namespace

namespace {

// Global variables at every step: kept from member 0's summary when they
// fit (up to 131072 values), read per step from member 0 when they do not
// (here 66000 steps x 2 variables). Both give the generator's values
// (step_index = k, time_sq = t_k^2), for a single file and for a split set.
TEST(ExtractGlobals, KeptOrReadPerStepGiveTheSameValues) {
  std::string dir = mxntest::tmpdir("extract_globals");
  for (int steps : {3, 66000}) {
    std::string mesh = mxntest::generate(dir, "g" + std::to_string(steps) + ".e",
                                         "--type hex --dims 2 1 1 --steps " + std::to_string(steps));
    std::string set = dir + "/s" + std::to_string(steps) + ".e";
    mxn_error_t err;
    ASSERT_EQ(MXN_OK, mxn_split(mesh.c_str(), set.c_str(), 2, MXN_PART_LINEAR, nullptr, nullptr, &err))
        << err.msg;
    for (const std::string &path : {mesh, set}) {
      SCOPED_TRACE(path);
      WholeMesh w(path);
      ASSERT_TRUE(w.ok());
      const mxn_structure_t *s = w.s();
      ASSERT_EQ(steps, s->num_times);
      ASSERT_EQ(2, s->num_global_vars);
      for (int t : {0, steps / 2, steps - 1}) {
        ASSERT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.pc, t)) << mxn_dataset_errmsg(w.ds);
        EXPECT_EQ(double(t), w.pc->global_vars[0]) << "step " << t + 1;
        EXPECT_EQ(s->times[t] * s->times[t], w.pc->global_vars[1]) << "step " << t + 1;
      }
    }
  }
}

// A member with more blocks than fit a quarter of the dataset's arena
// chunk per array (1100 blocks: 8.8 KB of counts, truth tables of more):
// those arrays take chunks of their own beside the shared ones. The spread
// set must give what the single file gives, block by block.
TEST(ExtractBlocks, ManyBlocksGiveWhatTheSingleFileGives) {
  std::string dir = mxntest::tmpdir("extract_many_blocks");
  std::string mesh = mxntest::generate(dir, "b.e", "--type quad --dims 1100 2 --blocks 1100 --steps 2");
  std::string set = dir + "/s.e";
  mxn_error_t err;
  ASSERT_EQ(MXN_OK, mxn_split(mesh.c_str(), set.c_str(), 3, MXN_PART_LINEAR, nullptr, nullptr, &err))
      << err.msg;
  mxntest::WholeMesh one(mesh), spread(set);
  ASSERT_TRUE(one.ok());
  ASSERT_TRUE(spread.ok());
  const mxn_structure_t *a = one.s(), *b = spread.s();
  ASSERT_EQ(1100, a->num_blocks);
  ASSERT_EQ(1100, b->num_blocks);
  ASSERT_EQ(3, b->num_files);
  ASSERT_EQ(a->num_elem_vars, b->num_elem_vars);
  ASSERT_GT(b->num_elem_vars, 0);
  ASSERT_EQ(MXN_OK, mxn_piece_read_step(one.ds, one.pc, 1)) << mxn_dataset_errmsg(one.ds);
  ASSERT_EQ(MXN_OK, mxn_piece_read_step(spread.ds, spread.pc, 1)) << mxn_dataset_errmsg(spread.ds);
  std::map<int64_t, int> at;
  for (int q = 0; q < b->num_blocks; q++) at[b->blocks[q].id] = q;
  int64_t members_elems = 0;
  for (int j = 0; j < b->num_files; j++) {
    const mxn_file_domain_t *d = nullptr;
    ASSERT_EQ(MXN_OK, mxn_dataset_file_domain(spread.ds, j, &d)) << mxn_dataset_errmsg(spread.ds);
    int64_t in_blocks = 0;
    for (int q = 0; q < b->num_blocks; q++) {
      int64_t start, count;
      if (mxn_dataset_file_block(spread.ds, j, q, &start, &count) != 1) continue;
      EXPECT_EQ(in_blocks, start) << "member " << j << " block " << b->blocks[q].id;
      in_blocks += count;
    }
    EXPECT_EQ(d->num_elements, in_blocks) << "member " << j;
    members_elems += in_blocks;
  }
  EXPECT_EQ(2200, members_elems);
  for (int p = 0; p < a->num_blocks; p++) {
    SCOPED_TRACE("block " + std::to_string(a->blocks[p].id));
    ASSERT_EQ(1u, at.count(a->blocks[p].id));
    int q = at[a->blocks[p].id];
    const mxn_piece_block_t &x = one.pc->blocks[p], &y = spread.pc->blocks[q];
    ASSERT_EQ(2, x.num_elements);
    ASSERT_EQ(x.num_elements, y.num_elements);
    for (int v = 0; v < a->num_elem_vars; v++) {
      EXPECT_EQ(a->elem_var_truth[(int64_t)p * a->num_elem_vars + v],
                b->elem_var_truth[(int64_t)q * b->num_elem_vars + v]);
      ASSERT_EQ(x.elem_vars[v] == nullptr, y.elem_vars[v] == nullptr);
    }
    for (int64_t e = 0; e < x.num_elements; e++) {
      EXPECT_EQ(x.elem_ids[e], y.elem_ids[e]);
      for (int v = 0; v < a->num_elem_vars; v++)
        if (x.elem_vars[v]) EXPECT_EQ(x.elem_vars[v][e], y.elem_vars[v][e]) << "variable " << v;
    }
  }
}

}  // namespace
