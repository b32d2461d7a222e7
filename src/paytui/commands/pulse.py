"""`paytui pulse`: the dispute ratio of a calendar month per account (docs/today.md, "The
dispute ratio"), as the dashboard's pulse counts it (`paytui.today.ratio`).

Text (default), `json` (one object: the month, the lines, `accounts`) or `jsonl` (one account a
line). Counts are JSON numbers, money decimal strings, the ratio a JSON number (disputes over
sales, a fraction) or null with no sale. Notes (filters applied here, unknown statuses) go to
stderr. Exit 0; 2 for a bad `--month`; the connection's codes as every command.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from paytui.commands.runtime import CommandError, Exit, Runtime
from paytui.text import safe

if TYPE_CHECKING:
    from paytui.config.model import RatioLine
    from paytui.today.ratio import AccountRatio, RatioPulse

__all__ = ["account_json", "add_parser", "now_utc", "pulse", "pulse_json", "pulse_text"]

HELP = (
    "The dispute ratio per account: this calendar month's disputes over its sales (UTC), the"
    " trend by day, the open cases, and where the ratio stands against the configured lines"
    " (defaults from the card schemes' monitoring programmes; docs/today.md)."
)
SPARKS = "▁▂▃▄▅▆▇█"


def now_utc() -> datetime:
    """The moment the month is read at (a test sets its own: the demo's data is dated)."""
    return datetime.now(UTC)


def add_parser(top: Any, common: argparse.ArgumentParser) -> None:
    """`paytui pulse` on the command line's parser (`paytui.commands.build_parser`)."""
    from paytui.commands import COMMAND_HELP

    parser: argparse.ArgumentParser = top.add_parser(
        "pulse", help=COMMAND_HELP["pulse"], description=HELP, parents=[common], allow_abbrev=False
    )
    parser.add_argument(
        "--month", metavar="YYYY-MM", help="the calendar month (UTC; default: this one, to date)"
    )
    parser.add_argument(
        "--format", choices=("text", "json", "jsonl"), help="output (default: text)"
    )


def _z(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def account_json(account: AccountRatio, pulse: RatioPulse, lines: tuple[RatioLine, ...]) -> Any:
    """One account's month as JSON types: counts numbers, money strings, the ratio a number."""
    from paytui.api.money import plain_amount
    from paytui.today.ratio import standing

    where = standing(account.ratio, account.disputes, lines)
    trend = account.trend()
    return {
        "account_id": account.account_id,
        "disputes": account.disputes,
        "disputes_amount": plain_amount(account.disputes_amount),
        "sales": account.sales,
        "sales_amount": plain_amount(account.sales_amount),
        "ratio": account.ratio,
        "standing": where.level,
        "line": where.line.name if where.line is not None else None,
        "standing_words": where.words,
        "days": [
            {
                "date": f"{day:%Y-%m-%d}",
                "disputes": disputes,
                "sales": sales,
                "ratio_to_date_percent": round(trend[index], 4),
            }
            for index, (day, (disputes, sales)) in enumerate(
                zip(pulse.days, account.by_day, strict=True)
            )
        ],
        "open_cases": [
            {
                "charge_id": case.charge_id,
                "amount": plain_amount(case.amount),
                "disputed_at": _z(case.disputed_at),
                "reason_code": case.reason_code,
                "state": case.state,
            }
            for case in account.open_cases
        ],
    }


def pulse_json(pulse: RatioPulse, lines: tuple[RatioLine, ...]) -> dict[str, Any]:
    return {
        "month": f"{pulse.month_start:%Y-%m}",
        "from": _z(pulse.month_start),
        "to": _z(pulse.month_end),
        "computed_at": _z(pulse.computed_at),
        "lines": [
            {"name": ln.name, "percent": ln.percent, "min_disputes": ln.min_disputes}
            for ln in lines
        ],
        "accounts": [account_json(a, pulse, lines) for a in pulse.accounts],
        "ignored_filters": list(pulse.ignored_filters),
        "unproven_rows": pulse.unproven,
        "unknown_statuses": dict(pulse.unknown_statuses),
        "disputes_dated_by_charge": pulse.dated_by_charge,
    }


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def sparks(values: list[float]) -> str:
    """The values as block characters (the text twin of the screen's Sparkline)."""
    top = max(values, default=0.0)
    if top <= 0:
        return SPARKS[0] * len(values)
    return "".join(SPARKS[min(7, int(v / top * 7 + 0.5))] for v in values)


def pulse_text(pulse: RatioPulse, lines: tuple[RatioLine, ...]) -> str:
    """The month for a person: per account its ratio, counts, standing, trend and open cases."""
    from paytui.today.ratio import standing

    out = [
        f"Dispute ratio · {pulse.month_start:%B %Y} (UTC) · {len(pulse.days)} days"
        f" · as of {_z(pulse.computed_at)}",
        "Lines: "
        + " · ".join(
            f"{safe(ln.name)} {ln.percent:g} %"
            + (f" ({ln.min_disputes:,} disputes)" if ln.min_disputes else "")
            for ln in lines
        ),
    ]
    if not pulse.accounts:
        out.append("No sales and no disputes this month.")
    for account in pulse.accounts:
        where = standing(account.ratio, account.disputes, lines)
        ratio = f"{100 * account.ratio:.2f} %" if account.ratio is not None else "—"
        out.append("")
        out.append(
            f"{safe(account.account_id)}  {ratio} · {_n(account.disputes, 'dispute')}"
            f" ({account.disputes_amount:,.2f}) of {_n(account.sales, 'sale')}"
            f" ({account.sales_amount:,.2f}) · {where.words}"
        )
        trend = account.trend()
        out.append(f"  ratio to date by day {sparks(trend)}")
        out.append(
            "  "
            + " ".join(
                f"{day:%d}:{value:.2f}" for day, value in zip(pulse.days, trend, strict=True)
            )
        )
        out.append("  disputes by day " + " ".join(str(d) for d, _ in account.by_day))
        for case in account.open_cases:
            out.append(
                f"  open case {safe(case.charge_id)} {case.amount:,.2f}"
                f" disputed {case.disputed_at:%Y-%m-%d} reason {safe(case.reason_code or '—')}"
                f" ({case.state})"
            )
    return "\n".join(out) + "\n"


def notes_of(pulse: RatioPulse) -> list[str]:
    """What the counts rest on that a reader must know (stderr; the screen's title line)."""
    notes: list[str] = []
    if pulse.ignored_filters:
        notes.append(
            f"the service ignored {', '.join(pulse.ignored_filters)}: read and filtered here"
        )
    if pulse.unproven:
        notes.append(f"{pulse.unproven:,} rows could not show they match: counts are upper bounds")
    for status, count in pulse.unknown_statuses.items():
        notes.append(f"{count:,} charges of status {status!r} not counted as sales")
    if pulse.dated_by_charge:
        notes.append(
            f"{pulse.dated_by_charge:,} disputes dated by their charge: the service shows no"
            " chargeback date"
        )
    return notes


async def pulse(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.today.ratio import compute_ratio, lines_of, parse_month

    try:
        month = parse_month(args.month) if args.month else None
    except ValueError as exc:
        raise CommandError(f"--month: {exc}", Exit.USAGE) from None
    prefs = runtime.connection.pulse
    lines = lines_of(prefs)
    async with runtime.client() as client:
        result = await compute_ratio(
            client, now=now_utc(), month=month, concurrency=prefs.concurrency
        )
    fmt = args.format or "text"
    if fmt == "json":
        runtime.io.out.write(json.dumps(pulse_json(result, lines), indent=2) + "\n")
    elif fmt == "jsonl":
        for account in result.accounts:
            runtime.io.out.write(json.dumps(account_json(account, result, lines)) + "\n")
    else:
        runtime.io.out.write(pulse_text(result, lines))
    for note in notes_of(result):
        runtime.io.err.write(f"paytui: {safe(note)}\n")
    return Exit.OK
