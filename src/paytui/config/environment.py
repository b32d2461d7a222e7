"""The environment variables that choose paytui's connection, and the early questions asked of
them before the config is read.

A module with no imports of its own beyond dataclasses (the config's file location comes from
`config.files`, platformdirs only; the base-URL policy from `config.urls`, the standard
library), so the dashboard and the script commands can ask it before pydantic and the config's
models load. `paytui.config.connection.resolve_connection` still decides everything; these only
say when its answer is known without it: the embedded sandbox (the launcher starts its child
while the config is read; `paytui history` finds the journal), this person's own journal
whatever the config file's values (`own_journal`: `paytui history` with a config file, which
reads the file's TOML but none of its models), and a service named by the command line and the
environment alone (`plain_service`: `paytui charges show`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "ENV_ACCOUNT_ID",
    "ENV_AGENT",
    "ENV_APPROVE_ABOVE",
    "ENV_BASE_URL",
    "ENV_CLIENT_ID",
    "ENV_CLIENT_SECRET",
    "ENV_JOURNAL_URL",
    "ENV_PROFILE",
    "ENV_READ_ONLY",
    "ENV_SCREEN_READER",
    "ENV_TOKEN",
    "ENV_VARS",
    "IMPLICIT_PROFILE",
    "TEAM_VARS",
    "PlainService",
    "every_default",
    "only_the_sandbox",
    "own_journal",
    "plain_service",
    "screen_reader_asked",
]

ENV_PROFILE = "PAYTUI_PROFILE"
ENV_BASE_URL = "PAYTUI_BASE_URL"
ENV_TOKEN = "PAYTUI_TOKEN"
ENV_CLIENT_ID = "PAYTUI_CLIENT_ID"
ENV_CLIENT_SECRET = "PAYTUI_CLIENT_SECRET"
ENV_ACCOUNT_ID = "PAYTUI_ACCOUNT_ID"
#: Where the action journal is (wins over the profile's `journal`): a team's PostgreSQL.
ENV_JOURNAL_URL = "PAYTUI_JOURNAL_URL"
#: This person's name on a team journal (wins over the profile's `agent`).
ENV_AGENT = "PAYTUI_AGENT"
#: Four eyes above this amount (wins over the profile's `approve_above`; docs/team.md).
ENV_APPROVE_ABOVE = "PAYTUI_APPROVE_ABOVE"
#: Read-only whatever the profile says (any value but empty or "0"): `paytui serve` sets it for
#: its sessions, and it holds for every profile the process resolves, switched to included.
ENV_READ_ONLY = "PAYTUI_READ_ONLY"
#: Screen-reader mode (any value but empty or "0"), as `--screen-reader` and `[ui] screen_reader`
#: (docs/accessibility.md).
ENV_SCREEN_READER = "PAYTUI_SCREEN_READER"
ENV_VARS = (ENV_PROFILE, ENV_BASE_URL, ENV_TOKEN, ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_ACCOUNT_ID)
#: The profile that exists even when the file defines none: the embedded sandbox. Reserved:
#: `paytui profile add sandbox --base-url …` would silently point a bare `paytui` elsewhere.
#: Here rather than with the config's models (`config.model` takes it from here), so that
#: `own_journal` can name it without them.
IMPLICIT_PROFILE = "sandbox"


def only_the_sandbox(profile: str | None, base_url: str | None, environ: Mapping[str, str]) -> bool:
    """True when the connection can only be the embedded sandbox: no profile or URL on the
    command line, none of `ENV_VARS` set, and no config file (a fresh machine, the README's
    first command). A config file of any content answers False: it is for
    `resolve_connection` to read."""
    if profile or base_url or any(environ.get(name) for name in ENV_VARS):
        return False
    from paytui.config.files import config_path

    return not config_path().exists()


#: What the embedded sandbox's connection takes from the environment besides `ENV_VARS`: a
#: journal elsewhere, an agent's name, four eyes (each checked when the connection is resolved).
TEAM_VARS = (ENV_JOURNAL_URL, ENV_AGENT, ENV_APPROVE_ABOVE)


def every_default(profile: str | None, base_url: str | None, environ: Mapping[str, str]) -> bool:
    """True when the connection is the embedded sandbox with every default, so there is nothing
    to read or check to know it: `only_the_sandbox`, and none of `TEAM_VARS` set. A script
    command that needs only the journal (`paytui history`) then finds it without the config's
    models (pydantic)."""
    return only_the_sandbox(profile, base_url, environ) and not any(
        environ.get(name) for name in TEAM_VARS
    )


def own_journal(profile: str | None, base_url: str | None, environ: Mapping[str, str]) -> bool:
    """True when the connection's journal is this person's own file whatever the config file's
    values are, so that reading the trail (`paytui history`) needs neither the config's models
    (pydantic) nor a login, as `journal_of` reads a profile's trail without one.

    Nothing on the command line or in the environment chooses the connection or the journal
    (`ENV_VARS`, `TEAM_VARS`), and the config file is absent, or is TOML in which no profile that
    `resolve_connection` may choose has a `journal` key: not the file's `default_profile`, nor
    the profile it falls back to when that one is missing or broken (`IMPLICIT_PROFILE`). Each
    of those, valid or left out for its errors, then gives the own file, so the file's values
    need not be validated to know it. False for anything else, a file that is not TOML or not
    of that shape included: `resolve_connection` reads it and says what is wrong. The file's
    other tables are not read here (their mistakes are the dashboard's and `paytui profile
    list`'s to say)."""
    if profile or base_url or any(environ.get(name) for name in (*ENV_VARS, *TEAM_VARS)):
        return False
    import tomllib

    from paytui.config.files import UnreadableFileError, config_path, loads_toml, read_small_text

    path = config_path()
    try:
        raw = loads_toml(read_small_text(path), path)
    except FileNotFoundError:
        return True
    except (UnreadableFileError, tomllib.TOMLDecodeError):
        return False
    chosen = raw.get("default_profile", IMPLICIT_PROFILE)
    profiles = raw.get("profiles", {})
    if not isinstance(chosen, str) or not isinstance(profiles, dict):
        return False
    for name in {chosen, IMPLICIT_PROFILE}:
        table = profiles.get(name, {})
        if not isinstance(table, dict) or "journal" in table:
            return False
    return True


def screen_reader_asked(environ: Mapping[str, str]) -> bool:
    """`PAYTUI_SCREEN_READER` is set to something other than "" or "0"."""
    return environ.get(ENV_SCREEN_READER, "") not in ("", "0")


@dataclass(frozen=True)
class PlainService:
    """A service chosen by the command line and the environment alone (`plain_service`): what
    `resolve_connection` makes of them then, without the config's models. Its secrets are
    plain strings: it lives for one read of one script command."""

    base_url: str
    """Checked by the base-URL policy (`config.urls.check_base_url`), normalised."""
    token: str | None
    client_id: str | None
    client_secret: str | None

    def secret_values(self) -> list[str]:
        """The raw secrets, for `paytui.logs.register_secret` (as `Connection.secret_values`)."""
        return [s for s in (self.token, self.client_secret) if s]


def plain_service(
    profile: str | None, base_url: str | None, environ: Mapping[str, str]
) -> PlainService | None:
    """The service when nothing but `--base-url` / `PAYTUI_BASE_URL` and the credentials'
    variables choose it: no config file, no profile (`--profile`, `PAYTUI_PROFILE`), none of
    `TEAM_VARS`. `resolve_connection` then gives the ad hoc profile with every default (verify
    on, no scopes, the token endpoint's styles tried in their default order, offset paging, no
    renamed filters) and these credentials: `PAYTUI_TOKEN`, else `PAYTUI_CLIENT_ID` with
    `PAYTUI_CLIENT_SECRET` (`tests/config/test_plain_service.py` holds the two to the same
    facts). None in every other case, a URL the policy refuses and missing credentials
    included: `resolve_connection` decides those, and says what is wrong."""
    if profile or environ.get(ENV_PROFILE) or any(environ.get(name) for name in TEAM_VARS):
        return None
    url = base_url or environ.get(ENV_BASE_URL)
    if not url:
        return None
    from paytui.config.files import config_path

    if config_path().exists():
        return None
    from paytui.config.urls import UrlPolicyError, check_base_url

    try:
        checked = check_base_url(url)
    except UrlPolicyError:
        return None
    token = environ.get(ENV_TOKEN) or None
    if token is not None:
        return PlainService(checked, token, None, None)
    client_id, secret = environ.get(ENV_CLIENT_ID) or None, environ.get(ENV_CLIENT_SECRET) or None
    if client_id is None or secret is None:
        return None
    return PlainService(checked, None, client_id, secret)
