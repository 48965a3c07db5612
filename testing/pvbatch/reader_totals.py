"""Every rank's MxNReader piece against ParaView's own ExodusIIReader, at
every time step.

usage: mpiexec -n N pvbatch --symmetric reader_totals.py PLUGIN_SO DATASET [METHOD]
                                        [--ghosts L] [--sets] [--steps all|last]
                                        [--compare-size] [--cell-types]
                                        [--side-sizes ID=SIZE,...] [--common-vars]
                                        [--known REGEX]

DATASET is a spread-set member (mesh.e.4.0) or a plain Exodus file; METHOD
is a PartitionMethod name (Files, SFC, RCB, RIB, HSFC, Graph, Linear;
default Files). --ghosts sets the reader's GhostLevels (ParaView asks every
reader of unstructured data for 1 ghost level when it runs on several
ranks, so there are ghosts at N > 1 anyway); --sets also reads every node
and side set with both readers; --steps last checks the last step only
(default: every step); --compare-size also requires the total cell size
(length + area + volume of the owned cells) to equal ExodusIIReader's
(not by default: the two readers orient wedges differently);
--cell-types requires the owned cells of each VTK cell type to be as many
as ExodusIIReader's (polygons, polyhedra); --side-sizes (with --sets)
checks MxNReader's side sets against the given total area (or length) per
set id instead of against ExodusIIReader, which shows no side sets of
polygonal or polyhedral blocks. --common-vars compares the variables both
readers show on every rank, for spread sets whose members differ in their
variables, where ExodusIIReader legitimately shows less: it offers member
0's variables only, and where one rank reads several members it drops an
array some of them lack (so that rank shows it, another not); MxNReader
offers every member's variables, NaN where a member has none, so its sums,
minima and maxima skip NaN then, and the arrays left out are named in the
report (an array ExodusIIReader shows on every rank that MxNReader lacks
still fails). --known REGEX prints the problems it matches as known differences
and passes despite them (the compatibility sweep's files where the two
readers are known to differ). With --symmetric every rank runs this script and
each reader's client-side output is that rank's own piece; the figures of
all ranks are combined with the global vtkMultiProcessController, and
every rank reaches the same verdict. Per time step, checked:

  * MxNReader reports no error; its collection has a data assembly with
    /IOSS/element_blocks holding one partitioned dataset per element
    block, with one partition where the rank holds some of the block and
    none where it holds nothing of it (an empty partition only on rank 0),
    with the IOSS arrays (point/cell "ids" as global and pedigree ids,
    cell "object_id");
  * every rank owns cells (when N <= elements);
  * owned cells (vtkGhostType 0) over all ranks == ExodusIIReader's cells,
    their ids are distinct and exactly ExodusIIReader's GlobalElementId set;
  * ghosts (N > 1): there are ghost cells, each is a copy of a cell another
    rank owns, and every node is owned (vtkGhostType 0) on exactly one rank;
  * the distinct point ids equal ExodusIIReader's GlobalNodeId set, and a
    point held by several ranks/blocks has the same coordinates and nodal
    values everywhere;
  * per nodal array and component: sum over distinct points, min and max
    equal ExodusIIReader's (same array names and component counts: both
    group VX VY VZ into V);
  * per element array and component: sum, min and max over owned cells
    equal ExodusIIReader's;
  * global variables equal ExodusIIReader's where it exposes them;
  * every owned cell of a 3D block has a positive volume (but HEX27, which
    VTK's cell size filter does not measure);
  * where MxNReader says it does not use the file's ids (its id fallback
    on a set whose ids repeat), cells are compared by count and values,
    not ids, and with its nodal fallback points and node set members by
    their coordinates;
  * with --sets, per node set id: the distinct node ids equal
    ExodusIIReader's; per side set id: the owned sides count and their
    total area (or length) equal ExodusIIReader's (the count only for a
    set with 3-node edge sides, which ExodusIIReader draws as triangles).

Exit codes: 0 pass (falling off the end: under mpiexec, SystemExit ends
pvbatch before it finalizes MPI, and the job is reported failed), 1 failure,
2 bad usage, 77 skipped (DATASET absent).
"""
import argparse
import hashlib
import os
import re
import sys

SKIP = 77
METHODS = ["Files", "SFC", "RCB", "RIB", "HSFC", "Graph", "Linear"]
SPREAD_MEMBER = re.compile(r"^(.*)\.([0-9]+)\.([0-9]+)$")

ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("plugin")
ap.add_argument("dataset")
ap.add_argument("method", nargs="?", default="Files")
ap.add_argument("--ghosts", type=int, default=0)
ap.add_argument("--sets", action="store_true")
ap.add_argument("--steps", choices=["all", "last"], default="all")
ap.add_argument("--compare-size", action="store_true")
ap.add_argument("--cell-types", action="store_true")
ap.add_argument("--side-sizes", default="")
ap.add_argument("--common-vars", action="store_true")
ap.add_argument("--known", default="")
try:
    args = ap.parse_args(sys.argv[1:])
