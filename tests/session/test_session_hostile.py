"""Hostile peers at the session level: every bad entry is refused (or stops the game) naming
the peer that signed it, and the honest peers' replicas keep a valid game.

Bad entries are built here with real signatures (``make_entry`` with the cheater's own
identity, the seq/prev the victim's replica expects from it) and fed straight to honest
replicas, as the network shell would. "Refused" is what the replica reports: REJECTED,
``permanent`` when it is the author's fault for good (the node then stops the game and blames
``error.author``); a refusal that is not (a bad signature names nobody trustworthy, an entry
of another table may be fine there) must not be permanent.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from session_harness import TABLE_ID, Peer, Table

from hanabi_p2p.deck import Check, DeckCheatError
from hanabi_p2p.errors import HanabiError
from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import BadEntry, Entry, decode_entry, make_entry
from hanabi_p2p.log.replica import AddResult, Replica, Status
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.table import ABORTED, AUDITED, DECK, PLAY, TableSession

# whole games between in-memory peers, often in many delivery orders: too slow for the fast tier
pytestmark = pytest.mark.slow

# ------------------------------------------------------------------ a harness for cheaters

Rewrite = Callable[[str, Any], Any]  # (kind, body) -> the body others get, or None: as is


@dataclass(frozen=True)
class Refusal:
    """One entry an honest peer's replica refused (or dropped) while the table ran."""

    victim: int
    author: bytes | None
    reason: str
    permanent: bool


class HostileTable(Table):
    """The in-memory table, plus what a cheater controls: what its peer sends to the others.

    Hooks are keyed by peer index (``peers[i]``), fixed before seating; seats follow the
    order in which the host saw the joins, so tests name players by seat through ``at``.
    ``rewrite[i]``: peer ``i`` stores and applies its honest entries itself but sends the
    others a different body, signed with the same seq and prev (they never see both).
    ``silenced``: peers whose entries never leave them (kept in ``withheld`` for later).
    """

    def __init__(self, config: GameConfig, seed: int = 0, shuffle: bool = True) -> None:
        super().__init__(config, seed, shuffle)
        self.rewrite: dict[int, Rewrite] = {}
        self.silenced: set[int] = set()
        self.withheld: list[tuple[int, Entry]] = []
        self.refusals: list[Refusal] = []

    def send(self, peer: Peer, entry: Entry) -> None:
        index = self.peers.index(peer)
        rewrite = self.rewrite.get(index)
        changed = rewrite(entry.kind, copy.deepcopy(entry.body)) if rewrite else None
        if changed is not None:
            entry = make_entry(peer.identity, table_id=TABLE_ID, seq=entry.seq,
                               prev=entry.prev, turn=entry.turn, kind=entry.kind, body=changed)
        if index in self.silenced:
            self.withheld.append((index, entry))
            return
        super().send(peer, entry)

    def record(self, peer: Peer, result: AddResult) -> None:
        self.note(self.peers.index(peer), result)

    def note(self, victim: int, result: AddResult) -> None:
        if result.status is Status.REJECTED and result.error is not None:
            self.refusals.append(
                Refusal(victim, result.error.author, result.reason, result.permanent))
        for bad in result.dropped:
            self.refusals.append(Refusal(victim, bad.author, bad.reason, True))

    def at(self, seat: int) -> Peer:
        """The peer in ``seat``."""
        return next(p for p in self.peers if p.session.my_seat == seat)

    def index_of(self, seat: int) -> int:
        return self.peers.index(self.at(seat))

    def release(self, index: int) -> None:
        """A silenced peer speaks again: everything it withheld goes out now."""
        self.silenced.discard(index)
        for index_, entry in [w for w in self.withheld if w[0] == index]:
            self.withheld.remove((index_, entry))
            Table.send(self, self.peers[index], entry)


def started(players: int = 3, seed: int = 1, shuffle: bool = True) -> HostileTable:
    """An honest table, seated and dealt, at turn 0."""
    table = HostileTable(GameConfig(players), seed=seed, shuffle=shuffle)
    table.seat_everyone()
    table.pump()
    for p in table.peers:
        assert p.session.phase == PLAY and p.session.state is not None
        assert p.session.state.turn == 0
    return table


