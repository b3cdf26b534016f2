"""The full-screen front end on a live peer: a real table over loopback, keys through a pipe.

The App, our peer and a computer player (a second real peer with its own key) share one
event loop, as in `hanabi-p2p play`; only the terminal is replaced (pipe in, DummyOutput).
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.errors import UserError, UserLeft
from hanabi_p2p.frontends import screen as screen_module
from hanabi_p2p.frontends.launch import GameResult, Peer, PeerOptions, host_table
from hanabi_p2p.frontends.screen import ScreenFrontend
from hanabi_p2p.log.storage import load
from hanabi_p2p.peer.node import Timing
from hanabi_p2p.rules.actions import Discard
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.ui.text import plain
from hanabi_p2p.ui.view import EndView, TableView

pytestmark = [pytest.mark.socket, pytest.mark.timeout(60)]

# Bound on every wait below; a step that never happens fails its test's assertion instead.
WAIT_S = 15.0


@dataclass
class Table:
    front: ScreenFrontend
    pipe: PipeInput

    @property
    def peer(self) -> Peer:
        assert self.front.peer is not None
        return self.front.peer

    def screen(self) -> str:
        assert self.front.app is not None
        return "\n".join(plain(line) for line in self.front.app.screen_lines())

    def message(self) -> str:
        assert self.front.app is not None
        return self.front.app.message

    def type(self, text: str) -> None:
        self.pipe.send_text(text + "\r")

    def my_entries(self) -> int:
        node = self.peer.node
        assert node is not None
        return node.replica.next_seq(self.peer.identity.peer_id)


async def until(condition: Callable[[], bool]) -> bool:
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def my_turn(table: Table) -> bool:
    view = table.front.app.view if table.front.app else None
    return (
        table.front.peer is not None
        and isinstance(view, TableView)
        and table.peer.session.can_act()
        and "Your turn" in table.screen()
    )


Script = Callable[[Table], Coroutine[Any, Any, None]]


def play_against_a_bot(tmp_path: Path, script: Script) -> tuple[GameResult, ScreenFrontend, str]:
    """Host a 2-player table with one computer player; `script` types for us."""
    err = io.StringIO()
    with create_pipe_input() as pipe:
        front = ScreenFrontend("en", input=pipe, output=DummyOutput(), err=err)
        opts = PeerOptions(
            name="Ann",
            data_dir=DataDir(tmp_path),
            interface="127.0.0.1",
            advertise=False,
            timing=Timing(linger=0.2),
        )

        async def main() -> GameResult:
            typing = asyncio.create_task(script(Table(front, pipe)))
            result = await front.run(
                lambda: host_table(opts, "test table", GameConfig(2), front, bots=1)
            )
            await typing
            return result

        result = asyncio.run(main())
    return result, front, err.getvalue()


def entry_kinds(path: Path) -> list[str]:
    return [entry.kind for entry in load(path).entries]


def test_a_whole_game_on_the_screen(tmp_path: Path) -> None:
    seen: dict[str, object] = {}

    async def script(table: Table) -> None:
        assert await until(lambda: my_turn(table))
        seen["table"] = table.screen()
        # an illegal command: refused with its reason, nothing signed, still our turn
        before = table.my_entries()
        table.type("discard 1")
        assert await until(lambda: "clue tokens" in table.message())
        seen["refused"] = table.message()
        seen["entries_unchanged"] = table.my_entries() == before
        seen["still_my_turn"] = my_turn(table) and table.peer.session.turn == 0
        # past the App's own checks (as from a stale screen): the session has the last word
        state = table.peer.session.state
        assert state is not None
        table.front.on_action(Discard(0, state.hands[0][0]))
        seen["refused_by_session"] = table.message()
        seen["still_unchanged"] = table.my_entries() == before and my_turn(table)
        table.type("say good luck")
        # a private note, kept on disk beside the game's secrets
        table.type("note 2 keep me")
        assert await until(lambda: "Note kept" in table.message())
        # then play the leftmost card every turn: three misplays at most end the game
        while not isinstance(table.front.app.view if table.front.app else None, EndView):
            if my_turn(table):
                turn = table.peer.session.turn
                table.type("play 1")
                await until(lambda: table.peer.session.turn != turn)  # noqa: B023 (awaited here)
            await asyncio.sleep(0.01)
        assert await until(lambda: "Audit passed" in table.screen())
        seen["end"] = table.screen()
        # once our peer has stopped, table talk has nowhere to go: said, not crashed
        assert await until(lambda: table.front.peer_done)
        table.type("say gg")
        assert await until(lambda: "table is closed" in table.message())
        table.type("quit")

    result, front, err = play_against_a_bot(tmp_path, script)

    assert "bot1" in str(seen["table"]) and "You (Ann)" in str(seen["table"])
    # the computer player runs on Ann's machine, and the table says so
    assert "bot1 ⚙Ann" in str(seen["table"])
    assert seen["refused"] == "✖ discard 1: you cannot discard: all 8 clue tokens are available"
    assert seen["entries_unchanged"] and seen["still_my_turn"]
    assert "clue tokens" in str(seen["refused_by_session"]) and seen["still_unchanged"]
    end = str(seen["end"])
    assert "Game over" in end and "Score" in end
    # (an 80-column screen cuts a long path short)
    assert f"Log saved to {str(result.log_path)[:50]}" in end
    assert result.ok and result.audit_ok and result.failure is None
    assert any("Ann says: good luck" in line for line in front.log)
    assert any(line.startswith("Ann plays") for line in front.log)
    assert front.log[-1] == "Deck audit passed: every card matches the shuffle"
    notes = list((tmp_path / "private").glob("*.notes.json"))
    assert len(notes) == 1 and "keep me" in notes[0].read_text()
    assert not front.left_game and err == ""
    assert front.app is not None and front.app.bells >= 1  # our turns rang the bell


def test_quitting_mid_game_leaves_without_resigning(tmp_path: Path) -> None:
    async def script(table: Table) -> None:
        assert await until(lambda: my_turn(table))
        table.type("quit")
        # asked once, with the way back
        assert await until(lambda: "come back with: hanabi-p2p join --resume" in table.message())
        table.type("quit")

    result, front, err = play_against_a_bot(tmp_path, script)
    assert result.failure == "you left the game"
    assert front.left_game
    assert "Come back with: hanabi-p2p join --resume" in err
    assert "resign" not in entry_kinds(result.log_path)


def test_a_practice_game_offers_no_way_back(tmp_path: Path) -> None:
    async def script(table: Table) -> None:
        table.front.resume_command = None
        assert table.front.app is not None
        table.front.app.resume_command = None
        assert await until(lambda: my_turn(table))
        table.type("quit")
        assert await until(lambda: "cannot be resumed" in table.message())
        table.type("quit")

    result, _front, err = play_against_a_bot(tmp_path, script)
    assert result.failure == "you left the game"
    assert err == ""


def test_a_bug_in_drawing_the_table_ends_the_screen_with_that_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen is rebuilt by a task of its own group: a bug there closes the screen, our
    peer stops the orderly way (its log kept) and the error comes out of `run`. (As a loop
    callback, the error was only printed and the screen froze while the game went on.)"""
    real_live_view = screen_module.live_view

    def live_view_with_a_bug(*args: Any, **kwargs: Any) -> object:
        view = real_live_view(*args, **kwargs)
        if isinstance(view, TableView):
            raise RuntimeError("a bug in drawing the table")
        return view

    monkeypatch.setattr(screen_module, "live_view", live_view_with_a_bug)

    async def script(table: Table) -> None:
        pass  # nothing typed: the bug is met as soon as the dealt table is drawn

    with pytest.raises(RuntimeError, match="a bug in drawing the table"):
        play_against_a_bot(tmp_path, script)
    [log_path] = (tmp_path / "games").glob("*")
    assert "deck" in entry_kinds(log_path)  # the game so far is kept, to resume


