"""The turn stage of the table session: actions, answers, resignations, hand moves.

A turn ``t``: the player to move posts ``action`` (with its state hash at the start of
``t`` and, for a play or discard, its public key share of the card and its owner key for
the replacement card); every other peer answers with ``ack`` (its own state hash, its
public share of the card, its share of the replacement for everyone but the owner). A play
or discard resolves once every public share is in, so a turn costs one round of messages.
"""

from __future__ import annotations

from typing import Any

from hanabi_p2p import refusals as rf
from hanabi_p2p.deck import DeckCheatError
from hanabi_p2p.deck.messages import DeckMessage, OwnerKey, PublicKey, SharedKeys
from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.limits import MAX_REASON_CHARS
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.rules.actions import Clue, Discard, Move, Play, Terminate, TurnAction
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import events as ev
from hanabi_p2p.session import kinds as k
from hanabi_p2p.session.base import GameFault, MessageKey, PendingTurn, TurnReveals, turn_label
from hanabi_p2p.session.dealing import DeckStage
from hanabi_p2p.session.phase import Phase, Trigger


class TurnStage(DeckStage):
    """The turns: our actions and answers, and everyone's, checked and applied in turn order."""

    def take_action(self, action: TurnAction) -> None:
        """Our turn: check the action, then post it. Raises IllegalAction with the rule."""
        state = self._require_state()
        if self.abort_reason:
            raise rf.GameStopped(self.abort_reason)
        if state.over:
            raise rf.GameIsOver()
        if not self.my_turn():
            raise rf.NotYourTurn(self.name_of(state.current_seat))
        if isinstance(action, Clue) and action.touched is None:
            action = self._with_touched(action)
        state.check(action)
        deck = self._require_deck()
        msgs: list[Any] = []
        if isinstance(action, Play | Discard):
            draws = state.draw_index < state.config.deck_size
            if draws and not self._settle_deck_checks():  # (before any share is made)
                raise rf.GameStopped(str(self.abort_reason))  # (set by the abort)
            msgs.extend(deck.public_share(action.card))
            if draws:
                msgs.extend(deck.deal_shares(state.draw_index, state.current_seat))
        # the hash we computed when this turn began (what the others check it against)
        digest = self._my_hash(state.turn) or state.public_hash()
        after = self.turn_actions.get(state.turn - 1) if self._names_actions else None
        self._post(k.ACTION, b.ActionBody(action, digest, tuple(msgs), after))

    def _with_touched(self, clue: Clue) -> Clue:
        state = self._require_state()
        if not 0 <= clue.target < len(self.seats):
            raise rf.NoSuchSeat(clue.target)
        touched = set()
        for card in state.hands[clue.target]:
            face = state.faces[card]
            if face is None:
                raise rf.ClueOwnHand()
            if (clue.colour is not None and state.config.colour_touches(clue.colour, face)) or (
                clue.rank is not None and face.rank == clue.rank
            ):
                touched.add(card)
        return Clue(clue.seat, clue.target, clue.colour, clue.rank, frozenset(touched))

    def move_card(self, card: int, to: int) -> None:
        state = self._require_state()
        state.check(Move(self._require_seat(), card, to))
        self._check_side_post(k.MOVE.kind)
        self._post(k.MOVE, b.MoveBody(card, to))

    def resign(self, reason: str = "") -> None:
        """End the game for everyone.

        During play it takes effect at our next turn (peers must agree on the exact point),
        so it is posted then: posting it earlier would put it in our chain before answers
        we still owe for the turns in between. Before the deal there is no turn to resign
        at: we leave, which reveals our seed and stops the game for everyone (SPEC 5.3)."""
        if self.my_seat is None or self.phase not in (Phase.DECK, Phase.PLAY):
            raise rf.NoGameToResign()
        if self.state is None:
            me = self.name_of(self.my_seat)
            self.abort(None, f"{me} left before the deal" + (f": {reason}" if reason else ""))
            return
        self._resign_reason = reason[:MAX_REASON_CHARS]
        self._post_resign_if_due()

    def abandon(self) -> None:
        """Ask to end the game by agreement, or agree to it (SPEC 5.3): our vote now; once
        every other seat has voted, at our turn (in place of our action) the vote that ends
        the game, which every peer applies at that same point. Nobody is blamed."""
        state = self.state
        if self.my_seat is None or state is None or self.phase is not Phase.PLAY:
            if self.abort_reason:
                raise rf.GameStopped(self.abort_reason)
            if state is not None and state.over:
                raise rf.GameIsOver()
            raise rf.NoGameToAbandon()
        if state.over:
            raise rf.GameIsOver()
        if self._abandon_wanted:
            raise rf.AbandonAskedAlready()
        self._abandon_wanted = True
        if not self._abandon_due():
            self._post(k.ABANDON, b.AbandonBody(end=False))
        self._post_abandon_if_due()

    def _abandon_due(self) -> bool:
        """Our vote would end the game now: we want it, it is our turn, every other seat
        has voted."""
        return (self._abandon_wanted and self.my_turn()
                and self._others_voted(self._require_seat()))

    def _others_voted(self, seat: int) -> bool:
        return all(s in self.abandon_votes for s in range(len(self.seats)) if s != seat)

    def _post_abandon_if_due(self) -> None:
        if self._abandon_due():
            self._post(k.ABANDON, b.AbandonBody(end=True))

    def _on_abandon(self, entry: Entry, vote: b.AbandonBody) -> None:
        seat = self._seat_or_fault(entry)
        state = self._require_state()
        if seat in self.abandon_votes and not vote.end:
            raise GameFault(self._who(entry), "asked twice to end the game by agreement")
        if vote.end and self.abandoned_at is not None:
            raise GameFault(self._who(entry), "ended the game by agreement twice")
        if entry.author == self.me:
            self._abandon_wanted = True  # (also when resuming: our vote still stands)
        if not vote.end:
            self.abandon_votes.add(seat)
            self._events.append(ev.AbandonVoted(seat))
            self._post_abandon_if_due()
            return
        if state.over:
            return  # (over by a resignation first, at a peer that applied it first)
        # the vote of the seat to move, in place of its action (it was ready only then)
        if seat not in self.abandon_votes:
            self.abandon_votes.add(seat)
            self._events.append(ev.AbandonVoted(seat))
        self.abandoned_at = state.turn
        self._events.append(ev.Abandoned(state.turn))
        self._hash_the_turn_start()  # the state of this turn's start is ending
        state.apply(Terminate(seat))
        self._after_turn()

    def _post_resign_if_due(self) -> None:
        if self._resign_reason is not None and self.my_turn():
            self._post(k.RESIGN, b.ResignBody(self._resign_reason))

    def _on_action(self, entry: Entry, unseated: b.ActionBody) -> None:
        """Checks in the order SPEC 5.5 fixes: the turn, the seat, the end of the game, the
        body, the state hash, the rules, then the key shares (so every verifier names the
        same reason). The end comes after the seat: a resignation leaves the turn and the
        seat to move as they were, so an action by another seat is "not their turn" whether
        it arrived before or after the resignation of the seat to move."""
        state = self._require_state()
        seat = self._seat_or_fault(entry)
        if entry.turn != state.turn or self.pending is not None:
            raise GameFault(
                self._who(entry),
                f"acted for {turn_label(entry.turn)} during {turn_label(state.turn)}",
            )
        if seat != state.current_seat:
            current = self.name_of(state.current_seat)
            raise GameFault(self._who(entry), f"not their turn: it is {current}'s")
        if state.over:
            raise GameFault(self._who(entry), "acted after the game ended")
        body, msgs, reveals = self._check_action(entry, seat, unseated)
        action = body.action
        if isinstance(action, Clue):
            self._record_hash(entry.turn, seat, body.state_hash)
            self.turn_reveals[entry.turn] = reveals
            self.turn_actions[entry.turn] = entry.hash
            self._hash_the_turn_start()  # (done by the check above: the turn ends)
            before = state.copy()
            outcome = state.apply(action)
            self._events.append(ev.TurnResolved(entry.turn, action, outcome, before))
            self._ack(entry.turn, seat, [])
            self._after_turn()
            return
        assert isinstance(action, Play | Discard)
        deck = self._require_deck()
        mine: list[Any] = []
        if self.my_seat is not None:
            # Declare both reveals to our DeckPeer even for our own action: a peer resumed
            # from its log replays its own action without take_action(). Same bytes again.
            mine.extend(deck.public_share(action.card))
            if reveals.draw is not None:
                if not self._settle_deck_checks():
                    return  # a cheat found: the game is stopped, blaming its signer
                mine.extend(deck.deal_shares(reveals.draw, seat))
        # The actor's shares are checked before the turn is taken up: a bad one refuses the
        # entry with no pending turn and no ack of ours left behind.
        answers = self._receive_deck(seat, msgs)
        self._record_hash(entry.turn, seat, body.state_hash)
        self.turn_reveals[entry.turn] = reveals
        self.turn_actions[entry.turn] = entry.hash
        self.pending = PendingTurn(entry.turn, action)
        self._ack(entry.turn, seat, mine)
        self._after_deck(answers)

    def _check_action(self, entry: Entry, seat: int, unseated: b.ActionBody,
                      ) -> tuple[b.ActionBody, list[DeckMessage], TurnReveals]:
        """The checks of a turn action by the seat to move, at its turn, that change
        nothing (SPEC 5.5: its state hash, the rules, which key shares it carries); its key
        shares' own checks come after, as they are taken in."""
        state = self._require_state()
        body = unseated.for_seat(seat)
        self._check_hash(entry.turn, seat, body.state_hash, entry)
        try:
            state.check(body.action)
        except IllegalAction as exc:
            raise GameFault(self._who(entry), f"illegal action: {exc}") from None
        msgs = self._decode_deck(entry, body.deck)
        reveals = self._reveals_of(seat, body.action)
        want: list[MessageKey] = []
        if reveals.card is not None:
            want.append((PublicKey.KIND, reveals.card))
        if reveals.draw is not None:
            want.append((OwnerKey.KIND, reveals.draw))
        self._expect(entry, msgs, want, "its action")
        return body, msgs, reveals

    def _judge_after_abort(self, entry: Entry, unseated: b.ActionBody) -> None:
        """A turn action that reaches our stopped game at the very turn it stopped at, by
        the seat to move: checked as if it were played, never played. A cheat that came
        after our stop is then refused and named, as the verification of our log does
        (SPEC 5.5); at any other point our state cannot judge it, and it is only taken."""
        state, seat = self.state, self.seat_of(entry.author)
        if (state is None or self.pending is not None or state.over or seat is None
                or entry.turn != state.turn or seat != state.current_seat
                or self._forked_turn(entry, unseated) is not None):
            return
        _, msgs, _ = self._check_action(entry, seat, unseated)
        try:
            self._require_deck().check_published_keys(seat, msgs)
        except DeckCheatError as exc:
            raise self._deck_fault(exc) from None

    def _reveals_of(self, seat: int, action: TurnAction) -> TurnReveals:
        state = self._require_state()
        if isinstance(action, Clue):
            return TurnReveals(seat, None, None)
        more = state.draw_index < state.config.deck_size
        return TurnReveals(seat, action.card, state.draw_index if more else None)

    def _ack(self, turn: int, actor: int, deck_msgs: list[Any]) -> None:
        if self.my_seat is None or self.my_seat == actor:
            return
        digest = self._my_hash(turn)
        assert digest is not None  # (computed when the turn began, or at its action's check)
        answers = self.turn_actions.get(turn) if self._names_actions else None
        self._post(k.ACK, b.AckBody(digest, tuple(deck_msgs), answers), turn=turn)

    def _on_ack(self, entry: Entry, body: b.AckBody) -> None:
        seat = self._seat_or_fault(entry)
        reveals = self.turn_reveals.get(entry.turn)
        if reveals is None:
            raise GameFault(self._who(entry), f"answered {turn_label(entry.turn)}, "
                            "which had no action")
        if seat == reveals.actor:
            raise GameFault(self._who(entry), f"answered its own {turn_label(entry.turn)}")
        self._check_hash(entry.turn, seat, body.state_hash, entry)
        msgs = self._decode_deck(entry, body.deck)
        want: list[MessageKey] = []
        if reveals.card is not None:
            want.append((PublicKey.KIND, reveals.card))
        if reveals.draw is not None:
            want.append((SharedKeys.KIND, reveals.draw, reveals.actor))
        self._expect(entry, msgs, want, "its answer")
        answers = self._receive_deck(seat, msgs)
        self._record_hash(entry.turn, seat, body.state_hash)
        self._after_deck(answers)

    def _check_hash(self, turn: int, seat: int, digest: bytes, entry: Entry) -> None:
        """Raise GameFault, changing nothing, if the reported hash is a second or a wrong one."""
        if seat in self.reported_hashes.get(turn, {}):
            raise GameFault(
                self._who(entry), f"reported a second state hash for {turn_label(turn)}"
            )
        mine = self._my_hash(turn)
        if mine is not None and digest != mine:
            raise GameFault(
                self._who(entry),
                f"game state diverged at {turn_label(turn)}: {self.name_of(seat)} computed "
                f"{digest.hex()[:12]}, we computed {mine.hex()[:12]}",
            )

    def _try_resolve(self) -> None:
        state, pending = self.state, self.pending
        if state is None or pending is None or state.faces[pending.action.card] is None:
            return
        self.pending = None
        self._hash_the_turn_start()  # (done when its action was checked: the turn ends)
        before = state.copy()
        outcome = state.apply(pending.action)
        self._events.append(ev.TurnResolved(pending.turn, pending.action, outcome, before))
        self._after_turn()

    def _after_turn(self) -> None:
        state = self._require_state()
        # The new turn's hash is first needed to check its action (or to take it), a
        # moment away: it is computed then, or when we next post (an ack, once every entry
        # that arrived together is taken in), not on the path of the entry that ended the
        # turn. Only a turn changes the public state, so it is the same hash either way.
        self._hash_due = state.turn
        if state.over:
            self._my_hash(state.turn)  # the final state's: the game's record, at once
            self._game_over()
        else:
            self._post_resign_if_due()
            self._post_abandon_if_due()

    def _game_over(self) -> None:
        state = self._require_state()
        self._advance(Trigger.GAME_ENDED)
        self._events.append(ev.GameOver(state.end.value, state.score))
        if self.my_seat is not None:
            seed = b.SeedBody(tuple(self._require_deck().seed_reveal()))
            # Ended by agreement, the game stays at the turn of the end vote, which took the
            # place of that turn's action: our seed says the turn after it, as after a last
            # action (SPEC 5.3), so a peer the end vote has not reached yet holds the seed
            # until it has (SPEC 5.4), where at that turn it took us for a player who left
            # and aborted (tests/peer/test_core_abandon.py: one honest copy in ten did).
            ended_by_vote = self.abandoned_at is not None  # (the game stays at that turn)
            self._post(k.SEED, seed, turn=state.turn + 1 if ended_by_vote else None)
        self._audit_if_complete()

    def _on_move(self, entry: Entry, body: b.MoveBody) -> None:
        seat = self._seat_or_fault(entry)
        state = self._require_state()
        if state.over:
            return
        try:
            state.apply(Move(seat, body.card, body.to))
        except IllegalAction:
            # Moves are cosmetic and race with plays (the card may have left the hand by the
            # time a peer applies the move): one that no longer fits is simply dropped.
            return
        self._events.append(ev.HandMoved(seat, body.card, body.to))

    def _on_resign(self, entry: Entry, resignation: b.ResignBody) -> None:
        seat = self._seat_or_fault(entry)
        reason = resignation.reason
        state = self._require_state()
        self._events.append(ev.Resigned(seat, reason))
        if not state.over:
            self._hash_the_turn_start()  # the state of this turn's start is ending
            state.apply(Terminate(seat))
            self._after_turn()