def lobby_in_order(table: HostileTable) -> None:
    """Open the table and let everyone ask for a seat, delivered in order: peer ``i`` gets
    seat ``i`` (seat order is join order at the host). Seating is posted, not delivered."""
    shuffle, table.shuffle = table.shuffle, False
    table.peers[0].session.open_table("test table", "p0", table.config)
    table.pump()
    for i, p in enumerate(table.peers[1:], start=1):
        p.session.request_seat(f"p{i}", b.Address("127.0.0.1", 40000 + i))
    table.pump()
    table.shuffle = shuffle
    table.peers[0].session.seat_players(b.Address("127.0.0.1", 40000))
    table.flush(table.peers[0])


def peer_id(table: HostileTable, seat: int) -> bytes:
    return table.at(seat).identity.peer_id


def forge(table: HostileTable, author: int, victim: int, kind: str, body: Any,
          turn: int | None = None, table_id: bytes = TABLE_ID) -> Entry:
    """A correctly signed entry by seat ``author``: the next one seat ``victim``'s replica
    expects from it."""
    seq, prev = table.at(victim).replica.next_link(peer_id(table, author))
    state = table.at(victim).session.state
    if turn is None:
        turn = state.turn if state is not None else 0
    return make_entry(table.at(author).identity, table_id=table_id, seq=seq, prev=prev,
                      turn=turn, kind=kind, body=body)


def action_body(table: HostileTable, action: TurnAction, state_hash: bytes | None = None
                ) -> Any:
    """An action entry body as an honest client builds it, with any state hash we want."""
    state = table.at(action.seat).session.state
    assert state is not None
    digest = state.public_hash() if state_hash is None else state_hash
    return b.ActionBody(action, digest, ()).to_wire()


def snapshot(session: TableSession) -> tuple[Any, ...]:
    """Everything a refused entry must leave unchanged in an honest session."""
    state = session.state
    return (
        session.phase,
        state.public_hash() if state is not None else None,
        state.turn if state is not None else None,
        session.pending,
        copy.deepcopy(session.reported_hashes),
        dict(session.my_hashes),
        session.abort_reason,
    )


def finish_honestly(table: HostileTable, seed: int = 0) -> None:
    """Play the rest of the game with random legal actions; everyone must agree and audit."""
    rng = random.Random(seed)

    def choose(session: TableSession) -> TurnAction:
        assert session.state is not None
        return rng.choice(session.state.legal_actions())

    table.play(choose)
    table.pump()
    assert len({p.session.state.public_hash() for p in table.peers if p.session.state}) == 1
    for p in table.peers:
        assert p.session.phase == AUDITED, p.session.phase
        assert p.session.audit is not None and p.session.audit.ok


def assert_refused_for_good(result: AddResult, author: bytes, *phrases: str) -> None:
    assert result.status is Status.REJECTED, result
    assert result.permanent, "the author's own fault: the node must blame it"
    assert result.error is not None and result.error.author == author
    for phrase in phrases:
        assert phrase in result.reason, result.reason


def a_clue(session: TableSession, target: int,
           alter: Callable[[frozenset[int]], frozenset[int]]) -> Clue:
    """A legal clue touching a card, of the player to move to ``target`` (as ``session``
    sees it), its touched set passed through ``alter`` (identity: the truth)."""
    state = session.state
    assert state is not None
    for action in state.legal_actions():
        if isinstance(action, Clue) and action.target == target and action.touched:
            assert action.touched is not None
            return Clue(action.seat, target, action.colour, action.rank, alter(action.touched))
    raise AssertionError("no clue touching a card")


# ------------------------------------------------------------------ illegal actions


def _discard_at_eight_tokens(table: HostileTable) -> TurnAction:
    state = table.at(1).session.state
    assert state is not None and state.clue_tokens == 8
    return Discard(0, state.hands[0][0])


