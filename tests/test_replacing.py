"""A file paytui writes whole and renames into place is never renamed over something that is not
a regular file: `--db /dev/null` once replaced the machine's `/dev/null` with a database."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paytui.actions.journal_anchor import Anchor, Head
from paytui.config.files import atomic_write_text
from paytui.replacing import NotARegularFile
from paytui.sandbox.seed import build_database


def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "target"
    os.mkfifo(path)
    return path


def still_a_fifo(path: Path) -> bool:
    return stat.S_ISFIFO(os.lstat(path).st_mode)


def test_a_config_write_over_a_fifo_is_refused_and_leaves_it(tmp_path: Path) -> None:
    target = fifo(tmp_path)
    with pytest.raises(NotARegularFile, match="not a regular file") as raised:
        atomic_write_text(target, "default_profile = 'x'\n")
    assert raised.value.filename == str(target)
    assert still_a_fifo(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]  # no temporary file left


def test_a_sandbox_database_over_a_fifo_is_refused_before_building(tmp_path: Path) -> None:
    target = fifo(tmp_path)
    with pytest.raises(NotARegularFile):
        build_database(target, charges=10)
    assert still_a_fifo(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]


def test_paytui_sandbox_says_so_in_one_line(tmp_path: Path) -> None:
    """In a process of its own: were the database built, it would go on to serve (the bound
    only stops that process then, it is not what passes)."""
    target = fifo(tmp_path)
    argv = ["sandbox", "--db", str(target), "--fresh", "--charges", "10", "--port", "0"]
    code = f"from paytui.cli import main; raise SystemExit(main({argv!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"paytui sandbox: cannot build {target}: not a regular file; paytui will not replace it"
    )
    assert still_a_fifo(target)


def test_an_anchor_file_linked_to_a_device_is_left_alone(tmp_path: Path) -> None:
    """The link is what a rename would replace; following it, the device is refused."""
    link = tmp_path / "anchors.json"
    link.symlink_to(os.devnull)
    Anchor(link).record("journal", Head(3, "abc", datetime(2026, 11, 29, tzinfo=UTC)))
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_regular_file_is_still_replaced(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old\n", encoding="utf-8")
    atomic_write_text(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
