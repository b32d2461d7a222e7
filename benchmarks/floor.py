"""The team floor's load on one PostgreSQL journal: N agents at once, each doing what a dashboard
does to the journal, for S seconds.

    python -m benchmarks.floor [--agents 50] [--seconds 60] [--url URL] [--quick]
    python -m benchmarks --only floor            (the same, as one part of the harness)

Each agent is a thread with its own `Journal` (its own connection, as a dashboard's) and its own
`PresenceBoard`, at a busy agent's pace:

- opens a charge every 6 s (presence "viewing": a row written and a ``NOTIFY``) and closes it
  4 s later (the row deleted, a ``NOTIFY``);
- renews its presence and its claim every 10 s (the dashboard's heartbeat: `PresenceBoard.beat`,
  `Journal.beat_claims`), holding one claim all along;
- sends a money action every 20 s (three a minute: the executor's three durable commits —
  intent with the exactly-once guard, "sent", "succeeded" — each a link of the trail;
  `benchmarks.team_journal`'s cycle);
- reads the others' presence after each write anyone makes, as a dashboard does when its
  ``LISTEN`` hears one (here a shared counter stands for the notification, so 50 agents need 50
  connections, not 100: the wheel's server allows 100).

Reported (one JSON line each, `benchmarks.figures` shape, nothing asserted): the server's
committed transactions a second (``pg_stat_database``), each kind of call's median and p95 as its
agent saw it (locks waited for included), and how many of each were made. The agents share this
machine's cores with the server: the figures are for this machine.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.figures import apart, emit, percentile

SERVICE = "http://bench.invalid"
OPEN_EVERY = 6.0
OPEN_FOR = 4.0
BEAT_EVERY = 10.0
ACT_EVERY = 20.0


def _now() -> datetime:
    return datetime.now(UTC)


def _agent(
    location: str,
    index: int,
    seconds: float,
    writes: list[int],
    timings: dict[str, list[float]],
    lock: threading.Lock,
    start: threading.Barrier,
) -> None:
    from benchmarks.team_journal import _cycle  # one money action, as the executor journals it
    from paytui.actions.journal import Journal
    from paytui.actions.presence import PresenceBoard

    name = f"agent-{index:02d}"
    owner = f"{name}:1"
    journal = Journal(location, claim_lease=timedelta(seconds=120))
    board = PresenceBoard(
        journal, base_url=SERVICE, agent=name, machine=name, owner=owner, clock=_now
    )
    rng = random.Random(index)
    mine: dict[str, list[float]] = {}

    def timed(kind: str, call: Callable[[], Any]) -> None:
        began = time.perf_counter()
        call()
        mine.setdefault(kind, []).append(time.perf_counter() - began)

    def wrote() -> None:
        with lock:
            writes[0] += 1

    try:
        try:
            journal.claim(SERVICE, f"{name}-claimed", agent=name, machine=name, owner=owner)
        finally:
            start.wait()  # whatever happened: the others and the clock do not wait for ever
        until = time.monotonic() + seconds
        # Spread over the first period, as a floor's agents are not in step.
        next_open = time.monotonic() + rng.uniform(0, OPEN_EVERY)
        next_beat = time.monotonic() + rng.uniform(0, BEAT_EVERY)
        next_act = time.monotonic() + rng.uniform(0, ACT_EVERY)
        close_at: float | None = None
        shown: str | None = None
        heard = 0
        number = 0
        while time.monotonic() < until:
            now = time.monotonic()
            if shown is None and now >= next_open:
                shown = f"charge-{rng.randrange(500):03d}"
                board.show("detail", shown)
                timed("presence_write", board.flush)
                wrote()
                close_at, next_open = now + OPEN_FOR, now + OPEN_EVERY
            elif shown is not None and close_at is not None and now >= close_at:
                board.hide("detail", shown)
                timed("presence_write", board.flush)
                wrote()
                shown = None
            if now >= next_beat:
                timed("presence_beat", board.beat)
                timed("claim_beat", lambda: journal.beat_claims(owner=owner))
                next_beat = now + BEAT_EVERY
            if now >= next_act:
                number += 1
                timed("action_cycle", lambda n=number: _cycle(journal, index, n))
                wrote()
                next_act = now + ACT_EVERY
            with lock:
                news = writes[0]
            if news != heard:  # someone wrote: read the others, as LISTEN would have said
                heard = news
                timed("presence_read", board.read)
            time.sleep(0.02)
    finally:
        with contextlib.suppress(Exception):
            board.leave()
            journal.release_all(owner=owner)
        journal.close()
        with lock:
            for kind, values in mine.items():
                timings.setdefault(kind, []).extend(values)


def _commits(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute(
            b"SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


def measure(url: str, agents: int, seconds: float) -> Iterator[dict[str, Any]]:
    import psycopg

    from benchmarks.team_journal import _with_schema
    from paytui.actions.journal import Journal

    schema = f"floor_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"'.encode())
    location = _with_schema(url, schema)
    try:
        Journal(location).close()  # the schema, made once before the agents start
        writes = [0]
        timings: dict[str, list[float]] = {}
        lock = threading.Lock()
        start = threading.Barrier(agents + 1)
        threads = [
            threading.Thread(
                target=_agent, args=(location, n, seconds, writes, timings, lock, start)
            )
            for n in range(agents)
        ]
        for thread in threads:
            thread.start()
        start.wait()
        before, began = _commits(url), time.monotonic()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - began
        after = _commits(url)
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'.encode())
    # The commits of every client of the database in that time (the agents', and the two reads
    # of the counter): the journal's load.
    yield {
        "name": f"floor_commits_per_s/{agents}a",
        "value": round((after - before) / elapsed, 1),
        "unit": "commits/s",
        "target": None,
        "runs": 1,
        "ok": None,
        "seconds": round(elapsed, 1),
    }
    for kind in ("presence_write", "presence_read", "presence_beat", "claim_beat", "action_cycle"):
        values = timings.get(kind, [])
        if not values:
            continue
        for q, label in ((0.5, "p50"), (0.95, "p95")):
            yield {
                "name": f"floor_{kind}_{label}_ms/{agents}a",
                "value": round(percentile(values, q) * 1000, 1),
                "unit": "ms",
                "target": None,
                "runs": len(values),
                "ok": None,
            }
        yield {
            "name": f"floor_{kind}_per_s/{agents}a",
            "value": round(len(values) / elapsed, 1),
            "unit": "calls/s",
            "target": None,
            "runs": 1,
            "ok": None,
        }


def separately(quick: bool = False) -> Iterator[dict[str, Any]]:
    """`main` in a process of its own, for `python -m benchmarks`."""
    return apart("benchmarks.floor", quick)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.floor",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--agents", type=int, default=50, help="agents at once (default 50)")
    parser.add_argument("--seconds", type=float, default=None, help="default 60 (quick: 10)")
    parser.add_argument("--quick", action="store_true", help="10 agents for 10 s")
    parser.add_argument(
        "--url",
        default=None,
        help="the PostgreSQL server (default: the PG* environment's, else one from the wheel)",
    )
    args = parser.parse_args(argv)
    agents = 10 if args.quick and args.agents == 50 else args.agents
    seconds = args.seconds or (10.0 if args.quick else 60.0)
    with contextlib.ExitStack() as stack:
        if args.url:
            url = args.url
        else:
            from tests.postgres_wheel import server

            url = stack.enter_context(server())
        for item in measure(url, agents, seconds):
            emit(item)
    return 0


if __name__ == "__main__":
    sys.exit(main())
