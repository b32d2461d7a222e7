"""Where profile secrets (OAuth client secrets, static bearer tokens) live.

The system keyring is preferred where one answers. Keyring back-ends can hang (a D-Bus secret
service that never replies) or be the "fail" back-end on a headless box, so every keyring call
runs in a daemon thread with a short timeout and any error, timeout or null back-end means
"no keyring" for the rest of the process (one 2 s wait, not one per lookup).

Without a keyring, secrets go to `secrets.toml` next to the config, mode 0600. A secrets file that
other users can read or write is refused rather than used: it may already have leaked, and
silently tightening it would hide that.

Secrets are returned as `SecretStr` so a stray repr or log line cannot show them.
"""

from __future__ import annotations

import os
import queue
import stat
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar, cast

from pydantic import SecretStr

from paytui.config.files import (
    UnreadableFileError,
    atomic_write_text,
    loads_toml,
    read_small_text,
    secrets_path,
)

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

SecretKind = Literal["client_secret", "token", "journal_password"]
StoreName = Literal["keyring", "file"]

KEYRING_SERVICE = "paytui"
KEYRING_TIMEOUT = 2.0

T = TypeVar("T")


class SecretStoreError(Exception):
    """A secret could not be stored or read; `str()` is one line meant for the user."""


class InsecureSecretsFileError(SecretStoreError):
    """The secrets file is readable or writable by other users (or owned by someone else)."""


class _NoKeyring(Exception):
    """Internal: the keyring did not answer usefully."""


# --------------------------------------------------------------------------- keyring

_keyring_dead = False  # set once a keyring call timed out: never wait for it again


def _reset_keyring_state() -> None:
    """Forget a previous keyring timeout (tests)."""
    global _keyring_dead
    _keyring_dead = False


def _keyring_call(action: Callable[[KeyringBackend], T], timeout: float | None = None) -> T:
    """Run `action(backend)` in a daemon thread; raise `_NoKeyring` on any failure or timeout.

    A daemon thread (not a ThreadPoolExecutor, whose workers are joined at exit) so a hung
    keyring can never keep paytui from exiting.
    """
    global _keyring_dead
    if _keyring_dead:
        raise _NoKeyring("the keyring timed out earlier")
    limit = KEYRING_TIMEOUT if timeout is None else timeout
    answer: queue.Queue[tuple[bool, object]] = queue.Queue(maxsize=1)

    def run() -> None:
        try:
            import keyring
            import keyring.backends.fail
            import keyring.backends.null

            backend = keyring.get_keyring()
            if isinstance(backend, keyring.backends.fail.Keyring | keyring.backends.null.Keyring):
                raise _NoKeyring("no keyring back-end")
            priority = getattr(type(backend), "priority", 1)
            if isinstance(priority, int | float) and priority <= 0:
                raise _NoKeyring("no usable keyring back-end")
            answer.put((True, action(backend)))
        except BaseException as exc:  # any keyring failure means "no keyring"
            answer.put((False, exc))

    thread = threading.Thread(target=run, name="paytui-keyring", daemon=True)
    thread.start()
    try:
        ok, value = answer.get(timeout=limit)
    except queue.Empty:
        _keyring_dead = True
        raise _NoKeyring("the keyring did not answer in time") from None
    if not ok:
        raise _NoKeyring(str(value))
    return cast(T, value)  # the thread put `action`'s own result when `ok`


def _username(profile: str, kind: SecretKind) -> str:
    return f"{profile}:{kind}"


def keyring_available() -> bool:
    """True when a real keyring back-end answers within the timeout."""
    try:
        _keyring_call(lambda backend: None)
    except _NoKeyring:
        return False
    return True


def _keyring_get(profile: str, kind: SecretKind) -> str | None:
    try:
        return _keyring_call(lambda kr: kr.get_password(KEYRING_SERVICE, _username(profile, kind)))
    except _NoKeyring:
        return None


def _keyring_set(profile: str, kind: SecretKind, value: str) -> bool:
    try:
        _keyring_call(lambda kr: kr.set_password(KEYRING_SERVICE, _username(profile, kind), value))
    except _NoKeyring:
        return False
    return True


def _keyring_delete(profile: str, kind: SecretKind) -> bool:
    def delete(kr: KeyringBackend) -> bool:
        if kr.get_password(KEYRING_SERVICE, _username(profile, kind)) is None:
            return False
        kr.delete_password(KEYRING_SERVICE, _username(profile, kind))
        return True

    try:
        return _keyring_call(delete)
    except _NoKeyring:
        return False


# --------------------------------------------------------------------------- secrets file


def check_secrets_file(path: Path) -> None:
    """Refuse a secrets file that others can read or write, or that another user owns."""
    if os.name != "posix":
        return
    info = path.stat()
    if info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        raise InsecureSecretsFileError(
            f"{path} is readable or writable by other users (mode {mode:04o}); paytui will not "
            f"use it. Run `chmod 600 {path}` and consider rotating the secrets in it"
        )
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise InsecureSecretsFileError(f"{path} belongs to another user; paytui will not use it")


