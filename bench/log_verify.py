"""Benchmark of `hanabi-p2p log verify` on a full 5-player game, cold (target: 50 ms).

A game is played by bots through the in-memory session harness (tests/session), and one
peer's copy is stored as its node stores it. Then, each the median of --repeat runs:

* cold: `hanabi-p2p log verify FILE` as a person runs it, a new process (the code of this
  checkout: PYTHONPATH), wall clock and its CPU time, with compiled bytecode as an installed
  program has it, and once more without (every module compiled, as on this machine's
  PYTHONDONTWRITEBYTECODE); beside it `python -c pass`, what any Python program costs to
  start on this machine;
* where a cold run's CPU time goes, phase by phase, measured inside a new process that runs
  the command line as the program does: process start, imports, loading the deck's library
  (rbcl's libsodium), parsing the file's records and entries, the Ed25519 signatures, the
  hash chain (entry hashes, the digest), the deck audit (its transcript and the audit),
  the rules replay of every entry through an observer session (the chain links are checked
  there), the verdict (the rest of the pipeline) and the output; then where the imports go
  (each of our modules and each other package, by `-X importtime`);
* warm, in this process: ``verify_game(entries)`` on decoded entries (signatures already
  checked once in this process are remembered, so this is less than a cold run), the file
  (read, decode, verify), and the deck audit alone.

Where the time goes (issue 33; a 5-player game, 316 entries, on a 2-core machine whose load
average stayed between 8 and 14 while this was measured, so times are noisy and
instructions are given beside them). The first round of this work (the previous session)
cut the imports and made the audit once: 583 -> 410 ms of CPU. This round, against that
code (d25e852), with compiled bytecode on both sides (the figures before it were taken
without: every module compiled, 870-1070 ms of CPU as `the same, no bytecode cache` shows):

* instructions (callgrind, `--instructions`; the same however busy the machine): 1958 ->
  1849 million (0.944): Python's start 89 -> 89, imports 551 -> 511 (no `cryptography`, no
  OpenSSL, no catalogues), rbcl's library 121 -> 121, checking the game 1196 -> 1128 (no
  OpenSSL to start for the pairwise channel, 50 fewer variable-base multiplications: 815 -> 765);
* CPU of the cold command, medians of alternating runs: 378 -> 339 ms (0.895, against.py,
  5 rounds); 381 -> 362 ms (0.95, 12 runs each); in-process, 30 alternating runs each:
  imports 166 -> 148 ms, checking the file cold 203 -> 172 ms.

Where the 1849 million instructions of a cold run go now: the deck audit's ristretto255
multiplications 664 (36 %: 765 variable-base and 510 base-point ones, 0.77 and 0.15
million each in rbcl's libsodium 1.0.18), compiling the methods that dataclasses generate
as each of the 120-odd dataclasses on this path is made 284 (15 %: some 500 small
functions, compiled one by one at every start by Python 3.11), the 316 Ed25519 signatures
214 (12 %), unmarshalling the bytecode of some 200 modules 104 (6 %), decoding rbcl's
library from hex 50 (3 %), Python's own start 89 (5 %), the rest (the replay through the
observer session, parsing, the audit's hashing) about 440 (24 %). In time the imports
weigh more than in instructions (they wait on files and fault pages in): about 40 % of a
cold run's CPU time.

What would not pay, measured: an Ed25519 batch check (a random linear combination of every
signature's equation) needs each R decoded and a multi-scalar multiplication, which no
installed library offers (libsodium, PyNaCl, `cryptography`); written in Python, decoding
R alone costs more than libsodium's whole check of a signature (the line this script
prints), so signatures stay checked one by one. The audit's proofs cannot be batched
either: `log verify` does not verify them, it recomputes every step from the seeds and
compares bytes (SPEC 2.10), and a proof is (challenge, response) with no commitment to
combine. Each of the 765 variable-base multiplications left makes a byte that is
compared (a point of a shuffle or a lock, or a proof's commitment that its challenge
hashes); without a multi-scalar multiplication nothing combines them. So 50 ms for a cold
5-player game is out of reach in this design: the multiplications alone are a third of
the instructions, about 60-70 ms on this machine.

With --instructions (valgrind), instead: the instructions of a cold run, stage by stage
(Python's start, the imports, the deck library, checking the game), and the cost centres
they go to (the deck audit's multiplications, the signatures, compiling the dataclasses'
generated methods, loading bytecode). Instructions do not move with the machine's load, as
times do on a busy machine; they miss what waits on memory and the system (page faults,
files), which the imports pay more than the checks do.

Usage: .venv/bin/python bench/log_verify.py [--repeat N] [--players N] [--seed N]
                                            [--instructions]
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
from hanabi_p2p.log.entry import Entry, signed_message  # noqa: E402
from hanabi_p2p.log.storage import GameFile  # noqa: E402
from hanabi_p2p.rules.cards import GameConfig  # noqa: E402
from hanabi_p2p.session.verify import verify_game  # noqa: E402

TARGET_MS = 50.0
# Cold runs use compiled bytecode as an installed program does (pip compiles it on install;
# this machine's PYTHONDONTWRITEBYTECODE would otherwise make every run compile every module
# again, about a third of a cold run): kept here, outside the checkout, made by a first run.
PYCACHE = Path(tempfile.gettempdir()) / "hanabi-bench-pycache"

# Run in a new process: one cold `log verify FILE` as the command line runs it, and the CPU
# time (ms) of each phase, as JSON. Each phase is the time spent inside the verifier's own
# functions, wrapped where they exist in this checkout's code; a phase called inside another
# is taken out of the outer one (so the phases add up to the whole). A function a checkout
# does not have is simply not wrapped.
BREAKDOWN = r"""
import io, json, sys, time
from pathlib import Path
clock = time.process_time
t0 = clock()
from hanabi_p2p import cli
cli.build_parser("log")  # imports the `log` command, as the program does
from hanabi_p2p.session import verify
t1 = clock()
from hanabi_p2p.deck import group
group.load_library()
t2 = clock()
steps = {"imports": (t1 - t0) * 1000, "deck library load": (t2 - t1) * 1000}
import importlib
active = []  # [phase, time spent in wrapped calls inside it]
def wrap(module_name, name, phase):
    module = importlib.import_module(module_name)
    real = getattr(module, name, None)
    if real is None:
        return
    def timed(*args, **kwargs):
        active.append([phase, 0.0])
        start = clock()
        try:
            return real(*args, **kwargs)
        finally:
            spent = (clock() - start) * 1000
            _, inner = active.pop()
            steps[phase] = steps.get(phase, 0.0) + spent - inner
            if active:
                active[-1][1] += spent
    setattr(module, name, timed)
