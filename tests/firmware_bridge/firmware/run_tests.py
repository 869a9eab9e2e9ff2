"""Runs the firmware's test files under MicroPython: the pytest of the device side.

``tests/firmware_bridge/test_firmware.py`` lays this folder and the device
files flat in MicroPython's working directory and runs
``run_tests.main([...module names...])``. Each test function (``test_*``,
no arguments) is called in name order; one line per test is printed,
``@@ {"module": ..., "test": ..., "ok": ..., "ms": ..., "error": traceback}``, and a
last ``@@ {"done": count}`` line, which pytest reads back.
"""

import io
import json
import sys
import time

MARK = "@@ "


def report(result: dict) -> None:
    print(MARK + json.dumps(result))


def traceback(exc: BaseException) -> str:
    buf = io.StringIO()
    sys.print_exception(exc, buf)  # MicroPython's traceback printer (the traceback module is CPython's)
    return buf.getvalue()


def run_module(name: str) -> int:
    try:
        module = __import__(name)
    except Exception as exc:
        report({"module": name, "test": None, "ok": False, "error": traceback(exc)})
        return 0
    count = 0
    for test in sorted(dir(module)):
        function = getattr(module, test)
        if not test.startswith("test_") or not callable(function):
            continue
        start = time.ticks_ms()
        try:
            function()
            result = {"ok": True}
        except Exception as exc:
            result = {"ok": False, "error": traceback(exc)}
        result.update(module=name, test=test, ms=time.ticks_diff(time.ticks_ms(), start))
        report(result)
        count += 1
    return count


def main(modules: list) -> None:
    report({"done": sum(run_module(name) for name in modules)})
