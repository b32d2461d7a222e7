"""Keys typed before the screen they were meant for can take them: held, then replayed in order.

A person types at what is on screen, and at start-up what is on screen is not yet what the keys
act on: the charge list shows "Loading charges…" or the first-page child's preview (rows to
read, not charges to act on: `paytui.ui.first_page`) while its own search waits for the client.
`j j space` typed at the first rows moved the cursor and then marked nothing: the space found no
charge under the cursor and was dropped. Likewise keys typed after Enter in the query line,
meant for the results, went into the query line while the search ran.

So the App asks the screen in front, for each key, whether it holds it (`holds_key(key)`: the
screen decides from its own state and, only while something is on its way, the key's binding,
`bound_to`; a screen without the method holds nothing). A held key waits in one queue, and so
does every key and paste typed after it, so that they keep their order. The screen says when
it can take keys again (`release_held_keys`: its rows came, its search ended, in whatever way);
the keys are then replayed from the front, one a turn of the event loop (what the key before
did, a screen pushed or focus moved, comes first), each asked again, until one is still held.
A replayed key goes where it would have gone had it been typed at that moment: the screen it
was meant for, which may be another one by then because a key before it (`2`, Enter) went
there, in order.

The same holds for a key that opens a dialog or a charge (`opens_a_screen`: `r` on a charge,
enter on the charge list): the keys after it wait until that screen is in front, and then for
as long as it holds them itself — the money dialog while it reads what it decides on, the
charge's detail until the charge is shown — so `r 10 enter enter` typed at once refunds 10.00
instead of finding a form not shown yet (the digits and enters were lost, or the enters came
after the read and sent the whole amount left).

Never dropped, never held for good: a screen holds a key only while something is on its way
(a search in flight), and `quit` (ctrl+q) is never held. An opening key whose turn finds
another screen in front (a mode key typed before it acted first) or that a guard drops lets the
keys behind it go at once (`_on_key`, `key_dropped`), not after `OPENING_AT_MOST`. Escape is
held in order, except while a list counts down a retry wait (escape is what cancels it).

Holding ends at the first frame the screen can act: moves on the preview's rows are taken at
once (the real rows keep the cursor on the same charge, `ChargeTable.show`); a mark or an
action on a preview row waits for the real row.

Asking costs a build of the screen's binding chain (`Chains`: Textual builds it anew on each
read, copying every node's bindings), and a key passing here has its priority bindings checked
by Textual right after, in the same step: that check reads the chain built for the question
(`HeldKeys._check_bindings`), so a held `j` builds it twice a key instead of four times.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from time import monotonic
from typing import TYPE_CHECKING, Any

from textual import events
from textual.actions import parse as parse_action
from textual.app import App
from textual.css.query import NoMatches
from textual.widgets import Input, TextArea

from paytui.ui.textual_fixes import Late

if TYPE_CHECKING:
    from textual.binding import BindingsMap
    from textual.dom import DOMNode
    from textual.screen import Screen


__all__ = [
    "OPENS_A_SCREEN",
    "Bound",
    "Chains",
    "HeldKeys",
    "bound_to",
    "chains_of",
    "opens_a_screen",
]

#: Actions a key runs even while keys are held: ending the app.
NEVER_HELD = frozenset({"quit"})
#: Actions that open a screen for typing (`n`, the new-charge form): every key and paste after
#: one is for that screen, so it is held until the screen says it is up (`screen_opened`) —
#: typed at paste speed, the form's text otherwise reached the list still in front (its
#: search) before the form was mounted.
OPENS_A_SCREEN = frozenset({"new_charge"})
#: However the opening ends, keys are not held for longer than this (seconds): a screen that
#: never says it is up releases them anyway (never held for good).
OPENING_AT_MOST = 5.0


def opens_a_screen(bound: Bound) -> bool:
    """Whether the action `bound` runs opens a screen for the keys typed after it: one of
    `OPENS_A_SCREEN`; a bulk action (`marks.BULK_ACTIONS`: its dialog, or with nothing
    marked a notification that lets the keys go on at once); or one its node says opens one
    (`opens_a_screen(action)`: a screen's action whose operation has a dialog, `r` on a
    charge; enter on a charge of the list)."""
    from paytui.ui.marks import BULK_ACTIONS

    if bound.action in OPENS_A_SCREEN or bound.action in BULK_ACTIONS:
        return True
    opens = getattr(bound.node, "opens_a_screen", None)
    return opens is not None and bool(opens(bound.action))


@dataclass(frozen=True, slots=True)
class Bound:
    """What a key would run now: the node that runs the action and the action's name."""

    node: DOMNode
    action: str


