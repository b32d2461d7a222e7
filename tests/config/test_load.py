"""load_config: a broken file becomes located problems and a sandbox start, never an exception."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from paytui.config import load_config, resolve_connection
from paytui.config.model import Profile, UiPrefs

GOOD = """
default_profile = "prod"

[ui]
theme = "nord"
refresh_interval = 15
confirm_threshold = 250.5

[keymap]
"charges.refund" = "R"

[profiles.prod]
base_url = "https://api.example.com"
environment = "production"
client_id = "acme-support"
scopes = ["urn:v2:charges:read", "urn:v2:refunds:all"]
client_secret_env = "ACME_SECRET"
account_id = "pa_0123456789abcdefghij"
read_only = true
confirm_threshold = "1000.00"

[profiles."local-dev"]
base_url = "http://127.0.0.1:8000"
environment = "sandbox"
token_env = "DEV_TOKEN"
"""


def test_missing_file_is_the_sandbox_without_problems(config_file: Path) -> None:
    result = load_config()
    assert result.path == config_file
    assert not result.exists
    assert result.problems == []
    assert result.config.profile_names() == ["sandbox"]
    assert result.config.get_profile("sandbox") == Profile()


def test_good_file_loads_every_section(write_config: Callable[[str], Path]) -> None:
    write_config(GOOD)
    result = load_config()
    assert result.problems == []
    config = result.config
    assert config.default_profile == "prod"
    assert config.ui == UiPrefs(
        theme="nord", refresh_interval=15, confirm_threshold=Decimal("250.5")
    )
    assert config.keymap == {"charges.refund": "R"}
    prod = config.profiles["prod"]
    assert prod.client_id == "acme-support"
    assert prod.scopes == ("urn:v2:charges:read", "urn:v2:refunds:all")
    assert prod.read_only is True
    assert prod.ui_prefs(config.ui).confirm_threshold == Decimal("1000.00")
    assert prod.ui_prefs(config.ui).theme == "nord"
    assert config.profiles["local-dev"].auth_kind == "token"
    assert config.profile_names() == ["sandbox", "local-dev", "prod"]


def test_bad_toml_names_file_and_line_and_starts_on_sandbox(
    write_config: Callable[[str], Path],
) -> None:
    path = write_config(
        """
        default_profile = "prod"

        [profiles.prod]
        base_url = "https://api.example.com
        """
    )
    result = load_config()
    assert not result.parsed
    [problem] = result.problems
    assert problem.file == path
    assert problem.line == 4
    assert "invalid TOML" in problem.message
    assert str(problem).startswith(f"{path}:4: invalid TOML")
    assert result.config.profiles == {}
    connection = resolve_connection(environ={}, loaded=result)
    assert connection.is_embedded
    assert connection.environment == "sandbox"
    assert connection.problems == (problem,)


def test_wrong_type_is_located_at_its_key(write_config: Callable[[str], Path]) -> None:
    path = write_config(
        """
        [ui]
        theme = "nord"
        refresh_interval = "fast"

        [profiles.prod]
        base_url = "https://api.example.com"
        read_only = "maybe"
        token_env = "T"
        """
    )
    result = load_config()
    lines = {p.line: p.message for p in result.problems}
    assert "ui.refresh_interval" in lines[3]
    assert "'fast'" in lines[3]
    assert "profiles.prod.read_only" in lines[7]
    assert "ignored until this is fixed" in lines[5]
    assert all(p.file == path for p in result.problems)
    # A bad preference falls back to its default; other preferences survive.
    assert result.config.ui == UiPrefs(theme="nord")
    # A bad profile is left out entirely rather than half-used.
    assert "prod" not in result.config.profiles


def test_unknown_environment_drops_profile_and_default_falls_back(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        """
        default_profile = "prod"

        [profiles.prod]
        base_url = "https://api.example.com"
        environment = "prod"
        token_env = "T"
        """
    )
    result = load_config()
    messages = [str(p) for p in result.problems]
    assert any(
        ":5: profiles.prod.environment: Input should be 'sandbox' or 'production'" in m
        for m in messages
    ), messages
    assert any(":1: the default profile 'prod' has errors" in m for m in messages), messages
    connection = resolve_connection(environ={"T": "x"}, loaded=result)
    assert connection.is_embedded
    assert len(connection.problems) == 3


def test_unknown_key_is_a_warning_not_a_lost_profile(write_config: Callable[[str], Path]) -> None:
    write_config(
        """
        colour = "red"
        [profiles.prod]
        base_url = "https://api.example.com"
        token_env = "T"
        base_ulr = "typo"
        """
    )
    result = load_config()
    assert [(p.line, p.message) for p in result.problems] == [
        (1, "unknown setting 'colour' (ignored)"),
        (5, "unknown setting 'profiles.prod.base_ulr' (ignored)"),
    ]
    assert result.config.profiles["prod"].base_url == "https://api.example.com"


def test_secret_in_config_is_refused_without_echoing_it(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        """
        [profiles.prod]
        base_url = "https://api.example.com"
        client_id = "acme"
        client_secret = "hunter2-very-secret"
        client_secret_env = "ACME"
        """
    )
    result = load_config()
    [problem] = result.problems
    assert problem.line == 4
    assert "secrets never go in this file" in problem.message
    assert "hunter2" not in str(problem)
    assert result.config.profiles["prod"].client_id == "acme"


def test_default_profile_naming_nothing(write_config: Callable[[str], Path]) -> None:
    write_config('default_profile = "nope"\n')
    result = load_config()
    [problem] = result.problems
    assert problem.line == 1
    assert "'nope' is not a profile in this file" in problem.message
    assert result.config.default_profile is None


def test_verify_false_and_http_remote_are_config_errors(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        """
        [profiles.a]
        base_url = "https://a.example.com"
        token_env = "T"
        verify = false

        [profiles.b]
        base_url = "http://b.example.com"
        token_env = "T"
        """
    )
    result = load_config()
    text = "\n".join(str(p) for p in result.problems)
    assert ":4: profiles.a.verify: verify = false is not accepted" in text
    assert ":7: profiles.b.base_url: plain http is only allowed for loopback" in text
    assert result.config.profiles == {}


def test_bad_keymap_entry_is_skipped(write_config: Callable[[str], Path]) -> None:
    write_config(
        """
        [keymap]
        quit = "q"
        refresh = 5
        """
    )
    result = load_config()
    assert result.config.keymap == {"quit": "q"}
    assert [p.line for p in result.problems] == [3]


def test_not_utf8_is_a_problem(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_bytes(b"theme = '\xff'\n")
    result = load_config()
    assert "not UTF-8" in result.problems[0].message
    assert result.config.profiles == {}


def test_profile_table_round_trips_through_toml(tmp_path: Path) -> None:
    from paytui.config import save_profile

    profile = Profile(
        base_url="https://api.example.com",
        client_id="acme",
        scopes=("urn:v2:charges:read",),
        secret_store="file",
        confirm_threshold=Decimal("99.99"),
    )
    path = tmp_path / "c.toml"
    save_profile("prod", profile, path)
    loaded = load_config(path)
    assert loaded.problems == []
    again = loaded.config.profiles["prod"]
    assert again.confirm_threshold == Decimal("99.99")
    assert again.environment == "production"
    assert again.model_copy(update={"environment": None}) == profile


def test_the_documented_example_config_is_valid(tmp_path: Path) -> None:
    """docs/configuration.md's full example must load without a single problem."""
    import re

    docs = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
    example = re.search(r"```toml\n(.*?)```", docs.read_text(encoding="utf-8"), re.S)
    assert example is not None
    path = tmp_path / "config.toml"
    path.write_text(example.group(1), encoding="utf-8")
    result = load_config(path)
    assert result.problems == []
    assert sorted(result.config.profiles) == ["local", "partner-b", "prod", "sandbox", "staging"]
    assert result.config.profiles["sandbox"].is_embedded
