"""Keeping score: the match history in SQLite and the scoring tables of RULES.md.

The whole API (everything else in the package is private)::

    from referee.store import Store, StoreError, parse_scoring, standings, spoken_standing

    record = open_recorder(db, players, rules, "first_to:2", key=journal_started)
    record(game_record)                 # a Session Recorder: stores the game or raises
    record.standing(); record.winner()  # what to announce after it; match_id, records

    store = Store.open(path)            # path None: $REFEREE_DB, else the user's data dir
    match_id = store.start_match(["Alice", "Ben"], rules={...}, scoring="first_to:2")
    store.record_game(match_id, record)  # one transaction; same game again is a no-op
    store.matches(); store.latest_match(); store.match(match_id); store.records(match_id)
    store.match_by_key(key)             # start_match(..., key=K) is idempotent per key
    store.close()                        # or: with Store.open(path) as store: ...

    table = standings(records, players, "first_to:2")   # [Standing(player, rank, wins,
                                                        #   points, games, cards_left)]
    match_winner(records, players, "first_to:2")        # "Alice" or None
    match_winner(records, players, "penalty", finished=True)   # other tables end when
                                                               # the table says so
    spoken_standing(records, players, scoring)  # "Alice 2, Ben 1, Cara and Dev 0. Alice leads."
    note(records, scoring)              # "" or what the standing must admit (Trust Me)

``db`` (:class:`Store`, :class:`StoreError`, :class:`MatchInfo`, :func:`resolve_db_path`):
the SQLite file, WAL mode, busy timeout, schema migrations in ``migrations/``. Every
database failure a user can meet (locked, damaged, unwritable, newer schema) is a
:class:`StoreError` (a ``referee.errors.UserError``) whose message says what to do; nothing
of a game is stored unless all of it is, so the caller keeps its journal until
``record_game`` returned.

``scoring`` (pure): :func:`parse_scoring` (:class:`ScoringError`, a ``ValueError``, for
unknown names), :func:`standings`, :func:`match_winner`, :func:`spoken_standing`,
:func:`progression` (cumulative points per game, for the chart), :func:`game_points`.

``recorder``: :func:`open_recorder` / :class:`MatchRecorder`, the ``Recorder`` that
``referee.session.Session`` calls with each finished game (``replay --db``, the live
referee); it opens the database per game and creates the match with its first game.

``stats`` (pure): :func:`player_stats` for ``referee scores --stats``.

``cli``: ``referee scores``. ``journal`` (the lead's): the running game's event log.
"""

from referee.store.db import MatchInfo, Store, StoreError, default_db_path, resolve_db_path
from referee.store.recorder import MatchRecorder, open_recorder
from referee.store.scoring import (
    Scoring,
    ScoringError,
    Standing,
    game_points,
    match_winner,
    note,
    parse_scoring,
    progression,
    spoken_standing,
    standings,
)
from referee.store.stats import PlayerStats, player_stats

__all__ = [
    "MatchInfo",
    "MatchRecorder",
    "PlayerStats",
    "Scoring",
    "ScoringError",
    "Standing",
    "Store",
    "StoreError",
    "default_db_path",
    "game_points",
    "match_winner",
    "note",
    "open_recorder",
    "parse_scoring",
    "player_stats",
    "progression",
    "resolve_db_path",
    "spoken_standing",
    "standings",
]
