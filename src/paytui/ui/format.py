"""How values look on screen, in one place, so every screen shows money, time and status alike.

Everything returns `rich.text.Text` built from plain strings: text that comes from the API or
the user is data, never markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from functools import lru_cache

from rich.console import JustifyMethod
from rich.style import Style
from rich.text import Text
from textual.color import Color

from paytui.api.money import format_amount
from paytui.boarding import BOARDING_STATUSES as BOARDING_STATUSES
from paytui.text import safe

# --- Colours --------------------------------------------------------------------------------------
# paytui paints text with the theme's own colours, never a literal colour: every style below is a
# *role* ("success", "bold error") that `tone` turns into the running theme's `$text-<role>`
# variable, so a status reads well on every theme and changes with it. Colour is never the only
# cue: it is always on text that says the same in words (a status, a sign, a category).

#: Roles and the Textual theme variable each one takes its colour from.
ROLE_VARIABLES = {
    "success": "text-success",
    "error": "text-error",
    "warning": "text-warning",
    "info": "text-primary",
    "secondary": "text-secondary",
    "accent": "text-accent",
}
_theme_variables: dict[str, str] | None = None


def use_theme(variables: dict[str, str]) -> None:
    """Called by the App whenever its CSS variables are (re)built, i.e. when the theme changes."""
    global _theme_variables
    _theme_variables = dict(variables)
    tone.cache_clear()


def _variables() -> dict[str, str]:
    if _theme_variables is None:
        # Outside a running App (unit tests, exports): the default theme's colours.
        from textual.theme import BUILTIN_THEMES

        use_theme(BUILTIN_THEMES["textual-dark"].to_color_system().generate())
    assert _theme_variables is not None
    return _theme_variables


@lru_cache(maxsize=64)
def tone(spec: str) -> Style:
    """A style from a role spec: "bold error" is bold in the theme's `$text-error` colour.

    Words that are not roles are Rich attributes ("bold", "dim", "italic")."""
    words = spec.split()
    attributes = " ".join(word for word in words if word not in ROLE_VARIABLES)
    style = Style.parse(attributes) if attributes else Style()
    for word in words:
        if word in ROLE_VARIABLES:
            colour = Color.parse(_variables()[ROLE_VARIABLES[word]])
            style += Style(color=colour.rich_color)
    return style


#: Money leaving a merchant's balance (chargebacks, returns, fees), in distribution totals.
OUTGOING_STYLE = "error"
#: The signs of a change list (edit tags review): added, removed, changed.
CHANGE_STYLES = {"+": "bold success", "-": "bold error", "~": "bold warning"}
#: Journal states of a money action (History).
ACTION_STATE_STYLES = {
    "succeeded": "bold success",
    "failed": "bold error",
    "not_applied": "warning",
    "unknown": "bold accent",
    "pending": "bold accent",
    "sent": "bold accent",
    "awaiting_service": "bold warning",
    "succeeded_late": "bold success",
    "refused": "warning",
}
#: A journal state's words where its name is not enough.
STATE_WORDS = {"awaiting_service": "awaiting the service", "succeeded_late": "succeeded (late)"}
STATUS_STYLES = {
    "success": "success",
    "declined": "error",
    "chargeback": "bold error",
    "return": "bold warning",
}
RESULT_STYLES = {
    "Approved": "success",
    "Authorized": "info",
    "ProcessorPendingACHSale": "warning",
    "Declined": "error",
}


#: Money on screen is `paytui.api.money.format_amount`: two places, grouped, safe for any value.
money = format_amount


def timestamp(value: datetime | None) -> str:
    """UTC, to the second: support staff compare times with customers across time zones. A
    time with no UTC form (year 9999 west of UTC, year 1 east of it: a service's odd value)
    shows with its own offset rather than failing the row, the list or the screen."""
    if value is None:
        return "—"
    try:
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    except OverflowError:
        return value.isoformat(sep=" ", timespec="seconds")


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


def span(seconds: float) -> str:
    """A length of time in its two largest units ("59 min 12 s", "2 h 10 min", "5 d 9 h").

    "in 7783 min" cannot be read at a glance; "5 d 9 h" can. Negative spans read as positive:
    callers say "in" or "ago" themselves.
    """
    left = abs(int(seconds))
    units = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))
    for index, (name, size) in enumerate(units):
        if left >= size or size == 1:
            whole, rest = divmod(left, size)
            if index + 1 == len(units):
                return f"{whole} {name}"
            small_name, small_size = units[index + 1]
            return f"{whole} {name} {rest // small_size} {small_name}"
    return "0 s"  # not reached: the last unit always matches


def literal(value: object, style: str = "", *, justify: JustifyMethod | None = None) -> Text:
    """API, user, config or error text, shown as it is: markup inside it is data, and control
    characters show as placeholders (`paytui.text.safe`, the one display sanitiser). `style` is a
    role spec (see `tone`)."""
    return Text(safe(value), style=tone(style), justify=justify)


def status(value: str | None) -> Text:
    return Text(safe(value or "—"), style=tone(STATUS_STYLES.get(value or "", "")))


def result_code(value: str | None) -> Text:
    return Text(safe(value or "—"), style=tone(RESULT_STYLES.get(value or "", "")))


def action_state(state: str) -> Text:
    """A money action's journal state in words and colour ("not applied" in yellow)."""
    words = STATE_WORDS.get(state) or state.replace("_", " ")
    return literal(words, style=ACTION_STATE_STYLES.get(state, ""))


def distribution_status(value: str | None) -> Text:
    """A distribution's status: paid in green, anything else (pending, ...) in yellow."""
    return literal(value or "—", style="success" if value == "paid" else "warning")


# --- Boarding status of payment accounts --------------------------------------------------------
#: One look per boarding status (role specs, see `tone`).
BOARDING_STYLES = {
    "draft": "dim",
    "submitted": "info",
    "in_review": "secondary",
    "info_required": "bold warning",
    "approved": "success",
    "declined": "error",
    "suspended": "accent",
    "closed": "dim error",
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


def boarding_statuses(seen: Iterable[str | None] = ()) -> tuple[str, ...]:
    """The statuses to filter by: the sandbox's, then every other one the service showed (in
    `seen`), as it came — the spec shows no list, so a real service may have its own."""
    known = set(BOARDING_STATUSES)
    extra = [status for status in dict.fromkeys(seen) if status and status not in known]
    return (*BOARDING_STATUSES, *extra)


def boarding_meaning(value: str | None) -> str:
    """The one-word meaning of a boarding status ("approved" -> "live"); "" when unknown."""
    return BOARDING_MEANINGS.get(value or "", "")


def boarding_status(value: str | None) -> Text:
    """A boarding status in its colour with its meaning: "approved · live"."""
    name = value or "—"
    meaning = boarding_meaning(value)
    shown = safe(name)
    return Text(
        f"{shown} · {meaning}" if meaning else shown, style=tone(BOARDING_STYLES.get(name, ""))
    )


#: One word per charge type, everywhere a charge's type is shown (the list's narrow column, the
#: detail's heading and summary, an account's recent charges, duplicates; the form's labels
#: aside, which are sentences): the words of the search language (`type:auth`), short enough for
#: the list at 80 columns. Every screen reads them here (`charge_type_name`).
CHARGE_TYPE_WORDS = {"authorization": "auth", "pre_authorization": "pre-auth"}


def charge_type_name(kind: object) -> str:
    """`sale`, `auth`, `pre-auth`, `capture`; a type the service invents is shown as it came
    (made safe); "" when there is none."""
    if not isinstance(kind, str) or not kind:
        return ""
    return CHARGE_TYPE_WORDS.get(kind) or safe(kind)


def card_text(charge: object) -> str:
    """The payment method as the service shows it (masked): "visa XXXXXXXXXXXX1111"."""
    method = getattr(charge, "payment_method", None)
    if method is None:
        return "—"
    number = getattr(method, "card_number", None) or getattr(method, "account_number", None)
    kind = getattr(method, "type", None) or getattr(method, "method", None) or ""
    return " ".join(str(part) for part in (kind, number) if part) or "—"