def _play_of_a_card_in_another_hand(table: HostileTable) -> TurnAction:
    state = table.at(1).session.state
    assert state is not None
    return Play(0, state.hands[1][0])


def _play_out_of_turn(table: HostileTable) -> TurnAction:
    state = table.at(0).session.state
    assert state is not None and state.current_seat == 0
    return Play(1, state.hands[1][0])


@pytest.mark.parametrize(
    ("make_action", "phrase"),
    [
        (_discard_at_eight_tokens, "all 8 clue tokens are available"),
        (_play_of_a_card_in_another_hand, "is not in seat 0's hand"),
        (_play_out_of_turn, "not their turn"),
    ],
    ids=["discard-at-8-tokens", "card-not-in-hand", "out-of-turn"],
)
def test_an_illegal_action_is_refused_blaming_its_author_and_the_game_goes_on(
        make_action: Callable[[HostileTable], TurnAction], phrase: str) -> None:
    table = started(seed=2)
    action = make_action(table)
    cheater = action.seat
    for victim in range(3):
        if victim == cheater:
            continue
        replica = table.at(victim).replica
        before = snapshot(table.at(victim).session)
        entry = forge(table, cheater, victim, "action", action_body(table, action))
        assert_refused_for_good(replica.add(entry), peer_id(table, cheater), phrase)
        assert entry not in replica.applied
        assert snapshot(table.at(victim).session) == before
        assert table.at(victim).session.take_outbox() == []  # nothing answered to it
    # Nothing of the bad entry stuck: the honest game still runs to an audited end.
    finish_honestly(table)


# ------------------------------------------------------------------ lying clues


def test_a_clue_lying_about_its_cards_is_refused_by_a_player_who_sees_them() -> None:
    table = started(seed=3)
    truth = a_clue(table.at(0).session, 1, lambda touched: touched)
    assert truth.touched is not None
    hand = table.at(2).session.state.hands[1]  # type: ignore[union-attr]
    untouched = next(c for c in hand if c not in truth.touched)
    lie = Clue(0, 1, truth.colour, truth.rank, truth.touched | {untouched})
    witness = table.at(2)
    before = snapshot(witness.session)
    entry = forge(table, 0, 2, "action", action_body(table, lie))
    assert_refused_for_good(witness.replica.add(entry), peer_id(table, 0),
                            "illegal action", "clue touches cards")
    assert entry not in witness.replica.applied
    assert snapshot(witness.session) == before


def test_a_clue_naming_a_card_outside_the_hand_is_refused_by_its_target() -> None:
    table = started(seed=4)
    target = table.at(1)
    stray = table.at(1).session.state.hands[2][0]  # type: ignore[union-attr]
    lie = a_clue(table.at(0).session, 1, lambda touched: touched | {stray})
    before = snapshot(target.session)
    entry = forge(table, 0, 1, "action", action_body(table, lie))
    assert_refused_for_good(target.replica.add(entry), peer_id(table, 0),
                            f"clue touches cards {stray}, not in seat 1's hand")
    assert snapshot(target.session) == before


def test_a_clue_contradicting_earlier_clues_is_refused_by_its_target() -> None:
    """The target cannot see its cards, but it remembers what earlier clues said."""
    table = started(seed=5)
    honest = a_clue(table.at(0).session, 1, lambda touched: touched)
    assert honest.touched is not None
    table.at(0).session.take_action(honest)  # turn 0: a true clue to seat 1
    table.pump()
    table.at(1).session.take_action(  # turn 1: seat 1 does something else
        a_clue(table.at(1).session, 2, lambda touched: touched))
    table.pump()
    state = table.at(1).session.state
    assert state is not None and state.turn == 2
    missed = [c for c in state.hands[1] if c not in honest.touched]
    assert missed, "the first clue must have missed a card"
    # turn 2: seat 2 repeats the clue but claims it touches a card the first one missed
    lie = Clue(2, 1, honest.colour, honest.rank, honest.touched | {missed[0]})
    target = table.at(1)
    before = snapshot(target.session)
    entry = forge(table, 2, 1, "action", action_body(table, lie))
    assert_refused_for_good(target.replica.add(entry), peer_id(table, 2),
                            "contradicts earlier clues")
    assert snapshot(target.session) == before


