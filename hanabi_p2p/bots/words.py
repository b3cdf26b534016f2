"""The coach's words: why the convention player takes an action, in the current language.

The player decides without words; an ``Advice`` keeps what it would say as a ``Words`` (which
sentence, and the cards, names and numbers to put in it), and renders it only when someone
reads ``Advice.text``. So a self-play game pays nothing for the text, and the sentence comes
out in the language chosen at start-up (``hanabi_p2p.i18n.setup``), whenever that was.

Cards are written as the table writes them (letter and number, ``R3``, the same in every
language) and colours with the table's own colour words (``hanabi_p2p.narration.terms``).
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from hanabi_p2p.i18n import N_, _, ngettext
from hanabi_p2p.narration.terms import colour_name
from hanabi_p2p.rules.actions import Clue
from hanabi_p2p.rules.cards import Card
from hanabi_p2p.safe_text import safe_name


class Say(Enum):
    """One sentence of the coach. Each value is its English text (the catalog's msgid)."""

    PLAY_KNOWN = N_("play slot {slot}: the clues say it is playable")
    PROMPT = N_("play slot {slot}: the last clue points at {holder}'s {focus}, which needs "
                "{missing} first, and my clued card there must be it — a prompt")
    FINESSE = N_("play slot {slot}: the last clue points at {holder}'s {focus}, which needs "
                 "{missing} first, and my newest unclued card must be it — a finesse")
    FINESSE_OR_BLUFF = N_("play slot {slot}: the last clue points at {holder}'s {focus}, "
                          "which needs {missing} first, and my newest unclued card must be "
                          "it — a finesse, or a bluff if it is another playable card")
    SELF_FINESSE = N_("play slot {slot}: the clue on my slot {count} cannot mean that card "
                      "as it is and nobody else can hold the card it needs, so my newest "
                      "unclued card must be it — a self-finesse")
    REVERSE_FINESSE = N_("play slot {slot}: {holder}'s {focus} needs {missing} first and "
                         "nobody else can hold it, so {holder} waits for my newest unclued "
                         "card to be it — a reverse finesse on me")
    FINESSE_GIVEN = N_("clue {player} {clue}: their {focus} needs {missing} first, and "
                       "{other} holds it as their newest unclued card — a finesse on "
                       "{other}: {other} plays it blind, then {player} plays the {focus}")
    PROMPT_GIVEN = N_("clue {player} {clue}: their {focus} needs {missing} first, and "
                      "{other} holds it clued — a prompt: {other} plays it, then {player} "
                      "plays the {focus}")
    REVERSE_FINESSE_GIVEN = N_("clue {player} {clue}: their {focus} will read as {missing}, "
                               "which {other} holds as their newest unclued card — a "
                               "reverse finesse on {other}: {player} waits for it, {other} "
                               "plays it blind, then {player} plays the {focus}")
    SELF_FINESSE_GIVEN = N_("clue {player} {clue}: their {focus} needs {missing} first, "
                            "their own newest unclued card — a self-finesse: {player} plays "
                            "that one blind first, then the {focus}")
    GAMBLE = N_("play slot {slot}: my last turn, and it is playable with chance {percent}%; "
                "a misplay now costs only a fuse")
    GAMBLE_EARLY = N_("play slot {slot}: the deck is nearly out and it is playable with chance "
                      "{percent}%; a point is worth more than the clue token a discard brings "
                      "back now")
    LOCKED_PLAY = N_("play slot {slot}, my likeliest playable card: every clue would mislead "
                     "and discarding is not allowed with 8 clue tokens")
    SAVE_FIVE = N_("clue {player} {clue}: focus on the chop, it is {card}, a 5 — a save")
    SAVE_LAST = N_("clue {player} {clue}: focus on the chop, it is the last {card} — a save")
    SAVE_TWO = N_("clue {player} {clue}: focus on the chop, it is {card}, a 2 whose other "
                  "copy nobody holds — a save")
    # PLAY_CLUE's value is only a key: its words depend on a count (see _play_clue)
    PLAY_CLUE = "play clue"
    STALL_FULL = N_("clue {player} {clue}: nothing better to do with the clue tokens full "
                    "— a stall")
    STALL_SPARE = N_("clue {player} {clue}: better than discarding now, with the deck nearly "
                     "out or tokens to spare — a stall")
    STALL_FREE = N_("clue {player} {clue}: the clue tokens are full, so a clue costs nothing "
                    "— a stall")
    STALL_UNCLEAN = N_("clue {player} {clue}: the clue tokens are full and no clue is clean "
                       "— a stall")
    STALL_AFTER_SAVE = N_("clue {player} {clue}: my chop was just saved and the next card may "
                          "need saving too, so a clue that helps beats a discard — a stall")
    STALL_AFTER_SAVE_RISK = N_("clue {player} {clue}: my chop was just saved and the card "
                               "behind it may well be needed, so with tokens to spare a "
                               "harmless clue beats a discard — a stall")
    STALL_TWIN = N_("clue {player} {clue}: the card just discarded has one copy left that I "
                    "cannot see, perhaps my chop, so a clue that helps beats a discard — a stall")
    STALL_PACE = N_("clue {player} {clue}: the turns left hardly cover the cards still to play "
                    "and a card to play is known, so a clue beats a discard that would bring "
                    "the end a turn closer — a stall")
    FIX = N_("clue {player} {clue}: their slot {slot} reads as playable but it is {card} "
             "— a fix")
    PLAN_PLAY = N_("play slot {slot}: counting the turns left, playing it now gets the most "
                   "cards played by the end ({count} more)")
    PLAN_CLUE = N_("clue {player} {clue}: counting the turns left, this gets the most cards "
                   "played by the end ({count} more)")
    PLAN_DISCARD = N_("discard slot {slot}: counting the turns left, this gets the most cards "
                      "played by the end ({count} more)")
    SCREAM = N_("discard slot {slot} rather than play: {player}'s chop is {card}, which must "
                "not go, and no clue token is left to save it — a scream discard")
    DISCARD_TRASH = N_("discard slot {slot}: the clues say it is no longer needed")
    DISCARD_CHOP = N_("discard slot {slot}: it is the chop, the oldest unclued card")
    DISCARD_NEXT = N_("discard slot {slot}: my chop must be a last copy, so the next unclued "
                      "card goes instead")
    DISCARD_LOCKED_FREE = N_("discard slot {slot}: every card is clued and none is a last "
                             "copy; my partner can use the clue token better than I can use "
                             "a stall")
    DISCARD_LOCKED = N_("discard slot {slot}: every card is clued and no clue helps; losing "
                        "this one costs the fewest points")


class Words(NamedTuple):
    """A sentence still to be rendered: ``say`` and what fills its placeholders (a named
    tuple: one is made every turn of every self-play game, and a tuple is quicker to make
    than a frozen dataclass)."""

    say: Say
    slot: int = 0
    seat: int = 0  # the player named in the sentence (a clue's receiver, a card's holder)
    player: str | None = None  # that player's name; None: "seat 2"
    clue: Clue | None = None
    card: Card | None = None
    focus: Card | None = None
    number: int = 0  # cards played (a play clue), or a chance in percent (a gamble)
    other: int = 0  # a second player named (who answers a finesse or prompt)
    other_name: str | None = None  # that player's name; None: "seat 3"

    def render(self) -> str:
        template = _play_clue(self.number) if self.say is Say.PLAY_CLUE else _(self.say.value)
        # a name comes from a peer: shown only once made safe for a terminal
        player = (_("seat {number}").format(number=self.seat + 1) if self.player is None
                  else safe_name(self.player))
        other = (_("seat {number}").format(number=self.other + 1) if self.other_name is None
                 else safe_name(self.other_name))
        return template.format(
            slot=self.slot, player=player, holder=player,
            clue=_clue_word(self.clue), card=self.card, missing=self.card,
            focus=self.focus, count=self.number, percent=self.number, other=other,
        )


def _play_clue(count: int) -> str:
    return ngettext("clue {player} {clue}: it gets {count} card played — a play clue",
                    "clue {player} {clue}: it gets {count} cards played — a play clue", count)


def _clue_word(clue: Clue | None) -> str:
    if clue is None:
        return ""
    return colour_name(clue.colour) if clue.colour is not None else str(clue.rank)


__all__ = ["Say", "Words"]
