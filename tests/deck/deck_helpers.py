"""Shared helpers for the deck tests: tables, secrets of test seats, hand layouts."""

from __future__ import annotations

from hanabi_p2p.deck.derive import PeerSecrets
from hanabi_p2p.deck.table import DeckTable, seat_identity
from hanabi_p2p.rules.cards import GameConfig, Variant

# Deck sizes 50, 55 and 60.
VARIANTS = (Variant.STANDARD, Variant.MULTICOLOR_SHORT, Variant.MULTICOLOR)


def secrets_of(table: DeckTable, seat: int, label: str | None = None) -> PeerSecrets:
    """The secrets of a seat of a DeckTable (what that peer holds)."""
    peer_id, seed = seat_identity(label or table.label, seat)
    return PeerSecrets(table.table_id, peer_id, seed, table.group)


def hand_positions(config: GameConfig, seat: int) -> range:
    hand = config.hand_size
    return range(seat * hand, (seat + 1) * hand)


def ready_table(players: int = 3, variant: Variant = Variant.STANDARD,
                label: str = "table") -> DeckTable:
    table = DeckTable(GameConfig(players, variant), label)
    table.setup()
    return table
