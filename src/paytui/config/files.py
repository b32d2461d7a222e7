"""Where paytui keeps its files, and the one way it writes them.

Every file this package writes (config.toml, secrets.toml) may hold something sensitive or
something the user edited by hand, so writes are atomic and private: a temporary file in the same
directory, flushed and fsync'd, then `os.replace`d over the target. A crash at any point leaves
either the old file or the new one, never half of either.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import platformdirs

from paytui.replacing import refuse_unless_regular, replace_regular

APP_NAME = "paytui"
CONFIG_FILENAME = "config.toml"
SECRETS_FILENAME = "secrets.toml"

#: Permission bits for every file paytui writes: readable and writable by the owner only.
PRIVATE_FILE_MODE = 0o600
#: Permission bits for directories paytui creates.
PRIVATE_DIR_MODE = 0o700


#: No config or secrets file is larger than this; a bigger one is refused, not read.
MAX_FILE_BYTES = 1 << 20


class UnreadableFileError(Exception):
    """A config or secrets file paytui will not read; `str()` is one line naming the file."""


def read_small_text(path: Path) -> str:
    """The text of a small regular file, read safely whatever sits at `path`.

    Refused with `UnreadableFileError` (one line, the file named): anything that is not a regular
    file (a symlink to /dev/zero or a FIFO would be read until memory runs out or forever), a file
    above `MAX_FILE_BYTES`, bytes that are not UTF-8. `FileNotFoundError` passes through.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise UnreadableFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a directory, /dev/zero, a FIFO...
        os.close(fd)
        raise UnreadableFileError(f"{path}: not a regular file; paytui will not read it")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise UnreadableFileError(f"{path}: larger than {MAX_FILE_BYTES // 1024} KiB; refused")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UnreadableFileError(f"{path}: not UTF-8 text") from None


def loads_toml(text: str, path: Path) -> dict[str, Any]:
    """`tomllib.loads`, with nesting too deep to read (a `RecursionError`) refused in one line
    naming the file; `tomllib.TOMLDecodeError` passes through for the caller to locate."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise UnreadableFileError(f"{path}: nested too deeply; refused") from None


def config_dir() -> Path:
    """The platformdirs config directory (re-read each call so tests can move XDG_CONFIG_HOME)."""
    return Path(platformdirs.user_config_dir(APP_NAME))


def config_path() -> Path:
    """The default location of `config.toml`."""
    return config_dir() / CONFIG_FILENAME


def secrets_path() -> Path:
    """The fallback secrets file, used only when no system keyring answers."""
    return config_dir() / SECRETS_FILENAME


def ensure_private_dir(path: Path) -> None:
    """Create `path` (and parents) if missing; a directory paytui creates is owner-only."""
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)


def atomic_write_text(path: Path, text: str, *, mode: int = PRIVATE_FILE_MODE) -> None:
    """Replace `path` with `text` atomically, with permission bits `mode`.

    The temporary file is created with `mode` from the start (mkstemp creates 0600), so the
    content is never readable by others, even for an instant, and the final chmod only matters
    when a caller asks for something other than 0600.
    """
    refuse_unless_regular(path)  # before anything is written: /dev/null stays a device
    ensure_private_dir(path.parent)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        replace_regular(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    """Persist the rename itself (POSIX); harmless no-op where directories cannot be opened."""
    if os.name != "posix":
        return
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
