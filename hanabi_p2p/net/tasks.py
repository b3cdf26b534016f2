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
from types import TracebackType
from typing import Self


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


class StackedContext:
    """An async context manager whose entering fills an exit stack (`_enter`) that its exit
    unwinds: what entering has set up is undone, last first, whether the block ends well or
    not, and a failed entering undoes its own steps."""

    _stack: contextlib.AsyncExitStack | None = None

    async def _enter(self, stack: contextlib.AsyncExitStack) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        async with contextlib.AsyncExitStack() as stack:
            await self._enter(stack)
            self._stack = stack.pop_all()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> bool | None:
        assert self._stack is not None
        return await self._stack.__aexit__(kind, error, trace)
