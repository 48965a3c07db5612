// Names for vtkMxNReader: entity names and the grouping of Exodus variables
// into multi-component VTK arrays, both as ParaView's IOSS reader gives
// them, and the names the reader's selections offer. Internal to the
// reader's module.
#ifndef vtkMxNVariables_h
#define vtkMxNVariables_h

#include <mxn/mxn.h>

#include <string> // for std::string
#include <vector> // for std::vector

namespace vtkMxNVariables
{
/** Scalars grouped into one array: its name and the variables (indices in
 *  the Exodus list) that are its components, in order. */
struct VarGroup
{
  std::string name;
  std::vector<int> vars;
};

/** How variables are grouped into arrays: vtkIOSSReader's
 *  GroupNumericVectorFieldComponents (`a_1 a_2 a_3` -> `a`; default off)
 *  and FieldSuffixSeparator (what must stand between a name and its
 *  component suffix; default empty: the suffix may follow the name
 *  directly or after '_'). */
struct Grouping
{
  bool Numeric = false;
  std::string Separator;
  bool operator==(const Grouping& o) const
  {
    return this->Numeric == o.Numeric && this->Separator == o.Separator;
  }
};

/** The name of an entity as vtkIOSSReader gives it: its Exodus name
 *  lower-cased with blanks as '_' (IOSS does so to every entity name), else
 *  `<prefix>_<id>`. */
std::string EntityName(const char* name, const char* prefix, mxn_gid_t id);

/**
 * Group the variables `names` (Exodus order) defined on one entity
 * (`defined[v]` != 0, or all when `defined` is null) the way vtkIOSSReader
 * does (`how`; by default an empty suffix separator): a run of consecutive
 * defined names of equal length sharing a leading part (the first pair's
 * common prefix, no shorter for the others) whose remainders form one of
 * IOSS's component suffix lists (or, with how.Numeric, 1 2 ... n) becomes
 * one array named after the leading part, without a trailing '_' (`VX VY VZ` -> `V`, `vel_x vel_y vel_z` ->
 * `vel`, `s_xx ... s_zx` -> `s`); any other name is a scalar of its own. A
 * variable named `skip` is left out (element variables: a vtkGhostType
 * stored by `mxn repart --ghosts` says which copy is a ghost in *that*
 * set; this load's own halo decides here).
 */
std::vector<VarGroup> GroupVariables(const char (*names)[MXN_NAME_LEN], int n,
  const int* defined, const char* skip = nullptr, const Grouping& how = Grouping());

/** The element variables of block b grouped (GroupVariables over the
 *  variables its truth table defines, without a stored vtkGhostType). */
std::vector<VarGroup> BlockVariables(
  const mxn_structure_t* s, int b, const Grouping& how = Grouping());

/** Attributes of a block as vtkIOSSReader shows them: `attribute` with
 *  every attribute as a component, then, if every attribute has a name
 *  (lower-cased, blanks as '_', starting with a letter, digit or '_'),
 *  the names grouped like variables; else the names IOSS gives unnamed
 *  attributes by element type (shells: `thickness`, or `nodal_thickness`
 *  with one per node; spheres: `radius`, `volume`; sphere-mass: `mass`,
 *  `inertia`, `offset`; trusses, bars, beams, rods: `area`, and in 2D
 *  `i`, `j`, in 3D `i1`, `i2`, `j`, `reference_axis`, `offset`) and the
 *  rest as `extra_attribute_<count>`. `numDim`: the mesh's dimension.
 *  Entries index the block's attributes. */
std::vector<VarGroup> AttributeGroups(
  const mxn_block_info_t& b, int numDim, const Grouping& how = Grouping());

/** Index in `nodeGroups` of the displacement vector, as vtkIOSSReader
 *  picks it: the first group whose name starts with "dis" in any case and
 *  that has `dims` components; -1 if there is none. */
int DisplacementGroup(const std::vector<VarGroup>& nodeGroups, int dims);

/** Names offered by the reader's selections for a structure, in file
 *  order: entity names, and the grouped point and cell array names (cell
 *  arrays include attributes; a stored vtkGhostType is never offered). */
struct SelectionNames
{
  std::vector<std::string> Blocks, NodeSets, SideSets, Points, Cells;
};
SelectionNames NamesOf(const mxn_structure_t* s, const Grouping& how = Grouping());
}

#endif
