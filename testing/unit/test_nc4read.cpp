// Reading netCDF-4 and compressed members (core/src/io/member.c): a set
// written as netCDF-3, as netCDF-4 and as deflated netCDF-4 loads to the
// same pieces on every rank count, and a compressed chunk a read needs is
// decompressed once: reads of runs inside one chunk decompress it once
// (the box), and a whole step on one rank decompresses exactly the step's
// chunks of its compressed variables; beyond the cap on open HDF5 files,
// members are closed and opened again with the same pieces.
#include <gtest/gtest.h>
#include <mpi.h>
#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "mxn/mxn.h"
extern "C" {
#include "io/h5light.h" // the netCDF-4 members' HDF5 handles
#include "io/store.h"  // the member reads, to read runs as the extraction does
#include "read/plan.h" // the members a piece's steps read
}
#include "test_mpi.h"
#include "test_support.h"

using namespace mxntest;

namespace {

const int M = 4, STEPS = 3;

// The mesh split into M members in three formats (rank 0 writes, all wait).
struct Sets {
  std::string base[3];  // nc3, nc4, nc4 deflate 1
};

Sets make_sets(const std::string &dir) {
  Sets s;
  const char *tag[3] = {"nc3", "nc4", "nc4z1"};
  for (int k = 0; k < 3; k++) s.base[k] = dir + "/" + tag[k] + ".e";
  if (mpi_rank() == 0) {
    std::string mesh =
        generate(dir, "m.e", "--type hex --dims 24 12 10 --blocks 2 --steps 3");
    for (int k = 0; k < 3; k++) {
      mxn_error_t err;
      mxn_error_clear(&err);
      mxn_form_opts_t o;
      memset(&o, 0, sizeof o);
      o.gap = -1;
      o.file.format = k == 0 ? MXN_FORMAT_DEFAULT : MXN_FORMAT_NC4;
      o.file.compress = k == 2 ? 1 : 0;
      EXPECT_EQ(MXN_OK, mxn_split(mesh.c_str(), s.base[k].c_str(), M, MXN_PART_RCB, &o, nullptr,
                                  &err))
          << err.msg;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return s;
}

// Members open through HDF5: as counted, and no more than the cap.
void expect_h5_open_within(const mxn_dataset_t *raw, int cap, const char *when) {
  int open = 0;
  for (int j = 0; j < raw->nfiles; j++) {
    const mxn__file_t *f = mxn__file_held(raw, j);  // only a held member can be open
    open += f && f->h5 != nullptr;
  }
  EXPECT_EQ(open, raw->st.h5_open_count) << when;
  EXPECT_LE(open, cap) << when;
}

// What a rank's piece holds at a step, summed over the ranks: owned
// cells, nodes, and the sums of every nodal and element variable. With
// h5_cap > 0, at most that many members are open through HDF5 at once.
std::vector<double> totals(const std::string &base, mxn_part_method method, int step,
                           mxn_load_stats_t *st, int h5_cap = 0) {
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = method;
  mxn_load_t *ld = nullptr;
  char first[4096];
  mxn_member_name(base.c_str(), M, 0, first, sizeof first);
  std::vector<double> t;
  mxn_dataset_t *ds = nullptr, *raw = nullptr;
  if (h5_cap > 0) {
    if (mxn_dataset_create(&ds) != MXN_OK) {
      ADD_FAILURE() << "mxn_dataset_create";
      return t;
    }
    ds->st.max_open_h5 = h5_cap;
    raw = ds;  // the load takes it over and keeps it
  }
  int rc = !ds ? mxn_load_open(MPI_COMM_WORLD, first, &o, &ld, &err)
           : mxn_dataset_open_collective(MPI_COMM_WORLD, ds, first, &err) != MXN_OK
               ? err.status
               : mxn_load_open_dataset(MPI_COMM_WORLD, &ds, &o, &ld, &err);
  if (rc != MXN_OK) {
    ADD_FAILURE() << err.msg;
    mxn_dataset_destroy(&ds);
    return t;
  }
  if (raw) expect_h5_open_within(raw, h5_cap, "after the load");
  EXPECT_EQ(MXN_OK, mxn_load_read_step(ld, step, &err)) << err.msg;
  if (raw) expect_h5_open_within(raw, h5_cap, "after a step");
  const mxn_structure_t *s = mxn_load_structure(ld);
  const mxn_piece_t *pc = mxn_load_piece(ld);
  *st = mxn_load_stats(ld);
  t.push_back((double)st->owned_elements);
  t.push_back((double)pc->num_nodes);
  for (int v = 0; v < s->num_node_vars; v++) {
    double sum = 0;
    for (int64_t i = 0; pc->node_vars[v] && i < pc->num_nodes; i++) sum += pc->node_vars[v][i];
    t.push_back(sum);
  }
  for (int b = 0; b < pc->num_blocks; b++)
    for (int v = 0; v < s->num_elem_vars; v++) {
      double sum = 0;
      const mxn_piece_block_t *pb = &pc->blocks[b];
      for (int64_t i = 0; pb->elem_vars && pb->elem_vars[v] && i < pb->num_elements; i++)
        sum += pb->elem_vars[v][i];
      t.push_back(sum);
    }
  MPI_Allreduce(MPI_IN_PLACE, t.data(), (int)t.size(), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  mxn_load_close(&ld);
  return t;
}

// Calls fn(nc, v, name, nd, dims) for each deflated variable of member
// `path`, the file open as nc; false if it cannot be opened.
template <class F>
bool each_deflated(const std::string &path, F fn) {
  int nc, nvars = 0;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return false;
  nc_inq_nvars(nc, &nvars);
  for (int v = 0; v < nvars; v++) {
    char name[NC_MAX_NAME + 1];
    int nd = 0, dims[8], shuffle, deflate = 0, level;
    nc_inq_varname(nc, v, name);
    nc_inq_varndims(nc, v, &nd);
    nc_inq_vardimid(nc, v, dims);
    nc_inq_var_deflate(nc, v, &shuffle, &deflate, &level);
    if (deflate) fn(nc, v, name, nd, dims);
  }
  nc_close(nc);
  return true;
}

// Bytes of dimensions dims[from..nd) of values as a read decompresses
// them (8 bytes a value).
int64_t value_bytes(int nc, const int *dims, int from, int nd) {
  int64_t n = 8;
  for (int d = from; d < nd; d++) {
    size_t len;
    nc_inq_dimlen(nc, dims[d], &len);
    n *= (int64_t)len;
  }
  return n;
}

// Bytes of the chunks a step reads of member `path`'s deflated per-step
// variables: its nodal and element values, and (a member after the first,
// whose time at each step is compared with the first's) the chunk of
// time values holding the step.
int64_t step_chunk_bytes(const std::string &path, bool times, int step) {
  int64_t bytes = 0;
  bool opened = each_deflated(path, [&](int nc, int v, const char *name, int nd, const int *dims) {
    int unlim = -1;
    nc_inq_unlimdim(nc, &unlim);
    if (nd < 1 || dims[0] != unlim) return;
    size_t nt = 0;
    nc_inq_dimlen(nc, unlim, &nt);
    // (a member's first and last times are compared when it is opened)
    if (times && !strcmp(name, "time_whole") && step > 0 && (size_t)step + 1 < nt) {
      int storage;
      size_t chunk[1] = {1};
      nc_inq_var_chunking(nc, v, &storage, chunk);
      size_t first = (size_t)step / chunk[0] * chunk[0];
      bytes += 8 * (int64_t)std::min(chunk[0], nt - first);
    }
    if (strncmp(name, "vals_nod_var", 12) && strncmp(name, "vals_elem_var", 13)) return;
    bytes += value_bytes(nc, dims, 1, nd);
  });
  return opened ? bytes : -1;
}

// Bytes of every value of member `path`'s deflated variables, every
// record of the record ones, as a read decompresses them (8 bytes a value):
// what reading the member whole once would decompress.
int64_t deflated_bytes(const std::string &path) {
  int64_t bytes = 0;
  bool opened = each_deflated(path, [&](int nc, int, const char *, int nd, const int *dims) {
    bytes += value_bytes(nc, dims, 0, nd);
  });
  return opened ? bytes : -1;
}

// The compressed set opened on this rank alone (its first member's path
// into first), without the boxes its open's shared-node check kept: the
// tests that use it count decompressions.
void open_compressed(const Sets &s, char (&first)[4096], mxn_dataset_t **ds) {
  mxn_member_name(s.base[2].c_str(), M, 0, first, sizeof first);
  ASSERT_EQ(MXN_OK, mxn_dataset_create(ds));
  ASSERT_EQ(MXN_OK, mxn_dataset_open(*ds, first)) << mxn_dataset_errmsg(*ds);
  mxn__store_drop_reads(*ds);
}

}  // namespace

// Every format gives the same pieces, with the files' and RCB's
// partitions, at every step.
TEST(Nc4Read, SamePiecesInEveryFormat) {
  Sets s = make_sets(world_tmpdir("nc4read_same"));
  for (mxn_part_method m : {MXN_PART_FILES, MXN_PART_RCB})
    for (int step = 0; step < STEPS; step++) {
      SCOPED_TRACE("method " + std::to_string(m) + " step " + std::to_string(step));
      mxn_load_stats_t st[3];
      std::vector<double> ref = totals(s.base[0], m, step, &st[0]);
      ASSERT_FALSE(ref.empty());
      for (int k = 1; k < 3; k++) {
        std::vector<double> t = totals(s.base[k], m, step, &st[k]);
        ASSERT_EQ(ref.size(), t.size());
        for (size_t i = 0; i < ref.size(); i++) EXPECT_DOUBLE_EQ(ref[i], t[i]) << "entry " << i;
      }
      EXPECT_EQ(0, st[0].bytes_decompressed);
      EXPECT_EQ(0, st[1].bytes_decompressed);
      EXPECT_GT(st[2].bytes_decompressed, 0);
      // no chunk decompressed twice: a rank, reading parts of members in
      // runs (3 ranks, 4 members), decompresses at most what the whole set
      // holds (it decompressed 124 times what it needed while only the
      // last read's chunks were kept)
      int64_t whole = 0;
      for (int j = 0; j < M; j++) {
        char member[4096];
        mxn_member_name(s.base[2].c_str(), M, j, member, sizeof member);
        whole += deflated_bytes(member);
      }
      EXPECT_LE(st[2].bytes_decompressed, whole) << "rank " << mpi_rank();
      // uncompressed netCDF-4: reads widened to chunks stay near what is needed
      EXPECT_LE((double)st[1].bytes_read, 1.2 * (double)st[1].bytes_needed);
    }
}

// netCDF-4 members beyond the cap on open HDF5 files (MXN__MAX_OPEN_H5)
// are closed and opened again where they are read: with a cap of one,
// every format gives the same pieces as the classic set, and on one rank,
// which reads every member in each phase, members are opened again.
TEST(Nc4Read, OpenHdf5MembersCapped) {
  Sets s = make_sets(world_tmpdir("nc4read_cap"));
  for (mxn_part_method m : {MXN_PART_FILES, MXN_PART_RCB})
    for (int step : {0, STEPS - 1}) {
      SCOPED_TRACE("method " + std::to_string(m) + " step " + std::to_string(step));
      mxn_load_stats_t st0, st;
      std::vector<double> ref = totals(s.base[0], m, step, &st0);
      ASSERT_FALSE(ref.empty());
      for (int k = 1; k < 3; k++) {
        std::vector<double> t = totals(s.base[k], m, step, &st, 1);
        ASSERT_EQ(ref.size(), t.size());
        for (size_t i = 0; i < ref.size(); i++) EXPECT_DOUBLE_EQ(ref[i], t[i]) << "entry " << i;
        if (mpi_size() == 1) EXPECT_GT(st.files_opened, M) << "format " << k;
      }
    }
}

// Runs inside one chunk, read one after the other as the extraction reads
// them (strided ones too), decompress that chunk once.
TEST(Nc4Read, RunsInOneChunkDecompressItOnce) {
  Sets s = make_sets(world_tmpdir("nc4read_box"));
  if (mpi_rank() != 0) return;
  char first[4096];
  mxn_dataset_t *ds = nullptr;
  ASSERT_NO_FATAL_FAILURE(open_compressed(s, first, &ds));
  int status;
  const mxn__file_t *f = mxn__file_open(ds, 0, &status);
  ASSERT_NE(nullptr, f) << mxn_dataset_errmsg(ds);
  ASSERT_TRUE(f->nc4);
  int v = mxn__m_var(f, "coordx"), storage = 0, nc = -1, ncv = -1;
  size_t chunk[1] = {0}, len = (size_t)mxn__m_dimlen(f, v, 0);
  // the chunk size as netCDF gives it (the core reads through HDF5)
  ASSERT_EQ(NC_NOERR, nc_open(first, NC_NOWRITE, &nc));
  ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, "coordx", &ncv));
  ASSERT_EQ(NC_NOERR, nc_inq_var_chunking(nc, ncv, &storage, chunk));
  nc_close(nc);
  ASSERT_EQ(NC_CHUNKED, storage);
  size_t in_chunk = chunk[0] < len ? chunk[0] : len;
  ASSERT_GE(in_chunk, 8u);
  std::vector<double> all(len), part(in_chunk);
  size_t s0 = 0, n0 = len;
  ASSERT_EQ(0, mxn__m_get(f, v, &s0, &n0, nullptr, all.data(), 'd'));
  int64_t before = mxn_dataset_counters(ds).bytes_decompressed;
  // four runs with gaps between them, all in the first chunk
  for (size_t r = 0; r < 4; r++) {
    size_t start = r * (in_chunk / 4), count = in_chunk / 8;
    ASSERT_EQ(0, mxn__m_get(f, v, &start, &count, nullptr, part.data(), 'd'));
    for (size_t i = 0; i < count; i++) EXPECT_EQ(all[start + i], part[i]);
  }
  // and strided ones (a halo layer's single entries at one stride)
  for (ptrdiff_t st : {2, 3}) {
    size_t start = 1, count = (in_chunk - 2) / (size_t)st;
    ASSERT_EQ(0, mxn__m_get(f, v, &start, &count, &st, part.data(), 'd'));
    for (size_t i = 0; i < count; i++) EXPECT_EQ(all[start + i * (size_t)st], part[i]);
  }
  EXPECT_EQ((int64_t)(in_chunk * sizeof(double)),
            mxn_dataset_counters(ds).bytes_decompressed - before);
  mxn_dataset_destroy(&ds);
}

// Runs read of several variables in turn (each run's x, y and z, as the
// extraction reads coordinates) decompress each variable's chunk once:
// the boxes of the latest reads are kept, not only the last one.
TEST(Nc4Read, RunsOfVariablesInTurnDecompressEachChunkOnce) {
  Sets s = make_sets(world_tmpdir("nc4read_turns"));
  if (mpi_rank() != 0) return;
  char first[4096];
  mxn_dataset_t *ds = nullptr;
  ASSERT_NO_FATAL_FAILURE(open_compressed(s, first, &ds));
  int status;
  const mxn__file_t *f = mxn__file_open(ds, 0, &status);
  ASSERT_NE(nullptr, f) << mxn_dataset_errmsg(ds);
  const char *names[3] = {"coordx", "coordy", "coordz"};
  int v[3];
  for (int d = 0; d < 3; d++) ASSERT_GE(v[d] = mxn__m_var(f, names[d]), 0) << names[d];
  size_t len = (size_t)mxn__m_dimlen(f, v[0], 0);
  std::vector<double> all[3], part(len);
  for (int d = 0; d < 3; d++) {
    all[d].resize(len);
    size_t s0 = 0, n0 = len;
    ASSERT_EQ(0, mxn__m_get(f, v[d], &s0, &n0, nullptr, all[d].data(), 'd'));
  }
  mxn__store_drop_reads(ds);
  int64_t before = mxn_dataset_counters(ds).bytes_decompressed, chunks = 0;
  int nc = -1;
  ASSERT_EQ(NC_NOERR, nc_open(first, NC_NOWRITE, &nc));
  for (int d = 0; d < 3; d++) {
    int ncv, storage = 0;
    size_t chunk[1] = {0};
    ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, names[d], &ncv));
    ASSERT_EQ(NC_NOERR, nc_inq_var_chunking(nc, ncv, &storage, chunk));
    ASSERT_EQ(NC_CHUNKED, storage);
    chunks += 8 * (int64_t)std::min(chunk[0], len);  // the first chunk
  }
  nc_close(nc);
  // eight runs with gaps, in the first chunk of each, the variables in turn
  size_t in_chunk = (size_t)(chunks / 24);
  ASSERT_GE(in_chunk, 16u);
  for (size_t r = 0; r < 8; r++)
    for (int d = 0; d < 3; d++) {
      size_t start = r * (in_chunk / 8), count = in_chunk / 16;
      ASSERT_EQ(0, mxn__m_get(f, v[d], &start, &count, nullptr, part.data(), 'd'));
      for (size_t i = 0; i < count; i++) ASSERT_EQ(all[d][start + i], part[i]) << names[d];
    }
  EXPECT_EQ(chunks, mxn_dataset_counters(ds).bytes_decompressed - before);
  mxn_dataset_destroy(&ds);
}

