"""`RatioStrip`: the dispute ratio under the day pulse (docs/today.md, "The dispute ratio").

A title line (the month, the lines, what the counts rest on), then one line per account
(`ChartLine`), highest ratio first: its id, a sparkline of the month-to-date ratio at the end of
each day, and beside it as text the same line's numbers (today's ratio, the peak and its day),
the disputes of the sales with their amounts, the open cases and the standing in words (never
colour alone). Computed by `paytui.today.ratio.compute_ratio` in a worker, its pages parsed in a
thread; the result comes back as a message (`Computed`), drawn in the message handler. Cached
per client; the `PulseStrip` it sits in starts and refreshes it.
"""

from __future__ import annotations

import time
import weakref
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from paytui.text import safe
from paytui.today.ratio import AccountRatio, RatioPulse, compute_ratio, lines_of, standing
from paytui.ui import format as fmt
from paytui.ui.messages import Latest
from paytui.ui.running_app import paytui_app, still_shown
from paytui.ui.widgets.chart_line import ChartLine
from paytui.ui.widgets.errors import describe_error

if TYPE_CHECKING:
    from paytui.config.model import PulsePrefs

#: Seconds between two draws of the progress line while the month is read.
PROGRESS_EVERY = 0.1
#: One ratio per client: a profile switch brings a new client, so a new one.
_CACHES: weakref.WeakKeyDictionary[Any, RatioPulse] = weakref.WeakKeyDictionary()
_TONES = {"above": "bold error", "under_count": "bold warning", "below": "success"}


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _percent(ratio: float | None) -> str:
    return "—" if ratio is None else f"{100 * ratio:.2f} %"


def figures_text(account: AccountRatio, pulse: RatioPulse, settings: PulsePrefs) -> Text:
    """The numbers beside an account's chart: today's ratio (the chart's last point), the
    standing in words, the counts, the open cases, the peak and its day, the amounts."""
    where = standing(account.ratio, account.disputes, lines_of(settings))
    trend = account.trend()
    text = Text()
    text.append(_percent(account.ratio), "bold")
    text.append(" · ")
    text.append(where.words, fmt.tone(_TONES[where.level]))
    text.append(f" · {account.disputes:,} of {_count(account.sales, 'sale')}")
    if account.open_cases:
        text.append(f" · {len(account.open_cases):,} open")
    if trend and max(trend) > 0:
        peak = max(range(len(trend)), key=lambda i: (trend[i], i))
        text.append(f" · peak {trend[peak]:.2f} % {pulse.days[peak]:%d %b}")
    text.append(
        f" · {fmt.money(account.disputes_amount)} of {fmt.money(account.sales_amount)}", "dim"
    )
    return text


def open_text(shown: tuple[AccountRatio, ...], pulse: RatioPulse) -> Text:
    """The line under the accounts: the open cases in the month's count, the accounts not shown."""
    cases = [case for account in pulse.accounts for case in account.open_cases]
    text = Text()
    if cases:
        total = sum((case.amount for case in cases), Decimal(0))
        oldest = min(case.disputed_at for case in cases)
        text.append(f"Open cases in this month's count: {len(cases):,}", "bold")
        text.append(f" ({fmt.money(total)}), first disputed {oldest:%d %b}")
    else:
        text.append("No open case in this month's count", "dim")
    hidden = len(pulse.accounts) - len(shown)
    if hidden > 0:
        text.append(f" · {_count(hidden, 'more account')}: palette Pulse, or paytui pulse", "dim")
    return text


