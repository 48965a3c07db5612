// The piece -> VTK conversion of vtkMxNReader: one rank's piece, as the
// core's load hands it over, becomes the unstructured grids, assembly and
// field data of the reader's output. No algorithm: every decision (who
// owns what, which cells are ghosts) was made by the core. Internal to the
// reader's module.
#ifndef vtkMxNPieceConverter_h
#define vtkMxNPieceConverter_h

#include "vtkMxNCellTypes.h"
#include "vtkMxNVariables.h"
#include "vtkSmartPointer.h" // for vtkSmartPointer
#include "vtkType.h"         // for vtkIdType

#include <mxn/mxn.h>

#include <functional> // for std::function
#include <string>     // for std::string
#include <utility>    // for std::pair
#include <vector>     // for std::vector

class vtkCellData;
class vtkDataArraySelection;
class vtkPartitionedDataSetCollection;
class vtkPointData;
class vtkPoints;
class vtkUnstructuredGrid;
class vtkDataAssembly;

/** An element block's grid structure as built for one piece (points,
 *  cells, global and object ids, vtkGhostType) and the piece node of each
 *  point: further time steps of the same piece share it and build only
 *  their field arrays. */
struct vtkMxNBlockTopology
{
  vtkSmartPointer<vtkUnstructuredGrid> Grid;
  std::vector<int64_t> Used;
  // whether Grid's points are displaced (by the step it was built at):
  // a step that displaces, or one that no longer does, makes its own
  bool Displaced = false;
  // The block's connectivity and element ids when the load handed them
  // over to Grid's arrays (mxn_load_take_block), else null: side sets
  // selected later still read them here.
  const int64_t* Conn = nullptr;
  const mxn_gid_t* ElemIds = nullptr;
};

/** The `IOSS` assembly of the output's leaves (kind and name each), kept
 *  by the reader from one request to the next: building it is a node per
 *  leaf, as costly as the leaves' grids for a model of many empty blocks. */
struct vtkMxNAssemblyCache
{
  std::vector<std::pair<int, std::string>> Leaves;
  vtkSmartPointer<vtkDataAssembly> Assembly;
};

/**
 * Converts one rank's piece into the grids of the collection. Every grid
 * has the piece nodes it uses as points (ascending piece order), with the
 * point arrays of the selected nodal variables.
 */
class vtkMxNPieceConverter
{
public:
  /** One leaf of the output: a block, node set or side set of the file;
   *  an unselected one is an empty partitioned dataset, listed (as
   *  vtkIOSSReader lists every entity) but never read. */
  struct Leaf
  {
    enum Kind
    {
      BLOCK = 0,
      NODE_SET = 1,
      SIDE_SET = 2,
      // edge and face blocks, element, face and edge sets
      // (vtkMxNEntityLeaves.cxx)
      EDGE_BLOCK = 3,
      FACE_BLOCK = 4,
      ELEM_SET = 5,
      FACE_SET = 6,
      EDGE_SET = 7,
      NUMBER_OF_KINDS = 8
    };
    int kind;
    int index; // in the structure's list of its kind
    std::string name;
    bool selected;
  };

  /**
   * `give`: the load whose blocks' connectivity and element ids may be
   * handed over to the grids' arrays (mxn_load_take_block), or null to
   * copy them. `topos`: the block structures kept from earlier requests
   * of this piece (their Conn / ElemIds stand for the piece's, which are
   * null once handed over). `how`: how variables group into arrays.
   * `keepAllPoints`: every grid has all the piece's nodes as its points
   * (vtkIOSSReader's RemoveUnusedPoints off), not only those it uses.
   */
  vtkMxNPieceConverter(const mxn_structure_t* s, const mxn_piece_t* p,
    const mxn_load_halo_t* halo, int rank, vtkDataArraySelection* points,
    vtkDataArraySelection* cells, mxn_load_t* give,
    const std::vector<vtkMxNBlockTopology>& topos,
    const vtkMxNVariables::Grouping& how = vtkMxNVariables::Grouping(),
    bool keepAllPoints = false);

  /** Every block, node set and side set, in this order, with whether it
   *  is selected. */
  static std::vector<Leaf> Leaves(const mxn_structure_t* s, const std::vector<int>& blocks,
    vtkDataArraySelection* nodeSets, vtkDataArraySelection* sideSets);

  /** The index in the output's leaf order (vtkMxNEntityLeaves::Leaves)
   *  of the entity of Exodus type `type` (MXN_ENTITY_*) and id `id`; -1
   *  if the structure has none or the type is not a leaf kind. */
  static int LeafOf(const mxn_structure_t* s, int type, mxn_gid_t id);
  /** Every leaf's name, in that order. */
  static std::vector<std::string> LeafNames(const mxn_structure_t* s);

  /**
   * Add under `parent` of `a` the dataset's Exodus assemblies as
   * vtkIOSSReader lays them out: every assembly that no other assembly
   * holds, in id order, as a node named after it, holding its members in
   * file order: assemblies as nodes of their own (recursively), entities
   * as nodes named after the entity with the entity's leaf index
   * (LeafOf) as their dataset. Members of kinds that are no leaf are left
   * out. Local.
   */
  static void AddFileAssemblies(vtkDataAssembly* a, int parent, const mxn_structure_t* s);

