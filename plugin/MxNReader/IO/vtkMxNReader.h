/**
 * @class   vtkMxNReader
 * @brief   Reads an Exodus II dataset written as M files on any number N of
 *          ranks (MxN load-time repartitioning).
 *
 * The reader accepts a plain Exodus file, any member of a spread set
 * (`mesh.e.4.0`, `mesh.e.12.03`) or the base name of one (`mesh.e`), and
 * adaptive series of them (`out.e`, `out.e-s002`, ..., each segment plain
 * or spread over its own M): from one name the core discovers the series
 * (mxn_series_open), or the names of its files are given as a list
 * (AddFileName, as vtkIOSSReader takes them). The series' time steps are
 * the union of its segments' (the later segment wins a shared time); the
 * output at a time is that segment's mesh, and the selection lists are the
 * union of the segments' names. All
 * work is done by the C core library (libmxn): the collective
 * `mxn_load_open()` gives every rank its balanced piece, and this class only
 * converts that piece to VTK objects and turns core errors into
 * vtkErrorMacro messages.
 *
 * Output, per rank: a vtkPartitionedDataSetCollection holding, in this
 * order, one vtkPartitionedDataSet per selected element block, per selected
 * node set and per selected side set, each with one vtkUnstructuredGrid
 * (possibly empty, so that every rank has the same structure and arrays). A
 * vtkDataAssembly named `IOSS` groups them under `element_blocks`,
 * `node_sets` and `side_sets`. Names and arrays follow ParaView 5.11's
 * vtkIOSSReader so existing scripts and selectors work:
 *  - entity names: the Exodus name, else `block_<id>`, `nodelist_<id>`,
 *    `surface_<id>`;
 *  - point array `ids` (global node ids; the GlobalIds and PedigreeIds
 *    attributes) and the nodal variables, on every grid;
 *  - element blocks: cell arrays `ids` (global element ids; GlobalIds and
 *    PedigreeIds), the element variables defined on the block, `attribute`
 *    (all element attributes) plus one array per named attribute, and
 *    `object_id` (the block id);
 *  - node sets: one vertex per node, cell arrays with the set variables and
 *    `object_id`;
 *  - side sets: one cell per element side (its face or edge, built from the
 *    element's topology), cell arrays `element_side` (element id, 1-based
 *    side), the set variables and `object_id`;
 *  - variables named like `vel_x vel_y vel_z` or `VX VY VZ` (and tensors
 *    `s_xx ... s_zx`) become one multi-component array `vel` / `V` / `s`,
 *    as vtkIOSSReader groups them; global variables (grouped the same way)
 *    are the collection's field data, one tuple each;
 *  - with ghost layers, `vtkGhostType` on cells (1 = DUPLICATECELL for halo
 *    elements and for set entries on them or on nodes owned elsewhere) and
 *    on points (1 = DUPLICATEPOINT where another rank owns the node).
 *
 * Pieces (UPDATE_PIECE_NUMBER p of UPDATE_NUMBER_OF_PIECES n):
 *  - n = 1: the whole dataset is read on MPI_COMM_SELF;
 *  - n = number of ranks of the global vtkMPIController (the normal case
 *    under pvserver / pvbatch): one collective load over its communicator,
 *    and rank r gets part p (pieces may be any permutation of the ranks);
 *  - any other n (streaming, or a pipeline asking for more or fewer pieces
 *    than there are ranks): no collective call is made; piece 0 gets the
 *    whole dataset read on MPI_COMM_SELF and every other piece an empty
 *    collection, so the union of the pieces is the dataset exactly once.
 *    A warning (from piece 0) says so.
 * Without ghost layers (L = 0 at N > 1, which ParaView avoids: it asks
 * readers of unstructured data for 1 level when running on several ranks)
 * nodes shared by ranks appear on each of them unmarked, and so do node-set
 * vertices on such nodes.
 * Ghost layers: max(GhostLevels, UPDATE_NUMBER_OF_GHOST_LEVELS), only in
 * the collective case (a whole dataset has no halo).
 *
 * The load (partition, cover and extraction plan) is cached: a new time
 * step only reads that step's fields. Changing the file, the method, the
 * ghost levels, the balance options or any selection re-opens it. In a
 * series, a step of another segment opens that segment's load (same
 * options); the loads of the two most recently used segments stay open
 * (vtkMxNSeries::MaxLoads), so scrubbing back and forth across one mesh
 * change re-partitions nothing. With RebalanceEachTimeStep only the
 * current segment's load is kept: re-balancing starts afresh at each mesh
 * change.
 *
 * This class holds the properties and the pipeline passes only. The load
 * and what is kept between requests are in vtkMxNReaderInternals, the
 * conversion of a piece to VTK objects in vtkMxNPieceConverter, element
 * types and sides in vtkMxNCellTypes (sides from the core's tables), names
 * and the grouping of variables into arrays in vtkMxNVariables.
 */
