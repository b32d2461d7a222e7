"""Messages that cross screens.

Widget-local messages live as inner classes of their widget (e.g. `ChargeTable.Selected`); only
messages that one screen sends for the app or another screen to act on belong here. Messages from
a screen bubble to the App, which routes them; screens never reach into each other.
"""

from __future__ import annotations

from textual.message import Message


class OpenCharge(Message):
    """Ask the app to open the detail of one charge (from any list or link)."""

    def __init__(self, charge_id: str) -> None:
        super().__init__()
        self.charge_id = charge_id


class AccountInFocus(Message):
    """The account the user is looking at changed; the header shows it.

    `account_id=None` clears it (e.g. an empty result).
    """

    def __init__(self, account_id: str | None) -> None:
        super().__init__()
        self.account_id = account_id


class ResultsPainted(Message):
    """A screen painted its first page of results (start-up benchmark and tests hook this)."""

    def __init__(self, total: int | None) -> None:
        super().__init__()
        self.total = total
