from __future__ import annotations

from collections.abc import Iterator

import pytest

from hanabi_p2p import i18n


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    """Every test starts in English and leaves the process in English."""
    i18n.setup("en")
    yield
    i18n.setup("en")
