"""Two trees of paytui side by side: the same command's CPU from each, with the bare reference.

    .venv/bin/python -m benchmarks.trees OTHER_SRC [--this-src SRC] [--pairs N] [--charges N]

A change's before and after measured in one run: `OTHER_SRC` is another checkout's `src/` (the
parent commit, main), put first on `PYTHONPATH`; this venv's paytui is the other (or `--this-src`:
a checkout of its own, so that editing this tree meanwhile changes nothing measured). Each round
runs the reference, then each tree's command, alternating which tree goes first, and reads each
process's own CPU (user + sys, `getrusage(RUSAGE_CHILDREN)`); the figures are the medians of each
tree's ratio to the round's reference: `cli_ratio.py`'s commands over `python -c "import httpx,
json, sqlite3, argparse"`, and `export_cpu.py`'s over its plain httpx loop (1,000 charges by
default: the rows' part shows at 10,000, the start's at 1). The 1-minute load is printed before
and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.cli_ratio import BARE, CONFIG_FILE, paytui_command, timed
from benchmarks.figures import emit, figure


def rounds(
    reference: list[str],
    command: list[str],
    envs: dict[str, dict[str, str]],
    runs: int,
) -> dict[str, list[float]]:
    """`runs` rounds of the reference then the command under each env (alternating the
    order of the trees): each tree's CPU over the round's reference's."""
    ratios: dict[str, list[float]] = {name: [] for name in envs}
    names = list(envs)
    base = next(iter(envs.values()))
    timed(reference, base)
    for env in envs.values():
        timed(command, env)
    for index in range(runs):
        reference_cpu = timed(reference, base)[0]
        for name in names if index % 2 == 0 else reversed(names):
            ratios[name].append(timed(command, envs[name])[0] / reference_cpu)
    return ratios


def figures(
    other_src: Path, runs: int, charges: int, this_src: Path | None = None, export: bool = True
) -> Iterator[dict[str, Any]]:
    import compileall

    from benchmarks.cli_ratio import charge_id
    from benchmarks.export_cpu import PLAIN_LOOP, commands
    from benchmarks.loopback_details import served
    from benchmarks.startup import byte_compile
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.sandbox.seed import build_database

    # Each tree's bytecode written first, as an installed paytui's is: with
    # PYTHONDONTWRITEBYTECODE set, a tree without it compiles every module on every run.
    byte_compile()
    for src in (other_src, this_src):
        if src is not None:
            compileall.compile_dir(str(src), quiet=1)
    paytui = paytui_command()
    with tempfile.TemporaryDirectory(prefix="paytui-trees-") as home:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PAYTUI_", "XDG_"))},
            "HOME": home,
            "PAYTUI_CLIENT_ID": DEMO_CLIENT_ID,
            "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET,
        }
        # A home each: a tree's journal may be of a schema the other refuses.
        for name in ("other", "this"):
            (Path(home) / name).mkdir()
        this = {**env, "HOME": str(Path(home) / "this")}
        if this_src is not None:
            this["PYTHONPATH"] = str(this_src)
        envs = {"other": {**env, "HOME": str(Path(home) / "other"), "PYTHONPATH": str(other_src)}}
        envs["this"] = this
        yield figure("trees_load_1m", [os.getloadavg()[0]], "load", None)
        # The journal's trail asks no service: no client in its environment (nor its warning).
        local = {
            name: {k: v for k, v in tree.items() if not k.startswith("PAYTUI_CLIENT_")}
            for name, tree in envs.items()
        }
        history = [*paytui, "history", "--limit", "1"]
        for name, ratios in rounds(BARE, history, local, runs).items():
            yield figure(f"trees_cli_cpu_ratio/history/{name}", ratios, "x", 1.3)
        # The same with a small config file in each home (`cli_ratio.CONFIG_FILE`).
        configs = [
            Path(tree["HOME"]) / ".config" / "paytui" / "config.toml" for tree in envs.values()
        ]
        for config in configs:
            config.parent.mkdir(parents=True)
            config.write_text(CONFIG_FILE, encoding="utf-8")
        for name, ratios in rounds(BARE, history, local, runs).items():
            yield figure(f"trees_cli_cpu_ratio/history_config/{name}", ratios, "x", 1.3)
        for config in configs:
            config.unlink()
        db = Path(home) / "sandbox.db"
        build_database(db, charges=charges)
        with served(db) as base_url:
            url = ["--base-url", base_url]
            show = [*paytui, "charges", "show", charge_id(paytui, env, base_url), *url]
            for name, ratios in rounds(BARE, show, envs, runs).items():
                yield figure(f"trees_cli_cpu_ratio/charges_show/{name}", ratios, "x", 1.3)
            plain = [sys.executable, "-c", PLAIN_LOOP, base_url]
            for label, command in commands().items() if export else ():
                for name, ratios in rounds(plain, [*command, *url], envs, runs).items():
                    yield figure(f"trees_export_cpu_ratio/{label}/{name}", ratios, "x", 1.5)
        yield figure("trees_load_1m", [os.getloadavg()[0]], "load", None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("other_src", type=Path, help="the other tree's src/ directory")
    parser.add_argument("--this-src", type=Path, help="this tree's src/ (default: the venv's)")
    parser.add_argument("--pairs", type=int, default=7, help="rounds (7)")
    parser.add_argument("--charges", type=int, default=1000, help="charges to export (1,000)")
    parser.add_argument("--no-export", action="store_true", help="the script commands only")
    args = parser.parse_args(argv)
    this_src = args.this_src.resolve() if args.this_src is not None else None
    found = figures(
        args.other_src.resolve(), args.pairs, args.charges, this_src, export=not args.no_export
    )
    for item in found:
        emit(item)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
