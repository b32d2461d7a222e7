"""Exporting every charge against a plain httpx loop reading the same pages, by CPU.

    .venv/bin/python -m benchmarks.export_cpu [--charges N] [--pairs N]

`paytui export --format jsonl --output -` and `paytui charges search --all --format jsonl` (its
columns without `refund_state`: see `commands`), each over a plain loop (`PLAIN_LOOP`: one
`httpx.Client`, the token, then `GET /v2/charges` page by page, 100 rows a page as the export
reads them, each row's JSON written as one line), in interleaved pairs (the loop, then the
command, again and again), each process's own CPU (user + sys, from `getrusage(RUSAGE_CHILDREN)`
around it). The figure is the median of the pairs' ratios (target 1.5), with the medians of both
sides and the 1-minute load beside them. All three read `paytui sandbox` served on loopback in
its own process (its CPU is not counted), the demo client in the environment (never in
arguments). Both sides start a Python, so the ratio holds the whole run: the imports, the pages,
the rows.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.cli_ratio import paytui_command, timed
from benchmarks.figures import emit, figure

TARGET = 1.5
#: The plain loop: what reading every charge costs with nothing but httpx and json.
PLAIN_LOOP = """
import json, os, sys
import httpx
base = sys.argv[1]
auth = (os.environ["PAYTUI_CLIENT_ID"], os.environ["PAYTUI_CLIENT_SECRET"])
out = sys.stdout
with httpx.Client(base_url=base) as client:
    answer = client.post(
        "/v2/services/oauth2/token", data={"grant_type": "client_credentials"}, auth=auth
    )
    headers = {"Authorization": "Bearer " + answer.json()["access_token"]}
    offset = 0
    while True:
        page = client.get(
            "/v2/charges", params={"limit": 100, "offset": offset}, headers=headers
        ).json()
        for row in page["data"]:
            out.write(json.dumps(row) + "\\n")
        if not page.get("has_more"):
            break
        offset += len(page["data"])
"""


def commands() -> dict[str, list[str]]:
    """The commands measured, by figure name. The search's columns are its defaults without
    `refund_state`: with it, a search reads each sale's refunds (one request a row), which no
    plain reading of the pages does; the export's defaults read none (its rows say unknown)."""
    from paytui.commands.handlers import SEARCH_CHARGE_COLUMNS

    paytui = paytui_command()
    columns = ",".join(key for key in SEARCH_CHARGE_COLUMNS if key != "refund_state")
    return {
        "export": [*paytui, "export", "--format", "jsonl", "--output", "-"],
        "search_all_no_refund_state": [
            *paytui,
            *("charges", "search", "--all", "--format", "jsonl", "--columns", columns),
        ],
    }


def figures(runs: int, charges: int) -> Iterator[dict[str, Any]]:
    import sys

    from benchmarks.loopback_details import served
    from benchmarks.startup import byte_compile
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.sandbox.seed import build_database

    byte_compile()  # as an installed paytui: no module compiled from source on each run
    with tempfile.TemporaryDirectory(prefix="paytui-export-cpu-") as home:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PAYTUI_", "XDG_"))},
            "HOME": home,
            "PAYTUI_CLIENT_ID": DEMO_CLIENT_ID,
            "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET,
        }
        db = Path(home) / "sandbox.db"
        build_database(db, charges=charges)
        yield figure("export_cpu_load_1m", [os.getloadavg()[0]], "load", None)
        with served(db) as base_url:
            plain = [sys.executable, "-c", PLAIN_LOOP, base_url]
            for name, command in commands().items():
                command = [*command, "--base-url", base_url]
                timed(plain, env)  # unmeasured: the page cache, the byte code
                timed(command, env)
                seen: dict[str, list[float]] = {"plain": [], "paytui": []}
                for _ in range(runs):
                    seen["plain"].append(timed(plain, env)[0])
                    seen["paytui"].append(timed(command, env)[0])
                ratios = [p / b for p, b in zip(seen["paytui"], seen["plain"], strict=True)]
                yield figure(f"export_cpu_ratio/{name}", ratios, "x", TARGET)
                for key, label in (("paytui", "export_cpu_ms"), ("plain", "export_plain_cpu_ms")):
                    yield figure(f"{label}/{name}", [s * 1000 for s in seen[key]], "ms", None)
        yield figure("export_cpu_load_1m", [os.getloadavg()[0]], "load", None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=5, help="interleaved pairs (5)")
    parser.add_argument("--charges", type=int, default=10_000, help="charges (10,000)")
    args = parser.parse_args(argv)
    for item in figures(args.pairs, args.charges):
        emit(item)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
