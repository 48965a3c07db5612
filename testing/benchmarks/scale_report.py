"""The scale section of BENCHMARKS.md (issue 45), from scale_bench.sh's results.

usage: python3 testing/benchmarks/scale_report.py [RESULTS.jsonl] [--md FILE] [--print]

Reads the "scale" records of RESULTS.jsonl (default results/scale.jsonl:
those of commit archive.ARCHIVE followed by the runs appended since, archive.py)
and replaces the section "## Scale: blocks x members" of FILE (default
BENCHMARKS.md beside this script), or adds it before "## What was tried";
--print writes the section to stdout instead. report.py, which writes
BENCHMARKS.md whole, takes the same section from section() below.
"""
import argparse
import json
import os
import statistics
import sys

import archive

HERE = os.path.dirname(os.path.abspath(__file__))
TITLE = "## Scale: blocks x members (issue 45)"
MB = 1024.0 * 1024.0


def load(path, kind="scale"):
    recs = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if r.get("kind") == kind:
                    recs.append(r)
    return recs


def _med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def _f(x, fmt):
    return "-" if x is None else fmt % x


def _groups(recs):
    """The records by (dims, K, M, N), each group's of the newest commit
    that measured it only (the file keeps every run; the tables show the
    code as it is)."""
    groups = {}
    for r in recs:
        groups.setdefault((tuple(r.get("dims", [])), r["K"], r["M"], r["N"]), []).append(r)
    for key, runs in groups.items():
        groups[key] = [r for r in runs if r.get("commit") == runs[-1].get("commit")]
    return groups


def _ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"


def plugin_table(recs):
    """The lines of the table of the loads through the plugin
    (scale_bench.sh --plugin), empty without records."""
    if not recs:
        return []
    groups = _groups(recs)

    def summary(runs):
        ok = [r for r in runs if r.get("exit") == 0 and r.get("first_s")]
        return {"ok": len(ok), "n": len(runs),
                "first": _med([r["first_s"] for r in ok]),
                "create": _med([(r.get("phases_s") or {}).get("create") for r in ok]),
                "above": _med([(r["rss_peak_sum_kb"] - r["rss_base_sum_kb"]) / 1024.0
                               for r in ok if r.get("rss_peak_sum_kb")])}

    sums = {k: summary(v) for k, v in groups.items()}

    L = ["Through the plugin (`scale_bench.sh --plugin`): `mpiexec -n N pvbatch --symmetric "
         "bench.py --variant A` (MxNReader, PartitionMethod Files, one ghost layer). *first* = "
         "seconds to the first step's balanced ghosted data (max over ranks), *create* = of it "
         "the reader's information pass (the collective open); *above base* = peak RSS above "
         "pvbatch's own base, summed over ranks. Medians over the runs.", "",
         "| mesh | K | M | N | runs | first s | x K=2 | create s | above base MB (sum) | x K=2 |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(sums):
        dims, K, M, N = key
        s = sums[key]
        base = sums.get((dims, 2, M, N))
        L.append("| %s | %d | %d | %d | %d/%d | %s | %s | %s | %s | %s |" % (
            "x".join(str(d) for d in dims), K, M, N, s["ok"], s["n"], _f(s["first"], "%.2f"),
            _ratio(s["first"], base and base["first"]), _f(s["create"], "%.2f"),
            _f(s["above"], "%.0f"), _ratio(s["above"], base and base["above"])))
    L.append("")
    return L


def section(recs, plugin_recs=None):
    """The section's lines (empty without records)."""
    if not recs:
        return []
    groups = _groups(recs)

    def summary(runs):
        ok = [r for r in runs if r.get("exit") == 0 and r.get("metadata_bytes_max")]
        return {
            "ok": len(ok), "n": len(runs),
            "wall": _med([r["wall_s"] for r in ok]),
            "rss": _med([r["rss_max_kb"] / 1024.0 if r.get("rss_max_kb") else None for r in ok]),
            "meta": _med([r["metadata_bytes_max"] / MB for r in ok]),
            "open": _med([r["seconds_max"]["open"] for r in ok]),
            "part": _med([r["seconds_max"]["partition"] for r in ok]),
            "elems": ok[0]["total_elements"] if ok else None,
        }

    sums = {k: summary(v) for k, v in groups.items()}
    L = []
    w = L.append
    w(TITLE)
    w("")
    w("Generated from `%s:testing/benchmarks/results/scale.jsonl` (and the runs appended "
      "to results/scale.jsonl since: `archive.py`) by "
      "`python3 testing/benchmarks/scale_report.py`; " % archive.ARCHIVE +
      "the runs by `bash testing/benchmarks/scale_bench.sh` (see its `--help`). A hex mesh "
      "(`mxn_gen --type hex --dims NX NY NZ --blocks K --sets K`: K blocks as slabs along x, "
      "K node and K side sets) split by `mxn split --method rcb` into M members, each "
      "declaring every block and set (empty where it holds none, as SEACAS `nem_spread` "
      "does), loaded by `mpiexec -n N --oversubscribe mxn stats --json --method rcb`. "
      "*wall* = seconds of the whole mpiexec; *peak RSS* = the largest of the ranks' "
      "maximum resident sets (GNU time); *metadata* = the core's count of the header "
      "metadata a rank holds (`metadata_bytes`, the largest over ranks); *open* and "
      "*partition* = the phases' seconds, max over ranks; *x K=2* = against the K = 2 "
      "set of the same M and N. Medians over the runs that succeeded (*runs*: succeeded "
      "of all).")
    w("")
    w("![metadata and peak RSS per rank against members](%s)" % PLOT)
    w("")
    w("| mesh | K | M | N | runs | wall s | x K=2 | peak RSS/rank MB | x K=2 | metadata/rank MB "
      "| x K=2 | open s | partition s |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")

    for key in sorted(sums):
        dims, K, M, N = key
        s = sums[key]
        base = sums.get((dims, 2, M, N))
        mesh = "x".join(str(d) for d in dims) + (" (%d el.)" % s["elems"] if s["elems"] else "")
        w("| %s | %d | %d | %d | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            mesh, K, M, N, s["ok"], s["n"], _f(s["wall"], "%.2f"),
            _ratio(s["wall"], base and base["wall"]), _f(s["rss"], "%.0f"),
            _ratio(s["rss"], base and base["rss"]), _f(s["meta"], "%.2f"),
            _ratio(s["meta"], base and base["meta"]), _f(s["open"], "%.2f"),
            _f(s["part"], "%.2f")))
    w("")
    hosts = sorted({"%s (%s cores)" % (r.get("host"), r.get("cpus")) for r in recs})
    commits = sorted({r.get("commit") for r in recs})
    loads = [r.get("load1") for r in recs if r.get("load1") is not None]
    w("Commit%s %s on %s%s." % (
        "s" if len(commits) > 1 else "", ", ".join(commits), ", ".join(hosts),
        "; load average %.1f-%.1f at the runs (a shared machine)" % (min(loads), max(loads))
        if loads else ""))
    if plugin_recs:
        w("")
    L.extend(plugin_table(plugin_recs or []))
    fails = [r for r in recs if r.get("exit") != 0]
    for r in fails:
        w("")
        w("Failed: K=%d M=%d N=%d exit %d: %s" % (r["K"], r["M"], r["N"], r["exit"],
                                                 " / ".join(r.get("log_tail", []))[:300]))
    w("")
    return L


