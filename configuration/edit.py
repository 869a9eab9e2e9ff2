"""Editing the configuration file in place: one table replaced, every other byte kept as it was.

The file is the board builder's: comments, blank lines, key order and the
layout of every other section are theirs. An edit therefore works on lines
(as ``hautetension staff set-pin`` does for ``[panel] staff_pin_hash``): it
replaces the lines of one table and nothing else, then parses the result
with :mod:`tomllib` and refuses it (:class:`ConfigError`, "edit it by hand")
unless the file now says exactly what it said before with that one table
changed. The new text is written atomically (a temporary file in the same
folder, flushed to disk, renamed over the old one) with the old file's mode
and owner; :func:`back_up` keeps a copy of the old file first.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from configuration.exc import ConfigError

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\[\]#]+?)\s*\]\]?\s*(#.*)?$")
"""A table header line, ``[name]`` or ``[[name]]``, with an optional comment."""


def _table_name(raw: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in raw.split("."))


def replace_table(text: str, name: str, body: Sequence[str]) -> str:
    """*text* with the table ``[name]`` (and its sub-tables) holding exactly the lines *body*
    (keys and comments: a comment there is replaced with the table the next time).

    Its lines are replaced where the table stood (the first of its sub-tables, if it had only
    those); without one, the table is added at the end of the file. The file's line ending is
    kept. Raises :class:`ConfigError` when the table is written another way (inline or with
    dotted keys in its parent table) or when the result would not say exactly what *text* said
    with that table changed.
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    key = _table_name(name)
    old = _parse(text, "the file as it is")
    lines = text.splitlines(keepends=True)
    block = [f"[{name}]{newline}"] + [line + newline for line in body]
    regions = _regions(lines, key)
    if regions:
        first = regions[0][0]
        for start, end in reversed(regions):
            del lines[start:end]
        lines[first:first] = block
    else:
        if _get(old, key) is not None:
            raise ConfigError(f"[{name}] is written inline or with dotted keys in its parent table: "
                              f"make it a [{name}] table (or delete it), then try again")
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += newline
        lines += ([newline] if lines and lines[-1].strip() else []) + block
    new_text = "".join(lines)
    expected = _with(old, key, _get(_parse("".join(block), f"the new [{name}]"), key))
    if _parse(new_text, "the edited file") != expected:
        raise ConfigError(f"cannot set [{name}] without changing something else in the file; "
                          "edit it by hand")
    return new_text


def _regions(lines: list[str], key: tuple[str, ...]) -> list[tuple[int, int]]:
    """The line ranges of ``[key]`` and its sub-tables: header to last key line (blank lines and
    comments after it stay: they set the next table apart, or speak of it)."""
    headers = [(i, m) for i, line in enumerate(lines) if (m := _HEADER.match(line))]
    regions = []
    for n, (start, match) in enumerate(headers):
        name = _table_name(match.group(2))
        if name[:len(key)] != key:
            continue
        if match.group(1) == "[[":
            raise ConfigError(f"[[{match.group(2)}]] is an array of tables: the edit cannot replace "
                              "it safely; edit the file by hand")
        end = headers[n + 1][0] if n + 1 < len(headers) else len(lines)
        while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
            end -= 1
        regions.append((start, end))
    return regions


def _parse(text: str, what: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{what} is not valid TOML ({exc}); edit it by hand") from None


def _get(data: dict[str, Any], key: tuple[str, ...]) -> Any:
    for part in key:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def _with(data: dict[str, Any], key: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of *data* with *value* at *key*."""
    result = dict(data)
    node = result
    for part in key[:-1]:
        node[part] = dict(node.get(part, {}))
        node = node[part]
    node[key[-1]] = value
    return result


def back_up(path: Path, *, clock: Any = time) -> Path:
    """Copy *path* beside it as ``NAME.bak-YYYYMMDD-HHMMSS`` (mode kept; never over an older backup)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", clock.localtime())
    backup = path.with_name(f"{path.name}.bak-{stamp}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}.bak-{stamp}-{n}")
    shutil.copy2(path, backup)
    return backup


def write_atomically(path: Path, text: str, *, mode: int | None = None,
                     owner: tuple[int, int] | None = None) -> None:
    """Replace *path* with *text* in one rename, flushed to disk first.

    An existing file keeps its mode and owner unless *mode* / *owner* say otherwise (a
    ``root:hautetension 0640`` configuration must stay readable by the services' group); a new
    file gets *mode* (default 0600)."""
    if path.exists():
        st = path.stat()
        mode = st.st_mode & 0o777 if mode is None else mode
        owner = (st.st_uid, st.st_gid) if owner is None else owner
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600 if mode is None else mode)
        if owner is not None and (os.stat(tmp).st_uid, os.stat(tmp).st_gid) != owner:
            os.chown(tmp, *owner)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (a power cut must not bring the old file back)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
