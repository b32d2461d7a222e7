"""The command line run in process against a client of the test's choosing: one way for every
CLI test (`tests/test_commands.py`, the second service's, the proven-filter tests)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from paytui.api.client import PaymentClient

#: `run(*argv, stdin="", tty=False, env={})` -> (exit code, stdout, stderr).
Run = Callable[..., tuple[int, str, str]]


def cli_runner(make_client: Callable[[], PaymentClient], journal: Path | str) -> Run:
    """`run(*argv)` runs `paytui *argv` with a client from `make_client` and the journal at
    `journal` (a file, or a team's ``postgresql://`` URL); stdin is `stdin`, a terminal when
    `tty`, the environment only `env`."""
    from paytui.commands import main
    from paytui.commands.runtime import Io
    from paytui.logs import clear_registered_secrets

    @contextlib.asynccontextmanager
    async def connector(_connection: Any) -> AsyncIterator[PaymentClient]:
        async with make_client() as client:
            yield client

    def invoke(
        *argv: str, stdin: str = "", tty: bool = False, env: dict[str, str] | None = None
    ) -> tuple[int, str, str]:
        # Each run starts with no registered secret, as a `paytui` process does. Kept, a test's
        # runs piled up every token they fetched, each compiled into one pattern again on the
        # next fetch: 100 runs of the output contract spent more in that than in their commands.
        clear_registered_secrets()
        out, err = io.StringIO(), io.StringIO()
        code = main(
            list(argv),
            io=Io(out=out, err=err, inp=io.StringIO(stdin), interactive=tty),
            connector=connector,
            journal_path=journal,
            environ=env or {},
        )
        return code, out.getvalue(), err.getvalue()

    return invoke


def sandbox_cli(transport: Any, journal: Path | str) -> Run:
    """`run(*argv)` against the in-process sandbox over `transport`, as the demo client."""
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    return cli_runner(
        lambda: PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=transport,
        ),
        journal,
    )
