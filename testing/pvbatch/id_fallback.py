"""MxNReader on a set whose id maps cannot be trusted, against ParaView's
own ExodusIIReader on the same set.

usage: mpiexec -n N pvbatch --symmetric id_fallback.py PLUGIN_SO DATASET METHOD
                                        [--warns TEXT]

DATASET is a spread-set member. Checked, over all ranks:

  * MxNReader loads it (GhostLevels = 1) and, with --warns, says a warning
    holding TEXT once (on the load's first rank) and no error; without
    --warns it says no warning about id maps;
  * owned cells (vtkGhostType 0) == ExodusIIReader's cells, their global
    ids distinct; at N > 1 there are ghost cells, each owned elsewhere;
  * per element array: sum, min and max over owned cells equal
    ExodusIIReader's;
  * the points MxN owns (not DUPLICATEPOINT), once each over the ranks, are
    the distinct coordinates ExodusIIReader shows (it keeps a copy per
    member and block), and per nodal array min and max are equal.

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (DATASET absent).
Under mpiexec the script never calls sys.exit(0).
"""
import argparse
import os
import re
import sys

SKIP = 77
ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("plugin")
ap.add_argument("dataset")
ap.add_argument("method")
ap.add_argument("--warns", default="")
try:
    args = ap.parse_args(sys.argv[1:])
except SystemExit:
    print("usage: pvbatch --symmetric id_fallback.py PLUGIN_SO DATASET METHOD [--warns TEXT]")
    sys.exit(2)
plugin, dataset = os.path.abspath(args.plugin), os.path.abspath(args.dataset)
if not os.path.isfile(dataset):
    print("id_fallback: SKIP: %s not found" % dataset)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes  # noqa: E402
from pvcheck import allgather, fail, finish, leaves, messages, nranks, rank, total  # noqa: E402


SKIP_ARRAYS = ("ids", "object_id", "ObjectId", "GlobalElementId", "GlobalNodeId",
               "PedigreeElementId", "PedigreeNodeId", "vtkOriginalCellIds", "vtkOriginalPointIds",
               vtkDataSetAttributes.GhostArrayName())


def piece(dobj, owned_only):
    """Cells' global ids and arrays (owned ones), points' coordinates, global
    ids and arrays (owned ones when owned_only; a point of several blocks
    is in each block's dataset), ghost cell count."""
    cid, cvars, xyz, pid, pvars, ghosts = [], {}, [], [], {}, 0
    for ds in leaves(dobj):
        if ds.GetNumberOfCells() == 0:
            continue
        cd, pd = ds.GetCellData(), ds.GetPointData()
        g = cd.GetArray(vtkDataSetAttributes.GhostArrayName())
        keep = (vtk_to_numpy(g) & vtkDataSetAttributes.DUPLICATECELL) == 0 if g and owned_only \
            else np.ones(ds.GetNumberOfCells(), bool)
        ghosts += int((~keep).sum())
        if cd.GetGlobalIds() is not None:
            cid.append(vtk_to_numpy(cd.GetGlobalIds()).astype(np.int64)[keep])
        for i in range(cd.GetNumberOfArrays()):
            a = cd.GetArray(i)
            if a is not None and a.GetName() not in SKIP_ARRAYS and a.GetNumberOfComponents() == 1:
                cvars.setdefault(a.GetName(), []).append(vtk_to_numpy(a).astype(float)[keep])
        pg = pd.GetArray(vtkDataSetAttributes.GhostArrayName())
        pkeep = (vtk_to_numpy(pg) & vtkDataSetAttributes.DUPLICATEPOINT) == 0 if pg and owned_only \
            else np.ones(ds.GetNumberOfPoints(), bool)
        xyz.append(vtk_to_numpy(ds.GetPoints().GetData()).astype(float)[pkeep])
        if pd.GetGlobalIds() is not None:
            pid.append(vtk_to_numpy(pd.GetGlobalIds()).astype(np.int64)[pkeep])
        for i in range(pd.GetNumberOfArrays()):
            a = pd.GetArray(i)
            if a is not None and a.GetName() not in SKIP_ARRAYS and a.GetNumberOfComponents() == 1:
                pvars.setdefault(a.GetName(), []).append(vtk_to_numpy(a).astype(float)[pkeep])
    cat = lambda x, w=0: np.concatenate(x) if x else np.zeros((0, 3) if w else 0)  # noqa: E731
    return (cat(cid).astype(np.int64), {k: cat(v) for k, v in cvars.items()}, cat(xyz, 1),
            cat(pid).astype(np.int64), {k: cat(v) for k, v in pvars.items()}, ghosts)


