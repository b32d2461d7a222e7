"""SQLite schema of the sandbox.

Every column a search filters or sorts on is a real column with an index whose trailing columns are
the default order (`ts`, `charge_id`), so "filter + newest first + LIMIT" is an index walk that
stops after one page. Tags, attribute values and the folded words of the customer's name
(`names.py`) live in their own tables keyed by value first.
How many charges hold each value of an equality-filtered column, and each tag, is kept in
`charge_counts` by triggers (`COUNTED_COLUMNS`), so the search planner and a one-filter total read
one row instead of counting an index range (93,795 `success` rows: 4.5 ms).
The full resource is kept as its JSON answer in `doc`, so a page is assembled without re-encoding;
for charges the docs sit in their own table, which keeps the searched rows small (a scan or a
probe of `charges` touches a few bytes per charge, not a kilobyte).
Indexes are created after the seed's bulk insert (`create_indexes`), which is much faster.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = "1"

#: Stored as `PRAGMA user_version` by `create_indexes` (the last step of building a database).
#: Bump it whenever TABLES or INDEXES change: the embedded sandbox rebuilds a default database
#: whose version differs (one left by an older paytui) instead of failing every request on it.
USER_VERSION = 5
# (The customers table came later without a bump: every `Store` creates the tables it lacks and
# puts the fixed customers in (`paytui.sandbox.families.seed_customers`), so an older database
# answers every request as a new one does, without the rebuild a bump would cost.)

TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS access_tokens (
    token_hash TEXT PRIMARY KEY, client_id TEXT NOT NULL, scopes TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS merchants (
    merchant_id TEXT PRIMARY KEY, created_ts TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS accounts (
    account_id TEXT PRIMARY KEY, merchant_id TEXT NOT NULL, status TEXT NOT NULL,
    created_ts TEXT NOT NULL, auto_boarding INTEGER NOT NULL DEFAULT 0, auto_since REAL,
    doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS charges (
    id INTEGER PRIMARY KEY,
    charge_id TEXT NOT NULL UNIQUE,
    ts TEXT NOT NULL,
    account_id TEXT NOT NULL,
    merchant_id TEXT NOT NULL,
    status TEXT NOT NULL,
    result_code TEXT NOT NULL,
    charge_type TEXT NOT NULL,
    method TEXT NOT NULL,
    last4 TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    refunded_cents INTEGER NOT NULL DEFAULT 0,
    captured INTEGER,
    original_charge_id TEXT,
    contact_name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS charge_counts (
    name TEXT NOT NULL, value NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (name, value)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS charge_docs (id INTEGER PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS charge_tags (
    tag TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (tag, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS charge_attrs (
    key TEXT NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (key, value, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS charge_names (
    word TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (word, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS refunds (
    id INTEGER PRIMARY KEY,
    refund_id TEXT NOT NULL UNIQUE,
    charge_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    ts TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refund_tags (
    tag TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (tag, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS refund_attrs (
    key TEXT NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (key, value, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tokens (
    token_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, created_ts TEXT NOT NULL,
    doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS distributions (
    distribution_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, merchant_id TEXT NOT NULL,
    status TEXT NOT NULL, ts TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS distribution_items (
    item_id TEXT PRIMARY KEY, distribution_id TEXT NOT NULL, charge_id TEXT NOT NULL,
    category TEXT NOT NULL, amount_cents INTEGER NOT NULL, seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS plugin_sessions (
    session_id TEXT PRIMARY KEY, type TEXT NOT NULL, created_ts TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS channels (
    channel_id TEXT PRIMARY KEY, created_ts TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS conversations (
    conversation_id TEXT PRIMARY KEY, channel_id TEXT NOT NULL, status TEXT NOT NULL,
    customer_id TEXT, charge_id TEXT, created_ts TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    message_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, ts TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS customers (
    customer_id TEXT PRIMARY KEY, created_ts TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS conversation_events (
    item_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, ts TEXT NOT NULL, doc TEXT NOT NULL
);
"""

