"""Hostile data for trying the UI against: terminal escapes, BEL, NUL and a bidi override.

Written straight into a sandbox database (the service itself may accept anything a customer
types), so tests and `scripts/hostile_terminal_check.py` can show a charge that would rename the
window, write the clipboard or clear the screen if its text reached the terminal raw. Not part of
the seed: the demo data and every snapshot stay as they are.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from paytui.sandbox.names import replace_names

#: OSC 2 (set the window title), OSC 52 (write the clipboard), CSI 2J (clear the screen).
OSC2 = "\x1b]2;pwned\x07"
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
CLEAR = "\x1b[2J"
HOSTILE_NAME = f"Eve{OSC2}Mal\u202eexe.jpg"
HOSTILE_TAGS = [f"vip{OSC52}", f"x{CLEAR}y", "bell\x07nul\x00end"]
#: Characters that draw nothing: "Ad<ZWSP>min" reads as "Admin", an id with a U+FEFF in it as
#: one without.
INVISIBLE_NAME = "Ad\u200bmin\u200dZ\ufeffW\u2060J\u180eX"
INVISIBLE_TAGS = ["vi\u200bp", "\ufeffrefund"]


def make_hostile_charge(
    db: Path | str, name: str = HOSTILE_NAME, tags: list[str] | None = None
) -> str:
    """Give the newest charge of `db` the hostile contact name and tags (`name`, `tags`: others
    than the escapes); answer its id."""
    tags = HOSTILE_TAGS if tags is None else tags
    conn = sqlite3.connect(str(db))
    try:
        rowid, charge_id, doc = conn.execute(
            "SELECT c.id, c.charge_id, d.doc FROM charges c JOIN charge_docs d ON d.id = c.id"
            " ORDER BY c.ts DESC, c.charge_id DESC LIMIT 1"
        ).fetchone()
        data = json.loads(doc)
        contact = data.setdefault("payment_method", {}).setdefault("contact", {})
        contact["first_name"], contact["last_name"] = name, "Doe"
        data["tags"] = tags
        conn.execute("UPDATE charge_docs SET doc = ? WHERE id = ?", (json.dumps(data), rowid))
        conn.execute("UPDATE charges SET contact_name = ? WHERE id = ?", (f"{name} Doe", rowid))
        replace_names(conn, rowid, f"{name} Doe")
        conn.execute("DELETE FROM charge_tags WHERE id = ?", (rowid,))
        conn.executemany("INSERT INTO charge_tags VALUES (?, ?)", [(tag, rowid) for tag in tags])
        conn.commit()
    finally:
        conn.close()
    return str(charge_id)
