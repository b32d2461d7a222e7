"""Keys typed while `paytui` starts, kept as the keys they were (`hold` at the launcher's start).

Until Textual takes the terminal (half a second into a cold start), the terminal is in its
line mode: it echoes what is typed and turns a typed Enter (a carriage return) into a newline,
which Textual then reads as ctrl+j, the charge list's "down". So `j j Enter` typed the moment
`paytui` starts moved the cursor three rows instead of opening the third charge. `hold` puts the
terminal in the input mode Textual will use as soon as the launcher starts: no line editing, no
echo, no carriage-return translation; the keys wait in the terminal's queue, unchanged, for
Textual to read (it switches modes without flushing input). ctrl+c still interrupts, as before
the app runs.

The terminal is always given back as it was found:

- once the app runs, `hand_over` (from the app's mount) tells Textual's driver the mode found
  before `hold`, so that Textual's own suspend (ctrl+z) and exit restore that one, not this;
- while starting, a suspend (ctrl+z), `SIGTERM` or `SIGHUP` gives the found mode back before
  the process stops or ends (a shell such as dash does not reset the terminal of a stopped
  job), and a resumed start holds again;
- `TypeAhead.release` (the launcher's `finally`) covers every other way out.

Only for the foreground process of a terminal: from the background a change of mode would stop
the process (`SIGTTOU`), and there is nobody typing into it anyway.

Standard library only: imported before Textual.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Any

__all__ = ["TypeAhead", "hand_over", "hold"]

#: Signals that end or stop the process while it starts: the found mode is given back first.
_LEAVING = (signal.SIGTSTP, signal.SIGTERM, signal.SIGHUP)

#: The terminal's one hold of this process (the terminal is the process's): for `hand_over`.
_current: TypeAhead | None = None


class TypeAhead:
    """A held terminal: its mode before `hold` changed it (None once given back)."""

    def __init__(self, fd: int, before: list[Any] | None) -> None:
        self.fd = fd
        self.before = before
        self._previous: dict[int, Any] = {}

    @property
    def held(self) -> bool:
        return self.before is not None

    def release(self) -> None:
        """The terminal's mode back as `hold` found it, and the signals as they were (once)."""
        global _current
        before, self.before = self.before, None
        self._restore_signals()
        if _current is self:
            _current = None
        if before is not None:
            _set_mode(self.fd, before)

    def _install(self) -> None:
        with contextlib.suppress(ValueError, OSError):  # not the main thread: no handlers
            for signum in _LEAVING:
                self._previous[signum] = signal.signal(signum, self._leaving)
            self._previous[signal.SIGCONT] = signal.signal(signal.SIGCONT, self._resumed)

    def _restore_signals(self) -> None:
        """The handlers before `hold`, where ours are still in place (Textual's driver puts its
        own for a suspend and a resume: those stay)."""
        previous, self._previous = self._previous, {}
        ours = (self._leaving, self._resumed)
        with contextlib.suppress(ValueError, OSError, TypeError):
            for signum, handler in previous.items():
                if signal.getsignal(signum) in ours:
                    signal.signal(signum, handler)

    def _leaving(self, signum: int, _frame: Any) -> None:
        """Suspended or ended while starting: the found mode first."""
        if self.before is not None:
            _set_mode(self.fd, self.before)
        if signum == signal.SIGTSTP:
            os.kill(os.getpid(), signal.SIGSTOP)  # `_resumed` holds again on SIGCONT
            return
        self.release()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    def _resumed(self, _signum: int, _frame: Any) -> None:
        """Back in the foreground (`fg`): the mode found now, held again."""
        if self.before is None or not _in_foreground(self.fd):
            return
        found = _held_mode(self.fd)
        if found is not None:
            self.before = found


def hold(fd: int | None = None) -> TypeAhead:
    """Keep keys typed from now on as typed, if `fd` (standard input) is a terminal and this
    process is in its foreground."""
    global _current
    if fd is None:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):  # no standard input at all
            return TypeAhead(-1, None)
    if not _in_foreground(fd):
        return TypeAhead(fd, None)
    before = _held_mode(fd)
    typed = TypeAhead(fd, before)
    if before is not None:
        typed._install()
        _current = typed
    return typed


def hand_over(driver: Any) -> None:
    """The app's terminal driver has taken the terminal: it gives back, on a suspend and at
    exit, the mode it found, which is the held one; tell it the one found before `hold`.
    Then this module's signal handlers go (Textual's own handle a suspend from now on)."""
    typed = _current
    if typed is None or typed.before is None:
        return
    if getattr(driver, "attrs_before", None) is not None:
        driver.attrs_before = typed.before
        typed.before = None  # Textual restores it from now on
    typed.release()


def _in_foreground(fd: int) -> bool:
    """A terminal, and this process's group in its foreground (when it is this process's
    controlling terminal: only then would a change of mode from the background stop it)."""
    if not os.isatty(fd):
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:  # not the controlling terminal: no job control applies
        return True


def _held_mode(fd: int) -> list[Any] | None:
    """Put `fd` in the input mode Textual uses; the mode it had (None: nothing changed)."""
    try:
        import termios
    except ImportError:  # not a POSIX terminal
        return None
    try:
        before = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR)  # iflag: Enter stays \r
        mode[3] &= ~(termios.ICANON | termios.ECHO)  # lflag: no line editing, no echo
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(fd, termios.TCSANOW, mode)
    except (termios.error, OSError):
        return None
    return before


def _set_mode(fd: int, mode: list[Any]) -> None:
    import termios

    with contextlib.suppress(termios.error, OSError):
        termios.tcsetattr(fd, termios.TCSANOW, mode)
