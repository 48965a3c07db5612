#include "vtkMxNReader.h"

#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkCellType.h"
#include "vtkDataAssembly.h"
#include "vtkDataSetAttributes.h"
#include "vtkDoubleArray.h"
#include "vtkFieldData.h"
#include "vtkIdTypeArray.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkMPI.h"
#include "vtkMPICommunicator.h"
#include "vtkMPIController.h"
#include "vtkMultiProcessController.h"
#include "vtkNew.h"
#include "vtkObjectFactory.h"
#include "vtkPartitionedDataSet.h"
#include "vtkPartitionedDataSetCollection.h"
#include "vtkPointData.h"
#include "vtkPoints.h"
#include "vtkStreamingDemandDrivenPipeline.h"
#include "vtkUnsignedCharArray.h"
#include "vtkUnstructuredGrid.h"

#include <mxn/mxn.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

vtkStandardNewMacro(vtkMxNReader);

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

/**
 * The core needs MPI even for a one-rank load (its Zoltan methods and the
 * collective open). pvbatch and pvserver initialize MPI themselves; the
 * GUI client in builtin mode may not, so initialize it here. FUNNELED:
 * only the thread running the pipeline makes MPI calls.
 */
bool EnsureMPI(std::string& why)
{
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

/** How an Exodus element type becomes a VTK cell. */
struct CellMapping
{
  int vtkType = VTK_EMPTY_CELL;
  /** VTK point k is Exodus node order[k]; empty = same order. */
  std::vector<int> order;
};

/**
 * Map an Exodus element type and node count to a VTK cell, following
 * vtkIOSSUtilities::GetCellType / GetConnectivity (VTK 9.2), which is what
 * ParaView's IOSS reader does. Exodus types are matched case-insensitively
 * by their leading letters, as the Exodus library does. Returns false for
 * types (or node counts) VTK has no matching cell for.
 */
bool MapCellType(const char* exoType, int npe, CellMapping& m)
{
  std::string t(exoType ? exoType : "");
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::toupper(c); });
  auto starts = [&t](const char* p) { return t.compare(0, std::char_traits<char>::length(p), p) == 0; };
  m.order.clear();

  if (starts("HEXSHELL") || starts("NSIDED") || starts("NFACED"))
  {
    return false;
  }
  if (starts("HEX"))
  {
    switch (npe)
    {
      case 8:
        m.vtkType = VTK_HEXAHEDRON;
        return true;
      case 20:
        // Exodus: bottom, vertical, top mid-edge nodes; VTK: bottom, top, vertical.
        m.vtkType = VTK_QUADRATIC_HEXAHEDRON;
        m.order = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15 };
        return true;
      case 27:
        m.vtkType = VTK_TRIQUADRATIC_HEXAHEDRON;
        m.order = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15, 23, 24,
          25, 26, 21, 22, 20 };
        return true;
    }
    return false;
  }
  if (starts("TET"))
  {
    switch (npe)
    {
      case 4:
        m.vtkType = VTK_TETRA;
        return true;
      case 10:
        m.vtkType = VTK_QUADRATIC_TETRA; // same node order
        return true;
    }
    return false;
  }
  if (starts("WEDGE"))
  {
    // Exodus numbers a wedge's first triangle so that its right-hand normal
    // points into the wedge, VTK so that it points out: IOSS swaps the two
    // triangles (which keeps each triangle's orientation consistent with
    // the other's and flips the sign of the volume back).
    switch (npe)
    {
      case 6:
        m.vtkType = VTK_WEDGE;
        m.order = { 3, 4, 5, 0, 1, 2 };
        return true;
      case 15:
        m.vtkType = VTK_QUADRATIC_WEDGE;
        m.order = { 3, 4, 5, 0, 1, 2, 12, 13, 14, 6, 7, 8, 9, 10, 11 };
        return true;
    }
    return false;
  }
  if (starts("PYRAMID"))
  {
    switch (npe)
    {
      case 5:
        m.vtkType = VTK_PYRAMID;
        return true;
      case 13:
        m.vtkType = VTK_QUADRATIC_PYRAMID; // same node order
        return true;
    }
    return false;
  }
  if (starts("QUAD") || starts("SHELL"))
  {
    switch (npe)
    {
      case 3: // SHELL3
        m.vtkType = VTK_TRIANGLE;
        return true;
      case 4:
        m.vtkType = VTK_QUAD;
        return true;
      case 8:
        m.vtkType = VTK_QUADRATIC_QUAD;
        return true;
      case 9:
        m.vtkType = VTK_BIQUADRATIC_QUAD;
        return true;
    }
    return false;
  }
  if (starts("TRI")) // TRI, TRIANGLE, TRISHELL
  {
    switch (npe)
    {
      case 3:
        m.vtkType = VTK_TRIANGLE;
        return true;
      case 6:
        m.vtkType = VTK_QUADRATIC_TRIANGLE;
        return true;
    }
    return false;
  }
  if (starts("BAR") || starts("BEAM") || starts("TRUSS") || starts("EDGE"))
  {
    switch (npe)
    {
      case 2:
        m.vtkType = VTK_LINE;
        return true;
      case 3:
        m.vtkType = VTK_QUADRATIC_EDGE;
        return true;
    }
    return false;
  }
  if ((starts("SPHERE") || starts("CIRCLE") || starts("POINT")) && npe == 1)
  {
    m.vtkType = VTK_VERTEX;
    return true;
  }
  return false;
}

