"""Reading and writing `config.toml`.

`load_config` never raises: the app must start even on a broken file, so every mistake becomes a
`ConfigProblem` (file, line, message) for the UI to show, and the part it affects falls back to a
default (a broken profile is left out; a broken file as a whole means the embedded sandbox).

Writes go through the raw TOML table, not the validated model, so `paytui profile add` never drops
a profile the user is half-way through editing; they are refused only when the file is not TOML
at all (rewriting it would lose the user's text).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from paytui.config.files import (
    UnreadableFileError,
    atomic_write_text,
    config_path,
    loads_toml,
    read_small_text,
)
from paytui.config.model import (
    IMPLICIT_PROFILE,
    PROFILE_NAME_RE,
    SECRET_KEYS,
    Config,
    EvidencePrefs,
    Profile,
    PulsePrefs,
    TodayPrefs,
    UiPrefs,
    UserCommand,
)

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

TOP_LEVEL_KEYS = (
    "default_profile",
    "ui",
    "today",
    "pulse",
    "evidence",
    "keymap",
    "searches",
    "commands",
    "profiles",
)

M = TypeVar("M", bound=BaseModel)


class ConfigError(Exception):
    """A configuration mistake that stops an operation; `str()` is one line meant for the user."""


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong with the configuration, located as precisely as paytui can."""

    file: Path | None
    line: int | None
    message: str

    def __str__(self) -> str:
        if self.file is None:
            return self.message
        where = f"{self.file}:{self.line}" if self.line is not None else str(self.file)
        return f"{where}: {self.message}"


