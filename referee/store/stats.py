"""Player statistics people enjoy at a table, folded from game records (pure, no I/O).

>>> from referee.game.record import GameRecord
>>> g = GameRecord(game=1, players=("Alice", "Ben"), winner="Alice", places=("Alice", "Ben"),
...                cards_left={"Alice": 0, "Ben": 9}, pickups={"Ben": [12, 3]},
...                calls_made={"Alice": 2}, calls_won={"Alice": 1})
>>> s = player_stats([g])["Ben"]
>>> (s.games, s.biggest_pickup, s.cards_picked_up)
(1, 12, 15)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from referee.game.record import GameRecord


@dataclass
class PlayerStats:
    """One player's numbers over some games (a match, or all time)."""

    player: str
    games: int = 0
    wins: int = 0
    calls_made: int = 0
    #: calls that caught a liar
    calls_won: int = 0
    #: calls on an honest play (the caller picked up)
    calls_lost: int = 0
    caught_lying: int = 0
    #: this player's honest plays that somebody called
    wrongly_called: int = 0
    #: false cards that got away, as far as the referee saw
    lies_got_away_seen: int = 0
    pickups: int = 0
    cards_picked_up: int = 0
    biggest_pickup: int = 0
    matches: set[int] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["matches"] = len(self.matches)
        return data


#: (attribute, column heading) in the order the CLI shows them
COLUMNS: tuple[tuple[str, str], ...] = (
    ("games", "games"),
    ("wins", "wins"),
    ("calls_made", "calls"),
    ("calls_won", "calls won"),
    ("caught_lying", "caught lying"),
    ("wrongly_called", "wrongly called"),
    ("biggest_pickup", "biggest pile"),
)


def player_stats(
    records: Iterable[GameRecord],
    players: Sequence[str] = (),
    *,
    match_id: int | None = None,
    into: dict[str, PlayerStats] | None = None,
) -> dict[str, PlayerStats]:
    """Add ``records`` up per player; ``into`` lets all-time stats accumulate over matches."""
    stats = {} if into is None else into
    for p in players:
        stats.setdefault(p, PlayerStats(p))
    for record in records:
        names = list(dict.fromkeys([*record.players, *record.places]))
        for p in names:
            s = stats.setdefault(p, PlayerStats(p))
            s.games += 1
            s.wins += record.winner == p
            s.calls_made += record.calls_made.get(p, 0)
            s.calls_won += record.calls_won.get(p, 0)
            s.calls_lost += record.calls_lost.get(p, 0)
            s.caught_lying += record.caught_lying.get(p, 0)
            s.wrongly_called += record.wrongly_called.get(p, 0)
            s.lies_got_away_seen += record.unchallenged_false_cards_seen.get(p, 0)
            piles = record.pickups.get(p, [])
            s.pickups += len(piles)
            s.cards_picked_up += sum(piles)
            s.biggest_pickup = max([s.biggest_pickup, *piles])
            if match_id is not None:
                s.matches.add(match_id)
    return stats
