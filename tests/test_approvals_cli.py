"""Four eyes from the command line (`paytui approvals`, exit 15), on the real sandbox: a refund
above `PAYTUI_APPROVE_ABOVE` sends nothing and names its request; the requester cannot approve
it; another agent approves and it is sent once; a rejection is final and says by whom."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from paytui.commands.runtime import Exit
from tests.cli_support import Run, sandbox_cli

ANA = {"PAYTUI_AGENT": "ana", "PAYTUI_APPROVE_ABOVE": "5.00"}
BEN = {"PAYTUI_AGENT": "ben", "PAYTUI_APPROVE_ABOVE": "5.00"}


@pytest.fixture
def run(sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path) -> Run:
    return sandbox_cli(sandbox_transport, tmp_path / "journal.sqlite3")


def _sales(run: Run, count: int) -> list[str]:
    code, out, err = run(
        "charges", "search", "status:success", "type:sale", "--limit", "12", "--format", "jsonl"
    )
    assert code == Exit.OK, err
    ids = [json.loads(line)["charge_id"] for line in out.splitlines()]
    fresh = []
    for charge in ids:
        code, out, _ = run("refunds", "list", "--charge", charge, "--format", "json")
        if code == Exit.OK and json.loads(out) == []:
            fresh.append(charge)
    assert len(fresh) >= count
    return fresh[:count]


def _refunds(run: Run, charge: str) -> list[dict[str, object]]:
    code, out, err = run("refunds", "list", "--charge", charge, "--format", "json")
    assert code == Exit.OK, err
    found: list[dict[str, object]] = json.loads(out)
    return found


def test_above_the_threshold_a_request_waits_and_another_agent_sends_it_once(run: Run) -> None:
    (sale,) = _sales(run, 1)
    code, out, err = run("refunds", "create", sale, "--amount", "6.00", "--yes", env=ANA)
    assert code == Exit.AWAITING_APPROVAL and out == "", err
    assert "Request #1 (refund 6.00 of" in err and "paytui approvals approve 1" in err
    assert _refunds(run, sale) == []
    # Asked again: the same request, not a second one.
    code, _, err = run("refunds", "create", sale, "--amount", "6.00", "--yes", env=ANA)
    assert code == Exit.AWAITING_APPROVAL and "Request #1 " in err
    # The requester cannot approve their own: the journal refuses it.
    code, _, err = run("approvals", "approve", "1", "--yes", env=ANA)
    assert code == Exit.REFUSED and "approver_is_not_requester" in err, err
    code, out, err = run("approvals", "approve", "1", "--yes", "--format", "json", env=BEN)
    assert code == Exit.OK, err
    sent = json.loads(out)
    assert (sent["state"], sent["amount"], sent["charge_id"]) == ("succeeded", "6.00", sale)
    assert len(_refunds(run, sale)) == 1
    code, _, err = run("approvals", "approve", "1", "--yes", env=BEN)
    assert code == Exit.REFUSED and "is sent by ben already" in err, err
    assert len(_refunds(run, sale)) == 1
    code, out, _ = run("approvals", "list", "--all", "--format", "json")
    (row,) = json.loads(out)
    assert (row["state"], row["requested_by"], row["decided_by"], row["entry"]) == (
        "sent",
        "ana",
        "ben",
        sent["entry"],
    )
    # At or under the threshold a refund goes at once.
    code, _, err = run("refunds", "create", sale, "--amount", "5.00", "--yes", env=ANA)
    assert code == Exit.OK, err


def test_a_rejection_is_final_and_says_by_whom(run: Run) -> None:
    (sale,) = _sales(run, 1)
    code, _, err = run(
        "refunds", "create", sale, "--amount", "7.00", "--yes", "--format", "json", env=ANA
    )
    error = json.loads(err.splitlines()[-1])
    assert code == Exit.AWAITING_APPROVAL
    assert (error["kind"], error["error"], error["exit"]) == (
        "awaiting_approval",
        "approval_required",
        15,
    )
    code, _, err = run("approvals", "reject", "1", "--reason", "store credit", env=BEN)
    assert code == Exit.OK and "Rejected request #1" in err, err
    code, _, err = run("approvals", "approve", "1", "--yes", env={**BEN, "PAYTUI_AGENT": "cy"})
    assert code == Exit.REFUSED, err
    assert "is rejected by ben already (a rejection is final" in err and "store credit" in err
    assert _refunds(run, sale) == []


def test_a_bad_threshold_is_refused_not_ignored(run: Run) -> None:
    code, _, err = run("approvals", "list", env={"PAYTUI_APPROVE_ABOVE": "lots"})
    assert code == Exit.CONFIG and "PAYTUI_APPROVE_ABOVE" in err, err


def test_the_threshold_comes_from_the_profile_and_the_environment_wins(tmp_path: Path) -> None:
    """`approve_above` in the profile's config; `PAYTUI_APPROVE_ABOVE` over it; a browser's
    session passes it on (its environment is an allow-list)."""
    from decimal import Decimal

    from paytui.config import resolve_connection
    from paytui.config.store import load_config
    from paytui.serve.environment import child_environment

    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.desk]\nbase_url = "http://127.0.0.1:9"\ntoken_env = "DESK_TOKEN"\n'
        'environment = "sandbox"\napprove_above = 250.00\n',
        encoding="utf-8",
    )
    loaded = load_config(config)
    assert not loaded.problems, loaded.problems
    env = {"DESK_TOKEN": "t"}
    desk = resolve_connection(profile="desk", environ=env, loaded=loaded)
    assert desk.approve_above == Decimal("250.00")
    env["PAYTUI_APPROVE_ABOVE"] = "40"
    assert resolve_connection(profile="desk", environ=env, loaded=loaded).approve_above == 40
    passed = child_environment(
        {"PAYTUI_APPROVE_ABOVE": "40", "PAYTUI_TOKEN": "secret"}, profile="desk", read_only=True
    )
    assert passed["PAYTUI_APPROVE_ABOVE"] == "40" and "PAYTUI_TOKEN" not in passed
