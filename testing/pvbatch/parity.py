"""Parity with IOSSReader (issue 58): a ParaView user who opens a dataset
with MxNReader instead of IOSSReader (ParaView 5.11's Exodus reader) must
see the same output.

usage: mpiexec -n N pvbatch --symmetric parity.py PLUGIN_SO SHARED_DATA GEN_DIR MODE
                                                  [--only PATTERN] [--report FILE]
                                                  [--max-warnings K] [--datasets-only]

Datasets: every Exodus file under SHARED_DATA/meshes, every spread set
under SHARED_DATA/nemesis and SHARED_DATA/spread (opened by its member 0,
which both readers accept), and every dataset under GEN_DIR (parity_gen.sh:
spread sets of each kind mxn_gen and `mxn split` write; an adaptive series
OUT, OUT-s002[.M.0], ... is one dataset, given to MxNReader as OUT and to
IOSSReader as the list of its segments, as ParaView's file dialog groups
them). --only PATTERN keeps the datasets whose shown name contains
PATTERN (a regular expression).

MODE trace (usage: ... GEN_DIR trace TRACE.py ...): each TRACE.py is a
script as ParaView's Python trace records it against IOSSReader (files
under SHARED_DATA/ or GEN_DIR/); it runs as written and again with
MxNReader in place of IOSSReader, and the outputs are compared as below
(testing/pvbatch/traces/).

--datasets-only: the datasets alone, without the check of the proxy's
properties (`proxy[mode]`).

--max-warnings K: MxNReader may give at most K warnings per dataset (over
the ranks), each naming the dataset's file (its member 0's base name); more,
or one that names no file, is a difference (kind warnings).

MODE default: both readers as paraview.simple makes them (the defaults a
GUI user gets). MODE all: every block, set and field list selected on
both (IOSSReader's list properties, each set on MxNReader by the same
name) and GenerateFileId on. A property MxNReader lacks is a difference
(kind property_missing); where MxNReader has the list under an older name
(ALIASES) that one is set instead, so the output can still be compared.

Reference: IOSSReader; where it cannot read a dataset (it logs an error
or gives no cell on any rank), ParaView's legacy ExodusIIReader, and the
line says so. At the reference's last time step both outputs are gathered
over the ranks and compared leaf by leaf (leaf = a dataset of the
vtkPartitionedDataSetCollection, known by its data-assembly path such as
/IOSS/element_blocks/block_1):

  * the data-assembly paths and every leaf's name, empty leaves included;
  * owned cells per leaf summed over ranks, and the set of cell keys
    (cell 'ids'; side sets: element_side's (element id, side); node sets:
    the node id of each vertex);
  * point, cell and leaf field array names and component counts, and the
    collection's field data (global variables, QA and Information
    Records) with their values;
  * every cell array's values by cell key, the cell type and its nodes'
    global ids in order; every point array's values and the point
    coordinates (displacements applied) by global node id ('ids');
  * the TimestepValues, and the selection lists (available names; in
    default mode the default selection too).

The deliberate differences are DELIBERATE below, each with its reason;
nothing else is left out. Prints `PASS name[mode]` or `FAIL name[mode]:
<first differences>` per dataset (and `proxy[mode]` for the properties);
--report FILE writes every difference found as JSON, grouped by kind.
Exit codes: 0 all pass (falls off the end: see pvcheck.finish), 1 a FAIL,
2 bad usage, 77 nothing ran (SHARED_DATA and GEN_DIR both absent or
empty). SHARED_DATA absent: the generated datasets alone run.
"""
import json
import os
import re
import sys
import tempfile
import time
import traceback

SKIP = 77

