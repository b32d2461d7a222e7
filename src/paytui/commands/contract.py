"""The output contract of every script command (docs/cli.md, "The output contract").

- stdout holds only the data, in the format asked;
- with ``--format json`` or ``jsonl`` an error is one JSON object on one line, the last line
  of stderr: ``{"error": ..., "kind": ..., "exit": ..., "message": ...}`` (`error_object`);
  with any other format it is the line ``paytui: error: MESSAGE``.

`kind` is the exit code's class (`Exit`'s name in lower case: ``usage``, ``not_found``,
``earlier_attempt`` ...), so the one table of exit codes is the one list of kinds; `error` names
the error itself (``target_changed``, ``not_found`` ...), finer than its kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from paytui.commands.runtime import CommandError, Exit, exit_code_of
from paytui.text import safe

__all__ = ["JSON_FORMATS", "error_object", "error_text", "kind_of", "requested_format"]

#: The formats whose errors are JSON objects on stderr.
JSON_FORMATS = frozenset({"json", "jsonl"})


def requested_format(argv: Sequence[str]) -> str | None:
    """The ``--format`` asked for on the command line, read from the words themselves: an
    error of the arguments (which stops before they are parsed) is said in that format too."""
    found: str | None = None
    for index, word in enumerate(argv):
        if word == "--":
            break
        if word == "--format" and index + 1 < len(argv):
            found = argv[index + 1]
        elif word.startswith("--format="):
            found = word.partition("=")[2]
    return found


def kind_of(code: int) -> str:
    """The class of an exit code: ``not_found`` for 5 (a code not in the table: ``internal``)."""
    try:
        return Exit(code).name.lower()
    except ValueError:
        return Exit.INTERNAL.name.lower()


def _snake(name: str) -> str:
    words = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    return words.removesuffix("_error") or words


def error_name(exc: BaseException | None, code: int) -> str:
    """What the error is, for a script: the class of paytui's own error (``target_changed``,
    ``not_found``, ``rate_limited``), else the exit code's kind."""
    if exc is None or isinstance(exc, CommandError) or type(exc).__module__ == "builtins":
        return kind_of(code)
    return _snake(type(exc).__name__)


def error_object(message: str, code: int, exc: BaseException | None = None) -> dict[str, Any]:
    """The JSON error: `error` (what), `kind` (its exit code's class), `exit`, `message`."""
    return {
        "error": error_name(exc, code),
        "kind": kind_of(code),
        "exit": int(code),
        "message": safe(message),
    }


def error_text(message: str, code: int, fmt: str | None, exc: BaseException | None = None) -> str:
    """The error's line on stderr in the format asked (without its newline)."""
    if fmt in JSON_FORMATS:
        return json.dumps(error_object(message, code, exc), ensure_ascii=False)
    return f"paytui: error: {message}"


def code_of(exc: BaseException) -> int:
    return int(exit_code_of(exc))