INDEXES = """
CREATE INDEX IF NOT EXISTS charges_ts ON charges (ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_account ON charges (account_id, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_account_status ON charges (account_id, status, id, amount_cents);
CREATE INDEX IF NOT EXISTS charges_merchant ON charges (merchant_id, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_status ON charges (status, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_result ON charges (result_code, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_type ON charges (charge_type, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_method ON charges (method, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_last4 ON charges (last4, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_amount ON charges (amount_cents, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_contact ON charges (contact_name, ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_captured ON charges (captured, ts, charge_id)
    WHERE captured IS NOT NULL;
CREATE INDEX IF NOT EXISTS charges_original ON charges (original_charge_id)
    WHERE original_charge_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS charge_tags_id ON charge_tags (id);
CREATE INDEX IF NOT EXISTS charge_attrs_id ON charge_attrs (id, key, value);
CREATE INDEX IF NOT EXISTS charge_names_id ON charge_names (id, word);
CREATE INDEX IF NOT EXISTS refunds_ts ON refunds (ts, refund_id);
CREATE INDEX IF NOT EXISTS refunds_charge ON refunds (charge_id, ts);
CREATE INDEX IF NOT EXISTS refunds_account ON refunds (account_id, ts, refund_id);
CREATE INDEX IF NOT EXISTS refund_tags_id ON refund_tags (id);
CREATE INDEX IF NOT EXISTS refund_attrs_id ON refund_attrs (id, key, value);
CREATE INDEX IF NOT EXISTS tokens_created ON tokens (created_ts, token_id);
CREATE INDEX IF NOT EXISTS tokens_account ON tokens (account_id, created_ts, token_id);
CREATE INDEX IF NOT EXISTS accounts_merchant ON accounts (merchant_id);
CREATE INDEX IF NOT EXISTS distributions_ts ON distributions (ts, distribution_id);
CREATE INDEX IF NOT EXISTS distributions_account ON distributions (account_id, status, ts);
CREATE INDEX IF NOT EXISTS distributions_merchant ON distributions (merchant_id, ts);
CREATE INDEX IF NOT EXISTS distribution_items_dist ON distribution_items (distribution_id, seq);
CREATE INDEX IF NOT EXISTS distribution_items_charge ON distribution_items (charge_id);
CREATE INDEX IF NOT EXISTS plugin_sessions_created ON plugin_sessions (created_ts, session_id);
CREATE INDEX IF NOT EXISTS channels_created ON channels (created_ts, channel_id);
CREATE INDEX IF NOT EXISTS conversations_created ON conversations (created_ts, conversation_id);
CREATE INDEX IF NOT EXISTS conversations_customer ON conversations (customer_id, created_ts);
CREATE INDEX IF NOT EXISTS conversations_charge ON conversations (charge_id, created_ts);
CREATE INDEX IF NOT EXISTS messages_conversation ON messages (conversation_id, ts, message_id);
CREATE INDEX IF NOT EXISTS messages_ts ON messages (ts, message_id);
CREATE INDEX IF NOT EXISTS conversation_events_of ON conversation_events (conversation_id, ts);
"""


#: The columns of `charges` whose charges per value `charge_counts` keeps (name = the column),
#: besides tags (name `tag`). Columns with a value per few charges (`original_charge_id`) are left
#: to their index, which counts them as fast.
COUNTED_COLUMNS = (
    "status",
    "account_id",
    "merchant_id",
    "method",
    "last4",
    "charge_type",
    "captured",
)

#: The name of the last object `create_indexes` makes: a database without it is completed.
LAST_OBJECT = "charge_counts_tag_delete"


def _bump(name: str, value: str, delta: int) -> str:
    """The trigger statement adding `delta` to the count of (`name`, `value`); NULL is not kept."""
    if delta > 0:
        return (
            f"INSERT INTO charge_counts SELECT '{name}', {value}, 1 WHERE {value} IS NOT NULL"
            " ON CONFLICT (name, value) DO UPDATE SET n = n + 1;"
        )
    return f"UPDATE charge_counts SET n = n - 1 WHERE name = '{name}' AND value = {value};"


def count_triggers() -> list[str]:
    """Triggers keeping `charge_counts` exact through every insert, update and delete."""
    columns = COUNTED_COLUMNS
    added = " ".join(_bump(c, f"new.{c}", 1) for c in columns)
    removed = " ".join(_bump(c, f"old.{c}", -1) for c in columns)
    script = [
        f"CREATE TRIGGER IF NOT EXISTS charge_counts_insert AFTER INSERT ON charges BEGIN {added}"
        " END;",
        f"CREATE TRIGGER IF NOT EXISTS charge_counts_delete AFTER DELETE ON charges BEGIN {removed}"
        " END;",
    ]
    for c in columns:
        script.append(
            f"CREATE TRIGGER IF NOT EXISTS charge_counts_{c} AFTER UPDATE OF {c} ON charges"
            f" WHEN old.{c} IS NOT new.{c} BEGIN"
            f" {_bump(c, f'old.{c}', -1)} {_bump(c, f'new.{c}', 1)} END;"
        )
    script += [
        "CREATE TRIGGER IF NOT EXISTS charge_counts_tag_update AFTER UPDATE ON charge_tags BEGIN"
        f" {_bump('tag', 'old.tag', -1)} {_bump('tag', 'new.tag', 1)} END;",
        "CREATE TRIGGER IF NOT EXISTS charge_counts_tag_insert AFTER INSERT ON charge_tags BEGIN"
        f" {_bump('tag', 'new.tag', 1)} END;",
        f"CREATE TRIGGER IF NOT EXISTS {LAST_OBJECT} AFTER DELETE ON charge_tags BEGIN"
        f" {_bump('tag', 'old.tag', -1)} END;",
    ]
    return script


def count_all(conn: sqlite3.Connection) -> None:
    """Fill `charge_counts` from the data (after a bulk insert, before the triggers exist)."""
    conn.execute("DELETE FROM charge_counts")
    for column in COUNTED_COLUMNS:
        conn.execute(
            f"INSERT INTO charge_counts SELECT '{column}', {column}, COUNT(*) FROM charges"
            f" WHERE {column} IS NOT NULL GROUP BY {column}"
        )
    conn.execute(
        "INSERT INTO charge_counts SELECT 'tag', tag, COUNT(*) FROM charge_tags GROUP BY tag"
    )


def create_tables(conn: sqlite3.Connection) -> None:
    conn.executescript(TABLES)


def create_indexes(conn: sqlite3.Connection) -> None:
    """Create every index and the counts with their triggers, then gather planner statistics so
    SQLite picks the selective index. Run once, after the seed's bulk insert; idempotent."""
    conn.executescript(INDEXES)
    conn.execute("BEGIN IMMEDIATE")  # the counts and their triggers at once (no write between)
    try:
        count_all(conn)
        for statement in count_triggers():
            conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("ANALYZE")
    conn.execute(f"PRAGMA user_version = {USER_VERSION}")
