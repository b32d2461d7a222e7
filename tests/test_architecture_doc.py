"""docs/architecture.md names every module under `src/paytui/`, and no module that is gone.

The rule (also at the top of the doc's "Modules" section): the module tree is the first fenced
block after the heading ``## Modules``; its first line is ``src/paytui/`` and every other line is
*indentation* (two spaces a level) + *a name* + *two or more spaces* + *a description*. A name
ending in ``/`` is a package (its directory); a name ending in ``.py`` is a module of the package
it is indented under. So ``refund.py`` under ``modals/`` under ``screens/`` under ``ui/`` stands
for ``ui/screens/modals/refund.py``. A package's ``__init__.py`` is named exactly when it holds
code, i.e. anything beyond a docstring and ``from __future__`` imports.

The tree and the package must match both ways: a new module without its line fails, and so does
a line whose module (or package) was removed. Reads files only; nothing of paytui is imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "paytui"
DOC = ROOT / "docs" / "architecture.md"

TREE_ROOT = "src/paytui/"
#: indentation, a name (a package `x/` or a module `x.py`), two or more spaces, a description.
ENTRY = re.compile(r"(?P<indent>(?:  )+)(?P<name>[A-Za-z_]\w*(?:/|\.py)) {2,}(?P<text>\S.*)")


def _holds_code(init: Path) -> bool:
    """Anything in an `__init__.py` beyond its docstring and `from __future__` imports."""
    body = ast.parse(init.read_text(encoding="utf-8")).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return any(
        not (isinstance(node, ast.ImportFrom) and node.module == "__future__") for node in body
    )


def package_entries(package: Path = PACKAGE) -> set[str]:
    """What the tree must name, relative to `package`: each directory holding Python as `dir/`,
    each module as `dir/name.py`, an `__init__.py` only when it holds code."""
    entries: set[str] = set()
    for path in package.rglob("*.py"):
        relative = path.relative_to(package)
        if "__pycache__" in relative.parts:
            continue
        entries.update(f"{parent.as_posix()}/" for parent in relative.parents if parent.parts)
        if path.name != "__init__.py" or _holds_code(path):
            entries.add(relative.as_posix())
    return entries


def module_tree(doc: str) -> list[str]:
    """The lines of the module tree: the first fenced block after `## Modules`."""
    _, found, after = doc.partition("\n## Modules\n")
    assert found, "docs/architecture.md has no '## Modules' section"
    lines = after.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("```"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    return lines[start + 1 : end]


def doc_entries(tree: list[str]) -> tuple[set[str], list[str]]:
    """The paths the tree names, and the problems of its lines (bad format, a module named
    twice, a line indented under no package)."""
    problems: list[str] = []
    if not tree or tree[0] != TREE_ROOT:
        return set(), [f"the tree's first line must be {TREE_ROOT!r}"]
    named: set[str] = set()
    parents: list[str] = []  # the package path at each depth: parents[0] is the root's children
    for number, line in enumerate(tree[1:], start=2):
        match = ENTRY.fullmatch(line)
        if match is None:
            problems.append(f"tree line {number} is not 'indent name  description': {line!r}")
            continue
        depth = len(match["indent"]) // 2 - 1
        if depth > len(parents):
            problems.append(f"tree line {number} is indented under no package: {line!r}")
            continue
        del parents[depth:]
        path = "".join(parents) + match["name"]
        if path in named:
            problems.append(f"{path} is named twice")
        named.add(path)
        if path.endswith("/"):
            parents.append(match["name"])
    return named, problems


def test_the_architecture_doc_names_every_module_and_no_other() -> None:
    named, problems = doc_entries(module_tree(DOC.read_text(encoding="utf-8")))
    assert not problems, "\n".join(problems)
    actual = package_entries()
    missing = sorted(actual - named)
    gone = sorted(named - actual)
    assert not missing, f"modules without their line in docs/architecture.md: {missing}"
    assert not gone, f"docs/architecture.md names what src/paytui/ does not hold: {gone}"


def test_the_rule_reads_nesting_and_catches_both_directions(tmp_path: Path) -> None:
    """The matching rule itself, on a made-up package and tree."""
    package = tmp_path / "pkg"
    (package / "ui" / "screens").mkdir(parents=True)
    (package / "__init__.py").write_text('"""Docstring only."""\n')
    (package / "ui" / "__init__.py").write_text("import os\n")
    (package / "ui" / "screens" / "__init__.py").write_text("")
    (package / "ui" / "screens" / "refund.py").write_text("")
    (package / "cli.py").write_text("")
    assert package_entries(package) == {
        "cli.py",
        "ui/",
        "ui/__init__.py",
        "ui/screens/",
        "ui/screens/refund.py",
    }
    tree = [
        TREE_ROOT,
        "  cli.py      The entry point.",
        "  ui/         The UI.",
        "    __init__.py  Sets things up.",
        "    screens/  Screens.",
        "      refund.py  Refund.",
        "  refund.py   Not ui/screens/refund.py: a top-level module.",
    ]
    named, problems = doc_entries(tree)
    assert not problems
    assert named == package_entries(package) | {"refund.py"}
    # A continuation line, a name without a description, a jump of two levels: each is reported.
    _, problems = doc_entries([TREE_ROOT, "  cli.py", "  ui/  The UI.", "        x.py  Deep."])
    assert len(problems) == 2
