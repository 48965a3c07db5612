// Sets whose members differ in their variables (as ParaView's parallel
// ExodusIIWriter writes them when one rank's piece carries an array the
// others lack): variables are matched by name, the dataset offers their
// union, and where a member lacks one its entities read NaN; a shared node
// takes the value of a member that has it. Checked on a serial open and
// read, the parallel load at any rank count (run at N = 1 and 3), the join
// and the repart.
//
// The set is written here with the Exodus API: a box of NX x NY x NZ hex
// cells cut along x into three members of two cell columns each; member m
// holds the cells 2m <= i < 2m + 2 and their nodes, so members share the
// node planes x = 2 and x = 4. Node (i,j,k) has id 1 + i + 7 (j + 3 k),
// cell (i,j,k) id 1 + i + 6 (j + 2 k). At step s (0-based), time s + 1:
//   element  p    = id + 10 s        q = -id - 10 s
//            orig = id - 1 + s       (vtkOriginalCellIds, member 0 only)
//   nodal    u    = id + 0.5 s       w = 2 id + s
//   global   g1   = 1 + s            g2 = 2 + s
//   node set 1 (x = 0 and x = 6: members 0 and 2) variable nsv = id + s
// and each member lists them as follows (member 0's extra element
// variable comes first, as in the ParaView set that showed the problem;
// member 2 lists its variables in another order):
//   member 0: element orig p q, nodal u w, global g1 g2
//   member 1: element p q,      nodal u,   global g1
//   member 2: element q p,      nodal w u, global g2 g1, node set nsv
// The dataset's lists are then orig p q / u w / g1 g2 / nsv. Member 1
// alone holds the nodes of plane x = 3: w has no value there (NaN); the
// planes it shares take w from members 0 and 2.
#include <exodusII.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "mxn/mxn.h"
#include "test_mpi.h"
#include "test_support.h"

using namespace mxntest;

