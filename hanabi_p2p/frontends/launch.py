"""Start a peer: open or find a table, build its node, run it to the end.

This is the glue of `host`, `join` and `play`: identity and data directory, the mesh socket,
mDNS advertising or browsing, the game file and the private file (seed), then a ``Node``
(the IO shell around the sans-IO ``PeerCore``) with a front end (the full-screen UI, a
headless computer player, or a headless printer). Every decision - when to ask for a seat,
when to seat the table, when to give up - is the core's; this module only starts things.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hanabi_p2p import refusals as rf
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.deck.derive import SEED_BYTES
from hanabi_p2p.errors import HanabiError, LocalProtocolError, RemoteProtocolError, UserError
from hanabi_p2p.frontends.headless import Frontend
from hanabi_p2p.i18n import _
from hanabi_p2p.identity import Identity, fingerprint
from hanabi_p2p.limits import TABLE_ID_BYTES
from hanabi_p2p.log.storage import (
    GameFile,
    LoadResult,
    PrivateFile,
    open_game,
    refuse_if_in_play,
)
from hanabi_p2p.net.discovery import TableAd, TableAdvertiser
from hanabi_p2p.net.errors import LinkClosedError, LinkTimeoutError, RetryLaterError
from hanabi_p2p.net.handshake import normalize_secret, table_code
from hanabi_p2p.net.mesh import Mesh
from hanabi_p2p.net.tasks import StackedContext, owned_tasks
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import Counters
from hanabi_p2p.peer.core import PeerCore
from hanabi_p2p.peer.node import Node, Timing
from hanabi_p2p.peer.probe import probe_table
from hanabi_p2p.peer.result import RESUME_COMMAND, GameResult
from hanabi_p2p.peer.watcher import WatcherCore
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address, TableOption
from hanabi_p2p.session.table import ABORTED, AUDITED, TableSession
from hanabi_p2p.verdict_cache import ListRow, record_played_game

__all__ = ["GameResult", "Peer", "PeerOptions", "host_table", "join_address", "join_known",
           "resume", "watch_address", "watch_table"]

# A joiner's first connection to the host: tries, and the pause before the second one
# (doubling after each); TCP itself retransmits within each try's handshake timeout.
DIAL_TRIES = 3
DIAL_RETRY_FIRST_S = 1.0
# A host's back-off after wrong table passwords from our address: wait this long at most.
DIAL_WAIT_MAX_S = 8.0
# A table refusing every stranger after many wrong passwords from anywhere (someone is
# guessing it): we wait as told, as often as this, since our own code is likely right and
# the table lets addresses that never guessed wrong go first when its wait ends.
TABLE_WIDE_WAITS = 4

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
    # host: seat the table by itself once it is full (otherwise the host says `start`)
    auto_start: bool = True
    # a computer player: on whose machine it runs (LobbyJoin.runner); None: a person
    runner: bytes | None = None
    # a spectator (`watch`): follows the game, never sits down
    watching: bool = False
    # host: how the table is run beyond the rules (hints, hands shown to spectators)
    table_options: frozenset[TableOption] = frozenset()
    # host: the longest a turn may last before the others end the game "timed out" (None:
    # none, a thinking player is never timed out; SPEC 5.6)
    turn_timer: int | None = None
    # host: the time each player has for all its turns together (None: no such clock)
    total_clock: int | None = None
    # how the player comes back to this game if it stops (None: a practice game, it cannot)
    resume_command: str | None = RESUME_COMMAND


def _secret(opts: PeerOptions) -> bytes | None:
    return normalize_secret(opts.secret) if opts.secret else None


class Peer(StackedContext):
    """One running peer: session + core + node + frontend, for host and join alike.

    It is also the ``PeerHandle`` its front end sees: the session to read, commands to send.
    `async with` it listens, and the network's tasks belong to the block (see Mesh): what
    `run` did not get to close (the advert, the links, the log) is closed at its end.
    """

    def __init__(self, opts: PeerOptions, identity: Identity, table_id: bytes,
                 seed: bytes, host_id: bytes | None, frontend: Frontend) -> None:
        self.opts = opts
        self.identity = identity
        self._table_id = table_id
        self._session = TableSession(identity, table_id, seed=seed, host_id=host_id,
                                     watching=opts.watching)
        self.mesh = Mesh(identity, table_id, opts.interface, opts.port, _secret(opts))
        self.frontend = frontend
        self.node: Node | None = None
        self.core: PeerCore | WatcherCore | None = None
        self.game_file: GameFile | None = None
        self.private = PrivateFile.for_table(opts.data_dir, table_id)
        self.advertiser: TableAdvertiser | None = None
        self._seed = seed
        self._address = ""

    # -- PeerHandle -------------------------------------------------------------------------

    @property
    def session(self) -> TableSession:
        return self._session

    @property
    def table_id(self) -> bytes:
        return self._table_id

    @property
    def address(self) -> str:
        return self._address

    @property
    def player_name(self) -> str:
        # (a joiner may have asked again under another name: `name` in the lobby)
        return self.core.joining.player_name if self.core is not None else self.opts.name

    @property
    def connected(self) -> frozenset[bytes]:
        return self.node.connected if self.node is not None else frozenset()

    @property
    def log_path(self) -> Path | None:
        return self.game_file.path if self.game_file is not None else None

    @property
    def finished(self) -> bool:
        return self.node is not None and self.node.finished

    @property
    def counters(self) -> Counters:
        return self.core.counters if self.core is not None else Counters()

    @property
    def failed_code_attempts(self) -> int:
        return int(getattr(self.mesh, "failed_code_attempts", 0))

    @property
    def watching(self) -> bool:
        return self.opts.watching

    def watchers(self) -> tuple[fx.Watcher, ...]:
        return self.core.watchers() if self.core is not None else ()

    def left_out(self) -> frozenset[bytes]:
        """The joiners the host will not seat (their requests stay in the log)."""
        return frozenset(self.core.left_out()) if self.core is not None else frozenset()

    def describe(self, peer_id: bytes) -> str:
        return self._session.describe(peer_id)

    def command(self, command: fx.Command) -> None:
        if self.node is None:
            raise UserError("not connected to the table yet")
        self.node.command(command)

    def after(self, delay: float, call: Callable[[], None], name: str) -> None:
        if self.node is None:  # (the front end hears of nothing before: nothing to call)
            raise LocalProtocolError("the peer has no node yet: nothing may be called later")
        self.node.later(delay, call, name)

    # -- running ----------------------------------------------------------------------------

    async def _enter(self, stack: contextlib.AsyncExitStack) -> None:
        await stack.enter_async_context(self.mesh)
        stack.push_async_callback(self._close)  # (before the mesh's group waits)

    async def _close(self) -> None:
        """Close the advert, the links and the log: as soon as the game ends (`run`), and
        at the end of the block whatever was left (each close does nothing the second
        time)."""
        try:
            if self.advertiser is not None:
                await self.advertiser.close()
            await self.mesh.close()
        finally:
            if self.game_file is not None:
                self.game_file.close()

    def listen_address(self) -> Address:
        return Address(self.opts.interface, self.mesh.port)

    async def open(self, table_name: str = "",
                   opened: tuple[GameFile, LoadResult] | None = None) -> Node:
        """Open the game's log (once listening: `async with` the peer); `opened`: the log
        the caller opened already (a resumed game's, opened before the network so that a
        game being played in another window is refused first)."""
        self._address = f"{self.opts.interface}:{self.mesh.port}"
        self.game_file, loaded = opened or open_game(
            self.opts.data_dir, self._table_id, created=int(time.time()), name=table_name
        )
        if self.opts.watching:
            self.core = WatcherCore(self.identity, self._session,
                                    address=self.listen_address(), now=time.monotonic(),
                                    timing=self.opts.timing, player_name=self.opts.name)
        else:
            self.core = PeerCore(self.identity, self._session, address=self.listen_address(),
                                 now=time.monotonic(), timing=self.opts.timing,
                                 auto_start=self.opts.auto_start, player_name=self.opts.name,
                                 runner=self.opts.runner)
        self.node = Node(self.core, self.mesh, self.game_file, on_events=self._on_events,
                         resume_command=self.opts.resume_command)
        # attach first: a resumed game's replayed events reach the front end too
        self.frontend.attach(self)
        if loaded.entries:
            self.node.load(loaded.entries)
        return self.node

    def save_private(self, **extra: object) -> None:
        # the table password too (SPEC 3.8): it guards the table's seats, and a player
        # coming back to its own seat with `join --resume` must not need to type it again
        password = {"code": self.opts.secret} if self.opts.secret else {}
        self.private.update(seed=self._seed, table_id=self._table_id, name=self.opts.name,
                            interface=self.opts.interface, port=self.mesh.port,
                            **password, **extra)

    def _on_events(self, events: list[ev.Event]) -> None:
        if self.advertiser is not None and any(
            isinstance(e, fx.LobbyChanged | ev.Seated) for e in events
        ):
            self._update_advert()
        self.frontend.on_events(events)

    def _update_advert(self) -> None:
        advertiser, config = self.advertiser, self._session.config
        if advertiser is None or config is None:
            return
        if self.node is not None:
            self.node.spawn(self._readvertise(advertiser, _advert(self, config)), "advert")

    async def _readvertise(self, advertiser: TableAdvertiser, ad: TableAd) -> None:
        try:
            await advertiser.update(ad)
        except OSError as exc:  # the network, not the game: say so and play on
            self.frontend.status(f"could not update the table's advert: {exc}")

    async def run(self) -> GameResult:
        assert self.node is not None and self.game_file is not None
        try:
            await self.node.run()
        finally:
            await self._close()
        result = self.result()
        self._record_verdict(result)
        session = self._session
        if self.opts.watching:
            return result  # a spectator's log has no private file: nothing to resume
        if self.core is not None and self.core.finished is not None and (
                self.core.finished.forget):
            # the player quit a lobby: no game to list or resume, nothing to keep
            self.game_file.path.unlink(missing_ok=True)
            self.private.path.unlink(missing_ok=True)
            return result
        over = session.phase in (AUDITED, ABORTED)
        if over or isinstance(result.refusal, rf.TableFull) or (
                not session.seats and self._left()):
            # nothing to come back to: a finished game, or a lobby we left
            self.private.update(finished=True)
        return result

    def _record_verdict(self, result: GameResult) -> None:
        """Cache what `log list` shows of the game we have just played, so that it is not
        checked again there: our program checked every entry as it came and audited the
        deck at the end, and a full check of the log finds what we found, a valid game, when
        the log holds exactly the entries we applied (`record_played_game` makes sure of
        that: the verdict depends on that set alone). A spectator's copy too: it checked
        every entry and audited the deck as a player does. Anything else (a failure, a game
        stopped or not over) is left to the full check of `list`."""
        session, core, game_file = self._session, self.core, self.game_file
        if (not result.ok or session.phase != AUDITED or core is None
                or game_file is None or core.replica.held()):
            return
        row = ListRow.of_played_game(game_file.path.stem, game_file.header.created, session)
        if row is not None:
            record_played_game(game_file.path, {e.hash for e in core.replica.applied}, row)

    def _left(self) -> bool:
        core = self.core
        return core is not None and core.finished is not None and (
            core.finished.kind is fx.EndKind.LEFT)

    def result(self) -> GameResult:
        s = self._session
        assert self.game_file is not None
        out = GameResult(log_path=self.game_file.path, names=s.names)
        out.chosen_leave = self.core is not None and self.core.finished is not None and (
            self.core.finished.chosen)
        if s.seats:
            out.table_code = table_code(self._table_id, [seat.peer_id for seat in s.seats])
        if s.state is not None:
            out.end, out.score, out.rating = s.state.end, s.state.score, s.state.rating
        if s.audit is not None:
            out.audit_ok, out.audit_reason = s.audit.ok, s.audit.reason
            if not s.audit.ok:
                out.failure = f"the deck audit failed: {s.audit.reason}"
        if s.phase == ABORTED:
            out.failure = s.abort_reason or "the game was aborted"
        elif s.phase == AUDITED and out.failure is None and self.node and self.node.failure:
            out.failure = self.node.failure  # a signed fault that came after the audit
        elif s.phase != AUDITED and out.failure is None:
            node_failure = self.node.failure if self.node else None
            out.failure = node_failure or "the game did not finish"
            finished = self.core.finished if self.core is not None else None
            if finished is not None and finished.failure == out.failure:
                out.refusal = finished.refusal
        return out


# ---------------------------------------------------------------- host


def _bot_options(opts: PeerOptions, index: int, host_id: bytes) -> PeerOptions:
    """A computer seat this host runs: its own identity under the host's data directory,
    declared as run on the host's machine."""
    return PeerOptions(
        runner=host_id,
        name=f"bot{index + 1}",
        data_dir=DataDir(opts.data_dir.root / "bots" / f"bot{index + 1}"),
        interface=opts.interface,
        secret=opts.secret,
        advertise=False,
        timing=opts.timing,
        rng=opts.rng,
    )


