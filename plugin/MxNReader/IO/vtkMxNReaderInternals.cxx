// What vtkMxNReader keeps between requests, and the calls into the core
// that open, re-balance and read its load (see vtkMxNReaderInternals.h).
#include "vtkMxNReaderInternals.h"

#include "vtkMxNReader.h"
#include "vtkDataArraySelection.h"
#include "vtkMPI.h"
#include "vtkMPICommunicator.h"
#include "vtkMPIController.h"
#include "vtkMultiProcessController.h"
#include "vtkPartitionedDataSetCollection.h"

#include <exodusII.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unordered_map>

#include <dirent.h>
#include <sys/stat.h>

namespace
{
/** Owns a core dataset handle for the duration of one call. */
struct DatasetHandle
{
  mxn_dataset_t* ds = nullptr;
  DatasetHandle() = default;
  DatasetHandle(const DatasetHandle&) = delete;
  DatasetHandle& operator=(const DatasetHandle&) = delete;
  ~DatasetHandle() { mxn_dataset_destroy(&this->ds); }
};

/**
 * MPI initialized by this plugin (see EnsureMPI()) is finalized here at
 * process exit, after every reader is gone. Only if we initialized it: a
 * process that did so itself (pvbatch, pvserver) finalizes it itself.
 */
bool PluginInitializedMPI = false;
struct MPIFinalizer
{
  ~MPIFinalizer()
  {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (PluginInitializedMPI && initialized && !finalized)
    {
      MPI_Finalize();
    }
  }
} TheMPIFinalizer;

/** The MPI job's communicator when ParaView runs on MPI (pvserver,
 *  pvbatch), with its number of processes in *size; else MPI_COMM_NULL and
 *  1. */
MPI_Comm WorldComm(int* size)
{
  auto* ctrl = vtkMPIController::SafeDownCast(vtkMultiProcessController::GetGlobalController());
  auto* mpiComm = ctrl ? vtkMPICommunicator::SafeDownCast(ctrl->GetCommunicator()) : nullptr;
  if (mpiComm && mpiComm->GetMPIComm() && mpiComm->GetMPIComm()->GetHandle())
  {
    *size = ctrl->GetNumberOfProcesses();
    return *mpiComm->GetMPIComm()->GetHandle();
  }
  *size = 1;
  return MPI_COMM_NULL;
}

/** The measured cost per owned element (mxn_rebalance_opts_t::cost, piece
 *  order: owned elements of block 0, then of block 1, ...): `seconds`
 *  spread over this rank's owned elements. Without a weight field evenly;
 *  with one, the core multiplies the cost by the field's |values| at the
 *  new step, so the cost is seconds / (sum of |values| the piece holds
 *  now, the step that was measured): the rank's weights add up to about
 *  its seconds either way. */
std::vector<double> MeasuredCost(const mxn_load_t* ld, const std::string& field, double seconds)
{
  const mxn_structure_t* s = mxn_load_structure(ld);
  const mxn_piece_t* p = mxn_load_piece(ld);
  const mxn_load_halo_t* h = mxn_load_halo(ld);
  int var = -1;
  for (int v = 0; v < s->num_elem_vars && !field.empty(); ++v)
  {
    if (field == s->elem_var_names[v])
    {
      var = v;
    }
  }
  int64_t owned = 0;
  double sum = 0;
  for (int b = 0; b < p->num_blocks; ++b)
  {
    const int64_t n = h ? h->block_off[b][1] : p->blocks[b].num_elements;
    owned += n;
    const double* x = var >= 0 && p->blocks[b].elem_vars ? p->blocks[b].elem_vars[var] : nullptr;
    for (int64_t k = 0; x && k < n; ++k)
    {
      sum += std::isfinite(x[k]) ? std::fabs(x[k]) : 0.0;
    }
  }
  const double per = var >= 0 ? (sum > 0 ? seconds / sum : 0.0)
                              : (owned > 0 ? seconds / static_cast<double>(owned) : 0.0);
  return std::vector<double>(static_cast<size_t>(owned > 0 ? owned : 1), per);
}

/** Whether the file starts as a netCDF file does (classic, 64-bit offset,
 *  CDF-5, or HDF5 for netCDF-4): a cheap refusal of anything else, before
 *  a library is asked. */
bool HasNetCDFMagic(const char* path)
{
  unsigned char head[8] = { 0 };
  FILE* f = std::fopen(path, "rb");
  if (!f)
  {
    return false;
  }
  const size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (n >= 4 && head[0] == 'C' && head[1] == 'D' && head[2] == 'F' &&
    (head[3] == 1 || head[3] == 2 || head[3] == 5))
  {
    return true;
  }
  static const unsigned char hdf5[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
  return n == sizeof hdf5 && std::memcmp(head, hdf5, sizeof hdf5) == 0;
}

/** Whether Exodus opens the file (its header only). */
bool IsExodusFile(const char* path)
{
  if (!HasNetCDFMagic(path))
  {
    return false;
  }
  int cpuWordSize = 0, ioWordSize = 0;
  float version = 0;
  const int exoid = ex_open(path, EX_READ, &cpuWordSize, &ioWordSize, &version);
  if (exoid < 0)
  {
    return false;
  }
  ex_close(exoid);
  return true;
}

/** Splits "base.M.r" (digits, at most 9 each) as the core's discovery
 *  does; true on match, with the length of base, M and r. */
bool SpreadName(const std::string& name, size_t* baseLen, long* M, long* r)
{
  const size_t n = name.size();
  size_t i = n;
  while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1])))
  {
    --i;
  }
  if (i == n || i == 0 || name[i - 1] != '.')
  {
    return false;
  }
  size_t j = i - 1;
  while (j > 0 && std::isdigit(static_cast<unsigned char>(name[j - 1])))
  {
    --j;
  }
  if (j == i - 1 || j == 0 || name[j - 1] != '.' || n - i > 9 || (i - 1) - j > 9)
  {
    return false;
  }
  *M = std::strtol(name.c_str() + j, nullptr, 10);
  *r = std::strtol(name.c_str() + i, nullptr, 10);
  *baseLen = j - 1;
  return true;
}

