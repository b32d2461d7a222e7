"""A screen's first visit as fast as a later one: what it would pay, paid in idle time instead.

A top screen's first visit (`2`-`5`, `0`) cost 328-492 ms where a later one cost 19-42 ms, and
the first charge opened 1.67x the second (issue 45). A profile of the first `2` showed where:

- **The whole stylesheet parsed again, three times** (`Stylesheet.reparse` into a new stylesheet
  with an empty cache, from `App._load_screen_css` and twice from `App.refresh_css`): about two
  thirds of the first visit. The App's stylesheet now parses each source once
  (`textual_fixes.ParsedOnceStylesheet`); the two refreshes, which a screen built styled does not
  need, are skipped for the top screens (`paytui.ui.app._lazy_screen`).
- Importing the screen's module and its widgets' (a fifth).
- Parsing the new screen's own CSS and its new widgets' `DEFAULT_CSS`.

The last two are done here, once the first page is on screen (`PaytuiApp._end_start`) and
`WARM_UP_AFTER` seconds more have passed, in steps:

1. The modules of the charge detail and the top screens are imported, one a step, each in a
   thread (an import is Python's to lock; nothing of Textual is built there), the likeliest first.
2. Then the CSS of every screen and widget class now imported that the stylesheet has not
   parsed is read and parsed in a thread, a few sources a step, into a scratch stylesheet with
   the same variables; the loop takes the rules into the App's parse cache only if the variables
   are still those (a theme picked meanwhile: they are dropped and parsed when needed).

3. Then the CSS files of the screens pushed over a list (`PUSHED_AHEAD`: the charge detail, on
   Enter) are added to the App's stylesheet (`add_css_files`), as `App._load_screen_css` adds
   them on the first push, but without restyling every node of the app: that restyle (every
   screen built ahead, about 40 ms, twice that at load) was what the first charge opened paid
   and the second did not. Every rule of such a file names ids and classes of its own screen
   only, so no node built now takes a rule from it (`tests/ui/test_warm_up.py` restyles the
   whole app after the warm-up and finds no node changed).

   Then, once idle, the screen shown is counted as styled with the App's CSS as Textual
   counts it (`_restyle_stale`): the start screen was built before the theme's refresh could
   count it, and the first switch back to it refreshed the whole app's CSS.

4. Then the top screens of `BUILT_AHEAD` are built, one a step (`PaytuiApp.build_ahead`): each
   mounted in its mode's stack, not shown, its CSS file added (every rule of a screen's CSS
   file is scoped to its screen, so adding it changes no other screen) and its first read
   started, as a first visit would. The visit then shows a screen built and filled, as a later
   one does; once read, it is laid out and drawn, not shown, a few lines a step, so the visit
   paints from lines already drawn, and counted as shown before, so the key's own step lays it
   out and draws it as a later visit's does (not the switch's update timer, 50 ms later:
   `WarmUp._shown_before`); once all are built, each is styled as its first showing
   would style it (that showing then does not: `textual_fixes.StyledWhileHidden`; a screen
   built later adds CSS, so not before), then laid out and drawn again where a layout was
   asked for since (Textual lays out the screen in front only: Today's pulse mounted its
   rows, a restyle resized its scrollbars, and its first visit laid it out twice and drew
   every widget again, where a later one only painted). A read that fails meanwhile is told
   when the screen is first shown. Each step waits until no worker runs (the previous
   screen's read, the shown screen's: Today's queue and pulse are never slowed by a screen
   built behind them), at most `IDLE_LIMIT` seconds.

Until step 3 nothing is added to the stylesheet's sources, until step 4 no request is sent;
nothing is shown or announced (a screen reader hears only the screen in front). Before each step
the warm-up waits while the person types (a key or paste within `QUIET` seconds, or keys held
until a screen can take them): the work runs in the gaps, and a thread's import or parse holds
the loop at most for Python's switch interval (5 ms) at a time. When all is done what it built
is frozen for the cyclic collector (`paytui.collector.freeze_warmed_up`), `WarmUp.done` is set
and `WarmedUp` is posted to the App.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.css.stylesheet import CssSource, Stylesheet
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from paytui.collector import freeze_warmed_up

if TYPE_CHECKING:
    from paytui.ui.host import PaytuiHost

__all__ = [
    "BUILT_AHEAD",
    "PUSHED_AHEAD",
    "QUIET",
    "WARMED_MODULES",
    "WARM_UP_AFTER",
    "WarmUp",
    "WarmedUp",
    "add_css_files",
]

#: Seconds after the first page is on screen when the warm-up starts (the person reads the list).
WARM_UP_AFTER = 1.0
#: Seconds without a key typed before a step of the warm-up runs.
QUIET = 0.3
#: Sources parsed a step (one thread's turn); the app's CSS has about 150.
SOURCES_A_STEP = 12
#: Imported in this order: the charge detail (Enter on the list), then the top screens by key.
WARMED_MODULES: tuple[str, ...] = (
    "paytui.ui.screens.charge_detail",
    "paytui.ui.screens.conversations",  # the detail asks it whether `v` shows
    "paytui.ui.screens.tokens",
    "paytui.ui.screens.accounts",
    "paytui.ui.screens.distributions",
    "paytui.ui.screens.history",
    "paytui.ui.screens.today",
)

#: The screens pushed over a list whose CSS files are added ahead (module, class): the charge
#: detail (Enter on the list). A class's own `CSS` is left to its first push.
PUSHED_AHEAD: tuple[tuple[str, str], ...] = (
    ("paytui.ui.screens.charge_detail", "ChargeDetailScreen"),
)

#: The top screens built ahead, in this order, once the modules and the CSS are warm: the
#: lists a number key opens, which read one page; then History (the journal, read on this
#: machine: its read-backs of outcomes not proven yet wait for the first visit,
#: `HistoryScreen.reload`) and last Today (its queue and pulse read the whole service: at
#: 100,000 charges seconds of requests, most of their work in threads, once nothing else runs).
BUILT_AHEAD: tuple[str, ...] = ("tokens", "accounts", "distributions", "history", "today")
#: Lines of a widget drawn a step when a screen built ahead is drawn (`WarmUp._draw`): a
#: table's line is about 1-2 ms here, ten times that on a loaded machine.
LINES_A_STEP = 4
#: Layouts at most when a screen built ahead is drawn (`WarmUp._draw`): the first tells the
#: widgets their sizes, and a table that learns its width asks for a second.
LAYOUTS_A_DRAW = 3
#: Seconds given to what a layout of a screen built ahead set off (a widget's `Layout` to its
#: screen: a few turns of the loop) before the next one, and after a read before `_settle`.
LAYOUT_BEAT = 0.05
#: Seconds a screen built ahead is given for its first read before the next one is built.
READ_AHEAD_LIMIT = 30.0
#: Seconds the warm-up waits for the app to be idle (no key, no worker) before each screen it
#: builds ahead; never idle that long, it builds no more.
IDLE_LIMIT = 60.0

#: `Stylesheet._parse_rules`'s cache key: (css, read_from, is_default, tie_breaker, scope).
ParseKey = tuple[str, tuple[str, str], bool, int, str]


class WarmedUp(Message):
    """The warm-up is done: `modules` imported, `sources` (CSS locations) parsed beforehand."""

    def __init__(self, modules: tuple[str, ...], sources: tuple[tuple[str, str], ...]) -> None:
        super().__init__()
        self.modules = modules
        self.sources = sources


def _subclasses(root: type[DOMNode]) -> Iterator[type[DOMNode]]:
    seen: set[type[DOMNode]] = set()
    todo = [root]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
                yield sub


def _css_file(cls: type[Screen[Any]], path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """Where `App._load_screen_css` reads a screen's CSS file from (`Stylesheet.read`'s key)."""
    resolved = Path(path)
    if not resolved.is_absolute():
        try:
            resolved = (Path(inspect.getfile(cls)).parent / resolved).resolve()
        except (TypeError, OSError):
            return None
    return (os.path.abspath(os.path.expanduser(resolved)), "")


def add_css_files(app: App[Any], paths: Iterable[str | PurePath]) -> bool:
    """Add screen CSS files not added yet to `app`'s stylesheet and parse it (through its
    cache), without restyling any node, as `App._load_screen_css` would add them before a
    screen's first showing; True when one was added. Only for files whose rules match nodes of
    their own screen alone: the nodes built already are not restyled."""
    paths = list(paths)
    if app.css_monitor is not None:
        app.css_monitor.add_paths([Path(path) for path in paths])
    added = False
    for path in paths:
        if not app.stylesheet.has_source(str(path), ""):
            app.stylesheet.read(path)
            added = True
    if added:
        app.stylesheet.reparse()
    return added


def pushed_css_files(cls: type[Screen[Any]]) -> list[str]:
    """Where a screen class's CSS files are read from, as Textual resolves them on a push."""
    if not cls.CSS_PATH:
        return []
    paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, list) else [cls.CSS_PATH]
    return [where[0] for path in paths if (where := _css_file(cls, path)) is not None]


