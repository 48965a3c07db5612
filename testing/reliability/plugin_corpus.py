"""pvbatch side of the bad-input corpus: every case through MxNReader.

usage: [mpiexec -n N] pvbatch [--symmetric] plugin_corpus.py PLUGIN_SO CORPUS RESULTS

For each case of CORPUS/cases.json that applies to the reader, a fresh
MxNReader proxy gets FileName (and PartitionMethod for --method rcb cases)
and updates; the messages of its ErrorEvent observer and the number of
owned cells it produced (vtkGhostType 0) are recorded. Midread cases update
at the first time step, then rank 0 breaks a member of a private copy of
the set, then the reader updates at the second time step.
Each rank writes RESULTS/plugin.RANK.json ({case: {errors, cells, bad}}),
rewritten after every case, so a crash or a hang leaves the cases before
it on record. run_corpus.py judges them. A watchdog (faulthandler) ends
the process if one case takes longer than 10 seconds.
"""
import faulthandler
import glob
import json
import os
import shutil
import sys

WATCHDOG = 10

plugin, corpus, results = (os.path.abspath(a) for a in sys.argv[1:4])

from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.vtkParallelCore import vtkMultiProcessController  # noqa: E402
from vtkmodules.util.misc import calldata_type  # noqa: E402
from vtkmodules.util.vtkConstants import VTK_STRING  # noqa: E402

LoadPlugin(plugin, remote=False, ns=globals())
ctrl = vtkMultiProcessController.GetGlobalController()
rank = ctrl.GetLocalProcessId() if ctrl else 0
nranks = ctrl.GetNumberOfProcesses() if ctrl else 1


def barrier():
    if ctrl and nranks > 1:
        ctrl.Barrier()


with open(os.path.join(corpus, "cases.json")) as f:
    cases = [c for c in json.load(f) if c["plugin"] is not None]
os.chdir(corpus)
out = {}
out_path = os.path.join(results, "plugin.%d.json" % rank)


def save():
    with open(out_path + ".tmp", "w") as f:
        json.dump(out, f, indent=1)
    os.replace(out_path + ".tmp", out_path)


def owned_cells(reader):
    data = reader.GetClientSideObject().GetOutputDataObject(0)
    n = 0
    if data is None or not data.IsA("vtkPartitionedDataSetCollection"):
        return 0
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        ds = it.GetCurrentDataObject()
        g = ds.GetCellData().GetArray("vtkGhostType")
        if g is None:
            n += ds.GetNumberOfCells()
        else:
            n += sum(1 for i in range(ds.GetNumberOfCells()) if g.GetValue(i) == 0)
        it.GoToNextItem()
    return n


def check_step_values(reader, step):
    """mxn_gen's node_gid_time = gid + step/16 on every point of the piece."""
    bad = []
    data = reader.GetClientSideObject().GetOutputDataObject(0)
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        ds = it.GetCurrentDataObject()
        ids = ds.GetPointData().GetArray("ids")
        v = ds.GetPointData().GetArray("node_gid_time")
        if ids is None or v is None:
            bad.append("no ids / node_gid_time point arrays")
            break
        for i in range(ds.GetNumberOfPoints()):
            want = ids.GetValue(i) + step / 16.0
            if v.GetValue(i) != want:
                bad.append("point %d: node_gid_time %r, expected %r" % (ids.GetValue(i), v.GetValue(i), want))
                break
        it.GoToNextItem()
    return bad


# pvbatch replaces sys.stderr with an object without a file descriptor:
# the watchdog writes to a file of its own.
watchdog_log = open(os.path.join(results, "watchdog.%d.log" % rank), "w")
for c in cases:
    faulthandler.dump_traceback_later(WATCHDOG, exit=True, file=watchdog_log)
    reader = servermanager.sources.MxNReader()
    messages = []

    @calldata_type(VTK_STRING)
    def on_error(obj, event, msg, messages=messages):
        messages.append(" ".join(str(msg).split()))

    reader.GetClientSideObject().AddObserver("ErrorEvent", on_error)
    if "--method" in c["args"] and c["args"][c["args"].index("--method") + 1] == "rcb":
        reader.PartitionMethod = 2
    row = {"errors": messages, "cells": 0, "bad": []}
    if c["group"] == "midread":
        src = c["dataset"]
        base = os.path.basename(src)[:-2]
        d = os.path.join(results, "midread_" + c["name"])
        if rank == 0:
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            for f in glob.glob(os.path.join(os.path.dirname(src), base + ".*")):
                shutil.copy(f, d)
        barrier()
        reader.FileName = os.path.join(d, os.path.basename(src))
        reader.UpdatePipelineInformation()
        times = list(reader.TimestepValues)
        reader.UpdatePipeline(times[0])
        barrier()
        if rank == 0:
            victim = os.path.join(d, base + ".1")
            if c["mutate"] == "delete":
                os.remove(victim)
            else:
                os.truncate(victim, os.path.getsize(victim) // 2)
        barrier()
        reader.UpdatePipeline(times[1])
        if not messages:
            row["bad"] = check_step_values(reader, 1)
    else:
        reader.FileName = c["dataset"]
        reader.UpdatePipeline()
    row["cells"] = owned_cells(reader)
    out[c["name"]] = row
    Delete(reader)
    del reader
    faulthandler.cancel_dump_traceback_later()
    save()
    barrier()
save()
# No sys.exit: under mpiexec, SystemExit ends pvbatch before MPI finalizes.
