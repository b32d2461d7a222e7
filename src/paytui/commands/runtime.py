"""What every `paytui charges|refunds|tokens|accounts|history|journal|export` command shares.

- **Exit codes** by error class (`Exit`, the one table; docs/cli.md prints it) and `exit_code_of`,
  which maps any exception to one of them.
- **Streams**: data goes to `out`, every message and error to `err` (`Io`), so
  ``paytui charges search ... > file`` holds data only.
- **The connection** as the app resolves it (`--profile`, `--base-url`, the ``PAYTUI_*``
  variables, the config file, else the embedded sandbox), the same client
  (`paytui.connect`), and the same journal and executor: the exactly-once rule is the app's.
- **Confirmation**: never a prompt without a terminal on stdin; production needs the typed
  amount, or ``--yes`` with an explicit ``--confirm AMOUNT``.

No Textual here (the command line must start fast and run where there is no terminal at all).
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from paytui.console import say

if TYPE_CHECKING:
    import http.client
    from datetime import datetime

    from pydantic import SecretStr

    from paytui.actions.executor import ActionExecutor
    from paytui.actions.journal import Journal
    from paytui.api.client import PaymentClient
    from paytui.api.plain import PlainReader
    from paytui.config.connection import Connection
    from paytui.config.environment import PlainService
    from paytui.config.store import LoadResult
    from paytui.sandbox.embedded import EmbeddedSandbox

__all__ = [
    "CommandError",
    "Exit",
    "Io",
    "Runtime",
    "exit_code_of",
]


class Exit(enum.IntEnum):
    """Exit codes of the command line, by error class (docs/cli.md has the same table)."""

    OK = 0
    INTERNAL = 1
    """A bug: one line on stderr, never a traceback."""
    USAGE = 2
    """Bad arguments: an unknown option, a query that does not parse, a bad amount or column."""
    CONFIG = 3
    """The profile, config file, keyring or journal cannot be used; the sandbox cannot start."""
    NOT_ALLOWED = 4
    """Authentication failed, a scope is missing, the profile is read-only (401/403)."""
    NOT_FOUND = 5
    """No such charge, token, account (404)."""
    REFUSED = 6
    """The service refused (a 4xx; final), or the action does not apply to this object."""
    UNKNOWN_OUTCOME = 7
    """A money action was sent and its outcome is not proven: do not repeat it; see history."""
    EARLIER_ATTEMPT = 8
    """Nothing sent: an earlier attempt is unsettled, in flight elsewhere, or did happen."""
    NEEDS_CONFIRMATION = 9
    """Nothing sent: no terminal to confirm on and no --yes, or production without --confirm."""
    UNAVAILABLE = 10
    """The service could not be reached, timed out, or was busy (5xx, 429)."""
    UNPROVEN = 11
    """A list was printed, but some rows cannot show they match its filters, or the service
    ignored the sort: the line on stderr says which (`Page.unproven`, `Page.sort_ignored`)."""
    INCOMPLETE = 12
    """A list was printed, but it stopped before its end: the service ignored paging (sent the
    same rows again) or its next-page link pointed elsewhere; the line on stderr says which
    (`Page.paging_note`). The rows printed are right, once each; more may exist."""
    AWAITING_SERVICE = 13
    """A money action the service accepted and has not finished (it answered pending, or
    202): nothing moved yet and it must not be repeated; `paytui history check` follows it."""
    WOULD_BE_REFUSED = 14
    """`evidence --check`: the pack lacks an item its reason requires, or breaks a submission
    limit (files, bytes, pages, characters): the acquirer would refuse it."""
    AWAITING_APPROVAL = 15
    """Four eyes: nothing sent; the refund or capture is above the profile's `approve_above`
    and waits as a request (its id on stderr) for another agent: `paytui approvals`."""
    INTERRUPTED = 130
    """Ctrl-C, or an export cancelled."""


class CommandError(Exception):
    """A mistake or refusal to report as one line with its exit code."""

    def __init__(self, message: str, code: Exit = Exit.USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def exit_code_of(exc: BaseException) -> Exit:
    """The exit code of an error of any layer (config, API, actions, export)."""
    from paytui.actions import errors as action_errors
    from paytui.api import errors as api
    from paytui.config.secrets import SecretStoreError
    from paytui.config.store import ConfigError
    from paytui.config.urls import UrlPolicyError

    if isinstance(exc, CommandError):
        return exc.code
    from paytui.actions.journal_approvals import ApprovalRefused, ApprovalRequired

    if isinstance(exc, ApprovalRequired):
        return Exit.AWAITING_APPROVAL
    if isinstance(exc, ApprovalRefused):
        return Exit.REFUSED  # the requester's own, decided already, rejected, void: final
    if isinstance(exc, ConfigError | SecretStoreError | UrlPolicyError):
        return Exit.CONFIG
    if isinstance(exc, action_errors.ActionRefused):
        return Exit.NOT_ALLOWED
    if isinstance(exc, action_errors.ConfirmationRequired):
        return Exit.NEEDS_CONFIRMATION
    if isinstance(
        exc,
        action_errors.UnresolvedAction
        | action_errors.EarlierAttemptApplied
        | action_errors.TargetChanged
        | action_errors.RecentlyDone,
    ):
        return Exit.EARLIER_ATTEMPT
    if isinstance(exc, action_errors.ActionInFlight):
        return Exit.EARLIER_ATTEMPT
    if isinstance(exc, action_errors.JournalLost):
        return Exit.UNKNOWN_OUTCOME  # it was sent: repeating it could do it twice
    if isinstance(exc, action_errors.PrecheckFailed | action_errors.NotRetryable):
        cause = exc.__cause__
        return exit_code_of(cause) if isinstance(cause, api.ApiError) else Exit.REFUSED
    if isinstance(exc, action_errors.ActionError):
        return Exit.USAGE  # an amount or field the checks refused
    if isinstance(exc, api.AuthenticationError | api.ForbiddenError):
        return Exit.NOT_ALLOWED
    if isinstance(exc, api.NotFoundError):
        return Exit.NOT_FOUND
    if isinstance(exc, api.TransportError | api.ServerError | api.RateLimitedError):
        return Exit.UNAVAILABLE
    if isinstance(exc, api.ApiError):
        return Exit.REFUSED
    if isinstance(exc, KeyboardInterrupt):
        return Exit.INTERRUPTED
    return Exit.INTERNAL


def way_forward(exc: BaseException, argv: Sequence[str]) -> str | None:
    """The error's line for a script, when the state it leaves has a next step to name: what
    to type, exactly (docs/cli.md, "Exit codes"). None: the error's own line says it all.

    - an earlier attempt found done (`EarlierAttemptApplied`, exit 8): the same command with
      ``--acknowledge ENTRY`` — naming the entry is the acknowledgement that it was seen;
    - an earlier attempt still unknown, or in flight elsewhere (`UnresolvedAction`, exit 8):
      ``paytui history check ENTRY``, then the command again;
    - the charge changed since the command read it (`TargetChanged`, exit 8): run it again;
    - sent, but the journal went away before its outcome was written (`JournalLost`, exit 7):
      do not repeat it; ``paytui history check ENTRY`` once the journal answers."""
    import shlex

    from paytui.actions import errors as action_errors

    if isinstance(exc, action_errors.EarlierAttemptApplied):
        from paytui.actions.who_did_what import earlier_message

        entry = exc.entry.id
        if not acknowledging(argv):
            return None
        words = without_option(argv, "--acknowledge")
        typed = shlex.join(["paytui", *words, "--acknowledge", str(entry)])
        then = f"to send another anyway, run `{typed}`"
        if isinstance(exc, action_errors.NotAppliedSoFar):
            return exc.with_then(then)
        return earlier_message(exc.entry, then, numbered=True)
    if isinstance(exc, action_errors.UnresolvedAction):
        check = f"`paytui history check {exc.entry_id}`"
        return (
            f"{exc.message}. {check} reads it back (waiting out a request still in flight);"
            " then run this command again."
        )
    if isinstance(exc, action_errors.TargetChanged):
        return (
            f"{exc.message.removesuffix(' Review it again.')} Run the command again: it reads"
            " the charge as it is now (and names anything still in the way)."
        )
    if isinstance(exc, action_errors.JournalLost) and exc.entry_id is not None:
        return (
            f"{exc.message} Do not repeat it: once the journal answers,"
            f" `paytui history check {exc.entry_id}` reads its outcome from the service."
        )
    return None


def acknowledging(argv: Sequence[str]) -> bool:
    """`argv` runs a command that takes ``--acknowledge ENTRY``: a verb of the operations table,
    every journaled action's (the table read only here, once a journaled action answered)."""
    words = tuple(argv[:2])
    from paytui.commands.verbs import table_verbs

    return any(tuple(spec.command.words.split()) == words for spec in table_verbs() if spec.command)