def test_a_lie_only_the_target_could_be_told_is_caught_by_the_log_verifier() -> None:
    """With two players nobody but the liar sees the target's hand, so the target takes a
    lying clue (it fits everything it knows). The log verifier, given the faces the deck
    audit decoded, refuses the very same entry, blaming the liar."""
    table = HostileTable(GameConfig(2), seed=15)
    table.seat_everyone()
    finish_honestly(table, seed=15)
    liar, target = table.at(0), table.at(1)
    entries = list(liar.replica.applied)
    audit = liar.session.audit
    assert audit is not None and audit.ok
    index, honest = next(
        (i, e) for i, e in enumerate(entries)
        if e.kind == "action" and e.author == liar.identity.peer_id
        and isinstance(b.ActionBody.from_wire(e.body, 0).action, Clue))
    clue = b.ActionBody.from_wire(honest.body, 0).action
    assert isinstance(clue, Clue) and clue.touched is not None

    def replay(identity: Identity, seed: bytes, faces: Any) -> tuple[TableSession, Replica]:
        session = TableSession(identity, TABLE_ID, seed=seed, known_faces=faces,
                               host_id=liar.identity.peer_id)
        replica = Replica(TABLE_ID, session)
        for entry in entries[:index]:
            assert replica.add(entry).status is Status.ACCEPTED
        return session, replica

    # the target as it was just before the clue (rebuilt from the log and its own seed)
    target_view, target_replica = replay(target.identity, target.session._seed, None)
    verifier, verifier_replica = replay(Identity.from_seed(b"\x98" * 32), bytes(32),
                                        audit.faces)
    state = target_view.state
    assert state is not None and state.turn == honest.turn
    assert verifier.state is not None and verifier.state.public_hash() == state.public_hash()
    lies = [Clue(0, 1, clue.colour, clue.rank, clue.touched ^ {card})
            for card in state.hands[1]]
    lie = next(c for c in lies if _fits_what_target_knows(state, c))
    body = b.ActionBody(lie, honest.body["hash"], ()).to_wire()
    entry = make_entry(liar.identity, table_id=TABLE_ID, seq=honest.seq, prev=honest.prev,
                       turn=honest.turn, kind="action", body=body)
    assert target_replica.add(entry).status is Status.ACCEPTED  # it cannot tell
    assert_refused_for_good(verifier_replica.add(entry), liar.identity.peer_id,
                            "illegal action", "clue touches cards")


def _fits_what_target_knows(state: GameState, clue: Clue) -> bool:
    try:
        state.check(clue)
    except HanabiError:
        return False
    return bool(clue.touched)


# ------------------------------------------------------------------ signatures, table ids


def test_a_forged_signature_is_refused_without_blaming_the_claimed_author() -> None:
    table = started(seed=6)
    state = table.at(0).session.state
    assert state is not None
    genuine = forge(table, 0, 1, "action",
                    action_body(table, a_clue(table.at(0).session, 1, lambda t: t)))
    raw = bytearray(genuine.encoded)
    raw[-1] ^= 0x01  # the signature is the last field
    victim = table.at(1)
    before = snapshot(victim.session)
    with pytest.raises(BadEntry, match="signature does not verify"):
        decode_entry(bytes(raw))
    result = victim.replica.add_raw(bytes(raw))
    assert result.status is Status.REJECTED and "signature does not verify" in result.reason
    assert not result.permanent  # anyone can put a victim's name on garbage
    assert snapshot(victim.session) == before
    # the genuine entry is still welcome afterwards
    assert victim.replica.add_raw(genuine.encoded).status is Status.ACCEPTED


class Impostor:
    """Signs with its own key but claims to be someone else (the ``author`` field)."""

    def __init__(self, claimed: bytes, signer: Identity) -> None:
        self._claimed = claimed
        self._signer = signer

    @property
    def peer_id(self) -> bytes:
        return self._claimed

    def sign(self, data: bytes) -> bytes:
        return self._signer.sign(data)


