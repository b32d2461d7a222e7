"""`paytui sandbox`: serve the sandbox on a loopback TCP port for curl, other tools, or the UI.

The database lives in the user data dir by default, is built on first use and survives restarts
(`--fresh` rebuilds it). It binds loopback only unless `--allow-remote`, because the demo
credentials are public.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import sys
import time
from pathlib import Path

from paytui.console import SafeArgumentParser, say
from paytui.sandbox import (
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    LIMITED_CLIENT_ID,
    LIMITED_CLIENT_SECRET,
)
from paytui.sandbox.faults import COMMIT_OPERATIONS, Faults


def _operations(value: str) -> set[str]:
    names = {part.strip() for part in value.split(",") if part.strip()}
    unknown = names - COMMIT_OPERATIONS
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown operation(s) {', '.join(sorted(unknown))};"
            f" choose from {', '.join(sorted(COMMIT_OPERATIONS))}"
        )
    return names


def _parser() -> argparse.ArgumentParser:
    parser = SafeArgumentParser(prog="paytui sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8700, help="TCP port (default 8700)")
    parser.add_argument(
        "--db", type=Path, default=None, help="database file (default: user data dir)"
    )
    parser.add_argument("--charges", type=int, default=3000, help="charges in a new database")
    parser.add_argument("--seed", type=int, default=7, help="random seed of a new database")
    parser.add_argument("--fresh", action="store_true", help="rebuild the database first")
    parser.add_argument(
        "--drop-after-commit",
        type=_operations,
        default=set(),
        metavar="OPS",
        help="drop the answer after committing these operations"
        " (capture,refund,charge,update,distribute)",
    )
    parser.add_argument(
        "--reset-after-commit",
        type=_operations,
        default=set(),
        metavar="OPS",
        help="reset the connection right after committing these operations",
    )
    parser.add_argument(
        "--late-commit",
        type=_operations,
        default=set(),
        metavar="OPS",
        help="read these operations, hold them --late-commit-seconds, then commit"
        " (after the client gave up)",
    )
    parser.add_argument(
        "--late-commit-seconds",
        type=float,
        default=12.0,
        metavar="S",
        help="how long --late-commit holds a request (default 12, past the client's 10 s)",
    )
    parser.add_argument(
        "--delay", type=float, default=0.0, metavar="SECONDS", help="delay every answer"
    )
    parser.add_argument(
        "--token-ttl", type=int, default=3600, metavar="S", help="access token lifetime"
    )
    parser.add_argument(
        "--boarding-interval",
        type=float,
        default=20.0,
        metavar="S",
        help="seconds per boarding step of accounts tagged sandbox_boarding=auto",
    )
    parser.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    parser.add_argument(
        "--stop",
        action="store_true",
        help="stop the embedded sandbox that paytui keeps warm for this database, and exit",
    )
    return parser


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.stop:
        from paytui.sandbox.embedded import stop_warm

        say("Stopped." if stop_warm(args.db) else "No embedded sandbox was running.")
        return 0
    if not is_loopback(args.host) and not args.allow_remote:
        say(
            f"paytui sandbox: refusing to listen on {args.host}: the demo credentials are public."
            " Pass --allow-remote to do it anyway.",
            err=True,
        )
        return 2
    from paytui.sandbox.embedded import OutdatedDatabaseError, default_db_path, ensure_database

    db_path: Path = args.db or default_db_path()
    started = time.perf_counter()
    try:
        built = ensure_database(db_path, charges=args.charges, seed=args.seed, fresh=args.fresh)
    except OutdatedDatabaseError as exc:
        say(f"paytui sandbox: {exc}", err=True)
        return 2
    except OSError as exc:  # not a regular file (`/dev/null`), a full disk, no permission
        where = exc.filename or db_path
        say(f"paytui sandbox: cannot build {where}: {exc.strerror or exc}", err=True)
        return 2
    if built:
        took = time.perf_counter() - started
        say(f"Built {db_path} ({args.charges} charges, seed {args.seed}) in {took:.1f} s")
    else:
        say(f"Using {db_path} (--fresh rebuilds it)")

    import uvicorn

    from paytui.sandbox.app import create_app

    faults = Faults(
        drop_after_commit=args.drop_after_commit,
        reset_after_commit=args.reset_after_commit,
        late_commit=args.late_commit,
        late_commit_seconds=args.late_commit_seconds,
        delay_seconds=args.delay,
    )
    app = create_app(
        db_path, faults=faults, token_ttl=args.token_ttl, boarding_interval=args.boarding_interval
    )
    host = f"[{args.host}]" if ":" in args.host else args.host
    base_url = f"http://{host}:{args.port}"
    say(
        f"paytui sandbox listening on {base_url}  (docs at {base_url}/docs)\n"
        f"  client id / secret: {DEMO_CLIENT_ID} / {DEMO_CLIENT_SECRET}   (every scope)\n"
        f"                      {LIMITED_CLIENT_ID} / {LIMITED_CLIENT_SECRET}"
        "   (accounts and merchants, read only)\n"
        f"  try: curl -s -u {DEMO_CLIENT_ID}:{DEMO_CLIENT_SECRET} -d grant_type=client_credentials"
        f" {base_url}/v2/services/oauth2/token\n"
        "  Ctrl-C stops it.",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn handles SIGINT; this is a fallback
        # h11: it tells a running request that its client hung up (`client_watch`); httptools
        # tells only a pipelined request behind it.
        uvicorn.run(
            app, host=args.host, port=args.port, log_level="info", lifespan="off", http="h11"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