// More variables read in turn than recent boxes are kept (20 blocks'
// connectivity): each read still gives the variable's values, a box given
// way is read again, the latest boxes serve the reads that come back to
// them, and the boxes held stay within their count and bytes.
TEST(Nc4Read, RecentBoxesGiveWayToNewerOnes) {
  std::string dir = world_tmpdir("nc4read_lru");
  if (mpi_rank() != 0) return;
  const int B = MXN__RECENT_BOXES + 4;
  std::string mesh = generate(dir, "m.e", "--type hex --dims 20 8 6 --blocks " +
                                              std::to_string(B) + " --compress 1");
  mxn_dataset_t *ds = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  ASSERT_EQ(MXN_OK, mxn_dataset_open(ds, mesh.c_str())) << mxn_dataset_errmsg(ds);
  int status;
  const mxn__file_t *f = mxn__file_open(ds, 0, &status);
  ASSERT_NE(nullptr, f) << mxn_dataset_errmsg(ds);
  ASSERT_TRUE(f->nc4);
  std::vector<int> vars;
  std::vector<size_t> rows, npe;
  std::vector<std::vector<long long>> all;
  for (int b = 1; b <= B; b++) {
    std::string name = "connect" + std::to_string(b);
    int v = mxn__m_var(f, name.c_str());
    ASSERT_GE(v, 0) << name;
    size_t s0[2] = {0, 0}, n0[2] = {(size_t)mxn__m_dimlen(f, v, 0), (size_t)mxn__m_dimlen(f, v, 1)};
    ASSERT_GE(n0[0], 4u) << name;
    std::vector<long long> a(n0[0] * n0[1]);
    ASSERT_EQ(0, mxn__m_get(f, v, s0, n0, nullptr, a.data(), 'l')) << name;
    vars.push_back(v);
    rows.push_back(n0[0]);
    npe.push_back(n0[1]);
    all.push_back(a);
  }
  mxn__store_drop_reads(ds);
  auto decompressed = [&] { return mxn_dataset_counters(ds).bytes_decompressed; };
  auto read_part = [&](int k) {
    size_t start[2] = {1, 0}, count[2] = {rows[k] / 2, npe[k]};
    std::vector<long long> part(count[0] * count[1]);
    ASSERT_EQ(0, mxn__m_get(f, vars[k], start, count, nullptr, part.data(), 'l'));
    for (size_t e = 0; e < part.size(); e++)
      ASSERT_EQ(all[k][npe[k] + e], part[e]) << "connect" << k + 1;
    size_t held = 0;
    int bufs = 0;
    for (int b = 0; b < MXN__RECENT_BOXES; b++) {
      held += ds->st.reads.recent[b].cap;
      bufs += ds->st.reads.recent[b].buf != nullptr;
    }
    EXPECT_LE(held, MXN__RECENT_BYTES);
    EXPECT_LE(bufs, MXN__RECENT_BOXES);
  };
  // in turn, more variables than boxes: each read finds its box given way
  int64_t c0 = decompressed(), round = 0;
  for (int r = 0; r < 3; r++) {
    for (int k = 0; k < B; k++) ASSERT_NO_FATAL_FAILURE(read_part(k));
    int64_t c = decompressed();
    if (r == 0) round = c - c0;
    EXPECT_EQ(round, c - c0) << "round " << r;
    c0 = c;
  }
  EXPECT_GT(round, 0);
  // the latest ones, newest first: each still in its box
  for (int k = B - 1; k >= B - MXN__RECENT_BOXES; k--) ASSERT_NO_FATAL_FAILURE(read_part(k));
  EXPECT_EQ(c0, decompressed());
  mxn_dataset_destroy(&ds);
}

