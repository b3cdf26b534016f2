"""Glyphs and styles: how tokens, fuses and cards look, in Unicode or plain ASCII.

Colour is never the only carrier of meaning: every card shows its suit letter (R/Y/G/B/W/M)
as well as its colour, so colour-blind players and monochrome terminals can play.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

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


UNICODE = Glyphs("●", "○", "✖", "·", "▶", "·", "─", "│", "…", " · ")
ASCII = Glyphs("o", ".", "X", "-", ">", ".", "-", "|", "~", " | ")


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


# Named style classes; the colours suit both dark and light backgrounds. Multicolour has no
# single colour, so it is magenta and bold: its letter M carries the meaning anyway.
STYLE = Style.from_dict(
    {
        "suit.red": "#ff5f5f bold",
        "suit.yellow": "#ffd700 bold",
        "suit.green": "#5fd75f bold",
        "suit.blue": "#5f87ff bold",
        "suit.white": "#ffffff bold",
        "suit.multicolor": "#d75fd7 bold underline",
        "dim": "#808080",
        "title": "bold",
        "label": "bold",
        "token": "#5f87ff bold",
        "fuse": "#ff5f5f bold",
        "clued": "underline",
        "clue-mark": "#d7d7af",
        "turn-marker": "#ffd700 bold",
        "you": "bold",
        "your-turn": "reverse bold",
        "waiting": "",
        "final-round": "#ff8700 bold",
        "dropped": "#ff5f5f bold",
        "error": "#ff5f5f bold",
        "notice": "#87d7ff",
        "chat": "#d7d7af",
        "rule": "#585858",
        "code": "bold",
        "good": "#5fd75f bold",
        "bad": "#ff5f5f bold",
        "input": "",
        "prompt": "bold",
    }
)
