"""The game record (docs/game-record.md): write, read back, refuse bad files with the line."""

from __future__ import annotations

import dataclasses
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.exc import GameError, RecordError
from games.hautetension import Game, PawnKind, default_seats, load_layout
from games.hautetension.record import (
    Anomaly,
    CheckFailed,
    CheckResult,
    GameRecord,
    LampCheck,
    Line,
    PregameCheck,
    Resolved,
    Resumed,
    Status,
    read_record,
    record_of_game,
    write_record,
)

PINWHEEL = load_layout("pinwheel-80")
START = 1_796_000_000
NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
LAMP_NAMES = st.sampled_from(["N", "E", "S", "W"])
WORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)


def random_game(seed: int, players: int, *, handicap: dict[str, int] | None = None) -> Game:
    rng = random.Random(seed)
    game = Game(PINWHEEL, default_seats([f"P{i}" for i in range(players)]), first=rng.randrange(players),
                handicap=handicap)
    limit = rng.randrange(0, 60)
    while not game.is_over() and len(game.history) < limit:
        slot, kind = rng.choice(game.legal_moves())
        game.push(slot, kind)
    return game


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    players = draw(st.integers(2, 4))
    handicap = draw(st.dictionaries(st.sampled_from(["N", "E", "S", "W"]), st.integers(1, 3), max_size=2))
    game = random_game(draw(st.integers(0, 2**32)), players, handicap=handicap)
    names = draw(st.lists(NAMES, min_size=players, max_size=players))
    tenths = sorted(draw(st.lists(st.integers(0, 10**6) | st.none(), min_size=len(game.history),
                                  max_size=len(game.history))), key=lambda t: -1 if t is None else t)
    check = draw(st.none() | st.builds(
        PregameCheck, st.sampled_from(CheckResult), st.integers(0, 10**5) | st.none(),
        st.lists(st.sampled_from(list(LampCheck)), min_size=4, max_size=4).map(
            lambda found: tuple(zip(("N", "E", "S", "W"), found, strict=True))),
        st.none() | st.sampled_from(["staff", "demo"])))
    record = record_of_game(
        game, event=draw(WORDS), site=draw(WORDS), started_at=draw(st.integers(0, 4 * 10**9)),
        board=draw(st.sampled_from(["gpio", "serial", "sim", "digital"])),
        name=f"board/{draw(st.integers(1))}",
        drawn=draw(st.booleans()), tenths=tenths, check=check,
        status=Status.ABANDONED if not game.is_over() and draw(st.booleans()) else None,
        reveal_at=draw(st.none() | st.integers(0, 4 * 10**9)),
    )
    seat = st.integers(0, players - 1)
    slot = st.sampled_from(PINWHEEL.slots)
    events: list[Line] = draw(st.lists(st.one_of(
        st.builds(Anomaly, st.integers(0, 10**6) | st.none(), st.sampled_from(["lifted", "two-pawns"]), slot),
        st.builds(Resolved, st.integers(0, 10**6) | st.none(), st.sampled_from(["lifted", "changed"]), slot),
        st.builds(Resumed, st.integers(0, 10**6) | st.none(), seat),
        st.builds(CheckFailed, st.integers(0, 10**6) | st.none(),
                  st.lists(LAMP_NAMES, min_size=1, max_size=4, unique=True).map(tuple)),
    ), max_size=5))
    lines = list(record.lines)
    for event in events:
        lines.insert(draw(st.integers(0, len(lines))), event)
    names_of = tuple(dataclasses.replace(p, name=n) for p, n in zip(record.players, names, strict=True))
    return dataclasses.replace(record, players=names_of, lines=tuple(lines))