async def host_table(opts: PeerOptions, table_name: str, config: GameConfig,
                     frontend: Frontend, bots: int = 0,
                     bot_frontend: Callable[[int], Frontend] | None = None) -> GameResult:
    identity = Identity.load_or_create(opts.data_dir)
    table_id = opts.rng(TABLE_ID_BYTES)
    async with Peer(opts, identity, table_id, opts.rng(SEED_BYTES), identity.peer_id,
                    frontend) as peer:
        return await _host(peer, opts, table_name, config, frontend, bots, bot_frontend)


async def _host(peer: Peer, opts: PeerOptions, table_name: str, config: GameConfig,
                frontend: Frontend, bots: int,
                bot_frontend: Callable[[int], Frontend] | None) -> GameResult:
    identity, table_id = peer.identity, peer.table_id
    node = await peer.open(table_name)
    peer.save_private(role="host", host_id=identity.peer_id,
                      host_address=list(peer.listen_address().to_wire()), bots=bots,
                      auto_start=opts.auto_start, advertise=opts.advertise)
    peer.session.open_table(table_name, opts.name, config, opts.table_options,
                            turn_timer=opts.turn_timer, total_clock=opts.total_clock)
    node.flush()
    if opts.advertise:
        peer.advertiser = TableAdvertiser(opts.interface, peer.mesh.port, _advert(peer, config))
        await peer.advertiser.start()
    frontend.status(_("table open at {address}").format(address=peer.address))

    def start_bot(index: int) -> Awaitable[GameResult]:
        front = bot_frontend(index) if bot_frontend else frontend.for_bot()
        return join_known(_bot_options(opts, index, identity.peer_id), opts.interface,
                          peer.mesh.port,
                          table_id, identity.peer_id, front)

    return await _run_with_bots(peer, opts, [start_bot(i) for i in range(bots)])


