"""The trail anchored outside the database (`paytui.actions.journal_anchor`), on both engines.

Whoever owns the database can turn the append-only rules off. Two kinds of tampering then leave a
chain that holds on its own — the newest entries deleted with their links, and an amount changed
with every later hash recomputed (SHA-256 of public data, no key) — and only the head a paytui
recorded outside the database shows them.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from paytui.actions.journal import Journal
from paytui.actions.journal_anchor import Anchor
from paytui.actions.journal_trail import GENESIS, canonical, link
from tests.actions.support import raw_sql

SERVICE = "http://sandbox"


def _refund(journal: Journal, charge: str) -> int:
    entry = journal.record_intent(
        profile="sandbox",
        base_url=SERVICE,
        operation="refund",
        charge_id=charge,
        amount=Decimal("5.00"),
        request_summary={"total_amount": "5.00"},
        agent="support-07",
        machine="ws-17",
    )
    journal.transition(entry.id, "sent", expected={"pending"})
    journal.transition(entry.id, "succeeded", expected={"sent"}, result_id=f"r-{charge[:4]}")
    return entry.id


def _rules_off(location: Path | str) -> str:
    """What the owner types to turn the append-only rules off."""
    if isinstance(location, Path):
        return (
            "DROP TRIGGER actions_constrained; DROP TRIGGER actions_no_delete;"
            " DROP TRIGGER trail_no_update; DROP TRIGGER trail_no_delete;"
        )
    return "ALTER TABLE actions DISABLE TRIGGER USER; ALTER TABLE trail DISABLE TRIGGER USER;"


def _three_refunds_anchored(location: Path | str, anchor: Anchor) -> list[int]:
    """Three refunds; this paytui verifies the trail and so records its head (9 links)."""
    with Journal(location) as journal:
        ids = [_refund(journal, c * 24) for c in "abc"]
        report = journal.verify(anchor=anchor)
        assert report.ok and report.links == 9 and report.anchored is None  # none seen before
        again = journal.verify(anchor=anchor)
        assert again.ok and again.anchored is not None and again.anchored.seq == 9
    return ids


def test_deleting_the_newest_entries_and_their_links_is_seen(
    journal_location: Path | str, tmp_path: Path
) -> None:
    anchor = Anchor(tmp_path / "state" / "trail-anchors.json")
    ids = _three_refunds_anchored(journal_location, anchor)
    raw_sql(
        journal_location,
        _rules_off(journal_location)
        + f"DELETE FROM trail WHERE action_id = {ids[-1]};"
        + f"DELETE FROM actions WHERE id = {ids[-1]};",
    )
    with Journal(journal_location) as journal:
        # The chain alone holds: what is left is whole (the gap this anchor closes).
        assert journal.verify().ok
        report = journal.verify(anchor=anchor)
    assert report.broken == (
        "the trail ends at link 6, but this paytui saw link 9"
        f"{_on(anchor, journal_location)}: its newest links were removed"
    )
    # A broken trail does not move the anchor: asked again, it still says so.
    with Journal(journal_location) as journal:
        assert not journal.verify(anchor=anchor).ok


def test_an_amount_changed_with_every_later_hash_recomputed_is_seen(
    journal_location: Path | str, tmp_path: Path
) -> None:
    anchor = Anchor(tmp_path / "state" / "trail-anchors.json")
    ids = _three_refunds_anchored(journal_location, anchor)
    with Journal(journal_location) as journal:
        links = [dict(row) for row in journal._store.rows("SELECT * FROM trail ORDER BY seq")]
    statements = [_rules_off(journal_location)]
    statements.append(f"UPDATE actions SET amount = '500.00' WHERE id = {ids[0]};")
    prev = GENESIS
    for row in links:  # the owner rewrites every link as paytui would have written it
        body: dict[str, Any] = json.loads(row["body"])
        if row["action_id"] == ids[0]:
            body["amount"] = "500.00"
        text = canonical(body)
        digest = link(prev, row["kind"], text)
        statements.append(
            f"UPDATE trail SET body = {_quote(text)}, prev_hash = '{prev}', hash = '{digest}'"
            f" WHERE seq = {row['seq']};"
        )
        prev = digest
    raw_sql(journal_location, "".join(statements))
    with Journal(journal_location) as journal:
        assert journal.get(ids[0]).amount == Decimal("500.00")  # type: ignore[union-attr]
        assert journal.verify().ok  # recomputed: the chain alone cannot tell
        report = journal.verify(anchor=anchor)
    assert report.broken == (
        f"link 9 is not the one this paytui saw{_on(anchor, journal_location)}:"
        " the trail was rewritten at or before it (hashes recomputed)"
    )


def test_an_anchor_moves_forward_only_and_is_kept_private(
    journal_location: Path | str, tmp_path: Path
) -> None:
    anchor = Anchor(tmp_path / "state" / "trail-anchors.json")
    _three_refunds_anchored(journal_location, anchor)
    with Journal(journal_location) as journal:
        (key,) = json.loads(anchor.path.read_text(encoding="utf-8"))
        assert key == journal.identity
        head = anchor.get(key)
        assert head is not None and head.seq == 9
        _refund(journal, "d" * 24)
        journal.remember_head(anchor)
        assert anchor.get(key).seq == 12  # type: ignore[union-attr]
        anchor.record(key, head)  # an older head never replaces a newer one
        assert anchor.get(key).seq == 12  # type: ignore[union-attr]
    assert anchor.path.stat().st_mode & 0o077 == 0


def _on(anchor: Anchor, location: Path | str) -> str:
    with Journal(location) as journal:
        head = anchor.get(journal.identity)
    assert head is not None and head.seen_at is not None
    return f" on {head.seen_at:%Y-%m-%d %H:%M} UTC"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
