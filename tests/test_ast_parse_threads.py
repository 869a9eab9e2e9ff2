"""The test processes parse Python in several threads at once without CPython 3.11's SystemError.

See ``_one_ast_parse_at_a_time`` in ``tests/conftest.py``: without its lock, this test's four threads
raise ``SystemError: AST constructor recursion depth mismatch`` within a few hundred parses.
"""

from __future__ import annotations

import ast
import sys
import threading
from collections.abc import Iterator

import pytest

SOURCE = "x = " + "(" * 50 + "1" + ")" * 50 + "\n" + "\n".join(
    f"def f{i}(a, b=[1, 2, {{3: 4}}]):\n    return [a + b for _ in range(3) if a]" for i in range(200)
)


class Garbage:
    """A cycle with a finalizer: the collector runs Python code, and threads switch, mid-parse."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        sum(range(50))


@pytest.fixture
def fast_thread_switches() -> Iterator[None]:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def test_four_threads_parse_at_once_without_system_error(fast_thread_switches: None) -> None:
    errors: list[BaseException] = []

    def parse_often() -> None:
        try:
            for _ in range(40):
                garbage = [Garbage() for _ in range(50)]
                del garbage
                ast.parse(SOURCE)
        except SystemError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=parse_often) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
