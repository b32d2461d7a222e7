"""Workspaces: several profiles or merchants open at once, each keeping its place.

A workspace is a set of Textual modes (one per top-level screen: `ui/top_screens.py`) and the
session (`ui/session.py`) its screens read. The first workspace's modes carry the screens'
own names (`charges`, `accounts`, ...); workspace N's carry `charges@N`, and so on. Each mode
has its own screen stack, so what a workspace shows — its pushed screens, the query typed in
its search, its cursor, its marks — stays as it was while another workspace is shown.

Screens never name their session: they ask the App (`app.session`, `app.get_client()`,
`app.actions`), and the App answers with the session of the workspace *asking*: the screen
whose worker, timer or message handler is running (Textual's context of the running worker,
else of the running message pump), found in the workspaces' screen stacks; anything else
(the App's own keys) gets the workspace shown. A list reloading in a workspace that is not
shown therefore reads its own profile's service, never the shown one's.

A new workspace (`ctrl+t`) opens on the profile and top-level screen shown, sharing the
session (one client, one executor, one journal, one journal watch) until `P` in it switches
it to another profile: then it gets a session of its own (`Session.sibling`), which shares
the embedded sandbox and, for the same journal file, the one SQLite connection.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual._context import active_message_pump
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import NoActiveWorker, Worker, get_current_worker

from paytui.text import safe

if TYPE_CHECKING:
    from textual.app import App

    from paytui.ui.session import Session

__all__ = ["Workspace", "Workspaces", "base_mode", "strip_text"]

#: Between a top-level screen's name and its workspace's number in a mode's name.
SEPARATOR = "@"


def base_mode(mode: str) -> str:
    """The top-level screen of a mode's name: `charges@2` -> `charges`."""
    return mode.partition(SEPARATOR)[0]


@dataclass(eq=False)
class Workspace:
    """One workspace: its number (its modes' suffix, never reused while the App runs), its
    session, and the top-level screen it showed last."""

    number: int
    session: Session
    mode: str = "charges"

    def mode_name(self, base: str) -> str:
        """This workspace's name of the top-level screen `base`."""
        return base if self.number == 1 else f"{base}{SEPARATOR}{self.number}"

    def owns(self, mode: str) -> bool:
        suffix = mode.partition(SEPARATOR)[2]
        return suffix == ("" if self.number == 1 else str(self.number))

    def label(self) -> str:
        """What the strip and the screen reader call it: profile, environment, account."""
        session = self.session
        words = f"{session.profile_name} · {session.environment}"
        if session.default_account_id:
            words += f" · {session.default_account_id}"
        return safe(words)


class Workspaces:
    """The App's workspaces, in the strip's order, and which one is shown."""

    def __init__(self, app: App[Any], first: Workspace) -> None:
        self._app = app
        self.items: list[Workspace] = [first]
        self.active = first
        self._next = 2
        #: Screens already found in a workspace's stacks (kept while they are being removed).
        self._of_screen: weakref.WeakKeyDictionary[Screen[Any], Workspace] = (
            weakref.WeakKeyDictionary()
        )
        #: The workspace that asked for each App worker (`bind`): a dialog sends its money in a
        #: worker of the App, which would otherwise answer with the workspace shown *then*.
        self._of_worker: weakref.WeakKeyDictionary[Worker[Any], Workspace] = (
            weakref.WeakKeyDictionary()
        )

    def add(self, session: Session, mode: str) -> Workspace:
        """A new workspace after the others (not shown yet)."""
        workspace = Workspace(self._next, session, mode)
        self._next += 1
        self.items.append(workspace)
        return workspace

    def remove(self, workspace: Workspace) -> None:
        self.items.remove(workspace)

    def position(self, workspace: Workspace) -> int:
        """1 for the first in the strip."""
        return self.items.index(workspace) + 1

    def neighbour(self, step: int) -> Workspace:
        """The workspace `step` places after the shown one in the strip, round."""
        index = self.items.index(self.active)
        return self.items[(index + step) % len(self.items)]

    def of_mode(self, mode: str) -> Workspace | None:
        return next((w for w in self.items if w.owns(mode)), None)

    def in_use(self, session: Session) -> bool:
        return any(w.session is session for w in self.items)

    def sharing(self, workspace: Workspace) -> bool:
        """Another workspace reads the same session."""
        return any(w.session is workspace.session for w in self.items if w is not workspace)

    def of_screen(self, screen: Screen[Any]) -> Workspace | None:
        """The workspace whose screen stacks hold `screen` (None: in none of them yet)."""
        found = self._of_screen.get(screen)
        if found is not None:
            return found
        stacks: dict[str, list[Screen[Any]]] = self._app._screen_stacks
        for mode, stack in stacks.items():
            if screen in stack:
                found = self.of_mode(mode)
                if found is not None:
                    self._of_screen[screen] = found
                return found
        return None

    def bind(self, worker: Worker[Any], workspace: Workspace) -> None:
        """`worker` (started by the App for `workspace`'s code) answers with `workspace`."""
        self._of_worker[worker] = workspace

    def asking(self) -> Workspace:
        """The workspace of the code running now: the one a running App worker was started
        for (`bind`: the App's `run_worker` binds every worker to the workspace asking for
        it), else the screen of the running worker, else of the running message pump (a
        screen's or widget's handler, timer or compose); the shown one for the App's own work
        and for anything not on a workspace's screen. A bound workspace closed since is still
        the answer: its work fails on its closed session rather than going to another's."""
        if len(self.items) == 1 and not self._of_worker:
            return self.items[0]
        try:
            worker = get_current_worker()
        except NoActiveWorker:
            node: object = active_message_pump.get(None)
        else:
            bound = self._of_worker.get(worker)
            if bound is not None:
                return bound
            node = worker.node
        if len(self.items) == 1:
            return self.items[0]
        screen: Screen[Any] | None = None
        if isinstance(node, Screen):
            screen = node
        elif isinstance(node, Widget):
            try:
                screen = node.screen
            except Exception:  # not on a screen (yet, or any more)
                screen = None
        found = self.of_screen(screen) if screen is not None else None
        return found if found is not None else self.active


def strip_text(workspaces: Workspaces) -> tuple[str, ...]:
    """The strip's items, in order: "2 ana · production", the shown one between ▶ and ◀ (marked
    by more than colour); empty with one workspace (no strip)."""
    if len(workspaces.items) < 2:
        return ()
    items = []
    for position, workspace in enumerate(workspaces.items, start=1):
        words = f"{position} {workspace.label()}"
        items.append(f"▶ {words} ◀" if workspace is workspaces.active else words)
    return tuple(items)
