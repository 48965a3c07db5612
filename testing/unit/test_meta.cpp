// What an Exodus file holds besides the mesh and its fields, as the
// structure gives it (mxn/dataset.h): member 0's QA and information
// records and its assemblies (Exodus 8), read once and the same on every
// rank of a collective open; element, edge and face block attribute names
// and their values by element id in a load's pieces; and a load's share of
// edge and face blocks and of edge, face and element sets. Run serially and
// on 3 ranks. References are independent of the core: the Exodus API
// (ex_get_qa, ex_get_info, ex_get_attr_names, ex_get_attr), netCDF reads of
// the assemblies, and the serial whole read for the pieces.
#include <exodusII.h>
#include <netcdf.h>

#include <array>
#include <map>

#include "mpi_helpers.h"
#include "test_mpi.h"
#include "test_support.h"

using namespace mxntest;

namespace {

typedef std::array<std::string, 4> QaRow;

// Exodus's own reads of a file's QA and information records.
void exodus_records(const std::string &path, std::vector<QaRow> *qa, std::vector<std::string> *info) {
  int cpu = 8, io = 0;
  float version;
  int ex = ex_open(path.c_str(), EX_READ, &cpu, &io, &version);
  ASSERT_GE(ex, 0) << path;
  int nqa = (int)ex_inquire_int(ex, EX_INQ_QA), ninfo = (int)ex_inquire_int(ex, EX_INQ_INFO);
  std::vector<std::array<std::vector<char>, 4>> buf(nqa);
  std::vector<char *[4]> rows(nqa);
  for (int q = 0; q < nqa; q++)
    for (int k = 0; k < 4; k++) {
      buf[q][k].assign(MAX_STR_LENGTH + 1, '\0');
      rows[q][k] = buf[q][k].data();
    }
  if (nqa > 0) EXPECT_GE(ex_get_qa(ex, rows.data()), 0) << path;
  qa->clear();
  for (int q = 0; q < nqa; q++) qa->push_back({rows[q][0], rows[q][1], rows[q][2], rows[q][3]});
  std::vector<std::vector<char>> lines(ninfo, std::vector<char>(MAX_LINE_LENGTH + 1, '\0'));
  std::vector<char *> lp(ninfo);
  for (int i = 0; i < ninfo; i++) lp[i] = lines[i].data();
  if (ninfo > 0) EXPECT_GE(ex_get_info(ex, lp.data()), 0) << path;
  info->clear();
  for (int i = 0; i < ninfo; i++) info->push_back(lp[i]);
  ex_close(ex);
}

void expect_records(const mxn_structure_t *s, const std::vector<QaRow> &qa,
                    const std::vector<std::string> &info, const std::string &what) {
  ASSERT_EQ((int)qa.size(), s->num_qa) << what;
  ASSERT_EQ((int)info.size(), s->num_info) << what;
  for (int q = 0; q < s->num_qa; q++)
    for (int k = 0; k < 4; k++)
      EXPECT_EQ(qa[q][k], s->qa_records[q][k]) << what << ": QA record " << q << " string " << k;
  for (int i = 0; i < s->num_info; i++) EXPECT_EQ(info[i], s->info_records[i]) << what << ": info line " << i;
  if (s->num_qa == 0) EXPECT_EQ(nullptr, s->qa_records);
  if (s->num_info == 0) EXPECT_EQ(nullptr, s->info_records);
}

// The structure of `path` opened collectively over every rank; *ds the
// dataset (destroy it), the open's status asserted agreed and OK.
void open_all(const std::string &path, mxn_dataset_t **ds) {
  ASSERT_EQ(MXN_OK, mxn_dataset_create(ds));
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_dataset_open_collective(MPI_COMM_WORLD, *ds, path.c_str(), &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
}

// Rank 0's text records, and whether every rank has the same.
bool same_on_every_rank(const mxn_structure_t *s) {
  std::string mine;
  for (int q = 0; q < s->num_qa; q++)
    for (int k = 0; k < 4; k++) mine += std::string(s->qa_records[q][k]) + '\n';
  for (int i = 0; i < s->num_info; i++) mine += std::string(s->info_records[i]) + '\n';
  for (int a = 0; a < s->num_assemblies; a++) {
    const mxn_assembly_info_t &as = s->assemblies[a];
    mine += std::to_string(as.id) + " " + as.name + " " + std::to_string(as.type);
    for (int64_t m = 0; m < as.num_members; m++) mine += " " + std::to_string(as.members[m]);
    mine += '\n';
  }
  int len = (int)mine.size();
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string r0(len, '\0');
  if (mpi_rank() == 0) r0 = mine;
  MPI_Bcast(&r0[0], len, MPI_CHAR, 0, MPI_COMM_WORLD);
  return all_ok(r0 == mine);
}

// A mesh mxn_gen makes from `args` in `fmt` (nc3, nc4), split by RCB into
// M members of the same format by rank 0: the set's base name on every
// rank ("" where it could not be made), *mesh the mesh. Collective.
std::string format_set(const std::string &dir_name, const std::string &args, const std::string &fmt,
                       int M, std::string *mesh) {
  std::string dir = world_tmpdir(dir_name), base = dir + "/set.e";
  *mesh = dir + "/mesh.e";
  int ok = 1;
  if (mpi_rank() == 0) {
    generate(dir, "mesh.e", args + " --format " + fmt);
    mxn_form_opts_t fo{};
    fo.gap = -1;
    fo.file.format = fmt == "nc4" ? MXN_FORMAT_NC4 : MXN_FORMAT_NC3;
    mxn_error_t err;
    mxn_error_clear(&err);
    int st = mxn_split(mesh->c_str(), base.c_str(), M, MXN_PART_RCB, &fo, nullptr, &err);
    EXPECT_EQ(MXN_OK, st) << err.msg;
    ok = st == MXN_OK;
    // The members are of that format (netCDF-4: HDF5's signature).
    char m0[4096];
    mxn_member_name(base.c_str(), M, 0, m0, sizeof m0);
    int nc, form = 0;
    EXPECT_EQ(NC_NOERR, nc_open(m0, NC_NOWRITE, &nc));
    nc_inq_format(nc, &form);
    nc_close(nc);
    EXPECT_EQ(fmt == "nc4", form == NC_FORMAT_NETCDF4 || form == NC_FORMAT_NETCDF4_CLASSIC) << m0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? base : "";
}

// ---------- QA and information records ----------

TEST(Records, SharedMeshesAsExodusReadsThem) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  int with_qa = 0, with_info = 0;
  for (const char *m : {"2block1.g", "8-block.g", "block_crush_1.ex2", "coarseGrid.e", "cube.g",
                        "disk_out_ref.ex2", "edgeFaceElem.exii", "exodus.g", "mug.e",
                        "test-assembly.exo"}) {
    std::string path = shared(std::string("meshes/") + m);
    std::vector<QaRow> qa;
    std::vector<std::string> info;
    ASSERT_NO_FATAL_FAILURE(exodus_records(path, &qa, &info));
    WholeMesh w(path);
    ASSERT_TRUE(w.ok());
    expect_records(w.s(), qa, info, m);
    with_qa += !qa.empty();
    with_info += !info.empty();
  }
  EXPECT_GE(with_qa, 6);
  EXPECT_GE(with_info, 8);
  // Known content: disk_out_ref.ex2's first QA record, and cube.g's first
  // line, 80 characters as stored (Exodus's line length).
  WholeMesh d(shared("meshes/disk_out_ref.ex2"));
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(3, d.s()->num_qa);
  EXPECT_STREQ("CUBIT", d.s()->qa_records[0][0]);
  EXPECT_STREQ("1.11.2-25", d.s()->qa_records[0][1]);
  EXPECT_STREQ("02/06/96", d.s()->qa_records[0][2]);
  EXPECT_STREQ("14:45:48", d.s()->qa_records[0][3]);
  WholeMesh c(shared("meshes/cube.g"));
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(2, c.s()->num_info);
  EXPECT_EQ(80u, strlen(c.s()->info_records[0]));
  EXPECT_STREQ("2016/05/25", c.s()->info_records[1]);
}

// Records written with the Exodus API (trailing blanks, a string of the
// full 32 characters, a line of 80), into `path`.
void put_records(const std::string &path, const std::vector<QaRow> &qa,
                 const std::vector<std::string> &info) {
  int cpu = 8, io = 0;
  float version;
  int ex = ex_open(path.c_str(), EX_WRITE, &cpu, &io, &version);
  ASSERT_GE(ex, 0) << path;
  // Exodus 6.02 writes the whole row from each string: buffers padded with NULs.
  std::vector<std::array<std::vector<char>, 4>> qb(qa.size());
  std::vector<char *[4]> rows(qa.size());
  for (size_t q = 0; q < qa.size(); q++)
    for (int k = 0; k < 4; k++) {
      qb[q][k].assign(MAX_STR_LENGTH + 1, '\0');
      memcpy(qb[q][k].data(), qa[q][k].c_str(), std::min(qa[q][k].size(), (size_t)MAX_STR_LENGTH));
      rows[q][k] = qb[q][k].data();
    }
  if (!qa.empty()) ASSERT_GE(ex_put_qa(ex, (int)qa.size(), rows.data()), 0) << path;
  std::vector<std::vector<char>> ib(info.size(), std::vector<char>(MAX_LINE_LENGTH + 1, '\0'));
  std::vector<char *> lp;
  for (size_t i = 0; i < info.size(); i++) {
    memcpy(ib[i].data(), info[i].c_str(), std::min(info[i].size(), (size_t)MAX_LINE_LENGTH));
    lp.push_back(ib[i].data());
  }
  if (!info.empty()) ASSERT_GE(ex_put_info(ex, (int)info.size(), lp.data()), 0) << path;
  ASSERT_GE(ex_close(ex), 0);
  // Exodus 6.02 writes a string's characters without its NUL into a file
  // it does not fill: the rows written again whole, padded with NULs, as
  // Exodus 8 leaves them.
  int nc, v;
  ASSERT_EQ(NC_NOERR, nc_open(path.c_str(), NC_WRITE, &nc));
  if (!qa.empty()) {
    ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, "qa_records", &v));
    for (size_t q = 0; q < qa.size(); q++)
      for (size_t k = 0; k < 4; k++) {
        size_t start[3] = {q, k, 0}, count[3] = {1, 1, MAX_STR_LENGTH + 1};
        ASSERT_EQ(NC_NOERR, nc_put_vara_text(nc, v, start, count, qb[q][k].data()));
      }
  }
  if (!info.empty()) {
    ASSERT_EQ(NC_NOERR, nc_inq_varid(nc, "info_records", &v));
    for (size_t i = 0; i < info.size(); i++) {
      size_t start[2] = {i, 0}, count[2] = {1, MAX_LINE_LENGTH + 1};
      ASSERT_EQ(NC_NOERR, nc_put_vara_text(nc, v, start, count, ib[i].data()));
    }
  }
  ASSERT_EQ(NC_NOERR, nc_close(nc));
}

