#include "vtkMxNReader.h"

#include "vtkCallbackCommand.h"
#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkCellType.h"
#include "vtkDataArraySelection.h"
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
#include "vtkStringArray.h"
#include "vtkTypeInt32Array.h"
#include "vtkTypeInt64Array.h"
#include "vtkUnsignedCharArray.h"
#include "vtkUnstructuredGrid.h"

#include <mxn/mxn.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <sys/stat.h>

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

/** Upper-cased element type, for prefix tests (Exodus matches types by
 *  their leading letters, case-insensitively). */
std::string UpperType(const char* type)
{
  std::string t(type ? type : "");
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::toupper(c); });
  return t;
}

bool StartsWith(const std::string& t, const char* prefix)
{
  return t.compare(0, std::char_traits<char>::length(prefix), prefix) == 0;
}

/** One side of an element as a VTK cell: its type and the element-local
 *  (0-based, Exodus order) nodes in VTK order. */
struct SideShape
{
  int vtkType = VTK_EMPTY_CELL;
  std::vector<int> nodes;
};

/** A face or edge from its corners, mid-edge nodes (used when `quadratic`)
 *  and centre node (used when `center` >= 0). VTK's quadratic faces and
 *  edges list corners, then mid-edge nodes in edge order, then the centre,
 *  which is how the tables below are written. */
void MakeSide(SideShape& out, std::initializer_list<int> corners, std::initializer_list<int> mids,
  bool quadratic, int center)
{
  out.nodes.assign(corners.begin(), corners.end());
  const size_t nc = out.nodes.size();
  if (quadratic)
  {
    out.nodes.insert(out.nodes.end(), mids.begin(), mids.end());
  }
  if (quadratic && center >= 0)
  {
    out.nodes.push_back(center);
  }
  switch (nc)
  {
    case 1:
      out.vtkType = VTK_VERTEX;
      break;
    case 2:
      out.vtkType = quadratic ? VTK_QUADRATIC_EDGE : VTK_LINE;
      break;
    case 3:
      out.vtkType = quadratic ? VTK_QUADRATIC_TRIANGLE : VTK_TRIANGLE;
      break;
    default:
      out.vtkType =
        quadratic ? (center >= 0 ? VTK_BIQUADRATIC_QUAD : VTK_QUADRATIC_QUAD) : VTK_QUAD;
      break;
  }
}

/**
 * Side `side` (1-based) of an element of type `type` with `npe` nodes in a
 * mesh of dimension `numDim`, with the side numbering and node numbering
 * of the Exodus II manual's element figures (sides of 3D elements are
 * faces, of 2D elements edges; shells have two faces, then their edges).
 * Returns false for a side the type does not have, or a type this reader
 * does not know.
 */
bool SideOf(const std::string& t, int npe, int numDim, int side, SideShape& out)
{
  const int k = side - 1;
  if (StartsWith(t, "HEX"))
  {
    static const int corner[6][4] = { { 0, 1, 5, 4 }, { 1, 2, 6, 5 }, { 2, 3, 7, 6 },
      { 0, 4, 7, 3 }, { 0, 3, 2, 1 }, { 4, 5, 6, 7 } };
    static const int mid[6][4] = { { 8, 13, 16, 12 }, { 9, 14, 17, 13 }, { 10, 15, 18, 14 },
      { 12, 19, 15, 11 }, { 11, 10, 9, 8 }, { 16, 17, 18, 19 } };
    static const int center[6] = { 25, 24, 26, 23, 21, 22 }; // HEX27 face centres
    if (k < 0 || k > 5 || (npe != 8 && npe != 20 && npe != 27))
    {
      return false;
    }
    const int* c = corner[k];
    const int* m = mid[k];
    MakeSide(out, { c[0], c[1], c[2], c[3] }, { m[0], m[1], m[2], m[3] }, npe >= 20,
      npe == 27 ? center[k] : -1);
    return true;
  }
  if (StartsWith(t, "TET"))
  {
    static const int corner[4][3] = { { 0, 1, 3 }, { 1, 2, 3 }, { 0, 3, 2 }, { 0, 2, 1 } };
    static const int mid[4][3] = { { 4, 8, 7 }, { 5, 9, 8 }, { 7, 9, 6 }, { 6, 5, 4 } };
    if (k < 0 || k > 3 || (npe != 4 && npe != 10))
    {
      return false;
    }
    MakeSide(out, { corner[k][0], corner[k][1], corner[k][2] },
      { mid[k][0], mid[k][1], mid[k][2] }, npe == 10, -1);
    return true;
  }
  if (StartsWith(t, "WEDGE"))
  {
    if (k < 0 || k > 4 || (npe != 6 && npe != 15))
    {
      return false;
    }
    const bool q = npe == 15;
    switch (k)
    {
      case 0:
        MakeSide(out, { 0, 1, 4, 3 }, { 6, 10, 12, 9 }, q, -1);
        break;
      case 1:
        MakeSide(out, { 1, 2, 5, 4 }, { 7, 11, 13, 10 }, q, -1);
        break;
      case 2:
        MakeSide(out, { 0, 3, 5, 2 }, { 9, 14, 11, 8 }, q, -1);
        break;
      case 3:
        MakeSide(out, { 0, 2, 1 }, { 8, 7, 6 }, q, -1);
        break;
      default:
        MakeSide(out, { 3, 4, 5 }, { 12, 13, 14 }, q, -1);
        break;
    }
    return true;
  }
  if (StartsWith(t, "PYR"))
  {
    if (k < 0 || k > 4 || (npe != 5 && npe != 13))
    {
      return false;
    }
    const bool q = npe == 13;
    switch (k)
    {
      case 0:
        MakeSide(out, { 0, 1, 4 }, { 5, 10, 9 }, q, -1);
        break;
      case 1:
        MakeSide(out, { 1, 2, 4 }, { 6, 11, 10 }, q, -1);
        break;
      case 2:
        MakeSide(out, { 2, 3, 4 }, { 7, 12, 11 }, q, -1);
        break;
      case 3:
        MakeSide(out, { 3, 0, 4 }, { 8, 9, 12 }, q, -1);
        break;
      default:
        MakeSide(out, { 0, 3, 2, 1 }, { 8, 7, 6, 5 }, q, -1);
        break;
    }
    return true;
  }
  const bool triShell = StartsWith(t, "TRISHELL") || (StartsWith(t, "TRI") && numDim == 3);
  const bool quadShell = !triShell &&
    (StartsWith(t, "SHELL") || StartsWith(t, "QUADSHELL") ||
      (StartsWith(t, "QUAD") && numDim == 3));
  if (quadShell)
  {
    // Two faces (front, back), then the four edges.
    if (k < 0 || k > 5 || (npe != 4 && npe != 8 && npe != 9))
    {
      return false;
    }
    const bool q = npe >= 8;
    const int c = npe == 9 ? 8 : -1;
    if (k == 0)
    {
      MakeSide(out, { 0, 1, 2, 3 }, { 4, 5, 6, 7 }, q, c);
    }
    else if (k == 1)
    {
      MakeSide(out, { 0, 3, 2, 1 }, { 7, 6, 5, 4 }, q, c);
    }
    else
    {
      const int e = k - 2;
      MakeSide(out, { e, (e + 1) % 4 }, { 4 + e }, q, -1);
    }
    return true;
  }
  if (triShell)
  {
    if (k < 0 || k > 4 || (npe != 3 && npe != 6))
    {
      return false;
    }
    const bool q = npe == 6;
    if (k == 0)
    {
      MakeSide(out, { 0, 1, 2 }, { 3, 4, 5 }, q, -1);
    }
    else if (k == 1)
    {
      MakeSide(out, { 0, 2, 1 }, { 5, 4, 3 }, q, -1);
    }
    else
    {
      const int e = k - 2;
      MakeSide(out, { e, (e + 1) % 3 }, { 3 + e }, q, -1);
    }
    return true;
  }
  if (StartsWith(t, "QUAD") || StartsWith(t, "SHELL"))
  {
    // 2D: the sides are the edges.
    if (k < 0 || k > 3 || (npe != 4 && npe != 8 && npe != 9))
    {
      return false;
    }
    MakeSide(out, { k, (k + 1) % 4 }, { 4 + k }, npe >= 8, -1);
    return true;
  }
  if (StartsWith(t, "TRI"))
  {
    if (k < 0 || k > 2 || (npe != 3 && npe != 6))
    {
      return false;
    }
    MakeSide(out, { k, (k + 1) % 3 }, { 3 + k }, npe == 6, -1);
    return true;
  }
  if (StartsWith(t, "BAR") || StartsWith(t, "BEAM") || StartsWith(t, "TRUSS") ||
    StartsWith(t, "EDGE"))
  {
    // Side 1 is the element with its own direction, side 2 reversed.
    if (k < 0 || k > 1 || (npe != 2 && npe != 3))
    {
      return false;
    }
    if (k == 0)
    {
      MakeSide(out, { 0, 1 }, { 2 }, npe == 3, -1);
    }
    else
    {
      MakeSide(out, { 1, 0 }, { 2 }, npe == 3, -1);
    }
    return true;
  }
  if ((StartsWith(t, "SPHERE") || StartsWith(t, "CIRCLE") || StartsWith(t, "POINT")) &&
    npe == 1 && k == 0)
  {
    MakeSide(out, { 0 }, {}, false, -1);
    return true;
  }
  return false;
}

/** The name of an entity as vtkIOSSReader gives it: its Exodus name
 *  lower-cased with blanks as '_' (IOSS does so to every entity name), else
 *  `<prefix>_<id>`. */
