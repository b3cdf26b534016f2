"""Deferred checks (issue 13): a peer sends its own shuffle or lock before checking its
predecessor's proofs, and nothing can be revealed before every check has passed."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from test_deck_cheats import BAD_POINTS, G, replace_item, tampering

from hanabi_p2p.deck import Check, DeckCheatError, Lock, Phase, Shuffle, checks
from hanabi_p2p.deck.messages import DeckMessage
from hanabi_p2p.deck.peer import DeckPeer, ProofCheck, first_failure
from hanabi_p2p.deck.table import DeckTable, Tamper
from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.rules.cards import GameConfig


def test_deferred_checks_give_the_same_deck_byte_for_byte() -> None:
    plain = DeckTable(GameConfig(3), "same")
    deferred = DeckTable(GameConfig(3), "same", defer_checks=True)
    for table in (plain, deferred):
        table.setup()
        table.initial_deal()
    assert deferred.sent == plain.sent
    assert all(peer.deck_ready and peer.checks_pending == 0 for peer in deferred.peers)
    for a, b in zip(plain.peers, deferred.peers, strict=True):
        assert a.pop_decoded() == b.pop_decoded() != []


def test_a_peer_sends_its_lock_before_checking_and_is_ready_only_after() -> None:
    table = DeckTable(GameConfig(2), "early", defer_checks=True)
    first, second = table.peers
    [commit0], [commit1] = first.start(), second.start()
    [shuffle0] = first.receive(1, commit1)
    assert second.receive(0, commit0) == []
    # seat 1 answers seat 0's shuffle with its own at once, the sum proof not checked yet
    [shuffle1] = second.receive(0, shuffle0)
    assert isinstance(shuffle1, Shuffle) and second.checks_pending == 1
    assert second.run_checks() == []
    # seat 0 gets seat 1's shuffle and sends its lock before checking anything of it
    lock = first.receive(1, shuffle1)
    assert [type(m) for m in lock] == [Lock] and first.checks_pending == 1
    reply = second.receive(0, lock[0])
    assert any(isinstance(m, Lock) for m in reply)  # seat 1 locks before checking seat 0's
    assert second.checks_pending == 5  # 50 proofs, 10 per job
    assert second.phase is Phase.LOCK and not second.deck_ready
    with pytest.raises(LocalProtocolError):
        second.deal_shares(0, 0)  # nothing is revealed while a check is pending
    second.run_checks()
    assert second.deck_ready and second.checks_pending == 0


def setup_deferred(tamper: Tamper, runner_threads: int = 0) -> DeckTable:
    table = DeckTable(GameConfig(3), "cheat", tamper=tamper, defer_checks=True)
    with ThreadPoolExecutor(max(runner_threads, 1)) as pool:

        def parallel(jobs: Sequence[ProofCheck]) -> None:
            for future in [pool.submit(job) for job in jobs]:
                future.result()  # the first failing job in list order raises

        if runner_threads:
            for peer in table.peers:  # as an IO shell with a thread pool would call it
                peer.run_checks = functools.partial(  # type: ignore[method-assign]
                    peer.run_checks, parallel)
        table.setup()
    return table


def bad_lock_proof(m: DeckMessage) -> DeckMessage:
    assert isinstance(m, Lock)
    return dataclasses.replace(m, proofs=replace_item(m.proofs, 33, m.proofs[32]))


def bad_sum_proof(m: DeckMessage) -> DeckMessage:
    assert isinstance(m, Shuffle)
    return dataclasses.replace(m, sum_proof=m.sum_proof[:32] + m.sum_proof[:32])


def shuffle_point_7(bad: bytes) -> Callable[[DeckMessage], DeckMessage]:
    def change(m: DeckMessage) -> DeckMessage:
        assert isinstance(m, Shuffle)
        return dataclasses.replace(m, points=replace_item(m.points, 7, bad))
    return change


def key_twice(m: DeckMessage) -> DeckMessage:
    assert isinstance(m, Lock)
    return dataclasses.replace(m, keys=replace_item(m.keys, 1, m.keys[0]))


# The identity passes the structural checks (its encoding decodes; point sums take it) and
# is refused by the costly ones, and by a multiplication: the point the deferred checks and
# the next seat's own step see first.
IDENTITY = BAD_POINTS[G]["identity"]

# name -> (tamper, the seat to blame, the check)
CHEATS: dict[str, tuple[Tamper, int, Check]] = {
    "lock-proof": (tampering(1, Lock, bad_lock_proof), 1, Check.LOCK_PROOF),
    "shuffle-proof": (tampering(1, Shuffle, bad_sum_proof), 1, Check.SHUFFLE_PROOF),
    "identity-point": (tampering(1, Shuffle, shuffle_point_7(IDENTITY)), 1,
                       Check.INVALID_POINT),
    "non-canonical-point": (tampering(1, Shuffle, shuffle_point_7(BAD_POINTS[G]["noncanonical"])),
                            1, Check.INVALID_POINT),
    "top-bit-point": (tampering(1, Shuffle, shuffle_point_7(BAD_POINTS[G]["top-bit"])), 1,
                      Check.INVALID_POINT),
    "lock-key-twice": (tampering(2, Lock, key_twice), 2, Check.DUPLICATE_KEY),
}


@pytest.mark.parametrize("threads", [0, 3], ids=["in-order", "thread-pool"])
@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_deferred_checks_blame_the_same_seat_for_the_same_check(cheat: str,
                                                                threads: int) -> None:
    tamper, cheater, check = CHEATS[cheat]
    with pytest.raises(DeckCheatError) as error:
        setup_deferred(tamper, threads)
    assert (error.value.seat, error.value.check) == (cheater, check)


def test_after_a_failed_deferred_check_the_peer_stops() -> None:
    tamper, _, _ = CHEATS["lock-proof"]
    table = DeckTable(GameConfig(3), "cheat", tamper=tamper, defer_checks=True)
    with pytest.raises(DeckCheatError):
        table.setup()
    stopped = [peer for peer in table.peers if peer.phase is Phase.ERROR]
    assert stopped and not any(peer.deck_ready for peer in stopped)
    with pytest.raises(LocalProtocolError):
        stopped[0].run_checks()


def repeat_point(m: DeckMessage) -> DeckMessage:
    assert isinstance(m, Shuffle)
    return dataclasses.replace(m, points=replace_item(m.points, 7, m.points[6]))


@pytest.mark.parametrize("later", [shuffle_point_7(IDENTITY), repeat_point],
                         ids=["own-step-refuses-a-point", "structure"])
def test_an_earlier_cheat_is_blamed_first(later: Callable[[DeckMessage], DeckMessage]) -> None:
    """Seat 0 forges its sum proof (caught only by a check seat 2 has deferred), then seat 1
    cheats in a way seat 2 sees at once (the identity, which seat 2's own shuffle refuses
    to multiply; a repeated point): seat 2 blames seat 0, as it would have
    when checking first."""
    for defer in (False, True):
        table = DeckTable(GameConfig(3), "cheat", defer_checks=defer)
        zero, one, two = table.peers
        [c0], [c1], [c2] = (peer.start() for peer in table.peers)
        assert zero.receive(1, c1) == []
        [shuffle0] = zero.receive(2, c2)  # seat 0 shuffles once it has every commit
        one.receive(0, c0)
        one.receive(2, c2)
        [shuffle1] = one.receive(0, shuffle0)
        two.receive(0, c0)
        two.receive(1, c1)
        with pytest.raises(DeckCheatError) as error:
            two.receive(0, bad_sum_proof(shuffle0))
            two.receive(1, later(shuffle1))
        assert (error.value.seat, error.value.check) == (0, Check.SHUFFLE_PROOF)


def _fed_without_checks(label: str, forge: dict[int, Callable[[DeckMessage], DeckMessage]]
                        | None = None) -> DeckPeer:
    """Seat 2 of a 3-player table given every other seat's commit, shuffle and lock (seat
    `s`'s lock changed by ``forge[s]``), with its costly checks deferred and not run."""
    honest = DeckTable(GameConfig(3), label)
    honest.setup()
    peer = DeckTable(GameConfig(3), label, defer_checks=True).peers[2]
    peer.start()
    for seat, message in honest.sent:
        if seat != 2:
            forged = forge[seat] if forge and seat in forge else None
            peer.receive(seat, forged(message) if forged and isinstance(message, Lock)
                         else message)
    return peer


