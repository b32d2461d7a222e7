"""`PulseStrip`: the pulse of the business, small charts with the numbers beside them.

Each kind of `paytui.search.pulse.KINDS` is one line (`ChartLine`): its name, a sparkline of the
days (oldest left) and, as text, today's figure, the window's total and the busiest day's; the
chargeback rate's line says in words where the window's rate stands against the configured
lines, so nothing is told by colour alone (screen readers, `NO_COLOR`). Computed in an exclusive
worker (never in a frame), cached per client (a session's connection), re-read every
`refresh_seconds`; `V` switches between the short and the long window. Errors are worded by
`widgets/errors.py`, the one describer.
"""

from __future__ import annotations

import time
import weakref
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from paytui.config.model import PulsePrefs
from paytui.search.pulse import KINDS, Progress, Pulse, PulseCache, compute_pulse
from paytui.ui import format as fmt
from paytui.ui.running_app import paytui_app, still_shown
from paytui.ui.widgets.chart_line import ChartLine
from paytui.ui.widgets.errors import describe_error
from paytui.ui.widgets.ratio import RatioStrip

if TYPE_CHECKING:
    from textual.timer import Timer

#: Seconds between two draws of the progress line while the pulse is read.
PROGRESS_EVERY = 0.1
#: What each kind is called on screen.
LABELS = {
    "volume": "Sales volume",
    "captures": "Captures",
    "refunds": "Refunds",
    "chargebacks": "Chargebacks",
    "returns": "ACH returns",
    "rate": "Chargeback rate",
}
#: One cache per client: a profile switch brings a new client, so a new cache.
_CACHES: weakref.WeakKeyDictionary[Any, PulseCache] = weakref.WeakKeyDictionary()


def settings_of(node: Any) -> PulsePrefs:
    """The connection's `[pulse]` settings, or the defaults (a plain App, no such table)."""
    connection = getattr(getattr(getattr(node, "app", None), "session", None), "connection", None)
    prefs = getattr(connection, "pulse", None)
    return prefs if prefs is not None else PulsePrefs()


def _count(value: Any) -> str:
    return f"{int(value):,}"


def _money(value: Any) -> str:
    return fmt.money(Decimal(value))


def figures_text(pulse: Pulse, kind: str) -> Text:
    """The numbers beside a kind's chart: today, the window's total, the busiest day."""
    values = [getattr(day, kind) for day in pulse.days]
    show = _money if kind == "volume" else _count
    text = Text()
    text.append(f"today {show(values[-1])}", "bold")
    text.append(f" · {len(values)} d {show(pulse.total(kind))} · max {show(max(values))}")
    if kind in pulse.unproven:
        text.append(" · not proven (upper bound)", fmt.tone("warning"))
    return text


def rate_text(pulse: Pulse, settings: PulsePrefs) -> Text:
    """The window's chargeback rate and, in words, where it stands against the lines."""
    rate = pulse.chargeback_rate
    text = Text()
    if rate is None:
        text.append("no sales in the window", "dim")
        return text
    text.append(f"{rate:.2f} %", "bold")
    text.append(f" over {len(pulse.days)} d · lines {settings.warn_rate:g} % / ")
    text.append(f"{settings.alert_rate:g} % · ")
    if rate >= settings.alert_rate:
        text.append(f"ABOVE the {settings.alert_rate:g} % line", fmt.tone("bold error"))
    elif rate >= settings.warn_rate:
        text.append(f"above the {settings.warn_rate:g} % warning line", fmt.tone("bold warning"))
    else:
        text.append("below both lines", fmt.tone("success"))
    return text


