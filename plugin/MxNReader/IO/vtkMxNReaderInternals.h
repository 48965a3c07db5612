// What vtkMxNReader keeps between pipeline requests: the core's open load
// (its handle, what it was opened with, the block structures built from
// it), the dataset the last information pass opened, what the selections
// map to, and the MPI set-up the core needs. Internal to the reader's
// module; the messages it returns are the reader's error texts.
#ifndef vtkMxNReaderInternals_h
#define vtkMxNReaderInternals_h

#include "vtkMxNPieceConverter.h"
#include "vtkMxNVariables.h"

#include <mxn/mxn.h>

#include <chrono> // for std::chrono
#include <string> // for std::string
#include <vector> // for std::vector

class vtkDataArraySelection;

class vtkMxNReaderInternals
{
public:
  /** What a load is opened with. The same key reuses the open load, so a
   *  new time step only reads that step's fields; anything else re-opens. */
  struct LoadKey
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
    // every grid with all the piece's nodes (RemoveUnusedPoints off): the
    // grids' kept structure is built for one or the other
    bool KeepAllPoints = false;
    // the members of a spread set read (FileRange, FileStride, a member
    // name alone): SetMembers()'s, as normalised there
    mxn_member_select_t Members{};

    bool operator==(const LoadKey& o) const;
  };

  /** How this rank takes part in a request for `piece` of `numPieces`. */
  enum Layout
  {
    COLLECTIVE, ///< one load over the MPI job's ranks, rank order = piece order
    WHOLE,      ///< the whole dataset on MPI_COMM_SELF
    EMPTY,      ///< nothing: another piece holds the dataset
    REFUSED     ///< the ranks' pieces are not a permutation (an error)
  };

  /** What the selections map to in the last structure read by the
   *  information pass (entity names, variable groups). */
  struct Catalog
  {
    std::vector<std::string> BlockNames;
    int NumNodeVars = 0, NumElemVars = 0;
    std::vector<vtkMxNVariables::VarGroup> NodeGroups;
    std::vector<std::vector<vtkMxNVariables::VarGroup>> ElemGroups; // per block
    // the displacement vector's components (nodal variable indices), empty
    // when the dataset has none (vtkMxNVariables::DisplacementGroup)
    std::vector<int> DisplacementVars;
    // how the variables were grouped into the names above
    vtkMxNVariables::Grouping How;
    // per leaf (vtkMxNPieceConverter::Leaves order), whether the reader's
    // assembly selectors choose it; empty when none does
    std::vector<char> ChosenLeaves;
    // the first element block's leaf (after the edge and face blocks)
    int FirstBlockLeaf = 0;
  };

  vtkMxNReaderInternals() = default;
  ~vtkMxNReaderInternals();
  vtkMxNReaderInternals(const vtkMxNReaderInternals&) = delete;
  vtkMxNReaderInternals& operator=(const vtkMxNReaderInternals&) = delete;

  /** The core needs MPI even for a one-rank load; initialize it if the
   *  process has not (the GUI client in builtin mode). False and why if
   *  MPI cannot be used. */
  static bool EnsureMPI(std::string& why);

  /** The MPI job's communicator when ParaView runs on MPI (pvserver,
   *  pvbatch), with its number of processes in *size; else MPI_COMM_NULL
   *  and 1. */
  static MPI_Comm JobComm(int* size);

  /** Whether `fname` names a dataset this reader may read, from the name
   *  and at most one file's header (see vtkMxNReader::CanReadFile). */
  static bool CanReadFile(const char* fname);

  ///@{
  /** The information pass. ReadStructure() gives the dataset's structure:
   *  the one read last time if its members are unchanged on disk, else
   *  read anew (on all ranks of the MPI job together); null and `error`
   *  if it cannot be read. Catalogue() keeps what the selections of that
   *  structure map to. */
  const mxn_structure_t* ReadStructure(const std::string& fileName, std::string& error);
  /** The members both passes read (mxn_member_select_t); a structure or
   *  load of other members is read again. A range that chooses nothing
   *  (last <= first) is every member, whatever the stride. */
  void SetMembers(const mxn_member_select_t& sel);
  void Catalogue(const mxn_structure_t* s, const vtkMxNVariables::SelectionNames& names,
    const vtkMxNVariables::Grouping& how);
  ///@}

  /**
   * Decide how this rank takes part (see Layout): sets key.FileName,
   * NumberOfPieces, World and PieceOfRank and `world` (the communicator
   * the load runs on); `message` is the warning for WHOLE when the
   * pipeline asks for pieces the reader cannot give, the error for
   * REFUSED.
   */
  Layout ChoosePieces(const char* fileName, int piece, int numPieces, LoadKey& key,
    MPI_Comm& world, std::string& message) const;

  /** The selections as the core's masks, in structure order (the
   *  structure the information pass filled the selections from); with
   *  `displace`, the displacement's components are read whether selected
   *  or not. */
  void SelectionMasks(LoadKey& key, vtkDataArraySelection* blocks,
    vtkDataArraySelection* points, vtkDataArraySelection* cells, bool displace) const;

  ///@{
  /** The load for `key`: IsOpen() if the cached one fits; else Open()
   *  closes it and opens a new one for `piece` at `step` on `world`
   *  (taking over the information pass's dataset when it is of the same
   *  file and ranks). */
  bool IsOpen(const LoadKey& key) const;
  bool Open(const LoadKey& key, int piece, int step, MPI_Comm world, std::string& error);
  ///@}

  /** The core's warnings about the open load (mxn_structure_warnings():
   *  id maps it could not trust and the fallback it took; writers' hints,
   *  such as Nemesis global counts, the members do not bear out), one a
   *  line, once a file and on the load's first rank; "" otherwise. */
  std::string TakeIdWarning(const std::string& file);

  /** With key.Dynamic: re-balance the load for `step` (weighed by the
   *  field, or by the time measured since the last request ended, taken
   *  at `entered`). False (load closed) and `error` on failure. */
  bool Rebalance(const LoadKey& key, int step, MPI_Comm world,
    std::chrono::steady_clock::time_point entered, std::string& error);

  /** False (load closed) and `error` if the core's piece does not match
   *  its structure and `key`. */
  bool CheckPiece(const LoadKey& key, std::string& error);

  /** Read time step `step` (clamped to the dataset's steps; set to the
   *  step read) unless the piece holds it. False (load closed) and
   *  `error` on failure. */
  bool ReadStep(int& step, std::string& error);

  /** A block converter for the current piece (handing the load's block
   *  arrays over to the grids unless the load is re-balanced). */
  vtkMxNPieceConverter Converter(const LoadKey& key, vtkDataArraySelection* points,
    vtkDataArraySelection* cells);

  /** Field data that describes the load: its counters and, with
   *  key.Dynamic, what the last re-balance did. */
  void AddLoadFields(const LoadKey& key, vtkPartitionedDataSetCollection* output) const;

  /** The request ended now: the downstream pipeline runs until the next. */
  void MarkEnded();

  /** Close the load (a series keeps only a few segments' loads); the
   *  information pass's structure is read again when needed. */
  void ReleaseLoad() { this->Close(); }

  /** The open load (null if none). */
  mxn_load_t* Load() const { return this->TheLoad; }
  /** Per element block, the structure built for the current piece. */
  std::vector<vtkMxNBlockTopology>& Topologies() { return this->Topos; }
  vtkMxNAssemblyCache& Assembly() { return this->TheAssembly; }

  /** Time values of the dataset, from the last information pass. */
  std::vector<double> TimeSteps;
  /** The file the selections were last filled from. */
  std::string InformationFileName;
  /** What the selections map to. */
  Catalog Info;

