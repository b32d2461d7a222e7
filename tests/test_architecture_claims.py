"""The claims of docs/architecture.md that a change could silently make false, held to the code.

Beside the module list (`test_architecture_doc.py`): the import contracts (how many, of which
type, in order), the App's constructor as documented, the public names `PaytuiHost` adds to
Textual's `App`, the one way screens reach the API, the reason every long module carries (and
that the modules it names exist), and where the power tools and the Textual workarounds live.
Reads files only (the source by `ast`, `pyproject.toml` by `tomllib`); nothing of paytui is
imported (Textual's `App` is, to know its own actions).
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "paytui"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _section(doc: str, heading: str) -> str:
    _, found, after = doc.partition(f"\n{heading}\n")
    assert found, f"docs/architecture.md has no {heading!r}"
    return after.split("\n## ", 1)[0].split("\n### ", 1)[0]


# --- the import contracts ------------------------------------------------------------------


def documented_contracts(doc: str) -> list[str]:
    """The type of each numbered contract of "Contracts between the layers", in order."""
    section = _section(doc, "## Contracts between the layers")
    numbered = re.findall(r"^(\d+)\. \*\*(\w+)\*\*", section, flags=re.MULTILINE)
    assert [int(n) for n, _ in numbered] == list(range(1, len(numbered) + 1)), numbered
    return [kind for _, kind in numbered]


def configured_contracts() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [c["type"] for c in config["tool"]["importlinter"]["contracts"]]


def test_the_doc_lists_every_import_contract_in_order() -> None:
    assert documented_contracts(DOC) == configured_contracts()


def test_a_contract_missing_from_the_doc_is_seen() -> None:
    section = "\n## Contracts between the layers\n\n1. **forbidden**: a.\n2. **layers**: b.\n"
    assert documented_contracts(section) == ["forbidden", "layers"]
    assert documented_contracts(section) != configured_contracts()


# --- the App's constructor --------------------------------------------------------------------


def _parameters(arguments: ast.arguments) -> list[tuple[str, str, str | None, str | None]]:
    """(kind, name, annotation, default) of each parameter but `self`, as source text."""
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    found = [
        ("positional", a.arg, a.annotation, d) for a, d in zip(positional, defaults, strict=True)
    ]
    found += [
        ("keyword", a.arg, a.annotation, d)
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    ]
    return [
        (kind, name, ast.unparse(note) if note else None, ast.unparse(d) if d else None)
        for kind, name, note, d in found
        if name != "self"
    ]


def documented_app_signature(doc: str) -> list[tuple[str, str, str | None, str | None]]:
    """The parameters of the `PaytuiApp(...)` block of "### `paytui.ui`" (comments dropped)."""
    section = _section(doc, "### `paytui.ui`")
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    call = re.sub(r"#[^\n]*", "", block).strip()
    assert call.startswith("PaytuiApp(") and call.endswith(")"), call
    function = ast.parse(f"def f({call[len('PaytuiApp(') : -1]}): pass").body[0]
    assert isinstance(function, ast.FunctionDef)
    return _parameters(function.args)


def actual_app_signature() -> list[tuple[str, str, str | None, str | None]]:
    tree = ast.parse((PACKAGE / "ui" / "app.py").read_text(encoding="utf-8"))
    app = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PaytuiApp")
    init = next(n for n in app.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    return _parameters(init.args)


def test_the_doc_gives_the_apps_constructor_as_it_is() -> None:
    assert documented_app_signature(DOC) == actual_app_signature()


def test_a_parameter_left_out_of_the_doc_is_seen() -> None:
    last = "          screen_reader: bool | None = None)"
    shorter = DOC.replace(last, ")")
    assert documented_app_signature(shorter) != actual_app_signature()


# --- what PaytuiHost adds to the App --------------------------------------------------------


def documented_host_names(doc: str) -> set[str]:
    text = " ".join(doc.split())
    _, found, after = text.partition("PaytuiHost exposes: ")
    assert found, "docs/architecture.md no longer says what PaytuiHost exposes"
    return set(re.findall(r"`(\w+)`", after.split(".", 1)[0]))


def actual_host_names() -> set[str]:
    tree = ast.parse((PACKAGE / "ui" / "host.py").read_text(encoding="utf-8"))
    host = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PaytuiHost")
    names: set[str] = set()
    for node in host.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {name for name in names if not name.startswith("_")}


def test_the_doc_names_what_paytui_host_exposes() -> None:
    assert documented_host_names(DOC) == actual_host_names()


# --- screens reach the API one way ------------------------------------------------------------

#: The one way: `await self.app.get_client()`. Anything else that reaches a client is reported.
OTHER_WAYS = re.compile(
    r"(?<!self\.app)\.get_client\(|executor\.client\b|\bsession\.client\b|\._client\b"
)


def other_ways(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if OTHER_WAYS.search(line)]


def test_screens_reach_the_api_one_way() -> None:
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted((PACKAGE / "ui" / "screens").rglob("*.py"))
        if (lines := other_ways(path.read_text(encoding="utf-8")))
    }
    assert not found, f"screens reaching the API another way than self.app.get_client(): {found}"


def test_the_other_ways_are_seen() -> None:
    assert other_ways("client = await self.app.get_client()") == []
    for line in (
        "client = await paytui_app(self).get_client()",
        "client = await self._host.get_client()",
        "client = await app.get_client()",
        "return await executor.client.get_charge(self.charge_id)",
    ):
        assert other_ways(line) == [line]


# --- long modules say why -------------------------------------------------------------------

LONG = 800
REASON = "Why one module of more than 800 lines:"


def long_modules_without_a_reason(package: Path = PACKAGE) -> list[str]:
    missing = []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        source = path.read_text(encoding="utf-8")
        if source.count("\n") <= LONG:
            continue
        if REASON not in (ast.get_docstring(ast.parse(source)) or ""):
            missing.append(name)
    return missing


def test_a_module_above_800_lines_says_why_at_its_top() -> None:
    assert long_modules_without_a_reason() == []


def test_a_long_module_without_its_reason_is_seen(tmp_path: Path) -> None:
    (tmp_path / "short.py").write_text('"""Short."""\n')
    (tmp_path / "long.py").write_text('"""Long, no reason."""\n' + "x = 1\n" * LONG)
    (tmp_path / "said.py").write_text(f'"""Long.\n\n{REASON} one concept."""\n' + "x = 1\n" * LONG)
    assert long_modules_without_a_reason(tmp_path) == ["long.py"]


#: A module named in a reason: ``stale.py``, ``widgets/charge_table.py``, ``journal_*.py``.
NAMED_MODULE = re.compile(r"`([\w/*]+\.py)`")


def reasons_naming_what_is_gone(package: Path = PACKAGE) -> list[str]:
    """Each long module's reason names where the rest of its concept lives ("the settling of the
    past (`settling.py`)"): every module it names must exist under the package, or the reason
    points a reader at a room that is gone."""
    modules = [path.relative_to(package).as_posix() for path in package.rglob("*.py")]
    gone = []
    for path in sorted(package.rglob("*.py")):
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        _, found, reason = docstring.partition(REASON)
        if not found:
            continue
        for named in NAMED_MODULE.findall(reason.split("\n\n", 1)[0]):
            pattern = re.compile(r"(?:^|/)" + re.escape(named).replace(r"\*", r"[^/]*") + "$")
            if not any(pattern.search(module) for module in modules):
                gone.append(f"{path.relative_to(package).as_posix()}: {named}")
    return gone


def test_a_long_modules_reason_names_only_modules_that_exist() -> None:
    assert reasons_naming_what_is_gone() == []


def test_a_reason_naming_a_module_that_is_gone_is_seen(tmp_path: Path) -> None:
    (tmp_path / "rooms").mkdir()
    (tmp_path / "rooms" / "kept.py").write_text('"""Kept."""\n')
    (tmp_path / "journal_entries.py").write_text('"""Entries."""\n')
    (tmp_path / "long.py").write_text(
        f'"""Long.\n\n{REASON} the rest is in `rooms/kept.py`, `kept.py`, `journal_*.py`'
        ' and `moved.py`.\n\nNot the reason: `elsewhere.py`."""\n'
    )
    assert reasons_naming_what_is_gone(tmp_path) == ["long.py: moved.py"]


