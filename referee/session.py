"""One refereed match as the outside world drives it: heard text and seen cards in,
announcements out, every accepted event journaled and every finished game recorded.

Both ``referee replay`` and the live referee open theirs with :func:`open` (a new match, or
the one a journal holds); the engine below knows none of it.

Journals: ``--journal PATH`` (or ``REFEREE_JOURNAL``) is one file; a new game there keeps
the game it held beside it (``game.20261202-205000.jsonl``). Without it, every match gets
its own file in the data folder's ``journals/``, named by its start, and ``--resume``
takes the latest whose last game is not over (the latest of all if every one is).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee import intents
from referee.errors import UserError
from referee.game.announce import Announcement
from referee.game.cards import Card
from referee.game.events import Call, Claim, Event, Name, NewGame, NewRound, Pass, Reveal, Verdict
from referee.game.match import QUERIES, Match
from referee.game.record import GameRecord
from referee.game.rules import Rules, rules_from
from referee.store.journal import (
    Contents,
    Journal,
    JournalError,
    Resumed,
    check_path,
    load,
    peek_header,
    resume,
)

Recorder = Callable[[GameRecord], None]

#: an evening says the same few phrases again and again; an Intent is a frozen value
_parse = functools.lru_cache(maxsize=4096)(intents.parse)


class Session:
    """A match plus its journal and score recorder."""

    def __init__(self, match: Match, journal: Journal | None = None,
                 recorder: Recorder | None = None, recorded: int = 0) -> None:  # fmt: skip
        self.match = match
        self.journal = journal
        self.recorder = recorder
        self.recorded = recorded

    @classmethod
    def start(cls, players: Sequence[str], rules: Rules, journal_path: Path | None = None,
              recorder: Recorder | None = None, **meta: object) -> Session:  # fmt: skip
        match = Match(list(players), rules)
        journal = (
            Journal.create(journal_path, match.players, rules, **meta) if journal_path else None
        )
        return cls(match, journal, recorder)

    @classmethod
    def resume(
        cls,
        journal_path: Path,
        recorder: Recorder | None = None,
        contents: Contents | None = None,
        resumed: Resumed | None = None,
    ) -> Session:
        """The match a journal holds, appended to from here on (``contents`` and
        ``resumed``, when given, are that journal already read and folded)."""
        contents = contents or load(journal_path)
        resumed = resumed or resume(journal_path, contents)
        stored = {n.get("stored") for n in resumed.notes if "stored" in n}
        session = cls(resumed.match, Journal(journal_path, contents), recorder)
        session.recorded = 0
        session._record_finished(already=stored)
        return session

    @property
    def state(self):  # noqa: ANN201 - State, kept loose for callers
        return self.match.state

    @property
    def players(self) -> tuple[str, ...]:
        return self.match.players

    def opening(self) -> list[Announcement]:
        """What to say first: the deal of a new match, or where a resumed one stands."""
        if self.match.events:
            back = Announcement(f"Back to game {self.state.game}.", "resume")
            return [back, *self.match.status()]
        return list(self.match.opening_said)

    def hear(self, text: str, t: float | None = None) -> list[Announcement]:
        """React to an utterance (already recognized as text)."""
        return self.act(_parse(text, self.players), t, heard=text)

    def act(self, intent: intents.Intent, t: float | None = None,
            heard: str = "") -> list[Announcement]:  # fmt: skip
        kind = intent.type
        if kind == "claim":
            return self.submit(Claim(intent.count or 0, intent.rank or "A", t=t))
        if kind == "call":
            if self.state.phase == "who_called" and intent.caller:
                return self.submit(Name(intent.caller, t=t))  # the caller named late
            return self.submit(Call(intent.caller, intent.target, t=t))
        if kind == "pass":
            return self.submit(Pass(t=t))
        if kind == "verdict":
            return self.submit(Verdict(bool(intent.honest), t=t))
        if kind == "name":
            if self.state.phase != "who_called":
                return []
            return self.submit(Name(intent.name or "", t=t))
        if kind == "command":
            return self.command(intent.command or "", t)
        if kind == "count":
            return [Announcement(f"{heard or intent.count}, what? Say the count and the rank.",
                                 "unknown")]  # fmt: skip
        shown = f' "{heard}"' if heard else ""
        return [Announcement(f"Sorry, I didn't catch{shown}.", "unknown")]

    def command(self, command: str, t: float | None = None) -> list[Announcement]:
        if command == "undo":
            said = self.match.undo()
            if said[0].kind == "undo" and self.journal:
                self.journal.append_undo()
            return said
        if command == "new_game":
            return self.submit(NewGame(t=t))
        if command == "new_round":
            return self.submit(NewRound(t=t))
        if command in QUERIES:
            return self.match.query(command)
        return [Announcement(f"I don't know how to {command}.", "unknown")]

    def see(self, cards: Sequence[Card], t: float | None = None) -> list[Announcement]:
        return self.submit(Reveal(tuple(cards), t=t))

    def submit(self, event: Event) -> list[Announcement]:
        outcome = self.match.handle(event)
        said = list(outcome.said)
        if outcome.accepted:
            if self.journal:
                self.journal.append(event)
            if self._record_finished():
                standing = getattr(self.recorder, "standing", None)
                if standing is not None:
                    said.append(Announcement(standing(), "match_standing"))
        return said

    def _record_finished(self, already: set | None = None) -> bool:
        """Hand every newly finished game to the recorder, and note it in the journal."""
        records = self.state.records
        fresh = self.recorded < len(records)
        while self.recorded < len(records):
            record = records[self.recorded]
            if self.recorder and record.game not in (already or set()):
                self.recorder(record)
                if self.journal:
                    self.journal.note(stored=record.game)
            self.recorded += 1
        return fresh

    def close(self) -> None:
        if self.journal:
            self.journal.close()


# --- opening a session: players, journal, recorder ----------------------------------------


def _tell(message: str) -> None:
    print(f"referee: {message}", file=sys.stderr, flush=True)


_KINDS = {"claim": "a claim", "call": "a call", "command": "a command", "pass": "a pass",
          "verdict": "a verdict", "count": "a count", "name": "a name"}  # fmt: skip


def parse_players(players: str | Sequence[str]) -> tuple[str, ...]:
    """The seated names, clockwise; refused (:class:`UserError`) when one is empty, could
    never be heard, or is a word of the game ("undo, cheat" would be taken as undo)."""
    names = players.split(",") if isinstance(players, str) else list(players)
    shown = players if isinstance(players, str) else ",".join(players)
    seated: list[str] = []
    for seat, raw in enumerate(names, 1):
        name = raw.strip()
        if not name:
            raise UserError(f"player {seat} of {shown!r} has no name: name every player, "
                            "e.g. --players Alice,Ben,Cara")  # fmt: skip
        if not intents.normalize(name):
            raise UserError(f"the referee could never hear the name {name!r}: give player "
                            f"{seat} a name in letters or digits")  # fmt: skip
        kind = intents.parse(name).type
        if kind != "unknown":
            raise UserError(f"{name!r} is a word of the game ({_KINDS.get(kind, kind)}), so a "
                            f"call naming that player would be taken for it: give player "
                            f"{seat} another name")  # fmt: skip
        seated.append(name)
    return tuple(seated)


@dataclass(frozen=True)
class Saved:
    """A journal in the data folder: the match it holds, for ``--resume --list``."""

    path: Path
    started: str
    players: tuple[str, ...]
    game: int | None = None
    events: int | None = None
    finished: bool | None = None
    problem: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"journal": str(self.path), "started": self.started,
                "players": list(self.players), "game": self.game, "events": self.events,
                "finished": self.finished, "problem": self.problem}  # fmt: skip

    def describe(self) -> str:
        when = self.started[:16].replace("T", " ")
        where = f"{', '.join(self.players)}, started {when} UTC"
        if self.problem:
            return f"{where}: cannot be resumed ({self.problem})  {self.path}"
        status = "over" if self.finished else "unfinished"
        events = f"{self.events} event{'' if self.events == 1 else 's'}"
        return f"{where}: game {self.game} {status}, {events}  {self.path}"


def _stamp(started: str) -> str:
    return datetime.fromisoformat(started).astimezone(UTC).strftime("%Y%m%d-%H%M%S-%f")


def _new_journal_path(started: str) -> Path:
    from referee.paths import journals_dir

    folder = journals_dir()
    path = folder / f"{_stamp(started)}.jsonl"
    number = 2
    while path.exists():
        path = folder / f"{_stamp(started)}-{number}.jsonl"
        number += 1
    return path


def _saved_journals() -> list[tuple[str, Path, dict[str, Any] | None]]:
    """(start, path, header) of every journal in the data folder, the latest first (header
    None: the first line is not a referee journal's)."""
    from referee.paths import legacy_journal

    folder, legacy = journals_folder(), legacy_journal()
    paths = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if legacy.is_file():
        paths.append(legacy)
    found = []
    for path in paths:
        header = peek_header(path)
        started = header.get("started") if header else None
        if not isinstance(started, str):
            started = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat()
        found.append((started, path, header))
    return sorted(found, key=lambda item: item[:2], reverse=True)


def saved(journal: Path | None = None, limit: int = 20) -> list[Saved]:
    """What ``--resume`` can continue, the latest first, each folded to see where it stands:
    the data folder's journals, or ``journal`` and the earlier games kept beside it."""
    if journal is None:
        found = _saved_journals()[:limit]
    else:
        kept = sorted(journal.parent.glob(f"{journal.stem}.*{journal.suffix or '.jsonl'}"))
        paths = [journal, *reversed(kept)] if journal.is_file() else list(reversed(kept))
        found = []
        for path in paths[:limit]:
            header = peek_header(path)
            found.append((str((header or {}).get("started", "")), path, header))
    listed = []
    for started, path, header in found:
        players = tuple((header or {}).get("players") or ())
        try:
            match = resume(path).match
        except JournalError as err:
            listed.append(Saved(path, started, players, problem=str(err)))
            continue
        listed.append(Saved(path, started, players, match.state.game, len(match.events),
                            match.state.phase == "over"))  # fmt: skip
    return listed


def _pick(wanted: list[str] | None, tell: Callable[[str], None]) -> tuple[Path, Contents, Resumed]:
    """The latest unfinished match of the data folder (of ``wanted`` players, if named)."""
    journals = _saved_journals()
    fallback: tuple[Path, Contents, Resumed] | None = None
    for _started, path, header in journals:
        if header is None or (wanted and list(header["players"]) != wanted):
            continue
        try:
            contents = load(path)
            resumed = resume(path, contents)
        except JournalError as err:
            tell(f"skipping {err}")
            continue
        if resumed.match.state.phase != "over":
            chosen = (path, contents, resumed)
            break
        fallback = fallback or (path, contents, resumed)
    else:
        if fallback is None:
            whose = f" of {', '.join(wanted)}" if wanted else ""
            raise JournalError(f"no game{whose} to resume in {journals_folder()}; "
                               "start one with --players")  # fmt: skip
        chosen = fallback
    if len(journals) > 1:
        tell(f"resuming the game of {', '.join(chosen[2].match.players)} in {chosen[0]}; "
             "`referee play --resume --list` lists the others")  # fmt: skip
    return chosen


def journals_folder() -> Path:
    from referee.paths import data_dir

    return data_dir() / "journals"


def open(  # noqa: A001 - referee.session.open, as agreed between the callers
    players: str | Sequence[str] | None = None,
    *,
    rules: str = "classic",
    settings: Sequence[str] = (),
    journal: str | os.PathLike[str] | None = None,
    resume: bool = False,
    db: str | os.PathLike[str] | None = None,
    scoring: str = "wins",
    record: bool = True,
    source: str = "referee",
    tell: Callable[[str], None] = _tell,
) -> Session:
    """A new match of ``players``, or with ``resume`` the one a journal holds.

    ``journal`` (else ``REFEREE_JOURNAL``) names one file; without either a new match gets its
    own file in the data folder and ``resume`` takes the latest unfinished one there (of
    ``players``, when they are named). ``record``: hand finished games to the score database
    ``db`` (None: the default one) under ``scoring``. Everything a user can get wrong is a
    :class:`UserError`; ``tell`` hears what the user should know (an earlier game kept).
    """
    from referee.paths import journal_env

    path = Path(journal) if journal is not None else journal_env()
    try:
        if path is not None:
            check_path(path)
        if resume:
            return _resume(players, path, db, scoring, record, tell)
        return _start(players, rules, settings, path, db, scoring, record, source)
    except (ValueError, JournalError) as err:  # a scoring table, rules, players, the journal
        raise UserError(str(err)) from None


Players = str | Sequence[str] | None
Db = str | os.PathLike[str] | None


def _recorder(record: bool, db: Db, players: Sequence[str], rules: dict, scoring: str,
              key: str | None) -> Recorder | None:  # fmt: skip
    if not record:
        return None
    from referee.store import open_recorder

    return open_recorder(db, players, rules, scoring, key=key)


def _resume(players: Players, path: Path | None, db: Db, scoring: str, record: bool,
            tell: Callable[[str], None]) -> Session:  # fmt: skip
    if isinstance(players, str):
        wanted, shown = [p.strip() for p in players.split(",")], players
    else:
        wanted, shown = (list(players) if players else None), ",".join(players or ())
    if path is None:
        path, contents, resumed = _pick(wanted, tell)
    else:
        contents = load(path)
        resumed = resume(path, contents)
    header = contents.header
    if wanted and wanted != list(resumed.match.players):
        raise UserError(f"the journal is a game of {', '.join(resumed.match.players)}, "
                        f"not {shown}")  # fmt: skip
    recorder = _recorder(record, db, tuple(header["players"]), header["rules"],
                         header.get("scoring", scoring), header.get("started"))  # fmt: skip
    return Session.resume(path, recorder, contents, resumed)


def _start(players: Players, rules: str, settings: Sequence[str], path: Path | None, db: Db,
           scoring: str, record: bool, source: str) -> Session:  # fmt: skip
    if not players:
        raise UserError("name the players: --players Alice,Ben,Cara")
    names = parse_players(players)
    table_rules = rules_from(rules, list(settings))
    started = datetime.now(UTC).isoformat(timespec="microseconds")
    recorder = _recorder(record, db, names, table_rules.to_dict(), scoring, started)
    return Session.start(names, table_rules, path or _new_journal_path(started), recorder,
                         started=started, scoring=scoring, source=source)  # fmt: skip