private:
  void Close();
  void CloseInfo();

  mxn_load_t* TheLoad = nullptr;
  LoadKey Opened;
  int Rank = 0; // this rank in the load's communicator
  // The file whose untrusted id maps were last warned about (once a file).
  std::string IdWarnedFile;
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
  // vtkMxNBlockTopology). Emptied whenever the piece changes (a new load,
  // a re-balance).
  std::vector<vtkMxNBlockTopology> Topos;
  // the output's assembly, kept while the selected leaves stay the same
  vtkMxNAssemblyCache TheAssembly;

  /** A member file as it was when opened: a simulation still writing, or
   *  a set written anew, changes size or modification time. */
  struct MemberStamp
  {
    std::string Path;
    long long Size = -1;
    long long MTimeNs = -1;
    bool operator==(const MemberStamp& o) const;
  };
  static MemberStamp StampOf(const std::string& path);
  static std::vector<MemberStamp> StampMembers(const mxn_dataset_t* ds, int rank, int nranks);
  static bool MembersUnchanged(const std::vector<MemberStamp>& stamps);

  // The dataset the last information pass opened, until a load takes it
  // over (mxn_load_open_dataset), so the members are opened once for both;
  // the file it is of, whether it was opened over the MPI job's ranks, and
  // the members' stamps at that open. The next pass reuses that structure
  // (from this dataset or the load that took it) while the stamps hold.
  mxn_dataset_t* InfoDataset = nullptr;
  std::string InfoFile;
  mxn_member_select_t Members{};     // what SetMembers() chose
  mxn_member_select_t InfoMembers{}; // what InfoDataset was opened with
  bool InfoWorld = false;
  std::vector<MemberStamp> InfoStamps;
};

#endif
