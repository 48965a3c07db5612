"""Where the benchmark results are read from (report.py, scale_report.py).

The runs behind the current BENCHMARKS.md are not kept in the tree: they
are the files of testing/benchmarks/results/ at commit ARCHIVE, read back
with `git show`. run_bench.sh and scale_bench.sh append new runs to files
of the same names in results/ (absent from the tree until then); a file's
records are its archived lines followed by those, as if it had been
appended to in place. To move the archive on, commit the merged files
(this module's output) as results/, set ARCHIVE to that commit, and
remove results/ from the tree again.
"""
import os
import subprocess
import sys
import tempfile

ARCHIVE = "bca962e"
RESULTS = "testing/benchmarks/results"


def _git(here, *args):
    return subprocess.run(["git", "-C", here] + list(args), check=True,
                          capture_output=True).stdout


_TMP = []


def results_dir(here):
    """A temporary directory laid out as results/ (removed when the process
    ends): each file the archive or results/ holds, archived lines first."""
    local = os.path.join(here, "results")
    _TMP.append(tempfile.TemporaryDirectory(prefix="mxn-results-"))
    out = _TMP[-1].name
    names = set()
    try:
        listed = _git(here, "ls-tree", "-r", "--full-tree", "--name-only", ARCHIVE, "--",
                      RESULTS).decode()
        names = {n[len(RESULTS) + 1:] for n in listed.split() if n.endswith(".jsonl")}
    except (OSError, subprocess.CalledProcessError):
        sys.stderr.write("results: commit %s not in this clone's history: results/ alone\n"
                         % ARCHIVE)
    for root, _, files in os.walk(local):
        names |= {os.path.relpath(os.path.join(root, f), local) for f in files
                  if f.endswith(".jsonl")}
    for name in sorted(names):
        data = b""
        try:
            data = _git(here, "show", "%s:%s/%s" % (ARCHIVE, RESULTS, name))
        except (OSError, subprocess.CalledProcessError):
            pass
        if data and not data.endswith(b"\n"):
            data += b"\n"
        path = os.path.join(local, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                data += f.read()
        os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    return out
