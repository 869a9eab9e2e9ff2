"""The layering of DESIGN §2, enforced: which package may import which, and no import cycle.

Every module's imports are read with :mod:`ast` — at the top, inside
functions, under ``if TYPE_CHECKING:`` and in ``try`` blocks alike — so a
late import cannot hide a dependency the table forbids, nor a cycle.

Inside the panel, its areas (``webpanel/<area>/``, one blueprint each) import
only the panel's core (``webpanel/*.py``), never one another, and the core
imports no area: docs/architecture.md, "The panel's areas".
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CONFIG_LEAF = "configuration"
"""Reads the configuration file into typed sections: importable by every package."""

EVERYTHING = frozenset({"*"})

ALLOWED: Mapping[str, frozenset[str]] = {
    # package: what it may import besides the standard library, itself and the config leaf
    "games": frozenset(),
    "tournaments": frozenset({"games", "openskill"}),
    "hardware": frozenset({"games", "store", "firmware_bridge", "gpiozero"}),
    "firmware_bridge": frozenset({"serial"}),
    "store": frozenset({"games", "tournaments", "protocol", "psycopg", "psycopg_pool"}),
    "webpanel": frozenset({"games", "tournaments", "store", "flask", "werkzeug", "jinja2", "markupsafe",
                           "waitress", "segno", "flask_babel", "babel", "protocol", "prometheus_client"}),
    "uplink": frozenset({"store", "protocol", "paho"}),
    "hautetension": EVERYTHING,
    CONFIG_LEAF: frozenset(),
    "protocol": frozenset(),
}
"""DESIGN §2's table, as docs/architecture.md spells it out (checked below): ``psycopg_pool``, psycopg 3's
pool, goes with ``psycopg``; ``uplink`` holds both ends of the event network's MQTT link (the board's
uplink and the event server's ingest); ``protocol``, the protocol leaf (the event network's wire format
and its bounded reader), imports only the standard library and the config leaf, and is imported by
``store``, ``uplink``, ``webpanel`` and the command; ``tournaments``, the pure tournament domain, imports
``games`` (and ``openskill`` for the rating) and is imported by ``store`` and ``webpanel``. ``tests`` and
``bench`` may import everything."""

NOT_CHECKED = ("firmware_bridge/firmware/",)
"""MicroPython code for the microcontroller: tests/firmware_bridge/test_framing.py checks its imports."""

STDLIB = frozenset(sys.stdlib_module_names)


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of *packages* under *root*: dotted name → file."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if not relative.startswith(NOT_CHECKED):
                modules[module_name(root, path)] = path
    return modules


def imports_of(name: str, path: Path, modules: Mapping[str, Path]) -> list[tuple[str, int]]:
    """Every module *name* imports, anywhere in its file, with the line: ``from a.b import c`` is the
    module ``a.b.c`` when there is one, else ``a.b``."""
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                target = ".".join(part for part in (base, alias.name) if part)
                found.append((target if target in modules else base, node.lineno))
    return found


def forbidden_imports(modules: Mapping[str, Path], allowed: Mapping[str, frozenset[str]]) -> list[str]:
    """Every import the table does not allow, as ``file:line: a imports b``."""
    problems = []
    for name, path in modules.items():
        package = name.split(".")[0]
        may = allowed[package]
        for target, line in imports_of(name, path, modules):
            top = target.split(".")[0]
            if top in STDLIB or top in (package, CONFIG_LEAF) or top in may or may is EVERYTHING:
                continue
            problems.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}: "
                            f"{package} may not import {target} (DESIGN §2)")
    return problems


def import_cycles(modules: Mapping[str, Path]) -> list[list[str]]:
    """Every group of modules that import each other, directly or around a loop (Tarjan)."""
    graph = {name: sorted({t for t, _ in imports_of(name, path, modules) if t in modules and t != name})
             for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return sorted(cycles)


MODULES = project_modules(ROOT, ALLOWED)


def test_every_package_of_the_table_is_checked() -> None:
    present = {name.split(".")[0] for name in MODULES}
    assert present == set(ALLOWED), "a package is missing from the table"
    assert len(MODULES) > 100


def documented_imports() -> dict[str, frozenset[str]]:
    """docs/architecture.md's table: package → the names its "may import" column gives in backticks
    (the standard library's left out)."""
    table: dict[str, frozenset[str]] = {}
    for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        package = re.fullmatch(r"`(\w+)/`", cells[0]) if len(cells) == 3 else None
        if package and package[1] in ALLOWED:
            names = {n for n in re.findall(r"`([\w.]+)`", cells[1]) if n not in STDLIB}
            table[package[1]] = EVERYTHING if cells[1] == "everything" else frozenset(names)
    return table


def test_the_architecture_page_states_the_imports_the_test_allows() -> None:
    assert documented_imports() == ALLOWED


def test_every_import_is_one_the_design_allows() -> None:
    assert forbidden_imports(MODULES, ALLOWED) == []


def test_no_module_imports_itself_around_a_loop() -> None:
    assert import_cycles(MODULES) == []


def test_only_the_command_package_reads_the_configuration_file() -> None:
    # Packages receive their settings; finding and parsing the file is the command's job.
    readers = sorted(
        f"{name}:{line}"
        for name, path in MODULES.items()
        if not name.startswith(("hautetension", CONFIG_LEAF))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == CONFIG_LEAF
        for alias in node.names
        if alias.name in ("load_config", "resolve_path") and (line := node.lineno)
    )
    assert readers == []


# -- the panel's areas ------------------------------------------------------------------------------

PANEL = "webpanel"

AREA_EXCEPTIONS: Mapping[str, frozenset[str]] = {}
"""Modules of the panel that may import an area not their own: module → those areas. None needs to:
``webpanel/app.py`` registers the areas by name (``BLUEPRINTS``, ``BOARD_ONLY``, ``EVENT_ONLY``: strings
it imports with :mod:`importlib` when it makes the app), and what areas share is in the core. An entry
here must be needed (checked below): the list stays exact."""


def panel_areas(root: Path) -> frozenset[str]:
    """The panel's areas: its sub-packages (``webpanel/<area>/__init__.py``)."""
    return frozenset(path.parent.name for path in (root / PANEL).glob("*/__init__.py"))


def area_of(name: str, areas: frozenset[str]) -> str | None:
    """The area a module of the panel belongs to; None for the panel's core (``webpanel/*.py``)."""
    parts = name.split(".")
    return parts[1] if parts[0] == PANEL and len(parts) > 1 and parts[1] in areas else None


def imports_across_areas(
    modules: Mapping[str, Path], areas: frozenset[str], exceptions: Mapping[str, frozenset[str]]
) -> list[str]:
    """Every import of an area by another area or by the core that *exceptions* do not allow, as
    ``file:line: …``; and every exception no import needs."""
    problems = []
    used: set[tuple[str, str]] = set()
    for name, path in modules.items():
        if name.split(".")[0] != PANEL:
            continue
        mine = area_of(name, areas)
        for target, line in imports_of(name, path, modules):
            theirs = area_of(target, areas)
            if theirs is None or theirs == mine:
                continue
            if theirs in exceptions.get(name, frozenset()):
                used.add((name, theirs))
                continue
            who = f"the area {mine}" if mine else f"the core module {name}"
            problems.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}: "
                            f"{who} may not import {target} (an area imports only the panel's core)")
    problems += [f"{name} needs no exception for the area {area}"
                 for name, allowed in exceptions.items()
                 for area in sorted(allowed) if (name, area) not in used]
    return problems


