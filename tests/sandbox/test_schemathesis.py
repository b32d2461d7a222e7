"""Schemathesis against the sandbox's own OpenAPI document, in process (ASGI): every operation gets
its document's examples, Schemathesis's boundary cases and `PAYTUI_SCHEMATHESIS_EXAMPLES`
generated requests (12 by default; `PAYTUI_SCHEMATHESIS_EXAMPLES=200` for a long run) with the
demo client's token; 0 server errors, 0 status codes the document does not declare, 0 answers that
break their declared schema (sandbox/openapi.py declares every body and status).

Each operation is a test of its own, so that the workers share them out. The operations are
read from the document at collection without Schemathesis (its method and path, nothing more):
every test process collects every module, and Schemathesis's pytest plugin built each
operation's Hypothesis test with all its boundary cases there, in each of the three workers,
plus importing Schemathesis and Hypothesis in every process (about 5 s of CPU a process). The
plugin is not loaded (`-p no:schemathesis`, pyproject.toml); a test builds its one operation's
test when it runs, as the plugin did (`build_operation_test`, the same phases, settings and
seed), and `test_every_operation_of_the_document_is_a_test` holds the list of tests to
Schemathesis's own list of operations.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.app import create_app
from paytui.sandbox.faults import Faults
from tests.fixtures_sandbox import bound_app

if TYPE_CHECKING:
    from schemathesis.schemas import BaseSchema

EXAMPLES = int(os.environ.get("PAYTUI_SCHEMATHESIS_EXAMPLES", "12"))
#: The sandbox's own boarding interval (`create_app`'s default): accounts move on during a run.
BOARDING_INTERVAL = 20.0
#: The host Schemathesis's in-process client sends (its `asgi.HOST`).
BASE_URL = "http://testserver"
#: The `/sandbox/*` control endpoints are left out: breaking the sandbox on purpose is their job.
LEFT_OUT = "^/sandbox/"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

#: The document, built by an app over an in-memory database (which only builds it).
DOCUMENT: dict[str, Any] = create_app(":memory:").openapi()
#: Each operation of the document as Schemathesis labels it ("POST /v2/plugins/payment").
OPERATIONS = [
    f"{method.upper()} {path}"
    for path, item in DOCUMENT["paths"].items()
    if not path.startswith("/sandbox/")
    for method in item
    if method in HTTP_METHODS
]
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@functools.cache
def schema() -> BaseSchema:
    """The document as Schemathesis reads it, once per test process that runs one of these."""
    import schemathesis

    loaded = schemathesis.openapi.from_dict(DOCUMENT).exclude(path_regex=LEFT_OUT)
    loaded.config.update(base_url=BASE_URL)
    return loaded


@pytest.fixture
def sandbox_session(
    request: pytest.FixtureRequest, sandbox_db: Path, sandbox_faults: Faults
) -> Iterator[Any]:
    """An in-process HTTP session to a sandbox over this test's own database (the process's one
    app, as `sandbox_transport`'s, its boarding clock running as the served sandbox's), with the
    demo client's token on every request."""
    from schemathesis.python.asgi import get_client

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


def test_every_operation_of_the_document_is_a_test() -> None:
    """The tests below are Schemathesis's operations, each once: none left out, none invalid."""
    from schemathesis.core.result import Ok

    labels = []
    for result in schema().get_all_operations():
        assert isinstance(result, Ok), result.err()
        labels.append(result.ok().label)
    assert sorted(OPERATIONS) == sorted(labels)
    assert len(set(OPERATIONS)) == len(OPERATIONS)


@pytest.mark.parametrize("label", OPERATIONS)
def test_no_server_error_and_no_answer_breaking_its_schema(
    label: str, sandbox_session: Any
) -> None:
    from hypothesis import HealthCheck, settings
    from schemathesis.checks import load_all_checks, not_a_server_error
    from schemathesis.core.failures import FailureGroup, as_reported_failure
    from schemathesis.generation.feedback import FeedbackSources
    from schemathesis.pytest._test_builder import build_operation_test
    from schemathesis.python._constants.orchestrator import make_constants_value_source
    from schemathesis.specs.openapi.checks import (
        response_schema_conformance,
        status_code_conformance,
    )

    load_all_checks()
    whole = schema()
    operation = whole.find_operation_by_label(label)
    assert operation is not None, label

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    def check(case: Any, session: Any) -> None:
        case.call_and_validate(
            session=session,
            checks=[not_a_server_error, status_code_conformance, response_schema_conformance],
        )

    test = build_operation_test(
        config=whole.config,
        operation=operation,
        test_func=check,
        given_kwargs={},
        feedback=FeedbackSources(constants_value_source=make_constants_value_source(whole)),
    )
    try:
        test(session=sandbox_session)
    except FailureGroup as failures:
        raise as_reported_failure(failures) from None
