"""The `[pulse]` table: read into the connection, a bad value reported and its default kept."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from paytui.config import load_config, resolve_connection
from paytui.config.model import PulsePrefs


def test_the_pulse_table_reaches_the_connection(write_config: Callable[[str], Path]) -> None:
    write_config(
        """
        [pulse]
        days = 14
        warn_rate = 0.65
        alert_rate = 0.9
        """
    )
    result = load_config()
    assert not result.problems
    assert result.config.pulse == PulsePrefs(days=14, warn_rate=0.65, alert_rate=0.9)
    connection = resolve_connection(environ={})
    assert connection.pulse.days == 14 and connection.pulse.long_days == 90


def test_a_bad_pulse_value_is_located_and_its_default_kept(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        """
        [pulse]
        days = 1
        refresh_seconds = 600
        """
    )
    result = load_config()
    assert [p.line for p in result.problems] == [2]
    assert "pulse.days" in result.problems[0].message
    assert result.config.pulse == PulsePrefs(refresh_seconds=600)


def test_the_dispute_ratio_lines_are_read_and_a_bad_one_keeps_the_defaults(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        """
        [pulse]
        ratio_lines = [{ name = "acquirer limit", percent = 0.9, min_disputes = 10 }]
        ratio_accounts = 5
        """
    )
    result = load_config()
    assert not result.problems
    (line,) = result.config.pulse.ratio_lines
    assert (line.name, line.percent, line.min_disputes) == ("acquirer limit", 0.9, 10)
    assert result.config.pulse.ratio_accounts == 5
    write_config(
        """
        [pulse]
        ratio_lines = [{ name = "no percent" }]
        """
    )
    result = load_config()
    assert result.problems and "ratio_lines" in result.problems[0].message
    assert result.config.pulse.ratio_lines == PulsePrefs().ratio_lines
    assert PulsePrefs().ratio_lines[0].name == "Mastercard monitored"
