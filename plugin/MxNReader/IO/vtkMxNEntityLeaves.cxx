// Edge and face blocks, element, face and edge sets as leaves (see
// vtkMxNEntityLeaves.h). Who owns a shared edge or face was decided by the
// core (mxn_load_entity_owners); an element set's ghost entries are the
// halo's.
#include "vtkMxNEntityLeaves.h"

#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkCellType.h"
#include "vtkDataArraySelection.h"
#include "vtkDataSetAttributes.h"
#include "vtkDoubleArray.h"
#include "vtkIdTypeArray.h"
#include "vtkPointData.h"
#include "vtkUnsignedCharArray.h"
#include "vtkUnstructuredGrid.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <unordered_set>

using vtkMxNVariables::VarGroup;
using Leaf = vtkMxNPieceConverter::Leaf;

namespace
{
/** The piece's and the structure's blocks and sets of a leaf kind. */
struct KindOf
{
  const mxn_block_info_t* sblocks = nullptr; // edge / face blocks
  const mxn_piece_block_t* pblocks = nullptr;
  int nblocks = 0;
  const mxn_set_info_t* ssets = nullptr; // sets of the kind
  const mxn_piece_set_t* psets = nullptr;
  const mxn_var_list_t* setVars = nullptr;
  const char* setPrefix = "";
};

KindOf Kind(const mxn_structure_t* s, const mxn_piece_t* p, int kind)
{
  KindOf k;
  switch (kind)
  {
    case Leaf::EDGE_BLOCK:
    case Leaf::EDGE_SET:
      k.sblocks = s->edge_blocks;
      k.pblocks = p ? p->edge_blocks : nullptr;
      k.nblocks = s->num_edge_blocks;
      k.ssets = s->edge_sets;
      k.psets = p ? p->edge_sets : nullptr;
      k.setVars = &s->edge_set_vars;
      k.setPrefix = "edgelist";
      break;
    case Leaf::FACE_BLOCK:
    case Leaf::FACE_SET:
      k.sblocks = s->face_blocks;
      k.pblocks = p ? p->face_blocks : nullptr;
      k.nblocks = s->num_face_blocks;
      k.ssets = s->face_sets;
      k.psets = p ? p->face_sets : nullptr;
      k.setVars = &s->face_set_vars;
      k.setPrefix = "facelist";
      break;
    default: // ELEM_SET
      k.ssets = s->elem_sets;
      k.psets = p ? p->elem_sets : nullptr;
      k.setVars = &s->elem_set_vars;
      k.setPrefix = "elementlist";
      break;
  }
  return k;
}

void AddUnique(std::vector<std::string>& to, std::unordered_set<std::string>& seen,
  const std::vector<VarGroup>& groups)
{
  for (const auto& g : groups)
  {
    if (seen.insert(g.name).second)
    {
      to.push_back(g.name);
    }
  }
}

/** Grouped names of a variable list over its num entities (truth rows). */
std::vector<std::string> ListNames(
  const mxn_var_list_t& list, int num, const vtkMxNVariables::Grouping& how)
{
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (int q = 0; q < num && list.num > 0; ++q)
  {
    AddUnique(out, seen,
      vtkMxNVariables::GroupVariables(
        list.names, list.num, list.truth ? list.truth + q * list.num : nullptr, nullptr, how));
  }
  return out;
}

/** Grouped variable and attribute names of edge or face blocks. */
std::vector<std::string> BlockFieldNames(const mxn_var_list_t& list, const mxn_block_info_t* b,
  int nb, int numDim, const vtkMxNVariables::Grouping& how)
{
  std::vector<std::string> out = ListNames(list, nb, how);
  std::unordered_set<std::string> seen(out.begin(), out.end());
  for (int q = 0; q < nb; ++q)
  {
    AddUnique(out, seen, vtkMxNVariables::AttributeGroups(b[q], numDim, how));
  }
  return out;
}

vtkSmartPointer<vtkIdTypeArray> Ids(const char* name, vtkIdType n)
{
  auto a = vtkSmartPointer<vtkIdTypeArray>::New();
  a->SetName(name);
  a->SetNumberOfTuples(n);
  return a;
}

/** An array of g's components for n entries, value(component var, i). */
template <typename Getter>
vtkSmartPointer<vtkDoubleArray> Values(const VarGroup& g, vtkIdType n, Getter value)
{
  auto a = vtkSmartPointer<vtkDoubleArray>::New();
  a->SetName(g.name.c_str());
  a->SetNumberOfComponents(static_cast<int>(g.vars.size()));
  a->SetNumberOfTuples(n);
  for (vtkIdType i = 0; i < n; ++i)
  {
    for (size_t c = 0; c < g.vars.size(); ++c)
    {
      a->SetTypedComponent(i, static_cast<int>(c), value(g.vars[c], i));
    }
  }
  return a;
}

/** Block of a concatenated index over blocks of these sizes, and the
 *  index in it; false past the end. */
bool Locate(const mxn_piece_block_t* blocks, int nb, int64_t at, int& b, int64_t& k)
{
  for (b = 0; b < nb; ++b)
  {
    if (at < blocks[b].num_elements)
    {
      k = at;
      return at >= 0;
    }
    at -= blocks[b].num_elements;
  }
  return false;
}

/** A VTK cell for an edge or face block's type; edge types VTK does not
 *  name (STRAIGHT2, ...) by their node count, as ExodusIIReader. */
bool EdgeFaceMapping(const mxn_block_info_t& bi, bool faces, vtkMxNCellTypes::CellMapping& m)
{
  if (vtkMxNCellTypes::MapCellType(bi.type, bi.nodes_per_elem, m))
  {
    return true;
  }
  m = vtkMxNCellTypes::CellMapping();
  if (!faces && (bi.nodes_per_elem == 2 || bi.nodes_per_elem == 3))
  {
    m.vtkType = bi.nodes_per_elem == 2 ? VTK_LINE : VTK_QUADRATIC_EDGE;
    return true;
  }
  return false;
}

const double NaN = std::numeric_limits<double>::quiet_NaN();
}

