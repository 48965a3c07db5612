"""The main job through ParaView: every rank of `mpiexec -n N pvbatch
--symmetric demo_load.py PLUGIN DATASET [OUT.vtpc]` loads its own balanced
piece of an M-file dataset with MxNReader and prints what it got; with OUT
given, rank 0 also writes the whole multi-piece result with ParaView's
writer (one file per piece plus an index)."""
import sys

from paraview.simple import *  # noqa: F401,F403
from paraview import servermanager
from vtkmodules.vtkParallelCore import vtkMultiProcessController

plugin, dataset = sys.argv[1], sys.argv[2]
out = sys.argv[3] if len(sys.argv) > 3 else None
ctrl = vtkMultiProcessController.GetGlobalController()
rank, size = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()

LoadPlugin(plugin, remote=False, ns=globals())
reader = MxNReader(FileName=dataset)
times = reader.TimestepValues or [0.0]
last = times[-1] if hasattr(times, "__len__") else times
reader.UpdatePipeline(last)
data = reader.GetClientSideObject().GetOutputDataObject(0)

cells = points = 0
blocks = []
for i in range(data.GetNumberOfPartitionedDataSets()):
    pds = data.GetPartitionedDataSet(i)
    name = data.GetMetaData(i).Get(data.NAME()) if data.HasMetaData(i) else "block %d" % i
    n = sum(pds.GetPartition(k).GetNumberOfCells() for k in range(pds.GetNumberOfPartitions()))
    p = sum(pds.GetPartition(k).GetNumberOfPoints() for k in range(pds.GetNumberOfPartitions()))
    cells += n
    points += p
    blocks.append("%s:%d" % (name, n))
line = "rank %d/%d: %d cells, %d points (blocks %s) at t=%g" % (
    rank, size, cells, points, " ".join(blocks), last)
# Print in rank order.
for r in range(size):
    if r == rank:
        print(line, flush=True)
    ctrl.Barrier()
if out:
    SaveData(out, proxy=reader)
    if rank == 0:
        print("saved %s" % out, flush=True)
