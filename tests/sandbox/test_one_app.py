"""The tests' one sandbox app per process (`tests/fixtures_sandbox.py`, `sandbox_app`) keeps
nothing of one test for the next: `bind` replaces all of a sandbox's state, and the middleware
and the routes read it from there."""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi import FastAPI

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.app import bind, create_app
from paytui.sandbox.faults import Faults
from paytui.sandbox.transport import InProcessTransport
from tests.fixtures_sandbox import raw_client
from tests.sandbox.helpers import BASE, get_token


def test_bind_sets_all_the_state_an_app_holds(tmp_path: Path) -> None:
    """Whatever `create_app` keeps in `app.state`, `bind` sets anew: a new piece of state
    added to the app without `bind` fails here (one test's state would reach the next)."""
    app = create_app(tmp_path / "a.sqlite3")
    before = dict(app.state._state)
    bind(app, tmp_path / "b.sqlite3")
    after = dict(app.state._state)
    assert after.keys() == before.keys()
    for name, value in before.items():
        if not isinstance(value, int | float | str):  # a number is set again, not kept
            assert after[name] is not value, name


async def test_a_token_a_write_and_a_fault_stay_with_their_test(
    sandbox_template: Path, sandbox_app: FastAPI, tmp_path: Path
) -> None:
    """Two tests in a row on the one app: the second sees neither the first's token, nor its
    refund, nor its faults."""
    first, second = tmp_path / "first.sqlite3", tmp_path / "second.sqlite3"
    shutil.copyfile(sandbox_template, first)
    shutil.copyfile(sandbox_template, second)
    transport = InProcessTransport(sandbox_app)

    broken = Faults(fail_status=503, fail_path_prefix="/v2/accounts")
    bind(sandbox_app, first, faults=broken)
    async with raw_client(transport, BASE) as http:
        token = await get_token(http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
        http.headers["Authorization"] = f"Bearer {token}"
        charge = (await http.get("/v2/charges", params={"status": "success"})).json()["data"][0]
        refund = await http.post(
            "/v2/refunds", json={"charge_id": charge["charge_id"], "total_amount": 1}
        )
        assert refund.status_code == 201, refund.text
        assert (await http.get("/v2/accounts")).status_code == 503

    bind(sandbox_app, second, faults=Faults())
    async with raw_client(transport, BASE) as http:
        http.headers["Authorization"] = f"Bearer {token}"
        assert (await http.get("/v2/charges")).status_code == 401  # the first's token
        http.headers["Authorization"] = "Bearer " + await get_token(
            http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
        )
        assert (await http.get("/v2/accounts")).status_code == 200  # the first's fault
        refunds = await http.get("/v2/refunds", params={"charge_id": charge["charge_id"]})
        assert refund.json()["refund_id"] not in {r["refund_id"] for r in refunds.json()["data"]}