@dataclass(frozen=True, slots=True)
class Chains:
    """A screen's binding chain as Textual reads it now (`Screen._binding_chain`: the focused
    widget up to the App, each node's bindings less the keys a field before it takes, the keymap
    applied) and its modal part (`Screen._modal_binding_chain`: the chain up to its first modal
    node), from one build: Textual builds the chain anew on every read of either, and the modal
    part read from the screen is the same cut of a second build. `focused` is what the build
    read (a loading widget reads as none): the chain stands for as long as nothing moves focus."""

    screen: Screen[Any]
    focused: DOMNode | None
    chain: list[tuple[DOMNode, BindingsMap]]
    modal: list[tuple[DOMNode, BindingsMap]]

    def current(self, screen: Screen[Any]) -> bool:
        """Built for `screen` with the focus it has now."""
        return screen is self.screen and _reading_focus(screen) is self.focused


def _reading_focus(screen: Screen[Any]) -> DOMNode | None:
    """The node the binding chain starts from (Textual passes over a focused widget loading)."""
    focused = screen.focused
    return None if focused is None or focused.loading else focused


def chains_of(screen: Screen[Any]) -> Chains:
    """`screen`'s binding chain and its modal part, built once (`Chains`)."""
    focused = _reading_focus(screen)
    chain = screen._binding_chain
    modal = chain
    for index, (node, _bindings) in enumerate(chain, 1):
        if node.is_modal:
            modal = chain[:index]
            break
    return Chains(screen, focused, chain, modal)


def bound_to(screen: Screen[Any], key: str, chains: Chains | None = None) -> Bound | None:
    """The binding `key` would fire on `screen` now, as Textual looks for it
    (`App._check_bindings`): priority bindings from the App down, then the others from the
    focused widget up. None: the key is unbound there (text for a focused field, or nothing).
    `chains`: the screen's chains, already built now (`chains_of`)."""
    if chains is None:
        chains = chains_of(screen)
    for priority, nodes in ((True, list(reversed(chains.chain))), (False, chains.modal)):
        for node, bindings in nodes:
            for binding in bindings.key_to_bindings.get(key, ()):
                if binding.priority == priority:
                    prefix, name, _parameters = parse_action(binding.action)
                    target = {"app": screen.app, "screen": screen}.get(prefix, node)
                    return Bound(target, name)
    return None


