"""Benchmark of `hanabi-p2p log verify` on a full 5-player game, cold (target: 50 ms).

A game is played by bots through the in-memory session harness (tests/session), and one
peer's copy is stored as its node stores it. Then, each the median of --repeat runs:

* cold: `hanabi-p2p log verify FILE` as a person runs it, a new process (the code of this
  checkout: PYTHONPATH), wall clock and its CPU time; beside it `python -c pass`, what any
  Python program costs to start on this machine;
* where a cold run's time goes, measured inside a new process (CPU time): importing the
  command, loading the deck's library (rbcl's libsodium), reading and decoding the file
  (every entry's signature is checked there, the figure beside it), the structural checks
  (signatures again: remembered from decoding), the deck transcript, the faces preview (the
  audit's decoding step, before the replay), the replay of every entry through an observer
  session, the deck audit;
* warm, in this process: ``verify_game(entries)`` on decoded entries (signatures already
  checked once in this process are remembered, so this is less than a cold run), the file
  (read, decode, verify), and the deck audit alone.

Where the time goes (issue 33; CPU time of a cold run, 5 players, 316 entries, medians of
4 alternating rounds of bench/against.py on a busy 2-core machine): before, 583 ms, of which
importing the command 303 ms (52 %), the deck audit and its faces preview about 90 ms (16 %:
865 variable-base and 510 base-point ristretto255 multiplications, 50-70 us and 20-25 us
each in libsodium 1.0.18), loading rbcl's libsodium 42 ms (7 %), the replay 27 ms (5 %), the
316 Ed25519 signatures 22 ms (4 %), Python's own start about 40 ms. After, 410 ms (ratio
0.70): importing 131 ms (0.43: nothing imported that is not used), the library 35 ms (rbcl's
module alone), the audit made once (815 variable-base multiplications, no preview, one
transcript). What is left is mostly the multiplications and the signatures, one by one: no
installed or well-kept library here verifies Ed25519 signatures in a batch (libsodium and
PyNaCl have no batch API, nor has `cryptography`) or multiplies many ristretto255 points at
once (libsodium has no multi-scalar multiplication), so 50 ms for a cold 5-player game is
out of reach in this design: the audit's multiplications alone take about that.

Usage: .venv/bin/python bench/log_verify.py [--repeat N] [--players N] [--seed N]
The last line printed is one JSON object with the headline figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "session"))

from session_harness import TABLE_ID, Table, play_bot_game  # noqa: E402

from hanabi_p2p.commands.log import read_report  # noqa: E402
from hanabi_p2p.log.storage import GameFile  # noqa: E402
from hanabi_p2p.rules.cards import GameConfig  # noqa: E402
from hanabi_p2p.session.verify import verify_game  # noqa: E402

TARGET_MS = 50.0

# Run in a new process: one cold verification, each step's CPU time (ms) as JSON. Steps are
# the verifier's own functions, wrapped where they exist in this checkout's code.
BREAKDOWN = r"""
import json, sys, time
from pathlib import Path
clock = time.process_time
t0 = clock()
import hanabi_p2p.commands.log as command
from hanabi_p2p import identity
from hanabi_p2p.session import verify
t1 = clock()
from hanabi_p2p.deck import group
group.load_library()
t2 = clock()
steps = {"import": (t1 - t0) * 1000, "library load": (t2 - t1) * 1000}
def wrap(module, name, step):
    real = getattr(module, name, None)
    if real is None:
        return
    def timed(*args, **kwargs):
        start = clock()
        try:
            return real(*args, **kwargs)
        finally:
            steps[step] = steps.get(step, 0.0) + (clock() - start) * 1000
    setattr(module, name, timed)
wrap(command, "read_game_bytes", "read file")
wrap(command, "parse", "decode entries")
wrap(identity, "crypto_sign_open", "  of which signatures")
wrap(verify, "_structural_checks", "structural checks")
wrap(verify, "_deck_transcript", "deck transcript")
wrap(verify, "_preview_faces", "faces preview")
wrap(verify, "_replay", "replay")
wrap(verify, "_audit_first", "deck audit")  # (since issue 33: the audit before the replay)
wrap(verify, "_settle_audit", "deck audit")
start = clock()
report = command.read_report(Path(sys.argv[1]))
steps["verify total"] = (clock() - start) * 1000
assert report.ok, report.headline()
print(json.dumps(steps))
"""


def play(players: int, seed: int) -> Table:
    return play_bot_game(GameConfig(players), seed)


def measure(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median CPU ms, median wall ms) over ``repeat`` runs."""
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return statistics.median(cpu), statistics.median(wall)


