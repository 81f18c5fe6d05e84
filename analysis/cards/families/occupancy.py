"""Occupancy and OccupancySeed: registers against resident warps; no card row, physics only."""
from analysis.cards.physics import cases

FAMILIES = ("Occupancy", "OccupancySeed")
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "dram_bandwidth", "time": "launch_time"}  # the seed's lean and fat kernels: their time



# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_occupancy(rows):
    """More live registers never raise occupancy; the stream is faster at the highest """
    sweep = sorted(((int(c.args["live"]), c) for c in cases(rows, "Occupancy") if "live" in c.args),
                   key=lambda item: item[0])
    if not sweep:
        return []
    occupancy = [c["theoretical_occupancy"] for _, c in sweep]
    monotonic = all(a >= b for a, b in zip(occupancy, occupancy[1:]))
    results = [("Occupancy theoretical", monotonic, " ".join(f"{live}:{c['theoretical_occupancy']:.1f}%"
                                                              for live, c in sweep))]
    fastest, slowest = sweep[0][1]["bytes_per_second"], sweep[-1][1]["bytes_per_second"]
    results.append(("Occupancy bandwidth", fastest > 1.5 * slowest,
                    f"{fastest / 1e9:.0f} GB/s at {occupancy[0]:.1f}% vs {slowest / 1e9:.0f} GB/s at {occupancy[-1]:.1f}%"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_occupancy(rows)
