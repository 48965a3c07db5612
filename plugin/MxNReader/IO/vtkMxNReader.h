/**
 * @class   vtkMxNReader
 * @brief   Reads an Exodus II dataset written as M files on any number N of
 *          ranks (MxN load-time repartitioning).
 *
 * The reader accepts a plain Exodus file, any member of a spread set
 * (`mesh.e.4.0`, `mesh.e.12.03`) or the base name of one (`mesh.e`). All
 * work is done by the C core library (libmxn); this class only converts its
 * results to VTK objects and turns core errors into vtkErrorMacro messages.
 *
 * SKELETON: this version reports the dataset's time steps
 * (TIME_STEPS / TIME_RANGE) but produces an empty
 * vtkPartitionedDataSetCollection. Reading blocks, sets, fields, ghost cells
 * and the MxN partition comes later.
 */
#ifndef vtkMxNReader_h
#define vtkMxNReader_h

#include "vtkMxNIOModule.h" // for export macro
#include "vtkPartitionedDataSetCollectionAlgorithm.h"

#include <string> // for std::string
#include <vector> // for std::vector

class VTKMXNIO_EXPORT vtkMxNReader : public vtkPartitionedDataSetCollectionAlgorithm
{
public:
  static vtkMxNReader* New();
  vtkTypeMacro(vtkMxNReader, vtkPartitionedDataSetCollectionAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  ///@{
  /**
   * The dataset: a plain Exodus file, a spread-set member or its base name.
   */
  vtkSetStringMacro(FileName);
  vtkGetStringMacro(FileName);
  ///@}

  /**
   * Returns 1 if the core can open `fname` as an Exodus II dataset (plain
   * file or complete spread set), 0 otherwise. Used by ParaView's reader
   * factory. Reads the structure of every member, no bulk data.
   */
  int CanReadFile(const char* fname);

protected:
  vtkMxNReader();
  ~vtkMxNReader() override;

  int RequestInformation(vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) override;
  int RequestData(vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) override;

  char* FileName = nullptr;

private:
  vtkMxNReader(const vtkMxNReader&) = delete;
  void operator=(const vtkMxNReader&) = delete;

  /** Time values of the dataset, from the last RequestInformation. */
  std::vector<double> TimeSteps;
};

#endif
