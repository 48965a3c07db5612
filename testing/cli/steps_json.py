"""What the CLI scripts check alike in `mxn stats --steps all --json`:
its "steps" table has one row per series step, 1 to N, each with exactly
the documented keys."""

STEP_KEYS = {"step", "imbalance_before", "imbalance_after", "migrated", "bytes_read"}


def steps_table_errors(d, nsteps):
    """The problems of d["steps"] (a list of messages, empty when none)."""
    errs = []
    rows = d["steps"]
    if [r["step"] for r in rows] != list(range(1, nsteps + 1)):
        errs.append("steps %s" % [r["step"] for r in rows])
    for r in rows:
        if set(r) != STEP_KEYS:
            errs.append("keys %s" % sorted(r))
            break
    return errs
