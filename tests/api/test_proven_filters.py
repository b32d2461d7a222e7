"""A filter is proven on the rows, applied here, or said — never passed off (issue 23, point 1).

The service here is written from the spec alone and makes the other plausible choices: it applies
`status` and nothing else (every other parameter is ignored, as many services do with unknown
ones), and its charges are the published shape: no `tags` key, no `charge_type`, no
`captured_charge_id`. Against it, no row that contradicts a filter is shown as a match, a row
that cannot show it matches is listed as not proven, and the command line says so on stderr
with its own exit code.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

from paytui.actions.journal import JournalEntry
from paytui.actions.reconcile import REF_ATTRIBUTE, Unprovable, read_back
from paytui.api.client import PaymentClient
from paytui.api.queries import ChargeQuery
from paytui.commands.runtime import Exit
from tests.cli_support import cli_runner

NAMES = ["Ada Lovelace", "Grace Hopper", "Edsger Dijkstra", "Alan Turing", "Barbara Liskov"]
START = datetime(2026, 11, 1, tzinfo=UTC)


def published_charge(index: int) -> dict[str, Any]:
    """A charge as the spec publishes one: no tags, no charge_type, no captured_charge_id."""
    first, last = NAMES[index % len(NAMES)].split()
    return {
        "charge_id": f"{index + 1:024x}",
        "charge_timestamp": (START + timedelta(hours=index)).isoformat().replace("+00:00", "Z"),
        "total_amount": 10 + index,
        "status": "declined" if index % 7 == 3 else "success",
        "result_code": "Approved",
        "account_id": "pa_1",
        "payment_method": {
            "method": "card",
            "type": "visa",
            "card_number": f"XXXXXXXXXXXX{1000 + index % 9}",
            "contact": {"first_name": first, "last_name": last},
        },
    }


CHARGES = [published_charge(i) for i in range(120)]


def status_only_service(refunds: list[dict[str, Any]] | None = None) -> httpx.MockTransport:
    """Applies `status`, pages by `limit`/`offset` with a `total`, newest first; ignores every
    other parameter. `refunds` is its whole refund list (no filter applied)."""

    def handle(request: httpx.Request) -> httpx.Response:
        params = request.url.params
        path = request.url.path
        if path.endswith("/oauth2/token"):
            return httpx.Response(
                200,
                json={
                    "access_token": "t",
                    "expires_in": 3600,
                    "scope": "urn:v2:charges:all urn:v2:refunds:all",
                },
            )
        offset, limit = int(params.get("offset", 0)), int(params.get("limit", 50))
        if path == "/v2/charges":
            found = [
                c for c in reversed(CHARGES) if c["status"] == params.get("status", c["status"])
            ]
            body = {"data": found[offset : offset + limit], "total": len(found)}
            return httpx.Response(200, json=body)
        if path == "/v2/refunds":
            found = refunds or []
            body = {"data": found[offset : offset + limit], "total": len(found)}
            return httpx.Response(200, json=body)
        return httpx.Response(404, json={"message": "not here"})

    return httpx.MockTransport(handle)


def client_of(transport: httpx.AsyncBaseTransport) -> PaymentClient:
    return PaymentClient("http://other", client_id="id", client_secret="s", transport=transport)


async def test_a_name_the_service_ignores_is_applied_here_across_pages() -> None:
    async with client_of(status_only_service()) as client:
        page = await client.search_charges_page(ChargeQuery(contact_name="ada"), limit=50)
        every = [
            c async for p in client.search_charges(ChargeQuery(contact_name="ada")) for c in p.items
        ]
    # Only Ada's charges, every one of them (24 of 120, over three pages of the service).
    assert {c.contact_name for c in page.items} == {"Ada Lovelace"}
    assert page.ignored_filters == ("contact_name",) and page.filtered_out == 40
    assert page.next_offset == 50  # the next page starts after the rows left out
    assert len(every) == 24 and {c.contact_name for c in every} == {"Ada Lovelace"}
    assert page.ignored_note is not None and page.ignored_note.startswith(
        "Filtered here: contact_name"
    )


async def test_a_page_whose_every_row_is_left_out_does_not_end_the_search() -> None:
    # `last4` 1008 is one row in 9; pages of 5 hold none of them now and then.
    async with client_of(status_only_service()) as client:
        pages = [p async for p in client.search_charges(ChargeQuery(last4="1008"), page_size=5)]
    assert any(not p.items for p in pages[:-1])
    assert sum(len(p.items) for p in pages) == len(
        [c for c in CHARGES if c["payment_method"]["card_number"].endswith("1008")]
    )


async def test_a_tag_the_rows_cannot_show_is_not_proven_and_the_sort_is_said() -> None:
    async with client_of(status_only_service()) as client:
        tagged = await client.search_charges_page(ChargeQuery(tags=("vip",)), limit=20)
        sorted_ = await client.search_charges_page(ChargeQuery(sort="total_amount"), limit=20)
        kept = await client.search_charges_page(ChargeQuery(status="declined"), limit=20)
    # No row carries `tags`: none is left out (nothing contradicts), none is proven either.
    assert len(tagged.items) == 20 and set(tagged.unproven) == {c.charge_id for c in tagged.items}
    assert not any(tagged.proven(c.charge_id) for c in tagged.items)
    assert "20 rows not proven to match (tag not shown by the service)" in (
        tagged.ignored_note or ""
    )
    # Newest first came back for "cheapest first": said, never pretended.
    assert sorted_.sort_ignored and "ignored the sort" in (sorted_.ignored_note or "")
    # The filter the service applies is proven on every row.
    assert (
        kept.items and not kept.unproven and not kept.ignored_filters and kept.ignored_note is None
    )


def run_cli(
    transport: httpx.AsyncBaseTransport, tmp_path: Path, *argv: str
) -> tuple[int, str, str]:
    return cli_runner(lambda: client_of(transport), tmp_path / "journal.sqlite3")(*argv)


def test_the_command_line_says_what_it_could_not_prove(tmp_path: Path) -> None:
    transport = status_only_service()
    code, out, err = run_cli(
        transport, tmp_path, "charges", "search", "tag:vip", "--format", "jsonl"
    )
    assert code == Exit.UNPROVEN == 11
    assert out == ""  # no row is proven: none passes as a match
    assert "rows not proven to match (tag not shown by the service)" in err
    assert "--include-unproven" in err  # how to see them
    code, out, err = run_cli(
        transport,
        tmp_path,
        "charges",
        "search",
        "tag:vip",
        "--format",
        "jsonl",
        "--include-unproven",
    )
    assert code == Exit.UNPROVEN
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) >= 50 and all(row["proven"] is False for row in rows)
    # A name is applied here: every row printed matches, the line says how; exit 0.
    code, out, err = run_cli(
        transport, tmp_path, "charges", "search", "name:ada", "--all", "--format", "jsonl"
    )
    assert code == Exit.OK and len(out.splitlines()) == 24 and "Lovelace" in out
    assert "Grace" not in out and err.startswith("paytui: Filtered here: contact_name")
    code, _out, err = run_cli(
        transport, tmp_path, "export", "tag:vip", "--output", str(tmp_path / "x.csv")
    )
    assert code == Exit.UNPROVEN and "not proven to match" in err


def refund_entry(charge_id: str, ref: str) -> JournalEntry:
    now = datetime(2026, 11, 20, tzinfo=UTC)
    return JournalEntry(
        id=1,
        client_reference=ref,
        profile="p",
        base_url="http://other",
        operation="refund",
        charge_id=charge_id,
        amount=Decimal("5.00"),
        request_summary={},
        state="unknown",
        result_id=None,
        error=None,
        retry_of=None,
        created_at=now,
        sent_at=now,
        updated_at=now,
        resolved_at=None,
    )


async def test_the_read_back_is_not_fooled_by_an_ignored_refund_filter() -> None:
    charge = CHARGES[0]["charge_id"]
    other = CHARGES[1]["charge_id"]
    earlier = {"refund_id": "r-earlier", "charge_id": charge, "total_amount": 5, "attributes": {}}
    elsewhere = {
        "refund_id": "r-other",
        "charge_id": other,
        "total_amount": 5,
        "attributes": {REF_ATTRIBUTE: ["ours"]},
    }
    # An earlier refund of the same charge (its attributes shown, no reference of ours) and ours
    # on another charge's row: neither is the lost one.
    async with client_of(status_only_service([earlier, elsewhere])) as client:
        found = await read_back(client, refund_entry(charge, "ours"))
    assert found.state == "not_applied"
    # The same earlier refund listed without its attributes: nothing here can tell it from
    # ours, so nothing is claimed either way.
    blind = {"refund_id": "r-earlier", "charge_id": charge, "total_amount": 5}
    async with client_of(status_only_service([blind])) as client:
        try:
            await read_back(client, refund_entry(charge, "ours"))
        except Unprovable as err:
            assert "cannot tell" in str(err)
        else:
            raise AssertionError("an unreadable refund of the charge passed for a verdict")


async def test_a_service_that_always_has_more_ends_in_too_many_results() -> None:
    charge = CHARGES[0]["charge_id"]

    def endless(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            return httpx.Response(200, json={"access_token": "t", "expires_in": 3600})
        offset = int(request.url.params.get("offset", 0))
        rows = [
            {"refund_id": f"r{offset + i}", "charge_id": charge, "attributes": {}}
            for i in range(50)
        ]
        return httpx.Response(200, json={"data": rows, "has_more": True})

    async with client_of(httpx.MockTransport(endless)) as client:
        try:
            await read_back(client, refund_entry(charge, "ours"))
        except Unprovable as err:
            assert "too many results to be sure" in str(err)
        else:
            raise AssertionError("an endless list gave a verdict")


def test_verdicts_prove_only_what_the_row_shows() -> None:
    from paytui.api.models import Charge, Refund, row_id
    from paytui.api.queries import RefundQuery

    tagged = Charge.model_validate({"charge_id": "c1", "tags": ["VIP"], "attributes": {"k": []}})
    # Tags match exactly: another case is the service's own matching, not a proof either way.
    assert ChargeQuery(tags=("vip",)).verdicts(tagged) == {"tag": None}
    assert ChargeQuery(tags=("VIP",)).verdicts(tagged) == {"tag": True}
    assert ChargeQuery(tags=("gold",)).verdicts(tagged) == {"tag": False}
    # `attr:k` (sent as `k=`) asks for the key at all.
    assert ChargeQuery(attributes=(("k", ""),)).verdicts(tagged) == {"attribute": True}
    assert ChargeQuery(attributes=(("j", ""),)).verdicts(tagged) == {"attribute": False}
    # An empty chargebacks object, sent on every charge by some services, is no chargeback.
    quiet = Charge.model_validate(
        {"charge_id": "c2", "status": "success", "chargebacks": {"total_amount": 0, "items": []}}
    )
    assert ChargeQuery(status="chargeback").verdicts(quiet) == {"status": None}
    # A declined charge without charge_type could be a sale or an authorization.
    declined = Charge.model_validate({"charge_id": "c3", "result_code": "Declined"})
    assert ChargeQuery(charge_type="authorization").verdicts(declined) == {"charge_type": None}
    # A refund row is keyed by its own id, not by the charge it refunds.
    refund = Refund.model_validate({"refund_id": "r1", "charge_id": "c1"})
    assert row_id(refund) == "r1"
    assert RefundQuery(tags=("vip",)).verdicts(refund) == {"tag": None}


async def test_our_reference_is_ours_even_on_a_row_without_its_charge() -> None:
    charge = CHARGES[0]["charge_id"]
    ours = {"refund_id": "r-ours", "total_amount": 5, "attributes": {REF_ATTRIBUTE: ["ours"]}}
    async with client_of(status_only_service([ours])) as client:
        found = await read_back(client, refund_entry(charge, "ours"))
    assert (found.state, found.result_id) == ("succeeded", "r-ours")


async def test_a_refund_list_that_ignores_paging_is_no_proof_of_absence() -> None:
    charge = CHARGES[0]["charge_id"]

    def same_page(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            return httpx.Response(200, json={"access_token": "t", "expires_in": 3600})
        rows = [
            {"refund_id": f"r{i}", "charge_id": charge, "attributes": {REF_ATTRIBUTE: ["x"]}}
            for i in range(50)
        ]
        return httpx.Response(200, json={"data": rows, "total": 120})

    async with client_of(httpx.MockTransport(same_page)) as client:
        try:
            found = await read_back(client, refund_entry(charge, "ours"))
        except Unprovable as err:
            assert "could not be read to its end" in str(err)
        else:
            raise AssertionError(f"a list read once and again gave a verdict: {found.state}")


async def test_only_a_parameter_the_service_calls_unknown_is_left_out() -> None:
    """A refusal naming a parameter as unknown: asked again without it, applied here (the sort
    said to be ignored). A refusal of a malformed value is the user's to see, not swallowed."""
    from paytui.api.errors import ValidationError

    seen: list[list[str]] = []

    def strict(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            return httpx.Response(200, json={"access_token": "t", "expires_in": 3600})
        names = [name for name, _ in request.url.params.multi_items()]
        seen.append(names)
        for name in ("contact_name", "sort"):
            if name in names:
                return httpx.Response(400, json={"message": f"unknown query parameter: {name}"})
        if request.url.params.get("charge_id") == "zz":
            return httpx.Response(422, json={"message": "charge_id: must be hexadecimal"})
        offset = int(request.url.params.get("offset", 0))
        return httpx.Response(200, json={"data": CHARGES[offset : offset + 50], "total": 120})

    async with client_of(httpx.MockTransport(strict)) as client:
        page = await client.search_charges_page(
            ChargeQuery(contact_name="ada", sort="-total_amount"), limit=50
        )
        assert {c.contact_name for c in page.items} == {"Ada Lovelace"} and page.sort_ignored
        assert seen[-1] == ["limit", "offset"]  # neither is sent again
        try:
            await client.search_charges_page(ChargeQuery(charge_id="zz"), limit=50)
        except ValidationError as err:
            assert "must be hexadecimal" in str(err)
        else:
            raise AssertionError("a malformed value was swallowed")
