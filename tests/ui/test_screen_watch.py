"""A spectator's full-screen table on a live game, and the player's screen naming it.

Real peers over loopback on one event loop (as in test_screen_live): Ann plays on her
screen against two computer players at a table opened with `--spectators`; Eve arrives
after the deal with `watch --address`, on a screen of her own; only the terminals are
replaced (pipe in, DummyOutput). Eve's keys come through her pipe; Ann's lines are handed
to her App directly (two applications on one loop: keys reach only the one started last).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.frontends.launch import GameResult, PeerOptions, host_table, watch_address
from hanabi_p2p.frontends.screen import ScreenFrontend
from hanabi_p2p.peer.node import Timing
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import TableOption
from hanabi_p2p.ui.text import plain
from hanabi_p2p.ui.view import EndView, TableView, WatchView

pytestmark = [pytest.mark.socket, pytest.mark.timeout(90)]

WAIT_S = 20.0
LOOPBACK = "127.0.0.1"


async def until(condition: object) -> bool:
    assert callable(condition)
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def screen(front: ScreenFrontend) -> str:
    assert front.app is not None
    return "\n".join(plain(line) for line in front.app.screen_lines())


def options(tmp_path: Path, name: str) -> PeerOptions:
    return PeerOptions(name=name, data_dir=DataDir(tmp_path / name), interface=LOOPBACK,
                       advertise=False, timing=Timing(linger=0.2))


def test_a_late_spectator_watches_on_its_screen_and_the_player_sees_it_watching(
    tmp_path: Path,
) -> None:
    seen: dict[str, str] = {}
    with create_pipe_input() as ann_keys, create_pipe_input() as eve_keys:
        ann = ScreenFrontend("en", input=ann_keys, output=DummyOutput(), bot_delay=0.0)
        eve = ScreenFrontend("en", input=eve_keys, output=DummyOutput(), resume_command=None)
        host_opts = options(tmp_path, "Ann")
        host_opts.table_options = frozenset({TableOption.SPECTATORS})

        def ann_view() -> object:
            return ann.app.view if ann.app is not None else None

        def eve_view() -> object:
            return eve.app.view if eve.app is not None else None

        def anns_turn() -> bool:
            return (ann.peer is not None and isinstance(ann_view(), TableView)
                    and ann.peer.session.can_act())

        async def watching() -> GameResult:
            assert await until(anns_turn)  # the game is on: Eve comes late
            assert ann.peer is not None
            host, port = ann.peer.address.rsplit(":", 1)
            return await eve.run(lambda: watch_address(options(tmp_path, "Eve"), host,
                                                       int(port), eve))

        async def ann_plays() -> None:
            assert await until(anns_turn)
            assert await until(lambda: isinstance(eve_view(), WatchView)
                               and "?? " not in screen(eve).split("────")[0])
            assert await until(lambda: any("Eve" in line and "is watching" in line
                                           for line in ann.log))
            seen["ann_table"] = screen(ann)
            seen["eve_table"] = screen(eve)
            eve_keys.send_text("play 1\r")
            assert await until(lambda: "you are watching" in (eve.app.message if eve.app
                                                              else ""))
            seen["eve_refused"] = eve.app.message if eve.app else ""
            while not isinstance(ann_view(), EndView):
                if anns_turn():
                    assert ann.peer is not None
                    turn = ann.peer.session.turn
                    # typed straight into Ann's App: two prompt_toolkit applications in
                    # one loop share one key processor, and the keys go to the last one
                    assert ann.app is not None
                    ann.app.handle_text("play 1")
                    await until(lambda: ann.peer is not None
                                and ann.peer.session.turn != turn)  # noqa: B023
                await asyncio.sleep(0.01)
            assert await until(lambda: isinstance(eve_view(), EndView)
                               and "Audit passed" in screen(eve))
            seen["eve_end"] = screen(eve)
            assert await until(lambda: ann.peer_done and eve.peer_done)
            eve_keys.send_text("quit\r")
            assert ann.app is not None
            ann.app.handle_text("quit")

        async def ann_plays_or_leaves() -> None:
            """A failed step must not leave the game waiting for Ann for ever: both leave."""
            try:
                await ann_plays()
            except BaseException:
                eve_keys.send_text("quit\r")
                if ann.app is not None:
                    ann.app.handle_text("quit")
                    ann.app.handle_text("quit")  # leaving a game asks once
                raise

        async def main() -> tuple[GameResult, GameResult]:
            spectator = asyncio.create_task(watching())
            typing = asyncio.create_task(ann_plays_or_leaves())
            played = await ann.run(lambda: host_table(host_opts, "friday", GameConfig(3), ann,
                                                      bots=2))
            watched = await spectator
            await typing
            return played, watched

        played, watched = asyncio.run(main())

    assert played.ok and watched.ok and played.score == watched.score
    ann_table, eve_table = seen["ann_table"], seen["eve_table"]
    # Ann never sees her own cards; Eve, with the table's consent, sees them all
    assert "You (Ann)" in ann_table and "1 watching: Eve" in ann_table
    assert eve_table.startswith("Watching · friday")
    assert "every hand visible" in eve_table and "You (" not in eve_table
    assert seen["eve_refused"].startswith("✖ play 1: you are watching")
    assert "Game over" in seen["eve_end"] and "Hands at the end" in seen["eve_end"]
