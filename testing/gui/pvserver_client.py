"""pvpython client of an MPI pvserver: MxNReader in a client-server session.

usage: pvpython pvserver_client.py PLUGIN_SO PORT RANKS DATASET CELLS NODES BAD_FILE...

Run by pvserver_session.sh, which starts `mpiexec -n RANKS pvserver` on
localhost:PORT with the plugin on PV_PLUGIN_PATH. DATASET is a spread-set
member of a generated mesh with CELLS elements and NODES nodes; BAD_FILE is
a file that cannot be read (several may follow). In one session:

  1. connect; the server has RANKS processes and has the MxNReader plugin
     loaded (remote plugin information), the client gets the proxy
     definitions (LoadPlugin(remote=True) only when the server-side
     loading did not bring them);
  2. load DATASET through MxNReader; gather the pieces to the client with
     their process ids (ProcessIdScalars, MergeBlocks, Fetch): they hold as
     many cells as the data information says; the owned (non-ghost) cells
     come from exactly RANKS processes, each with some, and carry the global
     cell ids 1..CELLS once each; every ghost cell is owned somewhere; the
     points carry NODES distinct global ids;
  3. for each BAD_FILE: set FileName to it; the reader reports an error
     naming it (the server forwards its processes' errors to the client's
     output window, which this script watches), the output is empty, and
     the session goes on; then set FileName back to DATASET: the same
     totals as in 2;
  4. where the proxy has GhostLevels: with 2 levels the same owned cells
     and more ghost cells than the one level ParaView asks for.

Prints one summary line. Exit codes: 0 pass, 1 failure, 2 bad usage.
"""
import os
import sys

if len(sys.argv) < 8:
    print("usage: pvpython pvserver_client.py PLUGIN_SO PORT RANKS DATASET CELLS NODES BAD_FILE...")
    sys.exit(2)
plugin = os.path.abspath(sys.argv[1])
port, ranks = int(sys.argv[2]), int(sys.argv[3])
dataset = os.path.abspath(sys.argv[4])
cells, nodes = int(sys.argv[5]), int(sys.argv[6])
bad_files = [os.path.abspath(a) for a in sys.argv[7:]]

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
remote = pm.GetRemoteInformation(connection.Session)
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
# With more than one server process ParaView's UpdatePipeline asks every
# source for one ghost level on unstructured data
# (vtkProcessModule::GetNumberOfGhostLevelsToRequest, used by
# vtkSISourceProxy::UpdatePipeline), and MxNReader provides it: its data
# information counts owned plus ghost cells. Owned cells are those without
# vtkGhostType DUPLICATECELL.
reader = servermanager.sources.MxNReader()
reader.FileName = dataset
SetActiveSource(reader)  # noqa: F405
pids = ProcessIdScalars(Input=reader)  # noqa: F405
merged = MergeBlocks(Input=pids)  # noqa: F405
# Every process's grid appended on the root. (Fetch(merged) alone would pick
# its append filter from dinfo.IsA("vtkDataSet"), which is False for the
# data information object in ParaView 5.11, and bring the root's piece only.)
gathered = servermanager.filters.ReductionFilter(Input=merged)
gathered.PostGatherHelperName = "vtkAppendFilter"


def check_good(step):
    del messages[:]
    reader.FileName = dataset
    reader.UpdatePipeline()
    errs = [m for m in messages if "ERR" in m or "rror" in m]
    if errs:
        fail("%s: errors loading %s: %s" % (step, dataset, " | ".join(errs)[:600]))
    info_cells = reader.GetDataInformation().GetNumberOfCells()
    gathered.UpdatePipeline()
    data = servermanager.Fetch(gathered, 0)
    if data is None or data.GetNumberOfCells() != info_cells:
        fail("%s: fetched %s cells, data information says %d"
             % (step, data.GetNumberOfCells() if data else None, info_cells))
    pd, cd = data.GetPointData(), data.GetCellData()
    pid, ghost = pd.GetArray("ProcessId"), cd.GetArray("vtkGhostType")
    pgid, cgid = pd.GetArray("ids"), cd.GetArray("ids")
    if pid is None or pgid is None or cgid is None:
        fail("%s: fetched data lacks ProcessId or the 'ids' global ids" % step)
    pid, pgid, cgid = vtk_to_numpy(pid), vtk_to_numpy(pgid), vtk_to_numpy(cgid)
    owned = np.ones(cgid.size, dtype=bool) if ghost is None else (vtk_to_numpy(ghost) & 1) == 0
    # Each cell's process is its first point's.
    first = np.array([data.GetCell(c).GetPointId(0) for c in range(data.GetNumberOfCells())])
    per_rank = np.bincount(pid[first[owned]].astype(int), minlength=ranks)
    if len(per_rank) != ranks or np.any(per_rank == 0):
        fail("%s: owned cells per process %s, expected %d non-empty pieces"
             % (step, per_rank.tolist(), ranks))
    if not np.array_equal(np.sort(cgid[owned]), np.arange(1, cells + 1)):
        fail("%s: owned cell global ids are not 1..%d once each (%d owned, %d distinct)"
             % (step, cells, int(owned.sum()), np.unique(cgid[owned]).size))
    if not np.all(np.isin(cgid[~owned], cgid[owned])):
        fail("%s: a ghost cell's global id is owned by no process" % step)
    if np.unique(pgid).size != nodes:
        fail("%s: %d distinct point global ids, expected %d" % (step, np.unique(pgid).size, nodes))
    return per_rank.tolist(), int((~owned).sum())


first_rank_cells, first_ghosts = check_good("first load")

# --- 3. bad files, each followed by the good file, in the same session ------
reported = []
for bad_file in bad_files:
    del messages[:]
    reader.FileName = bad_file
    reader.UpdatePipeline()
    named = [m for m in messages if os.path.basename(bad_file) in m]
    if not named:
        fail("no error naming %s reached the client (messages: %s)"
             % (os.path.basename(bad_file), " | ".join(messages)[:600]))
    bad_cells = reader.GetDataInformation().GetNumberOfCells()
    if bad_cells != 0:
        fail("after %s the reader still has %d cells" % (os.path.basename(bad_file), bad_cells))
    # The most specific message: the reader's own, not the executive's.
    mine = [m for m in named if "vtkMxNReader" in m] or named
    reported.append(mine[0][mine[0].find("vtkMxNReader ("):][:220])
    again_rank_cells, _ = check_good("after " + os.path.basename(bad_file))

# --- 4. more ghost layers, where the proxy has the property ---------------------
ghost_note = "no GhostLevels property"
if "GhostLevels" in reader.ListProperties():
    reader.GhostLevels = 2
    _, ghosts2 = check_good("GhostLevels = 2")
    if ghosts2 <= first_ghosts:
        fail("GhostLevels = 2 gives %d ghost cells, not more than the %d of one level"
             % (ghosts2, first_ghosts))
    reader.GhostLevels = 0
    ghost_note = "GhostLevels = 2: %d ghost cells" % ghosts2

print("pvserver_client: PASS: %d-rank pvserver on port %d, plugin via %s; %s: %d cells "
      "owned (per rank %s) + %d ghost cells, %d distinct nodes; bad files reported: %s; "
      "reloaded each time, last: per rank %s; %s"
      % (ranks, port, how, os.path.basename(dataset), cells, first_rank_cells, first_ghosts,
         nodes, " || ".join(reported), again_rank_cells, ghost_note))
sys.stdout.flush()
Delete(gathered)  # noqa: F405
Delete(merged)  # noqa: F405
Delete(pids)  # noqa: F405
Delete(reader)  # noqa: F405
Disconnect()  # noqa: F405
