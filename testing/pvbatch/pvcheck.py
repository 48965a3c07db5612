"""What the pvbatch checks share, most of them run on N ranks (mpiexec ...
pvbatch --symmetric): the rank's place in the job, failed checks
collected per rank, sums and gathers over the ranks, the leaves of a
reader's output, array layouts and owned (non-ghost) cells, a proxy's error or warning messages kept for the check,
and the closing tally that gives every rank the same verdict. Time values
are compared in timesteps.py.

Import it after paraview.simple (pvbatch has set up MPI by then)."""
import pickle
import sys

import numpy as np
from vtkmodules.util.misc import calldata_type
from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy
from vtkmodules.util.vtkConstants import VTK_ID_TYPE, VTK_STRING, VTK_UNSIGNED_CHAR
from vtkmodules.vtkCommonCore import vtkDoubleArray, vtkIdTypeArray, vtkUnsignedCharArray
from vtkmodules.vtkCommonDataModel import vtkDataObjectTreeIterator
from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController

ctrl = vtkMultiProcessController.GetGlobalController()
rank, nranks = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()
failures = []  # this rank's failed checks


def fail(msg):
    failures.append("rank %d: %s" % (rank, msg))


def leaves(dobj):
    """The leaf datasets of a composite output, in tree order."""
    it = vtkDataObjectTreeIterator()
    it.SetDataSet(dobj)
    it.VisitOnlyLeavesOn()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        yield it.GetCurrentDataObject()
        it.GoToNextItem()


def layout(attrs, skip=()):
    """The sorted (name, components) of a vtkFieldData's (point, cell or
    field data's) arrays, leaving out the names in skip."""
    return sorted((attrs.GetArrayName(k), attrs.GetAbstractArray(k).GetNumberOfComponents())
                  for k in range(attrs.GetNumberOfArrays())
                  if attrs.GetArrayName(k) not in skip)


def owned(g):
    """Which cells of the grid g are owned (not ghosts: vtkGhostType bit 1
    clear), as a boolean array; all of them without vtkGhostType."""
    gh = g.GetCellData().GetArray("vtkGhostType")
    n = g.GetNumberOfCells()
    return (vtk_to_numpy(gh) & 1) == 0 if gh is not None and n else np.ones(n, dtype=bool)


def allgather(values, width=None):
    """Every rank's values as float64, concatenated in rank order; with
    width, rows of that many columns, stacked (shape (n, width))."""
    rows = width is not None
    w = width if rows else 1
    a = np.ascontiguousarray(np.asarray(values, dtype=np.float64).reshape(-1, w))
    send = numpy_to_vtk(a if rows else a.ravel(), deep=1) if a.shape[0] else vtkDoubleArray()
    send.SetNumberOfComponents(w)
    recv = vtkDoubleArray()
    ctrl.AllGatherV(send, recv)
    n = recv.GetNumberOfTuples()
    if not n:
        return np.zeros((0, w) if rows else 0)
    got = vtk_to_numpy(recv).copy()
    return got.reshape(n, w) if rows else got.ravel()


def allgather_ids(ids):
    """Every rank's integer ids (int64, exact beyond 2^53), in rank order."""
    a = np.ascontiguousarray(np.asarray(ids, dtype=np.int64).ravel())
    send = numpy_to_vtk(a, deep=1, array_type=VTK_ID_TYPE) if a.size else vtkIdTypeArray()
    recv = vtkIdTypeArray()
    ctrl.AllGatherV(send, recv)
    return vtk_to_numpy(recv).astype(np.int64) if recv.GetNumberOfTuples() else np.zeros(0, np.int64)


def allgather_objects(obj):
    """Every rank's picklable obj, as a list in rank order (one exchange of
    bytes, whatever the shapes: for tables that differ from rank to rank)."""
    data = np.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=np.uint8)
    sizes = allgather_ids([data.size])
    send = numpy_to_vtk(data.copy(), deep=1, array_type=VTK_UNSIGNED_CHAR) if data.size \
        else vtkUnsignedCharArray()
    recv = vtkUnsignedCharArray()
    ctrl.AllGatherV(send, recv)
    got = vtk_to_numpy(recv).tobytes() if recv.GetNumberOfTuples() else b""
    out, at = [], 0
    for n in sizes:
        out.append(pickle.loads(got[at:at + n]))
        at += n
    return out


def allreduce(values, op=vtkCommunicator.SUM_OP):
    """Element-wise reduction (sum by default) over the ranks, float64."""
    if len(values) == 0:
        return np.zeros(0)
    send = numpy_to_vtk(np.asarray(values, dtype=np.float64), deep=1)
    recv = vtkDoubleArray()
    ctrl.AllReduce(send, recv, op)
    return vtk_to_numpy(recv).copy()


def allsum(values):
    return allreduce(values, vtkCommunicator.SUM_OP)


def all_keys(keys):
    """The sorted union over ranks of string keys."""
    text = "\n".join(sorted(keys))
    codes = allgather([[ord(c)] for c in text + "\n"], 1)[:, 0].astype(int)
    return sorted(set(k for k in "".join(chr(c) for c in codes).split("\n") if k))


def total(count):
    """The sum over the ranks of an integer (every rank gets it)."""
    a, b = vtkIdTypeArray(), vtkIdTypeArray()
    a.InsertNextValue(int(count))
    b.SetNumberOfValues(1)
    ctrl.AllReduce(a, b, vtkCommunicator.SUM_OP)
    return int(b.GetValue(0))


def messages(proxy, event="ErrorEvent", tag=None, fold=True):
    """A list that the proxy's VTK object appends its `event` messages to
    (white space folded unless fold is False; prefixed "TAG: " with a tag).
    An observed event is not printed: the check decides what it means."""
    heard = []

    @calldata_type(VTK_STRING)
    def on_event(obj, ev, msg):
        text = " ".join(str(msg).split()) if fold else str(msg)
        heard.append("%s: %s" % (tag, text) if tag else text)

    proxy.GetClientSideObject().AddObserver(event, on_event)
    return heard


def finish(name, passed):
    """The end of a check: this rank's failures (the first 10), and on rank
    0 their count over the ranks or, when there are none, NAME: PASS:
    PASSED. Every rank exits 1 on a failure anywhere. On success it
    returns: under mpiexec, SystemExit ends pvbatch before it finalizes MPI
    and mpiexec reports the job as failed; falling off the end does not."""
    nfail = total(len(failures))
    for f in failures[:10]:
        print("%s: FAIL: %s" % (name, f))
    if nfail:
        if rank == 0:
            print("%s: FAIL: %d problems over ranks" % (name, nfail))
        sys.stdout.flush()
        sys.exit(1)
    if rank == 0:
        print("%s: PASS: %s" % (name, passed))
