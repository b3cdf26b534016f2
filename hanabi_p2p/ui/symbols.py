"""Glyphs and styles: how tokens, fuses and cards look, in Unicode or plain ASCII.

Colour is never the only carrier of meaning: every card shows its suit letter (R/Y/G/B/W/M)
as well as its colour, so colour-blind players and monochrome terminals can play.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from prompt_toolkit.styles import Style

from hanabi_p2p.rules.cards import Card, Suit
from hanabi_p2p.ui.text import Line


@dataclass(frozen=True, slots=True)
class Glyphs:
    token: str  # an available clue token
    token_used: str  # a spent clue token
    fuse_burnt: str
    fuse_intact: str
    turn_marker: str  # points at the player whose turn it is
    impossible: str  # a colour or number ruled out
    rule: str  # horizontal separator
    vertical: str  # vertical separator
    ellipsis: str
    dot: str  # separates items in a header
    last_copy: str = "★"  # the last copy of a card still needed
    note: str = "✎"  # a card carries our private note
    computer: str = " ⚙"  # a computer player, followed by whose machine runs it
    new_mark: str = "▸ "  # a log line that is new since our last turn
    trash: str = "⊘"  # its holder can tell the card is no longer needed (known trash)
    # a chart's levels, lowest first (the first one is empty), and a save on the timeline
    blocks: str = " ▁▂▃▄▅▆▇█"
    save: str = "◆"


UNICODE = Glyphs("●", "○", "✖", "·", "▶", "·", "─", "│", "…", " · ")
ASCII = Glyphs(
    "o", ".", "X", "-", ">", ".", "-", "|", "~", " | ", last_copy="!", note="%",
    computer=" @", new_mark="> ", trash="x", blocks=" _.-:=+*#", save="s",
)


def glyphs_for(encoding: str) -> Glyphs:
    """Unicode glyphs when the terminal's encoding is UTF-8, else the ASCII set."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return ASCII
    return UNICODE if name.startswith("utf") else ASCII


def suit_style(suit: Suit) -> str:
    return f"class:suit.{suit.value}"


def card_face(card: Card) -> Line:
    """A visible card: its letter and number in its suit's colour, e.g. ``R3``."""
    return [(suit_style(card.suit), str(card))]


def suit_letter(suit: Suit) -> Line:
    return [(suit_style(suit), suit.letter)]


class Theme(StrEnum):
    """Colours for a dark or a light terminal background."""

    DARK = "dark"
    LIGHT = "light"
    AUTO = "auto"  # from the terminal's own hint (COLORFGBG), else dark


# Named style classes shared by both palettes (no colour: bold, underline, reverse).
_COMMON: dict[str, str] = {
    "title": "bold",
    "label": "bold",
    "clued": "underline",
    "you": "bold",
    "your-turn": "reverse bold",
    "waiting": "",
    "code": "bold",
    "input": "",
    "prompt": "bold",
    "new": "bold",
    "timeline-cursor": "reverse",  # the replay's step on its timeline of the game
}

# On a dark background. Multicolour has no single colour, so it is magenta and bold: its
# letter M carries the meaning anyway.
DARK_COLOURS: dict[str, str] = {
    "suit.red": "#ff5f5f bold",
    "suit.yellow": "#ffd700 bold",
    "suit.green": "#5fd75f bold",
    "suit.blue": "#5f87ff bold",
    "suit.white": "#ffffff bold",
    "suit.multicolor": "#d75fd7 bold underline",
    "dim": "#808080",
    "token": "#5f87ff bold",
    "fuse": "#ff5f5f bold",
    "clue-mark": "#d7d7af",
    "turn-marker": "#ffd700 bold",
    "final-round": "#ff8700 bold",
    "dropped": "#ff5f5f bold",
    "error": "#ff5f5f bold",
    "notice": "#87d7ff",
    "chat": "#d7d7af",
    "rule": "#585858",
    "good": "#5fd75f bold",
    "bad": "#ff5f5f bold",
    "last-copy": "#ffaf00 bold",
    "note": "#87d7ff bold",
    "bot": "#af87ff",
    "new-mark": "#ffd700 bold",
}

# On a light background: white cards are drawn dark grey and yellow a deep amber, since the
# dark palette's #ffffff and #ffd700 vanish on white.
LIGHT_COLOURS: dict[str, str] = {
    **DARK_COLOURS,
    "suit.red": "#c00000 bold",
    "suit.yellow": "#9a6700 bold",
    "suit.green": "#007a00 bold",
    "suit.blue": "#0040c0 bold",
    "suit.white": "#404040 bold",
    "suit.multicolor": "#a000a0 bold underline",
    "dim": "#6c6c6c",
    "token": "#0040c0 bold",
    "fuse": "#c00000 bold",
    "clue-mark": "#5f5f00",
    "turn-marker": "#9a6700 bold",
    "final-round": "#b35900 bold",
    "dropped": "#c00000 bold",
    "error": "#c00000 bold",
    "notice": "#005f87",
    "chat": "#5f5f00",
    "rule": "#a8a8a8",
    "good": "#007a00 bold",
    "bad": "#c00000 bold",
    "last-copy": "#b35900 bold",
    "note": "#005f87 bold",
    "bot": "#5f00af",
    "new-mark": "#9a6700 bold",
}


def detect_theme(environ: Mapping[str, str]) -> Theme:
    """LIGHT when the terminal says its background is light (COLORFGBG="fg;bg", as set by
    rxvt, Konsole, iTerm2 and others: background colour 7 or 15 is white), else DARK."""
    value = environ.get("COLORFGBG", "")
    background = value.rsplit(";", 1)[-1].strip()
    return Theme.LIGHT if background in ("7", "15") else Theme.DARK


def style_for(theme: Theme, environ: Mapping[str, str] | None = None) -> Style:
    if theme is Theme.AUTO:
        theme = detect_theme(os.environ if environ is None else environ)
    colours = LIGHT_COLOURS if theme is Theme.LIGHT else DARK_COLOURS
    return Style.from_dict({**_COMMON, **colours})


STYLE = style_for(Theme.DARK)
