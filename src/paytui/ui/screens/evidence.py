"""`E` on a chargeback: its evidence pack (docs/evidence.md), read whole in one worker and shown
as structured text (`pack_text`: the same title, case, score, checklist and sections, in the
same order, as the Markdown the command line prints, without its markup or escapes; every text
through the display sanitiser); `x` saves it (Markdown, JSON and PDF, private files in the
documents directory).

What is read, how the pack is arranged and checked is `paytui.evidence`; whether a charge has a
case at all is the action registry's rule (`evidence`), the same one `paytui evidence` applies.
"""

from __future__ import annotations

from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from paytui.text import safe
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader

if TYPE_CHECKING:
    from paytui.evidence.pack import Pack

EVIDENCE_BINDINGS: list[Binding] = [
    Binding(
        "x",
        "export",
        "Export",
        id="evidence.export",
        tooltip="Save the pack as Markdown, JSON and PDF in the documents directory (0600 files)",
    ),
    Binding("ctrl+r", "refresh", "Rebuild", id="evidence.refresh", tooltip="Read the case again"),
]


class EvidenceScreen(PaytuiScreen[None]):
    """One chargeback's evidence pack, arranged by what its reason asks for."""

    CSS_PATH = Path(__file__).with_name("evidence.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*EVIDENCE_BINDINGS]
    HELP_TITLE = "Evidence pack"
    AUTO_FOCUS = "#evidence-body"

    def __init__(self, charge_id: str) -> None:
        super().__init__()
        self.charge_id = charge_id
        self.pack: Pack | None = None

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(Text(f"Evidence pack of {safe(self.charge_id)}"), id="evidence-status")
        with VerticalScroll(id="evidence-body", can_focus=True):
            yield Static(Text("Reading the case…"), id="evidence-text")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.load()

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "export":
            return True if self.pack is not None else None
        return True

    def disabled_reason(self, action: str) -> str | None:
        if action == "export" and self.pack is None:
            return "The pack is still being read"
        return super().disabled_reason(action)

    def action_refresh(self) -> None:
        self.load()

    @work(exclusive=True, group="evidence-load")
    async def load(self) -> None:
        from paytui.evidence.case import attribute_keys
        from paytui.evidence.pack import NoChargeback, build_pack, read_case

        status = self.query_one("#evidence-status", Static)
        body = self.query_one("#evidence-text", Static)
        status.update(Text(f"Reading the case of {safe(self.charge_id)}…"))
        app = paytui_app(self)
        connection = app.session.connection
        keys = dict(connection.evidence.attribute_keys) if connection is not None else {}
        history: Any = None
        try:
            executor = await app.actions.executor()
        except Exception:  # the pack says its history could not be read
            executor = None
        if executor is not None:

            def history(charge_id: str) -> Any:
                return executor.journal.audit(
                    profile=executor.profile, base_url=executor.base_url, charge_id=charge_id
                )

        try:
            client = await self.app.get_client()
            case = await read_case(
                client,
                self.charge_id,
                history=history,
                element_keys=attribute_keys(keys, "element"),
                item_keys=attribute_keys(keys, "item"),
            )
        except NoChargeback as exc:
            status.update(Text(safe(str(exc))))
            body.update(Text(""))
            return
        except Exception as exc:
            status.update(Text("Could not read the case."))
            body.update(error_detail(exc))
            return
        self.pack = build_pack(case, app.now().astimezone(UTC))
        missing = len(self.pack.missing)
        required = len(self.pack.missing_required)
        words = f"{missing} item{'s' if missing != 1 else ''} missing"
        if required:
            words += f", {required} of them required: it would be refused"
        status.update(Text(f"Evidence pack of {safe(self.charge_id)}: {words}: x saves it."))
        body.update(pack_text(self.pack))
        self.refresh_bindings()

    def action_export(self) -> None:
        import platformdirs

        from paytui.evidence.render import save_pack

        if self.pack is None:
            return
        folder = Path(platformdirs.user_documents_dir())
        try:
            folder.mkdir(parents=True, exist_ok=True)
            written = save_pack(self.pack, folder)
        except FileExistsError:
            self.notify(f"This build is already saved in {folder}", markup=False)
            return
        except OSError as exc:
            self.notify(f"Could not save the pack: {exc}", severity="error", markup=False)
            return
        names = ", ".join(path.name for path in written)
        self.notify(f"Saved in {folder}: {names}", title="Evidence pack", markup=False)


#: The checklist's marks and their tones (present, missing, not applicable).
_MARK_TONES = {"present": "bold success", "missing": "bold warning", "not_applicable": "dim"}


def pack_text(pack: Pack) -> Text:
    """The pack as the screen shows it: headings, the checklist's marks in colour, the sections'
    lines as bullets; the same words and order as `paytui.evidence.render.to_markdown`, with no
    Markdown markup or escape to read through. Every text passes `safe` (rule 5) and is
    appended as plain text, never parsed as markup."""
    from paytui.evidence.render import MARKS, WORDS, built_line, score_line
    from paytui.ui import format as fmt

    text = Text()

    def line(words: str, tone: str = "", indent: str = "") -> None:
        text.append(indent)
        text.append(safe(words), fmt.tone(tone) if tone else "")
        text.append("\n")

    line(pack.title, "bold")
    line(
        built_line(pack) + " by paytui, from the payment service's data and paytui's journal.",
        "dim",
    )
    text.append("\n")
    for words in pack.case_lines:
        line(words)
    text.append("\n")
    line("Checklist", "bold underline")
    line(score_line(pack), "bold warning" if pack.missing_required else "bold")
    for item in pack.checklist:
        text.append("  ")
        text.append(MARKS[item.status], fmt.tone(_MARK_TONES[item.status]))
        text.append(" " + safe(item.label))
        if item.required:
            text.append(" (required)", fmt.tone("bold"))
        text.append(f": {WORDS[item.status]}, {safe(item.detail)}\n")
    for number, section in enumerate(pack.sections, start=1):
        text.append("\n")
        line(f"{number}. {section.title}", "bold underline")
        for words in section.lines:
            nested = words.startswith("  ")
            line(f"{'◦' if nested else '•'} {words.strip()}", indent="    " if nested else "  ")
    text.rstrip()
    return text
