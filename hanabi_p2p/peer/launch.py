"""Start a peer: open or find a table, build its node, run it to the end.

This is the glue of `host`, `join` and `play`: identity and data directory, the mesh socket,
mDNS advertising or browsing, the game file and the private file (seed), then a ``Node``
with a front end (the full-screen UI, a headless computer player, or a headless printer).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.errors import HanabiError, RemoteProtocolError, UserError
from hanabi_p2p.identity import Identity, fingerprint
from hanabi_p2p.limits import TABLE_ID_BYTES
from hanabi_p2p.log.storage import GameFile, PrivateFile, open_game
from hanabi_p2p.net.discovery import FoundTable, TableAd, TableAdvertiser
from hanabi_p2p.net.handshake import normalize_secret, table_code
from hanabi_p2p.net.mesh import Mesh
from hanabi_p2p.peer.frontends import Frontend
from hanabi_p2p.peer.node import Node, Timing
from hanabi_p2p.peer.probe import probe_table
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.table import ABORTED, AUDITED, TableSession

SEED_BYTES = 32

Rng = Callable[[int], bytes]


@dataclass
class PeerOptions:
    """Everything a peer process needs to know, from the command line."""

    name: str
    data_dir: DataDir
    interface: str = "127.0.0.1"
    port: int = 0
    secret: str | None = None
    advertise: bool = True
    timing: Timing = field(default_factory=Timing)
    rng: Rng = os.urandom


@dataclass
class GameResult:
    """How a peer's game ended; `failure` is None when it finished and was audited."""

    log_path: Path
    end: str = "in_progress"
    score: int = 0
    rating: str = ""
    audit_ok: bool | None = None
    audit_reason: str = ""
    failure: str | None = None
    names: list[str] = field(default_factory=list)
    table_code: str = ""

    @property
    def ok(self) -> bool:
        return self.failure is None and bool(self.audit_ok)


def _secret(opts: PeerOptions) -> bytes | None:
    return normalize_secret(opts.secret) if opts.secret else None


class Peer:
    """One running peer: session + node + frontend, for host and join alike."""

    def __init__(self, opts: PeerOptions, identity: Identity, table_id: bytes,
                 seed: bytes, host_id: bytes | None, frontend: Frontend) -> None:
        self.opts = opts
        self.identity = identity
        self.table_id = table_id
        self.session = TableSession(identity, table_id, seed=seed, host_id=host_id)
        self.mesh = Mesh(identity, table_id, opts.interface, opts.port, _secret(opts))
        self.frontend = frontend
        self.node: Node | None = None
        self.game_file: GameFile | None = None
        self.private = PrivateFile.for_table(opts.data_dir, table_id)
        self.advertiser: TableAdvertiser | None = None
        self._seed = seed

    @property
    def address(self) -> Address:
        return Address(self.opts.interface, self.mesh.port)

    async def open(self, table_name: str = "") -> Node:
        await self.mesh.start()
        self.game_file, loaded = open_game(
            self.opts.data_dir, self.table_id, created=int(time.time()), name=table_name
        )
        self.node = Node(self.identity, self.session, self.mesh, self.game_file,
                         timing=self.opts.timing, on_events=self._on_events)
        # attach first: a resumed game's replayed events reach the front end too
        self.frontend.attach(self)
        if loaded.entries:
            self.node.load(loaded.entries)
        return self.node

    def save_private(self, **extra: object) -> None:
        self.private.update(seed=self._seed, table_id=self.table_id, name=self.opts.name,
                            interface=self.opts.interface, port=self.mesh.port, **extra)

    def _on_events(self, events: list[ev.Event]) -> None:
        self.frontend.on_events(events)

    async def run(self) -> GameResult:
        assert self.node is not None and self.game_file is not None
        try:
            await self.node.run()
        finally:
            if self.advertiser is not None:
                await self.advertiser.close()
            await self.mesh.close()
            self.game_file.close()
        result = self.result()
        if self.session.phase in (AUDITED, ABORTED):
            self.private.update(finished=True)
        return result

    def result(self) -> GameResult:
        s = self.session
        assert self.game_file is not None
        out = GameResult(log_path=self.game_file.path, names=s.names)
        if s.seats:
            out.table_code = table_code(self.table_id, [seat.peer_id for seat in s.seats])
        if s.state is not None:
            out.end, out.score, out.rating = s.state.end.value, s.state.score, s.state.rating
        if s.audit is not None:
            out.audit_ok, out.audit_reason = s.audit.ok, s.audit.reason
            if not s.audit.ok:
                out.failure = f"the deck audit failed: {s.audit.reason}"
        if s.phase == ABORTED:
            out.failure = s.abort_reason or "the game was aborted"
        elif s.phase != AUDITED and out.failure is None:
            node_failure = self.node.failure if self.node else None
            out.failure = node_failure or "the game did not finish"
        return out


