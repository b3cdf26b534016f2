"""Two cards read as one copy: the convention player's guards against the misplays that come
when more clued cards read as a face than there are copies of it left.

Both guards use only what the acting seat knows (the public reading of every card, the
faces it sees in the other hands, the copies it has seen), never its own faces.

* ``surplus_copies``: several of my cards read as exactly the same face, and fewer copies
  of it are left unseen than that (a save that had to touch a trash card with the card it
  saved, both then reading as the last copy; a colour clue touching trash copies that I,
  seeing the other copies of the faces they might be, narrow to the one face). Which one is
  that face I cannot tell: each reads as any face its clues allow that has a copy I have not
  seen, so none is played as known (a misplay would cost a fuse, a wait at most a point).
* ``deferred_plays``: I know a card of mine is exactly face F, and another player holds a
  clued copy of F that it reads as F or another playable card (a clued 1, read "any 1" by
  good touch). If I play mine first, good touch makes it read the other way (F gone, the
  others still playable) and it misplays; if it plays first, mine becomes known trash. So I
  leave mine for now.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from hanabi_p2p.rules.faces import RANKS_PER_SUIT

if TYPE_CHECKING:
    from hanabi_p2p.bots.hgroup import HGroupPlayer


def surplus_copies(mine: list[tuple[int, int]], possible: Sequence[int],
                   copies: Sequence[int], seen: Sequence[int], unseen: int) -> None:
    """Widen ``mine`` (my cards, each with the faces it may be) in place: when more cards
    read as exactly one face than the copies of it this seat has not seen (``copies`` less
    ``seen``, per face), which of them is that face is not known, so each reads as what its
    clues allow (``possible``, by card) among the faces with a copy unseen (``unseen``)."""
    by_face: dict[int, list[int]] = {}
    for i, (_, m) in enumerate(mine):
        if m and m & (m - 1) == 0:
            by_face.setdefault(m.bit_length() - 1, []).append(i)
    for f, where in by_face.items():
        if len(where) <= copies[f] - seen[f]:
            continue
        for i in where:
            c, m = mine[i]
            mine[i] = (c, possible[c] & unseen or m)


def deferred_plays(mine: list[tuple[int, int]], others: Sequence[tuple[int, int]],
                   playable: int, is_reread: Callable[[int], bool]) -> frozenset[int]:
    """My cards (of ``mine``) not to play yet: each reads as exactly a face F that one of
    ``others`` (clued cards in the other hands: (face, what everyone knows of it)) also is,
    read there as F or other faces, every one playable now, and still read as playable once
    F is played (``is_reread(mask)``: good touch will drop F from such a mask)."""
    out: set[int] = set()
    for c, m in mine:
        if not m or m & (m - 1) or not m & playable:
            continue
        f = m.bit_length() - 1
        after = playable & ~m
        if f % RANKS_PER_SUIT + 1 < RANKS_PER_SUIT:
            after |= m << 1  # the next card of that firework
        for face, known in others:
            if (face == f and known & m and known & ~m and known & ~playable == 0
                    and is_reread(known) and known & ~m & ~after == 0):
                out.add(c)
                break
    return frozenset(out)


def deferred_for(p: HGroupPlayer, mine: list[tuple[int, int]], ones_only: bool
                 ) -> frozenset[int]:
    """``deferred_plays`` for the player ``p`` (``mine``: its ``_mine()``), against the clued
    cards of the other hands, when good touch after a play narrows only clued 1s
    (``ones_only``) or every clued card; cheap when no card of mine is known exactly and
    playable."""
    playable = p.board.playable
    for _, m in mine:
        if m & (m - 1) == 0 and m & playable:
            break
    else:
        return frozenset()  # (a loop, not any(): this is asked every turn)
    others = [(p.fi[c], p.public(c)) for s, hand in enumerate(p.replica.hands)
              if s != p.seat for c in hand if p.clued[c]]
    ones = p.table.rank_mask[1]
    return deferred_plays(mine, others, playable,
                          lambda m: not ones_only or m & ~ones == 0)


__all__ = ["deferred_for", "deferred_plays", "surplus_copies"]
