// Writers' hints checked, not trusted (issue 58): spread sets whose Nemesis
// global counts disagree with what the members hold, as a simulation
// framework writes them after mesh adaptivity. The load, the serial
// extraction, join and repart go on with what the members hold and say so
// in one warning naming the file and both numbers (mxn_structure_t
// .hint_warning, mxn_structure_warnings(), mxn_form_report_t.warnings).
// Serial and under mpiexec, with every partition method; the sets are made
// by rank 0 at run time (mxn_gen, mxn_split, the counts rewritten through
// ncdump and ncgen).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "test_mpi.h"

using namespace mxntest;

namespace {

// Rank 0 makes the files with `make`; every rank learns whether it could.
template <class F> bool made_by_rank0(F make) {
  int ok = 1;
  if (mpi_rank() == 0) ok = make() ? 1 : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok != 0;
}

// mxn_gen hex mesh of nx*ny*nz cells in 2 blocks, 2 steps, split into M
// members base.M.j.
bool make_set(const std::string &dir, const std::string &base, int nx, int ny, int nz, int M) {
  const std::string plain = dir + "/src_" + base;
  std::string cmd = std::string(MXN_BIN_DIR) + "/mxn_gen --type hex --blocks 2 --steps 2 --dims " +
                    std::to_string(nx) + " " + std::to_string(ny) + " " + std::to_string(nz) +
                    " '" + plain + "' > /dev/null";
  if (run(cmd) != 0) return false;
  mxn_form_opts_t fo;
  memset(&fo, 0, sizeof fo);
  mxn_form_report_t rep;
  mxn_error_t e;
  mxn_error_clear(&e);
  int st = mxn_split(plain.c_str(), (dir + "/" + base).c_str(), M, MXN_PART_RCB, &fo, &rep, &e);
  EXPECT_EQ(MXN_OK, st) << e.msg;
  return st == MXN_OK;
}

// Rewrite member `path`'s Nemesis global counts (dimensions: rewritten
// through ncdump and ncgen, in the member's own netCDF kind).
bool set_global_counts(const std::string &path, long long nodes, long long elems) {
  const std::string cdl = path + ".cdl", tmp = path + ".tmp";
  std::string cmd = "kind=$(ncdump -k '" + path + "') && ncdump '" + path +
                    "' | sed -e 's/^\\(\\s*num_nodes_global = \\)[0-9]* ;/\\1" +
                    std::to_string(nodes) + " ;/' -e 's/^\\(\\s*num_elems_global = \\)[0-9]* ;/\\1" +
                    std::to_string(elems) + " ;/' > '" + cdl + "' && grep -q 'num_elems_global = " +
                    std::to_string(elems) + " ;' '" + cdl + "' && ncgen -k \"$kind\" -o '" + tmp +
                    "' '" + cdl + "' && mv '" + tmp + "' '" + path + "' && rm -f '" + cdl + "'";
  return run(cmd) == 0;
}

std::string member(const std::string &dir, const std::string &base, int M, int j) {
  char name[512];
  mxn_member_name((dir + "/" + base).c_str(), M, j, name, sizeof name);
  return name;
}

struct Case {
  std::string base;  // base name of the set
  int M;
  long long hold, said;  // elements the members hold, and their counts say
};

// Two sets in one fresh directory:
// - "coarse": 6x6x6 cells (216) split in 4, the counts saying 20 elements
//   and 20 nodes more (a count left from before coarsening);
// - "removed": 6x6x5 cells (180) split in 3, the counts those of the 6x6x6
//   mesh it was cut from (216 elements, 343 nodes).
std::string make_cases(const std::string &name, std::vector<Case> &cases) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::string dir = world_tmpdir(name);
  cases = {{"coarse.e", 4, 216, 236}, {"removed.e", 3, 180, 216}};
  bool ok = made_by_rank0([&] {
    bool good = make_set(dir, "coarse.e", 6, 6, 6, 4) && make_set(dir, "removed.e", 6, 6, 5, 3);
    for (int j = 0; good && j < 4; j++) good = set_global_counts(member(dir, "coarse.e", 4, j), 363, 236);
    for (int j = 0; good && j < 3; j++) good = set_global_counts(member(dir, "removed.e", 3, j), 343, 216);
    return good;
  });
  EXPECT_TRUE(ok) << "making the sets in " << dir;
  return dir;
}

