"""One benchmark configuration: read a dataset on N ranks to balanced,
ghosted data and measure it. Prints one JSON line (rank 0, prefixed by
"BENCH_JSON ").

usage: mpiexec -n N pvbatch --symmetric bench.py --variant A|B|C
           --dataset PATH [--plugin SO] [--method Files] [--ghost-levels 1]
           [--steps K] [--expect-cells C] [--tag key=value ...]
           [--property NAME=VALUE ...]

Variants (the pipelines of issue 8):
  A  MxNReader(FileName, PartitionMethod, GhostLevels = 1 when the proxy
     has that property; otherwise 0, and the record says so)
  B  ExodusIIReader -> RedistributeDataSet -> GhostCellsGenerator (1 layer)
  C  IOSSReader     -> RedistributeDataSet -> GhostCellsGenerator (1 layer)
Every reader reads all nodal, element and global variables.

Measured, per rank, gathered on rank 0 with the global
vtkMultiProcessController:
  * first: seconds from before the reader proxy is created to the end of
    UpdatePipeline(t0) of the last filter (balanced ghosted data at the
    first step). Before the clock starts, a Sphere source is created and
    deleted: the session's first proxy imports paraview.catalyst (about
    0.1 s), a cost of pvbatch, not of any reader (session_warmup_s, rank
    0's seconds of it); phases: the same clock once the proxies exist and the
    reader's information pass has given its time steps ("create": for A
    that is the collective open of the members), then after the reader's
    and each filter's UpdatePipeline (the filters run in order, each
    update reusing the previous ones). Reported max over ranks.
  * steps: seconds of UpdatePipeline(t_k) of the last filter for each
    further step (up to --steps, default all), max over ranks per step.
  * peak RSS: getrusage(RUSAGE_SELF).ru_maxrss at the end, and before the
    pipeline (python + ParaView + plugin baseline); max and sum over ranks.
    Also RssFile (resident pages mapped from files: the shared libraries
    every rank maps, counted in each rank's RSS though held once) before
    the pipeline and at the end.
  * bytes read: /proc/self/io rchar (bytes through read/pread syscalls,
    page cache hits included) during the first step and during the further
    steps; syscr the number of read calls.
  * files opened: distinct paths starting with MXN_BENCH_OPEN_PREFIX
    (run_bench.sh sets it to the set's base name and a dot, so only member
    files count) opened during the whole run, when opencount.so is
    preloaded (run_bench.sh does it); null otherwise.
  * cells: owned (not DUPLICATECELL) and ghost cells of the last filter's
    output; imbalance = max owned / mean owned; complete = sum of owned
    equals --expect-cells.
  * byte ranges read (when rangelog.so is preloaded, run_bench.sh does
    it for the recording run of the floor variants): the reads of member
    files in four phases, 0 = the reader's creation (its information
    pass), 1 = the rest of the first step, 2 = the first further step,
    3 = the later ones; per rank bytes, reads and mmaps of each phase
    ("ranges"), and with MXN_BENCH_RANGES set each rank's list of ranges
    dumped to $MXN_BENCH_RANGES.<rank> for floor_bench.
  * A only: the core's own counters (mxn_load_stats_t) when the reader
    puts them in its output's field data as a one-tuple vtkDoubleArray
    "mxn_load_stats" whose component names are the struct's field names;
    null when it does not (run_bench.sh then records `mxn stats --json`).

Exit codes: 0 (falling off the end, never sys.exit(0) under mpiexec),
1 failure (os._exit so mpiexec ends the other ranks), 2 bad usage.
"""
import argparse
import json
import os
import platform
import resource
import sys
import time

DUPLICATECELL = 1