def _run_batch(peer: DeckPeer) -> list[DeckMessage]:
    """One batch, as the shell runs and reports it."""
    return peer.finish_checks(first_failure(peer.take_checks()))


def test_the_deal_needs_only_its_own_checks_and_a_later_card_every_check() -> None:
    """The dealt positions' checks come first; once they pass the deck is ready and the
    hands can be dealt, while a card beyond the deal waits for every check."""
    peer = _fed_without_checks("deal-first")
    dealt = peer.dealt_positions
    assert dealt == 15 and peer.deal_checks_pending > 0 and not peer.deck_ready
    _run_batch(peer)
    assert peer.deck_ready and peer.deal_checks_pending == 0 and peer.checks_pending > 0
    assert peer.deal_shares(dealt - 1, 0)  # a dealt card
    with pytest.raises(LocalProtocolError):
        peer.deal_shares(dealt, 0)  # the first card drawn: not before every check
    assert not any(peer.verified_step(seat, m) for seat, m in peer.transcript())
    peer.settle_checks()
    assert peer.checks_pending == 0 and peer.deal_shares(dealt, 0)
    assert all(peer.verified_step(seat, m) for seat, m in peer.transcript()
               if isinstance(m, Lock | Shuffle))


def _bad_proof_at(position: int) -> Callable[[DeckMessage], DeckMessage]:
    def forge(m: DeckMessage) -> DeckMessage:
        assert isinstance(m, Lock)
        return dataclasses.replace(m, proofs=replace_item(m.proofs, position,
                                                          m.proofs[position - 1]))
    return forge


