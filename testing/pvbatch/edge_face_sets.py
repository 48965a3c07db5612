"""Edge and face blocks, element, face and edge sets, and node/side set
variables through MxNReader on N ranks (issue 58).

usage: mpiexec -n N pvbatch --symmetric edge_face_sets.py PLUGIN_SO WORK_DIR

Rank 0 writes WORK_DIR/efs.exo with edge_face_gen.py (ncgen): a 4x3x2 hex
box, one EDGE2 edge block of every edge, two QUAD4 face blocks, two edge
sets, a face set, two element sets, a node set and a side set, each with a
variable whose value encodes the entity id and the step. The file is read
with every entity and field selected, by RCB on N ranks, with GhostLevels 0
and 1, at both time steps. Checked over the ranks:

  * every edge of the edge block and face of the face blocks is owned (not
    DUPLICATECELL) on exactly one rank, and the owned cells are, by id,
    what IOSSReader gives: cell type, node ids in order, EV / FV,
    `attribute` and the named attribute, object_id (IOSSReader reads the
    whole file on rank 0; gathered);
  * every entry of the element, face and edge sets is owned exactly once,
    with the set's ids, the entity's node ids (edge and face sets: those of
    the edge or face; element sets: the element's) and its set variable
    ELSV / FSV / ESV at the step, against the generator's formulas
    (IOSSReader 5.11 shows no element, face or edge set: it logs an error
    and leaves them empty; the legacy ExodusIIReader aborts on them);
  * the node set's NSV and the side set's SSV against IOSSReader's, by node
    id and (element, side);
  * the assembly: edge_blocks, face_blocks, element_blocks, node_sets,
    edge_sets, face_sets, element_sets, side_sets, in this order, as
    IOSSReader's.

Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (no ncgen).
"""
import os
import shutil
import sys

SKIP = 77
if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
plugin, work = sys.argv[1], sys.argv[2]

from paraview.simple import LoadPlugin, IOSSReader  # noqa: E402
import paraview.simple as pvs  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pvcheck import allgather_objects, ctrl, fail, finish, owned, rank  # noqa: E402
import edge_face_gen as gen  # noqa: E402

LoadPlugin(plugin, remote=False, ns=globals())


ok = 1
path = os.path.join(work, "efs.exo")
if rank == 0:
    if shutil.which("ncgen") is None:
        ok = 0
    else:
        os.makedirs(work, exist_ok=True)
        gen.write(path)
flag = allgather_objects(ok)[0]
if not flag:
    if rank == 0:
        print("edge_face_sets: SKIP: no ncgen")
    sys.exit(SKIP)

coords, elems, edges, faces, _, _ = gen.mesh()
SETS = gen.sets()
LISTS = ["ElementBlocks", "NodeSets", "SideSets", "EdgeBlocks", "FaceBlocks", "ElementSets",
         "FaceSets", "EdgeSets", "NodeSetFields", "SideSetFields", "EdgeBlockFields",
         "FaceBlockFields", "ElementSetFields", "FaceSetFields", "EdgeSetFields"]


def select_all(r):
    for p in LISTS:
        prop = r.GetProperty(p)
        if prop is None:
            fail("%s has no property %s" % (r.GetXMLName(), p))
            continue
        prop.SetData(prop.Available)


def leaves_by_name(r, t):
    """name -> (grid or None, assembly group), and the group order."""
    r.UpdatePipeline(t)
    d = r.GetClientSideObject().GetOutputDataObject(0)
    a = d.GetDataAssembly()
    out, groups = {}, []
    for g in a.GetChildNodes(a.GetRootNode(), False):
        groups.append(a.GetNodeName(g))
        for leaf in a.GetChildNodes(g, False):
            for i in a.GetDataSetIndices(leaf, False):
                pds = d.GetPartitionedDataSet(i)
                name = d.GetMetaData(i).Get(d.NAME())
                grid = pds.GetPartition(0) if pds.GetNumberOfPartitions() else None
                out[name] = (grid, groups[-1])
    return out, groups


