"""User commands in the dashboard (`[[commands]]`, docs/commands.md): which are offered on a
screen, their keys, and running one (confirmation, then the program, then its output).

One description decides: `offered(screen)` — the commands of the screen's `COMMAND_SCOPE`, each
with its key and why it cannot run here now (a read-only profile for one that writes; a value the
screen does not have). Help (`?`), the palette and the key itself read it; the values come from
the screen's `command_subject` (the highlighted row, the open charge) through
`paytui.user_commands.values_of`. The program runs as `paytui.user_commands` says: no shell,
values as whole arguments, no secret in its argv or environment; its output is shown through the
display sanitiser and the redactor (a card number it prints is masked).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.binding import Binding

from paytui.logs import redact
from paytui.ui.bindings import LiveBinding, display_key
from paytui.user_commands import (
    CommandNotRun,
    child_environment,
    missing_values,
    render,
    run_argv,
    values_of,
)

if TYPE_CHECKING:
    from textual.screen import Screen

    from paytui.config.model import UserCommand
    from paytui.ui.host import PaytuiHost
    from paytui.user_commands import Ran

__all__ = [
    "ACTION",
    "GROUP",
    "Offered",
    "bind_keys",
    "help_rows",
    "offered",
    "run_user_command",
    "values_on",
]

log = logging.getLogger("paytui.ui.commands")

#: The action a command's key runs: ``user_command(INDEX)``, INDEX in `Session.commands`.
ACTION = "user_command"
#: Where help lists them.
GROUP = "Your commands ([[commands]])"
#: The screen attribute that remembers which keys were bound (once per screen).
_BOUND = "_user_command_keys"


@dataclass(frozen=True)
class Offered:
    """A command offered on a screen: its key there (None: help and the palette only) and why
    it cannot run now (None: it can)."""

    index: int
    command: UserCommand
    key: str | None
    reason: str | None

    @property
    def action(self) -> str:
        return f"{ACTION}({self.index})"


def _host(screen: Screen[Any]) -> PaytuiHost:
    from paytui.ui.running_app import paytui_app

    return paytui_app(screen)


def values_on(screen: Screen[Any]) -> dict[str, str]:
    """The placeholders' values on `screen`: its subject's, the profile and environment."""
    subject_of = getattr(screen, "command_subject", None)
    subject = subject_of() if callable(subject_of) else None
    values = values_of(subject)
    session = _host(screen).session
    values["profile"] = session.profile_name
    values["environment"] = session.environment
    return values


def why_not(screen: Screen[Any], command: UserCommand) -> str | None:
    """Why `command` cannot run on `screen` now (None: it can)."""
    if command.writes and _host(screen).session.read_only:
        return f"{command.name} is off: this profile is read-only"
    missing = missing_values(command.run, values_on(screen))
    if missing:
        return "No " + ", ".join("{" + name + "}" for name in missing) + " here"
    return None


def offered(screen: Screen[Any]) -> list[Offered]:
    """The commands offered on `screen` (its `COMMAND_SCOPE`), in the config's order."""
    scope = getattr(screen, "COMMAND_SCOPE", None)
    if scope is None:
        return []
    keys: dict[int, str] = getattr(screen, _BOUND, {})
    return [
        Offered(index, command, keys.get(index), why_not(screen, command))
        for index, command in enumerate(_host(screen).session.commands)
        if command.offered_on(scope)
    ]


def _taken_keys(screen: Screen[Any]) -> dict[str, str]:
    """Every key bound on `screen` now (its widgets, itself, the app; keymap applied): what it
    does, for the one line that says a command's key is taken."""
    app = screen.app
    taken: dict[str, str] = {}
    for node in [*screen.walk_children(with_self=False), screen, app]:
        bindings = node._bindings.copy()
        if app._keymap:
            bindings.apply_keymap(app._keymap)
        for key, binding in bindings:
            taken.setdefault(key, binding.description or binding.action)
    return taken


