// The piece -> VTK conversion of vtkMxNReader (see vtkMxNPieceConverter.h).
#include "vtkMxNPieceConverter.h"
#include "vtkMxNEntityLeaves.h"

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
#include "vtkIntArray.h"
#include "vtkNew.h"
#include "vtkPartitionedDataSet.h"
#include "vtkPartitionedDataSetCollection.h"
#include "vtkPointData.h"
#include "vtkPoints.h"
#include "vtkStringArray.h"
#include "vtkTypeInt32Array.h"
#include "vtkTypeInt64Array.h"
#include "vtkUnsignedCharArray.h"
#include "vtkUnstructuredGrid.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <unordered_set>
#include <utility>

using vtkMxNCellTypes::CellMapping;
using vtkMxNCellTypes::SideShape;
using vtkMxNVariables::VarGroup;

// Connectivity and ids handed over by the core become vtkIdType arrays as
// they are.
static_assert(sizeof(vtkIdType) == sizeof(int64_t) && sizeof(mxn_gid_t) == sizeof(int64_t),
  "vtkIdType must be 64-bit (VTK_USE_64BIT_IDS)");

namespace
{
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

/** A `file_id` cell array of n entries, entry i being member(i): the
 *  member file a cell was read from (vtkIOSSReader's GenerateFileId). */
template <typename Member>
vtkSmartPointer<vtkIntArray> FileIdArray(vtkIdType n, Member member)
{
  auto a = vtkSmartPointer<vtkIntArray>::New();
  a->SetName("file_id");
  a->SetNumberOfTuples(n);
  for (vtkIdType i = 0; i < n; ++i)
  {
    a->SetValue(i, member(i));
  }
  return a;
}

/** An `object_id` cell array of n entries, all `id`. */
vtkSmartPointer<vtkIdTypeArray> ObjectIds(vtkIdType n, mxn_gid_t id)
{
  auto oids = IdArray("object_id", n);
  oids->FillValue(static_cast<vtkIdType>(id));
  return oids;
}
}

