"""Each speed patch of the suite is listed once and can be switched off."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import speed_patches

TESTS = Path(__file__).resolve().parent


def test_every_patch_listed_is_applied_under_its_switch_and_none_other() -> None:
    asked = set()
    for path in TESTS.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        asked |= set(re.findall(r"speed_patches\.enabled\(\"(\w+)\"\)", text))
    assert asked == set(speed_patches.PATCHES)


@pytest.mark.parametrize("name", sorted(speed_patches.PATCHES))
def test_each_patch_is_switched_off_by_its_variable_or_all_at_once(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(speed_patches.AS_SHIPPED, raising=False)
    for other in speed_patches.PATCHES:
        monkeypatch.delenv(speed_patches.variable(other), raising=False)
    assert speed_patches.enabled(name)
    monkeypatch.setenv(speed_patches.variable(name), "1")
    assert not speed_patches.enabled(name)
    assert all(speed_patches.enabled(o) for o in speed_patches.PATCHES if o != name)
    monkeypatch.delenv(speed_patches.variable(name))
    monkeypatch.setenv(speed_patches.AS_SHIPPED, "1")
    assert not any(speed_patches.enabled(o) for o in speed_patches.PATCHES)
