"""One table says which dialog an operation opens (`paytui.ui.screens.modals.dialogs`): every
operation of the table is in it or opened otherwise, each dialog runs its own operation, and no
screen builds an operation's dialog itself."""

from __future__ import annotations

import re
from importlib import import_module
from pathlib import Path

import pytest

from paytui.actions.operations import OPERATIONS
from paytui.ui.screens.modals.dialogs import DIALOGS, OPENED_OTHERWISE

SCREENS = Path(__file__).parents[2] / "src" / "paytui" / "ui" / "screens"


def test_every_operation_has_a_dialog_or_is_opened_otherwise() -> None:
    assert set(DIALOGS) | OPENED_OTHERWISE == set(OPERATIONS)
    assert set(DIALOGS) & OPENED_OTHERWISE == set()


@pytest.mark.parametrize("operation", sorted(DIALOGS))
def test_each_dialog_runs_the_operation_it_is_listed_for(operation: str) -> None:
    module, name = DIALOGS[operation].split(":")
    assert operation == getattr(import_module(module), name).OPERATION


def test_no_screen_builds_an_operation_dialog_itself() -> None:
    names = [spec.split(":")[1] for spec in DIALOGS.values()]
    built = re.compile(r"\b(" + "|".join(names) + r")\(")
    found = [
        f"{path.relative_to(SCREENS)}:{number}"
        for path in SCREENS.rglob("*.py")
        if path.name != "dialogs.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if built.search(line) and "class " not in line and "super(" not in line
    ]
    assert found == []
