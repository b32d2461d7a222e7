"""The charge search language: what support staff type in the query line, made a ChargeQuery.

    status:chargeback tag:vip attr:order_id=A-1001 amount>=25 from:2026-01-01 last4:4242 6206bcbf

A query is whitespace-separated terms, all ANDed. A term is `key:value` (`=` works as `:`;
`amount` also takes `> >= < <=`), or a bare word: 4+ hex characters are a charge id prefix, a
word of letters is the start of the customer's first or last name (`Edsger`, `dij`; `name:` says
so explicitly, for a name that looks like hex such as `name:Abbe`). Values may be
quoted with `"` or `'` (inside quotes `\\"` and `\\\\` escape). See docs/search.md for the user's
view.

Why a hand-written scanner rather than a regex split: every error must point at the exact
characters to underline (a span into the original text, quotes included), and the parser must
never raise, whatever is pasted into the box. The parser collects *all* errors so the user can
fix a query in one pass; a query is produced only when there are none.

Dates are UTC days: the wire, the sandbox and `paytui.ui.format` all show UTC, and a support agent
compares the times on screen with what the query says.

Why one module of more than 800 lines: the scanner, the parser, completion and `format_query` are
one grammar; each term's key is declared once in a table read by all four, so they stay together.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import ValidationError

from paytui.api.money import CENT, amount_text
from paytui.api.queries import ChargeQuery
from paytui.cards import luhn_valid

__all__ = [
    "KEYS",
    "ParseResult",
    "QueryError",
    "apply_completion",
    "complete",
    "completion_start",
    "format_query",
    "parse",
]

# --------------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------------

#: Canonical keys with a one-line description (the UI shows them in the help and the suggester).
KEYS: dict[str, str] = {
    "status": "success, declined, chargeback (cb), return (ach_return), or any the service shows",
    "tag": "charges carrying this tag (repeat to require several)",
    "attr": "attribute key=value (key= alone: has the key); repeatable",
    "amount": "amount:25, amount>=25, amount<100, amount:10..50",
    "from": "created on or after: 2026-01-31, 2026-01-31T10:00Z, today, yesterday, 7d, 24h",
    "to": "created up to: a day includes the whole day; a timestamp is exclusive",
    "on": "created on that day: 2026-01-31, today, yesterday, 2026-01 (a month)",
    "account": "account id (pa_...)",
    "merchant": "merchant id (mt_...)",
    "method": "card, bank (bank_account, ach)",
    "last4": "last four digits of the card or bank account",
    "type": "sale, auth (authorization), preauth (pre_authorization), capture",
    "captured": "yes / no (authorizations)",
    "is": "open: authorizations not yet captured",
    "original": "the captures of this authorization (24-character id)",
    "id": "charge id prefix (4+ hex characters); a bare hex word means the same",
    "name": "start of the customer's first or last name; a bare word of letters means the same",
    "refunded": "full, partial, none: the charge's refunds as read (proven on each row here)",
    "dispute": "open, won, lost, none: the charge's chargebacks (proven on each row here)",
    "sort": "time, amount, status, result, type, account, method, last4, name, id; -x descends",
}

_KEY_ALIASES: dict[str, str] = {
    **{key: key for key in KEYS},
    "tags": "tag",
    "attribute": "attr",
    "attributes": "attr",
    "attrs": "attr",
    "amt": "amount",
    "total": "amount",
    "total_amount": "amount",
    "since": "from",
    "created_from": "from",
    "until": "to",
    "created_to": "to",
    "date": "on",
    "day": "on",
    "account_id": "account",
    "acct": "account",
    "merchant_id": "merchant",
    "payment_method": "method",
    "charge_type": "type",
    "original_charge_id": "original",
    "charge_id": "id",
    "charge": "id",
    "customer": "name",
    "contact": "name",
    "refund_state": "refunded",
    "dispute_state": "dispute",
    "order": "sort",
}

_STATUS_VALUES: dict[str, str] = {
    "success": "success",
    "declined": "declined",
    "chargeback": "chargeback",
    "cb": "chargeback",
    "return": "return",
    "ach_return": "return",
    "voided": "voided",
    "void": "voided",
}
_METHOD_VALUES: dict[str, str] = {
    "card": "card",
    "bank": "bank_account",
    "bank_account": "bank_account",
    "ach": "bank_account",
}
_TYPE_VALUES: dict[str, str] = {
    "sale": "sale",
    "auth": "authorization",
    "authorization": "authorization",
    "preauth": "pre_authorization",
    "pre_auth": "pre_authorization",
    "pre_authorization": "pre_authorization",
    "capture": "capture",
}
_BOOL_VALUES: dict[str, bool] = {
    "yes": True,
    "y": True,
    "true": True,
    "1": True,
    "no": False,
    "n": False,
    "false": False,
    "0": False,
}
_IS_VALUES: tuple[str, ...] = ("open",)
#: `refunded:` values (paytui's own filter: `ChargeQuery.refund_state`).
_REFUNDED_VALUES: dict[str, str] = {
    "full": "full",
    "fully": "full",
    "all": "full",
    "partial": "partial",
    "partly": "partial",
    "part": "partial",
    "none": "none",
    "no": "none",
}
#: `dispute:` values (paytui's own filter: `ChargeQuery.dispute_state`).
_DISPUTE_VALUES: dict[str, str] = {
    "open": "open",
    "won": "won",
    "lost": "lost",
    "none": "none",
    "no": "none",
}
#: The keys a leading `-` excludes (`-tag:vip`, `-status:declined`).
_EXCLUDABLE: tuple[str, ...] = ("tag", "status")
#: sort alias -> wire column; the first alias of a column is the one format_query writes.
_SORT_ALIASES: dict[str, str] = {
    "time": "charge_timestamp",
    "date": "charge_timestamp",
    "created": "charge_timestamp",
    "charge_timestamp": "charge_timestamp",
    "amount": "total_amount",
    "total_amount": "total_amount",
    "status": "status",
    "result": "result_code",
    "result_code": "result_code",
    "type": "charge_type",
    "charge_type": "charge_type",
    "account": "account_id",
    "account_id": "account_id",
    "method": "method",
    "last4": "last4",
    "name": "contact_name",
    "contact_name": "contact_name",
    "id": "charge_id",
    "charge_id": "charge_id",
}
_SORT_NAMES: dict[str, str] = {}
for _alias, _column in _SORT_ALIASES.items():
    _SORT_NAMES.setdefault(_column, _alias)

_RELATIVE_VALUES: tuple[str, ...] = ("today", "yesterday", "24h", "7d", "30d")

# Canonical values offered by `complete`, per key.
_VALUE_COMPLETIONS: dict[str, tuple[str, ...]] = {
    "status": ("success", "declined", "chargeback", "return", "voided"),
    "method": ("card", "bank_account"),
    "type": ("sale", "authorization", "pre_authorization", "capture"),
    "captured": ("yes", "no"),
    "is": _IS_VALUES,
    "sort": tuple(f"{sign}{name}" for name in _SORT_NAMES.values() for sign in ("-", "")),
    "from": _RELATIVE_VALUES,
    "to": _RELATIVE_VALUES,
    "on": ("today", "yesterday"),
    "refunded": ("full", "partial", "none"),
    "dispute": ("open", "won", "lost", "none"),
}

_OPS: tuple[str, ...] = (">=", "<=", ":", "=", ">", "<")
_COMPARISONS: frozenset[str] = frozenset({">=", "<=", ">", "<"})
_KEY_RE = re.compile(r"[^\W\d]\w*")
_HEX_RE = re.compile(r"[0-9a-fA-F]+")
_ID_BODY_RE = re.compile(r"[A-Za-z0-9]+")
_AMOUNT_RE = re.compile(r"\$?(?P<int>\d*)(?:\.(?P<frac>\d*))?")
_DATE_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_MONTH_RE = re.compile(r"(\d{4})-(\d{2})")
_TIMESTAMP_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?"
    r"(Z|[+-]\d{2}:?\d{2})?",
    re.IGNORECASE,
)
_RELATIVE_RE = re.compile(r"(\d{1,6})([hdw])", re.IGNORECASE)
_CHARGE_ID_LENGTH = 24
_MIN_PREFIX = 4
_MAX_AMOUNT_DIGITS = 15
_SHOW = 32  # at most this many characters of the user's text are quoted back in a message


# --------------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QueryError:
    """One problem in the query text: `text[start:end]` is what the UI underlines."""

    start: int
    end: int
    message: str


@dataclass(frozen=True, slots=True)
class ParseResult:
    """`query` is set exactly when `errors` is empty, so a half-understood query is never run."""

    query: ChargeQuery | None
    errors: list[QueryError] = field(default_factory=list)
    #: What to say of a query that runs, such as "paytui does not know the status `settled`;
    #: the service will decide" (a note, never a reason not to send it).
    notes: list[str] = field(default_factory=list)
    #: A value is the start of one paytui knows (`status:charg`): search-as-you-type waits for
    #: the rest, Enter sends it as it is.
    partial: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors


# --------------------------------------------------------------------------------------------------
# Scanning
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Term:
    """One whitespace-separated term. `chars` is the text with quotes removed and escapes applied;
    `pos[i]` is where `chars[i]` sits in the input and `quoted[i]` whether it was inside quotes, so
    errors can point into the original text."""

    start: int
    end: int
    chars: str
    pos: list[int]
    quoted: list[bool]
    key: str | None = None  # as typed
    op: str | None = None
    negated: bool = False  # `-key:value`: an excluding filter
    value_at: int = 0  # index in `chars` where the value begins

    @property
    def value(self) -> str:
        return self.chars[self.value_at :]

    @property
    def value_span(self) -> tuple[int, int]:
        """The value as typed, quotes included; the key and operator when the value is empty."""
        if self.value_at >= len(self.chars):
            return (self.start, self.end)
        if self.value_at == 0:
            return (self.start, self.end)
        # Just after the (never quoted) operator, so an opening quote is included.
        return (self.pos[self.value_at - 1] + 1, self.end)

    def span(self, a: int, b: int) -> tuple[int, int]:
        """Span of `value[a:b]` in the input (widened to the whole value if quoting interferes)."""
        i, j = self.value_at + a, self.value_at + b
        if i >= j or j > len(self.chars):
            return self.value_span
        if any(self.quoted[i:j]):
            return self.value_span
        return (self.pos[i], self.pos[j - 1] + 1)

    @property
    def key_span(self) -> tuple[int, int]:
        assert self.key is not None
        return (self.start, self.start + len(self.key) + int(self.negated))

    @property
    def label(self) -> str:
        """How the term reads in messages (`status:cb`)."""
        return _show(self.chars)


def _scan(text: str, errors: list[QueryError]) -> list[_Term]:
    """Split `text` into terms at unquoted whitespace, resolving quotes and escapes."""
    terms: list[_Term] = []
    n = len(text)
    i = 0
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start = i
        chars: list[str] = []
        pos: list[int] = []
        quoted: list[bool] = []
        while i < n and not text[i].isspace():
            ch = text[i]
            if ch in "\"'":
                quote_at = i
                i += 1
                closed = False
                while i < n:
                    c = text[i]
                    if c == ch:
                        closed = True
                        i += 1
                        break
                    if c == "\\" and i + 1 < n and text[i + 1] in (ch, "\\"):
                        chars.append(text[i + 1])
                        pos.append(i + 1)
                        quoted.append(True)
                        i += 2
                        continue
                    chars.append(c)
                    pos.append(i)
                    quoted.append(True)
                    i += 1
                if not closed:
                    errors.append(
                        QueryError(quote_at, n, f"this {ch} quote is never closed; add a {ch}")
                    )
                continue
            chars.append(ch)
            pos.append(i)
            quoted.append(False)
            i += 1
        term = _Term(start, i, "".join(chars), pos, quoted)
        _split_key(term)
        terms.append(term)
    return terms


def _split_key(term: _Term) -> None:
    """Recognise `key op value` (or `-key op value`, excluding) when the key and operator were
    typed outside quotes."""
    negated = term.chars[:1] == "-" and bool(term.quoted) and not term.quoted[0]
    match = _KEY_RE.match(term.chars, int(negated))
    if match is None or any(term.quoted[: match.end()]):
        return
    rest = term.chars[match.end() :]
    for op in _OPS:
        if rest.startswith(op) and not any(term.quoted[match.end() : match.end() + len(op)]):
            term.key = match.group()
            term.op = op
            term.negated = negated
            term.value_at = match.end() + len(op)
            return


def _show(value: str) -> str:
    """The user's text quoted back in a message: one line, bounded length."""
    flat = "".join(" " if c.isspace() or not c.isprintable() else c for c in value)
    if len(flat) > _SHOW:
        flat = flat[: _SHOW - 1] + "…"
    return f"'{flat}'"


