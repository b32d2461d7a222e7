"""The shared flow of every money-action dialog: form → review → typed confirmation → result.

`MoneyActionModal` knows nothing about what is sent: the subclass (capture, refund, edit tags)
fills the form, validates it (errors next to the field, nothing sent), describes what will be sent
and gives its operation's `Params`; the base runs it (`executor.run`, tied to what it showed).
Everything the rules decide comes from the executor and its policy:

- refused by the policy (read-only, missing scope) → the dialog says why, no form;
- `ConfirmationRequired(phrase)` → a field asks for the phrase, the action is resent with it;
- `EarlierAttemptApplied` → an earlier attempt whose outcome was unknown did go through: the
  dialog says so (what, when, its id), nothing was sent, and only pressing enter on "Send another"
  sends a new one (``acknowledge_earlier=<that entry>``);
- `PrecheckFailed` and other `ActionError`s → one line, nothing was sent;
- an outcome → "went through" / "did not happen — retry?" (only a proven not-applied, or a request
  that never left; retry only by the user) / "the service refused it" (final: no Retry) /
  "still unknown — check again in History".

While the executor waits for an earlier (or its own) attempt to settle — until a commit still in
flight would be visible — the dialog counts down (`executor.settling`). While the action runs the
send button is disabled, and a second press does nothing (the executor guards: `ActionInFlight`).

Why one module of more than 800 lines: the steps above are one flow over one dialog's widgets
(each step shows, hides and focuses the same parts, and says itself in screen-reader mode); the
typed confirmation beside it is that flow's last question. Split, each half would reach into
the other's widgets.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from paytui.actions import (
    ActionError,
    ActionInFlight,
    ActionOutcome,
    ConfirmationRequired,
    EarlierAttemptApplied,
    RecentlyDone,
    TargetChanged,
)
from paytui.text import safe, safe_lines
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.textual_fixes import DialogButton
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.form import FieldLine
from paytui.ui.widgets.live import LiveStatic
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor, Basis
    from paytui.actions.entry import JournalEntry

STEPS = ("loading", "blocked", "form", "review", "sending", "result")

log = logging.getLogger("paytui.ui.actions")


def _journal_failure(exc: BaseException) -> bool:
    """True when `exc` is the journal's own (SQLite's, PostgreSQL's, or its unavailability)."""
    from paytui.actions.journal_store import JournalUnavailable

    if isinstance(exc, JournalUnavailable | sqlite3.Error):
        return True
    return type(exc).__module__.split(".")[0] == "psycopg"


def outcome_text(outcome: ActionOutcome, noun: str) -> Text:
    """The proven answer, in the words the issue asks for, plus the executor's message."""
    text = Text()
    if outcome.state == "succeeded":
        lead = f"The {noun} went through"
        text.append(f"{lead}: ", style="bold")
        text.append(safe(outcome.result_id or ""))
    elif outcome.state == "not_applied":
        # What a read-back proves, and no more: what was checked and when (the message).
        text.append(f"Not found at the service — the {noun} was not made so far.", style="bold")
    elif outcome.retryable:  # it never left: proven
        text.append(f"It did not happen — the {noun} was not made.", style="bold")
        text.append(" Press Retry to send it again.")
    elif outcome.state == "failed":
        text.append(f"The service refused it — the {noun} was not made.", style="bold")
        text.append(" A refusal is final: change what it objects to and start again.")
    elif outcome.state == "awaiting_service":
        text.append(
            f"Awaiting the service — it accepted the {noun} and has not finished it.",
            style="bold",
        )
        text.append(" Nothing more is sent; History (5) follows it until it settles.")
    else:
        text.append("Still unknown — check again in History (5).", style="bold")
    if outcome.message and (not outcome.succeeded or outcome.reconciled):
        text.append("\n")
        text.append(safe_lines(outcome.message))
    return text


