"""A screen that says its stylesheet has no rule on the list's state (`LIST_STATE_STYLED =
False`, so a state change restyles only the panel) really has none: nothing of its own CSS, its
bases' or the app's selects on `-loading`, `-results`, `-empty` or `-error`. One that names the
nodes its rules on the state style (`LIST_STATE_STYLED = "NavTable"`: only those are restyled)
has no rule on the state that styles anything else."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from textual.screen import Screen

import paytui.ui.screens as screens_package
from paytui.ui.app import PaytuiApp

STATE_CLASS = re.compile(r"\.-(?:loading|results|empty|error)\b")


def _screens() -> list[type[Screen[object]]]:
    found: list[type[Screen[object]]] = []
    for info in pkgutil.walk_packages(screens_package.__path__, "paytui.ui.screens."):
        module = importlib.import_module(info.name)
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, Screen)
            and value.__module__ == info.name
        ]
    return found


def _css_of(cls: type) -> str:
    """Every stylesheet text that applies to `cls`: its and its bases' CSS_PATH files and CSS."""
    texts: list[str] = []
    for klass in cls.__mro__:
        path = vars(klass).get("CSS_PATH")
        for one in path if isinstance(path, list | tuple) else [path]:
            if one:
                texts.append(Path(one).read_text())
        texts.append(vars(klass).get("CSS", "") or "")
        texts.append(vars(klass).get("DEFAULT_CSS", "") or "")
    return "\n".join(texts)


def test_screens_that_skip_the_restyle_have_no_rule_on_the_list_state() -> None:
    assert not STATE_CLASS.search(_css_of(PaytuiApp))  # the app's rules apply on every screen
    skipping = [cls for cls in _screens() if getattr(cls, "LIST_STATE_STYLED", True) is False]
    assert skipping, "no screen skips the restyle: the rule is untested"
    for cls in skipping:
        rules = STATE_CLASS.findall(_css_of(cls))
        assert not rules, (cls.__name__, rules)


#: A selector on the list's state and what it styles, up to the rule's end or next selector.
STATE_RULE = re.compile(r"\.-(?:loading|results|empty|error)\b([^,{]*)")


def test_screens_that_restyle_some_nodes_have_rules_on_the_list_state_for_those_only() -> None:
    naming = [cls for cls in _screens() if isinstance(getattr(cls, "LIST_STATE_STYLED", 0), str)]
    assert naming, "no screen names the nodes it restyles: the rule is untested"
    for cls in naming:
        selector: str = cls.LIST_STATE_STYLED  # type: ignore[attr-defined]
        styled = [target.strip() for target in STATE_RULE.findall(_css_of(cls))]
        assert styled, (cls.__name__, "no rule on the list's state: say False instead")
        assert all(target == selector for target in styled), (cls.__name__, styled)
