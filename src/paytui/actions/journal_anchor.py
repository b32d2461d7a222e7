"""The trail's anchor outside the database: the last link of each journal this paytui has seen,
kept in this person's own state directory, so a database owner cannot quietly shorten the trail
or rewrite it.

The trail (`paytui.actions.journal_trail`) is a hash chain of public data: whoever can write the
database (its owner, with the append-only triggers turned off) can delete the newest entries with
their links, or change an amount and recompute every later hash, and the chain still holds. What
such a person cannot reach is the head each paytui saw: `verify` compares it with the database's
chain. The link this paytui saw at sequence N must still be there with the same hash; since each
hash covers every link before it, that one comparison proves nothing up to N was removed or
rewritten.

Where: ``platformdirs.user_state_dir("paytui")/trail-anchors.json`` (0600, in a 0700 directory),
one head per journal (its engine, where it is and its schema), written whole to a temporary
file and renamed over the old one. Recorded when `verify` holds (`paytui history verify`,
`paytui journal status`), by the dashboard each time it reads the journal's changes, and by the
command line when it closes a journal it wrote to. An anchor only moves forward.

Not covered (docs/money-safety.md, "What the trail proves"): links written after the last head
any paytui recorded; a person who can also edit the anchor files on the agents' machines; a
paytui with no anchor yet (a new machine trusts the first head it sees).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paytui.replacing import replace_regular

__all__ = ["Anchor", "Head", "default_anchor_path"]

_LOCK = threading.Lock()


def default_anchor_path() -> Path:
    """``<user state dir>/trail-anchors.json`` (re-read each call: tests move XDG_STATE_HOME)."""
    import platformdirs

    return Path(platformdirs.user_state_dir("paytui")) / "trail-anchors.json"


@dataclass(frozen=True)
class Head:
    """A link of a journal's trail as this paytui saw it: its sequence number and hash."""

    seq: int
    hash: str
    seen_at: datetime | None = None


class Anchor:
    """The heads this paytui saw, one per journal, in one small JSON file of its own."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else default_anchor_path()

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}  # unreadable: as if none (said nowhere else: a new machine is the same)
        return data if isinstance(data, dict) else {}

    def get(self, journal: str) -> Head | None:
        """The head recorded for `journal` (its identity: `Journal.identity`), if any."""
        found = self._read().get(journal)
        if not isinstance(found, dict):
            return None
        try:
            seen = found.get("seen_at")
            return Head(
                int(found["seq"]),
                str(found["hash"]),
                datetime.fromisoformat(seen) if isinstance(seen, str) else None,
            )
        except (KeyError, TypeError, ValueError):
            return None

    def record(self, journal: str, head: Head) -> None:
        """Keep `head` as `journal`'s, unless a later one is kept already (an anchor only moves
        forward). Failures are swallowed: the anchor is a second witness, never a reason to
        stop working."""
        with _LOCK, contextlib.suppress(OSError):
            data = self._read()
            known = data.get(journal)
            if isinstance(known, dict) and int(known.get("seq", 0)) >= head.seq:
                return
            seen = (head.seen_at or datetime.now(UTC)).astimezone(UTC).isoformat()
            data[journal] = {"seq": head.seq, "hash": head.hash, "seen_at": seen}
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=".anchors-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(data, out, sort_keys=True, indent=1)
                replace_regular(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
