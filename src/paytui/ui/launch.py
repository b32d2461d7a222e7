"""`paytui [--profile NAME] [--base-url URL]`: resolve the connection, then start the UI.

Order matters for start-up time. Arguments are parsed with nothing heavy imported. On a fresh
machine (no config file, no profile asked for: `config.environment.only_the_sandbox`) the embedded
sandbox's child is spawned at once, so it imports FastAPI and opens its database on the other core
while this process reads the config and imports Textual (its start 10 nicer than this
process: `EmbeddedSandbox.start(give_way=True)`, `paytui.sandbox.child`); otherwise the
connection is resolved first and the child, if the connection is the embedded sandbox, spawned
then. On such a fresh
machine the config is not read before the first paint at all (`_run_fresh`: the app resolves it
right after). Before Textual is imported, a child is forked to read the first page of charges
(`paytui.ui.first_page`: from the server, or from its database while a new server starts). Only
then is Textual imported. Nothing here imports textual at module level.
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from paytui.cli import SCRIPT_COMMANDS
from paytui.connect import embedded_client, sandbox_transport
from paytui.console import SafeArgumentParser, say
from paytui.ui.clients import (
    SANDBOX_READY_TIMEOUT,
    ClientFactory,
    client_factory_for,
    embedded_factory,
)

if TYPE_CHECKING:
    from paytui.config.connection import Connection
    from paytui.sandbox.embedded import EmbeddedSandbox
    from paytui.ui.app import PaytuiApp
    from paytui.ui.first_page import Prefetch

__all__ = [
    "SANDBOX_READY_TIMEOUT",
    "build_app",
    "client_factory_for",
    "embedded_client",
    "main",
    "sandbox_transport",
]


log = logging.getLogger("paytui.launch")


class _UsageError(Exception):
    pass


class _Parser(SafeArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see `paytui --help`)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="paytui",
        description="Keyboard-driven dashboard for the payment service. With no profile it runs "
        "on an embedded sandbox. Subcommands: `paytui profile ...`, `paytui sandbox ...`, "
        "`paytui serve` (in a browser, docs/browser.md); for scripts `paytui COMMAND ...` with "
        f"COMMAND one of {', '.join(SCRIPT_COMMANDS)} (docs/cli.md).",
        epilog="Environment: PAYTUI_PROFILE, PAYTUI_BASE_URL, PAYTUI_TOKEN, PAYTUI_CLIENT_ID, "
        "PAYTUI_CLIENT_SECRET, PAYTUI_ACCOUNT_ID (see docs/configuration.md), "
        "PAYTUI_SCREEN_READER, NO_COLOR (docs/accessibility.md).",
        allow_abbrev=False,
    )
    parser.add_argument("--profile", metavar="NAME", help="connect with this profile")
    parser.add_argument(
        "--base-url", metavar="URL", help="override the profile's base URL (https, or loopback)"
    )
    parser.add_argument(
        "--screen-reader",
        action="store_true",
        help="screen-reader mode: each change said as a line of text, in order, the terminal "
        "cursor on it, no animation (also PAYTUI_SCREEN_READER=1 or [ui] screen_reader = true; "
        "docs/accessibility.md)",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser


def main(argv: Sequence[str]) -> int:
    """Run the UI; returns the exit code (2 for a usage or connection mistake, one stderr line)."""
    from paytui.collector import end_deferral, pause_collector, resume_collector
    from paytui.ui.type_ahead import hold

    typed = hold()  # keys typed while starting stay as typed (`paytui.ui.type_ahead`)
    try:
        pause_collector()  # resumed by the app once its first page is painted (`collector`)
        try:
            return _main(argv)
        finally:
            resume_collector(freeze=False)
            end_deferral()  # the app gives it back as it unmounts; not if it never did
    finally:
        typed.release()


def _main(argv: Sequence[str]) -> int:
    # Before the first pydantic model (the config's): pydantic looks for plugins of other
    # installed packages (a scan of every distribution's entry points, ~35 ms in a development
    # venv) when the first model is built; a plugin would see every value the models validate
    # (secrets, account data). paytui uses none.
    from paytui.pydantic_plugins import disable_pydantic_plugins

    disable_pydantic_plugins()
    from paytui.config.arguments import CliError, refuse_secret_arguments

    try:
        refuse_secret_arguments(argv)
        try:
            args = build_parser().parse_args(list(argv))
        except SystemExit as exit_:  # --help
            return int(exit_.code or 0)
    except (CliError, _UsageError) as exc:
        return _fail(str(exc))
    if args.version:
        from paytui import __version__

        say(f"paytui {__version__}")
        return 0

    from paytui.config.environment import (
        ENV_AGENT,
        ENV_APPROVE_ABOVE,
        ENV_JOURNAL_URL,
        ENV_READ_ONLY,
        only_the_sandbox,
    )

    # A fresh machine (no config, no profile asked for) can only mean the embedded sandbox: its
    # child starts now, importing FastAPI on the other core while this process reads the config.
    sandbox: EmbeddedSandbox | None = None
    if only_the_sandbox(args.profile, args.base_url, os.environ):
        sandbox, failed = _start_sandbox()
        if failed is not None:
            return failed
    try:
        if sandbox is not None and not any(
            os.environ.get(n)
            for n in (ENV_READ_ONLY, ENV_JOURNAL_URL, ENV_AGENT, ENV_APPROVE_ABOVE)
        ):
            return _run_fresh(sandbox, screen_reader=args.screen_reader or None)
        return _run(args, sandbox)
    finally:
        if sandbox is not None:
            sandbox.stop()


def _start_sandbox() -> tuple[EmbeddedSandbox | None, int | None]:
    """The embedded sandbox (reused warm, or a new child), or the exit code of one error line."""
    from paytui.sandbox.embedded import EmbeddedSandbox

    try:
        # Its start gives way to this process: the first page does not wait for it.
        return EmbeddedSandbox.start(give_way=True), None
    except OSError as exc:
        return None, _fail(f"cannot start the embedded sandbox: {exc}", code=1)


def _run(args: argparse.Namespace, early: EmbeddedSandbox | None) -> int:
    """Resolve the connection (it decides; `early` was only a head start) and run the app."""
    from paytui.config import ConfigError, resolve_connection

    try:
        connection = resolve_connection(
            profile=args.profile, base_url=args.base_url, environ=os.environ
        )
    except ConfigError as exc:
        return _fail(str(exc))

    from paytui.logs import register_secret

    _setup_logging()
    for secret in connection.secret_values():
        register_secret(secret)
    for problem in connection.problems:
        log.warning("config: %s", problem)

    sandbox: EmbeddedSandbox | None = None
    try:
        if connection.is_embedded and early is not None:
            sandbox = early
        elif connection.is_embedded:
            sandbox, failed = _start_sandbox()
            if failed is not None:
                return failed
        return _run_app(connection, sandbox, screen_reader=args.screen_reader or None)
    finally:
        if sandbox is not None and sandbox is not early:  # the early one: the caller's
            sandbox.stop()


def _run_fresh(sandbox: EmbeddedSandbox, *, screen_reader: bool | None = None) -> int:
    """A fresh machine's start: the embedded sandbox with every default, so the config (and
    pydantic, its validator: about a fifth of the start-up) is resolved after the first paint.
    Running or starting: while its server starts, the first page is read from its database
    (`paytui.ui.first_page`), so the server's start is not what the first paint waits for.

    Nothing the first paint shows depends on it: no config file, no profile, URL or credentials
    in the environment, and none of the variables that change the session's facts (read-only,
    the journal, the agent) — the app's facts for "no connection" are the embedded sandbox's
    defaults. The connection resolved after the first paint, for the config file found absent
    here, replaces them before the app connects or builds its actions (`PaytuiApp`).
    """
    _setup_logging()
    return _run_app(None, sandbox, settle_connection=_fresh_connection, screen_reader=screen_reader)


def _setup_logging() -> None:
    from paytui.logs import setup_logging

    try:
        setup_logging()
    except OSError as exc:  # an unwritable log dir must not stop the app
        say(f"paytui: warning: logging disabled: {exc}", err=True)


def _run_app(
    connection: Connection | None,
    sandbox: EmbeddedSandbox | None,
    *,
    settle_connection: Callable[[], Connection] | None = None,
    screen_reader: bool | None = None,
) -> int:
    """Fork the first page's reader (before Textual is imported: no thread of its own yet; it
    works on the other core, `paytui.ui.first_page`), then build and run the app."""
    from paytui.ui import first_page

    embedded = connection is None or connection.is_embedded
    prefetch = first_page.start(connection, sandbox if embedded else None)
    try:
        app = build_app(
            connection,
            sandbox=sandbox,
            first_page=prefetch,
            settle_connection=settle_connection,
            screen_reader=screen_reader,
        )
        app.run()
    finally:
        if prefetch is not None:
            prefetch.close()
    return int(getattr(app, "return_code", 0) or 0)  # a test's stand-in App has none


def _fresh_connection() -> Connection:
    """The connection of a machine without a config file (as it was when paytui started: one
    written since is read by the next start, not half-way into this one)."""
    from paytui.config import resolve_connection
    from paytui.config.files import config_path
    from paytui.config.store import LoadResult

    absent = LoadResult.absent(config_path())
    return resolve_connection(profile=None, base_url=None, environ=os.environ, loaded=absent)


def _fail(message: str, *, code: int = 2) -> int:
    say(f"paytui: error: {message}", err=True)
    return code


def build_app(
    connection: Connection | None,
    *,
    sandbox: EmbeddedSandbox | None = None,
    first_page: Prefetch | None = None,
    settle_connection: Callable[[], Connection] | None = None,
    screen_reader: bool | None = None,
) -> PaytuiApp:
    """Construct the app for a resolved connection: the one place the app is wired to config.

    The app takes everything else from the `Connection` (environment, read-only, threshold,
    account, ui prefs, keymap, problems, secrets to scrub); the profile switcher builds later
    clients with the same `client_factory_for`, reusing the started embedded sandbox if any.
    `first_page`: the child reading the first page (`paytui.ui.first_page`), if one was started.
    `connection` None: the embedded `sandbox`, its connection resolved after the first paint by
    `settle_connection` (`_run_fresh`). `screen_reader`: True for `--screen-reader`; None
    leaves it to `PAYTUI_SCREEN_READER` and the config (`PaytuiApp`).
    """
    # First: without a first-page child, for the embedded sandbox this starts importing the
    # client in a thread, which then overlaps importing Textual and the app below. With one, the
    # client's imports wait for the first paint: the child reads the first page meanwhile, and
    # a thread here would only slow Textual down (one thread runs Python at a time).
    warm = first_page is None
    if connection is None:
        if sandbox is None:
            raise ValueError("no connection: the embedded sandbox must be started")
        client_factory = embedded_factory(sandbox, warm=warm)
    else:
        client_factory = client_factory_for(connection, sandbox=sandbox, warm=warm)
    from paytui.ui.app import PaytuiApp

    def factory_builder(chosen: Connection) -> ClientFactory | None:
        if chosen.is_embedded and sandbox is None:
            return None  # the app starts its own embedded sandbox
        return client_factory_for(chosen, sandbox=sandbox)

    return PaytuiApp(
        client_factory=client_factory,
        connection=connection,
        factory_builder=factory_builder,
        first_page=first_page,
        settle_connection=settle_connection,
        screen_reader=screen_reader,
    )
