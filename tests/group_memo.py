"""Remembered group multiplications, for the in-memory tests of one pytest process.

An in-memory table runs every seat in one process: each DLEQ proof and each locked deck is
checked by every other seat, again by the end-of-game audit, and again when a test verifies
the log, and the same seeds deal the same decks in many tests. A scalar multiplication
(`mul`, `base_mul`) of the deck's groups, like a scalar's inverse (`scalar_invert`, as slow
as a multiplication), is a pure function of its byte strings, so the second time the same
operands come, the answer is taken from here instead of computed:
the answer is the one libsodium gave the first time, byte for byte. Only answers are kept:
an operand the group refuses raises `GroupError` every time, as it did the first time, and
operands that are not `bytes` (a test handing a bytearray or a wrong type on purpose) always
go to the group itself. Between programs nothing changes: each is its own process.

About four multiplications in five of the in-memory peer tests repeat one made before in the
same process (measured for issue 33); this takes most of the suite's time in the group off.
The cache is bounded (least recently used out first) so that a worker's memory stays small.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from hanabi_p2p.deck import group

# 2^18 answers: about 60 MB at most per pytest process
ANSWERS_KEPT = 1 << 18
REMEMBERED = ("mul", "base_mul")


def _remembering(method: Callable[..., bytes]) -> Callable[..., bytes]:
    remembered = functools.lru_cache(maxsize=ANSWERS_KEPT)(method)

    @functools.wraps(method)
    def call(*operands: Any) -> bytes:
        # (the group instance itself is the first operand of a method)
        for operand in operands:
            if type(operand) is not bytes and not isinstance(operand, group.DeckGroup):
                return method(*operands)
        return remembered(*operands)

    call.cache_info = remembered.cache_info  # type: ignore[attr-defined]
    return call


def install() -> Callable[[], None]:
    """Remember both groups' multiplications and the scalar inverse; returns what undoes
    it."""
    undo: list[Callable[[], None]] = []
    owners: list[tuple[Any, str]] = [(type(group.RISTRETTO255), name) for name in REMEMBERED]
    owners += [(type(group.EDWARDS25519), name) for name in REMEMBERED]
    owners.append((group, "scalar_invert"))
    for owner, name in owners:
        original = vars(owner)[name]
        setattr(owner, name, _remembering(original))
        undo.append(functools.partial(setattr, owner, name, original))

    def uninstall() -> None:
        for step in reversed(undo):
            step()

    return uninstall