std::string trimmed(std::string s) {
  while (!s.empty() && isspace((unsigned char)s.back())) s.pop_back();
  return s;
}

const std::vector<QaRow> written_qa = {
    {"mxn_test  ", "1.0", "2024/01/02", "03:04:05"},
    {"abcdefghijklmnopqrstuvwxyz012345", "v 2 ", "", "23:59:59"}};
const std::vector<std::string> written_info = {
    "first line   ", std::string(80, 'x'), "", "   indented"};

// A generated set of 3 members with records in member 0 (and others in
// member 1, which must not be taken), on every rank: netCDF-3 and -4.
class RecordsWritten : public ::testing::TestWithParam<const char *> {};

TEST_P(RecordsWritten, Member0sOnEveryRank) {
  const std::string fmt = GetParam();
  std::string mesh;
  std::string base = format_set("records_" + fmt, "--type hex --dims 4 3 3 --steps 1", fmt, 3, &mesh);
  ASSERT_TRUE(all_ok(!base.empty()));
  char m0[4096], m1[4096];
  mxn_member_name(base.c_str(), 3, 0, m0, sizeof m0);
  mxn_member_name(base.c_str(), 3, 1, m1, sizeof m1);
  int ok = 1;
  if (mpi_rank() == 0) {
    put_records(m0, written_qa, written_info);
    put_records(m1, {{"other", "member", "x", "y"}}, {"not member 0's"});
    ok = !::testing::Test::HasFatalFailure();
  }
  ASSERT_TRUE(all_ok(ok));
  std::vector<QaRow> qa;
  std::vector<std::string> info;
  for (const QaRow &r : written_qa) qa.push_back({trimmed(r[0]), trimmed(r[1]), trimmed(r[2]), trimmed(r[3])});
  for (const std::string &l : written_info) info.push_back(trimmed(l));
  // Exodus reads them so too.
  std::vector<QaRow> eqa;
  std::vector<std::string> einfo;
  ASSERT_NO_FATAL_FAILURE(exodus_records(m0, &eqa, &einfo));
  EXPECT_EQ(qa, eqa);
  EXPECT_EQ(info, einfo);

  mxn_dataset_t *ds = nullptr;
  ASSERT_NO_FATAL_FAILURE(open_all(base, &ds));
  const mxn_structure_t *s = mxn_dataset_structure(ds);
  expect_records(s, qa, info, "collective open of " + base);
  EXPECT_TRUE(same_on_every_rank(s));
  // A record of member 0 rebuilt on a rank that did not summarise it (a
  // file domain) leaves them as they were.
  const mxn_file_domain_t *dom = nullptr;
  EXPECT_EQ(MXN_OK, mxn_dataset_file_domain(ds, 0, &dom)) << mxn_dataset_errmsg(ds);
  expect_records(s, qa, info, "after member 0's record is rebuilt");
  mxn_dataset_destroy(&ds);

  // The load's structure has them as well.
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  mxn_load_t *ld = nullptr;
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_load_open(MPI_COMM_WORLD, base.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  expect_records(mxn_load_structure(ld), qa, info, "load of " + base);
  mxn_load_close(&ld);

  // The generated mesh's own information records (mxn_gen writes four).
  ASSERT_NO_FATAL_FAILURE(exodus_records(mesh, &eqa, &einfo));
  ASSERT_EQ(4u, einfo.size());
  WholeMesh w(mesh);
  ASSERT_TRUE(w.ok());
  expect_records(w.s(), eqa, einfo, mesh);
  EXPECT_EQ(0, w.s()->num_assemblies) << "a file without assemblies has none";
}

INSTANTIATE_TEST_SUITE_P(Formats, RecordsWritten, ::testing::Values("nc3", "nc4"));

// ---------- assemblies ----------

struct Asm {
  int64_t id;
  std::string name;
  int type;
  std::vector<int64_t> members;
  bool operator==(const Asm &o) const {
    return id == o.id && name == o.name && type == o.type && members == o.members;
  }
};

std::ostream &operator<<(std::ostream &os, const Asm &a) {
  os << "{" << a.id << " '" << a.name << "' type " << a.type << ":";
  for (int64_t m : a.members) os << " " << m;
  return os << "}";
}

std::vector<Asm> assemblies_of(const mxn_structure_t *s) {
  std::vector<Asm> v;
  for (int a = 0; a < s->num_assemblies; a++) {
    const mxn_assembly_info_t &x = s->assemblies[a];
    v.push_back({x.id, x.name, x.type, std::vector<int64_t>(x.members, x.members + x.num_members)});
  }
  if (s->num_assemblies == 0) EXPECT_EQ(nullptr, s->assemblies);
  return v;
}

// The assemblies of a file read with netCDF alone, as Exodus 8 stores them
// (variable assembly_entity<id>, attributes _id, _type, _name), by id.
std::vector<Asm> netcdf_assemblies(const std::string &path) {
  std::vector<Asm> v;
  int nc, nvars;
  EXPECT_EQ(NC_NOERR, nc_open(path.c_str(), NC_NOWRITE, &nc)) << path;
  EXPECT_EQ(NC_NOERR, nc_inq_nvars(nc, &nvars));
  for (int var = 0; var < nvars; var++) {
    char name[NC_MAX_NAME + 1];
    EXPECT_EQ(NC_NOERR, nc_inq_varname(nc, var, name));
    if (strncmp(name, "assembly_entity", 15) != 0) continue;
    Asm a;
    long long id = 0;
    int type = 0, dim;
    size_t len = 0, n = 0;
    EXPECT_EQ(NC_NOERR, nc_get_att_longlong(nc, var, "_id", &id));
    EXPECT_EQ(NC_NOERR, nc_get_att_int(nc, var, "_type", &type));
    if (nc_inq_attlen(nc, var, "_name", &len) == NC_NOERR) {
      std::vector<char> t(len + 1, '\0');
      EXPECT_EQ(NC_NOERR, nc_get_att_text(nc, var, "_name", t.data()));
      a.name = t.data();
    }
    EXPECT_EQ(NC_NOERR, nc_inq_vardimid(nc, var, &dim));
    EXPECT_EQ(NC_NOERR, nc_inq_dimlen(nc, dim, &n));
    std::vector<long long> m(n);
    if (n) EXPECT_EQ(NC_NOERR, nc_get_var_longlong(nc, var, m.data()));
    a.id = id;
    a.type = type;
    a.members.assign(m.begin(), m.end());
    v.push_back(a);
  }
  nc_close(nc);
  std::sort(v.begin(), v.end(), [](const Asm &x, const Asm &y) { return x.id < y.id; });
  return v;
}

TEST(Assemblies, TestAssemblyExo) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  std::string path = shared("meshes/test-assembly.exo");
  std::vector<Asm> ref = netcdf_assemblies(path);
  ASSERT_EQ(6u, ref.size());
  // What the file holds (ncdump), beside the netCDF reference.
  const std::vector<Asm> known = {{100, "Root", 16, {200, 300, 400}},
                                  {200, "Child2", 1, {10, 11, 12, 13}},
                                  {222, "NewAssembly", 16, {100, 200, 300, 400}},
                                  {300, "Child3", 1, {14, 15, 16}},
                                  {333, "FromPython", 16, {100, 222}},
                                  {400, "Child4", 1, {10, 16}}};
  EXPECT_EQ(known, ref);
  WholeMesh w(path);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(ref, assemblies_of(w.s()));
  mxn_dataset_t *ds = nullptr;
  ASSERT_NO_FATAL_FAILURE(open_all(path, &ds));
  EXPECT_EQ(ref, assemblies_of(mxn_dataset_structure(ds)));
  EXPECT_TRUE(same_on_every_rank(mxn_dataset_structure(ds)));
  mxn_dataset_destroy(&ds);
  EXPECT_STREQ("element block", mxn_entity_type_name(MXN_ENTITY_ELEM_BLOCK));
  EXPECT_STREQ("assembly", mxn_entity_type_name(MXN_ENTITY_ASSEMBLY));
  EXPECT_STREQ("unknown", mxn_entity_type_name(0));
}

