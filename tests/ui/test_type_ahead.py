"""Keys typed while paytui starts (`paytui.ui.type_ahead`), on a real pseudo-terminal.

In the terminal's line mode a typed Enter reaches a reader as a newline (Textual: ctrl+j, the
list's "down") and only once the line ends; held, it is the carriage return that was typed,
readable at once, unechoed; released, the terminal is as it was found.
"""

from __future__ import annotations

import ast
import os
import pty
import select
import signal
import subprocess
import sys
import termios
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from paytui.ui.type_ahead import hand_over, hold

SRC = Path(__file__).resolve().parents[2] / "src"


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


def test_handed_over_textual_gives_back_the_mode_found_before_the_hold(
    terminal: tuple[int, int],
) -> None:
    _keyboard, program = terminal
    found = termios.tcgetattr(program)
    typed = hold(program)
    held = termios.tcgetattr(program)
    driver = SimpleNamespace(attrs_before=held)  # what Textual's driver read when it started
    hand_over(driver)
    assert driver.attrs_before == found  # its suspend (ctrl+z) and exit restore this one
    assert termios.tcgetattr(program) == held  # the terminal is Textual's now: left as it is
    assert not typed.held
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the start's handlers are gone


_LAUNCH = """
import sys, termios
import paytui.ui.launch as launch

def mode():
    lflag, iflag = termios.tcgetattr(0)[3], termios.tcgetattr(0)[0]
    return [bool(lflag & termios.ICANON), bool(lflag & termios.ECHO), bool(iflag & termios.ICRNL)]

seen = []

class App:
    return_code = 0
    def run(self):
        seen.append(mode())
        if FAIL:
            raise RuntimeError("the app crashed")

launch.build_app = lambda connection, **kwargs: App()
try:
    launch.main(["--base-url", "https://api.example.com"])
except RuntimeError:
    seen.append("crashed")
seen.append(mode())
print(seen)
"""


def _run_on(program: int, script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(SRC),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PAYTUI_TOKEN": "launch-token-1234",
        "PAYTUI_FIRST_PAGE": "0",
    }
    return subprocess.run(
        [sys.executable, "-c", script],
        stdin=program,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("fails", [False, True])
def test_the_launcher_holds_the_keys_while_starting_and_gives_the_terminal_back(
    terminal: tuple[int, int], tmp_path: Path, fails: bool
) -> None:
    _keyboard, program = terminal
    done = _run_on(program, _LAUNCH.replace("FAIL", str(fails)), tmp_path)
    assert done.returncode == 0, done.stderr
    held, *rest = ast.literal_eval(done.stdout.strip())
    assert held == [False, False, False]  # while the app starts: no line mode, echo, CR to NL
    assert rest == (["crashed"] if fails else []) + [[True, True, True]]  # as found


def test_a_start_ended_by_a_signal_gives_the_terminal_back(
    terminal: tuple[int, int], tmp_path: Path
) -> None:
    _keyboard, program = terminal
    found = termios.tcgetattr(program)
    script = (
        "import os, signal\n"
        "from paytui.ui.type_ahead import hold\n"
        "hold()\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "raise SystemExit('still running')\n"
    )
    done = _run_on(program, script, tmp_path)
    assert done.returncode == -signal.SIGTERM  # ended by the signal, as without the hold
    assert termios.tcgetattr(program) == found