except SystemExit:
    print("usage: pvbatch --symmetric reader_totals.py PLUGIN_SO DATASET [METHOD] "
          "[--ghosts L] [--sets] [--steps all|last]")
    sys.exit(2)
plugin, dataset, method = os.path.abspath(args.plugin), os.path.abspath(args.dataset), args.method
if method not in METHODS:
    print("reader_totals: unknown method %s (one of %s)" % (method, ", ".join(METHODS)))
    sys.exit(2)
if not os.path.isfile(dataset):
    print("reader_totals: SKIP: %s not found" % dataset)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkCommonDataModel import (  # noqa: E402
    VTK_QUADRATIC_EDGE, VTK_TRIANGLE, VTK_TRIQUADRATIC_HEXAHEDRON, vtkCellTypes)
from vtkmodules.vtkFiltersVerdict import vtkCellSizeFilter  # noqa: E402
from vtkmodules.vtkParallelCore import vtkCommunicator  # noqa: E402
from pvcheck import all_keys, allgather, allreduce, messages, nranks, rank  # noqa: E402

name = "reader_totals[%s, %s, N=%d%s%s]" % (
    os.path.basename(dataset), method, nranks,
    ", ghosts=%d" % args.ghosts if args.ghosts else "", ", sets" if args.sets else "")

# Arrays that are bookkeeping, not variables, in either reader.
MXN_SKIP = {"ids", "object_id", "vtkGhostType", "element_side"}
# ParaView's Exodus writer stores the IOSS reader's "object_id" as an
# element variable; MxNReader's "object_id" is the block id, as IOSS's is.
EXO_SKIP = {"object_id", "GlobalElementId", "GlobalNodeId", "PedigreeElementId", "PedigreeNodeId",
            "ObjectId", "original_global_id_map", "SourceElementId", "SourceElementSide",
            "vtkGhostType"}


# --- Combining figures over ranks (allgather, allreduce, all_keys: pvcheck.py)
def combine(stats):
    """stats: {key: (sum, min, max)} of this rank -> the same over ranks."""
    keys = all_keys(stats.keys())
    s = allreduce([stats[k][0] if k in stats else 0.0 for k in keys], vtkCommunicator.SUM_OP)
    lo = allreduce([stats[k][1] if k in stats else np.inf for k in keys], vtkCommunicator.MIN_OP)
    hi = allreduce([stats[k][2] if k in stats else -np.inf for k in keys], vtkCommunicator.MAX_OP)
    return {k: (s[i], lo[i], hi[i]) for i, k in enumerate(keys)}


def close(a, b, scale):
    return abs(a - b) <= 1e-9 * max(1.0, abs(scale))


def arrays(attrs, skip):
    out = {}
    for k in range(attrs.GetNumberOfArrays()):
        a = attrs.GetArray(k)
        if a is not None and attrs.GetArrayName(k) not in skip:
            out[attrs.GetArrayName(k)] = a
    return out


def values(a, n):
    return vtk_to_numpy(a).astype(np.float64).reshape(n, -1) if n else np.zeros((0, 1))


def add_stats(stats, name, v):
    """Per component sum/min/max of v (rows x components) into stats."""
    k = v.shape[1]
    for c in range(k):
        key = "%s|%d|%d" % (name, c, k)
        col = v[:, c]
        old = stats.get(key, (0.0, np.inf, -np.inf))
        if args.common_vars:
            # NaN marks where a member lacks the variable (see --common-vars)
            col = col[~np.isnan(col)]
        if col.size:
            stats[key] = (old[0] + float(col.sum()), min(old[1], float(col.min())),
                          max(old[2], float(col.max())))
        else:
            stats[key] = old


MEASURED = {}  # geometry_key -> measure's result


def geometry_key(g, own):
    """A digest of what measure's result depends on (points, cells and the
    owned mask), or None where it cannot tell (not an unstructured grid).
    vtkCellSizeFilter is slow on some meshes (mug.e's blocks take tenths of
    a second each), and most time steps leave the geometry unchanged."""
    if not g.IsA("vtkUnstructuredGrid") or g.GetPoints() is None or g.GetCells() is None:
        return None
    h = hashlib.sha1()
    faces = g.GetFaces() if hasattr(g, "GetFaces") else None
    for a in (g.GetPoints().GetData(), g.GetCells().GetOffsetsArray(),
              g.GetCells().GetConnectivityArray(), g.GetCellTypesArray(), faces,
              g.GetFaceLocations() if faces is not None else None):
        h.update(b"|" if a is None else vtk_to_numpy(a).tobytes() + a.GetDataTypeAsString().encode())
    h.update(own.tobytes())
    return h.digest()


def measure(g, own):
    """Total area (2D cells) + length (lines) + volume (3D) of the cells own
    (computed once per geometry: MEASURED)."""
    if not own.any():
        return 0.0, 0
    key = geometry_key(g, own)
    if key is not None and key in MEASURED:
        return MEASURED[key]
    got = measure_now(g, own)
    if key is not None:
        MEASURED[key] = got
    return got