def test_the_later_positions_wait_until_no_lock_can_bring_a_check_the_deal_needs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0 has every step but the last lock: the checks of lock 1's later positions are
    not handed out yet (a batch of them would hold up the deal's checks of the last lock);
    once that lock is in, its deal checks come alone, then every later position's."""
    honest = DeckTable(GameConfig(3), "hold-back")
    honest.setup()
    lock_checks = _LockChecks(monkeypatch)
    peer = DeckTable(GameConfig(3), "hold-back", defer_checks=True).peers[0]
    peer.start()
    last_lock = next(m for seat, m in honest.sent if seat == 2 and isinstance(m, Lock))
    for seat, message in honest.sent:
        if seat != 0 and message is not last_lock:
            peer.receive(seat, message)
    dealt = peer.dealt_positions
    _run_batch(peer)  # the shuffles' and lock 1's deal checks
    assert peer.checks_pending > 0 and peer.take_checks() == []  # lock 1's later positions
    assert {seat for seat, _ in lock_checks.ran} == {1}
    lock_checks.ran.clear()
    peer.receive(2, last_lock)
    _run_batch(peer)
    assert lock_checks.ran and all(seat == 2 and max(positions) < dealt
                                   for seat, positions in lock_checks.ran)
    assert peer.deck_ready and peer.checks_pending > 0
    lock_checks.ran.clear()
    _run_batch(peer)
    assert peer.checks_pending == 0
    assert {seat for seat, _ in lock_checks.ran} == {1, 2}
    assert all(min(positions) >= dealt for _, positions in lock_checks.ran)


@pytest.mark.slow
def test_a_check_kept_back_for_the_deal_is_still_blamed_first() -> None:
    """Seat 0's lock has a false proof beyond the deal, seat 1's one within it: the deal's
    checks run first and find seat 1's, yet seat 0 is blamed, as checking in arrival
    order (or at once) blames it; and a draw that settles the checks finds it too."""
    forge = {0: _bad_proof_at(40), 1: _bad_proof_at(3)}
    peer = _fed_without_checks("blame-order", forge)
    with pytest.raises(DeckCheatError) as error:
        _run_batch(peer)
    assert (error.value.seat, error.value.check) == (0, Check.LOCK_PROOF)
    assert peer.phase is Phase.ERROR and not peer.deck_ready

    only_late = _fed_without_checks("blame-order", {0: _bad_proof_at(40)})
    _run_batch(only_late)
    assert only_late.deck_ready  # its deal's checks passed
    with pytest.raises(DeckCheatError) as late:
        only_late.settle_checks()
    assert (late.value.seat, late.value.check) == (0, Check.LOCK_PROOF)


class _LockChecks:
    """Every lock-proof check job that really runs, as (seat, positions); ``before`` runs
    first in each (to hold a thread inside one)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ran: list[tuple[int, tuple[int, ...]]] = []
        self.before: Callable[[], None] = lambda: None
        real = checks.check_lock_proofs

        def counted(sender: checks.Sender, *args: Any) -> None:
            self.ran.append((sender.seat, tuple(args[-1])))
            self.before()
            real(sender, *args)

        monkeypatch.setattr(checks, "check_lock_proofs", counted)


def test_settling_does_not_repeat_the_checks_the_shell_has_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A draw right after the deal settles the checks on the event loop while the shell's
    threads still hold their batch: what the threads have already run is not run again,
    and each check runs once whoever gets to it first."""
    lock_checks = _LockChecks(monkeypatch)
    peer = _fed_without_checks("once")
    _run_batch(peer)  # the deal's checks
    batch = peer.take_checks()  # the rest, out to the shell's threads
    assert len(batch) > 2
    lock_checks.ran.clear()
    for job in batch[:len(batch) // 2]:  # the threads have got this far...
        job()
    peer.settle_checks()  # ...when a card beyond the deal must be revealed
    assert peer.checks_pending == 0 and peer.deal_shares(peer.dealt_positions, 0)
    for job in batch:  # the threads finish their batch: nothing left to do
        job()
    assert peer.finish_checks(None) == []
    ran = lock_checks.ran
    assert len(ran) == len(batch) == len(set(ran))


def test_the_loop_and_a_thread_asking_for_the_same_checks_run_each_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The shell's thread is inside a check when the loop settles: the loop waits for that
    one's outcome instead of running it too, and a cheat is blamed as without threads."""
    lock_checks = _LockChecks(monkeypatch)
    peer = _fed_without_checks("once-cheat", {0: _bad_proof_at(40)})
    _run_batch(peer)
    batch = peer.take_checks()
    lock_checks.ran.clear()
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        inside.set()
        release.wait(10)

    lock_checks.before = hold

    def shell() -> None:
        for job in batch:
            with contextlib.suppress(DeckCheatError):
                job()

    with ThreadPoolExecutor(2) as pool:
        threads = pool.submit(shell)
        assert inside.wait(10)
        loop = pool.submit(peer.settle_checks)
        release.set()
        threads.result(10)
        with pytest.raises(DeckCheatError) as blamed:
            loop.result(10)
    assert (blamed.value.seat, blamed.value.check) == (0, Check.LOCK_PROOF)
    ran = lock_checks.ran
    assert len(ran) == len(batch) == len(set(ran))
