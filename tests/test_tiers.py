"""The test tiers (tests/tiers.py): the fast tier and the rest are the whole suite, and a test
that reaches outside the process without saying so fails."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tiers import (
    GUARD,
    REAL_IO,
    SLOW,
    RealIOForbidden,
    in_fast_tier,
    longest_first,
    tier_markers,
)

ROOT = Path(__file__).resolve().parent.parent
# the fast tier's promise (README): most of the suite, in under a minute
MIN_FAST_TESTS = 800


def test_a_test_without_markers_or_fixtures_of_real_io_is_in_the_fast_tier() -> None:
    tier = tier_markers({"parametrize", "timeout"}, {"tmp_path", "monkeypatch"})
    assert tier == set() and in_fast_tier(tier)


@pytest.mark.parametrize(
    ("markers", "fixtures", "expected"),
    [
        ({"process"}, set(), {"process", REAL_IO}),
        ({"socket"}, set(), {"socket", REAL_IO}),
        ({"tmux"}, set(), {"tmux", "process", "socket", REAL_IO}),
        ({"netns", "slow"}, set(), {"netns", "process", "socket", SLOW, REAL_IO}),
        (set(), {"procs"}, {"process", REAL_IO}),
        (set(), {"netlab", "tmp_path"}, {"netns", "process", "socket", REAL_IO}),
        ({SLOW}, set(), {SLOW}),
    ],
)
def test_a_real_io_marker_or_fixture_or_slow_takes_a_test_out_of_the_fast_tier(
    markers: set[str], fixtures: set[str], expected: set[str]
) -> None:
    tier = tier_markers(markers, fixtures)
    assert tier == expected
    assert not in_fast_tier(tier)


def test_tests_that_start_processes_then_slow_ones_are_handed_out_first() -> None:
    kinds = [set(), {SLOW}, {"socket", REAL_IO}, {"netns", "process", "socket", REAL_IO},
             {"process", REAL_IO, SLOW}, {"parametrize"}]
    assert sorted(kinds, key=longest_first) == [
        {"process", REAL_IO, SLOW}, {"netns", "process", "socket", REAL_IO},
        {SLOW}, set(), {"socket", REAL_IO}, {"parametrize"}]  # the last three as they came


def test_this_test_runs_under_the_guard(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker(REAL_IO) is None
    assert GUARD.active


@pytest.mark.parametrize("family", [socket.AF_INET, socket.AF_INET6])
def test_a_network_socket_is_refused_before_it_exists(family: socket.AddressFamily) -> None:
    with pytest.raises(RealIOForbidden, match=f"opening an {family.name} socket"):
        socket.socket(family, socket.SOCK_DGRAM)
    # caught here, yet recorded: the hook would fail this test if we did not take it back
    assert GUARD.take_attempts() == [f"opening an {family.name} socket"]


def test_code_that_swallows_the_refusal_still_has_it_recorded() -> None:
    def dial_quietly() -> bool:
        try:
            socket.create_connection(("127.0.0.1", 9))
        except BaseException:  # as a careless retry loop would
            return False
        return True

    assert not dial_quietly()
    assert GUARD.take_attempts() == ["opening an AF_INET socket"]


def test_starting_a_process_is_refused() -> None:
    with pytest.raises(RealIOForbidden, match="starting a process"):
        subprocess.run([sys.executable, "-c", "pass"], check=False)
    assert GUARD.take_attempts() == ["starting a process"]


def test_a_local_socket_pair_stays_allowed_for_the_event_loop_but_cannot_bind() -> None:
    assert asyncio.run(asyncio.sleep(0, result="ran")) == "ran"  # its loop wakes via a pair
    left, right = socket.socketpair()
    with left, right:
        left.sendall(b"x")
        assert right.recv(1) == b"x"
        with pytest.raises(RealIOForbidden, match="bind"):
            left.bind("")
    assert GUARD.take_attempts() == ["socket.bind()"]


@pytest.mark.socket
def test_a_test_marked_socket_may_open_one(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker(REAL_IO) is not None
    assert not GUARD.active
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        assert listener.getsockname()[1] > 0


def collected(*args: str) -> list[str]:
    """The test ids `pytest --collect-only ARGS` selects, failing on a collection error."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


@pytest.mark.process
def test_the_fast_tier_and_the_rest_are_the_whole_suite_and_none_is_lost() -> None:
    everything = collected()
    fast = collected("--fast")
    rest = collected("-m", f"{REAL_IO} or {SLOW}")
    assert len(set(everything)) == len(everything)
    assert not set(fast) & set(rest)
    assert sorted(fast + rest) == sorted(everything)
    assert len(fast) >= MIN_FAST_TESTS
