"""Shared test setup: every test runs with its own config, data and log directories.

Fixture modules are registered as plugins so that each layer owns its own fixtures file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.fixtures_sandbox", "tests.fixtures_api"]


@pytest.fixture(autouse=True)
def isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point platformdirs (XDG) and the keyring at throwaway places: no test touches real files."""
    home = tmp_path_factory.mktemp("home")
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        (home / sub).mkdir()
        monkeypatch.setenv(var, str(home / sub))
    # Exports default to the documents directory (platformdirs reads it from user-dirs.dirs):
    # a test (the key fuzzer pressing x, enter) must not write into the real ~/Documents.
    (home / "documents").mkdir()
    (home / "config" / "user-dirs.dirs").write_text(
        f'XDG_DOCUMENTS_DIR="{home / "documents"}"\n', encoding="utf-8"
    )
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    for var in (
        "PAYTUI_PROFILE",
        "PAYTUI_BASE_URL",
        "PAYTUI_TOKEN",
        "PAYTUI_CLIENT_ID",
        "PAYTUI_CLIENT_SECRET",
    ):
        monkeypatch.delenv(var, raising=False)
    return home
