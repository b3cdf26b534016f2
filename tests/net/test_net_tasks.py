"""`owned_tasks`: a task group whose failure is the error itself, its other tasks ended."""

from __future__ import annotations

import asyncio

import pytest

from hanabi_p2p.net.tasks import first_error, owned_tasks


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
