"""No invented refusals (issue 38, points 4 and 7), against a service whose charges show statuses
the spec does not list (`ServiceOptions.lifecycle_statuses`: `settled`, `partially_refunded`).

A status paytui does not know forbids nothing: the refund is offered and sent with "paytui does
not know the status `settled`; the service will decide", and `status:settled` is searched, its
rows proven here. What paytui does know still holds: an open authorization (told by its
`Authorized` result code, as this service sends no `charge_type`) is captured, never refunded,
and nothing is sent for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions.errors import PrecheckFailed
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.actions.policy import ActionPolicy
from paytui.actions.registry import note
from tests.second_service.app import SecondService
from tests.second_service.data import StoredCharge
from tests.second_service.fixtures import client_for

UNKNOWN = "paytui does not know the status `{}`; the service will decide"


def _first(service: SecondService, status: str, kind: str = "sale") -> StoredCharge:
    return next(c for c in service.store.charges if c.status == status and c.charge_type == kind)


def _open_authorization(service: SecondService) -> StoredCharge:
    return next(
        c
        for c in service.store.charges
        if c.charge_type == "authorization" and c.captured_charge_id is None
    )


def _refunds_of(service: SecondService, charge_id: str) -> list[Decimal]:
    return [r.amount for r in service.store.refunds if r.charge_id == charge_id]


@pytest.fixture
def lifecycle(second_service: Callable[..., SecondService]) -> SecondService:
    return second_service(lifecycle_statuses=True)


@pytest.mark.parametrize("status", ["settled", "partially_refunded"])
def test_a_refund_of_a_status_paytui_does_not_know_is_sent_and_the_service_decides(
    lifecycle: SecondService, second_cli: Callable[[SecondService], Any], status: str
) -> None:
    charge = _first(lifecycle, status)
    before = _refunds_of(lifecycle, charge.charge_id)
    run = second_cli(lifecycle)
    code, out, err = run(
        "refunds", "create", charge.charge_id, "--amount", "1.00", "--yes", "--format", "json"
    )
    assert code == 0, err
    assert UNKNOWN.format(status) in err
    assert json.loads(out)["state"] == "succeeded"
    assert _refunds_of(lifecycle, charge.charge_id) == [Decimal("1.00"), *before]


def test_a_refund_of_an_open_authorization_is_refused_before_anything_is_sent(
    lifecycle: SecondService, second_cli: Callable[[SecondService], Any]
) -> None:
    auth = _open_authorization(lifecycle)
    run = second_cli(lifecycle)
    code, _out, err = run("refunds", "create", auth.charge_id, "--amount", "1.00", "--yes")
    assert code == 6
    assert "An open authorization moved no money: capture it" in err
    assert lifecycle.requests_to("/v2/refunds", "POST") == []
    assert _refunds_of(lifecycle, auth.charge_id) == []


def test_a_search_for_a_status_paytui_does_not_know_is_sent_and_its_rows_proven(
    lifecycle: SecondService, second_cli: Callable[[SecondService], Any]
) -> None:
    run = second_cli(lifecycle)
    code, out, err = run("charges", "search", "status:settled", "--all", "--format", "jsonl")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    settled = [c.charge_id for c in lifecycle.store.charges if c.status == "settled"]
    assert [row["charge_id"] for row in rows] == settled and settled
    (asked,) = lifecycle.requests_to("/v2/charges")[-1:]
    assert ("status", "settled") in asked.query


async def test_the_executor_sends_on_an_unknown_status_and_refuses_an_open_authorization(
    lifecycle: SecondService, tmp_path: Path
) -> None:
    charge = _first(lifecycle, "settled")
    auth = _open_authorization(lifecycle)
    async with client_for(lifecycle) as client:
        journal = Journal(tmp_path / "journal.sqlite3")
        executor = ActionExecutor(
            client, journal, ActionPolicy(), profile="p", base_url=lifecycle.base_url
        )
        try:
            basis = await executor.observe("refund", charge.charge_id)
            assert note("refund", basis.charge) == UNKNOWN.format("settled")
            outcome = await executor.run(
                "refund", charge.charge_id, refund_op.Params(Decimal("2.50")), basis=basis
            )
            assert outcome.state == "succeeded", outcome.message
            with pytest.raises(PrecheckFailed, match="An open authorization"):
                await executor.observe("refund", auth.charge_id)
            # Capture is what an open authorization gets.
            seen = await executor.observe("capture", auth.charge_id)
            assert seen.charge is not None and seen.charge.charge_id == auth.charge_id
        finally:
            await executor.aclose()
            journal.close()
    assert _refunds_of(lifecycle, charge.charge_id)[0] == Decimal("2.50")
    assert _refunds_of(lifecycle, auth.charge_id) == []