//----------------------------------------------------------------------------
vtkMxNPieceConverter::vtkMxNPieceConverter(const mxn_structure_t* s, const mxn_piece_t* p,
  const mxn_load_halo_t* halo, int rank, vtkDataArraySelection* points,
  vtkDataArraySelection* cells, mxn_load_t* give, const std::vector<vtkMxNBlockTopology>& topos,
  const vtkMxNVariables::Grouping& how, bool keepAllPoints)
  : S(s)
  , P(p)
  , Halo(halo)
  , Rank(rank)
  , CellSel(cells)
  , Give(give)
  , How(how)
  , HaveFields(p->step >= 0)
  , KeepAll(keepAllPoints)
{
  for (int b = 0; b < p->num_blocks; ++b)
  {
    const bool kept = b < static_cast<int>(topos.size()) && topos[b].Conn;
    this->Conn.push_back(kept ? topos[b].Conn : p->blocks[b].conn);
    // The ids shown: the original ids nem_spread kept where the members'
    // ids are positions in the serial mesh (as vtkIOSSReader shows them).
    const mxn_gid_t* orig = p->blocks[b].orig_ids;
    this->ElemIds.push_back(orig ? orig : kept ? topos[b].ElemIds : p->blocks[b].elem_ids);
  }
  for (auto& g :
    vtkMxNVariables::GroupVariables(s->node_var_names, s->num_node_vars, nullptr, nullptr, how))
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

//----------------------------------------------------------------------------
std::vector<vtkMxNPieceConverter::Leaf> vtkMxNPieceConverter::Leaves(const mxn_structure_t* s,
  const std::vector<int>& blocks, vtkDataArraySelection* nodeSets,
  vtkDataArraySelection* sideSets)
{
  using vtkMxNVariables::EntityName;
  // the enabled names once: a search of the selection per set would be
  // sets x sets string compares
  auto enabled = [](vtkDataArraySelection* sel) {
    std::unordered_set<std::string> on;
    for (int i = 0; i < sel->GetNumberOfArrays(); ++i)
    {
      if (sel->GetArraySetting(i))
      {
        on.insert(sel->GetArrayName(i));
      }
    }
    return on;
  };
  const std::unordered_set<std::string> nodeOn = enabled(nodeSets), sideOn = enabled(sideSets);
  std::vector<Leaf> leaves;
  for (int b = 0; b < s->num_blocks; ++b)
  {
    leaves.push_back({ Leaf::BLOCK, b, EntityName(s->blocks[b].name, "block", s->blocks[b].id),
      blocks[b] != 0 });
  }
  for (int q = 0; q < s->num_node_sets; ++q)
  {
    std::string name = EntityName(s->node_sets[q].name, "nodelist", s->node_sets[q].id);
    const bool on = nodeOn.count(name) != 0;
    leaves.push_back({ Leaf::NODE_SET, q, std::move(name), on });
  }
  for (int q = 0; q < s->num_side_sets; ++q)
  {
    std::string name = EntityName(s->side_sets[q].name, "surface", s->side_sets[q].id);
    const bool on = sideOn.count(name) != 0;
    leaves.push_back({ Leaf::SIDE_SET, q, std::move(name), on });
  }
  return leaves;
}

//----------------------------------------------------------------------------
int vtkMxNPieceConverter::LeafOf(const mxn_structure_t* s, int type, mxn_gid_t id)
{
  // Leaves' order (vtkMxNEntityLeaves::Leaves, as vtkIOSSReader's): edge
  // blocks, face blocks, element blocks, node sets, edge sets, face sets,
  // element sets, side sets.
  struct Kind
  {
    int type;
    int n;
    std::function<mxn_gid_t(int)> id;
  };
  const Kind kinds[] = {
    { MXN_ENTITY_EDGE_BLOCK, s->num_edge_blocks, [s](int i) { return s->edge_blocks[i].id; } },
    { MXN_ENTITY_FACE_BLOCK, s->num_face_blocks, [s](int i) { return s->face_blocks[i].id; } },
    { MXN_ENTITY_ELEM_BLOCK, s->num_blocks, [s](int i) { return s->blocks[i].id; } },
    { MXN_ENTITY_NODE_SET, s->num_node_sets, [s](int i) { return s->node_sets[i].id; } },
    { MXN_ENTITY_EDGE_SET, s->num_edge_sets, [s](int i) { return s->edge_sets[i].id; } },
    { MXN_ENTITY_FACE_SET, s->num_face_sets, [s](int i) { return s->face_sets[i].id; } },
    { MXN_ENTITY_ELEM_SET, s->num_elem_sets, [s](int i) { return s->elem_sets[i].id; } },
    { MXN_ENTITY_SIDE_SET, s->num_side_sets, [s](int i) { return s->side_sets[i].id; } },
  };
  int base = 0;
  for (const Kind& k : kinds)
  {
    if (k.type == type)
    {
      for (int i = 0; i < k.n; ++i)
      {
        if (k.id(i) == id)
        {
          return base + i;
        }
      }
      return -1;
    }
    base += std::max(k.n, 0);
  }
  return -1;
}

//----------------------------------------------------------------------------
std::vector<std::string> vtkMxNPieceConverter::LeafNames(const mxn_structure_t* s)
{
  using vtkMxNVariables::EntityName;
  const vtkMxNEntityLeaves::Names more = vtkMxNEntityLeaves::NamesOf(s, vtkMxNVariables::Grouping());
  std::vector<std::string> names;
  auto append = [&names](const std::vector<std::string>& list) {
    names.insert(names.end(), list.begin(), list.end());
  };
  append(more[vtkMxNEntityLeaves::EDGE_BLOCKS]);
  append(more[vtkMxNEntityLeaves::FACE_BLOCKS]);
  for (int b = 0; b < s->num_blocks; ++b)
  {
    names.push_back(EntityName(s->blocks[b].name, "block", s->blocks[b].id));
  }
  for (int q = 0; q < s->num_node_sets; ++q)
  {
    names.push_back(EntityName(s->node_sets[q].name, "nodelist", s->node_sets[q].id));
  }
  append(more[vtkMxNEntityLeaves::EDGE_SETS]);
  append(more[vtkMxNEntityLeaves::FACE_SETS]);
  append(more[vtkMxNEntityLeaves::ELEMENT_SETS]);
  for (int q = 0; q < s->num_side_sets; ++q)
  {
    names.push_back(EntityName(s->side_sets[q].name, "surface", s->side_sets[q].id));
  }
  return names;
}

//----------------------------------------------------------------------------
void vtkMxNPieceConverter::AddFileAssemblies(
  vtkDataAssembly* a, int parent, const mxn_structure_t* s)
{
  using vtkMxNVariables::EntityName;
  const int n = s->num_assemblies;
  auto indexOf = [s, n](mxn_gid_t id) {
    for (int k = 0; k < n; ++k)
    {
      if (s->assemblies[k].id == id)
      {
        return k;
      }
    }
    return -1;
  };
  const std::vector<std::string> names = LeafNames(s);
  // The assemblies some assembly holds are not roots.
  std::vector<char> held(static_cast<size_t>(n), 0);
  for (int k = 0; k < n; ++k)
  {
    const mxn_assembly_info_t& as = s->assemblies[k];
    for (int64_t m = 0; as.type == MXN_ENTITY_ASSEMBLY && m < as.num_members; ++m)
    {
      const int j = indexOf(as.members[m]);
      if (j >= 0 && j != k)
      {
        held[j] = 1;
      }
    }
  }
  // depth-first; an assembly that holds itself (a damaged file) stops at
  // its second visit on the path
  std::vector<char> onPath(static_cast<size_t>(n), 0);
  std::function<void(int, int)> add = [&](int k, int under) {
    const mxn_assembly_info_t& as = s->assemblies[k];
    std::string name = as.name[0] ? std::string(as.name) : "assembly_" + std::to_string(as.id);
    const int node = a->AddNode(vtkDataAssembly::MakeValidNodeName(name.c_str()).c_str(), under);
    a->SetAttribute(node, "label", name.c_str());
    onPath[k] = 1;
    for (int64_t m = 0; m < as.num_members; ++m)
    {
      const mxn_gid_t id = as.members[m];
      if (as.type == MXN_ENTITY_ASSEMBLY)
      {
        const int j = indexOf(id);
        if (j >= 0 && !onPath[j])
        {
          add(j, node);
        }
        continue;
      }
      const int leaf = LeafOf(s, as.type, id);
      if (leaf < 0)
      {
        continue;
      }
      const std::string& member = names[static_cast<size_t>(leaf)];
      const int child =
        a->AddNode(vtkDataAssembly::MakeValidNodeName(member.c_str()).c_str(), node);
      a->SetAttribute(child, "label", member.c_str());
      a->AddDataSetIndex(child, static_cast<unsigned int>(leaf));
    }
    onPath[k] = 0;
  };
  for (int k = 0; k < n; ++k)
  {
    if (!held[k])
    {
      add(k, parent);
    }
  }
}

//----------------------------------------------------------------------------
bool vtkMxNPieceConverter::Fill(vtkPartitionedDataSetCollection* output,
  const std::vector<Leaf>& leaves, const std::vector<CellMapping>& mappings,
  std::vector<vtkMxNBlockTopology>& topos, vtkMxNAssemblyCache& assembly,
  const std::function<void(double)>& progress)
{
  output->SetNumberOfPartitionedDataSets(static_cast<unsigned int>(leaves.size()));
  for (size_t i = 0; i < leaves.size(); ++i)
  {
    const Leaf& leaf = leaves[i];
    vtkNew<vtkPartitionedDataSet> pds;
    if (leaf.selected && this->Holds(leaf))
    {
      vtkSmartPointer<vtkUnstructuredGrid> grid;
      switch (leaf.kind)
      {
        case Leaf::BLOCK:
          grid = this->Block(leaf.index, mappings[leaf.index], &topos[leaf.index]);
          break;
        case Leaf::NODE_SET:
          grid = this->NodeSet(leaf.index);
          break;
        case Leaf::SIDE_SET:
          grid = this->SideSet(leaf.index);
          break;
        case Leaf::EDGE_BLOCK:
        case Leaf::FACE_BLOCK:
          grid = this->EdgeFaceBlock(leaf.kind == Leaf::FACE_BLOCK, leaf.index);
          break;
        default:
          grid = this->EntitySet(leaf.kind, leaf.index);
          break;
      }
      if (!grid)
      {
        // Inconsistent data in the piece (a core bug or a corrupt file). (A
        // block handed over before kept its arrays in topos: the next
        // request builds from there.)
        output->Initialize();
        return false;
      }
      pds->SetNumberOfPartitions(1);
      pds->SetPartition(0, grid);
    }
    const unsigned int index = static_cast<unsigned int>(i);
    output->SetPartitionedDataSet(index, pds);
    output->GetMetaData(index)->Set(vtkCompositeDataSet::NAME(), leaf.name.c_str());
    // about a hundred reports however many leaves (each is an event
    // ParaView's progress handling takes up)
    if ((i + 1) * 100 / leaves.size() != i * 100 / leaves.size() || i + 1 == leaves.size())
    {
      progress(static_cast<double>(i + 1) / leaves.size());
    }
  }
  std::vector<std::pair<int, std::string>> key;
  key.reserve(leaves.size());
  for (const Leaf& leaf : leaves)
  {
    key.emplace_back(leaf.kind, leaf.name);
  }
  if (!assembly.Assembly || assembly.Leaves != key)
  {
    assembly.Assembly = vtkSmartPointer<vtkDataAssembly>::New();
    vtkDataAssembly* a = assembly.Assembly;
    a->SetRootNodeName("IOSS"); // as vtkIOSSReader, for selectors written for it
    const char* groupNames[Leaf::NUMBER_OF_KINDS] = { "element_blocks", "node_sets",
      "side_sets", "edge_blocks", "face_blocks", "element_sets", "face_sets", "edge_sets" };
    // as vtkIOSSReader: element_blocks always (after edge and face
    // blocks), the others where they have leaves, in the leaves' order
    int groups[Leaf::NUMBER_OF_KINDS] = { -1, -1, -1, -1, -1, -1, -1, -1 };
    for (size_t i = 0; i < leaves.size(); ++i)
    {
      const Leaf& leaf = leaves[i];
      if (groups[Leaf::BLOCK] < 0 && leaf.kind != Leaf::EDGE_BLOCK &&
        leaf.kind != Leaf::FACE_BLOCK)
      {
        groups[Leaf::BLOCK] = a->AddNode(groupNames[Leaf::BLOCK]);
      }
      if (groups[leaf.kind] < 0)
      {
        groups[leaf.kind] = a->AddNode(groupNames[leaf.kind]);
      }
      const int node = a->AddNode(
        vtkDataAssembly::MakeValidNodeName(leaf.name.c_str()).c_str(), groups[leaf.kind]);
      a->SetAttribute(node, "label", leaf.name.c_str());
      a->AddDataSetIndex(node, static_cast<unsigned int>(i));
    }
    if (groups[Leaf::BLOCK] < 0)
    {
      a->AddNode(groupNames[Leaf::BLOCK]);
    }
    if (this->S->num_assemblies > 0)
    {
      AddFileAssemblies(a, a->AddNode("assemblies"), this->S);
    }
    assembly.Leaves.swap(key);
  }
  // a copy: what is downstream may not change the one kept
  vtkNew<vtkDataAssembly> copy;
  copy->DeepCopy(assembly.Assembly);
  output->SetDataAssembly(copy);
  return true;
}

//----------------------------------------------------------------------------
// A leaf is a partition where the rank holds some of it (cells, nodes or
// sides, ghosts included), as vtkIOSSReader makes them: a model of many
// blocks leaves most of them empty on each rank, and an empty partition
// costs ParaView's pipeline a copy per leaf and step (its post-filter
// shallow-copies every one). A leaf empty on every rank is still one empty
// grid with its arrays, on rank 0, so that the block and its arrays are
// listed.
bool vtkMxNPieceConverter::Holds(const Leaf& leaf) const
{
  int64_t here, anywhere;
  switch (leaf.kind)
  {
    case Leaf::BLOCK:
      here = this->P->blocks[leaf.index].num_elements;
      anywhere = this->S->blocks[leaf.index].num_elements;
      break;
    case Leaf::NODE_SET:
      here = this->P->node_sets[leaf.index].n;
      anywhere = this->S->node_sets[leaf.index].num_entries;
      break;
    case Leaf::SIDE_SET:
      here = this->P->side_sets[leaf.index].n;
      anywhere = this->S->side_sets[leaf.index].num_entries;
      break;
    default:
      return this->HoldsEntity(leaf);
  }
  return here > 0 || (anywhere == 0 && this->Rank == 0);
}

//----------------------------------------------------------------------------
// Unflags what Mark flagged (a grid given up half way).
void vtkMxNPieceConverter::ClearMarks()
{
  for (int64_t n : this->Marked)
  {
    this->LocalIndex[n] = -1;
  }
  this->Marked.clear();
}

//----------------------------------------------------------------------------
// Points of the grid: the piece nodes flagged by Mark, numbered in piece
// order; returns them. Resets LocalIndex to those numbers. Few flagged
// nodes (a block of many) are sorted; many are found by one pass.
std::vector<int64_t> vtkMxNPieceConverter::NumberUsedNodes()
{
  std::vector<vtkIdType>& local = this->Local();
  std::vector<int64_t> used;
  used.swap(this->Marked);
  if (this->KeepAll)
  {
    // every node of the piece, used or not (RemoveUnusedPoints off)
    used.resize(static_cast<size_t>(this->P->num_nodes));
    for (int64_t n = 0; n < this->P->num_nodes; ++n)
    {
      used[n] = n;
    }
  }
  else if (used.size() < static_cast<size_t>(this->P->num_nodes / 16))
  {
    std::sort(used.begin(), used.end());
  }
  else
  {
    used.clear();
    for (int64_t n = 0; n < this->P->num_nodes; ++n)
    {
      if (local[n] >= 0)
      {
        used.push_back(n);
      }
    }
  }
  for (size_t i = 0; i < used.size(); ++i)
  {
    local[used[i]] = static_cast<vtkIdType>(i);
  }
  return used;
}

//----------------------------------------------------------------------------
void vtkMxNPieceConverter::ClearUsed(const std::vector<int64_t>& used)
{
  std::vector<vtkIdType>& local = this->Local();
  for (int64_t n : used)
  {
    local[n] = -1;
  }
}

//----------------------------------------------------------------------------
// The selected nodal variables of the piece nodes `used`, as point arrays.
void vtkMxNPieceConverter::AddPointFields(vtkPointData* pd, const std::vector<int64_t>& used)
{
  const mxn_piece_t* p = this->P;
  const vtkIdType npts = static_cast<vtkIdType>(used.size());
  if (!this->HaveFields)
  {
    return;
  }
  for (const auto& g : this->NodeGroups)
  {
    if (pd->GetAbstractArray(g.name.c_str()))
    {
      continue; // (as for cell arrays: the reader's ids stay)
    }
    pd->AddArray(ColumnArray(
      g, npts,
      [&](int v) -> const double* {
        return v < p->plan_num_node_vars && p->node_vars ? p->node_vars[v] : nullptr;
      },
      used.data()));
  }
}

//----------------------------------------------------------------------------
// Block b's selected element variables and attributes, as cell arrays, and
// with FileIds its `file_id` (here, not with the kept structure: the
// property may change from one request to the next).
void vtkMxNPieceConverter::AddCellFields(vtkCellData* cd, int b)
{
  const mxn_block_info_t& bi = this->S->blocks[b];
  const mxn_piece_block_t& pb = this->P->blocks[b];
  const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);
  if (this->FileIds)
  {
    cd->AddArray(FileIdArray(ncells, [&](vtkIdType e) { return pb.member ? pb.member[e] : -1; }));
  }
  std::vector<VarGroup> vars, attrs;
  this->SelectedCellGroups(b, vars, attrs);
  for (const auto& g : vars)
  {
    if (cd->GetAbstractArray(g.name.c_str()))
    {
      // a variable named like an array the reader makes (object_id, as
      // ParaView's Exodus writer stores it): the reader's own stays, as in
      // vtkIOSSReader
      continue;
    }
    cd->AddArray(ColumnArray(
      g, ncells,
      [&](int v) -> const double* {
        return v < this->P->plan_num_elem_vars && pb.elem_vars ? pb.elem_vars[v] : nullptr;
      },
      nullptr));
  }
  for (const auto& g : attrs)
  {
    cd->AddArray(GroupArray(g, ncells, [&](int a, vtkIdType e) {
      return pb.attr ? pb.attr[e * bi.num_attr + a] : NaN;
    }));
  }
}

