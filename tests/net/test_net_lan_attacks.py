"""Strangers on a namespace LAN attack a table's listener from their own machine (issue 10,
socket-level attacks, real processes): the honest joiner on a third machine still sits down,
and the host counts what the stranger did, naming its address."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from net_helpers import JsonLinesProcess, TestIdentity
from netlab import Host, NetLab

HERE = Path(__file__).parent
WAIT_S = 30.0  # bound on any one expected event; reached only when the test is failing
PASSWORD = "blue fireworks"


class Process(JsonLinesProcess):
    """A helper process in a namespace; `expect()` waits for a matching JSON line."""

    def __init__(self, host: Host, *argv: str) -> None:
        super().__init__(host, *argv, wait_s=WAIT_S)


def mesh_peer(host: Host, seed: str, *extra: str) -> tuple[Process, int, str]:
    peer = Process(host, str(HERE / "mesh_peer.py"), "--seed", seed, "--listen", host.address,
                   "--secret", PASSWORD, *extra)  # fmt: skip
    port = int(peer.expect(lambda e: e["event"] == "listening")["port"])
    return peer, port, TestIdentity(seed.encode()).peer_id.hex()


def event(name: str, **fields: object) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["event"] == name and all(e.get(k) == v for k, v in fields.items())


@pytest.mark.netns
def test_idle_connection_flood_from_another_machine_leaves_the_table_joinable(
    netlab: NetLab,
) -> None:
    h_host, h_attacker, h_joiner = netlab.lan(3)
    # A long handshake deadline: the idle connections stay until the host drops them itself.
    host, port, host_id = mesh_peer(h_host, "flood-host", "--handshake-timeout", "60")
    attacker = Process(h_attacker, str(HERE / "attacker.py"), "flood", h_host.address,
                       str(port), "--count", "200")  # fmt: skip
    assert attacker.expect(event("holding"))["open"] == 200
    joiner, _, joiner_id = mesh_peer(h_joiner, "flood-joiner")
    joiner.command(f"dial {h_host.address} {port}")
    joiner.expect(event("dialled", peer=host_id))
    host.expect(event("up", peer=joiner_id))
    host.command("stats")
    stats = host.expect(event("stats"))
    assert stats["pending_handshakes"] <= 4  # MAX_PENDING_PER_SOURCE: the attacker's share
    assert stats["evicted_handshakes"] >= 196
    attacker.close_stdin()


@pytest.mark.netns
def test_password_guessing_from_another_machine_is_held_back_and_counted(
    netlab: NetLab,
) -> None:
    h_host, h_attacker, h_joiner = netlab.lan(3)
    host, port, host_id = mesh_peer(h_host, "guess-host")
    attacker = Process(h_attacker, str(HERE / "attacker.py"), "guess", h_host.address,
                       str(port), "--count", "30")  # fmt: skip
    result = attacker.expect(event("guessed"))
    assert result["other"] == 0
    assert result["wrong_code"] >= 1 and result["refused"] >= 1
    assert result["wrong_code"] + result["refused"] == 30
    host.command("stats")
    stats = host.expect(event("stats"))
    assert stats["failed_code_attempts"] == result["wrong_code"]
    assert stats["failed_code_by_source"] == {h_attacker.address: result["wrong_code"]}
    assert stats["refused_during_backoff"] == result["refused"]
    # The honest joiner on another machine, with the password, is not held back.
    joiner, _, joiner_id = mesh_peer(h_joiner, "guess-joiner")
    joiner.command(f"dial {h_host.address} {port}")
    joiner.expect(event("dialled", peer=host_id))
    host.expect(event("up", peer=joiner_id))
