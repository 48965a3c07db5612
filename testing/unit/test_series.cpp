// Adaptive file series (mxn/series.h): discovery from every naming form,
// the union of the segments' times with the later segment winning equal
// times, numbers that skip (every segment that exists, loaded at each of
// its times), and the bad inputs, each named in the message and the same on
// every rank. Serial and under mpiexec: the series is made by rank 0 at run
// time (mxn_gen meshes, their times rewritten, mxn_split for spread
// segments of their own M).
#include <netcdf.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "test_mpi.h"

using namespace mxntest;

namespace {

// Give file `path` the time values `t` (it must hold as many steps).
bool set_times(const std::string &path, const std::vector<double> &t) {
  int nc, var;
  if (nc_open(path.c_str(), NC_WRITE, &nc) != NC_NOERR) return false;
  bool ok = nc_inq_varid(nc, "time_whole", &var) == NC_NOERR &&
            nc_put_var_double(nc, var, t.data()) == NC_NOERR;
  return nc_close(nc) == NC_NOERR && ok;
}

// A hex mesh of n^3 cells with 3 steps at times t, written as `name` in dir
// (M = 1) or split into `name`.M.j (M > 1). Rank 0 only.
bool make_segment(const std::string &dir, const std::string &name, int n, int M,
                  const std::vector<double> &t, const char *type = "hex") {
  std::string dims = std::to_string(n) + " " + std::to_string(n) +
                     (std::string(type) == "quad" ? "" : " " + std::to_string(n));
  std::string plain = M > 1 ? dir + "/tmp_" + name : dir + "/" + name;
  std::string cmd = std::string(MXN_BIN_DIR) + "/mxn_gen --type " + type + " --dims " + dims +
                    " --steps 3 '" + plain + "' > /dev/null";
  if (run(cmd) != 0 || !set_times(plain, t)) return false;
  if (M == 1) return true;
  mxn_form_opts_t fo;
  memset(&fo, 0, sizeof fo);
  mxn_form_report_t rep;
  mxn_error_t e;
  mxn_error_clear(&e);
  int st = mxn_split(plain.c_str(), (dir + "/" + name).c_str(), M, MXN_PART_RCB, &fo, &rep, &e);
  EXPECT_EQ(MXN_OK, st) << e.msg;
  return st == MXN_OK && std::remove(plain.c_str()) == 0;
}

// A fresh directory for one test: after every rank is done with the
// previous test's files (rank 0 would otherwise clear a directory that
// another rank still reads).
std::string fresh_dir(const std::string &name) {
  MPI_Barrier(MPI_COMM_WORLD);
  return world_tmpdir(name);
}

// Rank 0 makes the files with `make`; every rank learns whether it could.
template <class F> bool made_by_rank0(F make) {
  int ok = 1;
  if (mpi_rank() == 0) ok = make() ? 1 : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok != 0;
}

// The series a.e (times 0, .1, .2), a.e-s002 (.2, .3, .4) and a.e-s003 spread
// over 3 files (.5, .6, .7).
std::string series_a(const std::string &name) {
  std::string dir = fresh_dir(name);
  bool ok = made_by_rank0([&] {
    return make_segment(dir, "a.e", 2, 1, {0.0, 0.1, 0.2}) &&
           make_segment(dir, "a.e-s002", 3, 1, {0.2, 0.3, 0.4}) &&
           make_segment(dir, "a.e-s003", 4, 3, {0.5, 0.6, 0.7});
  });
  EXPECT_TRUE(ok);
  return dir;
}

struct Series {
  mxn_series_t *s = nullptr;
  mxn_error_t e;
  int status;
  Series(MPI_Comm comm, std::vector<std::string> paths) {
    std::vector<const char *> p;
    for (auto &x : paths) p.push_back(x.c_str());
    status = mxn_series_open(comm, p.data(), (int)p.size(), &s, &e);
  }
  ~Series() { mxn_series_close(&s); }
};

// Every rank opens the series (collectively and, on its own, serially) and
// gets what rank 0 got.
void check_a(const std::string &dir, const std::vector<std::string> &paths,
             const std::string &named_path, int named_seg) {
  for (MPI_Comm comm : {MPI_COMM_WORLD, MPI_COMM_NULL}) {
    Series x(comm, paths);
    ASSERT_EQ(MXN_OK, x.status) << x.e.msg;
    ASSERT_EQ(3, mxn_series_num_segments(x.s));
    EXPECT_FALSE(mxn_series_is_single(x.s));
    const int M[3] = {1, 1, 3}, first[3] = {0, 2, 5}, used[3] = {2, 3, 3};
    for (int k = 0; k < 3; k++) {
      const mxn_series_segment_t *g = mxn_series_segment(x.s, k);
      ASSERT_NE(nullptr, g);
      EXPECT_EQ(k + 1, g->number);
      EXPECT_EQ(k ? 3 : 0, g->width);
      EXPECT_EQ(M[k], g->num_files) << g->path;
      EXPECT_EQ(3, g->num_dim);
      EXPECT_EQ(3, g->num_times);
      EXPECT_EQ(first[k], g->first_step) << g->path;
      EXPECT_EQ(used[k], g->num_series_steps) << g->path;
      if (k == named_seg) EXPECT_EQ(named_path, g->path);
      // the path opens as a dataset of that segment
      mxn_dataset_t *ds = nullptr;
      ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
      int st = mxn_dataset_open(ds, g->path);
      EXPECT_EQ(MXN_OK, st) << mxn_dataset_errmsg(ds);
      if (st == MXN_OK) EXPECT_EQ(M[k], mxn_dataset_structure(ds)->num_files);
      mxn_dataset_destroy(&ds);
    }
    EXPECT_EQ(nullptr, mxn_series_segment(x.s, 3));
    // the others: the plain file, member 0 of the spread set
    const std::string other[3] = {dir + "/a.e", dir + "/a.e-s002", dir + "/a.e-s003.3.0"};
    for (int k = 0; k < 3; k++)
      if (k != named_seg) EXPECT_EQ(other[k], mxn_series_segment(x.s, k)->path);
    // the union, the overlap at 0.2 going to segment 2
    const double t[8] = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7};
    const int seg[8] = {0, 0, 1, 1, 1, 2, 2, 2}, step[8] = {0, 1, 0, 1, 2, 0, 1, 2};
    ASSERT_EQ(8, mxn_series_num_steps(x.s));
    const double *st = mxn_series_times(x.s);
    for (int i = 0; i < 8; i++) {
      mxn_series_step_t w;
      ASSERT_EQ(MXN_OK, mxn_series_step(x.s, i, &w));
      EXPECT_EQ(seg[i], w.segment) << "step " << i;
      EXPECT_EQ(step[i], w.step) << "step " << i;
      EXPECT_DOUBLE_EQ(t[i], w.time);
      EXPECT_DOUBLE_EQ(t[i], st[i]);
    }
    mxn_series_step_t w;
    EXPECT_EQ(MXN_ERR_ARG, mxn_series_step(x.s, 8, &w));
    EXPECT_EQ(MXN_ERR_ARG, mxn_series_step(x.s, -1, &w));
    EXPECT_EQ(0, mxn_series_step_at_time(x.s, -1.0));
    EXPECT_EQ(2, mxn_series_step_at_time(x.s, 0.2));
    EXPECT_EQ(2, mxn_series_step_at_time(x.s, 0.25));
    EXPECT_EQ(7, mxn_series_step_at_time(x.s, 9.0));
  }
}