@settings(max_examples=60, deadline=None)
@given(record=records())
def test_a_record_reads_back_as_it_was_written(record: GameRecord) -> None:
    text = write_record(record)
    assert read_record(text) == record
    assert read_record(text, layout=PINWHEEL) == record  # and the moves follow the rules
    assert write_record(read_record(text)) == text


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_a_revealed_record_rebuilds_the_game_and_a_public_one_tells_no_kind(seed: int, players: int) -> None:
    game = random_game(seed, players)
    record = record_of_game(game, event="", site="", started_at=START, board="digital", name="lobby/1",
                            drawn=False, reveal_at=START + 60)
    again = read_record(write_record(record)).to_game(PINWHEEL)
    assert again.to_json() == game.to_json()
    public = write_record(record.public())
    assert "defense" not in public and "reveal" not in public
    # The public record of a game with one pawn of the other kind, lighting the same lamps, is the same.
    for flipped in same_lamps_other_kinds(game):
        other = record_of_game(flipped, event="", site="", started_at=START, board="digital", name="lobby/1",
                               drawn=False)
        assert write_record(other) == public


def same_lamps_other_kinds(game: Game) -> list[Game]:
    """Games that differ from *game* by the kind of one pawn and light the same lamps at every move."""
    found = []
    for index in range(len(game.history)):
        other = Game(PINWHEEL, game.seats, first=game.first)
        try:
            for i, placement in enumerate(game.history):
                kind = placement.kind
                if i == index:
                    kind = PawnKind.ATTACK if kind is PawnKind.DEFENSE else PawnKind.DEFENSE
                played = other.push(placement.slot, kind)
                if played.lit != placement.lit or played.eliminated != placement.eliminated:
                    raise GameError("not the same lamps")
        except GameError:
            continue
        if other.is_over() == game.is_over():
            found.append(other)
    return found


def test_the_record_reads_like_the_docs_example() -> None:
    game = Game(PINWHEEL, default_seats(["Ana", "Ben"]), first=0)
    for slot in ["f9", "a1", "f8", "a2", "f7", "a3", "f6", "a4"]:
        game.push(slot, PawnKind.ATTACK)
    game.push("f5", PawnKind.ATTACK)  # Ana closes the row to her own lamp N
    check = PregameCheck(CheckResult.PASSED, 12, (("N", LampCheck.CURRENT), ("S", LampCheck.SEEN)))
    record = record_of_game(game, event="Club night", site="Lyon", started_at=START, board="sim",
                            name="board/3", drawn=True, tenths=[31, 52, 70, 95, 120, 131, 150, 166, 184],
                            check=check)
    text = write_record(record)
    assert text.splitlines()[1:4] == ['[Event "Club night"]', '[Site "Lyon"]', '[Date "2026.11.30"]']
    assert '[Check "passed"]' in text and '[CheckLamps "N:current S:seen"]' in text
    assert "9. 18.4 P1 f5 lit N out P1 ; Ana" in text.splitlines()
    assert '[Result "2"]' in text and '[Termination "LAST_PLAYER_STANDING"]' in text


GOOD = write_record(record_of_game(
    random_game(7, 2), event="E", site="S", started_at=START, board="sim", name="board/1", drawn=False,
    check=PregameCheck(CheckResult.SKIPPED, 0, ())))


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def replaced(start: str, new: str) -> tuple[str, int]:
    lines = GOOD.splitlines()
    number = line_of(GOOD, start)
    lines[number - 1] = new
    return "\n".join(lines) + "\n", number


@pytest.mark.parametrize(("start", "new", "problem"), [
    ("[Date", '[Date "2026-11-30"]', "Date is YYYY.MM.DD"),
    ("[Site", "[Site Lyon]", 'a header is [Name "value"]'),
    ("[Event", "[Event Club]", "a record starts with headers"),
    ("[Site", '[Event "twice"]', "header Event is given twice"),
    ("[Status", '[Status "won"]', "Status is one of"),
    ("[Lamp2", '[Lamp2 "N"]', "two players own lamp N"),
    ("[Board", '[Bored "sim"]', "unknown header Bored"),
    ("[Handicap", '[Handicap "N:7"]', "Handicap is"),
    ("[Check ", '[Check "maybe"]', "Check is one of"),
    ("[Event", '[Event "bad \\q escape"]', "bad escape"),
    ("1. ", "1. 3.2 P9 a1", "there is no player '9'"),
    ("1. ", "1. 3,2 P1 a1", "a time is seconds since the start"),
    ("1. ", "2. 3.2 P1 a1", "move 2 comes where move 1 should"),
    ("1. ", "1. 3.2 P1 a1 lit N N", "a lamp is listed twice"),
    ("1. ", "1. 3.2 P1", "a move is"),
    ("1. ", "! 3.2 exploded a1", "an event is"),
])
def test_a_bad_file_says_which_line_and_what_is_wrong(start: str, new: str, problem: str) -> None:
    text, number = replaced(start, new)
    with pytest.raises(RecordError, match=re.escape(problem)) as caught:
        read_record(text, layout=PINWHEEL)
    assert caught.value.line == number and str(caught.value).startswith(f"line {number}: ")


