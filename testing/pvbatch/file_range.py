"""MxNReader's FileRange, FileStride and ScanForRelatedFiles against
IOSSReader's (issue 58), on shared spread sets.

usage: mpiexec -n N pvbatch --symmetric file_range.py PLUGIN_SO DATA_DIR
           [--series FILE ...]

For every case (a member or base name with FileRange / FileStride /
ScanForRelatedFiles set) both readers read the set on the N ranks, all
element blocks, no displacements; over all ranks:
  * the owned cells (vtkGhostType clear) are the same element ids, each
    owned once by MxNReader, as many as the case expects (IOSSReader's
    counts measured with ParaView 5.11: 1868 elements a member of
    disk_out_ref M=4, 44 of block_crush_1 M=3);
  * the same node ids, with the same coordinates by id;
  * every point and cell array both have, by id (IOSSReader repeats a node
    in each file holding it: its copies must agree);
  * every node and side set (all selected in both): the same node ids,
    and for side sets the same (element id, side) pairs, each once.
One MxNReader proxy goes through all the cases of a set, its properties
changed from case to case (the information pass's structure and the cached
load must follow them); an IOSSReader is made afresh for each. First the
proxies' FileRange and FileStride are compared: defaults, domains, panel
visibility.

With --series, the FILEs (one member of each spread segment of an
adaptive series, as the series fixture writes them: base.M.0) are read by
MxNReader with FileRange [1, 3] and with FileRange [0, 6] by 3: at every
time the owned cells are exactly the elements of the chosen members of
that time's segment (their elem_num_map, by ncdump), each once. (IOSSReader
is no reference there: on such a series it reads one member of the
first segment whatever the properties.)

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (data absent).
"""
import os
import sys

SKIP = 77
if len(sys.argv) < 3 or (len(sys.argv) > 3 and sys.argv[3] != "--series"):
    print(__doc__.split("\n\n")[1])
    sys.exit(2)
plugin, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SERIES = [os.path.abspath(f) for f in sys.argv[4:]]
DISK = os.path.join(data, "nemesis/disk_out_ref/inertial-M4/disk_out_ref.e")
CRUSH = os.path.join(data, "nemesis/block_crush_1/inertial-M3/block_crush_1.e")
if not os.path.exists(DISK + ".4.0") or not os.path.exists(CRUSH + ".3.0"):
    print("file_range: SKIP: shared data absent (%s)" % data)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview import simple  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402

from pvcheck import allgather, allgather_ids, allgather_objects, fail, finish, owned  # noqa: E402
from pvcheck import leaves, nranks  # noqa: E402

simple.LoadPlugin(plugin, remote=False, ns=globals())
MxNReader = globals()["MxNReader"]

# (set, file name given, properties, owned cells expected)
CASES = [
    (DISK, DISK + ".4.0", {}, 7472),
    (DISK, DISK + ".4.0", {"FileRange": [1, 2]}, 1868),
    (DISK, DISK + ".4.0", {"FileRange": [0, 3]}, 5604),
    (DISK, DISK + ".4.0", {"FileRange": [2, 4]}, 3736),
    (DISK, DISK + ".4.0", {"FileRange": [0, 4], "FileStride": 2}, 3736),
    (DISK, DISK + ".4.0", {"FileRange": [0, -1], "FileStride": 2}, 7472),
    (DISK, DISK + ".4.0", {"FileRange": [1, -1], "FileStride": 2}, 7472),
    (DISK, DISK + ".4.0", {"FileRange": [2, 10], "FileStride": 1}, 3736),
    (DISK, DISK + ".4.0", {"FileRange": [0, -1], "ScanForRelatedFiles": 0}, 1868),
    (DISK, DISK + ".4.2", {"ScanForRelatedFiles": 0}, 1868),
    (DISK, DISK + ".4.2", {"FileRange": [2, 3], "ScanForRelatedFiles": 0}, 1868),
    (DISK, DISK + ".4.2", {"FileRange": [0, -1], "ScanForRelatedFiles": 1}, 7472),
    (CRUSH, CRUSH + ".3.0", {"FileRange": [1, 3]}, 88),
    (CRUSH, CRUSH + ".3.0", {"FileRange": [0, 3], "FileStride": 2}, 88),
    (CRUSH, CRUSH + ".3.1", {"FileRange": [0, -1], "FileStride": 1, "ScanForRelatedFiles": 0}, 44),
    (CRUSH, CRUSH + ".3.1", {"ScanForRelatedFiles": 1}, 132),
]
# Arrays not compared by value: ghost marks, and what each reader derives
# per file or rank.
SKIP_ARRAYS = {"vtkGhostType", "file_id", "vtkOriginalPointIds", "vtkOriginalCellIds"}


