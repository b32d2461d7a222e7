"""The demo data: deterministic, complete, and free of full card or bank numbers."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from paytui.sandbox.seed import DEFAULT_ANCHOR, PRACTICE_COUNT, build_database


def dump(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return list(conn.iterdump())


def test_same_seed_same_data_other_seed_other_data(tmp_path: Path) -> None:
    build_database(tmp_path / "a.sqlite3", charges=300, seed=3)
    build_database(tmp_path / "b.sqlite3", charges=300, seed=3)
    build_database(tmp_path / "c.sqlite3", charges=300, seed=4)
    assert dump(tmp_path / "a.sqlite3") == dump(tmp_path / "b.sqlite3")
    assert dump(tmp_path / "a.sqlite3") != dump(tmp_path / "c.sqlite3")


def test_rebuild_replaces_the_database(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    build_database(path, charges=120)
    build_database(path, charges=80, anchor=datetime(2025, 1, 1, tzinfo=UTC))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db.sqlite3"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM charges").fetchone() == (80 + PRACTICE_COUNT,)
        assert conn.execute("SELECT MAX(ts) FROM charges").fetchone()[0] < "2025-01-01T00:00:00"


def test_template_has_every_kind_of_record(sandbox_template: Path) -> None:
    with sqlite3.connect(sandbox_template) as conn:
        assert conn.execute("SELECT COUNT(*) FROM charges").fetchone() == (3000 + PRACTICE_COUNT,)
        kinds = set(
            conn.execute("SELECT DISTINCT status, charge_type, method FROM charges").fetchall()
        )
        for kind in [
            ("success", "sale", "card"),
            ("success", "sale", "bank_account"),
            ("success", "authorization", "card"),
            ("success", "capture", "card"),
            ("success", "pre_authorization", "card"),
            ("declined", "sale", "card"),
            ("chargeback", "sale", "card"),
            ("return", "sale", "bank_account"),
        ]:
            assert kind in kinds
        brands = {
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT json_extract(doc, '$.payment_method.type') FROM charge_docs"
            )
        }
        assert {"visa", "mastercard", "amex", "discover"} <= brands
        # The history (the practice cases' earlier charges of a customer go further back).
        ts_range = conn.execute("SELECT MIN(ts), MAX(ts) FROM charges WHERE id <= 3000").fetchone()
        assert ts_range[0] >= "2026-05-24" and ts_range[1] <= "2026-11-20T18:00:00.000Z"
        tags = {r[0] for r in conn.execute("SELECT DISTINCT tag FROM charge_tags")}
        assert {"vip", "subscription", "phone-order", "wholesale", "web", "retail"} <= tags
        assert (
            conn.execute(
                "SELECT COUNT(*) FROM charges WHERE contact_name LIKE '[bold red]mallory[/]%'"
            ).fetchone()[0]
            > 0
        )
        assert conn.execute("SELECT COUNT(*) FROM refunds").fetchone()[0] > 50
        expired = conn.execute(
            "SELECT COUNT(*) FROM tokens"
            " WHERE json_extract(doc, '$.token_expiration_date') < '2026-11-20'"
        ).fetchone()[0]
        assert 0 < expired < 20
        statuses = dict(
            conn.execute("SELECT status, COUNT(*) FROM distributions GROUP BY status").fetchall()
        )
        approved = conn.execute(
            "SELECT COUNT(*) FROM accounts WHERE status = 'approved'"
        ).fetchone()[0]
        assert statuses["open"] == approved and statuses["paid"] > 100
        on_approved = conn.execute(
            "SELECT COUNT(*) FROM charges c JOIN accounts a USING (account_id)"
            " WHERE a.status = 'approved'"
        ).fetchone()[0]
        assert on_approved > 0.9 * 3000


def test_no_full_numbers_anywhere_in_the_file(sandbox_template: Path) -> None:
    raw = sandbox_template.read_bytes()
    for number in (
        b"4111111111111111",
        b"4000000000000002",
        b"5555555555554444",
        b"378282246310005",
    ):
        assert number not in raw
    assert b"XXXXXXXXXXXX1111" in raw


def test_every_chargeback_of_the_demo_has_its_own_networks_code(sandbox_template: Path) -> None:
    """Every chargeback of the demo, on every brand: a code of the card's own network, with
    words (a Mastercard is never charged back with a Visa code)."""
    from paytui.reason_codes import REASON_CODES, lookup

    with sqlite3.connect(sandbox_template) as conn:
        docs = [json.loads(row[0]) for row in conn.execute("SELECT doc FROM charge_docs")]
    seen: dict[str, set[str]] = {}
    for doc in docs:
        brand = doc["payment_method"].get("type")
        for item in (doc.get("chargebacks") or {}).get("items", []):
            found = lookup(item["reason_code"], brand)
            assert found is not None, (brand, item["reason_code"])
            assert item["reason"], item
            seen.setdefault(brand, set()).add(item["reason_code"])
    assert set(seen) == set(REASON_CODES)
    assert all(len(codes) >= 2 for codes in seen.values()), seen


def test_the_practice_cases(sandbox_template: Path, tmp_path: Path) -> None:
    """Open chargebacks of the last two weeks across networks, reason categories and stages, a
    duplicate pair, a hold that ends today, a return of yesterday; the history the same as
    without them (their own random stream, after it)."""
    with sqlite3.connect(sandbox_template) as conn:
        docs = [
            json.loads(row[0])
            for row in conn.execute(
                "SELECT d.doc FROM charges c JOIN charge_docs d USING (id) WHERE c.id > 3000"
            )
        ]
    assert len(docs) == PRACTICE_COUNT
    disputed = [d for d in docs if d["status"] == "chargeback"]
    items = [d["chargebacks"]["items"][0] for d in disputed]
    two_weeks = (DEFAULT_ANCHOR - timedelta(days=14)).isoformat()[:19]
    assert all(two_weeks < i["chargeback_timestamp"] < DEFAULT_ANCHOR.isoformat() for i in items)
    assert {i["status"] for i in items} == {"open"}
    assert {i["stage"] for i in items} == {"chargeback", "pre_arbitration", "arbitration"}
    assert {d["payment_method"]["type"] for d in disputed} == {
        "visa", "mastercard", "amex", "discover"
    }  # fmt: skip
    assert all(i["reason"] for i in items)  # the network's words for each code
    sales = [d for d in docs if d["status"] == "success" and d["charge_type"] == "sale"]
    # The fraud case's earlier charges: his card and customer, 150, 210 and 60 days before.
    (fraud,) = [d for d in disputed if d["chargebacks"]["items"][0]["reason_code"] == "10.4"]
    priors = [d for d in sales if d["attributes"].get("customer_id") == ["C-2002"]]
    charged = datetime.fromisoformat(fraud["charge_timestamp"])
    days = sorted((charged - datetime.fromisoformat(d["charge_timestamp"])).days for d in priors)
    assert days == [60, 150, 210]
    assert all(d["payment_method"] == fraud["payment_method"] for d in priors)
    assert all(d["attributes"]["ip_address"] == fraud["attributes"]["ip_address"] for d in priors)
    first, second = [d for d in sales if d not in priors]
    assert first["payment_method"] == second["payment_method"]
    assert first["total_amount"] == second["total_amount"]
    (hold,) = [d for d in docs if d["charge_type"] == "authorization"]
    ends = datetime.fromisoformat(hold["charge_timestamp"]) + timedelta(days=7)
    assert ends > DEFAULT_ANCHOR and ends.date() == DEFAULT_ANCHOR.date()
    (returned,) = [d for d in docs if d["status"] == "return"]
    assert returned["return"]["return_timestamp"].startswith(
        (DEFAULT_ANCHOR - timedelta(days=1)).date().isoformat()
    )
    build_database(tmp_path / "history.sqlite3", charges=3000, seed=7, practice=False)
    with (
        sqlite3.connect(tmp_path / "history.sqlite3") as bare,
        sqlite3.connect(sandbox_template) as full,
    ):
        query = "SELECT * FROM charges WHERE id <= 3000 ORDER BY id"
        assert bare.execute(query).fetchall() == full.execute(query).fetchall()
