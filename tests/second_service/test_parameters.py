"""A profile names the service's filter parameters (issue 23): `[profiles.NAME.parameters]`.

The spec does not show the query parameter names of `GET /v2/charges`. Against a service whose
names are not paytui's, a profile says them (or that a filter is not to be sent at all: it is
applied here, and said); these tests read the rows and what the service was sent.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from paytui.api.client import PaymentClient
from paytui.api.queries import ChargeQuery, RefundQuery
from paytui.commands.runtime import Exit
from tests.second_service.app import SecondService
from tests.second_service.fixtures import (
    PROFILE_ENV,
    client_for,
    profile_clients,
    write_profile,
)

Make = Callable[..., SecondService]


def _sent(service: SecondService, path: str = "/v2/charges") -> set[str]:
    """Every query parameter name the service was sent on `path`."""
    return {name for seen in service.requests_to(path) for name, _ in seen.query}


def _profile_cli(service: SecondService, extra: str, journal: Path) -> Callable[..., Any]:
    """`run(*argv)` on the command line with the config file's profile `second` (`extra` added
    to it): the client is built from the resolved connection, only its transport is the
    service's."""
    import io

    from paytui.commands import main
    from paytui.commands.runtime import Io

    write_profile(extra)
    clients = profile_clients(service)

    @asynccontextmanager
    async def connector(connection: Any) -> AsyncIterator[PaymentClient]:
        async with clients(connection)() as client:
            yield client

    def run(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = main(
            [*argv, "--profile", "second"],
            io=Io(out=out, err=err, inp=io.StringIO(""), interactive=False),
            connector=connector,
            journal_path=journal,
            environ=PROFILE_ENV,
        )
        return code, out.getvalue(), err.getvalue()

    return run


def test_the_profile_names_the_services_status_parameter(make: Make, tmp_path: Path) -> None:
    """The service applies `status` only as `state`: with `status = "state"` in the profile,
    `charges search status:chargeback --all` gets the service's chargebacks, nothing filtered
    here, and `status` is never sent. (Without it every charge came back and was filtered here.)"""
    service = make(parameter_names={"status": "state"})
    extra = '[profiles.second.parameters]\nstatus = "state"\n'
    run = _profile_cli(service, extra, tmp_path / "journal.sqlite3")
    code, out, err = run("charges", "search", "status:chargeback", "--all", "--format", "jsonl")
    chargebacks = [c.charge_id for c in service.store.charges if c.status == "chargeback"]
    assert code == Exit.OK, err
    assert [json.loads(line)["charge_id"] for line in out.splitlines()] == chargebacks
    assert "Filtered here" not in err
    assert "state" in _sent(service) and "status" not in _sent(service)


async def test_a_filter_not_sent_is_applied_here_and_said(make: Make) -> None:
    """`merchant_id = false`: never sent, and named as applied here although no row the service
    sent contradicts it (every charge of the account is of that merchant): the line tells the
    truth about who filtered. `sort = false`: said to be ignored."""
    service = make(applied_filters=frozenset({"status", "account_id", "merchant_id"}))
    query = ChargeQuery(account_id="pa_second_alpha", merchant_id="mt_second_one")
    async with client_for(service, parameters={"merchant_id": None, "sort": None}) as client:
        page = await client.search_charges_page(query, limit=100)
        sorted_page = await client.search_charges_page(ChargeQuery(sort="total_amount"))
    alpha = [c.charge_id for c in service.store.charges if c.account_id == "pa_second_alpha"]
    assert [c.charge_id for c in page.items] == alpha
    assert page.ignored_filters == ("merchant_id",)
    assert page.filtered_out == 0
    assert sorted_page.sort_ignored
    assert _sent(service) & {"merchant_id", "sort"} == set()


async def test_refund_parameters_and_a_renamed_one_refused(make: Make) -> None:
    """`refunds.charge_id = "charge"`: the service's refunds of the charge, nothing filtered
    here. A renamed filter the service refuses as unknown (`contact_name = "name"`, a 400 naming
    `name`) is left out and applied here, by paytui's name."""
    service = make(
        applied_filters=frozenset({"status", "charge_id"}),
        parameter_names={"charge_id": "charge"},
        unknown_params="reject",
    )
    charge_id = service.store.refunds[0].charge_id
    async with client_for(
        service, refund_parameters={"charge_id": "charge"}, parameters={"contact_name": "name"}
    ) as client:
        refunds = await client.search_refunds_page(RefundQuery(charge_id=charge_id))
        named = await client.search_charges_page(ChargeQuery(contact_name="Ada"), limit=100)
        refused = client.refused_parameters("/v2/charges")
    mine = [r.refund_id for r in service.store.refunds if r.charge_id == charge_id]
    assert [r.refund_id for r in refunds.items] == mine
    assert refunds.ignored_filters == ()
    assert refused == {"contact_name"}
    assert named.items and all(c.contact_name.startswith("Ada ") for c in named.items)
    assert named.ignored_filters == ("contact_name",)


def test_the_client_refuses_a_name_that_is_no_filter() -> None:
    """A mapping naming no filter of the list is a programming error, said at once."""
    with pytest.raises(ValueError, match="stauts"):
        PaymentClient("https://second.test", token="t", parameters={"stauts": "state"})


@pytest.fixture
def make(second_service: Make) -> Make:
    return second_service