namespace {

const int NX = 6, NY = 2, NZ = 2, STEPS = 2;
const int NCELL = NX * NY * NZ, NNODE = (NX + 1) * (NY + 1) * (NZ + 1);

int64_t node_id(int i, int j, int k) { return 1 + i + (NX + 1) * (j + (NY + 1) * k); }
int64_t cell_id(int i, int j, int k) { return 1 + i + NX * (j + NY * k); }
int node_x(int64_t id) { return (int)((id - 1) % (NX + 1)); }
int cell_x(int64_t id) { return (int)((id - 1) % NX); }

double value(const std::string &name, int64_t id, int s) {
  if (name == "p") return id + 10.0 * s;
  if (name == "q") return -(double)id - 10.0 * s;
  if (name == "vtkOriginalCellIds") return id - 1.0 + s;
  if (name == "u") return id + 0.5 * s;
  if (name == "w") return 2.0 * id + s;
  if (name == "g1") return 1.0 + s;
  if (name == "g2") return 2.0 + s;
  if (name == "nsv") return id + (double)s;
  return 0;
}

// Whether the value of `name` exists at the node or cell `id`.
bool has_value(const std::string &name, int64_t id) {
  if (name == "vtkOriginalCellIds") return cell_x(id) < 2;  // member 0's cells
  if (name == "w") return node_x(id) != 3;                  // all but member 1's own
  return true;
}

struct MemberVars {
  std::vector<std::string> elem, nodal, global, nset;
};

void put_names(int exo, ex_entity_type t, const std::vector<std::string> &v) {
  if (v.empty()) return;
  ASSERT_EQ(0, ex_put_variable_param(exo, t, (int)v.size()));
  std::vector<char *> p;
  for (auto &s : v) p.push_back(const_cast<char *>(s.c_str()));
  ASSERT_EQ(0, ex_put_variable_names(exo, t, (int)v.size(), p.data()));
}

// Member m of the set at base (base.3.m).
void write_member(const std::string &base, int m, const MemberVars &mv) {
  const std::string path = base + ".3." + std::to_string(m);
  int cpu = 8, io = 8;
  int exo = ex_create(path.c_str(), EX_CLOBBER, &cpu, &io);
  ASSERT_GE(exo, 0) << path;
  const int i0 = 2 * m, i1 = 2 * m + 2;  // cells i0 <= i < i1, nodes i0..i1
  std::vector<int64_t> nid;
  std::map<int64_t, int> local;
  std::vector<double> x, y, z;
  for (int k = 0; k <= NZ; k++)
    for (int j = 0; j <= NY; j++)
      for (int i = i0; i <= i1; i++) {
        local[node_id(i, j, k)] = (int)nid.size() + 1;
        nid.push_back(node_id(i, j, k));
        x.push_back(i), y.push_back(j), z.push_back(k);
      }
  std::vector<int64_t> eid;
  std::vector<int> conn;
  for (int k = 0; k < NZ; k++)
    for (int j = 0; j < NY; j++)
      for (int i = i0; i < i1; i++) {
        eid.push_back(cell_id(i, j, k));
        const int c[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                             {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
        for (auto &d : c) conn.push_back(local[node_id(i + d[0], j + d[1], k + d[2])]);
      }
  // Node set 1: the nodes on x = 0 or x = NX this member holds.
  std::vector<int> ns;
  std::vector<int64_t> ns_ids;
  for (size_t n = 0; n < nid.size(); n++)
    if (node_x(nid[n]) == 0 || node_x(nid[n]) == NX) {
      ns.push_back((int)n + 1);
      ns_ids.push_back(nid[n]);
    }
  ASSERT_EQ(0, ex_put_init(exo, "differing variables", 3, (int)nid.size(), (int)eid.size(), 1,
                           ns.empty() ? 0 : 1, 0));
  ASSERT_EQ(0, ex_put_coord(exo, x.data(), y.data(), z.data()));
  std::vector<int> nmap(nid.begin(), nid.end()), emap(eid.begin(), eid.end());
  ASSERT_EQ(0, ex_put_id_map(exo, EX_NODE_MAP, nmap.data()));
  ASSERT_EQ(0, ex_put_id_map(exo, EX_ELEM_MAP, emap.data()));
  ASSERT_EQ(0, ex_put_block(exo, EX_ELEM_BLOCK, 1, "HEX8", (int)eid.size(), 8, 0, 0, 0));
  ASSERT_EQ(0, ex_put_conn(exo, EX_ELEM_BLOCK, 1, conn.data(), nullptr, nullptr));
  if (!ns.empty()) {
    ASSERT_EQ(0, ex_put_set_param(exo, EX_NODE_SET, 1, (int)ns.size(), 0));
    ASSERT_EQ(0, ex_put_set(exo, EX_NODE_SET, 1, ns.data(), nullptr));
  }
  put_names(exo, EX_ELEM_BLOCK, mv.elem);
  put_names(exo, EX_NODAL, mv.nodal);
  put_names(exo, EX_GLOBAL, mv.global);
  if (!ns.empty()) put_names(exo, EX_NODE_SET, mv.nset);
  for (int s = 0; s < STEPS; s++) {
    double t = s + 1;
    ASSERT_EQ(0, ex_put_time(exo, s + 1, &t));
    std::vector<double> g;
    for (auto &n : mv.global) g.push_back(value(n, 0, s));
    if (!g.empty()) ASSERT_EQ(0, ex_put_var(exo, s + 1, EX_GLOBAL, 1, 0, (int)g.size(), g.data()));
    for (size_t v = 0; v < mv.nodal.size(); v++) {
      std::vector<double> a;
      for (int64_t id : nid) a.push_back(value(mv.nodal[v], id, s));
      ASSERT_EQ(0, ex_put_var(exo, s + 1, EX_NODAL, (int)v + 1, 1, (int)a.size(), a.data()));
    }
    for (size_t v = 0; v < mv.elem.size(); v++) {
      std::vector<double> a;
      for (int64_t id : eid) a.push_back(value(mv.elem[v], id, s));
      ASSERT_EQ(0, ex_put_var(exo, s + 1, EX_ELEM_BLOCK, (int)v + 1, 1, (int)a.size(), a.data()));
    }
    for (size_t v = 0; v < mv.nset.size() && !ns.empty(); v++) {
      std::vector<double> a;
      for (int64_t id : ns_ids) a.push_back(value(mv.nset[v], id, s));
      ASSERT_EQ(0, ex_put_var(exo, s + 1, EX_NODE_SET, (int)v + 1, 1, (int)a.size(), a.data()));
    }
  }
  ASSERT_EQ(0, ex_close(exo));
}

// The differing set under dir; returns its member 0.
std::string write_set(const std::string &dir) {
  const std::string base = dir + "/dv.e";
  write_member(base, 0, {{"vtkOriginalCellIds", "p", "q"}, {"u", "w"}, {"g1", "g2"}, {}});
  write_member(base, 1, {{"p", "q"}, {"u"}, {"g1"}, {}});
  write_member(base, 2, {{"q", "p"}, {"w", "u"}, {"g2", "g1"}, {"nsv"}});
  return base + ".3.0";
}

std::vector<std::string> names(int n, char (*v)[MXN_NAME_LEN]) {
  std::vector<std::string> r;
  for (int i = 0; i < n; i++) r.push_back(v[i]);
  return r;
}

// Every value of a piece at step s against the definitions above: the
// value where it exists, NaN where not. Counts the NaNs seen per variable.
void check_piece(const mxn_structure_t *s, const mxn_piece_t *pc, int step,
                 std::map<std::string, int64_t> *nan_count) {
  for (int v = 0; v < s->num_node_vars; v++) {
    const std::string n = s->node_var_names[v];
    ASSERT_NE(pc->node_vars[v], nullptr) << n;
    for (int64_t i = 0; i < pc->num_nodes; i++) {
      double got = pc->node_vars[v][i];
      int64_t id = pc->node_ids[i];
      if (has_value(n, id))
        EXPECT_EQ(got, value(n, id, step)) << n << " at node " << id << ", step " << step;
      else
        EXPECT_TRUE(std::isnan(got)) << n << " at node " << id << " is " << got;
      if (std::isnan(got)) (*nan_count)[n]++;
    }
  }
  for (int b = 0; b < pc->num_blocks; b++)
    for (int v = 0; v < s->num_elem_vars; v++) {
      const std::string n = s->elem_var_names[v];
      const mxn_piece_block_t *pb = &pc->blocks[b];
      ASSERT_NE(pb->elem_vars[v], nullptr) << n;
      for (int64_t e = 0; e < pb->num_elements; e++) {
        double got = pb->elem_vars[v][e];
        int64_t id = pb->elem_ids[e];
        if (has_value(n, id))
          EXPECT_EQ(got, value(n, id, step)) << n << " at element " << id;
        else
          EXPECT_TRUE(std::isnan(got)) << n << " at element " << id << " is " << got;
        if (std::isnan(got)) (*nan_count)[n]++;
      }
    }
  for (int v = 0; v < s->num_global_vars; v++)
    EXPECT_EQ(pc->global_vars[v], value(s->global_var_names[v], 0, step)) << s->global_var_names[v];
}

void expect_union(const mxn_structure_t *s) {
  EXPECT_EQ(names(s->num_elem_vars, s->elem_var_names),
            (std::vector<std::string>{"vtkOriginalCellIds", "p", "q"}));
  EXPECT_EQ(names(s->num_node_vars, s->node_var_names), (std::vector<std::string>{"u", "w"}));
  EXPECT_EQ(names(s->num_global_vars, s->global_var_names),
            (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(names(s->node_set_vars.num, s->node_set_vars.names), (std::vector<std::string>{"nsv"}));
}

}  // namespace

// Serial: open, the union of the names, every value and NaN of a whole read.
TEST(DifferingVars, OpenAndReadWhole) {
  if (mpi_rank() != 0) return;  // serial; the MPI runs check the load below
  const std::string dir = tmpdir("differing_vars_serial");
  const std::string path = write_set(dir);
  WholeMesh w(path);
  ASSERT_TRUE(w.ok()) << w.error;
  const mxn_structure_t *s = w.s();
  expect_union(s);
  ASSERT_EQ(w.pc->num_nodes, NNODE);
  ASSERT_EQ(w.pc->num_elements, NCELL);
  for (int step = 0; step < STEPS; step++) {
    ASSERT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.pc, step)) << mxn_dataset_errmsg(w.ds);
    std::map<std::string, int64_t> nan;
    check_piece(s, w.pc, step, &nan);
    EXPECT_EQ(nan["vtkOriginalCellIds"], NCELL * 2 / 3);  // members 1 and 2
    EXPECT_EQ(nan["w"], (NY + 1) * (NZ + 1));             // plane x = 3
    EXPECT_EQ(nan["p"] + nan["q"] + nan["u"], 0);
    // Node set 1: member 0's half has no nsv (NaN), member 2's has it.
    ASSERT_EQ(w.pc->num_node_sets, 1);
    const mxn_piece_set_t *ns = &w.pc->node_sets[0];
    ASSERT_EQ(ns->n, 2 * (NY + 1) * (NZ + 1));
    ASSERT_NE(ns->vars, nullptr);
    ASSERT_NE(ns->vars[0], nullptr);
    for (int64_t i = 0; i < ns->n; i++) {
      int64_t id = w.pc->node_ids[ns->entries[i]];
      if (node_x(id) == 0)
        EXPECT_TRUE(std::isnan(ns->vars[0][i])) << id;
      else
        EXPECT_EQ(ns->vars[0][i], value("nsv", id, step)) << id;
    }
  }
}

// A set whose members agree keeps its order and values exactly: the same
// member written three times in another order would not be one, so the
// agreeing case is the dataset written with every variable in member 0's
// order (no NaN anywhere).
TEST(DifferingVars, AgreeingMembersUnchanged) {
  if (mpi_rank() != 0) return;
  const std::string dir = tmpdir("differing_vars_agree");
  const std::string base = dir + "/ag.e";
  const MemberVars all{{"vtkOriginalCellIds", "p", "q"}, {"u", "w"}, {"g1", "g2"}, {"nsv"}};
  for (int m = 0; m < 3; m++) write_member(base, m, all);
  WholeMesh w(base + ".3.0");
  ASSERT_TRUE(w.ok()) << w.error;
  expect_union(w.s());
  ASSERT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.pc, 1)) << mxn_dataset_errmsg(w.ds);
  for (int v = 0; v < w.s()->num_node_vars; v++)
    for (int64_t i = 0; i < w.pc->num_nodes; i++)
      EXPECT_EQ(w.pc->node_vars[v][i], value(w.s()->node_var_names[v], w.pc->node_ids[i], 1));
  for (int v = 0; v < w.s()->num_elem_vars; v++)
    for (int64_t e = 0; e < w.pc->blocks[0].num_elements; e++)
      EXPECT_EQ(w.pc->blocks[0].elem_vars[v][e],
                value(w.s()->elem_var_names[v], w.pc->blocks[0].elem_ids[e], 1));
}

