"""What ``hautetension scan``, ``selftest`` and ``config check`` do, for staff at a board.

The command modules only parse arguments and read the configuration file;
the work is here so it can be tested without a subprocess.
"""

from __future__ import annotations

import functools
import json
import signal
import sys
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from configuration import ConfigError, ConfigFile, read_all
from games.exc import LayoutError
from games.hautetension.circuit import evaluate
from games.hautetension.layout import DEFAULT_LAYOUT, Layout, load_layout
from games.hautetension.pawn import PawnKind
from hardware.backend import BoardBackend, RawChannels
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
from hardware.exc import HardwareConfigError, HardwareError
from hardware.settings import ChannelRef, HardwareSettings, channel_roles, check_wiring, gpio_roles

if TYPE_CHECKING:
    # Only the sim backend has one; importing it would import gpiozero's mock pins for every command.
    from hardware.virtual.board import VirtualBoard

BAD_CONFIG = 2
FAILED = 1


def layout_for(config: ConfigFile, name: str | None) -> Layout:
    """The layout named on the command line, else ``[board] layout``, else the default."""
    board = config.data.get("board", {})
    configured = board.get("layout") if isinstance(board, dict) else None
    return load_layout(name or (configured if isinstance(configured, str) else None) or DEFAULT_LAYOUT)


# ---------------------------------------------------------------------------- config check


SectionCheck = Callable[[ConfigFile], object]
"""Parses one section of the file, raising a :class:`ConfigError` that lists what is wrong."""


def config_check(config: ConfigFile, *, layout_name: str | None, out: TextIO, err: TextIO,
                 verbose: bool = False, other_sections: Mapping[str, SectionCheck] | None = None,
                 sections: Collection[str] = ()) -> int:
    """Check a config file before any pin is touched: ``[hardware]`` in depth (its wiring against the
    layout), the other sections with their own parsers (*other_sections*, section name → parser),
    and no section but *sections* (if given). Every problem of every section is listed at once."""
    others = dict(other_sections or {})
    errors: list[ConfigError] = []
    unknown = sorted(set(config.data) - set(sections)) if sections else []
    if unknown:
        errors.append(ConfigError([f"unknown section [{n}]" for n in unknown], source=config.describe()))
    settings: HardwareSettings | None = None
    try:
        settings = HardwareSettings.from_config(config)
    except ConfigError as exc:
        errors.append(exc)
    try:
        read_all(config, others)
    except ConfigError as exc:
        errors.extend(exc.parts)
    layout: Layout | None = None
    try:
        layout = layout_for(config, layout_name)
    except LayoutError as exc:
        print(f"hautetension: {exc}", file=err)
    if settings is not None and layout is not None:
        problems = check_wiring(settings, layout)
        if problems:
            errors.append(HardwareConfigError(problems, source=f"{config.describe()} [hardware]"))
    for error in errors:
        print(f"{error.source}: {len(error.problems)} problem(s):", file=err)
        for problem in error.problems:
            print(f"  - {problem}", file=err)
    if errors or settings is None or layout is None:
        return BAD_CONFIG
    mode = (f"shared signal GPIO {settings.shared_signal_gpio} with {len(settings.enable_gpios)} enable lines"
            if settings.shared_signal else f"{settings.multiplexers} signal lines")
    print(f"{config.describe()}: [hardware] is fine for layout {layout.name}: {settings.multiplexers} "
          f"multiplexers × {settings.channels_per_multiplexer} channels, {mode}, "
          f"{len(layout.slots)} slots, {len(settings.references)} reference channel(s), "
          f"{len(settings.lamps)} lamps", file=out)
    if others:
        print("also fine: " + ", ".join(f"[{name}]" for name in others), file=out)
    if verbose:
        for gpio, role in sorted(gpio_roles(settings)):
            print(f"  GPIO {gpio:2d}  {role}", file=out)
        for slot, w in settings.slot_map(layout).items():
            print(f"  {slot:3s} presence {w.presence}, conduction {w.conduction}", file=out)
    return 0


# ---------------------------------------------------------------------------- fault injection


