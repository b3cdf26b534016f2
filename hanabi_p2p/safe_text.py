"""The one sanitiser for text that came from another peer, before any output shows it.

Peers choose their names, their table's name, what they say and the reasons they give; a
hostile one can put terminal escapes (C0/C1 controls such as ESC or U+009B CSI), DEL, or
bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069: "Eve" that renders as
"evE" and drags the rest of the line along) into any of them. Every output that prints a
peer-provided string - the full-screen UI, headless lines, ``log show``, ``tables``, error
messages - passes it through `safe` first, so there is one rule and one place to fix it.

Rules, decided here once for every output:

* Characters. Every character Unicode classes as a control (Cc), format (Cf), line or
  paragraph separator (Zl, Zp), private use (Co), surrogate (Cs) or unassigned (Cn) becomes one
  REPLACEMENT, so a tampered name still looks tampered; other whitespace (an em space, a
  no-break space) becomes a plain space. Printable letters in every script are kept.
* Length. Text longer than its limit (counted in characters: the screen's layout fits them
  into columns) is cut to the limit *including* an ELLIPSIS, so a cut always shows: a long
  name cut silently could pass for another, shorter one.
* Names. In a name (a player's, a spectator's, a table's) runs of spaces are one space and
  spaces at either end go: "Alice\u2003\u2003Smith" and "Alice Smith" are shown alike
  (two names that look the same on a screen are shown the same). A name of nothing but
  spaces is shown as REPLACEMENT, never as nothing; the empty string stays empty (it is how
  callers say "no name": a table not named, a seat nobody else runs). Other text (table
  talk, reasons) keeps its spacing and may be blank.
"""

from __future__ import annotations

import unicodedata

from hanabi_p2p.limits import MAX_CHAT_CHARS, MAX_SHOWN_NAME_CHARS

# Shown in place of each removed character (a visible mark, never an escape).
REPLACEMENT = "?"
# Unicode general categories that must never reach a terminal as they are.
UNSAFE_CATEGORIES: frozenset[str] = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
# Marks the end of text that was cut to its limit.
ELLIPSIS = "…"


def is_safe_char(ch: str) -> bool:
    """True if `ch` may be printed as it is."""
    return unicodedata.category(ch) not in UNSAFE_CATEGORIES


def _visible(ch: str) -> str:
    """`ch` as it may be printed: an unsafe character replaced, a space made plain."""
    if not is_safe_char(ch):
        return REPLACEMENT
    return " " if ch.isspace() else ch


def cut(text: str, limit: int) -> str:
    """`text` at most `limit` characters long, the last of them an ELLIPSIS if it was cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + ELLIPSIS if limit > 0 else ""


def safe(text: str, limit: int = MAX_CHAT_CHARS) -> str:
    """Peer text (table talk, a reason) fit for a terminal: every unsafe character replaced,
    other spaces made plain, cut to `limit` characters with an ellipsis. Idempotent:
    ``safe(safe(x)) == safe(x)``."""
    # (only what can be shown is looked at: a hostile text may be long)
    return cut("".join(_visible(ch) for ch in text[: limit + 1]), limit)


def safe_name(name: str, limit: int = MAX_SHOWN_NAME_CHARS) -> str:
    """A player's, a spectator's or a table's name as every output shows it: as `safe`
    makes it, with runs of spaces made one and none at either end; never blank unless empty.
    Idempotent."""
    shown = " ".join("".join(_visible(ch) for ch in name).split())
    return cut(shown, limit) or (REPLACEMENT if name else "")


def fold_marks(text: str) -> str:
    """Case-folded, with accents and other combining marks dropped (Unicode NFKD): the one
    base of every "same name for a person" comparison (the UI's matching, unique names)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
