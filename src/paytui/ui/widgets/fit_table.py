"""`FitTable`: the list kit's table for lists read whole, laid out to the width it gets.

Why: a plain `DataTable` sizes every column to its content and lets the table run past the right
edge, where the terminal cuts headers and values with no mark (`Accoun`, `Underw`) and the last
columns (Distributions' Net) are simply not on screen at 80 columns. A `FitTable` knows, for each
column, how important it is and how far it may shrink (`FitColumn`), and lays the columns out with
the app's one rule (`widgets.columns.layout_columns`): the least important are dropped whole, the
rest widen up to their content, ids before free text, and a value cut to its column ends in `…`.

`FitNavTable` adds the app's table keys (`NavTable`). Screens give the columns when they build
the table and add rows as usual (`add_row`, one cell per column); the table keeps every cell, so
when the width changes the columns dropped come back.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.widgets import DataTable
from textual.widgets._data_table import CellKey, ColumnKey, DuplicateKey, Row, RowKey

from paytui.ui.widgets.columns import Shape, layout_columns
from paytui.ui.widgets.nav_table import NavTable

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from textual.geometry import Region
    from textual.strip import Strip


#: A cell's justification the one-line renderer takes (`FitTable._one_line_cell`).
_JUSTIFIED = frozenset({None, "default", "left", "right"})
#: What Rich joins a cell's lines with (one line here: none is added).
_LINE_BREAK = Text("\n")

#: Cells rendered kept per table (a screenful is a few hundred; a full cache starts again).
CELLS_KEPT = 10_000


class _Look(NamedTuple):
    """What of a table's reactives a body cell's drawing reads (`FitTable._look`)."""

    show_hover_cursor: bool
    show_cursor: bool
    cell_padding: int
    fixed_rows: int
    fixed_columns: int
    foreground_css: bool
    background_css: bool


@dataclass(frozen=True)
class FitColumn:
    """One column of a `FitTable`.

    `priority`: higher numbers are dropped first when the width is short. `min_width`: how far a
    value may be cut (with `…`); None means never cut (amounts, dates, statuses). `free_text`: a
    column that takes what width is left once every other column shows its values whole.
    `only_when_filled`: a column shown only when a row has a value in it (History's agent, on a
    team journal); a free-text column always is.
    """

    key: str
    label: str | Text
    priority: int = 0
    min_width: int | None = None
    free_text: bool = False
    only_when_filled: bool = False


def _cell(value: object) -> Text:
    """A cell as text that ends in `…` when its column is narrower (a str is data, no markup)."""
    text = value.copy() if isinstance(value, Text) else Text(str(value))
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def _same(one: Text, other: Text) -> bool:
    """Two cells that draw alike (`Text.__eq__` compares the characters and spans only, not
    the style of the whole cell: an overdue "Time left" in bold is not the same cell)."""
    return (
        one.plain == other.plain
        and one.spans == other.spans
        and one.style == other.style
        and one.justify == other.justify
        and one.overflow == other.overflow
    )


def _moved(lines: list[list[Segment]], row: int, column: int) -> list[list[Segment]]:
    """A one-line cell's lines (`FitTable._one_line_cell`) for the row number `row`: each
    segment's style with the row and column the mouse reads (the style's meta) given again.
    Adding a style of meta only replaces those keys where they are, so each style comes out
    equal to the one a fresh drawing at `row` makes."""
    meta = Style.from_meta({"row": row, "column": column})
    return [
        [
            Segment(text, None if control or style is None else style + meta, control)
            for text, style, control in line
        ]
        for line in lines
    ]


class FitTable(DataTable[Any]):
    """A `DataTable` whose columns fit its width (see the module docstring)."""

    def __init__(self, columns: Sequence[FitColumn], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._fit_columns = tuple(columns)
        self._rows: list[tuple[str | None, list[Text]]] = []
        #: Each label's width: a column is at least as wide as its header.
        self._label_widths = [_cell(c.label).cell_len for c in self._fit_columns]
        #: Each keyed row's cells' widths, by row key, with the cells they were measured on
        #: (`_measure`: a row kept as shown is not measured again; `set_cell` forgets its row).
        self._widths: dict[str, tuple[list[Text], list[int]]] = {}
        self._natural = list(self._label_widths)
        #: Per column: does any row hold a value in it (a free-text column none fills is left
        #: out, its room given to the others)?
        self._filled = [False for _ in self._fit_columns]
        self._layout: tuple[tuple[int, int], ...] = ()
        self._fit_pending = False
        #: Each body cell's lines as last rendered, by row key and look, not by row number
        #: (`_render_cell`): the value, the row number they were drawn at, the lines, whether
        #: `_one_line_cell` drew them.
        self._cell_lines: dict[tuple[Any, ...], tuple[object, int, list[list[Segment]], bool]] = {}
        #: The look read once for the draw under way (`render_lines`), else None.
        self._drawing_look: _Look | None = None

    # --- rows ------------------------------------------------------------------------------------
    def add_row(
        self,
        *cells: Any,
        height: int | None = 1,
        key: str | None = None,
        label: Any = None,
    ) -> RowKey:
        texts = [_cell(value) for value in cells]
        self._rows.append((key, texts))
        for index, text in enumerate(texts[: len(self._natural)]):
            self._natural[index] = max(self._natural[index], text.cell_len)
            self._filled[index] = self._filled[index] or text.cell_len > 0
        self._schedule_fit()
        return super().add_row(*self._shown(texts), height=height, key=key, label=label)

    def replace_rows(self, rows: Sequence[tuple[str, Sequence[Any] | None]]) -> None:
        """Show `rows` (keyed, in this order) in place of the keyed rows shown, without clearing:
        a row no longer there is removed, a new one added, a kept row's changed cells set, then
        the rows put in the new order. A clear and re-add built and drew every row again (Today,
        as each source of its queue arrives: 46-90 ms of the event loop at 100,000 charges);
        here a kept row costs a comparison of its cells, or nothing when its cells are given as
        None (kept as shown). The column widths come out as a clear and re-add would give them
        (from the rows shown only). The cursor stays at its index: the caller puts it back on
        its row."""
        kept = {key: texts for key, texts in self._rows if key is not None}
        if len(kept) != len(self._rows) or any(
            cells is None and key not in kept for key, cells in rows
        ):
            raise ValueError("replace_rows: unkeyed rows shown, or a row to keep is not there")
        wanted = {
            key: kept[key] if cells is None else [_cell(value) for value in cells]
            for key, cells in rows
        }
        if len(wanted) != len(rows):
            raise ValueError("replace_rows: a key twice")
        row_keys = {row_key.value: row_key for row_key in self.rows}
        for key in kept:
            if key not in wanted:  # gone: dropped at once (`remove_row` renumbers every row)
                row_key = row_keys.pop(key)
                for column_key in self._data[row_key]:
                    self._updated_cells.discard(CellKey(row_key, column_key))
                del self.rows[row_key]
                del self._data[row_key]
        self._rows = [(key, texts) for key, texts in self._rows if key in wanted]
        shown = self.shown_columns
        for index, (row_key_value, texts) in enumerate(self._rows):
            key = str(row_key_value)
            new = wanted[key]
            if new is texts or (len(new) == len(texts) and all(map(_same, new, texts))):
                continue
            self._rows[index] = (key, new)
            for column, text in zip(shown, self._shown(new), strict=True):
                self._data[row_keys[key]][ColumnKey(column)] = text
        self._row_locations = TwoWayDict({row_keys[key]: i for i, key in enumerate(row_keys)})
        had_rows = bool(self.rows)
        for key, texts in wanted.items():
            if key not in kept:
                row_keys[key] = self._add_row_quietly(self._shown(texts), key)
                self._rows.append((key, texts))
        if not had_rows and self.rows:
            self._highlight_first_row()  # as `add_row` does when a first row comes
        self._measure()
        order = {key: index for index, key in enumerate(wanted)}
        self._rows.sort(key=lambda row: order[str(row[0])])
        self._row_locations = TwoWayDict({row_keys[key]: order[key] for key in wanted})
        self._require_update_dimensions = True
        self._update_count += 1
        self.cursor_coordinate = self.cursor_coordinate  # within the rows left (as remove_row)
        self.hover_coordinate = self.hover_coordinate
        self._schedule_fit()
        self.refresh(layout=True)

    def _add_row_quietly(self, cells: list[Text], key: str) -> RowKey:
        """`DataTable.add_row` of a one-line keyed row, less what it does for each row that
        the caller does once for all of them (`replace_rows`, `_rebuild`): the cursor set to
        itself (a reactive that always updates: its validator and watchers ran for each of a
        source's hundred rows on Today, 30-40% of putting them in place), the first row's
        highlight and the idle check. The caller then sets the cursor and refreshes."""
        row_key = RowKey(key)
        if row_key in self._row_locations:
            raise DuplicateKey(f"The row key {row_key!r} already exists.")
        columns = self.ordered_columns
        if len(cells) > len(columns):
            raise ValueError("More values provided than there are columns.")
        self._row_locations[row_key] = self.row_count
        self._data[row_key] = {column.key: cell for column, cell in zip_longest(columns, cells)}
        self.rows[row_key] = Row(row_key, 1, None, False)
        self._new_rows.add(row_key)
        self._require_update_dimensions = True
        self._update_count += 1
        return row_key

    def _highlight_first_row(self) -> None:
        """The highlight `DataTable.add_row` gives a table's first row (its `RowHighlighted`)."""
        if self.columns and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()

    def _measure(self) -> None:
        """Each column's natural width and whether any row fills it, from the rows kept. A
        row's widths are kept with it (`_widths`): as Today's sources arrive, most rows are
        kept as shown, and measuring each of their cells again through Rich was a third of
        putting a source's rows in place."""
        natural = list(self._label_widths)
        filled = [False for _ in self._fit_columns]
        known, self._widths = self._widths, {}
        columns = len(natural)
        for key, texts in self._rows:
            entry = known.get(key) if key is not None else None
            if entry is not None and entry[0] is texts:
                widths = entry[1]
            else:
                widths = [text.cell_len for text in texts[:columns]]
            if key is not None:
                self._widths[key] = (texts, widths)
            for index, width in enumerate(widths):
                if width > natural[index]:
                    natural[index] = width
                if width:
                    filled[index] = True
        self._natural, self._filled = natural, filled

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """As `DataTable`, without measuring the new rows' cells when every column has the
        width the fit gave it: `DataTable` measures each cell of each new row (through Rich)
        for a content width that only a column sized to its content reads. A source's rows put
        in place on Today (or the columns rebuilt for a new width) measured a hundred rows'
        cells in one step of the event loop (20-40 ms at 100,000 charges). A row with a label
        or an automatic height is measured as `DataTable` does (its label's width, its
        height)."""
        if any(column.auto_width for column in self.columns.values()):
            super()._update_dimensions(new_rows)
            return
        measured = []
        for row_key in new_rows:
            row = self.rows.get(row_key)
            if row is not None and (row.label is not None or row.auto_height):
                measured.append(row_key)
        super()._update_dimensions(measured)  # the virtual size, from the rows' heights

    def set_cell(self, key: str, column: str, value: Any) -> None:
        """Change one cell of row `key` (kept for the next re-layout too)."""
        index = next(i for i, c in enumerate(self._fit_columns) if c.key == column)
        text = _cell(value)
        self._widths.pop(key, None)  # its cells change in place: measured again
        for row_key, texts in self._rows:
            if row_key == key and index < len(texts):
                texts[index] = text
        # A column left out for want of values may show now; a wider value (a mark's sign
        # before an id) widens its column rather than cutting the value.
        if text.cell_len > self._natural[index] or (text.cell_len and not self._filled[index]):
            self._filled[index] = True
            self._natural[index] = max(self._natural[index], text.cell_len)
            self._schedule_fit()
        if column in self.shown_columns:
            self.update_cell(key, column, text)

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        """A body cell's lines, rendered again only when its own value, place, width or look
        changed. `DataTable` renders every visible cell again after any change to the table (its
        cache is keyed by a count of all updates): a row added below the screen, or a refund's
        state set in one cell, cost a screenful of cells (70-190 ms under load on Today at
        100,000 charges, on the event loop). The value is told apart by identity: a cell is only
        ever replaced (`set_cell`, `add_row`), never changed in place. A row moved (rows put in
        place above it as Today's sources arrive) keeps its one-line cells' lines, given its new
        row number (`_moved`): about a third of the cells Today drew as its sources arrived."""
        if row_index < 0 or column_index < 0:  # the header, row labels: as DataTable does
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        row = self._data.get(row_key, {}) if row_key is not None else {}
        value = row.get(column_key) if column_key is not None else None
        look = self._drawing_look or self._look()
        key = (
            row_key,
            column_key,
            column_index,
            base_style,
            width,
            cursor,
            hover,
            look,
            self.rows[row_key].height if row_key in self.rows else None,
            self._pseudo_class_state,
        )
        kept = self._cell_lines.get(key)
        if kept is not None and kept[0] is value:
            if kept[1] == row_index:
                return kept[2]
            if kept[3] and row_index >= look.fixed_rows:  # a one-line cell of a row moved
                # (not into the fixed rows, drawn their own way): the same lines, its new number
                moved = _moved(kept[2], row_index, column_index)
                self._cell_lines[key] = (value, row_index, moved, True)
                return moved
        lines = self._one_line_cell(
            row_index, column_index, value, base_style, width, cursor, hover
        )
        one_line = lines is not None
        if lines is None:
            lines = super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        if len(self._cell_lines) >= CELLS_KEPT:
            self._cell_lines.clear()
        self._cell_lines[key] = (value, row_index, lines, one_line)
        return lines

    def _one_line_cell(
        self,
        row_index: int,
        column_index: int,
        value: object,
        base_style: Style,
        width: int,
        cursor: bool,
        hover: bool,
    ) -> list[list[Segment]] | None:
        """The lines `DataTable._render_cell` gives for a body cell of one line of printable
        text (cut with `…` when its column is narrower), made here in a few steps (None: any
        other cell, left to `DataTable`). `DataTable` renders each cell through Rich's
        `Styled`, `Padding` and `Text` wrapping, the most of a table's draw: a screenful of
        Today's 10 columns took 70-140 ms of the event loop. The same segments, in the same
        styles: `tests/ui/test_fit_table.py` compares both ways over many cells."""
        if not isinstance(value, Text) or value.end != "\n" or value.justify not in _JUSTIFIED:
            return None
        row_key = self._row_locations.get_key(row_index)
        look = self._drawing_look or self._look()
        if (
            row_key is None
            or row_key not in self.rows
            or self.rows[row_key].height != 1
            or row_index < look.fixed_rows
            or column_index < look.fixed_columns
        ):
            return None
        padding = look.cell_padding
        inner = width - 2 * padding
        overflow = value.overflow
        plain = value.plain
        if not plain.isprintable() or inner < 1:
            return None  # control or format characters (a tab, a newline): Rich's own way
        length = cell_len(plain)
        if length > inner and overflow != "ellipsis":
            return None  # folded, or cut some other way
        console = self.app.console
        null = Style.null()
        body: list[Segment]
        if not value.spans and not value.style and overflow != "ignore":
            # Plain text, most cells: the one segment Rich's render of its line gives (no
            # style of its own), made without copying, cutting and joining a Text: cut as
            # `Text.truncate` cuts (`…`), padded as `Text.pad_left` and `truncate(pad=True)`.
            if value.justify == "right":
                plain = plain.rstrip()
                length = cell_len(plain)
            if length > inner:
                plain = set_cell_size(plain, inner - 1) + "…"
            elif value.justify == "right":
                plain = " " * (inner - length) + plain
            elif value.justify == "left":
                plain += " " * (inner - length)
            body, used = [Segment(plain)], cell_len(plain)
        else:
            line = value.copy()  # as `Text.wrap` and `Lines.justify` make the one line
            if value.justify == "right":
                line.rstrip()
                line.truncate(inner, overflow=overflow)
                line.pad_left(inner - line.cell_len)
            elif value.justify == "left":
                line.truncate(inner, overflow=overflow, pad=True)
            else:
                line.truncate(inner, overflow=overflow)
            joined = _LINE_BREAK.join([line])  # the line's own style as a span, as Rich does
            body, used = list(joined.render(console)), joined.cell_len
        pad = [Segment(" " * padding, null)] if padding else []
        segments = [*pad, *body]
        if used < inner:
            segments.append(Segment(" " * (inner - used), null))
        segments += pad
        component_style, post_style = self._get_styles_to_render_cell(
            False,
            False,
            False,
            hover,
            cursor,
            look.show_cursor,
            look.show_hover_cursor,
            look.foreground_css,
            look.background_css,
        )
        meta = Style.from_meta({"row": row_index, "column": column_index})
        pre_style = console.get_style(base_style + meta + component_style)
        return [
            list(
                Segment.apply_style(
                    segments, style=pre_style, post_style=console.get_style(post_style)
                )
            )
        ]

    def render_lines(self, crop: Region) -> list[Strip]:
        """As `DataTable`, the table's look read once for the draw (`_look`): each is a
        reactive, read through Textual's descriptor, and a cell's drawing read a dozen of them,
        a fifth of a screenful's draw on Today. Nothing changes them while the table draws."""
        self._drawing_look = self._look()
        try:
            return super().render_lines(crop)
        finally:
            self._drawing_look = None

    def _look(self) -> _Look:
        return _Look(
            self._show_hover_cursor,
            self.show_cursor,
            self.cell_padding,
            self.fixed_rows,
            self.fixed_columns,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )

    def notify_style_update(self) -> None:
        self._cell_lines.clear()  # the cells' colours may have changed (a theme, a class)
        super().notify_style_update()

    def _shown(self, texts: list[Text]) -> list[Text]:
        return [texts[index] if index < len(texts) else Text("") for index, _w in self._layout]

    def clear(self, columns: bool = False) -> FitTable:
        if not columns:
            self._rows.clear()
            self._widths.clear()
            self._natural = list(self._label_widths)
            self._filled = [False for _ in self._fit_columns]
        super().clear(columns=columns)
        return self

    def action_select_cursor(self) -> None:
        """Enter on a row that is there. While a list is cleared and refilled, or its columns
        are rebuilt for a new width, the cursor can name a row or column that does not exist
        for a moment; Textual then raises `CellDoesNotExist`, which ended the app (UI fuzz)."""
        row, column = self.cursor_coordinate
        if 0 <= row < self.row_count and 0 <= column < len(self.columns):
            super().action_select_cursor()

    def cursor_key(self) -> str | None:
        """The key of the row under the cursor, None when there is none. By row, not by cell:
        while the columns are rebuilt for a new width a row can have no cell to ask."""
        if not 0 <= self.cursor_row < self.row_count:
            return None
        key = self.ordered_rows[self.cursor_row].key.value
        return None if key is None else str(key)

    def spoken_row(self) -> str:
        """The row under the cursor as a sentence, every declared column (those the width drops
        included): screen-reader mode (`ui/announcer.py`)."""
        from paytui.ui.announcer import row_sentence

        if not 0 <= self.cursor_row < self.row_count:
            return "No rows."
        key = self.cursor_key()
        cells = None
        if key is not None:
            cells = next((texts for row_key, texts in self._rows if row_key == key), None)
        if cells is None:  # a row added past the kit (`DataTable.add_row` called directly)
            cells = list(self.get_row_at(self.cursor_row))
        labels = [_cell(c.label).plain for c in self._fit_columns]
        return row_sentence(labels, cells, f"Row {self.cursor_row + 1:,} of {self.row_count:,}")

    @property
    def declared_columns(self) -> int:
        """How many cells a row takes: every declared column, shown now or not."""
        return len(self._fit_columns)

    @property
    def shown_columns(self) -> list[str]:
        """The keys of the columns on screen now, in order."""
        return [self._fit_columns[index].key for index, _width in self._layout]

    # --- layout ----------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._refit()

    def on_resize(self) -> None:
        self._refit()

    def _schedule_fit(self) -> None:
        if not self._fit_pending:
            self._fit_pending = True
            self.call_after_refresh(self._refit)

    def _available(self) -> int:
        """Columns' room: the width less the vertical scrollbar, always reserved so that rows
        arriving (a scrollbar appearing) do not shift the layout."""
        return max(1, self.size.width - self.styles.scrollbar_size_vertical)

    def _shapes(self) -> list[Shape]:
        shapes = []
        for column, natural, filled in zip(
            self._fit_columns, self._natural, self._filled, strict=True
        ):
            if (column.free_text or column.only_when_filled) and not filled and self._rows:
                continue  # a message column no row fills: its room goes to the others
            least = natural if column.min_width is None else min(natural, column.min_width)
            shapes.append(
                Shape(
                    column.key,
                    None if column.free_text else least,
                    least,
                    natural,
                    column.priority,
                )
            )
        return shapes

    def compute_layout(self, width: int) -> tuple[tuple[int, int], ...]:
        """(column index, width) of the columns shown in `width` cells."""
        padding = 2 * self.cell_padding
        index_of = {column.key: index for index, column in enumerate(self._fit_columns)}
        fitted = layout_columns(width - padding, self._shapes(), gap=padding)
        return tuple((index_of[shape.key], cells) for shape, cells in fitted)

    def _refit(self) -> None:
        self._fit_pending = False
        if not self.is_attached or self.size.width <= 0:
            return
        layout = self.compute_layout(self._available())
        if layout != self._layout:
            self._layout = layout
            self._rebuild()

    def _rebuild(self) -> None:
        """Columns again at their new widths, every row again from the cells kept."""
        row, scroll_y = self.cursor_row, self.scroll_y
        rows = list(self._rows)
        super().clear(columns=True)
        for index, width in self._layout:
            column = self._fit_columns[index]
            label = _cell(column.label)
            self.add_column(label, width=width, key=column.key)
        if all(key is not None for key, _texts in rows):
            for key, texts in rows:
                self._add_row_quietly(self._shown(texts), str(key))
            if rows:  # what `add_row` does for each row, once
                self.cursor_coordinate = self.cursor_coordinate
                self._highlight_first_row()
                self.check_idle()
        else:  # an unkeyed row (a page's unreadable one): DataTable's own way
            for key, texts in rows:
                super().add_row(*self._shown(texts), key=key)
        if rows:
            self.move_cursor(row=min(row, len(rows) - 1), animate=False, scroll=False)
            self.scroll_to(y=scroll_y, animate=False, immediate=True)


class FitNavTable(NavTable, FitTable):
    """A `FitTable` with the app's table keys (`NavTable`): the lists read whole. `NavTable`
    first: Textual's CSS type names follow first bases, so `query_one(NavTable)` finds it."""


__all__ = ["FitColumn", "FitNavTable", "FitTable"]
