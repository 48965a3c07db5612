// The MxN reader's VTK algorithm: properties, selections and the pipeline
// passes. The work is done by the core (libmxn) through
// vtkMxNReaderInternals, one per segment of the dataset (vtkMxNSeries);
// vtkMxNPieceConverter turns its piece into VTK objects.
#include "vtkMxNReader.h"

#include "vtkCallbackCommand.h"
#include "vtkDataArraySelection.h"
#include "vtkDataAssembly.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkMxNCellTypes.h"
#include "vtkMxNEntityLeaves.h"
#include "vtkMxNPieceConverter.h"
#include "vtkMxNReaderInternals.h"
#include "vtkMxNSeries.h"
#include "vtkMxNVariables.h"
#include "vtkCellData.h"
#include "vtkDataSet.h"
#include "vtkIndent.h"
#include "vtkMath.h"
#include "vtkNew.h"
#include "vtkObjectFactory.h"
#include "vtkPartitionedDataSet.h"
#include "vtkPartitionedDataSetCollection.h"
#include "vtkPointData.h"
#include "vtkSmartPointer.h"
#include "vtkStreamingDemandDrivenPipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

vtkStandardNewMacro(vtkMxNReader);

namespace
{
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
  // The whole list at once, then the known names' states: AddArray per
  // name searches the list each time (K^2 compares for K blocks).
  // (a name given twice is one entry, as AddArray made it)
  std::vector<const char*> cnames;
  std::unordered_set<std::string> seen;
  for (const auto& name : names)
  {
    if (seen.insert(name).second)
    {
      cnames.push_back(name.c_str());
    }
  }
  sel->RemoveAllArrays();
  sel->SetArraysWithDefault(cnames.data(), static_cast<int>(cnames.size()), def ? 1 : 0);
  for (const char* name : cnames)
  {
    auto it = old.find(name);
    if (it != old.end() && (it->second != 0) != def)
    {
      sel->SetArraySetting(name, it->second);
    }
  }
}

/** Index of `name` in sel, -1 if absent, trying `hint` and the entry after
 *  it first (and leaving it there): ParaView walks a selection list in
 *  order, name by index then status by name, and the selection's own
 *  search by name is linear, so a model of K blocks and sets cost K^2
 *  string compares on every rank. */
int IndexOf(vtkDataArraySelection* sel, const char* name, int& hint)
{
  const int n = sel->GetNumberOfArrays();
  for (int i : { hint, hint + 1 })
  {
    if (name && i >= 0 && i < n && std::strcmp(sel->GetArrayName(i), name) == 0)
    {
      hint = i;
      return i;
    }
  }
  const int i = name ? sel->GetArrayIndex(name) : -1;
  if (i >= 0)
  {
    hint = i;
  }
  return i;
}

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

/** A pipeline request's integer, or `def` if it has none. */
int RequestValue(vtkInformation* info, vtkInformationIntegerKey* key, int def)
{
  return info->Has(key) ? info->Get(key) : def;
}

/** The VTK cell of every selected block; false and `error` for a block
 *  whose type has none. All ranks share the structure, so all refuse
 *  alike. */
bool MapBlocks(const mxn_structure_t* s, const std::vector<int>& selected, const char* fileName,
  std::vector<vtkMxNCellTypes::CellMapping>& mappings, std::string& error)
{
  mappings.assign(static_cast<size_t>(s->num_blocks), vtkMxNCellTypes::CellMapping());
  for (int b = 0; b < s->num_blocks; ++b)
  {
    const mxn_block_info_t& bi = s->blocks[b];
    if (selected[b] && bi.num_elements > 0 && !bi.poly &&
      !vtkMxNCellTypes::MapCellType(bi.type, bi.nodes_per_elem, mappings[b]))
    {
      std::ostringstream m;
      m << "Cannot read '" << fileName << "': element block " << bi.id << " ('"
        << vtkMxNVariables::EntityName(bi.name, "block", bi.id) << "') has element type '"
        << bi.type << "' with " << bi.nodes_per_elem
        << " nodes, which this reader cannot map to a VTK cell.";
      error = m.str();
      return false;
    }
  }
  return true;
}

/** Without ReadIds: every grid of the output without its `ids` arrays
 *  (and so without GlobalIds / PedigreeIds), as vtkIOSSReader leaves them
 *  out. The grids are the output's own (further steps build new ones). */
