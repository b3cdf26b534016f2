"""Turn the engine's face masks and seen-card counts into a ``CardKnowledge``.

Kept apart from the engine's hot path: UIs and bots ask for knowledge, the rules never do.
"""

from __future__ import annotations

from hanabi_p2p.rules.engine import CardKnowledge
from hanabi_p2p.rules.faces import FaceTable


def build_knowledge(
    table: FaceTable, mask: int, seen: list[int], only: int | None, clued: bool
) -> CardKnowledge:
    """Knowledge of one card.

    ``mask``: faces possible from clues alone. ``seen[i]``: copies of face ``i`` the viewer
    sees elsewhere. ``only``: the face index if the viewer sees the card itself.
    """
    possible = table.faces_in(mask)
    candidates = range(len(table.cards)) if only is None else (only,)
    counts = {
        table.cards[i]: left
        for i in candidates
        if (only is not None or mask >> i & 1) and (left := table.copies[i] - seen[i]) > 0
    }
    return CardKnowledge(
        colours=frozenset(card.suit for card in possible),
        ranks=frozenset(card.rank for card in possible),
        possible=possible,
        unseen_counts=counts,
        clued=clued,
    )
