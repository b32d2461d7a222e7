"""Chaos harness: is every money action applied at most once, and does the journal tell the truth?

    python -m benchmarks.chaos [--runs N] [--seed S] [--kinds capture,refund,...] [--faults ...]
                               [--run N]

For each action kind (capture, refund, new charge, token charge, distribute, tag edit) it runs N
seeded random fault schedules against the in-process sandbox. A schedule is one fault on the
first send — none, drop after commit, late commit, reset after commit, 5xx before commit, the
process "killed" between send and answer (the request goes on, the executor dies with the journal
saying "sent"), or a commit the service holds until after the read-back that proved "not
applied" (`commit_after_read_back`: the proof's assumption broken; `--faults` picks some) —
optionally with reads down for a while after the send; then one or two follow-ups
a user might do: press again at once, press again later, Retry from History, restart and
reconcile. Every run ends with a restart and reconciliation, and then compares:

- effects: what the *server* committed for the run (counted at the sandbox's door, with the
  client reference of refunds and charges);
- duplicates: effects beyond one (the user meant one action);
- contradictions: journal verdicts that disagree with the server (a "succeeded" whose trace was
  never committed, a "not_applied"/"failed" that was);
- unresolved: entries whose outcome is still not proven after the final reconciliation.

It prints one JSON line per kind. The client's timeout is short (0.25 s; the margin is the
app's 2 s; a late commit lands 0.35 s after the request arrived), so real waiting stays small;
the kinds run concurrently, each on its own sandbox app (own fault switches) over its own copy
of the database, each run on its own journal file. `tests/actions/test_chaos.py` runs a small
fixed-seed sample.

**Two actors** (``--two-actors``; without it the harness does only the kinds above, as before):

    python -m benchmarks.chaos --two-actors [--runs N] [--seed S] [--pairings …] [--faults …]
                               [--parallel P] [--shards K] [--run N] [--verbose]

Two independent actors each mean the *same* action on one fresh charge — two processes: each its
own client, its own `Journal` object on the one journal file, its own executor (``actor=``
names it). Pairings (`PAIRINGS`): the dashboard's dialog and the command line refunding 5.00
(``app+cli/refund``), two command lines refunding 5.00 (``cli+cli/refund``), the bulk full
refund and a single full refund (``bulk+single/refund``), and the same for a capture
(``app+cli/capture``, ``bulk+single/capture``). The dialog reads the charge as the dialog does
(`observe`, ``with_shown()`` for a refund), its person looks for 0 to 0.6 s and confirms; a review
that lists a refund of the (fresh) charge shows it done, and the person closes the dialog ("changed
since you looked" → review again, once more). The command line is the real verb (`refunds
create` / `charges capture`, `paytui.commands.verbs.run_verb`, with ``--yes``, no ``--again``).
The bulk action is the real dry run, read as the dialog reads it (`observe_plan`: a basis per
item), and `BatchRunner`. "single" is a dialog or a command line, drawn per run. Each pairing
runs under every fault kind
(`FAULTS`, "none" included), N runs each; a run draws who starts first and when the other starts
(together, 0.02 to 0.5 s later, or after the first finished), the think times, and (20 %) reads
down after the first send. The fault hits the first send of either actor; a process killed mid-send
is started again once (the command run again, the dialog opened again, the batch resumed). The end
and the counting are as above; a duplicate is more than one effect for the pair. One JSON line per
pairing, with the figures per fault, what each actor was told (`told`), the gaps drawn, and
`service_refused`:
commit requests the service refused (4xx) — a second capture or full refund that paytui sent
and the service stopped. It exits 1 on any duplicate, contradiction, unresolved entry or
harness crash.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import io
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from paytui.actions import (
    ActionError,
    ActionExecutor,
    ActionOutcome,
    ActionPolicy,
    EarlierAttemptApplied,
    Journal,
    TargetChanged,
)
from paytui.actions.executor import DEFAULT_SETTLE_MARGIN
from paytui.actions.operation import NoParams
from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import charge as charge_op
from paytui.actions.ops import labels as labels_op
from paytui.actions.ops import refund as refund_op
from paytui.actions.reconcile import REF_ATTRIBUTE
from paytui.api.client import PaymentClient
from paytui.api.errors import ApiError
from paytui.api.models import (
    CardPaymentMethodRequest,
    ChargeRequest,
    TokenCreatePaymentMethodRequest,
    TokenPaymentMethodRequest,
    TokenRequest,
)
from paytui.commands.runtime import Io, Runtime, exit_code_of
from paytui.logs import clear_registered_secrets
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.faults import DropResponse, Faults, operation_of
from paytui.sandbox.transport import InProcessTransport

KINDS = ("capture", "refund", "charge", "token_charge", "distribute", "tag_edit")
FAULTS = (
    "none",
    "drop_after_commit",
    "late_commit",
    "reset_after_commit",
    "error_5xx",
    "killed",
)
#: A commit the service holds past the read-back that proved "not applied" (the assumption the
#: proof rests on, broken on purpose): it lands `Settings.after_read_back` seconds after that
#: read-back could be made. paytui's answer is "not applied *so far*" — every new attempt
#: within the late window reads the service again and sends nothing without a go-ahead (never
#: given here), and the final reconciliation finds it ("succeeded (late)").
LATE_FAULT = "commit_after_read_back"
#: The faults of the kinds mode: those of both modes, and the commit after the read-back.
KIND_FAULTS = (*FAULTS, LATE_FAULT)
FOLLOW_UPS = ("again_now", "again_later", "retry", "restart")
#: The sandbox's name of each kind's commit operation.
SANDBOX_OPERATION = {
    "capture": "capture",
    "refund": "refund",
    "charge": "charge",
    "token_charge": "charge",
    "distribute": "distribute",
    "tag_edit": "update",
}
BASE_URL = "http://sandbox"
PROFILE = "chaos"
#: What a team-mode agent process adds to its requests' User-Agent, before its process id: how
#: the service's side knows whom to kill (`benchmarks.chaos_team`, `benchmarks.chaos_agent`).
AGENT_MARK = "chaos-agent/"
CARD = "4111111111111111"
EXPIRY = "2030-12"
ASGIApp = Callable[[Any, Any, Any], Awaitable[None]]


@dataclass(frozen=True)
class Settings:
    """Short on purpose: the client's timeout is the request deadline the proofs wait out."""

    timeout: float = 0.25
    #: The app's own margin (`DEFAULT_SETTLE_MARGIN`): on a loaded machine the sandbox's thread
    #: pool adds jitter, and a commit slower than timeout + margin breaks the assumption the
    #: proof rests on (with 1 s, a machine at load 6 on 2 cores did that in ~3 of 1,200 runs).
    margin: float = DEFAULT_SETTLE_MARGIN
    late_commit: float = 0.35
    #: `LATE_FAULT`: how long after the read-back that proves "not applied" the commit lands.
    after_read_back: float = 0.5

    @property
    def settle(self) -> float:
        return self.timeout + self.margin


