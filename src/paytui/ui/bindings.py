"""Every key binding of paytui, as data.

Why data and not decorators scattered over screens: the help screen, the command palette and
`docs/keys.md` are all generated from these lists, and a `[keymap]` table in the config remaps any
binding by its `id` (Textual's `App.set_keymap`). An id is therefore a public, stable name: rename
one only with a note in the changelog, because users' config files refer to it.

Here: the App's own list (`GLOBAL_BINDINGS`) and the lists several classes share (tables, forms).
Every other list lives beside the screen or widget class it belongs to, as its `BINDINGS`; the
help's grouping, `docs/keys.md` and the keymap's checks find them all by walking the screens and
widgets packages (`all_groups`), when asked and never at start-up. A class's group is its
`KEYS_TITLE` or else its `HELP_TITLE`; `ORDER` only orders the groups.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.binding import Binding

from paytui.ui.top_screens import TOP_SCREENS

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.screen import Screen

# --- Global: app-wide navigation --------------------------------------------------------------
GLOBAL_BINDINGS: list[Binding] = [
    # `1`-`5`: the top-level screens, declared once in `paytui.ui.top_screens`.
    *(
        Binding(
            screen.key,
            f"app.goto('{screen.mode}')",
            screen.title,
            id=f"app.{screen.mode}",
            tooltip=screen.tooltip,
        )
        for screen in TOP_SCREENS
    ),
    Binding(
        "n",
        "app.new_charge",
        "New charge",
        id="app.new_charge",
        tooltip="Virtual terminal: take a payment by card, bank account or token",
    ),
    Binding("question_mark", "app.help", "Help", id="app.help", tooltip="Every key on this screen"),
    Binding(
        "at",
        "app.action_log",
        "Action log",
        id="app.action_log",
        tooltip="This session's and this charge's actions: who, what, outcome, when (read-only,"
        " live)",
        show=False,
    ),
    Binding(
        "i",
        "app.whoami",
        "Who am I",
        id="app.whoami",
        tooltip="Profile, environment, base URL, scopes, token expiry",
        show=False,
    ),
    Binding(
        "P",
        "app.switch_profile",
        "Switch profile",
        id="app.switch_profile",
        tooltip="Connect with another profile (asks before production)",
        show=False,
    ),
    # Workspaces (`ui/workspaces.py`): each key has an F-key beside it, which a browser leaves to
    # the page (`BROWSER_KEYS`); none of F5-F7, which a text area keeps. Priority: Textual's
    # scrolling containers bind ctrl+PgUp / ctrl+PgDn (page left / right), and the focused
    # widget's bindings come first; one meaning per key, everywhere, dialogs included.
    Binding(
        "ctrl+t,f4",
        "app.new_workspace",
        "New workspace",
        id="app.new_workspace",
        tooltip="This screen, on this profile, in a new workspace (P there for another merchant)",
        show=False,
        priority=True,
    ),
    Binding(
        "ctrl+pagedown,f9",
        "app.next_workspace",
        "Next workspace",
        id="app.next_workspace",
        tooltip="The next workspace of the strip, where it was left",
        show=False,
        priority=True,
    ),
    Binding(
        "ctrl+pageup,f8",
        "app.previous_workspace",
        "Previous workspace",
        id="app.previous_workspace",
        tooltip="The previous workspace of the strip, where it was left",
        show=False,
        priority=True,
    ),
    Binding(
        "f10",
        "app.close_workspace",
        "Close workspace",
        id="app.close_workspace",
        tooltip="Close the workspace shown (the last one stays: q quits)",
        show=False,
        priority=True,
    ),
    Binding(
        "ctrl+z",
        "app.undo",
        "Undo",
        id="app.undo",
        tooltip="Undo your last change: a tag and attribute edit, or a claim (asks first; never"
        " money)",
        show=False,
    ),
    Binding("escape", "app.back", "Back", id="app.back", show=False),
    Binding(
        "colon",
        "app.jump",
        "Jump",
        id="app.jump",
        tooltip=":charge ID, :token ID, :account ID, :charges QUERY, :saved NAME, :customer NAME, "
        ":history",
        show=False,
    ),
    Binding(
        "q",
        "app.back_or_quit",
        "Back / quit",
        id="app.quit",
        tooltip="Close the screen on top; quits only from a top-level screen (1-5)",
    ),
    # Priority: focus moves when the App takes the key from the terminal, before the next key is
    # handed to the focused field. As an ordinary (screen) binding, tab is first queued at the
    # focused field and only moves focus once it has bubbled back up, by which time the keys
    # typed after it were already queued at the old field (`19.99⇥⇥⇥4111…` all in Amount).
    Binding("tab", "app.focus_next", "Next field", id="app.focus_next", show=False, priority=True),
    Binding(
        "shift+tab",
        "app.focus_previous",
        "Previous field",
        id="app.focus_previous",
        show=False,
        priority=True,
    ),
]

#: Every dialog (`PaytuiModal`): the action log, as everywhere — a modal does not pass keys on to
#: the App's bindings. The same id as the App's, so a `[keymap]` remap moves both. `ctrl+l` too:
#: in a form (`TEXT_ENTRY`) `@` is a character, never a key (rule 4), so a money dialog opens the
#: log — on its own charge — with `ctrl+l`.
MODAL_BINDINGS: list[Binding] = [
    Binding(
        "at,ctrl+l",
        "app.action_log",
        "Action log",
        id="app.action_log",
        tooltip="This session's and this charge's actions (ctrl+l in a form, where @ is typed)",
        show=False,
    ),
]

# --- Lists more than one screen or widget uses -------------------------------------------------
#: Results tables (`NavTable`, `ChargeTable`): arrows plus vim keys.
TABLE_BINDINGS: list[Binding] = [
    Binding("enter", "select", "Open", id="table.open", tooltip="Open the highlighted row"),
    Binding("j,down", "cursor_down", "Down", id="table.down", show=False),
    Binding("k,up", "cursor_up", "Up", id="table.up", show=False),
    Binding("g,home", "cursor_top", "Top", id="table.top", show=False),
    Binding("G,end", "cursor_bottom", "Bottom", id="table.bottom", show=False),
    Binding("pagedown,ctrl+f,ctrl+d", "page_down", "Page down", id="table.page_down", show=False),
    Binding("pageup,ctrl+b,ctrl+u", "page_up", "Page up", id="table.page_up", show=False),
]

#: Forms (token create/update, charge a token, new charge): keys an Input does not consume.
FORM_BINDINGS: list[Binding] = [
    Binding("ctrl+s", "submit", "Send", id="form.submit", tooltip="Check and send the form"),
    Binding("escape", "cancel", "Close", id="form.cancel", tooltip="Close without sending"),
]


@dataclass(frozen=True)
class BindingGroup:
    """A titled list of bindings, in the order the help screen and docs/keys.md show them."""

    title: str
    bindings: tuple[Binding, ...]


#: Where the screens and widgets are found (walked when asked, never at start-up).
PACKAGES = ("paytui.ui.screens", "paytui.ui.widgets")

#: The order of the groups in docs/keys.md (the number keys' screens first, then what they
#: open). Only an order: a group not named here is still found, and comes after these.
ORDER = (
    "Everywhere",
    "Charge search",
    "Query line",
    "Tables",
    "Tokens",
    "Tokens table",
    "Token view",
    "Forms (token, charge a token)",
    "New charge",
    "Help screen",
    "Who am I",
    "Profile switcher",
    "Capture / refund / edit dialogs",
    "History",
    "Bulk action dialog",
    "Jump line",
    "Save search",
    "Saved searches",
    "Export dialog",
    "Refunds",
    "Browse",
    "Plugin sessions",
    "Plugin session view",
    "Plugin session dialogs",
    "Charge detail",
    "Accounts",
    "Account",
    "Distributions",
    "Distribution",
)


_NO_TITLE = object()


def group_title(cls: type) -> str | None:
    """The group a class's own `BINDINGS` are listed under: its `KEYS_TITLE` when it has one
    (None: its keys are answers local to it, such as a confirmation's y / n, and stay out of the
    key map and the keymap's ids), else its `HELP_TITLE`."""
    title = getattr(cls, "KEYS_TITLE", _NO_TITLE)
    if title is _NO_TITLE:
        title = getattr(cls, "HELP_TITLE", None)
    return title if isinstance(title, str) else None


@functools.cache
def _found_groups() -> tuple[BindingGroup, ...]:
    """Every screen and widget class of `PACKAGES` with `BINDINGS` of its own and a title, each
    list under its class's title (`group_title`), in `ORDER`; a binding already listed (a list
    two classes share) is listed once, in the first group."""
    from textual.dom import DOMNode

    by_title: dict[str, list[Binding]] = {}
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            module = importlib.import_module(info.name)
            for cls in vars(module).values():
                if not (
                    isinstance(cls, type)
                    and issubclass(cls, DOMNode)
                    and cls.__module__ == module.__name__
                    and "BINDINGS" in vars(cls)
                ):
                    continue
                title = group_title(cls)
                if title is not None:
                    own = [b for b in vars(cls)["BINDINGS"] if isinstance(b, Binding)]
                    by_title.setdefault(title, []).extend(own)
    rank = {title: index for index, title in enumerate(ORDER)}
    titles = sorted(by_title, key=lambda title: rank.get(title, len(ORDER)))
    groups: list[BindingGroup] = []
    listed: set[str | None] = {b.id for b in GLOBAL_BINDINGS}
    for title in titles:
        fresh = []
        for binding in by_title[title]:
            if binding.id not in listed or binding.id is None:
                listed.add(binding.id)
                fresh.append(binding)
        if fresh:
            groups.append(BindingGroup(title, tuple(fresh)))
    return tuple(groups)


def all_groups() -> list[BindingGroup]:
    """Every binding of paytui, grouped: "Everywhere" (the App's), then the groups found by
    walking the screens and widgets (`_found_groups`; imported on the first call only)."""
    return [BindingGroup("Everywhere", tuple(GLOBAL_BINDINGS)), *_found_groups()]


def all_binding_ids() -> set[str]:
    """Every id a `[keymap]` table may use."""
    return {b.id for group in all_groups() for b in group.bindings if b.id}


def unknown_keymap_ids(keymap: Mapping[str, str]) -> list[str]:
    """Ids in a keymap that match no binding (most likely a typo in the config)."""
    if not keymap:
        return []  # without importing every screen for its bindings
    known = all_binding_ids()
    return sorted(binding_id for binding_id in keymap if binding_id not in known)


def keymap_collisions(keymap: Mapping[str, str]) -> list[str]:
    """Remaps that take a key another binding of the same screen (or of "Everywhere") holds:
    one sentence each, naming both — one meaning per key, and a remap must not silently
    remove another action (``"charges.refund" = "R"`` took "ACH returns")."""
    if not keymap:
        return []
    groups = all_groups()
    everywhere = next((g for g in groups if g.title == "Everywhere"), None)

    def keys_of(binding: Binding) -> set[str]:
        text = keymap.get(binding.id or "", binding.key)
        return {part.strip() for part in text.split(",") if part.strip()}

    found: list[str] = []
    for group in groups:
        others = [*group.bindings]
        if everywhere is not None and group is not everywhere:
            others += [b for b in everywhere.bindings if b not in group.bindings]
        for binding in group.bindings:
            if not binding.id or binding.id not in keymap:
                continue
            for other in others:
                if other is binding or other.id == binding.id or meaning(other) == meaning(binding):
                    continue
                shared = keys_of(binding) & keys_of(other)
                if shared:
                    key = display_key(",".join(sorted(shared)))
                    line = (
                        f"{key} of {binding.id} ({binding.description}) is also {other.id}"
                        f" ({other.description}) on {group.title}"
                    )
                    if line not in found:
                        found.append(line)
    return found


_KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "escape": "esc",
    "pagedown": "PgDn",
    "pageup": "PgUp",
    "home": "Home",
    "end": "End",
    "up": "↑",
    "down": "↓",
    "enter": "enter",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
    "colon": ":",
    "at": "@",
    "delete": "Delete",
    "f2": "F2",
    "f3": "F3",
    "f4": "F4",
    "f8": "F8",
    "f9": "F9",
    "f10": "F10",
    "ctrl+pagedown": "ctrl+PgDn",
    "ctrl+pageup": "ctrl+PgUp",
    "space": "space",
}