def _suggest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The closest choice, for "did you mean" hints (None when nothing is close)."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


# --------------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Origin:
    """A value set by a term, remembered so a later term that contradicts it can name it."""

    value: Any
    term: _Term


class _Parser:
    """Applies terms one by one to a set of fields, collecting errors as it goes."""

    def __init__(self, text: str, now: datetime) -> None:
        self.text = text
        self.now = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
        self.errors: list[QueryError] = []
        self.notes: list[str] = []
        self.partial = False
        self.single: dict[str, _Origin] = {}
        self.tags: list[str] = []
        self.not_tags: list[str] = []
        self.not_statuses: list[str] = []
        self.names: list[str] = []
        self.attributes: list[tuple[str, str]] = []
        # Bounds AND together, so the tightest wins; the term is kept to blame an empty range.
        self.lower: dict[str, _Origin] = {}
        self.upper: dict[str, _Origin] = {}

    # -- errors ------------------------------------------------------------------------------------

    def error(self, span: tuple[int, int], message: str) -> None:
        self.errors.append(QueryError(span[0], span[1], message))

    # -- setters -----------------------------------------------------------------------------------

    def set_single(self, name: str, value: Any, term: _Term, what: str) -> None:
        """A field that takes one value: a different second value can match nothing, say so."""
        previous = self.single.get(name)
        if previous is None:
            self.single[name] = _Origin(value, term)
        elif previous.value != value:
            self.error(
                (term.start, term.end),
                f"{term.label} contradicts {previous.term.label}: {what} takes one value",
            )

    def set_bound(self, table: dict[str, _Origin], name: str, value: Any, term: _Term) -> None:
        previous = table.get(name)
        tighter = (
            previous is None
            or (table is self.lower and value > previous.value)
            or (table is self.upper and value < previous.value)
        )
        if tighter:
            table[name] = _Origin(value, term)

    # -- the run -----------------------------------------------------------------------------------

    def run(self) -> ParseResult:
        for term in _scan(self.text, self.errors):
            if term.key is None:
                self.bare(term)
            else:
                self.keyed(term)
        self.check_ranges()
        # One message per span (is:open can contradict twice; an unclosed quote explains the rest).
        unique = {(e.start, e.end): e for e in reversed(self.errors)}
        self.errors = sorted(unique.values(), key=lambda e: (e.start, e.end))
        if self.errors:
            return ParseResult(None, self.errors)
        fields = {name: origin.value for name, origin in self.single.items()}
        fields["tags"] = tuple(self.tags)
        if self.names:
            fields["contact_name"] = " ".join(self.names)
        fields["attributes"] = tuple(self.attributes)
        fields["not_tags"] = tuple(self.not_tags)
        fields["not_statuses"] = tuple(self.not_statuses)
        for name, origin in self.lower.items():
            fields[name] = origin.value
        for name, origin in self.upper.items():
            fields[name] = origin.value
        try:
            return ParseResult(ChargeQuery(**fields), [], self.notes, self.partial)
        except ValidationError as exc:  # pragma: no cover - the checks above should prevent it
            message = exc.errors()[0].get("msg", "invalid query")
            return ParseResult(None, [QueryError(0, len(self.text), str(message))])

    def keyed(self, term: _Term) -> None:
        assert term.key is not None and term.op is not None
        typed = term.key.lower()
        key = _KEY_ALIASES.get(typed)
        if key is None:
            hint = _suggest(typed, list(_KEY_ALIASES))
            if hint:
                hint = _KEY_ALIASES[hint]
                message = f"unknown key {_show(term.key)}; did you mean {hint}:?"
            else:
                message = f"unknown key {_show(term.key)}; keys are {', '.join(KEYS)}"
            self.error(term.key_span, message)
            return
        if term.op in _COMPARISONS and key != "amount":
            op_span = (term.key_span[1], term.key_span[1] + len(term.op))
            extra = "; for dates use from: and to:" if key in ("from", "to", "on") else ""
            self.error(op_span, f"{term.op} only works with amount (amount{term.op}25){extra}")
            return
        if term.value == "":
            example = _EXAMPLES.get(key, "")
            self.error((term.start, term.end), f"{key}{term.op} needs a value{example}")
            return
        if term.negated:
            self.excluded(term, key)
            return
        _HANDLERS[key](self, term)

    def excluded(self, term: _Term, key: str) -> None:
        """`-tag:vip`, `-status:declined`: rows proven not to carry the tag (have the status)
        here, on each row (the service has no excluding filter). Another key is refused."""
        if key not in _EXCLUDABLE:
            self.error(
                term.key_span,
                f"only tag: and status: can be excluded (-tag:vip, -status:declined), not {key}:",
            )
            return
        if term.op != ":" and term.op != "=":
            self.error(term.key_span, f"-{key} takes a value after : (-{key}:…)")
            return
        if key == "tag":
            if term.value in self.tags:
                self.error((term.start, term.end), f"{term.label} contradicts tag:{term.value}")
                return
            self.not_tags.append(term.value)
            return
        typed = term.value.lower()
        if not typed.isprintable():
            self.error(term.value_span, "a status has no control characters")
            return
        status = _STATUS_VALUES.get(typed, typed)
        chosen = self.single.get("status")
        if chosen is not None and chosen.value == status:
            self.error((term.start, term.end), f"{term.label} contradicts {chosen.term.label}")
            return
        self.not_statuses.append(status)

    # -- bare words --------------------------------------------------------------------------------

    def bare(self, term: _Term) -> None:
        word = term.chars
        span = (term.start, term.end)
        if word == "":
            self.error(span, "empty quotes: remove them or put a value inside")
            return
        if word.startswith(("-", "!")) and _KEY_RE.match(word[1:]):
            self.error(
                span,
                "to exclude, write -tag:vip or -status:declined (tag: and status: only)",
            )
            return
        if word.isdigit() and 13 <= len(word) <= 19 and luhn_valid(word):
            # Never let a full card number travel to the API as a search term.
            self.error(span, "this looks like a full card number; search by last4: instead")
            return
        if _HEX_RE.fullmatch(word) and len(word) >= _MIN_PREFIX:
            self.charge_id(term, word)
            return
        if _is_name(word):
            self.names.append(word)
            return
        self.error(span, _bare_word_message(word))

    def charge_id(self, term: _Term, word: str) -> None:
        span = term.value_span
        if not _HEX_RE.fullmatch(word):
            self.error(span, f"{_show(word)} is not a charge id: ids are hexadecimal (0-9, a-f)")
            return
        if len(word) < _MIN_PREFIX:
            self.error(span, f"a charge id prefix needs at least {_MIN_PREFIX} characters")
            return
        if len(word) > _CHARGE_ID_LENGTH:
            self.error(
                span, f"charge ids have {_CHARGE_ID_LENGTH} characters, this has {len(word)}"
            )
            return
        word = word.lower()
        previous = self.single.get("charge_id")
        # Two prefixes AND together: the longer one wins when it extends the shorter.
        if previous is not None and word.startswith(previous.value):
            self.single["charge_id"] = _Origin(word, term)
        elif previous is None or not previous.value.startswith(word):
            self.set_single("charge_id", word, term, "the charge id")

    # -- keys --------------------------------------------------------------------------------------

    def enum(self, term: _Term, name: str, table: dict[str, Any], what: str) -> None:
        typed = term.value.lower()
        if typed in table:
            self.set_single(name, table[typed], term, what)
            return
        hint = _suggest(typed, list(table))
        message = f"unknown {what} {_show(term.value)}"
        if hint:
            message += f"; did you mean {hint}?"
        else:
            message += f"; use one of: {', '.join(dict.fromkeys(map(str, table.values())))}"
        self.error(term.value_span, message)

    def k_status(self, term: _Term) -> None:
        """A status paytui knows, or its alias, is written its way; any other value is sent as
        typed (lower case, as the spec writes statuses) and the rows the service returns are
        proven here (`ChargeQuery.verdicts`): a status paytui does not know is the service's to
        judge, never refused (docs/search.md)."""
        typed = term.value.lower()
        if not typed.isprintable():
            self.error(term.value_span, "a status has no control characters")
            return
        digits = typed.replace(" ", "").replace("-", "")
        if digits.isdigit() and 13 <= len(digits) <= 19 and luhn_valid(digits):
            # Never let a full card number travel to the API as a search term.
            self.error(term.value_span, "this looks like a full card number, not a status")
            return
        known = _STATUS_VALUES.get(typed)
        if known is None:
            self.partial = self.partial or any(v.startswith(typed) for v in _STATUS_VALUES)
            said = f"paytui does not know the status `{_show(typed)[1:-1]}`"
            hint = _suggest(typed, list(_STATUS_VALUES))
            if hint:
                said += f" (did you mean {_STATUS_VALUES[hint]}?)"
            self.notes.append(f"{said}; the service will decide")
        if (known or typed) in self.not_statuses:
            self.error((term.start, term.end), f"{term.label} contradicts -status:{known or typed}")
            return
        self.set_single("status", known or typed, term, "status")

    def k_method(self, term: _Term) -> None:
        self.enum(term, "method", _METHOD_VALUES, "method")

    def k_type(self, term: _Term) -> None:
        self.enum(term, "charge_type", _TYPE_VALUES, "type")

    def k_captured(self, term: _Term) -> None:
        typed = term.value.lower()
        if typed in _BOOL_VALUES:
            self.set_single("captured", _BOOL_VALUES[typed], term, "captured")
        else:
            self.error(term.value_span, f"captured: takes yes or no, not {_show(term.value)}")

    def k_is(self, term: _Term) -> None:
        typed = term.value.lower()
        if typed == "open":
            self.set_single("charge_type", "authorization", term, "type")
            self.set_single("captured", False, term, "captured")
            return
        hint = _suggest(typed, list(_IS_VALUES))
        extra = f"did you mean is:{hint}?" if hint else "the only one is is:open (not yet captured)"
        self.error(term.value_span, f"unknown is:{_show(term.value)[1:-1]}; {extra}")

    def k_tag(self, term: _Term) -> None:
        if term.value in self.not_tags:
            self.error((term.start, term.end), f"{term.label} contradicts -tag:{term.value}")
            return
        self.tags.append(term.value)

    def k_refunded(self, term: _Term) -> None:
        self.enum(term, "refund_state", _REFUNDED_VALUES, "refunded: value")

    def k_dispute(self, term: _Term) -> None:
        self.enum(term, "dispute_state", _DISPUTE_VALUES, "dispute: value")

    def k_attr(self, term: _Term) -> None:
        value = term.value
        key, sep, wanted = value.partition("=")
        if key == "":
            self.error(term.value_span, "attr: needs a key, as in attr:order_id=A-1001")
            return
        # `attr:key` alone reads naturally as "has the key", which the wire writes `key=`.
        self.attributes.append((key, wanted if sep else ""))

    def k_id_like(self, term: _Term, name: str, prefix: str, what: str, key: str) -> None:
        value = term.value
        if value.startswith(prefix) and _ID_BODY_RE.fullmatch(value[len(prefix) :]):
            self.set_single(name, value, term, f"{key}:")
            return
        other = {"pa_": "account", "mt_": "merchant"}
        for other_prefix, other_key in other.items():
            if other_prefix != prefix and value.startswith(other_prefix):
                self.error(
                    term.value_span,
                    f"that is {'an' if other_key == 'account' else 'a'} {other_key} id; "
                    f"use {other_key}:{_show(value)[1:-1]}",
                )
                return
        self.error(
            term.value_span,
            f"{what} ids look like {prefix}… (letters and digits), not {_show(value)}",
        )

    def k_account(self, term: _Term) -> None:
        self.k_id_like(term, "account_id", "pa_", "account", "account")

    def k_merchant(self, term: _Term) -> None:
        self.k_id_like(term, "merchant_id", "mt_", "merchant", "merchant")

    def k_last4(self, term: _Term) -> None:
        value = term.value
        if len(value) == 4 and value.isascii() and value.isdigit():
            self.set_single("last4", value, term, "last4:")
        elif value.isascii() and value.isdigit() and len(value) > 4:
            # Do not echo: it may be a whole card number.
            self.error(term.value_span, "last4: takes only the last four digits")
        else:
            self.error(term.value_span, f"last4: takes four digits, not {_show(value)}")

    def k_original(self, term: _Term) -> None:
        value = term.value
        if len(value) == _CHARGE_ID_LENGTH and _HEX_RE.fullmatch(value):
            self.set_single("original_charge_id", value.lower(), term, "original:")
        elif _HEX_RE.fullmatch(value) and len(value) < _CHARGE_ID_LENGTH:
            self.error(
                term.value_span,
                f"original: needs the whole {_CHARGE_ID_LENGTH}-character authorization id",
            )
        else:
            self.error(
                term.value_span,
                f"original: takes a {_CHARGE_ID_LENGTH}-character hex charge id, "
                f"not {_show(value)}",
            )

    def k_id(self, term: _Term) -> None:
        self.charge_id(term, term.value)

    def k_name(self, term: _Term) -> None:
        if not any(c.isalpha() for c in term.value):
            # Digits alone are no name (and may be a card number: never echo them).
            self.error(term.value_span, "name: takes letters, as in name:Edsger")
            return
        self.names.append(term.value)

    def k_sort(self, term: _Term) -> None:
        typed = term.value.lower()
        sign = ""
        if typed[:1] in ("-", "+"):
            sign, typed = ("-" if typed[0] == "-" else ""), typed[1:]
        column = _SORT_ALIASES.get(typed)
        if column is None:
            hint = _suggest(typed, list(_SORT_ALIASES))
            names = ", ".join(_SORT_NAMES.values())
            message = f"cannot sort by {_show(typed)}"
            message += f"; did you mean {sign}{hint}?" if hint else f"; sort by {names}"
            self.error(term.value_span, message)
            return
        self.set_single("sort", sign + column, term, "sort:")

    # -- amounts -----------------------------------------------------------------------------------

    def amount_value(self, term: _Term, a: int, b: int) -> Decimal | None:
        """Parse `value[a:b]` as a non-negative amount with at most two places."""
        text = term.value[a:b]
        span = term.span(a, b)
        if text.startswith("-"):
            self.error(span, "amounts are never negative")
            return None
        match = _AMOUNT_RE.fullmatch(text)
        if match is None or not (match.group("int") or match.group("frac")):
            self.error(span, f"{_show(text)} is not an amount; write it like 25 or 25.50")
            return None
        if len(match.group("frac") or "") > 2:
            self.error(span, "amounts have at most two decimal places")
            return None
        if len(match.group("int").lstrip("0")) > _MAX_AMOUNT_DIGITS:
            self.error(span, "that amount is too large")
            return None
        try:
            return Decimal(text.lstrip("$") or "0").quantize(CENT)
        except InvalidOperation:  # pragma: no cover - the regex admits only plain numbers
            self.error(span, f"{_show(text)} is not an amount")
            return None

    def k_amount(self, term: _Term) -> None:
        value, op = term.value, term.op
        if op in (":", "=") and ".." in value:
            cut = value.index("..")
            low_text, high_text = value[:cut], value[cut + 2 :]
            if not low_text and not high_text:
                self.error(term.value_span, "a range needs at least one end: amount:10..50")
                return
            low = self.amount_value(term, 0, cut) if low_text else None
            high = self.amount_value(term, cut + 2, len(value)) if high_text else None
            if (low_text and low is None) or (high_text and high is None):
                return
            if low is not None and high is not None and low > high:
                self.error(term.value_span, "this range runs backwards; write the low end first")
                return
            if low is not None:
                self.set_bound(self.lower, "min_amount", low, term)
            if high is not None:
                self.set_bound(self.upper, "max_amount", high, term)
            return
        amount = self.amount_value(term, 0, len(value))
        if amount is None:
            return
        if op in (":", "=", ">=", ">"):
            # Amounts have two places, so "more than 25" is "at least 25.01".
            self.set_bound(self.lower, "min_amount", amount + CENT if op == ">" else amount, term)
        if op in (":", "=", "<=", "<"):
            if op == "<" and amount == 0:
                self.error(term.value_span, "no amount is below 0")
                return
            self.set_bound(self.upper, "max_amount", amount - CENT if op == "<" else amount, term)

    # -- times -------------------------------------------------------------------------------------

    def period(self, term: _Term) -> tuple[datetime, datetime | None, bool] | None:
        """What a time value names: (start, end, is_a_period).

        A day or month is a period (its end is the next one's start, None past year 9999); a
        timestamp or relative time is an instant (start == end).
        """
        value = term.value.strip()
        lowered = value.lower()
        today = self.now.replace(hour=0, minute=0, second=0, microsecond=0)
        try:
            if lowered == "today":
                return today, today + timedelta(days=1), True
            if lowered == "yesterday":
                return today - timedelta(days=1), today, True
            if lowered == "now":
                return self.now, self.now, False
            match = _RELATIVE_RE.fullmatch(value)
            if match:
                count, unit = int(match.group(1)), match.group(2).lower()
                delta = {"h": timedelta(hours=count), "d": timedelta(days=count)}.get(
                    unit, timedelta(weeks=count)
                )
                instant = self.now - delta
                return instant, instant, False
        except OverflowError:
            self.error(term.value_span, "that is too far back")
            return None
        if match := _DATE_RE.fullmatch(value):
            start = self.make_time(term, *map(int, match.groups()))
            return None if start is None else (start, _next(start, days=1), True)
        if match := _MONTH_RE.fullmatch(value):
            start = self.make_time(term, int(match.group(1)), int(match.group(2)), 1)
            if start is None:
                return None
            return start, _next_month(start), True
        if match := _TIMESTAMP_RE.fullmatch(value):
            year, month, day, hour, minute = (int(g) for g in match.groups()[:5])
            second = int(match.group(6) or 0)
            micro = int((match.group(7) or "0").ljust(6, "0"))
            stamp = self.make_time(term, year, month, day, hour, minute, second, micro)
            if stamp is None:
                return None
            offset = match.group(8)
            if offset and offset.upper() != "Z":
                sign = -1 if offset[0] == "-" else 1
                digits = offset[1:].replace(":", "")
                hours, minutes = int(digits[:2]), int(digits[2:])
                if hours > 23 or minutes > 59:
                    self.error(term.value_span, f"{_show(offset)} is not a time zone offset")
                    return None
                try:
                    stamp -= sign * timedelta(hours=hours, minutes=minutes)
                except OverflowError:
                    self.error(term.value_span, "that time is out of range")
                    return None
            return stamp, stamp, False
        self.error(
            term.value_span,
            f"{_show(value)} is not a time; use 2026-01-31, 2026-01-31T10:00Z, today, "
            "yesterday, 7d or 24h",
        )
        return None

    def make_time(
        self,
        term: _Term,
        year: int,
        month: int,
        day: int,
        hour: int = 0,
        minute: int = 0,
        second: int = 0,
        micro: int = 0,
    ) -> datetime | None:
        try:
            return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)
        except ValueError:
            self.error(term.value_span, f"{_show(term.value)} is not a real date or time")
            return None

    def k_from(self, term: _Term) -> None:
        period = self.period(term)
        if period is not None:
            self.set_bound(self.lower, "created_from", period[0], term)

    def k_to(self, term: _Term) -> None:
        period = self.period(term)
        if period is None:
            return
        # to:2026-01-31 includes that day, so the exclusive bound is the next day's start.
        end = period[1]
        if end is None:
            self.error(term.value_span, "that date is out of range")
            return
        self.set_bound(self.upper, "created_to", end, term)

    def k_on(self, term: _Term) -> None:
        period = self.period(term)
        if period is None:
            return
        start, end, is_period = period
        if not is_period:
            self.error(term.value_span, "on: takes a day or month (2026-01-31, today, 2026-01)")
            return
        if end is None:
            self.error(term.value_span, "that date is out of range")
            return
        self.set_bound(self.lower, "created_from", start, term)
        self.set_bound(self.upper, "created_to", end, term)

    # -- whole-query checks ------------------------------------------------------------------------

    def check_ranges(self) -> None:
        """A lower bound above the upper one matches nothing: blame the later term."""
        for low_name, high_name, what in (
            ("min_amount", "max_amount", "amount"),
            ("created_from", "created_to", "time"),
        ):
            low, high = self.lower.get(low_name), self.upper.get(high_name)
            if low is None or high is None:
                continue
            empty = low.value > high.value if what == "amount" else low.value >= high.value
            if empty:
                later, earlier = (low, high) if low.term.start > high.term.start else (high, low)
                span = (later.term.start, later.term.end)
                if later.term is earlier.term:
                    message = f"{later.term.label} can match nothing"
                else:
                    message = f"{later.term.label} and {earlier.term.label} leave no {what} between"
                self.error(span, message)


