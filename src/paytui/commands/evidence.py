"""`paytui evidence CHARGE_ID`: the evidence pack of a chargeback (docs/evidence.md).

Markdown on stdout (or `--output FILE`), JSON, or a PDF (`--format pdf --output FILE`). With
`--check`: what is missing for the reason and the submission limits broken (`[evidence]`), one
line each on stdout (with `--format json`, one object: docs/cli.md, "Output shapes"), and exit
14 when the pack would be refused (docs/cli.md). A file written holds the customer's data: it
is created private (0600), never over a file that exists unless `--force`.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paytui.commands.runtime import CommandError, Exit, Runtime

__all__ = ["add_parser", "evidence", "now_utc"]

HELP = (
    "The evidence pack of a chargeback, built from the service's data only and arranged by what"
    " its reason asks for, with a checklist of what is present, missing or not applicable"
    " (docs/evidence.md)."
)


def now_utc() -> datetime:
    """When the pack is built (the one line two builds of a case differ in)."""
    return datetime.now(UTC)


def add_parser(top: Any, common: argparse.ArgumentParser) -> None:
    """`paytui evidence` on the command line's parser (`paytui.commands.build_parser`)."""
    from paytui.commands import COMMAND_HELP

    parser: argparse.ArgumentParser = top.add_parser(
        "evidence",
        help=COMMAND_HELP["evidence"],
        description=HELP,
        parents=[common],
        allow_abbrev=False,
    )
    parser.add_argument("id", metavar="CHARGE_ID", help="the charged-back charge")
    parser.add_argument(
        "--format",
        choices=("markdown", "json", "pdf"),
        default="markdown",
        help="markdown (default), json, or pdf (needs --output)",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write the pack to FILE (0600)")
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    parser.add_argument(
        "--check",
        action="store_true",
        help="list what is missing for the reason and the submission limits broken; exit 14"
        " when the pack would be refused",
    )
    parser.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="with --check: a file that goes with the pack (counted and measured)",
    )


def _write(path: str, data: bytes, *, force: bool) -> None:
    from paytui.evidence.render import write_private

    try:
        write_private(Path(path), data, force=force)
    except FileExistsError:
        raise CommandError(f"{path} exists (--force replaces it)", Exit.USAGE) from None
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror}", Exit.CONFIG) from None


async def evidence(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.evidence.case import attribute_keys
    from paytui.evidence.pack import NoChargeback, build_pack, read_case
    from paytui.evidence.render import check, to_pdf

    if args.format == "pdf" and not args.output and not args.check:
        raise CommandError("--format pdf needs --output FILE (a PDF is not text)", Exit.USAGE)
    if args.attach and not args.check:
        raise CommandError("--attach goes with --check", Exit.USAGE)
    attachments = [Path(p) for p in args.attach]
    for path in attachments:
        if not path.is_file():
            raise CommandError(f"--attach {path}: no such file", Exit.USAGE)
    prefs = runtime.connection.evidence
    keys = dict(prefs.attribute_keys)
    async with runtime.client() as client:
        base_url = str(client.base_url)
        history = None
        try:
            journal = runtime.journal(off="the pack is built without paytui's history")
        except CommandError as exc:
            runtime.io.message(f"paytui: warning: {exc.message}")
        else:

            def history(charge_id: str) -> Any:
                return journal.audit(base_url=base_url, charge_id=charge_id, limit=200)

        try:
            case = await read_case(
                client,
                args.id,
                history=history,
                element_keys=attribute_keys(keys, "element"),
                item_keys=attribute_keys(keys, "item"),
            )
        except NoChargeback as exc:
            raise CommandError(str(exc), Exit.REFUSED) from None
    pack = build_pack(case, now_utc())
    if args.output:
        data = to_pdf(pack) if args.format == "pdf" else _text(pack, args.format).encode()
        _write(args.output, data, force=args.force)
        if not args.check:
            runtime.io.message(f"paytui: wrote {args.output}")
    if args.check:
        found = check(pack, prefs, attachments)
        if args.format == "json":
            runtime.io.out.write(found.to_json(pack.charge_id))
        else:
            for line in found.lines():
                runtime.io.out.write(f"{line}\n")
        return Exit.WOULD_BE_REFUSED if found.refused else Exit.OK
    if not args.output:
        runtime.io.out.write(_text(pack, args.format))
    return Exit.OK


def _text(pack: Any, fmt: str) -> str:
    from paytui.evidence.render import to_json, to_markdown

    return to_json(pack) if fmt == "json" else to_markdown(pack)
