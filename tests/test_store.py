"""The score database: round trips, idempotence, migrations, and the failures users meet."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cli import UserError
from referee.game.record import GameRecord
from referee.store import Store, StoreError, open_recorder, standings
from referee.store.db import (
    SCHEMA_VERSION,
    default_db_path,
    migrations,
    normalized,
    resolve_db_path,
)
from tests.store_helpers import FOUR, game


def worked_match() -> list[GameRecord]:
    """RULES.md's worked match (Alice, Ben, Alice), with some table talk."""
    return [
        game(1, "Alice", {"Ben": 20, "Cara": 11, "Dev": 9}, pickups={"Ben": [14]},
             calls_made={"Ben": 1}, calls_lost={"Ben": 1}, wrongly_called={"Alice": 1}),
        game(2, "Ben", {"Alice": 6, "Cara": 41, "Dev": 5}, pickups={"Cara": [40, 3]},
             calls_made={"Dev": 1}, calls_won={"Dev": 1}, caught_lying={"Cara": 1}),
        game(3, "Alice", {"Ben": 4, "Cara": 12, "Dev": 8},
             unchallenged_false_cards_seen={"Alice": 1}, all_plays_seen=True),
    ]  # fmt: skip


def count(path: Path, sql: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchone()[0]


# -- round trip ---------------------------------------------------------------------------


def test_games_come_back_as_they_went_in(tmp_path):
    with Store.open(tmp_path / "scores.db") as store:
        match_id = store.start_match(FOUR, {"preset": "classic", "decks": 1}, "first_to:2")
        for record in worked_match():
            assert store.record_game(match_id, record) is True
        assert store.records(match_id) == [normalized(r) for r in worked_match()]
        info = store.latest_match()
        assert info is not None and info.id == match_id
        assert (info.players, info.rules, info.scoring, info.games) == (
            FOUR,
            {"preset": "classic", "decks": 1},
            "first_to:2",
            3,
        )
        assert [m.id for m in store.matches()] == [match_id]
        wins = [(s.player, s.wins) for s in standings(store.records(match_id), FOUR)]
        assert wins == [("Alice", 2), ("Ben", 1), ("Cara", 0), ("Dev", 0)]
        assert store.records(match_id)[1].pickups["Cara"] == [40, 3]


def test_recording_the_same_game_again_changes_nothing(tmp_path):
    path = tmp_path / "scores.db"
    with Store.open(path) as store:
        match_id = store.start_match(FOUR)
        for record in worked_match():
            store.record_game(match_id, record)
        # a resumed journal hands the same games over again
        assert [store.record_game(match_id, r) for r in worked_match()] == [False] * 3
    assert count(path, "SELECT count(*) FROM games") == 3
    assert count(path, "SELECT count(*) FROM game_players") == 12
    assert count(path, "SELECT count(*) FROM pickups") == 3


def test_a_corrected_game_replaces_the_stored_one(tmp_path):
    with Store.open(tmp_path / "scores.db") as store:
        match_id = store.start_match(FOUR)
        store.record_game(match_id, worked_match()[0])
        corrected = game(1, "Dev", {"Alice": 2, "Ben": 20, "Cara": 11})
        assert store.record_game(match_id, corrected) is True
        assert store.records(match_id) == [normalized(corrected)]


def test_start_match_with_a_key_finds_the_same_match_again(tmp_path):
    with Store.open(tmp_path / "scores.db") as store:
        first = store.start_match(FOUR, key="journal 2026-11-30T21:00:00")
        assert store.start_match(FOUR, key="journal 2026-11-30T21:00:00") == first
        assert store.start_match(FOUR, key="another") != first
        assert store.match_by_key("journal 2026-11-30T21:00:00").id == first
        assert store.match_by_key("nope") is None


def test_bad_records_and_matches_are_refused_before_touching_the_file(tmp_path):
    with Store.open(tmp_path / "scores.db") as store:
        match_id = store.start_match(FOUR)
        with pytest.raises(ValueError, match="not in the game"):
            store.record_game(match_id, game(1, "Alice", {}, calls_made={"Zed": 1}))
        with pytest.raises(ValueError, match="not first"):
            store.record_game(match_id, GameRecord(1, FOUR, "Ben", FOUR, {}))
        with pytest.raises(StoreError, match="no match 99"):
            store.record_game(99, worked_match()[0])
        with pytest.raises(ValueError, match="distinct"):
            store.start_match(["Alice", "Alice"])
        assert store.records(match_id) == []


def test_database_is_in_wal_mode(tmp_path):
    Store.open(tmp_path / "scores.db").close()
    with sqlite3.connect(tmp_path / "scores.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_where_the_database_lives(tmp_path, monkeypatch):
    # conftest points REFEREE_DATA_DIR at tmp_path / "referee-data"
    assert default_db_path() == tmp_path / "referee-data" / "scores.db"
    monkeypatch.setenv("REFEREE_DB", str(tmp_path / "env.db"))
    assert resolve_db_path(None) == tmp_path / "env.db"
    assert resolve_db_path(tmp_path / "flag.db") == tmp_path / "flag.db"  # --db wins
    with Store.open() as store:
        assert store.path == tmp_path / "env.db"
    assert (tmp_path / "env.db").exists()


def test_the_folder_is_created(tmp_path):
    with Store.open(tmp_path / "a" / "b" / "scores.db") as store:
        store.start_match(FOUR)
    assert (tmp_path / "a" / "b" / "scores.db").exists()


# -- migrations ---------------------------------------------------------------------------

#: the v1 schema, written out by hand as a referee of that version left it
V1_SCHEMA = """
CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE matches (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL,
    rules TEXT NOT NULL DEFAULT '{}', scoring TEXT NOT NULL DEFAULT 'wins');
CREATE TABLE match_players (match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL, player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (match_id, seat));
CREATE TABLE games (id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    number INTEGER NOT NULL, winner_id INTEGER REFERENCES players(id),
    recorded_at TEXT NOT NULL, UNIQUE (match_id, number));
CREATE TABLE game_players (game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    player_id INTEGER NOT NULL REFERENCES players(id), seat INTEGER NOT NULL, place INTEGER,
    cards_left INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, player_id));
INSERT INTO players (id, name) VALUES (1, 'Alice'), (2, 'Ben'), (3, 'Cara');
INSERT INTO matches VALUES (1, '2026-11-01T20:00:00+00:00', '{"preset": "classic"}', 'ranked');
INSERT INTO match_players VALUES (1, 0, 1), (1, 1, 2), (1, 2, 3);
INSERT INTO games VALUES (1, 1, 1, 2, '2026-11-01T20:30:00+00:00');
INSERT INTO game_players VALUES (1, 1, 0, 3, 9), (1, 2, 1, 1, 0), (1, 3, 2, 2, 4);
PRAGMA user_version = 1;
"""


def test_an_old_v1_database_is_upgraded_and_keeps_its_games(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(V1_SCHEMA)
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION > 1
        [old] = store.records(1)
        assert (old.players, old.winner, old.places) == (
            ("Alice", "Ben", "Cara"),
            "Ben",
            ("Ben", "Cara", "Alice"),
        )
        assert old.cards_left == {"Alice": 9, "Ben": 0, "Cara": 4}
        assert old.calls_made == {"Alice": 0, "Ben": 0, "Cara": 0}  # v2 columns: zero
        assert old.pickups == {"Alice": [], "Ben": [], "Cara": []}
        assert store.match(1).scoring == "ranked" and store.match(1).key is None
        # the upgraded file takes new games with everything v2+ stores
        new = GameRecord(2, ("Alice", "Ben", "Cara"), "Alice", ("Alice", "Cara", "Ben"),
                         {"Alice": 0, "Ben": 7, "Cara": 2}, pickups={"Ben": [12]},
                         calls_made={"Cara": 2}, all_plays_seen=True)  # fmt: skip
        assert store.record_game(1, new)
        assert store.records(1)[1] == normalized(new)
        ranked = [(s.player, s.points) for s in standings(store.records(1), store.match(1).players,
                                                            "ranked")]  # fmt: skip
        assert ranked == [("Alice", 4), ("Ben", 4), ("Cara", 4)]
    # opening again is a no-op
    with Store.open(path) as store:
        assert len(store.records(1)) == 2


def test_migrations_are_numbered_without_gaps():
    numbers = [n for n, _, _ in migrations()]
    assert numbers == list(range(1, SCHEMA_VERSION + 1))
    assert migrations()[0][1] == "0001_init.sql"


def test_a_database_from_a_newer_referee_is_refused(tmp_path):
    path = tmp_path / "future.db"
    Store.open(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer referee"):
        Store.open(path)


def test_another_programs_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "photos.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE albums (id INTEGER PRIMARY KEY)")
    with pytest.raises(StoreError, match="not a referee score database"):
        Store.open(path)
    assert count(path, "SELECT count(*) FROM albums") == 0  # left alone


# -- failures the user can meet -----------------------------------------------------------


def test_a_file_that_is_not_a_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "scores.db"
    path.write_bytes(b"these are my holiday notes, not a database\n" * 200)
    with pytest.raises(StoreError, match="damaged or is not a database. Move it aside") as err:
        Store.open(path)
    assert isinstance(err.value, UserError)
    assert str(path) in str(err.value)


def test_a_damaged_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "scores.db"
    with Store.open(path) as store:
        match_id = store.start_match(FOUR)
        for record in worked_match():
            store.record_game(match_id, record)
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    data[page : len(data)] = b"\xa5" * (len(data) - page)  # every page but the header
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="damaged"), Store.open(path) as store:
        store.records(1)


def test_a_locked_database_gives_a_clear_error_and_the_game_can_be_stored_later(tmp_path):
    path = tmp_path / "scores.db"
    with Store.open(path) as store:
        match_id = store.start_match(FOUR)
    other = sqlite3.connect(path, isolation_level=None)  # another referee, mid-write
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO players (name) VALUES ('Eve')")
    try:
        with Store.open(path, timeout=0.2) as store:  # reading still works in WAL mode
            with pytest.raises(StoreError, match="locked by another referee") as err:
                store.record_game(match_id, worked_match()[0])
            assert "--db" in str(err.value)
            assert store.records(match_id) == []  # nothing half-written
    finally:
        other.execute("ROLLBACK")
        other.close()
    with Store.open(path) as store:  # the caller kept the game; now it goes in
        assert store.record_game(match_id, worked_match()[0])
        assert len(store.records(match_id)) == 1


def test_opening_a_new_database_while_another_writer_holds_it(tmp_path):
    path = tmp_path / "scores.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # a fresh file: the schema cannot be written
    try:
        with pytest.raises(StoreError, match="locked"):
            Store.open(path, timeout=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    Store.open(path).close()


def test_an_unwritable_place_gives_a_clear_error(tmp_path):
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    with pytest.raises(StoreError, match="Cannot create the folder.*--db PATH"):
        Store.open(tmp_path / "notes.txt" / "scores.db")
    with pytest.raises(StoreError, match="is a folder"):
        Store.open(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files")
def test_a_read_only_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "scores.db"
    with Store.open(path) as store:
        match_id = store.start_match(FOUR)
    path.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(StoreError, match="read-only|Cannot open"), Store.open(path) as store:
            store.record_game(match_id, worked_match()[0])
    finally:
        tmp_path.chmod(0o755)
        path.chmod(0o644)


# -- crashes and concurrent writers -------------------------------------------------------


def _crash_mid_game(path: str) -> None:
    """Record game 1, then die inside game 2's transaction, after all of its rows."""
    store = Store.open(path)
    match_id = store.start_match(FOUR)
    store.record_game(match_id, worked_match()[0])
    insert = Store._insert_game

    def insert_then_die(self, match_id, record):
        insert(self, match_id, record)
        os._exit(3)  # the power goes out before COMMIT

    Store._insert_game = insert_then_die
    store.record_game(match_id, worked_match()[1])


def test_a_crash_never_leaves_half_a_game(tmp_path):
    path = tmp_path / "scores.db"
    proc = multiprocessing.get_context("spawn").Process(target=_crash_mid_game, args=(str(path),))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 3
    with Store.open(path) as store:
        assert [r.game for r in store.records(1)] == [1]
    assert count(path, "SELECT count(*) FROM game_players") == 4
    assert count(path, "SELECT count(*) FROM pickups") == 1  # game 1's; none of game 2's


GAMES_EACH = 20


def _writer(path: str, seat: int, ready) -> None:
    ready.wait(30)  # both start together, on a database neither has created yet
    store = Store.open(path, timeout=30)
    own = store.start_match(FOUR, {"writer": seat})
    shared = store.start_match(FOUR, key="the shared match")
    for n in range(1, GAMES_EACH + 1):
        store.record_game(own, game(n, FOUR[n % 4], {p: n for p in FOUR}))
        store.record_game(shared, game(2 * n + seat, FOUR[seat], {p: seat for p in FOUR}))
        store.record_game(shared, game(1000, "Dev", {"Alice": 1}))  # both record this one
    store.close()


def test_two_processes_recording_at_once_lose_nothing(tmp_path):
    path = tmp_path / "scores.db"
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(str(path), seat, ready)) for seat in (0, 1)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    assert [proc.exitcode for proc in procs] == [0, 0]
    with Store.open(path) as store:
        matches = store.matches()
        assert len(matches) == 3
        shared = store.match_by_key("the shared match")
        own = [m for m in matches if m.key is None]
        assert sorted(m.rules["writer"] for m in own) == [0, 1]
        for m in own:
            assert [r.game for r in store.records(m.id)] == list(range(1, GAMES_EACH + 1))
        numbers = [r.game for r in store.records(shared.id)]
        assert numbers == sorted([2 * n + s for n in range(1, GAMES_EACH + 1) for s in (0, 1)]
                                 + [1000])  # fmt: skip
        wins = {s.player: s.wins for s in standings(store.records(shared.id), FOUR)}
        assert wins == {"Alice": GAMES_EACH, "Ben": GAMES_EACH, "Cara": 0, "Dev": 1}


# -- the recorder a session calls ---------------------------------------------------------


def test_recorder_creates_the_match_with_its_first_game_and_resumes_by_key(tmp_path):
    path = tmp_path / "scores.db"
    record = open_recorder(path, FOUR, {"preset": "classic"}, "first_to:2", key="j1")
    assert record.match_id is None
    with Store.open(path) as store:
        assert store.matches() == []  # nothing until a game ends
    record(worked_match()[0])
    assert record.standing() == "Alice 1, Ben, Cara and Dev 0. Alice leads."
    # the referee restarts and resumes the journal: same match, no duplicate
    again = open_recorder(path, FOUR, {"preset": "classic"}, "first_to:2", key="j1")
    assert again.match_id == record.match_id
    again(worked_match()[0])
    again(worked_match()[1])
    again(worked_match()[2])
    assert again.winner() == "Alice"
    assert again.standing() == "Alice 2, Ben 1, Cara and Dev 0. Alice wins the match."
    with Store.open(path) as store:
        assert [m.games for m in store.matches()] == [3]


def test_recorder_refuses_bad_scoring_and_bad_files_before_the_game(tmp_path):
    with pytest.raises(ValueError, match="unknown scoring"):
        open_recorder(tmp_path / "scores.db", FOUR, {}, "most_lies")
    (tmp_path / "bad.db").write_bytes(b"x" * 5000)
    with pytest.raises(StoreError, match="damaged"):
        open_recorder(tmp_path / "bad.db", FOUR, {}, "wins")


# -- any game round-trips -----------------------------------------------------------------


@st.composite
def records(draw):
    players = tuple(draw(st.lists(st.sampled_from(["Alice", "Ben", "Cara", "Dev", "Élodie",
                                                   "O'Neil", "李"]),
                                  min_size=2, max_size=7, unique=True)))  # fmt: skip
    winner = draw(st.sampled_from((*players, None)))
    others = [p for p in players if p != winner]
    places = ((winner,) if winner else ()) + tuple(draw(st.permutations(others)))
    counts = st.dictionaries(st.sampled_from(players), st.integers(0, 60), max_size=len(players))
    return GameRecord(
        game=draw(st.integers(1, 10_000)),
        players=players,
        winner=winner,
        places=places,
        cards_left=draw(counts),
        pickups=draw(st.dictionaries(st.sampled_from(players), st.lists(st.integers(0, 104)))),
        calls_made=draw(counts),
        calls_won=draw(counts),
        calls_lost=draw(counts),
        caught_lying=draw(counts),
        wrongly_called=draw(counts),
        unchallenged_false_cards_seen=draw(counts),
        all_plays_seen=draw(st.booleans()),
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(records(), min_size=1, max_size=4, unique_by=lambda r: r.game))
def test_any_game_comes_back_exactly(games):
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "s.db") as store:
        match_id = store.start_match(games[0].players)
        for record in games:
            assert store.record_game(match_id, record)
        expected = sorted((normalized(r) for r in games), key=lambda r: r.game)
        assert store.records(match_id) == expected
        assert not any(store.record_game(match_id, r) for r in games)
