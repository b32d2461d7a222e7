"""The Textual UI.

Textual paints at most `TEXTUAL_FPS` frames a second (60 unless set), and a frame that comes
late (the loop was busy with a search's answer) makes the next wait one interval more: the
results of a key were painted 10-30 ms after they were in the table. At 120 the wait is half,
which is what brought search-as-you-type under 50 ms at 100,000 charges (docs/performance.md).
Set here, before any module of this package imports Textual (it reads it once, at import); a
value the user set wins.
"""

import os

os.environ.setdefault("TEXTUAL_FPS", "120")
