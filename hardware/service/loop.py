"""The board service's loop: :class:`BoardService` (see the package's docstring for its steps)."""

from __future__ import annotations

import contextlib
import os
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from games.exc import GameError
from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.backend import BoardBackend
from hardware.events import (
    BoardEvent,
    ButtonLongPress,
    ButtonPressed,
    ButtonReleased,
    Fault,
    FaultCleared,
    PawnLifted,
    PawnPlaced,
)
from hardware.exc import SimBoardFileError
from hardware.monitor import BoardMonitor
from hardware.service.notify import SystemdNotifier
from hardware.service.pregame import CheckRefused
from hardware.service.recovery import Recovery, restore
from hardware.service.referee import LampState, Referee
from hardware.service.settings import BoardSettings
from hardware.service.sim import SimBoardFile
from hardware.service.writer import JournalWriteError, JournalWriter
from hardware.slot_health import SlotHealth
from hardware.wiring.session import WiringSession, wiring_command
from store import journal_payloads as payloads
from store.commands import Command, CommandKind, Commands
from store.file_watch import FileWatch, open_watch
from store.journal import Journal, JournalEntry, JournalKind
from store.slot_health import SlotHealthStore
from store.wiring import WiringProgress

if TYPE_CHECKING:
    from hardware.virtual.board import VirtualBoard
    from store.backup import RollingBackups

COMMANDS_AT_LEAST_EVERY_S = 1.0
"""Where the database's writes can be watched, the commands table is read when someone wrote to it,
and at least this often (should a notice be lost)."""

COMMANDS_AFTER_WRITE_S = 0.25
"""...and for this long after a write was seen: the kernel tells of the write to the WAL before the
commit is visible to readers (the writer syncs the file first), so the first read may come too soon."""

STALE_COMMAND_S = 10.0
"""A command found at start-up that was queued longer ago than this is not carried out:
whoever sent it has stopped waiting (the panel after 3 s, the CLI after 5 s)."""


CommandOutcome = tuple[dict[str, Any], list[JournalEntry]]
"""What carrying out a command gives: its result (for whoever sent it) and the journal entries."""


class CommandRefused(Exception):
    """A command the service cannot carry out now; the message says why."""


class LatencyStats:
    """The last few hundred latencies, in seconds, for the health report and the benchmark."""

    def __init__(self, size: int = 512) -> None:
        self.samples: deque[float] = deque(maxlen=size)
        self.count = 0

    def add(self, seconds: float) -> None:
        self.samples.append(seconds)
        self.count += 1

    def summary(self) -> dict[str, float | int | None]:
        if not self.samples:
            return {"count": self.count, "median_ms": None, "p99_ms": None}
        ordered = sorted(self.samples)
        p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
        return {
            "count": self.count,
            "median_ms": round(statistics.median(ordered) * 1e3, 3),
            "p99_ms": round(p99 * 1e3, 3),
        }


