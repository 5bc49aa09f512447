"""Live risk over a WebSocket (docs/api.md, "Live risk (WebSocket)"), with the `websockets` package.

Usage: python live_risk.py BASE_URL API_KEY DATASET_ID [TICKS]

Subscribes a long/short book (AAPL 3,000 shares long, XOM 5,000 short, JNJ 400,000 USD long) with
Monte Carlo at a fixed seed, sends TICKS new AAPL prices (150, 150.5, 151, ...) as fast as it can
and one trade (XOM closed), and prints each risk message's seq, VaR and ES as it arrives. Inputs
sent while the server computes are coalesced, so fewer messages than inputs arrive; the last one
includes every input (seq = TICKS + 1). The last line is that message's figures as JSON:
{"seq", "seed", "value_at_risk", "expected_shortfall"}. Exits 1 on an error message.
"""

import asyncio
import json
import sys

from websockets.asyncio.client import connect


def book_request(dataset_id):
    return {
        "dataset_id": dataset_id,
        "method": "monte_carlo_normal",
        "method_options": {"seed": 2024},
        "currency": "USD",
        "positions": [
            {"symbol": "AAPL", "quantity": 3000},
            {"symbol": "XOM", "quantity": -5000},
            {"symbol": "JNJ", "market_value": 400000},
        ],
        "confidence_level": 0.99,
        "time_horizon": 10,
        "simulations": 20000,
    }


async def main(base, key, dataset_id, ticks):
    url = base.replace("http", "ws", 1) + "/api/v1/risk/live"
    async with connect(url) as ws:
        await ws.send(json.dumps({"type": "auth", "key": key}))
        await ws.send(json.dumps({"type": "subscribe", "id": "desk-1", "request": book_request(dataset_id)}))
        inputs = 0
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "error":
                print("error:", json.dumps(message["detail"]), file=sys.stderr)
                return 1
            metrics = message["meta"]["metrics"]
            print(f"seq {message['seq']:>5}  VaR {metrics['value_at_risk']:>14,.2f}  ES {metrics['expected_shortfall']:>14,.2f}")
            if message["seq"] == 0:
                # The book answered: now the ticks, then one trade closing the XOM short.
                for i in range(ticks):
                    await ws.send(json.dumps({"type": "prices", "id": "desk-1", "prices": {"AAPL": 150 + i / 2}}))
                await ws.send(json.dumps({"type": "trades", "id": "desk-1", "trades": [{"symbol": "XOM", "quantity": 5000}]}))
                inputs = ticks + 1
            elif message["seq"] == inputs:
                await ws.send(json.dumps({"type": "unsubscribe", "id": "desk-1"}))
                last = {
                    "seq": message["seq"],
                    "seed": message["meta"]["seed"],
                    "value_at_risk": metrics["value_at_risk"],
                    "expected_shortfall": metrics["expected_shortfall"],
                }
                print(json.dumps(last))
                return 0
    print("the socket closed before the last risk message", file=sys.stderr)
    return 1


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else 100)))