LoadPlugin(plugin, ns=globals())
mx = MxNReader(FileName=[dataset], PartitionMethod=args.method, GhostLevels=1)
# The reader's warnings and errors, caught from its events.
warnings = messages(mx, "WarningEvent", "WARN", fold=False)
errors = messages(mx, "ErrorEvent", "ERR", fold=False)
mx.UpdatePipeline()
said = "\n".join(warnings + errors)
m_cid, m_cvars, m_xyz, m_pid, m_pvars, m_ghosts = piece(mx.GetClientSideObject().GetOutputDataObject(0), True)

first = re.sub(r"\.([0-9]+)$", lambda m: "." + "0" * len(m.group(1)), dataset)
ex = ExodusIIReader(FileName=[first])
ex.ElementBlocks = ex.ElementBlocks.Available
ex.PointVariables = ex.PointVariables.Available
ex.ElementVariables = ex.ElementVariables.Available
ex.UpdatePipeline()
e_cid, e_cvars, e_xyz, _, e_pvars, _ = piece(ex.GetClientSideObject().GetOutputDataObject(0), False)

if "ERR" in said:
    fail("MxNReader said an error: %s" % said.strip()[:300])
warned = total(said.count(args.warns) if args.warns else 0)
if args.warns and warned != 1:
    fail("the warning %r was said %d times over the ranks, not once" % (args.warns, warned))
if not args.warns and "id map" in said:
    fail("a warning about id maps where none was expected: %s" % said.strip()[:300])

owned = total(len(m_cid))
e_cells = total(ex.GetClientSideObject().GetOutputDataObject(0).GetNumberOfCells())
if owned != e_cells:
    fail("MxN owns %d cells over the ranks, ExodusIIReader shows %d" % (owned, e_cells))
all_ids = allgather(m_cid)
if len(np.unique(all_ids)) != len(all_ids):
    fail("an element id is owned twice")
if nranks > 1 and total(m_ghosts) == 0:
    fail("no ghost cells at N = %d" % nranks)
for name, ev in sorted(e_cvars.items()):
    mv = m_cvars.get(name)
    if mv is None:
        fail("element array %s missing from MxN" % name)
        continue
    a, b = allgather(mv), allgather(ev)
    if not np.isclose(a.sum(), b.sum(), rtol=1e-12, atol=1e-9) or a.min() != b.min() or a.max() != b.max():
        fail("element array %s: MxN sum/min/max %r/%r/%r, ExodusIIReader %r/%r/%r"
             % (name, a.sum(), a.min(), a.max(), b.sum(), b.min(), b.max()))
# points by global id: each owned on one rank, at one place
ids_here = np.unique(m_pid)
all_pids = allgather(ids_here)
if len(np.unique(all_pids)) != len(all_pids):
    fail("a point is owned by two ranks")
mp, ep = allgather(m_xyz).reshape(-1, 3), allgather(e_xyz).reshape(-1, 3)
mset = set(map(tuple, mp.tolist()))
eset = set(map(tuple, ep.tolist()))
if len(mset) != len(np.unique(all_pids)):
    fail("%d owned point ids at %d places" % (len(np.unique(all_pids)), len(mset)))
if mset != eset:
    fail("owned points differ from ExodusIIReader's distinct coordinates: %d vs %d" % (len(mset), len(eset)))
for name, ev in sorted(e_pvars.items()):
    mv = m_pvars.get(name)
    if mv is None:
        fail("nodal array %s missing from MxN" % name)
        continue
    a, b = allgather(mv), allgather(ev)
    if a.min() != b.min() or a.max() != b.max():
        fail("nodal array %s: MxN min/max %r/%r, ExodusIIReader %r/%r" % (name, a.min(), a.max(), b.min(), b.max()))

print("id_fallback: rank %d/%d: %d owned cells (%d over the ranks, ExodusIIReader %d), %d ghosts, "
      "%d points over the ranks; %s" % (rank, nranks, len(m_cid), owned, e_cells, m_ghosts, len(mset),
                                        "warned" if warned else "no warning"))
finish("id_fallback", "MxNReader's owned cells, points and arrays are ExodusIIReader's")
