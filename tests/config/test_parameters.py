"""`[profiles.NAME.parameters]`: the service's names of the list filters (issue 23)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from paytui.api.parameters import CHARGE_FILTERS, REFUND_FILTERS
from paytui.api.queries import ChargeQuery, RefundQuery
from paytui.config import client_kwargs, load_config, resolve_connection
from paytui.config.cli import main
from paytui.config.model import Parameters, RefundParameters

PROFILE = """
default_profile = "prod"

[profiles.prod]
base_url = "https://api.example.com"
token_env = "PROD_TOKEN"

[profiles.prod.parameters]
status = "state"        # the service's own word
contact_name = false    # it has no name search: applied here
{extra}
"""


def test_the_table_reaches_the_client_and_show(
    write_config: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(PROFILE.format(extra='refunds.charge_id = "charge"'))
    result = load_config()
    assert result.problems == []
    kwargs = client_kwargs(resolve_connection(environ={"PROD_TOKEN": "t0ken-for-tests"}))
    assert kwargs["parameters"] == {"status": "state", "contact_name": None}
    assert kwargs["refund_parameters"] == {"charge_id": "charge"}
    assert main(["show", "prod"]) == 0
    shown = capsys.readouterr().out
    assert "status as state, contact_name applied here; refunds: charge_id as charge" in shown


def test_an_unknown_filter_is_one_line_and_the_rest_is_kept(
    write_config: Callable[[str], Path],
) -> None:
    """A typo in the table is reported on its own line (the known names listed) and ignored;
    the profile and the table's other names stay in use."""
    path = write_config(PROFILE.format(extra='stauts = "x"'))
    result = load_config()
    assert [str(p) for p in result.problems] == [
        f"{path}:10: unknown setting 'profiles.prod.parameters.stauts' (ignored; known here: "
        + ", ".join([*CHARGE_FILTERS, "refunds"])
        + ")"
    ]
    assert result.config.profiles["prod"].parameters.names() == {
        "status": "state",
        "contact_name": None,
    }


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ("sort = true", "the service's parameter name, or false"),
        ('min_amount = "limit"', "'limit' is a paging parameter"),
        ('max_amount = "amount max"', "is not a query parameter name"),
        ('account_id = "state"', "status and account_id would both be sent as 'state'"),
    ],
)
def test_a_wrong_name_costs_the_profile(
    write_config: Callable[[str], Path], extra: str, fragment: str
) -> None:
    """A wrong value is a wrong value (as elsewhere in a profile): the profile is left out
    until fixed, and the line says why."""
    write_config(PROFILE.format(extra=extra))
    result = load_config()
    assert "prod" not in result.config.profiles
    assert any(fragment in p.message for p in result.problems), result.problems


def test_the_names_are_the_filters_the_client_sends() -> None:
    """One list of filter names: what `ChargeQuery` / `RefundQuery` send with every filter set,
    what the client accepts, and what the profile table takes."""
    when = datetime(2026, 1, 1, tzinfo=UTC)
    charges = ChargeQuery(
        status="success",
        tags=("a",),
        attributes=(("k", "v"),),
        account_id="pa_1",
        merchant_id="m",
        created_from=when,
        created_to=when,
        min_amount=Decimal(1),
        max_amount=Decimal(2),
        method="card",
        last4="1111",
        charge_type="sale",
        captured=True,
        original_charge_id="c",
        charge_id="abcd",
        contact_name="Ada",
        sort="-total_amount",
    )
    refunds = RefundQuery(
        charge_id="c",
        account_id="pa_1",
        tags=("a",),
        attributes=(("k", "v"),),
        created_from=when,
        created_to=when,
    )
    assert tuple(name for name, _ in charges.to_params()) == CHARGE_FILTERS
    assert tuple(name for name, _ in refunds.to_params()) == REFUND_FILTERS
    assert tuple(Parameters.model_fields) == (*CHARGE_FILTERS, "refunds")
    assert tuple(RefundParameters.model_fields) == REFUND_FILTERS
