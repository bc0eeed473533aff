"""Text that came from a user or a file, made safe to echo in one line of a terminal or a message."""

from __future__ import annotations


def shorten(text: object, limit: int = 80) -> str:
    """Control characters (ESC, newlines, bidi overrides...) escaped as \\x1b, \\n...; long text cut with an ellipsis.

    Anything a user typed or a file held goes through here before it is printed, so it can neither
    move the cursor, recolour the terminal nor forge a second line of output."""
    escaped = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in str(text))
    return escaped if len(escaped) <= limit else escaped[: limit - 1] + "…"
