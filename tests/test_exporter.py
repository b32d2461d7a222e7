"""The streaming exporter (`paytui.exporter`): formats, exact money, masking, cancel, files."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import stat
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import BaseModel

from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from paytui.api.money import plain_amount
from paytui.api.queries import ChargeQuery
from paytui.exporter import (
    CHARGE_COLUMNS,
    DEFAULT_CHARGE_COLUMNS,
    ExportCancelled,
    Progress,
    charge_pages,
    export_charges_to_file,
    parse_columns,
    rows_of,
    write_rows,
)


def _charge(**overrides: object) -> Charge:
    body: dict[str, object] = {
        "charge_id": "6206bcbf1a2b3c4d5e6f7a8b",
        "charge_timestamp": "2026-01-31T10:00:00.000Z",
        "total_amount": 1234.5,
        "status": "success",
        "charge_type": "sale",
        "payment_method": {
            "method": "card",
            "type": "visa",
            "card_number": "XXXXXXXXXXXX1111",
            "contact": {"first_name": "Ada", "last_name": "Lovelace"},
        },
        "tags": ["vip"],
    }
    body.update(overrides)
    return Charge.model_validate(body)


def test_csv_row_is_exact_masked_utc_and_never_a_formula() -> None:
    hostile = _charge(
        total_amount=Decimal("0.125"),
        tags=['=HYPERLINK("x")'],
        payment_method={
            "method": "card",
            "type": "visa",
            "card_number": "XXXXXXXXXXXX1111",
            "contact": {"first_name": "4111 1111 1111 1111", "last_name": "\x1b]2;pwn\x07"},
        },
    )
    out = io.StringIO()
    count = write_rows(
        out, [_charge(), hostile], "csv", columns=[*DEFAULT_CHARGE_COLUMNS, "number"]
    )
    assert count == 2
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    header, plain, bad = rows
    assert header[0] == "time (UTC)" and "amount" in header
    cell = dict(zip(header, plain, strict=True))
    assert cell["time (UTC)"] == "2026-01-31T10:00:00Z"
    assert cell["amount"] == "1234.50"
    assert cell["number"] == "XXXXXXXXXXXX1111"
    assert cell["contact"] == "Ada Lovelace"
    cell = dict(zip(header, bad, strict=True))
    assert cell["amount"] == "0.125"  # exact: never rounded
    assert cell["tags"].startswith("'=")
    assert "4111 1111 1111 1111" not in out.getvalue() and "1111" in cell["contact"]
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()


def test_ids_are_written_as_they_are() -> None:
    """The redactor's key=value rules read "aba8636…" as a routing number; an id is not one
    (found by the 100,000-charge benchmark: 3 ids came out masked)."""
    out = io.StringIO()
    write_rows(out, [_charge(charge_id="aba8636e634173cf3f4efcf5")], "jsonl", columns=["charge_id"])
    assert json.loads(out.getvalue()) == {"charge_id": "aba8636e634173cf3f4efcf5"}


def test_jsonl_with_chosen_columns_and_local_time() -> None:
    out = io.StringIO()
    keys = parse_columns("charge_id,amount,time", CHARGE_COLUMNS, DEFAULT_CHARGE_COLUMNS)
    write_rows(out, [_charge()], "jsonl", columns=keys, local=True)
    (line,) = out.getvalue().splitlines()
    row = json.loads(line)
    assert list(row) == ["charge_id", "amount", "time"]
    assert row["amount"] == "1234.50"
    assert row["time"][19:] in {"Z", "+00:00"} or row["time"][19] in "+-"  # an offset is said
    with pytest.raises(ValueError, match="unknown column 'nope'"):
        parse_columns("time,nope", CHARGE_COLUMNS, DEFAULT_CHARGE_COLUMNS)


async def test_a_whole_search_streams_to_a_private_file_with_the_api_money(
    demo_client: PaymentClient, tmp_path: Path
) -> None:
    query = ChargeQuery(status="chargeback")
    seen: list[int] = []
    target = tmp_path / "out" / "cb.csv"
    result = await export_charges_to_file(
        charge_pages(demo_client, query, page_size=40),
        target,
        "csv",
        columns=["charge_id", "amount"],
        on_progress=lambda p: seen.append(p.rows),
    )
    expected = {}
    async for page in demo_client.search_charges(query, page_size=100):
        expected.update({c.charge_id: c.total_amount for c in page.items})
    with target.open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert result.rows == len(rows) == len(expected) > 40
    assert {row["charge_id"]: row["amount"] for row in rows} == {
        key: plain_amount(value) for key, value in expected.items() if value is not None
    }
    assert seen[0] == 40 and seen == sorted(seen) and seen[-1] == result.rows
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not target.with_name("cb.csv.part").exists()


async def test_cancel_stops_before_the_next_page_and_leaves_no_file(tmp_path: Path) -> None:
    cancel = asyncio.Event()
    progress = Progress()
    pages = rows_of([_charge()] * 5, size=2)

    def stop_after_first(p: Progress) -> None:
        cancel.set()

    target = tmp_path / "x.jsonl"
    with pytest.raises(ExportCancelled) as caught:
        await export_charges_to_file(
            pages, target, "jsonl", progress=progress, on_progress=stop_after_first, cancel=cancel
        )
    assert caught.value.rows == 2 == progress.rows
    assert not target.exists() and not target.with_name("x.jsonl.part").exists()


async def test_a_search_is_pinned_to_when_the_export_started(demo_client: PaymentClient) -> None:
    """Charges made during an export would shift the pages of a newest-first list."""
    moment = datetime(2026, 7, 1, tzinfo=UTC)
    times = [
        charge.charge_timestamp
        async for page in charge_pages(demo_client, ChargeQuery(status="chargeback"), now=moment)
        for charge in page
    ]
    assert times and all(t is not None and t < moment for t in times)


async def test_an_export_reads_light_rows_that_write_what_whole_charges_write(
    demo_client: PaymentClient,
) -> None:
    """Rows, not whole models: `charge_pages` reads each charge as a light `ChargeLine` (checked
    by hand, no pydantic model per row; what no column or filter reads is left as sent), and
    every column of every row is what the whole `Charge` of the same search writes, the filters
    proven alike (the same rows, the same unproven)."""
    from paytui.api.rows import ChargeLine

    query = ChargeQuery(status="chargeback", tags=("vip",))
    moment = datetime.now(UTC)
    light: list[Charge] = []
    async for rows in charge_pages(demo_client, query, page_size=40, now=moment):
        light += rows
    whole: list[Charge] = []
    async for page in demo_client.search_charges(query.evolve(created_to=moment), page_size=40):
        whole += page.items
    assert light and all(type(row) is ChargeLine for row in light)
    assert all(type(charge) is Charge for charge in whole)
    assert not any(isinstance(row.processor_messages, BaseModel) for row in light)
    every = list(CHARGE_COLUMNS)
    assert write(light, every) == write(whole, every)


def write(rows: list[Charge], columns: list[str]) -> str:
    out = io.StringIO()
    write_rows(out, rows, "jsonl", columns=columns)
    return out.getvalue()


def test_an_id_of_twelve_digits_is_masked_and_a_shorter_one_is_not() -> None:
    """Only a run of twelve digits or more can be a card number: an id that holds one is
    masked (whatever else it holds); a shorter one is written as it is."""
    out = io.StringIO()
    rows = [
        _charge(charge_id="ch 4111 1111 1111"),
        _charge(charge_id="41111111111"),
        _charge(charge_id="411111111111"),
    ]
    write_rows(out, rows, "jsonl", columns=["charge_id"])
    ids = [json.loads(line)["charge_id"] for line in out.getvalue().splitlines()]
    assert ids == ["ch XXXX…1111", "41111111111", "XXXX…1111"]


# --------------------------------------------------------------------------------------------
# A row is written as its cells' rules say, cell by cell (the writer chooses each column's rule
# once and remembers repeated texts: the bytes must be the same as applying every rule again)
# --------------------------------------------------------------------------------------------

#: Odd values a row can hold: none at all, unicode, control and bidi characters, a card number
#: typed into a name or a tag, formulas, exact and odd decimals, times with offsets; each text
#: twice, so a remembered cell is written for the second row as the first.
_ODD_NAMES = [
    ("Zoë", "李小龍"),
    ("\x1b]2;pwn\x07", "\u202eevil"),
    ("4111 1111 1111 1111", '=HYPERLINK("x")'),
    (None, "-5"),
    ("@sum", "\tTab"),
    ("token=abcd1234", "routing 021000021"),
]
_ODD_AMOUNTS = ["0.125", "75.3", "1E+3", "-0.00", "1234.5", "12", None, "99999999999.99"]
_ODD_TIMES = ["2026-01-31T10:00:00.123Z", "2026-03-29T01:30:00+05:30", "2026-12-31T23:59:59", None]


def _odd_raw(index: int) -> dict[str, object]:
    first, last = _ODD_NAMES[index % len(_ODD_NAMES)]
    bank = index % 3 == 2
    method: dict[str, object] = (
        {"method": "bank_account", "type": "checking", "account_number": "XXXXXX6789"}
        if bank
        else {"method": "card", "type": "vi\u200bsa", "card_number": "XXXXXXXXXXXX1111"}
    )
    method["contact"] = {"first_name": first, "last_name": last}
    return {
        "charge_id": ["ch\u202e1", "411111111111", "aba8636e634173cf3f4efcf5", "ch 1"][index % 4],
        "charge_timestamp": _ODD_TIMES[index % len(_ODD_TIMES)],
        "last_updated_timestamp": _ODD_TIMES[(index + 1) % len(_ODD_TIMES)],
        "total_amount": _ODD_AMOUNTS[index % len(_ODD_AMOUNTS)],
        "convenience_fee": _ODD_AMOUNTS[(index + 3) % len(_ODD_AMOUNTS)],
        "status": ["success", "chargeback", "decl\x1bined", "=cmd", None][index % 5],
        "charge_type": [None, "sale", "authorization", "capture"][index % 4],
        "result_code": ["Approved", "Authorized", "+1", None][index % 4],
        "result_text": [f"{first} {last}", "", "ok\r\nnext", None][index % 4],
        "payment_method": None if index % 7 == 6 else method,
        "account_id": ["acc_1", "4111111111111111", None][index % 3],
        "tags": [[], ["vip", "=1+1"], ["4111-1111-1111-1111", "\u2066x\u2069"], ["ünï"]][index % 4],
        "attributes": [{}, {"k": ["v\x00", "w"]}, {"=a": ["1"]}][index % 3],
        "chargebacks": (
            {"total_amount": "5.00", "items": [{"status": "won"}, {"status": "\x1bopen"}]}
            if index % 5 == 1
            else None
        ),
        "invoice_number": [None, "INV-1", "-INV"][index % 3],
    }


def _odd_rows() -> list[object]:
    """The same odd rows as the export reads them (light rows), as whole models, and as rows of
    odd types a caller could pass (an attribute missing, numbers and flags where text is)."""
    from types import SimpleNamespace

    from paytui.api.rows import ChargeLine

    raws = [_odd_raw(index) for index in range(24)]
    light = [ChargeLine.model_validate(raw) for raw in raws]
    whole = [Charge.model_validate(raw) for raw in raws]
    odd = [
        SimpleNamespace(charge_id=1, status=True, account_id=1.0, contact_name="Zoë"),
        SimpleNamespace(charge_id="1", status="True", account_id="1.0", contact_name=None),
        SimpleNamespace(charge_id=True, status=1, total_amount=Decimal("1.10")),
        SimpleNamespace(charge_id=1.0, status=1.0, total_amount=Decimal("1.1")),
        SimpleNamespace(),
    ]
    return [*light, *whole, *odd, *light]


def _cell_by_cell(rows: list[object], fmt: str, keys: list[str], local: bool) -> str:
    """What the export's rules write applying each column's cell rule to each value (as the
    writer did before it chose each column's rule once), with `json.dumps` for a line."""
    from paytui.exporter import cell_function

    out = io.StringIO()
    columns = [CHARGE_COLUMNS[key] for key in keys]
    if fmt == "jsonl":
        for row in rows:
            record = {
                c.key: cell_function(c.kind, local, json_value=True)(c.read(row)) for c in columns
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return out.getvalue()
    writer = csv.writer(out, lineterminator="\n")
    zone = "local" if local else "UTC"
    writer.writerow([f"{c.key} ({zone})" if c.kind == "time" else c.key for c in columns])
    for row in rows:
        cells = []
        for c in columns:
            text = cell_function(c.kind, local)(c.read(row))
            if text is None:
                text = ""
            elif c.kind != "money" and text.startswith(("=", "+", "-", "@", "\t", "\r")):
                text = "'" + text
            cells.append(text)
        writer.writerow(cells)
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
@pytest.mark.parametrize("local", [False, True])
@pytest.mark.parametrize("which", ["default", "every"])
def test_rows_are_written_as_each_cell_rule_says_on_odd_values(
    fmt: str, local: bool, which: str
) -> None:
    keys = list(DEFAULT_CHARGE_COLUMNS) if which == "default" else list(CHARGE_COLUMNS)
    rows = _odd_rows()
    out = io.StringIO()
    assert write_rows(out, rows, fmt, columns=keys, local=local) == len(rows)
    written = out.getvalue()
    assert written == _cell_by_cell(rows, fmt, keys, local)
    # The house's rules hold on the bytes: no control or bidi character (rule 5), no card
    # number in a name, a tag, an id or an account (rule 6).
    for character in ("\x1b", "\x07", "\x00", "\u202e", "\u2066", "\u200b"):
        assert character not in written
    for number in ("4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111"):
        assert number not in written


def test_a_secret_registered_during_an_export_is_masked_in_a_text_seen_before() -> None:
    """A text remembered from an earlier page is not written again as it was once a secret
    that it holds is registered (a token fetched again mid-export): the cell is worked out anew."""
    from paytui.logs import clear_registered_secrets, register_secret

    secret = "s3cr3t-token-value"
    first, second = [_charge(result_text=f"said {secret}")], [_charge(result_text=f"said {secret}")]
    out = io.StringIO()
    try:
        from paytui.exporter import writer_for

        writer = writer_for(out, "jsonl", ["result_text"], None, False)
        writer.write(first)
        register_secret(secret)
        writer.write(second)
    finally:
        clear_registered_secrets()
    before, after = (json.loads(line)["result_text"] for line in out.getvalue().splitlines())
    assert before == f"said {secret}"
    assert secret not in after and after.startswith("said ")
