"""Where the action journal's rows live: one SQLite file (one person) or a PostgreSQL database
(a team). `Journal` speaks to a `Store` only, in one SQL written for both, so every rule of the
journal (the guard, the trail, the transitions) exists once and the same tests run on both.

What differs is kept here and nowhere else:

- placeholders (``?`` in the journal's SQL; ``%s`` for psycopg),
- how a writer gets the journal to itself while it checks and writes (`transaction`): SQLite's
  ``BEGIN IMMEDIATE`` locks the file; PostgreSQL takes transaction advisory locks on the keys the
  writer names (the guarded target, the trail's head), so writers of different charges do not
  wait for each other and the lock ends with the transaction, whatever happens to the agent,
- the larger of two values (``MAX(a, b)`` / ``GREATEST(a, b)``),
- whether a process holding an entry "in flight" is still alive (`sender_alive`): on PostgreSQL a
  session advisory lock taken when the intent is written and released when it settles, so a
  sender that dies (its machine, its network) lets go at once; SQLite answers None and the
  executor's own check (host and pid) decides.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "DuplicateIntent",
    "FileCheck",
    "JournalUnavailable",
    "Listener",
    "PostgresStore",
    "SelfApproval",
    "SqliteFile",
    "SqliteStore",
    "Store",
    "advisory_ids",
    "check_sqlite",
    "close_sqlite",
    "first_line",
    "lock_key",
    "mask_url",
    "open_sqlite",
    "sender_key",
    "split_from",
]

Row = Mapping[str, Any]


class DuplicateIntent(Exception):
    """The database refused a second unsettled intent on one target (its unique index)."""


class SelfApproval(Exception):
    """The database refused an approver who is the requester (its CHECK
    ``approver_is_not_requester``: four eyes, `paytui.actions.journal_approvals`)."""


class JournalUnavailable(Exception):
    """The journal cannot be reached or written (one line meant for the user, password masked)."""


def lock_key(*parts: object) -> int:
    """A signed 64-bit advisory-lock key for `parts` (PostgreSQL's lock space is one bigint)."""
    text = "\x1f".join("" if part is None else str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big", signed=True)


def sender_key(namespace: str, entry_id: int) -> int:
    """The advisory-lock key that marks entry `entry_id` of the journal in `namespace` in flight:
    held by its sender's session while the request is out (`PostgresStore.hold`)."""
    return lock_key(namespace, "sender", entry_id)


def advisory_ids(key: int) -> tuple[int, int]:
    """A bigint advisory-lock key as `pg_locks` shows it: (classid, objid), its high and low
    32 bits, unsigned (with `objsubid` 1)."""
    unsigned = key & 0xFFFFFFFFFFFFFFFF
    return unsigned >> 32, unsigned & 0xFFFFFFFF


def mask_url(url: str) -> str:
    """`url` with any password replaced by ``***`` (for status lines and errors)."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    user, colon, _password = credentials.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}@{host}"


class Store(Protocol):
    """The journal's database: statements in the journal's SQL (``?`` placeholders)."""

    #: "sqlite" or "postgresql": the schema module picks its DDL by it.
    kind: str
    #: The scalar "larger of two" function's name.
    greatest: str
    #: Where it is, for people (a path, or a URL with its password masked).
    where: str
    #: What advisory-lock keys are made in (one database's schema: two journals on one
    #: server never share a lock).
    namespace: str

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Execute a write; the number of rows it changed."""
        ...

    def script(self, sql: str) -> None: ...

    def transaction(self, *keys: int) -> Any:
        """A context manager: one transaction, the journal to itself for `keys` (advisory
        locks on PostgreSQL; the whole file on SQLite)."""
        ...

    def hold(self, key: int) -> None:
        """Keep `key` for this process until `release` (or until the process dies)."""
        ...

    def release(self, key: int) -> None: ...

    def sender_alive(self, key: int) -> bool | None:
        """Does another live session `hold` `key`? None: this store cannot tell."""
        ...

    def notify(self) -> None:
        """Tell every listener on this journal that it changed (at commit, on PostgreSQL)."""
        ...

    def listener(self) -> Listener:
        """A way to wait for another writer's change (`Listener.wait`)."""
        ...

    def close(self) -> None: ...


class Listener:
    """Waits for a change of the journal: this base polls (a file has no notifications); the
    PostgreSQL one is woken by ``NOTIFY``. `close` wakes a waiter at once."""

    def __init__(self, poll_seconds: float) -> None:
        self.poll_seconds = poll_seconds
        self._closed = threading.Event()
        #: The payloads of the notifications received since `heard` was last asked (a trail
        #: write sends none; `paytui.actions.presence` sends ``presence``).
        self._heard: set[str] = set()

    def heard(self) -> set[str]:
        """The notifications' payloads received since the last call (and forget them)."""
        heard, self._heard = self._heard, set()
        return heard

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def wait(self, timeout: float) -> None:
        """Return after a change may have happened, `timeout` at the latest (or on `close`)."""
        self._closed.wait(min(timeout, self.poll_seconds))

    def pause(self, seconds: float) -> None:
        """Wait `seconds` whatever is notified (woken only by `close`)."""
        self._closed.wait(seconds)

    def close(self) -> None:
        self._closed.set()


class _PostgresListener(Listener):
    """``LISTEN`` on a connection of its own; a notification ends the wait at once."""

    def __init__(self, store: PostgresStore, channel: str) -> None:
        super().__init__(poll_seconds=1.0)  # how soon `close` is noticed
        import psycopg

        self._db = psycopg.connect(store.url, **store.connect_options())
        self._db.execute(f'LISTEN "{channel}"'.encode())

    def wait(self, timeout: float) -> None:
        import psycopg

        if self.closed:
            return
        try:
            for note in self._db.notifies(timeout=min(timeout, self.poll_seconds), stop_after=1):
                self._heard.add(note.payload)
        except psycopg.Error:
            self._closed.wait(min(timeout, self.poll_seconds))  # a lost connection: poll

    def close(self) -> None:
        super().close()
        with contextlib.suppress(Exception):
            self._db.close()


class SqliteFile:
    """This process's one connection to one SQLite file (`open_sqlite`): shared by every journal
    object, batch log and store that opens the file, under one lock (`lock`), and closed when the
    last of them closes it.

    Why one: on POSIX, closing *any* descriptor of a file drops *every* lock the process holds
    on it (SQLite's "How to corrupt your database files", section 2.2). A second descriptor
    opened and closed beside a live connection leaves that connection without its locks: another
    process then finds itself alone, checkpoints and deletes the WAL this one still has open,
    and the journal splits in two. One connection per file per process, and no descriptor of
    the file opened beside it, rules that out."""

    def __init__(self, key: tuple[int, int], path: Path, db: sqlite3.Connection) -> None:
        self.key = key
        self.path = path
        self.db = db
        #: Every statement and transaction on `db`, whoever makes it (re-entrant: a transaction
        #: runs its statements under it).
        self.lock = threading.RLock()
        self.users = 0

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception): the file to
        this process's writer while it checks and writes."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")


#: The SQLite files this process has open, by (device, inode): however a path is spelt (a
#: symlink, a relative path), one file is one connection.
_OPEN_FILES: dict[tuple[int, int], SqliteFile] = {}
_OPEN_FILES_LOCK = threading.Lock()
#: How long an opener waits for another process's first start to make the file WAL.
_WAL_SWITCH_SECONDS = 10.0


def _forget_open_files() -> None:
    """A forked child starts with no connection of its own (a connection never crosses a
    fork; the child holds none of the parent's locks anyway)."""
    global _OPEN_FILES_LOCK
    _OPEN_FILES_LOCK = threading.Lock()
    _OPEN_FILES.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_open_files)


