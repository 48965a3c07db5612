// Unit tests of the partitioners (core/src/partition/partition.c): invariants of every
// method on structured grids (each element one part in range, no empty part,
// balance, compactness, edge cut), the dual graph against a brute-force
// reference, the Hilbert property of the keys, and the error paths.
//
// Serial tests use MPI_COMM_SELF, as the CLI `mxn split` does. The tests
// named Distributed* use MPI_COMM_WORLD: on one rank they are serial, under
// `mpiexec -n K test_partition` they spread the mesh over K ranks and check
// the same invariants globally (and for the string methods, equality with
// the serial answer).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "mxn/partition.h"

namespace {

const mxn_part_method kAllMethods[] = {MXN_PART_LINEAR, MXN_PART_SFC,  MXN_PART_RCB,
                                       MXN_PART_RIB,    MXN_PART_HSFC, MXN_PART_GRAPH};
const mxn_part_method kGeometric[] = {MXN_PART_SFC, MXN_PART_RCB, MXN_PART_RIB,
                                      MXN_PART_HSFC};

// A structured grid of unit cells: hexes (nz > 0) or quads (nz == 0), with
// centroids, connectivity, and the dual graph from mxn_dual_graph.
struct Grid {
  int nx = 0, ny = 0, nz = 0, dim = 3;
  std::vector<int64_t> ids;     // global ids, 1-based unless shuffled
  std::vector<double> cent;     // n*3
  std::vector<double> weights;  // empty: unweighted
  std::vector<int64_t> conn_off, conn;
  int64_t num_nodes = 0;
  std::vector<int64_t> adj_off;     // dual graph, local indices
  std::vector<int64_t> adj_local;
  std::vector<int64_t> adj_ids;     // dual graph, global ids
  int64_t n() const { return (int64_t)ids.size(); }
  double volume() const { return nz > 0 ? double(nx) * ny * nz : double(nx) * ny; }
};

Grid make_grid(int nx, int ny, int nz, bool shuffle_ids = false, unsigned seed = 1) {
  Grid g;
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  g.dim = nz > 0 ? 3 : 2;
  int lz = nz > 0 ? nz : 1;
  int64_t n = (int64_t)nx * ny * lz;
  int64_t px = nx + 1, py = ny + 1;
  g.num_nodes = nz > 0 ? px * py * (nz + 1) : px * py;
  g.conn_off.push_back(0);
  for (int k = 0; k < lz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        g.ids.push_back((int64_t)g.ids.size() + 1);
        g.cent.push_back(i + 0.5);
        g.cent.push_back(j + 0.5);
        g.cent.push_back(nz > 0 ? k + 0.5 : 0.0);
        auto node = [&](int a, int b, int c) { return (c * py + b) * px + a; };
        int zs = nz > 0 ? 2 : 1;
        for (int c = 0; c < zs; c++) {
          g.conn.push_back(node(i, j, k + c));
          g.conn.push_back(node(i + 1, j, k + c));
          g.conn.push_back(node(i + 1, j + 1, k + c));
          g.conn.push_back(node(i, j + 1, k + c));
        }
        g.conn_off.push_back((int64_t)g.conn.size());
      }
  if (shuffle_ids) {
    std::mt19937 rng(seed);
    std::vector<int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), 1000);
    std::shuffle(perm.begin(), perm.end(), rng);
    g.ids = perm;
  }
  int64_t *off = nullptr, *adj = nullptr;
  int rc = mxn_dual_graph(n, g.conn_off.data(), g.conn.data(), g.num_nodes,
                          nz > 0 ? 4 : 2, &off, &adj);
  EXPECT_EQ(rc, MXN_OK);
  if (rc == MXN_OK) {
    g.adj_off.assign(off, off + n + 1);
    g.adj_local.assign(adj, adj + off[n]);
    for (int64_t e : g.adj_local) g.adj_ids.push_back(g.ids[e]);
  }
  free(off);
  free(adj);
  return g;
}

mxn_part_input_t input_of(const Grid &g) {
  mxn_part_input_t in;
  std::memset(&in, 0, sizeof in);
  in.n = g.n();
  in.dim = g.dim;
  in.ids = g.ids.data();
  in.centroids = g.cent.data();
  in.weights = g.weights.empty() ? nullptr : g.weights.data();
  in.adj_off = g.adj_off.data();
  in.adj_ids = g.adj_ids.data();
  return in;
}

struct PartRun {
  int rc = MXN_OK;
  std::string msg;
  std::vector<int> part;
};

PartRun partition(MPI_Comm comm, mxn_part_method m, const mxn_part_input_t &in, int nparts,
              const mxn_part_opts_t *opts = nullptr) {
  PartRun r;
  r.part.assign((size_t)std::max<int64_t>(in.n, 1), -7);
  mxn_error_t err;
  mxn_error_clear(&err);
  r.rc = mxn_partition(comm, m, &in, nparts, opts, r.part.data(), &err);
  r.msg = err.msg;
  r.part.resize((size_t)in.n);
  return r;
}

// Out-of-range parts are left out here; expect_valid reports them.
std::vector<int64_t> counts(const std::vector<int> &part, int nparts) {
  std::vector<int64_t> c(nparts, 0);
  for (int p : part)
    if (p >= 0 && p < nparts) c[p]++;
  return c;
}