async def _run_with_bots(peer: Peer, opts: PeerOptions,
                         bots: Sequence[Awaitable[GameResult]]) -> GameResult:
    """Run our peer and the computer seats it hosts, all in one task group. The bots finish
    their own audit and lingering unless the game stopped early (the host left or it was
    aborted): then there is nothing left to wait for. (What fails is raised as itself, so
    that a reason stays one line.)"""
    async with owned_tasks() as group:
        tasks = [group.create_task(_bot_quietly(bot), name=f"bot{i + 1}")
                 for i, bot in enumerate(bots)]
        result = await peer.run()
        finished = peer.session.phase == AUDITED
        for task in tasks:
            if finished and not task.done():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(task), timeout=opts.timing.linger + 2)
            task.cancel()
    return result


async def _bot_quietly(bot: Awaitable[GameResult]) -> None:
    """A computer seat that cannot join (the table filled, the host left) is no error of
    the host's game: its own result is reported by its front end."""
    with contextlib.suppress(HanabiError):
        await bot


def _advert(peer: Peer, config: GameConfig) -> TableAd:
    session = peer.session
    core = peer.core
    waiting = len(core.lobby()) if core is not None else len(session.joins)
    taken = len(session.seats) if session.seats else 1 + waiting
    return TableAd(
        table_id=peer.table_id,
        name=session.table.name if session.table else "",
        variant=config.variant.value,
        options=config.options,
        seats_taken=min(taken, config.players),
        seats_total=config.players,
        host_fingerprint=fingerprint(peer.identity.peer_id),
        host_name=session.table.host_name if session.table else "",
        turn_timer=session.table.turn_timer if session.table else None,
        total_clock=session.table.total_clock if session.table else None,
    )


