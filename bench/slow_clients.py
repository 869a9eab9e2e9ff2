"""Benchmark: how many slow clients the panel survives, alone and behind its front server.

Slow clients ("slowloris") open a connection, send the first line of a request
and then one header byte every ``--interval`` seconds, never finishing it;
they are spread over 100 loopback source addresses (127.0.0.2 …) and open a
connection again whenever the server closes one, as a persistent attacker
does. At each step the number of slow clients doubles; while they hold on
(``--hold`` seconds, longer than nginx's 10 s header timeout so its cuts and
the attacker's reconnects are part of the picture) an honest client from its
own address (127.1.0.1) asks for ``GET /api/board`` ``--probes`` times and
must be answered within ``--deadline`` seconds every time. A configuration
survives a step when every probe is answered. The number of slow clients
doubles from ``--start`` until the first failure (or ``--max``), then the gap
between the last success and that failure is halved ``--refine`` times.

Side by side, in one process, with the same panel (``hautetension panel``,
waitress, default settings, a temporary database):

* **alone**: the slow clients and the honest client talk to waitress directly
  (``make run``);
* **front server**: they talk to Debian's nginx with the Pi's configuration
  (``systemd/nginx-hautetension.conf.in`` in Debian's default main
  configuration: ``worker_processes auto``, ``worker_connections 768``), and
  the panel listens behind it, as ``install.sh`` sets it up.

Reported per step: whether the honest client got every answer, its median
answer time (and the ratio to the same configuration with no slow client, the
baseline), and machine-independent counts: slow connections up, connections
the server closed (header timeouts), the panel's open file descriptors, and
(front server) the connections nginx was reading a header from.

Usage: .venv/bin/python bench/slow_clients.py [--max 12800] [--start 100] [--refine 4]
       [--hold 12] [--interval 5] [--deadline 1.0] [--probes 4] [--connection-limit N]
       [--only alone|front]
"""

from __future__ import annotations

import argparse
import http.client
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers.nginx import NginxFront  # noqa: E402
from tests.servers.process import find_binary, free_port, is_listening, server_folder  # noqa: E402
from tests.servers.slow_clients import SlowClients, can_bind  # noqa: E402

HONEST_ADDRESS = "127.1.0.1"


@dataclass
class Step:
    slow: int
    answered: int
    probes: int
    median_s: float | None
    connected: int
    closed_by_server: int
    panel_fds: int
    panel_rss_mib: float
    nginx_reading: int | None

    @property
    def survived(self) -> bool:
        return self.answered == self.probes


