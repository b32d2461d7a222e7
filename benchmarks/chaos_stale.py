"""Stale view then send, on one team journal: no money leaves on a view that changed.

    python -m benchmarks.chaos --team [URL] [--runs N] [--seed S] [--verbose]

Two agents on one PostgreSQL journal (URL: the server; default the one the PG* environment
names, else one started from the test extra's wheel; a fresh schema for the run, dropped after),
each an `ActionExecutor` on its own connection, stamped as a paytui of its own machine
(``support-07`` on ws-17, ``support-12`` on ws-3), and the in-process sandbox as the service.
Each run takes a charge nobody touched, and agent A reads it as the refund (or capture) dialog
does (`observe`, the review). Then one change, drawn by the seed, lands before A sends:

- ``refund``: B refunds another amount of it through paytui;
- ``tags``: B tags it through paytui;
- ``tags_outside``: its tags are changed on the service directly (no journal entry);
- ``chargeback``: a chargeback arrives on the service (the sandbox's practice endpoint's code);
- ``capture``: (a capture dialog on an authorization) B captures it through paytui;
- ``none``: nothing changes — the control: A's send must go through.

A then sends on its old view. Counted per change: ``sent_on_stale`` (A's refund or capture went
out although the view had changed: must be 0), ``refused`` (`TargetChanged`, nothing sent),
``named`` (the refusal names B when B changed it through paytui, or says "outside paytui"
otherwise), ``control_sent`` / ``control_refused`` for ``none`` (a guard that refuses everything
would pass the first count; this one shows it does not). Exit 1 on any stale send, any refusal
that does not name who changed it, or a control that was refused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import uuid
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import labels as labels_op
from paytui.actions.ops import refund as refund_op

CHANGES = ("refund", "tags", "tags_outside", "chargeback", "capture", "none")
BASE_URL = "http://sandbox"


async def _fresh(client: Any, query: Any, used: set[str]) -> Any:
    """A charge of `query` nobody touched yet (no refund, no chargeback, not used by a run)."""
    from paytui.actions.basis import read_refunds

    offset = 0
    while True:
        page = await client.search_charges_page(query, limit=100, offset=offset)
        if not page.items:
            raise RuntimeError(f"no untouched charge left for {query.to_params()}")
        for charge in page.items:
            if charge.charge_id in used or charge.chargebacks or charge.reversal_flag:
                continue
            if charge.charge_type == "sale" and await read_refunds(client, charge.charge_id):
                continue
            used.add(charge.charge_id)
            return charge
        offset += len(page.items)


async def run_stale(runs: int, seed: int, url: str, *, verbose: bool = False) -> dict[str, Any]:
    from tests.fixtures_postgres import _with_schema

    from paytui.actions.actor import actor_name
    from paytui.actions.errors import TargetChanged
    from paytui.actions.executor import ActionExecutor
    from paytui.actions.journal import Journal
    from paytui.actions.policy import ActionPolicy
    from paytui.api.client import PaymentClient
    from paytui.api.queries import ChargeQuery
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, ledger
    from paytui.sandbox.embedded import asgi_transport
    from paytui.sandbox.models import ChargebackIn
    from paytui.sandbox.seed import build_database

    schema = f"stale_{uuid.uuid4().hex[:10]}"
    counts: dict[str, Counter[str]] = {change: Counter() for change in CHANGES}
    failures: list[dict[str, Any]] = []
    rng = random.Random(seed)
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"'.encode())
    try:
        with tempfile.TemporaryDirectory(prefix="paytui-stale-") as tmp:
            db = Path(tmp) / "sandbox.sqlite3"
            await asyncio.to_thread(build_database, db, charges=max(2000, runs * 20), seed=seed)
            shutil.copyfile(db, Path(tmp) / "template.sqlite3")
            transport = asgi_transport(db)
            store = transport.app.state.store  # type: ignore[attr-defined]
            journal_url = _with_schema(url, schema)
            async with PaymentClient(
                BASE_URL,
                client_id=DEMO_CLIENT_ID,
                client_secret=DEMO_CLIENT_SECRET,
                transport=transport,
            ) as client:
                with Journal(journal_url) as a_journal, Journal(journal_url) as b_journal:

                    def agent(journal: Journal, name: str, machine: str) -> ActionExecutor:
                        executor = ActionExecutor(
                            client,
                            journal,
                            ActionPolicy(),
                            profile="team",
                            base_url=BASE_URL,
                            actor=actor_name("the dashboard", f"{name}@{machine}"),
                            agent=name,
                        )
                        executor.machine = machine
                        executor.owner = f"{machine}:{1000 + len(name)}"
                        return executor

                    a = agent(a_journal, "support-07", "ws-17")
                    b = agent(b_journal, "support-12", "ws-3")
                    used: set[str] = set()
                    sales = ChargeQuery(charge_type="sale", status="success", method="card")
                    auths = ChargeQuery(
                        charge_type="authorization", captured=False, status="success"
                    )
                    for n in range(runs):
                        change = rng.choice(CHANGES)
                        capture = change == "capture" or (change == "none" and rng.random() < 0.3)
                        operation = "capture" if capture else "refund"
                        charge = await _fresh(client, auths if capture else sales, used)
                        target = charge.charge_id
                        basis = await a.observe(operation, target)
                        if operation == "refund":
                            basis = basis.with_shown()
                        by_b = change in {"refund", "tags", "capture"}
                        if change == "refund":
                            assert (
                                await b.run("refund", target, refund_op.Params(Decimal("1.00")))
                            ).succeeded
                        elif change == "tags":
                            tags = [*charge.tags, f"hold-{n}"]
                            assert (
                                await b.run("update_charge", target, labels_op.Params(tags=tags))
                            ).succeeded
                        elif change == "tags_outside":
                            await client.update_charge(target, tags=[*charge.tags, f"out-{n}"])
                        elif change == "chargeback":
                            await asyncio.to_thread(
                                ledger.add_chargeback,
                                store,
                                target,
                                ChargebackIn(total_amount=Decimal("1.00")),
                            )
                        elif change == "capture":
                            assert (await b.run("capture", target, capture_op.Params())).succeeded
                        tally = counts[change]
                        tally["runs"] += 1
                        try:
                            if operation == "refund":
                                outcome = await a.run(
                                    "refund", target, refund_op.Params(Decimal("2.00")), basis=basis
                                )
                            else:
                                outcome = await a.run(
                                    "capture", target, capture_op.Params(), basis=basis
                                )
                        except TargetChanged as refused:
                            if change == "none":
                                tally["control_refused"] += 1
                                failures.append(
                                    {"run": n, "change": change, "told": refused.message}
                                )
                                continue
                            tally["refused"] += 1
                            told = refused.message
                            named = "support-12" in told if by_b else "outside paytui" in told
                            if named:
                                tally["named"] += 1
                            else:
                                failures.append({"run": n, "change": change, "told": told})
                            continue
                        if change == "none":
                            tally["control_sent" if outcome.succeeded else "control_failed"] += 1
                            if not outcome.succeeded:
                                failures.append(
                                    {"run": n, "change": change, "outcome": outcome.message}
                                )
                        else:
                            tally["sent_on_stale"] += 1 if outcome.succeeded else 0
                            failures.append({"run": n, "change": change, "sent": outcome.message})
                    await a.aclose()
                    await b.aclose()
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE'.encode())
    if verbose:
        for failure in failures:
            print("  " + json.dumps(failure, default=str), file=sys.stderr)
    total = Counter[str]()
    for tally in counts.values():
        total.update(tally)
    return {
        "mode": "stale view then send",
        "runs": runs,
        "seed": seed,
        "sent_on_stale": total["sent_on_stale"],
        "refused": total["refused"],
        "named": total["named"],
        "control_sent": total["control_sent"],
        "control_refused": total["control_refused"] + total["control_failed"],
        "by_change": {change: dict(tally) for change, tally in counts.items()},
        "failures": len(failures),
    }


def main_stale(args: argparse.Namespace) -> int:
    """`python -m benchmarks.chaos --team`: one JSON line; exit 1 on any failure."""

    def go(url: str) -> dict[str, Any]:
        return asyncio.run(run_stale(args.runs, args.seed, url, verbose=args.verbose))

    if args.team:
        result = go(args.team)
    else:
        from tests.postgres_wheel import server

        with server() as url:
            result = go(url)
    print(json.dumps(result), flush=True)
    return 1 if result["failures"] or result["sent_on_stale"] else 0