PLOT = "bench_scale.png"


def plot(recs, path):
    """Metadata and peak RSS per rank against M, a line per (K, N), into
    path (a PNG); False when matplotlib is missing or nothing succeeded."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("scale_report: matplotlib missing, no plot\n")
        return False
    lines = {}
    for r in recs:
        if r.get("exit") == 0 and r.get("metadata_bytes_max"):
            lines.setdefault((r["K"], r["N"]), {}).setdefault(r["M"], []).append(r)
    if not lines:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for (K, N), byM in sorted(lines.items()):
        Ms = sorted(byM)
        meta = [_med([r["metadata_bytes_max"] / MB for r in byM[m]]) for m in Ms]
        rss = [_med([r["rss_max_kb"] / 1024.0 for r in byM[m] if r.get("rss_max_kb")]) for m in Ms]
        label = "K = %d, N = %d" % (K, N)
        axes[0].plot(Ms, meta, marker="o", label=label)
        axes[1].plot(Ms, rss, marker="o", label=label)
    for ax, title in zip(axes, ("Header metadata per rank", "Peak RSS per rank")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("members M")
        ax.set_ylabel("MB")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=64)
    plt.close(fig)
    return True


def replace_section(text, lines):
    """text with the scale section replaced by lines (or added before
    "## What was tried", else at the end)."""
    rows = text.split("\n")
    start = next((i for i, x in enumerate(rows) if x == TITLE), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(rows)) if rows[i].startswith("## ")),
                   len(rows))
        rows[start:end] = lines
    else:
        at = next((i for i, x in enumerate(rows) if x.startswith("## What was tried")), len(rows))
        rows[at:at] = lines
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="?")
    ap.add_argument("--md", default=os.path.join(HERE, "BENCHMARKS.md"))
    ap.add_argument("--print", action="store_true")
    a = ap.parse_args()
    if not a.results:
        a.results = os.path.join(archive.results_dir(HERE), "scale.jsonl")
    recs = load(a.results)
    lines = section(recs, load(a.results, "scale_plugin"))
    if lines and not a.print:
        plot(recs, os.path.join(os.path.dirname(os.path.abspath(a.md)), PLOT))
    if not lines:
        sys.exit("scale_report: no scale records in %s" % a.results)
    if a.print:
        print("\n".join(lines))
        return
    with open(a.md) as f:
        text = f.read()
    with open(a.md, "w") as f:
        f.write(replace_section(text, lines))
    print("scale_report: wrote the scale section of %s" % a.md)


if __name__ == "__main__":
    main()
