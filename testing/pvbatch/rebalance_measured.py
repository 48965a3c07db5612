"""MxNReader with RebalanceEachTimeStep and LoadBalanceCost = MeasuredTime.

usage: mpiexec -n N pvbatch --symmetric rebalance_measured.py PLUGIN_SO DATASET TOL

DATASET is a member of a spread set made by `mxn_gen --hot-spot` (sequential
ids 1..n, element variable elem_gid_time = -(id + k/16)). No LoadBalanceField
is set: the only weights are the measured times. After each step the script
plays a downstream pipeline whose work on a rank is proportional to a fixed
cost of the cells it owns (the cells of an 8 x 8 corner of the 24 x 24 x 2
mesh cost 8, the others 1: the corner's cells weigh half the total): it
sleeps S * (its cost) / (average cost per rank), S = 0.12 s, before asking
for the next step. So what the reader measures between two of its
executions is that time, and re-balancing by it must even out the modelled
cost. Checked at every step k:

  - every element is owned by exactly one rank and the owned cells sum
    elem_gid_time to -(n(n+1)/2 + n k/16): totals constant;
  - the field data says what weighed the re-balance: MxNLoadBalanceCost is
    "None" at the first step (nothing measured yet, MxNMeasuredSeconds -1)
    and "MeasuredTime" after it, with MxNMeasuredSeconds >= this rank's
    sleep; MxNImbalanceBefore is the measured imbalance (within 30% of the
    modelled one of the previous step);
  - ranks agree on the re-balance figures;
  - at least one step re-balanced, and the modelled cost imbalance of the
    last step is under TOL + 0.15 while the first was over TOL + 0.2: the
    measured cost was used, and it balanced the work.

Exit codes: 0 pass, 1 failure, 2 bad usage.
"""
import os
import sys
import time

if len(sys.argv) != 4:
    print("usage: pvbatch --symmetric rebalance_measured.py PLUGIN_SO DATASET TOL")
    sys.exit(2)
plugin, dataset = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
tol = float(sys.argv[3])

import numpy as np  # noqa: E402
from rebalance_common import (animated_reader, check, check_owned_totals,  # noqa: E402
                              check_ranks_agree, field_scalars, owned_cells)
from pvcheck import allgather, finish, nranks  # noqa: E402

SLEEP = 0.12
r, messages, times = animated_reader(plugin, dataset, tol, ["elem_gid_time"],
                                     LoadBalanceCost="MeasuredTime")


def snapshot(t):
    r.UpdatePipeline(t)
    out = r.GetClientSideObject().GetOutputDataObject(0)
    ids, gid_time = owned_cells(out, "elem_gid_time")
    field = field_scalars(out, ("MxNImbalanceBefore", "MxNImbalanceAfter", "MxNMigratedElements",
                                "MxNRebalanced", "MxNRebalanceStep", "MxNMeasuredSeconds"))
    src = out.GetFieldData().GetAbstractArray("MxNLoadBalanceCost")
    source = src.GetValue(0) if src is not None and src.GetNumberOfValues() else None
    return ids, gid_time, field, source


total = None
rebalanced = 0
modelled = []  # per step: max / avg of the ranks' modelled cost
slept = 0.0
for k, t in enumerate(times):
    ids, gid_time, f, source = snapshot(t)
    n = check_owned_totals(k, ids, gid_time, total)
    if total is None:
        total = n
        check(total == 24 * 24 * 2, "%d cells: the cost model wants the 24 x 24 x 2 mesh" % total)
    if not check(None not in f.values() and source is not None,
                 "step %d: field data %s, cost source %s" % (k + 1, f, source)):
        continue
    check_ranks_agree(k, [f[x] for x in sorted(f) if x != "MxNMeasuredSeconds"])
    check(f["MxNRebalanceStep"] == k + 1, "step %d: MxNRebalanceStep %s" % (k + 1, f["MxNRebalanceStep"]))
    if k == 0:
        check(source == "None" and f["MxNMeasuredSeconds"] == -1,
              "step 1: cost source %s, measured %s: nothing was measured yet" % (source, f["MxNMeasuredSeconds"]))
    else:
        check(source == "MeasuredTime", "step %d: cost source %s, want MeasuredTime" % (k + 1, source))
        check(f["MxNMeasuredSeconds"] >= slept,
              "step %d: measured %.4f s, but this rank's downstream work slept %.4f s"
              % (k + 1, f["MxNMeasuredSeconds"], slept))
        want_imb = modelled[-1]
        check(abs(f["MxNImbalanceBefore"] - want_imb) <= 0.3 * want_imb,
              "step %d: measured imbalance %.3f, the downstream work's was %.3f"
              % (k + 1, f["MxNImbalanceBefore"], want_imb))
    if f["MxNRebalanced"]:
        rebalanced += 1
        check(f["MxNMigratedElements"] > 0, "step %d: re-balanced, migrated %s" % (k + 1, f["MxNMigratedElements"]))
    # The downstream pipeline on this rank: work in proportion to the cost
    # of its cells (rank-local: the ranks do not wait for each other here).
    corner = ((ids - 1) % 24 < 8) & (((ids - 1) // 24) % 24 < 8)
    cost = float(np.where(corner, 8.0, 1.0).sum())
    costs = allgather([cost])
    modelled.append(float(costs.max() / costs.mean()))
    slept = SLEEP * cost / costs.mean()
    time.sleep(slept)

check(rebalanced >= 1, "no step re-balanced by the measured time")
check(modelled[0] > tol + 0.2, "the modelled work was balanced from the start (%.3f)" % modelled[0])
check(modelled[-1] <= tol + 0.15, "the modelled work stayed unbalanced: %.3f at the last step (%s)"
      % (modelled[-1], " ".join("%.2f" % x for x in modelled)))
check(not messages, "errors: %s" % messages[:3])

finish("rebalance_measured", "N=%d, %d steps, %d re-balanced, modelled imbalance %.3f -> %.3f"
       % (nranks, len(times), rebalanced, modelled[0], modelled[-1]))
