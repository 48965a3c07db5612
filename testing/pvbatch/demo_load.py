"""The main job through ParaView. Every rank of

    mpiexec -n N pvbatch --symmetric demo_load.py PLUGIN DATASET OUTDIR [GHOSTS] [edges]

loads its own balanced piece of an M-file dataset with MxNReader (GhostLevels
= GHOSTS, default 1) at the last time step and reports what it got: owned
cells, ghost cells (vtkGhostType DUPLICATECELL), points, cells per element
block. Rank 0 prints the lines in rank order and writes

    OUTDIR/ranks.json    the per-rank summary (the same numbers),
    OUTDIR/loaded.vtpc   the whole N-piece result (ParaView's writer),
    OUTDIR/demo.png      a screenshot: the pieces coloured by rank
                         (ParaView's ProcessIdScalars; ghost cells are
                         hidden as duplicates), composited over all ranks;
                         with "edges" the cell edges are drawn too (polyhedra).

The screenshot needs an X display (the Debian ParaView build renders through
GLX only): testing/demo.sh runs this under testing/gui/xvfb_run.sh.
testing/demo.sh checks that the owned cells over all ranks (ranks.json,
owned_cells_total) are the dataset's elements exactly once."""
import json
import os
import sys

from paraview.simple import *  # noqa: F401,F403
from vtkmodules.vtkParallelCore import vtkMultiProcessController

plugin, dataset, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
ghosts = int(sys.argv[4]) if len(sys.argv) > 4 else 1
edges = len(sys.argv) > 5 and sys.argv[5] == "edges"
ctrl = vtkMultiProcessController.GetGlobalController()
rank, size = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()
DUPLICATECELL = 1

LoadPlugin(plugin, remote=False, ns=globals())
reader = MxNReader(FileName=dataset, GhostLevels=ghosts)  # noqa: F405
times = reader.TimestepValues or [0.0]
last = times[-1] if hasattr(times, "__len__") else times
reader.UpdatePipeline(last)
data = reader.GetClientSideObject().GetOutputDataObject(0)

# --- what this rank got ------------------------------------------------------
me = {"rank": rank, "owned_cells": 0, "ghost_cells": 0, "points": 0,
      "owned_points": 0, "blocks": {}}
assembly = data.GetDataAssembly()
blocks_path = set(assembly.SelectNodes(["/IOSS/element_blocks"])) if assembly else set()
element_blocks = set()
for node in blocks_path:
    element_blocks.update(assembly.GetDataSetIndices(node))
for i in range(data.GetNumberOfPartitionedDataSets()):
    if element_blocks and i not in element_blocks:
        continue  # node sets, side sets
    pds = data.GetPartitionedDataSet(i)
    name = data.GetMetaData(i).Get(data.NAME()) if data.HasMetaData(i) else "block %d" % i
    owned = 0
    for k in range(pds.GetNumberOfPartitions()):
        ds = pds.GetPartition(k)
        g = ds.GetCellData().GetArray("vtkGhostType")
        n = ds.GetNumberOfCells()
        nghost = sum(1 for c in range(n) if g and int(g.GetValue(c)) & DUPLICATECELL)
        owned += n - nghost
        me["ghost_cells"] += nghost
        me["points"] += ds.GetNumberOfPoints()
        pg = ds.GetPointData().GetArray("vtkGhostType")
        me["owned_points"] += sum(1 for p in range(ds.GetNumberOfPoints())
                                  if not (pg and int(pg.GetValue(p))))
    me["owned_cells"] += owned
    me["blocks"][name] = owned

# --- rank 0 collects the summaries (each rank writes its own file) -----------
os.makedirs(outdir, exist_ok=True)
with open(os.path.join(outdir, "rank_%d.json" % rank), "w") as f:
    json.dump(me, f)
ctrl.Barrier()
summary = []
for r in range(size):
    with open(os.path.join(outdir, "rank_%d.json" % r)) as f:
        summary.append(json.load(f))
ctrl.Barrier()
total = sum(s["owned_cells"] for s in summary)

if rank == 0:
    for s in summary:
        print("rank %d/%d: %d owned cells + %d ghost cells, %d points (%d owned; summed over blocks) "
              "(blocks %s) at t=%g" % (
                  s["rank"], size, s["owned_cells"], s["ghost_cells"], s["points"],
                  s["owned_points"],
                  " ".join("%s:%d" % kv for kv in sorted(s["blocks"].items())), last),
              flush=True)
    for r in range(size):
        os.remove(os.path.join(outdir, "rank_%d.json" % r))
    with open(os.path.join(outdir, "ranks.json"), "w") as f:
        json.dump({"dataset": dataset, "ranks": size, "ghost_levels": ghosts,
                   "time": last, "owned_cells_total": total, "per_rank": summary}, f,
                  indent=1)
    print("saved %s" % os.path.join(outdir, "ranks.json"), flush=True)

# --- the whole result and a screenshot -----------------------------------------
SaveData(os.path.join(outdir, "loaded.vtpc"), proxy=reader)  # noqa: F405
view = CreateView("RenderView")  # noqa: F405
view.ViewSize = [900, 700]
view.OrientationAxesVisibility = 0
if "UseColorPaletteForBackground" in view.ListProperties():
    view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.ViewTime = last
ranks = ProcessIdScalars(Input=reader)  # noqa: F405  (point array ProcessId)
d = Show(ranks, view)  # noqa: F405
d.Representation = "Surface With Edges" if edges else "Surface"
ColorBy(d, ("POINTS", "ProcessId"))  # noqa: F405
lut = GetColorTransferFunction("ProcessId")  # noqa: F405
lut.ApplyPreset("Rainbow Uniform", True)
lut.RescaleTransferFunction(0.0, max(1.0, size - 1.0))
d.SetScalarBarVisibility(view, False)
view.CameraPosition = [1.0, -1.2, 0.9]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.ResetCamera()
png = os.path.join(outdir, "demo.png")
SaveScreenshot(png, view, ImageResolution=[900, 700])  # noqa: F405
if rank == 0:
    print("saved %s (pieces coloured by rank)" % png, flush=True)
    print("saved %s" % os.path.join(outdir, "loaded.vtpc"), flush=True)
