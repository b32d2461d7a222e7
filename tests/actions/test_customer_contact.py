"""A customer's contact (`update_customer`), the operation added to prove a new one is one
module, one table line, a client call, a dialog and a key: journaled and sent once like the
others, its lost answer read back (never sent twice), a refusal final, a contact changed since
the person saw it sending nothing, a retry through the table; and the second service's other
choices (an `id`, the contact nested) read and proven."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from paytui.actions.errors import ActionRefused, NotRetryable, PrecheckFailed
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.ops import customer as ops
from paytui.actions.policy import ActionPolicy
from paytui.api.client import PaymentClient
from paytui.sandbox.faults import Faults
from tests.actions.support import FakeClock, WireTransport, clocked_executor
from tests.second_service.app import SecondService
from tests.second_service.fixtures import client_for


async def _customers(client: PaymentClient) -> list[str]:
    page = await client.list_objects_page("customers", limit=10)
    return [str(c.fields()["customer_id"]) for c in page.items]


async def _contact(client: PaymentClient, customer_id: str) -> dict[str, str | None]:
    return ops.contact_of(await client.get_object("customers", customer_id))


async def test_sent_once_proven_and_the_lost_answer_read_back(
    executor: ActionExecutor, client: PaymentClient, wire: WireTransport, sandbox_faults: Faults
) -> None:
    first, second, *_ = await _customers(client)
    done = await executor.run("update_customer", first, ops.Params(email="ada@example.net"))
    assert (done.state, done.result_id) == ("succeeded", first)
    (patch,) = wire.posts("/customers")
    assert (patch.method, patch.path, patch.body) == (
        "PATCH",
        f"/v2/customers/{first}",
        {"email": "ada@example.net"},
    )
    assert (await _contact(client, first))["email"] == "ada@example.net"
    (entry,) = [e for e in executor.journal.list(limit=10) if e.operation == "update_customer"]
    assert (entry.state, entry.charge_id) == ("succeeded", first)
    assert entry.request_summary == {"email": "ada@example.net"}

    # The answer is lost after the commit: the read-back finds the contact, nothing resent.
    sandbox_faults.drop_after_commit = {"contact"}
    lost = await executor.run("update_customer", second, ops.Params(phone="+1 555 0100"))
    sandbox_faults.drop_after_commit = set()
    assert lost.state == "succeeded" and lost.reconciled
    assert len(wire.posts(f"/customers/{second}")) == 1
    assert (await _contact(client, second))["phone"] == "+1 555 0100"


async def test_the_request_that_died_is_not_applied_then_retried_through_the_table(
    executor: ActionExecutor, client: PaymentClient, wire: WireTransport
) -> None:
    (first, *_) = await _customers(client)
    wire.post_timeout, wire.abandon = 0, False
    died = await executor.run("update_customer", first, ops.Params(phone="+44 20 7946 0000"))
    wire.post_timeout, wire.abandon = None, True
    assert died.state == "not_applied" and died.retryable
    assert (await _contact(client, first))["phone"] is None

    # params_of: the journal gives the parameters back; within the late window only with the
    # person's go-ahead naming it.
    again = await executor.retry(died.entry_id, acknowledge_earlier=died.entry_id)
    assert again.state == "succeeded"
    assert (await _contact(client, first))["phone"] == "+44 20 7946 0000"
    assert len(wire.posts("/customers")) == 2
    with pytest.raises(NotRetryable):
        await executor.retry(again.entry_id)


async def test_a_refusal_is_final_and_a_contact_changed_since_sends_nothing(
    executor: ActionExecutor, client: PaymentClient, wire: WireTransport, sandbox_faults: Faults
) -> None:
    first, second, *_ = await _customers(client)
    sandbox_faults.fail_status, sandbox_faults.fail_method = 409, "PATCH"
    refused = await executor.run("update_customer", first, ops.Params(email="x@example.net"))
    sandbox_faults.fail_status = None
    assert refused.state == "failed" and not refused.retryable
    assert (await _contact(client, first))["email"] != "x@example.net"

    # What the person saw is no longer what the service holds: nothing is sent, and they are
    # told what changed.
    seen = await _contact(client, second)
    await client.update_customer(second, email="changed@example.net")  # someone else
    before = len(wire.posts())
    with pytest.raises(PrecheckFailed, match=r"changed since you opened it: email .* changed@"):
        await executor.run("update_customer", second, ops.Params(phone="+1 555 0199", seen=seen))
    assert len(wire.posts()) == before
    # A bad contact is said before anything is written.
    with pytest.raises(PrecheckFailed, match="Not an email address"):
        await executor.run("update_customer", second, ops.Params(email="nobody"))
    with pytest.raises(PrecheckFailed, match="Nothing to change"):
        await executor.run("update_customer", second, ops.Params())
    assert len(wire.posts()) == before


async def test_scope_and_read_only_refuse_and_record(
    client: PaymentClient, journal: Journal, clock: FakeClock, wire: WireTransport
) -> None:
    (first, *_) = await _customers(client)
    for policy, reason in (
        (ActionPolicy(read_only=True), "read-only"),
        (ActionPolicy(granted_scopes=frozenset({"urn:v2:charges:all"})), "customers:all"),
    ):
        executor = clocked_executor(client, journal, clock, policy)
        with pytest.raises(ActionRefused, match=reason):
            await executor.run("update_customer", first, ops.Params(email="a@example.net"))
        await executor.aclose()
    assert wire.posts() == []


async def test_the_second_service_choices_are_read_and_proven(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    service = second_service()
    async with client_for(service) as client:
        assert ops.contact_of(await client.get_object("customers", "cust-0")) == {
            "email": "ada@example.org",
            "phone": None,
        }
        with Journal(tmp_path / "journal.sqlite3") as journal:
            executor = ActionExecutor(client, journal, ActionPolicy(), profile="p", base_url="u")
            done = await executor.run("update_customer", "cust-0", ops.Params(phone="+1 555 0142"))
            assert done.state == "succeeded"
            # Kept nested under `contact`: the read-back finds it there.
            entry = journal.get(done.entry_id)
            assert entry is not None
            found = await ops.read_back(client, entry, None)
            assert found.state == "succeeded"
            assert (await ops.read_back(client, entry, {"phone": "+1 555 0000"})).state == (
                "not_applied"
            )
            await executor.aclose()
