"""MxNReader's element ids, file_id and element attributes against
IOSSReader's (issue 58), at N ranks.

usage: mpiexec -n N pvbatch --symmetric ids_fileid.py PLUGIN_SO SHARED_DATA HOT_SPOT_SET

Both readers read every block and set with GenerateFileId on; MxNReader
with one ghost level on several ranks (ghost cells left out). Checked:

  1. ids (shared data): mug.e (element ids not 1..N) and its
     nem_slice/nem_spread sets inertial-M4 and multikl-M3 (elem_num_map
     there holds positions in mug.e, the ids are in
     original_global_id_map): for every block leaf the owned cells' `ids`
     with their `file_id`, and the points' `ids`; for every side set the
     (element, side) of `element_side` with their `file_id`; for every
     node set its node ids: the same as IOSSReader's, gathered over the
     ranks (IOSSReader shows the original ids for both the file and the
     sets, and file_id is the member a cell comes from, 0 for the file);
     a node-set vertex's file_id is the lowest-numbered of the members
     IOSSReader gives a copy of it from (its first copy);
  2. the same on HOT_SPOT_SET (member 0 of `mxn_gen --hot-spot` split into
     3) re-balanced at every step (RebalanceEachTimeStep, LoadBalanceField
     hot_spot): at steps 1, 8, 14, 20 cells that moved keep their ids and
     the member they were read from; on several ranks some must move;
  3. attributes (shared data): on ADeDA.e (an unnamed shell attribute),
     exodus.g, 2block1.g and 2block-gold.g (named ones): the
     ElementBlockFields offered and selected by default, and every
     block's attribute arrays (names, components, values by element id),
     as IOSSReader.

Exit codes: 0 pass, 1 failure, 2 bad usage.
"""
import os
import sys

if len(sys.argv) != 4:
    print("usage: pvbatch --symmetric ids_fileid.py PLUGIN_SO SHARED_DATA HOT_SPOT_SET")
    sys.exit(2)
plugin, shared, hot = sys.argv[1:4]
MUG = [os.path.join(shared, "meshes", "mug.e"),
       os.path.join(shared, "nemesis", "mug", "inertial-M4", "mug.e.4.0"),
       os.path.join(shared, "nemesis", "mug", "multikl-M3", "mug.e.3.0")]
ATTRS = [os.path.join(shared, "meshes", m)
         for m in ("ADeDA.e", "exodus.g", "2block1.g", "2block-gold.g")]
have_shared = all(os.path.exists(p) for p in MUG + ATTRS)
if not have_shared:
    print("ids_fileid: shared data absent (%s): the generated set only" % shared)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from pvcheck import allgather_objects, fail, finish, nranks, owned, rank  # noqa: E402

LoadPlugin(plugin, remote=False, ns=globals())
NAME = "ids_fileid_np%d" % nranks
compared = 0  # keys compared, for the closing line
LISTS = ("ElementBlocks", "NodeSets", "SideSets", "ElementBlockFields", "NodeBlockFields")


def select_all(proxy):
    proxy.UpdatePipelineInformation()
    for name in LISTS:
        p = proxy.GetProperty(name)
        p.SetData(list(p.Available))


def arr(data, name):
    a = data.GetArray(name)
    return None if a is None else vtk_to_numpy(a)


def tables(proxy, t=None):
    """{leaf name: {key: values}} over the ranks: block cells by `ids`
    (file_id and attribute arrays), points by `ids`, side-set cells by
    (element, side) (file_id), node-set vertices by node id."""
    proxy.UpdatePipeline(t) if t is not None else proxy.UpdatePipeline()
    out = proxy.GetClientSideObject().GetOutputDataObject(0)
    mine = {}
    for i in range(out.GetNumberOfPartitionedDataSets()):
        name = out.GetMetaData(i).Get(out.NAME())
        pds = out.GetPartitionedDataSet(i)
        for j in range(pds.GetNumberOfPartitions()):
            g = pds.GetPartition(j)
            if g is None or not g.GetNumberOfCells():
                continue
            cd, keep = g.GetCellData(), owned(g)
            ids, es, fid = arr(cd, "ids"), arr(cd, "element_side"), arr(cd, "file_id")
            pts = arr(g.GetPointData(), "ids")
            cells = mine.setdefault(name, {})
            if es is not None:
                keys = [(int(a), int(b)) for a, b in es]
            elif ids is not None:
                keys = [int(x) for x in ids]
            else:  # a node set: its vertices' node ids
                keys = [int(pts[g.GetCell(c).GetPointId(0)]) for c in range(g.GetNumberOfCells())]
            extra = {}
            if ids is not None and es is None:  # block: attribute arrays
                for k in range(cd.GetNumberOfArrays()):
                    n = cd.GetArrayName(k)
                    if n not in ("ids", "object_id", "file_id", "vtkGhostType") and \
                            n.startswith(("attribute", "thickness", "nodal_thickness")):
                        extra[n] = vtk_to_numpy(cd.GetArray(k)).reshape(g.GetNumberOfCells(), -1)
            for c, key in enumerate(keys):
                if not keep[c]:
                    continue
                f = None if fid is None else int(fid[c])
                if ids is None and es is None:
                    # a node-set vertex: IOSSReader gives one per member
                    # listing it; all of their file_ids
                    row = cells.get(key, {"file_ids": frozenset()})
                    row = {"file_ids": row["file_ids"] | {f}}
                else:
                    row = {"file_id": f}
                for n, v in extra.items():
                    row[n] = tuple(np.round(v[c], 12))
                cells[key] = row
            if ids is not None and es is None:
                mine.setdefault(name + " points", {}).update({int(x): None for x in pts})
    merged = {}
    for part in allgather_objects(mine):
        for name, rows in part.items():
            m = merged.setdefault(name, {})
            for key, row in rows.items():
                if row and "file_ids" in row and key in m:
                    row = {"file_ids": m[key]["file_ids"] | row["file_ids"]}
                m[key] = row
    return merged