def without_option(argv: Sequence[str], name: str) -> list[str]:
    """`argv` without `name VALUE` / `name=VALUE`."""
    words: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == name:
            skip = True
        elif not word.startswith(f"{name}="):
            words.append(word)
    return words


def entry_number(text: str) -> int:
    """An entry as typed (`12` or `#12`), for argparse: a bad one is a usage error."""
    try:
        value = int(text.strip().removeprefix("#"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an entry number (12 or #12)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not an entry number (12 or #12)")
    return value


@dataclass
class Io:
    """The three streams (tests pass their own). `interactive`: stdin is a terminal."""

    out: IO[str] = field(default_factory=lambda: sys.stdout)
    err: IO[str] = field(default_factory=lambda: sys.stderr)
    inp: IO[str] = field(default_factory=lambda: sys.stdin)
    interactive: bool | None = None
    fmt: str | None = None
    """The ``--format`` asked (`contract.requested_format`): an error is a JSON object on
    stderr with ``json`` and ``jsonl``, else a line (docs/cli.md, "The output contract")."""

    def __post_init__(self) -> None:
        if self.interactive is None:
            isatty = getattr(self.inp, "isatty", None)
            self.interactive = bool(isatty and isatty())

    def message(self, text: str) -> None:
        """One line for people, on stderr (sanitised)."""
        say(text, file=self.err, flush=True)

    def error(self, message: str, code: int, exc: BaseException | None = None) -> None:
        """The command's error, on stderr, in the format asked (`contract.error_text`)."""
        from paytui.commands.contract import error_text

        if self.fmt in ("json", "jsonl"):
            self.err.write(error_text(message, code, self.fmt, exc) + "\n")
            self.err.flush()
        else:
            self.message(error_text(message, code, self.fmt, exc))

    def ask(self, prompt: str) -> str:
        """A line typed at the terminal (only called when `interactive`)."""
        self.err.write(prompt)
        self.err.flush()
        line = self.inp.readline()
        if not line:
            self.err.write("\n")  # the error's line starts on a line of its own, not the prompt's
            raise CommandError("no answer (end of input)", Exit.NEEDS_CONFIRMATION)
        return line.strip()


#: Opens a client for a connection: the default starts the embedded sandbox when needed.
Connector = Callable[["Connection"], contextlib.AbstractAsyncContextManager["PaymentClient"]]


@contextlib.asynccontextmanager
async def default_connector(connection: Connection) -> AsyncIterator[PaymentClient]:
    """The client the app would use: the embedded sandbox's (kept warm, shared with the app),
    or the profile's service."""
    if connection.is_embedded:
        import asyncio

        from paytui.connect import embedded_client

        sandbox = started_sandbox()
        try:
            await asyncio.to_thread(sandbox.wait_ready, 30.0)
            async with embedded_client(sandbox) as client:
                yield client
        finally:
            sandbox.stop()
        return
    from paytui.api.client import PaymentClient
    from paytui.config import client_kwargs

    async with PaymentClient(**client_kwargs(connection)) as client:
        yield client


def started_sandbox() -> EmbeddedSandbox:
    """The embedded sandbox started, or its warm server reused (`wait_ready` before the first
    request, `stop` after the last); exit 3 when it cannot be started."""
    from paytui.sandbox.embedded import EmbeddedSandbox

    try:
        return EmbeddedSandbox.start()
    except OSError as exc:
        raise CommandError(f"cannot start the embedded sandbox: {exc}", Exit.CONFIG) from exc


def read_embedded(path: str, params: Sequence[tuple[str, str]]) -> Any:
    """``GET path`` of the embedded sandbox with the standard library (`paytui.api.plain`: the
    demo client's token, then the object, over its socket), started and let go as
    `default_connector` does, with the same errors when it cannot start or is not ready; the
    decoded body of a plain 200, else None (the client's to read then)."""
    with embedded_reader() as reader:
        return reader.get(path, params)


@contextlib.contextmanager
def embedded_reader() -> Iterator[PlainReader]:
    """The embedded sandbox read with the standard library over its socket (the demo client's
    token), started and let go as `read_embedded` does, with the same errors."""
    from urllib.parse import urlsplit

    from paytui.api.plain import DEADLINE, PlainReader, unix_connection
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    sandbox = started_sandbox()
    try:
        sandbox.wait_ready(30.0)
        base = urlsplit(sandbox.base_url)

        def connect() -> http.client.HTTPConnection:
            return unix_connection(sandbox.socket_path, base.netloc or "sandbox", DEADLINE)

        reader = PlainReader(
            connect(),
            base.path,
            credentials=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET),
            connect=connect,
        )
        try:
            yield reader
        finally:
            reader.close()
    finally:
        sandbox.stop()


@dataclass
class Runtime:
    """One command's world: its streams, connection, client, journal and executor.

    `connector` and `journal_path` are injectable (tests: the in-process sandbox, a temp
    journal). The journal is opened only by commands that act or read history."""

    io: Io
    profile: str | None = None
    base_url: str | None = None
    environ: Mapping[str, str] | None = None
    connector: Connector = default_connector
    journal_path: Path | str | None = None
    """Where the journal is instead of the connection's (a file, or a ``postgresql://`` URL)."""
    trail_profile: str | None = None
    """`history --profile NAME`: read NAME's journal (a team's, perhaps), not the connection's,
    and without logging in as NAME. A name no longer configured is read where it stands."""
    plain_begun: tuple[datetime, int] | None = None
    """An export or a streamed search begun plainly (`commands.plainly`): the moment its
    search is pinned to and the rows written, for the client to go on from."""
    _connection: Connection | None = None
    _journal: Journal | None = None
    _loaded: LoadResult | None = None
    _lease_unread: bool = False
    """The journal was opened without the connection, with the default lease, though a config
    file may set another (`journal(claims=False)`)."""

    @property
    def connection(self) -> Connection:
        if self._connection is None:
            from paytui.config import resolve_connection
            from paytui.logs import register_secret

            self._connection = resolve_connection(
                profile=self.profile,
                base_url=self.base_url,
                environ=self._environ(),
            )
            for secret in self._connection.secret_values():
                register_secret(secret)
            # What the dashboard shows as warnings (a PAYTUI_TOKEN ignored without a base URL, a
            # broken profile skipped): a script is told too, on stderr, before its data.
            for problem in self._connection.problems:
                self.io.message(f"paytui: warning: {problem}")
        return self._connection

    def client(self) -> contextlib.AbstractAsyncContextManager[PaymentClient]:
        return self.connector(self.connection)

    def journal(self, *, off: str | None = "money actions are off", claims: bool = True) -> Journal:
        """The connection's journal (a team's PostgreSQL, or this person's file), opened once.
        When it cannot be: `CommandError` (exit 3), its line prefixed with `off` (what this
        means for the command). `claims`: False when the command makes and reads no claim (the
        trail's listing), so the claims' lease, which a config file may set, is not needed:
        this person's own file is then opened without the connection whenever the config file
        cannot move it (`config.environment.own_journal`), and the lease is read only if a
        later call needs it."""
        from paytui.connect import claim_lease

        if self._journal is None:
            from paytui.actions.journal import JournalUnavailable, open_journal

            every = self._connection is None and self._every_default()
            if every or (self._connection is None and not claims and self._own_journal()):
                # This person's own file, known without resolving the connection (the
                # config's models); with every default, the default lease is the lease too.
                location, password, lease = None, None, claim_lease(None)
                self._lease_unread = not every
            else:
                location, secret = self._journal_location()
                password = secret.get_secret_value() if secret is not None else None
                lease = claim_lease(self.connection)
            try:
                self._journal = open_journal(location, password=password, claim_lease=lease)
            except JournalUnavailable as exc:
                text = f"{off}: {exc}" if off else str(exc)
                raise CommandError(text, Exit.CONFIG) from None
        if claims and self._lease_unread:
            self._journal.claim_lease = claim_lease(self.connection)
            self._lease_unread = False
        return self._journal

    def _own_journal(self) -> bool:
        if self.journal_path is not None or self.trail_profile is not None:
            return False
        from paytui.config.environment import own_journal

        return own_journal(self.profile, self.base_url, self._environ())

    def _every_default(self) -> bool:
        if self.journal_path is not None or self.trail_profile is not None:
            return False
        from paytui.config.environment import every_default

        return every_default(self.profile, self.base_url, self._environ())

    def _journal_location(self) -> tuple[Path | str | None, SecretStr | None]:
        if self.journal_path is not None:
            return self.journal_path, self.connection.journal_password
        if self.trail_profile is not None:
            from paytui.config.connection import journal_of

            found = journal_of(self.trail_profile, environ=self._environ(), loaded=self._config())
            if found is not None:
                return found
        return self.connection.journal, self.connection.journal_password

    def trail_name(self) -> str | None:
        """The name `trail_profile`'s actions are recorded under (`recorded_name`: the embedded
        sandbox's display name for `sandbox`); the config is read once for it and the journal."""
        if self.trail_profile is None:
            return None
        from paytui.config.connection import recorded_name

        return recorded_name(self.trail_profile, environ=self._environ(), loaded=self._config())

    def plainly_connected(self) -> bool:
        """The connection is the default one (no connector of a test's), and not resolved yet."""
        return self.connector is default_connector and self._connection is None

    def plain_read(self, path: str, params: Sequence[tuple[str, str]] = ()) -> Any:
        """``GET path`` (escaped) read with the standard library when the connection is plainly
        known without the config's models: a service the command line and the environment
        alone name (`plain_service`), or the embedded sandbox with every default
        (`read_embedded`). The decoded body of a plain 200; None in every other case (the
        client's to read, with its errors)."""
        if not self.plainly_connected():
            return None
        service = self.plain_service()
        if service is not None:
            from paytui.api.plain import plain_get

            return plain_get(service, path, params)
        if self._every_default():
            return read_embedded(path, params)
        return None

    @contextlib.contextmanager
    def plain_reader(self) -> Iterator[PlainReader | None]:
        """A reader of several objects with the standard library (`api.plain.PlainReader`),
        when the connection is plainly known as for `plain_read`; None in every other case."""
        if not self.plainly_connected():
            yield None
            return
        service = self.plain_service()
        if service is not None:
            from paytui.api.plain import plain_reader

            reader = plain_reader(service)
        elif self._every_default():
            with embedded_reader() as reader:
                yield reader
            return
        else:
            reader = None
        try:
            yield reader
        finally:
            if reader is not None:
                reader.close()

    def plain_service(self) -> PlainService | None:
        """The service when the command line and the environment alone name it
        (`config.environment.plain_service`), its secrets scrubbed from every log and error
        from now on, as `connection` does; None: the connection is `connection`'s to resolve."""
        from paytui.config.environment import plain_service

        if self.journal_path is not None or self.trail_profile is not None:
            return None
        service = plain_service(self.profile, self.base_url, self._environ())
        if service is not None:
            from paytui.logs import register_secret

            for secret in service.secret_values():
                register_secret(secret)
        return service

    def _environ(self) -> Mapping[str, str]:
        import os

        return self.environ if self.environ is not None else os.environ

    def _config(self) -> LoadResult:
        if self._loaded is None:
            from paytui.config.store import load_config

            self._loaded = load_config()
        return self._loaded

    async def executor(self, client: PaymentClient) -> ActionExecutor:
        """The app's executor on the app's journal: same profile name, service and policy."""
        from paytui.actions.actor import actor_name
        from paytui.actions.executor import ActionExecutor
        from paytui.actions.policy import ActionPolicy
        from paytui.connect import acting_client_id, again_window, approve_above, late_window

        connection = self.connection
        with contextlib.suppress(Exception):  # learn the scopes; a bad login shows on the action
            await client.authenticate()
        scopes = client.granted_scopes
        policy = ActionPolicy(
            granted_scopes=frozenset(scopes) if scopes is not None else None,
            read_only=connection.read_only,
            environment=connection.environment,
            confirm_threshold=connection.confirm_threshold,
        )
        return ActionExecutor(
            client,
            self.journal(),
            policy,
            profile=connection.display_name,
            base_url=str(client.base_url),
            client_id=acting_client_id(connection),
            actor=actor_name("the command line", connection.agent),
            agent=connection.agent,
            again_window=again_window(connection),
            late_window=late_window(connection),
            approve_above=approve_above(connection),
        )

    def close(self) -> None:
        if self._journal is not None:
            from paytui.actions.journal_anchor import Anchor

            # The trail's head as this command left it, kept outside the database (a second
            # witness: `history verify` compares). Never a reason to fail.
            with contextlib.suppress(Exception):
                self._journal.remember_head(Anchor())
            self._journal.close()

    # --- confirmation ------------------------------------------------------------------------
    def confirm(
        self,
        what: str,
        amount: Decimal | None,
        *,
        yes: bool,
        confirm: str | None,
        needs_typed: bool,
        phrase: str,
    ) -> str | None:
        """Ask (or check the flags) before a money action; returns the typed confirmation for
        the executor, or raises `CommandError` (exit 9) when it cannot be given.

        Production above the threshold: ``--yes --confirm AMOUNT``, or the amount typed at the
        terminal. Elsewhere: ``--yes``, or "y" at the terminal. Without a terminal on stdin it
        never asks."""
        if needs_typed:
            if confirm is not None:
                if not yes:
                    raise CommandError(
                        "--confirm goes with --yes (or leave both out and type it when asked)",
                        Exit.USAGE,
                    )
                return confirm
            if yes:
                raise CommandError(
                    f"production: {what} needs --confirm {phrase} with --yes",
                    Exit.NEEDS_CONFIRMATION,
                )
            if not self.io.interactive:
                raise CommandError(
                    f"production: {what} needs typed confirmation and stdin is not a terminal;"
                    f" pass --yes --confirm {phrase}",
                    Exit.NEEDS_CONFIRMATION,
                )
            return self.io.ask(f"{what} on PRODUCTION. Type {phrase} to confirm: ")
        if yes:
            return confirm
        if not self.io.interactive:
            raise CommandError(
                f"{what}: stdin is not a terminal, so nothing is asked; pass --yes to go ahead",
                Exit.NEEDS_CONFIRMATION,
            )
        answer = self.io.ask(f"{what}? [y/N] ")
        if answer.lower() not in {"y", "yes"}:
            raise CommandError("not confirmed: nothing sent", Exit.NEEDS_CONFIRMATION)
        return confirm
