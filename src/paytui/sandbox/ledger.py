"""Charges, captures, refunds, distributions and card tokens: the sandbox's business rules.

Each operation is one write transaction, so a rule that reads before it writes (capture once,
refund never more than what is left) holds even with concurrent requests. The functions take
validated request models and answer the JSON form of the resource (a dict).

Why one module of more than 800 lines: the rules that read before they write (capture once, refund
never more than what is left, a distribution's totals) share the same rows and transactions; they
are kept together so each rule is read beside the ones it must not contradict.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterable
from typing import Any

from paytui.sandbox.errors import Conflict, FieldInvalid, NotFound
from paytui.sandbox.methods import PM, CheckedMethod, check_bank, check_card, check_expiration
from paytui.sandbox.models import (
    CaptureIn,
    ChargebackIn,
    ChargeCreate,
    ChargePatch,
    RefundCreate,
    TokenCreate,
    TokenUpdate,
)
from paytui.sandbox.names import replace_names
from paytui.sandbox.store import Store, dumps, loads_doc
from paytui.sandbox.wire import (
    add_years,
    cents_from_decimal,
    hex_id,
    iso_ms,
    money_out,
    parse_instant,
    prefixed_id,
)

MAX_AMOUNT_CENTS = 99_999_999
SUCCESS_TEXT = "Sandbox transaction success"
PASSED = {"avs_response": "passed", "cv_response": "passed"}
CHARGE_TYPES = ("sale", "authorization", "pre_authorization")
REFUNDABLE_TYPES = ("sale", "capture")
CATEGORIES = ("sales", "refunds", "chargebacks", "returns", "fees")


def authorization_code() -> str:
    return "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(6))


def charge_doc(
    *,
    charge_id: str,
    ts: str,
    charge_type: str,
    status: str,
    result_code: str,
    result_text: str | None,
    authorization_code: str | None,
    amount_cents: int,
    account_id: str,
    merchant_id: str,
    payment_method: dict[str, Any],
    processor_messages: dict[str, str],
    tags: list[str],
    attributes: dict[str, list[str]],
    invoice_number: str | None = None,
    po_number: str | None = None,
    convenience_fee_cents: int | None = None,
    supplemental_fee_cents: int | None = None,
    line_items: list[dict[str, Any]] | None = None,
    original_charge_id: str | None = None,
) -> dict[str, Any]:
    """The JSON form of a charge, optional fields left out when they have no value."""
    doc: dict[str, Any] = {
        "charge_id": charge_id,
        "charge_type": charge_type,
        "charge_timestamp": ts,
        "last_updated_timestamp": ts,
        "status": status,
        "result_code": result_code,
        "result_text": result_text,
        "authorization_code": authorization_code,
        "total_amount": money_out(amount_cents),
        "reversal_flag": False,
        "account_id": account_id,
        "merchant_id": merchant_id,
        "payment_method": payment_method,
        "processor_messages": processor_messages,
        "original_charge_id": original_charge_id,
        "invoice_number": invoice_number,
        "po_number": po_number,
        "convenience_fee": None
        if convenience_fee_cents is None
        else money_out(convenience_fee_cents),
        "supplemental_fee": None
        if supplemental_fee_cents is None
        else money_out(supplemental_fee_cents),
        "line_items": line_items,
        "tags": tags,
        "attributes": attributes,
    }
    shown = {k: v for k, v in doc.items() if v is not None}
    if charge_type == "authorization" and status == "success":
        # The sandbox's shortcut, said out loud: an authorization shows `captured_charge_id`,
        # null until captured, so `captured:no` is proven on its rows (docs/api-assumptions.md).
        shown["captured_charge_id"] = None
    return shown


def charge_row(
    rowid: int | None,
    doc: dict[str, Any],
    *,
    amount_cents: int,
    last4: str,
    contact_name: str,
    refunded_cents: int = 0,
) -> tuple[Any, ...]:
    """The indexed columns of a charge, in table order, derived from its doc, then the doc JSON."""
    captured = None
    if doc["charge_type"] == "authorization" and doc["status"] == "success":
        captured = int(doc.get("captured_charge_id") is not None)
    return (
        rowid,
        doc["charge_id"],
        doc["charge_timestamp"],
        doc["account_id"],
        doc["merchant_id"],
        doc["status"],
        doc["result_code"],
        doc["charge_type"],
        doc["payment_method"]["method"],
        last4,
        amount_cents,
        refunded_cents,
        captured,
        doc.get("original_charge_id"),
        contact_name,
        dumps(doc),
    )


INSERT_CHARGE = "INSERT INTO charges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
INSERT_DOC = "INSERT INTO charge_docs VALUES (?, ?)"


def tag_rows(rowid: int, tags: Iterable[str]) -> list[tuple[str, int]]:
    return [(tag, rowid) for tag in tags]


def attr_rows(rowid: int, attributes: dict[str, list[str]]) -> list[tuple[str, str, int]]:
    return [(key, value, rowid) for key, values in attributes.items() for value in set(values)]


def _replace_labels(
    conn: sqlite3.Connection, kind: str, rowid: int, tags: list[str], attrs: dict[str, list[str]]
) -> None:
    conn.execute(f"DELETE FROM {kind}_tags WHERE id = ?", (rowid,))
    conn.execute(f"DELETE FROM {kind}_attrs WHERE id = ?", (rowid,))
    conn.executemany(f"INSERT INTO {kind}_tags VALUES (?, ?)", tag_rows(rowid, tags))
    conn.executemany(f"INSERT INTO {kind}_attrs VALUES (?, ?, ?)", attr_rows(rowid, attrs))


def _insert_charge(
    conn: sqlite3.Connection, doc: dict[str, Any], amount_cents: int, last4: str, contact: str
) -> None:
    row = charge_row(None, doc, amount_cents=amount_cents, last4=last4, contact_name=contact)
    rowid = int(conn.execute(INSERT_CHARGE, row[:-1]).lastrowid or 0)
    conn.execute(INSERT_DOC, (rowid, row[-1]))
    _replace_labels(conn, "charge", rowid, doc["tags"], doc["attributes"])
    replace_names(conn, rowid, contact)


def _save_doc(conn: sqlite3.Connection, rowid: int, doc: dict[str, Any]) -> None:
    conn.execute("UPDATE charge_docs SET doc = ? WHERE id = ?", (dumps(doc), rowid))


def _cents(value: Any, field: str) -> int:
    cents = cents_from_decimal(value)
    if cents < 0:
        raise FieldInvalid(field, "must not be negative")
    if cents > MAX_AMOUNT_CENTS:
        raise FieldInvalid(field, f"must be at most {money_out(MAX_AMOUNT_CENTS)}")
    return cents


def _with_fees(amount: int, convenience: int | None, supplemental: int | None) -> int:
    """The amount the card pays: the amount plus the fees, the one rule of create and capture."""
    total = amount + (convenience or 0) + (supplemental or 0)
    if total > MAX_AMOUNT_CENTS:
        raise FieldInvalid("convenience_fee", "amount plus fees is too large")
    return total


def _approved_account(conn: sqlite3.Connection, account_id: str) -> str:
    """The merchant id of an account that may take payments (404 unknown, 409 not approved)."""
    row = conn.execute(
        "SELECT merchant_id, status FROM accounts WHERE account_id = ?", (account_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"account {account_id} not found")
    if row[1] != "approved":
        raise Conflict(f"account {account_id} is {row[1]}; only approved accounts take payments")
    return str(row[0])


def _load_charge(conn: sqlite3.Connection, charge_id: str) -> tuple[int, dict[str, Any], int, int]:
    """(rowid, doc, amount_cents, refunded_cents) of a charge, or 404."""
    row = conn.execute(
        "SELECT c.id, d.doc, c.amount_cents, c.refunded_cents FROM charges c"
        " JOIN charge_docs d ON d.id = c.id WHERE c.charge_id = ?",
        (charge_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"charge {charge_id} not found")
    return int(row[0]), json.loads(row[1]), int(row[2]), int(row[3])


def _token_method(
    conn: sqlite3.Connection, token_id: str, now: str, account_id: str
) -> CheckedMethod:
    """The card a token stands for, charged only on the account that stored it."""
    row = conn.execute("SELECT doc FROM tokens WHERE token_id = ?", (token_id,)).fetchone()
    if row is None:
        raise NotFound(f"token {token_id} not found")
    token = json.loads(row[0])
    if token.get("account_id") != account_id:
        raise FieldInvalid(
            f"{PM}.token_id", f"token {token_id} belongs to another account; use it on its own"
        )
    if token["token_expiration_date"] <= now:
        raise FieldInvalid(
            f"{PM}.token_id", f"token expired on {token['token_expiration_date'][:10]}"
        )
    pm = token["payment_method"]
    output = {
        "method": "card",
        "type": pm["type"],
        "card_number": pm["card_number"],
        "contact": {k: v for k, v in pm["contact"].items() if k in ("first_name", "last_name")},
        "token_id": token_id,
    }
    name = " ".join(
        p for p in (pm["contact"].get("first_name"), pm["contact"].get("last_name")) if p
    ).casefold()
    return CheckedMethod(output, "card", pm["card_number"][-4:], name)


def create_charge(store: Store, req: ChargeCreate) -> dict[str, Any]:
    """A sale, authorization, pre-authorization or token charge (declined cards answer too)."""
    charge_type = req.charge_type or "sale"
    if charge_type not in CHARGE_TYPES:
        raise FieldInvalid("charge_type", f"must be one of {', '.join(CHARGE_TYPES)}")
    amount = _cents(req.total_amount, "total_amount")
    if charge_type == "pre_authorization" and amount != 0:
        raise FieldInvalid("total_amount", "must be 0 for a pre_authorization")
    if charge_type != "pre_authorization" and amount == 0:
        raise FieldInvalid("total_amount", "must be greater than 0")
    conv = None if req.convenience_fee is None else _cents(req.convenience_fee, "convenience_fee")
    supp = (
        None if req.supplemental_fee is None else _cents(req.supplemental_fee, "supplemental_fee")
    )
    if charge_type == "pre_authorization" and (conv or supp):
        raise FieldInvalid(
            "convenience_fee", "a pre_authorization checks the card; it takes no fees"
        )
    # Fees are added to the amount at create as at capture: total_amount is what the card pays.
    amount = _with_fees(amount, conv, supp)
    pm = req.payment_method
    if pm.token_id is not None:
        others = [
            name
            for name in (
                "method",
                "card_number",
                "expiration_date",
                "routing_number",
                "account_number",
            )
            if getattr(pm, name) is not None
        ]
        if others:
            raise FieldInvalid(
                f"{PM}.token_id",
                f"a token payment gives token_id only; leave out {', '.join(others)}",
            )
    now_dt = store.clock()
    now = iso_ms(now_dt)
    checked: CheckedMethod | None = None
    expiration = ""
    if pm.token_id is None:
        if pm.method == "card" or (pm.method is None and pm.card_number):
            checked, expiration = check_card(pm, now_dt)
        elif pm.method == "bank_account":
            checked = check_bank(pm)
            if charge_type != "sale":
                raise FieldInvalid("charge_type", f"a {charge_type} is for card payments only")
        else:
            raise FieldInvalid(f"{PM}.method", "must be card or bank_account (or give token_id)")
    store.refresh_boarding()
    with store.write() as conn:
        merchant_id = _approved_account(conn, req.account_id)
        if checked is None:
            checked = _token_method(conn, str(pm.token_id), now, req.account_id)
        declined = checked.declined
        if declined:
            result = ("declined", "Declined", "Card declined")
        elif checked.method == "bank_account":
            result = ("success", "ProcessorPendingACHSale", SUCCESS_TEXT)
        elif charge_type == "sale":
            result = ("success", "Approved", SUCCESS_TEXT)
        else:
            result = ("success", "Authorized", SUCCESS_TEXT)
        output = dict(checked.output)
        if req.tokenize and pm.token_id is None and checked.method == "card" and not declined:
            token = _token_doc(req.account_id, output, expiration, None, now_dt)
            conn.execute(
                "INSERT INTO tokens VALUES (?, ?, ?, ?)",
                (token["token_id"], req.account_id, now, dumps(token)),
            )
            output["token_id"] = token["token_id"]
        messages = dict(PASSED)
        if declined:
            messages["message"] = "Do not honor"
        doc = charge_doc(
            charge_id=hex_id(),
            ts=now,
            charge_type=charge_type,
            status=result[0],
            result_code=result[1],
            result_text=result[2],
            authorization_code=authorization_code()
            if checked.method == "card" and not declined
            else None,
            amount_cents=amount,
            account_id=req.account_id,
            merchant_id=merchant_id,
            payment_method=output,
            processor_messages=messages,
            tags=req.tags,
            attributes=req.attributes,
            invoice_number=req.invoice_number,
            po_number=req.po_number,
            convenience_fee_cents=conv,
            supplemental_fee_cents=supp,
            line_items=req.line_items,
        )
        _insert_charge(conn, doc, amount, checked.last4, checked.contact_name)
    return doc


def capture(store: Store, charge_id: str, req: CaptureIn | None) -> dict[str, Any]:
    """Capture an open authorization once: a new `capture` charge for the amount plus fees."""
    req = req or CaptureIn()
    conv = None if req.convenience_fee is None else _cents(req.convenience_fee, "convenience_fee")
    supp = (
        None if req.supplemental_fee is None else _cents(req.supplemental_fee, "supplemental_fee")
    )
    with store.write() as conn:
        rowid, auth, amount, _ = _load_charge(conn, charge_id)
        if auth["charge_type"] != "authorization":
            raise Conflict(
                f"charge {charge_id} is a {auth['charge_type']};"
                " only an authorization can be captured"
            )
        if auth["status"] != "success":
            raise Conflict(f"charge {charge_id} was {auth['status']}; it cannot be captured")
        if auth.get("captured_charge_id") is not None:
            raise Conflict(
                f"authorization {charge_id} was already captured by {auth['captured_charge_id']}"
            )
        now = store.now_iso()
        total = _with_fees(amount, conv, supp)
        doc = charge_doc(
            charge_id=hex_id(),
            ts=now,
            charge_type="capture",
            status="success",
            result_code="Approved",
            result_text=None,
            authorization_code=auth.get("authorization_code"),
            amount_cents=total,
            account_id=auth["account_id"],
            merchant_id=auth["merchant_id"],
            payment_method=auth["payment_method"],
            processor_messages=auth["processor_messages"],
            tags=auth["tags"],
            attributes=auth["attributes"],
            invoice_number=auth.get("invoice_number"),
            po_number=auth.get("po_number"),
            convenience_fee_cents=conv,
            supplemental_fee_cents=supp,
            line_items=auth.get("line_items"),
            original_charge_id=charge_id,
        )
        row = conn.execute(
            "SELECT last4, contact_name FROM charges WHERE id = ?", (rowid,)
        ).fetchone()
        _insert_charge(conn, doc, total, row[0], row[1])
        auth["captured_charge_id"] = doc["charge_id"]
        auth["last_updated_timestamp"] = now
        conn.execute("UPDATE charges SET captured = 1 WHERE id = ?", (rowid,))
        _save_doc(conn, rowid, auth)
    return doc


def update_charge(store: Store, charge_id: str, req: ChargePatch) -> dict[str, Any]:
    """Replace tags and/or attributes wholesale; fields absent from the body stay as they are."""
    with store.write() as conn:
        rowid, doc, _, _ = _load_charge(conn, charge_id)
        if req.tags is not None:
            doc["tags"] = req.tags
        if req.attributes is not None:
            doc["attributes"] = req.attributes
        doc["last_updated_timestamp"] = store.now_iso()
        _replace_labels(conn, "charge", rowid, doc["tags"], doc["attributes"])
        _save_doc(conn, rowid, doc)
    return doc


#: The network's words for the reason codes the demo and the practice endpoint use when the
#: request gives none (Visa, Mastercard, American Express, Discover).
CHARGEBACK_REASON_WORDS: dict[str, str] = {
    "10.4": "Other fraud: card-absent environment",
    "11.3": "No authorization",
    "12.5": "Incorrect amount",
    "12.6": "Duplicate processing",
    "13.1": "Merchandise or services not received",
    "13.3": "Not as described or defective merchandise",
    "4808": "Authorization-related chargeback",
    "4834": "Point-of-interaction error (duplicate)",
    "4837": "No cardholder authorization",
    "4853": "Cardholder dispute",
    "F29": "Card not present",
    "C08": "Goods or services not received",
    "UA02": "Fraud: card not present",
}


def chargeback_item(
    chargeback_id: str,
    *,
    cents: int,
    reason_code: str,
    reason: str | None,
    status: str,
    at: str,
    stage: str | None,
) -> dict[str, Any]:
    """One inner chargeback as the sandbox shows it (the spec shows no inner fields: these are
    the sandbox's choice, docs/api-assumptions.md)."""
    item: dict[str, Any] = {
        "chargeback_id": chargeback_id,
        "amount": money_out(cents),
        "reason_code": reason_code,
        "reason": reason or CHARGEBACK_REASON_WORDS.get(reason_code),
        "status": status,
        "chargeback_timestamp": at,
    }
    if stage is not None:
        item["stage"] = stage
    return {k: v for k, v in item.items() if v is not None}


def add_chargeback(store: Store, charge_id: str, req: ChargebackIn) -> dict[str, Any]:
    """`POST /sandbox/charges/{id}/chargeback` (sandbox only): a chargeback on a successful card
    sale or capture (or one more on a charge that has one), for tests and training. Its date is
    not in the future nor before the charge; its amount at most the charge's."""
    now = store.clock()
    with store.write() as conn:
        rowid, doc, amount_cents, _ = _load_charge(conn, charge_id)
        method = (doc.get("payment_method") or {}).get("method")
        if method != "card" or doc.get("charge_type") not in {"sale", "capture"}:
            raise Conflict(f"charge {charge_id} is not a card sale or capture")
        if doc.get("status") not in {"success", "chargeback"}:
            raise Conflict(f"charge {charge_id} is {doc.get('status')}: nothing to dispute")
        cents = (
            amount_cents if req.total_amount is None else _cents(req.total_amount, "total_amount")
        )
        if not 0 < cents <= amount_cents:
            raise FieldInvalid(
                "total_amount", f"must be more than 0 and at most {money_out(amount_cents)}"
            )
        try:
            when = parse_instant(req.chargeback_date) if req.chargeback_date else now
        except ValueError:
            raise FieldInvalid("chargeback_date", "must be an ISO 8601 date or timestamp") from None
        if when > now:
            raise FieldInvalid("chargeback_date", "must not be in the future")
        if when < parse_instant(doc["charge_timestamp"]):
            raise FieldInvalid("chargeback_date", "must not be before the charge")
        at = iso_ms(when)
        block = doc.get("chargebacks") or {"total_amount": 0, "items": []}
        block["items"] = [
            *block.get("items", []),
            chargeback_item(
                hex_id(),
                cents=cents,
                reason_code=req.reason_code,
                reason=req.reason,
                status=req.status,
                at=at,
                stage=req.stage,
            ),
        ]
        total = sum(cents_from_decimal(str(i["amount"])) for i in block["items"])
        block["total_amount"] = money_out(total)
        doc["chargebacks"] = block
        doc["status"] = "chargeback"
        doc["last_updated_timestamp"] = iso_ms(now)
        conn.execute("UPDATE charges SET status = 'chargeback' WHERE id = ?", (rowid,))
        _save_doc(conn, rowid, doc)
    return doc


def get_charge(store: Store, charge_id: str, expand: str | None) -> dict[str, Any]:
    with store.read() as conn:
        _, doc, _, _ = _load_charge(conn, charge_id)
        if expand in ("distributions", "all"):
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT DISTINCT distribution_id FROM distribution_items WHERE charge_id = ?",
                    (charge_id,),
                )
            ]
            dists = [distribution_out(conn, d, only_charge=charge_id) for d in ids]
            dists.sort(key=lambda d: (d["distribution_timestamp"], d["distribution_id"]))
            doc["distributions"] = dists
    return doc


