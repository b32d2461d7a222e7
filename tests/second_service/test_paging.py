"""Paging that always ends, against the second service (issue 23, point 2).

Each test reads a list the way paytui does (the client's iterators, `--all`, `export`) from a
service that makes another plausible choice where the spec says "not shown": no count, a smaller
page than asked, a `next` link, `page`/`per_page`, paging ignored, other envelopes and count keys.
Every row is reached exactly once, or the list stops with one line saying why; never a loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paytui.api.models import Charge, Page
from paytui.commands.runtime import Exit
from tests.second_service.app import SecondService
from tests.second_service.data import CHARGE_COUNT
from tests.second_service.fixtures import Run, client_for

Make = Callable[..., SecondService]


async def _read_all(service: SecondService, page_size: int = 50) -> list[Page[Charge]]:
    async with client_for(service) as client:
        return [page async for page in client.search_charges(None, page_size=page_size)]


def _ids(pages: list[Page[Charge]]) -> list[str]:
    return [charge.charge_id for page in pages for charge in page.items]


def _every_id(service: SecondService) -> list[str]:
    return [charge.charge_id for charge in service.store.charges]


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"count_key": None}, id="no-count"),
        pytest.param({"count_key": None, "max_page_size": 20, "echo_paging": False}, id="smaller"),
        pytest.param({"count_key": None, "has_more": True}, id="has-more"),
        pytest.param({"paging": "cursor", "count_key": None}, id="next-link"),
        pytest.param({"paging": "cursor", "next_absolute": True}, id="next-url"),
        pytest.param({"paging": "page"}, id="page-per-page"),
        pytest.param({"paging": "page", "count_key": None}, id="page-no-count"),
    ],
)
async def test_every_row_once_whatever_the_paging(make: Make, options: dict[str, Any]) -> None:
    """With no count, a page smaller than asked (and not said), a `next` link (a path or a full
    URL) or `page`/`per_page` the service says it uses: every charge once, in the service's order,
    and no note. (Before: 20 rows of a smaller page size, the cursor and page styles looped.)"""
    service = make(**options)
    pages = await _read_all(service)
    assert _ids(pages) == _every_id(service)
    assert all(page.paging_note is None for page in pages)


@pytest.mark.parametrize("count_key", ["total", None])
async def test_a_service_that_ignores_paging_stops_with_a_reason(
    make: Make, count_key: str | None
) -> None:
    """Always the first 25 rows, whatever is asked: the second read repeats the first, so the
    list ends after 25 rows (none twice) with a note naming the cause. (Before: with a count it
    read the same page for ever; without one it showed 25 rows as if they were all.)"""
    service = make(paging="ignore", count_key=count_key)
    pages = await _read_all(service)
    ids = _ids(pages)
    assert ids == _every_id(service)[:25]
    note = pages[-1].paging_note
    assert note is not None and "ignores paging" in note and "25 rows" in note
    assert len(service.requests_to("/v2/charges")) == 2


async def test_page_per_page_without_echo_is_detected(make: Make) -> None:
    """`page`/`per_page` paging the service does not echo, no count: limit/offset are ignored,
    so offset 25 repeats page 1: 25 of 126 rows is said, not passed off as the whole list."""
    service = make(paging="page", count_key=None, echo_paging=False)
    pages = await _read_all(service)
    assert len(_ids(pages)) == 25
    assert pages[-1].paging_note is not None and "ignores paging" in pages[-1].paging_note


async def test_a_profile_that_says_page_per_page_reads_every_row(make: Make) -> None:
    """The client told the service pages by `page`/`per_page` (no echo, no count): every row."""
    service = make(paging="page", count_key=None, echo_paging=False, unknown_params="reject")
    async with client_for(service, paging="page") as client:
        pages = [page async for page in client.search_charges(None, page_size=50)]
    assert _ids(pages) == _every_id(service)


@pytest.mark.parametrize("envelope", ["data", "results", "content", "bare", "nested"])
@pytest.mark.parametrize("count_key", ["total", "count", "total_count"])
async def test_envelopes_and_count_keys(make: Make, envelope: str, count_key: str) -> None:
    """A list under `data`, `results`, `content`, a bare list, or `{"data": {"charges": [...]},
    "meta": {...}}`; the count as `total`, `count` or `total_count`: the first page's total is
    the service's count (None for a bare list) and every row is read once. (Before: `content`
    and the nested shape failed every list; `count` and `total_count` were ignored.)"""
    service = make(envelope=envelope, count_key=count_key)
    pages = await _read_all(service)
    assert pages[0].total == (None if envelope == "bare" else CHARGE_COUNT)
    assert _ids(pages) == _every_id(service)


async def test_a_next_link_to_another_host_is_not_followed(make: Make) -> None:
    """A `next` link on another host would carry the bearer token there: the list stops with a
    note instead."""
    service = make(paging="cursor", next_absolute=True)
    async with client_for(service) as client:
        service.base_url = "http://elsewhere.test"  # the links it writes now point away
        pages = [page async for page in client.search_charges(None, page_size=50)]
    assert len(_ids(pages)) == 50
    assert pages[-1].paging_note is not None and "not followed" in pages[-1].paging_note


# --------------------------------------------------------------------------------------------
# The command line: `--all` and `export`
# --------------------------------------------------------------------------------------------


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_search_all_reads_every_row_by_next_link(
    make: Make, second_cli: Callable[..., Run]
) -> None:
    """`charges search --all` against a cursor service with no count: 126 rows, exit 0."""
    service = make(paging="cursor", count_key=None)
    code, out, err = second_cli(service)("charges", "search", "--all", "--format", "jsonl")
    assert code == Exit.OK, err
    assert [row["charge_id"] for row in _lines(out)] == _every_id(service)


def test_search_all_stops_when_paging_is_ignored(
    make: Make, second_cli: Callable[..., Run]
) -> None:
    """`--all` against a service that ignores paging: the 25 rows once, then one line on stderr
    saying why it stopped, and exit 12 (incomplete). (Before: it looped until the service gave
    up.)"""
    service = make(paging="ignore")
    code, out, err = second_cli(service)("charges", "search", "--all", "--format", "jsonl")
    ids = [row["charge_id"] for row in _lines(out)]
    assert ids == _every_id(service)[:25]
    assert code == Exit.INCOMPLETE, err
    assert sum("ignores paging" in line for line in err.splitlines()) == 1, err


def test_search_with_limit_says_when_paging_is_ignored(
    make: Make, second_cli: Callable[..., Run]
) -> None:
    """`charges search --limit 100` (no --all): 25 rows, the same line, exit 12."""
    service = make(paging="ignore", count_key=None)
    code, out, err = second_cli(service)("charges", "search", "--limit", "100", "--format", "jsonl")
    assert len(_lines(out)) == 25
    assert code == Exit.INCOMPLETE and "ignores paging" in err, err


def test_export_finishes_and_says_why_it_stopped(
    make: Make, second_cli: Callable[..., Run], tmp_path: Path
) -> None:
    """`paytui export` against a service that ignores paging finishes: the file holds the 25
    rows once, no `.part` is left, stderr says why, exit 12. (Before: it never finished.)"""
    service = make(paging="ignore")
    target = tmp_path / "out.jsonl"
    code, _, err = second_cli(service)("export", "--format", "jsonl", "--output", str(target))
    assert code == Exit.INCOMPLETE, err
    assert len(_lines(target.read_text())) == 25
    assert not list(tmp_path.glob("*.part"))
    assert "ignores paging" in err


@pytest.fixture
def make(second_service: Make) -> Make:
    return second_service


def test_paging_in_a_profile_reaches_the_client() -> None:
    """`paging = "page"` in a profile is what the client is built with (`client_kwargs`), so
    the test above is what a user of that profile gets."""
    from paytui.config.connection import client_kwargs, resolve_connection
    from paytui.config.model import Config
    from paytui.config.store import LoadResult

    config = Config.model_validate(
        {
            "default_profile": "other",
            "profiles": {"other": {"base_url": "https://pay.example.com", "paging": "page"}},
        }
    )
    connection = resolve_connection(
        environ={"PAYTUI_TOKEN": "t0ken-for-tests"}, loaded=LoadResult(config=config)
    )
    assert client_kwargs(connection)["paging"] == "page"