AREAS = panel_areas(ROOT)


def test_the_panel_has_its_areas() -> None:
    assert {"lobby", "event", "ranking", "tournaments", "replay", "table"} <= AREAS


def test_an_area_imports_only_the_panel_core_and_the_core_no_area() -> None:
    assert imports_across_areas(MODULES, AREAS, AREA_EXCEPTIONS) == []


def test_the_app_registers_every_area_by_name() -> None:
    # How the core reaches the areas without importing one: their names, imported when the app is made.
    tree = ast.parse((ROOT / PANEL / "app.py").read_text(encoding="utf-8"))
    named = {area_of(node.value.partition(":")[0], AREAS)
             for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert named >= AREAS


def test_the_architecture_page_names_every_area() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert [area for area in sorted(AREAS) if f"`webpanel/{area}/`" not in page] == []


# -- the checks themselves, on a small made-up project ------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    files = {
        "games/__init__.py": "",
        "games/rules.py": "from games import views\n",
        "games/views.py": "import typing\nif typing.TYPE_CHECKING:\n    from games.rules import R\n",
        "store/__init__.py": "",
        "store/db.py": "import sqlite3\n\ndef late():\n    from webpanel.app import x\n",
        "webpanel/__init__.py": "from . import app\n",
        "webpanel/app.py": "from .. import store\nimport flask\nimport gpiozero\n",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    return tmp_path


def test_the_checks_find_forbidden_imports_and_cycles_anywhere_in_a_file(project: Path) -> None:
    modules = project_modules(project, ["games", "store", "webpanel"])
    assert imports_of("webpanel", modules["webpanel"], modules) == [("webpanel.app", 1)]
    assert imports_of("webpanel.app", modules["webpanel.app"], modules)[0] == ("store", 1)
    allowed = {"games": frozenset(), "store": frozenset({"games"}), "webpanel": frozenset({"store", "flask"})}
    problems = forbidden_imports(modules, allowed)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "store may not import webpanel.app (DESIGN §2)",  # inside a function
        "webpanel may not import gpiozero (DESIGN §2)",
    ]
    assert import_cycles(modules) == [["games.rules", "games.views"]]  # through TYPE_CHECKING