// Boxes read while keeping (the shared-node check's coordinates) serve
// the reads after it (the extraction's), also across the member's close
// and open again, until they are dropped; reads after the keeping stops
// are not kept.
TEST(Nc4Read, KeptBoxesServeTheNextReads) {
  Sets s = make_sets(world_tmpdir("nc4read_kept"));
  if (mpi_rank() != 0) return;
  char first[4096];
  mxn_dataset_t *ds = nullptr;
  ASSERT_NO_FATAL_FAILURE(open_compressed(s, first, &ds));
  int status;
  mxn__file_t *f = const_cast<mxn__file_t *>(mxn__file_open(ds, 0, &status));
  ASSERT_NE(nullptr, f) << mxn_dataset_errmsg(ds);
  int vx = mxn__m_var(f, "coordx"), vy = mxn__m_var(f, "coordy");
  size_t len = (size_t)mxn__m_dimlen(f, vx, 0);
  ASSERT_GE(len, 8u);
  std::vector<double> x(len), y(len), part(len);
  auto decompressed = [&] { return mxn_dataset_counters(ds).bytes_decompressed; };
  int64_t c0 = decompressed();
  size_t s0 = 0, n0 = len;
  mxn__store_keep_reads(ds, 1);
  ASSERT_EQ(0, mxn__m_get(f, vx, &s0, &n0, nullptr, x.data(), 'd'));
  mxn__store_keep_reads(ds, 0);
  int64_t c1 = decompressed();
  EXPECT_EQ((int64_t)(len * sizeof(double)), c1 - c0);
  ASSERT_EQ(0, mxn__m_get(f, vy, &s0, &n0, nullptr, y.data(), 'd'));  // not kept
  int64_t c2 = decompressed();
  EXPECT_EQ((int64_t)(len * sizeof(double)), c2 - c1);
  // the member closed and opened again: coordx is still kept
  mxn__member_close(ds, f);
  f = const_cast<mxn__file_t *>(mxn__file_open(ds, 0, &status));
  ASSERT_NE(nullptr, f) << mxn_dataset_errmsg(ds);
  size_t s1 = 1, n1 = len - 2;
  ASSERT_EQ(0, mxn__m_get(f, vx, &s1, &n1, nullptr, part.data(), 'd'));
  for (size_t i = 0; i < n1; i++) ASSERT_EQ(x[1 + i], part[i]) << "entry " << i;
  EXPECT_EQ(c2, decompressed());
  // coordy was read after the keeping stopped: the last box, gone with the
  // next one (coordx again, once dropped)
  mxn__store_drop_reads(ds);
  ASSERT_EQ(0, mxn__m_get(f, vx, &s1, &n1, nullptr, part.data(), 'd'));
  int64_t c3 = decompressed();
  EXPECT_GT(c3, c2);
  ASSERT_EQ(0, mxn__m_get(f, vy, &s1, &n1, nullptr, part.data(), 'd'));
  for (size_t i = 0; i < n1; i++) ASSERT_EQ(y[1 + i], part[i]) << "entry " << i;
  EXPECT_GT(decompressed(), c3);
  mxn_dataset_destroy(&ds);
}

