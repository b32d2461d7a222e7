"""What a screen's first visit would pay is paid after the first page (`paytui.ui.warm_up`).

Through events and counts, never time: the warm-up's end (`WarmUp.done`), the parses the App's
stylesheet holds, and the parses a first visit makes (Textual's parser counted: `css_parses`).
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from paytui.ui import warm_up
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.tokens import TokensScreen
from paytui.ui.warm_up import BUILT_AHEAD, QUIET, WarmUp
from tests.ui.conftest import HANG_GUARD, settle


async def first_page_shown(app: PaytuiApp) -> None:
    """The start-up's deferred work ran (`after_start`: the warm-up is made then)."""
    shown = asyncio.Event()
    app.after_start(shown.set)
    await asyncio.wait_for(shown.wait(), timeout=HANG_GUARD)


async def warmed_up(app: PaytuiApp, pilot: Any) -> None:
    """The first page shown, then the whole warm-up ended (`WarmUp.done`) and settled."""
    await first_page_shown(app)
    assert app.warm_up is not None
    await asyncio.wait_for(app.warm_up.done.wait(), timeout=HANG_GUARD)
    await settle(app, pilot)


@asynccontextmanager
async def warmed_app(
    app_factory: Callable[..., PaytuiApp],
    monkeypatch: pytest.MonkeyPatch,
    built: tuple[str, ...],
) -> AsyncIterator[tuple[PaytuiApp, Any]]:
    """The app (120x40) whose warm-up, started at once, built `built` ahead and has ended
    (`warmed_up`): the app and its pilot."""
    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    monkeypatch.setattr(warm_up, "BUILT_AHEAD", built)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await warmed_up(app, pilot)
        yield app, pilot


def counted_layouts(monkeypatch: pytest.MonkeyPatch, screen: Any) -> list[object]:
    """Each layout of `screen` from now on (`Screen._refresh_layout`'s arguments), in order."""
    layouts: list[object] = []
    laid_out = screen._refresh_layout

    def counted(*args: Any, **kwargs: Any) -> None:
        layouts.append(args)
        laid_out(*args, **kwargs)

    monkeypatch.setattr(screen, "_refresh_layout", counted)
    return layouts


