"""Learn which table a host at HOST:PORT serves, without joining it.

A listener sends its HELLO (protocol version, table id, identity key, whether it wants a table
password) as soon as a connection opens, so reading that one frame tells a joiner by
``--address`` everything it needs to dial properly. Nothing secret is exposed: the same facts
are in the mDNS advert.

It also unmasks a copied advert: anyone on the LAN can advertise a real table's name and
fingerprint, but the key in the HELLO of whoever listens at the advertised address is the
impostor's own (`advert_problem` compares the two). An impostor who sends the real host's key
in its HELLO passes this check but cannot pass the handshake, which proves the key: a joiner
dials with that key as the one expected, so it never sits down at the impostor's table.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from hanabi_p2p.errors import UserError
from hanabi_p2p.identity import fingerprint
from hanabi_p2p.net.discovery import FoundTable
from hanabi_p2p.net.frames import FrameDecoder, Hello

PROBE_TIMEOUT_S = 5.0
# Checking an advert (`tables`, a `join` choosing among look-alikes) waits less: a host on the
# LAN answers in milliseconds, and one that does not is marked, not waited for.
CHECK_TIMEOUT_S = 1.5
# How often `join` and `watch` ask a table that took the connection but sent no HELLO in time:
# on a network that drops packets (a weak Wi-Fi), the HELLO can be lost again and again, and
# a second try on a new connection is cheaper than sending the player away.
PROBE_ATTEMPTS = 2


@dataclass(frozen=True, slots=True)
class ProbeResult:
    table_id: bytes
    host_id: bytes
    version: int
    uses_secret: bool = False

    @property
    def fingerprint(self) -> str:
        """The host key's fingerprint, in the form adverts and lobbies show."""
        return fingerprint(self.host_id)


def advert_problem(table: FoundTable, probe: ProbeResult) -> str | None:
    """Why the host that answered at `table`'s address is not the one its advert names (a
    copied or stale advert), or None when the advert and the host agree."""
    where = f"{table.address}:{table.port}"
    if probe.fingerprint != table.ad.host_fingerprint:
        return (f"the advert names host {table.ad.host_fingerprint}, but the host at {where} "
                f"has key {probe.fingerprint}: it is not the table it claims to be "
                f"(a copied advert?)")
    if probe.table_id != table.ad.table_id:
        return (f"{where} serves another table than the one advertised "
                f"(id {probe.table_id.hex()[:8]}, not {table.ad.table_id.hex()[:8]})")
    return None


async def probe_table(host: str, port: int, timeout: float = PROBE_TIMEOUT_S,
                      attempts: int = PROBE_ATTEMPTS) -> ProbeResult:
    """Ask the table at host:port for its HELLO (its id and its host's key). A table that
    took the connection but said nothing within `timeout` is asked again, on a new
    connection, up to `attempts` times in all."""
    for _attempt in range(attempts):
        with contextlib.suppress(_Silent):
            return await _probe_once(host, port, timeout)
    tries = "" if attempts == 1 else f" ({attempts} tries of {timeout:g} s)"
    raise UserError(f"{host}:{port} took the connection but sent no hanabi-p2p greeting"
                    f"{tries}: is it a hanabi-p2p table, and is the network dropping packets?")


class _Silent(Exception):
    """The table took the connection and said nothing in time."""


async def _probe_once(host: str, port: int, timeout: float) -> ProbeResult:
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
        raise _Silent from None
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
    return ProbeResult(frame.table_id, frame.peer_id, frame.version, frame.uses_secret)


@dataclass(frozen=True, slots=True)
class CheckedTable:
    """A table seen on the LAN and what its host said when asked (`probe` None: no answer)."""

    table: FoundTable
    probe: ProbeResult | None = None
    problem: str | None = None  # why the advert is not to be trusted; None if it matches

    @property
    def genuine(self) -> bool:
        """The host that answers at the advertised address has the advertised key and table."""
        return self.probe is not None and self.problem is None


async def check_advert(table: FoundTable, timeout: float = CHECK_TIMEOUT_S,
                       attempts: int = 1) -> CheckedTable:
    """Ask the host at `table`'s address for its key and compare it with the advert (once by
    default: a listing marks a silent host rather than waiting for it twice)."""
    try:
        probe = await probe_table(table.address, table.port, timeout, attempts)
    except UserError as exc:
        return CheckedTable(table, None, f"did not answer: {exc}")
    return CheckedTable(table, probe, advert_problem(table, probe))