@dataclass
class LoadResult:
    """What `load_config` found: the usable configuration and everything wrong with the file."""

    config: Config
    problems: list[ConfigProblem] = field(default_factory=list)
    path: Path | None = None
    exists: bool = False
    parsed: bool = True
    """False when the file is not valid TOML (then nothing of it was used)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @classmethod
    def absent(cls, file: Path | None) -> LoadResult:
        """No config file: every default, nothing validated (no validator built)."""
        return cls(Config.model_construct(), path=file, exists=False)


# --------------------------------------------------------------------------- loading


def load_config(path: Path | str | None = None) -> LoadResult:
    """Read and validate the config file; never raises.

    A missing file is not a problem (a fresh machine runs on the sandbox). Anything else that is
    wrong yields problems naming the file and line.
    """
    file = Path(path) if path is not None else config_path()
    try:
        text = read_small_text(file)
        raw = loads_toml(text, file)
    except FileNotFoundError:
        return LoadResult.absent(file)
    except UnreadableFileError as exc:
        reason = str(exc).removeprefix(f"{file}: ")
        return _unusable(file, None, f"{reason}; starting on the embedded sandbox")
    except tomllib.TOMLDecodeError as exc:
        line, message = _toml_error_position(exc)
        return _unusable(file, line, f"{message}; starting on the embedded sandbox")
    try:
        return _validate_raw(raw, text, file)
    except RecursionError:
        return _unusable(file, None, "nested too deeply; starting on the embedded sandbox")


def _unusable(file: Path, line: int | None, message: str) -> LoadResult:
    problem = ConfigProblem(file, line, message)
    return LoadResult(Config.model_construct(), [problem], path=file, exists=True, parsed=False)


def _toml_error_position(exc: tomllib.TOMLDecodeError) -> tuple[int | None, str]:
    """tomllib (3.11-3.13) puts the position only into the message text: take it out of there."""
    message = str(exc)
    lineno = getattr(exc, "lineno", None)
    match = re.search(r"\s*\(at line (\d+), column (\d+)\)", message)
    if match:
        lineno = lineno or int(match.group(1))
        column = int(match.group(2))
        message = message[: match.start()] + message[match.end() :]
        message = f"invalid TOML: {message} (column {column})"
    else:
        message = f"invalid TOML: {message.replace(' (at end of document)', ' at end of file')}"
    return lineno, message


def _validate_raw(raw: dict[str, Any], text: str, file: Path) -> LoadResult:
    locate = _LineFinder(text)
    problems: list[ConfigProblem] = []

    def report(loc: tuple[str, ...], message: str) -> None:
        problems.append(ConfigProblem(file, locate(loc), message))

    for key in raw:
        if key in SECRET_KEYS:
            report((key,), _secret_key_message(key))
        elif key not in TOP_LEVEL_KEYS:
            report((key,), f"unknown setting {key!r} (ignored)")

    default_profile = raw.get("default_profile")
    if default_profile is not None and not isinstance(default_profile, str):
        report(("default_profile",), "default_profile must be a profile name (a string)")
        default_profile = None

    ui = _preferences(UiPrefs, raw, "ui", report)
    today = _preferences(TodayPrefs, raw, "today", report)
    pulse = _preferences(PulsePrefs, raw, "pulse", report)
    evidence = _preferences(EvidencePrefs, raw, "evidence", report)

    keymap: dict[str, str] = {}
    raw_keymap = raw.get("keymap", {})
    if not isinstance(raw_keymap, dict):
        report(("keymap",), 'keymap must be a table of binding id = "key" (ignored)')
    else:
        for binding, key in raw_keymap.items():
            if isinstance(key, str) and key.strip():
                keymap[binding] = key.strip()
            else:
                message = f'keymap.{binding} must be a key name such as "ctrl+r" (ignored)'
                report(("keymap", binding), message)

    searches: dict[str, str] = {}
    raw_searches = raw.get("searches", {})
    if not isinstance(raw_searches, dict):
        report(("searches",), 'searches must be a table of name = "query" (ignored)')
    else:
        for name, query in raw_searches.items():
            if isinstance(query, str):
                searches[str(name)] = query
            else:
                report(("searches", name), f"searches.{name} must be a query (a string; ignored)")

    commands = _validate_commands(raw.get("commands", []), text, file, problems)

    profiles: dict[str, Profile] = {}
    raw_profiles = raw.get("profiles", {})
    if not isinstance(raw_profiles, dict):
        report(("profiles",), "profiles must be tables: [profiles.NAME] (ignored)")
        raw_profiles = {}
    for name, table in raw_profiles.items():
        loc = ("profiles", name)
        if not PROFILE_NAME_RE.match(name):
            report(loc, f"invalid profile name {name!r}: use letters, digits, '.', '_' or '-'")
            continue
        if not isinstance(table, dict):
            report(loc, f"profiles.{name} must be a table: [profiles.{name}] (ignored)")
            continue
        profile = _validate_section(Profile, table, loc, report, drop_bad_fields=False)
        if profile is None:
            report(loc, f"profile {name!r} is ignored until this is fixed")
        else:
            profiles[name] = profile

    if default_profile is not None and default_profile not in profiles:
        if default_profile in raw_profiles:
            report(
                ("default_profile",),
                f"the default profile {default_profile!r} has errors; "
                "starting on the embedded sandbox",
            )
            default_profile = None
        elif default_profile != IMPLICIT_PROFILE:
            report(
                ("default_profile",),
                f"default_profile {default_profile!r} is not a profile in this file; "
                "starting on the embedded sandbox",
            )
            default_profile = None

    # Every part was validated above, table by table (a broken one reported and left out):
    # the whole is put together without validating it again (`Config`'s validator, which holds
    # every table's, is then never built).
    config = Config.model_construct(
        default_profile=default_profile,
        ui=ui,
        today=today,
        pulse=pulse,
        evidence=evidence,
        keymap=keymap,
        searches=searches,
        commands=commands,
        profiles=profiles,
    )
    return LoadResult(config, problems, path=file, exists=True, parsed=True)


_COMMANDS_HEADER = re.compile(r"^\s*\[\[\s*commands\s*\]\]\s*(#.*)?$")


def _validate_commands(
    raw: object, text: str, file: Path, problems: list[ConfigProblem]
) -> tuple[UserCommand, ...]:
    """`[[commands]]`: each table validated on its own; a broken one is left out with one line
    per mistake at its `[[commands]]` line (the others still work), a second of a name too."""
    if not isinstance(raw, list):
        problems.append(ConfigProblem(file, _LineFinder(text)(("commands",)), _COMMANDS_SHAPE))
        return ()
    headers = [n for n, line in enumerate(text.splitlines(), 1) if _COMMANDS_HEADER.match(line)]
    found: list[UserCommand] = []
    for index, table in enumerate(raw):
        line = headers[index] if index < len(headers) else None
        name = table.get("name") if isinstance(table, dict) else None
        label = f"commands[{index + 1}]" + (f" ({name!r})" if isinstance(name, str) else "")
        said: list[str] = []

        def report(loc: tuple[str, ...], message: str, said: list[str] = said) -> None:
            said.append(message)

        unknown = (
            [k for k in table if k not in UserCommand.model_fields]
            if isinstance(table, dict)
            else []
        )
        # A key misspelt (`confirm_first`) would run it without what the person meant: the
        # command is left out, not run without it.
        for key in unknown:
            known = ", ".join(UserCommand.model_fields)
            said.append(f"{label}.{key}: unknown setting (known: {known})")
        command = (
            None
            if unknown
            else _validate_section(UserCommand, table, (label,), report, drop_bad_fields=False)
        )
        for message in said:
            problems.append(ConfigProblem(file, line, message))
        if command is None:
            problems.append(ConfigProblem(file, line, f"{label} is left out until this is fixed"))
        elif any(other.name == command.name for other in found):
            problems.append(
                ConfigProblem(
                    file, line, f"{label}: a second command named {command.name!r} (left out)"
                )
            )
        else:
            found.append(command)
    return tuple(found)


_COMMANDS_SHAPE = "commands must be tables: [[commands]] with name and run (ignored)"


def _preferences(
    model: type[M], raw: Mapping[str, Any], key: str, report: Callable[[tuple[str, ...], str], None]
) -> M:
    """A table of preferences (`[ui]`, `[today]`...): its defaults when the file has none (no
    validator built for what is not there), else validated, a bad value dropped to its default."""
    if key not in raw:
        return model.model_construct()
    found = _validate_section(model, raw[key], (key,), report, drop_bad_fields=True)
    return found if found is not None else model.model_construct()


def _validate_section(
    model: type[M],
    data: object,
    loc: tuple[str, ...],
    report: Callable[[tuple[str, ...], str], None],
    *,
    drop_bad_fields: bool,
) -> M | None:
    """Validate one table, reporting each error at its own key.

    Unknown keys are reported and ignored (a typo should not cost a whole profile). Wrong values
    either drop just that key (`drop_bad_fields`, for preferences that have defaults) or the whole
    table (for profiles: a profile with its base_url or environment dropped would connect somewhere
    the user did not ask for).
    """
    if not isinstance(data, dict):
        report(loc, f"{'.'.join(loc)} must be a table (ignored)")
        return None
    values = dict(data)
    for key in list(values):
        if key in SECRET_KEYS:
            report((*loc, key), _secret_key_message(key))
            del values[key]
    for _ in range(len(values) + 1):
        try:
            return model.model_validate(values)
        except ValidationError as exc:
            fatal = False
            for error in exc.errors():
                err_loc = tuple(str(part) for part in error["loc"])
                key = err_loc[0] if err_loc else None
                if error["type"] == "extra_forbidden" and len(err_loc) > 1:
                    # A typo inside a nested table costs that key only, not the whole table.
                    report((*loc, *err_loc), _describe_error(loc, err_loc, error, model))
                    values = _without(values, err_loc)
                    continue
                report((*loc, *err_loc[:1]), _describe_error(loc, err_loc, error))
                if error["type"] == "extra_forbidden" or drop_bad_fields:
                    if key is not None:
                        values.pop(key, None)
                    else:
                        fatal = True
                else:
                    fatal = True
            if fatal:
                return None
    return None


def _without(values: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """`values` without the key at `path` (the tables along it copied, never changed)."""
    head, *rest = path
    inner = values.get(head)
    if not rest:
        return {k: v for k, v in values.items() if k != head}
    if not isinstance(inner, dict):
        return values
    return {**values, head: _without(inner, tuple(rest))}


def _known_keys(model: type[BaseModel], table: tuple[str, ...]) -> list[str]:
    """The keys a nested table of `model` takes (`parameters` -> status, tag, ...)."""
    for part in table:
        field = model.model_fields.get(part)
        inner = field.annotation if field is not None else None
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            return []
        model = inner
    return list(model.model_fields)


def _describe_error(
    loc: tuple[str, ...],
    err_loc: tuple[str, ...],
    error: Mapping[str, Any],
    model: type[BaseModel] | None = None,
) -> str:
    dotted = ".".join((*loc, *err_loc))
    if error["type"] == "extra_forbidden":
        known = _known_keys(model, err_loc[:-1]) if model is not None else []
        if known:
            return f"unknown setting {dotted!r} (ignored; known here: {', '.join(known)})"
        return f"unknown setting {dotted!r} (ignored)"
    message = str(error["msg"]).removeprefix("Value error, ")
    if err_loc:
        shown = repr(error.get("input"))
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return f"{dotted}: {message} (got {shown})"
    return f"{dotted}: {message}"


def _secret_key_message(key: str) -> str:
    return (
        f"{key!r} is not read from config.toml: secrets never go in this file. Use "
        "`paytui profile add` (system keyring or secrets.toml) or name an environment variable "
        "with client_secret_env / token_env"
    )


class _LineFinder:
    """Find the line of a dotted key in TOML text, without a full TOML parser.

    It understands table headers (`[profiles."prod"]`), dotted and quoted keys, and skips the
    inside of multi-line strings; when the exact key is not found (an inline table, say) it
    answers the line of the closest enclosing table or key, which is still the right place to look.
    """

    _HEADER = re.compile(r"^\s*\[\[?\s*(?P<key>[^\[\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEYPART = r"(?:[A-Za-z0-9_-]+|\"(?:[^\"\\]|\\.)*\"|'[^']*')"
    _ASSIGN = re.compile(rf"^\s*(?P<key>{_KEYPART}(?:\s*\.\s*{_KEYPART})*)\s*=")

    def __init__(self, text: str) -> None:
        self._entries: list[tuple[tuple[str, ...], int]] = []
        table: tuple[str, ...] = ()
        in_multiline: str | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if in_multiline is not None:
                if line.count(in_multiline) % 2 == 1:
                    in_multiline = None
                continue
            header = self._HEADER.match(line)
            if header:
                table = _split_key(header.group("key"))
                self._entries.append((table, number))
            else:
                assign = self._ASSIGN.match(line)
                if assign:
                    self._entries.append(((*table, *_split_key(assign.group("key"))), number))
            for quote in ('"""', "'''"):
                if line.count(quote) % 2 == 1:
                    in_multiline = quote
                    break

    def __call__(self, loc: Iterable[str]) -> int | None:
        wanted = tuple(loc)
        best_len, best_line = 0, None
        for path, number in self._entries:
            if path == wanted:
                return number
            common = 0
            for a, b in zip(path, wanted, strict=False):
                if a != b:
                    break
                common += 1
            if common == len(path) and common > best_len:
                best_len, best_line = common, number
        return best_line


