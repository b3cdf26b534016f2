"""A premove in the real program: `hanabi-p2p play` in tmux, a play queued during the
computer player's turn and carried out, unasked, when ours comes (README, "Premoves")."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tmux_game import EXIT_MARK, Pane, first_rank_of_bot, my_turn_after, tokens, turn_of

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(150),
]

ATTEMPTS = 6  # a clue from bot1 on our slot 1 cancels the premove: then we try again


@pytest.fixture
def short_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hp2p-"))  # a unix socket's path must stay short
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_premove_is_carried_out_when_our_turn_comes(short_dir: Path) -> None:
    config = short_dir / "tmux.conf"
    config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")
    program = [
        sys.executable, "-m", "hanabi_p2p", "play", "--players", "2", "--name", "Ann",
        "--bot-delay", "2", "--data-dir", str(short_dir / "data"),
    ]  # fmt: skip
    pane = Pane(short_dir / "sock", 100, 30)
    pane.start(f"env LANG=C.UTF-8 {shlex.join(program)}; echo {EXIT_MARK} $?", config)
    try:
        turn = 0
        for _attempt in range(ATTEMPTS):
            screen = my_turn_after(pane, turn)
            turn = turn_of(screen)
            if tokens(screen) > 0:
                pane.type(f"clue bot1 {first_rank_of_bot(screen)}")
            else:
                pane.type("discard 5")
            pane.wait("bot1's turn", lambda s: "Waiting for bot1" in s)
            pane.type("play 1")  # during bot1's turn: queued, nothing sent
            queued = pane.wait("the premove on the status line", lambda s: "queued: play 1" in s)
            assert turn_of(queued) == turn + 1
            done = pane.wait("the premove's outcome", lambda s: (
                "Premove carried out: play 1" in s or "Premove cancelled (play 1)" in s
                or "Game over" in s))
            if "Premove carried out: play 1" in done:
                # nothing typed on our turn, and yet we played and it is bot1's turn again
                played = turn + 2
                after = pane.wait("our play in the log", lambda s, played=played: (
                    turn_of(s) > played or "Game over" in s))
                assert "Ann plays" in after and "from slot 1" in after, after
                return
            if "Game over" in done:
                break
            turn = turn_of(done) - 1  # cancelled (a clue touched it): our turn is still on
        raise AssertionError("no premove was carried out in " + str(ATTEMPTS) + " attempts")
    finally:
        subprocess.run(
            ["tmux", "-S", str(pane.socket), "kill-server"], check=False, capture_output=True
        )