# The deliberate differences: (what, where, why). Everything else is
# compared.
DELIBERATE = [
    ("vtkGhostType and ghost cells/points", "MxNReader point and cell data",
     "MxN makes ghost layers itself (GhostLevels); IOSSReader makes none. Ghost cells "
     "are left out of every count and comparison, the array itself from the layouts"),
    ("mxn_load_stats, MxNImbalanceBefore/After, MxNMigratedElements, MxNBytesReRead, "
     "MxNRebalanceSeconds, MxNRebalanced, MxNRebalanceStep, MxNMeasuredSeconds, "
     "MxNLoadBalanceCost", "MxNReader collection field data",
     "MxN's own load and re-balancing counters, per rank"),
    ("which rank holds which cells", "every leaf",
     "each reader distributes the cells its own way (IOSSReader: whole files per rank, "
     "MxN: balanced pieces); totals and values gathered over the ranks are compared"),
    ("duplicated points of spread sets", "IOSSReader output of spread sets",
     "IOSSReader reads each member file as it is, so a node shared by files (and a "
     "node-set member on two files) comes once per file; both outputs are de-duplicated "
     "by id and the duplicates must agree with each other"),
    ("properties StructuredBlocks, StructuredBlockFields", "proxy",
     "CGNS structured zones: an Exodus file has none, the lists are always empty"),
    ("node order of polyhedra", "VTK_POLYHEDRON cells",
     "a polyhedron's point list has no defined order (its faces define the cell): its "
     "global node ids are compared as a set, every other cell's in order"),
    ("cell arrays beyond the legacy reader's", "datasets IOSSReader cannot read",
     "ExodusIIReader's proxy offers no element attributes, which IOSSReader shows as "
     "cell arrays: MxNReader's extra cell arrays are not differences there"),
    ("KNOWN below", "named files", "the reference's own differences, each with why"),
    ("edge and face blocks in MODE default", "datasets IOSSReader cannot read",
     "ExodusIIReader's proxy leaves them unselected by default, MxNReader follows "
     "IOSSReader's default (selected): under the legacy reference in default mode a block "
     "the reference leaves empty is compared by path and name only"),
    ("numbered maps as arrays", "datasets IOSSReader cannot read",
     "ExodusIIReader shows the file's numbered maps (ex_put_num_map) as point and cell "
     "arrays named after them; IOSSReader does not, nor MxNReader after it"),
    ("element, face and edge sets", "IOSSReader reference",
     "IOSSReader 5.11 lists them but cannot read them (it leaves the leaves empty); "
     "MxNReader shows them: compared by path and name only "
     "(the edge_face_sets case of pvbatch_plugin_np* checks their contents against the generator)"),
    ("empty pieces", "every leaf",
     "IOSSReader gives a rank no partition of a block it has no cell of, MxN an empty "
     "grid with the block's arrays: array layouts are taken from the pieces that have "
     "points or cells (a leaf empty everywhere is still compared by path and name)"),
    ("legacy reference: ExodusIIReader's own names, arrays and sets",
     "datasets IOSSReader cannot read",
     "its selection lists are not compared (IOSSReader's are a failed reader's, the "
     "legacy reader's name arrays otherwise); its leaf names are taken as IOSSReader "
     "writes them (lower case, '_' for blanks, 'Unnamed block ID: 1' as block_1); "
     "Pedigree*Id, per-leaf and collection field data (Title, step_index, ...) are its "
     "own; GlobalNodeId, GlobalElementId, ObjectId, SourceElementId/Side are compared as "
     "ids, object_id, element_side; a vector 'v_' as 'v'; its element, face and edge "
     "sets are not read (selecting them aborts it on edgeFaceElem.exii), so those "
     "leaves are not compared; a side set it gives empty is compared by path and name "
     "only (it shows no side of a polygon or polyhedron block; the poly_totals_* cases "
     "of pvbatch_reader_np* check those sides against the faces' areas)"),
]
# Datasets whose reference is known to differ from MxNReader for a reason
# of the reference's own: file name -> (regular expression on "kind: detail"
# of the differences it explains, why). Those are reported (kind "known")
# and do not fail the dataset.
KNOWN = {
    **{f: (r"^(connectivity|coordinates|duplicates_disagree): ",
           "MODE all, side set 'left' of this 2D mesh: IOSSReader's own copies of one "
           "side-set point id disagree (id 57 at y 0.6 and 0.5 in the spread sets), and on "
           "the plain file it puts id 1 at (0, 0.1) where the file's node 1 is at (0, 0), as "
           "MxNReader has it; the element blocks' points and ids agree (MODE default)")
       for f in ("coarseGrid.e", "coarseGrid.e.4.0", "coarseGrid.e.3.0")},
    "quadratic.exo": (
        r"^(cell_count: owned cells: MxNReader 32, IOSSReader 30|cell_ids: cell keys: 0 only in "
        r"IOSSReader \(first \[\]\), 2 only in MxNReader \(first \[393221, 393222\]\)|"
        r"cell_types: cell 393217: |connectivity: cell (327684|393217)[: ]|"
        r"duplicates_disagree: IOSSReader cell 393217: )",
        "surface_7 (every side of every element): IOSSReader numbers a SHELL8's edge sides "
        "from 1 in element_side (the file's sides 3 and 5 of element 6 come out as 1 and 3), "
        "so (6, 1) names both the shell's face and an edge; MxNReader keeps the file's side "
        "numbers: the same cells. And IOSSReader starts PYRAMID13 side 4's triangle at "
        "another corner ((76 73 77 | 81 82 85) against (73 77 76 | 82 85 81): the same "
        "face, turned)"),
    "edgeFaceElem.exii": (
        r"^(point_ids|coordinates|connectivity): |^array_values: point |^cell_ids: |"
        r"^array_values: cell PHI ",
        "IOSSReader cannot read it (edge blocks of type straight2); the legacy "
        "ExodusIIReader takes its first numbered node map ('Luigi PISTILLI', 12..1) for "
        "the node ids where there is no node_num_map, MxNReader (as the Exodus API) 1..N: "
        "the same point has another id (as in sweep.py); likewise it keys faces by the "
        "file's face map and gives the edge block no ids, so node-set, side-set, edge- and "
        "face-block cell keys and the face variable PHI by key differ (MxNReader keys "
        "edges and faces by position, as IOSSReader does on a file it reads: "
        "the edge_face_sets case of pvbatch_plugin_np* compares them with IOSSReader)"),
    # testing/writers/meshio_cdl.py: meshio writes coordinates as one
    # `coord` variable and node values as vals_nod_var<k>. The Exodus library
    # under both ParaView readers takes a file without a file_size attribute
    # for its old layout (coord, and all node values in one vals_nod_var),
    # finds no vals_nod_var and shows the node arrays with whatever memory
    # held (4.7e-310, 0, ...); MxNReader reads vals_nod_var<k> (cli_writers_*
    # checks its values against the file's).
    "meshio_plain.e": (
        r"^array_values: point temperature ",
        "the Exodus library under IOSSReader finds no old-layout vals_nod_var in a meshio "
        "file and leaves the node values unset; MxNReader reads meshio's vals_nod_var1"),
    "meshio_quirks.e": (
        r"^array_values: point u ",
        "the Exodus library under IOSSReader finds no old-layout vals_nod_var in a meshio "
        "file and leaves the node values unset; MxNReader reads meshio's vals_nod_var1"),
}
MXN_OWN_FIELDS = {"mxn_load_stats", "MxNImbalanceBefore", "MxNImbalanceAfter",
                  "MxNMigratedElements", "MxNBytesReRead", "MxNRebalanceSeconds",
                  "MxNRebalanced", "MxNRebalanceStep", "MxNMeasuredSeconds",
                  "MxNLoadBalanceCost"}
GHOST = "vtkGhostType"
EXEMPT_PROPERTIES = {"StructuredBlocks", "StructuredBlockFields"}
# IOSSReader's list properties, in the order they are set in MODE all.
LISTS = ["ElementBlocks", "NodeSets", "SideSets", "EdgeBlocks", "FaceBlocks", "ElementSets",
         "FaceSets", "EdgeSets", "NodeBlockFields", "ElementBlockFields", "NodeSetFields",
         "SideSetFields", "EdgeBlockFields", "FaceBlockFields", "ElementSetFields",
         "FaceSetFields", "EdgeSetFields"]
# MxNReader's older names of IOSSReader's lists, used (after reporting the
# missing property) so that the outputs can still be compared.
ALIASES = {"NodeBlockFields": "PointArrays", "ElementBlockFields": "CellArrays"}
# ExodusIIReader (legacy reference): its output groups, and what it is asked
# for in MODE all.
LEGACY_GROUPS = {"Element Blocks": "element_blocks", "Face Blocks": "face_blocks",
                 "Edge Blocks": "edge_blocks", "Element Sets": "element_sets",
                 "Side Sets": "side_sets", "Face Sets": "face_sets", "Edge Sets": "edge_sets",
                 "Node Sets": "node_sets"}
LEGACY_ALL = ["ElementBlocks", "FaceBlocks", "EdgeBlocks", "NodeSetArrayStatus",
              "SideSetArrayStatus", "PointVariables", "ElementVariables", "FaceVariables",
              "EdgeVariables", "GlobalVariables", "NodeSetResultArrayStatus",
              "SideSetResultArrayStatus"]
