"""What every command line of paytui refuses before it parses anything: a secret as an argument.

Kept apart from the profile commands (`paytui.config.cli`) and free of imports, so the
dashboard's launcher can check its arguments before it reads the config (pydantic and the
config's models are then not on the path to starting the embedded sandbox).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SECRET_ARG_MESSAGE", "SECRET_OPTIONS", "CliError", "refuse_secret_arguments"]

#: Options that would carry a secret on the command line. Refused by name, value never echoed.
SECRET_OPTIONS = frozenset(
    {
        "--client-secret",
        "--secret",
        "--token",
        "--bearer-token",
        "--access-token",
        "--password",
    }
)

SECRET_ARG_MESSAGE = (
    "secrets are never taken as command-line arguments (other users can see them in the process "
    "list); use the prompt, --secret-stdin, or --secret-env VAR / --token-env VAR"
)


class CliError(Exception):
    """A user mistake: printed as one line, exit code 2."""


def refuse_secret_arguments(argv: Sequence[str]) -> None:
    """Raise if any argument looks like a secret-carrying option (`--token X`, `--secret=X`)."""
    for arg in argv:
        if arg.split("=", 1)[0] in SECRET_OPTIONS:
            raise CliError(SECRET_ARG_MESSAGE)
