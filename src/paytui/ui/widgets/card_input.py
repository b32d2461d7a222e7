"""`CardInput`: a card (or bank account) number field that shows only the last four digits.

The full number lives in one private attribute of this widget and nowhere else: the screen shows
``•••• •••• •••• 1111``, `render` is built from the length and the last four only, and the value
leaves the widget solely as a `pydantic.SecretStr` (`secret`), which the request models mask in
every repr, log and journal line. Notifications and error messages may use `last4` and `brand`.

Keys: digits append, backspace removes the last digit, ctrl+u / delete clears; pasting keeps the
digits of what was pasted (spaces and dashes dropped). Nothing else is accepted.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import SecretStr
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from paytui.validation import card_brand, check_bank_account_number, check_card_number, mask_card


class CardInput(Widget, can_focus=True):
    """A masked number field. `kind` is ``card`` (brand shown) or ``bank`` (account number)."""

    DEFAULT_CSS = """
    CardInput {
        height: 1;
        width: 1fr;
        background: $boost;
        color: $foreground;
        padding: 0 1;
    }
    CardInput:focus {
        background: $surface-lighten-1;
        text-style: bold;
    }
    CardInput.-invalid {
        background: $error 20%;
    }
    """

    BINDINGS: ClassVar = [
        Binding("ctrl+u,delete", "clear", "Clear", id="card_input.clear", show=False),
    ]
    HELP_TITLE = "Card number"
    #: Its keys act inside the field only: not in the key map (ctrl+u pages up in tables).
    KEYS_TITLE: ClassVar[str | None] = None
    MAX_DIGITS = 19

    class Changed(Message):
        """The number changed; carries only what may be shown (length, last four, brand)."""

        def __init__(self, card_input: CardInput) -> None:
            super().__init__()
            self.card_input = card_input
            self.length = card_input.length
            self.last4 = card_input.last4
            self.brand = card_input.brand

        @property
        def control(self) -> CardInput:
            return self.card_input

    def __init__(
        self,
        *,
        kind: str = "card",
        placeholder: str = "card number",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.kind = kind
        self.placeholder = placeholder
        self.__digits = ""

    def __repr__(self) -> str:  # never the number, whatever Textual's repr would include
        return f"CardInput(id={self.id!r}, length={self.length})"

    # --- what may be known about the number --------------------------------------------------
    @property
    def length(self) -> int:
        return len(self.__digits)

    @property
    def last4(self) -> str:
        return self.__digits[-4:]

    @property
    def brand(self) -> str | None:
        return card_brand(self.__digits) if self.kind == "card" else None

    @property
    def secret(self) -> SecretStr:
        """The number for the request model (masked in repr, logs and the journal)."""
        return SecretStr(self.__digits)

    def check(self) -> str | None:
        """The field's error message (length, Luhn, brand) or None; never quotes the number."""
        if self.kind == "card":
            return check_card_number(self.__digits)
        return check_bank_account_number(self.__digits)

    @property
    def masked(self) -> str:
        if self.kind == "card":
            return mask_card(self.length, self.last4)
        return "•" * max(0, self.length - 4) + self.last4

    # --- editing ----------------------------------------------------------------------------
    def _set(self, digits: str) -> None:
        digits = digits[: self.MAX_DIGITS]
        if digits != self.__digits:
            self.__digits = digits
            self.refresh()
            self.post_message(self.Changed(self))

    def clear(self) -> None:
        self._set("")

    def action_clear(self) -> None:
        self.clear()

    def type_digits(self, text: str) -> None:
        """Append the digits of `text` (what a paste or a test types)."""
        self._set(self.__digits + "".join(ch for ch in text if "0" <= ch <= "9"))

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """Every printable key belongs to this field (like an Input): no single-letter binding
        of the screen or the app fires while it has focus."""
        return character is not None and character.isprintable()

    def on_key(self, event: events.Key) -> None:
        if event.character is not None and "0" <= event.character <= "9" and len(event.key) == 1:
            event.stop()
            event.prevent_default()
            self._set(self.__digits + event.character)
        elif event.is_printable:
            event.stop()  # a letter in a number field: dropped here, never a key of the screen
            event.prevent_default()
        elif event.key == "backspace":
            event.stop()
            event.prevent_default()
            self._set(self.__digits[:-1])

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        self.type_digits(event.text)

    def render(self) -> Text:
        if not self.length:
            text = Text(self.placeholder, style="dim")
        else:
            text = Text(self.masked)
            brand = self.brand
            if brand:
                text.append(f"  {brand}", style="italic")
        if self.has_focus:
            text.append("▏")
        return text
