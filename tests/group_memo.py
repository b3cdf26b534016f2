"""Remembered group multiplications, for the in-memory tests of one pytest process.

An in-memory table runs every seat in one process: each DLEQ proof and each locked deck is
checked by every other seat, again by the end-of-game audit, and again when a test verifies
the log, and the same seeds deal the same decks in many tests. A scalar multiplication
(`mul`, `base_mul`) of the deck's groups is a pure function of its two byte strings, so the
second time the same operands come, their product is taken from here instead of computed:
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
    def call(self: Any, *operands: Any) -> bytes:
        if all(type(operand) is bytes for operand in operands):
            return remembered(self, *operands)
        return method(self, *operands)

    call.cache_info = remembered.cache_info  # type: ignore[attr-defined]
    return call


def install() -> Callable[[], None]:
    """Remember both groups' multiplications; returns what undoes it."""
    undo: list[Callable[[], None]] = []
    for cls in (type(group.RISTRETTO255), type(group.EDWARDS25519)):
        for name in REMEMBERED:
            original = vars(cls)[name]
            setattr(cls, name, _remembering(original))
            undo.append(functools.partial(setattr, cls, name, original))

    def uninstall() -> None:
        for step in reversed(undo):
            step()

    return uninstall
