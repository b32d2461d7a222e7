"""The journal's tables on SQLite and on PostgreSQL, and bringing an older journal up to date.

Schema 8 (both engines, the same columns and rules; 6 admits the state "awaiting_service", 7 a
claim's heartbeat, 8 the approvals of four eyes):

- `actions`: one row per action, intent first. `agent` (a person's name on the team) and
  `machine` say who acted; `guard_target` is the target the exactly-once guard was checked on, and
  a partial unique index allows one unsettled intent per (service, operation, guard_target): the
  database itself refuses a second, whatever a writer does.
- `refusals`: attempts stopped before anything was written or sent.
- `claims`: who is working on which charge (a row per service and target; live while its
  agent's paytui is — a session advisory lock on PostgreSQL, the process on SQLite — and,
  since schema 7, renews its `beat_at` within the claim lease).
- `team_searches`: the team's saved searches (beside each person's own, in their config).
- `approvals` (schema 8): four eyes — a money action above the profile's `approve_above` waits
  here for a second person (`paytui.actions.journal_approvals`); a CHECK refuses an approver who
  is the requester, whatever a client does. Each step is a link of the trail.
- `presence` (PostgreSQL only, unlogged): who has which charge open now, a lease renewed by
  heartbeat (`paytui.actions.presence`); not in the trail. Created on a journal of schema 6
  that lacks it, by the first paytui with the right to (its owner: `paytui journal status`).
- `trail`: every write to the two tables above, appended with a hash chained to the one before
  (`paytui history verify` walks it). Triggers make `trail` and `refusals` append-only and
  `actions` constrained: no row is deleted, what was intended (service, operation, target,
  request, who, when) never changes, and a final state (succeeded, failed) never changes.
- PostgreSQL keeps its version in `paytui_schema`; SQLite in ``PRAGMA user_version``.

A first connection creates the schema under an advisory lock (PostgreSQL; SQLite's file lock),
so two first starts do not race.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from paytui.actions.entry import STATES
from paytui.actions.journal_store import JournalUnavailable, lock_key

if TYPE_CHECKING:
    from paytui.actions.journal_store import SqliteStore, Store

__all__ = ["IMMUTABLE_COLUMNS", "SCHEMA_VERSION", "agent_grants", "migrate"]

SCHEMA_VERSION = 8
#: What an intent says and who made it: never changed after the insert.
IMMUTABLE_COLUMNS = (
    "id",
    "client_reference",
    "profile",
    "base_url",
    "operation",
    "request_summary",
    "retry_of",
    "created_at",
    "client_id",
    "actor",
    "owner",
    "agent",
    "machine",
    "guard_target",
)
_FINAL = ("succeeded", "failed")
#: Every table of the schema (a file missing one is completed, whatever its version says).
_TABLES = frozenset({"actions", "refusals", "trail", "claims", "team_searches", "approvals"})
_STATES_SQL = ", ".join(repr(s) for s in STATES)
_UNSETTLED_SQL = "'pending', 'sent', 'unknown'"

_ACTIONS_COLUMNS = f"""
    client_reference TEXT NOT NULL UNIQUE,
    profile          TEXT NOT NULL,
    base_url         TEXT NOT NULL,
    operation        TEXT NOT NULL,
    charge_id        TEXT,
    amount           TEXT,
    request_summary  TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ({_STATES_SQL})),
    result_id        TEXT,
    error            TEXT,
    retry_of         {{id_ref}} REFERENCES actions(id),
    created_at       TEXT NOT NULL,
    sent_at          TEXT,
    updated_at       TEXT NOT NULL,
    resolved_at      TEXT,
    settle_seconds   {{real}},
    checked_at       TEXT,
    never_sent       INTEGER NOT NULL DEFAULT 0,
    unacknowledged   INTEGER NOT NULL DEFAULT 0,
    client_id        TEXT,
    actor            TEXT,
    owner            TEXT,
    agent            TEXT,
    machine          TEXT,
    guard_target     TEXT
"""
_REFUSALS_COLUMNS = """
    profile     TEXT NOT NULL,
    base_url    TEXT NOT NULL,
    client_id   TEXT,
    operation   TEXT NOT NULL,
    charge_id   TEXT,
    amount      TEXT,
    reason      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    agent       TEXT,
    machine     TEXT
