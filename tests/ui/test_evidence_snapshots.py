"""Snapshot of the evidence pack (`E` on a chargeback) at 120x40: Ravi Menon's "not received"
case, its score, checklist marks and sections drawn as text, not Markdown source.

Plain `def` tests (`snap_compare` runs its own loop); seeded in-process sandbox, frozen clock.
Check the SVG by eye before `--snapshot-update`.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx

from tests.ui.conftest import make_app, wait_for_workers


def _ravis_case(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        for (text,) in conn.execute("SELECT doc FROM charge_docs"):
            doc = json.loads(text)
            contact = (doc.get("payment_method") or {}).get("contact") or {}
            if doc["status"] == "chargeback" and contact.get("last_name") == "Menon":
                return str(doc["charge_id"])
    raise AssertionError("the demo has Ravi Menon's case")


def test_the_evidence_pack_on_screen(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, sandbox_db: Path
) -> None:
    from paytui.ui.screens.evidence import EvidenceScreen

    charge_id = _ravis_case(sandbox_db)

    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.app.push_screen(EvidenceScreen(charge_id))
        await wait_for_workers(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=(120, 40), run_before=run_before)