# ---------------------------------------------------------------- join


async def join_known(opts: PeerOptions, host: str, port: int, table_id: bytes,
                     host_id: bytes, frontend: Frontend) -> GameResult:
    """Join a table whose id and host key we know (after mDNS + probe, or a probe alone)."""
    identity = Identity.load_or_create(opts.data_dir)
    if identity.peer_id == host_id:
        raise UserError("this installation is the table's host: use another --data-dir")
    refuse_if_in_play(opts.data_dir.game_path(table_id))  # before any network
    async with Peer(opts, identity, table_id, opts.rng(SEED_BYTES), host_id, frontend) as peer:
        await _dial_first(peer, host, port, host_id, "join")
        await peer.open()
        peer.save_private(role="guest", host_id=host_id, host_address=[host, port])
        # the core asks for a seat as soon as it learns the table (table.open from the host)
        return await peer.run()


async def _dial_first(peer: Peer, host: str, port: int, expected: bytes, verb: str) -> None:
    """Dial the table before creating any file: a table that refuses us (full, game begun,
    wrong code) is a clear error now, not a redial loop, and leaves no game to "resume"."""
    try:
        await _dial_with_retries(peer.mesh, host, port, expected, peer.frontend.status)
    except HanabiError as exc:
        reason = exc.reason if isinstance(exc, RemoteProtocolError) else str(exc)
        raise UserError(f"cannot {verb} the table at {host}:{port}: {reason}") from None


