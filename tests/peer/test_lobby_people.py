"""The lobby as people use it (issue 30): `kick` removes without banning, `ban` bans on
purpose, the removed player is told which, and a joiner changes its name with `name`."""

from __future__ import annotations

from core_harness import SimNet, no_blame, safe_command

from hanabi_p2p import refusals as rf
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import Timing
from hanabi_p2p.peer.lobbywire import OUT_TOPIC, encode_out
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.table import AUDITED
from hanabi_p2p.session.verify import verify_game

LOBBY = Timing(lobby_timeout=600.0, linger=1.0)


def lobby_of(net: SimNet) -> dict[bytes, str]:
    return dict(net.peers[0].core.lobby())


def test_kick_says_removed_and_ban_says_banned_and_only_a_ban_drops_the_entries() -> None:
    net = SimNet(GameConfig(3), seed=30, auto_start=False, timing=LOBBY)
    net.open_table()
    net.run_for(2.0)
    host, bob, cid = net.peers[:3]
    assert set(lobby_of(net)) == {bob.peer_id, cid.peer_id}
    assert safe_command(net, host, fx.Kick(bob.peer_id)) is None
    assert safe_command(net, host, fx.Kick(cid.peer_id, ban=True)) is None
    net.run_for(2.0)
    assert bob.finished is not None and isinstance(bob.finished.refusal, rf.RemovedByHost)
    assert cid.finished is not None and isinstance(cid.finished.refusal, rf.BannedByHost)
    assert "you may join again" in bob.finished.failure
    assert "will not seat you" in cid.finished.failure
    assert lobby_of(net) == {}
    # a removed joiner's entries still count (it may ask again); a banned one's never
    assert host.core.banned == {cid.peer_id}
    assert bob.peer_id in host.core.members() and cid.peer_id not in host.core.members()
    assert host.finished is None and no_blame(net)


def test_a_joiner_renames_itself_in_the_lobby_and_sits_under_its_new_name() -> None:
    """A friend who sat as "root" (the login name) types `name Bob`: the host's lobby lists
    Bob, the seating seats Bob, and every copy of the game verifies with one digest."""
    net = SimNet(GameConfig(3), seed=31, auto_start=False, timing=LOBBY)
    net.open_table()
    net.run_for(2.0)
    host, root = net.peers[:2]
    assert safe_command(net, root, fx.Rename("Bob")) is None
    net.run_for(2.0)
    assert lobby_of(net)[root.peer_id] == "Bob"
    assert safe_command(net, host, fx.Start()) is None
    net.run(lambda: all(p.finished is not None for p in net.peers[:3]))
    assert all(p.session.phase == AUDITED for p in net.peers[:3]) and no_blame(net)
    assert host.session.names[host.session.seat_of(root.peer_id) or 0] == "Bob"
    reports = [verify_game(p.stored) for p in net.peers[:3]]
    assert {r.verdict.value for r in reports} == {"valid"}
    assert len({r.digest for r in reports}) == 1
    # the seating names the request it repeats when not the first: the second one (seq 1)
    assert [s.join for s in host.session.seats] == [None, 1, None]


def test_a_renamed_name_stays_unique_and_the_host_and_the_seated_cannot_rename() -> None:
    net = SimNet(GameConfig(3), seed=32, auto_start=False, timing=LOBBY)
    net.open_table()
    net.run_for(2.0)
    host, bob, cid = net.peers[:3]
    cid_name = lobby_of(net)[cid.peer_id]
    assert safe_command(net, bob, fx.Rename(cid_name)) is None
    net.run_for(2.0)
    assert lobby_of(net)[bob.peer_id] == f"{cid_name} 2"  # names are unique at a table
    assert safe_command(net, host, fx.Rename("Boss")) == str(rf.HostNameFixed())
    assert safe_command(net, bob, fx.Rename("")) is not None  # said why, nothing sent
    assert lobby_of(net)[bob.peer_id] == f"{cid_name} 2"
    assert safe_command(net, host, fx.Start()) is None
    net.run(lambda: bool(bob.session.seats))
    assert safe_command(net, bob, fx.Rename("Late")) == str(rf.TooLateToRename())


def test_every_joiner_lists_the_lobby_as_the_host_does_after_a_kick_or_a_ban() -> None:
    """The other joiners hold the removed joiner's signed request for a seat, and only the
    host knows it is out: without the host's word (lobby.out) their screens listed it as
    waiting until the deal."""
    net = SimNet(GameConfig(5), seed=33, auto_start=False, timing=LOBBY)
    net.open_table()
    net.run_for(2.0)
    host, bob, cid, dan, eve = net.peers[:5]
    everyone = {bob.peer_id, cid.peer_id, dan.peer_id, eve.peer_id}
    assert all(set(dict(p.core.lobby())) == everyone for p in (cid, dan, eve))
    assert safe_command(net, host, fx.Kick(bob.peer_id)) is None
    assert safe_command(net, host, fx.Kick(eve.peer_id, ban=True)) is None
    net.run_for(2.0)
    for joiner in (cid, dan):
        assert set(dict(joiner.core.lobby())) == {cid.peer_id, dan.peer_id}, joiner.index
    assert set(lobby_of(net)) == {cid.peer_id, dan.peer_id}
    assert no_blame(net)


def test_only_the_host_says_who_is_out_and_a_bad_list_is_a_link_problem() -> None:
    net = SimNet(GameConfig(3), seed=34, auto_start=False, timing=LOBBY)
    net.open_table()
    net.run_for(2.0)
    _host, bob, cid = net.peers[:3]
    both = {bob.peer_id, cid.peer_id}
    # another joiner cannot hide a rival from our screen
    net.deliver(2, 1, fr.Message(OUT_TOPIC, encode_out([bob.peer_id, cid.peer_id])))
    net.run_for(1.0)
    assert set(dict(bob.core.lobby())) == both
    # garbage from the host is said as a link problem of that link, blaming nobody
    net.deliver(0, 1, fr.Message(OUT_TOPIC, b"\x91\xc4\x01x"))
    net.run_for(1.0)
    assert any("bad list of the lobby" in p.reason for p in bob.link_problems())
    assert set(dict(bob.core.lobby())) == both and no_blame(net)
