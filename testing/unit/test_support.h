// Helpers shared by the unit tests: paths, the generator, shell commands.
#ifndef MXN_TEST_SUPPORT_H
#define MXN_TEST_SUPPORT_H

#include <gtest/gtest.h>
#include <sys/stat.h>

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

}  // namespace mxntest

#endif
