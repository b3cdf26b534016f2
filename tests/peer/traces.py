"""Effect traces of in-memory games: what every peer core said, in order, as one digest.

A refactor of the peer must not change behaviour. `SimNet` feeds each core's effects (and
each refused command) through `TraceRecorder`, which folds them into a SHA-256 per network.
`tests/peer/conftest.py` compares the digests of every test with the golden ones in
`tests/peer/golden_traces.json`; `HANABI_RECORD_TRACES=1 pytest tests/peer` writes them anew
(only when behaviour is meant to change: say why in the commit).

The canonical form keeps everything observable by the IO shell and the front ends: every
effect's fields, frames as their fields, entries as their bytes, times to the microsecond.
Two things are left out because they are not behaviour: the deck-check jobs (closures: only
their number counts) and the `before` snapshot of `TurnResolved` (derived from the log).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections.abc import Mapping
from typing import Any

from hanabi_p2p.log.entry import Entry
from hanabi_p2p.rules.engine import GameState, OutcomeKind

# Fields of effects added after traces were recorded, written only when they are set.
ADDED_LATER = frozenset({"refusal"})


def canonical(value: Any) -> str:
    """A deterministic text for an effect, event, frame or any value they hold."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, Entry):
        return f"Entry({value.encoded.hex()})"
    if isinstance(value, GameState):
        return "GameState"
    if isinstance(value, OutcomeKind):
        # a plain string when the traces were recorded; its members equal those strings
        return repr(value.value)
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, bool | int | str | type(None)):
        return repr(value)
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{canonical(k)}:{canonical(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple | frozenset | set):
        items = [canonical(v) for v in value]
        if isinstance(value, frozenset | set):
            items.sort()
        return "[" + ",".join(items) + "]"
    if callable(value) and not dataclasses.is_dataclass(value):
        return "job"
    if dataclasses.is_dataclass(value):
        # (a field added later with its default left out: older traces did not have it)
        fields = ",".join(f"{f.name}={canonical(getattr(value, f.name))}"
                          for f in dataclasses.fields(value)
                          if not (f.name in ADDED_LATER and getattr(value, f.name) is None))
        return f"{type(value).__name__}({fields})"
    raise TypeError(f"no canonical form for {type(value).__name__}")


class TraceRecorder:
    """One network's trace: (time, peer, what happened), folded into a digest."""

    # every recorder made while a test runs, in order (the conftest reads and clears it)
    made: list[TraceRecorder] = []  # noqa: RUF012 (a registry, shared on purpose)

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.lines = 0
        TraceRecorder.made.append(self)

    def record(self, now: float, peer: int, what: str) -> None:
        self._hash.update(f"{now:.6f} {peer} {what}\n".encode())
        self.lines += 1

    def effect(self, now: float, peer: int, effect: object) -> None:
        self.record(now, peer, canonical(effect))

    def refused(self, now: float, peer: int, exc: Exception) -> None:
        self.record(now, peer, f"refused {exc}")

    def digest(self) -> str:
        return f"{self._hash.hexdigest()[:32]}:{self.lines}"