def measure_now(g, own):
    f = vtkCellSizeFilter()
    f.SetInputData(g)
    f.ComputeVertexCountOff()
    f.Update()
    cd = f.GetOutput().GetCellData()
    total = 0.0
    for a in ("Length", "Area", "Volume"):
        total += float(np.sum(vtk_to_numpy(cd.GetArray(a))[own]))
    vol = vtk_to_numpy(cd.GetArray("Volume"))[own]
    types = vtk_to_numpy(g.GetCellTypesArray())
    dim_of = np.zeros(256, dtype=int)
    for c in np.unique(types):
        dim_of[c] = vtkCellTypes.GetDimension(int(c))
    dims = dim_of[types][own]
    # vtkCellSizeFilter gives no volume (0) for a tri-quadratic hexahedron
    # (HEX27), whichever reader made it.
    measured = types[own] != VTK_TRIQUADRATIC_HEXAHEDRON
    return total, int(np.sum((dims == 3) & (vol <= 0) & measured))


# --- One reader's figures ----------------------------------------------------
class Figures:
    def __init__(self):
        self.cells = 0            # owned cells of element blocks
        self.cell_ids = []        # owned
        self.ghost_ids = []       # ghost cells' ids
        self.owned_points = set()  # node ids this rank owns (not DUPLICATEPOINT)
        self.point_rows = []      # [id, x, y, z, components...]
        self.point_names = None   # sorted (name, ncomp)
        self.cell_stats = {}
        self.bad_volumes = 0
        self.volume = 0.0
        self.types = {}           # VTK cell type -> owned cells
        self.node_sets = []       # (set id, node id, x, y, z)
        self.side_sets = {}       # set id -> (count, measure)
        self.side_types = set()   # (set id, VTK cell type) of owned sides
        self.globals = {}
        self.problems = []

    def block(self, g, gid_cell, gid_point, skip):
        n, npts = g.GetNumberOfCells(), g.GetNumberOfPoints()
        pd, cd = g.GetPointData(), g.GetCellData()
        gh = cd.GetArray("vtkGhostType")
        own = (vtk_to_numpy(gh) & 1) == 0 if gh is not None and n else np.ones(n, dtype=bool)
        self.cells += int(own.sum())
        ids = values(cd.GetArray(gid_cell), n)[:, 0] if n else np.zeros(0)
        self.cell_ids.extend(ids[own].tolist())
        self.ghost_ids.extend(ids[~own].tolist())
        for an, a in arrays(cd, skip).items():
            add_stats(self.cell_stats, an, values(a, n)[own])
        pa = arrays(pd, skip)
        names = sorted((an, a.GetNumberOfComponents()) for an, a in pa.items())
        if self.point_names is None:
            self.point_names = names
        elif names != self.point_names and npts:
            self.problems.append("point arrays differ between blocks: %s vs %s"
                                 % (names, self.point_names))
            return
        pids = values(pd.GetArray(gid_point), npts)[:, 0] if npts else np.zeros(0)
        pgh = pd.GetArray("vtkGhostType")
        if pgh is not None and npts:
            # Files written by ParaView's Exodus writer carry vtkGhostType as
            # a float nodal variable: compare its integer flags.
            flags = vtk_to_numpy(pgh).astype(np.int64)
            self.owned_points.update(pids[(flags & 1) == 0].tolist())
        else:
            self.owned_points.update(pids.tolist())
        if npts:
            cols = [pids.reshape(-1, 1), vtk_to_numpy(g.GetPoints().GetData()).reshape(-1, 3)]
            cols += [values(pa[an], npts) for an, _ in names]
            self.point_rows.append(np.hstack(cols))
        if n:
            for c, k in zip(*np.unique(vtk_to_numpy(g.GetCellTypesArray())[own], return_counts=True)):
                self.types[int(c)] = self.types.get(int(c), 0) + int(k)
            total, bad = measure(g, own)
            self.volume += total
            self.bad_volumes += bad

    def node_set(self, g, set_id, gid_point):
        n = g.GetNumberOfCells()
        if not n:
            return
        cd = g.GetCellData()
        gh = cd.GetArray("vtkGhostType")
        own = (vtk_to_numpy(gh) & 1) == 0 if gh is not None else np.ones(n, dtype=bool)
        pids = values(g.GetPointData().GetArray(gid_point), g.GetNumberOfPoints())[:, 0]
        xyz = vtk_to_numpy(g.GetPoints().GetData()).reshape(-1, 3)
        for c in np.nonzero(own)[0]:
            cell = g.GetCell(int(c))
            for k in range(cell.GetNumberOfPoints()):
                p = cell.GetPointId(k)
                self.node_sets.append((set_id, pids[p], xyz[p, 0], xyz[p, 1], xyz[p, 2]))

    def side_set(self, g, set_id):
        n = g.GetNumberOfCells()
        gh = g.GetCellData().GetArray("vtkGhostType")
        own = (vtk_to_numpy(gh) & 1) == 0 if gh is not None and n else np.ones(n, dtype=bool)
        total, _ = measure(g, own) if n else (0.0, 0)
        old = self.side_sets.get(set_id, (0, 0.0))
        self.side_sets[set_id] = (old[0] + int(own.sum()), old[1] + total)
        if n:
            self.side_types.update((set_id, int(t)) for t in
                                   np.unique(vtk_to_numpy(g.GetCellTypesArray())[own]))