void RemoveIds(vtkPartitionedDataSetCollection* output)
{
  for (unsigned int i = 0; i < output->GetNumberOfPartitionedDataSets(); ++i)
  {
    vtkPartitionedDataSet* pds = output->GetPartitionedDataSet(i);
    for (unsigned int k = 0; pds && k < pds->GetNumberOfPartitions(); ++k)
    {
      if (vtkDataSet* g = pds->GetPartition(k))
      {
        g->GetPointData()->RemoveArray("ids");
        g->GetCellData()->RemoveArray("ids");
      }
    }
  }
}

/** Per leaf of `s` (vtkMxNPieceConverter::Leaves order), whether one of
 *  the assembly selectors chooses it: the leaves under the nodes the
 *  selectors name in the dataset's assemblies (rooted at "Assemblies", as
 *  vtkMxNReader::GetAssembly). Empty when no selector chooses any. */
std::vector<char> ChosenLeaves(const mxn_structure_t* s, const std::vector<std::string>& selectors)
{
  std::vector<char> chosen;
  if (selectors.empty() || s->num_assemblies <= 0)
  {
    return chosen;
  }
  vtkNew<vtkDataAssembly> a;
  a->SetRootNodeName("Assemblies");
  vtkMxNPieceConverter::AddFileAssemblies(a, 0, s);
  const std::vector<int> nodes = a->SelectNodes(selectors);
  for (unsigned int leaf : a->GetDataSetIndices(nodes))
  {
    if (chosen.empty())
    {
      chosen.assign(vtkMxNPieceConverter::LeafNames(s).size(), 0);
    }
    if (leaf < chosen.size())
    {
      chosen[leaf] = 1;
    }
  }
  return chosen;
}

/** The ids of `s`'s blocks and sets by name into `ids` (the first id a
 *  name has), for the order of the selection lists. */
void EntityIds(const mxn_structure_t* s, std::unordered_map<std::string, mxn_gid_t>& ids)
{
  using vtkMxNVariables::EntityName;
  for (int b = 0; b < s->num_blocks; ++b)
  {
    ids.emplace(EntityName(s->blocks[b].name, "block", s->blocks[b].id), s->blocks[b].id);
  }
  for (int q = 0; q < s->num_node_sets; ++q)
  {
    ids.emplace(
      EntityName(s->node_sets[q].name, "nodelist", s->node_sets[q].id), s->node_sets[q].id);
  }
  for (int q = 0; q < s->num_side_sets; ++q)
  {
    ids.emplace(
      EntityName(s->side_sets[q].name, "surface", s->side_sets[q].id), s->side_sets[q].id);
  }
  // (the other kinds' names are in the structure's order)
  using E = vtkMxNEntityLeaves::Selection;
  const vtkMxNEntityLeaves::Names more = vtkMxNEntityLeaves::NamesOf(s, vtkMxNVariables::Grouping());
  auto add = [&ids, &more](E k, const auto* list, int n) {
    for (int q = 0; q < n && q < static_cast<int>(more[k].size()); ++q)
    {
      ids.emplace(more[k][q], list[q].id);
    }
  };
  add(E::EDGE_BLOCKS, s->edge_blocks, s->num_edge_blocks);
  add(E::FACE_BLOCKS, s->face_blocks, s->num_face_blocks);
  add(E::ELEMENT_SETS, s->elem_sets, s->num_elem_sets);
  add(E::FACE_SETS, s->face_sets, s->num_face_sets);
  add(E::EDGE_SETS, s->edge_sets, s->num_edge_sets);
}

/** Append to `all` the names of `names` it does not hold yet (the union of
 *  a series' segments, in order of first appearance). */
void Union(std::vector<std::string>& all, const std::vector<std::string>& names)
{
  // (by a set of the names so far: a search of `all` per name would be
  // K^2 compares for K blocks)
  std::unordered_set<std::string> have(all.begin(), all.end());
  for (const auto& name : names)
  {
    if (have.insert(name).second)
    {
      all.push_back(name);
    }
  }
}
}

//----------------------------------------------------------------------------
//----------------------------------------------------------------------------
void vtkMxNReader::SetPartitionMethod(int method)
{
  // the numbers of the core's table that the reader offers
  method = std::min(std::max(method, 0), MXN_PART_NUM_READER - 1);
  if (method != this->PartitionMethod)
  {
    this->PartitionMethod = method;
    this->Modified();
  }
}