async def _dial_with_retries(mesh: Mesh, host: str, port: int, host_id: bytes,
                             tell: Callable[[str], None]) -> None:
    """Dial the host; a connection that times out or drops (a lossy network) is tried
    again with back-off, a clear refusal (full, wrong password, another table) is not. A
    table that asks us to wait after wrong passwords is waited for, saying so (`tell`)."""
    delay = DIAL_RETRY_FIRST_S
    attempt = table_waits = 0
    while True:
        attempt += 1
        try:
            await mesh.dial(host, port, expected=host_id)
            return
        except (LinkTimeoutError, LinkClosedError) as exc:
            if attempt >= DIAL_TRIES:
                raise UserError(f"no answer from the table after {DIAL_TRIES} tries "
                                f"(last: {exc})") from None
            pause = delay
        except RetryLaterError as exc:
            pause = exc.retry_after + DIAL_RETRY_FIRST_S / 4
            if exc.table_wide:
                # someone is guessing the table's password, from anywhere: every stranger
                # waits (SPEC 4.4); we wait as told, and go first when the wait ends
                table_waits += 1
                if table_waits > TABLE_WIDE_WAITS:
                    raise
                attempt -= 1  # (not a try of ours that failed)
                tell(f"the table refuses every newcomer for {exc.retry_after:g} s after many "
                     "wrong passwords from others (someone may be guessing it): waiting")
            elif exc.retry_after > DIAL_WAIT_MAX_S or attempt >= DIAL_TRIES:
                # someone at our address guessed the password wrong: a short wait is worth
                # it, a long one is an error
                raise
        await asyncio.sleep(pause)
        delay *= 2



