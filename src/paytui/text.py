"""The one display sanitiser: text from the API, the user, a config file or an error, made safe
to put on a terminal. No Textual here, so the CLI, the logs and the UI share it.

A support console shows what customers typed and what servers sent. Written raw to a terminal,
``ESC ] 2 ; … BEL`` renames the window, OSC 52 writes the clipboard, ``CSI 2J`` clears the
screen, and a right-to-left override (U+202E) makes ``gpj.exe`` read as ``exe.jpg``. So every
such character is *shown*, never obeyed, and the data itself is left alone: only what reaches
the screen is changed.

The placeholders (documented in docs/api-assumptions.md, "Text on screen"):

- C0 controls U+0000-U+001F become their Unicode *control pictures* U+2400-U+241F
  (NUL ``␀``, BEL ``␇``, ESC ``␛``, newline ``␊``, tab ``␉``), DEL becomes ``␡``;
- C1 controls U+0080-U+009F (CSI U+009B, OSC U+009D …), the bidirectional embeddings,
  overrides, isolates and marks (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), the line
  and paragraph separators (U+2028, U+2029) and lone surrogates (invalid UTF-16 halves a JSON
  body may carry, which cannot even be encoded for the terminal) become ``�`` (U+FFFD);
- so do the invisible characters: zero-width space, non-joiner and joiner (U+200B-U+200D), the
  word joiner and invisible operators (U+2060-U+2064), the deprecated format controls
  (U+206A-U+206F), the byte-order mark / zero-width no-break space (U+FEFF), the Mongolian vowel
  separator (U+180E), the soft hyphen (U+00AD), the combining grapheme joiner (U+034F), the
  Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the Khmer inherent vowels (U+17B4, U+17B5),
  the interlinear annotation marks (U+FFF9-U+FFFB) and the tag characters (U+E0000-U+E007F).
  They draw nothing, so ``ad\u200bmin`` would pass for ``admin`` and an id with a U+FEFF in it
  would look like one without (an emoji joined by U+200D shows as its parts).

Each character is replaced by exactly one character of width 1, so a sanitised text has the
length of the original: cursor positions in a text field and column widths stay right.
`escaped` writes the same characters as ``\\u202e`` escapes instead, for JSON and log lines where
the exact code point matters.
"""

from __future__ import annotations

import re

__all__ = ["REPLACEMENT", "escaped", "first_unsafe", "is_safe", "safe", "safe_lines"]

#: What a C1 control, a bidi control or a lone surrogate shows as.
REPLACEMENT = "\ufffd"

_BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
#: Characters that draw nothing (zero width or blank fillers) and so hide inside a text.
_INVISIBLE = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2064\u206a-\u206f"
    "\u3164\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f"
)
#: Every character that must not reach a terminal as itself.
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}{_INVISIBLE}\ud800-\udfff]")
#: The same set, newline and tab excepted (multi-line panels keep their lines).
_UNSAFE_BUT_LINES = re.compile(
    f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}{_INVISIBLE}\ud800-\udfff]"
)


def _picture(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return REPLACEMENT


_TABLE = {code: _picture(chr(code)) for code in (*range(0x20), *range(0x7F, 0xA0))}


def _replace(match: re.Match[str]) -> str:
    return _TABLE.get(ord(match.group(0))) or REPLACEMENT


def safe(text: object) -> str:
    """`text` (``str(text)``; None is "") with every unsafe character shown as a placeholder."""
    value = "" if text is None else text if isinstance(text, str) else str(text)
    if _UNSAFE.search(value) is None:  # the common case: nothing to do
        return value
    return _UNSAFE.sub(_replace, value)


def safe_lines(text: object) -> str:
    """Like `safe`, but newlines and tabs are kept: for multi-line panels and error texts."""
    value = "" if text is None else text if isinstance(text, str) else str(text)
    if _UNSAFE_BUT_LINES.search(value) is None:
        return value
    return _UNSAFE_BUT_LINES.sub(_replace, value)


def escaped(text: str, *, keep_lines: bool = False) -> str:
    """`text` with every unsafe character written as a JSON/Python escape (``\\u001b``);
    `keep_lines` leaves newlines and tabs (the layout of pretty-printed JSON) alone."""
    pattern = _UNSAFE_BUT_LINES if keep_lines else _UNSAFE
    return pattern.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a tag character: JSON writes it as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def first_unsafe(text: str) -> str | None:
    """The first unsafe character of `text` as ``U+001B``, or None when there is none."""
    match = _UNSAFE.search(text)
    return None if match is None else f"U+{ord(match.group(0)):04X}"


def is_safe(text: str) -> bool:
    """True when `safe` would leave `text` unchanged."""
    return _UNSAFE.search(text) is None
