"""Saved searches and the remembered theme are written with tomlkit: the user's comments stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from paytui.config.searches import (
    delete_search,
    remember_theme,
    rename_search,
    save_search,
    saved_searches,
)
from paytui.config.store import ConfigError, load_config

COMMENTED = """\
# my paytui config: keep this comment
[ui]
refresh_interval = 20  # slower, please

[searches]
# morning checks
"chargebacks this week" = "status:chargeback from:7d"
"""


def test_save_rename_delete_keep_the_users_comments(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    assert save_search(" vip refunds ", "tag:vip type:sale", path) == "vip refunds"
    assert saved_searches(path) == {
        "chargebacks this week": "status:chargeback from:7d",
        "vip refunds": "tag:vip type:sale",
    }
    assert rename_search("vip refunds", "vip", path) == "vip"
    with pytest.raises(ConfigError, match="exists already"):
        rename_search("vip", "chargebacks this week", path)
    with pytest.raises(ConfigError, match="No saved search"):
        rename_search("nope", "x", path)
    with pytest.raises(ConfigError, match="A name is"):
        save_search("", "tag:x", path)
    assert delete_search("chargebacks this week", path) and not delete_search("gone", path)
    remember_theme("paytui-high-contrast", path)
    text = path.read_text()
    for kept in ("# my paytui config: keep this comment", "# slower, please", "# morning checks"):
        assert kept in text
    loaded = load_config(path)
    assert loaded.problems == []
    assert loaded.config.searches == {"vip": "tag:vip type:sale"}
    assert loaded.config.ui.theme == "paytui-high-contrast"
    assert loaded.config.ui.refresh_interval == 20


def test_a_search_that_is_not_text_is_reported_and_left_out(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[searches]\nok = "tag:a"\nbad = 3\n')
    loaded = load_config(path)
    assert loaded.config.searches == {"ok": "tag:a"}
    (problem,) = loaded.problems
    assert problem.line == 3 and "searches.bad must be a query" in problem.message
