"""A package's names imported on first use (PEP 562), for the packages on the start-up path.

`paytui.actions` and `paytui.config` re-export their submodules' public names, but importing the
package must not import them all: the launcher asks `paytui.config.environment` before pydantic
loads, and the charge list needs `paytui.actions.registry` without the executor. Each such
package sets `__getattr__ = lazy_exports(__name__, HOMES)`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: `name` comes from the submodule `homes[name]`,
    imported then, and is kept in the package so the next lookup costs nothing."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
