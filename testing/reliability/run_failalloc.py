"""Out of memory on one rank, anywhere in a parallel load or rewrite: every
run must end (no hang), with exit status 1 and the CLI's error line, or
succeed with the same result as without the failure (an allocation the
code can do without); never a crash, and a failed `repart`, `join` or
`split` leaves no output file behind (the serial `join` and `split` run
as one process, the failure on it).

failalloc.so (LD_PRELOAD, one rank) fails the n-th allocation the mxn
executable's own code makes (the core is linked into it). A first run
counts them; then n is swept: every count with --all, otherwise an even
sample of --sample values (and the first few, where the open's paths
are). Every --persist-th run fails that allocation and every later one
(memory that stays exhausted: the error paths must not need any).

With --exchanges, the allocations failed are instead the last one before
each exchange between ranks: the counting run notes every MPI call the
executable makes on the failing rank (failalloc.so wraps them) with the
allocations counted so far and the call's stack; each exchange site (the
first caller outside the core's comm.c, by addr2line), in the first
scenario that reaches it, gets two runs that fail the last allocation
before its first call: that one alone, then that one and every later
one. The sites reached are printed per
scenario ("exchange SITE: allocation N"). The scenarios "ids" (a set
whose members give one element id to two elements, with no Nemesis
count: the copies' comparison of ids.c) and "series" (an adaptive series
of three segments: the series' broadcast) are for this mode as well.

With --pvbatch and --plugin, the scenario "plugin" does the same to
MxNReader in pvbatch (failalloc_plugin.py: a load with one ghost layer,
then the second time step), failing allocations of the plugin's library
(libvtkMxNIO): every rank must print its result, and either every rank
reports an error or the owned cells add up as without the failure.

usage: run_failalloc.py MXN MXN_GEN MPIEXEC FAILALLOC_SO WORKDIR
           [--np 3] [--ranks 1] [--sample 40] [--all | --exchanges] [--persist 4]
           [--timeout 20]
           [--scenarios stats,repart,steps,shift,diffusion,join,split[,plugin]]
           [--pvbatch PVBATCH --plugin MXNREADER_SO [--plugin-sample K]]
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("mxn")
    p.add_argument("gen")
    p.add_argument("mpiexec")
    p.add_argument("shim")
    p.add_argument("work")
    p.add_argument("--np", type=int, default=3)
    p.add_argument("--ranks", default="1")
    p.add_argument("--sample", type=int, default=40)
    p.add_argument("--all", action="store_true")
    p.add_argument("--exchanges", action="store_true",
                   help="fail the last allocation before each exchange site")
    p.add_argument("--persist", type=int, default=4,
                   help="every K-th run also fails every later allocation (0: never)")
    p.add_argument("--timeout", type=float, default=20)
    p.add_argument("--scenarios", default="stats,repart,steps,shift,diffusion,join,split")
    p.add_argument("--pvbatch", default="")
    p.add_argument("--plugin", default="")
    p.add_argument("--plugin-sample", type=int, default=0,
                   help="--sample for the plugin scenario (default: --sample)")
    return p.parse_args()


A = parse()
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def run(cmd, extra_env=None, timeout=None):
    """(returncode or None on timeout, output)."""
    env = dict(ENV)
    env.update(extra_env or {})
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                         start_new_session=True, text=True, errors="replace")
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out


SERIAL = ("join", "split")  # single-process commands: run without mpiexec, rank 0


def mpi(args, fail_rank=None, nth=0, report=False, timeout=None, trace=False, after=False,
        exchanges="", runs=None, sites=""):
    cmd = [A.mpiexec, "-n", str(A.np)]
    extra = {}
    plugin = args[0] == "plugin"
    if fail_rank is not None:
        extra = {"LD_PRELOAD": A.shim, "MXN_FAILALLOC_RANK": str(fail_rank),
                 "MXN_FAILALLOC_OBJ": "libvtkMxNIO" if plugin else "",
                 "MXN_FAILALLOC_NTH": str(nth), "MXN_FAILALLOC_REPORT": "1" if report else "0",
                 "MXN_FAILALLOC_TRACE": "1" if trace else "0",
                 "MXN_FAILALLOC_AFTER": "1" if after else "0",
                 "MXN_FAILALLOC_EXCHANGES": exchanges, "MXN_FAILALLOC_SITES": sites}
        for k in extra:
            cmd += ["-x", k]
    if plugin:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "failalloc_plugin.py")
        more = [A.shim, ",".join("%d:%d" % (n, a) for n, a in runs), "%g" % A.timeout] \
            if runs else []
        return run(cmd + [A.pvbatch, "--symmetric", script, A.plugin] + args[1:] + more, extra,
                   timeout)
    if args[0] in SERIAL:
        return run([A.mxn] + args, extra, timeout)
    return run(cmd + [A.mxn] + args, extra, timeout)


os.makedirs(A.work, exist_ok=True)
data = os.path.join(A.work, "set.e")
mesh = os.path.join(A.work, "mesh.e")
for f in glob.glob(os.path.join(A.work, "*")):
    if os.path.isfile(f):
        os.remove(f)
# Three blocks of hex, wedge and tet with sets, variables and 3 steps,
# in 6 members: every kind of read the load has; a load that moves over
# the steps (hot_spot) for the re-balances to shift.
for cmd in ([A.gen, "--type", "mixed", "--dims", "12", "10", "8", "--blocks", "3", "--steps", "3",
             "--hot-spot", mesh],
            [A.mxn, "split", mesh, data, "-n", "6"]):
    rc, out = run(cmd, timeout=120)
    if rc != 0:
        sys.exit("setup failed: %s\n%s" % (" ".join(cmd), out))

# untrusted element ids: member 1 gives its first element member 0's
# first id, and no member says how many elements the set has (the Nemesis
# counts removed), so the load compares the copies of that id (ids.c)
idset = os.path.join(A.work, "ids.e")
rc, out = run([A.mxn, "split", mesh, idset, "-n", "3", "--method", "linear", "--quiet"],
              timeout=120)
if rc != 0:
    sys.exit("setup failed: split for ids\n" + out)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nced  # noqa: E402
members = ["%s.3.%d" % (idset, j) for j in range(3)]
first = nced.read_int(members[0], "elem_num_map")[0]
nced.edit_int(members[1], "elem_num_map", lambda v: [first] + v[1:])
for m in members:
    nced.rename_dim(m, "num_elems_global", "x_num_elems_global")
# an adaptive series of three segments, 2 members each
series = os.path.join(A.work, "ser.e")
for cmd in ([A.gen, "--type", "hex", "--dims", "6", "5", "4", "--steps", "2", "--series", "3",
             series + ".whole"],):
    rc, out = run(cmd, timeout=120)
    if rc != 0:
        sys.exit("setup failed: %s\n%s" % (" ".join(cmd), out))
for k, seg in enumerate(sorted(glob.glob(series + ".whole*"))):
    tail = seg[len(series + ".whole"):]
    rc, out = run([A.mxn, "split", seg, series + tail, "-n", "2", "--quiet"], timeout=120)
    if rc != 0:
        sys.exit("setup failed: split %s\n%s" % (seg, out))
    os.remove(seg)

out_base = os.path.join(A.work, "out.e")
joined = os.path.join(A.work, "joined.e")
resplit = os.path.join(A.work, "resplit.e")
SCEN = {
    # the load: open, partition, cover, extraction, the ghost layer
    "stats": ["stats", data, "--ghosts", "1", "--json"],
    # the rewrite: the load, then each rank writes its member
    "repart": ["repart", data, out_base, "--ghosts", "1", "--quiet"],
    # re-balancing at every step by a field (new owners, migration)
    "steps": ["stats", data, "--method", "rcb", "--steps", "all", "--weights", "hot_spot",
              "--tolerance", "1.05", "--json"],
    # ... by the files string's cut points (RankDLB shift) and by
    # neighbour diffusion (LuNA Patch)
    "shift": ["stats", data, "--steps", "all", "--weights", "hot_spot", "--tolerance", "1.05",
              "--ghosts", "1", "--json"],
    "diffusion": ["stats", data, "--method", "sfc", "--steps", "all", "--weights", "hot_spot",
                  "--tolerance", "1.05", "--rebalance", "diffusion", "--json"],
    # untrusted element ids (ids.c's comparison of copies)
    "ids": ["stats", idset + ".3.0", "--json"],
    # an adaptive series (series.c's broadcast), every step
    "series": ["stats", series + ".2.0", "--steps", "all", "--json"],
    # MxNReader in pvbatch (failalloc_plugin.py)
    "plugin": ["plugin", data],
    # the single-process forms: M -> 1 and 1 -> M files
    "join": ["join", data, joined, "--quiet"],
    "split": ["split", mesh, resplit, "-n", "4", "--quiet"],
}


def plugin_rows(out, j=0):
    """rank -> (errors, cells, first error, allocations counted) of load j
    from failalloc_plugin.py's lines."""
    rows = {}
    for m in re.finditer(r"FAILALLOC_RESULT run (\d+) rank (\d+) errors (\d+) cells (\d+) "
                         r"counted (-?\d+) first: (.*)", out):
        if int(m.group(1)) == j:
            rows[int(m.group(2))] = (int(m.group(3)), int(m.group(4)), m.group(6),
                                     int(m.group(5)))
    return rows