// Assemblies written into `path` as Exodus 8's ex_put_assembly does (the
// system's Exodus 6.02 has no such call): per assembly a dimension
// num_entity_assembly<id>, a variable assembly_entity<id> of the ids
// (64-bit where the file stores 64-bit ids) with attributes _id, _type,
// _name and _typename.
void put_assemblies(const std::string &path, const std::vector<Asm> &as) {
  int nc, i64 = 0;
  ASSERT_EQ(NC_NOERR, nc_open(path.c_str(), NC_WRITE, &nc)) << path;
  nc_get_att_int(nc, NC_GLOBAL, "int64_status", &i64);
  ASSERT_EQ(NC_NOERR, nc_redef(nc));
  std::vector<int> vars;
  for (const Asm &a : as) {
    int dim, var;
    std::string sid = std::to_string(a.id);
    ASSERT_EQ(NC_NOERR, nc_def_dim(nc, ("num_entity_assembly" + sid).c_str(), a.members.size(), &dim));
    ASSERT_EQ(NC_NOERR, nc_def_var(nc, ("assembly_entity" + sid).c_str(),
                                   (i64 & EX_IDS_INT64_DB) ? NC_INT64 : NC_INT, 1, &dim, &var));
    long long id = a.id;
    ASSERT_EQ(NC_NOERR, nc_put_att_longlong(nc, var, "_id", (i64 & EX_IDS_INT64_DB) ? NC_INT64 : NC_INT, 1, &id));
    ASSERT_EQ(NC_NOERR, nc_put_att_int(nc, var, "_type", NC_INT, 1, &a.type));
    if (!a.name.empty())
      ASSERT_EQ(NC_NOERR, nc_put_att_text(nc, var, "_name", a.name.size() + 1, a.name.c_str()));
    std::string tn = mxn_entity_type_name(a.type);
    ASSERT_EQ(NC_NOERR, nc_put_att_text(nc, var, "_typename", tn.size() + 1, tn.c_str()));
    vars.push_back(var);
  }
  ASSERT_EQ(NC_NOERR, nc_enddef(nc));
  for (size_t k = 0; k < as.size(); k++) {
    std::vector<long long> m(as[k].members.begin(), as[k].members.end());
    ASSERT_EQ(NC_NOERR, nc_put_var_longlong(nc, vars[k], m.data()));
  }
  ASSERT_EQ(NC_NOERR, nc_close(nc));
}

