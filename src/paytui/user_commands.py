"""User commands: a team's own programs, run on what is on screen (`[[commands]]` in the config,
docs/commands.md).

A command's `run` is a template written as a shell would read it: it is split into an argument
list with `shlex` (POSIX rules) *first*, and only then is each placeholder (`{charge_id}`,
`{customer_email}` …) replaced, inside its own argument, by the value on screen. A value therefore
stays one argument whatever it holds (spaces, quotes, `$(…)`, `;`, a newline): the service's text
is data. No shell ever runs the result: the program is executed directly. A shell script that
needs a value takes it as an argument (`sh -c 'crm "$1" | head' sh {charge_id}`); a placeholder
inside a shell's `-c` script would be read as code, and is refused when the config is read.

What the child gets: the argument list (checked to hold none of the session's secrets), stdin
closed, a small environment (`PASSED`, the XDG and locale families, and the names the command
lists in `pass_env`; never paytui's credentials), its own process group (killed on timeout or when
paytui leaves). Its output (stdout and stderr together, at most `OUTPUT_LIMIT` bytes) comes back
as text for the UI to show through the display sanitiser.

Standard library only at import (the config's model imports the names below at start-up).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import signal
import string
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = [
    "OUTPUT_LIMIT",
    "PASSED",
    "PLACEHOLDERS",
    "SCREENS",
    "CommandNotRun",
    "Ran",
    "check_pass_env",
    "check_template",
    "child_environment",
    "command_line",
    "placeholders_in",
    "render",
    "run_argv",
    "values_of",
]

#: Where a command may be offered: a screen's `COMMAND_SCOPE` (paytui.ui.screens) and its title.
SCREENS: dict[str, str] = {
    "charges": "Charge search",
    "charge": "Charge detail",
    "today": "Today",
    "refunds": "Refunds",
    "customer": "Customer",
    "duplicates": "Charged twice?",
    "tokens": "Tokens",
    "accounts": "Accounts",
    "account": "Account",
    "distributions": "Distributions",
    "distribution": "Distribution",
    "history": "History",
    "conversations": "Conversations",
    "conversation": "Conversation",
}

#: Every placeholder a template may use, and what it is. A value the screen does not have (no
#: customer email on this charge) leaves the command disabled there, saying which.
PLACEHOLDERS: dict[str, str] = {
    "charge_id": "the charge's id (a charge, a refund's charge, a journal entry's)",
    "refund_id": "the refund's id",
    "account_id": "the account's id",
    "merchant_id": "the merchant's id",
    "token_id": "the stored card token's id",
    "customer_email": "the payer's email, where the service shows one",
    "customer_name": "the payer's name (the card or bank account's contact)",
    "amount": "the amount, as the service sent it (12.50)",
    "status": "the status, as the service sent it",
    "last4": "the card's or bank account's last four digits",
    "conversation_id": "the conversation's id",
    "entry_id": "the journal entry's number (History)",
    "profile": "the profile in use",
    "environment": "sandbox or production",
}

#: The programs whose `-c` argument is a script (a placeholder there would be code).
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox"})
#: Bytes of output kept (stdout and stderr together); the rest is read and dropped.
OUTPUT_LIMIT = 64 * 1024
#: Where a child finds its files, its language and its terminal's width; none of them a secret.
PASSED = frozenset({"HOME", "USER", "LOGNAME", "PATH", "LANG", "LANGUAGE", "TZ", "SHELL", "TMPDIR"})
PASSED_PREFIXES = ("XDG_", "LC_")
#: Names that hold secrets by their name (paytui's own, libpq's, any `*_TOKEN`, `*_SECRET` …).
_SECRET_NAME = re.compile(
    r"(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|CREDENTIALS?|AUTH)(_|$)", re.I
)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SCRIPT_FLAG = re.compile(r"^-[A-Za-z]*c[A-Za-z]*$")


class CommandNotRun(Exception):
    """Why a command was not started: one line for the person (nothing was run)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def placeholders_in(text: str) -> list[str]:
    """The placeholders of one argument, in order (`ValueError` on a malformed one: a lone
    brace, a conversion or format spec, an attribute or index)."""
    names: list[str] = []
    for _literal, field, spec, conversion in string.Formatter().parse(text):
        if field is None:
            continue
        if not field.isidentifier():
            raise ValueError(f"{{{field}}} is not a placeholder (write {{{{ for a brace)")
        if spec or conversion:
            raise ValueError(f"{{{field}}} takes no format or conversion")
        names.append(field)
    return names


