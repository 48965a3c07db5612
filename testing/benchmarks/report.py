"""Tables and plots of the benchmark results (issue 8).

usage: python3 testing/benchmarks/report.py [RESULTS.jsonl ...] [--outdir DIR]

Reads the JSON lines written by run_bench.sh (default: every results
file, those of commit archive.ARCHIVE followed by what results/ holds:
archive.py), and writes DIR/BENCHMARKS.md (default
DIR = testing/benchmarks) with its PNG plots beside it. Everything in
BENCHMARKS.md comes from the results files, except the short table of
what was tried (TRIED below, written by hand from the commit history).
Figures are medians over the repeats with the spread [min - max] and the
number of runs. The runs of the reader alone that the many-files table
adds are results/a-only/many-<commit>.jsonl (the current series only;
earlier ones stay in git history).
"""
import argparse
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

import archive

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = {"A": "A MxNReader", "B": "B ExodusII+Redistribute+Ghosts",
            "C": "C IOSS+Redistribute+Ghosts"}
COLORS = {"A": "tab:blue", "B": "tab:orange", "C": "tab:green"}
SIZE_ORDER = {"64k": 0, "1m": 1, "8m": 2, "spread": 9}
MB = 1024.0 * 1024.0


def load(paths):
    """The records of the results files, each tagged with its file (_file)
    and its run (_run: the count of run_bench starts before it in the
    files, its "env" record with when "start")."""
    recs = []
    run = 0
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    sys.stderr.write("report: %s:%d: not JSON, skipped\n" % (p, n))
                    continue
                r["_file"] = os.path.basename(p)
                if r.get("kind") == "env" and r.get("when") == "start":
                    run += 1
                r["_run"] = run
                recs.append(r)
    return recs


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, f="%.2f"):
    return "-" if x is None else f % x


def mspread(xs, f="%.2f"):
    """median [min-max] (n)"""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    if len(xs) == 1:
        return (f % xs[0]) + " (1)"
    return "%s [%s-%s] (%d)" % (f % statistics.median(xs), f % min(xs), f % max(xs), len(xs))


def tag(r, k, default=None):
    return (r.get("tags") or {}).get(k, default)


class Config:
    """The runs of one (set, ranks, variant)."""

    def __init__(self, key):
        self.set, self.ranks, self.variant = key
        self.runs = []

    def vals(self, f):
        return [f(r) for r in self.runs]


def index_runs(recs):
    """The records' datasets by set name, their runs as Configs by (set,
    ranks, variant), and set_info(name) -> (size, split, M, dataset
    record) from the dataset's tags."""
    datasets = {r["set"]: r for r in recs if r.get("kind") == "dataset"}
    configs = {}
    for r in recs:
        if r.get("kind") == "run":
            key = (tag(r, "set"), r["ranks"], r["variant"])
            configs.setdefault(key, Config(key)).runs.append(r)

    def set_info(name):
        ds = datasets.get(name, {})
        t = ds.get("tags", {})
        return t.get("size"), t.get("split"), t.get("M"), ds
    return datasets, configs, set_info


def floor_bytes(ds):
    """Bytes the first step needs, read once over all ranks: coordinates and
    element variables in 8-byte reals, connectivity in 4-byte ints (as the
    generator and ParaView's writer store them); and one further step."""
    if not ds:
        return None, None
    conn = sum(c * n for c, n in zip(ds["block_counts"], ds["nodes_per_element"]))
    step = 8 * (ds["num_nodes"] * ds["node_vars"] + ds["num_elements"] * ds["elem_vars"]
                + ds["global_vars"])
    mesh = 8 * ds["num_nodes"] * ds["num_dim"] + 4 * conn
    return mesh + step, step


