"""What the command line prints: every line passes the one display sanitiser (`paytui.text`).

`paytui profile ...`, `paytui sandbox ...` and `paytui` itself print profile names, URLs, paths,
config values and error messages, any of which may carry ``ESC ] 2 ; … BEL`` or a right-to-left
override from a hostile config file or server. `say` is the one way they reach a terminal, and
`SafeArgumentParser` makes argparse's own messages (``invalid choice: '…'``, usage, help) go the
same way. No Textual here: the CLI must not import the UI.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING

from paytui.text import safe_lines

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = ["SafeArgumentParser", "say"]


def say(
    text: object, *, err: bool = False, file: IO[str] | None = None, flush: bool = False
) -> None:
    """Print `text` (newlines kept, every other control character shown as a placeholder) to
    stdout, or stderr when `err`, or `file`."""
    stream = file if file is not None else sys.stderr if err else sys.stdout
    print(safe_lines(text), file=stream, flush=flush)


class SafeArgumentParser(argparse.ArgumentParser):
    """argparse whose help, usage and error texts (which quote what was typed) are sanitised."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if message:
            (file or sys.stderr).write(safe_lines(message))