def plugin_session(args, rank, runs):
    """MxNReader's loads for every (n, after) of runs, as few pvbatch
    sessions as can do them (failalloc_plugin.py: one load per run in one
    process): {(n, after): (returncode, rows, output)}. A load without a
    result line from every rank ends its session (a rank hung or crashed):
    it gets the session's return code (None: killed) and its output, and
    the next session starts with the run after it."""
    got = {}
    todo = list(runs)
    while todo:
        rc, out = mpi(args, rank, timeout=120 + A.timeout * len(todo), runs=todo)
        done = 0
        for j, key in enumerate(todo):
            rows = plugin_rows(out, j)
            if len(rows) == A.np:
                got[key] = (0, rows, "")
                done += 1
                continue
            got[key] = (rc if rc != 0 else 1, rows, out)
            done += 1
            break
        else:
            if rc != 0:  # every load gave its result, but pvbatch failed
                got[todo[-1]] = (rc, got[todo[-1]][1], out)
        todo = todo[done:]
    return got


def where(args, rank, n, after):
    """The failed allocation's callers in the core (function file:line), by
    a run with the stack printed."""
    if args[0] == "plugin":
        rc, out = mpi(args, rank, timeout=120, trace=True, runs=[(n, after)])
    else:
        rc, out = mpi(args, rank, n, timeout=A.timeout, trace=True, after=after)
    frames = []
    for obj, off in re.findall(r"([^\s\[\]()]+)\(\+(0x[0-9a-f]+)\)", out):
        if "failalloc" in obj or not os.path.exists(obj):
            continue
        rc, names = run(["addr2line", "-f", "-s", "-e", obj, off], timeout=60)
        lines = names.splitlines()
        if len(lines) >= 2:
            frames.append("%s %s" % (lines[0], lines[1]))
    frames = [f for f in frames if not f.startswith(("mxn__malloc", "mxn__calloc", "mxn__realloc"))]
    if not frames:
        return "?"
    return " < ".join(frames[:4])