// The warning names member 0 and both numbers, and says what is done.
void expect_warning(const std::string &w, const std::string &file, const Case &c) {
  const std::string want = file + ": the members hold " + std::to_string(c.hold) +
                           " distinct element ids where their Nemesis global counts say " +
                           std::to_string(c.said) + "; going on with what the members hold";
  EXPECT_NE(std::string::npos, w.find(want)) << "warning: '" << w << "'\nexpected: '" << want << "'";
  // once
  EXPECT_EQ(w.find("Nemesis"), w.rfind("Nemesis")) << w;
}

int elem_var(const mxn_structure_t *s, const char *name) {
  for (int v = 0; v < s->num_elem_vars; v++)
    if (std::string(s->elem_var_names[v]) == name) return v;
  return -1;
}

}  // namespace

// The collective load on every rank count and partition method: every
// element owned once, the generator's values by global id, one warning.
TEST(Hints, LoadGoesOnWithWhatTheMembersHold) {
  Watchdog wd(300);
  std::vector<Case> cases;
  std::string dir = make_cases("hints_load", cases);
  for (const Case &c : cases)
    for (mxn_part_method m : {MXN_PART_FILES, MXN_PART_LINEAR, MXN_PART_SFC, MXN_PART_RCB,
                              MXN_PART_RIB, MXN_PART_HSFC, MXN_PART_GRAPH}) {
      for (int ghosts : {0, 1}) {
        SCOPED_TRACE(c.base + " method " + std::to_string((int)m) + " ghosts " + std::to_string(ghosts));
        mxn_load_opts_t o;
        mxn_load_opts_init(&o);
        o.method = m;
        o.ghost_levels = ghosts;
        mxn_load_t *ld = nullptr;
        mxn_error_t e;
        mxn_error_clear(&e);
        const std::string path = member(dir, c.base, c.M, 1);
        int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &e);
        ASSERT_EQ(MXN_OK, st) << e.msg;
        const mxn_structure_t *s = mxn_load_structure(ld);
        expect_warning(s->hint_warning, member(dir, c.base, c.M, 0), c);
        char all[2 * MXN_ERRMSG_LEN];
        EXPECT_EQ(1, mxn_structure_warnings(s, all, sizeof all));
        EXPECT_STREQ(s->hint_warning, all);
        EXPECT_EQ(0, s->id_fallback) << s->id_warning;
        // the same warning on every rank
        expect_agreed(st, s->hint_warning);
        ASSERT_EQ(MXN_OK, mxn_load_read_step(ld, 1, &e)) << e.msg;
        const mxn_piece_t *p = mxn_load_piece(ld);
        int v = elem_var(s, "elem_gid_time");
        ASSERT_GE(v, 0);
        int bad = 0;  // ghosts included: they hold the generator's values too
        for (int b = 0; b < p->num_blocks; b++) {
          const mxn_piece_block_t *pb = &p->blocks[b];
          for (int64_t i = 0; i < pb->num_elements; i++) {
            const double want = -(double(pb->elem_ids[i]) + 1.0 / 16);
            if (!pb->elem_vars || !pb->elem_vars[v] || pb->elem_vars[v][i] != want) bad++;
          }
        }
        EXPECT_EQ(0, bad) << "elements with values other than the generator's";
        if (ghosts == 0) {
          // without ghosts every element of the piece is owned
          std::vector<int64_t> mine;
          for (int b = 0; b < p->num_blocks; b++)
            for (int64_t i = 0; i < p->blocks[b].num_elements; i++) mine.push_back(p->blocks[b].elem_ids[i]);
          int n = (int)mine.size(), size = mpi_size();
          std::vector<int> counts(size), displs(size);
          MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
          int total = 0;
          for (int r = 0; r < size; r++) displs[r] = total, total += counts[r];
          std::vector<int64_t> every(total);
          MPI_Allgatherv(mine.data(), n, MPI_INT64_T, every.data(), counts.data(), displs.data(),
                         MPI_INT64_T, MPI_COMM_WORLD);
          std::sort(every.begin(), every.end());
          ASSERT_EQ(c.hold, (long long)every.size()) << "owned elements over the ranks";
          for (int64_t k = 0; k < (int64_t)every.size(); k++)
            ASSERT_EQ(k + 1, every[k]) << "each element owned exactly once";
        }
        mxn_load_close(&ld);
      }
    }
}

