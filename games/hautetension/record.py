"""The game record of Haute-Tension: a small text format in the spirit of chess's PGN.

A record is what a referee reads when a game is disputed, and what a player
keeps: headers (the event, the date, the board, the players and their lamps,
the layout, the handicap, the pre-game check, the result), then one line per
placement in order (seconds since the start, who, which slot, the lamps it lit,
who was put out) with the anomalies where they happened, and, only when every
player of the table agreed to it after the game, a marked section revealing
each player's defense pawns. docs/game-record.md describes the format::

    [Event "Club night"]
    [Date "2026.05.14"]
    [UTCTime "15:02:11"]
    ...
    1. 3.2 P2 f9 ; Ben
    2. 7.9 P3 e8 lit N out P1 ; Cy
    ! 9.0 anomaly lifted f8

The record is public: without the reveal section it holds nothing that tells
an attack pawn from a defense pawn (lamps, who placed where and when are what
everyone at the table saw). :func:`write_record` and :func:`read_record` are
exact inverses (a property test plays random games through both);
:func:`read_record` refuses a bad file with a :class:`~games.exc.RecordError`
naming the line, and with a layout it also checks the moves against the rules.
"""

from __future__ import annotations

import calendar
import dataclasses
import enum
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from games.exc import GameError, RecordError
from games.hautetension.game import Game
from games.hautetension.layout import Layout
from games.hautetension.outcome import Placement, Termination, tournament_points
from games.hautetension.pawn import ATTACK_PAWNS, DEFENSE_PAWNS, PawnKind
from games.hautetension.seats import MAX_PLAYERS, MIN_PLAYERS, Seat

SUFFIX = ".htn"
"""The file name ending of a record."""
MEDIA_TYPE = "text/plain; charset=utf-8"
FIRST_LINE = "; Haute-Tension game record (docs/game-record.md)"
REVEAL_MARK = "*** reveal: every player consented at {at} ***"
NONE = "-"
"""What a header or a field says when there is nothing (no handicap, a time not known)."""
PAWNS = ATTACK_PAWNS + DEFENSE_PAWNS


