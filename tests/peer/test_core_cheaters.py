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
