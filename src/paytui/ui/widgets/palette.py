"""The command palette, guarded against a crash in Textual's OptionList.

Upstream bug (Textual 8.2.8, `OptionList._move_page`): PageDown/PageUp read the option list's
line map (`_index_to_line[highlighted]`), which `_update_lines` only builds once the list has a
size. Right after `ctrl+p` the palette's list can already hold options and a highlight while it
has not been laid out yet, so PageDown at once raised ``KeyError: 0`` and ended the app. Until
that is fixed upstream, page moves on a list without a size are ignored (there is nothing on
screen to page through yet); every other key goes to Textual unchanged.
"""

from __future__ import annotations

from textual.command import CommandList, CommandPalette

__all__ = ["GuardedCommandPalette"]

_PAGE_MOVES = frozenset({"page_down", "page_up"})


class GuardedCommandPalette(CommandPalette):
    """`CommandPalette` whose page moves wait until its list has been laid out."""

    def _action_command_list(self, action: str) -> None:
        if action in _PAGE_MOVES:
            commands = self.query_one(CommandList)
            if not commands.scrollable_content_region:
                return
        super()._action_command_list(action)
