"""pvbatch side of the out-of-memory test: MxNReader loads DATASET with one
ghost layer and reads its second time step; run_failalloc.py preloads
failalloc.so so that one allocation of the plugin's library fails on one
rank, and judges what each rank prints.

usage: mpiexec -n N pvbatch --symmetric failalloc_plugin.py PLUGIN_SO DATASET
           [FAILALLOC_SO RUNS [TIMEOUT]]

Without RUNS: one load, the allocations failed as failalloc.so's
environment says. With RUNS ("n:after,n:after,..."), one load per entry
in this one process (a pvbatch start-up costs seconds, a load of the test
set a fraction of one): before each, every rank calls failalloc.so's
mxn_failalloc_reset(n, after), so that the count starts from zero at the
reader's creation and the n-th allocation of the plugin's library (and
every later one, after = 1) fails on the counting rank; n = 0 fails none.
Each load gets a new reader; the failing stops before the result is
taken and the reader deleted.

Each rank prints one line per load
  FAILALLOC_RESULT run J rank R errors E cells C counted K first: MESSAGE
(J: the entry of RUNS, 0 without RUNS; E: the reader's error messages, C:
owned cells of the last update, K: the allocations counted in the load
on the counting rank (-1 without RUNS), MESSAGE: the first error or "-").
A watchdog ends a rank whose load takes over TIMEOUT seconds (default 60:
a hang), with a traceback and no result line; the loads after it are
then not made.
"""
import ctypes
import faulthandler
import os
import sys

plugin, dataset = (os.path.abspath(a) for a in sys.argv[1:3])
shim = sys.argv[3] if len(sys.argv) > 3 else None
runs = [(int(n), int(a)) for n, a in (r.split(":") for r in sys.argv[4].split(","))] \
    if len(sys.argv) > 4 else [None]
timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 60.0

from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.vtkParallelCore import vtkMultiProcessController  # noqa: E402
from vtkmodules.util.misc import calldata_type  # noqa: E402
from vtkmodules.util.vtkConstants import VTK_STRING  # noqa: E402

LoadPlugin(plugin, remote=False, ns=globals())
ctrl = vtkMultiProcessController.GetGlobalController()
rank = ctrl.GetLocalProcessId() if ctrl else 0
reset = None
if runs != [None]:
    # the preloaded library itself (dlopen of a loaded path returns it)
    reset = ctypes.CDLL(shim).mxn_failalloc_reset
    reset.argtypes = [ctypes.c_long, ctypes.c_int]
    reset.restype = ctypes.c_long


def load(messages):
    """MxNReader's owned cells after the load and the second step."""
    @calldata_type(VTK_STRING)
    def on_error(obj, event, msg):
        messages.append(" ".join(str(msg).split()))

    reader = servermanager.sources.MxNReader()
    reader.GetClientSideObject().AddObserver("ErrorEvent", on_error)
    reader.FileName = dataset
    reader.GhostLevels = 1
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues)
    reader.UpdatePipeline(times[0] if times else 0.0)
    if len(times) > 1 and not messages:
        reader.UpdatePipeline(times[1])
    counted = reset(0, 0) if reset else -1  # nothing fails from here on
    cells = 0
    data = reader.GetClientSideObject().GetOutputDataObject(0)
    if data is not None and data.IsA("vtkPartitionedDataSetCollection"):
        it = data.NewIterator()
        it.InitTraversal()
        while not it.IsDoneWithTraversal():
            ds = it.GetCurrentDataObject()
            g = ds.GetCellData().GetArray("vtkGhostType")
            n = ds.GetNumberOfCells()
            cells += n if g is None else sum(1 for i in range(n) if g.GetValue(i) == 0)
            it.GoToNextItem()
    Delete(reader)
    return cells, counted


for j, run in enumerate(runs):
    if run is not None:
        reset(run[0], run[1])
    faulthandler.dump_traceback_later(timeout, exit=True, file=sys.__stdout__)
    messages = []
    cells, counted = load(messages)
    faulthandler.cancel_dump_traceback_later()
    sys.__stdout__.write("FAILALLOC_RESULT run %d rank %d errors %d cells %d counted %d first: %s\n" %
                         (j, rank, len(messages), cells, counted, messages[0] if messages else "-"))
    sys.__stdout__.flush()
# No sys.exit: under mpiexec, SystemExit ends pvbatch before MPI finalizes.