for module, name, phase in [
    ("hanabi_p2p.log.storage", "parse", "parse (records, entries)"),
    ("hanabi_p2p.commands.log", "parse", "parse (records, entries)"),
    ("hanabi_p2p.identity", "_verified", "signatures (Ed25519)"),
    ("hanabi_p2p.identity", "verify_entry_signatures", "signatures (Ed25519)"),
    ("hanabi_p2p.log.entry", "entry_hash", "hash chain (entry hashes, digest)"),
    ("hanabi_p2p.session.verify", "digest", "hash chain (entry hashes, digest)"),
    ("hanabi_p2p.session.verify", "deck_transcript", "deck audit"),
    ("hanabi_p2p.session.verify", "audit_first", "deck audit"),
    ("hanabi_p2p.session.verify", "preview_faces", "deck audit"),
    ("hanabi_p2p.session.verify", "_settle_audit", "deck audit"),
    ("hanabi_p2p.session.verify", "_replay", "rules replay (and chain links)"),
    ("hanabi_p2p.session.verify", "verify_file", "verdict (the rest of the pipeline)"),
    ("hanabi_p2p.commands.log", "summary_lines", "output"),
    ("hanabi_p2p.commands.log", "_emit", "output"),
]:
    wrap(module, name, phase)
real_stdout, sys.stdout = sys.stdout, io.StringIO()
start = clock()
code = cli._run(["log", "verify", sys.argv[1]])
steps["total after imports"] = (clock() - start) * 1000
sys.stdout = real_stdout
assert code == 0, code
print(json.dumps(steps))
"""
# The phases, in the order the table shows them (a cold run: process start, then these).
PHASES = ("imports", "deck library load", "parse (records, entries)", "signatures (Ed25519)",
          "hash chain (entry hashes, digest)", "deck audit", "rules replay (and chain links)",
          "verdict (the rest of the pipeline)", "output")


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


# Ed25519's field, for the batch's floor below
FIELD_PRIME = 2**255 - 19
ED25519_D = -121665 * pow(121666, -1, FIELD_PRIME) % FIELD_PRIME


def batch_floor(entries: list[Entry]) -> tuple[float, float]:
    """(µs per signature checked one by one with libsodium, as `log verify` does; µs per
    signature of the least any batch check written here must do per signature).

    A batch check (one random linear combination of all the signatures' equations) needs
    every signature's R as a curve point and one multi-scalar multiplication; neither
    libsodium, PyNaCl nor `cryptography` offers either, so both would be Python. Decoding R
    alone is a square root modulo 2^255 - 19 (one 255-bit exponentiation), before any of
    the multiplication: if that already costs more than libsodium's whole check, no batch
    here can be faster (so `log verify` checks one by one)."""
    from nacl.bindings import crypto_sign_open

    signed = [(e.signature + signed_message(e), e.author) for e in entries]
    start = time.perf_counter()
    for message, author in signed:
        crypto_sign_open(message, author)
    one = (time.perf_counter() - start) / len(signed) * 1e6
    start = time.perf_counter()
    for message, _ in signed:
        y = int.from_bytes(message[:32], "little") & ((1 << 255) - 1)
        u, v = (y * y - 1) % FIELD_PRIME, (ED25519_D * y * y + 1) % FIELD_PRIME
        pow(u * pow(v, 7, FIELD_PRIME), (FIELD_PRIME - 5) // 8, FIELD_PRIME)
    floor = (time.perf_counter() - start) / len(signed) * 1e6
    return one, floor


def child(args: list[str], *, bytecode: bool = True) -> tuple[float, float, str, str]:
    """(wall ms, CPU ms, stdout, stderr) of one new Python process running this checkout's
    code, with the bytecode cache (`PYCACHE`) or, `bytecode` False, compiling every module
    as a first run after an install that kept no bytecode would."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE / "none")  # (read from, never written)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=False, timeout=300)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr[-2000:]}")
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
    return wall, cpu, done.stdout, done.stderr