class AssembliesWritten : public ::testing::TestWithParam<const char *> {};

TEST_P(AssembliesWritten, OnOneFileAndOnMember0OfASet) {
  const std::string fmt = GetParam();
  std::string mesh;
  // Blocks 10, 20, 30 (as mxn_gen numbers them), node and side sets.
  std::string base = format_set("assemblies_" + fmt, "--type hex --dims 4 3 3 --blocks 3 --steps 1", fmt, 3,
                                &mesh);
  ASSERT_TRUE(all_ok(!base.empty()));
  // Defined out of id order, one unnamed, a name longer than 32
  // characters (cut as Exodus reads names), an assembly of assemblies.
  const std::vector<Asm> written = {{30, "solids", MXN_ENTITY_ELEM_BLOCK, {10, 30}},
                                    {7, "", MXN_ENTITY_NODE_SET, {1}},
                                    {12, std::string(40, 'n'), MXN_ENTITY_SIDE_SET, {1}},
                                    {5, "top", MXN_ENTITY_ASSEMBLY, {30, 7, 12}}};
  char m0[4096], m2[4096];
  mxn_member_name(base.c_str(), 3, 0, m0, sizeof m0);
  mxn_member_name(base.c_str(), 3, 2, m2, sizeof m2);
  int ok = 1;
  if (mpi_rank() == 0) {
    put_assemblies(mesh, written);
    put_assemblies(m0, written);
    put_assemblies(m2, {{99, "elsewhere", MXN_ENTITY_ELEM_BLOCK, {20}}});
    ok = !::testing::Test::HasFatalFailure();
  }
  ASSERT_TRUE(all_ok(ok));
  std::vector<Asm> want = written;
  want[2].name.resize(32);
  std::sort(want.begin(), want.end(), [](const Asm &x, const Asm &y) { return x.id < y.id; });
  // The netCDF reference reads them back as written (full names).
  std::vector<Asm> nref = netcdf_assemblies(mesh);
  ASSERT_EQ(want.size(), nref.size());
  nref[2].name.resize(32);  // id 12 sorts third
  EXPECT_EQ(want, nref);

  WholeMesh w(mesh);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(want, assemblies_of(w.s()));
  mxn_dataset_t *ds = nullptr;
  ASSERT_NO_FATAL_FAILURE(open_all(base, &ds));
  EXPECT_EQ(want, assemblies_of(mxn_dataset_structure(ds))) << "member 0's, not member 2's";
  EXPECT_TRUE(same_on_every_rank(mxn_dataset_structure(ds)));
  mxn_dataset_destroy(&ds);
}

