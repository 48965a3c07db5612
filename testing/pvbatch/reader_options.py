"""MxNReader's proxy options against what they must do, at N ranks.

usage: mpiexec -n N pvbatch --symmetric reader_options.py PLUGIN_SO SHARED_DATA TMPDIR [EXTRA...]

SHARED_DATA is the shared data directory (meshes/, nemesis/); TMPDIR a
scratch directory (same path on every rank); EXTRA more datasets for the
comparison with IOSSReader (e.g. make_quadratic.py's file). Every rank runs the script
(--symmetric) and every rank reaches the same verdict. Checked:

  1. proxy: every property has documentation; the ReaderFactory hint lists
     the Exodus extensions and spread-set patterns; ParaView's reader
     factory offers MxNReader for a spread-set member (mesh.e.4.0);
  2. names: on shared meshes (plain and spread sets) the selection lists
     equal IOSSReader's (ElementBlocks, NodeSets, SideSets, NodeBlockFields
     -> PointArrays, ElementBlockFields -> CellArrays), and with everything
     selected every block/set has the same point and cell array names and
     component counts as IOSSReader's, and the same global field data
     (its 'Information Records' and 'QA Records' included); per element
     block the total
     cell size (volume, area or length, vtkCellSizeFilter), per node set
     the distinct node ids, per side set the number of sides and their
     total size, equal IOSSReader's (this checks cell and side node
     orders, quadratic ones included);
  3. selections: a block switched off is absent (its cell ids appear on no
     rank, the others' counts unchanged); a point / cell array switched off
     is absent, the others stay; more ghost levels give more ghost cells;
  4. pieces: with the pieces asked in reverse rank order every cell is
     owned exactly once; asking for more pieces than ranks gives the whole
     dataset to piece 0 and nothing to the others (no collective call);
  5. balance options: LoadBalanceField (an element variable) with
     RebalanceEachTimeStep loads every step without error and with every
     cell once; an unknown LoadBalanceField is an error naming it;
  6. errors: a missing file, a non-Exodus file and a spread set with a
     member missing each give an error naming the file, and the same reader
     then loads a good file without error; progress events are sent.

Exit codes: 0 pass (falls off the end, see reader_totals.py), 1 failure,
2 bad usage, 77 skipped (SHARED_DATA absent).
"""
import os
import sys

SKIP = 77
if len(sys.argv) < 4:
    print("usage: pvbatch --symmetric reader_options.py PLUGIN_SO SHARED_DATA TMPDIR [EXTRA...]")
    sys.exit(2)
plugin, shared, tmp = (os.path.abspath(a) for a in sys.argv[1:4])
extra = [os.path.abspath(a) for a in sys.argv[4:]]
if not os.path.isdir(os.path.join(shared, "meshes")):
    print("reader_options: SKIP: %s has no meshes/" % shared)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonCore import vtkCommand  # noqa: E402
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as SDDP  # noqa: E402
from vtkmodules.vtkFiltersVerdict import vtkCellSizeFilter  # noqa: E402
from pvcheck import (all_keys, allgather, allsum, ctrl, layout, messages, nranks,  # noqa: E402
                     owned, rank)

problems = []
passed = []


def check(ok, what):
    (passed if ok else problems).append(what)
    return ok


LoadPlugin(plugin, remote=False, ns=globals())


def mxn_reader(path, everything=True):
    r = servermanager.sources.MxNReader()
    err = messages(r)
    r.FileName = path
    r.UpdatePipelineInformation()
    if everything:
        for p in ("ElementBlocks", "NodeSets", "SideSets", "PointArrays", "CellArrays",
                  "NodeSetFields", "SideSetFields"):
            r.GetProperty(p).SetData(list(r.GetProperty(p).Available))
    return r, err


