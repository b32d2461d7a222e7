"""Two machines on one team journal: the two-actor chaos across processes and homes.

    python -m benchmarks.chaos --two-actors --team-journal [URL] [--runs N] [--seed S]
                               [--pairings …] [--faults …] [--parallel P] [--shards K]
                               [--spawn fork|exec] [--agent-timeout SECONDS] [--verbose]

The two-actor mode (`benchmarks.chaos`, "Two actors meaning the same action") with each actor a
process of its own, on a machine of its own: its own home (``HOME`` and ``XDG_*``: config, data,
state, this machine's record of bulk actions), its own agent name (``PAYTUI_AGENT``:
``support-07``, ``support-12``), and nothing shared but the service and the team journal on
PostgreSQL (``PAYTUI_JOURNAL_URL``). URL: the server (default: the one libpq's ``PGHOST``,
``PGUSER``, ``PGPASSWORD``… name, a password in the environment, never the URL; else one started
from the test extra's wheel for the run, ``tests/postgres_wheel.py``). Every
pairing, fault and shard gets a fresh schema of its own on that server (created at the start,
dropped at the end), so its runs go one after another on one journal of their own.

- The service is the sandbox served over loopback HTTP (uvicorn on 127.0.0.1, a thread of this
  process per pairing, fault and shard), behind the counter of commits (`TeamCounter`): the
  agents talk to it as to any service.
- An agent is `benchmarks.chaos_agent` in a process: ``cli`` is the real command line
  (`paytui.cli.main`), ``dialog`` the dashboard's `ActionsService` with the dialog's steps,
  ``bulk`` its batch runner. ``--spawn fork`` (the default) forks each from a process that has
  imported paytui once (`chaos_agent.zygote`; an interpreter per agent costs about 1 s of CPU on
  imports); ``--spawn exec`` starts a new interpreter for each.
- The faults are the service's (drop, late commit, reset, 5xx before commit), as in the
  in-process mode; "killed" is a real ``SIGKILL`` of the agent whose commit request the service
  has just read (named in its User-Agent, `AGENT_MARK`), so its connection to the journal dies
  with it; it is started again once, in the same home. "Reads down" (20 %): the service
  answers 503 to every read for a while after the first send.
- The client's timeout is the real one (10 s; the margin the app's 2 s), so a late commit
  lands 10.35 s after it arrived: ``--agent-timeout`` shortens it in every agent (the test
  sample does; nothing else in the agents changes).

The end and the counting are the two-actor mode's; at the end of every run the harness also
checks the journal's hash-chained trail (`Journal.verify`): ``unverified`` counts runs whose
trail did not verify. ``told`` counts what each agent was told, with ``· names the other
agent`` when a refusal names the agent who acted. It exits 1 on any duplicate, contradiction,
unresolved entry, broken trail or harness crash.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import MutableMapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks.chaos import (
    AGENT_MARK,
    FAULTS,
    GAPS,
    PARALLEL,
    PARTIAL,
    SANDBOX_OPERATION,
    EffectCounter,
    Settings,
    _ActorRun,
    _fault_prefix,
    _note_lags,
    _pair_target,
    _refs,
    _summarise,
    _timeline,
    _verdict,
)
from paytui.actions import ActionExecutor, ActionPolicy, Journal
from paytui.actions.executor import DEFAULT_SETTLE_MARGIN
from paytui.api.client import PaymentClient
from paytui.logs import clear_registered_secrets
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.faults import DropResponse, Faults, operation_of

ROOT = Path(__file__).resolve().parent.parent

#: Pairings across machines: (operation, roles), as `benchmarks.chaos.PAIRINGS`.
TEAM_PAIRINGS: dict[str, tuple[str, tuple[str, str]]] = {
    "cli+cli/refund": ("refund", ("cli", "cli")),
    "cli+cli/capture": ("capture", ("cli", "cli")),
    "app+cli/refund": ("refund", ("dialog", "cli")),
    "app+cli/capture": ("capture", ("dialog", "cli")),
    "bulk+single/refund": ("refund", ("bulk", "single")),
    "bulk+single/capture": ("capture", ("bulk", "single")),
}
#: Run unless `--pairings` says otherwise (the bulk ones on request).
DEFAULT_TEAM_PAIRINGS = ("cli+cli/refund", "cli+cli/capture", "app+cli/refund", "app+cli/capture")
#: The two agents: two people, two machines.
AGENTS = ("support-07", "support-12")
#: The client's own request deadline (`PaymentClient`'s default), which the agents keep.
CLIENT_TIMEOUT = 10.0
#: Exit codes of the command line that a run may end with; any other is a harness crash.
EXPECTED_EXITS = frozenset({0, 6, 7, 8, 10})
FIGURES = ("duplicates", "contradictions", "unresolved", "crashes", "unverified")


def with_schema(url: str, schema: str) -> str:
    """`url` with its search path set to `schema` (libpq's ``options``)."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


# ------------------------------------------------------------------------------ the service


def _sender(scope: MutableMapping[str, Any]) -> int | None:
    """The agent process that sent the request of `scope`: every agent names itself in its
    requests (`chaos-agent/PID` in the User-Agent, `benchmarks.chaos_agent`), so the sender is
    known whenever the service reads the request, even once the agent's deadline has passed and
    its socket is gone (a loaded machine may read a request seconds after it was sent)."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"user-agent":
            for word in value.decode("latin-1").split():
                if word.startswith(AGENT_MARK):
                    return int(word.removeprefix(AGENT_MARK))
    return None


class TeamCounter(EffectCounter):
    """`EffectCounter` in front of the sandbox served over loopback, plus what the in-process
    mode did on the client's side: "killed" (the agent whose commit request has just been read
    is sent SIGKILL; the request goes on) and "reads down" (503 to every read for a while after
    the first send). It also counts the commit requests still being served (`in_flight`)."""

    def __init__(self, app: Any, faults: Faults) -> None:
        super().__init__(app, faults)
        #: Agent processes alive now: pid → agent.
        self.pids: dict[int, str] = {}
        self.killed: set[int] = set()
        self.kill_next = False
        #: Kills armed whose sender was not found (none expected).
        self.kills_missed = 0
        self.reads_down_for = 0.0
        self.reads_down_until = 0.0
        self.in_flight = 0

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        operation = None
        if scope["type"] == "http":
            if (
                scope["method"] == "GET"
                and scope["path"].startswith("/v2/")
                and time.monotonic() < self.reads_down_until
            ):
                await _unavailable(send)
                return
            operation = operation_of(scope["method"], scope["path"])
        if operation is None:
            await self.app(scope, receive, send)
            return
        self.in_flight += 1
        if self.reads_down_for:
            self.reads_down_until = time.monotonic() + self.reads_down_for
            self.reads_down_for = 0.0
        kill, self.kill_next = self.kill_next, False
        body = bytearray()
        status: int | None = None

        async def reading() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
                if kill and not message.get("more_body"):
                    self._kill(scope)  # the whole request is here: its sender dies now
            return message

        async def watching(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start" and status is None:
                status = message["status"]
            await send(message)  # to a killed sender: nobody reads it

        dropped = False
        arrived = datetime.now(UTC)
        try:
            await self.app(scope, reading, watching)
        except DropResponse:
            dropped = True
            raise
        finally:
            # Committed: a 2xx answer (sent or not: its sender may be dead), or an answer
            # dropped or reset after the commit.
            if dropped or (status is not None and status < 300):
                self.effects += 1
                self.refs.update(_refs(bytes(body)))
                self.commits.append((arrived, datetime.now(UTC)))
            elif status is not None and 400 <= status < 500:
                self.refused += 1
            if self.armed:
                self.armed = False
                self.faults.reset()
            self.in_flight -= 1

    def _kill(self, scope: MutableMapping[str, Any]) -> None:
        pid = _sender(scope)
        if pid is None or pid not in self.pids:  # only ever one of this run's agents
            self.kills_missed += 1
            return
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # ended before its request was read: nobody left to kill
            self.kills_missed += 1
            return
        self.killed.add(pid)


async def _unavailable(send: Any) -> None:
    body = json.dumps({"message": "chaos: reads are down"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class LoopbackSandbox:
    """The sandbox app (behind its counter) served by uvicorn on 127.0.0.1, in a thread."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(
            app, log_level="critical", lifespan="off", access_log=False, interface="asgi3"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the loopback sandbox did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


