// The segments of the dataset a vtkMxNReader reads: one for a plain file or
// spread set, several for an adaptive series (out.e, out.e-s002, ...).
// Finds them through the core (mxn_series_open), maps the series' steps to
// (segment, step of the segment), and keeps one vtkMxNReaderInternals per
// segment with at most MaxLoads of their loads open. Internal to the
// reader's module.
#ifndef vtkMxNSeries_h
#define vtkMxNSeries_h

#include "vtkMxNReaderInternals.h"

#include <memory> // for std::unique_ptr
#include <string> // for std::string
#include <vector> // for std::vector

class vtkMxNSeries
{
public:
  /** Segment loads kept open: the current one and the one before it, so a
   *  user scrubbing across one mesh change re-partitions nothing; a third
   *  segment's load closes the least recently used. */
  static const int MaxLoads = 2;

  /** Where a series step lives. */
  struct Step
  {
    int Segment = 0;
    int SegmentStep = 0; // 0-based, in the segment's own steps
  };

  /**
   * Find the segments of `files` (on all ranks of the MPI job together
   * when it has several). A single name that is not part of a series
   * keeps its own name as its one segment, so it reads exactly as before;
   * if the core cannot make a series of a single name, `warning` says why
   * and the name is read alone (its own errors come when it is read).
   * False and `error` if a list of names is not a series.
   */
  bool Resolve(const std::vector<std::string>& files, std::string& warning, std::string& error);

  /** Which files are read, as vtkIOSSReader's ScanForRelatedFiles
   *  (default on): a single name finds the series beside it; off, only
   *  the names given are read (a single member name: that member alone).
   *  FileRange and FileStride choose the members of every spread segment
   *  (see vtkMxNReader). Set before Resolve(); each segment's
   *  information and load follow them (vtkMxNReaderInternals::SetMembers). */
  struct Choice
  {
    bool Scan = true;
    int FileRange[2] = { 0, -1 };
    int FileStride = 1;
  };
  Choice Chosen;

  /** Number of segments (0 before Resolve succeeds). */
  int NumberOfSegments() const { return static_cast<int>(this->Paths.size()); }
  /** Segment k's dataset name, as its load opens it. */
  const std::string& Path(int k) const { return this->Paths[k]; }
  /** Segment k's information and load. */
  vtkMxNReaderInternals& Segment(int k) { return *this->Segments[k]; }

  /** Whether the series has several segments (its steps are then the
   *  core's union of the segments' times, SetTimes is not used). */
  bool IsSeries() const { return this->Paths.size() > 1; }

  /** The series' time values and where each step lives. For one segment
   *  SetTimes() gives its structure's times. */
  const std::vector<double>& Times() const { return this->TimeValues; }
  void SetTimes(const double* times, int n);
  Step StepOf(int step) const;

  /** Before segment k's load is used: it becomes the most recent; loads
   *  beyond MaxLoads (with `dynamic`, every other segment's) are closed. */
  void Use(int k, bool dynamic);

private:
  /** Chosen as the core takes it (with `namedOnly`, a member name given
   *  alone is that member alone). */
  mxn_member_select_t Selection(bool namedOnly) const;
  /** Whether Chosen picks some member of a segment of numFiles members. */
  bool ChoosesAny(int numFiles) const;

  /** Every segment reads the members Chosen gives (with `namedOnly`, a
   *  member name given alone is that member alone). */
  void ChooseMembers(bool namedOnly);

  /** Take `paths` as the segments (those known keep their information
   *  and loads), with the series' times and where each step lives. */
  void Adopt(const std::vector<std::string>& paths, const std::vector<double>& times,
    const std::vector<Step>& steps);

  std::vector<std::string> Paths;
  std::vector<std::unique_ptr<vtkMxNReaderInternals>> Segments;
  std::vector<double> TimeValues;
  std::vector<Step> Steps;
  std::vector<int> Recent; // segments with a load, most recent first
};

#endif
