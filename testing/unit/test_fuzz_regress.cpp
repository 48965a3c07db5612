// Regression tests for what the fuzzers (testing/fuzz) found: each input
// that once crashed, leaked or broke a check is kept in
// testing/fuzz/regress/<harness>/ and reproduced here with the outcome the
// fixed core must give: a clean MXN_ERR_FORMAT naming the file, and no file
// descriptor left open. (The ctest cases fuzz_replay_<harness> also run the
// harnesses themselves on those files, under ASan + UBSan in the sanitizer
// build.)
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "mxn/mxn.h"

namespace fs = std::filesystem;

namespace {

const fs::path kRegress = MXN_FUZZ_REGRESS;

int OpenDescriptors() {
  int n = 0;
  for (int fd = 0; fd < 1024; fd++) n += fcntl(fd, F_GETFD) != -1;
  return n;
}

// Open `name` from regress/dataset; return the status, the message in *msg;
// check that destroying the handle closed every descriptor the open made.
int OpenAndClose(const std::string &name, std::string *path, std::string *msg) {
  *path = (kRegress / "dataset" / name).string();
  EXPECT_TRUE(fs::exists(*path)) << *path;
  int before = OpenDescriptors();
  mxn_dataset_t *ds = nullptr;
  EXPECT_EQ(MXN_OK, mxn_dataset_create(&ds));
  int rc = mxn_dataset_open(ds, path->c_str());
  *msg = mxn_dataset_errmsg(ds);
  mxn_dataset_destroy(&ds);
  EXPECT_EQ(nullptr, ds);
  EXPECT_EQ(before, OpenDescriptors()) << *path << ": a descriptor stayed open";
  return rc;
}

void ExpectFormatError(const std::string &name, const std::string &says) {
  std::string path, msg;
  EXPECT_EQ(MXN_ERR_FORMAT, OpenAndClose(name, &path, &msg)) << msg;
  EXPECT_NE(std::string::npos, msg.find(path)) << msg;
  EXPECT_NE(std::string::npos, msg.find(says)) << msg;
}

// Damaged netCDF-3 headers (fuzz_dataset). netCDF 4.9.0 trusts the counts:
// nc_open failed with E2BIG and Exodus 6.02's ex_open then left the
// descriptor open (two record dimensions); ex_open failed after netCDF
// opened the file and left it open (an empty dimension name); nc_open
// crashed in NC_hashmapfree when an allocation failed (8 million
// dimensions) or asked for 7.4 GB (a variable of 1.9e9 dimensions). The
// core now checks the header's counts against the file before netCDF.
TEST(FuzzRegressDataset, TwoRecordDimensions) {
  ExpectFormatError("nc3_two_unlimited_dims.e", "more than one unlimited dimension");
}
TEST(FuzzRegressDataset, EmptyDimensionName) {
  ExpectFormatError("nc3_empty_dim_name.e", "dimension 18: name of 0 characters");
}
TEST(FuzzRegressDataset, DimensionCountBeyondTheFile) {
  ExpectFormatError("nc3_dim_count_too_big.e", "dimensions do not fit in the file");
}
TEST(FuzzRegressDataset, VariableWithBillionsOfDimensions) {
  ExpectFormatError("nc3_var_ndims_huge.e", "variable 0: 1868849014 dimensions");
}

// Variables Exodus reads whole, given a bigger shape than their dimension
// (fuzz_dataset found heap corruption in netCDF's free after ~40000
// inputs; valgrind on these two files shows the cause: netCDF writing the
// block ids / node set entries past mxn's arrays, sized by num_el_blk and
// num_nod_ns1). Every such variable's shape is now checked on open.
TEST(FuzzRegressDataset, BlockIdsShapedByNodeCount) {
  ExpectFormatError("eb_prop1_shaped_by_num_nodes.e",
                    "variable 'eb_prop1' has 12 entries where its dimension says 1");
}
TEST(FuzzRegressDataset, NodeSetShapedByNodeCount) {
  ExpectFormatError("node_ns1_shaped_by_num_nodes.e",
                    "variable 'node_ns1' has 12 entries where its dimension says 4");
}

// A global attribute Exodus reads into one int holding 4 values (a mutated
// polyhedral mesh): "stack smashing detected" in ex_inquire_int (found by
// fuzz_dataset). Such attributes, the title and the element types are now
// checked on open.
TEST(FuzzRegressDataset, ScalarAttributeWithFourValues) {
  ExpectFormatError("word_size_attribute_of_4_values.e",
                    "global attribute 'floating_point_word_size' holds 4 values, not 1");
}

// A header declaring more blocks than the file has bytes: the block
// arrays asked for 16 GB (fuzz_dataset, libFuzzer's malloc limit).
TEST(FuzzRegressDataset, BlockCountBeyondTheFileSize) {
  ExpectFormatError("block_count_beyond_file_size.e", "blocks, sets or maps of one kind in a file of");
}

// A sound netCDF file that is not Exodus (no version or word size
// attribute): refused, and the netCDF id opened to look is closed.
TEST(FuzzRegressDataset, NetcdfNotExodusLeavesNoDescriptor) {
  ExpectFormatError("netcdf_not_exodus.nc", "netCDF opens it, Exodus does not");
}

// A member with a sound netCDF-3 header whose block 2's size dimension is
// renamed num_el_in_blk4 (Exodus's ex_open refused it and left netCDF's
// descriptor open): refused naming the block, no descriptor left open.
TEST(FuzzRegressDataset, BlockWithoutItsSizeLeavesNoDescriptor) {
  ExpectFormatError("block_dim_renamed_exodus_refuses.e", "element block 20: cannot read its parameters");
}

// A variable count of ten million in a 5.6 kB file (num_elem_var, no
// names variable): the summary sized the names by it, 2.5 GB. Counts
// beyond the file's bytes are refused, as block, set and map counts are.
TEST(FuzzRegressDataset, VariableCountBeyondTheFileSize) {
  ExpectFormatError("elem_var_count_beyond_file_size.e", "element variables in a file of");
}

// A 1 kB header declaring 1.3 billion nodes and no coordinates, nor a
// node id map: the file's domain numbered its nodes 1..n, 10 GB. Nodes
// need their coordinates (and the shape check holds those to num_nodes).
TEST(FuzzRegressDataset, NodesWithoutCoordinates) {
  ExpectFormatError("nodes_without_coordinates.e", "1313227075 nodes but no coordx (coordinates)");
}

// Every kept input, the ones above included: opening ends in a status
// (never a crash), a failure names the file, no descriptor is left open.
TEST(FuzzRegressDataset, EveryKeptInputFailsCleanly) {
  int n = 0;
  for (const auto &e : fs::directory_iterator(kRegress / "dataset")) {
    std::string path, msg;
    int rc = OpenAndClose(e.path().filename().string(), &path, &msg);
    if (rc != MXN_OK) EXPECT_NE(std::string::npos, msg.find(path)) << msg;
    n++;
  }
  EXPECT_GE(n, 9);
}

}  // namespace