LEGACY_UNREAD = ("element_sets", "face_sets", "edge_sets")
# Groups IOSSReader 5.11 lists but cannot read (it logs "Unexpected
# group_entity for GetConnectivity" and leaves the leaf empty).
IOSS_EMPTY_GROUPS = ("element_sets", "face_sets", "edge_sets")
RTOL = 1e-6
VTK_POLYHEDRON = 42
SHOWN = 4  # differences shown per FAIL line

SPREAD_MEMBER = re.compile(r"^(.*)\.([0-9]+)\.([0-9]+)$")
SEGMENT = re.compile(r"^(.*)-s([0-9]+)$")
SIGNATURES = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF")

args = [a for a in sys.argv[1:] if a != "--datasets-only"]
opts = {"--only": None, "--report": None, "--max-warnings": None}
# --datasets-only: the datasets alone, without the proxy's properties
# (pvbatch_parity_* check those; a test of other files need not again).
datasets_only = "--datasets-only" in sys.argv[1:]
for key in list(opts):
    if key in args:
        i = args.index(key)
        if i + 1 >= len(args):
            args = []
            break
        opts[key] = args[i + 1]
        del args[i:i + 2]
if len(args) < 4 or args[3] not in ("default", "all", "trace") or \
        (args[3] == "trace") != (len(args) > 4):
    print("usage: pvbatch --symmetric parity.py PLUGIN_SO SHARED_DATA GEN_DIR default|all "
          "[--only PATTERN] [--report FILE]\n"
          "       pvbatch --symmetric parity.py PLUGIN_SO SHARED_DATA GEN_DIR trace TRACE.py ...")
    sys.exit(2)
plugin, shared, gen_dir = (os.path.abspath(a) for a in args[:3])
mode = args[3]
traces = [os.path.abspath(a) for a in args[4:]]


def is_exodus(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) in SIGNATURES
    except OSError:
        return False


def walk(root):
    out = []
    for d, subdirs, names in os.walk(root):
        subdirs.sort()
        out += [os.path.join(d, n) for n in sorted(names)]
    return out


def find_datasets(root, base):
    """[(shown name, [files])]: a plain file, a spread set by member 0, an
    adaptive series by its first segment then each later one (member 0 of
    a spread segment)."""
    found = {}
    for p in walk(root):
        name = os.path.basename(p)
        m = SPREAD_MEMBER.match(name)
        if m and int(m.group(2)) > 1:
            if int(m.group(3)) != 0 or not is_exodus(p):
                continue
            stem = os.path.join(os.path.dirname(p), m.group(1))
        elif is_exodus(p):
            stem = p
        else:
            continue
        s = SEGMENT.match(stem)
        first = s.group(1) if s else stem
        if s and (os.path.isfile(first) or
                  any(SPREAD_MEMBER.match(os.path.basename(q)) and q.startswith(first + ".")
                      for q in found.get(first, []))):
            found.setdefault(first, []).append(p)
        else:
            found.setdefault(stem, []).insert(0, p)
    return [(os.path.relpath(k, base), sorted(v, key=lambda q: (SEGMENT.match(
        SPREAD_MEMBER.sub(r"\1", q)) is not None, q))) for k, v in sorted(found.items())]


todo = []
have_shared = os.path.isdir(shared)
if mode == "trace":
    # MODE trace: each TRACE.py is a script as ParaView's Python trace
    # records it against IOSSReader (the reader created with its file and
    # properties set by name); its file names start with SHARED_DATA/ or
    # GEN_DIR/, replaced by the real folders. It runs once as written and
    # once with MxNReader in place of IOSSReader, and the two readers'
    # outputs are compared as in the other modes. A trace whose data is
    # absent is skipped.
    for t in traces:
        text = open(t).read()
        needs = [(k, v) for k, v in (("SHARED_DATA/", shared), ("GEN_DIR/", gen_dir))
                 if k in text]
        if all(os.path.isdir(v) for _, v in needs):
            for k, v in needs:
                text = text.replace(k, v + "/")
            todo.append(("trace/" + os.path.basename(t), text))
elif have_shared:
    for sub in ("meshes", "nemesis", "spread"):
        if os.path.isdir(os.path.join(shared, sub)):
            todo += find_datasets(os.path.join(shared, sub), shared)
if os.path.isdir(gen_dir) and mode != "trace":
    todo += [("gen/" + n, f) for n, f in find_datasets(gen_dir, gen_dir)]
if opts["--only"]:
    todo = [(n, f) for n, f in todo if re.search(opts["--only"], n)]

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from paraview import simple  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from pvcheck import (all_keys, allgather_objects, messages, nranks, owned,  # noqa: E402
                     rank, total)


def say(text):
    if rank == 0:
        print(text)
        sys.stdout.flush()


if not have_shared:
    say("parity: %s absent: the shared datasets are skipped" % shared)
if not todo:
    say("parity: SKIP: no dataset (shared data %s, generated %s)" % (shared, gen_dir))
    sys.exit(SKIP)

LoadPlugin(plugin, remote=False, ns=globals())
report = {}  # kind -> [difference], rank 0's


class Diffs:
    """One dataset's differences, by kind; rank 0 keeps them (every rank
    holds the same gathered data, rank 0 alone compares it)."""

    def __init__(self, name):
        self.name, self.items = name, []

    def add(self, kind, text, leaf=None):
        self.items.append((kind, leaf, text))

    def flush(self):
        for kind, leaf, text in self.items:
            report.setdefault(kind, []).append(
                {"dataset": self.name, "mode": mode, "nranks": nranks, "leaf": leaf,
                 "detail": text})


class StderrCapture:
    """What this process writes to file descriptor 2 (VTK's and loguru's
    messages) while inside the block, as text; also written through."""

    def __enter__(self):
        sys.stderr.flush()
        self.tmp = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.tmp.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.tmp.seek(0)
        self.text = self.tmp.read().decode("utf-8", "replace")
        self.tmp.close()
        if self.text:
            sys.stderr.write(self.text)
        return False


def errors_in(text):
    return [" ".join(line.split("ERR|", 1)[1].split())[:300]
            for line in text.splitlines() if "ERR|" in line]


def fmt(x):
    if isinstance(x, (list, tuple, np.ndarray)):
        return "[" + ", ".join(fmt(v) for v in x) + "]"
    if isinstance(x, (float, np.floating)):
        return "%.9g" % x
    return str(x)


# --- Reading ------------------------------------------------------------------


def list_prop(proxy, name):
    p = proxy.GetProperty(name)
    return p if p is not None and hasattr(p, "Available") else None


