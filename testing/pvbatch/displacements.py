"""MxNReader's displacements and mode shapes, at N ranks.

usage: mpiexec -n N pvbatch --symmetric displacements.py PLUGIN_SO SET SERIAL NX NY NZ STEPS

SET is a member of a spread set, SERIAL the file it was split from, both
made by `mxn_gen --type hex --dims NX NY NZ --steps STEPS --displacement`
(node ids 1..N in file order, so a node's place in the box, and with it
its stored coordinates, follow from its id; disp_d = (k+1) x_d / 64 at
step k). Every rank runs the script (--symmetric). Checked, on every
point of every block, node-set and side-set leaf (owned and ghost points
alike, GhostLevels 1):

  1. defaults (ApplyDisplacements on, DisplacementMagnitude 1): at every
     step k the points are x (1 + (k+1)/64), the displacement read though
     no point array asks for it (NodeBlockFields without disp);
  2. DisplacementMagnitude m: x (1 + m (k+1)/64), steps out of order;
  3. ApplyDisplacements off then on again on the same reader (the kept
     structure of a further step must not keep moved or unmoved points):
     x, then x (1 + m (k+1)/64);
  4. mode shapes (HasModeShapes, ModeShape 2): no time steps offered; with
     AnimateVibrations at time t the points are x + m cos(2 pi t) u_2;
     without, x + m u_2 whatever the time;
  5. on one rank: ExodusIIReader (ParaView's legacy reader) with the same
     mode-shape settings on SERIAL gives the same points by node id.

Exit codes: 0 pass, 1 failure, 2 bad usage.
"""
import math
import sys

if len(sys.argv) != 8:
    print("usage: pvbatch --symmetric displacements.py PLUGIN_SO SET SERIAL NX NY NZ STEPS")
    sys.exit(2)
plugin, dataset, serial = sys.argv[1:4]
NX, NY, NZ, STEPS = (int(a) for a in sys.argv[4:8])

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from pvcheck import fail, finish, leaves, nranks, rank, total  # noqa: E402

LoadPlugin(plugin, remote=False, ns=globals())
NAME = "displacements_np%d" % nranks


