"""Giving play clues: rating every clue by what the receiver will read (``_rate``), choosing the
best (``_best_clue``), fix clues, bluffs and the late finesse."""

from __future__ import annotations

from hanabi_p2p.bots.endgame_clues import fill_in
from hanabi_p2p.bots.hgroup_facts import Advice, Connection, Pending, Reason, _bits, _chain_of
from hanabi_p2p.bots.hgroup_tuning import (
    BAD_TOUCH_WEIGHT,
    BLUFF_NAMES_WEIGHT,
    EXPOSE_WEIGHT,
    FILL_IN_CARDS,
    FIX_SEEN,
    GOOD_TOUCH_WEIGHT,
    GTA_ONES_ONLY,
    IDLE_WEIGHT,
    LATE_BAD_TOUCH_WEIGHT,
    LATE_TOUCH_CARDS,
    LOCK_WEIGHT,
    MIN_CLUE_VALUE,
    PLAY_WEIGHT,
    SAVE_WEIGHT,
    TRASH_TOUCH_PLAYERS,
    TRASH_TOUCH_WEIGHT,
)
from hanabi_p2p.bots.hgroup_turn import TurnBase
from hanabi_p2p.bots.words import Say, Words
from hanabi_p2p.rules.actions import Clue, Move, Play
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS
from hanabi_p2p.rules.faces import RANKS_PER_SUIT

_NO_CARDS: frozenset[int] = frozenset()


