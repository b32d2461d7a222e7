"""The customer-name search of `GET /v2/charges?contact_name=...`: the words of a name, folded.

A support agent types part of a first or last name as they heard it on the phone ("jose", "nun",
"sparck"), so both the stored names and the query are folded the same way here: accents removed
(NFKD, combining marks dropped), case folded, split into words at whitespace and hyphens, with
apostrophes and dots dropped ("O'Brien" is `obrien`, "Berners-Lee" is `berners` and `lee`). Each
word of a charge's contact is a row of `charge_names (word, id)`, keyed by the word first like the
tag table, so "a word starting with `dij`" is one index range. Rows are written wherever a charge's
contact is (`ledger`, `seed`, `hostile`); nothing else changes a contact.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

#: Past every character a folded word can hold: `word < prefix + END` closes a prefix range.
END = "\U0010ffff"
_SPLIT = re.compile(r"[\s\-‐‑‒–—]+")
_DROP = str.maketrans("", "", "'’`.")


@lru_cache(maxsize=4096)
def name_words(text: str) -> tuple[str, ...]:
    """The folded words of a name (or of a name query), in order, without repeats."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    words = (word.translate(_DROP) for word in _SPLIT.split(plain))
    return tuple(dict.fromkeys(word for word in words if word))


def name_rows(rowid: int, name: str) -> list[tuple[str, int]]:
    """The `charge_names` rows of one charge whose contact is `name` ("first last")."""
    return [(word, rowid) for word in name_words(name)]


def all_name_rows(charges: Iterable[tuple[int, str]]) -> Iterable[tuple[str, int]]:
    """`name_rows` of many (rowid, name) pairs, for the seed's bulk insert."""
    for rowid, name in charges:
        yield from name_rows(rowid, name)


def replace_names(conn: sqlite3.Connection, rowid: int, name: str) -> None:
    """Write the name words of charge `rowid` (its contact was just set)."""
    conn.execute("DELETE FROM charge_names WHERE id = ?", (rowid,))
    conn.executemany("INSERT OR IGNORE INTO charge_names VALUES (?, ?)", name_rows(rowid, name))