# ---------------------------------------------------------------- host


async def host_table(opts: PeerOptions, table_name: str, config: GameConfig,
                     frontend: Frontend, bots: int = 0,
                     bot_frontend: Callable[[int], Frontend] | None = None) -> GameResult:
    identity = Identity.load_or_create(opts.data_dir)
    table_id = opts.rng(TABLE_ID_BYTES)
    peer = Peer(opts, identity, table_id, opts.rng(SEED_BYTES), identity.peer_id, frontend)
    node = await peer.open(table_name)
    peer.save_private(role="host", host_id=identity.peer_id,
                      host_address=list(peer.address.to_wire()))
    peer.session.open_table(table_name, opts.name, config)
    node.flush()
    if opts.advertise:
        peer.advertiser = TableAdvertiser(opts.interface, peer.mesh.port,
                                          _advert(peer.session, config, table_id, identity))
        await peer.advertiser.start()
    frontend.status(f"table open at {opts.interface}:{peer.mesh.port}")

    seat_when_full = _SeatWhenFull(peer, config)
    frontend.add_listener(seat_when_full)
    bot_tasks = []
    for i in range(bots):
        bot_opts = PeerOptions(
            name=f"bot{i + 1}",
            data_dir=DataDir(opts.data_dir.root / "bots" / f"bot{i + 1}"),
            interface=opts.interface,
            secret=opts.secret,
            advertise=False,
            timing=opts.timing,
            rng=opts.rng,
        )
        bot_front = bot_frontend(i) if bot_frontend else frontend.for_bot()
        bot_tasks.append(asyncio.create_task(
            join_known(bot_opts, opts.interface, peer.mesh.port, table_id, identity.peer_id,
                       bot_front),
            name=f"bot{i + 1}",
        ))
    try:
        result = await peer.run()
    finally:
        # our computer players finish their own audit and lingering unless the game stopped
        # early (the host left or it was aborted): then there is nothing left to wait for
        finished = peer.session.phase == AUDITED
        for task in bot_tasks:
            if finished and not task.done():
                with contextlib.suppress(asyncio.TimeoutError, Exception):
                    await asyncio.wait_for(asyncio.shield(task), timeout=opts.timing.linger + 2)
            task.cancel()
    return result


def _advert(session: TableSession, config: GameConfig, table_id: bytes,
            identity: Identity) -> TableAd:
    taken = len(session.seats) if session.seats else 1 + len(session.joins)
    return TableAd(
        table_id=table_id,
        name=session.table.name if session.table else "",
        variant=config.variant.value,
        options=config.options,
        seats_taken=min(taken, config.players),
        seats_total=config.players,
        host_fingerprint=fingerprint(identity.peer_id),
    )


class _SeatWhenFull:
    """Host side: seat everyone as soon as the table is full; keep the advert current."""

    def __init__(self, peer: Peer, config: GameConfig) -> None:
        self.peer = peer
        self.config = config

    def __call__(self, events: list[ev.Event]) -> None:
        session = self.peer.session
        if not any(isinstance(e, ev.PlayerJoined) for e in events) or session.seats:
            return
        if 1 + len(session.joins) >= self.config.players:
            session.seat_players(self.peer.address)
            assert self.peer.node is not None
            self.peer.node.flush()
        if self.peer.advertiser is not None:
            ad = _advert(session, self.config, self.peer.table_id, self.peer.identity)
            asyncio.get_running_loop().create_task(self.peer.advertiser.update(ad))


# ---------------------------------------------------------------- join


async def join_known(opts: PeerOptions, host: str, port: int, table_id: bytes,
                     host_id: bytes, frontend: Frontend) -> GameResult:
    """Join a table whose id and host key we know (after mDNS + probe, or a probe alone)."""
    identity = Identity.load_or_create(opts.data_dir)
    if identity.peer_id == host_id:
        raise UserError("this installation is the table's host: use another --data-dir")
    peer = Peer(opts, identity, table_id, opts.rng(SEED_BYTES), host_id, frontend)
    # Dial before creating any file: a table that refuses us (full, game begun, wrong
    # code) is a clear error now, not a redial loop, and leaves no game to "resume".
    await peer.mesh.start()
    try:
        await peer.mesh.dial(host, port, expected=host_id)
    except HanabiError as exc:
        await peer.mesh.close()
        reason = exc.reason if isinstance(exc, RemoteProtocolError) else str(exc)
        raise UserError(f"cannot join the table at {host}:{port}: {reason}") from None
    await peer.open()
    peer.save_private(role="guest", host_id=host_id, host_address=[host, port])
    frontend.add_listener(_AskForSeat(peer))
    if peer.session.table is not None and not peer.session.seats:
        _AskForSeat(peer)([ev.TableOpened(peer.session.table.name)])
    return await peer.run()