VERIFY = ["-m", "hanabi_p2p", "log", "verify"]


def cold(path: Path, repeat: int) -> dict[str, float]:
    """Medians of cold runs: the command (with and without bytecode), an empty Python, and
    the breakdown's phases."""
    child([*VERIFY, str(path)])  # writes the bytecode cache, if this checkout has none yet
    runs: dict[str, list[float]] = {}
    for _ in range(repeat):  # alternating, so that a busy moment weighs on each alike
        for key, args, bytecode in (("verify", [*VERIFY, str(path)], True),
                                    ("python", ["-c", "pass"], True),
                                    ("verify, no bytecode", [*VERIFY, str(path)], False)):
            wall, cpu, _, _ = child(args, bytecode=bytecode)
            runs.setdefault(f"{key} wall", []).append(wall)
            runs.setdefault(f"{key} CPU", []).append(cpu)
        _, _, out, _ = child(["-c", BREAKDOWN, str(path)])
        for step, ms in json.loads(out).items():
            runs.setdefault(step, []).append(ms)
    return {key: statistics.median(values) for key, values in runs.items()}


def import_groups(path: Path, repeat: int) -> list[tuple[str, float]]:
    """Where the imports of a cold run go: the median self time (ms, `-X importtime`) of
    each of our modules and of each other package, largest first."""
    runs: list[dict[str, float]] = []
    for _ in range(repeat):
        _, _, _, err = child(["-X", "importtime", *VERIFY, str(path)])
        found: dict[str, float] = {}
        for line in err.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, _, name = line.removeprefix("import time:").split("|")
            name = name.strip()
            group = name if name.startswith("hanabi_p2p") else name.split(".")[0]
            found[group] = found.get(group, 0.0) + int(own) / 1000
        runs.append(found)
    names = set().union(*runs)
    medians = {name: statistics.median(run.get(name, 0.0) for run in runs) for name in names}
    return sorted(medians.items(), key=lambda item: -item[1])