def _split_key(key: str) -> tuple[str, ...]:
    parts: list[str] = []
    for match in re.finditer(r"\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|([A-Za-z0-9_-]+)", key):
        if match.group(1) is not None:
            parts.append(match.group(1).encode().decode("unicode_escape"))
        elif match.group(2) is not None:
            parts.append(match.group(2))
        else:
            parts.append(match.group(3))
    return tuple(parts)


# --------------------------------------------------------------------------- writing


_HEADER = "paytui configuration. Secrets never go here: see `paytui profile add`."


def read_raw(path: Path | str | None = None) -> TOMLDocument:
    """The file's TOML for editing, comments and layout kept (tomlkit); a new one when missing.

    Raises `ConfigError` when the file is not TOML: rewriting it would throw the user's text away.
    tomlkit is imported here, by the writers only: reading the config (start-up) needs tomllib.
    """
    import tomlkit

    file = Path(path) if path is not None else config_path()
    try:
        text = read_small_text(file)
    except FileNotFoundError:
        document = tomlkit.document()
        document.add(tomlkit.comment(_HEADER))
        document.add(tomlkit.nl())
        return document
    except UnreadableFileError as exc:
        raise ConfigError(str(exc)) from None
    try:
        loads_toml(text, file)  # the reader the app uses decides, and its errors say where
    except UnreadableFileError as exc:
        raise ConfigError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        line, message = _toml_error_position(exc)
        where = f"{file}:{line}" if line else str(file)
        raise ConfigError(f"{where}: {message}; fix it before changing profiles") from None
    return tomlkit.parse(text)