def _next(start: datetime, *, days: int) -> datetime | None:
    try:
        return start + timedelta(days=days)
    except OverflowError:
        return None


def _next_month(start: datetime) -> datetime | None:
    if start.month == 12:
        return None if start.year == 9999 else start.replace(year=start.year + 1, month=1)
    return start.replace(month=start.month + 1)


_EXAMPLES: dict[str, str] = {
    "status": ": success, declined, chargeback, return, or any status the service shows",
    "tag": ", as in tag:vip",
    "amount": ", as in amount>=25 or amount:10..50",
    "from": ", as in from:2026-01-31, from:yesterday or from:7d",
    "to": ", as in to:2026-01-31",
    "on": ", as in on:yesterday",
    "account": ", as in account:pa_…",
    "merchant": ", as in merchant:mt_…",
    "method": ": card or bank",
    "last4": ", as in last4:4242",
    "type": ": sale, auth, preauth or capture",
    "captured": ": yes or no",
    "is": ": is:open",
    "original": ": the authorization's charge id",
    "id": ": 4 or more hex characters of the charge id",
    "name": ", as in name:Edsger",
    "sort": ", as in sort:-amount",
    "refunded": ": full, partial or none",
    "dispute": ": open, won, lost or none",
}

_HANDLERS: dict[str, Callable[[_Parser, _Term], None]] = {
    "status": _Parser.k_status,
    "tag": _Parser.k_tag,
    "attr": _Parser.k_attr,
    "amount": _Parser.k_amount,
    "from": _Parser.k_from,
    "to": _Parser.k_to,
    "on": _Parser.k_on,
    "account": _Parser.k_account,
    "merchant": _Parser.k_merchant,
    "method": _Parser.k_method,
    "last4": _Parser.k_last4,
    "type": _Parser.k_type,
    "captured": _Parser.k_captured,
    "is": _Parser.k_is,
    "original": _Parser.k_original,
    "id": _Parser.k_id,
    "name": _Parser.k_name,
    "sort": _Parser.k_sort,
    "refunded": _Parser.k_refunded,
    "dispute": _Parser.k_dispute,
}


