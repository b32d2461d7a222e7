"""Money gaps a mutation run of the money core found: small changes to the executor, journal,
read-backs and operations that no test caught, each a way to move money twice or wrongly.

Each test here catches one or more of them (docs/reliability.md, "Mutation run of the money
core", has the table; `scripts/mutation_money_core.py` applies each change and runs its test).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from paytui.actions.amounts import AmountError, format_amount
from paytui.actions.errors import (
    ConfirmationRequired,
    EarlierAttemptApplied,
    NotRetryable,
    TargetChanged,
)
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.operation import Asked, Executor, NoParams
from paytui.actions.operations import OPERATIONS
from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import refund as refund_op
from paytui.actions.plan import Plan
from paytui.actions.policy import ActionPolicy
from paytui.actions.reconcile import reconcile_detail
from paytui.api.client import PaymentClient
from paytui.api.models import (
    CardPaymentMethodRequest,
    Charge,
    ChargeRequest,
    Contact,
    TokenCreatePaymentMethodRequest,
    TokenRequest,
)
from paytui.sandbox.faults import Faults
from tests.actions.support import (
    FakeClock,
    WireTransport,
    captures_of,
    clocked_executor,
    made_for,
    refund_intent,
    refunds_of,
)

PRODUCTION = ActionPolicy(environment="production")


def _charge(account_id: str, amount: str, **fees: Decimal) -> ChargeRequest:
    return ChargeRequest(
        account_id=account_id,
        total_amount=Decimal(amount),
        payment_method=CardPaymentMethodRequest(
            card_number="4111111111111111", expiration_date="2030-12"
        ),
        **fees,
    )


def _token(account_id: str) -> TokenRequest:
    return TokenRequest(
        account_id=account_id,
        payment_method=TokenCreatePaymentMethodRequest(
            card_number=SecretStr("5555555555554444"),
            expiration_date="2031-09",
            contact=Contact(first_name="Grace", last_name="Gaps", country="us"),
        ),
    )


class LosingWire(WireTransport):
    """The wire, and `lose()`: the next request that changes data is served in full (the
    service commits it), then its answer is lost; with ``reads_down`` every read fails from
    that moment, so the outcome stays unknown until `reads_back()`."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        super().__init__(inner)
        self.losing = False
        self.then_reads_down = False

    def lose(self, *, reads_down: bool = True) -> None:
        self.losing, self.then_reads_down = True, reads_down

    def reads_back(self) -> None:
        self.fail_gets = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        writes = request.method != "GET" and not request.url.path.startswith("/v2/services")
        if writes and self.losing:
            await response.aread()
            self.losing = False
            self.fail_gets = self.then_reads_down
            raise httpx.ReadError("test: the answer was lost", request=request)
        return response


@pytest.fixture
def wire(sandbox_transport: httpx.AsyncBaseTransport) -> LosingWire:
    return LosingWire(sandbox_transport)


async def _approved_accounts(client: PaymentClient) -> list[str]:
    page = await client.list_accounts_page(status="approved", limit=2)
    return [account.account_id for account in page.items]


# ------------------------------------------- M1, M2: settle the past of a new charge or token


