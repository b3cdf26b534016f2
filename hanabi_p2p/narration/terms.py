"""The game's vocabulary in the current language: colours, ratings, end reasons, variants.

Words follow each language's published rulebook (e.g. Italian "fuochi d'artificio",
Romanian "jetoane albastre", Norwegian "blå sjetonger"); the catalogs hold the translations.
"""

from __future__ import annotations

from hanabi_p2p.i18n import N_, _, pgettext
from hanabi_p2p.rules.cards import Rating, Suit, Variant
from hanabi_p2p.rules.engine import End


def colour_name(suit: Suit) -> str:
    """The colour's name as used in a clue ("red"), lower case."""
    # pgettext: a colour word stands alone here, without a noun to agree with.
    names = {
        Suit.RED: pgettext("colour", "red"),
        Suit.YELLOW: pgettext("colour", "yellow"),
        Suit.GREEN: pgettext("colour", "green"),
        Suit.BLUE: pgettext("colour", "blue"),
        Suit.WHITE: pgettext("colour", "white"),
        Suit.MULTI: pgettext("colour", "multicolour"),
    }
    return names[suit]


_RATINGS = {
    Rating.HORRIBLE: N_("horrible"),
    Rating.MEDIOCRE: N_("mediocre"),
    Rating.HONOURABLE: N_("honourable"),
    Rating.EXCELLENT: N_("excellent"),
    Rating.AMAZING: N_("amazing"),
    Rating.LEGENDARY: N_("legendary"),
    Rating.DIVINE: N_("divine"),
    Rating.WIN: N_("win"),
    Rating.LOSS: N_("loss"),
}


def rating_word(key: str) -> str:
    """The translated rating (a `Rating`, or its value as a cached row keeps it; other text
    is shown as it is)."""
    try:
        return _(_RATINGS[Rating(key)])
    except ValueError:
        return key


_END_REASONS = {
    End.IN_PROGRESS: N_("the game is still on"),
    End.NORMAL: N_("the final round is over"),
    End.PERFECT: N_("every firework is complete"),
    End.STRIKEOUT: N_("the last fuse burnt out"),
    End.ALL_OR_NOTHING_FAIL: N_("a perfect show became impossible"),
    End.SOFTLOCK: N_("nobody could make a move"),
    End.TERMINATED: N_("the game was stopped early"),
}


def end_reason(end: End) -> str:
    return _(_END_REASONS[end])


_VARIANTS = {
    Variant.STANDARD: N_("standard"),
    Variant.MULTICOLOR: N_("multicolour"),
    Variant.MULTICOLOR_SHORT: N_("short multicolour"),
    Variant.RAINBOW: N_("rainbow"),
}


def variant_name(variant: Variant) -> str:
    return _(_VARIANTS[variant])


_OPTIONS = {
    "all_or_nothing": N_("all or nothing"),
    "choreography": N_("choreography"),
    "empty_clues": N_("empty clues"),
}


def option_name(option: str) -> str:
    return _(_OPTIONS[option]) if option in _OPTIONS else option


def variant_summary(variant: Variant, options: tuple[str, ...]) -> str:
    """E.g. "rainbow + all or nothing, empty clues"."""
    text = variant_name(variant)
    if options:
        text += " + " + ", ".join(option_name(o) for o in options)
    return text