#: Bare words that are the language's own vocabulary: a hint, not a name search (`name:` for that).
_VOCABULARY: frozenset[str] = frozenset(
    (*_STATUS_VALUES, *_METHOD_VALUES, *_TYPE_VALUES, *_IS_VALUES, *_KEY_ALIASES)
).union(("today", "yesterday"))


_NAME_PUNCTUATION = frozenset(" -'’.")


def _is_name(word: str) -> bool:
    """A bare word searched as a name: letters (and the spaces, hyphens, apostrophes and dots
    of names), not a keyword of the language."""
    return (
        any(c.isalpha() for c in word)
        and all(c.isalpha() or c in _NAME_PUNCTUATION for c in word)
        and word.lower() not in _VOCABULARY
    )


def _bare_word_message(word: str) -> str:
    """Explain what bare words mean, guessing what the user probably meant."""
    lowered = word.lower()
    base = f"{_show(word)} is not a charge id: a bare word is searched as a charge id prefix"
    if lowered in _STATUS_VALUES:
        return f"{base}; did you mean status:{_STATUS_VALUES[lowered]}?"
    if lowered in _METHOD_VALUES:
        return f"{base}; did you mean method:{lowered}?"
    if lowered in _TYPE_VALUES:
        return f"{base}; did you mean type:{lowered}?"
    if lowered == "open":
        return f"{base}; did you mean is:open?"
    if lowered in ("today", "yesterday") or _DATE_RE.fullmatch(word) or _MONTH_RE.fullmatch(word):
        return f"{base}; did you mean on:{word}?"
    if _AMOUNT_RE.fullmatch(word) and any(c.isdigit() for c in word):
        return f"{base}; did you mean amount:{word}?"
    if _HEX_RE.fullmatch(word):
        return f"a charge id prefix needs at least {_MIN_PREFIX} hex characters"
    if lowered in KEYS or lowered in _KEY_ALIASES:
        return f"{_show(word)} needs a value: {_KEY_ALIASES[lowered]}:…"
    return f"{base} (4+ hex characters); for a tag write tag:{_show(word)[1:-1]}"


