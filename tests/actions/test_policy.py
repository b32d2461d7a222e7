"""ActionPolicy: scopes, read-only and the production typed confirmation, decided in one place."""

from __future__ import annotations

from decimal import Decimal

import pytest

from paytui.actions.policy import CHANGING_OPERATIONS, ActionPolicy

CHARGES = "urn:v2:charges:all"
REFUNDS = "urn:v2:refunds:all"
TOKENS = "urn:v2:tokens:all"


@pytest.mark.parametrize(
    ("operation", "scope"),
    [
        ("capture", CHARGES),
        ("charge", CHARGES),
        ("update_charge", CHARGES),
        ("refund", REFUNDS),
        ("token_create", TOKENS),
        ("token_update", TOKENS),
    ],
)
def test_each_action_needs_its_scope(operation: str, scope: str) -> None:
    others = frozenset({CHARGES, REFUNDS, TOKENS} - {scope})
    refused = ActionPolicy(granted_scopes=others).check(operation)
    assert not refused.allowed
    assert refused.missing_scope == scope
    assert scope in (refused.reason or "")
    assert ActionPolicy(granted_scopes=frozenset({scope})).check(operation).allowed


def test_unknown_scopes_let_the_server_decide() -> None:
    policy = ActionPolicy(granted_scopes=None)
    assert all(policy.check(op).allowed for op in CHANGING_OPERATIONS)


def test_limited_token_refuses_every_change() -> None:
    policy = ActionPolicy(granted_scopes=frozenset({"urn:v2:accounts:read"}))
    assert not any(policy.check(op).allowed for op in CHANGING_OPERATIONS)


def test_read_only_forbids_everything_even_with_all_scopes() -> None:
    policy = ActionPolicy(granted_scopes=frozenset({CHARGES, REFUNDS, TOKENS}), read_only=True)
    for operation in CHANGING_OPERATIONS:
        decision = policy.check(operation)
        assert not decision.allowed
        assert "read-only" in (decision.reason or "")
        assert decision.missing_scope is None


def test_unknown_operation_fails_closed() -> None:
    decision = ActionPolicy().check("delete_everything")
    assert not decision.allowed
    assert "Unknown action" in (decision.reason or "")


def test_sandbox_never_asks_for_typed_confirmation() -> None:
    policy = ActionPolicy(environment="sandbox", confirm_threshold=None)
    assert not policy.needs_typed_confirmation("refund", Decimal("1000000"))


def test_production_threshold() -> None:
    policy = ActionPolicy(environment="production", confirm_threshold=Decimal("100"))
    assert not policy.needs_typed_confirmation("refund", Decimal("100.00"))
    assert policy.needs_typed_confirmation("refund", Decimal("100.01"))
    assert policy.needs_typed_confirmation("capture", Decimal("250"))
    assert policy.needs_typed_confirmation("refund", None)  # "the rest": size unknown, ask
    assert not policy.needs_typed_confirmation("update_charge", None)  # moves no money


def test_production_without_threshold_always_asks_for_money() -> None:
    policy = ActionPolicy(environment="Production")
    for operation in ("capture", "refund", "charge"):
        assert policy.needs_typed_confirmation(operation, Decimal("0.01"))


def test_confirmation_phrase_and_match() -> None:
    policy = ActionPolicy(environment="production")
    charge_id = "0123456789abcdef0123beef"
    assert policy.confirmation_phrase(Decimal("12.5"), charge_id) == "12.50"
    assert policy.confirmation_phrase(Decimal("1234.5"), charge_id) == "1,234.50"
    assert policy.confirmation_phrase(None, charge_id) == "beef"
    amount = Decimal("1234.50")
    for typed in ("1,234.50", "1234.5", " 1234.50 ", "beef", "BEEF"):
        assert policy.confirmation_ok("refund", amount, charge_id, typed), typed
    for typed in (None, "", "1234.51", "12", "bee", "1,2.3"):
        assert not policy.confirmation_ok("refund", amount, charge_id, typed), typed
    # Below the threshold nothing needs typing.
    lenient = ActionPolicy(environment="production", confirm_threshold=Decimal(5000))
    assert lenient.confirmation_ok("refund", amount, charge_id, None)
