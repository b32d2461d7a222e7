"""Rows a search cannot prove match never pass for matches on stdout (docs/cli.md, exit 11).

The second service here ignores the `tag` filter and sends `tags` only on rows that have some
(an empty list left out): `tag:vip` brings back rows tagged vip (proven), rows tagged otherwise
(shown not to match: left out here) and rows without the key (cannot tell: not proven). Before,
`charges search tag:vip` exited 11 but wrote the unproven rows on stdout exactly like matches,
and a script piping it into a bulk refund acted on them."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paytui.commands.runtime import Exit
from tests.cli_support import Run
from tests.second_service.app import SecondService


@pytest.fixture
def run(second_service: Callable[..., SecondService], second_cli: Callable[..., Run]) -> Run:
    service = second_service(echo_tags=True, omit_empty_tags=True)
    return second_cli(service)


def _vip_rows(run: Run, *more: str) -> tuple[int, list[dict[str, Any]], str]:
    code, out, err = run("charges", "search", "tag:vip", *more)
    return code, [json.loads(line) for line in out.splitlines()], err


def _left_out(err: str) -> int:
    """The count stderr gives of the rows not proven ("paytui: 12 rows not proven …")."""
    for line in err.splitlines():
        if "not proven to match left out" in line:
            return int(line.removeprefix("paytui: ").split()[0])
    raise AssertionError(f"no count of the rows left out on stderr: {err!r}")


@pytest.mark.parametrize("paging", [("--limit", "500"), ("--all",)])
def test_a_search_writes_only_proven_rows_and_counts_the_rest(
    run: Run, paging: tuple[str, ...]
) -> None:
    code, rows, err = _vip_rows(run, *paging, "--format", "jsonl")
    assert code == Exit.UNPROVEN, err
    assert rows and all("vip" in row["tags"].split(",") for row in rows), rows
    assert all("proven" not in row for row in rows)
    assert _left_out(err) > 0 and "--include-unproven" in err, err

    code, marked, err = _vip_rows(run, *paging, "--format", "jsonl", "--include-unproven")
    assert code == Exit.UNPROVEN, err
    unproven = [row for row in marked if row["proven"] is False]
    proven = [row for row in marked if row["proven"] is True]
    assert len(unproven) + len(proven) == len(marked)
    assert [row["charge_id"] for row in proven] == [row["charge_id"] for row in rows]
    assert len(unproven) == int(err.split(" rows not proven")[-2].split()[-1]), err
    assert all(row["tags"] is None for row in unproven), unproven


def test_the_table_json_and_csv_say_the_same(run: Run) -> None:
    code, out, err = run("charges", "search", "tag:vip", "--limit", "500")
    left = _left_out(err)
    lines = out.splitlines()[1:]
    assert code == Exit.UNPROVEN and lines and "PROVEN" not in out

    code, out, _ = run("charges", "search", "tag:vip", "--limit", "500", "--format", "json")
    rows = json.loads(out)
    assert len(rows) == len(lines)

    code, out, _ = run(
        "charges", "search", "tag:vip", "--limit", "500", "--format", "csv", "--include-unproven"
    )
    table = list(csv.DictReader(io.StringIO(out)))
    assert code == Exit.UNPROVEN and list(table[0])[-1] == "proven"
    assert sum(row["proven"] == "false" for row in table) == left
    assert sum(row["proven"] == "true" for row in table) == len(rows)

    code, out, _ = run(
        "charges", "search", "tag:vip", "--limit", "500", "--format", "json", "--include-unproven"
    )
    assert sum(row["proven"] is False for row in json.loads(out)) == left


def test_export_leaves_the_unproven_out_or_marks_them(run: Run, tmp_path: Path) -> None:
    code, out, err = run("export", "tag:vip", "--format", "jsonl", "-o", "-")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == Exit.UNPROVEN and rows and all("vip" in row["tags"] for row in rows), err
    left = _left_out(err)

    target = tmp_path / "vip.csv"
    code, out, err = run("export", "tag:vip", "-o", str(target), "--include-unproven")
    assert code == Exit.UNPROVEN and out.strip() == str(target), err
    table = list(csv.DictReader(target.open(encoding="utf-8")))
    assert sum(row["proven"] == "false" for row in table) == left
    assert sum(row["proven"] == "true" for row in table) == len(rows)


def test_a_search_every_row_proves_is_unchanged(run: Run) -> None:
    """Nothing to leave out: exit 0, no `proven` column unless asked, nothing said."""
    code, out, err = run("charges", "search", "status:success", "--limit", "5", "--format", "jsonl")
    assert code == Exit.OK and err == "", err
    assert all("proven" not in json.loads(line) for line in out.splitlines())
