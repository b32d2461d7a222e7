"""One conversation, readable as a thread (`o` in the conversations lists): oldest first, who
said what and when, every text through the sanitiser (markup is data, control characters are
shown, a message's own lines kept). `l` replies (a review shows the text exactly as it will go,
then the one executor sends it once), `Z` closes it (confirmed), `o` opens the charge it is
about, `ctrl+r` reads it again.

What is read and how each line is found is `paytui.api.conversations`; the writes are
`actions/ops/conversation.py`, through the dialogs of `modals/conversation.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from paytui.api.conversations import Thread, ThreadEntry, status_word
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader

if TYPE_CHECKING:
    from paytui.api.families import GenericObject

SIDES = {"customer": ("customer", "warning"), "us": ("us", "success")}

THREAD_BINDINGS: list[Binding] = [
    Binding(
        "l",
        "reply",
        "Reply",
        id="thread.reply",
        tooltip="Write a message in this conversation; reviewed before it is sent"
        " (needs urn:v2:messages:all)",
    ),
    Binding(
        "Z",
        "close_conversation",
        "Close conversation",
        id="thread.close",
        tooltip="Close this conversation, after a confirmation (needs urn:v2:conversations:all)",
    ),
    Binding("o", "open_charge", "Open charge", id="thread.open_charge", tooltip="Open its charge"),
    Binding("ctrl+r", "refresh", "Refresh", id="thread.refresh", tooltip="Read it again"),
]


def entry_text(entry: ThreadEntry) -> Text:
    """One line of the thread: when and who (bold), then what was said, a line at a time."""
    text = Text()
    text.append(fmt.timestamp(entry.at), style=fmt.tone("dim"))
    if entry.kind == "event":
        text.append("  — ")
        text.append_text(fmt.literal(entry.text, "bold"))
        if entry.who:
            text.append(" by ")
            text.append_text(fmt.literal(entry.who))
        text.append(" —")
        return text
    word, style = SIDES.get(entry.side, ("", ""))
    text.append("  ")
    text.append_text(fmt.literal(entry.who or "someone", f"bold {style}".strip()))
    if word:
        # After a dot, not in brackets: a name may carry its own ("Sam (support)"), and "Sam
        # (support) (us)" read as two asides.
        text.append(f" · {word}", style=fmt.tone(style))
    shown, left = _folded(entry.text)
    for line in shown.split("\n"):
        text.append("\n    ")
        text.append_text(fmt.literal(line))
    if left:
        text.append("\n    ")
        text.append(
            f"… {left:,} more characters not shown here (`paytui messages list` writes the"
            " message whole)",
            style=fmt.tone("warning"),
        )
    return text


#: What one message shows at most on screen, in characters and lines: a body of 1 MB from the
#: service froze the dashboard for seconds while it was laid out (and doubled its memory).
#: The rest is said, with its size, never dropped in silence; the data itself is kept whole.
SHOWN_CHARACTERS = 8_000
SHOWN_LINES = 200


def _folded(body: str) -> tuple[str, int]:
    """The part of `body` shown (`SHOWN_CHARACTERS`, `SHOWN_LINES`) and how many characters
    are left out."""
    shown = body[:SHOWN_CHARACTERS]
    cut = -1
    for _ in range(SHOWN_LINES):
        cut = shown.find("\n", cut + 1)
        if cut < 0:
            break
    if cut >= 0:
        shown = shown[:cut]
    return shown, len(body) - len(shown)


def thread_text(thread: Thread) -> Text:
    if not thread.entries:
        return Text("No messages.", style=fmt.tone("dim"))
    text = Text("\n\n").join(entry_text(entry) for entry in thread.entries)
    if thread.unreadable:
        text.append(
            f"\n\n{thread.unreadable} item(s) could not be read as a message (see the JSON in"
            " Browse conversations).",
            style=fmt.tone("warning"),
        )
    for note in thread.notes:
        text.append("\n")
        text.append_text(fmt.literal(note, "dim"))
    return text


class ConversationScreen(PaytuiScreen[None]):
    """A conversation's thread, with its subject, status and links above it."""

    CSS_PATH = Path(__file__).with_name("conversation.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*THREAD_BINDINGS]
    HELP_TITLE = "Conversation"
    COMMAND_SCOPE = "conversation"
    KEYS_TITLE = "Conversation"
    AUTO_FOCUS = "#thread-scroll"

    def __init__(self, conversation_id: str) -> None:
        super().__init__()
        self.conversation_id = conversation_id
        self.conversation: GenericObject | None = None
        self.thread: Thread | None = None

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(self._about(), id="thread-about")
        with VerticalScroll(id="thread-scroll"):
            yield Static(Text("Loading…"), id="thread-lines")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.load()

    def _about(self) -> Text:
        text = Text.assemble(("Conversation ", "bold"), fmt.literal(self.conversation_id))
        found = self.conversation
        if found is None:
            return text
        fields = found.fields()
        if found.label():
            text.append("  ")
            text.append_text(fmt.literal(found.label(), "bold"))
        text.append("\n")
        text.append_text(fmt.status(status_word(found) or "status not shown"))
        for key, word in (("customer_id", "customer"), ("charge_id", "charge")):
            value = fields.get(key)
            if isinstance(value, str | int) and value != "":
                text.append(f"  {word} ")
                text.append_text(fmt.literal(value))
        return text

    @work(exclusive=True, group="thread")
    async def load(self) -> None:
        from paytui.api.conversations import read_thread

        lines = self.query_one("#thread-lines", Static)
        try:
            client = await self.app.get_client()
            self.conversation = await client.get_object("conversations", self.conversation_id)
            self.thread = await read_thread(client, self.conversation_id)
        except Exception as exc:
            lines.update(Text(safe(f"Could not read the conversation: {error_detail(exc)}")))
            self.refresh_bindings()
            return
        self.query_one("#thread-about", Static).update(self._about())
        lines.update(thread_text(self.thread))
        self.query_one("#thread-scroll", VerticalScroll).scroll_end(animate=False)
        self.refresh_bindings()

    # --- actions -------------------------------------------------------------------------------
    def action_subject(self, action: str) -> object | None:
        return self.conversation

    def action_target(self, action: str) -> str | None:
        return self.conversation_id

    def _charge_id(self) -> str | None:
        value = self.conversation.fields().get("charge_id") if self.conversation else None
        return str(value) if isinstance(value, str) and value else None

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_charge":
            return True if self._charge_id() else None
        return super().check_own_action(action, parameters)

    def action_open_charge(self) -> None:
        charge_id = self._charge_id()
        if charge_id:
            self.post_message(messages.OpenCharge(charge_id))

    def action_refresh(self) -> None:
        self.load()

    async def action_reply(self) -> None:
        from paytui.ui.screens.modals.dialogs import dialog_for

        await self.app.push_screen(
            dialog_for("send_message", self.conversation_id), self._after_write
        )

    async def action_close_conversation(self) -> None:
        from paytui.ui.screens.modals.dialogs import dialog_for

        await self.app.push_screen(
            dialog_for("close_conversation", self.conversation_id), self._after_write
        )

    def _after_write(self, result: str | None) -> None:
        if result is not None:
            self.load()


__all__ = ["ConversationScreen", "entry_text", "thread_text"]
