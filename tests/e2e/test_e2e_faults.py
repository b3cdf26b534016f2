"""The fault suite of issue 16, CI part: real `--bot` games on a namespace LAN, one fault each.

After every game (tests/e2e/faultlab.py): every peer exits (0, or 1 with one clear reason),
every saved log verifies, all finished peers hold one digest, nobody is blamed, and the case's
own expectation holds. The whole matrix, many runs each, is bench/faults.py.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from faultlab import Case, Expect, Fault, Phase, play
from netlab import require_netlab

pytestmark = [pytest.mark.netns, pytest.mark.slow]

SEED = 16  # the mid-game moment each fault strikes at (a turn) comes from here

CASES = (
    # iptables statistic on every host's INPUT: TCP retransmits, the game finishes
    Case("loss 15%", Fault.LOSS, players=2, loss=0.15),
    # beyond the 15 s idle timeout: the links close, are redialled once the cable is back
    Case("cut 20 s mid-game", Fault.CUT, players=2, seconds=20),
    # during the end-of-game audit: nobody hangs; the victim fetches what it lacks after the
    # cut, or, if the others' linger ran out first, ends saying whom it waited for
    Case("cut 20 s in the audit", Fault.CUT, phase=Phase.AUDIT, players=2, seconds=20,
         expect=Expect.FINISH_OR_UNREACHABLE),
    Case("kill -9 and resume of a guest mid-game", Fault.KILL, players=3),
    # stopped past --wait-timeout: the others end "waited ... unreachable" naming it, and
    # the woken peer, told why, blames nobody
    Case("SIGSTOP past the wait timeout", Fault.STOP, players=3, seconds=12, wait_timeout=4,
         expect=Expect.VICTIM_NAMED),
    # one "disk full" line, the log verifies up to its last whole entry, and once space is
    # freed `join --resume` finishes the game
    Case("disk full mid-game", Fault.DISK_FULL, players=2, expect=Expect.DISK_FULL),
)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_game_under_a_fault_ends_cleanly_with_valid_logs_and_one_digest(
    case: Case, tmp_path: Path
) -> None:
    require_netlab()
    run = play(case, tmp_path, random.Random(SEED))
    # (the mesh's shutdown race that once printed a CancelledError traceback is fixed: if
    # it is seen again, the run's failure says so)
    assert run.failure is None, f"{case.name}: {run.failure}\n{run.tails}\n(output in {tmp_path})"
    if case.expect in (Expect.FINISH, Expect.DISK_FULL):
        assert run.finished, run.outcome
