"""The convention player's model of the hands: its replica of the game as its seat sees it,
what everyone knows of each card (``inf``, ``poss``: common knowledge), the chop, and what
this seat privately knows of its own cards (``_mine``)."""

from __future__ import annotations

from hanabi_p2p.bots.duplicates import surplus_copies
from hanabi_p2p.bots.hgroup_facts import (
    Board,
    Context,
    Pending,
    _board_after,
    _board_of,
    _caches_for,
)
from hanabi_p2p.bots.hgroup_tuning import BLUFFS, SHARE_OUT, SHARED_CACHE_SIZE
from hanabi_p2p.bots.levels import Convention, check_level, knows
from hanabi_p2p.bots.seatview import SeatView
from hanabi_p2p.rules.actions import Clue, TurnAction
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.faces import RANKS_PER_SUIT, FaceTable, face_table


class HandModel:
    """The state of an ``HGroupPlayer`` and the public facts read from it (the base of its
clue reading and of ``HGroupPlayer``)."""

    def __init__(self, config: GameConfig, seat: int, level: int | None = None) -> None:
        """``level``: the H-group level the table plays (bots/levels.py); None: every
        convention this player knows."""
        self.config = config
        self.seat = seat
        self.level = check_level(level)
        # the conventions above the level are neither given nor read
        self.bluffs = BLUFFS and knows(level, Convention.BLUFF)
        self.screams = knows(level, Convention.SCREAM)
        self.ones_in_order = knows(level, Convention.ONES_IN_ORDER)
        self.five_stalls = knows(level, Convention.FIVE_STALL)
        self.self_finesses = knows(level, Convention.SELF_FINESSE)
        self.reverse_finesses = knows(level, Convention.REVERSE_FINESSE)
        self.tcms = knows(level, Convention.TRASH_CHOP_MOVE)
        self.sarcasm = knows(level, Convention.SARCASTIC_DISCARD)
        table = face_table(config)
        self.table: FaceTable = table
        n = config.deck_size
        self.fi = [-1] * n  # card id -> face index, as this seat knows it
        self._faceless: set[int] = set()  # cards whose face this seat was not shown yet
        self.replica = SeatView(config, table, seat, self.fi)
        self.synced = 0  # history entries of the followed game applied to the replica
        self.last: object = None  # the last entry applied (to notice another game)
        self.inf = [table.all_faces] * n  # card id -> public convention mask
        # card id -> faces its clues allow (as the replica's possible_mask, kept here too
        # because the clue ratings read it thousands of times a turn)
        self.poss = [table.all_faces] * n
        self.clued = [False] * n
        # the clued cards still in a hand, in the order they were clued: what good touch
        # after each play and each turn's count of the faces clued go through, rather than
        # every card of every hand
        self.clued_cards: list[int] = []
        # card id -> per discard by another player who could have clued it instead, the
        # faces playable then (see _passed_over)
        self.overlooked: list[list[int]] = [[] for _ in range(n)]
        # card id -> per discard by another player while it was my chop and I had nothing
        # safe to do, the faces worth a save then (see _passed_over)
        self.unsaved: list[list[int]] = [[] for _ in range(n)]
        self.fw = [0] * len(table.suits)
        self.gone = [0] * len(table.cards)  # face index -> copies discarded
        self.used = [0] * len(table.cards)  # face index -> copies played
        # face index -> copies this seat has seen (in other hands, played or discarded: the
        # cards whose face it knows), and the faces of which it has not seen every copy
        self.seen = [0] * len(table.cards)
        self.unseen = table.all_faces
        self.suit_of = [i // RANKS_PER_SUIT for i in range(len(table.cards))]
        self.rank_of = [i % RANKS_PER_SUIT + 1 for i in range(len(table.cards))]
        # the fireworks and the discard counts packed in one int each (3 bits a suit, 2 bits
        # a face: a face has at most 3 copies), keys of the shared caches of boards and
        # contexts
        self._fw_key = self._gone_key = 0
        self._boards, self._contexts = _caches_for(table)
        self.board = self._make_board()
        self.pending: Pending | None = None
        self._ctx: Context | None = None
        self._chops: dict[int, int | None] = {}  # seat -> chop, valid while _ctx is
        # per seat, the faces everyone knows its clued cards are (None: to be recomputed,
        # as its hand or what is known of it changed)
        self._known_in: list[int | None] = [None] * config.players
        self._dealt = False
        # my last clue and how it reads, as rated when I chose it (see advise)
        self._my_read: tuple[TurnAction, tuple[dict[int, int], Pending | None]] | None = None
        # the seat whose chop the last action (a clue) touched, if any
        self.saved: int | None = None
        # cards a clue touched while they were their holder's chop (the clue's focus)
        self.chop_focus: set[int] = set()
        # card ids below this were dealt at the start; the others were drawn later ("fresh")
        self.first_drawn = config.players * config.hand_size
        # the early game: no card discarded yet (a 5 clue off the chop is then a 5 stall)
        self.early_game = True
        # (face, how many) of my cards known exactly, as _mine last counted them
        self.known_mine: list[tuple[int, int]] = []

    # ------------------------------------------------------------------ public facts

    def _make_board(self, suit: int = -1) -> Board:
        """The board from the fireworks and the discard pile (``suit``: the only suit
        whose firework or discards changed since ``self.board``, if known)."""
        key = (self._fw_key, self._gone_key)
        board = self._boards.get(key)
        if board is None:
            if len(self._boards) >= SHARED_CACHE_SIZE:
                self._boards.clear()
            board = self._boards[key] = (
                _board_of(*key, self.table.copies) if suit < 0
                else _board_after(self.board, suit, *key, self.table.copies))
        return board

    def _clue_mask(self, clue: Clue) -> int:
        if clue.colour is not None:
            return self.table.colour_mask[clue.colour]
        return self.table.rank_mask[clue.rank or 0]

    def public(self, card: int) -> int:
        """What everyone knows ``card`` may be: its clues and the conventions."""
        poss = self.poss[card]
        m = self.inf[card] & poss
        return m or poss

    def _known_faces(self) -> int:
        """Faces of clued cards whose face everyone knows (good touch: no other card
        will be clued as one of them)."""
        known = 0
        clued = self.clued
        inf = self.inf
        possible = self.poss
        known_in = self._known_in
        for seat, hand in enumerate(self.replica.hands):
            k = known_in[seat]
            if k is None:
                k = 0
                for c in hand:
                    if clued[c]:
                        poss = possible[c]
                        m = inf[c] & poss or poss
                        if m & (m - 1) == 0:
                            k |= m
                known_in[seat] = k
            known |= k
        return known

    def chop(self, seat: int) -> int | None:
        """The oldest unclued card of ``seat``: the one it discards next."""
        if self._ctx is not None and seat in self._chops:
            return self._chops[seat]
        chop = None
        for c in reversed(self.replica.hands[seat]):
            if not self.clued[c]:
                chop = c
                break
        if self._ctx is not None:
            self._chops[seat] = chop
        return chop

    # ------------------------------------------------------------------ private view

    def _unseen(self) -> int:
        """Faces of which this seat has not seen every copy (others' hands, public cards)."""
        return self.unseen

    def _mine(self) -> list[tuple[int, int]]:
        """My cards, each with the faces it may be: what everyone knows of it, less the faces
        whose every copy I see elsewhere or know to be another card of mine (the last copy
        of a face one of my cards is known to be is not also another card of mine)."""
        unseen = self._unseen()
        out = []
        single = False
        inf, possible = self.inf, self.poss
        for c in self.replica.hands[self.seat]:
            poss = possible[c]
            pub = inf[c] & poss or poss  # self.public(c), inlined: every turn, every card
            # (what I see may rule out every face the conventions allow: then the clues
            # alone say what it is, as a clue broke a convention)
            m = (pub & unseen) or (poss & unseen) or pub
            out.append((c, m))
            single = single or m & (m - 1) == 0
        self.known_mine = []
        if single:  # more of my cards read as one face than it has copies left?
            surplus_copies(out, self.poss, self.table.copies, self.seen, unseen)
        if single and SHARE_OUT:
            self._share_out(out)
        return out

    def _share_out(self, out: list[tuple[int, int]]) -> None:
        """Narrow ``out`` (my cards and their masks) in place: see _mine."""
        # my cards known exactly take copies of their faces: a face whose copies not seen
        # they take up is none of my other cards (repeated: a card may become known so)
        copies = self.table.copies
        seen = self.seen
        taken: dict[int, int] = {}
        done = 0  # cards counted, by index
        exhausted = 0
        while True:
            more = 0
            for i, (_, m) in enumerate(out):
                if m & (m - 1) == 0 and not done >> i & 1:
                    done |= 1 << i
                    f = m.bit_length() - 1
                    n = taken[f] = taken.get(f, 0) + 1
                    if n >= copies[f] - seen[f]:
                        more |= m
            if not more & ~exhausted:
                break
            exhausted |= more
            for i, (c, m) in enumerate(out):
                if not done >> i & 1 and m & exhausted and m & ~exhausted:
                    out[i] = (c, m & ~exhausted)
        self.known_mine = list(taken.items())

    def _is_playable(self, m: int) -> bool:
        return m != 0 and m & ~self.board.playable == 0

    def _is_trash(self, m: int) -> bool:
        return m != 0 and m & ~self.board.trash == 0

    def has_known_safe_action(self, seat: int) -> bool:
        """Does ``seat`` publicly know of a card to play or to discard safely?"""
        inf = self.inf
        possible = self.poss
        not_playable = ~self.board.playable
        not_trash = ~self.board.trash
        for c in self.replica.hands[seat]:
            poss = possible[c]
            m = inf[c] & poss or poss
            if m and (m & not_playable == 0 or m & not_trash == 0):
                return True
        return False
