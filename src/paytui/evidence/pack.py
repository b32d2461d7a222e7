"""The evidence pack of one chargeback: its case (`paytui.evidence.case.read_case`) arranged by
what its reason asks for, with a checklist of each item present, missing or not applicable
(`build_pack`). docs/evidence.md is the user's view.

Only the service's data and paytui's own journal go in, every text through the one sanitiser
(`clean`); the card is shown as its brand and last four only, and a token's id never (a stored
card's id charges it). `build_pack` is pure: the same case read twice gives the same pack but
for `built_at`.

No Textual: the command line and the app's screen render what `build_pack` returns
(`paytui.evidence.render`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from paytui.evidence.case import (
    DEFAULT_ITEM_KEYS,
    Case,
    NoChargeback,
    brand_of,
    clean,
    read_case,
)
from paytui.evidence.case import money as _money
from paytui.evidence.case import when as _time
from paytui.evidence.needs import DISPUTES, ITEMS, dispute_of, sections_for
from paytui.evidence.priors import ELEMENT_WORDS, element_values

if TYPE_CHECKING:
    from paytui.api.models import Charge, ChargebackItem
    from paytui.reason_codes import ReasonCode

__all__ = [
    "DEFAULT_ITEM_KEYS",
    "MISSING",
    "NOT_APPLICABLE",
    "PRESENT",
    "Case",
    "CheckItem",
    "NoChargeback",
    "Pack",
    "PackSection",
    "Score",
    "build_pack",
    "charge_score",
    "clean",
    "read_case",
]

PRESENT, MISSING, NOT_APPLICABLE = "present", "missing", "not_applicable"
RECURRING_TAGS = frozenset({"recurring", "subscription"})

# --------------------------------------------------------------------------------------------
# The pack
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckItem:
    key: str
    label: str
    status: str
    required: bool
    #: What is there (present), or what is missing / why it does not apply, in plain words.
    detail: str


@dataclass(frozen=True)
class PackSection:
    key: str
    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class PriorRow:
    charge_id: str
    charge_timestamp: str
    amount: str
    same: tuple[str, ...]
    matches: tuple[str, ...]
    ce3: bool


@dataclass(frozen=True)
class Pack:
    charge_id: str
    built_at: datetime
    title: str
    case_lines: tuple[str, ...]
    checklist: tuple[CheckItem, ...]
    sections: tuple[PackSection, ...]
    #: The prior-charge finder's candidates, best first (empty when not a fraud case).
    priors: tuple[PriorRow, ...]
    priors_summary: str | None
    priors_best: tuple[str, ...]
    reason_code: str | None
    category: str | None
    dispute: str | None

    @property
    def missing(self) -> tuple[CheckItem, ...]:
        return tuple(item for item in self.checklist if item.status == MISSING)

    @property
    def missing_required(self) -> tuple[CheckItem, ...]:
        return tuple(item for item in self.missing if item.required)

    @property
    def score(self) -> Score:
        """The checklist's score: present of applicable, and the required items missing."""
        return score_of(self.checklist)


#: Checklist items whose status needs a read beyond the charge itself (its refunds, the
#: conversations, the journal, a search): `charge_score` leaves them out and counts them.
READ_ITEMS = frozenset({"priors", "communications", "refunds", "credit", "other_charge", "history"})


@dataclass(frozen=True)
class Score:
    """A checklist's score: items present, items missing (not applicable ones are neither),
    the required ones missing, and (`charge_score`) how many were left to the pack's reads."""

    present: int
    missing: int
    required_missing: tuple[str, ...]
    unread: int = 0

    def line(self) -> str:
        """ "checklist 6/9" (+ " from the charge, 4 more in the pack"), then what is required
        and missing: one short phrase for the fight-or-accept line and the pack's header."""
        words = f"checklist {self.present}/{self.present + self.missing}"
        if self.unread:
            words += f" from the charge, {self.unread} more in the pack"
        if self.required_missing:
            words += f"; missing (required): {', '.join(self.required_missing)}"
        return words