def main():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        # A python3 first on PATH (pyenv, venv) may lack Debian's matplotlib
        # (python3-matplotlib, installed by setup.sh): rerun with the system one.
        sysp = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(sysp) and os.path.exists(sysp) \
                and not os.environ.get("MXN_REPORT_REEXEC"):
            os.environ["MXN_REPORT_REEXEC"] = "1"
            os.execv(sysp, [sysp] + sys.argv)
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="*")
    ap.add_argument("--outdir", default=HERE)
    a = ap.parse_args()
    results = archive.results_dir(HERE)
    paths = a.results or sorted(glob.glob(os.path.join(results, "*.jsonl")))
    if not paths:
        sys.exit("report: no results (run testing/benchmarks/run_bench.sh first)")
    recs = load(paths)
    runs = [r for r in recs if r.get("kind") == "run"]
    envs = [r for r in recs if r.get("kind") == "env"]
    fails = [r for r in recs if r.get("kind") == "fail"]
    datasets, configs, set_info = index_runs(recs)
    core = {}
    core_of_run = {}
    for r in recs:
        if r.get("kind") == "core_stats":
            core[(tag(r, "set"), r["ranks"])] = r  # the latest wins
            core_of_run[(tag(r, "set"), r["ranks"], r.get("_run"))] = r

    def set_sort(name):
        size, split, M, ds = set_info(name)
        return (SIZE_ORDER.get(size, 5), split or "", int(M) if M else 0, name)

    sets = sorted({k[0] for k in configs}, key=set_sort)
    os.makedirs(a.outdir, exist_ok=True)
    plots = make_plots(configs, sets, set_info, a.outdir)

    L = []
    w = L.append
    w("# Benchmarks: MxNReader against ParaView's own readers (issue 8)")
    w("")
    w("Generated by `python3 testing/benchmarks/report.py` from %s; the runs by "
      "`bash testing/benchmarks/run_bench.sh [--quick|--key|--small|--full]` (see its "
      "`--help`). Do not edit by hand. The results files are kept in git history, "
      "followed by the runs appended to files of the same names in results/ since "
      "(`archive.py`)." % ", ".join("`%s:testing/benchmarks/results/%s`" % (
          archive.ARCHIVE, os.path.basename(p)) for p in paths))
    w("")
    w("Pipelines, each to balanced data with one ghost layer, every variable read, "
      "through `mpiexec -n N pvbatch --symmetric bench.py`:")
    w("")
    w("* **A** `MxNReader` (PartitionMethod Files, GhostLevels 1);")
    w("* **B** `ExodusIIReader` -> `RedistributeDataSet` -> `GhostCellsGenerator` (1 layer);")
    w("* **C** `IOSSReader` -> `RedistributeDataSet` -> `GhostCellsGenerator` (1 layer).")
    w("")
    w("Measured per configuration (definitions in `bench.py`): *first* = seconds from "
      "creating the reader proxy to the end of the last filter's UpdatePipeline at the "
      "first time step, max over ranks, the clock started after a Sphere was created "
      "and deleted (a session's first proxy, whatever it is, imports "
      "paraview.catalyst: about 0.1 s a rank. Runs whose records lack "
      "`session_warmup_s` paid it inside *first*, every pipeline alike); *step* = the same for each further step (median "
      "over steps of the max over ranks); *peak RSS* = ru_maxrss per rank at the end "
      "(max over ranks and sum), *base* = the same before the pipeline (pvbatch, Python, "
      "plugin); *mapped files* = RssFile at the end on the rank of the highest peak: "
      "resident pages of the shared libraries and other mapped files, which every rank "
      "counts in its RSS though the machine holds them once; *read* = `/proc/self/io` rchar during the first step, summed over ranks "
      "(page-cache hits count, the cache is warm); *files* = distinct member files of the "
      "set each rank opened (LD_PRELOAD counter `opencount.c`); "
      "*imbalance* = max / mean owned cells; *ghosts* = DUPLICATECELL cells over all "
      "ranks. Each cell shows median [min-max] (runs). Variants alternate within a "
      "repeat and their order rotates between repeats.")
    w("")
    w("The *floor* of the bytes read is what the first step needs once over all ranks: "
      "coordinates and variables as 8-byte reals, connectivity as 4-byte ints; "
      "ghost layers and id maps come on top.")
    w("")
    # Environment
    w("## Machine state")
    w("")
    w("| results | mode | commit | when | uptime |")
    w("|---|---|---|---|---|")
    for e in envs:
        w("| %s | %s | %s%s | %s | `%s` |" % (e["_file"], e.get("mode"), e.get("commit"),
                                          "+dirty" if e.get("dirty") else "", e.get("when"),
                                          e.get("uptime")))
    w("")
    loads = [max(r.get("loadavg_start") or [0]) for r in runs]
    if loads:
        w("1-minute load average at the start of the runs: median %.1f, max %.1f on %s cores. "
          "%s" % (statistics.median(loads), max(loads), envs[0].get("nproc") if envs else "?",
                  "The average decays over a minute, so it still counts the previous runs' "
                  "own ranks (up to 8 processes on these cores) besides any other work on "
                  "the machine: it cannot tell the two apart. **Times are noisy (see the "
                  "ranges); compare variants within one run.** Memory, bytes and files do "
                  "not depend on the load." if statistics.median(loads) > 1.5 else ""))
        w("")

    # Key configuration
    key_sets = [s for s in sets if set_info(s)[0] == "1m" and set_info(s)[2] == "64"]
    for ks in key_sets:
        rows = warmed_only([configs[k] for k in sorted(configs) if k[0] == ks and k[1] == 4])
        if rows:
            w("## Key configuration: %s (1M cells, M = 64), N = 4" % ks)
            w("")
            if any(warmed(r) for c in rows for r in c.runs):
                w("Runs whose clock started after ParaView's first-proxy cost "
                  "(`session_warmup_s`) only; the earlier runs of this set stay in the "
                  "results files.")
                w("")
            # the core alone as measured in the newest run the table shows
            newest = max(r.get("_run", 0) for c in rows for r in c.runs)
            key_table(w, rows, datasets.get(ks),
                      core_of_run.get((ks, 4, newest), core.get((ks, 4))))
            w("")

    floor_section(w, recs, configs, sets)

    formats_table(w, configs, sets, set_info)

    w("## Time and memory vs N")
    w("")
    for p in plots.get("time_vs_N", []):
        w("![time vs N](%s)" % p)
    w("")
    for s in sets:
        size, split, M, ds = set_info(s)
        rows = [configs[k] for k in sorted(configs) if k[0] == s]
        if not rows:
            continue
        w("### %s: %s cells, M = %s%s" % (s, fmt(ds.get("num_elements"), "%d"), M,
                                          ", split %s" % split if split and split != "shared"
                                          else ""))
        w("")
        w("| N | variant | first s | step s | peak RSS max MB | peak RSS sum MB | "
          "above base, sum MB | imbalance | ghosts | complete |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for c in rows:
            w("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                c.ranks, c.variant,
                mspread(c.vals(lambda r: r["first_s"])),
                mspread(c.vals(lambda r: r["step_s_median"])),
                mspread(c.vals(lambda r: r["rss_peak_max_kb"] / 1024.0), "%.0f"),
                mspread(c.vals(lambda r: r["rss_peak_sum_kb"] / 1024.0), "%.0f"),
                mspread(c.vals(lambda r: (r["rss_peak_sum_kb"] - r["rss_base_sum_kb"]) / 1024.0),
                        "%.0f"),
                fmt(med(c.vals(lambda r: r["imbalance"])), "%.3f"),
                fmt(med(c.vals(lambda r: r["total_ghost_cells"])), "%d"),
                complete_str(c)))
        w("")

    w("## Bytes read vs floor, files opened")
    w("")
    for p in plots.get("bytes", []):
        w("![bytes read vs floor](%s)" % p)
    w("")
    w("*read* and *floor* in MB summed over ranks for the first step; *per step* the "
      "bytes of one further step over its floor; *files* = files opened per rank "
      "(max, and sum over ranks). *core* = the MxN core's own counters, worst rank: "
      "bytes_read / bytes_needed of the first step (needed counts the piece's own "
      "entries as 8-byte values with their numbered-map values, no gaps, not the ghosts "
      "their owners sent; the members' id maps and sets, read whole once per member a "
      "rank reads from, are counted apart as map_bytes_read and set_bytes_read) "
      "and files_opened, as the reader reports them (below); for runs without them, "
      "from `mxn stats --json --ghosts 1` on the same data and N.")
    w("")
    w("| set | N | variant | read MB | floor MB | read/floor | per step read/floor | "
      "files max | files sum | core read/needed | core files max |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in sets:
        ds = datasets.get(s)
        ff, fs = floor_bytes(ds)
        for c in [configs[k] for k in sorted(configs) if k[0] == s]:
            rd = med(c.vals(lambda r: sum(r["bytes_read_first"])))
            st = med(c.vals(lambda r: sum(r["bytes_read_steps"]) / max(1, r["steps_timed"])
                            if r["steps_timed"] else None))
            fm = med(c.vals(lambda r: max(r["files_opened"]) if r.get("files_opened") else None))
            fsum = med(c.vals(lambda r: sum(r["files_opened"]) if r.get("files_opened") else None))
            cs = core.get((s, c.ranks))
            cr = cf = None
            # The reader's own counters of every rank of every run (worst
            # rank), else those of `mxn stats` on the same data and N.
            per = [x for r in c.runs for x in (r.get("core_stats") or [])]
            if per and c.variant == "A":
                cr = max(x["bytes_read"] / x["bytes_needed"] for x in per if x.get("bytes_needed"))
                cf = max(x["files_opened"] for x in per)
            elif cs and c.variant == "A":
                d = cs["stats"]
                cr = max(x["bytes_read"] / float(x["bytes_needed"]) for x in d["ranks_detail"]
                         if x.get("bytes_needed"))
                cf = max(x["files_opened"] for x in d["ranks_detail"])
            w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                s, c.ranks, c.variant, fmt(rd / MB if rd is not None else None, "%.1f"),
                fmt(ff / MB if ff else None, "%.1f"),
                fmt(rd / ff if rd is not None and ff else None, "%.2f"),
                fmt(st / fs if st is not None and fs else None, "%.2f"),
                fmt(fm, "%d"), fmt(fsum, "%d"), fmt(cr, "%.2f"), fmt(cf, "%d")))
    w("")
    w("Core-side counters of the MxN reader: in the field data of its output "
      "(vtkPartitionedDataSetCollection), one vtkDoubleArray `mxn_load_stats` with one "
      "tuple and one named component per field of `mxn_load_stats_t` (`rank`, `nranks`, "
      "`owned_elements`, `bytes_read`, `bytes_needed`, `files_opened`, `seconds_open`, "
      "`seconds_partition`, `seconds_plan`, `seconds_read`, `seconds_step`, "
      "`ghost_elements`, `imbalance`, ...), this rank's values after the last "
      "RequestData; `bench.py` records them per rank after the first step as the run's "
      "`core_stats`.")
    w("")

    w("## Time per further step")
    w("")
    for p in plots.get("steps", []):
        w("![time per step](%s)" % p)
    w("")
    w("| set | N | A step s | B step s | C step s |")
    w("|---|---|---|---|---|")
    for s in sets:
        for n in sorted({k[1] for k in configs if k[0] == s}):
            cells = []
            for v in "ABC":
                c = configs.get((s, n, v))
                cells.append(mspread(c.vals(lambda r: r["step_s_median"])) if c else "-")
            w("| %s | %d | %s |" % (s, n, " | ".join(cells)))
    w("")

    growth_tables(w, configs, sets, set_info, plots)
    many_files_table(w, configs, set_info,
                     sorted(glob.glob(os.path.join(results, "a-only", "many-*.jsonl"))))

    # the scale benchmark's section (scale_report.py renders it alone too)
    sys.path.insert(0, HERE)
    import scale_report
    scale_recs = [r for r in recs if r.get("kind") == "scale"]
    L.extend(scale_report.section(scale_recs,
                                  [r for r in recs if r.get("kind") == "scale_plugin"]))
    if scale_recs:
        scale_report.plot(scale_recs, os.path.join(a.outdir, scale_report.PLOT))

    w(TRIED)
    w(WHY)
    w("")

    if fails:
        w("## Failed runs")
        w("")
        w("| set | N | variant | exit | last lines |")
        w("|---|---|---|---|---|")
        for r in fails:
            last = " / ".join(x.strip() for x in r.get("log_tail", [])[-3:])[:300]
            w("| %s | %d | %s | %d | %s |" % (tag(r, "set"), r["ranks"], r["variant"], r["exit"],
                                              last.replace("|", "\\|")))
        w("")
    notes = sorted({n for r in runs for n in r.get("notes", []) if "=" not in n})
    if notes:
        w("## Notes from the runs")
        w("")
        for n in notes:
            w("* %s" % n)
        w("")
    out = os.path.join(a.outdir, "BENCHMARKS.md")
    with open(out, "w") as f:
        f.write("\n".join(L).rstrip("\n") + "\n")
    print("report: wrote %s and %d plot(s)" % (out, sum(len(v) for v in plots.values())))


