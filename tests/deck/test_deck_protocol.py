"""Full protocol among N in-memory peers: agreement, dealing, reveals and the audit."""

from __future__ import annotations

import random

import pytest
from deck_helpers import VARIANTS, hand_positions, ready_table

from hanabi_p2p.deck import DeckPeer, Phase, audit
from hanabi_p2p.deck.messages import DeckMessage
from hanabi_p2p.deck.table import DeckTable
from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.rules.cards import GameConfig, Variant

# the mental-poker protocol run in full, at every table size: too slow for the fast tier
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_full_protocol_every_size(players: int, variant: Variant) -> None:
    table = ready_table(players, variant, label=f"full-{players}-{variant.value}")
    config = table.config
    assert all(peer.phase is Phase.READY for peer in table.peers)
    assert len({peer.locked_deck for peer in table.peers}) == 1  # everyone agrees
    assert len(table.peers[0].locked_deck) == config.deck_size

    # Deal every card of the deck, round robin, as if all were drawn.
    owners = {position: position % players for position in range(config.deck_size)}
    for position, owner in owners.items():
        table.deal(position, owner)
    for seat, peer in enumerate(table.peers):
        for position, owner in owners.items():
            face = peer.known_face(position)
            assert (face is None) == (owner == seat), (seat, position)

    table.reveal_seeds()
    result = audit(config, table.table_id, table.peer_ids, table.sent, group=table.group)
    assert result.ok, result.reason
    assert sorted(result.faces.values()) == sorted(config.deck_faces())
    for seat, peer in enumerate(table.peers):
        for position, owner in owners.items():
            if owner != seat:
                assert peer.known_face(position) == result.faces[position]


def test_initial_deal_decodes_for_non_owners_only() -> None:
    table = ready_table(4, label="initial-deal")
    table.initial_deal()
    for seat, peer in enumerate(table.peers):
        for owner in range(4):
            for position in hand_positions(table.config, owner):
                assert (peer.known_face(position) is None) == (owner == seat)
        decoded = peer.pop_decoded()
        assert len(decoded) == 3 * table.config.hand_size
        assert peer.pop_decoded() == []


def test_public_reveal_lets_the_owner_see_its_card() -> None:
    table = ready_table(3, label="public")
    table.deal(0, owner=0)
    assert table.peers[0].known_face(0) is None
    table.reveal_all(0)
    faces = {peer.known_face(0) for peer in table.peers}
    assert len(faces) == 1 and None not in faces


def test_cards_in_the_deck_stay_hidden_from_everyone() -> None:
    table = ready_table(3, label="hidden")
    table.deal(0, owner=1)
    assert all(peer.known_face(5) is None for peer in table.peers)


def test_decks_differ_between_tables() -> None:
    a = ready_table(2, label="a")
    b = ready_table(2, label="b")
    a.reveal_seeds()
    b.reveal_seeds()
    faces_a = audit(a.config, a.table_id, a.peer_ids, a.sent, group=a.group).faces
    faces_b = audit(b.config, b.table_id, b.peer_ids, b.sent, group=b.group).faces
    assert [faces_a[i] for i in range(50)] != [faces_b[i] for i in range(50)]


@pytest.mark.parametrize("order_seed", [1, 2, 3])
def test_any_delivery_order_gives_the_same_deck(order_seed: int) -> None:
    """Messages delivered one at a time in random order, duplicated now and then."""
    config = GameConfig(3)
    reference = ready_table(3, label="order")
    rng = random.Random(order_seed)
    table = DeckTable(config, "order")
    pending: list[tuple[int, int, DeckMessage]] = []  # (recipient, sender, message)

    def post(sender: int, messages: list[DeckMessage]) -> None:
        for message in messages:
            pending.extend((seat, sender, message) for seat in range(3) if seat != sender)

    for seat, peer in enumerate(table.peers):
        post(seat, peer.start())
    while pending:
        recipient, sender, message = pending.pop(rng.randrange(len(pending)))
        if rng.random() < 0.1:
            pending.append((recipient, sender, message))  # delivered again later
        post(recipient, table.peers[recipient].receive(sender, message))
    assert [p.locked_deck for p in table.peers] == [p.locked_deck for p in reference.peers]

    # Reveal messages that arrive before the local game asks for the reveal are held.
    for seat in (0, 2):
        for message in table.peers[seat].deal_shares(0, 2):
            assert table.peers[1].receive(seat, message) == []
    assert table.peers[1].known_face(0) is None  # peer 1 has not been told to deal yet
    table.peers[1].deal_shares(0, 2)
    assert table.peers[1].known_face(0) is not None


def test_own_messages_echoed_back_are_ignored() -> None:
    table = DeckTable(GameConfig(2), "echo")
    commit = table.peers[0].start()[0]
    assert table.peers[0].receive(0, commit) == []
    other = table.peers[1].start()[0]
    with pytest.raises(LocalProtocolError):
        table.peers[0].receive(0, other)


def test_local_misuse_is_a_local_error() -> None:
    table = DeckTable(GameConfig(2), "misuse")
    peer = table.peers[0]
    with pytest.raises(LocalProtocolError, match="not ready"):
        peer.deal_shares(0, 1)
    peer.start()
    with pytest.raises(LocalProtocolError, match="already"):
        peer.start()
    table.post(0, [])
    ready = ready_table(2, label="misuse-ready")
    with pytest.raises(LocalProtocolError, match="no deck position"):
        ready.peers[0].public_share(50)
    ready.peers[0].deal_shares(3, 1)
    with pytest.raises(LocalProtocolError, match="dealt to seat 1"):
        ready.peers[0].deal_shares(3, 0)
    with pytest.raises(LocalProtocolError):
        DeckPeer(GameConfig(2), b"short", ready.peer_ids, 0, bytes(32))
    with pytest.raises(LocalProtocolError):
        DeckPeer(GameConfig(2), bytes(16), [ready.peer_ids[0]] * 2, 0, bytes(32))


def test_peer_transcript_matches_what_was_published() -> None:
    table = ready_table(2, label="transcript")
    table.initial_deal()
    published = sorted(table.sent, key=repr)
    for peer in table.peers:
        assert sorted(peer.transcript(), key=repr) == published