def compare_properties():
    """FileRange and FileStride: the same defaults, domains and panel."""
    ioss = simple.IOSSReader(FileName=[DISK + ".4.0"])
    mxn = MxNReader(FileName=[DISK + ".4.0"])
    for name in ("FileRange", "FileStride", "ScanForRelatedFiles"):
        a, b = ioss.GetProperty(name), mxn.GetProperty(name)
        if b is None:
            fail("MxNReader has no %s" % name)
            continue
        pa, pb = a.SMProperty, b.SMProperty
        da = [pa.GetDefaultValue(i) for i in range(pa.GetNumberOfElements())]
        db = [pb.GetDefaultValue(i) for i in range(pb.GetNumberOfElements())]
        if da != db:
            fail("%s: default MxNReader %s, IOSSReader %s" % (name, db, da))
        if pa.GetPanelVisibility() != pb.GetPanelVisibility():
            fail("%s: panel MxNReader %s, IOSSReader %s" % (name, pb.GetPanelVisibility(),
                                                            pa.GetPanelVisibility()))

        def domains(p):
            out, it = [], p.NewDomainIterator()
            it.Begin()
            while not it.IsAtEnd():
                d = it.GetDomain()
                desc = d.GetClassName()
                if hasattr(d, "GetMinimumExists"):
                    desc += " %s..%s" % (d.GetMinimum(0) if d.GetMinimumExists(0) else "",
                                         d.GetMaximum(0) if d.GetMaximumExists(0) else "")
                out.append(desc)
                it.Next()
            return out
        if domains(pa) != domains(pb):
            fail("%s: domains MxNReader %s, IOSSReader %s" % (name, domains(pb), domains(pa)))
    simple.Delete(mxn)
    simple.Delete(ioss)


def grids_under(out, path):
    """(leaf name, grid) of every grid under an assembly path."""
    asm = out.GetDataAssembly()
    node = asm.GetFirstNodeByPath(path) if asm else -1
    grids = []
    for i in (asm.GetDataSetIndices(node) if node >= 0 else []):
        name = out.GetMetaData(i).Get(out.NAME())
        grids.extend((name, g) for g in leaves(out.GetPartitionedDataSet(i)) if g is not None)
    return grids


def element_grids(out):
    """The grids of the element blocks (/IOSS/element_blocks)."""
    return [g for _, g in grids_under(out, "/IOSS/element_blocks")]


def set_entries(out):
    """This rank's node and side set entries: {("node"|"side", name):
    (node ids, [(element id, side) of owned cells])}."""
    got = {}
    for kind in ("node", "side"):
        for name, g in grids_under(out, "/IOSS/%s_sets" % kind):
            nodes, sides = got.setdefault((kind, name), ([], []))
            pid = g.GetPointData().GetArray("ids")
            if pid is not None:
                nodes.extend(vtk_to_numpy(pid).astype(np.int64).tolist())
            es = g.GetCellData().GetArray("element_side")
            if kind == "side" and g.GetNumberOfCells():
                if es is None:
                    fail("side set %s: no element_side" % name)
                    continue
                v = vtk_to_numpy(es).reshape(-1, 2)[owned(g)]
                sides.extend(tuple(int(x) for x in row) for row in v)
    return got


