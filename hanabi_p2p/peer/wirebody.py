"""Decoding the msgpack body of a MSG frame (`watchwire`, `lobbywire`): bounded before a byte
is parsed, and any failure raised as ``BadBody`` alone, whatever the bytes."""

from __future__ import annotations

from typing import Any

import msgpack

from hanabi_p2p.session.bodies import BadBody


def unpack_body(data: bytes, what: str, *, max_bytes: int, max_array_len: int,
                max_str_len: int, max_bin_len: int) -> Any:
    """The one msgpack value in `data` (no maps, no ext types), within the limits given;
    BadBody naming `what` otherwise."""
    if len(data) > max_bytes:
        raise BadBody(f"{what}: body of {len(data)} bytes is over the limit")
    try:
        return msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True,
                               max_array_len=max_array_len, max_map_len=0,
                               max_str_len=max_str_len, max_bin_len=max_bin_len,
                               max_ext_len=0)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError, UnicodeDecodeError) as exc:
        raise BadBody(f"{what}: not one msgpack value ({type(exc).__name__})") from None
