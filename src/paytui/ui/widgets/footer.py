"""`PaytuiFooter`: the key line at the bottom of every screen, one widget painting one line.

Why not Textual's `Footer`: it recomposes (unmounts and mounts a widget per key) on every
`refresh_bindings`, which screens call on every cursor move so that an action that does not apply
to the highlighted row greys out; that cost a tenth of the test suite's CPU. And it lets the last
label run into the right edge (`c Captu▏` at 120 columns, `n New▏` at 200).

This footer:

- orders the keys by importance: the screen's own actions first (in the order of its `BINDINGS`,
  capture and refund leading on the charge screens), then those of the focused widget (a table's
  `enter`), then the app's; `?` Help always keeps its place at the end, so every key stays one key
  away;
- never cuts a label: a binding that does not fit is dropped whole (the least important first,
  a shorter one further down the list may still fit);
- repaints only when what it shows (or its width) changed; bursts of `refresh_bindings` (a cursor
  held down) are read once after the refresh.

A click on a key presses it, as in Textual's footer; hovering shows its tooltip, or why it is off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.widget import Widget

from paytui.ui.host import host_of

if TYPE_CHECKING:
    from textual import events
    from textual.binding import ActiveBinding
    from textual.dom import DOMNode
    from textual.screen import Screen

#: The id of the binding that always keeps its place (at the end, before the palette key).
PINNED_IDS = frozenset({"app.help"})
#: The separator before the command palette's key, on the right edge.
SEPARATOR = "▏"
_DIM = Style(dim=True)


@dataclass(frozen=True)
class FooterItem:
    """One key as the footer shows it."""

    key: str
    key_display: str
    label: str
    action: str
    enabled: bool
    node: DOMNode
    tooltip: str

    @property
    def width(self) -> int:
        """` key label ` (a space either side, one between)."""
        return len(self.key_display) + len(self.label) + 3

    @property
    def shown(self) -> tuple[str, str, bool]:
        return (self.key_display, self.label, self.enabled)


def _rank(item: ActiveBinding, screen: Screen[object]) -> int:
    """0: the screen's own; 1: a widget's on it (the focused table's); 2: the app's."""
    if item.node is screen:
        return 0
    if isinstance(item.node, App):
        return 2
    return 1


def footer_items(screen: Screen[object]) -> tuple[list[FooterItem], FooterItem | None]:
    """The keys to show on `screen`, most important first, and the command palette's key.

    One item per action (the first key of it); hidden bindings (`show=False`) are left out.
    """
    app = screen.app
    seen: set[str] = set()
    ranked: list[tuple[int, int, FooterItem]] = []
    palette: FooterItem | None = None
    for index, active in enumerate(screen.active_bindings.values()):
        binding = active.binding
        item = FooterItem(
            binding.key,
            app.get_key_display(binding),
            binding.description,
            binding.action,
            active.enabled,
            active.node,
            active.tooltip or binding.tooltip or binding.description,
        )
        if binding.key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
            palette = item
            continue
        if not binding.show or not binding.description or binding.action in seen:
            continue
        seen.add(binding.action)
        rank = 3 if binding.id in PINNED_IDS else _rank(active, screen)
        ranked.append((rank, index, item))
    ranked.sort(key=lambda entry: entry[:2])
    return [item for _rank_, _index, item in ranked], palette


def fit(items: list[FooterItem], width: int) -> list[FooterItem]:
    """The items that fit in `width` columns, whole, in their order of importance.

    The pinned last item (Help) is placed first so that it is never crowded out; then every other
    item in order, each kept if it fits in what is left, dropped whole if not.
    """
    pinned = [item for item in items[-1:] if item.action.removeprefix("app.") == "help"]
    room = width - sum(item.width for item in pinned)
    kept: list[FooterItem] = []
    for item in items[: len(items) - len(pinned)]:
        if item.width <= room:
            kept.append(item)
            room -= item.width
    if room < 0:  # not even Help fits: show what fits of the rest, nothing cut
        return fit([item for item in items if item not in pinned], width)
    return kept + pinned


class PaytuiFooter(Widget, can_focus=False):
    """The key line of a paytui screen (see the module docstring)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "paytui-footer--key",
        "paytui-footer--label",
        "paytui-footer--separator",
    }
    DEFAULT_CSS = """
    PaytuiFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        & > .paytui-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .paytui-footer--label {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .paytui-footer--separator {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._items: list[FooterItem] = []
        self._palette: FooterItem | None = None
        self._shown: list[FooterItem] = []
        self._spans: list[tuple[int, int, FooterItem]] = []
        self._signature: tuple[object, ...] | None = None
        self._pending = False

    # --- when to read the bindings again ------------------------------------------------------
    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._schedule()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self._schedule()

    def _schedule(self) -> None:
        """Read the bindings once after the refresh, however many changes were announced."""
        if not self._pending:
            self._pending = True
            self.call_after_refresh(self._update)

    def _update(self) -> None:
        self._pending = False
        if not self.is_attached:
            return
        self._items, self._palette = footer_items(self.screen)
        self._layout()

    def on_resize(self) -> None:
        self._layout()

    def _layout(self) -> None:
        """Fit the items to the width; repaint only if what shows changed."""
        width = self.size.width
        palette_width = (self._palette.width + len(SEPARATOR)) if self._palette else 0
        if self._palette is not None and palette_width > width // 3:
            palette_width = 0  # a very narrow terminal: the screen's keys first
        shown = fit(self._items, width - palette_width)
        palette = self._palette if palette_width else None
        signature = (width, tuple(item.shown for item in shown), palette and palette.shown)
        self._shown = shown
        self._spans = self._measure(shown, palette, width)
        if signature != self._signature:
            self._signature = signature
            self.refresh()

    @staticmethod
    def _measure(
        shown: list[FooterItem], palette: FooterItem | None, width: int
    ) -> list[tuple[int, int, FooterItem]]:
        spans: list[tuple[int, int, FooterItem]] = []
        x = 0
        for item in shown:
            spans.append((x, x + item.width, item))
            x += item.width
        if palette is not None:
            spans.append((width - palette.width, width, palette))
        return spans

    # --- painting ------------------------------------------------------------------------------
    def render(self) -> Text:
        key_style = self.get_component_rich_style("paytui-footer--key")
        label_style = self.get_component_rich_style("paytui-footer--label")
        line = Text(no_wrap=True, overflow="crop", end="")
        width = self.size.width
        for start, _end, item in self._spans:
            if item is self._palette:
                line.append(" " * max(0, start - len(SEPARATOR) - line.cell_len))
                line.append(SEPARATOR, self.get_component_rich_style("paytui-footer--separator"))
            off = Style() if item.enabled else _DIM
            line.append(f" {item.key_display} ", key_style + off)
            line.append(f"{item.label} ", label_style + off)
        line.append(" " * max(0, width - line.cell_len))
        return line

    # --- the mouse -----------------------------------------------------------------------------
    def _item_at(self, x: int) -> FooterItem | None:
        for start, end, item in self._spans:
            if start <= x < end:
                return item
        return None

    def on_click(self, event: events.Click) -> None:
        item = self._item_at(event.x)
        if item is None:
            return
        event.stop()
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        item = self._item_at(event.x)
        tooltip = None
        if item is not None:
            host = host_of(self.app)
            reason = None
            if host is not None:
                # Why it is disabled, or what the registry says beside it (a status paytui
                # does not know: the service will decide).
                reason = (
                    host.action_note_of(item.action, item.node)
                    if item.enabled
                    else host.disabled_reason_of(item.action, item.node)
                )
            tooltip = reason or item.tooltip
        if tooltip != self.tooltip:
            self.tooltip = tooltip

    @property
    def shown_items(self) -> list[FooterItem]:
        """The keys shown now (the palette's aside), most important first."""
        return list(self._shown)

    @property
    def shown_labels(self) -> list[str]:
        """What the footer shows now, `key label` each (tests and the help screen read it)."""
        labels = [f"{item.key_display} {item.label}" for item in self._shown]
        if self._palette is not None and any(s[2] is self._palette for s in self._spans):
            labels.append(f"{self._palette.key_display} {self._palette.label}")
        return labels


__all__ = ["FooterItem", "PaytuiFooter", "fit", "footer_items"]
