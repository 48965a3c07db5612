// Some members of a spread set (issue 58: IOSS's FileRange, FileStride and
// ScanForRelatedFiles off): mxn_member_select_t through
// mxn_dataset_select_members() and mxn_load_opts_t.members. A load of the
// chosen members on N ranks (N = 1 and 3, fewer members than ranks too)
// against a serial read of the whole set restricted to what those members
// hold, by global id: elements each owned exactly once and all of them,
// the members' nodes, coordinates, nodal and element values, node and side
// set entries. The Nemesis global counts are the whole set's: no hint
// warning, counts -1. Errors (nothing chosen, a negative stride) agreed.
#include <array>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mpi_helpers.h"
#include "test_mpi.h"

using namespace mxntest;

namespace {

using Gid = long long;

// The serial read of the whole set (member j is rank j there): values by
// id at the last step, and what each member holds.
struct Reference {
  WholeMesh w;
  std::map<Gid, std::array<double, 3>> xyz;
  std::map<Gid, std::vector<double>> nodal, elem;  // by id: every variable
  std::map<Gid, std::set<Gid>> node_sets;           // by set id: node ids
  std::map<Gid, std::set<std::pair<Gid, int>>> side_sets;  // (element id, side)
  std::vector<std::set<Gid>> member_elems, member_nodes;

  explicit Reference(const std::string &path) : w(path) {
    if (!w.ok()) return;
    const mxn_structure_t *s = w.s();
    const mxn_piece_t *pc = w.pc;
    EXPECT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.pc, s->num_times - 1)) << mxn_dataset_errmsg(w.ds);
    for (int64_t i = 0; i < pc->num_nodes; i++) {
      std::array<double, 3> x{0, 0, 0};
      for (int d = 0; d < s->num_dim; d++) x[d] = pc->coord[d][i];
      xyz[pc->node_ids[i]] = x;
      for (int v = 0; v < s->num_node_vars; v++) nodal[pc->node_ids[i]].push_back(pc->node_vars[v][i]);
    }
    std::vector<Gid> concat;  // element ids over the concatenated blocks
    for (int b = 0; b < pc->num_blocks; b++)
      for (int64_t k = 0; k < pc->blocks[b].num_elements; k++) {
        concat.push_back(pc->blocks[b].elem_ids[k]);
        std::vector<double> &vals = elem[pc->blocks[b].elem_ids[k]];
        for (int v = 0; v < s->num_elem_vars; v++)
          vals.push_back(pc->blocks[b].elem_vars[v] ? pc->blocks[b].elem_vars[v][k] : -1e300);
      }
    for (int q = 0; q < pc->num_node_sets; q++)
      for (int64_t k = 0; k < pc->node_sets[q].n; k++)
        node_sets[s->node_sets[q].id].insert(pc->node_ids[pc->node_sets[q].entries[k]]);
    for (int q = 0; q < pc->num_side_sets; q++)
      for (int64_t k = 0; k < pc->side_sets[q].n; k++)
        side_sets[s->side_sets[q].id].insert({concat[pc->side_sets[q].entries[k]], pc->side_sets[q].sides[k]});
    for (int j = 0; j < s->num_files; j++) {
      const mxn_file_domain_t *d = nullptr;
      EXPECT_EQ(MXN_OK, mxn_dataset_file_domain(w.ds, j, &d)) << mxn_dataset_errmsg(w.ds);
      member_elems.emplace_back(d->elems.ids, d->elems.ids + d->elems.n);
      member_nodes.emplace_back(d->nodes.ids, d->nodes.ids + d->nodes.n);
    }
  }
};

// The ranks IOSS would read: r in [first, last) by stride when last >
// first, else all; with named >= 0 only that one. Written out by the test
// case, not computed, where it matters (see the cases below).
std::vector<int> chosen(int M, const mxn_member_select_t &sel, int named) {
  std::vector<int> out;
  for (int r = 0; r < M; r++) {
    bool in = sel.last > sel.first ? (r >= sel.first && r < sel.last &&
                                      (r - sel.first) % (sel.stride > 0 ? sel.stride : 1) == 0)
                                   : true;
    if (sel.named_only && named >= 0 && r != named) in = false;
    if (in) out.push_back(r);
  }
  return out;
}

