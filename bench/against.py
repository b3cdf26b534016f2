"""A benchmark run here and in another checkout, alternating: medians and ratios.

The figures in our issues were measured on a busy 2-core machine whose speed drifts by half
again over minutes, so an absolute figure measured today says little next to one measured
then. This runs the same benchmark script in this checkout and in another one (the code an
issue measured, or main before a change), alternating which goes first every round, and
compares the last JSON line each run prints: the median of every number both report (nested
ones too, named by their path), and this checkout's median divided by the other's.

Each run is a fresh process of the other checkout's own script on its own code
(``PYTHONPATH`` set to that checkout), with this Python and its installed libraries.

Usage: .venv/bin/python bench/against.py CHECKOUT [--rounds N] -- bench/game.py --games 3
Prints each run's headline, a table, then (last line) one JSON object:
{"script": ..., "rounds": N, "other_checkout": PATH, "this": {key: median},
 "other": {key: median}, "ratio": {key: this / other}}.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
RUN_TIMEOUT_S = 600.0


def run_once(checkout: Path, script: list[str]) -> dict[str, Any]:
    """One run of `script` (a path inside the checkout, then its arguments) in `checkout`:
    the JSON object on the last line it printed.

    Its output goes to files, not pipes: a process it started that outlived it (a program
    left running in a namespace) would hold a pipe open, and reading to its end would wait
    for that process, where the script itself had long failed and said why."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen([sys.executable, *script], cwd=checkout, stdout=out,
                                   stderr=err, text=True,
                                   env={**os.environ, "PYTHONPATH": str(checkout)})
        try:
            returncode = process.wait(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            # SIGTERM first: the script may still clean up (its namespaces) and say so
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            returncode = None
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    lines = stdout.strip().splitlines()
    if returncode is None:
        raise SystemExit(f"{checkout}: {' '.join(script)} ran past {RUN_TIMEOUT_S:g} s and "
                         f"was stopped; it said:\n{stderr.strip()[-2000:]}")
    if returncode != 0 or not lines:
        raise SystemExit(f"{checkout}: {' '.join(script)} failed (exit {returncode}):\n"
                         f"{stderr.strip()[-2000:]}")
    try:
        figures = json.loads(lines[-1])
    except json.JSONDecodeError:
        raise SystemExit(f"{checkout}: the last line is not JSON: {lines[-1][:200]}") from None
    if not isinstance(figures, dict):
        raise SystemExit(f"{checkout}: the last line is not a JSON object")
    return figures


def numbers(figures: Any, prefix: str = "") -> dict[str, float]:
    """Every number in the JSON line, nested ones named by their path (a table per player
    count, as bench/bots.py prints them: `tables.0.games_per_cpu_s`)."""
    items = (figures.items() if isinstance(figures, dict)
             else enumerate(figures) if isinstance(figures, list) else ())
    found: dict[str, float] = {}
    for key, value in items:
        name = f"{prefix}{key}"
        if isinstance(value, int | float) and not isinstance(value, bool):
            found[name] = float(value)
        else:
            found.update(numbers(value, name + "."))
    return found


def compare(here: list[dict[str, float]], other: list[dict[str, float]]
            ) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Medians per key on each side (keys both sides report in every run) and their ratio."""
    keys = [key for key in here[0]
            if all(key in run for run in here) and all(key in run for run in other)]
    mine = {key: statistics.median(run[key] for run in here) for key in keys}
    theirs = {key: statistics.median(run[key] for run in other) for key in keys}
    ratio = {key: round(mine[key] / theirs[key], 3) for key in keys if theirs[key]}
    return mine, theirs, ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("checkout", type=Path, help="the other checkout (a git worktree)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="runs on each side, alternating (default: 5)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    script = argv[cut + 1:]
    other_checkout = args.checkout.resolve()
    if not script or not (other_checkout / script[0]).is_file():
        parser.error(f"after --, name a script that exists in {other_checkout}")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    sides = {"this": HERE, "other": other_checkout}
    runs: dict[str, list[dict[str, float]]] = {"this": [], "other": []}
    for round_index in range(args.rounds):
        order = ["this", "other"] if round_index % 2 == 0 else ["other", "this"]
        for side in order:
            figures = numbers(run_once(sides[side], script))
            runs[side].append(figures)
            headline = " ".join(f"{key}={value:g}" for key, value in list(figures.items())[:6])
            print(f"round {round_index + 1} {side:5s} {headline}", flush=True)
    mine, theirs, ratio = compare(runs["this"], runs["other"])
    print(f"{'figure':24s} {'this':>10s} {'other':>10s} {'ratio':>7s}   "
          f"(medians of {args.rounds} runs; other = {other_checkout})")
    for key in mine:
        shown = f"{ratio[key]:7.3f}" if key in ratio else "      -"
        print(f"{key:24s} {mine[key]:10.4g} {theirs[key]:10.4g} {shown}")
    print(json.dumps({"script": " ".join(script), "rounds": args.rounds,
                      "other_checkout": str(other_checkout), "this": mine, "other": theirs,
                      "ratio": ratio}))


if __name__ == "__main__":
    main()
