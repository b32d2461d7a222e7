"""`paytui profile add|list|show|remove|use`: manage connection profiles from the shell.

(`paytui profile probe` talks to the service, so it lives with the command line's commands:
`paytui.commands.probe`, dispatched by `paytui.cli`.)

Secrets are never command-line arguments (the process list shows arguments to every user): they
are prompted for without echo, read from stdin (`--secret-stdin`), or referenced by the name of
an environment variable that holds them. Every failure is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import NoReturn, TextIO

from pydantic import SecretStr, ValidationError

from paytui.config import files
from paytui.config.arguments import CliError, refuse_secret_arguments
from paytui.config.model import (
    IMPLICIT_PROFILE,
    Profile,
    check_profile_name,
    describe_parameters,
)
from paytui.config.secrets import (
    SecretKind,
    SecretStoreError,
    delete_secret,
    secret_location,
    store_secret,
)
from paytui.config.store import (
    ConfigError,
    LoadResult,
    load_config,
    read_raw,
    remove_profile,
    save_profile,
    set_default_profile,
)
from paytui.config.urls import UrlPolicyError, check_base_url
from paytui.console import SafeArgumentParser, say

PROG = "paytui profile"

FIELD_OPTIONS = {
    "base_url": "--base-url",
    "client_id": "--client-id",
    "scopes": "--scope",
    "client_secret_env": "--secret-env",
    "token_env": "--token-env",
    "account_id": "--account",
    "environment": "--environment",
    "verify": "--ca-bundle",
    "confirm_threshold": "--confirm-threshold",
}


class _Parser(SafeArgumentParser):
    """argparse that reports a usage mistake as one line instead of usage text plus exit."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see `{self.prog} --help`)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Manage paytui connection profiles (stored in "
        f"{files.config_path()}; secrets in the system keyring or secrets.toml).",
        epilog="`paytui profile probe NAME [--write]` tries a profile's service with harmless "
        "reads and says what it does (see its --help; docs/cli.md).",
        allow_abbrev=False,
    )
    sub = parser.add_subparsers(dest="command", metavar="{add,list,show,remove,use}")
    sub.required = True

    add = sub.add_parser(
        "add",
        help="add a profile (prompts for its secret without echo)",
        description="Add a profile. With --client-id it uses OAuth client credentials and the "
        "secret is the client secret; without, the secret is a static bearer token. The secret "
        "is prompted for without echo, read from stdin with --secret-stdin, or left in an "
        "environment variable named with --secret-env / --token-env. Secrets are never "
        "accepted as arguments.",
        allow_abbrev=False,
    )
    add.add_argument("name", help="profile name (letters, digits, '.', '_', '-')")
    add.add_argument("--base-url", required=True, help="https://... (http only for loopback)")
    add.add_argument("--client-id", help="OAuth client id (client-credentials flow)")
    add.add_argument(
        "--scope",
        action="append",
        default=[],
        metavar="S",
        help="ask for this scope (repeatable; default: everything the client holds)",
    )
    source = add.add_mutually_exclusive_group()
    source.add_argument("--token-env", metavar="VAR", help="read the bearer token from $VAR")
    source.add_argument("--secret-env", metavar="VAR", help="read the client secret from $VAR")
    source.add_argument(
        "--secret-stdin", action="store_true", help="read the secret as one line from stdin"
    )
    add.add_argument(
        "--environment",
        choices=("production", "sandbox"),
        help="label shown in the header (default: production, the cautious choice)",
    )
    add.add_argument("--account", metavar="pa_...", help="default account id")
    add.add_argument("--read-only", action="store_true", help="hide every action that changes data")
    tls = add.add_mutually_exclusive_group()
    tls.add_argument("--ca-bundle", metavar="PATH", help="CA bundle for a private CA")
    tls.add_argument(
        "--insecure-skip-verify",
        action="store_true",
        help="turn certificate verification off (the header warns; avoid)",
    )
    add.add_argument(
        "--confirm-threshold",
        metavar="AMOUNT",
        help="money actions above AMOUNT need typed confirmation on production",
    )
    add.add_argument("--default", action="store_true", help="make it the default profile")
    add.add_argument("--replace", action="store_true", help="overwrite an existing profile")

    sub.add_parser("list", help="list profiles (* marks the default)", description="List profiles.")
    show = sub.add_parser(
        "show",
        help="show a profile (never its secret)",
        description="Show a profile's settings and where its secret is stored; never the secret.",
    )
    show.add_argument("name")
    remove = sub.add_parser(
        "remove",
        help="remove a profile and its stored secret",
        description="Remove a profile from config.toml and delete its stored secret.",
    )
    remove.add_argument("name")
    use = sub.add_parser(
        "use",
        help="make a profile the default",
        description="Set default_profile, used when neither --profile nor PAYTUI_PROFILE is given.",
    )
    use.add_argument("name")
    return parser