def _program(argv: list[str]) -> tuple[str, int]:
    """The program actually run and its index: `env [-i] [NAME=value …] prog` runs `prog`."""
    index = 0
    while index < len(argv) and os.path.basename(argv[index]) == "env":
        index += 1
        while index < len(argv) and (argv[index].startswith("-") or "=" in argv[index]):
            index += 1
    return (argv[index] if index < len(argv) else ""), index


def check_template(run: str) -> str:
    """`run` as the config holds it, or `ValueError` with one line: it splits, names a program
    that is not a value, uses known placeholders only, and puts none into a shell's script."""
    try:
        argv = shlex.split(run)
    except ValueError as exc:
        raise ValueError(f"cannot be split into arguments: {str(exc).lower()}") from None
    if not argv:
        raise ValueError("is empty: name the program to run")
    for arg in argv:
        for name in placeholders_in(arg):
            if name not in PLACEHOLDERS:
                known = ", ".join("{" + known + "}" for known in PLACEHOLDERS)
                raise ValueError(f"unknown placeholder {{{name}}} (known: {known})")
    program, index = _program(argv)
    if placeholders_in(program):
        raise ValueError("the program itself cannot be a value from the screen")
    if os.path.basename(program) in SHELLS:
        rest = argv[index + 1 :]
        for position, arg in enumerate(rest):
            if arg == "--" or not arg.startswith("-"):
                break
            if _SCRIPT_FLAG.match(arg) and position + 1 < len(rest):
                if placeholders_in(rest[position + 1]):
                    raise ValueError(
                        "a placeholder inside a shell's -c script would be read as shell code:"
                        " pass it as an argument, sh -c '… \"$1\" …' sh {charge_id}"
                    )
                break
    return run


def check_pass_env(names: Iterable[str]) -> tuple[str, ...]:
    """The variable names a command passes on, or `ValueError`: secrets never go to a child."""
    checked: list[str] = []
    for name in names:
        if not _ENV_NAME.match(name):
            raise ValueError(f"{name!r} is not an environment variable name")
        if name.upper().startswith("PAYTUI_") or _SECRET_NAME.search(name) or name.startswith("PG"):
            raise ValueError(
                f"{name} may hold a secret and is never passed to a command: let the program"
                " read its credentials itself (its own config or keyring)"
            )
        checked.append(name)
    return tuple(checked)


def render(run: str, values: Mapping[str, str]) -> tuple[str, ...]:
    """The argument list of `run` with `values` in place (see the module's docstring).
    `CommandNotRun` names a placeholder without a value here."""
    argv: list[str] = []
    missing: list[str] = []
    for arg in shlex.split(run):
        names = placeholders_in(arg)
        absent = [name for name in names if not values.get(name)]
        missing += [name for name in absent if name not in missing]
        if not absent:
            argv.append(arg.format_map({name: values[name] for name in names}))
    if missing:
        said = ", ".join("{" + name + "}" for name in missing)
        raise CommandNotRun(f"No {said} here")
    return tuple(argv)


def missing_values(run: str, values: Mapping[str, str]) -> list[str]:
    """The placeholders of `run` with no value in `values` (none: it can run here)."""
    names = [name for arg in shlex.split(run) for name in placeholders_in(arg)]
    return list(dict.fromkeys(name for name in names if not values.get(name)))


def command_line(argv: Iterable[str]) -> str:
    """The argument list as a shell would need it typed (each value shell-quoted): what the
    confirmation shows, exactly what runs."""
    return shlex.join(argv)


def child_environment(environ: Mapping[str, str], pass_env: Iterable[str] = ()) -> dict[str, str]:
    """The allow-listed part of `environ` and the command's own `pass_env` names (already
    refused when they name a secret); a value holding a registered secret is left out."""
    from paytui.logs import holds_secret

    wanted = set(pass_env)
    return {
        name: value
        for name, value in environ.items()
        if (name in PASSED or name.startswith(PASSED_PREFIXES) or name in wanted)
        and not holds_secret(value)
    }


def _first_text(*candidates: Any) -> str | None:
    for value in candidates:
        if isinstance(value, list | tuple):
            value = value[0] if value else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _extra(obj: Any, *names: str) -> Any:
    extra = getattr(obj, "model_extra", None) or {}
    return next((extra[name] for name in names if name in extra), None)


