"""A stranger on a test LAN of network namespaces, against a table of real programs: Ann hosts
on her machine, Bob joins from his, and Eve, on a third, floods the table as a spectator would
connect. The players' turns must keep their pace (issue 31: a spectator's flood once ended the
game), and the host shows the stranger's closed link by fingerprint and address."""

from __future__ import annotations

import itertools
import json
import re
import signal
import statistics
import sys
from typing import Any

import pytest
from e2e_helpers import TESTS_DIR, Proc, Procs, bot_args, expect_success
from netlab import Host, NetLab

pytestmark = [pytest.mark.netns, pytest.mark.alone]  # (it measures turn latency)

TURN_LINE = re.compile(r"^turn (\d+): ")


def turn_gaps(proc: Proc) -> list[float]:
    """Seconds between consecutive `turn N:` lines as they reached us (turn 1's own wait, the
    deal, left out): the turns' latency as a player sees it."""
    seen: dict[int, float] = {}
    for arrived, line in proc.lines_with_times():
        match = TURN_LINE.match(line)
        if match:
            seen.setdefault(int(match.group(1)), arrived)
    turns = sorted(seen)
    return [seen[b] - seen[a] for a, b in itertools.pairwise(turns) if b == a + 1]


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Played = tuple[list[float], dict[str, Any] | None]
ROUNDS = 2


def play(lan: list[Host], procs: Procs, run: str, flood: bool) -> Played:
    """A 2-player game between computer players on two machines, with a stranger on a third
    flooding the host from before the first player joins to the end if `flood`: the turn gaps
    Ann saw, and what the stranger reported."""
    ann_host, bob_host, eve_host = lan
    ann = procs.hanabi(f"Ann-{run}", "host", "--players", "2", "--no-mdns", "--bot-delay", "0",
                       *bot_args(interface=ann_host.address, name="Ann"), ns=ann_host, timed=True)
    address, port = ann.table_address()
    eve = None
    if flood:
        # Eve's machine is in fact ours: at the lowest priority, her own work of encrypting
        # tens of thousands of frames a second takes no CPU from the players, as on a machine
        # of hers
        eve = procs.start(f"Eve-{run}", ["nice", "-n", "19", sys.executable,
                                         str(TESTS_DIR / "hostile_peer.py"), "flood", address,
                                         str(port), "--wait", "60"], ns=eve_host)
        eve.wait_for(r"(?m)^flooding$")
    bob = procs.hanabi(f"Bob-{run}", "join", "--address", f"{address}:{port}", "--bot-delay",
                       "0", *bot_args(interface=bob_host.address, name="Bob"), ns=bob_host)
    expect_success([ann, bob])
    gaps = turn_gaps(ann)
    told = None
    if eve is not None:
        eve.kill(signal.SIGTERM)  # the game is over: it stops flooding and reports
        told = json.loads(eve.stdout.strip().splitlines()[-1])
    return gaps, told


def test_on_a_lan_a_spectator_flood_keeps_the_players_turns_within_twice_their_pace(
    netlab: NetLab, procs: Procs,
) -> None:
    lan = netlab.lan(3)
    quiet: list[float] = []
    flooded: list[float] = []
    sent = 0
    for run in range(ROUNDS):  # alternating, so that the machine's own load hits both alike
        quiet += play(lan, procs, f"quiet{run}", flood=False)[0]
        gaps, told = play(lan, procs, f"flooded{run}", flood=True)
        assert told is not None, "the stranger reported nothing"
        flooded += gaps
        sent += told["sent"]
    quiet_p50, flooded_p50 = statistics.median(quiet), statistics.median(flooded)
    print(f"turn latency p50 {quiet_p50 * 1000:.1f} ms unwatched, {flooded_p50 * 1000:.1f} ms"
          f" flooded ({sent} frames sent); p90 {p(quiet, 0.9) * 1000:.1f} /"
          f" {p(flooded, 0.9) * 1000:.1f} ms")
    assert sent > 10_000 * ROUNDS, sent  # (it did flood)
    assert len(quiet) >= 20 * ROUNDS and len(flooded) >= 20 * ROUNDS, (quiet, flooded)
    assert flooded_p50 <= 2 * quiet_p50, (quiet_p50, flooded_p50)
    assert p(flooded, 0.9) <= 2 * p(quiet, 0.9), (p(quiet, 0.9), p(flooded, 0.9))
