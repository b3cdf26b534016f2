"""`log verify` of a game its players ended by agreement (SPEC 5.3 `abandon`, 5.7): valid,
said so on the first line ("valid (abandoned by agreement at turn N): ..."), exit status 0
as for any finished game, the same for every copy."""

from __future__ import annotations

from pathlib import Path

from game_files import store_in_data_dir
from session_harness import Table, bot_action

from hanabi_p2p.rules.cards import GameConfig


def _abandoned_game(turns: int) -> Table:
    table = Table(GameConfig(3), seed=11)
    table.seat_everyone()
    for _ in range(turns):
        actor = next(p for p in table.peers if p.session.can_act())
        actor.session.take_action(bot_action(actor.session))  # type: ignore[arg-type]
        table.pump()
    for p in table.peers:
        p.session.abandon()
        table.flush(p)
        table.pump()
    return table


def test_log_verify_of_an_abandoned_game_is_valid_abandoned_with_exit_status_0(
        tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    table = _abandoned_game(turns=4)
    state = table.peers[0].session.state
    assert state is not None and table.peers[0].session.abandoned_at == 4
    outputs = []
    for i, p in enumerate(table.peers):
        assert p.session.audit is not None and p.session.audit.ok
        path = store_in_data_dir(tmp_path / f"peer{i}", p.replica.applied)
        result = run_cli("log", "verify", str(path))
        assert result.code == 0, result.out
        assert result.lines[0] == (f"valid (abandoned by agreement at turn 5): 3 players, "
                                   f"standard, score {state.score} ({state.rating})")
        outputs.append(result.lines)
    assert all(lines == outputs[0] for lines in outputs)
    shown = run_cli("log", "show", str(path))
    assert shown.code == 0
    assert any("asks to end the game by agreement" in line for line in shown.lines)
    assert any("Every player agreed: the game ends here, at turn 5" in line
               for line in shown.lines)


def test_log_verify_json_names_the_turn_of_the_agreement(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    import json

    table = _abandoned_game(turns=2)
    path = store_in_data_dir(tmp_path / "peer0", table.peers[0].replica.applied)
    result = run_cli("log", "verify", str(path), "--json")
    assert result.code == 0
    doc = json.loads(result.out)
    assert doc["verdict"] == "valid" and doc["game"]["abandoned_at"] == 3
    assert doc["summary"].startswith("valid (abandoned by agreement at turn 3)")
