"""Typed errors of the deck protocol (all are RemoteProtocolErrors: a peer misbehaved)."""

from __future__ import annotations

from enum import StrEnum

from hanabi_p2p.errors import RemoteProtocolError


class Check(StrEnum):
    """The receiver check that failed; the value is stable (logs, tests, the audit)."""

    MALFORMED = "malformed"  # wrong type, size or field
    UNEXPECTED = "unexpected"  # a message the protocol does not allow here
    EQUIVOCATION = "equivocation"  # two different messages where one is allowed
    INVALID_POINT = "invalid-point"  # not a canonical point of the prime-order subgroup
    DUPLICATE_POINT = "duplicate-point"  # two positions carry the same point
    SHUFFLE_PROOF = "shuffle-proof"  # phase 1 sum proof fails (card duplicated/substituted)
    LOCK_PROOF = "lock-proof"  # a phase 2 DLEQ proof fails
    DUPLICATE_KEY = "duplicate-key"  # phase 2 used the same K for two positions
    WRONG_KEY = "wrong-key"  # a revealed k does not match its published K
    BAD_SHARE = "bad-share"  # an encrypted share does not decrypt
    WRONG_OWNER = "wrong-owner"  # reveal does not fit the owner the game declared
    COMMITMENT = "commitment"  # the revealed seed does not match its commitment
    MISSING = "missing"  # audit: a step that never happened
    MISMATCH = "mismatch"  # audit: a published step differs from its recomputation
    NOT_A_CARD = "not-a-card"  # audit: the deck is not exactly the variant's cards


def peer_label(seat: int, peer_id: bytes) -> str:
    return f"seat {seat} ({peer_id[:8].hex()})"


class DeckCheatError(RemoteProtocolError):
    """A peer broke the deck protocol; `seat`/`peer_id` name it and `check` says how."""

    def __init__(self, seat: int, peer_id: bytes, check: Check, detail: str) -> None:
        super().__init__(peer_label(seat, peer_id), f"{check.value}: {detail}")
        self.seat = seat
        self.peer_id = peer_id
        self.check = check
        self.detail = detail


class DeckCorruptError(RemoteProtocolError):
    """A card decoded to something that is not an unseen card of the deck.

    Every step that can be checked without the seeds passed, so the fault is a phase-1
    shuffle that kept the point sum but replaced cards; only the audit (after every peer
    reveals its seed) can say whose. The game must stop and run the audit.
    """

    def __init__(self, position: int, detail: str) -> None:
        super().__init__("unknown until the audit", f"position {position}: {detail}")
        self.position = position
