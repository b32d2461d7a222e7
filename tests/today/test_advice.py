"""Fight or accept (`paytui.today.advice`): each open chargeback's line in `paytui today`, its
record counted again here from the sandbox's own database, and the lean's rule."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from paytui.commands import today as today_command
from paytui.commands.runtime import Exit
from paytui.reason_codes import lookup
from paytui.sandbox.seed import DEFAULT_ANCHOR
from paytui.today.advice import UNKNOWN, _lean
from tests.cli_support import sandbox_cli

NOW = DEFAULT_ANCHOR + timedelta(days=9)
LINE = re.compile(
    r"^Fight or accept\? (?P<amount>[\d,.]+) at stake, fee (?P<fee>[\d,.]+) · "
    r"(?P<category>[a-z ]+) here: (?:won (?P<won>\d+), lost (?P<lost>\d+)|no case decided yet)"
    r" · (?P<left>[^·]+) · checklist (?P<present>\d+)/(?P<applicable>\d+) from the charge,"
    r" (?P<unread>\d+) more in the pack(?:; missing \(required\): (?P<required>[^·]+))?"
    r" · (?P<lean>leans fight|leans accept|no lean) \(.*\); yours to decide$"
)
BRANDS = {"visa": "visa", "mastercard": "mastercard", "amex": "amex", "discover": "discover"}


def records_from_database(db: Path) -> dict[tuple[str, str], list[int]]:
    """(merchant, category) -> [won, lost], from the charge documents themselves."""
    found: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    with sqlite3.connect(db) as conn:
        for (text,) in conn.execute("SELECT doc FROM charge_docs"):
            doc = json.loads(text)
            brand = BRANDS.get((doc.get("payment_method") or {}).get("type"))
            for item in (doc.get("chargebacks") or {}).get("items") or []:
                if item.get("status") not in ("won", "lost"):
                    continue
                reason = lookup(item.get("reason_code"), brand)
                category = reason.category if reason is not None else UNKNOWN
                found[(doc["merchant_id"], category)][item["status"] == "lost"] += 1
    return found


def test_each_open_chargeback_says_its_stake_record_and_time_left(
    sandbox_transport: httpx.AsyncBaseTransport,
    sandbox_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(today_command, "now_utc", lambda: NOW)
    run = sandbox_cli(sandbox_transport, tmp_path / "journal.sqlite3")
    code, out, err = run("today", "--format", "json")
    assert code == Exit.OK, err
    rows = json.loads(out)
    assert all(row["advice"] is None for row in rows if row["kind"] != "chargeback")
    cases = [row for row in rows if row["kind"] == "chargeback"]
    assert len(cases) >= 8
    records = records_from_database(sandbox_db)
    merchants = {}
    with sqlite3.connect(sandbox_db) as conn:
        for (text,) in conn.execute("SELECT doc FROM charge_docs"):
            doc = json.loads(text)
            merchants[doc["charge_id"]] = doc["merchant_id"]
    leans = set()
    for row in cases:
        match = LINE.match(row["advice"])
        assert match is not None, row["advice"]
        assert Decimal(match["amount"].replace(",", "")) == Decimal(row["amount"])
        assert match["fee"] == "25.00"  # the default `[today] dispute_fee`
        won, lost = records.get((merchants[row["id"]], match["category"]), [0, 0])
        if match["won"] is None:
            assert (won, lost) == (0, 0)
        else:
            assert (int(match["won"]), int(match["lost"])) == (won, lost)
        assert ("overdue" in match["left"]) == (row["due_at"] < NOW.isoformat()[:19] + "Z")
        leans.add(match["lean"])
    assert len(leans) >= 2  # the demo's record gives more than one answer


def test_the_checklist_score_on_the_line_is_the_packs_for_what_the_charge_shows(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each open chargeback's "checklist P/N from the charge, U more in the pack": P and N are
    the pack's own present and applicable items but those its reads decide, U those items,
    and the required ones missing are named (Ravi Menon's 13.1: no proof of delivery)."""
    from paytui.evidence.pack import READ_ITEMS

    monkeypatch.setattr(today_command, "now_utc", lambda: NOW)
    run = sandbox_cli(sandbox_transport, tmp_path / "journal.sqlite3")
    code, out, err = run("today", "--kind", "chargeback", "--format", "json")
    assert code == Exit.OK, err
    named = {}
    for row in json.loads(out):
        match = LINE.match(row["advice"])
        assert match is not None, row["advice"]
        code, out, err = run("evidence", row["id"], "--format", "json")
        assert code == Exit.OK, err
        pack = json.loads(out)
        later = READ_ITEMS | {"distributions"}
        shown = [item for item in pack["checklist"] if item["key"] not in later]
        present = sum(1 for item in shown if item["status"] == "present")
        applicable = sum(1 for item in shown if item["status"] != "not_applicable")
        unread = sum(1 for item in pack["checklist"] if item["key"] in later)
        assert (int(match["present"]), int(match["applicable"]), int(match["unread"])) == (
            present,
            applicable,
            unread,
        ), (row["advice"], pack["checklist"])
        required = [
            item["label"].split(" (")[0]
            for item in shown
            if item["status"] == "missing" and item["required"]
        ]
        assert (match["required"] or "").split(", ") == (required or [""]), row["advice"]
        named[row["customer"]] = match["required"]
        assert pack["score"]["line"].startswith("checklist ")
    assert named["Ravi Menon"] == "Proof of delivery"
    assert named["Lucía Ferrer"] is None  # her C08 case carries a tracking number


def test_the_lean_is_the_fee_then_the_record_else_none() -> None:
    fee = Decimal("25.00")
    assert _lean(Decimal("20.00"), fee, 9, 0)[0] == "accept"  # not worth the fee
    assert _lean(Decimal("300.00"), fee, 1, 1)[0] == "none"  # too few decided
    assert _lean(Decimal("300.00"), fee, 5, 3)[0] == "fight"
    assert _lean(Decimal("300.00"), fee, 0, 4)[0] == "accept"  # never won: odds under the fee
    assert _lean(Decimal("300.00"), fee, 1, 3)[0] == "none"  # a quarter: worth it, not a lean
    assert _lean(None, fee, 0, 0)[0] == "none"
