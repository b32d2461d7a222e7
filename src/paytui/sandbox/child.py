"""`python -m paytui.sandbox.child`: the embedded sandbox's server process, as
`embedded.EmbeddedSandbox.start` spawns it (the parts are in `paytui.sandbox.embedded`).

Its start gives way to the UI: on a cold start the UI's first page does not wait for this server
(the first-page child reads it from the database, `paytui.ui.first_page`), but the UI, that
child and this start all want a core at once; with another program keeping a core busy they
shared what was left, and the first paint waited for FastAPI's imports (docs/performance.md).
So everything before serving (`embedded.prepare`: its own module's imports, the arguments, the
database, FastAPI's and the routes' imports, the app: about a second of one core) runs in a
thread `START_NICE` nicer than the process (`below_the_ui`), and only then does the main thread
serve. This module imports nothing but what starting that thread needs.

Only with `--give-way`, which the dashboard's launcher asks for (`EmbeddedSandbox.start(
give_way=True)`): nice +10 gives way to every other program too, so a caller that waits for the
server at once (a script command on a cold sandbox) starts it at its own priority.
"""

from __future__ import annotations

import os
import sys
import threading

TYPE_CHECKING = False  # `typing` is not imported before the start thread
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    _T = TypeVar("_T")

__all__ = ["START_NICE", "below_the_ui", "main"]

#: How much nicer than the process the server's start runs (`below_the_ui`).
START_NICE = 10


def below_the_ui(work: Callable[[], _T]) -> _T:
    """`work()` in a thread of its own, `START_NICE` nicer than the process, and its result
    (its exception raised here); the calling thread keeps its priority.

    At nice +10 the start takes what the UI leaves: all of a core that is free, little of one
    the UI needs. Linux keeps a nice value per thread, and a process cannot lower its nice
    value again once raised, so the start runs in a thread that ends with it, and the serving
    thread (and every thread it starts) keeps the priority of the process. Elsewhere `work`
    runs here, at the process's priority."""
    if not sys.platform.startswith("linux"):
        return work()
    done: list[_T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            me = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, me, os.getpriority(os.PRIO_PROCESS, me) + START_NICE)
        except OSError:
            pass
        try:
            done.append(work())
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=run, name="sandbox-start")
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return done[0]


def main(argv: list[str] | None = None) -> int:
    """Prepare (with `--give-way`, in the nicer thread), then serve on this one."""
    from paytui.collector import pause_collector, resume_collector

    given = sys.argv[1:] if argv is None else argv
    pause_collector()  # until it serves: FastAPI's imports are most of a cold start
    try:
        if "--give-way" in given:
            prepared = below_the_ui(lambda: _prepare(given))
        else:
            prepared = _prepare(given)
        if isinstance(prepared, int):
            return prepared
        return prepared(resume_collector)
    finally:
        resume_collector(freeze=False)


def _prepare(argv: list[str] | None) -> int | Callable[[Callable[[], object]], int]:
    from paytui.sandbox.embedded import prepare

    return prepare(argv)


if __name__ == "__main__":
    raise SystemExit(main())
