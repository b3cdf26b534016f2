"""One turn's decision of the convention player: the order of the conventions (answer, fix,
save, play, clue, discard, stall), the last turns and the end-game look-ahead (``_plan``).
The clue-giving, saving, discarding and stalling parts are mixins in their own modules."""

from __future__ import annotations

from hanabi_p2p.bots.duplicates import deferred_for
from hanabi_p2p.bots.endgame import Model, ModelCard
from hanabi_p2p.bots.hgroup_facts import Advice, Reason, _bits
from hanabi_p2p.bots.hgroup_saves import Saves
from hanabi_p2p.bots.hgroup_tuning import (
    AFTER_SAVE_STALL_LOSS,
    AFTER_SAVE_STALL_TOKENS,
    EARLY_GAMBLE_CARDS,
    EARLY_GAMBLE_P,
    EARLY_RICH_CARDS,
    EARLY_RICH_PLAYERS,
    EARLY_RICH_TOKENS,
    ENDGAME_KEEP_TOKENS,
    ENDGAME_STALL_CARDS,
    GTA_ONES_ONLY,
    LAST_CLUE,
    LOW_TOKENS,
    LOW_TOKENS_2P,
    LOW_TOKENS_MANY,
    LOW_TOKENS_MANY_PLAYERS,
    MIN_CLUE_VALUE,
    MODEL_MINE,
    OVERLOOKED_WEIGHT,
    PLAN_EXTRA_CARDS,
    PLAN_STALL_PLAYERS,
    PLAY_WEIGHT,
    READ_LATE_FINESSES,
    RICH_TOKENS,
    STALL_ONLY_FOR_PLAYS,
    STALL_ONLY_FOR_PLAYS_MANY,
    STALL_ONLY_FOR_PLAYS_MANY_PLAYERS,
    TWIN_PLAYERS,
    TWIN_TOKENS,
    UNSAVED_WEIGHT,
    URGENT_PLAY_PLAYERS,
)
from hanabi_p2p.bots.words import Say
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, MAX_STRIKES
from hanabi_p2p.rules.faces import RANKS_PER_SUIT