# ------------------------------------------------------------------------------ the agents


@dataclass
class Agent:
    """One agent process: its pid, and to come its exit code and CPU seconds (None: not known,
    ``--spawn exec``)."""

    pid: int
    ended: asyncio.Future[tuple[int, float | None]]


class Spawner:
    """Starts agent processes: forked by `chaos_agent.zygote` (``fork``), or new interpreters
    (``exec``), each ``python -m benchmarks.chaos_agent`` in the agent's environment."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self._zygote: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pids: dict[int, asyncio.Future[int]] = {}
        self._ends: dict[int, asyncio.Future[tuple[int, float | None]]] = {}
        self._next = 0

    async def start(self) -> None:
        if self.mode != "fork":
            return
        self._zygote = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.chaos_agent",
            "--zygote",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
        )
        assert self._zygote.stdout is not None
        line = await self._zygote.stdout.readline()
        if line.strip() != b"ready":
            raise RuntimeError(f"the agents' zygote did not start: {line!r}")
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self._zygote is not None and self._zygote.stdout is not None
        loop = asyncio.get_running_loop()
        while line := await self._zygote.stdout.readline():
            what, first, second, *more = line.decode().split()
            if what == "pid":
                pid = int(second)
                self._ends[pid] = loop.create_future()
                self._pids.pop(int(first)).set_result(pid)
            elif what == "exit":
                self._ends.pop(int(first)).set_result((int(second), float(more[0])))
        for waiting in (*self._pids.values(), *self._ends.values()):
            if not waiting.done():
                waiting.set_exception(RuntimeError("the agents' zygote died"))

    async def spawn(self, spec: dict[str, Any], env: dict[str, str], out: Path, err: Path) -> Agent:
        if self._zygote is not None:
            assert self._zygote.stdin is not None
            self._next += 1
            asked = asyncio.get_running_loop().create_future()
            self._pids[self._next] = asked
            request = {"id": self._next, "spec": spec, "env": env, "out": str(out), "err": str(err)}
            self._zygote.stdin.write(json.dumps(request).encode() + b"\n")
            await self._zygote.stdin.drain()
            pid = await asked
            return Agent(pid, self._ends[pid])
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "benchmarks.chaos_agent",
                json.dumps(spec),
                env=env,
                cwd=ROOT,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
            )

        async def ended() -> tuple[int, float | None]:
            return await process.wait(), None

        return Agent(process.pid, asyncio.ensure_future(ended()))

    async def close(self) -> None:
        if self._zygote is not None:
            assert self._zygote.stdin is not None
            self._zygote.stdin.close()
            await self._zygote.wait()
            if self._reader is not None:
                await self._reader


# ------------------------------------------------------------------------------ the worlds


@dataclass
class TeamWorld:
    """One pairing under one fault kind on one shard: its sandbox served over loopback (own
    fault switches and counter, own copy of the database), its journal (a schema of its own)
    and its two machines (homes). `kind` is the operation."""

    pairing: str
    kind: str
    roles: tuple[str, str]
    fault: str
    faults: Faults
    counter: TeamCounter
    server: LoopbackSandbox
    setup: PaymentClient
    #: The patient paytui that reconciles at the end of each run (the agents' timeout).
    final: PaymentClient
    account_id: str
    settings: Settings
    journal_url: str
    homes: Path
    spawner: Spawner
    agent_timeout: float | None
    totals: Counter[str] = field(default_factory=Counter)
    lags: dict[str, float] = field(default_factory=dict)
    described: list[dict[str, Any]] = field(default_factory=list)
    told: Counter[str] = field(default_factory=Counter)
    gaps: Counter[str] = field(default_factory=Counter)
    refused: int = 0
    links: int = 0
    #: CPU seconds of each agent process (``--spawn fork``).
    agent_cpu: list[float] = field(default_factory=list)


def _agent_env(world: TeamWorld, agent: str) -> dict[str, str]:
    """A person's paytui on their own machine: their home, the service, the team journal,
    their name. Nothing of this process's PAYTUI_* settings."""
    home = world.homes / agent
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYTUI_")}
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_RUNTIME_DIR": str(home / "run"),
            "PAYTUI_BASE_URL": world.server.url,
            "PAYTUI_CLIENT_ID": DEMO_CLIENT_ID,
            "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET,
            "PAYTUI_JOURNAL_URL": world.journal_url,
            "PAYTUI_AGENT": agent,
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        }
    )
    return env


