"""The peer mesh: one handshaked link to every other player, kept up while the game lasts.

`Mesh` listens for inbound links, dials the peers it is told about (`connect`), redials with
exponential backoff when a link drops, and reports everything as events on one bounded queue:
`PeerUp`, `PeerDown`, `Received` (a frame from a peer) and `LinkFailed` (a connection that
never became a link: failed handshake, refused, unreachable).

Delivery is at most once: a frame queued on a link that then drops is lost. The layer above
re-synchronises on every `PeerUp` (send a HAVE; the peer answers with what is missing), which
also covers a link being replaced by a newer one (`PeerUp` can repeat for a peer already up).

Who may connect: while `accepting_new` is true (the lobby) any peer at our table that passes
the handshake; afterwards peers in `seated`, ones we dial ourselves, and at most `max_guests`
others at a time (spectators: the layer above decides whether each one stays).

Strangers cost little (the choices are `gate.py`'s): at most `MAX_PENDING_PER_SOURCE`
unfinished handshakes per source address and `MAX_PENDING_HANDSHAKES` in all, an idle one
dropped before one under way to make room (so a joiner still gets in while others hold
hundreds of idle connections); in the lobby at most `MAX_LOBBY_LINKS_PER_SOURCE` links of
unseated peers per address and `MAX_LOBBY_LINKS` in all, idle the longest closed first; all
of them kept well under the open-file limit read at start. A source that sent a wrong table
code is refused for a time that doubles with each wrong code, and many wrong codes from all
addresses together make every stranger wait (`failed_code_attempts`, `failed_code_by_source`
count them for the UI). Every link's reading has a budget of frames, the excess dropped
(`dropped_frames`) and a link over it for long closed (`LinkFloodError`); guests' events
queue apart from the players' and never delay them. A frame that fails
authentication on a link closes that link (`auth_failures`; the `PeerDown` carries the
`LinkAuthError`): a problem of the path, never a fault of the peer.

Lifetime: `async with Mesh(...) as mesh:` listens, and every task of the mesh (a dial loop per
peer, an inbound handshake per connection, a reader per link, each link's writer and
keepalive) belongs to one task group for as long as the block lasts; leaving it says BYE on
every link and ends them all. A network error inside a task is one more link problem (an
event); anything else escaping one is a bug of ours, and it ends the block with that error.

Duplicate links: if both peers dial at once there are briefly two links. Both ends keep the
same one by the same rule (see `_keep_existing`), so they always converge on one link.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import os
import random
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, ParamSpec

from hanabi_p2p.errors import HanabiError, LocalProtocolError, UserError
from hanabi_p2p.limits import PEER_ID_BYTES, TABLE_ID_BYTES
from hanabi_p2p.net.accept_errors import quiet_accept_errors
from hanabi_p2p.net.errors import (
    LinkAuthError,
    LinkClosedError,
    LinkFloodError,
    WrongCodeGuessError,
)
from hanabi_p2p.net.frames import (
    Error,
    Frame,
    Have,
    Want,
    clip_reason,
    encode_frame,
    encode_payload,
)
from hanabi_p2p.net.gate import (
    BudgetRule,
    FdShares,
    HandshakeProgress,
    ReadBudget,
    Slot,
    SourceCodeGuard,
    TableCodeGuard,
    handshake_to_drop,
    link_to_close,
)
from hanabi_p2p.net.handshake import (
    TABLE_WIDE_SOURCE,
    Handshake,
    RandomBytes,
    Signer,
    backoff_reason,
    fingerprint_hex,
)
from hanabi_p2p.net.link import Link, LinkTiming, open_link, peer_address, peer_host
from hanabi_p2p.net.mesh_events import (
    Inbox,
    LinkFailed,
    MeshEvent,
    PeerDown,
    PeerUp,
    Received,
)
from hanabi_p2p.net.tasks import StackedContext, owned_tasks

P = ParamSpec("P")  # (the arguments of a task's work, see `_spawn`)

# Links of peers that are not seated while the lobby is open, per source address and in all;
# past either the link idle the longest is closed (oldest idle first). One machine may run
# several computer players and a few spectators: 16 from one address. Play keeps fewer
# (`max_guests`). Both are lowered to fit the open-file limit read at start (`gate.FdShares`).
MAX_LOBBY_LINKS = 32
MAX_LOBBY_LINKS_PER_SOURCE = 16
# Wrong table codes from all addresses together: the first few in a row are free (friends'
# typos), then every stranger waits 1 s, 2 s, 4 s, ... at most 32 s per further wrong code.
TABLE_CODE_FREE_GUESSES = 8
TABLE_CODE_BACKOFF_INITIAL_S = 1.0
TABLE_CODE_BACKOFF_MAX_S = 32.0
# After a table-wide wait, this long only for addresses with no wrong code on record: a joiner
# who waited comes back within it (it waits the whole seconds it was told, plus a little).
TABLE_CODE_GRACE_S = 3.0
# Frames (all kinds) one link may feed the mesh: a seated player far more than any game
# needs (the peer core has finer budgets per kind), a guest a small share. The excess is
# dropped and counted; a link over its budget for this long is closed as a link problem.
SEATED_FRAME_BURST, SEATED_FRAME_RATE_PER_S = 4000, 2000.0
GUEST_FRAME_BURST, GUEST_FRAME_RATE_PER_S = 200, 50.0
OVER_BUDGET_CLOSE_S = 5.0
# A guest sooner: before the core closes a stranger that has not said what it is (after
# WATCH_HELLO_S = 5 s, without a word to the user), so that a flood is closed as a flood, said.
GUEST_OVER_BUDGET_CLOSE_S = 3.0
SEATED_BUDGET = BudgetRule(SEATED_FRAME_RATE_PER_S, SEATED_FRAME_BURST, OVER_BUDGET_CLOSE_S)
GUEST_BUDGET = BudgetRule(GUEST_FRAME_RATE_PER_S, GUEST_FRAME_BURST, GUEST_OVER_BUDGET_CLOSE_S)
# Connections still in their handshake, in all and per source address. At either limit the
# oldest unfinished one is dropped to make room: a flood from one address cannot lock out a
# joiner from another, and even one from the same address gets its turn.
MAX_PENDING_HANDSHAKES = 16
MAX_PENDING_PER_SOURCE = 4
# A handshake whose state has not moved for this long counts as idle (a joiner's takes a few
# round trips and a little CPU: milliseconds on a LAN, well under a second on a busy machine)
HANDSHAKE_STALL_S = 1.0
# A source that sent a wrong table code is refused for this long, doubling with every further
# wrong code in a row (1 s, 2 s, 4 s, ... at most 64 s): a typo costs a second, a guesser
# gets a handful of guesses a minute.
CODE_BACKOFF_INITIAL_S = 1.0
CODE_BACKOFF_MAX_S = 64.0
# Sources remembered for the code back-off and the per-source counts (oldest forgotten first).
MAX_TRACKED_SOURCES = 1024
BACKOFF_INITIAL_S = 0.25
BACKOFF_MAX_S = 8.0
# A link that stayed up this long resets the backoff; one that drops sooner keeps growing it
# (so a peer that accepts and immediately drops us is not hammered).
BACKOFF_RESET_AFTER_S = 10.0


@dataclass(frozen=True, slots=True)
class MeshConfig:
    """Tunables (tests shorten the timings; `rng` makes backoff jitter reproducible)."""

    timing: LinkTiming = field(default_factory=LinkTiming)
    backoff_initial: float = BACKOFF_INITIAL_S
    backoff_max: float = BACKOFF_MAX_S
    backoff_reset_after: float = BACKOFF_RESET_AFTER_S
    code_backoff_initial: float = CODE_BACKOFF_INITIAL_S
    code_backoff_max: float = CODE_BACKOFF_MAX_S
    rng: random.Random = field(default_factory=random.Random)
    table_code_free_guesses: int = TABLE_CODE_FREE_GUESSES
    table_code_backoff_initial: float = TABLE_CODE_BACKOFF_INITIAL_S
    table_code_backoff_max: float = TABLE_CODE_BACKOFF_MAX_S
    table_code_grace: float = TABLE_CODE_GRACE_S
    seated_budget: BudgetRule = SEATED_BUDGET
    guest_budget: BudgetRule = GUEST_BUDGET
    # None: read the open-file limit at start (tests give one)
    open_file_limit: int | None = None


@dataclass(slots=True)
class _Pending:
    """An inbound connection still in its handshake."""

    task: asyncio.Task[Any]
    progress: HandshakeProgress
    handshake: Handshake | None = None
    evicted: bool = False

    def slot(self, now: float) -> Slot:
        state = self.handshake.state if self.handshake is not None else None
        return self.progress.slot(now, state, HANDSHAKE_STALL_S)


@dataclass(slots=True)
class _LinkInfo:
    """What the mesh keeps of one link: where it comes from, its reading budgets (as a
    guest, as a seated player: which one applies can change when seats are taken)."""

    address: str
    source: str
    inbound: bool
    as_guest: ReadBudget
    as_seated: ReadBudget
    last_frame: float
    # a seated player's entries and messages past its budget, while it floods sync frames
    unique: ReadBudget


class Mesh(StackedContext):
    """Links to every peer at one table. See the module docstring."""

    def __init__(
        self,
        identity: Signer,
        table_id: bytes,
        listen_host: str = "127.0.0.1",
        listen_port: int = 0,
        secret: bytes | None = None,
        *,
        config: MeshConfig | None = None,
        random_bytes: RandomBytes = os.urandom,
    ) -> None:
        if len(table_id) != TABLE_ID_BYTES:
            raise LocalProtocolError(f"table_id must be {TABLE_ID_BYTES} bytes")
        self.identity = identity
        self.table_id = table_id
        self.accepting_new = True
        self.max_guests = 0  # links of unseated peers allowed once `accepting_new` is off
        self._listen = (listen_host, listen_port)
        self._secret = secret
        self._config = config or MeshConfig()
        self._random_bytes = random_bytes
        self._server: asyncio.Server | None = None
        self._port: int | None = None  # the port we listen on, kept when we stop listening
        self._seated: set[bytes] = set()
        self._links: dict[bytes, Link] = {}
        self._link_gone: dict[bytes, asyncio.Event] = {}
        self._dialers: dict[bytes, asyncio.Task[None]] = {}
        self._group: asyncio.TaskGroup | None = None  # once `async with` the mesh
        self._tasks: set[asyncio.Task[None]] = set()  # ours, in `_group`, until they end
        # inbound handshakes in progress, oldest first (dicts keep insertion order)
        self._pending: dict[asyncio.Task[Any], _Pending] = {}
        self._inbox = Inbox()  # the players' events first, then the guests'
        self._info: dict[bytes, _LinkInfo] = {}
        self._shares = FdShares(MAX_PENDING_HANDSHAKES, MAX_LOBBY_LINKS,
                                MAX_LOBBY_LINKS_PER_SOURCE)
        self._code_guard = TableCodeGuard(self._config.table_code_free_guesses,
                                          self._config.table_code_backoff_initial,
                                          self._config.table_code_backoff_max,
                                          self._config.table_code_grace)
        self._closing = False
        # what this mesh queued for its peers, over every link it ever had (benchmarks)
        self.frames_sent = 0
        self.bytes_sent = 0
        # Counters for the UI and tests; none of them names or blames a player.
        self._source_codes = SourceCodeGuard(self._config.code_backoff_initial,
                                             self._config.code_backoff_max,
                                             MAX_TRACKED_SOURCES)
        self.refused_during_backoff = 0  # connections refused while their source waited
        self.evicted_handshakes = 0  # unfinished handshakes dropped to make room
        self.auth_failures = 0  # links closed because a frame failed authentication
        self.closed_lobby_links = 0  # guests' links closed to keep the lobby's caps
        self.dropped_frames = 0  # frames over a link's reading budget, dropped unread
        self.flood_closed = 0  # links closed for staying over their budget
        self.refused_table_wide = 0  # strangers refused while the table-wide code wait ran
        self.out_of_files = 0  # connections the system could not accept (no descriptor)
        self._refusal_hello_bytes: bytes | None = None

    # -- lifecycle ------------------------------------------------------------------------

    async def _enter(self, stack: contextlib.AsyncExitStack) -> None:
        """Listen (port 0 picks a free port: read it from `port`), the mesh's tasks in a
        group of their own until the block ends, which closes the mesh, then waits for its
        last task (a bug in one is raised there); once only."""
        if self._group is not None or self._closing:
            raise LocalProtocolError("a mesh runs once")
        self._group = await stack.enter_async_context(owned_tasks())
        stack.push_async_callback(self.close)  # (before the group waits for its tasks)
        await self._listen_now()

    async def _listen_now(self) -> None:
        host, port = self._listen
        limit = self._config.open_file_limit
        self._shares = FdShares.of(limit if limit is not None else open_file_limit(),
                                   MAX_PENDING_HANDSHAKES, MAX_LOBBY_LINKS,
                                   MAX_LOBBY_LINKS_PER_SOURCE)
        quiet_accept_errors(self._count_failed_accept)
        try:
            self._server = await asyncio.start_server(self._accept, host, port)
        except OSError as exc:  # port taken, address not ours: the user's choice, say so
            reason = exc.strerror or str(exc)
            raise UserError(f"cannot listen on {host}:{port}: {reason.lower()}") from None
        self._port = self._server.sockets[0].getsockname()[1]

    def _count_failed_accept(self) -> int:
        self.out_of_files += 1
        return self.out_of_files

    @property
    def shares(self) -> FdShares:
        """The caps in force (lowered to fit the open-file limit read at start)."""
        return self._shares

    def stop_listening(self) -> None:
        """Take no more connections; the links we have stay until `close`. A peer whose game
        is done has nothing left to give a newcomer, who is better refused at once than
        linked and dropped a moment later."""
        if self._server is not None:
            self._server.close()

    @property
    def port(self) -> int:
        if self._port is None:
            raise LocalProtocolError("the mesh is not listening; call start() first")
        return self._port

    async def close(self) -> None:
        """Say BYE on every link, stop listening and dialling; ends `events()`."""
        if self._closing:
            return
        self._closing = True
        if self._server is not None:
            self._server.close()
        links = list(self._links.values())
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*(link.close("leaving") for link in links))
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._links.clear()
        if self._server is not None:
            await self._server.wait_closed()
        self._inbox.close()

    # -- who may connect ------------------------------------------------------------------

    def seat(self, peer_ids: Iterable[bytes]) -> None:
        """Add players to the seated set (they may connect after `accepting_new` is off)."""
        for peer_id in peer_ids:
            if len(peer_id) != PEER_ID_BYTES:
                raise LocalProtocolError(f"peer_id must be {PEER_ID_BYTES} bytes")
            self._seated.add(peer_id)

    @property
    def seated(self) -> frozenset[bytes]:
        return frozenset(self._seated)

    def _may_connect(self, peer_id: bytes) -> bool:
        if peer_id in self._seated or peer_id in self._dialers or peer_id in self._links:
            return True
        if self._code_guard.wait_left(asyncio.get_running_loop().time()) > 0:
            # too many wrong codes, from anywhere: no stranger gets to try one for now
            self.refused_table_wide += 1
            return False
        if self.accepting_new:
            return True
        guests = [p for p in self._links if p not in self._seated and p != peer_id]
        return len(guests) < self.max_guests

    # -- dialling -------------------------------------------------------------------------

    def connect(self, peer_id: bytes, host: str, port: int) -> None:
        """Keep a link to `peer_id` at host:port: dial now and redial whenever it drops."""
        if self._closing:
            raise LocalProtocolError("the mesh is closed")
        if peer_id == self.identity.peer_id:
            raise LocalProtocolError("cannot connect to ourselves")
        old = self._dialers.pop(peer_id, None)
        if old is not None:
            old.cancel()
        self._dialers[peer_id] = self._spawn(f"dial {fingerprint_hex(peer_id)}",
                                             self._dial_loop, peer_id, host, port)

    async def disconnect(self, peer_id: bytes, reason: str = "bye") -> None:
        """Stop dialling `peer_id` and close its link (if any)."""
        dialer = self._dialers.pop(peer_id, None)
        if dialer is not None:
            dialer.cancel()
        link = self._links.get(peer_id)
        if link is not None:
            await link.close(reason)

    async def _dial_loop(self, peer_id: bytes, host: str, port: int) -> None:
        config = self._config
        delay = config.backoff_initial
        loop = asyncio.get_running_loop()
        while True:
            if peer_id in self._links:
                up_since = loop.time()
                await self._gone_event(peer_id).wait()
                if loop.time() - up_since >= config.backoff_reset_after:
                    delay = config.backoff_initial
                await self._backoff(delay)
                delay = min(delay * 2, config.backoff_max)
                continue
            try:
                link = await self._open(host, port, expected=peer_id)
            except HanabiError as exc:
                self._report(LinkFailed(f"{host}:{port}", exc, peer_id))
            else:
                await self._adopt(link, f"{host}:{port}")
                continue
            await self._backoff(delay)
            delay = min(delay * 2, config.backoff_max)

    async def dial(self, host: str, port: int, expected: bytes | None = None) -> bytes:
        """Dial whoever listens at host:port (joining a table found by discovery), or only
        the player `expected` if given.

        Returns the peer_id the handshake verified, then keeps the link up like `connect`.
        Raises a HanabiError saying why if the connection or the handshake fails.
        """
        if self._closing:
            raise LocalProtocolError("the mesh is closed")
        link = await self._open(host, port, expected=expected)
        peer_id = link.peer_id
        await self._adopt(link, f"{host}:{port}")
        if peer_id not in self._dialers:
            self.connect(peer_id, host, port)  # finds the link up and waits for it to drop
        return peer_id

    async def _open(self, host: str, port: int, *, expected: bytes | None) -> Link:
        address = f"{host}:{port}"
        try:
            async with asyncio.timeout(self._config.timing.handshake_timeout):
                reader, writer = await asyncio.open_connection(host, port)
        except (OSError, TimeoutError) as exc:
            raise LinkClosedError(address, _os_reason(exc)) from exc
        handshake = self._handshake(initiator=True, label=address, expected=expected)
        return await open_link(reader, writer, handshake, self._config.timing)

    async def _backoff(self, delay: float) -> None:
        # Jitter keeps peers that lost the same link from redialling in lockstep.
        await asyncio.sleep(delay * self._config.rng.uniform(0.5, 1.0))

    # -- accepting ------------------------------------------------------------------------

    @property
    def pending_handshakes(self) -> int:
        """Inbound connections still in their handshake."""
        return len(self._pending)

    @property
    def failed_code_attempts(self) -> int:
        """Wrong table codes received, from any source."""
        return self._source_codes.attempts

    @property
    def failed_code_by_source(self) -> dict[str, int]:
        """Wrong table codes per source address (a copy; the most recent sources)."""
        return dict(self._source_codes.by_source)

    @property
    def table_code_wait(self) -> float:
        """Seconds every stranger must still wait after the last of many wrong codes."""
        return self._code_guard.wait_left(asyncio.get_running_loop().time())

    def code_backoff_left(self, source: str) -> float:
        """Seconds `source` must still wait after its last wrong table code (0 if none)."""
        return self._source_codes.wait_left(source, asyncio.get_running_loop().time())

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A new inbound connection, handled by a task of the mesh's own (tracked, cancelled
        and awaited by `close`). Not by the task asyncio would make for a coroutine callback:
        nobody owns that one, and when it is cancelled at shutdown, Python 3.11's
        StreamReaderProtocol asks it for its exception and prints the CancelledError."""
        if self._closing:
            writer.close()
            return
        task = self._spawn(f"inbound {peer_address(writer)}", self._on_inbound, reader, writer)
        # (cancelled before it ran, by `close`: nothing else would close the socket)
        task.add_done_callback(lambda done: writer.close() if done.cancelled() else None)

    async def _on_inbound(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        address, source = peer_address(writer), peer_host(writer)
        wait, who = self.code_backoff_left(source), source
        table_wait = self._code_guard.wait_for(asyncio.get_running_loop().time(),
                                               source in self._source_codes.by_source)
        if wait <= 0 and self.accepting_new and table_wait > 0:
            # many wrong codes from all addresses together: in the lobby every stranger
            # waits, and then those that never guessed wrong go first (after the seating,
            # `_may_connect` still lets seated players in)
            wait, who = table_wait, TABLE_WIDE_SOURCE
            self.refused_table_wide += 1
        if wait > 0:
            # Refused before any work (no key exchange, no signature): a HELLO made once per
            # mesh, as every refusal starts with ours (so `join --address` still learns which
            # table this is), then a short reason so a player who mistyped the code knows to
            # wait rather than suspect the table.
            if who == source:
                self.refused_during_backoff += 1
            reason = backoff_reason(who, math.ceil(wait))
            with contextlib.suppress(Exception):
                writer.write(self._refusal_hello() + encode_frame(Error(clip_reason(reason))))
                writer.close()
            return
        task = asyncio.current_task()
        assert task is not None  # (`_accept` spawned it)
        self._make_room(source)
        pending = _Pending(task, HandshakeProgress(source, asyncio.get_running_loop().time()))
        self._pending[task] = pending
        try:
            handshake = self._handshake(initiator=False, label=address, expected=None)
            pending.handshake = handshake
            link = await open_link(reader, writer, handshake, self._config.timing)
        except WrongCodeGuessError as exc:
            self._count_wrong_code(source)
            self._report(LinkFailed(address, exc))
            return
        except HanabiError as exc:
            self._report(LinkFailed(address, exc))
            return
        except asyncio.CancelledError:
            if not pending.evicted:
                raise  # the mesh is closing
            # open_link closed the socket; the connection is told nothing (it was idle).
            reason = f"dropped unfinished to make room (pending handshakes from {source})"
            self._report(LinkFailed(address, LinkClosedError(address, reason)))
            return
        finally:
            self._pending.pop(task, None)
        if self._secret is not None:
            self._source_codes.right_code(source)  # it knows the code: no more waiting
            self._code_guard.right_code()
        await self._adopt(link, address, source=source)

    def _refusal_hello(self) -> bytes:
        if self._refusal_hello_bytes is None:
            # Its ephemeral key is never used for a key exchange, so one serves every refusal.
            hello = Handshake(
                self.identity,
                self.table_id,
                initiator=False,
                peer_label="refusal",
                secret=self._secret,
                random_bytes=self._random_bytes,
            ).start()[0]
            self._refusal_hello_bytes = encode_frame(hello)
        return self._refusal_hello_bytes

    def _make_room(self, source: str) -> None:
        """Drop unfinished handshake(s) so that one more fits both limits: idle ones before
        working ones, fairly across sources (`gate.handshake_to_drop`)."""
        pending = list(self._pending.values())
        per_source = min(MAX_PENDING_PER_SOURCE, self._shares.pending)
        now = asyncio.get_running_loop().time()
        for index in handshake_to_drop([p.slot(now) for p in pending], source, per_source,
                                       self._shares.pending):
            self._evict(pending[index])

    def _evict(self, pending: _Pending) -> None:
        pending.evicted = True
        self._pending.pop(pending.task, None)  # room now, not when the task gets to run
        pending.task.cancel()
        self.evicted_handshakes += 1

    def _count_wrong_code(self, source: str) -> None:
        now = asyncio.get_running_loop().time()
        self._source_codes.wrong_code(source, now)
        self._code_guard.wrong_code(now)

    def _handshake(self, *, initiator: bool, label: str, expected: bytes | None) -> Handshake:
        return Handshake(
            self.identity,
            self.table_id,
            initiator=initiator,
            peer_label=label,
            secret=self._secret,
            expected_peer=expected,
            allow_peer=None if initiator else self._may_connect,
            random_bytes=self._random_bytes,
        )

    # -- links ----------------------------------------------------------------------------

    def _keep_existing(self, old: Link, new: Link) -> bool:
        """Of two links to one peer, keep `old` only if the lower peer_id dialled it and not
        `new`. Both ends compute the same answer, so they keep the same link; otherwise the
        newer link wins (the dialler knows its old link is dead even if we do not yet)."""
        lower_is_me = self.identity.peer_id < old.peer_id

        def dialled_by_lower(link: Link) -> bool:
            return link.initiator == lower_is_me

        return dialled_by_lower(old) and not dialled_by_lower(new)

    async def _adopt(self, link: Link, address: str, *, source: str | None = None) -> None:
        """Keep `link` (`source`: the address of an inbound one) and start reading it."""
        if self._closing:
            await link.close("leaving")
            return
        peer_id = link.peer_id
        old = self._links.get(peer_id)
        if old is not None and self._keep_existing(old, link):
            await link.close("duplicate link")
            return
        now = asyncio.get_running_loop().time()
        self._links[peer_id] = link
        config = self._config
        self._info[peer_id] = _LinkInfo(address, source or address.rpartition(":")[0],
                                        source is not None, ReadBudget(config.guest_budget, now),
                                        ReadBudget(config.seated_budget, now), now,
                                        ReadBudget(config.guest_budget, now))
        self._gone_event(peer_id).clear()
        link.start(self._running_group())
        # PeerUp goes first so that no Received from this link can overtake it.
        await self._put(PeerUp(peer_id, address))
        self._spawn(f"pump {link.label}", self._pump, link)
        if old is not None:
            await old.close("replaced by a newer link")
        if self.accepting_new and source is not None:
            await self._cap_lobby_links()

    def _is_guest(self, peer_id: bytes) -> bool:
        """A peer not seated that we do not dial ourselves: a spectator or a lobby guest."""
        return peer_id not in self._seated and peer_id not in self._dialers

    async def _cap_lobby_links(self) -> None:
        """Close guests' inbound links, idle the longest first, until the lobby's caps hold
        (per source address and in all)."""
        while True:
            guests = [(peer_id, info) for peer_id, info in self._info.items()
                      if info.inbound and self._is_guest(peer_id) and peer_id in self._links]
            slots = [Slot(info.source, True, info.last_frame) for _, info in guests]
            index = link_to_close(slots, self._shares.lobby_links_per_source,
                                  self._shares.lobby_links)
            if index is None:
                return
            peer_id, _ = guests[index]
            link = self._links.pop(peer_id)  # (its pump reports it down)
            self._gone_event(peer_id).set()
            self.closed_lobby_links += 1
            await self._put(PeerDown(peer_id, "closed to make room in the lobby (idle the "
                                     "longest)"))
            await link.close("the lobby is full: closed the link idle the longest")

    async def _pump(self, link: Link) -> None:
        error: HanabiError | None = None
        loop = asyncio.get_running_loop()
        info = self._info[link.peer_id]
        try:
            while True:
                frame = await link.recv()
                if link.peer_id not in self._links:  # closed to make room: PeerDown is out
                    raise LinkClosedError(link.label, "closed to make room in the lobby")
                now = loop.time()
                guest = self._is_guest(link.peer_id)
                budget = info.as_guest if guest else info.as_seated
                if not budget.take(now) and (guest or isinstance(frame, Have | Want)
                                             or not info.unique.take(now)):
                    # (a seated player's next HAVE or WANT says it again; its entries and
                    # messages, its signed `complete` above all, have a budget of their own)
                    self.dropped_frames += 1
                    if budget.over_for_long(now):
                        raise LinkFloodError(link.label, (
                            f"sent more than {budget.rule.rate:g} frames a second for"
                            f" {budget.rule.close_after:g} s ({budget.dropped} "
                            "dropped): link closed"))
                    if guest:
                        # read nothing more from it until its budget allows: its flood
                        # then waits in the socket's buffers, and TCP slows the sender for
                        # us. (A seated player's link is read on, the excess dropped: what
                        # else it sends, its signed word at the end above all, must not
                        # wait behind its flood, or the honest would wait for it in vain.)
                        await asyncio.sleep(budget.pause(now))
                    continue
                info.last_frame = now
                await self._put(Received(link.peer_id, frame))
        except LinkFloodError as exc:
            reason, error = str(exc), exc
            self.flood_closed += 1
        except LinkClosedError as exc:
            reason = exc.reason
        except HanabiError as exc:
            reason, error = str(exc), exc
            if isinstance(exc, LinkAuthError):
                self.auth_failures += 1
        finally:
            if self._links.get(link.peer_id) is link:
                del self._links[link.peer_id]
                self._gone_event(link.peer_id).set()
                stays_down = True
            else:
                stays_down = False  # replaced (or closed to make room, and reported then)
            if self._info.get(link.peer_id) is info and link.peer_id not in self._links:
                del self._info[link.peer_id]
        await link.close(reason)
        if stays_down and not self._closing:
            await self._put(PeerDown(link.peer_id, reason, error))

    def _running_group(self) -> asyncio.TaskGroup:
        if self._group is None:
            raise LocalProtocolError("the mesh is not running: use `async with` it")
        return self._group

    def _spawn(self, name: str, work: Callable[P, Coroutine[Any, Any, None]], *args: P.args,
               **kwargs: P.kwargs) -> asyncio.Task[None]:
        """Run `work(*args)` as a task of the mesh's group (cancelled and awaited by `close`).
        (The coroutine is made when the task starts: one cancelled before that never was.)"""
        task = self._running_group().create_task(
            self._guarded(name, functools.partial(work, *args, **kwargs)), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _guarded(self, name: str, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """A dial, pump or inbound task: a network error that escapes it is one more link
        problem; anything else is a bug of ours, and it ends the mesh's group visibly
        rather than leave a silently dead task behind."""
        try:
            await work()
        except (HanabiError, OSError) as error:
            if self._closing:
                return
            reason = error if isinstance(error, HanabiError) else LinkClosedError(
                name, _os_reason(error))
            self._report(LinkFailed(name, reason))

    def _gone_event(self, peer_id: bytes) -> asyncio.Event:
        return self._link_gone.setdefault(peer_id, asyncio.Event())

    def _report(self, event: LinkFailed) -> None:
        self._inbox.report(event)

    async def _put(self, event: PeerUp | PeerDown | Received) -> None:
        await self._inbox.put(event, guest=self._is_guest(event.peer_id))

    # -- sending and receiving ------------------------------------------------------------

    @property
    def connected(self) -> frozenset[bytes]:
        """Peers with a link up right now."""
        return frozenset(self._links)

    def send(self, peer_id: bytes, frame: Frame) -> bool:
        """Queue a frame for one peer; False if there is no link to it (or it just dropped)."""
        return self._send_payload(peer_id, encode_payload(frame))

    def broadcast(self, frame: Frame) -> int:
        """Queue a frame for every connected peer; returns how many links took it. The
        players' links come first, the guests' (spectators) after them: a player waits for
        a turn's entry, and each link seals and writes its copy in turn, so eight spectators
        linked before the players would have made the players wait for eight copies."""
        payload = encode_payload(frame)  # encoded once; each link seals it with its own key
        peers = sorted(self._links, key=self._is_guest)  # (stable: False, the players, first)
        return sum(self._send_payload(peer_id, payload) for peer_id in peers)

    def _send_payload(self, peer_id: bytes, payload: bytes) -> bool:
        link = self._links.get(peer_id)
        if link is None:
            return False
        try:
            queued = link.send_payload(payload)
        except LinkClosedError:
            return False
        self.frames_sent += 1
        self.bytes_sent += queued
        return True

    async def next_event(self) -> MeshEvent | None:
        """The next event, or None once the mesh is closed."""
        while True:
            ready, event = self._inbox.ready()
            if ready:
                break
            if self._closing:
                return None
            self._inbox.wakeup.clear()
            await self._inbox.wakeup.wait()
        return event

    async def events(self) -> AsyncIterator[MeshEvent]:
        """All events until the mesh is closed."""
        while (event := await self.next_event()) is not None:
            yield event


def open_file_limit() -> int | None:
    """This program's soft limit of open files, or None where the system has no such
    limit to read (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _os_reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "connection attempt timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot connect: {exc.strerror}"
    return f"cannot connect ({type(exc).__name__})"