def write_raw(raw: TOMLDocument, path: Path | str | None = None) -> Path:
    """Write `raw` (from `read_raw`, so the user's comments are kept) atomically, mode 0600."""
    import tomlkit

    file = Path(path) if path is not None else config_path()
    atomic_write_text(file, tomlkit.dumps(raw))
    return file


def save_profile(name: str, profile: Profile, path: Path | str | None = None) -> Path:
    """Add or replace one profile, leaving everything else in the file as it is."""
    import tomlkit

    raw = read_raw(path)
    if "profiles" not in raw:
        raw["profiles"] = tomlkit.table(is_super_table=True)
    profiles = raw["profiles"]
    if not isinstance(profiles, dict):
        raise ConfigError("the config file's 'profiles' is not a table; fix it first")
    profiles[name] = profile.to_toml()
    return write_raw(raw, path)


def update_profile(name: str, changes: Mapping[str, Any], path: Path | str | None = None) -> Path:
    """Set keys of one profile in place (None removes one; a mapping, such as `parameters`, is
    merged key by key), leaving its comments, its other keys and the rest of the file as they
    are. Refused (`ConfigError`) when the file has no such profile or the result would not be a
    valid profile."""
    import tomlkit

    raw = read_raw(path)
    profiles = raw.get("profiles")
    table = profiles.get(name) if isinstance(profiles, dict) else None
    if not isinstance(table, dict):
        raise ConfigError(f"no profile {name!r} in {Path(path) if path else config_path()}")

    def merge(into: Any, values: Mapping[str, Any]) -> None:
        for key, value in values.items():
            existing = into.get(key)
            if isinstance(value, Mapping) and isinstance(existing, dict):
                merge(existing, value)
                if not existing:
                    del into[key]
            elif isinstance(value, Mapping):  # a new table, `[profiles.NAME.parameters]`
                table = tomlkit.table()
                merge(table, value)
                if table:
                    table.add(tomlkit.nl())
                    into[key] = table
            elif value is None:
                into.pop(key, None)
            else:
                into[key] = value

    merge(table, changes)
    plain = table.unwrap() if hasattr(table, "unwrap") else dict(table)
    try:  # keys it does not know were reported when it was read: not this change's business
        Profile.model_validate({k: v for k, v in plain.items() if k in Profile.model_fields})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"profiles.{name}.{where}: {message}; nothing written") from None
    return write_raw(raw, path)


def remove_profile(name: str, path: Path | str | None = None) -> bool:
    """Remove a profile (and unset default_profile if it named it). False if there was none."""
    raw = read_raw(path)
    profiles = raw.get("profiles")
    if not isinstance(profiles, dict) or name not in profiles:
        return False
    del profiles[name]
    if raw.get("default_profile") == name:
        del raw["default_profile"]
    write_raw(raw, path)
    return True


def set_default_profile(name: str | None, path: Path | str | None = None) -> Path:
    """Set (or with None, clear) `default_profile`."""
    raw = read_raw(path)
    if name is None:
        raw.pop("default_profile", None)
    else:
        raw["default_profile"] = name
    return write_raw(raw, path)
