#!/usr/bin/env python3
"""Independent figures for test/engine/oracles.test.ts, written to closed-forms.json beside this script.

Python's standard library only (statistics.NormalDist; the Student-t CDF from the regularised
incomplete beta function; quadrature by composite Simpson), so that nothing here shares code with
the engine. Run: python3 test/engine/oracles/closed_forms.py
"""
import json
import math
import os
from statistics import NormalDist

N = NormalDist()


def betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            return h
    raise ArithmeticError("betacf did not converge")


def betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1.0 - x) / b


def t_cdf(x, nu):
    tail = 0.5 * betainc(nu / 2.0, 0.5, nu / (nu + x * x))
    return tail if x < 0 else 1.0 - tail


def t_pdf(x, nu):
    log_c = math.lgamma((nu + 1) / 2.0) - math.lgamma(nu / 2.0) - 0.5 * math.log(nu * math.pi)
    return math.exp(log_c - (nu + 1) / 2.0 * math.log1p(x * x / nu))


def t_ppf(p, nu):
    lo, hi = -1e4, 1e4
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, nu) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def lower_tail_integral(f, upper, steps=400_000):
    """∫_{-∞}^{upper} f(x) dx with x = upper − tan(θ), θ ∈ [0, π/2), composite Simpson."""
    end = math.pi / 2.0 - 1e-9
    h = end / steps
    total = 0.0
    for i in range(steps + 1):
        theta = i * h
        w = 1.0 if i in (0, steps) else (4.0 if i % 2 else 2.0)
        sec = 1.0 / math.cos(theta)
        total += w * f(upper - math.tan(theta)) * sec * sec
    return total * h / 3.0


def normal_table():
    return [
        {"c": c, "var_per_sigma": N.inv_cdf(c), "es_per_sigma": N.pdf(N.inv_cdf(c)) / (1 - c)}
        for c in (0.95, 0.975, 0.99)
    ]


def student_t_unit_variance_es(nu, c):
    """ES/σ of a Student-t with unit variance (linear P&L)."""
    q = t_ppf(c, nu)
    standard = (nu + q * q) / (nu - 1) * t_pdf(q, nu) / (1 - c)
    return standard * math.sqrt((nu - 2) / nu)


def student_t_table():
    rows = []
    for nu in (3, 4, 5, 10):
        for c in (0.975, 0.99):
            # The same figure by quadrature: a check of the quadrature used below.
            q = t_ppf(1 - c, nu)
            by_quadrature = -lower_tail_integral(lambda x: x * t_pdf(x, nu), q) / (1 - c) * math.sqrt((nu - 2) / nu)
            closed = student_t_unit_variance_es(nu, c)
            assert abs(by_quadrature / closed - 1) < 1e-9, (nu, c, by_quadrature, closed)
            rows.append({"nu": nu, "c": c, "es_per_sigma": closed})
    return rows


def lognormal_cases():
    """Single asset, buy-and-hold, normal daily log returns over T days: exact VaR% and ES%."""
    rows = []
    for mu, sigma, horizon, c in [
        (0.0005, 0.02, 10, 0.99),
        (0.0, 0.01, 1, 0.95),
        (0.001, 0.03, 20, 0.975),
        (-0.0002, 0.015, 250, 0.99),
        (0.0003, 0.012, 5, 0.5),
    ]:
        z = N.inv_cdf(1 - c)
        s = math.sqrt(horizon) * sigma
        var = -math.expm1(horizon * mu + s * z)
        es = -(math.exp(horizon * mu + horizon * sigma * sigma / 2) * N.cdf(z - s) / (1 - c) - 1)
        rows.append({"mu": mu, "sigma": sigma, "horizon": horizon, "c": c, "var_pct": var, "es_pct": es})
    return rows


def student_t_cases():
    """Single asset, one day, Student-t log return with variance σ²: exact VaR% and ES%."""
    rows = []
    for mu, sigma, nu, c in [(0.0005, 0.02, 5, 0.99), (0.0, 0.015, 3, 0.975), (0.0002, 0.01, 10, 0.95)]:
        s = sigma * math.sqrt((nu - 2) / nu)
        q = t_ppf(1 - c, nu)
        var = -math.expm1(mu + s * q)
        tail = lower_tail_integral(lambda x: math.exp(mu + s * x) * t_pdf(x, nu), q)
        es = -(tail / (1 - c) - 1)
        rows.append({"mu": mu, "sigma": sigma, "nu": nu, "c": c, "var_pct": var, "es_pct": es})
    return rows


if __name__ == "__main__":
    out = {
        "source": "test/engine/oracles/closed_forms.py (Python standard library only)",
        "normal": normal_table(),
        "student_t_unit_variance": student_t_table(),
        "lognormal": lognormal_cases(),
        "student_t_one_day": student_t_cases(),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "closed-forms.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(f"wrote {path}")