def gather(reader):
    """Over all ranks: owned cell ids, node ids with coordinates, and the
    arrays by id: {name: (ids, values)} for points and cells."""
    reader.UpdatePipeline()
    out = reader.GetClientSideObject().GetOutputDataObject(0)
    cells, pts, xyz = [], [], []
    parr, carr = {}, {}
    for g in element_grids(out):
        n = g.GetNumberOfCells()
        if not n:
            continue
        own = owned(g)
        cid = g.GetCellData().GetArray("ids")
        pid = g.GetPointData().GetArray("ids")
        if cid is None or pid is None:
            fail("%s: a grid without ids arrays" % reader.GetXMLName())
            continue
        cid, pid = vtk_to_numpy(cid).astype(np.int64), vtk_to_numpy(pid).astype(np.int64)
        cells.extend(cid[own])
        pts.extend(pid)
        xyz.extend(vtk_to_numpy(g.GetPoints().GetData()).reshape(-1, 3).tolist())
        for attrs, ids, keep, store in ((g.GetPointData(), pid, None, parr),
                                        (g.GetCellData(), cid, own, carr)):
            for k in range(attrs.GetNumberOfArrays()):
                a = attrs.GetArray(k)
                if a is None or a.GetName() in SKIP_ARRAYS or a.GetName() == "ids":
                    continue
                v = vtk_to_numpy(a).reshape(len(ids), -1).astype(np.float64)
                sel = slice(None) if keep is None else keep
                store.setdefault((a.GetName(), v.shape[1]), ([], []))
                store[(a.GetName(), v.shape[1])][0].extend(ids[sel])
                store[(a.GetName(), v.shape[1])][1].extend(v[sel].tolist())
    got = {"cells": allgather_ids(cells), "points": allgather_ids(pts),
           "xyz": allgather(xyz, 3), "sets": {}}
    for part in allgather_objects(set_entries(out)):
        for key, (nodes, sides) in part.items():
            have = got["sets"].setdefault(key, (set(), []))
            have[0].update(nodes)
            have[1].extend(sides)
    # arrays: a name on one rank only is still gathered on all
    everyone = allgather_objects((sorted(parr), sorted(carr)))
    names = sorted(set(k for d in everyone for k in d[0]))
    cnames = sorted(set(k for d in everyone for k in d[1]))
    got["parr"] = {k: (allgather_ids(parr.get(k, ([], []))[0]),
                       allgather(parr.get(k, ([], []))[1], k[1])) for k in names}
    got["carr"] = {k: (allgather_ids(carr.get(k, ([], []))[0]),
                       allgather(carr.get(k, ([], []))[1], k[1])) for k in cnames}
    return got


def by_id(ids, rows, what):
    """(the distinct ids, sorted; the row of each): every copy of an id
    agreeing exactly (IOSSReader's shared nodes). Vectorized: a loop over
    the rows in Python made this test take minutes."""
    ids = np.asarray(ids, dtype=np.int64)
    rows = np.asarray(rows, dtype=np.float64).reshape(len(ids), -1)
    order = np.argsort(ids, kind="stable")  # the first copy stays first
    ids, rows = ids[order], rows[order]
    first = np.ones(len(ids), dtype=bool)
    first[1:] = ids[1:] != ids[:-1]
    start = np.flatnonzero(first)
    ref = rows[start][np.cumsum(first) - 1]  # each row's first copy
    same = (ref == rows) | (np.isnan(ref) & np.isnan(rows))
    bad = np.flatnonzero(~same.all(axis=1))
    if len(bad):
        b = bad[0]
        fail("%s: id %d copies differ: %s, %s (%d rows differ from their id's first copy)" % (
            what, ids[b], ref[b].tolist(), rows[b].tolist(), len(bad)))
    return ids[start], rows[start]


