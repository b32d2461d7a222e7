"""The money core's mutation gaps: apply each small change by hand and run the test that catches it.

    python scripts/mutation_money_core.py              # each mutant against its catching test
    python scripts/mutation_money_core.py M3 M7        # only these
    python scripts/mutation_money_core.py --suite tests/actions tests/api -n 2   # the suite
    python scripts/mutation_money_core.py --suite tests/actions tests/api -n 2 --without-gaps
    python scripts/mutation_money_core.py --list       # the table (docs/reliability.md has it)

Each mutation is one textual change to one file under src/paytui. The source is copied to a
temporary directory, the change applied there, and pytest runs with that copy first on
PYTHONPATH (the editable install is a plain path entry, which PYTHONPATH precedes): the work tree
is never touched. A mutant is *caught* when the tests fail. The script first checks that every
catching test passes on the unchanged source, and exits 1 when a mutant survives. (M8's test
runs on both journals; the suite starts its PostgreSQL itself, tests/fixtures_postgres.py.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAPS = "tests/actions/test_money_core_gaps.py"


@dataclass(frozen=True)
class Mutation:
    key: str
    path: str  # under src/paytui
    old: str
    new: str
    what: str
    tests: tuple[str, ...]


MUTATIONS = (
    Mutation(
        "M1",
        "actions/settling.py",
        "charge_id = None if key is not None else target",
        "charge_id = target",
        "settle-earlier looks a new charge's or token's earlier attempts up by the account as if"
        " it were a charge id (finds none)",
        (
            f"{GAPS}::test_a_charge_found_applied_in_the_background_stops_the_same_charge",
            f"{GAPS}::test_a_token_found_stored_in_the_background_stops_the_same_card_even_again",
        ),
    ),
    Mutation(
        "M2",
        "actions/settling.py",
        "if e.request_summary.get(key) == target]",
        "if e.request_summary.get(key) != target]",
        "settle-earlier's same-target filter inverted (other accounts' attempts only)",
        (
            f"{GAPS}::test_a_charge_found_applied_in_the_background_stops_the_same_charge",
            f"{GAPS}::test_a_token_found_stored_in_the_background_stops_the_same_card_even_again",
        ),
    ),
    Mutation(
        "M3",
        "actions/journal_entries.py",
        "if blocker is not None:\n                        raise JournalConflict(blocker)",
        'if blocker is not None and blocker.state != "succeeded":\n'
        "                        raise JournalConflict(blocker)",
        "record_intent's guard stops only unsettled entries, not a success since the person looked",
        (f"{GAPS}::test_a_refund_landing_just_before_the_intent_stops_this_one",),
    ),
    Mutation(
        "M4a",
        "actions/settling.py",
        "        if entry.id != acknowledge:\n",
        "        if acknowledge is None:\n",
        "settle-earlier lets any acknowledgement pass every success found in the background",
        (f"{GAPS}::test_an_acknowledgement_names_one_earlier_success_not_any",),
    ),
    Mutation(
        "M4b",
        "actions/executor.py",
        "if other.id == go.acknowledge and go.depth == 0:",
        "if go.acknowledge is not None and go.depth == 0:",
        "the intent's guard takes any acknowledgement for one of the success in its way",
        (f"{GAPS}::test_a_refund_landing_just_before_the_intent_stops_this_one",),
    ),
    Mutation(
        "M5",
        "actions/ops/charge.py",
        "if has_ref(found.attributes, ref):",
        "if True:",
        "a new charge's read-back takes any charge it finds as ours",
        (f"{GAPS}::test_a_charge_read_back_takes_no_other_charge_for_ours",),
    ),
    Mutation(
        "M6",
        "actions/ops/distribute.py",
        "if distribution_items(found) > before:",
        "if distribution_items(found) >= before:",
        'a distribute read-back counts "no new item" as done',
        (f"{GAPS}::test_a_distribute_that_never_landed_is_not_applied",),
    ),
    Mutation(
        "M7",
        "actions/executor.py",
        'error="Interrupted while sending",\n'
        "                    settle_seconds=self._settle_since(stamped),",
        'error="Interrupted while sending",\n'
        "                    settle_seconds=self.settle_seconds,",
        "a send cancelled (shut down) after a slow start keeps the window counted from sent_at",
        (f"{GAPS}::test_a_send_cancelled_late_is_not_proven_absent_too_early",),
    ),
    Mutation(
        "M8",
        "actions/journal_entries.py",
        'f"settle_seconds = {self._store.greatest}(COALESCE(settle_seconds, 0), ?)"',
        '"settle_seconds = ?"',
        "a later transition with a shorter settle time shortens the entry's window",
        (f"{GAPS}::test_a_later_transition_never_shortens_the_settle_window",),
    ),
    Mutation(
        "M9",
        "actions/ops/capture.py",
        "amount = auth.total_amount + sum(fees.values(), Decimal(0))",
        "amount = auth.total_amount",
        "a capture's confirmation (and journal) amount leaves its fees out",
        (f"{GAPS}::test_a_capture_is_confirmed_with_its_fees",),
    ),
    Mutation(
        "M10",
        "actions/ops/charge.py",
        "amount += sum(",
        "amount + sum(",
        "a new charge's confirmation (and journal) amount leaves its fees out",
        (f"{GAPS}::test_a_new_charge_is_confirmed_with_its_fees",),
    ),
    Mutation(
        "M11",
        "actions/ops/capture.py",
        "name: check_amount(value, allow_zero=True)",
        "name: value",
        "a capture's fees are sent unchecked (negative, fractions of a cent)",
        (f"{GAPS}::test_a_capture_fee_is_checked_before_anything_is_sent",),
    ),
)


def changed_line(mutation: Mutation) -> tuple[int, str, str]:
    """The line the change is made on, and that line before and after it."""
    text = (ROOT / "src" / "paytui" / mutation.path).read_text(encoding="utf-8")
    at = max(text.find(mutation.old), 0)
    pairs = list(zip(mutation.old.split("\n"), mutation.new.split("\n"), strict=False))
    skip = next(i for i, (old, new) in enumerate(pairs) if old != new)
    old, new = pairs[skip]
    return text.count("\n", 0, at) + skip + 1, old.strip(), new.strip()


def mutant_tree(mutation: Mutation, into: Path) -> Path:
    """A copy of src/ with `mutation` applied; its directory (for PYTHONPATH)."""
    src = into / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__"))
    target = src / "paytui" / mutation.path
    text = target.read_text(encoding="utf-8")
    if text.count(mutation.old) != 1:
        raise SystemExit(f"{mutation.key}: {mutation.path} does not hold the text to change once")
    target.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")
    return src


def run_tests(tests: list[str], pythonpath: Path | None, extra: list[str]) -> int:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    argv = [sys.executable, "-m", "pytest", "-q", *extra, *tests]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:  # what failed, in short
        failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        print("\n".join(f"    {line}" for line in failed[:5]), file=sys.stderr)
    return done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("keys", nargs="*", help="mutations to run (M1 ... M11); all by default")
    parser.add_argument("--suite", nargs="+", help="run these test paths instead of the catchers")
    parser.add_argument(
        "--without-gaps", action="store_true", help=f"leave {GAPS} out (the suite as it was)"
    )
    parser.add_argument("--list", action="store_true", help="print the table and stop")
    parser.add_argument("-n", default="0", help="pytest-xdist workers (default 0)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.keys or m.key in args.keys]
    if args.list:
        for m in chosen:
            line, old, new = changed_line(m)
            tests = ", ".join(f"`{t.split('::')[-1]}`" for t in m.tests)
            change = f"`{old}` → `{new}`"
            print(f"| {m.key} | `{m.path}:{line}` | {change} | {m.what} | {tests} |")
        return 0
    extra = ["-n", args.n, *([f"--ignore={GAPS}"] if args.without_gaps else [])]
    if not args.suite:
        catchers = sorted({t for m in chosen for t in m.tests})
        if run_tests(catchers, None, extra) != 0:
            print("the catching tests fail on the unchanged source", file=sys.stderr)
            return 2
    survived = 0
    for mutation in chosen:
        with tempfile.TemporaryDirectory(prefix=f"mutant-{mutation.key}-") as tmp:
            src = mutant_tree(mutation, Path(tmp))
            code = run_tests(list(args.suite or mutation.tests), src, extra)
        caught = code != 0
        survived += not caught
        print(f"{mutation.key}: {'caught' if caught else 'SURVIVED'} ({mutation.what})")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
