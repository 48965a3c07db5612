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
#include <random>
#include <string>
#include <vector>

#include "mxn/compare.h"
#include "mxn/forms.h"
#include "mxn/mxn.h"
#include "test_support.h"

extern "C" {
struct mxn__nc3;
int mxn__nc3_open(const char *path, int64_t size, char magic[4], char *why, size_t whylen,
                  struct mxn__nc3 **h);
void mxn__nc3_close(struct mxn__nc3 *h);
int mxn__nc3_window(struct mxn__nc3 *h, int on);
int mxn__nc3_get(const struct mxn__nc3 *h, int v, const size_t *start, const size_t *count,
                 const ptrdiff_t *stride, void *out, char as);
int mxn__nc3_get_each(const struct mxn__nc3 *h, int nv, const int *v, uint64_t first, uint64_t n,
                      void *const *out, char as);
void mxn__name_d(char *out, size_t cap, const char *fmt, long long q);
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

// The names made without snprintf are snprintf's, cut short alike.
TEST(DirectNames, NameDIsSnprintf) {
  const char *const fmts[] = {"connect%d", "num_el_in_blk%d", "%d", "vals_elem_var%deb", "node_num_map",
                              "x%dy%d"};
  const long long qs[] = {0, 1, 9, 10, 99, 100, 12345, 2147483647LL, -1, -4096};
  for (const char *fmt : fmts)
    for (long long q : qs)
      for (size_t cap : {size_t{1}, size_t{2}, size_t{5}, size_t{8}, size_t{12}, size_t{64}}) {
        char want[64], got[64];
        memset(got, 'z', sizeof got);
        // the "%d" after the first is copied as it is: the reference writes it so
        std::string ref = fmt;
        size_t at = ref.find("%d");
        if (at != std::string::npos) ref.replace(at, 2, std::to_string(q));
        snprintf(want, cap, "%s", ref.c_str());
        mxn__name_d(got, cap, fmt, q);
        EXPECT_STREQ(got, want) << fmt << " " << q << " cap " << cap;
      }
}

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

// The direct reads give what netCDF gives: every variable of the netCDF-3
// datasets (fixed and record, every type they hold), at random start,
// count and stride, as double, as int64 (integer variables) and as text;
// every other variable with the summary's small-read window on (strided
// reads make many small ones, from wherever the last window was).
TEST_F(Direct, ReadsAreNetcdfs) {
  std::mt19937 rng(12345);
  long compared = 0;
  for (const auto &path : sets_) {
    SCOPED_TRACE(path);
    int ncid, fmt = 0;
    ASSERT_EQ(NC_NOERR, nc_open(path.c_str(), NC_NOWRITE, &ncid));
    nc_inq_format(ncid, &fmt);
    if (fmt == NC_FORMAT_NETCDF4 || fmt == NC_FORMAT_NETCDF4_CLASSIC) {
      nc_close(ncid);
      continue;
    }
    struct stat st;
    ASSERT_EQ(0, stat(path.c_str(), &st));
    char magic[4], why[200];
    struct mxn__nc3 *h = nullptr;
    ASSERT_EQ(3, mxn__nc3_open(path.c_str(), st.st_size, magic, why, sizeof why, &h)) << why;
    ASSERT_NE(nullptr, h);
    int nvars = 0;
    nc_inq_nvars(ncid, &nvars);
    // Pass 0 as a summary reads: values in the head (the header walk's
    // bytes) are copied from it, small ones go through the window. Pass
    // 1 as a load reads after the summary: window and head gone
    // (mxn__nc3_window(h, 0)), every value from the file.
    for (int pass = 0; pass < 2; pass++) {
      ASSERT_EQ(0, mxn__nc3_window(h, pass == 0));
      for (int v = 0; v < nvars; v++) {
        nc_type t;
        int nd, dims[NC_MAX_VAR_DIMS];
        char name[NC_MAX_NAME + 1];
        nc_inq_var(ncid, v, name, &t, &nd, dims, nullptr);
        std::vector<size_t> shape(nd);
        size_t total = 1;
        for (int d = 0; d < nd; d++) {
          nc_inq_dimlen(ncid, dims[d], &shape[d]);
          total *= shape[d];
        }
        if (total == 0) continue;
        for (int trial = 0; trial < 12; trial++) {
          std::vector<size_t> start(nd), count(nd);
          std::vector<ptrdiff_t> stride(nd, 1);
          size_t n = 1;
          for (int d = 0; d < nd; d++) {
            start[d] = trial == 0 ? 0 : rng() % shape[d];
            stride[d] = trial < 4 ? 1 : 1 + rng() % 3;
            size_t most = (shape[d] - start[d] - 1) / stride[d] + 1;
            count[d] = trial == 0 ? shape[d] : 1 + rng() % most;
            if (trial == 0) stride[d] = 1;
            n *= count[d];
          }
          SCOPED_TRACE(std::string(name) + " pass " + std::to_string(pass) + " trial " +
                       std::to_string(trial));
          if (t == NC_CHAR) {
            std::string a(n, '\0'), b(n, '\0');
            ASSERT_EQ(NC_NOERR, nc_get_vars_text(ncid, v, start.data(), count.data(),
                                                 stride.data(), &a[0]));
            ASSERT_EQ(0, mxn__nc3_get(h, v, start.data(), count.data(), stride.data(), &b[0], 'c'));
            EXPECT_EQ(a, b);
          } else {
            std::vector<double> a(n), b(n);
            ASSERT_EQ(NC_NOERR, nc_get_vars_double(ncid, v, start.data(), count.data(),
                                                   stride.data(), a.data()));
            ASSERT_EQ(0, mxn__nc3_get(h, v, start.data(), count.data(), stride.data(), b.data(),
                                      'd'));
            EXPECT_EQ(0, std::memcmp(a.data(), b.data(), n * sizeof(double)));
            if (t != NC_FLOAT && t != NC_DOUBLE) {
              std::vector<long long> x(n), y(n);
              ASSERT_EQ(NC_NOERR, nc_get_vars_longlong(ncid, v, start.data(), count.data(),
                                                       stride.data(), x.data()));
              ASSERT_EQ(0, mxn__nc3_get(h, v, start.data(), count.data(), stride.data(),
                                        y.data(), 'l'));
              EXPECT_EQ(x, y);
            }
          }
          compared++;
        }
      }
    }
    mxn__nc3_close(h);
    nc_close(ncid);
  }
  EXPECT_GT(compared, 1000);
  std::printf("%ld reads compared with netCDF's\n", compared);
}

// A node's coordinates, one variable per axis side by side in the file,
// come in one read (mxn__nc3_get_each) with the values netCDF gives, for
// any range of nodes whose axes lie less than MXN__NC3_GAP bytes apart;
// a range with more between its axes is left to reads one by one.
TEST_F(Direct, CoordinatesInOneReadAreNetcdfs) {
  std::mt19937 rng(777);
  long together = 0, apart = 0;
  for (const auto &path : sets_) {
    SCOPED_TRACE(path);
    int ncid, fmt = 0;
    ASSERT_EQ(NC_NOERR, nc_open(path.c_str(), NC_NOWRITE, &ncid));
    nc_inq_format(ncid, &fmt);
    int v[3], nd = 0;
    for (const char *name : {"coordx", "coordy", "coordz"})
      if (nc_inq_varid(ncid, name, &v[nd]) == NC_NOERR) nd++;
    if (fmt == NC_FORMAT_NETCDF4 || fmt == NC_FORMAT_NETCDF4_CLASSIC || nd == 0) {
      nc_close(ncid);
      continue;
    }
    int dim;
    size_t nn = 0;
    nc_inq_vardimid(ncid, v[0], &dim);
    nc_inq_dimlen(ncid, dim, &nn);
    struct stat st;
    ASSERT_EQ(0, stat(path.c_str(), &st));
    char magic[4], why[200];
    struct mxn__nc3 *h = nullptr;
    ASSERT_EQ(3, mxn__nc3_open(path.c_str(), st.st_size, magic, why, sizeof why, &h)) << why;
    for (int trial = 0; trial < 20 && nn > 0; trial++) {
      size_t first = trial == 0 ? 0 : rng() % nn;
      size_t n = trial == 0 ? nn : 1 + rng() % (nn - first);
      std::vector<double> want[3], got[3];
      void *out[3];
      for (int d = 0; d < nd; d++) {
        want[d].resize(n);
        got[d].assign(n, -1.0);
        out[d] = got[d].data();
        ASSERT_EQ(NC_NOERR, nc_get_vara_double(ncid, v[d], &first, &n, want[d].data()));
      }
      int rc = mxn__nc3_get_each(h, nd, v, first, n, out, 'd');
      ASSERT_GE(rc, 0);
      if (rc == 0) {
        apart++;
        continue;
      }
      together++;
      for (int d = 0; d < nd; d++)
        EXPECT_EQ(0, std::memcmp(want[d].data(), got[d].data(), n * sizeof(double)))
            << "axis " << d << " nodes " << first << " + " << n;
    }
    if (nd > 1 && nn > 1000) {
      // one node of a large mesh: the rest of an axis lies between
      double x[3];
      void *one[3] = {&x[0], &x[1], &x[2]};
      EXPECT_EQ(0, mxn__nc3_get_each(h, nd, v, 0, 1, one, 'd'));
    }
    mxn__nc3_close(h);
    nc_close(ncid);
  }
  EXPECT_GT(together, 20);
  std::printf("%ld coordinate ranges read in one call, %ld left to reads one by one\n", together,
              apart);
}
