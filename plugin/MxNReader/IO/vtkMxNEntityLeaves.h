// Edge blocks, face blocks, element sets, face sets and edge sets as leaves
// of vtkMxNReader's output, with the selections that choose them and their
// fields (vtkIOSSReader's EdgeBlocks ... EdgeSetFields, NodeSetFields and
// SideSetFields), named and ordered as vtkIOSSReader does. The grids are
// built by vtkMxNPieceConverter's EdgeFaceBlock and EntitySet, defined in
// vtkMxNEntityLeaves.cxx. Internal to the reader's module.
#ifndef vtkMxNEntityLeaves_h
#define vtkMxNEntityLeaves_h

#include "vtkMxNPieceConverter.h"
#include "vtkMxNVariables.h"

#include <mxn/mxn.h>

#include <array>  // for std::array
#include <string> // for std::string
#include <vector> // for std::vector

class vtkDataArraySelection;

namespace vtkMxNEntityLeaves
{
/** The reader's selections of this file, in the order of its
 *  EntitySelections (the field selections in vtkMxNPieceConverter::
 *  EntityContext::Fields order, from EDGE_BLOCK_FIELDS). */
enum Selection
{
  EDGE_BLOCKS = 0,
  FACE_BLOCKS,
  ELEMENT_SETS,
  FACE_SETS,
  EDGE_SETS,
  EDGE_BLOCK_FIELDS,
  FACE_BLOCK_FIELDS,
  ELEMENT_SET_FIELDS,
  FACE_SET_FIELDS,
  EDGE_SET_FIELDS,
  NODE_SET_FIELDS,
  SIDE_SET_FIELDS,
  NUMBER_OF_SELECTIONS
};

using Names = std::array<std::vector<std::string>, NUMBER_OF_SELECTIONS>;

/** What each selection offers for a structure, in file order: entity
 *  names (`edgeblock_<id>`, `faceblock_<id>`, `elementlist_<id>`,
 *  `facelist_<id>`, `edgelist_<id>` when unnamed, as IOSS names them),
 *  grouped variable names (edge and face blocks: with their attributes,
 *  `attribute` and the named ones, as element blocks). */
Names NamesOf(const mxn_structure_t* s, const vtkMxNVariables::Grouping& how);

/** Whether a name of selection k is on when first offered: edge and face
 *  blocks and their fields are, sets and set fields are not (as
 *  vtkIOSSReader). */
bool OnByDefault(int k);

/**
 * vtkMxNPieceConverter::Leaves with the edge and face blocks and the
 * element, face and edge sets added, every entity listed (an unselected
 * one is an empty leaf), in vtkIOSSReader's order: edge blocks, face
 * blocks, element blocks, node sets, edge sets, face sets, element sets,
 * side sets. `sel`: the reader's selections (Selection order).
 */
std::vector<vtkMxNPieceConverter::Leaf> Leaves(const mxn_structure_t* s,
  const std::vector<int>& blocks, vtkDataArraySelection* nodeSets,
  vtkDataArraySelection* sideSets, vtkDataArraySelection* const* sel);
}

#endif