# -- refunds ---------------------------------------------------------------------------------


def refund_doc(
    *,
    refund_id: str,
    charge: dict[str, Any],
    amount_cents: int,
    reason: str | None,
    ts: str,
    tags: list[str],
    attributes: dict[str, list[str]],
) -> dict[str, Any]:
    return {
        "refund_id": refund_id,
        "charge_id": charge["charge_id"],
        "account_id": charge["account_id"],
        "merchant_id": charge["merchant_id"],
        "total_amount": money_out(amount_cents),
        "status": "success",
        "reason": reason,
        "refund_timestamp": ts,
        "last_updated_timestamp": ts,
        "tags": tags,
        "attributes": attributes,
    }


def create_refund(store: Store, req: RefundCreate) -> dict[str, Any]:
    """Refund all or part of what is left of a successful sale or capture."""
    requested = None if req.total_amount is None else _cents(req.total_amount, "total_amount")
    with store.write() as conn:
        rowid, charge, amount, refunded = _load_charge(conn, req.charge_id)
        if charge["charge_type"] not in REFUNDABLE_TYPES:
            raise Conflict(
                f"charge {req.charge_id} is a {charge['charge_type']}; only sales and captures"
                " can be refunded"
            )
        if charge["status"] != "success":
            raise Conflict(f"charge {req.charge_id} is {charge['status']}; it cannot be refunded")
        left = amount - refunded
        if left == 0:
            raise Conflict(f"charge {req.charge_id} has already been refunded in full")
        cents = left if requested is None else requested
        if cents == 0:
            raise FieldInvalid("total_amount", "must be greater than 0")
        if cents > left:
            raise FieldInvalid(
                "total_amount", f"exceeds what is left to refund ({money_out(left)})"
            )
        now = store.now_iso()
        doc = refund_doc(
            refund_id=hex_id(),
            charge=charge,
            amount_cents=cents,
            reason=req.reason,
            ts=now,
            tags=req.tags,
            attributes=req.attributes,
        )
        cursor = conn.execute(
            "INSERT INTO refunds VALUES (NULL, ?, ?, ?, ?, ?, ?)",
            (doc["refund_id"], charge["charge_id"], charge["account_id"], now, cents, dumps(doc)),
        )
        _replace_labels(conn, "refund", int(cursor.lastrowid or 0), req.tags, req.attributes)
        charge["reversal_flag"] = refunded + cents == amount
        charge["last_updated_timestamp"] = now
        conn.execute(
            "UPDATE charges SET refunded_cents = ? WHERE id = ?", (refunded + cents, rowid)
        )
        _save_doc(conn, rowid, charge)
    return doc