def display_key(key: str) -> str:
    """A key list ("j,down") as people write it ("j / ↓")."""
    return " / ".join(_KEY_NAMES.get(part.strip(), part.strip()) for part in key.split(","))


#: Actions that mean "back" (close the dialog / screen on top); one meaning for the key map.
BACK_ACTIONS = frozenset(
    {"back", "close", "cancel", "leave", "back_or_quit", "dismiss", "answer(False)"}
)

#: Keys a browser keeps for itself (close the tab, a new tab, a new window, the next tab, the
#: previous and next tab): in
#: `paytui serve` they never reach the page, so every binding with one has another key too
#: (`tests/ui/test_keys.py`), and the help says so in a browser (`screens/help.py`).
BROWSER_KEYS = ("ctrl+w", "ctrl+t", "ctrl+n", "ctrl+tab", "ctrl+pageup", "ctrl+pagedown")

#: Keys bound to more than one meaning on purpose, and why (`tests/ui/test_keys.py` reads it).
KEY_ALLOW_LIST: dict[str, str] = {
    "enter": "opens the highlighted row on every list; in a dialog it goes ahead (the bulk"
    " dialog's Start; Approvals waiting's approve, pressed twice), as enter does in any UI",
    "o": "charge detail: opens the linked charge (its capture or its authorization; one shows)",
    "down": "the query line hands focus to the results, which then move down",
    "i": "the key that opened Who am I closes it",
    "question_mark": "the key that opened Help closes it",
    "delete": "deletes the highlighted item of its list (a saved search; a plugin session, after a "
    "review; a request for approval, rejected)",
}


