// Helpers shared by the unit tests: paths, the generator, shell commands,
// a dataset read whole.
#ifndef MXN_TEST_SUPPORT_H
#define MXN_TEST_SUPPORT_H

#include <gtest/gtest.h>
#include <netcdf.h>
#include <sys/stat.h>

#include "mxn/dataset.h"
#include "mxn/extract.h"

#include <cstdlib>
#include <set>
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

// Rename a member's n_comm_nids away: it then states no shared nodes.
inline void drop_cmaps(const std::string &p) {
  int id, v;
  ASSERT_EQ(NC_NOERR, nc_open(p.c_str(), NC_WRITE, &id));
  ASSERT_EQ(NC_NOERR, nc_inq_varid(id, "n_comm_nids", &v));
  ASSERT_EQ(NC_NOERR, nc_redef(id));
  ASSERT_EQ(NC_NOERR, nc_rename_var(id, v, "x_comm_nids"));
  ASSERT_EQ(NC_NOERR, nc_enddef(id));
  nc_close(id);
}

// A member's node id map (node_num_map).
inline void node_map_of(int nc, std::vector<long long> *map) {
  int v, dim;
  size_t n = 0;
  ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, "node_num_map", &v));
  ASSERT_EQ(NC_NOERR, nc_inq_vardimid(nc, v, &dim));
  ASSERT_EQ(NC_NOERR, nc_inq_dimlen(nc, dim, &n));
  map->assign(n, 0);
  ASSERT_EQ(NC_NOERR, nc_get_var_longlong(nc, v, map->data()));
}

// The positions, ascending, of the nodes member b (open as nb) shares with
// member a (open as na), and b's node id map.
inline void shared_positions(int na, int nb, std::vector<size_t> *at, std::vector<long long> *mb) {
  std::vector<long long> ma;
  ASSERT_NO_FATAL_FAILURE(node_map_of(na, &ma));
  ASSERT_NO_FATAL_FAILURE(node_map_of(nb, mb));
  std::set<long long> in_a(ma.begin(), ma.end());
  at->clear();
  for (size_t i = 0; i < mb->size(); i++)
    if (in_a.count((*mb)[i])) at->push_back(i);
}

// Move in member b the first node it shares with member a (the last one,
// with `last`) by dz (0.5 unless given) in z; *moved: its global id.
inline void move_shared_node(const std::string &a, const std::string &b, long long *moved,
                             bool last = false, double dz = 0.5) {
  int na = 0, nb = 0;
  ASSERT_EQ(NC_NOERR, nc_open(a.c_str(), NC_NOWRITE, &na));
  ASSERT_EQ(NC_NOERR, nc_open(b.c_str(), NC_WRITE, &nb));
  std::vector<size_t> shared;
  std::vector<long long> mb;
  ASSERT_NO_FATAL_FAILURE(shared_positions(na, nb, &shared, &mb));
  ASSERT_FALSE(shared.empty()) << "the members share no node";
  size_t at = last ? shared.back() : shared.front();
  *moved = mb[at];
  int vz;
  ASSERT_EQ(NC_NOERR, nc_inq_varid(nb, "coordz", &vz));
  double z = 0;
  ASSERT_EQ(NC_NOERR, nc_get_var1_double(nb, vz, &at, &z));
  z += dz;
  ASSERT_EQ(NC_NOERR, nc_put_var1_double(nb, vz, &at, &z));
  nc_close(na);
  nc_close(nb);
}

}  // namespace mxntest

#endif
