"""The module's shared app (`tests/ui/shared_app.py`): after a test, the reset brings it back to
what a fresh app shows, a write fails the test that made it, and what the reset cannot undo
fails the test too."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from tests.ui.conftest import _BUSY, press_settled, screen_text
from tests.ui.shared_app import (
    SIZE,
    SharedApp,
    SharedAppLeaked,
    app_and_pilot,
    fingerprint,
    quiet,
    shared_app_test,
)


@shared_app_test
async def test_the_reset_app_shows_what_a_fresh_app_shows(
    _shared_app: SharedApp, app_factory: Callable[..., PaytuiApp]
) -> None:
    pilot = await _shared_app.begin_test()
    app = app_and_pilot(pilot)[0]
    built = _shared_app.built
    # What a reading test leaves: the cursor moved, a mark, a copy, a notification, a screen on
    # top with the focus in it, the account in focus changed.
    await press_settled(app, pilot, "j", "j", "space", "j", "y")
    await press_settled(app, pilot, "enter")
    assert isinstance(app.screen, ChargeDetailScreen)
    left = fingerprint(app)
    changed = {k for k, v in left.items() if _shared_app.first_facts.get(k) != v}
    assert {"screens", "focused", "notifications", "clipboard", "account in focus"} <= changed

    await _shared_app.end_test()

    fresh = app_factory()
    async with fresh.run_test(size=SIZE) as fresh_pilot:
        fresh_text, fresh_facts = await quiet(fresh, fresh_pilot), fingerprint(fresh)
    assert screen_text(app) == fresh_text
    assert fingerprint(app) == fresh_facts
    assert not [w for w in app.workers if w.state in _BUSY]
    # The same app goes on to the next test: nothing was built again.
    assert await _shared_app.begin_test() is pilot and _shared_app.built == built
    await _shared_app.end_test()


@shared_app_test
async def test_a_write_fails_the_test_and_the_app_is_built_again(_shared_app: SharedApp) -> None:
    pilot = await _shared_app.begin_test()
    built = _shared_app.built
    with _shared_app.store.write() as conn:  # what a money action's request would do
        conn.execute("UPDATE charges SET status = status WHERE id = 1")
    with pytest.raises(SharedAppLeaked, match="wrote"):
        await _shared_app.end_test()
    assert _shared_app.app is None and not pilot.app.is_running
    again = await _shared_app.begin_test()
    assert again is not pilot and _shared_app.built == built + 1
    await _shared_app.end_test()


@shared_app_test
async def test_what_the_reset_cannot_undo_fails_the_test(_shared_app: SharedApp) -> None:
    pilot = await _shared_app.begin_test()
    client = await app_and_pilot(pilot)[0].get_client()
    client.get_charge = client.get_charge  # type: ignore[method-assign]
    with pytest.raises(SharedAppLeaked, match="client's methods replaced"):
        await _shared_app.end_test()
    assert _shared_app.app is None and not pilot.app.is_running
