"""The convention player's public facts and their types: why it acts (``Reason``, ``Advice``), what
the fireworks and the clued cards mean (``Board``, ``Context``, cached and shared by every
seat), and a clue waiting for a prompt or finesse to be answered (``Pending``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import NamedTuple

from hanabi_p2p.bots.hgroup_tuning import MAX_CHAIN
from hanabi_p2p.bots.words import Words
from hanabi_p2p.rules.actions import TurnAction
from hanabi_p2p.rules.faces import RANKS_PER_SUIT, FaceTable


class Reason(str, Enum):
    """Why the player took its action (``Advice.text`` says it in words)."""

    PLAY_KNOWN = "play_known"
    ANSWER = "answer"  # a prompt or a finesse
    SAVE = "save"
    PLAY_CLUE = "play_clue"
    DISCARD_TRASH = "discard_trash"
    DISCARD_CHOP = "discard_chop"
    STALL = "stall"
    LOCKED = "locked"
    GAMBLE = "gamble"  # the last turn: a card that may be playable
    FIX = "fix"  # a clue that corrects a misread one
    PLAN = "plan"  # the end-game look-ahead preferred it to the conventions' choice
    SCREAM = "scream"  # a discard that tells the next player to keep its chop


@dataclass(frozen=True, slots=True)
class Advice:
    """An action and why the convention player takes it (``text``: in words, in the current
    language, rendered only when read)."""

    action: TurnAction
    reason: Reason
    words: Words

    @property
    def text(self) -> str:
        return self.words.render()


class Board(NamedTuple):
    """Public facts about the fireworks, as face masks (one bit per face index). (A named
    tuple: every player makes one after every play and discard.)"""

    playable: int  # the next card of each firework
    trash: int  # already played, or above a rank whose every copy is gone
    critical: int  # still needed and the last copy left


class Context(NamedTuple):
    """What the clued cards and the fireworks mean for reading the next clue."""

    known: int  # faces everyone knows a clued card is (good touch: no other is clued so)
    queued: tuple[int, ...]  # per suit, the rank reached once those known cards are played
    next_mask: int  # the card each firework needs after the queued ones: a play clue's meaning
    connectable: int  # faces a prompt or finesse may make a focus (one above next, not queued)
    eventual: int  # faces playable once the queued cards are played


@dataclass(frozen=True, slots=True)
class Connection:
    """One way a play clue's focus may be one rank above the card its firework needs: a
    player between the giver and the receiver holds that missing card."""

    missing: int  # face index of the card the firework needs first
    focus_face: int  # what the focus then is
    # per player between giver and receiver, in turn order: the card it would play as the
    # missing one (a clued card that may be it: a prompt; else its newest unclued: finesse)
    cards: tuple[tuple[int, int], ...]  # (seat, card)

    def card_of(self, seat: int) -> int | None:
        return next((card for s, card in self.cards if s == seat), None)


@dataclass(frozen=True, slots=True)
class Pending:
    """A clue whose focus may wait for an answer (a prompt or a finesse) from a player
    between its giver and its receiver."""

    focus: int
    options: tuple[Connection, ...]
    waiting: tuple[int, ...]  # players between giver and receiver yet to act, in order

    @property
    def connected(self) -> int:
        m = 0
        for option in self.options:
            m |= 1 << option.focus_face
        return m


# Boards and contexts are public: every seat's player computes the same ones after each play
# and discard, so they share them. A board depends only on the fireworks, the discard counts
# and the copies of each face in the deck, a context on the fireworks and the known faces:
# one pair of caches per tuple of copies (which also fixes the number of suits) serves all.
_shared: dict[tuple[int, ...],
              tuple[dict[tuple[int, int], Board], dict[tuple[int, int], Context]]] = {}


def _caches_for(table: FaceTable
                ) -> tuple[dict[tuple[int, int], Board], dict[tuple[int, int], Context]]:
    caches = _shared.get(table.copies)
    if caches is None:
        caches = _shared[table.copies] = ({}, {})
    return caches


def _board_of(fw_key: int, gone_key: int, copies: tuple[int, ...]) -> Board:
    """The board of these fireworks and discard counts, packed as ``HandModel`` keeps them
    (``_fw_key``: 3 bits a suit; ``_gone_key``: 2 bits a face index), with ``copies`` of
    each face in the deck."""
    playable = trash = critical = 0
    for s in range(len(copies) // RANKS_PER_SUIT):
        p_mask, t_mask, c_mask = _suit_board(s, fw_key, gone_key, copies)
        base = s * RANKS_PER_SUIT
        playable |= p_mask << base
        trash |= t_mask << base
        critical |= c_mask << base
    return Board(playable, trash, critical)


def _board_after(board: Board, suit: int, fw_key: int, gone_key: int,
                 copies: tuple[int, ...]) -> Board:
    """``_board_of`` after a play or discard of suit ``suit`` whose board was ``board``
    before: only that suit's part changes."""
    p_mask, t_mask, c_mask = _suit_board(suit, fw_key, gone_key, copies)
    base = suit * RANKS_PER_SUIT
    keep = ~(_SUIT_BITS << base)
    return Board(board.playable & keep | p_mask << base, board.trash & keep | t_mask << base,
                 board.critical & keep | c_mask << base)