class ClueGiving(TurnBase):
    """The clue-giving part of a turn's ``_Decision`` (hgroup_turn: the order of the parts)."""

    # -- cluing

    def _late_finesse(self) -> Advice | None:
        """A clue given since my last turn made another player's card read as exactly a
        playable card X, while I see it is the card after X, and no copy of X is anywhere I
        can see (nor is X another player's newest unclued card): the giver, following the
        conventions, meant a finesse on me (a reverse finesse, or one on a player further
        than the first after the giver, which our player never asks: MAX_CHAIN). X is my
        finesse position: I blind-play it; everyone then reads that card as the next one
        (_good_touch_again's delayed finesse)."""
        p = self.p
        rep = self.rep
        players = p.config.players
        givers = self.recent_givers()
        if not givers:
            return None
        mine = p.finesse_position(p.seat)
        if mine is None or mine in self.avoid:
            return None
        playable = p.board.playable
        for seat, hand in enumerate(rep.hands):
            if seat == p.seat:
                continue
            for c in hand:
                if c not in givers or not p.clued[c]:
                    continue
                m = p.public(c)
                f = p.fi[c]
                if (m & (m - 1) or not m & playable or f < 0
                        or f != m.bit_length() - 1 + 1 or p.rank_of[f] == 1):
                    continue
                x = f - 1
                if p.table.copies[x] - p.seen[x] <= 0 or self._finesse_card_elsewhere(x):
                    continue  # every copy of X is in sight, or another blind-plays it
                hand_mine = rep.hands[p.seat]
                # the receiver plays before me from the giver on: it waits for my card
                giver = givers[c]
                reverse = (seat - giver) % players < (p.seat - giver) % players
                return Advice(Play(p.seat, mine), Reason.ANSWER,
                              self.words(Say.REVERSE_FINESSE if reverse else Say.FINESSE, seat,
                                         slot=hand_mine.index(mine) + 1,
                                         card=p.table.cards[x], focus=p.table.cards[f]))
        return None

    def _finesse_card_elsewhere(self, x: int) -> bool:
        """Does another player hold face ``x`` as its newest unclued card? Then a finesse
        asking for ``x`` is on that player, who sees the focus as I do, not on me."""
        p = self.p
        for seat in range(p.config.players):
            if seat != p.seat:
                blind = p.finesse_position(seat)
                if blind is not None and p.fi[blind] == x:
                    return True
        return False

    def owing_blind_plays(self) -> dict[int, int]:
        """The players a finesse given since my last turn still waits on, and the card each
        is to play blind. A clued card reads as exactly a playable X while it is the card
        after X (or it is my own card, and X is the newest unclued card of a player after me
        and before that clue's giver, as in _Decision._waits): whoever holds X as its newest
        unclued card plays it blind first. A prompt or a finesse asked of that player now
        would ask it two things at once (it answers one a turn, and the table reads the one
        it leaves as a no: a blind play by the next player, a misplay), and a clue that
        touches the X makes another card its newest unclued one, which it would then play."""
        if self._owing is not None:
            return self._owing
        p = self.p
        players = p.config.players
        seat_of = self.rep.seat_of
        owing: dict[int, int] = {}
        for c, giver in self.recent_givers().items():
            if not p.clued[c]:
                continue
            m = p.public(c)
            if not m or m & (m - 1) or not m & p.board.playable:
                continue
            x = m.bit_length() - 1
            if p.rank_of[x] == RANKS_PER_SUIT:
                continue  # a 5: no card comes after it
            holder = seat_of[c]
            if holder != p.seat and p.fi[c] != x + 1:
                continue  # it is X (or not X's successor): no finesse waits on it
            for s in range(players):
                if s in (p.seat, holder) or (
                        holder == p.seat
                        and not 0 < (s - p.seat) % players < (giver - p.seat) % players):
                    continue
                blind = p.finesse_position(s)
                if blind is not None and p.fi[blind] == x:
                    owing[s] = blind
        self._owing = owing
        return owing

    def recent_givers(self) -> dict[int, int]:
        """Each card a clue touched since my last turn, and who gave that clue (the latest)."""
        if self._givers is not None:
            return self._givers
        p = self.p
        givers: dict[int, int] = {}
        turns = 0
        for action in reversed(self.rep.history):
            if isinstance(action, Move):
                continue
            if action.seat == p.seat or turns >= p.config.players - 1:
                break
            turns += 1
            if isinstance(action, Clue):
                for c in action.touched or ():
                    givers.setdefault(c, action.seat)
        self._givers = givers
        return givers

    def _as_reverse_finesse(self, clue: Clue, meaning: dict[int, int],
                            pending: Pending | None) -> tuple[dict[int, int], int | None]:
        """``meaning`` (how ``clue`` reads) and its focus if it is a reverse
        finesse (level 2) where it is one: a touched card reads as exactly a playable X
        but is the card after it, and a player after the receiver and before me holds X
        as its newest unclued card. The receiver, seeing that, waits; that player, seeing
        the card is not X, plays X blind (_late_finesse); the card then reads as it is."""
        p = self.p
        if pending is not None or not p.reverse_finesses:
            return meaning, None
        for c, m in meaning.items():
            f = p.fi[c]
            if (p.clued[c] or f <= 0 or m != 1 << (f - 1) or p.rank_of[f] == 1
                    or not m & p.board.playable):
                continue
            if self._reverse_holder(clue, f - 1) is not None:
                return {**meaning, c: 1 << f}, c
        return meaning, None

    def _reverse_holder(self, clue: Clue, x: int) -> int | None:
        """The player after ``clue``'s receiver and before me who holds face ``x`` as its
        newest unclued card (a reverse finesse's), if any."""
        p = self.p
        n = p.config.players
        for k in range(1, (p.seat - clue.target) % n):
            seat = (clue.target + k) % n
            blind = p.finesse_position(seat)
            if blind is not None and p.fi[blind] == x:
                return seat
        return None

    def _fix(self) -> Advice | None:
        """Someone reads a clued card as playable and it is not (a clue was misread or
        broke a convention): tell them, with a clue after which it no longer reads so,
        before their turn comes. The soonest such player first."""
        p = self.p
        players = p.config.players
        board = p.board
        clued, fi, inf, possible = p.clued, p.fi, p.inf, p.poss
        not_playable = ~board.playable
        playable = board.playable
        # Most turns no clued card of another player's may be one (the test below, less
        # its last condition): then there is nothing to fix, found going through the clued
        # cards alone. Else the hands, the soonest first, in order.
        seat_of = self.rep.seat_of
        for c in p.clued_cards:
            f = fi[c]
            if f >= 0 and 1 << f & not_playable and seat_of[c] != p.seat:
                m = inf[c] & possible[c] or possible[c]
                if (m and not m & not_playable) or (FIX_SEEN and m & playable
                                                     and not 1 << f & m):
                    break
        else:
            return None
        for k in range(1, players):
            target = (p.seat + k) % players
            wrong = []  # (p._is_playable(p.public(c)) inlined: asked of every card a turn)
            gone: int | None = None
            for c in self.rep.hands[target]:
                if clued[c] and fi[c] >= 0 and 1 << fi[c] & not_playable:
                    m = inf[c] & possible[c] or possible[c]
                    if m and not m & not_playable:
                        wrong.append(c)
                    elif FIX_SEEN and m & playable and not 1 << fi[c] & m:
                        # misread (a bad touch, see TRASH_TOUCH_PLAYERS): ruling out the
                        # faces it sees every copy of, its holder may read it as playable
                        if gone is None:
                            gone = self._seen_by_both(target)
                        if p._is_playable(m & ~gone):
                            wrong.append(c)
            if not wrong:
                continue
            for clue in self._clues_to(target):
                touched = clue.touched or frozenset()
                meaning, _ = p._read_clue(clue, touched)
                possible = self.p.poss
                mask = p._clue_mask(clue)
                fixed = True
                for c in wrong:
                    after = meaning.get(c, p.public(c) & (possible[c] & ~mask))
                    if p._is_playable(after) or (
                            gone is not None and p._is_playable(after & ~gone)):
                        fixed = False
                if fixed and not self._misleads(clue):
                    card = p.table.cards[p.fi[wrong[0]]]
                    slot = self.rep.hands[target].index(wrong[0]) + 1
                    return Advice(clue, Reason.FIX, self.words(Say.FIX, target, clue=clue,
                                                               slot=slot, card=card))
        return None

    def _clues_to(self, target: int) -> list[Clue]:
        return [a for a in self.clues()
                if type(a) is Clue and a.target == target]

    def _value_bounds(self, clues: list[Clue], floor: int | None = None) -> list[int]:
        """Per clue, no less than the value ``_rate`` gives it (when it gives one), and
        cheap: the touched cards' faces are known to this seat, so good and bad touch are
        counted as ``_rate`` counts them, a save as well, and a face counts as one play if
        it is one the queued plays reach and a holder does not know that yet (or, for a
        prompt or finesse, if a face is one above a firework's next card: then the
        connecting card plays too). With ``floor`` (at least MIN_CLUE_VALUE), a clue that
        touches no such card is worth less (a save and good touch alone fall short) and
        gets a bound below it at once, unless it may be a trash chop move.

        Two kinds of clue are worth more than that count: a trash chop move (worth the
        cards it keeps, whatever it touches: its bound is the larger of the two) and a clue
        a touched card of which may read as a reverse finesse, on its focus or not (its
        blind card and that card play: two plays, as a prompt or finesse counts)."""
        p = self.p
        fi = p.fi
        clued = p.clued
        inf = p.inf
        possible = p.poss
        eventual = self.eventual
        not_eventual = ~eventual
        context = p._ctx or p._context()
        connectable = context.connectable
        board = p.board
        trash = board.trash
        useless = trash | context.known  # (what good touch reads a trash chop move by)
        playable = board.playable
        rank_of = p.rank_of
        tcms = p.tcms
        reverse = p.reverse_finesses
        # late in the game, a bad touch costs less (a misread one too: TRASH_TOUCH_WEIGHT)
        bad_weight = (min(LATE_BAD_TOUCH_WEIGHT, TRASH_TOUCH_WEIGHT, BAD_TOUCH_WEIGHT)
                      if self.rep.cards_left <= LATE_TOUCH_CARDS else BAD_TOUCH_WEIGHT)
        clued_faces = self.clued_faces
        targets: dict[int, tuple[int | None, int | None]] = {}  # its chop, if worth saving
        hopeless = -BAD_TOUCH_WEIGHT * len(fi)
        may_play: set[int] | None = None
        if floor is not None and floor >= MIN_CLUE_VALUE:
            may_play = set()
            wanted = eventual | connectable
            for seat, hand in enumerate(self.rep.hands):
                if seat != p.seat:
                    for c in hand:
                        if (f := fi[c]) >= 0 and 1 << f & wanted:
                            may_play.add(c)
        out = []
        for clue in clues:
            touched = clue.touched or _NO_CARDS
            target = clue.target
            if (may_play is not None and may_play.isdisjoint(touched)
                    and not (tcms and self._may_move_chop(target, touched))):
                out.append(hopeless)  # (a trash chop move touches no such card either)
                continue
            facts = targets.get(target)
            if facts is None:
                chop = p.chop(target)
                facts = targets[target] = (
                    chop, chop if chop is not None and self._worth_saving(chop) else None)
            # plays: cards that would be played, their faces (a bit each); newly touched
            # cards: how many, their faces, those of useless faces, reverse finesses maybe
            plays = played = conn = good = bad = new = useless_new = seen_here = 0
            reversible = False  # a touched card may read as a reverse finesse
            for c in touched:
                f = fi[c]
                if f < 0:
                    continue  # (_rate gives no value then)
                bit = 1 << f
                if bit & eventual:
                    poss = possible[c]
                    if (inf[c] & poss or poss) & not_eventual:
                        plays += 1
                        played |= bit
                elif (bit & connectable and not conn
                      and self._may_connect(clue, c, f, facts[0])):
                    conn = 1
                if clued[c]:
                    continue
                new += 1
                if bit & useless:
                    useless_new += 1
                if reverse and rank_of[f] > 1 and bit >> 1 & playable:
                    reversible = True
                if bit & trash or f in clued_faces or bit & seen_here:
                    bad += 1
                else:
                    good += 1
                seen_here |= bit
            if plays > 1:
                plays = played.bit_count()  # (_rate counts a second copy of a face once)
            # a prompt or finesse: the connecting card and the focus; a reverse finesse
            # (read only when no question is asked): its blind card and the card touched
            plays += 2 if conn or reversible else 0
            value = (plays * PLAY_WEIGHT + good * GOOD_TOUCH_WEIGHT
                     + conn * BLUFF_NAMES_WEIGHT - bad * bad_weight)
            if plays and not self.busy(target):
                value += IDLE_WEIGHT
            if facts[1] in touched:
                value += SAVE_WEIGHT
            chop = facts[0]
            if tcms and new and new == useless_new and chop is not None and chop not in touched:
                value = max(value, self._chop_move_bound(target, touched))
            out.append(value)
        return out

    def _may_move_chop(self, target: int, touched: frozenset[int]) -> bool:
        """May a clue touching ``touched`` be a trash chop move on ``target``: it leaves
        its chop untouched?"""
        chop = self.p.chop(target)
        return chop is not None and chop not in touched

    def _chop_move_bound(self, target: int, touched: frozenset[int]) -> int:
        """The most a trash chop move by a clue touching ``touched`` in ``target``'s hand
        may be worth (``_rate_chop_move``): the unclued cards older than the oldest card it
        newly touches that are worth saving."""
        clued = self.p.clued
        hand = self.rep.hands[target]
        oldest = max(i for i, c in enumerate(hand) if c in touched and not clued[c])
        kept = sum(self._worth_saving(c) for c in hand[oldest + 1:] if not clued[c])
        return kept * SAVE_WEIGHT

    def _may_connect(self, clue: Clue, card: int, face: int, chop: int | None) -> bool:
        """Could ``clue`` be rated as a prompt, finesse or bluff that ``card`` (face
        ``face``, one above its firework's next card) is the focus of? Only if it is the
        focus, some player is asked to answer, and the card that player would play is the
        missing one (or, asked alone, another playable card: a bluff). A cheap test of the
        conditions ``_rate`` checks, for its bound (``chop``: the receiver's)."""
        p = self.p
        if p.pending is not None:
            return False  # one question at a time
        # (a self-finesse or a reverse finesse needs nobody between: a looser bound then)
        loose = p.self_finesses or p.reverse_finesses
        # (only read when not loose; p._chain(clue), without the call)
        chain = () if loose else _chain_of(p.config.players, clue.seat, clue.target)
        if not chain and not loose:
            return False
        touched = clue.touched or frozenset()
        clued = p.clued
        if chop is not None and chop in touched:
            if chop != card:
                return False
        else:  # the focus is the newest newly touched card
            for c in self.rep.hands[clue.target]:
                if c in touched and not clued[c]:
                    if c != card:
                        return False
                    break
            else:
                return False
        if loose:
            return True
        missing = face - 1
        fi = p.fi
        for seat in chain:
            answer = p._connecting_card(seat, missing)
            if answer is None:
                continue
            f = fi[answer]
            if f == missing or (p.bluffs and len(chain) == 1 and not clued[answer] and f >= 0
                                and 1 << f & p.board.playable):
                return True
        return False

    def _rate_clue(self, clue: Clue) -> tuple[int, int] | None:
        """(value, plays) of a clue, or None if it would mislead its receiver (computed
        once a turn: a save, the best clue and a stall may each ask)."""
        key = id(clue)  # the clues of this turn live as long as the turn
        if key in self._ratings:
            return self._ratings[key]
        rated = self._rate(clue)
        if rated is not None and self._disturbs_a_blind_play(clue):
            rated = None
        self._ratings[key] = rated
        return rated

    def _disturbs_a_blind_play(self, clue: Clue) -> bool:
        """Would ``clue`` ask a player who owes a blind play a second question, or touch the
        card it is to play (see owing_blind_plays)?"""
        owing = self.owing_blind_plays()
        if not owing:
            return False
        read = self.reads.get(id(clue))
        if read is not None and read[1] is not None and any(
                seat in owing for seat in read[1].waiting):
            return True
        return not (clue.touched or _NO_CARDS).isdisjoint(owing.values())

    def _rate(self, clue: Clue) -> tuple[int, int] | None:
        p = self.p
        touched = clue.touched or frozenset()
        mask = p._clue_mask(clue)
        possible = p.poss
        hand = self.rep.hands[clue.target]
        if self._repeats(clue, touched, mask):
            return None  # tells nobody anything
        late = self.rep.cards_left <= LATE_TOUCH_CARDS
        # a trash card good touch will read as a card to keep (-1: none)
        misread = self._misread_card(clue, touched, mask, late)
        if misread is None:
            return None
        clued = p.clued
        fi = p.fi
        meaning, pending = p._read_clue(clue, touched)
        self.reads[id(clue)] = (meaning, pending)
        moved = p._trash_chop_move(clue, touched, meaning) if pending is None else ()
        if moved:
            return self._rate_chop_move(clue, meaning, moved)
        chop = p.chop(clue.target)
        plays = bad = good = save = 0
        bad_weight = LATE_BAD_TOUCH_WEIGHT if late else BAD_TOUCH_WEIGHT
        bluffed = False
        if pending is not None:
            meaning = dict(meaning)  # (the reading as read is kept in self.reads)
            f = p.fi[pending.focus]
            option = next((o for o in pending.options if o.focus_face == f), None)
            if option is not None:
                blind = option.card_of(pending.waiting[0])
                if self.clued_faces.get(f, 0) or not self._answered_with(pending, blind):
                    return None
                if (blind is not None and not p.clued[blind] and p.fi[blind] >= 0
                        and self.clued_faces.get(p.fi[blind], 0)):
                    # the blind play would copy a clued card: its holder, reading it by
                    # good touch (a clued 1 once the copy is played), would misplay it
                    return None
                if any(p.fi[card] == option.missing for _, card in option.cards):
                    meaning[pending.focus] = 1 << f  # once the responder has played
                else:
                    bluff = self._bluff(pending, option)
                    if bluff is None:
                        return None  # the responder's card would misplay
                    meaning[pending.focus] &= bluff
                    bluffed = True
                    if bluff & (bluff - 1) == 0:
                        good += BLUFF_NAMES_WEIGHT  # and the focus will be known exactly
                plays += 1  # the connecting card
            else:
                if any(p.fi[card] == o.missing for o in pending.options for _, card in o.cards):
                    return None  # a copy of the focus where an answer would come from
                meaning[pending.focus] &= ~pending.connected
        finessed = pending.focus if pending is not None and plays and not bluffed else None
        meaning, reverse = self._as_reverse_finesse(clue, meaning, pending)
        plays += reverse is not None  # (its blind card)
        finessed = finessed if reverse is None else reverse
        self._meanings[id(clue)] = meaning
        seen_here: set[int] = set()
        played_here: set[int] = set()  # the faces counted as a play
        not_eventual = ~self.eventual
        trash = p.board.trash
        clued_faces = self.clued_faces
        inf = p.inf
        ones = p.table.rank_mask[1]
        for c, m in meaning.items():
            f = fi[c]
            if c == misread:
                continue  # (read as a card to keep: see below)
            if f < 0 or not m >> f & 1:
                return None  # the receiver would rule out its true face
            poss = possible[c]
            old = inf[c] & poss or poss  # p.public(c)
            if ((m & not_eventual == 0 or c == finessed) and old & not_eventual != 0
                    and f not in played_here):
                # (a second copy of a face in the clue is no second play: once the first
                # is played, it is known to be a copy)
                plays += 1
                played_here.add(f)
            if clued[c]:
                continue
            if 1 << f & trash or f in clued_faces or f in seen_here:
                if GTA_ONES_ONLY and p.rank_of[f] == 1 and m & ones == m:
                    # a second copy of a 1 read as a 1: once the first is played, good
                    # touch reads this one as another 1 (_good_touch_again), a misplay
                    return None
                bad += 1
            else:
                good += 1
            seen_here.add(f)
            if c == chop and self._worth_saving(c):
                save += 1
        value = (plays * PLAY_WEIGHT + save * SAVE_WEIGHT + good * GOOD_TOUCH_WEIGHT
                 - bad * bad_weight)
        cost = self._misread_cost(clue, misread, meaning, plays)
        if cost is None:
            return None
        value -= cost
        if plays and not self.busy(clue.target):
            value += IDLE_WEIGHT  # it would have discarded otherwise
        if chop in touched and not plays:
            # the clue moves the chop on: onto a card that must not be discarded?
            new_chop = next((c for c in reversed(hand)
                             if not clued[c] and c not in touched), None)
            if new_chop is not None and self._worth_saving(new_chop):
                value -= EXPOSE_WEIGHT
            if new_chop is None:
                value -= LOCK_WEIGHT  # every card clued: it must discard a clued one
        return value, plays

    def _repeats(self, clue: Clue, touched: frozenset[int], mask: int) -> bool:
        """Does ``clue`` tell its receiver nothing its clues have not already told?"""
        possible = self.p.poss
        miss = ~mask
        for c in self.rep.hands[clue.target]:
            poss = possible[c]
            if (poss & mask if c in touched else poss & miss) != poss:
                return False
        return True

    def _misread_card(self, clue: Clue, touched: frozenset[int], mask: int, late: bool
                      ) -> int | None:
        """The newly touched card whose true face good touch would rule out (a useless card
        that may be a useful one), -1 if none, or None if the clue is refused for it: a
        cheap early exit of ``_rate``, with the same verdict as its reading would give. One
        such card is allowed late in a colour play clue, off its focus (TRASH_TOUCH_PLAYERS)."""
        p = self.p
        excluded = p.board.trash | self.known
        clued, fi, possible = p.clued, p.fi, p.poss
        misread = -1
        for c in touched:
            if (not clued[c] and fi[c] >= 0 and 1 << fi[c] & excluded
                    and possible[c] & mask & ~excluded):
                if (misread >= 0 or not late or clue.colour is None
                        or p.config.players > TRASH_TOUCH_PLAYERS
                        or c == p._focus(clue.target, touched, p.chop(clue.target))):
                    return None
                misread = c
        return misread

    def _misread_cost(self, clue: Clue, misread: int, meaning: dict[int, int], plays: int
                      ) -> int | None:
        """What touching ``misread`` (-1: no card) costs a clue read as ``meaning`` that
        gets ``plays`` cards played, or None if that card refuses it: a bad touch good touch
        misreads is only for a play (a save that must bad-touch: _bad_touch_save), and the
        card must never read as one to play."""
        if misread < 0:
            return 0
        if not plays or self._may_read_playable(clue.target, meaning[misread]):
            return None
        return TRASH_TOUCH_WEIGHT

    def _may_read_playable(self, target: int, m: int) -> bool:
        """Could a card of ``target``'s that a bad touch leaves read as ``m`` (its true face
        ruled out) read as a card to play: now, once the clued cards before it are played (a
        delayed play), or soon to ``target`` alone, once it rules out the faces whose every
        copy it sees (one face left, or faces all playable now)?"""
        p = self.p
        if p._is_playable(m) or m & ~self.eventual == 0:
            return True
        left = m & ~self._seen_by_both(target)
        return left & (left - 1) == 0 or p._is_playable(left)

    def _play_clue_words(self, clue: Clue, plays: int) -> Words:
        """A play clue in H-group's terms: a finesse, a prompt or a self-finesse by name,
        with who plays what first; any other, how many cards it gets played."""
        p = self.p
        read = self.reads.get(id(clue))
        pending = read[1] if read is not None else None
        if pending is not None:
            f = p.fi[pending.focus]
            option = next((o for o in pending.options if o.focus_face == f), None)
            missing = option.missing if option is not None else -1
            for seat, card in option.cards if option is not None else ():
                if p.fi[card] == missing:  # (not a bluff)
                    say = (Say.SELF_FINESSE_GIVEN if seat == clue.target
                           else Say.PROMPT_GIVEN if p.clued[card] else Say.FINESSE_GIVEN)
                    return self.words(say, clue.target, clue=clue, other=seat,
                                      card=p.table.cards[missing], focus=p.table.cards[f])
        if read is not None:
            _, reverse = self._as_reverse_finesse(clue, read[0], pending)
            if reverse is not None:
                f = p.fi[reverse]
                return self.words(Say.REVERSE_FINESSE_GIVEN, clue.target, clue=clue,
                                  other=self._reverse_holder(clue, f - 1),
                                  card=p.table.cards[f - 1], focus=p.table.cards[f])
        return self.words(Say.PLAY_CLUE, clue.target, clue=clue, count=plays)

    def _answered_with(self, pending: Pending, card: int | None) -> bool:
        """Does the player asked to answer ``pending`` play ``card``? The receiver of a
        self-finesse, who cannot see its focus, may take another way (``self_answer``)."""
        seat = pending.waiting[0]
        return (self.p.replica.holder(pending.focus) != seat
                or self.p.self_answer(pending).card_of(seat) == card)

    def _rate_chop_move(self, clue: Clue, meaning: dict[int, int], moved: tuple[int, ...]
                        ) -> tuple[int, int] | None:
        """(value, plays) of a trash chop move: touching trash is its point, and it is
        worth the cards it keeps; moving a chop that needs no keeping only wastes the cards
        behind it (None)."""
        kept = sum(self._worth_saving(c) for c in moved)
        if not kept:
            return None
        self._meanings[id(clue)] = meaning
        return kept * SAVE_WEIGHT, 0

    def _bluff(self, pending: Pending, option: Connection) -> int | None:
        """The answer to ``option`` would be a blind play of another playable card (a
        bluff): what the focus then reads as, or None if that card would not play."""
        p = self.p
        if not p.bluffs or len(pending.waiting) != 1:
            return None
        seat = pending.waiting[0]
        card = option.card_of(seat)
        if card is None or p.clued[card] or p.fi[card] < 0:
            return None  # a prompt is never a bluff
        if p.replica.holder(pending.focus) == seat:
            return None  # nor a self-finesse: its blind card must be the one asked for
        f = p.fi[card]
        if not 1 << f & p.board.playable:
            return None
        m = 0
        for o in pending.options:
            if o.card_of(seat) == card:
                if o.missing == f:
                    return None  # it would read as that finesse instead
                m |= 1 << o.focus_face
        return m

    def _misleads(self, clue: Clue) -> bool:
        """Would ``clue`` get a card misplayed: one it touches read as playable when it is not,
        or a blind play asked of a player whose card would not play (a false finesse)?"""
        if self._harm(clue)[0]:
            return True
        p = self.p
        _, pending = p._read_clue(clue, clue.touched or frozenset())
        if pending is None:
            return False
        f = p.fi[pending.focus]
        option = next((o for o in pending.options if o.focus_face == f), None)
        if option is None or any(p.fi[card] == option.missing for _, card in option.cards):
            return False  # a direct clue, or the missing card comes
        return self._bluff(pending, option) is None

    def _harm(self, clue: Clue) -> tuple[int, int]:
        """How many touched cards would read as playable, and as trash, when they are not."""
        p = self.p
        touched = clue.touched or frozenset()
        meaning, pending = p._read_clue(clue, touched)
        misplays = misdiscards = 0
        if pending is not None:
            # a player asked to answer plays a card: does it play?
            f = p.fi[pending.focus]
            self_finesse = p.replica.holder(pending.focus) == pending.waiting[0]
            option = next((o for o in pending.options if o.focus_face == f), None)
            if option is None and self_finesse:
                option = p.self_answer(pending)  # its receiver cannot see its focus
            card = option.card_of(pending.waiting[0]) if option is not None else None
            if card is not None and not 1 << p.fi[card] & p.board.playable:
                misplays += 1
        moved = p._trash_chop_move(clue, touched, meaning)
        if moved and not any(self._worth_saving(c) for c in moved):
            misdiscards += 1  # cards kept for good that need no keeping
        eventual = self.eventual
        gone = self._seen_by_both(clue.target)
        for c, m in meaning.items():
            bit = 1 << p.fi[c] if p.fi[c] >= 0 else 0
            # (the receiver also rules out the faces it sees every copy of: a reading of
            # "B2 or B4" is B2 to a receiver who sees the last B4 elsewhere)
            if p._is_playable(m & ~gone or m) and not bit & p.board.playable:
                misplays += 1
            elif bit and not m & bit and m & ~eventual == 0:
                # read as a card that will be playable once the clued ones before it are
                # (a delayed play clue), and it is not that card: a misplay to come
                misplays += 1
            if p._is_trash(m) and not bit & p.board.trash:
                misdiscards += 1
        return misplays, misdiscards

    def _seen_by_both(self, target: int) -> int:
        """The faces of which ``target`` may see every copy, as far as this seat can tell:
        the copies played, discarded or in the hands both see, and my own clued cards that
        may be one (``target`` sees them; I do not)."""
        p = self.p
        counts = list(p.seen)
        for c in self.rep.hands[target]:
            if p.fi[c] >= 0:
                counts[p.fi[c]] -= 1
        for c in self.rep.hands[p.seat]:
            if p.clued[c]:  # (an unclued card may be anything: counted, it would rule out all)
                for f in _bits(p.public(c)):
                    counts[f] += 1
        gone = 0
        for f, copies in enumerate(p.table.copies):
            if counts[f] >= copies:
                gone |= 1 << f
        return gone

    def busy(self, seat: int) -> bool:
        """Does ``seat`` know of a safe action (so it will not discard its chop)?"""
        known = self._busy.get(seat)
        if known is None:
            known = self._busy[seat] = self.p.has_known_safe_action(seat)
        return known

    def _recent_clues(self) -> set[tuple[int, object, object]]:
        """(target, colour, rank) of the clues given in the last round of turns."""
        out: set[tuple[int, object, object]] = set()
        turns = 0
        for action in reversed(self.rep.history):
            if isinstance(action, Move):
                continue
            turns += 1
            if turns > self.p.config.players:
                break
            if isinstance(action, Clue):
                out.add((action.target, action.colour, action.rank))
        return out

    def _best_clue(self, floor: int | None = None) -> tuple[int, Advice] | None:
        """The clue worth most and its value; None if there is none (with ``floor``: none
        worth that much, and clues worth less are not rated)."""
        p = self.p
        players = p.config.players
        best: tuple[tuple[int, int, bool, int, int], Clue, int] | None = None
        recent = self._recent_clues()
        late = self.rep.cards_left <= FILL_IN_CARDS  # (bots/endgame_clues.py)
        clues = self.clues()  # (not changed below)
        bounds = self._value_bounds(clues, floor)
        # Rated from the most promising on, and no further once a clue's bound is below the
        # best value found: the same choice as rating them all, for about half the work. A
        # clue whose bound only ties the best value so far can at best tie it, and is not
        # rated if it would lose the tie (``fresh``, ``soon``, ``told`` are cheap).
        for i in sorted(range(len(clues)), key=bounds.__getitem__, reverse=True):
            bound = bounds[i]
            if ((best is not None and bound < best[0][0])
                    or (floor is not None and bound < floor)):
                break
            clue = clues[i]
            soon = -((clue.target - p.seat) % players)
            # between equal clues, not the one just given again (people find that odd)
            fresh = (clue.target, clue.colour, clue.rank) not in recent
            if best is not None and bound == best[0][0]:
                told = fill_in(p, clue) if late else 0
                if (bound, told, fresh, soon, -i) < best[0]:
                    continue
                rated = self._rate_clue(clue)
                if rated is None:
                    continue
            else:
                rated = self._rate_clue(clue)
                if rated is None:
                    continue
                # near the deck's end, between equal clues, the one telling most (a fill-in)
                told = fill_in(p, clue) if late else 0
            value, plays = rated
            key = (value, told, fresh, soon, -i)  # (-i: the first listed of equal clues)
            if best is None or key > best[0]:
                best = (key, clue, plays)
        if best is None or (floor is not None and best[0][0] < floor):
            return None
        (value, _, _, _, _), clue, plays = best
        if plays:
            return value, Advice(clue, Reason.PLAY_CLUE, self._play_clue_words(clue, plays))
        if self.rep.clue_tokens == MAX_CLUE_TOKENS:
            say, reason = Say.STALL_FULL, Reason.STALL
        else:
            say, reason = Say.STALL_SPARE, Reason.STALL
        return value, Advice(clue, reason,
                             self.words(say, clue.target, clue=clue, count=plays))
