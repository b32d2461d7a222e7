"""Tags and attributes as people write them: the one grammar of every tag and attribute field.

Used by the forms (new charge, refund, edit tags) through `paytui.validation`, and by the API
models for the older comma-string form of tags. Pure functions, no Textual. The grammar:

- tags: a comma list; blanks dropped, order kept, a repeated tag once;
- attributes: one ``key=value`` per line. The value is everything after the first ``=``, commas
  included: ``order=A-1,A-2`` is ONE value "A-1,A-2" (an attribute value is a string and may
  hold commas). A key on several lines collects several values (``order=A-1`` and
  ``order=A-2`` on two lines are two values), a repeated value once; blank lines are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def parse_tags(text: str) -> list[str]:
    """A comma list of tags: blanks dropped, order kept, a repeated tag once."""
    return list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


def parse_attributes(text: str) -> tuple[dict[str, list[str]], str | None]:
    """``key=value`` lines (see the grammar above): a key may repeat, a value may hold commas.

    Answers the attributes and None, or ``({}, message)`` naming the first bad line.
    """
    result: dict[str, list[str]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            return {}, f"Line {number}: write key=value"
        values = result.setdefault(key.strip(), [])
        if value.strip() not in values:
            values.append(value.strip())
    return result, None


def format_attributes(attributes: Mapping[str, Sequence[str]]) -> str:
    """Attributes as the field shows them: one ``key=value`` line per value (parses back)."""
    return "\n".join(f"{key}={value}" for key, values in attributes.items() for value in values)