def _read_file(path: Path) -> dict[str, dict[str, str]]:
    try:
        check_secrets_file(path)
        data = loads_toml(read_small_text(path), path)
    except FileNotFoundError:
        return {}
    except UnreadableFileError as exc:
        raise SecretStoreError(str(exc)) from None
    except OSError as exc:
        raise SecretStoreError(f"{path} cannot be read ({exc.__class__.__name__})") from None
    except tomllib.TOMLDecodeError:
        # The decode error can quote the offending text: a secret. Say only where.
        raise SecretStoreError(f"{path} is not valid TOML; fix or remove it") from None
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise SecretStoreError(f"{path} is not a paytui secrets file")
    return {
        name: {k: v for k, v in table.items() if isinstance(v, str)}
        for name, table in profiles.items()
        if isinstance(table, dict)
    }


def _write_file(path: Path, profiles: dict[str, dict[str, str]]) -> None:
    import tomlkit  # writers only: reading secrets (start-up) needs tomllib

    header = "# paytui secrets: keep this file mode 0600 and out of backups you share.\n\n"
    body = tomlkit.dumps({"profiles": {k: v for k, v in profiles.items() if v}})
    atomic_write_text(path, header + body)


def _file_get(profile: str, kind: SecretKind, path: Path) -> str | None:
    return _read_file(path).get(profile, {}).get(kind)


def _file_set(profile: str, kind: SecretKind, value: str, path: Path) -> None:
    profiles = _read_file(path)
    profiles.setdefault(profile, {})[kind] = value
    _write_file(path, profiles)


def _file_delete(profile: str, kind: SecretKind, path: Path) -> bool:
    if not path.exists():
        return False
    profiles = _read_file(path)
    if kind not in profiles.get(profile, {}):
        return False
    del profiles[profile][kind]
    _write_file(path, profiles)
    return True


# --------------------------------------------------------------------------- public API


def _order(hint: StoreName | None) -> tuple[StoreName, ...]:
    return ("file", "keyring") if hint == "file" else ("keyring", "file")


def store_secret(
    profile: str,
    kind: SecretKind,
    value: SecretStr | str,
    *,
    prefer: StoreName = "keyring",
    path: Path | None = None,
) -> StoreName:
    """Store a profile's secret; returns where it went ("keyring" or "file").

    With `prefer="keyring"` the file is used only when no keyring answers. Any copy left in the
    other store is removed so an old secret cannot shadow the new one.
    """
    secret = value.get_secret_value() if isinstance(value, SecretStr) else value
    if not secret:
        raise SecretStoreError("the secret is empty")
    file = path or secrets_path()
    if prefer == "keyring" and _keyring_set(profile, kind, secret):
        if file.exists():
            _file_delete(profile, kind, file)
        return "keyring"
    _file_set(profile, kind, secret, file)
    if prefer == "file":
        _keyring_delete(profile, kind)
    return "file"


def get_secret(
    profile: str, kind: SecretKind, *, hint: StoreName | None = None, path: Path | None = None
) -> SecretStr | None:
    """The stored secret, looking first where `hint` says it was put; None when absent.

    Raises `InsecureSecretsFileError` / `SecretStoreError` when the secrets file must be read
    and cannot be trusted: failing loudly beats silently connecting without credentials.
    """
    file = path or secrets_path()
    for store in _order(hint):
        if store == "keyring":
            value = _keyring_get(profile, kind)
        elif file.exists():
            value = _file_get(profile, kind, file)
        else:
            value = None
        if value:
            return SecretStr(value)
    return None


def secret_location(
    profile: str, kind: SecretKind, *, hint: StoreName | None = None, path: Path | None = None
) -> StoreName | None:
    """Where the secret currently is ("keyring", "file") or None, without returning it."""
    file = path or secrets_path()
    for store in _order(hint):
        if store == "keyring" and _keyring_get(profile, kind):
            return "keyring"
        if store == "file" and file.exists() and _file_get(profile, kind, file):
            return "file"
    return None


def delete_secret(
    profile: str, kind: SecretKind | None = None, *, path: Path | None = None
) -> list[StoreName]:
    """Delete a profile's secret(s) (both kinds when `kind` is None) from both stores.

    Returns the stores something was deleted from.
    """
    file = path or secrets_path()
    kinds: tuple[SecretKind, ...] = (
        (kind,) if kind else ("client_secret", "token", "journal_password")
    )
    removed: list[StoreName] = []
    for each in kinds:
        if _keyring_delete(profile, each) and "keyring" not in removed:
            removed.append("keyring")
        if _file_delete(profile, each, file) and "file" not in removed:
            removed.append("file")
    return removed
