"""Reading clues: what a clue, a play or a discard tells every player (common knowledge), the
focus, prompts and finesses that wait for an answer, good touch after a play, and the chop.

Every function here reads only public facts, so each seat's player reaches the same meaning,
and the giver uses the very same reading to predict its clue's (see hgroup.py)."""

from __future__ import annotations

from hanabi_p2p.bots.hgroup_facts import Connection, Context, Pending, _chain_of, _context_of
from hanabi_p2p.bots.hgroup_hand import HandModel
from hanabi_p2p.bots.hgroup_tuning import (
    GTA_ONES_ONLY,
    PLAN_EXTRA_CARDS,
    SCREAM_PLAYERS,
    SHARED_CACHE_SIZE,
)
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.rules.faces import RANKS_PER_SUIT


class ClueReading(HandModel):
    """The part of ``HGroupPlayer`` that reads the other players' actions (its state is
``HandModel``'s)."""

    def _good_touch_again(self, placed: int, player: int, blind: bool) -> None:
        """Good touch holds after a play or discard too: a clued 1 (any clued card, without
        GTA_ONES_ONLY) that may still be a face now trash (a copy just played) is not that
        face, unless it can be nothing else (else a clued 1 read "any 1" goes on reading
        "maybe R1" once R1 is played, and is never played). And a clued card read as
        exactly the face another player has just played (``placed``, a face index, or -1)
        without a clue on it (``blind``) was the card after it: its clue was a finesse on
        that player (``player``), who saw it and played first (a delayed finesse), not a
        play clue on a copy it would be bad touch to have clued."""
        trash = self.board.trash
        ones = self.table.rank_mask[1]
        inf, poss = self.inf, self.poss
        seat_of = self.replica.seat_of
        after = (placed + 1 if blind and placed >= 0 and self.rank_of[placed] < RANKS_PER_SUIT
                 else -1)
        keep = ~trash
        # faces whose clued cards good touch leaves as they are (see GTA_ONES_ONLY)
        unread = ~ones if GTA_ONES_ONLY else 0
        for c in self.clued_cards:  # (each card alone: the order does not matter)
            m = inf[c] & poss[c]
            if m & trash and m & keep and not m & unread:
                inf[c] = m & keep
            elif (after >= 0 and m == 1 << placed and poss[c] >> after & 1
                  and not trash >> after & 1 and seat_of[c] != player):
                inf[c] = 1 << after
            else:
                continue
            self._known_in[seat_of[c]] = None

    def _passed_over(self) -> None:
        """Another player discards though it could have clued me: had one of my unclued cards
        been playable, a play clue would have been likelier; had my chop (when I had nothing
        safe to do) been a card worth saving, a save would have come. Noted for _gamble."""
        playable = self.board.playable
        hand = self.replica.hands[self.seat]
        for c in hand:
            if not self.clued[c]:
                self.overlooked[c].append(playable)
        chop = self.chop(self.seat)
        if chop is not None and not self.has_known_safe_action(self.seat):
            self.unsaved[chop].append(self._save_worthy_faces())

    def is_scream(self, seat: int) -> bool:
        """Would a discard by ``seat`` now be a scream discard (see SCREAM_PLAYERS): no clue
        token, a card ``seat`` publicly knows to be playable, the deck not near its end?"""
        replica = self.replica
        if (not self.screams or self.config.players > SCREAM_PLAYERS or replica.clue_tokens > 0
                or replica.cards_left <= self.config.players + PLAN_EXTRA_CARDS
                or replica.final_round_turns_left is not None):
            return False
        # (any(self._is_playable(self.public(c)) ...), inlined: asked by every seat of most
        # discards, as they come when no token is left)
        not_playable = ~self.board.playable
        inf, possible = self.inf, self.poss
        for c in replica.hands[seat]:
            poss = possible[c]
            m = inf[c] & poss or poss
            if m and not m & not_playable:
                return True
        return False

    def _sarcastic_face(self, card: int) -> int:
        """The face a discard of ``card`` gives away as a sarcastic discard (H-group level
        3), or -1: a clued card everyone knows is exactly a face still needed, let go
        because another clued card is that face too."""
        if not self.sarcasm or not self.clued[card]:
            return -1
        m = self.public(card)
        if m & (m - 1) or m & self.board.trash:
            return -1
        return m.bit_length() - 1

    def _sarcastic_discard(self, f: int, discarder: int) -> None:
        """``discarder`` made a sarcastic discard of face ``f``: the one clued card in
        another hand that may be ``f`` is ``f`` (if several may be, it does not say which)."""
        bit = 1 << f
        found = [(seat, c) for seat, hand in enumerate(self.replica.hands) for c in hand
                 if seat != discarder and self.clued[c] and self.public(c) & bit]
        if len(found) == 1:
            seat, c = found[0]
            self.inf[c] = bit
            self._known_in[seat] = None
            self._ctx = None

    def _move_chop(self, seat: int) -> None:
        """``seat``'s chop is to be kept: it counts as clued from now on, as a card that
        may need saving (a 5, a last copy, or a 2)."""
        chop = self.chop(seat)
        if chop is None:
            return
        self.clued[chop] = True
        self.clued_cards.append(chop)  # (a chop is unclued)
        worth = self._save_worthy_faces()
        self.inf[chop] = self.inf[chop] & worth or self.inf[chop]
        self._known_in[seat] = None
        self._ctx = None

    def _save_worthy_faces(self) -> int:
        """The faces a save clue keeps, as a mask: a last copy, a 5 or a 2, not yet trash."""
        table = self.table
        return (self.board.critical | table.rank_mask[RANKS_PER_SUIT]
                | table.rank_mask[2]) & ~self.board.trash

    def _resolve(self, pending: Pending, action: Play | Discard | Clue | None,
                 state: GameState) -> None:
        """A player asked to answer acted (``action``; None: this player, passing). If it
        played its connecting card and that was the missing card, the focus is the card one
        above. Otherwise it passed; once every player asked has passed, the clue was direct."""
        focus = pending.focus
        seat = pending.waiting[0]
        self._ctx = None
        holder = self.replica.holder(focus)
        if holder is not None:
            self._known_in[holder] = None
        face = state.faces[action.card] if isinstance(action, Play) else None
        if isinstance(action, Play) and face is not None:
            fi = self.table.index(face)
            answering = [o for o in pending.options if o.card_of(seat) == action.card]
            for option in answering:
                if fi == option.missing:
                    self.inf[focus] = 1 << option.focus_face
                    self.pending = None
                    return
            if (self.bluffs and answering
                    and self.fw[self.suit_of[fi]] == self.rank_of[fi] - 1):
                # a blind play of another playable card: a bluff. The focus is still one
                # above its firework's next card (but not the blind card's firework).
                m = 0
                for option in answering:
                    m |= 1 << option.focus_face
                self.inf[focus] = (self.inf[focus] & m) or self.inf[focus]
                self.pending = None
                return
        waiting = pending.waiting[1:]
        if waiting:
            self.pending = Pending(focus, pending.options, waiting)
            return
        m = self.inf[focus] & ~pending.connected
        self.inf[focus] = m or self.inf[focus]
        self.pending = None

    def _save_mask(self, clue: Clue) -> int:
        """Faces a clue on the chop may be saving."""
        board = self.board
        table = self.table
        if clue.rank == RANKS_PER_SUIT:
            return table.rank_mask[RANKS_PER_SUIT] & ~board.trash
        if clue.rank == 2:
            return table.rank_mask[2] & ~board.trash
        fives = table.rank_mask[RANKS_PER_SUIT]
        return self._clue_mask(clue) & board.critical & ~fives

    def finesse_position(self, seat: int) -> int | None:
        """The newest unclued card of ``seat``: the one it plays blind when finessed."""
        for c in self.replica.hands[seat]:
            if not self.clued[c]:
                return c
        return None

    def _chain(self, clue: Clue) -> tuple[int, ...]:
        """The players asked to answer a prompt or finesse: the first ``MAX_CHAIN`` who act
        after the giver and before the receiver, in order."""
        return _chain_of(self.config.players, clue.seat, clue.target)

    def _connecting_card(self, seat: int, missing: int) -> int | None:
        clued, inf, possible = self.clued, self.inf, self.poss
        for c in self.replica.hands[seat]:
            if clued[c] and (inf[c] & possible[c] or possible[c]) >> missing & 1:
                return c  # a prompt: the (first) clued card that may be it (self.public(c))
        for c in self.replica.hands[seat]:
            if not clued[c]:
                return c  # a finesse: its newest unclued card (self.finesse_position(seat))
        return None

    def _connections(self, clue: Clue, base: int, queued: tuple[int, ...]
                     ) -> tuple[Connection, ...]:
        """Ways the focus (faces ``base``) may be one above what its firework needs, the
        missing card coming from a player between giver and receiver (who then plays it).
        One question at a time: no new one while another waits for its answer."""
        chain = self._chain(clue)
        if not chain or self.pending is not None:
            return ()
        out = []
        for s, top in enumerate(queued):
            # the missing card must be playable now: the responder plays it at once
            if top + 2 > RANKS_PER_SUIT or top != self.fw[s]:
                continue
            missing = s * RANKS_PER_SUIT + top
            face = missing + 1
            if not base >> face & 1:
                continue
            cards = []
            for seat in chain:
                card = self._connecting_card(seat, missing)
                if card is not None:
                    cards.append((seat, card))
            if cards:
                out.append(Connection(missing, face, tuple(cards)))
        return tuple(out)

    def _context(self) -> Context:
        """What the clued cards and the fireworks mean for the next clue (see ``Context``),
        cached until the next action or public conclusion changes it."""
        ctx = self._ctx
        if ctx is None:
            known = self._known_faces()
            key = (self._fw_key, known)
            ctx = self._contexts.get(key)
            if ctx is None:
                if len(self._contexts) >= SHARED_CACHE_SIZE:
                    self._contexts.clear()
                ctx = self._contexts[key] = _context_of(self.fw, known)
            self._ctx = ctx
            self._chops = {}
        return ctx

    def _focus(self, target: int, touched: frozenset[int], chop: int | None) -> int | None:
        """The card a clue touching ``touched`` in ``target``'s hand (its chop ``chop``) is
        about: the chop if the clue touches it (it is unclued: newly touched), else the
        newest newly touched card; None if it touches no card anew."""
        if chop is not None and chop in touched:
            return chop
        clued = self.clued
        for c in self.replica.hands[target]:
            if c in touched and not clued[c]:
                return c
        return None

    def _read_clue(self, clue: Clue, touched: frozenset[int]
                   ) -> tuple[dict[int, int], Pending | None]:
        """The public meaning of ``clue`` (touching ``touched``), before it is applied:
        the new convention mask of each touched card, and what waits on the next player."""
        clued = self.clued
        chop = self.chop(clue.target)
        known, queued, next_mask, connectable, _ = self._ctx or self._context()
        # (self._clue_mask(clue), inlined: every seat reads every clue, and every clue rated)
        mask = (self.table.colour_mask[clue.colour] if clue.colour is not None
                else self.table.rank_mask[clue.rank or 0])
        out: dict[int, int] = {}
        pending = None
        focus = self._focus(clue.target, touched, chop)
        useless = self.board.trash | known
        poss_of = self.poss
        inf = self.inf
        for c in touched:
            poss = poss_of[c] & mask
            if clued[c]:
                m = inf[c] & poss
                out[c] = m or poss
                continue
            base = poss & ~useless  # good touch
            if c == focus:
                meaning = next_mask
                if c == chop:
                    meaning |= self._save_mask(clue)
                elif clue.rank == RANKS_PER_SUIT and self.five_stalls and self.early_game:
                    # a 5 stall: in the early game a 5 clue off the chop is given for want
                    # of anything better, and says only "a 5", not "play it"
                    meaning = base
                options = (self._connections(clue, base & ~meaning, queued)
                           if base & ~meaning & connectable else ())
                waiting: tuple[int, ...] | None = None  # (None: the chain, see _chain)
                if (not options and self.self_finesses and base & connectable
                        and not base & meaning and self.pending is None):
                    # the focus cannot be what the clue says directly and nobody between
                    # can hold the card it needs: the receiver holds it, as its newest
                    # unclued card (a self-finesse), and plays that first
                    options = self._self_connections(clue.target, touched, base, queued)
                    waiting = (clue.target,)
                if options:
                    pending = Pending(c, options,
                                      self._chain(clue) if waiting is None else waiting)
                    meaning |= pending.connected
                m = base & meaning
            else:
                m = base
            out[c] = m or base or poss
        return out, pending

    def _trash_chop_move(self, clue: Clue, touched: frozenset[int], meaning: dict[int, int]
                         ) -> tuple[int, ...]:
        """The cards ``clue`` (read as ``meaning``, before it is applied) chop-moves: a clue
        off the chop whose every newly touched card everyone knows is trash (good touch
        leaves it no other face) is a trash chop move (H-group level 4). The unclued cards
        older than the ones it touches are kept, as if saved."""
        if not self.tcms:
            return ()
        chop = self.chop(clue.target)
        if chop is None or chop in touched:
            return ()
        useless = self.board.trash | (self._ctx or self._context()).known
        hand = self.replica.hands[clue.target]
        new = [c for c in hand if c in touched and not self.clued[c]]
        if not new or any(meaning[c] & ~useless for c in new):
            return ()
        oldest = hand.index(new[-1])
        return tuple(c for c in hand[oldest + 1:] if not self.clued[c])

    def _self_connections(self, target: int, touched: frozenset[int], base: int,
                          queued: tuple[int, ...]) -> tuple[Connection, ...]:
        """A self-finesse's ways: the focus (faces ``base``) is one above a firework's next
        card, and ``target`` holds that card: a clued card of its own that may be it (a
        self-prompt, first), else its newest card the clue leaves unclued."""
        hand = self.replica.hands[target]
        finesse = next((c for c in hand if not self.clued[c] and c not in touched), None)
        out = []
        for s, top in enumerate(queued):
            if top + 2 > RANKS_PER_SUIT or top != self.fw[s]:
                continue
            missing = s * RANKS_PER_SUIT + top
            if not base >> (missing + 1) & 1:
                continue
            card = next((c for c in hand if self.clued[c] and c not in touched
                         and self.public(c) >> missing & 1), finesse)
            if card is not None:
                out.append(Connection(missing, missing + 1, ((target, card),)))
        return tuple(out)

    def self_answer(self, pending: Pending) -> Connection:
        """The way a self-finesse's receiver, who cannot see its focus, takes: a self-prompt
        if one may be meant, else the blind play."""
        seat = pending.waiting[0]
        return next((o for o in pending.options if self.clued[o.cards[0][1]]
                     and o.card_of(seat) is not None), pending.options[0])

    def answer_to(self, pending: Pending) -> Connection | None:
        """Must this seat (the first still asked) answer ``pending``? It sees the focus:
        if it is one above its firework's next card, the missing card is with the last
        player asked whose connecting card this seat sees is it, or else with this seat.
        A focus in this seat's own hand is a self-finesse: every way asks for the same
        card, which it plays without seeing the focus."""
        if self.replica.holder(pending.focus) == self.seat:
            return self.self_answer(pending)
        f = self.fi[pending.focus]
        option = next((o for o in pending.options if o.focus_face == f), None)
        if option is None or option.card_of(self.seat) is None:
            return None
        for seat, card in option.cards:
            if seat != self.seat and seat in pending.waiting and self.fi[card] == option.missing:
                return None  # a later player holds it
        return option
