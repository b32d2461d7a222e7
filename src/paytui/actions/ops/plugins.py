"""Plugin sessions: create one (payment, for an account; enrollment, for a merchant or a new
one) and delete one. A new session carries ``paytui_ref`` in its attributes, which a read-back
finds in GET /v2/plugins; the journal keeps the whole request (it holds no secrets)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paytui.actions.errors import ActionError, NotRetryable, PrecheckFailed
from paytui.actions.operation import PLUGINS_ALL, Asked, Executor, NoParams, Operation
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import REF_ATTRIBUTE, ReadBack, has_ref, scan
from paytui.api.errors import ApiError, NotFoundError
from paytui.api.plugins import (
    AccountRequest,
    EnrollmentPluginSessionRequest,
    PaymentPluginSessionRequest,
    account_limit,
    cap_problem,
)

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient
    from paytui.api.models import PluginSession


def session_target(request: PaymentPluginSessionRequest | EnrollmentPluginSessionRequest) -> str:
    """The in-flight key: the account of a payment session, the merchant (or "enrollment")."""
    if isinstance(request, PaymentPluginSessionRequest):
        return request.account_id
    return request.merchant_id or "enrollment"


@dataclass(frozen=True)
class SessionParams:
    """The session to create; its target is `session_target(request)`."""

    request: PaymentPluginSessionRequest | EnrollmentPluginSessionRequest


async def prepare_session(
    executor: Executor, target: str, params: SessionParams, asked: Asked
) -> Plan:
    request = params.request
    payment = isinstance(request, PaymentPluginSessionRequest)
    if target != session_target(request):
        raise ActionError("A plugin session is made for the account or merchant it names")
    if isinstance(request, PaymentPluginSessionRequest):
        await _check_session_account(executor.client, request)

    async def send(ref: str) -> PluginSession:
        attrs = {**(request.attributes or {}), REF_ATTRIBUTE: [ref]}
        tagged = request.model_copy(update={"attributes": attrs})
        if isinstance(tagged, PaymentPluginSessionRequest):
            return await executor.client.create_payment_plugin_session(tagged)
        return await executor.client.create_enrollment_plugin_session(tagged)

    summary = journal_summary(
        kind="payment" if payment else "enrollment", target=target, request=request.to_body()
    )
    return Plan(
        "plugin_session", target, None, None, summary, send, asked.retry_of, original=request
    )


async def _check_session_account(
    client: PaymentClient, request: PaymentPluginSessionRequest
) -> None:
    """Read the account first: the cap must fit the limit the account *shows*, fees included
    (the spec's rule; `paytui.api.plugins`, as the form applies it). No rule on its boarding
    status and no assumed limit: the spec shows neither, the service decides and its refusal is
    what the person sees. An account that cannot be read (a client with the plugins scope but
    not the accounts one) is no reason to refuse: the service checks the limit itself."""
    try:
        account = await client.get_account(request.account_id)
    except ApiError:
        return
    reason = cap_problem(request, account_limit(account))
    if reason is not None:
        raise PrecheckFailed(reason)


async def prepare_delete(
    executor: Executor, session_id: str, params: NoParams, asked: Asked
) -> Plan:
    if not session_id:
        raise ActionError("No plugin session given")

    async def send(_ref: str) -> None:
        await executor.client.delete_plugin_session(session_id)

    summary = journal_summary(session_id=session_id)
    return Plan("plugin_delete", session_id, None, None, summary, send, asked.retry_of)


async def read_back_session(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    async for session in scan(client.list_plugin_sessions(page_size=100)):
        if has_ref(session.attributes, entry.client_reference):
            return ReadBack("succeeded", session.session_id, result=session)
    return ReadBack("not_applied")


async def read_back_delete(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    """DELETE is idempotent: the session answers 404 once it is gone."""
    session_id = str(entry.request_summary.get("session_id", ""))
    try:
        await client.get_plugin_session(session_id)
    except NotFoundError:
        return ReadBack("succeeded", session_id)
    return ReadBack("not_applied")


def journaled_request(entry: JournalEntry, original: Any) -> Any:
    """The request of a plugin session or account: the one this run sent, else the journal's
    copy (kept whole: these hold no card or bank number)."""
    if original is not None:
        return original
    summary = entry.request_summary
    body = summary.get("request")
    if summary.get("redacted") or not isinstance(body, dict):
        raise NotRetryable("Its details are kept masked in the journal; start it again")
    if entry.operation == "account_create":
        return AccountRequest.model_validate(body)
    if summary.get("kind") == "payment":
        return PaymentPluginSessionRequest.model_validate(body)
    return EnrollmentPluginSessionRequest.model_validate(body)


def session_params_of(entry: JournalEntry, original: Any) -> tuple[str, SessionParams]:
    request = journaled_request(entry, original)
    return session_target(request), SessionParams(request)


def delete_params_of(entry: JournalEntry, original: Any) -> tuple[str, NoParams]:
    return str(entry.request_summary.get("session_id", "")), NoParams()


SESSION_SPEC = Operation(
    "plugin_session",
    noun="plugin session",
    label="Creating a plugin session",
    short="plugin session",
    scope=PLUGINS_ALL,
    success="Plugin session {result_id} created",
    result_noun="session",
    target_key="target",
    read_back=read_back_session,
    params=SessionParams,
    prepare=prepare_session,
    params_of=session_params_of,
    action="new_payment_session",
    no_bulk="a session is one customer's page in one browser: nothing to mark",
    no_command="a plugin session is a page the customer's browser opens: the app's plugin"
    " screen makes it and shows where to open it",
)
DELETE_SPEC = Operation(
    "plugin_delete",
    noun="deletion of a plugin session",
    label="Deleting a plugin session",
    short="delete session",
    scope=PLUGINS_ALL,
    success="Plugin session {result_id} deleted",
    target_key="session_id",
    read_back=read_back_delete,
    params=NoParams,
    prepare=prepare_delete,
    params_of=delete_params_of,
    action="delete_session",
    no_bulk="it ends the one session the plugin screen made: nothing to mark",
    no_command="it ends a session the app's plugin screen made (a script never holds one)",
)
