"""The shape of `config.toml`, as pydantic v2 models.

The models validate one section at a time (see `paytui.config.store`), so a mistake in one profile
costs that profile only, never the whole file: the app must always be able to start.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Annotated, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from paytui.api.parameters import CHARGE_FILTERS, REFUND_FILTERS, check_parameter_name
from paytui.config.environment import IMPLICIT_PROFILE as IMPLICIT_PROFILE
from paytui.config.urls import UrlPolicyError, check_base_url

#: Every table of the file: unknown keys refused, values frozen. Each model's validator is built
#: when it first validates, not when this module is imported: a script command that reads only
#: the journal's place (`paytui history`) or a file without `[today]` does not pay for the others
#: (docs/performance.md). Defaults are never validated (pydantic's `validate_default` is off), so
#: a default instance is made with `model_construct`, which builds no validator either.
_SECTION = ConfigDict(extra="forbid", frozen=True, defer_build=True)

Environment = Literal["sandbox", "production"]
AuthKind = Literal["embedded", "client_credentials", "token"]
SecretStoreName = Literal["keyring", "file"]
#: How the OAuth client id and secret reach the token endpoint (`paytui.api.auth`).
TokenAuth = Literal["auto", "basic", "form"]
#: How the service pages a list (`paytui.api.paging.PagingStyle`).
Paging = Literal["offset", "page"]

#: `pa_` plus letters and digits (the service's ids are 20-odd of them).
ACCOUNT_ID_RE = re.compile(r"pa_[A-Za-z0-9]{1,64}")
#: Printable ASCII without spaces: a client id travels in an HTTP Basic header.
CLIENT_ID_RE = re.compile(r"[\x21-\x7e]{1,200}")

PROFILE_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ENV_VAR_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Keys that would put a secret into config.toml. They are refused by name, with a message that
#: says where secrets go instead, and their value is never echoed.
SECRET_KEYS = frozenset(
    {"client_secret", "secret", "token", "access_token", "password", "bearer_token", "api_key"}
)

Seconds = Annotated[float, Field(gt=0, le=86_400)]
Amount = Annotated[Decimal, Field(ge=0, max_digits=14, decimal_places=2)]
#: Hours a success counts as "recent" (a repeat of it needs an explicit "again"): 0 to 30 days.
Hours = Annotated[float, Field(ge=0, le=720)]


def _to_decimal_text(value: object) -> object:
    """TOML floats are binary; read them through their shortest repr so 99.99 stays 99.99."""
    if isinstance(value, float):
        return str(value)
    return value


def check_journal_location(value: str | None) -> str | None:
    """A journal location as written in a config or the environment: a ``postgresql://`` URL
    without a password (it goes to the secret store, ``PGPASSFILE`` or ``PGPASSWORD``), or a
    SQLite file (``sqlite:PATH``). One line on anything else."""
    if value is None:
        return None
    text = value.strip()
    if text.startswith(("postgresql://", "postgres://")):
        rest = text.split("://", 1)[1]
        credentials = rest.rpartition("@")[0] if "@" in rest.split("/", 1)[0] else ""
        if ":" in credentials or "password=" in text:
            raise ValueError(
                "a journal URL must not hold its password: store it with `paytui journal"
                " password` (the keyring or secrets file), or use PGPASSFILE or PGPASSWORD"
            )
        return text
    if text.startswith("sqlite:") and len(text) > len("sqlite:"):
        return text
    raise ValueError("a journal is a postgresql:// URL or sqlite:PATH")


def check_agent_name(value: str | None) -> str | None:
    """An agent's name: 1-64 printable characters, no spaces at the ends."""
    if value is None:
        return None
    text = value.strip()
    if not text or len(text) > 64 or not text.isprintable():
        raise ValueError("an agent's name is 1 to 64 printable characters")
    return text


