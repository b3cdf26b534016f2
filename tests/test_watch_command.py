"""`hanabi-p2p watch`: its arguments are checked before anything happens, and leaving by
choice is reported as such (exit status 0), a failure as a failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from hanabi_p2p.cli import main as cli_main
from hanabi_p2p.commands.watch import _report
from hanabi_p2p.peer.result import GameResult


def test_stopping_to_watch_is_no_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert _report(GameResult(Path("x.hlog"), failure="you stopped watching",
                              chosen_leave=True), "hanabi-p2p watch") == 0
    out = capsys.readouterr().out
    assert "stopped watching" in out and out.rstrip().endswith("log: x.hlog")
    assert _report(GameResult(Path("x.hlog"), failure="lost the table"), "hanabi-p2p watch") == 1
    assert capsys.readouterr().err == "hanabi-p2p watch: no game: lost the table\n"


@pytest.mark.parametrize(("argv", "why"), [
    (["--address", "nowhere"], "HOST:PORT"),
    (["--browse-seconds", "0"], "browse-seconds"),
    (["--interface", "not-an-ip"], "IPv4"),
    (["--name", "two\nlines", "--headless"], "--name"),
    (["--code", "", "--headless"], "--code"),
])
def test_bad_arguments_are_one_line_and_change_nothing(
        argv: list[str], why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    assert cli_main(["watch", *argv, "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and why in err
    assert not data.exists()
