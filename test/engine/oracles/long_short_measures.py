"""The P&L models and VaR/ES estimators long_short.py applies to its books (see its docstring):
the exact tail of a sample, batch standard errors, historical windows (buy-and-hold and
rebalanced), the parametric closed form, and NumPy Monte Carlo draws of both modes.
"""
import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np

# Standard errors from this many contiguous batches of the draws.
SE_BATCHES = 20


def tail_count(c, n):
    """k = ceil((1 - c) n), with c taken as the decimal the request writes."""
    return math.ceil((1 - Fraction(repr(c))) * n)


def var_es(pnl, c):
    k = tail_count(c, len(pnl))
    order = np.argsort(pnl, kind="stable")
    worst = pnl[order[:k]]
    return -float(worst[-1]), -float(math.fsum(worst) / k), k, order


def batch_se(pnl, c, batches=SE_BATCHES):
    n = len(pnl)
    vs, es = [], []
    for b in range(batches):
        v, e, _, _ = var_es(pnl[b * n // batches : (b + 1) * n // batches], c)
        vs.append(v)
        es.append(e)
    return float(np.std(vs, ddof=1) / math.sqrt(batches)), float(np.std(es, ddof=1) / math.sqrt(batches))


def window_sums(r, horizon):
    c = np.vstack([np.zeros((1, r.shape[1])), np.cumsum(r, axis=0)])
    direct = np.array([r[s : s + horizon].sum(axis=0) for s in range(len(r) - horizon + 1)])
    assert np.allclose(direct, c[horizon:] - c[:-horizon], rtol=0, atol=1e-12)
    return direct


def historical_pnl(est, e, capital, horizon, rebalanced):
    r = est["returns"]
    if not rebalanced:
        return np.expm1(window_sums(r, horizon)) @ e
    daily = np.expm1(r) @ (e / capital)  # simple return of the rebalanced book, day by day
    growth = np.array([np.prod(1.0 + daily[s : s + horizon]) for s in range(len(r) - horizon + 1)])
    return capital * (growth - 1.0)


def parametric(est, e, horizon, c):
    sigma = math.sqrt(horizon * float(e @ est["cov"] @ e))
    mu = horizon * float(e @ est["mean"])
    z = NormalDist().inv_cdf(c)
    return z * sigma - mu, sigma * NormalDist().pdf(z) / (1 - c) - mu


def mc_buy_and_hold(est, e, horizon, rng, draws):
    chol = np.linalg.cholesky(est["cov"])
    out = np.empty(draws)
    step = 500_000
    for lo in range(0, draws, step):
        z = rng.standard_normal((min(step, draws - lo), len(e)))
        out[lo : lo + len(z)] = np.expm1(horizon * est["mean"] + math.sqrt(horizon) * z @ chol.T) @ e
    return out


def mc_rebalanced(est, e, capital, horizon, rng, draws):
    chol = np.linalg.cholesky(est["cov"])
    a = e / capital
    out = np.empty(draws)
    step = 100_000
    for lo in range(0, draws, step):
        m = min(step, draws - lo)
        r = est["mean"] + rng.standard_normal((m, horizon, len(e))) @ chol.T
        out[lo : lo + m] = capital * (np.prod(1.0 + np.expm1(r) @ a, axis=1) - 1.0)
    return out
