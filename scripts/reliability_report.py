"""Hostile data and broken servers: try every kind, count what held, print a Markdown table.

    python scripts/reliability_report.py            # prints the table
    python scripts/reliability_report.py --write    # and puts it into docs/reliability.md
    python scripts/reliability_report.py --ui-seeds 6 --ui-keys 1600   # a longer UI fuzz
    python scripts/reliability_report.py --write --tmux   # as recorded (needs tmux)

Everything runs in process against the in-process sandbox (a temporary copy of the demo data)
and local stubs; nothing needs the network. "Held" means: no crash, no hang, no raw control
character on screen, and the one clear error the issue asks for. The tmux title check lives in
scripts/hostile_terminal_check.py (it needs a real terminal).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import string
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reliability.md"
HEADING = "## Hostile data and broken servers"

Row = tuple[str, int, int, str]  # kind, tried, held, what holding means
ROWS: list[Row] = []


def row(kind: str, results: list[bool], meaning: str) -> None:
    ROWS.append((kind, len(results), sum(results), meaning))
    print(f"  {kind}: {sum(results)}/{len(results)}", file=sys.stderr)


# --------------------------------------------------------------------------- text


def text_rows(rng: random.Random) -> None:
    from paytui.text import first_unsafe, safe

    nasty = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))]
    nasty += list("\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e")
    nasty += list("\u2066\u2067\u2068\u2069\ud800\udfff")
    alphabet = nasty + list(string.printable) + list("éß漢字🙂")
    results = []
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        shown = safe(text)
        results.append(first_unsafe(shown) is None and len(shown) == len(text))
    row("Random text with C0/C1/ESC/DEL/bidi/surrogates", results, "shown with placeholders only")


# --------------------------------------------------------------------------- client


async def client_rows() -> None:
    import httpx

    from paytui.api.client import PaymentClient
    from paytui.api.errors import ApiError, RedirectError, RequestTimeoutError

    deep = b"[" * 100_000 + b"]" * 100_000
    bodies: list[tuple[int, bytes, dict[str, str]]] = [
        (200, deep, {}),
        (200, b'{"charge_id": "\xff\xfe"}', {}),
        (200, b'{"charge_id": "c", "total_amount": ' + b"9" * 5000 + b"}", {}),
        (200, b'{"charge_id": "c", "total_amount": NaN}', {}),
        (200, b'{"charge_id": "c", "total_amount": -Infinity}', {}),
        (200, b'{"charge_id": "c", "tags": ' + deep + b"}", {}),
        (200, b"<html>proxy login</html>", {}),
        (200, b"", {}),
        (200, b"[]", {}),
        (200, b'"just a string"', {}),
        (302, b"", {"Location": "https://login.example/"}),
        (301, b"moved", {"Location": "http://elsewhere/"}),
        (500, deep, {}),
        (503, b"\x00\x01\x02", {}),
        (429, b"{}", {"Retry-After": "999999"}),
        (200, b'{"charge_id": 12, "total_amount": {"a": 1}}', {}),
    ]
    results = []
    for status, content, headers in bodies:

        def answer(
            request: httpx.Request, s: int = status, c: bytes = content, h: Any = headers
        ) -> httpx.Response:
            return httpx.Response(s, content=c, headers=h)

        client = PaymentClient(
            "http://api.test", token="t", transport=httpx.MockTransport(answer), max_retries=3
        )
        waits: list[float] = []

        async def fake_sleep(seconds: float, waits: list[float] = waits) -> None:
            waits.append(seconds)

        client.sleep = fake_sleep
        try:
            await client.get_charge("c")
            ok = False
        except ApiError as exc:
            ok = "\n" not in str(exc) and sum(waits) <= client.max_wait
            if 300 <= status < 400:
                ok = ok and isinstance(exc, RedirectError)
        except Exception:
            ok = False
        await client.aclose()
        results.append(ok)
    row("Broken answers (deep nesting, bad bytes, NaN, 3xx, 5xx...)", results, "one ApiError")

    # One unreadable item per page, at every position.
    results = []
    for position in range(5):
        items: list[dict[str, Any]] = [{"charge_id": f"c{i}"} for i in range(5)]
        items[position]["convenience_fee"] = {"amount": 1}

        def page(request: httpx.Request, body: list[Any] = items) -> httpx.Response:
            return httpx.Response(200, json={"data": body, "total": 5})

        client = PaymentClient("http://api.test", token="t", transport=httpx.MockTransport(page))
        got = await client.search_charges_page()
        rows = got.rows()
        results.append(
            len(got.items) == 4 and getattr(rows[position], "id", None) == f"c{position}"
        )
        await client.aclose()
    row("One unreadable item in a page", results, "an unreadable row with its id; rest shows")

    # A server trickling its body: the overall deadline ends it.
    results = []
    for method in ("GET", "POST"):
        results.append(await _trickle(method, PaymentClient, RequestTimeoutError))
    row("Server trickling one byte at a time", results, "timeout; POST outcome unknown")


async def _trickle(method: str, client_type: Any, timeout_error: Any) -> bool:
    stop = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            await reader.readuntil(b"\r\n\r\n")
            body = b'{"charge_id": "' + b"x" * 400 + b'"}'
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body))
            for byte in body:
                if stop.is_set():
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.2)
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    client = client_type(url, token="t", timeout=5.0, deadline=1.0, max_retries=0)
    try:
        if method == "GET":
            await client.get_charge("c")
        else:
            await client.capture("c")
        return False
    except timeout_error as exc:
        return bool(exc.request_sent) if method == "POST" else True
    finally:
        stop.set()
        await client.aclose()
        server.close()
        await server.wait_closed()


# --------------------------------------------------------------------------- files


def file_rows(work: Path) -> None:
    from paytui.config import load_config

    cases: dict[str, Callable[[Path], None]] = {
        "nested 100,000 deep": lambda p: p.write_text("a = " + "[" * 100_000 + "]" * 100_000),
        "2 MiB": lambda p: p.write_text("# " + "x" * (2 << 20)),
        "symlink to /dev/zero": lambda p: p.symlink_to("/dev/zero"),
        "a FIFO": lambda p: os.mkfifo(p),
        "not UTF-8": lambda p: p.write_bytes(b"x = '\xff'"),
        "a directory": lambda p: p.mkdir(),
    }
    results = []
    for index, make in enumerate(cases.values()):
        path = work / f"config-{index}.toml"
        make(path)
        started = time.monotonic()
        result = load_config(path)
        problems = [str(p) for p in result.problems]
        results.append(
            len(problems) == 1
            and str(path) in problems[0]
            and "\n" not in problems[0]
            and time.monotonic() - started < 5
        )
    row("Broken config files (" + ", ".join(cases) + ")", results, "one line naming the file")


# --------------------------------------------------------------------------- sandbox


async def sandbox_rows(db: Path) -> None:
    import httpx

    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.sandbox.embedded import asgi_transport

    async with httpx.AsyncClient(transport=asgi_transport(db), base_url="http://sandbox") as api:
        token = (
            await api.post(
                "/v2/services/oauth2/token",
                data={"grant_type": "client_credentials"},
                auth=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET),
            )
        ).json()["access_token"]
        api.headers["Authorization"] = f"Bearer {token}"
        results = []
        for path in ("charges", "refunds", "tokens", "accounts", "merchants", "distributions"):
            for offset in ("0", "-1", str(2**31), str(2**63), str(2**64), "1e9", "x"):
                for limit in ("1", "0", "-3", str(2**63)):
                    answer = await api.get(f"/v2/{path}", params={"offset": offset, "limit": limit})
                    results.append(answer.status_code in (200, 422))
        row("Sandbox paging bounds (limit x offset x 6 lists)", results, "200 or 422, never 500")

        account = (await api.get("/v2/accounts", params={"status": "approved"})).json()
        account_id = account["data"][0]["account_id"]
        card = {"method": "card", "card_number": "4111111111111111", "expiration_date": "2030-01"}
        base = {"account_id": account_id, "total_amount": 5, "payment_method": card}
        longs = [
            {"invoice_number": "i" * 65},
            {"po_number": "p" * 65},
            {"tags": ["t" * 65]},
            {"tags": [f"t{i}" for i in range(51)]},
            {"attributes": {"k" * 65: ["v"]}},
            {"attributes": {"k": ["v" * 256]}},
            {"payment_method": {**card, "contact": {"first_name": "A" * 101}}},
        ]
        results = [
            (await api.post("/v2/charges", json={**base, **extra})).status_code == 422
            for extra in longs
        ]
        row("Text over its length limit sent to the sandbox", results, "422 naming the limit")

        anon = {"Authorization": ""}
        results = [
            (await api.get("/sandbox/faults", headers=anon)).status_code == 401,
            (await api.put("/sandbox/faults", json={}, headers=anon)).status_code == 401,
            (await api.post("/sandbox/accounts/pa_x/advance", headers=anon)).status_code == 401,
        ]
        row("Sandbox control endpoints without the demo token", results, "401")


# --------------------------------------------------------------------------- parsers


def parser_rows(rng: random.Random) -> None:
    from paytui.actions.amounts import AmountError, parse_amount
    from paytui.api.client import _parse
    from paytui.api.errors import MalformedResponseError
    from paytui.api.models import Charge
    from paytui.search import format_query, parse

    now = datetime(2026, 11, 20, 18, 30, tzinfo=UTC)
    words = ["status:", "amount:", ">", "<", "..", "from:", "tag:", "attr:", "is:", "sort:",
             "account:", "pa_", "last4:", "4242", "today", "7d", "-", '"', ":", "=", "12.50",
             "1e9", "card", " ", "2026-11-", "captured:", "\x1b", "\u202e"]  # fmt: skip
    results = []
    for _ in range(3000):
        text = "".join(rng.choice(words + list(string.printable)) for _ in range(rng.randint(0, 9)))
        result = parse(text, now=now)
        ok = all("could not read this query" not in e.message for e in result.errors)
        if ok and result.query is not None:
            ok = parse(format_query(result.query), now=now).query == result.query
        results.append(ok)
    row("Random search queries", results, "parsed or one located error; reads back")

    results = []
    for _ in range(3000):
        text = "".join(rng.choice("0123456789.,-+eE naNIfity") for _ in range(rng.randint(0, 12)))
        try:
            amount = parse_amount(text, allow_zero=True)
            results.append(amount == amount.quantize(Decimal("0.01")))
        except AmountError:
            results.append(True)
        except Exception:
            results.append(False)
    row("Random amount text", results, "a two-place amount or AmountError")

    def value(depth: int = 0) -> Any:
        makers: list[Callable[[], Any]] = [
            lambda: None,
            lambda: True,
            lambda: rng.randint(-(10**30), 10**30),
            lambda: float("nan"),
            lambda: "x\x1b",
            lambda: [value(depth + 1) for _ in range(2)],
            lambda: {"k": value(depth + 1)},
            lambda: {"total_amount": value(depth + 1), "charge_id": value(depth + 1)},
        ]
        return makers[rng.randint(0, 7 if depth < 4 else 4)]()

    fields = list(Charge.model_fields)
    results = []
    for _ in range(3000):
        body = {rng.choice(fields): value() for _ in range(rng.randint(0, 6))}
        try:
            _parse(Charge, body)
            results.append(True)
        except MalformedResponseError:
            results.append(True)
        except Exception:
            results.append(False)
    row("Random JSON into the Charge model", results, "a Charge or MalformedResponseError")


# --------------------------------------------------------------------------- UI


async def ui_rows(db: Path, seeds: int, keys: int) -> None:
    from paytui.api.client import PaymentClient
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.sandbox.embedded import asgi_transport
    from paytui.ui.app import PaytuiApp
    from paytui.ui.screens.help import HelpScreen

    sys.path.insert(0, str(ROOT))
    from tests.ui.test_fuzz_keys import BATCH, key_stream, leave_everything, queue_keys

    def app_for() -> PaytuiApp:
        transport = asgi_transport(db)

        async def factory() -> PaymentClient:
            return PaymentClient(
                "http://sandbox",
                client_id=DEMO_CLIENT_ID,
                client_secret=DEMO_CLIENT_SECRET,
                transport=transport,
                max_retries=0,
            )

        return PaytuiApp(factory, journal_path=db.parent / "journal.sqlite3")

    async def fuzz(seed: int) -> bool:
        app = app_for()
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause()
                stream = key_stream(seed, keys)
                for index in range(0, len(stream), BATCH):  # as the CI fuzz: batches
                    queue_keys(app, stream[index : index + BATCH])
                    await pilot.pause()
                await app.workers.wait_for_complete()
                await leave_everything(app, pilot)
                await pilot.press("question_mark")
                await pilot.pause()
                return isinstance(app.screen, HelpScreen)
        except Exception:
            return False

    results = [await fuzz(seed) for seed in range(seeds)]
    row(f"UI fuzz: seeds x {keys} random keys, every screen/modal", results, "no crash; ? = Help")

    async def palette_rush() -> bool:
        app = app_for()
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                for key in ("pagedown", "pageup", "end", "home"):
                    await pilot.press("ctrl+p", key, key, "escape")
                return True
        except Exception:
            return False

    results = [await palette_rush() for _ in range(5)]
    row("ctrl+p then at once PageDown/PageUp", results, "no crash")


def tmux_rows() -> None:
    """The real-terminal check (scripts/hostile_terminal_check.py): one row per check."""
    import subprocess

    script = ROOT / "scripts" / "hostile_terminal_check.py"
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False, timeout=600
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(("held", "FAILED"))]
    results = [line.startswith("held") for line in lines] or [False]
    row("tmux: hostile charge shown in a real terminal", results, "title unchanged; see script")


# --------------------------------------------------------------------------- main


def table() -> str:
    lines = [
        HEADING,
        "",
        "Produced by `python scripts/reliability_report.py --write` (in process, no network).",
        "The terminal-title check in a real terminal: `python scripts/hostile_terminal_check.py`.",
        "",
        "In CI (bounded in time): `tests/sandbox/test_schemathesis.py` (every operation of the",
        "sandbox's OpenAPI document, its examples, boundary cases and 12 generated requests",
        "each: 0 server errors, 0 undeclared statuses, 0 bodies breaking their schema; about",
        "20 s of CPU; `PAYTUI_SCHEMATHESIS_EXAMPLES=200` for more), `tests/test_properties.py`",
        "(hypothesis, 100 examples per property), `tests/ui/test_fuzz_keys.py` (3 seeds x 500",
        "keys, queued 30 at a time; more with `PAYTUI_FUZZ_SEEDS` / `PAYTUI_FUZZ_KEYS`) and",
        "`tests/ui/test_terminal_bytes.py` (the hostile charge in a pty: no raw OSC, CSI, BEL,",
        "NUL or bidi byte from the data reaches the terminal; in tmux too where installed: the",
        "title unchanged).",
        "",
        "| Fault or hostile input | Tried | Held | Holding means |",
        "|---|---:|---:|---|",
    ]
    lines += [
        f"| {kind} | {tried:,} | {held:,} | {meaning} |" for kind, tried, held, meaning in ROWS
    ]
    return "\n".join(lines) + "\n"


def write(section: str) -> None:
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Reliability\n"
    pattern = re.compile(rf"{re.escape(HEADING)}\n.*?(?=\n## |\Z)", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _m: section.rstrip("\n") + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    DOC.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


async def run(options: argparse.Namespace) -> None:
    from paytui.sandbox.seed import build_database

    rng = random.Random(options.seed)
    with tempfile.TemporaryDirectory(prefix="paytui-reliability-") as tmp:
        work = Path(tmp)
        db = work / "sandbox.sqlite3"
        build_database(db, charges=500, seed=7)
        steps: list[Callable[[], Awaitable[None] | None]] = [
            lambda: text_rows(rng),
            client_rows,
            lambda: file_rows(work),
            lambda: sandbox_rows(db),
            lambda: parser_rows(rng),
        ]
        if options.ui_seeds:
            steps.append(lambda: ui_rows(db, options.ui_seeds, options.ui_keys))
        if options.tmux:
            steps.append(tmux_rows)
        for step in steps:
            result = step()
            if asyncio.iscoroutine(result):
                await result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update docs/reliability.md")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--ui-seeds", type=int, default=2)
    parser.add_argument("--ui-keys", type=int, default=1500)
    parser.add_argument("--tmux", action="store_true", help="also run the tmux title check")
    options = parser.parse_args()
    asyncio.run(run(options))
    section = table()
    print(section)
    if options.write:
        write(section)
    return 0 if all(tried == held for _, tried, held, _ in ROWS) else 1


if __name__ == "__main__":
    raise SystemExit(main())
