"""What an action may do: the ONE place that decides (design note 6).

k9s's read-only mode leaked twice through views added later, because each view enforced it.
Here nothing is enforced per screen: screens *ask* `ActionPolicy` (to disable a key, to name the
missing scope, to show the typed-confirmation field) and `ActionExecutor` *enforces* the same
answers before it sends anything, so a screen that forgets to ask still cannot act.

No I/O and no Textual: the policy is built from the profile (read-only flag, environment label,
confirmation threshold) and the token's granted scopes.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from paytui.actions.amounts import AmountError, format_amount, parse_amount
from paytui.actions.errors import Decision
from paytui.actions.operations import MONEY, OPERATIONS

__all__ = [
    "CHANGING_OPERATIONS",
    "MONEY_OPERATIONS",
    "REQUIRED_SCOPES",
    "ActionPolicy",
    "Decision",
]

#: The scope each action needs (the spec's scope table, by method and path family).
REQUIRED_SCOPES: dict[str, str] = {name: spec.scope for name, spec in OPERATIONS.items()}
#: Actions that move money: these get the production typed confirmation.
MONEY_OPERATIONS = MONEY
#: Every action that changes data; a read-only profile forbids all of them.
CHANGING_OPERATIONS = frozenset(OPERATIONS)


@dataclass(frozen=True)
class ActionPolicy:
    """Scopes, read-only and production confirmation, decided in one place.

    `granted_scopes` None means "not known" (a static token, or not authenticated yet): actions
    are then allowed and the server decides — guessing "no" would lock support staff out of a
    working token. `confirm_threshold` None on production means every money action asks.
    """

    granted_scopes: frozenset[str] | None = None
    read_only: bool = False
    environment: str = "sandbox"
    confirm_threshold: Decimal | None = None

    @property
    def is_production(self) -> bool:
        return self.environment.strip().lower() in {"production", "prod", "live"}

    def check(self, operation: str) -> Decision:
        """May `operation` run at all? Unknown operations are refused (fail closed)."""
        if operation not in CHANGING_OPERATIONS:
            return Decision(False, f"Unknown action {operation!r}")
        label = OPERATIONS[operation].label
        if self.read_only:
            return Decision(False, f"{label} is off: this profile is read-only")
        needed = REQUIRED_SCOPES[operation]
        if self.granted_scopes is not None and needed not in self.granted_scopes:
            return Decision(
                False, f"{label} needs scope {needed}, which this token does not hold", needed
            )
        return Decision(True)

    def needs_typed_confirmation(self, operation: str, amount: Decimal | None) -> bool:
        """Must the user type the confirmation phrase? Only production money actions.

        `amount` None (a refund of "whatever is left", whose size the caller did not say) counts
        as above any threshold: when unsure, ask.
        """
        if not self.is_production or operation not in MONEY_OPERATIONS:
            return False
        if self.confirm_threshold is None or amount is None:
            return True
        return amount > self.confirm_threshold

    @staticmethod
    def confirmation_phrase(amount: Decimal | None, charge_id: str | None) -> str:
        """What the user types: the amount as shown ("12.50"), else the charge id's last four."""
        if amount is not None:
            return format_amount(amount)
        if charge_id:
            return charge_id[-4:]
        raise ValueError("a confirmation needs an amount or a charge id")

    @staticmethod
    def confirmation_matches(
        typed: str | None, amount: Decimal | None, charge_id: str | None
    ) -> bool:
        """True when `typed` is the amount (in any accepted spelling: "1234.5" = "1,234.50") or
        the last four characters of the charge id (issue 6 offers both)."""
        if not typed or not typed.strip():
            return False
        text = typed.strip()
        if charge_id and len(charge_id) >= 4 and text.lower() == charge_id[-4:].lower():
            return True
        if amount is None:
            return False
        try:
            return parse_amount(text) == amount
        except AmountError:
            return False

    def confirmation_ok(
        self, operation: str, amount: Decimal | None, charge_id: str | None, typed: str | None
    ) -> bool:
        """The executor's gate: no confirmation needed, or the right one was typed."""
        if not self.needs_typed_confirmation(operation, amount):
            return True
        return self.confirmation_matches(typed, amount, charge_id)