class UiPrefs(BaseModel):
    """UI preferences: the `[ui]` table, and the effective values of a connection."""

    model_config = _SECTION

    theme: str | None = None
    """A Textual theme name; None lets the app choose."""
    refresh_interval: Seconds = 30.0
    """Seconds between automatic refreshes of list screens."""
    watch_interval: Seconds = 5.0
    """Seconds between polls of a charge being watched."""
    confirm_threshold: Amount = Decimal("100.00")
    """Money actions above this amount on a production profile need typed confirmation."""
    again_window_hours: Hours = 24.0
    """A refund (token, charge) identical to one that succeeded within these hours, by anyone,
    needs an explicit "again" (docs/money-safety.md); 0 turns the rule off."""
    late_window_minutes: Annotated[float, Field(ge=0, le=10_080)] = 10.0
    """How long after sending a read-back that found nothing is only "not applied so far": a
    new attempt of the same action reads the service again first and needs the person's
    go-ahead (docs/money-safety.md); 0: "not applied" is final at once."""
    claim_lease_seconds: Seconds = 120.0
    """How long a claim on a charge lives after its holder's paytui last renewed it (a dashboard
    renews its claims every 10 s): a paytui left asleep or cut off lets go after this
    (docs/team.md, "Claims")."""
    duplicate_window_minutes: Annotated[float, Field(gt=0, le=10_080)] = 10.0
    """"Charged twice?" (`z`): charges of the same card, amount and account within these
    minutes either way of a charge are listed as likely duplicates (docs/screens.md)."""
    start_screen: Literal["charges", "today"] = "charges"
    """The screen paytui opens on: the charge search, or Today (`0`, docs/today.md)."""
    screen_reader: bool = False
    """Screen-reader mode (docs/accessibility.md): every change said as a line of text, in
    order, with the terminal cursor on it; no animation. Also `--screen-reader` and
    `PAYTUI_SCREEN_READER=1`."""

    @field_validator("confirm_threshold", mode="before")
    @classmethod
    def _threshold_from_toml(cls, value: object) -> object:
        return _to_decimal_text(value)


Days = Annotated[float, Field(ge=0, le=3650)]

#: The card networks' response windows, in days, per brand (as the service spells it, folded)
#: and stage: how long a merchant has to answer from the chargeback's date (docs/today.md, "The
#: windows", gives each source). A brand paytui does not know gets the shortest of its stage; a
#: stage it does not know, the shortest of the brand. `[today] network_days` overrides entries.
NETWORK_DAYS: Mapping[str, Mapping[str, float]] = {
    # Visa Core Rules, Dispute Resolution (Visa Claims Resolution): 30 days to respond to a
    # dispute and to a pre-arbitration; arbitration is shorter (10 days, cautious).
    "visa": {"chargeback": 30, "pre_arbitration": 30, "arbitration": 10},
    # Mastercard Chargeback Guide: 45 days for the second presentment; pre-arbitration 30;
    # arbitration case filing 10 (cautious).
    "mastercard": {"chargeback": 45, "pre_arbitration": 30, "arbitration": 10},
    # American Express Merchant Regulations: 20 days to answer an inquiry or a chargeback.
    "amex": {"chargeback": 20, "pre_arbitration": 20, "arbitration": 10},
    # Discover Dispute Rules Manual: 30 days to represent; pre-arbitration 20; arbitration 10.
    "discover": {"chargeback": 30, "pre_arbitration": 20, "arbitration": 10},
}
#: The stages of a chargeback, first to last: a service's word for one is folded onto these
#: (`paytui.today.deadlines.stage_of`); no stage shown is the first.
STAGES: tuple[str, ...] = ("chargeback", "pre_arbitration", "arbitration")