def exchange_sites(path):
    """{site: the allocations counted before its first call} from a
    counting run's notes (failalloc.c): a site is the first frame outside
    comm.c (the core's communication layer), as "function file:line"."""
    calls = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 2 or w[0] != "X":
                continue
            calls.append((int(w[1]), list(zip(w[2::2], w[3::2]))))
    names = {}
    by_obj = {}
    for _, frames in calls:
        for obj, off in frames:
            by_obj.setdefault(obj, set()).add(off)
    for obj, offs in by_obj.items():
        offs = sorted(offs)
        for i in range(0, len(offs), 200):
            part = offs[i:i + 200]
            rc, out = run(["addr2line", "-f", "-s", "-e", obj] + part, timeout=120)
            lines = out.splitlines()
            for k, off in enumerate(part):
                if 2 * k + 1 < len(lines):
                    names[(obj, off)] = (lines[2 * k], lines[2 * k + 1].split(" ")[0])
    sites = {}
    for counted, frames in calls:
        site = None
        for fr in frames:
            fn, where = names.get(fr, ("?", "?:0"))
            if not where.startswith("comm.c:"):
                site = "%s %s" % (fn, where)
                break
        if site is None:
            site = "(comm.c itself)"
        if site not in sites:
            sites[site] = counted
    return sites


