"""MxNReader against ParaView's legacy ExodusIIReader on a spread set whose
members differ in their variables (differing_vars_write.py makes one).

usage: mpiexec -n N pvbatch --symmetric differing_vars.py PLUGIN_SO DATASET [METHOD]
                                                          [--generated]

Both readers read the whole set over the N ranks. ExodusIIReader offers
member 0's variables; where it reads several members on one rank it
appends them and drops an array some lack, so on one rank it shows fewer
arrays than on several (where a rank's member without an array shows none:
ParaView's partial arrays). Checked, over all ranks:
  * MxNReader reports no error and offers every variable ExodusIIReader
    offers (and those member 0 lacks too);
  * the owned cells' ids equal ExodusIIReader's cell ids;
  * per cell array ExodusIIReader shows on some rank, per cell id:
    MxNReader's value equals ExodusIIReader's, NaN where ExodusIIReader's
    grid holding the cell lacks the array;
  * per point array likewise, per node id: every copy MxNReader holds
    equals a value ExodusIIReader shows for the node, NaN where it shows
    none;
  * with --generated (the set of differing_vars_write.py), every value
    MxNReader gives equals the writer's definition: u = id / 2, w = 3 id on
    the nodes of the last member (x >= 4) and NaN elsewhere, p = id + 1/4,
    vtkOriginalCellIds = id - 1 on member 0's cells (x < 2) and NaN
    elsewhere; w checks that a node shared by a member with the variable
    and one without takes the value.
Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (DATASET absent).
"""
import os
import re
import sys

argv = [a for a in sys.argv[1:] if a != "--generated"]
generated = len(argv) < len(sys.argv) - 1
if len(argv) not in (2, 3):
    print("usage: pvbatch --symmetric differing_vars.py PLUGIN_SO DATASET [METHOD] [--generated]")
    sys.exit(2)
plugin, dataset = os.path.abspath(argv[0]), os.path.abspath(argv[1])
method = argv[2] if len(argv) == 3 else "Files"
if not os.path.isfile(dataset):
    print("differing_vars: SKIP: %s not found" % dataset)
    sys.exit(77)

import numpy as np  # noqa: E402
from paraview import servermanager  # noqa: E402
from paraview.simple import LoadPlugin  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from pvcheck import all_keys, allgather, messages, nranks, rank  # noqa: E402

BOOKKEEPING = {"ids", "object_id", "vtkGhostType", "GlobalElementId", "GlobalNodeId",
               "PedigreeElementId", "PedigreeNodeId", "ObjectId"}


def collect(grids, cell_id, point_id):
    """The ids of this rank's owned cells, and {name: rows [id, value]} of
    the cell arrays (owned cells) and the point arrays any rank's grids
    have; a grid without one gives NaN rows for its cells or points."""
    names_c, names_p = set(), set()
    for g in grids:
        cd, pd = g.GetCellData(), g.GetPointData()
        names_c |= {cd.GetArrayName(k) for k in range(cd.GetNumberOfArrays())}
        names_p |= {pd.GetArrayName(k) for k in range(pd.GetNumberOfArrays())}
    names_c = [n for n in all_keys(names_c) if n not in BOOKKEEPING]
    names_p = [n for n in all_keys(names_p) if n not in BOOKKEEPING]
    cells = []
    out_c = {n: [np.zeros((0, 2))] for n in names_c}
    out_p = {n: [np.zeros((0, 2))] for n in names_p}
    for g in grids:
        n, npts = g.GetNumberOfCells(), g.GetNumberOfPoints()
        cd, pd = g.GetCellData(), g.GetPointData()
        gh = cd.GetArray("vtkGhostType")
        own = (vtk_to_numpy(gh) & 1) == 0 if gh is not None and n else np.ones(n, dtype=bool)
        cid = vtk_to_numpy(cd.GetArray(cell_id)).astype(np.float64)[own] if n else np.zeros(0)
        pid = vtk_to_numpy(pd.GetArray(point_id)).astype(np.float64) if npts else np.zeros(0)
        for name in names_c:
            a = cd.GetArray(name)
            v = vtk_to_numpy(a).astype(np.float64)[own] if a is not None and n else \
                np.full(cid.size, np.nan)
            out_c[name].append(np.column_stack([cid, v]))
        for name in names_p:
            a = pd.GetArray(name)
            v = vtk_to_numpy(a).astype(np.float64) if a is not None and npts else \
                np.full(pid.size, np.nan)
            out_p[name].append(np.column_stack([pid, v]))
        cells.append(cid)
    return (np.concatenate(cells) if cells else np.zeros(0),
            {k: np.vstack(v) for k, v in out_c.items()}, {k: np.vstack(v) for k, v in out_p.items()})


def gathered(d):
    """Every rank's rows of each array (the names agree over ranks)."""
    return {k: allgather(v, 2) for k, v in d.items()}


def best_by_id(rows):
    """Per id, a value that is not NaN if any copy has one."""
    out = {}
    for i, v in rows:
        if int(i) not in out or np.isnan(out[int(i)]):
            out[int(i)] = v
    return out


