"""Profiles, secrets and connection resolution (no UI, no network).

The public API, for the launcher and the UI:

- `load_config(path=None) -> LoadResult` (never raises; `.config`, `.problems`)
- `resolve_connection(*, profile, base_url, environ) -> Connection` (raises `ConfigError`)
- `client_kwargs(connection) -> dict` for `PaymentClient(**...)`
- `save_profile`, `remove_profile`, `set_default_profile` (atomic writes of config.toml)
- `paytui.config.secrets`: `store_secret`, `get_secret`, `delete_secret`, `secret_location`

See docs/configuration.md for the file format and precedence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paytui.lazy import lazy_exports

if TYPE_CHECKING:
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

#: Where each public name lives. Imported on first use, so that `paytui.config.files`,
#: `.arguments` and `.environment` can be imported without pydantic and the config's models
#: (the dashboard's launcher asks them before it starts the embedded sandbox).
_HOMES = {
    "Connection": "connection",
    "client_kwargs": "connection",
    "resolve_connection": "connection",
    "IMPLICIT_PROFILE": "model",
    "Config": "model",
    "Profile": "model",
    "UiPrefs": "model",
    "ConfigError": "store",
    "ConfigProblem": "store",
    "LoadResult": "store",
    "load_config": "store",
    "remove_profile": "store",
    "save_profile": "store",
    "set_default_profile": "store",
    "UrlPolicyError": "urls",
    "check_base_url": "urls",
    "is_loopback_host": "urls",
}


__getattr__ = lazy_exports(__name__, _HOMES)


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