def set_id_of(g, name):
    a = g.GetCellData().GetArray(name)
    return int(a.GetValue(0)) if a is not None and g.GetNumberOfCells() else None


def mxn_figures(out):
    f = Figures()
    if out is None or out.GetClassName() != "vtkPartitionedDataSetCollection":
        f.problems.append("output is %s" % (out.GetClassName() if out else None))
        return f
    fd = out.GetFieldData()
    for k in range(fd.GetNumberOfArrays()):
        a = fd.GetArray(k)
        if a is None:
            continue  # the QA and information records (string arrays)
        for c in range(a.GetNumberOfComponents()):
            key = fd.GetArrayName(k) if a.GetNumberOfComponents() == 1 else \
                "%s_%d" % (fd.GetArrayName(k), c)
            f.globals[key] = a.GetComponent(0, c)
    asm = out.GetDataAssembly()
    eb = asm.GetFirstNodeByPath("/IOSS/element_blocks") if asm else -1
    if eb < 0:
        f.problems.append("data assembly lacks /IOSS/element_blocks")
        return f
    for kind in ("element_blocks", "node_sets", "side_sets"):
        node = asm.GetFirstNodeByPath("/IOSS/" + kind)
        if node < 0:
            if kind != "element_blocks" and args.sets and has_sets[kind]:
                f.problems.append("no /IOSS/%s" % kind)
            continue
        for child in asm.GetChildNodes(node, False):
            for i in asm.GetDataSetIndices(child, False):
                pds = out.GetPartitionedDataSet(i)
                if pds is None or pds.GetNumberOfPartitions() > 1:
                    f.problems.append("%s %d: more than one partition" % (kind, i))
                    continue
                if pds.GetNumberOfPartitions() == 0:
                    continue  # this rank holds nothing of it
                g = pds.GetPartition(0)
                # a partition only where the rank holds some of the leaf
                # (one empty grid on rank 0 for a leaf empty everywhere)
                if rank > 0 and g.GetNumberOfCells() == 0 and g.GetNumberOfPoints() == 0:
                    f.problems.append("%s %d: an empty partition on rank %d" % (kind, i, rank))
                if kind == "element_blocks":
                    pd, cd = g.GetPointData(), g.GetCellData()
                    ok = all(x is not None and x.GetName() == "ids" for x in (
                        pd.GetGlobalIds(), cd.GetGlobalIds(), pd.GetPedigreeIds(),
                        cd.GetPedigreeIds())) and cd.GetArray("object_id") is not None
                    if not ok:
                        f.problems.append("block %d: 'ids' (global and pedigree ids) or "
                                          "'object_id' missing" % i)
                        continue
                    f.block(g, "ids", "ids", MXN_SKIP)
                elif kind == "node_sets":
                    sid = set_id_of(g, "object_id")
                    if sid is not None:
                        f.node_set(g, sid, "ids")
                else:
                    sid = set_id_of(g, "object_id")
                    if sid is not None:
                        f.side_set(g, sid)
                    elif g.GetNumberOfCells() == 0 and g.GetCellData().GetArray("element_side") is None:
                        f.problems.append("side set %d: no element_side array" % i)
    return f


def exo_figures(out):
    f = Figures()
    for i in range(out.GetNumberOfBlocks()):
        group = out.GetBlock(i)
        gname = out.GetMetaData(i).Get(out.NAME())
        if group is None:
            continue
        for j in range(group.GetNumberOfBlocks()):
            g = group.GetBlock(j)
            if g is None:
                continue
            if gname == "Element Blocks":
                if g.GetNumberOfCells():
                    f.block(g, "GlobalElementId", "GlobalNodeId", EXO_SKIP)
            elif gname == "Node Sets":
                sid = set_id_of(g, "ObjectId")
                if sid is not None:
                    f.node_set(g, sid, "GlobalNodeId")
            elif gname == "Side Sets":
                sid = set_id_of(g, "ObjectId")
                if sid is not None:
                    f.side_set(g, sid)
    it = out.NewIterator()
    it.UnRegister(None)
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        fd = it.GetCurrentDataObject().GetFieldData()
        for k in range(fd.GetNumberOfArrays()):
            a = fd.GetArray(k)
            # ExodusIIReader keeps a global variable as one tuple per time step.
            if a is not None and a.GetNumberOfTuples() == max(1, len(times)) and \
                    a.GetNumberOfComponents() == 1:
                f.globals[fd.GetArrayName(k)] = a.GetTuple1(step_index)
        it.GoToNextItem()
    return f


