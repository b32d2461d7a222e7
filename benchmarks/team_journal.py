"""How many intents a second one journal takes: a team's PostgreSQL, and SQLite beside it.

    python -m benchmarks.team_journal [--quick] [--url URL] [--writers 1,4,16] [--seconds S]
                                      [--runs N]

One cycle is what the executor writes for one money action that goes through: the journal's
newest id (``guard_since``), `Journal.record_intent` with the exactly-once guard (the guarded
target's and the trail's advisory locks, the check for an unsettled or recent same action, the
insert, its link in the hash-chained trail), then `transition` to "sent" and to "succeeded"
(each an update and its link): three transactions, each committed durably. N writers (1, 4, 16:
processes forked from this one, which imported the journal, each its own `Journal`: its own
connection, or its own handle on the file) run cycles on targets of their own for S seconds at
once; `team_journal_intents_per_s/<engine>/<N>w` is the cycles completed per second by all of
them (the median of the runs), `team_journal_cycle_p50_ms/…` and `…_p99_ms` the time of one
cycle as its writer saw it (locks waited for included). Every figure is printed, nothing
asserts on timings (``target`` is null).

PostgreSQL: the server at URL; without ``--url``, the one the environment names (libpq's
``PGHOST``, ``PGPORT``... or ``PAYTUI_TEST_POSTGRES``), else a throwaway one started from the test
extra's wheel for this run and stopped after, as the tests do (``tests/postgres_wheel.py``); in
a schema of its own per writer count, dropped after. Without a server that answers (or one that
starts), one line says so (``team_journal_intents_per_s/postgresql``, ``value`` null, ``note``)
and the SQLite figures still follow. SQLite: a new file per writer
count in a temporary directory (WAL, as paytui opens it). ``--quick``: one run of 0.25 s per
writer count (a few seconds in all); otherwise 5 runs of 3 s.

The writers share this machine's cores with the server (and SQLite's writers with each other):
the figures are for this machine, not a server of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import queue
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks.figures import apart, emit, figure, percentile
from paytui.actions.journal import Journal

SERVICE = "http://bench.invalid"
WRITERS = (1, 4, 16)


def _with_schema(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


def _cycle(journal: Journal, writer: int, number: int) -> None:
    """One money action that goes through, as the executor journals it."""
    mark = journal.last_id()
    entry = journal.record_intent(
        profile="bench",
        base_url=SERVICE,
        operation="refund",
        charge_id=f"w{writer}-{number}-{uuid.uuid4().hex[:8]}",
        amount=Decimal("5.00"),
        request_summary={"total_amount": "5.00"},
        client_reference=uuid.uuid4().hex,
        settle_seconds=12.0,
        guard_since=mark,
        actor=f"the benchmark of writer-{writer}",
        agent=f"writer-{writer}",
        machine="bench",
    )
    journal.transition(entry.id, "sent", expected={"pending"}, at=datetime.now(UTC))
    journal.transition(entry.id, "succeeded", expected={"sent"}, result_id=uuid.uuid4().hex[:24])


def _writer(location: str, writer: int, seconds: float, ready: Any, results: Any) -> None:
    """One writer process: open its journal, wait for the others, run cycles for `seconds`;
    put (cycles, elapsed, cycle times) on `results`."""
    try:
        journal = Journal(location)
    except Exception as err:
        ready.abort()
        results.put((writer, f"{type(err).__name__}: {err}"))
        return
    try:
        _cycle(journal, writer, -1)  # warm: the first statements prepared, pages cached
        ready.wait()
        times: list[float] = []
        started = time.perf_counter()
        deadline = started + seconds
        number = 0
        while True:
            began = time.perf_counter()
            if began >= deadline:
                break
            _cycle(journal, writer, number)
            times.append(time.perf_counter() - began)
            number += 1
        results.put((writer, (number, time.perf_counter() - started, times)))
    except Exception as err:
        results.put((writer, f"{type(err).__name__}: {err}"))
    finally:
        journal.close()


def measure(location: str, writers: int, seconds: float) -> tuple[float, list[float]]:
    """`writers` processes on the journal at `location` for `seconds`: cycles a second (all
    together) and every cycle's time in seconds. The writers are forked from this process,
    which holds no connection then (`main` runs in a process of its own)."""
    context = multiprocessing.get_context("fork")
    ready = context.Barrier(writers + 1)
    results = context.Queue()
    processes = [
        context.Process(target=_writer, args=(location, n, seconds, ready, results), daemon=True)
        for n in range(writers)
    ]
    for process in processes:
        process.start()
    with contextlib.suppress(Exception):  # a writer could not open the journal: see its error
        ready.wait(timeout=120)
    answers = []
    deadline = time.monotonic() + seconds + 120
    while len(answers) < writers:
        try:
            answers.append(results.get(timeout=0.5))
        except queue.Empty:
            dead = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
            if dead or time.monotonic() > deadline:
                for process in processes:
                    process.kill()
                raise RuntimeError(f"a writer died or hung (exit codes {dead})") from None
    for process in processes:
        process.join(timeout=30)
    errors = [answer for _, answer in answers if isinstance(answer, str)]
    if errors:
        raise RuntimeError(errors[0])
    rate = 0.0
    times: list[float] = []
    for _, (cycles, elapsed, own) in answers:
        rate += cycles / elapsed
        times += own
    return rate, times


def _postgres_schema(url: str) -> tuple[str, str] | str:
    """A new schema on the server at `url` and the journal URL into it; or why not (one line)."""
    try:
        import psycopg

        schema = f"bench_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as db:
            db.execute(f'CREATE SCHEMA "{schema}"'.encode())
    except Exception as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        return f"no PostgreSQL answered at {_masked(url)}: {first}"
    return schema, _with_schema(url, schema)


def _drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as db:
        db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'.encode())


def _masked(url: str) -> str:
    from paytui.actions.journal_store import mask_url

    return mask_url(url)


def _figures(
    engine: str, location: str, counts: tuple[int, ...], runs: int, seconds: float
) -> Iterator[dict[str, Any]]:
    for writers in counts:
        rates: list[float] = []
        times: list[float] = []
        for _ in range(runs):
            rate, own = measure(location, writers, seconds)
            rates.append(rate)
            times += own
        name = f"{engine}/{writers}w"
        yield figure(f"team_journal_intents_per_s/{name}", rates, "intents/s", None)
        for q in (0.5, 0.99):
            ms = percentile(times, q) * 1000
            yield figure(f"team_journal_cycle_p{round(q * 100)}_ms/{name}", [ms], "ms", None)


def figures(
    url: str = "postgresql://",
    *,
    quick: bool = False,
    counts: tuple[int, ...] = WRITERS,
    runs: int | None = None,
    seconds: float | None = None,
) -> Iterator[dict[str, Any]]:
    """The PostgreSQL figures (or the line saying there is no server), then SQLite's."""
    runs = runs or (1 if quick else 5)
    seconds = seconds or (0.25 if quick else 3.0)
    for writers in counts:
        made = _postgres_schema(url)
        if isinstance(made, str):
            yield {
                "name": "team_journal_intents_per_s/postgresql",
                "value": None,
                "unit": "intents/s",
                "target": None,
                "runs": 0,
                "ok": None,
                "note": made,
            }
            break
        schema, location = made
        try:
            Journal(location).close()  # the schema, created once before the writers start
            yield from _figures("postgresql", location, (writers,), runs, seconds)
        finally:
            _drop_schema(url, schema)
    with tempfile.TemporaryDirectory(prefix="paytui-bench-journal-") as tmp:
        for writers in counts:
            location = str(Path(tmp) / f"journal-{writers}.sqlite3")
            Journal(location).close()
            yield from _figures("sqlite", location, (writers,), runs, seconds)


