"""The one sanitiser for text that came from another peer, before any output shows it.

Peers choose their names, their table's name, what they say and the reasons they give; a
hostile one can put terminal escapes (C0/C1 controls such as ESC or U+009B CSI), DEL, or
bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069: "Eve" that renders as
"evE" and drags the rest of the line along) into any of them. Every output that prints a
peer-provided string - the full-screen UI, headless lines, ``log show``, ``tables``, error
messages - passes it through `safe` first, so there is one rule and one place to fix it.

Rule: every character Unicode classes as a control (Cc), format (Cf), line or paragraph
separator (Zl, Zp), private use (Co), surrogate (Cs) or unassigned (Cn) becomes one
REPLACEMENT so the text keeps its length and a tampered name still looks tampered; other
whitespace (tabs, newlines are controls, so already replaced) collapses to a plain space; the
result is cut to `limit` characters. Printable letters in every script are kept.
"""

from __future__ import annotations

import unicodedata

# Shown in place of each removed character (a visible mark, never an escape).
REPLACEMENT = "?"
# Unicode general categories that must never reach a terminal as they are.
UNSAFE_CATEGORIES: frozenset[str] = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
# Caps for the kinds of peer text a screen shows; one definition each.
MAX_SHOWN_NAME = 24
MAX_SHOWN_TEXT = 280


def is_safe_char(ch: str) -> bool:
    """True if `ch` may be printed as it is."""
    return unicodedata.category(ch) not in UNSAFE_CATEGORIES


def safe(text: str, limit: int = MAX_SHOWN_TEXT) -> str:
    """`text` with every unsafe character replaced, other spaces made plain, at most `limit`
    characters long. Idempotent: ``safe(safe(x)) == safe(x)``."""
    out: list[str] = []
    for ch in text[:limit]:
        if not is_safe_char(ch):
            out.append(REPLACEMENT)
        elif ch.isspace():
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def safe_name(name: str) -> str:
    """A peer's name or a table's name, as every output shows it."""
    return safe(name, MAX_SHOWN_NAME)


def fold_marks(text: str) -> str:
    """Case-folded, with accents and other combining marks dropped (Unicode NFKD): the one
    base of every "same name for a person" comparison (the UI's matching, unique names)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