// On one rank a step reads every value, so its compressed chunks are
// decompressed exactly once: the step's counter equals their bytes.
TEST(Nc4Read, AStepDecompressesEachChunkOnce) {
  Sets s = make_sets(world_tmpdir("nc4read_step"));
  if (mpi_size() != 1) return;  // the count is exact for a whole piece
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  char first[4096];
  mxn_member_name(s.base[2].c_str(), M, 0, first, sizeof first);
  mxn_load_t *ld = nullptr;
  mxn_dataset_t *ds = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  ASSERT_EQ(MXN_OK, mxn_dataset_open_collective(MPI_COMM_WORLD, ds, first, &err)) << err.msg;
  const mxn_dataset_t *raw = ds;  // the load takes it over and keeps it
  ASSERT_EQ(MXN_OK, mxn_load_open_dataset(MPI_COMM_WORLD, &ds, &o, &ld, &err)) << err.msg;
  for (int step = 1; step < STEPS; step++) {
    int64_t want = 0;
    for (int j = 0; j < M; j++) {
      char member[4096];
      mxn_member_name(s.base[2].c_str(), M, j, member, sizeof member);
      want += step_chunk_bytes(member, j > 0, step);
    }
    ASSERT_GT(want, 0);
    int64_t before = mxn_dataset_counters(raw).bytes_decompressed;
    ASSERT_EQ(MXN_OK, mxn_load_read_step(ld, step, &err)) << err.msg;
    EXPECT_EQ(want, mxn_dataset_counters(raw).bytes_decompressed - before)
        << "step " << step;
  }
  mxn_load_close(&ld);
}

