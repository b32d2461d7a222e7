"""The contract between the client and the sandbox, from the sandbox's own OpenAPI document, so
the two cannot drift:

- every response schema the document publishes (a success body: a resource or its list
  envelope) is read by the client's model of that resource, every declared field included and
  none set aside as unreadable;
- every request the client builds (each `PaymentClient` method that sends a body) validates
  against the operation's request schema, and names no property the schema does not declare.

Cheap by design: one document, examples built from the schemas by hand (no generation), requests
recorded on a mock transport.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest

from paytui.api import models, plugins
from paytui.api.client import PaymentClient
from paytui.api.conversations import closed_state, entry_of
from paytui.api.families import GenericObject
from paytui.api.money import loads_json

#: The client's model of each resource schema the sandbox publishes.
CLIENT_MODELS: dict[str, type[models.Resource]] = {
    "Charge": models.Charge,
    "Refund": models.Refund,
    "Token": models.Token,
    "Account": models.Account,
    "Merchant": models.Merchant,
    "Distribution": models.Distribution,
    "PluginSession": models.PluginSession,
    # The families whose shapes the spec does not show: read generically, every field kept,
    # and a message or a thread item read as a line of the thread (checked below).
    "Channel": GenericObject,
    "Conversation": GenericObject,
    "Message": GenericObject,
    "ConversationItem": GenericObject,
}
#: Request bodies the client does not send (with why); every other one must be covered.
NOT_SENT = {
    ("put", "/sandbox/faults"): "the sandbox's own fault switches",
    ("post", "/sandbox/charges/{charge_id}/chargeback"): "the sandbox's practice cases",
    ("post", "/v2/charges/{charge_id}/distribute"): "sent with an empty body (checked apart)",
    ("post", "/v2/channels"): "a support agent reads channels, never makes one",
    ("post", "/v2/conversations"): "conversations are opened by customers, not by paytui",
    ("patch", "/v2/conversations/{conversation_id}"): "paytui only closes a conversation",
}


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from paytui.sandbox.app import create_app

    app = create_app(Path(tmp_path_factory.mktemp("contract")) / "sandbox.db")
    return dict(app.openapi())


def validator(document: dict[str, Any], schema: dict[str, Any]) -> Any:
    """A validator of `schema`, its `$ref`s resolved in the document's components."""
    return jsonschema_rs.Draft202012Validator({**schema, "components": document["components"]})


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def example(document: dict[str, Any], schema: dict[str, Any], key: str = "") -> Any:
    """A value with every declared property, of the schema's first non-null alternative."""
    schema = resolve(document, schema)
    for combiner in ("anyOf", "oneOf"):
        if combiner in schema:
            options = [s for s in schema[combiner] if s.get("type") != "null"]
            return example(document, options[0], key) if options else None
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: example(document, sub, name) for name, sub in props.items()}
    if kind == "array":
        return [example(document, schema.get("items", {}), key)]
    if kind == "integer":
        return 2
    if kind == "number":
        return Decimal("12.34")
    if kind == "boolean":
        return True
    if schema.get("format") == "date-time" or key.endswith(("timestamp", "expiration_date")):
        return "2026-01-02T03:04:05.678Z"
    if kind == "string":
        return f"{key or 'text'}-1"
    return f"{key}-1"  # an open schema: any JSON value