def leaves_by_group(out):
    """{(group, name): grid} of a collection with an IOSS data assembly."""
    res = {}
    asm = out.GetDataAssembly()
    for group in ("element_blocks", "node_sets", "side_sets"):
        node = asm.GetFirstNodeByPath("/IOSS/" + group) if asm else -1
        if node < 0:
            continue
        for child in asm.GetChildNodes(node, False):
            for i in asm.GetDataSetIndices(child, False):
                name = out.GetMetaData(i).Get(out.NAME())
                pds = out.GetPartitionedDataSet(i)
                for k in range(pds.GetNumberOfPartitions()):
                    g = pds.GetPartition(k)
                    if g is not None:
                        res.setdefault((group, name), []).append(g)
    return res


def size_of(g):
    """Total volume + area + length of the owned cells of g."""
    own = owned(g)
    if not own.any():
        return 0.0
    f = vtkCellSizeFilter()
    f.SetInputData(g)
    f.ComputeVertexCountOff()
    f.Update()
    cd = f.GetOutput().GetCellData()
    return float(sum(np.sum(vtk_to_numpy(cd.GetArray(a))[own]) for a in ("Length", "Area", "Volume")))


def set_figures(groups, kind, id_name):
    """Per set name: (distinct node ids of node sets | owned side count),
    combined over ranks. IOSSReader leaves out the sets a rank has no part
    of, so the names are first agreed over ranks (every rank must make the
    same collective calls)."""
    out = {}
    for name in all_keys([n for (g, n) in groups if g == kind]):
        grids = groups.get((kind, name), [])
        if kind == "node_sets":
            ids = []
            for g in grids:
                if g.GetNumberOfPoints():
                    ids += vtk_to_numpy(g.GetPointData().GetArray(id_name)).tolist()
            out[name] = np.unique(allgather([[x] for x in ids], 1)[:, 0]).size
        else:
            n, size = allsum([sum(int(owned(g).sum()) for g in grids),
                              sum(size_of(g) for g in grids)])
            out[name] = (int(n), float(size))
    return out


# --- 1. The proxy --------------------------------------------------------------
probe = servermanager.sources.MxNReader()
undocumented = []
for p in ("FileName", "ElementBlocks", "NodeSets", "SideSets", "PointArrays", "CellArrays",
          "PartitionMethod", "GhostLevels", "LoadBalanceField", "ImbalanceTolerance",
          "RebalanceEachTimeStep", "TimestepValues"):
    prop = probe.GetProperty(p)
    doc = prop.GetDocumentation() if prop is not None else None
    if prop is None or doc is None or len((doc.GetDescription() or "").split()) < 5:
        undocumented.append(p)
check(not undocumented, "properties without documentation: %s" % undocumented
      if undocumented else "every property documented")
hints = probe.SMProxy.GetHints()
rf = hints.FindNestedElementByName("ReaderFactory") if hints else None
exts = (rf.GetAttribute("extensions") or "").split() if rf else []
pats = (rf.GetAttribute("filename_patterns") or "").split() if rf else []
check(set("e exo ex2 exii g gen par".split()) <= set(exts) and "*.e.*.*" in pats,
      "ReaderFactory hint: extensions %s, patterns %s" % (exts, pats))
Delete(probe)
member = os.path.join(shared, "nemesis", "mug", "inertial-M4", "mug.e.4.0")
factory = servermanager.vtkSMProxyManager.GetProxyManager().GetReaderFactory()
readers = factory.GetReaders(member, servermanager.ActiveConnection.Session)
offered = [readers.GetString(k) for k in range(readers.GetNumberOfStrings())]
check("MxNReader" in offered, "reader factory offers %s for mug.e.4.0" % offered)