// The join keeps every variable: NaN written where no member had a value.
TEST(DifferingVars, JoinKeepsEveryVariable) {
  if (mpi_rank() != 0) return;
  const std::string dir = tmpdir("differing_vars_join");
  const std::string path = write_set(dir);
  const std::string out = dir + "/joined.e";
  mxn_error_t err;
  mxn_error_clear(&err);
  ASSERT_EQ(MXN_OK, mxn_join(path.c_str(), out.c_str(), nullptr, nullptr, &err)) << err.msg;
  // Through the Exodus API: names, and NaN counts of the last step.
  int cpu = 8, io = 8;
  float ver;
  int exo = ex_open(out.c_str(), EX_READ, &cpu, &io, &ver);
  ASSERT_GE(exo, 0);
  int nev = 0, nnv = 0, ngv = 0;
  ASSERT_EQ(0, ex_get_variable_param(exo, EX_ELEM_BLOCK, &nev));
  ASSERT_EQ(0, ex_get_variable_param(exo, EX_NODAL, &nnv));
  ASSERT_EQ(0, ex_get_variable_param(exo, EX_GLOBAL, &ngv));
  EXPECT_EQ(nev, 3);
  EXPECT_EQ(nnv, 2);
  EXPECT_EQ(ngv, 2);
  std::vector<double> a(NNODE);
  ASSERT_EQ(0, ex_get_var(exo, STEPS, EX_NODAL, 2, 1, NNODE, a.data()));  // w
  int nan = 0;
  for (double x : a) nan += std::isnan(x);
  EXPECT_EQ(nan, (NY + 1) * (NZ + 1));
  a.assign(NCELL, 0);
  ASSERT_EQ(0, ex_get_var(exo, STEPS, EX_ELEM_BLOCK, 1, 1, NCELL, a.data()));  // orig
  nan = 0;
  for (double x : a) nan += std::isnan(x);
  EXPECT_EQ(nan, NCELL * 2 / 3);
  ASSERT_EQ(0, ex_close(exo));
  // The joined file reads back to the same values.
  WholeMesh w(out);
  ASSERT_TRUE(w.ok()) << w.error;
  expect_union(w.s());
  ASSERT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.pc, STEPS - 1)) << mxn_dataset_errmsg(w.ds);
  std::map<std::string, int64_t> nans;
  check_piece(w.s(), w.pc, STEPS - 1, &nans);
  // The command line too (not from inside an MPI job: the tool starts MPI).
  if (mpi_size() > 1) return;
  const std::string out2 = dir + "/joined_cli.e";
  EXPECT_EQ(0, run(std::string(MXN_BIN_DIR) + "/mxn join '" + path + "' '" + out2 + "' > /dev/null"));
  WholeMesh w2(out2);
  ASSERT_TRUE(w2.ok()) << w2.error;
  expect_union(w2.s());
}

