"""The UI launcher's connection part: argument handling, import order, sandbox lifecycle."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.config import client_kwargs, resolve_connection
from paytui.config.cli import main as profile_main
from paytui.ui import launch

SRC = Path(__file__).resolve().parents[2] / "src"


def _one_line_error(capsys: pytest.CaptureFixture[str], code: int, fragment: str) -> None:
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("paytui: error: ")
    assert fragment in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch.main(["--version"]) == 0
    assert capsys.readouterr().out == "paytui 0.1.0\n"


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch.main(["--help"]) == 0
    assert "--profile NAME" in capsys.readouterr().out


def test_http_to_non_loopback_host_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = launch.main(["--base-url", "http://payments.example.com"])
    _one_line_error(capsys, code, "--base-url: plain http is only allowed for loopback")


def test_unknown_profile_and_usage_mistakes(capsys: pytest.CaptureFixture[str]) -> None:
    _one_line_error(capsys, launch.main(["--profile", "nope"]), "no such profile")
    _one_line_error(capsys, launch.main(["--frob"]), "unrecognized arguments")
    _one_line_error(capsys, launch.main(["--token", "abcd-secret"]), "never taken as command")


class FakeSandbox:
    base_url = "http://sandbox"
    reused = False  # a sandbox child just started, as `EmbeddedSandbox.start` says

    def __init__(self) -> None:
        self.socket_path = Path("/nonexistent/sandbox.sock")
        self.stopped = False
        self.waited: float | None = None
        self.textual_loaded_at_start = "textual" in sys.modules
        self.give_way = False

    @classmethod
    def start(cls, *, give_way: bool = False) -> FakeSandbox:
        cls.instance = cls()
        cls.instance.give_way = give_way
        return cls.instance

    def wait_ready(self, timeout: float = 30) -> None:
        self.waited = timeout

    def stop(self) -> None:
        self.stopped = True


class FakeApp:
    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.return_code = 0

    def run(self) -> None:
        raise RuntimeError("the app crashed")


def test_embedded_sandbox_is_stopped_even_when_the_app_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import paytui.sandbox.embedded as embedded

    built: list[Any] = []

    def fake_build_app(connection: Any, *, sandbox: Any = None, **kwargs: Any) -> FakeApp:
        if connection is None:  # a fresh machine's: resolved by the app after its first paint
            connection = kwargs["settle_connection"]()
        built.append((connection, sandbox))
        return FakeApp()

    monkeypatch.setattr(embedded, "EmbeddedSandbox", FakeSandbox)
    monkeypatch.setattr(launch, "build_app", fake_build_app)
    with pytest.raises(RuntimeError, match="the app crashed"):
        launch.main([])
    [(connection, sandbox)] = built
    assert connection.is_embedded
    assert sandbox is FakeSandbox.instance
    assert sandbox.give_way  # its start runs nicer than the UI (`paytui.sandbox.child`)
    assert sandbox.stopped


def test_the_collector_is_paused_for_the_start_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """`launch.main` pauses the cyclic collector until the app ends the start (its first page),
    and never switches on a collector that was off before (`paytui.collector`)."""
    seen: list[bool] = []

    def fake_build_app(connection: Any, *, sandbox: Any = None, **kwargs: Any) -> FakeApp:
        app = FakeApp(connection=connection)
        app.run = lambda: seen.append(gc.isenabled())  # type: ignore[method-assign]
        return app

    monkeypatch.setattr(launch, "build_app", fake_build_app)
    monkeypatch.setenv("PAYTUI_TOKEN", "launch-token-1234")
    assert launch.main(["--base-url", "https://api.example.com"]) == 0
    assert seen == [False] and gc.isenabled()  # the app did not end the start: main did
    gc.disable()
    try:
        assert launch.main(["--base-url", "https://api.example.com"]) == 0
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()


def test_remote_profile_does_not_start_the_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    import paytui.sandbox.embedded as embedded

    def no_start() -> None:
        raise AssertionError("the sandbox must not start for a remote profile")

    monkeypatch.setattr(embedded.EmbeddedSandbox, "start", staticmethod(no_start))
    apps: list[FakeApp] = []

    def fake_build_app(connection: Any, *, sandbox: Any = None, **kwargs: Any) -> FakeApp:
        assert sandbox is None
        app = FakeApp(connection=connection)
        app.run = lambda: None  # type: ignore[method-assign]
        apps.append(app)
        return app

    monkeypatch.setattr(launch, "build_app", fake_build_app)
    monkeypatch.setenv("PAYTUI_TOKEN", "launch-token-1234")
    assert launch.main(["--base-url", "https://api.example.com"]) == 0
    assert apps[0].kwargs["connection"].base_url == "https://api.example.com"


async def test_embedded_client_factory_waits_then_uses_the_socket() -> None:
    sandbox = FakeSandbox()
    connection = resolve_connection(environ={})
    client = await launch.client_factory_for(connection, sandbox=sandbox)()  # type: ignore[arg-type]
    try:
        assert sandbox.waited == launch.SANDBOX_READY_TIMEOUT
        assert client.base_url == "http://sandbox"
    finally:
        await client.aclose()
    with pytest.raises(ValueError, match="needs the started EmbeddedSandbox"):
        launch.client_factory_for(connection)


def test_build_app_passes_the_connection_through() -> None:
    from paytui.ui.app import PaytuiApp

    connection = resolve_connection(
        base_url="https://api.example.com", environ={"PAYTUI_TOKEN": "tok-abcdef"}
    )
    app = launch.build_app(connection)
    assert isinstance(app, PaytuiApp)
    assert app.environment == "production"
    assert app.profile_name == "(ad hoc)"


@pytest.mark.parametrize("reused", [False, True])
def test_nothing_heavy_is_imported_before_the_sandbox_starts(tmp_path: Path, reused: bool) -> None:
    """Textual (and FastAPI) must not be imported until the sandbox child has been spawned, nor
    pydantic until the app asks for the connection, the sandbox running (`reused`) or starting."""
    script = textwrap.dedent(
        """
        import sys
        import paytui.sandbox.embedded as embedded
        import paytui.ui.launch as launch

        seen = {}

        class Probe:
            base_url = "http://sandbox"
            socket_path = "/nonexistent"
            reused = REUSED
            @classmethod
            def start(cls, **kwargs):
                seen["textual"] = "textual" in sys.modules
                seen["fastapi"] = "fastapi" in sys.modules
                return cls()
            def stop(self):
                seen["stopped"] = True

        class App:
            def run(self):
                pass

        def build_app(connection, *, sandbox=None, settle_connection=None, **kwargs):
            seen["pydantic"] = "pydantic" in sys.modules
            if connection is None:  # resolved after the first paint, by the app
                connection = settle_connection()
            seen["embedded"] = connection.is_embedded
            import textual  # the real build_app imports the app here
            return App()

        embedded.EmbeddedSandbox = Probe
        launch.build_app = build_app
        code = launch.main([])
        print(code, seen)
        """
    ).replace("REUSED", str(reused))
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(SRC),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    done = subprocess.run(
        # A hang's bound only: at load 28 one run printed its answer and took more than 30 s
        # to end (the interpreter's exit, on a process getting a sliver of a core).
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "0 {'textual': False, 'fastapi': False, 'pydantic': False, 'embedded': True, "
        "'stopped': True}"
    )


async def test_profile_add_then_connect_with_oauth(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sandbox_transport: httpx.ASGITransport,
) -> None:
    """`paytui profile add prod ... --client-id` then `--profile prod` gets an OAuth token."""
    from paytui.api.client import PaymentClient
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    monkeypatch.setattr("getpass.getpass", lambda prompt="": DEMO_CLIENT_SECRET)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    code = profile_main(
        ["add", "prod", "--base-url", "http://127.0.0.1:8765", "--client-id", DEMO_CLIENT_ID,
         "--scope", "urn:v2:charges:all"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    connection = resolve_connection(profile="prod", environ={})
    assert connection.is_production
    async with PaymentClient(**client_kwargs(connection), transport=sandbox_transport) as client:
        info = await client.authenticate()
        assert info is not None
        assert client.granted_scopes == frozenset({"urn:v2:charges:all"})


def test_the_help_names_every_script_command() -> None:
    """`paytui --help` is where a newcomer finds the commands: none may be left out."""
    from paytui.cli import SCRIPT_COMMANDS
    from paytui.ui.launch import build_parser

    listed = " ".join(build_parser().format_help().split()).split("COMMAND one of ", 1)[1]
    assert [name for name in SCRIPT_COMMANDS if name not in listed.split(" (")[0].split(", ")] == []