//----------------------------------------------------------------------------
vtkMxNEntityLeaves::Names vtkMxNEntityLeaves::NamesOf(
  const mxn_structure_t* s, const vtkMxNVariables::Grouping& how)
{
  using vtkMxNVariables::EntityName;
  Names n;
  for (int q = 0; q < s->num_edge_blocks; ++q)
  {
    n[EDGE_BLOCKS].push_back(
      EntityName(s->edge_blocks[q].name, "edgeblock", s->edge_blocks[q].id));
  }
  for (int q = 0; q < s->num_face_blocks; ++q)
  {
    n[FACE_BLOCKS].push_back(
      EntityName(s->face_blocks[q].name, "faceblock", s->face_blocks[q].id));
  }
  for (int q = 0; q < s->num_elem_sets; ++q)
  {
    n[ELEMENT_SETS].push_back(EntityName(s->elem_sets[q].name, "elementlist", s->elem_sets[q].id));
  }
  for (int q = 0; q < s->num_face_sets; ++q)
  {
    n[FACE_SETS].push_back(EntityName(s->face_sets[q].name, "facelist", s->face_sets[q].id));
  }
  for (int q = 0; q < s->num_edge_sets; ++q)
  {
    n[EDGE_SETS].push_back(EntityName(s->edge_sets[q].name, "edgelist", s->edge_sets[q].id));
  }
  n[EDGE_BLOCK_FIELDS] = BlockFieldNames(s->edge_vars, s->edge_blocks, s->num_edge_blocks, s->num_dim, how);
  n[FACE_BLOCK_FIELDS] = BlockFieldNames(s->face_vars, s->face_blocks, s->num_face_blocks, s->num_dim, how);
  n[ELEMENT_SET_FIELDS] = ListNames(s->elem_set_vars, s->num_elem_sets, how);
  n[FACE_SET_FIELDS] = ListNames(s->face_set_vars, s->num_face_sets, how);
  n[EDGE_SET_FIELDS] = ListNames(s->edge_set_vars, s->num_edge_sets, how);
  n[NODE_SET_FIELDS] = ListNames(s->node_set_vars, s->num_node_sets, how);
  n[SIDE_SET_FIELDS] = ListNames(s->side_set_vars, s->num_side_sets, how);
  return n;
}

