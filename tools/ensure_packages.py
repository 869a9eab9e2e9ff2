"""Make sure the real programs the tests run are installed: Debian's packages.

Run by ``make test`` before pytest. The suite never mocks a browser, a broker,
a database server or a front server: it drives Debian's Chromium, and starts
Mosquitto, PostgreSQL and nginx as local processes on free loopback ports.
Each missing program is installed with apt-get when this user can (root, or
sudo without a password); otherwise a loud warning names what is missing, and
the tests that need it skip with that reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from glob import glob

# program the tests run → the Debian package that brings it
NEEDED: dict[str, str] = {
    "/usr/bin/chromium": "chromium",
    "/usr/sbin/mosquitto": "mosquitto",
    "/usr/lib/postgresql/*/bin/postgres": "postgresql",
    "/usr/sbin/nginx": "nginx",
    # nginx's publish/subscribe module: the live pages' subscribers held by nginx (webpanel/fanout.py)
    "/usr/lib/nginx/modules/ngx_nchan_module.so": "libnginx-mod-nchan",
}


def is_present(program: str) -> bool:
    return bool(glob(program))


def apt_prefix() -> list[str] | None:
    """How this user runs apt-get as root, or None when it cannot."""
    if not shutil.which("apt-get"):
        return None
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n"]
    return None


def apt_install(*packages: str) -> bool:
    """Install Debian *packages* with apt-get if this user may; True when apt-get succeeded."""
    prefix = apt_prefix()
    if prefix is None:
        return False
    print(f"Installing Debian's {', '.join(packages)} for the tests…", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run([*prefix, "apt-get", "update", "-qq"], check=False, env=env)
    result = subprocess.run([*prefix, "apt-get", "install", "-y", "-qq", *packages], check=False, env=env)
    return result.returncode == 0


def warn_loudly(*lines: str) -> None:
    """A banner on stderr that ``make test``'s reader cannot miss."""
    banner = "!" * 72
    body = "\n".join(f"!! {line}" for line in lines)
    print(f"{banner}\n{body}\n{banner}", file=sys.stderr)


def main(only: list[str]) -> int:
    """Install what is missing of every package the tests need, or of the packages named in *only*
    (``make event`` needs Mosquitto alone)."""
    needed = {program: package for program, package in NEEDED.items() if not only or package in only}
    unknown = sorted(set(only) - set(NEEDED.values()))
    if unknown:
        print(f"ensure_packages.py: unknown package(s) {', '.join(unknown)}", file=sys.stderr)
        return 2
    missing = {program: package for program, package in needed.items() if not is_present(program)}
    if missing:
        apt_install(*sorted(set(missing.values())))
    still = {program: package for program, package in missing.items() if not is_present(program)}
    if still:
        warn_loudly(
            *(f"{program} is missing (apt-get install {package})" for program, package in still.items()),
            "The tests (or the demo) that need them will be SKIPPED.",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
