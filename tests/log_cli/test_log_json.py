"""`log list|show|verify --json`: one JSON document each, every key documented in
docs/json.md (and every documented key there), values that say what the text output says,
and the exit status of the verdict: 0 valid, 1 invalid, 3 unfinished."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from game_files import TABLE_ID, TABLE_NAME, record_offset, store_in_data_dir, write_log
from session_harness import Table

TABLE_HEX = TABLE_ID.hex()
DOC = Path(__file__).resolve().parents[2] / "docs" / "json.md"
MAPS = {"game.fireworks"}  # objects keyed by data (suit letters), not by documented keys
# lists whose items docs/json.md describes in prose, beside the list's own key
PROSE_ITEMS = {"claims[]"}


def documented_keys(heading: str) -> set[str]:
    """The keys listed under `## heading` in docs/json.md."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"## `{heading}`\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE))


def keys_of(value: Any, prefix: str = "") -> set[str]:
    """Every key path of a document: `table.id`, `players[].seat`."""
    found: set[str] = set()
    if isinstance(value, dict) and prefix.rstrip(".") not in MAPS | PROSE_ITEMS:
        for key, item in value.items():
            path = prefix + key
            found.add(path)
            found |= keys_of(item, path + ".")
    elif isinstance(value, list):
        for item in value:
            found |= keys_of(item, prefix.rstrip(".") + "[].")
    return found


def harness_names(game: Table) -> list[str]:
    return [f"p{seat}" for seat in range(len(game.peers))]  # as the session harness seats them


def run_json(run_cli, *args: str) -> tuple[int, dict[str, Any]]:  # type: ignore[no-untyped-def]
    result = run_cli(*args, "--json")
    return result.code, json.loads(result.out)  # the whole of stdout is one document


def test_verify_json_of_a_finished_game(game: Table, data_dir: Path, run_cli) -> None:
    code, doc = run_json(run_cli, "log", "verify", TABLE_HEX[:6], "--data-dir", str(data_dir))
    state = game.peers[0].session.state
    assert code == 0
    assert keys_of(doc) == documented_keys("log verify --json")
    assert doc["verdict"] == "valid" and doc["started"] is True and doc["problems"] == []
    assert doc["table"] == {"id": TABLE_HEX, "name": TABLE_NAME, "options": []}
    assert [p["name"] for p in doc["players"]] == harness_names(game)
    assert doc["game"]["score"] == state.score and doc["game"]["over"] is True
    assert doc["game"]["turns"] == state.turn and doc["game"]["rating"] == state.rating
    assert doc["audit"] == {"done": True, "ok": True, "cards": 50, "blamed_seat": None,
                            "reason": None, "missing_seeds": []}
    text = run_cli("log", "verify", TABLE_HEX, "--data-dir", str(data_dir))
    assert text.lines[0] == doc["summary"]
    assert text.lines[-1] == f"digest: {doc['digest']}"


def test_show_json_has_every_turn_and_the_deck(game: Table, data_dir: Path, run_cli) -> None:
    code, doc = run_json(run_cli, "log", "show", TABLE_HEX, "--data-dir", str(data_dir))
    assert code == 0
    assert keys_of(doc) == (documented_keys("log verify --json")
                            | documented_keys("log show --json"))
    state = game.peers[0].session.state
    assert [t["turn"] for t in doc["turns"]] == list(range(1, state.turn + 1))
    assert len(doc["deck"]) == 50 and doc["unchecked_entries"] == 0
    for turn in doc["turns"]:
        assert turn["action"] in {"play", "discard", "clue"}
        if turn["action"] != "clue":  # a played or discarded card's face is the deck's
            assert turn["face"] == doc["deck"][turn["card"]]
    placed = sum(1 for t in doc["turns"] if t["placed"])
    assert placed == sum(doc["game"]["fireworks"].values())
    # the game in numbers: the table's sums, and a point after the deal and each turn
    numbers = doc["numbers"]
    assert numbers["table"]["plays"] == placed
    assert numbers["table"]["misplays"] == sum(1 for t in doc["turns"] if t["strike"])
    assert numbers["table"]["clues"] == sum(1 for t in doc["turns"] if t["action"] == "clue")
    assert [p["clues"] for p in numbers["players"]] == [
        sum(1 for t in doc["turns"] if t["action"] == "clue" and t["seat"] == seat)
        for seat in range(len(numbers["players"]))]
    assert [p["turn"] for p in numbers["points"]] == list(range(state.turn + 1))
    assert numbers["points"][-1]["score"] == doc["game"]["score"]


