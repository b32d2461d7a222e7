"""`paytui history verify` and `paytui journal status|migrate|password`: the journal itself, a
team's or this person's (`paytui.actions.journal`), not the service: none of them connects to it.

- `history verify` walks the trail (`Journal.verify`): exit 0 when it holds, `Exit.UNPROVEN` with
  the first broken link in one line when it does not.
- `journal status` says where the journal is (a password masked), its engine and schema, who has
  written to it, and who this session writes as; and whether it is whole: SQLite's integrity
  check and WAL (a file journal), the processes of this machine split from it, the trail.
  `Exit.UNPROVEN`, with one line saying what is wrong and where recovery is described, when not.
- `journal migrate --from sqlite:PATH` copies a person's own file into the connection's journal
  once (`Journal.import_from`): a second run copies nothing again.
- `journal password` stores the team journal's password in the secret store; typed at a prompt
  without echo or read from stdin, never an argument.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from paytui.commands.runtime import CommandError, Exit, Runtime
from paytui.config.model import IMPLICIT_PROFILE
from paytui.exporter import Column, write_listing, write_record

if TYPE_CHECKING:
    from paytui.actions.journal import Journal, TrailReport
    from paytui.commands.handlers import Handler

__all__ = ["JOURNAL_HANDLERS", "history_verify"]


def _key(name: str) -> Column:
    def read(row: dict[str, Any]) -> Any:
        return row.get(name)

    return Column(name, read)


def _columns(*names: str, times: tuple[str, ...] = ()) -> dict[str, Column]:
    table = {name: _key(name) for name in names}
    for name in times:
        table[name] = Column(name, table[name].read, "time")
    return table


_VERIFY_COLUMNS = _columns("journal", "ok", "links", "entries", "older", "broken")
_STATUS_COLUMNS = _columns(
    "journal",
    "engine",
    "schema",
    "password",
    "agent",
    "machine",
    "agents",
    "integrity",
    "wal",
    "split",
    "trail",
)
#: Where a damaged or split journal's recovery is described.
_RECOVERY = "docs/money-safety.md, 'When the journal is split or damaged'"
_AGENT_COLUMNS = _columns(
    "agent", "machine", "entries", "refusals", "last_seen", times=("last_seen",)
)
#: The listing's name for rows that name no one (written before paytui recorded who acted).
_NO_ONE = "(no one named)"
_MIGRATE_COLUMNS = _columns(
    "source", "journal", "copied", "entries", "refusals", "present", "unsettled", "anonymous"
)


def _open(runtime: Runtime) -> Journal:
    """The connection's journal, or one line saying why not (exit 3)."""
    return runtime.journal(off=None)


def _write_json(runtime: Runtime, record: dict[str, Any]) -> None:
    from paytui.api.errors import redact_data
    from paytui.text import escaped

    text = json.dumps(redact_data(record), ensure_ascii=False, indent=2)
    runtime.io.out.write(escaped(text, keep_lines=True) + "\n")


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# --------------------------------------------------------------------------------------------
# history verify
# --------------------------------------------------------------------------------------------


async def history_verify(runtime: Runtime, args: argparse.Namespace) -> int:
    """Walk the trail from its first link; exit 0 when it holds, 11 (not proven) at the first
    broken link, said in one line."""
    if len(args.check) > 1:
        raise CommandError("history verify takes no entries (it walks the whole trail)")
    fmt = args.format or "table"
    if fmt not in {"table", "json"}:
        raise CommandError("history verify: --format table or json", Exit.USAGE)
    journal = _open(runtime)
    report = _verified(journal)
    if fmt == "json":
        _write_json(runtime, _verify_record(journal, report))
    elif report.ok:
        runtime.io.out.write(_holds(journal, report) + "\n")
    if report.ok:
        return Exit.OK
    runtime.io.error(
        f"the trail of {journal.where} is broken: {report.broken}"
        f" ({_plural(report.links, 'link')} checked)",
        Exit.UNPROVEN,
    )
    return Exit.UNPROVEN


def _verified(journal: Journal) -> TrailReport:
    from paytui.actions.journal import JournalUnavailable
    from paytui.actions.journal_anchor import Anchor

    try:
        return journal.verify(anchor=Anchor())
    except JournalUnavailable as exc:
        raise CommandError(str(exc), Exit.CONFIG) from None


