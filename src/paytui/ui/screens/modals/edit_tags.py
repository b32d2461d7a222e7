"""Edit the tags and attributes of a charge or a refund, sent as PATCH after a diff of exactly
what changes, through the one executor and journal (`update_charge` / `update_refund`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Input, TextArea

from paytui.actions.ops import labels
from paytui.limits import check_attributes, check_tags
from paytui.text import safe, safe_lines
from paytui.ui import format as fmt
from paytui.ui.screens.modals.confirm import MoneyActionModal, field_beside
from paytui.ui.widgets.safe_input import SafeInput
from paytui.ui.widgets.safe_text_area import SafeTextArea
from paytui.validation import format_attributes, parse_attributes, parse_tags

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor


def diff_text(
    old_tags: list[str],
    new_tags: list[str],
    old_attrs: dict[str, list[str]],
    new_attrs: dict[str, list[str]],
) -> Text:
    """Added/removed tags and added/removed/changed attribute keys, one line each."""
    text = Text()
    lines = 0

    def line(sign: str, body: str) -> None:
        nonlocal lines
        if lines:
            text.append("\n")
        text.append(f"{sign} ", style=fmt.tone(fmt.CHANGE_STYLES[sign]))
        text.append(Text(safe(body)))
        lines += 1

    for tag in new_tags:
        if tag not in old_tags:
            line("+", f"tag {tag}")
    for tag in old_tags:
        if tag not in new_tags:
            line("-", f"tag {tag}")
    for key, values in new_attrs.items():
        if key not in old_attrs:
            line("+", f"{key} = {', '.join(values)}")
        elif old_attrs[key] != values:
            line("~", f"{key}: {', '.join(old_attrs[key])} → {', '.join(values)}")
    for key, values in old_attrs.items():
        if key not in new_attrs:
            line("-", f"{key} = {', '.join(values)}")
    if not lines:
        text.append("No changes.", style="dim")
    return text


class EditTagsModal(MoneyActionModal):
    """`e` on a charge: the tag list and the key → list-of-strings attribute map."""

    CSS_PATH = [
        Path(__file__).with_name("confirm.tcss"),
        Path(__file__).with_name("edit_tags.tcss"),
    ]
    OPERATION = "update_charge"
    NOUN = "change of tags and attributes"
    TITLE = "Edit tags and attributes of"
    SEND_LABEL = "Save"
    RESULT_IS_CHARGE = False

    def __init__(self, charge_id: str) -> None:
        super().__init__(charge_id)
        self.old_tags: list[str] = []
        self.old_attrs: dict[str, list[str]] = {}

    def compose_form(self) -> ComposeResult:
        yield field_beside(
            "Tags", SafeInput(id="tags", placeholder="comma separated", compact=True), "tags"
        )
        attributes = SafeTextArea(
            id="attributes", soft_wrap=False, compact=True, placeholder="one key=value,value a line"
        )
        yield field_beside("Attributes", attributes, "attributes")

    async def read_current(self, executor: ActionExecutor) -> Any:
        """The object edited, as the service has it now (its tags and attributes)."""
        return await (await self.app.get_client()).get_charge(self.charge_id)

    async def prepare(self, executor: ActionExecutor) -> Text:
        current = await self.read_current(executor)
        self.old_tags = list(current.tags or [])
        self.old_attrs = {
            str(k): [str(v) for v in vs] for k, vs in (current.attributes or {}).items()
        }
        self.query_one("#tags", Input).value = ", ".join(self.old_tags)
        # Shown through the sanitiser: an old value holding a control character shows (and, if kept,
        # is sent back) with its placeholder, which the review step lists as a change.
        self.query_one("#attributes", TextArea).text = safe_lines(format_attributes(self.old_attrs))
        return Text(
            "Tags are comma separated, attributes one key=value,value a line. The next step"
            " shows exactly what will change.",
            style="dim",
        )

    def validate(self) -> dict[str, Any] | None:
        tags = parse_tags(self.query_one("#tags", Input).value)
        attributes, message = parse_attributes(self.query_one("#attributes", TextArea).text)
        self.field_error("attributes", message)
        if message:
            return None
        if message := check_attributes(attributes):
            self.field_error("attributes", message)
            return None
        self.field_error("attributes", None)
        if message := check_tags(tags):
            self.field_error("tags", message)
            return None
        params: dict[str, Any] = {}
        if tags != self.old_tags:
            params["tags"] = tags
        if attributes != self.old_attrs:
            params["attributes"] = attributes
        if not params:
            self.field_error("tags", "Nothing changed")
            return None
        self.field_error("tags", None)
        return params

    def review(self, params: dict[str, Any]) -> Text:
        text = Text("Will change:\n", style="bold")
        text.append_text(
            diff_text(
                self.old_tags,
                params.get("tags", self.old_tags),
                self.old_attrs,
                params.get("attributes", self.old_attrs),
            )
        )
        text.append_text(self.next_key_line("save", undoable=True))
        return text

    def operation_params(self, params: dict[str, Any]) -> labels.Params:
        # What each changed field held when the person decided: kept in the journal, so the
        # edit can be undone (ctrl+z, `paytui.actions.undo`).
        before: dict[str, Any] = {}
        if "tags" in params:
            before["tags"] = self.old_tags
        if "attributes" in params:
            before["attributes"] = self.old_attrs
        return labels.Params(
            tags=params.get("tags"), attributes=params.get("attributes"), before=before
        )


class EditRefundTagsModal(EditTagsModal):
    """`E` on a refund (Refunds screen, a charge's refunds panel): the same form, diff and
    executor path, sent to the refund (`PATCH /v2/refunds/{id}`). `charge_id` holds the refund
    id here: it is the target the executor keys the action by."""

    OPERATION = "update_refund"
    NOUN = "change of the refund's tags and attributes"
    TITLE = "Edit tags and attributes of refund"

    async def read_current(self, executor: ActionExecutor) -> Any:
        return await (await self.app.get_client()).get_refund(self.charge_id)


__all__ = ["EditRefundTagsModal", "EditTagsModal", "diff_text"]
