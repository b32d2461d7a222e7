"""Today: one queue of everything that needs a person, soonest deadline first (docs/today.md).

No Textual: the dashboard's Today screen (`0`) and `paytui today` both read `queue.build_queue`.
"""