def main(argv: Sequence[str]) -> int:
    """Run `paytui profile ...`; returns the exit code (0 ok, 2 error)."""
    args_list = list(argv)
    try:
        refuse_secret_arguments(args_list)
        try:
            args = build_parser().parse_args(args_list)
        except SystemExit as exit_:  # --help
            return int(exit_.code or 0)
        handler = {
            "add": _add,
            "list": _list,
            "show": _show,
            "remove": _remove,
            "use": _use,
        }[args.command]
        return handler(args)
    except (CliError, ConfigError, SecretStoreError, UrlPolicyError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        say(f"{PROG}: cancelled", err=True)
        return 130
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        return _fail(f"cannot write{where}: {exc.strerror or exc}")
    except Exception as exc:  # never a traceback: one line, scrubbed
        from paytui.logs import redact

        return _fail(f"unexpected error: {redact(exc)}")


def _fail(message: str) -> int:
    say(f"{PROG}: error: {message}", err=True)
    return 2


def _warn_problems(result: LoadResult, stream: TextIO | None = None) -> None:
    for problem in result.problems:
        say(f"{PROG}: warning: {problem}", err=True, file=stream)


# --------------------------------------------------------------------------- add


def _add(args: argparse.Namespace) -> int:
    name = _profile_name(args.name)
    if name == IMPLICIT_PROFILE:
        raise CliError(
            f"{name!r} is reserved for the embedded sandbox; pick another name for this profile"
        )
    raw_profiles = read_raw().get("profiles", {})
    if isinstance(raw_profiles, dict) and name in raw_profiles and not args.replace:
        raise CliError(f"profile {name!r} exists; add --replace to overwrite it")
    try:
        base_url = check_base_url(args.base_url)
    except UrlPolicyError as exc:
        raise CliError(f"--base-url: {exc}") from None

    uses_oauth = args.client_id is not None
    kind: SecretKind = "client_secret" if uses_oauth else "token"
    if uses_oauth and args.token_env:
        raise CliError("--token-env is for a bearer token; with --client-id use --secret-env")
    if not uses_oauth and args.secret_env:
        raise CliError("--secret-env needs --client-id; for a bearer token use --token-env")
    if not uses_oauth and args.scope:
        raise CliError("--scope needs --client-id (scopes are asked for when fetching a token)")

    verify: bool | str = True
    if args.ca_bundle:
        bundle = Path(args.ca_bundle).expanduser().resolve()
        if not bundle.is_file():
            raise CliError(f"--ca-bundle: {bundle} does not exist")
        verify = str(bundle)
    threshold = _amount(args.confirm_threshold) if args.confirm_threshold else None

    fields: dict[str, object] = {
        "base_url": base_url,
        "environment": args.environment,
        "client_id": args.client_id,
        "scopes": tuple(args.scope),
        "client_secret_env": args.secret_env,
        "token_env": args.token_env,
        "account_id": args.account,
        "read_only": args.read_only,
        "verify": verify,
        "insecure_skip_verify": args.insecure_skip_verify,
        "confirm_threshold": threshold,
    }
    profile = _validated({k: v for k, v in fields.items() if v is not None})

    label = "client secret" if uses_oauth else "bearer token"
    if profile.secret_env is not None:
        delete_secret(name)  # a stale stored secret must not outlive the switch to an env var
        where = f"taken from ${profile.secret_env} when paytui starts"
    else:
        secret = _read_secret(args, name, label)
        stored = store_secret(name, kind, secret)
        other: SecretKind = "token" if kind == "client_secret" else "client_secret"
        delete_secret(name, other)
        profile = profile.model_copy(update={"secret_store": stored})
        where = _describe_store(stored)

    path = save_profile(name, profile)
    if args.default:
        set_default_profile(name)
    env = profile.effective_environment
    say(f"Added profile {name!r} ({env}, {base_url}) to {path}.")
    say(f"Its {label} is {where}.")
    if args.default:
        say(f"{name!r} is now the default profile.")
    if profile.insecure_skip_verify:
        say(
            f"{PROG}: warning: certificate verification is OFF for {name!r}; anyone on the "
            "network path can read its traffic. Prefer --ca-bundle.",
            err=True,
        )
    return 0


def _profile_name(name: str) -> str:
    try:
        return check_profile_name(name)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _amount(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise CliError(f"--confirm-threshold: {text!r} is not an amount") from None
    if not value.is_finite() or value < 0:
        raise CliError(f"--confirm-threshold: {text!r} is not an amount of zero or more")
    return value


def _validated(fields: dict[str, object]) -> Profile:
    try:
        return Profile.model_validate(fields)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else ""
        option = FIELD_OPTIONS.get(field, field or "profile")
        message = str(error["msg"]).removeprefix("Value error, ")
        raise CliError(f"{option}: {message}") from None


def _read_secret(args: argparse.Namespace, name: str, label: str) -> SecretStr:
    if args.secret_stdin:
        line = sys.stdin.readline()
        value = line.rstrip("\r\n")
    elif sys.stdin.isatty():
        try:
            value = getpass.getpass(f"{label.capitalize()} for profile {name!r} (not shown): ")
        except EOFError:
            raise CliError(f"no {label} entered") from None
    else:
        env_option = "--secret-env" if label.startswith("client") else "--token-env"
        raise CliError(
            f"no {label}: stdin is not a terminal, so use --secret-stdin, or name an "
            f"environment variable with {env_option}"
        )
    if not value.strip():
        raise CliError(f"the {label} is empty")
    return SecretStr(value.strip())


def _describe_store(store: str) -> str:
    if store == "keyring":
        return "stored in the system keyring"
    return f"stored in {files.secrets_path()} (mode 0600; no system keyring answered)"


# --------------------------------------------------------------------------- list / show


def _default_name(result: LoadResult) -> str:
    return result.config.default_profile or IMPLICIT_PROFILE


def _list(args: argparse.Namespace) -> int:
    result = load_config()
    _warn_problems(result)
    default = _default_name(result)
    names = result.config.profile_names()
    width = max(len(n) for n in names)
    for name in names:
        profile = result.config.get_profile(name)
        assert profile is not None
        mark = "*" if name == default else " "
        where = profile.base_url or "embedded sandbox"
        extras = []
        if profile.auth_kind == "client_credentials":
            extras.append(f"client {profile.client_id}")
        elif profile.auth_kind == "token":
            extras.append("bearer token")
        if profile.read_only:
            extras.append("read-only")
        if profile.insecure_skip_verify:
            extras.append("TLS VERIFY OFF")
        tail = f"  ({', '.join(extras)})" if extras else ""
        env = profile.effective_environment
        say(f"{mark} {name:<{width}}  {env:<10}  {where}{tail}")
    return 0


def _show(args: argparse.Namespace) -> int:
    name = args.name
    result = load_config()
    profile = result.config.get_profile(name)
    if profile is None:
        raise CliError(_missing_message(name, result))
    _warn_problems(result)
    ui = profile.ui_prefs(result.config.ui)
    default = " (default)" if name == _default_name(result) else ""
    rows: list[tuple[str, str]] = [
        ("profile", f"{name}{default}"),
        ("environment", profile.effective_environment),
        ("base_url", profile.base_url or "embedded sandbox (private socket)"),
    ]
    if profile.base_url is not None:
        rows.append(("paging", profile.paging))
        charges, refunds = profile.parameters.names(), profile.parameters.refunds.names()
        if charges or refunds:
            rows.append(("parameters", describe_parameters(charges, refunds)))
    if profile.auth_kind == "client_credentials":
        rows.append(("auth", "OAuth client credentials"))
        rows.append(("client_id", str(profile.client_id)))
        rows.append(("scopes", " ".join(profile.scopes) or "(all the client holds)"))
        rows.append(("token_auth", profile.token_auth))
        rows.append(("client secret", _secret_whereabouts(name, profile, "client_secret")))
    elif profile.auth_kind == "token":
        rows.append(("auth", "static bearer token"))
        rows.append(("bearer token", _secret_whereabouts(name, profile, "token")))
    else:
        rows.append(("auth", "demo client of the embedded sandbox"))
    rows.append(("account_id", profile.account_id or "(none)"))
    rows.append(("read_only", "yes" if profile.read_only else "no"))
    if profile.insecure_skip_verify:
        rows.append(("tls verify", "OFF (insecure_skip_verify)"))
    elif isinstance(profile.verify, str):
        rows.append(("tls verify", f"on, CA bundle {profile.verify}"))
    else:
        rows.append(("tls verify", "on"))
    rows.append(("theme", ui.theme or "(app default)"))
    rows.append(("refresh_interval", f"{ui.refresh_interval:g} s"))
    rows.append(("watch_interval", f"{ui.watch_interval:g} s"))
    rows.append(("confirm_threshold", str(ui.confirm_threshold)))
    width = max(len(key) for key, _ in rows)
    for key, value in rows:
        say(f"{key + ':':<{width + 1}} {value}")
    return 0


def _secret_whereabouts(name: str, profile: Profile, kind: SecretKind) -> str:
    """Where the secret is, never what it is."""
    env_name = profile.secret_env
    if env_name is not None:
        state = "set" if os.environ.get(env_name) else "NOT set in this shell"  # never the value
        return f"from ${env_name} ({state})"
    try:
        location = secret_location(name, kind, hint=profile.secret_store)
    except SecretStoreError as exc:
        return f"unreadable: {exc}"
    if location == "keyring":
        return "stored in the system keyring"
    if location == "file":
        return f"stored in {files.secrets_path()}"
    return f"MISSING (run `paytui profile add {name} ... --replace`)"


def _missing_message(name: str, result: LoadResult) -> str:
    broken = [p for p in result.problems if f"profile {name!r} is ignored" in p.message]
    if broken:
        first = next((p for p in result.problems if f"profiles.{name}" in p.message), broken[0])
        return f"profile {name!r} has errors: {first}"
    if result.exists and not result.parsed:
        return str(result.problems[0])
    known = ", ".join(result.config.profile_names())
    return f"no profile {name!r} (known: {known})"


# --------------------------------------------------------------------------- remove / use


def _remove(args: argparse.Namespace) -> int:
    name = args.name
    if not remove_profile(name):
        if name == IMPLICIT_PROFILE:
            raise CliError("the embedded sandbox profile is built in and cannot be removed")
        raise CliError(f"no profile {name!r} in {files.config_path()}")
    try:
        removed = delete_secret(name)
    except SecretStoreError as exc:
        say(f"Removed profile {name!r}.")
        say(f"{PROG}: warning: its secret could not be deleted: {exc}", err=True)
        return 0
    if removed:
        places = " and ".join(
            "the system keyring" if r == "keyring" else "secrets.toml" for r in removed
        )
        say(f"Removed profile {name!r} and its secret from {places}.")
    else:
        say(f"Removed profile {name!r}.")
    return 0


def _use(args: argparse.Namespace) -> int:
    name = args.name
    result = load_config()
    if result.config.get_profile(name) is None:
        raise CliError(_missing_message(name, result))
    set_default_profile(name)
    say(f"{name!r} is now the default profile.")
    return 0
