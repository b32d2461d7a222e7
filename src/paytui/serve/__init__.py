"""`paytui serve`: the dashboard in a browser, on loopback, behind a per-launch secret.

textual-serve streams the terminal; what is ours is the guard around it (`guard.py`), the
child's environment (`environment.py`) and the command (`cli.py`). No Textual here: each browser
tab's dashboard is a child `paytui` process (docs/browser.md).
"""
