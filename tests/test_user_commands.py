"""`paytui.user_commands` (issue 44, item 3): the template split before it is filled, values kept
whole, the child's environment an allow-list, its secrets refused, its time bounded (the whole
process group stopped) and its output bounded. Real processes, no shell."""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path

import pytest

from paytui.logs import clear_registered_secrets, register_secret
from paytui.user_commands import (
    CommandNotRun,
    child_environment,
    command_line,
    render,
    run_argv,
    values_of,
)


def test_values_are_whole_arguments_and_the_line_shows_them_quoted() -> None:
    value = "a b'; rm -rf ~ $(id) {charge_id}\nnext"
    argv = render(
        "tool --email={customer_email} {charge_id}", {"customer_email": value, "charge_id": "ch_1"}
    )
    assert argv == ("tool", f"--email={value}", "ch_1")
    # What the confirmation shows splits back into exactly these arguments.
    import shlex

    assert tuple(shlex.split(command_line(argv))) == argv


def test_a_value_missing_here_is_named() -> None:
    with pytest.raises(CommandNotRun, match=r"No \{customer_email\} here"):
        render("mail {customer_email} {charge_id}", {"charge_id": "ch_1"})


def test_the_environment_is_an_allow_list_without_secrets() -> None:
    environ = {
        "PATH": "/bin",
        "HOME": "/h",
        "LC_ALL": "C",
        "PAYTUI_TOKEN": "t0ken-value",
        "PAYTUI_CLIENT_SECRET": "x",
        "PGPASSWORD": "pw",
        "CRM_URL": "https://crm",
        "LEAKY": "has s3cret-value inside",
        "OTHER": "not asked for",
    }
    register_secret("s3cret-value")
    try:
        child = child_environment(environ, ("CRM_URL", "LEAKY"))
    finally:
        clear_registered_secrets()
    assert child == {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "CRM_URL": "https://crm"}


async def test_a_command_line_holding_a_secret_is_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    register_secret("s3cret-value")
    try:
        with pytest.raises(CommandNotRun, match="secret"):
            await run_argv(
                ("touch", str(marker), "s3cret-value"), timeout=5, env={"PATH": os.defpath}
            )
    finally:
        clear_registered_secrets()
    assert not marker.exists()


async def test_a_timeout_stops_the_whole_group(tmp_path: Path) -> None:
    """The program and what it started: nothing of it is left running."""
    pid_file = tmp_path / "child.pid"
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(600)\n"
    )
    ran = await run_argv((sys.executable, "-c", script), timeout=3, env=dict(os.environ))
    assert ran.exit_code is None and "started" in ran.output
    assert "stopped after" in ran.headline("x")
    grandchild = int(pid_file.read_text())
    try:
        fd = os.pidfd_open(grandchild)
    except ProcessLookupError:
        return  # gone already
    try:
        # Readable once the process has ended (an event, not a time: the bound only ends a
        # test that would otherwise hang).
        ready, _, _ = select.select([fd], [], [], 60)
    finally:
        os.close(fd)
    assert ready, "the command's child outlived its timeout"


async def test_output_is_bounded_and_said_to_be_cut() -> None:
    ran = await run_argv(
        (sys.executable, "-c", "import sys; sys.stdout.write('x' * 200000)"),
        timeout=30,
        env=dict(os.environ),
        limit=1000,
    )
    assert ran.ok and len(ran.output) == 1000 and ran.cut


async def test_a_program_that_is_not_there_is_one_line() -> None:
    with pytest.raises(CommandNotRun, match="no-such-program-here: no such program"):
        await run_argv(("no-such-program-here",), timeout=5, env={"PATH": os.defpath})


def test_values_of_a_charge_as_the_service_sent_it() -> None:
    from paytui.api.models import Charge

    charge = Charge.model_validate(
        {
            "charge_id": "ch_1",
            "account_id": "pa_1",
            "status": "success",
            "total_amount": "12.50",
            "payment_method": {
                "method": "card",
                "card_number": "XXXXXXXXXXXX1111",
                "contact": {"first_name": "Ada", "last_name": "L", "email": "ada@example.com"},
            },
        }
    )
    values = values_of(charge)
    assert values == {
        "charge_id": "ch_1",
        "account_id": "pa_1",
        "status": "success",
        "amount": "12.50",
        "last4": "1111",
        "customer_name": "Ada L",
        "customer_email": "ada@example.com",
    }