def child(args: list[str]) -> tuple[float, float, str]:
    """(wall ms, CPU ms, stdout) of one new Python process running this checkout's code."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=False, timeout=300)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr[-2000:]}")
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
    return wall, cpu, done.stdout


def cold(path: Path, repeat: int) -> dict[str, float]:
    """Medians of cold runs: the command, an empty Python, and the breakdown's steps."""
    runs: dict[str, list[float]] = {}
    for _ in range(repeat):  # alternating, so that a busy moment weighs on each alike
        for key, args in (("verify", ["-m", "hanabi_p2p", "log", "verify", str(path)]),
                          ("python", ["-c", "pass"])):
            wall, cpu, _ = child(args)
            runs.setdefault(f"{key} wall", []).append(wall)
            runs.setdefault(f"{key} CPU", []).append(cpu)
        _, _, out = child(["-c", BREAKDOWN, str(path)])
        for step, ms in json.loads(out).items():
            runs.setdefault(step, []).append(ms)
    return {key: statistics.median(values) for key, values in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=105)
    args = parser.parse_args()

    table = play(args.players, args.seed)
    peer = table.peers[0]
    entries = list(peer.replica.applied)
    report = verify_game(entries)
    assert report.ok, report.headline()
    deck = peer.session.deck
    assert deck is not None

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.hlog"
        with GameFile.create(path, TABLE_ID, created=0, name="bench") as game:
            for entry in entries:
                game.append(entry)
        size = path.stat().st_size
        started = cold(path, args.repeat)
        rows = [
            ("pipeline: verify_game(entries)", measure(lambda: verify_game(entries), args.repeat)),
            ("file: load + verify (log verify)", measure(lambda: read_report(path), args.repeat)),
            ("deck audit alone", measure(deck.audit, args.repeat)),
        ]

    print(f"{report.headline()}")
    turns = report.state.turn if report.state else 0
    print(f"{len(entries)} entries, {size} bytes on disk, {turns} turns; "
          f"median of {args.repeat} runs")
    print(f"{'cold (a new process)':<36} {'wall ms':>8} {'CPU ms':>8}")
    print(f"{'hanabi-p2p log verify FILE':<36} {started['verify wall']:>8.1f} "
          f"{started['verify CPU']:>8.1f}")
    print(f"{'python -c pass (start-up floor)':<36} {started['python wall']:>8.1f} "
          f"{started['python CPU']:>8.1f}")
    print(f"{'where a cold run goes (CPU ms)':<36}")
    skip = {"verify wall", "verify CPU", "python wall", "python CPU"}
    for step, ms in started.items():
        if step not in skip:
            print(f"  {step:<34} {ms:>8.1f}")
    print(f"{'warm (in this process)':<36} {'CPU ms':>8} {'wall ms':>8}")
    for name, (cpu, wall) in rows:
        print(f"{name:<36} {cpu:>8.1f} {wall:>8.1f}")
    verdict = "within" if started["verify wall"] <= TARGET_MS else "OVER"
    print(f"target {TARGET_MS:.0f} ms for a cold log verify: {verdict}")
    print(json.dumps({
        f"log_verify_cold_ms_{args.players}p": round(started["verify wall"], 1),
        f"log_verify_cold_cpu_ms_{args.players}p": round(started["verify CPU"], 1),
        "python_start_ms": round(started["python wall"], 1),
        "import_ms": round(started["import"], 1),
        "library_load_ms": round(started["library load"], 1),
        "audit_cold_ms": round(started.get("deck audit", 0.0), 1),
        "replay_cold_ms": round(started.get("replay", 0.0), 1),
        "signatures_cold_ms": round(started.get("  of which signatures", 0.0), 1),
        f"verify_ms_{args.players}p": round(rows[0][1][0], 1),
        f"log_verify_file_ms_{args.players}p": round(rows[1][1][0], 1),
        f"audit_ms_{args.players}p": round(rows[2][1][0], 1),
        "entries": len(entries),
    }))


if __name__ == "__main__":
    main()
