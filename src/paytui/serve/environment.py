"""The environment of a browser session's `paytui`: an allow-list, never the server's whole one.

textual-serve hands each session a copy of the server's environment, so a `PAYTUI_TOKEN` or
`PAYTUI_CLIENT_SECRET` exported in the shell that ran `paytui serve` would reach every session
(and whatever it runs). The child reads its credentials where the terminal app reads them: the
keyring or the 0600 secrets file, through the profile's name. Only the names below pass.
"""

from __future__ import annotations

from collections.abc import Mapping

from paytui.config.environment import (
    ENV_ACCOUNT_ID,
    ENV_AGENT,
    ENV_APPROVE_ABOVE,
    ENV_JOURNAL_URL,
    ENV_PROFILE,
    ENV_READ_ONLY,
    ENV_VARS,
)

#: Where the child finds its files, its language and its keyring; none of them is a secret.
PASSED = frozenset(
    {
        "HOME",
        "USER",
        "LOGNAME",
        "PATH",
        "LANG",
        "LANGUAGE",
        "TZ",
        # The keyring: which backend, and the session bus the Secret Service answers on.
        "PYTHON_KEYRING_BACKEND",
        # No first-page child (`paytui.ui.first_page`) when the server is started without.
        "PAYTUI_FIRST_PAGE",
        "DBUS_SESSION_BUS_ADDRESS",
        # The team journal: where it is (a password in the URL is refused) and who acts; its
        # password comes from the secret store or the file libpq reads.
        ENV_JOURNAL_URL,
        ENV_AGENT,
        # Four eyes above an amount: a browser's dashboard holds it as the terminal's does.
        ENV_APPROVE_ABOVE,
        ENV_ACCOUNT_ID,
        "PGPASSFILE",
        "PGSERVICEFILE",
        "PAYTUI_SANDBOX_IDLE",
    }
)
#: Families passed by prefix: the XDG base directories (config, data, state, runtime) and locale.
PASSED_PREFIXES = ("XDG_", "LC_")


def child_environment(
    environ: Mapping[str, str], *, profile: str | None, read_only: bool
) -> dict[str, str]:
    """The allow-listed part of `environ`, the profile's name, and `PAYTUI_READ_ONLY` unless
    actions are allowed (it holds for every profile the session resolves)."""
    child = {
        name: value
        for name, value in environ.items()
        if name in PASSED or name.startswith(PASSED_PREFIXES)
    }
    if profile:
        child[ENV_PROFILE] = profile
    if read_only:
        child[ENV_READ_ONLY] = "1"
    return child


def withheld(environ: Mapping[str, str]) -> list[str]:
    """paytui's own variables set in `environ` that a session does not get (credentials, and a
    base URL useless without them), to say so at start rather than surprise."""
    return [name for name in ENV_VARS if environ.get(name) and name not in PASSED | {ENV_PROFILE}]