# Stages of a cold run whose instructions --instructions counts, each a new process: what
# a stage costs is its count less the one before it.
STAGES = (
    ("python start", ["-c", "pass"]),
    ("imports", ["-c", "from hanabi_p2p import cli; cli.build_parser('log'); "
                       "import hanabi_p2p.session.verify"]),
    ("deck library load", ["-c", "from hanabi_p2p import cli; cli.build_parser('log'); "
                                 "import hanabi_p2p.session.verify; "
                                 "from hanabi_p2p.deck import group; group.load_library()"]),
    ("checking the game and printing", VERIFY),
)
# What the instructions of the whole run are spent in (callgrind's inclusive counts of these
# functions of libsodium and of the interpreter; they do not overlap).
COST_CENTRES = (
    ("deck audit: ristretto255 variable-base mult.", "scalarmult_ristretto255_ref10.c:"),
    ("deck audit: ristretto255 base-point mult.", "ge25519_scalarmult_base "),
    ("Ed25519 signatures (libsodium, one by one)", "crypto_sign_ed25519_verify_detached "),
    ("compiling generated source (dataclasses' methods)", "PyRun_StringFlags "),
    ("loading bytecode (unmarshal)", "Python/marshal.c:marshal_loads"),
    ("decoding rbcl's library (hex)", "_PyBytes_FromHex "),
)


