"""The charge actions of a list whose rows are not all charges (Today): marks, bulk, export, tags.

Why a kit and not the charge list's own code again: the rules stay where they are. Marks are
`paytui.ui.marks.Marks` (by charge id, so they survive a refresh); whether a key applies is the
action registry's (`edit`, `bulk_capture`, `customer`, ... through `check_action`); a bulk action
is `modals.bulk.open_bulk` (dry run, each charge asked the registry's rule, one confirmation,
each item through the executor); an export is `ExportModal.for_charges`. What a screen adds is
which charge a row holds (`row_charge`), the charges its rows show (`listed_charges`: rows its
reader already proved) and how it redraws its marks (`marks_changed`).

`charge_row_bindings(prefix)` is the one description of these keys: the footer, `?` help, the
palette and keys.md read it from the screen's `BINDINGS`, each id under the screen's prefix.
A row that holds no charge takes none of them: the key says so in one line (`not_a_charge`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.binding import Binding

from paytui.ui.marks import Marks
from paytui.ui.running_app import paytui_app

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from paytui.ui.host import PaytuiHost

__all__ = ["ChargeRowActions", "charge_row_bindings"]


def charge_row_bindings(prefix: str) -> list[Binding]:
    """Marks, bulk, tags, export and the charge's views, with ids `<prefix>.<name>` (remappable
    by id in `[keymap]`). Keys as on the charge list: one meaning per key."""
    rows = (
        ("space", "toggle_mark", "Mark", "mark", "Mark or unmark the highlighted charge"),
        ("M", "mark_all", "Mark all matching", "mark_all", "Mark every charge row of this view"),
        ("U", "clear_marks", "Clear marks", "clear_marks", "Unmark every charge"),
        ("C", "bulk_capture", "Bulk capture", "bulk_capture", "Capture the marked authorizations"),
        ("B", "bulk_refund", "Bulk full refund", "bulk_refund", "Refund the marked charges"),
        ("e", "edit", "Edit tags", "edit", "Edit the highlighted charge's tags and attributes"),
        ("z", "duplicates", "Charged twice?", "duplicates", "Likely duplicates of the charge"),
        ("H", "customer", "Customer", "customer", "The payer's charges, refunds and tokens"),
        ("x", "export", "Export", "export", "Export the marked charges, else this view's"),
    )
    return [
        Binding(key, action, label, id=f"{prefix}.{name}", tooltip=tooltip, show=key == "x")
        for key, action, label, name, tooltip in rows
    ]


class ChargeRowActions:
    """Mixed into a `PaytuiScreen` before it (`class S(ChargeRowActions, PagedListScreen[..])`)."""

    marks: Marks

    def _host(self) -> PaytuiHost:
        """The running app (the mixin is always part of a screen)."""
        return paytui_app(cast("DOMNode", self))

    # --- what the screen says -------------------------------------------------------------------
    def row_charge(self) -> Any | None:
        """The charge the highlighted row holds (None: the row is not a charge)."""
        raise NotImplementedError

    def listed_charges(self) -> list[Any]:
        """The charges of the rows shown, each already proven to belong (the screen's reader)."""
        raise NotImplementedError

    def not_a_charge(self) -> str:
        """The one line a charge key says on a row that holds no charge."""
        return "This row is not a charge: charge actions apply to charge rows only."

    def marks_changed(self) -> None:
        """Redraw what shows the marks (the rows' sign, the count)."""

    def mark_all_how(self) -> str:
        """How "mark all" chose its rows, for the bulk dry run (`Marks.provenance`)."""
        return "by mark all, each row proven"

    def view_name(self) -> str:
        """What "export this view" names in its dialog."""
        return "this view"

    # --- the actions ----------------------------------------------------------------------------
    def action_toggle_mark(self) -> None:
        charge = self.row_charge()
        if charge is None:
            self._host().notify(self.not_a_charge(), severity="warning", markup=False)
            return
        self.marks.toggle(charge)
        self.marks_changed()

    def action_mark_all(self) -> None:
        added = self.marks.add(self.listed_charges(), how=self.mark_all_how())
        self.marks_changed()
        self._host().notify(f"Marked {added:,} more ({len(self.marks):,} marked).", markup=False)

    def action_clear_marks(self) -> None:
        if self.marks.clear():
            self.marks_changed()

    def opens_a_screen(self, action: str) -> bool:
        """`action` opens its operation's dialog (`dialogs.opens_dialog`): the keys typed
        after its key wait for it (`paytui.ui.held_keys`)."""
        from paytui.ui.screens.modals.dialogs import opens_dialog

        return opens_dialog(action)

    async def action_bulk_capture(self) -> None:
        await self._bulk("capture")

    async def action_bulk_refund(self) -> None:
        await self._bulk("refund")

    async def _bulk(self, operation: str) -> None:
        from paytui.ui.screens.modals.bulk import open_bulk

        await open_bulk(self._host(), operation, self.marks, self.marks_changed)

    async def action_edit(self) -> None:
        from paytui.ui.screens.modals.dialogs import dialog_for

        charge = self.row_charge()
        if charge is not None:
            await self._host().push_screen(dialog_for("update_charge", charge.charge_id))

    async def action_customer(self) -> None:
        from paytui.ui.screens.customer import customer_of

        charge = self.row_charge()
        if charge is not None:
            await self._host().push_screen(customer_of(charge))

    async def action_duplicates(self) -> None:
        from paytui.ui.screens.duplicates import DuplicatesScreen

        charge = self.row_charge()
        if charge is not None:
            await self._host().push_screen(
                DuplicatesScreen(charge, self._host().session.duplicate_window)
            )

    async def action_export(self) -> None:
        """The marked charges when there are marks (`U` clears them), else the view's charges."""
        from paytui.ui.screens.modals.export import ExportModal

        charges = self.marks.charges() or self.listed_charges()
        if not charges:
            self._host().notify("No charge rows here to export.", severity="warning", markup=False)
            return
        count = len(charges)
        noun = f"{count} {'marked ' if len(self.marks) else ''}charge{'s' if count != 1 else ''}"
        where = "" if len(self.marks) else f" of {self.view_name()}"
        await self._host().push_screen(
            ExportModal.for_charges(charges, f"Export the {noun}{where}")
        )