def differing(a, b, rtol, atol, equal_nan):
    """The ids both (ids, rows) give whose rows are not close, sorted; and
    the two rows of the first of them."""
    common, ia, ib = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
    ra, rb = a[1][ia], b[1][ib]
    close = np.isclose(ra, rb, rtol=rtol, atol=atol, equal_nan=equal_nan).all(axis=1)
    bad = np.flatnonzero(~close)
    return common[bad], (ra[bad[0]] if len(bad) else None), (rb[bad[0]] if len(bad) else None)


def compare(tag, want, m, i):
    cm, ci = m["cells"], i["cells"]
    if len(cm) != want or len(ci) != want:
        fail("%s: owned cells MxNReader %d, IOSSReader %d, expected %d" % (tag, len(cm), len(ci), want))
    if len(set(cm.tolist())) != len(cm):
        fail("%s: MxNReader owns %d cells more than once" % (tag, len(cm) - len(set(cm.tolist()))))
    if set(cm.tolist()) != set(ci.tolist()):
        fail("%s: cell ids: %d only in MxNReader, %d only in IOSSReader" % (
            tag, len(set(cm.tolist()) - set(ci.tolist())), len(set(ci.tolist()) - set(cm.tolist()))))
    if set(m["points"].tolist()) != set(i["points"].tolist()):
        fail("%s: node ids: %d only in MxNReader, %d only in IOSSReader" % (
            tag, len(set(m["points"].tolist()) - set(i["points"].tolist())),
            len(set(i["points"].tolist()) - set(m["points"].tolist()))))
    xm = by_id(m["points"], m["xyz"], tag + " MxNReader coordinates")
    xi = by_id(i["points"], i["xyz"], tag + " IOSSReader coordinates")
    bad, bm, bi = differing(xm, xi, rtol=0, atol=1e-12, equal_nan=False)
    if len(bad):
        fail("%s: %d nodes at other coordinates (node %d: %s, %s)" % (
            tag, len(bad), bad[0], bm.tolist(), bi.tolist()))
    sm, si = m["sets"], i["sets"]
    for key in sorted(set(sm) | set(si)):
        nm, ni = sm.get(key, (set(), []))[0], si.get(key, (set(), []))[0]
        if nm != ni:
            fail("%s: %s set %s: %d node ids in MxNReader, %d in IOSSReader, %d in one only" % (
                tag, key[0], key[1], len(nm), len(ni), len(nm ^ ni)))
        pm, pi = sorted(sm.get(key, (set(), []))[1]), sorted(si.get(key, (set(), []))[1])
        if pm != pi:
            fail("%s: side set %s: %d (element, side) in MxNReader, %d in IOSSReader" % (
                tag, key[1], len(pm), len(pi)))
    # (an empty set is an empty grid in MxNReader, no grid in IOSSReader:
    # compared by content above)
    if not any(v[0] for v in sm.values()):
        fail("%s: MxNReader gives no set entries" % tag)
    compared = 0
    for kind in ("parr", "carr"):
        for key in sorted(set(m[kind]) & set(i[kind])):
            am = by_id(*m[kind][key], what="%s MxNReader %s" % (tag, key[0]))
            ai = by_id(*i[kind][key], what="%s IOSSReader %s" % (tag, key[0]))
            if not np.array_equal(am[0], ai[0]):
                fail("%s: %s %s on %d ids in MxNReader, %d in IOSSReader" % (
                    tag, kind, key[0], len(am[0]), len(ai[0])))
            diff, dm, di = differing(am, ai, rtol=1e-12, atol=0, equal_nan=True)
            if len(diff):
                fail("%s: %s %s differs at %d ids (id %d: %s, %s)" % (
                    tag, kind, key[0], len(diff), diff[0], dm.tolist(), di.tolist()))
            compared += 1
    if not compared:
        fail("%s: no array both readers give" % tag)
    return compared