def field_beside(label: str, widget: Widget, name: str) -> FieldLine:
    """A form field with its label on its left and its error line under it (`field_error`).

    Give it a compact field (one line; a text area three): the form of a refund (four fields)
    then fits 80x24 with the charge above it and the buttons below.
    """
    error = LiveStatic(Text(""), id=f"{name}-error", classes="field-error")
    return FieldLine(
        Static(Text(label), classes="field-label"),
        Vertical(widget, error, classes="field-cell"),
        classes="field-line",
    )


def settling_text(noun: str, entry_id: int, sent: Any, ready: Any, now: Any) -> Text:
    """The countdown while a read-back waits for a commit that may still be in flight."""
    left = max(0, int((ready - now).total_seconds() + 0.999))
    text = Text(f"Checking the {noun} #{entry_id} sent at {sent:%H:%M:%S} UTC: ")
    text.append(f"an answer still in flight would show by {ready:%H:%M:%S} — {left} s", "bold")
    return text


MONEY_MODAL_BINDINGS: list[Binding] = [
    Binding("escape", "close", "Close", id="money.close", tooltip="Close (nothing is sent)"),
    Binding(
        "ctrl+o",
        "open_result",
        "Open result",
        id="money.open_result",
        tooltip="Open the charge this action created",
    ),
]


