#!/usr/bin/env python3
"""Independent figures for long/short books, for test/http/long-short-oracles.test.ts.

Run from the repository root:  python3 test/engine/oracles/long_short.py
It reads test/fixtures/prices_wide_sample.csv and writes long-short.json beside this script.
Needs python3 and NumPy 2.x only; deterministic (fixed NumPy seeds), shares no code with the service.
The P&L models and VaR/ES estimators are in long_short_measures.py beside it.

The model calculate fixes for books of positions (positions, what-if): daily log returns over the
consecutive dates on which every symbol of the book has a price; mu = sample mean, Sigma = sample
covariance (n - 1). Exposure e_i = quantity_i * P_i (P_i: the price on the last date the estimation
uses) or e_i = market_value_i; capital C = portfolio_value if given, else sum |e_i|; a_i = e_i / C.
For three books (long/short by quantities, dollar-neutral by market value, entirely short), at
c in {0.99, 0.95} and T in {1, 10}, it computes:
  - parametric_normal: sigma_p = sqrt(T e'Sigma e), mu_p = T e'mu, VaR = z_c sigma_p - mu_p,
    ES = sigma_p phi(z_c) / (1 - c) - mu_p;
  - historical, exactly: every overlapping T-day window; buy-and-hold P&L = sum_i e_i (e^{R_i} - 1)
    with R the window's summed log returns, rebalanced P&L = C (prod_t (1 + sum_i a_i (e^{r_t,i} - 1)) - 1);
    k = ceil((1 - c) N) in exact rational arithmetic, VaR = -x_(k), ES = -mean of the k worst;
  - monte_carlo_normal: buy-and-hold R ~ N(T mu, T Sigma) and rebalanced (T = 10) daily r ~ N(mu, Sigma),
    with NumPy's own generator; standard errors from 20 contiguous batches;
  - exposures (gross, net, long, short with short = sum of the negative exposures, so <= 0);
  - a what-if on the long/short book (historical, buy-and-hold, c = 0.99, T in {1, 10}): the book
    before and after the trades, both priced on the union of symbols (book symbols, then the trades'
    new symbols) over the dates on which every union symbol has a price; incremental = after - before.
Every figure carries the calculate request (without dataset_id) that should reproduce it.
"""
import json
import math
import os

import numpy as np

from long_short_measures import SE_BATCHES, batch_se, historical_pnl, mc_buy_and_hold, mc_rebalanced, parametric, var_es

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
DATASET = "test/fixtures/prices_wide_sample.csv"
OUTPUT = os.path.join(HERE, "long-short.json")

CONFIDENCES = (0.99, 0.95)
HORIZONS = (1, 10)
MC_BUY_AND_HOLD_DRAWS = 4_000_000
MC_REBALANCED_DRAWS = 1_000_000
MC_REBALANCED_HORIZON = 10
# What the service is asked for (the NumPy draws above are independent of these).
SERVICE_SIMULATIONS = 200_000
SERVICE_SEED_BASE = 7_100_000

BOOKS = [
    {
        "id": "long_short_quantities",
        "description": "long about 1.5 M of AAPL, short about 0.5 M of MSFT, by share quantities",
        "positions": [{"symbol": "AAPL", "quantity": 4800}, {"symbol": "MSFT", "quantity": -3100}],
    },
    {
        "id": "dollar_neutral_market_values",
        "description": "JPM +1,000,000 against XOM -1,000,000 (net 0), capital 1,000,000 (gross 2,000,000)",
        "positions": [{"symbol": "JPM", "market_value": 1_000_000}, {"symbol": "XOM", "market_value": -1_000_000}],
        "portfolio_value": 1_000_000,
    },
    {
        "id": "all_short",
        "description": "entirely short: KO market value -1,000,000 and 1,600 AAPL shares short (about -0.5 M)",
        "positions": [{"symbol": "KO", "market_value": -1_000_000}, {"symbol": "AAPL", "quantity": -1600}],
    },
]

WHAT_IF = {
    "book": "long_short_quantities",
    "description": "buy 100 KHC (a symbol the book lacks, priced only from 2015-07-06) and sell 10% of the AAPL position",
    "trades": [{"symbol": "KHC", "quantity": 100}, {"symbol": "AAPL", "quantity": -480}],
    "confidence_level": 0.99,
    "horizons": [1, 10],
}

MISSING = {"", "NA", "NaN", "null"}