def _whom(text: str, me: str, other: str) -> str:
    if other in text:
        return " · names the other agent"
    if me in text:
        return " · names itself"
    return ""


async def _team_actor(
    world: TeamWorld, actor: _ActorRun, other: str, charge_id: str, amount: Decimal | None
) -> None:
    """One agent: a process on its machine. A process killed mid-send is started again once
    (the command run again, the dialog opened again, the batch resumed)."""
    home = world.homes / actor.name
    spec = {
        "role": actor.role,
        "kind": world.kind,
        "charge_id": charge_id,
        "amount": str(amount) if amount is not None else None,
        "think": actor.think,
        "timeout": world.agent_timeout,
    }
    env = _agent_env(world, actor.name)
    for _attempt in range(2):
        out, err = home / "out.txt", home / "err.txt"
        agent = await world.spawner.spawn(spec, env, out, err)
        world.counter.pids[agent.pid] = actor.name
        try:
            code, cpu = await agent.ended
        finally:
            world.counter.pids.pop(agent.pid, None)
        if cpu is not None:
            world.agent_cpu.append(cpu)
        stderr = err.read_text(errors="replace").strip()
        stdout = out.read_text(errors="replace").strip()
        if agent.pid in world.counter.killed:
            actor.told.append("killed")
            continue
        if actor.role == "cli":
            actor.said.append(stderr)
            told = f"cli: exit {code}"
            if code not in EXPECTED_EXITS:
                told = f"crashed: cli exit {code}: {stderr.splitlines()[-1:]}"
        else:
            try:
                result = json.loads(stdout.splitlines()[-1])
                told = str(result["told"])
                actor.said.extend(str(s) for s in result["said"])
            except (IndexError, ValueError, KeyError):
                told = f"crashed: {actor.role} exit {code}: {stderr.splitlines()[-1:]}"
        succeeded = told in {"cli: exit 0", f"{actor.role}: succeeded"}
        if not succeeded and not told.startswith("crashed"):
            told += _whom(" ".join(actor.said[-1:]), actor.name, other)
        actor.told.append(told)
        return