def _short(label: str) -> str:
    """An item's label without its parenthesis: "Proof of delivery"."""
    return label.split(" (", 1)[0]


def score_of(items: Iterable[CheckItem], unread: int = 0) -> Score:
    items = list(items)
    return Score(
        present=sum(1 for item in items if item.status == PRESENT),
        missing=sum(1 for item in items if item.status == MISSING),
        required_missing=tuple(
            _short(item.label) for item in items if item.status == MISSING and item.required
        ),
        unread=unread,
    )


def _attribute_lines(charge: Charge) -> list[str]:
    attributes = charge.attributes or {}
    return [
        f"Attribute {clean(key)}: {', '.join(clean(v) for v in attributes[key]) or '—'}"
        for key in sorted(attributes)
    ]


def _values(charge: Charge, keys: Iterable[str]) -> list[tuple[str, str]]:
    attributes = charge.attributes or {}
    return [
        (key, ", ".join(clean(v) for v in attributes[key])) for key in keys if attributes.get(key)
    ]


def _card(charge: Charge) -> str | None:
    if charge.method != "card":
        return None
    brand = brand_of(charge)
    last4 = charge.last4
    if not last4:
        return None
    return f"{clean(brand or 'card')} ending {clean(last4)}"


class _Evaluator:
    """Each checklist item's status and words for one case."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.charge = case.charge
        self.elements = element_values(self.charge, case.element_keys, raw=True)

    def item(self, key: str, required: bool) -> CheckItem:
        status, detail = getattr(self, f"_{key}")()
        return CheckItem(key, ITEMS[key].label, status, required, detail)

    def _bank(self) -> bool:
        return self.charge.method == "bank_account"

    def _authorization(self) -> tuple[str, str]:
        charge = self.charge
        if self._bank():
            return NOT_APPLICABLE, "a bank-account charge has no card authorization"
        parts = []
        if charge.authorization_code:
            parts.append(f"approval code {clean(charge.authorization_code)}")
        if charge.result_code:
            parts.append(f"result {clean(charge.result_code)}")
        if not parts:
            return MISSING, "the service shows no approval code and no result for the charge"
        return PRESENT, ", ".join(parts)

    def _processor(self, field_name: str, words: str) -> tuple[str, str]:
        if self._bank():
            return NOT_APPLICABLE, f"a bank-account charge has no {words} check"
        messages = self.charge.processor_messages
        value = getattr(messages, field_name, None) if messages is not None else None
        if not value:
            return MISSING, f"the service shows no {words} result for the charge"
        return PRESENT, clean(value)

    def _avs(self) -> tuple[str, str]:
        return self._processor("avs_response", "address verification (AVS)")

    def _cvv(self) -> tuple[str, str]:
        return self._processor("cv_response", "card security code (CVV)")

    def _card(self) -> tuple[str, str]:
        if self._bank():
            return NOT_APPLICABLE, "paid from a bank account"
        card = _card(self.charge)
        if card is None:
            return MISSING, "the service shows no card brand or last four"
        return PRESENT, card

    def _contact(self) -> tuple[str, str]:
        name = self.charge.contact_name
        if not name:
            return MISSING, "the charge shows no payer name"
        email = self.elements.get("email")
        return PRESENT, clean(name) + (f", {', '.join(sorted(email))}" if email else "")

    def _element(self, element: str) -> tuple[str, str]:
        values = self.elements.get(element)
        if values:
            return PRESENT, ", ".join(clean(v) for v in sorted(values))
        keys = ", ".join(self.case.element_keys.get(element, ()))
        return MISSING, f"no {ELEMENT_WORDS[element]}: the charge has no attribute {keys}"

    def _ip(self) -> tuple[str, str]:
        return self._element("ip")

    def _device(self) -> tuple[str, str]:
        return self._element("device")

    def _account(self) -> tuple[str, str]:
        return self._element("account")

    def _email(self) -> tuple[str, str]:
        return self._element("email")

    def _shipping(self) -> tuple[str, str]:
        return self._element("shipping")

    def _priors(self) -> tuple[str, str]:
        priors = self.case.priors
        if priors is None:
            return NOT_APPLICABLE, "looked for on fraud cases only"
        summary = clean(priors.summary())
        return (PRESENT if priors.ce3_met else MISSING), summary

    def _keyed(self, item: str, words: str) -> tuple[str, str]:
        keys = self.case.item_keys.get(item, ())
        found = _values(self.charge, keys)
        if found:
            return PRESENT, "; ".join(f"{clean(k)}: {v}" for k, v in found)
        return MISSING, f"{words}: the charge has no attribute {', '.join(keys)}"

    def _delivery(self) -> tuple[str, str]:
        status, detail = self._keyed("delivery", "no proof of delivery")
        if status == MISSING and "shipping" not in self.elements:
            detail += " and no shipping address"
        return status, detail

    def _description(self) -> tuple[str, str]:
        charge = self.charge
        if charge.line_items:
            count = len(charge.line_items)
            return PRESENT, f"{count} line item{'s' if count != 1 else ''}"
        status, detail = self._keyed("description", "nothing says what was sold")
        if status == MISSING and charge.invoice_number:
            return PRESENT, f"invoice {clean(charge.invoice_number)}"
        if status == MISSING:
            detail += " (nor line items or an invoice number)"
        return status, detail

    def _policy(self) -> tuple[str, str]:
        status, detail = self._keyed("policy", "no policy the customer agreed to")
        if status == MISSING:
            detail += "; attach the policy as the customer saw it"
        return status, detail

    def _recurring(self) -> tuple[str, str]:
        tags = {tag.casefold() for tag in self.charge.tags}
        marked = sorted(RECURRING_TAGS & tags)
        status, detail = self._keyed("recurring", "nothing marks the charge as recurring")
        if status == MISSING and marked:
            return PRESENT, f"tag {', '.join(marked)}"
        if status == MISSING:
            detail += f" nor a tag {', '.join(sorted(RECURRING_TAGS))}"
        return status, detail

    def _communications(self) -> tuple[str, str]:
        conversations = self.case.conversations
        if conversations is None:
            return MISSING, self.case.notes.get("communications", "the conversations were not read")
        if not conversations:
            return MISSING, "no conversation with the customer about this charge"
        theirs = sum(1 for c in conversations for entry in c.entries if entry.side == "customer")
        count = len(conversations)
        return PRESENT, (
            f"{count} conversation{'s' if count != 1 else ''},"
            f" {theirs} message{'s' if theirs != 1 else ''} from the customer"
        )

    def _refunds(self) -> tuple[str, str]:
        refunds = self.case.refunds
        if refunds is None:
            return MISSING, self.case.notes.get("refunds", "the refunds were not read")
        if not refunds:
            return PRESENT, "none: the charge was not refunded"
        total = sum((r.amount or Decimal(0) for r in refunds), Decimal(0))
        count = len(refunds)
        return PRESENT, f"{count} refund{'s' if count != 1 else ''}, {_money(total)}"

    def _credit(self) -> tuple[str, str]:
        refunds = self.case.refunds
        if refunds is None:
            return MISSING, self.case.notes.get("refunds", "the refunds were not read")
        if not refunds:
            return MISSING, (
                "no refund of this charge is listed: the credit the customer expects was not"
                " made (refund it, or attach why none was due)"
            )
        return self._refunds()

    def _other_charge(self) -> tuple[str, str]:
        duplicates = self.case.duplicates
        if duplicates:
            first = duplicates[0]
            return PRESENT, (
                f"charge {clean(first.charge_id)} of {_time(first.charge_timestamp)},"
                f" approval code {clean(first.authorization_code or '—')}"
            )
        if self.case.refunds:
            return PRESENT, "the charge was refunded (see Refunds)"
        if duplicates is None:
            return MISSING, self.case.notes.get("other_charge", "the other charge was not read")
        return MISSING, (
            "no other charge of the same card and amount within 10 minutes, and no refund:"
            " nothing shows the two charges are distinct or the other one refunded"
        )

    def _distributions(self) -> tuple[str, str]:
        distributions = self.charge.distributions
        if distributions is None:
            return MISSING, "the service did not expand the charge's distributions"
        if not distributions:
            return PRESENT, "in no payout"
        count = len(distributions)
        return PRESENT, f"in {count} payout{'s' if count != 1 else ''}"

    def _history(self) -> tuple[str, str]:
        rows = self.case.history
        if rows is None:
            return MISSING, self.case.notes.get("history", "the journal was not read")
        if not rows:
            return PRESENT, "nothing was done about the charge in paytui"
        count = len(rows)
        return PRESENT, f"{count} entr{'ies' if count != 1 else 'y'}"


def _charge_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    charge = case.charge
    messages = charge.processor_messages
    if messages is None:
        processor = "none shown"
    else:
        processor = f"AVS {clean(messages.avs_response or '—')}"
        processor += f", CVV {clean(messages.cv_response or '—')}"
        processor += f", {clean(messages.message)}" if messages.message else ""
    lines = [
        f"Charge {clean(charge.charge_id)} of {_time(charge.charge_timestamp)}:"
        f" {_money(charge.total_amount)}, {clean(charge.charge_type or 'type not shown')},"
        f" status {clean(charge.status or '—')}",
        f"Result: {clean(charge.result_code or '—')} ({clean(charge.result_text or 'no text')});"
        f" approval code {clean(charge.authorization_code or '—')}",
    ]
    if charge.original_charge_id:
        lines.append(f"Captures the authorization {clean(charge.original_charge_id)}")
    lines.append(f"Processor messages: {processor}")
    lines.append(f"Card: {_card(charge) or 'not a card, or not shown'}")
    lines.append(
        f"Account {clean(charge.account_id or '—')}, merchant {clean(charge.merchant_id or '—')}"
    )
    if charge.invoice_number or charge.po_number:
        lines.append(
            f"Invoice {clean(charge.invoice_number or '—')}, PO {clean(charge.po_number or '—')}"
        )
    lines.append(f"Tags: {', '.join(clean(t) for t in charge.tags) or 'none'}")
    return lines + _attribute_lines(charge)


def _customer_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    lines = [f"Name: {clean(case.charge.contact_name) or 'not shown'}"]
    for element, found in evaluator.elements.items():
        words = ELEMENT_WORDS[element][:1].upper() + ELEMENT_WORDS[element][1:]
        lines.append(f"{words}: {', '.join(clean(v) for v in sorted(found))}")
    return lines


def _priors_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    priors = case.priors
    if priors is None:
        return ["Not looked for (a fraud case's evidence)."]
    lines = [clean(priors.summary())]
    if priors.window_from and priors.window_to:
        lines.append(
            f"Window: {priors.window_from:%Y-%m-%d} to {priors.window_to:%Y-%m-%d}"
            " (120 to 365 days before the disputed charge)"
        )
    for prior in priors.priors:
        matches = ", ".join(ELEMENT_WORDS[m] for m in prior.matches) or "nothing else"
        lines.append(
            f"{clean(prior.charge_id)} of {_time(prior.charge_timestamp)},"
            f" {_money(prior.amount)}: same {' and '.join(prior.same)}; matches {matches};"
            f" {'counts' if prior.ce3 else 'does not count'} for CE 3.0"
        )
    return lines + [f"Note: {clean(note)}" for note in priors.notes]


def _communications_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    lines: list[str] = []
    for conversation in case.conversations or []:
        lines.append(
            f"Conversation {clean(conversation.conversation_id)}"
            f" ({clean(conversation.status or 'status not shown')})"
        )
        for entry in conversation.entries:
            who = clean(entry.who or entry.side or "someone")
            side = f" ({entry.side})" if entry.side and entry.side != entry.who else ""
            lines.append(f"  {_time(entry.at)} {who}{side}: {clean(entry.text)}")
        lines += [f"  Note: {clean(note)}" for note in conversation.notes]
    return lines


def _refund_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    return [
        f"Refund {clean(refund.refund_id)} of {_time(refund.at)}: {_money(refund.amount)}"
        f" ({clean(refund.status or 'status not shown')})"
        for refund in case.refunds or []
    ]


def _money_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    charge = case.charge
    lines = _refund_lines(case, evaluator)
    if case.refunds == ():
        lines.append("No refund is listed for the charge.")
    if charge.distributions == []:
        lines.append("The charge is in no payout.")
    for distribution in charge.distributions or []:
        items = [
            f"{clean(item.category or '—')} {_money(item.amount)}"
            for item in distribution.items or []
            if item.charge_id in (None, charge.charge_id)
        ]
        lines.append(
            f"Payout {clean(distribution.distribution_id)} of"
            f" {_time(distribution.distribution_timestamp)}"
            f" ({clean(distribution.status or '—')}): {', '.join(items) or 'no item shown'}"
        )
    return lines


def _history_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    lines = ["Nothing was done about the charge in paytui."] if case.history == [] else []
    for row in case.history or []:
        line = f"{_time(row.time)} {clean(row.operation)} {_money(row.amount)}"
        line += f": {clean(row.outcome)}"
        line += f" by {clean(row.agent)}" if row.agent else ""
        line += f" ({clean(row.reason)})" if row.reason else ""
        lines.append(line)
    return lines


def _keyed_lines(case: Case, *items: str) -> list[str]:
    keys = [key for item in items for key in case.item_keys.get(item, ())]
    return [f"{clean(key)}: {found}" for key, found in _values(case.charge, keys)]


def _delivery_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    lines = _keyed_lines(case, "delivery")
    shipping = evaluator.elements.get("shipping")
    if shipping:
        lines.append(f"Shipping address: {', '.join(clean(v) for v in sorted(shipping))}")
    return lines


def _description_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    lines = [
        "Line item: " + ", ".join(f"{clean(k)} {clean(v)}" for k, v in sorted(item.items()))
        for item in case.charge.line_items or []
    ]
    return lines + _keyed_lines(case, "description")


def _policy_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    return _keyed_lines(case, "policy")


def _recurring_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    lines = _keyed_lines(case, "recurring", "policy")
    return [*lines, f"Tags: {', '.join(clean(t) for t in case.charge.tags) or 'none'}"]


def _other_charge_lines(case: Case, evaluator: _Evaluator) -> list[str]:
    return [
        f"Charge {clean(row.charge_id)} of {_time(row.charge_timestamp)}:"
        f" {_money(row.total_amount)}, approval code {clean(row.authorization_code or '—')},"
        f" status {clean(row.status or '—')}"
        for row in case.duplicates or []
    ]


#: The lines of each section (`needs.Section.key`), before its missing items.
_SECTION_LINES: dict[str, Callable[[Case, _Evaluator], list[str]]] = {
    "charge": _charge_lines,
    "customer": _customer_lines,
    "priors": _priors_lines,
    "communications": _communications_lines,
    "money": _money_lines,
    "credit": _refund_lines,
    "history": _history_lines,
    "delivery": _delivery_lines,
    "description": _description_lines,
    "policy": _policy_lines,
    "recurring": _recurring_lines,
    "other_charge": _other_charge_lines,
}


def _checklist(
    case: Case, evaluator: _Evaluator, skip: Callable[[str], bool] = lambda key: False
) -> dict[str, CheckItem]:
    """Each item of the case's sections once (required if any section requires it), in the
    sections' order; `skip(key)` leaves an item out."""
    checklist: dict[str, CheckItem] = {}
    for section in sections_for(case.kind):
        for key, required in section.items:
            if skip(key):
                continue
            earlier = checklist.get(key)
            if earlier is None or (required and not earlier.required):
                checklist[key] = evaluator.item(key, required)
    return checklist