# What was tried to make the load faster, and what it bought: one line per
# mechanism, from the commit history (the measurements are in the commit
# messages and in the files of earlier commits' results/ folders).
TRIED = """## What was tried

Measured on the 1M-hex set (M = 64 unless said, N = 4) in alternating runs
on the project's 2-core virtual machines; the commits hold the details.

| mechanism | commit | measured gain | now |
|---|---|---|---|
| collective open: each rank reads its share of the member headers, summaries exchanged | 7d51c05, 3807cd4 | files opened per rank 64 -> 16-17 | kept |
| distributed directory of element ids; partition moving only ids | f85d8af | no rank reads every id map | kept |
| ghost layers from their owners' records instead of the members | 27b41bf | files per rank with 1 layer 36-37 -> 16-17 | kept |
| information pass opens the members once for the load | 3753ebb | 3 opens of each member -> 1 | kept |
| largest arrays handed to VTK, not copied (`mxn_load_take_block`) | 629e36d | 144 MB per rank less at 8M hex | kept |
| read gaps merged within 8% of the piece's bytes | dca8381 | bytes read / needed 1.00-1.07 | kept |
| radix sorts in the load's hot paths | b4b2e53 | qsort was ~18% of a rank's load | kept |
| transparent huge pages for buffers of 4 MiB and more | 8c3ce98 | 1 rank 1.97 -> 1.60 s | kept |
| buffers backed in one call (`MADV_POPULATE_WRITE`) | d4a7edd | first step 1.67-1.69 -> 1.45-1.51 s | kept |
| heap grown ahead of a load by an estimate | 333ab44, 9604748 | 1.02-1.30 -> 0.81-1.04 s, later slower: 0.42-0.58 against 0.31-0.34 s without | removed (826e9a7) |
| freed memory held in the heap during a load (`mxn_heap_hold`, `mallopt`, `malloc_trim`) | 07acbc6 | 1.32-1.75 -> 1.13-1.27 s on its machine; changes malloc for the whole process | removed in issue 42 |
| direct netCDF-3 reads (`nc3*.c`: own header walk, `pread`) | 889473c ... 9d635b0 | through pvbatch M = 1024 0.40-0.49 against 0.46-0.54 s, M = 64 none | removed in issue 42 (under 15%) |
| descriptor table grown ahead, later on a thread of its own | 620b730, ad65d2d | first open at M = 1024 0.058 -> 0.052 s, whole first load 0.616 against 0.615 s | removed in issue 42 (starts a thread) |
| deflated netCDF-4 chunks decoded by the core: `H5Dread_chunk`, libdeflate, unshuffled into the output | b64c9ef | deflate 1, through pvbatch, N = 4: a further step 0.052-0.054 -> 0.023-0.036 s (3 runs each); the first step 0.84 -> 0.79 and 0.65 -> 0.59 s (13 paired runs, median 0.89x); N = 1 0.98 -> 0.91 s | kept |
| the same with zlib's inflate | measured | about 5% | not kept (under 15%) |
| netCDF-3 numbers read with `pread` into the caller's array and converted in place (the layout from the header walk; netCDF still opens the member and reads the rest) | measured | a serial load's read and seek calls 31.7k -> 4.3k; `mxn stats`, N = 4, 16 alternating rounds: 0.477 against 0.487 s; through pvbatch, 8 rounds: 0.465 against 0.456 s | not kept (no gain) |
| a step's values of a segment read in one HDF5 read over the union of its runs (`H5S_SELECT_OR`), not a read per run | measured | uncompressed netCDF-4, RCB on 3 ranks, through pvbatch, 2 runs each: a further step 0.20-0.21 -> 0.35 s (classic members 0.07-0.08 s) | not kept (slower) |
| core buffers backed from 256 KiB | measured | 2-4 MB more peak a rank, no shorter load | not kept |
| per-member cap on merged gaps | measured (366d29a) | 1.13 read/needed on wavelet20, more reads and slower steps at M = 1024 | not kept |
| I/O aggregator ranks | measured (1a4fd16) | the per-member cost is the same whoever reads | not built |
| agreements waited for asleep (MPI_Iallreduce, then MPI_Test with 50 us naps), not in Open MPI's sched_yield loop: 4 ranks on 2 cores, rank 0 spent 27% of its CPU there (netCDF-4 set) | measured | `mxn stats`, 6 alternating rounds: 0.783 -> 0.770 s (2%) | not kept |

The tables above were measured before issue 42 removed the heap hold, the
direct netCDF-3 reads and the descriptor thread. Measured side by side with
the commit before (`ab_bench.sh`, through pvbatch, 1M hex, N = 4, 5
alternating runs): the first step at M = 64 is 0.97x the earlier one's, at
M = 1024 1.19x (0.62 against 0.52 s; peak RSS +6 MB a rank at M = 64, +14
MB at M = 1024). Members are now opened and their headers read through
netCDF alone, by Exodus's names (the Exodus API's per-call file lookup and
id search had made it 1.31x); what M = 1024 still pays is netCDF's own open
of each member beside the header check (a rank's open phase of 256
members: 0.035 s with the direct reads, 0.10 s now, in `load_bench`).
"""


