"""The `paytui` command.

Start-up time matters (the first page of charges must paint fast), so this module imports nothing
heavy at module level: it decides what to run first, then imports only that. The commands for
scripts (`paytui charges ...`, see `paytui.commands`) never import Textual.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

SUBCOMMANDS = ("sandbox", "profile", "serve")
#: The first word of every script command (`paytui.commands.COMMANDS` is this list): here, so
#: that choosing what to run costs no import.
SCRIPT_COMMANDS = (
    "charges",
    "refunds",
    "tokens",
    "accounts",
    "history",
    "journal",
    "claim",
    "approvals",
    "export",
    "today",
    "pulse",
    "conversations",
    "messages",
    "customers",
    "evidence",
)
#: Options of the app that may come before a script command (`paytui --profile p charges ...`).
_GLOBAL_OPTIONS = ("--profile", "--base-url")


def split_globals(args: list[str]) -> tuple[list[str], list[str]]:
    """Leading `--profile X` / `--base-url=Y` options, and the rest."""
    leading: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        name = word.split("=", 1)[0]
        if name not in _GLOBAL_OPTIONS:
            break
        if "=" in word or index + 1 >= len(args):
            leading.append(word)
            index += 1
        else:
            leading += args[index : index + 2]
            index += 2
    return leading, args[index:]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "sandbox":
        from paytui.sandbox.cli import main as sandbox_main

        return sandbox_main(args[1:])
    if args and args[0] == "serve":
        from paytui.serve.cli import main as serve_main

        return serve_main(args[1:])
    if args[:2] == ["profile", "probe"]:  # talks to the service: a command, not config
        from paytui.commands.probe import cli as probe_main

        return probe_main(args[2:])
    if args and args[0] == "profile":
        from paytui.config.cli import main as profile_main

        return profile_main(args[1:])
    leading, rest = split_globals(args)
    if rest and rest[0] in SCRIPT_COMMANDS:
        # As the dashboard does: no pydantic plugins, so no scan of every installed package's
        # entry points (`importlib.metadata`) before the config's first model.
        from paytui.pydantic_plugins import disable_pydantic_plugins

        disable_pydantic_plugins()
        from paytui.api import without_httpx_cli

        without_httpx_cli()  # httpx without its own command line (click, pygments, rich)
        from paytui.commands import main as commands_main

        return commands_main([*rest, *leading])
    from paytui.ui.launch import main as ui_main

    return ui_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