// An error every rank gets alike, naming `names`.
void check_error(std::vector<std::string> paths, int want, std::vector<std::string> names) {
  Watchdog wd(60);
  Series x(MPI_COMM_WORLD, paths);
  EXPECT_EQ(want, x.status) << x.e.msg;
  EXPECT_EQ(nullptr, x.s);
  expect_agreed(x.status, x.e.msg);
  for (auto &n : names) EXPECT_NE(std::string::npos, std::string(x.e.msg).find(n)) << x.e.msg;
  Series y(MPI_COMM_NULL, paths);
  EXPECT_EQ(want, y.status);
  // (an argument error is agreed over the ranks, which names the rank)
  if (want != MXN_ERR_ARG) EXPECT_STREQ(x.e.msg, y.e.msg);
}

}  // namespace

TEST(Series, FromEachMember) {
  std::string d = series_a("series_a_each");
  check_a(d, {d + "/a.e"}, d + "/a.e", 0);
  check_a(d, {d + "/a.e-s002"}, d + "/a.e-s002", 1);
  check_a(d, {d + "/a.e-s003.3.1"}, d + "/a.e-s003.3.1", 2);
  check_a(d, {d + "/a.e-s003"}, d + "/a.e-s003", 2);  // a spread set's base name
}

TEST(Series, FromList) {
  std::string d = series_a("series_a_list");
  // out of order, with two members of the spread segment: they collapse
  check_a(d, {d + "/a.e-s003.3.0", d + "/a.e-s002", d + "/a.e", d + "/a.e-s003.3.2"},
          d + "/a.e-s002", 1);
}

