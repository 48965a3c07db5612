// Sets whose id maps cannot be trusted (ids.c): members written here with
// the Exodus API, ids repeated within a member, repeated across members,
// 0-based; read serially, through `mxn info`, and by the collective load at
// the run's rank count with one ghost level. Every set holds the same mesh,
// a 6 x 2 x 2 hex box in three members of two x-slabs each, two blocks (y
// rows), an element variable numbering the cells 1..24.
#include <exodusII.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "mpi_helpers.h"
#include "test_mpi.h"

using namespace mxntest;

namespace {

const int NX = 6, NY = 2, NZ = 2, M = 3;
const int64_t CELLS = NX * NY * NZ, NODES = (NX + 1) * (NY + 1) * (NZ + 1);
const double CELL_SUM = CELLS * (CELLS + 1) / 2.0;

// How a member numbers its entries.
enum Mode {
  GOOD,          // global ids, 1-based
  ZERO_BASED,    // global ids, 0-based
  ELEM_PER_BLOCK,// element ids 0.. in each block (repeated within a member)
  ALL_LOCAL,     // element and node ids 0.. in each member (repeated across)
  NODES_PER_BLOCK,// each block stores its own nodes, ids 0.. per block
  ELEM_NEMESIS,  // element ids 0.. in each member, whose Nemesis counts say 24
  ELEM_LOCAL     // element ids 0.. in each member, no Nemesis counts
};

int64_t gnode(int i, int j, int k) { return ((int64_t)k * (NY + 1) + j) * (NX + 1) + i; }
int64_t gcell(int i, int j, int k) { return ((int64_t)k * NY + j) * NX + i; }

// Member m of the set in `mode` at path.
void write_member(const std::string &path, int m, Mode mode) {
  int cpu = 8, io = 8;
  int ex = ex_create(path.c_str(), EX_CLOBBER, &cpu, &io);
  ASSERT_GE(ex, 0) << path;
  const int i0 = 2 * m, i1 = 2 * m + 2; // cells i0..i1-1, nodes i0..i1
  // Nodes: per block (NODES_PER_BLOCK: block b's rows j = b..b+1) or the
  // member's whole slab.
  std::vector<double> x, y, z;
  std::vector<int64_t> nid;                     // written ids
  std::map<int64_t, int64_t> pos_of[2];         // global node -> position, per block
  for (int b = 0; b < (mode == NODES_PER_BLOCK ? 2 : 1); b++) {
    int j0 = mode == NODES_PER_BLOCK ? b : 0, j1 = mode == NODES_PER_BLOCK ? b + 1 : NY;
    int64_t local = 0;
    for (int k = 0; k <= NZ; k++)
      for (int j = j0; j <= j1; j++)
        for (int i = i0; i <= i1; i++) {
          int64_t g = gnode(i, j, k);
          int64_t at = (int64_t)x.size();
          for (int bb = 0; bb < 2; bb++)
            if (mode != NODES_PER_BLOCK || bb == b) pos_of[bb][g] = at;
          x.push_back(i);
          y.push_back(j);
          z.push_back(k);
          nid.push_back(mode == GOOD || mode == ELEM_NEMESIS || mode == ELEM_LOCAL ? g + 1
                        : mode == ZERO_BASED || mode == ELEM_PER_BLOCK ? g
                                                                       : local);
          local++;
        }
  }
  int64_t nn = (int64_t)x.size(), ne = 2 * NY * NZ;
  ASSERT_EQ(0, ex_put_init(ex, "ids", 3, nn, ne, 2, 0, 0));
  ASSERT_EQ(0, ex_put_coord(ex, x.data(), y.data(), z.data()));
  if (mode == ELEM_NEMESIS) ASSERT_EQ(0, ex_put_init_global(ex, NODES, CELLS, 2, 0, 0));
  std::vector<int64_t> eid;
  std::vector<double> val;
  int64_t local_e = 0;
  for (int b = 0; b < 2; b++) {
    std::vector<int> conn;
    int64_t in_block = 0;
    for (int k = 0; k < NZ; k++)
      for (int i = i0; i < i1; i++) {
        int j = b;
        const int c[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                             {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
        for (auto &d : c) conn.push_back((int)pos_of[b][gnode(i + d[0], j + d[1], k + d[2])] + 1);
        int64_t g = gcell(i, j, k);
        eid.push_back(mode == GOOD ? g + 1
                      : mode == ZERO_BASED ? g
                      : mode == ALL_LOCAL || mode == ELEM_NEMESIS || mode == ELEM_LOCAL ? local_e
                                                                  : in_block);
        val.push_back((double)(g + 1));
        local_e++;
        in_block++;
      }
    ASSERT_EQ(0, ex_put_block(ex, EX_ELEM_BLOCK, b + 1, "HEX8", 2 * NZ, 8, 0, 0, 0));
    ASSERT_EQ(0, ex_put_conn(ex, EX_ELEM_BLOCK, b + 1, conn.data(), nullptr, nullptr));
  }
  std::vector<int> ie(eid.begin(), eid.end()), in(nid.begin(), nid.end());
  ASSERT_EQ(0, ex_put_id_map(ex, EX_ELEM_MAP, ie.data()));
  ASSERT_EQ(0, ex_put_id_map(ex, EX_NODE_MAP, in.data()));
  ASSERT_EQ(0, ex_put_variable_param(ex, EX_ELEM_BLOCK, 1));
  const char *names[] = {"cellval"};
  ASSERT_EQ(0, ex_put_variable_names(ex, EX_ELEM_BLOCK, 1, (char **)names));
  double t = 0;
  ASSERT_EQ(0, ex_put_time(ex, 1, &t));
  for (int b = 0; b < 2; b++)
    ASSERT_EQ(0, ex_put_var(ex, 1, EX_ELEM_BLOCK, 1, b + 1, 2 * NZ, val.data() + b * 2 * NZ));
  ex_close(ex);
}

struct Expect {
  Mode mode;
  int fallback;
  const char *warning; // a part of it, "" for none
  int64_t nodes;
};

const Expect kSets[] = {
    {GOOD, 0, "", NODES},
    {ZERO_BASED, 0, "", NODES},
    {ELEM_PER_BLOCK, MXN_IDS_ELEM_BY_POSITION, "ids5.e.3.0: element id 0 appears more than once", NODES},
    {ALL_LOCAL, MXN_IDS_ELEM_BY_POSITION | MXN_IDS_NODE_BY_COORDS,
     "ids6.e.3.1: node id 0 is at another point", NODES},
    {NODES_PER_BLOCK, MXN_IDS_ELEM_BY_POSITION | MXN_IDS_NODE_BY_COORDS,
     "ids7.e.3.0: node id 0 appears more than once", NODES},
    {ELEM_NEMESIS, MXN_IDS_ELEM_BY_POSITION, "ids8.e.3.1: element id 0 is also stored in", NODES},
    {ELEM_LOCAL, MXN_IDS_ELEM_BY_POSITION, "ids9.e.3.1: element id 0 is also stored in", NODES},
};

std::string set_dir() {
  static std::string d;
  if (d.empty()) d = world_tmpdir("ids");
  return d;
}

std::string set_path(const Expect &x) {
  // the warning names the member: ids<3 + mode>...
  std::string dir = set_dir();
  std::string base = dir + "/ids" + std::to_string(3 + (int)x.mode) + ".e." + std::to_string(M) + ".";
  if (mpi_rank() == 0)
    for (int m = 0; m < M; m++) write_member(base + std::to_string(m), m, x.mode);
  MPI_Barrier(MPI_COMM_WORLD);
  return base + "0";
}

} // namespace

// Read serially: every cell, the nodes as one mesh, the fallback said.
TEST(Ids, SerialReadFallsBack) {
  if (mpi_rank() != 0) return; // serial: rank 0 alone, nothing collective
  for (const Expect &x : kSets) {
    SCOPED_TRACE("mode " + std::to_string((int)x.mode));
    std::string dir = set_dir();
    std::string base = dir + "/ser" + std::to_string((int)x.mode) + ".e.3.";
    for (int m = 0; m < M; m++) ASSERT_NO_FATAL_FAILURE(write_member(base + std::to_string(m), m, x.mode));
    WholeMesh w(base + "0");
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(x.fallback, w.s()->id_fallback) << w.s()->id_warning;
    EXPECT_EQ(CELLS, w.pc->num_elements);
    EXPECT_EQ(x.nodes, w.pc->num_nodes);
    ASSERT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.pc, 0)) << mxn_dataset_errmsg(w.ds);
    double sum = 0;
    for (int b = 0; b < w.pc->num_blocks; b++)
      for (int64_t e = 0; e < w.pc->blocks[b].num_elements; e++) sum += w.pc->blocks[b].elem_vars[0][e];
    EXPECT_EQ(CELL_SUM, sum);
    if (x.fallback) {
      std::string want = std::string(x.warning);
      want.replace(0, 4, "ser" + std::to_string((int)x.mode)); // this set's member
      EXPECT_NE(nullptr, strstr(w.s()->id_warning, want.c_str())) << w.s()->id_warning;
    } else {
      EXPECT_STREQ("", w.s()->id_warning);
    }
  }
}

