"""`paytui serve [--port N] [--profile NAME] [--allow-actions] [--max-sessions N]`.

Loopback only, with no way around it: the server's one key is the printed URL, which is enough
for the person who started it and nobody else; reaching it from another machine goes through an
SSH tunnel or an authenticating reverse proxy (docs/browser.md), never through `--host`.
Read-only unless `--allow-actions`; on a production profile that also takes the profile's
name typed at start. Nothing heavy is imported before the arguments are checked.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import shlex
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn, TextIO

from paytui.console import SafeArgumentParser, say
from paytui.text import safe, safe_lines

if TYPE_CHECKING:
    import socket

    from paytui.serve.server import GuardedServer

DEFAULT_PORT = 8000
#: Names that mean this machine only. `localhost` is resolved by the system (normally 127.0.0.1).
LOOPBACK_NAMES = ("localhost",)
INSTALL_HINT = (
    "paytui serve needs textual-serve: pip install 'paytui[serve]'"
    " (in a checkout: .venv/bin/pip install -e '.[serve]')"
)


#: The loggers of the server's parts: aiohttp logs a failed request with its traceback.
SERVER_LOGGERS = ("aiohttp", "textual-serve", "paytui.serve")


class OneLine(logging.Formatter):
    """A log record as one sanitised line: the exception's type and words, never its traceback
    (the terminal running `paytui serve` is a person's, not a log file)."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += f": {type(error).__name__}: {error}"
        return "paytui serve: " + safe(text)


def one_line_logs(stream: TextIO) -> logging.Handler:
    """The server's warnings and errors, one line each, on `stream` (returns the handler)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(OneLine())
    for name in SERVER_LOGGERS:
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False
    return handler


class ServeError(Exception):
    """A refusal, said in one line; exit code 2."""


class _Parser(SafeArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ServeError(f"{message} (see `paytui serve --help`)")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (0 to 65535)")
    return port


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="paytui serve",
        description="The dashboard in a browser, on this machine only: prints one URL holding a "
        "key for this launch; each browser tab gets its own dashboard (docs/browser.md).",
        allow_abbrev=False,
    )
    parser.add_argument("--profile", metavar="NAME", help="the profile every session uses")
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"TCP port (default {DEFAULT_PORT}; 0: any)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="a loopback address (default 127.0.0.1); any other is refused",
    )
    actions = parser.add_mutually_exclusive_group()
    actions.add_argument(
        "--read-only",
        dest="allow_actions",
        action="store_false",
        help="no money or data actions (the default)",
    )
    actions.add_argument(
        "--allow-actions",
        dest="allow_actions",
        action="store_true",
        help="allow money actions (a production profile also asks for its name, typed)",
    )
    parser.set_defaults(allow_actions=False)
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=4,
        metavar="N",
        help="browser tabs served at once (default 4)",
    )
    return parser


def check_host(host: str) -> str:
    """`host` when it is loopback; else the one line that says why not and what to do."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host in LOOPBACK_NAMES
    if loopback:
        return host
    raise ServeError(
        f"--host {host}: paytui serve listens on loopback only (its URL's key is the only "
        "login); from another machine use an SSH tunnel (ssh -L 8000:127.0.0.1:8000 HOST) or "
        "an authenticating reverse proxy, see docs/browser.md"
    )


def confirm_production(profile: str, stdin: TextIO) -> None:
    """Money actions on production from a browser: the profile's name, typed, or a refusal."""
    sys.stderr.write(
        safe_lines(
            f"Profile {profile} is production and --allow-actions lets every session move "
            f"money. Type {profile} to go on: "
        )
    )
    sys.stderr.flush()
    typed = stdin.readline().strip()
    if typed != profile:
        raise ServeError("not confirmed: money actions stay off (run without --allow-actions)")


def child_command() -> str:
    """The shell command textual-serve runs for each tab: this Python's paytui, no arguments
    (the profile and read-only travel in the environment, never a secret in either)."""
    return shlex.join([sys.executable, "-m", "paytui.cli"])


def main(argv: Sequence[str], *, environ: Mapping[str, str] | None = None) -> int:
    try:
        return _main(argv, os.environ if environ is None else environ)
    except ServeError as exc:
        say(f"paytui serve: error: {exc}", err=True)
        return 2
    except KeyboardInterrupt:  # ctrl+c before serving (at the production question, say)
        say("\npaytui serve: stopped", err=True)
        return 130


def _main(argv: Sequence[str], environ: Mapping[str, str]) -> int:
    try:
        args = build_parser().parse_args(list(argv))
    except SystemExit as exit_:  # --help
        return int(exit_.code or 0)
    host = check_host(args.host)
    if args.max_sessions < 1:
        raise ServeError("--max-sessions must be 1 or more")
    try:
        from paytui.serve.server import GuardedServer
    except ImportError:
        raise ServeError(INSTALL_HINT) from None
    from paytui.config import ConfigError, resolve_connection
    from paytui.config.environment import ENV_PROFILE
    from paytui.serve.environment import child_environment, withheld

    environment = child_environment(
        environ,
        profile=args.profile or environ.get(ENV_PROFILE),
        read_only=not args.allow_actions,
    )
    kept_back = withheld(environ)
    if kept_back:
        say(
            f"paytui serve: {', '.join(kept_back)} not passed to the browser sessions: "
            "they use a stored profile (--profile, docs/browser.md)",
            err=True,
        )
    # Resolved as a session will resolve it (same environment), so a missing secret or an
    # unknown profile is said here, once, and not in every tab.
    try:
        connection = resolve_connection(environ=environment)
    except ConfigError as exc:
        raise ServeError(str(exc)) from None
    if args.allow_actions and connection.is_production:
        confirm_production(connection.profile_name, sys.stdin)
    server = GuardedServer(
        child_command(),
        host=host,
        port=args.port,
        environment=environment,
        max_sessions=args.max_sessions,
    )
    try:
        sock = server.bind()
    except OSError as exc:
        raise ServeError(f"cannot listen on {host}:{args.port}: {exc.strerror or exc}") from None
    assert server.guard is not None  # bind() set it
    url = server.guard.entry_url
    mode = "read-only" if connection.read_only else "money actions allowed"
    where = connection.display_name
    if not connection.is_embedded:
        where += f" ({connection.environment})"
    say(
        f"paytui serve: {where}, {mode}, "
        f"up to {args.max_sessions} tabs; ctrl+c stops it and ends every session",
        err=True,
    )

    one_line_logs(sys.stderr)
    asyncio.run(_serve(server, sock, url))
    return 0


async def _serve(server: GuardedServer, sock: socket.socket, url: str) -> None:
    """Until SIGINT or SIGTERM (ctrl+c): the sessions are ended before the server stops."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await server.run(sock, started=lambda: say(f"Open {url}", flush=True), stop=stop)
