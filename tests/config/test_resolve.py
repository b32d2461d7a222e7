"""resolve_connection: precedence of command line, environment, config and the sandbox default."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import SecretStr

from paytui.config import ConfigError, client_kwargs, resolve_connection
from paytui.config.model import Profile
from paytui.config.secrets import store_secret

CONFIG = """
default_profile = "prod"

[ui]
confirm_threshold = "50"

[keymap]
quit = "ctrl+q"

[profiles.prod]
base_url = "https://api.example.com"
client_id = "acme"
scopes = ["urn:v2:charges:read"]
client_secret_env = "ACME_SECRET"
account_id = "pa_0123456789abcdefghij"
read_only = true

[profiles.staging]
base_url = "https://staging.example.com"
environment = "sandbox"
token_env = "STAGING_TOKEN"
confirm_threshold = "5"

[profiles.local]
base_url = "http://127.0.0.1:8000"
environment = "sandbox"
client_id = "paytui-demo"
"""

ENV = {"ACME_SECRET": "acme-secret-value", "STAGING_TOKEN": "staging-token-value"}


@pytest.fixture
def configured(write_config: Callable[[str], Path]) -> Path:
    return write_config(CONFIG)


def test_no_config_is_the_embedded_sandbox() -> None:
    conn = resolve_connection(environ={})
    assert conn.is_embedded
    assert conn.base_url is None
    assert conn.profile_name == "sandbox"
    assert conn.display_name == "sandbox (embedded)"
    assert conn.environment == "sandbox"
    assert conn.profile_source == "implicit"
    assert conn.auth_kind == "embedded"
    assert conn.token is None and conn.client_secret is None
    assert conn.problems == ()
    with pytest.raises(ValueError, match="embedded"):
        client_kwargs(conn)


def test_default_profile_from_config(configured: Path) -> None:
    conn = resolve_connection(environ=ENV)
    assert conn.profile_name == "prod"
    assert conn.profile_source == "config"
    assert conn.environment == "production"  # unlabelled remote profile: production
    assert conn.base_url == "https://api.example.com"
    assert conn.client_id == "acme"
    assert isinstance(conn.client_secret, SecretStr)
    assert conn.client_secret.get_secret_value() == "acme-secret-value"
    assert conn.scopes == ("urn:v2:charges:read",)
    assert conn.read_only is True
    assert conn.account_id == "pa_0123456789abcdefghij"
    assert conn.confirm_threshold == Decimal("50")
    assert dict(conn.keymap) == {"quit": "ctrl+q"}
    assert conn.config_path == configured
    assert "acme-secret-value" not in repr(conn)
    assert client_kwargs(conn) == {
        "base_url": "https://api.example.com",
        "token": None,
        "client_id": "acme",
        "client_secret": conn.client_secret,
        "scopes": ["urn:v2:charges:read"],
        "token_auth": "auto",
        "paging": "offset",
        "parameters": {},
        "refund_parameters": {},
        "verify": True,
    }


def test_token_auth_is_read_from_the_profile_and_needs_a_client_id(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        CONFIG.replace('client_id = "acme"\n', 'client_id = "acme"\ntoken_auth = "form"\n')
    )
    conn = resolve_connection(environ=ENV)
    assert conn.token_auth == "form"
    assert client_kwargs(conn)["token_auth"] == "form"
    assert conn.describe()["token_auth"] == "form"
    staging = resolve_connection(profile="staging", environ=ENV)
    assert client_kwargs(staging)["token_auth"] == "auto"  # unused without client credentials
    with pytest.raises(ValueError, match="token_auth only applies"):
        Profile(base_url="https://api.example.com", token_env="T", token_auth="basic")
    with pytest.raises(ValueError):
        Profile(base_url="https://api.example.com", client_id="acme", token_auth="both")  # type: ignore[arg-type]


def test_env_profile_beats_config_default(configured: Path) -> None:
    conn = resolve_connection(environ={**ENV, "PAYTUI_PROFILE": "staging"})
    assert conn.profile_name == "staging"
    assert conn.profile_source == "environment"
    assert conn.environment == "sandbox"
    assert conn.token is not None and conn.token.get_secret_value() == "staging-token-value"
    assert conn.auth_kind == "token"
    assert conn.confirm_threshold == Decimal("5")


def test_command_line_profile_beats_env(configured: Path) -> None:
    conn = resolve_connection(profile="prod", environ={**ENV, "PAYTUI_PROFILE": "staging"})
    assert conn.profile_name == "prod"
    assert conn.profile_source == "command line"


def test_command_line_sandbox_beats_config_default(configured: Path) -> None:
    conn = resolve_connection(profile="sandbox", environ=ENV)
    assert conn.is_embedded


def test_base_url_precedence(configured: Path) -> None:
    env = {**ENV, "PAYTUI_BASE_URL": "https://env.example.com"}
    assert resolve_connection(environ=env).base_url == "https://env.example.com"
    conn = resolve_connection(base_url="https://cli.example.com/", environ=env)
    assert conn.base_url == "https://cli.example.com"
    assert conn.profile_name == "prod"  # the profile's credentials go with the override


def test_env_credentials_replace_the_profile_ones(configured: Path) -> None:
    conn = resolve_connection(environ={**ENV, "PAYTUI_TOKEN": "env-token"})
    assert conn.token is not None and conn.token.get_secret_value() == "env-token"
    assert conn.client_id is None and conn.client_secret is None
    assert conn.auth_kind == "token"
    conn = resolve_connection(
        environ={**ENV, "PAYTUI_CLIENT_ID": "other", "PAYTUI_CLIENT_SECRET": "other-secret"}
    )
    assert conn.client_id == "other"
    assert conn.client_secret is not None
    assert conn.client_secret.get_secret_value() == "other-secret"
    conn = resolve_connection(environ={**ENV, "PAYTUI_ACCOUNT_ID": "pa_fromenv"})
    assert conn.account_id == "pa_fromenv"


def test_adhoc_url_from_env_without_profile_needs_env_credentials() -> None:
    env = {"PAYTUI_BASE_URL": "https://api.example.com"}
    with pytest.raises(ConfigError, match=r"no credentials for https://api\.example\.com"):
        resolve_connection(environ=env)
    conn = resolve_connection(environ={**env, "PAYTUI_TOKEN": "tok"})
    assert conn.profile_name == "(ad hoc)"
    assert conn.environment == "production"
    assert conn.profile_source == "implicit"


def test_adhoc_loopback_url_is_still_labelled_production() -> None:
    conn = resolve_connection(
        base_url="http://127.0.0.1:8000",
        environ={"PAYTUI_CLIENT_ID": "paytui-demo", "PAYTUI_CLIENT_SECRET": "paytui-demo-secret"},
    )
    assert conn.environment == "production"
    assert client_kwargs(conn)["base_url"] == "http://127.0.0.1:8000"


def test_env_credentials_without_url_are_reported_not_used() -> None:
    conn = resolve_connection(environ={"PAYTUI_TOKEN": "tok"})
    assert conn.is_embedded
    assert conn.token is None
    [problem] = conn.problems
    assert "PAYTUI_TOKEN ignored" in problem.message
    assert "tok" not in problem.message.replace("PAYTUI_TOKEN", "")


def test_http_to_non_loopback_is_refused_from_cli_and_env() -> None:
    with pytest.raises(ConfigError, match="--base-url: plain http is only allowed for loopback"):
        resolve_connection(base_url="http://api.example.com", environ={"PAYTUI_TOKEN": "t"})
    with pytest.raises(ConfigError, match="PAYTUI_BASE_URL: plain http"):
        resolve_connection(environ={"PAYTUI_BASE_URL": "http://10.1.2.3", "PAYTUI_TOKEN": "t"})
    with pytest.raises(ConfigError, match="must not contain credentials"):
        resolve_connection(base_url="https://u:p@api.example.com", environ={})


def test_unknown_profile_is_an_error_listing_known_ones(configured: Path) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_connection(profile="nope", environ=ENV)
    assert (
        str(info.value) == "--profile nope: no such profile (known: sandbox, local, prod, staging)"
    )
    with pytest.raises(ConfigError, match="PAYTUI_PROFILE nope: no such profile"):
        resolve_connection(environ={"PAYTUI_PROFILE": "nope"})


def test_asking_for_a_broken_profile_names_its_problem(
    write_config: Callable[[str], Path],
) -> None:
    write_config('[profiles.prod]\nbase_url = "https://x.example"\nenvironment = "prod"\n')
    with pytest.raises(ConfigError) as info:
        resolve_connection(profile="prod", environ={})
    assert "the profile has errors" in str(info.value)
    assert ":3: profiles.prod.environment" in str(info.value)


def test_secret_env_var_missing_is_a_clear_error(configured: Path) -> None:
    with pytest.raises(ConfigError, match=r"takes its client secret from \$ACME_SECRET"):
        resolve_connection(environ={})


def test_secret_from_secrets_file(configured: Path) -> None:
    store_secret("local", "client_secret", SecretStr("demo-secret-from-file"))
    conn = resolve_connection(profile="local", environ={})
    assert conn.client_secret is not None
    assert conn.client_secret.get_secret_value() == "demo-secret-from-file"
    assert conn.environment == "sandbox"


def test_missing_stored_secret_says_how_to_fix(configured: Path) -> None:
    with pytest.raises(ConfigError, match="no client secret stored for profile 'local'"):
        resolve_connection(profile="local", environ={})


def test_insecure_skip_verify_and_ca_bundle(
    write_config: Callable[[str], Path], tmp_path: Path
) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    write_config(
        f"""
        [profiles.ca]
        base_url = "https://internal.example"
        token_env = "T"
        verify = "{bundle}"

        [profiles.insecure]
        base_url = "https://internal.example"
        token_env = "T"
        insecure_skip_verify = true

        [profiles.missing]
        base_url = "https://internal.example"
        token_env = "T"
        verify = "{tmp_path / "nope.pem"}"
        """
    )
    ca = resolve_connection(profile="ca", environ={"T": "t"})
    assert ca.verify == str(bundle) and not ca.insecure
    insecure = resolve_connection(profile="insecure", environ={"T": "t"})
    assert insecure.verify is False and insecure.insecure
    assert client_kwargs(insecure)["verify"] is False
    with pytest.raises(ConfigError, match=r"CA bundle .* does not exist"):
        resolve_connection(profile="missing", environ={"T": "t"})


def test_typed_confirmation_only_above_threshold_on_production(configured: Path) -> None:
    prod = resolve_connection(environ=ENV)
    assert prod.needs_typed_confirmation(Decimal("50.01"))
    assert not prod.needs_typed_confirmation(Decimal("50.00"))
    staging = resolve_connection(profile="staging", environ=ENV)
    assert not staging.needs_typed_confirmation(Decimal("1000000"))


def test_describe_never_contains_a_secret(configured: Path) -> None:
    facts = resolve_connection(environ=ENV).describe()
    assert facts["profile"] == "prod"
    assert facts["environment"] == "production"
    assert "acme-secret-value" not in repr(facts)


def test_empty_env_values_count_as_unset(configured: Path) -> None:
    conn = resolve_connection(environ={**ENV, "PAYTUI_PROFILE": "", "PAYTUI_BASE_URL": ""})
    assert conn.profile_name == "prod"
    assert conn.base_url == "https://api.example.com"