// `mxn info` prints the fallback, and --json reports it.
TEST(Ids, InfoReportsFallback) {
  // the tool is a process of its own: not started from inside an MPI job
  if (mpi_size() > 1) GTEST_SKIP() << "run without mpiexec";
  std::string dir = set_dir();
  std::string base = dir + "/info.e.3.";
  for (int m = 0; m < M; m++) ASSERT_NO_FATAL_FAILURE(write_member(base + std::to_string(m), m, ELEM_PER_BLOCK));
  std::string mxn = std::string(MXN_BIN_DIR) + "/mxn";
  ASSERT_EQ(0, run(mxn + " info '" + base + "0' > '" + dir + "/info.txt'"));
  ASSERT_EQ(0, run(mxn + " info --json '" + base + "0' > '" + dir + "/info.json'"));
  std::ifstream t(dir + "/info.txt"), j(dir + "/info.json");
  std::stringstream ts, js;
  ts << t.rdbuf();
  js << j.rdbuf();
  EXPECT_NE(std::string::npos, ts.str().find("warning   " + base + "0: element id 0 appears more than once"))
      << ts.str();
  EXPECT_NE(std::string::npos, ts.str().find("elements  24")) << ts.str();
  EXPECT_NE(std::string::npos, js.str().find("\"elements_by_position\": true, \"nodes_by_coordinates\": false"))
      << js.str();
  EXPECT_NE(std::string::npos, js.str().find("\"num_elements\": 24")) << js.str();
}