def configure(ioss, mxn, d):
    """Selections of MODE on both proxies; the selection lists compared."""
    for name in LISTS:
        ip, mp = list_prop(ioss, name), list_prop(mxn, name)
        if ip is None:
            continue
        if mp is None and name in ALIASES:
            mp = list_prop(mxn, ALIASES[name])
        ia, ma = list(ip.Available), list(mp.Available) if mp is not None else None
        if mp is None:
            if ia:
                d.add("selection_lists", "%s: IOSSReader offers %s, MxNReader has no such list"
                      % (name, fmt(ia)))
            continue
        if sorted(ia) != sorted(ma):
            d.add("selection_lists", "%s: MxNReader offers %s, IOSSReader %s"
                  % (name, fmt(ma), fmt(ia)))
        elif ia != ma:
            d.add("selection_order", "%s: MxNReader lists %s, IOSSReader %s"
                  % (name, fmt(ma), fmt(ia)))
        if mode == "default":
            iv, mv = sorted(ip.GetData() or []), sorted(mp.GetData() or [])
            if iv != mv:
                d.add("selection_defaults", "%s selected by default: MxNReader %s, IOSSReader %s"
                      % (name, fmt(mv), fmt(iv)))
        else:
            ip.SetData(ia)
            mp.SetData(ma)
    if mode == "all":
        ioss.GenerateFileId = 1
        if mxn.GetProperty("GenerateFileId") is not None:
            mxn.GenerateFileId = 1


def open_legacy(files):
    exo = ExodusIIReader(FileName=files[:1])
    exo.UpdatePipelineInformation()
    if mode == "all":
        for name in LEGACY_ALL:
            p = list_prop(exo, name)
            if p is not None:
                p.SetData(list(p.Available))
    return exo


def times_of(proxy):
    tv = proxy.TimestepValues
    return [float(t) for t in tv] if hasattr(tv, "__iter__") else ([float(tv)] if tv else [])


def assembly_paths(out):
    """{path of every assembly node}, and {dataset index: [paths]}."""
    asm = out.GetDataAssembly()
    paths, where = set(), {}
    if asm is None:
        return paths, where

    def visit(node, path):
        paths.add(path)
        for i in asm.GetDataSetIndices(node, False):
            where.setdefault(i, []).append(path)
        for c in asm.GetChildNodes(node, False):
            visit(c, path + "/" + asm.GetNodeName(c))
    visit(0, "/" + asm.GetNodeName(0))
    return paths, where


LEGACY_UNNAMED = re.compile(r"^Unnamed (?:block|set) ID: (-?[0-9]+)")
IOSS_UNNAMED = {"element_blocks": "block_%s", "node_sets": "nodelist_%s",
                "side_sets": "surface_%s", "face_blocks": "faceblock_%s",
                "edge_blocks": "edgeblock_%s"}


def legacy_name(group, name):
    """An ExodusIIReader leaf name as IOSSReader gives it: lower case,
    blanks as '_', unnamed entities <kind>_<id> (see DELIBERATE)."""
    m = LEGACY_UNNAMED.match(name or "")
    if m:
        return IOSS_UNNAMED.get(group, group + "_%s") % m.group(1)
    return "_".join((name or "").lower().split())


def leaves_of(out, legacy):
    """{leaf path: (name, [grids])} and the set of assembly paths."""
    res = {}
    if out is None:
        return res, set()
    if legacy:
        paths = {"/IOSS"}
        for b in range(out.GetNumberOfBlocks()):
            group = LEGACY_GROUPS.get(out.GetMetaData(b).Get(out.NAME()))
            mb = out.GetBlock(b)
            if group is None or mb is None:
                continue
            if mb.GetNumberOfBlocks():
                paths.add("/IOSS/" + group)
            for c in range(mb.GetNumberOfBlocks()):
                name = legacy_name(group, mb.GetMetaData(c).Get(out.NAME()))
                path = "/IOSS/%s/%s" % (group, name)
                paths.add(path)
                g = mb.GetBlock(c)
                res[path] = (name, [g] if g is not None else [])
        return res, paths
    paths, where = assembly_paths(out)
    for i in range(out.GetNumberOfPartitionedDataSets()):
        # A block also listed under /IOSS/assemblies is known by its
        # /IOSS/<group>/<name> path; the others are compared as paths.
        at = sorted(where.get(i, []), key=lambda q: (q.startswith("/IOSS/assemblies"),
                                                     q.count("/"), q))
        path = at[0] if at else "(not in the assembly) #%d" % i
        name = out.GetMetaData(i).Get(out.NAME()) if out.HasMetaData(i) else None
        pds = out.GetPartitionedDataSet(i)
        grids = [pds.GetPartition(k) for k in range(pds.GetNumberOfPartitions())] if pds else []
        res[path] = (name, [g for g in grids if g is not None])
    return res, paths


# --- Leaves as tables ------------------------------------------------------------


def legacy_rename(group, att, kind):
    """ExodusIIReader's array names as IOSSReader's, {legacy: ours} or
    None to leave one out (see DELIBERATE)."""
    out = {}
    for k in range(att.GetNumberOfArrays()):
        n = att.GetArrayName(k)
        a = att.GetAbstractArray(k)
        if n.startswith("Pedigree") or kind == "field" or n in ("SourceElementId",
                                                                  "SourceElementSide"):
            out[n] = None
        elif n in ("GlobalNodeId", "GlobalElementId"):
            out[n] = "ids" if (n == "GlobalNodeId") == (kind == "point") and \
                (kind == "point" or group.endswith("_blocks")) else None
        elif n == "ObjectId":
            out[n] = "object_id"
        elif n.endswith("_") and a.GetNumberOfComponents() > 1:
            out[n] = n[:-1]
        else:
            out[n] = n
    return out


def numeric(a, n):
    """The values of a vtkDataArray (n tuples) as float64 (n, components),
    or None for a non-numeric array."""
    if a is None or not a.IsA("vtkDataArray"):
        return None
    v = vtk_to_numpy(a).astype(np.float64)
    return v.reshape(n, -1)