// Serially: the whole extraction (what join and info read), mxn_join and
// its report, and a rank count of 1 through mxn_repart on COMM_SELF.
TEST(Hints, SerialJoinAndRepartWarn) {
  std::vector<Case> cases;
  std::string dir = make_cases("hints_serial", cases);
  if (mpi_rank() != 0) return;
  for (const Case &c : cases) {
    SCOPED_TRACE(c.base);
    const std::string m0 = member(dir, c.base, c.M, 0), m2 = member(dir, c.base, c.M, 2);
    mxn_dataset_t *ds = nullptr;
    ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
    ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, m2.c_str())) << mxn_dataset_errmsg(ds);
    mxn_piece_t *pc = nullptr;
    ASSERT_EQ(MXN_OK, mxn_extract(ds, nullptr, nullptr, &pc)) << mxn_dataset_errmsg(ds);
    EXPECT_EQ(c.hold, (long long)pc->num_elements);
    expect_warning(mxn_dataset_structure(ds)->hint_warning, m0, c);
    mxn_piece_destroy(&pc);
    mxn_dataset_destroy(&ds);

    mxn_form_report_t rep;
    mxn_error_t e;
    mxn_error_clear(&e);
    const std::string out = dir + "/joined_" + c.base;
    ASSERT_EQ(MXN_OK, mxn_join(m0.c_str(), out.c_str(), nullptr, &rep, &e)) << e.msg;
    EXPECT_EQ(c.hold, (long long)rep.num_elements);
    expect_warning(rep.warnings, m0, c);
    // what was joined is what the members hold: the generated mesh (the
    // tool is a process of its own: not started from inside an MPI job)
    if (mpi_size() == 1) {
      char src[600];
      snprintf(src, sizeof src, "%s/src_%s", dir.c_str(), c.base.c_str());
      EXPECT_EQ(0, run(std::string(MXN_BIN_DIR) + "/mxn diff '" + src + "' '" + out + "' > /dev/null"));
    }

    mxn_load_opts_t o;
    mxn_load_opts_init(&o);
    o.method = MXN_PART_RCB;
    mxn_error_clear(&e);
    const std::string rbase = dir + "/rp_" + c.base;
    ASSERT_EQ(MXN_OK, mxn_repart(MPI_COMM_SELF, m0.c_str(), rbase.c_str(), &o, &rep, &e)) << e.msg;
    expect_warning(rep.warnings, m0, c);
    // the repart's own counts are right: it reads back without a warning
    ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
    ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, rbase.c_str())) << mxn_dataset_errmsg(ds);
    ASSERT_EQ(MXN_OK, mxn_extract(ds, nullptr, nullptr, &pc)) << mxn_dataset_errmsg(ds);
    EXPECT_STREQ("", mxn_dataset_structure(ds)->hint_warning);
    EXPECT_EQ(c.hold, mxn_dataset_structure(ds)->num_elements_global);
    mxn_piece_destroy(&pc);
    mxn_dataset_destroy(&ds);
  }
}

// Counts that agree give no warning (the check is not a constant).
TEST(Hints, AgreeingCountsSayNothing) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::string dir = world_tmpdir("hints_agree");
  ASSERT_TRUE(made_by_rank0([&] { return make_set(dir, "ok.e", 4, 4, 4, 3); }));
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = MXN_PART_RCB;
  mxn_load_t *ld = nullptr;
  mxn_error_t e;
  mxn_error_clear(&e);
  ASSERT_EQ(MXN_OK, mxn_load_open(MPI_COMM_WORLD, (dir + "/ok.e").c_str(), &o, &ld, &e)) << e.msg;
  const mxn_structure_t *s = mxn_load_structure(ld);
  EXPECT_STREQ("", s->hint_warning);
  char all[16] = "x";
  EXPECT_EQ(0, mxn_structure_warnings(s, all, sizeof all));
  EXPECT_STREQ("", all);
  EXPECT_EQ(64, s->num_elements_global);
  mxn_load_close(&ld);
}