def inject(board: VirtualBoard, spec: str) -> None:
    """Apply one ``--inject`` spec to the virtual board.

    ``stuck:M:C:high|low``, ``dead:M``, ``cable``, ``noisy:SLOT[:P]``, ``blown:LAMP``,
    ``shorted:LAMP``, ``conduction:SLOT`` (a conduction contact closed by itself).
    """
    from hardware.settings import Signal

    parts = spec.split(":")
    kind, args = parts[0], parts[1:]
    try:
        if kind == "stuck" and len(args) == 3 and args[2] in ("high", "low"):
            board.stick(int(args[0]), int(args[1]), args[2] == "high")
        elif kind == "dead" and len(args) == 1:
            board.kill_multiplexer(int(args[0]))
        elif kind == "cable" and not args:
            board.pull_cable()
        elif kind == "noisy" and len(args) in (1, 2):
            board.make_noisy(args[0], *(float(a) for a in args[1:]))
        elif kind == "blown" and len(args) == 1 and args[0] in board.lamp_pins:
            board.blow_lamp(args[0])
        elif kind == "shorted" and len(args) == 1 and args[0] in board.lamp_pins:
            board.short_lamp(args[0])
        elif kind == "conduction" and len(args) == 1:
            board.close_contact(args[0], Signal.CONDUCTION)
        else:
            raise ValueError
    except (ValueError, KeyError) as exc:
        detail = f" ({exc})" if str(exc) else ""
        raise HardwareConfigError(
            f"cannot inject {spec!r}{detail}: use stuck:M:C:high|low, dead:M, cable, noisy:SLOT[:P], "
            "blown:LAMP, shorted:LAMP or conduction:SLOT", source="--inject") from None


# ---------------------------------------------------------------------------- scan


@dataclass
class DemoStep:
    at: float
    action: Callable[[VirtualBoard], None]
    what: str


def _place_attack(board: VirtualBoard, *, slot: str) -> None:
    board.place(slot, PawnKind.ATTACK)


def _lift(board: VirtualBoard, *, slot: str) -> None:
    board.lift(slot)


def demo_script(layout: Layout) -> list[DemoStep]:
    """Close the first straight row pawn by pawn (its lamp lights), hold the button, clear up."""
    row = layout.rows[0]
    steps = []
    for n, slot in enumerate(row.slots):
        steps.append(DemoStep(0.2 + 0.2 * n, functools.partial(_place_attack, slot=slot), f"place {slot}"))
    t = 0.2 + 0.2 * len(row.slots)
    steps.append(DemoStep(t + 0.2, lambda b: b.press_button(), "press the test button"))
    steps.append(DemoStep(t + 0.7, lambda b: b.release_button(), "release the test button"))
    steps.append(DemoStep(t + 0.9, functools.partial(_lift, slot=row.slots[0]), f"lift {row.slots[0]}"))
    return steps


def describe(event: BoardEvent) -> str:
    """One line per event, for a person watching the board."""
    if isinstance(event, PawnPlaced):
        return f"{event.slot} placed ({event.kind.value})"
    if isinstance(event, PawnLifted):
        return f"{event.slot} lifted ({event.kind.value})"
    if isinstance(event, ButtonPressed):
        return "button pressed (lamp test)"
    if isinstance(event, ButtonReleased):
        return f"button released after {event.held_for:.2f} s"
    if isinstance(event, ButtonLongPress):
        return "button long press (self-test)"
    if isinstance(event, Fault):
        return f"FAULT {event.kind.value}: {event.message}"
    if isinstance(event, FaultCleared):
        return f"fault over {event.kind.value}: {event.message}"
    return repr(event)


def event_dict(event: BoardEvent) -> dict[str, Any]:
    data: dict[str, Any] = {"event": type(event).__name__}
    for key, value in vars(event).items():
        data[key] = getattr(value, "value", value)
    return data


