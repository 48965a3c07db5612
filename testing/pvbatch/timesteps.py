"""Time values as the pvbatch checks read and compare them (check_totals.py,
load_plugin.py), in one place so that both use the same tolerance."""

# Relative tolerance of two time values that should be equal. ParaView's
# readers, MxNReader and `mxn info --json` (printed with %.17g) all give the
# doubles stored in the file, so only a difference in the last bits of a
# conversion is allowed.
TIME_RTOL = 1e-12


def as_list(prop):
    """A TimestepValues property as a list of floats (a scalar when there
    is one step, empty when there is none)."""
    if prop is None:
        return []
    try:
        return [float(v) for v in prop]
    except TypeError:
        return [float(prop)]


def same_times(a, b, rtol=TIME_RTOL):
    """Whether the time lists a and b have the same length and values."""
    return len(a) == len(b) and all(
        abs(x - y) <= rtol * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))
