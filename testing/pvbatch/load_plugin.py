"""Load the MxNReader plugin into pvbatch and check what it reports.

usage: pvbatch load_plugin.py PLUGIN_SO DATASET

Checks that the plugin loads, that the paraview.simple namespace gains the
`MxNReader` constructor, that the reader updates on DATASET without errors
and that its TimestepValues equal those of ParaView's own ExodusIIReader on
the same file. Prints one summary line.

Exit codes (pvbatch returns the code given to sys.exit as is): 0 pass,
1 failure, 2 bad usage, 77 skipped (the directory of DATASET is absent, i.e.
no shared data; ctest SKIP_RETURN_CODE).
"""
import glob
import os
import sys

from timesteps import as_list, same_times

SKIP = 77


def fail(msg):
    print("load_plugin: FAIL: %s" % msg)
    sys.stdout.flush()
    sys.exit(1)


if len(sys.argv) != 3:
    print("usage: pvbatch load_plugin.py PLUGIN_SO DATASET")
    sys.exit(2)
plugin, dataset = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
if not os.path.isdir(os.path.dirname(dataset)):
    print("load_plugin: SKIP: data directory %s not found" % os.path.dirname(dataset))
    sys.exit(SKIP)
if not os.path.isfile(plugin):
    fail("plugin %s not found" % plugin)

from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from pvcheck import messages  # noqa: E402

try:
    # ns=globals(): the new constructors are added to this namespace (the
    # paraview.simple one that `import *` brought in), not to the module.
    LoadPlugin(plugin, remote=False, ns=globals())
except RuntimeError as e:
    fail("LoadPlugin(%s): %s" % (plugin, e))
if "MxNReader" not in globals():
    fail("no MxNReader in the paraview.simple namespace after LoadPlugin(%s)" % plugin)

# paraview.simple's constructor would run RequestInformation at once; build
# the proxy first, watch its VTK object for errors (pvbatch only prints
# them; caught, they fail the test), then give it the file.
reader = servermanager.sources.MxNReader()
errors = messages(reader)
reader.FileName = dataset
reader.UpdatePipeline()
if errors:
    fail("MxNReader reported errors on %s: %s" % (dataset, " | ".join(errors)))
out = reader.GetClientSideObject().GetOutputDataObject(0)
if out is None or out.GetClassName() != "vtkPartitionedDataSetCollection":
    fail("MxNReader output is %s, expected vtkPartitionedDataSetCollection"
         % (out.GetClassName() if out else None))
mxn_times = as_list(reader.TimestepValues)

# MxNReader also takes the base name of a spread set ("mesh.e" for
# mesh.e.4.*); ExodusIIReader needs a member's name.
members = sorted(glob.glob(glob.escape(dataset) + ".*.*"))
exo_file = dataset if os.path.exists(dataset) or not members else members[0]
exo = ExodusIIReader(FileName=[exo_file])  # noqa: F405
exo.UpdatePipelineInformation()
exo_times = as_list(exo.TimestepValues)

if not same_times(mxn_times, exo_times):
    fail("TimestepValues differ on %s: MxNReader %d %s..., ExodusIIReader %d %s..."
         % (dataset, len(mxn_times), mxn_times[:5], len(exo_times), exo_times[:5]))

print("load_plugin: PASS: %s loaded; MxNReader(%s) reports %d time steps%s, "
      "equal to ExodusIIReader" % (
          os.path.basename(plugin), os.path.basename(dataset), len(mxn_times),
          " [%g .. %g]" % (mxn_times[0], mxn_times[-1]) if mxn_times else ""))
# No sys.exit(0): under mpiexec, SystemExit ends pvbatch before it finalizes
# MPI, and mpiexec then reports the job as failed. Falling off the end does.
