"""Messages that cross screens.

Widget-local messages live as inner classes of their widget (e.g. `ChargeTable.Selected`); only
messages that one screen sends for the app or another screen to act on belong here. Messages from
a screen bubble to the App, which routes them; screens never reach into each other.
"""

from __future__ import annotations

from textual.message import Message


class Latest(Message):
    """A message only the newest of which matters (where the cursor is, what the window shows,
    a result computed again): while a newer one from the same origin waits right behind it in a
    queue, this one is dropped unhandled (Textual's `can_replace`, as toolong coalesces its
    pointer moves and scan progress). A held `j` then moves the cursor a row a key, but the
    screen redraws its preview once for the keys that arrived together, not once a key.

    `origin` is what posted it (the widget), so the highlights of two tables on one screen
    never replace each other; None: any of its kind replaces it."""

    def __init__(self, origin: object = None) -> None:
        super().__init__()
        self.origin = origin

    def can_replace(self, message: Message) -> bool:
        return type(message) is type(self) and getattr(message, "origin", None) is self.origin


class OpenCharge(Message):
    """Ask the app to open the detail of one charge (from any list or link)."""

    def __init__(self, charge_id: str) -> None:
        super().__init__()
        self.charge_id = charge_id


class AccountInFocus(Latest):
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