def grid_tables(group, g, legacy):
    """This grid's ({array: (kind, values)} by cell: keys and connectivity
    included; same by point; {field array: text}) in a form that can be
    gathered. Cells: owned ones only."""
    pd, cd, fd = g.GetPointData(), g.GetCellData(), g.GetFieldData()
    npts, ncells = g.GetNumberOfPoints(), g.GetNumberOfCells()
    ren = {k: legacy_rename(group, att, k) for k, att in
           (("point", pd), ("cell", cd), ("field", fd))} if legacy else None

    def arrays(att, kind, n):
        res = {}
        for k in range(att.GetNumberOfArrays()):
            name = att.GetArrayName(k)
            if name == GHOST or name is None:
                continue
            if legacy:
                name = ren[kind][name]
                if name is None:
                    continue
            a = att.GetAbstractArray(k)
            res[name] = (a.GetNumberOfComponents(), numeric(a, n) if n else np.zeros(
                (0, a.GetNumberOfComponents())), a)
        return res
    parr = arrays(pd, "point", npts)
    carr = arrays(cd, "cell", ncells)
    farr = arrays(fd, "field", None)
    own = owned(g) if ncells else np.zeros(0, bool)
    if legacy and group == "side_sets" and cd.GetArray("SourceElementId") is not None and ncells:
        es = np.column_stack([vtk_to_numpy(cd.GetArray("SourceElementId")).astype(np.float64),
                              vtk_to_numpy(cd.GetArray("SourceElementSide")) + 1.0])
        carr["element_side"] = (2, es, None)
    # Cell keys, types and connectivity by global node ids.
    pids = parr.get("ids", (1, None, None))[1]
    pid = pids[:, 0] if pids is not None and len(pids) else np.full(npts, np.nan)
    types = np.array([g.GetCellType(c) for c in range(ncells)], dtype=np.float64) \
        if ncells and not hasattr(g, "GetCellTypesArray") else (
            vtk_to_numpy(g.GetCellTypesArray()).astype(np.float64) if ncells else np.zeros(0))
    if ncells and hasattr(g, "GetCells") and g.GetCells() is not None:
        cells = g.GetCells()
        off = vtk_to_numpy(cells.GetOffsetsArray()).astype(np.int64)
        conn = vtk_to_numpy(cells.GetConnectivityArray()).astype(np.int64)
        size = np.diff(off).astype(np.float64)
        pos = np.arange(conn.size) - np.repeat(off[:-1], np.diff(off))
        # Node ids in order; a polyhedron's point list has no defined order
        # (its faces define it): there, the ids as a set (see DELIBERATE).
        poly = np.repeat(types == VTK_POLYHEDRON, np.diff(off))
        ids = pid[conn] if conn.size else np.zeros(0)
        weighted = np.where(poly, ids * (np.mod(ids, 97) + 1), ids * (pos + 1))
        sig = np.add.reduceat(weighted, off[:-1]) if conn.size else np.zeros(ncells)
        sig[size == 0] = 0
        first = np.full(ncells, -1.0)
        nz = size > 0
        first[nz] = pid[conn[off[:-1][nz]]]
    else:
        size, sig, first = np.zeros(ncells), np.zeros(ncells), np.full(ncells, -1.0)
    if "ids" in carr and carr["ids"][1] is not None:
        key = carr["ids"][1][:, 0]
    elif "element_side" in carr and carr["element_side"][1] is not None:
        es = carr["element_side"][1]
        key = es[:, 0] * 65536 + es[:, 1] if len(es) else np.zeros(0)
    elif ncells and np.all(size == 1):
        key = first.astype(np.float64)
    else:
        key = np.full(ncells, np.nan)
    cols = {"#key": key, "#type": types, "#nodes": size, "#conn": sig}
    cell_tab = {k: v[own] for k, v in cols.items()}
    for name, (nc, vals, _) in carr.items():
        if vals is not None:
            cell_tab[name] = vals[own] if len(vals) else vals
    pt = {"#id": pid}
    if npts:
        pts = vtk_to_numpy(g.GetPoints().GetData()).astype(np.float64).reshape(npts, -1)
        pt["#xyz"] = pts
    else:
        pt["#xyz"] = np.zeros((0, 3))
    for name, (nc, vals, _) in parr.items():
        if vals is not None:
            pt[name] = vals
    layouts = {"point": {n: v[0] for n, v in parr.items()},
               "cell": {n: v[0] for n, v in carr.items()},
               "field": {n: v[0] for n, v in farr.items()}}
    return cell_tab, pt, layouts, int(own.sum())


def local_leaf(group, grids, legacy):
    """This rank's part of a leaf: per piece its layouts (pieces with
    points or cells only: see DELIBERATE), owned cells, cell and point
    tables."""
    res = {"lay": [], "count": 0, "cells": [], "points": []}
    for g in grids:
        cells, points, lay, n = grid_tables(group, g, legacy)
        if g.GetNumberOfPoints() or g.GetNumberOfCells():
            res["lay"].append(lay)
        res["count"] += n
        res["cells"].append(cells)
        res["points"].append(points)
    return res


def merge_leaf(parts):
    """The leaf over the ranks from every rank's local_leaf: layouts
    ({kind: {name: [component counts seen]}}), owned cells, and cell /
    point tables (matrix, {column: (first, width)}; columns: key, then
    each array's components, NaN where a piece lacks the array)."""
    lay = {"point": {}, "cell": {}, "field": {}}
    for part in parts:
        for pl in part["lay"]:
            for kind, arrays in pl.items():
                for n, c in arrays.items():
                    seen = lay[kind].setdefault(n, [])
                    if c not in seen:
                        seen.append(c)
    count = sum(part["count"] for part in parts)

    def table(which, base, kind):
        width = [(n, cs[0]) for n, cs in sorted(lay[kind].items())
                 if len(cs) == 1 and n not in base]
        w = sum(base.values()) + sum(c for _, c in width)
        rows = []
        for part in parts:
            for tab in part[which]:
                n = len(tab[next(iter(base))])
                if not n:
                    continue
                cols = [np.asarray(tab[b], np.float64).reshape(n, bw) for b, bw in base.items()]
                for name, c in width:
                    v = tab.get(name)
                    cols.append(np.asarray(v, np.float64).reshape(n, c) if v is not None
                                and v.size == n * c else np.full((n, c), np.nan))
                rows.append(np.hstack(cols))
        layout, at = {}, 0
        for name, c in list(base.items()) + width:
            layout[name] = (at, c)
            at += c
        return (np.vstack(rows) if rows else np.zeros((0, w))), layout
    return {"layout": lay, "count": count,
            "cells": table("cells", {"#key": 1, "#type": 1, "#nodes": 1, "#conn": 1}, "cell"),
            "points": table("points", {"#id": 1, "#xyz": 3}, "point")}


def local_fields(out):
    """This rank's collection field data: {name: (components, [values as
    text])}, MxN's own counters left out (see DELIBERATE)."""
    res = {}
    fd = out.GetFieldData() if out is not None else None
    for k in range(fd.GetNumberOfArrays() if fd else 0):
        a = fd.GetAbstractArray(k)
        if a.GetName() in MXN_OWN_FIELDS:
            continue
        vals = [a.GetVariantValue(i).ToString() for i in range(a.GetNumberOfValues())]
        res[a.GetName()] = (a.GetNumberOfComponents(), [
            v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in vals])
    return res


