"""End to end in a real terminal: `hanabi-p2p play` in a detached tmux session.

The real program with real sockets (loopback only, nothing advertised) and a computer
player; keys go in with send-keys, the screen comes back with capture-pane. Every wait
polls the pane against a deadline; a wait that runs out fails with the screen it saw.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(90),
]

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 20.0
POLL_S = 0.05
EXIT_MARK = "EXIT-STATUS"
FACE = r"[RYGBWM][1-5]"
# bot1's hand row: an optional turn/dropped marker, the name, then only card faces
# a hand row: turn marker, seat number, name, whose machine runs it (⚙Ann), the faces
BOT_HAND = re.compile(
    rf"^\s*(?:\S )?\s*(?:\d )?bot1(?: ⚙\S+)?\s+((?:{FACE}\S*\s*)+)$", re.MULTILINE
)
TURN = re.compile(r"turn (\d+)\s*(?:│|$)", re.MULTILINE)  # the title, even beside a log
TOKENS = re.compile(r"Clue tokens \S+ (\d)")


class Pane:
    """One tmux server (own socket) running one program in one fixed-size window."""

    def __init__(self, socket: Path, columns: int, rows: int) -> None:
        self.socket = socket
        self.columns = columns
        self.rows = rows

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            check=True,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return done.stdout

    def start(self, command: str, config: Path) -> None:
        self.tmux(
            "-f", str(config), "new-session", "-d", "-s", "game", "-c", str(REPO),
            "-x", str(self.columns), "-y", str(self.rows), command,
        )  # fmt: skip

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "game")

    def everything(self) -> str:
        """The screen and the scrollback (lines printed after the full screen closed)."""
        return self.tmux("capture-pane", "-p", "-S", "-", "-t", "game")

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "game", "-l", text)
        self.tmux("send-keys", "-t", "game", "Enter")

    def clear_input(self) -> None:
        self.tmux("send-keys", "-t", "game", "C-u")

    def wait(self, what: str, ok: Callable[[str], bool], full: bool = False) -> str:
        deadline = time.monotonic() + WAIT_S
        while True:
            text = self.everything() if full else self.screen()
            if ok(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting for {what}; the pane shows:\n{text}")
            time.sleep(POLL_S)


@pytest.fixture
def short_dir() -> Iterator[Path]:
    # a unix socket path must stay short (about 100 bytes): not under pytest's tmp_path
    path = Path(tempfile.mkdtemp(prefix="hp2p-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def turn_of(screen: str) -> int:
    found = TURN.search(screen)
    return int(found.group(1)) if found else 0


def my_turn_after(pane: Pane, turn: int) -> str:
    """Wait until it is our turn again, later than `turn`."""
    return pane.wait(
        f"our turn after turn {turn}",
        lambda s: "Your turn" in s and turn_of(s) > turn,
    )


def past(turn: int) -> Callable[[str], bool]:
    return lambda screen: turn_of(screen) > turn or "Game over" in screen


def my_turn_or_the_end(turn: int) -> Callable[[str], bool]:
    def ok(screen: str) -> bool:
        return "Audit passed" in screen or ("Your turn" in screen and turn_of(screen) > turn)

    return ok


def first_rank_of_bot(screen: str) -> str:
    found = BOT_HAND.search(screen)
    assert found, f"no hand for bot1 on screen:\n{screen}"
    face = re.search(FACE, found.group(1))
    assert face
    return face.group(0)[1]


def tokens(screen: str) -> int:
    found = TOKENS.search(screen)
    assert found, screen
    return int(found.group(1))


@pytest.mark.parametrize(("columns", "rows"), [(100, 30), (80, 24)])
def test_a_game_in_a_real_terminal(short_dir: Path, columns: int, rows: int) -> None:
    config = short_dir / "tmux.conf"
    # keep the pane after the program exits, to read what it printed last
    config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")
    program = [
        sys.executable, "-m", "hanabi_p2p", "play", "--players", "2", "--name", "Ann",
        "--data-dir", str(short_dir / "data"),
    ]  # fmt: skip
    command = f"env LANG=C.UTF-8 {shlex.join(program)}; echo {EXIT_MARK} $?"
    pane = Pane(short_dir / "sock", columns, rows)
    pane.start(command, config)
    try:
        play_a_game(pane)
    finally:
        subprocess.run(
            ["tmux", "-S", str(pane.socket), "kill-server"], check=False, capture_output=True
        )


def play_a_game(pane: Pane) -> None:
    screen = my_turn_after(pane, 0)
    assert "bot1" in screen and "You (Ann)" in screen
    assert turn_of(screen) == 1 and tokens(screen) == 8

    # an illegal command: its reason under the input line, nothing sent, still our turn
    pane.type("discard 1")
    screen = pane.wait("the refusal", lambda s: "you cannot discard" in s)
    assert "all 8 clue tokens are available" in screen
    assert "Your turn" in screen and turn_of(screen) == 1 and tokens(screen) == 8
    # the rejected command is gone from the input line: the next one starts clean
    assert re.search(r"^>\s*$", screen, re.MULTILINE), screen

    # a clue that touches bot1's first card
    rank = first_rank_of_bot(screen)
    pane.type(f"clue bot1 {rank}")
    pane.wait("the clue in the log", lambda s: f"Ann clues bot1: {rank}" in s)

    # a private note shows with the card; a card's story is one command away
    pane.type("note 2 keep this")
    pane.wait("the note under our hand", lambda s: "2✎ keep this" in s)
    pane.type("info bot1 1")
    story = pane.wait("the card's story", lambda s: "bot1's card in slot 1" in s)
    assert f"Ann clued {rank}, touching this card" in story
    pane.tmux("send-keys", "-t", "game", "Escape")
    pane.wait("the table again", lambda s: "Fireworks" in s)

    screen = my_turn_after(pane, 1)
    pane.type("play 1")
    pane.wait("the play in the log", lambda s: "Ann plays" in s)

    # a discard (a clue first whenever all tokens are back)
    turn = turn_of(screen)
    while True:
        screen = my_turn_after(pane, turn)
        turn = turn_of(screen)
        if tokens(screen) < 8:
            pane.type("discard 1")
            pane.wait("the discard in the log", lambda s: "Ann discards" in s)
            break
        pane.type(f"clue bot1 {first_rank_of_bot(screen)}")
        pane.wait("the clue", past(turn))

    # then the leftmost card every turn until the game ends (three misplays at most)
    while True:
        screen = pane.wait("our turn or the end", my_turn_or_the_end(turn))
        if "Audit passed" in screen:
            break
        turn = turn_of(screen)
        pane.type("play 1")

    assert "Game over" in screen and "Score" in screen
    assert "Log saved to" in screen

    pane.type("quit")
    printed = pane.wait("the program's exit", lambda s: EXIT_MARK in s, full=True)
    assert f"{EXIT_MARK} 0" in printed
    logs = re.findall(r"^log: (\S+)$", printed, re.MULTILINE)
    assert len(logs) == 1 and Path(logs[0]).is_file()
    assert re.search(r"^score \d+ \(\w+\); deck audit: valid$", printed, re.MULTILINE)


def test_a_narrow_terminal_shows_every_card(short_dir: Path) -> None:
    """60x20 with three players: every teammate's five cards are on screen, none cut."""
    config = short_dir / "tmux.conf"
    config.write_text("set -g remain-on-exit on\n")
    program = [
        sys.executable, "-m", "hanabi_p2p", "play", "--players", "3", "--name", "Ann",
        "--data-dir", str(short_dir / "data"),
    ]  # fmt: skip
    command = f"env LANG=C.UTF-8 {shlex.join(program)}; echo {EXIT_MARK} $?"
    pane = Pane(short_dir / "sock", 60, 20)
    pane.start(command, config)
    try:
        screen = pane.wait("our first turn", lambda s: "Your turn" in s)
        for bot in ("bot1", "bot2"):
            faces = cards_after(screen, bot)
            assert len(faces) == 5, f"{bot}'s hand is not all shown:\n{screen}"
        pane.type("quit")
        pane.wait("the question", lambda s: "cannot be resumed" in s)
        pane.type("quit")
        printed = pane.wait("the program's exit", lambda s: EXIT_MARK in s, full=True)
        assert "game not finished: you left the game" in printed
    finally:
        subprocess.run(
            ["tmux", "-S", str(pane.socket), "kill-server"], check=False, capture_output=True
        )


