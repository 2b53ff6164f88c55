"""The crash-safe journal: one JSON line per accepted event, flushed and fsynced.

The first line names the players and rules; each later line is an event (``{"event": ...}``),
an undo (``{"event": "undo"}``) or a note (``{"note": ...}``, e.g. a game stored in the
database). Resuming folds the events again, so a game killed at any moment comes back exactly.
A half-written last line (a kill mid-write) is dropped.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.game.events import Event, event_from_dict, event_to_dict
from referee.game.match import Match
from referee.game.rules import Rules, rules_from_dict

FORMAT = 1


class JournalError(Exception):
    """The journal cannot be read or written; the message says what to do."""


@dataclass
class Resumed:
    match: Match
    header: dict[str, Any]
    notes: list[dict[str, Any]] = field(default_factory=list)
    dropped_tail: bool = False


class Journal:
    """An open journal file that accepted events are appended to."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _cut_half_line(self.path)
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as err:
            raise JournalError(f"cannot write the journal {self.path}: {err.strerror}") from None

    @classmethod
    def create(cls, path: Path, players: tuple[str, ...], rules: Rules, **meta: Any) -> Journal:
        """Start a new journal; an older one at ``path`` is kept beside it as ``.prev``."""
        path = Path(path)
        if path.exists() and path.stat().st_size:
            path.replace(path.with_name(path.name + ".prev"))
        journal = cls(path)
        started = datetime.now(UTC).isoformat(timespec="seconds")
        header = {"journal": FORMAT, "players": list(players), "rules": rules.to_dict(),
                  "started": started, **meta}  # fmt: skip
        journal._write(header)
        return journal

    def append(self, event: Event) -> None:
        self._write(event_to_dict(event))

    def append_undo(self) -> None:
        self._write({"event": "undo"})

    def note(self, **data: Any) -> None:
        self._write({"note": data})

    def _write(self, data: dict[str, Any]) -> None:
        try:
            self._file.write(json.dumps(data, separators=(",", ":")) + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as err:
            raise JournalError(f"cannot write the journal {self.path}: {err.strerror}") from None

    def close(self) -> None:
        self._file.close()


def _cut_half_line(path: Path) -> None:
    """Drop a last line left half-written by a kill, so new lines start clean."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)


def read_journal(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
    """Header, entries and whether a broken last line was dropped."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise JournalError(f"no journal to resume at {path}; start a game first") from None
    except (OSError, UnicodeDecodeError) as err:
        raise JournalError(f"cannot read the journal {path}: {err}") from None
    entries: list[dict[str, Any]] = []
    dropped = False
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            if number >= len(lines) - 1:  # the last line, cut short by a kill
                dropped = True
                break
            raise JournalError(f"the journal {path} is damaged at line {number}") from None
    if not entries or entries[0].get("journal") != FORMAT:
        raise JournalError(f"{path} is not a referee journal")
    return entries[0], entries[1:], dropped


def resume(path: Path) -> Resumed:
    """Fold a journal back into the match it recorded."""
    header, entries, dropped = read_journal(path)
    try:
        match = Match(header["players"], rules_from_dict(header["rules"]))
        notes = []
        for entry in entries:
            if "note" in entry:
                notes.append(entry["note"])
            elif entry.get("event") == "undo":
                match.undo()
            else:
                match.handle(event_from_dict(entry))
    except (KeyError, TypeError, ValueError) as err:
        raise JournalError(f"the journal {path} is damaged: {err}") from None
    return Resumed(match, header, notes, dropped)