def _arm(world: TeamWorld, reads_down: float) -> None:
    """The run's fault, on the first commit request of either agent."""
    operation = SANDBOX_OPERATION[world.kind]
    faults, counter = world.faults, world.counter
    faults.reset()
    counter.reads_down_for = reads_down
    counter.reads_down_until = 0.0
    counter.kill_next = False
    fault = world.fault
    if fault == "drop_after_commit":
        faults.drop_after_commit = {operation}
    elif fault == "reset_after_commit":
        faults.reset_after_commit = {operation}
    elif fault == "late_commit":
        faults.late_commit = {operation}
        faults.late_commit_seconds = world.settings.late_commit
    elif fault == "error_5xx":
        faults.fail_status = 503
        faults.fail_path_prefix = _fault_prefix(world.kind)
        faults.fail_count = 1
        faults.fail_method = "POST"  # the send, not a read of the charge
    elif fault == "killed":
        counter.kill_next = True
    counter.armed = fault not in {"none", "killed"}


async def _entries_of(journal: Journal, charge_id: str) -> list[Any]:
    entries = await asyncio.to_thread(journal.list, limit=100_000)
    return sorted((e for e in entries if e.charge_id == charge_id), key=lambda e: e.id)


async def _settle_team_run(world: TeamWorld, charge_id: str) -> tuple[list[Any], Any]:
    """The end of every run: the network is back, whatever was in flight has landed, and a
    restarted paytui (a patient one) reconciles what the journal does not know; then the run's
    entries, and the whole trail checked (`Journal.verify`)."""
    counter = world.counter
    counter.reads_down_for = counter.reads_down_until = 0.0
    counter.kill_next = False
    deadline = time.monotonic() + world.settings.late_commit + 30
    while counter.in_flight and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    world.faults.reset()
    counter.armed = False
    journal = await asyncio.to_thread(Journal, world.journal_url)
    try:
        for profile in sorted({e.profile for e in await _entries_of(journal, charge_id)}):
            executor = ActionExecutor(
                world.final,
                journal,
                ActionPolicy(),
                profile=profile,
                base_url=world.server.url,
                settle_margin=world.settings.margin,
                actor="the chaos harness",
            )
            try:
                await executor.reconcile_all(wait=True)
            finally:
                await executor.aclose(timeout=5)
        entries = await _entries_of(journal, charge_id)
        report = await asyncio.to_thread(journal.verify)
    finally:
        journal.close()
    return entries, report