@pytest.fixture
def panel(tmp_path: Path) -> Path:
    files = {
        "webpanel/__init__.py": "",
        "webpanel/app.py": 'BLUEPRINTS = ["webpanel.lobby:bp", "webpanel.event:bp"]\n',
        "webpanel/errors.py": "",
        "webpanel/refusals.py": "def text():\n    from webpanel.tournaments.words import error_text\n",
        "webpanel/lobby/__init__.py": "from webpanel import errors\nfrom webpanel.lobby import seats\n",
        "webpanel/lobby/seats.py": "",
        "webpanel/event/__init__.py": "from . import online\n",
        "webpanel/event/online.py": "import webpanel.errors\nimport webpanel.lobby.seats\n",
        "webpanel/ranking/__init__.py": "",
        "webpanel/ranking/season.py": "from webpanel.event import online\n",
        "webpanel/tournaments/__init__.py": "",
        "webpanel/tournaments/words.py": "",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    return tmp_path


def test_the_area_check_finds_an_area_imported_by_another_or_by_the_core(panel: Path) -> None:
    modules = project_modules(panel, [PANEL])
    areas = panel_areas(panel)
    assert areas == {"lobby", "event", "ranking", "tournaments"}
    assert [area_of(name, areas) for name in ("webpanel", "webpanel.app", "webpanel.lobby.seats")] == [
        None, None, "lobby"
    ]
    problems = [p.split(": ", 1)[1] for p in imports_across_areas(modules, areas, {})]
    assert problems == [
        "the area event may not import webpanel.lobby.seats (an area imports only the panel's core)",
        "the area ranking may not import webpanel.event.online (an area imports only the panel's core)",
        "the core module webpanel.refusals may not import webpanel.tournaments.words"
        " (an area imports only the panel's core)",  # inside a function
    ]
    allowed = {"webpanel.refusals": frozenset({"tournaments"}), "webpanel.app": frozenset({"lobby"})}
    assert [p.split(": ", 1)[-1] for p in imports_across_areas(modules, areas, allowed)] == [
        problems[0],
        problems[1],
        "webpanel.app needs no exception for the area lobby",  # it names the lobby, imports it not
    ]