std::vector<double> part_weights(const std::vector<int> &part, int nparts,
                                 const std::vector<double> &w) {
  std::vector<double> s(nparts, 0);
  for (size_t k = 0; k < part.size(); k++)
    if (part[k] >= 0 && part[k] < nparts) s[part[k]] += w.empty() ? 1.0 : w[k];
  return s;
}

double imbalance(const std::vector<double> &load) {
  double tot = std::accumulate(load.begin(), load.end(), 0.0);
  double mx = *std::max_element(load.begin(), load.end());
  return mx / (tot / load.size());
}

// Sum over parts of the volume of the bounding box of their cells.
double bbox_volume_sum(const Grid &g, const std::vector<int> &part, int nparts) {
  std::vector<double> lo(3 * nparts, INFINITY), hi(3 * nparts, -INFINITY);
  for (int64_t k = 0; k < g.n(); k++)
    for (int d = 0; d < g.dim; d++) {
      int p = part[k];
      if (p < 0 || p >= nparts) continue;
      lo[3 * p + d] = std::min(lo[3 * p + d], g.cent[3 * k + d] - 0.5);
      hi[3 * p + d] = std::max(hi[3 * p + d], g.cent[3 * k + d] + 0.5);
    }
  double sum = 0;
  for (int p = 0; p < nparts; p++) {
    if (!(hi[3 * p] > lo[3 * p])) continue;
    double v = 1;
    for (int d = 0; d < g.dim; d++) v *= hi[3 * p + d] - lo[3 * p + d];
    sum += v;
  }
  return sum;
}

// Dual-graph edges whose ends lie in different parts (each edge once).
int64_t edge_cut(const Grid &g, const std::vector<int> &part) {
  int64_t cut = 0;
  for (int64_t k = 0; k < g.n(); k++)
    for (int64_t j = g.adj_off[k]; j < g.adj_off[k + 1]; j++)
      if (g.adj_local[j] > k && part[k] != part[g.adj_local[j]]) cut++;
  return cut;
}

void expect_valid(const PartRun &r, int64_t n, int nparts, const char *what) {
  ASSERT_EQ(r.rc, MXN_OK) << what << ": " << r.msg;
  ASSERT_EQ((int64_t)r.part.size(), n);
  for (int p : r.part) {
    ASSERT_GE(p, 0) << what;
    ASSERT_LT(p, nparts) << what;
  }
  if (nparts <= n) {
    auto c = counts(r.part, nparts);
    for (int p = 0; p < nparts; p++) EXPECT_GT(c[p], 0) << what << ": part " << p << " empty";
  }
}

std::string label(mxn_part_method m, const Grid &g, int nparts) {
  return std::string(mxn_part_method_name(m)) + " " + std::to_string(g.nx) + "x" +
         std::to_string(g.ny) + (g.nz ? "x" + std::to_string(g.nz) : "") + " into " +
         std::to_string(nparts);
}

}  // namespace

// ---------------------------------------------------------------------
// Method names

TEST(PartMethod, ParseAndName) {
  mxn_part_method m;
  for (mxn_part_method want : kAllMethods) {
    ASSERT_EQ(mxn_part_method_parse(mxn_part_method_name(want), &m), MXN_OK);
    EXPECT_EQ(m, want);
  }
  ASSERT_EQ(mxn_part_method_parse("RCB", &m), MXN_OK);
  EXPECT_EQ(m, MXN_PART_RCB);
  ASSERT_EQ(mxn_part_method_parse("Graph", &m), MXN_OK);
  EXPECT_EQ(m, MXN_PART_GRAPH);
  EXPECT_EQ(mxn_part_method_parse("metis", &m), MXN_ERR_ARG);
  EXPECT_EQ(mxn_part_method_parse("rcbx", &m), MXN_ERR_ARG);
  EXPECT_EQ(mxn_part_method_parse("", &m), MXN_ERR_ARG);
  EXPECT_EQ(mxn_part_method_parse(nullptr, &m), MXN_ERR_ARG);
  EXPECT_EQ(mxn_part_method_parse("sfc", nullptr), MXN_ERR_ARG);
  EXPECT_STREQ(mxn_part_method_name((mxn_part_method)42), "unknown");
  EXPECT_EQ(mxn_part_method_label((mxn_part_method)42), nullptr);
}

// The reader's PartitionMethod enumeration in the proxy XML (static, so
// not built from the table) against the core's table: the same numbers
// and labels, in order, the reader's methods only, the default Files.
TEST(PartMethod, PartitionMethodTable) {
  std::FILE* f = std::fopen(MXN_XML_DIR "/MxNReader.xml", "r");
  ASSERT_NE(f, nullptr) << MXN_XML_DIR "/MxNReader.xml";
  std::string xml;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) xml.append(buf, n);
  std::fclose(f);
  size_t at = xml.find("<IntVectorProperty name=\"PartitionMethod\"");
  ASSERT_NE(at, std::string::npos);
  size_t end = xml.find("</EnumerationDomain>", at);
  ASSERT_NE(end, std::string::npos);
  std::string prop = xml.substr(at, end - at);
  size_t def = prop.find("default_values=\"");
  ASSERT_NE(def, std::string::npos);
  EXPECT_EQ(std::atoi(prop.c_str() + def + 16), (int)MXN_PART_FILES);
  std::regex entry("<Entry\\s+value=\"(\\d+)\"\\s+text=\"([^\"]*)\"");
  int k = 0;
  for (std::sregex_iterator it(prop.begin(), prop.end(), entry), none; it != none; ++it, ++k) {
    int v = std::stoi((*it)[1]);
    std::string text = (*it)[2];
    EXPECT_EQ(v, k) << "entry " << k << " (" << text << ")";
    ASSERT_NE(mxn_part_method_label((mxn_part_method)v), nullptr) << text;
    EXPECT_EQ(text, mxn_part_method_label((mxn_part_method)v)) << "number " << v;
    mxn_part_method m;
    ASSERT_EQ(mxn_part_method_parse(text.c_str(), &m), MXN_OK) << text;
    EXPECT_EQ((int)m, v) << text;
  }
  EXPECT_EQ(k, MXN_PART_NUM_READER);
}

