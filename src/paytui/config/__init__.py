"""Profiles, secrets and connection resolution (no UI, no network).

The public API, for the launcher and the UI:

- `load_config(path=None) -> LoadResult` (never raises; `.config`, `.problems`)
- `resolve_connection(*, profile, base_url, environ) -> Connection` (raises `ConfigError`)
- `client_kwargs(connection) -> dict` for `PaymentClient(**...)`
- `save_profile`, `remove_profile`, `set_default_profile` (atomic writes of config.toml)
- `paytui.config.secrets`: `store_secret`, `get_secret`, `delete_secret`, `secret_location`

See docs/configuration.md for the file format and precedence.
"""

from paytui.config.connection import Connection, client_kwargs, resolve_connection
from paytui.config.model import IMPLICIT_PROFILE, Config, Profile, UiPrefs
from paytui.config.store import (
    ConfigError,
    ConfigProblem,
    LoadResult,
    load_config,
    remove_profile,
    save_profile,
    set_default_profile,
)
from paytui.config.urls import UrlPolicyError, check_base_url, is_loopback_host

__all__ = [
    "IMPLICIT_PROFILE",
    "Config",
    "ConfigError",
    "ConfigProblem",
    "Connection",
    "LoadResult",
    "Profile",
    "UiPrefs",
    "UrlPolicyError",
    "check_base_url",
    "client_kwargs",
    "is_loopback_host",
    "load_config",
    "remove_profile",
    "resolve_connection",
    "save_profile",
    "set_default_profile",
]
