"""SQLite schema of the sandbox.

Every column a search filters or sorts on is a real column with an index whose trailing columns are
the default order (`ts`, `charge_id`), so "filter + newest first + LIMIT" is an index walk that
stops after one page. Tags, attribute values and the folded words of the customer's name
(`names.py`) live in their own tables keyed by value first.
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
USER_VERSION = 3

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
"""

INDEXES = """
CREATE INDEX IF NOT EXISTS charges_ts ON charges (ts, charge_id);
CREATE INDEX IF NOT EXISTS charges_account ON charges (account_id, ts, charge_id);
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
"""


def create_tables(conn: sqlite3.Connection) -> None:
    conn.executescript(TABLES)


def create_indexes(conn: sqlite3.Connection) -> None:
    """Create every index, then gather planner statistics so SQLite picks the selective one."""
    conn.executescript(INDEXES)
    conn.execute("ANALYZE")
    conn.execute(f"PRAGMA user_version = {USER_VERSION}")