// ---------------------------------------------------------------------
// Every method: valid, complete, no empty part

TEST(Partition, EveryMethodEveryGridValidAndNoEmptyPart) {
  std::vector<Grid> grids = {make_grid(20, 20, 20), make_grid(30, 30, 0), make_grid(3, 1, 1)};
  for (const Grid &g : grids) {
    mxn_part_input_t in = input_of(g);
    for (mxn_part_method m : kAllMethods)
      for (int nparts : {1, 2, 3, 7, 16, 64}) {
        if (nparts > g.n()) continue;
        PartRun r = partition(MPI_COMM_SELF, m, in, nparts);
        std::string what = label(m, g, nparts);
        expect_valid(r, g.n(), nparts, what.c_str());
        if (nparts == 1) {
          for (int p : r.part) EXPECT_EQ(p, 0) << what;
        }
      }
  }
}

TEST(Partition, BalanceUniformWeights) {
  std::vector<Grid> grids = {make_grid(20, 20, 20), make_grid(30, 30, 0)};
  for (const Grid &g : grids) {
    mxn_part_input_t in = input_of(g);
    for (mxn_part_method m : kAllMethods)
      for (int nparts : {2, 7, 16, 24}) {
        PartRun r = partition(MPI_COMM_SELF, m, in, nparts);
        std::string what = label(m, g, nparts);
        expect_valid(r, g.n(), nparts, what.c_str());
        double imb = imbalance(part_weights(r.part, nparts, {}));
        // Zoltan is asked for 1.05; leave room for whole elements.
        EXPECT_LE(imb, 1.10) << what;
        if (m == MXN_PART_LINEAR || m == MXN_PART_SFC) {
          // Our string cut with unit weights: part sizes differ by <= 1.
          auto c = counts(r.part, nparts);
          auto mm = std::minmax_element(c.begin(), c.end());
          EXPECT_LE(*mm.second - *mm.first, 1) << what;
        }
        RecordProperty(what + " imbalance", std::to_string(imb));
      }
  }
}

TEST(Partition, BalanceNonUniformWeights) {
  Grid g = make_grid(20, 20, 20);
  // Ten times heavier in one corner octant and a smooth ramp elsewhere.
  for (int64_t k = 0; k < g.n(); k++) {
    const double *c = &g.cent[3 * k];
    g.weights.push_back((c[0] < 10 && c[1] < 10 && c[2] < 10) ? 10.0 : 1.0 + 0.1 * c[0]);
  }
  mxn_part_input_t in = input_of(g);
  for (mxn_part_method m : kAllMethods)
    for (int nparts : {3, 8, 13}) {
      PartRun r = partition(MPI_COMM_SELF, m, in, nparts);
      std::string what = label(m, g, nparts) + " weighted";
      expect_valid(r, g.n(), nparts, what.c_str());
      double imb = imbalance(part_weights(r.part, nparts, g.weights));
      EXPECT_LE(imb, 1.10) << what;
      if (m == MXN_PART_SFC || m == MXN_PART_LINEAR) {
        EXPECT_LE(imb, 1.01) << what;
      }
      RecordProperty(what + " imbalance", std::to_string(imb));
    }
}

TEST(Partition, GeometricPartsAreCompact) {
  std::vector<Grid> grids = {make_grid(20, 20, 20), make_grid(30, 30, 0)};
  for (const Grid &g : grids) {
    mxn_part_input_t in = input_of(g);
    for (mxn_part_method m : kGeometric)
      for (int nparts : {7, 8, 13, 16}) {
        PartRun r = partition(MPI_COMM_SELF, m, in, nparts);
        std::string what = label(m, g, nparts);
        expect_valid(r, g.n(), nparts, what.c_str());
        double ratio = bbox_volume_sum(g, r.part, nparts) / g.volume();
        // Disjoint boxes would sum to 1; a scattered partition to ~nparts.
        EXPECT_LE(ratio, 2.5) << what;
        // RCB boxes tile but for elements on a cut plane sent both ways.
        if (m == MXN_PART_RCB) {
          EXPECT_LE(ratio, 1.2) << what;
        }
        RecordProperty(what + " bbox volume / domain", std::to_string(ratio));
      }
  }
  // Reference: contiguous runs of scrambled ids are scattered all over.
  Grid s = make_grid(20, 20, 20, true);
  mxn_part_input_t in = input_of(s);
  PartRun r = partition(MPI_COMM_SELF, MXN_PART_LINEAR, in, 8);
  expect_valid(r, s.n(), 8, "linear scrambled");
  EXPECT_GT(bbox_volume_sum(s, r.part, 8) / s.volume(), 0.9 * 8);
}

