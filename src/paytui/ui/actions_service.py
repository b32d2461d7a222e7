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
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paytui.actions import ActionExecutor, ActionPolicy, Decision, Journal

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient


def _decimal_or_none(value: object) -> Decimal | None:
    if value is None or isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value))
    except ArithmeticError:
        return None


class ActionsService:
    """Builds (once) the journal and the executor; answers the policy question for screens."""

    def __init__(self, app: Any, *, journal_path: Path | str | None = None) -> None:
        self.app = app
        self.journal_path = journal_path
        self._journal: Journal | None = None
        self._executor: ActionExecutor | None = None
        self._lock: asyncio.Lock | None = None

    # --- policy -----------------------------------------------------------------------------
    def policy(self) -> ActionPolicy:
        """The policy as of now: scopes from the client, the rest from the app's attributes."""
        app = self.app
        scopes = getattr(getattr(app, "connected_client", None), "granted_scopes", None)
        return ActionPolicy(
            granted_scopes=frozenset(scopes) if scopes is not None else None,
            read_only=bool(getattr(app, "read_only", False)),
            environment=str(getattr(app, "environment", "sandbox") or "sandbox"),
            confirm_threshold=_decimal_or_none(getattr(app, "confirm_threshold", None)),
        )

    def check(self, operation: str) -> Decision:
        """May `operation` run? (For disabling a key and naming the missing scope.)"""
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
            client: PaymentClient = await self.app.get_client()
            # A profile switch replaces the client: a new executor for it (same journal).
            if self._executor is None or self._executor.client is not client:
                if getattr(client, "granted_scopes", None) is None:
                    # Learn the token's scopes now, so keys are disabled before a refusal.
                    with contextlib.suppress(Exception):
                        await client.authenticate()
                if self._journal is None:
                    # The app's clock (frozen in snapshot tests; the wall clock otherwise).
                    clock = getattr(self.app, "now", None)
                    kwargs = {"clock": clock} if callable(clock) else {}
                    self._journal = await asyncio.to_thread(Journal, self.journal_path, **kwargs)
                journal = self._journal
                self._executor = ActionExecutor(
                    client,
                    journal,
                    self.policy(),
                    profile=str(getattr(self.app, "profile_name", "default")),
                    base_url=str(getattr(client, "base_url", "")),
                )
        self._executor.policy = self.policy()
        return self._executor

    async def reconcile_on_start(self) -> int:
        """Read back every unresolved entry; returns how many were resolved."""
        executor = await self.executor()
        before = [e for e in executor.history(limit=1000) if e.unresolved]
        if not before:
            return 0
        await executor.reconcile_all()
        after = {e.id for e in executor.history(limit=1000) if e.unresolved}
        return sum(1 for e in before if e.id not in after)

    async def aclose(self) -> None:
        if self._executor is not None:
            with contextlib.suppress(Exception):
                await self._executor.aclose()
        if self._journal is not None:
            with contextlib.suppress(Exception):
                self._journal.close()


__all__ = ["ActionsService"]
