"""The first paint's imports stay within their committed budget (`benchmarks/import_budget.py`).

Counting, not timing: a paytui module or a package pulled onto the path from `paytui` to its
first painted page of charges fails here on any machine, however fast.
"""

from __future__ import annotations

from benchmarks.import_budget import FirstPaintImports, load_budget, measure, over_budget


def test_the_first_paint_imports_no_more_than_its_budget() -> None:
    found = measure()
    problems = over_budget(found, load_budget())
    assert not problems, (
        "Start-up imports grew:\n  "
        + "\n  ".join(problems)
        + "\nDefer it past the first page (docs/performance.md, start-up), or, if it must be"
        " there, accept it with `python -m benchmarks.import_budget --write` and say why."
    )
    # What the first page really needs is there (the probe measured the real path).
    assert {"paytui.ui.screens.charges", "paytui.ui.first_page", "textual"} <= found.modules
    # Not the client: a child process read the first page (`paytui.ui.first_page`).
    assert not {"paytui.api.client", "httpx"} & found.modules
    # Not the executor, the journal or the other screens: they come after the first page.
    assert not {"paytui.actions.executor", "paytui.actions.journal"} & found.modules
    assert "paytui.ui.screens.today" not in found.modules


def test_a_module_added_to_the_path_is_named() -> None:
    budget = load_budget()
    allowed = frozenset(budget["paytui_modules"])
    packages = {f"{p}.x" for p in budget["packages"]}
    grown = FirstPaintImports(allowed | packages | {"paytui.ui.screens.today", "numpy"}, {})
    assert over_budget(grown, budget) == [
        "paytui module on the first paint's path: paytui.ui.screens.today",
        "package on the first paint's path: numpy",
    ]
    padded = FirstPaintImports(
        allowed | {f"json.m{i}" for i in range(budget["module_count"])},
        {},
    )
    assert over_budget(padded, budget)[-1].endswith(f"budget {budget['module_count']} (+3%)")
