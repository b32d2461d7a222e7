"""Undo (`ctrl+z`, `paytui.actions.undo`): the edit that puts a charge's or a refund's tags and
attributes back as they were before the person's last edit, through the one dialog flow of every
action (read, review, send through `executor.run`, the proven answer); and the y / n before a
claim is let go or taken again."""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from paytui.actions import ActionError
from paytui.text import safe
from paytui.ui.screens.modals.confirm import MoneyActionModal
from paytui.ui.screens.modals.edit_tags import diff_text
from paytui.ui.screens.modals.user_command import YesNoModal

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor
    from paytui.actions.entry import JournalEntry
    from paytui.actions.ops.labels import Params

__all__ = ["UndoClaimModal", "UndoEditModal", "UndoRefundEditModal", "undo_dialog_for"]


class UndoEditModal(MoneyActionModal):
    """Undo of an edit of a charge's tags and attributes: what it shows now, what comes back."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [Path(__file__).with_name("confirm.tcss")]
    OPERATION = "update_charge"
    NOUN = "undo"
    TITLE = "Undo the edit of"
    SEND_LABEL = "Undo"
    RESULT_IS_CHARGE = False

    def __init__(self, entry: JournalEntry) -> None:
        super().__init__(entry.charge_id or "")
        self.entry = entry
        self.now: dict[str, Any] = {}

    def compose_form(self) -> ComposeResult:
        yield from ()

    def focus_first(self) -> None:
        """No field to fill: enter goes on (Review) at once."""
        self.set_focus(self.query_one("#go"))

    async def read_current(self, executor: ActionExecutor) -> Any:
        return await (await self.app.get_client()).get_charge(self.charge_id)

    def _params(self) -> Params:
        from paytui.actions.undo import undo_params

        return undo_params(self.entry)

    async def prepare(self, executor: ActionExecutor) -> Text:
        from paytui.actions.undo import why_not_undo

        reason = why_not_undo(self.entry)
        if reason is not None:
            raise ActionError(reason)
        current = await self.read_current(executor)
        self.now = {
            "tags": list(current.tags or []),
            "attributes": {
                str(k): [str(v) for v in vs] for k, vs in (current.attributes or {}).items()
            },
        }
        expect = self._params().expect or {}
        if any(self.now[key] != expect[key] for key in expect):
            who = await executor.who_changed(self.OPERATION, self.charge_id, self.entry.id)
            raise ActionError(
                f"Nothing to undo: {self.charge_id} no longer shows what #{self.entry.id} set"
                f" (changed since, {who}). Edit it instead (e)."
            )
        return Text(
            safe(
                f"Your edit #{self.entry.id}, {executor.by_and_when(self.entry)}: its tags and"
                " attributes go back to what they were before it. Press enter to review."
            )
        )

    def validate(self) -> dict[str, Any] | None:
        return {}

    def review(self, params: dict[str, Any]) -> Text:
        back = self._params()
        text = Text("Will change:\n", style="bold")
        text.append_text(
            diff_text(
                self.now["tags"],
                list(back.tags) if back.tags is not None else self.now["tags"],
                self.now["attributes"],
                {k: list(v) for k, v in back.attributes.items()}
                if back.attributes is not None
                else self.now["attributes"],
            )
        )
        text.append_text(self.next_key_line("undo", undoable=True))
        return text

    def operation_params(self, params: dict[str, Any]) -> Params:
        return self._params()


class UndoRefundEditModal(UndoEditModal):
    """Undo of an edit of a refund's tags and attributes."""

    OPERATION = "update_refund"
    TITLE = "Undo the edit of refund"

    async def read_current(self, executor: ActionExecutor) -> Any:
        return await (await self.app.get_client()).get_refund(self.charge_id)


def undo_dialog_for(entry: JournalEntry) -> UndoEditModal:
    """The undo dialog of an edit entry (`paytui.actions.undo.EDITS`)."""
    if entry.operation == "update_refund":
        return UndoRefundEditModal(entry)
    return UndoEditModal(entry)


class UndoClaimModal(YesNoModal):
    """ "Let go of your claim on ch_…?" / "Claim ch_… again?": y / n, No first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "answer(False)", "No", id="undo.claim_no", show=False),
        Binding("y", "answer(True)", "Yes", id="undo.claim_yes", show=False),
    ]
    HELP_TITLE = "Undo"