//----------------------------------------------------------------------------
bool vtkMxNEntityLeaves::OnByDefault(int k)
{
  return k == EDGE_BLOCKS || k == FACE_BLOCKS || k == EDGE_BLOCK_FIELDS || k == FACE_BLOCK_FIELDS;
}

//----------------------------------------------------------------------------
std::vector<Leaf> vtkMxNEntityLeaves::Leaves(const mxn_structure_t* s,
  const std::vector<int>& blocks, vtkDataArraySelection* nodeSets,
  vtkDataArraySelection* sideSets, vtkDataArraySelection* const* sel)
{
  const std::vector<Leaf> base = vtkMxNPieceConverter::Leaves(s, blocks, nodeSets, sideSets);
  const Names names = vtkMxNEntityLeaves::NamesOf(s, vtkMxNVariables::Grouping());
  auto add = [&](std::vector<Leaf>& to, int kind, int which) {
    const std::vector<std::string>& list = names[which];
    for (size_t q = 0; q < list.size(); ++q)
    {
      to.push_back({ kind, static_cast<int>(q), list[q],
        sel && sel[which] && sel[which]->ArrayIsEnabled(list[q].c_str()) });
    }
  };
  std::vector<Leaf> out;
  add(out, Leaf::EDGE_BLOCK, EDGE_BLOCKS);
  add(out, Leaf::FACE_BLOCK, FACE_BLOCKS);
  bool sets = false;
  for (const Leaf& leaf : base)
  {
    if (!sets && leaf.kind != Leaf::BLOCK && leaf.kind != Leaf::NODE_SET)
    {
      add(out, Leaf::EDGE_SET, EDGE_SETS);
      add(out, Leaf::FACE_SET, FACE_SETS);
      add(out, Leaf::ELEM_SET, ELEMENT_SETS);
      sets = true;
    }
    out.push_back(leaf);
  }
  if (!sets)
  {
    add(out, Leaf::EDGE_SET, EDGE_SETS);
    add(out, Leaf::FACE_SET, FACE_SETS);
    add(out, Leaf::ELEM_SET, ELEMENT_SETS);
  }
  return out;
}

//----------------------------------------------------------------------------
// As Holds: a partition where the rank has entries of the leaf, one empty
// grid on rank 0 for a leaf empty everywhere.
bool vtkMxNPieceConverter::HoldsEntity(const Leaf& leaf) const
{
  const KindOf k = Kind(this->S, this->P, leaf.kind);
  int64_t here = 0, anywhere = 0;
  if (leaf.kind == Leaf::EDGE_BLOCK || leaf.kind == Leaf::FACE_BLOCK)
  {
    here = k.pblocks ? k.pblocks[leaf.index].num_elements : 0;
    anywhere = k.sblocks[leaf.index].num_elements;
  }
  else
  {
    here = k.psets ? k.psets[leaf.index].n : 0;
    anywhere = k.ssets[leaf.index].num_entries;
  }
  return here > 0 || (anywhere == 0 && this->Rank == 0);
}

