"""`PaytuiHost`: the App as screens and widgets see it.

Screens and widgets run inside a `PaytuiApp`, but they never import `paytui.ui.app` (which
imports them: the cycle the type checker walked). They see this class instead: Textual's `App`
plus what paytui adds for them — the session (`paytui.ui.session`), its facts and client, the
actions service, the clock, the "charges changed" signal, the account in focus, the gate
that says why an action is disabled, and the keys held until a screen can take them
(`paytui.ui.held_keys`). `PaytuiApp` is its one concrete subclass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.reactive import reactive
from textual.signal import Signal

from paytui.ui.held_keys import HeldKeys

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

    from textual.dom import DOMNode
    from textual.screen import Screen

    from paytui.actions.entry import JournalEntry
    from paytui.actions.presence import Presence
    from paytui.api.client import PaymentClient
    from paytui.ui.actions_service import ActionsService
    from paytui.ui.first_page import Prefetch
    from paytui.ui.session import Session

__all__ = ["PaytuiHost", "host_of"]


class PaytuiHost(HeldKeys):
    """What paytui's screens and widgets may use of the App (see the module docstring)."""

    #: Published after an action changed charges (their ids): every list and detail on any
    #: screen stack that shows one of them reads it again, without ctrl+r.
    charges_changed: Signal[tuple[str, ...]]
    #: Published when other paytuis' journal entries arrive (the team's, live).
    journal_changed: Signal[tuple[JournalEntry, ...]]
    #: Published when who else has which charge open changed (a team journal's presence):
    #: the charges with someone on them now, by id (`paytui.actions.presence`).
    presence_changed: Signal[dict[str, tuple[Presence, ...]]]

    account_in_focus: reactive[str | None] = reactive(None)
    """The account the user is looking at (the highlighted charge's); the header shows it."""

    workspace_strip: reactive[tuple[str, ...]] = reactive(())
    """The workspaces' strip under the header: one item a workspace, the shown one marked;
    empty (no strip) with one workspace (`paytui.ui.workspaces`)."""

    #: The child process reading the first page of charges at start (`paytui.ui.first_page`),
    #: or None (not started, or a test's app).
    first_page: Prefetch | None = None

    def __init__(self) -> None:
        super().__init__()
        self.charges_changed = Signal(self, "charges_changed")
        self.journal_changed = Signal(self, "journal_changed")
        self.presence_changed = Signal(self, "presence_changed")
        self._started = False
        """True once the first page of charges is on screen (or `RESUME_AFTER` passed)."""
        self._after_start: list[Callable[[], object]] = []
        self.start_due = False
        """True once the first rows are painted: start-up's deferred work is due, on a timer
        (`AFTER_FIRST_ROWS`), unless it ran. A test's wait for a quiet app waits for that work
        too, as an event (`after_start`), instead of racing the timer."""

    def build_ahead(self, base: str) -> Screen[Any] | None:
        """Build the top screen `base` now, not shown (`PaytuiApp`; here: none)."""
        return None

    def reading(self) -> bool:
        """A worker pending or running (a screen reading: a search, Today's queue, the pulse):
        work that can wait for the person's idle moments (the warm-up, full collections)
        waits."""
        from textual.worker import WorkerState

        running = (WorkerState.PENDING, WorkerState.RUNNING)
        return any(worker.state in running for worker in self.workers)

    def after_start(self, callback: Callable[[], object]) -> None:
        """Call `callback` once the first page is on screen (at once if it is): work the first
        page does not need, such as reading the team's claims (which builds the journal and the
        executor), must not run between the first rows and their paint
        (`benchmarks/import_budget.py` holds that path to a budget)."""
        if self._started:
            callback()
        else:
            self._after_start.append(callback)

    def _run_after_start(self) -> None:
        waiting, self._after_start = self._after_start, []
        for callback in waiting:
            callback()

    def journal_changed_elsewhere(self, entries: list[JournalEntry]) -> None:
        """Another paytui (an agent on another machine, the command line) wrote these entries:
        dialogs reviewing their charges say so before anything can be sent, and every list
        and detail showing the charges reads them again."""
        self.journal_changed.publish(tuple(entries))
        self.charges_changed_by(*(i for e in entries for i in (e.charge_id, e.result_id)))

    def presence_changed_elsewhere(self, people: dict[str, tuple[Presence, ...]]) -> None:
        """Who else has which charge open changed: rows, headers and dialogs show it."""
        self.presence_changed.publish(people)

    def others_on(self, target: str) -> tuple[Presence, ...]:
        """The other agents on `target` now ("ana viewing"): none on a file journal."""
        actions = self.session.actions_if_built
        return actions.others_on(target) if actions is not None else ()

    def charges_changed_by(self, *charge_ids: str | None) -> None:
        """Tell every screen that these charges changed (a capture, refund, edit, new charge…)."""
        ids = tuple(dict.fromkeys(i for i in charge_ids if i))
        if ids:
            self.charges_changed.publish(ids)

    @property
    def session(self) -> Session:
        """The session of the workspace asking (`paytui.ui.workspaces`): its profile's facts,
        client, actions and clock."""
        raise NotImplementedError

    # --- the gate and routing (`PaytuiApp`) -------------------------------------------------
    def why_disabled(
        self, action: str, subject: object | None = None, *, target: str | None = None
    ) -> str | None:
        """Why a registered action cannot run now (None: it can)."""
        raise NotImplementedError

    def disabled_reason_of(self, action: str, namespace: DOMNode | None = None) -> str | None:
        """`why_disabled` of `action` as bound on `namespace`."""
        raise NotImplementedError

    def action_note_of(self, action: str, namespace: DOMNode | None = None) -> str | None:
        """The registry's note on `action` as bound on `namespace` (`ActionSpec.note`)."""
        raise NotImplementedError

    async def open_charge_search(self, query: Any) -> None:
        """Go to the charge search with `query` in the query line, and run it."""
        raise NotImplementedError

    def run_saved_search(self, name: str) -> None:
        """The charge search with the saved search `name` in its query line, run."""
        raise NotImplementedError

    def saved_searches(self) -> dict[str, str]:
        """The person's saved searches (name -> query text), from their config file, and the
        team's as last read from the journal (``team/NAME``)."""
        from paytui.config.searches import saved_searches

        own = saved_searches(self.config_file)
        team = self.actions.team_searches
        return {**own, **{f"team/{name}": query for name, (query, _) in team.items()}}

    # --- clock, client, actions (the session's) ----------------------------------------------
    def now(self) -> datetime:
        """The app's clock (frozen in snapshot tests so ages and dates do not drift)."""
        return self.session.now()

    @property
    def connected_client(self) -> PaymentClient | None:
        """The client if already connected (for synchronous checks such as granted scopes)."""
        return self.session.connected_client

    async def get_client(self) -> PaymentClient:
        """The API client, once connected. Call from workers only (`Session.get_client`)."""
        return await self.session.get_client()

    @property
    def actions(self) -> ActionsService:
        """The session's `ActionsService` (executor, journal, policy)."""
        return self.session.actions

    @property
    def config_file(self) -> Path | None:
        """The config file of this profile (None: the default place)."""
        return self.session.config_file

    # --- the session's facts ------------------------------------------------------------------
    # Screens and tests read and set the session's facts as `app.session.<fact>`. These two
    # stay, read only: the launcher's test reads them off the App it builds.
    @property
    def environment(self) -> str:
        return self.session.environment

    @property
    def profile_name(self) -> str:
        return self.session.profile_name


def host_of(app: object) -> PaytuiHost | None:
    """`app` as a `PaytuiHost`, or None for another App (a widget tested on its own)."""
    return app if isinstance(app, PaytuiHost) else None