class CheckResult(enum.StrEnum):
    """How the pre-game check ended (hardware/service/pregame.py on the board)."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    NOT_DONE = "not-done"
    """The game was abandoned before the check was over."""


class LampCheck(enum.StrEnum):
    """What the pre-game check found of one lamp."""

    CURRENT = "current"
    """It drew current while the test button was held (its feedback input says so)."""
    SEEN = "seen"
    """The players saw it light (a lamp without current feedback)."""
    FAILED = "failed"
    UNCHECKED = "unchecked"


class Status(enum.StrEnum):
    OVER = "over"
    ABANDONED = "abandoned"
    RUNNING = "running"


@dataclass(frozen=True)
class Player:
    name: str
    lamp: str
    colour: str


@dataclass(frozen=True)
class PregameCheck:
    """The check at the top of the record: its verdict, when (tenths of a second since the start)
    and what it found of each lamp."""

    result: CheckResult
    tenths: int | None
    lamps: tuple[tuple[str, LampCheck], ...] = ()
    by: str | None = None
    """Who skipped a skipped check: ``staff``, or ``demo`` (the demo game of ``make run``); None when
    not said (a record written before it was, or a check that was not skipped)."""


@dataclass(frozen=True)
class Move:
    """A placement: its number (from 1), when, whose (seat from 0), where, and what it did."""

    number: int
    tenths: int | None
    player: int
    slot: str
    lit: tuple[str, ...] = ()
    """Lamps this placement lit."""
    out: tuple[int, ...] = ()
    """Seats it put out."""


@dataclass(frozen=True)
class Anomaly:
    """A slot stopped matching the game (``what``: the board service's anomaly kind)."""

    tenths: int | None
    what: str
    slot: str


@dataclass(frozen=True)
class Resolved:
    """The slot matches the game again."""

    tenths: int | None
    what: str
    slot: str


@dataclass(frozen=True)
class Resumed:
    """The game goes on after a pause: ``player`` (a seat) plays."""

    tenths: int | None
    player: int


@dataclass(frozen=True)
class CheckFailed:
    """An attempt of the pre-game check that failed: the lamps to look at."""

    tenths: int | None
    lamps: tuple[str, ...]


Line = Move | Anomaly | Resolved | Resumed | CheckFailed


@dataclass(frozen=True)
class Result:
    status: Status
    winners: tuple[int, ...] = ()
    termination: Termination | None = None
    points: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Reveal:
    """The pawn kinds, shown once every player consented: each seat's defense pawns, by slot (every
    other pawn of the game, handicap pawns included, is an attack pawn)."""

    consented_at: int
    """Unix time (whole seconds) of the last consent."""
    defense: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class GameRecord:
    """One game, as its record says it."""

    event: str
    site: str
    started_at: int
    """Unix time of the start, whole seconds (the Date and UTCTime headers)."""
    board: str
    """What the game was played on: a board backend (``gpio``, ``serial``, ``sim``) or ``digital``."""
    game: str
    """The game's name where it was kept: ``board/12``, ``lobby/7``."""
    layout: str
    players: tuple[Player, ...]
    first: int
    drawn: bool
    handicap: tuple[tuple[str, int], ...] = ()
    check: PregameCheck | None = None
    """None: the game had no pre-game check (a digital game)."""
    lines: tuple[Line, ...] = ()
    result: Result = field(default_factory=lambda: Result(Status.RUNNING))
    reveal: Reveal | None = None

    @property
    def moves(self) -> tuple[Move, ...]:
        return tuple(line for line in self.lines if isinstance(line, Move))

    def public(self) -> GameRecord:
        """The record without its reveal section."""
        return dataclasses.replace(self, reveal=None)

    def to_text(self) -> str:
        return write_record(self)

    def to_game(self, layout: Layout) -> Game:
        """The game itself, pawn kinds included, replayed on *layout* (needs the reveal section)."""
        if self.reveal is None:
            raise RecordError(1, "the record reveals no pawn kinds: the game cannot be rebuilt from it")
        game = setup_game(self, layout)
        for move in self.moves:
            game.push(move.slot, _kind(self.reveal, move))
        return game


# -- writing -------------------------------------------------------------------------------------------


def write_record(record: GameRecord) -> str:
    """The record as text (UTF-8 when saved; lines end with ``\\n``)."""
    out = [FIRST_LINE]
    out += [f"[{name} {_quote(value)}]" for name, value in _headers(record)]
    out.append("")
    names = [p.name for p in record.players]
    for line in record.lines:
        out.append(_line_text(line, names))
    if record.reveal is not None:
        out.append("")
        out.append(REVEAL_MARK.format(at=_iso(record.reveal.consented_at)))
        for seat, slots in enumerate(record.reveal.defense):
            out.append(f"P{seat + 1} defense {' '.join(slots) if slots else NONE} ; {_said(names[seat])}")
    return "\n".join(out) + "\n"


def _headers(record: GameRecord) -> Iterator[tuple[str, str]]:
    yield "Event", record.event
    yield "Site", record.site
    day = time.gmtime(record.started_at)
    yield "Date", time.strftime("%Y.%m.%d", day)
    yield "UTCTime", time.strftime("%H:%M:%S", day)
    yield "Board", record.board
    yield "Game", record.game
    yield "Layout", record.layout
    for seat, player in enumerate(record.players, 1):
        yield f"Player{seat}", player.name
        yield f"Lamp{seat}", player.lamp
        yield f"Colour{seat}", player.colour
    yield "First", str(record.first + 1)
    yield "FirstDrawn", "yes" if record.drawn else "no"
    yield "Handicap", " ".join(f"{lamp}:{n}" for lamp, n in record.handicap) or NONE
    check = record.check
    yield "Check", check.result.value if check is not None else NONE
    if check is not None:
        yield "CheckTime", _seconds(check.tenths)
        yield "CheckLamps", " ".join(f"{lamp}:{found.value}" for lamp, found in check.lamps) or NONE
        if check.by is not None:
            yield "CheckBy", check.by
    result = record.result
    yield "Status", result.status.value
    yield "Result", " ".join(str(w + 1) for w in result.winners) if result.status is Status.OVER else "*"
    yield "Termination", result.termination.name if result.termination is not None else NONE
    yield "Points", " ".join(map(str, result.points)) if result.points is not None else NONE


def _line_text(line: Line, names: Sequence[str]) -> str:
    at = _seconds(line.tenths)
    if isinstance(line, Move):
        text = f"{line.number}. {at} P{line.player + 1} {line.slot}"
        if line.lit:
            text += " lit " + " ".join(line.lit)
        if line.out:
            text += " out " + " ".join(f"P{p + 1}" for p in line.out)
        return f"{text} ; {_said(names[line.player])}"
    if isinstance(line, Anomaly):
        return f"! {at} anomaly {line.what} {line.slot}"
    if isinstance(line, Resolved):
        return f"! {at} resolved {line.what} {line.slot}"
    if isinstance(line, Resumed):
        return f"! {at} resumed P{line.player + 1} ; {_said(names[line.player])}"
    return f"! {at} check failed {' '.join(line.lamps)}"


def _said(name: str) -> str:
    """A name in a comment (which the reader skips): on one line whatever it holds."""
    return "".join(ch if ch.isprintable() else " " for ch in name)


def _quote(value: str) -> str:
    escaped = []
    for ch in value:
        if ch in '"\\':
            escaped.append("\\" + ch)
        elif not ch.isprintable():
            escaped.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        else:
            escaped.append(ch)
    return '"' + "".join(escaped) + '"'


def _seconds(tenths: int | None) -> str:
    return NONE if tenths is None else f"{tenths // 10}.{tenths % 10}"


def _iso(unix: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(unix))


# -- reading -------------------------------------------------------------------------------------------

_HEADER = re.compile(r'^\[([A-Za-z][A-Za-z0-9]*) "((?:[^"\\]|\\.)*)"\]$')
_MOVE = re.compile(r"^(\d+)\. (\S+) P(\d) (\S+)(?: lit((?: \S+)+?))?(?: out((?: P\d)+))?$")
_EVENT = re.compile(r"^! (\S+) (anomaly|resolved) (\S+) (\S+)$")
_RESUMED = re.compile(r"^! (\S+) resumed P(\d)$")
_CHECK_FAILED = re.compile(r"^! (\S+) check failed((?: \S+)+)$")
_REVEAL = re.compile(r"^\*\*\* reveal: every player consented at (\S+) \*\*\*$")
_DEFENSE = re.compile(r"^P(\d) defense((?: \S+)+)$")
_TENTHS = re.compile(r"^(\d{1,9})\.(\d)$")
_NAME = re.compile(r"^[^\s;\"\\]+$")
REQUIRED = ("Event", "Site", "Date", "UTCTime", "Board", "Game", "Layout", "First", "FirstDrawn",
            "Handicap", "Check", "Status", "Result", "Termination", "Points")


def read_record(text: str, *, layout: Layout | None = None) -> GameRecord:
    """Read a record written by :func:`write_record` (or by hand, in the same format).

    Raises :class:`RecordError` with the line of the first problem. With *layout* the moves are also
    checked against the rules: slots of that layout, each free, the player whose turn it was, the
    lamps and eliminations the rules give (exactly, when the record reveals the pawns)."""
    reader = _Reader(text)
    record = reader.read()
    if layout is not None:
        _check(record, layout, reader.line_of)
    return record


class _Reader:
    def __init__(self, text: str) -> None:
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.line_of: dict[int, int] = {}
        """Index in the record's lines → line number in the file (for the rule checks)."""
        self.headers: dict[str, tuple[int, str]] = {}
        self.body: list[Line] = []
        self.reveal: Reveal | None = None
        self.reveal_line = 0
        self._defense_seen: set[int] = set()

    def read(self) -> GameRecord:
        number = self._read_headers(1)
        players = self._players()
        self._read_body(number, players)
        return self._record(players)

    # -- headers -------------------------------------------------------------------------------------

    def _read_headers(self, start: int) -> int:
        for number, raw in self._numbered(start):
            line = raw.rstrip("\r")
            if _is_comment(line):
                continue
            if not line.strip():
                if self.headers:
                    return number + 1
                continue
            match = _HEADER.match(line)
            if match is None:
                if not self.headers:
                    raise RecordError(number, 'a record starts with headers such as [Event "…"]')
                raise RecordError(number, 'a header is [Name "value"]; leave an empty line before the moves')
            name, value = match.group(1), _unquote(match.group(2), number)
            if name in self.headers:
                raise RecordError(number, f"header {name} is given twice")
            self.headers[name] = (number, value)
        if not self.headers:
            raise RecordError(max(1, len(self.lines)), "this file holds no game record")
        return len(self.lines) + 1

    def _numbered(self, start: int) -> Iterator[tuple[int, str]]:
        for index in range(start - 1, len(self.lines)):
            yield index + 1, self.lines[index]

    def _header(self, name: str) -> tuple[int, str]:
        if name not in self.headers:
            raise RecordError(self._end_of_headers(), f"header {name} is missing")
        return self.headers[name]

    def _end_of_headers(self) -> int:
        return max(line for line, _ in self.headers.values())

    def _players(self) -> tuple[Player, ...]:
        players = []
        for seat in range(1, MAX_PLAYERS + 1):
            if f"Player{seat}" not in self.headers:
                break
            name = self._header(f"Player{seat}")[1]
            lamp_line, lamp = self._header(f"Lamp{seat}")
            if not _NAME.match(lamp):
                raise RecordError(lamp_line, f"Lamp{seat} must be a lamp's name, not {lamp!r}")
            players.append(Player(name, lamp, self._header(f"Colour{seat}")[1]))
        if len(players) < MIN_PLAYERS:
            raise RecordError(self._end_of_headers(),
                              f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players: Player1, Player2, …")
        for seat, player in enumerate(players[1:], 2):
            if player.lamp in [p.lamp for p in players[: seat - 1]]:
                raise RecordError(self._header(f"Lamp{seat}")[0], f"two players own lamp {player.lamp}")
        known = {"Player", "Lamp", "Colour"}
        for name, (line, _) in self.headers.items():
            stem = name.rstrip("0123456789")
            if name not in REQUIRED and name not in ("CheckTime", "CheckLamps", "CheckBy") and not (
                stem in known and name[len(stem):].isdigit() and 1 <= int(name[len(stem):]) <= len(players)
            ):
                raise RecordError(line, f"unknown header {name}")
        return tuple(players)

    # -- the body ------------------------------------------------------------------------------------

    def _read_body(self, start: int, players: Sequence[Player]) -> None:
        for number, raw in self._numbered(start):
            line = _strip_comment(raw.rstrip("\r"))
            if not line:
                continue
            if self.reveal_line:
                self._read_defense(number, line, players)
            elif line.startswith("*"):
                self._read_reveal_mark(number, line, players)
            else:
                self.line_of[len(self.body)] = number
                self.body.append(self._body_line(number, line, len(players)))

    def _body_line(self, number: int, line: str, players: int) -> Line:
        if line.startswith("!"):
            return self._event(number, line, players)
        match = _MOVE.match(line)
        if match is None:
            raise RecordError(number,
                              "a move is '<n>. <seconds> P<seat> <slot> [lit <lamps>] [out P<seat>…]'")
        moves = sum(1 for entry in self.body if isinstance(entry, Move))
        if int(match.group(1)) != moves + 1:
            raise RecordError(number, f"move {match.group(1)} comes where move {moves + 1} should")
        out = tuple(_seat(token[1:], players, number) for token in (match.group(6) or "").split())
        if len(set(out)) != len(out):
            raise RecordError(number, "a player is put out twice by one move")
        lit = tuple((match.group(5) or "").split())
        if len(set(lit)) != len(lit):
            raise RecordError(number, "a lamp is listed twice")
        return Move(moves + 1, _tenths(match.group(2), number), _seat(match.group(3), players, number),
                    _token(match.group(4), number), lit, out)

    def _event(self, number: int, line: str, players: int) -> Line:
        if match := _EVENT.match(line):
            kind = Anomaly if match.group(2) == "anomaly" else Resolved
            return kind(_tenths(match.group(1), number), _token(match.group(3), number),
                        _token(match.group(4), number))
        if match := _RESUMED.match(line):
            return Resumed(_tenths(match.group(1), number), _seat(match.group(2), players, number))
        if match := _CHECK_FAILED.match(line):
            return CheckFailed(_tenths(match.group(1), number), tuple(match.group(2).split()))
        raise RecordError(number, "an event is '! <seconds> anomaly|resolved <what> <slot>',"
                                  " '! <seconds> resumed P<seat>' or '! <seconds> check failed <lamps>'")

    def _read_reveal_mark(self, number: int, line: str, players: Sequence[Player]) -> None:
        match = _REVEAL.match(line)
        if match is None:
            raise RecordError(number, "the reveal section starts with"
                                      " '*** reveal: every player consented at <time> ***'")
        self.reveal_line = number
        self.reveal = Reveal(_unix(match.group(1), number), tuple(() for _ in players))

    def _read_defense(self, number: int, line: str, players: Sequence[Player]) -> None:
        match = _DEFENSE.match(line)
        if match is None:
            raise RecordError(number, "a line of the reveal is 'P<seat> defense <slots>' (- for none)")
        seat = _seat(match.group(1), len(players), number)
        if seat in self._defense_seen:
            raise RecordError(number, f"P{seat + 1}'s defense pawns are given twice")
        self._defense_seen.add(seat)
        slots = match.group(2).split()
        if slots == [NONE]:
            slots = []
        if len(slots) > DEFENSE_PAWNS:
            raise RecordError(number, f"a player has {DEFENSE_PAWNS} defense pawns, not {len(slots)}")
        assert self.reveal is not None
        defense = list(self.reveal.defense)
        defense[seat] = tuple(_token(slot, number) for slot in slots)
        self.reveal = Reveal(self.reveal.consented_at, tuple(defense))

    # -- the whole -------------------------------------------------------------------------------------

    def _record(self, players: tuple[Player, ...]) -> GameRecord:
        if self.reveal is not None and len(self._defense_seen) != len(players):
            missing = [f"P{s + 1}" for s in range(len(players)) if s not in self._defense_seen]
            raise RecordError(self.reveal_line, f"the reveal section lacks {', '.join(missing)}")
        date_line, date = self._header("Date")
        clock_line, clock = self._header("UTCTime")
        first_line, first = self._header("First")
        drawn_line, drawn = self._header("FirstDrawn")
        if drawn not in ("yes", "no"):
            raise RecordError(drawn_line, "FirstDrawn is yes or no")
        return GameRecord(
            event=self._header("Event")[1], site=self._header("Site")[1],
            started_at=_start(date, date_line, clock, clock_line),
            board=self._header("Board")[1], game=self._header("Game")[1], layout=self._header("Layout")[1],
            players=players, first=_seat(first, len(players), first_line), drawn=drawn == "yes",
            handicap=self._handicap(), check=self._check(players), lines=tuple(self.body),
            result=self._result(len(players)), reveal=self.reveal,
        )

    def _handicap(self) -> tuple[tuple[str, int], ...]:
        line, value = self._header("Handicap")
        if value == NONE:
            return ()
        handicap = []
        for part in value.split(" "):
            lamp, _, count = part.partition(":")
            if not _NAME.match(lamp) or count not in ("1", "2", "3"):
                raise RecordError(line, f"Handicap is '<lamp>:<1-3> …' or -, not {value!r}")
            handicap.append((lamp, int(count)))
        if len({lamp for lamp, _ in handicap}) != len(handicap):
            raise RecordError(line, "a lamp is given twice in Handicap")
        return tuple(handicap)

    def _check(self, players: Sequence[Player]) -> PregameCheck | None:
        line, value = self._header("Check")
        if value == NONE:
            for name in ("CheckTime", "CheckLamps", "CheckBy"):
                if name in self.headers:
                    raise RecordError(self.headers[name][0], f"{name} is given for a game without a check")
            return None
        try:
            result = CheckResult(value)
        except ValueError:
            raise RecordError(line, f"Check is one of {', '.join(CheckResult)} or -, not {value!r}") from None
        time_line, when = self._header("CheckTime")
        lamps_line, found = self._header("CheckLamps")
        lamps: list[tuple[str, LampCheck]] = []
        for part in found.split(" ") if found != NONE else []:
            lamp, _, what = part.partition(":")
            try:
                lamps.append((_token(lamp, lamps_line), LampCheck(what)))
            except ValueError:
                raise RecordError(lamps_line, f"CheckLamps is '<lamp>:{'|'.join(LampCheck)} …' or -,"
                                              f" not {found!r}") from None
        by = self.headers["CheckBy"][1] if "CheckBy" in self.headers else None
        if by is not None and not _NAME.match(by):
            raise RecordError(self.headers["CheckBy"][0], f"CheckBy must be a word (staff, demo), not {by!r}")
        return PregameCheck(result, _tenths(when, time_line), tuple(lamps), by)

    def _result(self, players: int) -> Result:
        status_line, status_text = self._header("Status")
        try:
            status = Status(status_text)
        except ValueError:
            raise RecordError(status_line, f"Status is one of {', '.join(Status)}") from None
        line, value = self._header("Result")
        if status is Status.OVER:
            if value == "*":
                raise RecordError(line, "a game that is over has a Result: its winners' seats")
            winners = tuple(_seat(part, players, line) for part in value.split(" "))
        elif value != "*":
            raise RecordError(line, f"the Result of a game that is {status.value} is *")
        else:
            winners = ()
        term_line, term = self._header("Termination")
        termination = None
        if term != NONE:
            try:
                termination = Termination[term]
            except KeyError:
                names = ", ".join(t.name for t in Termination)
                raise RecordError(term_line, f"Termination is one of {names} or -") from None
        points_line, points_text = self._header("Points")
        points = None
        if points_text != NONE:
            parts = points_text.split(" ")
            if len(parts) != players or not all(p.isdigit() and len(p) <= 2 for p in parts):
                raise RecordError(points_line, f"Points are {players} whole numbers, one per player")
            points = tuple(int(p) for p in parts)
        return Result(status, winners, termination, points)


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith(";")


def _strip_comment(line: str) -> str:
    return line.split(";", 1)[0].strip()


def _unquote(value: str, line: int) -> str:
    out = []
    chars = iter(value)
    for ch in chars:
        if ch != "\\":
            if not ch.isprintable():
                raise RecordError(line, "a header value holds a control character")
            out.append(ch)
            continue
        escaped = next(chars, "")
        if escaped in '"\\':
            out.append(escaped)
        elif escaped in ("u", "U"):
            digits = "".join(next(chars, "") for _ in range(4 if escaped == "u" else 8))
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:
                raise RecordError(line, f"a bad escape \\{escaped}{digits} in a header value") from None
        else:
            raise RecordError(line, f"a bad escape \\{escaped} in a header value")
    return "".join(out)


def _tenths(text: str, line: int) -> int | None:
    if text == NONE:
        return None
    match = _TENTHS.match(text)
    if match is None:
        raise RecordError(line,
                          f"a time is seconds since the start with one decimal (12.5) or -, not {text!r}")
    return int(match.group(1)) * 10 + int(match.group(2))


def _seat(text: str, players: int, line: int) -> int:
    if not text.isdigit() or not 1 <= int(text) <= players:
        raise RecordError(line, f"there is no player {text!r}: players are 1 to {players}")
    return int(text) - 1


def _token(text: str, line: int) -> str:
    if not _NAME.match(text):
        raise RecordError(line, f"{text!r} is not a name (a slot, a lamp, an anomaly)")
    return text


def _start(date: str, date_line: int, clock: str, clock_line: int) -> int:
    try:
        day = time.strptime(date, "%Y.%m.%d")
    except ValueError:
        raise RecordError(date_line, f"Date is YYYY.MM.DD, not {date!r}") from None
    try:
        hours = time.strptime(clock, "%H:%M:%S")
    except ValueError:
        raise RecordError(clock_line, f"UTCTime is HH:MM:SS, not {clock!r}") from None
    return calendar.timegm((day.tm_year, day.tm_mon, day.tm_mday, hours.tm_hour, hours.tm_min,
                            hours.tm_sec, 0, 0, 0))


def _unix(text: str, line: int) -> int:
    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        raise RecordError(line, f"a time is YYYY-MM-DDTHH:MM:SSZ, not {text!r}") from None


# -- the rules -------------------------------------------------------------------------------------------


def setup_game(record: GameRecord, layout: Layout) -> Game:
    seats = [Seat(p.name, p.lamp, p.colour) for p in record.players]
    try:
        return Game(layout, seats, first=record.first, handicap=dict(record.handicap) or None)
    except GameError as exc:
        raise RecordError(1, f"the game cannot be set up on {layout.name}: {exc}") from None


def _kind(reveal: Reveal, move: Move) -> PawnKind:
    return PawnKind.DEFENSE if move.slot in reveal.defense[move.player] else PawnKind.ATTACK


def _check(record: GameRecord, layout: Layout, line_of: Mapping[int, int]) -> None:
    """The moves against the rules (see :func:`read_record`); raises RecordError at the first problem."""
    if record.layout != layout.name:
        raise RecordError(1, f"the record is of layout {record.layout}, not {layout.name}")
    game = setup_game(record, layout)
    public = PublicGame(game)
    for index, line in enumerate(record.lines):
        number = line_of.get(index, 1)
        if isinstance(line, Move):
            public.play(line, number)
            if record.reveal is not None:
                _push_revealed(game, record.reveal, line, number)
        elif isinstance(line, Anomaly | Resolved) and line.slot not in layout.slot_positions:
            raise RecordError(number, f"there is no slot {line.slot} on {layout.name}")
    if record.reveal is not None:
        _check_reveal(record, game)
    if record.result.status is Status.OVER:
        _check_result(record, public, game if record.reveal is not None else None)


def _push_revealed(game: Game, reveal: Reveal, move: Move, number: int) -> None:
    try:
        placement = game.push(move.slot, _kind(reveal, move))
    except GameError as exc:
        raise RecordError(number,
                          f"with the revealed pawns, move {move.number} cannot be played: {exc}") from None
    same_out = placement.eliminated == tuple(sorted(move.out))
    if tuple(sorted(placement.lit)) != tuple(sorted(move.lit)) or not same_out:
        raise RecordError(number, f"with the revealed pawns, move {move.number} lights"
                                  f" {' '.join(sorted(placement.lit)) or 'no lamp'}, not"
                                  f" {' '.join(sorted(move.lit)) or 'no lamp'}")


def _check_reveal(record: GameRecord, game: Game) -> None:
    assert record.reveal is not None
    placed = {(m.player, m.slot) for m in record.moves}
    for seat, slots in enumerate(record.reveal.defense):
        for slot in slots:
            if (seat, slot) not in placed:
                raise RecordError(1, f"the reveal gives P{seat + 1} a defense pawn on {slot},"
                                     f" where P{seat + 1} placed no pawn")


def _check_result(record: GameRecord, public: PublicGame, game: Game | None) -> None:
    result = record.result
    placements = [Placement(m.slot, PawnKind.ATTACK, m.player, frozenset(m.lit), m.out) for m in record.moves]
    points = tournament_points(len(record.players), placements)
    if result.points is not None and result.points != points:
        raise RecordError(1, f"Points should be {' '.join(map(str, points))} for these moves")
    if not public.is_over():
        raise RecordError(1, "the record says the game is over, but these moves do not end it")
    if game is not None:
        outcome = game.outcome()
        said = (result.winners, result.termination)
        if outcome is not None and (outcome.winners, outcome.termination) != said:
            raise RecordError(1, "the Result or Termination is not what these moves give")


class PublicGame:
    """What anyone can follow of a game without knowing the kinds: whose turn, which slots are
    taken, which lamps are lit, who is out, how many pawns each player has left."""

    def __init__(self, game: Game) -> None:
        self.layout = game.layout
        self.seats = game.seats
        self.lamp_owner = {seat.lamp: i for i, seat in enumerate(game.seats)}
        self.taken = set(game.pawns)
        self.lit: set[str] = set(game.lit)
        self.out = [False] * len(game.seats)
        self.left = [PAWNS] * len(game.seats)
        self.to_move: int | None = game.to_move

    def play(self, move: Move, number: int) -> None:
        if self.to_move is None:
            raise RecordError(number, f"move {move.number} comes after the end of the game")
        if move.player != self.to_move:
            raise RecordError(number,
                              f"move {move.number} is P{self.to_move + 1}'s turn, not P{move.player + 1}'s")
        if move.slot not in self.layout.slot_positions:
            raise RecordError(number, f"there is no slot {move.slot} on {self.layout.name}")
        if move.slot in self.taken:
            raise RecordError(number, f"slot {move.slot} already holds a pawn")
        for lamp in move.lit:
            if lamp not in self.layout.lamp_positions:
                raise RecordError(number, f"there is no lamp {lamp} on {self.layout.name}")
            if lamp in self.lit:
                raise RecordError(number, f"lamp {lamp} was already lit")
        out = tuple(sorted(self.lamp_owner[lamp] for lamp in move.lit
                           if lamp in self.lamp_owner and not self.out[self.lamp_owner[lamp]]))
        if out != tuple(sorted(move.out)):
            names = " ".join(f"P{p + 1}" for p in out) or "nobody"
            raise RecordError(number, f"the lamps move {move.number} lit put out {names}")
        self.taken.add(move.slot)
        self.lit.update(move.lit)
        self.left[move.player] -= 1
        for player in out:
            self.out[player] = True
        self.to_move = None if self._ended() else self._next(move.player)

    def _ended(self) -> bool:
        remaining = [i for i, out in enumerate(self.out) if not out]
        return (len(remaining) <= 1 or len(self.layout.lamps) - len(self.lit) < 2
                or len(self.taken) == len(self.layout.slots) or not any(self.left[i] for i in remaining))

    def _next(self, after: int) -> int | None:
        n = len(self.seats)
        for step in range(1, n + 1):
            candidate = (after + step) % n
            if not self.out[candidate] and self.left[candidate]:
                return candidate
        return None

    def is_over(self) -> bool:
        return self.to_move is None


# -- building a record from a game -------------------------------------------------------------------------


def record_of_game(
    game: Game,
    *,
    event: str,
    site: str,
    started_at: float,
    board: str,
    name: str,
    drawn: bool,
    tenths: Sequence[int | None] = (),
    status: Status | None = None,
    check: PregameCheck | None = None,
    reveal_at: float | None = None,
) -> GameRecord:
    """The record of *game* (a digital game, or a test's): its moves, with *tenths* (tenths of a second
    since the start of each move, when known). With *reveal_at* (when the last player consented) it
    reveals every player's defense pawns."""
    lines: list[Line] = []
    for number, placement in enumerate(game.history, 1):
        at = tenths[number - 1] if number - 1 < len(tenths) else None
        lines.append(Move(number, at, placement.player, placement.slot, tuple(sorted(placement.lit)),
                          placement.eliminated))
    outcome = game.outcome()
    status = status or (Status.OVER if outcome is not None else Status.RUNNING)
    result = Result(status)
    if status is Status.OVER and outcome is not None:
        result = Result(status, outcome.winners, outcome.termination, game.points())
    reveal = None
    if reveal_at is not None:
        reveal = Reveal(int(reveal_at), defense_slots(game))
    return GameRecord(
        event=event, site=site, started_at=int(started_at), board=board, game=name, layout=game.layout.name,
        players=tuple(Player(s.name, s.lamp, s.colour) for s in game.seats), first=game.first, drawn=drawn,
        handicap=tuple(sorted(game.handicap.items())), check=check, lines=tuple(lines), result=result,
        reveal=reveal,
    )


def defense_slots(game: Game) -> tuple[tuple[str, ...], ...]:
    """Each seat's defense pawns, by slot in the order they were placed. Secret: for the reveal only."""
    return tuple(
        tuple(p.slot for p in game.history if p.player == seat and p.kind is PawnKind.DEFENSE)
        for seat in range(len(game.seats))
    )


def tenths_since(start: float, times: Iterable[float | None]) -> list[int | None]:
    """Tenths of a second since *start* of each time (None stays unknown; never below 0)."""
    return [None if t is None else max(0, int(round((t - start) * 10))) for t in times]