//----------------------------------------------------------------------------
// The element variable groups (none without fields) and attribute groups
// of block b that AddCellFields makes cell arrays of: the selected ones.
void vtkMxNPieceConverter::SelectedCellGroups(
  int b, std::vector<VarGroup>& vars, std::vector<VarGroup>& attrs)
{
  vars.clear();
  attrs.clear();
  if (this->HaveFields)
  {
    for (auto& g : vtkMxNVariables::BlockVariables(this->S, b, this->How))
    {
      if (this->CellSel->ArrayIsEnabled(g.name.c_str()) && g.name != MXN_GHOST_VAR)
      {
        vars.push_back(std::move(g));
      }
    }
  }
  for (auto& g : vtkMxNVariables::AttributeGroups(this->S->blocks[b], this->S->num_dim, this->How))
  {
    if (this->CellSel->ArrayIsEnabled(g.name.c_str()))
    {
      attrs.push_back(std::move(g));
    }
  }
}

//----------------------------------------------------------------------------
void vtkMxNPieceConverter::SetDisplacement(const std::vector<int>& vars, double scale)
{
  this->Disp.clear();
  const mxn_piece_t* p = this->P;
  if (!this->HaveFields || vars.empty() || !p->node_vars)
  {
    return;
  }
  for (int v : vars)
  {
    if (v < 0 || v >= p->plan_num_node_vars || !p->node_vars[v])
    {
      this->Disp.clear(); // a component not read: the points stay
      return;
    }
    this->Disp.push_back(p->node_vars[v]);
  }
  this->DispScale = scale;
}