def meaning(binding: Binding) -> str:
    """What a binding does, for the one-meaning-per-key check: its action without namespace,
    with every kind of "back" as one meaning and a token's charge as a new charge."""
    action = (
        binding.action.split(".", 1)[-1] if binding.action.startswith("app.") else binding.action
    )
    if action in BACK_ACTIONS:
        return "back"
    return _SYNONYMS.get(action, action)


_SYNONYMS = {
    # Enter on a row opens what the row is, whatever the list: one meaning, "open".
    "select": "open",
    "view": "open",
    "run": "open",
    "open_charge": "open",
    "open_object": "open",
    "open_thread": "open",
    "charge_token": "new_charge",
    "reload": "refresh",
    "scroll_top": "cursor_top",
    "scroll_bottom": "cursor_bottom",
    "focus_query": "search",
    "focus_search": "search",
    "focus_filter": "search",
    "search_charges": "search",
}


def key_map() -> dict[str, dict[str, list[str]]]:
    """Every key: meaning -> the groups (screens) that bind it, from all groups."""
    found: dict[str, dict[str, list[str]]] = {}
    for group in all_groups():
        for binding in group.bindings:
            for key in binding.key.split(","):
                where = found.setdefault(key.strip(), {}).setdefault(meaning(binding), [])
                if group.title not in where:
                    where.append(group.title)
    return found