def _verify_record(journal: Journal, report: TrailReport) -> dict[str, Any]:
    return {
        "journal": journal.where,
        "ok": report.ok,
        "links": report.links,
        "entries": report.entries,
        "older": report.older,
        "broken": report.broken,
        "anchored": report.anchored.seq if report.anchored is not None else None,
    }


def _holds(journal: Journal, report: TrailReport) -> str:
    text = (
        f"The trail of {journal.where} holds: {_plural(report.links, 'link')} checked,"
        f" {_plural(report.entries, 'entry and refusal', 'entries and refusals')} match it"
    )
    if report.anchored is not None:
        text += f"; the head this machine saw before (link {report.anchored.seq}) is in it"
    else:
        text += "; no head seen before on this machine (recorded now)"
    if report.older:
        text += (
            f"; {_plural(report.older, 'entry', 'entries')} older than the trail"
            " (written by an earlier paytui) not covered"
        )
    return text + "."


# --------------------------------------------------------------------------------------------
# journal status
# --------------------------------------------------------------------------------------------


async def journal_status(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.actions.actor import default_agent, machine_name
    from paytui.actions.journal import JournalUnavailable

    journal = _open(runtime)
    connection = runtime.connection
    unreadable: str | None = None
    try:
        schema = journal.schema_version()
        health = _health(journal)
        try:
            seen = journal.agents()
        except JournalUnavailable:
            raise
        except Exception as exc:  # a damaged file: its health above says so, and where
            from paytui.actions.journal_store import first_line

            seen, unreadable = [], first_line(exc)
    except JournalUnavailable as exc:
        raise CommandError(str(exc), Exit.CONFIG) from None
    agents: list[dict[str, Any]] = [
        {
            "agent": who.agent,
            "machine": who.machine,
            "entries": who.entries,
            "refusals": who.refusals,
            "last_seen": who.last_seen,
        }
        for who in seen
    ]
    password = None
    if journal.kind == "postgresql":
        password = (
            "stored (paytui journal password)"
            if connection.journal_password is not None
            else "from PGPASSFILE or PGPASSWORD, if any"
        )
    record: dict[str, Any] = {
        "journal": journal.where,
        "engine": journal.kind,
        "schema": schema,
        "password": password,
        "agent": connection.agent or default_agent(),
        "machine": machine_name(),
    }
    problems: list[str] = health.pop("problems")
    if args.format == "json":
        listed = [{**row, "last_seen": _iso(row["last_seen"])} for row in agents]
        found = None if unreadable else listed
        _write_json(runtime, {**record, "agents": found, **health, "problems": problems})
    else:
        record["agents"] = f"unreadable ({unreadable})" if unreadable else _agents_cell(agents)
        if journal.kind != "postgresql":
            del record["password"]
        record.update(_health_words(health))
        table = {key: column for key, column in _STATUS_COLUMNS.items() if key in record}
        write_record(runtime.io.out, record, "table", table)
        if agents:
            runtime.io.out.write("\n")
            listed = [{**row, "agent": row["agent"] or _NO_ONE} for row in agents]
            write_listing(runtime.io.out, listed, "table", _AGENT_COLUMNS)
    if not problems:
        return Exit.OK
    recover = (
        "Stop every paytui on this machine before anything else, and recover as described in"
        f" {_RECOVERY}; do not repeat an action the journal no longer shows: read the service."
    )
    if runtime.io.fmt in ("json", "jsonl"):  # one error object: the problems, then the way
        said = "; ".join(f"the journal {journal.where}: {problem}" for problem in problems)
        runtime.io.error(f"{said}. {recover}", Exit.UNPROVEN)
        return Exit.UNPROVEN
    for problem in problems:
        runtime.io.error(f"the journal {journal.where}: {problem}", Exit.UNPROVEN)
    runtime.io.message(recover)
    return Exit.UNPROVEN


def _agents_cell(agents: list[dict[str, Any]]) -> str:
    """How many agents wrote to the journal (by their entries and refusals), and how many rows
    name no one: "2", "1 (and 13 entries and refusals that name no one)"."""
    named = sum(1 for row in agents if row["agent"] is not None)
    anonymous = sum(row["entries"] + row["refusals"] for row in agents if row["agent"] is None)
    if not anonymous:
        return str(named)
    rows = _plural(anonymous, "entry or refusal", "entries and refusals")
    return f"{named} (and {rows} that name no one: written before paytui recorded who)"


def _health(journal: Journal) -> dict[str, Any]:
    """Is the journal whole? SQLite's integrity check and WAL (a file), the processes of this
    machine split from it, and the trail; `problems`: one plain line for each thing wrong."""
    problems: list[str] = []
    found: dict[str, Any] = {}
    checked = journal.check_file()
    if checked is not None:
        found["integrity"] = list(checked.integrity)
        found["journal_mode"] = checked.journal_mode
        found["wal_bytes"] = checked.wal_bytes
        found["split"] = list(checked.split)
        if not checked.whole:
            problems.append(
                "damaged: SQLite's integrity check says " + "; ".join(checked.integrity[:3])
            )
        if checked.journal_mode != "wal":
            problems.append(f"not in WAL mode ({checked.journal_mode}): not a journal paytui made")
        problems.extend(f"split: {line}" for line in checked.split)
    from paytui.actions.journal_anchor import Anchor

    try:
        trail = journal.verify(anchor=Anchor())
    except Exception as exc:  # a damaged file may fail the walk itself
        from paytui.actions.journal_store import first_line

        found["trail"] = {"ok": False, "broken": first_line(exc)}
        problems.append(f"the trail cannot be read ({first_line(exc)})")
    else:
        found["trail"] = {"ok": trail.ok, "links": trail.links, "broken": trail.broken}
        if not trail.ok:
            problems.append(f"the trail is broken: {trail.broken}")
    found["problems"] = problems
    return found


def _health_words(health: dict[str, Any]) -> dict[str, str]:
    """`_health`'s findings as the table's cells."""
    words: dict[str, str] = {}
    if "integrity" in health:
        integrity = health["integrity"]
        words["integrity"] = "ok" if integrity == ["ok"] else f"DAMAGED: {integrity[0]}"
        size = health["wal_bytes"]
        mode = health["journal_mode"]
        wal = "no -wal file" if size is None else f"its -wal file: {size} bytes"
        words["wal"] = f"{mode} ({wal})" if mode == "wal" else f"{mode} (not WAL)"
        split = _plural(len(health["split"]), "process", "processes")
        words["split"] = f"SPLIT: {split}" if health["split"] else "no"
    trail = health["trail"]
    links = _plural(trail.get("links", 0), "link")
    words["trail"] = f"holds ({links})" if trail["ok"] else f"BROKEN: {trail['broken']}"
    return words


# --------------------------------------------------------------------------------------------
# journal migrate
# --------------------------------------------------------------------------------------------


def _source(text: str) -> Path:
    """`--from`: ``sqlite:PATH`` or a path, of a file that exists."""
    from paytui.actions.journal import is_team_url

    if is_team_url(text):
        raise CommandError(
            "journal migrate: --from takes a SQLite file (sqlite:PATH or a path), the history"
            " to copy into this connection's journal",
            Exit.USAGE,
        )
    path = Path(text.removeprefix("sqlite:")).expanduser()
    if not path.exists():
        raise CommandError(f"journal migrate: --from {path}: no such file", Exit.USAGE)
    if not path.is_file():
        raise CommandError(f"journal migrate: --from {path}: not a file", Exit.USAGE)
    return path


async def journal_migrate(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.actions.journal import JournalUnavailable, open_journal
    from paytui.config.model import check_agent_name

    path = _source(args.source)
    try:
        agent = check_agent_name(args.agent)
    except ValueError as exc:
        raise CommandError(f"journal migrate: --agent: {exc}", Exit.USAGE) from None
    target = _open(runtime)
    if target.kind == "sqlite" and path.resolve() == Path(target.path).resolve():
        raise CommandError(
            f"journal migrate: --from {path} is this connection's journal itself; point the"
            " profile's `journal` (or PAYTUI_JOURNAL_URL) at the team's journal first",
            Exit.USAGE,
        )
    try:
        source = open_journal(path)
    except JournalUnavailable as exc:
        raise CommandError(str(exc), Exit.CONFIG) from None
    with source:
        if source.same_as(target):
            raise CommandError(
                f"journal migrate: --from {path} is this connection's journal itself",
                Exit.USAGE,
            )
        trail = source.verify()
        if not trail.ok:
            raise CommandError(
                f"journal migrate: the trail of {source.where} is broken ({trail.broken}):"
                " nothing copied (`paytui history verify` names the first broken link)",
                Exit.UNPROVEN,
            )
        try:
            done = target.import_from(source, agent=agent)
        except JournalUnavailable as exc:
            raise CommandError(
                f"{exc}; what was copied before stays (a second run copies the rest)",
                Exit.CONFIG,
            ) from None
    record = {
        "source": str(path),
        "journal": target.where,
        "copied": done.copied,
        "entries": done.entries,
        "refusals": done.refusals,
        "present": done.present,
        "unsettled": done.unsettled,
        "anonymous": done.anonymous,
    }
    if args.format == "json":
        _write_json(runtime, record)
    else:
        runtime.io.out.write(
            f"{done.copied} copied ({_plural(done.entries, 'entry', 'entries')},"
            f" {_plural(done.refusals, 'refusal')}), {done.present} already there:"
            f" {path} -> {target.where}\n"
        )
    if done.unsettled:
        runtime.io.message(
            f"{_plural(done.unsettled, 'entry', 'entries')} copied with no settled outcome"
            " (pending, sent or unknown): read back with the service like any other"
            " (`paytui history check`); do not repeat them"
        )
    if done.anonymous:
        runtime.io.message(
            f"{_plural(done.anonymous, 'row')} copied without an agent (written before paytui"
            " recorded who acted); --agent NAME names who made them on a first run"
        )
    return Exit.OK


# --------------------------------------------------------------------------------------------
# journal password
# --------------------------------------------------------------------------------------------


def _read_password(runtime: Runtime, name: str) -> str:
    """From a no-echo prompt at a terminal, else one line of stdin. Never an argument."""
    io = runtime.io
    if io.interactive:
        import getpass

        try:
            text = getpass.getpass(
                f"Team journal password for profile {name!r} (not shown): ",
                stream=cast("TextIO", io.err),
            )
        except EOFError:
            text = ""
    else:
        text = io.inp.readline()
        if not text:
            raise CommandError(
                "no password on stdin (pipe it in, or run at a terminal to be asked)",
                Exit.USAGE,
            )
    if not text.strip():
        raise CommandError("the password is empty", Exit.USAGE)
    return text.strip()


def _profile_for_password(runtime: Runtime) -> tuple[str, str | None]:
    """The profile the password is for, chosen as a connection chooses it (--profile,
    PAYTUI_PROFILE, the default profile, the sandbox), and where its journal is. Nothing else
    of the profile is needed (its service's credentials may not be stored yet)."""
    import os

    from paytui.config.environment import ENV_JOURNAL_URL, ENV_PROFILE
    from paytui.config.store import load_config

    env = runtime.environ if runtime.environ is not None else os.environ
    loaded = load_config()
    for problem in loaded.problems:
        runtime.io.message(f"paytui: warning: {problem}")
    name = runtime.profile or env.get(ENV_PROFILE) or loaded.config.default_profile
    name = name or IMPLICIT_PROFILE
    profile = loaded.config.get_profile(name)
    if profile is None:
        known = ", ".join(loaded.config.profile_names()) or "none yet"
        raise CommandError(
            f"journal password: no profile {name!r} (profiles: {known}; `paytui profile add`)",
            Exit.CONFIG,
        )
    return name, env.get(ENV_JOURNAL_URL) or profile.journal


async def journal_password(runtime: Runtime, args: argparse.Namespace) -> int:
    from pydantic import SecretStr

    from paytui.actions.journal import is_team_url
    from paytui.config.files import secrets_path
    from paytui.config.secrets import store_secret
    from paytui.logs import register_secret

    name, journal = _profile_for_password(runtime)
    password = _read_password(runtime, name)
    register_secret(password)
    stored = store_secret(name, "journal_password", SecretStr(password))
    del password
    where = "the system keyring" if stored == "keyring" else f"{secrets_path()} (mode 0600)"
    runtime.io.message(f"The team journal's password for profile {name!r} is stored in {where}.")
    if not is_team_url(journal):
        runtime.io.message(
            f"paytui: warning: profile {name!r} has no team journal yet (its `journal` or"
            " PAYTUI_JOURNAL_URL, a postgresql:// URL): the password is used once it has"
        )
    return Exit.OK


JOURNAL_HANDLERS: dict[str, Handler] = {
    "journal status": journal_status,
    "journal migrate": journal_migrate,
    "journal password": journal_password,
}
