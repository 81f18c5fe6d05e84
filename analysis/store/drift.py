"""Drift in one value's series of a board: the split of its runs into a before and an after whose weighted means
differ by more than DRIFT_SIGMAS standard errors (each run weighted by its stated precision; a value without one by
the series' own spread), by at least DRIFT_LEAST, with every run after it on the same side. No change-point library
is packaged by Debian (ruptures and Apache Otava are PyPI's), so this two-segment test, which knows each point's
noise, is the method (analysis/history.py stores the series)."""
import math

DRIFT_SIGMAS = 6.0   # a change this many standard errors of the two means: not run-to-run noise
DRIFT_LEAST = 0.02   # and at least this large (an H100's boost clock moves rates 1.5% from run to run)
LEAST_AFTER = 2      # runs after a change that stayed there
# Values read off a sweep's grid (a capacity edge is one of the sizes the sweep measured; SMs are counted): they move
# by whole grid steps, not by noise, and a real loss (a disabled L2 slice, a lost SM) is far outside their limits.
GRID_UNITS = ("bytes", "SMs")


def sigmas(points):
    """Each point's standard deviation: its stated precision (a 95% half-width), else the series' own spread (the
    median absolute difference of consecutive runs)."""
    steps = sorted(abs(b[2] - a[2]) for a, b in zip(points, points[1:]))
    spread = (steps[len(steps) // 2] / 0.9539) if steps else 0.0  # MAD of differences to a sigma
    return [abs(p[2]) * p[3] / 1.96 if p[3] else spread for p in points]


def change(points):
    """(run number of the change, relative change of the after mean against the before mean, z) of the strongest
    lasting change, or None."""
    best = None
    sd = sigmas(points)
    for k in range(2, len(points) - LEAST_AFTER + 1):
        groups = []
        for part, deviations in ((points[:k], sd[:k]), (points[k:], sd[k:])):
            weights = [1 / max(s, abs(p[2]) * 1e-4) ** 2 for p, s in zip(part, deviations)]
            mean = sum(w * p[2] for w, p in zip(weights, part)) / sum(weights)
            groups.append((mean, 1 / sum(weights)))
        (m0, v0), (m1, v1) = groups
        if not m0:
            continue
        z = (m1 - m0) / math.sqrt(v0 + v1)
        relative = m1 / m0 - 1
        stayed = all((p[2] - m0) * (m1 - m0) > 0 and abs(p[2] - m0) > 2 * s for p, s in zip(points[k:], sd[k:]))
        if abs(z) > DRIFT_SIGMAS and abs(relative) >= DRIFT_LEAST and stayed and (best is None or abs(z) > abs(best[2])):
            best = (points[k][0], relative, z)
    return best
