"""Every workaround of a Textual bug, in one place (Textual 8.2.8).

Each one says what goes wrong upstream and is held by a test in
`tests/ui/test_upstream_bugs.py` that shows the bug *still happens* in plain Textual: when an
upgrade fixes it, that test fails, and the workaround (and its test) can go.

- `DismissOnce` (every paytui screen): `Screen.dismiss` pops whatever screen is on top of the
  stack. Two closing keys handled before the first pop lands (enter then escape typed fast in a
  dialog, the profile switcher or the command palette) popped the screen *beneath* as well, up
  to "Can't pop screen" (`ScreenStackError`) and the end of the app. Here a dismiss of a screen
  that is no longer on top is ignored.
- `GuardedCommandPalette` (every palette paytui opens): see its docstring; three races of
  `CommandPalette` and `OptionList` that ended the app under fast keys.
- `ScreenSwitchGuards` (the App): keys and removed screens during a mode switch. And
  `App.switch_mode` holds every frame for 50 ms (`delay_update`, to mask a new mode's screen
  being composed), also when the screen switched to was drawn before and is laid out and drawn
  in the key's own step: each top screen's key and each workspace switch wrote its frame
  53-58 ms after the key where it was ready after 4-7 (docs/performance.md). Here only a
  screen never shown is masked.
- `DialogButton` (every dialog's buttons): a `Button` ignores enter and clicks while it still
  shows its last press ("-active", 0.2 s), even when it has been disabled and enabled again or
  relabelled meanwhile: it asks something new, and the answer was dropped.
- `ParsedOnceStylesheet` (the App's stylesheet): a start parsed every stylesheet up to five
  times before the first frame; each is parsed once now, and again only for new variables.
- `inner_outer` (every widget, set when this module is imported): `StylesCache.get_inner_outer`
  is an `lru_cache` of 1024 on a method, so its key holds the widget's `StylesCache` (every line
  it drew, its caches) long after the widget is gone: each widget drawn kept about 20 caches
  and their lines alive, up to 1,024 of them (a pulse refresh that mounted its rows again grew
  the process by their count every time). Here the two colours alone are the key.
- `divide` (every line drawn, set when this module is imported): `Strip.divide` caches its
  result in the strip itself, and a strip cut at its own length (the compositor cuts every
  line of every widget so) caches `[itself]`: a reference cycle, so every such line, its seven
  caches and its segments, was freed by the cyclic collector only. Holding `j` at 100,000
  charges made about 75 of them a row, and full collections of 50-120 ms each (70,000
  objects) stalled the loop every few seconds. Here that case caches nothing.
- `StyledWhileHidden` (every full paytui screen): a screen shown again by a mode switch (a top
  screen's key, a workspace switched to) styles every one of its nodes again, though nothing
  they are styled by changed while it was hidden: half a workspace switch's CPU. A node's own
  classes and pseudo-classes restyle it as they change, shown or hidden; what Textual restyles
  on the screens in front only is the stylesheet (a source added, a theme's variables) and the
  App's own classes and pseudo-classes (theme, dark or light, the terminal's focus). Here a
  resume styles the screen again only when one of those changed since it was hidden.
- `LaidOutOnce` (the Pulse and Today screens): Textual lays a pushed screen out as it resumes,
  which sends the screen itself a `Resize`, whose handler lays it out again at the same size in
  the same step of the event loop. Here a `Resize` at the size just laid out is not laid out again.
  And that layout draws the whole screen, in the push's step, right before the resume asks for
  the whole screen to be drawn again (`refresh()`), which the update timer does in a step of its
  own: here the layout as the screen resumes does not draw, the timer's draw is the first.
- `Late` (the charge detail's spinner, the charge list's "searching…", the time limit of a key
  that opens a screen): a timer made with `set_timer` does not call its callback itself, it
  posts it to its node's queue (`call_next`), so `Timer.stop()` once the work it was for has
  ended does not take back a call already posted, which then runs after the end. Under load the
  charge detail's panels stayed on "Loading..." for good, the charge read and no worker running
  (docs/reliability.md). Here the call asks again, when its turn comes, whether it was stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, cast

from textual import events, on, work
from textual._styles_cache import StylesCache
from textual.app import App
from textual.await_complete import AwaitComplete
from textual.cache import LRUCache
from textual.color import Color
from textual.command import CommandList, CommandPalette
from textual.css.query import NoMatches
from textual.css.stylesheet import Stylesheet
from textual.geometry import Size
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.widget import AwaitMount
from textual.widgets import Button, Input, LoadingIndicator, OptionList

__all__ = [
    "UPSTREAM_DIVIDE",
    "UPSTREAM_INNER_OUTER",
    "DialogButton",
    "DismissOnce",
    "GuardedCommandPalette",
    "LaidOutOnce",
    "ParsedOnceStylesheet",
    "ScreenSwitchGuards",
    "StyledAtMount",
    "StyledWhileHidden",
    "inner_outer",
]

#: Textual's own `StylesCache.get_inner_outer` (tests/ui/test_upstream_bugs.py shows its bug).
UPSTREAM_INNER_OUTER = StylesCache.get_inner_outer


@lru_cache(1024)
def _backgrounds(base_background: Color, background: Color) -> tuple[Style, Style]:
    return (Style(background=base_background + background), Style(background=base_background))


def inner_outer(
    _cache: StylesCache, base_background: Color, background: Color
) -> tuple[Style, Style]:
    """A widget's inner and outer backgrounds, cached by the two colours alone (upstream's
    cache key holds the widget's `StylesCache`, and with it every line the widget drew)."""
    return _backgrounds(base_background, background)