def test_an_entry_claiming_another_author_is_refused() -> None:
    """Seat 2 writes an action in seat 0's name (whose turn it is), signing with its key."""
    table = started(seed=7)
    victim = table.at(1)
    seq, prev = victim.replica.next_link(peer_id(table, 0))
    clue = a_clue(table.at(0).session, 1, lambda touched: touched)
    entry = make_entry(Impostor(peer_id(table, 0), table.at(2).identity),
                       table_id=TABLE_ID, seq=seq, prev=prev, turn=0, kind="action",
                       body=action_body(table, clue))
    before = snapshot(victim.session)
    result = victim.replica.add_raw(entry.encoded)
    assert result.status is Status.REJECTED and "signature does not verify" in result.reason
    assert not result.permanent
    assert entry not in victim.replica.applied
    assert snapshot(victim.session) == before


def test_an_entry_of_another_table_is_refused_and_the_game_goes_on() -> None:
    table = started(seed=8)
    other_table = bytes(range(100, 116))
    clue = a_clue(table.at(0).session, 1, lambda touched: touched)
    for victim in (1, 2):
        replica = table.at(victim).replica
        before = snapshot(table.at(victim).session)
        entry = forge(table, 0, victim, "action", action_body(table, clue),
                      table_id=other_table)
        for result in (replica.add(entry), replica.add_raw(entry.encoded)):
            assert result.status is Status.REJECTED, result
            assert "belongs to table" in result.reason
            assert result.error is not None and result.error.author == peer_id(table, 0)
            assert not result.permanent  # it may be a fine entry at that other table
        assert entry not in replica.applied
        assert snapshot(table.at(victim).session) == before
    finish_honestly(table, seed=8)


# ------------------------------------------------------------------ state hash divergence


def test_an_action_with_a_wrong_state_hash_is_refused() -> None:
    table = started(seed=9)
    clue = a_clue(table.at(0).session, 1, lambda touched: touched)
    for victim in (1, 2):
        session = table.at(victim).session
        state = session.state
        assert state is not None
        public = state.public_hash()
        entry = forge(table, 0, victim, "action", action_body(table, clue, bytes(32)))
        assert_refused_for_good(table.at(victim).replica.add(entry), peer_id(table, 0),
                                "game state diverged at turn 1")  # turns as people count them
        assert state.public_hash() == public and state.turn == 0  # the clue did not apply
        assert entry not in table.at(victim).replica.applied


def _clue_answered_by_all_but(table: HostileTable, silent: int) -> None:
    """Seat 0 gives a clue; everyone applies it; ``silent`` keeps its ack to itself."""
    table.silenced.add(table.index_of(silent))
    table.at(0).session.take_action(a_clue(table.at(0).session, 1, lambda t: t))
    table.pump()
    for p in table.peers:
        assert p.session.state is not None and p.session.state.turn == 1


def test_an_ack_with_a_wrong_state_hash_is_refused_blaming_the_acker() -> None:
    table = started(seed=10)
    _clue_answered_by_all_but(table, silent=2)
    for victim in (0, 1):
        session = table.at(victim).session
        public = session.state.public_hash()  # type: ignore[union-attr]
        entry = forge(table, 2, victim, "ack", b.AckBody(bytes(32), ()).to_wire(), turn=0)
        assert_refused_for_good(table.at(victim).replica.add(entry), peer_id(table, 2),
                                "game state diverged at turn 1")  # turns as people count them
        assert entry not in table.at(victim).replica.applied
        assert session.state.public_hash() == public  # type: ignore[union-attr]