async def join_address(opts: PeerOptions, host: str, port: int, frontend: Frontend,
                       expect_table: bytes | None = None) -> GameResult:
    probe = await probe_table(host, port)
    if expect_table is not None and probe.table_id != expect_table:
        raise UserError(f"{host}:{port} serves another table than the one advertised")
    return await join_known(opts, host, port, probe.table_id, probe.host_id, frontend)


# choosing a table among those found is `hanabi_p2p.net.discovery.pick_table` (pure)


# ---------------------------------------------------------------- watch


async def watch_table(opts: PeerOptions, host: str, port: int, table_id: bytes,
                      peer_id: bytes, frontend: Frontend) -> GameResult:
    """Follow a table as a spectator (SPEC 4.8): link to the peer `peer_id` at host:port
    (the host, or any player), catch up, then link to every player; never a seat, never an
    entry of ours. The host is whoever signed the table's `table.open`, learnt from the log.
    A spectator has an identity of its own (beside this installation's player identity, so
    that watching a game one also plays in cannot take the player's links) and keeps the
    log it replicated, with no private file: `log verify` can check it later, `join
    --resume` never offers it."""
    opts = dataclasses.replace(opts, watching=True, advertise=False,
                               data_dir=opts.data_dir.watching())
    identity = Identity.load_or_create(opts.data_dir)
    async with Peer(opts, identity, table_id, opts.rng(SEED_BYTES), None, frontend) as peer:
        await _dial_first(peer, host, port, peer_id, "watch")
        await peer.open()
        return await peer.run()


async def watch_address(opts: PeerOptions, host: str, port: int, frontend: Frontend) -> GameResult:
    probe = await probe_table(host, port)
    return await watch_table(opts, host, port, probe.table_id, probe.host_id, frontend)


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
    _mtime, table_id, secret = max(candidates)
    opts.port = int(secret.get("port", 0))
    opts.interface = str(secret.get("interface", opts.interface))
    opts.name = str(secret.get("name", opts.name))
    if opts.secret is None and isinstance(secret.get("code"), str):
        opts.secret = secret["code"]  # the table's password, kept with the game's secrets
    host_id = bytes(secret["host_id"])
    opts.auto_start = bool(secret.get("auto_start", opts.auto_start))
    # a table opened with --no-mdns stays unadvertised when its host comes back
    opts.advertise = opts.advertise and bool(secret.get("advertise", True))
    # the log first: a game another hanabi-p2p is playing is refused before any network
    opened = open_game(opts.data_dir, table_id, created=int(time.time()))
    try:
        async with Peer(opts, identity, table_id, bytes(secret["seed"]), host_id,
                        frontend) as peer:
            return await _resume(peer, opts, opened, secret, frontend)
    finally:
        opened[0].close()  # (closed with the peer already, unless it could not listen)


async def _resume(peer: Peer, opts: PeerOptions, opened: tuple[GameFile, LoadResult],
                  secret: dict[str, Any], frontend: Frontend) -> GameResult:
    identity, table_id, host_id = peer.identity, peer.table_id, bytes(secret["host_id"])
    await peer.open(opened=opened)
    session = peer.session
    if identity.peer_id != host_id:
        if not session.seats:
            # still in the lobby: dial the host again (the core asks for the seat if we
            # never did; a request already made is never repeated)
            host, port = secret["host_address"]
            peer.mesh.connect(host_id, str(host), int(port))
        frontend.status(_("resumed from the saved log"))
        return await peer.run()
    config = session.config
    if opts.advertise and config is not None and not session.seats:
        # a host back in its lobby advertises its table again, so joiners find it
        peer.advertiser = TableAdvertiser(opts.interface, peer.mesh.port, _advert(peer, config))
        await peer.advertiser.start()
    frontend.status(_("resumed from the saved log"))
    # the computer seats this host ran come back with it, each from its own saved log
    bots = [resume(_bot_options(opts, i, host_id), frontend.for_bot(), table_id.hex())
            for i in range(int(secret.get("bots", 0)))]
    return await _run_with_bots(peer, opts, bots)
