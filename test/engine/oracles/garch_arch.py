#!/usr/bin/env python3
"""GARCH(1,1) fits by the `arch` package (PyPI), for engine/core/tests/garch_oracle.rs.

Three series: GARCH(1,1) paths from NumPy (known parameters, percent units, where arch's optimiser
is at home) fitted with arch_model(r, mean="Zero", vol="GARCH", p=1, q=1, rescale=False) and the
engine's backcast, the mean of r² over the first min(30, m) returns. Backcasts differ in use: arch
starts σ²_1 = ω + (α + β)·backcast, the engine σ²_1 = backcast; near the optimum ω ≈ (1 − α − β)·
backcast, so the two likelihoods differ only in their first terms (the test's 1e-6 relative).
Writes garch-arch.txt beside this script: per case a line "omega alpha beta loglik m", then the
m returns on one line. Run (arch in a venv): python3 -m venv build/venv-arch &&
build/venv-arch/bin/pip install arch==8.0.0 && build/venv-arch/bin/python test/engine/oracles/garch_arch.py
"""
import os

import numpy as np
from arch import arch_model

CASES = [(0.05, 0.08, 0.90, 2000, 1), (0.20, 0.12, 0.80, 1500, 2), (0.02, 0.04, 0.95, 2500, 3)]

lines = []
for omega, alpha, beta, m, seed in CASES:
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(m)
    r = np.empty(m)
    v = omega / (1 - alpha - beta)
    for t in range(m):
        r[t] = np.sqrt(v) * z[t]
        v = omega + alpha * r[t] ** 2 + beta * v
    backcast = float(np.mean(r[: min(30, m)] ** 2))
    res = arch_model(r, mean="Zero", vol="GARCH", p=1, q=1, rescale=False).fit(
        disp="off", backcast=backcast, options={"ftol": 1e-12, "maxiter": 1000}
    )
    p = res.params
    lines.append(f"{float(p['omega'])!r} {float(p['alpha[1]'])!r} {float(p['beta[1]'])!r} {float(res.loglikelihood)!r} {m}")
    lines.append(" ".join(repr(float(x)) for x in r))

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "garch-arch.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(l for l in lines if len(l) < 200))