def test_a_refused_ack_leaves_no_trace_in_the_session() -> None:
    table = started(seed=10)
    _clue_answered_by_all_but(table, silent=2)
    victim = table.at(0)
    before = snapshot(victim.session)
    bad = forge(table, 2, 0, "ack", b.AckBody(bytes(32), ()).to_wire(), turn=0)
    assert victim.replica.add(bad).status is Status.REJECTED
    assert snapshot(victim.session) == before
    genuine = next(e for i, e in table.withheld
                   if i == table.index_of(2) and e.kind == "ack")
    assert victim.replica.add(genuine).status is Status.ACCEPTED


# ------------------------------------------------------------------ equivocation


def test_equivocation_is_caught_whichever_version_each_peer_saw_first() -> None:
    table = started(seed=11)
    actor = table.at(0)
    actor.session.take_action(a_clue(actor.session, 1, lambda t: t))
    table.flush(actor)
    first = table.at(1).inbox.pop()
    table.at(2).inbox.remove(first)
    other = a_clue(actor.session, 2, lambda t: t)  # a different, equally legal clue
    second = make_entry(actor.identity, table_id=TABLE_ID, seq=first.seq, prev=first.prev,
                        turn=0, kind="action", body=action_body(table, other))
    assert second.seq == first.seq and second != first
    for victim, order in ((1, (first, second)), (2, (second, first))):
        replica = table.at(victim).replica
        assert replica.add(order[0]).status is Status.ACCEPTED
        result = replica.add(order[1])
        assert result.status is Status.REJECTED and "equivocation" in result.reason
        assert result.equivocation is not None and result.equivocation.is_valid()
        assert result.equivocation.author == peer_id(table, 0)
        assert replica.equivocators == {peer_id(table, 0)}
        assert order[1] not in replica.applied
        # and nothing more from the equivocator is taken
        later = forge(table, 0, victim, "chat", {"text": "hello"})
        assert replica.add(later).status is Status.REJECTED


# ------------------------------------------------------------------ withheld reveal


def test_a_withheld_reveal_names_the_silent_seat_and_the_turn_resumes_when_it_speaks(
        ) -> None:
    """Seat 2 never answers seat 0's play. Seat 0 cannot learn its own card without seat
    2's public key share; seat 1 (who saw the card already) moves on but cannot see seat
    0's replacement card without seat 2's share, so it cannot give a clue. Both name seat 2."""
    table = started(seed=12)
    table.silenced.add(table.index_of(2))
    state = table.at(0).session.state
    assert state is not None
    table.at(0).session.take_action(Play(0, state.hands[0][0]))
    table.pump()
    actor, next_player = table.at(0).session, table.at(1).session
    assert actor.pending is not None and actor.state is not None
    assert actor.state.turn == 0  # the play cannot resolve without seat 2's share
    assert next_player.state is not None and next_player.state.turn == 1
    assert not next_player.can_act()
    for session in (actor, next_player):
        assert session.waiting_for() == [(2, "key share")]
    assert table.refusals == []  # slow is not a fault: nobody is blamed
    table.release(table.index_of(2))
    table.pump()
    for p in table.peers:
        assert p.session.pending is None
        assert p.session.state is not None and p.session.state.turn == 1
    assert table.refusals == []


# ------------------------------------------------------------------ deck cheats


def _flip_in_deck_message(kind_wanted: str, field_index: int) -> Rewrite:
    """Rewrite a deck entry: flip the low bit of the first byte of one field of the first
    ``kind_wanted`` message (a proof: it stays well-formed but no longer verifies)."""

    def rewrite(kind: str, body: Any) -> Any:
        if kind != "deck":
            return None
        for message in body["deck"]:
            if message[0] == kind_wanted:
                blob = bytearray(message[field_index])
                blob[0] ^= 0x01
                message[field_index] = bytes(blob)
                return body
        return None

    return rewrite


