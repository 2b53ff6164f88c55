"""The crash-safe journal: one JSON line per accepted event, written before it is announced.

The first line names the players and rules; each later line is an event (``{"event": ...}``),
an undo (``{"event": "undo"}``) or a note (``{"note": ...}``, e.g. a game stored in the
database). Resuming folds the events again, so a game killed at any moment comes back exactly.

Format 2 (format 1, without checksums, is still read and appended to as it was): every line
ends in ``"h"``, the first 16 hex digits of the SHA-256 of the line before's ``"h"`` and this
line without it, a hash chain. A line changed by hand (or by a failing disk), or a line
taken out, is named as such, never folded into a silently different game.

Every line is flushed as it is written, so a killed process loses nothing; it is fsynced at
once unless lines come faster than :data:`SYNC_INTERVAL_S` apart (a replay from a file),
then with the next line after that, and at close. A last line that is damaged (a kill
mid-write, a full disk) is left out on resume, and moved to ``<journal>.damaged`` before
anything is appended, so the journal stays whole for the next resume.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.errors import warn
from referee.game.cards import RANKS
from referee.game.events import EVENT_TYPES, Event, event_from_dict, event_to_dict
from referee.game.match import Match
from referee.game.rules import Rules, rules_from_dict

FORMAT = 2
FORMATS = (1, 2)
#: no line of a journal is longer; a longer one is damage (or not a journal at all)
MAX_LINE = 1 << 20
SYNC_INTERVAL_S = 0.25


class JournalError(Exception):
    """The journal cannot be read or written; the message says what to do."""


@dataclass
class Contents:
    """What a journal file holds, checked line by line."""

    path: Path
    header: dict[str, Any]
    #: entries after the header, without their checksums
    entries: list[dict[str, Any]] = field(default_factory=list)
    #: the line number of each entry
    numbers: list[int] = field(default_factory=list)
    format: int = FORMAT
    #: the last line's "h" (format 2), which the next line's checksum continues
    chain: str = ""
    #: bytes of the whole lines kept; the file is cut here before appending
    size: int = 0
    #: the damaged last line left out (b"" when none) and its number
    tail: bytes = b""
    tail_line: int | None = None
    #: whether the last line kept lacks its newline (a kill between the two writes)
    unterminated: bool = False


@dataclass
class Resumed:
    match: Match
    header: dict[str, Any]
    notes: list[dict[str, Any]] = field(default_factory=list)
    dropped_tail: bool = False


def check_path(path: Path) -> None:
    """Refuse what cannot be a journal file: a folder, a device, a pipe."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise JournalError(f"cannot use the journal {path}: {err.strerror}") from None
    if stat.S_ISDIR(mode):
        raise JournalError(f"the journal {path} is a folder; give a file name, "
                           f"e.g. --journal {Path(path) / 'game.jsonl'}")  # fmt: skip
    if not stat.S_ISREG(mode):
        raise JournalError(f"the journal {path} is not a regular file (a device or a pipe?)")


def _chain(previous: str, body: str) -> str:
    return hashlib.sha256((previous + body).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))