# --- Readers -------------------------------------------------------------------
LoadPlugin(plugin, remote=False, ns=globals())
mxn = servermanager.sources.MxNReader()
errors = messages(mxn)
heard = messages(mxn, "WarningEvent")
mxn.FileName = dataset
mxn.PartitionMethod = method
mxn.GhostLevels = args.ghosts
mxn.UpdatePipelineInformation()
has_sets = {"node_sets": len(mxn.GetProperty("NodeSets").Available) > 0,
            "side_sets": len(mxn.GetProperty("SideSets").Available) > 0}
if args.sets:
    mxn.NodeSets = list(mxn.GetProperty("NodeSets").Available)
    mxn.SideSets = list(mxn.GetProperty("SideSets").Available)
tv = mxn.TimestepValues
times = [float(t) for t in tv] if hasattr(tv, "__iter__") else ([float(tv)] if tv else [])

# ExodusIIReader is given member 0 of a spread set: see check_totals.py.
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
for p in ("NodeSetArrayStatus", "SideSetArrayStatus"):
    prop = exo.GetProperty(p)
    prop.SetData(list(prop.Available) if args.sets else [])
# ExodusIIReader shows each numbered map as a point or cell array named
# after the map; MxNReader offers no such arrays: compare without them.
for p in ("EdgeBlocks", "FaceBlocks", "ElementSetArrayStatus", "EdgeSetArrayStatus",
          "FaceSetArrayStatus", "NodeMapArrayStatus", "ElementMapArrayStatus",
          "EdgeMapArrayStatus", "FaceMapArrayStatus"):
    prop = exo.GetProperty(p)
    if prop is not None:
        prop.SetData([])
# Both readers move the points by the displacement, as they do by default.
exo.ApplyDisplacements = 1
# Element attributes are cell arrays of MxNReader (as of IOSSReader) but not
# of ExodusIIReader's proxy: compare the element variables both list (an
# element variable MxNReader lacks still fails the array-name check below).
exo_point_order = list(exo.GetProperty("PointVariables").Available)
exo_elem_order = list(exo.GetProperty("ElementVariables").Available)
TENSOR_SUFFIXES = {"xx", "yy", "zz", "xy", "yz", "zx", "yx", "zy", "xz", "x", "y", "z"}


def exo_has(x, order):
    return x in order or x + "_" in order or any(
        n.startswith(x) and n[len(x):].lstrip("_").lower() in TENSOR_SUFFIXES for n in order)


mxn.CellArrays = [n for n in mxn.GetProperty("CellArrays").Available
                  if exo_has(n, exo_elem_order)]
member0_lacks = []
if args.common_vars:
    # Member 0's variables are all ExodusIIReader offers.
    member0_lacks = [n + "[*]" for n in mxn.GetProperty("PointArrays").Available
                     if not exo_has(n, exo_point_order)]
    mxn.PointArrays = [n for n in mxn.GetProperty("PointArrays").Available
                       if exo_has(n, exo_point_order)]


def match_columns(mxn_layout, exo_layout, exo_order):
    """Which ExodusIIReader (array, component) holds each MxNReader (array,
    component). ExodusIIReader names a vector after its prefix with the
    separator kept (vel_x.. -> vel_, VX.. -> V) and leaves tensors as
    scalars (stress_xx ..., in file order); MxNReader names them as
    IOSSReader does (vel, V, stress with 6 components, in file order).
    Returns the mapping and the unmatched components of either side."""
    ek = dict(exo_layout)
    mapping = {}
    for x, k in mxn_layout:
        src = None
        for cand in (x, x + "_"):
            if ek.get(cand) == k:
                src = [(cand, c) for c in range(k)]
                break
        if src is None and k > 1:
            names = [n for n in exo_order if ek.get(n) == 1 and n.startswith(x) and len(n) > len(x)]
            for i in range(len(names) - k + 1):
                run = names[i:i + k]
                pos = [exo_order.index(n) for n in run]
                if all(len(n) == len(run[0]) for n in run) and pos == list(range(pos[0], pos[0] + k)):
                    src = [(n, 0) for n in run]
                    break
        if src:
            for c in range(k):
                mapping[(x, c)] = src[c]
    used = set(mapping.values())
    lost_m = ["%s[%d]" % (x, c) for x, k in mxn_layout for c in range(k) if (x, c) not in mapping]
    lost_e = ["%s[%d]" % (n, c) for n, k in exo_layout for c in range(k) if (n, c) not in used]
    return mapping, lost_m, lost_e

steps = list(range(len(times))) if args.steps == "all" else [max(0, len(times) - 1)]
steps = steps or [0]
problems = []  # this rank's; merged over ranks at the end
report = ""
skipped = set(member0_lacks)  # components left out by --common-vars
fallback = ""  # MxNReader's id fallback, if it said one


