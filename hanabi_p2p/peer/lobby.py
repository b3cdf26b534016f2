"""The lobby, both sides of it: the host that seats players, and a joiner that asks.

`HostLobby` keeps who waits for a seat, whom the host removed (`kick`: until it asks again,
under a new name or from a new program) or banned (`ban`: for good) and who said it left; it
seats players on ``start`` or by itself once the table fills. `JoinerLobby` asks for a seat
once it holds the lobby the host told it of, asks again under a new name (`name`), and stops
when the host removes or bans it, closes the table or stays out of reach as long as a player
would wait for a player.

Lobby messages (MSG topics, link-authenticated, never signed): the host tells a joiner it
removed or banned (`REMOVED_TOPIC`), and the other joiners whom it will not seat
(`lobbywire.OUT_TOPIC`, so that their screens list the lobby as the host's does); anyone
leaving a table that has seated nobody yet tells everyone it is linked to (`LEFT_TOPIC`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from hanabi_p2p import refusals as rf
from hanabi_p2p.errors import HanabiError, Refusal
from hanabi_p2p.limits import MAX_PLAYER_NAME_CHARS
from hanabi_p2p.lookalike import skeleton
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import PeerContext
from hanabi_p2p.peer.lobbywire import OUT_TOPIC, decode_out, encode_out
from hanabi_p2p.session.table import LOBBY

# MSG topic in the lobby, host -> a joiner it removed (`kick`) or banned (`ban`), just before
# closing the link: the joiner stops at once instead of waiting for a table that will not
# take it, and says which. Body: empty for removed (it may ask again), BANNED_BODY for banned.
REMOVED_TOPIC = "lobby.removed"
BANNED_BODY = b"banned"
# MSG topic in the lobby, from a peer leaving a table that has seated nobody yet, to every peer
# it is linked to: the host's joiners stop (the table is gone), the host stops counting a
# joiner that left (until it links up again). Empty body.
LEFT_TOPIC = "lobby.left"

# How a lobby machine ends its peer: the end kind, why, and whether to forget the table.
Finish = Callable[[fx.EndKind, Refusal, bool], None]


def fold_name(name: str) -> str:
    """Names as people read them: case, accents, spacing and look-alike letters do not make
    two names differ."""
    return skeleton(name)


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or "name 2", "name 3"... if a player at the table has it already (kept
    within the player-name limit)."""
    folded = {fold_name(t) for t in taken}
    if fold_name(name) not in folded:
        return name
    for n in itertools.count(2):
        suffix = f" {n}"
        candidate = name[: MAX_PLAYER_NAME_CHARS - len(suffix)].rstrip() + suffix
        if fold_name(candidate) not in folded:
            return candidate
    raise AssertionError("unreachable: itertools.count never ends")


def in_lobby(ctx: PeerContext) -> bool:
    """At a table (as a player) that has seated nobody yet."""
    return ctx.session.table is not None and not ctx.session.seats