def series_check():
    """The chosen members of each segment, at every time (see --series)."""
    import re
    import subprocess
    segs = []
    for f in SERIES:
        base, M, _ = f.rsplit(".", 2)
        segs.append((base, int(M)))

    def member_ids(path):
        out = subprocess.run(["ncdump", "-v", "elem_num_map", path], capture_output=True,
                             text=True, check=True).stdout
        return [int(x) for x in re.findall(r"-?\d+", out.split("elem_num_map =")[-1])]
    checked = 0
    r = MxNReader(FileName=SERIES)
    # the last range chooses no member of the segments of M < 7: they are
    # left out with their times (IOSSReader's behaviour), not an error
    for fr, stride in (([1, 3], 1), ([0, 6], 3), ([6, 8], 1)):
        r.FileRange, r.FileStride = fr, stride
        r.UpdatePipelineInformation()
        times = list(r.TimestepValues)
        kept = [s for s in segs if fr[0] < s[1]]
        if len(times) != 2 * len(kept):
            fail("series FileRange %s: %d times for %d segments of 2 steps" %
                 (fr, len(times), len(kept)))
            continue
        for k, t in enumerate(times):
            base, M = kept[k // 2]
            want = sorted(sum((member_ids("%s.%d.%d" % (base, M, q)) for q in range(fr[0], min(fr[1], M))
                               if (q - fr[0]) % stride == 0), []))
            r.UpdatePipeline(time=t)
            out = r.GetClientSideObject().GetOutputDataObject(0)
            got = []
            for g in element_grids(out):
                if g.GetNumberOfCells():
                    got.extend(vtk_to_numpy(g.GetCellData().GetArray("ids"))[owned(g)].tolist())
            got = sorted(allgather_ids(got).tolist())
            if got != want:
                fail("series FileRange %s by %d, time %g (%s.%d): %d owned cells, %d in the chosen "
                     "members, %d ids differ" % (fr, stride, t, os.path.basename(base), M, len(got),
                                                  len(want), len(set(got) ^ set(want))))
            checked += 1
    simple.Delete(r)
    return checked


def shared_cases():
    compare_properties()
    mxn = {}
    arrays = 0
    for setname, fname, props, want in CASES:
        tag = "%s %s" % (os.path.basename(fname), props)
        if setname not in mxn:
            mxn[setname] = MxNReader(FileName=[fname], ApplyDisplacements=0)
        r = mxn[setname]
        r.FileName = [fname]
        # unset properties back to their defaults, so one case does not
        # leak into the next
        for name, default in (("FileRange", [0, -1]), ("FileStride", 1), ("ScanForRelatedFiles", 1)):
            if r.GetProperty(name) is None:
                fail("%s: MxNReader has no %s" % (tag, name))
            else:
                r.GetProperty(name).SetData(props.get(name, default))
        ioss = simple.IOSSReader(FileName=[fname], ApplyDisplacements=0, **props)
        for reader in (r, ioss):
            reader.UpdatePipelineInformation()
            reader.NodeSets = reader.NodeSets.Available
            reader.SideSets = reader.SideSets.Available
        arrays += compare(tag, want, gather(r), gather(ioss))
        simple.Delete(ioss)
    for r in mxn.values():
        simple.Delete(r)
    return arrays


if SERIES and not all(os.path.exists(f) for f in SERIES):
    print("file_range: SKIP: series files absent (%s)" % SERIES[0])
    sys.exit(SKIP)
if SERIES:
    n = series_check()
    finish("file_range", "a series of %d spread segments on %d ranks, %d times checked" % (
        len(SERIES), nranks, n))
else:
    n = shared_cases()
    finish("file_range", "%d cases on %d ranks, %d arrays compared by id against IOSSReader" % (
        len(CASES), nranks, n))
