"""Prechecks degrade, never block (issue 23, point 5): against a service that answers 400 to a
query parameter it does not know, a capture still checks for an earlier capture (every charge
read, newest first, back to the authorization's time) and is sent exactly once; its read-back
finds it the same way. Against one that ignores the parameter, the same scan proves it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from paytui.actions.errors import TargetChanged
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.ops import capture as capture_op
from paytui.actions.policy import ActionPolicy
from paytui.actions.reconcile import read_back
from paytui.api.captures import find_capture
from paytui.api.queries import ChargeQuery
from tests.second_service.app import SecondService
from tests.second_service.fixtures import client_for


async def _open_authorization(client: Any) -> Any:
    page = await client.search_charges_page(ChargeQuery(status="success"), limit=100)
    captured = {c.original_charge_id for c in page.items if c.original_charge_id}
    return next(
        c
        for c in page.items
        if c.result_code == "Authorized" and c.charge_id not in captured and c.is_authorization
    )


async def test_a_capture_is_checked_sent_once_and_read_back_when_the_parameter_is_refused(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    service = second_service(unknown_params="reject")
    async with client_for(service) as client:
        auth = await _open_authorization(client)
        before = await find_capture(client, auth, thorough=True)
        assert before.capture_id is None and before.proven  # read every charge: none
        journal = Journal(tmp_path / "journal.sqlite3")
        executor = ActionExecutor(
            client, journal, ActionPolicy(), profile="p", base_url=service.base_url
        )
        outcome = await executor.run("capture", auth.charge_id, capture_op.Params())
        assert outcome.state == "succeeded" and outcome.result_id
        # Its trace, found without the parameter the service refuses.
        entry = journal.get(outcome.entry_id)
        assert entry is not None
        found = await read_back(client, entry)
        assert (found.state, found.result_id) == ("succeeded", outcome.result_id)
        # A second capture is refused here, before anything is sent.
        again = await find_capture(client, await client.get_charge(auth.charge_id), thorough=True)
        assert again.capture_id == outcome.result_id
        journal.close()


async def test_an_ignored_parameter_is_proven_by_the_same_scan(
    second_service: Callable[..., SecondService],
) -> None:
    service = second_service()  # accepts original_charge_id and ignores it
    async with client_for(service) as client:
        auth = await _open_authorization(client)
        quick = await find_capture(client, auth)
        thorough = await find_capture(client, auth, thorough=True)
    # The quick look (the detail screen) says it cannot tell; the executor's proves it.
    assert not quick.proven and quick.capture_id is None
    assert thorough.proven and thorough.capture_id is None


def test_a_refused_filter_is_applied_here_and_export_finishes(
    second_service: Callable[..., SecondService], second_cli: Callable[[SecondService], Any]
) -> None:
    # The export pins created_to, and a name search sends contact_name: both parameters the
    # spec does not show, which this service refuses with a 400. Both are asked again with the
    # spec's own filters only and applied here (exit 6 before).
    service = second_service(unknown_params="reject")
    run = second_cli(service)
    code, out, err = run("export", "--output", "-", "--format", "jsonl")
    assert code == 0 and len(out.splitlines()) == 126
    code, out, err = run("charges", "search", "status:success", "name:ada", "--format", "jsonl")
    assert code == 0 and out and err.startswith("paytui: Filtered here: contact_name")
    assert all("Ada" in line for line in out.splitlines())


def _open_auth(service: SecondService) -> Any:
    return next(
        c
        for c in service.store.charges
        if c.charge_type == "authorization" and c.captured_charge_id is None
    )


@pytest.mark.parametrize("unknown", ["ignore", "reject"])
def test_a_capture_reads_its_authorization_for_the_look_and_the_final_check_only(
    unknown: str,
    second_service: Callable[..., SecondService],
    second_cli: Callable[[SecondService], Any],
) -> None:
    # The capture's precheck reuses the final re-read (its thorough search included) instead of
    # spending the service's rate budget on the same reads a third time (issue 38, point 5).
    service = second_service(unknown_params=unknown)
    auth = _open_auth(service)
    code, _, err = second_cli(service)("charges", "capture", auth.charge_id, "--yes")
    assert code == 0, err
    assert len(service.requests_to(f"/v2/charges/{auth.charge_id}")) == 2
    assert len(service.requests_to(f"/v2/charges/{auth.charge_id}/capture", "POST")) == 1


async def test_a_capture_made_after_the_look_is_still_seen_before_sending(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    # A service that ignores the original_charge_id filter: only the thorough search (now the
    # final re-read's) can prove the capture made outside paytui since the person looked.
    service = second_service()
    auth = _open_auth(service)
    async with client_for(service) as client:
        journal = Journal(tmp_path / "journal.sqlite3")
        executor = ActionExecutor(
            client, journal, ActionPolicy(), profile="p", base_url=service.base_url
        )
        basis = await executor.observe("capture", auth.charge_id)
        # Captured outside paytui, listed under 45 newer charges: past the quick look's pages.
        made = service.store.capture(auth)
        oldest = service.store.charges[-1]
        for _ in range(45):
            service.store.add_charge(replace(oldest, charge_id=service.store.new_id()))
        with pytest.raises(TargetChanged) as changed:
            await executor.run("capture", auth.charge_id, capture_op.Params(), basis=basis)
        journal.close()
    assert made.charge_id in str(changed.value)
    assert service.requests_to(f"/v2/charges/{auth.charge_id}/capture", "POST") == []