def place(ids):
    """The stored coordinates of nodes by global id (file order i, j, k)."""
    q = np.asarray(ids, dtype=np.int64) - 1
    i = q % (NX + 1)
    j = (q // (NX + 1)) % (NY + 1)
    k = q // ((NX + 1) * (NY + 1))
    return np.stack([i, j, k], axis=1).astype(np.float64)


def points_of(proxy, t):
    """(ids, points, leaf count) of this rank's grids at time t (points of
    every leaf, ghosts included)."""
    proxy.UpdatePipeline(t)
    out = proxy.GetClientSideObject().GetOutputDataObject(0)
    ids, pts, n = [], [], 0
    for g in leaves(out):
        if g is None or not g.GetNumberOfPoints():
            continue
        n += 1
        ids.append(vtk_to_numpy(g.GetPointData().GetArray("ids")))
        pts.append(vtk_to_numpy(g.GetPoints().GetData()))
    if not ids:
        return np.zeros(0, np.int64), np.zeros((0, 3)), 0
    return np.concatenate(ids), np.concatenate(pts), n


def expect(proxy, t, scale_of, what):
    """Every point at time t is its stored place times (1 + scale), where
    scale_of(place) gives the displacement per node (array like place)."""
    ids, pts, n = points_of(proxy, t)
    x = place(ids)
    want = x + scale_of(x)
    bad = np.abs(pts - want).max(axis=1) > 1e-9 if len(ids) else np.zeros(0, bool)
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        fail("%s: node %d at %s, expected %s (%d points off)"
             % (what, ids[b], pts[b].tolist(), want[b].tolist(), int(bad.sum())))
    if total(len(ids)) == 0:
        fail("%s: no points at all" % what)
    return n


reader = servermanager.sources.MxNReader()
reader.FileName = [dataset]
reader.UpdatePipelineInformation()
reader.GhostLevels = 1 if nranks > 1 else 0
reader.NodeSets = list(reader.GetProperty("NodeSets").Available)
reader.SideSets = list(reader.GetProperty("SideSets").Available)
reader.NodeBlockFields = ["node_gid_time"]  # the displacement is not a selected array
times = list(reader.TimestepValues)
if len(times) != STEPS:
    fail("expected %d time steps, got %s" % (STEPS, times))

# 1. defaults
if int(reader.ApplyDisplacements) != 1 or abs(float(reader.DisplacementMagnitude) - 1.0) > 0:
    fail("defaults: ApplyDisplacements %s, DisplacementMagnitude %s, expected 1 and 1"
         % (reader.ApplyDisplacements, reader.DisplacementMagnitude))
for k, t in enumerate(times):
    nleaves = expect(reader, t, lambda x, k=k: x * (k + 1) / 64.0, "defaults, step %d" % k)
    if total(nleaves) < 3:
        fail("defaults: expected block, node-set and side-set leaves, got %d grids" % nleaves)
out = reader.GetClientSideObject().GetOutputDataObject(0)
for g in leaves(out):
    if g is not None and g.GetPointData().GetArray("disp") is not None:
        fail("defaults: the point array disp is there though NodeBlockFields leaves it out")
        break

# 2. magnitude, steps out of order
m = 2.5
reader.DisplacementMagnitude = m
for k in reversed(range(len(times))):
    expect(reader, times[k], lambda x, k=k: m * x * (k + 1) / 64.0, "magnitude %g, step %d" % (m, k))

# 3. off, then on again, on the same reader and load (disp selected, so
# that the switch does not change what the load reads: the grids' kept
# structure is used)
reader.NodeBlockFields = ["node_gid_time", "disp"]
expect(reader, times[-1], lambda x: m * x * len(times) / 64.0, "disp selected, last step")
reader.ApplyDisplacements = 0
for k in (1, 0):
    expect(reader, times[k], lambda x: 0.0 * x, "ApplyDisplacements off, step %d" % k)
reader.ApplyDisplacements = 1
for k in (0, len(times) - 1):
    expect(reader, times[k], lambda x, k=k: m * x * (k + 1) / 64.0, "on again, step %d" % k)

# 4. mode shapes: mode 2 (step index 1), displacement u_2 = 2 x / 64
reader.HasModeShapes = 1
reader.ModeShape = 2
reader.UpdatePipelineInformation()
if list(reader.TimestepValues):
    fail("mode shapes: time steps still offered: %s" % list(reader.TimestepValues))
for t in (0.0, 0.125, 0.25, 0.5, 0.8):
    c = math.cos(2 * math.pi * t)
    expect(reader, t, lambda x, c=c: m * c * x * 2 / 64.0, "mode shape 2, t=%g" % t)
reader.AnimateVibrations = 0
for t in (0.0, 0.5):
    expect(reader, t, lambda x: m * x * 2 / 64.0, "mode shape 2 not animated, t=%g" % t)

# 5. the legacy reader's mode shapes, one rank
if nranks == 1:
    legacy = ExodusIIReader(FileName=[serial])
    legacy.UpdatePipelineInformation()
    legacy.HasModeShapes = 1
    legacy.ModeShape = 2
    legacy.AnimateVibrations = 1
    legacy.DisplacementMagnitude = m
    reader.AnimateVibrations = 1
    for t in (0.0, 0.3):
        legacy.UpdatePipeline(t)
        lout = servermanager.Fetch(legacy)
        lid, lpts = [], []
        for g in leaves(lout):
            if g is not None and g.GetNumberOfPoints():
                lid.append(vtk_to_numpy(g.GetPointData().GetArray("PedigreeNodeId")))
                lpts.append(vtk_to_numpy(g.GetPoints().GetData()))
        ids, pts, _ = points_of(reader, t)
        ours = dict(zip(ids.tolist(), map(tuple, pts)))
        theirs = dict(zip(np.concatenate(lid).tolist(), map(tuple, np.concatenate(lpts))))
        common = [i for i in theirs if i in ours]
        off = [i for i in common if max(abs(a - b) for a, b in zip(ours[i], theirs[i])) > 1e-6]
        if not theirs or len(common) != len(theirs) or off:
            fail("mode shapes against ExodusIIReader at t=%g: %d of %d nodes differ, %d in both "
                 "(node %s: %s vs %s)" % (t, len(off), len(theirs), len(common), off[:1],
                                          off and ours[off[0]], off and theirs[off[0]]))

finish(NAME, "points moved by the displacement at every step (owned and ghost), magnitude, "
       "off/on, mode shapes%s" % (" (as ExodusIIReader)" if nranks == 1 else ""))
