"""MxNReader on an adaptive series written by `mxn_gen --series K`.

usage: mpiexec -n N pvbatch --symmetric series.py PLUGIN_SO METHOD
           NX NY NZ B T K OVERLAP [--ioss] [--rebalance] FILE [FILE ...]

NX NY NZ B T K OVERLAP are the generator's options (--dims NX NY NZ
--blocks B --steps T --series K, OVERLAP 1 with --series-overlap, else 0):
segment s = 0..K-1 has dims floor(D (s+2) / 2), blocks 10 .. 10 (B+s),
node and element ids s*1000000 + 1 .. and series steps k = s (T-OVERLAP)
+ kl at times (k+1)/4 (data/gen/mxn_gen.c). One FILE: the series is
discovered from it; several: the list as ParaView's file dialog passes it.
Segments may be plain files or spread sets of any M (`mxn split`).

The reader (GhostLevels 1 on several ranks) is updated at every time in
order, then in a scrambled order that crosses segments both ways. At each
time, over all ranks:
  * the times are the series' (K (T-OVERLAP) + OVERLAP of them);
  * the element blocks are exactly the segment's (10 .. 10 (B+s));
  * the owned cells (vtkGhostType 0) are the segment's elements, each
    owned once (their ids are exactly s*1000000 + 1 .. + E_s);
  * every point and cell (ghosts included) holds the generator's values at
    that series step: node_gid_time = gid + k/16, nodal_x = x + k,
    elem_gid_time = -(gid + k/16), elem_block_only = 2 gid + k/16 (block
    10 only), global step_index = k.
With --rebalance (a series written with --hot-spot) the reader re-balances
every step by hot_spot (RebalanceEachTimeStep), which starts afresh in each
segment; the checks are the same.
With --ioss (plain files only) IOSSReader reads the same FILE list: the
same times, and at every time the same owned cell count and the same sums
of elem_gid_time and elem_block_only.

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (a FILE absent).
Under mpiexec the script never calls sys.exit(0): falling off the end
lets pvbatch finalize MPI.
"""
import os
import sys

SKIP = 77
args = sys.argv[1:]
ioss = "--ioss" in args
rebalance = "--rebalance" in args
args = [a for a in args if a not in ("--ioss", "--rebalance")]
if len(args) < 10:
    print(__doc__.split("\n\n")[1])
    sys.exit(2)
plugin, method = os.path.abspath(args[0]), args[1]
NX, NY, NZ, B, T, K, OVERLAP = (int(a) for a in args[2:9])
files = [os.path.abspath(f) for f in args[9:]]
for f in files:
    if not os.path.exists(f) and not any(
            n.startswith(os.path.basename(f) + ".") for n in os.listdir(os.path.dirname(f))):
        print("series: SKIP: %s not found" % f)
        sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkCompositeDataSet  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes  # noqa: E402

from pvcheck import allgather_ids, allsum, fail, finish, nranks  # noqa: E402
from pvcheck import leaves as leaf_datasets  # noqa: E402

SHIFT = 1000000


