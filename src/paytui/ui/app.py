"""`PaytuiApp`: the shell. Global bindings, the action gate, themes, routing, start-up order.

The connection and all that hangs on it is the session's (`ui/session.py`); screens see the App
as `PaytuiHost` (`ui/host.py`); the palette's entries are `ui/palette_commands.py`; the
top-level screens are declared in `ui/top_screens.py` and imported lazily (only the charge
search is needed for the first paint; start-up time is budgeted). The client is awaited once in
a worker after the first paint, so the shell shows immediately while the connection is made.

Why one module of more than 800 lines: the App's own actions (the power tools: jump, copy as curl,
the theme; profile switch; the action gate) are Textual actions of the App, found by name on the
App by bindings, the palette and `check_action`; they share the shell's routing and start-up state.
The session, the host, the palette's entries and the top screens already live beside it. Move a
power tool out when it gains state of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from rich.text import Text
from textual import events
from textual.actions import ActionParseResult
from textual.actions import parse as parse_action
from textual.app import App
from textual.binding import BindingType
from textual.screen import Screen
from textual.widget import AwaitMount
from textual.worker import NoActiveWorker, Worker, WorkType, get_current_worker

from paytui import collector
from paytui.actions.registry import spec_for
from paytui.collector import RESUME_AFTER, resume_collector
from paytui.text import safe, safe_lines
from paytui.ui import bindings as keys
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.host import PaytuiHost
from paytui.ui.palette_commands import PaytuiCommands
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.session import ClientFactory, FactoryBuilder, Session
from paytui.ui.textual_fixes import ParsedOnceStylesheet, ScreenSwitchGuards
from paytui.ui.top_screens import TOP_SCREENS
from paytui.ui.type_ahead import hand_over
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.list_state import ListState, waiting_text
from paytui.ui.workspaces import Workspace, Workspaces, base_mode, strip_text

#: What a worker returns (`PaytuiApp.run_worker`).
_Result = TypeVar("_Result")

#: Seconds after the first paint that connecting waits at most for the first-page child's rows.
FIRST_PAGE_WAIT = 2.0
#: Seconds between the first page painted and the start-up's deferred work (`_end_start`).
AFTER_FIRST_ROWS = 0.05
#: Seconds between two looks at whether the person is idle, for the cyclic collector's full
#: collections (`_pace_full_collections`, `paytui.collector`): a look costs microseconds.
COLLECT_LOOK_EVERY = 1.0
#: Seconds without a key typed before the app counts as idle for full collections.
COLLECT_QUIET = 1.0

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from textual.command import CommandListItem
    from textual.dom import DOMNode

    from paytui.api.client import RetryWait
    from paytui.config.connection import Connection
    from paytui.ui.announcer import Announcer
    from paytui.ui.first_page import Prefetch
    from paytui.ui.warm_up import WarmUp


def _styled_as_built(screen: Screen[Any]) -> Screen[Any]:
    """`screen`, styled as it is built, with the stylesheet as it is now: Textual's two
    refreshes of the whole app's CSS for a screen it has not seen refreshed yet
    (`App._init_mode`, `switch_mode`: a tenth of a first visit, and of a new workspace's first
    switches) have nothing to bring it (`paytui.ui.warm_up`)."""
    screen._css_update_count = screen.app._css_update_count
    return screen


def _lazy_screen(module: str, name: str) -> Callable[[], Screen[Any]]:
    """A factory that imports a top-level screen's module only when the user first goes there."""

    def build() -> Screen[Any]:
        import importlib

        screen_class: type[Screen[Any]] = getattr(importlib.import_module(module), name)
        return _styled_as_built(screen_class())

    return build


def _built_styled(
    factory: str | Callable[[], Screen[Any]],
) -> str | Callable[[], Screen[Any]]:
    """A mode's factory whose screens are styled as built (`_styled_as_built`); a screen
    installed by name as it is."""
    if isinstance(factory, str):
        return factory
    return lambda: _styled_as_built(factory())