def same(ours, theirs):
    """A row of MxNReader's as IOSSReader's: a node-set vertex's file_id is
    the lowest-numbered of the members IOSSReader gives a copy from (its
    first copy), on any number of ranks."""
    if theirs and ours and "file_ids" in theirs and "file_ids" in ours:
        return len(ours["file_ids"]) == 1 and min(ours["file_ids"]) == min(theirs["file_ids"])
    return ours == theirs


def compare(what, ours, theirs):
    global compared
    compared += sum(len(v) for v in theirs.values())
    for name in sorted(set(theirs) | set(ours)):
        a, b = ours.get(name), theirs.get(name)
        if a is None or b is None:
            fail("%s %s: leaf only in %s" % (what, name, "IOSSReader" if a is None else "MxNReader"))
            continue
        if set(a) != set(b):
            only_b, only_a = sorted(set(b) - set(a)), sorted(set(a) - set(b))
            fail("%s %s: %d keys only in IOSSReader (first %s), %d only in MxNReader (first %s)"
                 % (what, name, len(only_b), only_b[:3], len(only_a), only_a[:3]))
            continue
        bad = [k for k in b if not same(a[k], b[k])]
        if bad:
            fail("%s %s: %d of %d differ, e.g. %s: MxNReader %s, IOSSReader %s"
                 % (what, name, len(bad), len(b), bad[0], a[bad[0]], b[bad[0]]))


def readers(path):
    ioss = IOSSReader(FileName=[path])
    select_all(ioss)
    ioss.GenerateFileId = 1
    mxn = MxNReader(FileName=[path])  # noqa: F405
    select_all(mxn)
    mxn.GenerateFileId = 1
    mxn.GhostLevels = 1 if nranks > 1 else 0
    return ioss, mxn


# 1. ids and file_id of mug, the file and its spread sets
for path in MUG if have_shared else []:
    what = os.path.relpath(path, shared)
    ioss, mxn = readers(path)
    ref = tables(ioss)
    if not any(k[0] > 1 for k in ref.get("bottom", {})):
        fail("%s: IOSSReader's side set bottom is empty or odd" % what)
    compare(what, tables(mxn), ref)
    Delete(mxn)
    Delete(ioss)

# 2. file_id after re-balancing
ioss, mxn = readers(hot)
ref = tables(ioss)
mxn.LoadBalanceField = "hot_spot"
mxn.PartitionMethod = "SFC"
mxn.RebalanceEachTimeStep = 1
times = list(mxn.TimestepValues)
moved = 0
for k in (0, 7, 13, len(times) - 1):
    compare("hot spot re-balanced, step %d" % (k + 1), tables(mxn, times[k]), ref)
    fd = mxn.GetClientSideObject().GetOutputDataObject(0).GetFieldData()
    a = fd.GetAbstractArray("MxNMigratedElements")
    moved += int(a.GetVariantValue(0).ToInt()) if a is not None else 0
if nranks > 1 and moved == 0:
    fail("hot spot: the re-balance moved no element (nothing checked)")
if len(set(r["file_id"] for rows in ref.values() for r in rows.values() if r and "file_id" in r)) < 3:
    fail("hot spot: IOSSReader's file_id does not name 3 members")
Delete(mxn)
Delete(ioss)

# 3. attributes
for path in ATTRS if have_shared else []:
    what = os.path.relpath(path, shared)
    ioss = IOSSReader(FileName=[path])
    mxn = MxNReader(FileName=[path])  # noqa: F405
    ioss.UpdatePipelineInformation()
    mxn.UpdatePipelineInformation()
    ia = sorted(ioss.GetProperty("ElementBlockFields").Available)
    ma = sorted(mxn.GetProperty("ElementBlockFields").Available)
    if ia != ma:
        fail("%s: ElementBlockFields: MxNReader offers %s, IOSSReader %s" % (what, ma, ia))
    iv = sorted(ioss.GetProperty("ElementBlockFields").GetData() or [])
    mv = sorted(mxn.GetProperty("ElementBlockFields").GetData() or [])
    if iv != mv:
        fail("%s: ElementBlockFields selected by default: MxNReader %s, IOSSReader %s"
             % (what, mv, iv))
    select_all(ioss)
    select_all(mxn)
    ref, got = tables(ioss), tables(mxn)
    if not any(len(r) > 1 for rows in ref.values() for r in rows.values() if r):
        fail("%s: IOSSReader shows no attribute" % what)
    compare(what, got, ref)
    Delete(mxn)
    Delete(ioss)

if compared < (10000 if have_shared else 1000):
    fail("only %d keys compared" % compared)
finish(NAME, "%d keys as IOSSReader's: %s file_id per cell after re-balancing%s" % (
    compared, "mug's element and node ids, side sets and node sets (original ids) on the "
    "file and 2 spread sets with file_id;" if have_shared else "",
    "; attribute names, default selection and values on 4 meshes" if have_shared else ""))