@dataclass
class HostLobby:
    """The host's side; in a joiner's core it holds nothing and decides nothing."""

    ctx: PeerContext
    # joiners banned (`ban`): never seated, their entries dropped, told again on every link
    banned: set[bytes] = field(default_factory=set)
    # joiners removed (`kick`), with the seq of the request for a seat they were removed
    # under: left out until they ask again (a new name, or a new program coming back)
    removed: dict[bytes, int] = field(default_factory=dict)
    # joiners that said they left the lobby (lobby.left), until they link up again; and a
    # seated player who left as it was seated (it keeps no copy: nobody lingers for it)
    left: set[bytes] = field(default_factory=set)
    # what we last told each joiner linked to us of whom we will not seat (lobby.out)
    told_out: dict[bytes, frozenset[bytes]] = field(default_factory=dict)

    @property
    def is_host(self) -> bool:
        return self.ctx.session.host_id == self.ctx.me

    def left_out(self) -> set[bytes]:
        """Joiners the host will not seat: removed (until they ask again), banned, gone from
        the lobby, or caught signing two entries as one."""
        return (self.banned | self.still_removed() | self.left
                | self.ctx.replica.equivocators)

    def still_removed(self) -> set[bytes]:
        """Joiners removed with `kick` that have not asked for a seat again since."""
        asked = self.ctx.session.join_seq
        return {p for p, seq in self.removed.items() if asked.get(p) == seq}

    def waiting(self) -> list[tuple[bytes, str]]:
        """Joiners waiting for a seat, in join order, without those the host will not seat."""
        excluded = self.left_out()
        return [(p, j.name) for p, j in self.ctx.session.joins.items() if p not in excluded]

    def changed(self) -> None:
        self.ctx.event(fx.LobbyChanged(len(self.waiting())))
        self.tell_out()

    def tell_out(self) -> None:
        """Tell each joiner linked to us whom we will not seat, when that changed for it: the
        others' screens would list a removed joiner as waiting for ever (they hold its
        signed request for a seat, and only we know it is out)."""
        session = self.ctx.session
        if not self.is_host or session.seats:
            return
        excluded = self.left_out()
        out = frozenset(excluded.intersection(session.joins))
        for peer_id in session.joins:
            if peer_id in excluded or peer_id not in self.ctx.connected:
                continue
            if self.told_out.get(peer_id, frozenset()) != out:
                self.told_out[peer_id] = out
                self.ctx.send(peer_id, fr.Message(OUT_TOPIC, encode_out(out)))

    def start_game(self, *, by_command: bool) -> None:
        session = self.ctx.session
        if not self.is_host:
            if by_command:
                raise rf.OnlyHostStarts()
            return
        if session.table is None or session.seats or session.has_outbox:
            if by_command and session.seats:
                raise rf.GameStartedAlready()
            return
        players = session.table.config.players
        # two joiners who raced for one name: the first keeps it, the other is not seated
        names = {fold_name(session.table.host_name)}
        waiting = []
        for peer_id, name in self.waiting():
            if peer_id not in self.ctx.connected:
                # its program ended without a word (a crash, a laptop closed), or its link is
                # being made again: seated, it would hold the whole table up for the wait
                # timeout; it is seated when it links up again, if there is room
                continue
            if fold_name(name) not in names:
                names.add(fold_name(name))
                waiting.append(peer_id)
        if 1 + len(waiting) < players:
            if by_command:
                missing = players - 1 - len(waiting)
                raise rf.WaitingForPlayers(missing)
            return
        session.seat_players(self.ctx.address, joiners=waiting[: players - 1])

    def kick(self, peer_id: bytes, *, ban: bool = False) -> None:
        """Remove a joiner from the lobby: it may ask again (a new name, a new program), or
        with ``ban`` never (its entries are dropped from then on)."""
        session = self.ctx.session
        if not self.is_host:
            raise rf.OnlyHostRemoves()
        if session.seats:
            raise rf.TooLateToRemove()
        if peer_id not in session.joins:
            raise rf.NotInLobby()
        if ban:
            self.banned.add(peer_id)
        else:
            self.removed[peer_id] = session.join_seq[peer_id]
        self.ctx.connected.discard(peer_id)
        self.remove(peer_id, banned=ban)
        self.changed()

    def remove(self, peer_id: bytes, *, banned: bool) -> None:
        """Tell a joiner the host removed or banned that it is out, then close its link (the
        frames queued before the close go first)."""
        self.ctx.send(peer_id, fr.Message(REMOVED_TOPIC, BANNED_BODY if banned else b""))
        self.ctx.emit(fx.Disconnect(
            peer_id, "banned from the table by the host" if banned
            else "removed from the table by the host"))

    def came_back(self, peer_id: bytes) -> bool:
        """A link came up. False when it is a joiner we banned (told again, link closed); a
        joiner we removed may link up again, to ask for a seat anew."""
        if peer_id in self.banned:
            self.remove(peer_id, banned=True)
            return False
        self.told_out.pop(peer_id, None)  # a new link knows nothing yet (`linked` tells it)
        if peer_id in self.left:  # it came back to the lobby it had left
            self.left.discard(peer_id)
            self.changed()
        return True

    def linked(self) -> None:
        """A link came up and counts as connected: a joiner on it learns whom we left out."""
        self.tell_out()

    def joiner_left(self, peer_id: bytes) -> None:
        """One of our joiners said it left (on its own link): it no longer waits."""
        session = self.ctx.session
        if peer_id in self.banned or peer_id in self.still_removed():
            return  # (told to go, it says it went: no news)
        if self.is_host and peer_id in session.joins and peer_id not in self.left:
            self.left.add(peer_id)
            self.ctx.event(fx.JoinerLeft(peer_id, session.joins[peer_id].name))
            self.changed()

    def left_during_the_deal(self, peer_id: bytes) -> None:
        """A seated player left as it was seated (its lobby.left crossed the seating): it is
        gone for good, keeping nothing of the table, so the game stops at once, blaming
        nobody, rather than wait the wait timeout for it."""
        self.left.add(peer_id)  # (nothing to linger for: it keeps no copy)
        self.ctx.session.abort(None, f"{self.ctx.describe(peer_id)} left before the deal")