std::string EntityName(const char* name, const char* prefix, mxn_gid_t id)
{
  if (name && name[0])
  {
    std::string n(name);
    for (char& c : n)
    {
      c = c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return n;
  }
  std::ostringstream s;
  s << prefix << "_" << id;
  return s.str();
}

/** Scalars grouped into one array: its name and the variables (indices in
 *  the Exodus list) that are its components, in order. */
struct VarGroup
{
  std::string name;
  std::vector<int> vars;
};

/**
 * Component suffix lists that make a multi-component array, in component
 * order, compared case-insensitively. These are the composite variable
 * types of SEACAS IOSS (vectors, quaternions, symmetric / full /
 * asymmetric tensors, matrices; Ioss::VariableType and its standard
 * types), which vtkIOSSReader uses to group Exodus variables. Numbered
 * suffixes (`_1 _2 ...`) are not grouped: ParaView 5.11's IOSS reader
 * leaves GroupNumericVectorFieldComponents off.
 */
const std::vector<std::vector<std::string>>& SuffixTypes()
{
  static const std::vector<std::vector<std::string>> types = {
    { "x", "y" },
    { "x", "y", "z" },
    { "s", "q" },
    { "x", "y", "z", "q" },
    { "xx", "yy", "zz", "xy", "yz", "zx", "yx", "zy", "xz" },
    { "xx", "yy", "zz", "xy", "yx" },
    { "xx", "yy", "xy", "yx" },
    { "xx", "xy", "yz", "zx", "yx", "zy", "xz" },
    { "xx", "xy", "yx" },
    { "xx", "yy", "zz", "xy", "yz", "zx" },
    { "xx", "yy", "zz", "xy" },
    { "xx", "yy", "xy" },
    { "xx", "xy", "yz", "zx" },
    { "xx", "xy" },
    { "xy", "yz", "zx" },
    { "xy", "yz" },
    { "xx", "xy", "yx", "yy" },
    { "xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz" },
  };
  return types;
}

bool SameNoCase(const std::string& a, const std::string& b)
{
  return a.size() == b.size() &&
    std::equal(a.begin(), a.end(), b.begin(),
      [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

bool IsSuffixType(const std::vector<std::string>& suffixes)
{
  for (const auto& type : SuffixTypes())
  {
    if (type.size() == suffixes.size() &&
      std::equal(type.begin(), type.end(), suffixes.begin(), SameNoCase))
    {
      return true;
    }
  }
  return false;
}

/**
 * Group the variables `names` (Exodus order) defined on one entity
 * (`defined[v]` != 0, or all when `defined` is null) the way vtkIOSSReader
 * does with its default empty suffix separator: a run of consecutive
 * defined names of equal length sharing a leading part (the first pair's
 * common prefix, no shorter for the others) whose remainders form one of
 * SuffixTypes() becomes one array named after the leading part, without a
 * trailing '_' (`VX VY VZ` -> `V`, `vel_x vel_y vel_z` -> `vel`,
 * `s_xx ... s_zx` -> `s`); any other name is a scalar of its own. A
 * variable named `skip` is left out (element variables: a vtkGhostType
 * stored by `mxn repart --ghosts` says which copy is a ghost in *that*
 * set; this load's own halo decides here).
 */
std::vector<VarGroup> GroupVariables(
  const char (*names)[MXN_NAME_LEN], int n, const int* defined, const char* skip = nullptr)
{
  std::vector<VarGroup> groups;
  auto isDefined = [defined, skip, names](int v)
  { return (!defined || defined[v]) && !(skip && std::strcmp(names[v], skip) == 0); };
  int i = 0;
  while (i < n)
  {
    if (!isDefined(i))
    {
      ++i;
      continue;
    }
    const std::string first = names[i];
    std::vector<int> run{ i };
    size_t lead = 0;
    for (int j = i + 1; j < n && isDefined(j); ++j)
    {
      const std::string other = names[j];
      if (other.size() != first.size())
      {
        break;
      }
      size_t m = 0;
      while (m < first.size() && first[m] == other[m])
      {
        ++m;
      }
      if (m == 0 || m == first.size() || (lead > 0 && m < lead))
      {
        break;
      }
      if (lead == 0)
      {
        lead = m;
      }
      run.push_back(j);
    }
    if (run.size() > 1)
    {
      std::vector<std::string> suffixes;
      for (int v : run)
      {
        suffixes.emplace_back(names[v] + lead);
      }
      if (IsSuffixType(suffixes))
      {
        std::string base = first.substr(0, lead);
        if (base.size() > 1 && base.back() == '_')
        {
          base.pop_back();
        }
        groups.push_back({ base, run });
        i = run.back() + 1;
        continue;
      }
    }
    groups.push_back({ first, { i } });
    ++i;
  }
  return groups;
}

/** Attributes of a block as vtkIOSSReader shows them: `attribute` with
 *  every attribute as a component, then the named attributes grouped like
 *  variables. Entries index the block's attributes. */
std::vector<VarGroup> AttributeGroups(const mxn_block_info_t& b)
{
  std::vector<VarGroup> groups;
  if (b.num_attr <= 0)
  {
    return groups;
  }
  VarGroup all{ "attribute", {} };
  for (int a = 0; a < b.num_attr; ++a)
  {
    all.vars.push_back(a);
  }
  groups.push_back(all);
  if (b.attr_names)
  {
    std::vector<int> named(b.num_attr);
    for (int a = 0; a < b.num_attr; ++a)
    {
      named[a] = b.attr_names[a][0] != '\0';
    }
    for (auto& g : GroupVariables(b.attr_names, b.num_attr, named.data()))
    {
      if (g.name != "attribute")
      {
        groups.push_back(g);
      }
    }
  }
  return groups;
}

/** The storage of an array about to be filled whole backed at once (from
 *  256 KiB; huge pages from MXN_LARGE_BUFFER), before it is first written
 *  (mxn/memory.h: one call, not a page fault per 4 KiB). 1M hex on 4
 *  ranks: about 4k faults a rank fewer, the peak the same. */
void AdviseLarge(vtkDataArray* a)
{
  mxn_advise_whole(a->GetVoidPointer(0),
    static_cast<size_t>(a->GetDataSize()) * static_cast<size_t>(a->GetDataTypeSize()));
}

vtkSmartPointer<vtkIdTypeArray> IdArray(const char* name, vtkIdType n)
{
  auto a = vtkSmartPointer<vtkIdTypeArray>::New();
  a->SetName(name);
  a->SetNumberOfTuples(n);
  AdviseLarge(a);
  return a;
}

vtkSmartPointer<vtkUnsignedCharArray> GhostArray(vtkIdType n)
{
  auto a = vtkSmartPointer<vtkUnsignedCharArray>::New();
  a->SetName(vtkDataSetAttributes::GhostArrayName());
  a->SetNumberOfTuples(n);
  a->FillValue(0);
  return a;
}

const double NaN = std::numeric_limits<double>::quiet_NaN();

/** A named array of `g`'s components for `n` entries, its pages backed. */
vtkSmartPointer<vtkDoubleArray> NewGroupArray(const VarGroup& g, vtkIdType n)
{
  auto a = vtkSmartPointer<vtkDoubleArray>::New();
  a->SetName(g.name.c_str());
  a->SetNumberOfComponents(static_cast<int>(g.vars.size()));
  a->SetNumberOfTuples(n);
  AdviseLarge(a);
  return a;
}

/** An array of `g` components filled by value(component variable, entry)
 *  for `n` entries; a missing component array (NULL) gives NaN. */
template <typename Getter>
vtkSmartPointer<vtkDoubleArray> GroupArray(const VarGroup& g, vtkIdType n, Getter value)
{
  auto a = NewGroupArray(g, n);
  double* out = a->GetPointer(0);
  const size_t nc = g.vars.size();
  for (size_t c = 0; c < nc; ++c)
  {
    for (vtkIdType i = 0; i < n; ++i)
    {
      out[static_cast<size_t>(i) * nc + c] = value(g.vars[c], i);
    }
  }
  return a;
}

/** An array of `g` components for `n` entries, component variable v's
 *  values being column(v)[index[i]] (column(v)[i] without an index); a
 *  missing column (NULL) gives NaN. The values are copied column by
 *  column, a one-component array without index in one memcpy: per step
 *  this is the reader's share of the time. */
template <typename Column>
vtkSmartPointer<vtkDoubleArray> ColumnArray(
  const VarGroup& g, vtkIdType n, Column column, const int64_t* index)
{
  auto a = NewGroupArray(g, n);
  double* out = a->GetPointer(0);
  const size_t nc = g.vars.size();
  for (size_t c = 0; c < nc; ++c)
  {
    const double* vals = column(g.vars[c]);
    double* o = out + c;
    if (!vals)
    {
      for (vtkIdType i = 0; i < n; ++i)
      {
        o[static_cast<size_t>(i) * nc] = NaN;
      }
    }
    else if (index)
    {
      for (vtkIdType i = 0; i < n; ++i)
      {
        o[static_cast<size_t>(i) * nc] = vals[index[i]];
      }
    }
    else if (nc == 1)
    {
      std::memcpy(out, vals, static_cast<size_t>(n) * sizeof(double));
    }
    else
    {
      for (vtkIdType i = 0; i < n; ++i)
      {
        o[static_cast<size_t>(i) * nc] = vals[i];
      }
    }
  }
  return a;
}

// Connectivity and ids handed over by the core become vtkIdType arrays as
// they are.
static_assert(sizeof(vtkIdType) == sizeof(int64_t) && sizeof(mxn_gid_t) == sizeof(int64_t),
  "vtkIdType must be 64-bit (VTK_USE_64BIT_IDS)");
}

//----------------------------------------------------------------------------
namespace
{
/** An element block's grid structure as built for one piece (points,
 *  cells, global and object ids, vtkGhostType) and the piece node of each
 *  point: further time steps of the same piece share it and build only
 *  their field arrays. */
struct BlockTopology
{
  vtkSmartPointer<vtkUnstructuredGrid> Grid;
  std::vector<int64_t> Used;
  // The block's connectivity and element ids when the load handed them
  // over to Grid's arrays (mxn_load_take_block), else null: side sets
  // selected later still read them here.
  const int64_t* Conn = nullptr;
  const mxn_gid_t* ElemIds = nullptr;
};

/** A member file as it was when opened: a simulation still writing, or a
 *  set written anew, changes size or modification time. */
struct MemberStamp
{
  std::string Path;
  long long Size = -1;
  long long MTimeNs = -1;

  bool operator==(const MemberStamp& o) const
  {
    return Path == o.Path && Size == o.Size && MTimeNs == o.MTimeNs;
  }
};

MemberStamp StampOf(const std::string& path)
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

/** This process's share of an open dataset's members, stamped now: on N
 *  ranks rank r takes members [r M / N, (r + 1) M / N), the split the
 *  collective open reads the headers by, so a pass costs each rank
 *  ceil(M / N) stats rather than M (1024 members on 1024 ranks: a
 *  thousand stats on the file system's metadata server, not a million)
 *  and the ranks agree on the answer (MPI_MIN). One process stamps all. */
std::vector<MemberStamp> StampMembers(const mxn_dataset_t* ds, int rank, int nranks)
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

/** True if every member this process stamped is still as it was (a rank
 *  with no share, M < N, has nothing to check). */
bool MembersUnchanged(const std::vector<MemberStamp>& stamps)
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
}

/**
 * The open load and what it was opened with. The same options reuse it, so
 * a new time step only reads that step's fields; anything else re-opens.
 */
struct vtkMxNReader::LoadCache
{
  struct Key
  {
    std::string FileName;
    int Method = -1;
    int NumberOfPieces = 0;
    bool World = false;
    std::vector<int> PieceOfRank; // the piece each rank asked for
    int GhostLevels = 0;
    std::string WeightField;
    double Tolerance = 0;
    bool Dynamic = false; // re-balanced every step (mxn_load_rebalance)
    int Cost = 0;         // vtkMxNReader::LoadBalanceCosts
    std::vector<int> Blocks, NodeVars, ElemVars;

    bool operator==(const Key& o) const
    {
      return FileName == o.FileName && Method == o.Method &&
        NumberOfPieces == o.NumberOfPieces && World == o.World && PieceOfRank == o.PieceOfRank &&
        GhostLevels == o.GhostLevels && WeightField == o.WeightField &&
        Tolerance == o.Tolerance && Dynamic == o.Dynamic && Cost == o.Cost && Blocks == o.Blocks &&
        NodeVars == o.NodeVars && ElemVars == o.ElemVars;
    }
  };

  mxn_load_t* Load = nullptr;
  Key Opened;
  int Rank = 0; // this rank in the load's communicator
  // With Dynamic: the step the partition was last balanced for, and how.
  int BalancedStep = -1;
  mxn_rebalance_report_t Report{};
  // With Cost == MEASURED_TIME: when the last RequestData ended, and what
  // the last re-balance was weighed by and this rank's time it used.
  bool Ended = false;
  std::chrono::steady_clock::time_point LastEnd;
  std::string CostSource;
  double MeasuredSeconds = -1;
  // Per element block, the structure built for the current piece (see
  // BlockTopology). Emptied whenever the piece changes (a new load, a
  // re-balance).
  std::vector<BlockTopology> Topologies;

  // The dataset the last information pass opened, until a load takes it
  // over (mxn_load_open_dataset), so the members are opened once for both;
  // the file it is of, whether it was opened over the MPI job's ranks, and
  // the members' stamps at that open. The next pass reuses that structure
  // (from this dataset or the load that took it) while the stamps hold.
  mxn_dataset_t* InfoDataset = nullptr;
  std::string InfoFile;
  bool InfoWorld = false;
  std::vector<MemberStamp> InfoStamps;

  void CloseInfo()
  {
    mxn_dataset_destroy(&this->InfoDataset);
    this->InfoFile.clear();
    this->InfoWorld = false;
    this->InfoStamps.clear();
  }

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
    this->Opened = Key();
    this->Rank = 0;
    this->BalancedStep = -1;
    this->Report = mxn_rebalance_report_t{};
    this->Ended = false;
    this->CostSource.clear();
    this->MeasuredSeconds = -1;
    this->Topologies.clear();
  }
  ~LoadCache()
  {
    this->Close();
    this->CloseInfo();
  }
};

//----------------------------------------------------------------------------
struct vtkMxNReader::Catalog
{
  std::vector<std::string> BlockNames;
  int NumNodeVars = 0, NumElemVars = 0;
  std::vector<VarGroup> NodeGroups;
  std::vector<std::vector<VarGroup>> ElemGroups; // per block
};

//----------------------------------------------------------------------------
vtkMxNReader::vtkMxNReader()
  : ElementBlockSelection(vtkDataArraySelection::New())
  , NodeSetSelection(vtkDataArraySelection::New())
  , SideSetSelection(vtkDataArraySelection::New())
  , PointArraySelection(vtkDataArraySelection::New())
  , CellArraySelection(vtkDataArraySelection::New())
  , SelectionObserver(vtkCallbackCommand::New())
  , Cache(new LoadCache)
  , Info(new Catalog)
{
  this->SetNumberOfInputPorts(0);
  this->SelectionObserver->SetCallback(&vtkMxNReader::SelectionModifiedCallback);
  this->SelectionObserver->SetClientData(this);
  for (auto* sel : { this->ElementBlockSelection, this->NodeSetSelection,
         this->SideSetSelection, this->PointArraySelection, this->CellArraySelection })
  {
    sel->AddObserver(vtkCommand::ModifiedEvent, this->SelectionObserver);
  }
}

//----------------------------------------------------------------------------
vtkMxNReader::~vtkMxNReader()
{
  this->SetFileName(nullptr);
  this->SetLoadBalanceField(nullptr);
  for (auto* sel : { this->ElementBlockSelection, this->NodeSetSelection,
         this->SideSetSelection, this->PointArraySelection, this->CellArraySelection })
  {
    sel->RemoveObserver(this->SelectionObserver);
    sel->Delete();
  }
  this->SelectionObserver->Delete();
  delete this->Cache;
  delete this->Info;
}

//----------------------------------------------------------------------------
void vtkMxNReader::SelectionModifiedCallback(vtkObject*, unsigned long, void* clientdata, void*)
{
  auto* self = static_cast<vtkMxNReader*>(clientdata);
  if (!self->FillingSelections)
  {
    self->Modified();
  }
}

//----------------------------------------------------------------------------
// The selection accessors ParaView's ArraySelectionInformationHelper calls
// (attribute names ElementBlock, NodeSet, SideSet, Point, Cell).
#define MXN_SELECTION_ACCESSORS(Name, member)                                                    \
  int vtkMxNReader::GetNumberOf##Name##Arrays() { return this->member->GetNumberOfArrays(); }   \
  const char* vtkMxNReader::Get##Name##ArrayName(int index)                                     \
  {                                                                                              \
    return this->member->GetArrayName(index);                                                    \
  }                                                                                              \
  int vtkMxNReader::Get##Name##ArrayStatus(const char* name)                                    \
  {                                                                                              \
    return this->member->ArrayIsEnabled(name);                                                   \
  }                                                                                              \
  void vtkMxNReader::Set##Name##ArrayStatus(const char* name, int status)                       \
  {                                                                                              \
    this->member->SetArraySetting(name, status);                                                 \
  }
MXN_SELECTION_ACCESSORS(ElementBlock, ElementBlockSelection)
MXN_SELECTION_ACCESSORS(NodeSet, NodeSetSelection)
MXN_SELECTION_ACCESSORS(SideSet, SideSetSelection)
MXN_SELECTION_ACCESSORS(Point, PointArraySelection)
MXN_SELECTION_ACCESSORS(Cell, CellArraySelection)
#undef MXN_SELECTION_ACCESSORS

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

namespace
{
/** Names offered by the selections of a structure, in file order. */
struct SelectionNames
{
  std::vector<std::string> Blocks, NodeSets, SideSets, Points, Cells;
};

SelectionNames NamesOf(const mxn_structure_t* s)
{
  SelectionNames n;
  std::set<std::string> seen;
  for (int b = 0; b < s->num_blocks; ++b)
  {
    n.Blocks.push_back(EntityName(s->blocks[b].name, "block", s->blocks[b].id));
    const int* truth = s->elem_var_truth ? s->elem_var_truth + b * s->num_elem_vars : nullptr;
    std::vector<VarGroup> groups = GroupVariables(s->elem_var_names, s->num_elem_vars, truth, MXN_GHOST_VAR);
    for (auto& g : AttributeGroups(s->blocks[b]))
    {
      groups.push_back(g);
    }
    for (auto& g : groups)
    {
      if (seen.insert(g.name).second)
      {
        n.Cells.push_back(g.name);
      }
    }
  }
  for (int q = 0; q < s->num_node_sets; ++q)
  {
    n.NodeSets.push_back(EntityName(s->node_sets[q].name, "nodelist", s->node_sets[q].id));
  }
  for (int q = 0; q < s->num_side_sets; ++q)
  {
    n.SideSets.push_back(EntityName(s->side_sets[q].name, "surface", s->side_sets[q].id));
  }
  for (auto& g : GroupVariables(s->node_var_names, s->num_node_vars, nullptr))
  {
    n.Points.push_back(g.name);
  }
  // A set written with ghost copies (mxn repart --ghosts) stores
  // vtkGhostType as a variable; the reader's own halo decides instead.
  for (auto* names : { &n.Points, &n.Cells })
  {
    names->erase(std::remove(names->begin(), names->end(), MXN_GHOST_VAR), names->end());
  }
  return n;
}

/** Make `sel` hold exactly `names`: known names keep their state, new ones
 *  get `def`. */
void SyncSelection(vtkDataArraySelection* sel, const std::vector<std::string>& names, bool def)
{
  std::map<std::string, int> old;
  for (int i = 0; i < sel->GetNumberOfArrays(); ++i)
  {
    old[sel->GetArrayName(i)] = sel->GetArraySetting(i);
  }
  std::vector<std::string> current;
  for (int i = 0; i < sel->GetNumberOfArrays(); ++i)
  {
    current.emplace_back(sel->GetArrayName(i));
  }
  if (current == names)
  {
    return;
  }
  sel->RemoveAllArrays();
  for (const auto& name : names)
  {
    auto it = old.find(name);
    sel->AddArray(name.c_str(), it != old.end() ? it->second != 0 : def);
  }
}
}

//----------------------------------------------------------------------------
int vtkMxNReader::RequestInformation(
  vtkInformation*, vtkInformationVector**, vtkInformationVector* outputVector)
{
  vtkInformation* outInfo = outputVector->GetInformationObject(0);
  this->TimeSteps.clear();
  outInfo->Remove(vtkStreamingDemandDrivenPipeline::TIME_STEPS());
  outInfo->Remove(vtkStreamingDemandDrivenPipeline::TIME_RANGE());

  if (!this->FileName || !this->FileName[0])
  {
    vtkErrorMacro("No FileName set.");
    return 0;
  }

  // The structure. On N MPI ranks (pvserver, pvbatch) every rank runs this
  // pass, so the ranks share the member headers out (each opens ceil(M/N)
  // of them) and exchange summaries; one process reads them all.
  int worldSize = 1;
  const MPI_Comm worldComm = WorldComm(&worldSize);
  const bool haveWorld = worldComm != MPI_COMM_NULL && worldSize > 1;
  LoadCache& cache = *this->Cache;

  // A pass over the same, unchanged members (the pipeline runs this pass
  // again whenever a property changes) takes the structure it read last
  // time; every rank decides alike.
  const mxn_structure_t* s = nullptr;
  {
    const bool have = cache.InfoFile == this->FileName && cache.InfoWorld == haveWorld &&
      (cache.InfoDataset || (cache.Load && cache.Opened.FileName == this->FileName));
    int reuse = have && MembersUnchanged(cache.InfoStamps) ? 1 : 0;
    if (haveWorld)
    {
      MPI_Allreduce(MPI_IN_PLACE, &reuse, 1, MPI_INT, MPI_MIN, worldComm);
    }
    if (reuse)
    {
      s = cache.InfoDataset ? mxn_dataset_structure(cache.InfoDataset)
                            : mxn_load_structure(cache.Load);
    }
    else if (cache.Load && cache.Opened.FileName == this->FileName)
    {
      cache.Close(); // its members changed on disk: load them anew
    }
  }
  if (!s)
  {
    cache.CloseInfo();
    DatasetHandle h;
    int status = mxn_dataset_create(&h.ds);
    mxn_error_t err;
    mxn_error_clear(&err);
    if (haveWorld)
    {
      // every rank takes part, even one whose dataset handle failed: the
      // collective open agrees on the error
      status = mxn_dataset_open_collective(
        worldComm, status == MXN_OK ? h.ds : nullptr, this->FileName, &err);
    }
    else if (status == MXN_OK)
    {
      status = mxn_dataset_open(h.ds, this->FileName);
      if (status != MXN_OK)
      {
        mxn_error_set(&err, status, "%s", mxn_dataset_errmsg(h.ds));
      }
    }
    if (status != MXN_OK)
    {
      vtkErrorMacro("Cannot open Exodus II dataset '"
        << this->FileName << "': " << mxn_strerror(status) << ": "
        << (err.msg[0] ? err.msg : "out of memory"));
      return 0;
    }
    int worldRank = 0;
    if (haveWorld)
    {
      MPI_Comm_rank(worldComm, &worldRank);
    }
    cache.InfoStamps = StampMembers(h.ds, worldRank, haveWorld ? worldSize : 1);
    cache.InfoDataset = h.ds;
    h.ds = nullptr;
    cache.InfoFile = this->FileName;
    cache.InfoWorld = haveWorld;
    s = mxn_dataset_structure(cache.InfoDataset);
  }
  if (s && s->num_times > 0)
  {
    this->TimeSteps.assign(s->times, s->times + s->num_times);
  }

  // Selections follow the file's entities and variables; a new file keeps
  // the states of names it shares with the previous one.
  if (s)
  {
    const SelectionNames names = NamesOf(s);
    this->FillingSelections = true;
    SyncSelection(this->ElementBlockSelection, names.Blocks, true);
    SyncSelection(this->NodeSetSelection, names.NodeSets, false);
    SyncSelection(this->SideSetSelection, names.SideSets, false);
    SyncSelection(this->PointArraySelection, names.Points, true);
    SyncSelection(this->CellArraySelection, names.Cells, true);
    this->FillingSelections = false;
    this->InformationFileName = this->FileName;

    Catalog& c = *this->Info;
    c = Catalog();
    c.BlockNames = names.Blocks;
    c.NumNodeVars = s->num_node_vars;
    c.NumElemVars = s->num_elem_vars;
    c.NodeGroups = GroupVariables(s->node_var_names, s->num_node_vars, nullptr);
    for (int b = 0; b < s->num_blocks; ++b)
    {
      const int* truth = s->elem_var_truth ? s->elem_var_truth + b * s->num_elem_vars : nullptr;
      c.ElemGroups.push_back(GroupVariables(s->elem_var_names, s->num_elem_vars, truth, MXN_GHOST_VAR));
    }
  }

  if (!this->TimeSteps.empty())
  {
    // A mesh without results has no time, so downstream does not animate.
    outInfo->Set(vtkStreamingDemandDrivenPipeline::TIME_STEPS(), this->TimeSteps.data(),
      static_cast<int>(this->TimeSteps.size()));
    double range[2] = { this->TimeSteps.front(), this->TimeSteps.back() };
    outInfo->Set(vtkStreamingDemandDrivenPipeline::TIME_RANGE(), range, 2);
  }

  // Every rank reads its own balanced piece (the whole point of MxN).
  outInfo->Set(vtkAlgorithm::CAN_HANDLE_PIECE_REQUEST(), 1);
  return 1;
}
namespace
{
/**
 * Converts one rank's piece into the grids of the collection. Every grid
 * has the piece nodes it uses as points (ascending piece order), with the
 * point arrays of the selected nodal variables.
 */
struct PieceConverter
{
  const mxn_structure_t* S;
  const mxn_piece_t* P;
  const mxn_load_halo_t* Halo; // null without ghost layers
  int Rank;
  // The load whose blocks' connectivity and element ids may be handed over
  // to the grids' arrays (mxn_load_take_block), or null to copy them.
  mxn_load_t* Give;
  std::vector<VarGroup> NodeGroups; // selected ones
  // piece node -> grid point, -1 if unused: made on first use (Local()),
  // since a time step that reuses the grids' topology needs none
  std::vector<vtkIdType> LocalIndex;
  std::vector<int64_t> BlockStart;   // first concatenated element index per block
  // Each block's connectivity and element ids: the piece's, or where a
  // grid of an earlier request owns them since the load handed them over
  // (the piece's pointers are null then).
  std::vector<const int64_t*> Conn;
  std::vector<const mxn_gid_t*> ElemIds;
  bool HaveFields;
  std::string Error;

  PieceConverter(const mxn_structure_t* s, const mxn_piece_t* p, const mxn_load_halo_t* halo,
    int rank, vtkDataArraySelection* points, mxn_load_t* give,
    const std::vector<BlockTopology>& topos)
    : S(s)
    , P(p)
    , Halo(halo)
    , Rank(rank)
    , Give(give)
    , HaveFields(p->step >= 0)
  {
    for (int b = 0; b < p->num_blocks; ++b)
    {
      const bool kept = b < static_cast<int>(topos.size()) && topos[b].Conn;
      this->Conn.push_back(kept ? topos[b].Conn : p->blocks[b].conn);
      this->ElemIds.push_back(kept ? topos[b].ElemIds : p->blocks[b].elem_ids);
    }
    for (auto& g : GroupVariables(s->node_var_names, s->num_node_vars, nullptr))
    {
      // (a stored vtkGhostType is never in the selection: see NamesOf)
      if (points->ArrayIsEnabled(g.name.c_str()) && g.name != MXN_GHOST_VAR)
      {
        this->NodeGroups.push_back(g);
      }
    }
    int64_t at = 0;
    for (int b = 0; b < p->num_blocks; ++b)
    {
      this->BlockStart.push_back(at);
      at += p->blocks[b].num_elements;
    }
    this->BlockStart.push_back(at);
  }

  std::vector<vtkIdType>& Local()
  {
    if (this->LocalIndex.empty())
    {
      this->LocalIndex.assign(static_cast<size_t>(this->P->num_nodes), -1);
    }
    return this->LocalIndex;
  }

  /** Points of the grid: the piece nodes flagged in LocalIndex (>= 0),
   *  numbered in piece order; returns them. Resets LocalIndex to those
   *  numbers. */
  std::vector<int64_t> NumberUsedNodes()
  {
    std::vector<vtkIdType>& local = this->Local();
    std::vector<int64_t> used;
    for (int64_t n = 0; n < this->P->num_nodes; ++n)
    {
      if (local[n] >= 0)
      {
        local[n] = static_cast<vtkIdType>(used.size());
        used.push_back(n);
      }
    }
    return used;
  }

  void ClearUsed(const std::vector<int64_t>& used)
  {
    std::vector<vtkIdType>& local = this->Local();
    for (int64_t n : used)
    {
      local[n] = -1;
    }
  }

  /** The selected nodal variables of the piece nodes `used`, as point
   *  arrays. */
  void AddPointFields(vtkPointData* pd, const std::vector<int64_t>& used)
  {
    const mxn_piece_t* p = this->P;
    const vtkIdType npts = static_cast<vtkIdType>(used.size());
    if (!this->HaveFields)
    {
      return;
    }
    for (const auto& g : this->NodeGroups)
    {
      pd->AddArray(ColumnArray(
        g, npts,
        [&](int v) -> const double* {
          return v < p->plan_num_node_vars && p->node_vars ? p->node_vars[v] : nullptr;
        },
        used.data()));
    }
  }

  /** Block b's selected element variables and attributes, as cell arrays. */
  void AddCellFields(vtkCellData* cd, int b, vtkDataArraySelection* cellSel)
  {
    const mxn_structure_t* s = this->S;
    const mxn_block_info_t& bi = s->blocks[b];
    const mxn_piece_block_t& pb = this->P->blocks[b];
    const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);
    if (this->HaveFields)
    {
      const int* truth = s->elem_var_truth ? s->elem_var_truth + b * s->num_elem_vars : nullptr;
      for (const auto& g : GroupVariables(s->elem_var_names, s->num_elem_vars, truth, MXN_GHOST_VAR))
      {
        if (cellSel->ArrayIsEnabled(g.name.c_str()) && g.name != MXN_GHOST_VAR)
        {
          cd->AddArray(ColumnArray(
            g, ncells,
            [&](int v) -> const double* {
              return v < this->P->plan_num_elem_vars && pb.elem_vars ? pb.elem_vars[v] : nullptr;
            },
            nullptr));
        }
      }
    }
    for (const auto& g : AttributeGroups(bi))
    {
      if (cellSel->ArrayIsEnabled(g.name.c_str()))
      {
        cd->AddArray(GroupArray(g, ncells, [&](int a, vtkIdType e) {
          return pb.attr ? pb.attr[e * bi.num_attr + a] : NaN;
        }));
      }
    }
  }

  /** A grid with the piece nodes `used` as points: coordinates, `ids` and,
   *  with a halo, vtkGhostType (no field arrays: AddPointFields). */
  vtkSmartPointer<vtkUnstructuredGrid> PointGrid(const std::vector<int64_t>& used)
  {
    const mxn_piece_t* p = this->P;
    const vtkIdType npts = static_cast<vtkIdType>(used.size());
    auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
    vtkNew<vtkDoubleArray> xyz;
    xyz->SetNumberOfComponents(3);
    xyz->SetNumberOfTuples(npts);
    AdviseLarge(xyz);
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

    vtkPointData* pd = grid->GetPointData();
    auto ids = IdArray("ids", npts);
    for (vtkIdType i = 0; i < npts; ++i)
    {
      ids->SetValue(i, static_cast<vtkIdType>(p->node_ids[used[i]]));
    }
    pd->SetGlobalIds(ids);
    pd->SetPedigreeIds(ids);
    if (this->Halo && this->Halo->node_owner)
    {
      auto ghost = GhostArray(npts);
      for (vtkIdType i = 0; i < npts; ++i)
      {
        if (this->Halo->node_owner[used[i]] != this->Rank)
        {
          ghost->SetValue(i, vtkDataSetAttributes::DUPLICATEPOINT);
        }
      }
      pd->AddArray(ghost);
    }
    return grid;
  }

  /** Element block b with the selected element variables and attributes.
   *  With `topo`: its structure is taken from there when it holds one (a
   *  further time step of the same piece), else saved there. */
  vtkSmartPointer<vtkUnstructuredGrid> Block(int b, const CellMapping& map,
    vtkDataArraySelection* cellSel, BlockTopology* topo)
  {
    if (topo && topo->Grid)
    {
      auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
      grid->CopyStructure(topo->Grid); // the same points and cells
      grid->GetPointData()->ShallowCopy(topo->Grid->GetPointData());
      grid->GetCellData()->ShallowCopy(topo->Grid->GetCellData());
      this->AddPointFields(grid->GetPointData(), topo->Used);
      this->AddCellFields(grid->GetCellData(), b, cellSel);
      return grid;
    }
    const mxn_structure_t* s = this->S;
    const mxn_block_info_t& bi = s->blocks[b];
    const mxn_piece_block_t& pb = this->P->blocks[b];
    const int npe = bi.nodes_per_elem;
    const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);
    // Poly blocks list their nodes by offsets (a polyhedron's: the distinct
    // nodes of its faces).
    const int64_t nconn = pb.conn_off ? pb.conn_off[pb.num_elements] : pb.num_elements * npe;
    mxn_gid_t* givenIds = nullptr; // the element ids, if handed over with the connectivity
    std::vector<vtkIdType>& local = this->Local();

    for (int64_t k = 0; k < nconn; ++k)
    {
      const int64_t c = pb.conn[k];
      if (c < 0 || c >= this->P->num_nodes)
      {
        std::ostringstream m;
        m << "element block " << bi.id << " refers to local node " << c << " of "
          << this->P->num_nodes;
        this->Error = m.str();
        for (int64_t j = 0; j < k; ++j)
        {
          local[pb.conn[j]] = -1;
        }
        return nullptr;
      }
      local[c] = 0;
    }
    const std::vector<int64_t> used = this->NumberUsedNodes();
    auto grid = this->PointGrid(used);

    if (ncells > 0 && bi.poly == MXN_POLY_NSIDED)
    {
      auto offsets = vtkSmartPointer<vtkIdTypeArray>::New();
      auto conn = vtkSmartPointer<vtkIdTypeArray>::New();
      offsets->SetNumberOfTuples(ncells + 1);
      conn->SetNumberOfTuples(static_cast<vtkIdType>(nconn));
      AdviseLarge(offsets);
      AdviseLarge(conn);
      for (vtkIdType e = 0; e <= ncells; ++e)
      {
        offsets->SetValue(e, static_cast<vtkIdType>(pb.conn_off[e]));
      }
      for (int64_t k = 0; k < nconn; ++k)
      {
        conn->SetValue(static_cast<vtkIdType>(k), local[pb.conn[k]]);
      }
      vtkNew<vtkCellArray> cells;
      cells->SetData(offsets, conn);
      grid->SetCells(VTK_POLYGON, cells);
    }
    else if (ncells > 0 && bi.poly == MXN_POLY_NFACED)
    {
      // Face streams: each face's nodes as the face block stores them.
      std::vector<int64_t> fstart(this->P->num_face_blocks + 1, 0);
      for (int fb = 0; fb < this->P->num_face_blocks; ++fb)
      {
        fstart[fb + 1] = fstart[fb] + this->P->face_blocks[fb].num_elements;
      }
      grid->Allocate(ncells);
      std::vector<vtkIdType> pts, stream;
      for (vtkIdType e = 0; e < ncells; ++e)
      {
        pts.clear();
        stream.clear();
        for (int64_t c = pb.conn_off[e]; c < pb.conn_off[e + 1]; ++c)
        {
          pts.push_back(local[pb.conn[c]]);
        }
        const int64_t nf = pb.face_off[e + 1] - pb.face_off[e];
        for (int64_t x = pb.face_off[e]; x < pb.face_off[e + 1]; ++x)
        {
          const int64_t face = pb.face_conn[x];
          const int fb = static_cast<int>(
            std::upper_bound(fstart.begin() + 1, fstart.end(), face) - (fstart.begin() + 1));
          const mxn_piece_block_t& pf = this->P->face_blocks[fb];
          const int fnpe = s->face_blocks[fb].nodes_per_elem;
          const int64_t fk = face - fstart[fb];
          const int64_t a = pf.conn_off ? pf.conn_off[fk] : fk * fnpe;
          const int64_t z = pf.conn_off ? pf.conn_off[fk + 1] : a + fnpe;
          stream.push_back(static_cast<vtkIdType>(z - a));
          for (int64_t c = a; c < z; ++c)
          {
            stream.push_back(local[pf.conn[c]]);
          }
        }
        grid->InsertNextCell(VTK_POLYHEDRON, static_cast<vtkIdType>(pts.size()), pts.data(),
          static_cast<vtkIdType>(nf), stream.data());
      }
    }
    else if (ncells > 0)
    {
      auto conn = vtkSmartPointer<vtkIdTypeArray>::New();
      // A block whose grid has every piece node as its points, in piece
      // order (one block, or one that reaches every node), with VTK's node
      // order: its connectivity is already the grid's, and the load hands
      // it over (with the element ids) instead of it being copied.
      int64_t* given = nullptr;
      if (this->Give && map.order.empty() &&
        static_cast<int64_t>(used.size()) == this->P->num_nodes &&
        mxn_load_take_block(this->Give, b, &given, &givenIds) == MXN_OK)
      {
        conn->SetArray(reinterpret_cast<vtkIdType*>(given), ncells * npe, 0,
          vtkAbstractArray::VTK_DATA_ARRAY_FREE);
      }
      else
      {
        conn->SetNumberOfTuples(ncells * npe);
        AdviseLarge(conn);
        vtkIdType* out = conn->GetPointer(0);
        for (vtkIdType e = 0; e < ncells; ++e)
        {
          const int64_t* in = pb.conn + e * npe;
          for (int k = 0; k < npe; ++k)
          {
            out[e * npe + k] = local[in[map.order.empty() ? k : map.order[k]]];
          }
        }
      }
      vtkNew<vtkCellArray> cells;
      cells->SetData(npe, conn);
      grid->SetCells(map.vtkType, cells);
    }
    else
    {
      // An empty grid still carries the arrays, so that every rank offers
      // the same arrays.
      vtkNew<vtkCellArray> cells;
      grid->SetCells(VTK_EMPTY_CELL, cells);
    }
    this->ClearUsed(used);

    vtkCellData* cd = grid->GetCellData();
    vtkSmartPointer<vtkIdTypeArray> ids;
    if (givenIds)
    {
      ids = vtkSmartPointer<vtkIdTypeArray>::New();
      ids->SetName("ids");
      ids->SetArray(reinterpret_cast<vtkIdType*>(givenIds), ncells, 0,
        vtkAbstractArray::VTK_DATA_ARRAY_FREE);
    }
    else
    {
      ids = IdArray("ids", ncells);
      for (vtkIdType e = 0; e < ncells; ++e)
      {
        ids->SetValue(e, static_cast<vtkIdType>(pb.elem_ids[e]));
      }
    }
    auto oids = IdArray("object_id", ncells);
    oids->FillValue(static_cast<vtkIdType>(bi.id));
    cd->SetGlobalIds(ids);
    cd->SetPedigreeIds(ids);
    cd->AddArray(oids);
    if (this->Halo && this->Halo->elem_depth)
    {
      auto ghost = GhostArray(ncells);
      const unsigned char* depth = this->Halo->elem_depth[b];
      for (vtkIdType e = 0; depth && e < ncells; ++e)
      {
        if (depth[e] > 0)
        {
          ghost->SetValue(e, vtkDataSetAttributes::DUPLICATECELL);
        }
      }
      cd->AddArray(ghost);
    }
    if (topo)
    {
      topo->Grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
      topo->Grid->CopyStructure(grid);
      topo->Grid->GetPointData()->ShallowCopy(grid->GetPointData());
      topo->Grid->GetCellData()->ShallowCopy(cd);
      topo->Used = used;
      if (givenIds)
      {
        topo->Conn = this->Conn[b];
        topo->ElemIds = givenIds;
      }
    }
    this->AddPointFields(grid->GetPointData(), used);
    this->AddCellFields(cd, b, cellSel);
    return grid;
  }

  /** Set variables of set q of a kind, as cell arrays of n entries. */
  void SetVariables(vtkCellData* cd, const mxn_var_list_t& list, int q, const mxn_piece_set_t& ps)
  {
    if (!this->HaveFields || list.num <= 0)
    {
      return;
    }
    const int* truth = list.truth ? list.truth + q * list.num : nullptr;
    for (const auto& g : GroupVariables(list.names, list.num, truth))
    {
      cd->AddArray(ColumnArray(
        g, static_cast<vtkIdType>(ps.n),
        [&](int v) -> const double* { return v < ps.num_vars && ps.vars ? ps.vars[v] : nullptr; },
        nullptr));
    }
  }

  /** Node set q: one vertex per node of the set on this piece. */
  vtkSmartPointer<vtkUnstructuredGrid> NodeSet(int q)
  {
    std::vector<vtkIdType>& local = this->Local();
    const mxn_set_info_t& si = this->S->node_sets[q];
    const mxn_piece_set_t& ps = this->P->node_sets[q];
    for (int64_t i = 0; i < ps.n; ++i)
    {
      if (ps.entries[i] < 0 || ps.entries[i] >= this->P->num_nodes)
      {
        std::ostringstream m;
        m << "node set " << si.id << " refers to local node " << ps.entries[i] << " of "
          << this->P->num_nodes;
        this->Error = m.str();
        return nullptr;
      }
    }
    // Points in set order (a node listed twice is one point, two vertices).
    std::vector<int64_t> used;
    for (int64_t i = 0; i < ps.n; ++i)
    {
      if (local[ps.entries[i]] < 0)
      {
        local[ps.entries[i]] = static_cast<vtkIdType>(used.size());
        used.push_back(ps.entries[i]);
      }
    }
    auto grid = this->PointGrid(used);
    this->AddPointFields(grid->GetPointData(), used);
    const vtkIdType n = static_cast<vtkIdType>(ps.n);
    auto conn = vtkSmartPointer<vtkIdTypeArray>::New();
    conn->SetNumberOfTuples(n);
    for (vtkIdType i = 0; i < n; ++i)
    {
      conn->SetValue(i, local[ps.entries[i]]);
    }
    this->ClearUsed(used);
    vtkNew<vtkCellArray> cells;
    cells->SetData(1, conn);
    grid->SetCells(n > 0 ? VTK_VERTEX : VTK_EMPTY_CELL, cells);

    vtkCellData* cd = grid->GetCellData();
    this->SetVariables(cd, this->S->node_set_vars, q, ps);
    auto oids = IdArray("object_id", n);
    oids->FillValue(static_cast<vtkIdType>(si.id));
    cd->AddArray(oids);
    if (this->Halo && this->Halo->node_owner)
    {
      auto ghost = GhostArray(n);
      for (vtkIdType i = 0; i < n; ++i)
      {
        if (this->Halo->node_owner[ps.entries[i]] != this->Rank)
        {
          ghost->SetValue(i, vtkDataSetAttributes::DUPLICATECELL);
        }
      }
      cd->AddArray(ghost);
    }
    return grid;
  }

  /** Side `side` (1-based) of entry e of poly block b as piece node
   *  indices: a polygon's edge (2D) or a polyhedron's face. */
  bool PolySide(int b, int64_t e, int side, SideShape& out)
  {
    const mxn_structure_t* s = this->S;
    const mxn_piece_block_t& pb = this->P->blocks[b];
    out.nodes.clear();
    if (s->blocks[b].poly == MXN_POLY_NSIDED)
    {
      const int64_t n = pb.conn_off[e + 1] - pb.conn_off[e];
      if (s->num_dim != 2 || side < 1 || side > n)
      {
        return false;
      }
      out.vtkType = VTK_LINE;
      out.nodes.push_back(static_cast<int>(pb.conn[pb.conn_off[e] + side - 1]));
      out.nodes.push_back(static_cast<int>(pb.conn[pb.conn_off[e] + side % n]));
      return true;
    }
    if (side < 1 || side > pb.face_off[e + 1] - pb.face_off[e])
    {
      return false;
    }
    int64_t face = pb.face_conn[pb.face_off[e] + side - 1];
    int fb = 0;
    while (fb < this->P->num_face_blocks && face >= this->P->face_blocks[fb].num_elements)
    {
      face -= this->P->face_blocks[fb].num_elements;
      ++fb;
    }
    if (fb == this->P->num_face_blocks)
    {
      return false;
    }
    const mxn_piece_block_t& pf = this->P->face_blocks[fb];
    const int fnpe = s->face_blocks[fb].nodes_per_elem;
    const int64_t a = pf.conn_off ? pf.conn_off[face] : face * fnpe;
    const int64_t z = pf.conn_off ? pf.conn_off[face + 1] : a + fnpe;
    out.vtkType = z - a == 3 ? VTK_TRIANGLE : z - a == 4 ? VTK_QUAD : VTK_POLYGON;
    for (int64_t c = a; c < z; ++c)
    {
      out.nodes.push_back(static_cast<int>(pf.conn[c]));
    }
    return true;
  }

  /** Side set q: one face (3D) or edge (2D, shell edges) per side, built
   *  from the element's topology. */
  vtkSmartPointer<vtkUnstructuredGrid> SideSet(int q)
  {
    std::vector<vtkIdType>& local = this->Local();
    const mxn_structure_t* s = this->S;
    const mxn_set_info_t& si = s->side_sets[q];
    const mxn_piece_set_t& ps = this->P->side_sets[q];
    const int64_t numElems = this->BlockStart.back();
    std::vector<SideShape> shapes(static_cast<size_t>(ps.n));
    std::vector<int> blockOf(static_cast<size_t>(ps.n));
    std::vector<std::string> types(s->num_blocks);
    for (int b = 0; b < s->num_blocks; ++b)
    {
      types[b] = UpperType(s->blocks[b].type);
    }
    for (int64_t i = 0; i < ps.n; ++i)
    {
      const int64_t g = ps.entries[i];
      const int side = ps.sides ? ps.sides[i] : 0;
      if (g < 0 || g >= numElems)
      {
        std::ostringstream m;
        m << "side set " << si.id << " refers to local element " << g << " of " << numElems;
        this->Error = m.str();
        return nullptr;
      }
      const int b = static_cast<int>(
        std::upper_bound(this->BlockStart.begin(), this->BlockStart.end(), g) -
        this->BlockStart.begin() - 1);
      const int64_t e = g - this->BlockStart[b];
      const mxn_block_info_t& bi = s->blocks[b];
      if (bi.poly)
      {
        // A polygon's side k: its edge from node k to k+1; a polyhedron's:
        // its k-th face. Piece node indices straight away.
        if (!this->PolySide(b, e, side, shapes[i]))
        {
          std::ostringstream m;
          m << "side set " << si.id << " names side " << side << " of element "
            << this->ElemIds[b][e] << " (block " << bi.id << ", " << bi.type
            << "), which it does not have";
          this->Error = m.str();
          return nullptr;
        }
        blockOf[i] = b;
        for (int k : shapes[i].nodes)
        {
          local[k] = 0;
        }
        continue;
      }
      if (!SideOf(types[b], bi.nodes_per_elem, s->num_dim, side, shapes[i]))
      {
        std::ostringstream m;
        m << "side set " << si.id << " names side " << side << " of element "
          << this->ElemIds[b][e] << " (block " << bi.id << ", type " << bi.type << " with "
          << bi.nodes_per_elem << " nodes), which this reader does not know";
        this->Error = m.str();
        return nullptr;
      }
      blockOf[i] = b;
      const int64_t* conn = this->Conn[b] + e * bi.nodes_per_elem;
      for (int& k : shapes[i].nodes)
      {
        k = static_cast<int>(conn[k]); // now a piece node index
        local[k] = 0;
      }
    }
    const std::vector<int64_t> used = this->NumberUsedNodes();
    auto grid = this->PointGrid(used);
    this->AddPointFields(grid->GetPointData(), used);
    const vtkIdType n = static_cast<vtkIdType>(ps.n);
    grid->Allocate(n);
    std::vector<vtkIdType> ptIds;
    for (vtkIdType i = 0; i < n; ++i)
    {
      ptIds.clear();
      for (int k : shapes[i].nodes)
      {
        ptIds.push_back(local[k]);
      }
      grid->InsertNextCell(
        shapes[i].vtkType, static_cast<vtkIdType>(ptIds.size()), ptIds.data());
    }
    this->ClearUsed(used);

    vtkCellData* cd = grid->GetCellData();
    // (element id, side) as vtkIOSSReader gives them: 32-bit when the ids fit.
    bool fits32 = true;
    for (vtkIdType i = 0; i < n; ++i)
    {
      const int b = blockOf[i];
      const mxn_gid_t id = this->ElemIds[b][ps.entries[i] - this->BlockStart[b]];
      fits32 = fits32 && id <= std::numeric_limits<int32_t>::max() &&
        id >= std::numeric_limits<int32_t>::min();
    }
    vtkSmartPointer<vtkDataArray> es;
    if (fits32)
    {
      es = vtkSmartPointer<vtkTypeInt32Array>::New();
    }
    else
    {
      es = vtkSmartPointer<vtkTypeInt64Array>::New();
    }
    es->SetName("element_side");
    es->SetNumberOfComponents(2);
    es->SetNumberOfTuples(n);
    for (vtkIdType i = 0; i < n; ++i)
    {
      const int b = blockOf[i];
      const mxn_gid_t id = this->ElemIds[b][ps.entries[i] - this->BlockStart[b]];
      es->SetComponent(i, 0, static_cast<double>(id));
      es->SetComponent(i, 1, ps.sides ? ps.sides[i] : 0);
    }
    cd->AddArray(es);
    this->SetVariables(cd, s->side_set_vars, q, ps);
    auto oids = IdArray("object_id", n);
    oids->FillValue(static_cast<vtkIdType>(si.id));
    cd->AddArray(oids);
    if (this->Halo && this->Halo->elem_depth)
    {
      auto ghost = GhostArray(n);
      for (vtkIdType i = 0; i < n; ++i)
      {
        const int b = blockOf[i];
        const unsigned char* depth = this->Halo->elem_depth[b];
        if (depth && depth[ps.entries[i] - this->BlockStart[b]] > 0)
        {
          ghost->SetValue(i, vtkDataSetAttributes::DUPLICATECELL);
        }
      }
      cd->AddArray(ghost);
    }
    return grid;
  }
};

/** The step whose time is nearest to t (the first of two equally near). */
int NearestStep(const std::vector<double>& times, double t)
{
  int step = 0;
  for (int k = 1; k < static_cast<int>(times.size()); ++k)
  {
    if (std::fabs(times[k] - t) < std::fabs(times[step] - t))
    {
      step = k;
    }
  }
  return step;
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
}

//----------------------------------------------------------------------------
int vtkMxNReader::RequestData(
  vtkInformation*, vtkInformationVector**, vtkInformationVector* outputVector)
{
  // The downstream pipeline's time on this rank since the last RequestData
  // ended (LoadBalanceCost MEASURED_TIME): taken before anything waits.
  const auto entered = std::chrono::steady_clock::now();
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
  if (this->InformationFileName != this->FileName)
  {
    // RequestInformation failed for this file (and said why).
    vtkErrorMacro("Cannot read '" << this->FileName << "': its structure could not be read.");
    return 0;
  }
  this->UpdateProgress(0.0);

  const int piece = outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_PIECE_NUMBER())
    ? outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_PIECE_NUMBER())
    : 0;
  const int numPieces =
    outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_PIECES())
    ? outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_PIECES())
    : 1;
  const int askedGhosts =
    outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS())
    ? outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS())
    : 0;

  std::string why;
  if (!EnsureMPI(why))
  {
    vtkErrorMacro("Cannot read '" << this->FileName << "': " << why);
    return 0;
  }

  // Which communicator the load runs on (see the class documentation).
  int worldSize = 1;
  const MPI_Comm worldComm = WorldComm(&worldSize);
  LoadCache::Key key;
  key.FileName = this->FileName;
  key.NumberOfPieces = numPieces;
  MPI_Comm world = MPI_COMM_SELF;
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
        vtkErrorMacro("Cannot read '" << this->FileName << "': the " << worldSize
                                      << " ranks asked for pieces that are not 0.."
                                      << worldSize - 1 << " once each.");
        return 0;
      }
    }
  }
  else if (numPieces > 1)
  {
    // No collective call: piece 0 gets everything, the others nothing.
    if (piece == 0)
    {
      vtkWarningMacro("'" << this->FileName << "': asked for " << numPieces
                          << " pieces on " << worldSize
                          << " MPI ranks; the MxN reader splits a dataset only into one piece "
                             "per rank, so piece 0 holds the whole dataset and the others none.");
    }
    if (piece != 0)
    {
      this->UpdateProgress(1.0);
      return 1;
    }
  }

  // The time step: the requested time's nearest step.
  int step = 0;
  if (!this->TimeSteps.empty() &&
    outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_TIME_STEP()))
  {
    step = NearestStep(
      this->TimeSteps, outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_TIME_STEP()));
  }

  // What to load: selections as the core's masks, in structure order (the
  // structure RequestInformation filled the selections from).
  const Catalog& cat = *this->Info;
  for (const auto& name : cat.BlockNames)
  {
    key.Blocks.push_back(this->ElementBlockSelection->ArrayIsEnabled(name.c_str()));
  }
  key.NodeVars.assign(static_cast<size_t>(cat.NumNodeVars), 0);
  for (const auto& g : cat.NodeGroups)
  {
    for (int v : g.vars)
    {
      key.NodeVars[v] = this->PointArraySelection->ArrayIsEnabled(g.name.c_str());
    }
  }
  key.ElemVars.assign(static_cast<size_t>(cat.NumElemVars), 0);
  for (const auto& groups : cat.ElemGroups)
  {
    for (const auto& g : groups)
    {
      for (int v : g.vars)
      {
        key.ElemVars[v] |= this->CellArraySelection->ArrayIsEnabled(g.name.c_str());
      }
    }
  }
  static const mxn_part_method methods[] = { MXN_PART_FILES, MXN_PART_SFC, MXN_PART_RCB,
    MXN_PART_RIB, MXN_PART_HSFC, MXN_PART_GRAPH, MXN_PART_LINEAR };
  key.Method = std::min(std::max(this->PartitionMethod, 0), 6);
  // Ghost layers only exist between ranks of a collective load.
  key.GhostLevels = key.World ? std::max(this->GhostLevels, askedGhosts) : 0;
  key.WeightField = this->LoadBalanceField ? this->LoadBalanceField : "";
  key.Tolerance = this->ImbalanceTolerance;
  // Re-balanced at each step: the load stays open across steps and moves
  // only what the step's weights make it move.
  key.Cost = this->LoadBalanceCost == MEASURED_TIME ? MEASURED_TIME : FIELD_COST;
  key.Dynamic =
    this->RebalanceEachTimeStep && (!key.WeightField.empty() || key.Cost == MEASURED_TIME);

  LoadCache& cache = *this->Cache;
  if (!cache.Load || !(cache.Opened == key))
  {
    cache.Close();
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
    opts.method = methods[key.Method];
    opts.imbalance_tol = key.Tolerance;
    opts.weight_field = key.WeightField.empty() ? nullptr : key.WeightField.c_str();
    opts.weight_step = step;
    opts.ghost_levels = key.GhostLevels;
    opts.block_selection = key.Blocks.empty() ? nullptr : key.Blocks.data();
    opts.node_var_selection = key.NodeVars.empty() ? nullptr : key.NodeVars.data();
    opts.elem_var_selection = key.ElemVars.empty() ? nullptr : key.ElemVars.data();
    opts.dynamic = key.Dynamic ? 1 : 0;
    mxn_error_t err;
    mxn_error_clear(&err);
    mxn_load_t* ld = nullptr;
    this->UpdateProgress(0.05);
    // The information pass opened these members over the same ranks: the
    // load takes that dataset over instead of opening them again (every
    // rank alike, or none).
    int handOver = cache.InfoDataset && cache.InfoFile == key.FileName &&
        cache.InfoWorld == key.World
      ? 1
      : 0;
    MPI_Allreduce(MPI_IN_PLACE, &handOver, 1, MPI_INT, MPI_MIN, comm);
    int st;
    if (handOver)
    {
      st = mxn_load_open_dataset(comm, &cache.InfoDataset, &opts, &ld, &err);
    }
    else
    {
      st = mxn_load_open(comm, this->FileName, &opts, &ld, &err);
    }
    if (st == MXN_OK)
    {
      MPI_Comm_rank(comm, &cache.Rank);
    }
    if (ordered != MPI_COMM_NULL)
    {
      MPI_Comm_free(&ordered); // the load keeps its own duplicate
    }
    if (st != MXN_OK)
    {
      mxn_load_close(&ld);
      vtkErrorMacro("Cannot read '" << this->FileName << "': " << mxn_strerror(st) << ": "
                                    << err.msg);
      return 0;
    }
    cache.Load = ld;
    cache.Opened = key;
  }
  this->UpdateProgress(0.5);

  if (key.Dynamic && mxn_load_structure(cache.Load)->num_times > 0)
  {
    const int rstep = std::min(step, mxn_load_structure(cache.Load)->num_times - 1);
    if (cache.BalancedStep != rstep)
    {
      // The step's weights; over the tolerance each rank reads only the
      // elements it gains (and their ghosts) and drops what it loses.
      mxn_rebalance_opts_t ro{};
      ro.weight_field = key.WeightField.empty() ? nullptr : key.WeightField.c_str();
      ro.weight_abs = 1;
      ro.imbalance_tol = key.Tolerance;
      std::vector<double> cost;
      cache.MeasuredSeconds = -1;
      cache.CostSource = key.WeightField.empty() ? "None" : "Field";
      if (key.Cost == MEASURED_TIME)
      {
        // Every rank passes a cost or none does (the weights must be of
        // one kind over the ranks).
        const double mine = cache.Ended
          ? std::chrono::duration<double>(entered - cache.LastEnd).count()
          : -1.0;
        int have = mine >= 0 ? 1 : 0, all = 0;
        MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, world);
        if (all)
        {
          cache.MeasuredSeconds = mine;
          cache.CostSource = key.WeightField.empty() ? "MeasuredTime" : "MeasuredTime x Field";
          cost = MeasuredCost(cache.Load, key.WeightField, mine);
          ro.cost = cost.data();
        }
      }
      mxn_error_t err;
      mxn_error_clear(&err);
      const int st = mxn_load_rebalance(cache.Load, rstep, &ro, &cache.Report, &err);
      if (st != MXN_OK)
      {
        cache.Close();
        vtkErrorMacro("Cannot re-balance '" << this->FileName << "' for time step " << rstep + 1
                                            << ": " << mxn_strerror(st) << ": " << err.msg);
        return 0;
      }
      cache.BalancedStep = rstep;
      if (cache.Report.rebalanced)
      {
        cache.Topologies.clear(); // another piece: build its grids anew
      }
    }
  }

  const mxn_structure_t* s = mxn_load_structure(cache.Load);
  const mxn_piece_t* p = mxn_load_piece(cache.Load);
  if (!s || !p || p->num_blocks != s->num_blocks || p->num_node_sets != s->num_node_sets ||
    p->num_side_sets != s->num_side_sets ||
    static_cast<size_t>(s->num_blocks) != key.Blocks.size())
  {
    cache.Close();
    vtkErrorMacro("Cannot read '" << this->FileName
                                  << "': the core returned no piece or one that does not match "
                                     "the dataset's structure.");
    return 0;
  }

  if (s->num_times > 0)
  {
    step = std::min(step, s->num_times - 1);
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
  this->UpdateProgress(0.6);

  // Check every selected block's type before building anything: all ranks
  // share the structure, so all refuse alike.
  std::vector<CellMapping> mappings(s->num_blocks);
  for (int b = 0; b < s->num_blocks; ++b)
  {
    const mxn_block_info_t& bi = s->blocks[b];
    if (key.Blocks[b] && bi.num_elements > 0 && !bi.poly &&
      !MapCellType(bi.type, bi.nodes_per_elem, mappings[b]))
    {
      vtkErrorMacro("Cannot read '" << this->FileName << "': element block " << bi.id << " ('"
                                    << EntityName(bi.name, "block", bi.id)
                                    << "') has element type '" << bi.type << "' with "
                                    << bi.nodes_per_elem
                                    << " nodes, which this reader cannot map to a VTK cell.");
      return 0;
    }
  }

  // One leaf per selected block, node set, side set, in this order.
  struct Leaf
  {
    int kind; // 0 block, 1 node set, 2 side set
    int index;
    std::string name;
  };
  std::vector<Leaf> leaves;
  for (int b = 0; b < s->num_blocks; ++b)
  {
    if (key.Blocks[b])
    {
      leaves.push_back({ 0, b, EntityName(s->blocks[b].name, "block", s->blocks[b].id) });
    }
  }
  for (int q = 0; q < s->num_node_sets; ++q)
  {
    std::string name = EntityName(s->node_sets[q].name, "nodelist", s->node_sets[q].id);
    if (this->NodeSetSelection->ArrayIsEnabled(name.c_str()))
    {
      leaves.push_back({ 1, q, name });
    }
  }
  for (int q = 0; q < s->num_side_sets; ++q)
  {
    std::string name = EntityName(s->side_sets[q].name, "surface", s->side_sets[q].id);
    if (this->SideSetSelection->ArrayIsEnabled(name.c_str()))
    {
      leaves.push_back({ 2, q, name });
    }
  }

  // A load that is not re-balanced never reads its blocks' connectivity
  // and element ids again: the grids may own them.
  cache.Topologies.resize(static_cast<size_t>(s->num_blocks));
  PieceConverter conv(s, p, mxn_load_halo(cache.Load), cache.Rank, this->PointArraySelection,
    key.Dynamic ? nullptr : cache.Load, cache.Topologies);
  vtkNew<vtkDataAssembly> assembly;
  assembly->SetRootNodeName("IOSS"); // as vtkIOSSReader, for selectors written for it
  const char* groupNames[3] = { "element_blocks", "node_sets", "side_sets" };
  int groups[3] = { assembly->AddNode(groupNames[0]), -1, -1 };
  output->SetNumberOfPartitionedDataSets(static_cast<unsigned int>(leaves.size()));
  for (size_t i = 0; i < leaves.size(); ++i)
  {
    const Leaf& leaf = leaves[i];
    vtkSmartPointer<vtkUnstructuredGrid> grid;
    switch (leaf.kind)
    {
      case 0:
        grid = conv.Block(leaf.index, mappings[leaf.index], this->CellArraySelection,
          &cache.Topologies[leaf.index]);
        break;
      case 1:
        grid = conv.NodeSet(leaf.index);
        break;
      default:
        grid = conv.SideSet(leaf.index);
        break;
    }
    if (!grid)
    {
      // Inconsistent data in the piece (a core bug or a corrupt file). (A
      // block handed over before kept its arrays in Topologies: the next
      // request builds from there.)
      output->Initialize();
      vtkErrorMacro("Cannot read '" << this->FileName << "': " << conv.Error << ".");
      return 0;
    }
    vtkNew<vtkPartitionedDataSet> pds;
    pds->SetNumberOfPartitions(1);
    pds->SetPartition(0, grid);
    const unsigned int index = static_cast<unsigned int>(i);
    output->SetPartitionedDataSet(index, pds);
    output->GetMetaData(index)->Set(vtkCompositeDataSet::NAME(), leaf.name.c_str());
    if (groups[leaf.kind] < 0)
    {
      groups[leaf.kind] = assembly->AddNode(groupNames[leaf.kind]);
    }
    const int node = assembly->AddNode(
      vtkDataAssembly::MakeValidNodeName(leaf.name.c_str()).c_str(), groups[leaf.kind]);
    assembly->SetAttribute(node, "label", leaf.name.c_str());
    assembly->AddDataSetIndex(node, index);
    this->UpdateProgress(0.6 + 0.4 * static_cast<double>(i + 1) / leaves.size());
  }
  output->SetDataAssembly(assembly);

  // Global variables (grouped like the others): one tuple each, in the
  // collection's field data (as vtkIOSSReader).
  if (p->step >= 0 && p->global_vars)
  {
    for (auto& g : GroupVariables(s->global_var_names, s->num_global_vars, nullptr))
    {
      output->GetFieldData()->AddArray(
        GroupArray(g, 1, [&](int v, vtkIdType) { return p->global_vars[v]; }));
    }
  }
  {
    // This rank's load counters (mxn_load_stats_t), one component each, so
    // a script can see what the load read and how long it took.
    const mxn_load_stats_t x = mxn_load_stats(cache.Load);
    const std::pair<const char*, double> fields[] = { { "rank", x.rank },
      { "nranks", x.nranks }, { "owned_elements", double(x.owned_elements) },
      { "owned_weight", x.owned_weight }, { "cover_files", x.cover_files },
      { "files_overlapping", x.files_overlapping }, { "num_nodes", double(x.num_nodes) },
      { "bytes_read", double(x.bytes_read) }, { "bytes_needed", double(x.bytes_needed) },
      { "map_bytes_read", double(x.map_bytes_read) },
      { "set_bytes_read", double(x.set_bytes_read) },
      { "read_calls", double(x.read_calls) }, { "files_opened", double(x.files_opened) },
      { "partition_bytes_read", double(x.partition_bytes_read) },
      { "seconds_open", x.seconds_open }, { "seconds_partition", x.seconds_partition },
      { "seconds_plan", x.seconds_plan }, { "seconds_read", x.seconds_read },
      { "seconds_step", x.seconds_step }, { "ghost_elements", double(x.ghost_elements) },
      { "ghost_nodes", double(x.ghost_nodes) }, { "ghost_files", x.ghost_files },
      { "seconds_ghost", x.seconds_ghost }, { "ghost_bytes_read", double(x.ghost_bytes_read) },
      { "total_elements", double(x.total_elements) }, { "imbalance", x.imbalance },
      { "check_bytes_read", double(x.check_bytes_read) },
      { "seconds_check", x.seconds_check } };
    const int nf = static_cast<int>(sizeof fields / sizeof fields[0]);
    vtkNew<vtkDoubleArray> a;
    a->SetName("mxn_load_stats");
    a->SetNumberOfComponents(nf);
    a->SetNumberOfTuples(1);
    for (int c = 0; c < nf; ++c)
    {
      a->SetComponentName(c, fields[c].first);
      a->SetTypedComponent(0, c, fields[c].second);
    }
    output->GetFieldData()->AddArray(a);
  }
  if (key.Dynamic && cache.BalancedStep >= 0)
  {
    // What the re-balance of this step did (the same on every rank).
    const mxn_rebalance_report_t& rp = cache.Report;
    auto scalar = [&](const char* name, double v) {
      vtkNew<vtkDoubleArray> a;
      a->SetName(name);
      a->SetNumberOfTuples(1);
      a->SetValue(0, v);
      output->GetFieldData()->AddArray(a);
    };
    auto count = [&](const char* name, long long v) {
      vtkNew<vtkTypeInt64Array> a;
      a->SetName(name);
      a->SetNumberOfTuples(1);
      a->SetValue(0, v);
      output->GetFieldData()->AddArray(a);
    };
    scalar("MxNImbalanceBefore", rp.imbalance_before);
    scalar("MxNImbalanceAfter", rp.imbalance_after);
    count("MxNMigratedElements", rp.migrated);
    count("MxNBytesReRead", rp.bytes_read_all);
    scalar("MxNRebalanceSeconds", rp.seconds_balance + rp.seconds_migrate);
    count("MxNRebalanced", rp.rebalanced);
    count("MxNRebalanceStep", rp.step + 1);
    scalar("MxNMeasuredSeconds", cache.MeasuredSeconds);
    vtkNew<vtkStringArray> src;
    src->SetName("MxNLoadBalanceCost");
    src->InsertNextValue(cache.CostSource);
    output->GetFieldData()->AddArray(src);
  }
  this->UpdateProgress(1.0);
  // The downstream pipeline runs from here until the next RequestData.
  cache.Ended = true;
  cache.LastEnd = std::chrono::steady_clock::now();
  return 1;
}

