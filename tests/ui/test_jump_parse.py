"""The `:` jump line's grammar and completion (`paytui.ui.jump`, pure: no app needed)."""

from __future__ import annotations

import pytest

from paytui.ui.jump import Jump, JumpError, complete_jump, parse_jump


def test_commands_and_their_arguments() -> None:
    assert parse_jump(":charge ch_1") == Jump("charge", "ch_1")
    assert parse_jump("charges status:chargeback tag:vip") == Jump(
        "charges", "status:chargeback tag:vip"
    )
    assert parse_jump(":acc pa_9") == Jump("account", "pa_9")  # an unambiguous prefix
    assert parse_jump(":h") == Jump("history")
    assert parse_jump(":saved morning checks") == Jump("saved", "morning checks")
    for bad, said in (
        (":", "Type a command"),
        (":char x", "could be :charge or :charges"),
        (":nope", "No command 'nope'"),
        (":charge", "needs an id"),
        (":token a b", "takes one id"),
        (":history now", "takes nothing"),
    ):
        with pytest.raises(JumpError, match=said):
            parse_jump(bad)


def test_completion_of_commands_saved_names_and_queries() -> None:
    assert complete_jump(":hi") == ":history "
    assert complete_jump(":ch") is None  # charge or charges
    assert complete_jump(":sav") == ":saved "
    assert complete_jump(":saved mo", saved=["morning", "vip"]) == ":saved morning"
    assert complete_jump(":charges sta", query_completion=["status:"]) == ":charges status:"
    assert complete_jump(":charge ") is None
