"""`paytui profile probe NAME [--write]`: what the profile's service does where the spec is silent.

It tries the service with harmless reads (`paytui.api.probe`: the token request, GETs of
`/v2/charges`; never another POST), prints each finding in one line on stdout, then what the
profile would store of them (`token_auth`, `paging`, `[profiles.NAME.parameters]`). It writes
them into config.toml only with `--write` (in place: comments and every other setting kept).

The profile is tried as written: `PAYTUI_BASE_URL`, `PAYTUI_TOKEN` and `PAYTUI_CLIENT_ID` would
make it another service or client, and what is learned is written into this profile, so they
are not used. Exit codes are the command line's (`Exit`, docs/cli.md). Never a secret printed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from paytui.commands.runtime import CommandError, Exit, Io, exit_code_of
from paytui.console import say as console_say

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.probe import ProbeReport
    from paytui.config.connection import Connection
    from paytui.config.model import Profile

__all__ = ["changes_to_store", "cli", "main"]

PROG = "paytui profile probe"
#: Variables that would point the profile at another service or client.
NOT_USED = ("PAYTUI_BASE_URL", "PAYTUI_TOKEN", "PAYTUI_CLIENT_ID")

#: `clients(connection)` -> `make_client(**overrides)`: tests reach a fake service this way.
Clients = Callable[["Connection"], Callable[..., "PaymentClient"]]


def _clients(connection: Connection) -> Callable[..., PaymentClient]:
    from paytui.api.client import PaymentClient
    from paytui.config import client_kwargs

    return lambda **overrides: PaymentClient(**{**client_kwargs(connection), **overrides})


def cli(argv: list[str]) -> int:
    """`paytui profile probe NAME [--write]` from the shell: the exit code."""
    from paytui.console import SafeArgumentParser

    class Parser(SafeArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise CommandError(f"{message} (see `{self.prog} --help`)", Exit.USAGE)

    parser = Parser(
        prog=PROG,
        description="Try a profile's service with harmless reads only (the token request, GET "
        "/v2/charges; never another POST): which credential style its token endpoint takes, "
        "where a list's rows and count are, how it pages, which filters it applies, ignores or "
        "refuses, whether it refuses unknown query parameters. One line per finding, then what "
        "the profile would store (token_auth, paging, parameters). Exit codes: docs/cli.md.",
        allow_abbrev=False,
    )
    parser.add_argument("name", help="the profile (it needs a base_url)")
    parser.add_argument(
        "--write",
        action="store_true",
        help="store what was learned in the profile (config.toml edited in place)",
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help
        return int(exit_.code or 0)
    except CommandError as exc:
        console_say(f"{PROG}: error: {exc.message}", err=True)
        return exc.code
    return main(args.name, write=args.write)


def main(
    name: str,
    *,
    write: bool = False,
    io: Io | None = None,
    environ: Mapping[str, str] | None = None,
    clients: Clients = _clients,
) -> int:
    """Probe profile `name`, print the findings, store them with `write`; the exit code."""
    io = io or Io()
    try:
        return asyncio.run(_run(name, write, io, environ, clients))
    except KeyboardInterrupt:
        io.message(f"{PROG}: cancelled")
        return Exit.INTERRUPTED
    except Exception as exc:  # one line, never a traceback; the message is sanitised by `say`
        from paytui.logs import redact

        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        io.message(f"{PROG}: error: {redact(message)}")
        return exit_code_of(exc)


async def _run(
    name: str, write: bool, io: Io, environ: Mapping[str, str] | None, clients: Clients
) -> int:
    from paytui.api.probe import probe
    from paytui.config import load_config, resolve_connection
    from paytui.config.store import update_profile
    from paytui.logs import register_secret

    env = {k: v for k, v in (os.environ if environ is None else environ).items()}
    for variable in NOT_USED:
        env.pop(variable, None)
    connection = resolve_connection(profile=name, environ=env)
    if connection.is_embedded:
        raise CommandError(
            f"profile {name!r} is the embedded sandbox: there is no service of its own to probe",
            Exit.USAGE,
        )
    for secret in connection.secret_values():
        register_secret(secret)
    for problem in connection.problems:
        io.message(f"paytui: warning: {problem}")

    def say(text: str) -> None:  # the one display sanitiser: a finding quotes the service
        console_say(text, file=io.out)

    say(f"Probing {name!r} ({connection.base_url}) with reads only:")
    report = await probe(
        clients(connection),
        oauth=connection.client_id is not None,
        token_auth=connection.token_auth,
        paging=connection.paging,
        names=connection.parameters,
    )
    for finding in report.findings:
        say(f"  {finding}")
    profile = load_config(connection.config_path).config.profiles.get(name)
    if profile is None:  # pragma: no cover - resolve_connection found it a moment ago
        raise CommandError(f"profile {name!r} is no longer in the config file", Exit.CONFIG)
    changes = changes_to_store(report, profile)
    if not changes:
        say("Nothing to store: the profile already says all of this.")
        return Exit.OK
    listed = ", ".join(_toml_lines(changes))
    if not write:
        say(f"To store: {listed}")
        say(f"Not written; `paytui profile probe {name} --write` stores it in config.toml.")
        return Exit.OK
    path = update_profile(name, changes, connection.config_path)
    say(f"Stored in {path}: {listed}")
    return Exit.OK


def changes_to_store(report: ProbeReport, profile: Profile) -> dict[str, Any]:
    """What the profile would change to say what the probe learned (None: remove the key, so
    paytui's own default is used)."""
    changes: dict[str, Any] = {}
    learned = report.token_auth
    # "auto" finds Basic itself: only the form fields (or a style the profile names wrongly)
    # are worth a setting.
    if (
        learned
        and learned != profile.token_auth
        and (profile.token_auth, learned) != ("auto", "basic")
    ):
        changes["token_auth"] = learned
    if report.paging is not None and report.paging != profile.paging:
        changes["paging"] = report.paging
    current = profile.parameters.names()
    parameters: dict[str, Any] = {}
    for name, wire in report.parameters.items():
        if wire == current.get(name, name):
            continue
        parameters[name] = False if wire is None else (None if wire == name else wire)
    if parameters:
        changes["parameters"] = parameters
    return changes


def _toml_lines(changes: Mapping[str, Any], prefix: str = "") -> list[str]:
    """`token_auth = "form"`, `parameters.contact_name = false`, `parameters.status` removed."""
    lines: list[str] = []
    for key, value in changes.items():
        if isinstance(value, Mapping):
            lines += _toml_lines(value, f"{prefix}{key}.")
        elif value is None:
            lines.append(f"{prefix}{key} removed (paytui's own name)")
        elif isinstance(value, bool):
            lines.append(f"{prefix}{key} = {str(value).lower()}")
        else:
            lines.append(f'{prefix}{key} = "{value}"')
    return lines
