// The segments of a vtkMxNReader's dataset and the cache of their loads
// (see vtkMxNSeries.h).
#include "vtkMxNSeries.h"

#include <mxn/series.h>

#include <algorithm>
#include <sstream>

//----------------------------------------------------------------------------
bool vtkMxNSeries::Resolve(
  const std::vector<std::string>& files, std::string& warning, std::string& error)
{
  warning.clear();
  error.clear();
  if (files.empty())
  {
    error = "No FileName set.";
    return false;
  }
  std::string why;
  if (!vtkMxNReaderInternals::EnsureMPI(why))
  {
    error = "Cannot read '" + files[0] + "': " + why;
    return false;
  }
  int size = 1;
  const MPI_Comm job = vtkMxNReaderInternals::JobComm(&size);
  std::vector<const char*> names;
  for (const auto& f : files)
  {
    names.push_back(f.c_str());
  }
  mxn_series_t* series = nullptr;
  mxn_error_t err;
  mxn_error_clear(&err);
  const MPI_Comm comm = job != MPI_COMM_NULL && size > 1 ? job : MPI_COMM_NULL;
  int st = MXN_OK;
  const Choice& c = this->Chosen;
  if (c.Scan || files.size() > 1)
  {
    // Rank 0 lists the directories and reads one header per segment;
    // every rank gets the same answer.
    st = mxn_series_open(comm, names.data(), static_cast<int>(names.size()), &series, &err);
  }
  if (!series && st == MXN_OK)
  {
    // ScanForRelatedFiles off, one name: that dataset alone (a member of
    // a spread set: that member alone).
    this->Adopt({ files[0] }, {}, {});
    this->ChooseMembers(true);
    return true;
  }

  std::vector<std::string> paths;
  std::vector<double> times;
  std::vector<Step> steps;
  if (st != MXN_OK)
  {
    std::ostringstream m;
    m << "Cannot read the series of '" << files[0] << "'"
      << (files.size() > 1 ? " (and the other files given)" : "") << ": " << mxn_strerror(st)
      << ": " << err.msg;
    if (files.size() > 1)
    {
      error = m.str();
      return false;
    }
    // One name: read it alone, as before series existed.
    warning = m.str() + "; reading '" + files[0] + "' alone.";
    paths.push_back(files[0]);
  }
  else if (mxn_series_num_segments(series) == 1)
  {
    // A plain file or spread set (or a one-segment series): its own name,
    // so it reads exactly as a single dataset.
    paths.push_back(files.size() == 1 ? files[0] : mxn_series_segment(series, 0)->path);
  }
  else
  {
    // A segment of which FileRange chooses no member is left out with its
    // times, as vtkIOSSReader leaves it out; the rest keep their order.
    const int nseg = mxn_series_num_segments(series);
    std::vector<int> index(static_cast<size_t>(nseg), -1);
    for (int k = 0; k < nseg; ++k)
    {
      const mxn_series_segment_t* seg = mxn_series_segment(series, k);
      if (this->ChoosesAny(seg->num_files))
      {
        index[k] = static_cast<int>(paths.size());
        paths.emplace_back(seg->path);
      }
    }
    const int n = mxn_series_num_steps(series);
    const double* t = mxn_series_times(series);
    for (int k = 0; k < n; ++k)
    {
      mxn_series_step_t where;
      mxn_series_step(series, k, &where);
      if (index[where.segment] >= 0)
      {
        times.push_back(t[k]);
        steps.push_back(Step{ index[where.segment], where.step });
      }
    }
    if (paths.empty())
    {
      // no member of any segment: each open says so, naming its set
      for (int k = 0; k < nseg; ++k)
      {
        paths.emplace_back(mxn_series_segment(series, k)->path);
      }
      times.clear();
      steps.clear();
    }
    else if (paths.size() == 1)
    {
      // one segment left: read as that dataset alone, its own times
      times.clear();
      steps.clear();
    }
  }
  mxn_series_close(&series);
  this->Adopt(paths, times, steps);
  this->ChooseMembers(false);
  return true;
}

//----------------------------------------------------------------------------
mxn_member_select_t vtkMxNSeries::Selection(bool namedOnly) const
{
  mxn_member_select_t sel{};
  sel.first = this->Chosen.FileRange[0];
  sel.last = this->Chosen.FileRange[1];
  sel.stride = this->Chosen.FileStride;
  sel.named_only = namedOnly ? 1 : 0;
  return sel;
}

//----------------------------------------------------------------------------
bool vtkMxNSeries::ChoosesAny(int numFiles) const
{
  // a plain file is read whole
  const mxn_member_select_t sel = this->Selection(false);
  return numFiles <= 1 || mxn_member_select_count(&sel, numFiles, -1) > 0;
}

//----------------------------------------------------------------------------
void vtkMxNSeries::ChooseMembers(bool namedOnly)
{
  const mxn_member_select_t sel = this->Selection(namedOnly);
  for (auto& segment : this->Segments)
  {
    segment->SetMembers(sel);
  }
}

//----------------------------------------------------------------------------
void vtkMxNSeries::Adopt(const std::vector<std::string>& paths, const std::vector<double>& times,
  const std::vector<Step>& steps)
{
  // Segments already known keep their information and loads.
  std::vector<std::unique_ptr<vtkMxNReaderInternals>> segments(paths.size());
  std::vector<int> renumber(this->Paths.size(), -1);
  for (size_t k = 0; k < paths.size(); ++k)
  {
    for (size_t j = 0; j < this->Paths.size(); ++j)
    {
      if (this->Segments[j] && this->Paths[j] == paths[k])
      {
        segments[k] = std::move(this->Segments[j]);
        renumber[j] = static_cast<int>(k);
        break;
      }
    }
    if (!segments[k])
    {
      segments[k].reset(new vtkMxNReaderInternals);
    }
  }
  std::vector<int> recent;
  for (int j : this->Recent)
  {
    if (renumber[j] >= 0)
    {
      recent.push_back(renumber[j]);
    }
  }
  this->Paths = paths;
  this->Segments = std::move(segments);
  this->Recent = recent;
  this->TimeValues = times;
  this->Steps = steps;
}

//----------------------------------------------------------------------------
void vtkMxNSeries::SetTimes(const double* times, int n)
{
  this->TimeValues.assign(times, times + std::max(n, 0));
  this->Steps.clear();
}

//----------------------------------------------------------------------------
vtkMxNSeries::Step vtkMxNSeries::StepOf(int step) const
{
  if (this->IsSeries() && step >= 0 && step < static_cast<int>(this->Steps.size()))
  {
    return this->Steps[step];
  }
  return Step{ 0, step };
}

//----------------------------------------------------------------------------
void vtkMxNSeries::Use(int k, bool dynamic)
{
  this->Recent.erase(std::remove(this->Recent.begin(), this->Recent.end(), k), this->Recent.end());
  this->Recent.insert(this->Recent.begin(), k);
  // Every rank makes the same requests, so all close the same loads.
  const size_t keep = dynamic ? 1 : static_cast<size_t>(MaxLoads);
  for (size_t i = keep; i < this->Recent.size(); ++i)
  {
    this->Segments[this->Recent[i]]->ReleaseLoad();
  }
  if (this->Recent.size() > keep)
  {
    this->Recent.resize(keep);
  }
}
