"""Write `src/paytui/sandbox/response_schemas.json`: the resource schemas the sandbox's OpenAPI
document declares for its answers, taken from paytui's own response models.

The sandbox never imports the client side (an import-linter contract: it is an independent
implementation of the service), so the shapes paytui reads reach it as this generated file.
`tests/sandbox/test_response_schemas.py` fails when the file and the models drift apart; then run
`python scripts/sandbox_response_schemas.py`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from paytui.api.models import Account, Charge, Distribution, Merchant, PluginSession, Refund, Token

TARGET = (
    Path(__file__).resolve().parents[1] / "src" / "paytui" / "sandbox" / "response_schemas.json"
)
MODELS = (Charge, Refund, Token, Account, Merchant, Distribution, PluginSession)


def _any_of(node: Any) -> Any:
    """`oneOf` -> `anyOf`: the payment method's kinds are told apart by `method` in code (a
    callable discriminator), and a card also fits the catch-all kind, so "exactly one" is wrong."""
    if isinstance(node, dict):
        return {("anyOf" if k == "oneOf" else k): _any_of(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_any_of(v) for v in node]
    return node


def schemas() -> dict[str, Any]:
    """Every schema by name (the models and their parts), as OpenAPI components."""
    components: dict[str, Any] = {}
    for model in MODELS:
        schema = model.model_json_schema(
            ref_template="#/components/schemas/{model}", mode="validation"
        )
        for name, definition in schema.pop("$defs", {}).items():
            components.setdefault(name, _any_of(definition))
        components[model.__name__] = _any_of(schema)
    return dict(sorted(components.items()))


def render() -> str:
    return json.dumps(schemas(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