/** The name of block b as IOSSReader gives it. */
std::string BlockName(const mxn_block_info_t& b)
{
  if (b.name[0])
  {
    return b.name;
  }
  std::ostringstream s;
  s << "block_" << b.id;
  return s.str();
}

vtkSmartPointer<vtkIdTypeArray> IdArray(const char* name, vtkIdType n)
{
  auto a = vtkSmartPointer<vtkIdTypeArray>::New();
  a->SetName(name);
  a->SetNumberOfTuples(n);
  return a;
}

vtkSmartPointer<vtkDoubleArray> DoubleArray(const char* name, vtkIdType n)
{
  auto a = vtkSmartPointer<vtkDoubleArray>::New();
  a->SetName(name);
  a->SetNumberOfTuples(n);
  return a;
}
}

//----------------------------------------------------------------------------
/**
 * The open load and what it was opened with: the same file, method and
 * communicator (self or world, with the same number of pieces) reuse it, so
 * a new time step only reads that step's fields.
 */
struct vtkMxNReader::LoadCache
{
  mxn_load_t* Load = nullptr;
  std::string FileName;
  int Method = -1;
  int NumberOfPieces = 0;
  int GhostLevels = 0;
  bool World = false;

  void Close()
  {
    // mxn_load_close() frees the handle's duplicated communicator; that is
    // not allowed after MPI_Finalize, when the handle is leaked on purpose
    // (the process is ending).
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
    {
      mxn_load_close(&this->Load);
    }
    this->Load = nullptr;
    this->FileName.clear();
    this->Method = -1;
    this->NumberOfPieces = 0;
    this->GhostLevels = 0;
  }
  ~LoadCache() { this->Close(); }
};

//----------------------------------------------------------------------------
vtkMxNReader::vtkMxNReader()
  : Cache(new LoadCache)
{
  this->SetNumberOfInputPorts(0);
}

//----------------------------------------------------------------------------
vtkMxNReader::~vtkMxNReader()
{
  this->SetFileName(nullptr);
  delete this->Cache;
}

//----------------------------------------------------------------------------
int vtkMxNReader::CanReadFile(const char* fname)
{
  if (!fname || !fname[0])
  {
    return 0;
  }
  DatasetHandle h;
  if (mxn_dataset_create(&h.ds) != MXN_OK)
  {
    return 0;
  }
  return mxn_dataset_open(h.ds, fname) == MXN_OK ? 1 : 0;
}