def parse_args():
    p = argparse.ArgumentParser(prog="bench.py")
    p.add_argument("--variant", required=True, choices=["A", "B", "C"])
    p.add_argument("--dataset", required=True)
    p.add_argument("--plugin", default="")
    p.add_argument("--method", default="Files")
    p.add_argument("--ghost-levels", type=int, default=1)
    p.add_argument("--steps", type=int, default=0, help="steps to read, 0 = all")
    p.add_argument("--expect-cells", type=int, default=-1)
    p.add_argument("--tag", action="append", default=[], help="key=value copied to the record")
    p.add_argument("--property", action="append", default=[],
                   help="NAME=VALUE set on MxNReader (variant A) before the first step, "
                        "e.g. ApplyDisplacements=0; the value as Python evaluates it")
    # pvbatch may leave its own options in argv; keep only ours.
    args, _ = p.parse_known_args(sys.argv[1:])
    return args


args = parse_args()
dataset = os.path.abspath(args.dataset)

from paraview.simple import *  # noqa: E402,F401,F403
from paraview import servermanager  # noqa: E402
from vtkmodules.vtkCommonCore import vtkDoubleArray  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkDataObjectTreeIterator, vtkDataSet  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes  # noqa: E402
from vtkmodules.vtkParallelCore import vtkMultiProcessController  # noqa: E402

ctrl = vtkMultiProcessController.GetGlobalController()
rank, nranks = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()


def die(msg):
    sys.stdout.write("bench.py: rank %d: FAIL: %s\n" % (rank, msg))
    sys.stdout.flush()
    os._exit(1)


def gather(values):
    """Per-rank lists of floats -> on rank 0, a list (rank-major) of lists."""
    send = vtkDoubleArray()
    send.SetNumberOfComponents(1)
    for v in values:
        send.InsertNextValue(float(v))
    recv = vtkDoubleArray()
    ctrl.AllGatherV(send, recv)
    n = len(values)
    flat = [recv.GetValue(i) for i in range(recv.GetNumberOfTuples())]
    return [flat[r * n:(r + 1) * n] for r in range(nranks)]


def proc_io():
    out = {}
    try:
        with open("/proc/self/io") as f:
            for line in f:
                k, v = line.split(":")
                out[k.strip()] = int(v)
    except OSError:
        pass
    return out


def peak_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def rss_file_kb():
    """Resident pages mapped from files (the shared libraries, mostly),
    /proc/self/status RssFile; -1 where the kernel does not say."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("RssFile:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def opencounter():
    """The preloaded opencount.so, or None."""
    import ctypes
    try:
        lib = ctypes.CDLL(None)
        f = lib.opencount_distinct
    except (OSError, AttributeError):
        return None
    for name in ("opencount_distinct", "opencount_calls", "opencount_overflow"):
        getattr(lib, name).restype = ctypes.c_long
    return lib


def rangelogger():
    """The preloaded rangelog.so, or None."""
    import ctypes
    try:
        lib = ctypes.CDLL(None)
        lib.rangelog_mark
    except (OSError, AttributeError):
        return None
    lib.rangelog_mark.argtypes = [ctypes.c_int]
    lib.rangelog_bytes.restype = lib.rangelog_calls.restype = ctypes.c_longlong
    lib.rangelog_bytes.argtypes = lib.rangelog_calls.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.rangelog_lost.restype = lib.rangelog_stdio.restype = ctypes.c_long
    lib.rangelog_dump.argtypes = [ctypes.c_char_p]
    return lib


RANGE_PHASES = 4  # create, rest of the first step, first further step, later steps


def leaves(dobj):
    if isinstance(dobj, vtkDataSet):
        yield dobj
        return
    it = vtkDataObjectTreeIterator()
    it.SetDataSet(dobj)
    it.VisitOnlyLeavesOn()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        yield it.GetCurrentDataObject()
        it.GoToNextItem()


def count_cells(dobj):
    """(owned cells, ghost cells, points) of this rank's output."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    owned = ghost = points = 0
    for ds in leaves(dobj):
        if ds is None:
            continue
        n = ds.GetNumberOfCells()
        points += ds.GetNumberOfPoints()
        g = ds.GetCellData().GetArray(vtkDataSetAttributes.GhostArrayName())
        ng = int(((vtk_to_numpy(g) & DUPLICATECELL) != 0).sum()) if (g is not None and n) else 0
        ghost += ng
        owned += n - ng
    return owned, ghost, points