def complete_str(c):
    vals = c.vals(lambda r: r.get("complete"))
    if all(v is None for v in vals):
        return "?"
    if all(vals):
        return "yes"
    r = c.runs[0]
    return "**no**: %d of %d cells" % (r["total_owned_cells"], r["expect_cells"])


def file_mb(r):
    """RssFile at the end on the rank of the highest peak RSS (MB), None
    for runs recorded before bench.py measured it."""
    fe = r.get("rss_file_end_kb")
    if not fe or min(fe) < 0:
        return None
    k = max(range(len(r["rss_peak_kb"])), key=lambda i: r["rss_peak_kb"][i])
    return fe[k] / 1024.0


def formats_table(w, configs, sets, set_info):
    """Issue 43's axis: per generated mesh size, M and N, one row per member
    format (tag `format` of the set: nc3, nc4, nc4zL): MxNReader against the
    faster of the two ParaView pipelines in the same run."""
    rows = {}
    for s in sets:
        size, split, M, ds = set_info(s)
        f = (ds.get("tags") or {}).get("format") or ("nc3" if size else None)
        if not f or not size:
            continue
        for n in sorted({k[1] for k in configs if k[0] == s}):
            rows.setdefault((size, M, split, n), {})[f] = s
    if not any(len(v) > 1 for v in rows.values()):
        return
    w("## Member formats: classic, netCDF-4, compressed netCDF-4 (issue 43)")
    w("")
    w("The same mesh split the same way, members written by `mxn split --format nc4` "
      "or `--compress L` (nc4zL: deflate level L with shuffle). *speed-up* = the faster "
      "ParaView pipeline's first step over MxNReader's; *memory* = MxNReader's RSS "
      "above pvbatch's base, summed over ranks, over that pipeline's; *step/first* = "
      "MxNReader's further step over its first; medians over runs. The best column "
      "names the faster pipeline of those that ran in the group's run. On the "
      "2-core machines here, N = 4 and 8 run more ranks than cores: there "
      "MxNReader's short runs, whose ranks wait on each other often, lose more "
      "than ParaView's pipelines (compare N = 2 with N = 4 in one run).")
    w("")
    w("| cells | M | split | N | format | A first s | best of B, C: first s | speed-up | "
      "A above base, sum MB | memory A / best | A step / first |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    order = lambda f: (f != "nc3", f)
    for (size, M, split, n) in sorted(rows, key=lambda k: (SIZE_ORDER.get(k[0], 5), int(k[1] or 0),
                                                          k[2] or "", k[3])):
        group = rows[(size, M, split, n)]
        if len(group) < 2:
            continue
        # every format from the results files that measured the others, so
        # the rows of a group come from one run
        # the newest run that measured the other formats: the rows of a
        # group come from one run, of the code as it is now
        last = max((r.get("_run", 0) for f, s in group.items() if f != "nc3"
                    for v in "ABC" for r in (configs.get((s, n, v)).runs
                                             if configs.get((s, n, v)) else [])), default=None)

        def runs(s, v):
            c = configs.get((s, n, v))
            return [r for r in c.runs if r.get("_run") == last] if c else []
        for f in sorted(group, key=order):
            s = group[f]
            ar = runs(s, "A")
            if not ar:
                continue
            at = med([r["first_s"] for r in ar])
            am = med([(r["rss_peak_sum_kb"] - r["rss_base_sum_kb"]) / 1024.0 for r in ar])
            ast = med([r["step_s_median"] for r in ar])
            best = None
            for v in ("B", "C"):
                rr = [r for r in runs(s, v) if r.get("exit", 0) == 0]
                if not rr:
                    continue
                t = med([r["first_s"] for r in rr])
                m = med([(r["rss_peak_sum_kb"] - r["rss_base_sum_kb"]) / 1024.0 for r in rr])
                if t is not None and (best is None or t < best[0]):
                    best = (t, m, v)
            w("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                size, M, split or "", n, f, fmt(at, "%.2f"),
                "%s (%s)" % (fmt(best[0], "%.2f"), best[2]) if best else "-",
                fmt(best[0] / at if best and at else None, "%.1fx"),
                fmt(am, "%.0f"),
                fmt(am / best[1] if best and best[1] and am is not None else None, "%.2f"),
                fmt(ast / at if ast is not None and at else None, "%.3f")))
    w("")


def warmed(r):
    """Whether run r started the clock after ParaView's first-proxy cost
    (bench.py's session_warmup_s)."""
    return r.get("session_warmup_s") is not None


def warmed_only(rows):
    """rows (Configs of one set and N) with only the warmed runs, where
    some are: those before carry ~0.1 s a rank more, every variant alike.
    Unchanged where none are."""
    if not any(warmed(r) for c in rows for r in c.runs):
        return rows
    out = []
    for c in rows:
        k = Config((c.set, c.ranks, c.variant))
        k.runs = [r for r in c.runs if warmed(r)]
        if k.runs:
            out.append(k)
    return out


def paired_speedups(rows):
    """[(variant, [its first step over A's, per repeat])] for B and C: runs
    paired by results file and repeat tag, A's and the other's of one run."""
    a = {(r.get("_run"), tag(r, "repeat")): r["first_s"] for c in rows if c.variant == "A"
         for r in c.runs if tag(r, "repeat") is not None and r.get("first_s")}
    out = []
    for c in rows:
        if c.variant == "A":
            continue
        x = [r["first_s"] / a[(r.get("_run"), tag(r, "repeat"))] for r in c.runs
             if r.get("exit", 0) == 0 and (r.get("_run"), tag(r, "repeat")) in a]
        if x:
            out.append((c.variant, x))
    return out


def key_table(w, rows, ds, cs):
    ff, fs = floor_bytes(ds)
    w("| variant | first s | step s | peak RSS max MB | of it mapped files, MB | "
      "peak RSS sum MB | above base, sum MB | "
      "read MB (floor %s) | files per rank max | imbalance | ghosts | complete |"
      % fmt(ff / MB if ff else None, "%.1f"))
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in rows:
        w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            VARIANTS[c.variant], mspread(c.vals(lambda r: r["first_s"])),
            mspread(c.vals(lambda r: r["step_s_median"])),
            mspread(c.vals(lambda r: r["rss_peak_max_kb"] / 1024.0), "%.0f"),
            mspread(c.vals(file_mb), "%.0f"),
            mspread(c.vals(lambda r: r["rss_peak_sum_kb"] / 1024.0), "%.0f"),
            mspread(c.vals(lambda r: (r["rss_peak_sum_kb"] - r["rss_base_sum_kb"]) / 1024.0),
                    "%.0f"),
            fmt(med(c.vals(lambda r: sum(r["bytes_read_first"]) / MB)), "%.1f"),
            fmt(med(c.vals(lambda r: max(r["files_opened"]) if r.get("files_opened") else None)),
                "%d"),
            fmt(med(c.vals(lambda r: r["imbalance"])), "%.3f"),
            fmt(med(c.vals(lambda r: r["total_ghost_cells"])), "%d"),
            complete_str(c)))
    w("")
    paired = paired_speedups(rows)
    if paired:
        w("Speed-up over MxNReader, paired: each ParaView pipeline's first step over "
          "MxNReader's in the same repeat of the same run (the two ran one after the "
          "other), median [range] over repeats. The machines' speed drifts by tens of "
          "percent over minutes, which moves both medians above; a pair sees nearly "
          "the same machine: %s." % "; ".join(
              "%s %s [%s-%s] (%d)" % (VARIANTS[v][:1], fmt(med(x), "%.1fx"), fmt(min(x), "%.1f"),
                                      fmt(max(x), "%.1f"), len(x)) for v, x in paired))
        w("")
    # Phases of B and C, the core's phases for A
    w("Phases (cumulative seconds at the end of each stage, median over runs):")
    w("")
    for c in rows:
        ph = defaultdict(list)
        for r in c.runs:
            for k, v in r.get("phases_s", {}).items():
                ph[k].append(v)
        w("* %s: %s" % (VARIANTS[c.variant], ", ".join(
            "%s %.2f" % (k, statistics.median(v)) for k, v in
            sorted(ph.items(), key=lambda kv: statistics.median(kv[1])))))
    if cs:
        d = cs["stats"]
        sm = dict(d.get("seconds_max", {}))
        if "ghost" not in sm:  # mxn stats gives the ghost layer's per rank
            g = [x.get("seconds", {}).get("ghost") for x in d.get("ranks_detail", [])]
            if g and None not in g:
                sm["ghost"] = max(g)
        w("* core alone (`mxn stats --ghosts 1`, max over ranks): %s; ghost layer %s s; "
          "read/needed %.2f; files opened per rank max %d; imbalance %.4f" % (
              ", ".join("%s %.2f" % (k, sm[k]) for k in ("open", "partition", "plan", "read")
                        if k in sm), fmt(sm.get("ghost")),
              d["bytes_read"] / float(d["bytes_needed"]) if d.get("bytes_needed") else 0,
              max(x["files_opened"] for x in d["ranks_detail"]), d["imbalance"]))