def test_a_peer_that_cannot_start_closes_the_screen_and_says_why() -> None:
    async def cannot_join() -> GameResult:
        raise UserError("cannot join the table at 10.0.0.9:7301: the table is full")

    with create_pipe_input() as pipe:
        front = ScreenFrontend("en", input=pipe, output=DummyOutput())
        with pytest.raises(UserError, match="the table is full"):
            asyncio.run(front.run(cannot_join))
    assert front.app is not None and not front.app.application.is_running


def test_quitting_while_still_looking_for_the_table_stops_looking() -> None:
    looking = asyncio.Event()
    stopped: list[bool] = []

    async def browse_forever() -> GameResult:
        looking.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            stopped.append(True)
            raise
        raise AssertionError("unreachable")

    with create_pipe_input() as pipe:
        front = ScreenFrontend("en", input=pipe, output=DummyOutput())

        async def main() -> None:
            run = asyncio.create_task(front.run(browse_forever))
            await looking.wait()
            assert await until(lambda: front.app is not None and front.app.application.is_running)
            pipe.send_text("quit\r")
            await run

        with pytest.raises(UserLeft, match="you left before sitting down"):
            asyncio.run(main())
    assert stopped == [True]


def test_a_lobby_that_ends_closes_the_screen_and_says_why(tmp_path: Path) -> None:
    """Nobody sat down before the lobby timed out (or the host removed us): no game, so no
    end screen that would look like a lobby still waiting; the screen closes by itself and
    the result says why, for the program to print."""
    with create_pipe_input() as pipe:
        front = ScreenFrontend("en", input=pipe, output=DummyOutput(), err=io.StringIO())
        opts = PeerOptions(name="Ann", data_dir=DataDir(tmp_path), interface="127.0.0.1",
                           advertise=False, timing=Timing(lobby_timeout=0.5, linger=0.2))

        async def main() -> GameResult:
            return await asyncio.wait_for(front.run(
                lambda: host_table(opts, "empty table", GameConfig(3), front)), WAIT_S)

        result = asyncio.run(main())
    assert result.failure is not None and "did not fill" in result.failure
    assert not result.table_code and front.peer_done
