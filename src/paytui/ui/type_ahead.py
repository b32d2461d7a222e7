"""Keys typed while `paytui` starts, kept as the keys they were (`hold` at the launcher's start).

Until Textual takes the terminal (half a second into a cold start), the terminal is in its
line mode: it echoes what is typed and turns a typed Enter (a carriage return) into a newline,
which Textual then reads as ctrl+j, the charge list's "down". So `j j Enter` typed the moment
`paytui` starts moved the cursor three rows instead of opening the third charge. `hold` puts the
terminal in the input mode Textual will use as soon as the launcher starts: no line editing, no
echo, no carriage-return translation; the keys wait in the terminal's queue, unchanged, for
Textual to read (it switches modes without flushing input). ctrl+c still interrupts, as before
the app runs. `TypeAhead.release` gives the terminal back as it was found, after the app has
restored the mode it found (this one).

Standard library only: imported before Textual.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["TypeAhead", "hold"]


@dataclass
class TypeAhead:
    """The terminal's mode before `hold` changed it (None: nothing was changed)."""

    fd: int
    before: list[Any] | None

    def release(self) -> None:
        """The terminal's mode back as `hold` found it (once)."""
        before, self.before = self.before, None
        if before is None:
            return
        import termios

        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(self.fd, termios.TCSANOW, before)


def hold(fd: int | None = None) -> TypeAhead:
    """Keep keys typed from now on as typed, if `fd` (standard input) is a terminal."""
    if fd is None:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):  # no standard input at all
            return TypeAhead(-1, None)
    try:
        import termios
    except ImportError:  # not a POSIX terminal
        return TypeAhead(fd, None)
    if not os.isatty(fd):
        return TypeAhead(fd, None)
    try:
        before = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR)  # iflag: Enter stays \r
        mode[3] &= ~(termios.ICANON | termios.ECHO)  # lflag: no line editing, no echo
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(fd, termios.TCSANOW, mode)
    except (termios.error, OSError):
        return TypeAhead(fd, None)
    return TypeAhead(fd, before)