// Members are kept open only while needed (member.c, load.c): after a
// collective open a rank's netCDF-4 members are open through HDF5
// handles, not netCDF; after a load only the netCDF-3 members its plan
// reads at each step are open (the others it summarised are closed), and
// no netCDF-4 member; after a step, only members the plan reads. The
// dataset's count of open members agrees. At least one rank must have
// closed a member it summarised, or the rule was not tried.
TEST(Nc4Read, MembersOpenOnlyWhileNeeded) {
  Sets s = make_sets(world_tmpdir("nc4read_open"));
  int closed = 0;
  for (int k = 0; k < 3; k++)
    for (int c = 0; c < 3; c++) {
      // files, rcb, and files with the first block alone selected (the
      // members holding none of it are read by no rank)
      mxn_part_method m = c == 1 ? MXN_PART_RCB : MXN_PART_FILES;
      SCOPED_TRACE("format " + std::to_string(k) + " case " + std::to_string(c));
      mxn_error_t err;
      mxn_error_clear(&err);
      mxn_load_opts_t o;
      mxn_load_opts_init(&o);
      o.method = m;
      char first[4096];
      mxn_member_name(s.base[k].c_str(), M, 0, first, sizeof first);
      mxn_dataset_t *ds = nullptr;
      ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
      ASSERT_EQ(MXN_OK, mxn_dataset_open_collective(MPI_COMM_WORLD, ds, first, &err)) << err.msg;
      const int R = mpi_rank(), N = mpi_size();
      const int fbeg = R * M / N, fend = (R + 1) * M / N;
      for (int j = 0; j < M; j++) {
        if (j < fbeg || j >= fend) continue;
        const mxn__file_t *f = mxn__file_held(ds, j);  // its own: held
        ASSERT_NE(f, nullptr) << "member " << j << " summarised here, no record";
        EXPECT_TRUE(f->ncid >= 0 || f->h5) << "member " << j << " summarised here, not open";
        if (k > 0) EXPECT_TRUE(f->h5 && f->ncid < 0) << "netCDF-4 member " << j << " open through netCDF";
      }
      const mxn_dataset_t *raw = ds;  // the load takes it over and keeps it
      std::vector<int> sel(raw->s.num_blocks + 1, 0);
      sel[0] = 1;
      if (c == 2) o.block_selection = sel.data();
      mxn_load_t *ld = nullptr;
      ASSERT_EQ(MXN_OK, mxn_load_open_dataset(MPI_COMM_WORLD, &ds, &o, &ld, &err)) << err.msg;
      const mxn__plan_t *plan = mxn_load_piece(ld)->plan;
      std::vector<char> need(M, 0);
      for (int i = 0; i < plan->nnode_seg; i++) need[plan->node_seg[i].file] = 1;
      for (int b = 0; b < MXN__NBK; b++)
        for (int i = 0; i < plan->nseg[b]; i++) need[plan->seg[b][i].file] = 1;
      for (int sk = 0; sk < MXN__NSK; sk++)
        for (int q = 0; q < plan->nsets[sk]; q++)
          for (int64_t i = 0; i < plan->set_src[sk][q].n; i++) need[plan->set_src[sk][q].file[i]] = 1;
      if (raw->s.num_global_vars > 0 && !raw->glob_vals) need[0] = 1;
      for (int pass = 0; pass < 2; pass++) {
        int open = 0;
        for (int j = 0; j < M; j++) {
          const mxn__file_t *f = mxn__file_held(raw, j);  // only a held member can be open
          int is_open = f && (f->ncid >= 0 || f->h5 != nullptr);
          open += is_open;
          EXPECT_TRUE(!is_open || need[j]) << "member " << j << " open but not read at steps";
          if (k > 0 && pass == 0) EXPECT_FALSE(is_open) << "netCDF-4 member " << j << " open after a load";
          if (pass == 0 && j >= fbeg && j < fend && !is_open) closed++;
        }
        EXPECT_EQ(open, raw->st.open_count);
        // netCDF-3 members read at each step stay open
        if (k == 0 && std::count(need.begin(), need.end(), 1) > 0) EXPECT_GT(open, 0);
        if (pass == 0) ASSERT_EQ(MXN_OK, mxn_load_read_step(ld, 1, &err)) << err.msg;
      }
      mxn_load_close(&ld);
    }
  int all = 0;
  MPI_Allreduce(&closed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (mpi_size() > 1) EXPECT_GT(all, 0) << "no rank closed a member it summarised";
}

// Chunks the core decodes itself (h5light.c's direct_read: deflate, after
// shuffle or alone) give what netCDF's own reads give, for every value
// kind it decodes, for boxes on chunk boundaries and across them, edge
// chunks cut by the extent, and as double or int64; the kinds it leaves
// to HDF5 (Fletcher-32, chunks never written) read the same too.
TEST(Nc4Read, ChunksDecodedHereReadAsNetcdfReads) {
  std::string dir = world_tmpdir("nc4read_direct");
  if (mpi_rank() != 0) return;
  std::string path = dir + "/direct.nc";
  struct Var {
    const char *name;
    nc_type type;
    int nd;
    size_t len[2], chunk[2];
    int shuffle, fletcher, write;  // write: 0 leaves every chunk unwritten
    int direct;                    // decoded by the core
  } vars[] = {
      {"i4", NC_INT, 2, {37, 5}, {8, 3}, 1, 0, 1, 1},
      {"i8", NC_INT64, 1, {1001, 0}, {128, 0}, 1, 0, 1, 1},
      {"f8", NC_DOUBLE, 2, {23, 4}, {5, 4}, 0, 0, 1, 1},
      {"f4", NC_FLOAT, 1, {300, 0}, {64, 0}, 1, 0, 1, 1},
      {"f8s", NC_DOUBLE, 1, {77, 0}, {16, 0}, 1, 0, 1, 1},
      {"f8c", NC_DOUBLE, 1, {50, 0}, {16, 0}, 1, 1, 1, 0},
      {"i4u", NC_INT, 1, {40, 0}, {16, 0}, 1, 0, 0, 1},
  };
  const int NV = (int)(sizeof vars / sizeof vars[0]);
  int nc, dims[2 * NV];
  ASSERT_EQ(NC_NOERR, nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &nc));
  for (int k = 0; k < NV; k++) {
    Var &w = vars[k];
    int vid;
    for (int d = 0; d < w.nd; d++)
      ASSERT_EQ(NC_NOERR, nc_def_dim(nc, (std::string(w.name) + "_" + std::to_string(d)).c_str(),
                                     w.len[d], &dims[2 * k + d]));
    ASSERT_EQ(NC_NOERR, nc_def_var(nc, w.name, w.type, w.nd, &dims[2 * k], &vid));
    ASSERT_EQ(NC_NOERR, nc_def_var_chunking(nc, vid, NC_CHUNKED, w.chunk));
    ASSERT_EQ(NC_NOERR, nc_def_var_deflate(nc, vid, w.shuffle, 1, 1));
    if (w.fletcher) ASSERT_EQ(NC_NOERR, nc_def_var_fletcher32(nc, vid, NC_FLETCHER32));
  }
  ASSERT_EQ(NC_NOERR, nc_enddef(nc));
  for (int k = 0; k < NV; k++) {
    Var &w = vars[k];
    if (!w.write) continue;
    size_t n = w.len[0] * (w.nd > 1 ? w.len[1] : 1), st[2] = {0, 0};
    std::vector<double> val(n);
    // signs, large magnitudes and fractions, so a wrong byte shows
    for (size_t i = 0; i < n; i++)
      val[i] = (i % 3 == 0 ? -1.0 : 1.0) * (w.type == NC_DOUBLE ? 1e9 * (double)i + 0.25 : (double)(i * 40503 % 1000003));
    int vid;
    ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, w.name, &vid));
    if (w.type == NC_INT64) {
      std::vector<long long> l(n);
      for (size_t i = 0; i < n; i++) l[i] = (long long)val[i] * 1000003LL * (i % 2 ? 1 : 4096);
      ASSERT_EQ(NC_NOERR, nc_put_vara_longlong(nc, vid, st, w.len, l.data()));
    } else {
      ASSERT_EQ(NC_NOERR, nc_put_vara_double(nc, vid, st, w.len, val.data()));
    }
  }
  ASSERT_EQ(NC_NOERR, nc_close(nc));

  ASSERT_EQ(NC_NOERR, nc_open(path.c_str(), NC_NOWRITE, &nc));
  mxn__h5_names_t *names = nullptr;
  mxn__h5_t *h = nullptr;
  mxn__h5_scratch_t *scratch = nullptr;  // shared by the reads, as a dataset's are
  ASSERT_EQ(0, mxn__h5_open(path.c_str(), &names, &h));
  for (int k = 0; k < NV; k++) {
    Var &w = vars[k];
    int v = mxn__h5_var(h, w.name), vid;
    ASSERT_GE(v, 0) << w.name;
    ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, w.name, &vid));
    EXPECT_EQ(w.direct, mxn__h5_direct(h, v)) << w.name;
    // boxes: the whole, one chunk, across chunk boundaries, the edge
    size_t r0 = w.len[0], r1 = w.nd > 1 ? w.len[1] : 1, c0 = w.chunk[0];
    size_t two = w.nd > 1 ? 1 : 0, c1 = w.nd > 1 ? w.chunk[1] : 1;
    std::vector<std::vector<size_t>> boxes = {
        {0, r0, 0, r1},
        {0, c0, 0, c1},
        {c0 / 2, c0 + 3 < r0 - c0 / 2 ? c0 + 3 : r0 - c0 / 2, two, r1 - two},
        {r0 - 3, 3, two * (r1 - 1), 1},
    };
    for (auto &b : boxes) {
      size_t st[2] = {b[0], b[2]}, ct[2] = {b[1], b[3]}, n = ct[0] * ct[1];
      std::vector<double> got(n), want(n);
      ASSERT_EQ(0, mxn__h5_get(h, &scratch, v, st, ct, nullptr, got.data(), 'd')) << w.name;
      ASSERT_EQ(NC_NOERR, nc_get_vara_double(nc, vid, st, ct, want.data()));
      for (size_t i = 0; i < n; i++)
        ASSERT_EQ(want[i], got[i]) << w.name << " box at " << st[0] << " entry " << i;
      if (w.type == NC_INT || w.type == NC_INT64) {
        std::vector<long long> gl(n), wl(n);
        ASSERT_EQ(0, mxn__h5_get(h, nullptr, v, st, ct, nullptr, gl.data(), 'l')) << w.name;
        ASSERT_EQ(NC_NOERR, nc_get_vara_longlong(nc, vid, st, ct, wl.data()));
        for (size_t i = 0; i < n; i++)
          ASSERT_EQ(wl[i], gl[i]) << w.name << " box at " << st[0] << " entry " << i;
      }
    }
  }
  mxn__h5_scratch_free(&scratch);
  EXPECT_EQ(nullptr, scratch);
  mxn__h5_close(h);
  mxn__h5_names_free(names);
  nc_close(nc);
}