TEST(Series, WideNumbersAndPaddedRanks) {
  // -s0002, spread over 12 files named .12.00 .. .12.11; the first segment
  // spread too (over 2), each segment its own M
  std::string d = fresh_dir("series_wide");
  ASSERT_TRUE(made_by_rank0([&] {
    return make_segment(d, "b.e", 2, 2, {1, 2, 3}) &&
           make_segment(d, "b.e-s0002", 4, 12, {4, 5, 6}) &&
           make_segment(d, "b.e-s0003", 3, 1, {7, 8, 9});
  }));
  for (std::string p : {d + "/b.e-s0002.12.07", d + "/b.e.2.1", d + "/b.e", d + "/b.e-s0003"}) {
    Series x(MPI_COMM_WORLD, {p});
    ASSERT_EQ(MXN_OK, x.status) << p << ": " << x.e.msg;
    ASSERT_EQ(3, mxn_series_num_segments(x.s)) << p;
    const mxn_series_segment_t *g0 = mxn_series_segment(x.s, 0), *g1 = mxn_series_segment(x.s, 1),
                               *g2 = mxn_series_segment(x.s, 2);
    EXPECT_EQ(2, g0->num_files) << p;
    EXPECT_EQ(12, g1->num_files) << p;
    EXPECT_EQ(2, g1->number);
    EXPECT_EQ(4, g1->width);
    EXPECT_EQ(0, g0->width);
    EXPECT_EQ(1, g2->num_files);
    EXPECT_EQ(3, g2->number);
    EXPECT_EQ(9, mxn_series_num_steps(x.s));
    mxn_series_step_t w;
    ASSERT_EQ(MXN_OK, mxn_series_step(x.s, 4, &w));
    EXPECT_EQ(1, w.segment);
    EXPECT_EQ(1, w.step);
    EXPECT_EQ(5.0, w.time);
  }
}

TEST(Series, OverlapLaterSegmentWins) {
  // segment 2 restarts inside segment 1's times: the union keeps every
  // time once, equal ones from segment 2; segment 3 repeats all of
  // segment 2's times, which then reads none
  std::string d = fresh_dir("series_overlap");
  ASSERT_TRUE(made_by_rank0([&] {
    return make_segment(d, "o.e", 2, 1, {0.0, 1.0, 2.0}) &&
           make_segment(d, "o.e-s002", 2, 1, {1.0, 1.5, 2.0}) &&
           make_segment(d, "o.e-s003", 2, 1, {1.0, 1.5, 2.0 + 1e-13});
  }));
  Series x(MPI_COMM_WORLD, {d + "/o.e-s002"});
  ASSERT_EQ(MXN_OK, x.status) << x.e.msg;
  ASSERT_EQ(4, mxn_series_num_steps(x.s));
  const int seg[4] = {0, 2, 2, 2}, step[4] = {0, 0, 1, 2};
  for (int i = 0; i < 4; i++) {
    mxn_series_step_t w;
    ASSERT_EQ(MXN_OK, mxn_series_step(x.s, i, &w));
    EXPECT_EQ(seg[i], w.segment) << i;
    EXPECT_EQ(step[i], w.step) << i;
  }
  EXPECT_EQ(-1, mxn_series_segment(x.s, 1)->first_step);
  EXPECT_EQ(0, mxn_series_segment(x.s, 1)->num_series_steps);
  EXPECT_EQ(1, mxn_series_segment(x.s, 2)->first_step);
  EXPECT_EQ(1, mxn_series_segment(x.s, 0)->num_series_steps);
}

TEST(Series, SingleFileIsOneSegment) {
  std::string d = fresh_dir("series_single");
  ASSERT_TRUE(made_by_rank0([&] {
    return make_segment(d, "solo.e", 2, 1, {0.5, 1.5, 2.5}) &&
           make_segment(d, "set.e", 3, 4, {1, 2, 3});
  }));
  for (std::string p : {d + "/solo.e", d + "/set.e", d + "/set.e.4.2"}) {
    Series x(MPI_COMM_WORLD, {p});
    ASSERT_EQ(MXN_OK, x.status) << x.e.msg;
    EXPECT_TRUE(mxn_series_is_single(x.s));
    ASSERT_EQ(1, mxn_series_num_segments(x.s));
    EXPECT_EQ(p, mxn_series_segment(x.s, 0)->path);
    EXPECT_EQ(1, mxn_series_segment(x.s, 0)->number);
    EXPECT_EQ(3, mxn_series_num_steps(x.s));
    mxn_series_step_t w;
    ASSERT_EQ(MXN_OK, mxn_series_step(x.s, 2, &w));
    EXPECT_EQ(0, w.segment);
    EXPECT_EQ(2, w.step);
  }
  // a segment file alone, numbered by its name
  ASSERT_TRUE(made_by_rank0([&] { return make_segment(d, "late.e-s007", 2, 1, {1, 2, 3}); }));
  Series y(MPI_COMM_WORLD, {d + "/late.e-s007"});
  ASSERT_EQ(MXN_OK, y.status) << y.e.msg;
  EXPECT_EQ(1, mxn_series_num_segments(y.s));
  EXPECT_EQ(7, mxn_series_segment(y.s, 0)->number);
}

