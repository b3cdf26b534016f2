"""The game in numbers and pictures as a person sees it: a real game of `hanabi-p2p play`
against two computer players in a detached tmux window of 80x24, played to its end, then
the end screen read back with capture-pane: the summary per player and for the table, the
charts and the timeline, all in the window and agreeing with the rest of the screen and
with `log show` of the same game."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_tmux_game import EXIT_MARK, Pane, my_turn_or_the_end, short_dir, turn_of

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(120),
]

__all__ = ["short_dir"]  # the fixture, shared with the other tmux test

COLUMNS, ROWS = 80, 24
HEADER = ["Clues", "Plays", "Misplays", "Discards", "Efficiency"]


def row_of(lines: list[str], *first: str) -> list[str]:
    """The words of the first line that starts with `first`."""
    for line in lines:
        if line.split()[: len(first)] == list(first):
            return line.split()
    raise AssertionError(f"no row starting {first}:\n" + "\n".join(lines))


def seat_rows(lines: list[str]) -> list[list[str]]:
    """The rows of seats 1-3: Ann's, then the computer players', who sit in the order they
    linked up (bot1 and bot2, either way round)."""
    rows = [row_of(lines, "1", "Ann"), row_of(lines, "2"), row_of(lines, "3")]
    assert {rows[1][1], rows[2][1]} == {"bot1", "bot2"}, rows
    return rows


def test_the_end_screen_shows_the_game_in_numbers_and_pictures(short_dir: Path) -> None:
    config = short_dir / "tmux.conf"
    config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")
    data = short_dir / "data"
    program = [
        sys.executable, "-m", "hanabi_p2p", "play", "--players", "3", "--name", "Ann",
        "--bot-delay", "0.2", "--data-dir", str(data),
    ]  # fmt: skip
    command = f"env LANG=C.UTF-8 {shlex.join(program)}; echo {EXIT_MARK} $?"
    pane = Pane(short_dir / "sock", COLUMNS, ROWS)
    pane.start(command, config)
    try:
        # our slot 1 every turn: a real game, over in a few rounds (misplays burn fuses)
        turn = 0
        while True:
            screen = pane.wait("our turn or the end", my_turn_or_the_end(turn))
            if "Audit passed" in screen:
                break
            turn = turn_of(screen)
            pane.type("play 1")
        check_end_screen(screen.splitlines())
        pane.type("quit")
        printed = pane.wait("the program's exit", lambda s: EXIT_MARK in s, full=True)
        log = re.findall(r"^log: (\S+)$", printed, re.MULTILINE)
        assert len(log) == 1
        check_log_show(Path(log[0]), screen.splitlines())
    finally:
        subprocess.run(
            ["tmux", "-S", str(pane.socket), "kill-server"], check=False, capture_output=True
        )


def check_end_screen(lines: list[str]) -> None:
    assert len(lines) <= ROWS and all(len(line) <= COLUMNS for line in lines)
    assert any(line.startswith("Game over") for line in lines)
    header = next(line for line in lines if line.split()[-5:] == HEADER)
    assert "Hands at the end" in header
    fuses = int(re.search(r"Fuses burnt: (\d) of 3", "\n".join(lines)).group(1))  # type: ignore[union-attr]
    fireworks = re.search(r"Fireworks\s+((?:[RYGBW]\d ?)+)", "\n".join(lines))
    assert fireworks, lines
    placed = sum(int(card[1]) for card in fireworks.group(1).split())
    players = seat_rows(lines)
    table = row_of(lines, "Table")
    numbers = [[int(n) for n in row[-5:-1]] for row in players]
    # the table's row sums the players' rows, and agrees with the rest of the screen
    assert [int(n) for n in table[1:5]] == [sum(column) for column in zip(*numbers, strict=True)]
    assert int(table[3]) == fuses  # misplays: the fuses burnt
    assert int(table[2]) == placed  # plays: the cards on the fireworks
    for row in players:
        assert len(row) >= 2 + 5 + 1  # seat, name, a card of the hand at least, the numbers
        assert re.fullmatch(r"\d+\.\d\d|-", row[-1])
    assert re.fullmatch(r"\d+\.\d\d|-", table[-1])
    # the charts: each a row of blocks ending with its last value, then the timeline
    score = chart_row(lines, "Score")
    assert score[-1] == score_of(lines)
    tokens = chart_row(lines, "Clue tokens")
    assert 0 <= int(tokens[-1]) <= 8
    pace = chart_row(lines, "Pace")
    timeline = next(line for line in lines if line.startswith("Turns "))
    assert timeline.endswith("✖ misplay  ◆ save")
    bar = timeline.removeprefix("Turns").removesuffix("✖ misplay  ◆ save").strip()
    assert set(bar) <= set("─✖◆")
    assert 0 < bar.count("✖") <= fuses  # two misplays may share a column
    assert len(score[0]) == len(pace[0]) == len(tokens[0]) == len(bar)  # turn for turn


def chart_row(lines: list[str], label: str) -> tuple[str, str]:
    """A chart's bar of blocks and the value after it."""
    for line in lines:
        found = re.fullmatch(rf"{label}\s+([▁▂▃▄▅▆▇█]+)\s+(-?\d+)", line.rstrip())
        if found:
            return found.group(1), found.group(2)
    raise AssertionError(f"no chart {label!r}:\n" + "\n".join(lines))


def score_of(lines: list[str]) -> str:
    found = re.search(r"Score (\d+) of 25", "\n".join(lines))
    assert found, lines
    return found.group(1)


def check_log_show(path: Path, screen: list[str]) -> None:
    """`log show` of the saved game: the same numbers as the end screen."""
    done = subprocess.run(
        [sys.executable, "-m", "hanabi_p2p", "log", "show", str(path), "--lang", "en"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = done.stdout.splitlines()
    start = shown.index("The game in numbers")
    assert row_of(shown[start:], "Table") == row_of(screen, "Table")
    for row in seat_rows(screen):
        assert row_of(shown[start:], row[0], row[1])[-5:] == row[-5:]
