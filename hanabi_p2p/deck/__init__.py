"""The mental-poker deck: peers build a shuffled deck together, with no trusted dealer.

No peer can decode a card in its own hand before it is played or discarded, every other peer
can, nobody can bias or alter the deck, and cheating is caught and blamed. Normative
description: protocol/SPEC.md section 2. Public API:

* `DeckPeer(config, table_id, seats, my_seat, seed)`: the sans-IO state machine
  (`start`, `receive`, `deal_shares`, `public_share`, `seed_reveal`, queries), in
  ristretto255 unless given another `group` (`deck.group`: edwards25519 for 0.2.0 games).
* `decode_message(obj, peer)` / `message.to_wire()`: the wire form of every message.
* `audit(config, table_id, seats, transcript, group=...) -> AuditResult`: the end-of-game
  check, in the table's group.
* `check_steps(...) -> AuditResult`: the live checks of every shuffle and lock, from the
  transcript alone (no seed needed).
* `deck.withheld.audit_withheld_seed(...) -> AuditResult | None`: with one seed missing,
  the verdict the others' seeds prove (SPEC 2.10, a seed withheld), or None.
* `DeckCheatError` (blames a seat), `DeckCorruptError` (only the audit can blame), `Check`.
"""

from hanabi_p2p.deck.audit import AuditResult, audit, check_steps
from hanabi_p2p.deck.errors import Check, DeckCheatError, DeckCorruptError
from hanabi_p2p.deck.messages import (
    Commit,
    DeckMessage,
    Lock,
    OwnerKey,
    PublicKey,
    SeedReveal,
    SharedKeys,
    Shuffle,
    decode_message,
)
from hanabi_p2p.deck.peer import DeckPeer
from hanabi_p2p.deck.states import Phase

__all__ = [
    "AuditResult",
    "Check",
    "Commit",
    "DeckCheatError",
    "DeckCorruptError",
    "DeckMessage",
    "DeckPeer",
    "Lock",
    "OwnerKey",
    "Phase",
    "PublicKey",
    "SeedReveal",
    "SharedKeys",
    "Shuffle",
    "audit",
    "check_steps",
    "decode_message",
]
