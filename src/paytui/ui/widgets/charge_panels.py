"""The panels of the charge detail: each a pure function from the charge's wire-shaped dump to
what its panel shows (or None when the charge has nothing for it).

Kept apart from the screen so the screen holds loading, actions and layout only, and so each
panel can be read (and tested) as "these wire fields, shown like this". Every value from the API
is shown as `rich.text.Text` through the display sanitiser, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, cast

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from paytui.api.rows import CHARGE_FIELDS
from paytui.tags import parse_tags
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.widgets.distribution_tree import as_datetime, as_decimal, as_mapping
from paytui.ui.widgets.json_view import to_json_text

#: A panel's content, or None to hide the panel.
Panel = RenderableType | None

#: Wire fields that have a home in one of the panels (every field of a charge: the one list in
#: `paytui.api.rows`); everything else goes to "Other".
KNOWN_FIELDS = frozenset(CHARGE_FIELDS)

#: Record columns that hold prose and may wrap on narrow terminals.
FREE_TEXT_COLUMNS = frozenset({"reason", "description", "name", "message"})

_MISSING = "—"


def value_text(value: object) -> Text:
    """A value as literal text; `—` when absent so an empty field is visibly empty."""
    if value is None or value == "":
        return Text(_MISSING, style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, Mapping | list | tuple):
        return Text(safe(to_json_text(value, indent=None)))
    return Text(safe(value))


def money_text(value: object) -> Text:
    amount = as_decimal(value)
    if amount is None:
        return value_text(value)
    return Text(fmt.money(amount))


def when_text(value: object) -> Text:
    """A timestamp (model datetime or ISO text from an extra field) in the one UTC format."""
    moment = as_datetime(value)
    return Text(fmt.timestamp(moment)) if moment is not None else value_text(value)


#: Cells between a field's name and its value.
_GAP = 2

_BOLD = Style(bold=True)


class KeyValueRows:
    """Field names in a bold column, values beside them wrapped under one another: the look of
    `Table.grid(padding=(0, 2))` with a no-wrap first column, drawn directly.

    Every panel of the charge detail is such a grid, and Rich's table measures each cell of each
    row (twice per paint: once for the panel's height, once to draw it); this was the largest
    single part of painting an opened charge. The values are Text, wrapped with `fold` (ids and
    amounts are read whole, a long one breaks at the edge rather than running off it).
    """

    def __init__(self, rows: list[tuple[Text, Text]]) -> None:
        self.rows = rows
        self.key_width = max((cell_len(key.plain) for key, _ in rows), default=0)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        values = [Measurement.get(console, options, value) for _, value in self.rows]
        least = max((m.minimum for m in values), default=0)
        most = max((m.maximum for m in values), default=0)
        prefix = self.key_width + _GAP
        return Measurement(prefix + least, prefix + most).clamp(max_width=options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key_width = self.key_width + _GAP
        if options.max_width <= key_width:
            # No room for values beside the names (a long name, a narrow panel): Rich's own
            # table decides what gives (`_grid`), rather than a one-cell column of values.
            yield _grid(self.rows)
            return
        longest = max((_longest_line(value) for _, value in self.rows), default=0)
        width = max(1, min(longest, options.max_width - key_width))
        blank = Text(" " * key_width, style=_BOLD)
        new_line = Segment.line()
        for key, value in self.rows:
            lines = value.wrap(console, width, justify="left", overflow="fold")
            head = key.copy()
            head.pad_right(key_width - head.cell_len)
            head.stylize(_BOLD)
            for line in lines or [Text(" " * width)]:
                # append_text keeps each part's own style (render alone would drop it).
                row = Text()
                row.append_text(head)
                row.append_text(line)
                yield from row.render(console)
                yield new_line
                head = blank


def _longest_line(text: Text) -> int:
    return max((cell_len(line) for line in text.plain.split("\n")), default=0)


def rows_table(rows: Iterable[tuple[str, RenderableType]]) -> KeyValueRows | Table:
    """A two-column key/value grid: the layout of every field panel."""
    listed = [(Text(safe(key)), value) for key, value in rows]
    if all(isinstance(value, Text) for _, value in listed):
        return KeyValueRows(cast(list[tuple[Text, Text]], listed))
    return _grid(listed)


def _grid(rows: Iterable[tuple[Text, RenderableType]]) -> Table:
    """The same grid as Rich's table (values that are not Text, or no room beside the names)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in rows:
        table.add_row(key, value)
    return table


def columns_table(records: list[dict[str, Any]], columns: list[tuple[str, str]]) -> Table:
    """A table of records (chargebacks, line items), with any unknown keys as extra columns."""
    known = {key for key, _ in columns}
    extra = [key for record in records for key in record if key not in known]
    all_columns = columns + [(key, key) for key in dict.fromkeys(extra)]
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    for key, title in all_columns:
        # Only free text wraps; ids, amounts, codes and dates are read (and copied) whole.
        free_text = key in FREE_TEXT_COLUMNS
        table.add_column(Text(safe(title)), overflow="fold", no_wrap=not free_text)
    for record in records:
        cells: list[RenderableType] = []
        for key, _ in all_columns:
            value = record.get(key)
            if key.endswith("amount") or key in {"amount", "unit_price", "price"}:
                cells.append(money_text(value))
            elif key.endswith("timestamp"):
                cells.append(when_text(value))
            else:
                cells.append(value_text(value))
        table.add_row(*cells)
    return table


def summary_panel(
    wire: Mapping[str, Any],
    *,
    is_authorization: bool,
    capture_id: str | None,
    capture_lookup: str | None,
) -> Panel:
    """The charge's identity and outcome, with the authorization or capture it is linked to."""
    if not wire:
        return None
    reversal = wire.get("reversal_flag")
    rows: list[tuple[str, RenderableType]] = [
        ("Charge id", value_text(wire.get("charge_id"))),
        ("Status", fmt.status(wire.get("status"))),
        ("Result code", fmt.result_code(wire.get("result_code"))),
        ("Result text", value_text(wire.get("result_text"))),
        ("Type", value_text(fmt.charge_type_name(wire.get("charge_type")))),
        ("Amount", money_text(wire.get("total_amount"))),
        # The spec gives reversal_flag no meaning (api-facts: undocumented): shown as sent.
        ("Reversal flag", value_text(reversal)),
        ("Account", value_text(wire.get("account_id"))),
        ("Merchant", value_text(wire.get("merchant_id"))),
        ("Authorization code", value_text(wire.get("authorization_code"))),
    ]
    original = wire.get("original_charge_id")
    if original:
        rows.append(
            (
                "Captured authorization",
                Text.assemble(Text(safe(original)), ("  (o)", "dim")),
            )
        )
    if is_authorization or capture_id:
        if capture_id:
            capture: Text = Text.assemble(Text(safe(capture_id)), ("  (o)", "dim"))
        else:
            capture = Text(capture_lookup or "not captured yet", style="dim")
        rows.append(("Capture", capture))
    return rows_table(rows)


def payment_panel(wire: Mapping[str, Any]) -> Panel:
    method = as_mapping(wire.get("payment_method"))
    if not method:
        return rows_table([("Method", value_text(None))])
    is_card = method.get("method") == "card" or "card_number" in method
    contact = as_mapping(method.get("contact"))
    name = " ".join(str(contact[k]) for k in ("first_name", "last_name") if contact.get(k))
    rows: list[tuple[str, RenderableType]] = [
        ("Method", value_text(method.get("method"))),
        ("Brand" if is_card else "Account type", value_text(method.get("type"))),
        ("Number", value_text(method.get("card_number") or method.get("account_number"))),
    ]
    if "expiration_date" in method:
        rows.append(("Expires", value_text(method.get("expiration_date"))))
    rows.append(("Contact", value_text(name or None)))
    for key, value in contact.items():
        if key not in {"first_name", "last_name"} and value is not None:
            rows.append((f"Contact {key}", value_text(value)))
    if method.get("token_id"):
        rows.append(("Token", value_text(method.get("token_id"))))
    shown = {
        "method",
        "type",
        "card_number",
        "account_number",
        "expiration_date",
        "contact",
        "token_id",
    }
    for key, value in method.items():
        if key not in shown and value is not None:
            rows.append((key, value_text(value)))
    if wire.get("tokenize") is not None:
        rows.append(("Tokenize", value_text(wire.get("tokenize"))))
    return rows_table(rows)


def processor_panel(wire: Mapping[str, Any]) -> Panel:
    messages = as_mapping(wire.get("processor_messages"))
    labels = {"avs_response": "AVS", "cv_response": "CV", "message": "Message"}
    rows: list[tuple[str, RenderableType]] = [
        (label, value_text(messages.get(key))) for key, label in labels.items()
    ]
    rows += [(k, value_text(v)) for k, v in messages.items() if k not in labels and v is not None]
    return rows_table(rows)


def fees_panel(wire: Mapping[str, Any]) -> Panel:
    return rows_table(
        [
            ("Convenience fee", money_text(wire.get("convenience_fee"))),
            ("Supplemental fee", money_text(wire.get("supplemental_fee"))),
            ("Invoice number", value_text(wire.get("invoice_number"))),
            ("PO number", value_text(wire.get("po_number"))),
        ]
    )


def timestamps_panel(wire: Mapping[str, Any], now: datetime) -> Panel:

    def when(key: str) -> Text:
        value = as_datetime(wire.get(key))
        if value is None:
            return value_text(wire.get(key))
        return Text.assemble(fmt.timestamp(value), " UTC", (f"  {fmt.age(value, now)} ago", "dim"))

    return rows_table(
        [
            ("Charged", when("charge_timestamp")),
            ("Last updated", when("last_updated_timestamp")),
        ]
    )


def attributes_panel(wire: Mapping[str, Any]) -> Panel:
    attributes = as_mapping(wire.get("attributes"))
    if not attributes:
        return Text("none", style="dim")
    rows: list[tuple[str, RenderableType]] = []
    for key, values in attributes.items():
        items = values if isinstance(values, list | tuple) else [values]
        rows.append((key, Text(", ").join(value_text(v) for v in items)))
    return rows_table(rows)


def tags_panel(wire: Mapping[str, Any]) -> Panel:
    tags = wire.get("tags") or []
    if isinstance(tags, str):
        tags = parse_tags(tags)  # the older comma-string form
    if not tags:
        return Text("none", style="dim")
    return Text("  ").join(Text(safe(tag), style="reverse") for tag in tags)


def chargebacks_panel(wire: Mapping[str, Any]) -> Panel:
    chargebacks = wire.get("chargebacks")
    if not chargebacks:
        return None
    data = as_mapping(chargebacks)
    listed = data.get("items")
    items = [as_mapping(i) for i in listed] if isinstance(listed, list | tuple) else []
    rest = {k: v for k, v in data.items() if k not in {"total_amount", "items"} and v is not None}
    rows: list[tuple[str, RenderableType]] = [
        ("Total charged back", money_text(data.get("total_amount"))),
        # No `items` list: how many is not known (never "0"); the fields sent show below.
        ("Chargebacks", Text(str(len(items))) if listed is not None else value_text(None)),
    ]
    rows += [(k, value_text(v)) for k, v in rest.items()]
    # Each chargeback as its own block of rows rather than a table: a chargeback id, a
    # reason sentence and a date do not fit side by side in 80 columns.
    known = {"chargeback_id", "amount", "reason_code", "reason", "status"}
    for item in items:
        rows.append(("", Text("")))
        reason = Text(" ").join(
            t
            for t in (value_text(item.get("reason_code")), value_text(item.get("reason")))
            if t.plain
        )
        rows += [
            ("Chargeback id", value_text(item.get("chargeback_id"))),
            ("Amount", money_text(item.get("amount"))),
            ("Reason", reason),
            ("Status", value_text(item.get("status"))),
            ("Date", when_text(item.get("chargeback_timestamp"))),
        ]
        rows += [
            (k, when_text(v) if k.endswith("timestamp") else value_text(v))
            for k, v in item.items()
            if k not in known and k != "chargeback_timestamp" and v is not None
        ]
    return rows_table(rows)


def return_panel(wire: Mapping[str, Any]) -> Panel:
    data = as_mapping(wire.get("return"))
    if not data:
        return None
    rows: list[tuple[str, RenderableType]] = [
        ("Return code", value_text(data.get("return_code"))),
        ("Reason", value_text(data.get("reason"))),
        ("Returned", when_text(data.get("return_timestamp"))),
    ]
    known = {"return_code", "reason", "return_timestamp"}
    rows += [(k, value_text(v)) for k, v in data.items() if k not in known]
    return rows_table(rows)


def line_items_panel(wire: Mapping[str, Any]) -> Panel:
    items = [as_mapping(i) for i in wire.get("line_items") or ()]
    if not items:
        return None
    return columns_table(items, [])


def other_panel(wire: Mapping[str, Any], unreadable: Mapping[str, str] | None = None) -> Panel:
    """Fields this screen does not know, shown literally so nothing the API says is hidden, and
    fields sent in a shape the client cannot read (`Resource.unreadable_fields`), with why."""
    rows: list[tuple[str, RenderableType]] = [
        (key, value_text(value))
        for key, value in wire.items()
        if key not in KNOWN_FIELDS and value is not None
    ]
    rows += [
        (key, Text(safe(f"unreadable ({why})"), style="bold"))
        for key, why in (unreadable or {}).items()
    ]
    return rows_table(rows) if rows else None
