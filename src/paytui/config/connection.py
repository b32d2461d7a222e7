"""Which service to talk to, with which credentials: `resolve_connection`.

Precedence, highest first, field by field:

1. command line: `--profile`, `--base-url`
2. environment: `PAYTUI_PROFILE`, `PAYTUI_BASE_URL`, `PAYTUI_TOKEN`, `PAYTUI_CLIENT_ID`,
   `PAYTUI_CLIENT_SECRET`, `PAYTUI_ACCOUNT_ID`
3. the config file's `default_profile`
4. the embedded sandbox

Everything the UI needs to behave safely (environment label, read-only, the typed-confirmation
threshold, whether verification is off) travels on the one `Connection` object, so no screen has
to re-read the config or the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import SecretStr

from paytui.config.environment import (
    ENV_ACCOUNT_ID,
    ENV_AGENT,
    ENV_APPROVE_ABOVE,
    ENV_BASE_URL,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    ENV_JOURNAL_URL,
    ENV_PROFILE,
    ENV_READ_ONLY,
    ENV_TOKEN,
)
from paytui.config.model import (
    IMPLICIT_PROFILE,
    AuthKind,
    Config,
    Environment,
    EvidencePrefs,
    Paging,
    Profile,
    PulsePrefs,
    TodayPrefs,
    TokenAuth,
    UiPrefs,
    UserCommand,
    check_agent_name,
    check_journal_location,
    describe_parameters,
)
from paytui.config.secrets import SecretKind, SecretStoreError, get_secret
from paytui.config.store import ConfigError, ConfigProblem, LoadResult, load_config
from paytui.config.urls import UrlPolicyError, check_base_url

#: The profile name shown when the base URL came from the command line or environment with no
#: profile of its own.
ADHOC_PROFILE = "(ad hoc)"
EMBEDDED_DISPLAY_NAME = "sandbox (embedded)"

Source = Literal["command line", "environment", "config", "implicit"]


@dataclass(frozen=True)
class Connection:
    """A resolved connection: everything needed to build the client and to behave safely.

    Secrets are `SecretStr`; call `.get_secret_value()` only where they are handed to the client.
    """

    profile_name: str
    environment: Environment
    base_url: str | None
    """None means the embedded sandbox."""
    token: SecretStr | None = None
    client_id: str | None = None
    client_secret: SecretStr | None = None
    scopes: tuple[str, ...] = ()
    token_auth: TokenAuth = "auto"
    """How the client id and secret go to the token endpoint (the profile's `token_auth`)."""
    paging: Paging = "offset"
    """How the service pages a list (the profile's `paging`)."""
    parameters: Mapping[str, str | None] = field(default_factory=dict)
    """The service's names of the charge list's filters where they are not paytui's (None: not
    sent, applied here): the profile's `parameters`."""
    refund_parameters: Mapping[str, str | None] = field(default_factory=dict)
    """The same for the refund list (`parameters.refunds`)."""
    verify: bool | str = True
    """True, or a CA bundle path; False only with insecure_skip_verify (see `insecure`)."""
    read_only: bool = False
    account_id: str | None = None
    confirm_threshold: Decimal = Decimal("100.00")
    keymap: Mapping[str, str] = field(default_factory=dict)
    commands: tuple[UserCommand, ...] = ()
    """The team's own commands (`[[commands]]`, docs/commands.md)."""
    ui: UiPrefs = field(default_factory=UiPrefs)
    today: TodayPrefs = field(default_factory=TodayPrefs)
    pulse: PulsePrefs = field(default_factory=PulsePrefs)
    evidence: EvidencePrefs = field(default_factory=EvidencePrefs)
    problems: tuple[ConfigProblem, ...] = ()
    """Config warnings to show in the UI (the connection is usable despite them)."""
    profile_source: Source = "implicit"
    """Where the profile choice came from (for the who-am-I panel)."""
    config_path: Path | None = None
    journal: str | None = None
    """Where the action journal is (`PAYTUI_JOURNAL_URL`, else the profile's `journal`): a
    ``postgresql://`` URL or ``sqlite:PATH``; None: this person's own file."""
    journal_password: SecretStr | None = None
    """The team journal's password from the secret store (None: libpq's PGPASSFILE /
    PGPASSWORD, or no password)."""
    agent: str | None = None
    """This person's name on the journal (`PAYTUI_AGENT`, else the profile's `agent`); None:
    login@host."""
    approve_above: Decimal | None = None
    """Four eyes: a refund or capture above it waits for a second person's approval
    (`PAYTUI_APPROVE_ABOVE`, else the profile's `approve_above`); None: off."""

    @property
    def is_embedded(self) -> bool:
        return self.base_url is None

    @property
    def is_production(self) -> bool:
        return self.environment == "production"

    @property
    def insecure(self) -> bool:
        """Certificate verification is off: the header must say so."""
        return self.verify is False

    @property
    def auth_kind(self) -> AuthKind:
        if self.base_url is None:
            return "embedded"
        return "token" if self.token is not None else "client_credentials"

    @property
    def display_name(self) -> str:
        """The label for the header and switcher."""
        return EMBEDDED_DISPLAY_NAME if self.is_embedded else self.profile_name

    def needs_typed_confirmation(self, amount: Decimal) -> bool:
        """Money actions above the threshold on production ask the user to type the amount."""
        return self.is_production and amount > self.confirm_threshold

    def secret_values(self) -> list[str]:
        """The raw secrets, for `paytui.logs.register_secret` (and nothing else)."""
        secrets = (self.token, self.client_secret, self.journal_password)
        return [s.get_secret_value() for s in secrets if s is not None]

    def describe(self) -> dict[str, str]:
        """Safe facts for a who-am-I panel: never a secret, only where things came from."""
        facts = {
            "profile": self.display_name,
            "source": self.profile_source,
            "environment": self.environment,
            "base_url": self.base_url or "embedded sandbox (private socket)",
            "auth": self.auth_kind.replace("_", " "),
            "read_only": "yes" if self.read_only else "no",
            "verify": (
                "OFF (insecure_skip_verify)"
                if self.verify is False
                else (f"CA bundle {self.verify}" if isinstance(self.verify, str) else "on")
            ),
        }
        if self.client_id:
            facts["client_id"] = self.client_id
        if self.scopes:
            facts["requested_scopes"] = " ".join(self.scopes)
        if self.client_id and self.token_auth != "auto":
            facts["token_auth"] = self.token_auth
        if self.paging != "offset":
            facts["paging"] = self.paging
        if self.parameters or self.refund_parameters:
            facts["parameters"] = describe_parameters(self.parameters, self.refund_parameters)
        if self.account_id:
            facts["account_id"] = self.account_id
        return facts


def _env(environ: Mapping[str, str], name: str) -> str | None:
    """An environment value, with empty meaning unset (`PAYTUI_PROFILE= paytui`)."""
    value = environ.get(name)
    return value if value else None


def forced_read_only(environ: Mapping[str, str]) -> bool:
    """`PAYTUI_READ_ONLY` is set: a value other than "0" counts (over-restricting is the safe
    mistake)."""
    return _env(environ, ENV_READ_ONLY) not in (None, "0")


def resolve_connection(
    *,
    profile: str | None = None,
    base_url: str | None = None,
    environ: Mapping[str, str] | None = None,
    loaded: LoadResult | None = None,
    secrets_file: Path | None = None,
) -> Connection:
    """Combine command line, environment, config file and the sandbox default into a Connection.

    `loaded` is the result of `load_config()` (read fresh when None); `secrets_file` overrides the
    secrets file location (tests). Raises `ConfigError` (one line) when the request cannot be
    honoured: an unknown or broken profile asked for by name, a refused URL, missing credentials.
    A broken config file by itself is not an error: its problems ride along on the connection.
    `PAYTUI_READ_ONLY` makes it read-only whatever the profile says.
    """
    env = os.environ if environ is None else environ
    connection = _resolve(profile, base_url, env, loaded, secrets_file)
    approve = _env(env, ENV_APPROVE_ABOVE)
    if approve is not None:
        connection = replace(connection, approve_above=_approve_above(approve))
    if forced_read_only(env) and not connection.read_only:
        return replace(connection, read_only=True)
    return connection


def _approve_above(text: str) -> Decimal:
    """`PAYTUI_APPROVE_ABOVE` as an amount (0 or more): a bad one is refused, never ignored —
    four eyes asked for and silently off would be the unsafe mistake."""
    from paytui.actions.amounts import parse_amount

    try:
        return parse_amount(text, allow_zero=True)
    except Exception as exc:
        raise ConfigError(f"{ENV_APPROVE_ABOVE}: {getattr(exc, 'message', exc)}") from None


def recorded_name(
    profile: str, *, environ: Mapping[str, str] | None = None, loaded: LoadResult | None = None
) -> str:
    """The name the journal records `profile`'s actions under: the executor writes the
    connection's `display_name`, which for the embedded sandbox is `EMBEDDED_DISPLAY_NAME`, so
    `paytui history --profile sandbox` must look for that."""
    env = os.environ if environ is None else environ
    result = loaded if loaded is not None else load_config()
    chosen = result.config.get_profile(profile)
    if chosen is not None and chosen.base_url is None and not _env(env, ENV_BASE_URL):
        return EMBEDDED_DISPLAY_NAME
    return profile


def journal_of(
    profile: str, *, environ: Mapping[str, str] | None = None, loaded: LoadResult | None = None
) -> tuple[str | None, SecretStr | None] | None:
    """Where `profile`'s journal is and its password (`PAYTUI_JOURNAL_URL` wins), without its
    credentials: reading a profile's audit trail (`paytui history --profile`) needs its journal,
    not a login. None when no such profile is configured (its entries, if any, are in the
    journal of the connection in use)."""
    env = os.environ if environ is None else environ
    result = loaded if loaded is not None else load_config()
    chosen = result.config.profiles.get(profile)
    if chosen is None:
        return None
    journal, password, _ = _team(profile, chosen, env, None, [])
    return journal, password


def _resolve(
    profile: str | None,
    base_url: str | None,
    env: Mapping[str, str],
    loaded: LoadResult | None,
    secrets_file: Path | None,
) -> Connection:
    """`resolve_connection` as the profile and the credentials decide it."""
    result = loaded if loaded is not None else load_config()
    config = result.config
    problems = list(result.problems)

    source: Source
    if profile:
        name, source = profile, "command line"
    elif _env(env, ENV_PROFILE):
        name, source = _env(env, ENV_PROFILE) or "", "environment"
    elif config.default_profile:
        name, source = config.default_profile, "config"
    else:
        name, source = IMPLICIT_PROFILE, "implicit"

    chosen = config.get_profile(name)
    if chosen is None:
        raise ConfigError(_unknown_profile_message(name, source, result))
    implicit = name not in config.profiles
    team = _team(name, chosen, env, secrets_file, problems)

    url_override = base_url or _env(env, ENV_BASE_URL)
    url_origin = "--base-url" if base_url else ENV_BASE_URL
    if url_override is not None:
        try:
            url: str | None = check_base_url(url_override)
        except UrlPolicyError as exc:
            raise ConfigError(f"{url_origin}: {exc}") from None
    else:
        url = chosen.base_url

    if url is None:
        ignored = [v for v in (ENV_TOKEN, ENV_CLIENT_ID, ENV_CLIENT_SECRET) if _env(env, v)]
        if ignored:
            problems.append(
                ConfigProblem(
                    None,
                    None,
                    f"{', '.join(ignored)} ignored: the embedded sandbox uses its demo client "
                    f"(set {ENV_BASE_URL} or pick a profile to use them)",
                )
            )
        return _build(name, chosen, config, result, problems, source, url=None, team=team)

    if chosen.base_url is None and implicit:
        name = ADHOC_PROFILE
    token, client_id, client_secret = _credentials(name, chosen, env, secrets_file, url)
    return _build(
        name,
        chosen,
        config,
        result,
        problems,
        source,
        url=url,
        token=token,
        client_id=client_id,
        client_secret=client_secret,
        account_id=_env(env, ENV_ACCOUNT_ID),
        team=team,
    )


#: Where the journal is, its password, who acts.
_Team = tuple[str | None, SecretStr | None, str | None]


def _team(
    name: str,
    chosen: Profile,
    env: Mapping[str, str],
    secrets_file: Path | None,
    problems: list[ConfigProblem],
) -> _Team:
    """The journal's location and password and the agent's name (the environment wins)."""
    try:
        journal = check_journal_location(_env(env, ENV_JOURNAL_URL)) or chosen.journal
    except ValueError as exc:
        raise ConfigError(f"{ENV_JOURNAL_URL}: {exc}") from None
    try:
        agent = check_agent_name(_env(env, ENV_AGENT)) or chosen.agent
    except ValueError as exc:
        raise ConfigError(f"{ENV_AGENT}: {exc}") from None
    password = None
    if journal is not None and journal.startswith(("postgresql://", "postgres://")):
        try:
            password = get_secret(
                name, "journal_password", hint=chosen.secret_store, path=secrets_file
            )
        except SecretStoreError as exc:
            problems.append(ConfigProblem(None, None, f"the journal's password: {exc}"))
    return journal, password, agent


def _build(
    name: str,
    chosen: Profile,
    config: Config,
    result: LoadResult,
    problems: list[ConfigProblem],
    source: Source,
    *,
    url: str | None,
    token: SecretStr | None = None,
    client_id: str | None = None,
    client_secret: SecretStr | None = None,
    account_id: str | None = None,
    team: _Team = (None, None, None),
) -> Connection:
    if chosen.environment is not None:
        environment: Environment = chosen.environment
    else:
        # An unlabelled remote is treated as production: over-warning is the safe mistake.
        environment = "sandbox" if url is None else "production"
    ui = chosen.ui_prefs(config.ui)
    return Connection(
        profile_name=name,
        environment=environment,
        base_url=url,
        token=token,
        client_id=client_id,
        client_secret=client_secret,
        scopes=chosen.scopes if client_id else (),
        token_auth=chosen.token_auth if client_id else "auto",
        paging=chosen.paging,
        parameters=chosen.parameters.names(),
        refund_parameters=chosen.parameters.refunds.names(),
        verify=_verify(chosen) if url is not None else True,
        read_only=chosen.read_only,
        account_id=account_id or chosen.account_id,
        confirm_threshold=ui.confirm_threshold,
        keymap=dict(config.keymap),
        commands=config.commands,
        ui=ui,
        today=config.today,
        pulse=config.pulse,
        evidence=config.evidence,
        problems=tuple(problems),
        profile_source=source,
        config_path=result.path,
        journal=team[0],
        journal_password=team[1],
        agent=team[2],
        approve_above=chosen.approve_above,
    )


def _verify(profile: Profile) -> bool | str:
    if profile.insecure_skip_verify:
        return False
    if isinstance(profile.verify, str):
        bundle = Path(profile.verify).expanduser()
        if not bundle.is_file():
            raise ConfigError(f"the CA bundle {bundle} (verify) does not exist")
        return str(bundle)
    return True


def _credentials(
    name: str, chosen: Profile, env: Mapping[str, str], secrets_file: Path | None, url: str
) -> tuple[SecretStr | None, str | None, SecretStr | None]:
    """(token, client_id, client_secret): env credentials replace the profile's as a set."""
    env_token = _env(env, ENV_TOKEN)
    if env_token:
        return SecretStr(env_token), None, None
    env_id, env_secret = _env(env, ENV_CLIENT_ID), _env(env, ENV_CLIENT_SECRET)
    client_id = env_id or chosen.client_id
    if client_id is not None:
        secret = SecretStr(env_secret) if env_secret else None
        if secret is None and chosen.client_id is not None:
            secret = _profile_secret(name, chosen, "client_secret", env, secrets_file)
        if secret is None:
            raise ConfigError(
                f"no client secret for client id {client_id!r}: set {ENV_CLIENT_SECRET}"
            )
        return None, client_id, secret
    if env_secret:
        raise ConfigError(f"{ENV_CLIENT_SECRET} is set but {ENV_CLIENT_ID} is not")
    if name == ADHOC_PROFILE:
        raise ConfigError(
            f"no credentials for {url}: set {ENV_TOKEN}, or {ENV_CLIENT_ID} and "
            f"{ENV_CLIENT_SECRET}, or add a profile with `paytui profile add`"
        )
    return _profile_secret(name, chosen, "token", env, secrets_file), None, None


def _profile_secret(
    name: str, chosen: Profile, kind: SecretKind, env: Mapping[str, str], secrets_file: Path | None
) -> SecretStr:
    label = "client secret" if kind == "client_secret" else "bearer token"
    env_name = chosen.secret_env
    if env_name is not None:
        value = _env(env, env_name)
        if value is None:
            raise ConfigError(
                f"profile {name!r} takes its {label} from ${env_name}, which is not set"
            )
        return SecretStr(value)
    try:
        secret = get_secret(name, kind, hint=chosen.secret_store, path=secrets_file)
    except SecretStoreError as exc:
        raise ConfigError(str(exc)) from None
    if secret is None:
        where = "the system keyring or secrets.toml"
        raise ConfigError(
            f"no {label} stored for profile {name!r} (looked in {where}); "
            f"run `paytui profile add {name} ... --replace` to store one"
        )
    return secret


def _unknown_profile_message(name: str, source: Source, result: LoadResult) -> str:
    how = {"command line": "--profile", "environment": ENV_PROFILE}.get(source, "default_profile")
    broken = [p for p in result.problems if f"profile {name!r} is ignored" in p.message]
    if broken:
        details = [
            str(p)
            for p in result.problems
            if f"profiles.{name}" in p.message and not p.message.endswith("(ignored)")
        ]
        first = details[0] if details else str(broken[0])
        return f"{how} {name}: the profile has errors: {first}"
    known = ", ".join(result.config.profile_names())
    if result.exists and not result.parsed:
        return f"{how} {name}: the config file is broken: {result.problems[0]}"
    return f"{how} {name}: no such profile (known: {known})"


def client_kwargs(connection: Connection) -> dict[str, Any]:
    """Keyword arguments for `PaymentClient(**client_kwargs(connection))` for a real service.

    The embedded sandbox has no URL of its own (the launcher builds that client over the private
    socket), so asking for it here is a programming error.
    """
    if connection.base_url is None:
        raise ValueError("the embedded sandbox has no client kwargs; the launcher builds it")
    return {
        "base_url": connection.base_url,
        "token": connection.token,
        "client_id": connection.client_id,
        "client_secret": connection.client_secret,
        "scopes": list(connection.scopes) or None,
        "token_auth": connection.token_auth,
        "paging": connection.paging,
        "parameters": dict(connection.parameters),
        "refund_parameters": dict(connection.refund_parameters),
        "verify": connection.verify,
    }
