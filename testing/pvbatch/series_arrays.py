"""MxNReader's selection lists and arrays over a series whose segments
differ in blocks and variables.

usage: mpiexec -n N pvbatch --symmetric series_arrays.py PLUGIN_SO DIR

DIR holds a series made by hand with mxn_gen (see testing/CMakeLists.txt):
  a.e       --dims 4 4 4, 1 block, steps 0-1 (times 0.25, 0.5)
  a.e-s002  --dims 6 4 4 --blocks 2 --step-offset 2 --hot-spot
            --id-offset 1000000, steps 2-3 (times 0.75, 1.0)
Checked over all ranks (GhostLevels 1 on several):
  * the ElementBlocks and CellArrays lists are the union of the segments'
    (block_20 and hot_spot come from the second segment only);
  * at a time of the first segment the output has block_10 only and no
    hot_spot array; at one of the second, block_10 and block_20, both with
    hot_spot (values in [1, 10]);
  * deselecting block_20 and then hot_spot removes them at the second
    segment's times and changes nothing at the first's, also after moving
    back and forth between the segments;
  * every cell of every time has elem_gid_time = -(gid + k/16).
Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (DIR absent).
"""
import os
import sys

SKIP = 77
if len(sys.argv) != 3:
    print("usage: pvbatch --symmetric series_arrays.py PLUGIN_SO DIR")
    sys.exit(2)
plugin, d = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
if not os.path.isfile(os.path.join(d, "a.e-s002")):
    print("series_arrays: SKIP: no series in %s" % d)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkCompositeDataSet  # noqa: E402
from pvcheck import all_keys, fail, finish, nranks  # noqa: E402


def names_of(info):
    """The names of an array-selection information property (name, state pairs)."""
    v = list(info)
    return [v[i] for i in range(0, len(v), 2)]


def output(r, t):
    r.UpdatePipeline(time=t)
    out = r.GetClientSideObject().GetOutputDataObject(0)
    got = {}
    # the element blocks (node and side sets are leaves too, as IOSSReader
    # lists them)
    asm = out.GetDataAssembly()
    node = asm.GetFirstNodeByPath("/IOSS/element_blocks") if asm else -1
    for i in (asm.GetDataSetIndices(node) if node >= 0 else []):
        name = out.GetMetaData(i).Get(vtkCompositeDataSet.NAME())
        pds = out.GetPartitionedDataSet(i)
        if pds.GetNumberOfPartitions():
            got[name] = pds.GetPartition(0)
    return got


def check(r, t, blocks, hot):
    k = int(round(4 * t - 1))
    got = output(r, t)
    # a block some rank holds a grid of (an unselected one is an empty leaf)
    shown = all_keys(list(got))
    if shown != sorted(blocks):
        fail("time %g: blocks %s, expected %s" % (t, shown, sorted(blocks)))
    for name, ds in got.items():
        if ds is None or ds.GetNumberOfCells() == 0:
            continue  # this rank holds none of the block
        cd = ds.GetCellData()
        has = cd.GetArray("hot_spot") is not None
        if has != hot:
            fail("time %g %s: hot_spot %s" % (t, name, "present" if has else "absent"))
        if has:
            h = vtk_to_numpy(cd.GetArray("hot_spot"))
            if h.min() < 1 or h.max() > 10:
                fail("time %g %s: hot_spot outside [1, 10]" % (t, name))
        gid = vtk_to_numpy(cd.GetGlobalIds()).astype(np.int64)
        egt = cd.GetArray("elem_gid_time")
        if egt is None or not np.array_equal(vtk_to_numpy(egt), -(gid + k / 16.0)):
            fail("time %g %s: elem_gid_time not -(gid + %d/16)" % (t, name, k))


LoadPlugin(plugin, ns=globals())
r = MxNReader(FileName=os.path.join(d, "a.e"), GhostLevels=1 if nranks > 1 else 0)  # noqa: F405
r.UpdatePipelineInformation()
times = list(r.TimestepValues)
if times != [0.25, 0.5, 0.75, 1.0]:
    fail("times %s" % times)
blocks = names_of(r.GetProperty("ElementBlockInfo"))
cells = names_of(r.GetProperty("ElementBlockFieldInfo"))
if blocks != ["block_10", "block_20"]:
    fail("ElementBlocks lists %s, expected block_10, block_20" % blocks)
if "hot_spot" not in cells or "elem_gid_time" not in cells:
    fail("CellArrays lists %s, expected hot_spot among them" % cells)

for t in (0.25, 0.75, 0.5, 1.0, 0.25):
    second = t > 0.6
    check(r, t, ["block_10", "block_20"] if second else ["block_10"], second)
r.ElementBlocks = ["block_10"]
for t in (1.0, 0.25, 0.75):
    check(r, t, ["block_10"], t > 0.6)
r.CellArrays = [c for c in cells if c != "hot_spot"]
for t in (0.75, 0.5, 1.0):
    check(r, t, ["block_10"], False)

finish("series_arrays", "selection lists are the union; blocks and hot_spot only where "
       "their segment has them, and as selected")
