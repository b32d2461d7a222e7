"""`[ui] start_screen` and `[today] refresh_seconds`: read, and a wrong value one located line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from paytui.config import load_config, resolve_connection


def test_start_screen_and_the_queues_timer_reach_the_connection(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        """
        [ui]
        start_screen = "today"
        [today]
        refresh_seconds = 0
        """
    )
    result = load_config()
    assert not result.problems
    connection = resolve_connection(environ={})
    assert connection.ui.start_screen == "today" and connection.today.refresh_seconds == 0


def test_a_wrong_value_is_one_line_and_its_default_kept(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        """
        [ui]
        start_screen = "pulse"
        [today]
        refresh_seconds = 2
        """
    )
    result = load_config()
    assert [p.line for p in result.problems] == [2, 4]
    said = [p.message for p in result.problems]
    assert "ui.start_screen" in said[0] and "'charges' or 'today'" in said[0], said
    assert "today.refresh_seconds" in said[1] and "at least 10 seconds" in said[1], said
    assert all("\n" not in m and "Traceback" not in m for m in said)
    assert result.config.ui.start_screen == "charges"
    assert result.config.today.refresh_seconds == 60
