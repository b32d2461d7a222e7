"""`Session`: the connection in use and everything that hangs on it.

The App is the shell (screens, keys, routing, themes); the session is what it is connected to:
the profile's facts (environment, read-only, thresholds, intervals), the API client and how it
is made (a profile's factory, or the app's own embedded sandbox, spawned before the first
paint), the actions service (executor, journal, policy), the clock, and switching to another
profile's connection. Screens reach it as `app.session` (`paytui.ui.host.PaytuiHost`).

It starts work on the App (`run_worker`) and tells the person through it (`notify`): a session
belongs to one App, which owns it for its whole run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.worker import WorkerCancelled

from paytui.ui.clients import ClientFactory, client_factory_for
from paytui.ui.widgets.errors import error_detail

if TYPE_CHECKING:
    from textual.app import App

    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient, RetryWait
    from paytui.config.connection import Connection
    from paytui.config.model import UserCommand
    from paytui.sandbox.embedded import EmbeddedSandbox
    from paytui.ui.actions_service import ActionsService

__all__ = ["ClientFactory", "FactoryBuilder", "Session"]

#: Builds the client factory for a connection chosen in the profile switcher (None: the app's
#: own embedded sandbox). `launch.build_app` passes `client_factory_for`; tests pass their own.
FactoryBuilder = Callable[["Connection"], "ClientFactory | None"]

SANDBOX_STARTUP_TIMEOUT = 30.0


def default_factory_builder(connection: Connection) -> ClientFactory | None:
    """A remote profile gets `clients.client_factory_for`; the embedded sandbox the app's own."""
    if connection.is_embedded:
        return None
    return client_factory_for(connection)


