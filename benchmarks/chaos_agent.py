"""One agent's paytui in a process of its own, for the chaos harness's team-journal mode.

    python -m benchmarks.chaos_agent SPEC_JSON        (or forked by `benchmarks.chaos_team`)

Everything about the agent comes from its environment, as for a person's own paytui: its home
(``HOME``, ``XDG_*``: config, data, state), the service (``PAYTUI_BASE_URL``, the client's
credentials), the team journal (``PAYTUI_JOURNAL_URL``) and its name (``PAYTUI_AGENT``). The
spec says only what the person does:

- ``cli``: the real command line, `paytui.cli.main` with ``refunds create CH [--amount X] --yes
  --format json`` or ``charges capture CH --yes --format json``; the exit code is the process's.
- ``dialog``: the dashboard's `ActionsService` (its journal and agent from the connection, as the
  dashboard builds them) and the refund/capture dialog's steps (`benchmarks.chaos._as_dialog`):
  read, look for ``think`` seconds, confirm. Not the Textual screens.
- ``bulk``: the same service's batch log and `BatchRunner` (`benchmarks.chaos._as_bulk`); a batch
  left by a process that died is resumed from this machine's log.

``dialog`` and ``bulk`` print one JSON line on stdout: what the person was told (``told``) and
the sentences behind it (``said``). ``timeout`` (optional): the client's request deadline, in
place of its default (10 s) — the one change to the real command line, so that a late commit is
waited out in seconds in the test sample; the full runs leave it alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import select
import signal
import sys
import traceback
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

# Imported here, not in the functions: the forkserver imports this module once, so a forked
# agent starts with the command line, the journal's driver and the dashboard's service loaded
# (an interpreter started for each agent spends about 1 s of CPU importing them).
import psycopg  # noqa: F401  (the team journal's driver; paytui imports it when a URL is set)

from benchmarks.chaos import AGENT_MARK, Session, _ActorRun, _as_bulk, _as_dialog
from paytui.api.client import PaymentClient
from paytui.cli import main as cli_main
from paytui.commands import handlers  # noqa: F401
from paytui.config import client_kwargs, resolve_connection
from paytui.ui.actions_service import ActionsService


def _named_in_requests() -> None:
    """Every request this process sends names it (`AGENT_MARK` and its process id, in the
    User-Agent): the service's side kills the sender of a request it has just read by that name
    (`benchmarks.chaos_team`), whenever it reads it, even once this process has given up on it."""
    from paytui.api import client, plain

    named = f"{client.USER_AGENT} {AGENT_MARK}{os.getpid()}"
    client.USER_AGENT = named
    plain.USER_AGENT = named


def _shorten_timeout(seconds: float) -> None:
    """Every client this process makes gets `seconds` as its request deadline."""
    original = PaymentClient.__init__

    def patched(self: PaymentClient, *args: Any, **kwargs: Any) -> None:
        kwargs["timeout"] = seconds
        kwargs.pop("deadline", None)
        original(self, *args, **kwargs)

    PaymentClient.__init__ = patched  # type: ignore[method-assign]


class _DashboardSession:
    """What `ActionsService` reads of the dashboard's `paytui.ui.session.Session`: the
    connection's facts and its client (without an App around it)."""

    def __init__(self, connection: Any, client: PaymentClient) -> None:
        self.connection = connection
        self.connected_client = client
        self.environment = connection.environment
        self.profile_name = connection.display_name
        self.read_only = connection.read_only
        self.confirm_threshold = connection.confirm_threshold

    async def get_client(self) -> PaymentClient:
        return self.connected_client

    def now(self) -> datetime:
        return datetime.now(UTC)


async def _as_dashboard(spec: dict[str, Any]) -> dict[str, Any]:
    connection = resolve_connection(environ=os.environ)
    amount = Decimal(spec["amount"]) if spec.get("amount") else None
    actor = _ActorRun(spec["role"], os.environ.get("PAYTUI_AGENT", ""), float(spec["think"]))
    async with PaymentClient(**client_kwargs(connection)) as client:
        service = ActionsService(_DashboardSession(connection, client))  # type: ignore[arg-type]
        executor = await service.executor()
        session = Session(client, executor.journal, executor)
        world = SimpleNamespace(kind=spec["kind"])
        play = _as_dialog if spec["role"] == "dialog" else _as_bulk
        try:
            told = await play(session, world, spec["charge_id"], amount, actor)  # type: ignore[arg-type]
        finally:
            await executor.aclose(timeout=30)
            executor.journal.close()
    return {"told": told, "said": actor.said}


def run(spec: dict[str, Any]) -> int:
    """Play `spec` in this process (its environment is already the agent's); the exit code."""
    _named_in_requests()
    if spec.get("timeout"):
        _shorten_timeout(float(spec["timeout"]))
    if spec["role"] == "cli":
        if spec["kind"] == "capture":
            argv = ["charges", "capture", spec["charge_id"]]
        else:
            argv = ["refunds", "create", spec["charge_id"]]
            if spec.get("amount"):
                argv += ["--amount", str(spec["amount"])]
        return cli_main([*argv, "--yes", "--format", "json"])
    try:
        result = asyncio.run(_as_dashboard(spec))
    except Exception as err:  # a bug: reported, never hidden
        result = {"told": f"crashed: {type(err).__name__}: {err}", "said": []}
        print(json.dumps(result), flush=True)
        return 1
    print(json.dumps(result), flush=True)
    return 0


def _become(request: dict[str, Any]) -> int:
    """In a forked child: become the agent (its environment, its streams), then play."""
    os.environ.clear()
    os.environ.update(request["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, request["out"]), (2, request["err"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    try:
        return run(request["spec"])
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else int(done.code is not None)
    except BaseException:
        traceback.print_exc()
        return 1


#: Imported by the zygote too: what an agent's first request, keyring look-up and journal
#: write import on first use (about 0.1 s of CPU in each forked agent otherwise).
WARM = (
    "anyio._backends._asyncio",
    "anyio.to_thread",
    "certifi",
    "encodings.idna",
    "h11",
    "httpcore",
    "keyring.backends.fail",
    "keyring.backends.null",
    "keyring.core",
    "paytui.actions.registry",
    "paytui.config.cli",
    "sniffio",
)


def zygote() -> int:
    """Fork agents on request: a JSON line on stdin (``id``, ``spec``, ``env``, ``out``,
    ``err``) → ``pid ID PID`` on stdout, and ``exit PID CODE CPU`` when that process ends (a
    negative code: the signal that ended it; CPU: its seconds of CPU time). Single-threaded,
    no event loop: safe to fork. Ends when stdin closes and its children have ended."""
    for name in WARM:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    children: set[int] = set()
    pending = b""
    reading = True
    say("ready")
    while reading or children:
        ready, _, _ = select.select([0, wake_r] if reading else [wake_r], [], [], 1.0)
        if wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                while os.read(wake_r, 4096):
                    pass
        while children:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            children.discard(pid)
            cpu = usage.ru_utime + usage.ru_stime
            say(f"exit {pid} {os.waitstatus_to_exitcode(status)} {cpu:.4f}")
        if 0 not in ready:
            continue
        data = os.read(0, 1 << 16)
        if not data:
            reading = False
            continue
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:  # the agent
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                os.close(wake_r)
                os.close(wake_w)
                code = _become(request)
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)
            children.add(pid)
            say(f"pid {request['id']} {pid}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--zygote"]:
        sys.exit(zygote())
    sys.exit(run(json.loads(sys.argv[1])))
