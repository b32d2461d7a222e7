"""Today's queue: everything that needs a person, soonest deadline first (docs/today.md).

One list from six sources, each read through the client (`PaymentClient`), a few at once
(`TodayPrefs.concurrency`), and each row checked here against the rule it is listed for: a
filter the service ignored or could not prove never puts a row in the queue.

- unknown outcomes of the journal: money whose outcome is not proven, always first;
- chargebacks not known to be closed (`charge_state.chargeback_state` won / lost closes one),
  each with its case (`paytui.today.cases`: reason, stage, status, age);
- ACH returns (status `return`);
- open authorizations, due at their capture-by time (a hold window per brand);
- accounts that need information, or whose boarding status has not changed for N days;
- tokens whose card or token expires this month.

Where the service gives no deadline the due time is an estimate (`estimated`), made from a time
that does not move: when paytui first saw it (`SeenStore`), or the object's own time.
"""

from __future__ import annotations

import asyncio
import calendar
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from paytui.charge_state import chargeback_state
from paytui.config.model import TodayPrefs
from paytui.today.advice import Record, advice_for
from paytui.today.cases import case_of
from paytui.today.deadlines import chargeback_deadline, return_deadline

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.actions.journal import Journal
    from paytui.api.client import PaymentClient
    from paytui.api.models import Account, Charge, Page, Token
    from paytui.today.seen import SeenStore

__all__ = [
    "KINDS",
    "TodayItem",
    "TodayQueue",
    "build_queue",
    "chargeback_items",
    "due_words",
    "items_from_journal",
    "parse_when",
    "past_window",
    "unknown_outcomes",
]

Kind = Literal["unknown", "chargeback", "return", "authorization", "account", "token"]
#: Every kind, in the order they are told apart (`--kind`, `kind:` in the screen).
KINDS: tuple[str, ...] = ("unknown", "chargeback", "return", "authorization", "account", "token")
#: Rows read per page, and at most this many rows per source (the queue stays bounded).
PAGE_SIZE = 100
MAX_ROWS = 20_000
#: A chargeback or an ACH return overdue by more than this is past its window: its response
#: time is over, so it goes below what can still be won (one due today, or overdue by less
#: than this, stays at the top: the most urgent thing that can still be answered).
PAST_WINDOW_GRACE = timedelta(days=1)
#: The kinds whose due time is a window to answer in (a chargeback, an ACH return).
WINDOWED_KINDS = frozenset({"chargeback", "return"})


@dataclass(frozen=True)
class TodayItem:
    """One row of the queue. `due_at` is UTC; `target` says what `enter` opens
    (`charge`, `account`, `token`) and `target_id` which one."""

    kind: str
    id: str
    customer: str | None
    amount: Decimal | None
    due_at: datetime
    estimated: bool
    why: str
    target: str
    target_id: str
    #: The object read (a `Charge`, `Account` or `Token`; None for an unknown outcome): what
    #: an action of the registry acts on, as on any list.
    subject: Any = field(default=None, compare=False, repr=False)
    #: What the due time was computed from (`paytui.today.deadlines.BASES`; `service` when
    #: the service or the object itself gives it, `journal` for an unknown outcome, ...).
    basis: str = "service"
    #: An authorization whose hold lapsed (due before the queue was built): little can be
    #: done with it, so it is below everything that can still be acted on.
    lapsed: bool = False
    #: An open chargeback's "fight or accept" line (`paytui.today.advice`): the facts and a
    #: lean, never a decision. None on every other kind.
    advice: str | None = None
    #: A chargeback or ACH return overdue by more than `PAST_WINDOW_GRACE` (`past_window`):
    #: below what can still be won, above the lapsed holds.
    past_window: bool = False

    @property
    def rank(self) -> int:
        """Where the item's phase stands: 0 what can still be acted on, 1 past its window,
        2 a lapsed hold."""
        return 2 if self.lapsed else 1 if self.past_window else 0

    @property
    def late_word(self) -> str:
        """The word past the due time: "lapsed" (a hold), "past window", else "overdue"."""
        return "lapsed" if self.lapsed else "past window" if self.past_window else "overdue"

    @property
    def sort_key(self) -> tuple[bool, int, datetime, str, str]:
        """Unknown outcomes first, then what can still be acted on by due time, then what is
        past its window, then the lapsed holds (each by due time)."""
        return (self.kind != "unknown", self.rank, self.due_at, self.kind, self.id)