TEST(Partition, LinearIsContiguousInIdOrder) {
  Grid g = make_grid(17, 13, 0, true, 7);  // 221 elements, scrambled ids
  mxn_part_input_t in = input_of(g);
  for (int nparts : {2, 5, 16, 221}) {
    PartRun r = partition(MPI_COMM_SELF, MXN_PART_LINEAR, in, nparts);
    expect_valid(r, g.n(), nparts, "linear");
    std::vector<int64_t> order(g.n());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](int64_t a, int64_t b) { return g.ids[a] < g.ids[b]; });
    for (size_t i = 1; i < order.size(); i++) {
      int d = r.part[order[i]] - r.part[order[i - 1]];
      EXPECT_TRUE(d == 0 || d == 1) << "step " << d << " at sorted position " << i;
    }
    auto c = counts(r.part, nparts);
    for (int64_t x : c) {
      EXPECT_GE(x, g.n() / nparts);
      EXPECT_LE(x, g.n() / nparts + 1);
    }
  }
}

TEST(Partition, MorePartsThanElements) {
  Grid g = make_grid(3, 1, 1);
  mxn_part_input_t in = input_of(g);
  for (mxn_part_method m : kAllMethods) {
    PartRun r = partition(MPI_COMM_SELF, m, in, 5);
    std::string what = label(m, g, 5);
    expect_valid(r, g.n(), 5, what.c_str());
    if (m == MXN_PART_LINEAR || m == MXN_PART_SFC) {
      // The string gives each element its own part, the first ones.
      std::set<int> used(r.part.begin(), r.part.end());
      EXPECT_EQ(used, (std::set<int>{0, 1, 2})) << what;
    }
  }
}

TEST(Partition, NoLocalElements) {
  mxn_part_input_t in;
  std::memset(&in, 0, sizeof in);  // n = 0, dim = 0, every array NULL
  for (mxn_part_method m : kAllMethods) {
    mxn_error_t err;
    EXPECT_EQ(mxn_partition(MPI_COMM_SELF, m, &in, 4, nullptr, nullptr, &err), MXN_OK)
        << mxn_part_method_name(m) << ": " << err.msg;
  }
}

// Fluidity's rule: whatever the weights, no part is left empty while there
// are at least as many elements as parts.
TEST(Partition, SkewedWeightsNeverLeaveAPartEmpty) {
  std::vector<Grid> grids = {make_grid(4, 3, 0), make_grid(10, 1, 1), make_grid(6, 6, 6)};
  for (Grid &g : grids) {
    g.weights.assign(g.n(), 1.0);
    g.weights[0] = 1e6;            // one element outweighs all others
    g.weights[g.n() / 2] = 1e-6;   // and one is almost nothing
    mxn_part_input_t in = input_of(g);
    std::vector<double> ew(g.adj_ids.size(), 1.0);
    ew[0] = 50;  // graph: exercises the retry without edge weights too
    in.edge_weights = ew.data();
    for (mxn_part_method m : kAllMethods)
      for (int nparts : {2, 5, (int)std::min<int64_t>(g.n(), 12), (int)g.n()}) {
        mxn_part_opts_t opts = {1.5, 3};  // Fluidity's loose tolerance
        PartRun r = partition(MPI_COMM_SELF, m, in, nparts, &opts);
        std::string what = label(m, g, nparts) + " skewed";
        expect_valid(r, g.n(), nparts, what.c_str());
      }
  }
}

TEST(Partition, GraphCutFarBelowRandom) {
  Grid g = make_grid(20, 20, 20);
  mxn_part_input_t in = input_of(g);
  const int nparts = 8;
  int64_t edges = (int64_t)g.adj_local.size() / 2;
  ASSERT_EQ(edges, 3 * 19 * 20 * 20);

  std::mt19937 rng(12345);
  std::vector<int> rnd(g.n());
  for (int &p : rnd) p = (int)(rng() % nparts);
  int64_t cut_random = edge_cut(g, rnd);

  PartRun r = partition(MPI_COMM_SELF, MXN_PART_GRAPH, in, nparts);
  expect_valid(r, g.n(), nparts, "graph");
  int64_t cut_graph = edge_cut(g, r.part);
  // Eight 10^3 cubes cut 3 * 400 = 1200 faces; random cuts ~ 7/8 of 22800.
  EXPECT_LT(cut_graph, cut_random / 5);
  EXPECT_LE(imbalance(part_weights(r.part, nparts, {})), 1.10);
  RecordProperty("graph cut", std::to_string(cut_graph));
  RecordProperty("random cut", std::to_string(cut_random));

  for (mxn_part_method m : kGeometric) {
    PartRun rg = partition(MPI_COMM_SELF, m, in, nparts);
    expect_valid(rg, g.n(), nparts, mxn_part_method_name(m));
    EXPECT_LT(edge_cut(g, rg.part), cut_random / 5) << mxn_part_method_name(m);
    RecordProperty(std::string(mxn_part_method_name(m)) + " cut",
                   std::to_string(edge_cut(g, rg.part)));
  }

  // With edge weights, and again with the same seed: the same answer.
  std::vector<double> ew(g.adj_local.size(), 1.0);
  in.edge_weights = ew.data();
  mxn_part_opts_t opts = {0, 99};
  PartRun a = partition(MPI_COMM_SELF, MXN_PART_GRAPH, in, nparts, &opts);
  PartRun b = partition(MPI_COMM_SELF, MXN_PART_GRAPH, in, nparts, &opts);
  expect_valid(a, g.n(), nparts, "graph weighted");
  EXPECT_EQ(a.part, b.part);
  EXPECT_LT(edge_cut(g, a.part), cut_random / 5);
}

