"""Vectorised NumPy/SciPy full revaluation of European options (scipy.special.ndtr), the baseline
of bench/options-revaluation.ts. Reads a job JSON on stdin: {"units": path of float64 [asset][scenario]
e^R − 1, "assets", "scenarios", "spots", "options": [[underlying, call 1/0, strike, vol, rate, q, tau]],
"dt", "repeats"}; prints {"median_ms", "checksum", "numpy", "scipy"}: the sum of every option's
P&L over every scenario, to compare with the engine's."""
import json
import sys
import time

import numpy as np
import scipy
from scipy.special import ndtr


def price(call, s, k, vol, r, q, tau):
    if tau <= 0:
        return np.maximum(s - k, 0.0) if call else np.maximum(k - s, 0.0)
    v = vol * np.sqrt(tau)
    d1 = (np.log(s / k) + (r - q + 0.5 * vol * vol) * tau) / v
    d2 = d1 - v
    f = s * np.exp(-q * tau)
    d = k * np.exp(-r * tau)
    return f * ndtr(d1) - d * ndtr(d2) if call else d * ndtr(-d2) - f * ndtr(-d1)


def run(job, units):
    total = 0.0
    for u, call, k, vol, r, q, tau in job["options"]:
        s0 = job["spots"][int(u)]
        later = max(tau - job["dt"], 0.0)
        pnl = price(call, s0 * (1.0 + units[int(u)]), k, vol, r, q, later) - price(call, s0, k, vol, r, q, tau)
        total += float(pnl.sum())
    return total


def main():
    job = json.load(sys.stdin)
    units = np.fromfile(job["units"], dtype=np.float64).reshape(job["assets"], job["scenarios"])
    times = []
    checksum = 0.0
    for _ in range(job["repeats"]):
        t0 = time.perf_counter()
        checksum = run(job, units)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    print(json.dumps({"median_ms": times[len(times) // 2], "checksum": checksum, "numpy": np.__version__, "scipy": scipy.__version__}))


if __name__ == "__main__":
    main()
