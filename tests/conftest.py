"""Shared test setup: every test runs with its own config, data and log directories.

Fixture modules are registered as plugins so that each layer owns its own fixtures file.
"""

from __future__ import annotations

import compileall
import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import cpu_profile, speed_patches

pytest_plugins = [
    "tests.fixtures_sandbox",
    "tests.fixtures_api",
    "tests.fixtures_postgres",
    "tests.second_service.fixtures",
]

# Bytecode is written and reused during the run, whatever the environment says. With
# PYTHONDONTWRITEBYTECODE set (as it is on this project's machines), every Python process of the
# suite compiled paytui and the test modules from source again: each of the three workers as it
# collected (about 8 of its 13 s of CPU), then every `paytui` process a test starts (the CLI, the
# served sandbox, the second actor). Set here, in the process that starts the workers, before
# they start, so that they and every process they start inherit it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# `paytui` forks a child to read the first page of charges (`paytui.ui.first_page`): tests that
# run the launcher inside the test process must not fork it. The tests of that child turn it on.
os.environ["PAYTUI_FIRST_PAGE"] = "0"
sys.dont_write_bytecode = False


#: The cyclic garbage collector's thresholds in test processes (Python's are 700, 10, 10). A
#: Textual app makes and drops objects by the hundred thousand, so with Python's thresholds a
#: UI test process ran over 2,000 young and 200 middle collections per 30 pilot tests, and full
#: ones over everything Textual caches: 10-15 % of its CPU. Collected as surely, 8 times less
#: often; speed only (no test frees a resource by waiting for the collector): `speed_patches`.
GC_THRESHOLDS = (10_000, 50, 100)


def pytest_configure(config: pytest.Config) -> None:
    """Collect garbage less often (`GC_THRESHOLDS`), in every test process; compile paytui
    once, on both cores, before the workers start importing it."""
    if speed_patches.enabled("gc_thresholds"):
        gc.set_threshold(*GC_THRESHOLDS)
    cpu_profile.register(config)  # PAYTUI_TEST_CPU_PROFILE=FILE: each test's CPU (docs/testing.md)
    if not hasattr(config, "workerinput"):  # the run's first process, not an xdist worker
        source = Path(__file__).resolve().parents[1] / "src" / "paytui"
        compileall.compile_dir(source, quiet=2, workers=2)


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
        "PAYTUI_JOURNAL_URL",
        "PAYTUI_AGENT",
    ):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True)
def no_secret_of_another_test() -> Iterator[None]:
    """Each test starts with no registered secret, as a fresh `paytui` process does.

    `paytui.logs.register_secret` keeps every token a process fetched and compiles them into one
    pattern on each new one: in a test process that runs hundreds of tests, each fetching tokens
    from the sandbox, the pattern grew to thousands of tokens of finished tests, and compiling it
    again cost more with every fetch (2,000 tokens: over 0.1 s, each time).
    """
    from paytui.logs import clear_registered_secrets

    clear_registered_secrets()
    yield
    clear_registered_secrets()
