"""Rules that hold on every screen and modal, generated from the screens and the action registry.

`every_screen()` walks `paytui.ui.screens`, so a screen added later is covered without editing
these tests; `writing_actions()` is the registry's list, so is an action added later.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from paytui.actions.registry import spec_for, writing_actions
from paytui.ui import bindings as keys
from paytui.ui.app import PaytuiApp
from tests.ui.conftest import LIMITED_CLIENT_ID, LIMITED_CLIENT_SECRET, settle
from tests.ui.every_screen import every_screen

AppFactory = Callable[..., PaytuiApp]


async def _write_actions_are_off(app: PaytuiApp, pilot: Any, name: str, seen: set[str]) -> None:
    """On the screen on top: every writing action bound here is disabled, says why, and does
    nothing when run anyway (its id is added to `seen`)."""
    writes = {spec.id for spec in writing_actions()}
    screen = app.screen
    for live in keys.live_bindings(screen):
        # Help's headings are words for people, never a class name ("FitNavTable").
        assert not re.fullmatch(r"(?:[A-Z][a-z]+){2,}", live.scope), (name, live.scope)
        spec = spec_for(live.binding.action)
        if spec is None or spec.id not in writes:
            continue
        seen.add(spec.id)
        where = f"{name}: {live.binding.action} (read-only: {app.session.read_only})"
        assert not live.enabled, where
        assert live.reason, where  # help says why
        depth = len(app.screen_stack)
        assert await app.run_action(live.binding.action, live.namespace) is False, where
        await pilot.pause()
        assert len(app.screen_stack) == depth and app.screen is screen, where


#: The walk is cut into this many parts, each its own test with its own app, so the workers
#: share it (one walk was the suite's longest item, which no worker could split).
PARTS = 6


@pytest.mark.parametrize("part", range(PARTS))
async def test_every_screen_and_modal_shows_production_and_runs_no_write_action(
    sandbox_transport: Any, part: int
) -> None:
    """A walk over every screen and modal (this part: every `PARTS`-th of them), each opened on a
    production profile whose token lacks every write scope:

    - the red PRODUCTION bar is on the top line, at 120x40 and at 80x24 (full-screen dialogs
      included; what is checked is the layout at each size, so the app is resized on each
      screen rather than started twice);
    - every writing action bound there is disabled, says why and does nothing when run, both
      as the profile is read-only and, read-only off, for want of the scope (two reasons from
      the one gate, `PaytuiApp.why_disabled`: a screen that looked at one only would fail).
    """
    from tests.ui.conftest import make_app, screen_text, screen_top_line
    from tests.ui.every_screen import _connection

    app = make_app(
        sandbox_transport,
        connection=_connection(),
        client_id=LIMITED_CLIENT_ID,
        client_secret=LIMITED_CLIENT_SECRET,
    )
    sizes = [(120, 40), (80, 24)]
    seen: dict[bool, set[str]] = {True: set(), False: set()}
    hidden = []
    screens = every_screen()[part::PARTS]
    assert screens  # every part walks something
    async with app.run_test(size=sizes[0]) as pilot:
        await settle(app, pilot)
        await app.actions.executor()  # the token's scopes are known from here on
        for index, (name, build) in enumerate(screens):
            screen = build()
            await app.push_screen(screen)
            await settle(app, pilot)
            assert app.screen is screen, name
            # Each screen is opened at the size the last one was left at, then resized.
            for size in sizes:
                if app.size != size:
                    await pilot.resize_terminal(*size)
                    await settle(app, pilot)
                top = screen_top_line(app)
                if index == 0:  # the one-line render reads as the whole screen's first line
                    assert top.rstrip() == screen_text(app).splitlines()[0].rstrip()
                if "PRODUCTION" not in top or "prod" not in top:
                    hidden.append((name, "{}x{}".format(*size), top))
            sizes.reverse()
            for read_only in (True, False):
                app.session.read_only = read_only
                await _write_actions_are_off(app, pilot, name, seen[read_only])
            await app.pop_screen()
    assert not hidden
    assert seen[True] == seen[False]  # the same actions are bound, read-only or not


def test_every_writing_action_is_bound_on_some_screen() -> None:
    """Not vacuous: every writing action of the registry is bound by some screen or widget,
    so the walk above meets each of them (the bindings are those help and docs/keys.md list)."""
    bound = {
        spec.id
        for group in keys.all_groups()
        for binding in group.bindings
        if (spec := spec_for(binding.action)) is not None
    }
    writes = {spec.id for spec in writing_actions()}
    assert writes <= bound, writes - bound


async def test_write_actions_are_enabled_with_every_scope(app_factory: AppFactory) -> None:
    """The other side: with every scope and not read-only, the policy allows each of them."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await app.actions.executor()
        for spec in writing_actions():
            reason = app.why_disabled(spec.id, _subject_for(spec.id, spec.subject))
            assert reason is None, (spec.id, reason)


class _Retryable:
    retryable = True
    operation = "refund"


def _subject_for(action: str, kind: str | None) -> Any:
    from paytui.api.models import Charge
    from tests.ui.every_screen import TOKEN

    if kind == "entry":
        return _Retryable()
    if kind == "token":
        return TOKEN
    if kind == "refund":
        from paytui.api.models import Refund

        return Refund(refund_id="r1", status="success")
    if kind == "charge":
        charge_type = "authorization" if action == "capture" else "sale"
        return Charge(charge_id="c1", status="success", charge_type=charge_type)
    if kind == "account":
        from paytui.api.models import Account

        return Account(account_id="pa_1", status="approved")
    if kind == "session":
        from tests.ui.every_screen import SESSION

        return SESSION
    if kind is None:
        return None
    # A family read generically (a conversation, a customer): an object of it, as the
    # browser's row gives it; a new family's action needs no branch here.
    from paytui.api.families import GenericObject

    return GenericObject.model_validate({f"{kind}_id": f"{kind}_1", "status": "open"})
