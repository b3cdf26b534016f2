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
* ``check(action)`` raises ``IllegalAction`` (a typed refusal of hanabi_p2p/refusals.py)
  naming the broken rule, e.g.
  "discard not allowed: all 8 clue tokens are available"; ``apply(action)`` checks, then
  applies and returns an ``Outcome``. A play or discard needs the card's face known
  (``reveal`` it first) or raises ``LocalProtocolError``. After an error, state is unchanged.
* ``legal_actions()`` lists every legal turn action of the current seat (clues with their
  ``touched`` set), using the faces the observer knows.
* ``knowledge(card, viewer)``: what ``viewer`` can know about ``card`` (for the holder: from
  clues and visible cards).

Details and additions (compatible with the above):

* Dealing gives each card in turn to slot 0, so a fresh hand reads newest first:
  seat 0 holds ``[H-1, ..., 1, 0]`` (hanab.live shows hands the same way).
* ``knowledge(card, viewer, asker=None)``: ``asker`` leaves the asking seat's own hand out
  of the counted cards (a bot modelling what another player knows).
* ``clues`` is a list indexed by card id; each entry is a tuple of ``ClueRecord``.
  ``played`` lists the ids of cards placed on fireworks, in order.
* ``faces`` is the observer's list of known faces (mutable only through ``reveal``).
* ``score`` (0 on a loss: strikeout, all_or_nothing_fail, softlock; else the fireworks
  total), ``fireworks_total``, ``rating``, ``over``, ``max_score``, ``cards_left``,
  ``history`` (every applied action, ``Move`` and ``Terminate`` included), ``copy()``,
  ``public_hash()``, ``max_achievable``, ``holder(card)``, ``possible_mask(card)`` (clue
  knowledge as a face mask, see faces.py).
* ``reveal`` also refuses a face the deck does not have that many copies of, a face of
  another variant, and a face contradicting the clues the card received.
* Clues whose ``touched`` set the observer cannot compute (a hand with unknown faces) are
  left out of ``legal_actions()``; the giver's own peer always knows the target's faces.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum

import msgpack

from hanabi_p2p import refusals as rf
from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play, Terminate, TurnAction
from hanabi_p2p.rules.cards import (
    MAX_CLUE_TOKENS,
    MAX_STRIKES,
    RANKS,
    Card,
    GameConfig,
    Rating,
    Suit,
    rating,
)
from hanabi_p2p.rules.faces import RANKS_PER_SUIT, FaceTable, face_table
from hanabi_p2p.rules.movegen import (
    ActionTable,
    ClueSlot,
    DiscardTable,
    build_clue_slot,
    hand_masks,
    plays_and_discards,
)


class End(str, Enum):
    IN_PROGRESS = "in_progress"
    NORMAL = "normal"  # final round finished
    PERFECT = "perfect"  # every firework complete
    STRIKEOUT = "strikeout"  # third fuse
    ALL_OR_NOTHING_FAIL = "all_or_nothing_fail"  # a perfect score became impossible
    SOFTLOCK = "softlock"  # all_or_nothing: the player to move has no legal action
    TERMINATED = "terminated"  # stopped early (resignation, abort, hanab.live "game over")


# Ends that lose the game: the score is 0 (as hanab.live and the Hanabi Learning Environment).
LOSING_ENDS = frozenset({End.STRIKEOUT, End.ALL_OR_NOTHING_FAIL, End.SOFTLOCK})

# isinstance() tuples: a ``Play | Discard`` union would be rebuilt on every call (hot path).
_TURN_ACTIONS = (Play, Discard, Clue)
_HAND_ACTIONS = (Play, Discard)

# Version tag of the public_hash encoding; bump it whenever the encoding changes.
PUBLIC_HASH_VERSION = "hanabi-p2p/public-state/v1"