class TodayPrefs(BaseModel):
    """The `[today]` table: the windows of Today's deadlines (docs/today.md). None of them is
    in the service's spec; each default is paytui's assumption, documented there."""

    model_config = _SECTION

    hold_days: Days = 7.0
    """Days an authorization holds the amount on the card, for a brand not in `brand_hold_days`."""
    brand_hold_days: dict[str, Days] = {}
    """Per card brand (as the service spells it, `visa`): days the hold lasts."""
    response_days: Days = 10.0
    """The acquirer's window to answer a chargeback, from the best evidence of its date (the
    chargeback's own date, else the charge's last update, else first seen: docs/today.md); the
    earlier of this and the network's window (`network_days`) is the due time."""
    buffer_days: Days = 2.0
    """Taken off the chargeback response window, so the due time is early rather than late."""
    network_days: dict[str, dict[str, Days]] = {}
    """Per card brand and stage (`chargeback`, `pre_arbitration`, `arbitration`): the network's
    response window, laid over the built-in table (`NETWORK_DAYS`, docs/today.md)."""
    return_days: Days = 1.0
    """Days to act on an ACH return, from the return's own date (else as a chargeback's)."""
    stale_days: Days = 5.0
    """An account in a boarding status not final for this many days needs a look."""
    attention_statuses: tuple[str, ...] = ("info_required",)
    """Boarding statuses that need a person at once (the account needs information)."""
    final_statuses: tuple[str, ...] = ("approved", "declined", "closed")
    """Boarding statuses that never go stale."""
    lookback_days: Days = 30.0
    """Items overdue by more than this are left out (counted below the list; their own views
    list them); 0 keeps every item."""
    concurrency: Annotated[int, Field(ge=1, le=16)] = 4
    """Reads of the service at once while the queue is built."""
    refresh_seconds: Annotated[float, Field(ge=0, le=86_400)] = 60.0
    """Seconds between re-reads of the queue while Today is on screen; 0 turns it off."""
    dispute_fee: Annotated[Decimal, Field(ge=0, max_digits=12, decimal_places=2)] = Decimal("25.00")
    """What one chargeback costs the merchant in fees (the acquirer's), weighed against the
    amount on each open case's "fight or accept" line (docs/today.md)."""

    @field_validator("refresh_seconds", mode="after")
    @classmethod
    def _not_a_busy_loop(cls, value: float) -> float:
        if 0 < value < 10:
            raise ValueError("at least 10 seconds (or 0: off)")
        return value

    @field_validator("brand_hold_days", mode="after")
    @classmethod
    def _lower_brands(cls, value: dict[str, float]) -> dict[str, float]:
        return {brand.strip().lower(): days for brand, days in value.items()}

    @field_validator("network_days", mode="after")
    @classmethod
    def _known_stages(cls, value: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for brand, stages in value.items():
            unknown = sorted(set(stages) - set(STAGES))
            if unknown:
                raise ValueError(
                    f"{brand}: unknown stage {', '.join(unknown)} (stages: {', '.join(STAGES)})"
                )
        return {brand.strip().lower(): dict(stages) for brand, stages in value.items()}

    def network_windows(self) -> dict[str, dict[str, float]]:
        """The built-in table with this config's entries laid over it."""
        table = {brand: dict(stages) for brand, stages in NETWORK_DAYS.items()}
        for brand, stages in self.network_days.items():
            table.setdefault(brand, {}).update(stages)
        return table


class RatioLine(BaseModel):
    """One line of the dispute ratio (`[pulse] ratio_lines`): a monitoring programme's
    threshold, as paytui's default or the acquirer's own (docs/today.md, "The dispute ratio")."""

    model_config = _SECTION

    name: Annotated[str, Field(min_length=1, max_length=60)]
    """What the line is called on screen and in `paytui pulse`."""
    percent: Annotated[float, Field(gt=0, le=100)]
    """Disputes over sales of the month, in percent, at or above which the line is crossed."""
    min_disputes: Annotated[int, Field(ge=0)] = 0
    """The programme's minimum count of disputes in the month (below it, not crossed)."""


#: Defaults, from the programmes' public summaries (docs/today.md cites them): Mastercard's
#: Excessive Chargeback Program (monitored 1 % / 100, excessive 1.5 % / 100, high excessive
#: 3 % / 300) and Visa's Acquirer Monitoring Program (merchant "excessive" 1.5 % / 1,500 in
#: 2026 in most regions). Defaults, not the rules: an acquirer's own are set in `[pulse]`.
DEFAULT_RATIO_LINES: tuple[RatioLine, ...] = (
    RatioLine.model_construct(name="Mastercard monitored", percent=1.0, min_disputes=100),
    RatioLine.model_construct(name="Mastercard excessive", percent=1.5, min_disputes=100),
    RatioLine.model_construct(name="Visa VAMP excessive", percent=1.5, min_disputes=1500),
    RatioLine.model_construct(name="Mastercard high excessive", percent=3.0, min_disputes=300),
)


class PulsePrefs(BaseModel):
    """The `[pulse]` table: the pulse's windows, the chargeback rate's lines and how often it is
    read again (docs/today.md). The lines are for the eye, not rules: the card schemes'
    monitoring programmes start around 0.9-1 % of a month's transactions."""

    model_config = _SECTION

    days: Annotated[int, Field(ge=2, le=366)] = 30
    """Days of the pulse (today and the days before it, UTC)."""
    long_days: Annotated[int, Field(ge=2, le=366)] = 90
    """Days of the long window (`d` on the pulse)."""
    warn_rate: Annotated[float, Field(ge=0, le=100)] = 0.9
    """Chargeback rate, in percent of successful charges, said as "above the warning line"."""
    alert_rate: Annotated[float, Field(ge=0, le=100)] = 1.0
    """Chargeback rate, in percent, said as "ABOVE the line"."""
    refresh_seconds: Annotated[float, Field(ge=10, le=86_400)] = 300.0
    """Seconds between re-reads of the pulse while it is on screen."""
    concurrency: Annotated[int, Field(ge=1, le=16)] = 4
    """Reads of the service at once while the pulse is computed."""
    ratio_lines: tuple[RatioLine, ...] = DEFAULT_RATIO_LINES
    """The dispute ratio's thresholds (per account, the calendar month in UTC)."""
    ratio_accounts: Annotated[int, Field(ge=1, le=100)] = 3
    """Accounts of the dispute ratio shown on Today (highest ratio first; the Pulse screen and
    `paytui pulse` show every one)."""


class EvidencePrefs(BaseModel):
    """The `[evidence]` table: the limits of a dispute response's submission that `paytui
    evidence --check` holds a pack to, and the merchant's own attribute names (docs/evidence.md).
    The defaults are common acquirer caps (8 files of 2 MB, 17 pages, 150,000 characters); an
    acquirer's own are in its dispute portal's documentation."""

    model_config = _SECTION

    max_files: Annotated[int, Field(ge=1, le=1000)] = 8
    """Files in one submission (the pack and every attachment)."""
    max_file_bytes: Annotated[int, Field(ge=1)] = 2_000_000
    """Bytes of one file (2 MB, counted as 2,000,000: the cautious reading)."""
    max_total_bytes: Annotated[int, Field(ge=0)] = 0
    """Bytes of the whole submission; 0: no limit of its own."""
    max_pages: Annotated[int, Field(ge=1, le=10_000)] = 17
    """Pages of the pack as a PDF."""
    max_characters: Annotated[int, Field(ge=1)] = 150_000
    """Characters of the pack's text."""
    attribute_keys: dict[str, tuple[str, ...]] = {}
    """Per element (ip, device, shipping, account, email) or item (delivery, description,
    policy, recurring): the attribute keys the merchant stores it under, read before paytui's
    own list (docs/evidence.md)."""

    @field_validator("attribute_keys", mode="after")
    @classmethod
    def _known_names(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        known: tuple[str, ...] = ("ip", "device", "shipping", "account", "email")
        known += ("delivery", "description", "policy", "recurring")
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise ValueError(f"unknown {', '.join(unknown)} (known: {', '.join(known)})")
        return value


#: A service's name for one filter, or false (not sent: applied here). Unset: paytui's name.
ServiceParameter = str | Literal[False] | None


def _service_parameter(value: object) -> object:
    """A name as the service spells it; "" is false (not sent); true means nothing."""
    if value is True:
        raise ValueError("a filter takes the service's parameter name, or false (not sent)")
    if isinstance(value, str):
        return check_parameter_name(value) if value.strip() else False
    return value


class _FilterNames(BaseModel):
    """The service's names of one list's filters (`FILTERS`, paytui's names)."""

    model_config = _SECTION
    FILTERS: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _one_name_each(self) -> Self:
        """Two filters sent under one name could not be told apart by the service."""
        by_wire: dict[str, list[str]] = {}
        for name, wire in self.filters().items():
            if wire is not False:
                by_wire.setdefault(wire or name, []).append(name)
        for wire, names in by_wire.items():
            if len(names) > 1:
                raise ValueError(f"{' and '.join(names)} would both be sent as {wire!r}")
        return self

    def filters(self) -> dict[str, ServiceParameter]:
        return {name: getattr(self, name) for name in self.FILTERS}

    def names(self) -> dict[str, str | None]:
        """For the client: each filter not sent under paytui's name (None: not sent)."""
        return {k: v or None for k, v in self.filters().items() if v is not None and v != k}


class RefundParameters(_FilterNames):
    """`[profiles.NAME.parameters.refunds]`: the service's names of the `GET /v2/refunds`
    filters."""

    FILTERS = REFUND_FILTERS

    charge_id: ServiceParameter = None
    account_id: ServiceParameter = None
    tag: ServiceParameter = None
    attribute: ServiceParameter = None
    created_from: ServiceParameter = None
    created_to: ServiceParameter = None

    _check = field_validator(*REFUND_FILTERS, mode="before")(_service_parameter)


class Parameters(_FilterNames):
    """`[profiles.NAME.parameters]`: the service's names of the `GET /v2/charges` filters,
    where the spec does not show them; `refunds` those of `GET /v2/refunds`. A filter set to
    false is not sent: it is applied here."""

    FILTERS = CHARGE_FILTERS

    status: ServiceParameter = None
    tag: ServiceParameter = None
    attribute: ServiceParameter = None
    account_id: ServiceParameter = None
    merchant_id: ServiceParameter = None
    created_from: ServiceParameter = None
    created_to: ServiceParameter = None
    min_amount: ServiceParameter = None
    max_amount: ServiceParameter = None
    method: ServiceParameter = None
    last4: ServiceParameter = None
    charge_type: ServiceParameter = None
    captured: ServiceParameter = None
    original_charge_id: ServiceParameter = None
    charge_id: ServiceParameter = None
    contact_name: ServiceParameter = None
    sort: ServiceParameter = None
    refunds: RefundParameters = RefundParameters.model_construct()

    _check = field_validator(*CHARGE_FILTERS, mode="before")(_service_parameter)


class Profile(BaseModel):
    """One `[profiles.NAME]` table.

    Secrets are never fields here: the profile only says where its secret lives
    (`client_secret_env` / `token_env` name an environment variable, `secret_store` records where
    `paytui profile add` stored it).
    """

    model_config = _SECTION

    base_url: str | None = None
    """None means the embedded sandbox."""
    environment: Environment | None = None
    """Unset means: sandbox when embedded, production otherwise (an unlabelled remote is treated
    as production, the cautious reading)."""
    client_id: str | None = None
    scopes: tuple[str, ...] = ()
    token_auth: TokenAuth = "auto"
    """How the client id and secret go to the token endpoint: "basic" (HTTP Basic), "form"
    (`client_id` / `client_secret` form fields) or "auto" (Basic, then the form fields when
    Basic is refused; the style that worked is kept for the session)."""
    paging: Paging = "offset"
    """How the service pages a list where it gives no next link: "offset" (`limit` / `offset`)
    or "page" (`page` / `per_page`, 1-based). The spec does not show it."""
    parameters: Parameters = Parameters.model_construct()
    """The service's names of the list filters (the spec does not show them); unset: paytui's."""
    client_secret_env: str | None = None
    token_env: str | None = None
    secret_store: SecretStoreName | None = None
    account_id: str | None = None
    read_only: bool = False
    verify: bool | str = True
    """True, or the path of a CA bundle for a private CA. False is refused: see
    insecure_skip_verify."""
    insecure_skip_verify: bool = False
    """Turns certificate verification off; explicit, and the header warns about it."""
    theme: str | None = None
    refresh_interval: Seconds | None = None
    watch_interval: Seconds | None = None
    confirm_threshold: Amount | None = None
    again_window_hours: Hours | None = None
    late_window_minutes: Annotated[float, Field(ge=0, le=10_080)] | None = None
    claim_lease_seconds: Seconds | None = None
    journal: str | None = None
    """Where this profile's action journal is: a ``postgresql://`` URL (a team's journal,
    docs/team.md; its password never here) or a SQLite file (``sqlite:PATH``). Unset: this
    person's own file."""
    agent: str | None = None
    """This person's name on a team journal ("support-07"); unset: login@host."""
    approve_above: Amount | None = None
    """Four eyes: a refund or capture above this amount is not sent but waits for another
    agent's approval (docs/team.md, "Four eyes"); unset: off. `PAYTUI_APPROVE_ABOVE` wins."""

    @field_validator("journal")
    @classmethod
    def _journal_location(cls, value: str | None) -> str | None:
        return check_journal_location(value)

    @field_validator("agent")
    @classmethod
    def _agent_name(cls, value: str | None) -> str | None:
        return check_agent_name(value)

    @field_validator("confirm_threshold", "approve_above", mode="before")
    @classmethod
    def _threshold_from_toml(cls, value: object) -> object:
        return _to_decimal_text(value)

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return check_base_url(value)
        except UrlPolicyError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("verify", mode="before")
    @classmethod
    def _check_verify(cls, value: object) -> object:
        if value is False:
            raise ValueError(
                "verify = false is not accepted; use insecure_skip_verify = true if you really "
                'mean it, or verify = "/path/to/ca-bundle.pem" for a private CA'
            )
        if isinstance(value, str) and not value.strip():
            raise ValueError("verify must be true or the path of a CA bundle")
        return value

    @field_validator("client_secret_env", "token_env")
    @classmethod
    def _check_env_name(cls, value: str | None) -> str | None:
        if value is not None and not ENV_VAR_RE.match(value):
            raise ValueError(f"{value!r} is not an environment variable name")
        return value

    @field_validator("account_id")
    @classmethod
    def _check_account(cls, value: str | None) -> str | None:
        if value is not None and not ACCOUNT_ID_RE.fullmatch(value):
            raise ValueError("an account id is pa_ followed by letters and digits (pa_0123abc)")
        return value

    @field_validator("client_id")
    @classmethod
    def _check_client_id(cls, value: str | None) -> str | None:
        if value is not None and not CLIENT_ID_RE.fullmatch(value):
            raise ValueError(
                "a client id is 1 to 200 visible characters: no spaces, newlines or control "
                "characters"
            )
        return value

    @field_validator("scopes")
    @classmethod
    def _check_scopes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for scope in value:
            if not scope or any(ch.isspace() for ch in scope):
                raise ValueError(f"scope {scope!r} must be one word (e.g. urn:v2:charges:read)")
        return value

    @model_validator(mode="after")
    def _check_auth(self) -> Profile:
        if self.client_id is not None and self.token_env is not None:
            raise ValueError("a profile uses either client_id (OAuth) or token_env, not both")
        if self.client_id is None and self.client_secret_env is not None:
            raise ValueError("client_secret_env needs client_id")
        if self.client_id is None and self.scopes:
            raise ValueError("scopes only apply to OAuth client credentials (client_id)")
        if self.client_id is None and self.token_auth != "auto":
            raise ValueError("token_auth only applies to OAuth client credentials (client_id)")
        if isinstance(self.verify, str) and self.insecure_skip_verify:
            raise ValueError("verify names a CA bundle but insecure_skip_verify is true; pick one")
        if self.base_url is None and (self.client_id or self.token_env or self.secret_store):
            raise ValueError("credentials are set but base_url is missing")
        return self

    @property
    def is_embedded(self) -> bool:
        return self.base_url is None

    @property
    def auth_kind(self) -> AuthKind:
        if self.base_url is None:
            return "embedded"
        return "client_credentials" if self.client_id is not None else "token"

    @property
    def effective_environment(self) -> Environment:
        if self.environment is not None:
            return self.environment
        return "sandbox" if self.base_url is None else "production"

    @property
    def secret_env(self) -> str | None:
        """The environment variable named as holding this profile's secret, if any."""
        return self.client_secret_env if self.client_id is not None else self.token_env

    def ui_prefs(self, defaults: UiPrefs) -> UiPrefs:
        """The `[ui]` defaults with this profile's own preferences laid over them."""
        overrides = {
            key: getattr(self, key)
            for key in (
                "theme",
                "refresh_interval",
                "watch_interval",
                "confirm_threshold",
                "again_window_hours",
                "late_window_minutes",
                "claim_lease_seconds",
            )
            if getattr(self, key) is not None
        }
        return defaults.model_copy(update=overrides)

    def to_toml(self) -> dict[str, object]:
        """The table to write for this profile: only what is set, environment always explicit."""
        data = self.model_dump(mode="json", exclude_defaults=True, exclude_none=True)
        data["environment"] = self.effective_environment
        if "scopes" in data:
            data["scopes"] = list(self.scopes)
        return data


class UserCommand(BaseModel):
    """One `[[commands]]` table: a team's own program, run on what is on screen
    (docs/commands.md; the running is `paytui.user_commands`)."""

    model_config = _SECTION

    name: Annotated[str, Field(min_length=1, max_length=60)]
    """What help, the palette and the confirmation call it."""
    run: str
    """The program and its arguments, split as a shell would (`shlex`), then each placeholder
    (`{charge_id}` …) replaced inside its argument; never run through a shell."""
    screens: tuple[str, ...] = ()
    """Where it is offered (`paytui.user_commands.SCREENS`); empty: every one of them."""
    key: str | None = None
    """A key that runs it on those screens (one that no binding there holds); unset: help and
    the palette only."""
    description: Annotated[str, Field(max_length=200)] = ""
    confirm: bool = False
    """Ask before running it, showing the exact command line."""
    writes: bool = False
    """It changes something: refused on a read-only profile."""
    timeout: Annotated[float, Field(gt=0, le=3600)] = 30.0
    """Seconds before it is stopped (its process group killed)."""
    pass_env: tuple[str, ...] = ()
    """Environment variables passed on besides the allow-list (never one that holds a secret)."""

    @field_validator("name", "description")
    @classmethod
    def _printable(cls, value: str) -> str:
        text = value.strip()
        if not text.isprintable():
            raise ValueError("must be printable text on one line")
        return text

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value:
            raise ValueError("a command needs a name")
        return value

    @field_validator("run")
    @classmethod
    def _template(cls, value: str) -> str:
        from paytui.user_commands import check_template  # shlex: only with a command

        return check_template(value)

    @field_validator("screens")
    @classmethod
    def _known_screens(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from paytui.user_commands import SCREENS as COMMAND_SCREENS

        unknown = [name for name in value if name not in COMMAND_SCREENS]
        if unknown:
            raise ValueError(
                f"unknown screen {', '.join(unknown)} (screens: {', '.join(COMMAND_SCREENS)})"
            )
        return value

    @field_validator("key")
    @classmethod
    def _one_key(cls, value: str | None) -> str | None:
        if value is None:
            return None
        key = value.strip()
        if not key or "," in key or " " in key:
            raise ValueError('one key name, such as "ctrl+o" or "f5"')
        return key

    @field_validator("pass_env")
    @classmethod
    def _no_secrets(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from paytui.user_commands import check_pass_env

        return check_pass_env(value)

    def offered_on(self, scope: str | None) -> bool:
        """Is it offered on the screen of `scope` (a screen's `COMMAND_SCOPE`)?"""
        return scope is not None and (not self.screens or scope in self.screens)


class Config(BaseModel):
    """The whole validated file. `profiles` holds only the profiles that validated."""

    model_config = _SECTION

    default_profile: str | None = None
    ui: UiPrefs = UiPrefs.model_construct()
    today: TodayPrefs = TodayPrefs.model_construct()
    pulse: PulsePrefs = PulsePrefs.model_construct()
    evidence: EvidencePrefs = EvidencePrefs.model_construct()
    keymap: dict[str, str] = {}
    #: Saved searches: name -> query text (docs/saved-searches.md).
    searches: dict[str, str] = {}
    #: The team's own commands (`[[commands]]`, docs/commands.md); broken ones left out.
    commands: tuple[UserCommand, ...] = ()
    profiles: dict[str, Profile] = {}

    def profile_names(self) -> list[str]:
        """Names to offer in a switcher: the file's profiles, plus the implicit sandbox."""
        names = sorted(self.profiles)
        if IMPLICIT_PROFILE not in self.profiles:
            names.insert(0, IMPLICIT_PROFILE)
        return names

    def get_profile(self, name: str) -> Profile | None:
        """The named profile; the implicit sandbox when `name` is "sandbox" and none is defined."""
        if name in self.profiles:
            return self.profiles[name]
        if name == IMPLICIT_PROFILE:
            return Profile.model_construct()  # every default: nothing to validate
        return None


def describe_parameters(
    charges: Mapping[str, str | None], refunds: Mapping[str, str | None]
) -> str:
    """The filters a profile renames or does not send, in one line ("status as state,
    contact_name applied here; refunds: charge_id as charge")."""

    def one(names: Mapping[str, str | None]) -> str:
        return ", ".join(
            f"{name} as {wire}" if wire else f"{name} applied here" for name, wire in names.items()
        )

    parts = [one(charges)] if charges else []
    if refunds:
        parts.append(f"refunds: {one(refunds)}")
    return "; ".join(parts)


def check_profile_name(name: str) -> str:
    """Profile names are used as TOML keys, keyring user names and file keys: keep them plain."""
    if not PROFILE_NAME_RE.match(name):
        raise ValueError(
            f"invalid profile name {name!r}: use letters, digits, '.', '_' or '-' "
            "(at most 64, starting with a letter or digit)"
        )
    return name