# --- 2. Names against IOSSReader ------------------------------------------------
IOSS_ONLY_FIELDS = set()
MXN_ONLY_FIELDS = {"mxn_load_stats"}  # the load's counters, checked below
name_cases = [
    os.path.join(shared, "meshes", "2block1.g"),            # shells, attributes, set variables
    os.path.join(shared, "meshes", "8-block.g"),            # disp_X.. sigma_XX.. grouping
    os.path.join(shared, "meshes", "coarseGrid.e"),         # 2D, named sets
    os.path.join(shared, "meshes", "disk_out_ref.ex2"),     # VX VY VZ -> V, 7 side sets
    os.path.join(shared, "nemesis", "mug", "inertial-M4", "mug.e.4.0"),
    os.path.join(shared, "nemesis", "block_crush_1", "inertial-M3", "block_crush_1.e.3.0"),
] + extra
IOSS_LISTS = {"ElementBlocks": "ElementBlocks", "NodeSets": "NodeSets", "SideSets": "SideSets",
              "PointArrays": "NodeBlockFields", "CellArrays": "ElementBlockFields"}
for path in name_cases:
    base = os.path.basename(path)
    if not os.path.isfile(path):
        check(False, "%s missing" % path)
        continue
    ioss = servermanager.sources.IOSSReader()
    ioss.FileName = [path]
    ioss.UpdatePipelineInformation()
    for p in ("ElementBlocks", "NodeSets", "SideSets", "NodeBlockFields", "ElementBlockFields",
              "NodeSetFields", "SideSetFields"):
        ioss.GetProperty(p).SetData(list(ioss.GetProperty(p).Available))
    mxn, err = mxn_reader(path)
    lists_ok = True
    for mine, theirs in IOSS_LISTS.items():
        a = sorted(mxn.GetProperty(mine).Available)
        b = sorted(ioss.GetProperty(theirs).Available)
        lists_ok &= check(a == b, "%s: %s %s, IOSSReader %s %s" % (base, mine, a, theirs, b))
    ioss.UpdatePipeline()
    mxn.UpdatePipeline()
    check(not err, "%s: MxNReader errors %s" % (base, err))
    io = ioss.GetClientSideObject().GetOutputDataObject(0)
    mo = mxn.GetClientSideObject().GetOutputDataObject(0)
    il, ml = leaves_by_group(io), leaves_by_group(mo)
    ik = all_keys(["%s/%s" % k for k in il])
    mk = all_keys(["%s/%s" % k for k in ml])
    check(ik == mk, "%s: leaves %s, IOSSReader %s" % (base, mk, ik))
    bad = []
    for key in sorted(set(il) & set(ml)):
        # IOSSReader leaves a rank without a piece of a block out; compare
        # the layouts of non-empty grids (the same on every rank).
        ig = [g for g in il[key] if g.GetNumberOfPoints()]
        mg = [g for g in ml[key]]
        if not ig:
            continue
        for what, fi, fm in (("point", lambda g: g.GetPointData(), lambda g: g.GetPointData()),
                             ("cell", lambda g: g.GetCellData(), lambda g: g.GetCellData())):
            a = layout(fm(mg[0]), ("vtkGhostType",))
            b = layout(fi(ig[0]))
            if a != b:
                bad.append("%s %s arrays %s, IOSSReader %s" % (key, what, a, b))
    check(not bad, "%s: %s" % (base, "; ".join(bad)[:1500] if bad else "array names equal"))
    fi = layout(io.GetFieldData(), IOSS_ONLY_FIELDS)
    fm = layout(mo.GetFieldData(), MXN_ONLY_FIELDS)
    # (a rank IOSSReader gave no file of a plain file has no field data;
    # MxNReader gives every rank the dataset's)
    check(fi == fm or not fi, "%s: field data %s, IOSSReader %s" % (base, fm, fi))
    # This rank's load counters: who it is and what it owns, as the output says.
    st = mo.GetFieldData().GetArray("mxn_load_stats")
    if check(st is not None and st.GetNumberOfTuples() == 1,
             "%s: field data mxn_load_stats (one tuple)" % base):
        x = {st.GetComponentName(c): st.GetComponent(0, c)
             for c in range(st.GetNumberOfComponents())}
        mine = sum(int(owned(g).sum()) for k, gs in ml.items() if k[0] == "element_blocks"
                   for g in gs)
        total = allgather([[mine]], 1).sum()
        check(x.get("rank") == rank and x.get("nranks") == nranks
              and x.get("owned_elements") == mine and x.get("total_elements") == total
              and (mine == 0 or (x.get("bytes_read", 0) > 0 and x.get("bytes_needed", 0) > 0))
              and x.get("imbalance", 0) >= 1.0,
              "%s: mxn_load_stats %s for %d owned of %d cells" % (base, x, mine, total))
    for kind, id_name in (("node_sets", "ids"), ("side_sets", None), ("element_blocks", None)):
        a, b = set_figures(ml, kind, id_name), set_figures(il, kind, id_name)
        same = sorted(a) == sorted(b) and all(
            a[k] == b[k] if kind == "node_sets" else
            (a[k][0] == b[k][0] and abs(a[k][1] - b[k][1]) <= 1e-9 * max(1.0, abs(b[k][1])))
            for k in a)
        check(same, "%s: %s %s, IOSSReader %s" % (base, kind, a, b))
    Delete(mxn)
    Delete(ioss)

