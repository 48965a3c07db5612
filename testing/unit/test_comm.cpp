// The communication layer (core/src/comm.c), run under mpiexec at several
// rank counts: items arrive at their rank, in order, also when a small
// round limit splits the exchange into many rounds (the path counts and
// offsets beyond INT_MAX take); one rank's failure fails every rank.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "comm.h"
#include "mxn/mxn.h"
#include "test_support.h"

namespace {

int rank_of() {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size_of() {
  int s;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// 24 bytes: pieces of a round cut items in the middle.
struct Item {
  int64_t src, dest, seq;
};

// How many items rank `from` sends rank `to`: none for some pairs, and
// rank 0 far more than the others.
int64_t count_of(int from, int to) {
  if ((from + 2 * to) % 3 == 1) return 0;
  return from == 0 ? 500 + 7 * to : 1 + (from * 5 + to) % 4;
}

// Restores the default limit when a test ends, pass or fail.
struct RoundLimit {
  explicit RoundLimit(int64_t bytes) { mxn__comm_set_round_limit(bytes); }
  ~RoundLimit() { mxn__comm_set_round_limit(0); }
};

void send_and_check(int64_t limit, bool expect_rounds) {
  RoundLimit lim(limit);
  int R = rank_of(), N = size_of();
  std::vector<Item> items;
  std::vector<int> dest;
  // interleaved over destinations, each destination's in seq order
  std::vector<int64_t> next(N, 0);
  for (bool more = true; more;) {
    more = false;
    for (int d = N - 1; d >= 0; d--)
      if (next[d] < count_of(R, d)) {
        items.push_back(Item{R, d, next[d]++});
        dest.push_back(d);
        more = true;
      }
  }
  void *got = nullptr;
  int64_t ngot = -1;
  std::vector<int64_t> per(N, -1);
  int status = mxn__comm_send_items(MPI_COMM_WORLD, MXN_OK, items.data(), sizeof(Item),
                                    (int64_t)items.size(), dest.data(), &got, &ngot, per.data());
  ASSERT_EQ(status, MXN_OK);
  const Item *g = static_cast<const Item *>(got);
  int64_t at = 0;
  for (int src = 0; src < N; src++) {
    EXPECT_EQ(per[src], count_of(src, R)) << "from rank " << src;
    for (int64_t k = 0; k < count_of(src, R); k++, at++) {
      ASSERT_LT(at, ngot);
      EXPECT_EQ(g[at].src, src);
      EXPECT_EQ(g[at].dest, R);
      EXPECT_EQ(g[at].seq, k);
    }
  }
  EXPECT_EQ(at, ngot);
  if (expect_rounds) {
    EXPECT_GT(mxn__comm_last_rounds(), 1);
  } else {
    EXPECT_EQ(mxn__comm_last_rounds(), 1);
  }
  free(got);
}

TEST(Comm, SendItemsOneRound) { send_and_check(0, false); }

TEST(Comm, SendItemsManyRoundsCutItems) { send_and_check(40, true); }

TEST(Comm, SendItemsOneByteRounds) { send_and_check(1, true); }

// Known counts both ways, offsets with gaps and in reverse rank order.
TEST(Comm, AlltoallvOffsetsWithGaps) {
  RoundLimit lim(7);
  int R = rank_of(), N = size_of();
  const int64_t gap = 3;
  std::vector<int64_t> sc(N), sd(N), rc(N), rd(N);
  int64_t send_end = 0, recv_end = 0;
  for (int r = N - 1; r >= 0; r--) {
    sd[r] = send_end + gap;
    sc[r] = count_of(R, r);
    send_end = sd[r] + sc[r];
    rd[r] = recv_end + gap;
    rc[r] = count_of(r, R);
    recv_end = rd[r] + rc[r];
  }
  std::vector<unsigned char> sbuf(send_end + 1, 0xEE), rbuf(recv_end + 1, 0xAA);
  for (int r = 0; r < N; r++)
    for (int64_t k = 0; k < sc[r]; k++) sbuf[sd[r] + k] = (unsigned char)(R * 31 + r * 7 + k);
  ASSERT_EQ(mxn__comm_alltoallv(MPI_COMM_WORLD, MXN_OK, sbuf.data(), sc.data(), sd.data(),
                                rbuf.data(), rc.data(), rd.data()),
            MXN_OK);
  int64_t most = 0;
  for (int r = 0; r < N; r++) {
    most = std::max(most, std::max(sc[r], rc[r]));
    for (int64_t k = 0; k < rc[r]; k++)
      ASSERT_EQ(rbuf[rd[r] + k], (unsigned char)(r * 31 + R * 7 + k)) << "from " << r << " at " << k;
    for (int64_t k = rd[r] - gap; k < rd[r]; k++) EXPECT_EQ(rbuf[k], 0xAA) << "gap overwritten";
  }
  int64_t all = 0;
  MPI_Allreduce(&most, &all, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(mxn__comm_last_rounds(), (int)((all + 6) / 7));
}

// A rank that failed before the exchange: every rank returns its status,
// nothing is received.
TEST(Comm, ExchangeFailsOnEveryRank) {
  int R = rank_of(), N = size_of();
  int failing = N - 1;
  std::vector<int64_t> sc(N, 8), rc(N, 0);
  std::vector<int64_t> data(N, R);
  void *got = reinterpret_cast<void *>(1);
  int status = mxn__comm_exchange(MPI_COMM_WORLD, R == failing ? MXN_ERR_FORMAT : MXN_OK,
                                  data.data(), sc.data(), &got, rc.data());
  EXPECT_EQ(status, MXN_ERR_FORMAT);
  EXPECT_EQ(got, nullptr);
  // and the items' form of it
  int64_t n = -1;
  std::vector<int> dest(N);
  for (int r = 0; r < N; r++) dest[r] = r;
  status = mxn__send_to_if(MPI_COMM_WORLD, N, R == failing ? MXN_ERR_NOMEM : MXN_OK,
                           data.data(), sizeof(int64_t), N, dest.data(), &got, &n);
  EXPECT_EQ(status, MXN_ERR_NOMEM);
}

TEST(Comm, AgreementOneRankFailsAll) {
  int R = rank_of(), N = size_of();
  int failing = N / 2;
  mxn_error_t e;
  mxn_error_clear(&e);
  int st = R == failing ? mxn_error_set(&e, MXN_ERR_IO, "member 3 unreadable") : MXN_OK;
  EXPECT_EQ(mxn_agree(MPI_COMM_WORLD, st, &e), MXN_ERR_IO);
  EXPECT_EQ(e.status, MXN_ERR_IO);
  std::string want = "rank " + std::to_string(failing) + ": member 3 unreadable";
  EXPECT_EQ(std::string(e.msg), want);
  // nothing failed: ok everywhere
  mxn_error_clear(&e);
  EXPECT_EQ(mxn_agree(MPI_COMM_WORLD, MXN_OK, &e), MXN_OK);
  EXPECT_EQ(mxn__worst(MPI_COMM_WORLD, R == failing ? MXN_ERR_NOMEM : MXN_OK), MXN_ERR_NOMEM);
  EXPECT_FALSE(mxn__all_ok(MPI_COMM_WORLD, R != failing));
  EXPECT_TRUE(mxn__all_ok(MPI_COMM_WORLD, 1));
  // the serial form leaves the status alone
  EXPECT_EQ(mxn__agree_or_local(MPI_COMM_NULL, MXN_ERR_ARG, &e), MXN_ERR_ARG);
  // (clears what mxn__worst noted for the next agreement)
  EXPECT_EQ(mxn_agree(MPI_COMM_WORLD, MXN_OK, &e), MXN_OK);
}

// The reductions, scans, gathers and broadcasts: their results, and a
// status one rank brings ends in that status on every rank (short
// reductions carry it in the same call, long ones agree first).
TEST(Comm, ReductionsScansAndStatus) {
  int R = rank_of(), N = size_of();
  for (int64_t n : {1, 3, 15, 16, 40}) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<int64_t> v(n), lo(n), hi(n);
    std::vector<double> d(n);
    for (int64_t i = 0; i < n; i++) v[i] = (R + 1) * (i + 1), d[i] = 0.5 * (R + 1);
    lo = hi = v;
    ASSERT_EQ(mxn__comm_reduce_i64(MPI_COMM_WORLD, MXN_OK, MXN__SUM, v.data(), n), MXN_OK);
    ASSERT_EQ(mxn__comm_reduce_i64(MPI_COMM_WORLD, MXN_OK, MXN__MIN, lo.data(), n), MXN_OK);
    ASSERT_EQ(mxn__comm_reduce_i64(MPI_COMM_WORLD, MXN_OK, MXN__MAX, hi.data(), n), MXN_OK);
    ASSERT_EQ(mxn__comm_reduce_f64(MPI_COMM_WORLD, MXN_OK, MXN__SUM, d.data(), n), MXN_OK);
    for (int64_t i = 0; i < n; i++) {
      EXPECT_EQ(v[i], (int64_t)N * (N + 1) / 2 * (i + 1));
      EXPECT_EQ(lo[i], i + 1);
      EXPECT_EQ(hi[i], (int64_t)N * (i + 1));
      EXPECT_DOUBLE_EQ(d[i], 0.25 * N * (N + 1));
    }
    // one rank failed before: every rank gets its status, for every op
    for (mxn__op op : {MXN__SUM, MXN__MIN, MXN__MAX}) {
      EXPECT_EQ(mxn__comm_reduce_i64(MPI_COMM_WORLD, R == N - 1 ? MXN_ERR_NOMEM : MXN_OK, op,
                                     v.data(), n),
                MXN_ERR_NOMEM);
      EXPECT_EQ(mxn__comm_reduce_f64(MPI_COMM_WORLD, R == 0 ? MXN_ERR_IO : MXN_OK, op, d.data(),
                                     n),
                MXN_ERR_IO);
    }
    // the exclusive sums and the totals
    std::vector<int64_t> mine(n, R + 1), before(n, -7), total(n, -7);
    ASSERT_EQ(mxn__comm_exscan_i64(MPI_COMM_WORLD, MXN_OK, mine.data(), n, before.data(),
                                   total.data()),
              MXN_OK);
    for (int64_t i = 0; i < n; i++) {
      EXPECT_EQ(before[i], (int64_t)R * (R + 1) / 2);
      EXPECT_EQ(total[i], (int64_t)N * (N + 1) / 2);
    }
    EXPECT_EQ(mxn__comm_exscan_i64(MPI_COMM_WORLD, R == N / 2 ? MXN_ERR_FORMAT : MXN_OK,
                                   mine.data(), n, before.data(), nullptr),
              MXN_ERR_FORMAT);
  }
  // the lowest tuple: ties decided by the later entries
  int64_t t[3] = {R == 0 && N > 1 ? 9 : 5, 10 - R, R};
  ASSERT_EQ(mxn__comm_lexmin_i64(MPI_COMM_WORLD, MXN_OK, t, 3), MXN_OK);
  EXPECT_EQ(t[0], 5);
  EXPECT_EQ(t[1], 10 - (N - 1));
  EXPECT_EQ(t[2], N - 1);
  EXPECT_EQ(mxn__comm_lexmin_i64(MPI_COMM_WORLD, R == N - 1 ? MXN_ERR_MPI : MXN_OK, t, 3),
            MXN_ERR_MPI);
  EXPECT_EQ(mxn_agree(MPI_COMM_WORLD, MXN_OK, nullptr), MXN_OK); // clears what was heard
}

TEST(Comm, GathersAndBroadcasts) {
  int R = rank_of(), N = size_of();
  // every rank's R + 1 bytes of value R
  std::vector<char> mine(R + 1, (char)R);
  std::vector<int64_t> counts(N, -1);
  void *all = nullptr;
  ASSERT_EQ(mxn__comm_allgatherv(MPI_COMM_WORLD, MXN_OK, mine.data(), R + 1, &all, counts.data()),
            MXN_OK);
  const char *a = static_cast<const char *>(all);
  for (int r = 0, at = 0; r < N; at += r + 1, r++) {
    EXPECT_EQ(counts[r], r + 1);
    for (int k = 0; k <= r; k++) EXPECT_EQ(a[at + k], (char)r);
  }
  free(all);
  all = reinterpret_cast<void *>(1);
  EXPECT_EQ(mxn__comm_allgatherv(MPI_COMM_WORLD, R == 0 ? MXN_ERR_NOMEM : MXN_OK, mine.data(),
                                 R + 1, &all, counts.data()),
            MXN_ERR_NOMEM);
  EXPECT_EQ(all, nullptr);
  // fixed size
  int64_t pair[2] = {R, -R};
  std::vector<int64_t> pairs(2 * N);
  ASSERT_EQ(mxn__comm_allgather(MPI_COMM_WORLD, MXN_OK, pair, sizeof pair, pairs.data()), MXN_OK);
  for (int r = 0; r < N; r++) {
    EXPECT_EQ(pairs[2 * r], r);
    EXPECT_EQ(pairs[2 * r + 1], -r);
  }
  // broadcast from the last rank, its length too
  int root = N - 1;
  std::string text = "from rank " + std::to_string(root);
  void *buf = R == root ? (void *)text.data() : nullptr;
  int64_t len = R == root ? (int64_t)text.size() : -1;
  ASSERT_EQ(mxn__comm_bcast_alloc(MPI_COMM_WORLD, MXN_OK, root, &buf, &len), MXN_OK);
  EXPECT_EQ(len, (int64_t)text.size());
  EXPECT_EQ(std::string(static_cast<char *>(buf), (size_t)len), text);
  if (R != root) free(buf);
  buf = nullptr;
  EXPECT_EQ(mxn__comm_bcast_alloc(MPI_COMM_WORLD, R == root ? MXN_ERR_NOMEM : MXN_OK, root, &buf,
                                  &len),
            MXN_ERR_NOMEM);
  if (R != root) EXPECT_EQ(buf, nullptr);
  double opt[2] = {R == 0 ? 1.5 : 0.0, R == 0 ? 2.5 : 0.0};
  ASSERT_EQ(mxn__comm_bcast(MPI_COMM_WORLD, MXN_OK, 0, opt, sizeof opt), MXN_OK);
  EXPECT_EQ(opt[0], 1.5);
  EXPECT_EQ(opt[1], 2.5);
  EXPECT_EQ(mxn_agree(MPI_COMM_WORLD, MXN_OK, nullptr), MXN_OK);
}

}  // namespace