class PulseStrip(Vertical):
    """The pulse: a title line (window, state), then one chart row per kind."""

    can_focus = True
    HELP_TITLE = "Pulse"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "V", "toggle_days", "30/90 days", id="pulse.days", tooltip="The long window, or back"
        ),
        Binding(
            "ctrl+r", "refresh", "Refresh", id="pulse.refresh", tooltip="Compute the pulse again"
        ),
    ]
    DEFAULT_CSS = """
    PulseStrip { height: auto; padding: 0 1; }
    PulseStrip:focus { background: $boost; }
    PulseStrip #pulse-title { height: 1; width: 1fr; }
    PulseStrip .pulse-row { height: 1; }
    """

    def __init__(
        self,
        *,
        id: str | None = None,
        classes: str | None = None,
        wait: bool = False,
        every_account: bool = False,
    ) -> None:
        """`wait`: read only when `start` is called (Today starts it once its queue's first
        rows are on screen: both read the same service, and the queue is what a person came
        for; at 100,000 charges the pulse's reads held the queue's back by seconds).
        `every_account`: the dispute ratio under the days shows every account (the Pulse
        screen), not only the `ratio_accounts` with the highest ratio (Today)."""
        super().__init__(id=id, classes=classes)
        self.every_account = every_account
        self.settings = PulsePrefs()
        self.long = False
        self.pulse: Pulse | None = None
        self._timer: Timer | None = None
        self._waiting = wait
        #: When the progress line was last drawn (`time.monotonic`).
        self._said = 0.0
        #: The month's dispute ratio is to be read once the days are (`_read_ratio_owed`).
        self._ratio_owed = False

    @property
    def days(self) -> int:
        return self.settings.long_days if self.long else self.settings.days

    def compose(self) -> ComposeResult:
        yield Static(Text("Pulse · loading…", "dim"), id="pulse-title")
        for kind in (*KINDS, "rate"):  # a line a kind, one widget each (`ChartLine`)
            yield ChartLine(
                LABELS[kind],
                label_width=16,
                chart_width=30,
                classes="pulse-row",
                id=f"pulse-{kind}",
            )
        yield RatioStrip(every_account=self.every_account, id="ratio")

    def on_mount(self) -> None:
        self.settings = settings_of(self)
        self._timer = self.set_interval(max(1.0, self.settings.refresh_seconds), self.tick)
        if not self._waiting:
            self.load()

    def start(self) -> None:
        """A waiting strip reads now (the cached pulse first, if any); once only."""
        if self._waiting:
            self._waiting = False
            self.load()

    def tick(self) -> None:
        """Read again on the timer only while the strip's screen is the one shown: a pulse
        behind another screen or mode waits for the first tick after it is shown again."""
        if self.screen.is_current and not self._waiting:
            self.load(cached=False)

    def action_toggle_days(self) -> None:
        self.long = not self.long
        self.load(ratio=False)  # the month's ratio does not depend on the window

    def action_refresh(self) -> None:
        self.load(cached=False)

    # --- reading --------------------------------------------------------------------------------
    def load(self, *, cached: bool = True, ratio: bool = True) -> None:
        """Compute the days (and, with `ratio`, the month's dispute ratio: `RatioStrip`, its
        cached figures at once and its reading once the days are read: the two read side by
        side shared the service and the loop, and the days, what the strip is for, drew
        2.05-2.2 s after the screen was pushed at 100,000 charges with a core busy)."""
        if ratio:
            self._ratio_owed = True
            if cached:
                self.query_one(RatioStrip).show_cached()
        self._compute(cached)

    def _read_ratio_owed(self) -> None:
        """The days are read (or failed): the dispute ratio's own reading, if one is owed."""
        owed, self._ratio_owed = self._ratio_owed, False
        if owed and still_shown(self, RatioStrip):
            self.query_one(RatioStrip).load(cached=False)

    @work(exclusive=True, group="pulse")
    async def _compute(self, cached: bool) -> None:
        host = paytui_app(self)
        days = self.days
        try:
            client = await host.get_client()
            cache = _CACHES.setdefault(client, PulseCache())
            known = cache.get(days) if cached else None
            if known is not None:
                self.show(known)
            self._title_progress(Progress(), days, refreshing=known is not None)
            pulse = await compute_pulse(
                client,
                now=host.now(),
                days=days,
                concurrency=self.settings.concurrency,
                on_progress=lambda p: self._title_progress(p, days, refreshing=known is not None),
            )
        except Exception as exc:  # every error is worded by the one describer
            if not still_shown(self, "#pulse-title"):
                return  # the strip left the screen (the app closing) while it read
            info = describe_error(exc)
            line = Text(f"Pulse · {days} days · ", "bold")
            line.append(f"{info.title}: {info.message}", fmt.tone("error"))
            if info.retryable:
                line.append(" ctrl+r retries.")
            self.query_one("#pulse-title", Static).update(line)
            self._read_ratio_owed()
            return
        cache.put(pulse)
        if still_shown(self, "#pulse-title"):
            self.show(pulse)
        self._read_ratio_owed()

    def _title_progress(self, progress: Progress, days: int, *, refreshing: bool) -> None:
        # At most every PROGRESS_EVERY seconds (a tick a page: 150-odd at 100,000 charges), and
        # a line of fixed size: repainted alone, not the screen laid out again.
        now = time.monotonic()
        if progress.done < progress.planned and now - self._said < PROGRESS_EVERY:
            return
        if not still_shown(self, "#pulse-title"):
            return  # the strip was removed while its worker read (the app closing)
        self._said = now
        line = Text(f"Pulse · last {days} days (UTC) · ", "bold")
        word = "refreshing" if refreshing else progress.phase
        done = f"{progress.done}/{progress.planned}" if progress.planned else "…"
        line.append(f"{word} {done}", "dim")
        if progress.rows:
            line.append(f" · {progress.rows:,} rows read", "dim")
        self.query_one("#pulse-title", Static).update(line, layout=False)

    # --- drawing --------------------------------------------------------------------------------
    def show(self, pulse: Pulse) -> None:
        self.pulse = pulse
        title = Text(f"Pulse · last {len(pulse.days)} days (UTC)", "bold")
        title.append(f" · as of {fmt.clock(pulse.computed_at)}")
        other = self.settings.days if self.long else self.settings.long_days
        title.append(f" · V: {other} days", "dim")
        if pulse.ignored_filters:
            title.append(
                f" · the service ignored {', '.join(pulse.ignored_filters)}: read and "
                "filtered here",
                fmt.tone("warning"),
            )
        # Every line is of fixed size: each repainted alone, the screen not laid out again.
        self.query_one("#pulse-title", Static).update(title, layout=False)
        for kind in KINDS:
            line = self.query_one(f"#pulse-{kind}", ChartLine)
            line.show(pulse.series(kind), figures_text(pulse, kind))
        rates = [day.chargeback_rate or 0.0 for day in pulse.days]
        self.query_one("#pulse-rate", ChartLine).show(rates, rate_text(pulse, self.settings))