def core_stats(dobj):
    """The reader's mxn_load_stats field array as a dict, or None."""
    fd = dobj.GetFieldData() if dobj is not None else None
    a = fd.GetArray("mxn_load_stats") if fd is not None else None
    if a is None or a.GetNumberOfTuples() < 1:
        return None
    return {(a.GetComponentName(c) or "c%d" % c): a.GetComponent(0, c)
            for c in range(a.GetNumberOfComponents())}


def enable_all_arrays(proxy, names):
    """Select every available array of the given array-selection properties."""
    done = []
    for name in names:
        prop = proxy.GetProperty(name)
        if prop is None:
            continue
        try:
            avail = list(prop.Available)
        except (AttributeError, TypeError):
            continue
        if avail:
            proxy.SetPropertyWithName(name, avail)
            done.append("%s=%d" % (name, len(avail)))
    return done


def as_times(prop):
    if prop is None:
        return []
    try:
        return [float(v) for v in prop]
    except TypeError:
        return [float(prop)]


# --- the pipeline ----------------------------------------------------------
if args.variant == "A":
    if not args.plugin or not os.path.isfile(args.plugin):
        die("variant A needs --plugin MxNReader.so (got %r)" % args.plugin)
    LoadPlugin(os.path.abspath(args.plugin), remote=False, ns=globals())
    if "MxNReader" not in globals():
        die("no MxNReader after LoadPlugin(%s)" % args.plugin)

# A spread set is given by a member for ParaView's readers; MxN takes either.
members = sorted(f for f in os.listdir(os.path.dirname(dataset))
                 if f.startswith(os.path.basename(dataset) + "."))
first_member = dataset if os.path.isfile(dataset) else (
    os.path.join(os.path.dirname(dataset), members[0]) if members else dataset)
if not os.path.isfile(first_member):
    die("dataset %s not found" % dataset)

# ParaView's own first-proxy cost, out of the clock for every variant: the
# first source a pvbatch session creates, whatever it is, imports
# paraview.catalyst and its modules (0.09-0.12 s a rank here, 4 ranks on
# 2 cores, for a Sphere as for any reader), the same constant added to
# every pipeline's time; the GUI and pvserver pay it at session start.
w0 = time.perf_counter()
warm = Sphere()  # noqa: F405
Delete(warm)  # noqa: F405
del warm
session_warmup_s = time.perf_counter() - w0

ocnt = opencounter()
rlog = rangelogger()
load_start = list(os.getloadavg())
ctrl.Barrier()
io0, rss0, file0 = proc_io(), peak_rss_kb(), rss_file_kb()
clock = time.perf_counter
if rlog is not None:
    rlog.rangelog_reset()
    rlog.rangelog_mark(0)
t_start = clock()
phase_t = []
notes = []
ghost_applied = None

if args.variant == "A":
    src = MxNReader(FileName=first_member)  # noqa: F405
    src.PartitionMethod = args.method
    for kv in args.property:
        name, value = kv.split("=", 1)
        if name not in src.ListProperties():
            die("MxNReader has no property %s" % name)
        src.SetPropertyWithName(name, eval(value, {}))
    if "GhostLevels" in src.ListProperties():
        src.GhostLevels = args.ghost_levels
        ghost_applied = args.ghost_levels
    else:
        ghost_applied = 0
        notes.append("MxNReader has no GhostLevels property: run without ghosts")
    stages = [("reader", src)]
elif args.variant == "B":
    src = ExodusIIReader(FileName=[first_member])  # noqa: F405
    notes += enable_all_arrays(src, ["PointVariables", "ElementVariables", "GlobalVariables"])
elif args.variant == "C":
    src = IOSSReader(FileName=[first_member])  # noqa: F405
    notes += enable_all_arrays(src, ["NodeBlockFields", "ElementBlockFields"])
