"""Fixtures for the config tests: a config file writer and an in-memory keyring."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import keyring.backend
import pytest

from paytui.config import files, secrets


@pytest.fixture
def config_file() -> Path:
    """The default config.toml location inside the test's isolated XDG dirs."""
    return files.config_path()


@pytest.fixture
def write_config(config_file: Path) -> Callable[[str], Path]:
    """Write dedented TOML text to the default config location."""

    def write(text: str) -> Path:
        config_file.parent.mkdir(parents=True, exist_ok=True)
        config_file.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        config_file.chmod(0o600)
        return config_file

    return write


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that answers, kept in a dict, so keyring paths can be tested without D-Bus."""

    priority = 10  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        del self.store[(service, username)]


@pytest.fixture(autouse=True)
def _fresh_keyring_state() -> Iterator[None]:
    secrets._reset_keyring_state()
    yield
    secrets._reset_keyring_state()


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Install a working in-memory keyring for one test, then put the fail back-end back."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
