"""Several pvbatch checks in one pvbatch: a pvbatch start-up (MPI, Python,
paraview.simple) costs seconds on every rank, often more than the check.

usage: mpiexec -n N pvbatch --symmetric cases.py PLUGIN_SO CASES_FILE [--only REGEX]

CASES_FILE (written by CMake: mxn_pvbatch_case in testing/CMakeLists.txt)
has one case a line, its fields separated by tabs: a tag, a script of
this directory, then the script's arguments after PLUGIN_SO. Each case
runs as `pvbatch --symmetric SCRIPT PLUGIN_SO ARGS...` would run it, in
this process, one after the other (runpy, as sweep.py runs
reader_totals.py); every rank runs the same cases in the same order, and
the scripts give every rank the same verdict. Between cases the proxies a
case left are deleted and pvcheck's failures emptied. --only runs the
cases whose tag matches.

Prints one line per case (PASS, FAIL or SKIP, with seconds) after the
case's own output, and a summary naming the failed cases. Exit codes: 0
every case passed or skipped, 1 a case failed, 2 bad usage, 77 every
case skipped (the shared data absent). A case that raises on one rank
ends the job (the other ranks may wait in a collective of the script).
"""
import os
import re
import runpy
import sys
import time
import traceback

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))

argv = sys.argv[1:]
only = None
if "--only" in argv:
    i = argv.index("--only")
    only = argv[i + 1] if i + 1 < len(argv) else None
    argv = argv[:i] + argv[i + 2:]
    if only is None:
        print(__doc__.split("\n\n")[1])
        sys.exit(2)
if len(argv) != 2:
    print(__doc__.split("\n\n")[1])
    sys.exit(2)
plugin, listing = argv
cases = []
with open(listing) as f:
    for line in f:
        line = line.rstrip("\n")
        if line.strip():
            fields = line.split("\t")
            cases.append((fields[0], fields[1], fields[2:]))
if only is not None:
    cases = [c for c in cases if re.search(only, c[0])]
if not cases:
    print("cases: no case in %s%s" % (listing, " matches %s" % only if only else ""))
    sys.exit(2)

from paraview import simple  # noqa: E402
from vtkmodules.vtkParallelCore import vtkMultiProcessController  # noqa: E402

ctrl = vtkMultiProcessController.GetGlobalController()
rank, nranks = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()
sys.path.insert(0, HERE)


def say(text):
    if rank == 0:
        print(text)
    sys.stdout.flush()


results = []
t_all = time.time()
for tag, script, args in cases:
    sys.argv = [os.path.join(HERE, script), plugin] + args
    say("cases: %s: %s %s" % (tag, script, " ".join(args)))
    t0 = time.time()
    code = 0
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as e:
        code = 0 if e.code is None else e.code if isinstance(e.code, int) else 1
    except Exception:
        print("cases: rank %d: %s raised:\n%s" % (rank, tag, traceback.format_exc()))
        sys.stdout.flush()
        os._exit(1)
    for proxy in list(simple.GetSources().values()):
        simple.Delete(proxy)
    if "pvcheck" in sys.modules:
        del sys.modules["pvcheck"].failures[:]
    verdict = {0: "PASS", SKIP: "SKIP"}.get(code, "FAIL")
    results.append((tag, verdict))
    say("cases: %s %s (%.1f s)" % (verdict, tag, time.time() - t0))

failed = [t for t, v in results if v == "FAIL"]
skipped = [t for t, v in results if v == "SKIP"]
say("cases[%s, N=%d]: %d cases, %d passed, %d failed, %d skipped in %.1f s%s" % (
    os.path.basename(listing), nranks, len(results), len(results) - len(failed) - len(skipped),
    len(failed), len(skipped), time.time() - t_all,
    (": FAILED " + ", ".join(failed)) if failed else ""))
if failed:
    sys.exit(1)
if len(skipped) == len(results):
    sys.exit(SKIP)
# (success falls off the end: under mpiexec, SystemExit ends pvbatch before
# it finalizes MPI and mpiexec reports the job as failed)
