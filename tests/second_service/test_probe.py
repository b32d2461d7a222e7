"""`paytui profile probe NAME [--write]` against the second service (issue 23).

Each test sets the second service to make other choices where the spec says "not shown" and
checks that the probe finds them out from the service's answers alone (reads only), says each in
one line, and stores in the profile only what the answers prove.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest

from paytui.api.probe import probe
from paytui.commands.probe import cli, main
from paytui.commands.runtime import Exit, Io
from paytui.config import files, load_config
from tests.second_service.app import CLIENT_SECRET, SecondService
from tests.second_service.fixtures import PROFILE_ENV, client_for, profile_clients, write_profile

Make = Callable[..., SecondService]
TOKEN_PATH = "/v2/services/oauth2/token"


def _probe(service: SecondService, *argv: str, env: dict[str, str] | None = None) -> Any:
    out, err = io.StringIO(), io.StringIO()
    code = main(
        argv[0] if argv else "second",
        write="--write" in argv,
        io=Io(out=out, err=err),
        environ=PROFILE_ENV if env is None else env,
        clients=profile_clients(service),
    )
    return code, out.getvalue(), err.getvalue()


def test_the_probe_finds_another_service_out_and_stores_it_only_when_asked(make: Make) -> None:
    """A service that takes the credentials as form fields only, pages by `page`/`per_page`
    (echoing nothing), refuses unknown query parameters and applies only `status` and
    `account_id`: each is found and said in one line; nothing is written without `--write`;
    with it, `token_auth`, `paging` and the refused filters go into the profile, its comments
    and the other profile kept; then a second probe has nothing to store. Only the token
    request is a POST, and the secret is never printed."""
    service = make(
        auth="form",
        paging="page",
        echo_paging=False,
        unknown_params="reject",
        applied_filters=frozenset({"status", "account_id"}),
    )
    path = write_profile()
    before = path.read_text()
    other = load_config().config.profiles["other"]

    code, out, err = _probe(service)
    assert code == Exit.OK, err
    lines = out.splitlines()
    for expected in (
        "credentials: the token endpoint accepts the client id and secret as form fields"
        " (HTTP Basic refused)",
        "paging: page/per_page works",
        "filter status: applied",
        "filter account_id: applied",
        "filter contact_name: refused as unknown",
    ):
        assert any(line.strip().startswith(expected) for line in lines), (expected, out)
    assert any(line.strip().startswith("unknown parameters: refused (400") for line in lines)
    assert "Not written" in out and path.read_text() == before

    code, out, err = _probe(service, "second", "--write")
    assert code == Exit.OK and "Stored in" in out, err
    result = load_config()
    assert result.problems == []
    stored = result.config.profiles["second"]
    assert (stored.token_auth, stored.paging) == ("form", "page")
    names = stored.parameters.names()
    assert names["contact_name"] is None and names["last4"] is None
    assert "status" not in names and "account_id" not in names  # applied: paytui's own names
    assert "# its address" in path.read_text()
    assert result.config.profiles["other"] == other

    code, out, _ = _probe(service)
    assert code == Exit.OK and "Nothing to store" in out
    assert {(seen.method, seen.path) for seen in service.seen} == {
        ("POST", TOKEN_PATH),
        ("GET", "/v2/charges"),
    }
    assert CLIENT_SECRET not in out + err


@pytest.mark.parametrize(
    ("options", "listing", "paging", "style"),
    [
        pytest.param(
            {"paging": "ignore"},
            "rows under 'data', a count under 'total' (126); asked for 2, got 25",
            "ignored: every page asked for is the first one",
            None,
            id="ignores-paging",
        ),
        pytest.param(
            {"paging": "cursor", "count_key": None, "envelope": "nested"},
            "rows under 'data.charges', no count",
            "by its next link",
            None,
            id="next-link",
        ),
        pytest.param(
            {"envelope": "bare", "count_key": "count"},
            "rows as a bare list, no count",
            "limit/offset works",
            "offset",
            id="bare-offset",
        ),
        pytest.param(
            {"envelope": "content", "count_key": "total_count", "paging": "page"},
            "rows under 'content', a count under 'total_count' (126)",
            "page/per_page works",
            "page",
            id="page-echoed",
        ),
    ],
)
async def test_the_list_and_its_paging(
    make: Make, options: dict[str, Any], listing: str, paging: str, style: str | None
) -> None:
    """Where the rows and the count are and how the list pages, from the answers alone; a
    filter the service ignores (`account_id`) is said and not to be sent, `status` applied."""
    service = make(**options)
    report = await probe(lambda **kw: client_for(service, **kw), oauth=True)
    said = {str(finding) for finding in report.findings}
    assert any(line.startswith(f"list: {listing}") for line in said), said
    assert any(line.startswith(f"paging: {paging}") for line in said), said
    assert report.paging == style
    assert report.parameters["status"] == "status"
    assert report.parameters["account_id"] is None
    assert "unknown parameters: ignored (paytui_probe_unknown=1 was answered as a list)" in said


@pytest.mark.parametrize(
    ("name", "env", "code", "fragment"),
    [
        ("second", {"SECOND_SECRET": "not-the-secret"}, Exit.NOT_ALLOWED, "client credentials"),
        ("sandbox", {}, Exit.USAGE, "embedded sandbox"),
        ("nowhere", {}, Exit.CONFIG, "no such profile"),
    ],
)
def test_what_stops_a_probe_is_one_line_and_its_exit_code(
    make: Make, name: str, env: dict[str, str], code: int, fragment: str
) -> None:
    """Both credential styles refused (exit 4), the embedded sandbox (2), an unknown profile
    (3): one line on stderr, no secret, nothing written."""
    service = make()
    path = write_profile()
    before = path.read_text()
    got, out, err = _probe(service, name, env=env)
    assert got == code, err
    assert err.count("\n") == 1 and err.startswith("paytui profile probe: error: ")
    assert fragment in err
    assert "not-the-secret" not in out + err
    assert path.read_text() == before


def test_a_usage_mistake(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["second", "--frobnicate"]) == Exit.USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unrecognized arguments" in err
    assert not files.config_path().exists()


@pytest.fixture
def make(second_service: Make) -> Make:
    return second_service
