"""Claims in the dashboard: `m` claims the charge for this agent or lets go of it, `ctrl+n`
(`ctrl+g` in a browser) on the charge list claims the next free one; one notification line says
what happened, or who holds it. The claims themselves are the journal's
(`paytui.actions.claims`), through the app's one executor; everything here runs in a worker (the
journal may be a network away).

A claim is a warning to the other agents, not a lock on money: the dialogs and the command line
warn before acting on another's claimed charge, and the exactly-once guard holds either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paytui.text import safe
from paytui.ui.widgets.errors import error_detail

if TYPE_CHECKING:
    from paytui.actions.claims import Claim
    from paytui.ui.host import PaytuiHost

__all__ = ["ClaimNow", "claim_next", "claim_or_release", "claim_sentence", "read_claims"]

#: What a claim of this agent's says it lasts until.
YOURS = "yours until you release it (m) or quit"

#: (this paytui's owner, the claim on the charge now, None: none) after a claim or a release.
ClaimNow = tuple[str, "Claim | None"]


def claim_sentence(claim: Claim, owner: str | None, app: PaytuiHost) -> str:
    """ "Claimed by support-07 on ws-17 since 14:02 UTC — they may be working on it", or
    "Claimed by you — yours until …", sanitised (the agent and machine are others' words)."""
    if claim.mine(owner):
        return safe(f"Claimed by you — {YOURS}")
    return safe(f"{claim.describe(now=app.now())} — they may be working on it")


async def read_claims(app: PaytuiHost, charge_ids: list[str]) -> tuple[str, dict[str, Claim]]:
    """The live claims on `charge_ids` (one read) and this paytui's owner. Raises what the
    journal raises: a caller showing a hint says nothing then."""
    executor = await app.actions.executor()
    return executor.owner, await executor.claimed(charge_ids)


async def claim_or_release(app: PaytuiHost, charge_id: str) -> ClaimNow | None:
    """`m`: claim `charge_id` for this agent, or let go of it when it is ours; one notification
    either way, or who holds it. None when the journal could not say (the line says why)."""
    from paytui.actions.claims import ClaimedElsewhere
    from paytui.actions.errors import ActionError

    try:
        executor = await app.actions.executor()
        held = (await executor.claimed([charge_id])).get(charge_id)
        if held is not None and held.mine(executor.owner):
            await executor.release(charge_id)
            app.notify(safe(f"Released {charge_id}."), title="Claim", markup=False)
            return executor.owner, None
        claim = await executor.claim(charge_id)
    except ClaimedElsewhere as taken:
        holder = taken.claim.holder(app.now())
        app.notify(
            safe(f"{charge_id} is claimed by {holder}."),
            title="Claimed by another agent",
            severity="warning",
            markup=False,
        )
        return executor.owner, taken.claim
    except ActionError as exc:  # no journal: money actions and claims are off (it says why)
        app.notify(safe(exc.message), title="Claim", severity="warning", markup=False)
        return None
    except Exception as exc:
        app.notify(
            f"Could not claim {safe(charge_id)}: {error_detail(exc)}",
            title="Claim",
            severity="error",
            markup=False,
        )
        return None
    app.notify(safe(f"Claimed {charge_id} — {YOURS}."), title="Claim", markup=False)
    return executor.owner, claim


async def claim_next(app: PaytuiHost, candidates: list[str]) -> ClaimNow | None:
    """Claim the first of `candidates` nobody else holds (one short turn on the journal: ten
    agents pressing at once get ten different ones); says which, or that none was free."""
    from paytui.actions.errors import ActionError

    if not candidates:
        return None
    try:
        executor = await app.actions.executor()
        claim = await executor.claim_next(candidates)
    except ActionError as exc:
        app.notify(safe(exc.message), title="Claim", severity="warning", markup=False)
        return None
    except Exception as exc:
        app.notify(
            f"Could not claim: {error_detail(exc)}", title="Claim", severity="error", markup=False
        )
        return None
    if claim is None:
        count = len(candidates)
        app.notify(
            f"Nothing free: the {count} charge{'s' if count != 1 else ''} listed from the cursor"
            " down (as loaded) are all claimed by other agents.",
            title="Claim next",
            severity="warning",
            markup=False,
        )
        return None
    app.notify(safe(f"Claimed {claim.target} — {YOURS}."), title="Claim next", markup=False)
    return executor.owner, claim