//----------------------------------------------------------------------------
// Entry `entry` of a kind (a concatenated element, edge or face index of
// the piece) as a VTK cell: its type and piece nodes (polyhedra: the face
// stream, count then nodes per face); false (Err set) for one the piece
// does not have or VTK has no cell for.
bool vtkMxNPieceConverter::EntityCell(
  int kind, int64_t entry, int& vtkType, std::vector<vtkIdType>& nodes)
{
  nodes.clear();
  const mxn_structure_t* s = this->S;
  const mxn_piece_t* p = this->P;
  const bool elements = kind == Leaf::ELEM_SET;
  const bool faces = kind == Leaf::FACE_BLOCK || kind == Leaf::FACE_SET;
  const mxn_piece_block_t* pblocks = elements ? p->blocks : faces ? p->face_blocks : p->edge_blocks;
  const mxn_block_info_t* sblocks = elements ? s->blocks : faces ? s->face_blocks : s->edge_blocks;
  const int nb = elements ? p->num_blocks : faces ? p->num_face_blocks : p->num_edge_blocks;
  int b = 0;
  int64_t k = 0;
  std::ostringstream m;
  if (!Locate(pblocks, nb, entry, b, k))
  {
    m << "a set refers to local " << (elements ? "element " : faces ? "face " : "edge ") << entry
      << ", which this piece does not have";
    this->Err = m.str();
    return false;
  }
  const mxn_block_info_t& bi = sblocks[b];
  const mxn_piece_block_t& pb = pblocks[b];
  if (bi.poly == MXN_POLY_NSIDED && pb.conn_off)
  {
    vtkType = VTK_POLYGON;
    for (int64_t c = pb.conn_off[k]; c < pb.conn_off[k + 1]; ++c)
    {
      nodes.push_back(static_cast<vtkIdType>(pb.conn[c]));
    }
    return true;
  }
  if (bi.poly == MXN_POLY_NFACED && pb.face_off)
  {
    // a face stream: for each face its node count, then its nodes
    vtkType = VTK_POLYHEDRON;
    vtkMxNCellTypes::SideShape side;
    for (int f = 1; f <= pb.face_off[k + 1] - pb.face_off[k]; ++f)
    {
      if (!this->PolySide(b, k, f, side))
      {
        m << "face " << f << " of polyhedron " << pb.elem_ids[k] << " is not in this piece";
        this->Err = m.str();
        return false;
      }
      nodes.push_back(static_cast<vtkIdType>(side.nodes.size()));
      nodes.insert(nodes.end(), side.nodes.begin(), side.nodes.end());
    }
    return true;
  }
  vtkMxNCellTypes::CellMapping map;
  if (!(elements ? vtkMxNCellTypes::MapCellType(bi.type, bi.nodes_per_elem, map)
                 : EdgeFaceMapping(bi, faces, map)))
  {
    m << (elements ? "element" : faces ? "face" : "edge") << " block " << bi.id << " has type '"
      << bi.type << "' with " << bi.nodes_per_elem
      << " nodes, which this reader cannot map to a VTK cell";
    this->Err = m.str();
    return false;
  }
  vtkType = map.vtkType;
  const int64_t* conn = pb.conn + k * bi.nodes_per_elem;
  if (elements)
  {
    conn = this->Conn[b] + k * bi.nodes_per_elem; // the block's, perhaps handed over
  }
  const int n = map.order.empty() ? bi.nodes_per_elem : static_cast<int>(map.order.size());
  for (int c = 0; c < n; ++c)
  {
    nodes.push_back(static_cast<vtkIdType>(conn[map.order.empty() ? c : map.order[c]]));
  }
  return true;
}

//----------------------------------------------------------------------------
// vtkGhostType of a leaf's cells: an edge's or face's copy another rank
// owns (the core's owners), an element set's ghost elements (the halo).
// `ps` null: the entries are block q's own, in order.
void vtkMxNPieceConverter::EntityGhosts(vtkCellData* cd, int kind, const mxn_piece_set_t* ps, int q)
{
  const bool elements = kind == Leaf::ELEM_SET;
  const bool faces = kind == Leaf::FACE_BLOCK || kind == Leaf::FACE_SET;
  const int* owner = nullptr;
  if (!elements && this->Entity.Owners)
  {
    owner = faces ? this->Entity.Owners->face_owner : this->Entity.Owners->edge_owner;
  }
  if ((elements && !(this->Halo && this->Halo->elem_depth)) || (!elements && !owner))
  {
    return;
  }
  int64_t first = 0; // block q's first concatenated index
  const mxn_piece_block_t* kb = faces ? this->P->face_blocks : this->P->edge_blocks;
  for (int b = 0; !ps && b < q; ++b)
  {
    first += kb[b].num_elements;
  }
  const vtkIdType n = static_cast<vtkIdType>(ps ? ps->n : kb[q].num_elements);
  auto ghost = vtkSmartPointer<vtkUnsignedCharArray>::New();
  ghost->SetName(vtkDataSetAttributes::GhostArrayName());
  ghost->SetNumberOfTuples(n);
  ghost->FillValue(0);
  for (vtkIdType i = 0; i < n; ++i)
  {
    const int64_t at = ps ? ps->entries[i] : first + i;
    bool dup;
    if (elements)
    {
      const int b = static_cast<int>(
        std::upper_bound(this->BlockStart.begin(), this->BlockStart.end(), at) -
        this->BlockStart.begin() - 1);
      const unsigned char* depth = this->Halo->elem_depth[b];
      dup = depth && depth[at - this->BlockStart[b]] > 0;
    }
    else
    {
      dup = owner[at] != this->Rank;
    }
    if (dup)
    {
      ghost->SetValue(i, vtkDataSetAttributes::DUPLICATECELL);
    }
  }
  cd->AddArray(ghost);
}

