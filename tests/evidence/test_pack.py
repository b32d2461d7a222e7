"""A pack per reason category holds that category's sections; the checklist says what is
missing in plain words; no card number, secret or token id in any format; two builds differ
only in the line that says when; the PDF reads back with the same sections."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from paytui.api.queries import ChargeQuery
from paytui.evidence.pack import MISSING, PRESENT, build_pack, read_case
from paytui.evidence.render import built_line, to_json, to_markdown, to_pdf

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

BUILT = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


async def _case_of(client: PaymentClient, name: str) -> str:
    page = await client.search_charges_page(ChargeQuery(contact_name=name), limit=50)
    (charge,) = [c for c in page.items if c.status == "chargeback"]
    return charge.charge_id


async def _made_case(client: PaymentClient, api: httpx.AsyncClient, code: str) -> str:
    """A card sale of the demo charged back now with `code` (the sandbox's practice path)."""
    page = await client.search_charges_page(
        ChargeQuery(status="success", charge_type="sale", method="card"), limit=100
    )
    for charge in page.items:
        if charge.payment_method.type == "visa" and not charge.chargebacks:
            made = await api.post(
                f"/sandbox/charges/{charge.charge_id}/chargeback", json={"reason_code": code}
            )
            if made.status_code == 201:
                return charge.charge_id
    raise AssertionError("no visa sale to charge back")


def _pdf_text(data: bytes) -> str:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() for page in reader.pages)


#: (how the case is found, the titles its pack must hold)
CASES: dict[str, tuple[Any, tuple[str, ...]]] = {
    "fraud": ("Omar Haddad", ("The customer", "Prior undisputed charges")),
    "not received": ("Ravi Menon", ("Delivery", "What was sold")),
    "duplicate": ("Nina Petrova", ("The other charge or its refund",)),
    "authorization": ("Ines Duarte", ("The charge and its authorization",)),
    "cardholder dispute": ("Helga Lindqvist", ("What was sold", "Policy and agreement")),
    "cancelled recurring": ("13.2", ("Recurring agreement and cancellation",)),
    "credit not processed": ("13.6", ("The credit",)),
    "not as described": ("13.3", ("What was sold", "Policy and agreement")),
}


@pytest.mark.parametrize("category", list(CASES))
async def test_a_pack_of_each_category_holds_its_sections(
    category: str, demo_client: PaymentClient, api: httpx.AsyncClient
) -> None:
    who, titles = CASES[category]
    if re.fullmatch(r"\d+\.\d", who):
        charge_id = await _made_case(demo_client, api, who)
    else:
        charge_id = await _case_of(demo_client, who)
    pack = build_pack(await read_case(demo_client, charge_id), BUILT)
    held = [section.title for section in pack.sections]
    assert held[0] == "The charge and its authorization"
    assert set(titles) <= set(held), held
    assert held[-1] == "History in paytui"
    markdown = to_markdown(pack)
    for title in titles:
        assert re.search(rf"^## \d+\. {re.escape(title)}$", markdown, re.M), title
    # The PDF opens with a reader and holds the same sections, in the same order.
    text = _pdf_text(to_pdf(pack))
    places = [text.find(f"{n}. {t}") for n, t in enumerate(held, start=1)]
    assert -1 not in places and places == sorted(places), (held, places)
    assert "Checklist" in text and built_line(pack) in text


async def test_not_received_without_a_shipping_attribute_names_the_missing_proof(
    demo_client: PaymentClient,
) -> None:
    ravi = build_pack(
        await read_case(demo_client, await _case_of(demo_client, "Ravi Menon")), BUILT
    )
    (delivery,) = [item for item in ravi.checklist if item.key == "delivery"]
    assert delivery.status == MISSING and delivery.required
    assert delivery.detail.startswith("no proof of delivery: the charge has no attribute")
    assert delivery.detail.endswith("and no shipping address")
    assert "Proof of delivery" in to_markdown(ravi) and delivery in ravi.missing_required
    # Lucía Ferrer's (C08) carries a tracking number: present, and shown.
    lucia = await read_case(demo_client, await _case_of(demo_client, "Lucía Ferrer"))
    pack = build_pack(lucia, BUILT)
    (found,) = [item for item in pack.checklist if item.key == "delivery"]
    assert found.status == PRESENT and "PQ4F7K2L9ES" in found.detail


async def test_the_fraud_pack_carries_the_finder_and_its_checklist(
    demo_client: PaymentClient,
) -> None:
    import json

    pack = build_pack(
        await read_case(demo_client, await _case_of(demo_client, "Omar Haddad")), BUILT
    )
    body = json.loads(to_json(pack))
    assert len(body["priors"]) == 2 and body["priors_best"] == [
        p["charge_id"] for p in body["priors"]
    ]
    assert all({"ip", "device"} <= set(p["matches"]) and p["ce3"] for p in body["priors"])
    statuses = {item["key"]: item["status"] for item in body["checklist"]}
    assert statuses["priors"] == statuses["ip"] == statuses["device"] == "present"
    assert statuses["communications"] == "missing"


async def test_no_card_number_secret_or_token_in_any_format(
    demo_client: PaymentClient,
) -> None:
    from paytui.sandbox import DEMO_CLIENT_SECRET

    charge_id = await _case_of(demo_client, "Kwame Mensah")
    token = (await demo_client.list_tokens_page(limit=1)).items[0].token_id
    # What a careless merchant stored: a full card number, a token id, a secret.
    await demo_client.update_charge(
        charge_id,
        attributes={
            "note": ["card 4111 1111 1111 1111 again"],
            "card_on_file": [token],
            "api": ["client_secret=" + DEMO_CLIENT_SECRET],
            "customer_id": ["C-2006"],
        },
    )
    pack = build_pack(await read_case(demo_client, charge_id), BUILT)
    access = (await demo_client.authenticate()).access_token.get_secret_value()
    for text in (to_markdown(pack), to_json(pack), _pdf_text(to_pdf(pack))):
        flat = re.sub(r"[\s-]", "", text)
        assert not re.search(r"\d{12,19}", flat), re.findall(r"\d{12,19}", flat)
        assert token not in text and "ct_" + token[3:] not in flat
        assert DEMO_CLIENT_SECRET not in text and access not in text
        assert "1111" in text  # the masked card and the scrubbed note still say which card


async def test_two_builds_differ_only_in_the_built_line(demo_client: PaymentClient) -> None:
    charge_id = await _case_of(demo_client, "Omar Haddad")
    one = build_pack(await read_case(demo_client, charge_id), BUILT)
    two = build_pack(await read_case(demo_client, charge_id), datetime(2026, 12, 1, tzinfo=UTC))
    for render in (to_markdown, to_json):
        a, b = render(one).splitlines(), render(two).splitlines()
        assert len(a) == len(b)
        differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
        assert len(differ) == 1 and "2026-11-29T10:00:00Z" in differ[0][0], differ
    pdf_one, pdf_two = _pdf_text(to_pdf(one)), _pdf_text(to_pdf(two))
    assert pdf_one.replace(built_line(one), built_line(two)) == pdf_two
