"""Text lengths (paytui.limits): the same limits refused by the request models, the sandbox (422)
and the new-charge form (a message on the field, nothing sent, what was typed kept)."""

from __future__ import annotations

import httpx
import pytest

from tests.sandbox.helpers import charge


@pytest.mark.parametrize(
    "extra",
    [
        {"invoice_number": "i" * 65},
        {"po_number": "p" * 65},
        {"tags": ["x" * 65]},
        {"attributes": {"k": ["v" * 256]}},
    ],
)
async def test_the_sandbox_answers_422_for_text_over_its_limit(
    api: httpx.AsyncClient, account_id: str, extra: dict[str, object]
) -> None:
    response = await charge(api, account_id, 10, **extra)
    assert response.status_code == 422, response.text
    assert "at most" in response.text
