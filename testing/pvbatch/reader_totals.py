"""Every rank's MxNReader piece against ParaView's own ExodusIIReader.

usage: mpiexec -n N pvbatch --symmetric reader_totals.py PLUGIN_SO DATASET [METHOD]

DATASET is a spread-set member (mesh.e.4.0) or a plain Exodus file; METHOD
is a PartitionMethod name (Files, SFC, RCB, RIB, HSFC, Graph, Linear;
default Files). With --symmetric every rank runs this script and each
reader's client-side output is that rank's own piece. Both readers are
updated at the last time step; the figures of all ranks are gathered with
the global vtkMultiProcessController, and every rank reaches the same
verdict. Checked:

  * MxNReader reports no error, and gives one partitioned dataset per
    element block with the IOSS names (point/cell "ids" as global ids,
    cell "object_id");
  * every rank's piece has cells (when N <= elements);
  * cells over all ranks == ExodusIIReader's cells over all ranks;
  * the cell global ids over all ranks are distinct and are exactly
    ExodusIIReader's GlobalElementId set;
  * the distinct point global ids equal ExodusIIReader's GlobalNodeId set,
    and a point shared by several ranks/blocks has the same coordinates and
    nodal values everywhere;
  * per nodal variable: the sum over distinct points equals ExodusIIReader's
    (which groups VX VY VZ into a vector V: compared per component);
  * per element variable: the sum over all cells equals ExodusIIReader's;
  * global variables equal ExodusIIReader's where it exposes them;
  * every cell of a 3D block has a positive volume (vtkCellSizeFilter).

Exit codes: 0 pass (falling off the end: under mpiexec, SystemExit ends
pvbatch before it finalizes MPI, and the job is reported failed), 1 failure,
2 bad usage, 77 skipped (DATASET absent).
"""
import os
import re
import sys

SKIP = 77
METHODS = ["Files", "SFC", "RCB", "RIB", "HSFC", "Graph", "Linear"]
SPREAD_MEMBER = re.compile(r"^(.*)\.([0-9]+)\.([0-9]+)$")
COMPONENT = {"x": 0, "y": 1, "z": 2}

if len(sys.argv) not in (3, 4):
    print("usage: pvbatch --symmetric reader_totals.py PLUGIN_SO DATASET [METHOD]")
    sys.exit(2)
plugin, dataset = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
method = sys.argv[3] if len(sys.argv) == 4 else "Files"
if method not in METHODS:
    print("reader_totals: unknown method %s (one of %s)" % (method, ", ".join(METHODS)))
    sys.exit(2)
if not os.path.isfile(dataset):
    print("reader_totals: SKIP: %s not found" % dataset)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.util.misc import calldata_type  # noqa: E402
from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy  # noqa: E402
from vtkmodules.util.vtkConstants import VTK_STRING  # noqa: E402
from vtkmodules.vtkCommonCore import vtkDoubleArray  # noqa: E402
from vtkmodules.vtkFiltersVerdict import vtkCellSizeFilter  # noqa: E402
from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController  # noqa: E402

ctrl = vtkMultiProcessController.GetGlobalController()
rank, nranks = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()
name = "reader_totals[%s, %s, N=%d]" % (os.path.basename(dataset), method, nranks)


def allgather(rows, width):
    """Rows (a list of equal-length float tuples) of every rank, stacked."""
    a = np.ascontiguousarray(np.asarray(rows, dtype=np.float64).reshape(-1, width))
    if a.shape[0]:
        send = numpy_to_vtk(a, deep=1)
    else:
        send = vtkDoubleArray()
        send.SetNumberOfComponents(width)
    recv = vtkDoubleArray()
    ctrl.AllGatherV(send, recv)
    n = recv.GetNumberOfTuples()
    if n == 0:
        return np.zeros((0, width))
    return vtk_to_numpy(recv).reshape(n, width).copy()