def cells(g, arrays):
    """Owned cells of g: list of (id key, type, node ids, {array: values})."""
    if g is None or g.GetNumberOfCells() == 0:
        return []
    pids = vtk_to_numpy(g.GetPointData().GetArray("ids"))
    cd = g.GetCellData()
    own = owned(g)
    res = []
    for c in range(g.GetNumberOfCells()):
        if not own[c]:
            continue
        pts = g.GetCell(c).GetPointIds()
        nodes = tuple(int(pids[pts.GetId(k)]) for k in range(pts.GetNumberOfIds()))
        vals = {}
        for a in arrays:
            arr = cd.GetArray(a)
            vals[a] = None if arr is None else tuple(
                round(arr.GetComponent(c, k), 9) for k in range(arr.GetNumberOfComponents()))
        if cd.GetArray("ids") is not None:
            key = int(cd.GetArray("ids").GetValue(c))
        elif cd.GetArray("element_side") is not None:
            es = cd.GetArray("element_side")
            key = (int(es.GetComponent(c, 0)), int(es.GetComponent(c, 1)))
        else:
            key = nodes[0]
        res.append((key, g.GetCellType(c), nodes, vals))
    return res


def gathered(grids, name, arrays):
    """Owned cells of leaf `name` over all ranks: key -> list of records."""
    g = grids.get(name, (None, None))[0]
    merged = {}
    for part in allgather_objects(cells(g, arrays)):
        for key, ctype, nodes, vals in part:
            merged.setdefault(key, []).append((ctype, nodes, vals))
    return merged


ioss = IOSSReader(FileName=[path])
select_all(ioss)
BLOCK_ARRAYS = {"edgeblock_20": ["EV", "attribute", "len", "object_id"],
                "faceblock_30": ["FV", "attribute", "area", "object_id"],
                "faceblock_31": ["FV", "attribute", "area", "object_id"],
                "left": ["NSV", "object_id"], "leftside": ["SSV", "object_id"]}
SET_KIND = {"rim": ("edge_sets", "ESV", 0, edges), "spokes": ("edge_sets", "ESV", 1, edges),
            "skin": ("face_sets", "FSV", 0, faces), "odd": ("element_sets", "ELSV", 0, elems),
            "west": ("element_sets", "ELSV", 1, elems)}
IOSS_ORDER = ["edge_blocks", "face_blocks", "element_blocks", "node_sets", "edge_sets",
              "face_sets", "element_sets", "side_sets"]
checked = 0
for ghosts in (0, 1):
    mxn = MxNReader(FileName=[path], PartitionMethod="RCB", GhostLevels=ghosts)
    select_all(mxn)
    for step in (1, 2):
        t = float(step)
        got, groups = leaves_by_name(mxn, t)
        ref, rgroups = leaves_by_name(ioss, t)
        where = "GhostLevels %d, step %d" % (ghosts, step)
        if groups != IOSS_ORDER or rgroups != IOSS_ORDER:
            fail("%s: assembly groups %s, IOSSReader %s" % (where, groups, rgroups))
        for name, arrays in BLOCK_ARRAYS.items():
            mine, theirs = gathered(got, name, arrays), gathered(ref, name, arrays)
            many = [k for k, v in mine.items() if len(v) != 1]
            if many:
                fail("%s: %s: %d entries owned more than once (first %s)" % (
                    where, name, len(many), many[0]))
            if set(mine) != set(theirs) or not mine:
                fail("%s: %s: owned ids %d, IOSSReader %d (only MxN: %s, only IOSS: %s)" % (
                    where, name, len(mine), len(theirs), sorted(set(mine) - set(theirs))[:5],
                    sorted(set(theirs) - set(mine))[:5]))
                continue
            for k in sorted(mine):
                if mine[k][0] != theirs[k][0]:
                    fail("%s: %s %s: MxN %s, IOSSReader %s" % (where, name, k, mine[k][0],
                                                               theirs[k][0]))
                    break
            checked += len(mine)
        for name, (group, var, index, conn) in SET_KIND.items():
            if got.get(name, (None, None))[1] != group:
                fail("%s: %s not under %s" % (where, name, group))
            mine = gathered(got, name, [var, "object_id"])
            want = SETS[group][name]
            many = [k for k, v in mine.items() if len(v) != 1]
            if many or sorted(mine) != sorted(want):
                fail("%s: %s: owned %s (more than once: %s), expected %s" % (
                    where, name, sorted(mine)[:8], many[:5], want[:8]))
                continue
            for k in want:
                ctype, nodes, vals = mine[k][0]
                expect = gen.values(var, k, step, index)
                if tuple(nodes) != tuple(conn[k - 1]) or vals[var] != (round(expect, 9),):
                    fail("%s: %s entry %d: nodes %s value %s, expected %s and %s" % (
                        where, name, k, nodes, vals[var], tuple(conn[k - 1]), expect))
                    break
            checked += len(mine)
    pvs.Delete(mxn)
finish("edge_face_sets", "%d owned entries checked on %d rank(s)" % (
    checked, ctrl.GetNumberOfProcesses()))
