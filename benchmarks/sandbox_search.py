"""Search latency of the sandbox's GET /v2/charges on a large database.

Builds (or reuses) a seeded database, then runs every filter of docs/api-assumptions.md, alone
and combined, through the real app over httpx's ASGITransport, and prints JSON: the build time
(when it built) and the median / max milliseconds per query. The budget is tens of milliseconds
per query at 100,000 charges.

    .venv/bin/python benchmarks/sandbox_search.py [--charges 100000] [--db PATH] [--repeat 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.embedded import asgi_transport
from paytui.sandbox.seed import build_database

Params = list[tuple[str, str]]


def queries(account_id: str, merchant_id: str, auth_id: str, prefix: str) -> dict[str, Params]:
    return {
        "default (newest first)": [],
        "status=success": [("status", "success")],
        "status=chargeback": [("status", "chargeback")],
        "status=return": [("status", "return")],
        "tag=vip": [("tag", "vip")],
        "tag=web&tag=vip": [("tag", "web"), ("tag", "vip")],
        "tag=gift&tag=promo&tag=vip (rare)": [("tag", "gift"), ("tag", "promo"), ("tag", "vip")],
        "attribute=channel=web": [("attribute", "channel=web")],
        "attribute=order_id=A-5000": [("attribute", "order_id=A-5000")],
        "attribute=customer_id= (has key)": [("attribute", "customer_id=")],
        "account_id": [("account_id", account_id)],
        "merchant_id": [("merchant_id", merchant_id)],
        "created_from/created_to (30 days)": [
            ("created_from", "2026-09-01"),
            ("created_to", "2026-10-01"),
        ],
        "min_amount/max_amount": [("min_amount", "100"), ("max_amount", "250.5")],
        "method=bank_account": [("method", "bank_account")],
        "last4=0005": [("last4", "0005")],
        "charge_type=pre_authorization": [("charge_type", "pre_authorization")],
        "open authorizations": [("charge_type", "authorization"), ("captured", "false")],
        "original_charge_id": [("original_charge_id", auth_id)],
        "charge_id prefix": [("charge_id", prefix)],
        "sort=-total_amount": [("sort", "-total_amount")],
        "sort=contact_name": [("sort", "contact_name")],
        "sort=last4": [("sort", "last4")],
        "status=success&sort=-total_amount": [("status", "success"), ("sort", "-total_amount")],
        "tag=vip&sort=contact_name": [("tag", "vip"), ("sort", "contact_name")],
        "account+status+amount+tag": [
            ("account_id", account_id),
            ("status", "success"),
            ("min_amount", "50"),
            ("tag", "retail"),
        ],
        "method+last4+created range": [
            ("method", "card"),
            ("last4", "4444"),
            ("created_from", "2026-07-01T00:00:00Z"),
            ("created_to", "2026-11-01T00:00:00Z"),
        ],
        "chargeback&tag=vip&merchant": [
            ("status", "chargeback"),
            ("tag", "vip"),
            ("merchant_id", merchant_id),
        ],
        "attribute+max_amount+sort=-charge_timestamp": [
            ("attribute", "channel=pos"),
            ("max_amount", "20"),
            ("sort", "-charge_timestamp"),
        ],
        "deep page (offset 5000)": [("offset", "5000")],
        "limit=500": [("limit", "500")],
    }


async def run(db: Path, repeat: int) -> dict[str, dict[str, float | int]]:
    async with httpx.AsyncClient(transport=asgi_transport(db), base_url="http://sandbox") as http:
        token = (
            await http.post(
                "/v2/services/oauth2/token",
                data={"grant_type": "client_credentials"},
                auth=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET),
            )
        ).json()["access_token"]
        http.headers["Authorization"] = f"Bearer {token}"
        params = {"charge_type": "capture", "limit": 1}
        first = (await http.get("/v2/charges", params=params)).json()
        capture = first["data"][0]
        results: dict[str, dict[str, float | int]] = {}
        named = queries(
            capture["account_id"],
            capture["merchant_id"],
            capture["original_charge_id"],
            capture["charge_id"][:5],
        )
        for name, params in named.items():
            timings = []
            total = 0
            for _ in range(repeat):
                started = time.perf_counter()
                response = await http.get("/v2/charges", params=params)
                timings.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()
                total = response.json()["total"]
            results[name] = {
                "median_ms": round(statistics.median(timings), 1),
                "max_ms": round(max(timings), 1),
                "total": total,
            }
        return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charges", type=int, default=100_000)
    parser.add_argument("--db", type=Path, default=None, help="reuse this database if it exists")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    report: dict[str, object] = {"charges": args.charges}
    with tempfile.TemporaryDirectory() as scratch:
        db = args.db or Path(scratch) / "bench.sqlite3"
        if not db.exists():
            started = time.perf_counter()
            build_database(db, charges=args.charges)
            report["build_seconds"] = round(time.perf_counter() - started, 2)
        report["queries"] = asyncio.run(run(db, args.repeat))
        medians = [q["median_ms"] for q in report["queries"].values()]  # type: ignore[attr-defined]
        report["worst_median_ms"] = max(medians)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
