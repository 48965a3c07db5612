"""Check a dataset's totals, as ParaView's own readers see them, against the
JSON printed by `mxn info --json`.

usage: pvbatch check_totals.py DATASET_FILE EXPECTED_JSON [--readers NAME[,NAME]]

DATASET_FILE is a plain Exodus file or a member of a spread set
(`mesh.e.4.0`); both ExodusIIReader and IOSSReader read the whole set from
any member (ExodusIIReader is given member 0: see first_member()). Each
reader is run with every element block and every nodal, element and global
variable enabled, and no node/side sets (their cells would add to the
count). Checked per reader:

  * cells over all element blocks   == num_elements
  * distinct global node ids        == num_nodes
    (ExodusIIReader: point array 'GlobalNodeId'; IOSSReader: point array 'ids')
  * time values                     == times
  * every nodal / element variable of the JSON is an array (a component of a
    vector the reader grouped, e.g. VX VY VZ -> V, counts as present)

Run it on one rank (no mpiexec). Prints one line per reader. Exit codes:
0 pass, 1 mismatch or reader error, 2 bad usage, 77 skipped (the directory
of DATASET_FILE is absent).
"""
import json
import os
import re
import sys

from timesteps import as_list, same_times

SKIP = 77

# Suffixes the readers strip when they group scalar variables into vectors
# and tensors (VX VY VZ -> V, stress_xx ... -> stress).
COMPONENT_SUFFIXES = {"x", "y", "z", "xx", "yy", "zz", "xy", "yz", "zx", "xz", "yx",
                      "zy", "r", "t", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

# Per reader: proxy name, block selection (all on), variable selections (all
# on), selections switched off (sets and edge/face blocks, whose cells would
# add to the count), and the point array holding global node ids.
READERS = [
    ("ExodusIIReader", "ElementBlocks",
     ["PointVariables", "ElementVariables", "GlobalVariables"],
     ["NodeSetArrayStatus", "SideSetArrayStatus", "EdgeBlocks", "FaceBlocks",
      "ElementSetArrayStatus", "EdgeSetArrayStatus", "FaceSetArrayStatus"],
     "GlobalNodeId"),
    ("IOSSReader", "ElementBlocks",
     ["NodeBlockFields", "ElementBlockFields"],
     ["NodeSets", "SideSets", "EdgeBlocks", "FaceBlocks", "ElementSets",
      "EdgeSets", "FaceSets", "StructuredBlocks"],
     "ids"),
]


# A spread-set member: base name, part count M, zero-padded rank.
SPREAD_MEMBER = re.compile(r"^(.*)\.([0-9]+)\.([0-9]+)$")


def first_member(dataset):
    """Member 0 of the spread set DATASET belongs to (same zero padding), or
    DATASET itself. ParaView 5.11's ExodusIIReader, opened on any other
    member, reads every file's mesh but silently drops the nodal and element
    variables (it still lists them as available)."""
    m = SPREAD_MEMBER.match(dataset)
    if not m:
        return dataset
    zero = "%s.%s.%s" % (m.group(1), m.group(2), "0" * len(m.group(3)))
    return zero if os.path.isfile(zero) else dataset


def find_variable(name, arrays):
    """'exact', 'case' (differs in case only), 'component' or None.
    arrays: {array name: number of components}."""
    if name in arrays:
        return "exact"
    lower = {a.lower(): n for a, n in arrays.items()}
    if name.lower() in lower:
        return "case"
    for a, n in lower.items():
        if n > 1 and name.lower().startswith(a):
            rest = name.lower()[len(a):].lstrip("_")
            if rest in COMPONENT_SUFFIXES:
                return "component"
    return None


def check_reader(simple, servermanager, spec, dataset, expected):
    """Returns (ok, summary line)."""
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from pvcheck import leaves, messages

    proxy_name, blocks_prop, var_props, off_props, gid_name = spec
    opened = first_member(dataset) if proxy_name == "ExodusIIReader" else dataset

    # Build the proxy without a file first so the observer sees the errors of
    # the first RequestInformation (paraview.simple's constructor runs it at
    # once). After a failed RequestInformation the reader is left alone:
    # IOSSReader then trips an assertion and aborts pvbatch.
    reader = getattr(servermanager.sources, proxy_name)()
    errors = messages(reader)
    reader.FileName = [opened]
    reader.UpdatePipelineInformation()
    if errors:
        return False, "FAIL %s: cannot read %s: %s" % (
            proxy_name, os.path.basename(opened), " | ".join(errors)[:600])
    # Everything the file offers, whatever the reader's defaults are.
    for p in [blocks_prop] + var_props:
        prop = reader.GetProperty(p)
        prop.SetData(list(prop.Available))
    for p in off_props:
        prop = reader.GetProperty(p)
        if prop is not None:
            prop.SetData([])
    if proxy_name == "IOSSReader":
        # Keep every node of a file (a node no element uses is still a node).
        reader.RemoveUnusedPoints = 0
    times = as_list(reader.TimestepValues)
    reader.UpdatePipeline(times[0] if times else 0.0)

    # Merged view (the count the user sees after MergeBlocks); points are not
    # merged by position, only the global ids say which points are the same.
    merge = simple.MergeBlocks(Input=reader)
    merge.MergePoints = 0
    merge.UpdatePipeline(times[0] if times else 0.0)
    merged = merge.GetClientSideObject().GetOutputDataObject(0)

    # Arrays are collected per block: MergeBlocks keeps only those present on
    # every block, and an element variable may live on some blocks only.
    data = reader.GetClientSideObject().GetOutputDataObject(0)
    point_arrays, cell_arrays, field_arrays = {}, {}, {}

    def collect(attrs, out):
        for i in range(attrs.GetNumberOfArrays()):
            a = attrs.GetAbstractArray(i)
            out[a.GetName()] = a.GetNumberOfComponents()

    cells_in_blocks = 0
    collect(data.GetFieldData(), field_arrays)
    for leaf in leaves(data):
        cells_in_blocks += leaf.GetNumberOfCells()
        collect(leaf.GetPointData(), point_arrays)
        collect(leaf.GetCellData(), cell_arrays)
        collect(leaf.GetFieldData(), field_arrays)

    problems = ["reader errors: " + " | ".join(errors)[:600]] if errors else []
    num_cells = merged.GetNumberOfCells() if merged else -1
    if num_cells != cells_in_blocks:
        problems.append("MergeBlocks has %d cells, the blocks %d" % (num_cells, cells_in_blocks))
    if num_cells != expected["num_elements"]:
        problems.append("cells %d != num_elements %d" % (num_cells, expected["num_elements"]))

    gids = merged.GetPointData().GetArray(gid_name) if merged else None
    if gids is None:
        num_nodes = -1
        problems.append("no point array '%s' (point arrays: %s)"
                        % (gid_name, sorted(point_arrays)))
    else:
        num_nodes = int(np.unique(vtk_to_numpy(gids)).size)
        if num_nodes != expected["num_nodes"]:
            problems.append("distinct %s %d != num_nodes %d"
                            % (gid_name, num_nodes, expected["num_nodes"]))

    exp_times = [float(t) for t in expected["times"]]
    if not same_times(times, exp_times):
        problems.append("time values %d %s... != expected %d %s..."
                        % (len(times), times[:4], len(exp_times), exp_times[:4]))

    variables = expected.get("variables", {})
    matched = {"exact": 0, "case": 0, "component": 0}
    for kind, arrays in (("nodal", point_arrays), ("element", cell_arrays)):
        for v in variables.get(kind, []):
            how = find_variable(v, arrays)
            if how is None:
                problems.append("%s variable '%s' is no array (arrays: %s)"
                                % (kind, v, ", ".join(sorted(arrays)[:12])))
            else:
                matched[how] += 1
    # Global variables are reported, not required: the readers keep them in
    # field data in different places.
    glob_found = sum(1 for v in variables.get("global", [])
                     if find_variable(v, field_arrays))

    line = ("%s %s: cells %d, nodes %d (distinct %s), %d times, variables "
            "%d exact + %d case-only + %d as vector components, globals %d/%d"
            % ("FAIL" if problems else "PASS", proxy_name, num_cells, num_nodes,
               gid_name, len(times), matched["exact"], matched["case"],
               matched["component"], glob_found, len(variables.get("global", []))))
    if opened != dataset:
        line += " (opened %s)" % os.path.basename(opened)
    if problems:
        line += ": " + "; ".join(problems)
    simple.Delete(merge)
    del reader
    return not problems, line


def main(argv):
    # --readers NAME[,NAME]: check only these readers (default: all).
    only = None
    if len(argv) == 5 and argv[3] == "--readers":
        only = set(argv[4].split(","))
        argv = argv[:3]
    if len(argv) != 3:
        print("usage: pvbatch check_totals.py DATASET_FILE EXPECTED_JSON [--readers NAME[,NAME]]")
        return 2
    dataset, expected_path = os.path.abspath(argv[1]), argv[2]
    if not os.path.isdir(os.path.dirname(dataset)):
        print("check_totals: SKIP: data directory %s not found" % os.path.dirname(dataset))
        return SKIP
    try:
        with open(expected_path) as f:
            expected = json.load(f)
        for key in ("num_nodes", "num_elements", "times"):
            expected[key]
    except (OSError, ValueError, KeyError) as e:
        print("check_totals: FAIL: cannot use %s: %r" % (expected_path, e))
        return 1
    if not os.path.isfile(dataset):
        print("check_totals: FAIL: %s is not a file" % dataset)
        return 1

    import paraview.simple as simple
    from paraview import servermanager
    if servermanager.ActiveConnection.GetNumberOfDataPartitions() > 1:
        # The data are inspected through the client-side objects, which hold
        # only rank 0's piece.
        print("check_totals: FAIL: run pvbatch on one rank (without mpiexec)")
        return 2
    ok = True
    for spec in READERS:
        if only is not None and spec[0] not in only:
            continue
        good, line = check_reader(simple, servermanager, spec, dataset, expected)
        ok = ok and good
        print("check_totals: %s: %s" % (os.path.basename(dataset), line))
    return 0 if ok else 1


if __name__ == "__main__":
    rc = main(sys.argv)
    # Success falls off the end: under mpiexec, SystemExit ends pvbatch before
    # it finalizes MPI and mpiexec reports the job as failed.
    if rc:
        sys.exit(rc)