  /**
   * Fill `output` with one partitioned dataset per leaf, holding one grid
   * where this rank has some of a selected leaf and none where it has
   * nothing of it (a selected leaf empty on every rank: one empty grid on
   * rank 0; an unselected leaf: none anywhere), and the `IOSS`
   * assembly (a copy of the one in `assembly`, made anew there when the
   * leaves changed). `mappings` and `topos` are per block; `progress` is
   * told the fraction of leaves done. False (output emptied, Error() says
   * why) if the piece is inconsistent.
   */
  bool Fill(vtkPartitionedDataSetCollection* output, const std::vector<Leaf>& leaves,
    const std::vector<vtkMxNCellTypes::CellMapping>& mappings,
    std::vector<vtkMxNBlockTopology>& topos, vtkMxNAssemblyCache& assembly,
    const std::function<void(double)>& progress);

  /** Element block b with the selected element variables and attributes.
   *  With `topo`: its structure is taken from there when it holds one (a
   *  further time step of the same piece), else saved there. */
  vtkSmartPointer<vtkUnstructuredGrid> Block(
    int b, const vtkMxNCellTypes::CellMapping& map, vtkMxNBlockTopology* topo);
  /** Node set q: one vertex per node of the set on this piece. */
  vtkSmartPointer<vtkUnstructuredGrid> NodeSet(int q);
  /** Side set q: one face (3D) or edge (2D, shell edges) per side, built
   *  from the element's topology. */
  vtkSmartPointer<vtkUnstructuredGrid> SideSet(int q);

  /**
   * Move every point by `scale` times the nodal displacement vector whose
   * components are the nodal variables `vars` (structure indices, one per
   * spatial dimension), as vtkIOSSReader's ApplyDisplacements does. The
   * piece's own coordinates stay as read; ghost points move by their
   * owner's values (the piece holds them). No effect without the step's
   * values of every component, or with an empty `vars`.
   */
  void SetDisplacement(const std::vector<int>& vars, double scale);

  /** What the leaves of vtkMxNEntityLeaves.cxx read: the owners of the
   *  piece's edges and faces (mxn_load_entity_owners; null without edge
   *  or face blocks) and the field selections (null: all) of edge and face
   *  blocks and of each kind of set (vtkMxNEntityLeaves::Selection
   *  order, from EDGE_BLOCK_FIELDS). */
  struct EntityContext
  {
    const mxn_load_entity_owners_t* Owners = nullptr;
    vtkDataArraySelection* Fields[7] = { nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
      nullptr };
  };
  void SetEntityContext(const EntityContext& c) { this->Entity = c; }
  /** Edge block (faces false) or face block q: one line (polygon) per edge
   *  (face) of the piece, with `ids`, `object_id`, the selected variables
   *  and attributes; copies another rank owns are DUPLICATECELL. */
  vtkSmartPointer<vtkUnstructuredGrid> EdgeFaceBlock(bool faces, int q);
  /** Element (ELEM_SET), face or edge set q: one cell per entry (the
   *  element's, face's or edge's own shape), `ids` of the entries,
   *  `object_id`, the selected set variables; copies another rank owns
   *  are DUPLICATECELL. */
  vtkSmartPointer<vtkUnstructuredGrid> EntitySet(int kind, int q);

  /** With `on`, every leaf gets the cell array `file_id`: the member each
   *  cell (a side: its element) was read from (mxn_piece_block_t.member;
   *  a node-set vertex: mxn_piece_set_t.member), as vtkIOSSReader's
   *  GenerateFileId. */
  void SetGenerateFileId(bool on) { this->FileIds = on; }

  /** Why the last grid could not be built. */
  const std::string& Error() const { return this->Err; }

