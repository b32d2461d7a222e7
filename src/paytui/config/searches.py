"""Saved searches and the remembered theme: small edits of `config.toml` that keep its comments.

A saved search is a name and the query text as typed (the one query language, `paytui.search`),
kept in the config's ``[searches]`` table so it can be read, edited and shared like the rest of
the file. Every change goes through `read_raw` / `write_raw` (tomlkit, atomic, 0600): the user's
comments and layout stay as they were. No Textual.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomlkit
from tomlkit.items import Table

from paytui.config.store import ConfigError, load_config, read_raw, write_raw

__all__ = [
    "SEARCH_NAME_RE",
    "check_search_name",
    "delete_search",
    "remember_theme",
    "rename_search",
    "save_search",
    "saved_searches",
]

#: Letters, digits, spaces, '.', '_', '-'; starting with a letter or digit; up to 40.
SEARCH_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}$")


def check_search_name(name: str) -> str:
    """The name, trimmed; `ConfigError` with one line when it cannot be a name."""
    trimmed = name.strip()
    if not SEARCH_NAME_RE.match(trimmed):
        raise ConfigError(
            "A name is 1-40 letters, digits, spaces, '.', '_' or '-', starting with a letter"
            " or digit"
        )
    return trimmed


def saved_searches(path: Path | str | None = None) -> dict[str, str]:
    """name -> query, in the file's order (a broken file has none)."""
    return dict(load_config(path).config.searches)


def _table(path: Path | str | None, key: str = "searches") -> tuple[tomlkit.TOMLDocument, Table]:
    """The file (for writing back) and its table `key`, made when missing."""
    raw = read_raw(path)
    if key not in raw:
        raw[key] = tomlkit.table()
    table = raw[key]
    if not isinstance(table, Table):
        raise ConfigError(f"the config file's {key!r} is not a table; fix it first")
    return raw, table


def save_search(name: str, query: str, path: Path | str | None = None) -> str:
    """Add (or replace) the search `name`; returns the name as saved."""
    trimmed = check_search_name(name)
    raw, table = _table(path)
    table[trimmed] = query
    write_raw(raw, path)
    return trimmed


def rename_search(old: str, new: str, path: Path | str | None = None) -> str:
    """Rename a saved search (its query kept); refuses to overwrite another one."""
    trimmed = check_search_name(new)
    raw, table = _table(path)
    if old not in table:
        raise ConfigError(f"No saved search named {old!r}")
    if trimmed != old and trimmed in table:
        raise ConfigError(f"A saved search named {trimmed!r} exists already")
    query = table[old]
    del table[old]
    table[trimmed] = query
    write_raw(raw, path)
    return trimmed


def delete_search(name: str, path: Path | str | None = None) -> bool:
    """Remove a saved search; False when there was none of that name."""
    raw, table = _table(path)
    if name not in table:
        return False
    del table[name]
    write_raw(raw, path)
    return True


def remember_theme(theme: str, path: Path | str | None = None) -> None:
    """Write ``[ui] theme`` (the theme picker's choice), leaving the rest of the file alone."""
    raw, ui = _table(path, "ui")
    ui["theme"] = theme
    write_raw(raw, path)