def cards_after(screen: str, name: str) -> list[str]:
    """The faces in `name`'s hand rows (its row and the wrapped rows under it)."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(rf"\b{name}\b", line))
    faces = re.findall(FACE, lines[start].split(name, 1)[1])
    for line in lines[start + 1 :]:
        # a wrapped continuation holds faces only; the knowledge row holds none
        if re.search(r"\b(bot\d|You)\b", line) or not re.search(FACE, line):
            break
        faces.extend(re.findall(FACE, line))
    return faces


# 256-colour indexes prompt_toolkit picks for the dark palette's white (#ffffff) and yellow
# (#ffd700): faint or invisible on a light background.
DARK_WHITE_AND_YELLOW = ("38;5;231m", "38;5;220m")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_light_theme_draws_no_white_or_yellow_text(short_dir: Path, theme: str) -> None:
    config = short_dir / "tmux.conf"
    config.write_text("set -g remain-on-exit on\n")
    program = [
        sys.executable, "-m", "hanabi_p2p", "play", "--players", "5", "--name", "Ann",
        "--theme", theme, "--data-dir", str(short_dir / "data"),
    ]  # fmt: skip
    env = "env LANG=C.UTF-8 PROMPT_TOOLKIT_COLOR_DEPTH=DEPTH_8_BIT"
    pane = Pane(short_dir / "sock", 100, 30)
    pane.start(f"{env} {shlex.join(program)}; echo {EXIT_MARK} $?", config)
    try:
        pane.wait("the dealt hands", lambda s: len(re.findall(FACE, s)) >= 16)
        coloured = pane.tmux("capture-pane", "-p", "-e", "-t", "game")
        faces = re.findall(FACE, pane.screen())
        # four computer players hold 16 cards: white and yellow ones are all but certain
        assert any(face[0] in "WY" for face in faces)
        used = [code for code in DARK_WHITE_AND_YELLOW if code in coloured]
        if theme == "light":
            assert used == [], coloured
        else:
            assert used, coloured  # the check above can see these colours at all
    finally:
        subprocess.run(
            ["tmux", "-S", str(pane.socket), "kill-server"], check=False, capture_output=True
        )
