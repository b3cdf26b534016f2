"""`hanabi-p2p log list/show/verify/export` on real stored games (played by the session
harness, stored as each peer's node stores them)."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from game_files import TABLE_ID, TABLE_NAME, join_records, split_records, store_in_data_dir
from session_harness import Table

from hanabi_p2p import i18n
from hanabi_p2p.commands.log import LIST_COLUMNS, MIN_GAMES_FOR_WORKERS, list_lines
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.rules.stats import stats_of_state
from hanabi_p2p.session.verify import Verdict
from hanabi_p2p.ui.summary import efficiency_text
from hanabi_p2p.verdict_cache import LIST_ID_CHARS, ListRow, verdict_path

# whole signed games verified, shown or listed: too slow for the fast tier
pytestmark = pytest.mark.slow

TABLE_HEX = TABLE_ID.hex()


def test_verify_of_a_finished_game_exits_0_with_the_summary(game: Table, data_dir: Path,
                                                            run_cli) -> None:
    state = game.peers[0].session.state
    result = run_cli("log", "verify", TABLE_HEX, "--data-dir", str(data_dir))
    assert result.code == 0, result.out
    assert result.lines[0] == f"valid: 3 players, standard, score {state.score} ({state.rating})"
    assert "deck audit: ok, 50 cards" in result.lines
    assert result.lines[-1].startswith("digest: ")
    assert len(result.lines[-1].removeprefix("digest: ")) == 64


def test_verify_counts_one_entry_and_one_author_in_the_singular(game: Table, tmp_path: Path,
                                                                run_cli) -> None:
    # a table its host opened and nobody joined: one entry, by one author
    root = tmp_path / "data"
    store_in_data_dir(root, game.peers[0].replica.applied[:1])
    result = run_cli("log", "verify", TABLE_HEX, "--data-dir", str(root))
    assert result.code == 3, result.out  # unfinished: nothing wrong, no game either
    assert any(line.startswith("checked: 1 entry from 1 author (") for line in result.lines)


def test_every_peers_copy_gives_the_same_digest(game: Table, tmp_path: Path, run_cli) -> None:
    """Each peer stored the entries in the order it applied them: different files, one game."""
    files = [store_in_data_dir(tmp_path / f"peer{i}", p.replica.applied)
             for i, p in enumerate(game.peers)]
    assert len({f.read_bytes() for f in files}) == len(files)  # the copies really differ
    outputs = [run_cli("log", "verify", str(f)) for f in files]
    assert [o.code for o in outputs] == [0, 0, 0]
    assert len({o.lines[0] for o in outputs}) == 1
    assert len({o.lines[-1] for o in outputs}) == 1


def test_reordered_records_verify_with_the_same_digest(game_file: Path, run_cli) -> None:
    before = run_cli("log", "verify", str(game_file))
    prefix, payloads = split_records(game_file)
    random.Random(5).shuffle(payloads)
    join_records(game_file, prefix, payloads)
    after = run_cli("log", "verify", str(game_file))
    assert after.code == 0
    assert after.lines == before.lines


def test_a_unique_prefix_of_the_table_id_names_the_game(data_dir: Path, run_cli) -> None:
    assert run_cli("log", "verify", TABLE_HEX[:4], "--data-dir", str(data_dir)).code == 0


def test_an_ambiguous_or_unknown_id_is_a_one_line_error(data_dir: Path, game_file: Path,
                                                        run_cli) -> None:
    twin = game_file.with_name(TABLE_HEX[:6] + "ff" * 13 + ".hlog")
    twin.write_bytes(game_file.read_bytes())
    ambiguous = run_cli("log", "show", TABLE_HEX[:4], "--data-dir", str(data_dir))
    assert ambiguous.code == 2 and "matches 2 games" in ambiguous.err
    unknown = run_cli("log", "verify", "abcdef", "--data-dir", str(data_dir))
    assert unknown.code == 2 and "no game with a table id starting 'abcdef'" in unknown.err
    assert len(unknown.err.splitlines()) == 1
    missing = run_cli("log", "verify", str(data_dir / "nope.hlog"))
    assert missing.code == 2 and "no game log at" in missing.err


def test_show_tells_the_game_turn_by_turn_with_a_check_per_signature(
    game: Table, data_dir: Path, run_cli
) -> None:
    result = run_cli("log", "show", TABLE_HEX, "--data-dir", str(data_dir))
    assert result.code == 0
    turns = [line for line in result.lines if line.lstrip("✓ ").startswith("turn ")]
    state = game.peers[0].session.state
    assert len(turns) == state.turn
    # the action and the two other players' acks: three signatures behind every turn
    assert all(line.startswith("✓✓✓  turn") for line in turns)
    assert turns[0].split()[3] == "p0"  # seat 0 moves first
    assert any(f"p0 ({game.peers[0].identity.fingerprint}) opens the table '{TABLE_NAME}': "
               "3 players, standard" in line for line in result.lines)
    assert any(line.endswith("Deck audit passed: every card matches the shuffle")
               for line in result.lines)
    # the rows of ✓ are explained before the story starts
    assert result.lines[1] == ("✓ a signature checked behind the line (the player who acted, "
                               "then each player who acknowledged it); ✗ an entry refused; ? "
                               "an action that could not be checked")


def test_show_gives_the_game_in_numbers_and_pictures(game: Table, data_dir: Path,
                                                    run_cli) -> None:
    state = game.peers[0].session.state
    stats = stats_of_state(state, game.peers[0].session.audit.faces)
    assert stats is not None
    result = run_cli("log", "show", TABLE_HEX, "--data-dir", str(data_dir))
    assert result.code == 0
    start = result.lines.index("The game in numbers")
    header, *rows = result.lines[start + 1 : start + 3 + state.config.players]
    assert header.split()[-5:] == ["Clues", "Plays", "Misplays", "Discards", "Efficiency"]
    for seat, (row, tally) in enumerate(zip(rows, stats.players, strict=False)):
        assert row.split()[:2] == [str(seat + 1), f"p{seat}"]
        assert row.split()[-5:-1] == [str(tally.clues), str(tally.plays), str(tally.misplays),
                                      str(tally.discards)]
    table = stats.table
    assert rows[-1].split()[:5] == ["Table", str(table.clues), str(table.plays),
                                    str(table.misplays), str(table.discards)]
    assert result.lines[start + 3 + state.config.players].startswith(
        f"Efficiency {efficiency_text(stats.efficiency)}: {stats.cards_gotten} cards gotten")
    # the charts, each under its label with its scale, and the timeline
    for label in (f"Score (last {state.score})", f"Clue tokens (last {state.clue_tokens})",
                  "Turns (✖ misplay  ◆ save)"):
        assert label in result.lines
    assert all(len(line) <= 80 for line in result.lines[start:] if "│" in line)


def test_show_tells_the_story_in_the_language_asked(data_dir: Path, run_cli) -> None:
    english = run_cli("log", "show", TABLE_HEX, "--data-dir", str(data_dir), "--lang", "en")
    try:
        italian = run_cli("log", "show", TABLE_HEX, "--data-dir", str(data_dir), "--lang", "it")
    finally:
        i18n.setup("en")  # (in-process: the tests after this one read English)
    assert italian.code == english.code == 0
    assert len(italian.lines) == len(english.lines)
    # the story in the narrator's Italian, as the table says it...
    assert any(" gioca " in line for line in italian.lines)
    assert not any(" plays " in line for line in italian.lines)
    assert any("apre il tavolo" in line for line in italian.lines)
    # ...and the verdict and digest, read by programs, the same in both
    assert italian.lines[-1] == english.lines[-1] and italian.lines[-1].startswith("digest: ")


def test_show_reveals_every_face_after_the_audit(game: Table, data_dir: Path, run_cli) -> None:
    faces = game.peers[0].session.audit.faces
    result = run_cli("log", "show", TABLE_HEX, "--data-dir", str(data_dir))
    hands = [line.strip() for line in result.lines if "'s hand: " in line]
    assert len(hands) == 3 and hands[0].startswith("p0's hand: ")
    deck_rows = result.out.split("every card after the audit")[1].split("\n\n")[0]
    shown = {int(p): face for p, face in re.findall(r"(\d+):([A-Z]\d)", deck_rows)}
    assert shown == {p: str(face) for p, face in faces.items()}


def test_export_round_trips_through_replay_with_the_same_score(
    game: Table, data_dir: Path, tmp_path: Path, run_cli
) -> None:
    out = tmp_path / "game.json"
    exported = run_cli("log", "export", TABLE_HEX, "--format", "hanablive", "-o", str(out),
                       "--data-dir", str(data_dir))
    assert exported.code == 0 and exported.out == ""
    replayed = run_cli("replay", str(out), "--json")
    assert replayed.code == 0
    summary = json.loads(replayed.lines[-1])
    state = game.peers[0].session.state
    assert summary["score"] == state.score
    assert summary["turns"] == state.turn
    assert summary["end"] == state.end.value
    assert summary["names"] == ["p0", "p1", "p2"]


def test_export_to_stdout_is_the_same_json(data_dir: Path, tmp_path: Path, run_cli) -> None:
    out = tmp_path / "game.json"
    run_cli("log", "export", TABLE_HEX, "-o", str(out), "--data-dir", str(data_dir))
    stdout = run_cli("log", "export", TABLE_HEX, "--data-dir", str(data_dir))
    assert json.loads(stdout.out) == json.loads(out.read_text())


def test_export_refuses_an_unfinished_game(game: Table, tmp_path: Path, run_cli) -> None:
    path = store_in_data_dir(tmp_path, game.peers[0].replica.applied[:100])
    result = run_cli("log", "export", str(path))
    assert result.code == 2
    assert "cannot export this game: unfinished" in result.err


def test_list_shows_date_table_players_variant_and_score(game: Table, data_dir: Path,
                                                         run_cli) -> None:
    unfinished = DataDir(data_dir).games_dir / ("ab" * 16 + ".hlog")
    from game_files import write_log
    write_log(unfinished, game.peers[1].replica.applied[:80])
    result = run_cli("log", "list", "--data-dir", str(data_dir))
    assert result.code == 0
    header, first, second = result.lines
    assert header.split() == ["DATE", "TABLE", "NAME", "PLAYERS", "VARIANT", "SCORE"]
    state = game.peers[0].session.state
    assert TABLE_HEX[:LIST_ID_CHARS] in first and TABLE_NAME in first and "p0, p1, p2" in first
    assert "standard" in first and first.endswith(f"{state.score} ({state.rating})")
    assert second.startswith("20") and second.endswith("unfinished")


def test_games_followed_with_watch_are_listed_and_found_by_id(game: Table, tmp_path: Path,
                                                               run_cli) -> None:
    # `watch` keeps its log in <data>/watching/games: `log list` said "no games" and
    # `log verify ID` did not find it, though the README says it checks it like any other
    root = tmp_path / "data"
    watched = store_in_data_dir(root / "watching", game.peers[1].replica.applied)
    listed = run_cli("log", "list", "--data-dir", str(root))
    assert listed.code == 0 and listed.lines[0] == f"watched (in {watched.parent}):"
    assert TABLE_HEX[:LIST_ID_CHARS] in listed.lines[2]
    shown = run_cli("log", "show", TABLE_HEX[:6], "--data-dir", str(root))
    assert shown.code == 0 and shown.lines[0].startswith(str(watched))
    # a game both played and watched: listed in both places, named by the player's copy
    played = store_in_data_dir(root, game.peers[0].replica.applied)
    both = run_cli("log", "list", "--data-dir", str(root))
    assert [line.startswith("DATE") for line in both.lines].count(True) == 2
    assert both.lines[both.lines.index("") + 1] == f"watched (in {watched.parent}):"
    again = run_cli("log", "show", TABLE_HEX[:6], "--data-dir", str(root))
    assert again.lines[0].startswith(str(played))


def test_list_of_an_empty_data_dir_says_so(tmp_path: Path, run_cli) -> None:
    result = run_cli("log", "list", "--data-dir", str(tmp_path))
    assert result.code == 0 and result.out.startswith("no games in ")


@pytest.mark.process
def test_verify_in_a_subprocess_uses_the_environment_data_dir(data_dir: Path) -> None:
    env = {"HANABI_P2P_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "hanabi_p2p", "log", "verify", TABLE_HEX[:8]],
                          capture_output=True, text=True, env=env, timeout=60, check=False,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("valid: 3 players, standard, score ")
    assert proc.stdout.splitlines()[-1].startswith("digest: ")


def test_show_never_sends_control_characters_to_the_terminal(game: Table, tmp_path: Path,
                                                             run_cli) -> None:
    """Peer text reaches the screen: a C1 control (CSI) in a chat line is shown as '?'."""
    from hanabi_p2p.log.entry import make_entry

    peer = game.peers[1]
    stored = list(game.peers[0].replica.applied)
    last = max((e for e in stored if e.author == peer.identity.peer_id), key=lambda e: e.seq)
    chat = make_entry(peer.identity, table_id=last.table_id, seq=last.seq + 1, prev=last.hash,
                      turn=last.turn, kind="chat", body={"text": "gg \x9b2J\u202e"})
    path = store_in_data_dir(tmp_path, [*stored, chat])
    result = run_cli("log", "show", str(path))
    assert result.code == 0
    assert "p1 says: gg ?2J?" in result.out
    assert not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) < 0xA0 for c in result.out)


# ---- `log list`: a verdict cached beside each log, the table in 80 columns (issue 13, 12.17)


def test_list_caches_the_verdict_beside_the_log_and_uses_it(game_file: Path, data_dir: Path,
                                                            run_cli) -> None:
    first = run_cli("log", "list", "--data-dir", str(data_dir))
    cache = verdict_path(game_file)
    assert cache.is_file()
    # Changing only the cached row changes what `list` shows: the log was not checked again.
    record = json.loads(cache.read_text(encoding="utf-8"))
    record["row"]["score"], record["row"]["rating"] = 99, "cached"
    cache.write_text(json.dumps(record), encoding="utf-8")
    second = run_cli("log", "list", "--data-dir", str(data_dir))
    assert first.lines[1].endswith(")") and second.lines[1].endswith("99 (cached)")
    # `verify` is always the full check, and rewrites the cache with the truth.
    assert run_cli("log", "verify", str(game_file)).code == 0
    assert run_cli("log", "verify", TABLE_HEX, "--data-dir", str(data_dir)).code == 0
    assert run_cli("log", "list", "--data-dir", str(data_dir)).lines == first.lines


def test_a_changed_log_is_checked_again(game: Table, game_file: Path, data_dir: Path,
                                        run_cli) -> None:
    prefix, payloads = split_records(game_file)
    whole = game_file.read_bytes()
    join_records(game_file, prefix, payloads[:80])
    assert run_cli("log", "list", "--data-dir", str(data_dir)).lines[1].endswith("unfinished")
    game_file.write_bytes(whole)  # the rest of the game arrives
    state = game.peers[0].session.state
    assert run_cli("log", "list", "--data-dir", str(data_dir)).lines[1].endswith(
        f"{state.score} ({state.rating})")


def test_a_damaged_cache_is_ignored(game: Table, game_file: Path, data_dir: Path,
                                    run_cli) -> None:
    expected = run_cli("log", "list", "--data-dir", str(data_dir)).lines
    for junk in (b"", b"{", b"[1, 2]", b'{"format": 1, "key": 3, "row": {}}', b"\xff" * 99):
        verdict_path(game_file).write_bytes(junk)
        assert run_cli("log", "list", "--data-dir", str(data_dir)).lines == expected


def test_list_says_which_command_explains_an_invalid_game(game_file: Path, data_dir: Path,
                                                          run_cli) -> None:
    prefix, payloads = split_records(game_file)
    join_records(game_file, prefix, [payloads[0], payloads[0][:-1] + b"x", *payloads[1:]])
    result = run_cli("log", "list", "--data-dir", str(data_dir))
    assert result.lines[1].endswith("INVALID")
    table = TABLE_HEX[:LIST_ID_CHARS]
    assert result.lines[-1] == f"INVALID: 'hanabi-p2p log verify {table}' says why"


def test_list_fits_80_columns_with_5_long_names() -> None:
    names = ("Alexandrina", "Bartholomew", "Constantine", "Dagoberta", "Evangeline 2")
    rows = [
        ListRow(1_700_000_000, "ab" * 16, "Friday night at the club", names,
                "rainbow + empty_clues + choreography", Verdict.VALID, 24, "legendary"),
        ListRow(1_700_000_100, "cd" * 16, "t", names[:2], "standard", Verdict.UNFINISHED),
        ListRow(1_700_000_200, "ef" * 16, "", names, "multicolor-short", Verdict.INVALID),
    ]
    lines = list_lines(rows)
    assert max(len(line) for line in lines) <= LIST_COLUMNS
    assert lines[0].split() == ["DATE", "TABLE", "NAME", "VARIANT", "SCORE"]
    games = [line for line in lines[1:] if line.startswith("2023-11-")]
    for row, line in zip(rows, games, strict=True):
        assert row.table[:LIST_ID_CHARS] in line and line.endswith(row.score_text())
        shown = lines[lines.index(line) + 1 :]
        who = " ".join(shown[: next((i for i, x in enumerate(shown) if x in games), None)])
        assert " ".join(who.split()) == "players: " + ", ".join(row.players)  # never cut
    # what fits stays on one line, uncut
    short = list_lines(rows[1:2])
    assert len(short) == 2
    assert short[0].split() == ["DATE", "TABLE", "NAME", "PLAYERS", "VARIANT", "SCORE"]
    assert "Alexandrina, Bartholomew" in short[1] and "…" not in short[1]


def test_an_unreadable_file_says_why_on_its_own_line_and_leaves_the_other_rows_alone() -> None:
    # its reason used to be the SCORE cell: too wide to fit, it pushed every game's players
    # onto lines of their own, was cut ("unreadable: not…") and left an empty "players:"
    problem = "not a hanabi-p2p game log (bad magic)"
    game = ListRow(1_700_000_100, "cd" * 16, "t", ("Ann", "Bob"), "standard",
                   Verdict.UNFINISHED)
    broken = ListRow(None, "notes", "", (), "", None, problem=problem)
    lines = list_lines([game, broken])
    assert max(len(line) for line in lines) <= LIST_COLUMNS
    assert lines[0].split() == ["DATE", "TABLE", "NAME", "PLAYERS", "VARIANT", "SCORE"]
    assert "Ann, Bob" in lines[1] and lines[1].endswith("unfinished")
    assert lines[2].split() == ["?", "notes", "unreadable"]
    assert lines[3].strip() == problem and len(lines) == 4


# ---- `log verify` on files that are not game logs (issue 12, item 17)


def test_verify_of_a_file_that_is_no_log_is_one_line(tmp_path: Path, run_cli) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    result = run_cli("log", "verify", str(passwd))
    assert result.code == 2 and result.out == ""
    assert result.err.splitlines() == [
        f"hanabi-p2p log verify: error: {passwd} is not a hanabi-p2p game log"]


def test_verify_of_a_hanablive_file_points_to_replay(tmp_path: Path, run_cli) -> None:
    exported = tmp_path / "game.json"
    exported.write_text('{"players": ["a", "b"], "deck": [], "actions": []}')
    result = run_cli("log", "show", str(exported))
    assert result.code == 2 and result.out == ""
    assert len(result.err.splitlines()) == 1
    assert f"hanabi-p2p replay {exported}" in result.err



@pytest.mark.process
def test_many_new_games_are_checked_in_parallel_with_the_same_rows(
    game_file: Path, data_dir: Path, run_cli
) -> None:
    single = run_cli("log", "list", "--data-dir", str(data_dir)).lines
    for index in range(MIN_GAMES_FOR_WORKERS):
        copy = game_file.with_name(f"{index:032x}.hlog")
        copy.write_bytes(game_file.read_bytes())
    verdict_path(game_file).unlink()
    many = run_cli("log", "list", "--data-dir", str(data_dir))
    assert "checking 5 games not listed before" in many.err
    assert all(verdict_path(p).is_file() for p in DataDir(data_dir).game_files())
    assert len(many.lines) == 1 + 5 * (len(single) - 1)
    assert {line[len("2023-11-14 22:13  ") + LIST_ID_CHARS:] for line in many.lines[1:]} == {
        line[len("2023-11-14 22:13  ") + LIST_ID_CHARS:] for line in single[1:]}
    assert run_cli("log", "list", "--data-dir", str(data_dir)).lines == many.lines  # cached


def test_a_table_that_never_started_is_listed_and_shown_as_such(game: Table, tmp_path: Path,
                                                               run_cli) -> None:
    """A lobby that timed out or was left keeps its log (the table opened, who asked to
    sit): it was listed as 'unfinished', like a game stopped half-way, and `log show` of it
    exited 1, though there is nothing wrong in it and nothing more to wait for."""
    lobby = game.peers[0].replica.applied
    seated = [entry.kind for entry in lobby].index("lobby.seat")
    root = tmp_path / "data"
    store_in_data_dir(root, lobby[:seated])  # the table opened, two asked to sit; no more
    listed = run_cli("log", "list", "--data-dir", str(root))
    assert listed.code == 0 and len(listed.lines) == 2
    assert TABLE_NAME in listed.lines[1] and listed.lines[1].endswith("standard  not started")
    shown = run_cli("log", "show", TABLE_HEX[:8], "--data-dir", str(root))
    assert shown.code == 0, shown.out
    assert "the host opens the table 'test table': 3 players, standard" in shown.out
    summary = shown.lines[shown.lines.index("") + 1]
    assert summary == "not started: the players were never seated"
    assert "deck audit" not in shown.out  # no deck was ever made
    # verify answers whether this is a whole, audited game: it is not, nor is it invalid
    verified = run_cli("log", "verify", TABLE_HEX[:8], "--data-dir", str(root))
    assert verified.code == 3 and verified.lines[0] == summary
    replayed = run_cli("log", "replay", TABLE_HEX[:8], "--data-dir", str(root))
    assert replayed.code == 1
    assert replayed.err == f"hanabi-p2p log replay: error: cannot replay this game: {summary}\n"