def separately(quick: bool = False) -> Iterator[dict[str, Any]]:
    """`figures` in a process of its own (its writers are forked from it: nothing else of the
    caller's, such as threads or connections, is in them), for `python -m benchmarks`."""
    return apart("benchmarks.team_journal", quick)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.team_journal",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="one short run per writer count")
    parser.add_argument(
        "--url",
        default=None,
        help="the PostgreSQL server (default: the PG* environment's, else one from the wheel)",
    )
    parser.add_argument(
        "--writers", default=",".join(map(str, WRITERS)), help="comma list (default 1,4,16)"
    )
    parser.add_argument("--runs", type=int, default=None, help="default 5 (quick: 1)")
    parser.add_argument(
        "--seconds", type=float, default=None, help="per run (default 3, quick 0.25)"
    )
    args = parser.parse_args(argv)
    counts = tuple(int(n) for n in args.writers.split(",") if n.strip())
    with contextlib.ExitStack() as stack:
        url = args.url or _server(stack)
        for item in figures(
            url, quick=args.quick, counts=counts, runs=args.runs, seconds=args.seconds
        ):
            emit(item)
    return 0


def _server(stack: contextlib.ExitStack) -> str:
    """The environment's server, else one from the test extra's wheel until `stack` closes
    (without the wheel, or when it does not start: the default URL, whose figure says why)."""
    try:
        from tests.postgres_wheel import server

        return stack.enter_context(server())
    except Exception as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        print(f"no PostgreSQL from the wheel: {first}", file=sys.stderr)
        return "postgresql://"


if __name__ == "__main__":
    sys.exit(main())