def allsum(values):
    send = numpy_to_vtk(np.asarray(values, dtype=np.float64), deep=1)
    recv = vtkDoubleArray()
    ctrl.AllReduce(send, recv, vtkCommunicator.SUM_OP)
    return vtk_to_numpy(recv).copy()


def close(a, b, scale):
    return abs(a - b) <= 1e-9 * max(1.0, scale)


def leaves(data):
    it = data.NewIterator()
    it.UnRegister(None)
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        yield it.GetCurrentDataObject()
        it.GoToNextItem()


def arrays(attrs):
    return {attrs.GetArrayName(k): attrs.GetArray(k) for k in range(attrs.GetNumberOfArrays())
            if attrs.GetArray(k) is not None}


problems = []  # this rank's; merged over ranks at the end

# --- MxNReader --------------------------------------------------------------
LoadPlugin(plugin, remote=False, ns=globals())
errors = []


@calldata_type(VTK_STRING)
def on_error(obj, event, msg):
    errors.append(" ".join(str(msg).split()))


mxn = servermanager.sources.MxNReader()
mxn.GetClientSideObject().AddObserver("ErrorEvent", on_error)
mxn.FileName = dataset
mxn.PartitionMethod = method
mxn.UpdatePipelineInformation()
times = [float(t) for t in (mxn.TimestepValues or [])] if hasattr(
    mxn.TimestepValues, "__iter__") else [float(mxn.TimestepValues)]
t_last = times[-1] if times else 0.0
mxn.UpdatePipeline(t_last)
if errors:
    problems.append("MxNReader errors: " + " | ".join(errors)[:600])
out = mxn.GetClientSideObject().GetOutputDataObject(0)

point_rows, cell_gids, mxn_cells = [], [], 0
node_vars, elem_sums, bad_volumes, vol_total = None, {}, 0, 0.0
global_vals = {}
if out is None or out.GetClassName() != "vtkPartitionedDataSetCollection":
    problems.append("output is %s" % (out.GetClassName() if out else None))
else:
    fd = out.GetFieldData()
    for k in range(fd.GetNumberOfArrays()):
        global_vals[fd.GetArrayName(k)] = fd.GetArray(k).GetTuple1(0)
    asm = out.GetDataAssembly()
    eb = asm.GetFirstNodeByPath("/IOSS/element_blocks") if asm else -1
    if eb < 0 or asm.GetNumberOfChildren(eb) != out.GetNumberOfPartitionedDataSets():
        problems.append("data assembly lacks /IOSS/element_blocks with one node per block")
    for b in range(out.GetNumberOfPartitionedDataSets()):
        pds = out.GetPartitionedDataSet(b)
        bname = out.GetMetaData(b).Get(out.NAME()) if out.HasMetaData(b) else None
        if not bname or pds is None or pds.GetNumberOfPartitions() != 1:
            problems.append("block %d: no name or not one partition" % b)
            continue
        g = pds.GetPartition(0)
        pd, cd = g.GetPointData(), g.GetCellData()
        pg, cg = pd.GetGlobalIds(), cd.GetGlobalIds()
        if pg is None or pg.GetName() != "ids" or cg is None or cg.GetName() != "ids" \
                or cd.GetArray("object_id") is None:
            problems.append("block %s: global ids 'ids' or 'object_id' missing" % bname)
            continue
        pa = {n: a for n, a in arrays(pd).items() if n not in ("ids", "vtkGhostType")}
        if node_vars is None:
            node_vars = sorted(pa)
        elif sorted(pa) != node_vars:
            problems.append("block %s: nodal arrays %s, others %s" % (bname, sorted(pa), node_vars))
            continue
        pts = vtk_to_numpy(g.GetPoints().GetData()) if g.GetNumberOfPoints() else np.zeros((0, 3))
        cols = [vtk_to_numpy(pg).astype(np.float64).reshape(-1, 1), pts.reshape(-1, 3)]
        cols += [vtk_to_numpy(pa[n]).reshape(-1, 1) for n in node_vars]
        point_rows.append(np.hstack(cols) if g.GetNumberOfPoints() else
                          np.zeros((0, 4 + len(node_vars))))
        # Owned cells only: a downstream request for ghost levels (pvbatch
        # asks for one in parallel) adds cells marked DUPLICATECELL.
        gh = cd.GetArray("vtkGhostType")
        own = (vtk_to_numpy(gh) & 1) == 0 if gh is not None else np.ones(g.GetNumberOfCells(), bool)
        n = int(np.sum(own))
        mxn_cells += n
        cell_gids.extend(vtk_to_numpy(cg)[own].tolist() if n else [])
        for an, a in arrays(cd).items():
            if an not in ("ids", "object_id", "vtkGhostType"):
                elem_sums[an] = elem_sums.get(an, 0.0) + (float(np.sum(vtk_to_numpy(a)[own])) if n else 0.0)
        if n and g.GetCell(0).GetCellDimension() == 3:
            f = vtkCellSizeFilter()
            f.SetInputData(g)
            f.ComputeVertexCountOff()
            f.ComputeLengthOff()
            f.ComputeAreaOff()
            f.ComputeVolumeOn()
            f.Update()
            vol = vtk_to_numpy(f.GetOutput().GetCellData().GetArray("Volume"))[own]
            bad_volumes += int(np.sum(vol <= 0))
            vol_total += float(np.sum(vol))
