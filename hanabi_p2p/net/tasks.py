"""Task groups that fail with the error itself.

Every task of the network shell belongs to an `asyncio.TaskGroup`, so that none can die
unseen: the first one to fail cancels the rest and the group's owner. A bare TaskGroup
raises what failed wrapped in an ExceptionGroup, though, and the callers of the shell (the
commands, their one-line reasons, the tests) expect the error as it was raised; `owned_tasks`
unwraps it: the first error is raised, with its own traceback, the others are dropped (they
are most often the cancellations that the first one caused elsewhere).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


def first_error(errors: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first leaf of a (possibly nested) exception group."""
    first = errors.exceptions[0]
    return first_error(first) if isinstance(first, BaseExceptionGroup) else first


@contextlib.asynccontextmanager
async def owned_tasks() -> AsyncIterator[asyncio.TaskGroup]:
    """`async with owned_tasks() as group:` an asyncio.TaskGroup that raises the first error
    of its body or its tasks unwrapped."""
    try:
        async with asyncio.TaskGroup() as group:
            yield group
    except BaseExceptionGroup as errors:
        raise first_error(errors) from None
