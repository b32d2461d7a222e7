"""A 429 on a write (docs/api-assumptions.md, "Rate limits"): the service refused it before
acting, so the executor waits what Retry-After asks (seconds or an HTTP date; capped) and sends it
once more under the same intent — the same journal entry and client reference, both sends in the
entry's trail. A second 429 ends "not sent: rate limited": retryable, never a final refusal, and
the command line exits 10 (unavailable), not 6 (refused). Waits are a fake sleep: nothing waits.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.actions.outcome import ActionOutcome
from paytui.actions.policy import ActionPolicy
from tests.second_service.app import SecondService
from tests.second_service.fixtures import client_for
from tests.second_service.test_error_shapes import open_sale


class Run:
    """One refund through the executor against `service`, its waits kept (`slept`)."""

    def __init__(self, service: SecondService, journal_path: Path) -> None:
        self.service = service
        self.path = journal_path
        self.slept: list[float] = []
        self.sale = open_sale(service)
        self.refunds_before = len(service.store.refunds)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    async def refund(self) -> ActionOutcome:
        async with client_for(self.service) as client:
            journal = Journal(self.path)
            executor = ActionExecutor(
                client,
                journal,
                ActionPolicy(),
                profile="p",
                base_url=self.service.base_url,
                sleep=self.sleep,
            )
            try:
                return await executor.run("refund", self.sale, refund_op.Params(Decimal("1.00")))
            finally:
                journal.close()

    @property
    def posts(self) -> int:
        return len(self.service.requests_to("/v2/refunds", "POST"))

    @property
    def refunds_made(self) -> int:
        return len(self.service.store.refunds) - self.refunds_before

    def trail(self, entry_id: int) -> list[tuple[str, str | None]]:
        """(state, error) of every link of the entry's trail, oldest first (journal closed)."""
        with sqlite3.connect(self.path) as db:
            rows = db.execute(
                "SELECT body FROM trail WHERE action_id = ? ORDER BY seq", (entry_id,)
            ).fetchall()
        return [(body["state"], body["error"]) for body in (json.loads(r[0]) for r in rows)]


async def test_a_429_burst_is_waited_out_and_sent_once_more_under_the_same_intent(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    run = Run(second_service(throttle_writes=1, retry_after="2"), tmp_path / "j.sqlite3")
    outcome = await run.refund()
    assert outcome.state == "succeeded" and outcome.result_id
    assert run.slept == [2.0]
    assert (run.posts, run.refunds_made) == (2, 1)
    journal = Journal(run.path)
    entries = journal.list()
    assert journal.verify().ok
    journal.close()
    assert [e.id for e in entries] == [outcome.entry_id]  # one intent, one client reference
    trail = run.trail(outcome.entry_id)
    assert [state for state, _ in trail] == ["pending", "sent", "sent", "succeeded"]
    note = trail[2][1] or ""
    assert "Rate limited" in note and "429" in note and "waited 2 s and sent it once more" in note


async def test_a_429_that_persists_ends_not_sent_and_retryable(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    run = Run(second_service(throttle_writes=5, retry_after="3"), tmp_path / "j.sqlite3")
    outcome = await run.refund()
    assert outcome.state == "failed" and outcome.never_sent and outcome.retryable
    assert outcome.message.startswith("Not sent: the service is limiting requests")
    assert (
        "try again in 3 s" in outcome.message and "asked again after waiting 3 s" in outcome.message
    )
    assert run.slept == [3.0]
    assert (run.posts, run.refunds_made) == (2, 0)  # once more, never a third time


async def test_an_http_date_retry_after_is_waited_until_that_moment(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    run = Run(second_service(throttle_writes=1, retry_after=when), tmp_path / "j.sqlite3")
    outcome = await run.refund()
    assert outcome.state == "succeeded"
    assert len(run.slept) == 1 and 10 < run.slept[0] <= 20


async def test_a_wait_past_the_cap_is_not_held_nothing_more_is_sent(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    run = Run(second_service(throttle_writes=1, retry_after="120"), tmp_path / "j.sqlite3")
    outcome = await run.refund()
    assert outcome.state == "failed" and outcome.never_sent
    assert "try again in 120 s" in outcome.message
    assert run.slept == [] and (run.posts, run.refunds_made) == (1, 0)


async def test_a_429_without_retry_after_waits_a_moment(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    run = Run(second_service(throttle_writes=1, retry_after=None), tmp_path / "j.sqlite3")
    outcome = await run.refund()
    assert outcome.state == "succeeded" and run.slept == [1.0]


def test_the_command_line_sends_after_a_burst(
    second_service: Callable[..., SecondService], second_cli: Callable[[SecondService], Any]
) -> None:
    burst = second_service(throttle_writes=1, retry_after="0")
    code, out, err = second_cli(burst)(
        "refunds", "create", open_sale(burst), "--amount", "1.00", "--yes", "--format", "json"
    )
    assert code == 0, err
    assert json.loads(out)["state"] == "succeeded"
    assert len(burst.requests_to("/v2/refunds", "POST")) == 2


def test_the_command_line_exits_10_when_the_429_persists(
    second_service: Callable[..., SecondService], second_cli: Callable[[SecondService], Any]
) -> None:
    limited = second_service(throttle_writes=9, retry_after="0", error_shape="fault")
    code, out, err = second_cli(limited)(
        "refunds", "create", open_sale(limited), "--amount", "1.00", "--yes", "--format", "json"
    )
    assert code == 10, err
    assert json.loads(out)["state"] == "failed"
    assert "Not sent: the service is limiting requests (too many requests for this client" in err