async def one_team_run(
    world: TeamWorld, run: int, rng: random.Random, describe: bool = False
) -> dict[str, int]:
    """Two agents on two machines mean the same action on a fresh charge; the fault hits the
    first send. The draws are the in-process mode's, in the same order."""
    settings = world.settings
    gap = rng.choice(GAPS)
    delay = rng.uniform(0.02, 0.5)
    first = rng.randrange(2)
    roles = [rng.choice(("dialog", "cli")) if r == "single" else r for r in world.roles]
    thinks = [rng.uniform(0.0, 0.6) if r in {"dialog", "bulk"} else 0.0 for r in roles]
    reads_down = rng.uniform(0.1, settings.settle) if rng.random() < 0.2 else 0.0
    actors = [
        _ActorRun(role, agent, think)
        for role, agent, think in zip(roles, AGENTS, thinks, strict=True)
    ]
    amount = None if "bulk" in world.roles else PARTIAL
    clear_registered_secrets()
    charge_id = await _pair_target(world)  # type: ignore[arg-type]
    # The service counts a request once it has answered it, in its own thread: the charge's
    # creation must be counted before the count is reset.
    while world.counter.in_flight:
        await asyncio.sleep(0.005)
    world.counter.reset()
    world.counter.killed.clear()
    _arm(world, reads_down)
    one, two = actors[first], actors[1 - first]

    async def play(actor: _ActorRun, wait: float = 0.0) -> None:
        await asyncio.sleep(wait)
        other = AGENTS[1 - AGENTS.index(actor.name)]
        await _team_actor(world, actor, other, charge_id, amount)

    if gap == "after":
        await play(one)
        await play(two)
    else:
        await asyncio.gather(play(one), play(two, delay if gap == "small" else 0.0))
    entries, report = await _settle_team_run(world, charge_id)
    verdict = _verdict(world, entries, world.fault)  # type: ignore[arg-type]
    verdict["crashes"] = sum(1 for a in actors for told in a.told if told.startswith("crashed"))
    verdict["unverified"] = 0 if report.ok else 1
    world.links = report.links
    _note_lags(world, entries)  # type: ignore[arg-type]
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
                "charge": charge_id,
                "gap": gap,
                "delay": round(delay, 3) if gap == "small" else 0.0,
                "first": one.name,
                "actors": [
                    {
                        "agent": a.name,
                        "role": a.role,
                        "think": round(a.think, 3),
                        "told": a.told,
                        "said": a.said,
                    }
                    for a in actors
                ],
                "reads_down": round(reads_down, 2),
                "effects": world.counter.effects,
                "service_refused": world.counter.refused,
                "trail": report.broken or f"{report.links} links verified",
                "journal": [
                    (e.id, e.agent, e.state, e.client_reference in world.counter.refs, e.error)
                    for e in entries
                ],
                "timeline": _timeline(world, entries),  # type: ignore[arg-type]
                **verdict,
            }
        )
    return verdict