TEST(Partition, GraphOnQuads) {
  Grid g = make_grid(30, 30, 0);
  mxn_part_input_t in = input_of(g);
  PartRun r = partition(MPI_COMM_SELF, MXN_PART_GRAPH, in, 6);
  expect_valid(r, g.n(), 6, "graph 2D");
  std::mt19937 rng(5);
  std::vector<int> rnd(g.n());
  for (int &p : rnd) p = (int)(rng() % 6);
  EXPECT_LT(edge_cut(g, r.part), edge_cut(g, rnd) / 5);
}

// ---------------------------------------------------------------------
// Dual graph

namespace {
// O(n^2) reference: neighbours share >= min_shared distinct nodes.
std::vector<std::vector<int64_t>> brute_dual(const std::vector<int64_t> &off,
                                             const std::vector<int64_t> &conn,
                                             int min_shared) {
  int64_t n = (int64_t)off.size() - 1;
  std::vector<std::set<int64_t>> nodes(n);
  for (int64_t k = 0; k < n; k++) nodes[k].insert(conn.begin() + off[k], conn.begin() + off[k + 1]);
  std::vector<std::vector<int64_t>> adj(n);
  for (int64_t a = 0; a < n; a++)
    for (int64_t b = 0; b < n; b++) {
      if (a == b) continue;
      int shared = 0;
      for (int64_t v : nodes[a]) shared += (int)nodes[b].count(v);
      if (shared >= min_shared) adj[a].push_back(b);
    }
  return adj;
}
}  // namespace

TEST(DualGraph, MatchesBruteForceOnRandomMeshes) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 60; trial++) {
    int64_t n = 1 + rng() % 40, nn = 1 + rng() % 30;
    std::vector<int64_t> off = {0}, conn;
    for (int64_t k = 0; k < n; k++) {
      int len = (int)(rng() % 9);  // 0..8 nodes, repeats allowed (collapsed)
      for (int i = 0; i < len; i++) conn.push_back((int64_t)(rng() % nn));
      off.push_back((int64_t)conn.size());
    }
    for (int min_shared = 1; min_shared <= 4; min_shared++) {
      int64_t *aoff = nullptr, *adj = nullptr;
      ASSERT_EQ(mxn_dual_graph(n, off.data(), conn.data(), nn, min_shared, &aoff, &adj), MXN_OK);
      auto ref = brute_dual(off, conn, min_shared);
      ASSERT_EQ(aoff[0], 0);
      for (int64_t k = 0; k < n; k++) {
        std::vector<int64_t> got(adj + aoff[k], adj + aoff[k + 1]);
        EXPECT_EQ(got, ref[k]) << "trial " << trial << " element " << k << " min_shared "
                               << min_shared;  // sorted, no self, no duplicates
      }
      free(aoff);
      free(adj);
    }
  }
}

TEST(DualGraph, HexGridFaceAndNodeNeighbours) {
  Grid g = make_grid(4, 3, 2);
  int64_t *off = nullptr, *adj = nullptr;
  // Corner element 0: 3 face neighbours, 7 sharing any node.
  ASSERT_EQ(mxn_dual_graph(g.n(), g.conn_off.data(), g.conn.data(), g.num_nodes, 4, &off, &adj),
            MXN_OK);
  EXPECT_EQ(off[1] - off[0], 3);
  free(off);
  free(adj);
  ASSERT_EQ(mxn_dual_graph(g.n(), g.conn_off.data(), g.conn.data(), g.num_nodes, 1, &off, &adj),
            MXN_OK);
  EXPECT_EQ(off[1] - off[0], 7);
  free(off);
  free(adj);
  // No elements: one offset, still freeable.
  ASSERT_EQ(mxn_dual_graph(0, nullptr, nullptr, 0, 1, &off, &adj), MXN_OK);
  EXPECT_EQ(off[0], 0);
  free(off);
  free(adj);
}

TEST(DualGraph, BadArguments) {
  std::vector<int64_t> off = {0, 3, 6}, conn = {0, 1, 2, 2, 3, 4};
  int64_t *aoff = (int64_t *)0x1, *adj = (int64_t *)0x1;
  EXPECT_EQ(mxn_dual_graph(2, off.data(), conn.data(), 5, 1, nullptr, &adj), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dual_graph(2, off.data(), conn.data(), 5, 1, &aoff, nullptr), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dual_graph(2, off.data(), conn.data(), 5, 0, &aoff, &adj), MXN_ERR_ARG);
  EXPECT_EQ(aoff, nullptr);  // outputs cleared on failure
  EXPECT_EQ(adj, nullptr);
  EXPECT_EQ(mxn_dual_graph(-1, off.data(), conn.data(), 5, 1, &aoff, &adj), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dual_graph(2, nullptr, conn.data(), 5, 1, &aoff, &adj), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dual_graph(2, off.data(), nullptr, 5, 1, &aoff, &adj), MXN_ERR_ARG);
  EXPECT_EQ(mxn_dual_graph(2, off.data(), conn.data(), 4, 1, &aoff, &adj), MXN_ERR_ARG);
  std::vector<int64_t> bad_off = {0, 4, 3};
  EXPECT_EQ(mxn_dual_graph(2, bad_off.data(), conn.data(), 5, 1, &aoff, &adj), MXN_ERR_ARG);
  std::vector<int64_t> neg = {0, 1, 2, 2, -1, 4};
  EXPECT_EQ(mxn_dual_graph(2, off.data(), neg.data(), 5, 1, &aoff, &adj), MXN_ERR_ARG);
  ASSERT_EQ(mxn_dual_graph(2, off.data(), conn.data(), 5, 1, &aoff, &adj), MXN_OK);
  EXPECT_EQ(aoff[1], 1);
  EXPECT_EQ(adj[0], 1);
  EXPECT_EQ(adj[1], 0);
  free(aoff);
  free(adj);
}