//----------------------------------------------------------------------------
int vtkMxNReader::RequestInformation(
  vtkInformation*, vtkInformationVector**, vtkInformationVector* outputVector)
{
  vtkInformation* outInfo = outputVector->GetInformationObject(0);
  this->TimeSteps.clear();

  if (!this->FileName || !this->FileName[0])
  {
    vtkErrorMacro("No FileName set.");
    return 0;
  }

  // Every rank reads the structure on its own (local, no MPI): this runs
  // before the piece request is known. RequestData's collective load
  // agrees on errors across ranks.
  DatasetHandle h;
  int status = mxn_dataset_create(&h.ds);
  if (status != MXN_OK)
  {
    vtkErrorMacro("Cannot open Exodus II dataset '" << this->FileName
                                                     << "': " << mxn_strerror(status));
    return 0;
  }
  status = mxn_dataset_open(h.ds, this->FileName);
  if (status != MXN_OK)
  {
    vtkErrorMacro("Cannot open Exodus II dataset '" << this->FileName << "': "
                                                     << mxn_strerror(status) << ": "
                                                     << mxn_dataset_errmsg(h.ds));
    return 0;
  }

  const mxn_structure_t* s = mxn_dataset_structure(h.ds);
  if (s && s->num_times > 0)
  {
    this->TimeSteps.assign(s->times, s->times + s->num_times);
  }

  if (this->TimeSteps.empty())
  {
    // A mesh without results: no time, so downstream does not animate.
    outInfo->Remove(vtkStreamingDemandDrivenPipeline::TIME_STEPS());
    outInfo->Remove(vtkStreamingDemandDrivenPipeline::TIME_RANGE());
  }
  else
  {
    outInfo->Set(vtkStreamingDemandDrivenPipeline::TIME_STEPS(), this->TimeSteps.data(),
      static_cast<int>(this->TimeSteps.size()));
    double range[2] = { this->TimeSteps.front(), this->TimeSteps.back() };
    outInfo->Set(vtkStreamingDemandDrivenPipeline::TIME_RANGE(), range, 2);
  }

  // Every rank reads its own balanced piece (the whole point of MxN).
  outInfo->Set(vtkAlgorithm::CAN_HANDLE_PIECE_REQUEST(), 1);
  return 1;
}