vtkMxNReader::vtkMxNReader()
  : ElementBlockSelection(vtkDataArraySelection::New())
  , NodeSetSelection(vtkDataArraySelection::New())
  , SideSetSelection(vtkDataArraySelection::New())
  , PointArraySelection(vtkDataArraySelection::New())
  , CellArraySelection(vtkDataArraySelection::New())
  , SelectionObserver(vtkCallbackCommand::New())
  , Series(new vtkMxNSeries)
{
  this->SetNumberOfInputPorts(0);
  this->PartitionMethod = MXN_PART_FILES;
  this->SelectionObserver->SetCallback(&vtkMxNReader::SelectionModifiedCallback);
  this->SelectionObserver->SetClientData(this);
  for (auto* sel : { this->ElementBlockSelection, this->NodeSetSelection,
         this->SideSetSelection, this->PointArraySelection, this->CellArraySelection })
  {
    sel->AddObserver(vtkCommand::ModifiedEvent, this->SelectionObserver);
  }
  static_assert(sizeof(this->EntitySelections) / sizeof(this->EntitySelections[0]) ==
      vtkMxNEntityLeaves::NUMBER_OF_SELECTIONS,
    "one selection per vtkMxNEntityLeaves::Selection");
  for (auto*& sel : this->EntitySelections)
  {
    sel = vtkDataArraySelection::New();
    sel->AddObserver(vtkCommand::ModifiedEvent, this->SelectionObserver);
  }
}

//----------------------------------------------------------------------------
vtkMxNReader::~vtkMxNReader()
{
  this->SetLoadBalanceField(nullptr);
  this->SetFieldSuffixSeparator(nullptr);
  if (this->FileAssemblies)
  {
    this->FileAssemblies->Delete();
  }
  for (auto* sel : { this->ElementBlockSelection, this->NodeSetSelection,
         this->SideSetSelection, this->PointArraySelection, this->CellArraySelection })
  {
    sel->RemoveObserver(this->SelectionObserver);
    sel->Delete();
  }
  for (auto* sel : this->EntitySelections)
  {
    sel->RemoveObserver(this->SelectionObserver);
    sel->Delete();
  }
  this->SelectionObserver->Delete();
  delete this->Series;
}

//----------------------------------------------------------------------------
void vtkMxNReader::SetFileName(const char* fname)
{
  std::vector<std::string> names;
  if (fname)
  {
    names.emplace_back(fname);
  }
  if (names != this->FileNames)
  {
    this->FileNames = names;
    this->Modified();
  }
}

//----------------------------------------------------------------------------
const char* vtkMxNReader::GetFileName() const
{
  return this->FileNames.empty() ? nullptr : this->FileNames[0].c_str();
}

//----------------------------------------------------------------------------
void vtkMxNReader::AddFileName(const char* fname)
{
  if (fname && std::find(this->FileNames.begin(), this->FileNames.end(), fname) ==
      this->FileNames.end())
  {
    this->FileNames.emplace_back(fname);
    this->Modified();
  }
}

//----------------------------------------------------------------------------
void vtkMxNReader::ClearFileNames()
{
  if (!this->FileNames.empty())
  {
    this->FileNames.clear();
    this->Modified();
  }
}

//----------------------------------------------------------------------------
int vtkMxNReader::GetNumberOfFileNames() const
{
  return static_cast<int>(this->FileNames.size());
}

