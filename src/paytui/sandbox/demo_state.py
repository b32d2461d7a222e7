"""Whether a demo database has fallen behind today, and whether anyone wrote to it since it was
built: what decides, on a start, between serving the demo database as it is and rebuilding it
(`paytui.sandbox.embedded.ensure_database`).

Standard library only: the first-page reader (`paytui.ui.first_page`) asks the same question
while the server starts, and `paytui.sandbox.seed` costs a quarter of a second of imports (the
ledger and its models).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path


@dataclass(frozen=True)
class DemoDataState:
    """When a demo database's data ends, and whether anyone has written to it since it was built."""

    anchor: datetime | None
    changed: bool

    def behind(self, now: datetime | None = None) -> bool:
        """True when the data ends on an earlier UTC day than today (or its end is unknown)."""
        today = (now or datetime.now(UTC)).astimezone(UTC).date()
        return self.anchor is None or self.anchor.date() < today


#: Rows a user's requests create carry their own time, after the anchor; seeded rows never do.
_WRITTEN_AFTER = (
    ("charges", "ts"),
    ("refunds", "ts"),
    ("tokens", "created_ts"),
    ("accounts", "created_ts"),
    ("merchants", "created_ts"),
    ("plugin_sessions", "created_ts"),
    ("conversations", "created_ts"),
    ("messages", "ts"),
)


def demo_data_state(path: Path | str) -> DemoDataState:
    """Read the anchor from `meta` and look for rows created after it (read-only)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'anchor'").fetchone()
        if row is None:
            return DemoDataState(None, changed=False)
        anchor_text = str(row[0])
        changed = any(
            conn.execute(
                f"SELECT 1 FROM {table} WHERE {column} > ? LIMIT 1",  # constant names
                (anchor_text,),
            ).fetchone()
            is not None
            for table, column in _WRITTEN_AFTER
        )
        anchor = datetime.fromisoformat(anchor_text.replace("Z", "+00:00"))
        return DemoDataState(anchor, changed=changed)
    finally:
        conn.close()
