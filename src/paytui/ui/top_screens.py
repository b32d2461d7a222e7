"""The top-level screens, each declared once: its mode, number key, title and words.

The App's modes (`PaytuiApp.MODES`), the number keys `1`-`5` and `0`
(`bindings.GLOBAL_BINDINGS`) and the palette's "Go to …" entries (`palette_commands`) are all
built from `TOP_SCREENS`; a new top-level screen is one entry here. Each screen's module is
imported on first visit only (the charge search, the start screen, at start).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SCREENS", "TOP_SCREENS", "TopScreen"]


@dataclass(frozen=True)
class TopScreen:
    """`mode` is the App's mode name; `tooltip` the key's short help, `blurb` the palette's."""

    mode: str
    key: str
    title: str
    tooltip: str
    blurb: str
    module: str
    screen_class: str


TOP_SCREENS: tuple[TopScreen, ...] = (
    TopScreen(
        "charges",
        "1",
        "Charges",
        "Charge search",
        "Search charges: chargebacks, ACH returns, open authorizations",
        "paytui.ui.screens.charges",
        "ChargeSearchScreen",
    ),
    TopScreen(
        "tokens",
        "2",
        "Tokens",
        "Stored card tokens",
        "Stored card tokens",
        "paytui.ui.screens.tokens",
        "TokensScreen",
    ),
    TopScreen(
        "accounts",
        "3",
        "Accounts",
        "Merchant accounts",
        "Merchant accounts and their boarding status",
        "paytui.ui.screens.accounts",
        "AccountsScreen",
    ),
    TopScreen(
        "distributions",
        "4",
        "Distributions",
        "Payouts to merchant accounts",
        "Payouts to merchant accounts",
        "paytui.ui.screens.distributions",
        "DistributionsScreen",
    ),
    TopScreen(
        "history",
        "5",
        "History",
        "Recent actions",
        "Every action taken with paytui, across sessions and processes",
        "paytui.ui.screens.history",
        "HistoryScreen",
    ),
    TopScreen(
        "today",
        "0",
        "Today",
        "What needs doing next",
        "Today: chargebacks, holds to capture, returns, accounts, by deadline",
        "paytui.ui.screens.today",
        "TodayScreen",
    ),
)

#: (mode name, title, one-line help) of every top-level screen: `1`..`5`, then `0`.
SCREENS: tuple[tuple[str, str, str], ...] = tuple((s.mode, s.title, s.blurb) for s in TOP_SCREENS)