class Killed(BaseException):
    """The process died between send and answer: not an `Exception`, so nothing in the executor
    catches it and the journal keeps saying "sent"."""


class EffectCounter:
    """ASGI wrapper in front of the sandbox: counts commits (2xx answers, and answers dropped or
    reset after the commit) and remembers the client references they carried. After the first
    commit request of an armed run finishes on the server, the fault switches are cleared: each
    fault hits the first send only."""

    def __init__(self, app: ASGIApp, faults: Faults) -> None:
        self.app = app
        self.faults = faults
        self.effects = 0
        self.refs: set[str] = set()
        #: Commit requests the service refused (4xx): a second capture or full refund that the
        #: service, not paytui, stopped (the two-actor mode reports it).
        self.refused = 0
        #: (arrived, answered) wall-clock times of each commit request, for --verbose.
        self.commits: list[tuple[datetime, datetime]] = []
        self.armed = False

    def reset(self) -> None:
        self.effects = 0
        self.refs = set()
        self.refused = 0
        self.commits = []

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        operation = None
        if scope["type"] == "http":
            operation = operation_of(scope["method"], scope["path"])
        if operation is None:
            await self.app(scope, receive, send)
            return
        body = bytearray()
        status: int | None = None

        async def reading() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
            return message

        async def watching(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start" and status is None:
                status = message["status"]
            await send(message)

        committed = False
        arrived = datetime.now(UTC)
        try:
            await self.app(scope, reading, watching)
            committed = status is not None and status < 300
            if status is not None and 400 <= status < 500:
                self.refused += 1
        except DropResponse:
            committed = True
            raise
        finally:
            if committed:
                self.effects += 1
                self.refs.update(_refs(bytes(body)))
                self.commits.append((arrived, datetime.now(UTC)))
            if self.armed:
                self.armed = False
                self.faults.reset()


def _refs(body: bytes) -> list[str]:
    try:
        payload = json.loads(body or b"{}")
    except ValueError:
        return []
    attributes = payload.get("attributes") or {} if isinstance(payload, dict) else {}
    return [str(ref) for ref in attributes.get(REF_ATTRIBUTE, [])]


class ChaosTransport(httpx.AsyncBaseTransport):
    """The client's side of the chaos: reads down for a while after the first send, and the
    process killed at the first send (the request still reaches the server)."""

    def __init__(self, inner: InProcessTransport) -> None:
        self.inner = inner
        self.kill_next_send = False
        self.reads_down_for = 0.0
        self.reads_down_until = 0.0
        self.background: set[asyncio.Task[Any]] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "GET" and time.monotonic() < self.reads_down_until:
            raise httpx.ConnectError("chaos: reads are down", request=request)
        if operation_of(request.method, path) is not None:
            if self.reads_down_for:
                self.reads_down_until = time.monotonic() + self.reads_down_for
                self.reads_down_for = 0.0
            if self.kill_next_send:
                self.kill_next_send = False
                task = asyncio.ensure_future(self.inner.handle_async_request(request))
                self.background.add(task)
                task.add_done_callback(self._forget)
                await asyncio.sleep(0)  # the request leaves before the process dies
                raise Killed
        return await self.inner.handle_async_request(request)

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self.background.discard(task)
        if not task.cancelled():
            task.exception()

    async def drain(self) -> None:
        while self.background:
            await asyncio.gather(*list(self.background), return_exceptions=True)
        await self.inner.drain()


@dataclass
class Session:
    """One paytui process: a client, the journal file opened, an executor."""

    client: PaymentClient
    journal: Journal
    executor: ActionExecutor

    @classmethod
    async def open(
        cls,
        transport: httpx.AsyncBaseTransport,
        path: Path,
        settings: Settings,
        timeout: float,
        *,
        actor: str | None = None,
    ) -> Session:
        client = PaymentClient(
            BASE_URL,
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=transport,
            timeout=timeout,
        )
        client.sleep = _no_sleep
        journal = Journal(path)
        executor = ActionExecutor(
            client,
            journal,
            ActionPolicy(),
            profile=PROFILE,
            base_url=BASE_URL,
            settle_margin=settings.margin,
            actor=actor,
        )
        return cls(client, journal, executor)

    async def close(self) -> None:
        await self.executor.aclose(timeout=5)
        self.journal.close()
        await self.client.aclose()


async def _no_sleep(_seconds: float) -> None:
    return None


@dataclass
class KindWorld:
    """One kind's sandbox app (own fault switches and counter) over the shared database."""

    kind: str
    faults: Faults
    counter: EffectCounter
    transport: InProcessTransport
    chaos: ChaosTransport
    setup: PaymentClient
    account_id: str
    settings: Settings
    tmp: Path
    totals: Counter[str] = field(default_factory=Counter)
    #: The slowest send and commit seen (`_note_lags`).
    lags: dict[str, float] = field(default_factory=dict)
    #: Failed runs (and every run of a rerun with --run), for --verbose.
    described: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Target:
    """What a run acts on, and the one action the user means."""

    act: Callable[[ActionExecutor], Awaitable[ActionOutcome]]


async def _target(world: KindWorld, run: int) -> Target:
    setup, kind = world.setup, world.kind
    card = CardPaymentMethodRequest(card_number=SecretStr(CARD), expiration_date=EXPIRY)

    async def new_charge(charge_type: str = "sale") -> str:
        charge = await setup.create_charge(
            ChargeRequest(
                account_id=world.account_id,
                total_amount=Decimal("20.00"),
                payment_method=card,
                charge_type=charge_type,  # type: ignore[arg-type]
            )
        )
        return charge.charge_id

    tag = f"chaos-{kind}-{run}"
    if kind == "capture":
        auth = await new_charge("authorization")
        return Target(lambda ex: ex.run("capture", auth, capture_op.Params()))
    if kind == "refund":
        sale = await new_charge()
        return Target(lambda ex: ex.run("refund", sale, refund_op.Params(Decimal("5.00"))))
    if kind == "charge":
        request = ChargeRequest(
            account_id=world.account_id,
            total_amount=Decimal("12.50"),
            payment_method=card,
            tags=[tag],
        )
        return Target(lambda ex: ex.run("charge", request.account_id, charge_op.Params(request)))
    if kind == "token_charge":
        token = await setup.create_token(
            TokenRequest(
                account_id=world.account_id,
                payment_method=TokenCreatePaymentMethodRequest(
                    card_number=SecretStr(CARD), expiration_date=EXPIRY
                ),
            )
        )
        request = ChargeRequest(
            account_id=world.account_id,
            total_amount=Decimal("7.25"),
            payment_method=TokenPaymentMethodRequest(token_id=token.token_id),
            tags=[tag],
        )
        return Target(lambda ex: ex.run("charge", request.account_id, charge_op.Params(request)))
    if kind == "distribute":
        sale = await new_charge()
        return Target(lambda ex: ex.run("distribute", sale, NoParams()))
    if kind == "tag_edit":
        sale = await new_charge()
        return Target(lambda ex: ex.run("update_charge", sale, labels_op.Params(tags=[tag])))
    raise ValueError(f"unknown kind {kind!r}")


def _arm(world: KindWorld, fault: str, reads_down: float) -> None:
    operation = SANDBOX_OPERATION[world.kind]
    faults = world.faults
    faults.reset()
    world.chaos.reads_down_for = reads_down
    world.chaos.kill_next_send = False
    if fault == "drop_after_commit":
        faults.drop_after_commit = {operation}
    elif fault == "reset_after_commit":
        faults.reset_after_commit = {operation}
    elif fault == "late_commit":
        faults.late_commit = {operation}
        faults.late_commit_seconds = world.settings.late_commit
    elif fault == LATE_FAULT:
        faults.late_commit = {operation}
        faults.late_commit_seconds = world.settings.settle + world.settings.after_read_back
    elif fault == "error_5xx":
        faults.fail_status = 503
        faults.fail_path_prefix = _fault_prefix(world.kind)
        faults.fail_count = 1
    elif fault == "killed":
        world.chaos.kill_next_send = True
    world.counter.armed = fault not in {"none", "killed"}


def _fault_prefix(kind: str) -> str:
    return {
        "capture": "/v2/charges/",
        "refund": "/v2/refunds",
        "charge": "/v2/charges",
        "token_charge": "/v2/charges",
        "distribute": "/v2/charges/",
        "tag_edit": "/v2/charges/",
    }[kind]


async def _press(session: Session, target: Target) -> bool:
    """The user presses the action; True when they were told it happened."""
    try:
        outcome = await target.act(session.executor)
    except EarlierAttemptApplied:
        return True  # told that the earlier one did go through; never acknowledged here
    except ActionError as err:
        return "Already captured" in err.message
    return outcome.succeeded


async def _settle_the_run(world: Any, path: Any, settings: Any) -> list[Any]:
    """The end of every run: the network is back, whatever was in flight has landed, and a
    restarted paytui (a patient client) reconciles what it does not know; its journal then."""
    world.chaos.reads_down_until = 0.0
    await world.chaos.drain()
    world.faults.reset()
    world.counter.armed = False
    final = await Session.open(world.chaos, path, settings, 5.0)
    try:
        await final.executor.reconcile_all(wait=True)
        return final.journal.list()
    finally:
        await final.close()


async def one_run(
    world: KindWorld,
    run: int,
    rng: random.Random,
    describe: bool = False,
    faults: tuple[str, ...] = KIND_FAULTS,
) -> dict[str, int]:
    """One schedule; `describe`: record its details even when it held (a rerun of one run)."""
    settings = world.settings
    target = await _target(world, run)
    world.counter.reset()
    fault = rng.choice(faults)
    reads_down = rng.uniform(0.1, 2 * settings.settle) if rng.random() < 0.4 else 0.0
    follow_ups = rng.sample(FOLLOW_UPS, rng.choice((1, 2)))
    path = world.tmp / f"{world.kind}-{run}.sqlite3"
    session = await Session.open(world.chaos, path, settings, settings.timeout)
    told = False
    _arm(world, fault, reads_down)

    async def restart() -> Session:
        await session.close()
        return await Session.open(world.chaos, path, settings, settings.timeout)

    async def act(step: Callable[[Session], Awaitable[bool]]) -> bool:
        """One user step; if the process dies in it, a new one starts on the same journal."""
        nonlocal session
        try:
            return await step(session)
        except Killed:
            session = await restart()
            return False

    async def retry_all(current: Session) -> bool:
        done = False
        for entry in current.executor.history():
            if entry.retryable:
                with contextlib.suppress(ActionError):  # refused: nothing was sent
                    done = (await current.executor.retry(entry.id)).succeeded or done
        return done

    try:
        told = await act(lambda current: _press(current, target))
        for follow_up in follow_ups:
            if follow_up == "again_now" and not told:
                told = await act(lambda current: _press(current, target))
            elif follow_up == "again_later" and not told:
                await asyncio.sleep(settings.settle)
                told = await act(lambda current: _press(current, target))
            elif follow_up == "retry":
                told = await act(retry_all) or told
            elif follow_up == "restart":
                session = await restart()
                await session.executor.reconcile_all(wait=True)
    finally:
        world.chaos.kill_next_send = False
        await session.close()
    entries = await _settle_the_run(world, path, settings)
    verdict = _verdict(world, entries, fault)
    _note_lags(world, entries)
    if describe or any(verdict.values()):
        world.described.append(
            {
                "run": run,
                "fault": fault,
                "reads_down": round(reads_down, 2),
                "follow_ups": follow_ups,
                "effects": world.counter.effects,
                "journal": [
                    (e.id, e.state, e.retry_of, e.client_reference in world.counter.refs, e.error)
                    for e in entries
                ],
                "timeline": _timeline(world, entries),
                **verdict,
            }
        )
    return verdict


def _timeline(world: KindWorld, entries: list[Any]) -> dict[str, Any]:
    """Seconds since the first entry's `sent_at`: each entry's sending, read-back and settle
    time, and when each commit request reached the service and was answered (or cut)."""
    stamps = [e.sent_at for e in entries if e.sent_at is not None]
    if not stamps:
        return {}
    zero = min(stamps)

    def at(moment: datetime | None) -> float | None:
        return None if moment is None else round((moment - zero).total_seconds(), 3)

    return {
        "entries": [
            {
                "id": e.id,
                "sent": at(e.sent_at),
                "checked": at(e.checked_at),
                "settle_at": at(e.settle_at(world.settings.settle)),
            }
            for e in sorted(entries, key=lambda e: e.id)
        ],
        "commits": [(at(arrived), at(answered)) for arrived, answered in world.counter.commits],
    }


def _note_lags(world: KindWorld, entries: list[Any]) -> None:
    """The slowest seen so far: from an entry's `sent_at` until its request reached the service
    (`send_lag`), and until the service had committed it (`commit_after_sent`; what the settle
    time must cover). Each commit is paired with the latest entry sent before it arrived."""
    sent = sorted(e.sent_at for e in entries if e.sent_at is not None)
    for arrived, answered in world.counter.commits:
        before = [moment for moment in sent if moment <= arrived]
        if not before:
            continue
        lag = (arrived - before[-1]).total_seconds()
        late = (answered - before[-1]).total_seconds()
        world.lags["send_lag"] = max(world.lags.get("send_lag", 0.0), round(lag, 3))
        world.lags["commit_after_sent"] = max(
            world.lags.get("commit_after_sent", 0.0), round(late, 3)
        )


def _verdict(world: KindWorld, entries: list[Any], fault: str) -> dict[str, int]:
    effects = world.counter.effects
    succeeded = [e for e in entries if e.state == "succeeded"]
    if world.kind in {"refund", "charge", "token_charge"}:
        committed = world.counter.refs
        contradictions = sum(
            1 for e in entries if (e.client_reference in committed) != (e.state == "succeeded")
        )
    else:
        contradictions = abs(len(succeeded) - effects)
    unresolved = sum(1 for e in entries if not e.proven(world.settings.settle))
    world.totals[fault] += 1
    return {
        "duplicates": max(0, effects - 1),
        "contradictions": contradictions,
        "unresolved": unresolved,
    }


async def run_kind(
    world: KindWorld,
    runs: int,
    seed: int,
    only: tuple[int, ...] = (),
    faults: tuple[str, ...] = KIND_FAULTS,
) -> dict[str, Any]:
    started = time.perf_counter()
    totals = Counter(duplicates=0, contradictions=0, unresolved=0)
    chosen = only or tuple(range(runs))
    for run in chosen:
        rng = random.Random(f"{seed}:{world.kind}:{run}")
        totals.update(await one_run(world, run, rng, describe=bool(only), faults=faults))
    return {
        "kind": world.kind,
        "runs": len(chosen),
        "duplicates": totals["duplicates"],
        "contradictions": totals["contradictions"],
        "unresolved": totals["unresolved"],
        "faults": dict(sorted(world.totals.items())),
        **{f"max_{name}": value for name, value in sorted(world.lags.items())},
        "seconds": round(time.perf_counter() - started, 1),
        "described_runs": world.described,
    }


async def run_chaos(
    runs: int,
    seed: int,
    kinds: tuple[str, ...] = KINDS,
    settings: Settings | None = None,
    only: tuple[int, ...] = (),
    drawn: tuple[str, ...] = KIND_FAULTS,
) -> list[dict[str, Any]]:
    """Run the harness; one result per kind (see the module docstring). `only`: just these run
    numbers (a run's schedule depends on the seed, the kind and its number alone); `drawn`: the
    fault kinds drawn from."""
    from paytui.sandbox.app import create_app
    from paytui.sandbox.seed import build_database

    settings = settings or Settings()
    with tempfile.TemporaryDirectory(prefix="paytui-chaos-") as tmp:
        root = Path(tmp)
        db = root / "sandbox.sqlite3"
        await asyncio.to_thread(build_database, db, charges=200, seed=seed)
        worlds = []
        for kind in kinds:
            # Its own copy: the kinds' writes must not wait on each other's SQLite lock (that
            # jitter would slow commits past the margin and test the machine, not paytui).
            own = root / f"sandbox-{kind}.sqlite3"
            shutil.copyfile(db, own)
            faults = Faults()
            counter = EffectCounter(create_app(own, faults=faults), faults)
            transport = InProcessTransport(counter)
            setup = PaymentClient(
                BASE_URL,
                client_id=DEMO_CLIENT_ID,
                client_secret=DEMO_CLIENT_SECRET,
                transport=transport,
            )
            page = await setup.list_accounts_page(status="approved", limit=1)
            worlds.append(
                KindWorld(
                    kind,
                    faults,
                    counter,
                    transport,
                    ChaosTransport(transport),
                    setup,
                    page.items[0].account_id,
                    settings,
                    root,
                )
            )
        try:
            runs_of = (run_kind(w, runs, seed, only, drawn) for w in worlds)
            return list(await asyncio.gather(*runs_of))
        finally:
            for world in worlds:
                await world.setup.aclose()


# ------------------------------------------------------------------------------ two actors

#: Two independent actors who each mean the same action on one charge: (operation, roles).
#: "dialog": the dashboard's refund/capture dialog (`observe(...).with_shown()` for a refund,
#: a person who reads it and confirms); "cli": the real `paytui refunds create … --yes` /
#: `paytui charges capture … --yes` handler (`observe(...)`, no ``--again``); "bulk": the
#: dashboard's bulk action (`plan_batch` + `observe_plan` + `BatchRunner`); "single":
#: a dialog or a command line, drawn per run.
PAIRINGS: dict[str, tuple[str, tuple[str, str]]] = {
    "app+cli/refund": ("refund", ("dialog", "cli")),
    "cli+cli/refund": ("refund", ("cli", "cli")),
    "bulk+single/refund": ("refund", ("bulk", "single")),
    "app+cli/capture": ("capture", ("dialog", "cli")),
    "bulk+single/capture": ("capture", ("bulk", "single")),
}
#: When the second actor starts: with the first, a little later, after the first finished.
GAPS = ("together", "small", "after")
#: The partial refund both mean (the pilot's case); a bulk pairing means the full refund.
PARTIAL = Decimal("5.00")
#: Runs going on at once (each with two actors): more and, on two cores, the reads time out
#: behind each other's work and few actors get as far as sending.
PARALLEL = 6


@dataclass
class PairWorld(KindWorld):
    """One pairing under one fault kind: its own sandbox app (own fault switches and counter)
    over its own copy of the database; `kind` is the operation ("refund" / "capture")."""

    pairing: str = ""
    roles: tuple[str, str] = ("cli", "cli")
    fault: str = "none"
    #: What the actors were told, by words (`_ActorRun.told`), and the gaps drawn.
    told: Counter[str] = field(default_factory=Counter)
    gaps: Counter[str] = field(default_factory=Counter)
    #: Commit requests the service refused (a second capture or full refund it stopped).
    refused: int = 0


class _CommandLine(Runtime):
    """One `paytui` command in its own process: the real handler, with the harness's client and
    executor (its own `Journal` on the shared file) instead of a profile's; no terminal."""

    def __init__(self, session: Session) -> None:
        #: What it says on stderr (its messages and errors).
        self.said = io.StringIO()
        super().__init__(Io(out=io.StringIO(), err=self.said, inp=io.StringIO(), interactive=False))
        self.session = session

    def client(self) -> contextlib.AbstractAsyncContextManager[PaymentClient]:
        return _borrowed(self.session.client)

    async def executor(self, client: PaymentClient) -> ActionExecutor:
        return self.session.executor


@contextlib.asynccontextmanager
async def _borrowed(client: PaymentClient) -> AsyncIterator[PaymentClient]:
    yield client  # the session closes it


@dataclass
class _ActorRun:
    """One actor of a run: its role, its name in the journal, and how long its person looks
    at the review before confirming."""

    role: str
    name: str
    think: float
    told: list[str] = field(default_factory=list)
    #: The sentences behind `told` (the command line's stderr, an error's message), for
    #: --verbose.
    said: list[str] = field(default_factory=list)


async def _as_dialog(
    session: Session, world: PairWorld, charge_id: str, amount: Decimal | None, actor: _ActorRun
) -> str:
    """The refund (capture) dialog: it reads the charge (`observe`; a refund's review lists the
    charge's refunds, so `with_shown`), the person looks for `think` seconds and confirms. The
    person means one refund: a review that lists a refund of this (fresh) charge shows it done,
    and they close the dialog. "Changed since you looked" offers a review again: taken."""
    executor = session.executor
    think = actor.think
    for _review in range(3):
        try:
            if world.kind == "capture":
                basis = await executor.observe("capture", charge_id)
            else:
                basis = (await executor.observe("refund", charge_id)).with_shown()
        except ActionError as err:  # a capture's read: already captured, or not readable
            actor.said.append(err.message)
            if isinstance(err.__cause__, ApiError):
                return "dialog: could not read"
            done = "Already captured" in err.message
            return "dialog: saw it done" if done else f"dialog: {type(err).__name__}"
        except ApiError as err:
            actor.said.append(str(err))
            return "dialog: could not read"
        send_amount = amount
        if world.kind == "refund":
            if not basis.left:
                return "dialog: nothing left"
            if basis.refunds:
                return "dialog: saw it done"
            send_amount = amount if amount is not None else basis.left
        await asyncio.sleep(think)
        try:
            if world.kind == "capture":
                outcome = await executor.run("capture", charge_id, capture_op.Params(), basis=basis)
            else:
                outcome = await executor.run(
                    "refund", charge_id, refund_op.Params(send_amount), basis=basis, again=False
                )
        except TargetChanged as err:
            actor.said.append(err.message)
            think = 0.2  # reads what changed, reviews again
            continue
        except ActionError as err:
            actor.said.append(err.message)
            return f"dialog: {type(err).__name__}"
        actor.said.append(outcome.message or outcome.state)
        return f"dialog: {outcome.state}"
    return "dialog: changed each time"


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The command line's parser, built once (each real process builds its own: the same)."""
    from paytui.commands import build_parser

    return build_parser(every=True)


async def _as_command(
    session: Session, world: PairWorld, charge_id: str, amount: Decimal | None, actor: _ActorRun
) -> str:
    """`paytui refunds create CH [--amount X] --yes` / `paytui charges capture CH --yes`: the
    real handler (settle the past, `observe`, checks, `refund(basis=…, again=False)`)."""
    from paytui.commands.handlers import run

    if world.kind == "capture":
        argv = ["charges", "capture", charge_id]
    else:
        argv = ["refunds", "create", charge_id]
        if amount is not None:
            argv += ["--amount", str(amount)]
    args = _parser().parse_args([*argv, "--yes", "--format", "json"])
    runtime = _CommandLine(session)
    try:
        code = await run(runtime, args)
    except Exception as err:  # what `paytui.commands.main` turns into its exit code
        actor.said.append(f"{runtime.said.getvalue()}{getattr(err, 'message', None) or err}")
        # The action's refusal behind the command's own error (`RecentlyDone` → "--again").
        cause = err.__cause__ if isinstance(err.__cause__, ActionError) else err
        return f"cli: exit {int(exit_code_of(err))} {type(cause).__name__}"
    actor.said.append(runtime.said.getvalue().strip())
    return f"cli: exit {int(code)}"


async def _as_bulk(
    session: Session, world: PairWorld, charge_id: str, amount: Decimal | None, actor: _ActorRun
) -> str:
    """The dashboard's bulk capture / full refund of the one marked charge: the dry run on the
    charge as listed, read as it is now (`observe_plan`, as the dialog does), the person
    confirms after `think`, `BatchRunner.start`; a process that died is resumed (`resumable`),
    as the dashboard offers at start-up."""
    from paytui.actions.batch import BatchRunner, observe_plan, plan_batch
    from paytui.actions.batch_log import BatchLog

    executor = session.executor
    log = BatchLog(session.journal.path)
    try:
        runner = BatchRunner(executor, log)
        left = await asyncio.to_thread(
            log.resumable, profile=executor.profile, base_url=executor.base_url
        )
        try:
            if left:
                record = await runner.resume(left[0].id)
            else:
                charge = await session.client.get_charge(charge_id)
                plan = await observe_plan(executor, plan_batch(world.kind, [charge]))
                if not plan.items:
                    actor.said.append(plan.skipped[0].reason if plan.skipped else "")
                    return "bulk: skipped in the dry run"
                await asyncio.sleep(actor.think)
                record = await runner.start(plan)
        except ActionError as err:
            actor.said.append(err.message)
            return f"bulk: {type(err).__name__}"
        except ApiError as err:
            actor.said.append(str(err))
            return "bulk: could not read"
        actor.said.append(record.items[0].message or "")
        return f"bulk: {record.items[0].state}"
    finally:
        log.close()


_ROLES: dict[
    str, Callable[[Session, PairWorld, str, Decimal | None, _ActorRun], Awaitable[str]]
] = {
    "dialog": _as_dialog,
    "cli": _as_command,
    "bulk": _as_bulk,
}


async def _actor(
    world: PairWorld, actor: _ActorRun, path: Path, charge_id: str, amount: Decimal | None
) -> None:
    """One actor: its own process (client, `Journal` object, executor) on the shared journal
    file. A process killed mid-send is started again once (the command run again, the dialog
    opened again, the batch resumed)."""
    settings = world.settings
    act = _ROLES[actor.role]
    for _attempt in range(2):
        session = await Session.open(
            world.chaos, path, settings, settings.timeout, actor=actor.name
        )
        try:
            actor.told.append(await act(session, world, charge_id, amount, actor))
            return
        except Killed:
            actor.told.append("killed")
        except Exception as err:  # a bug: reported, never hidden
            actor.told.append(f"crashed: {type(err).__name__}: {err}")
            return
        finally:
            await session.close()


async def _pair_target(world: PairWorld) -> str:
    card = CardPaymentMethodRequest(card_number=SecretStr(CARD), expiration_date=EXPIRY)
    charge = await world.setup.create_charge(
        ChargeRequest(
            account_id=world.account_id,
            total_amount=Decimal("20.00"),
            payment_method=card,
            charge_type="authorization" if world.kind == "capture" else "sale",
        )
    )
    return charge.charge_id


_NAMES = {"dialog": "the dashboard", "cli": "the command line", "bulk": "the bulk action"}


async def one_pair_run(
    world: PairWorld, run: int, rng: random.Random, describe: bool = False
) -> dict[str, int]:
    """Two actors mean the same action on a fresh charge; the fault hits the first send."""
    settings = world.settings
    # Every draw first, in a fixed order: a run's schedule depends on its seed alone.
    gap = rng.choice(GAPS)
    delay = rng.uniform(0.02, 0.5)
    first = rng.randrange(2)
    roles = [rng.choice(("dialog", "cli")) if r == "single" else r for r in world.roles]
    thinks = [rng.uniform(0.0, 0.6) if r in {"dialog", "bulk"} else 0.0 for r in roles]
    reads_down = rng.uniform(0.1, settings.settle) if rng.random() < 0.2 else 0.0
    actors = [
        _ActorRun(role, f"{_NAMES[role]} of {who}", think)
        for role, who, think in zip(roles, ("ana", "bo"), thinks, strict=True)
    ]
    amount = None if "bulk" in world.roles else PARTIAL
    # Every access token a client fetches is registered for redaction, and the pattern of all of
    # them is compiled again each time: a real process holds a handful, but this one process
    # plays thousands, and the pattern (redone at every token) would grow without end.
    clear_registered_secrets()
    charge_id = await _pair_target(world)
    world.counter.reset()
    slug = world.pairing.replace("/", "-").replace("+", "-")
    path = world.tmp / f"{slug}-{world.fault}-{run}.sqlite3"
    _arm(world, world.fault, reads_down)
    world.faults.fail_method = "POST"  # the 5xx hits the send, not a read of the charge
    one, two = actors[first], actors[1 - first]

    async def later(actor: _ActorRun, wait: float) -> None:
        await asyncio.sleep(wait)
        await _actor(world, actor, path, charge_id, amount)

    try:
        if gap == "after":
            await _actor(world, one, path, charge_id, amount)
            await _actor(world, two, path, charge_id, amount)
        else:
            await asyncio.gather(
                _actor(world, one, path, charge_id, amount),
                later(two, delay if gap == "small" else 0.0),
            )
    finally:
        world.chaos.kill_next_send = False
    entries = await _settle_the_run(world, path, settings)
    verdict = _verdict(world, entries, world.fault)
    crashed = sum(1 for a in actors for told in a.told if told.startswith("crashed"))
    verdict["crashes"] = crashed
    _note_lags(world, entries)
    world.gaps[gap] += 1
    world.refused += world.counter.refused
    for actor in actors:
        world.told[" → ".join(actor.told)] += 1
    if describe or any(verdict.values()) or world.counter.refused:
        world.described.append(
            {
                "pairing": world.pairing,
                "fault": world.fault,
                "run": run,
                "gap": gap,
                "delay": round(delay, 3) if gap == "small" else 0.0,
                "first": one.name,
                "actors": [
                    {"name": a.name, "think": round(a.think, 3), "told": a.told, "said": a.said}
                    for a in actors
                ],
                "reads_down": round(reads_down, 2),
                "effects": world.counter.effects,
                "service_refused": world.counter.refused,
                "journal": [
                    (
                        e.id,
                        e.actor,
                        e.state,
                        e.client_reference in world.counter.refs,
                        e.error,
                    )
                    for e in entries
                ],
                "timeline": _timeline(world, entries),
                **verdict,
            }
        )
    return verdict


async def _run_pair_world(
    world: PairWorld, chosen: tuple[int, ...], seed: int, describe: bool, slots: asyncio.Semaphore
) -> dict[str, Any]:
    started = time.perf_counter()
    totals: Counter[str] = Counter(duplicates=0, contradictions=0, unresolved=0, crashes=0)
    for run in chosen:
        rng = random.Random(f"{seed}:{world.pairing}:{world.fault}:{run}")
        async with slots:
            totals.update(await one_pair_run(world, run, rng, describe=describe))
    return {
        "runs": len(chosen),
        **{name: totals[name] for name in ("duplicates", "contradictions", "unresolved")},
        "crashes": totals["crashes"],
        "seconds": round(time.perf_counter() - started, 1),
    }


async def _pair_world(
    root: Path, db: Path, settings: Settings, pairing: str, fault: str, number: int
) -> PairWorld:
    """A sandbox app of its own (own fault switches and counter) over its own database copy."""
    from paytui.sandbox.app import create_app

    operation, roles = PAIRINGS[pairing]
    own = root / f"sandbox-{number}.sqlite3"
    shutil.copyfile(db, own)
    switches = Faults()
    counter = EffectCounter(create_app(own, faults=switches), switches)
    transport = InProcessTransport(counter)
    setup = PaymentClient(
        BASE_URL, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET, transport=transport
    )
    page = await setup.list_accounts_page(status="approved", limit=1)
    return PairWorld(
        operation,
        switches,
        counter,
        transport,
        ChaosTransport(transport),
        setup,
        page.items[0].account_id,
        settings,
        root,
        pairing=pairing,
        roles=roles,
        fault=fault,
    )


async def run_two_actors(
    runs: int,
    seed: int,
    pairings: tuple[str, ...] = tuple(PAIRINGS),
    faults: tuple[str, ...] = FAULTS,
    settings: Settings | None = None,
    only: tuple[int, ...] = (),
    parallel: int = PARALLEL,
    shards: int = 1,
    cases: tuple[tuple[str, str], ...] = (),
) -> list[dict[str, Any]]:
    """Two independent actors who each mean the same action, `runs` runs per pairing and per
    fault kind (see the module docstring); one result per pairing, with its figures per fault.

    Every (pairing, fault) has its own sandbox apps and database copies: `shards` of them, run
    r on shard r % shards (a world's runs go one after the other: its counter counts one run's
    effects); at most `parallel` runs go on at once. A run's schedule depends on the seed, the
    pairing, the fault and its number alone, whatever runs beside it, so `only` (just these
    run numbers, described even when they hold) reruns exactly what a full run did. `cases`:
    just these (pairing, fault) pairs instead of every pairing under every fault (a sample)."""
    from paytui.sandbox.seed import build_database

    settings = settings or Settings()
    started = time.perf_counter()
    chosen = only or tuple(range(runs))
    shards = max(1, min(shards, len(chosen)))
    with tempfile.TemporaryDirectory(prefix="paytui-chaos-2-") as tmp:
        root = Path(tmp)
        db = root / "sandbox.sqlite3"
        await asyncio.to_thread(build_database, db, charges=50, seed=seed)
        worlds: list[tuple[PairWorld, tuple[int, ...]]] = []
        for pairing, fault in cases or tuple((p, f) for p in pairings for f in faults):
            for shard in range(shards):
                world = await _pair_world(root, db, settings, pairing, fault, len(worlds))
                worlds.append((world, chosen[shard::shards]))
        slots = asyncio.Semaphore(max(1, parallel))
        try:
            figures = await asyncio.gather(
                *(_run_pair_world(w, mine, seed, bool(only), slots) for w, mine in worlds)
            )
        finally:
            for world, _ in worlds:
                await world.setup.aclose()
    seconds = round(time.perf_counter() - started, 1)
    return _summarise(worlds, list(figures), seconds, PAIRINGS)


def _summarise(
    worlds: list[tuple[Any, tuple[int, ...]]],
    figures: list[dict[str, Any]],
    seconds: float,
    table: dict[str, tuple[str, tuple[str, str]]],
    names: tuple[str, ...] = ("duplicates", "contradictions", "unresolved", "crashes"),
) -> list[dict[str, Any]]:
    """One result per pairing from its worlds' figures (`names`: the counts summed), with the
    figures per fault, what the actors were told, the gaps drawn and the slowest lags."""
    results = []
    for pairing in dict.fromkeys(w.pairing for w, _ in worlds):
        mine = [(w, f) for (w, _), f in zip(worlds, figures, strict=True) if w.pairing == pairing]
        per_fault: dict[str, dict[str, Any]] = {}
        for world, figure in mine:
            into = per_fault.setdefault(world.fault, Counter())
            for name, value in figure.items():
                into[name] = max(into[name], value) if name == "seconds" else into[name] + value
        told: Counter[str] = Counter()
        gaps: Counter[str] = Counter()
        lags: dict[str, float] = {}
        for world, _ in mine:
            told.update(world.told)
            gaps.update(world.gaps)
            for name, value in world.lags.items():
                lags[name] = max(lags.get(name, 0.0), value)
        operation, roles = table[pairing]
        results.append(
            {
                "pairing": pairing,
                "operation": operation,
                "roles": list(roles),
                "runs": sum(f["runs"] for _, f in mine),
                **{name: sum(f[name] for _, f in mine) for name in names},
                "service_refused": sum(w.refused for w, _ in mine),
                "faults": {fault: dict(figure) for fault, figure in per_fault.items()},
                "gaps": dict(sorted(gaps.items())),
                "told": dict(sorted(told.items())),
                **{f"max_{name}": value for name, value in sorted(lags.items())},
                "seconds": seconds,
                "described_runs": sorted(
                    (d for w, _ in mine for d in w.described),
                    key=lambda d: (d["fault"], d["run"]),
                ),
            }
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.chaos",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=10,
        help="runs per kind; with --two-actors, per pairing and fault kind (default 10)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the schedules (default 1)")
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help=f"comma list of kinds (default: all: {','.join(KINDS)})",
    )
    parser.add_argument(
        "--two-actors",
        action="store_true",
        help="run the two-actor mode instead of the kinds (see above)",
    )
    parser.add_argument(
        "--pairings",
        default=None,
        help=f"with --two-actors: comma list (default: all: {','.join(PAIRINGS)}; with"
        " --team-journal: cli+cli/refund,cli+cli/capture,app+cli/refund,app+cli/capture, and"
        " the bulk+single ones on request)",
    )
    parser.add_argument(
        "--faults",
        default=None,
        help=f"comma list of fault kinds (default: all: {','.join(KIND_FAULTS)}; with"
        f" --two-actors: {','.join(FAULTS)})",
    )
    parser.add_argument(
        "--run",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="rerun only run N of each kind (with --two-actors: of each pairing and fault),"
        " repeatable: the schedule a failed run reported",
    )
    parser.add_argument(
        "--parallel",
        type=int,
        default=PARALLEL,
        help=f"with --two-actors: runs at once (default {PARALLEL})",
    )
    parser.add_argument(
        "--shards",
        type=int,
        default=1,
        help="with --two-actors: sandbox apps per pairing and fault, whose runs go on side by"
        " side (default 1)",
    )
    parser.add_argument(
        "--team-journal",
        nargs="?",
        const="",
        default=None,
        metavar="URL",
        help="with --two-actors: each actor a process with a home of its own, both on one"
        " PostgreSQL journal on the server at URL (default: the one the PG* environment names,"
        " else one started from the test extra's wheel for the run; a schema per pairing,"
        " fault and shard, dropped after): benchmarks/chaos_team.py",
    )
    parser.add_argument(
        "--team",
        nargs="?",
        const="",
        default=None,
        metavar="URL",
        help="stale view then send, --runs times, two agents on one PostgreSQL journal at URL"
        " (default: the PG* environment's server, else one from the test extra's wheel):"
        " benchmarks/chaos_stale.py; 0 sent on a stale view",
    )
    parser.add_argument(
        "--spawn",
        choices=("fork", "exec"),
        default="fork",
        help="with --team-journal: fork each agent from a process that imported paytui once"
        " (default), or start a new interpreter for each",
    )
    parser.add_argument(
        "--agent-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --team-journal: the agents' request deadline (default: the client's own, 10 s)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="describe each failed run on stderr (with --two-actors: also each run with a"
        " commit the service refused)",
    )
    args = parser.parse_args(argv)
    if args.faults is None:
        args.faults = ",".join(FAULTS if args.two_actors or args.team_journal else KIND_FAULTS)
    if args.team is not None:
        from benchmarks.chaos_stale import main_stale

        return main_stale(args)
    if args.team_journal is not None:
        return _main_team(parser, args)
    if args.two_actors:
        return _main_two_actors(parser, args)
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    faults = tuple(f.strip() for f in args.faults.split(",") if f.strip())
    unknown = (set(kinds) - set(KINDS)) | (set(faults) - set(KIND_FAULTS))
    if unknown:
        parser.error(f"unknown kinds or faults: {', '.join(sorted(unknown))}")
    results = asyncio.run(
        run_chaos(args.runs, args.seed, kinds, only=tuple(args.run), drawn=faults)
    )
    bad = False
    for result in results:
        failed = result.pop("described_runs")
        print(json.dumps(result), flush=True)
        for detail in failed if args.verbose else ():
            print("  " + json.dumps(detail, default=str), file=sys.stderr)
        bad = bad or bool(result["duplicates"] or result["contradictions"])
    return 1 if bad else 0


def _main_team(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from benchmarks.chaos_team import DEFAULT_TEAM_PAIRINGS, TEAM_PAIRINGS, main_team

    chosen = args.pairings or ",".join(DEFAULT_TEAM_PAIRINGS)
    pairings = tuple(p.strip() for p in chosen.split(",") if p.strip())
    faults = tuple(f.strip() for f in args.faults.split(",") if f.strip())
    unknown = (set(pairings) - set(TEAM_PAIRINGS)) | (set(faults) - set(FAULTS))
    if unknown:
        parser.error(f"unknown pairings or faults: {', '.join(sorted(unknown))}")
    if args.team_journal:
        return main_team(args, pairings, faults)
    from tests.postgres_wheel import server

    with server() as url:
        args.team_journal = url
        return main_team(args, pairings, faults)


def _main_two_actors(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    chosen = args.pairings or ",".join(PAIRINGS)
    pairings = tuple(p.strip() for p in chosen.split(",") if p.strip())
    faults = tuple(f.strip() for f in args.faults.split(",") if f.strip())
    unknown = (set(pairings) - set(PAIRINGS)) | (set(faults) - set(FAULTS))
    if unknown:
        parser.error(f"unknown pairings or faults: {', '.join(sorted(unknown))}")
    results = asyncio.run(
        run_two_actors(
            args.runs,
            args.seed,
            pairings,
            faults,
            only=tuple(args.run),
            parallel=args.parallel,
            shards=args.shards,
        )
    )
    bad = False
    for result in results:
        failed = result.pop("described_runs")
        print(json.dumps(result), flush=True)
        for detail in failed if args.verbose else ():
            print("  " + json.dumps(detail, default=str), file=sys.stderr)
        bad = bad or any(
            result[name] for name in ("duplicates", "contradictions", "unresolved", "crashes")
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
