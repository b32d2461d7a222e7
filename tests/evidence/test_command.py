"""`paytui evidence` through the command line's entry point, on the in-process sandbox."""

from __future__ import annotations

import io
import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from paytui.commands import evidence as evidence_command
from paytui.commands.runtime import Exit
from tests.cli_support import Run, sandbox_cli

BUILT = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def frozen_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evidence_command, "now_utc", lambda: BUILT)


@pytest.fixture
def run(sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path) -> Run:
    return sandbox_cli(sandbox_transport, tmp_path / "journal.sqlite3")


def _id_of(run: Run, name: str) -> str:
    code, out, err = run(
        "charges", "search", "status:chargeback", f"name:{name}", "--format", "jsonl"
    )
    assert code == Exit.OK, err
    (row,) = [json.loads(line) for line in out.splitlines()]
    return str(row["charge_id"])


def _config(text: str) -> None:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "paytui"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")


def test_markdown_on_stdout_and_json_with_the_priors(run: Run) -> None:
    omar = _id_of(run, "Omar")
    code, out, err = run("evidence", omar)
    assert code == Exit.OK, err
    assert out.startswith(f"# Evidence pack: chargeback on charge {omar}\n")
    assert "## 3. Prior undisputed charges" in out
    code, out, err = run("evidence", omar, "--format", "json")
    assert code == Exit.OK, err
    body = json.loads(out)
    assert [set(p) >= {"charge_id", "matches"} for p in body["priors"]] == [True, True]


def test_the_pdf_goes_to_a_private_file_and_reads_back(run: Run, tmp_path: Path) -> None:
    from pypdf import PdfReader

    target = tmp_path / "pack.pdf"
    omar = _id_of(run, "Omar")
    code, _, err = run("evidence", omar, "--format", "pdf")
    assert code == Exit.USAGE and "--output" in err
    code, _, err = run("evidence", omar, "--format", "pdf", "--output", str(target))
    assert code == Exit.OK, err
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    text = PdfReader(io.BytesIO(target.read_bytes())).pages[0].extract_text()
    assert f"Evidence pack: chargeback on charge {omar}" in text
    code, _, err = run("evidence", omar, "--format", "pdf", "--output", str(target))
    assert code == Exit.USAGE and "exists" in err  # never over a file without --force


def test_check_passes_a_complete_pack_and_fails_a_missing_proof(run: Run) -> None:
    code, out, err = run("evidence", _id_of(run, "Omar"), "--check")
    assert code == Exit.OK, (out, err)
    assert out.splitlines()[-1] == "ready: nothing required is missing"
    code, out, err = run("evidence", _id_of(run, "Ravi"), "--check")
    assert code == Exit.WOULD_BE_REFUSED == 14, (out, err)
    assert "missing (required): Proof of delivery" in out
    assert out.splitlines()[-1] == "would be refused"


def test_check_fails_a_pack_over_the_configured_page_or_file_limit(
    run: Run, tmp_path: Path
) -> None:
    omar = _id_of(run, "Omar")
    _config("[evidence]\nmax_pages = 1\n")
    code, out, _ = run("evidence", omar, "--check")
    assert code == Exit.WOULD_BE_REFUSED
    assert any(
        line.startswith("over a limit: ") and "over the limit of 1" in line
        for line in out.splitlines()
    ), out
    _config("[evidence]\nmax_files = 1\n")
    receipt = tmp_path / "receipt.txt"
    receipt.write_text("signed receipt", encoding="utf-8")
    code, out, _ = run("evidence", omar, "--check")
    assert code == Exit.OK, out
    code, out, _ = run("evidence", omar, "--check", "--attach", str(receipt))
    assert code == Exit.WOULD_BE_REFUSED
    assert "over a limit: 2 files, over the limit of 1" in out


def test_a_charge_without_a_chargeback_has_no_pack(run: Run) -> None:
    code, out, err = run("charges", "search", "status:success", "--limit", "1", "--format", "jsonl")
    charge_id = json.loads(out)["charge_id"]
    code, out, err = run("evidence", charge_id)
    assert code == Exit.REFUSED and out == ""
    assert (
        err.strip()
        == f"paytui: error: {charge_id}: The charge has no chargeback: there is no case to answer"
    )
    code, _, err = run("evidence", "f" * 24)
    assert code == Exit.NOT_FOUND, err


def test_check_in_json_is_one_object_and_its_errors_are_json_on_stderr(run: Run) -> None:
    """`--check --format json`: the check as one object on stdout (docs/cli.md, "Output
    shapes"), `refused` as the exit says; an error is one JSON object on stderr, nothing on
    stdout (the output contract)."""
    ravi = _id_of(run, "Ravi")
    code, out, err = run("evidence", ravi, "--check", "--format", "json")
    assert code == Exit.WOULD_BE_REFUSED, err
    body = json.loads(out)
    assert body["format"] == "paytui-evidence-check/1" and body["charge_id"] == ravi
    assert body["refused"] is True and body["over_limits"] == []
    assert [line.split(":")[0] for line in body["missing_required"]] == [
        "Proof of delivery (carrier, tracking, delivered date)"
    ]
    assert set(body["measured"]) == {"files", "largest_bytes", "pages", "characters"}
    assert body["lines"][-1] == "would be refused"
    code, out, err = run("evidence", _id_of(run, "Omar"), "--check", "--format", "json")
    assert code == Exit.OK and json.loads(out)["refused"] is False, err
    for argv, exit_code, kind in (
        (("evidence", "f" * 24, "--check"), Exit.NOT_FOUND, "not_found"),
        (("evidence", ravi, "--check", "--attach", "/no/such/file"), Exit.USAGE, "usage"),
    ):
        code, out, err = run(*argv, "--format", "json")
        error = json.loads(err.splitlines()[-1])
        assert (code, out, error["exit"], error["kind"]) == (exit_code, "", exit_code, kind), err
