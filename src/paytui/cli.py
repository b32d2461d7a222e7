"""The `paytui` command.

Start-up time matters (the first page of charges must paint fast), so this module imports nothing
heavy at module level: it decides what to run first, then imports only that.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

SUBCOMMANDS = ("sandbox", "profile")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "sandbox":
        from paytui.sandbox.cli import main as sandbox_main

        return sandbox_main(args[1:])
    if args and args[0] == "profile":
        from paytui.config.cli import main as profile_main

        return profile_main(args[1:])
    from paytui.ui.launch import main as ui_main

    return ui_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