//----------------------------------------------------------------------------
vtkSmartPointer<vtkPoints> vtkMxNPieceConverter::Points(const std::vector<int64_t>& used) const
{
  const mxn_piece_t* p = this->P;
  const vtkIdType npts = static_cast<vtkIdType>(used.size());
  vtkNew<vtkDoubleArray> xyz;
  xyz->SetNumberOfComponents(3);
  xyz->SetNumberOfTuples(npts);
  AdviseLarge(xyz);
  double* out = xyz->GetPointer(0);
  const int dims = std::min(p->num_dim, 3);
  const double* x[3] = { nullptr, nullptr, nullptr };
  const double* u[3] = { nullptr, nullptr, nullptr };
  for (int d = 0; d < dims; ++d)
  {
    x[d] = p->coord[d];
    u[d] = d < static_cast<int>(this->Disp.size()) ? this->Disp[d] : nullptr;
  }
  const int64_t* at = used.data();
  const double scale = this->DispScale;
  if (dims == 3 && u[0] && u[1] && u[2])
  {
    // the displaced points of a 3D mesh, every component in one pass (one
    // gather of each node's six values: a further step builds these)
    for (vtkIdType i = 0; i < npts; ++i)
    {
      const int64_t n = at[i];
      out[3 * i] = x[0][n] + scale * u[0][n];
      out[3 * i + 1] = x[1][n] + scale * u[1][n];
      out[3 * i + 2] = x[2][n] + scale * u[2][n];
    }
  }
  else
  {
    for (vtkIdType i = 0; i < npts; ++i)
    {
      const int64_t n = at[i];
      for (int d = 0; d < 3; ++d)
      {
        out[3 * i + d] = !x[d] ? 0.0 : u[d] ? x[d][n] + scale * u[d][n] : x[d][n];
      }
    }
  }
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetData(xyz);
  return points;
}