INSTANTIATE_TEST_SUITE_P(Formats, AssembliesWritten, ::testing::Values("nc3", "nc4"));

// An assembly variable without its type is damaged: the open fails on
// every rank alike, naming the member and the assembly.
TEST(Assemblies, DamagedOneFailsTheOpenEverywhere) {
  std::string base = generated_set("assemblies_bad", "--type hex --dims 3 3 3 --steps 1", 2);
  ASSERT_TRUE(all_ok(!base.empty()));
  char m0[4096];
  mxn_member_name(base.c_str(), 2, 0, m0, sizeof m0);
  int ok = 1;
  if (mpi_rank() == 0) {
    int nc, dim, var;
    ok = nc_open(m0, NC_WRITE, &nc) == NC_NOERR && nc_redef(nc) == NC_NOERR &&
         nc_def_dim(nc, "num_entity_assembly8", 1, &dim) == NC_NOERR &&
         nc_def_var(nc, "assembly_entity8", NC_INT, 1, &dim, &var) == NC_NOERR &&
         nc_enddef(nc) == NC_NOERR && nc_close(nc) == NC_NOERR;
  }
  ASSERT_TRUE(all_ok(ok));
  mxn_dataset_t *ds = nullptr;
  ASSERT_EQ(MXN_OK, mxn_dataset_create(&ds));
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_dataset_open_collective(MPI_COMM_WORLD, ds, base.c_str(), &err);
  expect_agreed(st, err.msg);
  EXPECT_EQ(MXN_ERR_FORMAT, st);
  EXPECT_NE(nullptr, strstr(err.msg, m0)) << err.msg;
  EXPECT_NE(nullptr, strstr(err.msg, "assembly 8")) << err.msg;
  mxn_dataset_destroy(&ds);
}

// ---------- attributes: names in the structure, values by id in a load ----------

// One kind of block as Exodus reads it: per block its id, attribute names
// and, by entry id, the attribute values.
struct ExoBlocks {
  std::vector<int64_t> ids;
  std::vector<std::vector<std::string>> names;
  std::vector<std::map<int64_t, std::vector<double>>> attr;  // [block] id -> values
};

void exodus_blocks(int ex, ex_entity_type bt, ex_entity_type mt, ex_inquiry count, ExoBlocks *out) {
  int nb = (int)ex_inquire_int(ex, count);
  out->ids.assign(nb, 0);
  if (nb > 0) ASSERT_GE(ex_get_ids(ex, bt, out->ids.data()), 0);
  int64_t nent = ex_inquire_int(ex, mt == EX_ELEM_MAP ? EX_INQ_ELEM : mt == EX_EDGE_MAP ? EX_INQ_EDGE : EX_INQ_FACE);
  std::vector<int64_t> idmap(nent > 0 ? nent : 1);
  if (nent > 0) ASSERT_GE(ex_get_id_map(ex, mt, idmap.data()), 0);
  int64_t at = 0;
  for (int b = 0; b < nb; b++) {
    char type[MAX_STR_LENGTH + 1];
    int64_t n = 0, npe = 0, ned = 0, nfa = 0, na = 0;
    ASSERT_GE(ex_get_block(ex, bt, out->ids[b], type, &n, &npe, &ned, &nfa, &na), 0);
    std::vector<std::vector<char>> nb_(na, std::vector<char>(MAX_STR_LENGTH + 1, '\0'));
    std::vector<char *> np(na);
    for (int a = 0; a < na; a++) np[a] = nb_[a].data();
    if (na > 0) ASSERT_GE(ex_get_attr_names(ex, bt, out->ids[b], np.data()), 0);
    out->names.emplace_back(np.begin(), np.end());
    std::vector<double> v(n * na > 0 ? n * na : 1);
    if (n * na > 0) ASSERT_GE(ex_get_attr(ex, bt, out->ids[b], v.data()), 0);
    out->attr.emplace_back();
    for (int64_t k = 0; k < n; k++)
      out->attr.back()[idmap[at + k]] = std::vector<double>(v.begin() + k * na, v.begin() + (k + 1) * na);
    at += n;
  }
}

