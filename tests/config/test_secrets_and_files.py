"""Secret storage (keyring, else a 0600 file) and atomic, private writes."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import keyring
import pytest
from pydantic import SecretStr

from paytui.config import files, load_config, save_profile, secrets
from paytui.config.model import Profile
from paytui.config.secrets import (
    InsecureSecretsFileError,
    SecretStoreError,
    delete_secret,
    get_secret,
    keyring_available,
    secret_location,
    store_secret,
)
from tests.config.conftest import MemoryKeyring


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_fail_backend_means_file_fallback_with_mode_0600() -> None:
    assert not keyring_available()
    where = store_secret("prod", "client_secret", SecretStr("s3cret-value"))
    assert where == "file"
    path = files.secrets_path()
    assert _mode(path) == 0o600
    assert "s3cret-value" in path.read_text()
    value = get_secret("prod", "client_secret")
    assert isinstance(value, SecretStr)
    assert value.get_secret_value() == "s3cret-value"
    assert secret_location("prod", "client_secret") == "file"
    assert get_secret("prod", "token") is None
    assert get_secret("other", "client_secret") is None


def test_secrets_never_land_in_config_toml() -> None:
    store_secret("prod", "client_secret", "s3cret-value")
    save_profile("prod", Profile(base_url="https://x.example", client_id="a", secret_store="file"))
    assert "s3cret-value" not in files.config_path().read_text()


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620])
def test_secrets_file_readable_or_writable_by_others_is_refused(mode: int) -> None:
    store_secret("prod", "token", "tok-value-1")
    path = files.secrets_path()
    path.chmod(mode)
    with pytest.raises(InsecureSecretsFileError) as info:
        get_secret("prod", "token")
    message = str(info.value)
    assert str(path) in message and f"{mode:04o}" in message and "chmod 600" in message
    assert "tok-value-1" not in message
    # Writing into it is refused too: the secrets in it may already have leaked.
    with pytest.raises(InsecureSecretsFileError):
        store_secret("other", "token", "tok-value-2")
    assert _mode(path) == mode


def test_secrets_file_not_toml_does_not_echo_its_content() -> None:
    path = files.secrets_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[profiles.p]\ntoken = "half-a-secret\n')
    path.chmod(0o600)
    with pytest.raises(SecretStoreError) as info:
        get_secret("p", "token")
    assert "half-a-secret" not in str(info.value)


def test_keyring_is_preferred_when_one_answers(memory_keyring: MemoryKeyring) -> None:
    assert keyring_available()
    assert store_secret("prod", "client_secret", "kr-secret") == "keyring"
    assert memory_keyring.store == {("paytui", "prod:client_secret"): "kr-secret"}
    assert not files.secrets_path().exists()
    value = get_secret("prod", "client_secret", hint="keyring")
    assert value is not None and value.get_secret_value() == "kr-secret"
    assert secret_location("prod", "client_secret") == "keyring"
    assert delete_secret("prod") == ["keyring"]
    assert memory_keyring.store == {}


def test_storing_in_one_place_removes_the_other_copy(memory_keyring: MemoryKeyring) -> None:
    store_secret("prod", "token", "old", prefer="file")
    assert store_secret("prod", "token", "new") == "keyring"
    assert "old" not in files.secrets_path().read_text()
    assert store_secret("prod", "token", "newer", prefer="file") == "file"
    assert memory_keyring.store == {}


def test_a_hanging_keyring_times_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    asked: list[str] = []

    class Hanging(MemoryKeyring):
        def get_password(self, service: str, username: str) -> str | None:
            asked.append(username)
            release.wait(5)
            return None

    previous = keyring.get_keyring()
    keyring.set_keyring(Hanging())
    monkeypatch.setattr(secrets, "KEYRING_TIMEOUT", 0.2)
    try:
        assert get_secret("prod", "token") is None
        assert get_secret("prod", "token") is None
        assert asked == ["prod:token"]  # no second wait: the dead keyring is not asked again
    finally:
        release.set()
        keyring.set_keyring(previous)


def test_a_raising_keyring_means_no_keyring() -> None:
    class Broken(MemoryKeyring):
        def set_password(self, service: str, username: str, password: str) -> None:
            raise RuntimeError("dbus says no")

    previous = keyring.get_keyring()
    keyring.set_keyring(Broken())
    try:
        assert store_secret("prod", "token", "tok-x") == "file"
    finally:
        keyring.set_keyring(previous)


def test_delete_removes_both_kinds_from_the_file() -> None:
    store_secret("prod", "token", "tok-1")
    store_secret("prod", "client_secret", "sec-1")
    store_secret("keep", "token", "tok-2")
    assert delete_secret("prod") == ["file"]
    text = files.secrets_path().read_text()
    assert "tok-1" not in text and "sec-1" not in text and "tok-2" in text
    assert delete_secret("prod") == []


def test_empty_secret_is_refused() -> None:
    with pytest.raises(SecretStoreError, match="empty"):
        store_secret("prod", "token", "")


# --------------------------------------------------------------------------- writes


def test_config_writes_are_0600_in_a_0700_dir() -> None:
    path = save_profile("prod", Profile(base_url="https://x.example", token_env="T"))
    assert _mode(path) == 0o600
    assert _mode(path.parent) == 0o700


def test_crash_during_replace_leaves_old_file_intact(monkeypatch: pytest.MonkeyPatch) -> None:
    save_profile("old", Profile(base_url="https://old.example", token_env="T"))
    path = files.config_path()
    before = path.read_text()

    def crash(src: object, dst: object) -> None:
        raise OSError("simulated crash")

    with monkeypatch.context() as patch, pytest.raises(OSError, match="simulated crash"):
        patch.setattr(os, "replace", crash)
        save_profile("new", Profile(base_url="https://new.example", token_env="T"))
    assert path.read_text() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["config.toml"]  # no temp left
    assert list(load_config().config.profiles) == ["old"]


def test_crash_while_writing_leaves_old_file_intact(monkeypatch: pytest.MonkeyPatch) -> None:
    save_profile("old", Profile(base_url="https://old.example", token_env="T"))
    before = files.config_path().read_text()

    def full(fd: int) -> None:
        raise OSError("disk full")

    with monkeypatch.context() as patch, pytest.raises(OSError, match="disk full"):
        patch.setattr(os, "fsync", full)
        save_profile("new", Profile(base_url="https://new.example", token_env="T"))
    assert files.config_path().read_text() == before