class BoardService:
    """The long-running loop that keeps the physical game honest."""

    def __init__(
        self,
        backend: BoardBackend,
        layout: Layout,
        *,
        journal: Journal | None,
        commands: Commands | None = None,
        settings: BoardSettings | None = None,
        notifier: SystemdNotifier | None = None,
        selftest: Callable[[BoardBackend], Mapping[str, Any]] | None = None,
        sim_file: SimBoardFile | None = None,
        backups: RollingBackups | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.backend = backend
        self.layout = layout
        self.journal = journal
        self.commands = commands
        self.settings = settings or BoardSettings()
        self.notifier = notifier or SystemdNotifier({})
        self.selftest = selftest or _default_selftest
        self.sim_file = sim_file
        self.backups = backups
        self.clock = clock
        self.sleep = sleep
        self.referee = Referee(layout, min_turn=self.settings.min_turn,
                               sensed_lamps=frozenset(backend.lamp_currents()))
        self.lamps_shown: LampState | None = None
        self.lamp_latency = LatencyStats()
        self.journal_latency = LatencyStats()
        self.loop_periods: deque[float] = deque(maxlen=256)
        self.started_at = time.time()
        self.recovery: Recovery | None = None
        self.steps = 0
        self.writer = (JournalWriter(journal, commands, clock=clock, on_written=self._written)
                       if journal is not None else None)
        self._poll_failed: str | None = None
        self._last_step: float | None = None
        self._next_commands = 0.0
        self._commands_read_at = float("-inf")
        self._commands_until = float("-inf")
        self._watch: FileWatch | None = None
        if commands is not None:
            path = _database_file(commands.conn)
            self._watch = open_watch(path) if path is not None else None
        self._next_health = 0.0
        self._status = ""
        self.wiring: WiringSession | None = None
        """The wiring wizard, while it runs (service mode: never during a game)."""
        monitor = getattr(backend, "monitor", None)  # the raw changes behind a move (gpio, sim backends)
        self.slot_health = SlotHealth(
            sorted(layout.slot_positions),
            store=SlotHealthStore(journal.conn) if journal is not None else None,
            monitor=monitor if isinstance(monitor, BoardMonitor) else None)
        """Slots, lamps and scan watched across games (hardware/slot_health.py)."""

    # -- start-up -------------------------------------------------------------

    def start(self) -> Recovery | None:
        """Read the board, replay the journal, resume the game (or say why not); announce READY."""
        if self.sim_file is not None:
            self._restore_virtual_board()
        entries = self._settle()
        snapshot = dict(self.backend.snapshot())
        self.referee.scanner_faulted = self.backend.is_faulted()
        if self.journal is not None:
            recovery, replayed = restore(self.referee, self.journal, snapshot, now_monotonic=self.clock())
            self.recovery = recovery
            entries = (
                [
                    JournalEntry(
                        JournalKind.SERVICE_START,
                        {
                            "pid": os.getpid(),
                            "backend": self.backend.name,
                            "resumed": recovery.resumed,
                            "game": self.referee.current.id if self.referee.current else None,
                            "changed_while_down": list(recovery.changed),
                            "message": recovery.message,
                        },
                        {"board": {s: k.value for s, k in sorted(snapshot.items())}},
                    )
                ]
                + entries
                + replayed
            )
        else:
            self.referee.board = snapshot
        self._commit(entries, force_state=True)
        self._drop_stale_commands()
        self.notifier.ready(self._status_line())
        return self.recovery

    def _drop_stale_commands(self, why: str = "while the board service was not running") -> None:
        if self.commands is None or self.writer is None:
            return
        now = time.time()
        for command in self.commands.pending(limit=1000):
            age = now - command.at
            if age > STALE_COMMAND_S:
                reason = f"not carried out: queued {age:.0f} s ago {why}; check the board and send it again"
                self.writer.answer(command.id, error=reason, payload=_redacted(command))

    def _restore_virtual_board(self) -> None:
        assert self.sim_file is not None
        board = self.backend.virtual_board
        if board is None:
            return
        pawns = self.sim_file.load()
        unknown = sorted(slot for slot in pawns if slot not in self.layout.slot_positions)
        if unknown:
            raise SimBoardFileError(
                f"{self.sim_file.path}: pawns on slots the layout {self.layout.name} does not have"
                f" ({', '.join(unknown)}): fix the file (or use the layout it was made with), or delete it"
                " to start with an empty virtual board"
            )
        for slot, kind in pawns.items():
            board.place(slot, kind)

    def _settle(self) -> list[JournalEntry]:
        """Scan until the debounced readings have settled; keep faults and button, drop pawn events
        (the snapshot taken afterwards is what counts)."""
        entries: list[JournalEntry] = []
        deadline = self.clock() + self.settings.settle
        while True:
            for event in self._poll():
                if not isinstance(event, PawnPlaced | PawnLifted):
                    entries += self._handle(event)
            if self.clock() >= deadline:
                return entries
            self.sleep(self.backend.scan_period)

    # -- the loop ---------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Loop until *stop* is set; lamps end off."""
        period = self.backend.scan_period
        next_at = self.clock()
        try:
            while not stop.is_set():
                self.step()
                next_at += period
                delay = next_at - self.clock()
                if delay > 0:
                    # A plain sleep, not stop.wait(delay): shorter than a period, so a stop is seen at
                    # most one period late, and a fraction of the CPU of waiting on an Event.
                    time.sleep(delay)
                else:
                    next_at = self.clock()  # overran: do not try to catch up with a burst
        finally:
            self.notifier.stopping("board service stopping")
            self.backend.lamps_safe()
            if self.writer is not None:
                with contextlib.suppress(JournalWriteError):  # already on its way out: say it once
                    self._commit([JournalEntry(JournalKind.SERVICE_STOP, {"pid": os.getpid()})])
                    if self.writer.is_blocked:
                        self.writer.flush()  # a last try: whatever is still waiting now is lost

    def step(self) -> None:
        """One loop turn (see the module docstring)."""
        now = self.clock()
        if self._last_step is not None:
            self.loop_periods.append(now - self._last_step)
            self.slot_health.turned(now - self._last_step, self.backend.scan_period)
        self._last_step = now
        self.steps += 1
        events = self._poll()
        if self.wiring is not None:
            # The wizard reads the raw channels; slot events from the map being replaced mean nothing.
            events = [e for e in events if not isinstance(e, PawnPlaced | PawnLifted)]
            self.wiring.scanned(now)
        if events:
            self.slot_health.saw(events)
        entries: list[JournalEntry] = []
        timed: list[float] = []
        for event in events:
            entries += self._handle(event)
            if isinstance(event, PawnPlaced | PawnLifted):
                timed.append(event.at)
        entries += self._check_scanner()
        touched = bool(events or entries)
        if self.referee.button_held and self.referee.checking is not None:
            self.referee.lamp_currents(self.backend.lamp_currents())  # the lamps lit for the check
            touched = True
        if touched:  # the referee's state (and so the lamps) moves only with what it was given
            self._commit(entries, timed=timed)
        writer = self.writer
        if writer is not None and writer.is_blocked:
            touched = True
            writer.retry()  # the database refused a write: no command until what waits is written
        if writer is not None and (ended := writer.take_ended()) is not None:
            fault, until = ended
            self._drop_stale_commands(f"while the database could not be written ({fault.describe(until)})")
        if self.commands is not None and now >= self._next_commands and not (writer and writer.is_blocked):
            self._next_commands = now + self.settings.command_interval
            if self._commands_may_wait(now):
                touched |= self._run_commands()
        if writer is not None and now >= self._next_health:
            self._next_health = now + self.settings.health_interval
            writer.health(self.health())
            touched = True
        if touched:
            self._show_status()
        self.notifier.watchdog()

    def _poll(self) -> list[BoardEvent]:
        try:
            events = self.backend.poll()
        except Exception as exc:  # a backend that cannot scan is a faulted scanner, not a dead service
            self._poll_failed = f"{type(exc).__name__}: {exc}"
            return []
        self._poll_failed = None
        return events

    def _check_scanner(self) -> list[JournalEntry]:
        faulted = self._poll_failed is not None or self.backend.is_faulted()
        if faulted == self.referee.scanner_faulted:
            return []
        self.referee.scanner_faulted = faulted
        entries: list[JournalEntry] = [
            JournalEntry(
                JournalKind.SCANNER,
                {
                    "faulted": faulted,
                    "message": self._poll_failed or ("scanner faulted" if faulted else "scanner ok"),
                },
                None,
            )
        ]
        if not faulted:
            entries += self._resync()
        return entries

    def _resync(self) -> list[JournalEntry]:
        """After a scanner fault, bring the referee's board in line with what the scanner now reads."""
        try:
            snapshot = dict(self.backend.snapshot())
        except Exception:
            return []
        entries: list[JournalEntry] = []
        for slot in sorted(set(snapshot) | set(self.referee.board)):
            before, after = self.referee.board.get(slot), snapshot.get(slot)
            if before is after:
                continue
            if before is not None:
                entries += self.referee.pawn_lifted(slot)
            if after is not None:
                entries += self.referee.pawn_placed(slot, after, self.clock())
        return entries

    def _handle(self, event: BoardEvent) -> list[JournalEntry]:
        referee = self.referee
        if isinstance(event, PawnPlaced):
            return referee.pawn_placed(event.slot, event.kind, event.at)
        if isinstance(event, PawnLifted):
            return referee.pawn_lifted(event.slot)
        if isinstance(event, ButtonPressed):
            return referee.button(True, event.at)
        if isinstance(event, ButtonReleased):
            return referee.button(False, event.at)
        if isinstance(event, ButtonLongPress):
            selftest = "refused: a game is running" if referee.running is not None else "run"
            return [JournalEntry(JournalKind.BUTTON_LONG_PRESS, {"selftest": selftest})]
        if isinstance(event, Fault):
            return referee.fault(_fault_key(event), _fault_public(event))
        if isinstance(event, FaultCleared):
            return referee.fault_cleared(_fault_key(event), _fault_public(event))
        return []

    # -- lamps and journal --------------------------------------------------------

    def _commit(
        self,
        entries: list[JournalEntry],
        *,
        timed: list[float] = (),  # type: ignore[assignment]
        force_state: bool = False,
    ) -> bool:
        """Drive the lamps, then write *entries* and the board state in one transaction.

        Returns whether they are written (False: the database refused them, and they wait in memory)."""
        self._guard_selftest()
        lamps = self.referee.lamps()
        if lamps != self.lamps_shown:
            if lamps.safe:
                self.backend.lamps_safe()
            else:
                self.backend.set_lamps(lamps.lit)
            changed_lit = self.lamps_shown is None or lamps.lit != self.lamps_shown.lit
            self.lamps_shown = lamps
            entries = entries + [JournalEntry(JournalKind.LAMPS, lamps.to_public())]
            if changed_lit:
                after = self.clock()
                for at in timed:
                    self.lamp_latency.add(after - at)
        if self.writer is None or (not entries and not force_state):
            return True  # nothing to write
        game = self.referee.current
        game_id = game.id if game is not None and (game.is_running or _of_finished_game(entries)) else None
        if any(entry.kind is JournalKind.GAME_START for entry in entries) and game is not None:
            game_id = game.id
        written = self.writer.write(
            entries,
            game_id=game_id,
            state_public=self._public_state(),
            state_private=self.referee.private_state(),
        )
        if written:
            after = self.clock()
            for at in timed:
                self.journal_latency.add(after - at)
        self._show_status()
        return written

    def _public_state(self) -> payloads.BoardStatePublic:
        public = self.referee.public_state(self.backend.name)
        board = self.backend.virtual_board
        if self.wiring is not None and board is not None:
            # The wizard reads raw channels, so the referee's board stands still while it runs; the simulated
            # board knows where its pawns are: its page shows them (presence only), to lift what is there.
            public["pawns"] = {slot: {"owner": None} for slot in sorted(board.pawns)}
        return public

    def _written(self, entries: Sequence[JournalEntry]) -> None:
        """Entries are in the journal: a game that ended is copied to the rolling backups, and folded into
        the slot health."""
        for entry in entries:
            if entry.kind is JournalKind.GAME_END:
                moves = entry.public.get("moves")
                self.slot_health.game_ended(moves if isinstance(moves, int) else 0)
                if self.backups is not None:
                    self.backups.take("game", str(entry.public.get("game", "")))

    @property
    def journal_writes(self) -> int:
        """Journal transactions written so far."""
        return self.writer.writes if self.writer is not None else 0

    def _show_status(self) -> None:
        status = self._status_line()
        if status != self._status:
            self._status = status
            self.notifier.status(status)

    def _guard_selftest(self) -> None:
        # The self-test reads raw slot readings: a long press must not run it during a game
        # (its report is in the health the panel shows). Service mode is outside games.
        self.backend.selftest_on_long_press = self.referee.running is None

    def _status_line(self) -> str:
        blocked = self.writer.status() if self.writer is not None else None
        return blocked or self._game_status()

    def _game_status(self) -> str:
        referee = self.referee
        if referee.scanner_faulted:
            return "scanner faulted: lamps off"
        game = referee.current
        if game is None:
            return f"{self.backend.name} board ready, no game"
        if not game.is_running:
            return f"game {game.id} {game.status.value}"
        if referee.anomalies:
            return f"game {game.id} paused: {len(referee.anomalies)} anomaly(ies)"
        to_move = game.game.to_move
        return f"game {game.id}: {game.game.seats[to_move].name if to_move is not None else '-'} to move"

    # -- commands -----------------------------------------------------------------

    def _commands_may_wait(self, now: float) -> bool:
        """Whether a command may have come since the last look: the database was written (by the panel,
        or by this service), or it has not been read for a while; always, where writes cannot be watched."""
        watch = self._watch
        if watch is None:
            return True
        if watch.changed():
            self._commands_until = now + COMMANDS_AFTER_WRITE_S
        if now < self._commands_until or now - self._commands_read_at >= COMMANDS_AT_LEAST_EVERY_S:
            self._commands_read_at = now
            return True
        return False

    def _run_commands(self) -> bool:
        """Carry out the pending commands; whether there were any."""
        assert self.commands is not None and self.writer is not None
        pending = self.commands.pending()
        for command in pending:
            redacted = _redacted(command)
            try:
                result, entries = self._execute(command)
            except (CommandRefused, GameError, ValueError, KeyError, TypeError) as exc:
                reason = str(exc) if not isinstance(exc, KeyError) else f"missing {exc}"
                self._commit(
                    [
                        JournalEntry(
                            JournalKind.COMMAND_REFUSED,
                            {"command": command.id, "kind": command.kind.value, "reason": reason},
                            None,
                        )
                    ]
                )
                self.writer.answer(command.id, error=reason, payload=redacted)
            else:
                # Durable before acknowledged: the answer is written after the entries, or waits with them.
                # During the wizard a simulated pawn moves no entry, yet the state shows it (_public_state).
                shown = command.kind is CommandKind.WIRING or (
                    self.wiring is not None and command.kind is CommandKind.SIM_SLOT
                )
                self._commit(entries, force_state=shown)
                self.writer.answer(command.id, result=result, payload=redacted)
            if self.writer.is_blocked:
                break  # the database refuses writes: the next commands wait until it takes them
        return bool(pending)

    def _execute(self, command: Command) -> CommandOutcome:
        handler = _COMMANDS.get(command.kind)
        if handler is None:
            raise CommandRefused(f"unknown command {command.kind.value}")
        return handler(self, command.payload)

    def _new_game(self, payload: Mapping[str, Any]) -> CommandOutcome:
        assert self.journal is not None
        if self.wiring is not None:
            raise CommandRefused("the wiring wizard is running (the board is read without its map):"
                                 " finish or stop it first")
        game_id = self.journal.max_game_id() + 1
        entries = self.referee.new_game(game_id, payload)
        current = self.referee.current
        return {"game": game_id, "first": current.game.first if current else None}, entries

    def _abandon_game(self, payload: Mapping[str, Any]) -> CommandOutcome:
        running = self.referee.running
        entries = self.referee.abandon()
        return {"game": running.id if running else None}, entries

    def _pregame_check(self, payload: Mapping[str, Any]) -> CommandOutcome:
        action = payload.get("action")
        running = self.referee.running
        try:
            if action == "skip":
                entries = self.referee.pregame_skip()
            elif action == "confirm":
                not_lit = payload.get("not_lit") or []
                if not isinstance(not_lit, list) or not all(isinstance(lamp, str) for lamp in not_lit):
                    raise CommandRefused("not_lit must be a list of lamp names")
                entries = self.referee.pregame_confirm(not_lit)
            else:
                raise CommandRefused('action must be "confirm" or "skip"')
        except CheckRefused as exc:
            raise CommandRefused(str(exc)) from None
        check = running.check if running is not None else None
        public = check.to_public() if check else None
        return {"game": running.id if running else None, "check": public}, entries
    def _confirm_result(self, payload: Mapping[str, Any]) -> CommandOutcome:
        seats = payload.get("seats")
        seats = seats if isinstance(seats, list) else []
        entries = self.referee.confirm_result(seats, by=str(payload.get("by")))
        game = self.referee.current
        confirmed = sorted(game.confirmed) if game else []
        return {"game": game.id if game else None, "confirmed": confirmed}, entries

    def _lamp_test(self, payload: Mapping[str, Any]) -> CommandOutcome:
        on = bool(payload.get("on", True))
        return {"on": on}, self.referee.set_lamp_test(on)

    def _refuse_during_game(self, what: str) -> None:
        if self.referee.running is not None:
            raise CommandRefused(
                f"{what} reads raw slot readings, which a running game keeps secret:"
                " abandon or finish the game first"
            )

    def _self_test(self, payload: Mapping[str, Any]) -> CommandOutcome:
        self._refuse_during_game("the self-test")
        report = dict(self.selftest(self.backend))
        summary: payloads.SelfTest = {"ok": report.get("ok"), "checks": len(report.get("checks", []))}
        return report, [JournalEntry(JournalKind.SELF_TEST, summary)]

    def _wiring(self, payload: Mapping[str, Any]) -> CommandOutcome:
        if payload.get("action") != "stop":
            self._refuse_during_game("the wiring wizard")
        store = WiringProgress(self.journal.conn) if self.journal is not None else None
        running = self.wiring
        self.wiring, result = wiring_command(running, payload, backend=self.backend, layout=self.layout,
                                             store=store, now=self.clock())
        # Stopped: the referee catches up with the pawns the board holds now (under its map).
        return result, self._resync() if running is not None and self.wiring is None else []

    def _sim_button(self, payload: Mapping[str, Any]) -> CommandOutcome:
        board = self._virtual_board()
        if payload.get("held"):
            board.press_button()
        else:
            board.release_button()
        return {"held": bool(payload.get("held"))}, []

    def _virtual_board(self) -> VirtualBoard:
        board = self.backend.virtual_board
        if board is None:
            raise CommandRefused(
                f"the {self.backend.name} board is a real board: only the simulated board"
                " takes pawns from the panel"
            )
        return board

    def _sim_slot(self, payload: Mapping[str, Any]) -> CommandOutcome:
        board = self._virtual_board()
        slot = self.layout.check_slot(str(payload["slot"]))
        pawn = payload.get("pawn")
        pawns: dict[str, PawnKind] = dict(board.pawns)
        if pawn is None:
            if slot not in pawns:
                raise CommandRefused(f"there is no pawn on {slot} to lift")
            del pawns[slot]
        else:
            if slot in pawns:
                raise CommandRefused(f"slot {slot} already holds a pawn")
            pawns[slot] = PawnKind(pawn)
        # The file first: the pawns must be found again if the service dies right after.
        if self.sim_file is not None:
            self.sim_file.save(pawns)
        if pawn is None:
            board.lift(slot)
        else:
            board.place(slot, pawns[slot])
        # The result carries no kind: the panel showing it is the one other players look at.
        return {"slot": slot, "occupied": pawn is not None}, []

    # -- health -------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """The backend's health report plus the service's own figures (the heartbeat)."""
        try:
            report = dict(self.backend.health())
        except Exception as exc:
            report = {"backend": self.backend.name, "error": f"{type(exc).__name__}: {exc}"}
        if self.referee.running is not None and "flicker" in report:
            # Contact bounce differs between pawn kinds: no per-slot noise counts during a game.
            report["flicker"] = "hidden during a game"
        periods = list(self.loop_periods)
        game = self.referee.current
        report["service"] = {
            "pid": os.getpid(),
            "started_at": round(self.started_at, 3),
            "uptime_s": round(time.time() - self.started_at, 1),
            "scan_period_ms": round(self.backend.scan_period * 1e3, 3),
            "loop_period_ms": {
                "mean": round(statistics.fmean(periods) * 1e3, 3) if periods else None,
                "max": round(max(periods) * 1e3, 3) if periods else None,
            },
            "event_to_lamp": self.lamp_latency.summary(),
            "event_to_journal": self.journal_latency.summary(),
            "game": game.id if game is not None else None,
            "game_status": game.status.value if game is not None else None,
            "scanner_faulted": self.referee.scanner_faulted,
            "poll_error": self._poll_failed,
            "watchdog_s": self.notifier.watchdog_interval,
            "backup_error": self.backups.last_error if self.backups is not None else None,
            "wiring": self.wiring is not None,
            "status": self._status_line(),
            "loop_turns": self.slot_health.turns,
            "scan_overruns": self.slot_health.overruns,
        }
        return report

    def close(self) -> None:
        """Release the backend (its lamps in their safe state) and the systemd socket."""
        wiring, self.wiring = self.wiring, None
        if wiring is not None:
            wiring.close()  # its progress stays, for the next start
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.close()
        self.backend.close()
        self.notifier.close()

    def __enter__(self) -> BoardService:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

_COMMANDS: dict[CommandKind, Callable[[BoardService, Mapping[str, Any]], CommandOutcome]] = {
    CommandKind.NEW_GAME: BoardService._new_game,
    CommandKind.ABANDON_GAME: BoardService._abandon_game,
    CommandKind.CONFIRM_RESULT: BoardService._confirm_result,
    CommandKind.LAMP_TEST: BoardService._lamp_test,
    CommandKind.SELF_TEST: BoardService._self_test,
    CommandKind.SIM_SLOT: BoardService._sim_slot,
    CommandKind.SIM_BUTTON: BoardService._sim_button,
    CommandKind.PREGAME_CHECK: BoardService._pregame_check,
    CommandKind.WIRING: BoardService._wiring,
}
"""Each command the service carries out, and how (the tournament engine keeps its events the same way)."""


def _database_file(conn: Any) -> str | None:
    """The file of *conn*'s main database (None: in memory, or not SQLite)."""
    try:
        rows = conn.execute("PRAGMA database_list").fetchall()
    except Exception:
        return None
    files = [str(row[2]) for row in rows if row[1] == "main" and row[2]]
    return files[0] if files else None


def _redacted(command: Command) -> dict[str, Any] | None:
    """A SIM_SLOT payload without the pawn's kind (the commands table is readable by the panel)."""
    if command.kind is not CommandKind.SIM_SLOT:
        return None
    pawn = command.payload.get("pawn")
    return {"slot": command.payload.get("slot"), "pawn": None if pawn is None else "hidden"}


def _of_finished_game(entries: list[JournalEntry]) -> bool:
    """Entries that belong to the game just ended: its end, its players' confirmation of the result."""
    return any(entry.kind in (JournalKind.GAME_END, JournalKind.RESULT_CONFIRMED) for entry in entries)


def _fault_key(event: Fault | FaultCleared) -> str:
    return f"{event.kind.value}:{event.slot or ''}:{'' if event.multiplexer is None else event.multiplexer}"


def _fault_public(event: Fault | FaultCleared) -> payloads.Fault:
    public: payloads.Fault = {
        "kind": event.kind.value,
        "message": event.message,
        "slot": event.slot,
        "multiplexer": event.multiplexer,
        "at": round(time.time(), 3),
    }
    if isinstance(event, Fault):
        public["channel"] = event.channel
        public["scanner_faulted"] = event.scanner_faulted
    return public


def _default_selftest(backend: BoardBackend) -> Mapping[str, Any]:
    from hardware.selftest import run_selftest

    report = run_selftest(backend)
    return {**report.to_dict(), "lines": report.lines()}
