/**
 * @class   vtkMxNReader
 * @brief   Reads an Exodus II dataset written as M files on any number N of
 *          ranks (MxN load-time repartitioning).
 *
 * The reader accepts a plain Exodus file, any member of a spread set
 * (`mesh.e.4.0`, `mesh.e.12.03`) or the base name of one (`mesh.e`). All
 * work is done by the C core library (libmxn): the collective
 * `mxn_load_open()` gives every rank its balanced piece, and this class only
 * converts that piece to VTK objects and turns core errors into
 * vtkErrorMacro messages.
 *
 * Output, per rank: a vtkPartitionedDataSetCollection with one
 * vtkPartitionedDataSet per Exodus element block (structure order, named by
 * the block name or `block_<id>`), each holding one vtkUnstructuredGrid with
 * this rank's elements of the block (possibly none). Names follow
 * vtkIOSSReader so existing scripts work: point and cell arrays `ids`
 * (global node / element ids, also the vtkGlobalIds attribute), cell array
 * `object_id` (the block id), one array per nodal / element variable
 * (scalars, Exodus names), global variables in the collection's field data,
 * and a vtkDataAssembly with an `element_blocks` node.
 *
 * Pieces: with 1 piece the whole dataset is read on MPI_COMM_SELF; with one
 * piece per rank of the global vtkMPIController, the load is collective over
 * its communicator. Other piece counts are refused.
 *
 * Not yet: node sets, side sets, edge/face blocks, ghost cells, grouping of
 * scalar variables into vectors.
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

  /** Values of PartitionMethod (the proxy XML uses these numbers). */
  enum PartitionMethods
  {
    FILES = 0,  ///< whole member files to ranks, cut only where needed
    SFC = 1,    ///< Hilbert order of element centroids, cut in equal weights
    RCB = 2,    ///< Zoltan recursive coordinate bisection
    RIB = 3,    ///< Zoltan recursive inertial bisection
    HSFC = 4,   ///< Zoltan Hilbert space-filling curve
    GRAPH = 5,  ///< Zoltan graph partitioning of the dual graph
    LINEAR = 6  ///< contiguous runs of global element ids
  };

  ///@{
  /**
   * How the elements are divided among the ranks (one of PartitionMethods).
   * Default FILES. Changing it re-reads the mesh on the next update.
   */
  vtkSetClampMacro(PartitionMethod, int, FILES, LINEAR);
  vtkGetMacro(PartitionMethod, int);

  /**
   * Layers of ghost cells to read around each rank's piece (0..100). The
   * reader uses the larger of this and the pipeline's request
   * (UPDATE_NUMBER_OF_GHOST_LEVELS). Ghost cells carry vtkGhostType
   * DUPLICATECELL, points owned by another rank DUPLICATEPOINT.
   */
  vtkSetClampMacro(GhostLevels, int, 0, 100);
  vtkGetMacro(GhostLevels, int);
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
  int PartitionMethod = FILES;
  int GhostLevels = 0;

private:
  vtkMxNReader(const vtkMxNReader&) = delete;
  void operator=(const vtkMxNReader&) = delete;

  /** Time values of the dataset, from the last RequestInformation. */
  std::vector<double> TimeSteps;

  /** The cached load (core handle and what it was opened with). */
  struct LoadCache;
  LoadCache* Cache;
};

#endif