def past_window(kind: str, due_at: datetime, now: datetime) -> bool:
    """Is a chargeback or ACH return overdue by more than `PAST_WINDOW_GRACE` at `now`?"""
    return kind in WINDOWED_KINDS and due_at < now - PAST_WINDOW_GRACE


@dataclass
class TodayQueue:
    """The queue as built at `now`, with what it could not show (`notes`, one line each)."""

    items: list[TodayItem]
    now: datetime
    notes: list[str] = field(default_factory=list)
    #: Items overdue by more than `lookback_days`, left out, by kind.
    left_out: dict[str, int] = field(default_factory=dict)
    #: Sources that could not be read (their items are missing): "tokens", ...
    failed: list[str] = field(default_factory=list)

    def select(
        self,
        *,
        kinds: Iterable[str] = (),
        due_before: datetime | None = None,
        lapsed: bool | None = None,
        past_window: bool | None = None,
    ) -> list[TodayItem]:
        """The items of these kinds (all when none), due before `due_before` (when given),
        lapsed holds only (`lapsed` True), or none of them (False); the same for what is past
        its window (`past_window`)."""
        wanted = set(kinds)
        return [
            item
            for item in self.items
            if (not wanted or item.kind in wanted)
            and (due_before is None or item.due_at < due_before)
            and (lapsed is None or item.lapsed == lapsed)
            and (past_window is None or item.past_window == past_window)
        ]

    @property
    def lapsed(self) -> int:
        """How many lapsed holds are in the queue (below what can still be acted on)."""
        return sum(1 for item in self.items if item.lapsed)

    @property
    def past_window(self) -> int:
        """How many chargebacks and ACH returns are past their window (below what can be won)."""
        return sum(1 for item in self.items if item.past_window)


