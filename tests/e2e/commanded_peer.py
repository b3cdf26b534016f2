"""A real peer that also takes the lobby commands a person types, for the end-to-end tests:
the real launch, node, session and mesh, with the computer player's front end (it prints
the headless lines and plays its turns), plus commands read from a file the test appends to.

Usage: commanded_peer.py host --commands FILE --data-dir DIR --name NAME [--players N]
                         [--code SECRET]
       commanded_peer.py join --address HOST:PORT --commands FILE --data-dir DIR --name NAME
                         [--code SECRET]

Each line appended to the commands file is one command, as typed at the table:
`kick NAME`, `ban NAME`, `name NEW`, `say TEXT`, `start`. It prints `done: LINE` or
`refused: LINE: REASON`. A host never seats by itself: the test types `start`.
Ends like a real peer (`log: PATH` last).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from hanabi_p2p.commands.join import parse_address
from hanabi_p2p.commands.peerargs import run_game
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.errors import HanabiError
from hanabi_p2p.frontends.headless import BotPlayer
from hanabi_p2p.frontends.launch import Peer, PeerOptions, host_table, join_address
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.node import Timing
from hanabi_p2p.rules.cards import GameConfig

POLL_S = 0.05


class CommandedPlayer(BotPlayer):
    """A computer player whose lobby commands come from a file."""

    commands: Path

    def attach(self, peer: Peer) -> None:
        super().attach(peer)
        self._done = 0
        asyncio.get_running_loop().call_soon(self._poll)

    def _poll(self) -> None:
        peer = self.peer
        if peer is None or peer.finished:
            return
        lines = self.commands.read_text().splitlines() if self.commands.exists() else []
        for line in lines[self._done:]:
            self._done += 1
            try:
                peer.command(self._command(line.strip()))
            except (HanabiError, TypeError) as exc:  # (TypeError: a release without `ban`)
                self._print(f"refused: {line}: {exc}")
            else:
                self._print(f"done: {line}")
        asyncio.get_running_loop().call_later(POLL_S, self._poll)

    def _command(self, line: str) -> fx.Command:
        word, _, rest = line.partition(" ")
        if word == "kick":
            return fx.Kick(self._joiner(rest))
        if word == "ban":
            return fx.Kick(self._joiner(rest), ban=True)
        if word == "name":
            rename = getattr(fx, "Rename", None)  # (a release that had no `name`)
            if rename is None:
                raise HanabiError("this release cannot change a name in the lobby")
            command: fx.Command = rename(rest)
            return command
        if word == "say":
            return fx.Say(rest)
        if word == "start":
            return fx.Start()
        raise HanabiError(f"unknown command {word!r}")

    def _joiner(self, name: str) -> bytes:
        assert self.peer is not None
        joins = self.peer.session.joins
        found = [peer_id for peer_id, join in joins.items() if join.name == name]
        if not found:
            raise HanabiError(f"nobody called {name!r} in the lobby")
        return found[0]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["host", "join"])
    parser.add_argument("--address")
    parser.add_argument("--commands", type=Path, required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--code")
    args = parser.parse_args()
    frontend = CommandedPlayer()
    frontend.commands = args.commands
    opts = PeerOptions(name=args.name, data_dir=DataDir.resolve(args.data_dir),
                       interface="127.0.0.1", advertise=False, auto_start=False,
                       secret=args.code, timing=Timing(wait_timeout=60.0))
    if args.role == "host":
        return run_game(lambda: host_table(opts, "people", GameConfig(args.players), frontend),
                        frontend, "hanabi-p2p host")
    host, port = parse_address(args.address)
    return run_game(lambda: join_address(opts, host, port, frontend), frontend,
                    "hanabi-p2p join")


if __name__ == "__main__":
    raise SystemExit(main())
