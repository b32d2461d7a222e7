"""The charge counts kept by triggers (`charge_counts`) stay exact through every kind of write.

A one-filter search (a status, an account, a tag...) answers its `total` from those counts, and
the planner of every search reads them; here each total is compared with a count of the rows
themselves after a new charge, a capture, a refund and a tag edit.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx

from paytui.sandbox.schema import COUNTED_COLUMNS
from tests.sandbox.helpers import charge

TAG = "kept-count-tag"


def counted(db: Path, sql: str, *params: Any) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute(sql, params).fetchone()[0])
    finally:
        conn.close()


def recount(db: Path) -> dict[tuple[str, Any], int]:
    """Every kept count computed afresh from the rows."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        result: dict[tuple[str, Any], int] = {}
        for column in COUNTED_COLUMNS:
            for value, n in conn.execute(
                f"SELECT {column}, COUNT(*) FROM charges WHERE {column} IS NOT NULL"
                f" GROUP BY {column}"
            ):
                result[(column, value)] = n
        for tag, n in conn.execute("SELECT tag, COUNT(*) FROM charge_tags GROUP BY tag"):
            result[("tag", tag)] = n
        kept = {
            (name, value): n
            for name, value, n in conn.execute("SELECT name, value, n FROM charge_counts")
            if n
        }
        assert kept == result
        return result
    finally:
        conn.close()


async def test_totals_stay_exact_after_writes(
    api: httpx.AsyncClient, account_id: str, sandbox_db: Path
) -> None:
    checks: list[tuple[list[tuple[str, str]], str, tuple[Any, ...]]] = [
        (
            [("account_id", account_id)],
            "SELECT COUNT(*) FROM charges WHERE account_id = ?",
            (account_id,),
        ),
        ([("status", "success")], "SELECT COUNT(*) FROM charges WHERE status = 'success'", ()),
        (
            [("charge_type", "authorization")],
            "SELECT COUNT(*) FROM charges WHERE charge_type = 'authorization'",
            (),
        ),
        ([("captured", "true")], "SELECT COUNT(*) FROM charges WHERE captured = 1", ()),
        ([("captured", "false")], "SELECT COUNT(*) FROM charges WHERE captured = 0", ()),
        ([("tag", TAG)], "SELECT COUNT(*) FROM charge_tags WHERE tag = ?", (TAG,)),
        ([("tag", "vip")], "SELECT COUNT(*) FROM charge_tags WHERE tag = 'vip'", ()),
    ]
    # Combined: counted by a join on the account's index (retail: many) or driven by the tag.
    combined = [("account_id", account_id), ("status", "success"), ("min_amount", "10")]
    for tag in ("retail", TAG):
        checks.append(
            (
                [*combined, ("tag", tag)],
                "SELECT COUNT(*) FROM charges c JOIN charge_tags t ON t.id = c.id AND t.tag = ?"
                " WHERE c.account_id = ? AND c.status = 'success' AND c.amount_cents >= 1000",
                (tag, account_id),
            )
        )

    async def totals() -> list[int]:
        answers = []
        for params, sql, sql_params in checks:
            body = (await api.get("/v2/charges", params=[*params, ("limit", "1")])).json()
            assert body["total"] == counted(sandbox_db, sql, *sql_params), params
            answers.append(body["total"])
        return answers

    start = await totals()
    sale = (await charge(api, account_id, 12, tags=[TAG, "retail"])).json()
    auth = (await charge(api, account_id, 30, charge_type="authorization", tags=[TAG])).json()
    after_new = await totals()
    assert after_new[0] == start[0] + 2 and after_new[4] == start[4] + 1
    assert after_new[5] == 2
    capture = await api.post(f"/v2/charges/{auth['charge_id']}/capture", json={})
    assert capture.status_code == 201
    after_capture = await totals()
    # The authorization now counts as captured, and its capture is a new charge with its tags.
    assert after_capture[3] == after_new[3] + 1 and after_capture[4] == after_new[4] - 1
    assert after_capture[5] == 3
    assert (await api.post("/v2/refunds", json={"charge_id": sale["charge_id"]})).status_code == 201
    await totals()
    patched = await api.patch(f"/v2/charges/{sale['charge_id']}", json={"tags": ["vip"]})
    assert patched.status_code == 200
    after_edit = await totals()
    assert after_edit[5] == 2 and after_edit[6] == after_capture[6] + 1
    recount(sandbox_db)