@dataclass(frozen=True, slots=True)
class ClueRecord:
    """One clue as seen by one card: did it touch the card?"""

    turn: int
    giver: int
    colour: Suit | None
    rank: int | None
    touched: bool


class OutcomeKind(StrEnum):
    """What kind of action an `Outcome` is the result of."""

    PLAY = "play"
    DISCARD = "discard"
    CLUE = "clue"
    MOVE = "move"  # a card moved within its holder's hand (not a turn)
    TERMINATE = "terminate"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one applied action did, for logs, UIs and computer players."""

    kind: OutcomeKind
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


def _ids(cards: frozenset[int] | set[int]) -> str:
    return ", ".join(str(c) for c in sorted(cards)) if cards else "none"


class GameState:
    """One observer's replica of a game. See the module docstring for the contract."""

    __slots__ = (
        "_clue_slots",
        "_clue_wire",
        "_discarded_count",
        "_discards",
        "_fi",
        "_fw",
        "_hand_masks",
        "_known_count",
        "_plays",
        "_poss",
        "_table",
        "_where",
        "clue_tokens",
        "clues",
        "config",
        "current_seat",
        "discard_pile",
        "draw_index",
        "end",
        "faces",
        "final_round_turns_left",
        "hands",
        "history",
        "played",
        "strikes",
        "turn",
    )

    config: GameConfig
    faces: list[Card | None]
    hands: list[list[int]]
    discard_pile: list[int]
    played: list[int]
    clues: list[tuple[ClueRecord, ...]]
    clue_tokens: int
    strikes: int
    draw_index: int
    turn: int
    current_seat: int
    final_round_turns_left: int | None
    end: End
    history: list[Action]
    _table: FaceTable
    _fi: list[int]  # card id -> face index, -1 if unknown to the observer
    _fw: list[int]  # suit index -> top rank
    _poss: list[int]  # card id -> face mask still possible from clues
    _known_count: list[int]  # face index -> cards known to have that face
    _discarded_count: list[int]  # face index -> copies in the discard pile
    _where: list[int]  # card id -> holder seat, or -1 (deck, fireworks, discard pile)
    # legal_actions() support (movegen.py): seat -> the clue bucket masks of its hand, or
    # None when the hand changed since (recomputed lazily); target * players + giver -> the
    # clues last built for that pair (immutable, so copies may share them).
    _hand_masks: list[tuple[int, ...] | None]
    _clue_slots: list[ClueSlot | None]
    # card id -> its clue records as ``public_hash`` encodes them, built as they are added:
    # the hash is taken every turn by every peer, and a card keeps its records to the end
    _clue_wire: list[tuple[tuple[int, int, str | None, int | None, bool], ...]]
    _plays: ActionTable  # interned Play(seat, card), [seat][card]
    _discards: DiscardTable  # interned Discard(seat, card), [seat][card]

    def __init__(self, config: GameConfig, faces: Sequence[Card | None]) -> None:
        table = face_table(config)
        if len(faces) != config.deck_size:
            raise LocalProtocolError(
                f"a {config.variant.value} deck has {config.deck_size} cards, not {len(faces)}"
            )
        self.config = config
        self._table = table
        self.faces = [None] * config.deck_size
        self._fi = [-1] * config.deck_size
        self._known_count = [0] * len(table.cards)
        self._poss = [table.all_faces] * config.deck_size
        self._where = [-1] * config.deck_size
        self._hand_masks = [None] * config.players
        self._clue_slots = [None] * (config.players * config.players)
        self._plays, self._discards = plays_and_discards(config.players, config.deck_size)
        for card, face in enumerate(faces):
            if face is not None:
                self.reveal(card, face)
        self.hands = [[] for _ in range(config.players)]
        self.discard_pile = []
        self.played = []
        self.clues = [()] * config.deck_size
        self._clue_wire = [()] * config.deck_size
        self.clue_tokens = MAX_CLUE_TOKENS
        self.strikes = 0
        self.draw_index = 0
        self.turn = 0
        self.current_seat = 0
        self.final_round_turns_left = None
        self.end = End.IN_PROGRESS
        self.history = []
        self._fw = [0] * len(table.suits)
        self._discarded_count = [0] * len(table.cards)
        for seat in range(config.players):
            for _ in range(config.hand_size):
                self._draw(seat)

    # ------------------------------------------------------------------ public views

    @property
    def fireworks(self) -> dict[Suit, int]:
        return dict(zip(self._table.suits, self._fw, strict=True))

    @property
    def fireworks_total(self) -> int:
        return sum(self._fw)

    @property
    def score(self) -> int:
        return 0 if self.end in LOSING_ENDS else sum(self._fw)

    @property
    def max_score(self) -> int:
        return self.config.max_score

    @property
    def max_achievable(self) -> int:
        """The best score still reachable: per suit, up to the first rank with no copy left.

        The rules do not end the game when this is reached (hanab.live does).
        """
        table = self._table
        total = 0
        for suit_i in range(len(table.suits)):
            base = suit_i * RANKS_PER_SUIT
            for rank_i in range(RANKS_PER_SUIT):
                if self._discarded_count[base + rank_i] >= table.copies[base + rank_i]:
                    break
                total += 1
        return total

    @property
    def rating(self) -> Rating:
        return rating(self.config, self.score, won=self.end is End.PERFECT)

    @property
    def over(self) -> bool:
        return self.end is not End.IN_PROGRESS

    @property
    def cards_left(self) -> int:
        return self.config.deck_size - self.draw_index

    def holder(self, card: int) -> int | None:
        """The seat holding ``card``, or None (deck, fireworks or discard pile)."""
        seat = self._where[card]
        return None if seat < 0 else seat

    def possible_mask(self, card: int) -> int:
        """Faces still possible for ``card`` from clues alone, as a face mask (faces.py)."""
        return self._poss[card]

    def copy(self) -> GameState:
        new = object.__new__(GameState)
        new.config = self.config
        new._table = self._table
        new.faces = self.faces.copy()
        new._fi = self._fi.copy()
        new._known_count = self._known_count.copy()
        new._poss = self._poss.copy()
        new.hands = [hand.copy() for hand in self.hands]
        new.discard_pile = self.discard_pile.copy()
        new.played = self.played.copy()
        new.clues = self.clues.copy()
        new._clue_wire = self._clue_wire.copy()
        new.clue_tokens = self.clue_tokens
        new.strikes = self.strikes
        new.draw_index = self.draw_index
        new.turn = self.turn
        new.current_seat = self.current_seat
        new.final_round_turns_left = self.final_round_turns_left
        new.end = self.end
        new.history = self.history.copy()
        new._fw = self._fw.copy()
        new._discarded_count = self._discarded_count.copy()
        new._where = self._where.copy()
        new._hand_masks = self._hand_masks.copy()
        new._clue_slots = self._clue_slots.copy()
        new._plays = self._plays
        new._discards = self._discards
        return new

    def public_hash(self) -> bytes:
        """SHA-256 of a canonical msgpack encoding of the public state.

        The log layer exchanges this after every turn so that peers notice a divergence at
        once. Only public facts go in, so every honest observer gets the same bytes: faces
        known to some observers only (cards in hands, the deck) never enter; the faces of
        played and discarded cards do. Hand order is cosmetic (a concurrent ``Move`` may be
        applied at different moments by different peers), so each hand is encoded as its
        SORTED card ids. The encoding is one msgpack array (no maps), in this fixed order:

          0 PUBLIC_HASH_VERSION (str)
          1 config: [players, variant name, all_or_nothing, choreography, empty_clues]
          2 hands: one sorted list of card ids per seat, seat 0 first
          3 fireworks: top rank per suit, in the variant's suit order
          4 discard pile: card ids in discard order
          5 played: card ids in the order they were placed
          6 public faces: [card id, suit name, rank] for every played or discarded card,
            sorted by card id
          7 clue tokens, 8 strikes, 9 draw index, 10 turn, 11 current seat,
          12 final-round turns left (nil before the deck runs out), 13 end (End value)
          14 clues: [card id, [[turn, giver, colour name or nil, rank or nil, touched], ...]]
             for every card that received a clue, sorted by card id
        """
        cfg = self.config
        public_cards = sorted(self.played + self.discard_pile)
        fi, hash_faces = self._fi, self._table.hash_faces
        encoded = [
            PUBLIC_HASH_VERSION,
            [cfg.players, cfg.variant.value, cfg.all_or_nothing, cfg.choreography,
             cfg.empty_clues],
            [sorted(hand) for hand in self.hands],
            list(self._fw),
            list(self.discard_pile),
            list(self.played),
            [[c, *hash_faces[fi[c]]] for c in public_cards if fi[c] >= 0],
            self.clue_tokens,
            self.strikes,
            self.draw_index,
            self.turn,
            self.current_seat,
            self.final_round_turns_left,
            self.end.value,
            [[card, records] for card, records in enumerate(self._clue_wire) if records],
        ]
        packed: bytes = msgpack.packb(encoded, use_bin_type=True)
        return hashlib.sha256(packed).digest()

    # ------------------------------------------------------------------ faces

    def reveal(self, card: int, face: Card) -> None:
        """Record the face of ``card`` learnt from the deck protocol (or a local deal)."""
        if not 0 <= card < len(self.faces):
            raise LocalProtocolError(f"card {card} does not exist")
        table = self._table
        if face.suit not in table.suit_index or face.rank not in RANKS:
            variant = self.config.variant.value
            raise LocalProtocolError(f"{face} is not a card of the {variant} deck")
        fi = table.index(face)
        known = self._fi[card]
        if known == fi:
            return
        if known >= 0:
            raise LocalProtocolError(
                f"card {card} was revealed as {table.cards[known]}, now as {face}"
            )
        if not self._poss[card] >> fi & 1:
            raise LocalProtocolError(f"card {card} cannot be {face}: its clues rule that out")
        if self._known_count[fi] >= table.copies[fi]:
            raise LocalProtocolError(
                f"card {card} cannot be {face}: the deck has only {table.copies[fi]}"
            )
        self._known_count[fi] += 1
        self._fi[card] = fi
        self.faces[card] = face
        if (seat := self._where[card]) >= 0:
            self._hand_masks[seat] = None

    # ------------------------------------------------------------------ checking

    def check(self, action: Action) -> None:
        """Raise ``IllegalAction`` (or ``LocalProtocolError``) if ``action`` is not legal now."""
        self._check(action)

    def _check(self, action: Action) -> frozenset[int]:
        """Check ``action``; for a clue, return the cards it touches."""
        if self.end is not End.IN_PROGRESS:
            raise rf.GameEnded()
        players = self.config.players
        seat = action.seat
        if not 0 <= seat < players:
            raise rf.SeatDoesNotExist(seat, players - 1)
        if isinstance(action, Move):
            self._check_in_hand(seat, action.card)
            size = len(self.hands[seat])
            if not 0 <= action.to < size:
                raise rf.CannotMoveThere(action.card, action.to, seat, size)
            return frozenset()
        if isinstance(action, Terminate):
            return frozenset()
        if not isinstance(action, _TURN_ACTIONS):
            raise LocalProtocolError(f"not an action: {action!r}")
        if seat != self.current_seat:
            raise rf.NotThisSeatsTurn(self.current_seat)
        if isinstance(action, Clue):
            return self._check_clue(action)
        self._check_in_hand(seat, action.card)
        if isinstance(action, Discard):
            if self.clue_tokens >= MAX_CLUE_TOKENS:
                raise rf.CluesAllAvailable(MAX_CLUE_TOKENS)
        elif action.announce is not None:
            if not self.config.choreography:
                raise rf.AnnounceOff()
            if action.announce not in self.config.clue_colours:
                raise rf.ColourNotInVariant(
                    "announce", action.announce.value, self.config.variant.value)
        return frozenset()

    def _check_in_hand(self, seat: int, card: int) -> None:
        if not (isinstance(card, int) and 0 <= card < len(self._where)
                and self._where[card] == seat):
            raise rf.NotInHand(card, seat)

    def _check_clue(self, clue: Clue) -> frozenset[int]:
        cfg = self.config
        if self.clue_tokens <= 0:
            raise rf.NoClueTokens()
        target = clue.target
        if target == clue.seat:
            raise rf.ClueToSelf()
        if not 0 <= target < cfg.players:
            raise rf.ClueTargetMissing(target)
        table = self._table
        if (clue.colour is None) == (clue.rank is None):
            raise rf.ClueNamesOneThing()
        if clue.colour is not None:
            if clue.colour not in cfg.clue_colours:
                raise rf.ColourNotInVariant("clue", clue.colour.value, cfg.variant.value)
            mask = table.colour_mask[clue.colour]
        else:
            if clue.rank not in RANKS:
                raise rf.NoSuchNumber(clue.rank)
            mask = table.rank_mask[clue.rank]
        hand = self.hands[target]
        fi = self._fi
        declared = clue.touched
        if all(fi[c] >= 0 for c in hand):
            touched = frozenset(c for c in hand if mask >> fi[c] & 1)
            if declared is not None and declared != touched:
                raise rf.ClueTouchesOthers(_ids(touched), _ids(declared))
        else:
            if declared is None:
                raise LocalProtocolError(
                    f"the clue must declare the cards it touches: seat {target}'s hand "
                    "has faces this observer does not know"
                )
            self._check_declared(target, declared, mask)
            touched = frozenset(declared)
        if not touched and not cfg.empty_clues:
            raise rf.EmptyClue()
        return touched

    def _check_declared(self, target: int, declared: frozenset[int], mask: int) -> None:
        """A declared touched set must fit the hand, every known face and earlier clues."""
        hand = self.hands[target]
        stray = declared.difference(hand)
        if stray:
            raise rf.ClueOutsideHand(_ids(stray), target)
        fi = self._fi
        poss = self._poss
        for c in hand:
            hit = c in declared
            if fi[c] >= 0 and bool(mask >> fi[c] & 1) != hit:
                verb = "cannot touch" if hit else "must touch"
                raise rf.ClueDeniesFace(verb, c)
            left = poss[c] & mask if hit else poss[c] & ~mask
            if not left:
                verb = "touching" if hit else "missing"
                raise rf.ClueDeniesClues(verb, c)

    # ------------------------------------------------------------------ applying

    def apply(self, action: Action) -> Outcome:
        """Check ``action`` and apply it. On any error the state is unchanged."""
        touched = self._check(action)
        if isinstance(action, _HAND_ACTIONS) and self._fi[action.card] < 0:
            raise LocalProtocolError(f"reveal card {action.card} before it is played")
        self.history.append(action)
        if isinstance(action, Move):
            hand = self.hands[action.seat]
            hand.remove(action.card)
            hand.insert(action.to, action.card)
            return Outcome(OutcomeKind.MOVE, action.seat, card=action.card, end=self.end)
        if isinstance(action, Terminate):
            self.end = End.TERMINATED
            return Outcome(OutcomeKind.TERMINATE, action.seat, end=self.end)
        if isinstance(action, Clue):
            self._apply_clue(action, touched)
            self._end_turn(drew=False)
            return Outcome(OutcomeKind.CLUE, action.seat, touched=touched, end=self.end)
        return self._apply_play_or_discard(action)

    def _apply_clue(self, clue: Clue, touched: frozenset[int]) -> None:
        table = self._table
        mask = (table.colour_mask[clue.colour] if clue.colour is not None
                else table.rank_mask[clue.rank or 0])
        miss = ~mask
        hit_record = ClueRecord(self.turn, clue.seat, clue.colour, clue.rank, True)
        miss_record = ClueRecord(self.turn, clue.seat, clue.colour, clue.rank, False)
        colour = clue.colour.value if clue.colour is not None else None
        hit_wire = (self.turn, clue.seat, colour, clue.rank, True)
        miss_wire = (self.turn, clue.seat, colour, clue.rank, False)
        clues = self.clues
        wire = self._clue_wire
        poss = self._poss
        for c in self.hands[clue.target]:
            if c in touched:
                clues[c] = (*clues[c], hit_record)
                wire[c] = (*wire[c], hit_wire)
                poss[c] &= mask
            else:
                clues[c] = (*clues[c], miss_record)
                wire[c] = (*wire[c], miss_wire)
                poss[c] &= miss
        self.clue_tokens -= 1

    def _apply_play_or_discard(self, action: Play | Discard) -> Outcome:
        seat, card = action.seat, action.card
        fi = self._fi[card]
        suit_i, rank = divmod(fi, RANKS_PER_SUIT)
        rank += 1
        self.hands[seat].remove(card)
        self._where[card] = -1
        self._hand_masks[seat] = None
        gained = 0
        placed = strike = False
        if isinstance(action, Discard):
            kind = OutcomeKind.DISCARD
            self._to_discard_pile(card, fi)
            self.clue_tokens += 1
            gained = 1
        else:
            kind = OutcomeKind.PLAY
            announce = action.announce
            if announce is not None and not self._table.colour_mask[announce] >> fi & 1:
                strike = True  # choreography: wrong colour announced
            elif self._fw[suit_i] == rank - 1:
                placed = True
                self._fw[suit_i] = rank
                self.played.append(card)
                bonuses = (rank == RANKS[-1]) + (announce is not None)
                gained = min(bonuses, MAX_CLUE_TOKENS - self.clue_tokens)
                self.clue_tokens += gained
            else:
                strike = True
            if strike:
                self._to_discard_pile(card, fi)
                self.strikes += 1
        drew = self._draw(seat) if self.draw_index < len(self.faces) else None
        lost_needed = (not placed and self.config.all_or_nothing
                       and rank > self._fw[suit_i]
                       and self._discarded_count[fi] == self._table.copies[fi])
        self._end_turn(drew=drew is not None, lost_needed=lost_needed)
        return Outcome(kind, seat, card=card, face=self._table.cards[fi], placed=placed,
                       strike=strike, tokens_gained=gained, drew=drew, end=self.end)

    def _to_discard_pile(self, card: int, fi: int) -> None:
        self.discard_pile.append(card)
        self._discarded_count[fi] += 1

    def _draw(self, seat: int) -> int:
        card = self.draw_index
        self.draw_index += 1
        self.hands[seat].insert(0, card)
        self._where[card] = seat
        self._hand_masks[seat] = None
        return card

    def _end_turn(self, drew: bool, lost_needed: bool = False) -> None:
        """Count the turn, then decide whether (and how) the game ended."""
        cfg = self.config
        self.turn += 1
        self.current_seat = self.turn % cfg.players
        if self.strikes >= MAX_STRIKES:
            self.end = End.STRIKEOUT
        elif sum(self._fw) == len(self._fw) * RANKS_PER_SUIT:  # cfg.max_score, faster
            self.end = End.PERFECT
        elif lost_needed:
            self.end = End.ALL_OR_NOTHING_FAIL
        elif self.final_round_turns_left is not None:
            self.final_round_turns_left -= 1
            if self.final_round_turns_left == 0:
                self.end = End.NORMAL
        elif drew and self.draw_index == len(self.faces) and not cfg.all_or_nothing:
            # The drawer of the last card starts the final round: each player, the drawer
            # included, takes exactly one more turn.
            self.final_round_turns_left = cfg.players
        if self.end is End.IN_PROGRESS and cfg.all_or_nothing and self._stuck():
            self.end = End.SOFTLOCK

    def _stuck(self) -> bool:
        """all_or_nothing: the player to move has no legal action at all.

        RULES.md says the game is lost "if no one can act legally". We read that as "the
        player whose turn it is cannot act": passing is not allowed, so the game cannot go
        on. With an empty hand the only action is a clue, which needs a token and (unless
        empty_clues) another player holding a card: any card matches a number clue.
        """
        seat = self.current_seat
        if self.hands[seat]:
            return False
        if self.clue_tokens <= 0:
            return True
        if self.config.empty_clues:
            return False
        return not any(hand for other, hand in enumerate(self.hands) if other != seat)

    # ------------------------------------------------------------------ legal moves

    def legal_actions(self) -> list[TurnAction]:
        """Every legal turn action of the current seat (see the module docstring)."""
        if self.end is not End.IN_PROGRESS:
            return []
        cfg = self.config
        seat = self.current_seat
        hand = self.hands[seat]
        plays = self._plays[seat]
        out: list[TurnAction] = [plays[c] for c in hand]
        if cfg.choreography:
            out.extend(Play(seat, c, colour) for c in hand for colour in cfg.clue_colours)
        if self.clue_tokens < MAX_CLUE_TOKENS:
            discards = self._discards[seat]
            out.extend([discards[c] for c in hand])
        if self.clue_tokens > 0:
            players = cfg.players
            masks_of = self._hand_masks
            slots = self._clue_slots
            for target in range(players):
                if target == seat:
                    continue
                masks = masks_of[target]
                if masks is None:
                    masks = hand_masks(self.hands[target], self._fi, self._table)
                    if masks is None:
                        continue  # a face is unknown: a reveal may complete the hand later
                    masks_of[target] = masks
                # Rebuild the giver's clues only when the target's buckets changed, reusing
                # the clues whose bucket did not (movegen.py).
                slot = slots[target * players + seat]
                if slot is None or slot.masks != masks:
                    slot = build_clue_slot(seat, target, self.hands[target], masks, slot,
                                           self._table, cfg.empty_clues)
                    slots[target * players + seat] = slot
                out.extend(slot.clues)
        return out

    # ------------------------------------------------------------------ knowledge

    def knowledge(self, card: int, viewer: int, asker: int | None = None) -> CardKnowledge:
        """What ``viewer`` can know about ``card``, from clues and the cards it sees.

        Seen cards are the played and discarded ones and the cards in other seats' hands
        whose faces this observer knows (a viewer never sees its own hand). If the viewer
        sees ``card`` itself (it is in another hand, or public), its face is all there is.

        ``asker``: the seat asking on the viewer's behalf ("what does Bob know about this
        card?"). Its own hand is left out of the seen cards, as the asker cannot see it:
        the answer then depends only on what the asker knows, whichever replica computes it.
        """
        from hanabi_p2p.rules.knowledge import build_knowledge

        table = self._table
        holder = self._where[card]
        fi = self._fi
        face = fi[card]
        visible_itself = face >= 0 and holder != viewer
        seen = [0] * len(table.cards)
        for c in self.played:
            seen[fi[c]] += 1
        for c in self.discard_pile:
            seen[fi[c]] += 1
        for seat, hand in enumerate(self.hands):
            if seat not in (viewer, asker):
                for c in hand:
                    if fi[c] >= 0 and c != card:
                        seen[fi[c]] += 1
        if visible_itself and holder < 0:
            seen[face] -= 1  # public card: it was counted among the played/discarded ones
        mask = (1 << face) if visible_itself and holder < 0 else self._poss[card]
        return build_knowledge(
            table,
            mask,
            seen,
            only=face if visible_itself else None,
            clued=any(record.touched for record in self.clues[card]),
        )
