"""A colleague on the same team journal: another agent's executor beside the dashboard's."""

from __future__ import annotations

from paytui.actions.actor import actor_name
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.policy import ActionPolicy
from tests.ui.conftest import frozen_clock


def colleague_executor(
    mine: ActionExecutor,
    journal: Journal,
    *,
    owner: str = "ws-3:4242",
    machine: str | None = None,
) -> ActionExecutor:
    """support-12's dashboard on another machine (`owner`: its process), over the same service
    as `mine` and the team journal `journal`, on the tests' frozen clock."""
    other = ActionExecutor(
        mine.client,
        journal,
        ActionPolicy(),
        profile="team",
        base_url=mine.base_url,
        clock=frozen_clock,
        actor=actor_name("the dashboard", "support-12"),
        agent="support-12",
    )
    other.owner = owner
    if machine is not None:
        other.machine = machine
    return other