@pytest.mark.parametrize(
    ("message_kind", "field_index", "check"),
    [("deck.shuffle", 3, Check.SHUFFLE_PROOF), ("deck.lock", 3, Check.LOCK_PROOF)],
    ids=["shuffle-proof", "lock-proof"],
)
def test_a_tampered_deck_message_is_blamed_on_its_seat(
        message_kind: str, field_index: int, check: Check) -> None:
    """A peer sends the others a shuffle/lock whose proof fails; in message order (FIFO)
    every honest peer's deck stops with DeckCheatError naming the cheater's seat, the game
    never starts, and the replica refuses the cheater's entry (and only its) for good."""
    table = HostileTable(GameConfig(3), seed=13, shuffle=False)
    table.rewrite[1] = _flip_in_deck_message(message_kind, field_index)
    table.seat_everyone()
    table.pump()
    cheater = table.peers[1]
    seat = cheater.session.my_seat
    for index, victim in enumerate(table.peers):
        if victim is cheater:
            continue
        session = victim.session
        assert session.deck is not None and session.deck.peer is not None
        error = session.deck.peer.error
        assert isinstance(error, DeckCheatError), error
        assert error.seat == seat and error.peer_id == cheater.identity.peer_id
        assert error.check is check
        assert session.state is None and session.phase == DECK  # no game on a bad deck
        first = next(r for r in table.refusals if r.victim == index)
        assert first.author == cheater.identity.peer_id and first.permanent, first
        assert check.value in first.reason


def test_a_tampered_shuffle_held_for_later_is_still_blamed_on_its_seat() -> None:
    table = HostileTable(GameConfig(3), seed=13, shuffle=False)
    table.rewrite[1] = _flip_in_deck_message("deck.shuffle", 3)
    lobby_in_order(table)
    # Run the deck until seat 1's (tampered) shuffle is out, but keep seat 0's shuffle
    # away from seat 2 until seat 1's has arrived there (as a slow link would).
    victim = table.peers[2]
    held_back: list[Entry] = []

    def is_shuffle_of(entry: Entry, seat: int) -> bool:
        return (entry.kind == "deck" and entry.author == table.peers[seat].identity.peer_id
                and any(m[0] == "deck.shuffle" for m in entry.body["deck"]))

    for _ in range(10_000):
        for entry in [e for e in victim.inbox if is_shuffle_of(e, 0)]:
            victim.inbox.remove(entry)
            held_back.append(entry)
        if any(is_shuffle_of(e, 1) for e in victim.inbox) or not table.deliver_one():
            break
    assert held_back, "seat 0's shuffle must be held back from seat 2"
    table.pump()  # seat 2 takes seat 1's shuffle first: its deck holds it
    for entry in held_back:
        table.note(2, victim.replica.add(entry))
    assert [p.session.my_seat for p in table.peers] == [0, 1, 2]
    error = victim.session.deck.peer.error  # type: ignore[union-attr]
    assert isinstance(error, DeckCheatError) and error.seat == 1  # the deck knows who...
    honest, cheater = peer_id(table, 0), peer_id(table, 1)
    blamed = {r.author for r in table.refusals if r.victim == 2 and r.permanent}
    assert honest not in blamed, "...and the honest seat 0 must not be blamed"
    # the cheater is blamed, by the replica refusing its entry or by the session stopping
    assert cheater in blamed | {victim.session.blamed}


# ------------------------------------------------------------------ delivery order


def _random_game(delivery_seed: int) -> HostileTable:
    """The same game (same seating, deck seeds and choices) under any delivery order."""
    table = HostileTable(GameConfig(3), seed=21)
    table.rng = random.Random(delivery_seed)  # the deck seeds drawn from it stay the same
    lobby_in_order(table)  # the same seats, so each seat shuffles with the same seed
    table.pump()
    rng = random.Random(21)

    def choose(session: TableSession) -> TurnAction:
        assert session.state is not None
        return rng.choice(session.state.legal_actions())

    table.play(choose)
    table.pump()
    return table


_REFERENCE: dict[str, bytes] = {}


@settings(max_examples=4, deadline=None)
@given(delivery_seed=st.integers(0, 2**32 - 1))
def test_any_delivery_order_gives_every_peer_the_same_audited_game(delivery_seed: int
                                                                    ) -> None:
    if "hash" not in _REFERENCE:
        reference = _random_game(0)
        _REFERENCE["hash"] = reference.peers[0].session.state.public_hash()  # type: ignore[union-attr]
    table = _random_game(delivery_seed)
    assert table.refusals == []
    for p in table.peers:
        assert p.session.state is not None
        assert p.session.state.public_hash() == _REFERENCE["hash"]
        assert p.session.phase == AUDITED
        assert p.session.audit is not None and p.session.audit.ok