class Session:
    """The connection of one App (see the module docstring)."""

    def __init__(
        self,
        app: App[Any],
        client_factory: ClientFactory | None,
        connection: Connection | None,
        *,
        clock: Callable[[], datetime] | None = None,
        factory_builder: FactoryBuilder | None = None,
        journal_path: Path | str | None = None,
        on_retry_wait: Callable[[RetryWait], None] | None = None,
        on_journal_change: Callable[[list[JournalEntry]], None] | None = None,
        sandbox_home: Session | None = None,
    ) -> None:
        self._app = app
        #: The session whose embedded sandbox this one uses (a workspace's: `sibling`), so a
        #: second workspace on the embedded sandbox starts no second child; None: its own.
        self._sandbox_home = sandbox_home
        #: This session's worker groups on the App: two workspaces connect at once without
        #: the one's exclusive "connect" cancelling the other's.
        self._group = f"connect-{id(self):x}"
        #: Told of other paytuis' journal entries as they arrive (the app's signals).
        self._on_journal_change = on_journal_change
        self._client_factory = client_factory
        self._factory_builder = factory_builder
        self._clock = clock
        self._journal_path = journal_path
        self._on_retry_wait = on_retry_wait
        self._actions: ActionsService | None = None
        self._client: PaymentClient | None = None
        self._client_future: asyncio.Future[PaymentClient] | None = None
        self._connect_started = False
        self._sandbox: EmbeddedSandbox | None = None
        self._closed = False
        #: Set by the App: connecting may start (after its first paint), and the read-back of
        #: earlier actions may run (once the first page is on screen).
        self.connect_allowed = False
        self.reconcile_allowed = False
        self.use(connection)

    # --- the profile's facts -------------------------------------------------------------------
    def use(self, connection: Connection | None) -> None:
        """Every fact other modules read comes from the connection, in this one place.

        `read_only`, `environment` and `confirm_threshold` feed the executor's `ActionPolicy`
        (`ui/actions_service.py`); `watch_interval` / `refresh_interval` the polling screens.
        """
        self.connection = connection
        #: The team's own commands (`[[commands]]`: `paytui.ui.user_commands`).
        self.commands: tuple[UserCommand, ...] = connection.commands if connection else ()
        #: The lines already said about the commands (a key taken), said once a session.
        self.commands_said: set[str] = set()
        self.confirm_threshold: Decimal | None
        self.ca_bundle: str | None
        self.base_url: str | None
        self.default_account_id: str | None
        if connection is None:  # the embedded sandbox, with the defaults of `UiPrefs`
            self.environment = "sandbox"
            self.profile_name = "sandbox (embedded)"
            self.read_only = False
            self.confirm_threshold = None
            self.default_account_id = None
            self.watch_interval = 5.0
            self.refresh_interval = 30.0
            self.duplicate_window = timedelta(minutes=10)  # `UiPrefs.duplicate_window_minutes`
            self.insecure = False
            self.ca_bundle = None
            self.base_url = None
            return
        self.environment = connection.environment
        self.profile_name = connection.display_name
        self.read_only = connection.read_only
        self.confirm_threshold = connection.confirm_threshold
        self.default_account_id = connection.account_id
        self.watch_interval = float(connection.ui.watch_interval)
        self.refresh_interval = float(connection.ui.refresh_interval)
        #: "Charged twice?": how far apart a likely duplicate may be (`paytui.duplicates`).
        self.duplicate_window = timedelta(minutes=float(connection.ui.duplicate_window_minutes))
        self.insecure = connection.insecure
        self.ca_bundle = connection.verify if isinstance(connection.verify, str) else None
        self.base_url = connection.base_url
        self._register_secrets(connection)

    @staticmethod
    def _register_secrets(connection: Connection) -> None:
        from paytui.logs import register_secret

        for secret in connection.secret_values():
            register_secret(secret)

    @property
    def config_file(self) -> Path | None:
        return getattr(self.connection, "config_path", None)

    # --- clock and actions -------------------------------------------------------------------
    def now(self) -> datetime:
        """The session's clock (frozen in snapshot tests so ages and dates do not drift)."""
        return self._clock() if self._clock is not None else datetime.now(UTC)

    @property
    def actions_if_built(self) -> ActionsService | None:
        """The `ActionsService` if something built it already (no import, no building)."""
        return self._actions

    @property
    def actions(self) -> ActionsService:
        """The `ActionsService` (executor, journal, policy); built on first use (lazy import)."""
        if self._actions is None:
            from paytui.ui.actions_service import ActionsService

            self._actions = ActionsService(self, journal_path=self._journal_path)
        return self._actions

    async def actions_imported(self) -> ActionsService:
        """The `ActionsService`, as `actions`; the first time, its modules (the executor, the
        journal, the table of operations: 100-400 ms of imports) are imported in a thread, so
        a screen's first read does not hold the event loop for them. Workers only."""
        if self._actions is None:
            import importlib

            await asyncio.to_thread(importlib.import_module, "paytui.ui.actions_service")
        return self.actions

    def money_action_in_flight(self) -> bool:
        """True while the executor is sending something: its client must not be closed now."""
        return self._actions is not None and self._actions.any_in_flight()

    # --- the client --------------------------------------------------------------------------
    @property
    def connected_client(self) -> PaymentClient | None:
        """The client if already connected (for synchronous checks such as granted scopes)."""
        return self._client

    async def get_client(self) -> PaymentClient:
        """The API client, once connected. Call from workers only: it may wait for the connection.

        The factory runs once; if it failed, the next call tries again (that is what retry means
        on a screen whose first load failed because the sandbox or the network was not there).
        """
        if self._client is not None:
            return self._client
        future = self._client_future
        if future is None or (
            future.done() and (future.cancelled() or future.exception() is not None)
        ):
            future = self._client_future = asyncio.get_running_loop().create_future()
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
            self._connect_started = False
            if self.connect_allowed:
                self.start_connect()
        return await asyncio.shield(future)

    def start_connect(self) -> None:
        if self._connect_started:
            return
        if self._client_future is None:
            self._client_future = asyncio.get_running_loop().create_future()
            self._client_future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._connect_started = True
        self._app.run_worker(
            self._connect(self._client_future),
            group=self._group,
            exclusive=True,
            exit_on_error=False,
        )

    async def _connect(self, future: asyncio.Future[PaymentClient]) -> None:
        try:
            if self._client_factory is not None:
                client = await self._client_factory()
            else:
                client = await self._embedded_client()
        except asyncio.CancelledError:
            # Superseded (a profile switch) or the app is exiting: the waiters are cancelled
            # with it. A failure would be reported by each of them (an export, a list read),
            # and was: an empty `RuntimeError`, then `WorkerCancelled`.
            future.cancel()
            raise
        except BaseException as exc:  # the waiters report it; the app keeps running
            if not future.done():
                future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            if not isinstance(exc, Exception):
                raise
            return
        self._client = client
        if self._on_retry_wait is not None:
            client.on_wait = self._on_retry_wait
        if not future.done():
            future.set_result(client)
        if self.reconcile_allowed:
            self.start_reconcile()
        # else: once the first page is on screen (`allow_reconcile`): the journal, the executor
        # and the read-back of earlier actions are not part of the first page. A money action
        # asked for before then builds the executor itself, which settles the past first.

    def allow_reconcile(self) -> None:
        """The first page is on screen: the read-back of earlier actions may run now."""
        self.reconcile_allowed = True
        if self._client is not None:
            self.start_reconcile()

    def start_reconcile(self) -> None:
        self._app.run_worker(self._reconcile_on_start(), group="reconcile", exit_on_error=False)

    async def _reconcile_on_start(self) -> None:
        """Settle the journal's unresolved actions (a crash, a lost answer) after connecting.
        The executor's modules are imported in a thread (`actions_imported`): on the loop, they
        held it for 100-400 ms just after the first page, as the first keys arrive."""
        app = self._app
        try:
            resolved = await (await self.actions_imported()).reconcile_on_start()
        except Exception as exc:
            journal_error = self.actions.journal_error
            app.notify(
                journal_error or f"Could not check earlier actions: {error_detail(exc)}",
                title="Money actions off" if journal_error else "History",
                severity="warning",
                markup=False,
            )
            with contextlib.suppress(Exception):
                app.screen.refresh_bindings()
            return
        # Other paytuis on the same journal (the team's, the command line) are followed from now.
        if self._on_journal_change is not None:
            self.actions.watch(app, self._on_journal_change)
        # The token's scopes are known now: grey out what it cannot do on the current screen.
        with contextlib.suppress(Exception):
            app.screen.refresh_bindings()
        if resolved:
            plural = "action was" if resolved == 1 else "actions were"
            app.notify(
                f"{resolved} unresolved {plural} resolved: see History (5)",
                title="History",
                markup=False,
            )

    # --- the embedded sandbox ----------------------------------------------------------------
    def spawn_sandbox_early(self) -> None:
        """Before the first paint: start the app's own sandbox child (when it is the backend),
        so its start overlaps the building of the first screen."""
        if self._client_factory is None:
            try:
                self._spawn_sandbox()
            except OSError:  # reported by the connection worker, which tries again
                self._sandbox = None

    async def _embedded_client(self) -> PaymentClient:
        """Connect to the embedded sandbox (a child process on a private socket).

        The child was spawned before the first paint, so it starts FastAPI on the other core
        while this process paints; the thread worker waits for it and meanwhile imports the
        client (httpx, pydantic) off the event loop.
        """
        worker = self._app.run_worker(
            self._wait_for_sandbox, thread=True, group="sandbox", exit_on_error=False
        )
        try:
            await worker.wait()
        except WorkerCancelled:
            # `Worker.wait` awaits the worker's task, so cancelling this connection (a profile
            # switch cancels the "connect" group) cancels that task too, and `wait` reports it as
            # `WorkerCancelled`, an `Exception`: it was taken for a failed connection, and an
            # export waiting for the client ended the app (the UI fuzz). It is a cancellation.
            raise asyncio.CancelledError from None
        from paytui.connect import embedded_client

        return embedded_client(self._spawn_sandbox())  # started by `_wait_for_sandbox`

    def _spawn_sandbox(self) -> EmbeddedSandbox:
        """Start the child process (returns at once; stdlib-only import, no FastAPI here)."""
        if self._sandbox_home is not None:
            return self._sandbox_home._spawn_sandbox()
        if self._sandbox is None:
            from paytui.sandbox.embedded import EmbeddedSandbox

            self._sandbox = EmbeddedSandbox.start(keep_warm=False)  # ours alone: stopped on exit
        return self._sandbox

    def _wait_for_sandbox(self) -> None:
        """Blocking: runs in a thread worker so the UI keeps painting while the child starts."""
        sandbox = self._spawn_sandbox()
        import httpx  # noqa: F401  (warm the imports while the child starts)

        import paytui.api.client  # noqa: F401

        sandbox.wait_ready(SANDBOX_STARTUP_TIMEOUT)

    # --- switching and closing ---------------------------------------------------------------
    def switch_to(self, connection: Connection) -> PaymentClient | None:
        """Make `connection` the session's: its facts and its client factory; whoever waits for
        the old client waits no more. Returns the old client, for the caller to close once the
        screens that used it are gone; `start_connect` connects anew."""
        builder = self._factory_builder or default_factory_builder
        factory = builder(connection)
        old_client = self._client
        self._app.workers.cancel_group(self._app, self._group)
        if self._client_future is not None:
            # Whoever waits for the old profile's client (a list read, an export) waits no more:
            # cancelled, as their screens are about to be.
            self._client_future.cancel()
        self.use(connection)
        self._client_factory = factory
        self._client = None
        self._client_future = None
        self._connect_started = False
        return old_client

    def sibling(self, connection: Connection) -> Session:
        """A new session on `connection` for another workspace of the same App: the same
        clock, factory builder, journal path and callbacks, and the same embedded sandbox (one
        child a process). A journal file two sessions use is one connection
        (`journal_store.open_sqlite`)."""
        builder = self._factory_builder or default_factory_builder
        other = Session(
            self._app,
            builder(connection),
            connection,
            clock=self._clock,
            factory_builder=self._factory_builder,
            journal_path=self._journal_path,
            on_retry_wait=self._on_retry_wait,
            on_journal_change=self._on_journal_change,
            sandbox_home=self._sandbox_home or self,
        )
        other.connect_allowed = self.connect_allowed
        other.reconcile_allowed = self.reconcile_allowed
        return other

    @property
    def journal_location(self) -> str:
        """Where this session's journal is (`journal_location`): two sessions on one location
        write one journal under one owner (this process)."""
        return journal_location(self._journal_path, self.connection)

    def journal_location_of(self, connection: Connection) -> str:
        """Where this session's journal would be on `connection` (a profile switch to one
        elsewhere needs a session of its own: `PaytuiApp._apply_connection`)."""
        return journal_location(self._journal_path, connection)

    async def aclose(self, *, keep_sandbox: bool = False, leave: bool = True) -> None:
        """On exit: the executor's actions journaled, the client closed, our sandbox stopped
        (kept with `keep_sandbox`: a closed workspace's session whose sandbox others use).
        `leave` False: this process's claims and presence stay on the journal (another
        session open on the same journal: `ActionsService.aclose`). Closing twice closes once
        (the sandbox kept, it is stopped by a later call)."""
        if not self._closed:
            self._closed = True
            if self._actions is not None:
                await self._actions.aclose(leave=leave)
            if self._client is not None:
                with contextlib.suppress(Exception):
                    await self._client.aclose()
        if self._sandbox is not None and not keep_sandbox:
            sandbox, self._sandbox = self._sandbox, None
            with contextlib.suppress(Exception):
                sandbox.stop()


def journal_location(journal_path: Path | str | None, connection: Connection | None) -> str:
    """One spelling per journal: a team's URL as it is; a file (``sqlite:PATH``, ``~/x``, a
    relative path, or none: the default place) as its absolute path, so "" and the default
    file's own path name one journal, as do ``./j.sqlite3`` and its absolute path."""
    from paytui.actions.journal import default_journal_path, is_team_url

    location = journal_path or getattr(connection, "journal", None) or None
    if is_team_url(location):
        return str(location)
    if isinstance(location, str):
        location = location.removeprefix("sqlite:")
    path = Path(location).expanduser() if location else default_journal_path()
    return str(path.resolve())
