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


def main() -> int:
    if os.path.exists(CHROMIUM):
        return 0
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("Chromium is missing: installing Debian's chromium package for the browser tests…", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
        result = subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=False, env=env)
        if result.returncode == 0 and os.path.exists(CHROMIUM):
            return 0
    banner = "!" * 72
    print(
        f"{banner}\n!! {CHROMIUM} is missing and could not be installed.\n"
        "!! The browser tests will be SKIPPED. Install it with: sudo apt-get install chromium\n"
        f"{banner}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
