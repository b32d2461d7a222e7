"""An evidence pack as Markdown, JSON or PDF, and the check before the one submission.

Every format holds the same title, case, checklist and sections, in the same order; only the
line that says when the pack was built (`built_line`) depends on when it was built (the PDF's
creation date is that moment too). The texts are the pack's, already cleaned
(`paytui.evidence.pack.clean`): nothing here reads the service.

The PDF is drawn with fpdf2's core font (Helvetica, Latin-1): a character outside it is written
as "?" (`_latin1`), so a name in another script still lays out; the Markdown and JSON keep it.

`check` measures the pack as it would be submitted (its PDF: bytes and pages; its text:
characters; files: the pack and every attachment named) against `EvidencePrefs`' limits.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paytui.evidence.pack import MISSING, NOT_APPLICABLE, PRESENT, Pack

if TYPE_CHECKING:
    from paytui.config.model import EvidencePrefs

__all__ = [
    "Check",
    "built_line",
    "check",
    "save_pack",
    "score_line",
    "to_json",
    "to_markdown",
    "to_pdf",
    "write_private",
]

#: The checklist's marks, in every format.
MARKS = {PRESENT: "[x]", MISSING: "[ ]", NOT_APPLICABLE: "[-]"}
WORDS = {PRESENT: "present", MISSING: "missing", NOT_APPLICABLE: "not applicable"}


def built_line(pack: Pack) -> str:
    """The one line that differs between two builds of the same case."""
    return f"Built at {pack.built_at.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


def score_line(pack: Pack) -> str:
    """ "Score: checklist 7/10; missing (required): Proof of delivery" (every format)."""
    return f"Score: {pack.score.line()}"


def _check_line(item: Any) -> str:
    required = " (required)" if item.required else ""
    return f"{MARKS[item.status]} {item.label}{required}: {WORDS[item.status]}, {item.detail}"


def to_markdown(pack: Pack) -> str:
    lines = [
        f"# {pack.title}",
        "",
        built_line(pack) + " by paytui, from the payment service's data and paytui's journal.",
        "",
        *(f"- {line}" for line in pack.case_lines),
        "",
        "## Checklist",
        "",
        _md(score_line(pack)),
        "",
        *(f"- {_check_line(item)}" for item in pack.checklist),
    ]
    for number, section in enumerate(pack.sections, start=1):
        lines += ["", f"## {number}. {section.title}", ""]
        for line in section.lines:
            indent = "  " if line.startswith("  ") else ""
            lines.append(f"{indent}- {_md(line.strip())}")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Text as Markdown shows it, not as markup: the characters that would format escaped."""
    for char in "\\`*_[]<>#|":
        text = text.replace(char, "\\" + char)
    return text


def to_json(pack: Pack) -> str:
    body = {
        "format": "paytui-evidence/1",
        "built_at": pack.built_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "charge_id": pack.charge_id,
        "title": pack.title,
        "reason_code": pack.reason_code,
        "category": pack.category,
        "dispute": pack.dispute,
        "case": list(pack.case_lines),
        "checklist": [
            {
                "key": item.key,
                "label": item.label,
                "status": item.status,
                "required": item.required,
                "detail": item.detail,
            }
            for item in pack.checklist
        ],
        "score": {
            "present": pack.score.present,
            "missing": pack.score.missing,
            "required_missing": list(pack.score.required_missing),
            "line": pack.score.line(),
        },
        "sections": [
            {"key": s.key, "title": s.title, "lines": list(s.lines)} for s in pack.sections
        ],
        "priors": [
            {
                "charge_id": prior.charge_id,
                "charge_timestamp": prior.charge_timestamp,
                "amount": prior.amount,
                "same": list(prior.same),
                "matches": list(prior.matches),
                "ce3": prior.ce3,
            }
            for prior in pack.priors
        ],
        "priors_best": list(pack.priors_best),
        "priors_summary": pack.priors_summary,
    }
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


_PLAIN = str.maketrans(
    {"—": "-", "–": "-", "…": "...", "‘": "'", "’": "'", "“": '"', "”": '"', "•": "*"}
)


def _latin1(text: str) -> str:
    return text.translate(_PLAIN).encode("latin-1", "replace").decode("latin-1")


def to_pdf(pack: Pack) -> bytes:
    """The pack as a PDF (fpdf2): the same title, case, checklist and sections."""
    return _pdf(pack)[0]


