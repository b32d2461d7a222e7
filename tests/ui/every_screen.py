"""Every screen and modal of paytui, found by walking `paytui.ui.screens`, and a way to open it.

Tests that must hold on every screen (write actions disabled on a read-only profile, the
production bar in sight) iterate over `every_screen()`. A screen class added later is found by
the walk: if it can be built without arguments it is covered as is; if it needs arguments and
has no entry in `_OPENERS`, `every_screen` fails and names it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pydantic import SecretStr
from textual.screen import Screen

import paytui.ui.screens
from paytui.api.models import Charge, PluginSession, Token
from paytui.config.connection import Connection

CHARGE_ID = "000000000000000000000001"
TOKEN = Token.model_validate(
    {
        "token_id": "ct_everyscreen",
        "account_id": "pa_b4kfel3guxntcchyplvq",
        "payment_method": {
            "method": "card",
            "type": "visa",
            "card_number": "XXXXXXXXXXXX1111",
            "expiration_date": "2030-12",
            "contact": {"first_name": "Ada", "last_name": "Lovelace", "country": "US"},
        },
        "token_expiration_date": "2031-01-01T00:00:00Z",
    }
)

CHARGE = Charge.model_validate(
    {
        "charge_id": CHARGE_ID,
        "status": "success",
        "charge_type": "sale",
        "total_amount": "12.50",
        "account_id": "pa_b4kfel3guxntcchyplvq",
        "charge_timestamp": "2026-11-20T12:00:00Z",
        "payment_method": TOKEN.payment_method.model_dump() if TOKEN.payment_method else None,
    }
)

CONVERSATION_ID = "cv_everyscreen"

SESSION = PluginSession.model_validate(
    {"session_id": CHARGE_ID, "type": "payment", "account_id": "pa_b4kfel3guxntcchyplvq"}
)


def _connection() -> Connection:
    return Connection(
        profile_name="prod",
        environment="production",
        base_url="https://api.payments.example.com",
        client_id="paytui-demo",
        client_secret=SecretStr("secret-every-screen"),
        confirm_threshold=Decimal("250.00"),
    )


def _bulk_plan() -> Any:
    from paytui.actions.batch import BatchPlan

    return BatchPlan("refund", ((CHARGE_ID, Decimal("12.50")),))


def _command() -> Any:
    from paytui.config.model import UserCommand

    return UserCommand(name="Open in CRM", run="crm-open {charge_id}", confirm=True)


def _edit_entry() -> Any:
    """A journal entry of a tag edit that went through (what an undo dialog is opened on)."""
    from types import SimpleNamespace

    summary = {"tags": ["escalated"], "before": {"tags": []}}
    return SimpleNamespace(
        id=1,
        charge_id=CHARGE_ID,
        operation="update_charge",
        state="succeeded",
        request_summary=summary,
        agent=None,
    )


def _class(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module), name)


_M = "paytui.ui.screens."
#: Screens whose constructor needs arguments: class name -> how to build one.
_OPENERS: dict[str, Callable[[], Screen[Any]]] = dict(
    {
        "AccountDetailScreen": lambda: _class(_M + "account_detail", "AccountDetailScreen")(
            "pa_b4kfel3guxntcchyplvq"
        ),
        "ChargeDetailScreen": lambda: _class(_M + "charge_detail", "ChargeDetailScreen")(CHARGE_ID),
        "DistributionDetailScreen": lambda: _class(
            _M + "distribution_detail", "DistributionDetailScreen"
        )("dist_everyscreen"),
        "HelpScreen": lambda: _class(_M + "help", "HelpScreen")([]),
        "EvidenceScreen": lambda: _class(_M + "evidence", "EvidenceScreen")(CHARGE_ID),
        "FamilyBrowserScreen": lambda: _class(_M + "families", "FamilyBrowserScreen")("devices"),
        "PlaceholderScreen": lambda: _class(_M + "placeholder", "PlaceholderScreen")("Soon", "…"),
        "TokenViewScreen": lambda: _class(_M + "tokens", "TokenViewScreen")(TOKEN),
        "TokenFormScreen": lambda: _class(_M + "modals.token_form", "TokenFormScreen")(
            account_id="pa_b4kfel3guxntcchyplvq"
        ),
        "ChargeTokenScreen": lambda: _class(_M + "modals.charge_token", "ChargeTokenScreen")(TOKEN),
        "CaptureModal": lambda: _class(_M + "modals.capture", "CaptureModal")(CHARGE_ID),
        "RefundModal": lambda: _class(_M + "modals.refund", "RefundModal")(CHARGE_ID),
        "EditTagsModal": lambda: _class(_M + "modals.edit_tags", "EditTagsModal")(CHARGE_ID),
        "EditRefundTagsModal": lambda: _class(_M + "modals.edit_tags", "EditRefundTagsModal")(
            CHARGE_ID
        ),
        "MoneyActionModal": lambda: _class(_M + "modals.refund", "RefundModal")(CHARGE_ID),
        "PagedListScreen": lambda: _class(_M + "refunds", "RefundsScreen")(),
        "CustomerScreen": lambda: _class(_M + "customer", "CustomerScreen")(
            _class("paytui.customer", "CustomerKey")("name", "Ada Lovelace")
        ),
        "DuplicatesScreen": lambda: _class(_M + "duplicates", "DuplicatesScreen")(CHARGE),
        "TypedConfirmModal": lambda: _class(_M + "modals.confirm", "TypedConfirmModal")(
            "12.50", "Retry action #1."
        ),
        "PaymentSessionModal": lambda: _class(_M + "modals.plugin_session", "PaymentSessionModal")(
            "pa_b4kfel3guxntcchyplvq"
        ),
        "DeleteSessionModal": lambda: _class(_M + "modals.plugin_session", "DeleteSessionModal")(
            CHARGE_ID
        ),
        "SessionViewScreen": lambda: _class(_M + "plugin_sessions", "SessionViewScreen")(SESSION),
        "BulkActionModal": lambda: _class(_M + "modals.bulk", "BulkActionModal")(_bulk_plan()),
        "JumpModal": lambda: _class(_M + "modals.jump", "JumpModal")(dict),
        "SaveSearchModal": lambda: _class(_M + "modals.saved_searches", "SaveSearchModal")(
            "status:chargeback"
        ),
        "ExportModal": lambda: _class(_M + "modals.export", "ExportModal").for_charges(
            [], "Export the marked charges"
        ),
        "ConversationScreen": lambda: _class(_M + "conversation", "ConversationScreen")(
            CONVERSATION_ID
        ),
        "ConversationsScreen": lambda: _class(_M + "conversations", "ConversationsScreen")(
            charge_id=CHARGE_ID
        ),
        "ReplyModal": lambda: _class(_M + "modals.conversation", "ReplyModal")(CONVERSATION_ID),
        "CloseConversationModal": lambda: _class(
            _M + "modals.conversation", "CloseConversationModal"
        )(CONVERSATION_ID),
        "ConfirmProductionScreen": lambda: _class(
            _M + "modals.profile_switcher", "ConfirmProductionScreen"
        )(_connection()),
        "ConfirmCommandModal": lambda: _class(_M + "modals.user_command", "ConfirmCommandModal")(
            _command(), ("crm-open", CHARGE_ID)
        ),
        "CommandOutputModal": lambda: _class(_M + "modals.user_command", "CommandOutputModal")(
            "Open in CRM",
            _class("paytui.user_commands", "Ran")(("crm",), 0, "ok", False, 0.1),
            "ok",
        ),
        "UndoEditModal": lambda: _class(_M + "modals.undo", "UndoEditModal")(_edit_entry()),
        "UndoRefundEditModal": lambda: _class(_M + "modals.undo", "UndoRefundEditModal")(
            _edit_entry()
        ),
        "UndoClaimModal": lambda: _class(_M + "modals.undo", "UndoClaimModal")(
            f"Let go of your claim on {CHARGE_ID}?", "Your last change was claiming it."
        ),
    }
)


def screen_classes() -> list[type[Screen[Any]]]:
    """Every Screen subclass defined in a module under `paytui.ui.screens`."""
    found: dict[str, type[Screen[Any]]] = {}
    package = paytui.ui.screens
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, Screen)
                and value.__module__ == module.__name__
                and not name.startswith("_")
                and name not in {"PaytuiScreen", "PaytuiModal"}
            ):
                found[name] = value
    return [found[name] for name in sorted(found)]


def _dialog_opener(cls: type[Screen[Any]]) -> Callable[[], Screen[Any]] | None:
    """An operation's dialog opens from the table of dialogs (`dialog_for`), on a target that
    need not exist (the dialog then says so): a new operation's dialog needs no opener here."""
    from paytui.ui.screens.modals.dialogs import DIALOGS, dialog_for

    where = f"{cls.__module__}:{cls.__name__}"
    operation = next((name for name, path in DIALOGS.items() if path == where), None)
    if operation is None:
        return None
    return lambda: dialog_for(operation, CHARGE_ID)


def every_screen() -> list[tuple[str, Callable[[], Screen[Any]]]]:
    """(class name, factory) for every screen and modal; fails naming one it cannot build."""
    result: list[tuple[str, Callable[[], Screen[Any]]]] = []
    missing: list[str] = []
    for cls in screen_classes():
        build = _OPENERS.get(cls.__name__) or _dialog_opener(cls)
        if build is None:
            required = [
                p
                for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                if p.default is inspect.Parameter.empty
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            ]
            if required:
                missing.append(cls.__name__)
                continue
            build = cls
        result.append((cls.__name__, build))
    assert not missing, f"add an opener in tests/ui/every_screen.py for: {missing}"
    return result