struct ExoAttrs {
  ExoBlocks elem, edge, face;
};

void exodus_attrs(const std::string &path, ExoAttrs *r) {
  int cpu = 8, io = 0;
  float version;
  int ex = ex_open(path.c_str(), EX_READ, &cpu, &io, &version);
  ASSERT_GE(ex, 0) << path;
  ex_set_int64_status(ex, EX_ALL_INT64_API);
  ASSERT_NO_FATAL_FAILURE(exodus_blocks(ex, EX_ELEM_BLOCK, EX_ELEM_MAP, EX_INQ_ELEM_BLK, &r->elem));
  ASSERT_NO_FATAL_FAILURE(exodus_blocks(ex, EX_EDGE_BLOCK, EX_EDGE_MAP, EX_INQ_EDGE_BLK, &r->edge));
  ASSERT_NO_FATAL_FAILURE(exodus_blocks(ex, EX_FACE_BLOCK, EX_FACE_MAP, EX_INQ_FACE_BLK, &r->face));
  ex_close(ex);
}

// The structure's blocks of one kind against Exodus's: ids, names. Their
// pieces' attribute values by entry id; *seen counts the entries checked.
void check_attr_blocks(const ExoBlocks &ref, int nb, const mxn_block_info_t *bi,
                       const mxn_piece_block_t *pb, const std::string &what, int64_t *seen,
                       std::vector<int64_t> *ids_with_attr) {
  ASSERT_EQ((int)ref.ids.size(), nb) << what;
  for (int b = 0; b < nb; b++) {
    ASSERT_EQ(ref.ids[b], bi[b].id) << what;
    ASSERT_EQ((int)ref.names[b].size(), bi[b].num_attr) << what << " block " << bi[b].id;
    for (int a = 0; a < bi[b].num_attr; a++) {
      ASSERT_NE(nullptr, bi[b].attr_names);
      EXPECT_EQ(ref.names[b][a], bi[b].attr_names[a]) << what << " block " << bi[b].id << " attribute " << a;
    }
    if (bi[b].num_attr == 0) continue;
    ASSERT_TRUE(pb[b].num_elements == 0 || pb[b].attr) << what << " block " << bi[b].id << ": no values";
    for (int64_t k = 0; k < pb[b].num_elements; k++) {
      auto it = ref.attr[b].find(pb[b].elem_ids[k]);
      ASSERT_NE(it, ref.attr[b].end()) << what << " " << pb[b].elem_ids[k] << " is not in block " << bi[b].id;
      for (int a = 0; a < bi[b].num_attr; a++)
        ASSERT_EQ(it->second[a], pb[b].attr[k * bi[b].num_attr + a])
            << what << " " << pb[b].elem_ids[k] << " attribute " << bi[b].attr_names[a];
      ++*seen;
      if (ids_with_attr) ids_with_attr->push_back(pb[b].elem_ids[k]);
    }
  }
}

class Attributes : public ::testing::TestWithParam<const char *> {};

TEST_P(Attributes, NamesAndValuesByIdInTheLoad) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  std::string path = shared(std::string("meshes/") + GetParam());
  ExoAttrs ref;
  ASSERT_NO_FATAL_FAILURE(exodus_attrs(path, &ref));
  int named = 0;
  for (const auto &n : ref.elem.names)
    for (const std::string &x : n) named += !x.empty();
  EXPECT_GT(named, 0) << "a mesh with named element attributes";
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = MXN_PART_RCB;
  mxn_load_t *ld = nullptr;
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  const mxn_structure_t *s = mxn_load_structure(ld);
  const mxn_piece_t *pc = mxn_load_piece(ld);
  int64_t seen = 0;
  std::vector<int64_t> mine;
  check_attr_blocks(ref.elem, s->num_blocks, s->blocks, pc->blocks, "element", &seen, &mine);
  check_attr_blocks(ref.edge, s->num_edge_blocks, s->edge_blocks, pc->edge_blocks, "edge", &seen, nullptr);
  check_attr_blocks(ref.face, s->num_face_blocks, s->face_blocks, pc->face_blocks, "face", &seen, nullptr);
  // Every element with attributes checked once, on the rank owning it.
  std::vector<int64_t> all = gather_on_root(mine);
  if (mpi_rank() == 0) {
    std::vector<int64_t> want;
    for (size_t b = 0; b < ref.elem.ids.size(); b++)
      if (!ref.elem.names[b].empty())
        for (const auto &kv : ref.elem.attr[b]) want.push_back(kv.first);
    std::sort(want.begin(), want.end());
    std::sort(all.begin(), all.end());
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(want, all);
  }
  mxn_load_close(&ld);
}

// Meshes with element attributes: shells' thickness (exodus.g: 3 blocks;
// 2block1.g), and edgeFaceElem.exii's attributes on element, edge and face
// blocks.
INSTANTIATE_TEST_SUITE_P(Shared, Attributes,
                         ::testing::Values("exodus.g", "2block1.g", "2block-gold.g", "edgeFaceElem.exii"),
                         [](const auto &i) { return test_name(i.param); });