def _flip_key_in_action(kind: str, body: Any) -> Any:
    """Rewrite an action entry: the actor's public key share of the card no longer fits."""
    if kind != "action":
        return None
    for message in body["deck"]:
        if message[0] == "deck.public-key":
            key = bytearray(message[2])
            key[0] ^= 0x01
            message[2] = bytes(key)
            return body
    return None


def test_a_play_carrying_a_wrong_key_share_is_refused_blaming_the_player() -> None:
    table = started(seed=14)
    actor = table.at(0)
    table.rewrite[table.index_of(0)] = _flip_key_in_action
    state = actor.session.state
    assert state is not None
    actor.session.take_action(Play(0, state.hands[0][0]))
    table.flush(actor)
    for seat in (1, 2):
        victim = table.at(seat)
        (entry,) = victim.inbox
        victim.inbox.clear()
        result = victim.replica.add(entry)
        assert_refused_for_good(result, peer_id(table, 0), "wrong-key")
        assert entry not in victim.replica.applied
        error = victim.session.deck.peer.error  # type: ignore[union-attr]
        assert isinstance(error, DeckCheatError) and error.seat == 0
        # refused: its messages never reach the transcript the audit runs over
        sent = victim.session.deck.decode(0, entry.body["deck"])  # type: ignore[union-attr]
        transcript = victim.session.deck.transcript  # type: ignore[union-attr]
        assert not any((0, m) in transcript for m in sent)


def test_a_refused_play_leaves_no_pending_turn_and_no_answer() -> None:
    table = started(seed=14)
    actor = table.at(0)
    table.rewrite[table.index_of(0)] = _flip_key_in_action
    state = actor.session.state
    assert state is not None
    actor.session.take_action(Play(0, state.hands[0][0]))
    table.flush(actor)
    victim = table.at(1)
    (entry,) = victim.inbox
    victim.inbox.clear()
    before = snapshot(victim.session)
    assert victim.replica.add(entry).status is Status.REJECTED
    assert victim.session.take_outbox() == []  # no ack for a refused action
    assert snapshot(victim.session) == before


def test_a_deck_message_taken_after_the_audit_is_audited_too() -> None:
    """Issue 14, item 3, at a live peer: the game was stopped and audited; then a cheater's
    entry arrives whose share (to a third seat, so nobody here can decrypt it) is forged.
    A stopped session keeps such messages in its transcript: the audit runs again and
    names the cheater."""
    table = started(seed=3)
    actor = table.at(0)
    state = actor.session.state
    assert state is not None
    actor.session.take_action(Play(0, state.hands[0][0]))
    table.pump()
    table.at(2).session.abort(None, "gone")
    table.flush(table.at(2))
    table.pump()
    watcher = table.at(0).session
    assert watcher.phase == ABORTED and watcher.audit is not None and watcher.audit.ok
    honest = next(e for e in table.at(0).replica.applied
                  if e.kind == "ack" and e.turn == 0 and e.author == peer_id(table, 1))
    body = copy.deepcopy(honest.body)
    shares = next(m for m in body["deck"] if m[0] == "deck.shared-keys")
    recipient, ciphertext = shares[3][0]  # seat 1's share for seat 2 (seat 0 owns the card)
    assert recipient == 2
    shares[3][0] = [recipient, ciphertext[:-1] + bytes([ciphertext[-1] ^ 0x01])]
    late = forge(table, author=1, victim=0, kind="ack", body=body, turn=0)
    table.at(0).session.take_events()
    assert table.at(0).replica.add(late).status is Status.ACCEPTED
    assert not watcher.audit.ok and watcher.audit.blamed_seat == 1
    assert any(isinstance(e, ev.Audited) and not e.ok for e in watcher.take_events())
