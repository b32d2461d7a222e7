"""Fault switches: drop after commit, forced statuses, non-JSON bodies, delays."""

from __future__ import annotations

import time

import httpx
import pytest

from paytui.sandbox.faults import Faults
from tests.sandbox.helpers import charge


async def test_dropped_capture_is_committed(
    api: httpx.AsyncClient, account_id: str, sandbox_faults: Faults
) -> None:
    auth = (await charge(api, account_id, 20, charge_type="authorization")).json()
    sandbox_faults.drop_after_commit.add("capture")
    with pytest.raises(httpx.RemoteProtocolError):
        await api.post(f"/v2/charges/{auth['charge_id']}/capture", json={})
    sandbox_faults.drop_after_commit.clear()
    reread = (await api.get(f"/v2/charges/{auth['charge_id']}")).json()
    assert "captured_charge_id" in reread
    again = await api.post(f"/v2/charges/{auth['charge_id']}/capture", json={})
    assert again.status_code == 409


async def test_dropped_refund_and_charge_are_committed(
    api: httpx.AsyncClient, account_id: str, sandbox_faults: Faults
) -> None:
    sale = (await charge(api, account_id, 20, tags=["dropped"])).json()
    sandbox_faults.drop_after_commit |= {"refund", "charge"}
    with pytest.raises(httpx.RemoteProtocolError):
        await api.post("/v2/refunds", json={"charge_id": sale["charge_id"]})
    with pytest.raises(httpx.RemoteProtocolError):
        await charge(api, account_id, 7, tags=["dropped"])
    sandbox_faults.drop_after_commit.clear()
    assert (await api.get(f"/v2/charges/{sale['charge_id']}")).json()["reversal_flag"] is True
    assert (await api.get("/v2/charges", params={"tag": "dropped"})).json()["total"] == 2


async def test_forced_status_with_count_and_prefix(
    api: httpx.AsyncClient, sandbox_faults: Faults
) -> None:
    sandbox_faults.update({"fail_status": 500, "fail_path_prefix": "/v2/charges", "fail_count": 2})
    first = await api.get("/v2/charges")
    assert first.status_code == 500
    assert first.json()["error"] == "server_error"
    assert (await api.get("/v2/merchants")).status_code == 200
    assert (await api.get("/v2/charges")).status_code == 500
    assert (await api.get("/v2/charges")).status_code == 200


async def test_forced_429_has_retry_after(api: httpx.AsyncClient, sandbox_faults: Faults) -> None:
    sandbox_faults.update({"fail_status": 429, "fail_count": 1})
    response = await api.get("/v2/accounts")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "1"
    assert response.json()["error"] == "rate_limited"


async def test_non_json_body(api: httpx.AsyncClient, sandbox_faults: Faults) -> None:
    sandbox_faults.update({"fail_status": 502, "fail_body": "<html>Bad gateway</html>"})
    response = await api.get("/v2/charges")
    assert response.status_code == 502
    assert response.text == "<html>Bad gateway</html>"
    assert response.headers["content-type"].startswith("text/html")


async def test_faults_over_http(api: httpx.AsyncClient, sandbox_faults: Faults) -> None:
    changed = await api.put(
        "/sandbox/faults", json={"delay_seconds": 0.2, "drop_after_commit": ["refund"]}
    )
    assert changed.status_code == 200
    assert changed.json()["drop_after_commit"] == ["refund"]
    assert sandbox_faults.delay_seconds == 0.2
    started = time.perf_counter()
    assert (await api.get("/v2/merchants")).status_code == 200
    assert time.perf_counter() - started >= 0.2
    assert (
        await api.put("/sandbox/faults", json={"drop_after_commit": ["nap"]})
    ).status_code == 422
    assert (await api.put("/sandbox/faults", json={"fail_status": 200})).status_code == 422
    cleared = await api.put("/sandbox/faults", json={"delay_seconds": 0, "drop_after_commit": []})
    assert (await api.get("/sandbox/faults")).json() == cleared.json()
    assert cleared.json()["drop_after_commit"] == [] and cleared.json()["delay_seconds"] == 0
