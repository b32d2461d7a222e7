"""Keys typed while paytui starts (`paytui.ui.type_ahead`), on a real pseudo-terminal.

In the terminal's line mode a typed Enter reaches a reader as a newline (Textual: ctrl+j, the
list's "down") and only once the line ends; held, it is the carriage return that was typed,
readable at once, unechoed; released, the terminal is as it was found.
"""

from __future__ import annotations

import os
import pty
import select
import termios
from collections.abc import Iterator

import pytest

from paytui.ui.type_ahead import hold


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """(the keyboard's end, the program's end) of a new pseudo-terminal in its line mode."""
    keyboard, program = pty.openpty()
    yield keyboard, program
    os.close(keyboard)
    os.close(program)


def _read(fd: int) -> bytes:
    ready, _, _ = select.select([fd], [], [], 2.0)
    return os.read(fd, 64) if ready else b""


def _echoed(keyboard: int) -> bytes:
    ready, _, _ = select.select([keyboard], [], [], 0.2)
    return os.read(keyboard, 64) if ready else b""


def test_line_mode_turns_the_typed_enter_into_a_newline(terminal: tuple[int, int]) -> None:
    keyboard, program = terminal
    os.write(keyboard, b"jj\r")
    assert _read(program) == b"jj\n"  # what Textual would read as j, j, ctrl+j


def test_held_keys_are_read_as_typed_and_released_the_terminal_is_as_found(
    terminal: tuple[int, int],
) -> None:
    keyboard, program = terminal
    found = termios.tcgetattr(program)
    typed = hold(program)
    os.write(keyboard, b"j")
    assert _read(program) == b"j"  # at once: no line to end first
    os.write(keyboard, b"j\r")
    assert _read(program) == b"j\r"  # the Enter that was typed
    assert _echoed(keyboard) == b""  # nothing echoed over the screen the app is about to draw
    typed.release()
    assert termios.tcgetattr(program) == found
    typed.release()  # once only: a second call changes nothing
    assert termios.tcgetattr(program) == found


def test_standard_input_that_is_not_a_terminal_is_left_alone() -> None:
    read_end, write_end = os.pipe()
    try:
        typed = hold(read_end)
        assert typed.before is None
        typed.release()
    finally:
        os.close(read_end)
        os.close(write_end)