async def _run_team_world(
    world: TeamWorld,
    chosen: tuple[int, ...],
    seed: int,
    describe: bool,
    slots: asyncio.Semaphore,
    progress: bool = False,
) -> dict[str, Any]:
    started = time.perf_counter()
    totals: Counter[str] = Counter({name: 0 for name in FIGURES})
    for run in chosen:
        rng = random.Random(f"{seed}:{world.pairing}:{world.fault}:{run}")
        async with slots:
            totals.update(await one_team_run(world, run, rng, describe=describe))
    figures = {
        "runs": len(chosen),
        **{name: totals[name] for name in FIGURES},
        "seconds": round(time.perf_counter() - started, 1),
    }
    if progress:  # a long run shows how far it got (a shard's runs, as they end)
        shard = {"pairing": world.pairing, "fault": world.fault, **figures}
        print("  done: " + json.dumps(shard), file=sys.stderr, flush=True)
    return figures


def _create_schema(server: str, schema: str) -> str:
    import psycopg

    with psycopg.connect(server, autocommit=True, connect_timeout=10) as db:
        db.execute(f'CREATE SCHEMA "{schema}"'.encode())
    url = with_schema(server, schema)
    Journal(url).close()  # created once here (two first starts do not race: tested elsewhere)
    return url


def _drop_schemas(server: str, schemas: list[str]) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True, connect_timeout=10) as db:
        for schema in schemas:
            db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'.encode())


async def _team_world(
    root: Path,
    db: Path,
    settings: Settings,
    pairing: str,
    fault: str,
    number: int,
    journal_url: str,
    spawner: Spawner,
    agent_timeout: float | None,
) -> TeamWorld:
    from paytui.sandbox.app import create_app

    operation, roles = TEAM_PAIRINGS[pairing]
    own = root / f"sandbox-{number}.sqlite3"
    shutil.copyfile(db, own)
    switches = Faults()
    counter = TeamCounter(create_app(own, faults=switches), switches)
    server = LoopbackSandbox(counter)
    await asyncio.to_thread(server.start)
    setup = PaymentClient(
        server.url, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET, timeout=30.0
    )
    page = await setup.list_accounts_page(status="approved", limit=1)
    final = PaymentClient(
        server.url,
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        timeout=settings.timeout,
    )
    homes = root / f"world-{number}"
    for agent in AGENTS:
        (homes / agent).mkdir(parents=True)
    return TeamWorld(
        pairing,
        operation,
        roles,
        fault,
        switches,
        counter,
        server,
        setup,
        final,
        page.items[0].account_id,
        settings,
        journal_url,
        homes,
        spawner,
        agent_timeout,
    )


