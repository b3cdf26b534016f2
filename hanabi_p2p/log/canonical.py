"""Canonical msgpack: one byte string per value, so signatures and hashes are well defined.

The value model is deliberately small (see protocol/SPEC.md 3.2, "Canonical encoding"):
nil, booleans, integers (msgpack's 64-bit range, smallest encoding), bin (bytes), str (UTF-8),
arrays, and maps whose keys are distinct str sorted by code point. No floats (their
encodings and NaNs are not unique), no ext types, no timestamps, nesting depth at most
``MAX_DEPTH``.

``pack`` rejects anything else with ``CanonicalError``; ``unpack`` decodes untrusted bytes and
then requires that re-encoding gives back exactly the input, which rules out non-minimal
integers, str8 vs str16 choices, unsorted or duplicate keys and trailing bytes in one check.
"""

from __future__ import annotations

from typing import Any

import msgpack

MAX_DEPTH = 32


class CanonicalError(ValueError):
    """A value or byte string outside the canonical msgpack model; the message says where."""


def _check(value: Any, depth: int, where: str) -> Any:
    """Validate ``value`` and return it in normal form (tuples become lists, maps sorted)."""
    if depth > MAX_DEPTH:
        raise CanonicalError(f"{where}: nested deeper than {MAX_DEPTH}")
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            raise CanonicalError(f"{where}: integer out of the 64-bit range")
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, list | tuple):
        return [_check(item, depth + 1, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CanonicalError(f"{where}: map key {key!r} is not a str")
        return {key: _check(value[key], depth + 1, f"{where}.{key}") for key in sorted(value)}
    raise CanonicalError(f"{where}: type {type(value).__name__} is not allowed")


class _Outside(Exception):
    """`_normal` met something outside the model: `_check` says what and where."""


def _normal(value: Any, depth: int) -> Any:
    """`_check` without building a location for every item: entries are made and read many
    times a turn, and only a failure needs to say where it is."""
    cls = value.__class__
    if cls is str or cls is bool or value is None:
        return value
    if cls is int:
        if not -(2**63) <= value < 2**64:
            raise _Outside
        return value
    if cls is bytes:
        return value
    if depth >= MAX_DEPTH and (cls is list or cls is tuple or cls is dict) and value:
        raise _Outside  # its items would be nested deeper than allowed
    if cls is list or cls is tuple:
        return [_normal(item, depth + 1) for item in value]
    if cls is dict:
        if not all(key.__class__ is str for key in value):
            raise _Outside
        return {key: _normal(value[key], depth + 1) for key in sorted(value)}
    raise _Outside  # subclasses, bytearray, memoryview, floats...: the careful path decides


def _normal_form(value: Any, where: str) -> Any:
    try:
        return _normal(value, 0)
    except _Outside:
        return _check(value, 0, where)  # the same verdict, with the location, or a normal form


def normalize(value: Any, where: str = "value") -> Any:
    """``value`` in the form ``unpack`` would return it (lists, sorted maps), or CanonicalError."""
    return _normal_form(value, where)


def pack(value: Any, where: str = "value") -> bytes:
    """Canonical encoding of ``value``; raises CanonicalError for values outside the model."""
    normal = _normal_form(value, where)
    try:
        out: bytes = msgpack.packb(normal, use_bin_type=True)
    except (OverflowError, ValueError, TypeError) as exc:  # defensive: _check covers these
        raise CanonicalError(f"{where}: {exc}") from exc
    return out


def _reject_ext(code: int, data: bytes) -> Any:
    raise CanonicalError(f"ext type {code} is not allowed")


def unpack(raw: bytes, where: str = "value") -> Any:
    """Decode untrusted ``raw``; raise CanonicalError unless it is the canonical encoding of a
    value in the model. Never raises anything else."""
    try:
        value = msgpack.unpackb(
            raw,
            raw=False,  # str must be valid UTF-8
            strict_map_key=True,
            use_list=True,
            ext_hook=_reject_ext,
            timestamp=0,
        )
    except CanonicalError:
        raise
    except Exception as exc:  # msgpack raises many types on junk; all mean the same here
        raise CanonicalError(f"{where}: not valid msgpack ({type(exc).__name__})") from exc
    if pack(value, where) != raw:
        raise CanonicalError(f"{where}: not in canonical form")
    return value
