"""`hanabi-p2p replay`: text and JSON output, exit codes 0/1/2, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hanabi_p2p.cli import main

DATA = Path(__file__).parents[1] / "data"
EXAMPLE = DATA / "hanablive" / "example_game.json"
JSON_KEYS = {"variant", "players", "score", "fireworks_total", "strikes", "clues", "turns",
             "over", "end", "fireworks", "illegal"}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path: Path, obj: Any) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(obj))
    return str(path)


def test_bundled_example_replays_without_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--json")
    result = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and set(result) >= JSON_KEYS and result["illegal"] is None
    assert result["over"] is True
    code_again, out_again, _ = _run(capsys, "--example", "--json")
    assert code_again == 0 and out_again == out


def test_text_account_turn_by_turn(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(EXAMPLE))
    lines = out.splitlines()
    assert code == 0
    assert lines[1] == "turn 1   Alice clues Bob: green (slot 4)"
    assert lines[2] == "turn 2   Bob plays G1 from slot 4: placed"
    assert "turn 13  Alice discards B1 from slot 3" in lines
    assert lines[-3:] == [
        "game over (perfect) after 55 turns",
        "fireworks R5 Y5 G5 B5 W5  total 25/25",
        "score 25 (legendary)  strikes 0  clue tokens 3  cards left 0",
    ]


def test_the_final_round_is_announced(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys)  # the bundled example runs to the end of the deck
    lines = out.splitlines()
    final = lines.index("         the last card is drawn: final round of 3 turns")
    # three more turns follow, then the summary
    assert code == 0 and lines[final + 4] == "game over (normal) after 62 turns"
    assert [line[:8] for line in lines[final + 1:final + 4]] == ["turn 60 ", "turn 61 ",
                                                                 "turn 62 "]


def test_json_last_line_of_a_conformance_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(DATA / "hanablive" / "3p-games" / "101785.json"), "--json")
    result = json.loads(out.splitlines()[-1])
    assert code == 0
    assert (result["score"], result["strikes"], result["clues"]) == (22, 2, 7)
    assert result["variant"] == "standard" and result["players"] == 3
    assert sum(result["fireworks"].values()) == 22 and result["end"] == "in_progress"


def test_misplays_are_narrated_with_the_strike_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(DATA / "hanablive" / "3p-games" / "101785.json"))
    assert code == 0
    strikes = [line for line in out.splitlines() if "does not fit" in line]
    assert len(strikes) == 2 and strikes[0].endswith(": it does not fit, fuse 1 of 3 burns")
    assert ": it does not fit, fuse 2 of 3 burns" in strikes[1]
    assert strikes[1].endswith("★ that was the last W3: it can no longer be played")


def test_an_illegal_action_exits_1_with_the_state_before_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    game = json.loads(EXAMPLE.read_text())
    # the first action becomes a discard while all 8 clue tokens are available
    game["actions"][0] = {"type": 1, "target": 0, "value": 0}
    code, out, _ = _run(capsys, _write(tmp_path, game), "--json")
    result = json.loads(out.splitlines()[-1])
    assert code == 1
    assert result["illegal"] == {
        "action_index": 0,
        "reason": "discard not allowed: all 8 clue tokens are available",
    }
    assert result["turns"] == 0 and result["clues"] == 8


@pytest.mark.parametrize("variant", ["No Variant", "Rainbow (6 Suits)"])
def test_a_clue_colour_the_variant_cannot_name_exits_1_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, variant: str
) -> None:
    """Colour 5 where the variant has no such clue colour (issue 14, item 14): a readable
    action that breaks a rule, not a malformed file."""
    game = json.loads(EXAMPLE.read_text())
    if variant != "No Variant":
        game["options"] = {**game.get("options", {}), "variant": variant}
        game["deck"] = game["deck"] + [{"suitIndex": 5, "rank": r}
                                       for r in (1, 1, 1, 2, 2, 3, 3, 4, 4, 5)]
    game["actions"][0] = {"type": 2, "target": 1, "value": 5}
    code, out, _ = _run(capsys, _write(tmp_path, game), "--json")
    result = json.loads(out.splitlines()[-1])
    assert code == 1
    assert result["illegal"]["action_index"] == 0
    assert "multicolor cannot be named" in result["illegal"]["reason"]


def test_an_illegal_action_in_text_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    game = json.loads(EXAMPLE.read_text())
    game["actions"][1] = {"type": 0, "target": 0, "value": 0}  # Bob plays Alice's card
    code, out, _ = _run(capsys, _write(tmp_path, game))
    assert code == 1
    assert "action 1 is illegal (Bob): card 0 is not in seat 1's hand" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"players": ["a", "b"], "actions": []}', "missing field 'deck'"),
        ('{"players": ["a","b","c","d","e","f"], "deck": [], "actions": []}',
         "2 to 5 players"),
    ],
)
def test_invalid_files_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = _run(capsys, str(path), "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("hanabi-p2p replay: error:")


def test_unknown_variant_and_wrong_deck_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    game = json.loads(EXAMPLE.read_text())
    game["options"] = {"variant": "Mix (5 Suits)"}
    code, _, err = _run(capsys, _write(tmp_path, game))
    assert code == 2 and "unknown variant" in err
    game = json.loads(EXAMPLE.read_text())
    game["deck"][0] = {"suitIndex": 0, "rank": 5}
    code, _, err = _run(capsys, _write(tmp_path, game))
    assert code == 2 and "not the standard deck" in err


def test_missing_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(capsys, str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in err and err.count("\n") == 1


@pytest.mark.process
def test_the_installed_command_prints_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe not json")
    proc = subprocess.run([sys.executable, "-m", "hanabi_p2p", "replay", str(bad)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
