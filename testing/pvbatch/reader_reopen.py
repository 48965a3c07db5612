"""MxNReader's information pass: the structure it read is reused while the
members are unchanged, and read anew (with the load dropped) once a member
changed on disk.

usage: mpiexec -n N pvbatch --symmetric reader_reopen.py PLUGIN_SO DIR

DIR holds two sets split from mxn_gen output (the ctest fixture makes
them): a2.e.3.* (2 time steps) and a4.e.3.* (4 time steps) of the same
mesh. Rank 0 copies a2 to a fresh live_np<N>.e.3.*; the reader is created
on it, updated, has a property changed (the pipeline runs the information
pass again: it must keep 2 steps and the same data), then a4's last member
alone is copied over the live one (the pass must notice, whichever rank
stamped that member, and refuse the mixed set), then a4 is copied over
the live members (as a simulation that wrote more steps would leave them),
a property is changed again and the pass must now report 4 steps, and the
data at the last step must hold that step's values (mxn_gen encodes
node_gid_time = gid + k/16 at step k).

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (DIR absent).
Under mpiexec the script never calls sys.exit(0): falling off the end
lets pvbatch finalize MPI.
"""
import glob
import os
import shutil
import sys

SKIP = 77

if len(sys.argv) != 3:
    print("usage: pvbatch --symmetric reader_reopen.py PLUGIN_SO DIR")
    sys.exit(2)
plugin, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
if not glob.glob(os.path.join(src, "a2.e.3.*")) or not glob.glob(os.path.join(src, "a4.e.3.*")):
    print("reader_reopen: SKIP: no sets a2/a4 in %s" % src)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes  # noqa: E402
import pvcheck  # noqa: E402
from pvcheck import ctrl, failures, fail, leaves, nranks, rank  # noqa: E402


def check(cond, msg):
    if not cond:
        fail(msg)


def allsum(v):
    """The sum over the ranks of one number."""
    return float(pvcheck.allsum([v])[0])


live = os.path.join(src, "live_np%d.e" % nranks)


def put(which):
    """Rank 0 puts set `which` (a2 or a4) in place of the live members."""
    if rank == 0:
        for f in glob.glob(live + ".3.*"):
            os.remove(f)
        for f in sorted(glob.glob(os.path.join(src, which + ".e.3.*"))):
            shutil.copyfile(f, live + f[len(os.path.join(src, which + ".e")):])
    ctrl.Barrier()


def owned_and_values(proxy, t, step):
    """Owned cells of this rank, and whether every point's node_gid_time is
    that of `step`."""
    proxy.UpdatePipeline(time=t)
    out = proxy.GetClientSideObject().GetOutputDataObject(0)
    owned, good = 0, True
    for ds in leaves(out):
        if ds.GetNumberOfCells() == 0:
            continue
        g = ds.GetCellData().GetArray(vtkDataSetAttributes.GhostArrayName())
        n = ds.GetNumberOfCells()
        owned += n - (int((vtk_to_numpy(g) != 0).sum()) if g is not None else 0)
        ids = vtk_to_numpy(ds.GetPointData().GetGlobalIds()).astype(np.float64)
        vals = vtk_to_numpy(ds.GetPointData().GetArray("node_gid_time"))
        good = good and np.allclose(vals, ids + step / 16.0)
    return owned, good


put("a2")
LoadPlugin(plugin, ns=globals())
r = MxNReader(FileName=[live + ".3.0"])  # noqa: F405
times = list(r.TimestepValues)
check(len(times) == 2, "2 time steps at first, got %s" % times)
owned, good = owned_and_values(r, times[-1], 1)
total = allsum(owned)
check(good, "step 2 values")

# Side sets selected after the first update reuse the load, whose block
# handed its connectivity over to the grid: the sides are built from
# there (8 x 6 x 5 hex: y_min has 8 * 5 sides, z_max 8 * 6).
r.SideSets = list(r.GetProperty("SideSets").Available)
r.UpdatePipeline(time=times[-1])
sides = 0
for ds in leaves(r.GetClientSideObject().GetOutputDataObject(0)):
    es = ds.GetCellData().GetArray("element_side")
    if es is None or ds.GetNumberOfCells() == 0:
        continue
    g = ds.GetCellData().GetArray(vtkDataSetAttributes.GhostArrayName())
    sides += ds.GetNumberOfCells() - (int((vtk_to_numpy(g) != 0).sum()) if g is not None else 0)
    ids = vtk_to_numpy(es)[:, 0]
    check(ids.min() >= 1 and ids.max() <= 240, "side set element ids in 1..240")
check(allsum(sides) == 88, "side set cells after a later selection: %d of 88" % allsum(sides))
r.SideSets = []

# Another property: the pass runs again on unchanged members.
r.GhostLevels = 1
r.UpdatePipelineInformation()
check(list(r.TimestepValues) == times, "unchanged members, same steps: %s" % list(r.TimestepValues))
owned, good = owned_and_values(r, times[-1], 1)
check(allsum(owned) == total, "the same cells after a property change")
check(good, "step 2 values after a property change")

# Only the last member changes on disk (now 4 steps where the others
# have 2): each rank stamps only its share of the members, so the rank
# holding the last one must tell the others. The pass opens the set anew
# and refuses it (its members' times differ): no 2 steps kept from before.
if rank == 0:
    last = sorted(glob.glob(os.path.join(src, "a4.e.3.*")))[-1]
    shutil.copyfile(last, live + last[len(os.path.join(src, "a4.e")):])
ctrl.Barrier()
r.GhostLevels = 0
r.UpdatePipelineInformation()
check(len(r.TimestepValues) != 2,
      "one member changed, yet the pass kept the old structure: %s" % list(r.TimestepValues))

# The members change on disk: the next pass reads them anew.
put("a4")
r.PartitionMethod = "RCB"
r.UpdatePipelineInformation()
times4 = list(r.TimestepValues)
check(len(times4) == 4, "4 time steps once the members changed, got %s" % times4)
if len(times4) == 4:
    owned, good = owned_and_values(r, times4[-1], 3)
    check(allsum(owned) == total, "the same cells from the rewritten members")
    check(good, "step 4 values from the rewritten members")

bad = allsum(len(failures))
for f in failures:
    print("reader_reopen: FAIL: " + f)
sys.stdout.flush()
if bad:
    os._exit(1)
if rank == 0:
    print("reader_reopen: PASS on %d rank(s): %d cells, steps 2 then 4" % (nranks, int(total)))
