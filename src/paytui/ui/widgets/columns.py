"""How a table's columns share the width they get: one rule for every table of the app.

Both the charge list (`ChargeTable`, a virtual table) and the lists read whole (`FitTable`:
accounts, distributions, tokens, ...) lay out their columns with `layout_columns`:

1. while the columns do not fit at their minimum widths, the one with the highest `priority`
   number (the rightmost among equals) is dropped whole, never cut to nothing;
2. the spare width then widens fixed columns up to their `max_width` (whole ids and result
   codes), lowest `priority` number first;
3. what is left goes to the flexible columns (`width` None: free text), the first one taking the
   remainder.

A value wider than its column is cut by the table with a trailing `…` (never silently).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar


class ColumnShape(Protocol):
    """What the layout needs of a column."""

    @property
    def key(self) -> str: ...

    @property
    def width(self) -> int | None: ...

    @property
    def min_width(self) -> int: ...

    @property
    def max_width(self) -> int | None: ...

    @property
    def priority(self) -> int: ...


@dataclass(frozen=True)
class Shape:
    """A column measured for `layout_columns` (a table that keeps no richer column of its own)."""

    key: str
    width: int | None
    min_width: int
    max_width: int | None
    priority: int


C = TypeVar("C", bound=ColumnShape)


def layout_columns(width: int, columns: Sequence[C], *, gap: int = 1) -> list[tuple[C, int]]:
    """Fit `columns` into `width` cells with `gap` cells between two columns (see module doc)."""
    chosen = list(columns)

    def needed(cols: list[C]) -> int:
        return sum(c.width or c.min_width for c in cols) + gap * max(0, len(cols) - 1)

    while len(chosen) > 1 and needed(chosen) > width:
        worst = max(range(len(chosen)), key=lambda i: (chosen[i].priority, i))
        chosen.pop(worst)
    spare = max(0, width - needed(chosen))
    grown: dict[str, int] = {}
    for column in sorted(chosen, key=lambda c: c.priority):
        if column.width is not None and column.max_width and spare:
            extra = max(0, min(spare, column.max_width - column.width))
            grown[column.key] = column.width + extra
            spare -= extra
    flexible = [c for c in chosen if c.width is None]
    widths: list[tuple[C, int]] = []
    for column in chosen:
        if column.width is not None:
            widths.append((column, grown.get(column.key, column.width)))
            continue
        share = spare // len(flexible) if flexible else 0
        if column is flexible[0]:
            share += spare - share * len(flexible)
        widths.append((column, column.min_width + share))
    return widths


__all__ = ["ColumnShape", "Shape", "layout_columns"]
