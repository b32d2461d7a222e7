"""`paytui export --output -` read plainly (`commands.plainly.export_plainly`: the standard
library's HTTP, each row a `ChargeLine` proven on its time by `api.window.time_verdicts`) writes
what the client and its models write, byte for byte on stdout and stderr, with the same exit
code: for the sandbox's charges, and for the second service's odd rows and list shapes (`SHAPES`,
`odd_rows`: `tests/test_search_plain.py` runs the export and the search over each), which the
client reads from the first answer that is not plain on (the rows before it already written).
Over real loopback sockets: the plain reader speaks HTTP itself."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paytui.commands import build_parser
from paytui.commands.plainly import export_plainly
from paytui.commands.runtime import Io, Runtime
from tests.sandbox.test_embedded_warm import warm_env
from tests.second_service.app import SecondService
from tests.second_service.options import ServiceOptions
from tests.test_charges_show_plain import (
    CASES,
    credentials,
    no_proxy,
    odd_charge,
    sandbox_url,
    serve,
    time_limits_a_loaded_machine_passes,
    wire,
)
from tests.test_charges_show_plain import shown as run

__all__ = [
    "no_proxy",
    "sandbox_url",
    "time_limits_a_loaded_machine_passes",
    "warm_env",
]  # fixtures


def plainly(argv: list[str], env: dict[str, str]) -> tuple[int | None, str, Runtime]:
    """What `export_plainly` itself did: its code (None: the client's to go on), what it wrote,
    and its runtime (`plain_begun`: the rows written before the client's turn)."""
    args = build_parser("export").parse_args(argv)
    out = io.StringIO()
    runtime = Runtime(Io(out=out, err=io.StringIO()), base_url=args.base_url, environ=env)
    return export_plainly(runtime, args), out.getvalue(), runtime


def test_the_sandbox_s_export_is_the_client_s(sandbox_url: str) -> None:
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    env = credentials(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    for fmt in ("jsonl", "csv"):
        argv = ["export", "--format", fmt, "--output", "-", "--base-url", sandbox_url]
        before = run(argv, env, client=True)
        assert before[0] == 0, before[2]
        assert before[1].count("\n") > 100  # more than one page of 100
        code, written, runtime = plainly(argv, env)
        assert (code, written, runtime.plain_begun) == (0, before[1], None)  # all plainly
        assert run(argv, env, client=False) == before
    # What the plain reader leaves to the client: a file (with a query or not), --include-unproven.
    for extra in (["status:success"], ["--include-unproven"], ["--output", "x.csv"]):
        argv = ["export", "--format", "jsonl", "--base-url", sandbox_url, *extra]
        assert plainly(argv, env)[:2] == (None, "")


def odd_rows(service: SecondService, at: int) -> None:
    """Every plain, odd and refused row of `tests/api/test_rows.py` laid at position `at`."""
    for number, case in enumerate(CASES):
        laid = wire(CASES[case])
        charge_id = laid.get("charge_id") or f"odd{number:019d}"
        if not isinstance(charge_id, str) or charge_id == "":
            charge_id = f"odd{number:019d}"
        service.store.charges.insert(at, odd_charge(service, charge_id, laid))


SHAPES: dict[str, dict[str, Any]] = {
    "offset, a total": {},
    "has_more": {"has_more": True, "count_key": None},
    "no hint at all": {"count_key": None, "echo_paging": False},
    "bare list": {"envelope": "bare"},
    "nested": {"envelope": "nested"},
    "items": {"envelope": "items"},
    "pages": {"paging": "page"},
    "a cursor, a next link": {"paging": "cursor"},
    "paging ignored": {"paging": "ignore"},
    "pages of 30": {"max_page_size": 30, "has_more": True},
}


@pytest.fixture(params=list(SHAPES))
def shaped(request: pytest.FixtureRequest) -> Iterator[tuple[SecondService, str, str]]:
    service = SecondService(dataclasses.replace(ServiceOptions(), **SHAPES[request.param]))
    for url in serve(service.app):
        yield service, url, request.param


def heavy_imports(argv: list[str], url: str) -> str:
    """`paytui *argv --base-url url` run in its own process with the sandbox's demo client
    (more than a page of rows written, exit 0): the modules of pydantic, httpx, asyncio, the
    API models, the client and `api.queries` it imported (as a sorted list's text)."""
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    script = (
        "import io, json, sys\n"
        "from paytui.commands import main\n"
        "from paytui.commands.runtime import Io\n"
        "out = io.StringIO()\n"
        "env = {'PAYTUI_CLIENT_ID': sys.argv[2], 'PAYTUI_CLIENT_SECRET': sys.argv[3]}\n"
        "argv = [*json.loads(sys.argv[4]), '--base-url', sys.argv[1]]\n"
        "code = main(argv, io=Io(out=out, err=io.StringIO(), inp=io.StringIO(''),"
        " interactive=False), environ=env)\n"
        "assert code == 0 and out.getvalue().count('\\n') > 100, code\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'pydantic', 'httpx', 'asyncio'}"
        " or m in {'paytui.api.models', 'paytui.api.client', 'paytui.api.queries'}))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script, url, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, json.dumps(argv)],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-home"},
    )
    return found.stdout.strip() or found.stderr


def test_the_plain_export_imports_no_pydantic(sandbox_url: str) -> None:
    """In its own process: the rows read and written without pydantic, the client or asyncio."""
    assert heavy_imports(["export", "--format", "jsonl", "--output", "-"], sandbox_url) == "[]"


def test_the_embedded_sandbox_s_export_is_the_client_s(warm_env: Path) -> None:
    """No URL, no config, no variable: the embedded sandbox with every default, its pages read
    over its socket (`commands.runtime.embedded_reader`), as the client reads them."""
    argv = ["export", "--format", "csv", "--output", "-"]
    before = run(argv, {}, client=True)
    assert before[0] == 0, before[2]
    code, written, runtime = plainly(argv, {})
    assert (code, written, runtime.plain_begun) == (0, before[1], None)
    assert run(argv, {}, client=False) == before
