"""Add a settled charge to its account's open distribution. The journal keeps how many
distribution items named the charge before, so a read-back can tell whether it did."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paytui.actions.errors import PrecheckFailed
from paytui.actions.operation import DISTRIBUTE, Asked, CommandLine, Executor, NoParams, Operation
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import ReadBack, distribution_items
from paytui.api.errors import ApiError

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient
    from paytui.api.models import Distribution


async def prepare(executor: Executor, charge_id: str, params: NoParams, asked: Asked) -> Plan:
    try:
        charge = await executor.client.get_charge(charge_id, expand="distributions")
    except ApiError as err:
        raise PrecheckFailed(f"Could not read the charge: {err}") from err
    before = distribution_items(charge)

    async def send(_ref: str) -> Distribution:
        return await executor.client.distribute_charge(charge_id)

    summary = journal_summary(items_before=before)
    plan = Plan("distribute", charge_id, charge_id, None, summary, send, asked.retry_of)
    plan.subject = charge  # the registry's rule: settled, not distributed yet
    return plan


async def read_back(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    charge_id = entry.charge_id or ""
    before = int(entry.request_summary.get("items_before", 0))
    found = await client.get_charge(charge_id, expand="distributions")
    if distribution_items(found) > before:
        holding = [
            dist.distribution_id
            for dist in found.distributions or []
            if any(item.charge_id == charge_id for item in dist.items or [])
        ]
        return ReadBack("succeeded", holding[-1], charge=found)
    return ReadBack("not_applied")


def params_of(entry: JournalEntry, original: Any) -> tuple[str, NoParams]:
    return entry.charge_id or "", NoParams()


SPEC = Operation(
    "distribute",
    noun="distribution",
    label="Distributing a charge",
    short="distribute",
    scope=DISTRIBUTE,
    success="Added to distribution {result_id}",
    result_noun="distribution",
    read_back=read_back,
    params=NoParams,
    prepare=prepare,
    params_of=params_of,
    no_bulk="not offered yet, though it could be (a settled charge is all it needs): it takes a "
    "registry action `bulk_distribute` and a key on the screens that mark charges",
    command=CommandLine(
        "charges distribute",
        "Add a settled charge to its account's open distribution (journaled, sent once).",
        target="the charge",
        ask="Distribute charge {target}",
    ),
    request=lambda charge_id, summary: (
        "POST",
        f"/v2/charges/{charge_id}/distribute",
        None,
        {},
    ),
)
