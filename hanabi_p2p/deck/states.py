"""The deck protocol's states and the one table of transitions between them."""

from __future__ import annotations

from enum import StrEnum

from hanabi_p2p.deck.messages import (
    Commit,
    DeckMessage,
    Lock,
    OwnerKey,
    PublicKey,
    SeedReveal,
    SharedKeys,
    Shuffle,
)


class Phase(StrEnum):
    COMMIT = "commit"  # collecting every peer's commitment
    SHUFFLE = "shuffle"  # phase 1, one peer after another in seat order
    LOCK = "lock"  # phase 2, one peer after another in seat order
    READY = "ready"  # the deck is locked; cards can be revealed
    ERROR = "error"  # a check failed; terminal (only seed reveals still accepted)


PHASE_ORDER: tuple[Phase, ...] = (Phase.COMMIT, Phase.SHUFFLE, Phase.LOCK, Phase.READY)

# (phase, step completed) -> next phase. Every phase also moves to ERROR on a failed check;
# nothing leaves ERROR.
TRANSITIONS: dict[tuple[Phase, str], Phase] = {
    (Phase.COMMIT, "all-commits"): Phase.SHUFFLE,
    (Phase.SHUFFLE, "all-shuffles"): Phase.LOCK,
    (Phase.LOCK, "all-locks"): Phase.READY,
}

# The step whose completion ends each phase (see TRANSITIONS).
COMPLETES: dict[Phase, str] = {phase: step for (phase, step) in TRANSITIONS}

# The phase from which each message kind is processed; before it, the message is held.
OPENS_IN: dict[type[DeckMessage], Phase] = {
    Commit: Phase.COMMIT,
    SeedReveal: Phase.COMMIT,
    Shuffle: Phase.SHUFFLE,
    Lock: Phase.LOCK,
    OwnerKey: Phase.READY,
    SharedKeys: Phase.READY,
    PublicKey: Phase.READY,
}


def reached(current: Phase, phase: Phase) -> bool:
    """Has `current` got as far as `phase`? ERROR has reached nothing."""
    if Phase.ERROR in (current, phase):
        return False
    return PHASE_ORDER.index(current) >= PHASE_ORDER.index(phase)