def _header_problem(header: Any) -> str | None:
    if not isinstance(header, dict) or header.get("journal") not in FORMATS:
        return "is not a referee journal"
    players = header.get("players")
    if (
        not isinstance(players, list)
        or len(players) < 2
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        return "is a referee journal whose first line names no players (it is damaged)"
    if not isinstance(header.get("rules"), dict):
        return "is a referee journal whose first line has no rules (it is damaged)"
    return None


def load(path: Path) -> Contents:
    """Read and check a journal: its header, its entries, and a damaged last line if any."""
    path = Path(path)
    check_path(path)
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise JournalError(f"no journal to resume at {path}; start a game first") from None
    except OSError as err:
        raise JournalError(f"cannot read the journal {path}: {err.strerror}") from None
    contents: Contents | None = None
    bad: tuple[int, str, int] | None = None  # (line, why, offset) of a line that failed
    offset = 0
    with stream:
        for number, raw in enumerate(iter(lambda: stream.readline(MAX_LINE + 1), b""), 1):
            start, offset = offset, offset + len(raw)
            if len(raw) > MAX_LINE:
                raise JournalError(f"the journal {path} is damaged at line {number} "
                                   f"(longer than {MAX_LINE} bytes)")  # fmt: skip
            if not raw.strip():
                continue
            if bad is not None:  # a damaged line with more after it is not a cut-off end
                raise JournalError(f"the journal {path} is damaged at line {bad[0]} ({bad[1]})")
            try:
                entry = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError:
                bad = (number, "not UTF-8 text", start)
                continue
            except (ValueError, RecursionError):
                bad = (number, "not JSON", start)
                continue
            if contents is None:
                problem = _header_problem(entry)
                if problem:
                    raise JournalError(f"{path} {problem}")
                contents = Contents(path, entry, format=entry["journal"])
            elif not isinstance(entry, dict):
                bad = (number, "not a JSON object", start)
                continue
            if contents.format >= 2:
                given = entry.pop("h", None)
                if given != _chain(contents.chain, _dumps(entry)):
                    raise JournalError(
                        f"line {number} of the journal {path} was changed after it was written "
                        "(its checksum does not match; a line edited, added or taken out): "
                        "it cannot be resumed as it is"
                    )
                contents.chain = given
            if entry is not contents.header:
                contents.entries.append(entry)
                contents.numbers.append(number)
            contents.size = offset
            contents.unterminated = not raw.endswith(b"\n")
    if contents is None:
        raise JournalError(f"{path} is not a referee journal (it holds no game)")
    if bad is not None:
        with open(path, "rb") as stream:
            stream.seek(bad[2])
            contents.tail = stream.read(MAX_LINE + 1)
        contents.tail_line = bad[0]
        contents.size = bad[2]
        contents.unterminated = False
    return contents


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


#: what each field of an event may hold (a journal line is checked before the engine sees it)
_FIELDS = {
    "t": lambda v: v is None or _number(v),
    "count": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "rank": lambda v: isinstance(v, str) and v in RANKS,  # the engine names it in refusals
    "caller": lambda v: v is None or isinstance(v, str),
    "target": lambda v: v is None or isinstance(v, str),
    "name": lambda v: isinstance(v, str),
    "honest": lambda v: isinstance(v, bool),
    "cards": lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v),
}


def checked_event(data: dict[str, Any]) -> Event:
    """The event a journal (or transcript) line describes; ``ValueError`` says what is wrong."""
    kind = data.get("event")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise ValueError(f"unknown event {kind!r}")
    for key, value in data.items():
        if key != "event" and (key not in _FIELDS or not _FIELDS[key](value)):
            raise ValueError(f"{kind} cannot have {key}={value!r}")
    try:
        return event_from_dict(data)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{kind}: {err}") from None


def resume(path: Path, contents: Contents | None = None) -> Resumed:
    """Fold a journal back into the match it recorded."""
    contents = contents or load(path)
    header = contents.header
    try:
        match = Match(header["players"], rules_from_dict(header["rules"]))
    except (KeyError, TypeError, ValueError) as err:
        raise JournalError(f"the journal {path} is damaged at line 1: {err}") from None
    notes = []
    for number, entry in zip(contents.numbers, contents.entries, strict=True):
        try:
            if "note" in entry:
                if not isinstance(entry["note"], dict):
                    raise ValueError("a note must be an object")
                notes.append(entry["note"])
            elif entry.get("event") == "undo":
                match.undo()
            else:
                match.handle(checked_event(entry))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
            raise JournalError(f"the journal {path} is damaged at line {number}: {err}") from None
    return Resumed(match, header, notes, bool(contents.tail))


