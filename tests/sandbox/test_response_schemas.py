"""The sandbox declares paytui's response shapes without importing them: the generated file must
be what the models give today (else `python scripts/sandbox_response_schemas.py`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "sandbox_response_schemas.py"


def test_the_sandbox_schemas_are_the_models_of_today() -> None:
    spec = importlib.util.spec_from_file_location("sandbox_response_schemas", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.TARGET.read_text(encoding="utf-8") == module.render()
    assert {"Charge", "Refund", "Token", "Account", "Distribution"} <= set(module.schemas())