struct Case {
  std::string set;  // base name under shared/data
  int M;
  mxn_member_select_t sel;
  int named;                // the member the path names, or -1: the base name
  std::vector<int> ranks;   // the members that must be read
  int64_t cells;            // their element count (IOSSReader's, measured)
  mxn_part_method method;
  int ghosts;
  bool via_dataset;         // mxn_dataset_open_collective + mxn_load_open_dataset
};

std::string case_path(const Case &c) {
  std::string base = shared(c.set);
  if (c.named < 0) return base;
  char name[1024];
  mxn_member_name(base.c_str(), c.M, c.named, name, sizeof name);
  return name;
}

// Open the chosen members on every rank of the world and check the load
// against the reference, by id.
void check_case(const Case &c) {
  Watchdog dog(120);
  const std::string path = case_path(c);
  Reference ref(shared(c.set));
  ASSERT_TRUE(all_ok(ref.w.ok())) << ref.w.error;
  ASSERT_EQ(chosen(c.M, c.sel, c.named), c.ranks) << "the case's members";

  // What those members hold.
  std::set<Gid> want_elems, want_nodes;
  int64_t sum = 0;
  for (int r : c.ranks) {
    want_elems.insert(ref.member_elems[r].begin(), ref.member_elems[r].end());
    want_nodes.insert(ref.member_nodes[r].begin(), ref.member_nodes[r].end());
    sum += (int64_t)ref.member_elems[r].size();
  }
  EXPECT_EQ(c.cells, (int64_t)want_elems.size()) << "IOSSReader's cell count for these members";

  mxn_load_opts_t opts;
  mxn_load_opts_init(&opts);
  opts.method = c.method;
  opts.ghost_levels = c.ghosts;
  opts.members = &c.sel;
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t *ld = nullptr;
  int st;
  if (c.via_dataset) {
    mxn_dataset_t *ds = nullptr;
    ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
    ASSERT_EQ(MXN_OK, mxn_dataset_select_members(ds, &c.sel));
    st = mxn_dataset_open_collective(MPI_COMM_WORLD, ds, path.c_str(), &err);
    expect_agreed(st, err.msg);
    if (st != MXN_OK) mxn_dataset_destroy(&ds);
    ASSERT_EQ(MXN_OK, st) << err.msg;
    EXPECT_EQ((int)c.ranks.size(), mxn_dataset_structure(ds)->num_files);
    for (int j = 0; j < (int)c.ranks.size(); j++) {
      char name[1024];
      mxn_member_name(shared(c.set).c_str(), c.M, c.ranks[j], name, sizeof name);
      EXPECT_STREQ(name, mxn_dataset_file_path(ds, j)) << "member " << j;
    }
    opts.members = nullptr;  // the dataset's own selection holds
    st = mxn_load_open_dataset(MPI_COMM_WORLD, &ds, &opts, &ld, &err);
  } else {
    st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &opts, &ld, &err);
  }
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  st = mxn_load_read_step(ld, mxn_load_structure(ld)->num_times - 1, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;

  const mxn_structure_t *s = mxn_load_structure(ld);
  const bool subset = (int)c.ranks.size() < c.M;
  EXPECT_EQ((int)c.ranks.size(), s->num_files);
  EXPECT_EQ(c.M, s->num_files_set);
  EXPECT_EQ(sum, s->num_elements_sum);
  if (subset) {
    EXPECT_EQ(-1, s->num_elements_global) << "the whole set's count is not the members'";
    EXPECT_EQ(-1, s->num_nodes_global);
  } else {
    EXPECT_EQ((int64_t)want_elems.size(), s->num_elements_global);
  }
  char warn[4 * MXN_ERRMSG_LEN];
  EXPECT_EQ(0, mxn_structure_warnings(s, warn, sizeof warn)) << warn;

  // This rank's owned elements and piece nodes, with their values.
  const mxn_piece_t *pc = mxn_load_piece(ld);
  const mxn_load_halo_t *halo = mxn_load_halo(ld);
  std::vector<Gid> owned, nodes, concat;
  int bad_values = 0;
  for (int b = 0; b < pc->num_blocks; b++) {
    const mxn_piece_block_t &B = pc->blocks[b];
    const int64_t own_end = halo && halo->block_off ? halo->block_off[b][1] : B.num_elements;
    for (int64_t k = 0; k < B.num_elements; k++) {
      const Gid id = B.elem_ids[k];
      concat.push_back(id);
      if (k < own_end) owned.push_back(id);
      auto it = ref.elem.find(id);
      if (it == ref.elem.end()) {
        bad_values++;
        continue;
      }
      for (int v = 0; v < s->num_elem_vars; v++)
        if (B.elem_vars && B.elem_vars[v] && B.elem_vars[v][k] != it->second[v]) bad_values++;
    }
  }
  for (int64_t i = 0; i < pc->num_nodes; i++) {
    const Gid id = pc->node_ids[i];
    nodes.push_back(id);
    auto x = ref.xyz.find(id);
    if (x == ref.xyz.end()) {
      bad_values++;
      continue;
    }
    for (int d = 0; d < s->num_dim; d++) bad_values += pc->coord[d][i] != x->second[d];
    for (int v = 0; v < s->num_node_vars; v++)
      bad_values += pc->node_vars && pc->node_vars[v] && pc->node_vars[v][i] != ref.nodal[id][v];
  }
  EXPECT_EQ(0, bad_values) << "rank " << mpi_rank() << ": values that differ from the serial read";

  // Sets: node ids and (element id, side) pairs of this piece.
  std::vector<Gid> set_nodes, set_sides;  // (set id, node id) / (set id, element id, side)
  for (int q = 0; q < pc->num_node_sets; q++)
    for (int64_t k = 0; k < pc->node_sets[q].n; k++) {
      set_nodes.push_back(s->node_sets[q].id);
      set_nodes.push_back(pc->node_ids[pc->node_sets[q].entries[k]]);
    }
  for (int q = 0; q < pc->num_side_sets; q++)
    for (int64_t k = 0; k < pc->side_sets[q].n; k++) {
      const int64_t at = pc->side_sets[q].entries[k];
      set_sides.push_back(s->side_sets[q].id);
      set_sides.push_back(at < (int64_t)concat.size() ? concat[at] : -1);
      set_sides.push_back(pc->side_sets[q].sides[k]);
    }

  const std::vector<Gid> all_owned = gather_all(owned);
  const std::vector<Gid> all_nodes = gather_all(nodes);
  const std::vector<Gid> all_set_nodes = gather_all(set_nodes);
  const std::vector<Gid> all_set_sides = gather_all(set_sides);
  mxn_load_close(&ld);

  // Every element of the chosen members, each owned exactly once.
  std::map<Gid, int> times;
  for (Gid id : all_owned) times[id]++;
  int twice = 0;
  for (auto &kv : times) twice += kv.second != 1;
  EXPECT_EQ(0, twice) << "elements owned by several ranks";
  std::set<Gid> got_elems(all_owned.begin(), all_owned.end());
  EXPECT_EQ(want_elems, got_elems) << "owned elements: " << got_elems.size() << " for "
                                   << want_elems.size() << " in the chosen members";
  std::set<Gid> got_nodes(all_nodes.begin(), all_nodes.end());
  EXPECT_EQ(want_nodes, got_nodes) << "nodes: " << got_nodes.size() << " for " << want_nodes.size();

  // Sets hold what the chosen members hold of them: the whole set's
  // entries on their nodes and elements.
  std::map<Gid, std::set<Gid>> got_ns;
  for (size_t i = 0; i + 1 < all_set_nodes.size(); i += 2) got_ns[all_set_nodes[i]].insert(all_set_nodes[i + 1]);
  for (auto &kv : ref.node_sets) {
    std::set<Gid> want;
    for (Gid n : kv.second)
      if (want_nodes.count(n)) want.insert(n);
    EXPECT_EQ(want, got_ns[kv.first]) << "node set " << kv.first;
  }
  std::map<Gid, std::set<std::pair<Gid, int>>> got_ss;
  for (size_t i = 0; i + 2 < all_set_sides.size(); i += 3)
    got_ss[all_set_sides[i]].insert({all_set_sides[i + 1], (int)all_set_sides[i + 2]});
  for (auto &kv : ref.side_sets) {
    std::set<std::pair<Gid, int>> want;
    for (auto &e : kv.second)
      if (want_elems.count(e.first)) want.insert(e);
    EXPECT_EQ(want, got_ss[kv.first]) << "side set " << kv.first;
  }
}