class MoneyActionModal(PaytuiModal[str | None]):
    """Base of the capture / refund / edit dialogs. Dismisses with the result id (or None)."""

    TEXT_ENTRY = True

    CSS_PATH: ClassVar[list[str | PurePath]] = [Path(__file__).with_name("confirm.tcss")]
    BINDINGS: ClassVar[list[BindingType]] = [*MONEY_MODAL_BINDINGS]
    HELP_TITLE = "Money action"
    KEYS_TITLE = "Capture / refund / edit dialogs"

    #: The entry whose countdown is on screen (so the end of the wait is said, not frozen).
    _counted_down: int | None = None
    #: The executor's operation name, the noun for messages, the dialog title, the send label.
    OPERATION = "capture"
    NOUN = "capture"
    TITLE = "Capture"
    SEND_LABEL = "Capture"
    #: The button that closes the dialog (escape): "Cancel" where "Close" is the action's word.
    DISMISS_LABEL = "Close"
    #: Its word once the action is done or blocked: nothing is left to cancel then.
    DONE_LABEL = "Close"
    #: Whether the result id is a charge (open it) or a refund (open the refunded charge).
    RESULT_IS_CHARGE = True
    #: What the other agents see this one doing while the dialog is open ("ana refunding").
    PRESENCE = "viewing"

    step: reactive[str] = reactive("loading")

    def __init__(self, charge_id: str) -> None:
        super().__init__()
        self.charge_id = charge_id
        self.params: dict[str, Any] | None = None
        self.outcome: ActionOutcome | None = None
        self.phrase: str | None = None
        self._sending = False
        #: Set when the user pressed Retry: the next send is `executor.retry(entry)`.
        self._retry_entry: int | None = None
        #: The earlier attempt the user was told did go through, and chose to send another of.
        self.acknowledge_earlier: int | None = None
        self._earlier: EarlierAttemptApplied | None = None
        #: What the person decides on (`executor.observe`); changed since: not sent.
        self.basis: Basis | None = None
        #: The person confirmed an identical recent action knowingly (`RecentlyDone`).
        self.again = False
        #: The charge changed since it was read: the next enter reads it again (no send).
        self._changed = False
        #: Reading the charge again after "Changed since you looked": the keys typed until it
        #: shows are dropped, not replayed (`watch_step`).
        self._reading_again = False
        #: The charge as last read for the dialog (`prepare`), shown with who else is on it.
        self._shown_info: Text | None = None

    # --- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = Text(safe(f"{self.TITLE} {self.charge_id}"))  # an id is data
            yield LiveStatic(Text("Loading…"), id="dialog-info")
            with VerticalScroll(id="dialog-form"):
                yield from self.compose_form()
            yield LiveStatic(Text(""), id="dialog-review")
            with Vertical(id="dialog-confirm"):
                yield LiveStatic(Text(""), id="confirm-label")
                yield SafeInput(id="confirm-phrase", placeholder="type it here")
                yield LiveStatic(Text(""), id="confirm-phrase-error", classes="field-error")
            yield LiveStatic(Text(""), id="dialog-message")
            with Horizontal(id="dialog-buttons"):
                yield DialogButton("Review", id="go", variant="primary")
                yield DialogButton("Retry", id="retry", variant="warning")
                yield DialogButton("Open charge", id="open", variant="success")
                yield DialogButton(self.DISMISS_LABEL, id="close")

    def compose_form(self) -> ComposeResult:  # pragma: no cover - overridden
        yield from ()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_form()

    def _fit_form(self) -> None:
        """Keep the buttons on screen: the form gets the rows the rest of the dialog leaves (the
        charge above it grows with each earlier refund) and scrolls within them, its focused
        field in view (80x24 too)."""
        if not self.is_attached:
            return
        dialog = self.query_one("#dialog")
        form = self.query_one("#dialog-form")
        # The screen's own lines (the environment bar on top), the border, every part shown now.
        docked = [
            w for w in self.children if w is not dialog and w.styles.dock in ("top", "bottom")
        ]
        used = sum(w.outer_size.height for w in docked) + dialog.styles.gutter.height
        for child in dialog.children:
            if child is not form and child.display:
                used += child.outer_size.height + child.styles.margin.height
        form.styles.max_height = max(3, min(20, self.size.height - used))

    def on_mount(self) -> None:
        self.watch_step(self.step)
        self._load()
        self.set_interval(0.5, self._show_settling)
        self.app.journal_changed.subscribe(self, self._changed_elsewhere)
        # Who else is on this charge, live; and the others see this agent deciding on it.
        self.app.presence_changed.subscribe(self, lambda _people: self._show_info())
        self._announce()

    def _announce(self, amount: Any = None) -> None:
        actions = self.app.session.actions_if_built
        if actions is not None:
            actions.show_presence(self, self.charge_id, self.PRESENCE, amount)

    def on_unmount(self) -> None:
        actions = self.app.session.actions_if_built
        if actions is not None:
            actions.hide_presence(self)

    def _show_info(self, info: Text | None = None) -> None:
        """The charge as read (`info`, else the last shown), with the claim, the others on
        it now and the registry's note (`_with_claim`)."""
        if info is not None:
            self._shown_info = info
        if self._shown_info is None or self._widgets_gone():
            return
        self.query_one("#dialog-info", Static).update(self._with_claim(self._shown_info))

    def _changed_elsewhere(self, entries: tuple[JournalEntry, ...]) -> None:
        """Another paytui (an agent on another machine, the command line) acted on this charge
        while the person is deciding: say who and what, and read it again before anything
        can be sent (the executor would refuse the stale decision anyway)."""
        here = [
            e
            for e in entries
            if self.charge_id in (e.charge_id, e.request_summary.get("charge_id"))
            and e.state not in {"failed", "not_applied"}
        ]
        if not here or self._sending or self.step not in {"form", "review"}:
            return
        told = self.app.actions.describe(here[-1])
        self._changed = True
        text = Text(safe_lines(f"Changed since you looked: {told}."), style="bold")
        text.append("\nPress enter on “Review again” to see the charge as it is now;")
        text.append(" escape closes (nothing is sent).")
        self._message(text, error=True)
        self.watch_step(self.step)

    def _show_settling(self) -> None:
        """While sending: the countdown of a read-back waiting for the deadline, if any."""
        if self.step != "sending":
            return
        executor = self.app.actions.ready
        if executor is None:
            return
        settling = executor.settling(self.OPERATION, self.charge_id)
        if settling is None:
            if self._counted_down is not None:  # the wait is over: the read-back runs now
                self._message(
                    Text(f"Reading the {self.NOUN} #{self._counted_down} back from the service…")
                )
                self._counted_down = None
            return
        entry, ready = settling
        first, self._counted_down = self._counted_down != entry.id, entry.id  # said once only
        sent = entry.sent_at or entry.created_at
        text = settling_text(self.NOUN, entry.id, sent, ready, executor.clock())
        self._message(text, spoken=first)

    def holds_key(self, key: str) -> bool:
        """While the dialog reads what it decides on (step "loading"), the keys typed for it
        wait (`paytui.ui.held_keys`): `r 10 enter enter` typed at once refunds 10.00, where the
        digits and enters used to reach a form not shown yet and were lost (or the enters came
        after the read and sent the whole amount left). Escape is taken at once when nothing
        waits before it."""
        if self.step != "loading":
            return False
        from paytui.ui.held_keys import bound_to

        bound = bound_to(self, key)
        return bound is None or bound.action != "close"

    def watch_step(self, step: str) -> None:
        # One restyle of the whole dialog for the step, not one per class added or removed.
        self.update_classes({f"-{name}": step == name for name in STEPS})
        self.call_after_refresh(self._fit_form)  # the charge above the form is shown by now
        go = self.query_one("#go", Button)
        go.label = "Review" if step == "form" else self.SEND_LABEL
        if step == "review" and self.acknowledge_earlier is not None:
            go.label = "Send another"
        if step == "review" and self.again:
            go.label = f"{self.SEND_LABEL} again"
        if step in {"form", "review"} and self._changed:
            go.label = "Review again"
        go.disabled = step in {"sending", "loading"}
        go.display = step in {"form", "review", "sending"}
        # While sending, no button can be pressed by a repeated enter (Close included: a
        # second enter must not close the dialog on the answer). Escape still closes it, and
        # the action then finishes in the background and is journaled.
        dismiss = self.query_one("#close", Button)
        dismiss.disabled = step == "sending"
        dismiss.label = self.DONE_LABEL if step in {"result", "blocked"} else self.DISMISS_LABEL
        if step == "review" and (self.focused is None or self.focused.id == "close"):
            # Back from sending (a refusal: "Review again", "Refund again"): the buttons were
            # disabled meanwhile and the focus fell to Close, so enter would have closed the
            # dialog instead of doing what its message says. Enter means the primary button.
            go.focus()
        retry = self.query_one("#retry", Button)
        retry.display = step == "result" and self.outcome is not None and self.outcome.retryable
        opener = self.query_one("#open", Button)
        opener.display = step == "result" and self._result_charge() is not None
        # The review replaces the form: it says exactly what will be sent.
        self.query_one("#dialog-form").display = step == "form"
        self.query_one("#dialog-review").display = step in {"review", "sending"}
        self.query_one("#dialog-confirm").display = (
            step in {"review", "sending"} and self.phrase is not None
        )
        # Focus moves now, in the same step as the display change, not after a refresh: a key
        # typed at once lands in the new field, and what has focus never depends on timing.
        if step == "form":
            self.focus_first()
        elif step == "review":
            self.set_focus(self.query_one("#confirm-phrase" if self.phrase is not None else "#go"))
        elif step in {"result", "blocked"}:
            self.set_focus(self.query_one("#open" if opener.display else "#close"))
        self.refresh_bindings()
        if step != "loading" and self._reading_again:
            # Read again after "Changed since you looked": the keys typed meanwhile were typed
            # before the charge's new state showed. Replayed, `enter enter` would review and
            # send what the person never saw (rule 1): they are let go unapplied, and said.
            self._reading_again = False
            dropped = paytui_app(self).drop_held_keys()
            if dropped:
                keys = "1 key" if dropped == 1 else f"{dropped} keys"
                self._message(
                    Text(
                        f"{keys} typed before the charge was shown again were not applied: "
                        "review it as it is now.",
                        style="bold",
                    )
                )
        elif step != "loading":  # the keys typed while it read go on, to the field focused now
            paytui_app(self).release_held_keys()

    def confirmation_amount(self, params: dict[str, Any]) -> Any:
        """The amount the production confirmation is about (None: the charge id's last four)."""
        return params.get("amount")

    def _ask_phrase_up_front(self, params: dict[str, Any]) -> None:
        """On production, ask for the phrase with the review (not "press enter" and then a
        surprise field); `next_key_line` says so. The executor still checks the phrase."""
        policy = self.app.actions.policy()
        amount = self.confirmation_amount(params)
        if not policy.needs_typed_confirmation(self.OPERATION, amount):
            return
        self.phrase = policy.confirmation_phrase(amount, self.charge_id)
        self.query_one("#confirm-label", Static).update(
            Text.assemble(
                ("Production: type ", "bold"),
                (self.phrase, "bold reverse"),
                (" to confirm, then press enter.", "bold"),
            )
        )

    def next_key_line(self, verb: str, *, undoable: bool = False) -> Text:
        """The review's last line: what the next key does. On production the phrase field comes
        first, so the line says to type it, then press enter (never "press enter" alone)."""
        tail = "" if undoable else " This cannot be undone."
        if self.phrase is not None:
            return Text(
                f"\nProduction: type {self.phrase} in the field below, then press enter to "
                f"{verb}; escape cancels.{tail}",
                style="bold",
            )
        return Text(f"\nPress enter to {verb}, escape to cancel.{tail}")

    def focus_first(self) -> None:
        """Focus the first field now (not on the next refresh), so the next key lands in it."""
        inputs = list(self.query("#dialog-form Input, #dialog-form TextArea").results())
        if inputs:
            self.set_focus(inputs[0])

    # --- the subclass's part ---------------------------------------------------------------------
    async def prepare(self, executor: ActionExecutor) -> Text:
        """Read what the dialog shows (may raise `ActionError` to explain why it cannot run)."""
        raise NotImplementedError

    def validate(self) -> dict[str, Any] | None:
        """The form as parameters, or None after showing each field's error (nothing is sent)."""
        raise NotImplementedError

    def review(self, params: dict[str, Any]) -> Text:
        """Exactly what will be sent."""
        raise NotImplementedError

    def operation_params(self, params: dict[str, Any]) -> Any:
        """The form's parameters as the operation's own (its module's `Params`)."""
        raise NotImplementedError

    def target(self, params: dict[str, Any]) -> str:
        """What the operation acts on: the dialog's charge (refund, session...) by default."""
        return self.charge_id

    # --- helpers -----------------------------------------------------------------------------
    def field_error(self, field: str, message: str | None) -> None:
        """Show (or clear) the error line under a field."""
        error = self.query_one(f"#{field}-error", Static)
        error.update(Text(safe(message or "")))
        error.display = bool(message)

    def _message(self, text: Text | str, *, error: bool = False, spoken: bool = True) -> None:
        widget = self.query_one("#dialog-message", LiveStatic)
        shown = text if isinstance(text, Text) else Text(safe_lines(text))
        widget.update(shown, spoken=spoken)
        widget.set_class(error, "-error")
        widget.display = bool(shown.plain.strip())  # no blank rows above the buttons

    def _block(self, message: str) -> None:
        self._message(Text(safe_lines(message), style="bold"), error=True)
        self.step = "blocked"

    def _result_charge(self) -> str | None:
        outcome = self.outcome
        if outcome is None or not outcome.succeeded:
            return None
        if self.RESULT_IS_CHARGE:
            return outcome.result_id
        return None

    # --- flow --------------------------------------------------------------------------------
    @work(exclusive=True, group="money-load")
    async def _load(self) -> None:
        try:
            await self._load_steps()
        except NoMatches:
            if not self._widgets_gone():
                raise
            # Closed while it read (escape typed at once): nothing left to fill in.

    def _widgets_gone(self) -> bool:
        """True once the dialog was closed and its widgets removed (a read may end later)."""
        return not self.query("#dialog-message")

    async def _load_steps(self) -> None:
        try:
            executor = await paytui_app(self).actions.executor()
        except Exception as exc:
            self._block(f"Could not connect: {error_detail(exc)}")
            return
        decision = executor.check(self.OPERATION)
        if not decision.allowed:
            self.query_one("#dialog-info", Static).update(Text(""))
            self._block(decision.reason or "Not allowed")
            return
        try:
            info = await self.prepare(executor)
        except ActionError as exc:
            self._block(exc.message)
            return
        except Exception as exc:
            if not _journal_failure(exc):
                from paytui.actions.target_reads import could_not_read
                from paytui.api.errors import ApiError

                if isinstance(exc, ApiError):  # what failed: the charge, or its refunds
                    self._block(could_not_read(exc, error_detail(exc)))
                else:
                    self._block(f"Could not read the charge: {error_detail(exc)}")
                return
            # The journal's mark (what was done before this decision) could not be read: the
            # charge was never the trouble. Said as itself, and kept in the log for whoever
            # mends the journal (`paytui.logs` scrubs the record).
            log.warning(
                "the journal failed while preparing %s of %s",
                self.OPERATION,
                self.charge_id,
                exc_info=exc,
            )
            self._block(f"The journal could not be read: {error_detail(exc)}")
            return
        self._show_info(info)
        self.step = "form"

    def _with_claim(self, info: Text) -> Text:
        """The charge as read, and under it, bold, another agent's claim on it when it was read
        (`Basis.claim`): they may be working on it, so the person knows before reviewing. Then
        the registry's note on the action ("paytui does not know the status `settled`; the
        service will decide"), which the person reads before deciding."""
        from paytui.actions.presence import presence_words
        from paytui.actions.registry import note

        basis = self.basis
        claim = basis.claim if basis is not None else None
        said = note(self.OPERATION, basis.charge) if basis is not None else None
        others = presence_words(self.app.others_on(self.charge_id))
        if claim is None and said is None and not others:
            return info
        shown = info.copy()
        if claim is not None:
            from paytui.ui.claims import claim_sentence

            shown.append("\n")
            shown.append(claim_sentence(claim, None, self.app), style="bold")
        if others:  # live: another agent deciding on this charge right now
            shown.append("\n")
            shown.append(safe(f"◉ Now on this charge: {others}"), style="bold")
        if said is not None:
            shown.append("\n")
            shown.append_text(fmt.literal(said, style="bold warning"))
        return shown

    @work(exclusive=True, group="money-load")
    async def _refresh_info(self, told: str) -> None:
        try:
            await self._refresh_steps(told)
        except NoMatches:
            if not self._widgets_gone():
                raise

    async def _refresh_steps(self, told: str) -> None:
        """After an earlier attempt turned out applied: show the charge as it is now (what was
        already refunded, what is left) — or why nothing more can be done at all."""
        try:
            executor = await self.app.actions.executor()
            info = await self.prepare(executor)
        except ActionError as exc:
            self.acknowledge_earlier = None
            self._block(f"{told}\n{exc.message}")
            return
        except Exception:
            return  # the dialog still says what happened; the send stays a choice
        self._show_info(info)

    def action_close(self) -> None:
        # Closing never cancels a running action: the executor finishes it and journals it.
        self.dismiss(self.outcome.result_id if self.outcome and self.outcome.succeeded else None)

    def action_open_result(self) -> None:
        charge_id = self._result_charge()
        if charge_id:
            self.dismiss(charge_id)
            self.app.post_message(messages.OpenCharge(charge_id))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_result":
            return self._result_charge() is not None
        return True

    def go(self) -> None:
        """The primary button / enter: review the form, then send."""
        if self.step == "form" and self._changed:
            self.step = "review"  # a change told on the form: read again, as from a review
        if self.step == "form":
            params = self.validate()
            if params is None:
                self.app.bell()
                return
            self.params = params
            self._announce(self.confirmation_amount(params))  # "ana refunding 40.00"
            self._ask_phrase_up_front(params)
            review = self.review(params)
            self.query_one("#dialog-review", Static).update(review)
            self._message("")
            self.step = "review"
        elif self.step == "review" and self._changed and not self._sending:
            # The charge changed since it was read: read it again, back to the form with what
            # was typed kept; nothing is sent until the person reviews the new state.
            self._changed = False
            self.acknowledge_earlier = None
            self.again = False
            self._message("")
            self._reading_again = True
            self.step = "loading"
            self._load()
        elif self.step == "review" and not self._sending:
            confirmation = None
            if self.phrase is not None:
                confirmation = self.query_one("#confirm-phrase", Input).value.strip()
                if not confirmation:
                    self.field_error("confirm-phrase", f"Type {self.phrase} to confirm")
                    return
            self._sending = True
            self._message(Text(f"Sending the {self.NOUN}…"))  # the step in words
            self.step = "sending"
            # An app worker: closing the dialog while it runs must not lose the answer (notified).
            self.app.run_worker(self._send(confirmation), group="money-send", exit_on_error=False)

    async def _send(self, confirmation: str | None) -> None:
        assert self.params is not None
        try:
            executor = await paytui_app(self).actions.executor()
            if self._retry_entry is not None:
                # A Retry refused as "not applied so far" names that entry: "Send another" on
                # it is the go-ahead (`acknowledge_earlier`), and only then is it sent.
                outcome = await executor.retry(
                    self._retry_entry,
                    confirmation=confirmation,
                    acknowledge_earlier=self.acknowledge_earlier,
                )
            else:
                outcome = await executor.run(  # the one verb, tied to what it showed
                    self.OPERATION,
                    self.target(self.params),
                    self.operation_params(self.params),
                    confirmation=confirmation,
                    acknowledge_earlier=self.acknowledge_earlier,
                    basis=self.basis,
                    again=self.again,
                )
        except ActionError as exc:
            if not self.is_attached:
                self.app.notify(exc.message, title=self.TITLE, severity="warning", markup=False)
                return
            self._refused(exc, confirmation)
            return
        except Exception as exc:  # a bug, not an answer: say so, never leave "sending" forever
            message = (
                f"Unexpected error: {type(exc).__name__}: {error_detail(exc)}. Check History (5)."
            )
            self.app.notify(message, title=self.TITLE, severity="error", markup=False)
            if self.is_attached:
                self._sending = False
                self._block(message)
            return
        self._sending = False
        self._show_outcome(outcome)

    def _refused(self, exc: ActionError, confirmation: str | None) -> None:
        """Nothing was sent: ask for the phrase, or say why."""
        if isinstance(exc, ConfirmationRequired):
            wrong = self.phrase is not None and confirmation
            self.phrase = exc.phrase
            self.query_one("#confirm-label", Static).update(
                Text.assemble(
                    ("Production: type ", "bold"),
                    (exc.phrase, "bold reverse"),
                    (" to confirm, then press enter.", "bold"),
                )
            )
            self.field_error("confirm-phrase", "That does not match" if wrong else None)
            self._sending = False
            self.step = "review"
        elif isinstance(exc, ActionInFlight):
            self._message(exc.message)
            self._sending = False
        elif isinstance(exc, TargetChanged):
            # Nothing was sent: what changed, by whom and when; only a new review goes on.
            self._sending = False
            self._changed = True
            text = Text(safe_lines(exc.message), style="bold")
            text.append("\nPress enter on “Review again” to see the charge as it is now;")
            text.append(" escape closes (nothing is sent).")
            self._message(text, error=True)
            self.step = "review"
            self.watch_step("review")
        elif isinstance(exc, RecentlyDone):
            # Nothing was sent. Another identical one only on a distinct, explicit step.
            self._sending = False
            self.again = True
            text = Text(safe_lines(exc.message), style="bold")
            text.append(
                f"\nPress enter on “{self.SEND_LABEL} again” to send another one anyway,"
                " or escape to close (nothing more is sent)."
            )
            self._message(text, error=True)
            self.step = "review"
            self.watch_step("review")
        elif isinstance(exc, EarlierAttemptApplied):
            # Nothing was sent. Another one only on an explicit second enter, which names the
            # earlier entry so the executor knows the user was told.
            self._earlier = exc
            self.acknowledge_earlier = exc.entry.id
            self._sending = False
            text = Text(exc.message, style="bold")
            text.append(
                f"\nPress enter on “Send another” to send a new {self.NOUN} anyway,"
                " or escape to close (nothing more is sent)."
            )
            self._message(text, error=True)
            self.step = "review"
            self._refresh_info(exc.message)
        else:
            self._sending = False
            self._block(exc.message)

    def _show_outcome(self, outcome: ActionOutcome) -> None:
        """The answer in the dialog (if still open) and as a notification."""
        severity: SeverityLevel = "information" if outcome.succeeded else "warning"
        if outcome.succeeded:  # every list and detail showing these charges reads them again
            self.app.charges_changed_by(
                self.charge_id, outcome.result_id if self.RESULT_IS_CHARGE else None
            )
        if not self.is_attached:
            self.app.screen.refresh_bindings()  # the key greyed out while in flight comes back
            self.app.notify(
                outcome_text(outcome, self.NOUN).plain,
                title=self.TITLE,
                severity=severity,
                markup=False,
            )
            return
        self.outcome = outcome
        self._retry_entry = None
        self.acknowledge_earlier = None
        self.again = False
        self._message(outcome_text(outcome, self.NOUN), error=not outcome.succeeded)
        self.step = "result"
        self.app.notify(
            outcome.message or outcome.state, title=self.TITLE, severity=severity, markup=False
        )

    # --- events ------------------------------------------------------------------------------
    @on(Button.Pressed, "#go")
    def _go_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.go()

    @on(Button.Pressed, "#retry")
    def _retry_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        outcome = self.outcome
        if (
            outcome is not None
            and outcome.retryable
            and self.step == "result"
            and not self._sending
        ):
            # The same path as a first send (typed confirmation included), as a NEW journal
            # entry; the executor re-checks that it really did not happen first.
            self._retry_entry = outcome.entry_id
            self._sending = True
            self._message(Text(f"Sending the {self.NOUN}…"))  # the step in words
            self.step = "sending"
            self.app.run_worker(self._send(None), group="money-send", exit_on_error=False)

    @on(Button.Pressed, "#open")
    def _open_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_open_result()

    @on(Button.Pressed, "#close")
    def _close_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_close()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.go()


class TypedConfirmModal(PaytuiModal[str | None]):
    """Ask for the production confirmation phrase alone (History's retry): dismisses with what
    was typed, or None on escape. The executor checks it; this dialog only collects it."""

    TEXT_ENTRY = True

    CSS_PATH = Path(__file__).with_name("confirm.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*MONEY_MODAL_BINDINGS]
    HELP_TITLE = "Confirm"

    def __init__(self, phrase: str, what: str) -> None:
        super().__init__()
        self.phrase = phrase
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Confirm"
            yield Static(
                Text.assemble(
                    Text(safe_lines(self.what)),
                    ("\nProduction: type ", "bold"),
                    (self.phrase, "bold reverse"),
                    (" to confirm, then press enter.", "bold"),
                ),
                id="dialog-info",
            )
            yield SafeInput(id="confirm-phrase", placeholder="type it here")

    def on_mount(self) -> None:
        self.set_focus(self.query_one(Input))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_close(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "open_result"


__all__ = ["MoneyActionModal", "TypedConfirmModal", "outcome_text"]
