"""Benchmark of the mental-poker deck (hanabi_p2p.deck), all peers in one process.

Times, for 2-5 players and the 50-card deck:
* setup: commit, both phases with their proofs, every peer verifying every other peer's
  proofs, and the initial deal (every non-owner decoding every dealt card): the work of all
  peers added up;
* the two phases alone without proofs (shuffle: s·X[perm[i]]; lock: (k/s)·X[i]), ours in
  the deck group (ristretto255; ``--group edwards25519`` runs every figure in the group of
  0.2.0, to compare), and the same textbook-style in the 2048-bit MODP group of RFC 3526
  (x^s mod p, then x^(k/s mod p-1) mod p) with Python's pow, as the baseline;
* the largest single batch: the longest one DeckPeer call took (what would block an event
  loop if called on it);
* the N-machine critical path: the same setup replayed as if every peer ran on its own
  machine with one core and a network of zero latency, with the checks made before a peer's
  own step, after it (DeckPeer's defer_checks), or after it on a second core (a thread pool
  on a laptop with two cores or more). Each call's CPU time is measured; a
  message leaves when the call that made it ends and reaches every other peer at once; a
  peer works on what reached it one message at a time, in arrival order. Reported: the time
  at which the last peer has its deck ready for the first deal (the sequential chain of
  shuffles, locks and the checks the deal needs; the others follow in batches of their own)
  and the CPU each peer spent (median and largest).
Times are CPU time of this process (time.process_time), so that other programs running on
the machine do not inflate them; the work is single-threaded.

Usage: .venv/bin/python bench/deck.py [--repeat N] [--baseline-repeat N] [--group NAME]
The last line printed is one JSON object with the headline figures.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import heapq
import itertools
import json
import math
import statistics
import time
from collections.abc import Callable
from enum import Enum
from typing import Any

from hanabi_p2p.deck import group
from hanabi_p2p.deck.derive import PeerSecrets, card_points
from hanabi_p2p.deck.group import EDWARDS25519, RISTRETTO255, DeckGroup
from hanabi_p2p.deck.messages import DeckMessage
from hanabi_p2p.deck.peer import DeckPeer, first_failure
from hanabi_p2p.deck.table import DeckTable
from hanabi_p2p.rules.cards import GameConfig

# RFC 3526 section 3: the 2048-bit MODP group (a safe prime, p = 2q + 1).
MODP_2048 = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
    "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
    "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA4836"
    "1C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804"
    "F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6"
    "955817183995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF", 16)


def clock() -> float:
    """CPU seconds of this process: all peers' work, not time spent waiting for a core
    that other programs on the machine hold."""
    return time.process_time()


def timed_calls(table: DeckTable, longest: list[float]) -> None:
    """Wrap every DeckPeer entry point so the longest single call is recorded."""
    for peer in table.peers:
        for name in ("start", "receive", "deal_shares"):
            method = getattr(peer, name)

            def wrapper(*args: Any, _method: Callable[..., Any] = method) -> Any:
                start = clock()
                try:
                    return _method(*args)
                finally:
                    longest[0] = max(longest[0], clock() - start)
            setattr(peer, name, wrapper)


GROUPS = {g.name: g for g in (RISTRETTO255, EDWARDS25519)}


def time_setup(players: int, run: int, deck_group: DeckGroup) -> tuple[float, float]:
    """(ms for the whole setup incl. initial deal, ms of the longest single call)."""
    longest = [0.0]
    start = clock()
    table = DeckTable(GameConfig(players), f"bench-{players}-{run}", group=deck_group)
    timed_calls(table, longest)
    table.setup()
    table.initial_deal()
    elapsed = clock() - start
    assert all(peer.deck_ready for peer in table.peers)
    return elapsed * 1000, longest[0] * 1000


class Mode(Enum):
    """How a machine orders its deck work (bench rows)."""

    FIRST = "checks first"  # check a predecessor's proofs, then make our own step
    DEFERRED = "deferred, 1 core"  # our step first, then the checks, on the same core
    SECOND_CORE = "deferred, 2 cores"  # our step first; the checks on a second core


def one_batch(peer: DeckPeer) -> list[DeckMessage]:
    """What a shell does with one CheckDeck: run the batch, report its outcome."""
    return peer.finish_checks(first_failure(peer.take_checks()))


def critical_path(players: int, run: int, mode: Mode,
                  deck_group: DeckGroup) -> tuple[float, list[float]]:
    """(ms until the last peer's deck is ready, each peer's CPU ms) with one machine per peer
    (see the module docstring). Setup only: commit, shuffle, lock and every check."""
    table = DeckTable(GameConfig(players), f"bench-path-{players}-{run}",
                      defer_checks=mode is not Mode.FIRST, group=deck_group)
    free_at = [0.0] * players  # when each machine's main core is done with its work
    checks_free_at = [0.0] * players  # the checking core (Mode.SECOND_CORE)
    busy = [0.0] * players
    ready_at = [math.inf] * players
    order = itertools.count()  # ties: arrival order, as a FIFO link delivers
    arrivals: list[tuple[float, int, int, int, DeckMessage]] = []

    def run_call(seat: int, at: float, call: Callable[[], list[DeckMessage]],
                 core: list[float]) -> None:
        start = max(at, core[seat])
        c0 = clock()
        out = call()
        spent = clock() - c0
        core[seat] = start + spent
        busy[seat] += spent
        if table.peers[seat].deck_ready:
            ready_at[seat] = min(ready_at[seat], core[seat])
        for message in out:
            for other in range(players):
                if other != seat:
                    heapq.heappush(arrivals, (core[seat], next(order), other, seat, message))

    for seat, peer in enumerate(table.peers):
        run_call(seat, 0.0, peer.start, free_at)
    while arrivals:
        at, _, seat, sender, message = heapq.heappop(arrivals)
        peer = table.peers[seat]
        run_call(seat, at, functools.partial(peer.receive, sender, message), free_at)
        core = checks_free_at if mode is Mode.SECOND_CORE else free_at
        while peer.checks_pending:  # batch by batch: the deal's checks first (SPEC §2.8)
            run_call(seat, free_at[seat], functools.partial(one_batch, peer), core)
    assert all(peer.deck_ready for peer in table.peers)
    return max(ready_at) * 1000, [b * 1000 for b in busy]


def phase_inputs(players: int, run: int, deck_group: DeckGroup) -> list[PeerSecrets]:
    table_id = hashlib.sha256(f"bench-phases-{run}".encode()).digest()[:16]
    return [PeerSecrets(table_id, bytes([seat]) * 32,
                        hashlib.sha256(f"{run}/{seat}".encode()).digest(), deck_group)
            for seat in range(players)]


def time_phases_ours(players: int, run: int, deck_group: DeckGroup) -> float:
    """Both phases in the deck group without proofs or checks; secrets derived beforehand."""
    config = GameConfig(players)
    peers = phase_inputs(players, run, deck_group)
    size = config.deck_size
    plans = [(p.shuffle_scalar, p.permutation(size),
              [group.scalar_mul(p.lock_scalar(i), group.scalar_invert(p.shuffle_scalar))
               for i in range(size)]) for p in peers]
    deck = card_points(config, deck_group)
    start = clock()
    for s, perm, _ in plans:
        deck = [deck_group.mul(s, deck[perm[i]]) for i in range(size)]
    for _, _, unlocks in plans:
        deck = [deck_group.mul(e, x) for e, x in zip(unlocks, deck, strict=True)]
    return (clock() - start) * 1000


def modp_exponent(seed: bytes) -> int:
    """An exponent invertible modulo p - 1 = 2q: odd and not q."""
    value = int.from_bytes(hashlib.sha512(seed).digest() * 4, "big") % (MODP_2048 - 1)
    value |= 1
    assert math.gcd(value, MODP_2048 - 1) == 1
    return value


def time_phases_modp(players: int, run: int) -> float:
    """The same two phases, textbook SRA in the RFC 3526 2048-bit group with pow()."""
    p, order = MODP_2048, MODP_2048 - 1
    size = GameConfig(players).deck_size
    peers = phase_inputs(players, run, RISTRETTO255)  # (only its permutations are used)
    plans = []
    for seat, secrets in enumerate(peers):
        s = modp_exponent(f"s/{run}/{seat}".encode())
        s_inverse = pow(s, -1, order)
        unlocks = [modp_exponent(f"k/{run}/{seat}/{i}".encode()) * s_inverse % order
                   for i in range(size)]
        plans.append((s, secrets.permutation(size), unlocks))
    deck = [pow(card + 2, 2, p) for card in range(size)]  # quadratic residues: no leak
    start = clock()
    for s, perm, _ in plans:
        deck = [pow(deck[perm[i]], s, p) for i in range(size)]
    for _, _, unlocks in plans:
        deck = [pow(x, e, p) for e, x in zip(unlocks, deck, strict=True)]
    return (clock() - start) * 1000


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--baseline-repeat", type=int, default=3,
                        help="runs of the slow MODP baseline (5 players only)")
    parser.add_argument("--path-players", type=int, nargs="*", default=[5],
                        help="player counts for the N-machine critical path (default: 5; "
                             "each count adds about 10 s)")
    parser.add_argument("--group", choices=sorted(GROUPS), default=RISTRETTO255.name,
                        help="the deck group (default: ristretto255, that of every live "
                             "table; edwards25519 is 0.2.0's, to compare)")
    args = parser.parse_args()
    deck_group = GROUPS[args.group]

    rows = []
    paths = []
    for players in (2, 3, 4, 5):
        setups = [time_setup(players, run, deck_group) for run in range(args.repeat)]
        phases = [time_phases_ours(players, run, deck_group) for run in range(args.repeat)]
        rows.append((players, statistics.median(s for s, _ in setups),
                     max(b for _, b in setups), statistics.median(phases)))
        for mode in Mode if players in args.path_players else ():
            runs = [critical_path(players, run, mode, deck_group)
                    for run in range(args.repeat)]
            paths.append((players, mode, statistics.median(chain for chain, _ in runs),
                          statistics.median(statistics.median(peers) for _, peers in runs),
                          statistics.median(max(peers) for _, peers in runs)))
    baseline = statistics.median(time_phases_modp(5, run)
                                 for run in range(args.baseline_repeat))

    print(f"deck group: {deck_group.name}")
    print("players  setup ms (proofs, all peers)  largest call ms  phases ms (no proofs)")
    for players, setup, batch, phase_ms in rows:
        print(f"{players:>7}  {setup:>28.1f}  {batch:>15.1f}  {phase_ms:>21.1f}")
    print()
    print("players  checks             N machines: deck ready ms  CPU ms per peer (median, max)")
    for players, mode, chain, per_peer, per_peer_max in paths:
        print(f"{players:>7}  {mode.value:<17}  {chain:>25.1f}  {per_peer:>20.1f}  "
              f"{per_peer_max:>6.1f}")
    last = {mode: chain for players, mode, chain, _, _ in paths if players == 5}
    phases_5p = rows[-1][3]
    print(f"baseline, 5 players: both phases in 2048-bit MODP with pow(): {baseline:.1f} ms "
          f"({baseline / phases_5p:.0f}x slower)")
    print(json.dumps({
        "setup_ms_5p": round(rows[-1][1], 1),
        "phases_ms_5p": round(phases_5p, 1),
        "baseline_phases_ms_5p": round(baseline, 1),
        "speedup": round(baseline / phases_5p, 1),
        "max_batch_ms_5p": round(rows[-1][2], 1),
        # (null when --path-players leaves 5 out)
        "chain_ms_5p": _ms(last.get(Mode.FIRST)),
        "chain_deferred_ms_5p": _ms(last.get(Mode.DEFERRED)),
        "chain_deferred_2_cores_ms_5p": _ms(last.get(Mode.SECOND_CORE)),
        "cpu_per_peer_ms_5p": _ms(next((c for p, m, _, c, _ in paths
                                        if p == 5 and m is Mode.FIRST), None)),
        "chain_ms": {f"{p}/{m.name.lower()}": round(c, 1) for p, m, c, _, _ in paths},
        "setup_ms": {str(p): round(s, 1) for p, s, _, _ in rows},
        "deck_size": 50,
        "group": deck_group.name,
        "repeat": args.repeat,
    }))


if __name__ == "__main__":
    main()
