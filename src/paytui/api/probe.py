"""What a service does where the spec says "not shown", found with harmless reads.

`probe` is `paytui profile probe NAME` without the printing and the writing
(`paytui.commands.probe`). It sends the token request (HTTP Basic, then the form fields if
needed) and GETs of `/v2/charges` only, never another POST, and learns:

- how the client id and secret reach the token endpoint (`token_auth`);
- where the list's rows and count are (no setting: every envelope is read anyway);
- how the list pages: `limit`/`offset`, `page`/`per_page`, a next link, or not at all;
- for each filter it can try with a value taken from the rows read (one the list's first row
  does not match, so a filter ignored shows): proven applied on the returned rows, ignored or
  refused (applied here from then on), or not provable — judged by `ChargeQuery.verdicts`
  through the client, as every list is;
- whether the service refuses a query parameter it does not know (400/422) or ignores it.

Nothing here prints: each `Finding` is one line for the caller. No Textual, no config.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import pydantic

from paytui.api.auth import TokenAuthStyle
from paytui.api.errors import ApiError, AuthenticationError, ValidationError
from paytui.api.models import Charge
from paytui.api.paging import Pager, count_of, hints_of, locate
from paytui.api.parameters import CHARGE_FILTERS, ParameterNames
from paytui.api.queries import METHODS, ChargeQuery

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

__all__ = ["UNKNOWN_PARAMETER", "Finding", "ProbeReport", "probe"]

PATH = "/v2/charges"
#: Rows asked for on each read: two are enough to see paging move.
SIZE = 2
#: A parameter no service can know (the probe's own word): refused or ignored?
UNKNOWN_PARAMETER = "paytui_probe_unknown"

PagingStyle = Literal["offset", "page"]
#: Paging parameters of each style for page `number` (0-based) of `SIZE` rows.
STYLES: dict[PagingStyle, Callable[[int], list[tuple[str, str]]]] = {
    "offset": lambda number: [("limit", str(SIZE)), ("offset", str(number * SIZE))],
    "page": lambda number: [("page", str(number + 1)), ("per_page", str(SIZE))],
}
STYLE_NAMES: dict[PagingStyle, str] = {"offset": "limit/offset", "page": "page/per_page"}


@dataclass(frozen=True)
class Finding:
    """One thing learned, as one line: "paging: limit/offset works"."""

    topic: str
    text: str

    def __str__(self) -> str:
        return f"{self.topic}: {self.text}"


@dataclass
class ProbeReport:
    """Every finding, in order, and what a profile could store of them."""

    findings: list[Finding] = field(default_factory=list)
    #: The credential style the token endpoint accepted (None: a static token).
    token_auth: Literal["basic", "form"] | None = None
    #: The paging style that works where the service gives no next link (None: not learned).
    paging: PagingStyle | None = None
    #: Per filter tried, paytui's name -> the name that works, or None: not to be sent (the
    #: service ignores or refuses it; applied here). Filters not judged are left out.
    parameters: dict[str, str | None] = field(default_factory=dict)

    def say(self, topic: str, text: str) -> None:
        self.findings.append(Finding(topic, text))


async def probe(
    make_client: Callable[..., PaymentClient],
    *,
    oauth: bool,
    token_auth: TokenAuthStyle = "auto",
    paging: PagingStyle = "offset",
    names: ParameterNames | None = None,
) -> ProbeReport:
    """Try the service `make_client(**overrides)` reaches (the profile's client; overrides:
    `token_auth`, `paging`, `parameters`), the profile's own choices first (`token_auth`,
    `paging`). `names`: the profile's filter names; a filter it does not send is tried under
    paytui's name. Raises `ApiError` when the service cannot be read at all (both credential
    styles refused: `AuthenticationError`)."""
    report = ProbeReport()
    async with _authenticated(make_client, oauth, token_auth, report) as client:
        rows = await _paging(client, report, [paging, *(s for s in STYLES if s != paging)])
        await _unknown_parameter(client, report)
    sent = {name: wire for name, wire in (names or {}).items() if wire is not None}
    overrides = {"token_auth": report.token_auth or token_auth, "paging": report.paging or paging}
    async with make_client(**overrides, parameters=sent) as client:
        await _filters(client, report, rows, sent)
    return report


@asynccontextmanager
async def _authenticated(
    make_client: Callable[..., PaymentClient],
    oauth: bool,
    style: TokenAuthStyle,
    report: ProbeReport,
) -> AsyncIterator[PaymentClient]:
    """A client with a token: the profile's credential style, else both (`auto`)."""
    if not oauth:
        report.say("credentials", "a static bearer token (nothing to try)")
        async with make_client() as client:
            yield client
        return
    for attempt in dict.fromkeys((style, "auto")):
        async with make_client(token_auth=attempt) as client:
            try:
                await client.authenticate()
            except AuthenticationError:
                if attempt == "auto":
                    raise
                continue
            report.token_auth = client.token_style
            how = "HTTP Basic" if report.token_auth == "basic" else "form fields"
            other = "form fields" if report.token_auth == "basic" else "HTTP Basic"
            # Refused: the profile's own style, or (auto) Basic before the form fields.
            refused = attempt == "auto" and (style != "auto" or report.token_auth == "form")
            note = f" ({other} refused)" if refused else ""
            report.say(
                "credentials", f"the token endpoint accepts the client id and secret as {how}{note}"
            )
            yield client
            return