# --- 3. Selections, ghosts -------------------------------------------------------
mug = member


def block_cells(r, t=None):
    """{block name: (owned cells over ranks, sorted owned ids over ranks)}."""
    r.UpdatePipeline() if t is None else r.UpdatePipeline(t)
    out = r.GetClientSideObject().GetOutputDataObject(0)
    res = {}
    for (group, name), grids in sorted(leaves_by_group(out).items()):
        if group != "element_blocks":
            continue
        ids = []
        for g in grids:
            if g.GetNumberOfCells():
                ids += vtk_to_numpy(g.GetCellData().GetArray("ids"))[owned(g)].tolist()
        ids = np.sort(allgather([[x] for x in ids], 1)[:, 0])
        res[name] = (ids.size, ids)
    return res


r, err = mxn_reader(mug)
r.NodeSets = []
r.SideSets = []
full = block_cells(r)
r.ElementBlocks = ["block_1"]
part = block_cells(r)
check(list(part) == ["block_1"] and part["block_1"][0] == full["block_1"][0] and
      not np.isin(full["block_76"][1], part["block_1"][1]).any(),
      "block_76 off: blocks %s (cells %s), all on: %s" % (
          list(part), [v[0] for v in part.values()], [v[0] for v in full.values()]))
r.ElementBlocks = ["block_1", "block_76"]
r.PointArrays = ["convected"]
r.CellArrays = []
r.UpdatePipeline()
g = leaves_by_group(r.GetClientSideObject().GetOutputDataObject(0))[("element_blocks", "block_1")][0]
pn = [n for n, _ in layout(g.GetPointData())]
cn = [n for n, _ in layout(g.GetCellData())]
check("convected" in pn and "diffused" not in pn and "aux_elem" not in cn and "ids" in cn,
      "arrays off: point arrays %s, cell arrays %s" % (pn, cn))
r.PointArrays = ["convected", "diffused"]
r.CellArrays = ["aux_elem"]
if nranks > 1:
    ghosts = []
    for L in (1, 2):
        r.GhostLevels = L
        r.UpdatePipeline()
        g = leaves_by_group(r.GetClientSideObject().GetOutputDataObject(0))
        ghosts.append(int(allsum([sum(int((~owned(x)).sum()) for x in grids)
                                  for grids in g.values()])[0]))
    check(0 < ghosts[0] < ghosts[1], "ghost cells at GhostLevels 1, 2: %s" % ghosts)
    r.GhostLevels = 0
check(not err, "selections: errors %s" % err)
Delete(r)

# --- 4. Pieces -------------------------------------------------------------------
r, err = mxn_reader(mug, everything=False)
alg = r.GetClientSideObject()
total = full["block_1"][0] + full["block_76"][0]


def local_cells(a):
    out = a.GetOutputDataObject(0)
    return sum(int(owned(x).sum()) for grids in leaves_by_group(out).values() for x in grids) \
        if out is not None else 0


