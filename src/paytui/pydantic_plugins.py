"""pydantic without its plugin machinery, for the dashboard's start.

paytui uses no pydantic plugin, and a plugin would see every value the models validate
(secrets, account data), so the dashboard turns them off (`PYDANTIC_DISABLE_PLUGINS=__all__`,
unless the environment says otherwise). pydantic reads that variable each time it builds a
model, but its plugin loader module imports `importlib.metadata` first, at import: 33 modules
(csv, email, zipfile, tempfile, ...) and about 20 ms on the way to the first paint, for nothing.
With plugins off, a stand-in loader that finds none takes its place; anything else asked of it
is read from the real loader (imported then). `tests/test_import_budget.py` runs the real start
path, so a pydantic release that stops working with the stand-in fails there.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Iterable
from typing import Any

__all__ = ["disable_pydantic_plugins"]

LOADER = "pydantic.plugin._loader"
#: The values pydantic reads as "no plugins at all".
ALL_OFF = ("__all__", "1", "true")


def disable_pydantic_plugins() -> None:
    """Turn pydantic's plugins off (unless the environment chose) before the first model."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] not in ALL_OFF or LOADER in sys.modules:
        return
    stand_in = types.ModuleType(LOADER, "No pydantic plugins (paytui.pydantic_plugins).")

    def get_plugins() -> Iterable[Any]:
        return ()

    def real_loader_attribute(name: str) -> Any:
        if name.startswith("__"):  # the import system asking whether it is a package
            raise AttributeError(name)
        sys.modules.pop(LOADER, None)
        return getattr(importlib.import_module(LOADER), name)

    stand_in.get_plugins = get_plugins  # type: ignore[attr-defined]
    stand_in.__getattr__ = real_loader_attribute  # type: ignore[method-assign]
    sys.modules[LOADER] = stand_in
