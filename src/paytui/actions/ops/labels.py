"""Tags and attributes of a charge (update_charge) or a refund (update_refund): one PATCH, which
replaces what it names and keeps the rest; read back by comparing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paytui.actions.errors import ActionError, PrecheckFailed, TargetChanged
from paytui.actions.operation import (
    CHARGES_ALL,
    REFUNDS_ALL,
    Asked,
    CommandLine,
    Executor,
    Operation,
    Option,
)
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import ReadBack, Unprovable
from paytui.api.errors import NotFoundError
from paytui.api.models import Charge, Refund

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient


@dataclass(frozen=True)
class Params:
    """What replaces the tags and/or the attributes (None: kept as they are).

    `before`: what they were when the person decided (the dialog's form), kept in the journal
    so the edit can be undone (`paytui.actions.undo`). `undoes` / `expect`: an undo of entry
    `undoes`, tied to what it showed — the target must still show `expect` (what that edit
    set), else nothing is sent (`TargetChanged`, saying what it shows now and by whom)."""

    tags: Sequence[str] | None = None
    attributes: Mapping[str, Sequence[str]] | None = None
    before: Mapping[str, Any] | None = None
    undoes: int | None = None
    expect: Mapping[str, Any] | None = None


def _labels(obj: Charge | Refund) -> dict[str, Any]:
    return {
        "tags": list(obj.tags or []),
        "attributes": {str(k): [str(v) for v in vs] for k, vs in (obj.attributes or {}).items()},
    }


def _words(values: Mapping[str, Any]) -> str:
    """ "tags a, b; attributes k=v" (what an edit set, or what the target shows)."""
    parts = []
    if "tags" in values:
        parts.append("tags " + (", ".join(values["tags"]) or "(none)"))
    if "attributes" in values:
        pairs = [f"{k}={','.join(v)}" for k, v in values["attributes"].items()]
        parts.append("attributes " + ("; ".join(pairs) or "(none)"))
    return "; ".join(parts)


async def _still_as_expected(
    executor: Executor, operation: str, target: str, params: Params
) -> Charge | Refund:
    """An undo's check, just before it is written and sent: the target still shows what the
    undone edit set. Read now; anything else → `TargetChanged` (nothing is sent)."""
    expect = params.expect or {}
    try:
        found: Charge | Refund = (
            await executor.client.get_refund(target)
            if operation == "update_refund"
            else await executor.client.get_charge(target)
        )
    except NotFoundError:
        raise PrecheckFailed(f"{target} is not found at the service; nothing was sent") from None
    now = _labels(found)
    if any(now[key] != expect[key] for key in expect):
        shown = {key: now[key] for key in expect}
        who = await executor.who_changed(operation, target, params.undoes or 0)
        raise TargetChanged(
            (
                f"{target} shows {_words(shown)} now, not {_words(expect)} as edit"
                f" #{params.undoes} left it: changed since, {who}",
            )
        )
    return found


async def _prepare(
    executor: Executor, operation: str, target: str, params: Params, asked: Asked
) -> Plan:
    tags, attributes = params.tags, params.attributes
    if tags is None and attributes is None:
        raise ActionError("Nothing to change")
    new_tags = list(tags) if tags is not None else None
    new_attrs = (
        {str(k): [str(v) for v in vs] for k, vs in attributes.items()}
        if attributes is not None
        else None
    )
    subject = None
    if params.expect is not None:
        subject = await _still_as_expected(executor, operation, target, params)
    desired: dict[str, Any] = {}
    if new_tags is not None:
        desired["tags"] = new_tags
    if new_attrs is not None:
        desired["attributes"] = new_attrs

    async def send(_ref: str) -> Charge | Refund:
        if operation == "update_refund":
            return await executor.client.update_refund(target, tags=new_tags, attributes=new_attrs)
        return await executor.client.update_charge(target, tags=new_tags, attributes=new_attrs)

    return Plan(
        operation,
        target,
        target,
        None,
        journal_summary(
            tags=new_tags, attributes=new_attrs, before=params.before, undoes=params.undoes
        ),
        send,
        asked.retry_of,
        desired=desired,
        subject=subject,
    )


async def read_back(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    """The object shows the tags and attributes sent. `desired` (the executor still holds the
    unmasked values) overrides the journal's summary."""
    wanted = desired if desired is not None else entry.request_summary
    if desired is None and wanted.get("redacted"):
        raise Unprovable("the journal holds only a masked copy of the change")
    target = entry.charge_id or ""
    try:
        found: Charge | Refund = (
            await client.get_refund(target)
            if entry.operation == "update_refund"
            else await client.get_charge(target)
        )
    except NotFoundError:
        return ReadBack("not_applied")
    same_tags = "tags" not in wanted or list(found.tags) == list(wanted["tags"])
    same_attrs = "attributes" not in wanted or found.attributes == wanted["attributes"]
    if not (same_tags and same_attrs):
        return ReadBack("not_applied")
    if isinstance(found, Refund):
        return ReadBack("succeeded", found.refund_id, refund=found)
    return ReadBack("succeeded", found.charge_id, charge=found)


async def prepare_charge(executor: Executor, target: str, params: Params, asked: Asked) -> Plan:
    return await _prepare(executor, "update_charge", target, params, asked)


async def prepare_refund(executor: Executor, target: str, params: Params, asked: Asked) -> Plan:
    return await _prepare(executor, "update_refund", target, params, asked)


def params_of(entry: JournalEntry, original: Any) -> tuple[str, Params]:
    summary = entry.request_summary
    return entry.charge_id or "", Params(
        summary.get("tags"),
        summary.get("attributes"),
        before=summary.get("before"),
        undoes=summary.get("undoes"),
    )


#: The one option of `charges tag` and `refunds tag`.
TAGS = Option(
    "tags",
    "the tags it keeps, comma-separated, in place of those it has (empty: none);"
    " its attributes are kept",
    metavar="A,B",
    kind="words",
    required=True,
)

CHARGE_SPEC = Operation(
    "update_charge",
    noun="change of tags and attributes",
    label="Editing tags and attributes",
    short="edit tags",
    scope=CHARGES_ALL,
    success="Tags and attributes saved",
    read_back=read_back,
    params=Params,
    prepare=prepare_charge,
    params_of=params_of,
    action="edit",
    no_bulk="one set of tags would replace each marked charge's own tags: a bulk that adds or"
    " removes one tag would be another operation",
    command=CommandLine(
        "charges tag",
        "Set a charge's tags (journaled, sent once).",
        target="the charge",
        options=(TAGS,),
        ask="Set the tags of charge {target}",
    ),
    request=lambda charge_id, summary: ("PATCH", f"/v2/charges/{charge_id}", None, summary),
)
REFUND_SPEC = Operation(
    "update_refund",
    noun="change of the refund's tags and attributes",
    label="Editing a refund's tags and attributes",
    short="edit refund tags",
    scope=REFUNDS_ALL,
    success="Tags and attributes of the refund saved",
    names_a_charge=False,
    read_back=read_back,
    params=Params,
    prepare=prepare_refund,
    params_of=params_of,
    action="edit_refund",
    no_bulk="refunds are not marked on any list (marks hold charges)",
    command=CommandLine(
        "refunds tag",
        "Set a refund's tags (journaled, sent once).",
        target="the refund",
        options=(TAGS,),
        ask="Set the tags of refund {target}",
        record_key="refund_id",
    ),
)
