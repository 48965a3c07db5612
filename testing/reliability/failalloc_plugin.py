"""pvbatch side of the out-of-memory test: MxNReader loads DATASET with one
ghost layer and reads its second time step; run_failalloc.py preloads
failalloc.so so that one allocation of the plugin's library fails on one
rank, and judges what each rank prints.

usage: mpiexec -n N pvbatch --symmetric failalloc_plugin.py PLUGIN_SO DATASET

Each rank prints one line
  FAILALLOC_RESULT rank R errors E cells C first: MESSAGE
(E: the reader's error messages, C: owned cells of the last update,
MESSAGE: the first error or "-"). A watchdog ends a rank that takes over
60 seconds (a hang), with a traceback and no result line.
"""
import faulthandler
import os
import sys

plugin, dataset = (os.path.abspath(a) for a in sys.argv[1:3])

from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.vtkParallelCore import vtkMultiProcessController  # noqa: E402
from vtkmodules.util.misc import calldata_type  # noqa: E402
from vtkmodules.util.vtkConstants import VTK_STRING  # noqa: E402

LoadPlugin(plugin, remote=False, ns=globals())
ctrl = vtkMultiProcessController.GetGlobalController()
rank = ctrl.GetLocalProcessId() if ctrl else 0
faulthandler.dump_traceback_later(60, exit=True, file=sys.__stdout__)

messages = []


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
faulthandler.cancel_dump_traceback_later()
sys.__stdout__.write("FAILALLOC_RESULT rank %d errors %d cells %d first: %s\n" %
                     (rank, len(messages), cells, messages[0] if messages else "-"))
sys.__stdout__.flush()
# No sys.exit: under mpiexec, SystemExit ends pvbatch before MPI finalizes.
