"""Crossing a mesh change in an adaptive series, against a fresh load of the
new segment alone (issue 44). A pvbatch script, not a CI test.

usage: mpiexec -n N pvbatch --symmetric series_bench.py PLUGIN_SO METHOD R SEG1 ALONE2 ALONE3

SEG1: a member (or plain file) of the first segment of a 3-segment series
(mxn_gen --series 3 --steps T >= 2, made by series_bench.sh); ALONE2,
ALONE3: the same files of segments 2 and 3 in directories of their own
(links), so that they read as single datasets. GhostLevels 1.
Everything is read once first (the page cache is warm for both sides).
Then R rounds, each:
  * open: a reader on the series, its information pass (every segment's
    structure);
  * cross: that reader at the first step of segment 1, then
    the first step of segment 2, then of segment 3: the wall time of each
    UpdatePipeline that enters a new segment (max over ranks), a fresh
    re-partition each time (3 segments cycle through the 2-load cache);
  * within: the next step of segment 3: bytes the core read for it
    (mxn_load_stats bytes_read delta, sum over ranks) against the step's
    field bytes (piece nodes x nodal variables + piece elements x element
    variables, 8 bytes each, sum over ranks);
  * back: segment 2 again (its load is cached): wall time;
  * fresh: a new reader on ALONE2, then one on ALONE3, each
    created and updated at its first step: wall time.
Prints one line per round and the medians, and cross / fresh per segment.
"""
import sys
import time

from paraview.simple import *  # noqa: F401,F403
from vtkmodules.vtkCommonCore import vtkDoubleArray
from vtkmodules.vtkParallelCore import vtkMultiProcessController

plugin, method, R = sys.argv[1], sys.argv[2], int(sys.argv[3])
segs = sys.argv[4:7]
ctrl = vtkMultiProcessController.GetGlobalController()
rank = ctrl.GetLocalProcessId()
LoadPlugin(plugin, ns=globals())


def reduce(v, op):
    a, b = vtkDoubleArray(), vtkDoubleArray()
    a.InsertNextValue(float(v))
    b.SetNumberOfValues(1)
    ctrl.AllReduce(a, b, op)
    return b.GetValue(0)


def timed(fn):
    ctrl.Barrier()
    t0 = time.perf_counter()
    fn()
    return reduce(time.perf_counter() - t0, 0)  # vtkCommunicator.MAX_OP


def stats(r):
    a = r.GetClientSideObject().GetOutputDataObject(0).GetFieldData().GetArray("mxn_load_stats")
    return {a.GetComponentName(c): a.GetComponent(0, c) for c in range(a.GetNumberOfComponents())}


def field_bytes(r):
    """The step's field bytes on this rank: piece nodes x nodal variables +
    piece elements x element variables defined on their blocks."""
    out = r.GetClientSideObject().GetOutputDataObject(0)
    st = stats(r)
    nodal = 0
    elem = 0
    for i in range(out.GetNumberOfPartitionedDataSets()):
        pds = out.GetPartitionedDataSet(i)
        for j in range(pds.GetNumberOfPartitions()):
            ds = pds.GetPartition(j)
            if ds is None:
                continue
            pd, cd = ds.GetPointData(), ds.GetCellData()
            nodal = max(nodal, sum(1 for n in ("node_gid_time", "nodal_x") if pd.GetArray(n)))
            elem += ds.GetNumberOfCells() * sum(
                1 for n in ("elem_gid_time", "elem_block_only", "hot_spot") if cd.GetArray(n))
    return 8 * (st["num_nodes"] * nodal + elem)


def reader(files):
    return MxNReader(FileName=files, PartitionMethod=method, GhostLevels=1)  # noqa: F405


# Warm the page cache: every segment read once.
warm = reader([segs[0]])
for t in warm.TimestepValues:
    warm.UpdatePipeline(t)
Delete(warm)  # noqa: F405
first = {}
for s in segs[1:]:
    w = reader([s])
    first[s] = list(w.TimestepValues)
    w.UpdatePipeline(first[s][0])
    Delete(w)  # noqa: F405

rows = []
for rnd in range(R):
    holder = {}

    def open_series():
        holder["r"] = reader([segs[0]])
        holder["t"] = list(holder["r"].TimestepValues)
    o = timed(open_series)
    ser = holder["r"]
    t1, t2, t3 = holder["t"][0], first[segs[1]][0], first[segs[2]][0]
    ser.UpdatePipeline(t1)
    c2 = timed(lambda: ser.UpdatePipeline(t2))
    c3 = timed(lambda: ser.UpdatePipeline(t3))
    # a further step of segment 3: fields only
    b0 = stats(ser)["bytes_read"]
    w = timed(lambda: ser.UpdatePipeline(first[segs[2]][1]))
    read = reduce(stats(ser)["bytes_read"] - b0, 2)
    need = reduce(field_bytes(ser), 2)
    back = timed(lambda: ser.UpdatePipeline(t2))
    Delete(ser)  # noqa: F405
    fresh = []
    for s in segs[1:]:
        holder = {}

        def fresh_load():
            holder["r"] = reader([s])
            holder["r"].UpdatePipeline(first[s][0])
        fresh.append(timed(fresh_load))
        Delete(holder["r"])  # noqa: F405
    rows.append((c2, fresh[0], c3, fresh[1], w, read, need, back, o))
    if rank == 0:
        print("round %d: open %.3f s | cross2 %.3f s fresh2 %.3f s | cross3 %.3f s fresh3 %.3f s | "
              "within %.3f s read %d B, field bytes %d B (%.3f) | back to 2 %.3f s"
              % (rnd + 1, o, c2, fresh[0], c3, fresh[1], w, read, need, read / need if need else 0, back))
        sys.stdout.flush()


def med(i):
    v = sorted(r[i] for r in rows)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


if rank == 0:
    print("median: open %.3f | cross2 %.3f fresh2 %.3f (x%.2f) | cross3 %.3f fresh3 %.3f (x%.2f) | "
          "within %.3f s, read/field bytes %.3f | back %.3f s"
          % (med(8), med(0), med(1), med(0) / med(1), med(2), med(3), med(2) / med(3), med(4),
             med(5) / med(6) if med(6) else 0, med(7)))