def segment_of(k):
    """The segment that shows series step k (the later one on a shared time)."""
    return min(K - 1, k // (T - OVERLAP))


def seg_dims(s):
    return [d * (s + 2) // 2 for d in (NX, NY, NZ)]


def seg_elements(s):
    d = seg_dims(s)
    return d[0] * d[1] * d[2]


def block_names(dobj):
    """The names of the collection's partitioned datasets (every block,
    also one this rank holds no partition of)."""
    out = []
    for i in range(dobj.GetNumberOfPartitionedDataSets()):
        meta = dobj.GetMetaData(i)
        out.append(meta.Get(vtkCompositeDataSet.NAME()) if meta and meta.Has(vtkCompositeDataSet.NAME()) else "")
    return out


def element_block_names(dobj):
    """The names of the element blocks (the partitioned datasets under
    /IOSS/element_blocks: node and side sets, selected or not, are leaves
    too, as IOSSReader lists them)."""
    asm = dobj.GetDataAssembly()
    node = asm.GetFirstNodeByPath("/IOSS/element_blocks") if asm else -1
    if node < 0:
        return []
    names = block_names(dobj)
    return [names[i] for i in asm.GetDataSetIndices(node)]


def leaves(dobj):
    """(name, grid) of every leaf of the collection."""
    out = []
    for i, name in enumerate(block_names(dobj)):
        pds = dobj.GetPartitionedDataSet(i)
        for j in range(pds.GetNumberOfPartitions()):
            if pds.GetPartition(j) is not None:
                out.append((name, pds.GetPartition(j)))
    return out


def get(a):
    return vtk_to_numpy(a) if a is not None else None


def owned_mask(cd, n):
    g = cd.GetArray(vtkDataSetAttributes.GhostArrayName())
    return np.ones(n, bool) if g is None else vtk_to_numpy(g) == 0


def check_time(r, t, k):
    """Check the reader's output at time t (series step k); returns the
    owned count and the sums IOSS is compared on."""
    s = segment_of(k)
    r.UpdatePipeline(time=t)
    out = r.GetClientSideObject().GetOutputDataObject(0)
    got_t = out.GetInformation().Get(out.DATA_TIME_STEP()) if out.GetInformation().Has(out.DATA_TIME_STEP()) else None
    if got_t is None or abs(got_t - t) > 1e-12:
        fail("time %g: output time %r" % (t, got_t))
    names = element_block_names(out)
    want = ["block_%d" % (10 * (b + 1)) for b in range(B + s)]
    if names != want:
        fail("time %g (segment %d): blocks %s, expected %s" % (t, s + 1, names, want))
    fd = out.GetFieldData().GetArray("step_index")
    if fd is None or fd.GetValue(0) != k:
        fail("time %g: step_index %r, expected %d" % (t, fd.GetValue(0) if fd else None, k))
    owned_ids = []
    sums = [0.0, 0.0]
    for name, ds in leaves(out):
        cd, pd = ds.GetCellData(), ds.GetPointData()
        n = ds.GetNumberOfCells()
        if n == 0:
            continue
        cid = get(cd.GetGlobalIds()).astype(np.int64)
        pid = get(pd.GetGlobalIds()).astype(np.int64)
        own = owned_mask(cd, n)
        owned_ids.extend(cid[own].tolist())
        lo, hi = s * SHIFT + 1, s * SHIFT + seg_elements(s)
        if cid.min() < lo or cid.max() > hi:
            fail("time %g %s: element ids %d..%d outside segment %d's %d..%d"
                 % (t, name, cid.min(), cid.max(), s + 1, lo, hi))
        d = seg_dims(s)
        if pid.min() < s * SHIFT + 1 or pid.max() > s * SHIFT + (d[0] + 1) * (d[1] + 1) * (d[2] + 1):
            fail("time %g %s: node ids outside segment %d's" % (t, name, s + 1))
        x = get(ds.GetPoints().GetData())[:, 0]
        checks = [("node_gid_time", get(pd.GetArray("node_gid_time")), pid + k / 16.0, pid),
                  ("nodal_x", get(pd.GetArray("nodal_x")), x + k, pid),
                  ("elem_gid_time", get(cd.GetArray("elem_gid_time")), -(cid + k / 16.0), cid)]
        ebo = get(cd.GetArray("elem_block_only"))
        if name == "block_10":
            checks.append(("elem_block_only", ebo, 2.0 * cid + k / 16.0, cid))
            if ebo is not None:
                sums[1] += float(ebo[own].sum())
        for what, val, expect, ids in checks:
            if val is None:
                fail("time %g %s: no %s" % (t, name, what))
                continue
            bad = np.flatnonzero(val != expect)
            if bad.size:
                fail("time %g %s: id %d has %s %r, expected %r"
                     % (t, name, ids[bad[0]], what, val[bad[0]], expect[bad[0]]))
        egt = get(cd.GetArray("elem_gid_time"))
        if egt is not None:
            sums[0] += float(egt[own].sum())
    every = allgather_ids(owned_ids)
    E = seg_elements(s)
    if every.size != E or not np.array_equal(np.sort(every), np.arange(s * SHIFT + 1, s * SHIFT + E + 1)):
        uniq = np.unique(every).size
        fail("time %g (segment %d): %d owned cells (%d distinct), expected each of %d once"
             % (t, s + 1, every.size, uniq, E))
    return [float(every.size)] + allsum(sums).tolist()


LoadPlugin(plugin, ns=globals())
r = MxNReader(FileName=files if len(files) > 1 else files[0],  # noqa: F405
              PartitionMethod=method, GhostLevels=1 if nranks > 1 else 0)
if rebalance:
    r.LoadBalanceField = "hot_spot"
    r.RebalanceEachTimeStep = 1
times = list(r.TimestepValues)
nsteps = K * (T - OVERLAP) + OVERLAP
want_times = [(k + 1) / 4.0 for k in range(nsteps)]
if times != want_times:
    fail("times %s, expected %s" % (times, want_times))
    times = []
order = list(range(len(times)))
# scrambled, crossing segments both ways (same on every rank)
order += [int(v) for v in np.random.RandomState(7).permutation(len(times))]
totals = {}
for k in order:
    totals[k] = check_time(r, times[k], k)

if ioss and times:
    io = IOSSReader(FileName=files)  # noqa: F405
    itimes = list(io.TimestepValues)
    if [round(v, 12) for v in itimes] != [round(v, 12) for v in times]:
        fail("IOSSReader times %s, MxNReader %s" % (itimes, times))
    else:
        for k, t in enumerate(times):
            io.UpdatePipeline(time=t)
            out = io.GetClientSideObject().GetOutputDataObject(0)
            n, sums = 0, [0.0, 0.0]
            for ds in leaf_datasets(out):
                cd = ds.GetCellData()
                own = owned_mask(cd, ds.GetNumberOfCells())
                n += int(own.sum())
                for i, a in enumerate(("elem_gid_time", "elem_block_only")):
                    v = get(cd.GetArray(a))
                    if v is not None:
                        sums[i] += float(v[own].sum())
            theirs = allsum([n] + sums).tolist()
            if theirs != totals[k]:
                fail("time %g: IOSSReader owned cells and sums %s, MxNReader %s" % (t, theirs, totals[k]))

finish("series", "%d segments, %d times (requested %d times, in order then scrambled), "
       "owned cells and values as generated%s" % (K, len(times), len(order),
                                                  ", IOSSReader agrees" if ioss else ""))
