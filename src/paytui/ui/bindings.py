"""Every key binding of paytui, as data.

Why data and not decorators scattered over screens: the help screen, the command palette and
`docs/keys.md` are all generated from these lists, and a `[keymap]` table in the config remaps any
binding by its `id` (Textual's `App.set_keymap`). An id is therefore a public, stable name: rename
one only with a note in the changelog, because users' config files refer to it.

Screens and widgets use the lists here as their `BINDINGS`; the few screens that keep their
lists beside them are named in `SCREEN_MODULES`, so help, docs and keymap checks still see all.
"""

from __future__ import annotations

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
    Binding("escape", "app.back", "Back", id="app.back", show=False),
    Binding(
        "colon",
        "app.jump",
        "Jump",
        id="app.jump",
        tooltip=":charge ID, :token ID, :account ID, :charges QUERY, :saved NAME, :history",
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

# --- Charge search screen ---------------------------------------------------------------------
CHARGES_BINDINGS: list[Binding] = [
    # Capture and refund first: the footer shows a screen's own actions in this order.
    Binding(
        "c",
        "capture",
        "Capture",
        id="charges.capture",
        tooltip="Capture the highlighted authorization (needs urn:v2:charges:all)",
    ),
    Binding(
        "r",
        "refund",
        "Refund",
        id="charges.refund",
        tooltip="Refund the highlighted charge (needs urn:v2:refunds:all)",
    ),
    # Priority: taken when the app takes the key, so the letters pasted after it already find
    # the query line (the screen stands it down while a field has focus: there "/" is text).
    Binding(
        "slash",
        "focus_query",
        "Search",
        id="charges.search",
        tooltip="Type a query",
        priority=True,
    ),
    Binding("a", "quick_view('all')", "All", id="charges.view_all", tooltip="All charges"),
    Binding(
        "b",
        "quick_view('chargebacks')",
        "Chargebacks",
        id="charges.view_chargebacks",
        tooltip="Charges with a chargeback",
    ),
    Binding(
        "R",
        "quick_view('ach_returns')",
        "ACH returns",
        id="charges.view_returns",
        tooltip="Bank-account charges that came back",
    ),
    Binding(
        "O",
        "quick_view('open_authorizations')",
        "Open auths",
        id="charges.view_open_auths",
        tooltip="Authorized and not yet captured",
    ),
    Binding("s", "cycle_sort", "Sort", id="charges.sort", tooltip="Sort by the next column"),
    Binding("S", "reverse_sort", "Reverse", id="charges.sort_reverse", show=False),
    Binding("y", "copy_id", "Copy id", id="charges.copy_id", tooltip="Copy the charge id"),
    Binding(
        "Y",
        "copy_json",
        "Copy JSON",
        id="charges.copy_json",
        tooltip="Copy the highlighted charge as JSON",
        show=False,
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="charges.refresh", tooltip="Reload / retry"),
    # Marks and bulk actions (docs/bulk-actions.md).
    Binding(
        "space",
        "toggle_mark",
        "Mark",
        id="charges.mark",
        tooltip="Mark or unmark the highlighted charge (for a bulk action)",
        show=False,
    ),
    Binding("U", "clear_marks", "Clear marks", id="charges.clear_marks", show=False),
    Binding(
        "M",
        "mark_all",
        "Mark all matching",
        id="charges.mark_all",
        tooltip="Mark every charge of this search, every page (shows the count first)",
        show=False,
    ),
    Binding(
        "C",
        "bulk_capture",
        "Bulk capture",
        id="charges.bulk_capture",
        tooltip="Capture the marked authorizations: dry run, confirm, progress",
        show=False,
    ),
    Binding(
        "B",
        "bulk_refund",
        "Bulk full refund",
        id="charges.bulk_refund",
        tooltip="Refund the marked charges in full: dry run, confirm, progress",
        show=False,
    ),
    Binding(
        "W",
        "save_search",
        "Save search",
        id="charges.save_search",
        tooltip="Save this query under a name (in the config)",
        show=False,
    ),
    Binding(
        "x",
        "export",
        "Export",
        id="charges.export",
        tooltip="Export the whole search (every page) to CSV or JSON Lines",
    ),
]

# --- Money action dialogs (capture, refund, edit tags) ----------------------------------------
MONEY_MODAL_BINDINGS: list[Binding] = [
    Binding("escape", "close", "Close", id="money.close", tooltip="Close (nothing is sent)"),
    Binding(
        "ctrl+o",
        "open_result",
        "Open result",
        id="money.open_result",
        tooltip="Open the charge this action created",
    ),
]

# --- Bulk action dialog (docs/bulk-actions.md) ------------------------------------------------
BULK_BINDINGS: list[Binding] = [
    Binding(
        "escape",
        "close",
        "Close / cancel",
        id="bulk.close",
        tooltip="Before the start: close (nothing sent). Running: stop after the items in flight",
    ),
    Binding("enter", "start", "Start", id="bulk.start", tooltip="Start the bulk action"),
]

# --- The `:` jump line and saved searches (docs/saved-searches.md) -----------------------------
JUMP_BINDINGS: list[Binding] = [
    Binding("escape", "close", "Close", id="jump.close", tooltip="Close (nothing happens)"),
]
SAVE_SEARCH_BINDINGS: list[Binding] = [
    Binding("escape", "close", "Close", id="save_search.close", tooltip="Close (nothing saved)"),
]
SAVED_SEARCHES_BINDINGS: list[Binding] = [
    Binding("enter", "run", "Run", id="saved.run", tooltip="Run the highlighted search"),
    Binding("f2", "rename", "Rename", id="saved.rename", tooltip="Rename the highlighted search"),
    Binding("delete", "delete", "Delete", id="saved.delete", tooltip="Delete the search"),
    Binding("escape", "close", "Close", id="saved.close"),
]

# --- History screen (the action journal) ----------------------------------------------------------
HISTORY_BINDINGS: list[Binding] = [
    Binding(
        "enter",
        "open_charge",
        "Open charge",
        id="history.open",
        tooltip="Open the charge of the highlighted action",
    ),
    Binding(
        "v",
        "check_again",
        "Check again",
        id="history.check",
        tooltip="Ask the service again whether an unknown action happened",
    ),
    Binding(
        "t",
        "retry",
        "Retry",
        id="history.retry",
        tooltip="Send again an action proven not to have happened",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="history.refresh", tooltip="Reload the journal"),
    Binding(
        "T",
        "resume_batch",
        "Resume batch",
        id="history.resume_batch",
        tooltip="Run the rest of a bulk action a crash or a cancel left (never twice)",
        show=False,
    ),
    Binding(
        "slash",
        "focus_filter",
        "Filter",
        id="history.filter",
        tooltip="Filter: outcome:refused action:refund charge:ID client:ID since:DAY until:DAY",
    ),
    Binding(
        "x",
        "export",
        "Export",
        id="history.export",
        tooltip="Export the audit trail (as filtered) to CSV or JSON Lines",
    ),
]

# --- Export dialog ------------------------------------------------------------------------------
EXPORT_BINDINGS: list[Binding] = [
    Binding(
        "escape",
        "close",
        "Close / cancel",
        id="export.close",
        tooltip="Cancel a running export (its file is removed), or close",
    ),
]

# --- Refunds screen -----------------------------------------------------------------------------
REFUNDS_BINDINGS: list[Binding] = [
    Binding(
        "slash",
        "focus_search",
        "Search",
        id="refunds.search",
        tooltip="Search by charge id or account (acct:pa_...)",
    ),
    Binding(
        "enter", "open_charge", "Open charge", id="refunds.open", tooltip="Open the refunded charge"
    ),
    Binding(
        "E",
        "edit_refund",
        "Edit refund tags",
        id="refunds.edit",
        tooltip="Edit the highlighted refund's tags and attributes (needs urn:v2:refunds:all)",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="refunds.refresh", tooltip="Reload / retry"),
]

# --- Browse (merchants, customers, partners, devices: read only) -------------------------------
BROWSE_BINDINGS: list[Binding] = [
    Binding(
        "enter",
        "open_object",
        "Read",
        id="browse.open",
        tooltip="Read the highlighted object again, alone (GET by id), into the JSON view",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="browse.refresh", tooltip="Reload / retry"),
]

# --- The query line (only keys an Input does not consume) ---------------------------------------
QUERY_BINDINGS: list[Binding] = [
    Binding("escape", "leave", "To results", id="query.leave", show=False),
    Binding("down", "leave", "To results", id="query.to_results", show=False),
]

# --- Results tables: arrows plus vim keys -----------------------------------------------------
TABLE_BINDINGS: list[Binding] = [
    Binding("enter", "select", "Open", id="table.open", tooltip="Open the highlighted row"),
    Binding("j,down", "cursor_down", "Down", id="table.down", show=False),
    Binding("k,up", "cursor_up", "Up", id="table.up", show=False),
    Binding("g,home", "cursor_top", "Top", id="table.top", show=False),
    Binding("G,end", "cursor_bottom", "Bottom", id="table.bottom", show=False),
    Binding("pagedown,ctrl+f,ctrl+d", "page_down", "Page down", id="table.page_down", show=False),
    Binding("pageup,ctrl+b,ctrl+u", "page_up", "Page up", id="table.page_up", show=False),
]

# --- Tokens screen (`2`) and its forms -----------------------------------------------------------
TOKENS_BINDINGS: list[Binding] = [
    Binding("N", "create_token", "New token", id="tokens.create", tooltip="Store a card"),
    Binding("enter", "view", "View", id="tokens.view", tooltip="Every field of the token"),
    Binding("u", "update_token", "Update", id="tokens.update", tooltip="Card expiry, holder"),
    Binding(
        "n",
        "charge_token",
        "New charge",
        id="tokens.charge",
        tooltip="A new charge of the highlighted token: sale or authorization",
    ),
    Binding("y", "copy_id", "Copy id", id="tokens.copy_id", tooltip="Copy the token id"),
    Binding(
        "Y",
        "copy_json",
        "Copy JSON",
        id="tokens.copy_json",
        tooltip="Copy the highlighted token as JSON",
        show=False,
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="tokens.refresh", tooltip="Reload / retry"),
]

#: The tokens table (a plain DataTable): vim keys on top of its arrows, Home/End, PgUp/PgDn.
TOKEN_TABLE_BINDINGS: list[Binding] = [
    Binding("j", "cursor_down", "Down", id="tokens_table.down", show=False),
    Binding("k", "cursor_up", "Up", id="tokens_table.up", show=False),
    Binding("g", "scroll_top", "Top", id="tokens_table.top", show=False),
    Binding("G", "scroll_bottom", "Bottom", id="tokens_table.bottom", show=False),
]

#: Forms (token create/update, charge a token, new charge): keys an Input does not consume.
FORM_BINDINGS: list[Binding] = [
    Binding("ctrl+s", "submit", "Send", id="form.submit", tooltip="Check and send the form"),
    Binding("escape", "cancel", "Close", id="form.cancel", tooltip="Close without sending"),
]

TOKEN_VIEW_BINDINGS: list[Binding] = [
    Binding("escape,q", "close", "Close", id="token_view.close"),
    Binding("y", "copy_id", "Copy id", id="token_view.copy_id", tooltip="Copy the token id"),
]

NEW_CHARGE_BINDINGS: list[Binding] = [
    Binding("ctrl+s", "submit", "Charge", id="new_charge.submit", tooltip="Check and send"),
    Binding(
        "ctrl+o", "open_result", "Open charge", id="new_charge.open", tooltip="Open the result"
    ),
    Binding("escape", "app.back", "Back", id="new_charge.back", show=False),
]

# --- Plugin sessions and new accounts (issue 12) ------------------------------------------------
#: On an account's detail: its plugin sessions and a new account of its merchant.
ACCOUNT_PLUGIN_BINDINGS: list[Binding] = [
    Binding(
        "L",
        "new_payment_session",
        "Pay session",
        id="account.payment_session",
        tooltip="New payment plugin session for this account (needs urn:v2:plugins:all)",
    ),
    Binding(
        "I",
        "new_enrollment_session",
        "Enrollment",
        id="account.enrollment_session",
        tooltip="New enrollment plugin session (invite) for this account's merchant",
    ),
    Binding(
        "A",
        "new_account",
        "New account",
        id="account.new_account",
        tooltip="New payment account of this account's merchant (needs urn:v2:accounts:all)",
    ),
]
#: The plugin sessions list (palette "Plugin sessions").
PLUGIN_SESSIONS_BINDINGS: list[Binding] = [
    Binding("enter", "view", "View", id="sessions.view", tooltip="Every setting of the session"),
    Binding(
        "delete",
        "delete_session",
        "Delete",
        id="sessions.delete",
        tooltip="Delete the highlighted session (asks first)",
    ),
    Binding("y", "copy_id", "Copy id", id="sessions.copy_id", tooltip="Copy the session id"),
    Binding("ctrl+r", "refresh", "Refresh", id="sessions.refresh", tooltip="Reload / retry"),
]
#: The result of a plugin session dialog.
PLUGIN_RESULT_BINDINGS: list[Binding] = [
    Binding(
        "ctrl+y",
        "copy_result",
        "Copy settings",
        id="plugin.copy",
        tooltip="Copy the new session's id and settings",
    ),
]
SESSION_VIEW_BINDINGS: list[Binding] = [
    Binding("escape,q", "close", "Close", id="session_view.close"),
    Binding("y", "copy_id", "Copy id", id="session_view.copy", tooltip="Copy the session id"),
    Binding(
        "Y",
        "copy_json",
        "Copy settings",
        id="session_view.copy_json",
        tooltip="Copy the session's settings as JSON (to hand to the merchant)",
    ),
]

# --- Who am I and profile switcher ----------------------------------------------------------
WHOAMI_BINDINGS: list[Binding] = [
    Binding("escape,i,q", "close", "Close", id="whoami.close"),
]
SWITCHER_BINDINGS: list[Binding] = [
    Binding("escape", "close", "Cancel", id="profiles.close", tooltip="Keep this profile"),
]

# --- Help screen ---------------------------------------------------------------------------------
HELP_BINDINGS: list[Binding] = [
    Binding("escape,question_mark,q", "close", "Close", id="help.close"),
]


@dataclass(frozen=True)
class BindingGroup:
    """A titled list of bindings, in the order the help screen and docs/keys.md show them."""

    title: str
    bindings: tuple[Binding, ...]


GROUPS: list[BindingGroup] = [
    BindingGroup("Everywhere", tuple(GLOBAL_BINDINGS)),
    BindingGroup("Charge search", tuple(CHARGES_BINDINGS)),
    BindingGroup("Query line", tuple(QUERY_BINDINGS)),
    BindingGroup("Tables", tuple(TABLE_BINDINGS)),
    BindingGroup("Tokens", tuple(TOKENS_BINDINGS)),
    BindingGroup("Tokens table", tuple(TOKEN_TABLE_BINDINGS)),
    BindingGroup("Token view", tuple(TOKEN_VIEW_BINDINGS)),
    BindingGroup("Forms (token, charge a token)", tuple(FORM_BINDINGS)),
    BindingGroup("New charge", tuple(NEW_CHARGE_BINDINGS)),
    BindingGroup("Help screen", tuple(HELP_BINDINGS)),
    BindingGroup("Who am I", tuple(WHOAMI_BINDINGS)),
    BindingGroup("Profile switcher", tuple(SWITCHER_BINDINGS)),
    BindingGroup("Capture / refund / edit dialogs", tuple(MONEY_MODAL_BINDINGS)),
    BindingGroup("History", tuple(HISTORY_BINDINGS)),
    BindingGroup("Bulk action dialog", tuple(BULK_BINDINGS)),
    BindingGroup("Jump line", tuple(JUMP_BINDINGS)),
    BindingGroup("Save search", tuple(SAVE_SEARCH_BINDINGS)),
    BindingGroup("Saved searches", tuple(SAVED_SEARCHES_BINDINGS)),
    BindingGroup("Export dialog", tuple(EXPORT_BINDINGS)),
    BindingGroup("Refunds", tuple(REFUNDS_BINDINGS)),
    BindingGroup("Browse", tuple(BROWSE_BINDINGS)),
    BindingGroup("Plugin sessions", tuple(PLUGIN_SESSIONS_BINDINGS)),
    BindingGroup("Plugin session view", tuple(SESSION_VIEW_BINDINGS)),
    BindingGroup("Plugin session dialogs", tuple(PLUGIN_RESULT_BINDINGS)),
]


#: Screens whose modules keep their own `BINDINGS` (module, class, title), read for the docs and
#: keymap validation only; importing them is deferred so start-up does not pay for it.
SCREEN_MODULES: tuple[tuple[str, str, str], ...] = (
    ("paytui.ui.screens.charge_detail", "ChargeDetailScreen", "Charge detail"),
    ("paytui.ui.screens.accounts", "AccountsScreen", "Accounts"),
    ("paytui.ui.screens.account_detail", "AccountDetailScreen", "Account"),
    ("paytui.ui.screens.distributions", "DistributionsScreen", "Distributions"),
    ("paytui.ui.screens.distribution_detail", "DistributionDetailScreen", "Distribution"),
)


def all_groups() -> list[BindingGroup]:
    """`GROUPS` plus the bindings of the screens listed in `SCREEN_MODULES`."""
    import importlib

    groups = list(GROUPS)
    titles = {group.title for group in groups}
    for module_name, class_name, title in SCREEN_MODULES:
        if title in titles:
            continue
        screen_class = getattr(importlib.import_module(module_name), class_name)
        found = tuple(b for b in screen_class.BINDINGS if isinstance(b, Binding))
        if found:
            groups.append(BindingGroup(title, found))
    return groups


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
    "delete": "Delete",
    "f2": "F2",
    "space": "space",
}


