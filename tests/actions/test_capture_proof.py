"""The capture precheck trusts the spec's link, not the sandbox's shortcut: an authorization whose
answer leaves out `captured_charge_id` is still refused when a capture names it in its
`original_charge_id` (nothing is sent), and a service ignoring the search filter lends it no
other charge's capture."""

from __future__ import annotations

from typing import Any

import pytest

from paytui.actions import ActionExecutor
from paytui.actions.errors import PrecheckFailed
from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery


async def test_a_capture_found_by_its_original_charge_id_refuses_a_second(
    client: PaymentClient, executor: ActionExecutor, authorization: Charge
) -> None:
    captured = await client.capture(authorization.charge_id)
    real_get = client.get_charge
    real_search = client.search_charges_page

    async def without_shortcut(charge_id: str, **kwargs: Any) -> Charge:
        charge = await real_get(charge_id, **kwargs)
        return charge.model_copy(update={"captured_charge_id": None})

    client.get_charge = without_shortcut  # type: ignore[method-assign]
    with pytest.raises(PrecheckFailed) as refused:
        await executor.read_authorization(authorization.charge_id)
    assert captured.charge_id in refused.value.message

    # A service ignoring original_charge_id: other captures come back, none is taken for this one.
    async def ignoring(query: Any = None, **kwargs: Any) -> Any:
        return await real_search(ChargeQuery(charge_type="capture"), **kwargs)

    client.search_charges_page = ignoring  # type: ignore[method-assign]
    other = await client.get_charge(captured.charge_id)
    assert other.original_charge_id == authorization.charge_id
    fresh = await real_search(
        ChargeQuery(charge_type="authorization", captured=False, status="success"), limit=5
    )
    still_open = fresh.items[0]
    auth = await executor.read_authorization(still_open.charge_id)  # not refused
    assert auth.charge_id == still_open.charge_id