//----------------------------------------------------------------------------
const char* vtkMxNReader::GetFileName(int index) const
{
  return index >= 0 && index < static_cast<int>(this->FileNames.size())
    ? this->FileNames[index].c_str()
    : nullptr;
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
    this->Name##Hint = index;                                                                    \
    return this->member->GetArrayName(index);                                                    \
  }                                                                                              \
  int vtkMxNReader::Get##Name##ArrayStatus(const char* name)                                    \
  {                                                                                              \
    const int i = IndexOf(this->member, name, this->Name##Hint);                                 \
    return i >= 0 ? this->member->GetArraySetting(i) : 0;                                        \
  }                                                                                              \
  void vtkMxNReader::Set##Name##ArrayStatus(const char* name, int status)                       \
  {                                                                                              \
    /* unchanged settings (ParaView pushes every one) skip the selection's search */             \
    const int i = IndexOf(this->member, name, this->Name##Hint);                                 \
    if (i < 0 || this->member->GetArraySetting(i) != (status != 0))                              \
    {                                                                                            \
      this->member->SetArraySetting(name, status);                                               \
    }                                                                                            \
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
  return vtkMxNReaderInternals::CanReadFile(fname) ? 1 : 0;
}

//----------------------------------------------------------------------------
bool vtkMxNReader::AddSelector(const char* selector)
{
  if (!selector || !selector[0] ||
    std::find(this->Selectors.begin(), this->Selectors.end(), selector) != this->Selectors.end())
  {
    return false;
  }
  this->Selectors.emplace_back(selector);
  this->Modified();
  return true;
}

//----------------------------------------------------------------------------
void vtkMxNReader::ClearSelectors()
{
  if (!this->Selectors.empty())
  {
    this->Selectors.clear();
    this->Modified();
  }
}

//----------------------------------------------------------------------------
const char* vtkMxNReader::GetSelector(int index) const
{
  return index >= 0 && index < static_cast<int>(this->Selectors.size())
    ? this->Selectors[index].c_str()
    : nullptr;
}

//----------------------------------------------------------------------------
int vtkMxNReader::RequestInformation(
  vtkInformation*, vtkInformationVector**, vtkInformationVector* outputVector)
{
  vtkInformation* outInfo = outputVector->GetInformationObject(0);
  outInfo->Remove(vtkStreamingDemandDrivenPipeline::TIME_STEPS());
  outInfo->Remove(vtkStreamingDemandDrivenPipeline::TIME_RANGE());
  this->InformationFiles.clear();

  if (this->FileNames.empty() || this->FileNames[0].empty())
  {
    vtkErrorMacro("No FileName set.");
    return 0;
  }
  std::string warning, error;
  vtkMxNSeries& series = *this->Series;
  series.Chosen.Scan = this->ScanForRelatedFiles;
  series.Chosen.FileRange[0] = this->FileRange[0];
  series.Chosen.FileRange[1] = this->FileRange[1];
  series.Chosen.FileStride = this->FileStride;
  if (!series.Resolve(this->FileNames, warning, error))
  {
    vtkErrorMacro(<< error);
    return 0;
  }

  // Every segment's structure (on all ranks together, segment by
  // segment): the selections are the union of their names.
  vtkMxNVariables::SelectionNames all;
  vtkMxNEntityLeaves::Names entityAll;
  // the first segment's assemblies with any (a series' segments share them)
  vtkSmartPointer<vtkDataAssembly> assemblies;
  std::unordered_map<std::string, mxn_gid_t> ids; // entity name -> id, for the order
  vtkMxNVariables::Grouping how;
  how.Numeric = this->GroupNumericVectorFieldComponents;
  how.Separator = this->FieldSuffixSeparator ? this->FieldSuffixSeparator : "";
  for (int k = 0; k < series.NumberOfSegments(); ++k)
  {
    vtkMxNReaderInternals& internals = series.Segment(k);
    const mxn_structure_t* s = internals.ReadStructure(series.Path(k), error);
    if (!s)
    {
      vtkErrorMacro(<< error);
      return 0;
    }
    const vtkMxNVariables::SelectionNames names = vtkMxNVariables::NamesOf(s, how);
    internals.TimeSteps.assign(s->times, s->times + std::max(s->num_times, 0));
    internals.InformationFileName = series.Path(k);
    internals.Catalogue(s, names, how);
    internals.Info.ChosenLeaves = ChosenLeaves(s, this->Selectors);
    if (!assemblies && s->num_assemblies > 0)
    {
      assemblies = vtkSmartPointer<vtkDataAssembly>::New();
      assemblies->SetRootNodeName("Assemblies");
      vtkMxNPieceConverter::AddFileAssemblies(assemblies, 0, s);
    }
    EntityIds(s, ids);
    Union(all.Blocks, names.Blocks);
    Union(all.NodeSets, names.NodeSets);
    Union(all.SideSets, names.SideSets);
    Union(all.Points, names.Points);
    Union(all.Cells, names.Cells);
    const vtkMxNEntityLeaves::Names entityNames = vtkMxNEntityLeaves::NamesOf(s, how);
    for (int e = 0; e < vtkMxNEntityLeaves::NUMBER_OF_SELECTIONS; ++e)
    {
      Union(entityAll[e], entityNames[e]);
    }
    if (!series.IsSeries())
    {
      series.SetTimes(s->times, s->num_times);
    }
  }
  if (!warning.empty())
  {
    int size = 1, rank = 0;
    const MPI_Comm job = vtkMxNReaderInternals::JobComm(&size);
    if (job != MPI_COMM_NULL)
    {
      MPI_Comm_rank(job, &rank);
    }
    if (rank == 0)
    {
      vtkWarningMacro(<< warning);
    }
  }

  // The lists in vtkIOSSReader's order: entities by id, arrays by name.
  for (auto* list : { &all.Blocks, &all.NodeSets, &all.SideSets })
  {
    std::stable_sort(list->begin(), list->end(),
      [&ids](const std::string& a, const std::string& b) { return ids[a] < ids[b]; });
  }
  std::sort(all.Points.begin(), all.Points.end());
  std::sort(all.Cells.begin(), all.Cells.end());
  for (int e = 0; e < vtkMxNEntityLeaves::NUMBER_OF_SELECTIONS; ++e)
  {
    std::vector<std::string>& list = entityAll[e];
    if (e < vtkMxNEntityLeaves::EDGE_BLOCK_FIELDS)
    {
      std::stable_sort(list.begin(), list.end(),
        [&ids](const std::string& a, const std::string& b) { return ids[a] < ids[b]; });
    }
    else
    {
      std::sort(list.begin(), list.end());
    }
  }
  // A new assembly (another dataset) is a new tag: ParaView's selector
  // panel fetches it again.
  std::string before, after;
  if (this->FileAssemblies)
  {
    before = this->FileAssemblies->SerializeToXML(vtkIndent());
  }
  if (assemblies)
  {
    after = assemblies->SerializeToXML(vtkIndent());
  }
  if (before != after)
  {
    if (this->FileAssemblies)
    {
      this->FileAssemblies->Delete();
      this->FileAssemblies = nullptr;
    }
    if (assemblies)
    {
      this->FileAssemblies = assemblies;
      this->FileAssemblies->Register(this);
    }
    ++this->AssemblyTag;
  }

  // Selections follow the file's entities and variables; a new file keeps
  // the states of names it shares with the previous one.
  this->FillingSelections = true;
  SyncSelection(this->ElementBlockSelection, all.Blocks, true);
  SyncSelection(this->NodeSetSelection, all.NodeSets, false);
  SyncSelection(this->SideSetSelection, all.SideSets, false);
  SyncSelection(this->PointArraySelection, all.Points, true);
  SyncSelection(this->CellArraySelection, all.Cells, true);
  for (int e = 0; e < vtkMxNEntityLeaves::NUMBER_OF_SELECTIONS; ++e)
  {
    SyncSelection(this->EntitySelections[e], entityAll[e], vtkMxNEntityLeaves::OnByDefault(e));
  }
  this->FillingSelections = false;
  this->InformationFiles = this->FileNames;

  const std::vector<double>& times = series.Times();
  this->ModeShapesRange[0] = 1;
  this->ModeShapesRange[1] = std::max(static_cast<int>(times.size()), 1);
  if (this->HasModeShapes)
  {
    // The steps are modes, their "times" frequencies: no time steps; with
    // AnimateVibrations a time in [0, 1] is the phase of the vibration.
    if (this->AnimateVibrations)
    {
      double range[2] = { 0.0, 1.0 };
      outInfo->Set(vtkStreamingDemandDrivenPipeline::TIME_RANGE(), range, 2);
    }
  }
  else if (!times.empty())
  {
    // A mesh without results has no time, so downstream does not animate.
    outInfo->Set(vtkStreamingDemandDrivenPipeline::TIME_STEPS(), times.data(),
      static_cast<int>(times.size()));
    double range[2] = { times.front(), times.back() };
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
  if (this->FileNames.empty() || this->FileNames[0].empty())
  {
    vtkErrorMacro("No FileName set.");
    return 0;
  }
  if (this->InformationFiles != this->FileNames)
  {
    // RequestInformation failed for this file (and said why).
    vtkErrorMacro("Cannot read '" << this->FileNames[0] << "': its structure could not be read.");
    return 0;
  }
  this->UpdateProgress(0.0);

  // The time step: the requested time's nearest step of the series, and
  // the segment that holds it.
  vtkMxNSeries& series = *this->Series;
  int seriesStep = 0;
  const bool haveTime = outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_TIME_STEP());
  const double time = haveTime ? outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_TIME_STEP()) : 0.0;
  // How far the points move along the displacement (mode shapes: the
  // vibration's phase at the requested time).
  double dispScale = this->DisplacementMagnitude;
  if (this->HasModeShapes)
  {
    seriesStep = std::min(std::max(this->ModeShape, 1), std::max(static_cast<int>(series.Times().size()), 1)) - 1;
    if (this->AnimateVibrations)
    {
      dispScale *= std::cos(2.0 * vtkMath::Pi() * time);
    }
  }
  else if (!series.Times().empty() && haveTime)
  {
    seriesStep = NearestStep(series.Times(), time);
  }
  const vtkMxNSeries::Step where = series.StepOf(seriesStep);
  vtkMxNReaderInternals& internals = series.Segment(where.Segment);
  const std::string& fileName = series.Path(where.Segment);

  using SDDP = vtkStreamingDemandDrivenPipeline;
  const int piece = RequestValue(outInfo, SDDP::UPDATE_PIECE_NUMBER(), 0);
  const int numPieces = RequestValue(outInfo, SDDP::UPDATE_NUMBER_OF_PIECES(), 1);
  const int askedGhosts = RequestValue(outInfo, SDDP::UPDATE_NUMBER_OF_GHOST_LEVELS(), 0);
  std::string message;
  if (!vtkMxNReaderInternals::EnsureMPI(message))
  {
    vtkErrorMacro("Cannot read '" << fileName << "': " << message);
    return 0;
  }

  // Which communicator the load runs on (see the class documentation).
  vtkMxNReaderInternals::LoadKey key;
  MPI_Comm world = MPI_COMM_SELF;
  switch (internals.ChoosePieces(fileName.c_str(), piece, numPieces, key, world, message))
  {
    case vtkMxNReaderInternals::REFUSED:
      vtkErrorMacro(<< message);
      return 0;
    case vtkMxNReaderInternals::EMPTY:
      this->UpdateProgress(1.0);
      return 1;
    case vtkMxNReaderInternals::WHOLE:
      if (!message.empty())
      {
        vtkWarningMacro(<< message);
      }
      break;
    default:
      break;
  }

  int step = where.SegmentStep;

  // What to load.
  internals.SelectionMasks(key, this->ElementBlockSelection, this->PointArraySelection,
    this->CellArraySelection, this->ApplyDisplacements);
  key.KeepAllPoints = !this->RemoveUnusedPoints;
  // Blocks an assembly selector chooses are read as if selected (the
  // leaves' order: edge blocks, face blocks, then the element blocks).
  const std::vector<char>& chosen = internals.Info.ChosenLeaves;
  const size_t firstBlock = static_cast<size_t>(internals.Info.FirstBlockLeaf);
  for (size_t b = 0; b < key.Blocks.size() && firstBlock + b < chosen.size(); ++b)
  {
    key.Blocks[b] |= chosen[firstBlock + b];
  }
  key.Method = this->PartitionMethod; // clamped by SetPartitionMethod
  // Ghost layers only exist between ranks of a collective load.
  key.GhostLevels = key.World ? std::max(this->GhostLevels, askedGhosts) : 0;
  key.WeightField = this->LoadBalanceField ? this->LoadBalanceField : "";
  key.Tolerance = this->ImbalanceTolerance;
  // Re-balanced at each step: the load stays open across steps and moves
  // only what the step's weights make it move.
  key.Cost = this->LoadBalanceCost == MEASURED_TIME ? MEASURED_TIME : FIELD_COST;
  key.Dynamic =
    this->RebalanceEachTimeStep && (!key.WeightField.empty() || key.Cost == MEASURED_TIME);

  series.Use(where.Segment, key.Dynamic);
  if (!internals.IsOpen(key))
  {
    this->UpdateProgress(0.05);
    if (!internals.Open(key, piece, step, world, message))
    {
      vtkErrorMacro(<< message);
      return 0;
    }
  }
  this->UpdateProgress(0.5);
  // Id maps the core could not trust (repeated ids): said once a file,
  // with the fallback the core took.
  std::string idWarning = internals.TakeIdWarning(key.FileName);
  if (!idWarning.empty())
  {
    vtkWarningMacro(<< idWarning);
  }
  if ((key.Dynamic && !internals.Rebalance(key, step, world, entered, message)) ||
    !internals.CheckPiece(key, message))
  {
    vtkErrorMacro(<< message);
    return 0;
  }
  const mxn_structure_t* s = mxn_load_structure(internals.Load());
  if (s->num_times > 0)
  {
    if (!internals.ReadStep(step, message))
    {
      vtkErrorMacro(<< message);
      return 0;
    }
    output->GetInformation()->Set(vtkDataObject::DATA_TIME_STEP(),
      this->HasModeShapes ? time : series.IsSeries() ? series.Times()[seriesStep] : s->times[step]);
  }
  this->UpdateProgress(0.6);

  // Check every selected block's type before building anything.
  std::vector<vtkMxNCellTypes::CellMapping> mappings;
  if (!MapBlocks(s, key.Blocks, fileName.c_str(), mappings, message))
  {
    vtkErrorMacro(<< message);
    return 0;
  }

  // One leaf per selected block, node set, side set, in this order.
  auto leaves = vtkMxNEntityLeaves::Leaves(
    s, key.Blocks, this->NodeSetSelection, this->SideSetSelection, this->EntitySelections);
  for (size_t i = 0; i < leaves.size() && i < chosen.size(); ++i)
  {
    leaves[i].selected = leaves[i].selected || chosen[i];
  }
  vtkMxNPieceConverter conv =
    internals.Converter(key, this->PointArraySelection, this->CellArraySelection);
  {
    vtkMxNPieceConverter::EntityContext entities;
    entities.Owners = mxn_load_entity_owners(internals.Load());
    std::copy(this->EntitySelections + vtkMxNEntityLeaves::EDGE_BLOCK_FIELDS,
      this->EntitySelections + vtkMxNEntityLeaves::NUMBER_OF_SELECTIONS, entities.Fields);
    conv.SetEntityContext(entities);
  }
  if (this->ApplyDisplacements)
  {
    conv.SetDisplacement(internals.Info.DisplacementVars, dispScale);
  }
  conv.SetGenerateFileId(this->GenerateFileId);
  if (!conv.Fill(output, leaves, mappings, internals.Topologies(), internals.Assembly(),
        [this](double done) { this->UpdateProgress(0.6 + 0.4 * done); }))
  {
    vtkErrorMacro("Cannot read '" << fileName << "': " << conv.Error() << ".");
    return 0;
  }
  if (!this->ReadIds)
  {
    RemoveIds(output);
  }
  if (this->ReadGlobalFields)
  {
    vtkMxNPieceConverter::AddGlobalVariables(
      output, s, mxn_load_piece(internals.Load()), internals.Info.How);
  }
  if (this->ReadQAAndInformationRecords)
  {
    // (after the global variables: a global variable named like them, as
    // ParaView's Exodus writer stores them, gives way, as in vtkIOSSReader)
    vtkMxNPieceConverter::AddRecords(output, s);
  }
  internals.AddLoadFields(key, output);
  this->UpdateProgress(1.0);
  // The downstream pipeline runs from here until the next RequestData.
  internals.MarkEnded();
  return 1;
}

//----------------------------------------------------------------------------
void vtkMxNReader::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "FileName: " << (this->FileNames.empty() ? "(none)" : this->FileNames[0].c_str())
     << "\n";
  os << indent << "NumberOfFileNames: " << this->FileNames.size() << "\n";
  os << indent << "Segments: " << this->Series->NumberOfSegments() << "\n";
  os << indent << "PartitionMethod: " << this->PartitionMethod << "\n";
  os << indent << "GhostLevels: " << this->GhostLevels << "\n";
  os << indent << "LoadBalanceField: "
     << (this->LoadBalanceField ? this->LoadBalanceField : "(none)") << "\n";
  os << indent << "ImbalanceTolerance: " << this->ImbalanceTolerance << "\n";
  os << indent << "RebalanceEachTimeStep: " << this->RebalanceEachTimeStep << "\n";
  os << indent << "LoadBalanceCost: "
     << (this->LoadBalanceCost == MEASURED_TIME ? "MeasuredTime" : "Field") << "\n";
  os << indent << "NumberOfTimeSteps: " << this->Series->Times().size() << "\n";
  os << indent << "ElementBlocks: " << this->ElementBlockSelection->GetNumberOfArraysEnabled()
     << " of " << this->ElementBlockSelection->GetNumberOfArrays() << " enabled\n";
  os << indent << "NodeSets: " << this->NodeSetSelection->GetNumberOfArraysEnabled() << " of "
     << this->NodeSetSelection->GetNumberOfArrays() << " enabled\n";
  os << indent << "SideSets: " << this->SideSetSelection->GetNumberOfArraysEnabled() << " of "
     << this->SideSetSelection->GetNumberOfArrays() << " enabled\n";
}