def callgrind(args: list[str], out: Path) -> int:
    """The instructions (callgrind's Ir: the same on an idle or a busy machine) of one new
    process, with compiled bytecode; its profile is written to `out`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0",
           "PYTHONPYCACHEPREFIX": str(PYCACHE)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                           sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=False, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"valgrind {' '.join(args)} failed: {done.stderr[-2000:]}")
    return int(done.stderr.rsplit("Collected :", 1)[1].split()[0])


def instructions(path: Path) -> None:
    """Where a cold run's instructions go, stage by stage and by cost centre (needs
    valgrind): unlike times, these counts do not move with the machine's load."""
    with tempfile.TemporaryDirectory() as tmp:
        counts, before = [], 0
        for name, args in STAGES:
            total = callgrind([*args, str(path)] if args is VERIFY else args,
                              Path(tmp) / "stage.out")
            counts.append((name, total - before))
            before = total
        annotated = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100",
             str(Path(tmp) / "stage.out")], capture_output=True, text=True, check=False,
            timeout=300).stdout.splitlines()
    print(f"instructions of a cold run (millions, callgrind), {before / 1e6:.0f} in all")
    for name, count in counts:
        print(f"  {name:<52} {count / 1e6:>8.0f} {count / before:>6.0%}")
    for name, marker in COST_CENTRES:
        found = [line for line in annotated if marker in line]
        count = int(found[0].split()[0].replace(",", "")) if found else 0
        print(f"  {name:<52} {count / 1e6:>8.0f} {count / before:>6.0%}")
    print(json.dumps({"instructions_cold_millions": round(before / 1e6),
                      **{f"instructions_{name.replace(' ', '_')}_millions": round(c / 1e6)
                         for name, c in counts}}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=105)
    parser.add_argument("--instructions", action="store_true",
                        help="count a cold run's instructions instead, stage by stage "
                             "(valgrind's callgrind: the same on a busy machine)")
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
        if args.instructions:
            child([*VERIFY, str(path)])  # the bytecode cache, if there is none yet
            instructions(path)
            return
        started = cold(path, args.repeat)
        imports = import_groups(path, max(3, args.repeat // 2))
        rows = [
            ("pipeline: verify_game(entries)", measure(lambda: verify_game(entries), args.repeat)),
            ("file: load + verify (log verify)", measure(lambda: read_report(path), args.repeat)),
            ("deck audit alone", measure(deck.audit, args.repeat)),
        ]
        checks = [batch_floor(entries) for _ in range(args.repeat)]
        one, floor = min(c[0] for c in checks), min(c[1] for c in checks)

    print(f"{report.headline()}")
    turns = report.state.turn if report.state else 0
    print(f"{len(entries)} entries, {size} bytes on disk, {turns} turns; "
          f"median of {args.repeat} runs")
    print(f"{'cold (a new process)':<44} {'wall ms':>8} {'CPU ms':>8}")
    for label, key in (("hanabi-p2p log verify FILE", "verify"),
                       ("  the same, no bytecode cache", "verify, no bytecode"),
                       ("python -c pass (start-up floor)", "python")):
        print(f"{label:<44} {started[f'{key} wall']:>8.1f} {started[f'{key} CPU']:>8.1f}")
    print(f"{'where a cold run goes (CPU ms, medians)':<44} {'ms':>8} {'share':>8}")
    phases = [("process start (python -c pass)", started["python CPU"])]
    phases += [(phase, started.get(phase, 0.0)) for phase in PHASES]
    accounted = sum(started.get(phase, 0.0) for phase in PHASES[2:])
    phases.append(("other (arguments, reading the file)",
                   max(started.get("total after imports", 0.0) - accounted, 0.0)))
    whole = sum(ms for _, ms in phases)
    for phase, ms in phases:
        print(f"  {phase:<42} {ms:>8.1f} {ms / whole:>8.0%}")
    print(f"  {'sum':<42} {whole:>8.1f}")
    print("where the imports go (self ms, -X importtime, largest first)")
    for name, ms in imports[:12]:
        print(f"  {name:<42} {ms:>8.1f}")
    print(f"{'warm (in this process)':<44} {'CPU ms':>8} {'wall ms':>8}")
    for name, (cpu, wall) in rows:
        print(f"{name:<44} {cpu:>8.1f} {wall:>8.1f}")
    print(f"Ed25519, per signature: {one:.1f} us one by one (libsodium); a batch written "
          f"here costs at least {floor:.1f} us (decoding R alone): "
          f"{'slower' if floor >= one else 'maybe faster'}")
    verdict = "within" if started["verify wall"] <= TARGET_MS else "OVER"
    print(f"target {TARGET_MS:.0f} ms for a cold log verify: {verdict}")
    print(json.dumps({
        f"log_verify_cold_ms_{args.players}p": round(started["verify wall"], 1),
        f"log_verify_cold_cpu_ms_{args.players}p": round(started["verify CPU"], 1),
        f"log_verify_cold_nobytecode_cpu_ms_{args.players}p":
            round(started["verify, no bytecode CPU"], 1),
        "python_start_ms": round(started["python wall"], 1),
        "python_start_cpu_ms": round(started["python CPU"], 1),
        "import_ms": round(started["imports"], 1),
        "library_load_ms": round(started["deck library load"], 1),
        "parse_cold_ms": round(started.get("parse (records, entries)", 0.0), 1),
        "signatures_cold_ms": round(started.get("signatures (Ed25519)", 0.0), 1),
        "audit_cold_ms": round(started.get("deck audit", 0.0), 1),
        "replay_cold_ms": round(started.get("rules replay (and chain links)", 0.0), 1),
        f"verify_ms_{args.players}p": round(rows[0][1][0], 1),
        f"log_verify_file_ms_{args.players}p": round(rows[1][1][0], 1),
        f"audit_ms_{args.players}p": round(rows[2][1][0], 1),
        "ed25519_one_by_one_us": round(one, 1),
        "ed25519_batch_floor_us": round(floor, 1),
        "entries": len(entries),
    }))


if __name__ == "__main__":
    main()
