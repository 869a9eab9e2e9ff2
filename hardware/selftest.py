"""The health self-test: what staff run before a session, or with a long press.

On a GPIO board (real or virtual) it checks, in order:

1. the reference channels read their expected levels;
2. every wired channel reads the same on two scans in a row (stability);
3. no multiplexer reads one uniform impossible pattern (dead) and no slot
   shows conduction without presence;
4. where feedback inputs exist, each lamp draws current when on and none when
   off (every lamp off, then each lamp alone);
5. no fault is active (flicker and the like).

A missing optional part (no reference channels, no feedback inputs) is a
warning, not a failure. On other backends (the serial link) the report is
built from the backend's own ``selftest()`` if it has one, else from its
``health()`` faults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hardware.events import Fault, FaultKind
from hardware.monitor import Reading
from hardware.settings import channel_roles


@dataclass(frozen=True)
class Check:
    """One check's verdict; *message* is the English sentence (the command line's), *code* and *values*
    say it for a page to put in its own language (``webpanel/static/staff.js``, ``selfTestDetail``)."""

    name: str
    ok: bool
    message: str
    warning: bool = False
    code: str = ""
    values: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        mark = "FAIL" if not self.ok else ("WARN" if self.warning else "ok  ")
        return f"{mark} {self.name}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "warning": self.warning, "message": self.message,
                "code": self.code, "values": dict(self.values)}


@dataclass
class SelftestReport:
    backend: str
    checks: list[Check] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    """The failures as fault events (the board service journals them)."""

    def is_ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def lines(self) -> list[str]:
        verdict = "PASSED" if self.is_ok() else "FAILED"
        failed = sum(not c.ok for c in self.checks)
        head = f"self-test {verdict} on the {self.backend} board ({len(self.checks)} checks, {failed} failed)"
        return [head] + [c.line() for c in self.checks]

    def to_dict(self) -> dict[str, Any]:
        return {"backend": self.backend, "ok": self.is_ok(), "checks": [c.to_dict() for c in self.checks]}


def run_selftest(backend: Any) -> SelftestReport:
    """Run the self-test on *backend* (a :class:`~hardware.backends.gpio.GpioBoard` or any backend)."""
    if hasattr(backend, "scanner") and hasattr(backend, "monitor"):
        return _gpio_selftest(backend)
    if callable(getattr(backend, "selftest", None)):
        result = backend.selftest()
        if isinstance(result, SelftestReport):
            return result
    return _health_selftest(backend)


def _gpio_selftest(board: Any) -> SelftestReport:
    report = SelftestReport(backend=board.name)
    now = board.clock.now()
    first = list(board.scanner.scan())
    second = list(board.scanner.scan())
    report.checks.append(_references(board, second, report, now))
    report.checks.append(_stability(board, first, second))
    report.checks.append(_multiplexers(board, second))
    report.checks.append(_contacts(board, second))
    report.checks += _lamps(board, report, now)
    active = list(board.monitor.active_faults.values())
    report.checks.append(_faults([f.message for f in active]))
    return report


def _faults(messages: list[str]) -> Check:
    if not messages:
        return Check("faults", True, "none active", code="faults-none")
    said = "; ".join(messages)
    return Check("faults", False, said, code="faults-active", values={"faults": said})


def _references(board: Any, levels: list[bool], report: SelftestReport, now: float) -> Check:
    references = board.settings.references
    if not references:
        return Check("references", True, "no reference channels configured: a dead multiplexer "
                     "holding few pawns cannot be told from an empty one", warning=True,
                     code="references-none")
    wrong = []
    wrong_refs = []
    for r in references:
        level = levels[board.scanner.index(r.ref)]
        if level != r.level:
            wrong.append(f"{r.ref} reads {'high' if level else 'low'}, "
                         f"expected {'high' if r.level else 'low'}")
            wrong_refs.append(str(r.ref))
            report.faults.append(Fault(FaultKind.REFERENCE_MISMATCH, f"self-test: {wrong[-1]}", now,
                                       multiplexer=r.multiplexer, channel=r.channel))
    if wrong:
        return Check("references", False, "; ".join(wrong), code="references-wrong",
                     values={"channels": ", ".join(wrong_refs)})
    return Check("references", True, f"{len(references)} reference channel(s) read their expected level",
                 code="references-ok", values={"n": len(references)})


def _channel_names(board: Any) -> dict[int, str]:
    """Level index → what is wired there."""
    roles = channel_roles(board.settings, board.layout)
    return {board.scanner.index(ref): role for ref, role in roles.items()}


def _stability(board: Any, first: list[bool], second: list[bool]) -> Check:
    names = _channel_names(board)
    unstable = [names[i] for i in sorted(names) if first[i] != second[i]]
    # A slot whose two reads agree but differ from its settled reading moved or bounces:
    # nobody places pawns while holding the button, so that is instability too.
    active = board.settings.active_high
    for track in board.monitor.slots.values():
        if track.reading.stable == Reading.INVALID:
            continue
        for levels in (first, second):
            raw = (levels[track.presence] == active) | (levels[track.conduction] == active) << 1
            if raw != track.reading.stable and first[track.presence] == second[track.presence] \
                    and first[track.conduction] == second[track.conduction]:
                unstable.append(f"{track.slot} (reads {Reading(raw).name.lower()}, "
                                f"settled {Reading(track.reading.stable).name.lower()})")
                break
    if unstable:
        listed = ", ".join(unstable[:12]) + (" …" if len(unstable) > 12 else "")
        return Check("stability", False, f"{len(unstable)} channel(s) unstable: " + listed,
                     code="stability-unstable", values={"n": len(unstable), "channels": listed})
    return Check("stability", True, f"{len(names)} channels read the same on two scans, "
                 "matching the settled readings", code="stability-ok", values={"n": len(names)})


def _multiplexers(board: Any, levels: list[bool]) -> Check:
    dead = [m.number for m in board.monitor.multiplexers if m.dead]
    if dead:
        return Check("multiplexers", False, "dead: " + ", ".join(f"multiplexer {m}" for m in dead)
                     + "; check power, signal wires and the ribbon cable", code="multiplexers-dead",
                     values={"multiplexers": ", ".join(str(m) for m in dead)})
    uniform = []
    for mux in board.monitor.multiplexers:
        if mux.channels and len({levels[i] for i in mux.channels}) == 1 and mux.references:
            uniform.append(mux.number)
    if uniform:
        return Check("multiplexers", False, "every channel reads one level despite its references: "
                     + ", ".join(f"multiplexer {m}" for m in uniform), code="multiplexers-uniform",
                     values={"multiplexers": ", ".join(str(m) for m in uniform)})
    return Check("multiplexers", True, f"{board.settings.multiplexers} multiplexer(s) answer",
                 code="multiplexers-ok", values={"n": board.settings.multiplexers})


def _contacts(board: Any, levels: list[bool]) -> Check:
    active = board.settings.active_high
    bad = [t.slot for t in board.monitor.slots.values()
           if (levels[t.presence] == active) | (levels[t.conduction] == active) << 1 == Reading.INVALID]
    if bad:
        return Check("contacts", False, "conduction without presence in " + ", ".join(bad),
                     code="contacts-bad", values={"slots": ", ".join(bad)})
    return Check("contacts", True, "no slot conducts without a pawn", code="contacts-ok")


def _lamps(board: Any, report: SelftestReport, now: float) -> list[Check]:
    lamps = board.lamps
    sensed = lamps.has_feedback
    if not sensed:
        return [Check("lamps", True, "no lamp feedback inputs configured: check the lamps by eye "
                      "with the test button", warning=True, code="lamps-no-feedback")]
    checks = []
    settle = board.settings.lamp_feedback_seconds
    try:
        lamps.drive({name: False for name in lamps.names})
        board.clock.wait(settle)
        leaking = [n for n in sensed if lamps.draws_current(n)]
        for lit in lamps.names:
            lamps.drive({name: name == lit for name in lamps.names})
            board.clock.wait(settle)
            for name in sensed:
                current = lamps.draws_current(name)
                if name == lit and not current:
                    checks.append(_lamp_fault(report, name, f"lamp {name} draws no current when on "
                                              "(bulb, fuse or driver)", now, code="lamp-dark"))
                elif name != lit and current and name not in leaking:
                    leaking.append(name)
        for name in leaking:
            checks.append(_lamp_fault(report, name, f"lamp {name} draws current when off "
                                      "(stuck relay or shorted driver)", now, code="lamp-leaks"))
    finally:
        lamps.restore()
    if not checks:
        checks.append(Check("lamps", True, f"{len(sensed)} lamp(s) draw current only when on",
                            code="lamps-ok", values={"n": len(sensed)}))
    return checks


def _lamp_fault(report: SelftestReport, lamp: str, message: str, now: float, *, code: str) -> Check:
    report.faults.append(Fault(FaultKind.LAMP_FEEDBACK, f"self-test: {message}", now))
    return Check(f"lamp {lamp}", False, message, code=code, values={"lamp": lamp})


def _health_selftest(backend: Any) -> SelftestReport:
    health = backend.health()
    report = SelftestReport(backend=str(health.get("backend", getattr(backend, "name", "?"))))
    faults = health.get("faults", [])
    report.checks.append(_faults([str(f.get("message", f)) for f in faults]))
    faulted = backend.is_faulted()
    report.checks.append(Check("link", not faulted,
                               "readings cannot be trusted" if faulted else "readings trusted",
                               code="link-untrusted" if faulted else "link-trusted"))
    return report