const char *DISK = "nemesis/disk_out_ref/inertial-M4/disk_out_ref.e";
const char *CRUSH = "nemesis/block_crush_1/inertial-M3/block_crush_1.e";

bool have_sets() {
  return all_ok(exists(shared(DISK) + ".4.0") && exists(shared(CRUSH) + ".3.0"));
}

#define NEED_SETS()                                                         \
  do {                                                                      \
    if (!have_sets()) GTEST_SKIP() << "shared data absent: " << shared(""); \
  } while (0)

}  // namespace

// The cases measured with IOSSReader (pvbatch, ParaView 5.11) on the
// 4-member disk_out_ref set, 1868 elements a member.
TEST(Members, RangeOfOne) {
  NEED_SETS();
  check_case({DISK, 4, {1, 2, 0, 0}, 0, {1}, 1868, MXN_PART_FILES, 0, false});
}

TEST(Members, RangeOfThree) {
  NEED_SETS();
  check_case({DISK, 4, {0, 3, 0, 0}, 0, {0, 1, 2}, 5604, MXN_PART_RCB, 1, false});
}

TEST(Members, RangeToTheEnd) {
  NEED_SETS();
  check_case({DISK, 4, {2, 4, 1, 0}, 0, {2, 3}, 3736, MXN_PART_FILES, 1, false});
}

