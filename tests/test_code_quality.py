"""The code stays clean: ruff's lint rules and mypy in strict mode (pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "command",
    [
        [str(BIN / "ruff"), "check", "--no-cache", "."],
        [str(BIN / "mypy"), "--no-incremental"],
    ],
    ids=["ruff", "mypy"],
)
def test_checker_reports_nothing(command: list[str]) -> None:
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
