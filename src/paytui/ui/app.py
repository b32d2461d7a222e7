"""`PaytuiApp`: the App only. Global bindings, command palette provider, theme, routing, client.

Screens live in `ui/screens/` and are imported lazily (only the charge search is needed for the
first paint; start-up time is budgeted). The API client is built by `client_factory`, awaited once
in a worker after the first paint, so the shell shows immediately while the connection is made.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.reactive import reactive
from textual.screen import Screen

from paytui.ui import bindings as keys
from paytui.ui import messages
from paytui.ui.screens.charges import ChargeSearchScreen

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

ClientFactory = Callable[[], Awaitable["PaymentClient"]]

#: (mode name, title, one-line help) of every top-level screen, in key order `1`..`5`.
SCREENS: tuple[tuple[str, str, str], ...] = (
    ("charges", "Charges", "Search charges: chargebacks, ACH returns, open authorizations"),
    ("tokens", "Tokens", "Stored card tokens"),
    ("accounts", "Accounts", "Merchant accounts and their boarding status"),
    ("distributions", "Distributions", "Payouts to merchant accounts"),
    ("history", "History", "What you did in this session"),
)

SANDBOX_STARTUP_TIMEOUT = 30.0


def _placeholder(title: str, blurb: str) -> Callable[[], Screen[Any]]:
    """A factory for a "coming soon" screen; imported only when the user goes there."""

    def build() -> Screen[Any]:
        from paytui.ui.screens.placeholder import PlaceholderScreen

        return PlaceholderScreen(title, blurb)

    return build


class PaytuiCommands(Provider):
    """Command palette: every screen by name, plus every action of the screen it was opened on.

    The actions are read from the live bindings (keymap applied), so a screen added later shows up
    here without touching this class, and the palette never offers an action the screen disabled.
    """

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        commands: list[tuple[str, str, Callable[[], object]]] = [
            (f"Go to {title}", blurb, partial(app.run_action, f"goto('{mode}')"))
            for mode, title, blurb in SCREENS
        ]
        commands.append(("Help: keys", "Every key on this screen", partial(app.run_action, "help")))
        seen = {"help", "quit", "back", "command_palette"}
        for live in keys.live_bindings(self.screen):
            action = live.binding.action.removeprefix("app.")
            if action in seen or action.startswith("goto(") or not live.enabled:
                continue
            seen.add(action)
            name = f"{live.scope}: {live.binding.description} ({live.key_display})"
            commands.append(
                (
                    name,
                    live.binding.tooltip,
                    partial(app.run_action, live.binding.action, live.namespace),
                )
            )
        return commands

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)


class PaytuiApp(App[None]):
    """The paytui dashboard. `PaytuiApp()` runs on the embedded sandbox."""

    TITLE = "paytui"
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere work
    BINDINGS: ClassVar = keys.GLOBAL_BINDINGS
    COMMANDS = App.COMMANDS | {PaytuiCommands}
    MODES: ClassVar = {
        "charges": ChargeSearchScreen,
        **{mode: _placeholder(title, blurb) for mode, title, blurb in SCREENS[1:]},
    }
    DEFAULT_MODE = "charges"

    account_in_focus: reactive[str | None] = reactive(None)
    """The account the user is looking at (the highlighted charge's); the header shows it."""

    def __init__(
        self,
        client_factory: ClientFactory | None = None,
        *,
        environment: str = "sandbox",
        profile_name: str = "sandbox (embedded)",
        clock: Callable[[], datetime] | None = None,
        keymap: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.environment = environment
        self.profile_name = profile_name
        self._client_factory = client_factory
        self._clock = clock
        self._client: PaymentClient | None = None
        self._client_future: asyncio.Future[PaymentClient] | None = None
        self._connect_started = False
        self._first_paint_done = False
        self._sandbox: Any = None
        self.keymap_config: dict[str, str] = dict(keymap or {})
        if self.keymap_config:
            self.set_keymap(self.keymap_config)

    # --- clock and client -------------------------------------------------------------------
    def now(self) -> datetime:
        """The app's clock (frozen in snapshot tests so ages and dates do not drift)."""
        return self._clock() if self._clock is not None else datetime.now(UTC)

    async def get_client(self) -> PaymentClient:
        """The API client, once connected. Call from workers only: it may wait for the connection.

        The factory runs once; if it failed, the next call tries again (that is what retry means
        on a screen whose first load failed because the sandbox or the network was not there).
        """
        if self._client is not None:
            return self._client
        future = self._client_future
        if future is None or (future.done() and future.exception() is not None):
            future = self._client_future = asyncio.get_running_loop().create_future()
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
            self._connect_started = False
            if self._first_paint_done:
                self._start_connect()
        return await asyncio.shield(future)

    def _start_connect(self) -> None:
        if self._connect_started:
            return
        if self._client_future is None:
            self._client_future = asyncio.get_running_loop().create_future()
            self._client_future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._connect_started = True
        self.run_worker(
            self._connect(self._client_future), group="connect", exclusive=True, exit_on_error=False
        )

    async def _connect(self, future: asyncio.Future[PaymentClient]) -> None:
        try:
            if self._client_factory is not None:
                client = await self._client_factory()
            else:
                client = await self._embedded_client()
        except BaseException as exc:  # the waiters report it; the app keeps running
            if not future.done():
                future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            if not isinstance(exc, Exception):
                raise
            return
        self._client = client
        if not future.done():
            future.set_result(client)

    async def _embedded_client(self) -> PaymentClient:
        """Connect to the embedded sandbox (a child process on a private socket).

        The child was spawned in `on_load`, before the first paint, so it starts FastAPI on the
        other core while this process paints; the thread worker waits for it and meanwhile
        imports the client (httpx, pydantic) off the event loop.
        """
        worker = self.run_worker(
            self._wait_for_sandbox, thread=True, group="sandbox", exit_on_error=False
        )
        await worker.wait()
        import httpx

        from paytui.api.client import PaymentClient

        return PaymentClient(
            "http://sandbox",
            client_id="paytui-demo",
            client_secret="paytui-demo-secret",
            transport=httpx.AsyncHTTPTransport(uds=str(self._sandbox.socket_path)),
        )

    def _spawn_sandbox(self) -> None:
        """Start the child process (returns at once; stdlib-only import, no FastAPI here)."""
        if self._sandbox is None:
            from paytui.sandbox.embedded import EmbeddedSandbox

            self._sandbox = EmbeddedSandbox.start()

    def _wait_for_sandbox(self) -> None:
        """Blocking: runs in a thread worker so the UI keeps painting while the child starts."""
        self._spawn_sandbox()
        import httpx  # noqa: F401  (warm the imports while the child starts)

        import paytui.api.client  # noqa: F401

        self._sandbox.wait_ready(SANDBOX_STARTUP_TIMEOUT)

    async def on_unmount(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
        if self._sandbox is not None:
            with contextlib.suppress(Exception):
                self._sandbox.stop()

    # --- lifecycle ------------------------------------------------------------------------------
    def on_load(self) -> None:
        """Before the first paint: spawn the embedded sandbox now, so its start overlaps ours."""
        if self._client_factory is None:
            try:
                self._spawn_sandbox()
            except OSError:  # reported by the connection worker, which tries again
                self._sandbox = None

    def on_mount(self) -> None:
        unknown = keys.unknown_keymap_ids(self.keymap_config)
        if unknown:
            self.notify(
                "Unknown ids in [keymap]: " + ", ".join(unknown),
                title="Keymap",
                severity="warning",
                markup=False,
            )
        self.call_after_refresh(self._after_first_paint)

    def _after_first_paint(self) -> None:
        self._first_paint_done = True
        self._start_connect()

    # --- routing --------------------------------------------------------------------------------
    def action_goto(self, mode: str) -> None:
        """Jump to a top-level screen; each keeps its own stack, so coming back restores it."""
        if mode in self._modes and mode != self.current_mode:
            self.switch_mode(mode)

    def action_back(self) -> None:
        """Close the screen on top; from a top-level screen other than charges, go to charges."""
        if len(self.screen_stack) > 1:
            self.pop_screen()
        elif self.current_mode != "charges":
            self.switch_mode("charges")

    def action_help(self) -> None:
        from paytui.ui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(keys.live_bindings(self.screen)))

    def on_open_charge(self, message: messages.OpenCharge) -> None:
        """Open a charge's detail over the current screen (escape comes back to the same row)."""
        message.stop()
        try:
            from paytui.ui.screens.charge_detail import ChargeDetailScreen
        except ImportError:
            from paytui.ui.screens.placeholder import PlaceholderScreen

            self.push_screen(
                PlaceholderScreen(
                    "Charge detail",
                    f"Charge {message.charge_id}: the detail screen is coming soon.",
                )
            )
            return
        self.push_screen(ChargeDetailScreen(message.charge_id))

    def on_account_in_focus(self, message: messages.AccountInFocus) -> None:
        message.stop()
        self.account_in_focus = message.account_id