# --------------------------------------------------------------------------------------------
# The list and its paging
# --------------------------------------------------------------------------------------------


async def _first_page(
    client: PaymentClient, styles: Sequence[PagingStyle]
) -> tuple[Any, list[PagingStyle], list[str]]:
    """The first page of the list, asked in the first style the service does not refuse (then
    without paging parameters), the styles left to try (that one first), and the refusals."""
    refusals: list[str] = []
    for number, style in enumerate(styles):
        try:
            return await client.read(PATH, STYLES[style](0)), list(styles[number:]), refusals
        except ValidationError as err:
            refusals.append(f"{STYLE_NAMES[style]} refused ({err.status}: {err.message})")
    return await client.read(PATH), [], refusals


async def _paging(
    client: PaymentClient, report: ProbeReport, styles: Sequence[PagingStyle]
) -> list[Charge]:
    """Read the first page, say where its rows and count are, find how it pages; the rows read
    (to take filter values from)."""
    body, left, refusals = await _first_page(client, styles)
    found = locate(body, "charges")
    if found is None:
        raise ValidationError(f"GET {PATH}: no list of charges found in the answer", status=None)
    where, raw, meta = found
    first = _charges(raw)
    counted = count_of(meta)
    count = f"a count under {counted[0]!r} ({counted[1]:,})" if counted else "no count"
    place = f"under {where!r}" if where else "as a bare list"
    report.say("list", f"rows {place}, {count}; asked for {SIZE}, got {len(raw)}")
    for refusal in refusals:
        report.say("paging", refusal)
    hints = hints_of(meta)
    if len(first) < 2 and not (hints.next_link or (counted and counted[1] > len(first))):
        report.say("paging", f"not tried: the list holds {len(first)} readable row(s)")
        return first
    ids = [charge.charge_id for charge in first]
    if hints.next_link is not None:
        follow = Pager(client.base_url).link(PATH, hints.next_link)
        if follow is None:
            report.say("paging", "its next link points outside this service's list: not followed")
        else:
            second = _charges(_rows(await client.read(*follow)))
            if _moved(ids, second):
                report.say("paging", "by its next link (followed whatever `paging` says)")
                return first + second
    for style in left:
        try:
            second = _charges(_rows(await client.read(PATH, STYLES[style](1))))
        except ValidationError:
            continue  # refused on a later page only: not this style
        if _moved(ids, second):
            report.paging = style
            report.say("paging", f"{STYLE_NAMES[style]} works")
            return first + second
    report.say(
        "paging",
        "ignored: every page asked for is the first one (lists stop after it, with a note)",
    )
    return first


def _rows(body: Any) -> list[Any]:
    found = locate(body, "charges")
    return found[1] if found is not None else []


def _charges(raw: Iterable[Any]) -> list[Charge]:
    """The readable charges of a page (an unreadable one is no filter's example)."""
    found: list[Charge] = []
    for item in raw:
        try:
            found.append(Charge.model_validate(item))
        except (pydantic.ValidationError, ValueError, TypeError, ArithmeticError, RecursionError):
            continue
    return found


def _moved(first: Sequence[str], second: Sequence[Charge]) -> bool:
    """Did the second read move on from the first (not the first page again)?"""
    return bool(second) and bool(first) and second[0].charge_id != first[0]