setattr(StylesCache, "get_inner_outer", inner_outer)  # noqa: B010 (a method replaced)

#: Textual's own `Strip.divide` (tests/ui/test_upstream_bugs.py shows its bug).
UPSTREAM_DIVIDE = Strip.divide


def divide(strip: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    """Upstream's, except a strip cut at its own length only: upstream caches `[strip]` in
    the strip's own cache, a reference cycle that only the cyclic collector frees (see the
    module docstring); here that list is made afresh, as cheap as the cache's look-up."""
    wanted = [cut for cut in cuts if cut <= strip.cell_length]
    if wanted == [strip.cell_length]:
        return [strip]
    return UPSTREAM_DIVIDE(strip, wanted)


setattr(Strip, "divide", divide)  # noqa: B010 (a method replaced)


async def _nothing() -> None:
    """The awaitable of a dismiss that had nothing to do."""


class DismissOnce:
    """Mixin for a `Screen` subclass (before it in the bases): a dismiss of a screen that is no
    longer on top is ignored (see the module docstring)."""

    def dismiss(self, result: Any = None) -> AwaitComplete:
        screen: Any = self
        if not screen.is_attached or screen.app.screen is not screen:
            return AwaitComplete(_nothing())
        return super().dismiss(result)  # type: ignore[misc, no-any-return]


class StyledAtMount:
    """Mixin for a `Screen` subclass (before it in the bases): until it is first suspended, a
    resume does not style its nodes again (see the module docstring; a mode's first visit
    resumes its screen twice, `App._init_mode` then `switch_mode`). Textual calls each class's
    handler along the bases, this one's before `Screen`'s, which reads `refresh_styles`."""

    _suspended_once = False

    def _on_screen_suspend(self) -> None:
        self._suspended_once = True

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._suspended_once:
            event.refresh_styles = False


def style_inputs(app: App[Any]) -> tuple[object, ...] | None:
    """What a hidden screen's nodes are styled by that Textual restyles on the screens in front
    only: the stylesheet's rules (`ParsedOnceStylesheet.generation`; None for another
    stylesheet, or rules not parsed yet), Textual's CSS count, the App's classes and
    pseudo-classes."""
    sheet = app.stylesheet
    generation = getattr(sheet, "generation", None)
    if generation is None or sheet._require_parse:
        return None
    return (sheet, generation, app._css_update_count, app.classes, app.pseudo_classes)


class StyledWhileHidden:
    """Mixin for a `Screen` subclass (before it in the bases): a resume styles the screen's
    nodes again only when what they are styled by changed since it was last hidden (see the
    module docstring; `style_inputs`). Textual calls each class's handler along the bases,
    this one's before `Screen`'s, which reads `refresh_styles`."""

    _hidden_with: tuple[object, ...] | None = None

    def _on_screen_suspend(self) -> None:
        self._hidden_with = style_inputs(cast("Screen[Any]", self).app)

    def style_ahead(self) -> None:
        """Style every node now, not shown, as its first showing would (`paytui.ui.warm_up`,
        for a screen built ahead): that showing then styles it again only if what styles it
        changes meanwhile."""
        screen = cast("Screen[Any]", self)
        screen.update_node_styles(animate=False)
        self._hidden_with = style_inputs(screen.app)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        hidden_with, self._hidden_with = self._hidden_with, None
        if hidden_with is not None and hidden_with == style_inputs(cast("Screen[Any]", self).app):
            event.refresh_styles = False


class LaidOutOnce:
    """Mixin for a `Screen` subclass (before it in the bases): the screen is laid out for a new
    size only (see the module docstring; 10-15 ms of the Pulse screen's push at 100,000 charges,
    docs/performance.md). A change since that layout is laid out by the screen's update timer,
    as any other. The layout as it resumes does not draw: `Screen._on_screen_resume` (after
    this class's handler) asks for the whole screen drawn right after it (`refresh()`), which
    the update timer draws in its own step (Today's push drew it twice, 7-8 ms in the push's
    step at 100,000 charges)."""

    #: The next layout is the resume's (`Screen._on_screen_resume` lays out what has no size).
    _resume_layout = False
    #: A layout under way whose draw the update timer makes (`_compositor_refresh` skipped).
    _draw_deferred = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        screen = cast("Screen[Any]", self)
        # The condition `Screen._on_screen_resume` lays the screen out on, next.
        self._resume_layout = screen.is_attached and screen._size != screen.app.size

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        resume, self._resume_layout = self._resume_layout, False
        self._draw_deferred = resume
        try:
            super()._refresh_layout(size, scroll)  # type: ignore[misc]
        finally:
            self._draw_deferred = False

    def _compositor_refresh(self) -> None:
        if not self._draw_deferred:
            super()._compositor_refresh()  # type: ignore[misc]

    def _screen_resized(self, size: Size) -> None:
        screen = cast("Screen[Any]", self)
        if size == screen._compositor.size and screen._compositor.root is screen:
            return
        super()._screen_resized(size)  # type: ignore[misc]


class DialogButton(Button):
    """A `Button` whose press counts again as soon as it asks something new.

    Upstream (Textual 8.2.8) `Button.action_press` and `_on_click` ignore a press while the
    button shows its last one (the "-active" class, `active_effect_duration`, 0.2 s): a debounce
    of the same question. A dialog asks a new one with the same button: "Review" becomes
    "Refund", and "Refund" is disabled while sending and enabled again on a refusal ("Review
    again"). On a busy machine a whole send and refusal fit in 0.2 s, and the enter meant for the
    new question was dropped. Here a new label, or the button disabled or enabled, ends the last
    press's look, so the next press counts. Every paytui dialog builds its buttons from this.
    """

    def watch_label(self) -> None:
        self.remove_class("-active")

    def watch_disabled(self, disabled: bool) -> None:
        super().watch_disabled(disabled)
        self.remove_class("-active")


class ParsedOnceStylesheet(Stylesheet):
    """The App's stylesheet: each source parsed once for a set of variables (a theme).

    Upstream (Textual 8.2.8) a start parsed the same CSS again and again before the first frame
    (the App's, every widget's DEFAULT_CSS, the first screen's; 37 parses of 20 sources for the
    charge list): a screen with a `CSS_PATH` installed as a mode's first screen `reparse`s every
    source into a fresh stylesheet (no cache), then `refresh_css` (the new screen's CSS count is
    -1, never the App's) sets the very same variables, which empties the parse cache, and
    `reparse`s all again; the next widget class mounted then finds the cache empty and every
    source is parsed a third time. Here variables equal to the ones in use change nothing, and a
    `reparse` parses through the cache (which holds rules for the current variables only: new
    variables empty it), so only a source not seen yet is parsed. Errors are raised as before
    and leave the rules in use as they were.

    The cache holds every source: Textual's keeps 64, fewer than paytui's screens and widgets
    add, and `parse` walks them all in order each time, so past 64 an LRU misses every one.
    """

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._parse_cache = LRUCache(1024)
        #: Counts the parses and new variables: rules that may differ (`StyledWhileHidden`).
        self.generation = 0

    @classmethod
    def replacing(cls, stylesheet: Stylesheet) -> ParsedOnceStylesheet:
        """This stylesheet in place of `stylesheet` (an App's, before it has parsed anything)."""
        replaced = cls(variables=stylesheet._variables)
        for read_from, source in stylesheet.source.items():
            replaced.source[read_from] = source
        replaced._require_parse = bool(replaced.source)
        return replaced

    def set_variables(self, variables: dict[str, str]) -> None:
        if variables == self._variables:
            return  # the same theme: the rules parsed with these variables stand
        self.generation += 1
        super().set_variables(variables)

    def parse(self) -> None:
        self.generation += 1
        super().parse()

    def reparse(self) -> None:
        self.parse()


class ScreenSwitchGuards(App[Any]):
    """The App's part: set `_switching_modes` while the modes are being rebuilt (a profile
    switch), and input and removals are kept out of the window in which Textual has no screen.
    """

    _switching_modes = False
    #: Modes of a workspace not shown being rebuilt (`PaytuiApp._reset_modes`): no switch to
    #: them meanwhile, while keys go on to the workspace shown.
    _modes_rebuilding: frozenset[str] = frozenset()

    async def _replace_screen(self, screen: Screen[Any]) -> Screen[Any]:
        """Cancel the workers of a screen that is about to be removed, then let Textual remove it.

        Upstream (Textual 8.2.8) removes a screen's widgets before its workers end, so a list read
        that resumed in between found no table to fill and ended the app (seen in the UI fuzz: a
        token reload during a profile switch; a browser page read when its screen was closed).
        Every removal (pop, switch, a profile switch's mode reset) passes here.
        """
        if not self.is_screen_installed(screen) and all(
            screen not in stack for stack in self._screen_stacks.values()
        ):
            for node in screen.walk_children(with_self=True):
                self.workers.cancel_node(node)
        return await super()._replace_screen(screen)

    #: The switch under way shows a screen drawn before: nothing to mask (`delay_update`).
    _switch_undelayed = False

    def switch_mode(self, mode: str) -> AwaitMount:
        """Textual's, except while a profile switch rebuilds the modes (`_reset_modes`): then
        only the rebuild switches. A key that was past the input filter (`on_event`) when the
        rebuild began (`5`, escape, a palette's "Go to" run after the palette closed) switched
        to a mode in the middle of it, and removing that mode, now the active one, raised
        `ActiveModeError` (UI fuzz). Such a key is dropped, as input during the rebuild is.

        And a switch to a screen shown (or drawn ahead, `paytui.ui.warm_up`) before writes its
        frame at once (see the module docstring)."""
        if self._switching_modes or mode in self._modes_rebuilding:
            return AwaitMount(self.screen, [])
        stack = self._screen_stacks.get(mode)
        top = stack[-1] if stack else None
        self._switch_undelayed = top is not None and top.is_attached and bool(top.stack_updates)
        try:
            return super().switch_mode(mode)
        finally:
            self._switch_undelayed = False

    def delay_update(self, delay: float = 0.05) -> None:
        if not self._switch_undelayed:
            super().delay_update(delay)

    async def on_event(self, event: events.Event) -> None:
        # Upstream bug (Textual 8.2.8): `App.on_event` forwards every key and click to
        # `self.screen`, which raises `ScreenStackError: No screens on stack` while
        # `switch_mode` is between two stacks (the new mode's screen not pushed yet). Keys typed
        # right after a profile switch hit that window and ended the app. Input that arrives
        # while the modes are being rebuilt, or with no screen to take it, is dropped instead.
        if isinstance(event, events.InputEvent) and not event.is_forwarded:
            stack = self._screen_stacks.get(self._current_mode)
            if self._switching_modes or not stack:
                return
        await super().on_event(event)

    async def _on_key(self, event: events.Key) -> None:  # awaits nothing: no window opens
        # The same upstream bug by a second door: after `on_event`, Textual's own `App._on_key`
        # handler checks the bindings of `self.screen`, and a mode switch may have emptied the
        # stack in between (keys queued fast behind a profile switch). No screen: the key is
        # dropped (`prevent_default` skips `App._on_key`, the next handler along the MRO).
        if not self._screen_stacks.get(self._current_mode):
            event.prevent_default()
            dropped = getattr(self, "key_dropped", None)  # keys held behind it go on
            if dropped is not None:
                dropped(event)


_PAGE_MOVES = frozenset({"page_down", "page_up"})


class GuardedCommandPalette(DismissOnce, CommandPalette):
    """`CommandPalette` whose page moves wait until its list has been laid out, and that takes
    one choice: the first one dismisses it, any queued behind it is dropped.

    1. `OptionList._move_page`: PageDown/PageUp read the list's line map
       (`_index_to_line[highlighted]`), which is only built once the list has a size. Right
       after `ctrl+p` the list can hold options and a highlight before its first layout, so
       PageDown raised ``KeyError: 0``. Page moves on a list without a size are ignored.
    2. `CommandPalette._watch__show_busy`: the search worker sets `_show_busy` on its way out;
       when the palette was dismissed meanwhile (ctrl+p, a letter, escape typed fast) its
       children are gone and the watcher's `query_one` raised `NoMatches`; the search worker
       started by a key typed as the palette closed failed the same way. A palette without its
       children has nothing to show busy on and nothing to search for.
    3. `CommandPalette._select_command` / `_select_or_command`: two enters typed fast queued two
       choices; the palette, already dismissed by the first, ran the command again (and a plain
       palette dismissed itself again, popping the screen beneath). A palette no longer on top
       takes no choice.

    Every palette paytui opens is this one: ctrl+p and Textual's own pickers (themes, commands).
    """

    @on(Input.Submitted)
    @on(Button.Pressed)
    @on(OptionList.OptionSelected)
    def _no_choice_once_dismissed(self, event: Message) -> None:
        # Runs before `CommandPalette`'s own handlers of these messages (this class comes first
        # in the MRO), and `prevent_default` skips those.
        if not self.is_active:  # dismissed: no longer the top screen
            event.stop()
            event.prevent_default()

    def _action_command_list(self, action: str) -> None:
        if action in _PAGE_MOVES:
            commands = self.query_one(CommandList)
            if not commands.scrollable_content_region:
                return
        super()._action_command_list(action)

    async def _watch__show_busy(self) -> None:
        try:
            self.query_one(LoadingIndicator)
            self.query_one(CommandList)
        except NoMatches:  # dismissed while its search was ending
            return
        await super()._watch__show_busy()

    @work(exclusive=True, group=CommandPalette._GATHER_COMMANDS_GROUP)
    async def _gather_commands(self, search_value: str) -> None:
        try:
            self.query_one(CommandList)
        except NoMatches:  # dismissed before its search began
            return
        gather = CommandPalette._gather_commands.__wrapped__  # type: ignore[attr-defined]
        try:
            await gather(self, search_value)
        except NoMatches:  # dismissed while it searched
            return


class Late:
    """`callback()` on `node` after `after` seconds, unless `stop` came first, even when the
    timer's turn already posted the call (see the module's docstring)."""

    def __init__(self, node: MessagePump, after: float, callback: Callable[[], object]) -> None:
        self._callback = callback
        self._stopped = False
        self._timer = node.set_timer(after, self._due)

    def _due(self) -> None:
        if not self._stopped:
            self._callback()

    def stop(self) -> None:
        """No call from now on, not even one whose turn was already posted."""
        self._stopped = True
        self._timer.stop()