def values_of(subject: Any) -> dict[str, str]:
    """The placeholders' values an object on screen gives (a charge, a refund, a token, an
    account, a conversation, a journal entry): only what it shows, never guessed."""
    if subject is None:
        return {}
    values: dict[str, str] = {}
    for key in ("charge_id", "refund_id", "account_id", "merchant_id", "token_id", "status"):
        value = getattr(subject, key, None)
        if isinstance(value, str) and value:
            values[key] = value
    conversation = getattr(subject, "conversation_id", None) or getattr(subject, "id", None)
    if type(subject).__name__ == "JournalEntry":
        values["entry_id"] = str(subject.id)
    elif isinstance(conversation, str) and "conversation" in type(subject).__name__.lower():
        values["conversation_id"] = conversation
    fields = getattr(subject, "fields", None)
    if callable(fields) and "conversation_id" not in values:
        found = fields()
        if isinstance(found, Mapping) and isinstance(found.get("conversation_id"), str):
            values["conversation_id"] = found["conversation_id"]
    amount = getattr(subject, "total_amount", None)
    if amount is None and isinstance(getattr(subject, "amount", None), Decimal):
        amount = subject.amount
    if amount is not None:
        values["amount"] = str(amount)
    last4 = getattr(subject, "last4", None)
    if isinstance(last4, str) and last4:
        values["last4"] = last4
    method = getattr(subject, "payment_method", None)
    contact = getattr(method, "contact", None)
    payer = getattr(contact, "name", None)
    if isinstance(payer, str) and payer:
        values["customer_name"] = payer
    attributes = getattr(subject, "attributes", None) or {}
    email = _first_text(
        _extra(contact, "email", "email_address"),
        _extra(subject, "customer_email", "email"),
        *(attributes.get(key) for key in ("customer_email", "email", "contact_email")),
    )
    if email is not None:
        values["customer_email"] = email
    return values


@dataclass(frozen=True)
class Ran:
    """What a command did: its exit status (None: stopped at its timeout), its output."""

    argv: tuple[str, ...]
    exit_code: int | None
    output: str
    cut: bool
    seconds: float

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def headline(self, name: str) -> str:
        """One line: "NAME: exit 0 in 0.4 s", "NAME: stopped after 30 s (its timeout)"."""
        if self.exit_code is None:
            return f"{name}: stopped after {self.seconds:.0f} s (its timeout); output so far below"
        if self.exit_code < 0:
            return f"{name}: killed by signal {-self.exit_code} after {self.seconds:.1f} s"
        return f"{name}: exit {self.exit_code} in {self.seconds:.1f} s"


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def run_argv(
    argv: tuple[str, ...],
    *,
    timeout: float,
    env: Mapping[str, str],
    limit: int = OUTPUT_LIMIT,
) -> Ran:
    """Run `argv` (no shell) in its own process group, stdin closed, stdout and stderr together,
    at most `timeout` seconds; `CommandNotRun` when it cannot start. Cancelled (paytui leaving):
    the group is killed."""
    from paytui.logs import holds_secret

    if any(holds_secret(arg) for arg in argv):
        raise CommandNotRun("The command line would carry a secret of this session; not run")
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=dict(env),
            start_new_session=True,
        )
    except FileNotFoundError:
        raise CommandNotRun(f"{argv[0]}: no such program (PATH is searched)") from None
    except PermissionError:
        raise CommandNotRun(f"{argv[0]}: not allowed to run it (is it executable?)") from None
    except OSError as exc:
        raise CommandNotRun(f"{argv[0]}: could not start it ({exc.strerror or exc})") from None
    kept = bytearray()
    cut = False

    async def read_all() -> None:
        nonlocal cut
        assert process.stdout is not None
        while chunk := await process.stdout.read(16_384):
            room = limit - len(kept)
            if room > 0:
                kept.extend(chunk[:room])
            cut = cut or len(chunk) > room
        await process.wait()

    exit_code: int | None
    try:
        await asyncio.wait_for(read_all(), timeout)
        exit_code = process.returncode
    except TimeoutError:
        _kill(process)
        await process.wait()
        exit_code = None
    except BaseException:
        _kill(process)
        raise
    return Ran(argv, exit_code, kept.decode("utf-8", "replace"), cut, time.monotonic() - started)
