// The writer's file formats (write.h, nc4copy.c): format requests are
// checked before anything is read or written; netCDF-4 and compressed
// files hold the same data as netCDF-3 ones, stored as asked (format,
// deflate, shuffle, chunk shapes).
#include <netcdf.h>

#include <cstdio>
#include <cstring>

#include "mxn/mxn.h"
#include "test_support.h"

using namespace mxntest;

namespace {

int nc_kind(const std::string &path) {
  int nc, fmt = -1;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return -1;
  nc_inq_format(nc, &fmt);
  nc_close(nc);
  return fmt;
}

void expect_equal(const std::string &a, const std::string &b) {
  mxn_error_t err;
  mxn_error_clear(&err);
  char *report = nullptr;
  EXPECT_EQ(MXN_OK, mxn_compare(a.c_str(), b.c_str(), nullptr, &report, &err))
      << a << " vs " << b << ": " << err.msg << "\n" << (report ? report : "");
  free(report);
}

}  // namespace

TEST(WriteFormat, Check) {
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_file_format_t f;
  memset(&f, 0, sizeof f);
  EXPECT_EQ(MXN_OK, mxn_file_format_check(nullptr, &err));
  EXPECT_EQ(MXN_OK, mxn_file_format_check(&f, &err));
  f.compress = 9;
  EXPECT_EQ(MXN_OK, mxn_file_format_check(&f, &err));  // default + level: netCDF-4
  f.format = MXN_FORMAT_NC4;
  EXPECT_EQ(MXN_OK, mxn_file_format_check(&f, &err));
  f.format = MXN_FORMAT_NC3;
  EXPECT_EQ(MXN_ERR_ARG, mxn_file_format_check(&f, &err));
  EXPECT_NE(nullptr, strstr(err.msg, "netCDF-3")) << err.msg;
  f.compress = 0;
  EXPECT_EQ(MXN_OK, mxn_file_format_check(&f, &err));
  f.compress = 10;
  EXPECT_EQ(MXN_ERR_ARG, mxn_file_format_check(&f, &err));
  f.compress = -1;
  EXPECT_EQ(MXN_ERR_ARG, mxn_file_format_check(&f, &err));
  f.compress = 0;
  f.format = (mxn_format)7;
  EXPECT_EQ(MXN_ERR_ARG, mxn_file_format_check(&f, &err));
}

// A bad request fails before the input is opened (it does not exist here).
TEST(WriteFormat, BadRequestWritesNothing) {
  std::string dir = tmpdir("write_format_bad");
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_form_opts_t o;
  memset(&o, 0, sizeof o);
  o.gap = -1;
  o.file.format = MXN_FORMAT_NC3;
  o.file.compress = 1;
  std::string out = dir + "/out.e";
  EXPECT_EQ(MXN_ERR_ARG, mxn_split((dir + "/none.e").c_str(), out.c_str(), 2, MXN_PART_LINEAR,
                                   &o, nullptr, &err));
  EXPECT_EQ(MXN_ERR_ARG, mxn_join((dir + "/none.e").c_str(), out.c_str(), &o, nullptr, &err));
  EXPECT_FALSE(exists(out));
}

// Split and join in each format: the data is the mesh's; the files are
// netCDF-4 where asked, and a compressed one is deflated and shuffled with
// whole elements and one step per chunk.
TEST(WriteFormat, SplitJoinEachFormat) {
  std::string dir = tmpdir("write_format");
  std::string mesh = generate(dir, "m.e", "--type hex --dims 16 8 10 --blocks 2 --steps 3");
  struct {
    mxn_format format;
    int level, kind;
  } cases[] = {{MXN_FORMAT_DEFAULT, 0, NC_FORMAT_64BIT_OFFSET},
               {MXN_FORMAT_NC4, 0, NC_FORMAT_NETCDF4},
               {MXN_FORMAT_DEFAULT, 1, NC_FORMAT_NETCDF4},
               {MXN_FORMAT_NC4, 6, NC_FORMAT_NETCDF4}};
  for (const auto &c : cases) {
    SCOPED_TRACE("format " + std::to_string(c.format) + " level " + std::to_string(c.level));
    mxn_error_t err;
    mxn_error_clear(&err);
    mxn_form_opts_t o;
    memset(&o, 0, sizeof o);
    o.gap = -1;
    o.file.format = c.format;
    o.file.compress = c.level;
    std::string tag = std::to_string(c.format) + "_" + std::to_string(c.level);
    std::string base = dir + "/s" + tag + ".e", joined = dir + "/j" + tag + ".e";
    ASSERT_EQ(MXN_OK, mxn_split(mesh.c_str(), base.c_str(), 3, MXN_PART_LINEAR, &o, nullptr, &err))
        << err.msg;
    char member[4096];
    mxn_member_name(base.c_str(), 3, 1, member, sizeof member);
    EXPECT_EQ(c.kind, nc_kind(member));
    ASSERT_EQ(MXN_OK, mxn_join(base.c_str(), joined.c_str(), &o, nullptr, &err)) << err.msg;
    EXPECT_EQ(c.kind, nc_kind(joined));
    expect_equal(mesh, joined);
    if (c.level == 0) continue;
    int nc, v, shuffle = 0, deflate = 0, level = 0, storage = -1;
    size_t chunk[2] = {0, 0};
    ASSERT_EQ(NC_NOERR, nc_open(joined.c_str(), NC_NOWRITE, &nc));
    ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, "connect1", &v));
    EXPECT_EQ(NC_NOERR, nc_inq_var_deflate(nc, v, &shuffle, &deflate, &level));
    EXPECT_TRUE(shuffle && deflate);
    EXPECT_EQ(c.level, level);
    EXPECT_EQ(NC_NOERR, nc_inq_var_chunking(nc, v, &storage, chunk));
    EXPECT_EQ(NC_CHUNKED, storage);
    EXPECT_EQ(8u, chunk[1]);  // whole hexes
    ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, "vals_elem_var1eb1", &v));
    EXPECT_EQ(NC_NOERR, nc_inq_var_deflate(nc, v, &shuffle, &deflate, &level));
    EXPECT_TRUE(shuffle && deflate);
    EXPECT_EQ(NC_NOERR, nc_inq_var_chunking(nc, v, &storage, chunk));
    EXPECT_EQ(1u, chunk[0]);  // one step (640 elements: 5 KiB a step)
    nc_close(nc);
  }
}