# Reverse order: rank r reads piece N-1-r (collective, pieces permuted).
alg.UpdatePiece(nranks - 1 - rank, nranks, 0)
ids = []
for grids in leaves_by_group(alg.GetOutputDataObject(0)).values():
    for x in grids:
        if x.GetNumberOfCells():
            ids += vtk_to_numpy(x.GetCellData().GetArray("ids"))[owned(x)].tolist()
allids = allgather([[x] for x in ids], 1)[:, 0]
check(allids.size == total and np.unique(allids).size == total,
      "pieces in reverse rank order: %d cells, %d distinct, want %d" % (
          allids.size, np.unique(allids).size, total))
# More pieces than ranks: piece 0 everything, the others nothing.
counts = []
for piece in (0, nranks):
    alg.UpdatePiece(piece, nranks + 1, 0)
    counts.append(local_cells(alg))
check(counts == [total, 0], "pieces 0 and %d of %d on rank %d: %s cells, want [%d, 0]"
      % (nranks, nranks + 1, rank, counts, total))
Delete(r)

# --- 5. Balance options -----------------------------------------------------------
r, err = mxn_reader(mug, everything=False)
r.LoadBalanceField = "aux_elem"
r.RebalanceEachTimeStep = 1
r.ImbalanceTolerance = 1.1
times = list(r.TimestepValues)
ok = True
for t in (times[1], times[-1]):
    cells = block_cells(r, t)
    ids = np.concatenate([v[1] for v in cells.values()])
    ok &= ids.size == total and np.unique(ids).size == total
check(ok and not err, "LoadBalanceField aux_elem, rebalanced at 2 steps: errors %s"
      % err[:2])
r.LoadBalanceField = "no_such_variable"
r.UpdatePipeline(times[1])
check(any("no_such_variable" in m for m in err),
      "unknown LoadBalanceField: errors %s" % err[:2])
Delete(r)

# --- 6. Errors, then a good file ----------------------------------------------------
if rank == 0:
    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, "not_exodus.e"), "w") as f:
        f.write("this is not an Exodus II file\n")
    spread = os.path.join(tmp, "incomplete")
    os.makedirs(spread, exist_ok=True)
    for k in range(3):  # member 3 of 4 missing
        link = os.path.join(spread, "mug.e.4.%d" % k)
        if not os.path.lexists(link):
            os.symlink(os.path.join(shared, "nemesis", "mug", "inertial-M4", "mug.e.4.%d" % k), link)
ctrl.Barrier()
r = servermanager.sources.MxNReader()
err = messages(r)
progress = []
r.GetClientSideObject().AddObserver(vtkCommand.ProgressEvent,
                                    lambda o, e: progress.append(o.GetProgress()))
for bad in (os.path.join(tmp, "does_not_exist.e"), os.path.join(tmp, "not_exodus.e"),
            os.path.join(tmp, "incomplete", "mug.e.4.0")):
    err.clear()
    r.FileName = bad
    r.UpdatePipelineInformation()
    r.UpdatePipeline()
    check(any(os.path.basename(bad) in m or os.path.dirname(bad) in m for m in err),
          "bad file %s: errors %s" % (os.path.basename(bad), err[:2]))
err.clear()
progress.clear()
r.FileName = mug
r.UpdatePipelineInformation()
cells = block_cells(r)
check(not err and sum(v[0] for v in cells.values()) == total,
      "good file after bad ones: %d cells, errors %s" % (sum(v[0] for v in cells.values()),
                                                        err[:2]))
check(len(progress) >= 3 and max(progress) == 1.0, "progress events: %s" % progress[:8])
Delete(r)

nprob = int(allsum([len(problems)])[0])
if problems:
    print("reader_options[N=%d] rank %d: FAIL: %s" % (nranks, rank, " | ".join(problems)[:3000]))
sys.stdout.flush()
if rank == 0:
    print("reader_options: %s: N=%d, %d checks passed on rank 0, %d problems over ranks"
          % ("FAIL" if nprob else "PASS", nranks, len(passed), nprob))
    sys.stdout.flush()
if nprob:
    sys.exit(1)
