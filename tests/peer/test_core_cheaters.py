"""A seated player running a modified program (a SimNet core with a few methods replaced),
against honest cores: nobody honest is ever blamed, and the honest copies agree (issue 29).
One test per attack, named after it."""

from __future__ import annotations

from core_harness import SimNet, no_blame

from hanabi_p2p.log.entry import decode_entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import completewire as cw
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import Timing
from hanabi_p2p.peer.core import PeerCore
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.table import AUDITED


def test_a_forged_complete_cannot_make_an_honest_player_leave_another_behind() -> None:
    """Mallory gives her seed to Alice only, and tells Alice, in `complete`, that Bob holds
    everything (protocol 3 took a player's word for the others). Alice stays until Bob says
    so himself, so Bob gets Mallory's seed from Alice and both finish audited, one log."""
    net = SimNet(GameConfig(3), seed=61, timing=Timing(wait_timeout=120.0, linger=5.0))
    alice, bob, mallory = net.peers
    core = mallory.core
    assert isinstance(core, PeerCore)

    def forged_word(ours: dict[bytes, int]) -> None:
        body = cw.encode(mallory.identity, core.session.table_id, ours)
        # Bob's id where Mallory's stands: the body claims Bob holds what Mallory holds
        forged = body.replace(mallory.peer_id, bob.peer_id, 1)
        core.ctx.emit(fx.Broadcast(fr.Message(cw.COMPLETE_TOPIC, forged)))

    core.ending._say_complete = forged_word  # type: ignore[method-assign]

    def seed_to_alice_only(src: int, dst: int, frame: fr.Frame) -> bool:
        return not (src == mallory.index and dst == bob.index and isinstance(frame, fr.Entry)
                    and decode_entry(frame.data).kind == "seed")

    net.on_frame = seed_to_alice_only
    net.play_to_end()
    for p in (alice, bob):
        assert p.finished is not None and p.finished.kind is fx.EndKind.AUDITED, p.finished
        assert p.session.phase == AUDITED
    assert len({d for d in net.digests()}) == 1
    assert no_blame(net)
    # the forgery was bytes that are nobody's word: a link problem, never a blame
    assert any("bad 'complete'" in problem.reason for problem in alice.link_problems())


def test_a_have_and_want_flood_from_a_seated_player_costs_a_bounded_answer() -> None:
    """Mallory, seated, sends Alice 400 empty HAVEs and 400 WANTs of everything a second
    (each asked for the whole log in protocol 3, and got 256 entries). Alice drops what is
    over her budget unread and answers the rest within it: the game still finishes audited,
    one log, nobody blamed, and Mallory gets no more than the answer budget allows."""
    from hanabi_p2p.peer import inputs as ins
    from hanabi_p2p.peer.replication import ANSWER_BURST, ANSWER_RATE_PER_S

    net = SimNet(GameConfig(3), seed=62)
    alice, _bob, mallory = net.peers
    sent_to_mallory = 0

    def count(src: int, dst: int, frame: fr.Frame) -> bool:
        nonlocal sent_to_mallory
        sent_to_mallory += (src, dst) == (alice.index, mallory.index) and isinstance(
            frame, fr.Entry)
        return True

    def flood() -> None:
        if alice.finished is None and alice.session.seats:
            everyone = {s.peer_id: 0 for s in alice.session.seats}
            for _ in range(100):
                alice.core.handle(ins.Received(mallory.peer_id, fr.Have({}), net.now))
                alice.core.handle(ins.Received(mallory.peer_id, fr.Want(everyone), net.now))
            net._effects(alice)
        if not net.all_finished():
            net._schedule(0.25, flood)

    net.on_frame = count
    net.open_table()
    started = net.now
    net._schedule(0.25, flood)
    net.run(net.all_finished)
    for p in net.peers:
        assert p.finished is not None and p.finished.kind is fx.EndKind.AUDITED, p.finished
    assert len(net.digests()) == 1
    assert no_blame(net)
    assert alice.core.counters.rate_dropped > 0
    budget = ANSWER_BURST + ANSWER_RATE_PER_S * (net.now - started)
    assert sent_to_mallory <= budget
    # (protocol 3 answered each of the 800 frames a second with up to 256 entries)


def test_two_versions_of_one_action_are_found_proven_and_blamed_on_their_signer() -> None:
    """Mallory signs her turn action for Alice and, under the same number, a chat line for
    Bob. The counts in their HAVEs agree, so protocol 3 never compared them (and blamed an
    honest player for the divergence that followed). Now each HAVE names the last entry it
    counts: the fork is found within a sync interval, both versions reach both honest
    peers, Mallory alone is blamed, and each honest log keeps the proof, so that its
    verification names her too."""
    from hanabi_p2p.log.entry import make_entry
    from hanabi_p2p.session.table import ABORTED
    from hanabi_p2p.session.verify import verify_game

    net = SimNet(GameConfig(3), seed=63)
    alice, bob, mallory = net.peers
    forked: list[int] = []

    def fork_for_bob(src: int, dst: int, frame: fr.Frame) -> fr.Frame | bool:
        if (src, dst) != (mallory.index, bob.index) or not isinstance(frame, fr.Entry):
            return True
        entry = decode_entry(frame.data)
        if entry.kind != "action" or forked:
            return True
        twin = make_entry(mallory.identity, table_id=entry.table_id, seq=entry.seq,
                          prev=entry.prev, turn=entry.turn, kind="chat",
                          body={"text": "nothing to see"})
        forked.append(entry.seq)
        bob.core.handle(ins.Received(mallory.peer_id, fr.Entry(twin.encoded), net.now))
        net._effects(bob)
        return False

    from hanabi_p2p.peer import inputs as ins

    net.on_frame = fork_for_bob  # type: ignore[assignment]
    net.open_table()
    net.run(lambda: bool(forked) and alice.finished is not None and bob.finished is not None)
    for p in (alice, bob):
        assert p.session.phase == ABORTED
        assert p.session.blamed == mallory.peer_id, p.session.abort_reason
        report = verify_game(p.stored)
        assert any(problem.author == mallory.peer_id and "equivocation" in problem.reason
                   for problem in report.problems), report.problems
        assert {problem.author for problem in report.problems} == {mallory.peer_id}
    assert no_blame_but(net, mallory.peer_id)


def no_blame_but(net: SimNet, cheater: bytes) -> bool:
    """Nobody but ``cheater`` is blamed anywhere, and no fatal fault names another peer."""
    for p in net.peers[: net.players]:
        if p.peer_id == cheater:
            continue
        if p.session.blamed not in (None, cheater):
            return False
        if any(f.fatal and f.peer_id not in (None, cheater) for f in p.faults()):
            return False
    return True