async def _unknown_parameter(client: PaymentClient, report: ProbeReport) -> None:
    try:
        await client.read(PATH, [(UNKNOWN_PARAMETER, "1")])
    except ValidationError as err:
        report.say(
            "unknown parameters",
            f"refused ({err.status}: {err.message}); paytui leaves out a filter refused so, and"
            " applies it here",
        )
        return
    report.say("unknown parameters", f"ignored ({UNKNOWN_PARAMETER}=1 was answered as a list)")


# --------------------------------------------------------------------------------------------
# Filters
# --------------------------------------------------------------------------------------------


def _examples(charge: Charge) -> dict[str, dict[str, Any]]:
    """For each filter, the query values `charge` would match (what it shows of itself)."""
    found: dict[str, dict[str, Any]] = {}
    for name in ("status", "account_id", "merchant_id", "last4", "contact_name"):
        value = getattr(charge, name, None)
        if isinstance(value, str) and value.strip():
            found[name] = {name: value}
    if charge.method in METHODS:
        found["method"] = {"method": charge.method}
    if charge.total_amount is not None:
        found["min_amount"] = {"min_amount": charge.total_amount}
        found["max_amount"] = {"max_amount": charge.total_amount}
    if charge.charge_timestamp is not None:
        found["created_from"] = {"created_from": charge.charge_timestamp}
        found["created_to"] = {"created_to": charge.charge_timestamp}
    if "charge_type" in charge.model_fields_set and charge.charge_type:
        found["charge_type"] = {"charge_type": charge.charge_type}
    if charge.original_charge_id:
        found["original_charge_id"] = {"original_charge_id": charge.original_charge_id}
    found["charge_id"] = {"charge_id": charge.charge_id[:8]}
    if "tags" in charge.model_fields_set and charge.tags:
        found["tag"] = {"tags": (str(charge.tags[0]),)}
    if "attributes" in charge.model_fields_set and charge.attributes:
        key, values = next(iter(charge.attributes.items()))
        found["attribute"] = {"attributes": ((key, str(values[0]) if values else ""),)}
    return found


def _telling(rows: Sequence[Charge]) -> dict[str, ChargeQuery]:
    """Per filter, a query that the list's first row does not match and another row read does:
    a service that ignores it sends that first row back, so it shows."""
    head = rows[0]
    found: dict[str, ChargeQuery] = {}
    for example in rows[1:]:
        for name, values in _examples(example).items():
            if name in found:
                continue
            try:
                query = ChargeQuery(**values)
            except (pydantic.ValidationError, ValueError):
                continue
            if query.verdicts(head).get(name) is False and any(
                query.verdicts(row).get(name) is True for row in rows
            ):
                found[name] = query
    return found


async def _filters(
    client: PaymentClient, report: ProbeReport, rows: Sequence[Charge], sent: ParameterNames
) -> None:
    """Each filter the rows read can tell, tried once (`SIZE` rows), judged on the rows."""
    if len(rows) < 2:
        report.say("filters", "not tried: too few rows read to take telling values from")
        return
    queries = _telling(rows)
    untold = [name for name in CHARGE_FILTERS if name not in queries]
    for name, query in queries.items():
        wire = sent.get(name) or name
        label = f"filter {name}" + (f" (sent as {wire})" if wire != name else "")
        try:
            page = await client.search_charges_page(query, limit=SIZE)
        except ValidationError as err:
            report.say(label, f"refused ({err.status}: {err.message}); nothing learned")
            continue
        except ApiError as err:
            report.say(label, f"could not be tried: {err.message}")
            continue
        if name in client.refused_parameters(PATH):
            report.parameters[name] = None
            report.say(label, "refused as unknown: not to be sent, applied here")
        elif name in page.ignored_filters:
            report.parameters[name] = None
            report.say(
                label, "ignored (rows that do not match came back): not to be sent, applied here"
            )
        elif not page.items:
            report.say(
                label,
                "no rows came back although a row read matches: the service reads it its own way",
            )
        elif any(name in missing for missing in page.unproven.values()):
            report.say(label, "cannot be proven: the rows do not show the field")
        else:
            report.parameters[name] = sent.get(name) or name
            report.say(
                label, "applied: every row returned shows it, the list's first row was left out"
            )
    if untold:
        report.say(
            "filters not tried", f"{', '.join(untold)} (no value of the rows read tells them)"
        )
