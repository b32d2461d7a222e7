"""`paytui charges search [QUERY] --all` and `paytui export QUERY --output -` read plainly
(`commands.plainly`: the standard library's HTTP, each row a `ChargeLine`, each page written
only when every row is proven to match every filter by the client's own proof) write what the
client and its models write, byte for byte on stdout and stderr, with the same exit code: for
the sandbox's charges under queries it applies and ones it leaves to paytui, and for the
second service's odd rows and list shapes, which the client reads from the first page that is
not plain on (the rows before it already written). Over real loopback sockets."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest

from paytui.commands import build_parser
from paytui.commands.handlers import SEARCH_CHARGE_COLUMNS
from paytui.commands.plainly import charges_search_plainly, export_plainly
from paytui.commands.runtime import Io, Runtime
from paytui.exporter import FORMATS
from tests.sandbox.test_embedded_warm import warm_env
from tests.second_service.app import SecondService
from tests.second_service.options import ServiceOptions
from tests.test_charges_show_plain import (
    credentials,
    no_proxy,
    sandbox_url,
    serve,
    time_limits_a_loaded_machine_passes,
)
from tests.test_charges_show_plain import shown as run
from tests.test_export_plain import heavy_imports, odd_rows, shaped

__all__ = [
    "no_proxy",
    "sandbox_url",
    "shaped",
    "time_limits_a_loaded_machine_passes",
    "warm_env",
]  # fixtures

#: A search's data columns without `refund_state` (which reads each row's refunds: the
#: client's, `charges_search_plainly`), as `benchmarks.export_cpu` measures it.
COLUMNS = ",".join(key for key in SEARCH_CHARGE_COLUMNS if key != "refund_state")


def search(words: list[str], url: str | None, fmt: str, *extra: str) -> list[str]:
    at = ["--base-url", url] if url is not None else []
    return ["charges", "search", *words, "--all", "--format", fmt, *at, *extra]


def plainly(argv: list[str], env: dict[str, str]) -> tuple[int | None, str, Runtime]:
    """What the plain reader itself did: its code (None: the client's to go on), what it
    wrote, and its runtime (`plain_begun`: the rows written before the client's turn)."""
    noun = argv[0]
    args = build_parser(noun, verb=argv[1] if noun == "charges" else None).parse_args(argv)
    out = io.StringIO()
    runtime = Runtime(Io(out=out, err=io.StringIO()), base_url=args.base_url, environ=env)
    read = charges_search_plainly if noun == "charges" else export_plainly
    return read(runtime, args), out.getvalue(), runtime


def same_either_way(argv: list[str], env: dict[str, str]) -> tuple[int | None, str, Runtime]:
    """The command run as it runs and through the client only: the same stdout, stderr and
    exit code; then what the plain reader itself wrote, which must begin the client's rows."""
    before = run(argv, env, client=True)
    assert run(argv, env, client=False) == before, argv
    code, written, runtime = plainly(argv, env)
    if code is not None:  # read plainly to the end: the same rows, the same code
        assert (code, written) == (before[0], before[1]), argv
    elif runtime.plain_begun is not None:  # the rows before the client's turn: the same
        assert written and before[1].startswith(written), argv
        header = argv[argv.index("--format") + 1] == "csv"
        assert runtime.plain_begun[1] == written.count("\n") - header
    else:
        assert written == "", argv
    return code, written, runtime


#: Searches the sandbox applies, every row proving each filter: read plainly to the end.
APPLIED = ([], ["status:success"], ["amount:100..250"], ["tag:vip"], ["sort:amount"])
#: Searches whose rows a filter of paytui's own leaves out (`-tag:`, `dispute:`): the client
#: applies it and says so, from the first page holding such a row; `refunded:` reads refunds.
HERE = (
    ["status:success -tag:vip"],  # one word: argparse takes a word beginning `-` for an option
    ["dispute:none"],
    ["refunded:none"],
    ["amount:1..900 -status:declined"],
)


#: The demo's history here: three pages of 100, each query below still finding rows.
SMALL = 260


@pytest.fixture(scope="module")
def sandbox_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This module's demo (copied for each test by `sandbox_db`, for `sandbox_url` and the
    embedded sandbox of `warm_env`): `SMALL` charges, built once per module. Every whole search
    here reads it three ways (as it runs, through the client, plainly), each row's refunds too,
    so at the demo's 3,000 charges one test of this module took minutes."""
    from paytui.sandbox.seed import build_database

    path = tmp_path_factory.mktemp("small-sandbox") / "sandbox.sqlite3"
    build_database(path, charges=SMALL)
    return path


def demo() -> dict[str, str]:
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    return credentials(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)


@pytest.mark.parametrize("words", APPLIED, ids=lambda words: " ".join(words) or "every charge")
def test_the_sandbox_s_searches_are_the_client_s(sandbox_url: str, words: list[str]) -> None:
    env = demo()
    for fmt in ("jsonl", "csv"):
        argv = search(words, sandbox_url, fmt, "--columns", COLUMNS)
        code, written, runtime = same_either_way(argv, env)
        assert (code, runtime.plain_begun) == (0, None), words
        assert written.count("\n") > (100 if not words else 0)  # rows, more than a page of all
    export = ["export", *words, "--format", "jsonl", "--output", "-"]
    code, written, runtime = same_either_way([*export, "--base-url", sandbox_url], env)
    assert (code, runtime.plain_begun) == (0, None), words


@pytest.mark.parametrize("words", HERE, ids=lambda words: " ".join(words))
def test_a_filter_of_paytui_s_own_is_the_client_s_to_apply(
    sandbox_url: str, words: list[str]
) -> None:
    argv = search(words, sandbox_url, "jsonl", "--columns", COLUMNS)
    assert same_either_way(argv, demo())[0] is None, words


def test_each_row_s_refunds_are_read_as_the_client_reads_them(sandbox_url: str) -> None:
    """The default columns: each row's refunds, read side by side as the client reads them."""
    env = demo()
    jsonl = search(["status:success"], sandbox_url, "jsonl")
    code, written, runtime = same_either_way(jsonl, env)
    assert (code, runtime.plain_begun) == (0, None)
    states = {json.loads(line)["refund_state"] for line in written.splitlines()}
    assert {"none", "partial", "full"} <= states  # refunds were read, not all "unknown"
    csv = search([], sandbox_url, "csv", "--columns", "charge_id,status,refund_state")
    code, written, runtime = same_either_way(csv, env)
    assert (code, runtime.plain_begun) == (0, None)
    assert {"none", "partial", "full"} <= {
        row.rsplit(",", 1)[-1] for row in written.splitlines()[1:]
    }


def test_what_only_the_client_does_is_left_to_it(sandbox_url: str) -> None:
    """--include-unproven, a table, a bounded search: never read plainly."""
    env = demo()
    for argv in (
        search([], sandbox_url, "jsonl", "--columns", COLUMNS, "--include-unproven"),
        ["charges", "search", "--limit", "5", "--format", "jsonl", "--base-url", sandbox_url],
    ):
        assert plainly(argv, env)[:2] == (None, ""), argv
        assert run(argv, env, client=False) == run(argv, env, client=True), argv


def test_a_bad_search_is_the_same_line_either_way(sandbox_url: str) -> None:
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    env = credentials(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    for argv in (
        search(["amount:abc"], sandbox_url, "jsonl", "--columns", COLUMNS),
        search([], sandbox_url, "jsonl", "--columns", "charge_id,nope"),
        search([], sandbox_url, "table"),
    ):
        before = run(argv, env, client=True)
        assert before[0] == 2 and before[1] == "", before
        assert run(argv, env, client=False) == before


#: Searches on the second service: it applies `status` only, shows no tags: `tag:` cannot be
#: proven, `amount:` is applied here; `status:` is proven on every row.
SECOND = (["status:success"], ["amount:100..250"], ["tag:vip"])


@pytest.mark.parametrize("odd", [False, True], ids=["plain rows", "odd rows on page 2"])
def test_the_second_service_s_searches_and_exports_are_the_client_s(
    shaped: tuple[SecondService, str, str], odd: bool
) -> None:
    """Ten list shapes (`test_export_plain.SHAPES`), each with plain rows only and with every
    plain, odd and refused row of `tests/api/test_rows.py` on its second page."""
    service, url, shape = shaped
    if odd:
        odd_rows(service, 110)
    env = credentials(service.client_id, service.client_secret)
    every = [["export", "--format", fmt, "--output", "-", "--base-url", url] for fmt in FORMATS]
    every += [search([], url, fmt, "--columns", COLUMNS) for fmt in FORMATS]
    for argv in every:
        code, _, runtime = same_either_way(argv, env)
        if shape == "offset, a total":  # a page of plain rows first, then the client's
            assert (code is None) is odd, argv
            assert odd is (runtime.plain_begun is not None), argv
    for words in SECOND:  # with a status asked, the 110th charge is on its first page
        same_either_way(search(words, url, "csv", "--columns", COLUMNS), env)


#: The second service's refund lists, as it may send them (`_Refunds` reads the plain ones).
REFUND_SHAPES: dict[str, dict[str, Any]] = {
    "a total": {},
    "charge_id ignored": {"applied_filters": frozenset({"status"})},
    "ids under `id`": {"refund_id_key": "id"},
    "bare list": {"envelope": "bare"},
    "has_more": {"has_more": True, "count_key": None},
    "no hint at all": {"count_key": None, "echo_paging": False},
    "a cursor, a next link": {"paging": "cursor"},
}


@pytest.mark.parametrize("shape", list(REFUND_SHAPES))
def test_the_second_service_s_refund_states_are_the_client_s(shape: str) -> None:
    """Each row's refunds read plainly where the lists are plain, else by the client from the
    first page whose refunds are not (the rows before it written): the same states."""
    applied = frozenset({"status", "charge_id"})
    options = ServiceOptions(max_requests=5_000, applied_filters=applied)
    service = SecondService(dataclasses.replace(options, **REFUND_SHAPES[shape]))
    env = credentials(service.client_id, service.client_secret)
    for url in serve(service.app):
        for words in ([], ["status:success"]):
            argv = search(words, url, "csv", "--columns", "charge_id,status,refund_state")
            code, written, _ = same_either_way(argv, env)
            states = {row.rsplit(",", 1)[-1] for row in written.splitlines()[1:]}
            if shape == "a total":  # read plainly, every list whole
                assert code == 0, words
                assert {"none", "partial", "full"} <= states, words
            if shape == "charge_id ignored":  # read plainly, no list whole: not known
                assert code == 0, words
                assert states == {"none", "unknown"}, words


def test_the_plain_search_imports_no_pydantic(sandbox_url: str) -> None:
    """In its own process: every charge searched, read and written without pydantic, the
    client or asyncio."""
    argv = ["charges", "search", "--all", "--format", "csv", "--columns", COLUMNS]
    assert heavy_imports(argv, sandbox_url) == "[]"


def test_the_embedded_sandbox_s_search_is_the_client_s(warm_env: Path) -> None:
    """No URL, no config, no variable: the embedded sandbox with every default, its pages and
    each row's refunds read over its socket (eight side by side, `PlainReader.twin`)."""
    argv = search(["status:success"], None, "csv")  # the default columns: `refund_state` too
    before = run(argv, {}, client=True)
    assert before[0] == 0, before[2]
    code, written, runtime = plainly(argv, {})
    assert (code, written, runtime.plain_begun) == (0, before[1], None)
    assert run(argv, {}, client=False) == before