def point_layout(f):
    """The (name, components) of the nodal arrays to compare: every array
    any rank shows; with --common-vars those every rank with points shows."""
    mine = ["%s:%d" % x for x in (f.point_names or [])]
    keys = all_keys(mine)
    if args.common_vars:
        holders = allreduce([1 if f.point_rows else 0], vtkCommunicator.SUM_OP)[0]
        have = allreduce([1 if f.point_rows and k in mine else 0 for k in keys],
                         vtkCommunicator.SUM_OP)
        keys = [k for i, k in enumerate(keys) if have[i] == holders]
    return [(x.rsplit(":", 1)[0], int(x.rsplit(":", 1)[1])) for x in keys]


def point_rows(f, layout, width):
    """This rank's point rows in the given layout (none if it lacks it)."""
    if not f.point_rows:
        return np.zeros((0, width))
    rows = np.vstack(f.point_rows)
    if f.point_names == layout:
        return rows
    if not args.common_vars:
        return np.zeros((0, width))
    at, cols = 4, {}
    for n, k in f.point_names:
        cols[(n, k)] = list(range(at, at + k))
        at += k
    if any(x not in cols for x in layout):
        return np.zeros((0, width))
    keep = list(range(4)) + [c for x in layout for c in cols[x]]
    return rows[:, keep]


def by_coordinates(a, b, col):
    """Column col of rows a and b (coordinates in the 3 columns after it)
    replaced by one number per distinct point, the same in both."""
    xyz = np.round(np.vstack([a[:, col + 1:col + 4], b[:, col + 1:col + 4]]), 9)
    if xyz.shape[0]:
        _, key = np.unique(xyz, axis=0, return_inverse=True)
        key = key.reshape(-1)
        a[:, col], b[:, col] = key[:a.shape[0]], key[a.shape[0]:]


def distinct(a):
    """Rows sorted by id, one per id; and how many copies disagree with it."""
    order = np.argsort(a[:, 0], kind="stable")
    a = a[order]
    keep = np.ones(a.shape[0], dtype=bool)
    keep[1:] = a[1:, 0] != a[:-1, 0]
    first = np.cumsum(keep) - 1
    d = a[keep]
    diff = np.abs(a - d[first])
    return d, int(np.sum(np.any(diff > 1e-12 * np.maximum(1.0, np.abs(a)), axis=1)))


