"""Edge and face sets shown whole whatever element blocks are selected
(issue 58), through MxNReader on N ranks.

usage: mpiexec -n N pvbatch --symmetric edge_face_unselected.py PLUGIN_SO WORK_DIR

Rank 0 writes WORK_DIR/efu.exo with edge_face_gen.py (split: element
blocks 10, the z = 0 layer, and 11, the z = 1 layer; an edge and a face no
element refers to, listed by the edge set rim and the face set skin). The
file is read with only block_11 selected and with every block, every edge
and face set and their variables selected, by RCB, GhostLevels 0 and 1, at
step 2. Over the ranks, for each of the sets rim, spokes and skin: every
entry is owned (not DUPLICATECELL) on exactly one rank, with the edge's or
face's node ids in order, their coordinates and the set variable (ESV /
FSV), the same with block_11 alone as with every block and as the
generator wrote them (IOSSReader 5.11 shows no edge or face set).

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (no ncgen).
"""
import os
import shutil
import sys

SKIP = 77
if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
plugin, work = sys.argv[1], sys.argv[2]

import paraview.simple as pvs  # noqa: E402
from paraview.simple import LoadPlugin  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pvcheck import allgather_objects, ctrl, fail, finish, owned, rank  # noqa: E402,F401
import edge_face_gen as gen  # noqa: E402

LoadPlugin(plugin, remote=False, ns=globals())

ok = 1
path = os.path.join(work, "efu.exo")
if rank == 0:
    if shutil.which("ncgen") is None:
        ok = 0
    else:
        os.makedirs(work, exist_ok=True)
        gen.write(path, split=True)
if not allgather_objects(ok)[0]:
    if rank == 0:
        print("edge_face_unselected: SKIP: no ncgen")
    sys.exit(SKIP)

coords, _, edges, faces, _, _ = gen.mesh(orphans=True)
SETS = gen.sets(orphans=True)
LEAVES = {"rim": ("ESV", 0, edges), "spokes": ("ESV", 1, edges), "skin": ("FSV", 0, faces)}
STEP = 2


def owned_entries(r):
    """Per set leaf: the owned entries of this rank, (id, node ids, their
    coordinates, set variable)."""
    r.UpdatePipeline(float(STEP))
    d = r.GetClientSideObject().GetOutputDataObject(0)
    a = d.GetDataAssembly()
    out = {name: [] for name in LEAVES}
    for g in a.GetChildNodes(a.GetRootNode(), False):
        for leaf in a.GetChildNodes(g, False):
            for i in a.GetDataSetIndices(leaf, False):
                name = d.GetMetaData(i).Get(d.NAME())
                pds = d.GetPartitionedDataSet(i)
                grid = pds.GetPartition(0) if pds.GetNumberOfPartitions() else None
                if name not in LEAVES or grid is None or grid.GetNumberOfCells() == 0:
                    continue
                var = LEAVES[name][0]
                pids = vtk_to_numpy(grid.GetPointData().GetArray("ids"))
                xyz = vtk_to_numpy(grid.GetPoints().GetData())
                cid = grid.GetCellData().GetArray("ids")
                val = grid.GetCellData().GetArray(var)
                own = owned(grid)
                for c in range(grid.GetNumberOfCells()):
                    if not own[c]:
                        continue
                    pts = grid.GetCell(c).GetPointIds()
                    ps = [pts.GetId(k) for k in range(pts.GetNumberOfIds())]
                    out[name].append((int(cid.GetValue(c)), tuple(int(pids[p]) for p in ps),
                                      tuple(tuple(float(x) for x in xyz[p]) for p in ps),
                                      None if val is None else round(val.GetValue(c), 9)))
    return out


def gathered(r):
    mine = owned_entries(r)
    res = {}
    for name in LEAVES:
        merged = {}
        for part in allgather_objects(mine[name]):
            for key, nodes, xyz, v in part:
                merged.setdefault(key, []).append((nodes, xyz, v))
        res[name] = merged
    return res


checked = 0
for ghosts in (0, 1):
    got = {}
    for label, blocks in (("every block", None), ("block_11 alone", ["block_11"])):
        r = MxNReader(FileName=[path], PartitionMethod="RCB", GhostLevels=ghosts)
        if blocks:
            r.ElementBlocks = blocks
        r.EdgeSets = ["rim", "spokes"]
        r.FaceSets = ["skin"]
        r.EdgeSetFields = ["ESV"]
        r.FaceSetFields = ["FSV"]
        got[label] = gathered(r)
        pvs.Delete(r)
        where = "GhostLevels %d, %s" % (ghosts, label)
        for name, (var, index, conn) in LEAVES.items():
            kind = "edge_sets" if var == "ESV" else "face_sets"
            mine, want = got[label][name], SETS[kind][name]
            many = [k for k, v in mine.items() if len(v) != 1]
            if many or sorted(mine) != sorted(want):
                fail("%s: %s: owned %d entries, expected %d (more than once: %s; missing: %s)" % (
                    where, name, len(mine), len(want), many[:5], sorted(set(want) - set(mine))[:5]))
                continue
            for k in want:
                nodes, xyz, v = mine[k][0]
                expect_xyz = tuple(tuple(coords[n - 1]) for n in conn[k - 1])
                expect = round(gen.values(var, k, STEP, index), 9)
                if nodes != tuple(conn[k - 1]) or xyz != expect_xyz or v != expect:
                    fail("%s: %s entry %d: nodes %s at %s, %s %s; expected %s at %s, %s" % (
                        where, name, k, nodes, xyz, var, v, tuple(conn[k - 1]), expect_xyz, expect))
                    break
            checked += len(mine)
    for name in LEAVES:
        a, b = got["every block"][name], got["block_11 alone"][name]
        if {k: v[0] for k, v in a.items()} != {k: v[0] for k, v in b.items()}:
            fail("GhostLevels %d: %s differs between every block and block_11 alone" % (ghosts, name))
finish("edge_face_unselected", "%d owned entries checked on %d rank(s)" % (
    checked, ctrl.GetNumberOfProcesses()))
