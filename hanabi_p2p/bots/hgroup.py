"""A computer player that follows the H-group conventions (docs/conventions.md).

Blindness by construction: each player keeps a private replica of the game built only from
what its seat can know (every other hand's faces, public cards, clues with their touched
sets). It never reads a face of its own hand from the state it is given, so it plays the
same whether that state knows those faces (a local game) or not (a networked peer).

Two kinds of knowledge:

* *public* (common knowledge): what every player concludes about a card from the clues and
  the conventions. ``inf[card]`` is a face mask (faces.py) kept identical in every seat's
  player, because it is computed only from public facts: the clue, the touched set, the
  fireworks, the discard pile and earlier public conclusions;
* *private*: the acting seat also counts the copies it sees in the other hands.

The convention meaning of a clue is decided by one function (``_read_clue``) used both by the
receiver to read it and by the giver to predict that reading, so giver and receiver agree.

The player is split by job: ``hgroup_hand`` (its state and the public facts of each card),
``hgroup_reading`` (reading clues, plays and discards), this module (following the game,
the entry points), and one turn's ``_Decision`` in ``hgroup_turn`` → ``hgroup_giving`` →
``hgroup_stalls`` → ``hgroup_discards`` → ``hgroup_saves`` → ``hgroup_decision``; its
constants are in ``hgroup_tuning``, its shared types and caches in ``hgroup_facts``.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanabi_p2p.bots.errors import NotItsTurn
from hanabi_p2p.bots.hgroup_decision import _Decision
from hanabi_p2p.bots.hgroup_facts import Advice, Pending, Reason
from hanabi_p2p.bots.hgroup_reading import ClueReading
from hanabi_p2p.bots.hgroup_tuning import CACHE_SIZE
from hanabi_p2p.rules.actions import Action, Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.engine import GameState

_CARD_ACTIONS = (Play, Discard)


class HGroupPlayer(ClueReading):
    """The convention player of one seat; ``act(state)`` returns its action."""

    # ------------------------------------------------------------------ following the game

    def follows(self, state: GameState) -> bool:
        """Is ``state`` the game this player has followed so far (or a later point of it)?"""
        hist = state.history
        n = self.synced
        return (state.config == self.config and len(hist) >= n
                and (n == 0 or hist[n - 1] is self.last))

    def sync(self, state: GameState) -> None:
        """Apply to the replica every action of ``state`` not applied yet."""
        if not self._dealt:
            self._deal(state)
        hist = state.history
        for i in range(self.synced, len(hist)):
            self._follow(hist[i], state)
            self.last = hist[i]
        self.synced = len(hist)
        # A peer may learn a drawn card's face after the draw was applied: see it now.
        # (Only the cards _see found without a face are looked at again: every turn, and in
        # a local game there are none.)
        for card in list(self._faceless):
            holder = self.replica.holder(card)
            if holder is None or holder == self.seat:
                self._faceless.discard(card)  # no longer another player's card
            else:
                self._see(card, state)

    def _deal(self, state: GameState) -> None:
        size = self.config.hand_size
        for other in range(self.config.players):
            if other != self.seat:
                for card in range(other * size, (other + 1) * size):
                    self._see(card, state)
        self._dealt = True

    def _see(self, card: int, state: GameState) -> None:
        if self.fi[card] >= 0:
            return  # seen already
        face = state.faces[card]
        if face is None:
            self._faceless.add(card)  # to look at again (see sync)
            return
        self._faceless.discard(card)
        f = self.fi[card] = self.table.index(face)
        self.seen[f] += 1
        if self.seen[f] >= self.table.copies[f]:
            self.unseen &= ~(1 << f)

    def _follow(self, action: Action, state: GameState) -> None:
        self._ctx = None
        mine, self._my_read = self._my_read, None  # (only for the very next action)
        # (one isinstance a kind, the commonest first: every seat follows every action)
        if isinstance(action, Clue):
            if self.pending is not None and action.seat in self.pending.waiting:
                self._resolve(self.pending, action, state)
            self._follow_clue(action, state, mine)
        elif isinstance(action, _CARD_ACTIONS):
            if self.pending is not None and action.seat in self.pending.waiting:
                self._resolve(self.pending, action, state)
            self._follow_card(action, state)
        else:  # a Move or a Terminate
            self.replica.apply(action)
        self._ctx = None  # reading a clue used the context before the clue

    def _follow_clue(self, action: Clue, state: GameState,
                     mine: tuple[TurnAction, tuple[dict[int, int], Pending | None]] | None
                     ) -> None:
        """Follow a clue: what it means (``mine``: as I read it when I gave it, if I did)."""
        replica = self.replica
        touched = action.touched
        if touched is None:  # a local game: every face is known to ``state``
            mask = self._clue_mask(action)
            faces = state.faces
            touched = frozenset(c for c in replica.hands[action.target]
                                if (f := faces[c]) is not None
                                and mask >> self.table.index(f) & 1)
            action = Clue(action.seat, action.target, action.colour, action.rank, touched)
        if mine is not None and mine[0] == action and self.pending is None:
            meaning, self.pending = mine[1]
        else:
            meaning, self.pending = self._read_clue(action, touched)
        chop = self.chop(action.target)
        self.saved = action.target if chop is not None and chop in touched else None
        if chop is not None and chop in touched:
            self.chop_focus.add(chop)  # (the order of 1s: see _Decision._play)
        moved = self._trash_chop_move(action, touched, meaning)
        for card, mask in meaning.items():
            self.inf[card] = mask
        clued = self.clued
        for card in touched:
            if not clued[card]:
                clued[card] = True
                self.clued_cards.append(card)
        for card in moved:  # kept: not discarded, though it may be anything (even trash)
            if not clued[card]:
                clued[card] = True
                self.clued_cards.append(card)
        replica.apply_clue(action)
        hit = self._clue_mask(action)
        miss = ~hit
        poss = self.poss
        for card in replica.hands[action.target]:
            poss[card] &= hit if card in touched else miss
        # the receiver's known faces, once the clue and its meaning are stored: reading it
        # above may have cached them as they were before (the giver, who read it when it
        # chose it, fills the cache only for the trash chop move check), and every seat
        # must hold the same ones after it
        self._known_in[action.target] = None

    def _follow_card(self, action: Play | Discard, state: GameState) -> None:
        """Follow a play or a discard, and the card drawn after it."""
        replica = self.replica
        seat = action.seat
        self.saved = None
        sarcastic = -1
        scream = False
        blind_play = False
        if isinstance(action, Discard):
            if seat != self.seat and replica.clue_tokens:
                self._passed_over()
            self.early_game = False
            sarcastic = self._sarcastic_face(action.card)
            scream = self.is_scream(seat)
        else:
            blind_play = not self.clued[action.card]
        if self.clued[action.card]:
            self.clued_cards.remove(action.card)  # (it leaves its hand)
        self._known_in[seat] = None
        if self.fi[action.card] < 0:  # (another player's card: seen already)
            self._see(action.card, state)
        placed, drew = replica.apply_card(action)
        fi = self.fi[action.card]
        if placed:
            self.fw[self.suit_of[fi]] += 1
            self._fw_key += 1 << 3 * self.suit_of[fi]
            self.used[fi] += 1
        else:
            self.gone[fi] += 1
            self._gone_key += 1 << 2 * fi
        if drew is not None and seat != self.seat:
            self._see(drew, state)
        self.board = self._make_board(self.suit_of[fi])
        self._good_touch_again(fi if placed else -1, seat, blind_play)
        if scream:
            self._move_chop((seat + 1) % self.config.players)
        if sarcastic >= 0:
            self._sarcastic_discard(sarcastic, seat)

    # ------------------------------------------------------------------ deciding

    def act(self, state: GameState) -> TurnAction:
        return self.advise(state).action

    def advise(self, state: GameState, names: Sequence[str] | None = None) -> Advice:
        """The action this seat takes now, and why."""
        if state.over or state.current_seat != self.seat:
            raise NotItsTurn(self.seat)
        self.sync(state)
        avoid: frozenset[int] = frozenset()
        pending = self.pending
        if (pending is not None and pending.waiting[0] == self.seat
                and self.answer_to(pending) is None):
            # I pass: settle that now, as everyone will once they see I did not answer, so
            # that my own choice builds on it. A play of a card that would answer would
            # read as an answer: not this turn.
            self._resolve(pending, None, state)
            # (card ids start at 0: "is not None", as card 0 is a card too)
            avoid = frozenset(c for o in pending.options
                              if (c := o.card_of(self.seat)) is not None)
        decision = _Decision(self, names, avoid)
        advice = decision.decide()
        action = advice.action
        # my clue, once it is in the history, reads as it did when I rated it: nothing
        # happens in between (a pending question to me was settled before I chose)
        read = (decision.reads.get(id(action))
                if isinstance(action, Clue) and self.pending is None else None)
        self._my_read = (action, read) if read is not None else None
        return advice


# ---------------------------------------------------------------------- stateless entry

# (id of the game state, seat) -> (that very state, its player). The state is kept with its
# player so that its id cannot be reused by another game's state while the entry lives: a
# fresh game would otherwise "follow" a stale replica of another deal at turn 0.
_players: dict[tuple[int, int, int | None], tuple[GameState, HGroupPlayer]] = {}


def _player_for(state: GameState, seat: int, level: int | None) -> HGroupPlayer:
    key = (id(state), seat, level)
    cached = _players.get(key)
    player = cached[1] if cached is not None and cached[0] is state else None
    if player is None or not player.follows(state):
        player = HGroupPlayer(state.config, seat, level)
        _players.pop(key, None)
        if len(_players) >= CACHE_SIZE:
            del _players[next(iter(_players))]
        _players[key] = (state, player)
    return player


def choose_action(state: GameState, seat: int, level: int | None = None) -> TurnAction:
    """The action ``seat`` takes now (its turn, game not over), playing the conventions of
    H-group ``level`` (None: every one it knows). Keeps a replica per game and seat between
    calls, so each call only reads the actions since the last one."""
    return explain(state, seat, level=level).action


def explain(state: GameState, seat: int, names: Sequence[str] | None = None,
            level: int | None = None) -> Advice:
    """What the convention player would do in ``seat`` now, and why (``.text``, in the current
    language), e.g. ``clue Bob red: focus on the chop, it is the last R4 — a save``.
    ``names``: the players' names by seat (default "seat 1", "seat 2", ...); ``level``: the
    H-group level whose conventions it follows (None: every one it knows)."""
    return _player_for(state, seat, level).advise(state, names)


__all__ = ["Advice", "HGroupPlayer", "Reason", "choose_action", "explain"]