/** For a base name `x.e` (no such file): the rank-0 member `x.e.M.0...`
 *  beside it, from one directory listing, and its M; empty if there is no
 *  set, or sets of different file counts share the name. */
std::string FirstMember(const std::string& path, long* numFiles)
{
  const size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (slash != std::string::npos && dir.empty())
  {
    dir = "/";
  }
  const std::string stem = slash == std::string::npos ? path : path.substr(slash + 1);
  DIR* d = opendir(dir.c_str());
  if (!d)
  {
    return std::string();
  }
  long foundM = -1;
  bool ambiguous = false;
  std::string first;
  while (struct dirent* e = readdir(d))
  {
    const std::string name = e->d_name;
    size_t baseLen;
    long m, r;
    if (name.compare(0, stem.size(), stem) != 0 || !SpreadName(name, &baseLen, &m, &r) ||
      baseLen != stem.size())
    {
      continue;
    }
    ambiguous = ambiguous || (foundM >= 0 && m != foundM);
    foundM = m;
    *numFiles = m;
    if (r == 0)
    {
      first = dir + "/" + name;
    }
  }
  closedir(d);
  return ambiguous ? std::string() : first;
}
}

//----------------------------------------------------------------------------
namespace
{
bool SameMembers(const mxn_member_select_t& a, const mxn_member_select_t& b)
{
  return a.first == b.first && a.last == b.last && a.stride == b.stride &&
    a.named_only == b.named_only;
}
}

