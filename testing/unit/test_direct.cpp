// Direct reads of netCDF-3 members (nc3check.h, nc3exo.h) against Exodus:
// the member summaries must be the same bytes and whole datasets the same
// values, on generated sets and on every shared dataset (meshes, Nemesis
// sets, ParaView-written sets). The core's switch mxn__direct_reads picks
// the way (1: direct where a member is netCDF-3, 0: Exodus for all).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "mxn/compare.h"
#include "mxn/forms.h"
#include "mxn/mxn.h"
#include "test_support.h"

extern "C" {
int mxn__dataset_discover(mxn_dataset_t *ds, const char *path);
int mxn__member_summary(mxn_dataset_t *ds, int j, int skip, char **buf, size_t *len);
extern int mxn__direct_reads;
extern long mxn__direct_summaries;
}

namespace {

using mxntest::exists;
using mxntest::shared;

// The first member of every shared dataset, and whether it is netCDF-3
// (the int64 Nemesis set is netCDF-4: read through Exodus either way).
std::vector<std::string> shared_sets() {
  std::vector<std::string> out;
  if (!mxntest::have_shared()) return out;
  for (const auto &m : mxntest::shared_meshes()) out.push_back(shared("meshes/" + m));
  for (const auto &mesh : std::filesystem::directory_iterator(shared("nemesis"))) {
    for (const auto &set : std::filesystem::directory_iterator(mesh.path())) {
      std::vector<std::string> files;
      for (const auto &f : std::filesystem::directory_iterator(set.path()))
        files.push_back(f.path().string());
      std::sort(files.begin(), files.end());
      if (!files.empty()) out.push_back(files.front());
    }
  }
  out.push_back(shared("spread/paraview-writer/disk4.ex2.4.0"));
  out.push_back(shared("spread/paraview-writer/wavelet20.ex2.3.0"));
  return out;
}

// Members of the set `path` names: M of "base.M.r", else 1.
int members_of(const std::string &path) {
  size_t r = path.find_last_of('.');
  if (r == std::string::npos || r == 0) return 1;
  size_t m = path.find_last_of('.', r - 1);
  if (m == std::string::npos) return 1;
  std::string ms = path.substr(m + 1, r - m - 1), rs = path.substr(r + 1);
  if (ms.empty() || rs.empty() || ms.find_first_not_of("0123456789") != std::string::npos ||
      rs.find_first_not_of("0123456789") != std::string::npos)
    return 1;
  return std::atoi(ms.c_str());
}

// Every member's summary, read one way; *direct counts the members the
// direct way summarized.
std::vector<std::string> summaries(const std::string &path, int way, long *direct) {
  std::vector<std::string> out;
  mxn__direct_reads = way;
  mxn_dataset_t *ds = nullptr;
  EXPECT_EQ(MXN_OK, mxn_dataset_create(&ds));
  EXPECT_EQ(MXN_OK, mxn__dataset_discover(ds, path.c_str()));
  long before = mxn__direct_summaries;
  for (int j = 0; j < members_of(path); j++) {
    char *buf = nullptr;
    size_t len = 0;
    EXPECT_EQ(MXN_OK, mxn__member_summary(ds, j, 0, &buf, &len)) << "member " << j;
    out.emplace_back(buf ? buf : "", len);
    free(buf);
  }
  *direct += mxn__direct_summaries - before;
  mxn_dataset_destroy(&ds);
  mxn__direct_reads = 1;
  return out;
}

// A small generated spread set with what the direct summary takes: several
// blocks with attributes, node and side sets with distribution factors and
// variables, nodal, element and global variables over steps, shuffled ids.
class Direct : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = mxntest::tmpdir("direct");
    std::string mesh = mxntest::generate(dir_, "mesh.e",
                                         "--type hex --dims 9 7 5 --blocks 3 --steps 3 "
                                         "--shuffle-ids 7 --id-offset 11");
    mxn_error_t err;
    ASSERT_EQ(MXN_OK, mxn_split(mesh.c_str(), (dir_ + "/spread.e").c_str(), 6, MXN_PART_RCB,
                                nullptr, nullptr, &err))
        << err.msg;
    sets_ = {mesh, dir_ + "/spread.e.6.0"};
    for (const auto &s : shared_sets()) sets_.push_back(s);
  }
  static std::string dir_;
  static std::vector<std::string> sets_;
};
std::string Direct::dir_;
std::vector<std::string> Direct::sets_;

}  // namespace

// Byte for byte the summary Exodus gives, member by member; the generated
// members and nearly every shared one take the direct way.
TEST_F(Direct, SummariesAreExodus) {
  long direct = 0, exodus = 0, members = 0;
  for (const auto &path : sets_) {
    SCOPED_TRACE(path);
    std::vector<std::string> a = summaries(path, 1, &direct), b = summaries(path, 0, &exodus);
    EXPECT_EQ(0, exodus) << "the switch turns the direct way off";
    ASSERT_EQ(a.size(), b.size());
    members += (long)a.size();
    for (size_t j = 0; j < a.size(); j++)
      EXPECT_TRUE(a[j] == b[j]) << "member " << j << ": " << a[j].size() << " against "
                                << b[j].size() << " bytes";
  }
  // all but the netCDF-4 set's 4 members and the mesh with edge and face
  // blocks (with the shared data; the generated 7 members without)
  EXPECT_GE(direct, members - (mxntest::have_shared() ? 5 : 0))
      << direct << " of " << members << " members read directly";
  EXPECT_GE(direct, 7);
  std::printf("%ld of %ld members summarized directly, in %zu datasets\n", direct, members,
              sets_.size());
}

// Whole datasets joined into one file each way hold the same values:
// coordinates, connectivity, ids, attributes, sets, maps and every
// variable at every step (mxn_compare, exact).
TEST_F(Direct, JoinsAreExodus) {
  int n = 0;
  for (const auto &path : sets_) {
    SCOPED_TRACE(path);
    std::string out[2];
    for (int way = 0; way < 2; way++) {
      out[way] = dir_ + "/join" + std::to_string(n) + (way ? "-direct.e" : "-exodus.e");
      mxn__direct_reads = way;
      mxn_error_t err;
      mxn_form_report_t rep;
      ASSERT_EQ(MXN_OK, mxn_join(path.c_str(), out[way].c_str(), nullptr, &rep, &err)) << err.msg;
      EXPECT_GT(rep.read.bytes_read, 0);
    }
    mxn__direct_reads = 1;
    mxn_compare_opts_t opts;
    std::memset(&opts, 0, sizeof opts);
    char *report = nullptr;
    mxn_error_t err;
    EXPECT_EQ(MXN_OK, mxn_compare(out[0].c_str(), out[1].c_str(), &opts, &report, &err))
        << (report ? report : err.msg);
    free(report);
    n++;
  }
}
