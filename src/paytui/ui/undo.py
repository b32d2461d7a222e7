"""`ctrl+z` in the dashboard: the person's last change undone (`paytui.actions.undo`) — an edit
of tags and attributes through its dialog (read, review, `executor.run`), a claim let go of or
taken again after a y / n; anything else (money above all) is one line saying why not. Runs in a
worker: the journal may be a network away."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paytui.text import safe
from paytui.ui.widgets.errors import error_detail

if TYPE_CHECKING:
    from paytui.actions.executor import ActionExecutor
    from paytui.ui.host import PaytuiHost

__all__ = ["undo_last"]

TITLE = "Undo"


async def undo_last(app: PaytuiHost) -> None:
    """Find this person's last change and offer to undo it (see the module's docstring)."""
    from paytui.actions.errors import ActionError
    from paytui.actions.undo import last_change, why_not_undo

    try:
        executor = await app.actions.executor()
        change = await last_change(executor)
    except ActionError as exc:  # no journal: nothing can be undone (it says why)
        app.notify(exc.message, title=TITLE, severity="warning", markup=False)
        return
    except Exception as exc:
        app.notify(
            f"Could not read the journal: {error_detail(exc)}",
            title=TITLE,
            severity="error",
            markup=False,
        )
        return
    if change is None:
        app.notify(
            "Nothing to undo: you made no change on this profile's service yet.",
            title=TITLE,
            markup=False,
        )
        return
    if change.claim is not None:
        await _undo_claim(app, executor, *change.claim)
        return
    assert change.entry is not None
    reason = why_not_undo(change.entry)
    if reason is not None:
        app.notify(
            f"Your last change cannot be undone: {reason}.",
            title=TITLE,
            severity="warning",
            markup=False,
        )
        return
    from paytui.ui.screens.modals.undo import undo_dialog_for

    await app.push_screen(undo_dialog_for(change.entry))


async def _undo_claim(app: PaytuiHost, executor: ActionExecutor, kind: str, target: str) -> None:
    from paytui.ui.screens.modals.undo import UndoClaimModal

    if kind == "release":
        question = f"Claim {target} again?"
        body = f"Your last change was letting go of {target}; this takes it again."
    else:
        question = f"Let go of your claim on {target}?"
        body = f"Your last change was claiming {target}; this lets go of it."

    async def answered(yes: bool | None) -> None:
        if yes:
            await _claim_back(app, executor, kind, target)

    await app.push_screen(UndoClaimModal(question, body), answered)


async def _claim_back(app: PaytuiHost, executor: ActionExecutor, kind: str, target: str) -> None:
    from paytui.actions.claims import ClaimedElsewhere

    try:
        if kind == "release":
            await executor.claim(target)
            said = f"Claimed {target} again."
        elif await executor.release(target):
            said = f"Released {target}."
        else:
            said = f"Nothing to undo: your claim on {target} had already gone (lapsed or taken)."
    except ClaimedElsewhere as taken:
        # Tied to what the person saw: someone took it since; nothing is taken from them.
        app.notify(
            safe(f"Not claimed: {target} was claimed since by {taken.claim.holder(app.now())}."),
            title=TITLE,
            severity="warning",
            markup=False,
        )
        return
    except Exception as exc:
        app.notify(
            f"Could not undo: {error_detail(exc)}", title=TITLE, severity="error", markup=False
        )
        return
    app.notify(safe(said), title=TITLE, markup=False)
    app.charges_changed_by(target, None)
