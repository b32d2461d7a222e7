"""What an action did, for the person who asked: `ActionOutcome`.

Kept apart from the executor so an operation's module, the errors and the UI can name it without
importing the pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paytui.api.models import Charge, Refund

__all__ = ["ActionOutcome"]


@dataclass(frozen=True)
class ActionOutcome:
    """What happened, for the UI: `state` is "succeeded", "failed", "not_applied" or "unknown".

    `result_id` is the new charge (capture, charge) or refund id; `message` is one line for the
    user; `charge` / `refund` the object when the service returned (or the read-back found) it.
    """

    entry_id: int
    operation: str
    charge_id: str | None
    state: str
    result_id: str | None = None
    message: str | None = None
    charge: Charge | None = None
    refund: Refund | None = None
    client_reference: str = ""
    reconciled: bool = False
    #: "failed" because the request never left (a connection that could not be made).
    never_sent: bool = False
    #: What a plugin session or account action answered (the session, the account), if known.
    result: Any = None

    @property
    def succeeded(self) -> bool:
        return self.state == "succeeded"

    @property
    def retryable(self) -> bool:
        """Only proven "did not happen" may be retried, by the user: "not_applied", or a
        failure where the request never left. A refusal (4xx) is final."""
        return self.state == "not_applied" or (self.state == "failed" and self.never_sent)