//----------------------------------------------------------------------------
// A grid with the piece nodes `used` as points: coordinates, `ids` and,
// with a halo, vtkGhostType (no field arrays: AddPointFields).
vtkSmartPointer<vtkUnstructuredGrid> vtkMxNPieceConverter::PointGrid(
  const std::vector<int64_t>& used)
{
  const mxn_piece_t* p = this->P;
  const vtkIdType npts = static_cast<vtkIdType>(used.size());
  auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
  vtkSmartPointer<vtkPoints> points = this->Points(used);
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

//----------------------------------------------------------------------------
vtkSmartPointer<vtkUnstructuredGrid> vtkMxNPieceConverter::Block(
  int b, const CellMapping& map, vtkMxNBlockTopology* topo)
{
  const mxn_block_info_t& bi = this->S->blocks[b];
  const mxn_piece_block_t& pb = this->P->blocks[b];
  const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);
  if (ncells == 0)
  {
    topo = nullptr; // a block empty everywhere (Holds): nothing to keep for the next step
  }
  if (topo && topo->Grid)
  {
    return this->BlockFromTopology(b, *topo);
  }
  if (!this->MarkBlockNodes(b))
  {
    return nullptr;
  }
  const std::vector<int64_t> used = this->NumberUsedNodes();
  auto grid = this->PointGrid(used);
  mxn_gid_t* givenIds = nullptr; // the element ids, if handed over with the connectivity
  if (ncells > 0 && bi.poly == MXN_POLY_NSIDED)
  {
    this->PolygonCells(grid, b);
  }
  else if (ncells > 0 && bi.poly == MXN_POLY_NFACED)
  {
    this->PolyhedronCells(grid, b);
  }
  else if (ncells > 0)
  {
    givenIds = this->FixedCells(grid, b, map, used.size());
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
  this->BlockCellArrays(cd, b, givenIds);
  if (topo)
  {
    topo->Grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
    topo->Grid->CopyStructure(grid);
    topo->Grid->GetPointData()->ShallowCopy(grid->GetPointData());
    topo->Grid->GetCellData()->ShallowCopy(cd);
    topo->Used = used;
    topo->Displaced = !this->Disp.empty();
    if (givenIds)
    {
      topo->Conn = this->Conn[b];
      topo->ElemIds = givenIds;
    }
  }
  this->AddPointFields(grid->GetPointData(), used);
  this->AddCellFields(cd, b);
  return grid;
}

//----------------------------------------------------------------------------
// A further time step of the same piece: the kept structure, this step's
// field arrays.
vtkSmartPointer<vtkUnstructuredGrid> vtkMxNPieceConverter::BlockFromTopology(
  int b, const vtkMxNBlockTopology& topo)
{
  auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
  grid->CopyStructure(topo.Grid); // the same points and cells
  if (!this->Disp.empty() || topo.Displaced)
  {
    // the cells stay; the points are this step's (displaced or not)
    grid->SetPoints(this->Points(topo.Used));
  }
  grid->GetPointData()->ShallowCopy(topo.Grid->GetPointData());
  grid->GetCellData()->ShallowCopy(topo.Grid->GetCellData());
  this->AddPointFields(grid->GetPointData(), topo.Used);
  this->AddCellFields(grid->GetCellData(), b);
  return grid;
}

//----------------------------------------------------------------------------
// Flags in LocalIndex the piece nodes block b's connectivity uses; false
// (flags cleared, Err set) if it refers to a node the piece does not have.
bool vtkMxNPieceConverter::MarkBlockNodes(int b)
{
  const mxn_block_info_t& bi = this->S->blocks[b];
  const mxn_piece_block_t& pb = this->P->blocks[b];
  // Poly blocks list their nodes by offsets (a polyhedron's: the distinct
  // nodes of its faces).
  const int64_t nconn =
    pb.conn_off ? pb.conn_off[pb.num_elements] : pb.num_elements * bi.nodes_per_elem;
  // Mark(c) spelled out: once per connectivity entry, with the index and
  // the list in locals (a store through them may alias the bounds).
  vtkIdType* local = this->Local().data();
  std::vector<int64_t>& marked = this->Marked;
  const int64_t* conn = pb.conn;
  const int64_t nn = this->P->num_nodes;
  for (int64_t k = 0; k < nconn; ++k)
  {
    const int64_t c = conn[k];
    if (c < 0 || c >= nn)
    {
      std::ostringstream m;
      m << "element block " << bi.id << " refers to local node " << c << " of " << nn;
      this->Err = m.str();
      this->ClearMarks();
      return false;
    }
    if (local[c] < 0)
    {
      local[c] = 0;
      marked.push_back(c);
    }
  }
  return true;
}

//----------------------------------------------------------------------------
// The polygons of block b (MXN_POLY_NSIDED) as the grid's cells.
void vtkMxNPieceConverter::PolygonCells(vtkUnstructuredGrid* grid, int b)
{
  const mxn_piece_block_t& pb = this->P->blocks[b];
  const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);
  const int64_t nconn = pb.conn_off[pb.num_elements];
  const std::vector<vtkIdType>& local = this->LocalIndex;
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

//----------------------------------------------------------------------------
// The polyhedra of block b (MXN_POLY_NFACED) as the grid's cells: face
// streams, each face's nodes as the face block stores them.
void vtkMxNPieceConverter::PolyhedronCells(vtkUnstructuredGrid* grid, int b)
{
  const mxn_piece_block_t& pb = this->P->blocks[b];
  const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);
  const std::vector<vtkIdType>& local = this->LocalIndex;
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
      const int fnpe = this->S->face_blocks[fb].nodes_per_elem;
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

//----------------------------------------------------------------------------
// The cells of a block with a fixed node count, in VTK's node order;
// returns the element ids if the load handed them over with the
// connectivity, else null.
mxn_gid_t* vtkMxNPieceConverter::FixedCells(
  vtkUnstructuredGrid* grid, int b, const CellMapping& map, size_t numUsed)
{
  const mxn_piece_block_t& pb = this->P->blocks[b];
  const int npe = this->S->blocks[b].nodes_per_elem;
  const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);
  const std::vector<vtkIdType>& local = this->LocalIndex;
  mxn_gid_t* givenIds = nullptr;
  auto conn = vtkSmartPointer<vtkIdTypeArray>::New();
  // A block whose grid has every piece node as its points, in piece
  // order (one block, or one that reaches every node), with VTK's node
  // order: its connectivity is already the grid's, and the load hands
  // it over (with the element ids) instead of it being copied. Not where
  // the ids shown are the original ones (ElemIds): the grid keeps the
  // piece's then.
  int64_t* given = nullptr;
  if (this->Give && map.order.empty() && static_cast<int64_t>(numUsed) == this->P->num_nodes &&
    !pb.orig_ids && mxn_load_take_block(this->Give, b, &given, &givenIds) == MXN_OK)
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
  return givenIds;
}

