"""Schemathesis against the sandbox's own OpenAPI document, in process (ASGI): every operation gets
its document's examples, Schemathesis's boundary cases and `PAYTUI_SCHEMATHESIS_EXAMPLES`
generated requests (12 by default; `PAYTUI_SCHEMATHESIS_EXAMPLES=200` for a long run) with the
demo client's token; 0 server errors, 0 status codes the document does not declare, 0 answers that
break their declared schema (sandbox/openapi.py declares every body and status).

The document is read when the module is collected (an app over an in-memory database, which
only builds it), so that each operation is a test of its own: the workers share them out, and
the run's progress counts tests, not Schemathesis's subtests (it ended at "[102%]"). Each test
then runs against an app over its own copy of the seeded sandbox.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.python.asgi import get_client
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.app import create_app
from paytui.sandbox.faults import Faults
from tests.fixtures_sandbox import bound_app

EXAMPLES = int(os.environ.get("PAYTUI_SCHEMATHESIS_EXAMPLES", "12"))
#: The sandbox's own boarding interval (`create_app`'s default): accounts move on during a run.
BOARDING_INTERVAL = 20.0
#: The host Schemathesis's in-process client sends (its `asgi.HOST`).
BASE_URL = "http://testserver"

#: The `/sandbox/*` control endpoints are left out: breaking the sandbox on purpose is their job.
schema = schemathesis.openapi.from_dict(create_app(":memory:").openapi()).exclude(
    path_regex="^/sandbox/"
)
schema.config.update(base_url=BASE_URL)
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture
def sandbox_session(
    request: pytest.FixtureRequest, sandbox_db: Path, sandbox_faults: Faults
) -> Iterator[Any]:
    """An in-process HTTP session to a sandbox over this test's own database (the process's one
    app, as `sandbox_transport`'s, its boarding clock running as the served sandbox's), with the
    demo client's token on every request."""
    app = bound_app(request, sandbox_db, sandbox_faults, boarding_interval=BOARDING_INTERVAL)
    with get_client(app) as session:
        answer = session.post(
            "/v2/services/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET),
        )
        assert answer.status_code == 200, answer.text
        session.headers["Authorization"] = f"Bearer {answer.json()['access_token']}"
        yield session


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_server_error_and_no_answer_breaking_its_schema(case: Any, sandbox_session: Any) -> None:
    case.call_and_validate(
        session=sandbox_session,
        checks=[not_a_server_error, status_code_conformance, response_schema_conformance],
    )