node_vars = node_vars or []

# --- ExodusIIReader (member 0 of a spread set: see check_totals.py) -------
m = SPREAD_MEMBER.match(dataset)
exo_file = dataset
if m:
    zero = "%s.%s.%s" % (m.group(1), m.group(2), "0" * len(m.group(3)))
    exo_file = zero if os.path.isfile(zero) else dataset
exo = servermanager.sources.ExodusIIReader()
exo.FileName = [exo_file]
exo.UpdatePipelineInformation()
for p in ("ElementBlocks", "PointVariables", "ElementVariables", "GlobalVariables"):
    prop = exo.GetProperty(p)
    prop.SetData(list(prop.Available))
for p in ("NodeSetArrayStatus", "SideSetArrayStatus", "EdgeBlocks", "FaceBlocks",
          "ElementSetArrayStatus", "EdgeSetArrayStatus", "FaceSetArrayStatus"):
    prop = exo.GetProperty(p)
    if prop is not None:
        prop.SetData([])
exo.ApplyDisplacements = 0
exo.UpdatePipeline(t_last)
eout = exo.GetClientSideObject().GetOutputDataObject(0)
exo_point_rows, exo_cell_gids, exo_cells, exo_elem_sums, exo_globals = {}, [], 0, {}, {}
exo_pnames = None
for g in leaves(eout):
    if g.GetNumberOfCells() == 0:
        continue
    pd, cd = g.GetPointData(), g.GetCellData()
    pa = arrays(pd)
    if exo_pnames is None:
        exo_pnames = sorted(n for n in pa if n != "GlobalNodeId")
    cols = [vtk_to_numpy(pa["GlobalNodeId"]).astype(np.float64).reshape(-1, 1)]
    for n in exo_pnames:
        cols.append(vtk_to_numpy(pa[n]).reshape(g.GetNumberOfPoints(), -1))
    exo_point_rows.setdefault("rows", []).append(np.hstack(cols))
    exo_cells += g.GetNumberOfCells()
    exo_cell_gids.extend(vtk_to_numpy(cd.GetArray("GlobalElementId")).tolist())
    for an, a in arrays(cd).items():
        v = vtk_to_numpy(a).reshape(g.GetNumberOfCells(), -1)
        for c in range(v.shape[1]):
            key = (an, c, v.shape[1])
            exo_elem_sums[key] = exo_elem_sums.get(key, 0.0) + float(np.sum(v[:, c]))
    fd = g.GetFieldData()
    for k in range(fd.GetNumberOfArrays()):
        a = fd.GetArray(k)
        # ExodusIIReader keeps a global variable as one tuple per time step.
        if a is not None and a.GetNumberOfComponents() == 1 and times and \
                a.GetNumberOfTuples() == len(times) and fd.GetArrayName(k) in global_vals:
            exo_globals[fd.GetArrayName(k)] = a.GetTuple1(len(times) - 1)

