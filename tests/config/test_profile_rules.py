"""Profiles: the embedded sandbox's name is reserved; client ids and account ids are checked."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from paytui.config.model import Profile


@pytest.mark.parametrize("client_id", ["acme\nsupport", "acme support", "acme\x1b]2;x\x07", ""])
def test_client_ids_with_whitespace_or_controls_are_refused(client_id: str) -> None:
    with pytest.raises(ValidationError, match="client id"):
        Profile(base_url="https://api.example.com", client_id=client_id)


@pytest.mark.parametrize("account_id", ["pa_'; DROP", "pa_", "pa_abc def", "acct_123", "pa_x\n"])
def test_account_ids_are_pa_and_letters_and_digits(account_id: str) -> None:
    with pytest.raises(ValidationError, match="account id"):
        Profile(account_id=account_id)


def test_good_ids_pass() -> None:
    profile = Profile(
        base_url="https://api.example.com",
        client_id="acme-support.v2",
        account_id="pa_0123456789abcdefghij",
    )
    assert profile.client_id == "acme-support.v2"