for step_index in steps:
    t = times[step_index] if times else 0.0
    where = "t=%g: " % t
    errors.clear()
    mxn.UpdatePipeline(t)
    if errors:
        problems.append(where + "MxNReader errors: " + " | ".join(errors)[:600])
    # A set whose id maps cannot be trusted (ids repeated, or one id at two
    # points): MxNReader says once, on one rank, that it numbers elements
    # by member and position, and maybe matches nodes by coordinates, where
    # ExodusIIReader shows the file's ids. Then cells are compared by count
    # and values, and with the nodal fallback points and node set members
    # by their coordinates.
    elem_fb, node_fb = [bool(x) for x in allreduce(
        [any("ids are not used" in w or "id maps are not used" in w for w in heard),
         any("id maps are not used" in w for w in heard)], vtkCommunicator.MAX_OP)]
    if elem_fb:
        fallback = "; MxNReader's id fallback: elements%s" % (" and nodes" if node_fb else "")
    exo.UpdatePipeline(t)
    M = mxn_figures(mxn.GetClientSideObject().GetOutputDataObject(0))
    E = exo_figures(exo.GetClientSideObject().GetOutputDataObject(0))
    problems += [where + p for p in M.problems + E.problems]

    counts = allgather([[M.cells, E.cells, M.bad_volumes, M.volume, len(M.ghost_ids), E.volume]], 6)
    if args.compare_size and not close(counts[:, 3].sum(), counts[:, 5].sum(), counts[:, 5].sum()):
        problems.append(where + "total cell size %.17g, ExodusIIReader %.17g"
                        % (counts[:, 3].sum(), counts[:, 5].sum()))
    if args.cell_types:
        tm = allgather([[t, k] for t, k in M.types.items()], 2)
        te = allgather([[t, k] for t, k in E.types.items()], 2)
        hm = {int(t): int(tm[tm[:, 0] == t, 1].sum()) for t in np.unique(tm[:, 0])}
        he = {int(t): int(te[te[:, 0] == t, 1].sum()) for t in np.unique(te[:, 0])}
        if hm != he:
            problems.append(where + "owned cells per VTK type %s, ExodusIIReader %s" % (hm, he))
        type_line = "; cell types %s" % hm
    else:
        type_line = ""
    per_rank = [int(c) for c in counts[:, 0]]
    total, exo_total = int(counts[:, 0].sum()), int(counts[:, 1].sum())
    if nranks <= exo_total and min(per_rank) == 0:
        problems.append(where + "a rank owns no cells: %s" % per_rank)
    if total != exo_total:
        problems.append(where + "owned cells %d, ExodusIIReader %d" % (total, exo_total))
    mids = allgather([[x] for x in M.cell_ids], 1)[:, 0]
    eids = allgather([[x] for x in E.cell_ids], 1)[:, 0]
    u = np.unique(mids)
    if u.size != mids.size:
        problems.append(where + "%d cells owned twice" % (mids.size - u.size))
    if not elem_fb and not np.array_equal(u, np.unique(eids)):
        problems.append(where + "cell id sets differ (%d vs %d ids)" % (u.size, np.unique(eids).size))
    if int(counts[:, 2].sum()):
        problems.append(where + "%d cells with volume <= 0" % int(counts[:, 2].sum()))

    # Ghosts: copies of cells other ranks own; each node owned exactly once.
    nghost = int(counts[:, 4].sum())
    gids = allgather([[x] for x in M.ghost_ids], 1)[:, 0]
    if nranks > 1 and nghost == 0:
        problems.append(where + "no ghost cells on %d ranks" % nranks)
    if nghost and not np.all(np.isin(gids, u)):
        problems.append(where + "ghost cells that no rank owns")
    owned_pts = allgather([[x] for x in sorted(M.owned_points)], 1)[:, 0]

    # Points: every nodal array component of one reader is one of the other.
    layout_m, layout_e = point_layout(M), point_layout(E)
    pmap, lost_m, lost_e = match_columns(layout_m, layout_e, exo_point_order)
    if args.common_vars and not lost_e:
        # (MxNReader shows every member's arrays on every rank)
        skipped |= set(lost_m)
    elif lost_m or lost_e:
        problems.append(where + "nodal components without a counterpart: MxNReader %s, "
                        "ExodusIIReader %s" % (lost_m, lost_e))
    # Rows were built with each reader's sorted layout; ranks agree on it
    # (a rank without cells holds no rows, and its layout is not needed),
    # but for --common-vars, where each rank's rows keep the common columns.
    if not args.common_vars and (M.point_names not in (None, layout_m) or
                                 E.point_names not in (None, layout_e)):
        problems.append(where + "a rank's point arrays differ from the others'")
    width_m = 4 + sum(k for _, k in layout_m)
    width_e = 4 + sum(k for _, k in layout_e)
    rows_m = point_rows(M, layout_m, width_m)
    rows_e = point_rows(E, layout_e, width_e)
    gm, ge = allgather(rows_m, width_m), allgather(rows_e, width_e)
    mxn_point_ids = np.unique(gm[:, 0])
    if node_fb:
        by_coordinates(gm, ge, 0)
    mp, mbad = distinct(gm)
    ep, _ = distinct(ge)
    if mbad:
        problems.append(where + "%d point copies disagree in coordinates or values" % mbad)
    if not np.array_equal(mp[:, 0], ep[:, 0]):
        problems.append(where + "point id sets differ (%d vs %d)" % (mp.shape[0], ep.shape[0]))
    else:
        if nghost or args.ghosts:
            uo, co = np.unique(owned_pts, return_counts=True)
            if not np.array_equal(uo, mxn_point_ids) or np.any(co != 1):
                problems.append(where + "nodes not owned exactly once (%d of %d ids, "
                                "max owners %d)" % (uo.size, mp.shape[0], co.max(initial=0)))
        if not np.allclose(mp[:, 1:4], ep[:, 1:4], rtol=1e-6, atol=1e-12):
            problems.append(where + "point coordinates differ from ExodusIIReader's")
        col_e, at = {}, 4
        for n, k in layout_e:
            for c in range(k):
                col_e[(n, c)] = at + c
            at += k
        at = 4
        for x, k in layout_m:
            for c in range(k):
                if (x, c) in pmap:
                    a, b = mp[:, at + c], ep[:, col_e[pmap[(x, c)]]]
                    for what, va, vb in (("sum", a.sum(), b.sum()),
                                         ("min", a.min(initial=0), b.min(initial=0)),
                                         ("max", a.max(initial=0), b.max(initial=0))):
                        if not close(va, vb, np.abs(a).sum()):
                            problems.append(where + "nodal %s[%d] %s %.17g, ExodusIIReader %.17g"
                                            % (x, c, what, va, vb))
            at += k

    # Element arrays: sum/min/max per component over owned cells.
    cm, ce = combine(M.cell_stats), combine(E.cell_stats)

    def cell_layout(stats):
        return sorted(set((k.split("|")[0], int(k.split("|")[2])) for k in stats))

    cmap, lost_m, lost_e = match_columns(cell_layout(cm), cell_layout(ce), exo_elem_order)
    if args.common_vars and not lost_e:
        # (MxNReader shows every member's arrays on every rank)
        skipped |= set(lost_m)
    elif lost_m or lost_e:
        problems.append(where + "element components without a counterpart: MxNReader %s, "
                        "ExodusIIReader %s" % (lost_m, lost_e))
    for (x, c), (n, ce_c) in sorted(cmap.items()):
        a = cm["%s|%d|%d" % (x, c, dict(cell_layout(cm))[x])]
        b = ce["%s|%d|%d" % (n, ce_c, dict(cell_layout(ce))[n])]
        for what, i in (("sum", 0), ("min", 1), ("max", 2)):
            if not close(a[i], b[i], abs(a[0]) + abs(b[0])):
                problems.append(where + "element %s[%d] %s %.17g, ExodusIIReader %s %.17g"
                                % (x, c, what, a[i], n, b[i]))

    gcompared = 0
    for gname, val in M.globals.items():
        if gname in E.globals:
            gcompared += 1
            if not close(val, E.globals[gname], val):
                problems.append(where + "global %s: %.17g, ExodusIIReader %.17g"
                                % (gname, val, E.globals[gname]))

    set_line = ""
    if args.sets:
        mn = allgather(M.node_sets, 5)
        en = allgather(E.node_sets, 5)
        if node_fb:
            by_coordinates(mn, en, 1)
        mns = {sid: np.unique(mn[mn[:, 0] == sid, 1]) for sid in np.unique(mn[:, 0])}
        ens = {sid: np.unique(en[en[:, 0] == sid, 1]) for sid in np.unique(en[:, 0])}
        if sorted(mns) != sorted(ens) or any(not np.array_equal(mns[s], ens[s]) for s in ens):
            problems.append(where + "node sets differ: %s vs ExodusIIReader %s" % (
                {int(s): v.size for s, v in mns.items()}, {int(s): v.size for s, v in ens.items()}))
        def side_sums(d):
            keys = all_keys([str(k) for k in d])
            n = allreduce([d[int(k)][0] if int(k) in d else 0 for k in keys], vtkCommunicator.SUM_OP)
            a = allreduce([d[int(k)][1] if int(k) in d else 0 for k in keys], vtkCommunicator.SUM_OP)
            return {k: (int(n[i]), a[i]) for i, k in enumerate(keys)}

        ms, es = side_sums(M.side_sets), side_sums(E.side_sets)
        # ExodusIIReader draws a 3-node edge side (a SHELL8/9 or 2D
        # quadratic element's edge) as a triangle, so an area stands for
        # MxNReader's length there: such a set is compared on its count.
        mt = all_keys(["%d:%d" % x for x in M.side_types])
        et = all_keys(["%d:%d" % x for x in E.side_types])
        edge3 = set(k.split(":")[0] for k in mt if k.endswith(":%d" % VTK_QUADRATIC_EDGE))
        edge3 &= set(k.split(":")[0] for k in et if k.endswith(":%d" % VTK_TRIANGLE))
        if args.side_sizes:
            # known sizes (box faces) instead of ExodusIIReader's side sets
            want = dict(kv.split("=") for kv in args.side_sizes.split(","))
            es = {}
            for k, v in want.items():
                es[k] = (ms[k][0] if k in ms else -1, float(v))
        if sorted(ms) != sorted(es):
            problems.append(where + "side set ids %s vs ExodusIIReader %s" % (sorted(ms), sorted(es)))
        for k in sorted(set(ms) & set(es)):
            # (ExodusIIReader keeps single-precision coordinates as float)
            if ms[k][0] != es[k][0] or (k not in edge3 and
                                        abs(ms[k][1] - es[k][1]) > 1e-6 * abs(es[k][1])):
                problems.append(where + "side set %s: %d sides, area %.12g; ExodusIIReader %d, %.12g"
                                % (k, ms[k][0], ms[k][1], es[k][0], es[k][1]))
        set_line = "; node sets %s, side sets %s" % (
            {int(s): int(v.size) for s, v in mns.items()},
            {k: int(v[0]) for k, v in ms.items()})
        if edge3:
            set_line += " (%s by count: 3-node edges)" % ", ".join(sorted(edge3))
    report = ("cells %d (per rank %s) = ExodusIIReader %d; %d ghost cells; %d distinct points; "
              "%d nodal + %d element array components%s; globals %d/%d compared; "
              "size %.6g%s%s%s; %d step(s) up to t=%g"
              % (total, per_rank, exo_total, nghost, len(np.unique(owned_pts)),
                 len(pmap), len(cmap),
                 " (not shown by both: %s)" % ", ".join(sorted(skipped)) if skipped else "",
                 gcompared,
                 len(M.globals), float(counts[:, 3].sum()),
                 " = ExodusIIReader's" if args.compare_size else "", type_line, set_line,
                 len(steps), t)) + fallback

# Every rank's problems count: agree on failure. Those --known names are
# printed, not counted.
known = [p for p in problems if args.known and re.search(args.known, p)]
problems = [p for p in problems if p not in known]
nprob = int(allreduce([len(problems)], vtkCommunicator.SUM_OP)[0])
nknown = int(allreduce([len(known)], vtkCommunicator.SUM_OP)[0])
if problems:
    print("%s rank %d: %s" % (name, rank, "; ".join(problems)[:2000]))
if known and rank == 0:
    print("%s rank %d: known differences: %s" % (name, rank, "; ".join(known)[:2000]))
sys.stdout.flush()
if rank == 0:
    print("reader_totals: %s: %s: %s%s" % ("FAIL" if nprob else "PASS", name, report,
                                         "; %d known differences" % nknown if nknown else ""))
    sys.stdout.flush()
Delete(exo)
Delete(mxn)
if nprob:
    sys.exit(1)
