// The partition map file of `mxn repart --map FILE` (core/src/partition/partmap.h),
// fed from memory: what it accepts, and each malformed line's message.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "partition/partmap.h"
}

namespace {

struct Result {
  int status;
  std::string msg;
  std::vector<int> part;
};

Result Read(const std::string &text, int nparts, const std::vector<int64_t> &ids) {
  Result r;
  r.part.assign(ids.size(), -1);
  std::string buf = text.empty() ? std::string("\n") : text;
  FILE *f = fmemopen(&buf[0], buf.size(), "r");
  EXPECT_NE(nullptr, f);
  mxn_error_t err;
  mxn_error_clear(&err);
  r.status = mxn__part_map_read(f, "m.txt", nparts, (int64_t)ids.size(), ids.data(), r.part.data(),
                                &err);
  fclose(f);
  r.msg = err.msg;
  return r;
}

TEST(PartMap, CommentsBlanksCrlfAndOtherRanksIds) {
  Result r = Read("# id part\n\n  1 0\n2\t1\r\n3 2   \n99 0\n#\n", 3, {1, 2, 3});
  ASSERT_EQ(MXN_OK, r.status) << r.msg;
  EXPECT_EQ((std::vector<int>{0, 1, 2}), r.part);
}

TEST(PartMap, ExtremeIds) {
  Result r = Read("-9223372036854775808 1\n9223372036854775807 0\n", 2,
                  {INT64_MIN, INT64_MAX});
  ASSERT_EQ(MXN_OK, r.status) << r.msg;
  EXPECT_EQ((std::vector<int>{1, 0}), r.part);
}

// sscanf's %lld clamped this to INT64_MAX (undefined behaviour by C11).
TEST(PartMap, IdBeyond64BitsIsAnError) {
  Result r = Read("1 0\n9223372036854775808 1\n", 2, {1});
  EXPECT_EQ(MXN_ERR_FORMAT, r.status);
  EXPECT_EQ("m.txt:2: element id is outside the 64-bit range", r.msg);
}

TEST(PartMap, MalformedLinesNameTheLine) {
  EXPECT_EQ("m.txt:1: expected 'element_id part'", Read("1\n", 2, {1}).msg);
  EXPECT_EQ("m.txt:2: expected 'element_id part'", Read("1 0\n2 1 7\n", 2, {1, 2}).msg);
  EXPECT_EQ("m.txt:1: expected 'element_id part'", Read("1 0.5\n", 2, {1}).msg);
  EXPECT_EQ("m.txt:1: expected 'element_id part'", Read("x 0\n", 2, {1}).msg);
  EXPECT_EQ("m.txt:1: part 2 is outside 0..1", Read("1 2\n", 2, {1}).msg);
  EXPECT_EQ("m.txt:1: part -1 is outside 0..1", Read("1 -1\n", 2, {1}).msg);
  Result r = Read("1 99999999999999999999\n", 2, {1});
  EXPECT_EQ(MXN_ERR_FORMAT, r.status);
  EXPECT_NE(std::string::npos, r.msg.find("m.txt:1: part")) << r.msg;
  EXPECT_EQ("m.txt: element 2 has no part", Read("1 0\n", 2, {1, 2}).msg);
}

// Lines of any length are read whole (before: a fixed buffer split them,
// and the second chunk was parsed as a line of its own).
TEST(PartMap, LongLines) {
  Result r = Read("#" + std::string(2000, 'c') + "\n1 1\n", 2, {1});
  ASSERT_EQ(MXN_OK, r.status) << r.msg;
  EXPECT_EQ(1, r.part[0]);
  r = Read("1" + std::string(600, ' ') + "1\n2 " + std::string(600, '0') + "1\n", 2, {1, 2});
  ASSERT_EQ(MXN_OK, r.status) << r.msg;
  EXPECT_EQ((std::vector<int>{1, 1}), r.part);
}

// The same element twice: the same part is harmless, two parts are refused.
TEST(PartMap, ElementListedTwice) {
  Result r = Read("1 1\n1 1\n", 2, {1});
  ASSERT_EQ(MXN_OK, r.status) << r.msg;
  r = Read("1 1\n2 0\n1 0\n", 2, {1, 2});
  EXPECT_EQ(MXN_ERR_FORMAT, r.status);
  EXPECT_EQ("m.txt:3: element 1 is given part 0, and part 1 on an earlier line", r.msg);
}

}  // namespace
