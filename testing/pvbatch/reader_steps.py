"""MxNReader's field values over time steps read in any order.

usage: mpiexec -n N pvbatch --symmetric reader_steps.py PLUGIN_SO DATASET [METHOD]

DATASET is a member of a set split from mxn_gen output, whose variables
encode global id and step (data/gen/mxn_gen.c): at step k (0-based) a node
holds node_gid_time = gid + k/16 and nodal_x = x + k, an element holds
elem_gid_time = -(gid + k/16). The reader (GhostLevels 1) is updated at the
steps first, last, second, first again: after the first step the reader
shares the grids' structure between steps and builds only the field
arrays, so this checks, on every rank and for every point and cell (ghosts
included), that the values are those of the step asked for, and that the
structure (point and cell counts, global ids, ghost flags) stays the same.

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (DATASET absent).
Under mpiexec the script never calls sys.exit(0): falling off the end
lets pvbatch finalize MPI.
"""
import os
import sys

SKIP = 77

if len(sys.argv) not in (3, 4):
    print("usage: pvbatch --symmetric reader_steps.py PLUGIN_SO DATASET [METHOD]")
    sys.exit(2)
plugin, dataset = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
method = sys.argv[3] if len(sys.argv) == 4 else "Files"
if not os.path.isfile(dataset):
    print("reader_steps: SKIP: %s not found" % dataset)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes  # noqa: E402
from pvcheck import fail, finish, leaves, nranks  # noqa: E402


def blocks(dobj):
    """(point ids, point ghosts, x, cell ids, cell ghosts, arrays) per block leaf."""
    out = []
    for ds in leaves(dobj):
        cd, pd = ds.GetCellData(), ds.GetPointData()
        if ds.GetNumberOfCells() == 0 or cd.GetArray("elem_gid_time") is None:
            continue  # sets, empty blocks
        get = lambda a: vtk_to_numpy(a) if a is not None else None  # noqa: E731
        gh = vtkDataSetAttributes.GhostArrayName()
        out.append({
            "pid": get(pd.GetGlobalIds()).astype(np.int64),
            "pghost": get(pd.GetArray(gh)),
            "x": get(ds.GetPoints().GetData())[:, 0].copy(),
            "cid": get(cd.GetGlobalIds()).astype(np.int64),
            "cghost": get(cd.GetArray(gh)),
            "node_gid_time": get(pd.GetArray("node_gid_time")),
            "nodal_x": get(pd.GetArray("nodal_x")),
            "elem_gid_time": get(cd.GetArray("elem_gid_time")),
        })
    return out


LoadPlugin(plugin, ns=globals())
r = MxNReader(FileName=[dataset], PartitionMethod=method, GhostLevels=1)  # noqa: F405
times = list(r.TimestepValues)
if len(times) < 3:
    fail("the set has %d time steps; this check needs 3" % len(times))
    order = []
else:
    order = [0, len(times) - 1, 1, 0]
first = None
for k in order:
    r.UpdatePipeline(time=times[k])
    got = blocks(r.GetClientSideObject().GetOutputDataObject(0))
    if not got:
        fail("step %d: no block with elem_gid_time" % (k + 1))
        continue
    if first is None:
        first = got
        if nranks > 1 and not any(
                b["cghost"] is not None and (b["cghost"] != 0).any() for b in got):
            fail("no ghost cells with GhostLevels 1")
    elif len(got) != len(first):
        fail("step %d: %d blocks, %d at the first step" % (k + 1, len(got), len(first)))
    for i, b in enumerate(got):
        for name in ("node_gid_time", "nodal_x", "elem_gid_time"):
            if b[name] is None:
                fail("step %d block %d: no %s" % (k + 1, i, name))
        if any(b[n] is None for n in ("node_gid_time", "nodal_x", "elem_gid_time")):
            continue
        bad = np.flatnonzero(b["node_gid_time"] != b["pid"] + k / 16.0)
        if bad.size:
            fail("step %d: node %d has node_gid_time %r" % (k + 1, b["pid"][bad[0]], b["node_gid_time"][bad[0]]))
        bad = np.flatnonzero(b["nodal_x"] != b["x"] + k)
        if bad.size:
            fail("step %d: node %d has nodal_x %r" % (k + 1, b["pid"][bad[0]], b["nodal_x"][bad[0]]))
        bad = np.flatnonzero(b["elem_gid_time"] != -(b["cid"] + k / 16.0))
        if bad.size:
            fail("step %d: element %d has elem_gid_time %r" % (k + 1, b["cid"][bad[0]], b["elem_gid_time"][bad[0]]))
        if i < len(first):
            f = first[i]
            for name in ("pid", "cid", "pghost", "cghost"):
                a, z = b[name], f[name]
                if (a is None) != (z is None) or (a is not None and not np.array_equal(a, z)):
                    fail("step %d block %d: %s differs from the first step's" % (k + 1, i, name))

finish("reader_steps", "steps %s, values of every point and cell as encoded, structure unchanged"
       % [k + 1 for k in order])
