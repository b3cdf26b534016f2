"""`owned_tasks`: a task group whose failure is the error itself, its other tasks ended."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from hanabi_p2p.net.tasks import StackedContext, first_error, owned_tasks


class Bug(Exception):
    pass


def test_a_failing_task_ends_its_siblings_and_the_body_and_is_raised_unwrapped() -> None:
    ended: list[str] = []

    async def sibling() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            ended.append("sibling")

    async def failing() -> None:
        await asyncio.sleep(0)
        raise Bug("a bug of ours")

    async def main() -> None:
        async with owned_tasks() as group:
            group.create_task(sibling())
            group.create_task(failing())
            try:
                await asyncio.sleep(60)
            finally:
                ended.append("body")

    with pytest.raises(Bug, match="a bug of ours"):
        asyncio.run(main())
    assert sorted(ended) == ["body", "sibling"]


def test_an_error_of_the_body_is_raised_as_itself() -> None:
    async def main() -> None:
        async with owned_tasks() as group:
            group.create_task(asyncio.sleep(60))
            raise KeyError("from the body")

    with pytest.raises(KeyError, match="from the body"):
        asyncio.run(main())


def test_the_first_leaf_of_nested_groups() -> None:
    inner = ValueError("first")
    nested = BaseExceptionGroup("outer", [ExceptionGroup("inner", [inner, KeyError()]),
                                          TypeError()])
    assert first_error(nested) is inner


def test_a_stacked_context_undoes_what_entering_set_up_last_first_and_a_failed_entering_too(
) -> None:
    done: list[str] = []

    class Twice(StackedContext):
        def __init__(self, fail: bool) -> None:
            self.fail = fail

        async def _enter(self, stack: contextlib.AsyncExitStack) -> None:
            stack.callback(done.append, "first undone")
            stack.callback(done.append, "second undone")
            if self.fail:
                raise Bug("entering failed")

    async def main() -> None:
        async with Twice(fail=False):
            done.append("block")
        with pytest.raises(Bug, match="entering failed"):
            async with Twice(fail=True):
                done.append("never")

    asyncio.run(main())
    assert done == ["block", "second undone", "first undone", "second undone", "first undone"]