def _pdf(pack: Pack) -> tuple[bytes, int]:
    """The PDF's bytes and its number of pages."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(pack.built_at)
    pdf.set_title(_latin1(pack.title))
    pdf.set_creator("paytui")
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin

    def text(words: str, size: float = 10, style: str = "", indent: float = 0) -> None:
        pdf.set_font("Helvetica", style=style, size=size)
        pdf.set_x(pdf.l_margin + indent)
        pdf.multi_cell(width - indent, size * 0.5, _latin1(words), new_x="LMARGIN", new_y="NEXT")

    text(pack.title, 14, "B")
    text(built_line(pack) + " by paytui, from the payment service's data and paytui's journal.")
    pdf.ln(2)
    for line in pack.case_lines:
        text(line)
    pdf.ln(3)
    text("Checklist", 12, "B")
    text(score_line(pack), 9, indent=2)
    for item in pack.checklist:
        text(_check_line(item), 9, indent=2)
    for number, section in enumerate(pack.sections, start=1):
        pdf.ln(3)
        text(f"{number}. {section.title}", 12, "B")
        for line in section.lines:
            text(line.strip(), 9, indent=6 if line.startswith("  ") else 2)
    return bytes(pdf.output()), pdf.page_no()


@dataclass(frozen=True)
class Check:
    """What `check` found: missing items (required ones make the pack refused) and limits
    broken (each makes it refused), in plain words."""

    missing: tuple[str, ...]
    required_missing: tuple[str, ...]
    breaks: tuple[str, ...]
    measured: dict[str, int]

    @property
    def refused(self) -> bool:
        return bool(self.required_missing or self.breaks)

    def lines(self) -> list[str]:
        lines = [f"missing (required): {line}" for line in self.required_missing]
        lines += [f"missing: {line}" for line in self.missing]
        lines += [f"over a limit: {line}" for line in self.breaks]
        m = self.measured
        lines.append(
            f"measured: {m['files']} file(s), largest {m['largest_bytes']:,} bytes,"
            f" {m['pages']} page(s), {m['characters']:,} characters"
        )
        lines.append("would be refused" if self.refused else "ready: nothing required is missing")
        return lines

    def to_json(self, charge_id: str) -> str:
        """The check as one JSON object (`paytui evidence --check --format json`, docs/cli.md)."""
        body = {
            "format": "paytui-evidence-check/1",
            "charge_id": charge_id,
            "refused": self.refused,
            "missing_required": list(self.required_missing),
            "missing": list(self.missing),
            "over_limits": list(self.breaks),
            "measured": dict(self.measured),
            "lines": self.lines(),
        }
        return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


def check(pack: Pack, limits: EvidencePrefs, attachments: Sequence[Path] = ()) -> Check:
    """The pack against the submission's limits, as its PDF and its text would be sent."""
    pdf, pages = _pdf(pack)
    sizes = [("the pack (PDF)", len(pdf))] + [(str(p), p.stat().st_size) for p in attachments]
    characters = len(to_markdown(pack))
    breaks: list[str] = []
    if len(sizes) > limits.max_files:
        breaks.append(f"{len(sizes)} files, over the limit of {limits.max_files}")
    for name, size in sizes:
        if size > limits.max_file_bytes:
            breaks.append(f"{name}: {size:,} bytes, over the limit of {limits.max_file_bytes:,}")
    total = sum(size for _, size in sizes)
    if limits.max_total_bytes and total > limits.max_total_bytes:
        breaks.append(f"{total:,} bytes in all, over the limit of {limits.max_total_bytes:,}")
    if pages > limits.max_pages:
        breaks.append(f"{pages} pages, over the limit of {limits.max_pages}")
    if characters > limits.max_characters:
        breaks.append(f"{characters:,} characters, over the limit of {limits.max_characters:,}")
    return Check(
        missing=tuple(f"{i.label}: {i.detail}" for i in pack.missing if not i.required),
        required_missing=tuple(f"{i.label}: {i.detail}" for i in pack.missing_required),
        breaks=tuple(breaks),
        measured={
            "files": len(sizes),
            "largest_bytes": max(size for _, size in sizes),
            "pages": pages,
            "characters": characters,
        },
    )


def write_private(path: Path, data: bytes, *, force: bool = False) -> None:
    """Write a file that holds a customer's data: created 0600, never over an existing file
    unless `force` (`FileExistsError`; other `OSError`s as raised)."""
    import os

    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (0 if force else os.O_EXCL)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(path, 0o600)


def save_pack(pack: Pack, folder: Path) -> list[Path]:
    """The pack as Markdown, JSON and PDF in `folder` (the app's "export"), each a new private
    file named after the charge and the moment it was built; the paths written."""
    stem = f"paytui-evidence-{pack.charge_id}-{pack.built_at.astimezone(UTC):%Y%m%d-%H%M%S}"
    written: list[Path] = []
    for suffix, data in (
        (".md", to_markdown(pack).encode()),
        (".json", to_json(pack).encode()),
        (".pdf", to_pdf(pack)),
    ):
        path = folder / f"{stem}{suffix}"
        write_private(path, data)
        written.append(path)
    return written
