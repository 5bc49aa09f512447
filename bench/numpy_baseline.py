"""NumPy baseline of the same model (standard_normal, Cholesky factor, expm1, np.partition).

Reads one JSON job on stdin: {"mean", "cholesky" (n×n), "weights", "portfolio_value", "horizon",
"simulations", "confidence", "rebalanced", "dof" (null or ν), "repeats", "normals"}; prints JSON:
{"median_ms", "var", "es", "normal_ns", "numpy"}. Times are medians of `repeats` runs.
A job {"normals_only": count} times only the normals and prints {"normal_ns", "numpy"}.
"""
import json
import sys
import time

import numpy as np


def run(job, rng):
    mu = np.asarray(job["mean"])
    L = np.asarray(job["cholesky"])
    w = np.asarray(job["weights"])
    V, T, N, c = job["portfolio_value"], job["horizon"], job["simulations"], job["confidence"]
    dof = job["dof"]
    n = len(w)
    if not job["rebalanced"] and dof is None:
        z = rng.standard_normal((N, n))
        R = T * mu + np.sqrt(T) * (z @ L.T)
        pnl = V * (np.expm1(R) @ w)
    else:
        total = np.zeros((N, n))
        gross = np.ones(N)
        for _ in range(T):
            r = rng.standard_normal((N, n)) @ L.T
            if dof is not None:
                W = rng.chisquare(dof, N)
                r = r * (np.sqrt((dof - 2) / dof) / np.sqrt(W / dof))[:, None]
            r += mu
            if job["rebalanced"]:
                gross *= 1 + np.expm1(r) @ w
            else:
                total += r
        pnl = V * (gross - 1) if job["rebalanced"] else V * (np.expm1(total) @ w)
    k = max(1, int(np.ceil((1 - c) * N - 1e-9)))
    tail = np.partition(pnl, k - 1)[:k]
    tail.sort()
    return -tail[-1], -tail.sum() / k


def normal_ns(count, trials):
    """ns per standard normal: the median of `trials` timings of one draw of `count` normals."""
    rng = np.random.default_rng(12345)
    rng.standard_normal(1000)
    t = []
    for _ in range(trials):
        start = time.perf_counter()
        rng.standard_normal(count)
        t.append((time.perf_counter() - start) * 1e9 / count)
    return float(np.median(t))


def main():
    job = json.load(sys.stdin)
    if "normals_only" in job:
        print(json.dumps({"normal_ns": normal_ns(job["normals_only"], 3), "numpy": np.__version__}))
        return
    rng = np.random.default_rng(12345)
    times, result = [], None
    for _ in range(job.get("repeats", 5)):
        start = time.perf_counter()
        result = run(job, rng)
        times.append((time.perf_counter() - start) * 1000)
    per_normal = normal_ns(job["normals"], 5) if job.get("normals") else None
    print(json.dumps({"median_ms": float(np.median(times)), "var": float(result[0]), "es": float(result[1]),
                      "normal_ns": per_normal, "numpy": np.__version__}))


if __name__ == "__main__":
    main()
