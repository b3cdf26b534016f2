"""Fixtures for the end-to-end tests: real peer processes, on loopback or on a namespace LAN.

The namespace LAN is the netlab of tests/net (imported from there, not copied). Every process a
test starts is registered with a fixture that kills it at teardown, whatever happened.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "net"))

from e2e_helpers import Procs
from netlab import NetLab, require_netlab


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Procs]:
    """Start peer processes (each with its own data dir and output files); all killed after."""
    group = Procs(tmp_path)
    try:
        yield group
    finally:
        group.kill_all()


@pytest.fixture
def netlab() -> Iterator[NetLab]:
    """A fresh namespace LAN, torn down after the test (skips without root, fails under CI)."""
    require_netlab()
    lab = NetLab()
    try:
        yield lab
    finally:
        lab.close()