# --- Gather and compare (every rank computes the same verdict) -------------
# Exodus per-point layout must be agreed: ranks without cells know no names.
# A rank without files (N > M) has no blocks: take the layout of the rank
# that knows the most arrays, sent as character codes.
exo_ncomp = {}
for g in leaves(eout):
    if g.GetNumberOfCells():
        for n, a in arrays(g.GetPointData()).items():
            exo_ncomp[n] = a.GetNumberOfComponents()
layout = ";".join("%s:%d" % kv for kv in sorted(exo_ncomp.items()))
lengths = allgather([[len(layout)]], 1)[:, 0].astype(int)
chars = allgather([[ord(c)] for c in layout], 1)[:, 0].astype(int)
best = int(np.argmax(lengths))
start = int(lengths[:best].sum())
layout = "".join(chr(c) for c in chars[start:start + lengths[best]])
exo_ncomp = {kv.rsplit(":", 1)[0]: int(kv.rsplit(":", 1)[1]) for kv in layout.split(";") if kv}
exo_pnames = sorted(n for n in exo_ncomp if n != "GlobalNodeId")
# (Re-derive widths from the agreed name list; a rank with no cells sends none.)
width_exo = 1 + sum(exo_ncomp[n] for n in exo_pnames)
rows = np.vstack(exo_point_rows["rows"]) if "rows" in exo_point_rows else np.zeros((0, width_exo))
if rows.shape[1] != width_exo:
    problems.append("ExodusIIReader point arrays differ between blocks")
    rows = np.zeros((0, width_exo))
exo_pts = allgather(rows, width_exo)

width = 4 + len(node_vars)
mxn_pts = allgather(np.vstack(point_rows) if point_rows else np.zeros((0, width)), width)
mxn_cgids = allgather([[x] for x in cell_gids], 1)[:, 0]
exo_cgids = allgather([[x] for x in exo_cell_gids], 1)[:, 0]
counts = allgather([[mxn_cells, exo_cells, bad_volumes, vol_total]], 4)