def success_schemas(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for path, item in document["paths"].items():
        if path.startswith("/sandbox/") or "oauth2" in path:
            continue
        for method, operation in item.items():
            for code, answer in operation["responses"].items():
                if re.fullmatch(r"2\d\d", code) and "content" in answer:
                    found.append((method, path, answer["content"]["application/json"]["schema"]))
    return found


def resource_of(schema: dict[str, Any]) -> str | None:
    """The resource a success body holds (itself, or the items of its list envelope)."""
    ref = schema.get("$ref") or schema.get("properties", {}).get("data", {}).get("items", {}).get(
        "$ref"
    )
    return ref.rsplit("/", 1)[-1] if ref else None


def test_every_published_response_is_read_whole_by_the_client(document: dict[str, Any]) -> None:
    published = success_schemas(document)
    assert len(published) >= 10
    for method, path, schema in published:
        name = resource_of(schema)
        where = f"{method.upper()} {path}"
        if name is None:  # an open object (a read-only family the client reads generically)
            assert schema.get("additionalProperties", True) is not False, where
            continue
        assert name in CLIENT_MODELS, f"{where} answers {name}: no client model reads it"
        body = example(document, schema)
        validator(document, schema).validate(_plain(body))  # the example itself is right
        items = body.get("data", [body])
        model = CLIENT_MODELS[name]
        for raw in items:
            parsed = model.model_validate(loads_json(_json(raw)))
            assert parsed.unreadable_fields == {}, (where, parsed.unreadable_fields)
            dumped = parsed.model_dump(by_alias=True, exclude_unset=True)
            assert set(raw) <= set(dumped), (where, set(raw) - set(dumped))
            if name in ("Message", "ConversationItem"):
                line = entry_of(parsed)
                assert line is not None and line.at is not None and line.side, where
            if name == "Conversation":
                assert closed_state(parsed) is False, where  # the first status word: open


# -- requests ------------------------------------------------------------------------------


def recorded_requests() -> tuple[list[httpx.Request], Any]:
    sent: list[httpx.Request] = []
    answer = {
        "charge_id": "c" * 24,
        "refund_id": "r1",
        "token_id": "ct_1",
        "session_id": "ps_1",
        "distribution_id": "d1",
        "account_id": "pa_1",
    }

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=answer)

    return sent, handle


async def send_every_request(client: PaymentClient) -> None:
    """Each body the client builds, in every variant a screen can produce."""
    contact = models.Contact(first_name="Ada", last_name="Lovelace")
    card = models.CardPaymentMethodRequest(
        card_number="4111111111111111", expiration_date="2030-12", contact=contact
    )
    bank = models.BankAccountPaymentMethodRequest(
        routing_number="021000021", account_number="111111111111", contact=contact
    )
    token = models.TokenPaymentMethodRequest(token_id="ct_1")
    full: dict[str, Any] = {
        "tags": ["vip"],
        "attributes": {"order": ["A-1"]},
        "invoice_number": "INV-1",
        "po_number": "PO-1",
        "line_items": [{"sku": "x"}],
        "convenience_fee": Decimal("1.50"),
        "supplemental_fee": Decimal("0.25"),
    }
    for kind, method in (("sale", card), ("authorization", card), ("sale", bank), ("sale", token)):
        await client.create_charge(
            models.ChargeRequest(
                account_id="pa_1",
                total_amount=Decimal("10.05"),
                payment_method=method,
                charge_type=models.charge_type(kind),
                **full,
            )
        )
    await client.create_charge(
        models.ChargeRequest(
            account_id="pa_1",
            total_amount=Decimal(0),
            payment_method=card,
            charge_type="pre_authorization",
        )
    )
    await client.capture("c" * 24, convenience_fee=Decimal(1), supplemental_fee=Decimal("0.5"))
    await client.capture("c" * 24)
    await client.update_charge("c" * 24, tags=["a"], attributes={"k": ["v"]})
    await client.update_refund("r1", tags=["a"], attributes={"k": ["v"]})
    await client.update_refund("r1", tags=[])
    await client.update_customer("cu_1", email="a@example.com", phone="+1 555 0100")
    await client.update_customer("cu_1", phone="+1 555 0100")
    await client.create_refund(
        models.RefundRequest(
            charge_id="c" * 24,
            total_amount=Decimal("1.25"),
            reason="duplicate",
            tags=["t"],
            attributes={"k": ["v"]},
        )
    )
    await client.create_token(
        models.TokenRequest(
            account_id="pa_1",
            payment_method=models.TokenCreatePaymentMethodRequest(
                card_number="4111111111111111",
                expiration_date="2030-12",
                contact=models.Contact(first_name="A", last_name="B", country="US"),
            ),
            token_expiration_date=datetime(2030, 1, 1, tzinfo=UTC),
        )
    )
    await client.update_token(
        "ct_1",
        models.TokenUpdate(
            payment_method=models.TokenUpdatePaymentMethod(expiration_date="2031-01"),
            token_expiration_date=datetime(2031, 1, 1, tzinfo=UTC),
        ),
    )
    await client.create_payment_plugin_session(
        plugins.PaymentPluginSessionRequest(
            account_id="pa_1",
            charge_type="authorization",
            tokenize=plugins.Tokenize(token_expiration_date=datetime(2030, 1, 1, tzinfo=UTC)),
            max_attempts=3,
            max_transaction_amount=Decimal(100),
            tags=["p"],
            attributes={"k": ["v"]},
            payment_methods=["card"],
            invoice_number="INV-1",
            po_number="PO-1",
            convenience_fee=plugins.ConvenienceFee(amount=Decimal("1.50")),
            tax_amount=Decimal("0.75"),
            captcha=True,
            fields=plugins.PluginFields(submit_button="Pay"),
            appearance=plugins.Appearance(
                dark_mode=plugins.DarkMode(enabled=True),
                loader=plugins.Loader(color="#112233", background_color="#ffffff"),
                field=plugins.FieldAppearance(color="#000000"),
            ),
            prefix="shop",
            data={"order": "A-1"},
        )
    )
    await client.create_payment_plugin_session(
        plugins.PaymentPluginSessionRequest(account_id="pa_1")
    )
    await client.create_enrollment_plugin_session(
        plugins.EnrollmentPluginSessionRequest(
            merchant_id="mt_1",
            tags=["m"],
            attributes={"k": ["v"]},
            account=plugins.EnrollmentAccount(tags=["a"], attributes={"k": ["v"]}),
            data=plugins.EnrollmentData(
                account=plugins.PrepopulateAccount(
                    product_description="Coffee",
                    processing=plugins.Processing(
                        max_transaction_amount=Decimal(500), monthly_volume=Decimal(10_000)
                    ),
                )
            ),
        )
    )
    await client.close_conversation("cv_1")
    await client.send_message("cv_1", "We refunded it.\nSam", attributes={"paytui_ref": ["r"]})
    await client.create_account(
        plugins.AccountRequest(
            merchant_id="mt_1",
            name="Property tax",
            merchant_category_code="9311",
            tax_authority="Lakeside County",
            tax_authority_state="MN",
            tags=["t"],
            attributes={"k": ["v"]},
        )
    )


