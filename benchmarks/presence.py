"""Presence latency on a team journal: from agent A opening a charge to the others knowing.

    python -m benchmarks.presence [--url URL] [--samples N] [--agents K] [--json]

A is a `PresenceBoard` on its own connection; K other agents each a board and a `JournalWatch`
(its own LISTEN connection, as a dashboard's) in a thread that does what the dashboard's watch
thread does (`ActionsService.watch`: wait for a notification, then read the table when it says
``presence``). For each sample A shows a charge and flushes (the write and its ``NOTIFY``); the
time runs from just before A's write to the moment each agent's read shows A on that charge,
then the same for A closing it. Reported: median and p95 over every (sample, agent) pair, and
the presence reads the K agents made per second. URL: the server (default: the PG* environment's,
else one started from the test extra's wheel); a schema of its own, dropped after.

What is not in the figure: the dashboard's own hop from its watch thread to its screen (a
``call_from_thread`` and a repaint of the row), which `tests/ui/test_presence.py` drives by
events, not time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any

SERVICE = "http://sandbox"


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def measure(url: str, samples: int, agents: int) -> dict[str, Any]:
    import psycopg
    from tests.fixtures_postgres import _with_schema

    from paytui.actions.journal import Journal
    from paytui.actions.presence import PresenceBoard
    from paytui.actions.watch import JournalWatch

    schema = f"presence_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"'.encode())
    journal_url = _with_schema(url, schema)

    def clock() -> datetime:
        return datetime.now(UTC)

    def board(journal: Journal, name: str) -> PresenceBoard:
        return PresenceBoard(
            journal, base_url=SERVICE, agent=name, machine=name, owner=f"{name}:1", clock=clock
        )

    journals: list[Journal] = []
    watches: list[JournalWatch] = []
    try:
        a_journal = Journal(journal_url)
        journals.append(a_journal)
        ana = board(a_journal, "ana")
        #: What each agent saw of ana and when: (target or None, perf_counter), per agent.
        seen: list[tuple[str | None, float]] = [(None, 0.0)] * agents
        changed = threading.Condition()
        reads = [0] * agents

        def follow(index: int, journal: Journal, watch: JournalWatch) -> None:
            me = board(journal, f"agent{index}")
            while not watch.closed:
                watch.next(timeout=1.0)
                if not watch.presence_heard():
                    continue
                me.read()
                reads[index] += 1
                at = time.perf_counter()
                on = [
                    t for t, people in me.others().items() if any(p.agent == "ana" for p in people)
                ]
                with changed:
                    seen[index] = (on[0] if on else None, at)
                    changed.notify_all()

        threads = []
        for index in range(agents):
            journal = Journal(journal_url)
            journals.append(journal)
            watch = JournalWatch(journal, own=None)
            watches.append(watch)
            thread = threading.Thread(target=follow, args=(index, journal, watch), daemon=True)
            thread.start()
            threads.append(thread)
        time.sleep(0.5)  # every listener is listening before the first write
        opened: list[float] = []
        closed: list[float] = []
        started = time.perf_counter()

        def timed(target: str | None) -> list[float]:
            begin = time.perf_counter()
            ana.flush()
            deadline = begin + 30.0
            with changed:
                while not all(s[0] == target for s in seen):
                    if not changed.wait(timeout=max(0.0, deadline - time.perf_counter())):
                        raise RuntimeError(f"not every agent saw {target} within 30 s")
                return [at - begin for _, at in seen]

        for n in range(samples):
            target = f"charge{n:04d}"
            ana.show("detail", target)
            opened += timed(target)
            ana.hide("detail", target)
            closed += timed(None)
        elapsed = time.perf_counter() - started
    finally:
        for watch in watches:
            watch.close()
        for journal in journals:
            journal.close()
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE'.encode())
    ms = 1000.0
    return {
        "samples": samples,
        "agents": agents,
        "open_median_ms": round(statistics.median(opened) * ms, 1),
        "open_p95_ms": round(_p95(opened) * ms, 1),
        "close_median_ms": round(statistics.median(closed) * ms, 1),
        "close_p95_ms": round(_p95(closed) * ms, 1),
        "reads_per_second": round(sum(reads) / elapsed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.presence", description=__doc__)
    parser.add_argument("--url", default=None, help="the PostgreSQL server (default: see above)")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--agents", type=int, default=1, help="agents watching (default 1)")
    args = parser.parse_args(argv)
    if args.url:
        result = measure(args.url, args.samples, args.agents)
    else:
        from tests.postgres_wheel import server

        with server() as url:
            result = measure(url, args.samples, args.agents)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
