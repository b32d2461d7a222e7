"""What the command line prints passes the one sanitiser: a hostile profile name, config value or
error message reaches the terminal with its control characters shown, never obeyed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from paytui.config import cli
from paytui.config.store import ConfigError
from paytui.ui import launch

#: OSC 2 (rename the window), OSC 52 (write the clipboard), CSI 2J, NUL and U+202E.
HOSTILE = "ev\x1b]2;pwned\x07il\x1b]52;c;ZXZpbA==\x07\x1b[2J\x00\u202e"
RAW = ("\x1b", "\x07", "\x00", "\u202e")


def _clean(text: str) -> None:
    assert not any(char in text for char in RAW), repr(text)


def test_profile_list_and_show_neutralise_a_hostile_config(
    capsys: pytest.CaptureFixture[str], write_config: Callable[[str], Path]
) -> None:
    toml_hostile = HOSTILE.encode("unicode_escape").decode().replace("\\x", "\\u00")
    write_config(
        f"""
        [profiles.ok]
        base_url = "https://api.example.com"
        client_id = "{toml_hostile}"
        client_secret_env = "S"
        account_id = "{toml_hostile}"
        [profiles."{toml_hostile}"]
        base_url = "https://api.example.com"
        token_env = "T"
        """
    )
    for argv in (["list"], ["show", "ok"], ["show", HOSTILE], ["use", HOSTILE]):
        cli.main(argv)
        out, err = capsys.readouterr()
        _clean(out + err)
        assert "pwned" in out + err, (argv, out, err)  # named (escaped), never obeyed


def test_argparse_messages_are_sanitised(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list", HOSTILE]) == 2  # "unrecognized arguments: <as typed>"
    out, err = capsys.readouterr()
    _clean(out + err)
    assert "␛]2;pwned␇" in err and err.count("\n") == 1


def test_error_lines_are_sanitised(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise ConfigError(f"server said: {HOSTILE}")

    monkeypatch.setattr(cli, "load_config", broken)
    assert cli.main(["list"]) == 2
    out, err = capsys.readouterr()
    _clean(out + err)
    assert err.startswith("paytui profile: error: server said: ev␛]2;pwned␇")


def test_launch_errors_are_sanitised(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch.main(["--profile", HOSTILE]) == 2
    _out, err = capsys.readouterr()
    _clean(err)
    assert "␛]2;pwned␇" in err and err.count("\n") == 1
    assert launch.main(["--nonsense", HOSTILE]) == 2
    _out, err = capsys.readouterr()
    _clean(err)
