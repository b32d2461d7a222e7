"""Exporting every charge of a large sandbox: does memory stay flat? (issue 13's "done when")

    .venv/bin/python -m benchmarks.export_memory DB [--format csv|jsonl]

Runs in its own process (so nothing else this harness did is in its memory). The sandbox is the
embedded one, a private child over its Unix socket, so the figure is the exporting process's
own: the client, the exporter and the file. Resident memory is read at the start (after the
first page, when the imports and the connection exist) and after every page; the figure is the
highest over the start. It also checks every amount against the API's: the export is read back
and each row's amount compared with the API's text for it (`plain_amount`), exactly.

Prints one JSON line per figure (the format of `python -m benchmarks`).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _line(name: str, value: float, unit: str, target: float | None) -> dict[str, Any]:
    shown = round(value, 3)
    return {
        "name": name,
        "value": shown,
        "unit": unit,
        "target": target,
        "runs": 1,
        "min": shown,
        "median": shown,
        "max": shown,
        "ok": None if target is None else value <= target,
    }


async def measure(db: Path, fmt: str, out_dir: Path) -> list[dict[str, Any]]:
    from paytui.api.money import plain_amount
    from paytui.connect import embedded_client
    from paytui.exporter import Progress, charge_pages, export_charges_to_file
    from paytui.sandbox.embedded import EmbeddedSandbox

    sandbox = EmbeddedSandbox.start(db, keep_warm=False)
    try:
        await asyncio.to_thread(sandbox.wait_ready, 60.0)
        async with embedded_client(sandbox) as client:
            # Warm up: the imports, the token, the connection, one page parsed and written.
            warm = out_dir / f"warm.{fmt}"
            pages = charge_pages(client, None)
            first = await anext(pages)
            await pages.aclose()
            await export_charges_to_file([first], warm, fmt)
            start = rss_bytes()
            peak = start
            progress = Progress()

            def sample(_: Progress) -> None:
                nonlocal peak
                peak = max(peak, rss_bytes())

            target = out_dir / f"all.{fmt}"
            started = time.perf_counter()
            result = await export_charges_to_file(
                charge_pages(client, None, progress=progress),
                target,
                fmt,
                columns=["charge_id", "amount"],
                on_progress=sample,
            )
            seconds = time.perf_counter() - started
            # After the measurement: the API's amounts, to compare every row with.
            api: dict[str, str | None] = {}
            async for page in client.search_charges(None, page_size=100):
                for charge in page.items:
                    amount = charge.total_amount
                    api[charge.charge_id] = plain_amount(amount) if amount is not None else None
    finally:
        sandbox.stop()
    with target.open(newline="") as stream:
        if fmt == "csv":
            rows = {r["charge_id"]: r["amount"] or None for r in csv.DictReader(stream)}
        else:
            rows = {r["charge_id"]: r["amount"] for r in map(json.loads, stream)}
    mismatches = sum(1 for key, value in api.items() if rows.get(key, "missing") != value)
    mismatches += len(rows.keys() - api.keys())
    return [
        _line("export_rss_ratio", peak / start, "x", 1.25),
        _line("export_rss_start_mb", start / 2**20, "MB", None),
        _line("export_rows", float(result.rows), "rows", None),
        _line("export_rows_per_s", result.rows / seconds, "rows/s", None),
        _line("export_money_mismatches", float(mismatches), "rows", 0.0),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "db", type=Path, help="the sandbox database (built by python -m benchmarks)"
    )
    parser.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        for item in asyncio.run(measure(args.db, args.format, Path(scratch))):
            print(json.dumps(item), flush=True)
    return 0


def figures(db: Path) -> list[dict[str, Any]]:
    """Run the measurement in a fresh interpreter; its JSON lines as dicts."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.export_memory", str(db)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


if __name__ == "__main__":
    raise SystemExit(main())
