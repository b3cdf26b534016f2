"""The deck stage of the table session: the shuffle, the lock, the deal, the deck checks.

Every seated peer runs its ``DeckPeer`` (commit, shuffle, lock) through ``deck`` entries,
then publishes its shares of every dealt card in one ``deck`` entry (the deal). A spectator
takes the keys the players give it here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from hanabi_p2p.deck import DeckCheatError, DeckCorruptError, DeckMessage
from hanabi_p2p.deck.messages import MAX_DECK_SIZE, OwnerKey, SharedKeys
from hanabi_p2p.limits import MAX_PLAYERS
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.base import GameFault, MessageKey
from hanabi_p2p.session.lobby import LobbyStage
from hanabi_p2p.session.phase import Phase, Trigger

# The deal's messages: what tells a deal entry from a deck-step entry.
DEAL_MESSAGE_KINDS = frozenset({OwnerKey.KIND, SharedKeys.KIND})
STEP_MESSAGE_KINDS = ("deck.commit", "deck.shuffle", "deck.lock")


class DeckStage(LobbyStage):
    """The deck: its steps, the deal, the checks of its proofs, the faces learnt."""

    def add_watch_keys(self, peer_id: bytes, keys: Iterable[tuple[int, bytes]]) -> list[str]:
        """A spectator takes a seated peer's keys (sent over its link at a table that lets
        spectators see the hands) and decodes what they open; returns the reasons of the
        keys refused (a link problem: the frame carries no signature)."""
        if self.deck is None:
            # keys can overtake the entries that seat the table (they come by another
            # path): kept until the seating, one deck's worth from each of a few peers
            if peer_id in self._early_watch_keys or len(self._early_watch_keys) < MAX_PLAYERS:
                early = self._early_watch_keys.setdefault(peer_id, {})
                early.update(list(keys)[: MAX_DECK_SIZE - len(early)])
            return []
        seat = self.seat_of(peer_id)
        if seat is None:
            return ["keys from a peer that is not seated"]
        problems = self.deck.add_watch_keys(seat, keys)
        self._learn_faces()
        return problems

    def spectator_keys(self) -> dict[int, bytes]:
        """What we give a spectator at a table that consents (SPEC §2.12): our key of every
        card we dealt to another seat."""
        if self.deck is None or self.my_seat is None:
            return {}
        return self.deck.spectator_keys()

    def _receive_deck(self, seat: int, msgs: Sequence[DeckMessage]) -> list[Any]:
        """Our DeckPeer's answers to a peer's deck messages. A failed check of the entry's
        author refuses the entry; one of ANOTHER seat's message that the DeckPeer held
        until now (it arrived early) must not be blamed on this entry: stop the game,
        blaming the cheater, and take the entry. A card that does not decode is nobody's
        fault yet (the entry that happened to complete its keys least of all): stop the
        game blaming no one, and take the entry; the audit names the seat (SPEC §2.9)."""
        try:
            return self._require_deck().receive_decoded(seat, msgs)
        except DeckCheatError as exc:
            if exc.seat == seat:
                raise self._deck_fault(exc) from None
            self._stop_on_deck_cheat(exc)
            return []
        except DeckCorruptError as exc:
            self._stop_on_corrupt_deck(exc)
            return []

    def _deck_fault(self, exc: DeckCheatError) -> GameFault:
        """A failed deck check as the game's fault of the player who signed it, named as
        every other fault is ("Bob (K7QF-2M9D)"), not by the deck's seat number and key."""
        return GameFault(self.describe(exc.peer_id), f"{exc.check.value}: {exc.detail}")

    def _stop_on_deck_cheat(self, exc: DeckCheatError) -> None:
        """A failed check of a deck message we took earlier: stop the game blaming its
        signer, in the words every stop on a fault uses."""
        fault = self._deck_fault(exc)
        self.abort(exc.peer_id, f"{fault.peer}: {fault.reason}")

    def _stop_on_corrupt_deck(self, error: DeckCorruptError) -> None:
        """A card decoded to no card of the deck: a shuffle was forged so that its proof
        still holds. Only the seeds can say whose, so the game stops blaming nobody; every
        seat then reveals its seed and the audit names the seat whose step does not
        reproduce (SPEC §2.9, §5.7)."""
        self.abort(None, f"the deck is corrupt ({error.reason}): the deck audit names "
                         "the seat that forged it")

    def _after_deck(self, out: list[Any]) -> None:
        deck = self._require_deck()
        if out:
            self._post_deck(out)
        if self.phase == Phase.DECK and deck.ready:
            self._start_play()
        self._learn_faces()

    def _settle_deck_checks(self) -> bool:
        """Before a card beyond the first deal is revealed, every deck check must have
        passed (SPEC §2.8). They nearly always have, on the shell's threads; any still
        pending run here now. False when one fails: the game is then stopped, blaming the
        seat whose signed message failed."""
        try:
            out = self._require_deck().settle_checks()
        except DeckCheatError as exc:
            self._stop_on_deck_cheat(exc)
            return False
        except DeckCorruptError as exc:
            self._stop_on_corrupt_deck(exc)
            return False
        if out:
            self._post_deck(out)
        return True

    def deck_checks_done(self, error: DeckCheatError | None) -> None:
        """The deck checks the shell ran off its event loop (deckio.DeckAdapter.take_checks)
        came back: go on, or stop the game blaming the seat whose signed message failed."""
        try:
            out = self._require_deck().finish_checks(error)
        except DeckCheatError as exc:
            self._stop_on_deck_cheat(exc)
            return
        except DeckCorruptError as exc:
            self._stop_on_corrupt_deck(exc)
            return
        self._after_deck(out)

    def _on_deck(self, entry: Entry, body: b.DeckBody) -> None:
        seat = self._seat_or_fault(entry)
        msgs = self._decode_deck(entry, body.msgs)
        kinds = {m.KIND for m in msgs}
        if kinds & DEAL_MESSAGE_KINDS:
            self._check_deal(entry, seat, msgs)
        elif not msgs or not kinds <= set(STEP_MESSAGE_KINDS) or len(kinds) != len(msgs):
            raise GameFault(self._who(entry), "a deck entry holds its author's deck steps "
                            "(commit, shuffle, lock; each at most once) or its deal shares")
        answers = self._receive_deck(seat, msgs)
        if kinds & DEAL_MESSAGE_KINDS:
            self.dealt_by.add(seat)
        self._after_deck(answers)

    def _check_deal(self, entry: Entry, seat: int, msgs: Sequence[DeckMessage]) -> None:
        state = self._require_state()
        if seat in self.dealt_by:
            raise GameFault(self._who(entry), "published its deal shares twice")
        hand = state.config.hand_size
        want: list[MessageKey] = []
        for position in range(hand * len(self.seats)):
            owner = position // hand  # SPEC 5.3: seat 0 gets positions 0..H-1, and so on
            if owner == seat:
                want.append((OwnerKey.KIND, position))
            else:
                want.append((SharedKeys.KIND, position, owner))
        self._expect(entry, msgs, want, "the deal")

    def _start_play(self) -> None:
        assert self.table is not None and self.deck is not None
        config = self.table.config
        self.state = GameState(config, [None] * config.deck_size)
        self._advance(Trigger.DEALT)
        self.my_hashes[0] = self.state.public_hash()
        self._events.append(ev.DeckReady())
        if self.my_seat is not None:
            shares: list[Any] = []
            for owner, hand in enumerate(self.state.hands):
                for card in hand:
                    shares.extend(self.deck.deal_shares(card, owner))
            self._post_deck(shares)

    def _learn_faces(self) -> None:
        if self.state is None or self.deck is None:
            return
        for card, face in self.deck.new_faces():
            self.state.reveal(card, face)
        self._try_resolve()


def is_deal(body: b.DeckBody) -> bool:
    """Whether a deck entry holds deal shares, by its messages' kinds (not decoded yet)."""
    return any(isinstance(m, list) and m and m[0] in DEAL_MESSAGE_KINDS for m in body.msgs)
