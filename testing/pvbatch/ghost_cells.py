"""MxNReader's ghost cells against ParaView's own GhostCellsGenerator.

usage: mpiexec -n N pvbatch --symmetric ghost_cells.py PLUGIN_SO DATASET [METHOD]

DATASET (a spread-set member or plain file) must have one non-empty element
block: ParaView's generator makes ghosts within each block alone, MxN across
blocks. Every rank loads its piece twice through MxNReader with the same
partition: with GhostLevels = 1, and with GhostLevels = 0 followed by
ParaView's GhostCellsGenerator (1 layer). Checked, on every rank:

  * the cells MxN marks DUPLICATECELL are, by global id, exactly the ghost
    cells GhostCellsGenerator adds to the same piece (so their counts per
    rank are equal);
  * the owned (non-ghost) cells of the GhostLevels = 1 load are the cells of
    the GhostLevels = 0 load, and over all ranks every element is owned once;
  * every element variable of a ghost cell equals the value the generator
    brought from its owner (ghost values are read from the files, never
    exchanged);
  * every point some rank holds is owned (not DUPLICATEPOINT) on exactly
    one rank.

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (DATASET absent).
Under mpiexec the script never calls sys.exit(0): falling off the end
lets pvbatch finalize MPI.
"""
import os
import sys

SKIP = 77
METHODS = ["Files", "SFC", "RCB", "RIB", "HSFC", "Graph", "Linear"]

if len(sys.argv) not in (3, 4):
    print("usage: pvbatch --symmetric ghost_cells.py PLUGIN_SO DATASET [METHOD]")
    sys.exit(2)
plugin, dataset = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
method = sys.argv[3] if len(sys.argv) == 4 else "Files"
if method not in METHODS:
    print("ghost_cells: unknown method %s" % method)
    sys.exit(2)
if not os.path.isfile(dataset):
    print("ghost_cells: SKIP: %s not found" % dataset)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes  # noqa: E402
from pvcheck import allgather_ids, fail, finish, leaves, nranks, rank  # noqa: E402


def cells(dobj):
    """Global cell ids, ghost flags, element variables; point ids, ghost flags."""
    cid, cghost, pid, pghost, cvars = [], [], [], [], {}
    for ds in leaves(dobj):
        if ds.GetNumberOfCells() == 0:
            continue
        cd, pd = ds.GetCellData(), ds.GetPointData()
        ids = cd.GetGlobalIds()
        cid.append(vtk_to_numpy(ids).astype(np.int64))
        g = cd.GetArray(vtkDataSetAttributes.GhostArrayName())
        cghost.append(vtk_to_numpy(g).astype(np.int64) if g else np.zeros(ds.GetNumberOfCells(), np.int64))
        for i in range(cd.GetNumberOfArrays()):
            a = cd.GetArray(i)
            if a is None or a.GetName() in ("ids", "object_id", vtkDataSetAttributes.GhostArrayName()):
                continue
            if a.GetNumberOfComponents() == 1 and a.GetDataType() in (10, 11):
                cvars.setdefault(a.GetName(), []).append(vtk_to_numpy(a).astype(float))
        pid.append(vtk_to_numpy(pd.GetGlobalIds()).astype(np.int64))
        g = pd.GetArray(vtkDataSetAttributes.GhostArrayName())
        pghost.append(vtk_to_numpy(g).astype(np.int64) if g else np.zeros(ds.GetNumberOfPoints(), np.int64))
    cat = lambda x: np.concatenate(x) if x else np.zeros(0, np.int64)  # noqa: E731
    return cat(cid), cat(cghost), {k: np.concatenate(v) for k, v in cvars.items()}, cat(pid), cat(pghost)


LoadPlugin(plugin, ns=globals())
with_ghosts = MxNReader(FileName=[dataset], PartitionMethod=method, GhostLevels=1)
with_ghosts.UpdatePipeline()
a = with_ghosts.GetClientSideObject().GetOutputDataObject(0)
a_cid, a_cg, a_vars, a_pid, a_pg = cells(a)

plain = MxNReader(FileName=[dataset], PartitionMethod=method, GhostLevels=0)
gen = GhostCellsGenerator(Input=plain)
if "BuildIfRequired" in gen.ListProperties():
    gen.BuildIfRequired = 0
gen.MinimumNumberOfGhosts = 1
gen.UpdatePipeline()
b_plain = plain.GetClientSideObject().GetOutputDataObject(0)
p_cid, _, _, _, _ = cells(b_plain)
b = gen.GetClientSideObject().GetOutputDataObject(0)
b_cid, b_cg, b_vars, _, _ = cells(b)

dup = vtkDataSetAttributes.DUPLICATECELL
mx_ghost = set(a_cid[(a_cg & dup) != 0].tolist())
mx_owned = a_cid[(a_cg & dup) == 0]
pv_ghost = set(b_cid[(b_cg & dup) != 0].tolist())
if nranks > 1 and not mx_ghost:
    fail("no ghost cells with GhostLevels = 1")
if mx_ghost != pv_ghost:
    fail("ghost cells differ from GhostCellsGenerator's: %d vs %d (only MxN: %s, only ParaView: %s)"
         % (len(mx_ghost), len(pv_ghost), sorted(mx_ghost - pv_ghost)[:5], sorted(pv_ghost - mx_ghost)[:5]))
if sorted(mx_owned.tolist()) != sorted(p_cid.tolist()):
    fail("owned cells (%d) differ from the GhostLevels = 0 piece (%d)" % (len(mx_owned), len(p_cid)))
owned_all = allgather_ids(mx_owned)
if len(owned_all) != len(set(owned_all.tolist())):
    fail("an element is owned by two ranks")
# ghost values: MxN read them, the generator brought them from the owner
b_index = {g: i for i, g in enumerate(b_cid.tolist())}
for name, vals in a_vars.items():
    if name not in b_vars:
        fail("element variable %s missing after GhostCellsGenerator" % name)
        continue
    for i, g in enumerate(a_cid.tolist()):
        if (a_cg[i] & dup) and g in b_index and b_vars[name][b_index[g]] != vals[i]:
            fail("ghost %d: %s = %r, its owner has %r" % (g, name, vals[i], b_vars[name][b_index[g]]))
            break
# every point owned exactly once over all ranks
owned_pts = np.unique(a_pid[(a_pg & vtkDataSetAttributes.DUPLICATEPOINT) == 0])
all_owned_pts = allgather_ids(owned_pts)
all_pts = np.unique(allgather_ids(np.unique(a_pid)))
if len(all_owned_pts) != len(set(all_owned_pts.tolist())):
    fail("a point is owned by two ranks")
if set(all_owned_pts.tolist()) != set(all_pts.tolist()):
    fail("%d points are owned by no rank" % (len(all_pts) - len(set(all_owned_pts.tolist()))))

print("ghost_cells: rank %d/%d: %d owned, %d ghosts (GhostCellsGenerator %d), %d points owned"
      % (rank, nranks, len(mx_owned), len(mx_ghost), len(pv_ghost), len(owned_pts)))
finish("ghost_cells", "ghost cells as GhostCellsGenerator's, every element and point owned once")
