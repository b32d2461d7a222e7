"""The table of operations is the one place that describes an operation (issue 24)."""

from __future__ import annotations

from paytui.actions.batch import BULK_OPERATIONS
from paytui.actions.operations import MONEY, OPERATIONS
from paytui.actions.policy import CHANGING_OPERATIONS, REQUIRED_SCOPES, ActionPolicy
from paytui.sandbox.scopes import GRANTABLE_SCOPES, required_scopes


def test_every_operation_name_has_one_spec_and_everything_reads_it() -> None:
    assert all(name == spec.name for name, spec in OPERATIONS.items())
    assert set(CHANGING_OPERATIONS) == set(OPERATIONS)
    assert BULK_OPERATIONS == {"capture": "Capture", "refund": "Full refund"}
    assert {"capture", "refund", "charge"} == MONEY
    production = ActionPolicy(environment="production")
    assert {op for op in OPERATIONS if production.needs_typed_confirmation(op, None)} == MONEY


def test_each_operation_needs_a_scope_the_service_grants() -> None:
    """The sandbox keeps its own scope table (it may not import the client): they agree."""
    for name, scope in REQUIRED_SCOPES.items():
        assert scope in GRANTABLE_SCOPES, name
    # The request each kept shape stands for needs exactly the scope its spec names.
    for spec in OPERATIONS.values():
        if spec.request is None:
            continue
        method, path, _, _ = spec.request("0" * 24, {})
        assert spec.scope in (required_scopes(method, path) or []), spec.name


def test_every_writing_key_performs_an_operation_of_the_table() -> None:
    from paytui.actions.registry import writing_actions

    for action in writing_actions():
        assert action.operation in {*OPERATIONS, "retry"}, action.id