TEST(Series, BadInputNamesTheFiles) {
  std::string d = fresh_dir("series_bad");
  ASSERT_TRUE(made_by_rank0([&] {
    bool ok = make_segment(d, "gap.e", 2, 1, {0, 1, 2}) &&
              make_segment(d, "hole.e", 2, 1, {0, 1, 2}) &&
              make_segment(d, "hole.e-s002", 3, 3, {3, 4, 5}) &&
              std::remove((d + "/hole.e-s002.3.1").c_str()) == 0 &&
              make_segment(d, "dim.e", 2, 1, {0, 1, 2}) &&
              make_segment(d, "dim.e-s002", 2, 1, {3, 4, 5}, "quad") &&
              make_segment(d, "junk.e", 2, 1, {0, 1, 2}) &&
              make_segment(d, "twice.e", 2, 1, {0, 1, 2}) &&
              make_segment(d, "twice.e-s002", 2, 1, {3, 4, 5}) &&
              make_segment(d, "twice.e-s0002", 2, 1, {3, 4, 5});
    std::ofstream(d + "/junk.e-s002") << "not an Exodus file\n";
    return ok;
  }));
  check_error({d + "/hole.e"}, MXN_ERR_FILESET, {d + "/hole.e-s002.3.1", "missing"});
  check_error({d + "/dim.e-s002"}, MXN_ERR_INCONSISTENT, {d + "/dim.e", d + "/dim.e-s002"});
  check_error({d + "/junk.e"}, MXN_ERR_FORMAT, {d + "/junk.e-s002"});
  check_error({d + "/twice.e"}, MXN_ERR_FILESET, {d + "/twice.e-s002", d + "/twice.e-s0002"});
  check_error({d + "/nothing.e"}, MXN_ERR_IO, {d + "/nothing.e"});
  check_error({d + "/gap.e", d + "/nothing.e-s002"}, MXN_ERR_IO, {d + "/nothing.e-s002"});
  check_error({d + "/gap.e", ""}, MXN_ERR_ARG, {"path 1"});
  // no paths at all: every rank refuses alike
  mxn_series_t *s = nullptr;
  mxn_error_t e;
  EXPECT_EQ(MXN_ERR_ARG, mxn_series_open(MPI_COMM_WORLD, nullptr, 0, &s, &e));
  EXPECT_EQ(nullptr, s);
  mxn_series_close(&s);  // NULL is fine
  mxn_series_close(nullptr);
}