def peek_header(path: Path) -> dict[str, Any] | None:
    """The first line of a journal file if it is a referee journal's header, else None."""
    try:
        with open(path, "rb") as stream:
            header = json.loads(stream.readline(MAX_LINE).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return header if _header_problem(header) is None else None


def archive_name(path: Path) -> Path:
    """A free sibling name for an older game's journal: ``game.20261202-205000.jsonl``."""
    stamp = datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y%m%d-%H%M%S")
    started = (peek_header(path) or {}).get("started")
    try:
        if isinstance(started, str):
            stamp = datetime.fromisoformat(started).astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    except ValueError:
        pass
    suffix = path.suffix or ".jsonl"
    candidate = path.with_name(f"{path.stem}.{stamp}{suffix}")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}.{stamp}-{number}{suffix}")
        number += 1
    return candidate


class Journal:
    """An open journal file that accepted events are appended to."""

    def __init__(self, path: Path, contents: Contents | None = None,
                 sync_interval: float = SYNC_INTERVAL_S) -> None:  # fmt: skip
        self.path = Path(path)
        self.sync_interval = sync_interval
        check_path(self.path)
        if contents is None and self.path.exists() and self.path.stat().st_size:
            contents = load(self.path)
        self.format = contents.format if contents else FORMAT
        self._chain = contents.chain if contents else ""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if contents is not None and contents.tail:
                self._set_aside(contents)
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            if contents is not None and contents.unterminated:
                self._file.write("\n")
        except OSError as err:
            raise JournalError(f"cannot write the journal {self.path}: {err.strerror}") from None
        self._synced = 0.0
        self._unsynced = False

    def _set_aside(self, contents: Contents) -> None:
        """Move a damaged last line out of the journal, into ``<journal>.damaged``."""
        aside = self.path.with_name(self.path.name + ".damaged")
        with open(aside, "ab") as f:
            f.write(contents.tail if contents.tail.endswith(b"\n") else contents.tail + b"\n")
            f.flush()
            os.fsync(f.fileno())
        with open(self.path, "r+b") as f:
            f.truncate(contents.size)
        warn(f"line {contents.tail_line} of the journal {self.path} was damaged (cut short by "
             f"a crash?); it is left out of the game and moved to {aside}")  # fmt: skip

    @classmethod
    def create(cls, path: Path, players: tuple[str, ...], rules: Rules, **meta: Any) -> Journal:
        """Start a new journal; a game already at ``path`` is kept beside it (see
        :func:`archive_name`), never overwritten."""
        path = Path(path)
        check_path(path)
        if path.exists() and path.stat().st_size:
            if peek_header(path) is None:
                raise JournalError(f"{path} is not a referee journal; it is left as it is: "
                                   "give the new game another --journal")  # fmt: skip
            kept = archive_name(path)
            try:
                path.rename(kept)
            except OSError as err:
                why = err.strerror
                raise JournalError(f"cannot keep the older game in {path}: {why}") from None
            warn(f"the journal {path} held an earlier game: kept as {kept}")
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
        line = _dumps(data)
        if self.format >= 2:  # the same as _dumps({**data, "h": ...}), without dumping twice
            self._chain = _chain(self._chain, line)
            line = f'{line[:-1]},"h":"{self._chain}"}}'
        try:
            self._file.write(line + "\n")
            self._file.flush()
            now = time.monotonic()
            if now - self._synced >= self.sync_interval:
                os.fsync(self._file.fileno())
                self._synced, self._unsynced = now, False
            else:
                self._unsynced = True
        except OSError as err:
            raise JournalError(f"cannot write the journal {self.path}: {err.strerror}") from None

    def close(self) -> None:
        if self._file.closed:
            return
        try:
            if self._unsynced:
                self._file.flush()
                os.fsync(self._file.fileno())
        except OSError as err:
            raise JournalError(f"cannot write the journal {self.path}: {err.strerror}") from None
        finally:
            self._file.close()
