"""Schemathesis against the sandbox's own OpenAPI document, in process (ASGI): every operation gets
`PAYTUI_SCHEMATHESIS_EXAMPLES` generated requests (12 by default, after the document's own
examples and Schemathesis's boundary cases; `PAYTUI_SCHEMATHESIS_EXAMPLES=200` for a long run)
with the demo client's token; 0 server errors, 0 status codes the document does not declare,
0 answers that break their declared schema (sandbox/openapi.py declares every body and status).

Reads and writes are two tests, so that the two halves run side by side on two cores.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.app import create_app
from paytui.sandbox.faults import Faults

EXAMPLES = int(os.environ.get("PAYTUI_SCHEMATHESIS_EXAMPLES", "12"))


@pytest.fixture
def sandbox_app(sandbox_db: Path, sandbox_faults: Faults) -> Any:
    return create_app(sandbox_db, faults=sandbox_faults)


@pytest.fixture
def demo_token(sandbox_app: Any) -> str:
    from starlette.testclient import TestClient

    with TestClient(sandbox_app) as http:
        answer = http.post(
            "/v2/services/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET),
        )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


@pytest.fixture
def sandbox_schema(sandbox_app: Any) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", sandbox_app)


#: The `/sandbox/*` control endpoints are left out: breaking the sandbox on purpose is their job.
schema = schemathesis.pytest.from_fixture("sandbox_schema").exclude(path_regex="^/sandbox/")
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
_CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]


@schema.include(method="GET").parametrize()
@_SETTINGS
def test_reads_answer_within_their_schema(case: Any, demo_token: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {demo_token}"}, checks=_CHECKS)


@schema.exclude(method="GET").parametrize()
@_SETTINGS
def test_writes_answer_within_their_schema(case: Any, demo_token: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {demo_token}"}, checks=_CHECKS)