"""
_TRAIL_COLUMNS = """
    seq        {id_ref} PRIMARY KEY,
    kind       TEXT NOT NULL,
    action_id  {id_ref},
    refusal_id {id_ref},
    at         TEXT NOT NULL,
    body       TEXT NOT NULL,
    prev_hash  TEXT NOT NULL,
    hash       TEXT NOT NULL
"""
_CLAIMS = """
CREATE TABLE IF NOT EXISTS claims (
    base_url   TEXT NOT NULL,
    target     TEXT NOT NULL,
    agent      TEXT NOT NULL,
    machine    TEXT,
    owner      TEXT,
    claimed_at TEXT NOT NULL,
    beat_at    TEXT,
    PRIMARY KEY (base_url, target)
);
"""
#: Four eyes (schema 8, `paytui.actions.journal_approvals`): the database refuses an approver
#: who is the requester, whatever a client does.
_APPROVALS = """
CREATE TABLE IF NOT EXISTS approvals (
    id {id_pk},
    base_url          TEXT NOT NULL,
    profile           TEXT NOT NULL,
    operation         TEXT NOT NULL,
    charge_id         TEXT NOT NULL,
    amount            TEXT NOT NULL,
    view              TEXT NOT NULL,
    request_summary   TEXT NOT NULL,
    binding           TEXT NOT NULL,
    state             TEXT NOT NULL
        CHECK (state IN ('waiting', 'approved', 'rejected', 'void', 'sent')),
    requested_by      TEXT NOT NULL,
    requested_machine TEXT,
    requested_at      TEXT NOT NULL,
    decided_by        TEXT,
    decided_machine   TEXT,
    decided_at        TEXT,
    reason            TEXT,
    action_id         {id_ref} REFERENCES actions(id),
    CONSTRAINT approver_is_not_requester CHECK (decided_by IS NULL OR decided_by <> requested_by)
);
"""
_TEAM_SEARCHES = """
CREATE TABLE IF NOT EXISTS team_searches (
    name     TEXT PRIMARY KEY,
    query    TEXT NOT NULL,
    agent    TEXT,
    saved_at TEXT NOT NULL
);
"""

#: Presence (`paytui.actions.presence`), PostgreSQL only; UNLOGGED: a lease is no record,
#: and a crash forgets it anyway.
POSTGRES_PRESENCE = """
CREATE UNLOGGED TABLE IF NOT EXISTS presence (
    base_url TEXT NOT NULL,
    target   TEXT NOT NULL,
    owner    TEXT NOT NULL,
    agent    TEXT NOT NULL,
    machine  TEXT,
    doing    TEXT NOT NULL,
    amount   TEXT,
    since    TEXT NOT NULL,
    beat_at  TEXT NOT NULL,
    PRIMARY KEY (base_url, target, owner)
);
"""
_INDEXES = f"""
CREATE INDEX IF NOT EXISTS actions_state ON actions (state);
CREATE INDEX IF NOT EXISTS actions_target ON actions (profile, base_url, operation, charge_id);
CREATE INDEX IF NOT EXISTS actions_service ON actions (base_url, operation, charge_id);
CREATE INDEX IF NOT EXISTS actions_result ON actions (base_url, result_id);
CREATE INDEX IF NOT EXISTS actions_retry_of ON actions (retry_of);
CREATE INDEX IF NOT EXISTS actions_agent ON actions (agent);
CREATE INDEX IF NOT EXISTS trail_action ON trail (action_id);
CREATE UNIQUE INDEX IF NOT EXISTS actions_one_open ON actions (base_url, operation, guard_target)
    WHERE guard_target IS NOT NULL AND state IN ({_UNSETTLED_SQL});
