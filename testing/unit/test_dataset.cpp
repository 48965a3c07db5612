// Unit tests for mxn/dataset.h (and the error paths of mxn/extract.h):
// discovery of spread sets `base.M.r`, the merged structure, file domains.
//
// The happy paths run on the real data in ../shared/data (written by SEACAS
// nem_slice/nem_spread and by ParaView), checked against facts read with
// `ncdump -h`/`ncdump -v`, and against invariants that hold for any set:
// sorted domains whose positions invert the file maps, the union of element
// domains equal to the global count, Nemesis members overlapping only in
// nodes. The error paths build broken inputs in a private directory under
// MXN_TEST_TMP and check the status AND that the message names the file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "mxn/mxn.h"

#include <netcdf.h>

#include "test_support.h"

namespace fs = std::filesystem;

namespace {

using Ids = std::vector<int64_t>;

const fs::path kData = MXN_SHARED_DATA;

bool HaveData() { return fs::is_directory(kData / "meshes") && fs::is_directory(kData / "nemesis"); }

#define REQUIRE_DATA()                                                        \
  do {                                                                        \
    if (!HaveData()) GTEST_SKIP() << "shared data not found at " << kData;    \
  } while (0)

std::string D(const std::string &rel) { return (kData / rel).string(); }

// A fresh directory for the running test: MXN_TEST_TMP/test_dataset/<suite>.<name>.<pid>.
fs::path TestDir() {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path p = fs::path(MXN_TEST_TMP) / "test_dataset" /
               (std::string(info->test_suite_name()) + "." + info->name() + "." +
                std::to_string(getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Copy a (read-only) shared file to dst and make the copy writable.
void Copy(const std::string &src, const fs::path &dst) {
  fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
  fs::permissions(dst, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
}

void WriteBytes(const fs::path &dst, const std::string &bytes) {
  std::ofstream f(dst, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  ASSERT_TRUE(f.good()) << dst;
}

// The first n bytes of src.
void Truncate(const std::string &src, const fs::path &dst, size_t n) {
  std::ifstream in(src, std::ios::binary);
  std::string buf(n, '\0');
  in.read(&buf[0], std::streamsize(n));
  ASSERT_EQ(size_t(in.gcount()), n) << src << " is shorter than " << n;
  WriteBytes(dst, buf);
}

// A valid netCDF classic file that is not Exodus: one dimension n = 3, one
// int variable x(n) = 1, 2, 3 (written byte by byte, no tool needed).
std::string TinyNetcdf() {
  std::string b;
  auto u32 = [&b](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(char((v >> s) & 0xff));
  };
  auto name = [&](const char *s) {  // length, then bytes padded to 4
    u32(uint32_t(std::strlen(s)));
    b += s;
    while (b.size() % 4) b.push_back('\0');
  };
  b += "CDF";
  b.push_back('\x01');
  u32(0);                 // numrecs
  u32(0x0A), u32(1);      // NC_DIMENSION, one
  name("n"), u32(3);
  u32(0), u32(0);         // no global attributes
  u32(0x0B), u32(1);      // NC_VARIABLE, one
  name("x");
  u32(1), u32(0);         // ndims 1, dimid 0
  u32(0), u32(0);         // no variable attributes
  u32(4);                 // NC_INT
  u32(12);                // vsize
  u32(uint32_t(b.size() + 4));  // begin: right after this field
  u32(1), u32(2), u32(3);
  return b;
}

// Owns a dataset handle.
struct Ds {
  mxn_dataset_t *ds = nullptr;
  Ds() { EXPECT_EQ(mxn_dataset_create(&ds), MXN_OK); }
  Ds(const Ds &) = delete;
  Ds &operator=(const Ds &) = delete;
  ~Ds() { mxn_dataset_destroy(&ds); }
  int Open(const std::string &p) { return mxn_dataset_open(ds, p.c_str()); }
  const mxn_structure_t *S() const { return mxn_dataset_structure(ds); }
  std::string Msg() const { return mxn_dataset_errmsg(ds); }
  const mxn_file_domain_t *Dom(int j) {
    const mxn_file_domain_t *d = nullptr;
    int rc = mxn_dataset_file_domain(ds, j, &d);
    EXPECT_EQ(rc, MXN_OK) << Msg();
    EXPECT_NE(d, nullptr);
    return rc == MXN_OK ? d : nullptr;
  }
};

struct Piece {
  mxn_piece_t *p = nullptr;
  Piece() = default;
  Piece(const Piece &) = delete;
  Piece &operator=(const Piece &) = delete;
  ~Piece() { mxn_piece_destroy(&p); }
};

std::string Basename(const std::string &p) { return fs::path(p).filename().string(); }

bool EndsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Ids Vec(const mxn_idset_t &s) { return s.n ? Ids(s.ids, s.ids + s.n) : Ids(); }

// Invariants of every file domain of an open dataset; returns the unions of
// element and node ids and the sums of per-file counts.
struct Unions {
  std::set<int64_t> elems, nodes;
  int64_t elem_sum = 0, node_sum = 0;
};

void CheckDomains(Ds &d, Unions *u) {
  const mxn_structure_t *s = d.S();
  ASSERT_NE(s, nullptr);
  for (int j = 0; j < s->num_files; j++) {
    SCOPED_TRACE(mxn_dataset_file_path(d.ds, j));
    const mxn_file_domain_t *f = d.Dom(j);
    ASSERT_NE(f, nullptr);
    // Cached: the second call returns the same domain.
    const mxn_file_domain_t *again = nullptr;
    ASSERT_EQ(mxn_dataset_file_domain(d.ds, j, &again), MXN_OK);
    EXPECT_EQ(again, f);

    ASSERT_EQ(f->nodes.n, f->num_nodes) << "node ids repeat";
    ASSERT_EQ(f->elems.n, f->num_elements) << "element ids repeat";
    EXPECT_TRUE(mxn_ids_sorted_unique(f->nodes.ids, f->nodes.n));
    EXPECT_TRUE(mxn_ids_sorted_unique(f->elems.ids, f->elems.n));
    // Positions invert the maps and are a permutation of the file positions.
    std::vector<char> seen_n(size_t(f->num_nodes), 0), seen_e(size_t(f->num_elements), 0);
    for (int64_t k = 0; k < f->nodes.n; k++) {
      int64_t p = f->node_pos[k];
      ASSERT_GE(p, 0);
      ASSERT_LT(p, f->num_nodes);
      ASSERT_EQ(f->node_map[p], f->nodes.ids[k]) << "node k=" << k;
      ASSERT_FALSE(seen_n[size_t(p)]);
      seen_n[size_t(p)] = 1;
    }
    for (int64_t k = 0; k < f->elems.n; k++) {
      int64_t p = f->elem_pos[k];
      ASSERT_GE(p, 0);
      ASSERT_LT(p, f->num_elements);
      ASSERT_EQ(f->elem_map[p], f->elems.ids[k]) << "element k=" << k;
      ASSERT_FALSE(seen_e[size_t(p)]);
      seen_e[size_t(p)] = 1;
    }
    // Blocks tile the file's elements in structure order of the file.
    int64_t blk_total = 0;
    for (int b = 0; b < s->num_blocks; b++) {
      int64_t start = -1, count = -1;
      int present = mxn_dataset_file_block(d.ds, j, b, &start, &count);
      EXPECT_GE(present, 0);
      EXPECT_GE(count, 0);
      if (!present) EXPECT_EQ(count, 0);
      if (count > 0) {
        EXPECT_GE(start, 0);
        EXPECT_LE(start + count, f->num_elements);
      }
      blk_total += count;
    }
    EXPECT_EQ(blk_total, f->num_elements);
    if (u) {
      u->elems.insert(f->elems.ids, f->elems.ids + f->elems.n);
      u->nodes.insert(f->nodes.ids, f->nodes.ids + f->nodes.n);
      u->elem_sum += f->num_elements;
      u->node_sum += f->num_nodes;
    }
  }
}

// ---------- opening: plain files, members, base names ----------

TEST(DatasetOpen, PlainFileMug) {
  REQUIRE_DATA();
  Ds d;
  const std::string path = D("meshes/mug.e");
  ASSERT_EQ(d.Open(path), MXN_OK) << d.Msg();
  EXPECT_EQ(mxn_dataset_errcode(d.ds), MXN_OK);
  const mxn_structure_t *s = d.S();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->num_files, 1);
  EXPECT_EQ(std::string(mxn_dataset_file_path(d.ds, 0)), path);
  EXPECT_EQ(mxn_dataset_file_path(d.ds, 1), nullptr);
  EXPECT_EQ(mxn_dataset_file_path(d.ds, -1), nullptr);
  EXPECT_EQ(s->num_dim, 3);
  EXPECT_STREQ(s->title, "mug_blocks_out.e");
  EXPECT_EQ(s->num_nodes_sum, 3774);
  EXPECT_EQ(s->num_elements_sum, 2476);
  EXPECT_EQ(s->num_nodes_global, -1);     // no Nemesis data
  EXPECT_EQ(s->num_elements_global, -1);
  ASSERT_EQ(s->num_blocks, 2);
  EXPECT_EQ(s->blocks[0].id, 1);
  EXPECT_EQ(s->blocks[1].id, 76);
  EXPECT_EQ(s->blocks[0].num_elements, 1716);
  EXPECT_EQ(s->blocks[1].num_elements, 760);
  for (int b = 0; b < 2; b++) {
    EXPECT_STRCASEEQ(s->blocks[b].type, "HEX8");
    EXPECT_EQ(s->blocks[b].nodes_per_elem, 8);
  }
  EXPECT_EQ(s->num_node_sets, 2);
  EXPECT_EQ(s->num_side_sets, 2);
  EXPECT_EQ(s->num_times, 21);
  ASSERT_NE(s->times, nullptr);
  for (int t = 1; t < s->num_times; t++) EXPECT_GT(s->times[t], s->times[t - 1]);
  ASSERT_EQ(s->num_node_vars, 2);
  EXPECT_STREQ(s->node_var_names[0], "convected");
  EXPECT_STREQ(s->node_var_names[1], "diffused");
  ASSERT_EQ(s->num_elem_vars, 1);
  EXPECT_STREQ(s->elem_var_names[0], "aux_elem");
  ASSERT_EQ(s->num_global_vars, 1);
  EXPECT_STREQ(s->global_var_names[0], "func_pp");
  EXPECT_EQ(s->elem_var_truth[0], 1);
  EXPECT_EQ(s->elem_var_truth[1], 1);
  EXPECT_EQ(s->has_original_elem_ids, 0);
  EXPECT_EQ(s->int64_ids, 0);
  EXPECT_EQ(s->float_word_size, 8);

  Unions u;
  CheckDomains(d, &u);
  const mxn_file_domain_t *f = d.Dom(0);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->orig_elem_ids, nullptr);
  int64_t start[2], count[2];
  EXPECT_EQ(mxn_dataset_file_block(d.ds, 0, 0, &start[0], &count[0]), 1);
  EXPECT_EQ(mxn_dataset_file_block(d.ds, 0, 1, &start[1], &count[1]), 1);
  EXPECT_EQ(count[0], 1716);
  EXPECT_EQ(count[1], 760);
  EXPECT_EQ(start[0], 0);
  EXPECT_EQ(start[1], 1716);
  EXPECT_EQ(mxn_dataset_file_block(d.ds, 0, 2, &start[0], &count[0]), MXN_ERR_ARG);
  // elem_num_map starts 19, 20, 21 (ncdump): the ids are not 1..N.
  EXPECT_EQ(f->elem_map[0], 19);
  EXPECT_EQ(f->elem_map[1], 20);
  // The ids are a permutation of 1..2476, not in file order.
  EXPECT_EQ(int64_t(u.elems.size()), 2476);
  EXPECT_EQ(*u.elems.begin(), 1);
  EXPECT_EQ(*u.elems.rbegin(), 2476);
  int64_t moved = 0;
  for (int64_t k = 0; k < f->num_elements; k++) moved += f->elem_map[k] != k + 1;
  EXPECT_GT(moved, 0);
}

TEST(DatasetOpen, AnyMemberOfSpreadSet) {
  REQUIRE_DATA();
  for (int r = 0; r < 4; r++) {
    Ds d;
    const std::string path = D("nemesis/mug/inertial-M4/mug.e.4." + std::to_string(r));
    SCOPED_TRACE(path);
    ASSERT_EQ(d.Open(path), MXN_OK) << d.Msg();
    const mxn_structure_t *s = d.S();
    ASSERT_NE(s, nullptr);
    ASSERT_EQ(s->num_files, 4);
    for (int j = 0; j < 4; j++)
      EXPECT_EQ(std::string(mxn_dataset_file_path(d.ds, j)),
                D("nemesis/mug/inertial-M4/mug.e.4." + std::to_string(j)));
    EXPECT_EQ(mxn_dataset_file_path(d.ds, 4), nullptr);
    EXPECT_EQ(s->num_dim, 3);
    EXPECT_EQ(s->num_nodes_global, 3774);
    EXPECT_EQ(s->num_elements_global, 2476);
    ASSERT_EQ(s->num_blocks, 2);
    std::set<int64_t> ids{s->blocks[0].id, s->blocks[1].id};
    EXPECT_EQ(ids, (std::set<int64_t>{1, 76}));
    EXPECT_EQ(s->blocks[0].num_elements + s->blocks[1].num_elements, 2476);
    EXPECT_EQ(s->num_elements_sum, 2476);   // elements are not shared
    EXPECT_GT(s->num_nodes_sum, 3774);      // border nodes are
    EXPECT_EQ(s->num_times, 21);
    ASSERT_EQ(s->num_node_vars, 2);
    EXPECT_STREQ(s->node_var_names[0], "convected");
    EXPECT_STREQ(s->node_var_names[1], "diffused");
    ASSERT_EQ(s->num_elem_vars, 1);
    EXPECT_STREQ(s->elem_var_names[0], "aux_elem");
    EXPECT_EQ(s->num_global_vars, 1);
    EXPECT_EQ(s->num_node_sets, 2);
    EXPECT_EQ(s->num_side_sets, 2);
    EXPECT_EQ(s->has_original_elem_ids, 1);
    EXPECT_EQ(s->int64_ids, 0);
  }
}

TEST(DatasetOpen, BaseNameFindsTheSet) {
  REQUIRE_DATA();
  Ds d;
  ASSERT_FALSE(fs::exists(D("nemesis/mug/inertial-M4/mug.e")));
  ASSERT_EQ(d.Open(D("nemesis/mug/inertial-M4/mug.e")), MXN_OK) << d.Msg();
  ASSERT_EQ(d.S()->num_files, 4);
  for (int j = 0; j < 4; j++)
    EXPECT_EQ(Basename(mxn_dataset_file_path(d.ds, j)), "mug.e.4." + std::to_string(j));
  EXPECT_EQ(d.S()->num_elements_global, 2476);
  EXPECT_EQ(d.S()->num_times, 21);
}

TEST(DatasetOpen, ZeroPaddedRanks) {
  REQUIRE_DATA();
  for (const char *rel : {"nemesis/disk_out_ref/inertial-M12/disk_out_ref.e.12.03",
                          "nemesis/disk_out_ref/inertial-M12/disk_out_ref.e.12.11",
                          "nemesis/disk_out_ref/inertial-M12/disk_out_ref.e"}) {
    SCOPED_TRACE(rel);
    Ds d;
    ASSERT_EQ(d.Open(D(rel)), MXN_OK) << d.Msg();
    const mxn_structure_t *s = d.S();
    ASSERT_EQ(s->num_files, 12);
    for (int j = 0; j < 12; j++) {
      char want[16];
      std::snprintf(want, sizeof want, ".12.%02d", j);
      std::string p = mxn_dataset_file_path(d.ds, j);
      EXPECT_TRUE(EndsWith(p, want)) << p;
      EXPECT_TRUE(fs::is_regular_file(p)) << p;
    }
    EXPECT_EQ(s->num_elements_global, 7472);
    EXPECT_EQ(s->num_nodes_global, 8499);
    EXPECT_EQ(s->num_elements_sum, 7472);
    EXPECT_EQ(s->has_original_elem_ids, 0);  // disk_out_ref's ids were 1..N
  }
}

TEST(DatasetOpen, Int64Set) {
  REQUIRE_DATA();
  Ds d64, d32;
  ASSERT_EQ(d64.Open(D("nemesis/disk_out_ref/inertial-M4-int64/disk_out_ref.e.4.0")), MXN_OK)
      << d64.Msg();
  ASSERT_EQ(d32.Open(D("nemesis/disk_out_ref/inertial-M4/disk_out_ref.e.4.0")), MXN_OK)
      << d32.Msg();
  EXPECT_EQ(d64.S()->int64_ids, 1);
  EXPECT_EQ(d32.S()->int64_ids, 0);
  EXPECT_EQ(d64.S()->num_files, 4);
  EXPECT_EQ(d64.S()->num_elements_global, 7472);
  EXPECT_EQ(d64.S()->num_nodes_global, 8499);
  EXPECT_EQ(d64.S()->num_blocks, d32.S()->num_blocks);
  EXPECT_EQ(d64.S()->num_node_vars, 9);
  Unions u64, u32;
  CheckDomains(d64, &u64);
  CheckDomains(d32, &u32);
  EXPECT_EQ(int64_t(u64.elems.size()), 7472);
  EXPECT_EQ(int64_t(u64.nodes.size()), 8499);
  EXPECT_EQ(u64.elems, u32.elems);
  EXPECT_EQ(u64.nodes, u32.nodes);
}

TEST(DatasetOpen, ParaViewWaveletZeroBasedIds) {
  REQUIRE_DATA();
  Ds d;
  ASSERT_EQ(d.Open(D("spread/paraview-writer/wavelet20.ex2.3.1")), MXN_OK) << d.Msg();
  const mxn_structure_t *s = d.S();
  ASSERT_EQ(s->num_files, 3);
  EXPECT_EQ(s->num_elements_global, -1);  // no Nemesis metadata
  EXPECT_EQ(s->num_elements_sum, 8000);
  Unions u;
  CheckDomains(d, &u);
  ASSERT_EQ(int64_t(u.elems.size()), 8000);
  EXPECT_EQ(*u.elems.begin(), 0);
  EXPECT_EQ(*u.elems.rbegin(), 7999);  // so exactly 0..7999
  EXPECT_EQ(u.elem_sum, 8000);         // and no element in two files
  EXPECT_EQ(int64_t(u.nodes.size()), 21 * 21 * 21);
}

TEST(DatasetOpen, ParaViewDiskEmptyBlocks) {
  REQUIRE_DATA();
  Ds d;
  ASSERT_EQ(d.Open(D("spread/paraview-writer/disk4.ex2.4.2")), MXN_OK) << d.Msg();
  const mxn_structure_t *s = d.S();
  ASSERT_EQ(s->num_files, 4);
  ASSERT_EQ(s->num_blocks, 12);
  int empty = 0;
  for (int b = 0; b < s->num_blocks; b++) {
    if (s->blocks[b].num_elements == 0) {
      empty++;
    } else {
      EXPECT_EQ(s->blocks[b].id, 12);
      EXPECT_EQ(s->blocks[b].num_elements, 7472);
      EXPECT_EQ(s->blocks[b].nodes_per_elem, 8);
    }
  }
  EXPECT_EQ(empty, 11);
  Unions u;
  CheckDomains(d, &u);
  EXPECT_EQ(int64_t(u.elems.size()), 7472);
  EXPECT_EQ(u.elem_sum, 7472);
}

TEST(DatasetOpen, CoarseGrid2D) {
  REQUIRE_DATA();
  for (const char *rel : {"meshes/coarseGrid.e", "nemesis/coarseGrid/inertial-M4/coarseGrid.e.4.1",
                          "nemesis/coarseGrid/random-M3/coarseGrid.e.3.2"}) {
    SCOPED_TRACE(rel);
    Ds d;
    ASSERT_EQ(d.Open(D(rel)), MXN_OK) << d.Msg();
    EXPECT_EQ(d.S()->num_dim, 2);
    EXPECT_EQ(d.S()->num_elements_sum, 100);
    // Names with junk after the NUL come back printable.
    for (int b = 0; b < d.S()->num_blocks; b++)
      for (const char *c = d.S()->blocks[b].name; *c; c++) EXPECT_TRUE(std::isprint((unsigned char)*c));
    Unions u;
    CheckDomains(d, &u);
    EXPECT_EQ(int64_t(u.elems.size()), 100);
    EXPECT_EQ(int64_t(u.nodes.size()), 121);
  }
}

TEST(DatasetOpen, DiskOutRefPlain) {
  REQUIRE_DATA();
  Ds d;
  ASSERT_EQ(d.Open(D("meshes/disk_out_ref.ex2")), MXN_OK) << d.Msg();
  EXPECT_EQ(d.S()->num_files, 1);
  EXPECT_EQ(d.S()->num_elements_sum, 7472);
  EXPECT_EQ(d.S()->num_nodes_sum, 8499);
  EXPECT_EQ(d.S()->num_node_vars, 9);
  EXPECT_EQ(d.S()->num_times, 1);
  EXPECT_EQ(d.S()->num_node_sets, 3);
  EXPECT_EQ(d.S()->num_side_sets, 7);
}

// ---------- nem_spread's original element ids ----------

TEST(DatasetOriginalIds, MugSetsKeepOriginalIds) {
  REQUIRE_DATA();
  Ds serial;
  ASSERT_EQ(serial.Open(D("meshes/mug.e")), MXN_OK) << serial.Msg();
  const mxn_file_domain_t *sd = serial.Dom(0);
  ASSERT_NE(sd, nullptr);
  for (const char *rel : {"nemesis/mug/inertial-M4/mug.e.4.0", "nemesis/mug/multikl-M3/mug.e.3.0"}) {
    SCOPED_TRACE(rel);
    Ds d;
    ASSERT_EQ(d.Open(D(rel)), MXN_OK) << d.Msg();
    ASSERT_EQ(d.S()->has_original_elem_ids, 1);
    int files_differing = 0;
    for (int j = 0; j < d.S()->num_files; j++) {
      const mxn_file_domain_t *f = d.Dom(j);
      ASSERT_NE(f, nullptr);
      ASSERT_NE(f->orig_elem_ids, nullptr);
      bool differs = false;
      for (int64_t k = 0; k < f->num_elements; k++) {
        // elem_num_map is the 1-based position in the serial mesh, and the
        // original id is the serial mesh's id at that position.
        int64_t pos = f->elem_map[k];
        ASSERT_GE(pos, 1);
        ASSERT_LE(pos, sd->num_elements);
        ASSERT_EQ(f->orig_elem_ids[k], sd->elem_map[pos - 1]) << "file " << j << " k=" << k;
        if (f->orig_elem_ids[k] != f->elem_map[k]) differs = true;
      }
      files_differing += differs;
    }
    EXPECT_EQ(files_differing, d.S()->num_files) << "every part holds elements with ids != position";
  }
}

TEST(DatasetOriginalIds, AbsentWhereNotRecorded) {
  REQUIRE_DATA();
  Ds d;
  ASSERT_EQ(d.Open(D("nemesis/disk_out_ref/inertial-M4/disk_out_ref.e.4.0")), MXN_OK) << d.Msg();
  EXPECT_EQ(d.S()->has_original_elem_ids, 0);
  const mxn_file_domain_t *f = d.Dom(0);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->orig_elem_ids, nullptr);
}

// ---------- file domains ----------

TEST(DatasetDomains, NemesisSetsOverlapOnlyInNodes) {
  REQUIRE_DATA();
  for (const char *rel :
       {"nemesis/mug/inertial-M4/mug.e.4.0", "nemesis/mug/multikl-M3/mug.e.3.0",
        "nemesis/disk_out_ref/inertial-M12/disk_out_ref.e.12.00",
        "nemesis/disk_out_ref/multikl-M7/disk_out_ref.e.7.0",
        "nemesis/coarseGrid/random-M3/coarseGrid.e.3.0",
        "nemesis/block_crush_1/inertial-M3/block_crush_1.e.3.0",
        "nemesis/block_crush_1/scattered-M3/block_crush_1.e.3.0"}) {
    SCOPED_TRACE(rel);
    Ds d;
    ASSERT_EQ(d.Open(D(rel)), MXN_OK) << d.Msg();
    const mxn_structure_t *s = d.S();
    ASSERT_GT(s->num_files, 1);
    ASSERT_GT(s->num_elements_global, 0);
    Unions u;
    CheckDomains(d, &u);
    EXPECT_EQ(int64_t(u.elems.size()), s->num_elements_global);
    EXPECT_EQ(int64_t(u.nodes.size()), s->num_nodes_global);
    EXPECT_EQ(u.elem_sum, int64_t(u.elems.size())) << "an element is in two files";
    EXPECT_GT(u.node_sum, int64_t(u.nodes.size())) << "parts share no border node";
    EXPECT_EQ(u.elem_sum, s->num_elements_sum);
    EXPECT_EQ(u.node_sum, s->num_nodes_sum);
    // Nemesis maps hold 1-based positions in the serial mesh: 1..N exactly.
    EXPECT_EQ(*u.elems.begin(), 1);
    EXPECT_EQ(*u.elems.rbegin(), s->num_elements_global);
    int64_t blk_sum = 0;
    for (int b = 0; b < s->num_blocks; b++) blk_sum += s->blocks[b].num_elements;
    EXPECT_EQ(blk_sum, s->num_elements_global);
  }
}

TEST(DatasetDomains, OutOfRangeFileIndex) {
  REQUIRE_DATA();
  Ds d;
  ASSERT_EQ(d.Open(D("nemesis/mug/inertial-M4/mug.e.4.0")), MXN_OK) << d.Msg();
  const mxn_file_domain_t *f = nullptr;
  EXPECT_EQ(mxn_dataset_file_domain(d.ds, 4, &f), MXN_ERR_ARG);
  EXPECT_EQ(f, nullptr);
  EXPECT_EQ(mxn_dataset_file_domain(d.ds, -1, &f), MXN_ERR_ARG);
  EXPECT_EQ(f, nullptr);
  EXPECT_EQ(mxn_dataset_file_domain(d.ds, 0, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dataset_file_domain(nullptr, 0, &f), MXN_ERR_ARG);
  // The handle still works after the rejected calls.
  EXPECT_EQ(mxn_dataset_file_domain(d.ds, 3, &f), MXN_OK) << d.Msg();
  EXPECT_NE(f, nullptr);
}

TEST(DatasetDomains, NotOpenHandle) {
  Ds d;
  const mxn_file_domain_t *f = nullptr;
  EXPECT_EQ(mxn_dataset_file_domain(d.ds, 0, &f), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dataset_structure(d.ds), nullptr);
  EXPECT_EQ(mxn_dataset_file_path(d.ds, 0), nullptr);
  EXPECT_EQ(mxn_dataset_errcode(d.ds), MXN_OK);
  EXPECT_STREQ(mxn_dataset_errmsg(d.ds), "");
}

// ---------- handle life cycle ----------

TEST(DatasetHandle, DestroyNullAndTwice) {
  mxn_dataset_destroy(nullptr);
  mxn_dataset_t *ds = nullptr;
  mxn_dataset_destroy(&ds);
  EXPECT_EQ(ds, nullptr);
  ASSERT_EQ(mxn_dataset_create(&ds), MXN_OK);
  ASSERT_NE(ds, nullptr);
  mxn_dataset_destroy(&ds);
  EXPECT_EQ(ds, nullptr);
  mxn_dataset_destroy(&ds);  // second destroy of the same handle variable
  EXPECT_EQ(ds, nullptr);
  EXPECT_EQ(mxn_dataset_create(nullptr), MXN_ERR_ARG);
  EXPECT_STRNE(mxn_dataset_errmsg(nullptr), nullptr);
  EXPECT_EQ(mxn_dataset_errcode(nullptr), MXN_ERR_ARG);
}

TEST(DatasetHandle, DestroyAfterFailedOpenAndAfterUse) {
  fs::path dir = TestDir();
  {
    mxn_dataset_t *ds = nullptr;
    ASSERT_EQ(mxn_dataset_create(&ds), MXN_OK);
    EXPECT_EQ(mxn_dataset_open(ds, (dir / "missing.e").c_str()), MXN_ERR_IO);
    mxn_dataset_destroy(&ds);
    EXPECT_EQ(ds, nullptr);
    mxn_dataset_destroy(&ds);
  }
  if (!HaveData()) return;
  mxn_dataset_t *ds = nullptr;
  ASSERT_EQ(mxn_dataset_create(&ds), MXN_OK);
  ASSERT_EQ(mxn_dataset_open(ds, D("nemesis/mug/inertial-M4/mug.e.4.0").c_str()), MXN_OK);
  const mxn_file_domain_t *f = nullptr;
  ASSERT_EQ(mxn_dataset_file_domain(ds, 2, &f), MXN_OK);
  // A handle holds one dataset.
  EXPECT_EQ(mxn_dataset_open(ds, D("meshes/mug.e").c_str()), MXN_ERR_ARG);
  mxn_dataset_destroy(&ds);
  EXPECT_EQ(ds, nullptr);
  mxn_dataset_destroy(&ds);
}

TEST(DatasetHandle, NullArguments) {
  Ds d;
  EXPECT_EQ(mxn_dataset_open(nullptr, "x"), MXN_ERR_ARG);
  EXPECT_EQ(d.Open(""), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dataset_open(d.ds, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dataset_errcode(d.ds), MXN_ERR_ARG);
}

// ---------- error paths: status AND the offending file named ----------

// Open `path` in a fresh handle; expect `status` and the message to name `who`.
// The core never prints, not even through the Exodus library.
void ExpectOpenError(const std::string &path, int status, const std::string &who) {
  Ds d;
  ::testing::internal::CaptureStderr();
  int rc = d.Open(path);
  std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed, "") << "the core printed while opening " << path;
  EXPECT_EQ(rc, status) << "got " << mxn_strerror(rc) << ": " << d.Msg();
  EXPECT_EQ(mxn_dataset_errcode(d.ds), status);
  EXPECT_NE(d.Msg().find(who), std::string::npos) << "message does not name " << who << ": " << d.Msg();
  EXPECT_EQ(d.S(), nullptr) << "a failed open must not expose a structure";
}

TEST(DatasetErrors, MissingPath) {
  fs::path dir = TestDir();
  ExpectOpenError((dir / "nosuch.e").string(), MXN_ERR_IO, (dir / "nosuch.e").string());
  ExpectOpenError((dir / "nodir" / "x.e").string(), MXN_ERR_IO, (dir / "nodir" / "x.e").string());
}

TEST(DatasetErrors, ZeroByteFile) {
  fs::path dir = TestDir();
  WriteBytes(dir / "empty.e", "");
  ExpectOpenError((dir / "empty.e").string(), MXN_ERR_FORMAT, (dir / "empty.e").string());
  // The same as a member of a set.
  WriteBytes(dir / "z.e.2.0", "");
  WriteBytes(dir / "z.e.2.1", "");
  ExpectOpenError((dir / "z.e.2.1").string(), MXN_ERR_FORMAT, (dir / "z.e.2.0").string());
}

TEST(DatasetErrors, TextFile) {
  fs::path dir = TestDir();
  WriteBytes(dir / "text.e", "this is not an Exodus file\n");
  ExpectOpenError((dir / "text.e").string(), MXN_ERR_FORMAT, (dir / "text.e").string());
}

TEST(DatasetErrors, NetcdfButNotExodus) {
  fs::path dir = TestDir();
  WriteBytes(dir / "plain.nc", TinyNetcdf());
  ExpectOpenError((dir / "plain.nc").string(), MXN_ERR_FORMAT, (dir / "plain.nc").string());
}

// Attributes Exodus 6.02 reads into fixed buffers, too long for them in an
// otherwise sound netCDF-3 file (a stack overwrite in Exodus, found by
// fuzz_dataset): refused on open with what is wrong, before Exodus sees
// the file; the header walk finds them, so no netCDF open is needed. A
// netCDF-4 file is checked the same way after netCDF's own open.
TEST(DatasetErrors, ExodusAttributesTooLong) {
  fs::path dir = TestDir();
  const std::string good = mxntest::generate(dir.string(), "good.e", "--type hex --dims 2 2 1 --steps 1");
  // The same file as netCDF-4 (HDF5) goes through netCDF's own open.
  const std::string good4 = (dir / "good4.e").string();
  ASSERT_EQ(0, mxntest::run("nccopy -k nc4 '" + good + "' '" + good4 + "'"));
  auto damaged = [&](const std::string &name, int var_of_connect1, size_t len,
                     const std::string &from = "") {
    fs::path p = dir / name;
    fs::copy_file(from.empty() ? good : from, p, fs::copy_options::overwrite_existing);
    int nc, var = NC_GLOBAL;
    EXPECT_EQ(NC_NOERR, nc_open(p.c_str(), NC_WRITE, &nc));
    if (var_of_connect1) EXPECT_EQ(NC_NOERR, nc_inq_varid(nc, "connect1", &var));
    EXPECT_EQ(NC_NOERR, nc_redef(nc));
    std::string text(len, 'X');
    EXPECT_EQ(NC_NOERR, nc_put_att_text(nc, var, var_of_connect1 ? "elem_type" : "title", len, text.c_str()));
    EXPECT_EQ(NC_NOERR, nc_close(nc));
    return p.string();
  };
  const std::string title = damaged("title.e", 0, 120);
  ExpectOpenError(title, MXN_ERR_FORMAT, title);
  ExpectOpenError(title, MXN_ERR_FORMAT, "a title of 120 characters (at most 81)");
  const std::string type = damaged("type.e", 1, 40);
  ExpectOpenError(type, MXN_ERR_FORMAT, "attribute 'elem_type' of 'connect1' has 40 characters (at most 33)");
  const std::string title4 = damaged("title4.e", 0, 120, good4);
  ExpectOpenError(title4, MXN_ERR_FORMAT, "a title of 120 characters (at most 81)");
  const std::string type4 = damaged("type4.e", 1, 40, good4);
  ExpectOpenError(type4, MXN_ERR_FORMAT, "attribute 'elem_type' of 'connect1' has 40 characters (at most 33)");
  // At the limits all open.
  for (const std::string &ok : {damaged("title81.e", 0, 81), damaged("type33.e", 1, 33),
                                damaged("title81_4.e", 0, 81, good4), damaged("type33_4.e", 1, 33, good4)}) {
    Ds d;
    EXPECT_EQ(MXN_OK, d.Open(ok)) << d.Msg();
  }
}

TEST(DatasetErrors, TruncatedHeader) {
  REQUIRE_DATA();
  fs::path dir = TestDir();
  Truncate(D("meshes/mug.e"), dir / "trunc.e", 1000);
  ExpectOpenError((dir / "trunc.e").string(), MXN_ERR_FORMAT, (dir / "trunc.e").string());
  // netCDF-4 (HDF5) too.
  Truncate(D("nemesis/disk_out_ref/inertial-M4-int64/disk_out_ref.e.4.0"), dir / "t64.e", 1000);
  ExpectOpenError((dir / "t64.e").string(), MXN_ERR_FORMAT, (dir / "t64.e").string());
}

// Header intact, data cut off: netCDF-3 reads past the end as zeros, so this
// must be caught before any value is trusted.
TEST(DatasetErrors, TruncatedData) {
  REQUIRE_DATA();
  fs::path dir = TestDir();
  const std::string src = D("meshes/mug.e");
  const size_t size = size_t(fs::file_size(src));
  for (size_t n : {size_t(20000), size / 5, size / 2, size - 100000}) {
    SCOPED_TRACE(n);
    fs::path p = dir / ("cut" + std::to_string(n) + ".e");
    Truncate(src, p, n);
    ExpectOpenError(p.string(), MXN_ERR_FORMAT, p.string());
  }
  // A truncated member of a set is named, not member 0.
  fs::path set = dir / "set";
  fs::create_directories(set);
  for (int j = 0; j < 4; j++)
    Copy(D("nemesis/mug/inertial-M4/mug.e.4." + std::to_string(j)), set / ("mug.e.4." + std::to_string(j)));
  const std::string m2 = D("nemesis/mug/inertial-M4/mug.e.4.2");
  Truncate(m2, set / "mug.e.4.2", size_t(fs::file_size(m2)) / 2);
  ExpectOpenError((set / "mug.e.4.0").string(), MXN_ERR_FORMAT, (set / "mug.e.4.2").string());
  // The intact original still opens (the check does not reject good files).
  Ds ok;
  EXPECT_EQ(ok.Open(src), MXN_OK) << ok.Msg();
}

TEST(DatasetErrors, SpreadSetMemberMissing) {
  REQUIRE_DATA();
  fs::path dir = TestDir();
  for (int j : {0, 1, 3})
    Copy(D("nemesis/mug/inertial-M4/mug.e.4." + std::to_string(j)), dir / ("mug.e.4." + std::to_string(j)));
  const std::string missing = (dir / "mug.e.4.2").string();
  ExpectOpenError((dir / "mug.e.4.0").string(), MXN_ERR_FILESET, missing);
  ExpectOpenError((dir / "mug.e.4.3").string(), MXN_ERR_FILESET, missing);
  ExpectOpenError((dir / "mug.e").string(), MXN_ERR_FILESET, missing);
  // Member 0 missing, opened by base name and by another member.
  fs::remove(dir / "mug.e.4.0");
  Copy(D("nemesis/mug/inertial-M4/mug.e.4.2"), dir / "mug.e.4.2");
  ExpectOpenError((dir / "mug.e").string(), MXN_ERR_FILESET, (dir / "mug.e.4.0").string());
  ExpectOpenError((dir / "mug.e.4.1").string(), MXN_ERR_FILESET, (dir / "mug.e.4.0").string());
  // Members are found in one listing of the directory: a directory in a
  // member's place, or a member named with another width of its rank, is
  // missing; a link to a member is one (the listing does not say, a stat
  // does).
  fs::create_directories(dir / "mug.e.4.0");
  ExpectOpenError((dir / "mug.e").string(), MXN_ERR_FILESET, (dir / "mug.e.4.0").string());
  fs::remove(dir / "mug.e.4.0");
  Copy(D("nemesis/mug/inertial-M4/mug.e.4.0"), dir / "mug.e.4.00");
  ExpectOpenError((dir / "mug.e.4.1").string(), MXN_ERR_FILESET, (dir / "mug.e.4.0").string());
  fs::create_symlink(dir / "mug.e.4.00", dir / "mug.e.4.0");
  fs::rename(dir / "mug.e.4.00", dir / "other.e");
  fs::remove(dir / "mug.e.4.0");
  fs::create_symlink(dir / "other.e", dir / "mug.e.4.0");
  Ds linked;
  EXPECT_EQ(linked.Open((dir / "mug.e.4.1").string()), MXN_OK) << linked.Msg();
  EXPECT_EQ(mxn_dataset_structure(linked.ds)->num_files, 4);
}

TEST(DatasetErrors, MembersOfDifferentDatasets) {
  REQUIRE_DATA();
  fs::path dir = TestDir();
  for (int j = 0; j < 3; j++)
    Copy(D("nemesis/coarseGrid/inertial-M4/coarseGrid.e.4." + std::to_string(j)),
         dir / ("coarseGrid.e.4." + std::to_string(j)));
  Copy(D("nemesis/disk_out_ref/inertial-M4/disk_out_ref.e.4.3"), dir / "coarseGrid.e.4.3");
  const std::string intruder = (dir / "coarseGrid.e.4.3").string();
  for (const char *open : {"coarseGrid.e.4.0", "coarseGrid.e.4.3", "coarseGrid.e"}) {
    SCOPED_TRACE(open);
    Ds d;
    int rc = d.Open((dir / open).string());
    EXPECT_TRUE(rc == MXN_ERR_INCONSISTENT || rc == MXN_ERR_FILESET)
        << "got " << mxn_strerror(rc) << ": " << d.Msg();
    EXPECT_EQ(mxn_dataset_errcode(d.ds), rc);
    EXPECT_NE(d.Msg().find(intruder), std::string::npos) << d.Msg();
  }
  // A member of another decomposition of the same mesh (random-M3 renamed
  // into the 4-file set): its Nemesis data declares 3 files.
  fs::path dir2 = dir / "m3";
  fs::create_directories(dir2);
  for (int j = 0; j < 3; j++)
    Copy(D("nemesis/coarseGrid/inertial-M4/coarseGrid.e.4." + std::to_string(j)),
         dir2 / ("coarseGrid.e.4." + std::to_string(j)));
  Copy(D("nemesis/coarseGrid/random-M3/coarseGrid.e.3.2"), dir2 / "coarseGrid.e.4.3");
  ExpectOpenError((dir2 / "coarseGrid.e.4.0").string(), MXN_ERR_FILESET,
                  (dir2 / "coarseGrid.e.4.3").string());
}

TEST(DatasetErrors, StrayMember) {
  REQUIRE_DATA();
  fs::path dir = TestDir();
  for (int j = 0; j < 4; j++)
    Copy(D("nemesis/mug/inertial-M4/mug.e.4." + std::to_string(j)), dir / ("mug.e.4." + std::to_string(j)));
  Copy(D("nemesis/mug/inertial-M4/mug.e.4.0"), dir / "mug.e.4.7");
  const std::string stray = (dir / "mug.e.4.7").string();
  ExpectOpenError((dir / "mug.e.4.0").string(), MXN_ERR_FILESET, stray);
  ExpectOpenError((dir / "mug.e.4.2").string(), MXN_ERR_FILESET, stray);
  ExpectOpenError((dir / "mug.e").string(), MXN_ERR_FILESET, stray);
  // Without the stray the copy opens.
  fs::remove(stray);
  Ds d;
  EXPECT_EQ(d.Open((dir / "mug.e.4.0").string()), MXN_OK) << d.Msg();
}

TEST(DatasetErrors, SpreadSetWithoutIdMaps) {
  REQUIRE_DATA();
  fs::path dir = TestDir();
  // block_crush_1.ex2 stores neither node_num_map nor elem_num_map: fine
  // alone (ids 1..N), meaningless as a member of a set.
  {
    Ds alone;
    ASSERT_EQ(alone.Open(D("meshes/block_crush_1.ex2")), MXN_OK) << alone.Msg();
    const mxn_file_domain_t *f = alone.Dom(0);
    ASSERT_NE(f, nullptr);
    for (int64_t k = 0; k < f->num_elements; k++) ASSERT_EQ(f->elem_map[k], k + 1);
    for (int64_t k = 0; k < f->num_nodes; k++) ASSERT_EQ(f->node_map[k], k + 1);
  }
  Copy(D("meshes/block_crush_1.ex2"), dir / "x.e.2.0");
  Copy(D("meshes/block_crush_1.ex2"), dir / "x.e.2.1");
  Ds d;
  int rc = d.Open((dir / "x.e.2.1").string());
  if (rc == MXN_OK) {  // the header allows reporting it on first domain use
    const mxn_file_domain_t *f = nullptr;
    rc = mxn_dataset_file_domain(d.ds, 0, &f);
  }
  EXPECT_EQ(rc, MXN_ERR_NOMAP) << "got " << mxn_strerror(rc) << ": " << d.Msg();
  EXPECT_EQ(mxn_dataset_errcode(d.ds), MXN_ERR_NOMAP);
  EXPECT_NE(d.Msg().find((dir / "x.e.2.0").string()), std::string::npos) << d.Msg();
}

TEST(DatasetErrors, DuplicatedMember) {
  REQUIRE_DATA();
  // Member 0 copied under the name of member 1: every file is valid, and
  // the set holds fewer distinct elements than its Nemesis global count
  // says. That count is a writer's hint (issue 58: frameworks that adapt
  // the mesh leave it stale): what the members hold is read, and the
  // disagreement said once, naming member 0 and both numbers.
  fs::path dir = TestDir();
  Copy(D("nemesis/mug/multikl-M3/mug.e.3.0"), dir / "dup.e.3.0");
  Copy(D("nemesis/mug/multikl-M3/mug.e.3.0"), dir / "dup.e.3.1");
  Copy(D("nemesis/mug/multikl-M3/mug.e.3.2"), dir / "dup.e.3.2");
  Ds d;
  ASSERT_EQ(d.Open((dir / "dup.e.3.0").string()), MXN_OK) << d.Msg();
  mxn_piece_t *pc = nullptr;
  ASSERT_EQ(mxn_extract(d.ds, nullptr, nullptr, &pc), MXN_OK) << d.Msg();
  const int64_t held = pc->num_elements;
  EXPECT_LT(held, 2476);
  mxn_piece_destroy(&pc);
  const std::string w = mxn_dataset_structure(d.ds)->hint_warning;
  EXPECT_EQ(w, (dir / "dup.e.3.0").string() + ": the members hold " + std::to_string(held) +
                   " distinct element ids where their Nemesis global counts say 2476; going on "
                   "with what the members hold");
  EXPECT_EQ(mxn_dataset_structure(d.ds)->num_elements_global, held);
  // A join of it holds what the members hold, and says so.
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_form_report_t rep;
  const fs::path out = dir / "joined.e";
  ASSERT_EQ(mxn_join((dir / "dup.e.3.0").c_str(), out.c_str(), nullptr, &rep, &err), MXN_OK) << err.msg;
  EXPECT_EQ(rep.num_elements, held);
  EXPECT_EQ(std::string(rep.warnings), w);
}

// ---------- extraction error paths ----------

TEST(ExtractErrors, WantedIdInNoFile) {
  REQUIRE_DATA();
  Ds d;
  const std::string path = D("nemesis/mug/inertial-M4/mug.e.4.1");
  ASSERT_EQ(d.Open(path), MXN_OK) << d.Msg();
  Ids want_v = {1, 2, 3, 999999};
  mxn_idset_t want = MXN_IDSET_INIT;
  ASSERT_EQ(mxn_idset_from_array(want_v.data(), int64_t(want_v.size()), &want), MXN_OK);
  mxn_piece_t dummy;
  mxn_piece_t *out = &dummy;  // must be reset to NULL on failure
  int rc = mxn_extract(d.ds, &want, nullptr, &out);
  mxn_idset_free(&want);
  EXPECT_EQ(rc, MXN_ERR_NOTFOUND) << d.Msg();
  EXPECT_EQ(out, nullptr);
  if (out != &dummy) mxn_piece_destroy(&out);
  EXPECT_EQ(mxn_dataset_errcode(d.ds), MXN_ERR_NOTFOUND);
  EXPECT_NE(d.Msg().find("999999"), std::string::npos) << d.Msg();
  EXPECT_NE(d.Msg().find(D("nemesis/mug/inertial-M4/mug.e.4.")), std::string::npos) << d.Msg();

  // The handle is still usable: a valid request succeeds afterwards.
  Ids ok_v = {1, 2, 3};
  ASSERT_EQ(mxn_idset_from_array(ok_v.data(), 3, &want), MXN_OK);
  Piece ok;
  EXPECT_EQ(mxn_extract(d.ds, &want, nullptr, &ok.p), MXN_OK) << d.Msg();
  mxn_idset_free(&want);
  ASSERT_NE(ok.p, nullptr);
  EXPECT_EQ(ok.p->num_elements, 3);
}

TEST(ExtractErrors, NotOpenOrNull) {
  Ds d;
  Piece pc;
  EXPECT_EQ(mxn_extract(d.ds, nullptr, nullptr, &pc.p), MXN_ERR_ARG);
  EXPECT_EQ(pc.p, nullptr);
  EXPECT_EQ(mxn_extract(nullptr, nullptr, nullptr, &pc.p), MXN_ERR_ARG);
  EXPECT_EQ(mxn_extract(d.ds, nullptr, nullptr, nullptr), MXN_ERR_ARG);
  mxn_piece_destroy(nullptr);
  mxn_piece_t *none = nullptr;
  mxn_piece_destroy(&none);
}

TEST(ExtractErrors, ReadStepOutOfRange) {
  REQUIRE_DATA();
  Ds d;
  ASSERT_EQ(d.Open(D("nemesis/mug/inertial-M4/mug.e.4.0")), MXN_OK) << d.Msg();
  Ids v = {5, 6, 7, 800};
  mxn_idset_t want = MXN_IDSET_INIT;
  ASSERT_EQ(mxn_idset_from_array(v.data(), int64_t(v.size()), &want), MXN_OK);
  Piece pc;
  ASSERT_EQ(mxn_extract(d.ds, &want, nullptr, &pc.p), MXN_OK) << d.Msg();
  mxn_idset_free(&want);
  for (int step : {-1, 21, 1000}) {
    SCOPED_TRACE(step);
    EXPECT_EQ(mxn_piece_read_step(d.ds, pc.p, step), MXN_ERR_ARG);
    EXPECT_EQ(mxn_dataset_errcode(d.ds), MXN_ERR_ARG);
    EXPECT_NE(d.Msg().find("mug.e.4."), std::string::npos) << d.Msg();
    EXPECT_EQ(pc.p->step, -1) << "a rejected step must not change the piece";
  }
  EXPECT_EQ(mxn_piece_read_step(d.ds, nullptr, 0), MXN_ERR_ARG);
  EXPECT_EQ(mxn_piece_read_step(nullptr, pc.p, 0), MXN_ERR_ARG);
  // In range: the last step reads.
  EXPECT_EQ(mxn_piece_read_step(d.ds, pc.p, 20), MXN_OK) << d.Msg();
  EXPECT_EQ(pc.p->step, 20);
}

}  // namespace
