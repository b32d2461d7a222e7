"""Copy as curl: the request as a command, the bearer token only ever as $PAYTUI_TOKEN."""

from __future__ import annotations

import shlex
from types import SimpleNamespace

from paytui.api.curl import curl_command
from paytui.ui.clipboard import entry_request


def test_a_search_and_a_refund_as_curl() -> None:
    get = curl_command(
        "GET", "http://sandbox/", "/v2/charges", params=[("status", "chargeback"), ("tag", "a b")]
    )
    assert get == (
        "curl -sS 'http://sandbox/v2/charges?status=chargeback&tag=a+b'"
        ' -H "Authorization: Bearer $PAYTUI_TOKEN"'
    )
    refund = SimpleNamespace(
        operation="refund",
        charge_id="ch1",
        request_summary={"reason": "it's broken; rm -rf", "redacted": True},
    )
    method, path, params, body = entry_request(refund) or ("", "", None, None)
    command = curl_command(method, "https://api.example.com", path, params=params, body=body)
    words = shlex.split(command)  # quoted safely: the reason is one word of data
    assert words[:5] == ["curl", "-sS", "-X", "POST", "https://api.example.com/v2/refunds"]
    assert words[-1] == '{"charge_id":"ch1","reason":"it\'s broken; rm -rf"}'
    assert "Authorization: Bearer $PAYTUI_TOKEN" in words
    new_charge = SimpleNamespace(operation="charge", charge_id=None, request_summary={})
    assert entry_request(new_charge) is None  # its card details are never kept
