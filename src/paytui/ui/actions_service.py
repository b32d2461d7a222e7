"""The app-side holder of the money-action executor (issue 4).

Screens never build an `ActionExecutor` or an `ActionPolicy` themselves: they ask
`app.actions` (an `ActionsService`). The policy is rebuilt from the client's granted scopes and the
app's attributes (`read_only`, `environment`, `confirm_threshold`) every time it is asked, so a
token authenticated later, or a connection built by the production wiring, is picked up without
touching the screens. The executor enforces the same policy before anything is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paytui.actions import ActionExecutor, ActionPolicy, Decision, Journal
from paytui.actions.actor import actor_name
from paytui.actions.errors import ActionRefused
from paytui.actions.journal import JournalUnavailable, open_journal
from paytui.connect import (
    acting_client_id,
    again_window,
    approve_above,
    claim_lease,
    late_window,
)
from paytui.text import safe

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from textual.app import App

    from paytui.actions.batch_log import BatchLog
    from paytui.actions.entry import JournalEntry
    from paytui.actions.journal_anchor import Anchor
    from paytui.actions.presence import Presence, PresenceBoard
    from paytui.actions.watch import JournalWatch
    from paytui.api.client import PaymentClient
    from paytui.ui.session import Session


def _decimal_or_none(value: object) -> Decimal | None:
    if value is None or isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value))
    except ArithmeticError:
        return None


class ActionsService:
    """Builds (once) the journal and the executor; answers the policy question for screens."""

    def __init__(self, session: Session, *, journal_path: Path | str | None = None) -> None:
        self.session = session  # what it reads: the client, the profile's facts, the clock
        self.journal_path = journal_path
        self._journal: Journal | None = None
        self._executor: ActionExecutor | None = None
        self._lock: asyncio.Lock | None = None
        #: Extra `ActionExecutor` options (`settle_margin`, `clock`, `sleep`), set before the
        #: executor is built: tests and the chaos harness, where nothing real is late.
        self.executor_options: dict[str, Any] = {}
        #: Set when the journal cannot be opened: one line naming the path and the cause. Every
        #: money action is then refused (no action without a journal); reading still works.
        self.journal_error: str | None = None
        self._batch_log: BatchLog | None = None
        self._watch: JournalWatch | None = None
        #: Who else has which charge open (a team journal's; built with the watch).
        self.presence: PresenceBoard | None = None
        #: What screens showed before the board existed: (holder, target) -> (doing, amount).
        self._presence_wanted: dict[tuple[object, str], tuple[str, Decimal | None]] = {}
        #: One thread writes presence, in the order it was asked (`_flush_presence`).
        self._presence_writer: ThreadPoolExecutor | None = None
        self.session_started: datetime | None = None
        #: The team's saved searches as last read (name -> (query, who shared it)).
        self.team_searches: dict[str, tuple[str, str | None]] = {}

    @property
    def agent(self) -> str | None:
        """This person's name on the journal (the connection's; None: login@host)."""
        return getattr(self.session.connection, "agent", None)

    # --- policy -----------------------------------------------------------------------------
    def policy(self) -> ActionPolicy:
        """The policy as of now: scopes from the client, the rest from the app's attributes."""
        app = self.session
        # getattr: the UI tests' stand-in clients answer lists only, without scopes.
        scopes = getattr(app.connected_client, "granted_scopes", None)
        return ActionPolicy(
            granted_scopes=frozenset(scopes) if scopes is not None else None,
            read_only=app.read_only,
            environment=app.environment or "sandbox",
            confirm_threshold=_decimal_or_none(app.confirm_threshold),
        )

    def check(self, operation: str) -> Decision:
        """May `operation` run? (For disabling a key and naming the missing scope.)"""
        if self.journal_error is not None:
            return Decision(False, self.journal_error)
        return self.policy().check(operation)

    def in_flight(self, operation: str, target: str) -> bool:
        return self._executor is not None and self._executor.in_flight(operation, target)

    def any_in_flight(self) -> bool:
        """True while any action is being sent (e.g. a profile switch must wait)."""
        return self._executor is not None and self._executor.any_in_flight()

    @property
    def ready(self) -> ActionExecutor | None:
        """The executor if it was built already (no waiting); None before the connection."""
        if self._executor is not None:
            self._executor.policy = self.policy()
        return self._executor

    # --- executor ---------------------------------------------------------------------------
    async def executor(self) -> ActionExecutor:
        """The executor (built on first use, after the client connected). Workers only."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            client: PaymentClient = await self.session.get_client()
            # A profile switch replaces the client: a new executor for it (same journal).
            if self._executor is None or self._executor.client is not client:
                if getattr(client, "granted_scopes", None) is None:
                    # Learn the token's scopes now, so keys are disabled before a refusal.
                    with contextlib.suppress(Exception):
                        await client.authenticate()
                if self._journal is None:
                    self._journal = await self._open_journal()
                    #: When this session began to act, by the journal's clock (the action log's
                    #: "this session": `paytui.actions.action_log`).
                    self.session_started = self.session.now()
                journal = self._journal
                self._executor = ActionExecutor(
                    client,
                    journal,
                    self.policy(),
                    profile=self.session.profile_name,
                    base_url=str(getattr(client, "base_url", "")),
                    client_id=acting_client_id(self.session.connection),
                    actor=actor_name("the dashboard", self.agent),
                    agent=self.agent,
                    again_window=again_window(self.session.connection),
                    late_window=late_window(self.session.connection),
                    approve_above=approve_above(self.session.connection),
                    **self.executor_options,
                )
        self._executor.policy = self.policy()
        return self._executor

    async def batch_log(self) -> BatchLog:
        """The record of bulk actions, in the journal's file (opened once). Workers only."""
        executor = await self.executor()
        if self._batch_log is None:
            from paytui.actions.batch_log import BatchLog

            self._batch_log = await asyncio.to_thread(BatchLog, executor.journal.path)
        return self._batch_log

    async def _open_journal(self) -> Journal:
        """The journal (the session's: a team's PostgreSQL or this person's file), or
        `ActionRefused` with one line naming where and the cause."""
        if self.journal_error is not None:
            raise ActionRefused(Decision(False, self.journal_error))
        connection = self.session.connection
        location = self.journal_path or getattr(connection, "journal", None)
        secret = getattr(connection, "journal_password", None)
        try:
            # The app's clock (frozen in snapshot tests; the wall clock otherwise).
            return await asyncio.to_thread(
                open_journal,
                location,
                password=secret.get_secret_value() if secret is not None else None,
                clock=self.session.now,
                claim_lease=claim_lease(connection),
            )
        except JournalUnavailable as exc:
            self.journal_error = safe(f"Money actions are off: {exc}. No action without a journal.")
            raise ActionRefused(Decision(False, self.journal_error)) from None

    def watch(self, app: App[Any], deliver: Callable[[list[JournalEntry]], None]) -> None:
        """Follow the journal for other paytuis' entries (another agent, the command line) in a
        thread of its own, handing each batch to `deliver` on the app's loop. Once the executor
        exists; a journal that cannot be followed is simply not followed (the guard still
        holds when anything is sent)."""
        if self._watch is not None or self._executor is None:
            return
        from paytui.actions.watch import JournalWatch

        try:
            watch = JournalWatch(self._executor.journal, own=self._executor.owner)
        except Exception:
            return
        self._watch = watch
        board = self._start_presence(self._executor)
        told: Callable[[dict[str, tuple[Presence, ...]]], None] | None = getattr(
            app, "presence_changed_elsewhere", None
        )

        from paytui.actions.journal_anchor import Anchor

        journal, owner, anchor = self._executor.journal, self._executor.owner, Anchor()

        def follow() -> None:
            beat_at = -math.inf  # the first heartbeat at once (presence rows, claims, head)
            while not watch.closed:
                try:
                    found = watch.next()
                    seen = _follow_presence(board, heard=watch.presence_heard())
                    beat_at = _keep_up(journal, owner, anchor, beat_at, board)
                except Exception:  # the database went away: try again after a while
                    watch.pause(5.0)
                    continue
                try:
                    if found and not watch.closed:
                        app.call_from_thread(deliver, found)
                    if seen is not None and told is not None and not watch.closed:
                        app.call_from_thread(told, seen)
                except Exception:  # the app is closing
                    return

        # A thread of its own, not a worker: it never finishes, and waiting for the app's
        # workers (a test's settle, a screen's) must not wait for it. `aclose` stops it.
        threading.Thread(target=follow, name="paytui-journal-watch", daemon=True).start()

    # --- presence (docs/team.md, "Who else is on a charge") -----------------------------------
    def _start_presence(self, executor: ActionExecutor) -> PresenceBoard:
        """The board of this paytui's presence (a team journal's; a file's is empty), with what
        screens showed before it existed."""
        from paytui.actions.presence import PresenceBoard

        board = PresenceBoard(
            executor.journal,
            base_url=executor.base_url,
            agent=executor.agent,
            machine=executor.machine,
            owner=executor.owner,
            clock=executor.clock,
        )
        for (holder, target), (doing, amount) in self._presence_wanted.items():
            board.show(holder, target, doing, amount)
        self._presence_wanted.clear()
        self.presence = board
        self._flush_presence()
        return board

    def show_presence(
        self, holder: object, target: str, doing: str = "viewing", amount: Decimal | None = None
    ) -> None:
        """`holder` (a screen, a dialog) has `target` open: the others see it within a second.
        Never blocks and never fails (presence is a courtesy)."""
        if self.presence is None:
            self._presence_wanted[(holder, target)] = (doing, amount)
            return
        self.presence.show(holder, target, doing, amount)
        self._flush_presence()

    def hide_presence(self, holder: object, target: str | None = None) -> None:
        """`holder` closed `target` (every one it showed when None)."""
        for key in [k for k in self._presence_wanted if k[0] is holder]:
            if target is None or key[1] == target:
                del self._presence_wanted[key]
        if self.presence is not None:
            self.presence.hide(holder, target)
            self._flush_presence()

    def others_on(self, target: str) -> tuple[Presence, ...]:
        """The other agents on `target` now (none on a file journal, or before the board)."""
        return self.presence.on(target) if self.presence is not None else ()

    async def who_made(self, result_ids: list[str]) -> dict[str, str]:
        """ "by ana" / "outside paytui" for each refund or capture id (`presence.who_made`)."""
        from paytui.actions.presence import who_made

        executor = await self.executor()
        return await asyncio.to_thread(who_made, executor.journal, executor.base_url, result_ids)

    def _flush_presence(self) -> None:
        board = self.presence
        if board is None or not board.available:
            return
        if self._presence_writer is None:
            self._presence_writer = ThreadPoolExecutor(1, thread_name_prefix="paytui-presence")

        def flush() -> None:
            with contextlib.suppress(Exception):  # written again by the next beat
                board.flush()

        with contextlib.suppress(RuntimeError):  # shut down: the app is closing
            self._presence_writer.submit(flush)

    # --- the team's saved searches (on the journal) ------------------------------------------
    async def read_team_searches(self) -> dict[str, tuple[str, str | None]]:
        """The team's saved searches, read now (kept in `team_searches` for the jump line)."""
        executor = await self.executor()
        self.team_searches = await asyncio.to_thread(executor.journal.team_searches)
        return self.team_searches

    async def share_search(self, name: str, query: str) -> None:
        executor = await self.executor()
        await asyncio.to_thread(executor.journal.share_search, name, query, agent=executor.agent)
        await self.read_team_searches()

    async def unshare_search(self, name: str) -> None:
        executor = await self.executor()
        await asyncio.to_thread(executor.journal.unshare_search, name, agent=executor.agent)
        await self.read_team_searches()

    def describe(self, entry: JournalEntry) -> str:
        """Another paytui's entry in one line ("refunded 5.00 by … 4 s ago")."""
        if self._executor is None:
            return entry.actor or "another paytui"
        return self._executor.describe_entry(entry)

    async def reconcile_on_start(self) -> int:
        """Read back every entry whose outcome is not proven (unresolved ones, and "not
        applied" verdicts read back too early), waiting for ones sent so recently that a commit
        may still be in flight; returns how many got a proven verdict."""
        executor = await self.executor()
        settle = executor.settle_seconds
        before = [e for e in executor.history(limit=1000) if not e.proven(settle)]
        if not before:
            return 0
        await executor.reconcile_all(wait=True)
        after = {e.id for e in executor.history(limit=1000) if not e.proven(settle)}
        return sum(1 for e in before if e.id not in after)

    async def aclose(self, *, leave: bool = True) -> None:
        """Closed: the watch stopped, the journal let go. `leave` False keeps this process's
        presence rows and claims on the journal (another workspace's session on the same
        journal holds them too, under the same owner: `paytui.ui.workspaces`)."""
        if self._watch is not None:
            self._watch.close()
        if self._presence_writer is not None:
            self._presence_writer.shutdown(wait=False, cancel_futures=True)
        board = self.presence
        if board is not None and board.available and leave:
            # Gone at once for the others, not after the lease. Bounded, as the claims below.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.to_thread(board.leave), timeout=3.0)
        if self._executor is not None and not leave:
            with contextlib.suppress(Exception):
                await self._executor.aclose()
        elif self._executor is not None:
            # This paytui's claims go with it: its lock (or process) dies anyway, but the rows
            # should not linger for the others to read. Bounded: exit never waits on a network.
            executor = self._executor
            release = asyncio.to_thread(executor.journal.release_all, owner=executor.owner)
            try:
                await asyncio.wait_for(release, timeout=3.0)
            except TimeoutError:
                self._journal = None  # still busy in its thread: not closed under it
            except Exception:
                pass  # the journal is unreachable: the claims die with this process's lock
            with contextlib.suppress(Exception):
                await self._executor.aclose()
        if self._journal is not None:
            with contextlib.suppress(Exception):
                self._journal.close()
        if self._batch_log is not None:
            with contextlib.suppress(Exception):
                self._batch_log.close()