def keys_markdown() -> str:
    """The text of docs/keys.md, generated from the registry (a test checks the file is current)."""
    lines = [
        "# Keys",
        "",
        "Generated from `src/paytui/ui/bindings.py` by `paytui.ui.bindings.keys_markdown()`;",
        "do not edit by hand. Remap any key by its id in the `[keymap]` table of the config, e.g.",
        "",
        "```toml",
        "[keymap]",
        '"charges.copy_id" = "ctrl+y"',
        '"table.down" = "j,down,ctrl+j"',
        "```",
        "",
        "Press `?` in the app for the keys of the screen you are on (with your remaps applied),",
        "and `ctrl+p` for the command palette.",
        "",
        "## Typing ahead",
        "",
        "Every key counts from the moment `paytui` starts, in the order typed: a key for rows not",
        'shown yet ("Loading charges…", a search run by Enter in the query line) waits for',
        "them, and so does every key typed after it. `j j space` typed at the first rows marks",
        "the third charge; `/` and its text go to the query line at once. Moves are taken on the",
        "first rows as soon as they show; a mark, Enter or an action waits for the real rows",
        "(the first ones are a preview: docs/architecture.md). ctrl+q always quits at once.",
        "`n` and a whole form typed or pasted after it at once: everything after `n` waits for",
        "the new-charge form and lands in its fields, in order (never in the list's search).",
        "Likewise a dialog's key and what follows it: `r 10 enter enter` typed at once on a",
        "charge waits for the refund dialog to read the charge, then refunds 10.00 (never the",
        "whole amount left, never nothing); `enter r` on the list waits for the charge to be",
        "read before the `r`. escape, with nothing waiting before it, closes at once.",
        "A workspace key (`ctrl+PgUp`/`ctrl+PgDn`, F8/F9) acts as it arrives, even over a",
        "dialog; a key typed before it in the workspace it leaves, whose turn comes after the",
        "switch, is dropped rather than applied to the workspace now shown (an `enter` meant",
        "for one workspace never lands on another's dialog).",
        "",
        "## One meaning per key",
        "",
        "`escape` goes back everywhere; `q` goes back on a pushed screen and quits only from a",
        "top-level screen; `1`-`5` always show that screen itself; every list pages by scrolling",
        "(the next page is read as the cursor nears the end); `enter` opens.",
        "",
        "| Key | Meaning | Where |",
        "|---|---|---|",
    ]
    # A meaning in people's words: the description its bindings show in the footer and help
    # (the action call itself, `goto('charges')`, is the registry's key, not a meaning).
    described: dict[str, str] = {}
    for group in all_groups():
        for binding in group.bindings:
            described.setdefault(meaning(binding), binding.description or meaning(binding))
    for key, meanings in sorted(key_map().items(), key=lambda item: (len(item[0]) > 1, item[0])):
        for what, groups in meanings.items():
            lines.append(f"| `{display_key(key)}` | {described[what]} | {', '.join(groups)} |")
    for group in all_groups():
        lines += ["", f"## {group.title}", "", "| Key | Action | Id |", "|---|---|---|"]
        for binding in group.bindings:
            description = binding.description
            if binding.tooltip:
                description = f"{description}: {binding.tooltip}"
            lines.append(f"| `{display_key(binding.key)}` | {description} | `{binding.id}` |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class LiveBinding:
    """One binding as it works right now: keys after the user's keymap, and where it acts."""

    namespace: DOMNode
    binding: Binding
    keys: tuple[str, ...]
    enabled: bool
    #: Why it is disabled (the action registry's words), when it is.
    reason: str | None = None
    #: What the registry says beside it when it is enabled ("paytui does not know the status
    #: `settled`; the service will decide"), when anything.
    note: str | None = None

    @property
    def key_display(self) -> str:
        return display_key(",".join(self.keys))

    @property
    def scope(self) -> str:
        """A short name of where the binding lives, for the help screen's grouping."""
        from textual.app import App
        from textual.screen import Screen

        node = self.namespace
        if isinstance(node, App):
            return "Everywhere"
        if isinstance(node, Screen):
            return getattr(node, "HELP_TITLE", None) or "This screen"
        # A widget without a title of its own: its keys belong to the screen it is on.
        return getattr(node, "HELP_TITLE", None) or "This screen"


def live_bindings(screen: Screen[object]) -> list[LiveBinding]:
    """Every binding reachable on `screen`: its widgets, the screen, then the app, keymap applied.

    Built from the live DOM (not from the lists above) so that the help screen and the command
    palette show exactly what the keys do now, remaps and disabled actions included. Textual's
    own unlabelled bindings (cursor keys inside an Input, ...) are left out.
    """
    app = screen.app
    keymap = app._keymap
    nodes: list[DOMNode] = [screen, *screen.walk_children(with_self=False)]
    if not screen.is_modal:
        nodes.append(app)
    found: list[LiveBinding] = []
    for node in nodes:
        bindings_map = node._bindings.copy()
        if keymap:
            bindings_map.apply_keymap(keymap)
        grouped: dict[tuple[str | None, str], tuple[Binding, list[str]]] = {}
        for key, binding in bindings_map:
            # Ours all carry an id; Textual's own (editing keys of an Input, ...) only count at
            # app level, where they are few and matter (ctrl+q, ctrl+p).
            if not binding.id and (node is not app or binding.system or not binding.description):
                continue
            slot = grouped.setdefault((binding.id, binding.action), (binding, []))
            if key not in slot[1]:
                slot[1].append(key)
        for binding, keys in grouped.values():
            state, reason = action_state(app, binding.action, node)
            if state is False:
                continue
            keys.sort(key=lambda k: len(k) > 1)  # letters first: "j / ↓", "G / End"
            note = action_note(app, binding.action, node) if state else None
            found.append(LiveBinding(node, binding, tuple(keys), bool(state), reason, note))
    return found


def action_note(app: App[object], action: str, node: DOMNode) -> str | None:
    """The registry's note on an enabled `action` as bound on `node` (`ActionSpec.note`)."""
    from paytui.ui.host import host_of

    host = host_of(app)
    return host.action_note_of(action, node) if host is not None else None


def action_state(app: App[object], action: str, node: DOMNode) -> tuple[bool | None, str | None]:
    """`check_action` of the node `action` runs on (as Textual asks it), and the registry's
    reason when the action is disabled; public API only (`textual.actions.parse`)."""
    from textual.actions import parse

    prefix, name, parameters = parse(action)
    target: DOMNode = {"app": app, "screen": app.screen}.get(prefix, node)
    state = target.check_action(name, parameters)
    reason = None
    if not state:
        from paytui.ui.host import host_of

        host = host_of(app)
        reason = host.disabled_reason_of(action, node) if host is not None else None
    return state, reason
