"""`paytui claim` (issue 25, item 6) through the command line's entry point, on a file and on a
team's PostgreSQL: who holds what, a claim refused with who holds it, the next free one, a claim
that goes when the command exits, and the money commands' warning on another agent's claim."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from paytui.actions.journal import Journal
from paytui.api.client import PaymentClient
from paytui.commands.runtime import Exit
from paytui.config.urls import service_key
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.cli_support import Run, cli_runner

SERVICE = service_key("http://sandbox")
OTHER = {"agent": "support-12", "machine": "ws-3", "owner": "ws-3:4242"}


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "postgresql":
        url: str = request.getfixturevalue("team_journal_url")
        return url
    return tmp_path / "journal.sqlite3"


def _runner(transport: httpx.AsyncBaseTransport, journal: Path | str) -> Run:
    return cli_runner(
        lambda: PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=transport,
        ),
        journal,
    )


def test_claim_from_the_command_line(
    sandbox_transport: httpx.AsyncBaseTransport, location: Path | str
) -> None:
    command = _runner(sandbox_transport, location)
    code, out, _ = command("charges", "search", "status:success", "type:sale", "--format", "jsonl")
    assert code == Exit.OK
    taken, free, *_ = (json.loads(line)["charge_id"] for line in out.splitlines())
    # The command line judges a claim's lease by the wall clock: the other agent's claim is
    # made and renewed by it too.
    with Journal(location, clock=lambda: datetime.now(UTC)) as other:
        held = other.claim(SERVICE, taken, **OTHER)  # another agent's dashboard, still running
        since = f"{held.claimed_at:%H:%M} UTC"

        def run(*argv: str) -> tuple[int, str, str]:
            other.beat_claims(owner=OTHER["owner"])  # its dashboard renews it as it runs
            return command(*argv)

        code, out, err = run("claim", "--list", "--format", "json")
        assert code == Exit.OK, err
        (row,) = json.loads(out)
        assert (row["charge_id"], row["agent"], row["machine"]) == (taken, "support-12", "ws-3")
        assert row["since"].startswith(f"{held.claimed_at:%Y-%m-%dT%H:%M}")

        # Taken: who holds it, on stderr, exit 6.
        code, out, err = run("claim", taken)
        assert (code, out) == (Exit.REFUSED, "")
        said = rf"{taken} is claimed by support-12 on ws-3 since {since} \(\d+ s\)\."
        take = f"To take it over, say why: paytui claim {taken} --take-over REASON"
        assert re.fullmatch(rf"paytui: error: {said} {take}\n", err), err

        # Free: claimed, said to last as long as this command — and gone once it exited.
        code, out, err = run("claim", free)
        assert code == Exit.OK, err
        assert free in out and "released as it exits" in err, (out, err)
        assert set(other.claims(SERVICE)) == {taken}

        # The next free of several (in the order given), or exit 6 when none is.
        code, out, err = run("claim", "--next", taken, free, "--format", "jsonl")
        assert code == Exit.OK and json.loads(out)["charge_id"] == free, (out, err)
        code, out, err = run("claim", "--next", taken, taken)
        assert (code, out) == (Exit.REFUSED, "")
        assert "Nothing free" in err, err

        # Only the paytui holding a claim lets go of it.
        code, _, err = run("claim", "--release", taken)
        assert code == Exit.REFUSED and "released by the paytui holding it" in err, err
        assert set(other.claims(SERVICE)) == {taken}
        assert run("claim", "--release", free)[0] == Exit.OK

        # No claim on a charge that does not exist; the arguments are checked.
        assert run("claim", "no-such-charge")[0] == Exit.NOT_FOUND
        assert run("claim")[0] == Exit.USAGE
        assert run("claim", "--list", taken)[0] == Exit.USAGE
        assert run("claim", taken, free)[0] == Exit.USAGE

        # A refund of the claimed charge says who claimed it before anything is sent.
        code, _, err = run("refunds", "create", taken, "--amount", "1", "--yes")
        warning = f"Warning: Claimed by support-12 on ws-3 since {since} ("
        assert code == Exit.OK and err.startswith(warning), err
        assert other.verify().ok


def test_a_live_claim_is_taken_over_only_with_a_reason_kept_in_the_trail(
    sandbox_transport: httpx.AsyncBaseTransport, location: Path | str
) -> None:
    command = _runner(sandbox_transport, location)
    code, out, _ = command("charges", "search", "status:success", "type:sale", "--format", "jsonl")
    taken = json.loads(out.splitlines()[0])["charge_id"]
    with Journal(location, clock=lambda: datetime.now(UTC)) as other:
        other.claim(SERVICE, taken, **OTHER)
        assert command("claim", taken, "--take-over", "  ")[0] == Exit.USAGE
        code, out, err = command(
            "claim", taken, "--take-over", "support-12 is off sick", "--format", "json"
        )
        assert code == Exit.OK, err
        assert json.loads(out)[0]["agent"] != "support-12"
        links = other._store.rows("SELECT kind, body FROM trail ORDER BY seq")
        takeover = [json.loads(link["body"]) for link in links if link["kind"] == "takeover"]
        assert len(takeover) == 1, links
        assert takeover[0]["reason"] == "support-12 is off sick"
        assert takeover[0]["taken_from"] == {"agent": "support-12", "machine": "ws-3"}
        assert other.verify().ok
