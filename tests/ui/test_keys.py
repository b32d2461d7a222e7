"""One key language (issue 15, part 6): one meaning per key, docs/keys.md generated from it."""

from __future__ import annotations

from typing import Any

import pytest

from paytui.ui.bindings import (
    BROWSER_KEYS,
    KEY_ALLOW_LIST,
    LiveBinding,
    all_groups,
    key_map,
    meaning,
)
from paytui.ui.screens.help import browser_note


def test_one_meaning_per_key() -> None:
    """A key bound to two different actions anywhere in the app fails, unless it is in the short
    documented allow-list (`KEY_ALLOW_LIST`, shown in docs/keys.md)."""
    clashes = {
        key: meanings
        for key, meanings in key_map().items()
        if len(meanings) > 1 and key not in KEY_ALLOW_LIST
    }
    assert not clashes


def test_the_allow_list_is_short_and_used() -> None:
    used = {key for key, meanings in key_map().items() if len(meanings) > 1}
    assert set(KEY_ALLOW_LIST) <= used  # no stale excuses
    assert len(KEY_ALLOW_LIST) <= 6


def test_the_listed_clashes_are_gone() -> None:
    """c, n, R, s, j, paging and q each mean one thing now."""
    found = key_map()
    assert set(found["c"]) == {"capture"}
    assert set(found["n"]) == {"new_charge"}
    assert set(found["R"]) == {"quick_view('ach_returns')"}
    assert set(found["s"]) == {"cycle_sort"}
    assert set(found["j"]) == {"cursor_down"}
    assert "p" not in found
    # Every list pages the one way, by scrolling: no list has paging keys of its own.
    assert "right_square_bracket" not in found and "left_square_bracket" not in found
    assert set(found["q"]) == {"back"}


def test_every_key_a_browser_keeps_has_another() -> None:
    """`paytui serve`: the browser keeps ctrl+w, ctrl+t, ctrl+n, ctrl+tab, ctrl+PgUp and ctrl+PgDn,
    so each binding
    with one has another key, and the help's note in a browser names it (or says there is none
    after a remap)."""
    kept = [
        binding
        for group in all_groups()
        for binding in group.bindings
        if set(binding.key.split(",")) & set(BROWSER_KEYS)
    ]
    assert {binding.id for binding in kept} == {
        "charges.claim_next",
        "app.new_workspace",
        "app.next_workspace",
        "app.previous_workspace",
    }
    for binding in kept:
        assert set(binding.key.split(",")) - set(BROWSER_KEYS), binding.id
    claim_next = next(binding for binding in kept if binding.id == "charges.claim_next")
    live = [
        LiveBinding(None, claim_next, ("ctrl+n", "ctrl+g"), True),  # type: ignore[arg-type]
        LiveBinding(None, claim_next, ("ctrl+t",), True),  # type: ignore[arg-type]
    ]
    assert browser_note(live) == (
        "In a browser, the browser keeps ctrl+w, ctrl+t, ctrl+n, ctrl+tab, ctrl+PgUp and ctrl+PgDn"
        " (close tab, new tab, new window, next tab, previous and next tab); here use Claim next"
        " free: ctrl+g; Claim next free: none (give it "
        "one in [keymap])."
    )
    assert browser_note([]).endswith("previous and next tab).")


def test_every_binding_has_an_id() -> None:
    for group in all_groups():
        for binding in group.bindings:
            assert binding.id, (group.title, binding.key, meaning(binding))


@pytest.mark.asyncio
async def test_q_goes_back_on_pushed_screens_and_1_shows_the_top(app_factory: Any) -> None:
    from paytui.ui.screens.charges import ChargeSearchScreen
    from paytui.ui.screens.refunds import RefundsScreen
    from tests.ui.conftest import settle

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        top = app.screen
        assert isinstance(top, ChargeSearchScreen)
        await app.run_action("refunds")
        await settle(app, pilot)
        assert isinstance(app.screen, RefundsScreen)
        await pilot.press("1")  # always the charge search itself
        await settle(app, pilot)
        assert app.screen is top
        await app.run_action("refunds")
        await settle(app, pilot)
        await pilot.press("q")  # back, not quit
        await settle(app, pilot)
        assert app.screen is top and app.is_running
        await pilot.press("q")  # from a top-level screen: quits
        await pilot.pause()
        assert app.return_code == 0 or not app.is_running


def test_a_remap_onto_another_actions_key_is_named_not_silent() -> None:
    """`"charges.refund" = "R"` took "ACH returns" on the charge search: the collision is said,
    naming both; the docs' own examples collide with nothing."""
    from paytui.ui.bindings import keymap_collisions

    (said,) = keymap_collisions({"charges.refund": "R"})
    assert "charges.refund (Refund)" in said and "charges.view_returns (ACH returns)" in said
    assert keymap_collisions({"charges.refund": "F", "charges.copy_id": "ctrl+y"}) == []
    assert keymap_collisions({"table.down": "j,down,ctrl+j"}) == []


#: The keys that exist on many screens and the one thing each means on all of them (issue 44).
KEY_LANGUAGE = {
    "space": "toggle_mark",
    "enter": "open",
    "escape": "back",
    "r": "refund",
    "c": "capture",
}


def test_a_key_means_the_same_on_every_screen_where_it_exists() -> None:
    """Over every screen's bindings (each screen's one declarative description, walked by
    `all_groups`): space marks, enter opens, escape goes back, r refunds, c captures —
    wherever they are bound. Enter's one other use is a dialog's going ahead."""
    found = key_map()
    for key, wanted in KEY_LANGUAGE.items():
        meanings = dict(found[key])
        if key == "enter":
            ahead = {what: where for what, where in meanings.items() if what != wanted}
            assert all("dialog" in title for where in ahead.values() for title in where), ahead
            meanings = {wanted: meanings[wanted]}
        assert set(meanings) == {wanted}, (key, meanings)
    # Enter opened the row under names of its own on ten lists: one meaning now.
    assert len(found["enter"]["open"]) >= 8