//----------------------------------------------------------------------------
int vtkMxNReader::RequestData(
  vtkInformation*, vtkInformationVector**, vtkInformationVector* outputVector)
{
  vtkInformation* outInfo = outputVector->GetInformationObject(0);
  vtkPartitionedDataSetCollection* output = vtkPartitionedDataSetCollection::GetData(outInfo);
  if (!output)
  {
    vtkErrorMacro("Output is not a vtkPartitionedDataSetCollection.");
    return 0;
  }
  output->Initialize();
  if (!this->FileName || !this->FileName[0])
  {
    vtkErrorMacro("No FileName set.");
    return 0;
  }

  const int piece = outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_PIECE_NUMBER())
    ? outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_PIECE_NUMBER())
    : 0;
  const int numPieces =
    outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_PIECES())
    ? outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_PIECES())
    : 1;

  std::string why;
  if (!EnsureMPI(why))
  {
    vtkErrorMacro("Cannot read '" << this->FileName << "': " << why);
    return 0;
  }

  // The communicator: MPI_COMM_SELF for one piece, else the global MPI
  // controller's, provided there is one piece per rank and piece == rank.
  // Every rank sees the same piece count and world size, so the refusals
  // below are the same everywhere (no rank waits in a collective alone).
  MPI_Comm comm = MPI_COMM_SELF;
  bool world = false;
  if (numPieces > 1)
  {
    auto* ctrl =
      vtkMPIController::SafeDownCast(vtkMultiProcessController::GetGlobalController());
    auto* mpiComm = ctrl ? vtkMPICommunicator::SafeDownCast(ctrl->GetCommunicator()) : nullptr;
    if (!mpiComm || !mpiComm->GetMPIComm() || !mpiComm->GetMPIComm()->GetHandle() ||
      ctrl->GetNumberOfProcesses() != numPieces)
    {
      vtkErrorMacro("Cannot read '"
        << this->FileName << "' as " << numPieces
        << " pieces: the MxN reader reads either 1 piece or one piece per MPI rank ("
        << (ctrl ? ctrl->GetNumberOfProcesses() : 1) << " ranks).");
      return 0;
    }
    comm = *mpiComm->GetMPIComm()->GetHandle();
    int mine = (piece == ctrl->GetLocalProcessId()) ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all)
    {
      vtkErrorMacro("Cannot read '" << this->FileName
                                    << "': some rank was asked for a piece other than its rank.");
      return 0;
    }
    world = true;
  }

  static const mxn_part_method methods[] = { MXN_PART_FILES, MXN_PART_SFC, MXN_PART_RCB,
    MXN_PART_RIB, MXN_PART_HSFC, MXN_PART_GRAPH, MXN_PART_LINEAR };
  const int method = std::min(std::max(this->PartitionMethod, 0), 6);

  // Ghost layers: the larger of the property and the pipeline's request;
  // one piece has no neighbours to take ghosts from.
  int ghostLevels = this->GhostLevels;
  if (outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS()))
  {
    ghostLevels = std::max(
      ghostLevels, outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS()));
  }
  ghostLevels = world ? std::min(std::max(ghostLevels, 0), 100) : 0;
  int rank = 0;
  if (world)
  {
    MPI_Comm_rank(comm, &rank);
  }

  LoadCache& cache = *this->Cache;
  if (!cache.Load || cache.FileName != this->FileName || cache.Method != method ||
    cache.NumberOfPieces != numPieces || cache.World != world || cache.GhostLevels != ghostLevels)
  {
    cache.Close();
    mxn_load_opts_t opts;
    mxn_load_opts_init(&opts);
    opts.method = methods[method];
    opts.ghost_levels = ghostLevels;
    mxn_error_t err;
    mxn_error_clear(&err);
    mxn_load_t* ld = nullptr;
    const int st = mxn_load_open(comm, this->FileName, &opts, &ld, &err);
    if (st != MXN_OK)
    {
      mxn_load_close(&ld);
      vtkErrorMacro("Cannot read '" << this->FileName << "': " << mxn_strerror(st) << ": "
                                    << err.msg);
      return 0;
    }
    cache.Load = ld;
    cache.FileName = this->FileName;
    cache.Method = method;
    cache.NumberOfPieces = numPieces;
    cache.GhostLevels = ghostLevels;
    cache.World = world;
  }

  const mxn_structure_t* s = mxn_load_structure(cache.Load);
  const mxn_piece_t* p = mxn_load_piece(cache.Load);
  const mxn_load_halo_t* halo = mxn_load_halo(cache.Load);
  if (!s || !p)
  {
    vtkErrorMacro("Cannot read '" << this->FileName << "': the core returned no piece.");
    return 0;
  }

  // The step whose time is nearest to the requested one (the first of two
  // equally near).
  if (s->num_times > 0)
  {
    int step = 0;
    if (outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_TIME_STEP()))
    {
      const double t = outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_TIME_STEP());
      for (int k = 1; k < s->num_times; ++k)
      {
        if (std::fabs(s->times[k] - t) < std::fabs(s->times[step] - t))
        {
          step = k;
        }
      }
    }
    if (p->step != step)
    {
      mxn_error_t err;
      mxn_error_clear(&err);
      const int st = mxn_load_read_step(cache.Load, step, &err);
      if (st != MXN_OK)
      {
        // The piece may hold a mix of steps now: read it again next time.
        cache.Close();
        vtkErrorMacro("Cannot read time step " << step + 1 << " of '" << this->FileName
                                               << "': " << mxn_strerror(st) << ": " << err.msg);
        return 0;
      }
    }
    output->GetInformation()->Set(vtkDataObject::DATA_TIME_STEP(), s->times[step]);
  }

  // Check every block's type before building anything: all ranks share the
  // structure, so all refuse alike.
  std::vector<CellMapping> mappings(s->num_blocks);
  for (int b = 0; b < s->num_blocks; ++b)
  {
    const mxn_block_info_t& bi = s->blocks[b];
    if (bi.num_elements > 0 && !MapCellType(bi.type, bi.nodes_per_elem, mappings[b]))
    {
      vtkErrorMacro("Cannot read '" << this->FileName << "': element block " << bi.id << " ('"
                                    << BlockName(bi) << "') has element type '" << bi.type
                                    << "' with " << bi.nodes_per_elem
                                    << " nodes, which this reader cannot map to a VTK cell.");
      return 0;
    }
  }
  if (p->num_blocks != s->num_blocks)
  {
    vtkErrorMacro("Cannot read '" << this->FileName << "': the piece has " << p->num_blocks
                                  << " element blocks, the structure " << s->num_blocks << ".");
    return 0;
  }

  vtkNew<vtkDataAssembly> assembly;
  assembly->SetRootNodeName("IOSS"); // as vtkIOSSReader, for selectors written for it
  const int blocksNode = assembly->AddNode("element_blocks");

  const bool haveFields = p->step >= 0;
  std::vector<vtkIdType> localIndex(static_cast<size_t>(p->num_nodes));
  output->SetNumberOfPartitionedDataSets(static_cast<unsigned int>(s->num_blocks));
  for (int b = 0; b < s->num_blocks; ++b)
  {
    const mxn_block_info_t& bi = s->blocks[b];
    const mxn_piece_block_t& pb = p->blocks[b];
    const CellMapping& map = mappings[b];
    const int npe = bi.nodes_per_elem;
    const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);

    // The piece's nodes this block uses, in piece order (ascending global
    // id), numbered 0.. for this grid.
    std::fill(localIndex.begin(), localIndex.end(), -1);
    for (int64_t k = 0; k < pb.num_elements * npe; ++k)
    {
      const int64_t c = pb.conn[k];
      if (c < 0 || c >= p->num_nodes)
      {
        vtkErrorMacro("Cannot read '" << this->FileName << "': element block " << bi.id
                                      << " refers to local node " << c << " of "
                                      << p->num_nodes << ".");
        output->Initialize();
        return 0;
      }
      localIndex[c] = 0;
    }
    std::vector<int64_t> used;
    for (int64_t n = 0; n < p->num_nodes; ++n)
    {
      if (localIndex[n] == 0)
      {
        localIndex[n] = static_cast<vtkIdType>(used.size());
        used.push_back(n);
      }
    }
    const vtkIdType npts = static_cast<vtkIdType>(used.size());

    vtkNew<vtkUnstructuredGrid> grid;
    vtkNew<vtkDoubleArray> xyz;
    xyz->SetNumberOfComponents(3);
    xyz->SetNumberOfTuples(npts);
    for (vtkIdType i = 0; i < npts; ++i)
    {
      for (int d = 0; d < 3; ++d)
      {
        xyz->SetTypedComponent(i, d, d < p->num_dim ? p->coord[d][used[i]] : 0.0);
      }
    }
    vtkNew<vtkPoints> points;
    points->SetData(xyz);
    grid->SetPoints(points);

    if (ncells > 0)
    {
      auto conn = vtkSmartPointer<vtkIdTypeArray>::New();
      conn->SetNumberOfTuples(ncells * npe);
      vtkIdType* out = conn->GetPointer(0);
      for (vtkIdType e = 0; e < ncells; ++e)
      {
        const int64_t* in = pb.conn + e * npe;
        for (int k = 0; k < npe; ++k)
        {
          out[e * npe + k] = localIndex[in[map.order.empty() ? k : map.order[k]]];
        }
      }
      vtkNew<vtkCellArray> cells;
      cells->SetData(npe, conn);
      grid->SetCells(map.vtkType, cells);
    }
    else
    {
      // An empty grid still carries the arrays below, so that every rank
      // offers the same arrays.
      vtkNew<vtkCellArray> cells;
      grid->SetCells(VTK_EMPTY_CELL, cells);
    }

    // Point data: global node ids, nodal variables.
    auto pids = IdArray("ids", npts);
    for (vtkIdType i = 0; i < npts; ++i)
    {
      pids->SetValue(i, static_cast<vtkIdType>(p->node_ids[used[i]]));
    }
    grid->GetPointData()->SetGlobalIds(pids);
    for (int v = 0; haveFields && v < s->num_node_vars && v < p->plan_num_node_vars; ++v)
    {
      if (halo && std::strcmp(s->node_var_names[v], MXN_GHOST_VAR) == 0)
      {
        continue; // the halo's own marking below replaces a stored one
      }
      const double* vals = p->node_vars ? p->node_vars[v] : nullptr;
      auto a = DoubleArray(s->node_var_names[v], npts);
      for (vtkIdType i = 0; i < npts; ++i)
      {
        a->SetValue(i, vals ? vals[used[i]] : std::numeric_limits<double>::quiet_NaN());
      }
      grid->GetPointData()->AddArray(a);
    }

    // Cell data: global element ids, block id, element variables defined
    // on this block.
    auto cids = IdArray("ids", ncells);
    auto oids = IdArray("object_id", ncells);
    for (vtkIdType e = 0; e < ncells; ++e)
    {
      cids->SetValue(e, static_cast<vtkIdType>(pb.elem_ids[e]));
      oids->SetValue(e, static_cast<vtkIdType>(bi.id));
    }
    grid->GetCellData()->SetGlobalIds(cids);
    for (int v = 0; haveFields && v < s->num_elem_vars && v < p->plan_num_elem_vars; ++v)
    {
      if (!s->elem_var_truth || !s->elem_var_truth[b * s->num_elem_vars + v])
      {
        continue;
      }
      if (std::strcmp(s->elem_var_names[v], MXN_GHOST_VAR) == 0)
      {
        // A set written with ghost copies (mxn repart --ghosts): which copy
        // the cover read is arbitrary; this piece's own halo decides.
        continue;
      }
      const double* vals = pb.elem_vars ? pb.elem_vars[v] : nullptr;
      if (!vals && ncells > 0)
      {
        vtkWarningMacro("'" << this->FileName << "': element variable '"
                            << s->elem_var_names[v] << "' of block " << bi.id
                            << " has no values on this rank; filled with NaN.");
      }
      auto a = DoubleArray(s->elem_var_names[v], ncells);
      for (vtkIdType e = 0; e < ncells; ++e)
      {
        a->SetValue(e, vals ? vals[e] : std::numeric_limits<double>::quiet_NaN());
      }
      grid->GetCellData()->AddArray(a);
    }
    grid->GetCellData()->AddArray(oids);
    if (halo)
    {
      // vtkGhostType: halo cells are duplicates of another rank's cells;
      // points another rank owns are duplicates of its points.
      vtkNew<vtkUnsignedCharArray> cg;
      cg->SetName(vtkDataSetAttributes::GhostArrayName());
      cg->SetNumberOfTuples(ncells);
      for (vtkIdType e = 0; e < ncells; ++e)
      {
        cg->SetValue(e, halo->elem_depth[b][e] > 0 ? vtkDataSetAttributes::DUPLICATECELL : 0);
      }
      grid->GetCellData()->AddArray(cg);
      vtkNew<vtkUnsignedCharArray> pg;
      pg->SetName(vtkDataSetAttributes::GhostArrayName());
      pg->SetNumberOfTuples(npts);
      for (vtkIdType i = 0; i < npts; ++i)
      {
        pg->SetValue(
          i, halo->node_owner[used[i]] != rank ? vtkDataSetAttributes::DUPLICATEPOINT : 0);
      }
      grid->GetPointData()->AddArray(pg);
    }

    const std::string name = BlockName(bi);
    vtkNew<vtkPartitionedDataSet> pds;
    pds->SetNumberOfPartitions(1);
    pds->SetPartition(0, grid);
    output->SetPartitionedDataSet(static_cast<unsigned int>(b), pds);
    output->GetMetaData(static_cast<unsigned int>(b))
      ->Set(vtkCompositeDataSet::NAME(), name.c_str());
    const int node =
      assembly->AddNode(vtkDataAssembly::MakeValidNodeName(name.c_str()).c_str(), blocksNode);
    assembly->SetAttribute(node, "label", name.c_str());
    assembly->AddDataSetIndex(node, static_cast<unsigned int>(b));
  }
  output->SetDataAssembly(assembly);

  // Global variables: one value each, in the collection's field data (as
  // vtkIOSSReader).
  for (int v = 0; haveFields && p->global_vars && v < s->num_global_vars; ++v)
  {
    auto a = DoubleArray(s->global_var_names[v], 1);
    a->SetValue(0, p->global_vars[v]);
    output->GetFieldData()->AddArray(a);
  }
  return 1;
}

//----------------------------------------------------------------------------
void vtkMxNReader::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "FileName: " << (this->FileName ? this->FileName : "(none)") << "\n";
  os << indent << "PartitionMethod: " << this->PartitionMethod << "\n";
  os << indent << "GhostLevels: " << this->GhostLevels << "\n";
  os << indent << "NumberOfTimeSteps: " << this->TimeSteps.size() << "\n";
}
