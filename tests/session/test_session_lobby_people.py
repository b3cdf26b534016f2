"""The lobby as people meet it (issue 30): table talk named before and after the deal."""

from __future__ import annotations

from session_harness import Table

from hanabi_p2p.narration.narrator import event_lines
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address


def test_table_talk_in_the_lobby_is_named_on_every_copy_including_the_speakers() -> None:
    table = Table(GameConfig(3), seed=3)
    host, bob, cid = table.peers
    host.session.open_table("talk", "Ann", table.config)
    table.pump()
    bob.session.request_seat("Bob", Address("127.0.0.1", 40001))
    cid.session.request_seat("Cid", Address("127.0.0.1", 40002))
    table.pump()
    for peer in table.peers:
        peer.session.take_events()
    host.session.say("hi all")
    bob.session.say("ready?")
    table.pump()
    for peer in table.peers:
        said = sorted(line for event in peer.session.take_events()
                      if isinstance(event, ev.Chat) for line in event_lines(event, []))
        assert said == ["Ann says: hi all", "Bob says: ready?"]
    host.session.seat_players(Address("127.0.0.1", 40000))
    table.pump()
    bob.session.say("good luck")
    table.pump()
    chats = [e for e in cid.session.take_events() if isinstance(e, ev.Chat)]
    assert [event_lines(e, cid.session.names) for e in chats] == [["Bob says: good luck"]]