def open_sqlite(path: Path) -> SqliteFile:
    """This process's connection to the SQLite file `path` (created 0600 in a 0700 directory
    when missing): WAL, ``synchronous=FULL``, foreign keys on, rows as `sqlite3.Row`,
    autocommit (a transaction is `SqliteFile.transaction`). Every call must be matched by one
    `close_sqlite`."""
    with _OPEN_FILES_LOCK:
        _create_private_file(path)
        status = os.stat(path)
        key = (status.st_dev, status.st_ino)
        shared = _OPEN_FILES.get(key)
        if shared is None:
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
            try:
                db.row_factory = sqlite3.Row
                _use_wal(db)
                # FULL: the WAL is fsynced at every commit, so "written" means "on disk".
                db.execute("PRAGMA synchronous = FULL")
                db.execute("PRAGMA foreign_keys = ON")
            except BaseException:
                db.close()
                raise
            shared = _OPEN_FILES[key] = SqliteFile(key, path, db)
        shared.users += 1
        return shared


def close_sqlite(shared: SqliteFile) -> None:
    """One user of `shared` is done; the last one closes the connection."""
    with _OPEN_FILES_LOCK:
        shared.users -= 1
        if shared.users > 0:
            return
        if _OPEN_FILES.get(shared.key) is shared:
            del _OPEN_FILES[shared.key]
    with shared.lock:
        shared.db.close()