class HeldKeys(App[Any]):
    """The App's part: one queue of held input, replayed in order (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held: deque[events.Event] = deque()
        self._replaying = False
        self._passing: events.Event | None = None
        #: The screen-opening action a key just ran (`OPENS_A_SCREEN`), until it is up.
        self._opening: str | None = None
        #: The key that ran it (`key_dropped`: a guard that drops it lets the held keys go).
        self._opening_key: events.Key | None = None
        self._opening_timer: Late | None = None
        #: When the last key or paste was typed (`time.monotonic`): work done in the gaps of
        #: typing (`paytui.ui.warm_up`) waits while the person types.
        self.last_typed = float("-inf")
        #: The chains built to ask about the key passing now (`_chains_now`), for Textual's
        #: check of its priority bindings in the same step (`_check_bindings`); None after it.
        self._key_chains: Chains | None = None

    @property
    def held_keys(self) -> tuple[str, ...]:
        """The keys waiting, in order (a paste shows as "paste")."""
        return tuple(e.key if isinstance(e, events.Key) else "paste" for e in self._held)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.Paste) and not event.is_forwarded:
            self.last_typed = monotonic()
        self._key_chains = None  # built for this event only, never kept for a later one
        try:
            if self._takes(event):
                self._held.append(event)
                return
            await super().on_event(event)
        finally:
            self._key_chains = None

    def _chains_now(self, screen: Screen[Any]) -> Chains:
        """`screen`'s chains for the key passing now: built once, kept for Textual's priority
        check of that key (`_check_bindings`)."""
        chains = self._key_chains
        if chains is None or not chains.current(screen):
            chains = self._key_chains = chains_of(screen)
        return chains

    async def _check_bindings(self, key: str, priority: bool = False) -> bool:
        """Textual's (`App._check_bindings`), except that the priority check of a key that was
        just asked about (`_opening_action`, `_goes_past`: Textual's `on_event` runs it in the
        same step, nothing between) reads the chain built for the question instead of building
        it again; the same loop as Textual's over the same chain. Any other check, or one whose
        screen or focus is not the one the chain was built for, is Textual's own."""
        chains, self._key_chains = self._key_chains, None
        if not priority or chains is None or not chains.current(self.screen):
            return await super()._check_bindings(key, priority)
        for namespace, bindings in reversed(chains.chain):
            for binding in bindings.key_to_bindings.get(key, ()):
                if binding.priority and await self.run_action(binding.action, namespace):
                    return True
        return False

    def _takes(self, event: events.Event) -> bool:
        """Hold `event`: a key the screen holds, or a key or paste typed after a held one."""
        if not isinstance(event, events.Key | events.Paste) or event.is_forwarded:
            return False
        held = event is not self._passing and (self._held or self._holds(event))
        if held and not (isinstance(event, events.Key) and self._goes_past(event.key)):
            return True
        if isinstance(event, events.Key):
            self._note_opening(event)
        return False

    def _opening_action(self, key: str) -> str | None:
        """The action `key` runs on the screen in front now if it opens a screen (None: it
        does not, or it is text for a field, or disabled)."""
        stack = self._screen_stacks.get(self._current_mode)
        if not stack or isinstance(stack[-1].focused, Input | TextArea):
            return None  # a field takes the key as text: nothing opens
        if getattr(stack[-1], "TEXT_ENTRY", False):
            return None  # a form's screen takes letters as text wherever its focus is (`on_key`)
        bound = bound_to(stack[-1], key, self._chains_now(stack[-1]))
        if bound is None or not opens_a_screen(bound):
            return None
        if bound.node.check_action(bound.action, ()) is not True:
            return None  # disabled: it will not run, nothing will open
        return bound.action

    def _note_opening(self, event: events.Key) -> None:
        """`event`, passing now, runs an action that opens a screen: hold what follows it."""
        action = self._opening_action(event.key)
        if action is None:
            return
        self._opening = action
        self._opening_key = event
        if self._opening_timer is not None:
            self._opening_timer.stop()
        self._opening_timer = Late(self, OPENING_AT_MOST, self.screen_opened)

    if not TYPE_CHECKING:  # Textual's overloaded signature stays the one checked

        def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
            """A screen other than the one being opened came in front first (a key before `n`
            opened a dialog): `n` lands on that screen, whose bindings may not run the opening,
            so the keys held after it go on to it, in order, instead of waiting for a form that
            may never come."""
            result = super().push_screen(screen, *args, **kwargs)
            if self._opening is not None and getattr(screen, "OPENED_BY", None) != self._opening:
                self.call_after_refresh(self.screen_opened)
            return result

    def screen_opened(self) -> None:
        """The screen an action opened is up (or the action ended without one): the keys typed
        after it go on, to whatever is in front now."""
        self._opening = None
        self._opening_key = None
        if self._opening_timer is not None:
            self._opening_timer.stop()
            self._opening_timer = None
        self.release_held_keys()

    async def _on_key(self, event: events.Key) -> None:
        """The key noted as opening a screen reached the App's binding check, which reads the
        screen shown *now*: a priority key typed before it (a mode or workspace key, which acts
        as it arrives) may have put another screen in front meanwhile, where this key opens
        nothing. Then the keys held behind it go on now, not after `OPENING_AT_MOST`."""
        if event is self._opening_key and self._opening_action(event.key) != self._opening:
            self.screen_opened()

    def key_dropped(self, event: events.Key) -> None:
        """A guard let `event` go unapplied (typed in a workspace no longer shown, or while the
        modes were rebuilt): if it was the key that was to open a screen, nothing will open, so
        the keys held behind it go on now, not after `OPENING_AT_MOST`."""
        if event is self._opening_key:
            self.screen_opened()

    def _holds(self, event: events.Event) -> bool:
        """The screen in front holds this key now (or a screen is being opened for it)."""
        if self._opening is not None:
            return True  # the keys and pastes after `n` are for the form it opens
        if not isinstance(event, events.Key):
            return False  # a paste waits only behind a held key
        stack = self._screen_stacks.get(self._current_mode)
        if not stack:
            return False  # no screen: Textual's own guard (`ScreenSwitchGuards`) decides
        screen = stack[-1]
        holds = getattr(screen, "holds_key", None)
        if holds is None:
            return False
        try:
            return bool(holds(event.key))
        except NoMatches:  # a screen still composing or already removed: nothing to hold for
            return False

    def _goes_past(self, key: str) -> bool:
        """Keys that are never held: quitting, and escape while a list counts down a wait."""
        stack = self._screen_stacks.get(self._current_mode)
        if not stack:
            return False
        bound = bound_to(stack[-1], key, self._chains_now(stack[-1]))
        if bound is None:
            return False
        if bound.action in NEVER_HELD:
            return True
        return bound.action == "back" and self._counting_down()

    def _counting_down(self) -> bool:
        """A list on screen counts down a retry wait (the App says: `PaytuiApp`)."""
        return False

    def release_held_keys(self) -> None:
        """The screen in front can take keys it held: replay them, in order, from the next turn."""
        if self._held and not self._replaying:
            self._replaying = True
            self.call_later(self._replay_one)

    def drop_held_keys(self) -> int:
        """Let the held keys and pastes go unapplied (how many): typed at a state that is gone
        before they could act (a money dialog reading a changed charge again), where replaying
        them would act on what the person has not seen. The screen says so."""
        dropped = len(self._held)
        self._held.clear()
        return dropped

    async def _replay_one(self) -> None:
        """The first held key, unless it is still held; the next one in the next turn."""
        self._replaying = False
        if not self._held or self._holds(self._held[0]):
            return
        event = self._passing = self._held.popleft()
        try:
            await self.on_event(event)  # where it goes now, as if typed now (every guard too)
        finally:
            self._passing = None
        self.release_held_keys()