class Panel:
    """``hautetension panel`` as its own process on a free loopback port."""

    def __init__(self, folder: Path, *, trusted_proxy: str | None, connection_limit: int) -> None:
        self.port = free_port()
        config = folder / "config.toml"
        config.write_text(f"[panel]\nconnection_limit = {connection_limit}\n" if connection_limit else "")
        command = [
            str(ROOT / ".venv/bin/hautetension"),
            "panel",
            "--config",
            str(config),
            "--db",
            str(folder / "panel.db"),
            "--port",
            str(self.port),
        ]
        if trusted_proxy:
            command += ["--trusted-proxy", trusted_proxy]
        self.log = (folder / "panel.log").open("wb")
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while not is_listening("127.0.0.1", self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the panel did not start: see {folder / 'panel.log'}")
            time.sleep(0.05)

    def open_files(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def rss_mib(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return kib / 1024

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def honest_get(port: int, deadline: float) -> float | None:
    """Seconds ``GET /api/board`` took, or None if it was not answered (200) within *deadline*."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=deadline, source_address=(HONEST_ADDRESS, 0)
    )
    try:
        connection.request("GET", "/api/board")
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            return None
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()
    elapsed = time.perf_counter() - started
    return elapsed if elapsed <= deadline else None


def run_step(
    slow: int, *, port: int, panel: Panel, front: NginxFront | None, args: argparse.Namespace
) -> Step:
    attack = SlowClients("127.0.0.1", port, count=slow, interval=args.interval) if slow else None
    try:
        if attack is not None:
            attack.start()
            attack.wait_connected(timeout=10)
        times: list[float | None] = []
        probes = args.probes if attack is not None else 3 * args.probes  # the baseline: more of them
        gap = args.hold / args.probes if attack is not None else 0.2
        for _ in range(probes):
            time.sleep(gap)
            times.append(honest_get(port, args.deadline))
        answered = [t for t in times if t is not None]
        reading = nginx_reading(front) if front is not None else None
        return Step(
            slow=slow,
            answered=len(answered),
            probes=probes,
            median_s=statistics.median(answered) if answered else None,
            connected=attack.connected if attack else 0,
            closed_by_server=attack.closed_by_server if attack else 0,
            panel_fds=panel.open_files(),
            panel_rss_mib=panel.rss_mib(),
            nginx_reading=reading,
        )
    finally:
        if attack is not None:
            attack.close()
        time.sleep(1.0)  # let the server see the connections go


def nginx_reading(front: NginxFront) -> int | None:
    """Connections nginx is reading a header from (None when it is too full to answer even that)."""
    try:
        return front.status()["reading"]
    except (OSError, http.client.HTTPException):
        return None


def run_configuration(with_front: bool, args: argparse.Namespace, nginx: str | None) -> list[Step]:
    folder = server_folder("bench-slow")
    front: NginxFront | None = None
    panel = Panel(
        folder, trusted_proxy="127.0.0.1" if with_front else None, connection_limit=args.connection_limit
    )
    try:
        port = panel.port
        if with_front:
            assert nginx is not None
            (folder / "nginx").mkdir()
            front = NginxFront(
                folder / "nginx", binary=nginx, panel=f"127.0.0.1:{panel.port}", with_status=True
            )
            front.start()
            port = front.port
        for _ in range(5):  # warm up: the first requests open the threads' database connections
            honest_get(port, 10.0)
        steps = [run_step(0, port=port, panel=panel, front=front, args=args)]
        name = "front server" if with_front else "alone"

        def step(slow: int) -> bool:
            result = run_step(slow, port=port, panel=panel, front=front, args=args)
            steps.append(result)
            print(f"  {name:12} {describe(result)}", flush=True)
            return result.survived

        # Double until the honest client fails, then halve the gap a few times.
        last_ok, first_fail, slow = 0, None, args.start
        while slow <= args.max:
            if not step(slow):
                first_fail = slow
                break
            last_ok, slow = slow, slow * 2
        for _ in range(args.refine):
            if first_fail is None or first_fail - last_ok <= max(10, last_ok // 50):
                break
            middle = (last_ok + first_fail) // 2
            if step(middle):
                last_ok = middle
            else:
                first_fail = middle
        return steps
    finally:
        if front is not None:
            front.stop()
        panel.close()
        shutil.rmtree(folder, ignore_errors=True)


def describe(step: Step) -> str:
    median = f"{step.median_s * 1000:7.1f} ms" if step.median_s is not None else "      —   "
    verdict = "ok  " if step.survived else "FAIL"
    reading = f", nginx reading {step.nginx_reading}" if step.nginx_reading is not None else ""
    return (
        f"{step.slow:5d} slow: {verdict} {step.answered}/{step.probes} answered, median {median} "
        f"(up {step.connected}, closed by server {step.closed_by_server}, panel fds {step.panel_fds}, "
        f"RSS {step.panel_rss_mib:.0f} MiB{reading})"
    )


def survived(steps: list[Step]) -> int:
    return max((s.slow for s in steps if s.survived), default=0)


def report(alone: list[Step], front: list[Step], args: argparse.Namespace) -> None:
    base_alone = alone[0].median_s if alone else None
    base_front = front[0].median_s if front else None
    print()
    print(
        f"honest GET /api/board within {args.deadline:g} s, {args.probes} probes per step; "
        f"slow clients: one header byte every {args.interval:g} s, {args.hold:g} s per step"
    )
    print(f"{'slow clients':>12} | {'alone (waitress)':30} | {'front server (nginx)':30}")
    by_count = [{s.slow: s for s in steps} for steps in (alone, front)]
    for count in sorted(set(by_count[0]) | set(by_count[1])):
        left, right = by_count[0].get(count), by_count[1].get(count)
        print(f"{count:>12} | {cell(left, base_alone):30} | {cell(right, base_front):30}")
    print()
    for name, steps in (("alone", alone), ("behind the front server", front)):
        if steps:
            failed = min((s.slow for s in steps if not s.survived), default=None)
            then = f", not {failed}" if failed is not None else " (the ceiling: --max)"
            print(f"survived {name}: {survived(steps)} slow clients{then}")
    if base_alone and base_front:
        print(
            f"no attack: median {base_alone * 1000:.1f} ms alone, {base_front * 1000:.1f} ms through nginx "
            f"(×{base_front / base_alone:.2f})"
        )


def cell(step: Step | None, base: float | None) -> str:
    if step is None:
        return "(not run)"
    if not step.survived:
        return f"FAIL ({step.answered}/{step.probes} answered)"
    assert step.median_s is not None
    ratio = f" ×{step.median_s / base:.2f}" if base else ""
    return f"ok {step.median_s * 1000:.1f} ms{ratio}"


def raise_open_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        if target < needed:
            print(f"warning: open files limited to {target}: the largest steps may not open", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--max", type=int, default=12800, help="the most slow clients tried")
    parser.add_argument("--start", type=int, default=100, help="slow clients at the first step")
    parser.add_argument("--hold", type=float, default=12.0, help="seconds each step lasts")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between two header bytes")
    parser.add_argument("--deadline", type=float, default=1.0, help="an honest answer must come within this")
    parser.add_argument("--probes", type=int, default=4, help="honest requests per step")
    parser.add_argument(
        "--connection-limit", type=int, default=0, help="[panel] connection_limit (default: automatic)"
    )
    parser.add_argument("--only", choices=("alone", "front"), help="measure one configuration only")
    parser.add_argument("--refine", type=int, default=4, help="halvings of the gap after the first failure")
    args = parser.parse_args(argv)
    nginx = find_binary("nginx")
    if nginx is None:
        print("nginx is missing (apt-get install nginx): no front server to measure", file=sys.stderr)
        return 1
    if not can_bind(HONEST_ADDRESS):
        print(f"cannot bind {HONEST_ADDRESS}: this benchmark needs the loopback 127.0.0.0/8", file=sys.stderr)
        return 1
    raise_open_file_limit(args.max + 1024)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    alone = run_configuration(False, args, nginx) if args.only != "front" else []
    front = run_configuration(True, args, nginx) if args.only != "alone" else []
    report(alone, front, args)
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
