"""The service's word on a money answer, read whole: ONE table from what it answered to an outcome.

A 2xx says the service read the request; what it did is in the answer's own ``status`` (and, for
a charge, its ``result_code``). The spec names one word only ("success is reported with status
`success`"); everything else here is paytui's reading of words a service may plausibly use,
written down in docs/api-assumptions.md ("The service's word on a money answer"). Four outcomes:

- ``succeeded``: a word known to mean done. Only these become a success in the journal.
- ``declined``: a word known to mean no — nothing moved, final ("the service declined: its
  reason"). The journal records it ``failed`` with the service's reason and the id it answered.
- ``pending``: accepted, not finished (``pending``, ``processing``…, or an HTTP 202 whatever the
  word). The journal's ``awaiting_service``; read back until the service settles it.
- ``unknown``: a word paytui cannot place, or words that contradict each other. Never assumed:
  the entry is ``unknown`` and read back, and the read-back is judged by this same table.

Which operations are judged: those whose answer is the money object itself (`JUDGED`: a new
charge, a capture, a refund). Other operations' ``status`` describes the object, not the answer
(an account's boarding status, a distribution's open/paid, a conversation's open/closed), so
their answer is taken as the service's "done" as before, and their read-backs prove the rest.

The executor judges the answer it got (`judge`), reconcile judges what a read-back found
(`judge_found`): the same table for both, so a refund found ``failed`` is never a success.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from paytui.actions.read_backs import ReadBack

__all__ = [
    "DECLINED",
    "JUDGED",
    "PENDING",
    "STATUS_OUTCOMES",
    "SUCCEEDED",
    "UNKNOWN",
    "Judgement",
    "Rules",
    "Verdict",
    "judge",
    "judge_found",
]

Verdict = Literal["succeeded", "declined", "pending", "unknown"]
SUCCEEDED: Verdict = "succeeded"
DECLINED: Verdict = "declined"
PENDING: Verdict = "pending"
UNKNOWN: Verdict = "unknown"

#: The status word of every judged answer (lower-cased, spaces and dashes as ``_``) -> outcome.
#: A word not here is ``unknown``: read back, never assumed.
STATUS_OUTCOMES: dict[str, Verdict] = {
    # done — the spec's word first, then the words services use for the same
    "success": SUCCEEDED,
    "succeeded": SUCCEEDED,
    "successful": SUCCEEDED,
    "approved": SUCCEEDED,
    "completed": SUCCEEDED,
    "complete": SUCCEEDED,
    "settled": SUCCEEDED,
    # no — nothing moved, final
    "declined": DECLINED,
    "failed": DECLINED,
    "failure": DECLINED,
    "error": DECLINED,
    "rejected": DECLINED,
    "refused": DECLINED,
    "denied": DECLINED,
    "voided": DECLINED,
    "void": DECLINED,
    "canceled": DECLINED,
    "cancelled": DECLINED,
    # accepted, not finished
    "pending": PENDING,
    "processing": PENDING,
    "in_progress": PENDING,
    "queued": PENDING,
    "submitted": PENDING,
    "accepted": PENDING,
    "received": PENDING,
}

#: A charge's ``result_code`` (the spec's observed values, and the sandbox's decline) -> outcome.
CHARGE_RESULT_CODES: dict[str, Verdict] = {
    "approved": SUCCEEDED,
    "authorized": SUCCEEDED,
    "processorpendingachsale": SUCCEEDED,  # a bank sale: the spec reports it with success
    "declined": DECLINED,
}
#: A capture answers a new charge with result_code Approved (the spec); "Authorized" would be the
#: authorization itself, not a capture of it: not placed.
CAPTURE_RESULT_CODES: dict[str, Verdict] = {"approved": SUCCEEDED, "declined": DECLINED}
#: What a charge that went through may show later, when a read-back finds it (the spec's
#: chargeback and return, and the words of a refunded one): it was made.
CHARGE_LATER: dict[str, Verdict] = {
    "chargeback": SUCCEEDED,
    "return": SUCCEEDED,
    "refunded": SUCCEEDED,
    "partially_refunded": SUCCEEDED,
}


@dataclass(frozen=True)
class Rules:
    """How one operation's answer is judged: the status words (`STATUS_OUTCOMES`, with this
    operation's own `statuses` over them), its result codes, and what an answer with neither
    means (`no_status`)."""

    result_codes: Mapping[str, Verdict]
    #: The outcome of a well-formed answer that carries no status (and no result code).
    no_status: Verdict
    statuses: Mapping[str, Verdict] = field(default_factory=dict)

    def status(self, word: str) -> Verdict:
        return self.statuses.get(word) or STATUS_OUTCOMES.get(word, UNKNOWN)


#: Operations whose answer is the money object, judged by the table; any other operation's 2xx
#: is its "done" (its status word, if any, describes the object).
JUDGED: dict[str, Rules] = {
    # The spec: "a charge that is processed returns status and result_code". Without both, the
    # answer says nothing paytui can place: read back.
    "charge": Rules(
        CHARGE_RESULT_CODES, no_status=UNKNOWN, statuses={**CHARGE_LATER, "authorized": SUCCEEDED}
    ),
    "capture": Rules(CAPTURE_RESULT_CODES, no_status=UNKNOWN, statuses=CHARGE_LATER),
    # The spec shows no refund at all: a refund answered with its id and no status word is taken
    # as made (the object exists), as a service that had not finished would say so.
    "refund": Rules({}, no_status=SUCCEEDED),
}

#: Keys a service may put its reason in, in the order they are read (a refund's own ``reason``
#: is what paytui sent, not the service's word, and is not among them).
REASON_KEYS = (
    "result_text",
    "status_message",
    "failure_reason",
    "decline_reason",
    "failure_message",
    "message",
    "error",
)


@dataclass(frozen=True)
class Judgement:
    """The outcome of one answer: `verdict`, the `status` word as sent (None: none), the
    service's own `reason` (for a decline), and `why` in words (for the journal)."""

    verdict: Verdict
    status: str | None = None
    reason: str | None = None
    why: str = ""

    def line(self, noun: str) -> str:
        """One line for the journal and the person: "The service declined the refund: …"."""
        said = f"status {self.status}" if self.status else "no status"
        if self.verdict == DECLINED:
            because = self.reason or said
            return f"The service declined the {noun}: {because} ({said}); nothing moved"
        if self.verdict == PENDING:
            return (
                f"The service accepted the {noun} but has not finished it ({self.why}); paytui"
                " reads it back until the service settles it"
            )
        if self.verdict == UNKNOWN:
            return f"The service's answer cannot be placed ({self.why}); it is read back"
        return f"The service answered {said}"