TEST(Members, RangeWithStride) {
  NEED_SETS();
  check_case({DISK, 4, {0, 4, 2, 0}, 0, {0, 2}, 3736, MXN_PART_SFC, 0, false});
}

TEST(Members, StrideWithoutRangeReadsAll) {
  NEED_SETS();
  check_case({DISK, 4, {0, -1, 2, 0}, 0, {0, 1, 2, 3}, 7472, MXN_PART_FILES, 0, false});
  check_case({DISK, 4, {1, -1, 2, 0}, 0, {0, 1, 2, 3}, 7472, MXN_PART_FILES, 0, false});
}

TEST(Members, RangeBeyondTheSet) {
  NEED_SETS();
  check_case({DISK, 4, {2, 10, 1, 0}, 0, {2, 3}, 3736, MXN_PART_FILES, 0, false});
}

// ScanForRelatedFiles off: the member named alone; with a range, only if
// the range chooses it.
TEST(Members, NamedMemberAlone) {
  NEED_SETS();
  check_case({DISK, 4, {0, 0, 0, 1}, 2, {2}, 1868, MXN_PART_FILES, 1, false});
  check_case({DISK, 4, {2, 3, 1, 1}, 2, {2}, 1868, MXN_PART_FILES, 0, false});
  // a base name names no member: the selection's range alone
  check_case({DISK, 4, {1, 3, 1, 1}, -1, {1, 2}, 3736, MXN_PART_FILES, 0, false});
}

// The plugin's way: the information pass opens the dataset collectively
// with the selection, the load takes it over.
TEST(Members, CollectiveOpenHandedToTheLoad) {
  NEED_SETS();
  check_case({DISK, 4, {1, 4, 2, 0}, 0, {1, 3}, 3736, MXN_PART_RCB, 1, true});
}

// Element variables and several blocks (block_crush_1: hex and sphere
// blocks, 8 element variables, node and side sets), 44 elements a member.
TEST(Members, ElementValuesAndSets) {
  NEED_SETS();
  check_case({CRUSH, 3, {1, 3, 0, 0}, 0, {1, 2}, 88, MXN_PART_FILES, 1, false});
  check_case({CRUSH, 3, {0, 3, 2, 0}, 0, {0, 2}, 88, MXN_PART_RCB, 0, false});
}

