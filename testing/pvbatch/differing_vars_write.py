"""Write a spread set whose members differ in their variables, with
ParaView's own parallel Exodus writer, as users' sets come to differ.

usage: mpiexec -n 3 pvbatch --symmetric differing_vars_write.py OUT.e

Each rank makes a slab of a 6 x 2 x 2 box of hex cells (rank r: cells
2r <= i < 2r + 2, ids as in test_vars.cpp) with global node and element
ids, the point array "u" (node id / 2) and the cell array "p" (cell id +
1/4). Rank 0 adds the cell array "vtkOriginalCellIds" (cell id - 1) before
"p", and the last rank the point array "w" (3 x node id): the writer gives
its member 0 an element variable the others lack, listed first, and its
last member a nodal variable the others lack, which the nodes it shares
with the member before it hold in one member only. ExodusIIWriter writes
OUT.e.3.0 .. OUT.e.3.2.
"""
import sys

from paraview.simple import ProgrammableSource, SaveData

if len(sys.argv) != 2:
    print("usage: pvbatch --symmetric differing_vars_write.py OUT.e")
    sys.exit(2)

src = ProgrammableSource()
src.OutputDataSetType = "vtkUnstructuredGrid"
src.Script = """
from vtkmodules.vtkParallelCore import vtkMultiProcessController
from vtkmodules.vtkCommonCore import vtkPoints, vtkIdTypeArray, vtkDoubleArray
from vtkmodules.vtkCommonDataModel import VTK_HEXAHEDRON
ctrl = vtkMultiProcessController.GetGlobalController()
r, last = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses() - 1
NX, NY, NZ = 6, 2, 2
out = self.GetOutput()
i0, i1 = 2 * r, 2 * r + 2

def array(cls, name):
    a = cls()
    a.SetName(name)
    return a

pts = vtkPoints()
gid = array(vtkIdTypeArray, "GlobalNodeId")
u, w = array(vtkDoubleArray, "u"), array(vtkDoubleArray, "w")
local = {}
for k in range(NZ + 1):
    for j in range(NY + 1):
        for i in range(i0, i1 + 1):
            nid = 1 + i + (NX + 1) * (j + (NY + 1) * k)
            local[(i, j, k)] = pts.InsertNextPoint(i, j, k)
            gid.InsertNextValue(nid)
            u.InsertNextValue(nid * 0.5)
            w.InsertNextValue(nid * 3.0)
out.SetPoints(pts)
out.Allocate()
egid = array(vtkIdTypeArray, "GlobalElementId")
p, orig = array(vtkDoubleArray, "p"), array(vtkDoubleArray, "vtkOriginalCellIds")
corners = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
for k in range(NZ):
    for j in range(NY):
        for i in range(i0, i1):
            out.InsertNextCell(VTK_HEXAHEDRON, 8,
                               [local[(i + a, j + b, k + c)] for a, b, c in corners])
            eid = 1 + i + NX * (j + NY * k)
            egid.InsertNextValue(eid)
            p.InsertNextValue(eid + 0.25)
            orig.InsertNextValue(eid - 1)
out.GetPointData().AddArray(u)
if r == last:
    out.GetPointData().AddArray(w)
out.GetPointData().SetGlobalIds(gid)
if r == 0:
    out.GetCellData().AddArray(orig)
out.GetCellData().AddArray(p)
out.GetCellData().SetGlobalIds(egid)
"""
SaveData(sys.argv[1], proxy=src)
