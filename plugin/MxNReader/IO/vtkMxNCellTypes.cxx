// Cell types and sides for vtkMxNReader (see vtkMxNCellTypes.h). The side
// tables are the core's (mxn_side_nodes): this file only names VTK's cells.
#include "vtkMxNCellTypes.h"

#include "vtkCellType.h"

#include <mxn/topology.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace vtkMxNCellTypes
{
//----------------------------------------------------------------------------
bool MapCellType(const char* exoType, int npe, CellMapping& m)
{
  std::string t(exoType ? exoType : "");
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::toupper(c); });
  auto starts = [&t](const char* p) { return t.compare(0, std::char_traits<char>::length(p), p) == 0; };
  m.order.clear();

  if (starts("HEXSHELL") || starts("NSIDED") || starts("NFACED"))
  {
    return false;
  }
  if (starts("HEX"))
  {
    switch (npe)
    {
      case 8:
        m.vtkType = VTK_HEXAHEDRON;
        return true;
      case 20:
        // Exodus: bottom, vertical, top mid-edge nodes; VTK: bottom, top, vertical.
        m.vtkType = VTK_QUADRATIC_HEXAHEDRON;
        m.order = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15 };
        return true;
      case 27:
        m.vtkType = VTK_TRIQUADRATIC_HEXAHEDRON;
        m.order = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15, 23, 24,
          25, 26, 21, 22, 20 };
        return true;
    }
    return false;
  }
  if (starts("TET"))
  {
    switch (npe)
    {
      case 4:
        m.vtkType = VTK_TETRA;
        return true;
      case 10:
        m.vtkType = VTK_QUADRATIC_TETRA; // same node order
        return true;
    }
    return false;
  }
  if (starts("WEDGE"))
  {
    // Exodus numbers a wedge's first triangle so that its right-hand normal
    // points into the wedge, VTK so that it points out: IOSS swaps the two
    // triangles (which keeps each triangle's orientation consistent with
    // the other's and flips the sign of the volume back).
    switch (npe)
    {
      case 6:
        m.vtkType = VTK_WEDGE;
        m.order = { 3, 4, 5, 0, 1, 2 };
        return true;
      case 15:
        m.vtkType = VTK_QUADRATIC_WEDGE;
        m.order = { 3, 4, 5, 0, 1, 2, 12, 13, 14, 6, 7, 8, 9, 10, 11 };
        return true;
    }
    return false;
  }
  if (starts("PYRAMID"))
  {
    switch (npe)
    {
      case 5:
        m.vtkType = VTK_PYRAMID;
        return true;
      case 13:
        m.vtkType = VTK_QUADRATIC_PYRAMID; // same node order
        return true;
    }
    return false;
  }
  if (starts("QUAD") || starts("SHELL"))
  {
    switch (npe)
    {
      case 3: // SHELL3
        m.vtkType = VTK_TRIANGLE;
        return true;
      case 4:
        m.vtkType = VTK_QUAD;
        return true;
      case 8:
        m.vtkType = VTK_QUADRATIC_QUAD;
        return true;
      case 9:
        m.vtkType = VTK_BIQUADRATIC_QUAD;
        return true;
    }
    return false;
  }
  if (starts("TRI")) // TRI, TRIANGLE, TRISHELL
  {
    switch (npe)
    {
      case 3:
        m.vtkType = VTK_TRIANGLE;
        return true;
      case 6:
        m.vtkType = VTK_QUADRATIC_TRIANGLE;
        return true;
    }
    return false;
  }
  if (starts("BAR") || starts("BEAM") || starts("TRUSS") || starts("EDGE"))
  {
    switch (npe)
    {
      case 2:
        m.vtkType = VTK_LINE;
        return true;
      case 3:
        m.vtkType = VTK_QUADRATIC_EDGE;
        return true;
    }
    return false;
  }
  if ((starts("SPHERE") || starts("CIRCLE") || starts("POINT")) && npe == 1)
  {
    m.vtkType = VTK_VERTEX;
    return true;
  }
  return false;
}

//----------------------------------------------------------------------------
bool SideOf(const char* type, int npe, int numDim, int side, SideShape& out)
{
  int nodes[MXN_MAX_SIDE_NODES];
  int corners = 0;
  const int n = mxn_side_nodes(type, npe, numDim, side, nodes, &corners);
  if (n <= 0)
  {
    return false;
  }
  // VTK's faces and edges list corners, then mid-edge nodes in edge order,
  // then the centre: the order the core gives them in. A face with a centre
  // but no mid-edge nodes (TRI4, TET8) has no VTK cell: its corners stand
  // for it.
  const int edgeMids = corners == 2 ? 1 : corners;
  const bool quadratic = corners > 1 && n - corners >= edgeMids;
  const bool centre = n - corners == (quadratic ? edgeMids + 1 : 1);
  out.nodes.assign(nodes, nodes + (quadratic ? n : corners));
  switch (corners)
  {
    case 1:
      out.vtkType = VTK_VERTEX;
      break;
    case 2:
      out.vtkType = quadratic ? VTK_QUADRATIC_EDGE : VTK_LINE;
      break;
    case 3:
      out.vtkType = !quadratic ? VTK_TRIANGLE
        : centre             ? VTK_BIQUADRATIC_TRIANGLE
                             : VTK_QUADRATIC_TRIANGLE;
      break;
    default:
      out.vtkType = !quadratic ? VTK_QUAD : centre ? VTK_BIQUADRATIC_QUAD : VTK_QUADRATIC_QUAD;
      break;
  }
  return true;
}
}
