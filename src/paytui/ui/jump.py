"""The `:` jump line, k9s style: what a line means and how it completes. Pure (no Textual).

``:charge ID``, ``:token ID``, ``:account ID``, ``:charges QUERY``, ``:saved NAME``, ``:history``,
``:customer NAME|EMAIL|LAST4`` (`paytui.customer`).
A command may be shortened to an unambiguous prefix (``:acc``, ``:h``); a whole word wins
(``:charge`` is not ``:charges``). ``:charges QUERY`` is the one query language
(`paytui.search.query`): the jump line checks it with the same parser as `/`. Completion offers
the command names, then (``:charges``) the query language's own completion, or (``:saved``) the
saved searches' names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["COMMANDS", "Jump", "JumpError", "complete_jump", "parse_jump"]

#: command -> (argument it takes, or None; one line of help)
COMMANDS: dict[str, tuple[str | None, str]] = {
    "charge": ("ID", "open a charge"),
    "token": ("ID", "open a stored card token"),
    "account": ("ID", "open a merchant account"),
    "charges": ("QUERY", "search charges (the / language)"),
    "saved": ("NAME", "run a saved search"),
    "customer": ("NAME", "one customer: a name, an email or a card's last four"),
    "history": (None, "the action journal"),
}


class JumpError(ValueError):
    """A line that is no jump: one line for the user (what was typed is kept)."""


@dataclass(frozen=True)
class Jump:
    command: str
    argument: str = ""


def _command(word: str) -> str:
    word = word.lower()
    if word in COMMANDS:
        return word
    found = [name for name in COMMANDS if name.startswith(word)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise JumpError(f"No command {word!r}: try " + ", ".join(f":{c}" for c in COMMANDS))
    raise JumpError(f"{word!r} could be " + " or ".join(f":{c}" for c in found))


def parse_jump(text: str) -> Jump:
    """What `text` (with or without its leading ``:``) asks for; `JumpError` when nothing."""
    line = text.strip().removeprefix(":").strip()
    if not line:
        raise JumpError("Type a command: " + ", ".join(f":{c}" for c in COMMANDS))
    word, _, rest = line.partition(" ")
    command = _command(word)
    argument = rest.strip()
    needs = COMMANDS[command][0]
    if needs in {"ID", "NAME"} and not argument:
        raise JumpError(f":{command} needs {'an id' if needs == 'ID' else 'a name'}")
    if needs == "ID" and " " in argument:
        raise JumpError(f":{command} takes one id")
    if needs is None and argument:
        raise JumpError(f":{command} takes nothing after it")
    return Jump(command, argument)


def complete_jump(
    text: str,
    *,
    saved: Iterable[str] = (),
    query_completion: Iterable[str] | None = None,
) -> str | None:
    """The whole line completed (Textual's inline suggestion), or None.

    `query_completion`: for ``:charges QUERY``, the query language's suggestion of the whole
    query (the caller asks `paytui.search.query`, which knows its keys and values)."""
    line = text.removeprefix(":")
    word, space, rest = line.partition(" ")
    if not space:
        if not word:
            return None
        found = [name for name in COMMANDS if name.startswith(word.lower()) and name != word]
        return f":{found[0]} " if len(found) == 1 else None
    if word == "saved":
        names = [n for n in saved if n.startswith(rest) and n != rest]
        return f":saved {names[0]}" if rest and names else None
    if word == "charges" and query_completion is not None:
        for suggestion in query_completion:
            return f":charges {suggestion}"
    return None