def test_a_move_out_of_turn_is_refused_with_the_layout() -> None:
    second = GOOD.splitlines()[line_of(GOOD, "2. ") - 1]
    seat = second.split()[2]
    text, number = replaced("2. ", second.replace(f" {seat} ", " P1 " if seat == "P2" else " P2 "))
    with pytest.raises(RecordError, match=f"move 2 is {seat}'s turn") as caught:
        read_record(text, layout=PINWHEEL)
    assert caught.value.line == number


def test_rule_problems_name_the_line_of_the_move() -> None:
    first = line_of(GOOD, "1. ")
    slot = GOOD.splitlines()[first - 1].split()[3]
    second = GOOD.splitlines()[first]
    text, number = replaced("2. ", second.replace(second.split()[3], slot))
    with pytest.raises(RecordError, match=f"slot {slot} already holds a pawn") as caught:
        read_record(text, layout=PINWHEEL)
    assert caught.value.line == number
    with pytest.raises(RecordError, match="there is no slot z9"):
        read_record(replaced("1. ", GOOD.splitlines()[first - 1].replace(slot, "z9"))[0], layout=PINWHEEL)
    nowhere = replaced("1. ", GOOD.splitlines()[first - 1].replace(slot, "z9"))[0]
    read_record(nowhere)  # without a layout the slot is not checked


@pytest.mark.parametrize(("text", "line", "problem"), [
    ("", 1, "this file holds no game record"),
    ("hello\n", 1, "a record starts with headers"),
    ('[Event "x"]\n', 1, "a game has 2 to 4 players"),
])
def test_what_is_not_a_record_says_so(text: str, line: int, problem: str) -> None:
    with pytest.raises(RecordError, match=problem) as caught:
        read_record(text)
    assert caught.value.line == line


def test_a_missing_header_names_the_end_of_the_headers() -> None:
    lines = [line for line in GOOD.splitlines() if not line.startswith("[Points")]
    with pytest.raises(RecordError, match="header Points is missing") as caught:
        read_record("\n".join(lines))
    assert caught.value.line == line_of(GOOD, "[Points") - 1


def test_a_reveal_that_contradicts_the_lamps_is_refused() -> None:
    game = Game(PINWHEEL, default_seats(["Ana", "Ben"]), first=0)
    for slot in ["f9", "a1", "f8", "a2", "f7", "a3", "f6", "a4", "f5"]:
        game.push(slot, PawnKind.ATTACK)
    text = write_record(record_of_game(game, event="", site="", started_at=START, board="sim", name="board/1",
                                       drawn=False, reveal_at=START))
    lie = text.replace("P1 defense -", "P1 defense f8")
    with pytest.raises(RecordError, match="with the revealed pawns, move 9 lights no lamp, not N") as caught:
        read_record(lie, layout=PINWHEEL)
    assert caught.value.line == line_of(lie, "9. ")
    with pytest.raises(RecordError, match="lacks P2"):
        read_record("\n".join(line for line in text.splitlines() if not line.startswith("P2 defense")))
    with pytest.raises(RecordError, match="where P2 placed no pawn"):
        read_record(text.replace("P2 defense -", "P2 defense f9"), layout=PINWHEEL)