def floor_section(w, recs, configs, sets):
    """Issue 60: MxNReader's first step and further step as multiples of
    the floor of its bytes (F: its recorded ranges replayed; W: the covered
    members read whole), and its phases each beside its own floor."""
    floors = defaultdict(list)  # (set, ranks, variant) -> floor records
    for r in recs:
        if r.get("kind") == "floor":
            floors[(tag(r, "set"), r["ranks"], r["variant"])].append(r)
    ranges = {}
    for r in recs:
        if r.get("kind") == "ranges":
            ranges[(tag(r, "set"), r["ranks"])] = r  # the latest wins
    keys = sorted({(s, n) for (s, n, v) in floors}, key=lambda k: (
        sets.index(k[0]) if k[0] in sets else len(sets), k[1]))
    w("## Floor: the first step against reading its bytes (issue 60)")
    w("")
    w("Variants F and W (`run_bench.sh --variants \"A F W\"`): a recording run of A under "
      "the `rangelog.c` shim (LD_PRELOAD) lists, per rank, every byte range read from the "
      "member files (read, pread, preadv, fread; a mapping of a member is counted, in the "
      "table's last column, not replayed) "
      "in four phases: the reader's creation (its information pass, which opens the set), "
      "the rest of the first step, the first further step, the later steps. "
      "**F** (`floor_bench`) replays on the same N ranks each phase's ranges with one pread "
      "each into one buffer, opening inside its clock the files the phase opened, timed "
      "between barriers, max over ranks: no VTK, and no decoding but of compressed "
      "members (below). **W** reads every member each rank touched in the first step, whole (the stored bytes, never decoded). Page "
      "cache warm for every run. "
      "*first x F* = A's first step (median) / F's (median); *step x F* = A's first "
      "further step / F's replay of that step's ranges (the field bytes). For compressed "
      "members (nc4zL) F also inflates every chunk it reads, with libdeflate as the core "
      "does (`floor_bench --decode`; not the unshuffle): their floor is read + decode once; "
      "the phase table gives the bytes F inflated beside the core's `bytes_decompressed`.")
    w("")
    if not keys:
        w("(no floor runs: `bash testing/benchmarks/run_bench.sh --key --variants \"A F W\"`)")
        w("")
        return
    w("| set | N | A first s | F first s | W first s | first x F | first x W | "
      "A step s | F step s | step x F | ranges MB first / step (sum) | mmaps |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (s, n) in keys:
        a = configs.get((s, n, "A"))
        ar = beside(a, floors.get((s, n, "F"), []))
        af = med([r["first_s"] for r in ar])
        ast = med([r["step_s"][0] for r in ar if r["step_s"]])
        ff = [r["first_s"] for r in floors.get((s, n, "F"), [])]
        fs = [r["step_s"][0] for r in floors.get((s, n, "F"), []) if r["step_s"]]
        wf = [r["first_s"] for r in floors.get((s, n, "W"), [])]
        g = (ranges.get((s, n)) or {}).get("ranges")
        rmb = ("%.1f / %.1f" % (sum(b[0] + b[1] for b in g["bytes"]) / MB,
                                sum(b[2] for b in g["bytes"]) / MB)) if g else "-"

        def ratio(x, y):
            return fmt(x / y if x is not None and y else None, "%.1fx")
        w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            s, n, mspread([r["first_s"] for r in ar]) if ar else "-", mspread(ff, "%.4f"),
            mspread(wf, "%.4f"), ratio(af, med(ff)), ratio(af, med(wf)),
            fmt(ast, "%.3f"), mspread(fs, "%.4f"), ratio(ast, med(fs)), rmb,
            fmt(sum(g["mmaps"]), "%d") if g else "-"))
    w("")
    for (s, n) in keys:
        phase_table(w, s, n, configs.get((s, n, "A")), floors.get((s, n, "F"), []),
                    floors.get((s, n, "W"), []))


def beside(a, fl):
    """The runs of A beside the floor runs fl: A's latest, those within an
    hour of its last record (the floor runs alternate with them in one
    run_bench run; the archive holds A runs of older commits of the same
    configuration, which a floor measured now does not fit)."""
    if not a or not fl:
        return []
    last = max((r.get("unix_time", 0) for r in a.runs), default=0)
    return [r for r in a.runs if r.get("unix_time", 0) >= last - 3600]