report = []
if True:  # (a block only to keep the comparison together)
    per_rank = [int(c) for c in counts[:, 0]]
    total, exo_total = int(counts[:, 0].sum()), int(counts[:, 1].sum())
    bad_vol = int(counts[:, 2].sum())
    if nranks <= exo_total and min(per_rank) == 0:
        problems.append("a rank has no cells: %s" % per_rank)
    if total != exo_total:
        problems.append("cells %d, ExodusIIReader %d" % (total, exo_total))
    u = np.unique(mxn_cgids)
    if u.size != mxn_cgids.size:
        problems.append("%d repeated cell ids" % (mxn_cgids.size - u.size))
    if not np.array_equal(u, np.unique(exo_cgids)):
        problems.append("cell id sets differ (%d vs %d ids)" % (u.size, np.unique(exo_cgids).size))
    if bad_vol:
        problems.append("%d cells with volume <= 0" % bad_vol)

    # Distinct points: sort by id, check duplicates agree, keep the first.
    def distinct(a):
        order = np.argsort(a[:, 0], kind="stable")
        a = a[order]
        keep = np.ones(a.shape[0], dtype=bool)
        keep[1:] = a[1:, 0] != a[:-1, 0]
        first = np.cumsum(keep) - 1
        d = a[keep]
        diff = np.abs(a - d[first])
        return d, int(np.sum(np.any(diff > 1e-12 * np.maximum(1.0, np.abs(a)), axis=1)))

    mp, mbad = distinct(mxn_pts)
    ep, _ = distinct(exo_pts)
    if mbad:
        problems.append("%d shared point copies disagree in coordinates or values" % mbad)
    if not np.array_equal(mp[:, 0], ep[:, 0]):
        problems.append("point id sets differ (%d vs %d)" % (mp.shape[0], ep.shape[0]))

    # Exodus columns: name -> first column in ep.
    col, c0 = {}, 1
    for n in exo_pnames:
        col[n] = (c0, exo_ncomp[n])
        c0 += exo_ncomp[n]

    def exo_column(vname, table, ncomp_of):
        """(array name, component) of ExodusIIReader holding variable vname."""
        if vname in ncomp_of and ncomp_of[vname] == 1:
            return vname, 0
        for n, k in ncomp_of.items():
            if k in (2, 3) and vname.lower().startswith(n.lower()):
                suffix = vname[len(n):].lstrip("_").lower()
                if suffix in COMPONENT and COMPONENT[suffix] < k:
                    return n, COMPONENT[suffix]
        return None

    nsum = 0
    for j, v in enumerate(node_vars):
        where = exo_column(v, col, exo_ncomp)
        mine = float(np.sum(mp[:, 4 + j]))
        if where is None:
            problems.append("nodal variable %s: no ExodusIIReader array" % v)
            continue
        theirs = float(np.sum(ep[:, col[where[0]][0] + where[1]]))
        scale = float(np.sum(np.abs(mp[:, 4 + j])))
        if not close(mine, theirs, scale):
            problems.append("nodal %s: sum %.17g, ExodusIIReader %.17g" % (v, mine, theirs))
        nsum += 1

    # Element sums: same keys on every rank (MxN arrays exist on empty grids;
    # Exodus keys are merged by summing zeros).
    enames = sorted(elem_sums)
    esums = allsum([elem_sums[n] for n in enames]) if enames else []
    ekeys_local = sorted(exo_elem_sums)
    # Exodus keys may differ by rank (ranks without a block lack its arrays):
    # gather name/value pairs through a per-name index over the MxN names.
    exo_ncomp_cells = {}
    for (an, c, k) in ekeys_local:
        exo_ncomp_cells[an] = k
    evals = []
    for v in enames:
        where = exo_column(v, None, exo_ncomp_cells)
        evals.append(exo_elem_sums.get((where[0], where[1], exo_ncomp_cells[where[0]]), 0.0)
                     if where else 0.0)
    evals = allsum(evals) if enames else []
    found = allsum([1.0 if exo_column(v, None, exo_ncomp_cells) else 0.0 for v in enames]) \
        if enames else []
    for i, v in enumerate(enames):
        if found[i] == 0:
            problems.append("element variable %s: no ExodusIIReader array" % v)
        elif not close(esums[i], evals[i], abs(esums[i]) + abs(evals[i])):
            problems.append("element %s: sum %.17g, ExodusIIReader %.17g" % (v, esums[i], evals[i]))

    gcompared = 0
    for gname, val in global_vals.items():
        if gname in exo_globals:
            gcompared += 1
            if not close(val, exo_globals[gname], abs(val)):
                problems.append("global %s: %.17g, ExodusIIReader %.17g"
                                % (gname, val, exo_globals[gname]))

    report.append("cells %d (per rank %s) = ExodusIIReader %d; %d distinct cell ids; "
                  "%d distinct points; %d nodal + %d element sums equal; globals %d/%d "
                  "compared; volume %.6g, %d non-positive; t=%g"
                  % (total, per_rank, exo_total, u.size, mp.shape[0], nsum, len(enames),
                     gcompared, len(global_vals), float(counts[:, 3].sum()), bad_vol, t_last))

# Every rank's problems count: agree on failure.
nprob = int(allsum([len(problems)])[0])
if problems:
    print("%s rank %d: %s" % (name, rank, "; ".join(problems)[:2000]))
sys.stdout.flush()
if rank == 0:
    print("reader_totals: %s: %s: %s" % ("FAIL" if nprob else "PASS", name, report[0]))
    sys.stdout.flush()
Delete(exo)
Delete(mxn)
if nprob:
    sys.exit(1)