def due_words(
    due_at: datetime, now: datetime, *, estimated: bool = False, late: str = "overdue"
) -> str:
    """The time left in words: "due in 2 d 4 h", "overdue 3 h", "≈ due in 5 h" (`late`: the
    word past it, "lapsed" for a hold)."""
    seconds = int((due_at - now).total_seconds())
    span = abs(seconds)
    days, rest = divmod(span, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        text = f"{days} d {hours} h" if hours else f"{days} d"
    elif hours:
        text = f"{hours} h {minutes} min" if minutes and hours < 3 else f"{hours} h"
    else:
        text = f"{max(minutes, 1)} min"
    words = f"due in {text}" if seconds > 0 else f"{late} {text}"
    return f"≈ {words}" if estimated else words


def parse_when(text: str, now: datetime) -> datetime:
    """`--due-before` / `due:`: ``today`` (end of this UTC day), ``tomorrow``, ``2d`` / ``12h``
    from now, a date (its start, UTC) or an ISO time. ValueError with a sentence otherwise."""
    word = text.strip().lower()
    midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if word in {"today", "now"}:
        return now if word == "now" else midnight + timedelta(days=1)
    if word == "tomorrow":
        return midnight + timedelta(days=2)
    if word in {"overdue", "late"}:
        return now
    if len(word) > 1 and word[-1] in "dh" and word[:-1].isdigit():
        unit = timedelta(days=1) if word[-1] == "d" else timedelta(hours=1)
        return now + int(word[:-1]) * unit
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"{text!r} is not a time: today, tomorrow, overdue, 2d, 12h, 2026-01-31 or an ISO time"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def unknown_outcomes(journal: Journal, base_url: str) -> list[JournalEntry]:
    """The journal's entries on this service whose outcome is unknown (oldest first): "unknown"
    ones, those the service answered pending ("awaiting_service"), and on a team journal those
    left pending or sent by a paytui that is gone (its session lock released: nobody is waiting
    for its answer). A file journal cannot tell a live sender from a dead one here; the
    dashboard's start-up read-back settles those."""
    from paytui.config.urls import service_key

    found = []
    for entry in journal.unresolved(base_url=service_key(base_url)):
        if entry.state in {"unknown", "awaiting_service"} or journal.sender_alive(entry) is False:
            found.append(entry)
    return found


# ------------------------------------------------------------------------------------------------
# The sources
# ------------------------------------------------------------------------------------------------


def _why_unsettled(entry: JournalEntry) -> str:
    if entry.state == "awaiting_service":
        return (
            f"{entry.operation} #{entry.id}: awaiting the service (accepted, not finished);"
            " History (5) checks it"
        )
    return (
        f"{entry.operation} #{entry.id}: outcome unknown ({entry.state}); check it in History (5)"
    )


def items_from_journal(entries: Iterable[JournalEntry]) -> list[TodayItem]:
    """Unknown outcomes (entries whose outcome the journal could not prove), due since they were
    sent: they are first whatever their time."""
    items = []
    for entry in entries:
        target = entry.charge_id or entry.result_id or str(entry.id)
        items.append(
            TodayItem(
                kind="unknown",
                id=target,
                customer=None,
                amount=entry.amount,
                due_at=(entry.sent_at or entry.created_at).astimezone(UTC),
                estimated=False,
                why=_why_unsettled(entry),
                target="charge" if entry.charge_id else "history",
                target_id=target,
                basis="journal",
            )
        )
    return items


async def _rows(
    read: Callable[[int, int], Awaitable[Page[Any]]], notes: list[str], what: str
) -> AsyncIterator[Any]:
    """Every readable, proven row of a paged list (at most `MAX_ROWS`); what was left out is
    one note at the end."""
    offset = 0
    count = unproven = unreadable = 0
    try:
        while True:
            page = await read(PAGE_SIZE, offset)
            unproven += len(page.unproven)
            unreadable += len(page.unreadable)
            for item in page.items:
                if _row_id(item) in page.unproven:
                    continue
                count += 1
                yield item
            if page.paging_note:
                notes.append(f"{what}: {page.paging_note}")
                return
            if count >= MAX_ROWS:
                notes.append(f"{what}: stopped after {MAX_ROWS} rows")
                return
            if not page.has_more or page.next_offset <= offset:
                return
            offset = page.next_offset
    finally:
        if unproven:
            notes.append(f"{what}: {unproven} rows not proven to match were left out")
        if unreadable:
            notes.append(f"{what}: {unreadable} unreadable rows left out")


def _row_id(item: Any) -> str:
    from paytui.api.models import row_id

    return row_id(item)


def _utc(value: datetime | None) -> datetime | None:
    return value.astimezone(UTC) if value is not None else None


def _name(charge: Charge) -> str | None:
    return charge.contact_name or None


async def _chargebacks(
    client: PaymentClient,
    prefs: TodayPrefs,
    seen: SeenStore,
    now: datetime,
    notes: list[str],
    item_keys: Mapping[str, Sequence[str]] | None = None,
) -> list[TodayItem]:
    from paytui.api.queries import CHARGEBACKS

    found: list[tuple[Charge, str, Any]] = []
    record = Record()  # the merchants' won / lost chargebacks, from every row read
    async for charge in _rows(
        lambda size, offset: client.search_charges_page(
            CHARGEBACKS, limit=size, offset=offset, offload=True
        ),
        notes,
        "chargebacks",
    ):
        # Proven here, whatever the service did with the filter: it carries a chargeback.
        if charge.chargebacks is None and charge.status != "chargeback":
            continue
        record.add(charge)
        inner = (charge.chargebacks.items if charge.chargebacks is not None else None) or [None]
        for position, cb in enumerate(inner):
            # The one rule of the lists (`charge_state`): won or lost closes a chargeback;
            # open, a word paytui does not know, or none stays in the queue.
            if cb is not None and chargeback_state(cb) in {"won", "lost"}:
                continue
            key = getattr(cb, "chargeback_id", None) or f"{charge.charge_id}#{position}"
            found.append((charge, key, cb))
    first = await asyncio.to_thread(seen.first_seen, "chargeback", [k for _, k, _ in found], now)
    # Each chargeback's case, deadline, checklist score and advice in a thread: at 100,000
    # charges, about a thousand of them held the loop for a few hundred ms in one go.
    return await asyncio.to_thread(chargeback_items, found, first, prefs, now, record, item_keys)


def chargeback_items(
    found: Sequence[tuple[Charge, str, Any]],
    first: Mapping[str, datetime],
    prefs: TodayPrefs,
    now: datetime,
    record: Record,
    item_keys: Mapping[str, Sequence[str]] | None = None,
) -> list[TodayItem]:
    """The queue's rows of the open chargebacks read (`found`: each charge, its chargeback's
    key and the chargeback), with when each was first seen: plain work, no I/O, run in a
    thread by `_chargebacks`."""
    from paytui.evidence.pack import charge_score

    items = []
    for charge, key, cb in found:
        amount = getattr(cb, "amount", None)
        if amount is None and charge.chargebacks is not None:
            amount = charge.chargebacks.total_amount
        case = case_of(cb, charge, now, prefs, first[key])
        due = chargeback_deadline(cb, charge, first[key], prefs)
        why = f"chargeback {case.line(now, left=False)}"
        stake = amount if amount is not None else charge.total_amount
        score = (
            charge_score(charge, cb, case.reason, item_keys=item_keys).line()
            if cb is not None
            else None
        )
        advice = advice_for(case, charge, stake, prefs.dispute_fee, record, now, score)
        items.append(
            TodayItem(
                "chargeback",
                charge.charge_id,
                _name(charge),
                amount if amount is not None else charge.total_amount,
                due.due_at,
                due.estimated,
                f"{why}: {due.words}",
                "charge",
                charge.charge_id,
                charge,
                due.basis,
                advice=advice.line(),
                past_window=past_window("chargeback", due.due_at, now),
            )
        )
    return items


async def _returns(
    client: PaymentClient, prefs: TodayPrefs, seen: SeenStore, now: datetime, notes: list[str]
) -> list[TodayItem]:
    from paytui.api.queries import ACH_RETURNS

    found: list[Charge] = []
    async for charge in _rows(
        lambda size, offset: client.search_charges_page(
            ACH_RETURNS, limit=size, offset=offset, offload=True
        ),
        notes,
        "ACH returns",
    ):
        if charge.status == "return" or charge.return_info is not None:
            found.append(charge)
    first = await asyncio.to_thread(seen.first_seen, "return", [c.charge_id for c in found], now)
    # Each return's deadline and row in a thread, as the chargebacks': at 100,000 charges about
    # 800 of them held the loop for 70-150 ms in one go.
    return await asyncio.to_thread(return_items, found, first, prefs, now)


def return_items(
    found: Sequence[Charge], first: Mapping[str, datetime], prefs: TodayPrefs, now: datetime
) -> list[TodayItem]:
    """The queue's rows of the ACH returns read, with when each was first seen: plain work,
    no I/O, run in a thread by `_returns`."""
    items = []
    for charge in found:
        info = charge.return_info
        reason = " ".join(
            str(part) for part in ((info.return_code, info.reason) if info else ()) if part
        )
        due = return_deadline(charge, first[charge.charge_id], prefs)
        items.append(
            TodayItem(
                "return",
                charge.charge_id,
                _name(charge),
                charge.total_amount,
                due.due_at,
                due.estimated,
                f"ACH return{f' {reason}' if reason else ''}: {due.words}",
                "charge",
                charge.charge_id,
                charge,
                due.basis,
                past_window=past_window("return", due.due_at, now),
            )
        )
    return items


def hold_days(prefs: TodayPrefs, brand: str | None) -> float:
    """The hold window of a card brand (`brand_hold_days`, else `hold_days`)."""
    return prefs.brand_hold_days.get((brand or "").lower(), prefs.hold_days)


def authorizations_since(prefs: TodayPrefs, now: datetime) -> datetime | None:
    """The oldest open authorization that can still be in the queue: one made earlier lapsed
    more than `lookback_days` ago whatever its brand's hold, so it would only be left out.
    None with `lookback_days = 0` (every item kept)."""
    if not prefs.lookback_days:
        return None
    longest = max([prefs.hold_days, *prefs.brand_hold_days.values()])
    return now.astimezone(UTC) - timedelta(days=prefs.lookback_days + longest)


async def _authorizations(
    client: PaymentClient, prefs: TodayPrefs, now: datetime, notes: list[str]
) -> list[TodayItem]:
    from paytui.api.queries import OPEN_AUTHORIZATIONS, ChargeQuery

    # Only the holds that can still be in the queue are read (at 100,000 charges, a year of
    # lapsed authorizations was three quarters of the rows and of the time); the filter is
    # proven on each row like the others (`created_from`, applied here if the service does not).
    since = authorizations_since(prefs, now)
    query = (
        OPEN_AUTHORIZATIONS
        if since is None
        else ChargeQuery(charge_type="authorization", captured=False, created_from=since)
    )
    found: list[Charge] = []
    async for charge in _rows(
        lambda size, offset: client.search_charges_page(
            query, limit=size, offset=offset, offload=True
        ),
        notes,
        "open authorizations",
    ):
        if not charge.is_open_authorization or charge.charge_timestamp is None:
            continue
        if since is not None and charge.charge_timestamp < since:
            continue  # a service that ignored created_from sent it
        found.append(charge)
    # The rows in a thread, as the chargebacks' (about 800 holds at 100,000 charges).
    return await asyncio.to_thread(authorization_items, found, prefs, now)


def authorization_items(
    found: Sequence[Charge], prefs: TodayPrefs, now: datetime
) -> list[TodayItem]:
    """The queue's rows of the open authorizations read (each with its timestamp): plain
    work, no I/O, run in a thread by `_authorizations`."""
    items = []
    for charge in found:
        assert charge.charge_timestamp is not None  # `_authorizations` kept only those
        brand = getattr(charge.payment_method, "type", None)
        days = hold_days(prefs, brand)
        ends = charge.charge_timestamp.astimezone(UTC) + timedelta(days=days)
        lapsed = ends <= now
        why = (
            f"the {brand or 'card'} hold ({_days(days)}) lapsed: capture may be refused;"
            " reauthorize or let it go"
            if lapsed
            else f"capture by the end of the {brand or 'card'} hold ({_days(days)}), or it lapses"
        )
        items.append(
            TodayItem(
                "authorization",
                charge.charge_id,
                _name(charge),
                charge.total_amount,
                ends,
                True,
                f"{why}: ≈ from the authorization's date {ends - timedelta(days=days):%Y-%m-%d}",
                "charge",
                charge.charge_id,
                charge,
                "authorization_date",
                lapsed,
            )
        )
    return items


async def _accounts(
    client: PaymentClient, prefs: TodayPrefs, seen: SeenStore, now: datetime, notes: list[str]
) -> list[TodayItem]:
    accounts: list[Account] = [
        account
        async for account in _rows(
            lambda size, offset: client.list_accounts_page(limit=size, offset=offset),
            notes,
            "accounts",
        )
    ]
    items = []
    stale = timedelta(days=prefs.stale_days)
    observed = [(a.account_id, a.status) for a in accounts if a.status]
    # One trip to the store's thread for all of them (one per account cost about 5 ms each).
    seen_since = await asyncio.to_thread(seen.observe_statuses, observed, now)
    for account in accounts:
        status = account.status
        if not status:
            continue
        since = seen_since[account.account_id]
        updated = _utc(account.last_updated_timestamp)
        # Both are no earlier than the change itself: the earlier one is the closer.
        changed = min(since, updated) if updated is not None else since
        basis = "account_updated" if changed != since else "first_seen"
        if status in prefs.attention_statuses:
            due, why = changed, f"{status}: the account needs information"
            if account.status_message:
                why += f" ({account.status_message})"
        elif status not in prefs.final_statuses and now - changed >= stale:
            due = changed + stale
            why = f"{status} unchanged since {changed:%Y-%m-%d} (over {_days(prefs.stale_days)})"
        else:
            continue
        items.append(
            TodayItem(
                "account",
                account.account_id,
                account.name,
                None,
                due,
                True,
                why,
                "account",
                account.account_id,
                account,
                basis,
            )
        )
    return items


def _month_bounds(now: datetime) -> tuple[datetime, datetime]:
    start = now.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    days = calendar.monthrange(start.year, start.month)[1]
    return start, start + timedelta(days=days)


def card_expiry(text: str | None) -> datetime | None:
    """The first moment a card of expiration date ``YYYY-MM`` no longer works (UTC)."""
    if not text or len(text) < 7:
        return None
    try:
        year, month = int(text[:4]), int(text[5:7])
        return datetime(year, month, 1, tzinfo=UTC) + timedelta(
            days=calendar.monthrange(year, month)[1]
        )
    except ValueError:
        return None


async def _tokens(client: PaymentClient, now: datetime, notes: list[str]) -> list[TodayItem]:
    start, end = _month_bounds(now)
    items = []
    token: Token
    async for token in _rows(
        lambda size, offset: client.list_tokens_page(limit=size, offset=offset), notes, "tokens"
    ):
        pm = token.payment_method
        contact = getattr(pm, "contact", None)
        name = contact.name if contact is not None else None
        ends = [
            (_utc(token.token_expiration_date), "the token expires"),
            (card_expiry(getattr(pm, "expiration_date", None)), "the card expires"),
        ]
        for when, what in ends:
            # "This month": the card's last valid day is in it (it stops at `end` exactly).
            if when is None or not (start < when <= end):
                continue
            items.append(
                TodayItem(
                    "token",
                    token.token_id,
                    name or None,
                    None,
                    when,
                    False,
                    f"{what} this month: ask the customer for a new card",
                    "token",
                    token.token_id,
                    token,
                )
            )
            break
    return items


def _days(value: float) -> str:
    return f"{value:g} day" if value == 1 else f"{value:g} days"


async def build_queue(
    client: PaymentClient,
    *,
    prefs: TodayPrefs | None = None,
    seen: SeenStore,
    now: datetime,
    unknown: Sequence[JournalEntry] = (),
    on_partial: Callable[[TodayQueue], None] | None = None,
    item_keys: Mapping[str, Sequence[str]] | None = None,
) -> TodayQueue:
    """Today's queue at `now`: every source read (at most `prefs.concurrency` at once), each
    row proven, sorted unknown outcomes first, then by due time. A source that fails costs
    itself only: its error is a note, the others still show.

    `on_partial`: called as each source but the last is read, with the queue so far (the same
    order and rules, and a note naming the sources still being read), so a screen can show the
    first rows without waiting for the slowest source.

    `item_keys`: the attribute keys of the evidence pack's items (`[evidence] attribute_keys`
    with paytui's, `paytui.evidence.case.attribute_keys`), for each chargeback's checklist
    score on its fight-or-accept line."""
    prefs = prefs or TodayPrefs()
    notes: list[str] = []
    failed: list[str] = []
    gate = asyncio.Semaphore(prefs.concurrency)
    # The usually short sources first: they take the gate's first places, so the first rows
    # (`on_partial`) come from them and do not wait for the long ones (the holds, a year's
    # worth at 100,000 charges; the order of the queue itself is the sort's).
    sources: list[tuple[str, Callable[[], Awaitable[list[TodayItem]]]]] = [
        ("accounts", lambda: _accounts(client, prefs, seen, now, notes)),
        ("tokens", lambda: _tokens(client, now, notes)),
        ("ACH returns", lambda: _returns(client, prefs, seen, now, notes)),
        ("chargebacks", lambda: _chargebacks(client, prefs, seen, now, notes, item_keys)),
        ("open authorizations", lambda: _authorizations(client, prefs, now, notes)),
    ]
    found: dict[str, list[TodayItem]] = {}

    async def one(name: str, read: Callable[[], Awaitable[list[TodayItem]]]) -> None:
        from paytui.api.errors import ApiError

        async with gate:
            try:
                found[name] = await read()
            except ApiError as exc:
                notes.append(f"{name}: not read ({exc.message})")
                failed.append(name)
                found[name] = []
        if on_partial is not None and len(found) < len(sources):
            reading = ", ".join(n for n, _ in sources if n not in found)
            so_far, said = dict(found), [f"still reading {reading}", *notes]
            # Merged and sorted in a thread (a thousand rows held the loop for 30-50 ms), one
            # at a time: the lock's waiters go first come, first served, so each partial queue
            # is handed over in the order its sources arrived.
            async with in_order:
                on_partial(await asyncio.to_thread(_assemble, so_far, unknown, prefs, now, said))

    in_order = asyncio.Lock()
    reads = [asyncio.ensure_future(one(name, read)) for name, read in sources]
    try:
        await asyncio.gather(*reads)
    except BaseException:
        # One source failed past a note (not an `ApiError`): `gather` raises at once but leaves
        # the others running, and each would still hand a partial queue to the screen, over the
        # error or over a newer read. They stop here; the first error is the one raised.
        for read in reads:
            read.cancel()
        await asyncio.gather(*reads, return_exceptions=True)
        raise
    queue = await asyncio.to_thread(_assemble, found, unknown, prefs, now, notes)
    queue.failed = failed
    return queue


def _assemble(
    found: dict[str, list[TodayItem]],
    unknown: Sequence[JournalEntry],
    prefs: TodayPrefs,
    now: datetime,
    notes: list[str],
) -> TodayQueue:
    """The queue of the sources read so far: unknown outcomes first, then by due time; items
    overdue by more than `lookback_days` left out and counted (a note says so)."""
    items = items_from_journal(unknown)
    left_out: dict[str, int] = {}
    oldest = now - timedelta(days=prefs.lookback_days) if prefs.lookback_days else None
    for rows in found.values():
        for item in rows:
            if oldest is not None and item.due_at < oldest:
                left_out[item.kind] = left_out.get(item.kind, 0) + 1
            else:
                items.append(item)
    items.sort(key=lambda item: item.sort_key)
    notes = list(notes)
    late = sum(1 for item in items if item.past_window)
    if late:
        notes.append(f"{late} past their window, below what can be won")
    lapsed = sum(1 for item in items if item.lapsed)
    if lapsed:
        notes.append(
            f"{lapsed} lapsed hold{'s' if lapsed != 1 else ''}, below what can be acted on"
        )
    since = authorizations_since(prefs, now)
    if left_out or since is not None:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(left_out.items()))
        older = f"holds before {since:%Y-%m-%d} not read" if since is not None else ""
        notes.append(
            f"overdue by more than {_days(prefs.lookback_days)}, left out: "
            f"{'; '.join(part for part in (counts, older) if part)} ([today] lookback_days)"
        )
    return TodayQueue(items, now, notes, left_out)
