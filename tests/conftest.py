"""Shared by every test folder.

Makes the helpers shared across test folders (``tests/blind_table.py``, ``tests/tiers.py``)
importable from any of them: pytest puts this folder on ``sys.path`` for its conftest.

Remembers the deck group's multiplications for the whole pytest process
(``tests/group_memo.py``: the same answers, computed once).

Sorts the tests into tiers (the markers are explained in tests/tiers.py): every test gets
the markers its fixtures and markers imply, `--fast` keeps only the tests that stay in
memory, and every test not marked `real_io` runs with sockets and processes refused.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Generator

import group_memo
import pytest
from tiers import GUARD, REAL_IO, in_fast_tier, longest_first, tier_markers


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="run only the fast tier: the tests marked neither real_io nor slow",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Importing ifaddr (zeroconf imports it; so does every peer command) runs `ldconfig -p`
    # to find the C library: done here, before the guard, so that whichever test happens
    # to import it first is not taken for one that starts a process.
    import ifaddr  # noqa: F401

    GUARD.install()
    config.add_cleanup(GUARD.uninstall)
    # an in-memory table's seats check each other's deck steps in this one process: the
    # same multiplications again and again (tests/group_memo.py says why this is exact)
    config.add_cleanup(group_memo.install())


# tryfirst: the markers added here must be there when `-m` selects
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    fast, rest = [], []
    for item in items:
        tier = tier_markers(
            {mark.name for mark in item.iter_markers()},
            set(getattr(item, "fixturenames", ())),
        )
        for name in sorted(tier):
            if item.get_closest_marker(name) is None:
                item.add_marker(name)
        (fast if in_fast_tier(tier) else rest).append(item)
    if config.getoption("fast") and rest:
        config.hook.pytest_deselected(items=rest)
        items[:] = fast
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # the longest first, the rest in their order; every worker sorts alike, as
        # pytest-xdist requires
        items.sort(key=lambda item: longest_first({mark.name for mark in item.iter_markers()}))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    GUARD.take_attempts()  # anything a thread left over from an earlier test did
    GUARD.active = item.get_closest_marker(REAL_IO) is None
    try:
        return (yield)
    finally:
        GUARD.active = False


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A refused socket or process fails the test even if the code under test caught the
    error (a test that passes only because its connection 'failed' is misclassified)."""
    report = yield
    attempts = GUARD.take_attempts()
    if attempts and not report.failed:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid}: not marked real_io, yet during {call.when}: "
            + "; ".join(dict.fromkeys(attempts))
            + " (refused; mark the test process / socket / tmux / netns, see tests/tiers.py)"
        )
    return report


@pytest.fixture(autouse=True)
def _collector_left_unfrozen() -> Generator[None, None, None]:
    """A program's exit freezes the collector's objects (`run_game`: gc.freeze); a test that
    runs a command in this process must not leave the next test a frozen collector (the
    node's collector test found one so under xdist)."""
    yield
    if gc.get_freeze_count():
        gc.unfreeze()
