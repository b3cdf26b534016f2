"""Fixtures for the network tests: the namespace LAN (skips without root, fails under CI)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from netlab import NetLab, require_netlab


@pytest.fixture
def netlab() -> Iterator[NetLab]:
    """A fresh NetLab, torn down after the test whatever happened."""
    require_netlab()
    lab = NetLab()
    try:
        yield lab
    finally:
        lab.close()
