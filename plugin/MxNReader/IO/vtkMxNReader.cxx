#include "vtkMxNReader.h"

#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkObjectFactory.h"
#include "vtkPartitionedDataSetCollection.h"
#include "vtkStreamingDemandDrivenPipeline.h"

#include <mxn/mxn.h>

#include <algorithm>

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
}

//----------------------------------------------------------------------------
vtkMxNReader::vtkMxNReader()
{
  this->SetNumberOfInputPorts(0);
}

//----------------------------------------------------------------------------
vtkMxNReader::~vtkMxNReader()
{
  this->SetFileName(nullptr);
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

  // SKELETON: every rank opens the dataset on its own here. The real reader
  // uses the core's collective open (rank 0 reads the structure and
  // broadcasts it, every rank agrees on failure).
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

  // Every rank will read its own balanced piece (the whole point of MxN), so
  // the pipeline may ask this reader for any piece of any number of pieces.
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

  // SKELETON: no blocks, sets or fields are read yet; the output is an empty
  // collection on purpose (no placeholder geometry). Only the time of the
  // request is recorded so time-aware consumers see a consistent output.
  output->Initialize();
  if (!this->TimeSteps.empty() &&
    outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_TIME_STEP()))
  {
    const double t = outInfo->Get(vtkStreamingDemandDrivenPipeline::UPDATE_TIME_STEP());
    // The step at or before the requested time (the first one before it).
    auto it = std::upper_bound(this->TimeSteps.begin(), this->TimeSteps.end(), t);
    const double actual = (it == this->TimeSteps.begin()) ? *it : *(it - 1);
    output->GetInformation()->Set(vtkDataObject::DATA_TIME_STEP(), actual);
  }
  return 1;
}

//----------------------------------------------------------------------------
void vtkMxNReader::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "FileName: " << (this->FileName ? this->FileName : "(none)") << "\n";
  os << indent << "NumberOfTimeSteps: " << this->TimeSteps.size() << "\n";
}