def phase_table(w, s, n, a, fl, wl):
    """One configuration's phases: MxNReader's (bench.py's clock and the
    reader's mxn_load_stats, max over ranks, median over runs) beside the
    floor of each where there is one."""
    if not a or not fl:
        return
    runs = [r for r in beside(a, fl) if r.get("core_stats") and "create" in r.get("phases_s", {})]
    w("### Phases: %s, N = %d" % (s, n))
    w("")
    if not runs:
        w("(the A runs carry no `mxn_load_stats`: no per-phase table)")
        w("")
        return

    def per_rank(r, f):
        """f(core stats of rank k) for each rank of run r."""
        return [f(x) for x in r["core_stats"]]

    def cmax(f):  # median over runs of the max over ranks
        return med([max(per_rank(r, f)) for r in runs])

    def ph(name):
        return med([r["phases_s"].get(name) for r in runs])
    create, reader = ph("create"), ph("reader")

    def core_load(x):
        return (x["seconds_open"] + x["seconds_directory"] + x["seconds_check"]
                + x["seconds_partition"] + x["seconds_read"])
    conv = med([r["phases_s"]["reader"] - r["phases_s"]["create"] - max(per_rank(r, core_load))
                for r in runs])
    # F per rank: the replay's seconds of phase k, median over runs.
    nr = min(len(r["phase_s_per_rank"]) for r in fl)
    fsec = [[med([r["phase_s_per_rank"][k][p] for r in fl]) for p in range(3)] for k in range(nr)]

    def core_total(x):
        """Everything the core counted read in the load (its own units:
        each entry as its 8-byte memory type, decoded bytes for compressed
        members)."""
        return (x["bytes_read"] + x["map_bytes_read"] + x["set_bytes_read"]
                + x["check_bytes_read"] + x["partition_bytes_read"])

    def share(f):
        """Max over ranks of F's replay of the load (its seconds) times the
        share f(stats) has of the core's count of the load's bytes (median
        over runs of A): the files' bytes and the core's units differ (ids
        are 4 bytes in most files, 8 in the count), their shares less."""
        vals = []
        for r in runs:
            xs, tot = per_rank(r, f), per_rank(r, core_total)
            if len(xs) != nr:
                return None
            vals.append(max(fsec[k][1] * b / tot[k] if tot[k] else 0 for k, b in enumerate(xs)))
        return med(vals)

    def fmax(p):
        return med([max(r["phase_s_per_rank"][k][p] for k in range(len(r["phase_s_per_rank"])))
                    for r in fl])
    rows = [
        ("open (the information pass: `create` of bench.py's clock)", create, fmax(0),
         "F: its ranges replayed (opens, headers)"),
        ("load + conversion (rest of the first step)",
         reader - create if reader is not None and create is not None else None, fmax(1),
         "F: its ranges replayed"),
        ("&nbsp;&nbsp;ids, directory, owners (`seconds_directory`)",
         cmax(lambda x: x["seconds_directory"]), share(lambda x: x["map_bytes_read"]),
         "F's load x the id maps' share (`map_bytes_read`); "
         "the directory's exchanges: no floor"),
        ("&nbsp;&nbsp;shared-node check (`seconds_check`)", cmax(lambda x: x["seconds_check"]),
         share(lambda x: x["check_bytes_read"]), "F's load x `check_bytes_read`'s share"),
        ("&nbsp;&nbsp;partition (`seconds_partition`)", cmax(lambda x: x["seconds_partition"]),
         share(lambda x: x["partition_bytes_read"]),
         "F's load x `partition_bytes_read`'s share; ids and weights moving: no floor"),
    ]
    timed = all("seconds_piece_read" in x for r in runs for x in r["core_stats"])
    piece_share = share(lambda x: x["bytes_read"] - x["ghost_bytes_read"] + x["set_bytes_read"])
    if timed:
        # the reads of the extraction timed apart (seconds_piece_read): the
        # rest of seconds_plan is the cover, the plan and placing values
        rows += [
            ("&nbsp;&nbsp;cover + plan (`seconds_plan` - `seconds_piece_read`)",
             cmax(lambda x: x["seconds_plan"] - x["seconds_piece_read"]), None,
             "no floor measured (its inputs are O(own elements))"),
            ("&nbsp;&nbsp;read (`seconds_piece_read`)", cmax(lambda x: x["seconds_piece_read"]),
             piece_share, "F's load x the piece's and its sets' share"),
            ("&nbsp;&nbsp;ghosts (`seconds_ghost` - `seconds_order`)",
             cmax(lambda x: x["seconds_ghost"] - x["seconds_order"]),
             share(lambda x: x["ghost_bytes_read"]),
             "F's load x the halo's share (`ghost_bytes_read`)"),
            ("&nbsp;&nbsp;order (`seconds_order`)", cmax(lambda x: x["seconds_order"]), None,
             "no floor (0 unless inner cells go first)"),
            ("&nbsp;&nbsp;of all the above: inside member reads (`seconds_io`)",
             cmax(lambda x: x["seconds_io"]), fmax(1), "F: the load's ranges replayed"),
        ]
    else:
        rows += [
            ("&nbsp;&nbsp;cover + plan + read (`seconds_plan`)", cmax(lambda x: x["seconds_plan"]),
             piece_share,
             "F's load x the piece's and its sets' share; these stats time the plan and "
             "the read as one (cover to extraction)"),
            ("&nbsp;&nbsp;ghosts, with the order of blocks (`seconds_ghost`)",
             cmax(lambda x: x["seconds_ghost"]), share(lambda x: x["ghost_bytes_read"]),
             "F's load x the halo's share (`ghost_bytes_read`); these stats have no timer "
             "for the order"),
        ]
    rows += [
        ("&nbsp;&nbsp;entity owners, hints, stats (`seconds_read` - plan - ghosts)",
         cmax(lambda x: x["seconds_read"] - x["seconds_plan"] - x["seconds_ghost"]), None,
         "no floor"),
        ("&nbsp;&nbsp;conversion to VTK (rest of the first step - the core's load)", conv, None,
         "no floor (a copy of the piece's bytes is not measured)"),
        ("first step", med([r["first_s"] for r in runs]), med([r["first_s"] for r in fl]),
         "F: open + load replayed; W (members whole): %s s" % fmt(
             med([r["first_s"] for r in wl]), "%.3f")),
        ("further step (`step_s`, the first)",
         med([r["step_s"][0] for r in runs if r["step_s"]]), fmax(2),
         "F: that step's ranges replayed (field bytes)"),
    ]
    w("| phase | MxNReader s | floor s | multiple | floor |")
    w("|---|---|---|---|---|")
    for name, t, f, what in rows:
        w("| %s | %s | %s | %s | %s |" % (name, fmt(t, "%.3f"), fmt(f, "%.4f"),
                                          fmt(t / f if t is not None and f else None, "%.1fx"),
                                          what))
    dec = med([sum(x.get("bytes_decompressed", 0) for x in r["core_stats"]) for r in runs])
    fdec = med([sum(sum(x[:2]) for x in r["decoded_per_rank"]) for r in fl
                if r.get("decoded_per_rank")])
    w("")
    w("MxNReader's seconds: bench.py's clock (open, load + conversion, first and further "
      "step) and the reader's `mxn_load_stats` (the indented rows), max over ranks, median "
      "over %d runs; F's seconds max over ranks, median over %d runs. A core phase's floor: "
      "on each rank, F's replay of the load (the first step after the open) times the "
      "phase's share of the bytes the core counts read in the load (bytes_read, "
      "map_bytes_read, set_bytes_read, check_bytes_read, partition_bytes_read: in its "
      "memory units, decoded for compressed members), max over ranks.%s" % (
          len(runs), len(fl), " Chunks inflated in the first step, sum over ranks: the core "
          "%.1f MB (`bytes_decompressed`), F %s MB." % (
              dec / MB, fmt(fdec / MB if fdec is not None else None, "%.1f")) if dec else ""))
    w("")