#ifndef vtkMxNReader_h
#define vtkMxNReader_h

#include "vtkMxNIOModule.h" // for export macro
#include "vtkPartitionedDataSetCollectionAlgorithm.h"

#include <string> // for std::string
#include <vector> // for std::vector

class vtkCallbackCommand;
class vtkDataArraySelection;
class vtkDataAssembly;
class vtkMxNSeries;

class VTKMXNIO_EXPORT vtkMxNReader : public vtkPartitionedDataSetCollectionAlgorithm
{
public:
  static vtkMxNReader* New();
  vtkTypeMacro(vtkMxNReader, vtkPartitionedDataSetCollectionAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  ///@{
  /**
   * The dataset: a plain Exodus file, a spread-set member or its base name,
   * or any file of an adaptive series (the series is discovered beside
   * it). SetFileName() replaces the list by one name (nullptr empties it);
   * GetFileName() is the first name (nullptr when there is none).
   */
  void SetFileName(const char* fname);
  const char* GetFileName() const;
  ///@}

  ///@{
  /**
   * The files of a series as a list, as the proxy's repeatable FileName
   * property sets them (ClearFileNames, then AddFileName for each): the
   * ParaView file dialog's grouped `out.e-s..` selection or a script's
   * `FileName=[a.e, a.e-s002]`. One name behaves as SetFileName().
   */
  void AddFileName(const char* fname);
  void ClearFileNames();
  int GetNumberOfFileNames() const;
  const char* GetFileName(int index) const;
  ///@}

  ///@{
  /**
   * How the elements are divided among the ranks: a method's number in the
   * core's table (MXN_PART_METHODS in mxn/partition.h, which the proxy
   * XML's enumeration repeats), clamped to the methods the reader offers.
   * Default Files (0). Changing it re-reads the mesh on the next update.
   */
  void SetPartitionMethod(int method);
  vtkGetMacro(PartitionMethod, int);
  ///@}

  ///@{
  /**
   * Ghost layers to read around each rank's piece (default 0). The load
   * uses the larger of this and the pipeline's request.
   */
  vtkSetClampMacro(GhostLevels, int, 0, 100);
  vtkGetMacro(GhostLevels, int);
  ///@}

  ///@{
  /**
   * Element variable whose values (absolute, at the time step of the load)
   * weigh the elements for partitioning. Empty (default): uniform weights.
   */
  vtkSetStringMacro(LoadBalanceField);
  vtkGetStringMacro(LoadBalanceField);
  ///@}

  ///@{
  /** Allowed max/average weight ratio of the partition (default 1.05). */
  vtkSetClampMacro(ImbalanceTolerance, double, 1.0, 100.0);
  vtkGetMacro(ImbalanceTolerance, double);
  ///@}

  ///@{
  /**
   * Re-balance at every time step (mxn_load_rebalance): with a
   * LoadBalanceField, each new step's |field| weighs the elements; when
   * max/avg exceeds ImbalanceTolerance the core moves work between ranks
   * (string shift for Files/SFC/Linear, cut-tree shift for RCB, Zoltan
   * REPARTITION for RIB/HSFC/Graph) and each rank reads only the elements
   * it gained and their ghosts. The output's field data then holds
   * MxNImbalanceBefore, MxNImbalanceAfter, MxNMigratedElements,
   * MxNBytesReRead (all ranks), MxNRebalanceSeconds, MxNRebalanced (0/1)
   * and MxNRebalanceStep (1-based). Without a LoadBalanceField it changes nothing, unless
   * LoadBalanceCost is MEASURED_TIME.
   */
  vtkSetMacro(RebalanceEachTimeStep, bool);
  vtkGetMacro(RebalanceEachTimeStep, bool);
  vtkBooleanMacro(RebalanceEachTimeStep, bool);
  ///@}

  /** What RebalanceEachTimeStep weighs the elements by. */
  enum LoadBalanceCosts
  {
    FIELD_COST = 0,   ///< the LoadBalanceField's |values| at the step
    MEASURED_TIME = 1 ///< the downstream pipeline's time on this rank last step
  };

  ///@{
  /**
   * FIELD_COST (default): the LoadBalanceField weighs the elements.
   * MEASURED_TIME: the wall time from the end of the reader's last
   * RequestData to the start of this one on each rank (the time the
   * downstream pipeline took on that rank's piece) is the cost the next
   * re-balance passes to the core (mxn_rebalance_opts_t::cost), spread
   * over the rank's owned cells: evenly, or in proportion to the
   * LoadBalanceField's |values| if one is set. Re-balancing then works
   * without a field. The first step (nothing measured yet) is weighed by
   * the field, or not at all. Between steps of an interactive session the
   * time includes the user's idle time, which lands on every rank alike and
   * only damps the imbalance. The output's field data adds MxNLoadBalanceCost
   * ("Field", "MeasuredTime" or "MeasuredTime x Field", "None" while nothing
   * is measured) and MxNMeasuredSeconds (this rank's time, -1 if none).
   */
  vtkSetClampMacro(LoadBalanceCost, int, FIELD_COST, MEASURED_TIME);
  vtkGetMacro(LoadBalanceCost, int);
  ///@}

  ///@{
  /**
   * Move the points by the nodal displacement vector (default on), scaled
   * by DisplacementMagnitude (default 1), as vtkIOSSReader and
   * vtkExodusIIReader do: the vector is the first nodal variable group
   * whose name starts with "dis" (any case: `DISPL`, `disp`, `DISP_`…)
   * and has one component per spatial dimension. Owned and ghost points
   * move alike (a ghost point by its owner's values) at every step; the
   * displacement is read whether or not it is selected as a point array.
   * The core and the CLI keep the coordinates as stored.
   */
  vtkSetMacro(ApplyDisplacements, bool);
  vtkGetMacro(ApplyDisplacements, bool);
  vtkBooleanMacro(ApplyDisplacements, bool);
  vtkSetMacro(DisplacementMagnitude, double);
  vtkGetMacro(DisplacementMagnitude, double);
  ///@}

  ///@{
  /**
   * Mode shapes, as vtkExodusIIReader offers them for the results of an
   * eigen-analysis, whose "time" values are frequencies. With
   * HasModeShapes (default off) the dataset's time steps are not offered
   * as times: ModeShape (1-based, default 1) picks the step to show, and
   * with AnimateVibrations (default on) the time range is [0, 1] and the
   * points move by DisplacementMagnitude * cos(2 pi t) times that step's
   * displacement (with ApplyDisplacements on), so that playing the
   * animation shows the mode vibrating. GetModeShapesRange() gives the
   * valid ModeShape values [1, number of steps].
   */
  vtkSetMacro(HasModeShapes, bool);
  vtkGetMacro(HasModeShapes, bool);
  vtkBooleanMacro(HasModeShapes, bool);
  vtkSetMacro(ModeShape, int);
  vtkGetMacro(ModeShape, int);
  vtkSetMacro(AnimateVibrations, bool);
  vtkGetMacro(AnimateVibrations, bool);
  vtkBooleanMacro(AnimateVibrations, bool);
  vtkGetVector2Macro(ModeShapesRange, int);
  ///@}

  ///@{
  /**
   * As vtkIOSSReader's. ReadIds (default on): the `ids` point and cell
   * arrays (global node and element ids, also the GlobalIds and
   * PedigreeIds attributes); off leaves them out. RemoveUnusedPoints
   * (default on): each grid has the points its cells use; off, every grid
   * has all the nodes of the rank's piece. ReadGlobalFields
   * (default on): global variables as the output's field data.
   */
  vtkSetMacro(ReadIds, bool);
  vtkGetMacro(ReadIds, bool);
  vtkBooleanMacro(ReadIds, bool);
  vtkSetMacro(RemoveUnusedPoints, bool);
  vtkGetMacro(RemoveUnusedPoints, bool);
  vtkBooleanMacro(RemoveUnusedPoints, bool);
  vtkSetMacro(ReadGlobalFields, bool);
  vtkGetMacro(ReadGlobalFields, bool);
  vtkBooleanMacro(ReadGlobalFields, bool);
  ///@}

  ///@{
  /**
   * ScanForRelatedFiles (default on), as vtkIOSSReader's: a single name
   * finds the adaptive series beside it (`out.e`, `out.e-s002`, ...) and,
   * for a member of a spread set, the set's other members; off, only the
   * names given are read: a single member name (`mesh.e.4.2`) is that
   * member alone.
   */
  vtkSetMacro(ScanForRelatedFiles, bool);
  vtkGetMacro(ScanForRelatedFiles, bool);
  vtkBooleanMacro(ScanForRelatedFiles, bool);
  ///@}

  ///@{
  /**
   * FileRange (default [0, -1]) and FileStride (default 1), as
   * vtkIOSSReader's: when FileRange[1] > FileRange[0], only the members of
   * a spread set whose rank r (`mesh.e.M.r`) is in [FileRange[0],
   * FileRange[1]) and (r - FileRange[0]) % FileStride == 0 are read, as if
   * the set had only them (of a series, of every spread segment); otherwise
   * every member, whatever the stride. A plain file is read whole. The
   * core opens only those members (mxn_member_select_t).
   */
  vtkSetVector2Macro(FileRange, int);
  vtkGetVector2Macro(FileRange, int);
  vtkSetClampMacro(FileStride, int, 1, VTK_INT_MAX);
  vtkGetMacro(FileStride, int);
  ///@}

  ///@{
  /**
   * ReadQAAndInformationRecords (default on): the dataset's QA records
   * (`QA Records`, 4 components) and information records (`Information
   * Records`) as string arrays of the output's field data, as
   * vtkIOSSReader gives them.
   */
  vtkSetMacro(ReadQAAndInformationRecords, bool);
  vtkGetMacro(ReadQAAndInformationRecords, bool);
  vtkBooleanMacro(ReadQAAndInformationRecords, bool);
  ///@}

  ///@{
  /**
   * Exodus assemblies (Exodus 8 `ex_put_assembly`), as vtkIOSSReader
   * offers them. GetAssembly() is the dataset's assemblies under a root
   * `Assemblies` (nullptr when it has none), each assembly a node holding
   * its member assemblies and entities (entity nodes named after the
   * entity, with the entity's output index as their dataset); it changes
   * when the information pass reads another dataset, and AssemblyTag
   * with it. Selectors are paths into it (`/Assemblies/Root/Child2`):
   * the blocks and sets under a selected node are read as if they were
   * selected in their own list (a block or set is read if either selects
   * it). The output's data assembly also lists the assemblies, under
   * `/IOSS/assemblies`.
   */
  vtkDataAssembly* GetAssembly() { return this->FileAssemblies; }
  vtkGetMacro(AssemblyTag, int);
  bool AddSelector(const char* selector);
  void ClearSelectors();
  int GetNumberOfSelectors() const { return static_cast<int>(this->Selectors.size()); }
  const char* GetSelector(int index) const;
  ///@}

  ///@{
  /**
   * As vtkIOSSReader's GenerateFileId (default off): every block, node
   * set and side set leaf gets the cell array `file_id`, the member file
   * each cell was read from (j of `mesh.e.M.j`, 0 for a single file; a
   * side: its element's). MxN reads a cell from one member even where
   * several hold it, so each cell has one value where IOSSReader gives a
   * copy per file: a node-set vertex on the border of members names the
   * lowest-numbered member listing it (IOSSReader's first copy).
   */
  vtkSetMacro(GenerateFileId, bool);
  vtkGetMacro(GenerateFileId, bool);
  vtkBooleanMacro(GenerateFileId, bool);
  ///@}

  ///@{
  /**
   * How variables group into multi-component arrays, as vtkIOSSReader's
   * properties of these names. GroupNumericVectorFieldComponents (default
   * off): `a_1 a_2 a_3` (or `a1 a2 a3`) become one 3-component array `a`.
   * FieldSuffixSeparator (default empty): what must stand between a
   * variable's name and its component suffix; empty lets the suffix follow
   * directly or after '_' (`VX VY VZ` and `vel_x vel_y vel_z` both group),
   * "_" groups only the latter. Changing either re-reads the names offered.
   */
  vtkSetMacro(GroupNumericVectorFieldComponents, bool);
  vtkGetMacro(GroupNumericVectorFieldComponents, bool);
  vtkBooleanMacro(GroupNumericVectorFieldComponents, bool);
  vtkSetStringMacro(FieldSuffixSeparator);
  vtkGetStringMacro(FieldSuffixSeparator);
  ///@}

  ///@{
  /**
   * Selections, filled from the file by RequestInformation (ParaView's
   * ArraySelectionInformationHelper reads them through these methods).
   * Element blocks and point/cell arrays are on by default, node and side
   * sets off. Point and cell array names are the grouped names (`vel`, not
   * `vel_x`); cell arrays include element attributes.
   */
  int GetNumberOfElementBlockArrays();
  const char* GetElementBlockArrayName(int index);
  int GetElementBlockArrayStatus(const char* name);
  void SetElementBlockArrayStatus(const char* name, int status);

  int GetNumberOfNodeSetArrays();
  const char* GetNodeSetArrayName(int index);
  int GetNodeSetArrayStatus(const char* name);
  void SetNodeSetArrayStatus(const char* name, int status);

  int GetNumberOfSideSetArrays();
  const char* GetSideSetArrayName(int index);
  int GetSideSetArrayStatus(const char* name);
  void SetSideSetArrayStatus(const char* name, int status);

  int GetNumberOfPointArrays();
  const char* GetPointArrayName(int index);
  int GetPointArrayStatus(const char* name);
  void SetPointArrayStatus(const char* name, int status);

  int GetNumberOfCellArrays();
  const char* GetCellArrayName(int index);
  int GetCellArrayStatus(const char* name);
  void SetCellArrayStatus(const char* name, int status);

  vtkGetObjectMacro(ElementBlockSelection, vtkDataArraySelection);
  vtkGetObjectMacro(NodeSetSelection, vtkDataArraySelection);
  vtkGetObjectMacro(SideSetSelection, vtkDataArraySelection);
  vtkGetObjectMacro(PointArraySelection, vtkDataArraySelection);
  vtkGetObjectMacro(CellArraySelection, vtkDataArraySelection);
  ///@}

  ///@{
  /**
   * vtkIOSSReader's selections of edge and face blocks, element, face and
   * edge sets, and of their fields and the node and side sets' fields
   * (the proxy's EdgeBlocks ... SideSetFields). Blocks and block fields
   * are on by default, sets and set fields off.
   */
  vtkDataArraySelection* GetEdgeBlockSelection() { return this->EntitySelections[0]; }
  vtkDataArraySelection* GetFaceBlockSelection() { return this->EntitySelections[1]; }
  vtkDataArraySelection* GetElementSetSelection() { return this->EntitySelections[2]; }
  vtkDataArraySelection* GetFaceSetSelection() { return this->EntitySelections[3]; }
  vtkDataArraySelection* GetEdgeSetSelection() { return this->EntitySelections[4]; }
  vtkDataArraySelection* GetEdgeBlockFieldSelection() { return this->EntitySelections[5]; }
  vtkDataArraySelection* GetFaceBlockFieldSelection() { return this->EntitySelections[6]; }
  vtkDataArraySelection* GetElementSetFieldSelection() { return this->EntitySelections[7]; }
  vtkDataArraySelection* GetFaceSetFieldSelection() { return this->EntitySelections[8]; }
  vtkDataArraySelection* GetEdgeSetFieldSelection() { return this->EntitySelections[9]; }
  vtkDataArraySelection* GetNodeSetFieldSelection() { return this->EntitySelections[10]; }
  vtkDataArraySelection* GetSideSetFieldSelection() { return this->EntitySelections[11]; }
  ///@}

  /**
   * Returns 1 if `fname` looks like a dataset this reader reads, 0
   * otherwise. Used by ParaView's reader factory, on every click in the
   * file dialog, so it is cheap: it decides from the name and at most one
   * file's header, never the other members of a set. A file (plain, or a
   * member of a spread set) is accepted if Exodus opens it; a base name
   * (`mesh.e` with no such file) if one spread set `mesh.e.M.r` lies
   * beside it and its rank-0 member opens. Whether the set is complete and
   * consistent is only known when the reader reads it.
   */
  int CanReadFile(const char* fname);

protected:
  vtkMxNReader();
  ~vtkMxNReader() override;

  int RequestInformation(vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) override;
  int RequestData(vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) override;

  std::vector<std::string> FileNames;
  int PartitionMethod = 0; // MXN_PART_FILES, set in the constructor
  int GhostLevels = 0;
  char* LoadBalanceField = nullptr;
  double ImbalanceTolerance = 1.05;
  bool RebalanceEachTimeStep = false;
  int LoadBalanceCost = FIELD_COST;
  bool ApplyDisplacements = true;
  double DisplacementMagnitude = 1.0;
  bool HasModeShapes = false;
  int ModeShape = 1;
  bool AnimateVibrations = true;
  int ModeShapesRange[2] = { 1, 1 };
  bool ReadIds = true;
  bool RemoveUnusedPoints = true;
  bool ReadGlobalFields = true;
  bool GenerateFileId = false;
  bool GroupNumericVectorFieldComponents = false;
  char* FieldSuffixSeparator = nullptr;
  bool ReadQAAndInformationRecords = true;
  bool ScanForRelatedFiles = true;
  int FileRange[2] = { 0, -1 };
  int FileStride = 1;
  std::vector<std::string> Selectors;
  vtkDataAssembly* FileAssemblies = nullptr;
  int AssemblyTag = 0;

  vtkDataArraySelection* ElementBlockSelection;
  vtkDataArraySelection* NodeSetSelection;
  vtkDataArraySelection* SideSetSelection;
  vtkDataArraySelection* PointArraySelection;
  vtkDataArraySelection* CellArraySelection;
  // vtkMxNEntityLeaves::Selection order
  vtkDataArraySelection* EntitySelections[12];

private:
  vtkMxNReader(const vtkMxNReader&) = delete;
  void operator=(const vtkMxNReader&) = delete;

  /** A selection changed: the reader is modified (unless it is filling
   *  the selections itself). */
  static void SelectionModifiedCallback(vtkObject*, unsigned long, void* clientdata, void*);

  /** True while RequestInformation fills the selections. */
  bool FillingSelections = false;
  // Where each selection was last asked by index (the accessors below).
  int ElementBlockHint = -1, NodeSetHint = -1, SideSetHint = -1, PointHint = -1, CellHint = -1;
  vtkCallbackCommand* SelectionObserver;

  /** The series' segments, each with its cached load and what is kept
   *  between requests (see vtkMxNSeries). */
  vtkMxNSeries* Series;
  /** The names the last information pass read (RequestData reads only
   *  what it described). */
  std::vector<std::string> InformationFiles;
};

#endif
