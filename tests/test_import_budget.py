"""The first paint's imports stay within their committed budget (`benchmarks/import_budget.py`).

Counting, not timing: a paytui module or a package pulled onto the path from `paytui` to its
first painted page of charges fails here on any machine, however fast.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmarks.import_budget import FirstPaintImports, load_budget, measure, over_budget

from paytui.commands import COMMAND_HELP
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET


def test_the_first_paint_imports_no_more_than_its_budget() -> None:
    found = measure()
    problems = over_budget(found, load_budget())
    assert not problems, (
        "Start-up imports grew:\n  "
        + "\n  ".join(problems)
        + "\nDefer it past the first page (docs/performance.md, start-up), or, if it must be"
        " there, accept it with `python -m benchmarks.import_budget --write` and say why."
    )
    # What the first page really needs is there (the probe measured the real path).
    assert {"paytui.ui.screens.charges", "paytui.ui.first_page", "textual"} <= found.modules
    # Not the client: a child process read the first page (`paytui.ui.first_page`).
    assert not {"paytui.api.client", "httpx"} & found.modules
    # Not the executor, the journal or the other screens: they come after the first page.
    assert not {"paytui.actions.executor", "paytui.actions.journal"} & found.modules
    assert "paytui.ui.screens.today" not in found.modules


def test_a_module_added_to_the_path_is_named() -> None:
    budget = load_budget()
    allowed = frozenset(budget["paytui_modules"])
    packages = {f"{p}.x" for p in budget["packages"]}
    grown = FirstPaintImports(allowed | packages | {"paytui.ui.screens.today", "numpy"}, {})
    assert over_budget(grown, budget) == [
        "paytui module on the first paint's path: paytui.ui.screens.today",
        "package on the first paint's path: numpy",
    ]
    padded = FirstPaintImports(
        allowed | {f"json.m{i}" for i in range(budget["module_count"])},
        {},
    )
    assert over_budget(padded, budget)[-1].endswith(f"budget {budget['module_count']} (+3%)")


# --- script commands: each imports only what it runs ---------------------------------------------

#: What no script command below needs: the screens, the table of operations (every operation's
#: module, the executor's), Today's queue; nor pydantic's search for plugins in every installed
#: package's entry points (`importlib.metadata`: `paytui.pydantic_plugins`); nor httpx's own
#: command line, which its package imports unless stubbed (`paytui.api.without_httpx_cli`).
NEVER = {
    "textual",
    "paytui.ui",
    "paytui.actions.operations",
    "paytui.actions.executor",
    "importlib.metadata",
    "click",
    "pygments",
    "rich",
}
PROXY_VARIABLES = frozenset({"http_proxy", "https_proxy", "all_proxy", "no_proxy"})
#: Run `paytui ARGS...` in a new process and write the modules it imported to a file.
_PROBE = (
    "import json, os, sys\n"
    "from paytui.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "with open(os.environ['PAYTUI_TEST_MODULES'], 'w') as out:\n"
    "    json.dump(sorted(sys.modules), out)\n"
    "built = {\n"
    "    models.__name__: sorted(\n"
    "        name for name, kind in vars(models).items()\n"
    "        if isinstance(kind, type) and getattr(kind, '__module__', '') == models.__name__\n"
    "        and getattr(kind, '__pydantic_complete__', False)\n"
    "    )\n"
    "    for models in map(sys.modules.get, ('paytui.config.model', 'paytui.api.models'))\n"
    "    if models is not None\n"
    "}\n"
    "with open(os.environ['PAYTUI_TEST_MODULES'] + '.built', 'w') as out:\n"
    "    json.dump(built, out)\n"
    "sys.exit(code)\n"
)


def imported_by(
    home: Path,
    *argv: str,
    extra_env: dict[str, str] | None = None,
    code: int = 0,
    demo_client: bool = True,
) -> set[str]:
    """The modules `paytui *argv` imported (it must exit `code`), in a new HOME; the sandbox's
    demo client in the environment when `demo_client`."""
    listing = home / "modules.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAYTUI_", "XDG_"))}
    # No proxy: a service on loopback is reached directly (a proxy is the client's to honour).
    env = {k: v for k, v in env.items() if k.lower() not in PROXY_VARIABLES}
    env |= {"HOME": str(home), "PAYTUI_TEST_MODULES": str(listing)} | (extra_env or {})
    if demo_client:
        env |= {"PAYTUI_CLIENT_ID": DEMO_CLIENT_ID, "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], env=env, capture_output=True, text=True
    )
    assert done.returncode == code, done.stderr
    return set(json.loads(listing.read_text()))


def models_built(home: Path, module: str = "paytui.config.model") -> list[str]:
    """The models of `module` whose validator the last `imported_by` in `home` built (pydantic's
    `defer_build`: a model's validator is built when it first validates)."""
    built: dict[str, list[str]] = json.loads((home / "modules.json.built").read_text())
    return built.get(module, [])


def under(modules: set[str], prefixes: set[str]) -> set[str]:
    return {m for m in modules if any(m == p or m.startswith(f"{p}.") for p in prefixes)}


def test_history_reads_the_journal_without_the_operations_the_client_or_its_models(
    tmp_path: Path,
) -> None:
    found = imported_by(
        tmp_path, "history", "--limit", "1", "--action", "refund", demo_client=False
    )
    assert "paytui.actions.journal" in found  # it did read the trail
    # (`httpx._main` is only the stand-in of `paytui.api.without_httpx_cli`, not httpx.)
    never = NEVER | {"paytui.today.queue", "paytui.api.models", "httpx"}
    assert not under(found, never) - {"httpx._main"}
    # A local read waits on nothing: no event loop, so no asyncio (`handlers.without_loop`).
    assert "asyncio" not in found
    # No config file and no variable that chooses the connection: it is the embedded sandbox
    # with every default, so the journal is found without the config's models or pydantic
    # (`config.environment.every_default`; `pydantic.plugin._loader` is only the stand-in of
    # `paytui.pydantic_plugins`).
    pydantic = {"pydantic.main", "pydantic_core", "paytui.config.model", "paytui.config.connection"}
    assert not under(found, pydantic)


def test_history_still_checks_what_the_environment_says_of_the_journal(tmp_path: Path) -> None:
    """A variable of the team's (`TEAM_VARS`) takes history the whole way: it is checked."""
    agent = {"PAYTUI_AGENT": "a\tb"}
    imported_by(tmp_path, "history", "--limit", "1", extra_env=agent, code=3, demo_client=False)
    journal = tmp_path / "team.sqlite3"
    named = {"PAYTUI_JOURNAL_URL": f"sqlite:{journal}"}
    found = imported_by(tmp_path, "history", "--limit", "1", extra_env=named, demo_client=False)
    assert journal.exists()  # the journal the environment named was the one read
    assert "paytui.config.connection" in found


def test_history_reads_a_config_file_without_its_models(tmp_path: Path) -> None:
    """A config file whose profiles name no journal: the trail is this person's own file
    whatever its values (`config.environment.own_journal`), so none of them is validated."""
    config = tmp_path / ".config" / "paytui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('default_profile = "sandbox"\n[ui]\nclaim_lease_seconds = 60\n')
    found = imported_by(tmp_path, "history", "--limit", "1", demo_client=False)
    assert "paytui.actions.journal" in found  # it did read the trail
    pydantic = {"pydantic.main", "pydantic_core", "paytui.config.model", "paytui.config.connection"}
    assert not under(found, pydantic)


def test_a_config_file_builds_the_validators_of_its_own_tables_only(tmp_path: Path) -> None:
    config = tmp_path / ".config" / "paytui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('default_profile = "sandbox"\n[ui]\nclaim_lease_seconds = 60\n')
    # A profile's trail is found through the config (`journal_of`): the file is validated.
    imported_by(tmp_path, "history", "--profile", "sandbox", "--limit", "1")
    built = set(models_built(tmp_path))
    assert "UiPrefs" in built  # the file's [ui] was validated
    assert not built & {"TodayPrefs", "PulsePrefs", "EvidencePrefs", "UserCommand", "Profile"}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from benchmarks.loopback_details import served

    from paytui.sandbox.seed import build_database

    db = tmp_path_factory.mktemp("service") / "sandbox.db"
    build_database(db, charges=20)
    with served(db) as base_url:
        yield base_url


def test_charges_show_reads_the_charge_without_the_client_its_models_or_a_loop(
    tmp_path: Path, service: str
) -> None:
    """A service named by `--base-url` and the environment alone: the charge is read with the
    standard library and shown from a `ChargeLine` (`plainly.charges_show_plainly`)."""
    found = imported_by(tmp_path, "charges", "show", first_charge(service), "--base-url", service)
    assert {"paytui.api.plain", "paytui.api.rows"} <= found  # it did ask the service
    never = NEVER | {"paytui.today.queue", "paytui.actions.journal", "paytui.api.client"}
    never |= {"httpx", "httpcore", "anyio", "asyncio", "pydantic", "pydantic_core"}
    never |= {"paytui.api.models", "paytui.config.model", "paytui.config.connection"}
    # (`httpx._main` and `pydantic.plugin._loader` are only the stand-ins of `paytui.cli`.)
    assert not under(found, never) - {"httpx._main", "pydantic.plugin._loader"}


def test_the_embedded_sandbox_s_charge_is_shown_without_the_client_or_its_models(
    tmp_path: Path,
) -> None:
    """No URL, no config, no variable: the embedded sandbox with every default, read over its
    socket (`commands.runtime.read_embedded`); a private server (no warm one left behind)."""
    private = {"PAYTUI_SANDBOX_IDLE": "0"}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAYTUI_", "XDG_"))}
    found = subprocess.run(
        [
            sys.executable,
            "-m",
            "paytui.cli",
            "charges",
            "search",
            "--limit",
            "1",
            "--format",
            "json",
        ],
        env=env | {"HOME": str(tmp_path)} | private,
        capture_output=True,
        text=True,
        check=True,
    )
    charge = json.loads(found.stdout)[0]["charge_id"]
    modules = imported_by(tmp_path, "charges", "show", charge, extra_env=private, demo_client=False)
    assert {"paytui.api.plain", "paytui.sandbox.embedded"} <= modules  # it did ask the sandbox
    never = NEVER | {"paytui.api.client", "paytui.api.models", "paytui.config.model"}
    never |= {"httpx", "httpcore", "anyio", "asyncio", "pydantic", "pydantic_core"}
    assert not under(modules, never) - {"httpx._main", "pydantic.plugin._loader"}


def test_charges_show_as_json_reads_the_charge_through_the_client(
    tmp_path: Path, service: str
) -> None:
    charge = first_charge(service)
    found = imported_by(
        tmp_path, "charges", "show", charge, "--base-url", service, "--format", "json"
    )
    assert "paytui.api.client" in found  # the model writes the charge as the service sent it
    assert not under(found, NEVER | {"paytui.today.queue", "paytui.actions.journal"})
    # One charge read: the charge's validator (and the token's) built, no list's, no other's.
    assert models_built(tmp_path, "paytui.api.models") == ["Charge", "TokenInfo"]


def test_an_export_of_every_charge_reads_no_search_language(tmp_path: Path, service: str) -> None:
    found = imported_by(
        tmp_path, "export", "--output", str(tmp_path / "all.csv"), "--base-url", service
    )
    assert "paytui.api.client" in found  # it did read the charges
    assert not under(found, NEVER | {"paytui.search", "paytui.actions.journal"})


def first_charge(base_url: str) -> str:
    from paytui.api.client import PaymentClient

    async def first() -> str:
        async with PaymentClient(
            base_url, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET
        ) as client:
            page = await client.search_charges_page(None, limit=1, offset=0)
        return str(page.items[0].charge_id)

    return asyncio.run(first())


@pytest.mark.parametrize("command", list(COMMAND_HELP))
def test_a_command_builds_only_its_own_parser_and_its_help_is_whole(command: str) -> None:
    from paytui.commands import BUILDERS, build_parser

    whole = build_parser(every=True)
    alone = build_parser(command)
    # Every command is listed with its line, whichever was built.
    assert alone.format_help() == whole.format_help()
    assert set(COMMAND_HELP) == set(BUILDERS)

    def own_help(parser: argparse.ArgumentParser) -> str:
        with pytest.raises(SystemExit), contextlib.redirect_stdout(io.StringIO()) as out:
            parser.parse_args([command, "--help"])
        return out.getvalue()

    assert own_help(alone) == own_help(whole)


def test_the_names_of_the_operations_are_the_tables() -> None:
    from paytui.actions.operation_names import SHORT_NAMES
    from paytui.actions.operations import OPERATIONS

    assert {name: spec.short for name, spec in OPERATIONS.items()} == SHORT_NAMES
