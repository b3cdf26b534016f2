"""The lobby stage of the table session: the table, requests for seats, the seating, talk.

The host's ``table.open``; each joiner's ``lobby.join``; the host's ``lobby.seat`` (seat
order = turn order), after which the host has no more say than anyone else. Table talk
(``chat``) begins here and goes on at every stage.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import deckio
from hanabi_p2p.session import events as ev
from hanabi_p2p.session import kinds as k
from hanabi_p2p.session.base import GameFault, SessionBase
from hanabi_p2p.session.kinds import place
from hanabi_p2p.session.phase import Trigger


class LobbyStage(SessionBase):
    """The lobby: opening, joining, seating; and table talk."""

    def open_table(self, name: str, host_name: str, config: GameConfig,
                   table_options: frozenset[b.TableOption] = frozenset(),
                   turn_timer: int | None = None, total_clock: int | None = None) -> None:
        if self.table is not None:
            raise LocalProtocolError("the table is already open")
        table = b.TableOpen(name, host_name, config, table_options, turn_timer=turn_timer,
                            total_clock=total_clock)
        # the same checks peers make: fail here, with the reason, as the user's error
        b.local_value(lambda: b.TableOpen.from_wire(table.to_wire()))
        self._post(k.TABLE_OPEN, table)

    def request_seat(self, name: str, address: b.Address, runner: bytes | None = None) -> None:
        """Ask for a seat; a computer player gives ``runner`` (see ``LobbyJoin``)."""
        join = b.LobbyJoin(name, address, runner)
        b.local_value(lambda: b.LobbyJoin.from_wire(join.to_wire()))
        self._post(k.LOBBY_JOIN, join)

    def seat_players(
        self, host_address: b.Address, joiners: Sequence[bytes] | None = None
    ) -> None:
        """Host only: seat itself and the joiners chosen (default: every joiner, in join
        order), once there are enough of them."""
        if self.host_id != self.me or self.table is None:
            raise LocalProtocolError("only the host seats players")
        config = self.table.config
        chosen = list(self.joins) if joiners is None else list(joiners)
        if any(peer_id not in self.joins for peer_id in chosen):
            raise LocalProtocolError("only players who asked for a seat can be seated")
        if len(chosen) + 1 < config.players:
            raise LocalProtocolError("the table is not full yet")
        seats = [b.Seat(self.me, self.table.host_name, host_address)]
        for peer_id in chosen[: config.players - 1]:
            join = self.joins[peer_id]
            seq = self.join_seq[peer_id]
            named = None if seq == self.first_join_seq[peer_id] else seq
            seats.append(b.Seat(peer_id, join.name, join.address, named))
        self._post(k.LOBBY_SEAT, b.LobbySeat(tuple(seats)))

    def say(self, text: str) -> None:
        body = b.ChatBody(b.chat_text(text))
        self._check_side_post(k.CHAT.kind)
        self._post(k.CHAT, body)

    def _on_table_open(self, entry: Entry, table: b.TableOpen) -> None:
        if self.table is not None:
            raise GameFault(self._who(entry), "a second table.open for this table")
        if entry.seq != 0:
            raise GameFault(self._who(entry), "table.open must be its author's first entry")
        if self.host_id is not None and entry.author != self.host_id:
            raise GameFault(self._who(entry), "table.open not signed by the host we contacted")
        if table.deck_group is not b.LIVE_DECK_GROUP and not self._old_deck_groups:
            # a 0.2.0 table (no `group`): protocol 2, which this program only verifies
            raise b.BadBody(f"table.open: the deck group must be {b.LIVE_DECK_GROUP.value} "
                            f"(this table uses {table.deck_group.value}, protocol 2)")
        self.table = table
        self.host_id = entry.author
        self._events.append(ev.TableOpened(self.table.name))

    def _on_lobby_join(self, entry: Entry, join: b.LobbyJoin) -> None:
        if entry.author == self.host_id:
            raise GameFault(self._who(entry), "the host is seated already")
        if self.seats:
            if entry.author in self.joins:
                # a new name asked for as the host seated us: the seating names the request
                # it repeats, so this one changes nothing (and every copy agrees, SPEC 5.3)
                self.join_history[entry.author, entry.seq] = join
                return
            raise GameFault(self._who(entry), "the table is full: seating is already decided")
        before = self.joins.get(entry.author)
        # a joiner asks again to change its name, or after the host removed it (SPEC 5.3):
        # its latest request counts, in the place of its first in the join order
        self.joins[entry.author] = join
        self.join_history[entry.author, entry.seq] = join
        self.join_seq[entry.author] = entry.seq
        self.first_join_seq.setdefault(entry.author, entry.seq)
        self._events.append(ev.PlayerJoined(
            entry.author, join.name, renamed_from=before.name if before is not None else ""))

    def _on_lobby_seat(self, entry: Entry, seating: b.LobbySeat) -> None:
        assert self.table is not None
        if entry.author != self.host_id:
            raise GameFault(self._who(entry), "only the host seats players")
        if self.seats:
            raise GameFault(self._who(entry), "seating is already decided")
        config = self.table.config
        if len(seating.seats) != config.players:
            raise GameFault(self._who(entry), f"seated {len(seating.seats)} of {config.players}")
        if seating.seats[0].peer_id != self.host_id:
            raise GameFault(self._who(entry), "the host must take seat 0")
        host = seating.seats[0]
        if host.name != self.table.host_name:
            raise GameFault(self._who(entry), "seated the host under another name")
        for seat in seating.seats[1:]:
            join = self.seated_join(seat)
            if join is None:
                raise GameFault(self._who(entry), "seated a player who never asked for a seat")
            # SPEC 5.5: each seat repeats its joiner's name and address exactly (the address
            # is where the others connect; the name is what every screen shows)
            if (seat.name, seat.address) != (join.name, join.address):
                raise GameFault(
                    self._who(entry), f"changed {join.name}'s name or address at seating"
                )
        self.seats = seating.seats
        self.my_seat = self.seat_of(self.me)
        self._advance(Trigger.SEATED)
        self._events.append(ev.Seated())
        self.deck = deckio.DeckAdapter(
            config,
            self.table_id,
            [s.peer_id for s in self.seats],
            self.my_seat,
            self._seed,
            known_faces=self._known_faces,
            group=deckio.deck_group(self.table.deck_group),
            watching=self._spectator_view,
        )
        early, self._early_watch_keys = self._early_watch_keys, {}
        for peer_id, keys in sorted(early.items()):
            index = self.seat_of(peer_id)
            if index is not None:  # (the deck holds them until the seat's lock, and drops
                # one that does not fit it then, as it does any key that came early)
                self.deck.add_watch_keys(index, sorted(keys.items()))
        if self.my_seat is not None:
            self._post_deck(self.deck.start())

    def _on_chat(self, entry: Entry, chat: b.ChatBody) -> None:
        seat = self.seat_of(entry.author)
        text = chat.text
        if seat is None and entry.author != self.host_id and entry.author not in self.joins:
            raise GameFault(self._who(entry), "is not at this table")
        shown = seat if seat is not None else -1
        # kept in place order: chats from different players commute
        index = bisect.bisect(self._chat_places, place(entry))
        self._chat_places.insert(index, place(entry))
        self.chat_log.insert(index, (shown, text))
        # named as the table knows its author now: before the deal a joiner has no seat
        # yet, but its request for a seat (or the host's table.open) gives its name
        self._events.append(ev.Chat(shown, text, self.author_name(entry.author)))
