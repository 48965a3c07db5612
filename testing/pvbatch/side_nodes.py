"""MxNReader's side set cells against ParaView's own ExodusIIReader, node by
node: per side set id, the cells as (VTK cell type, global node ids in cell
order) must be the same multiset in both readers' output.

usage: pvbatch side_nodes.py PLUGIN_SO EXODUS_FILE

Serial (one rank reads the whole file). One difference is allowed:
ExodusIIReader makes a triangle of any side with 3 nodes, so a quadratic
edge (a 3-node side of a SHELL8 or TRI6 shell, or of a QUAD8) is a triangle
there; such cells must still list the same nodes in the same order.

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (file absent).
"""
import os
import sys
from collections import Counter

SKIP = 77
VTK_TRIANGLE, VTK_QUADRATIC_EDGE = 5, 21

if len(sys.argv) != 3:
    print("usage: pvbatch side_nodes.py PLUGIN_SO EXODUS_FILE")
    sys.exit(2)
plugin, path = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
if not os.path.isfile(path):
    print("side_nodes: SKIP: %s not found" % path)
    sys.exit(SKIP)

from paraview import servermanager  # noqa: E402
from paraview.simple import LoadPlugin  # noqa: E402


def cells_of(g, ids_name):
    """The cells of one side set as a Counter of (type, node ids...)."""
    ids = g.GetPointData().GetArray(ids_name)
    out = Counter()
    for k in range(g.GetNumberOfCells()):
        c = g.GetCell(k)
        t = c.GetCellType()
        if t == VTK_TRIANGLE and c.GetNumberOfPoints() == 3 and ids_name == "GlobalNodeId":
            t = (VTK_TRIANGLE, VTK_QUADRATIC_EDGE)  # either, see the docstring
        nodes = tuple(int(ids.GetTuple1(c.GetPointId(j))) for j in range(c.GetNumberOfPoints()))
        out[(t, nodes)] += 1
    return out


def same(m, e):
    """MxNReader's cells m equal ExodusIIReader's e, a 3-node triangle of
    ExodusIIReader matching a triangle or a quadratic edge."""
    if sum(m.values()) != sum(e.values()):
        return False
    e = Counter(e)
    for (t, nodes), n in m.items():
        key = ((VTK_TRIANGLE, VTK_QUADRATIC_EDGE), nodes) if t in (
            VTK_TRIANGLE, VTK_QUADRATIC_EDGE) and len(nodes) == 3 else (t, nodes)
        if e[key] < n:
            return False
        e[key] -= n
    return True


LoadPlugin(plugin, remote=False, ns=globals())
mxn = servermanager.sources.MxNReader()
mxn.FileName = path
mxn.UpdatePipelineInformation()
mxn.SideSets = list(mxn.GetProperty("SideSets").Available)
mxn.UpdatePipeline()
mout = mxn.GetClientSideObject().GetOutputDataObject(0)
exo = servermanager.sources.ExodusIIReader()
exo.FileName = [path]
exo.UpdatePipelineInformation()
exo.GetProperty("SideSetArrayStatus").SetData(list(exo.GetProperty("SideSetArrayStatus").Available))
exo.UpdatePipeline()
eout = exo.GetClientSideObject().GetOutputDataObject(0)

M, E = {}, {}
asm = mout.GetDataAssembly()
node = asm.GetFirstNodeByPath("/IOSS/side_sets") if asm else -1
for child in (asm.GetChildNodes(node, False) if node >= 0 else []):
    for i in asm.GetDataSetIndices(child, False):
        pds = mout.GetPartitionedDataSet(i)
        g = pds.GetPartition(0) if pds.GetNumberOfPartitions() else None
        if g is not None and g.GetNumberOfCells():
            M[int(g.GetCellData().GetArray("object_id").GetTuple1(0))] = cells_of(g, "ids")
for i in range(eout.GetNumberOfBlocks()):
    if eout.GetMetaData(i).Get(eout.NAME()) != "Side Sets":
        continue
    grp = eout.GetBlock(i)
    for j in range(grp.GetNumberOfBlocks()):
        g = grp.GetBlock(j)
        if g is not None and g.GetNumberOfCells():
            E[int(g.GetCellData().GetArray("ObjectId").GetTuple1(0))] = cells_of(g, "GlobalNodeId")

problems = []
if not E:
    problems.append("ExodusIIReader shows no side set cells")
for sid in sorted(set(M) | set(E)):
    m, e = M.get(sid, Counter()), E.get(sid, Counter())
    if not same(m, e):
        problems.append("side set %d: %d cells, ExodusIIReader %d; first differing: %s"
                        % (sid, sum(m.values()), sum(e.values()), list((m - e).items())[:2]))
name = os.path.basename(path)
if problems:
    print("side_nodes: FAIL: %s: %s" % (name, "; ".join(problems)))
    sys.stdout.flush()
    sys.exit(1)
print("side_nodes: PASS: %s: side sets %s, cells %s, same node ids in the same order as "
      "ExodusIIReader" % (name, sorted(M), [sum(M[s].values()) for s in sorted(M)]))
sys.stdout.flush()
