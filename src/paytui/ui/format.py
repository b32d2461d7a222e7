"""How values look on screen, in one place, so every screen shows money, time and status alike.

Everything returns `rich.text.Text` built from plain strings: text that comes from the API or
the user is data, never markup.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import JustifyMethod
from rich.text import Text

from paytui.api.money import format_amount
from paytui.text import safe

# --- Colours --------------------------------------------------------------------------------------
# Every colour paytui paints text with is named in this section, by what it means, and always on
# text that says the same in words (a status, a sign, a category): colour is never the only cue.
# Rich style names that read well on every theme.

#: Money leaving a merchant's balance (chargebacks, returns, fees), in distribution totals.
OUTGOING_STYLE = "red"
#: The signs of a change list (edit tags review): added, removed, changed.
CHANGE_STYLES = {"+": "bold green", "-": "bold red", "~": "bold yellow"}
#: Journal states of a money action (History).
ACTION_STATE_STYLES = {
    "succeeded": "bold green",
    "failed": "bold red",
    "not_applied": "yellow",
    "unknown": "bold magenta",
    "pending": "bold magenta",
    "sent": "bold magenta",
}
STATUS_STYLES = {
    "success": "green",
    "declined": "red",
    "chargeback": "bold red",
    "return": "bold yellow",
}
RESULT_STYLES = {
    "Approved": "green",
    "Authorized": "cyan",
    "ProcessorPendingACHSale": "yellow",
    "Declined": "red",
}


#: Money on screen is `paytui.api.money.format_amount`: two places, grouped, safe for any value.
money = format_amount


def timestamp(value: datetime | None) -> str:
    """UTC, to the second: support staff compare times with customers across time zones."""
    if value is None:
        return "—"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def date(value: datetime | None) -> str:
    """The UTC day ("2026-01-31"), for lists where the time of day is noise."""
    if value is None:
        return "—"
    return value.astimezone(UTC).strftime("%Y-%m-%d")


def clock(value: datetime) -> str:
    """The UTC time of day ("14:05:09"), e.g. when a watched list was last read."""
    return value.astimezone(UTC).strftime("%H:%M:%S")


def age(value: datetime | None, now: datetime) -> str:
    """A short relative age ("3d", "5h", "12m") for scanning lists."""
    if value is None:
        return "—"
    seconds = max(0, int((now - value).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def literal(value: object, style: str = "", *, justify: JustifyMethod | None = None) -> Text:
    """API, user, config or error text, shown as it is: markup inside it is data, and control
    characters show as placeholders (`paytui.text.safe`, the one display sanitiser)."""
    return Text(safe(value), style=style, justify=justify)


def status(value: str | None) -> Text:
    return Text(safe(value or "—"), style=STATUS_STYLES.get(value or "", ""))


def result_code(value: str | None) -> Text:
    return Text(safe(value or "—"), style=RESULT_STYLES.get(value or "", ""))


def action_state(state: str) -> Text:
    """A money action's journal state in words and colour ("not applied" in yellow)."""
    return literal(state.replace("_", " "), style=ACTION_STATE_STYLES.get(state, ""))


def distribution_status(value: str | None) -> Text:
    """A distribution's status: paid in green, anything else (pending, ...) in yellow."""
    return literal(value or "—", style="green" if value == "paid" else "yellow")


# --- Boarding status of payment accounts --------------------------------------------------------
#: Boarding statuses in the order an account moves through them.
BOARDING_STATUSES: tuple[str, ...] = (
    "draft",
    "submitted",
    "in_review",
    "info_required",
    "approved",
    "declined",
    "suspended",
    "closed",
)
#: One colour per boarding status (Rich style names that read well on every theme).
BOARDING_STYLES = {
    "draft": "dim",
    "submitted": "cyan",
    "in_review": "blue",
    "info_required": "bold yellow",
    "approved": "green",
    "declined": "red",
    "suspended": "magenta",
    "closed": "dim red",
}
#: A one-word meaning of each boarding status, for people who do not know the service's terms.
BOARDING_MEANINGS = {
    "draft": "unsent",
    "submitted": "queued",
    "in_review": "checking",
    "info_required": "action",
    "approved": "live",
    "declined": "refused",
    "suspended": "paused",
    "closed": "ended",
}


def boarding_meaning(value: str | None) -> str:
    """The one-word meaning of a boarding status ("approved" -> "live"); "" when unknown."""
    return BOARDING_MEANINGS.get(value or "", "")


def boarding_status(value: str | None) -> Text:
    """A boarding status in its colour with its meaning: "approved · live"."""
    name = value or "—"
    meaning = boarding_meaning(value)
    shown = safe(name)
    return Text(f"{shown} · {meaning}" if meaning else shown, style=BOARDING_STYLES.get(name, ""))