async def test_a_charge_found_applied_in_the_background_stops_the_same_charge(
    client: PaymentClient, journal: Journal, clock: FakeClock, sale: Charge, wire: LosingWire
) -> None:
    """A new charge is sent, its answer lost and the reads down: unknown. The next start
    reads it back unseen and finds the charge. The same charge on the same account is then not
    sent again until that entry is acknowledged; a charge on another account is not held back
    by it. (The settle-earlier step must look new charges up by their account.)"""
    account = sale.account_id or ""
    other_account = next(a for a in await _approved_accounts(client) if a != account)
    first_run = clocked_executor(client, journal, clock)
    wire.lose()
    first = await first_run.run("charge", *made_for(_charge(account, "12.34")))
    assert first.state == "unknown"
    wire.reads_back()

    later = clocked_executor(client, journal, clock)
    (settled,) = await later.reconcile_all()
    assert settled.id == first.entry_id
    assert (settled.state, settled.unacknowledged) == ("succeeded", True)
    with pytest.raises(EarlierAttemptApplied) as told:
        await later.run("charge", *made_for(_charge(account, "12.34")))
    assert told.value.entry.id == first.entry_id
    assert f"did go through: charge {settled.result_id}" in told.value.message
    assert len(wire.posts("/v2/charges")) == 1

    elsewhere = await later.run("charge", *made_for(_charge(other_account, "12.34")))
    assert elsewhere.succeeded
    again = await later.run(
        "charge", *made_for(_charge(account, "12.34")), acknowledge_earlier=first.entry_id
    )
    assert again.succeeded and len(wire.posts("/v2/charges")) == 3


async def test_a_token_found_stored_in_the_background_stops_the_same_card_even_again(
    client: PaymentClient, journal: Journal, clock: FakeClock, wire: LosingWire
) -> None:
    """The same for a stored card: one stored unseen (found by the next start's read-back) is
    not stored a second time, even with "again" (which answers a recent one the person was
    shown): only an acknowledgement of that entry sends another."""
    (account, *_) = await _approved_accounts(client)
    first_run = clocked_executor(client, journal, clock)
    wire.lose()
    first = await first_run.run("token_create", *made_for(_token(account)))
    assert first.state == "unknown"
    wire.reads_back()

    later = clocked_executor(client, journal, clock)
    (settled,) = await later.reconcile_all()
    assert (settled.state, settled.unacknowledged) == ("succeeded", True)
    with pytest.raises(EarlierAttemptApplied) as told:
        await later.run("token_create", *made_for(_token(account)), again=True)
    assert told.value.entry.id == first.entry_id
    assert len(wire.posts("/v2/tokens")) == 1
    again = await later.run(
        "token_create", *made_for(_token(account)), acknowledge_earlier=first.entry_id
    )
    assert again.succeeded and len(wire.posts("/v2/tokens")) == 2


# ------------------------------ M3, M4b: a success in the moment before the intent is written


