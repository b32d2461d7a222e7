"""The command palette's paytui entries (`PaytuiCommands`, in `PaytuiApp.COMMANDS`).

"Go to" each top-level screen (`top_screens`), every key of the current screen as an action
(read from its live bindings, keymap applied), the families a token may read, the plugin
sessions and accounts, and the power tools (jump, saved searches, copy as curl, themes).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from paytui.text import safe
from paytui.ui import bindings as keys
from paytui.ui.top_screens import SCREENS

if TYPE_CHECKING:
    from paytui.ui.host import PaytuiHost

__all__ = ["PLUGIN_COMMANDS", "PaytuiCommands"]

#: Palette entries of the plugin sessions and new accounts (issue 12): title, blurb, app action.
PLUGIN_COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("Plugin sessions", "List, view and delete plugin sessions", "plugin_sessions"),
    (
        "New payment plugin session",
        "For the account in focus: tokenize, limits, appearance",
        "open_payment_session",
    ),
    ("New enrollment plugin session", "Enroll a new merchant", "new_enrollment_session"),
    ("New account", "A payment account of a merchant (tax authority for 9311)", "new_account"),
)


def open_pulse(app: PaytuiHost) -> None:
    """The pulse's screen (imported on first use)."""
    from paytui.ui.screens.pulse import PulseScreen

    app.push_screen(PulseScreen())


def _power_commands(app: PaytuiHost) -> list[tuple[str, str, Callable[[], object]]]:
    """Jump, saved searches (each by name), copy as curl and the theme picker."""
    commands: list[tuple[str, str, Callable[[], object]]] = [
        (
            "Jump (:)",
            ":charge ID, :token ID, :account ID, :charges QUERY, :saved NAME, :history",
            partial(app.run_action, "jump"),
        ),
        (
            "Saved searches",
            "Run, rename (F2) or delete a saved search",
            partial(app.run_action, "saved_searches"),
        ),
        (
            "Copy as curl",
            "The request behind this view (or the last action); the token as $PAYTUI_TOKEN",
            partial(app.run_action, "copy_curl"),
        ),
        (
            "Theme: pick one (remembered in the config)",
            "Textual's themes and paytui-high-contrast",
            partial(app.run_action, "change_theme"),
        ),
    ]
    for name, query in app.saved_searches().items():
        commands.append(
            (f"Saved search: {safe(name)}", safe(query), partial(app.run_saved_search, name))
        )
    return commands


class PaytuiCommands(Provider):
    """Command palette: every screen by name, plus every action of the screen it was opened on.

    The actions are read from the live bindings (keymap applied), so a screen added later shows up
    here without touching this class, and the palette never offers an action the screen disabled.
    """

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = cast("PaytuiHost", self.app)  # the palette of a PaytuiApp
        commands: list[tuple[str, str, Callable[[], object]]] = [
            (f"Go to {title}", blurb, partial(app.run_action, f"goto('{mode}')"))
            for mode, title, blurb in SCREENS
        ]
        commands.append(("Help: keys", "Every key on this screen", partial(app.run_action, "help")))
        commands.append(
            (
                "New charge",
                "Virtual terminal: take a payment by card, bank account or token",
                partial(app.run_action, "new_charge"),
            )
        )
        commands.append(
            (
                "Refunds",
                "Search refunds by charge id or account",
                partial(app.run_action, "refunds"),
            )
        )
        commands.append(
            (
                "Pulse",
                "Sales volume, captures, refunds, chargebacks, ACH returns by day; chargeback rate",
                partial(open_pulse, app),
            )
        )
        from paytui.api.families import FAMILIES

        # Scopes of the token in use; None (not connected, a static token): unknown, all offered.
        granted = getattr(app.connected_client, "granted_scopes", None)
        for family in FAMILIES.values():
            # Gated by the token's scopes: a family the token may not read is not offered.
            if family.readable_with(granted):
                commands.append(
                    (
                        f"Browse {family.name}",
                        f"Read-only list of {family.name}, its columns as the service sends them",
                        partial(app.run_action, f"browse('{family.name}')"),
                    )
                )
        commands += [
            (title, blurb, partial(app.run_action, action))
            for title, blurb, action in PLUGIN_COMMANDS
        ]
        commands.append(
            (
                "Who am I",
                "Profile, base URL, scopes, token expiry",
                partial(app.run_action, "whoami"),
            )
        )
        commands.append(
            (
                "Switch profile",
                "Connect with another profile",
                partial(app.run_action, "switch_profile"),
            )
        )
        commands += _power_commands(app)
        from paytui.ui.user_commands import offered

        for each in offered(self.screen):
            if each.reason is None:  # never offered where it cannot run (help says why)
                key = f" ({each.key})" if each.key else ""
                commands.append(
                    (
                        f"Command: {safe(each.command.name)}{key}",
                        safe(each.command.description) or "One of your [[commands]]",
                        partial(app.run_action, each.action, self.screen),
                    )
                )
        seen = {
            *("help", "quit", "back", "command_palette", "whoami", "switch_profile", "new_charge"),
            "jump",
        }
        for live in keys.live_bindings(self.screen):
            action = live.binding.action.removeprefix("app.")
            if action in seen or action.startswith("goto(") or not live.enabled:
                continue
            seen.add(action)
            name = f"{live.scope}: {live.binding.description} ({live.key_display})"
            commands.append(
                (
                    name,
                    live.binding.tooltip,
                    partial(app.run_action, live.binding.action, live.namespace),
                )
            )
        return commands

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