@contextmanager
def stop_on_term() -> Iterator[None]:
    """SIGTERM ends the loop like Ctrl-C, so lamps go off on the way out.

    Only while the loop runs, and the caller's handler is put back: the scan also runs inside other
    programs (the tests call the command in their own process). The long-running commands install
    theirs for good (``hautetension/stopping.py``), which this package may not import."""
    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_scan(backend: BoardBackend, layout: Layout, *, out: TextIO, scans: int | None = None,
             seconds: float | None = None, lamps: bool = True, demo: bool = False,
             as_json: bool = False, raw: bool = False, clock: Any = None) -> int:
    """Scan until stopped, printing slot changes and faults; drive the lamps from the circuit."""
    import time

    now = clock.now if clock is not None else time.monotonic
    sleep = clock.wait if clock is not None else time.sleep
    virtual = backend.virtual_board
    script = demo_script(layout) if demo and virtual is not None else []
    health = backend.health()
    _emit(out, as_json, {"event": "start", **{k: health.get(k) for k in
                                              ("backend", "gpio_ops_per_scan", "bank_read", "pin_factory")},
                         "scan_period": backend.scan_period},
          f"scanning the {health.get('backend')} board every {backend.scan_period * 1000:g} ms, "
          f"{health.get('gpio_ops_per_scan', '?')} GPIO operations per scan (Ctrl-C stops)")
    channels = backend.raw_channels if raw else None  # None where the Pi reads no multiplexer (serial)
    names = channel_roles(channels.settings, layout) if channels is not None else {}
    previous: int | None = None
    started = now()
    count = 0
    attack: set[str] = set()
    shown: frozenset[str] = frozenset()
    with stop_on_term():
        try:
            while (scans is None or count < scans) and (seconds is None or now() - started < seconds):
                tick = now()
                while script and tick - started >= script[0].at:
                    step = script.pop(0)
                    step.action(virtual)  # type: ignore[arg-type]
                    _emit(out, as_json, {"event": "demo", "action": step.what}, f"[demo] {step.what}")
                events = backend.poll()
                if channels is not None and names:
                    previous = _print_raw(out, as_json, names, channels, previous, now() - started)
                for event in events:
                    _emit(out, as_json, event_dict(event), f"{event.at - started:8.3f}  {describe(event)}")
                    if isinstance(event, PawnPlaced) and event.kind is PawnKind.ATTACK:
                        attack.add(event.slot)
                    elif isinstance(event, PawnLifted):
                        attack.discard(event.slot)
                if lamps:
                    lit = evaluate(layout, attack).lit
                    if lit != shown:
                        _emit(out, as_json, {"event": "lamps", "lit": sorted(lit)},
                              f"{now() - started:8.3f}  lamps lit: {', '.join(sorted(lit)) or 'none'}")
                        shown = lit
                    backend.set_lamps(lit)
                count += 1
                sleep(max(0.0, backend.scan_period - (now() - tick)))
        except KeyboardInterrupt:
            pass
        finally:
            backend.lamps_safe()
            health = backend.health()
            backend.close()
    faults = health.get("faults", [])
    _emit(out, as_json, {"event": "stop", "scans": count, "faults": faults},
          f"stopped after {count} scans; {len(faults)} active fault(s); lamps off")
    return 0


def _print_raw(out: TextIO, as_json: bool, names: Mapping[ChannelRef, str], channels: RawChannels,
               previous: int | None, elapsed: float) -> int:
    """Every wired channel whose level changed since the last scan, undebounced: the scanner's snapshot
    says which (its bits that differ from the last one), so an idle board costs one comparison."""
    snapshot = channels.snapshot
    changed = 0 if previous is None else snapshot ^ previous  # the first scan is the baseline, not a change
    if changed:
        for ref in sorted(names):
            bit = channels.position(ref)
            if changed >> bit & 1:
                level = "high" if snapshot >> bit & 1 else "low"
                _emit(out, as_json, {"event": "raw", "channel": names[ref], "level": level},
                      f"{elapsed:8.3f}  raw {names[ref]}: {level}")
    return snapshot


def _emit(out: TextIO, as_json: bool, data: dict[str, Any], text: str) -> None:
    print(json.dumps(data, default=str) if as_json else text, file=out, flush=True)


# ---------------------------------------------------------------------------- selftest


def run_selftest_command(backend: BoardBackend, *, out: TextIO, warmup_scans: int = 10,
                         as_json: bool = False) -> int:
    """Let the readings settle, run the self-test, print the report; non-zero if it failed."""
    import time

    from hardware.selftest import run_selftest

    try:
        for _ in range(warmup_scans):
            backend.poll()
            time.sleep(backend.scan_period)
        report = run_selftest(backend)
    finally:
        backend.lamps_safe()
        backend.close()
    if as_json:
        print(json.dumps(report.to_dict()), file=out)
    else:
        print("\n".join(report.lines()), file=out)
    return 0 if report.is_ok() else FAILED


def open_for_command(
    config: ConfigFile, args: Any, err: TextIO | None = None
) -> tuple[BoardBackend, Layout] | int:
    """Open the backend the command line asks for; an exit status if that fails."""
    from hardware.backends import open_backend

    err = err or sys.stderr
    try:
        layout = layout_for(config, args.layout)
        board = config.data.get("board", {})
        kind = args.backend or (board.get("backend") if isinstance(board, dict) else None) or "sim"
        backend = open_backend(str(kind), config, layout=layout, port=getattr(args, "port", None))
        virtual = backend.virtual_board
        injections = getattr(args, "inject", None) or []
        if injections and virtual is None:
            backend.close()
            print("hautetension: --inject works only on the simulated board (--backend sim)", file=err)
            return BAD_CONFIG
        for spec in injections:
            try:
                inject(virtual, spec)  # type: ignore[arg-type]
            except HardwareError:
                backend.close()
                raise
        return backend, layout
    except (LayoutError, HardwareError) as exc:
        print(f"hautetension: {exc}", file=err)
        return BAD_CONFIG