def charge_score(
    charge: Charge,
    chargeback: ChargebackItem | None,
    reason: ReasonCode | None,
    *,
    item_keys: Mapping[str, Sequence[str]] | None = None,
) -> Score:
    """The checklist score of a chargeback from its charge alone (what a list row shows: no
    read of refunds, conversations, journal or prior charges; those are counted as `unread`).
    `reason`: its `paytui.reason_codes.ReasonCode` (None: not in the table)."""
    case = Case(charge=charge, chargeback=chargeback, reason=reason)
    if item_keys is not None:
        case.item_keys = item_keys
    unread: set[str] = set()

    def skip(key: str) -> bool:
        later = key in READ_ITEMS or (key == "distributions" and charge.distributions is None)
        if later:
            unread.add(key)
        return later

    checklist = _checklist(case, _Evaluator(case), skip)
    return score_of(checklist.values(), unread=len(unread))


def build_pack(case: Case, built_at: datetime) -> Pack:
    """The pack of `case`, arranged by what its reason asks for (`needs.sections_for`)."""
    charge = case.charge
    evaluator = _Evaluator(case)
    sections: list[PackSection] = []
    checklist = _checklist(case, evaluator)
    for section in sections_for(case.kind):
        lines = _SECTION_LINES[section.key](case, evaluator)
        for key, _ in section.items:
            item = checklist[key]
            if item.status != PRESENT:
                lines.append(
                    f"{'Missing' if item.status == MISSING else 'Not applicable'}: {item.detail}"
                )
        sections.append(
            PackSection(section.key, section.title, tuple(lines) or ("Nothing shown.",))
        )
    chargeback = case.chargeback
    reason = case.reason
    case_lines: list[str] = []
    if reason is not None:
        case_lines.append(
            f"Reason: {clean(reason.code)} {clean(reason.words)}"
            f" ({reason.network}, {reason.category})"
        )
        kind = dispute_of(reason)
        case_lines.append(
            f"Judged on: {DISPUTES[kind]}" if kind else "Judged on: its category (every section)"
        )
    else:
        code = getattr(chargeback, "reason_code", None)
        words = getattr(chargeback, "reason", None)
        case_lines.append(
            "Reason: "
            + (" ".join(clean(p) for p in (code, words) if p) or "not shown")
            + " (a reason paytui does not know: every section is shown)"
        )
    if chargeback is not None:
        stage = (chargeback.model_extra or {}).get("stage")
        case_lines.append(
            f"Chargeback {clean(chargeback.chargeback_id or '—')} of"
            f" {_time(chargeback.chargeback_timestamp)}: {_money(chargeback.amount)},"
            f" status {clean(chargeback.status or 'not shown')}"
            + (f", stage {clean(stage)}" if stage else "")
        )
    case_lines.append(
        f"Disputed charge: {clean(charge.charge_id)} of {_time(charge.charge_timestamp)},"
        f" {_money(charge.total_amount)}, {clean(charge.contact_name) or 'payer not shown'}"
    )
    priors = case.priors
    return Pack(
        charge_id=charge.charge_id,
        built_at=built_at.astimezone(UTC).replace(microsecond=0),
        title=f"Evidence pack: chargeback on charge {clean(charge.charge_id)}",
        case_lines=tuple(case_lines),
        checklist=tuple(checklist.values()),
        sections=tuple(sections),
        priors=tuple(
            PriorRow(
                charge_id=prior.charge_id,
                charge_timestamp=prior.charge_timestamp.astimezone(UTC).isoformat(),
                amount=_money(prior.amount),
                same=prior.same,
                matches=prior.matches,
                ce3=prior.ce3,
            )
            for prior in (priors.priors if priors is not None else [])
        ),
        priors_summary=clean(priors.summary()) if priors is not None else None,
        priors_best=tuple(p.charge_id for p in priors.best) if priors is not None else (),
        reason_code=clean(getattr(chargeback, "reason_code", None)) or None,
        category=reason.category if reason is not None else None,
        dispute=case.kind,
    )