def update_refund(store: Store, refund_id: str, req: ChargePatch) -> dict[str, Any]:
    """Replace a refund's tags and/or attributes, as for a charge (the spec accepts both on
    refund update); fields absent from the body stay as they are."""
    with store.write() as conn:
        row = conn.execute(
            "SELECT id, doc FROM refunds WHERE refund_id = ?", (refund_id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"refund {refund_id} not found")
        rowid, doc = int(row[0]), loads_doc(row[1])
        if req.tags is not None:
            doc["tags"] = req.tags
        if req.attributes is not None:
            doc["attributes"] = req.attributes
        doc["last_updated_timestamp"] = store.now_iso()
        _replace_labels(conn, "refund", rowid, doc.get("tags", []), doc.get("attributes", {}))
        conn.execute("UPDATE refunds SET doc = ? WHERE id = ?", (dumps(doc), rowid))
    return doc


def get_refund(store: Store, refund_id: str) -> dict[str, Any]:
    with store.read() as conn:
        row = conn.execute("SELECT doc FROM refunds WHERE refund_id = ?", (refund_id,)).fetchone()
    if row is None:
        raise NotFound(f"refund {refund_id} not found")
    return loads_doc(row[0])


# -- distributions ---------------------------------------------------------------------------


def totals(by_category: dict[str, int]) -> dict[str, int | float]:
    """`total_amounts` of a distribution from cents per category; net = sales minus the rest."""
    amounts = {c: by_category.get(c, 0) for c in CATEGORIES}
    net = amounts["sales"] - sum(amounts[c] for c in CATEGORIES[1:])
    return {**{c: money_out(v) for c, v in amounts.items()}, "net": money_out(net)}


def distribution_out(
    conn: sqlite3.Connection, distribution_id: str, *, only_charge: str | None = None
) -> dict[str, Any]:
    """A distribution with its items (all of them, or only those of one charge)."""
    row = conn.execute(
        "SELECT doc FROM distributions WHERE distribution_id = ?", (distribution_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"distribution {distribution_id} not found")
    doc = loads_doc(row[0])
    sql = (
        "SELECT item_id, charge_id, category, amount_cents FROM distribution_items"
        " WHERE distribution_id = ?"
    )
    params: tuple[str, ...] = (distribution_id,)
    if only_charge is not None:
        sql += " AND charge_id = ?"
        params += (only_charge,)
    doc["items"] = [
        {"item_id": i, "charge_id": c, "category": cat, "amount": money_out(a)}
        for i, c, cat, a in conn.execute(sql + " ORDER BY seq", params)
    ]
    return doc


def get_distribution(store: Store, distribution_id: str) -> dict[str, Any]:
    with store.read() as conn:
        return distribution_out(conn, distribution_id)


def distribute(store: Store, charge_id: str, distribution_id: str | None) -> dict[str, Any]:
    """Add a settled charge to its account's open distribution (or the one named)."""
    with store.write() as conn:
        _, charge, amount, _ = _load_charge(conn, charge_id)
        category = {"chargeback": "chargebacks", "return": "returns"}.get(charge["status"])
        if category is None:
            if charge["status"] != "success" or charge["charge_type"] not in REFUNDABLE_TYPES:
                raise Conflict(
                    f"charge {charge_id} is a {charge['status']} {charge['charge_type']}; only"
                    " settled sales and captures can be distributed"
                )
            category = "sales"
        now = store.now_iso()
        if distribution_id is not None:
            row = conn.execute(
                "SELECT account_id, status FROM distributions WHERE distribution_id = ?",
                (distribution_id,),
            ).fetchone()
            if row is None:
                raise NotFound(f"distribution {distribution_id} not found")
            if row[0] != charge["account_id"]:
                raise Conflict(f"distribution {distribution_id} belongs to another account")
            if row[1] != "open":
                raise Conflict(f"distribution {distribution_id} is {row[1]}; it takes no items")
        else:
            row = conn.execute(
                "SELECT distribution_id FROM distributions WHERE account_id = ? AND status = 'open'"
                " ORDER BY ts DESC LIMIT 1",
                (charge["account_id"],),
            ).fetchone()
            if row is None:
                distribution_id = hex_id()
                doc = {
                    "distribution_id": distribution_id,
                    "account_id": charge["account_id"],
                    "merchant_id": charge["merchant_id"],
                    "status": "open",
                    "distribution_timestamp": now,
                    "total_amounts": totals({}),
                }
                conn.execute(
                    "INSERT INTO distributions VALUES (?, ?, ?, 'open', ?, ?)",
                    (distribution_id, charge["account_id"], charge["merchant_id"], now, dumps(doc)),
                )
            else:
                distribution_id = str(row[0])
        if conn.execute(
            "SELECT 1 FROM distribution_items WHERE distribution_id = ? AND charge_id = ?"
            " AND category = ?",
            (distribution_id, charge_id, category),
        ).fetchone():
            raise Conflict(f"charge {charge_id} is already in distribution {distribution_id}")
        seq = conn.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM distribution_items WHERE distribution_id = ?",
            (distribution_id,),
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO distribution_items VALUES (?, ?, ?, ?, ?, ?)",
            (hex_id(), distribution_id, charge_id, category, amount, seq),
        )
        sums = dict(
            conn.execute(
                "SELECT category, SUM(amount_cents) FROM distribution_items"
                " WHERE distribution_id = ? GROUP BY category",
                (distribution_id,),
            ).fetchall()
        )
        doc = json.loads(
            conn.execute(
                "SELECT doc FROM distributions WHERE distribution_id = ?", (distribution_id,)
            ).fetchone()[0]
        )
        doc["total_amounts"] = totals(sums)
        conn.execute(
            "UPDATE distributions SET doc = ? WHERE distribution_id = ?",
            (dumps(doc), distribution_id),
        )
        return distribution_out(conn, distribution_id)


# -- card tokens -----------------------------------------------------------------------------


def _token_doc(
    account_id: str,
    card_output: dict[str, Any],
    expiration: str,
    reason: str | None,
    now: Any,
    token_expiration: str | None = None,
) -> dict[str, Any]:
    token_id = prefixed_id("ct_")
    return {
        "token_id": token_id,
        "account_id": account_id,
        "payment_method": {
            "method": "card",
            "type": card_output["type"],
            "card_number": card_output["card_number"],
            "expiration_date": expiration,
            "contact": card_output["contact"],
        },
        "fraud_score": int(token_id[-2:], 36) % 30,
        "reason": reason,
        "created_timestamp": iso_ms(now),
        "token_expiration_date": token_expiration or iso_ms(add_years(now, 3)),
        "processor_messages": dict(PASSED),
    }


def future_instant(value: str, field: str, now: Any) -> str:
    try:
        moment = parse_instant(value)
    except ValueError as exc:
        raise FieldInvalid(field, "must be an ISO 8601 date or timestamp") from exc
    if moment <= now:
        raise FieldInvalid(field, "must be in the future")
    return iso_ms(moment)


def create_token(store: Store, req: TokenCreate) -> dict[str, Any]:
    pm = req.payment_method
    if pm.method not in (None, "card"):
        raise FieldInvalid(f"{PM}.method", "tokens hold cards only (method card)")
    now = store.clock()
    checked, expiration = check_card(pm, now)
    expiry = None
    if req.token_expiration_date is not None:
        expiry = future_instant(req.token_expiration_date, "token_expiration_date", now)
    account = store.get_account(req.account_id)
    if account["status"] != "approved":
        raise Conflict(
            f"account {req.account_id} is {account['status']}; only approved accounts store cards"
        )
    doc = _token_doc(req.account_id, checked.output, expiration, pm.reason, now, expiry)
    store.save_token(doc, new=True)
    return doc


def update_token(store: Store, token_id: str, req: TokenUpdate) -> dict[str, Any]:
    doc = store.get_token(token_id)
    now = store.clock()
    if req.payment_method is not None:
        if req.payment_method.expiration_date is not None:
            doc["payment_method"]["expiration_date"] = check_expiration(
                req.payment_method.expiration_date, f"{PM}.expiration_date", now
            )
        if req.payment_method.contact is not None:
            contact = req.payment_method.contact.model_dump(exclude_none=True)
            doc["payment_method"]["contact"] = {**doc["payment_method"]["contact"], **contact}
    if req.token_expiration_date is not None:
        doc["token_expiration_date"] = future_instant(
            req.token_expiration_date, "token_expiration_date", now
        )
    store.save_token(doc, new=False)
    return doc