// Numbers that skip (only some segments kept): the series is every segment
// that exists, by number, from any one name and from the list; each series
// step loads its segment's mesh (every element once over the ranks) with
// the values of its step within that segment.
TEST(Series, GapsAllowed) {
  std::string d = fresh_dir("series_gaps");
  ASSERT_TRUE(made_by_rank0([&] {
    return make_segment(d, "g.e", 2, 1, {0.0, 0.1, 0.2}) &&
           make_segment(d, "g.e-s005", 3, 1, {0.3, 0.4, 0.5}) &&
           make_segment(d, "h.e", 2, 1, {0.0, 0.1, 0.2}) &&
           make_segment(d, "h.e-s002", 3, 1, {0.3, 0.4, 0.5}) &&
           make_segment(d, "h.e-s004", 4, 3, {0.6, 0.7, 0.8});
  }));
  struct Want {
    std::vector<std::string> paths;
    std::vector<int> numbers, widths, files, cells;
  };
  const std::vector<int> g_num = {1, 5}, g_w = {0, 3}, g_f = {1, 1}, g_c = {2, 3};
  const std::vector<int> h_num = {1, 2, 4}, h_w = {0, 3, 3}, h_f = {1, 1, 3}, h_c = {2, 3, 4};
  const std::vector<Want> cases = {
      {{d + "/g.e"}, g_num, g_w, g_f, g_c},
      {{d + "/g.e-s005"}, g_num, g_w, g_f, g_c},
      {{d + "/g.e", d + "/g.e-s005"}, g_num, g_w, g_f, g_c},
      {{d + "/g.e-s005", d + "/g.e"}, g_num, g_w, g_f, g_c},
      {{d + "/h.e"}, h_num, h_w, h_f, h_c},
      {{d + "/h.e-s004.3.1"}, h_num, h_w, h_f, h_c},
      {{d + "/h.e-s002"}, h_num, h_w, h_f, h_c},
      {{d + "/h.e", d + "/h.e-s002", d + "/h.e-s004.3.0"}, h_num, h_w, h_f, h_c},
  };
  for (const Want &c : cases) {
    SCOPED_TRACE(c.paths[0] + (c.paths.size() > 1 ? " (list)" : ""));
    for (MPI_Comm comm : {MPI_COMM_WORLD, MPI_COMM_NULL}) {
      Series x(comm, c.paths);
      ASSERT_EQ(MXN_OK, x.status) << x.e.msg;
      const int K = (int)c.numbers.size();
      ASSERT_EQ(K, mxn_series_num_segments(x.s));
      for (int k = 0; k < K; k++) {
        const mxn_series_segment_t *g = mxn_series_segment(x.s, k);
        EXPECT_EQ(c.numbers[k], g->number);
        EXPECT_EQ(c.widths[k], g->width);
        EXPECT_EQ(c.files[k], g->num_files) << g->path;
        EXPECT_EQ(3 * k, g->first_step);
        EXPECT_EQ(3, g->num_series_steps);
      }
      ASSERT_EQ(3 * K, mxn_series_num_steps(x.s));
      for (int i = 0; i < 3 * K; i++) {
        mxn_series_step_t w;
        ASSERT_EQ(MXN_OK, mxn_series_step(x.s, i, &w));
        EXPECT_EQ(i / 3, w.segment) << "step " << i;
        EXPECT_EQ(i % 3, w.step) << "step " << i;
        EXPECT_NEAR(0.1 * i, w.time, 1e-12) << "step " << i;
      }
    }
    // every series step, loaded on the ranks: that segment's mesh, its
    // elements once over the ranks, its step's values
    Series x(MPI_COMM_WORLD, c.paths);
    ASSERT_EQ(MXN_OK, x.status) << x.e.msg;
    for (int i = 0; i < mxn_series_num_steps(x.s); i++) {
      mxn_series_step_t w;
      ASSERT_EQ(MXN_OK, mxn_series_step(x.s, i, &w));
      const mxn_series_segment_t *g = mxn_series_segment(x.s, w.segment);
      mxn_load_opts_t o;
      mxn_load_opts_init(&o);
      o.method = MXN_PART_RCB;
      mxn_load_t *ld = nullptr;
      mxn_error_t e;
      mxn_error_clear(&e);
      ASSERT_EQ(MXN_OK, mxn_load_open(MPI_COMM_WORLD, g->path, &o, &ld, &e)) << g->path << ": " << e.msg;
      ASSERT_EQ(MXN_OK, mxn_load_read_step(ld, w.step, &e)) << e.msg;
      const mxn_structure_t *s = mxn_load_structure(ld);
      EXPECT_NEAR(w.time, s->times[w.step], 1e-12);
      int v = -1;
      for (int q = 0; q < s->num_elem_vars; q++)
        if (std::string(s->elem_var_names[q]) == "elem_gid_time") v = q;
      ASSERT_GE(v, 0);
      const mxn_piece_t *p = mxn_load_piece(ld);
      long long n = 0, bad = 0, idsum = 0;
      for (int b = 0; b < p->num_blocks; b++)
        for (int64_t q = 0; q < p->blocks[b].num_elements; q++) {
          const mxn_gid_t id = p->blocks[b].elem_ids[q];
          n++;
          idsum += id;
          if (p->blocks[b].elem_vars[v][q] != -(double(id) + w.step / 16.0)) bad++;
        }
      long long tot[3] = {n, bad, idsum};
      MPI_Allreduce(MPI_IN_PLACE, tot, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      const long long E = (long long)std::pow(c.cells[w.segment], 3);
      EXPECT_EQ(E, tot[0]) << "series step " << i << " (segment " << g->number << ")";
      EXPECT_EQ(E * (E + 1) / 2, tot[2]) << "series step " << i;
      EXPECT_EQ(0, tot[1]) << "series step " << i << ": values not those of step " << w.step;
      mxn_load_close(&ld);
    }
  }
}