def test_list_json_lists_every_game(game: Table, data_dir: Path, run_cli) -> None:
    code, doc = run_json(run_cli, "log", "list", "--data-dir", str(data_dir))
    assert code == 0
    assert keys_of(doc) == documented_keys("log list --json")
    (row,) = doc["games"]
    assert row["table"] == TABLE_HEX and row["verdict"] == "valid" and row["watched"] is False
    assert row["players"] == harness_names(game)
    assert row["score"] == game.peers[0].session.state.score


def test_list_json_of_an_empty_data_dir_is_an_empty_list(tmp_path: Path, run_cli) -> None:
    code, doc = run_json(run_cli, "log", "list", "--data-dir", str(tmp_path / "new"))
    assert code == 0 and doc["games"] == []


def test_a_tampered_log_exits_1_and_names_its_problems(game_file: Path, run_cli) -> None:
    data = bytearray(game_file.read_bytes())
    data[record_offset(game_file, 150) + 40] ^= 0x10
    game_file.write_bytes(bytes(data))
    for command in ("verify", "show"):
        code, doc = run_json(run_cli, "log", command, str(game_file))
        assert code == 1
        assert doc["verdict"] == "invalid"
        assert doc["problems"][0].startswith("record 150: checksum mismatch at byte ")
        assert doc["summary"] == f"invalid: {doc['problems'][0]}"


@pytest.mark.parametrize("command", ["verify", "show"])
def test_an_honest_unfinished_game_exits_3(game: Table, tmp_path: Path, run_cli,
                                           command: str) -> None:
    root = tmp_path / "data"
    store_in_data_dir(root, game.peers[1].replica.applied[:80])  # stopped half-way
    code, doc = run_json(run_cli, "log", command, TABLE_HEX, "--data-dir", str(root))
    assert code == 3
    assert doc["verdict"] == "unfinished" and doc["problems"] == []
    assert doc["game"]["over"] is False and doc["game"]["end"] is None
    assert doc["audit"]["done"] is False
    text = run_cli("log", command, TABLE_HEX, "--data-dir", str(root))
    assert text.code == 3  # the same without --json


def test_a_table_that_never_started_is_unfinished_for_verify_and_shown_whole(
        game: Table, tmp_path: Path, run_cli) -> None:
    lobby = game.peers[0].replica.applied
    root = tmp_path / "data"
    store_in_data_dir(root, lobby[:[e.kind for e in lobby].index("lobby.seat")])
    code, doc = run_json(run_cli, "log", "verify", TABLE_HEX, "--data-dir", str(root))
    assert code == 3 and doc["started"] is False and doc["game"] is None
    assert doc["summary"] == "not started: the players were never seated"
    code, doc = run_json(run_cli, "log", "show", TABLE_HEX, "--data-dir", str(root))
    assert code == 0 and doc["turns"] == [] and doc["deck"] is None and doc["numbers"] is None



def test_a_seed_blaming_an_honest_player_is_its_authors_unsupported_claim(
        tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Issue 29 case 6: the verdict vector's log where p1's seed blames p0. The text output
    shows it as p1's claim, unsupported by the log, and so does the JSON document."""
    from hanabi_p2p.log.entry import decode_entry

    vector = json.loads((Path(__file__).resolve().parents[2] / "protocol" / "vectors"
                         / "verdicts" / "verdicts-v1.json").read_text(encoding="utf-8"))
    case = next(c for c in vector["cases"] if c["name"] == "a seed blaming an honest player")
    drop = set(case["drop"])
    entries = [decode_entry(bytes.fromhex(h)) for h in vector["bases"][case["base"]]]
    entries = [e for e in entries if e.hash.hex() not in drop]
    entries += [decode_entry(bytes.fromhex(h)) for h in case["add"]]
    path = write_log(tmp_path / "game.hlog", entries, bytes.fromhex(vector["table_id"]))
    p0, p1 = (vector["identities"][name]["fingerprint"] for name in ("p0", "p1"))
    code, doc = run_json(run_cli, "log", "verify", str(path))
    assert code == 0 and doc["verdict"] == "valid"
    assert doc["claims"] == [{"author": p1, "reason": "p0 refused by the game: wrong-key",
                              "blame": p0, "supported": False}]
    text = run_cli("log", "verify", str(path))
    claims = [line for line in text.lines if line.startswith("claim: ")]
    assert len(claims) == 1 and claims[0].startswith(f"claim: p1 ({p1}) stopped the game, "
                                                     "saying: p0 refused by the game")
    assert claims[0].endswith(f"(the log does not support it: nothing in it proves a fault "
                              f"of p0 ({p0}))")
