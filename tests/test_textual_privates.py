"""The Textual privates the tests touch are the ones listed, checked against the Textual installed
(`tests/textual_privates.py`)."""

from __future__ import annotations

import importlib
import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from tests.textual_privates import CHECKED_AGAINST, PRIVATES

ROOT = Path(__file__).resolve().parents[1]
#: A private name after a dot (``app._driver``), or a private module (``textual._context``).
_PRIVATE = re.compile(r"\.(_[a-z]\w*)\b")
#: A private name imported from a Textual module (``from textual.keys import _character_to_key``).
_IMPORTED = re.compile(r"^from textual[\w.]* import \(?([^)\n]+)", re.M)
#: Where a name is defined (``def _x``, ``self._x =``, ``_x =``, ``_x: int``, ``class _X``).
_DEFINED = re.compile(r"(?:def |class |self\.|^\s*)(_\w+)\s*[:=(]", re.M)


def test_the_installed_textual_is_the_one_the_privates_were_checked_against() -> None:
    installed = version("textual")
    assert installed == CHECKED_AGAINST, (
        f"Textual {installed} is installed; tests/textual_privates.py was checked against"
        f" {CHECKED_AGAINST}: read each name it lists in the new source, then update it"
    )


def _owner(owner: str) -> Any:
    module, _, cls = owner.partition(":")
    found = importlib.import_module(module)
    return getattr(found, cls) if cls else found


@pytest.mark.parametrize(("owner", "name"), [(o, n) for o, n, _ in PRIVATES])
def test_each_listed_private_is_there(owner: str, name: str) -> None:
    """On the module or class, or on an instance (attributes set in ``__init__``)."""
    found = _owner(owner)
    if not hasattr(found, name) and isinstance(found, type):
        found = found()
    assert hasattr(found, name), f"{owner} has no {name} in Textual {version('textual')}"


def _defined(sources: str) -> set[str]:
    """The private names `sources` defines (one pass, not one search per name)."""
    return set(_DEFINED.findall(sources))


def test_no_test_touches_a_private_textual_name_not_listed() -> None:
    """A private name the tests use that Textual defines and paytui (or the tests) does not is
    Textual's: it must be listed. A name both define is paytui's (its own subclasses)."""
    import textual

    textual_source = "\n".join(
        path.read_text(encoding="utf-8") for path in Path(textual.__file__).parent.rglob("*.py")
    )
    ours = "\n".join(
        path.read_text(encoding="utf-8")
        for root in (ROOT / "src" / "paytui", ROOT / "tests")
        for path in root.rglob("*.py")
        if path.name not in {"textual_privates.py", "test_textual_privates.py"}
    )
    textual_defines, ours_defines = _defined(textual_source), _defined(ours)
    listed = {name for _, name, _ in PRIVATES}
    listed_modules = {owner.partition(":")[0] for owner, _, _ in PRIVATES}
    unlisted: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        if path.name in {"textual_privates.py", "test_textual_privates.py"}:
            continue
        text = path.read_text(encoding="utf-8")
        for module in re.findall(r"\b(textual(?:\.\w+)*\._\w+)", text):
            if module not in listed_modules:
                unlisted.add(f"{path.name}: {module}")
        code = re.sub(r"#.*", "", text)  # comments may name a private (where a bug was)
        used = set(_PRIVATE.findall(re.sub(r"\btextual(?:\.\w+)+", "", code)))
        for names in _IMPORTED.findall(text):
            used |= {n.split()[0] for n in names.split(",") if n.strip().startswith("_")}
        for name in used - listed:
            if name in textual_defines and name not in ours_defines:
                unlisted.add(f"{path.name}: {name}")
    assert not unlisted, f"not in tests/textual_privates.py: {sorted(unlisted)}"