async def run_team(
    runs: int,
    seed: int,
    server: str = "postgresql://",
    pairings: tuple[str, ...] = DEFAULT_TEAM_PAIRINGS,
    faults: tuple[str, ...] = FAULTS,
    *,
    agent_timeout: float | None = None,
    spawn: str = "fork",
    only: tuple[int, ...] = (),
    parallel: int = PARALLEL,
    shards: int = 1,
    cases: tuple[tuple[str, str], ...] = (),
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Two agents on two machines on one PostgreSQL journal (`server`), `runs` runs per pairing
    and fault kind (see the module docstring); one result per pairing, as `run_two_actors`.
    `progress`: a line on stderr as each shard's runs end."""
    from paytui.actions.journal_store import mask_url
    from paytui.sandbox.seed import build_database

    timeout = agent_timeout or CLIENT_TIMEOUT
    settings = Settings(
        timeout=timeout, margin=DEFAULT_SETTLE_MARGIN, late_commit=round(timeout + 0.35, 3)
    )
    loop = asyncio.get_running_loop()
    # Every journal call of the harness's own executors goes through a thread: more than the
    # default pool's 6 (2 cores), or the parallel runs wait on each other there.
    loop.set_default_executor(ThreadPoolExecutor(max_workers=64, thread_name_prefix="chaos"))
    started = time.perf_counter()
    chosen = only or tuple(range(runs))
    shards = max(1, min(shards, len(chosen)))
    tag = f"chaos_{uuid.uuid4().hex[:10]}"
    schemas: list[str] = []
    spawner = Spawner(spawn)
    worlds: list[tuple[TeamWorld, tuple[int, ...]]] = []
    with tempfile.TemporaryDirectory(prefix="paytui-chaos-team-") as tmp:
        root = Path(tmp)
        db = root / "sandbox.sqlite3"
        await asyncio.to_thread(build_database, db, charges=50, seed=seed)
        plan = [
            (pairing, fault, shard)
            for pairing, fault in cases or tuple((p, f) for p in pairings for f in faults)
            for shard in range(shards)
        ]
        schemas = [f"{tag}_{number}" for number in range(len(plan))]

        async def make(number: int) -> TeamWorld:
            pairing, fault, _shard = plan[number]
            url = await asyncio.to_thread(_create_schema, server, schemas[number])
            return await _team_world(
                root, db, settings, pairing, fault, number, url, spawner, agent_timeout
            )

        try:
            made = await asyncio.gather(
                spawner.start(), *(make(n) for n in range(len(plan))), return_exceptions=True
            )
            for number, world in enumerate(made[1:]):
                if isinstance(world, TeamWorld):
                    worlds.append((world, chosen[plan[number][2] :: shards]))
            for failed in made:
                if isinstance(failed, BaseException):
                    raise failed
            slots = asyncio.Semaphore(max(1, parallel))
            figures = await asyncio.gather(
                *(_run_team_world(w, mine, seed, bool(only), slots, progress) for w, mine in worlds)
            )
        finally:
            for world, _ in worlds:
                await world.setup.aclose()
                await world.final.aclose()
                await asyncio.to_thread(world.server.stop)
            await spawner.close()
            if schemas:
                await asyncio.to_thread(_drop_schemas, server, schemas)
    seconds = round(time.perf_counter() - started, 1)
    results = _summarise(worlds, list(figures), seconds, TEAM_PAIRINGS, FIGURES)  # type: ignore[arg-type]
    for result in results:
        mine = [w for w, _ in worlds if w.pairing == result["pairing"]]
        result["kills_missed"] = sum(w.counter.kills_missed for w in mine)
        result["trail_links"] = sum(w.links for w in mine)
        cpu = sorted(c for w in mine for c in w.agent_cpu)
        result["agent_processes"] = sum(len(w.agent_cpu) for w in mine) or None
        result["agent_cpu_s_median"] = round(cpu[len(cpu) // 2], 3) if cpu else None
        result["journal"] = mask_url(server)
        result["agents"] = list(AGENTS)
        result["spawn"] = spawn
        result["agent_timeout"] = timeout
    return results


def main_team(args: Any, pairings: tuple[str, ...], faults: tuple[str, ...]) -> int:
    """`python -m benchmarks.chaos --two-actors --team-journal [URL]`: one JSON line per
    pairing; 1 on any duplicate, contradiction, unresolved entry, broken trail or crash."""
    results = asyncio.run(
        run_team(
            args.runs,
            args.seed,
            args.team_journal,
            pairings,
            faults,
            agent_timeout=args.agent_timeout,
            spawn=args.spawn,
            only=tuple(args.run),
            parallel=args.parallel,
            shards=args.shards,
            progress=args.verbose,
        )
    )
    bad = False
    for result in results:
        failed = result.pop("described_runs")
        print(json.dumps(result), flush=True)
        for detail in failed if args.verbose else ():
            print("  " + json.dumps(detail, default=str), file=sys.stderr)
        bad = bad or any(result[name] for name in (*FIGURES, "kills_missed"))
    return 1 if bad else 0