//----------------------------------------------------------------------------
void vtkMxNReader::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "FileName: " << (this->FileName ? this->FileName : "(none)") << "\n";
  os << indent << "PartitionMethod: " << this->PartitionMethod << "\n";
  os << indent << "GhostLevels: " << this->GhostLevels << "\n";
  os << indent << "LoadBalanceField: "
     << (this->LoadBalanceField ? this->LoadBalanceField : "(none)") << "\n";
  os << indent << "ImbalanceTolerance: " << this->ImbalanceTolerance << "\n";
  os << indent << "RebalanceEachTimeStep: " << this->RebalanceEachTimeStep << "\n";
  os << indent << "LoadBalanceCost: "
     << (this->LoadBalanceCost == MEASURED_TIME ? "MeasuredTime" : "Field") << "\n";
  os << indent << "NumberOfTimeSteps: " << this->TimeSteps.size() << "\n";
  os << indent << "ElementBlocks: " << this->ElementBlockSelection->GetNumberOfArraysEnabled()
     << " of " << this->ElementBlockSelection->GetNumberOfArrays() << " enabled\n";
  os << indent << "NodeSets: " << this->NodeSetSelection->GetNumberOfArraysEnabled() << " of "
     << this->NodeSetSelection->GetNumberOfArrays() << " enabled\n";
  os << indent << "SideSets: " << this->SideSetSelection->GetNumberOfArraysEnabled() << " of "
     << this->SideSetSelection->GetNumberOfArrays() << " enabled\n";
}
