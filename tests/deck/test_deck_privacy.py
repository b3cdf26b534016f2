"""Privacy: with everything a peer holds, the cards in its own hand do not decode."""

from __future__ import annotations

import itertools

import pytest
from deck_helpers import hand_positions, ready_table, secrets_of

from hanabi_p2p.deck import OwnerKey, PublicKey, SharedKeys, audit, steps
from hanabi_p2p.deck.channel import ChannelError, open_share, pair_key
from hanabi_p2p.deck.derive import card_points
from hanabi_p2p.deck.table import DeckTable

# the mental-poker protocol run in full, at every table size: too slow for the fast tier
pytestmark = pytest.mark.slow


def owner_view_keys(table: DeckTable, owner: int, position: int) -> dict[int, bytes]:
    """Every k for `position` that `owner` can obtain from its seed and all it received:
    its own, any published one, and any share it manages to decrypt with its channel keys."""
    mine = secrets_of(table, owner, table.label)
    keys = {owner: mine.lock_scalar(position)}
    pubs = {seat: secrets_of(table, seat, table.label).x25519_public
            for seat in range(len(table.peers))}
    peer_ids = dict(enumerate(table.peer_ids))
    for sender, message in table.sent:
        if isinstance(message, OwnerKey | PublicKey) and message.position == position:
            keys[sender] = message.key
        if isinstance(message, SharedKeys) and message.position == position:
            for recipient, ciphertext in message.shares:
                # Try every channel the owner has, under every addressing it could forge.
                for other, (s, r) in itertools.product(
                        [seat for seat in pubs if seat != owner],
                        [(sender, recipient), (recipient, sender)]):
                    aead = pair_key(table.table_id, mine.x25519_private, my_seat=owner,
                                    other_seat=other, peer_ids=peer_ids, x25519_pubs=pubs)
                    try:
                        keys[sender] = open_share(
                            aead, table.table_id, peer_ids, position=position,
                            owner_seat=message.owner, sender_seat=s, recipient_seat=r,
                            ciphertext=ciphertext)
                    except ChannelError:
                        continue
    return keys


@pytest.mark.parametrize("players", [2, 3, 5])
def test_own_hand_does_not_decode_but_one_more_key_does(players: int) -> None:
    table = ready_table(players, label=f"privacy-{players}")
    table.initial_deal()
    table_copy_sent = list(table.sent)
    cards = set(card_points(table.config, table.group))
    locked = table.peers[0].locked_deck
    for owner in range(players):
        assert all(table.peers[owner].known_face(p) is None
                   for p in hand_positions(table.config, owner))
        for position in hand_positions(table.config, owner):
            known = owner_view_keys(table, owner, position)
            assert set(known) == {owner}  # nothing beyond its own k
            assert steps.unlock(table.group, known.values(), locked[position]) not in cards
            missing = [seat for seat in range(players) if seat != owner]
            true_keys = {seat: secrets_of(table, seat, table.label).lock_scalar(position)
                         for seat in missing}
            # Any strict subset of the missing keys still leaves the card hidden ...
            for left_out in missing:
                partial = [*known.values(),
                           *(k for seat, k in true_keys.items() if seat != left_out)]
                assert steps.unlock(table.group, partial, locked[position]) not in cards
            # ... and with the last one it decodes, to what everybody else sees.
            full = steps.unlock(table.group, [*known.values(), *true_keys.values()],
                                locked[position])
            assert full in cards
            other = table.peers[(owner + 1) % players]
            faces = dict(zip(card_points(table.config, table.group), table.config.deck_faces(),
                             strict=True))
            assert faces[full] == other.known_face(position)
    assert table.sent == table_copy_sent


def test_owner_learns_its_card_only_from_the_public_reveal() -> None:
    table = ready_table(3, label="privacy-public")
    table.initial_deal()
    for position in hand_positions(table.config, 1):
        assert table.peers[1].known_face(position) is None
    table.reveal_all(5)
    table.reveal_seeds()
    faces = audit(table.config, table.table_id, table.peer_ids, table.sent, group=table.group).faces
    assert table.peers[1].known_face(5) == faces[5]
    assert table.peers[1].known_face(6) is None