LoadPlugin(plugin, remote=False, ns=globals())
mxn = servermanager.sources.MxNReader()
errors = messages(mxn)
mxn.FileName = dataset
mxn.PartitionMethod = method
mxn.UpdatePipelineInformation()
mxn.CellArrays = list(mxn.GetProperty("CellArrays").Available)
mxn.PointArrays = list(mxn.GetProperty("PointArrays").Available)
mxn.UpdatePipeline()

m = re.match(r"^(.*)\.([0-9]+)\.([0-9]+)$", dataset)
exo = servermanager.sources.ExodusIIReader()
exo.FileName = ["%s.%s.%s" % (m.group(1), m.group(2), "0" * len(m.group(3)))] if m else [dataset]
exo.UpdatePipelineInformation()
for p in ("ElementBlocks", "PointVariables", "ElementVariables"):
    prop = exo.GetProperty(p)
    prop.SetData(list(prop.Available))
exo.UpdatePipeline()

problems = []
if errors:
    problems.append("MxNReader errors: " + " | ".join(errors)[:600])
offered = set(mxn.GetProperty("CellArrays").Available) | set(mxn.GetProperty("PointArrays").Available)
exo_vars = set(exo.GetProperty("ElementVariables").Available) | \
    set(exo.GetProperty("PointVariables").Available)
if not exo_vars <= offered:
    problems.append("MxNReader offers %s, ExodusIIReader %s" % (sorted(offered), sorted(exo_vars)))

mout = mxn.GetClientSideObject().GetOutputDataObject(0)
mgrids = []
asm = mout.GetDataAssembly()
for child in asm.GetChildNodes(asm.GetFirstNodeByPath("/IOSS/element_blocks"), False):
    for i in asm.GetDataSetIndices(child, False):
        pds = mout.GetPartitionedDataSet(i)
        for q in range(pds.GetNumberOfPartitions()):
            mgrids.append(pds.GetPartition(q))
eout = exo.GetClientSideObject().GetOutputDataObject(0)
egrids = []
for i in range(eout.GetNumberOfBlocks()):
    if eout.GetMetaData(i).Get(eout.NAME()) == "Element Blocks" and eout.GetBlock(i) is not None:
        grp = eout.GetBlock(i)
        egrids += [grp.GetBlock(j) for j in range(grp.GetNumberOfBlocks())
                   if grp.GetBlock(j) is not None and grp.GetBlock(j).GetNumberOfCells()]

mcells, mc, mp = collect(mgrids, "ids", "ids")
ecells, ec, ep = collect(egrids, "GlobalElementId", "GlobalNodeId")
mcells = np.sort(allgather(mcells, 1)[:, 0])
ecells = np.sort(allgather(ecells, 1)[:, 0])
mc, mp, ec, ep = gathered(mc), gathered(mp), gathered(ec), gathered(ep)
if not np.array_equal(mcells, ecells):
    problems.append("owned cells %d, ExodusIIReader %d (or other ids)" % (mcells.size, ecells.size))
compared = nan_seen = 0
for kind, mine, theirs in (("cell", mc, ec), ("point", mp, ep)):
    missing = sorted(set(theirs) - set(mine))
    if missing:
        problems.append("%s arrays %s missing (ExodusIIReader: %s)" % (kind, missing, sorted(theirs)))
    for name in set(theirs) & set(mine):
        want = best_by_id(theirs[name])
        for i, v in mine[name]:
            w = want.get(int(i))
            compared += 1
            if w is None or not (v == w or (np.isnan(v) and np.isnan(w))):
                problems.append("%s array %s at id %d: %r, ExodusIIReader %r" % (kind, name, i, v, w))
                break


def defined(kind, name, i):
    """The value differing_vars_write.py gave, NaN where it gave none."""
    if kind == "point":
        x = (i - 1) % 7
        return i / 2.0 if name == "u" else (3.0 * i if x >= 4 else np.nan)
    x = (i - 1) % 6
    return i + 0.25 if name == "p" else (i - 1.0 if x < 2 else np.nan)


if generated:
    for kind, mine, want in (("cell", mc, ["p", "vtkOriginalCellIds"]), ("point", mp, ["u", "w"])):
        for name in want:
            if name not in mine:
                problems.append("%s array %s missing" % (kind, name))
                continue
            for i, v in mine[name]:
                w = defined(kind, name, int(i))
                compared += 1
                nan_seen += int(np.isnan(v))
                if not (v == w or (np.isnan(v) and np.isnan(w))):
                    problems.append("%s array %s at id %d: %r, written %r" % (kind, name, i, v, w))
                    break
    if nan_seen == 0:
        problems.append("no NaN seen: the set's members do not differ in their variables")

name = "differing_vars[%s, %s, N=%d]" % (os.path.basename(dataset), method, nranks)
if rank == 0:
    print("differing_vars: %s: %s: %d cells; %d values compared, %d NaN; arrays %s, "
          "ExodusIIReader's %s" % ("FAIL" if problems else "PASS", name, mcells.size, compared,
                                   nan_seen, sorted(mc) + sorted(mp), sorted(ec) + sorted(ep)))
    for p in problems:
        print("  " + p)
sys.stdout.flush()
if problems:
    sys.exit(1)
