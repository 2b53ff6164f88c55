"""The bridge from a refereed session to the score database: one match, game by game.

:func:`open_recorder` returns a callable that ``referee.session.Session`` hands every
finished :class:`GameRecord` to. It opens the database for each game (nothing is held
open between games, so ``referee scores`` or a second referee can use the file meanwhile)
and raises :class:`StoreError` if the game could not be stored, in which case nothing of
it was: the session keeps the game in its journal and it is recorded on resume.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.game.record import GameRecord
from referee.store.db import Store, resolve_db_path
from referee.store.scoring import Scoring, match_winner, parse_scoring, spoken_standing


class MatchRecorder:
    """Records the games of one match; call it with each finished game.

    The match row is created with the first game (a replay in which nobody wins leaves no
    empty match behind), or found again by ``key`` when a journal is resumed.
    """

    def __init__(
        self,
        path: Path,
        players: Sequence[str],
        rules: dict[str, Any] | None,
        scoring: Scoring,
        *,
        key: str | None = None,
        timeout: float | None = None,
    ) -> None:
        self.path = path
        self.players = tuple(players)
        self.rules = dict(rules or {})
        self.scoring = scoring
        self.key = key
        self.timeout = timeout
        self.match_id: int | None = None
        self.records: list[GameRecord] = []
        with self._open() as store:  # fail at the start, not after the first game
            found = store.match_by_key(key) if key is not None else None
            if found is not None:
                self.match_id = found.id
                self.records = store.records(found.id)

    def __call__(self, record: GameRecord) -> None:
        with self._open() as store:
            if self.match_id is None:
                self.match_id = store.start_match(
                    self.players, self.rules, self.scoring.name, key=self.key
                )
            store.record_game(self.match_id, record)
            self.records = store.records(self.match_id)

    def standing(self, *, finished: bool = False) -> str:
        """What to say after a game: "Alice 2, Ben 1, Cara and Dev 0. Alice leads."."""
        return spoken_standing(self.records, self.players, self.scoring, finished=finished)

    def winner(self, *, finished: bool = False) -> str | None:
        """The match winner once decided (``first_to:N``), or at the end (``finished``)."""
        return match_winner(self.records, self.players, self.scoring, finished=finished)

    def _open(self) -> Store:
        return Store.open(self.path, timeout=self.timeout)


def open_recorder(
    db: str | os.PathLike[str] | None,
    players: Sequence[str],
    rules: dict[str, Any] | None = None,
    scoring: str | Scoring = "wins",
    *,
    key: str | None = None,
    timeout: float | None = None,
) -> MatchRecorder:
    """A recorder for a match of ``players`` into the database ``db`` (``None``: default).

    Raises ``ScoringError`` (a ``ValueError``) for an unknown scoring name and
    :class:`StoreError` when the database cannot be used, both before any game is played.
    Pass a ``key`` that identifies the match across restarts (the journal's start stamp)
    so a resumed game keeps recording into the same match.
    """
    return MatchRecorder(
        resolve_db_path(db), players, rules, parse_scoring(scoring), key=key, timeout=timeout
    )
