"""Import time of every process of the controller, measured with ``python -X importtime``.

    .venv/bin/python bench/import_time.py [--repeat 5] [--before REV]

Each process is started for real, as its systemd unit or a person starts it,
under ``python -X importtime -m hautetension ...``, and its imports are
counted until it is ready:

* ``board (sim)``, ``board (serial)``: the board service until it says it is
  ready (the serial one on a pseudo-terminal with no device behind it: the
  link reports it down and the service runs on);
* ``panel``: the web panel until it says where it listens;
* the one-shot commands ``game status``, ``config check``, ``tournament list``
  and ``backup``, from start to exit.

For each it reports the time spent importing (the sum of the top-level
imports' cumulative times: what ``-X importtime`` prints, nested imports
included once), the number of modules imported and whether gpiozero, Flask
and pyserial were among them. The baseline, measured in the same run
alternating with the others, is the bare interpreter (``python -c pass``:
``site`` and the encodings). With ``--before REV`` the same processes of the
tree at git revision REV (exported with ``git archive``) run side by side,
alternating, and the table gives the ratio now/before. The module counts do
not depend on the machine; the times do (check ``uptime``).
"""

from __future__ import annotations

import argparse
import os
import pty
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WATCHED = ("gpiozero", "flask", "serial")


@dataclass
class Imports:
    """What one process imported before it was ready."""

    micros: int
    modules: set[str]

    def has(self, package: str) -> bool:
        return any(m == package or m.startswith(package + ".") for m in self.modules)


@dataclass
class Case:
    name: str
    words: Callable[[Path], list[str]]
    """The command's words after ``hautetension``, given a scratch folder."""
    ready: str | None
    """A line on stderr that says the process is ready (then it is stopped); None: it runs to its end."""
    since: str | None = None
    """The first revision that has this command (older trees skip it)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serial_words(folder: Path) -> list[str]:
    return ["board", "--backend", "serial", "--port", str(folder / "tty"), "--db", str(folder / "serial.db")]


CASES = [
    Case("board (sim)", lambda f: ["board", "--backend", "sim", "--db", str(f / "board.db")],
         ready="hautetension board: sim board"),
    Case("board (serial)", _serial_words, ready="hautetension board: serial board"),
    Case("panel", lambda f: ["panel", "--db", str(f / "panel.db"), "--port", str(_free_port())],
         ready="hautetension panel: http://"),
    Case("game status", lambda f: ["game", "status", "--db", str(f / "board.db")], ready=None),
    Case("config check", lambda f: ["config", "check"], ready=None),
    Case("tournament list", lambda f: ["tournament", "list", "--db", str(f / "board.db")], ready=None),
    Case("backup", lambda f: ["backup", str(f / "copy.db"), "--db", str(f / "board.db")], ready=None,
         since="service"),
]


def parse(lines: list[str]) -> Imports:
    """The top-level imports' cumulative times and every module named in ``-X importtime`` lines."""
    total = 0
    modules: set[str] = set()
    for line in lines:
        parts = line.split("|")
        if not line.startswith("import time:") or len(parts) != 3:
            continue
        try:
            cumulative = int(parts[1])
        except ValueError:
            continue  # the header line
        name = parts[2][1:]  # one space after the bar, then two per level of nesting
        modules.add(name.strip())
        if not name.startswith(" "):
            total += cumulative
    return Imports(total, modules)


