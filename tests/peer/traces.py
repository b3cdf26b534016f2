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
import functools
import hashlib
from collections.abc import Mapping
from typing import Any

from hanabi_p2p.log.entry import Entry
from hanabi_p2p.rules.engine import GameState, OutcomeKind

# Fields of effects added after traces were recorded, written only when they are set.
ADDED_LATER = frozenset({"refusal"})


def canonical(value: Any) -> str:
    """A deterministic text for an effect, event, frame or any value they hold."""
    cls = type(value)
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _kind_of(value)
        if not isinstance(value, type):  # (a class: `is_dataclass` looks at the value)
            _KINDS[cls] = kind
    if kind is _Kind.BYTES:
        return value.hex()  # type: ignore[no-any-return]
    if kind is _Kind.DATACLASS:
        # (a field added later with its default left out: older traces did not have it)
        fields = ",".join(f"{name}={canonical(getattr(value, name))}"
                          for name in _field_names(value if isinstance(value, type) else cls)
                          if not (name in ADDED_LATER and getattr(value, name) is None))
        return f"{cls.__name__}({fields})"
    if kind is _Kind.PLAIN:
        return repr(value)
    if kind is _Kind.SEQUENCE or kind is _Kind.SET:
        items = [canonical(v) for v in value]
        if kind is _Kind.SET:
            items.sort()
        return "[" + ",".join(items) + "]"
    if kind is _Kind.MAPPING:
        return "{" + ",".join(f"{canonical(k)}:{canonical(v)}" for k, v in value.items()) + "}"
    if kind is _Kind.ENTRY:
        return f"Entry({value.encoded.hex()})"
    if kind is _Kind.STATE:
        return "GameState"
    if kind is _Kind.OUTCOME:
        # a plain string when the traces were recorded; its members equal those strings
        return repr(value.value)
    if kind is _Kind.ENUM:
        return f"{cls.__name__}.{value.name}"
    if kind is _Kind.FLOAT:
        return f"{value:.6f}"
    return "job"


class _Kind(enum.Enum):
    """How `canonical` writes a value: decided once per type (a trace holds millions of
    values of a few dozen types), in the order of the checks in `_kind_of`."""

    BYTES = enum.auto()
    ENTRY = enum.auto()
    STATE = enum.auto()
    OUTCOME = enum.auto()
    ENUM = enum.auto()
    PLAIN = enum.auto()
    FLOAT = enum.auto()
    MAPPING = enum.auto()
    SEQUENCE = enum.auto()
    SET = enum.auto()
    JOB = enum.auto()
    DATACLASS = enum.auto()


_KINDS: dict[type, _Kind] = {}


def _kind_of(value: Any) -> _Kind:
    if isinstance(value, bytes):
        return _Kind.BYTES
    if isinstance(value, Entry):
        return _Kind.ENTRY
    if isinstance(value, GameState):
        return _Kind.STATE
    if isinstance(value, OutcomeKind):
        return _Kind.OUTCOME
    if isinstance(value, enum.Enum):
        return _Kind.ENUM
    if isinstance(value, bool | int | str | type(None)):
        return _Kind.PLAIN
    if isinstance(value, float):
        return _Kind.FLOAT
    if isinstance(value, Mapping):
        return _Kind.MAPPING
    if isinstance(value, frozenset | set):
        return _Kind.SET
    if isinstance(value, list | tuple):
        return _Kind.SEQUENCE
    if callable(value) and not dataclasses.is_dataclass(value):
        return _Kind.JOB
    if dataclasses.is_dataclass(value):
        return _Kind.DATACLASS
    raise TypeError(f"no canonical form for {type(value).__name__}")


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


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

