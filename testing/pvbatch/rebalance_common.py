"""What the re-balancing pvbatch scripts share (rebalance_steps.py,
rebalance_measured.py): the rank's place in the job, failed checks
collected per rank, gathers over the ranks, and an MxNReader proxy whose
error messages are kept."""
import numpy as np
from paraview.simple import LoadPlugin
from paraview import servermanager
from vtkmodules.util.misc import calldata_type
from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy
from vtkmodules.util.vtkConstants import VTK_STRING
from vtkmodules.vtkCommonCore import vtkDoubleArray
from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController

ctrl = vtkMultiProcessController.GetGlobalController()
rank, nranks = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()
problems = []  # this rank's failed checks


def check(ok, what):
    if not ok:
        problems.append(what)
    return ok


def allgather(values):
    """Every rank's values, concatenated in rank order (float64)."""
    send = numpy_to_vtk(np.asarray(values, dtype=np.float64), deep=1) if len(values) else vtkDoubleArray()
    recv = vtkDoubleArray()
    ctrl.AllGatherV(send, recv)
    return vtk_to_numpy(recv).copy() if recv.GetNumberOfTuples() else np.zeros(0)


def allsum(values):
    send = numpy_to_vtk(np.asarray(values, dtype=np.float64), deep=1)
    recv = vtkDoubleArray()
    ctrl.AllReduce(send, recv, vtkCommunicator.SUM_OP)
    return vtk_to_numpy(recv).copy()


def mxn_reader(plugin, dataset):
    """(reader proxy on `dataset`, list its error messages are appended to)."""
    LoadPlugin(plugin, remote=False)
    r = servermanager.sources.MxNReader()
    messages = []

    @calldata_type(VTK_STRING)
    def on_error(obj, event, msg):
        messages.append(" ".join(str(msg).split()))

    r.GetClientSideObject().AddObserver("ErrorEvent", on_error)
    r.FileName = dataset
    r.UpdatePipelineInformation()
    return r, messages
