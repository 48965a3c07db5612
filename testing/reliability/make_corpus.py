#!/usr/bin/env python3
"""Bad-input corpus for the collective load: broken datasets, map files and
options, made from good data (mxn_gen + mxn split) by editing copies.

usage: make_corpus.py MXN MXN_GEN OUTDIR

Writes OUTDIR/<case>/... and OUTDIR/cases.json, a list of cases:

  name      unique name
  group     "data" (a broken dataset), "map" (a broken --map file),
            "opts" (out-of-range options), "midread" (a member broken
            between the open and a later time step)
  dataset   path of the dataset to open (relative to OUTDIR)
  args      extra arguments of `mxn repart` and `mxn stats`
  cmds      which of repart / stats run (both unless said)
  rc        the exit code every rank must return (1 bad data, 2 bad usage)
  err       substrings rank 0's stderr must contain (file, block, line...)
  plugin    None (not applicable: the reader has no such option) or
            {"error": [substrings]} (the reader must report one error
            naming these) or {"cells": total} (it must read that many cells
            over all ranks)
  check     for cases that succeed: {"same_as": DATASET}: the repart
            output, joined, must equal DATASET (`mxn diff`);
            {"elements": n}: `mxn stats --json` must count n elements,
            {"owned": [..]}: and give these owned counts per rank;
            {"nonempty": 1}: no rank may own 0 elements
  runas     "nobody": run as uid 65534 (a permission case that root would
            read anyway)
  why       what the case is and why the expected result is the right one
  known_gap (optional) why MxN does not yet give the expected result: the
            case is run and reported as GAP, not counted as a failure

Every case is also run by run_corpus.py under `timeout`: exit 124 (hang) or
>= 128 (signal) fails whatever was expected.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nced  # noqa: E402

if len(sys.argv) != 4:
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    sys.exit(2)
MXN, GEN, OUT = (os.path.abspath(a) for a in sys.argv[1:])
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
os.chdir(OUT)


def run(*cmd):
    subprocess.run([str(c) for c in cmd], check=True, stdout=subprocess.DEVNULL)


# ---- good data ----
# m.e: 4x3x2 hex in 2 blocks (ids 10, 20), 24 elements, 60 nodes, 2 steps,
# split into the 3-file set good/s.e.3.{0,1,2}.
os.makedirs("good")
run(GEN, "--type", "hex", "--dims", 4, 3, 2, "--blocks", 2, "--steps", 2, "good/m.e")
run(MXN, "split", "good/m.e", "good/s.e", "-n", 3, "--method", "linear", "--quiet")
# another dataset (tets), same file count, for mixing members
os.makedirs("other")
run(GEN, "--type", "tet", "--dims", 2, 2, 1, "--steps", 2, "other/o.e")
run(MXN, "split", "other/o.e", "other/s.e", "-n", 3, "--quiet")
# two elements only, in 2 files: more ranks (3) than elements
os.makedirs("tiny")
run(GEN, "--type", "hex", "--dims", 2, 1, 1, "--steps", 2, "tiny/t.e")
run(MXN, "split", "tiny/t.e", "tiny/t2.e", "-n", 2, "--method", "linear", "--quiet")
# 64-bit ids (netCDF-4), for the id-range cases
os.makedirs("good64")
run(GEN, "--type", "hex", "--dims", 4, 3, 2, "--blocks", 2, "--steps", 2, "--int64",
    "good64/m.e")
run(MXN, "split", "good64/m.e", "good64/s.e", "-n", 3, "--method", "linear", "--int64", "--quiet")

GOOD = ["good/s.e.3.%d" % j for j in range(3)]
NELEM = 24
cases = []


def case(name, **kw):
    c = {"name": name, "group": "data", "args": [], "cmds": ["repart", "stats"], "rc": 1,
         "err": [], "plugin": None, "check": None, "runas": None, "why": ""}
    c.update(kw)
    assert c["why"], name
    assert name not in [x["name"] for x in cases], name
    cases.append(c)


def copy_set(d, src=GOOD, base="s.e", M=3):
    """A private copy of a set in directory d; returns the member paths."""
    os.makedirs(d, exist_ok=True)
    out = []
    for j, f in enumerate(src):
        p = "%s/%s.%d.%d" % (d, base, M, j)
        shutil.copyfile(f, p)
        out.append(p)
    return out


def err_data(files_named, *more):
    """Expected data error: the CLI names the file, the plugin too."""
    return dict(rc=1, err=list(files_named) + list(more),
                plugin={"error": list(files_named) + list(more)})


# ================= the file set =================
d = "missing_member"
m = copy_set(d)
os.remove(m[1])
case(d, dataset=m[0], **err_data([m[1]], "missing"),
     why="member 1 of 3 is absent: the set is incomplete; refuse, naming it")

d = "stray_member"
m = copy_set(d)
shutil.copyfile(m[0], "%s/s.e.3.5" % d)
case(d, dataset=m[0], **err_data(["%s/s.e.3.5" % d], "stray"),
     why="a file s.e.3.5 beside a 3-file set: rank 5 cannot belong to it, and "
         "ignoring it would hide a mix-up of decompositions")

d = "mixed_datasets"
m = copy_set(d)
shutil.copyfile("other/s.e.3.2", m[2])
case(d, dataset=m[0], **err_data([m[2]], "different datasets"),
     why="member 2 comes from another mesh (tets, other global counts)")

d = "names_say_5_of_3"
m = copy_set(d, base="x.e", M=5)
case(d, dataset=m[0], **err_data(["%s/x.e.5.3" % d], "missing"),
     why="names say 5 files, 3 exist: members 3 and 4 are missing")

d = "names_say_2_nemesis_3"
m = copy_set(d, src=GOOD[:2], base="x.e", M=2)
case(d, dataset=m[0], **err_data([m[0]], "Nemesis", "3 files"),
     why="2 files named x.e.2.*, but their Nemesis data says 3 processors: a "
         "member was lost and renaming hid it; reading would lose a third of "
         "the mesh")

d = "names_say_2_three_exist"
m = copy_set(d, base="x.e", M=2)
case(d, dataset=m[0], **err_data(["%s/x.e.2.2" % d], "stray"),
     why="3 files named x.e.2.*: rank 2 is not below 2")

d = "zero_byte_member"
m = copy_set(d)
open(m[1], "w").close()
case(d, dataset=m[0], **err_data([m[1]], "empty"),
     why="member 1 has 0 bytes")

d = "truncated_member_half"
m = copy_set(d)
os.truncate(m[1], os.path.getsize(m[1]) // 2)
case(d, dataset=m[0], **err_data([m[1]], "truncated"),
     why="member 1 cut at half: its netCDF header is intact but data is "
         "missing (netCDF-3 would read zeros)")

d = "truncated_member_header"
m = copy_set(d)
os.truncate(m[1], 300)
case(d, dataset=m[0], **err_data([m[1]]),
     why="member 1 cut inside its netCDF header (300 bytes)")

d = "text_member"
m = copy_set(d)
with open(m[1], "w") as f:
    f.write("this is not an Exodus file\n" * 20)
case(d, dataset=m[0], **err_data([m[1]], "not a readable Exodus"),
     why="member 1 is a text file")

d = "netcdf_not_exodus"
m = copy_set(d)
os.remove(m[1])
with open("%s/plain.cdl" % d, "w") as f:
    f.write("netcdf plain {\ndimensions:\n n = 3 ;\nvariables:\n int x(n) ;\n"
            "data:\n x = 1, 2, 3 ;\n}\n")
run("ncgen", "-k", "classic", "-o", m[1], "%s/plain.cdl" % d)
case(d, dataset=m[0], **err_data([m[1]], "Exodus"),
     why="member 1 is a valid netCDF file without an Exodus header")

d = "member_is_directory"
m = copy_set(d)
os.remove(m[1])
os.makedirs(m[1])
case(d, dataset=m[0], **err_data([m[1]]),
     why="member 1 is a directory")

d = "dangling_symlink"
m = copy_set(d)
os.remove(m[1])
os.symlink("nowhere.e", m[1])
case(d, dataset=m[0], **err_data([m[1]]),
     why="member 1 is a symbolic link to nothing")

d = "unreadable_member"
m = copy_set(d)
os.chmod(d, 0o777)
for p in m:
    os.chmod(p, 0o644)
os.chmod(m[1], 0)
case(d, dataset=m[0], runas="nobody", **err_data([m[1]], "ermission denied"),
     why="member 1 has mode 000; run as user nobody because root reads it "
         "anyway (the plugin run, as root, cannot test this)")
cases[-1]["plugin"] = None

# ================= structure across files =================
d = "block_type_differs"
m = copy_set(d)
nced.set_att_text(m[1], "connect1", "elem_type", "SHELL8")
case(d, dataset=m[0], **err_data([m[1]], "block 10"),
     why="block 10 is HEX8 in two members and SHELL8 (also 8 nodes) in member 1")

d = "block_nodes_differ"
m = copy_set(d)
nced.change_nodes_per_element(m[1], 1, 4)
case(d, dataset=m[0], **err_data([m[1]], "block 10"),
     why="block 10 has 8 nodes per element in two members, 4 in member 1 "
         "(type still HEX8)")

d = "block_type_and_nodes_differ"
m = copy_set(d)
nced.change_nodes_per_element(m[1], 1, 4)
nced.set_att_text(m[1], "connect1", "elem_type", "TET4")
case(d, dataset=m[0], **err_data([m[1]], "block 10"),
     why="block 10 is HEX8 x8 in two members, TET4 x4 in member 1")

d = "time_values_differ"
m = copy_set(d)
nced.edit_double(m[1], "time_whole", lambda v: v[:-1] + [9.0])
case(d, dataset=m[0], **err_data([m[1]], "time step 2"),
     why="member 1's second time value is 9 instead of 0.5")

d = "dup_elem_in_file"
m = copy_set(d)
nced.edit_int(m[1], "elem_num_map", lambda v: [v[1]] + v[1:])
case(d, dataset=m[0], rc=0, check={"elements": NELEM, "nonempty": 1}, plugin={"cells": NELEM},
     why="member 1 lists one global element id twice (positions 1 and 2): its "
         "element ids cannot be trusted, as ParaView's writer's sets; ParaView's "
         "readers open it, so MxN numbers elements by member and position, warning")

d = "dup_node_in_file"
m = copy_set(d)
nced.edit_int(m[1], "node_num_map", lambda v: [v[1]] + v[1:])
case(d, dataset=m[0], rc=0, check={"elements": NELEM, "nonempty": 1}, plugin={"cells": NELEM},
     why="member 1 lists one global node id twice: node ids cannot be trusted, "
         "nodes are matched by coordinates (and elements by member and position), "
         "with a warning")


def shared_node(a, b):
    """A global node id stored in both files, and its positions."""
    na = nced.read_int(a, "node_num_map")
    nb = nced.read_int(b, "node_num_map")
    common = sorted(set(na) & set(nb))
    g = common[len(common) // 2]
    return g, na.index(g), nb.index(g)


d = "shared_node_coords_conflict"
m = copy_set(d)
g, pa, pb = shared_node(m[0], m[1])
nced.edit_double(m[1], "coordx", lambda v: v[:pb] + [v[pb] + 0.25] + v[pb + 1:])
case(d, dataset=m[0], rc=0, check={"elements": NELEM, "nonempty": 1}, plugin={"cells": NELEM},
     why="global node %d is stored in members 0 and 1 with different x: one id "
         "for two points, so node ids cannot be trusted; nodes are matched by "
         "coordinates (the moved copy is a node of its own) with a warning "
         "naming the node and both files, as ParaView's readers show it" % g)


d = "shared_node_coords_conflict_no_cmaps"
m = copy_set(d)
for p in m:
    nced.rename_var(p, "n_comm_nids", "x_comm_nids")
g, pa, pb = shared_node(m[0], m[1])
nced.edit_double(m[1], "coordy", lambda v: v[:pb] + [v[pb] - 1.0] + v[pb + 1:])
case(d, dataset=m[0], rc=0, check={"elements": NELEM, "nonempty": 1}, plugin={"cells": NELEM},
     why="as shared_node_coords_conflict, in members without node communication "
         "maps (as ParaView's writer makes them): every node of every member is a "
         "candidate, and global node %d differs in y" % g)

d = "no_cmaps"
m = copy_set(d)
for p in m:
    nced.rename_var(p, "n_comm_nids", "x_comm_nids")
case(d, dataset=m[0], rc=0, check={"elements": NELEM, "nonempty": 1, "same_as": m[0]},
     plugin={"cells": NELEM},
     why="members without node communication maps: all their nodes are compared, "
         "the copies agree, the set reads as usual")


def shared_elem_ids(a, b):
    return (nced.read_int(a, "elem_num_map"),
            nced.read_int(b, "elem_num_map"))


d = "elem_in_two_files_conflict"
m = copy_set(d)
e0, e1 = shared_elem_ids(m[0], m[1])
nced.edit_int(m[1], "elem_num_map", lambda v: [e0[0]] + v[1:])
case(d, dataset=m[0], rc=0, check={"elements": NELEM, "nonempty": 1}, plugin={"cells": NELEM},
     why="element id %d is in member 0 and, with other nodes, in member 1 (in "
         "place of element %d): the Nemesis global count (24) is the members' "
         "sum, so each element is stored once and the id is repeated; elements "
         "are numbered by member and position, with a warning"
         % (e0[0], e1[0]))

# ================= id ranges =================
def shift_ids(paths, var, fn):
    for p in paths:
        nced.edit_int(p, var, lambda v: [fn(x) for x in v])


d = "zero_based_ids"
m = copy_set(d)
shift_ids(m, "elem_num_map", lambda x: x - 1)
shift_ids(m, "node_num_map", lambda x: x - 1)
case(d, dataset=m[0], rc=0, plugin={"cells": NELEM}, check={"elements": NELEM, "nonempty": 1},
     why="ids 0..n-1 (ParaView's writer does this): valid, read as is")

d = "negative_ids"
m = copy_set(d)
shift_ids(m, "elem_num_map", lambda x: x - 1000)
shift_ids(m, "node_num_map", lambda x: -x)
case(d, dataset=m[0], rc=0, plugin={"cells": NELEM}, check={"elements": NELEM, "nonempty": 1},
     why="negative but distinct ids: Exodus stores them; the core uses ids "
         "only as keys, so the mesh reads whole")

d = "int32_extreme_ids"
m = copy_set(d)
e0, _ = shared_elem_ids(m[0], m[1])
lo, hi = min(e0), max(e0)
shift_ids(m[:1], "elem_num_map", lambda x: 2147483647 if x == hi else (-2147483648 if x == lo else x))
case(d, dataset=m[0], rc=0, plugin={"cells": NELEM}, check={"elements": NELEM, "nonempty": 1},
     why="element ids INT32_MAX and INT32_MIN in a 32-bit file: extreme but "
         "distinct, so valid")

d = "int64_extreme_ids"
m = copy_set(d, src=["good64/s.e.3.%d" % j for j in range(3)])
e0 = nced.read_int(m[0], "elem_num_map")
n0 = nced.read_int(m[2], "node_num_map")
lo, hi = min(e0), max(e0)
I64MAX, I64MIN = 2**63 - 1, -2**63
shift_ids(m[:1], "elem_num_map", lambda x: I64MAX if x == hi else (I64MIN if x == lo else x))
only2 = sorted(set(n0) - set(nced.read_int(m[1], "node_num_map"))
               - set(nced.read_int(m[0], "node_num_map")))
nmax = only2[-1]
shift_ids(m[2:], "node_num_map", lambda x: I64MAX - 1 if x == nmax else x)
case(d, dataset=m[0], rc=0, plugin={"cells": NELEM}, check={"elements": NELEM, "nonempty": 1},
     why="element ids INT64_MAX and INT64_MIN and node id INT64_MAX-1 in a "
         "64-bit file: no id arithmetic may overflow (id+1, differences)")

# ================= connectivity and types =================
d = "conn_past_node_count"
m = copy_set(d)
nn = nced.dim(m[1], "num_nodes")
nced.edit_int(m[1], "connect1", lambda v: [nn + 5] + v[1:])
case(d, dataset=m[0], **err_data([m[1]], "block 10"),
     why="member 1's block 10 refers to node %d of %d" % (nn + 5, nn))

d = "conn_zero"
m = copy_set(d)
nced.edit_int(m[1], "connect2", lambda v: v[:3] + [0] + v[4:])
case(d, dataset=m[0], **err_data([m[1]], "block 20"),
     why="member 1's block 20 refers to node 0 (Exodus numbers nodes from 1)")

d = "conn_negative"
m = copy_set(d)
nced.edit_int(m[2], "connect2", lambda v: v[:-1] + [-7])
case(d, dataset=m[0], **err_data([m[2]], "block 20"),
     why="member 2's block 20 refers to node -7")

d = "unknown_element_type"
m = copy_set(d)
for p in m:
    with nced.NcFile(p, write=False) as f:
        present = f.has_var("connect1")
    if present:  # a member may hold no element of block 10
        nced.set_att_text(p, "connect1", "elem_type", "FOOBAR8")
case(d, dataset=m[0], rc=0, check={"same_as": m[0]},
     plugin={"error": ["block 10", "FOOBAR8"]},
     why="block 10 has type FOOBAR8 in every member: the core moves it as "
         "8-node elements (repart writes it unchanged); the reader cannot "
         "make VTK cells of it and says so, naming the block and type")

d = "nan_coordinates_rcb"
m = copy_set(d)
# The same global nodes in every member that stores them (a node edited in
# one member only would be a conflicting duplicate, a case of its own).
bad = nced.read_int(m[1], "node_num_map")[:3]
for p in m:
    gids = nced.read_int(p, "node_num_map")
    nced.edit_double(p, "coordx", lambda v: [float("nan") if g in bad else x
                                             for g, x in zip(gids, v)])
    nced.edit_double(p, "coordy", lambda v: [float("inf") if g == bad[0] else y
                                             for g, y in zip(gids, v)])
case(d, dataset=m[0], args=["--method", "rcb"], rc=0,
     check={"elements": NELEM, "nonempty": 1, "same_as": m[0]}, plugin={"cells": NELEM},
     why="NaN and infinite coordinates: geometry is data, not structure; the "
         "partitioner must still give every element one owner (Hilbert keys "
         "map NaN to 0), never crash or hang in Zoltan")

# ================= weights =================
WF = "elem_gid_time"


def weights_case(name, fn, why):
    m = copy_set(name)
    for p in m:
        for v in ("vals_elem_var1eb1", "vals_elem_var1eb2"):
            with nced.NcFile(p, write=False) as f:
                present = f.has_var(v)
            if present:
                nced.edit_double(p, v, fn)
    case(name, dataset=m[0], args=["--weights", WF, "--method", "sfc"], rc=0,
         check={"elements": NELEM, "nonempty": 1, "same_as": m[0]}, why=why)


weights_case("weights_nan", lambda v: [float("nan")] * len(v),
             "every weight NaN: counted as 0 and floored, so elements weigh "
             "alike; every rank gets elements")
weights_case("weights_some_nan", lambda v: [float("nan")] + v[1:],
             "one NaN weight among finite ones: floored, not propagated")
weights_case("weights_negative", lambda v: [-abs(x) - 5 for x in v],
             "negative weights: the absolute value is used (documented)")
weights_case("weights_zero", lambda v: [0.0] * len(v),
             "all weights 0: the floor makes them equal")
weights_case("weights_inf", lambda v: [float("inf")] + v[1:],
             "an infinite weight: treated as 0 then floored; the rest balance")
weights_case("weights_huge", lambda v: [1e308] * len(v),
             "weights near DBL_MAX: sums overflow to inf unless scaled; still "
             "every rank must get elements")
case("weights_no_such_field", dataset=GOOD[0], args=["--weights", "nosuch"], rc=1,
     err=["nosuch"], why="weighing by a variable that does not exist")
case("weights_step_past_end", dataset=GOOD[0], args=["--weights", WF, "--weight-step", "3"],
     rc=1, err=["weight step 3"], why="the set has 2 time steps; step 3 does not exist")

# ================= sizes =================
case("more_ranks_than_elements", dataset="tiny/t2.e.2.0", rc=0, plugin={"cells": 2},
     check={"elements": 2, "owned_sorted": [0, 1, 1], "same_as": "tiny/t.e"},
     why="2 elements on 3 ranks: one rank is empty, the other two own one "
         "each; the repart output (one empty member) joins back to the mesh")

d = "zero_elements"
os.makedirs(d)
nced.write_nodes_only("%s/n.e" % d, [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [1, 2, 3])
case(d, dataset="%s/n.e" % d, rc=0, plugin={"cells": 0},
     check={"elements": 0},
     why="a mesh of 3 nodes and no element: nothing to partition; every "
         "rank gets an empty piece (no crash on empty arrays)")

d = "zero_elements_set"
os.makedirs(d)
nced.write_nodes_only("%s/n.e.2.0" % d, [(0, 0, 0), (1, 0, 0)], [1, 2])
nced.write_nodes_only("%s/n.e.2.1" % d, [(1, 0, 0), (2, 0, 0)], [2, 3])
case(d, dataset="%s/n.e.2.0" % d, rc=0, plugin={"cells": 0},
     check={"elements": 0},
     why="a 2-file set of nodes only, sharing node 2")

d = "member_without_elements"
m = copy_set(d, src=GOOD[:2], base="s.e", M=3)
nced.write_nodes_only("%s/s.e.3.2" % d, [(0, 0, 0)], [1])
case(d, dataset=m[0], **err_data(["%s/s.e.3.2" % d]),
     why="member 2 holds one node and no element, and no Nemesis data, while "
         "the others' Nemesis data says 24 elements: 16 can be found; the "
         "set is incomplete")

# ================= map files =================
def map_case(name, text, rc, err, why, mode="w", check=None):
    path = "maps/%s.map" % name
    os.makedirs("maps", exist_ok=True)
    if text is not None:
        with open(path, mode) as f:
            f.write(text)
    case("map_" + name, group="map", dataset=GOOD[0], args=["--method", "map", "--map", path],
         rc=rc, err=[path] + err if rc else err, why=why, check=check)


eids = sorted(sum((nced.read_int(p, "elem_num_map") for p in GOOD), []))
good_map = "".join("%d %d\n" % (e, (e - 1) % 3) for e in eids)
map_case("ok", "# element part\n" + good_map, 0, [], "a valid map: the parts it gives",
         check={"elements": NELEM, "owned": [8, 8, 8], "same_as": GOOD[0]})
map_case("absent", None, 1, ["cannot open"], "the map file does not exist")
map_case("empty", "", 1, ["has no part"], "an empty map: no element has a part")
map_case("syntax", good_map.replace("5 1\n", "5 one\n"), 1, [":5:"],
         "line 5 reads '5 one'")
map_case("trailing", good_map.replace("7 0\n", "7 0 9\n"), 1, [":7:"],
         "line 7 has a third field")
map_case("part_too_big", good_map.replace("4 0\n", "4 3\n"), 1, [":4:", "outside 0..2"],
         "part 3 on 3 ranks")
map_case("part_negative", good_map.replace("4 0\n", "4 -1\n"), 1, [":4:", "outside 0..2"],
         "part -1")
map_case("part_huge", good_map.replace("4 0\n", "4 99999999999999999999\n"), 1, [":4:"],
         "a part number beyond any integer type")
map_case("id_overflow", good_map + "99999999999999999999 0\n", 1, [":25:"],
         "an element id beyond INT64_MAX: must not be read as a clamped id")
map_case("missing_element", good_map.replace("13 0\n", ""), 1, ["element 13"],
         "element 13 has no line")
map_case("conflict", good_map + "5 0\n", 1, ["element 5"],
         "element 5 is given parts 1 and 0: ambiguous")
# The first element's line becomes "E 000...02" (600 zeros): read whole, it
# moves that element from part 0 to part 2; split by a fixed buffer, it
# would be refused or misread.
long_parts = [(e - 1) % 3 for e in eids]
long_parts[0] = 2
map_case("long_line", "".join("%d %s\n" % (e, "0" * 600 + "2" if i == 0 else str(p))
                              for i, (e, p) in enumerate(zip(eids, long_parts))), 0, [],
         "a 600-character line (beyond any fixed buffer): '%d 000...02' gives "
         "element %d part 2" % (eids[0], eids[0]),
         check={"elements": NELEM, "owned": [long_parts.count(r) for r in range(3)]})
map_case("binary", "".join(chr(c) for c in range(256)) * 4, 1, [],
         "256 * 4 bytes of every value, NULs included")
map_case("float_part", good_map.replace("4 0\n", "4 0.5\n"), 1, [":4:"], "part 0.5")
case("map_is_directory", group="map", dataset=GOOD[0], args=["--method", "map", "--map", "good"],
     rc=1, err=["good"], why="the map path is a directory")

# ================= options =================
def opts_case(name, args, rc, err, why, cmds=("repart", "stats")):
    case("opt_" + name, group="opts", dataset=GOOD[0], args=args, rc=rc, err=err,
         cmds=list(cmds), why=why)


opts_case("tolerance_below_1", ["--tolerance", "0.5"], 2, ["--tolerance"], "tolerance 0.5 < 1")
opts_case("tolerance_nan", ["--tolerance", "nan"], 2, ["--tolerance"], "tolerance NaN")
opts_case("tolerance_inf", ["--tolerance", "inf"], 2, ["--tolerance"], "tolerance infinite")
opts_case("tolerance_text", ["--tolerance", "1.1x"], 2, ["--tolerance"], "tolerance '1.1x'")
opts_case("weight_step_0", ["--weights", WF, "--weight-step", "0"], 2, ["--weight-step"],
          "steps count from 1")
opts_case("weight_step_overflow", ["--weights", WF, "--weight-step", "99999999999999999999"], 2,
          ["--weight-step"], "a step number beyond long")
opts_case("weight_step_alone", ["--weight-step", "2"], 2, ["--weights"],
          "--weight-step without --weights")
opts_case("method_unknown", ["--method", "metis"], 2, ["--method"], "no such method")
opts_case("map_without_method_map", ["--method", "rcb", "--map", "x.map"], 2, ["--map"],
          "--map goes with --method map")
opts_case("method_map_without_map", ["--method", "map"], 2, ["--map"],
          "--method map needs a map file")
opts_case("ghosts_negative", ["--ghosts", "-1"], 2, ["--ghosts"], "-1 ghost layers")
opts_case("ghosts_huge", ["--ghosts", "1000"], 2, ["--ghosts"], "1000 ghost layers (max 100)")
opts_case("option_without_value", ["--method"], 2, ["unknown option or missing value"],
          "--method as the last argument")
opts_case("stats_n_zero", ["-n", "0"], 2, ["-n"], "-n 0", cmds=["stats"])
opts_case("stats_n_overflow", ["-n", "99999999999999999999"], 2, ["-n"], "-n beyond long",
          cmds=["stats"])
opts_case("stats_n_disagrees", ["-n", "4"], 2, ["-n 4"], "-n 4 under mpiexec -n 3",
          cmds=["stats"])

# ================= broken between the open and a later step =================
case("midread_member_truncated", group="midread", dataset=GOOD[0], cmds=[],
     rc=1, err=["s.e.3."], mutate="truncate",
     plugin={"error": ["time step 2"]},
     why="after the load, a member is cut to half its size; reading step 2 must "
         "fail on every rank, naming the file (or succeed with correct values "
         "if the member's data was already read); never crash")
case("midread_member_deleted", group="midread", dataset=GOOD[0], cmds=[],
     rc=0, err=[], mutate="delete", plugin={"cells": NELEM},
     why="after the load, a member is deleted: members stay open, so on Linux "
         "their data is still readable; step 2 must read correct values")

with open("cases.json", "w") as f:
    json.dump(cases, f, indent=1)
groups = {}
for c in cases:
    groups[c["group"]] = groups.get(c["group"], 0) + 1
print("make_corpus: %d cases in %s (%s)" % (
    len(cases), OUT, ", ".join("%s %d" % kv for kv in sorted(groups.items()))))