if args.variant in ("B", "C"):
    red = RedistributeDataSet(Input=src)  # noqa: F405
    gcg = GhostCellsGenerator(Input=red)  # noqa: F405
    if "BuildIfRequired" in gcg.ListProperties():
        gcg.BuildIfRequired = 0  # always make the layer, requested or not
    if "NumberOfGhostLayers" in gcg.ListProperties():
        gcg.NumberOfGhostLayers = args.ghost_levels
    ghost_applied = args.ghost_levels
    stages = [("reader", src), ("redistribute", red), ("ghosts", gcg)]

last = stages[-1][1]
times = as_times(src.TimestepValues)
t0 = times[0] if times else None
phase_names = ["create"] + [name for name, _ in stages]
phase_t.append(clock() - t_start)
if rlog is not None:
    rlog.rangelog_mark(1)
for name, proxy in stages:
    if t0 is None:
        proxy.UpdatePipeline()
    else:
        proxy.UpdatePipeline(time=t0)
    phase_t.append(clock() - t_start)
t_first = clock() - t_start
if rlog is not None:
    rlog.rangelog_mark(2)
io1 = proc_io()
out = last.GetClientSideObject().GetOutputDataObject(0)
owned, ghosts, points = count_cells(out)
cstats = core_stats(src.GetClientSideObject().GetOutputDataObject(0)) if args.variant == "A" \
    else None
rss1 = peak_rss_kb()

# --- further steps ---------------------------------------------------------
nsteps = len(times) if args.steps <= 0 else min(args.steps, len(times))
step_t = []
for t in times[1:nsteps]:
    ctrl.Barrier()
    s0 = clock()
    last.UpdatePipeline(time=t)
    step_t.append(clock() - s0)
    if rlog is not None:
        rlog.rangelog_mark(3)
io2 = proc_io()
rss2, file2 = peak_rss_kb(), rss_file_kb()
files = opens = overflow = -1
if ocnt is not None:
    files, opens, overflow = (ocnt.opencount_distinct(), ocnt.opencount_calls(),
                              ocnt.opencount_overflow())

mine = ([t_first] + phase_t + step_t +
        [rss0, rss1, rss2,
         io1.get("rchar", -1) - io0.get("rchar", 0), io2.get("rchar", -1) - io1.get("rchar", 0),
         io1.get("syscr", -1) - io0.get("syscr", 0), io2.get("syscr", -1) - io1.get("syscr", 0),
         files, opens, owned, ghosts, points, file0, file2])
allr = gather(mine)
rl_all = None
if rlog is not None:
    dump_to = os.environ.get("MXN_BENCH_RANGES")
    if dump_to and rlog.rangelog_dump(("%s.%d" % (dump_to, rank)).encode()) != 0:
        die("cannot write the ranges to %s.%d" % (dump_to, rank))
    rl_all = gather([rlog.rangelog_bytes(k, 0) for k in range(RANGE_PHASES)] +
                    [rlog.rangelog_calls(k, 0) for k in range(RANGE_PHASES)] +
                    [rlog.rangelog_calls(-1, ord("m")), rlog.rangelog_bytes(-1, ord("m")),
                     rlog.rangelog_lost(), rlog.rangelog_stdio()])
cst_keys = sorted(cstats) if cstats else []
all_cst = gather([cstats[k] for k in cst_keys]) if cstats else None