// ---------- a load's edge and face blocks, edge, face and element sets ----------

// Global ids of a piece's entries over concatenated blocks.
std::vector<int64_t> concat_ids(int nb, const mxn_piece_block_t *pb) {
  std::vector<int64_t> v;
  for (int b = 0; b < nb; b++) v.insert(v.end(), pb[b].elem_ids, pb[b].elem_ids + pb[b].num_elements);
  return v;
}

// Entry id -> (block, index) of a piece's blocks of one kind.
std::map<int64_t, std::pair<int, int64_t>> index_of(int nb, const mxn_piece_block_t *pb) {
  std::map<int64_t, std::pair<int, int64_t>> m;
  for (int b = 0; b < nb; b++)
    for (int64_t k = 0; k < pb[b].num_elements; k++) m[pb[b].elem_ids[k]] = {b, k};
  return m;
}

// A set's entries as (entry id, orientation, df, variables), sorted.
typedef std::tuple<int64_t, int, std::vector<double>, std::vector<double>> SetRow;
std::vector<SetRow> rows_of(const mxn_piece_set_t &ps, const std::vector<int64_t> &gid) {
  std::vector<SetRow> v;
  for (int64_t k = 0; k < ps.n; k++) {
    std::vector<double> df, vars;
    if (ps.df) df.push_back(ps.df[k]);
    for (int q = 0; q < ps.num_vars; q++)
      if (ps.vars && ps.vars[q]) vars.push_back(ps.vars[q][k]);
    v.emplace_back(gid[ps.entries[k]], ps.orient ? ps.orient[k] : 0, df, vars);
  }
  std::sort(v.begin(), v.end());
  return v;
}

// Edge (face) blocks of the piece against the serial read, by id: the
// block, the nodes (by global id), attributes and variables at the step.
void check_sub_blocks(const mxn_piece_t *pc, const mxn_piece_t *all, int nb, const mxn_block_info_t *bi,
                      const mxn_piece_block_t *pb, const mxn_piece_block_t *rb, int nvars,
                      const std::string &what) {
  auto ref = index_of(nb, rb);
  for (int b = 0; b < nb; b++) {
    int npe = bi[b].nodes_per_elem, na = bi[b].num_attr;
    for (int64_t k = 0; k < pb[b].num_elements; k++) {
      int64_t id = pb[b].elem_ids[k];
      auto it = ref.find(id);
      ASSERT_NE(it, ref.end()) << what << " " << id << " is not in the dataset";
      ASSERT_EQ(b, it->second.first) << what << " " << id;
      int64_t rk = it->second.second;
      for (int c = 0; c < npe; c++) {
        int64_t li = pb[b].conn[k * npe + c];
        ASSERT_TRUE(li >= 0 && li < pc->num_nodes) << what << " " << id;
        ASSERT_EQ(all->node_ids[rb[b].conn[rk * npe + c]], pc->node_ids[li]) << what << " " << id << " node " << c;
      }
      for (int a = 0; a < na; a++) ASSERT_EQ(rb[b].attr[rk * na + a], pb[b].attr[k * na + a]) << what << " " << id;
      for (int v = 0; v < nvars; v++) {
        const double *r = rb[b].elem_vars ? rb[b].elem_vars[v] : nullptr;
        const double *p = pb[b].elem_vars ? pb[b].elem_vars[v] : nullptr;
        ASSERT_EQ(r == nullptr, p == nullptr) << what << " variable " << v << " on block " << bi[b].id;
        if (p) ASSERT_EQ(r[rk], p[k]) << what << " " << id << " variable " << v;
      }
    }
  }
}

class EdgeFace : public ::testing::TestWithParam<int> {};

