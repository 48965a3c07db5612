"""The compatibility sweep: every Exodus file and spread set under the given
roots, loaded through MxNReader and compared with ParaView's legacy
ExodusIIReader by reader_totals.py, all in one pvbatch.

usage: mpiexec -n N pvbatch --symmetric sweep.py PLUGIN_SO ROOT... [--method M]
                                                [--steps all|last] [--list]

A ROOT is a directory (searched recursively, in name order) or a file. A
file is an Exodus file when it starts with a netCDF-3 or HDF5 signature; a
spread set (mesh.e.M.r) is taken once, by its member 0, and read whole. So
a file added to a root joins the sweep without a change here. Each dataset
is checked with `reader_totals.py PLUGIN DATASET METHOD --sets --steps
last` (owned cells and their ids, nodal and element field sums, min and
max, global variables, node set members and side set sizes, ghosts at
N > 1; by count and coordinates where MxNReader says it falls back from
a set's ids; see reader_totals.py), with --common-vars for spread sets: the
legacy reader offers member 0's variables only and drops an array that
some of the members one rank reads lack, so a set whose members differ in
their variables is compared on the variables both readers show. METHOD is
Files by default (MxNReader's default). --list prints the datasets found
and exits.

Prints one line per dataset (PASS, FAIL or SKIP, with seconds, and the
known difference of a file listed in KNOWN below) and a summary. Exit
codes: 0 every dataset passed (falling off the end, as in reader_totals.py),
1 a dataset failed, 2 bad usage, 77 skipped (no root exists, or none holds
an Exodus file).
"""
import os
import re
import runpy
import sys
import time
import traceback

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
SPREAD_MEMBER = re.compile(r"^(.*)\.([0-9]+)\.([0-9]+)$")
SIGNATURES = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF")
# Files on which the two readers are known to differ, by file name: the
# reader_totals.py problems that differ (a regular expression), and why.
# Those are printed and do not fail the sweep; any other problem does.
KNOWN = {
    # No node_num_map or elem_num_map, but numbered maps: ExodusIIReader
    # takes the first numbered node map ("Luigi PISTILLI", 12..1) for
    # GlobalNodeId, MxNReader the Exodus API's default ids 1..N (what
    # ex_get_id_map returns without node_num_map), so the same point has
    # other ids (its coordinates per id and node set members by id differ);
    # cells, element ids, values, globals and side sets agree.
    "edgeFaceElem.exii": ("point coordinates differ|node sets differ",
                          "node ids: ExodusIIReader takes the first numbered node map"),
}

argv = sys.argv[1:]
opts = {"--method": "Files", "--steps": "last"}
listing = "--list" in argv
argv = [a for a in argv if a != "--list"]
for key in list(opts):
    if key in argv:
        i = argv.index(key)
        if i + 1 >= len(argv):
            argv = []
            break
        opts[key] = argv[i + 1]
        del argv[i:i + 2]
if len(argv) < 2 or opts["--steps"] not in ("all", "last"):
    print("usage: pvbatch --symmetric sweep.py PLUGIN_SO ROOT... [--method M] "
          "[--steps all|last] [--list]")
    sys.exit(2)
plugin, roots = os.path.abspath(argv[0]), [os.path.abspath(r) for r in argv[1:]]


def is_exodus(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) in SIGNATURES
    except OSError:
        return False


def datasets(root):
    """(path, is a spread set) of each Exodus file or set under root."""
    if os.path.isfile(root):
        files = [root]
    else:
        files = []
        for d, subdirs, names in os.walk(root):
            subdirs.sort()
            files += [os.path.join(d, n) for n in sorted(names)]
    found = []
    for p in files:
        m = SPREAD_MEMBER.match(os.path.basename(p))
        if m and int(m.group(2)) > 1:
            # A member: the set is taken once, by member 0.
            if int(m.group(3)) == 0 and is_exodus(p):
                found.append((p, True))
        elif is_exodus(p):
            found.append((p, False))
    return found


present = [r for r in roots if os.path.exists(r)]
todo = [d for r in present for d in datasets(r)]

from vtkmodules.vtkParallelCore import vtkMultiProcessController  # noqa: E402

ctrl = vtkMultiProcessController.GetGlobalController()
rank, nranks = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()


def say(text):
    if rank == 0:
        print(text)
        sys.stdout.flush()


for r in roots:
    if r not in present:
        say("sweep: %s absent: skipped" % r)
if listing:
    for p, spread in todo:
        say("%s%s" % (p, " (spread set)" if spread else ""))
    sys.exit(0)
if not todo:
    say("sweep: SKIP: no Exodus file under %s" % " ".join(roots))
    sys.exit(SKIP)


def shown(path):
    for r in present:
        if path.startswith(r + os.sep):
            return os.path.relpath(path, os.path.dirname(r))
    return os.path.basename(path)


results = []
t_all = time.time()
for path, spread in todo:
    sys.argv = [os.path.join(HERE, "reader_totals.py"), plugin, path, opts["--method"],
                "--sets", "--steps", opts["--steps"]] + (["--common-vars"] if spread else [])
    known = KNOWN.get(os.path.basename(path))
    if known:
        sys.argv += ["--known", known[0]]
    t0 = time.time()
    code = 0
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except Exception:
        # Raised on this rank only, perhaps: the other ranks may wait in a
        # collective of reader_totals.py, so end the job rather than hang.
        print("sweep: rank %d: %s raised:\n%s" % (rank, path, traceback.format_exc()))
        sys.stdout.flush()
        os._exit(1)
    verdict = {0: "PASS", SKIP: "SKIP"}.get(code, "FAIL")
    results.append((shown(path), verdict, time.time() - t0))
    say("sweep: %s %s (%.1f s%s)" % (verdict, shown(path), time.time() - t0,
                                    "; known: " + known[1] if known else ""))

failed = [p for p, v, _ in results if v == "FAIL"]
say("sweep[N=%d, %s]: %d datasets, %d passed, %d failed, %d skipped in %.1f s%s"
    % (nranks, opts["--method"], len(results), sum(v == "PASS" for _, v, _ in results),
       len(failed),
       sum(v == "SKIP" for _, v, _ in results), time.time() - t_all,
       (": FAILED " + ", ".join(failed)) if failed else ""))
if failed:
    sys.exit(1)