// ---------------------------------------------------------------------
// Hilbert keys

TEST(Hilbert, DistinctKeysAndConsecutiveAreGridNeighbours) {
  for (int bits = 1; bits <= 4; bits++) {
    const int side = 1 << bits;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    std::vector<double> xyz;
    std::vector<std::array<int, 3>> ijk;
    for (int k = 0; k < side; k++)
      for (int j = 0; j < side; j++)
        for (int i = 0; i < side; i++) {
          xyz.push_back((i + 0.5) / side);
          xyz.push_back((j + 0.5) / side);
          xyz.push_back((k + 0.5) / side);
          ijk.push_back({i, j, k});
        }
    int64_t n = (int64_t)ijk.size();
    std::vector<uint64_t> key(n);
    mxn_hilbert_keys(n, xyz.data(), lo, hi, key.data());
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return key[a] < key[b]; });
    for (int64_t i = 0; i < n; i++) EXPECT_LT(key[i], UINT64_C(1) << 63);
    for (int64_t i = 1; i < n; i++) {
      ASSERT_NE(key[order[i]], key[order[i - 1]]) << "duplicate key at side " << side;
      int dist = 0;
      for (int d = 0; d < 3; d++) dist += std::abs(ijk[order[i]][d] - ijk[order[i - 1]][d]);
      EXPECT_EQ(dist, 1) << "side " << side << ": step " << i << " is not to a face neighbour";
    }
  }
}

TEST(Hilbert, DegenerateAxesAndNaN) {
  const double lo[3] = {0, 0, 5}, hi[3] = {1, 1, 5};  // flat z
  std::vector<double> a = {0.3, 0.7, 5, 0.3, 0.7, -100, 0.3, 0.7, NAN};
  std::vector<uint64_t> k(3);
  mxn_hilbert_keys(3, a.data(), lo, hi, k.data());
  EXPECT_EQ(k[0], k[1]);
  EXPECT_EQ(k[0], k[2]);
  // A NaN coordinate maps to the low end of its axis.
  std::vector<double> b = {NAN, 0.7, 5, 0.0, 0.7, 5};
  mxn_hilbert_keys(2, b.data(), lo, hi, k.data());
  EXPECT_EQ(k[0], k[1]);
  // Points outside the box clamp to its faces; the corners are extreme.
  const double lo3[3] = {0, 0, 0}, hi3[3] = {1, 1, 1};
  std::vector<double> c = {-1, -1, -1, 0, 0, 0, 2, 2, 2, 1, 1, 1};
  k.resize(4);
  mxn_hilbert_keys(4, c.data(), lo3, hi3, k.data());
  EXPECT_EQ(k[0], 0u);
  EXPECT_EQ(k[1], 0u);
  EXPECT_EQ(k[2], k[3]);
  // A NaN box maps everything to 0 instead of undefined behaviour.
  const double nlo[3] = {NAN, NAN, NAN};
  mxn_hilbert_keys(4, c.data(), nlo, hi3, k.data());
  for (uint64_t x : k) EXPECT_EQ(x, 0u);
}

// ---------------------------------------------------------------------
// Errors