def counted(drawn: list[str], name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """`method`, noting `name` in `drawn` at each call."""

    def noted(*args: Any, **kwargs: Any) -> Any:
        drawn.append(name)
        return method(*args, **kwargs)

    return noted


def css_file(screen: type[Any]) -> str:
    return os.path.abspath(str(screen.CSS_PATH))


async def test_after_the_first_page_a_screens_css_is_parsed_and_its_first_visit_parses_none(
    app_factory: Callable[..., PaytuiApp],
    monkeypatch: pytest.MonkeyPatch,
    css_parses: Counter[tuple[object, ...]],
) -> None:
    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    app = app_factory()  # the product's app, as it starts: the warm-up is on
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await first_page_shown(app)
        assert app.warm_up is not None
        await asyncio.wait_for(app.warm_up.done.wait(), timeout=HANG_GUARD)

        sheet = app.stylesheet
        path = css_file(TokensScreen)
        # Parsed, not added: a screen's CSS file applies to every screen once it is added.
        assert not sheet.has_source(path)
        key = (Path(path).read_text(encoding="utf-8"), (path, ""), False, 0, "")
        assert sheet._parse_cache.get(key)
        before = Counter(css_parses)

        await pilot.press("2")
        await settle(app, pilot)
        assert isinstance(app.screen, TokensScreen)
        assert sheet.has_source(path)
        # The first visit added the screen's CSS and its widgets', and parsed none of it.
        assert css_parses == before


async def test_the_warm_up_waits_while_keys_are_typed(
    app_factory: Callable[..., PaytuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = app.last_typed
        await pilot.press("j")
        typed = app.last_typed
        assert typed > before
        assert WarmUp(app, modules=(), clock=lambda: typed + QUIET / 2).busy()
        assert not WarmUp(app, modules=(), clock=lambda: typed + QUIET).busy()


async def test_in_screen_reader_mode_the_warm_up_says_nothing(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    monkeypatch.setattr(warm_up, "BUILT_AHEAD", BUILT_AHEAD)  # screens built and read, unsaid
    app = app_factory(screen_reader=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await first_page_shown(app)
        await settle(app, pilot)  # what the start-up's deferred work set off, said first
        assert app.announcer is not None and app.warm_up is not None
        said = list(app.announcer.lines)
        screens = list(app.screen_stack)
        await asyncio.wait_for(app.warm_up.done.wait(), timeout=HANG_GUARD)
        await settle(app, pilot)
        assert app.announcer.lines == said
        assert list(app.screen_stack) == screens


async def test_the_top_screens_are_built_and_read_ahead_and_a_first_visit_shows_them(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the CSS, the list screens a number key opens are built, not shown, their first
    page read; `2` then shows that very screen with its rows, as a later visit does. The
    charge search stays in front all along; nothing is notified."""
    async with warmed_app(app_factory, monkeypatch, BUILT_AHEAD) as (app, pilot):
        assert app.warm_up.built == list(BUILT_AHEAD)
        assert isinstance(app.screen, ChargeSearchScreen)
        (ahead,) = app._screen_stacks["tokens"]
        assert isinstance(ahead, TokensScreen) and ahead.is_mounted
        assert ahead.tokens and ahead.built_ahead  # read, and not shown yet
        assert not app._notifications

        # Laid out ahead at the terminal's size (and drawn): the visit needs no new layout.
        assert ahead.size == app.size and ahead.query_one("#tokens").size.height > 0
        await pilot.press("2")
        await settle(app, pilot)
        assert app.screen is ahead and not ahead.built_ahead


async def test_a_read_that_fails_ahead_is_told_when_the_screen_is_first_shown(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person is on the charge list while the tokens are read ahead: a failure is not
    notified there (about a screen not asked for), but on the first visit, as that visit's own
    read would have been."""
    from paytui.api.errors import ServerError

    async def failing(self: TokensScreen, client: object, offset: int, limit: int) -> object:
        raise ServerError("tokens unreadable", status=503)

    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    monkeypatch.setattr(warm_up, "BUILT_AHEAD", ("tokens",))
    monkeypatch.setattr(TokensScreen, "fetch", failing)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await warmed_up(app, pilot)
        assert app.warm_up.built == ["tokens"]
        assert not app._notifications

        await pilot.press("2")
        await settle(app, pilot)
        assert isinstance(app.screen, TokensScreen)
        told = [n for n in app._notifications if n.severity == "error"]
        assert len(told) == 1 and "tokens unreadable" in told[0].message


async def test_history_and_today_are_built_and_read_ahead_and_their_first_visits_show_them(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """History and Today are built ahead too (last, Today's whole-service read once nothing
    else runs): the journal's rows and Today's queue are on their screens before `5` and `0`,
    which show those very screens, read, as a later visit does. Nothing is notified meanwhile."""
    from paytui.actions.ops import capture as capture_op
    from paytui.ui.screens.history import HistoryScreen
    from paytui.ui.screens.today import TodayScreen
    from tests.ui.test_money_actions import OPEN_AUTHS, find

    journal = tmp_path / "journal.sqlite3"
    first = app_factory(journal_path=journal)  # an earlier session left an action in the journal
    async with first.run_test(size=(120, 40)) as pilot:
        await settle(first, pilot)
        auth = await find(first, OPEN_AUTHS)
        executor = await first.actions.executor()
        await executor.run("capture", auth.charge_id, capture_op.Params())

    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    monkeypatch.setattr(warm_up, "BUILT_AHEAD", BUILT_AHEAD)
    assert BUILT_AHEAD[-2:] == ("history", "today")
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await warmed_up(app, pilot)
        assert isinstance(app.screen, ChargeSearchScreen)
        assert app.warm_up is not None and app.warm_up.built[-2:] == ["history", "today"]
        (history,) = app._screen_stacks["history"]
        (today,) = app._screen_stacks["today"]
        assert isinstance(history, HistoryScreen) and history.built_ahead
        assert [row.charge_id for row in history.rows] == [auth.charge_id]
        assert isinstance(today, TodayScreen) and today.built_ahead
        assert today.queue is not None and today.items and not today.reading
        assert not app._notifications

        await pilot.press("5")
        await settle(app, pilot)
        assert app.screen is history and not history.built_ahead
        assert [row.charge_id for row in history.rows] == [auth.charge_id]
        await pilot.press("0")
        await settle(app, pilot)
        assert app.screen is today and not today.built_ahead
        assert today.highlighted() is today.items[0]


async def test_what_the_warm_up_built_is_frozen_for_the_collector_once_it_is_over(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screens built ahead (Today's queue and pulse among them) live as long as the app:
    once the warm-up is over they are frozen for the cyclic collector, once a process
    (`paytui.collector.freeze_warmed_up`), so the full collections a later read sets off do
    not walk them. (The start froze earlier, here taken as done; `gc.freeze` is only noted.)"""
    import gc

    from paytui import collector

    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    monkeypatch.setattr(warm_up, "BUILT_AHEAD", ("tokens",))
    monkeypatch.setattr(collector, "_frozen", True)
    monkeypatch.setattr(collector, "_warmed_up_frozen", False)
    app = app_factory()
    frozen: list[list[str]] = []

    def freeze() -> None:
        assert app.warm_up is not None
        frozen.append(list(app.warm_up.built))

    monkeypatch.setattr(gc, "freeze", freeze)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await warmed_up(app, pilot)
        assert frozen == [["tokens"]]  # once, with what was built ahead
        collector.freeze_warmed_up()  # a later app of the same process: nothing more
        assert frozen == [["tokens"]]


def _styles_of_every_node(app: PaytuiApp) -> dict[int, dict[str, object]]:
    """Each node's rules from the stylesheet, by node, over every screen built (shown or not)."""
    nodes: list[Any] = [app]
    for stack in app._screen_stacks.values():
        for screen in stack:
            nodes.extend(screen.walk_children(with_self=True))
    return {id(node): dict(node._css_styles._rules) for node in nodes}


async def test_the_charge_details_css_is_added_ahead_and_its_first_open_restyles_no_other_node(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The charge detail's CSS file is added to the stylesheet in the warm-up, so the first
    Enter restyles no node of the app but the new screen's (Textual restyles the whole app when
    a push adds a file: every screen built ahead), and the detail is styled by it all the same.
    Adding the files ahead changed no node built: a whole restyle after the warm-up (every top
    screen built ahead) leaves every node's rules as they were."""
    from textual.css.stylesheet import Stylesheet

    from paytui.ui.screens.charge_detail import ChargeDetailScreen

    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    monkeypatch.setattr(warm_up, "BUILT_AHEAD", BUILT_AHEAD)
    restyled: list[object] = []
    update = Stylesheet.update

    def counted(self: Stylesheet, root: Any, animate: bool = False) -> None:
        restyled.append(root)
        update(self, root, animate=animate)

    monkeypatch.setattr(Stylesheet, "update", counted)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await warmed_up(app, pilot)
        (path,) = warm_up.pushed_css_files(ChargeDetailScreen)
        assert app.stylesheet.has_source(path)
        styles = _styles_of_every_node(app)
        app.stylesheet.update(app)
        assert _styles_of_every_node(app) == styles

        restyled.clear()
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert app not in restyled
        heading = app.screen.query_one("#detail-heading")
        assert heading.styles.padding.left == 1  # charge_detail.tcss


async def test_today_built_ahead_is_laid_out_again_where_asked_and_its_first_visit_lays_out_none(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual lays out the screen in front only: what asked Today for a layout after it was
    drawn ahead (its pulse's rows mounted, its scrollbars restyled) is laid out by the warm-up,
    not by `0`, whose visit then lays out nothing, as a later one."""
    from paytui.ui.screens.today import TodayScreen

    async with warmed_app(app_factory, monkeypatch, ("today",)) as (app, pilot):
        (today,) = app._screen_stacks["today"]
        assert isinstance(today, TodayScreen) and today.built_ahead
        assert not today._layout_required

        layouts = counted_layouts(monkeypatch, today)
        await pilot.press("0")
        await settle(app, pilot)
        assert app.screen is today and today.items
        assert layouts == []


async def test_a_screen_built_ahead_is_laid_out_by_its_first_visits_own_switch_as_a_later_one(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`App.switch_mode` lays out a screen shown before in the key's own step, and its frame
    follows at once; one never shown waited for its update timer, after the switch held the
    display (50 ms). The screen built ahead counts as shown: `5` lays History out in the switch,
    and every later `5` does the same."""
    from paytui.ui.screens.history import HistoryScreen

    async with warmed_app(app_factory, monkeypatch, ("history",)) as (app, pilot):
        (history,) = app._screen_stacks["history"]
        assert isinstance(history, HistoryScreen) and not history.is_current

        layouts = counted_layouts(monkeypatch, history)
        in_the_switch: list[int] = []
        switch = app.switch_mode

        def switched(mode: str) -> Any:
            before = len(layouts)
            result = switch(mode)
            in_the_switch.append(len(layouts) - before)
            return result

        monkeypatch.setattr(app, "switch_mode", switched)
        for _ in range(2):
            await pilot.press("5")
            await settle(app, pilot)
            assert app.screen is history
            await pilot.press("1")
            await settle(app, pilot)
        assert in_the_switch == [1, 0, 1, 0]  # `5` laid History out, `1` did not


async def test_a_screen_built_ahead_is_drawn_after_its_styling_so_its_first_visit_draws_no_row(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Styling a table drops every line it drew (`DataTable.notify_style_update`). Each screen
    built ahead is styled once all are built (a later build adds CSS); drawn before that, its
    first visit drew its table's rows again (Tokens and Accounts: 21 lines, 7-9 ms, where a
    later visit draws none), unless a layout asked for since happened to draw it again. The
    warm-up draws each screen after styling it: the table's last draw comes after its
    styling, and `2` draws no row of it."""
    from textual.widget import Widget
    from textual.widgets import DataTable

    from paytui.ui.textual_fixes import StyledWhileHidden

    steps: list[tuple[str, object]] = []
    style_ahead = StyledWhileHidden.style_ahead
    render_lines = Widget.render_lines

    def styled(self: StyledWhileHidden) -> None:
        steps.append(("styled", self))
        style_ahead(self)

    def drawn(self: Widget, crop: Any) -> Any:
        if isinstance(self, DataTable):
            steps.append(("drawn", self.screen))
        return render_lines(self, crop)

    monkeypatch.setattr(StyledWhileHidden, "style_ahead", styled)
    monkeypatch.setattr(Widget, "render_lines", drawn)
    # Every top screen built ahead: the later builds add CSS.
    async with warmed_app(app_factory, monkeypatch, BUILT_AHEAD) as (app, pilot):
        (ahead,) = app._screen_stacks["tokens"]
        own = [step for step, screen in steps if screen is ahead]
        assert "styled" in own and own[-1] == "drawn" and not ahead.is_current

        table = ahead.query_one("#tokens", DataTable)
        rows: list[str] = []
        for name in ("_render_cell", "_render_line_in_row"):  # a cell, a row's line
            monkeypatch.setattr(table, name, counted(rows, name, getattr(table, name)))
        await pilot.press("2")
        await settle(app, pilot)
        assert app.screen is ahead and ahead.tokens
        assert rows == []


async def test_a_screen_built_ahead_has_its_update_timer_running_before_its_first_visit(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Textual timer's first tick comes a whole period (1/60 s) after it is first resumed, a
    later one at once: the screen built ahead has its update timer tick while hidden, so its
    first visit's draw does not wait for that period where a later one would not."""
    from textual.timer import Timer

    ticked: dict[object, asyncio.Event] = {}
    tick = Timer._tick

    async def noted(self: Timer, **kwargs: Any) -> None:
        if self.name == "screen_update":
            ticked.setdefault(self.target, asyncio.Event()).set()
        await tick(self, **kwargs)

    monkeypatch.setattr(Timer, "_tick", noted)
    async with warmed_app(app_factory, monkeypatch, ("tokens",)) as (app, _pilot):
        (ahead,) = app._screen_stacks["tokens"]
        assert not ahead.is_current
        ticked.setdefault(ahead, asyncio.Event())
        await asyncio.wait_for(ticked[ahead].wait(), timeout=HANG_GUARD)
        assert not ahead.is_current  # ticked while hidden, before any visit


async def test_a_screen_built_ahead_is_written_once_on_its_first_visit_as_on_a_later_one(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Laid out ahead, a screen had its whole region marked to be written: the first visit's
    switch wrote it as it laid the screen out, and the resume's refresh wrote it all again.
    The warm-up leaves nothing owed: `2` writes nothing in the switch itself, as a later `2`
    (counted in the switch's own step, which is synchronous: not a count of what fits in a
    time); each visit's frame is then the resume's."""
    from textual.screen import Screen

    async with warmed_app(app_factory, monkeypatch, ("tokens",)) as (app, pilot):
        (ahead,) = app._screen_stacks["tokens"]
        written: list[object] = []
        draw = Screen._compositor_refresh  # the tests' own: frames no test looks at unpainted

        def noted(screen: Screen[Any]) -> None:
            if screen is ahead and screen._compositor._dirty_regions:  # a frame to write
                written.append(set(screen._compositor._dirty_regions))
            draw(screen)

        monkeypatch.setattr(Screen, "_compositor_refresh", noted)
        in_the_switch: list[int] = []
        switch = app.switch_mode

        def switched(mode: str) -> Any:
            before = len(written)
            result = switch(mode)
            if app.screen is ahead:
                in_the_switch.append(len(written) - before)
            return result

        monkeypatch.setattr(app, "switch_mode", switched)
        frames = []
        for _ in range(2):
            written.clear()
            await pilot.press("2")
            await settle(app, pilot)
            assert app.screen is ahead
            frames.append(len(written))
            await pilot.press("1")
            await settle(app, pilot)
        assert in_the_switch == [0, 0]
        assert all(frames)
