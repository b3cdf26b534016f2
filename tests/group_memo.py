"""Remembered deck computations, for the in-memory tests of one pytest process.

An in-memory table runs every seat in one process: each DLEQ proof and each locked deck is
checked by every other seat, again by the end-of-game audit, and again when a test verifies
the log, and the same seeds deal the same decks in many tests. Three computations repeat,
each a pure function of its operands: the point operations of the deck's groups (`mul`,
`base_mul`, and `add`, `sub`: each decodes its points first), a scalar's inverse
(`scalar_invert`, as slow as a multiplication) and a scalar a seat derives from its seed
(`PeerSecrets.scalar`, HKDF: every seat that audits another derives it again). The second
time the same operands come, the answer is taken from here instead of computed: the one
libsodium (or HKDF) gave the first time, byte for byte. Only answers are kept: an operand
the group refuses raises `GroupError` every time, as it did the first time, and operands
that are not `bytes` (a test handing a bytearray or a wrong type on purpose) always go to
the group itself. Between programs nothing changes: each is its own process.

About four multiplications in five of the in-memory peer tests repeat one made before in the
same process (measured for issue 33); remembering them takes most of the suite's time in the
group off. The cache is bounded (least recently used out first) so that a worker's memory
stays small.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from hanabi_p2p.deck import derive, group

# 2^18 answers per operation, about 120 MB each if ever full; a worker fills far less (the
# whole of tests/peer in one process makes 69 k distinct multiplications)
ANSWERS_KEPT = 1 << 18
REMEMBERED = ("mul", "base_mul", "add", "sub")


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


def _remembering_hashable(method: Callable[..., bytes]) -> Callable[..., bytes]:
    """For a pure method whose operands are all hashable when they are what it expects (the
    frozen `PeerSecrets`, then strings, integers and bytes); anything else goes to it."""
    remembered = functools.lru_cache(maxsize=ANSWERS_KEPT)(method)

    @functools.wraps(method)
    def call(*operands: Any) -> bytes:
        try:
            return remembered(*operands)
        except TypeError:  # unhashable: not remembered (a real TypeError is raised again)
            return method(*operands)

    return call


def install() -> Callable[[], None]:
    """Remember both groups' point operations, the scalar inverse and the seats' derived
    scalars; returns what undoes it."""
    undo: list[Callable[[], None]] = []
    owners: list[tuple[Any, str]] = [(type(group.RISTRETTO255), name) for name in REMEMBERED]
    owners += [(type(group.EDWARDS25519), name) for name in REMEMBERED]
    owners.append((group, "scalar_invert"))
    for owner, name in owners:
        original = vars(owner)[name]
        setattr(owner, name, _remembering(original))
        undo.append(functools.partial(setattr, owner, name, original))
    # a seat's scalars, derived from its seed (HKDF), again by every seat that audits it
    original_scalar = derive.PeerSecrets.scalar
    derive.PeerSecrets.scalar = _remembering_hashable(original_scalar)  # type: ignore[method-assign]
    undo.append(functools.partial(setattr, derive.PeerSecrets, "scalar", original_scalar))

    def uninstall() -> None:
        for step in reversed(undo):
            step()

    return uninstall