@dataclass(frozen=True)
class FileCheck:
    """What `check_sqlite` found of one SQLite file (`paytui journal status`)."""

    integrity: tuple[str, ...]
    """SQLite's ``PRAGMA quick_check``: ``("ok",)`` when the file is whole, else its first
    problems (or the error that stopped the check: "database disk image is malformed")."""
    journal_mode: str
    """"wal" for a journal paytui made."""
    wal_bytes: int | None
    """The size of the WAL beside the file (written, not yet copied into it); None: none."""
    split: tuple[str, ...]
    """One line per process of this machine holding a WAL, shared-memory file or database file
    of this journal that is no longer the one at its name (deleted or replaced beside it): what
    that process writes since is not in the file. Empty when none (or when /proc cannot tell)."""

    @property
    def whole(self) -> bool:
        return self.integrity == ("ok",)


def check_sqlite(store: SqliteStore, *, processes: str = "/proc") -> FileCheck:
    """SQLite's integrity check of the file and its WAL, and the processes of this machine that
    split from it (this one included). Reads only: no checkpoint, no descriptor of the file."""
    with store.lock:
        db = store.connection
        try:
            found = [str(row[0]) for row in db.execute("PRAGMA quick_check(20)").fetchall()]
        except sqlite3.DatabaseError as exc:
            found = [first_line(exc)]
        try:
            mode = str(db.execute("PRAGMA journal_mode").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            mode = f"unknown ({first_line(exc)})"
    wal = Path(f"{store.path}-wal")
    try:
        wal_bytes: int | None = wal.stat().st_size
    except FileNotFoundError:
        wal_bytes = None
    return FileCheck(
        integrity=tuple(found) or ("ok",),
        journal_mode=mode,
        wal_bytes=wal_bytes,
        split=tuple(split_from(store.path, processes=processes)),
    )


def split_from(path: Path, *, processes: str = "/proc") -> list[str]:
    """The processes of this machine (the ones this user may look at) that hold open a file of
    the SQLite journal `path` (the database, its -wal or -shm) that is no longer the file at
    that name: deleted, or replaced by another process's. Each is one line for people.

    Found in ``/proc/PID/fd`` (Linux): each descriptor is compared, by device and inode, with
    the file now at its name. Stat only: no descriptor of the journal is opened here (its
    closing would drop this process's locks)."""
    base = Path(os.path.realpath(path))
    names = {str(base): "journal", f"{base}-wal": "WAL", f"{base}-shm": "shared memory"}
    now: dict[str, tuple[int, int] | None] = {}
    for name in names:
        try:
            status = os.stat(name)
            now[name] = (status.st_dev, status.st_ino)
        except FileNotFoundError:
            now[name] = None
    found: list[str] = []
    root = Path(processes)
    try:
        pids = sorted(int(entry) for entry in os.listdir(root) if entry.isdigit())
    except OSError:
        return found  # no /proc here: this check cannot tell
    for pid in pids:
        fds = root / str(pid) / "fd"
        try:
            listed = os.listdir(fds)
        except OSError:
            continue  # gone, or another user's
        stale: dict[str, str] = {}
        for fd in listed:
            try:
                target = os.readlink(fds / fd).removesuffix(" (deleted)")
                if target not in names:
                    continue
                status = os.stat(fds / fd)  # the open file itself (the link is followed)
            except OSError:
                continue
            if now[target] != (status.st_dev, status.st_ino):
                stale[names[target]] = str(fds / fd)
        if stale:
            which = " and ".join(f"{kind} ({where})" for kind, where in sorted(stale.items()))
            mine = " (this paytui)" if pid == os.getpid() else ""
            found.append(
                f"process {pid}{mine} has open a {which} of this journal that is no longer"
                " the file's (deleted or replaced beside it): what it writes is not in the"
                " journal"
            )
    return found


def _use_wal(db: sqlite3.Connection) -> None:
    """Put the file in WAL mode (a no-op when it is already).

    Two first starts at once (two processes creating the journal) race for the switch: SQLite
    answers the loser's ``PRAGMA journal_mode`` "database is locked" at once, without waiting
    its busy timeout (the switch upgrades a read to a write, which SQLite never waits for, to
    avoid a deadlock). The loser asks again until the winner is done."""
    import time

    deadline = time.monotonic() + _WAL_SWITCH_SECONDS
    delay = 0.005
    while True:
        try:
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
            continue
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"{mode} journal mode where WAL was asked for")
        return