// A serial open of some members and a whole extraction: the members'
// elements, and no hint warning from the extraction's count check.
TEST(Members, SerialOpenAndExtract) {
  NEED_SETS();
  mxn_dataset_t *ds = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  mxn_member_select_t sel = {0, 4, 2, 0};
  ASSERT_EQ(MXN_OK, mxn_dataset_select_members(ds, &sel));
  ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, (shared(DISK) + ".4.3").c_str())) << mxn_dataset_errmsg(ds);
  EXPECT_EQ(2, mxn_dataset_structure(ds)->num_files);
  EXPECT_EQ(shared(DISK) + ".4.2", std::string(mxn_dataset_file_path(ds, 1)));
  EXPECT_EQ(MXN_ERR_ARG, mxn_dataset_select_members(ds, &sel)) << "after the open";
  mxn_piece_t *pc = nullptr;
  ASSERT_EQ(MXN_OK, mxn_extract(ds, nullptr, nullptr, &pc)) << mxn_dataset_errmsg(ds);
  EXPECT_EQ(3736, pc->num_elements);
  char warn[4 * MXN_ERRMSG_LEN];
  EXPECT_EQ(0, mxn_structure_warnings(mxn_dataset_structure(ds), warn, sizeof warn)) << warn;
  mxn_piece_destroy(&pc);
  mxn_dataset_destroy(&ds);
}

// Only the chosen members need to exist.
TEST(Members, OthersMayBeMissing) {
  NEED_SETS();
  const std::string dir = world_tmpdir("members_missing");
  int ok = 1;
  if (mpi_rank() == 0)
    ok = run("cp '" + shared(DISK) + ".4.1' '" + shared(DISK) + ".4.2' '" + dir + "/'") == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ASSERT_TRUE(ok);
  const std::string base = dir + "/disk_out_ref.e";
  mxn_member_select_t sel = {1, 3, 1, 0};
  mxn_load_opts_t opts;
  mxn_load_opts_init(&opts);
  opts.members = &sel;
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t *ld = nullptr;
  int st = mxn_load_open(MPI_COMM_WORLD, (base + ".4.1").c_str(), &opts, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  int64_t mine = mxn_load_stats(ld).owned_elements, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(3736, all);
  mxn_load_close(&ld);
  // the whole set is not there
  st = mxn_load_open(MPI_COMM_WORLD, (base + ".4.1").c_str(), nullptr, &ld, &err);
  expect_agreed(st, err.msg);
  EXPECT_EQ(MXN_ERR_FILESET, st);
  EXPECT_NE(nullptr, strstr(err.msg, "disk_out_ref.e.4.0")) << err.msg;
}

// Nothing chosen: one clear error on every rank, naming the set and the
// range. A negative stride is refused before any open.
TEST(Members, NothingChosen) {
  NEED_SETS();
  Watchdog dog(60);
  const mxn_member_select_t cases[] = {{5, 10, 1, 0}, {0, 2, 1, 1}};
  const char *says[] = {"ranks 5 <= r < 10", "rank 2, alone; ranks 0 <= r < 2"};
  for (int i = 0; i < 2; i++) {
    mxn_load_opts_t opts;
    mxn_load_opts_init(&opts);
    opts.members = &cases[i];
    mxn_error_t err;
    mxn_error_clear(&err);
    mxn_load_t *ld = nullptr;
    int st = mxn_load_open(MPI_COMM_WORLD, (shared(DISK) + ".4.2").c_str(), &opts, &ld, &err);
    expect_agreed(st, err.msg);
    EXPECT_EQ(MXN_ERR_FILESET, st);
    EXPECT_EQ(nullptr, ld);
    EXPECT_NE(nullptr, strstr(err.msg, "chooses none of the set's 4 files")) << err.msg;
    EXPECT_NE(nullptr, strstr(err.msg, says[i])) << err.msg;
  }
  mxn_dataset_t *ds = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  const mxn_member_select_t neg = {0, 4, -1, 0};
  EXPECT_EQ(MXN_ERR_ARG, mxn_dataset_select_members(ds, &neg));
  EXPECT_NE(nullptr, strstr(mxn_dataset_errmsg(ds), "stride -1")) << mxn_dataset_errmsg(ds);
  EXPECT_EQ(MXN_ERR_ARG, mxn_dataset_select_members(nullptr, &neg));
  mxn_dataset_destroy(&ds);
  // a plain file is read whole whatever the selection
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  const mxn_member_select_t far = {5, 10, 1, 1};
  ASSERT_EQ(MXN_OK, mxn_dataset_select_members(ds, &far));
  ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, shared("meshes/disk_out_ref.ex2").c_str())) << mxn_dataset_errmsg(ds);
  EXPECT_EQ(1, mxn_dataset_structure(ds)->num_files);
  EXPECT_EQ(7472, mxn_dataset_structure(ds)->num_elements_sum);
  mxn_dataset_destroy(&ds);
}
