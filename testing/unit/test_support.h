// Helpers shared by the unit tests: paths, the generator, shell commands,
// a dataset read whole.
#ifndef MXN_TEST_SUPPORT_H
#define MXN_TEST_SUPPORT_H

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "mxn/dataset.h"
#include "mxn/extract.h"

#include <cstdlib>
#include <string>
#include <vector>

namespace mxntest {

inline bool exists(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

inline std::string shared(const std::string &rel) { return std::string(MXN_SHARED_DATA) + "/" + rel; }

inline bool have_shared() { return exists(shared("meshes/mug.e")); }

// A fresh directory under the test tmp dir.
inline std::string tmpdir(const std::string &name) {
  std::string d = std::string(MXN_TEST_TMP) + "/" + name;
  std::string cmd = "rm -rf '" + d + "' && mkdir -p '" + d + "'";
  EXPECT_EQ(0, std::system(cmd.c_str()));
  return d;
}

inline int run(const std::string &cmd) { return std::system(cmd.c_str()); }

// Generate a mesh with data/gen (mxn_gen); returns its path.
inline std::string generate(const std::string &dir, const std::string &name, const std::string &args) {
  std::string out = dir + "/" + name;
  std::string cmd = std::string(MXN_BIN_DIR) + "/mxn_gen " + args + " '" + out + "' > /dev/null";
  EXPECT_EQ(0, run(cmd)) << cmd;
  return out;
}

inline std::vector<std::string> shared_meshes() {
  return {"2block1.g", "8-block.g", "block_crush_1.ex2", "coarseGrid.e", "cube.g",
          "disk_out_ref.ex2", "edgeFaceElem.exii", "mug.e"};
}

// A dataset opened and read whole into one piece, serially: the reference
// most tests compare a load, a split or a join against. Both are destroyed
// with it, also when an ASSERT leaves the test early. ok() fails with the
// step that failed (open or extract), the path and the core's message:
//
//   mxntest::WholeMesh w(path);
//   ASSERT_TRUE(w.ok());
//   ... w.s()->num_times, w.pc->num_nodes ...
struct WholeMesh {
  mxn_dataset_t *ds = nullptr;
  mxn_piece_t *pc = nullptr;
  int status = MXN_OK;
  std::string error;

  explicit WholeMesh(const std::string &path) {
    status = mxn_dataset_create(&ds);
    if (status != MXN_OK) {
      error = "cannot create a dataset: " + std::string(mxn_strerror(status));
      return;
    }
    const char *step = "open";
    status = mxn_dataset_open(ds, path.c_str());
    if (status == MXN_OK) {
      step = "extract";
      status = mxn_extract(ds, nullptr, nullptr, &pc);
    }
    if (status != MXN_OK) error = std::string(step) + " of " + path + ": " + mxn_dataset_errmsg(ds);
  }
  ~WholeMesh() {
    mxn_piece_destroy(&pc);
    mxn_dataset_destroy(&ds);
  }
  WholeMesh(const WholeMesh &) = delete;
  WholeMesh &operator=(const WholeMesh &) = delete;

  const mxn_structure_t *s() const { return mxn_dataset_structure(ds); }
  ::testing::AssertionResult ok() const {
    if (status == MXN_OK) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << error;
  }
};

}  // namespace mxntest

#endif
