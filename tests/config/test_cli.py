"""`paytui profile ...`: each command, its errors (one line, exit 2) and that no secret leaks."""

from __future__ import annotations

import io
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from paytui.config import files, load_config, resolve_connection
from paytui.config.cli import main
from paytui.config.secrets import get_secret

SECRET = "cli-s3cret-Value-42"


@pytest.fixture
def tty_prompt(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Pretend stdin is a terminal and answer getpass with SECRET; records the prompts."""
    prompts: list[str] = []

    def fake_getpass(prompt: str = "") -> str:
        prompts.append(prompt)
        return SECRET

    monkeypatch.setattr("getpass.getpass", fake_getpass)
    monkeypatch.setattr("sys.stdin", _Stdin("", tty=True))
    return prompts


class _Stdin(io.StringIO):
    def __init__(self, text: str, *, tty: bool) -> None:
        super().__init__(text)
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_line_error(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("paytui profile: error: ")
    assert fragment in err
    assert "Traceback" not in err


def test_add_oauth_profile_prompts_without_echo_and_stores_secret(
    capsys: pytest.CaptureFixture[str], tty_prompt: list[str]
) -> None:
    code, out, err = _run(
        capsys,
        "add", "prod",
        "--base-url", "https://api.example.com/",
        "--client-id", "acme",
        "--scope", "urn:v2:charges:read",
        "--scope", "urn:v2:refunds:all",
        "--account", "pa_0123456789abcdefghij",
        "--confirm-threshold", "250.00",
        "--default",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert tty_prompt == ["Client secret for profile 'prod' (not shown): "]
    assert "Added profile 'prod' (production, https://api.example.com)" in out
    assert "stored in" in out and SECRET not in out
    config_text = files.config_path().read_text()
    assert SECRET not in config_text
    assert stat.S_IMODE(files.config_path().stat().st_mode) == 0o600
    profile = load_config().config.profiles["prod"]
    assert profile.client_id == "acme"
    assert profile.scopes == ("urn:v2:charges:read", "urn:v2:refunds:all")
    assert profile.environment == "production"
    assert profile.secret_store == "file"  # the tests' keyring is the fail back-end
    stored = get_secret("prod", "client_secret")
    assert stored is not None and stored.get_secret_value() == SECRET
    conn = resolve_connection(environ={})
    assert conn.profile_name == "prod" and conn.is_production
    assert conn.client_secret is not None and conn.client_secret.get_secret_value() == SECRET


def test_add_token_profile_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin("tok-from-stdin\nignored\n", tty=False))
    code, out, _ = _run(
        capsys, "add", "local", "--base-url", "http://127.0.0.1:8000",
        "--environment", "sandbox", "--secret-stdin", "--read-only",
    )  # fmt: skip
    assert code == 0
    assert "bearer token is stored in" in out
    conn = resolve_connection(profile="local", environ={})
    assert conn.token is not None and conn.token.get_secret_value() == "tok-from-stdin"
    assert conn.read_only and conn.environment == "sandbox"


def test_add_with_env_reference_stores_no_secret(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin("", tty=False))  # no prompt may happen
    code, out, _ = _run(
        capsys, "add", "prod", "--base-url", "https://api.example.com",
        "--client-id", "acme", "--secret-env", "ACME_SECRET",
    )  # fmt: skip
    assert code == 0
    assert "taken from $ACME_SECRET" in out
    assert not files.secrets_path().exists()
    assert load_config().config.profiles["prod"].client_secret_env == "ACME_SECRET"


def test_add_without_tty_or_source_is_an_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin("", tty=False))
    code, out, err = _run(capsys, "add", "p", "--base-url", "https://a.example", "--client-id", "c")
    _assert_one_line_error(code, out, err, "stdin is not a terminal")
    assert not files.config_path().exists()


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--base-url", "http://api.example.com", "--token-env", "T"], "plain http is only"),
        (["--base-url", "https://u:pw@a.example", "--token-env", "T"], "must not contain cred"),
        (["--base-url", "https://a.example?x=1", "--token-env", "T"], "must not contain a query"),
        (
            ["--base-url", "https://a.example", "--client-id", "c", "--token-env", "T"],
            "--token-env",
        ),
        (["--base-url", "https://a.example", "--secret-env", "S"], "--secret-env needs"),
        (["--base-url", "https://a.example", "--scope", "x", "--token-env", "T"], "--scope needs"),
        (["--base-url", "https://a.example", "--token-env", "1BAD"], "--token-env: '1BAD'"),
        (["--base-url", "https://a.example", "--token-env", "T", "--account", "x"], "--account"),
        (
            ["--base-url", "https://a.example", "--token-env", "T", "--confirm-threshold", "lots"],
            "not an amount",
        ),
        (
            ["--base-url", "https://a.example", "--token-env", "T", "--ca-bundle", "/nope.pem"],
            "does not exist",
        ),
        (
            ["--base-url", "https://a.example", "--token-env", "T", "--environment", "prod"],
            "invalid choice",
        ),
        (["--token-env", "T"], "--base-url"),
    ],
)
def test_add_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, out, err = _run(capsys, "add", "p", *argv)
    _assert_one_line_error(code, out, err, fragment)
    assert not files.config_path().exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["--client-secret", "hunter2hunter2"],
        ["--client-secret=hunter2hunter2"],
        ["--token", "hunter2hunter2"],
        ["--password", "hunter2hunter2"],
    ],
)
def test_secret_arguments_are_refused_without_echo(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = _run(capsys, "add", "p", "--base-url", "https://a.example", *argv)
    _assert_one_line_error(code, out, err, "never taken as command-line arguments")
    assert "hunter2" not in err


def test_add_refuses_to_overwrite_without_replace(
    capsys: pytest.CaptureFixture[str], tty_prompt: list[str]
) -> None:
    assert _run(capsys, "add", "p", "--base-url", "https://a.example")[0] == 0
    code, out, err = _run(capsys, "add", "p", "--base-url", "https://b.example")
    _assert_one_line_error(code, out, err, "exists; add --replace")
    assert _run(capsys, "add", "p", "--base-url", "https://b.example", "--replace")[0] == 0
    assert load_config().config.profiles["p"].base_url == "https://b.example"


def test_add_refuses_to_rewrite_a_broken_file(
    capsys: pytest.CaptureFixture[str], write_config: Callable[[str], Path]
) -> None:
    path = write_config("[profiles.x\n")
    before = path.read_text()
    code, out, err = _run(capsys, "add", "p", "--base-url", "https://a.example", "--token-env", "T")
    _assert_one_line_error(code, out, err, f"{path}:1: invalid TOML")
    assert path.read_text() == before


def test_insecure_skip_verify_warns(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(
        capsys, "add", "lab", "--base-url", "https://lab.internal", "--token-env", "T",
        "--insecure-skip-verify",
    )  # fmt: skip
    assert code == 0
    assert "certificate verification is OFF" in err
    assert load_config().config.profiles["lab"].insecure_skip_verify


def test_list_marks_the_default(
    capsys: pytest.CaptureFixture[str], write_config: Callable[[str], Path]
) -> None:
    write_config(
        """
        default_profile = "prod"
        [profiles.prod]
        base_url = "https://api.example.com"
        client_id = "acme"
        client_secret_env = "S"
        read_only = true
        [profiles.dev]
        base_url = "http://localhost:8000"
        environment = "sandbox"
        token_env = "T"
        """
    )
    code, out, err = _run(capsys, "list")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("  sandbox") and "embedded sandbox" in lines[0]
    assert lines[1].startswith("  dev ") and "bearer token" in lines[1]
    assert lines[2].startswith("* prod ")
    assert "production" in lines[2] and "client acme" in lines[2] and "read-only" in lines[2]


def test_list_without_config_marks_the_sandbox(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "list") == (0, "* sandbox  sandbox     embedded sandbox\n", "")


def test_list_on_broken_config_warns_with_line(
    capsys: pytest.CaptureFixture[str], write_config: Callable[[str], Path]
) -> None:
    path = write_config('[profiles.a]\nbase_url = "https://a.example"\nread_only = "maybe"\n')
    code, out, err = _run(capsys, "list")
    assert code == 0
    assert f"warning: {path}:3: profiles.a.read_only" in err
    assert out.startswith("* sandbox")


def test_show_never_prints_the_secret(
    capsys: pytest.CaptureFixture[str], tty_prompt: list[str]
) -> None:
    _run(capsys, "add", "prod", "--base-url", "https://api.example.com", "--client-id", "acme")
    code, out, err = _run(capsys, "show", "prod")
    assert (code, err) == (0, "")
    assert SECRET not in out
    assert f"client secret:     stored in {files.secrets_path()}" in out
    assert "environment:       production" in out
    assert "confirm_threshold: 100.00" in out


def test_show_env_reference_says_whether_it_is_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _run(capsys, "add", "p", "--base-url", "https://a.example", "--token-env", "MY_TOKEN")
    assert "from $MY_TOKEN (NOT set in this shell)" in _run(capsys, "show", "p")[1]
    monkeypatch.setenv("MY_TOKEN", "the-token-value")
    out = _run(capsys, "show", "p")[1]
    assert "from $MY_TOKEN (set)" in out and "the-token-value" not in out


def test_show_missing_and_broken_profiles(
    capsys: pytest.CaptureFixture[str], write_config: Callable[[str], Path]
) -> None:
    path = write_config('[profiles.bad]\nbase_url = "https://a.example"\nenvironment = "x"\n')
    code, out, err = _run(capsys, "show", "nope")
    _assert_one_line_error(code, out, err, "no profile 'nope' (known: sandbox)")
    code, out, err = _run(capsys, "show", "bad")
    _assert_one_line_error(code, out, err, f"{path}:3: profiles.bad.environment")


def test_remove_deletes_profile_and_secret(
    capsys: pytest.CaptureFixture[str], tty_prompt: list[str]
) -> None:
    _run(capsys, "add", "prod", "--base-url", "https://api.example.com", "--default")
    _run(capsys, "add", "keep", "--base-url", "https://keep.example.com")
    code, out, _ = _run(capsys, "remove", "prod")
    assert code == 0
    assert out == "Removed profile 'prod' and its secret from secrets.toml.\n"
    config = load_config().config
    assert list(config.profiles) == ["keep"]
    assert config.default_profile is None
    assert get_secret("prod", "token") is None
    assert get_secret("keep", "token") is not None


def test_remove_errors(capsys: pytest.CaptureFixture[str]) -> None:
    _assert_one_line_error(*_run(capsys, "remove", "nope"), "no profile 'nope'")
    _assert_one_line_error(*_run(capsys, "remove", "sandbox"), "built in")


def test_use_sets_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "add", "a", "--base-url", "https://a.example", "--token-env", "T")
    assert _run(capsys, "use", "a") == (0, "'a' is now the default profile.\n", "")
    assert load_config().config.default_profile == "a"
    assert _run(capsys, "use", "sandbox")[0] == 0
    assert load_config().config.default_profile == "sandbox"
    assert resolve_connection(environ={}).is_embedded
    _assert_one_line_error(*_run(capsys, "use", "zzz"), "no profile 'zzz'")


@pytest.mark.parametrize("command", [[], ["add"], ["list"], ["show"], ["remove"], ["use"]])
def test_help_for_each_command(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, _ = _run(capsys, *command, "--help")
    assert code == 0
    assert out.startswith("usage: paytui profile")


def test_usage_mistake_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    _assert_one_line_error(*_run(capsys), "required")
    _assert_one_line_error(*_run(capsys, "frobnicate"), "invalid choice")
    _assert_one_line_error(
        *_run(capsys, "add", "bad name!", "--base-url", "https://a.example"), "invalid profile name"
    )


def test_insecure_secrets_file_is_reported_not_used(
    capsys: pytest.CaptureFixture[str], tty_prompt: list[str]
) -> None:
    _run(capsys, "add", "p", "--base-url", "https://a.example")
    files.secrets_path().chmod(0o644)
    code, out, err = _run(capsys, "add", "q", "--base-url", "https://q.example")
    _assert_one_line_error(code, out, err, "readable or writable by other users (mode 0644)")
    out = _run(capsys, "show", "p")[1]
    assert "unreadable:" in out and SECRET not in out


def test_add_keeps_the_comments_and_layout_of_the_config_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = files.config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    written = (
        "# My paytui setup: staging first.\n"
        'default_profile = "staging"  # the one I use most\n'
        "\n"
        "[profiles.staging]\n"
        "# staging sandbox, reset nightly\n"
        'base_url = "https://staging.example.com"\n'
        'client_id = "acme-staging"\n'
        'environment = "sandbox"\n'
    )
    config.write_text(written, encoding="utf-8")
    monkeypatch.setattr("sys.stdin", _Stdin("", tty=False))
    code, _, err = _run(
        capsys, "add", "prod", "--base-url", "https://api.example.com",
        "--client-id", "acme", "--secret-env", "ACME_SECRET",
    )  # fmt: skip
    assert code == 0, err
    text = config.read_text(encoding="utf-8")
    assert text.startswith(written)  # every comment, value and blank line as the user wrote it
    assert "[profiles.prod]" in text
    loaded = load_config().config
    assert loaded.default_profile == "staging"
    assert loaded.profiles["prod"].client_secret_env == "ACME_SECRET"
    assert loaded.profiles["staging"].client_id == "acme-staging"


def test_add_to_a_new_config_writes_its_header(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin("", tty=False))
    code, _, err = _run(
        capsys, "add", "prod", "--base-url", "https://api.example.com",
        "--client-id", "acme", "--secret-env", "ACME_SECRET",
    )  # fmt: skip
    assert code == 0, err
    text = files.config_path().read_text(encoding="utf-8")
    assert text.startswith("# paytui configuration. Secrets never go here")
    assert load_config().config.profiles["prod"].client_id == "acme"


def test_the_sandbox_name_is_reserved_for_profile_add(
    capsys: pytest.CaptureFixture[str], tty_prompt: list[str]
) -> None:
    code, out, err = _run(
        capsys, "add", "sandbox", "--base-url", "https://api.example.com", "--client-id", "acme"
    )
    _assert_one_line_error(code, out, err, "reserved for the embedded sandbox")
    assert load_config().config.profiles == {}
    assert tty_prompt == []  # refused before asking for a secret