def strip_seconds(o):
    """The result without times and read counters: an allocation the code
    can do without (the gap weighing's scratch) may change how it reads,
    not what it gives."""
    if isinstance(o, dict):
        return {k: strip_seconds(v) for k, v in o.items()
                if not k.startswith("seconds") and "bytes" not in k and k != "read_calls"}
    if isinstance(o, list):
        return [strip_seconds(v) for v in o]
    return o


def result_of(name, out):
    """What a successful run produced, to compare with the reference."""
    if name == "plugin":
        rows = plugin_rows(out)
        return sum(r[1] for r in rows.values()) if len(rows) == A.np else None
    if name in ("repart", "join", "split"):
        base, orig = {"repart": (out_base, data), "join": (joined, data),
                      "split": (resplit, mesh)}[name]
        files = sorted(glob.glob(base + "*"))
        rc, d = run([A.mxn, "diff", orig, base], timeout=120)
        return (len(files), rc)
    at = out.find("{")
    if at < 0:
        return None
    try:
        return strip_seconds(json.JSONDecoder().raw_decode(out[at:])[0])
    except ValueError:
        return None


def outputs():
    return sorted(glob.glob(out_base + ".*") + glob.glob(joined + "*") + glob.glob(resplit + "*"))


def clean_out():
    for f in outputs():
        os.remove(f)


