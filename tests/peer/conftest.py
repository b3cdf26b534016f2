"""Trace equality for every in-memory game of this folder (see `traces.py`).

Each test's networks leave one digest each; a test whose digests differ from the golden
ones recorded in `golden_traces.json` fails: the peer core now behaves differently. With
``HANABI_RECORD_TRACES=1`` the digests are written instead (run the folder twice and check
the file does not change: a trace must be deterministic to be worth keeping).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from traces import TraceRecorder

try:
    import fcntl
except ImportError:  # (Windows: record traces in one process there)
    fcntl = None  # type: ignore[assignment]

GOLDEN = Path(__file__).with_name("golden_traces.json")
RECORD = os.environ.get("HANABI_RECORD_TRACES") == "1"
_golden: dict[str, list[str]] = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
_recorded: dict[str, list[str]] = {}


def _key(item: pytest.Item) -> str:
    # the path relative to this folder: the same whichever directory pytest ran from
    return item.nodeid.split("tests/peer/", 1)[-1]


@pytest.fixture(autouse=True)
def _trace_equality(request: pytest.FixtureRequest) -> Iterator[None]:
    TraceRecorder.made.clear()
    yield
    digests = [r.digest() for r in TraceRecorder.made if r.lines]
    TraceRecorder.made.clear()
    key = _key(request.node)
    if RECORD:
        if digests:
            _recorded[key] = digests
        return
    expected = _golden.get(key)
    if expected is not None:
        assert digests == expected, (
            f"the peer cores' effects in {key} differ from the recorded trace: behaviour "
            "changed (if on purpose, record again: HANABI_RECORD_TRACES=1)")


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not (RECORD and _recorded):
        return
    # Each xdist worker records its own tests: merged into the file as it is now, under a
    # lock, so that workers finishing together do not write over each other's records.
    with GOLDEN.with_suffix(".lock").open("w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        current = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        merged = {**current, **_recorded}
        GOLDEN.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n")