//----------------------------------------------------------------------------
// A block's `ids` (GlobalIds and PedigreeIds: ElemIds, the original ids
// where the set has them), `object_id` and, with a halo, vtkGhostType.
void vtkMxNPieceConverter::BlockCellArrays(vtkCellData* cd, int b, mxn_gid_t* givenIds)
{
  const mxn_block_info_t& bi = this->S->blocks[b];
  const mxn_piece_block_t& pb = this->P->blocks[b];
  const vtkIdType ncells = static_cast<vtkIdType>(pb.num_elements);
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
      ids->SetValue(e, static_cast<vtkIdType>(this->ElemIds[b][e]));
    }
  }
  cd->SetGlobalIds(ids);
  cd->SetPedigreeIds(ids);
  cd->AddArray(ObjectIds(ncells, bi.id));
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
}

//----------------------------------------------------------------------------
// Set variables of set q of a kind, as cell arrays of the set's entries.
void vtkMxNPieceConverter::SetVariables(vtkCellData* cd, const mxn_var_list_t& list, int q,
  const mxn_piece_set_t& ps, vtkDataArraySelection* selected)
{
  if (!this->HaveFields || list.num <= 0)
  {
    return;
  }
  const int* truth = list.truth ? list.truth + q * list.num : nullptr;
  for (const auto& g :
    vtkMxNVariables::GroupVariables(list.names, list.num, truth, nullptr, this->How))
  {
    if (selected && !selected->ArrayIsEnabled(g.name.c_str()))
    {
      continue; // (NodeSetFields, SideSetFields, ...)
    }
    cd->AddArray(ColumnArray(
      g, static_cast<vtkIdType>(ps.n),
      [&](int v) -> const double* { return v < ps.num_vars && ps.vars ? ps.vars[v] : nullptr; },
      nullptr));
  }
}