def merge_fields(parts):
    """{name: [(components, values)] one entry per distinct content over
    the ranks}."""
    res = {}
    for part in parts:
        for n, v in part.items():
            seen = res.setdefault(n, [])
            if v not in seen:
                seen.append(v)
    return res


# --- Comparing (rank 0) -------------------------------------------------------------


def close(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    scale = np.maximum(np.abs(a), np.abs(b))
    return both_nan | (np.abs(a - b) <= RTOL * scale) | (a == b)


def dedupe(mat, keycol, what, leaf, d, reader, skip=None):
    """Rows by key: the first of each, after checking that duplicates
    agree (the IOSSReader spread-set duplicates; see DELIBERATE)."""
    if not len(mat):
        return {}, mat
    keys = mat[:, keycol]
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    firsts = np.concatenate([[True], k[1:] != k[:-1]])
    uniq = mat[order][firsts]
    dup = ~firsts
    if dup.any():
        idx = np.cumsum(firsts) - 1
        rep = uniq[idx[dup]]
        same = close(mat[order][dup], rep)
        if skip is not None:
            same[:, skip] = True  # file_id names the file each copy came from
        bad = ~np.all(same, axis=1)
        if bad.any():
            j = np.flatnonzero(bad)[0]
            d.add("duplicates_disagree", "%s %s %d: copies differ: %s vs %s" % (
                reader, what, int(k[dup][j]), fmt(mat[order][dup][j][:8]),
                fmt(rep[j][:8])), leaf)
    return {float(x): i for i, x in enumerate(uniq[:, keycol])}, uniq


def compare_table(kind, leaf, ref, got, d, refname):
    """Cell or point tables of one leaf: key sets, then every column."""
    (rm, rl), (mm, ml) = ref, got
    keyname = "#key" if kind == "cell" else "#id"
    skip = list(range(rl["file_id"][0], rl["file_id"][0] + rl["file_id"][1])) \
        if "file_id" in rl else None
    ri, rr = dedupe(rm, rl[keyname][0], kind, leaf, d, refname, skip)
    mi, mr = dedupe(mm, ml[keyname][0], kind, leaf, d, "MxNReader")
    if kind == "cell" and len(mm) != len(mr):
        d.add("cell_ids", "MxNReader gives %d owned cells for %d distinct keys"
              % (len(mm), len(mr)), leaf)
    nokey = [who for who, keys in ((refname, ri), ("MxNReader", mi))
             if any(np.isnan(k) for k in keys)]
    if nokey:
        d.add("cell_ids" if kind == "cell" else "point_ids", "%s: no %s key (%s)" % (
            " and ".join(nokey), kind, "ids, element_side or a vertex's node id"
            if kind == "cell" else "point ids"), leaf)
        return
    rk, mk = set(ri), set(mi)
    if rk != mk:
        only_r, only_m = sorted(rk - mk), sorted(mk - rk)
        d.add("cell_ids" if kind == "cell" else "point_ids",
              "%s keys: %d only in %s (first %s), %d only in MxNReader (first %s)"
              % (kind, len(only_r), refname, fmt([int(x) for x in only_r[:5]]), len(only_m),
                 fmt([int(x) for x in only_m[:5]])), leaf)
    common = sorted(rk & mk)
    if not common:
        return
    ra = rr[[ri[k] for k in common]]
    ma = mr[[mi[k] for k in common]]
    for col in sorted(set(rl) & set(ml)):
        if col == keyname:
            continue
        (r0, rw), (m0, mw) = rl[col], ml[col]
        if rw != mw:
            continue  # reported with the layouts
        a, b = ra[:, r0:r0 + rw], ma[:, m0:m0 + mw]
        ok = np.all(close(a, b), axis=1)
        if not ok.all():
            j = np.flatnonzero(~ok)
            what = {"#xyz": ("coordinates", "point %d: MxNReader %s, %s %s"),
                    "#type": ("cell_types", "cell %d: MxNReader type %s, %s %s"),
                    "#nodes": ("connectivity", "cell %d: MxNReader %s nodes, %s %s"),
                    "#conn": ("connectivity", "cell %d: node ids in order differ "
                              "(signature MxNReader %s, %s %s)")}.get(
                col, ("array_values", "%s %s %%d: MxNReader %%s, %%s %%s" % (kind, col)))
            d.add(what[0], (what[1] % (int(common[j[0]]), fmt(b[j[0]]), refname, fmt(a[j[0]])))
                  + " (%d of %d differ)" % (j.size, len(common)), leaf)


def compare_leaf(path, ref, got, d, refname):
    for kind in ("point", "cell", "field"):
        rl, ml = ref["layout"][kind], got["layout"][kind]
        for n in sorted(set(rl) - set(ml)):
            d.add("array_missing", "%s array %s (%s components) absent" % (kind, n, fmt(rl[n])),
                  path)
        for n in sorted(set(ml) - set(rl)):
            if refname == "ExodusIIReader" and kind == "cell":
                continue  # its proxy offers no element attributes (see DELIBERATE)
            d.add("array_extra", "%s array %s (%s components) not in %s" % (
                kind, n, fmt(ml[n]), refname), path)
        for n in sorted(n for n in ml if len(ml[n]) > 1):
            d.add("array_components", "%s array %s: MxNReader's pieces have %s components"
                  % (kind, n, fmt(ml[n])), path)
        for n in sorted(set(rl) & set(ml)):
            if rl[n] != ml[n]:
                d.add("array_components", "%s array %s: MxNReader %s components, %s %s"
                      % (kind, n, fmt(ml[n]), refname, fmt(rl[n])), path)
    # The reference's distinct cells (IOSSReader's node-set members come
    # once per file of a spread set, see DELIBERATE).
    nref = len(dedupe(ref["cells"][0], ref["cells"][1]["#key"][0], "cell", path, Diffs(""),
                      "")[1])
    if got["count"] != nref:
        d.add("cell_count", "owned cells: MxNReader %d, %s %d" % (got["count"], refname, nref),
              path)
    compare_table("cell", path, ref["cells"], got["cells"], d, refname)
    compare_table("point", path, ref["points"], got["points"], d, refname)


def compare_fields(ref, got, d, refname):
    for n in sorted(set(ref) - set(got)):
        d.add("field_data_missing", "collection field data %s (%s) absent" % (
            n, " ".join(ref[n][0][1])[:80]))
    for n in sorted(set(got) - set(ref)):
        d.add("field_data_extra", "collection field data %s not in %s" % (n, refname))
    for n in sorted(set(ref) & set(got)):
        if len(got[n]) > 1:
            d.add("field_data_values", "%s differs between ranks in MxNReader" % n)
        (rc, rv), (mc, mv) = ref[n][0], got[n][0]
        if rc != mc or len(rv) != len(mv):
            d.add("field_data_values", "%s: MxNReader %d values of %d components, %s %d of %d"
                  % (n, len(mv), mc, refname, len(rv), rc))
            continue
        for i, (a, b) in enumerate(zip(rv, mv)):
            if a == b:
                continue
            try:
                same = bool(close(float(a), float(b)))
            except ValueError:
                same = False
            if not same:
                d.add("field_data_values", "%s value %d: MxNReader %r, %s %r" % (
                    n, i, b[:80], refname, a[:80]))
                break


# --- One dataset ----------------------------------------------------------------------


def properties_check():
    """Once per run: IOSSReader's settable properties MxNReader lacks, and
    the defaults of those both have."""
    d = Diffs("proxy")
    mesh = todo[0][1][0]
    ioss, mxn = IOSSReader(FileName=[mesh]), MxNReader(FileName=[mesh])
    it = ioss.SMProxy.NewPropertyIterator()
    it.Begin()
    while not it.IsAtEnd():
        key, prop = it.GetKey(), it.GetProperty()
        it.Next()
        if prop.GetInformationOnly() or key in EXEMPT_PROPERTIES or key == "FileName":
            continue
        mine = mxn.GetProperty(key)
        if mine is None:
            d.add("property_missing", "%s (IOSSReader default %s)" % (
                key, fmt(list(ioss.GetProperty(key).GetData()) if hasattr(
                    ioss.GetProperty(key).GetData(), "__iter__") and not isinstance(
                    ioss.GetProperty(key).GetData(), str) else ioss.GetProperty(key).GetData())))
            continue
        if list_prop(ioss, key) is None:
            a, b = ioss.GetProperty(key).GetData(), mine.GetData()
            if str(a) != str(b):
                d.add("property_default", "%s: MxNReader %s, IOSSReader %s" % (key, b, a))
    Delete(mxn)
    Delete(ioss)
    return d


def select_all_mxn(mxn):
    """MODE all on MxNReader alone (the legacy reference's case)."""
    for name in LISTS:
        mp = list_prop(mxn, name)
        if mp is None and name in ALIASES:
            mp = list_prop(mxn, ALIASES[name])
        if mp is not None:
            mp.SetData(list(mp.Available))
    if mxn.GetProperty("GenerateFileId") is not None:
        mxn.GenerateFileId = 1


def numbered_maps(path):
    """The names of the numbered maps of an Exodus file (node, edge, face,
    element), read with ncdump; [] where there are none or ncdump is
    absent."""
    import subprocess
    names = []
    for var in ("nmap_names", "edmap_names", "famap_names", "emap_names"):
        try:
            out = subprocess.run(["ncdump", "-v", var, path], capture_output=True, text=True,
                                 timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return names
        data = out.split("data:", 1)[1] if "data:" in out else ""
        names += re.findall(r'"([^"]*)"', data)
    return [n for n in names if n]


def run_trace(text, proxy_name):
    """Run a trace with `proxy_name` in place of IOSSReader; the reader it
    makes (the one source proxy it creates)."""
    before = set(simple.GetSources().values())
    ns = dict(globals())  # paraview.simple's names and the plugin's MxNReader
    exec(compile(text.replace("IOSSReader(", proxy_name + "("), "trace", "exec"), ns)
    made = [p for p in simple.GetSources().values() if p not in before]
    if len(made) != 1:
        raise RuntimeError("the trace made %d sources, expected its one reader" % len(made))
    return made[0]


def run(name, files):
    d = Diffs(name)
    note = ""
    trace = files if isinstance(files, str) else None
    with StderrCapture() as cap:
        if trace:
            ioss = run_trace(trace, "IOSSReader")
        else:
            ioss = IOSSReader(FileName=list(files))
        ioss.UpdatePipelineInformation()
    mxn = run_trace(trace, "MxNReader") if trace else MxNReader(FileName=[files[0]])
    if trace:
        files = list(ioss.FileName)
    merr = messages(mxn)
    mwarn = messages(mxn, "WarningEvent")
    ierr = errors_in(cap.text)
    # IOSSReader asked for data after its RequestInformation failed aborts
    # the process (an assertion): such a dataset goes to the legacy reader
    # at once.
    legacy = total(len(ierr)) > 0
    if trace and legacy:
        raise RuntimeError("IOSSReader cannot read the trace's dataset %s" % files[0])
    if not legacy:
        if not trace:
            configure(ioss, mxn, d)
        t_ref = times_of(ioss)
        t = t_ref[-1] if t_ref else 0.0
        with StderrCapture() as cap2:
            ioss.UpdatePipeline(t)
        ierr = errors_in(cap2.text)
        iout = ioss.GetClientSideObject().GetOutputDataObject(0)
        icells = total(iout.GetNumberOfCells() if iout is not None else 0)
        legacy = total(len(ierr)) > 0 or icells == 0
    elif mode == "all":
        select_all_mxn(mxn)
    ref = ioss
    refname = "IOSSReader"
    if legacy:
        first = all_keys(ierr[:1])
        note = " (reference ExodusIIReader: IOSSReader %s)" % (
            ("error: " + first[0][:160]) if first else "gives no cell")
        refname = "ExodusIIReader"
        # IOSSReader's lists are those of a reader that failed; the legacy
        # reader names its lists otherwise (see DELIBERATE).
        d.items = [x for x in d.items if not x[0].startswith("selection_")]
        Delete(ioss)
        ref = open_legacy(files)
        t_ref = times_of(ref)
        t = t_ref[-1] if t_ref else 0.0
        ref.UpdatePipeline(t)
    t_m = times_of(mxn)
    if len(t_m) != len(t_ref) or not np.all(close(t_m, t_ref)):
        d.add("timesteps", "TimestepValues: MxNReader %s, %s %s" % (fmt(t_m), refname,
                                                                     fmt(t_ref)))
    mxn.UpdatePipeline(t)
    mout = mxn.GetClientSideObject().GetOutputDataObject(0)
    rout = ref.GetClientSideObject().GetOutputDataObject(0)
    merrs = all_keys(merr[:3])
    for e in merrs:
        d.add("reader_errors", "MxNReader: %s" % e[:300])
    if opts["--max-warnings"] is not None and not trace:
        # Writers' hints (issue 58): a file whose hints are wrong opens with
        # at most this many warnings, each naming the file it is about.
        nwarn, warns = total(len(mwarn)), all_keys(mwarn)
        if nwarn > int(opts["--max-warnings"]):
            d.add("warnings", "MxNReader gave %d warnings (at most %s): %s" % (
                nwarn, opts["--max-warnings"], fmt([w[:200] for w in warns])))
        stem = SPREAD_MEMBER.sub(r"\1", os.path.basename(files[0]))
        for w in warns:
            if stem not in w:
                d.add("warnings", "MxNReader's warning does not name %s: %s" % (stem, w[:300]))
    rleaves, rpaths = leaves_of(rout, legacy)
    mleaves, mpaths = leaves_of(mout, False)
    rp, mp = all_keys(rpaths), all_keys(mpaths)
    if legacy:
        # (ExodusIIReader on a rank with nothing of a block names it "": a
        # path ending in "/")
        rp, mp = ([p for p in x if not p.endswith("/") and
                   not any(p.startswith("/IOSS/" + g) for g in LEGACY_UNREAD)]
                  for x in (rp, mp))
    if rp != mp:
        d.add("assembly", "data-assembly paths only in %s: %s; only in MxNReader: %s" % (
            refname, fmt(sorted(set(rp) - set(mp))[:6]), fmt(sorted(set(mp) - set(rp))[:6])))
    rk = all_keys(["%s\t%s" % (p, v[0]) for p, v in rleaves.items()])
    mk = all_keys(["%s\t%s" % (p, v[0]) for p, v in mleaves.items()])
    rnames = dict(k.split("\t", 1) for k in rk)
    mnames = dict(k.split("\t", 1) for k in mk)
    if legacy:
        rnames, mnames = ({p: v for p, v in x.items() if not p.endswith("/") and
                           not any(p.startswith("/IOSS/" + g + "/") for g in LEGACY_UNREAD)}
                          for x in (rnames, mnames))
    for p in sorted(set(rnames) - set(mnames)):
        d.add("leaf_missing", "leaf absent from MxNReader's output", p)
    for p in sorted(set(mnames) - set(rnames)):
        d.add("leaf_extra", "leaf not in %s's output" % refname, p)
    for p in sorted(set(rnames) & set(mnames)):
        if rnames[p] != mnames[p]:
            d.add("leaf_name", "name %r, %s %r" % (mnames[p], refname, rnames[p]), p)
    # Everything each rank holds, gathered in one exchange per reader.
    common = sorted(set(rnames) & set(mnames))
    group = {p: (p.split("/")[2] if p.count("/") >= 3 else "") for p in common}
    mine_r = {"leaves": {p: local_leaf(group[p], rleaves.get(p, (None, []))[1], legacy)
                         for p in common}, "fields": local_fields(rout)}
    all_r = allgather_objects(mine_r)
    mine_m = {"leaves": {p: local_leaf(group[p], mleaves.get(p, (None, []))[1], False)
                         for p in common}, "fields": local_fields(mout)}
    all_m = allgather_objects(mine_m)
    if rank == 0:
        for p in common:
            a = merge_leaf([x["leaves"][p] for x in all_r])
            if legacy and group[p] == "side_sets" and not a["count"]:
                continue  # ExodusIIReader's empty poly side sets (see DELIBERATE)
            if not legacy and group[p] in IOSS_EMPTY_GROUPS:
                continue  # sets IOSSReader 5.11 cannot read (see DELIBERATE)
            if legacy and mode == "default" and group[p] in ("edge_blocks", "face_blocks") \
                    and not a["count"]:
                continue  # the legacy reader's default leaves them unread (see DELIBERATE)
            compare_leaf(p, a, merge_leaf([x["leaves"][p] for x in all_m]), d, refname)
        if not legacy:
            compare_fields(merge_fields([x["fields"] for x in all_r]),
                           merge_fields([x["fields"] for x in all_m]), d, refname)
    if legacy:
        # ExodusIIReader shows the file's numbered maps as arrays, which
        # IOSSReader (and MxNReader after it) do not (see DELIBERATE).
        maps = numbered_maps(files[0])
        d.items = [x for x in d.items if not (x[0] == "array_missing" and any(
            x[2].startswith("%s array %s (" % (k, m)) for k in ("point", "cell") for m in maps))]
    Delete(mxn)
    Delete(ref)
    return d, note


failed = []
t_all = time.time()
runs = ([] if mode == "trace" or datasets_only else [("proxy", None)]) + todo
for name, files in runs:
    t0 = time.time()
    try:
        if files is None:
            d, note = properties_check(), ""
        else:
            d, note = run(name, files)
    except Exception:
        # Perhaps on this rank only, the others waiting in a collective:
        # end the job rather than hang.
        print("parity: rank %d: %s raised:\n%s" % (rank, name, traceback.format_exc()))
        sys.stdout.flush()
        os._exit(1)
    known = KNOWN.get(os.path.basename(files[0])) if files and not isinstance(files, str) else None
    if known and rank == 0:
        kept = [x for x in d.items if not re.search(known[0], "%s: %s" % (x[0], x[2]))]
        if len(kept) < len(d.items):
            note += "; known: %d differences, %s" % (len(d.items) - len(kept), known[1][:90])
            d.items = kept + [("known", leaf, "%s: %s" % (k, text)) for k, leaf, text in
                              d.items if (k, leaf, text) not in kept]
    ndiff = total(len([x for x in d.items if x[0] != "known"]) if rank == 0 else 0)
    if rank == 0:
        d.flush()
        if ndiff:
            failed.append(name)
            shown = "; ".join(("%s %s: %s" % (k, leaf, text)) if leaf else ("%s: %s" % (k, text))
                              for k, leaf, text in [x for x in d.items if x[0] != "known"][:SHOWN])
            more = " (+%d more)" % (ndiff - SHOWN) if ndiff > SHOWN else ""
            say("FAIL %s[%s]: %s%s%s" % (name, mode, shown, more, note))
        else:
            say("PASS %s[%s]%s (%.1f s)" % (name, mode, note, time.time() - t0))

nfail = total(len(failed))
if rank == 0:
    if opts["--report"]:
        with open(opts["--report"], "w") as f:
            json.dump({"mode": mode, "nranks": nranks, "datasets": [n for n, _ in runs],
                       "failed": failed, "deliberate": DELIBERATE,
                       "differences": {k: v for k, v in sorted(report.items())}}, f, indent=1)
    say("parity[%s, N=%d]: %d datasets, %d failed, %.1f s%s" % (
        mode, nranks, len(runs), nfail, time.time() - t_all,
        "; report " + opts["--report"] if opts["--report"] else ""))
sys.stdout.flush()
if nfail:
    sys.exit(1)
