"""Reply in a conversation and close one: the dialogs of the thread's `l` and `Z`.

Both are the money dialogs' flow (`MoneyActionModal`: form → review → sent once → the proven
outcome, refusals and "again" said), over the operations of `actions/ops/conversation.py`. The
reply's review shows the text exactly as it will go — each of its lines after a bar, control
characters as their symbols — and only enter on "Send" sends it; ctrl+s goes from the text to
the review (enter in the text is a new line).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static, TextArea

from paytui.actions.errors import ActionError
from paytui.actions.operation import NoParams
from paytui.actions.ops import conversation as ops
from paytui.actions.registry import why_not
from paytui.api.conversations import status_word
from paytui.ui import format as fmt
from paytui.ui.screens.modals.confirm import MONEY_MODAL_BINDINGS, MoneyActionModal
from paytui.ui.widgets.safe_text_area import SafeTextArea

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor


class _ConversationModal(MoneyActionModal):
    """What both dialogs share: the conversation read and shown above the form."""

    CSS_PATH = [
        Path(__file__).with_name("confirm.tcss"),
        Path(__file__).with_name("conversation.tcss"),
    ]
    RESULT_IS_CHARGE = False
    #: The registry's action whose rule the conversation must pass (one place decides).
    ACTION = ""

    async def prepare(self, executor: ActionExecutor) -> Text:
        found = await (await self.app.get_client()).get_object("conversations", self.charge_id)
        refusal = why_not(self.ACTION, found)
        if refusal is not None:
            raise ActionError(refusal)
        text = Text.assemble(("Conversation ", "bold"), fmt.literal(self.charge_id))
        if found.label():
            text.append("  ")
            text.append_text(fmt.literal(found.label(), "bold"))
        text.append("  ")
        text.append_text(fmt.status(status_word(found) or "status not shown"))
        return text


class ReplyModal(_ConversationModal):
    """`l` in a conversation: a message, reviewed exactly as it will go, then sent once."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *MONEY_MODAL_BINDINGS,
        Binding(
            "ctrl+s",
            "submit",
            "Send",
            id="reply.review",
            tooltip="Review the message exactly as it will go; enter then sends it",
        ),
    ]
    KEYS_TITLE = "Reply dialog"
    ACTION = "reply"
    OPERATION = "send_message"
    NOUN = "message"
    TITLE = "Reply in"
    SEND_LABEL = "Send"

    def compose_form(self) -> ComposeResult:
        yield SafeTextArea(id="reply-body", soft_wrap=True, placeholder="The message")
        yield Static(Text(""), id="reply-body-error", classes="field-error")
        # enter is a new line in the text: the way on is said where the eyes are.
        yield Static(
            Text("ctrl+s reviews it exactly as it will go · escape closes", style="dim"),
            id="reply-keys",
        )

    def action_submit(self) -> None:
        if self.step == "form":
            self.go()

    def validate(self) -> dict[str, Any] | None:
        body = self.query_one("#reply-body", TextArea).text
        problem = ops.message_problem(body)
        self.field_error("reply-body", problem)
        return None if problem else {"body": body}

    def review(self, params: dict[str, Any]) -> Text:
        body: str = params["body"]
        text = Text(f"Will send, exactly as below ({len(body)} characters):\n", style="bold")
        for line in body.split("\n"):
            text.append("│ ", style=fmt.tone("dim"))
            text.append_text(fmt.literal(line))
            text.append("\n")
        text.append_text(self.next_key_line("send it"))
        return text

    def operation_params(self, params: dict[str, Any]) -> ops.MessageParams:
        return ops.MessageParams(params["body"])


class CloseConversationModal(_ConversationModal):
    """`Z` in a conversation: closed after a confirmation, sent once."""

    KEYS_TITLE = "Close conversation dialog"
    ACTION = OPERATION = "close_conversation"
    NOUN = "closing of the conversation"
    TITLE = "Close conversation"
    SEND_LABEL = "Close it"
    DISMISS_LABEL = "Cancel"  # "Close" beside "Close it" read as the same thing

    def focus_first(self) -> None:
        """No field to fill: enter goes on to the review at once."""
        self.set_focus(self.query_one("#go"))

    def validate(self) -> dict[str, Any] | None:
        return {}

    def review(self, params: dict[str, Any]) -> Text:
        text = Text("Will close this conversation.")
        text.append_text(self.next_key_line("close it"))
        return text

    def operation_params(self, params: dict[str, Any]) -> NoParams:
        return NoParams()


__all__ = ["CloseConversationModal", "ReplyModal"]
