"""Broken files: a config that is huge, nested 100,000 deep or a symlink to /dev/zero is refused
in one line naming the file (the app starts on the sandbox); `profile add` refuses to rewrite it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paytui.config import load_config
from paytui.config.files import MAX_FILE_BYTES
from paytui.config.store import ConfigError, read_raw


def one_line_naming(result_problems: list[object], file: Path) -> str:
    assert len(result_problems) == 1
    text = str(result_problems[0])
    assert str(file) in text and "\n" not in text
    return text


def test_a_config_nested_too_deeply_is_refused(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    result = load_config(config_file)
    assert "nested too deeply" in one_line_naming(result.problems, config_file)
    with pytest.raises(ConfigError, match="nested too deeply"):
        read_raw(config_file)


def test_a_config_above_the_size_cap_is_refused(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text("# " + "x" * MAX_FILE_BYTES + "\n", encoding="utf-8")
    result = load_config(config_file)
    assert "larger than 1024 KiB" in one_line_naming(result.problems, config_file)


def test_a_config_symlinked_to_dev_zero_is_refused_without_reading_it(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.symlink_to("/dev/zero")
    result = load_config(config_file)
    assert "not a regular file" in one_line_naming(result.problems, config_file)
    with pytest.raises(ConfigError, match="not a regular file"):
        read_raw(config_file)


def test_a_config_that_is_a_fifo_does_not_block(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(config_file)
    result = load_config(config_file)
    assert "not a regular file" in one_line_naming(result.problems, config_file)


def test_a_config_that_is_not_utf8_is_refused(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_bytes(b"default_profile = '\xff'\n")
    result = load_config(config_file)
    assert "not UTF-8" in one_line_naming(result.problems, config_file)


def test_a_config_that_is_a_directory_is_refused(config_file: Path) -> None:
    config_file.mkdir(parents=True)
    result = load_config(config_file)
    assert "not a regular file" in one_line_naming(result.problems, config_file)
