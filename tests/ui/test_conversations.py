"""A conversation from a charge and from its customer (`K`), read as a thread (oldest first, who
said what, when, every text through the sanitiser), replied to after a review of the exact text
and closed, each write once through the executor."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from textual.widgets import Button

from paytui.api.conversations import ThreadEntry, closed_state, conversation_id_of
from paytui.customer import CustomerKey
from paytui.ui.screens.conversation import ConversationScreen, entry_text
from paytui.ui.screens.conversations import ConversationsScreen
from paytui.ui.screens.customer import CustomerScreen
from paytui.ui.screens.modals.conversation import CloseConversationModal, ReplyModal
from tests.ui.conftest import screen_text, settle
from tests.ui.test_charge_detail import AppFactory, open_detail


def test_a_line_is_shown_as_data() -> None:
    hostile = ThreadEntry(
        at=datetime(2026, 10, 2, 9, 10, tzinfo=UTC),
        who="[bold red]Mallory[/]",
        side="customer",
        text="Hi\x1b[2J\n[link=x]there[/link]",
    )
    text = entry_text(hostile).plain
    assert text.splitlines() == [
        "2026-10-02 09:10:00  [bold red]Mallory[/] · customer",
        "    Hi␛[2J",
        "    [link=x]there[/link]",
    ]
    # What a customer's list says about itself carries the service's error text: shown too.
    screen = ConversationsScreen(customer=CustomerKey("name", "Ana"))
    screen.notes = ["customers could not be read (\x1b]52;c;cm0gLXJm\x07 \u202egpj.exe)"]
    for said in (screen.status_note(), screen.empty_text()):
        assert "\x1b" not in said and "\x07" not in said and "\u202e" not in said
        assert "␛]52;c;cm0gLXJm␇ \ufffdgpj.exe" in said


def test_a_channel_dated_beyond_the_calendar_is_a_row_not_a_crash() -> None:
    """Year 9999 west of UTC has no UTC form: the families browser's row shows the time as the
    service wrote it instead of failing on it (`fmt.timestamp`)."""
    from paytui.api.families import FAMILIES, GenericObject
    from paytui.ui.screens.families import row_cells

    channel = GenericObject.model_validate(
        {"channel_id": "ch_1", "name": "Web chat", "created_timestamp": "9999-12-31T23:59:59-23:59"}
    )
    cells = [cell.plain for cell in row_cells(channel, FAMILIES["channels"])]
    assert cells[:2] == ["ch_1", "Web chat"]
    assert cells[3] == "9999-12-31 23:59:59-23:59"


def test_k_is_greyed_for_a_token_that_may_not_read_conversations() -> None:
    from types import SimpleNamespace

    from paytui.ui.screens.conversations import may_read

    def host(scopes: frozenset[str] | None) -> Any:
        return SimpleNamespace(connected_client=SimpleNamespace(granted_scopes=scopes))

    assert may_read(host(frozenset({"urn:v2:conversations:all"}))) is True
    assert may_read(host(None)) is True  # scopes unknown (a static token): let it try
    assert may_read(host(frozenset({"urn:v2:charges:all"}))) is None  # greyed, with the scope


async def test_from_a_charge_read_reply_and_close(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        page = await client.list_conversations_page(status="open", limit=100)
        conversation = next(c for c in page.items if "chargeback" in c.fields()["tags"])
        cid = conversation_id_of(conversation)
        assert cid is not None
        charge_id = conversation.fields()["charge_id"]

        await open_detail(app, pilot, charge_id)
        await pilot.press("K")
        await settle(app, pilot)
        assert isinstance(app.screen, ConversationsScreen)
        assert app.screen.items and conversation_id_of(app.screen.items[0]) == cid
        await pilot.press("enter")
        await settle(app, pilot)
        thread = app.screen
        assert isinstance(thread, ConversationScreen) and thread.thread is not None
        stamps = [entry.at for entry in thread.thread.entries]
        assert stamps == sorted(stamps)  # type: ignore[type-var]
        shown = screen_text(app)
        assert "· customer" in shown and "Chargeback" in shown
        # Our side's name keeps its own aside, and the side is not a second one (issue 44).
        assert "Sam (support) · us" in shown and "(support) (us)" not in shown

        # Reply: the text as typed, reviewed exactly, sent once on enter.
        await pilot.press("l")
        await settle(app, pilot)
        assert isinstance(app.screen, ReplyModal)
        assert "ctrl+s reviews it" in screen_text(app)  # enter is a new line: the way on is said
        await pilot.press(*"We sent the receipt.", "enter", *"Sam")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        review = screen_text(app)
        assert "│ We sent the receipt." in review and "│ Sam" in review
        await pilot.press("enter")
        await settle(app, pilot)
        modal: Any = app.screen
        assert modal.outcome is not None and modal.outcome.succeeded
        await pilot.press("escape")
        await settle(app, pilot)
        assert thread.thread.entries[-1].text == "We sent the receipt.\nSam"

        # Close: confirmed, sent once; the thread then says so and a reply is off.
        await pilot.press("Z")
        await settle(app, pilot)
        assert isinstance(app.screen, CloseConversationModal)
        buttons = [str(b.label) for b in app.screen.query(Button) if b.display]
        assert "Cancel" in buttons and "Close" not in buttons  # not two "Close"s
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen.outcome is not None and app.screen.outcome.succeeded  # type: ignore[attr-defined]
        # Done: nothing is left to cancel, so the one button says what it does (issue 44).
        buttons = [str(b.label) for b in app.screen.query(Button) if b.display]
        assert buttons == ["Close"], buttons
        await pilot.press("escape")
        await settle(app, pilot)
        assert thread.conversation is not None and closed_state(thread.conversation) is True
        assert thread.disabled_reason("reply") == "The conversation is closed"
        assert thread.thread.entries[-1].kind == "event"

        # The same conversation from its customer's screen.
        name = conversation.fields()["participants"][0]["name"]
        await app.push_screen(CustomerScreen(CustomerKey("name", name)))
        await settle(app, pilot)
        await pilot.press("K")
        await settle(app, pilot)
        assert isinstance(app.screen, ConversationsScreen)
        assert cid in [conversation_id_of(c) for c in app.screen.items]


def test_a_one_megabyte_message_is_folded_with_its_size_said() -> None:
    """Issue 44: a 1 MB body from the service froze the dashboard for 7.4 s while it was laid
    out. What one message shows is capped; the rest is said with its size, never dropped in
    silence (the thread keeps the text whole for `paytui messages list`)."""
    from paytui.ui.screens.conversation import SHOWN_CHARACTERS, SHOWN_LINES

    body = "x" * 1_000_000
    entry = ThreadEntry(at=None, who="Ana", side="customer", text=body)
    shown = entry_text(entry).plain
    assert len(shown) < SHOWN_CHARACTERS + 200
    assert f"… {1_000_000 - SHOWN_CHARACTERS:,} more characters not shown here" in shown
    assert entry.text == body  # the data is kept whole
    lines = "\n".join(f"line {n}" for n in range(5_000))
    shown = entry_text(ThreadEntry(at=None, who="Ana", side="customer", text=lines)).plain
    assert "    line 199" in shown and "line 200\n" not in shown and "more characters" in shown
    assert len(shown.splitlines()) <= SHOWN_LINES + 2