def operation_of(document: dict[str, Any], request: httpx.Request) -> tuple[str, str]:
    method = request.method.lower()
    for template, item in document["paths"].items():
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
        if method in item and re.match(pattern, request.url.path):
            return method, template
    raise AssertionError(f"{request.method} {request.url.path} is not in the sandbox's document")


def undeclared(document: dict[str, Any], schema: dict[str, Any], body: Any, at: str = "") -> list:
    """Properties of `body` its (closed) schema does not declare: a name the sandbox ignores."""
    schema = resolve(document, schema)
    for combiner in ("anyOf", "oneOf"):
        if combiner in schema:
            found = [undeclared(document, s, body, at) for s in schema[combiner]]
            return min(found, key=len)
    if not isinstance(body, dict) or schema.get("additionalProperties") is True:
        return []
    props = schema.get("properties", {})
    missing = [f"{at}{key}" for key in body if props and key not in props]
    for key, value in body.items():
        if key in props and isinstance(value, dict):
            missing += undeclared(document, props[key], value, f"{at}{key}.")
    return missing


async def test_every_request_the_client_builds_validates(document: dict[str, Any]) -> None:
    sent, handle = recorded_requests()
    async with PaymentClient(
        "http://sandbox.test", token="t", transport=httpx.MockTransport(handle)
    ) as client:
        await send_every_request(client)
    covered: set[tuple[str, str]] = set()
    for request in sent:
        operation = operation_of(document, request)
        covered.add(operation)
        body = loads_json(request.content)
        schema = document["paths"][operation[1]][operation[0]]["requestBody"]["content"][
            "application/json"
        ]["schema"]
        errors = [e.message for e in validator(document, schema).iter_errors(_plain(body))]
        assert errors == [], (operation, errors)
        assert undeclared(document, schema, body) == [], operation
    with_bodies = {
        (method, path)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if "requestBody" in operation
    }
    assert with_bodies - covered - set(NOT_SENT) == set()


def _json(value: Any) -> str:
    import json

    return json.dumps(_plain(value))


def _plain(value: Any) -> Any:
    """Decimals as JSON numbers (what the wire carries), for the validator."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
