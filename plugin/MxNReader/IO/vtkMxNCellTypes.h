// Cell types and sides for vtkMxNReader: how an Exodus element type becomes
// a VTK cell, and an element's side (from the core's side tables,
// mxn/topology.h) a VTK face or edge. Internal to the reader's module.
#ifndef vtkMxNCellTypes_h
#define vtkMxNCellTypes_h

#include "vtkCellType.h" // for VTK_EMPTY_CELL

#include <vector> // for std::vector

namespace vtkMxNCellTypes
{
/** How an Exodus element type becomes a VTK cell. */
struct CellMapping
{
  int vtkType = VTK_EMPTY_CELL;
  /** VTK point k is Exodus node order[k]; empty = same order. */
  std::vector<int> order;
};

/**
 * Map an Exodus element type and node count to a VTK cell, as ParaView's
 * IOSS reader does (vtkIOSSUtilities, VTK 9.2). Exodus types are matched
 * case-insensitively by their leading letters, as the Exodus library does.
 * Returns false for types (or node counts) VTK has no matching cell for.
 */
bool MapCellType(const char* exoType, int npe, CellMapping& m);

/** One side of an element as a VTK cell: its type and the element-local
 *  (0-based, Exodus order) nodes in VTK order. */
struct SideShape
{
  int vtkType = VTK_EMPTY_CELL;
  std::vector<int> nodes;
};

/**
 * Side `side` (1-based) of an element of type `type` with `npe` nodes in a
 * mesh of dimension `numDim`, with the nodes the Exodus library lists for
 * it (see mxn_side_nodes()); a face with a centre node but no mid-edge
 * nodes (TRI4, TET8), which VTK has no cell for, keeps its corners. Returns
 * false for a side the type does not have, or a type the core's side
 * tables do not know.
 */
bool SideOf(const char* type, int npe, int numDim, int side, SideShape& out);
}

#endif
