"""A joiner that does something an ordinary peer never does, for the end-to-end tests: a real
joiner (the real launch, node, session and mesh) with one behaviour changed on purpose.

Usage: scripted_peer.py MODE --address HOST:PORT --interface IP --data-dir DIR --name NAME
                        [--trigger FILE]

MODE is one of:

    illegal-action   on its first turn, plays a card from the next player's hand: the entry
                     is signed and sent to everyone, but kept out of its own log (which
                     would refuse it, as every honest peer must)
    withhold-share   plays normally but, from turn WITHHELD_FROM on, never answers a play or
                     discard with its key share, so the card can never be revealed
    hesitant-join    connects to the host but asks for its seat only once FILE exists (to
                     lose the race for the last seat deterministically)
    flood-sync       plays honestly while flooding every other seat with HAVE and WANT
    fork-action      on its first turn, sends its action to every seat but the next one, and
                     to that one a chat line signed under the same number (a fork)
    illegal-to-one   the same, but to the next seat an illegal play (a card from that seat's
                     own hand) under the same number: only that seat sees a cheat

Ends like a real peer (`log: PATH` last) when the honest peers give up on it.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from hanabi_p2p.commands.join import parse_address
from hanabi_p2p.commands.peerargs import run_game
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.frontends.headless import BotPlayer
from hanabi_p2p.frontends.launch import Peer, PeerOptions, join_address
from hanabi_p2p.log.entry import Entry, EntryKind, decode_entry, make_entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer.node import Timing
from hanabi_p2p.rules.actions import Play
from hanabi_p2p.session.bodies import ActionBody, Address
from hanabi_p2p.session.kinds import Post

WITHHELD_FROM = 3
FLOOD_PER_BURST = 100


class IllegalPlayer(BotPlayer):
    """Cheats once, on its first turn, then waits for the others to notice."""

    def __init__(self) -> None:
        super().__init__()
        self.cheated = False

    def _act(self) -> None:
        self._scheduled = False
        peer = self.peer
        if self.cheated or peer is None or peer.node is None or not peer.session.can_act():
            return
        self.cheated = True
        session, node = peer.session, peer.node
        state, seat = session.state, session.my_seat
        assert state is not None and seat is not None
        victim = (seat + 1) % len(state.hands)
        action = Play(seat, state.hands[victim][0])
        body = ActionBody(action, state.public_hash(), ()).to_wire()
        seq, prev = node.replica.next_link(peer.identity.peer_id)
        entry = make_entry(peer.identity, table_id=peer.table_id, seq=seq, prev=prev,
                           turn=state.turn, kind="action", body=body)
        sent = node.mesh.broadcast(fr.Entry(entry.encoded))
        self._print(f"cheat: played {session.name_of(victim)}'s card, sent to {sent} peers")


class ShareWithholder(BotPlayer):
    """Drops its own answers (acks, which carry its key shares) from turn WITHHELD_FROM on."""

    def attach(self, peer: Peer) -> None:
        super().attach(peer)
        take_posts = peer.session.take_posts

        def without_shares() -> list[Post]:
            kept = []
            for post in take_posts():
                if post.kind is EntryKind.ACK and post.turn >= WITHHELD_FROM:
                    self._print(f"cheat: withheld my key share for turn {post.turn + 1}")
                    continue
                kept.append(post)
            return kept

        peer.session.take_posts = without_shares  # type: ignore[method-assign]


class ForkingPlayer(BotPlayer):
    """On its first turn, signs its action for everyone but the first other seat, and for
    that seat, under the same number, a chat line instead (two signed entries, one number:
    a fork). Protocol 3 compared counts only and never noticed."""

    def attach(self, peer: Peer) -> None:
        super().attach(peer)
        self.forked = False
        assert peer.node is not None  # (the launcher attaches the front end to a node)
        mesh = peer.node.mesh
        broadcast = mesh.broadcast

        def forking(frame: fr.Frame) -> int:
            entry = decode_entry(frame.data) if isinstance(frame, fr.Entry) else None
            if (self.forked or entry is None or entry.kind != "action"
                    or entry.author != peer.identity.peer_id):
                return broadcast(frame)
            self.forked = True
            seats = peer.session.seats
            mine = peer.session.my_seat
            assert mine is not None
            target_seat = (mine + 1) % len(seats)
            target = seats[target_seat].peer_id
            twin = self._twin(peer, entry, target_seat)
            sent = 0
            for other in sorted(mesh.connected - {target}):
                sent += mesh.send(other, frame)
            sent += mesh.send(target, fr.Entry(twin.encoded))
            self._print(f"cheat: forked my action at seq {entry.seq} ({sent} links)")
            return sent

        mesh.broadcast = forking  # type: ignore[method-assign]

    def _twin(self, peer: Peer, entry: Entry, target_seat: int) -> Entry:
        return make_entry(peer.identity, table_id=entry.table_id, seq=entry.seq,
                          prev=entry.prev, turn=entry.turn, kind="chat",
                          body={"text": "nothing to see here"})


class IllegalToOnePlayer(ForkingPlayer):
    """Forks its first action as ForkingPlayer does, but the next seat's version is an
    illegal play of a card from that seat's own hand: that seat alone refuses it, and the
    others hold a legal action. They must still name the cheater, not stop on the word of
    the seat that saw it (it passes the refused entry on: SPEC 4.6)."""

    def _twin(self, peer: Peer, entry: Entry, target_seat: int) -> Entry:
        state = peer.session.state
        assert state is not None and peer.session.my_seat is not None
        action = Play(peer.session.my_seat, state.hands[target_seat][0])
        body = ActionBody(action, state.public_hash(), ()).to_wire()
        return make_entry(peer.identity, table_id=entry.table_id, seq=entry.seq,
                          prev=entry.prev, turn=entry.turn, kind="action", body=body)


class SyncFlooder(BotPlayer):
    """Plays honestly, and from its first turn on sends every other seat FLOOD_PER_BURST
    empty HAVEs and WANTs of everything every 10 ms (about 20 k frames a second to each): in
    protocol 3 each was answered in full, and a bot game ran 7-8 times slower."""

    flooding = False
    said = False

    def _act(self) -> None:
        if not self.flooding:
            self.flooding = True
            asyncio.get_running_loop().create_task(self._flood())
        super()._act()

    async def _flood(self) -> None:
        peer = self.peer
        assert peer is not None and peer.node is not None
        mesh, sent = peer.node.mesh, 0
        while not peer.finished:
            everyone = {seat.peer_id: 0 for seat in peer.session.seats}
            for _ in range(FLOOD_PER_BURST):
                sent += mesh.broadcast(fr.Have({})) + mesh.broadcast(fr.Want(everyone))
            if sent and not self.said:
                self.said = True  # (once: the test waits for it)
                self._print(f"cheat: flooding ({sent} frames sent so far)")
            await asyncio.sleep(0.01)


class HesitantJoiner(BotPlayer):
    """Holds back its request for a seat until the trigger file appears."""

    trigger: Path | None = None

    def attach(self, peer: Peer) -> None:
        super().attach(peer)
        request_seat = peer.session.request_seat
        held: list[tuple[str, Address, bytes | None]] = []

        def hold(name: str, address: Address, runner: bytes | None = None) -> None:
            held.append((name, address, runner))
            self._print("connected; holding back my request for a seat")
            asyncio.get_running_loop().call_soon(poll)

        def poll() -> None:
            assert self.trigger is not None and peer.node is not None
            if not self.trigger.exists():
                asyncio.get_running_loop().call_later(0.05, poll)
                return
            self._print("asking for a seat now")
            request_seat(*held[0])
            peer.node.flush()

        peer.session.request_seat = hold  # type: ignore[method-assign]


FRONTENDS: dict[str, type[BotPlayer]] = {
    "flood-sync": SyncFlooder,
    "fork-action": ForkingPlayer,
    "illegal-action": IllegalPlayer,
    "illegal-to-one": IllegalToOnePlayer,
    "withhold-share": ShareWithholder,
    "hesitant-join": HesitantJoiner,
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=sorted(FRONTENDS))
    parser.add_argument("--address", required=True)
    parser.add_argument("--interface", default="127.0.0.1")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--name", default="Cheat")
    parser.add_argument("--trigger", type=Path)
    args = parser.parse_args()
    host, port = parse_address(args.address)
    frontend = FRONTENDS[args.mode]()
    if isinstance(frontend, HesitantJoiner):
        frontend.trigger = args.trigger
    opts = PeerOptions(name=args.name, data_dir=DataDir.resolve(args.data_dir),
                       interface=args.interface, advertise=False,
                       timing=Timing(wait_timeout=None))
    return run_game(lambda: join_address(opts, host, port, frontend), frontend,
                    "hanabi-p2p join")


if __name__ == "__main__":
    raise SystemExit(main())