"""


def _changed(columns: tuple[str, ...], distinct: str) -> str:
    return " OR ".join(f"NEW.{c} {distinct} OLD.{c}" for c in columns)


_FINAL_SQL = ", ".join(repr(s) for s in _FINAL)

# --- SQLite ---------------------------------------------------------------------------------------
SQLITE_TABLES = f"""
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,{_ACTIONS_COLUMNS.format(id_ref="INTEGER", real="REAL")});
CREATE TABLE IF NOT EXISTS refusals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,{_REFUSALS_COLUMNS});
CREATE TABLE IF NOT EXISTS trail ({_TRAIL_COLUMNS.format(id_ref="INTEGER")});
{_CLAIMS}{_TEAM_SEARCHES}{
    _APPROVALS.format(id_pk="INTEGER PRIMARY KEY AUTOINCREMENT", id_ref="INTEGER")
}"""
_SQLITE_RULES = f"""
CREATE TRIGGER IF NOT EXISTS trail_no_update BEFORE UPDATE ON trail
BEGIN SELECT RAISE(ABORT, 'the journal trail is append-only'); END;
CREATE TRIGGER IF NOT EXISTS trail_no_delete BEFORE DELETE ON trail
BEGIN SELECT RAISE(ABORT, 'the journal trail is append-only'); END;
CREATE TRIGGER IF NOT EXISTS refusals_no_update BEFORE UPDATE ON refusals
BEGIN SELECT RAISE(ABORT, 'refusals are append-only'); END;
CREATE TRIGGER IF NOT EXISTS refusals_no_delete BEFORE DELETE ON refusals
BEGIN SELECT RAISE(ABORT, 'refusals are append-only'); END;
CREATE TRIGGER IF NOT EXISTS actions_no_delete BEFORE DELETE ON actions
BEGIN SELECT RAISE(ABORT, 'journal entries are never deleted'); END;
CREATE TRIGGER IF NOT EXISTS actions_constrained BEFORE UPDATE ON actions
WHEN (OLD.state IN ({_FINAL_SQL}) AND NEW.state IS NOT OLD.state)
    OR {_changed(IMMUTABLE_COLUMNS, "IS NOT")}
BEGIN SELECT RAISE(ABORT, 'a journal entry''s intent and final state never change'); END;
"""

# --- PostgreSQL -----------------------------------------------------------------------------------
POSTGRES_TABLES = f"""
CREATE TABLE IF NOT EXISTS paytui_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS actions (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    {_ACTIONS_COLUMNS.format(id_ref="BIGINT", real="DOUBLE PRECISION")});
CREATE TABLE IF NOT EXISTS refusals (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,{_REFUSALS_COLUMNS});
CREATE TABLE IF NOT EXISTS trail ({_TRAIL_COLUMNS.format(id_ref="BIGINT")});
{_CLAIMS}{_TEAM_SEARCHES}{
    _APPROVALS.format(id_pk="BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", id_ref="BIGINT")
}"""
_POSTGRES_RULES = f"""
CREATE OR REPLACE FUNCTION paytui_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'paytui: % rows are append-only', TG_TABLE_NAME;
END $$;
CREATE OR REPLACE FUNCTION paytui_action_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (OLD.state IN ({_FINAL_SQL}) AND NEW.state IS DISTINCT FROM OLD.state)
        OR {_changed(IMMUTABLE_COLUMNS, "IS DISTINCT FROM")} THEN
        RAISE EXCEPTION 'paytui: a journal entry''s intent and final state never change';
    END IF;
    RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER trail_append_only BEFORE UPDATE OR DELETE ON trail
    FOR EACH ROW EXECUTE FUNCTION paytui_append_only();
CREATE OR REPLACE TRIGGER refusals_append_only BEFORE UPDATE OR DELETE ON refusals
    FOR EACH ROW EXECUTE FUNCTION paytui_append_only();
CREATE OR REPLACE TRIGGER actions_no_delete BEFORE DELETE ON actions
    FOR EACH ROW EXECUTE FUNCTION paytui_append_only();
CREATE OR REPLACE TRIGGER actions_constrained BEFORE UPDATE ON actions
    FOR EACH ROW EXECUTE FUNCTION paytui_action_update();
"""


def migrate(store: Store) -> None:
    """Create or bring the journal's schema up to `SCHEMA_VERSION` (refuses a newer one)."""
    if store.kind == "postgresql":
        _migrate_postgres(store)
    else:
        from paytui.actions.journal_store import SqliteStore

        assert isinstance(store, SqliteStore)
        _migrate_sqlite(store)


def _postgres_version(store: Store) -> int | None:
    """The schema's version, or None when a table of it is missing (to be created)."""
    present = " AND ".join(f"to_regclass('{t}') IS NOT NULL" for t in sorted(_TABLES))
    row = store.one(f"SELECT to_regclass('paytui_schema') IS NOT NULL AND {present} AS ready")
    if not (row and row["ready"]):
        return None
    row = store.one("SELECT max(version) AS version FROM paytui_schema")
    return int(row["version"]) if row and row["version"] is not None else 0