def parse(text: str, *, now: datetime) -> ParseResult:
    """Parse a search; never raises. `now` anchors today, yesterday, 7d and 24h (UTC days)."""
    try:
        return _Parser(text, now).run()
    except Exception as exc:  # pragma: no cover - a bug; the UI must still not crash on a keypress
        return ParseResult(None, [QueryError(0, len(text), f"could not read this query ({exc})")])


# --------------------------------------------------------------------------------------------------
# Formatting (the inverse of parse)
# --------------------------------------------------------------------------------------------------


def _quote(value: str) -> str:
    """Quote a value only when it would not survive the scanner as typed."""
    if value and not any(c.isspace() or c in "\"'\\" for c in value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_midnight(value: datetime) -> bool:
    return (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0)


def _format_instant(value: datetime) -> str:
    utc = value.astimezone(UTC)
    text = (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
        f"T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
    )
    if utc.microsecond:
        text += f".{utc.microsecond:06d}"
    return text + "Z"


def _format_day(value: datetime) -> str:
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def format_query(query: ChargeQuery) -> str:
    """The search text for a query, such that `parse(format_query(q)).query == q`.

    Used to show a quick view or a "jump to charges of this account" in the query line, where the
    user can then edit it. Holds for every query `parse` can produce.
    """
    parts: list[str] = []
    if query.status:
        parts.append(f"status:{_quote(query.status)}")
    open_auth = query.charge_type == "authorization" and query.captured is False
    if open_auth:
        parts.append("is:open")
    else:
        if query.charge_type:
            parts.append(f"type:{query.charge_type}")
        if query.captured is not None:
            parts.append(f"captured:{'yes' if query.captured else 'no'}")
    if query.method:
        parts.append(f"method:{query.method}")
    if query.last4:
        parts.append(f"last4:{_quote(query.last4)}")
    low, high = query.min_amount, query.max_amount
    if low is not None and high is not None:
        if low == high:
            parts.append(f"amount:{amount_text(low)}")
        else:
            parts.append(f"amount:{amount_text(low)}..{amount_text(high)}")
    elif low is not None:
        parts.append(f"amount>={amount_text(low)}")
    elif high is not None:
        parts.append(f"amount<={amount_text(high)}")
    parts += _format_times(query.created_from, query.created_to)
    if query.account_id:
        parts.append(f"account:{_quote(query.account_id)}")
    if query.merchant_id:
        parts.append(f"merchant:{_quote(query.merchant_id)}")
    if query.original_charge_id:
        parts.append(f"original:{_quote(query.original_charge_id)}")
    parts += [f"tag:{_quote(tag)}" for tag in query.tags]
    parts += [f"-tag:{_quote(tag)}" for tag in query.not_tags]
    parts += [f"-status:{_quote(status)}" for status in query.not_statuses]
    if query.refund_state:
        parts.append(f"refunded:{query.refund_state}")
    if query.dispute_state:
        parts.append(f"dispute:{query.dispute_state}")
    parts += [f"attr:{_quote(f'{key}={value}')}" for key, value in query.attributes]
    if query.contact_name:
        parts += [f"name:{_quote(word)}" for word in query.contact_name.split()]
    if query.charge_id:
        parts.append(_quote(query.charge_id))
    if query.sort:
        descending = query.sort.startswith("-")
        column = query.sort.lstrip("-")
        name = _SORT_NAMES.get(column, column)
        parts.append(f"sort:{'-' if descending else ''}{_quote(name)}")
    return " ".join(parts)


def _format_times(start: datetime | None, end: datetime | None) -> list[str]:
    """Days where the bounds fall on UTC midnights (they usually do), timestamps otherwise."""
    if (
        start is not None
        and end is not None
        and _is_midnight(start)
        and end == _next(start, days=1)
    ):
        return [f"on:{_format_day(start)}"]
    parts: list[str] = []
    if start is not None:
        parts.append(
            f"from:{_format_day(start) if _is_midnight(start) else _format_instant(start)}"
        )
    if end is not None:
        # to:DAY means "before the next day", so a midnight bound is written as the day before it.
        day_before = _next(end, days=-1) if _is_midnight(end) else None
        parts.append(f"to:{_format_day(day_before) if day_before else _format_instant(end)}")
    return parts


# --------------------------------------------------------------------------------------------------
# Completion
# --------------------------------------------------------------------------------------------------


def completion_start(text: str, cursor: int) -> int:
    """Where the word being completed begins: after the last whitespace before the cursor."""
    cursor = max(0, min(cursor, len(text)))
    start = cursor
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return start


def complete(text: str, cursor: int) -> list[str]:
    """Suggestions for the word ending at the cursor, each a full replacement of that word.

    `te` gives `tag:`, `status:c` gives `status:chargeback`; aliases match too (`status:cb`
    offers `status:chargeback`). Replace `text[completion_start(text, cursor):cursor]` with a
    suggestion, or use `apply_completion`. Never raises.
    """
    cursor = max(0, min(cursor, len(text)))
    word = text[completion_start(text, cursor) : cursor]
    if word.startswith("-") and not word.startswith("--"):  # an excluding filter: -tag:, -status:
        return [
            "-" + found
            for found in complete(word[1:], len(word) - 1)
            if found.split(":", 1)[0] in _EXCLUDABLE
        ]
    match = _KEY_RE.match(word)
    if match is None or match.end() == len(word):
        # Completing a key (or nothing yet).
        typed = word.lower()
        keys = [key for key in KEYS if key.startswith(typed)]
        if not keys:
            keys = list(dict.fromkeys(v for k, v in _KEY_ALIASES.items() if k.startswith(typed)))
        return [f"{key}:" for key in keys]
    rest = word[match.end() :]
    op = next((op for op in _OPS if rest.startswith(op)), None)
    key = _KEY_ALIASES.get(match.group().lower())
    if op is None or key is None or key not in _VALUE_COMPLETIONS:
        return []
    head = word[: match.end() + len(op)]
    typed = rest[len(op) :].lower()
    values = [v for v in _VALUE_COMPLETIONS[key] if v.startswith(typed)]
    alias_tables: dict[str, dict[str, Any]] = {
        "status": _STATUS_VALUES,
        "method": _METHOD_VALUES,
        "type": _TYPE_VALUES,
    }
    if key in alias_tables and typed:
        table = alias_tables[key]
        values += [table[a] for a in table if a.startswith(typed) and table[a] not in values]
    if key == "sort" and typed:
        sign = "-" if typed.startswith("-") else ""
        bare = typed.lstrip("-+")
        for alias, column in _SORT_ALIASES.items():
            candidate = sign + _SORT_NAMES[column]
            if alias.startswith(bare) and candidate not in values:
                values.append(candidate)
    if typed and values == [typed]:
        return []  # already complete
    return [head + v for v in values]


def apply_completion(text: str, cursor: int, suggestion: str) -> tuple[str, int]:
    """Put `suggestion` in place of the word at the cursor; returns the new text and cursor."""
    cursor = max(0, min(cursor, len(text)))
    start = completion_start(text, cursor)
    new = text[:start] + suggestion + text[cursor:]
    return new, start + len(suggestion)