failures = []
total_runs = 0
sites_done = set()
tried = set()  # (call stack, and after) of the runs made
for name in A.scenarios.split(","):
    args = SCEN[name]
    clean_out()
    if name == "plugin" and not (A.pvbatch and A.plugin):
        sys.exit("plugin: needs --pvbatch and --plugin")
    rc, out = mpi(args, timeout=120)
    if rc != 0:
        sys.exit("%s: the run without failures failed (%s):\n%s" % (name, rc, out))
    ref = result_of(name, out)
    for rank in ([0] if name in SERIAL else [int(r) for r in A.ranks.split(",")]):
        clean_out()
        notes = os.path.join(A.work, "exchanges.txt") if A.exchanges else ""
        stacks = os.path.join(A.work, "stacks.txt") if not A.exchanges and not A.all else ""
        if name == "plugin":
            # the allocations of one load, from the reader's creation
            # (failalloc_plugin.py counts each load of a session so)
            rc, out = mpi(args, rank, timeout=120, runs=[(0, 0)])
            rows = plugin_rows(out)
            counted = [rows[rank][3]] if rank in rows and rows[rank][3] >= 0 else []
        else:
            rc, out = mpi(args, rank, 0, True, timeout=120, exchanges=notes, sites=stacks)
            counted = [int(l.split()[4]) for l in out.splitlines()
                       if l.startswith("failalloc: rank %d " % rank)]
        if rc != 0 or not counted:
            sys.exit("%s: the counting run failed (%s):\n%s" % (name, rc, out))
        k = counted[0]
        sample = A.plugin_sample if name == "plugin" and A.plugin_sample > 0 else A.sample
        if A.exchanges:
            # each site once: in the first scenario that reaches it
            sites = exchange_sites(notes)
            new = {site: n for site, n in sites.items() if site not in sites_done}
            for site, n in sorted(new.items(), key=lambda x: (x[1], x[0])):
                print("%s: exchange %s: allocation %d" % (name, site, n), flush=True)
            sites_done.update(new)
            ns = sorted(set(n for n in new.values() if n > 0))
            print("%s: %d exchange sites, %d of them new" % (name, len(sites), len(new)),
                  flush=True)
        elif A.all or k <= sample:
            ns = list(range(1, k + 1))
        else:
            ns = sorted(set(list(range(1, 9)) +
                            [1 + (i * (k - 1)) // (sample - 1) for i in range(sample)]))
        print("%s: rank %d makes %d allocations; failing %d of them, one per run%s" %
              (name, rank, k, len(ns),
               " (and again with every later one)" if A.exchanges else
               " (every %d-th run also every later one)" % A.persist if A.persist else ""),
              flush=True)
        # (n, and every later allocation too?)
        if A.exchanges:
            runs = [(n, after) for n in ns for after in (False, True)]
        else:
            runs = [(n, A.persist > 0 and i % A.persist == A.persist - 1) for i, n in enumerate(ns)]
        if stacks and name != "plugin":
            # a run equal to one made already: the same call stack (every
            # frame of the executable) failing, alone or with the later
            # allocations as that one (another scenario of the same
            # command, at the same place of the same code: the re-balances
            # share the load's stacks with stats)
            with open(stacks) as f:
                stack = {int(w[1]): tuple(w[2:]) for w in (l.split() for l in f) if w[0] == "A"}
            kept = []
            for n, after in runs:
                key = (stack.get(n, ("?", name, n)), after)
                if key not in tried:
                    tried.add(key)
                    kept.append((n, after))
            if len(kept) < len(runs):
                print("%s: %d of them at a call stack an earlier run failed the same way: "
                      "not again" % (name, len(runs) - len(kept)), flush=True)
            runs = kept
        if name == "plugin":
            session = plugin_session(args, rank, runs)
        for n, after in runs:
            clean_out()
            if name == "plugin":
                rc, rows, out = session[(n, after)]
            else:
                rc, out = mpi(args, rank, n, timeout=A.timeout, after=after)
            total_runs += 1
            what = None
            if rc is None:
                what = "hung (killed after %g s)" % A.timeout
            elif name == "plugin":
                erred = [r for r in rows if rows[r][0] > 0]
                cells = sum(r[1] for r in rows.values())
                if rc != 0 or len(rows) != A.np:
                    what = "exit %s with results from ranks %s only" % (rc, sorted(rows))
                elif erred and len(erred) != A.np:
                    what = "errors on ranks %s only" % erred
                elif not erred and cells != ref:
                    what = "no error, but %s owned cells (%s without the failure)" % (cells, ref)
            elif rc == 0:
                got = result_of(name, out)
                if got != ref:
                    what = "succeeded with a different result"
            else:
                errs = [l for l in out.splitlines() if "error" in l and l.startswith("mxn")]
                if "signal" in out or "Segmentation" in out or "core dumped" in out:
                    what = "crashed"
                elif rc != 1 and not errs:
                    what = "exit %d without the CLI's error line" % rc
                elif not errs:
                    what = "failed without the CLI's error line"
                elif outputs():
                    what = "left output behind: %s" % [os.path.basename(f) for f in outputs()]
            if what:
                failures.append("%s, rank %d, allocation %d%s: %s" %
                                (name, rank, n, " and after" if after else "", what))
                print("FAIL " + failures[-1], flush=True)
                print("  at " + where(args, rank, n, after), flush=True)
                if rc is not None:
                    print("  " + "\n  ".join(out.strip().splitlines()[-8:]), flush=True)
clean_out()
print("%d runs, %d failures" % (total_runs, len(failures)))
sys.exit(1 if failures else 0)
