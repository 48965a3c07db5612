"""pvpython client of an MPI pvserver: MxNReader in a client-server session.

usage: pvpython pvserver_client.py PLUGIN_SO PORT RANKS DATASET CELLS NODES BAD_FILE

Run by pvserver_session.sh, which starts `mpiexec -n RANKS pvserver` on
localhost:PORT with the plugin on PV_PLUGIN_PATH. DATASET is a spread-set
member of a generated mesh with CELLS elements and NODES nodes; BAD_FILE is
a file that is not a valid Exodus II file. In one session:

  1. connect; the server has RANKS processes and has the MxNReader plugin
     loaded (remote plugin information), the client gets the proxy
     definitions (LoadPlugin(remote=True) only when the server-side
     loading did not bring them);
  2. load DATASET through MxNReader: data information totals CELLS cells;
     the pieces, gathered to the client with their process ids, come from
     exactly RANKS processes, each with cells, and hold the global cell ids
     1..CELLS once each and NODES distinct point global ids;
  3. set FileName to BAD_FILE: the reader reports an error naming the file
     (the server forwards it to the client's output window, which this
     script watches), the output is empty, and the session goes on;
  4. set FileName back to DATASET: the same totals as in 2.

Prints one summary line. Exit codes: 0 pass, 1 failure, 2 bad usage.
"""
import os
import sys

if len(sys.argv) != 8:
    print("usage: pvpython pvserver_client.py PLUGIN_SO PORT RANKS DATASET CELLS NODES BAD_FILE")
    sys.exit(2)
plugin = os.path.abspath(sys.argv[1])
port, ranks = int(sys.argv[2]), int(sys.argv[3])
dataset = os.path.abspath(sys.argv[4])
cells, nodes = int(sys.argv[5]), int(sys.argv[6])
bad_file = os.path.abspath(sys.argv[7])

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonCore import vtkCommand, vtkOutputWindow  # noqa: E402


def fail(msg):
    print("pvserver_client: FAIL: %s" % msg)
    sys.stdout.flush()
    sys.exit(1)


# Every message the output window gets (also those the server forwards).
messages = []


class Catcher:
    """Records the error and warning text reaching the client's vtkOutputWindow."""

    def __init__(self):
        from vtkmodules.util.misc import calldata_type
        from vtkmodules.util.vtkConstants import VTK_STRING
        win = vtkOutputWindow.GetInstance()

        @calldata_type(VTK_STRING)
        def record(obj, event, text):
            messages.append(" ".join(str(text).split()))

        for ev in (vtkCommand.ErrorEvent, vtkCommand.WarningEvent, vtkCommand.MessageEvent):
            win.AddObserver(ev, record)
        self.record = record


catcher = Catcher()

# --- 1. connect -------------------------------------------------------------
connection = Connect("localhost", port)  # noqa: F405
if connection is None or not connection.IsRemote():
    fail("could not connect to localhost:%d" % port)
parts = connection.GetNumberOfDataPartitions()
if parts != ranks:
    fail("server has %d data partitions, expected %d" % (parts, ranks))
pm = servermanager.vtkSMProxyManager.GetProxyManager().GetPluginManager()
remote = pm.GetRemotePluginInformation(connection.Session)
server_plugins = [remote.GetPluginName(i) for i in range(remote.GetNumberOfPlugins())
                  if remote.GetPluginLoaded(i)]
if "MxNReader" not in server_plugins:
    fail("the server did not load MxNReader from PV_PLUGIN_PATH (it has %s)" % server_plugins)
how = "PV_PLUGIN_PATH on the server"
if not hasattr(servermanager.sources, "MxNReader"):
    # The definitions reach the session with the server-side load; make the
    # Python namespace see them (no-op for the server, which has it).
    LoadPlugin(plugin, remote=True, ns=globals())  # noqa: F405
    how += " + LoadPlugin(remote=True)"
if not hasattr(servermanager.sources, "MxNReader"):
    fail("no MxNReader proxy on the client after loading the plugin")

# --- 2. the good file, in RANKS pieces ---------------------------------------
reader = servermanager.sources.MxNReader()
SetActiveSource(reader)  # noqa: F405
pids = ProcessIdScalars(Input=reader)  # noqa: F405
merged = MergeBlocks(Input=pids)  # noqa: F405


def check_good(step):
    del messages[:]
    reader.FileName = dataset
    reader.UpdatePipeline()
    errs = [m for m in messages if "ERR" in m or "rror" in m]
    if errs:
        fail("%s: errors loading %s: %s" % (step, dataset, " | ".join(errs)[:600]))
    info = reader.GetDataInformation()
    if info.GetNumberOfCells() != cells:
        fail("%s: MxNReader has %d cells, expected %d" % (step, info.GetNumberOfCells(), cells))
    merged.UpdatePipeline()
    # Fetch appends every process's piece into one grid on the client.
    data = servermanager.Fetch(merged)
    if data is None or data.GetNumberOfCells() != cells:
        fail("%s: fetched %s cells, expected %d"
             % (step, data.GetNumberOfCells() if data else None, cells))
    pd, cd = data.GetPointData(), data.GetCellData()
    pid = pd.GetArray("ProcessId")
    pgid, cgid = pd.GetArray("ids"), cd.GetArray("ids")
    if pid is None or pgid is None or cgid is None:
        fail("%s: fetched data lacks ProcessId or the 'ids' global ids" % step)
    pid, pgid, cgid = vtk_to_numpy(pid), vtk_to_numpy(pgid), vtk_to_numpy(cgid)
    # Each cell's process is its first point's.
    first = np.array([data.GetCell(c).GetPointId(0) for c in range(data.GetNumberOfCells())])
    per_rank = np.bincount(pid[first].astype(int), minlength=ranks)
    if len(per_rank) != ranks or np.any(per_rank == 0):
        fail("%s: cells per process %s, expected %d non-empty pieces"
             % (step, per_rank.tolist(), ranks))
    if not np.array_equal(np.sort(cgid), np.arange(1, cells + 1)):
        fail("%s: cell global ids are not 1..%d once each (%d distinct)"
             % (step, cells, np.unique(cgid).size))
    if np.unique(pgid).size != nodes:
        fail("%s: %d distinct point global ids, expected %d" % (step, np.unique(pgid).size, nodes))
    return per_rank.tolist(), info.GetNumberOfPoints()


first_rank_cells, first_points = check_good("first load")

# --- 3. a bad file in the same session ---------------------------------------
del messages[:]
reader.FileName = bad_file
reader.UpdatePipeline()
named = [m for m in messages if os.path.basename(bad_file) in m]
if not named:
    fail("no error naming %s reached the client (messages: %s)"
         % (os.path.basename(bad_file), " | ".join(messages)[:600]))
bad_cells = reader.GetDataInformation().GetNumberOfCells()
if bad_cells != 0:
    fail("after the bad file the reader still has %d cells" % bad_cells)

# --- 4. the good file again ---------------------------------------------------
again_rank_cells, _ = check_good("after the bad file")

print("pvserver_client: PASS: %d-rank pvserver on port %d, plugin via %s; %s: %d cells "
      "(per rank %s), %d distinct nodes, %d points over pieces; bad file reported (%s); "
      "reloaded: per rank %s"
      % (ranks, port, how, os.path.basename(dataset), cells, first_rank_cells, nodes,
         first_points, named[0][:160], again_rank_cells))
sys.stdout.flush()
Delete(merged)  # noqa: F405
Delete(pids)  # noqa: F405
Delete(reader)  # noqa: F405
Disconnect()  # noqa: F405