# --- one verb: how callers run operations; the executor's refusal rule for every operation -----

#: The typed wrappers the executor had, one per operation, before `run` (issue 40).
FACADES = frozenset(
    {
        "capture",
        "refund",
        "create_charge",
        "update_charge",
        "update_refund",
        "distribute",
        "create_plugin_session",
        "delete_plugin_session",
        "create_account",
        "create_token",
        "update_token",
        "perform",
    }
)
EXECUTOR = PACKAGE / "actions" / "executor.py"


def executor_methods(source: str) -> set[str]:
    tree = ast.parse(source)
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ActionExecutor"]
    return {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def operation_imports(source: str) -> list[str]:
    """Modules of `paytui.actions.ops` that `source` imports (at any depth, lazily too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("paytui.actions.ops"):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("paytui.actions.ops")]
    return found


def test_the_executor_has_one_verb_and_imports_no_operation() -> None:
    source = EXECUTOR.read_text(encoding="utf-8")
    assert "run" in executor_methods(source)
    assert executor_methods(source) & FACADES == set()
    assert operation_imports(source) == []


def test_a_facade_or_an_operation_import_in_the_executor_is_seen() -> None:
    source = (
        "from paytui.actions.ops import refund as refund_op\n"
        "class ActionExecutor:\n"
        "    async def run(self): ...\n"
        "    async def refund(self):\n"
        "        from paytui.actions.ops.capture import Params\n"
    )
    assert executor_methods(source) & FACADES == {"refund"}
    assert operation_imports(source) == ["paytui.actions.ops", "paytui.actions.ops.capture"]


def test_the_executor_asks_the_registry_rule_of_every_operation() -> None:
    """The doc says so, and the pipeline asks `registry.refusal` with the operation's rule (the
    behaviour, operation by operation: tests/actions/test_one_verb.py)."""
    said = " ".join(DOC.split())
    assert "`run` asks the registry's rule of every operation" in said
    assert "For the other operations the rule is applied by the key" not in said
    source = EXECUTOR.read_text(encoding="utf-8")
    assert "refusal(OPERATIONS[operation].rule, plan.subject)" in source


def test_the_doc_says_how_every_caller_runs_an_operation() -> None:
    said = " ".join(DOC.split())
    assert "`await executor.run(name, target, params, ...)`" in said
    assert "`dialog_for(name, target)`" in said


# --- where the power tools and the Textual workarounds live -----------------------------------

UI = PACKAGE / "ui"
#: Words that say a piece of code works around Textual: only `textual_fixes.py` may hold one.
WORKAROUND = re.compile(r"work(?:s|ed)? ?around|textual bug|upstream bug", re.IGNORECASE)


def workarounds_outside(package: Path = UI) -> list[str]:
    return sorted(
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if path.name != "textual_fixes.py" and WORKAROUND.search(path.read_text(encoding="utf-8"))
    )


def test_every_textual_workaround_is_in_textual_fixes_and_pinned_by_a_test() -> None:
    """The doc: `textual_fixes.py` holds every workaround of a Textual bug, each pinned by a
    test of the bug (`tests/ui/test_upstream_bugs.py` names each)."""
    assert "textual_fixes.py          Every workaround of a Textual bug" in DOC
    assert workarounds_outside() == []
    tree = ast.parse((UI / "textual_fixes.py").read_text(encoding="utf-8"))
    exported = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    )
    names = [ast.literal_eval(element) for element in exported.elts]  # type: ignore[attr-defined]
    pinned = (ROOT / "tests" / "ui" / "test_upstream_bugs.py").read_text(encoding="utf-8")
    assert names and [name for name in names if name not in pinned] == []


def test_a_workaround_outside_textual_fixes_is_seen(tmp_path: Path) -> None:
    (tmp_path / "textual_fixes.py").write_text('"""Every workaround of a Textual bug."""\n')
    (tmp_path / "screen.py").write_text("# Works around a Textual bug: the cursor jumps.\n")
    assert workarounds_outside(tmp_path) == ["screen.py"]


def power_tool_actions(source: str) -> list[str]:
    """The actions the palette's power tools run (`app.run_action("...")` in
    `_power_commands`)."""
    tree = ast.parse(source)
    function = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_power_commands"
    )
    return [
        node.args[1].value
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "partial"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Constant)
    ]


def test_the_power_tools_are_in_the_palette_and_their_actions_are_the_apps() -> None:
    """The doc: the palette lists the power tools, and their actions are the App's (defined in
    `ui/app.py`'s `PaytuiApp`, or Textual's own `App`)."""
    import textual.app

    assert "the power tools' too (their actions are the App's)" in DOC
    actions = power_tool_actions((UI / "palette_commands.py").read_text(encoding="utf-8"))
    assert {"jump", "saved_searches", "copy_curl"} <= set(actions)
    tree = ast.parse((UI / "app.py").read_text(encoding="utf-8"))
    app = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PaytuiApp")
    own = {n.name for n in app.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    missing = [
        action
        for action in actions
        if f"action_{action}" not in own and not hasattr(textual.app.App, f"action_{action}")
    ]
    assert missing == []
