"""Bulk runs the operation it was given (issue 38, point 8): each marked charge goes through the
operation's own parameters (`Operation.bulk_params`) and the one verb (`ActionExecutor.run`),
never as another operation.

A made-up operation, `void` (the example of docs/adding-an-operation.md), is added to the table
for the test: a bulk void must journal and send voids — before the fix, every operation that
was not `capture` went out as a full refund of each marked charge.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions import policy as policy_module
from paytui.actions.batch import BatchRunner, bulk_spec, observe_plan, plan_batch
from paytui.actions.batch_log import BatchLog
from paytui.actions.entry import JournalEntry
from paytui.actions.errors import ActionError
from paytui.actions.journal import Journal
from paytui.actions.operation import CHARGES_ALL, Asked, Executor, NoParams, Operation
from paytui.actions.operations import OPERATIONS
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import ReadBack
from paytui.api.client import PaymentClient
from paytui.api.models import CardPaymentMethodRequest, Charge, ChargeRequest
from tests.actions.support import (
    BASE_URL,
    PROFILE,
    FakeClock,
    WireTransport,
    clocked_executor,
    refunds_of,
)


class Voids:
    """The made-up operation `void`, whose send only notes the charge it was sent for (the
    sandbox has no such endpoint): what reaches `send` is what the bulk run dispatched."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def prepare(
        self, executor: Executor, charge_id: str, params: NoParams, asked: Asked
    ) -> Plan:
        charge = await executor.client.get_charge(charge_id)

        async def send(_ref: str) -> Charge:
            self.sent.append(charge_id)
            return charge

        return Plan("void", charge_id, charge_id, charge.total_amount, journal_summary(), send)

    def spec(self) -> Operation:
        async def read_back(
            client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
        ) -> ReadBack:
            return ReadBack("succeeded" if entry.charge_id in self.sent else "not_applied")

        return Operation(
            "void",
            noun="void",
            label="Void",
            short="void",
            scope=CHARGES_ALL,
            success="Voided: {result_id}",
            read_back=read_back,
            params=NoParams,
            prepare=self.prepare,
            params_of=lambda entry, original: (entry.charge_id or "", NoParams()),
            bulk_label="Void",
            bulk_noun="charge",
            bulk_params=NoParams(),
            no_command="an operation of this test only",
        )


@pytest.fixture
def voids(monkeypatch: pytest.MonkeyPatch) -> Voids:
    """`void` in the table of operations (and so in the journal's and the policy's)."""
    made = Voids()
    monkeypatch.setitem(OPERATIONS, "void", made.spec())
    monkeypatch.setattr(
        policy_module, "CHANGING_OPERATIONS", policy_module.CHANGING_OPERATIONS | {"void"}
    )
    monkeypatch.setitem(policy_module.REQUIRED_SCOPES, "void", CHARGES_ALL)
    return made


async def _sales(client: PaymentClient, account_id: str, count: int) -> list[Charge]:
    made = []
    for n in range(count):
        request = ChargeRequest(
            account_id=account_id,
            total_amount=Decimal("20.00") + Decimal(n + 1) / 100,
            payment_method=CardPaymentMethodRequest(
                card_number="4111111111111111", expiration_date="2030-12"
            ),
        )
        made.append(await client.create_charge(request))
    return made


async def test_a_bulk_of_an_added_operation_is_dispatched_as_itself(
    client: PaymentClient,
    journal: Journal,
    clock: FakeClock,
    wire: WireTransport,
    sale: Charge,
    voids: Voids,
) -> None:
    sales = await _sales(client, sale.account_id or "", 3)
    executor = clocked_executor(client, journal, clock)
    plan = await observe_plan(executor, plan_batch("void", sales))
    assert plan.label == "Void" and plan.count == 3
    log = BatchLog(journal.path)
    record = await BatchRunner(executor, log).start(plan)

    ids = [charge.charge_id for charge in sales]
    assert {item.state for item in record.items} == {"succeeded"}
    assert sorted(voids.sent) == sorted(ids)  # each sent once, as a void
    entries = [e for e in journal.list(limit=50) if e.charge_id in ids]
    assert sorted(e.operation for e in entries) == ["void"] * 3
    # Nothing went out as a refund: no request, and the service holds none.
    assert wire.posts("/refunds") == []
    assert [await refunds_of(client, charge_id) for charge_id in ids] == [[], [], []]
    log.close()


def test_an_operation_with_a_bulk_label_but_no_way_to_do_it_cannot_be_described() -> None:
    from paytui.actions.ops import refund

    with pytest.raises(ValueError, match="bulk_label but no bulk_params"):
        Operation(
            "void",
            noun="void",
            label="Void",
            short="void",
            scope=CHARGES_ALL,
            success="Voided",
            read_back=refund.read_back,
            params=refund.Params,
            prepare=refund.prepare,
            params_of=refund.params_of,
            bulk_label="Void",
        )


async def test_a_batch_naming_an_operation_not_done_in_bulk_is_refused_before_sending(
    client: PaymentClient, journal: Journal, clock: FakeClock, wire: WireTransport, sale: Charge
) -> None:
    # A batch log that names `distribute` (written by hand, or by a later paytui): resuming it
    # sends nothing at all, and certainly not a refund.
    log = BatchLog(journal.path)
    record = log.create(
        profile=PROFILE,
        base_url=BASE_URL,
        operation="distribute",
        journal_mark=journal.last_id(),
        items=[(sale.charge_id, sale.total_amount)],
        now=clock(),
    )
    executor = clocked_executor(client, journal, clock)
    with pytest.raises(ActionError, match="cannot be done in bulk"):
        await BatchRunner(executor, log).resume(record.id)
    with pytest.raises(ActionError, match="cannot be done in bulk"):
        bulk_spec("distribute")
    assert wire.posts() == [] and journal.list(limit=10) == []
    log.close()


def test_a_batch_log_written_when_bulk_knew_two_operations_takes_any_bulk_operation(
    tmp_path: Path, clock: FakeClock
) -> None:
    # The file as paytui wrote it before: a CHECK naming capture and refund only, one batch.
    path = tmp_path / "journal.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(
            """
            CREATE TABLE batches (
                id INTEGER PRIMARY KEY AUTOINCREMENT, profile TEXT NOT NULL,
                base_url TEXT NOT NULL,
                operation TEXT NOT NULL CHECK (operation IN ('capture', 'refund')),
                journal_mark INTEGER NOT NULL, created_at TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('running', 'cancelled', 'finished')),
                updated_at TEXT NOT NULL);
            INSERT INTO batches VALUES
                (7, 'p', 'http://x', 'refund', 0, '2026-01-01T00:00:00.000Z', 'finished',
                 '2026-01-01T00:00:00.000Z');
            CREATE TABLE batch_items (
                batch_id INTEGER NOT NULL REFERENCES batches(id), position INTEGER NOT NULL,
                charge_id TEXT NOT NULL, amount TEXT, state TEXT NOT NULL, entry_id INTEGER,
                result_id TEXT, message TEXT, PRIMARY KEY (batch_id, position));
            INSERT INTO batch_items VALUES (7, 0, 'ch_1', '5.00', 'succeeded', 3, 'rf_1', NULL);
            """
        )
    db.close()
    log = BatchLog(path)
    made = log.create(
        profile="p", base_url="http://x", operation="void", journal_mark=0, items=[], now=clock()
    )
    kept = log.get(7)
    assert made.operation == "void" and made.id == 8
    assert kept is not None and kept.operation == "refund"
    assert [(i.charge_id, i.state) for i in kept.items] == [("ch_1", "succeeded")]
    log.close()