def _keep_up(
    journal: Journal, owner: str, anchor: Anchor, last: float, board: PresenceBoard
) -> float:
    """The watch thread's one heartbeat, every `CLAIM_BEAT` or the presence board's `beat_every`
    if shorter (both 10 s):
    renew this paytui's claims and its presence rows, so they live while it does (docs/team.md,
    "Claims", "Who else is on a charge"), and record the trail's head it sees outside the
    database (`paytui.actions.journal_anchor`). When it last did (monotonic)."""
    from paytui.actions.journal_claims import CLAIM_BEAT

    now = time.monotonic()
    if now - last < min(CLAIM_BEAT, board.beat_every).total_seconds():
        return last
    with contextlib.suppress(Exception):  # the database away: the next beat tries again
        journal.beat_claims(owner=owner)
        journal.remember_head(anchor)
    if board.available:
        with contextlib.suppress(Exception):  # a courtesy, as `_follow_presence`
            board.beat()
    return now


def _follow_presence(
    board: PresenceBoard, *, heard: bool
) -> dict[str, tuple[Presence, ...]] | None:
    """The watch thread's presence round: read the others' when one of them notified or a
    lease shown has lapsed (this paytui's own rows are renewed by the one heartbeat,
    `_keep_up`). Returns who is where when that changed (None: nothing to tell the screens)."""
    if not board.available:
        return None
    try:
        if (heard or board.lapse_due() or board.never_read) and board.read():
            return board.others()
    except Exception:  # a courtesy: the journal's own news must not wait for it
        return None
    return None


__all__ = ["ActionsService"]