//----------------------------------------------------------------------------
vtkSmartPointer<vtkUnstructuredGrid> vtkMxNPieceConverter::NodeSet(int q)
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
      this->Err = m.str();
      return nullptr;
    }
  }
  // Points in set order (a node listed twice is one point, two vertices),
  // or every node of the piece in order (RemoveUnusedPoints off).
  std::vector<int64_t> used;
  if (this->KeepAll)
  {
    used.resize(static_cast<size_t>(this->P->num_nodes));
    for (int64_t n = 0; n < this->P->num_nodes; ++n)
    {
      used[n] = n;
      local[n] = static_cast<vtkIdType>(n);
    }
  }
  for (int64_t i = 0; i < ps.n && !this->KeepAll; ++i)
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
  this->SetVariables(cd, this->S->node_set_vars, q, ps, this->Entity.Fields[5]);
  if (this->FileIds)
  {
    cd->AddArray(FileIdArray(n, [&](vtkIdType i) { return ps.member ? ps.member[i] : -1; }));
  }
  cd->AddArray(ObjectIds(n, si.id));
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

//----------------------------------------------------------------------------
// Side `side` (1-based) of entry e of poly block b as piece node indices:
// a polygon's edge (2D) or a polyhedron's face.
bool vtkMxNPieceConverter::PolySide(int b, int64_t e, int side, SideShape& out)
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

//----------------------------------------------------------------------------
// The shape of each side of side set q as piece node indices, flagged in
// LocalIndex, and the block of each side's element; false (Err set) for an
// entry the piece or the element type does not have.
bool vtkMxNPieceConverter::SideShapes(
  int q, std::vector<SideShape>& shapes, std::vector<int>& blockOf)
{
  const mxn_structure_t* s = this->S;
  const mxn_set_info_t& si = s->side_sets[q];
  const mxn_piece_set_t& ps = this->P->side_sets[q];
  const int64_t numElems = this->BlockStart.back();
  shapes.assign(static_cast<size_t>(ps.n), SideShape());
  blockOf.assign(static_cast<size_t>(ps.n), 0);
  for (int64_t i = 0; i < ps.n; ++i)
  {
    const int64_t g = ps.entries[i];
    const int side = ps.sides ? ps.sides[i] : 0;
    if (g < 0 || g >= numElems)
    {
      std::ostringstream m;
      m << "side set " << si.id << " refers to local element " << g << " of " << numElems;
      this->Err = m.str();
      this->ClearMarks();
      return false;
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
        this->Err = m.str();
        return false;
      }
      blockOf[i] = b;
      for (int k : shapes[i].nodes)
      {
        this->Mark(k);
      }
      continue;
    }
    if (!vtkMxNCellTypes::SideOf(bi.type, bi.nodes_per_elem, s->num_dim, side, shapes[i]))
    {
      std::ostringstream m;
      m << "side set " << si.id << " names side " << side << " of element "
        << this->ElemIds[b][e] << " (block " << bi.id << ", type " << bi.type << " with "
        << bi.nodes_per_elem << " nodes), which this reader does not know";
      this->Err = m.str();
      this->ClearMarks();
      return false;
    }
    blockOf[i] = b;
    const int64_t* conn = this->Conn[b] + e * bi.nodes_per_elem;
    for (int& k : shapes[i].nodes)
    {
      k = static_cast<int>(conn[k]); // now a piece node index
      this->Mark(k);
    }
  }
  return true;
}

//----------------------------------------------------------------------------
vtkSmartPointer<vtkUnstructuredGrid> vtkMxNPieceConverter::SideSet(int q)
{
  std::vector<SideShape> shapes;
  std::vector<int> blockOf;
  if (!this->SideShapes(q, shapes, blockOf))
  {
    return nullptr;
  }
  const mxn_piece_set_t& ps = this->P->side_sets[q];
  const std::vector<int64_t> used = this->NumberUsedNodes();
  const std::vector<vtkIdType>& local = this->LocalIndex;
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
    grid->InsertNextCell(shapes[i].vtkType, static_cast<vtkIdType>(ptIds.size()), ptIds.data());
  }
  this->ClearUsed(used);
  this->SideCellArrays(grid->GetCellData(), q, blockOf);
  return grid;
}