// The parallel load on every rank of the run, with and without ghosts and
// by whole members and RCB: every value of every rank's piece, each element
// owned once.
TEST(DifferingVars, LoadOnRanks) {
  Watchdog wd(120);
  const std::string dir = world_tmpdir("differing_vars_load");
  std::string path;
  if (mpi_rank() == 0) path = write_set(dir);
  else path = dir + "/dv.e.3.0";
  MPI_Barrier(MPI_COMM_WORLD);
  for (mxn_part_method method : {MXN_PART_FILES, MXN_PART_RCB})
    for (int ghosts : {0, 1}) {
      SCOPED_TRACE("method " + std::to_string(method) + ", ghosts " + std::to_string(ghosts));
      mxn_load_opts_t o;
      mxn_load_opts_init(&o);
      o.method = method;
      o.ghost_levels = ghosts;
      mxn_error_t err;
      mxn_error_clear(&err);
      mxn_load_t *ld = nullptr;
      int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &err);
      expect_agreed(st, err.msg);
      ASSERT_EQ(MXN_OK, st) << err.msg;
      const mxn_structure_t *s = mxn_load_structure(ld);
      expect_union(s);
      for (int step = STEPS - 1; step >= 0; step--) {
        st = mxn_load_read_step(ld, step, &err);
        expect_agreed(st, err.msg);
        ASSERT_EQ(MXN_OK, st) << err.msg;
        std::map<std::string, int64_t> nan;
        check_piece(s, mxn_load_piece(ld), step, &nan);
      }
      int64_t owned = mxn_load_stats(ld).owned_elements;
      MPI_Allreduce(MPI_IN_PLACE, &owned, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_EQ(owned, NCELL);
      mxn_load_close(&ld);
    }
}

