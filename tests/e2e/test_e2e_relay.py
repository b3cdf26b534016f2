"""A real relay process on the path between two players of a namespace LAN (issue 9): it
alters, injects, replays, drops and finally swallows Bob's frames to Carol. Links are sealed,
so each trick only closes a link (a link problem, reported as such); the game goes on over the
mesh and finishes, or ends "unreachable" with its log saved, and nobody is blamed."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_helpers import Procs, bot_args, settle
from netlab import RELAY_PORT, NetLab, require_netlab

pytestmark = [pytest.mark.netns, pytest.mark.slow]

# What the relay does to Bob's frames toward Carol, one action per connection, in order
# (frame numbers count the sealed frames after the handshake): flip a bit, replay the first
# frame, inject a forged one, drop one, then swallow everything while TCP stays up.
ATTACKS = ("flip@2", "replay@3", "forge@2", "drop@4", "swallow@3")
# Small, so a link that only swallows is given up on soon (the idle timeout catches it first).
WAIT_TIMEOUT = ["--wait-timeout", "10"]
GAME_BOUND_S = 120.0  # only reached when the test fails


@pytest.fixture
def lab() -> Iterator[NetLab]:
    require_netlab()
    with NetLab("hg") as made:
        yield made


def test_a_relay_that_tampers_with_one_link_breaks_no_game_and_frames_nobody(
    lab: NetLab, tmp_path: Path
) -> None:
    procs = Procs(tmp_path)
    try:
        ann_ns, carol_ns = lab.lan(2)
        relay_ns, bob_ns = lab.behind_relay()
        relay = procs.script(
            "relay", "relay_proxy.py", "--listen", f"0.0.0.0:{RELAY_PORT}", "--transparent",
            "--toward", carol_ns.address, *[a for attack in ATTACKS for a in ("--action", attack)],
            ns=relay_ns)
        relay.wait_for('"listening"')
        ann = procs.hanabi("Ann", "host", "--players", "3", "--no-mdns", *WAIT_TIMEOUT,
                           *bot_args(interface=ann_ns.address, name="Ann"), ns=ann_ns)
        address, port = ann.table_address()
        guests = [procs.hanabi(name, "join", "--address", f"{address}:{port}", *WAIT_TIMEOUT,
                               *bot_args(interface=ns.address, name=name), ns=ns)
                  for name, ns in (("Bob", bob_ns), ("Carol", carol_ns))]

        outcome = settle([ann, *guests], timeout=GAME_BOUND_S)
        relay.kill(signal.SIGTERM)
        events = [json.loads(line) for line in relay.stdout.splitlines()]
        fired = events[-1]["fired"]
        assert all(fired.values()), f"the relay did not carry out every attack: {fired}"
        # the peers saw it as what it is: frames that failed authentication on one link
        carol = guests[1]
        assert "failed authentication" in carol.output, carol.describe()
        assert outcome.finished or outcome.unfinished, outcome
        for name, code in outcome.status.items():
            if code != 0:
                assert "unreachable" in outcome.reason[name], (name, outcome)
    finally:
        procs.kill_all()
