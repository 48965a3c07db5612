"""Tables of the re-balancing benchmark (rebalance_bench.sh) from the JSON
of `mxn stats --steps all --fresh --json`, one file per strategy.

usage: python3 rebalance_report.py CELLS PEAK M N TOL GHOSTS OUT|'' tag=FILE...
(tags: none, shift, rcb, rib, refine, diffusion). Prints markdown; appends it to
OUT when given.
"""
import json
import sys

cells, peak, M, N, tol, gh, out = sys.argv[1:8]
runs = dict(a.split("=", 1) for a in sys.argv[8:])
d = {k: json.load(open(v)) for k, v in runs.items()}
T = len(d["none"]["steps"])
lines = []
p = lines.append
p("Hot spot (mxn_gen --hot-spot-peak %s), %s hex cells (%d elements), M = %s files, N = %s ranks, "
  "tolerance %s, %s ghost layer(s), %d steps." % (peak, cells, d["none"]["total_elements"], M, N, tol,
                                                 gh, T))
p("")
strat = [s for s in ("shift", "rcb", "rib", "refine", "diffusion") if s in d]
names = {"shift": "sfc shift", "rcb": "rcb REPARTITION (tree shift)", "rib": "rib REPARTITION",
         "refine": "rcb + PHG REFINE", "diffusion": "diffusion"}
p("Per step: imbalance (max/avg weight) without re-balancing; for each strategy imbalance after "
  "/ elements migrated / elements a fresh partition of the step would migrate / MB re-read (all "
  "ranks).")
p("")
p("| step | imbalance, none | " + " | ".join(names[s] for s in strat) + " |")
p("|---|---|" + "---|" * len(strat))
tot = {s: [0, 0, 0, 0.0, 0.0, 0] for s in strat}
for i in range(T):
    row = ["%d" % (i + 1), "%.3f" % d["none"]["steps"][i]["imbalance_before"]]
    for s in strat:
        r, x = d[s]["steps"][i], d[s]["steps_detail"][i]
        row.append("%.3f / %d / %d / %.1f" % (r["imbalance_after"], r["migrated"],
                                              x["fresh_migrated"], r["bytes_read"] / 1e6))
        t = tot[s]
        t[0] += r["migrated"]
        t[1] += x["fresh_migrated"]
        t[2] += r["bytes_read"]
        t[3] += x["seconds_balance"]
        t[4] += x["seconds_migrate"]
        if x["rebalanced"]:
            t[5] += x["fresh_migrated"]
    p("| " + " | ".join(row) + " |")
p("")
p("*fresh*: what a fresh partition of the step (same method: equal-weight cuts of the string, or "
  "Zoltan numbering its own parts) would move from what the ranks hold. *ratio* = migrated / fresh "
  "summed over the steps the strategy re-balanced. Seconds: max over ranks, summed over the steps "
  "(balancing = weights, policy, new owners, after the step's read; rebuilding = keeping, reading "
  "the gained elements and new ghosts).")
p("")
p("| strategy | max imbalance after | steps re-balanced | migrated | fresh at those steps | ratio "
  "| fresh, all steps | MB re-read | s balancing | s rebuilding |")
p("|---|---|---|---|---|---|---|---|---|---|")
p("| none | %.3f (before) | 0 | 0 | - | - | - | 0 | - | - |"
  % max(r["imbalance_before"] for r in d["none"]["steps"]))
for s in strat:
    t = tot[s]
    p("| %s | %.3f | %d | %d | %d | %.1f%% | %d | %.1f | %.2f | %.2f |" % (
        names[s], max(r["imbalance_after"] for r in d[s]["steps"]),
        sum(x["rebalanced"] for x in d[s]["steps_detail"]), t[0], t[5],
        100.0 * t[0] / t[5] if t[5] else 0.0, t[1], t[2] / 1e6, t[3], t[4]))
text = "\n".join(lines)
print(text)
if out:
    with open(out, "a") as f:
        f.write(text + "\n\n")