@pytest.mark.parametrize("looked", ["no basis", "basis", "basis, another entry acknowledged"])
async def test_a_refund_landing_just_before_the_intent_stops_this_one(
    client: PaymentClient,
    journal: Journal,
    clock: FakeClock,
    sale: Charge,
    looked: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command line's refund of 3.00 goes through after the dashboard read the charge
    again and before it writes its intent (of 5.00: not the same amount, so no "recent
    identical" rule applies). Only the journal's guard, in the intent's own transaction, sees
    it: nothing is sent, and the person is told by whom. An acknowledgement the person gave
    for another entry does not pass this one."""
    person = clocked_executor(client, journal, clock, actor="the dashboard of bo@desk-7")
    script = clocked_executor(client, journal, clock, actor="the command line of ana@desk-3")
    acknowledged = None
    if looked.endswith("acknowledged"):
        acknowledged = (
            await person.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
        ).entry_id
    basis = None
    if looked.startswith("basis"):
        basis = (await person.observe("refund", sale.charge_id)).with_shown()
    before = len(await refunds_of(client, sale.charge_id))

    async def prepare(
        executor: Executor, target: str, params: refund_op.Params, asked: Asked
    ) -> Plan:
        # The moment between the checks and the intent: the other refund lands (once).
        if executor is person and params.amount == Decimal("5.00"):
            assert (
                await script.run("refund", sale.charge_id, refund_op.Params(Decimal("3.00")))
            ).succeeded
        return await refund_op.prepare(executor, target, params, asked)

    monkeypatch.setitem(OPERATIONS, "refund", replace(OPERATIONS["refund"], prepare=prepare))
    refused = TargetChanged if basis is not None else EarlierAttemptApplied
    with pytest.raises(refused) as told:
        await person.run(
            "refund",
            sale.charge_id,
            refund_op.Params(Decimal("5.00")),
            acknowledge_earlier=acknowledged,
            basis=basis,
        )
    assert "3.00" in told.value.message
    if basis is not None:
        assert "by the command line of ana@desk-3" in told.value.message
    amounts = [r.total_amount for r in await refunds_of(client, sale.charge_id)]
    assert len(amounts) == before + 1 and Decimal("5.00") not in amounts


# ---------------------------------------------- M4a: an acknowledgement names exactly one entry


async def test_an_acknowledgement_names_one_earlier_success_not_any(
    client: PaymentClient, journal: Journal, clock: FakeClock, sale: Charge, wire: LosingWire
) -> None:
    """Two refunds found done in the background, one after the other. Acknowledging the
    first lets the next refund go; it does not pass the second, found later."""
    runner = clocked_executor(client, journal, clock)
    wire.lose()
    first = await runner.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    wire.reads_back()
    await runner.reconcile_all()
    with pytest.raises(EarlierAttemptApplied):
        await runner.run("refund", sale.charge_id, refund_op.Params(Decimal("2.00")))

    wire.lose()
    second = await runner.run(
        "refund",
        sale.charge_id,
        refund_op.Params(Decimal("2.00")),
        acknowledge_earlier=first.entry_id,
    )
    wire.reads_back()
    assert (first.state, second.state) == ("unknown", "unknown")
    await runner.reconcile_all()

    with pytest.raises(EarlierAttemptApplied) as told:
        await runner.run(
            "refund",
            sale.charge_id,
            refund_op.Params(Decimal("1.00")),
            acknowledge_earlier=first.entry_id,
        )
    assert told.value.entry.id == second.entry_id
    amounts = sorted(r.total_amount for r in await refunds_of(client, sale.charge_id))
    assert amounts == [Decimal("2.00"), Decimal("5.00")]
    assert len(wire.posts("/v2/refunds")) == 2


# ------------------------------------------------ M5: a read-back takes only what is ours


async def test_a_charge_read_back_takes_no_other_charge_for_ours(
    second_service: Any, journal: Journal, clock: FakeClock
) -> None:
    """A service that ignores the attribute filter and does not show attributes: every charge
    of the account comes back, none showing whether it carries our reference. A new charge
    whose answer was lost is then neither "succeeded" (another charge taken for ours) nor
    "not applied" (ours may be among them): it stays unknown, and nothing is sent again."""
    service = second_service()
    wire = LosingWire(service.transport)
    async with PaymentClient(
        service.base_url,
        client_id=service.client_id,
        client_secret=service.client_secret,
        transport=wire,
        max_retries=0,
    ) as client:
        runner = clocked_executor(client, journal, clock)
        wire.lose(reads_down=False)
        outcome = await runner.run("charge", *made_for(_charge("pa_second_alpha", "17.20")))
        assert outcome.state == "unknown" and outcome.result_id is None, outcome.message
        assert "attributes" in (outcome.message or "")
        with pytest.raises(NotRetryable):
            await runner.retry(outcome.entry_id)
        assert len(wire.posts("/v2/charges")) == 1


# ----------------------------------------- M6: a distribute read-back needs a new item


async def test_a_distribute_that_never_landed_is_not_applied(
    executor: ActionExecutor, client: PaymentClient, sale: Charge, sandbox_faults: Faults
) -> None:
    """The distribute is answered 503 before the service did anything: the read-back finds
    no new distribution item naming the charge, which (after the deadline) proves it did not
    happen; nothing is distributed."""
    fresh = await client.create_charge(_charge(sale.account_id or "", "23.45"))
    before = await client.get_charge(fresh.charge_id, expand="distributions")
    sandbox_faults.fail_status = 503
    sandbox_faults.fail_path_prefix = f"/v2/charges/{fresh.charge_id}/distribute"
    sandbox_faults.fail_count = 1
    outcome = await executor.run("distribute", fresh.charge_id, NoParams())
    assert outcome.state == "not_applied" and outcome.result_id is None, outcome.message
    after = await client.get_charge(fresh.charge_id, expand="distributions")
    assert after.distributions == before.distributions


# -------------------------------------- M7: the window of a send cancelled while in flight


async def test_a_send_cancelled_late_is_not_proven_absent_too_early(
    client: PaymentClient, journal: Journal, clock: FakeClock, sale: Charge
) -> None:
    """The refund is stamped "sent", but its request leaves 30 s later (a slow token fetch on
    a loaded machine), and then paytui is shut down mid-request. A commit in flight can show
    until the margin after that moment, not after `sent_at` + the usual window: the next start
    must not prove it absent (and invite a retry) before then. The service commits it late;
    there is one refund."""
    runner = clocked_executor(client, journal, clock)
    send = client.create_refund
    sent: list[Any] = []
    left = asyncio.Event()

    async def slow_then_silent(request: Any) -> Any:
        await clock.sleep(30)
        sent.append(request)
        left.set()
        await asyncio.Event().wait()  # no answer before the shutdown

    client.create_refund = slow_then_silent  # type: ignore[method-assign]
    running = asyncio.ensure_future(
        runner.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    )
    await left.wait()
    (slot,) = runner.slots.values()
    slot.task.cancel()  # shutting down
    with pytest.raises(asyncio.CancelledError):
        await running
    client.create_refund = send  # type: ignore[method-assign]
    (entry,) = journal.list()
    assert entry.state == "unknown" and entry.sent_at is not None

    later = clocked_executor(client, journal, clock)
    (looked,) = await later.reconcile_all()
    assert looked.state == "unknown", looked.error  # not "not_applied": it may still land
    with pytest.raises(NotRetryable):
        await later.retry(entry.id)
    await clock.sleep(1)
    await send(sent[0])  # the late commit, within the margin of the moment it was given up
    (settled,) = await later.reconcile_all(wait=True)
    assert settled.state == "succeeded"
    assert len(await refunds_of(client, sale.charge_id)) == 1


# ----------------------------------- M8: a later transition never shortens the settle window


@pytest.fixture
def journal_on_each_engine(journal_location: Path | str) -> Iterator[Journal]:
    with Journal(journal_location) as opened:
        yield opened


async def test_a_later_transition_never_shortens_the_settle_window(
    journal_on_each_engine: Journal, client: PaymentClient, clock: FakeClock, sale: Charge
) -> None:
    """A refund left "sent" by a paytui that died. Two paytuis settle it at once, each reading
    it "sent": the one started 40 s after it was sent counts its window from then (52 s), the
    one started 5 s after from then (17 s). Whichever writes last, the entry keeps the longer
    window: the early one's "nothing found" is no proof, and the entry is checked again."""
    journal = journal_on_each_engine
    entry = refund_intent(journal, sale.charge_id, "5.00", settle=12.0)
    sent_at = clock.now
    journal.transition(entry.id, "sent", expected={"pending"}, at=sent_at)
    orphan = journal.get(entry.id)
    assert orphan is not None
    clock.now = sent_at + timedelta(seconds=41)
    late_start, early_start = sent_at + timedelta(seconds=40), sent_at + timedelta(seconds=5)
    for started in (late_start, early_start):  # the later starter writes first
        await reconcile_detail(
            client,
            journal,
            orphan,
            clock=clock,
            default_settle=12.0,
            background=True,
            orphaned_before=started,
        )
    settled = journal.get(entry.id)
    assert settled is not None and settled.settle_seconds == pytest.approx(52.0, abs=0.01)
    assert not settled.proven(12.0)
    assert [e.id for e in journal.to_check(12.0)] == [entry.id]


# ---------------------------------------- M9, M10, M11: amounts with their fees, fees checked


async def test_a_capture_is_confirmed_with_its_fees(
    client: PaymentClient,
    journal: Journal,
    clock: FakeClock,
    authorization: Charge,
    wire: LosingWire,
) -> None:
    """On production the person types what the card pays: the authorized amount plus the
    fees. The amount without them confirms nothing, and nothing is sent."""
    runner = clocked_executor(client, journal, clock, PRODUCTION)
    authorized = authorization.total_amount or Decimal(0)
    fee = Decimal("1.50")
    with pytest.raises(ConfirmationRequired) as told:
        await runner.run(
            "capture",
            authorization.charge_id,
            capture_op.Params(convenience_fee=fee),
            confirmation=format_amount(authorized),
        )
    assert told.value.phrase == format_amount(authorized + fee)
    assert wire.posts("/capture") == [] and journal.list() == []
    done = await runner.run(
        "capture",
        authorization.charge_id,
        capture_op.Params(convenience_fee=fee),
        confirmation=format_amount(authorized + fee),
    )
    assert done.succeeded
    (capture,) = await captures_of(client, authorization.charge_id)
    assert capture.charge_id == done.result_id


async def test_a_new_charge_is_confirmed_with_its_fees(
    client: PaymentClient, journal: Journal, clock: FakeClock, sale: Charge, wire: LosingWire
) -> None:
    """The same for a new charge: 20.00 with fees of 1.25 and 0.50 is confirmed as 21.75."""
    runner = clocked_executor(client, journal, clock, PRODUCTION)
    fees = {"convenience_fee": Decimal("1.25"), "supplemental_fee": Decimal("0.50")}
    request = _charge(sale.account_id or "", "20.00", **fees)
    with pytest.raises(ConfirmationRequired) as told:
        await runner.run("charge", *made_for(request), confirmation="20.00")
    assert told.value.phrase == "21.75"
    assert wire.posts("/v2/charges") == [] and journal.list() == []
    done = await runner.run("charge", *made_for(request), confirmation="21.75")
    assert done.succeeded and len(wire.posts("/v2/charges")) == 1


@pytest.mark.parametrize("fee", ["-1.00", "0.005", "NaN"])
async def test_a_capture_fee_is_checked_before_anything_is_sent(
    executor: ActionExecutor,
    client: PaymentClient,
    authorization: Charge,
    wire: LosingWire,
    fee: str,
) -> None:
    """A fee is an amount like any other: a negative one, a fraction of a cent, not a number
    — refused before anything is written or sent."""
    with pytest.raises(AmountError):
        await executor.run(
            "capture", authorization.charge_id, capture_op.Params(convenience_fee=Decimal(fee))
        )
    with pytest.raises(AmountError):
        await executor.run(
            "capture", authorization.charge_id, capture_op.Params(supplemental_fee=Decimal(fee))
        )
    assert wire.posts() == [] and executor.journal.list() == []
    assert await captures_of(client, authorization.charge_id) == []


# ------------------------------ the mutation script still finds what it changes
def test_every_mutation_of_the_script_changes_its_text_once_where_the_doc_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`scripts/mutation_money_core.py` changes each mutant's text, found exactly once in the
    module it names (else it stops: "does not hold the text to change once"), and
    docs/reliability.md's table names that module: a move of the money core (the executor's
    rooms, the journal's) must take its mutations along."""
    import importlib.util
    import re
    import sys

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "mutation_money_core", root / "scripts" / "mutation_money_core.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, script)  # its dataclasses look it up there
    spec.loader.exec_module(script)
    doc = (root / "docs" / "reliability.md").read_text(encoding="utf-8")
    named = dict(re.findall(r"^\| (M\d+\w?) \| `([\w/.]+\.py):\d+` \|", doc, flags=re.MULTILINE))
    for mutation in script.MUTATIONS:
        text = (root / "src" / "paytui" / mutation.path).read_text(encoding="utf-8")
        assert text.count(mutation.old) == 1, (mutation.key, mutation.path)
        assert named.get(mutation.key) == mutation.path, mutation.key
