"""One verb: `ActionExecutor.run(name, target, params)` runs every operation, and it asks the
registry's rule of the operation (the rule that greys the key) before anything is written or
sent — for every operation in the table, not only the ones that had their own check.

The test gives each operation's registry action a rule that refuses, then runs the operation
on a real target of the in-process sandbox: nothing may reach the service, the journal holds no
entry, the reason is the rule's, and the refusal is in the audit trail. An operation added to the
table without an example here fails the test (`EXAMPLES`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from pydantic import SecretStr

from paytui.actions import registry
from paytui.actions.errors import ActionError, PrecheckFailed
from paytui.actions.executor import ActionExecutor
from paytui.actions.operation import NoParams
from paytui.actions.operations import OPERATIONS
from paytui.actions.ops import (
    account,
    capture,
    charge,
    conversation,
    customer,
    labels,
    plugins,
    refund,
    token,
)
from paytui.api.client import PaymentClient
from paytui.api.conversations import conversation_id_of
from paytui.api.models import (
    CardPaymentMethodRequest,
    Charge,
    ChargeRequest,
    Contact,
    RefundRequest,
    TokenCreatePaymentMethodRequest,
    TokenRequest,
    TokenUpdate,
    TokenUpdatePaymentMethod,
)
from paytui.api.plugins import AccountRequest, PaymentPluginSessionRequest
from tests.actions.support import WireTransport

REFUSED = "refused by the rule under test"

Example = Callable[[PaymentClient, Charge, Charge], Awaitable[tuple[str, Any]]]


async def _account(client: PaymentClient) -> str:
    page = await client.list_accounts_page(status="approved", limit=1)
    return page.items[0].account_id


async def _conversation(client: PaymentClient) -> str:
    page = await client.list_conversations_page(status="open", limit=10)
    return next(cid for item in page.items if (cid := conversation_id_of(item)))


async def _capture(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    return auth.charge_id, capture.Params()


async def _refund(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    return sale.charge_id, refund.Params(Decimal("1.00"))


async def _charge(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    account_id = await _account(client)
    request = ChargeRequest(
        account_id=account_id,
        total_amount=Decimal("12.34"),
        payment_method=CardPaymentMethodRequest(
            card_number="4111111111111111", expiration_date="2030-12"
        ),
    )
    return account_id, charge.Params(request)


async def _update_charge(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    return sale.charge_id, labels.Params(tags=["checked"])


async def _update_refund(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    made = await client.create_refund(
        RefundRequest(charge_id=sale.charge_id, total_amount=Decimal("1.00"))
    )
    return made.refund_id, labels.Params(tags=["checked"])


async def _distribute(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    return sale.charge_id, NoParams()


async def _session(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    request = PaymentPluginSessionRequest(account_id=await _account(client))
    return plugins.session_target(request), plugins.SessionParams(request)


async def _delete_session(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    return "ps_0123456789abcdef", NoParams()  # deleting reads nothing first


async def _account_create(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    found = await client.get_account(await _account(client))
    request = AccountRequest(
        merchant_id=found.merchant_id or "", name="Refused Levy", merchant_category_code="9311"
    )
    return request.merchant_id, account.Params(request)


async def _token_create(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    account_id = await _account(client)
    request = TokenRequest(
        account_id=account_id,
        payment_method=TokenCreatePaymentMethodRequest(
            card_number=SecretStr("4111111111111111"),
            expiration_date="2031-09",
            contact=Contact(last_name="Hopper"),
        ),
    )
    return account_id, token.CreateParams(request)


async def _token_update(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    page = await client.list_tokens_page(limit=1)
    update = TokenUpdate(payment_method=TokenUpdatePaymentMethod(expiration_date="2032-03"))
    return page.items[0].token_id, token.UpdateParams(update)


async def _close(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    return await _conversation(client), NoParams()


async def _message(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    return await _conversation(client), conversation.MessageParams("Hello")


async def _contact(client: PaymentClient, sale: Charge, auth: Charge) -> tuple[str, Any]:
    page = await client.list_objects_page("customers", limit=1)
    return page.items[0].fields()["customer_id"], customer.Params(email="ada@example.net")


#: A real target and parameters for every operation of the table.
EXAMPLES: dict[str, Example] = {
    "capture": _capture,
    "refund": _refund,
    "charge": _charge,
    "update_charge": _update_charge,
    "update_refund": _update_refund,
    "distribute": _distribute,
    "plugin_session": _session,
    "plugin_delete": _delete_session,
    "account_create": _account_create,
    "token_create": _token_create,
    "token_update": _token_update,
    "close_conversation": _close,
    "send_message": _message,
    "update_customer": _contact,
}


@pytest.mark.parametrize("name", list(OPERATIONS))
async def test_run_asks_the_registry_rule_of_every_operation_before_sending(
    name: str,
    executor: ActionExecutor,
    client: PaymentClient,
    wire: WireTransport,
    sale: Charge,
    authorization: Charge,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert name in EXAMPLES, f"{name}: give it an example target here"
    target, params = await EXAMPLES[name](client, sale, authorization)
    before = len(wire.posts())
    spec = OPERATIONS[name]
    action = registry.ACTIONS[spec.rule]
    monkeypatch.setitem(registry.ACTIONS, spec.rule, replace(action, rule=lambda _: REFUSED))

    with pytest.raises(PrecheckFailed) as refused:
        await executor.run(name, target, params)

    assert refused.value.message == REFUSED
    assert wire.posts()[before:] == []  # nothing reached the service
    assert [e for e in executor.journal.list(limit=50) if e.operation == name] == []
    (row, *_) = executor.journal.audit(operation=name, outcome="refused")
    assert row.reason == REFUSED


async def test_a_refund_of_an_open_authorization_is_refused_by_the_rule_without_a_basis(
    executor: ActionExecutor, wire: WireTransport, authorization: Charge
) -> None:
    # A script's refund (no dialog, no basis) is asked the same rule as the key.
    with pytest.raises(PrecheckFailed, match="capture it, or let it expire"):
        await executor.run("refund", authorization.charge_id, refund.Params(Decimal("1.00")))
    assert wire.posts("/refunds") == []


async def test_run_takes_only_the_operation_own_params_and_known_names(
    executor: ActionExecutor, wire: WireTransport, sale: Charge
) -> None:
    with pytest.raises(TypeError, match="refund takes Params"):
        await executor.run("refund", sale.charge_id, capture.Params())
    with pytest.raises(ActionError, match="no operation 'void'"):
        await executor.run("void", sale.charge_id, NoParams())
    assert wire.posts() == []
