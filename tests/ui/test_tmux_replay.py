"""End to end in a real terminal: `hanabi-p2p log replay ID` in a detached tmux session.

A signed game log (the protocol's whole-game vector) sits in a data directory; the real
program audits it and opens the replay at 80x24. Keys go in with send-keys and the screen
comes back with capture-pane: step with the arrows, jump with `g 37`, go to the end, quit.
Every wait polls the pane against a deadline (the tmux game test's `Pane`).
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from replay_helpers import vector, vector_log
from test_tmux_game import EXIT_MARK, Pane

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(90),
]

COLUMNS, ROWS = 80, 24
TURN = re.compile(r"turn (\d+) of (\d+)")
FACE = re.compile(r"[RYGBWM][1-5]")


@pytest.fixture
def short_dir() -> Iterator[Path]:
    # a unix socket path must stay short (about 100 bytes): not under pytest's tmp_path
    path = Path(tempfile.mkdtemp(prefix="hp2p-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def shown_turn(screen: str) -> int:
    found = TURN.search(screen)
    return int(found.group(1)) if found else -1


def hand_faces(screen: str, name: str) -> list[str]:
    line = next(line for line in screen.splitlines() if f" {name} " in line)
    return FACE.findall(line.split(name, 1)[1])


def test_replay_a_signed_log_step_jump_and_quit(short_dir: Path) -> None:
    data = short_dir / "data"
    vector_log(data)
    config = short_dir / "tmux.conf"
    config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")
    prefix = vector()["table_id"][:8]
    program = [sys.executable, "-m", "hanabi_p2p", "log", "replay", prefix,
               "--data-dir", str(data)]
    command = f"env LANG=C.UTF-8 {shlex.join(program)}; echo {EXIT_MARK} $?"
    pane = Pane(short_dir / "sock", COLUMNS, ROWS)
    pane.start(command, config)
    try:
        start = pane.wait("the deal", lambda s: shown_turn(s) == 0)
        assert "The deal: every hand face up" in start
        # the deal: every card of both hands face up
        assert len(hand_faces(start, "p0")) == 5 and len(hand_faces(start, "p1")) == 5
        total = int(TURN.search(start).group(2))  # type: ignore[union-attr]

        pane.tmux("send-keys", "-t", "game", "Right")
        first = pane.wait("turn 1", lambda s: shown_turn(s) == 1)
        assert "▸ turn 1: p0 " in first

        pane.tmux("send-keys", "-t", "game", "Right", "Right", "Left")
        pane.wait("turn 2", lambda s: shown_turn(s) == 2)

        pane.tmux("send-keys", "-t", "game", "g", "3", "7")
        typing = pane.wait("the turn typed", lambda s: "Go to turn" in s and "37_" in s)
        assert shown_turn(typing) == 2  # nothing moves before Enter
        pane.tmux("send-keys", "-t", "game", "Enter")
        jumped = pane.wait("turn 37", lambda s: shown_turn(s) == 37)
        assert "▸ turn 37: " in jumped
        assert "Go to turn" not in jumped

        pane.tmux("send-keys", "-t", "game", "End")
        end = pane.wait("the end", lambda s: shown_turn(s) == total)
        assert "Game over" in end

        pane.tmux("send-keys", "-t", "game", "q")
        pane.wait("the exit status", lambda s: f"{EXIT_MARK} 0" in s, full=True)
    finally:
        pane.tmux("kill-server")