class SqliteStore:
    """One SQLite file, WAL, ``synchronous=FULL`` (a commit is on disk when it returns), 0600;
    on this process's one connection to it (`open_sqlite`)."""

    kind = "sqlite"
    greatest = "MAX"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self.namespace = str(path)
        self._file: SqliteFile | None = open_sqlite(path)
        self._lock = self._file.lock

    @property
    def _db(self) -> sqlite3.Connection:
        if self._file is None:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        return self._file.db

    @property
    def lock(self) -> threading.RLock:
        """The lock of the file's connection (held by every statement on it)."""
        return self._lock

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection (schema migrations and checks; under `lock`)."""
        return self._db

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._lock:
            try:
                return list(self._db.execute(sql, tuple(params)).fetchall())
            except sqlite3.IntegrityError as exc:
                if "guard_target" in str(exc):
                    raise DuplicateIntent(str(exc)) from None
                if "approver_is_not_requester" in str(exc):
                    raise SelfApproval(str(exc)) from None
                raise

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        with self._lock:
            row: Row | None = self._db.execute(sql, tuple(params)).fetchone()
            return row

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._lock:
            return self._db.execute(sql, tuple(params)).rowcount

    def script(self, sql: str) -> None:
        with self._lock:
            self._db.executescript(sql)

    @contextmanager
    def transaction(self, *keys: int) -> Iterator[SqliteStore]:
        del keys  # the whole file is locked: every writer waits for the one before it
        if self._file is None:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        with self._file.transaction():
            yield self

    def hold(self, key: int) -> None:
        del key

    def release(self, key: int) -> None:
        del key

    def sender_alive(self, key: int) -> bool | None:
        del key
        return None

    def notify(self) -> None:
        return None  # listeners poll the trail

    def listener(self) -> Listener:
        return Listener(poll_seconds=2.0)

    def close(self) -> None:
        shared, self._file = self._file, None
        if shared is not None:
            close_sqlite(shared)


class PostgresStore:
    """A PostgreSQL database (psycopg 3): one connection per process, used under a lock.

    Why one connection and not a pool: the journal's statements are short and a person's actions
    are serial; one connection per agent keeps 200 agents at 200 connections, and the session
    advisory locks that mark an entry in flight live on it (they end with it). A broken
    connection is opened again at the next statement (its locks are gone: entries it was sending
    are then read back like any orphan, after their settle time)."""

    kind = "postgresql"
    greatest = "GREATEST"

    def __init__(self, url: str, *, password: str | None = None, connect_timeout: float = 5.0):
        self.url = url
        self.where = mask_url(url)
        self._password = password
        self._timeout = connect_timeout
        self._lock = threading.RLock()
        self._held: set[int] = set()
        self._db: psycopg.Connection[Any] | None = None
        self._in_transaction = False
        self._connect()
        row = self.one("SELECT current_database() AS db, current_schema() AS schema")
        self.namespace = f"{row['db']}/{row['schema']}" if row else url

    def connect_options(self) -> dict[str, Any]:
        """What every connection of this store is opened with (the password never in a URL)."""
        from psycopg.rows import dict_row

        kwargs: dict[str, Any] = {
            "autocommit": True,
            "row_factory": dict_row,
            "connect_timeout": max(1, int(self._timeout)),
            "application_name": "paytui",
        }
        if self._password is not None:
            kwargs["password"] = self._password
        return kwargs

    def _connect(self) -> psycopg.Connection[Any]:
        import psycopg

        try:
            self._db = psycopg.connect(self.url, **self.connect_options())
        except psycopg.Error as exc:
            raise JournalUnavailable(
                f"the team journal {self.where} cannot be reached ({first_line(exc)})"
            ) from None
        self._held.clear()
        return self._db

    def _conn(self) -> psycopg.Connection[Any]:
        db = self._db
        if db is None or db.closed or db.broken:
            return self._connect()
        return db

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s")

    def _execute(self, sql: str, params: Sequence[Any] | None) -> Any:
        """`params` None: `sql` is sent as it is (DDL with ``$$`` bodies: no placeholders)."""
        import psycopg

        with self._lock:
            try:
                if params is None:
                    return self._conn().execute(sql.encode())
                return self._conn().execute(self._sql(sql), tuple(params))
            except psycopg.errors.UniqueViolation as exc:
                if "actions_one_open" in str(exc):
                    raise DuplicateIntent(str(exc)) from None
                raise
            except psycopg.errors.CheckViolation as exc:
                if "approver_is_not_requester" in str(exc):
                    raise SelfApproval(first_line(exc)) from None
                raise
            except psycopg.OperationalError as exc:
                if self._db is not None and self._db.broken and not self._in_transaction:
                    self._db = None  # opened again by the next statement
                raise JournalUnavailable(
                    f"the team journal {self.where} failed ({first_line(exc)})"
                ) from None

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._lock:
            return list(self._execute(sql, params).fetchall())

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        with self._lock:
            row: Row | None = self._execute(sql, params).fetchone()
            return row

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._lock:
            count: int = self._execute(sql, params).rowcount
            return count

    def script(self, sql: str) -> None:
        with self._lock:
            self._execute(sql, None)

    @contextmanager
    def transaction(self, *keys: int) -> Iterator[PostgresStore]:
        with self._lock:
            conn = self._conn()
            self._execute("BEGIN", ())
            self._in_transaction = True
            try:
                for key in sorted(set(keys)):  # one order for everyone: no deadlock
                    self._execute("SELECT pg_advisory_xact_lock(?)", (key,))
                yield self
            except BaseException:
                self._in_transaction = False
                if not conn.broken:
                    conn.execute("ROLLBACK")
                raise
            self._in_transaction = False
            self._execute("COMMIT", ())

    def hold(self, key: int) -> None:
        with self._lock:
            if key not in self._held:
                self._execute("SELECT pg_advisory_lock(?)", (key,))
                self._held.add(key)

    def release(self, key: int) -> None:
        with self._lock:
            if key in self._held:
                self._held.discard(key)
                self._execute("SELECT pg_advisory_unlock(?)", (key,))

    def sender_alive(self, key: int) -> bool | None:
        """Held by another session? Asked of the server's lock table (our own session's locks
        would be re-entered by a try-lock, and would say "free")."""
        with self._lock:
            if key in self._held:
                return True
            row = self.one(
                "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND objsubid = 1 AND classid::bigint = ? AND objid::bigint = ?"
                " AND pid <> pg_backend_pid()",
                advisory_ids(key),
            )
            return bool(row and row["n"])

    @property
    def channel(self) -> str:
        """The ``NOTIFY`` channel of this journal (one per database schema)."""
        return f"paytui_{lock_key(self.namespace) & 0xFFFFFFFF:08x}"

    def notify(self) -> None:
        self.run("SELECT pg_notify(?, '')", (self.channel,))

    def listener(self) -> Listener:
        try:
            return _PostgresListener(self, self.channel)
        except Exception as exc:
            raise JournalUnavailable(
                f"the team journal {self.where} cannot be listened to ({first_line(exc)})"
            ) from None

    def close(self) -> None:
        with self._lock:
            if self._db is not None and not self._db.closed:
                if self._held and not self._db.broken:
                    # Let go now, not when the server notices the socket closed: a colleague
                    # asking the moment after must see this paytui's claims and sends gone.
                    with contextlib.suppress(Exception):
                        self._db.execute(b"SELECT pg_advisory_unlock_all()")
                self._db.close()
            self._db = None
            self._held.clear()


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _create_private_file(path: Path) -> None:
    """Create `path` as 0600 (and its directory as 0700) before SQLite opens it, when it is
    missing; an existing file is never opened here.

    Creating it ourselves, rather than chmod-ing after SQLite did, leaves no moment in which the
    file exists with the umask's (often world-readable) mode. ``O_EXCL``: the descriptor opened
    and closed here is only ever one of a file this call created, which no connection of this
    process can have open yet (closing a descriptor of a file drops all of this process's locks
    on it: see `SqliteFile`). SQLite gives the WAL and shared-memory files the mode of this one.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    except FileExistsError:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)  # by its name: no descriptor of it is opened
        return
    os.close(fd)


def placeholders(values: Iterable[object]) -> str:
    """``?, ?, ?`` for `values` (``NULL`` for none, so ``IN (NULL)`` matches nothing)."""
    return ", ".join("?" for _ in values) or "NULL"