def read_wide(path):
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\r\n") for line in f if line.strip()]
    header = lines[0].split(",")
    rows = sorted((line.split(",") for line in lines[1:]), key=lambda r: r[0])
    dates = [r[0] for r in rows]
    prices = np.array([[math.nan if c.strip() in MISSING else float(c) for c in r[1:]] for r in rows])
    return dates, header[1:], prices


DATES, SYMBOLS, PRICES = read_wide(os.path.join(ROOT, DATASET))


def estimate(symbols):
    cols = [SYMBOLS.index(s) for s in symbols]
    p = PRICES[:, cols]
    complete = np.flatnonzero(~np.isnan(p).any(axis=1))
    q = p[complete]
    r = np.log(q[1:] / q[:-1])  # r_t = ln(P_t / P_{t-1}) between consecutive complete dates
    return {
        "symbols": symbols,
        "returns": r,
        "dates": [DATES[i] for i in complete],  # dates[t] .. dates[t + 1] span return t
        "mean": r.mean(axis=0),
        "cov": np.cov(r, rowvar=False, ddof=1).reshape(len(symbols), len(symbols)),
        "last_prices": q[-1],
    }


def exposures(positions, est):
    items = []
    for p in positions:
        i = est["symbols"].index(p["symbol"])
        price = float(est["last_prices"][i])
        if "quantity" in p:
            items.append({"symbol": p["symbol"], "quantity": p["quantity"], "price": price, "exposure": p["quantity"] * price})
        else:
            items.append({"symbol": p["symbol"], "quantity": None, "price": price, "exposure": float(p["market_value"])})
    e = [it["exposure"] for it in items]
    return {
        "gross": math.fsum(abs(x) for x in e),
        "net": math.fsum(e),
        "long": math.fsum(x for x in e if x > 0),
        "short": math.fsum(x for x in e if x < 0),
        "items": items,
    }


def exposure_vector(positions, est):
    """Exposure per estimation symbol (0 where the book holds none); positions may repeat a symbol."""
    e = np.zeros(len(est["symbols"]))
    for it in exposures(positions, est)["items"]:
        e[est["symbols"].index(it["symbol"])] += it["exposure"]
    return e


def describe_window(est, start, horizon, pnl):
    sums = est["returns"][start : start + horizon].sum(axis=0)
    return {
        "index": int(start),
        "start": est["dates"][start],
        "end": est["dates"][start + horizon],
        "pnl": float(pnl[start]),
        "returns": {s: float(x) for s, x in zip(est["symbols"], sums)},
    }


def base_request(book):
    req = {"currency": "USD", "positions": book["positions"]}
    if "portfolio_value" in book:
        req["portfolio_value"] = book["portfolio_value"]
    return req