if rank == 0:
    np_, ns = len(phase_t), len(step_t)

    def col(i):
        return [r[i] for r in allr]

    base = 1 + np_ + ns
    first = col(0)
    phases = {phase_names[k]: max(col(1 + k)) for k in range(np_)}
    steps_max = [max(col(1 + np_ + k)) for k in range(ns)]
    rss_base, rss_first, rss_end = col(base), col(base + 1), col(base + 2)
    rchar_first, rchar_steps = col(base + 3), col(base + 4)
    syscr_first, syscr_steps = col(base + 5), col(base + 6)
    files_r, opens_r = col(base + 7), col(base + 8)
    owned_r, ghost_r, points_r = col(base + 9), col(base + 10), col(base + 11)
    file_base, file_end = col(base + 12), col(base + 13)
    tot_owned = int(sum(owned_r))
    mean_owned = tot_owned / float(nranks) if nranks else 0
    load = os.getloadavg()
    rec = {
        "kind": "run",
        "variant": args.variant,
        "pipeline": {"A": "MxNReader(GhostLevels=%d)" % (ghost_applied or 0),
                     "B": "ExodusIIReader>RedistributeDataSet>GhostCellsGenerator",
                     "C": "IOSSReader>RedistributeDataSet>GhostCellsGenerator"}[args.variant],
        "dataset": dataset,
        "ranks": nranks,
        "method": args.method if args.variant == "A" else None,
        "ghost_levels_requested": args.ghost_levels,
        "ghost_levels_applied": ghost_applied,
        "time_steps": len(times),
        "steps_timed": ns,
        "first_s": max(first),
        "first_s_per_rank": first,
        "phases_s": phases,
        "step_s": steps_max,
        "step_s_median": sorted(steps_max)[ns // 2] if ns else None,
        "rss_base_kb": rss_base,
        "rss_first_kb": rss_first,
        "rss_peak_kb": rss_end,
        "rss_peak_max_kb": max(rss_end),
        "rss_peak_sum_kb": sum(rss_end),
        "rss_base_max_kb": max(rss_base),
        "rss_base_sum_kb": sum(rss_base),
        "rss_file_base_kb": file_base,
        "rss_file_end_kb": file_end,
        "bytes_read_first": [int(v) for v in rchar_first],
        "bytes_read_steps": [int(v) for v in rchar_steps],
        "read_calls_first": [int(v) for v in syscr_first],
        "read_calls_steps": [int(v) for v in syscr_steps],
        "files_opened": [int(v) for v in files_r] if min(files_r) >= 0 else None,
        "open_calls": [int(v) for v in opens_r] if min(opens_r) >= 0 else None,
        "owned_cells": [int(v) for v in owned_r],
        "ghost_cells": [int(v) for v in ghost_r],
        "points": [int(v) for v in points_r],
        "total_owned_cells": tot_owned,
        "total_ghost_cells": int(sum(ghost_r)),
        "imbalance": (max(owned_r) / mean_owned) if mean_owned else None,
        "expect_cells": args.expect_cells if args.expect_cells >= 0 else None,
        "complete": (tot_owned == args.expect_cells) if args.expect_cells >= 0 else None,
        "core_stats_source": "reader field data" if all_cst else None,
        "core_stats": ([dict(zip(cst_keys, r)) for r in all_cst] if all_cst else None),
        "notes": notes,
        "loadavg_start": load_start,
        "loadavg_end": list(load),
        "host": platform.node(),
        "unix_time": time.time(),
        "session_warmup_s": session_warmup_s,
    }
    if rl_all:
        P = RANGE_PHASES
        rec["ranges"] = {
            "phases": ["create", "first step rest", "first further step", "later steps"],
            "file": os.environ.get("MXN_BENCH_RANGES"),
            "bytes": [[int(v) for v in r[:P]] for r in rl_all],
            "reads": [[int(v) for v in r[P:2 * P]] for r in rl_all],
            "mmaps": [int(r[2 * P]) for r in rl_all],
            "mmap_bytes": [int(r[2 * P + 1]) for r in rl_all],
            "lost": [int(r[2 * P + 2]) for r in rl_all],
            "stdio_streams": [int(r[2 * P + 3]) for r in rl_all],
        }
    for kv in args.tag:
        k, _, v = kv.partition("=")
        rec.setdefault("tags", {})[k] = v
    if args.property:
        rec["properties"] = args.property
    sys.stdout.write("BENCH_JSON " + json.dumps(rec, sort_keys=True) + "\n")
    sys.stdout.flush()
# No sys.exit(0): under mpiexec that ends pvbatch before MPI_Finalize.
