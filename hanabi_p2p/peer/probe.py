"""Learn which table a host at HOST:PORT serves, without joining it.

A listener sends its HELLO (protocol version, table id, identity key) as soon as a
connection opens, so reading that one frame tells a joiner by ``--address`` everything it
needs to dial properly. Nothing secret is exposed: the same facts are in the mDNS advert.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from hanabi_p2p.errors import UserError
from hanabi_p2p.net.frames import FrameDecoder, Hello

PROBE_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class ProbeResult:
    table_id: bytes
    host_id: bytes
    version: int


async def probe_table(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> ProbeResult:
    label = f"{host}:{port}"
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError) as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise UserError(f"cannot reach a table at {label}: {reason}") from None
    decoder = FrameDecoder(peer=label)
    try:
        async with asyncio.timeout(timeout):
            while True:
                frame = decoder.next_frame()
                if frame is not None:
                    break
                data = await reader.read(4096)
                if not data:
                    raise UserError(f"{label} closed the connection: is it a hanabi-p2p table?")
                decoder.feed(data)
    except TimeoutError:
        raise UserError(f"{label} did not answer like a hanabi-p2p table") from None
    except UserError:
        raise
    except Exception as exc:  # a FrameError or anything else: not our protocol
        raise UserError(f"{label} is not a hanabi-p2p table ({exc})") from None
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    if not isinstance(frame, Hello):
        raise UserError(f"{label} is not a hanabi-p2p table (it sent {frame.TAG})")
    return ProbeResult(frame.table_id, frame.peer_id, frame.version)
