"""The rules engine: a pure, deterministic Hanabi state machine (no IO, no randomness).

CONTRACT (other modules code against exactly this; keep it stable):

* ``GameState(config, faces)``: ``faces[i]`` is the face of deck position ``i`` (0 = top)
  as far as the *observer* knows, or ``None`` if unknown. A local replay passes every face;
  a peer in a networked game passes all ``None`` and learns faces through ``reveal``.
  The initial deal happens in the constructor: seat 0 gets positions 0..H-1, seat 1 the next H,
  and so on (hanab.live's order). A newly drawn card goes to slot 0 (leftmost) of the hand.
* Public state (identical for every observer, hashed by ``public_hash``): ``hands`` (card ids
  per seat, slot 0 first), ``fireworks`` (suit -> top rank, 0 = none), ``discard_pile`` (card
  ids in order), ``clue_tokens``, ``strikes``, ``draw_index`` (next position to draw),
  ``turn`` (number of turn actions taken), ``current_seat``, ``final_round_turns_left``
  (None until the last card is drawn), ``end`` (an ``End``), ``clues`` (per card id, the
  clues it received, positive and negative), the faces of played/discarded cards.
* ``reveal(card, face)``: record a face learnt from the deck protocol. Contradicting a face
  already known raises ``LocalProtocolError``.
* ``check(action)`` raises ``IllegalAction`` naming the broken rule, e.g.
  "discard not allowed: all 8 clue tokens are available"; ``apply(action)`` checks, then
  applies and returns an ``Outcome``. A play or discard needs the card's face known
  (``reveal`` it first) or raises ``LocalProtocolError``. After an error, state is unchanged.
* ``legal_actions()`` lists every legal turn action of the current seat (clues with their
  ``touched`` set), using the faces the observer knows.
* ``knowledge(card, viewer)``: what ``viewer`` can know about ``card`` (for the holder: from
  clues and visible cards).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from hanabi_p2p.rules.cards import Card, Suit


class End(str, Enum):
    IN_PROGRESS = "in_progress"
    NORMAL = "normal"  # final round finished
    PERFECT = "perfect"  # every firework complete
    STRIKEOUT = "strikeout"  # third fuse
    ALL_OR_NOTHING_FAIL = "all_or_nothing_fail"  # a perfect score became impossible
    SOFTLOCK = "softlock"  # all_or_nothing: the player to move has no legal action
    TERMINATED = "terminated"  # stopped early (resignation, abort, hanab.live "game over")


@dataclass(frozen=True, slots=True)
class ClueRecord:
    """One clue as seen by one card: did it touch the card?"""

    turn: int
    giver: int
    colour: Suit | None
    rank: int | None
    touched: bool


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one applied action did, for logs, UIs and computer players."""

    kind: str  # "play" | "discard" | "clue" | "move" | "terminate"
    seat: int
    card: int | None = None
    face: Card | None = None
    placed: bool = False  # play: the card joined its firework
    strike: bool = False  # play: a fuse burnt (misplay or wrong choreography colour)
    tokens_gained: int = 0  # discard, 5-bonus, choreography bonus
    drew: int | None = None  # card id drawn as a replacement
    touched: frozenset[int] = frozenset()  # clue: card ids touched
    end: End = End.IN_PROGRESS  # the game's end state after this action


@dataclass(frozen=True, slots=True)
class CardKnowledge:
    """What a viewer can know about one card."""

    colours: frozenset[Suit]  # suits still possible from clues alone
    ranks: frozenset[int]  # ranks still possible from clues alone
    possible: frozenset[Card]  # faces consistent with every clue (positive and negative)
    # faces still possible once the cards the viewer sees are counted (copies left > 0),
    # with the number of unseen copies of each
    unseen_counts: dict[Card, int]
    clued: bool  # touched by at least one clue