//----------------------------------------------------------------------------
// Side set q's cell arrays: `element_side`, the set variables,
// `object_id` and, with a halo, vtkGhostType.
void vtkMxNPieceConverter::SideCellArrays(vtkCellData* cd, int q, const std::vector<int>& blockOf)
{
  const mxn_set_info_t& si = this->S->side_sets[q];
  const mxn_piece_set_t& ps = this->P->side_sets[q];
  const vtkIdType n = static_cast<vtkIdType>(ps.n);
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
  this->SetVariables(cd, this->S->side_set_vars, q, ps, this->Entity.Fields[6]);
  if (this->FileIds)
  {
    cd->AddArray(FileIdArray(n, [&](vtkIdType i) {
      const mxn_piece_block_t& pb = this->P->blocks[blockOf[i]];
      return pb.member ? pb.member[ps.entries[i] - this->BlockStart[blockOf[i]]] : -1;
    }));
  }
  cd->AddArray(ObjectIds(n, si.id));
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
}

//----------------------------------------------------------------------------
void vtkMxNPieceConverter::AddGlobalVariables(vtkPartitionedDataSetCollection* output,
  const mxn_structure_t* s, const mxn_piece_t* p, const vtkMxNVariables::Grouping& how)
{
  if (p->step < 0 || !p->global_vars)
  {
    return;
  }
  for (auto& g :
    vtkMxNVariables::GroupVariables(s->global_var_names, s->num_global_vars, nullptr, nullptr, how))
  {
    output->GetFieldData()->AddArray(
      GroupArray(g, 1, [&](int v, vtkIdType) { return p->global_vars[v]; }));
  }
}

//----------------------------------------------------------------------------
void vtkMxNPieceConverter::AddRecords(
  vtkPartitionedDataSetCollection* output, const mxn_structure_t* s)
{
  vtkNew<vtkStringArray> qa;
  qa->SetName("QA Records");
  qa->SetNumberOfComponents(4);
  qa->SetNumberOfTuples(std::max(s->num_qa, 0));
  for (int r = 0; s->qa_records && r < s->num_qa; ++r)
  {
    for (int c = 0; c < 4; ++c)
    {
      qa->SetValue(4 * r + c, s->qa_records[r][c]);
    }
  }
  vtkNew<vtkStringArray> info;
  info->SetName("Information Records");
  info->SetNumberOfTuples(std::max(s->num_info, 0));
  for (int r = 0; s->info_records && r < s->num_info; ++r)
  {
    info->SetValue(r, s->info_records[r]);
  }
  output->GetFieldData()->AddArray(qa);
  output->GetFieldData()->AddArray(info);
}

//----------------------------------------------------------------------------
void vtkMxNPieceConverter::AddLoadStats(
  vtkPartitionedDataSetCollection* output, const mxn_load_stats_t& x)
{
  // One component each, so a script can see what the load read and how
  // long it took.
  const std::pair<const char*, double> fields[] = { { "rank", x.rank }, { "nranks", x.nranks },
    { "owned_elements", double(x.owned_elements) }, { "owned_weight", x.owned_weight },
    { "cover_files", x.cover_files }, { "files_overlapping", x.files_overlapping },
    { "num_nodes", double(x.num_nodes) }, { "bytes_read", double(x.bytes_read) },
    { "bytes_needed", double(x.bytes_needed) }, { "map_bytes_read", double(x.map_bytes_read) },
    { "set_bytes_read", double(x.set_bytes_read) }, { "read_calls", double(x.read_calls) },
    { "files_opened", double(x.files_opened) },
    { "partition_bytes_read", double(x.partition_bytes_read) },
    { "seconds_open", x.seconds_open }, { "seconds_partition", x.seconds_partition },
    { "seconds_plan", x.seconds_plan }, { "seconds_read", x.seconds_read },
    { "seconds_step", x.seconds_step }, { "ghost_elements", double(x.ghost_elements) },
    { "ghost_nodes", double(x.ghost_nodes) }, { "ghost_files", x.ghost_files },
    { "seconds_ghost", x.seconds_ghost }, { "ghost_bytes_read", double(x.ghost_bytes_read) },
    { "total_elements", double(x.total_elements) }, { "imbalance", x.imbalance },
    { "check_bytes_read", double(x.check_bytes_read) }, { "seconds_check", x.seconds_check },
    { "seconds_directory", x.seconds_directory },
    { "bytes_decompressed", double(x.bytes_decompressed) },
    { "metadata_bytes", double(x.metadata_bytes) },
    { "seconds_piece_read", x.seconds_piece_read }, { "seconds_io", x.seconds_io },
    { "seconds_order", x.seconds_order },
    { "carried_elements", double(x.carried_elements) } };
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

//----------------------------------------------------------------------------
void vtkMxNPieceConverter::AddRebalanceReport(vtkPartitionedDataSetCollection* output,
  const mxn_rebalance_report_t& rp, double measuredSeconds, const std::string& costSource)
{
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
  scalar("MxNMeasuredSeconds", measuredSeconds);
  vtkNew<vtkStringArray> src;
  src->SetName("MxNLoadBalanceCost");
  src->InsertNextValue(costSource);
  output->GetFieldData()->AddArray(src);
}