def growth_tables(w, configs, sets, set_info, plots):
    # Growth with mesh size: same split, M, N across sizes.
    groups = defaultdict(list)
    groups_m = defaultdict(list)
    for s in sets:
        size, split, M, ds = set_info(s)
        if size in (None, "spread"):
            continue
        groups[(split, M)].append(s)
        groups_m[(split, size)].append(s)
    w("## Growth with mesh size")
    w("")
    for p in plots.get("growth", []):
        w("![growth](%s)" % p)
    w("")
    any_rows = False
    w("| split | M | N | cells | A first s | B first s | C first s | A / B / C peak RSS max MB |")
    w("|---|---|---|---|---|---|---|---|")
    for (split, M), ss in sorted(groups.items(), key=lambda kv: (kv[0][0], int(kv[0][1]))):
        if len(ss) < 2:
            continue
        for n in sorted({k[1] for k in configs if k[0] in ss}):
            for s in ss:
                row = growth_row(configs, s, n)
                if row:
                    any_rows = True
                    w("| %s | %s | %d | %s | %s |" % (split, M, n,
                                                      fmt(set_info(s)[3].get("num_elements"), "%d"),
                                                      row))
    if not any_rows:
        w("| (needs two mesh sizes with the same split, M and N: run --small/--full) |||||||| ")
    w("")
    w("## Growth with M (member files)")
    w("")
    any_rows = False
    w("| split | cells | N | M | A first s | B first s | C first s | A / B / C peak RSS max MB |")
    w("|---|---|---|---|---|---|---|---|")
    for (split, size), ss in sorted(groups_m.items(), key=lambda kv: (kv[0][0],
                                                                       SIZE_ORDER.get(kv[0][1], 5))):
        if len(ss) < 2:
            continue
        for n in sorted({k[1] for k in configs if k[0] in ss}):
            for s in sorted(ss, key=lambda x: int(set_info(x)[2])):
                row = growth_row(configs, s, n)
                if row:
                    any_rows = True
                    w("| %s | %s | %d | %s | %s |" % (split, fmt(set_info(s)[3].get("num_elements"),
                                                                 "%d"), n, set_info(s)[2], row))
    if not any_rows:
        w("| (needs two M with the same mesh, split and N: run --small/--full) |||||||| ")
    w("")


def many_files_table(w, configs, set_info, extra):
    """The issue's many-files goal: A's first step at M = 1024 against
    M = 64 on the same mesh and N, per byte on disk (the 1024 members hold
    more bytes: shared nodes are stored once per member). From the matrix
    above and from runs of A alone (`results/a-only/many-<commit>.jsonl`),
    which give more repeats than the matrix affords."""
    rows = []

    def add(source, cfgs, set_info):
        size_sets = defaultdict(dict)
        for s in sorted({k[0] for k in cfgs}):
            size, split, M, ds = set_info(s)
            if size not in (None, "spread") and M in ("64", "1024"):
                size_sets[(split, size)][M] = s
        for (split, size), pair in sorted(size_sets.items(),
                                          key=lambda kv: SIZE_ORDER.get(kv[0][1], 5)):
            if "64" not in pair or "1024" not in pair:
                continue
            for n in sorted({k[1] for k in cfgs if k[0] == pair["64"] and k[2] == "A"}):
                a, b = cfgs.get((pair["64"], n, "A")), cfgs.get((pair["1024"], n, "A"))
                if not a or not b:
                    continue
                ta, tb = med(a.vals(lambda r: r["first_s"])), med(b.vals(lambda r: r["first_s"]))
                ds64, ds1024 = set_info(pair["64"])[3], set_info(pair["1024"])[3]
                fa, fb = ds64.get("file_bytes"), ds1024.get("file_bytes")
                per = (tb / fb) / (ta / fa) if fa and fb and ta else None
                rows.append("| %s | %s | %d | %s | %s | %s / %s | %s |" % (
                    source, fmt(ds64.get("num_elements"), "%d"), n,
                    mspread(a.vals(lambda r: r["first_s"])),
                    mspread(b.vals(lambda r: r["first_s"])),
                    fmt(fa / MB if fa else None, "%.0f"), fmt(fb / MB if fb else None, "%.0f"),
                    fmt(per, "%.2f")))

    add("matrix above", configs, set_info)
    for path in extra:
        recs = load([path])
        _, cfgs, info_of = index_runs(recs)
        env = [r for r in recs if r.get("kind") == "env"]
        commit = env[0].get("commit") if env else "?"
        # Whether the sets took turns: runs in time order, switches of set.
        seq = [tag(r, "set") for r in sorted((r for r in recs if r.get("kind") == "run"),
                                             key=lambda r: r.get("unix_time", 0))]
        turns = sum(1 for x, y in zip(seq, seq[1:]) if x != y)
        order = "taking turns" if turns * 2 >= len(seq) else "one set's runs, then the next's"
        runs = [r for r in recs if r.get("kind") == "run"]
        if runs and all(r.get("warmed") for r in runs):
            order += ", each from a warm page cache"
        add("A alone at %s, %s (`%s:testing/benchmarks/results/a-only/%s`)"
            % (commit, order, archive.ARCHIVE, os.path.basename(path)),
            cfgs, info_of)
    w("## Many files: M = 1024 against M = 64, per byte on disk")
    w("")
    w("A's first step (median [min-max] (runs)) on the same mesh and N, and the set's bytes "
      "on disk (MiB): the 1024 members hold more, since a node on a member boundary is "
      "stored in every member that has it. *per byte* = (M = 1024 seconds per byte) / "
      "(M = 64 seconds per byte); the goal (at N = 4) is at most 1. Runs of A alone "
      "(`run_bench.sh --variants A`, one set per call) give more repeats than the matrix "
      "affords; the source says whether the two sets took turns, and whether each run "
      "first read its set so that it started from a warm page cache (`run_bench.sh` does "
      "since 139384b: these machines page out file cache left unused for a minute).")
    w("")
    w("| source | cells | N | M = 64 first s | M = 1024 first s | MB on disk (64 / 1024) "
      "| per byte |")
    w("|---|---|---|---|---|---|---|")
    for r in rows:
        w(r)
    if not rows:
        w("| (needs M = 64 and M = 1024 of one mesh on one N) |||||||")
    w("")


def growth_row(configs, s, n):
    cs = [configs.get((s, n, v)) for v in "ABC"]
    if not any(cs):
        return None
    times = [mspread(c.vals(lambda r: r["first_s"])) if c else "-" for c in cs]
    rss = [fmt(med(c.vals(lambda r: r["rss_peak_max_kb"] / 1024.0)), "%.0f") if c else "-"
           for c in cs]
    return "%s | %s" % (" | ".join(times), " / ".join(rss))


