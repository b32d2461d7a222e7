"""The command palette paytui opens (`ctrl+p`, the theme and command pickers): Textual's, with
its races guarded (`textual_fixes.GuardedCommandPalette`) and, in screen-reader mode, each match
the cursor reaches said as a line ("Theme: nord, 2 of 14"): the search field keeps the focus as
the list changes under it, so without this a screen reader heard the field and never the
matches (docs/accessibility.md)."""

from __future__ import annotations

from textual import on
from textual.widgets import OptionList

from paytui.ui.textual_fixes import GuardedCommandPalette

__all__ = ["Palette"]


class Palette(GuardedCommandPalette):
    """Every palette paytui opens."""

    @on(OptionList.OptionHighlighted)
    def _say_the_match(self, event: OptionList.OptionHighlighted) -> None:
        announcer = getattr(self.app, "announcer", None)
        if announcer is None or not self.is_active:
            return
        option_list = event.option_list
        prompt = str(event.option.prompt).splitlines()[0] if str(event.option.prompt) else ""
        if prompt:
            position = f"{event.option_index + 1} of {option_list.option_count}"
            announcer.say(f"{prompt}, {position}")