class RatioStrip(Vertical):
    """The dispute ratio of the month: a title, a row per account shown, the open cases."""

    class Computed(Latest):
        """The worker's result (the month's ratio), drawn by the strip's handler."""

        def __init__(self, pulse: RatioPulse) -> None:
            super().__init__()
            self.pulse = pulse

    DEFAULT_CSS = """
    RatioStrip { height: auto; }
    RatioStrip #ratio-title { height: 1; width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    RatioStrip #ratio-rows { height: auto; }
    RatioStrip .ratio-row { height: 1; }
    RatioStrip #ratio-open { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, every_account: bool = False, id: str | None = None) -> None:
        """`every_account`: a row for each account (the Pulse screen); else the
        `[pulse] ratio_accounts` with the highest ratio (Today)."""
        super().__init__(id=id)
        self.every_account = every_account
        self.pulse: RatioPulse | None = None
        self._said = 0.0

    def compose(self) -> ComposeResult:
        yield Static(Text("Dispute ratio · waiting…", "dim"), id="ratio-title")
        yield Vertical(id="ratio-rows")
        yield Static("", id="ratio-open")

    def _settings(self) -> PulsePrefs:
        from paytui.ui.widgets.pulse import settings_of

        return settings_of(self)

    # --- reading --------------------------------------------------------------------------------
    def load(self, *, cached: bool = True) -> None:
        self._compute(cached)

    def show_cached(self, client: Any = None) -> None:
        """The figures last computed over `client` (else the connected one), if any, until a
        `load` reads them anew (the pulse's strip reads its days first: `PulseStrip.load`)."""
        client = client if client is not None else paytui_app(self).connected_client
        known = _CACHES.get(client) if client is not None else None
        if known is not None:
            self.post_message(self.Computed(known))

    @work(exclusive=True, group="ratio")
    async def _compute(self, cached: bool) -> None:
        host = paytui_app(self)
        settings = self._settings()
        try:
            client = await host.get_client()
            if cached:
                self.show_cached(client)
            self._progress(0, force=True)
            pulse = await compute_ratio(
                client,
                now=host.now(),
                concurrency=settings.concurrency,
                on_progress=self._progress,
            )
        except Exception as exc:  # every error is worded by the one describer
            if not still_shown(self, "#ratio-title"):
                return
            info = describe_error(exc)
            line = Text("Dispute ratio · ", "bold")
            line.append(f"{info.title}: {info.message}", fmt.tone("error"))
            if info.retryable:
                line.append(" ctrl+r retries.")
            self.query_one("#ratio-title", Static).update(line)
            return
        _CACHES[client] = pulse
        self.post_message(self.Computed(pulse))

    def _progress(self, rows: int, *, force: bool = False) -> None:
        if not still_shown(self, "#ratio-title"):
            return
        now = time.monotonic()
        if not force and now - self._said < PROGRESS_EVERY:
            return
        self._said = now
        line = Text("Dispute ratio · this month (UTC) · ", "bold")
        line.append(f"reading · {rows:,} rows read", "dim")
        if self.pulse is None:
            self.query_one("#ratio-title", Static).update(line, layout=False)

    # --- drawing --------------------------------------------------------------------------------
    async def on_ratio_strip_computed(self, message: RatioStrip.Computed) -> None:
        message.stop()
        if still_shown(self, "#ratio-title"):
            await self.show(message.pulse)

    async def show(self, pulse: RatioPulse) -> None:
        self.pulse = pulse
        settings = self._settings()
        lines = lines_of(settings)
        title = Text(f"Dispute ratio · {pulse.month_start:%B %Y} (UTC)", "bold")
        title.append(f" · as of {fmt.clock(pulse.computed_at)} · lines ")
        percents = sorted({line.percent for line in lines})
        title.append(" / ".join(f"{percent:g} %" for percent in percents) or "none")
        if pulse.ignored_filters:
            title.append(
                f" · the service ignored {', '.join(pulse.ignored_filters)}: filtered here",
                fmt.tone("warning"),
            )
        if pulse.unproven:
            title.append(" · not proven (upper bound)", fmt.tone("warning"))
        unknown = sum(pulse.unknown_statuses.values())
        if unknown:
            title.append(f" · {unknown:,} charges of unknown status not counted", "dim")
        self.query_one("#ratio-title", Static).update(title, layout=False)
        shown = pulse.accounts if self.every_account else pulse.accounts[: settings.ratio_accounts]
        await self._put_rows(shown, pulse, settings)
        self.query_one("#ratio-open", Static).update(open_text(shown, pulse), layout=False)

    async def _put_rows(
        self, shown: tuple[AccountRatio, ...], pulse: RatioPulse, settings: PulsePrefs
    ) -> None:
        """One row per account shown, in place: the rows already there take the new accounts'
        text and charts (a refresh every `refresh_seconds` builds no widget: mounting a row's
        widgets again each time held the loop, and Textual keeps the drawing cache of every
        widget it has drawn); only the rows missing are mounted, only those left over removed.
        Every line is of fixed size, so nothing is laid out again for a new text."""
        rows = self.query_one("#ratio-rows", Vertical)
        kept = list(rows.query_children(ChartLine))
        for line, account in zip(kept, shown, strict=False):
            figures = figures_text(account, pulse, settings)
            line.show(account.trend(), figures, label=safe(account.account_id))
        if len(kept) > len(shown):
            await rows.remove_children(kept[len(shown) :])
        elif len(shown) > len(kept):
            await rows.mount_all(
                ChartLine(
                    safe(account.account_id),
                    label_width=24,
                    data=account.trend(),
                    figures=figures_text(account, pulse, settings),
                    classes="ratio-row",
                )
                for account in shown[len(kept) :]
            )