@dataclass
class JoinerLobby:
    """A joiner's side (a host's core has one too: it never asks, and has no host to lose)."""

    ctx: PeerContext
    player_name: str
    runner: bytes | None  # a computer player: whose machine runs it (LobbyJoin.runner)
    finish: Finish
    started_at: float
    # our host, unreachable in the lobby since (None: linked, or not a joiner)
    host_down_since: float | None = None
    # the joiners our host says it will not seat (lobby.out): not listed on our screen
    out_by_host: frozenset[bytes] = frozenset()

    def may_ask(self) -> bool:
        """Whether we hold everything the host has told us of (the table and the joins
        before ours), so that our name is chosen knowing every name taken."""
        ctx = self.ctx
        session = ctx.session
        if session.host_id in (None, ctx.me) or session.table is None or session.seats:
            return False
        assert session.host_id is not None
        told = ctx.sync.peers.get(session.host_id)
        if told is None:
            return False
        ours = ctx.replica.have()
        return all(ours.get(author, 0) >= n for author, n in told.seqs.items())

    def ask_for_seat(self) -> None:
        """Under a name nobody at the table has yet: "Dave 2" if Dave is taken. Names are
        unique at a table, so players can name each other."""
        session = self.ctx.session
        assert session.table is not None
        taken = [session.table.host_name, *(j.name for p, j in session.joins.items()
                                           if p != self.ctx.me)]
        session.request_seat(unique_name(self.player_name, taken), self.ctx.address,
                             self.runner)

    def rename(self, name: str) -> None:
        """Ask for our seat again under another name (unique at the table, as the first
        time), before the seating; the host's name is the table's, fixed when it opened."""
        session = self.ctx.session
        if session.host_id == self.ctx.me:
            raise rf.HostNameFixed()
        if session.seats:
            raise rf.TooLateToRename()
        before, self.player_name = self.player_name, name
        if self.ctx.me not in session.joins:
            return  # our first request will carry it
        try:
            self.ask_for_seat()
        except HanabiError:  # a name no table takes (empty, too long): say why, keep ours
            self.player_name = before
            raise

    def removed(self, peer_id: bytes, body: bytes) -> None:
        """The host removed or banned us from its lobby: stop, saying which. Only the host's
        word, and only before the seating (after it, a seat is decided and nobody can be
        removed)."""
        session = self.ctx.session
        if peer_id != session.host_id or session.host_id == self.ctx.me or session.seats:
            return
        why = rf.BannedByHost() if body == BANNED_BODY else rf.RemovedByHost()
        self.finish(fx.EndKind.LEFT, why, True)

    def host_says_out(self, peer_id: bytes, body: bytes) -> None:
        """Our host told us whom it will not seat. Only the host's word, and only before the
        seating; it changes what our screen lists, nothing else (no seat, no blame)."""
        session = self.ctx.session
        if peer_id != session.host_id or session.host_id == self.ctx.me or session.seats:
            return
        try:
            out = decode_out(body)
        except HanabiError as exc:
            self.ctx.link_problem(peer_id, f"sent a bad list of the lobby: {exc}")
            return
        if out != self.out_by_host:
            self.out_by_host = out
            self.ctx.event(fx.LobbyChanged(sum(p not in out for p in session.joins)))

    def host_left(self, peer_id: bytes) -> None:
        session = self.ctx.session
        if peer_id == session.host_id and session.host_id != self.ctx.me:
            self.finish(fx.EndKind.LEFT, rf.HostClosedTable(), True)

    def link_up(self, peer_id: bytes) -> None:
        if peer_id == self.ctx.session.host_id:
            self.host_down_since = None

    def link_down(self, peer_id: bytes) -> None:
        if peer_id == self.ctx.session.host_id and self.host_down_since is None:
            self.host_down_since = self.ctx.now

    def suspended(self) -> None:
        if self.host_down_since is not None:
            self.host_down_since = self.ctx.now

    def check_lobby_timeout(self) -> None:
        limit = self.ctx.timing.lobby_timeout
        session = self.ctx.session
        if limit is None or session.phase != LOBBY or session.seats:
            return
        if self.ctx.now - self.started_at > limit:
            self.finish(fx.EndKind.LEFT, rf.TableDidNotFill(limit), False)

    def check_host_reachable(self) -> None:
        """A joiner whose host has been out of reach in the lobby as long as a player would
        wait for a player (the host's program ended without a word: a crash, a machine
        switched off) stops and says so, instead of waiting for ever (nobody is seated:
        should the table come back, it joins it again)."""
        limit, since = self.ctx.timing.wait_timeout, self.host_down_since
        if limit is None or since is None or not in_lobby(self.ctx):
            return
        if self.ctx.session.host_id == self.ctx.me or self.ctx.now - since < limit:
            return
        self.finish(fx.EndKind.LEFT, rf.HostUnreachable(int(self.ctx.now - since)), False)
