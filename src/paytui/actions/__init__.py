"""Money actions (capture, refund, charge, tag/attribute edits), each sent exactly once.

The non-UI core of issue 4: amounts typed by people (`amounts`), the one place that decides what
an action may do (`policy`), the durable action journal (`journal`), the executor that sends an
action once and settles unknown outcomes (`executor`) by reading the service back (`reconcile`).
See docs/money-safety.md. Never imports Textual.
"""
