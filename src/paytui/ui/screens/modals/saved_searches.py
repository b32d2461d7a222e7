"""Saved searches: name the current query (`W`), and the list to run, rename and delete them.

A person's own live in the config's ``[searches]`` table, written with tomlkit so the user's
comments stay (`paytui.config.searches`). On a team journal the team's are listed under them as
``team/NAME`` with who shared them (`Journal.team_searches`, read in a worker): F3 publishes the
highlighted own search to the team (not `ctrl+t`, a new workspace everywhere), delete on a team
row removes it for everyone.
The list runs one with enter (the charge search shows it); F2 renames, delete removes.
`:saved NAME` and the command palette run one by name as well (``:saved team/NAME`` a team's).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Static

from paytui.config.store import ConfigError
from paytui.ui import format as fmt
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.safe_input import SafeInput

SAVE_SEARCH_BINDINGS: list[Binding] = [
    Binding("escape", "close", "Close", id="save_search.close", tooltip="Close (nothing saved)"),
]


class SaveSearchModal(PaytuiModal[str | None]):
    """Ask for a name and save `query` under it (or rename the search `rename`)."""

    CSS_PATH = Path(__file__).with_name("jump.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*SAVE_SEARCH_BINDINGS]
    HELP_TITLE = "Save search"
    TEXT_ENTRY = True

    def __init__(self, query: str, *, rename: str | None = None) -> None:
        super().__init__()
        self.query_text = query
        self.rename = rename

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Rename search" if self.rename else "Save search"
            line = Text("Query: ")
            line.append_text(fmt.literal(self.query_text, "bold"))
            yield Static(line)
            yield SafeInput(value=self.rename or "", placeholder="a name", id="search-name")
            yield Static("", id="save-error")
            yield Static("enter saves (in the config) · esc closes", id="save-help")

    def on_mount(self) -> None:
        self.set_focus(self.query_one("#search-name", SafeInput))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        from paytui.config.searches import rename_search, save_search

        path = self.app.config_file
        try:
            if self.rename is not None:
                name = rename_search(self.rename, event.value, path)
            else:
                name = save_search(event.value, self.query_text, path)
        except (ConfigError, OSError) as err:
            self.query_one("#save-error", Static).update(fmt.literal(error_detail(err)))
            return
        self.app.notify(f"Saved search {name!r}: :saved {name} runs it", markup=False)
        self.dismiss(name)

    def action_close(self) -> None:
        self.dismiss(None)


SAVED_SEARCHES_BINDINGS: list[Binding] = [
    Binding("enter", "run", "Run", id="saved.run", tooltip="Run the highlighted search"),
    Binding("f2", "rename", "Rename", id="saved.rename", tooltip="Rename the highlighted search"),
    Binding("delete", "delete", "Delete", id="saved.delete", tooltip="Delete the search"),
    Binding(
        "f3",  # not ctrl+t: that is a new workspace, everywhere (one meaning per key)
        "share",
        "Publish",
        id="saved.share",
        tooltip="Publish the highlighted search to the team (everyone on the team journal)",
    ),
    Binding("escape", "close", "Close", id="saved.close"),
]
#: How a team's search is named beside a person's own (a person's name cannot hold "/").
TEAM_PREFIX = "team/"


class SavedSearchesModal(PaytuiModal[str | None]):
    """The saved searches; dismisses with the name to run, or None."""

    CSS_PATH = Path(__file__).with_name("jump.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*SAVED_SEARCHES_BINDINGS]
    HELP_TITLE = "Saved searches"

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Saved searches"
            table: DataTable[Text] = DataTable(id="saved", cursor_type="row")
            yield table
            yield Static(
                "enter runs · F2 renames · delete removes · F3 publishes to the team · esc closes",
                id="saved-help",
            )

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Name", "Query")
        self.reload()
        self.set_focus(table)

    def reload(self) -> None:
        from paytui.config.searches import saved_searches

        table = self.query_one(DataTable)
        table.clear()
        self.searches = saved_searches(self.app.config_file)
        for name, query in self.searches.items():
            table.add_row(fmt.literal(name, "bold"), fmt.literal(query), key=name)
        team = paytui_app(self).actions.team_searches
        for name, (query, agent) in team.items():
            self._add_team_row(name, query, agent)
        if not self.searches and not team:
            self.query_one("#saved-help", Static).update(
                "No saved searches yet: W on the charge list saves the query you typed."
            )
        self._read_team()

    def _add_team_row(self, name: str, query: str, agent: str | None) -> None:
        key = TEAM_PREFIX + name
        self.searches[key] = query
        label = fmt.literal(key, "bold")
        if agent:
            label.append_text(fmt.literal(f" ({agent})", "dim"))
        self.query_one(DataTable).add_row(label, fmt.literal(query), key=key)

    @work(exclusive=True, group="team-searches")
    async def _read_team(self) -> None:
        """The team's searches as they are now (another agent may have shared one)."""
        actions = paytui_app(self).actions
        before = dict(actions.team_searches)
        try:
            team = await actions.read_team_searches()
        except Exception:
            return  # the own searches stay; the team's are not known now
        if team == before:
            return
        table = self.query_one(DataTable)
        for key in [k for k in self.searches if k.startswith(TEAM_PREFIX)]:
            del self.searches[key]
            table.remove_row(key)
        for name, (query, agent) in team.items():
            self._add_team_row(name, query, agent)

    @property
    def current(self) -> str | None:
        table = self.query_one(DataTable)
        names = list(self.searches)
        row = table.cursor_row
        return names[row] if 0 <= row < len(names) else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_run()

    def action_run(self) -> None:
        if self.current is not None:
            self.dismiss(self.current)

    def action_rename(self) -> None:
        name = self.current
        if name is not None and not name.startswith(TEAM_PREFIX):  # the team's: share anew
            self.app.push_screen(
                SaveSearchModal(self.searches[name], rename=name), callback=lambda _: self.reload()
            )

    def action_delete(self) -> None:
        from paytui.config.searches import delete_search

        name = self.current
        if name is None:
            return
        if name.startswith(TEAM_PREFIX):
            self._unshare(name.removeprefix(TEAM_PREFIX))
            return
        try:
            delete_search(name, self.app.config_file)
        except (ConfigError, OSError) as err:
            self.app.notify(error_detail(err), severity="error", markup=False)
            return
        self.app.notify(f"Deleted saved search {name!r}", markup=False)
        self.reload()

    def action_share(self) -> None:
        name = self.current
        if name is None or name.startswith(TEAM_PREFIX):
            return
        self._share(name, self.searches[name])

    @work(exclusive=True, group="team-share")
    async def _share(self, name: str, query: str) -> None:
        try:
            await paytui_app(self).actions.share_search(name, query)
        except Exception as err:
            self.app.notify(error_detail(err), severity="error", markup=False)
            return
        self.app.notify(f"Shared {name!r} with the team: :saved team/{name} runs it", markup=False)
        self.reload()

    @work(exclusive=True, group="team-share")
    async def _unshare(self, name: str) -> None:
        try:
            await paytui_app(self).actions.unshare_search(name)
        except Exception as err:
            self.app.notify(error_detail(err), severity="error", markup=False)
            return
        self.app.notify(f"Removed the team's search {name!r}", markup=False)
        self.reload()

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["SaveSearchModal", "SavedSearchesModal"]