class PaytuiApp(ScreenSwitchGuards, PaytuiHost):
    """The paytui dashboard. `PaytuiApp()` runs on the embedded sandbox."""

    TITLE = "paytui"
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere work
    BINDINGS: ClassVar[list[BindingType]] = [*keys.GLOBAL_BINDINGS]
    COMMANDS = App.COMMANDS | {PaytuiCommands}
    MODES: ClassVar = {
        screen.mode: ChargeSearchScreen
        if screen.mode == "charges"  # the start screen: imported with the App
        else _lazy_screen(screen.module, screen.screen_class)
        for screen in TOP_SCREENS
    }
    DEFAULT_MODE = "charges"

    def __init__(
        self,
        client_factory: ClientFactory | None = None,
        *,
        connection: Connection | None = None,
        environment: str | None = None,
        profile_name: str | None = None,
        clock: Callable[[], datetime] | None = None,
        keymap: dict[str, str] | None = None,
        factory_builder: FactoryBuilder | None = None,
        journal_path: Path | str | None = None,
        first_page: Prefetch | None = None,
        settle_connection: Callable[[], Connection] | None = None,
        screen_reader: bool | None = None,
    ) -> None:
        """`connection` None is the embedded sandbox; explicit keywords override the connection's
        values (tests use `environment=`, `profile_name=`, `keymap=` on their own). `first_page`:
        the child process reading the first page of charges (`paytui.ui.first_page`).
        `settle_connection`: with `connection` None, resolves the connection after the first
        paint (a fresh machine's start: `launch._run_fresh`). `screen_reader`: screen-reader
        mode (docs/accessibility.md); None asks `PAYTUI_SCREEN_READER`, then the config's
        `[ui] screen_reader`."""
        super().__init__()
        # Before anything is parsed: each stylesheet parsed once (`ParsedOnceStylesheet`).
        self.stylesheet = ParsedOnceStylesheet.replacing(self.stylesheet)
        self._settle_connection = settle_connection
        self._unmounting = False
        #: Read by the charge search for its first rows; connecting waits for it (see
        #: `_after_first_paint`).
        self.first_page = first_page
        #: The connection in use and all that hangs on it (client, actions, clock, profile):
        #: the first workspace's; `session` answers with the asking workspace's.
        home = Session(
            self,
            client_factory,
            connection,
            clock=clock,
            factory_builder=factory_builder,
            journal_path=journal_path,
            on_retry_wait=self._on_retry_wait,
            on_journal_change=self.journal_changed_elsewhere,
        )
        #: The sessions' owner of the embedded sandbox, stopped when the App ends.
        self._home_session = home
        self._workspaces = Workspaces(self, Workspace(1, home))
        if environment is not None:
            self.session.environment = environment
        if profile_name is not None:
            self.session.profile_name = profile_name
        if connection is not None:
            self.set_reactive(PaytuiApp.account_in_focus, connection.account_id)
            self._start_in(connection.ui.start_screen)
        self._switching_modes = False
        self._profile_switch = asyncio.Lock()
        self.keymap_config: dict[str, str] = {
            **(dict(connection.keymap) if connection is not None else {}),
            **dict(keymap or {}),
        }
        if self.keymap_config:
            self.set_keymap(self.keymap_config)
        from paytui.ui.themes import HIGH_CONTRAST

        self.register_theme(HIGH_CONTRAST)
        self._theme_before_css(connection)
        if screen_reader is None:
            from paytui.config.environment import screen_reader_asked

            screen_reader = screen_reader_asked(os.environ) or (
                connection is not None and connection.ui.screen_reader
            )
        #: Screen-reader mode's one announcer (`ui/announcer.py`), None out of that mode.
        self.announcer: Announcer | None = None
        if screen_reader:
            from paytui.ui import announcer as spoken

            self.announcer = spoken.Announcer(self)
            self.animation_level = "none"  # no animated scrolling, no spinner frames
            self.add_class("-screen-reader")
        #: The warm-up after the first page (`paytui.ui.warm_up`), None before it.
        self.warm_up: WarmUp | None = None
        #: The theme the config holds: a different one picked is written back (`watch_theme`).
        self._remembered_theme: str | None = None

    def _start_in(self, mode: str) -> None:
        """Open on `mode` (`[ui] start_screen`) instead of `DEFAULT_MODE`. Textual builds the
        first screen from its current mode when the App composes and has no public setter for
        it before then; only that mode's screen is built (and its module imported), so the
        charge search, the default, never imports Today and Today never builds the search."""
        if mode != self.DEFAULT_MODE and mode in self.MODES:
            self._screen_stacks = {mode: []}
            self._current_mode = mode
            self._workspaces.active.mode = mode

    @property
    def session(self) -> Session:
        """The session of the workspace asking (`paytui.ui.workspaces.Workspaces.asking`)."""
        return self._workspaces.asking().session

    async def on_event(self, event: events.Event) -> None:
        """Textual's (through the guards), each key first tagged with the workspace shown
        when it was typed (`_on_key`); a key holds full collections back at once
        (`_pace_full_collections`)."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            event._paytui_workspace = self._workspaces.active  # type: ignore[attr-defined]
            collector.hold_full_collections()
        await super().on_event(event)

    async def _on_key(self, event: events.Key) -> None:
        """A key typed in one workspace whose turn comes after a workspace key showed another
        (the workspace keys are priority bindings: they act as they arrive, ahead of a key
        still queued in a widget): Textual's binding check would read the screen shown *now*,
        so the `enter` meant for a dialog of the first workspace could land on the second's.
        It is dropped instead (`prevent_default` skips the handlers after this one)."""
        typed_in = getattr(event, "_paytui_workspace", None)
        if typed_in is not None and typed_in is not self._workspaces.active:
            event.prevent_default()
            self.key_dropped(event)

    def run_worker(
        self,
        work: WorkType[_Result],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[_Result]:
        """Textual's, the worker bound to the workspace asking for it (`Workspaces.bind`): a
        dialog's send runs in a worker of the App, and must reach the service and journal of
        the workspace whose dialog the person confirmed, whichever is shown when it runs."""
        workspaces = getattr(self, "_workspaces", None)
        asking = (
            workspaces.asking() if workspaces is not None and len(workspaces.items) > 1 else None
        )
        worker = super().run_worker(
            work,
            name=name,
            group=group,
            description=description,
            exit_on_error=exit_on_error,
            start=start,
            exclusive=exclusive,
            thread=thread,
        )
        if workspaces is not None and asking is not None:
            workspaces.bind(worker, asking)
        return worker

    # --- text that leaves through the app itself (rule: text is data) ---------------------------
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification of every screen ends here: its text passes the one display
        sanitiser (`paytui.text`), so an error quoting a server cannot act on the terminal."""
        super().notify(
            safe_lines(message),
            title=safe(title),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )
        if self.announcer is not None:
            said = message
            if markup:
                with contextlib.suppress(Exception):  # a message that is not markup is words
                    said = Text.from_markup(message).plain
            self.announcer.toast(said, title, str(severity))

    def copy_to_clipboard(self, text: str) -> None:
        """What is copied is what was shown: no control character rides along into a shell."""
        super().copy_to_clipboard(safe(text))

    def validate_title(self, title: Any) -> str:
        # The window title and sub-title may carry a profile name from a config file.
        return safe(super().validate_title(title))

    def validate_sub_title(self, sub_title: Any) -> str:
        return safe(super().validate_sub_title(sub_title))

    def action_command_palette(self) -> None:
        """Textual's palette, with the guards against its crashes (`textual_fixes`)."""
        from textual.command import CommandPalette

        from paytui.ui.palette import Palette

        if self.use_command_palette and not CommandPalette.is_open(cast(App[object], self)):
            # No id (Textual gives its own "--command-palette"; `is_open` looks at a class): a
            # palette just dismissed keeps its id until it has been removed, which takes a few
            # turns of the loop, and ctrl+p typed in that window raised `DuplicateIds` (UI fuzz).
            self.push_screen(Palette())

    def search_themes(self) -> None:
        """The theme picker (the palette's "Theme", Textual's `change_theme`): Textual's, in the
        guarded palette. Textual's own pushed a plain `CommandPalette`, in which PageDown typed
        as it opened raised `KeyError` and two enters popped the screen beneath it
        (`ScreenStackError`): both seen in the UI fuzz. Its order is paytui's: the 16-colour
        ANSI themes first (`themes.ThemePicker`, docs/accessibility.md)."""
        from paytui.ui.palette import Palette
        from paytui.ui.themes import ThemePicker

        self.push_screen(Palette(providers=[ThemePicker], placeholder="Search for themes…"))

    def search_commands(
        self, commands: Sequence[CommandListItem], placeholder: str = "Search for commands…"
    ) -> AwaitMount:
        """Textual's list of commands, in the guarded palette (as `search_themes`)."""
        from textual.command import SimpleProvider

        from paytui.ui.palette import Palette

        # As Textual's own: a provider instance, which its `ProviderSource` type does not list.
        provider: Any = SimpleProvider(self.screen, list(commands))
        palette = Palette(providers=[provider], placeholder=placeholder)
        return self.push_screen(palette)

    def why_disabled(
        self, action: str, subject: object | None = None, *, target: str | None = None
    ) -> str | None:
        """Why a registered action cannot run now (None: it can). The ONE gate of the UI.

        Asked by every screen's `check_action` (`PaytuiScreenMixin`), the app's own, the help
        screen and the palette, for bindings of every screen, modal and widget alike, so a screen
        added later cannot leak a write key on a read-only profile. In the order a user can
        act on: read-only profile, the token's scopes, already being sent, then whether the
        action applies to `subject` (the registry's rule, which the executor enforces too).
        """
        spec = spec_for(action)
        if spec is None:
            return None
        if spec.writes:
            if self.session.read_only:
                return f"{spec.label} is off: this profile is read-only"
            operation = spec.operation_for(subject)
            # Before the first page is on screen the token's scopes are not known yet and the
            # policy could only say yes, so the executor stack is not imported for the footer of
            # the first paint (`_end_start` reads the scopes back, then refreshes the keys); once
            # an action built it, it answers (an action in flight is disabled).
            started = self._started or self.session._actions is not None
            if operation is not None and self.session.connected_client is not None and started:
                decision = self.actions.check(operation)
                if not decision.allowed:
                    return decision.reason or f"{spec.label} is not allowed"
                if target is not None and self.actions.in_flight(operation, target):
                    return f"{spec.label} is being sent"
        return spec.why_not(subject)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if spec_for(action) is not None:
            return None if self.why_disabled(action) else True
        return super().check_action(action, parameters)

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        """Run `action`; a registered action that is disabled says why in one line."""
        handled = await super().run_action(action, default_namespace, namespaces)
        if not handled and isinstance(action, str) and spec_for(action) is not None:
            reason = self.disabled_reason_of(action, default_namespace)
            if reason:
                self.notify(reason, title="Not available", severity="warning", markup=False)
        return handled

    def _bound_on(self, action: str, namespace: DOMNode | None) -> tuple[DOMNode | None, str]:
        """The node `action` runs on as bound on `namespace`, and the action's name."""
        prefix, name, _params = parse_action(action)
        return {"app": self, "screen": self.screen}.get(prefix, namespace), name

    def disabled_reason_of(self, action: str, namespace: DOMNode | None = None) -> str | None:
        """`why_disabled` of `action` as bound on `namespace` (a screen asks about its row)."""
        from paytui.ui.screens.base import PaytuiScreenMixin

        node, name = self._bound_on(action, namespace)
        screen: Any = node  # a Screen mixed with the base (the mixin itself is not a DOMNode)
        if isinstance(screen, PaytuiScreenMixin):
            reason: str | None = cast(Any, screen).disabled_reason(name)
            return reason
        if node is None or node is self:
            return self.why_disabled(name)
        return None

    def action_note_of(self, action: str, namespace: DOMNode | None = None) -> str | None:
        """The registry's note on `action` as bound on `namespace`, said beside an action that
        applies ("paytui does not know the status `settled`; the service will decide")."""
        from paytui.ui.screens.base import PaytuiScreenMixin

        node, name = self._bound_on(action, namespace)
        screen: Any = node
        if isinstance(screen, PaytuiScreenMixin):
            said: str | None = cast(Any, screen).action_note(name)
            return said
        return None

    # --- money actions (issue 4) -----------------------------------------------------------------
    async def action_new_charge(self) -> None:
        """Open the virtual terminal for the account in focus (once: not over itself).

        Awaited: the form is mounted and its first field focused before the next key is taken.
        """
        from paytui.ui.screens.new_charge import NewChargeScreen

        try:
            if not isinstance(self.screen, NewChargeScreen):
                await self.push_screen(NewChargeScreen(account_id=self.account_in_focus))
        finally:
            # The keys typed after `n` were held for the form (`held_keys.OPENS_A_SCREEN`):
            # it is mounted and its first field focused, so they go on, in order.
            self.screen_opened()

    def action_undo(self) -> None:
        """`ctrl+z`: the person's last change undone, asked first (`paytui.ui.undo`); not over
        a dialog, whose fields keep the key for themselves."""
        if self.screen.is_modal:
            return
        from paytui.ui.undo import undo_last

        self.run_worker(undo_last(self), group="undo", exclusive=True, exit_on_error=False)

    def action_browse(self, family: str) -> None:
        """The read-only browser of one family (merchants, customers, partners, devices)."""
        from paytui.ui.screens.families import FamilyBrowserScreen

        self.push_screen(FamilyBrowserScreen(family))

    def action_plugin_sessions(self) -> None:
        from paytui.ui.screens.plugin_sessions import PluginSessionsScreen

        if not isinstance(self.screen, PluginSessionsScreen):
            self.push_screen(PluginSessionsScreen())

    def action_open_payment_session(self) -> None:
        """The payment session dialog for the account in focus (the registry's rule is checked
        by the dialog and the executor once the account is read)."""
        from paytui.ui.screens.modals.plugin_session import PaymentSessionModal

        if self.account_in_focus is None:
            self.notify(
                "Open an account first (3, then enter): a session belongs to an account",
                title="Payment plugin session",
                severity="warning",
                markup=False,
            )
            return
        self.push_screen(PaymentSessionModal(self.account_in_focus))

    def action_new_enrollment_session(self) -> None:
        from paytui.ui.screens.modals.plugin_session import EnrollmentSessionModal

        self.push_screen(EnrollmentSessionModal())

    def action_new_account(self) -> None:
        from paytui.ui.screens.modals.new_account import NewAccountModal

        self.push_screen(NewAccountModal())

    def action_refunds(self) -> None:
        from paytui.ui.screens.refunds import RefundsScreen

        if not isinstance(self.screen, RefundsScreen):
            self.push_screen(RefundsScreen())

    def on_results_painted(self, message: messages.ResultsPainted) -> None:
        if not self._started:
            self.start_due = True
            # What the first rows set off (the table's resize once the loading line has gone,
            # the "Showing N of M" that follows it, a key typed at them) is handled and drawn
            # before the deferred work holds the event loop for a moment.
            self.set_timer(AFTER_FIRST_ROWS, self._end_start)

    def _end_start(self) -> None:
        """The first page is on screen (or `RESUME_AFTER` passed): what start-up deferred runs
        now, the garbage collector (`paytui.collector`) and the read-back of earlier actions."""
        if self._started or self._unmounting or self._exit:  # not for an app on its way out
            return
        self._settle()
        self._started = True
        if resume_collector():  # the launcher's pause: full collections in idle moments
            collector.defer_full_collections()
            self.set_interval(COLLECT_LOOK_EVERY, self._pace_full_collections)
            self._hold_collections_as_workers_start()
        self._check_keymap()
        self.session.allow_reconcile()
        from paytui.ui import warm_up

        # What a screen's first visit and the first charge opened would pay, paid while the
        # person reads the list (`paytui.ui.warm_up`).
        self.warm_up = warm_up.WarmUp(self)
        self.set_timer(warm_up.WARM_UP_AFTER, self.warm_up.start)
        self._run_after_start()

    def _hold_collections_as_workers_start(self) -> None:
        """A worker starting (a screen's read: a pulse pushed, a watch's refresh, a search)
        holds full collections back at once, as a key does: an idle moment allowed them until
        the next look (`COLLECT_LOOK_EVERY`), and a full collection the read's allocations set
        off in between held the loop in the read (the pulse's draw: 85-155 ms in one run of
        three, the other two 20-30 ms; docs/performance.md)."""
        workers = self.workers
        add = workers.add_worker

        def added(worker: Any, start: bool = True, exclusive: bool = True) -> None:
            collector.hold_full_collections()
            add(worker, start=start, exclusive=exclusive)

        workers.add_worker = added  # type: ignore[method-assign]

    def _pace_full_collections(self) -> None:
        """Full collections (`paytui.collector`) on CPython's own rule in an idle moment (no key
        typed for `COLLECT_QUIET` seconds, no worker running: nobody waits for a frame) or when
        far overdue; held back otherwise. A key typed holds them back at once (`on_event`)."""
        from time import monotonic

        idle = monotonic() - self.last_typed >= COLLECT_QUIET and not self.reading()
        collector.allow_full_collections(idle or collector.far_overdue())

    async def on_unmount(self) -> None:
        resume_collector(freeze=False)
        collector.end_deferral()
        self._unmounting = True
        if self.warm_up is not None:
            self.warm_up.stop()
        if self.first_page is not None:
            self.first_page.close()
        sessions = dict.fromkeys([*(w.session for w in self._workspaces.items), self._home_session])
        for session in sessions:
            await session.aclose()

    # --- lifecycle ------------------------------------------------------------------------------
    def on_load(self) -> None:
        """Before the first paint: spawn the embedded sandbox (if it is the app's own) and, with
        no first-page child reading the first page, start connecting, so the client's imports,
        the sandbox's start and the token and first search requests overlap the building of the
        first screen (with a child, connecting waits: `_after_first_paint`)."""
        self.session.spawn_sandbox_early()
        if self.first_page is None:
            self._settle()
            self.session.start_connect()

    def on_mount(self) -> None:
        # The terminal is Textual's now: its suspend and exit give back the mode found before
        # the launcher held the keys typed while starting (`paytui.ui.type_ahead`).
        hand_over(getattr(self, "_driver", None))
        self.set_timer(RESUME_AFTER, self._end_start)  # at the latest
        self._apply_theme()
        if self.announcer is not None:
            self._start_announcing(self.announcer)
        self._notify_problems()
        self.call_after_refresh(self._after_first_paint)

    def _start_announcing(self, announcer: Announcer) -> None:
        """Screen-reader mode: the terminal cursor shown (a screen reader follows it; Textual
        hides it), and the announcer following the screens."""
        driver = getattr(self, "_driver", None)
        if driver is not None and not self.is_headless:
            driver.write("\x1b[?25h")
            driver.flush()
        announcer.start()

    def _check_keymap(self) -> None:
        """Warn about `[keymap]` ids that match no binding, and remaps that take a key another
        action of the same screen holds (reads every screen's bindings)."""
        unknown = keys.unknown_keymap_ids(self.keymap_config)
        if unknown:
            self.notify(
                "Unknown ids in [keymap]: " + ", ".join(unknown),
                title="Keymap",
                severity="warning",
                markup=False,
            )
        for collision in keys.keymap_collisions(self.keymap_config):
            self.notify(
                safe(f"[keymap]: {collision}; one of them will not work — pick another key"),
                title="Keymap",
                severity="warning",
                markup=False,
            )

    def get_css_variables(self) -> dict[str, str]:
        """Textual's theme variables, also handed to the formatter: its status colours are roles
        that take the running theme's colours (`paytui.ui.format.tone`)."""
        variables = super().get_css_variables()
        if self.current_theme.ansi:
            # The 16-colour themes cannot blend: a "muted" background is the full colour and
            # the words on it unreadable (a list's empty or error panel). Their edge keeps the
            # colour; the background is the terminal's own (docs/accessibility.md).
            for name in [n for n in variables if n.endswith("-muted") and n != "text-muted"]:
                variables[name] = "ansi_default"
        fmt.use_theme(variables)
        return variables

    def _theme_before_css(self, connection: Connection | None) -> None:
        """The config's theme in place before the first stylesheet is parsed: set at mount
        (`_apply_theme`), its new variables parsed every stylesheet again before the first
        frame. One it does not know is left to `_apply_theme`, which says so."""
        theme = connection.ui.theme if connection is not None else None
        if theme and theme in self.available_themes and theme != self.theme:
            self.theme = theme
            self.stylesheet.set_variables(self.get_css_variables())

    def _apply_theme(self) -> None:
        connection = self.session.connection
        theme = connection.ui.theme if connection is not None else None
        self._remembered_theme = theme or self.theme
        if not theme:
            return
        if theme in self.available_themes:
            self.theme = theme
        else:
            self.notify(
                f"Unknown theme {theme!r} in the config; using {self.theme}.",
                title="Config",
                severity="warning",
                markup=False,
            )

    def watch_theme(self, theme: str) -> None:
        """A theme picked in the palette is remembered in the config (`[ui] theme`, comments
        kept); the one the config already holds is not written again."""
        session: Session | None = getattr(self, "session", None)  # None: a theme set in __init__
        if session is None or not session.connect_allowed or theme == self._remembered_theme:
            return
        self._remembered_theme = theme
        from paytui.config.searches import remember_theme

        self.run_worker(
            partial(remember_theme, theme, self.config_file),
            thread=True,
            group="remember-theme",
            exit_on_error=False,
        )

    # --- saved searches, the jump line, copy as curl (docs/saved-searches.md) -------------------
    def action_saved_searches(self) -> None:
        from paytui.ui.screens.modals.saved_searches import SavedSearchesModal

        def chosen(name: str | None) -> None:
            if name:
                self.run_saved_search(name)

        self.push_screen(SavedSearchesModal(), callback=chosen)

    def run_saved_search(self, name: str) -> None:
        query = self.saved_searches().get(name)
        if query is None:
            self.notify(f"No saved search named {name!r}", severity="warning", markup=False)
            return
        self.run_worker(self.open_query_text(query, f"Saved: {name}"), group="jump")

    async def open_query_text(self, text: str, title: str = "Search") -> None:
        """The charge search with `text` in its query line, run (saved searches, `:charges`)."""
        await self.switch_mode(self._mode("charges"))
        while len(self.screen_stack) > 1 and not isinstance(self.screen, ChargeSearchScreen):
            await self.pop_screen()
        screen = self.screen
        if isinstance(screen, ChargeSearchScreen):
            screen.run_query_text(text, title)

    def action_jump(self) -> None:
        from paytui.ui.screens.modals.jump import JumpModal

        if isinstance(self.screen, JumpModal):
            return

        def chosen(jump: Any) -> None:
            if jump is not None:
                self.run_worker(self.jump_to(jump), group="jump", exit_on_error=False)

        self.push_screen(JumpModal(self.saved_searches), callback=chosen)

    async def jump_to(self, jump: Any) -> None:
        """Go where a checked `paytui.ui.jump.Jump` says."""
        command, argument = jump.command, jump.argument
        if command == "history":
            await self.action_goto("history")
        elif command == "charges":
            await self.open_query_text(argument)
        elif command == "saved":
            self.run_saved_search(argument)
        elif command == "customer":
            from paytui.customer import customer_key
            from paytui.ui.screens.customer import CustomerScreen

            await self.push_screen(CustomerScreen(customer_key(argument)))
        elif command == "charge":
            from paytui.ui.screens.charge_detail import ChargeDetailScreen

            await self.push_screen(ChargeDetailScreen(argument))
        elif command == "account":
            from paytui.ui.screens.account_detail import AccountDetailScreen

            await self.push_screen(AccountDetailScreen(argument))
        elif command == "token":
            from paytui.ui.screens.tokens import TokenViewScreen

            try:
                token = await (await self.get_client()).get_token(argument)
            except Exception as exc:
                self.notify(
                    f"Token {argument}: {error_detail(exc)}", severity="error", markup=False
                )
                return
            await self.push_screen(TokenViewScreen(token))

    async def action_copy_curl(self) -> None:
        """The request behind the current view, else the last action, as curl (no secret)."""
        from paytui.api.curl import TOKEN_VARIABLE, curl_command
        from paytui.sandbox.embedded import BASE_URL as EMBEDDED_BASE_URL
        from paytui.ui.clipboard import copy_text, entry_request

        ask = getattr(self.screen, "curl_request", None)
        request = ask() if callable(ask) else None
        what = "this view's request"
        if request is None and self.connected_client is not None:
            history = (await self.actions.executor()).history(limit=1)
            if history:
                request = entry_request(history[0])
                what = f"the last action (#{history[0].id})"
        if request is None:
            self.notify(
                "Nothing to copy: this view has no request of its own and no action was taken.",
                severity="warning",
                markup=False,
            )
            return
        method, path, params, body = request
        base = str(getattr(self.connected_client, "base_url", None) or self.session.base_url or "")
        command = curl_command(method, base, path, params=params, body=body)
        copy_text(self, command, f"{what} as curl (the token is {TOKEN_VARIABLE})")
        if base.rstrip("/") == EMBEDDED_BASE_URL:
            # The embedded sandbox answers inside paytui only: say how to reach one from a shell.
            self.notify(
                f"{EMBEDDED_BASE_URL} is the embedded sandbox, which curl cannot reach: run"
                " `paytui sandbox` and use the URL and token it prints.",
                title="Clipboard",
                severity="warning",
                markup=False,
            )

    def _notify_problems(self) -> None:
        """Config problems (the app still runs): one warning each, secrets scrubbed."""
        connection = self.session.connection
        if connection is None or not connection.problems:
            return
        from paytui.logs import redact

        for problem in connection.problems:
            self.notify(
                redact(str(problem)), title="Config problem", severity="warning", markup=False
            )

    # --- the action log (`@`) ------------------------------------------------------------------
    def action_action_log(self) -> None:
        """`@`: this session's actions, and the charge's in front of the person (a detail's, a
        money dialog's): read-only, live."""
        from paytui.ui.screens.action_log import ActionLogScreen

        if isinstance(self.screen, ActionLogScreen):
            self.screen.dismiss(None)  # `@` again closes it, as lazygit's
            return
        charge_id = getattr(self.screen, "charge_id", None)
        self.push_screen(ActionLogScreen(charge_id if isinstance(charge_id, str) else None))

    # --- who am I and the profile switcher --------------------------------------------------------
    def action_whoami(self) -> None:
        from paytui.ui.screens.whoami import WhoAmIScreen

        if not isinstance(self.screen, WhoAmIScreen):
            self.push_screen(WhoAmIScreen())

    def action_switch_profile(self) -> None:
        from paytui.ui.screens.modals.profile_switcher import ProfileSwitcher

        if self.is_web:  # `paytui serve` chose the profile, and read-only or not, at its start
            self.notify(
                "A browser session stays on the profile `paytui serve` was started with.",
                title="Switch profile",
                severity="warning",
                markup=False,
            )
            return
        if not isinstance(self.screen, ProfileSwitcher):
            self.push_screen(ProfileSwitcher(), callback=self.switch_profile)

    def switch_profile(self, name: str | None) -> None:
        """Resolve profile `name`; production asks first; then `apply_connection` in a worker."""
        if not name:
            return
        if self._money_action_in_flight():
            self.notify(
                "A money action is still being sent; switch profiles when it has finished.",
                title="Switch profile",
                severity="error",
                markup=False,
            )
            return
        import os

        from paytui.config import ConfigError, resolve_connection

        workspace = self._workspaces.active  # the one `P` was pressed in, whatever shows later
        try:
            connection = resolve_connection(profile=name, environ=os.environ)
        except ConfigError as exc:
            self.notify(
                error_detail(exc), title=f"Cannot switch to {name}", severity="error", markup=False
            )
            return
        if connection.is_production:
            from paytui.ui.screens.modals.profile_switcher import ConfirmProductionScreen

            def confirmed(ok: bool | None) -> None:
                if ok:
                    self.run_worker(
                        self.apply_connection(connection, workspace), group="switch-profile"
                    )

            self.push_screen(ConfirmProductionScreen(connection), callback=confirmed)
            return
        self.run_worker(self.apply_connection(connection, workspace), group="switch-profile")

    def _money_action_in_flight(self) -> bool:
        """True while the executor is sending something: its client must not be closed now."""
        return self.session.money_action_in_flight()

    async def apply_connection(
        self, connection: Connection, workspace: Workspace | None = None
    ) -> None:
        """Make `connection` the workspace's (the shown one's by default): attributes, secrets,
        client, and fresh screens. A session another workspace shares is left to it: this
        workspace gets a session of its own (`Session.sibling`).

        Screens are rebuilt by resetting every mode (each screen and its stack is discarded and
        re-created on first visit), which cancels their workers with the old client and repaints
        the header; simpler and more robust than asking each screen to reload.

        One switch at a time: a second one (chosen while the first rebuilt the modes) waits,
        then applies; two rebuilds at once removed each other's modes.
        """
        async with self._profile_switch:
            await self._apply_connection(connection, workspace or self._workspaces.active)

    async def _close_session(self, session: Session) -> None:
        """Close a session no workspace reads any more. Claims and presence are this process's
        on a journal: another workspace on the same journal keeps them (they go when the last
        session on it closes). The embedded sandbox's owner keeps it for the others."""
        await session.aclose(
            keep_sandbox=session is self._home_session,
            leave=not any(
                w.session.journal_location == session.journal_location
                for w in self._workspaces.items
            ),
        )

    async def _apply_connection(self, connection: Connection, workspace: Workspace) -> None:
        if workspace not in self._workspaces.items:
            return  # closed while the production question was open
        # The old secrets stay registered (scrubbing more is safe); whoever waits for the old
        # client is cancelled, as their screens are about to be (`_reset_modes`).
        old_client = None
        left: Session | None = None  # a session no workspace reads any more, closed below
        sharing = self._workspaces.sharing(workspace)
        before = workspace.session
        if sharing or before.journal_location_of(connection) != before.journal_location:
            # A session of its own: another workspace keeps the shared one, or the profile's
            # journal is elsewhere (its executor, claims and watch belong to that journal: the
            # same profile in two workspaces writes one journal, whichever was switched how).
            workspace.session = before.sibling(connection)
            left = None if sharing else before
        else:
            old_client = before.switch_to(connection)
        session = workspace.session
        if workspace is self._workspaces.active:
            self.account_in_focus = connection.account_id
        await self._reset_modes(workspace)
        if old_client is not None:
            with contextlib.suppress(Exception):
                await old_client.aclose()
        if left is not None:
            await self._close_session(left)
        self._apply_theme()
        self._notify_problems()
        session.start_connect()
        self._show_strip()
        self.notify(
            f"Now using profile {session.profile_name} ({session.environment}).",
            title="Profile",
            markup=False,
        )

    async def _reset_modes(self, workspace: Workspace) -> None:
        """Discard the workspace's screens: each of its modes is built again on first visit."""
        modes = [m for m in self._modes if workspace.owns(m)]
        if workspace is not self._workspaces.active:
            # Not shown (the person moved on while it was chosen): no switch to it meanwhile, to
            # a mode removed and not yet added again (`switch_mode` drops it); the keys typed
            # meanwhile go on to the workspace shown, which is not being rebuilt.
            self._modes_rebuilding = self._modes_rebuilding | set(modes)
            try:
                for mode in modes:
                    base = self._modes[mode]
                    await self.remove_mode(mode)
                    self.add_mode(mode, base)
            finally:
                self._modes_rebuilding = self._modes_rebuilding - set(modes)
            collector.thaw()  # the discarded screens can be collected
            return
        current = self.current_mode
        holding = "_switching_profile"
        self._switching_modes = True
        try:
            self.add_mode(holding, Screen)
            await App.switch_mode(self, holding)  # past the guard: this is the rebuild
            for mode in modes:
                base = self._modes[mode]
                await self.remove_mode(mode)
                self.add_mode(mode, base)
            await App.switch_mode(self, current)
            await self.remove_mode(holding)
        finally:
            self._switching_modes = False
        collector.thaw()  # the discarded screens can be collected

    # --- workspaces (`ui/workspaces.py`, docs/screens.md "Workspaces") -----------------------
    async def action_new_workspace(self) -> None:
        """`ctrl+t` (F4): the top-level screen shown, on the same profile, in a new workspace
        after the others, shown at once (the charge search with the query its line holds);
        `P` there switches that workspace only."""
        if self._switching_modes:
            return
        shown = self._workspaces.active
        base = base_mode(self.current_mode)
        bottom = next(iter(self._screen_stacks.get(self.current_mode, [])), None)
        query = bottom.current_query_text() if isinstance(bottom, ChargeSearchScreen) else ""
        workspace = self._workspaces.add(shown.session, base)
        for name, screen in type(self).MODES.items():
            self.add_mode(workspace.mode_name(name), _built_styled(screen))
        await self._show_workspace(workspace)
        search = self.screen
        if query and isinstance(search, ChargeSearchScreen):
            search.run_query_text(query)

    async def action_next_workspace(self) -> None:
        """`ctrl+pagedown` (F9): the next workspace of the strip (round)."""
        if len(self._workspaces.items) > 1:
            await self._show_workspace(self._workspaces.neighbour(1))

    async def action_previous_workspace(self) -> None:
        """`ctrl+pageup` (F8): the previous workspace of the strip (round)."""
        if len(self._workspaces.items) > 1:
            await self._show_workspace(self._workspaces.neighbour(-1))

    async def action_close_workspace(self) -> None:
        """F10: close the shown workspace (its screens, and its session unless another workspace
        shares it), then show the one before it. The last one stays: `q` quits."""
        workspaces = self._workspaces
        workspace = workspaces.active
        if self._switching_modes:
            return
        if len(workspaces.items) < 2:
            self.notify("This is the only workspace; q quits.", title="Workspaces", markup=False)
            return
        sharing = workspaces.sharing(workspace)
        if not sharing and workspace.session.money_action_in_flight():
            self.notify(
                "A money action is still being sent here; close the workspace when it has"
                " finished.",
                title="Workspaces",
                severity="error",
                markup=False,
            )
            return
        index = workspaces.items.index(workspace)
        shown = workspaces.items[index - 1 if index else 1]
        workspaces.remove(workspace)
        await self._show_workspace(shown)
        for mode in [m for m in self._modes if workspace.owns(m)]:
            await self.remove_mode(mode)
        collector.thaw()  # the workspace's screens can be collected
        if not sharing:
            await self._close_session(workspace.session)

    async def _show_workspace(self, workspace: Workspace) -> None:
        """Show `workspace` where it was left (its modes keep their screens); the strip and a
        screen reader say which it is."""
        workspaces = self._workspaces
        if (
            self._switching_modes
            or workspace.mode_name(workspace.mode) in self._modes_rebuilding
            or (workspace is workspaces.active and workspace.owns(self.current_mode))
        ):
            return
        workspaces.active.mode = base_mode(self.current_mode)
        workspaces.active = workspace
        self._show_strip()
        if self.announcer is not None:
            position, count = workspaces.position(workspace), len(workspaces.items)
            self.announcer.say(f"Workspace {position} of {count}: {workspace.label()}")
        await self.switch_mode(workspace.mode_name(workspace.mode))

    def _show_strip(self) -> None:
        self.workspace_strip = strip_text(self._workspaces)

    def _settle(self) -> None:
        """The connection resolved now, if it was left until after the first paint
        (`settle_connection`): its facts replace the embedded defaults before the app connects
        or builds its actions (both come later: `_after_first_paint`, `_end_start`)."""
        settle, self._settle_connection = self._settle_connection, None
        if settle is None:
            return
        try:
            connection = settle()
        except Exception as exc:  # as the launcher would: one line, exit 2
            self.exit(return_code=2, message=f"paytui: error: {safe(str(exc))}")
            return
        self.session.use(connection)

    def _after_first_paint(self) -> None:
        self.session.connect_allowed = True
        prefetch = self.first_page
        if prefetch is None or prefetch.done:
            self._connect()
            return
        # The first rows are on their way from the child: connecting now (the connection's
        # resolution, the client's imports) would slow their showing down. It starts once they
        # are shown or failed, and at the latest after FIRST_PAGE_WAIT.
        self.set_timer(FIRST_PAGE_WAIT, self._connect)
        prefetch.result().add_done_callback(lambda _: self.call_after_refresh(self._connect))

    def _connect(self) -> None:
        """Connect, with the connection's facts in place first (`_settle`); not once the app
        is ending (closing the first-page child ends its wait too)."""
        if self._unmounting:
            return
        self._settle()
        self.session.start_connect()

    # --- routing --------------------------------------------------------------------------------
    def _mode(self, base: str) -> str:
        """The shown workspace's mode of the top-level screen `base` (`ui/workspaces.py`)."""
        return self._workspaces.active.mode_name(base)

    def build_ahead(self, base: str) -> Screen[Any] | None:
        """Build the shown workspace's top screen `base` now, not shown (`paytui.ui.warm_up`):
        its CSS added, mounted in its mode's stack, its first read started, as `switch_mode`
        would on a first visit; the first visit then shows it as a later one does. None when
        there is nothing to build: built already, no such mode, modes being switched or
        rebuilt, the app ending."""
        mode = self._mode(base)
        factory = self._modes.get(mode)
        if (
            factory is None
            or isinstance(factory, str)
            or mode in self._screen_stacks
            or mode in self._modes_rebuilding
            or self._switching_modes
            or self._unmounting
            or self._exit
            or not self.is_running
        ):
            return None
        screen = factory()
        if hasattr(screen, "built_ahead"):
            screen.built_ahead = True  # a failed read is told on the first visit
        # Its CSS before its widgets are styled, as `App._load_screen_css` adds it, without
        # styling every node of the app again: a screen's CSS file scopes each rule to its
        # screen (`*.tcss`), so no node shown now takes a rule from it (about 35 ms, at load).
        from paytui.ui.warm_up import add_css_files

        add_css_files(self, screen.css_path)
        if screen.CSS:
            self._load_screen_css(screen)  # a class's own CSS: as Textual adds it
        self._screen_stacks[mode] = [screen]
        self._register(self, screen)
        return screen

    async def action_goto(self, base: str) -> None:
        """`1`-`5`: always that top-level screen itself, whatever was pushed over it."""
        mode = self._mode(base)
        if mode not in self._modes:
            return
        if mode != self.current_mode:
            await self.switch_mode(mode)
        while len(self.screen_stack) > 1:
            await self.pop_screen()

    async def action_back_or_quit(self) -> None:
        """`q`: back on a pushed screen, quit only from a top-level screen."""
        if len(self.screen_stack) > 1:
            self.pop_screen()
        else:
            self.exit()

    def _on_retry_wait(self, wait: RetryWait) -> None:
        """The client waits before retrying a read (Retry-After): the list whose read it is
        counts down and offers escape to cancel; any other read says so in a notification."""
        try:
            worker = get_current_worker()
        except NoActiveWorker:
            return
        screen = getattr(worker.node, "screen", None)
        found = screen.query(ListState) if screen is not None else None
        state = found.first() if found else None
        if state is not None and state.state == "loading":
            state.show_waiting(wait, worker.cancel)
        else:
            self.notify(
                waiting_text(wait.reason, wait.seconds).replace(" (escape to cancel)", ""),
                severity="warning",
                timeout=max(2.0, wait.seconds),
                markup=False,
            )

    def _counting_down(self) -> bool:
        """Escape cancels a list's retry wait even while keys are held (`held_keys`)."""
        return self._waiting_list() is not None

    def _waiting_list(self) -> ListState | None:
        """The list on screen that is counting down a retry wait, if any."""
        for state in self.screen.query(ListState):
            if state.waiting:
                return state
        return None

    async def action_back(self) -> None:
        """Escape: stop a list's retry wait if one counts down; else close the screen on top;
        from a top-level screen other than charges, go to charges."""
        waiting = self._waiting_list()
        if waiting is not None:
            waiting.cancel_wait()
            return
        if len(self.screen_stack) > 1:
            self.pop_screen()
        elif base_mode(self.current_mode) != "charges":
            self.switch_mode(self._mode("charges"))

    def action_help(self) -> None:
        from paytui.ui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        from paytui.ui.user_commands import help_rows

        notes = getattr(self.screen, "help_notes", None)
        live = [*keys.live_bindings(self.screen), *help_rows(self.screen)]
        self.push_screen(HelpScreen(live, notes() if callable(notes) else None))

    async def open_charge_search(self, query: Any) -> None:
        """Go to the charge search with `query` (a `ChargeQuery`) in the query line, and run it.

        Screens above the search in the charges stack are closed, so the results are what shows.
        """
        await self.switch_mode(self._mode("charges"))
        while len(self.screen_stack) > 1 and not isinstance(self.screen, ChargeSearchScreen):
            await self.pop_screen()
        screen = self.screen
        if isinstance(screen, ChargeSearchScreen):
            screen.post_message(ChargeSearchScreen.Prefill(query))

    def on_open_charge(self, message: messages.OpenCharge) -> None:
        """Open a charge's detail over the current screen (escape comes back to the same row)."""
        message.stop()
        from paytui.ui.screens.charge_detail import ChargeDetailScreen

        self.push_screen(ChargeDetailScreen(message.charge_id))

    def on_account_in_focus(self, message: messages.AccountInFocus) -> None:
        message.stop()
        self.account_in_focus = message.account_id
