#!/usr/bin/env python3
"""Independent figures for test/unit/backtest-statistics.test.ts, written to backtest-statistics.json beside this script.

Python's standard library only, sharing no code with src/risk: erfc to 20+ significant digits by its
power series in decimal arithmetic (precision raised with the argument so that 1 − erf keeps its
digits), the binomial CDF as an exact rational sum (fractions), and Kupiec / Christoffersen on a
clustered, asymmetric hit sequence with math.log and math.erfc.
Run: python3 test/engine/oracles/backtest_statistics.py
"""
import json
import math
import os
from decimal import Decimal, getcontext
from fractions import Fraction


def pi_decimal():
    """π at the current decimal precision (the recipe of the decimal module's documentation)."""
    getcontext().prec += 2
    three = Decimal(3)
    lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    getcontext().prec -= 2
    return +s


def erfc_decimal(x):
    """erfc(x) = 1 − (2/√π) e^{−x²} Σ 2^n x^{2n+1} / (1·3·…·(2n+1)): all terms positive, no cancellation inside the sum."""
    getcontext().prec = 40 + int(x * x / 2.302585) + 10
    X = abs(Decimal(x))  # the double itself, exactly; erfc(−x) = 2 − erfc(x)
    term = X
    total = X
    n = 0
    eps = Decimal(10) ** (-getcontext().prec)
    while term > eps * total:
        n += 1
        term = term * 2 * X * X / (2 * n + 1)
        total += term
    erf = 2 / pi_decimal().sqrt() * (-(X * X)).exp() * total
    return float(1 - erf) if x >= 0 else float(1 + erf)


def binomial_cdf(x, n, p):
    """F(x; n, p) exactly for the double p, rounded once at the end."""
    q = Fraction(p)
    return float(sum(math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(x + 1)))


def xlogy(n, y):
    return 0.0 if n == 0 else n * math.log(y)


def kupiec(n, x, c):
    p = 1 - c
    return -2 * (xlogy(n - x, 1 - p) + xlogy(x, p)) + 2 * (xlogy(n - x, 1 - x / n) + xlogy(x, x / n))


def christoffersen(hits):
    n = {(i, j): 0 for i in (0, 1) for j in (0, 1)}
    for prev, cur in zip(hits, hits[1:]):
        n[(prev, cur)] += 1
    n00, n01, n10, n11 = n[(0, 0)], n[(0, 1)], n[(1, 0)], n[(1, 1)]
    pi01 = n01 / (n00 + n01) if n00 + n01 else 0.0
    pi11 = n11 / (n10 + n11) if n10 + n11 else 0.0
    pi = (n01 + n11) / (n00 + n01 + n10 + n11)
    lr = -2 * (xlogy(n00 + n10, 1 - pi) + xlogy(n01 + n11, pi)) + 2 * (
        xlogy(n00, 1 - pi01) + xlogy(n01, pi01) + xlogy(n10, 1 - pi11) + xlogy(n11, pi11)
    )
    return {"n00": n00, "n01": n01, "n10": n10, "n11": n11, "lr": lr}


def chi2_sf(x, dof):
    return math.erfc(math.sqrt(x / 2)) if dof == 1 else math.exp(-x / 2)


ERFC_POINTS = [-5.0, -2.0, -0.7, -0.3, 0.0, 1e-12, 0.1, 0.3, 0.46875, 0.5, 0.8, 1.0, 1.5, 2.0, 3.0, 4.0, 4.25, 5.0, 7.0, 10.0, 15.0, 20.0, 26.0]
CHI2_POINTS = [0.001, 0.1, 0.46146639532895506, 1.0, 3.84, 10.0, 50.0, 200.0]
BINOMIAL_CASES = [
    (250, 0.01, range(0, 16)),
    (1043, 0.05, [40, 56, 57, 70]),
    (2500, 1 - 0.99, [0, 10, 25, 40, 60]),
    (2500, 0.5, [1000, 1150, 1250, 1300]),
    (2500, 1 - 0.999, [0, 2, 5, 10]),
    (7, 0.3, range(0, 7)),
]
# Clustered exceptions on 250 days, not starting with one, ending with one: n01 = 5, n10 = 4.
HIT_DAYS = [3, 4, 50, 51, 52, 120, 121, 200, 249]


if __name__ == "__main__":
    hits = [1 if t in HIT_DAYS else 0 for t in range(250)]
    ind = christoffersen(hits)
    pof = kupiec(250, len(HIT_DAYS), 0.99)
    out = {
        "source": "test/engine/oracles/backtest_statistics.py (Python standard library only)",
        "erfc": [{"x": x, "erfc": erfc_decimal(x)} for x in ERFC_POINTS],
        "chi2_survival": [{"x": x, "dof": d, "sf": chi2_sf(x, d)} for x in CHI2_POINTS for d in (1, 2)],
        "binomial_cdf": [{"n": n, "p": p, "x": x, "cdf": binomial_cdf(x, n, p)} for n, p, xs in BINOMIAL_CASES for x in xs],
        "clustered": {
            "observations": 250,
            "confidence": 0.99,
            "exception_days": HIT_DAYS,
            "kupiec": {"lr": pof, "p_value": chi2_sf(pof, 1)},
            "christoffersen_independence": dict(ind, p_value=chi2_sf(ind["lr"], 1)),
            "conditional_coverage": {"lr": pof + ind["lr"], "p_value": chi2_sf(pof + ind["lr"], 2)},
        },
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "backtest-statistics.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(f"wrote {path}")
