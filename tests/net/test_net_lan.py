"""Two players' meshes in separate network namespaces on one bridge: join, cut, heal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from net_helpers import JsonLinesProcess, TestIdentity
from netlab import Host, NetLab

HELPER = str(Path(__file__).with_name("mesh_peer.py"))
WAIT_S = 20.0  # bound on any one expected event; reached only when the test is failing


class Peer(JsonLinesProcess):
    """A mesh_peer.py process; `expect()` waits for a matching event line."""

    def __init__(self, host: Host, seed: str) -> None:
        self.peer_id = TestIdentity(seed.encode()).peer_id.hex()
        super().__init__(host, HELPER, "--seed", seed, "--listen", host.address, wait_s=WAIT_S)
        self.port = int(self.expect(lambda e: e["event"] == "listening")["port"])


def is_event(name: str, peer: str) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["event"] == name and e.get("peer") == peer


@pytest.mark.netns
def test_players_on_two_hosts_join_survive_a_cut_cable_and_talk_again(netlab: NetLab) -> None:
    h1, h2 = netlab.lan(2)
    host, joiner = Peer(h1, "lan-host"), Peer(h2, "lan-joiner")

    joiner.command(f"dial {h1.address} {host.port}")
    joiner.expect(is_event("dialled", host.peer_id))
    host.expect(is_event("up", joiner.peer_id))
    host.command("send 01")
    assert joiner.expect(is_event("recv", host.peer_id))["data"] == "01"

    h2.set_link(False)  # cut the joiner's cable: no FIN, no RST, just silence
    host.expect(is_event("down", joiner.peer_id))
    joiner.expect(is_event("down", host.peer_id))
    h2.set_link(True)
    joiner.expect(is_event("up", host.peer_id))  # the joiner redials by itself
    host.expect(is_event("up", joiner.peer_id))
    joiner.command("send 02")
    assert host.expect(is_event("recv", joiner.peer_id))["data"] == "02"
