"""The command palette, guarded against a crash in Textual's OptionList.

Upstream bug (Textual 8.2.8, `OptionList._move_page`): PageDown/PageUp read the option list's
line map (`_index_to_line[highlighted]`), which `_update_lines` only builds once the list has a
size. Right after `ctrl+p` the palette's list can already hold options and a highlight while it
has not been laid out yet, so PageDown at once raised ``KeyError: 0`` and ended the app. Until
that is fixed upstream, page moves on a list without a size are ignored (there is nothing on
screen to page through yet); every other key goes to Textual unchanged.

A second upstream race (same version, `CommandPalette._watch__show_busy`): the search worker
sets `_show_busy` on its way out, and when the palette was dismissed meanwhile (keys typed fast:
ctrl+p, a letter, escape) its children are already gone, so the watcher's `query_one` raised
`NoMatches` and ended the app; the search worker itself, started by a key typed as the palette
closed, failed the same way on its first `query_one`. A palette without its children has
nothing to show busy on and nothing to search for.
And, like every paytui screen, it is dismissed once (`paytui.ui.dismiss.DismissOnce`).

A third (same version, `CommandPalette._select_command` / `_select_or_command`): keys typed fast
are all handed to the palette's input before the palette handles the first one's choice, so two
enters queued two choices; the palette, already dismissed by the first, ran the command again for
each (and a plain `CommandPalette` dismissed itself again: the screen beneath it was popped, up to
"Can't pop screen", `ScreenStackError`). A palette no longer on top takes no choice.

Every palette paytui opens is this one: ctrl+p (`PaytuiApp.action_command_palette`) and Textual's
own pickers (`PaytuiApp.search_themes`, `search_commands`: the theme picker was a plain
`CommandPalette`, and the fuzz crashed in it with both bugs above).
"""

from __future__ import annotations

from textual import on, work
from textual.command import CommandList, CommandPalette
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Button, Input, LoadingIndicator, OptionList

from paytui.ui.dismiss import DismissOnce

__all__ = ["GuardedCommandPalette"]

_PAGE_MOVES = frozenset({"page_down", "page_up"})


class GuardedCommandPalette(DismissOnce, CommandPalette):
    """`CommandPalette` whose page moves wait until its list has been laid out, and that takes
    one choice: the first one dismisses it, any queued behind it is dropped."""

    @on(Input.Submitted)
    @on(Button.Pressed)
    @on(OptionList.OptionSelected)
    def _no_choice_once_dismissed(self, event: Message) -> None:
        # Runs before `CommandPalette`'s own handlers of these messages (this class comes first
        # in the MRO), and `prevent_default` skips those.
        if not self.is_active:  # dismissed: no longer the top screen
            event.stop()
            event.prevent_default()

    def _action_command_list(self, action: str) -> None:
        if action in _PAGE_MOVES:
            commands = self.query_one(CommandList)
            if not commands.scrollable_content_region:
                return
        super()._action_command_list(action)

    async def _watch__show_busy(self) -> None:
        try:
            self.query_one(LoadingIndicator)
            self.query_one(CommandList)
        except NoMatches:  # dismissed while its search was ending
            return
        await super()._watch__show_busy()

    @work(exclusive=True, group=CommandPalette._GATHER_COMMANDS_GROUP)
    async def _gather_commands(self, search_value: str) -> None:
        try:
            self.query_one(CommandList)
        except NoMatches:  # dismissed before its search began
            return
        gather = CommandPalette._gather_commands.__wrapped__  # type: ignore[attr-defined]
        try:
            await gather(self, search_value)
        except NoMatches:  # dismissed while it searched
            return