def _migrate_postgres(store: Store) -> None:
    """Create or update the schema, under an advisory lock, in one transaction (DDL is
    transactional: all of it or none). A journal already up to date is only read, so an
    agent's role needs no right to create anything (docs/team.md)."""
    version = _postgres_version(store)
    if version == SCHEMA_VERSION:
        _add_presence(store)
        return
    with store.transaction(lock_key(store.namespace, "schema")):
        store.script(POSTGRES_TABLES + POSTGRES_PRESENCE)
        row = store.one("SELECT max(version) AS version FROM paytui_schema")
        version = row["version"] if row and row["version"] is not None else 0
        if version > SCHEMA_VERSION:
            raise JournalUnavailable(
                f"the team journal {store.where} is of a newer paytui (schema {version});"
                " update paytui"
            )
        if version < SCHEMA_VERSION:
            # Schema 6: the state CHECK admits "awaiting_service" (replaced whole, in this
            # transaction; a table made just now already has it).
            store.script(
                "ALTER TABLE actions DROP CONSTRAINT IF EXISTS actions_state_check;"
                " ALTER TABLE actions ADD CONSTRAINT actions_state_check"
                f" CHECK (state IN ({_STATES_SQL}));"
            )
            # Schema 7: a claim's heartbeat (`beat_at`): it lives while its holder's paytui
            # renews it (docs/team.md, "Claims").
            store.script("ALTER TABLE claims ADD COLUMN IF NOT EXISTS beat_at TEXT;")
            # Schema 8: the approvals table (four eyes) is made by the script above.
            store.script(_INDEXES + _POSTGRES_RULES)
            store.run("DELETE FROM paytui_schema")
            store.run("INSERT INTO paytui_schema (version) VALUES (?)", (SCHEMA_VERSION,))


def _add_presence(store: Store) -> None:
    """A schema-6 journal made before presence: its table is added by whoever may (the owner);
    an agent's role may not, and presence is then simply absent (`PresenceBoard.available`)."""
    row = store.one("SELECT to_regclass('presence') IS NOT NULL AS there")
    if row and row["there"]:
        return
    try:
        with store.transaction(lock_key(store.namespace, "schema")):
            store.script(POSTGRES_PRESENCE)
    except Exception:  # no right to create tables: a courtesy missing, nothing more
        return


def agent_grants(role: str, schema: str = "public") -> str:
    """The rights an agents' role needs on a team journal in `schema`, and no more: read
    everything, add entries, refusals and trail links, move an entry's state (the triggers keep
    what it said and a final state), keep claims and the team's searches. No DELETE on history,
    no UPDATE of the trail or refusals, no right to create or change tables."""
    for name in (role, schema):
        if not name.replace("_", "").isalnum():
            raise ValueError("a role or schema name is letters, digits and '_'")
    on = f'"{schema}"'
    return f"""GRANT USAGE ON SCHEMA {on} TO {role};
GRANT SELECT ON ALL TABLES IN SCHEMA {on} TO {role};
GRANT INSERT, UPDATE ON {on}.actions TO {role};
GRANT INSERT ON {on}.refusals, {on}.trail TO {role};
GRANT INSERT, UPDATE, DELETE ON {on}.claims, {on}.team_searches, {on}.presence TO {role};
GRANT INSERT, UPDATE ON {on}.approvals TO {role};
GRANT USAGE ON ALL SEQUENCES IN SCHEMA {on} TO {role};
"""


# --- SQLite: files of every earlier paytui --------------------------------------------------------
#: Columns of schema 1, copied as they are by the rebuild.
_V1_COLUMNS = (
    "id, client_reference, profile, base_url, operation, charge_id, amount, request_summary,"
    " state, result_id, error, retry_of, created_at, sent_at, updated_at, resolved_at"
)
#: Columns of schema 2 (schema 3 has the same; its `operation` is no longer a SQL CHECK).
_V2_COLUMNS = _V1_COLUMNS + ", settle_seconds, checked_at, never_sent, unacknowledged"
#: Columns added in place since schema 2 (nullable): name, and the schema that added it.
_ADDED = {
    "actions": ("client_id", "actor", "owner", "agent", "machine", "guard_target"),
    "refusals": ("agent", "machine"),
    "claims": ("beat_at",),
}


