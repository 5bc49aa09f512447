"""NumPy baseline of the same model (standard_normal, Cholesky factor, expm1, np.partition).

Reads one JSON job on stdin: {"mean", "cholesky" (n×n), "weights", "portfolio_value", "horizon",
"simulations", "confidence", "rebalanced", "dof" (null or ν), "repeats", "normals"}; prints JSON:
{"median_ms", "var", "es", "normal_ns", "numpy"}. Times are medians of `repeats` runs.
A job {"normals_only": count} times only the normals and prints {"normal_ns", "numpy"}.
A job {"wide": prices (dates × n), "simulations", "confidence", "repeats"} times a desk's whole
calculation from prices (log returns, np.cov, Cholesky with the service's jitter rule, z @ Lᵀ,
1 day, equal weights) and prints {"median_ms", "var", "blas", "numpy"}.
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


def wide(job, rng, prices=None):
    """From prices to 99 % VaR the way a desk writes it; Σ is singular when n ≥ returns."""
    r = np.diff(np.log(np.asarray(job["wide"]) if prices is None else prices), axis=0)
    mu = r.mean(axis=0)
    sigma = np.cov(r, rowvar=False)
    n = sigma.shape[0]
    scale = max(np.trace(sigma) / n, 1e-300)
    L = None
    for delta in [0.0] + [scale * 10.0 ** e for e in range(-14, 3)]:
        try:
            L = np.linalg.cholesky(sigma + delta * np.eye(n))
            break
        except np.linalg.LinAlgError:
            continue
    N, c = job["simulations"], job["confidence"]
    w = np.full(n, 1.0 / n)
    R = mu + rng.standard_normal((N, n)) @ L.T
    pnl = 1e6 * (np.expm1(R) @ w)
    k = max(1, int(np.ceil((1 - c) * N - 1e-9)))
    return -np.partition(pnl, k - 1)[k - 1]


def scaling(job, rng):
    """`wide` on the first n columns of a raw float64 prices file [date][asset], for each n."""
    prices = np.fromfile(job["scaling"], dtype="<f8").reshape(job["dates"], -1)
    points = []
    for n in job["assets"]:
        columns = np.ascontiguousarray(prices[:, :n])
        times, var = [], None
        for _ in range(job["repeats"] if n < 2000 else 1):
            start = time.perf_counter()
            var = wide(job, rng, columns)
            times.append((time.perf_counter() - start) * 1000)
        points.append({"assets": n, "median_ms": float(np.median(times)), "var": float(var)})
    return points


def blas():
    """The BLAS NumPy runs and its kernel, where threadpoolctl can tell."""
    try:
        from threadpoolctl import threadpool_info
        return [{k: i.get(k) for k in ("internal_api", "architecture", "num_threads", "version")} for i in threadpool_info()]
    except ImportError:
        return None


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
    if "scaling" in job:
        print(json.dumps({"points": scaling(job, rng), "blas": blas(), "numpy": np.__version__}))
        return
    if "wide" in job:
        times, var = [], None
        for _ in range(job.get("repeats", 3)):
            start = time.perf_counter()
            var = wide(job, rng)
            times.append((time.perf_counter() - start) * 1000)
        print(json.dumps({"median_ms": float(np.median(times)), "var": float(var), "blas": blas(), "numpy": np.__version__}))
        return
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