def _suit_board(s: int, fw_key: int, gone_key: int, copies: tuple[int, ...]
                ) -> tuple[int, int, int]:
    """``_suit_facts`` of suit ``s`` (its ranks from bit 0), from the packed keys."""
    suit_boards = _SUIT_BOARDS.get(copies)
    if suit_boards is None:
        suit_boards = _SUIT_BOARDS[copies] = tuple(
            _SUIT_BOARDS_BY_COPIES.setdefault(copies[base:base + RANKS_PER_SUIT], {})
            for base in range(0, len(copies), RANKS_PER_SUIT))
    boards = suit_boards[s]
    base = s * RANKS_PER_SUIT
    key = (fw_key >> 3 * s & 7) << _SUIT_GONE_BITS | gone_key >> 2 * base & _SUIT_GONE
    facts = boards.get(key)
    if facts is None:
        facts = boards[key] = _suit_facts(
            key >> _SUIT_GONE_BITS, copies[base:base + RANKS_PER_SUIT],
            tuple(key >> 2 * r & 3 for r in range(RANKS_PER_SUIT)))
    return facts


# A suit's board (_suit_facts) by its copies of each rank, then by its firework and discard
# counts packed in one int (_board_of's key): computed once per run for every suit alike
# (at most 6 fireworks times 4^5 counts, far fewer in play), as a new board is made after
# every play and discard of every game; per deck, its suits' dicts in order.
_SUIT_GONE_BITS = 2 * RANKS_PER_SUIT
_SUIT_GONE = (1 << _SUIT_GONE_BITS) - 1
_SUIT_BOARDS_BY_COPIES: dict[tuple[int, ...], dict[int, tuple[int, int, int]]] = {}
_SUIT_BOARDS: dict[tuple[int, ...], tuple[dict[int, tuple[int, int, int]], ...]] = {}


def _suit_facts(top: int, copies: tuple[int, ...], gone: tuple[int, ...]
                ) -> tuple[int, int, int]:
    """(playable, trash, critical) rank masks (bit 0: rank 1) of a suit whose firework has
    reached ``top``, with ``copies`` of each rank in the deck and ``gone`` discarded."""
    playable = trash = critical = 0
    dead = False
    for r in range(RANKS_PER_SUIT):
        if r < top or dead:
            trash |= 1 << r
            continue
        if r == top:
            playable |= 1 << r
        left = copies[r] - gone[r]
        if left <= 0:
            dead = True
            trash |= 1 << r
        elif left == 1:
            critical |= 1 << r
    return playable, trash, critical


def _context_of(fireworks: Sequence[int], known: int) -> Context:
    """The context for these fireworks when the faces ``known`` are known."""
    queued = []
    next_mask = connectable = eventual = 0
    for s, top in enumerate(fireworks):
        base = s * RANKS_PER_SUIT
        key = top << RANKS_PER_SUIT | known >> base & _SUIT_BITS
        facts = _SUIT_CONTEXTS.get(key)
        if facts is None:
            facts = _SUIT_CONTEXTS[key] = _suit_context(top, key & _SUIT_BITS)
        reach, suit_next, suit_connectable, suit_eventual = facts
        queued.append(reach)
        next_mask |= suit_next << base
        connectable |= suit_connectable << base
        eventual |= suit_eventual << base
    return Context(known, tuple(queued), next_mask, connectable, eventual)


_SUIT_BITS = (1 << RANKS_PER_SUIT) - 1  # one suit's faces in a face mask
# a suit's firework and its known faces (as _context_of packs them) -> _suit_context: the
# same for every suit (6 fireworks times 32 masks at most), as a context is made often
_SUIT_CONTEXTS: dict[int, tuple[int, int, int, int]] = {}


def _suit_context(top: int, known: int) -> tuple[int, int, int, int]:
    """One suit's part of a context, its faces from bit 0: the rank the queued known cards
    reach, the card it needs next, the one a prompt or finesse may focus, the faces
    playable once the queued cards are played."""
    reach = top
    while reach < RANKS_PER_SUIT and known >> reach & 1:
        reach += 1
    next_bit = connectable = 0
    if reach < RANKS_PER_SUIT:
        next_bit = 1 << reach
        if reach == top and top + 2 <= RANKS_PER_SUIT:
            connectable = 1 << (top + 1)
    # ranks top..reach (the card after the queued ones included), up to the 5
    above = min(reach + 1, RANKS_PER_SUIT) - top
    eventual = ((1 << above) - 1) << top if above > 0 else 0
    return reach, next_bit, connectable, eventual


@cache
def _chain_of(players: int, giver: int, target: int) -> tuple[int, ...]:
    between = min(MAX_CHAIN, (target - giver) % players - 1)
    return tuple((giver + k) % players for k in range(1, between + 1))


def _bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out
