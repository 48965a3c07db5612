"""MxNReader with RebalanceEachTimeStep animating through every step, at N ranks.

usage: mpiexec -n N pvbatch --symmetric rebalance_steps.py PLUGIN_SO DATASET TOL

DATASET is a member of a spread set made by `mxn_gen --hot-spot` (element
variables elem_gid_time = -(id + k/16) and hot_spot, sequential ids 1..n);
TOL the ImbalanceTolerance. With LoadBalanceField hot_spot, one ghost layer
and RebalanceEachTimeStep on, at every time step k:

  - every element is owned by exactly one rank (owned cell ids over the
    ranks are 1..n, each once) and the owned cells sum elem_gid_time to
    -(n(n+1)/2 + n k/16): totals constant through the animation;
  - the field data reports the re-balance of that step: MxNRebalanceStep =
    k+1, MxNImbalanceAfter <= TOL, MxNMigratedElements >= 0 (> 0 when
    MxNRebalanced), MxNBytesReRead > 0 when re-balanced, all equal on
    every rank;
  - no error is reported; several steps were re-balanced; then the same
    step again (cached) gives the same cells and reads nothing new.

Exit codes: 0 pass, 1 failure, 2 bad usage.
"""
import os
import sys

if len(sys.argv) != 4:
    print("usage: pvbatch --symmetric rebalance_steps.py PLUGIN_SO DATASET TOL")
    sys.exit(2)
plugin, dataset = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
tol = float(sys.argv[3])

from rebalance_common import (animated_reader, check, check_owned_totals,  # noqa: E402
                              check_ranks_agree, field_scalars, owned_cells)
from pvcheck import finish, nranks  # noqa: E402

r, messages, times = animated_reader(plugin, dataset, tol, ["elem_gid_time", "hot_spot"],
                                     LoadBalanceField="hot_spot")


def snapshot(t):
    r.UpdatePipeline(t)
    out = r.GetClientSideObject().GetOutputDataObject(0)
    ids, gid_time = owned_cells(out, "hot_spot")
    field = field_scalars(out, ("MxNImbalanceBefore", "MxNImbalanceAfter", "MxNMigratedElements",
                                "MxNBytesReRead", "MxNRebalanced", "MxNRebalanceStep"))
    return ids, gid_time, field


total = None
rebalanced = 0
for k, t in enumerate(times):
    ids, gid_time, f = snapshot(t)
    n = check_owned_totals(k, ids, gid_time, total)
    if total is None:
        total = n
    check(None not in f.values(), "step %d: field data %s" % (k + 1, f))
    if None in f.values():
        continue
    check_ranks_agree(k, [f[x] for x in sorted(f)])
    check(f["MxNRebalanceStep"] == k + 1, "step %d: MxNRebalanceStep %s" % (k + 1, f["MxNRebalanceStep"]))
    check(f["MxNImbalanceAfter"] <= tol + 1e-9, "step %d: imbalance after %.4f > %.4f (before %.4f)"
          % (k + 1, f["MxNImbalanceAfter"], tol, f["MxNImbalanceBefore"]))
    if f["MxNRebalanced"]:
        rebalanced += 1
        check(f["MxNMigratedElements"] > 0 and f["MxNBytesReRead"] > 0,
              "step %d: re-balanced, migrated %s, bytes %s" % (k + 1, f["MxNMigratedElements"],
                                                              f["MxNBytesReRead"]))
    else:
        check(f["MxNMigratedElements"] == 0 and f["MxNImbalanceBefore"] <= tol + 1e-9,
              "step %d: kept with imbalance %.4f, migrated %s" % (k + 1, f["MxNImbalanceBefore"],
                                                                  f["MxNMigratedElements"]))
check(rebalanced >= 3, "only %d of %d steps re-balanced" % (rebalanced, len(times)))
# The last step again: served from the cache, same cells.
last = snapshot(times[-1])
again = snapshot(times[-1])
check(sorted(last[0]) == sorted(again[0]), "the last step asked twice gives other cells")
check(not messages, "errors: %s" % messages[:3])

finish("rebalance_steps", "N=%d, %d steps, %d re-balanced" % (nranks, len(times), rebalanced))
