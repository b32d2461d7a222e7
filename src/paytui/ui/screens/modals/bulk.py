"""The bulk action dialog: dry run → (typed) confirmation → progress with each outcome → summary.

It decides nothing: the dry run is `paytui.actions.batch.plan_batch` (the action registry's
reasons), then `observe_plan` reads every item as it is now (what is left to refund, a capture made
meanwhile, by whom), so the person confirms what is true and each item is sent only if it is
unchanged since; the confirmation is checked by `BatchRunner` with the policy's own rule (typed on
a production profile, as every money dialog), and every item goes through the one executor and
journal. Escape before the start closes (nothing is sent); while running it stops the batch after
the items already in flight (their outcomes are still recorded), then shows what was and was not
done. The dialog dismisses with the ids of the charges acted on, so the list unmarks them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, ProgressBar, RichLog, Static

from paytui.actions.batch import (
    BULK_OPERATIONS,
    BatchPlan,
    BatchRunner,
    observe_plan,
    plan_batch,
    summarise,
)
from paytui.actions.errors import ActionError, ConfirmationRequired
from paytui.actions.operations import OPERATIONS
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from paytui.actions.batch_log import BatchItem, BatchRecord
    from paytui.ui.host import PaytuiHost
    from paytui.ui.marks import Marks

#: Skipped charges listed by name in the dry run; the rest are counted.
SHOWN_SKIPPED = 8
_STATE_STYLES = {
    "succeeded": "bold success",
    "failed": "bold error",
    "not_applied": "warning",
    "skipped": "warning",
    "unknown": "bold accent",
}


def dry_run_text(
    plan: BatchPlan, *, needs_phrase: bool, marked: Sequence[tuple[str, int]] = ()
) -> Text:
    """How many, the total, how the rows were chosen (`Marks.provenance`: by hand, or by a
    mark-all that proved each row matches its search), which are skipped and why (the
    registry's words)."""
    spec = OPERATIONS[plan.operation]
    noun = spec.bulk_noun or "charge"
    text = Text()
    text.append(f"{plan.label} of {plan.count} {noun}{'s' if plan.count != 1 else ''}", "bold")
    text.append(": total ")
    text.append(fmt.money(plan.total), "bold")
    if spec.seen_refunds and not plan.bases:  # not read yet: the charges' amounts
        text.append(" at most (what is left of each charge is refunded)")
    elif spec.seen_refunds:
        text.append(" (what is left of each charge, read just now)")
    text.append(".\n")
    if marked:
        text.append("Marked: ")
        text.append_text(fmt.literal("; ".join(f"{count:,} {how}" for how, count in marked)))
        text.append(".\n")
    if plan.skipped:
        text.append(f"{len(plan.skipped)} marked will be skipped:\n", fmt.tone("bold warning"))
        _by_reason(text, [(item.charge_id, item.reason) for item in plan.skipped])
    if plan.notes:
        # A status paytui does not know refuses nothing: said, and the service decides.
        text.append(f"{len(plan.notes)} to act on with a note:\n", fmt.tone("bold"))
        _by_reason(text, [(item.charge_id, item.note) for item in plan.notes])
    if plan.count:
        text.append("Each item is sent once, 4 at a time, and recorded in History.\n")
    if needs_phrase:
        text.append("Production: type ", "bold")
        text.append(fmt.money(plan.total), "bold reverse")
        text.append(" (the total) and press enter.", "bold")
    return text


def _by_reason(text: Text, items: Sequence[tuple[str, str]]) -> None:
    """Charges under their reason: a reason several share is said once, with its count, then
    their ids side by side (a line each wrapped every long reason onto two, and seven made the
    dialog taller than 80x24 shows: it said 7 and 6 were seen); a reason of one charge is
    "  id: reason". At most `SHOWN_SKIPPED` ids are named in all, the rest counted, so the
    numbers always add up. The line breaks are layout: only ids and reasons are literal text."""
    groups: dict[str, list[str]] = {}
    for charge_id, reason in items:
        groups.setdefault(reason, []).append(charge_id)
    room = SHOWN_SKIPPED
    hidden = 0
    for reason, ids in groups.items():
        if room <= 0:
            hidden += len(ids)
        elif len(ids) == 1:
            text.append_text(fmt.literal(f"  {ids[0]}: {reason}"))
            text.append("\n")
            room -= 1
        else:
            named = ids[:room]
            room -= len(named)
            text.append("  ")
            text.append_text(fmt.literal(reason))
            text.append(f" ({len(ids):,})\n    ", fmt.tone("bold"))
            text.append_text(fmt.literal(", ".join(named)))
            if len(named) < len(ids):
                text.append(f", … and {len(ids) - len(named):,} more")
            text.append("\n")
    if hidden:
        text.append(f"  … and {hidden:,} more\n")


def item_line(item: BatchItem) -> Text:
    """One line of the progress log: the charge, its outcome, the executor's message."""
    line = Text()
    line.append(f"{item.state:<11}", fmt.tone(_STATE_STYLES.get(item.state, "")))
    line.append_text(fmt.literal(f" {item.charge_id}  {item.message or ''}"))
    return line


BULK_BINDINGS: list[Binding] = [
    Binding(
        "escape",
        "close",
        "Close / cancel",
        id="bulk.close",
        tooltip="Before the start: close (nothing sent). Running: stop after the items in flight",
    ),
    Binding("enter", "start", "Start", id="bulk.start", tooltip="Start the bulk action"),
]


class BulkActionModal(PaytuiModal[list[str] | None]):
    """A bulk capture or full refund of `plan` — or, with `resume`, the rest of a batch."""

    CSS_PATH = Path(__file__).with_name("bulk.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*BULK_BINDINGS]
    HELP_TITLE = "Bulk action"
    KEYS_TITLE = "Bulk action dialog"
    TEXT_ENTRY = True

    def __init__(
        self,
        plan: BatchPlan,
        *,
        resume: BatchRecord | None = None,
        marked: Sequence[tuple[str, int]] = (),
    ) -> None:
        super().__init__()
        self.plan = plan
        self.resume = resume
        #: How the rows were chosen (`Marks.provenance`), said in the dry run.
        self.marked = tuple(marked)
        self.step = "reading"  # reading | review | running | done
        self.runner: BatchRunner | None = None
        self.done_ids: list[str] = []

    @classmethod
    def resuming(cls, record: BatchRecord) -> BulkActionModal:
        """The rest of a recorded batch (History's "Resume batch")."""
        items = tuple((item.charge_id, item.amount) for item in record.open_items)
        return cls(BatchPlan(record.operation, items), resume=record)

    @property
    def needs_phrase(self) -> bool:
        return self.plan.needs_confirmation(self.app.actions.policy())

    def compose(self) -> ComposeResult:
        title = f"Bulk {BULK_OPERATIONS[self.plan.operation].lower()}"
        if self.resume is not None:
            title = f"Resume batch #{self.resume.id}: {title.lower()}"
        with Vertical(id="dialog") as dialog:
            dialog.border_title = title
            yield Static(
                dry_run_text(self.plan, needs_phrase=self.needs_phrase, marked=self.marked),
                id="dialog-info",
            )
            phrase = SafeInput(id="confirm-phrase", placeholder="type the total here")
            phrase.display = self.needs_phrase and bool(self.plan.count)
            yield phrase
            yield ProgressBar(total=max(1, self.plan.count), id="bulk-progress", classes="-hidden")
            yield RichLog(id="bulk-log", classes="-hidden", wrap=True, markup=False)
            yield Static("", id="bulk-summary")
            yield Static(self._next_keys(), id="next-key")

    def _next_keys(self) -> str:
        if self.step == "reading":
            return "escape closes (nothing is sent)"
        if self.step == "running":
            return "escape stops after the items in flight"
        if self.step == "done" or not self.plan.count:
            return "escape closes"
        return "enter starts · escape closes (nothing is sent)"

    def on_mount(self) -> None:
        self.query_one("#confirm-phrase", SafeInput).display = False
        if self.plan.count:
            self.read_items()
        else:
            self._reviewed(self.plan)

    @work(exclusive=True, group="bulk-read", exit_on_error=False)
    async def read_items(self) -> None:
        """Read every item as it is now (`observe_plan`): the dry run then shows the truth, and
        what the person confirms is what each item is sent against."""
        total, done = self.plan.count, 0
        self._summary(Text(f"Reading the {total} charges as they are now…", "dim"))

        def one_read() -> None:
            nonlocal done
            done += 1
            self._summary(Text(f"Reading the charges as they are now… {done}/{total}", "dim"))

        try:
            executor = await self.app.actions.executor()
            observed = await observe_plan(executor, self.plan, on_read=one_read)
        except ActionError as err:
            self._cannot_read(err.message)
            return
        except Exception as exc:  # no connection, no journal: nothing is decided on a guess
            self._cannot_read(error_detail(exc))
            return
        self._reviewed(observed)

    def _cannot_read(self, why: str) -> None:
        self._set_step("done")
        self._summary(fmt.literal(f"Cannot read the charges: {why}; nothing was sent.", "error"))

    def _reviewed(self, plan: BatchPlan) -> None:
        """The dry run as read: shown, and the start (and the typed total) offered."""
        self.plan = plan
        self.query_one(ProgressBar).update(total=max(1, plan.count))
        self.query_one("#dialog-info", Static).update(
            dry_run_text(plan, needs_phrase=self.needs_phrase, marked=self.marked)
        )
        self._summary(Text(""))
        self._set_step("review")
        phrase = self.query_one("#confirm-phrase", SafeInput)
        if phrase.display:
            self.set_focus(phrase)

    # --- keys -------------------------------------------------------------------------------
    def holds_key(self, key: str) -> bool:
        """While the dry run reads the charges, the keys typed for the dialog wait
        (`paytui.ui.held_keys`): `B enter` typed at once starts the action once it is read (the
        enter was dropped, the start not yet offered). Escape is taken at once when nothing
        waits before it (it closes; nothing was sent)."""
        if self.step != "reading":
            return False
        from paytui.ui.held_keys import bound_to

        bound = bound_to(self, key)
        return bound is None or bound.action != "close"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start":
            return self.step == "review" and bool(self.plan.count)
        return True

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    def action_start(self) -> None:
        if self.step != "review" or not self.plan.count:
            return
        typed = self.query_one("#confirm-phrase", SafeInput).value.strip() or None
        self.run_batch(typed)

    def action_close(self) -> None:
        if self.step == "running":
            if self.runner is not None and not self.runner.cancelled:
                self.runner.cancel()
                self._summary(Text("Stopping: waiting for the items in flight…", "bold"))
            return
        self.dismiss(self.done_ids or None)

    # --- the run ----------------------------------------------------------------------------
    def _summary(self, text: Text) -> None:
        self.query_one("#bulk-summary", Static).update(text)

    def _set_step(self, step: str) -> None:
        self.step = step
        running = step == "running" or (step == "done" and self.runner is not None)
        self.query_one("#bulk-progress").set_class(not running, "-hidden")
        self.query_one("#bulk-log").set_class(not running, "-hidden")
        self.query_one("#confirm-phrase").display = (
            step == "review" and self.needs_phrase and bool(self.plan.count)
        )
        self.query_one("#next-key", Static).update(self._next_keys())
        self.refresh_bindings()
        if step != "reading":  # the keys typed during the dry run go on, in order
            paytui_app(self).release_held_keys()

    def _item_done(self, item: BatchItem) -> None:
        self.query_one(ProgressBar).advance(1)
        self.query_one(RichLog).write(item_line(item))
        if item.state == "succeeded":
            self.done_ids.append(item.charge_id)

    @work(exclusive=True, group="bulk", exit_on_error=False)
    async def run_batch(self, typed: str | None) -> None:
        actions = self.app.actions
        try:
            executor = await actions.executor()
            log = await actions.batch_log()
        except ActionError as err:
            self._summary(fmt.literal(err.message, "bold error"))
            return
        except Exception as exc:  # no connection, no journal: nothing was sent
            self._summary(
                fmt.literal(f"Cannot start: {error_detail(exc)}; nothing was sent.", "bold error")
            )
            return
        self.runner = BatchRunner(executor, log, on_item=self._item_done)
        self._set_step("running")
        try:
            if self.resume is not None:
                record = await self.runner.resume(
                    self.resume.id, confirmation=typed, observed=self.plan
                )
            else:
                record = await self.runner.start(self.plan, confirmation=typed)
        except ConfirmationRequired as err:
            self._set_step("review")
            self._summary(
                fmt.literal(f"Type {err.phrase} (the total) to confirm; nothing was sent.", "bold")
            )
            return
        except ActionError as err:
            self._set_step("review")
            self._summary(fmt.literal(f"{err.message}; nothing was sent.", "bold error"))
            return
        except Exception as exc:  # e.g. the batch record could not be written: say so, stop
            self._set_step("done")
            self._summary(
                fmt.literal(
                    f"Stopped: {error_detail(exc)}. What was done is in History.", "bold error"
                )
            )
            return
        finally:
            self.app.charges_changed_by(*self.done_ids)
        self._set_step("done")
        self._summary(Text(safe(summarise(record).line(self.plan.label))))


async def open_bulk(
    app: PaytuiHost, operation: str, marks: Marks, after: Callable[[], None]
) -> None:
    """The dry run of `operation` on the marked charges, in the dialog; when it closes, what was
    done is unmarked (the rest stays marked, to look at or to try again) and `after` runs."""
    if not len(marks):
        app.notify(
            "Mark charges with space first (M marks every match on the charge search).",
            severity="warning",
            markup=False,
        )
        app.screen_opened()  # no dialog: the keys typed after the bulk key go on (`held_keys`)
        return

    def closed(done: list[str] | None) -> None:
        if done:
            marks.discard(done)
        after()

    dialog = BulkActionModal(plan_batch(operation, marks.charges()), marked=marks.provenance())
    await app.push_screen(dialog, callback=closed)


__all__ = ["BulkActionModal", "dry_run_text", "item_line", "open_bulk"]
