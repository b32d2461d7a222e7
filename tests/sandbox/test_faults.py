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


async def test_reset_after_commit_commits_then_cuts_the_connection(
    api: httpx.AsyncClient, account_id: str, sandbox_faults: Faults
) -> None:
    sale = (await charge(api, account_id, 20)).json()
    sandbox_faults.reset_after_commit = {"refund", "update", "distribute"}
    with pytest.raises(httpx.ReadError):
        await api.post("/v2/refunds", json={"charge_id": sale["charge_id"], "total_amount": 1})
    with pytest.raises(httpx.ReadError):
        await api.patch(f"/v2/charges/{sale['charge_id']}", json={"tags": ["reset"]})
    sandbox_faults.reset_after_commit = set()
    refunds = (await api.get("/v2/refunds", params={"charge_id": sale["charge_id"]})).json()
    assert refunds["total"] == 1
    assert (await api.get(f"/v2/charges/{sale['charge_id']}")).json()["tags"] == ["reset"]


async def test_late_commit_lands_after_the_client_gave_up(
    api: httpx.AsyncClient,
    account_id: str,
    sandbox_faults: Faults,
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """The request is read, held past the client's timeout, then committed: the client sees a
    timeout, the server holds the refund afterwards (the in-process transport detaches it)."""
    sale = (await charge(api, account_id, 20)).json()
    sandbox_faults.late_commit = {"refund"}
    sandbox_faults.late_commit_seconds = 0.3
    with pytest.raises(httpx.ReadTimeout):
        await api.post(
            "/v2/refunds", json={"charge_id": sale["charge_id"], "total_amount": 2}, timeout=0.05
        )
    await sandbox_transport.drain()  # type: ignore[attr-defined]
    sandbox_faults.late_commit = set()
    refunds = (await api.get("/v2/refunds", params={"charge_id": sale["charge_id"]})).json()
    assert [r["total_amount"] for r in refunds["data"]] == [2]


async def test_commit_fault_switches_over_http(api: httpx.AsyncClient) -> None:
    changed = await api.put(
        "/sandbox/faults",
        json={
            "late_commit": ["capture"],
            "late_commit_seconds": 3,
            "reset_after_commit": ["charge"],
        },
    )
    assert changed.status_code == 200
    assert changed.json()["late_commit"] == ["capture"]
    assert changed.json()["late_commit_seconds"] == 3
    assert changed.json()["reset_after_commit"] == ["charge"]
    bad = await api.put("/sandbox/faults", json={"late_commit": ["nap"]})
    assert bad.status_code == 422