TEST(Partition, BadArguments) {
  Grid g = make_grid(4, 4, 0);
  mxn_part_input_t in = input_of(g);
  std::vector<int> part(g.n());
  mxn_error_t err;
  auto expect_arg = [&](int rc, const char *what) {
    EXPECT_EQ(rc, MXN_ERR_ARG) << what;
    EXPECT_EQ(err.status, MXN_ERR_ARG) << what;
    EXPECT_GT(std::strlen(err.msg), 0u) << what;
  };
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_SFC, nullptr, 4, nullptr, part.data(), &err),
             "NULL input");
  EXPECT_NE(std::string(err.msg).find("sfc"), std::string::npos) << err.msg;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_SFC, &in, 4, nullptr, nullptr, &err),
             "NULL part");
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_RCB, &in, 0, nullptr, part.data(), &err),
             "nparts 0");
  EXPECT_NE(std::string(err.msg).find("rcb"), std::string::npos) << err.msg;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_RCB, &in, -3, nullptr, part.data(), &err),
             "nparts < 0");
  expect_arg(mxn_partition(MPI_COMM_SELF, (mxn_part_method)17, &in, 4, nullptr, part.data(),
                           &err),
             "unknown method");
  expect_arg(mxn_partition(MPI_COMM_NULL, MXN_PART_SFC, &in, 4, nullptr, part.data(), &err),
             "null communicator");
  // NULL err is allowed.
  EXPECT_EQ(mxn_partition(MPI_COMM_SELF, MXN_PART_SFC, &in, 0, nullptr, part.data(), nullptr),
            MXN_ERR_ARG);

  mxn_part_input_t bad = in;
  bad.ids = nullptr;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_LINEAR, &bad, 4, nullptr, part.data(), &err),
             "NULL ids");
  bad = in;
  bad.centroids = nullptr;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_HSFC, &bad, 4, nullptr, part.data(), &err),
             "NULL centroids");
  // LINEAR does not need centroids.
  EXPECT_EQ(mxn_partition(MPI_COMM_SELF, MXN_PART_LINEAR, &bad, 4, nullptr, part.data(), &err),
            MXN_OK);
  bad = in;
  bad.dim = 4;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_RIB, &bad, 4, nullptr, part.data(), &err),
             "dim 4");
  bad = in;
  bad.n = -1;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_SFC, &bad, 4, nullptr, part.data(), &err),
             "n < 0");
  std::vector<double> w(g.n(), 1.0);
  w[5] = -1;
  bad = in;
  bad.weights = w.data();
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_SFC, &bad, 4, nullptr, part.data(), &err),
             "negative weight");
  w[5] = NAN;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_RCB, &bad, 4, nullptr, part.data(), &err),
             "NaN weight");
  w[5] = 0;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_LINEAR, &bad, 4, nullptr, part.data(), &err),
             "zero weight");
  std::vector<double> c = g.cent;
  c[3 * 2 + 1] = INFINITY;
  bad = in;
  bad.centroids = c.data();
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_RCB, &bad, 4, nullptr, part.data(), &err),
             "infinite centroid for Zoltan");

  // Graph: no graph, a neighbour nobody has, a bad rank, a bad edge weight.
  bad = in;
  bad.adj_off = nullptr;
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_GRAPH, &bad, 4, nullptr, part.data(), &err),
             "graph without adj_off");
  EXPECT_NE(std::string(err.msg).find("graph"), std::string::npos) << err.msg;
  std::vector<int64_t> ids2 = g.adj_ids;
  ids2[0] = 999999;
  bad = in;
  bad.adj_ids = ids2.data();
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_GRAPH, &bad, 4, nullptr, part.data(), &err),
             "unknown neighbour");
  std::vector<int> ranks(g.adj_ids.size(), 0);
  ranks[3] = 1;
  bad = in;
  bad.adj_ranks = ranks.data();
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_GRAPH, &bad, 4, nullptr, part.data(), &err),
             "neighbour rank out of range");
  std::vector<double> ew(g.adj_ids.size(), 1.0);
  ew[2] = -1;
  bad = in;
  bad.edge_weights = ew.data();
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_GRAPH, &bad, 4, nullptr, part.data(), &err),
             "negative edge weight");
  std::vector<int64_t> off2 = g.adj_off;
  std::swap(off2[3], off2[4]);
  bad = in;
  bad.adj_off = off2.data();
  expect_arg(mxn_partition(MPI_COMM_SELF, MXN_PART_GRAPH, &bad, 4, nullptr, part.data(), &err),
             "descending adj_off");

  // A success clears an earlier error.
  EXPECT_EQ(mxn_partition(MPI_COMM_SELF, MXN_PART_SFC, &in, 4, nullptr, part.data(), &err),
            MXN_OK);
  EXPECT_EQ(err.status, MXN_OK);
  EXPECT_STREQ(err.msg, "");
}

TEST(Partition, SelfLoopsInTheGraphAreIgnored) {
  Grid g = make_grid(6, 6, 0);
  // Add each element as its own neighbour.
  std::vector<int64_t> off = {0}, ids;
  for (int64_t k = 0; k < g.n(); k++) {
    ids.push_back(g.ids[k]);
    for (int64_t j = g.adj_off[k]; j < g.adj_off[k + 1]; j++) ids.push_back(g.adj_ids[j]);
    off.push_back((int64_t)ids.size());
  }
  mxn_part_input_t in = input_of(g);
  in.adj_off = off.data();
  in.adj_ids = ids.data();
  PartRun r = partition(MPI_COMM_SELF, MXN_PART_GRAPH, in, 4);
  expect_valid(r, g.n(), 4, "graph with self-loops");
}

// ---------------------------------------------------------------------
// Distributed input (MPI_COMM_WORLD; serial when run on one rank)

namespace {
// Owner of element k of the full grid under three layouts: scattered (so
// the sort and the graph really cross ranks), everything on the last rank
// (the others have nothing), and contiguous blocks of uneven size.
int owner_of(int64_t k, int nprocs, int layout = 0, int64_t n = 1) {
  switch (layout) {
  case 1: return nprocs - 1;
  case 2: return (int)std::min<int64_t>(nprocs - 1, (k * k / std::max<int64_t>(n, 1)) * nprocs / n);
  default: return (int)((k * 7 + k / 5) % nprocs);
  }
}

struct Piece {
  std::vector<int64_t> idx;  // local -> full-grid index
  std::vector<int64_t> ids;
  std::vector<double> cent, w, ew;
  std::vector<int64_t> adj_off = {0}, adj_ids;
  std::vector<int> adj_ranks;
};

Piece piece_of(const Grid &g, int rank, int nprocs, int layout = 0) {
  Piece p;
  for (int64_t k = 0; k < g.n(); k++) {
    if (owner_of(k, nprocs, layout, g.n()) != rank) continue;
    p.idx.push_back(k);
    p.ids.push_back(g.ids[k]);
    p.cent.insert(p.cent.end(), &g.cent[3 * k], &g.cent[3 * k] + 3);
    if (!g.weights.empty()) p.w.push_back(g.weights[k]);
    for (int64_t j = g.adj_off[k]; j < g.adj_off[k + 1]; j++) {
      p.adj_ids.push_back(g.adj_ids[j]);
      p.adj_ranks.push_back(owner_of(g.adj_local[j], nprocs, layout, g.n()));
      p.ew.push_back(1.0 + (double)((k + g.adj_local[j]) % 3));
    }
    p.adj_off.push_back((int64_t)p.adj_ids.size());
  }
  return p;
}

mxn_part_input_t input_of(const Piece &p, int dim) {
  mxn_part_input_t in;
  std::memset(&in, 0, sizeof in);
  in.n = (int64_t)p.ids.size();
  in.dim = dim;
  in.ids = p.ids.data();
  in.centroids = p.cent.data();
  in.weights = p.w.empty() ? nullptr : p.w.data();
  in.adj_off = p.adj_off.data();
  in.adj_ids = p.adj_ids.data();
  in.adj_ranks = p.adj_ranks.data();
  return in;
}
}  // namespace