def class_sources() -> Iterator[tuple[tuple[str, str], CssSource]]:
    """Every CSS source a screen or widget class now imported would add to the stylesheet: each
    class's `DEFAULT_CSS` with its bases' (as `Widget._post_register` adds them: the
    tie-breaker is the base's depth), and each screen's CSS files (`App._load_screen_css`).
    A file that cannot be read is left to the visit, which reports it."""
    for cls in _subclasses(Widget):
        bases = DOMNode._css_bases(cls)
        for depth, base in enumerate(bases):
            css: str = base.__dict__.get("DEFAULT_CSS", "")
            if not css:
                continue
            scoped: bool = base.__dict__.get("SCOPED_CSS", True)
            try:
                location = (inspect.getfile(base), f"{base.__name__}.DEFAULT_CSS")
            except (TypeError, OSError):
                location = ("", f"{base.__name__}.DEFAULT_CSS")
            yield location, CssSource(css, True, -depth, base._css_type_name if scoped else "")
        if issubclass(cls, Screen) and cls.CSS_PATH:
            paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, list) else [cls.CSS_PATH]
            for path in paths:
                where = _css_file(cls, path)
                if where is None:
                    continue
                try:
                    text = Path(where[0]).read_text(encoding="utf-8")
                except OSError:
                    continue
                yield where, CssSource(text, False, 0, "")