def _migrate_sqlite(store: SqliteStore) -> None:
    """Bring the file to schema 8 (a crash in a rebuild leaves the old schema intact).

    Schema 1 lacks the proof columns and its CHECK does not admit "distribute"; schema 2's CHECK
    does not admit "update_refund". SQLite cannot alter a CHECK: the table is rebuilt and the rows
    copied. Schema 3 checks `operation` in Python, so a new operation needs no rebuild again.
    A schema-1 "not_applied" has no `checked_at`, so it counts as unproven and is read back
    again. Schema 4 keys rows by the service's canonical URL (`service_key`); schema 5 adds who
    (agent, machine), the guarded target, the trail and the append-only rules. Entries written
    before schema 5 have no trail rows (`verify` counts them as older than the trail). Schema 6
    admits the state "awaiting_service" (a rebuild again: the rows, ids and trail are kept).
    Schema 7 adds a claim's heartbeat (`claims.beat_at`, in place); schema 8 the `approvals`
    table (four eyes), created beside the others.
    """
    with store.lock:  # the process's one connection to the file: no statement in between
        db = store.connection
        if _sqlite_version(db) == (SCHEMA_VERSION, True):
            return
        # Decided again under the write lock: another process may be creating or migrating
        # the file this moment (two first starts), and what it did decides what is left to do.
        db.execute("PRAGMA foreign_keys = OFF")  # the rebuild renames a referenced table
        db.execute("BEGIN IMMEDIATE")
        try:
            _migrate_sqlite_locked(db)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.execute("PRAGMA foreign_keys = ON")


def _sqlite_version(db: sqlite3.Connection) -> tuple[int, bool]:
    """The file's ``user_version``, and whether every table of the schema is there."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return version, tables >= _TABLES


def _migrate_sqlite_locked(db: sqlite3.Connection) -> None:
    """`_migrate_sqlite`'s work, in the write transaction the caller holds."""
    version, complete = _sqlite_version(db)
    if version > SCHEMA_VERSION:
        raise RuntimeError(
            f"the action journal is of a newer paytui (schema {version}); update paytui"
        )
    if version == SCHEMA_VERSION and complete:
        return  # another first start did it while this one waited
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'actions'"
    ).fetchone()
    if exists and version < 3:  # schema 3 on adds columns in place (below)
        _rebuild(db, _V1_COLUMNS if version < 2 else _V2_COLUMNS)
    if exists:
        for table, columns in _ADDED.items():
            present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if not present:
                continue
            for column in columns:
                if column not in present:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
        if version < 4:
            _canonical_services(db)
        if not _admits_every_state(db):  # schema 6: a state added to the CHECK
            kept = [row[1] for row in db.execute("PRAGMA table_info(actions)")]
            _rebuild(db, ", ".join(kept))
    for statement in _statements(SQLITE_TABLES + _INDEXES + _SQLITE_RULES):
        db.execute(statement)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _statements(script: str) -> list[str]:
    """`script` one statement at a time (``executescript`` would commit the caller's
    transaction first); a trigger's body stays whole."""
    found: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                found.append(pending.strip())
            pending = ""
    if pending.strip(" \n;"):
        found.append(pending.strip())
    return found


def _admits_every_state(db: sqlite3.Connection) -> bool:
    """Does the file's `actions` CHECK admit every state of this paytui (`STATES`)?"""
    row = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'actions'"
    ).fetchone()
    return row is None or all(repr(state) in row[0] for state in STATES)


def _rebuild(db: sqlite3.Connection, columns: str) -> None:
    """Rebuild `actions` with today's columns (in the caller's transaction, foreign keys off)."""
    db.execute("ALTER TABLE actions RENAME TO actions_old")
    db.execute(
        "CREATE TABLE actions (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        + _ACTIONS_COLUMNS.format(id_ref="INTEGER", real="REAL")
        + ")"
    )
    db.execute(f"INSERT INTO actions ({columns}) SELECT {columns} FROM actions_old")
    db.execute("DROP TABLE actions_old")


def _canonical_services(db: sqlite3.Connection) -> None:
    """Schema 4 keys every row by the service's canonical URL (`service_key`): two spellings of
    one service (``127.0.0.1`` and ``localhost``) share one guard, and their past too."""
    from paytui.config.urls import service_key

    for table in ("actions", "refusals"):
        has = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        if not has:
            continue
        for (url,) in db.execute(f"SELECT DISTINCT base_url FROM {table}").fetchall():
            key = service_key(url)
            if key != url:
                db.execute(f"UPDATE {table} SET base_url = ? WHERE base_url = ?", (key, url))