// The repart writes every variable into each of its members (NaN where no
// value), and the set it writes reads back to the same values.
TEST(DifferingVars, RepartKeepsEveryVariable) {
  Watchdog wd(120);
  const std::string dir = world_tmpdir("differing_vars_repart");
  std::string path;
  if (mpi_rank() == 0) path = write_set(dir);
  else path = dir + "/dv.e.3.0";
  MPI_Barrier(MPI_COMM_WORLD);
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = MXN_PART_RCB;
  mxn_error_t err;
  mxn_error_clear(&err);
  const std::string outbase = dir + "/rp.e";
  int st = mxn_repart(MPI_COMM_WORLD, path.c_str(), outbase.c_str(), &o, nullptr, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  char m0[4096];
  mxn_member_name(outbase.c_str(), mpi_size(), 0, m0, sizeof m0);
  if (mpi_rank() == 0) {
    WholeMesh w(m0);
    ASSERT_TRUE(w.ok()) << w.error;
    expect_union(w.s());
    for (int step = 0; step < STEPS; step++) {
      ASSERT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.pc, step)) << mxn_dataset_errmsg(w.ds);
      std::map<std::string, int64_t> nan;
      check_piece(w.s(), w.pc, step, &nan);
      EXPECT_EQ(nan["vtkOriginalCellIds"], NCELL * 2 / 3);
      EXPECT_EQ(nan["w"], (NY + 1) * (NZ + 1));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