def _parse(
    variables: dict[str, str], sources: list[tuple[tuple[str, str], CssSource]]
) -> list[tuple[ParseKey, list[Any]]]:
    """Parse `sources` with `variables` (in a thread: nothing here is the App's)."""
    scratch = Stylesheet(variables=variables)
    parsed: list[tuple[ParseKey, list[Any]]] = []
    for read_from, (css, is_default, tie_breaker, scope) in sources:
        try:
            rules = scratch._parse_rules(css, read_from, is_default, tie_breaker, scope)
        except Exception:  # the visit parses it again and reports it
            continue
        if any(rule.errors for rule in rules):
            continue
        parsed.append(((css, read_from, is_default, tie_breaker, scope), rules))
    return parsed


class WarmUp:
    """The app's warm-up after the first page (see the module docstring). `start()` once."""

    def __init__(
        self,
        app: PaytuiHost,
        *,
        modules: tuple[str, ...] = WARMED_MODULES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.modules = modules
        self.clock = clock
        #: Set when every step is done (or the warm-up stopped with the app).
        self.done = asyncio.Event()
        #: The CSS locations parsed beforehand, in order.
        self.parsed: list[tuple[str, str]] = []
        #: The top screens built ahead (`BUILT_AHEAD`), in order.
        self.built: list[str] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="paytui warm-up")

    def stop(self) -> None:
        """The app is ending: no further step (a thread's step in flight ends on its own)."""
        if self._task is not None:
            self._task.cancel()
        self.done.set()

    def busy(self) -> bool:
        """The person is typing: a key within `QUIET` seconds, or keys held for a screen."""
        return self.clock() < self.app.last_typed + QUIET or bool(self.app.held_keys)

    async def _quiet(self) -> None:
        while self.busy():
            await asyncio.sleep(QUIET)

    async def _idle(self) -> bool:
        """Until no key is typed (`_quiet`) and no worker runs (the screen shown reading: a
        search, Today's queue and pulse), at most `IDLE_LIMIT` seconds: False then. A screen
        built ahead takes the loop for a few slices; it never adds them to what the person
        is waiting for."""
        deadline = self.clock() + IDLE_LIMIT
        while self.clock() < deadline:
            await self._quiet()
            if not self.app.reading():
                return True
            await asyncio.sleep(QUIET)
        return False

    async def _read(self, screen: Screen[Any]) -> None:
        """Until `screen` is mounted and its workers (its first read) have ended, or
        `READ_AHEAD_LIMIT` seconds: the next screen's build and read do not add to this one's."""
        from textual.worker import WorkerState

        ended = {WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED}
        deadline = self.clock() + READ_AHEAD_LIMIT
        while self.clock() < deadline and screen.is_attached:
            mine = [w for w in self.app.workers if w.node is screen]
            if screen.is_mounted and all(w.state in ended for w in mine):
                return
            await asyncio.sleep(QUIET / 3)

    async def _style(self, screen: Screen[Any]) -> None:
        """Style `screen`'s nodes now, not shown, as its first showing would
        (`textual_fixes.StyledWhileHidden.style_ahead`): the visit then restyles none of them,
        as a later one does."""
        from paytui.ui.textual_fixes import StyledWhileHidden

        await self._quiet()
        if isinstance(screen, StyledWhileHidden) and screen.is_attached and not screen.is_current:
            screen.style_ahead()

    async def _draw(self, screen: Screen[Any], beat: float = QUIET) -> None:
        """Lay `screen` out at the terminal's size and draw it, not shown, a few lines a step
        (each widget keeps its drawn lines): a first visit then paints from them, as a later
        one does, instead of drawing every line of the screen (its table's cells above all)
        in one go. Laid out again while a widget asks for it (a layout tells a table its width,
        which asks for another; at most `LAYOUTS_A_DRAW`): Textual lays out the front screen
        only, so a layout asked for behind it waited for the first visit. `beat`: seconds for
        what the first layout tells the widgets (a table fits its width). Stops as soon as the
        screen is shown or gone; keys first between steps."""
        from textual.geometry import Region

        def shown_or_gone() -> bool:
            return not screen.is_attached or screen.is_current

        for _ in range(LAYOUTS_A_DRAW):
            await self._quiet()
            if shown_or_gone():
                return
            screen._refresh_layout(self.app.size)  # laid out only: Textual paints the front one
            screen._layout_required = False  # as the screen's update timer does after a layout
            await asyncio.sleep(beat)
            if not await self._idle() or shown_or_gone():
                return
            if not screen._layout_required:  # no widget asked for another (a size it now knows)
                break
            beat = LAYOUT_BEAT
        for widget, (region, _clip) in list(screen._compositor.visible_widgets.items()):
            for top in range(0, region.height, LINES_A_STEP):
                await self._quiet()
                if shown_or_gone() or not widget.is_attached:
                    return
                height = min(LINES_A_STEP, region.height - top)
                widget.render_lines(Region(0, top, region.width, height))
                await asyncio.sleep(0)
        # Nothing of it owed to the terminal: its layouts here marked the whole screen to be
        # written, which the first visit's switch then wrote as it laid the screen out, right
        # before the resume's refresh wrote it all again (two frames where a later visit
        # writes one: Tokens' first visit 7-8 ms, a later one 4).
        screen._compositor._dirty_regions.clear()

    def _shown_before(self, screen: Screen[Any]) -> None:
        """Count `screen`, drawn ahead, as a screen shown before (`Screen.stack_updates`, which
        Textual counts at each showing): `App.switch_mode` lays out and draws such a screen in
        the key's own step (`Screen._screen_resized`), and one never shown only when its
        update timer runs after the switch's `delay_update`, 50 ms later. History's first
        visit wrote its first frame 74-77 ms after the key, a later one 2 ms after
        (docs/performance.md)."""
        if screen.is_attached and not screen.is_current and not screen.stack_updates:
            screen.stack_updates += 1
            # And its update timer started, as a shown screen's: a timer's first tick waits
            # a whole period after it is first resumed (`Timer._run`, 1/60 s), a later one
            # comes at once, so a first visit's draw waited 10-16 ms more, idle (Tokens' 17.8
            # ms, a later visit's 4). Its tick behind the front screen only pauses it again.
            screen._update_timer.resume()

    async def _settle(self, screens: list[Screen[Any]]) -> None:
        """Lay out and draw again, not shown, each of `screens` that asked for a layout since
        it was drawn (Today's pulse computed and mounted its rows, a restyle resized its
        scrollbars): Today's first visit laid the whole screen out twice and drew every widget
        again (20-40 ms at load), where a later one only paints. Once idle: the pulse's read
        (not the screen's own worker) may still run after the screen's draw."""
        if not await self._idle():
            return
        await asyncio.sleep(LAYOUT_BEAT)  # a read just ended: what it shows is mounted
        for screen in screens:
            if screen.is_attached and not screen.is_current and screen._layout_required:
                await self._draw(screen, LAYOUT_BEAT)  # its sizes known: a beat for the rest

    def _restyle_stale(self) -> None:
        """The start screen was built while the theme was applied, before it was mounted, so
        Textual's refresh of the app's CSS then did not count it as refreshed, and the first
        switch back to it (from another screen or workspace) refreshed the whole app's CSS
        (about 15 ms, twice that at load). The same refresh, here: nothing changes on screen."""
        app = self.app
        if app.screen.is_mounted and app.screen._css_update_count != app._css_update_count:
            app.refresh_css(animate=False)

    async def _run(self) -> None:
        try:
            for module in self.modules:
                await self._quiet()
                with contextlib.suppress(Exception):  # a module that fails is left to its visit
                    await asyncio.to_thread(importlib.import_module, module)
            await self._quiet()
            stylesheet = self.app.stylesheet
            cache = stylesheet._parse_cache
            wanted: dict[ParseKey, tuple[tuple[str, str], CssSource]] = {}
            # Reading every class's CSS (about 200 sources, files among them) in a thread too.
            found = await asyncio.to_thread(lambda: list(class_sources()))
            for read_from, source in found:
                key: ParseKey = (
                    source.content,
                    read_from,
                    source.is_defaults,
                    source.tie_breaker,
                    source.scope,
                )
                if key not in cache:
                    wanted[key] = (read_from, source)
            todo = list(wanted.values())
            while todo:
                step, todo = todo[:SOURCES_A_STEP], todo[SOURCES_A_STEP:]
                await self._quiet()
                variables = stylesheet._variables
                parsed = await asyncio.to_thread(_parse, dict(variables), step)
                if stylesheet._variables != variables:
                    continue  # a theme picked meanwhile: parsed with it when needed
                for key, rules in parsed:
                    if key not in stylesheet._parse_cache:
                        stylesheet._parse_cache.set(key, rules)
                    self.parsed.append(key[1])
            for module, name in PUSHED_AHEAD:
                await self._quiet()
                with contextlib.suppress(Exception):  # a module that fails is left to its push
                    add_css_files(self.app, pushed_css_files(getattr(sys.modules[module], name)))
            if await self._idle():
                self._restyle_stale()
            built: list[Screen[Any]] = []
            for base in BUILT_AHEAD:
                if not await self._idle():
                    break  # never idle long enough: the visits build their screens
                screen = self.app.build_ahead(base)
                if screen is None:
                    continue
                self.built.append(base)
                built.append(screen)
                await self._read(screen)
            for screen in built:  # styled once all are built: a later build adds CSS
                await self._style(screen)
                await self._draw(screen)  # after its styling, which drops a table's lines
                self._shown_before(screen)
            await self._settle(built)  # laid out again where asked for since their draw
            # What was built ahead lives as long as the app: later full collections (a
            # screen's reading sets them off) do not walk it (`paytui.collector`).
            freeze_warmed_up()
        except Exception as exc:  # the visits pay as before; the app goes on
            self.app.log.error(f"warm-up stopped: {exc!r}")
            return
        finally:
            self.done.set()
        self.app.post_message(WarmedUp(self.modules, tuple(self.parsed)))
