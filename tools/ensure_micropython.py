"""Make sure MicroPython's WebAssembly port is there for the firmware tests.

Run by ``make test`` before pytest, with the venv's Python. When the pinned
npm package (``firmware_bridge.toolchain.NPM_PACKAGE`` at ``NPM_VERSION``)
is missing from ``.venv/node/``, installs it with npm, after installing
Debian's ``nodejs`` and ``npm`` when they are missing and this user may.
When it cannot, it says why loudly and writes the reason where the tests
read it: they then skip with that reason.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

from ensure_packages import apt_install, warn_loudly

from firmware_bridge.exc import ToolMissingError
from firmware_bridge.toolchain import INSTALL_PROBLEM, NODE_PREFIX, NPM_PACKAGE, NPM_VERSION, find_micropython


def have_node() -> bool:
    return bool(shutil.which("node") and shutil.which("npm"))


def install() -> str | None:
    """Install what is missing; the reason it could not, or None."""
    if not have_node():
        print("Node.js is missing: installing Debian's nodejs and npm for the MicroPython tests…", flush=True)
        if not apt_install("nodejs", "npm") or not have_node():
            return "Node.js and npm are missing and could not be installed (sudo apt-get install nodejs npm)"
    print(f"Installing {NPM_PACKAGE}@{NPM_VERSION} into {NODE_PREFIX} for the MicroPython tests…", flush=True)
    NODE_PREFIX.mkdir(parents=True, exist_ok=True)
    command = [
        "npm", "install", "--prefix", str(NODE_PREFIX), "--no-save", "--no-audit", "--no-fund",
        "--ignore-scripts", "--loglevel=error", f"{NPM_PACKAGE}@{NPM_VERSION}",
    ]  # fmt: skip
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "npm install did not finish within 10 minutes"
    if result.returncode != 0:
        last = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
        return f"npm install failed with status {result.returncode}: {last[0]}"
    return None


def main() -> int:
    try:
        find_micropython()
        return 0
    except ToolMissingError:
        pass
    INSTALL_PROBLEM.unlink(missing_ok=True)
    problem = install()
    if problem is None:
        try:
            find_micropython()
            return 0
        except ToolMissingError as exc:
            problem = str(exc)
    NODE_PREFIX.mkdir(parents=True, exist_ok=True)
    INSTALL_PROBLEM.write_text(problem + "\n", encoding="utf-8")
    warn_loudly(
        f"MicroPython's WebAssembly port ({NPM_PACKAGE} {NPM_VERSION}) could not be installed:",
        problem,
        "The firmware tests under MicroPython will be SKIPPED (they still run under CPython).",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