def _word(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().lower().replace(" ", "_").replace("-", "_")


def _value(answer: Any, name: str) -> Any:
    """A field of a model (declared or extra) or of a mapping."""
    if isinstance(answer, Mapping):
        return answer.get(name)
    value = getattr(answer, name, None)
    if value is None:
        extra = getattr(answer, "model_extra", None) or {}
        value = extra.get(name)
    return value


def _reason(answer: Any) -> str | None:
    """The service's own words for a decline, sanitised of card numbers and cut short."""
    from paytui.api.errors import redact

    for key in REASON_KEYS:
        value = _value(answer, key)
        if isinstance(value, Mapping):
            value = value.get("message")
        if isinstance(value, str) and value.strip():
            return redact(value.strip())[:200]
    messages = _value(answer, "processor_messages")
    text = _value(messages, "message") if messages is not None else None
    if isinstance(text, str) and text.strip():
        return redact(text.strip())[:200]
    return None


def judge(operation: str, answer: Any, http_status: int | None = None) -> Judgement:
    """The outcome of `operation`'s answer `answer` (a model or a mapping), answered with
    `http_status` (None: not known — a read-back's GET). An operation not in `JUDGED` is
    ``succeeded`` (its 2xx is its answer)."""
    rules = JUDGED.get(operation)
    if rules is None or answer is None:
        return Judgement(SUCCEEDED, why="answered")
    raw = _value(answer, "status")
    status = _word(raw)
    shown = raw.strip() if isinstance(raw, str) else None
    code = _word(_value(answer, "result_code"))
    by_code = rules.result_codes.get(code) if code is not None else None
    if status is not None:
        verdict = rules.status(status)
        why = f"status {shown}"
        if verdict == UNKNOWN:
            why = f"status {shown!r} is not a word paytui knows"
        elif code is not None and by_code is not None and by_code != verdict:
            # "success" with result_code Declined: the service contradicts itself.
            verdict, why = (
                UNKNOWN,
                f"status {shown} but result_code {_value(answer, 'result_code')}",
            )
    elif code is not None:
        verdict = by_code or UNKNOWN
        why = f"no status, result_code {_value(answer, 'result_code')}"
    else:
        verdict, why = rules.no_status, "no status"
    if http_status == 202 and verdict in (SUCCEEDED, UNKNOWN):
        # 202 Accepted: taken, not done — whatever the word (a decline stays a decline).
        verdict, why = PENDING, f"HTTP 202, {why}"
    reason = _reason(answer) if verdict == DECLINED else None
    return Judgement(verdict, shown, reason, why)


def judge_found(operation: str, found: ReadBack) -> Judgement:
    """The outcome of what a read-back found: the refund or charge it found, judged by the same
    table (a read-back that found nothing, or an operation not judged: ``succeeded`` as found)."""
    answer = found.refund if found.refund is not None else found.charge
    if found.state != "succeeded" or answer is None:
        return Judgement(SUCCEEDED, why="found")
    return judge(operation, answer)