def book_figures(b_index, book):
    symbols = [p["symbol"] for p in book["positions"]]
    est = estimate(symbols)
    expo = exposures(book["positions"], est)
    e = exposure_vector(book["positions"], est)
    capital = float(book.get("portfolio_value", expo["gross"]))
    figures = []
    seed = SERVICE_SEED_BASE + 100 * b_index

    def request(method, mode, c, horizon, mc=False):
        nonlocal seed
        req = {**base_request(book), "method": method, "portfolio_mode": mode, "confidence_level": c, "time_horizon": horizon}
        if mc:
            seed += 1
            req["simulations"] = SERVICE_SIMULATIONS
            req["method_options"] = {"seed": seed}
        return req

    for horizon in HORIZONS:
        for c in CONFIDENCES:
            v, s = parametric(est, e, horizon, c)
            figures.append({"request": request("parametric_normal", "buy_and_hold", c, horizon), "value_at_risk": v, "expected_shortfall": s})
        for mode in ("buy_and_hold", "rebalanced"):
            pnl = historical_pnl(est, e, capital, horizon, mode == "rebalanced")
            for c in CONFIDENCES:
                v, s, k, order = var_es(pnl, c)
                figures.append(
                    {
                        "request": request("historical", mode, c, horizon),
                        "value_at_risk": v,
                        "expected_shortfall": s,
                        "scenarios": len(pnl),
                        "k": k,
                        "worst_loss": float(pnl[order[0]]),
                        "worst_window": describe_window(est, order[0], horizon, pnl),
                        "kth_worst_window": describe_window(est, order[k - 1], horizon, pnl),
                    }
                )
        rng = np.random.default_rng([20260214, b_index, horizon, 0])
        pnl = mc_buy_and_hold(est, e, horizon, rng, MC_BUY_AND_HOLD_DRAWS)
        for c in CONFIDENCES:
            v, s, _, _ = var_es(pnl, c)
            se_v, se_s = batch_se(pnl, c)
            figures.append(
                {
                    "request": request("monte_carlo_normal", "buy_and_hold", c, horizon, mc=True),
                    "value_at_risk": v,
                    "expected_shortfall": s,
                    "value_at_risk_standard_error": se_v,
                    "expected_shortfall_standard_error": se_s,
                    "numpy_draws": MC_BUY_AND_HOLD_DRAWS,
                }
            )
    rng = np.random.default_rng([20260214, b_index, MC_REBALANCED_HORIZON, 1])
    pnl = mc_rebalanced(est, e, capital, MC_REBALANCED_HORIZON, rng, MC_REBALANCED_DRAWS)
    for c in CONFIDENCES:
        v, s, _, _ = var_es(pnl, c)
        se_v, se_s = batch_se(pnl, c)
        figures.append(
            {
                "request": request("monte_carlo_normal", "rebalanced", c, MC_REBALANCED_HORIZON, mc=True),
                "value_at_risk": v,
                "expected_shortfall": s,
                "value_at_risk_standard_error": se_v,
                "expected_shortfall_standard_error": se_s,
                "numpy_draws": MC_REBALANCED_DRAWS,
            }
        )
    return {
        "id": book["id"],
        "description": book["description"],
        "positions": book["positions"],
        "portfolio_value": book.get("portfolio_value"),
        "capital": capital,
        "estimation": {"observations": len(est["returns"]), "first_date": est["dates"][0], "last_date": est["dates"][-1]},
        "exposures": expo,
        "figures": figures,
    }


def what_if_figures():
    book = next(b for b in BOOKS if b["id"] == WHAT_IF["book"])
    union = [p["symbol"] for p in book["positions"]]
    union += [t["symbol"] for t in WHAT_IF["trades"] if t["symbol"] not in union]
    est = estimate(union)
    before = exposure_vector(book["positions"], est)
    after = exposure_vector(book["positions"] + WHAT_IF["trades"], est)
    alone = estimate([p["symbol"] for p in book["positions"]])
    e_alone = exposure_vector(book["positions"], alone)
    c = WHAT_IF["confidence_level"]
    rows = []
    for horizon in WHAT_IF["horizons"]:
        v_b, s_b, _, _ = var_es(historical_pnl(est, before, None, horizon, False), c)
        v_a, s_a, _, _ = var_es(historical_pnl(est, after, None, horizon, False), c)
        v_o, s_o, _, _ = var_es(historical_pnl(alone, e_alone, None, horizon, False), c)
        request = {
            **base_request(book),
            "method": "historical",
            "portfolio_mode": "buy_and_hold",
            "confidence_level": c,
            "time_horizon": horizon,
            "what_if": {"trades": WHAT_IF["trades"]},
        }
        rows.append(
            {
                "book": book["id"],
                "description": WHAT_IF["description"],
                "request": request,
                "union_symbols": union,
                "estimation": {"observations": len(est["returns"]), "first_date": est["dates"][0], "last_date": est["dates"][-1]},
                "after_exposures": [{"symbol": s, "exposure": float(x)} for s, x in zip(union, after)],
                "after": {"value_at_risk": v_a, "expected_shortfall": s_a},
                "before": {"value_at_risk": v_b, "expected_shortfall": s_b},
                "incremental_var": v_a - v_b,
                "incremental_es": s_a - s_b,
                "before_on_own_dates": {"value_at_risk": v_o, "expected_shortfall": s_o, "observations": len(alone["returns"])},
            }
        )
    return rows


if __name__ == "__main__":
    out = {
        "source": "test/engine/oracles/long_short.py (python3 + NumPy " + np.__version__ + ")",
        "dataset": DATASET,
        "conventions": {
            "short": "sum of the negative exposures (<= 0); net = long + short; gross = long - short",
            "standard_errors": f"{SE_BATCHES} contiguous batches of the NumPy draws",
        },
        "books": [book_figures(i, b) for i, b in enumerate(BOOKS)],
        "what_if": what_if_figures(),
    }
    with open(OUTPUT, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(f"wrote {OUTPUT}")