// The collective load at this run's rank count, one ghost level, FILES and
// RCB: every cell owned once, the field's sum whole, ghosts where a
// neighbour lives on another rank, the same warning on every rank.
TEST(Ids, LoadOwnsEveryCellOnce) {
  Watchdog wd(120);
  for (const Expect &x : kSets)
    for (mxn_part_method method : {MXN_PART_FILES, MXN_PART_RCB}) {
      SCOPED_TRACE("mode " + std::to_string((int)x.mode) + " method " + std::to_string(method));
      std::string path = set_path(x);
      mxn_load_opts_t o;
      mxn_load_opts_init(&o);
      o.method = method;
      o.ghost_levels = 1;
      mxn_load_t *ld = nullptr;
      mxn_error_t err;
      mxn_error_clear(&err);
      int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &err);
      expect_agreed(st, err.msg);
      ASSERT_TRUE(all_ok(st == MXN_OK)) << err.msg;
      ASSERT_EQ(MXN_OK, mxn_load_read_step(ld, 0, &err)) << err.msg;
      const mxn_structure_t *s = mxn_load_structure(ld);
      const mxn_piece_t *pc = mxn_load_piece(ld);
      const mxn_load_halo_t *h = mxn_load_halo(ld);
      EXPECT_EQ(x.fallback, s->id_fallback) << s->id_warning;
      expect_agreed(0, s->id_warning);
      if (x.fallback) EXPECT_NE(nullptr, strstr(s->id_warning, x.warning)) << s->id_warning;
      ASSERT_NE(nullptr, h);
      int64_t owned = 0, ghosts = 0;
      double sum = 0;
      std::vector<long long> ids;
      for (int b = 0; b < pc->num_blocks; b++) {
        const mxn_piece_block_t *pb = &pc->blocks[b];
        for (int64_t e = 0; e < pb->num_elements; e++) {
          if (h->elem_depth[b][e] == 0) {
            owned++;
            sum += pb->elem_vars[0][e];
            ids.push_back((long long)pb->elem_ids[e]);
          } else {
            ghosts++;
            EXPECT_NE(mpi_rank(), h->elem_owner[b][e]);
          }
        }
      }
      int64_t total = 0;
      double tsum = 0;
      MPI_Allreduce(&owned, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(&sum, &tsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_EQ(CELLS, total);
      EXPECT_EQ(CELL_SUM, tsum);
      // no id owned twice over the ranks
      std::vector<long long> every = gather_all(ids);
      std::set<long long> distinct(every.begin(), every.end());
      EXPECT_EQ(every.size(), distinct.size());
      // each rank's cells touch another rank's: ghosts wherever there is more than one
      if (mpi_size() > 1 && owned > 0) EXPECT_GT(ghosts, 0);
      mxn_load_close(&ld);
    }
}
