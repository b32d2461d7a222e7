"""`paytui serve`'s start: read-only unless asked, the typed check before money actions on
production, and secrets that come from the environment refused (a session never gets them)."""

from __future__ import annotations

import io

import pytest

from paytui.config import resolve_connection
from paytui.config.files import config_path
from paytui.config.secrets import store_secret
from paytui.serve import cli

PROFILES = """
[profiles.prod]
base_url = "https://pay.example"
environment = "production"

[profiles.env-secret]
base_url = "https://pay.example"
environment = "production"
token_env = "PROD_TOKEN"
"""


@pytest.fixture
def production_profile() -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(PROFILES, encoding="utf-8")
    config_path().chmod(0o600)
    store_secret("prod", "token", "tok-prod-1", prefer="file")


def test_read_only_is_forced_by_the_environment() -> None:
    assert resolve_connection(environ={"PAYTUI_READ_ONLY": "1"}).read_only
    assert resolve_connection(environ={"PAYTUI_READ_ONLY": "yes"}).read_only
    assert not resolve_connection(environ={"PAYTUI_READ_ONLY": "0"}).read_only
    assert not resolve_connection(environ={}).read_only


def test_money_actions_on_production_need_the_profile_typed(
    production_profile: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refused before anything listens: the wrong name, or nothing typed.
    for typed in ("production\n", ""):
        monkeypatch.setattr("sys.stdin", io.StringIO(typed))
        assert cli.main(["--profile", "prod", "--allow-actions", "--port", "0"], environ={}) == 2
        _out, err = capsys.readouterr()
        assert "Type prod to go on" in err
        assert err.splitlines()[-1].endswith(
            "not confirmed: money actions stay off (run without --allow-actions)"
        )

    # ctrl+c at the question: one line, no traceback.
    class Interrupted(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            raise KeyboardInterrupt

    monkeypatch.setattr("sys.stdin", Interrupted())
    assert cli.main(["--profile", "prod", "--allow-actions", "--port", "0"], environ={}) == 130
    assert capsys.readouterr().err.endswith("\npaytui serve: stopped\n")
    # The right name passes the check (what follows it is the server, tested elsewhere).
    cli.confirm_production("prod", io.StringIO("prod\n"))
    capsys.readouterr()
    # A secret the profile takes from the environment never reaches a session: said at start,
    # and so are paytui's own credentials in the server's environment.
    environ = {"PROD_TOKEN": "t", "PAYTUI_TOKEN": "t", "PAYTUI_BASE_URL": "https://pay.example"}
    assert cli.main(["--profile", "env-secret"], environ=environ) == 2
    first, second = capsys.readouterr().err.splitlines()
    assert first == (
        "paytui serve: PAYTUI_BASE_URL, PAYTUI_TOKEN not passed to the browser sessions: they "
        "use a stored profile (--profile, docs/browser.md)"
    )
    assert "$PROD_TOKEN, which is not set" in second


def test_a_failed_request_is_one_line_in_the_servers_terminal() -> None:
    """aiohttp logs a handler's failure with its traceback: here one sanitised line."""
    import logging

    stream = io.StringIO()
    handler = cli.one_line_logs(stream)
    try:
        try:
            raise UnicodeEncodeError("utf-8", "\udcff", 0, 1, "surrogates not allowed")
        except UnicodeEncodeError:
            logging.getLogger("aiohttp.server").exception("Error handling request from \x1b[2J")
        logging.getLogger("paytui.serve").warning("a browser session ended: %s", "gone")
    finally:
        for name in cli.SERVER_LOGGERS:
            logging.getLogger(name).removeHandler(handler)
            logging.getLogger(name).propagate = True
    assert stream.getvalue().splitlines() == [
        "paytui serve: Error handling request from ␛[2J: UnicodeEncodeError: 'utf-8' codec "
        "can't encode character '\\udcff' in position 0: surrogates not allowed",
        "paytui serve: a browser session ended: gone",
    ]