TABLE_FILLED = "the table is full: the host seated other players before our request came"


class _AskForSeat:
    """Joiner side: ask for a seat once the table is known; give up with a clear reason
    if the host seats everyone without us (several players raced for the last seat)."""

    def __init__(self, peer: Peer) -> None:
        self.peer = peer

    def __call__(self, events: list[ev.Event]) -> None:
        node = self.peer.node
        assert node is not None
        if any(isinstance(e, ev.TableOpened) for e in events):
            self.peer.session.request_seat(self.peer.opts.name, self.peer.address)
            node.flush()
        if any(isinstance(e, ev.Seated) for e in events) and self.peer.session.my_seat is None:
            self.peer.private.update(finished=True)  # nothing to come back to
            node.finish(TABLE_FILLED)


async def join_address(opts: PeerOptions, host: str, port: int, frontend: Frontend,
                       expect_table: bytes | None = None) -> GameResult:
    probe = await probe_table(host, port)
    if expect_table is not None and probe.table_id != expect_table:
        raise UserError(f"{host}:{port} serves another table than the one advertised")
    return await join_known(opts, host, port, probe.table_id, probe.host_id, frontend)


def pick_table(tables: list[FoundTable], wanted: str | None) -> FoundTable:
    """The table to join: the only one, or the one named; a clear error otherwise."""
    usable = [t for t in tables if t.compatible]
    if wanted:
        named = [t for t in usable if t.ad.name.casefold() == wanted.casefold()
                 or t.ad.table_id.hex().startswith(wanted.lower())]
        if not named:
            names = ", ".join(repr(t.ad.name) for t in usable) or "none"
            raise UserError(f"no table named {wanted!r} on the network (visible: {names})")
        if len(named) > 1:
            raise UserError(f"several tables are named {wanted!r}; give its id: "
                            + ", ".join(t.ad.table_id.hex()[:8] for t in named))
        return named[0]
    if not usable:
        hint = " (some speak another protocol version)" if tables else ""
        raise UserError("no table found on the network" + hint
                        + "; if multicast is blocked, use --address HOST:PORT")
    if len(usable) > 1:
        listing = "; ".join(f"{t.ad.name!r} ({t.ad.seats_taken}/{t.ad.seats_total} seats, "
                            f"host {t.ad.host_fingerprint})" for t in usable)
        raise UserError(f"several tables are open, name one: {listing}")
    return usable[0]


# ---------------------------------------------------------------- resume


async def resume(opts: PeerOptions, frontend: Frontend, table: str | None = None) -> GameResult:
    """Come back to an unfinished game of this installation from its saved log and seed."""
    identity = Identity.load_or_create(opts.data_dir)
    candidates = []
    for path in opts.data_dir.game_files():
        table_id = bytes.fromhex(path.stem)
        if table and not path.stem.startswith(table.lower()):
            continue
        private = PrivateFile.for_table(opts.data_dir, table_id)
        try:
            secret = private.load()
        except (OSError, UserError):
            continue
        if secret.get("finished"):
            continue
        candidates.append((path.stat().st_mtime, table_id, secret))
    if not candidates:
        raise UserError("no unfinished game to resume in " + str(opts.data_dir.root))
    _, table_id, secret = max(candidates)
    opts.port = int(secret.get("port", 0))
    opts.interface = str(secret.get("interface", opts.interface))
    opts.name = str(secret.get("name", opts.name))
    host_id = bytes(secret["host_id"])
    peer = Peer(opts, identity, table_id, bytes(secret["seed"]), host_id, frontend)
    await peer.open()
    if identity.peer_id != host_id:
        host, port = secret["host_address"]
        if not peer.session.seats:
            # still in the lobby: dial the host again and ask for the seat if we never did
            # (the session posts a request once, so a request already made is not repeated)
            frontend.add_listener(_AskForSeat(peer))
            peer.mesh.connect(host_id, str(host), int(port))
            if peer.session.table is not None:
                _AskForSeat(peer)([ev.TableOpened(peer.session.table.name)])
    frontend.status("resumed from the saved log")
    return await peer.run()