def display_key(key: str) -> str:
    """A key list ("j,down") as people write it ("j / ↓")."""
    return " / ".join(_KEY_NAMES.get(part.strip(), part.strip()) for part in key.split(","))


#: Actions that mean "back" (close the dialog / screen on top); one meaning for the key map.
BACK_ACTIONS = frozenset(
    {"back", "close", "cancel", "leave", "back_or_quit", "dismiss", "answer(False)"}
)

#: Keys bound to more than one meaning on purpose, and why (`tests/ui/test_keys.py` reads it).
KEY_ALLOW_LIST: dict[str, str] = {
    "enter": "opens the highlighted row or sends the focused form (what enter does in any UI)",
    "o": "charge detail: opens the linked charge (its capture or its authorization; one shows)",
    "down": "the query line hands focus to the results, which then move down",
    "i": "the key that opened Who am I closes it",
    "question_mark": "the key that opened Help closes it",
    "delete": "deletes the highlighted item of its list (a saved search; a plugin session, after a "
    "review)",
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
        '"table.down" = "j,down,ctrl+n"',
        "```",
        "",
        "Press `?` in the app for the keys of the screen you are on (with your remaps applied),",
        "and `ctrl+p` for the command palette.",
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
            found.append(LiveBinding(node, binding, tuple(keys), bool(state), reason))
    return found


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
