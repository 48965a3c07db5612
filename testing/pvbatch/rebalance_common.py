"""What the re-balancing pvbatch scripts share (rebalance_steps.py,
rebalance_measured.py), beside what every parallel check shares
(pvcheck.py): an MxNReader proxy whose error messages are kept, and the
checks of a step's owned cells and field data."""
import numpy as np
from paraview.simple import LoadPlugin
from paraview import servermanager
from vtkmodules.util.numpy_support import vtk_to_numpy

from pvcheck import allgather, allsum, fail, messages, nranks


def check(ok, what):
    if not ok:
        fail(what)
    return ok


def mxn_reader(plugin, dataset):
    """(reader proxy on `dataset`, list its error messages are appended to)."""
    LoadPlugin(plugin, remote=False)
    r = servermanager.sources.MxNReader()
    errors = messages(r)
    r.FileName = dataset
    r.UpdatePipelineInformation()
    return r, errors


def animated_reader(plugin, dataset, tol, cell_arrays, **props):
    """(reader, its error messages, its times): an MxNReader on `dataset`
    that re-balances every time step (SFC, one ghost layer, ImbalanceTolerance
    tol) with `cell_arrays` and the further properties `props`; checks that
    the set has the 20 steps or more the scripts animate through."""
    r, errors = mxn_reader(plugin, dataset)
    r.CellArrays = cell_arrays
    r.GhostLevels = 1
    r.PartitionMethod = "SFC"
    r.ImbalanceTolerance = tol
    r.RebalanceEachTimeStep = 1
    for name, value in props.items():
        setattr(r, name, value)
    times = list(r.TimestepValues)
    check(len(times) >= 20, "%d time steps, want >= 20" % len(times))
    return r, errors, times


def owned_cells(out, marker):
    """This rank's owned (not DUPLICATECELL) cells of the output's blocks
    that carry cell array `marker`: their global ids (int64) and the sum of
    their elem_gid_time."""
    ids, gid_time = [], 0.0
    for i in range(out.GetNumberOfPartitionedDataSets()):
        pds = out.GetPartitionedDataSet(i)
        for k in range(pds.GetNumberOfPartitions()):
            g = pds.GetPartition(k)
            if g is None or not g.GetNumberOfCells() or g.GetCellData().GetArray(marker) is None:
                continue
            gh = g.GetCellData().GetArray("vtkGhostType")
            own = (vtk_to_numpy(gh) & 1) == 0 if gh is not None else np.ones(g.GetNumberOfCells(), bool)
            ids += vtk_to_numpy(g.GetCellData().GetArray("ids"))[own].tolist()
            gid_time += float(vtk_to_numpy(g.GetCellData().GetArray("elem_gid_time"))[own].sum())
    return np.asarray(ids, dtype=np.int64), gid_time


def field_scalars(out, names):
    """The output's field data scalars `names` as floats (None if absent)."""
    fd = out.GetFieldData()
    field = {}
    for name in names:
        a = fd.GetArray(name)
        field[name] = float(a.GetTuple1(0)) if a is not None else None
    return field


def check_owned_totals(k, ids, gid_time, total):
    """Step k (0-based) of an mxn_gen set: the owned ids of all ranks are
    1..total, each once, and their elem_gid_time (-(gid + k/16)) sums to
    -(n(n+1)/2 + n k/16). total None: the count found now. Returns the
    count of owned cells over the ranks."""
    allids = np.sort(allgather(ids))
    n = allids.size
    total = n if total is None else total
    check(n == total and np.array_equal(allids, np.arange(1, total + 1)),
          "step %d: %d owned cells over the ranks (%d distinct), want ids 1..%d once each"
          % (k + 1, n, np.unique(allids).size, total))
    s = allsum([gid_time])[0]
    want = -(total * (total + 1) / 2.0 + total * k / 16.0)
    check(abs(s - want) <= 1e-9 * abs(want), "step %d: owned elem_gid_time sums to %.17g, want %.17g"
          % (k + 1, s, want))
    return n


def check_ranks_agree(k, values):
    """Every rank holds the same `values` at step k (0-based)."""
    same = allgather(values)
    check(np.all(same.reshape(nranks, -1) == same.reshape(nranks, -1)[0]),
          "step %d: ranks disagree on the field data" % (k + 1))
