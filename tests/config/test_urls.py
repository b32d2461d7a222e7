"""The base-URL policy: https everywhere except loopback; no credentials or query in the URL."""

from __future__ import annotations

import pytest

from paytui.config.urls import UrlPolicyError, check_base_url, is_loopback_host


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://api.example.com", "https://api.example.com"),
        ("https://api.example.com/", "https://api.example.com"),
        ("HTTPS://API.Example.com:8443/pay/", "https://api.example.com:8443/pay"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("http://127.5.6.7", "http://127.5.6.7"),
        ("http://localhost:9000/", "http://localhost:9000"),
        ("http://[::1]:8000", "http://[::1]:8000"),
    ],
)
def test_accepted_urls(url: str, expected: str) -> None:
    assert check_base_url(url) == expected


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("http://api.example.com", "plain http is only allowed for loopback"),
        ("http://10.0.0.5:8000", "plain http is only allowed for loopback"),
        ("http://localhost.evil.example", "plain http is only allowed for loopback"),
        ("http://127.0.0.1.evil.example", "plain http is only allowed for loopback"),
        ("http://0.0.0.0:8000", "plain http is only allowed for loopback"),
        ("https://user:pw@api.example.com", "must not contain credentials"),
        ("https://api.example.com?token=abc", "must not contain a query"),
        ("https://api.example.com/#x", "fragment"),
        ("ftp://api.example.com", "must start with https://"),
        ("api.example.com", "must start with https://"),
        ("https://", "no host"),
        ("https://api.example.com:99999", "invalid port"),
        ("", "empty"),
        ("https://api.example.com/a b", "whitespace"),
    ],
)
def test_refused_urls(url: str, fragment: str) -> None:
    with pytest.raises(UrlPolicyError, match=fragment.replace("?", r"\?")):
        check_base_url(url)


def test_credentials_in_refused_url_are_not_echoed() -> None:
    with pytest.raises(UrlPolicyError) as info:
        check_base_url("https://user:s3cretpass@api.example.com")
    assert "s3cretpass" not in str(info.value)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("127.0.0.1", True),
        ("::1", True),
        ("[::1]", True),
        ("example.com", False),
        ("192.168.1.1", False),
        ("localhost.example", False),
    ],
)
def test_is_loopback_host(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback
