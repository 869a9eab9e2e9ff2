"""Make sure Debian's Chromium is there for the browser tests.

Run by ``make test`` before pytest. Installs the ``chromium`` package with
apt-get when it is missing and this user can; otherwise prints a loud warning
(the browser tests then skip, saying why).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

CHROMIUM = "/usr/bin/chromium"


def apt_install(*packages: str) -> bool:
    """Install Debian *packages* with apt-get if this user may; True when apt-get succeeded."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
    result = subprocess.run(["apt-get", "install", "-y", "-qq", *packages], check=False, env=env)
    return result.returncode == 0


def warn_loudly(*lines: str) -> None:
    """A banner on stderr that ``make test``'s reader cannot miss."""
    banner = "!" * 72
    body = "\n".join(f"!! {line}" for line in lines)
    print(f"{banner}\n{body}\n{banner}", file=sys.stderr)


def main() -> int:
    if os.path.exists(CHROMIUM):
        return 0
    print("Chromium is missing: installing Debian's chromium package for the browser tests…", flush=True)
    if apt_install("chromium") and os.path.exists(CHROMIUM):
        return 0
    warn_loudly(
        f"{CHROMIUM} is missing and could not be installed.",
        "The browser tests will be SKIPPED. Install it with: sudo apt-get install chromium",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