//----------------------------------------------------------------------------
void vtkMxNReaderInternals::SetMembers(const mxn_member_select_t& sel)
{
  this->Members = sel;
  if (sel.last <= sel.first)
  {
    // every member: the same whatever the range and stride say
    this->Members.first = this->Members.last = 0;
    this->Members.stride = 1;
  }
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::LoadKey::operator==(const LoadKey& o) const
{
  return FileName == o.FileName && Method == o.Method && NumberOfPieces == o.NumberOfPieces &&
    World == o.World && PieceOfRank == o.PieceOfRank && GhostLevels == o.GhostLevels &&
    WeightField == o.WeightField && Tolerance == o.Tolerance && Dynamic == o.Dynamic &&
    Cost == o.Cost && Blocks == o.Blocks && NodeVars == o.NodeVars && ElemVars == o.ElemVars &&
    KeepAllPoints == o.KeepAllPoints && SameMembers(Members, o.Members);
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::MemberStamp::operator==(const MemberStamp& o) const
{
  return Path == o.Path && Size == o.Size && MTimeNs == o.MTimeNs;
}

//----------------------------------------------------------------------------
vtkMxNReaderInternals::~vtkMxNReaderInternals()
{
  this->Close();
  this->CloseInfo();
}

//----------------------------------------------------------------------------
void vtkMxNReaderInternals::Close()
{
  // mxn_load_close() frees the handle's duplicated communicator; that is
  // not allowed after MPI_Finalize, when the handle is leaked on purpose
  // (the process is ending).
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
  {
    mxn_load_close(&this->TheLoad);
  }
  this->TheLoad = nullptr;
  this->Opened = LoadKey();
  this->Rank = 0;
  this->BalancedStep = -1;
  this->Report = mxn_rebalance_report_t{};
  this->Ended = false;
  this->CostSource.clear();
  this->MeasuredSeconds = -1;
  this->Topos.clear();
}

//----------------------------------------------------------------------------
void vtkMxNReaderInternals::CloseInfo()
{
  mxn_dataset_destroy(&this->InfoDataset);
  this->InfoFile.clear();
  this->InfoWorld = false;
  this->InfoStamps.clear();
  this->InfoMembers = mxn_member_select_t{};
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::EnsureMPI(std::string& why)
{
  // FUNNELED: only the thread running the pipeline makes MPI calls.
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
  {
    why = "MPI has already been finalized";
    return false;
  }
  if (!initialized)
  {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    {
      why = "MPI_Init_thread failed";
      return false;
    }
    PluginInitializedMPI = true;
  }
  return true;
}

//----------------------------------------------------------------------------
MPI_Comm vtkMxNReaderInternals::JobComm(int* size)
{
  return WorldComm(size);
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::CanReadFile(const char* fname)
{
  if (!fname || !fname[0])
  {
    return false;
  }
  // A file (plain, or a member of a spread set whatever its name says) is
  // read if Exodus opens it; the other members are not opened here, so a
  // file dialog's probe costs one open, not M. A base name with no such
  // file names the set beside it: its rank-0 member decides.
  // (The core takes at most a million members.)
  const long maxFiles = 1000000;
  struct stat st;
  if (stat(fname, &st) == 0 && S_ISREG(st.st_mode))
  {
    size_t baseLen;
    long M, r;
    const bool member = SpreadName(fname, &baseLen, &M, &r) && M >= 1 && r < M;
    return !(member && M > maxFiles) && IsExodusFile(fname);
  }
  long M = 0;
  const std::string first = FirstMember(fname, &M);
  return !first.empty() && M >= 1 && M <= maxFiles && IsExodusFile(first.c_str());
}

//----------------------------------------------------------------------------
vtkMxNReaderInternals::MemberStamp vtkMxNReaderInternals::StampOf(const std::string& path)
{
  MemberStamp m;
  m.Path = path;
  struct stat st;
  if (stat(path.c_str(), &st) == 0)
  {
    m.Size = static_cast<long long>(st.st_size);
    m.MTimeNs = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  }
  return m;
}

//----------------------------------------------------------------------------
// This process's share of an open dataset's members, stamped now: on N
// ranks rank r takes members [r M / N, (r + 1) M / N), the split the
// collective open reads the headers by, so a pass costs each rank
// ceil(M / N) stats rather than M (1024 members on 1024 ranks: a thousand
// stats on the file system's metadata server, not a million) and the ranks
// agree on the answer (MPI_MIN). One process stamps all.
std::vector<vtkMxNReaderInternals::MemberStamp> vtkMxNReaderInternals::StampMembers(
  const mxn_dataset_t* ds, int rank, int nranks)
{
  std::vector<MemberStamp> stamps;
  const mxn_structure_t* s = mxn_dataset_structure(ds);
  const long long M = s ? s->num_files : 0;
  const int begin = static_cast<int>(rank * M / nranks);
  const int end = static_cast<int>((rank + 1) * M / nranks);
  for (int j = begin; j < end; ++j)
  {
    const char* path = mxn_dataset_file_path(ds, j);
    stamps.push_back(StampOf(path ? path : ""));
  }
  return stamps;
}

//----------------------------------------------------------------------------
// True if every member this process stamped is still as it was (a rank
// with no share, M < N, has nothing to check).
bool vtkMxNReaderInternals::MembersUnchanged(const std::vector<MemberStamp>& stamps)
{
  for (const auto& m : stamps)
  {
    if (!(StampOf(m.Path) == m))
    {
      return false;
    }
  }
  return true;
}

//----------------------------------------------------------------------------
const mxn_structure_t* vtkMxNReaderInternals::ReadStructure(
  const std::string& fileName, std::string& error)
{
  // On N MPI ranks (pvserver, pvbatch) every rank runs this pass, so the
  // ranks share the member headers out (each opens ceil(M/N) of them) and
  // exchange summaries; one process reads them all.
  int worldSize = 1;
  const MPI_Comm worldComm = WorldComm(&worldSize);
  const bool haveWorld = worldComm != MPI_COMM_NULL && worldSize > 1;

  // A pass over the same, unchanged members (the pipeline runs this pass
  // again whenever a property changes) takes the structure it read last
  // time; every rank decides alike.
  const bool have = this->InfoFile == fileName && this->InfoWorld == haveWorld &&
    SameMembers(this->InfoMembers, this->Members) &&
    (this->InfoDataset ||
      (this->TheLoad && this->Opened.FileName == fileName &&
        SameMembers(this->Opened.Members, this->Members)));
  int reuse = have && MembersUnchanged(this->InfoStamps) ? 1 : 0;
  if (haveWorld)
  {
    MPI_Allreduce(MPI_IN_PLACE, &reuse, 1, MPI_INT, MPI_MIN, worldComm);
  }
  if (reuse)
  {
    return this->InfoDataset ? mxn_dataset_structure(this->InfoDataset)
                             : mxn_load_structure(this->TheLoad);
  }
  if (this->TheLoad && this->Opened.FileName == fileName)
  {
    this->Close(); // its members changed on disk, or others are chosen: load them anew
  }

  this->CloseInfo();
  DatasetHandle h;
  int status = mxn_dataset_create(&h.ds);
  if (status == MXN_OK)
  {
    status = mxn_dataset_select_members(h.ds, &this->Members);
  }
  mxn_error_t err;
  mxn_error_clear(&err);
  if (haveWorld)
  {
    // every rank takes part, even one whose dataset handle failed: the
    // collective open agrees on the error
    status = mxn_dataset_open_collective(
      worldComm, status == MXN_OK ? h.ds : nullptr, fileName.c_str(), &err);
  }
  else if (status == MXN_OK)
  {
    status = mxn_dataset_open(h.ds, fileName.c_str());
    if (status != MXN_OK)
    {
      mxn_error_set(&err, status, "%s", mxn_dataset_errmsg(h.ds));
    }
  }
  if (status != MXN_OK)
  {
    std::ostringstream m;
    m << "Cannot open Exodus II dataset '" << fileName << "': " << mxn_strerror(status) << ": "
      << (err.msg[0] ? err.msg : "out of memory");
    error = m.str();
    return nullptr;
  }
  int worldRank = 0;
  if (haveWorld)
  {
    MPI_Comm_rank(worldComm, &worldRank);
  }
  this->InfoStamps = StampMembers(h.ds, worldRank, haveWorld ? worldSize : 1);
  this->InfoDataset = h.ds;
  h.ds = nullptr;
  this->InfoFile = fileName;
  this->InfoWorld = haveWorld;
  this->InfoMembers = this->Members;
  return mxn_dataset_structure(this->InfoDataset);
}

//----------------------------------------------------------------------------
void vtkMxNReaderInternals::Catalogue(const mxn_structure_t* s,
  const vtkMxNVariables::SelectionNames& names, const vtkMxNVariables::Grouping& how)
{
  Catalog& c = this->Info;
  c = Catalog();
  c.How = how;
  c.FirstBlockLeaf = std::max(s->num_edge_blocks, 0) + std::max(s->num_face_blocks, 0);
  c.BlockNames = names.Blocks;
  c.NumNodeVars = s->num_node_vars;
  c.NumElemVars = s->num_elem_vars;
  c.NodeGroups =
    vtkMxNVariables::GroupVariables(s->node_var_names, s->num_node_vars, nullptr, nullptr, how);
  const int disp = vtkMxNVariables::DisplacementGroup(c.NodeGroups, s->num_dim);
  if (disp >= 0)
  {
    c.DisplacementVars = c.NodeGroups[disp].vars;
  }
  for (int b = 0; b < s->num_blocks; ++b)
  {
    c.ElemGroups.push_back(vtkMxNVariables::BlockVariables(s, b, how));
  }
}

//----------------------------------------------------------------------------
vtkMxNReaderInternals::Layout vtkMxNReaderInternals::ChoosePieces(const char* fileName,
  int piece, int numPieces, LoadKey& key, MPI_Comm& world, std::string& message) const
{
  int worldSize = 1;
  const MPI_Comm worldComm = WorldComm(&worldSize);
  key.FileName = fileName;
  key.Members = this->Members;
  key.NumberOfPieces = numPieces;
  world = MPI_COMM_SELF;
  message.clear();
  if (numPieces > 1 && numPieces == worldSize)
  {
    world = worldComm;
    key.World = true;
    key.PieceOfRank.resize(static_cast<size_t>(worldSize));
    MPI_Allgather(&piece, 1, MPI_INT, key.PieceOfRank.data(), 1, MPI_INT, world);
    std::vector<int> sorted = key.PieceOfRank;
    std::sort(sorted.begin(), sorted.end());
    for (int r = 0; r < worldSize; ++r)
    {
      if (sorted[r] != r)
      {
        // Every rank saw the same gathered list: all refuse alike.
        std::ostringstream m;
        m << "Cannot read '" << fileName << "': the " << worldSize
          << " ranks asked for pieces that are not 0.." << worldSize - 1 << " once each.";
        message = m.str();
        return REFUSED;
      }
    }
    return COLLECTIVE;
  }
  if (numPieces > 1)
  {
    // No collective call: piece 0 gets everything, the others nothing.
    if (piece != 0)
    {
      return EMPTY;
    }
    std::ostringstream m;
    m << "'" << fileName << "': asked for " << numPieces << " pieces on " << worldSize
      << " MPI ranks; the MxN reader splits a dataset only into one piece "
         "per rank, so piece 0 holds the whole dataset and the others none.";
    message = m.str();
  }
  return WHOLE;
}

//----------------------------------------------------------------------------
void vtkMxNReaderInternals::SelectionMasks(LoadKey& key, vtkDataArraySelection* blocks,
  vtkDataArraySelection* points, vtkDataArraySelection* cells, bool displace) const
{
  const Catalog& cat = this->Info;
  // by name through a table: the selection's own search is linear in its names
  std::unordered_map<std::string, int> on;
  for (int i = 0; i < blocks->GetNumberOfArrays(); ++i)
  {
    on[blocks->GetArrayName(i)] = blocks->GetArraySetting(i);
  }
  for (const auto& name : cat.BlockNames)
  {
    auto it = on.find(name);
    key.Blocks.push_back(it != on.end() && it->second != 0);
  }
  key.NodeVars.assign(static_cast<size_t>(cat.NumNodeVars), 0);
  for (const auto& g : cat.NodeGroups)
  {
    for (int v : g.vars)
    {
      key.NodeVars[v] = points->ArrayIsEnabled(g.name.c_str());
    }
  }
  if (displace)
  {
    for (int v : cat.DisplacementVars)
    {
      key.NodeVars[v] = 1;
    }
  }
  key.ElemVars.assign(static_cast<size_t>(cat.NumElemVars), 0);
  for (const auto& groups : cat.ElemGroups)
  {
    for (const auto& g : groups)
    {
      for (int v : g.vars)
      {
        key.ElemVars[v] |= cells->ArrayIsEnabled(g.name.c_str());
      }
    }
  }
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::IsOpen(const LoadKey& key) const
{
  return this->TheLoad && this->Opened == key;
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::Open(
  const LoadKey& key, int piece, int step, MPI_Comm world, std::string& error)
{
  this->Close();
  MPI_Comm comm = world;
  MPI_Comm ordered = MPI_COMM_NULL;
  if (key.World)
  {
    // Rank order = piece order, so that rank r of the load holds piece r.
    MPI_Comm_split(world, 0, piece, &ordered);
    comm = ordered;
  }
  mxn_load_opts_t opts;
  mxn_load_opts_init(&opts);
  opts.method = static_cast<mxn_part_method>(key.Method); // the core's numbers
  opts.imbalance_tol = key.Tolerance;
  opts.weight_field = key.WeightField.empty() ? nullptr : key.WeightField.c_str();
  opts.weight_step = step;
  opts.ghost_levels = key.GhostLevels;
  opts.block_selection = key.Blocks.empty() ? nullptr : key.Blocks.data();
  opts.node_var_selection = key.NodeVars.empty() ? nullptr : key.NodeVars.data();
  opts.elem_var_selection = key.ElemVars.empty() ? nullptr : key.ElemVars.data();
  opts.dynamic = key.Dynamic ? 1 : 0;
  opts.members = &key.Members;
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t* ld = nullptr;
  // The information pass opened these members over the same ranks: the
  // load takes that dataset over instead of opening them again (every
  // rank alike, or none).
  int handOver = this->InfoDataset && this->InfoFile == key.FileName &&
      this->InfoWorld == key.World && SameMembers(this->InfoMembers, key.Members)
    ? 1
    : 0;
  MPI_Allreduce(MPI_IN_PLACE, &handOver, 1, MPI_INT, MPI_MIN, comm);
  int st;
  if (handOver)
  {
    st = mxn_load_open_dataset(comm, &this->InfoDataset, &opts, &ld, &err);
  }
  else
  {
    st = mxn_load_open(comm, key.FileName.c_str(), &opts, &ld, &err);
  }
  if (st == MXN_OK)
  {
    MPI_Comm_rank(comm, &this->Rank);
  }
  if (ordered != MPI_COMM_NULL)
  {
    MPI_Comm_free(&ordered); // the load keeps its own duplicate
  }
  if (st != MXN_OK)
  {
    mxn_load_close(&ld);
    error = "Cannot read '" + key.FileName + "': " + mxn_strerror(st) + ": " + err.msg;
    return false;
  }
  this->TheLoad = ld;
  this->Opened = key;
  return true;
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::Rebalance(const LoadKey& key, int step, MPI_Comm world,
  std::chrono::steady_clock::time_point entered, std::string& error)
{
  const mxn_structure_t* s = mxn_load_structure(this->TheLoad);
  if (s->num_times <= 0)
  {
    return true;
  }
  const int rstep = std::min(step, s->num_times - 1);
  if (this->BalancedStep == rstep)
  {
    return true;
  }
  // The step's weights; over the tolerance each rank reads only the
  // elements it gains (and their ghosts) and drops what it loses.
  mxn_rebalance_opts_t ro{};
  ro.weight_field = key.WeightField.empty() ? nullptr : key.WeightField.c_str();
  ro.weight_abs = 1;
  ro.imbalance_tol = key.Tolerance;
  std::vector<double> cost;
  this->MeasuredSeconds = -1;
  this->CostSource = key.WeightField.empty() ? "None" : "Field";
  if (key.Cost == vtkMxNReader::MEASURED_TIME)
  {
    // Every rank passes a cost or none does (the weights must be of one
    // kind over the ranks).
    const double mine =
      this->Ended ? std::chrono::duration<double>(entered - this->LastEnd).count() : -1.0;
    int have = mine >= 0 ? 1 : 0, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, world);
    if (all)
    {
      this->MeasuredSeconds = mine;
      this->CostSource = key.WeightField.empty() ? "MeasuredTime" : "MeasuredTime x Field";
      cost = MeasuredCost(this->TheLoad, key.WeightField, mine);
      ro.cost = cost.data();
    }
  }
  mxn_error_t err;
  mxn_error_clear(&err);
  const int st = mxn_load_rebalance(this->TheLoad, rstep, &ro, &this->Report, &err);
  if (st != MXN_OK)
  {
    this->Close();
    std::ostringstream m;
    m << "Cannot re-balance '" << key.FileName << "' for time step " << rstep + 1 << ": "
      << mxn_strerror(st) << ": " << err.msg;
    error = m.str();
    return false;
  }
  this->BalancedStep = rstep;
  if (this->Report.rebalanced)
  {
    this->Topos.clear(); // another piece: build its grids anew
  }
  return true;
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::CheckPiece(const LoadKey& key, std::string& error)
{
  const mxn_structure_t* s = mxn_load_structure(this->TheLoad);
  const mxn_piece_t* p = mxn_load_piece(this->TheLoad);
  if (!s || !p || p->num_blocks != s->num_blocks || p->num_node_sets != s->num_node_sets ||
    p->num_side_sets != s->num_side_sets ||
    static_cast<size_t>(s->num_blocks) != key.Blocks.size())
  {
    this->Close();
    error = "Cannot read '" + key.FileName +
      "': the core returned no piece or one that does not match the dataset's structure.";
    return false;
  }
  return true;
}

//----------------------------------------------------------------------------
bool vtkMxNReaderInternals::ReadStep(int& step, std::string& error)
{
  const mxn_structure_t* s = mxn_load_structure(this->TheLoad);
  const mxn_piece_t* p = mxn_load_piece(this->TheLoad);
  step = std::min(step, s->num_times - 1);
  if (p->step == step)
  {
    return true;
  }
  mxn_error_t err;
  mxn_error_clear(&err);
  const int st = mxn_load_read_step(this->TheLoad, step, &err);
  if (st != MXN_OK)
  {
    // The piece may hold a mix of steps now: read it again next time.
    const std::string file = this->Opened.FileName;
    this->Close();
    std::ostringstream m;
    m << "Cannot read time step " << step + 1 << " of '" << file << "': " << mxn_strerror(st)
      << ": " << err.msg;
    error = m.str();
    return false;
  }
  return true;
}

//----------------------------------------------------------------------------
vtkMxNPieceConverter vtkMxNReaderInternals::Converter(
  const LoadKey& key, vtkDataArraySelection* points, vtkDataArraySelection* cells)
{
  // A load that is not re-balanced never reads its blocks' connectivity
  // and element ids again: the grids may own them.
  const mxn_structure_t* s = mxn_load_structure(this->TheLoad);
  this->Topos.resize(static_cast<size_t>(s->num_blocks));
  return vtkMxNPieceConverter(s, mxn_load_piece(this->TheLoad), mxn_load_halo(this->TheLoad),
    this->Rank, points, cells, key.Dynamic ? nullptr : this->TheLoad, this->Topos, this->Info.How,
    key.KeepAllPoints);
}

//----------------------------------------------------------------------------
void vtkMxNReaderInternals::AddLoadFields(
  const LoadKey& key, vtkPartitionedDataSetCollection* output) const
{
  vtkMxNPieceConverter::AddLoadStats(output, mxn_load_stats(this->TheLoad));
  if (key.Dynamic && this->BalancedStep >= 0)
  {
    // (the same on every rank)
    vtkMxNPieceConverter::AddRebalanceReport(
      output, this->Report, this->MeasuredSeconds, this->CostSource);
  }
}

//----------------------------------------------------------------------------
void vtkMxNReaderInternals::MarkEnded()
{
  this->Ended = true;
  this->LastEnd = std::chrono::steady_clock::now();
}

//----------------------------------------------------------------------------
std::string vtkMxNReaderInternals::TakeIdWarning(const std::string& file)
{
  const mxn_structure_t* s = this->TheLoad ? mxn_load_structure(this->TheLoad) : nullptr;
  // the id fallback's and the writers' hints' (mxn_structure_warnings)
  if (!s || mxn_structure_warnings(s, nullptr, 0) == 0 || this->IdWarnedFile == file)
  {
    return std::string();
  }
  this->IdWarnedFile = file;
  std::string w(2 * MXN_ERRMSG_LEN, '\0');
  mxn_structure_warnings(s, &w[0], w.size());
  w.resize(std::strlen(w.c_str()));
  return this->Rank == 0 ? w : std::string();
}