//----------------------------------------------------------------------------
vtkSmartPointer<vtkUnstructuredGrid> vtkMxNPieceConverter::EdgeFaceBlock(bool faces, int q)
{
  const int kind = faces ? Leaf::FACE_BLOCK : Leaf::EDGE_BLOCK;
  const mxn_block_info_t& bi = faces ? this->S->face_blocks[q] : this->S->edge_blocks[q];
  const mxn_piece_block_t& pb = faces ? this->P->face_blocks[q] : this->P->edge_blocks[q];
  const mxn_var_list_t& vars = faces ? this->S->face_vars : this->S->edge_vars;
  const int planVars = faces ? this->P->plan_num_face_vars : this->P->plan_num_edge_vars;
  vtkDataArraySelection* fields = this->Entity.Fields[faces ? 1 : 0];
  const vtkIdType n = static_cast<vtkIdType>(pb.num_elements);
  int64_t first = 0;
  const mxn_piece_block_t* kb = faces ? this->P->face_blocks : this->P->edge_blocks;
  for (int b = 0; b < q; ++b)
  {
    first += kb[b].num_elements;
  }
  std::vector<int> types(static_cast<size_t>(n));
  std::vector<std::vector<vtkIdType>> cells(static_cast<size_t>(n));
  for (vtkIdType i = 0; i < n; ++i)
  {
    if (!this->EntityCell(kind, first + i, types[i], cells[i]))
    {
      this->ClearMarks();
      return nullptr;
    }
    for (vtkIdType v : cells[i])
    {
      this->Mark(v);
    }
  }
  return this->EntityGrid(kind, q, types, cells, nullptr, pb.elem_ids, bi.id,
    [&](vtkCellData* cd) {
      if (this->HaveFields && vars.num > 0)
      {
        const int* truth = vars.truth ? vars.truth + q * vars.num : nullptr;
        for (const auto& g :
          vtkMxNVariables::GroupVariables(vars.names, vars.num, truth, nullptr, this->How))
        {
          if (!fields || fields->ArrayIsEnabled(g.name.c_str()))
          {
            cd->AddArray(Values(g, n, [&](int v, vtkIdType i) {
              return v < planVars && pb.elem_vars && pb.elem_vars[v] ? pb.elem_vars[v][i] : NaN;
            }));
          }
        }
      }
      for (const auto& g : vtkMxNVariables::AttributeGroups(bi, this->S->num_dim, this->How))
      {
        if (!fields || fields->ArrayIsEnabled(g.name.c_str()))
        {
          cd->AddArray(Values(g, n, [&](int a, vtkIdType i) {
            return pb.attr ? pb.attr[i * bi.num_attr + a] : NaN;
          }));
        }
      }
    });
}

