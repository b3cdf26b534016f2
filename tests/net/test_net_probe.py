"""`join` and `watch` ask a table for its HELLO before anything else: a table that took the
connection but whose HELLO was lost (a network that drops packets) is asked once more on a
new connection, and one that stays silent is reported as such, not as "not a table"."""

from __future__ import annotations

import asyncio

import pytest
from net_helpers import TestIdentity

from hanabi_p2p.errors import UserError
from hanabi_p2p.net.frames import encode_frame
from hanabi_p2p.net.handshake import Handshake
from hanabi_p2p.peer.probe import probe_table

# the probe dials a real listener on loopback
pytestmark = pytest.mark.socket

TABLE = b"P" * 16
HOST = TestIdentity(b"probe-host")
WAIT_S = 0.3  # the probe's timeout here; a silent connection costs this much


async def _table(greet_from: int) -> tuple[asyncio.Server, int, list[int]]:
    """A loopback 'table' that says nothing on its first `greet_from - 1` connections (as if
    its HELLO were lost), then greets as a table does; and the connections it took."""
    taken: list[int] = []

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        taken.append(len(taken) + 1)
        if len(taken) >= greet_from:
            hello = Handshake(HOST, TABLE, initiator=False, peer_label="prober").start()[0]
            writer.write(encode_frame(hello))
        await reader.read()  # until the prober hangs up
        writer.close()

    server = await asyncio.start_server(on_connection, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], taken


def test_a_table_whose_first_hello_was_lost_is_asked_again() -> None:
    async def main() -> tuple[bytes, bytes, list[int]]:
        server, port, taken = await _table(greet_from=2)
        async with server:
            probe = await probe_table("127.0.0.1", port, timeout=WAIT_S)
        return probe.table_id, probe.host_id, taken

    table_id, host_id, taken = asyncio.run(main())
    assert (table_id, host_id, taken) == (TABLE, HOST.peer_id, [1, 2])


def test_a_table_that_stays_silent_is_reported_as_silent() -> None:
    async def main() -> list[int]:
        server, port, taken = await _table(greet_from=99)
        async with server:
            with pytest.raises(UserError, match=r"took the connection but sent no hanabi-p2p "
                                                r"greeting \(2 tries.*dropping packets"):
                await probe_table("127.0.0.1", port, timeout=WAIT_S)
            with pytest.raises(UserError, match="sent no hanabi-p2p greeting: is it"):
                await probe_table("127.0.0.1", port, timeout=WAIT_S, attempts=1)
        return taken

    assert asyncio.run(main()) == [1, 2, 3]