def make_plots(configs, sets, set_info, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("report: matplotlib missing, no plots\n")
        return {}
    out = defaultdict(list)

    def series(s, v, f):
        xs, ys, lo, hi = [], [], [], []
        for n in sorted({k[1] for k in configs if k[0] == s}):
            c = configs.get((s, n, v))
            if not c:
                continue
            vals = [x for x in c.vals(f) if x is not None]
            if not vals:
                continue
            m = statistics.median(vals)
            xs.append(n)
            ys.append(m)
            lo.append(m - min(vals))
            hi.append(max(vals) - m)
        return xs, ys, [lo, hi]

    def per_set_plot(fname, title, ylabel, f, logy=False):
        if not sets:
            return
        k = len(sets)
        cols = min(3, k)
        rows = (k + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
        for i, s in enumerate(sets):
            ax = axes[i // cols][i % cols]
            for v in "ABC":
                xs, ys, err = series(s, v, f)
                if xs:
                    ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=COLORS[v],
                                label=VARIANTS[v])
            ax.set_title(s, fontsize=9)
            ax.set_xscale("log", base=2)
            if logy:
                ax.set_yscale("log")
            ax.set_xlabel("N (ranks)")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        for j in range(k, rows * cols):
            axes[j // cols][j % cols].axis("off")
        axes[0][0].legend(fontsize=7)
        fig.suptitle(title)
        fig.tight_layout()
        p = os.path.join(outdir, fname)
        fig.savefig(p, dpi=90)
        plt.close(fig)
        return os.path.basename(p)

    p = per_set_plot("bench_time_vs_N.png", "Time to balanced ghosted data (first step)",
                     "seconds (max over ranks)", lambda r: r["first_s"])
    if p:
        out["time_vs_N"].append(p)
    p = per_set_plot("bench_rss_vs_N.png", "Peak RSS, max over ranks", "MB",
                     lambda r: r["rss_peak_max_kb"] / 1024.0)
    if p:
        out["time_vs_N"].append(p)
    p = per_set_plot("bench_step_vs_N.png", "Time per further step", "seconds (max over ranks)",
                     lambda r: r["step_s_median"])
    if p:
        out["steps"].append(p)

    # Bytes read over all ranks per configuration, as bars.
    labels, vals = [], defaultdict(list)
    for s in sets:
        for n in sorted({k[1] for k in configs if k[0] == s}):
            labels.append("%s\nN=%d" % (s, n))
            for v in "ABC":
                c = configs.get((s, n, v))
                vals[v].append(med(c.vals(lambda r: sum(r["bytes_read_first"]) / MB)) if c else 0)
    if labels:
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(labels)), 4))
        wdt = 0.27
        for i, v in enumerate("ABC"):
            ax.bar([x + (i - 1) * wdt for x in range(len(labels))],
                   [y or 0 for y in vals[v]], wdt, color=COLORS[v], label=VARIANTS[v])
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=6, rotation=30, ha="right")
        ax.set_ylabel("MB read in the first step (sum over ranks)")
        ax.legend(fontsize=7)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "bench_bytes.png"), dpi=90)
        plt.close(fig)
        out["bytes"].append("bench_bytes.png")

    # Growth with size and with M, a line per (variant, split, M or size, N)
    # with two or more points.
    gen = [s for s in sets if set_info(s)[0] not in (None, "spread")]
    if len(gen) >= 2:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for v in "ABC":
            by_m = defaultdict(list)
            by_size = defaultdict(list)
            for s in gen:
                size, split, M, ds = set_info(s)
                ns = sorted({k[1] for k in configs if k[0] == s and k[2] == v})
                if not ns:
                    continue
                for n in ns:
                    t = med(configs[(s, n, v)].vals(lambda r: r["first_s"]))
                    by_size[(split, M, n)].append((ds.get("num_elements", 0), t))
                    by_m[(split, size, n)].append((int(M), t))
            for (split, M, n), pts in by_size.items():
                if len(pts) > 1:
                    pts.sort()
                    axes[0].plot(*zip(*pts), marker="o", color=COLORS[v],
                                 label="%s %s M=%s N=%d" % (v, split, M, n))
            for (split, size, n), pts in by_m.items():
                if len(pts) > 1:
                    pts.sort()
                    axes[1].plot(*zip(*pts), marker="o", color=COLORS[v],
                                 label="%s %s %s N=%d" % (v, split, size, n))
        for ax, xl in zip(axes, ("cells", "M (member files)")):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(xl)
            ax.set_ylabel("first step, s")
            ax.grid(alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "bench_growth.png"), dpi=90)
        plt.close(fig)
        out["growth"].append("bench_growth.png")
    return out



# Measurements that once sat in the core's comments (the comments say why;
# the figures, from the commits that made each change, are kept here).
WHY = """## Figures behind the core's comments

Measurements that once sat in the core's comments, where they would go
stale; the comments now say why. Each was taken on the project's 2-core
virtual machines at the commit that made the change.

| where | choice | measured |
|---|---|---|
| `core/src/io/store.h` open-file cap | a high cap on open members | cap 256, one rank reading 1024 members: 8,250 opens |
| `core/src/io/store.h`, `core/src/io/member.c` netCDF-4 members closed when not needed | an open HDF5 file keeps its metadata cache | 512 KB table, about 1 MB a member (1M hex in 1024); closing at the end of a load: 38 MB off the peak (N = 4, M = 64), steps no slower |
| `core/src/io/member.c`, `core/src/io/h5light.c` netCDF-4 through HDF5 | netCDF's open loads every dataset's metadata | 4.3 ms and 2.9 MB a member (1M hex in 64) |
| `core/src/io/h5light.h` names kept from open to open | listing the root group again | 90 names, a fifth of a step at M = 1024 |
| `core/src/io/h5light.c` chunks decoded by the core | HDF5's pipeline: inflate, unshuffle, convert, scatter | 16 deflate-1 members of 1M hex in 64: 131 ms through H5Dread, 68 ms zlib alone, 18 ms libdeflate; vectorized unshuffle 2-3x faster than GCC -O2's |
| `core/src/io/h5light.c` conversion buffer sized to the read | HDF5 clears 1 MB for each converting read | 2% of a rank's samples (1M hex in 64 compressed members, N = 4) |
| `core/src/io/records.h` recent boxes | one box kept | a rank reading part of a compressed member (M = 4, N = 3) decompressed its chunks 124 times |
| `core/src/io/member.c` shape rules by two letters | all 47 rules in turn | two thirds of the check, 28 k instructions a member; by first letter, a third |
| `core/src/structure/summary.c` only first and last times read at open | every member's every time | 200 steps of 1024 members: 51 k reads a rank (N = 4), 0.06-0.2 s of the open |
| `core/src/structure/nodecheck.c` radix sort of copies | qsort with a comparator | a third of the check for a thousand small members |
| `core/src/structure/nodecheck.c` first-copy table by id | a hash of the id | 1M hex, N = 2, a rank comparing: M = 1024 12.8 against 6.6 ms; M = 64 2.6 against 1.3 ms |
| `core/src/structure/nodecheck.c` first copies only | every copy kept | 1M hex, M = 1024, N = 4: 75 k of 156 k copies kept, 7.5 MB a rank spared |
| `core/src/structure/nodecheck.c` copies compared on their rank first | every copy sent home | 256 members of 1000 cells a rank, 1M hex, N = 4: 0.028-0.036 against 0.019-0.028 s |
| `core/src/structure/nodecheck.c` stated nodes in one exchange | three exchanges and two sorts more | a third of an open of a thousand small members |
| `core/src/partition/greedy.h` cover without ids | ids gathered from P's positions | a third of the greedy loop (1M hex, M = 1024, N = 2) |
| `core/src/partition/cover.c` intersection through P's position table | galloping walk | 1M hex, M = 1024, N = 2: 111.5 -> 89.7 M instructions, 20-25 -> 17 ms a load; even at M = 64 |
| `core/src/read/plan.h` plan memory in blocks | segment arrays malloc'd one by one | 1M hex, M = 1024, N = 4: heap grew 12 MB across the ghost layer with 26 MB free in 392 pieces |
| `core/src/read/read.c` fields allocated once the scratch is gone | beside it | 1M hex, N = 4: 95 MB heap on a rank, 9 MB fields, 35 MB scratch |
| `core/src/load/load.c` id maps dropped before the ghost layers | kept | 200 MB a rank on 8M hex, N = 4; 13 of 87 MB of a rank's high-water on 1M hex, N = 4 |
| `core/src/memory.c` buffers backed in one call | faulted page by page | 256 MiB: 1.1 s of 4 KiB faults against 0.5 s populated; huge pages 0.6 against 0.017 s; the 1M-hex load through the reader, N = 4: 1.67-1.69 -> 1.45-1.51 s |
"""


if __name__ == "__main__":
    main()