  /** Global variables (grouped like the others), one tuple each, as the
   *  collection's field data (as vtkIOSSReader). */
  static void AddGlobalVariables(vtkPartitionedDataSetCollection* output,
    const mxn_structure_t* s, const mxn_piece_t* p,
    const vtkMxNVariables::Grouping& how = vtkMxNVariables::Grouping());
  /** The QA records (`QA Records`, 4 components: code, version, date,
   *  time) and information records (`Information Records`) of the
   *  dataset as string arrays of the collection's field data, as
   *  vtkIOSSReader gives them (empty arrays when the file has none). */
  static void AddRecords(vtkPartitionedDataSetCollection* output, const mxn_structure_t* s);
  /** This rank's load counters as the one-tuple array `mxn_load_stats`,
   *  one named component each. */
  static void AddLoadStats(vtkPartitionedDataSetCollection* output, const mxn_load_stats_t& x);
  /** What the re-balance of this step did (MxNImbalanceBefore, ...), what
   *  it was weighed by and this rank's measured time. */
  static void AddRebalanceReport(vtkPartitionedDataSetCollection* output,
    const mxn_rebalance_report_t& rp, double measuredSeconds, const std::string& costSource);

private:
  // Local() and Mark() are defined here, so that the compiler may inline
  // them: a call to a member of this exported class from its own library
  // goes through the PLT. Mark runs once per entry of a node or side set;
  // MarkBlockNodes, once per connectivity entry, does Mark's work in its
  // own loop (called through the PLT there: 8 ms of a rank's 0.3 s, 1M hex
  // on 4 ranks).
  /** LocalIndex, made (all -1) on first use. */
  std::vector<vtkIdType>& Local()
  {
    if (this->LocalIndex.empty())
    {
      this->LocalIndex.assign(static_cast<size_t>(this->P->num_nodes), -1);
    }
    return this->LocalIndex;
  }
  /** Flags piece node n in LocalIndex (once). */
  void Mark(int64_t n)
  {
    std::vector<vtkIdType>& local = this->Local();
    if (local[n] < 0)
    {
      local[n] = 0;
      this->Marked.push_back(n);
    }
  }
  void ClearMarks();
  std::vector<int64_t> NumberUsedNodes();
  void ClearUsed(const std::vector<int64_t>& used);
  void AddPointFields(vtkPointData* pd, const std::vector<int64_t>& used);
  void AddCellFields(vtkCellData* cd, int b);
  vtkSmartPointer<vtkUnstructuredGrid> PointGrid(const std::vector<int64_t>& used);
  /** The coordinates of the piece nodes `used`, displaced if asked. */
  vtkSmartPointer<vtkPoints> Points(const std::vector<int64_t>& used) const;

  vtkSmartPointer<vtkUnstructuredGrid> BlockFromTopology(int b, const vtkMxNBlockTopology& topo);
  bool Holds(const Leaf& leaf) const;
  void SelectedCellGroups(int b, std::vector<vtkMxNVariables::VarGroup>& vars,
    std::vector<vtkMxNVariables::VarGroup>& attrs);
  bool MarkBlockNodes(int b);
  void PolygonCells(vtkUnstructuredGrid* grid, int b);
  void PolyhedronCells(vtkUnstructuredGrid* grid, int b);
  mxn_gid_t* FixedCells(vtkUnstructuredGrid* grid, int b,
    const vtkMxNCellTypes::CellMapping& map, size_t numUsed);
  void BlockCellArrays(vtkCellData* cd, int b, mxn_gid_t* givenIds);

  void SetVariables(vtkCellData* cd, const mxn_var_list_t& list, int q, const mxn_piece_set_t& ps,
    vtkDataArraySelection* selected = nullptr);
  bool HoldsEntity(const Leaf& leaf) const;
  bool EntityCell(int kind, int64_t entry, int& vtkType, std::vector<vtkIdType>& nodes);
  void EntityGhosts(vtkCellData* cd, int kind, const mxn_piece_set_t* ps, int q);
  vtkSmartPointer<vtkUnstructuredGrid> EntityGrid(int kind, int q, const std::vector<int>& types,
    std::vector<std::vector<vtkIdType>>& cells, const mxn_piece_set_t* ps, const mxn_gid_t* ids,
    mxn_gid_t objectId, const std::function<void(vtkCellData*)>& fields);
  bool PolySide(int b, int64_t e, int side, vtkMxNCellTypes::SideShape& out);
  bool SideShapes(int q, std::vector<vtkMxNCellTypes::SideShape>& shapes, std::vector<int>& blockOf);
  void SideCellArrays(vtkCellData* cd, int q, const std::vector<int>& blockOf);

  const mxn_structure_t* S;
  const mxn_piece_t* P;
  const mxn_load_halo_t* Halo; // null without ghost layers
  int Rank;
  vtkDataArraySelection* CellSel;
  mxn_load_t* Give;
  vtkMxNVariables::Grouping How; // how variables group into arrays
  std::vector<vtkMxNVariables::VarGroup> NodeGroups; // selected ones
  // piece node -> grid point, -1 if unused: made on first use (Local()),
  // since a time step that reuses the grids' topology needs none
  std::vector<vtkIdType> LocalIndex;
  // the piece nodes flagged in LocalIndex since the last NumberUsedNodes:
  // a model of many blocks numbers each block's few nodes without a pass
  // over all the piece's nodes per block
  std::vector<int64_t> Marked;
  std::vector<int64_t> BlockStart; // first concatenated element index per block
  // Each block's connectivity and element ids: the piece's, or where a
  // grid of an earlier request owns them since the load handed them over
  // (the piece's pointers are null then). ElemIds are the ids shown
  // (`ids`, element_side): the block's orig_ids where the piece has them
  // (nem_spread's original_global_id_map; never handed over), as
  // vtkIOSSReader shows them.
  std::vector<const int64_t*> Conn;
  std::vector<const mxn_gid_t*> ElemIds;
  bool HaveFields;
  bool KeepAll = false; // every grid with all the piece's nodes
  // the displacement's components (piece arrays, one per dimension) and
  // scale; empty when the points stay where the file puts them
  std::vector<const double*> Disp;
  double DispScale = 0.0;
  EntityContext Entity;
  bool FileIds = false; // SetGenerateFileId
  std::string Err;
};

#endif