class _Decision(Saves):
    """One turn's choice. Kept apart so that its scratch data never outlives the turn."""

    def decide(self) -> Advice:
        advice = self._by_conventions()
        rep = self.rep
        final_round = rep.final_round_turns_left is not None
        if (PLAN_EXTRA_CARDS >= 0 and advice.reason in _PLANNED
                and not self.p.config.all_or_nothing  # (no final round: play goes on)
                # in the final round nothing beat playing a known card (3p: 0 of 594 looked
                # at; skipping it measured 2p, 3p, 5p the same, 4p 23.16 -> 23.15)
                and not (final_round and advice.reason is Reason.PLAY_KNOWN)
                and (final_round
                     or rep.cards_left <= self.p.config.players + PLAN_EXTRA_CARDS)):
            return self._plan(advice)
        return advice

    def _by_conventions(self) -> Advice:
        p = self.p
        rep = self.rep
        tokens = rep.clue_tokens
        mine = self.my_cards()
        self.avoid |= deferred_for(p, mine, GTA_ONES_ONLY)  # (see bots/duplicates.py)
        players = p.config.players
        nxt = (p.seat + 1) % players
        answer = self._answer()
        if answer is not None:
            return answer
        if tokens > 0:
            fix = self._fix()
            if fix is not None:
                return fix
        if tokens > 0 and rep.final_round_turns_left is None:
            # (in the final round nobody draws: a card discarded then could not have
            # been played in time anyway)
            urgent = self._urgent_save(nxt)
            if urgent is not None:
                return urgent
            if players <= URGENT_PLAY_PLAYERS:
                urgent = self._urgent_play(nxt)
                if urgent is not None:
                    return urgent
        if tokens == 0:
            scream = self._scream(mine, nxt)
            if scream is not None:
                return scream
        play = self._play(mine)
        if play is not None:
            return play
        need = MIN_CLUE_VALUE
        low = (LOW_TOKENS_2P if players == 2
               else LOW_TOKENS_MANY if players >= LOW_TOKENS_MANY_PLAYERS else LOW_TOKENS)
        if tokens <= low and self._threatened():
            need *= 2  # keep the last token for a save
        twin = (tokens >= TWIN_TOKENS and p.config.players <= TWIN_PLAYERS
                and self._twin_may_be_mine())
        clue = None
        # early in the game a clue that gets nothing played waits for more tokens
        rich = (EARLY_RICH_TOKENS if rep.cards_left > EARLY_RICH_CARDS
                and players >= EARLY_RICH_PLAYERS else RICH_TOKENS)
        if tokens > 0:
            # Most turns only a clue worth ``need`` would be given (else my chop goes): then
            # no clue worth less needs rating. Not in the cases below that take a lesser clue.
            only_good = (tokens < rich and rep.final_round_turns_left is None
                         and rep.cards_left > ENDGAME_STALL_CARDS
                         and not (p.saved == p.seat and tokens >= self._after_save_tokens())
                         and not twin
                         and not self._pace_stall()
                         and p.chop(p.seat) is not None)
            clue = self._best_clue(need if only_good else None)
        if rep.final_round_turns_left is not None:
            last = self._last_turn(mine, clue)
            if last is not None:
                return last
        if clue is not None and (clue[0] >= need or tokens == MAX_CLUE_TOKENS
                                 or (tokens >= rich and clue[0] > 0)):
            return clue[1]
        if p.saved == p.seat and tokens >= self._after_save_tokens() and clue is not None:
            # my chop was just saved: the card behind it is my chop now, and nobody has had
            # a turn to look at it yet. A clue that does some good keeps it a turn longer;
            # so does a harmless one, with tokens to spare, if that card is likely needed.
            if clue[0] > 0:
                return self._stall_saying(clue[1], Say.STALL_AFTER_SAVE)
            if (clue[0] == 0 and tokens >= AFTER_SAVE_STALL_TOKENS
                    and self._chop_loss(mine) >= AFTER_SAVE_STALL_LOSS):
                return self._stall_saying(clue[1], Say.STALL_AFTER_SAVE_RISK)
        if twin and clue is not None and clue[0] > 0:
            return self._stall_saying(clue[1], Say.STALL_TWIN)
        if (clue is not None and clue[0] >= 0 and tokens < MAX_CLUE_TOKENS
                and self._pace_stall() and self._plays_coming()):
            # few turns are left for the cards still to play: a discard would use one up,
            # a clue lets my partner's known card be played first
            return self._stall_saying(clue[1], Say.STALL_PACE)
        if tokens < MAX_CLUE_TOKENS:
            only_for_plays = (STALL_ONLY_FOR_PLAYS_MANY
                              if players >= STALL_ONLY_FOR_PLAYS_MANY_PLAYERS
                              else STALL_ONLY_FOR_PLAYS)
            if (rep.cards_left <= ENDGAME_STALL_CARDS and tokens > ENDGAME_KEEP_TOKENS
                    and clue is not None
                    and (tokens > only_for_plays or clue[1].reason is Reason.PLAY_CLUE
                         or self._plays_coming())):
                return clue[1]
            if rep.cards_left <= EARLY_GAMBLE_CARDS and rep.strikes < MAX_STRIKES - 1:
                gamble = self._gamble(mine, EARLY_GAMBLE_P, Say.GAMBLE_EARLY)
                if gamble is not None:
                    return gamble
            return self._discard(mine, clue)
        return self._stall(mine)

    # -- the end-game plan

    def _model(self) -> Model:
        p = self.p
        rep = self.rep
        all_faces = p.table.all_faces
        unseen = p._unseen()
        mine = dict(self.my_cards()) if MODEL_MINE else {}
        hands: list[list[ModelCard]] = []
        for seat, hand in enumerate(rep.hands):
            cards: list[ModelCard] = []
            for c in hand:
                if not p.clued[c]:
                    cards.append((p.fi[c], all_faces))
                elif seat == p.seat:
                    pub = p.public(c)
                    cards.append((-1, mine.get(c) or pub & unseen or pub))
                else:
                    cards.append((p.fi[c], p.public(c)))
            hands.append(cards)
        return Model(p.fw[:], rep.clue_tokens, rep.cards_left, rep.final_round_turns_left,
                     hands, p.seat, ENDGAME_STALL_CARDS, all_faces)

    def _outcome(self, base: Model, action: TurnAction, reachable: int) -> int:
        """The points the model scores by the game's end if this seat takes ``action`` (at
        most ``reachable``)."""
        p = self.p
        m = base.copy()
        hand = self.rep.hands[p.seat]
        scored = 0
        if isinstance(action, Play):
            i = hand.index(action.card)
            mask = m.hands[p.seat][i][1]
            if p._is_playable(mask):
                scored = m.play(p.seat, i, (mask & -mask).bit_length() - 1)
            else:  # a gamble: its chance is counted by the caller
                m.play(p.seat, i, -1)
        elif isinstance(action, Discard):
            m.discard(p.seat, hand.index(action.card))
        elif isinstance(action, Clue):
            meaning = self._meanings.get(id(action))
            if meaning is None:
                meaning, _ = p._read_clue(action, action.touched or frozenset())
            target = self.rep.hands[action.target]
            hit = p._clue_mask(action)
            update = {}
            for c, mask in meaning.items():
                poss = p.poss[c] & hit
                update[target.index(c)] = mask & poss or poss
            m.clue(update, action.target)
        else:
            return 0
        return scored + m.run((p.seat + 1) % p.config.players, reachable - scored)

    def _reachable(self, model: Model) -> int:
        """The most points the model could score: per suit, the run of next ranks found in
        the hands (a clued card of mine counts as any face it may be; the model never plays
        an unclued one of mine, nor a card still to be drawn)."""
        have = 0
        everything = model.all_faces
        for hand in model.hands:
            for face, mask in hand:
                if face >= 0:
                    have |= 1 << face
                elif mask != everything:  # (nobody can show me an unclued card of mine)
                    have |= mask
        total = 0
        for s, top in enumerate(model.fireworks):
            base = s * RANKS_PER_SUIT
            rank = top
            while rank < RANKS_PER_SUIT and have >> (base + rank) & 1:
                rank += 1
            total += rank - top
        return total

    def _plan(self, advice: Advice) -> Advice:
        """Near the end: of the actions the conventions would consider (the chosen one, a
        known playable card, a clue that gets a card played, the chop's discard), the one
        after which the model of the remaining turns scores most; the conventions' choice
        on a tie."""
        p = self.p
        rep = self.rep
        base = self._model()
        reachable = self._reachable(base)
        if reachable == 0:
            return advice  # no card anybody could still learn to play
        best: float = self._outcome(base, advice.action, reachable)
        if advice.reason is Reason.GAMBLE:
            best += advice.words.number / 100  # its chance to score
        if best >= reachable:
            return advice  # nothing can do better in the model
        best_advice = advice
        candidates: list[TurnAction] = []
        for c, m in self.my_cards():
            if p._is_playable(m) and c not in self.avoid and not self._waits(c, m):
                candidates.append(Play(p.seat, c))
        if rep.clue_tokens > 0:
            stall: tuple[int, Clue] | None = None  # the best clue that gets nothing played
            for clue in self.clues():
                if type(clue) is Clue:
                    rated = self._rate_clue(clue)
                    if rated is not None:
                        if rated[1]:
                            candidates.append(clue)
                        elif stall is None or rated[0] > stall[0]:
                            stall = (rated[0], clue)
            if stall is not None and p.config.players <= PLAN_STALL_PLAYERS:
                candidates.append(stall[1])
        chop = p.chop(p.seat)
        if rep.clue_tokens < MAX_CLUE_TOKENS and chop is not None:
            candidates.append(Discard(p.seat, chop))
        for action in candidates:
            if action == advice.action:
                continue
            points = self._outcome(base, action, reachable)
            if points > best:
                best = points
                best_advice = self._planned(action, points)
                if points >= reachable:
                    break
        return best_advice

    def _planned(self, action: TurnAction, points: int) -> Advice:
        hand = self.rep.hands[self.p.seat]
        if isinstance(action, Clue):
            return Advice(action, Reason.PLAN,
                          self.words(Say.PLAN_CLUE, action.target, clue=action, count=points))
        assert isinstance(action, Play | Discard)
        say = Say.PLAN_PLAY if isinstance(action, Play) else Say.PLAN_DISCARD
        return Advice(action, Reason.PLAN,
                      self.words(say, slot=hand.index(action.card) + 1, count=points))

    def _plays_coming(self) -> bool:
        """Does another player know of a card to play (so a stall buys it a turn)?"""
        p = self.p
        for seat, hand in enumerate(self.rep.hands):
            if seat != p.seat and any(p._is_playable(p.public(c)) for c in hand):
                return True
        return False

    # -- playing

    def _answer(self) -> Advice | None:
        """The last clue's focus is one above what its firework needs, and the missing card
        is mine: play it (from my clued cards: a prompt; blind: a finesse)."""
        p = self.p
        pending = p.pending
        if pending is None or pending.waiting[0] != p.seat:
            if READ_LATE_FINESSES and self.rep.strikes < MAX_STRIKES - 1:
                return self._late_finesse()
            return None
        option = p.answer_to(pending)
        card = option.card_of(p.seat) if option is not None else None
        if option is None or card is None:
            return None
        f = option.focus_face
        hand = self.rep.hands[p.seat]
        slot = hand.index(card) + 1
        holder = self.rep.holder(pending.focus) or 0
        if holder == p.seat:
            return Advice(Play(p.seat, card), Reason.ANSWER,
                          self.words(Say.SELF_FINESSE, holder, slot=slot,
                                     count=hand.index(pending.focus) + 1))
        say = (Say.PROMPT if p.clued[card] else Say.FINESSE_OR_BLUFF if p.bluffs
               else Say.FINESSE)
        return Advice(Play(p.seat, card), Reason.ANSWER,
                      self.words(say, holder, slot=slot, card=p.table.cards[option.missing],
                                 focus=p.table.cards[f]))

    def _play(self, mine: list[tuple[int, int]]) -> Advice | None:
        p = self.p
        best: tuple[tuple[int, int, int, int], int] | None = None
        ones = p.table.rank_mask[1]
        not_playable = ~p.board.playable
        for slot, (c, m) in enumerate(mine):
            # (p._is_playable(m), inlined: every turn, every card)
            if m and not m & not_playable and c not in self.avoid and not self._waits(c, m):
                if m & (m - 1) == 0:  # known exactly, most often: no list of faces
                    rank = p.rank_of[m.bit_length() - 1]
                else:
                    rank = min(p.rank_of[f] for f in _bits(m))
                if p.ones_in_order and m & ~ones == 0:
                    # 1s known only as 1s go in the order people play them: the one a
                    # clue's focus on the chop touched, then any drawn since the deal, then
                    # from the oldest (so that everyone knows which goes next)
                    order = (0 if c in p.chop_focus else 1 if c >= p.first_drawn else 2,
                             -slot)
                else:
                    order = (0, slot)
                key = (-self._unlocks(m), rank, *order)
                if best is None or key < best[0]:
                    best = (key, c)
        if best is None:
            return None
        c = best[1]
        slot = self.rep.hands[p.seat].index(c) + 1
        return Advice(Play(p.seat, c), Reason.PLAY_KNOWN,
                      self.words(Say.PLAY_KNOWN, slot=slot))

    def _waits(self, c: int, m: int) -> bool:
        """Is my card ``c``, read as exactly ``m``, the focus of a reverse finesse (level
        2): since my last turn a clue made it read as X, and a player after me and before
        that clue's giver holds X as its newest unclued card? That player plays X first
        (to it the clue is a finesse), and my card is the one after X: I wait a turn."""
        p = self.p
        if not p.reverse_finesses or m & (m - 1):
            return False
        giver = self.recent_givers().get(c)
        if giver is None:
            return False
        n = p.config.players
        x = m.bit_length() - 1
        for k in range(1, (giver - p.seat) % n):
            blind = p.finesse_position((p.seat + k) % n)
            if blind is not None and p.fi[blind] == x:
                return True
        return False

    def _unlocks(self, m: int) -> int:
        """How many cards clued in other hands a play of one of the faces ``m`` brings
        closer (for the choice between two playable cards)."""
        p = self.p
        if m and m & (m - 1) == 0:  # one face, most often: no list of faces
            f = m.bit_length() - 1
            return 1 if p.rank_of[f] < RANKS_PER_SUIT and self.clued_faces.get(f + 1, 0) else 0
        n = 0
        for f in _bits(m):
            nxt = f + 1
            if p.rank_of[f] < RANKS_PER_SUIT and self.clued_faces.get(nxt, 0):
                n += 1
        return n

    def _last_turn(self, mine: list[tuple[int, int]], clue: tuple[int, Advice] | None
                   ) -> Advice | None:
        """The deck is empty: this is my last turn. A clue that gets a card played in time
        is worth a point; failing that, while a strike cannot end the game, a card that may
        be playable is worth playing (nothing is lost by a misplay now but a fuse)."""
        p = self.p
        rep = self.rep
        players = p.config.players
        later = (rep.final_round_turns_left or 0) - 1  # players still to act after me
        if clue is not None and clue[0] >= PLAY_WEIGHT:
            target = clue[1].action
            if isinstance(target, Clue) and 0 < (target.target - p.seat) % players <= later:
                return clue[1]
        gamble = (self._gamble(mine, 0.0, Say.GAMBLE, read=True)
                  if rep.strikes < MAX_STRIKES - 1 else None)
        if LAST_CLUE and rep.clue_tokens > 0 and later > 0:
            shown = self._last_clue(gamble)
            if shown is not None:
                return shown
        return gamble

    def _last_clue(self, gamble: Advice | None) -> Advice | None:
        """My last turn, and the last player to act after me sees every card but its own:
        it will play the card it knows is playable, else the one likeliest to be. A clue
        that makes that a playable card, when it would not be otherwise, may be worth more
        than my own gamble (its chance ``gamble`` says)."""
        p = self.p
        rep = self.rep
        later = (rep.final_round_turns_left or 0) - 1
        last = (p.seat + later) % p.config.players
        strikes = rep.strikes
        none = self._last_play(last, None, strikes)
        mine = gamble.words.number / 100 if gamble is not None else 0.0
        if strikes == MAX_STRIKES - 2 and gamble is not None:
            # a misplay of mine would leave it no gamble
            after_miss = self._last_play(last, None, strikes + 1)
            keep = mine + mine * none + (1 - mine) * after_miss
        else:
            keep = mine + none
        keep = max(keep, none)
        best: Clue | None = None
        for clue in self._clues_to(last):
            if self._misleads(clue):
                continue  # (a misread play on a table with two strikes scores 0)
            if self._last_play(last, clue, strikes) > keep:
                best = clue
                break
        if best is None:
            return None
        return Advice(best, Reason.PLAN, self.words(Say.PLAN_CLUE, last, clue=best, count=1))

    def _last_play(self, seat: int, clue: Clue | None, strikes: int) -> float:
        """Will ``seat``, on its last turn (after ``clue``, if any), play a playable card?
        Its own hand is all it does not see: it knows which faces are there, not where."""
        p = self.p
        fi = p.fi
        hand = self.rep.hands[seat]
        counts = [0] * len(p.table.cards)
        for c in hand:
            if fi[c] < 0:
                return 0.0
            counts[fi[c]] += 1
        there = 0
        for f, n in enumerate(counts):
            if n:
                there |= 1 << f
        meaning = p._read_clue(clue, clue.touched or frozenset())[0] if clue is not None else {}
        masks = [m & there or m for m in self._known_after(hand, clue, meaning)[1]]
        # its cards known exactly take their faces' copies (as _share_out)
        left = counts[:]
        for m in masks:
            if m & (m - 1) == 0:
                left[m.bit_length() - 1] -= 1
        gone = 0
        for f, n in enumerate(left):
            if n <= 0:
                gone |= 1 << f
        playable = p.board.playable
        best: tuple[float, int] | None = None
        for c, known in zip(hand, masks, strict=True):
            m = known & ~gone or known if known & (known - 1) else known
            if m & ~playable == 0:
                return 1.0 if 1 << fi[c] & playable else 0.0  # it knows one: it plays it
            total = sum(max(left[f], 0) for f in _bits(m))
            good = sum(max(left[f], 0) for f in _bits(m & playable))
            if total and good and (best is None or good / total > best[0]):
                best = (good / total, c)
        if best is None or strikes >= MAX_STRIKES - 1:
            return 0.0
        return 1.0 if 1 << fi[best[1]] & playable else 0.0

    def _gamble(self, mine: list[tuple[int, int]], least: float, say: Say, read: bool = False
                ) -> Advice | None:
        """Play my card likeliest to be playable, if that chance is above ``least`` (with
        ``read``: counting what the other players' discards say of it, see _passed_over)."""
        p = self.p
        rep = self.rep
        counts = self._unseen_counts()
        for f, n in p.known_mine:
            counts[f] -= n  # (those copies are my known cards)
        best: tuple[float, int] | None = None
        playable = p.board.playable
        for c, m in mine:
            if c in self.avoid:
                continue  # it would read as an answer to the question I passed on
            if m & (m - 1) == 0:
                total = good = float(bool(m & playable))  # known exactly
            else:
                # what the other players' discards say of it (see _passed_over)
                passed = p.overlooked[c] if read and not p.clued[c] else ()
                unsaved = p.unsaved[c] if read and not p.clued[c] else ()
                total = good = 0.0
                for f in _bits(m):
                    bit = 1 << f
                    w = float(max(counts[f], 0))
                    if w and passed:
                        w *= OVERLOOKED_WEIGHT ** sum(1 for q in passed if q & bit)
                    if w and unsaved:
                        w *= UNSAVED_WEIGHT ** sum(1 for q in unsaved if q & bit)
                    total += w
                    if bit & playable:
                        good += w
            if total and good > least * total and (best is None or good / total > best[0]):
                best = (good / total, c)
        if best is None:
            return None
        slot = rep.hands[p.seat].index(best[1]) + 1
        return Advice(Play(p.seat, best[1]), Reason.GAMBLE,
                      self.words(say, slot=slot, count=round(best[0] * 100)))


# What the end-game plan may overrule: not an answer to a finesse or prompt, a fix, or a save.
_PLANNED = frozenset({Reason.PLAY_KNOWN, Reason.PLAY_CLUE, Reason.DISCARD_TRASH,
                      Reason.DISCARD_CHOP, Reason.STALL, Reason.LOCKED, Reason.GAMBLE})
