"""Replacing a file by renaming a finished one over it, only where a file is.

paytui writes its files whole and then renames them over the old one (`os.replace`): a crash
leaves the old file or the new, never half of one. Renaming over a path that names a device, a
FIFO or a directory's entry such as `/dev/null` (a config, journal or sandbox path pointed there
"to throw it away") would put a regular file in its place for every program on the machine. So
a target that exists and is not a regular file (after symlinks) is refused, in one line naming
it, and left as it was.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["NotARegularFile", "refuse_unless_regular", "replace_regular"]


class NotARegularFile(OSError):
    """The target exists and is not a regular file; `strerror` and `filename` say so."""


def refuse_unless_regular(target: Path | str) -> None:
    """Raise `NotARegularFile` when `target` exists and is not a regular file (a missing one
    is fine: it is about to be created)."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return
    except OSError:
        return  # unreadable metadata: the rename itself will say what is wrong
    if not stat.S_ISREG(mode):
        raise NotARegularFile(
            errno.EINVAL, "not a regular file; paytui will not replace it", str(target)
        )


def replace_regular(source: Path | str, target: Path | str) -> None:
    """`os.replace(source, target)`, refused (`NotARegularFile`) when `target` exists and is
    not a regular file."""
    refuse_unless_regular(target)
    os.replace(source, target)