TEST_P(EdgeFace, PieceHoldsItsShareOfBlocksAndSets) {
  if (!have_shared()) GTEST_SKIP() << "shared data absent";
  std::string path = shared("meshes/edgeFaceElem.exii");
  WholeMesh w(path);
  ASSERT_TRUE(all_ok(w.ok()));
  const mxn_piece_t *all = w.pc;
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  o.method = MXN_PART_RCB;
  o.ghost_levels = GetParam();
  mxn_load_t *ld = nullptr;
  mxn_error_t err;
  mxn_error_clear(&err);
  int st = mxn_load_open(MPI_COMM_WORLD, path.c_str(), &o, &ld, &err);
  expect_agreed(st, err.msg);
  ASSERT_EQ(MXN_OK, st) << err.msg;
  const mxn_structure_t *s = mxn_load_structure(ld);
  const mxn_piece_t *pc = mxn_load_piece(ld);
  const mxn_load_halo_t *halo = mxn_load_halo(ld);
  ASSERT_EQ(1, s->num_edge_blocks);
  ASSERT_EQ(3, s->num_face_blocks);
  ASSERT_EQ(2, s->num_elem_sets);
  ASSERT_EQ(s->num_edge_blocks, pc->num_edge_blocks);
  ASSERT_EQ(s->num_face_blocks, pc->num_face_blocks);
  ASSERT_EQ(s->num_elem_sets, pc->num_elem_sets);
  ASSERT_EQ(s->num_edge_sets, pc->num_edge_sets);
  ASSERT_EQ(s->num_face_sets, pc->num_face_sets);
  std::vector<int64_t> pe = concat_ids(pc->num_blocks, pc->blocks), re = concat_ids(all->num_blocks, all->blocks);
  std::vector<int64_t> ped = concat_ids(pc->num_edge_blocks, pc->edge_blocks),
                       red = concat_ids(all->num_edge_blocks, all->edge_blocks);
  std::vector<int64_t> pfa = concat_ids(pc->num_face_blocks, pc->face_blocks),
                       rfa = concat_ids(all->num_face_blocks, all->face_blocks);
  // The rank's edges and faces are exactly those its elements (owned and
  // ghosts) refer to, each element referring to the same ones by id.
  std::set<int64_t> used_ed, used_fa;
  auto rel = index_of(all->num_blocks, all->blocks);
  int64_t at = 0;
  for (int b = 0; b < pc->num_blocks; b++) {
    const mxn_block_info_t &bi = s->blocks[b];
    for (int64_t k = 0; k < pc->blocks[b].num_elements; k++, at++) {
      auto [rb, rk] = rel.at(pc->blocks[b].elem_ids[k]);
      for (int c = 0; c < bi.edges_per_elem; c++) {
        int64_t id = ped[pc->blocks[b].edge_conn[k * bi.edges_per_elem + c]];
        EXPECT_EQ(red[all->blocks[rb].edge_conn[rk * bi.edges_per_elem + c]], id);
        used_ed.insert(id);
      }
      for (int c = 0; c < bi.faces_per_elem; c++) {
        int64_t id = pfa[pc->blocks[b].face_conn[k * bi.faces_per_elem + c]];
        EXPECT_EQ(rfa[all->blocks[rb].face_conn[rk * bi.faces_per_elem + c]], id);
        used_fa.insert(id);
      }
    }
  }
  EXPECT_EQ(used_ed, std::set<int64_t>(ped.begin(), ped.end())) << "edges the rank's elements refer to";
  EXPECT_EQ(used_fa, std::set<int64_t>(pfa.begin(), pfa.end())) << "faces the rank's elements refer to";
  // Over the ranks every edge and face is somewhere.
  std::vector<int64_t> ged = gather_on_root(ped), gfa = gather_on_root(pfa);
  if (mpi_rank() == 0) {
    std::set<int64_t> a(ged.begin(), ged.end()), b(gfa.begin(), gfa.end());
    EXPECT_EQ(std::set<int64_t>(red.begin(), red.end()), a);
    EXPECT_EQ(std::set<int64_t>(rfa.begin(), rfa.end()), b);
  }
  // Owned elements of the piece (the halo's depth 0).
  std::vector<char> owned(pe.size(), 1);
  at = 0;
  for (int b = 0; b < pc->num_blocks; b++)
    for (int64_t k = 0; k < pc->blocks[b].num_elements; k++, at++)
      owned[at] = halo && halo->elem_depth && halo->elem_depth[b] ? halo->elem_depth[b][k] == 0 : 1;
  for (int t = 0; t < s->num_times; t++) {
    st = mxn_load_read_step(ld, t, &err);
    expect_agreed(st, err.msg);
    ASSERT_EQ(MXN_OK, st) << err.msg;
    ASSERT_EQ(MXN_OK, mxn_piece_read_step(w.ds, w.pc, t)) << mxn_dataset_errmsg(w.ds);
    check_sub_blocks(pc, all, s->num_edge_blocks, s->edge_blocks, pc->edge_blocks, all->edge_blocks,
                     pc->plan_num_edge_vars, "edge");
    check_sub_blocks(pc, all, s->num_face_blocks, s->face_blocks, pc->face_blocks, all->face_blocks,
                     pc->plan_num_face_vars, "face");
    // Edge and face sets: the dataset's entries whose edge (face) the
    // piece holds, with orientation, factors and variables.
    for (int kind = 0; kind < 2; kind++) {
      int n = kind ? pc->num_face_sets : pc->num_edge_sets;
      const mxn_piece_set_t *ps = kind ? pc->face_sets : pc->edge_sets, *rs = kind ? all->face_sets : all->edge_sets;
      const std::vector<int64_t> &pid = kind ? pfa : ped, &rid = kind ? rfa : red;
      std::set<int64_t> have(pid.begin(), pid.end());
      for (int q = 0; q < n; q++) {
        std::vector<SetRow> want, got = rows_of(ps[q], pid);
        for (const SetRow &r : rows_of(rs[q], rid))
          if (have.count(std::get<0>(r))) want.push_back(r);
        EXPECT_EQ(want, got) << (kind ? "face" : "edge") << " set " << q << " step " << t;
      }
    }
    // Element sets: the entries of the rank's owned elements, each owned
    // once over the ranks; their values.
    for (int q = 0; q < pc->num_elem_sets; q++) {
      std::vector<int64_t> mine;
      std::vector<SetRow> got;
      for (const SetRow &r : rows_of(pc->elem_sets[q], pe)) {
        int64_t id = std::get<0>(r);
        size_t i = std::find(pe.begin(), pe.end(), id) - pe.begin();
        if (owned[i]) mine.push_back(id), got.push_back(r);
      }
      std::vector<int64_t> every = gather_on_root(mine);
      std::vector<SetRow> want = rows_of(all->elem_sets[q], re);
      if (mpi_rank() == 0) {
        std::sort(every.begin(), every.end());
        std::vector<int64_t> wid;
        for (const SetRow &r : want) wid.push_back(std::get<0>(r));
        EXPECT_EQ(wid, every) << "element set " << s->elem_sets[q].id << ": each entry owned once";
      }
      for (const SetRow &r : got) EXPECT_TRUE(std::binary_search(want.begin(), want.end(), r));
    }
  }
  mxn_load_close(&ld);
}

INSTANTIATE_TEST_SUITE_P(Ghosts, EdgeFace, ::testing::Values(0, 1));

}  // namespace