//----------------------------------------------------------------------------
vtkSmartPointer<vtkUnstructuredGrid> vtkMxNPieceConverter::EntitySet(int kind, int q)
{
  const KindOf k = Kind(this->S, this->P, kind);
  const mxn_piece_set_t& ps = k.psets[q];
  const vtkIdType n = static_cast<vtkIdType>(ps.n);
  std::vector<int> types(static_cast<size_t>(n));
  std::vector<std::vector<vtkIdType>> cells(static_cast<size_t>(n));
  std::vector<mxn_gid_t> ids(static_cast<size_t>(n));
  const bool elements = kind == Leaf::ELEM_SET;
  const bool faces = kind == Leaf::FACE_SET;
  const mxn_piece_block_t* pblocks =
    elements ? this->P->blocks : faces ? this->P->face_blocks : this->P->edge_blocks;
  const int nb =
    elements ? this->P->num_blocks : faces ? this->P->num_face_blocks : this->P->num_edge_blocks;
  for (vtkIdType i = 0; i < n; ++i)
  {
    const int cellKind = elements ? Leaf::ELEM_SET : faces ? Leaf::FACE_BLOCK : Leaf::EDGE_BLOCK;
    int b = 0;
    int64_t e = 0;
    if (!this->EntityCell(cellKind, ps.entries[i], types[i], cells[i]) ||
      !Locate(pblocks, nb, ps.entries[i], b, e))
    {
      std::ostringstream m;
      m << k.setPrefix << " " << k.ssets[q].id << ": " << this->Err;
      this->Err = m.str();
      this->ClearMarks();
      return nullptr;
    }
    ids[i] = elements ? this->ElemIds[b][e] : pblocks[b].elem_ids[e];
    const bool stream = types[i] == VTK_POLYHEDRON;
    for (size_t c = 0; c < cells[i].size(); ++c)
    {
      if (stream)
      {
        // skip the face's node count
        const size_t nf = static_cast<size_t>(cells[i][c]);
        for (size_t f = 1; f <= nf; ++f)
        {
          this->Mark(cells[i][c + f]);
        }
        c += nf;
      }
      else
      {
        this->Mark(cells[i][c]);
      }
    }
  }
  return this->EntityGrid(kind, q, types, cells, &ps, ids.data(), k.ssets[q].id,
    [&](vtkCellData* cd) {
      this->SetVariables(cd, *k.setVars, q, ps,
        this->Entity.Fields[elements ? 2 : faces ? 3 : 4]);
    });
}

//----------------------------------------------------------------------------
// The grid of an edge or face block or a set from its cells (piece nodes,
// flagged by Mark): points, cells, `ids`, what `fields` adds, `object_id`,
// vtkGhostType.
vtkSmartPointer<vtkUnstructuredGrid> vtkMxNPieceConverter::EntityGrid(int kind, int q,
  const std::vector<int>& types, std::vector<std::vector<vtkIdType>>& cells,
  const mxn_piece_set_t* ps, const mxn_gid_t* ids, mxn_gid_t objectId,
  const std::function<void(vtkCellData*)>& fields)
{
  const std::vector<int64_t> used = this->NumberUsedNodes();
  const std::vector<vtkIdType>& local = this->LocalIndex;
  auto grid = this->PointGrid(used);
  this->AddPointFields(grid->GetPointData(), used);
  const vtkIdType n = static_cast<vtkIdType>(types.size());
  grid->Allocate(n > 0 ? n : 1);
  for (vtkIdType i = 0; i < n; ++i)
  {
    std::vector<vtkIdType>& c = cells[i];
    if (types[i] == VTK_POLYHEDRON)
    {
      // face stream to grid points; the cell's points are its faces' distinct ones
      std::vector<vtkIdType> pts;
      vtkIdType nfaces = 0;
      for (size_t at = 0; at < c.size(); at += static_cast<size_t>(c[at]) + 1, ++nfaces)
      {
        for (vtkIdType f = 1; f <= c[at]; ++f)
        {
          c[at + f] = local[c[at + f]];
          if (std::find(pts.begin(), pts.end(), c[at + f]) == pts.end())
          {
            pts.push_back(c[at + f]);
          }
        }
      }
      grid->InsertNextCell(VTK_POLYHEDRON, static_cast<vtkIdType>(pts.size()), pts.data(),
        nfaces, c.data());
      continue;
    }
    for (vtkIdType& v : c)
    {
      v = local[v];
    }
    grid->InsertNextCell(types[i], static_cast<vtkIdType>(c.size()), c.data());
  }
  this->ClearUsed(used);
  vtkCellData* cd = grid->GetCellData();
  auto idArray = Ids("ids", n);
  for (vtkIdType i = 0; i < n; ++i)
  {
    idArray->SetValue(i, static_cast<vtkIdType>(ids[i]));
  }
  cd->SetGlobalIds(idArray);
  cd->SetPedigreeIds(idArray);
  fields(cd);
  auto oids = Ids("object_id", n);
  oids->FillValue(static_cast<vtkIdType>(objectId));
  cd->AddArray(oids);
  this->EntityGhosts(cd, kind, ps, q);
  return grid;
}
