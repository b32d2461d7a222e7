"""The environment variables that choose paytui's connection, and the one early question the
launcher asks of them before the config is read.

A module with no imports of its own (the config's file location comes from `config.files`,
platformdirs only), so the dashboard can ask it before pydantic and the config's models load.
`paytui.config.connection.resolve_connection` still decides everything; this only lets the
launcher start the embedded sandbox's child while the config is being read.
"""

from __future__ import annotations

from collections.abc import Mapping

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
    "TEAM_VARS",
    "every_default",
    "only_the_sandbox",
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


def screen_reader_asked(environ: Mapping[str, str]) -> bool:
    """`PAYTUI_SCREEN_READER` is set to something other than "" or "0"."""
    return environ.get(ENV_SCREEN_READER, "") not in ("", "0")
