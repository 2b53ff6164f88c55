"""The match history in SQLite: players, matches, and every finished game.

One file, WAL mode, a busy timeout so two referees (or a referee and ``referee scores``)
can share it. The schema is versioned with ``PRAGMA user_version`` and upgraded by the
numbered scripts in ``migrations/`` when a store is opened. Every database failure a
user can meet comes out as :class:`StoreError` with a message saying what to do.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from referee.errors import UserError
from referee.game.record import GameRecord
from referee.store.scoring import parse_scoring

ENV_VAR = "REFEREE_DB"
DB_FILENAME = "scores.db"
DEFAULT_TIMEOUT_S = 5.0

_STAT_COLUMNS = (
    "calls_made",
    "calls_won",
    "calls_lost",
    "caught_lying",
    "wrongly_called",
    "unchallenged_false_cards_seen",
)


class StoreError(UserError):
    """The score database cannot be used; the message says why and what to do.

    A subclass of :class:`referee.errors.UserError`, so a subcommand that lets it through
    prints the message, not a traceback.
    """


@dataclass(frozen=True)
class MatchInfo:
    """One match as stored: seat order, house rules and scoring chosen at the start."""

    id: int
    started_at: str
    players: tuple[str, ...]
    rules: dict[str, Any] = field(default_factory=dict)
    scoring: str = "wins"
    games: int = 0
    key: str | None = None


def default_db_path() -> Path:
    """``$REFEREE_DB`` if set, else ``scores.db`` in the referee's data directory
    (``$REFEREE_DATA_DIR``, else the platform's user data folder)."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    from referee.paths import data_dir

    return data_dir() / DB_FILENAME


def resolve_db_path(path: str | os.PathLike[str] | None = None) -> Path:
    """``--db PATH`` wins over ``$REFEREE_DB``, which wins over the default location."""
    return Path(path).expanduser() if path else default_db_path()


def migrations() -> list[tuple[int, str, str]]:
    """``(version, file name, sql)`` for every script in ``migrations/``, oldest first."""
    found = []
    for entry in resources.files("referee.store").joinpath("migrations").iterdir():
        match = re.fullmatch(r"(\d{4})_\w+\.sql", entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..N without gaps, got {versions}")
    return found


SCHEMA_VERSION = len(migrations())


class Store:
    """An open score database. Use :meth:`open`; close it (or use ``with``) when done."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def open(
        cls, path: str | os.PathLike[str] | None = None, *, timeout: float | None = None
    ) -> Store:
        """Open (creating if needed) and upgrade the database at ``path``.

        ``path`` ``None`` means ``$REFEREE_DB`` or the user's data directory. ``timeout``
        is how long to wait for another writer before saying the file is locked (default
        :data:`DEFAULT_TIMEOUT_S`).
        """
        timeout = DEFAULT_TIMEOUT_S if timeout is None else timeout
        db_path = resolve_db_path(path)
        if db_path.is_dir():
            raise StoreError(
                f"The score database path {db_path} is a folder. Give a file name, "
                f"e.g. --db {db_path / DB_FILENAME}."
            )
        try:
            db_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(
                f"Cannot create the folder for the score database {db_path}: "
                f"{err.strerror or err}. Choose a writable place with --db PATH or {ENV_VAR}."
            ) from err
        store = None
        try:
            conn = sqlite3.connect(db_path, timeout=timeout, isolation_level=None)
            store = cls(conn, db_path)
            with store._errors("open it"):
                conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
                conn.execute("PRAGMA foreign_keys = ON")
                _use_wal(conn, timeout)
                conn.execute("PRAGMA synchronous = FULL")
                store._migrate()
        except sqlite3.Error as err:
            if store is not None:
                store.close()
            raise _store_error(err, db_path, "open") from err
        except BaseException:
            if store is not None:
                store.close()
            raise
        return store

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return self._conn.execute("PRAGMA user_version").fetchone()[0]

    def _migrate(self) -> None:
        if self.schema_version == SCHEMA_VERSION:
            return
        with self._transaction("upgrade"):
            version = self.schema_version  # again, now that we hold the write lock
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"The score database {self.path} was written by a newer referee (schema "
                    f"v{version}, this one knows v{SCHEMA_VERSION}). Upgrade referee, or use "
                    "another file with --db PATH."
                )
            if version == 0:
                tables = self._conn.execute(
                    "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
                ).fetchall()
                if tables:
                    raise StoreError(
                        f"{self.path} is an SQLite file of some other program, not a referee "
                        "score database. Point --db / REFEREE_DB at another file."
                    )
            for number, _name, sql in migrations():
                if number > version:
                    for statement in _statements(sql):
                        self._conn.execute(statement)
                    self._conn.execute(f"PRAGMA user_version = {number}")

    # -- writing -------------------------------------------------------------------------

    def start_match(
        self,
        players: Sequence[str],
        rules: dict[str, Any] | None = None,
        scoring: str = "wins",
        *,
        key: str | None = None,
        started_at: datetime | None = None,
    ) -> int:
        """Record a new match (players in seat order) and return its id.

        With a ``key`` (e.g. the journal's start stamp) the call is idempotent: a match
        already stored under that key is returned as it is, so a resumed referee keeps
        recording into the same match.
        """
        players = list(players)
        if not players or len(set(players)) != len(players):
            raise ValueError(f"a match needs distinct players, got {players}")
        scoring_name = parse_scoring(scoring).name
        when = (started_at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
        rules_json = json.dumps(rules or {}, sort_keys=True)
        with self._transaction("start a match"):
            if key is not None:
                row = self._conn.execute("SELECT id FROM matches WHERE key = ?", (key,)).fetchone()
                if row is not None:
                    return int(row[0])
            cur = self._conn.execute(
                "INSERT INTO matches (started_at, rules, scoring, key) VALUES (?, ?, ?, ?)",
                (when, rules_json, scoring_name, key),
            )
            match_id = int(cur.lastrowid)
            for seat, name in enumerate(players):
                self._conn.execute(
                    "INSERT INTO match_players (match_id, seat, player_id) VALUES (?, ?, ?)",
                    (match_id, seat, self._player_id(name)),
                )
        return match_id

    def record_game(self, match_id: int, record: GameRecord) -> bool:
        """Store one finished game in one transaction; ``True`` if anything was written.

        Idempotent per (match, game number): recording the same game again (a resumed
        journal) changes nothing and returns ``False``; a different record for the same
        number replaces the stored one (the journal is the truth). On :class:`StoreError`
        nothing of the game is stored: keep the journal and try again.
        """
        _check_record(record)
        record = normalized(record)
        with self._transaction("record a game"):
            if not self._conn.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone():
                raise StoreError(f"There is no match {match_id} in {self.path}.")
            row = self._conn.execute(
                "SELECT id FROM games WHERE match_id = ? AND number = ?", (match_id, record.game)
            ).fetchone()
            if row is not None:
                if self._read_game(row[0]) == record:
                    return False
                self._conn.execute("DELETE FROM pickups WHERE game_id = ?", (row[0],))
                self._conn.execute("DELETE FROM game_players WHERE game_id = ?", (row[0],))
                self._conn.execute("DELETE FROM games WHERE id = ?", (row[0],))
            self._insert_game(match_id, record)
        return True

    def _insert_game(self, match_id: int, record: GameRecord) -> None:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        winner_id = self._player_id(record.winner) if record.winner else None
        cur = self._conn.execute(
            "INSERT INTO games (match_id, number, winner_id, recorded_at, all_plays_seen)"
            " VALUES (?, ?, ?, ?, ?)",
            (match_id, record.game, winner_id, now, int(record.all_plays_seen)),
        )
        game_id = int(cur.lastrowid)
        places = {name: i + 1 for i, name in enumerate(record.places)}
        for seat, name in enumerate(record.players):
            player_id = self._player_id(name)
            self._conn.execute(
                "INSERT INTO game_players (game_id, player_id, seat, place, cards_left, "
                + ", ".join(_STAT_COLUMNS)
                + ") VALUES (?, ?, ?, ?, ?"
                + ", ?" * len(_STAT_COLUMNS)
                + ")",
                (
                    game_id,
                    player_id,
                    seat,
                    places.get(name),
                    record.cards_left[name],
                    *(getattr(record, col)[name] for col in _STAT_COLUMNS),
                ),
            )
            for seq, size in enumerate(record.pickups[name]):
                self._conn.execute(
                    "INSERT INTO pickups (game_id, player_id, seq, size) VALUES (?, ?, ?, ?)",
                    (game_id, player_id, seq, size),
                )

    def _player_id(self, name: str) -> int:
        self._conn.execute("INSERT OR IGNORE INTO players (name) VALUES (?)", (name,))
        return self._conn.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()[0]

    # -- reading -------------------------------------------------------------------------

    def matches(self) -> list[MatchInfo]:
        """Every match, oldest first."""
        with self._errors("read the matches"):
            ids = [r[0] for r in self._conn.execute("SELECT id FROM matches ORDER BY id")]
            return [self._match(i) for i in ids]

    def latest_match(self) -> MatchInfo | None:
        """The most recently started match, or ``None`` in an empty database."""
        with self._errors("read the matches"):
            row = self._conn.execute("SELECT max(id) FROM matches").fetchone()
            return self._match(row[0]) if row[0] is not None else None

    def match_by_key(self, key: str) -> MatchInfo | None:
        """The match started with this ``key``, or ``None``."""
        with self._errors("read the matches"):
            row = self._conn.execute("SELECT id FROM matches WHERE key = ?", (key,)).fetchone()
            return self._match(row[0]) if row else None

    def match(self, match_id: int) -> MatchInfo:
        """One match; :class:`StoreError` if there is no such match."""
        with self._errors("read a match"):
            return self._match(match_id)

    def records(self, match_id: int) -> list[GameRecord]:
        """The games of a match in order, as :func:`normalized` records."""
        with self._errors("read the games"):
            self._match(match_id)
            ids = self._conn.execute(
                "SELECT id FROM games WHERE match_id = ? ORDER BY number", (match_id,)
            ).fetchall()
            return [self._read_game(r[0]) for r in ids]

    def _match(self, match_id: int) -> MatchInfo:
        row = self._conn.execute(
            "SELECT id, started_at, rules, scoring, key FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
        if row is None:
            raise StoreError(
                f"There is no match {match_id} in {self.path}; `referee scores` lists them."
            )
        players = tuple(
            r[0]
            for r in self._conn.execute(
                "SELECT p.name FROM match_players m JOIN players p ON p.id = m.player_id"
                " WHERE m.match_id = ? ORDER BY m.seat",
                (match_id,),
            )
        )
        games = self._conn.execute(
            "SELECT count(*) FROM games WHERE match_id = ?", (match_id,)
        ).fetchone()[0]
        try:
            rules = json.loads(row[2])
        except ValueError:
            rules = {}
        return MatchInfo(row[0], row[1], players, rules, row[3], games, row[4])

    def _read_game(self, game_id: int) -> GameRecord:
        number, winner, seen = self._conn.execute(
            "SELECT g.number, p.name, g.all_plays_seen FROM games g"
            " LEFT JOIN players p ON p.id = g.winner_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        rows = self._conn.execute(
            "SELECT p.name, gp.place, gp.cards_left, "
            + ", ".join(f"gp.{c}" for c in _STAT_COLUMNS)
            + " FROM game_players gp JOIN players p ON p.id = gp.player_id"
            " WHERE gp.game_id = ? ORDER BY gp.seat",
            (game_id,),
        ).fetchall()
        players = tuple(r[0] for r in rows)
        placed = sorted((r[1], r[0]) for r in rows if r[1] is not None)
        pickups: dict[str, list[int]] = {p: [] for p in players}
        for name, size in self._conn.execute(
            "SELECT p.name, k.size FROM pickups k JOIN players p ON p.id = k.player_id"
            " WHERE k.game_id = ? ORDER BY k.player_id, k.seq",
            (game_id,),
        ):
            pickups[name].append(size)
        stats = {col: {r[0]: r[3 + i] for r in rows} for i, col in enumerate(_STAT_COLUMNS)}
        return GameRecord(
            game=number,
            players=players,
            winner=winner,
            places=tuple(name for _, name in placed),
            cards_left={r[0]: r[2] for r in rows},
            pickups=pickups,
            all_plays_seen=bool(seen),
            **stats,
        )

    # -- plumbing ------------------------------------------------------------------------

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as err:
            raise _store_error(err, self.path, action) from err

    @contextmanager
    def _transaction(self, action: str) -> Iterator[None]:
        with self._errors(action):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")


def normalized(record: GameRecord) -> GameRecord:
    """``record`` with every per-player field filled in for every player (zeros, ``[]``).

    The store returns records in this form, so stored and re-read records compare equal.
    """
    players = list(dict.fromkeys([*record.players, *record.places]))
    if record.winner and record.winner not in players:
        players.append(record.winner)

    def full(values: dict[str, Any], empty: Any) -> dict[str, Any]:
        return {p: values.get(p, empty) for p in players}

    return GameRecord(
        game=record.game,
        players=tuple(players),
        winner=record.winner,
        places=tuple(record.places),
        cards_left=full(record.cards_left, 0),
        pickups={p: list(record.pickups.get(p, [])) for p in players},
        all_plays_seen=bool(record.all_plays_seen),
        **{col: full(getattr(record, col), 0) for col in _STAT_COLUMNS},
    )


def _check_record(record: GameRecord) -> None:
    names = set(record.players) | set(record.places)
    problems = []
    if len(set(record.places)) != len(record.places):
        problems.append(f"places repeat a player: {record.places}")
    if record.winner is not None and record.places and record.places[0] != record.winner:
        problems.append(f"winner {record.winner} is not first in places {record.places}")
    fields = {"cards_left": record.cards_left, **{c: getattr(record, c) for c in _STAT_COLUMNS}}
    for name, values in fields.items():
        for player, value in values.items():
            if player not in names:
                problems.append(f"{name} names {player!r}, who is not in the game")
            elif not isinstance(value, int) or value < 0:
                problems.append(f"{name}[{player!r}] = {value!r} is not a count")
    for player, sizes in record.pickups.items():
        if player not in names:
            problems.append(f"pickups names {player!r}, who is not in the game")
        elif any(not isinstance(s, int) or s < 0 for s in sizes):
            problems.append(f"pickups[{player!r}] = {sizes!r} are not pile sizes")
    if problems:
        raise ValueError(f"game {record.game} cannot be stored: " + "; ".join(problems))


def _use_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """Switch the file to WAL mode once; a file already in WAL mode is left alone.

    SQLite answers a concurrent switch with "database is locked" at once, without waiting
    for the busy timeout (two referees opening a new file together), so retry here.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err).lower() or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _statements(sql: str) -> Iterator[str]:
    """Split a migration script into statements (``executescript`` would commit early)."""
    buffer = ""
    for line in sql.splitlines(keepends=True):
        if not buffer and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""
    if buffer.strip():
        raise RuntimeError(f"unterminated statement in a migration: {buffer.strip()[:60]}")


def _store_error(err: sqlite3.Error, path: Path, action: str) -> StoreError:
    """Turn an sqlite3 error into a message the user can act on."""
    code = getattr(err, "sqlite_errorname", "") or ""
    text = str(err).lower()
    kept = " The game is kept in the journal." if action == "record a game" else ""
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return StoreError(
            f"The score database {path} is locked by another referee (or another program "
            f"holding it open), so I could not {action}. Close the other one and try again, "
            f"or use a separate file with --db PATH.{kept}"
        )
    if code.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or (
        "not a database" in text or "malformed" in text
    ):
        return StoreError(
            f"The score database {path} is damaged or is not a database. Move it aside "
            f"(e.g. rename it to {path.name}.broken) and a new one is started, or point "
            f"--db / {ENV_VAR} at another file."
        )
    if code.startswith("SQLITE_READONLY") or "readonly" in text:
        return StoreError(
            f"The score database {path} is read-only, so I could not {action}. Make the file "
            f"and its folder writable, or use another file with --db PATH."
        )
    if code.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return StoreError(
            f"Cannot open the score database {path}. Check that its folder exists and is "
            f"writable, or choose another file with --db PATH or {ENV_VAR}."
        )
    if code.startswith("SQLITE_FULL") or "disk is full" in text:
        return StoreError(
            f"The disk holding the score database {path} is full; free some space and try "
            f"again.{kept}"
        )
    return StoreError(f"The score database {path} failed to {action}: {err}.")