def run_case(case: Case, tree: Path, folder: Path) -> Imports:
    """Start the process of *case* from *tree*, read its imports until it is ready, stop it."""
    env = {k: v for k, v in os.environ.items() if k not in ("HAUTETENSION_CONFIG", "NOTIFY_SOCKET")}
    env["PYTHONPATH"] = str(tree)
    command = [sys.executable, "-X", "importtime", "-m", "hautetension", *case.words(folder)]
    proc = subprocess.Popen(command, cwd=tree, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if not ready.is_set():
                lines.append(line.rstrip("\n"))
            if case.ready is not None and line.startswith(case.ready):
                ready.set()
        ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if case.ready is None:
        proc.wait(timeout=120)
    elif not ready.wait(timeout=120):
        proc.kill()
        raise RuntimeError(f"{case.name} did not get ready")
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    reader.join(timeout=5)
    if case.ready is not None and not any(line.startswith(case.ready) for line in lines):
        tail = "\n".join(line for line in lines if not line.startswith("import time:"))[-2000:]
        raise RuntimeError(f"{case.name} from {tree} stopped before it was ready:\n{tail}")
    return parse(lines)


def baseline(tree: Path) -> Imports:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], cwd=tree,
                          capture_output=True, text=True, check=True)
    return parse(proc.stderr.splitlines())


def export(revision: str) -> Path:
    """The tree at *revision*, exported to a scratch folder (never a git worktree)."""
    folder = Path(tempfile.mkdtemp(prefix="ht-import-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


@dataclass
class Samples:
    micros: list[int] = field(default_factory=list)
    last: Imports | None = None

    def add(self, imports: Imports) -> None:
        self.micros.append(imports.micros)
        self.last = imports

    @property
    def ms(self) -> float:
        return statistics.median(self.micros) / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each process (median)")
    parser.add_argument("--before", metavar="REV", help="also measure the tree at this git revision")
    parser.add_argument("--only", action="append", help="only these processes (by name; repeatable)")
    args = parser.parse_args()
    trees = {"now": ROOT}
    if args.before:
        trees["before"] = export(args.before)
    cases = [c for c in CASES if not args.only or c.name in args.only]
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 shared cores)")
    results: dict[tuple[str, str], Samples] = {}
    bases: dict[str, Samples] = {label: Samples() for label in trees}
    with tempfile.TemporaryDirectory(prefix="ht-import-") as scratch:
        # A pseudo-terminal for the serial board: nobody answers on it.
        master, slave = pty.openpty()
        # A folder per tree: a database the newer tree migrated would be refused by the older one.
        folders = {label: Path(scratch) / label for label in trees}
        for folder in folders.values():
            folder.mkdir()
            (folder / "tty").symlink_to(os.ttyname(slave))
        for _ in range(args.repeat):
            for label, tree in trees.items():
                bases[label].add(baseline(tree))
                for case in cases:
                    if case.since and label == "before":
                        continue
                    imports = run_case(case, tree, folders[label])
                    results.setdefault((case.name, label), Samples()).add(imports)
        os.close(master)
        os.close(slave)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    print()
    header = f"{'process':<17} {'imports (ms)':>12} {'× bare python':>13} {'modules':>8}  " + " ".join(
        f"{w:>8}" for w in WATCHED)
    if "before" in trees:
        header += f"  {'before (ms)':>11} {'modules':>8} {'now/before':>10}  gpiozero before"
    print(header)
    base_now = bases["now"].ms
    print(f"{'bare python':<17} {base_now:>12.1f} {1.0:>13.2f} {len(bases['now'].last.modules):>8}")
    for case in cases:
        now = results[(case.name, "now")]
        assert now.last is not None
        row = (f"{case.name:<17} {now.ms:>12.1f} {now.ms / base_now:>13.2f} {len(now.last.modules):>8}  "
               + " ".join(f"{'yes' if now.last.has(w) else 'no':>8}" for w in WATCHED))
        before = results.get((case.name, "before"))
        if before is not None and before.last is not None:
            row += (f"  {before.ms:>11.1f} {len(before.last.modules):>8} {now.ms / before.ms:>10.2f}  "
                    f"{'yes' if before.last.has('gpiozero') else 'no'}")
        print(row)
    print()
    print(f"medians of {args.repeat} runs; 'imports' sums the top-level imports' cumulative times "
          "(-X importtime), up to the moment the process is ready")
    return 0


if __name__ == "__main__":
    sys.exit(main())