def bind_keys(screen: Screen[Any]) -> list[str]:
    """Bind the keys of the commands offered on `screen` (once per screen); one line for each
    key another binding there already holds (one meaning per key: that command keeps help and
    the palette)."""
    if hasattr(screen, _BOUND):
        return []
    bound: dict[int, str] = {}
    setattr(screen, _BOUND, bound)
    scope = getattr(screen, "COMMAND_SCOPE", None)
    commands = _host(screen).session.commands
    if scope is None or not commands:
        return []
    taken = _taken_keys(screen)
    problems: list[str] = []
    for index, command in enumerate(commands):
        if command.key is None or not command.offered_on(scope):
            continue
        if command.key in taken:
            problems.append(
                f"[[commands]] {command.name}: {display_key(command.key)} already means"
                f" {taken[command.key]!r} here; run it from the palette (ctrl+p) or give it"
                " another key"
            )
            continue
        screen._bindings.key_to_bindings.setdefault(command.key, []).append(
            Binding(command.key, f"{ACTION}({index})", command.name, show=False)
        )
        taken[command.key] = command.name
        bound[index] = command.key
    return problems


class _CommandRow(LiveBinding):
    """A command as a line of help, under its own heading."""

    @property
    def scope(self) -> str:
        return GROUP


def help_rows(screen: Screen[Any]) -> list[LiveBinding]:
    """The commands offered on `screen` as help lines (key, name: description, why not)."""
    rows: list[LiveBinding] = []
    for each in offered(screen):
        binding = Binding(
            each.key or "",
            each.action,
            each.command.name,
            tooltip=each.command.description,
        )
        keys = (each.key,) if each.key else ("palette",)
        rows.append(_CommandRow(screen, binding, keys, each.reason is None, each.reason))
    return rows


async def run_user_command(screen: Screen[Any], index: int) -> None:
    """Run command `index` on what `screen` shows: refused in one line when it cannot run here
    (nothing run); asked first when it says `confirm`; then run in an app worker (leaving the
    screen does not stop it) and its output shown."""
    app = _host(screen)
    commands = app.session.commands
    if not 0 <= index < len(commands):
        return
    command = commands[index]
    reason = why_not(screen, command)
    if reason is None:
        try:
            argv = render(command.run, values_on(screen))
        except CommandNotRun as exc:
            reason = exc.message
    if reason is not None:
        app.notify(reason, title=command.name, severity="warning", markup=False)
        return
    if not command.confirm:
        _start(app, command, argv)
        return
    from paytui.ui.screens.modals.user_command import ConfirmCommandModal

    def answered(go: bool | None) -> None:
        if go:
            _start(app, command, argv)

    await app.push_screen(ConfirmCommandModal(command, argv), answered)


def _start(app: PaytuiHost, command: UserCommand, argv: tuple[str, ...]) -> None:
    app.run_worker(
        _run(app, command, argv), group="user-command", exclusive=False, exit_on_error=False
    )


async def _run(app: PaytuiHost, command: UserCommand, argv: tuple[str, ...]) -> Ran | None:
    try:
        ran = await run_argv(
            argv,
            timeout=command.timeout,
            env=child_environment(os.environ, command.pass_env),
        )
    except CommandNotRun as exc:
        app.notify(exc.message, title=command.name, severity="error", markup=False)
        return None
    # The command's name and how it ended; never its arguments (the customer's details).
    log.info("user command %r: exit %s in %.1f s", command.name, ran.exit_code, ran.seconds)
    if not ran.output.strip():
        app.notify(
            ran.headline(command.name) + " (no output)",
            title="Command",
            severity="information" if ran.ok else "warning",
            markup=False,
        )
        return ran
    from paytui.ui.screens.modals.user_command import CommandOutputModal

    app.push_screen(CommandOutputModal(command.name, ran, redact(ran.output)))
    return ran


def state_of(screen: Screen[Any], parameters: tuple[object, ...]) -> bool | None:
    """`check_action` of ``user_command(INDEX)`` on `screen`: True when it is offered here
    (its key then says in one line why it cannot run now, `run_user_command`; help shows it
    as not available), False when it is not offered here at all."""
    index = parameters[0] if parameters else None
    commands = _host(screen).session.commands
    if not isinstance(index, int) or not 0 <= index < len(commands):
        return False
    command = commands[index]
    return command.offered_on(getattr(screen, "COMMAND_SCOPE", None))
