"""The footer every screen shows: Textual's `Footer`, rebuilt only when what it shows changes.

Textual's `Footer` throws its keys away and builds them again after *every* bindings update (a
focus change, a row highlighted, a screen resumed), even when the keys, labels and enabled
states are the same, and each rebuild restyles every key: about 10 ms of CPU a key on this
machine, paid on every cursor move. This one remembers what it last built and skips a rebuild
that would show the same thing.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.widgets import Footer

__all__ = ["PaytuiFooter"]


class PaytuiFooter(Footer):
    """`Footer` that recomposes only when its keys, labels or enabled states changed."""

    _composed: Hashable = None

    def _signature(self) -> Hashable:
        """Everything `Footer.compose` reads, as a comparable value."""
        app = self.app
        return (
            self.show_command_palette,
            tuple(
                (
                    key,
                    binding.action,
                    binding.description,
                    app.get_key_display(binding),
                    binding.group.description if binding.group else None,
                    enabled,
                    tooltip,
                )
                for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
                if binding.show or key == app.COMMAND_PALETTE_BINDING
            ),
        )

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._composed = self._signature()
        yield from super().compose()

    async def recompose(self) -> None:
        if self._bindings_ready and self.is_attached and self._signature() == self._composed:
            return
        await super().recompose()