TEST(Partition, DistributedMatchesInvariants) {
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  for (int layout : {0, 1, 2})
  for (bool weighted : {false, true}) {
    Grid g = make_grid(12, 10, 8, true, 3);
    if (weighted)
      for (int64_t k = 0; k < g.n(); k++) g.weights.push_back(1.0 + (k % 4));
    Piece p = piece_of(g, rank, nprocs, layout);
    mxn_part_input_t in = input_of(p, g.dim);
    mxn_part_input_t full = input_of(g);
    for (mxn_part_method m : kAllMethods)
      for (int nparts : {1, 5, 16}) {
        std::string what = label(m, g, nparts) + (weighted ? " weighted" : "") + " on " +
                           std::to_string(nprocs) + " ranks, layout " + std::to_string(layout);
        PartRun r = partition(MPI_COMM_WORLD, m, in, nparts);
        ASSERT_EQ(r.rc, MXN_OK) << what << ": " << r.msg;
        // Gather the global answer: part of every full-grid element.
        std::vector<int> mine(g.n(), -1), all(g.n(), -1);
        for (size_t k = 0; k < p.idx.size(); k++) mine[p.idx[k]] = r.part[k];
        MPI_Allreduce(mine.data(), all.data(), (int)g.n(), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        PartRun whole;
        whole.part = all;
        expect_valid(whole, g.n(), nparts, what.c_str());
        double imb = imbalance(part_weights(all, nparts, g.weights));
        EXPECT_LE(imb, 1.10) << what;
        if (m == MXN_PART_LINEAR || m == MXN_PART_SFC) {
          // The string is the same wherever its pieces start.
          PartRun serial = partition(MPI_COMM_SELF, m, full, nparts);
          ASSERT_EQ(serial.rc, MXN_OK) << serial.msg;
          EXPECT_EQ(all, serial.part) << what;
        }
      }
    // Graph with edge weights across ranks.
    in.edge_weights = p.ew.data();
    PartRun r = partition(MPI_COMM_WORLD, MXN_PART_GRAPH, in, 6);
    ASSERT_EQ(r.rc, MXN_OK) << r.msg;
  }
}

TEST(Partition, DistributedErrorsAgree) {
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  Grid g = make_grid(8, 8, 0);
  Piece p = piece_of(g, rank, nprocs);
  mxn_part_input_t in = input_of(p, g.dim);
  std::vector<int> part(std::max<size_t>(p.ids.size(), 1));
  mxn_error_t err;
  // Only the last rank has a bad weight; everybody must fail the same way.
  std::vector<double> w(p.ids.size(), 1.0);
  if (rank == nprocs - 1 && !w.empty()) w[0] = -2;
  in.weights = w.data();
  for (mxn_part_method m : kAllMethods) {
    int rc = mxn_partition(MPI_COMM_WORLD, m, &in, 3, nullptr, part.data(), &err);
    EXPECT_EQ(rc, MXN_ERR_ARG) << mxn_part_method_name(m);
    EXPECT_GT(std::strlen(err.msg), 0u);
  }
  // Ranks without elements may pass dim 0 and NULL arrays, even when the
  // others pass weights.
  {
    Grid h = make_grid(6, 5, 4);
    h.weights.assign(h.n(), 2.0);
    Piece q = piece_of(h, rank, nprocs, 1);  // all on the last rank
    mxn_part_input_t qi = input_of(q, h.dim);
    if (q.ids.empty()) {
      std::memset(&qi, 0, sizeof qi);
    }
    std::vector<int> qp(std::max<size_t>(q.ids.size(), 1));
    for (mxn_part_method m : kAllMethods) {
      int rc = mxn_partition(MPI_COMM_WORLD, m, &qi, 4, nullptr, qp.data(), &err);
      EXPECT_EQ(rc, MXN_OK) << mxn_part_method_name(m) << ": " << err.msg;
    }
  }
  // Weights on some ranks with elements but not on others: refused by all.
  if (nprocs > 1) {
    std::vector<double> w1(p.ids.size(), 1.0);
    in.weights = rank == 0 ? w1.data() : nullptr;
    int rc = mxn_partition(MPI_COMM_WORLD, MXN_PART_RCB, &in, 3, nullptr, part.data(), &err);
    EXPECT_EQ(rc, MXN_ERR_ARG) << err.msg;
    in.weights = nullptr;
  }
  // Ranks asking for different part counts are told so, not left hanging.
  in.weights = nullptr;
  int rc = mxn_partition(MPI_COMM_WORLD, MXN_PART_SFC, &in, 3 + (nprocs > 1 ? rank : 0),
                         nullptr, part.data(), &err);
  EXPECT_EQ(rc, nprocs > 1 ? MXN_ERR_ARG : MXN_OK) << err.msg;
}
