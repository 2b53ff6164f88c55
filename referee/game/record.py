"""What one finished game leaves behind: the facts every scoring table is computed from.

The engine emits a :class:`GameRecord` when a game ends; the store writes it in one
transaction; scoring tables read only records, never the live state.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class GameRecord:
    """The outcome of one game of a match.

    >>> r = GameRecord(game=1, players=("Alice", "Ben"), winner="Alice",
    ...                places=("Alice", "Ben"), cards_left={"Alice": 0, "Ben": 12})
    >>> r.winner
    'Alice'
    """

    game: int
    players: tuple[str, ...]
    winner: str | None
    #: finishing order, winner first; players who did not go out follow by cards left.
    places: tuple[str, ...]
    cards_left: dict[str, int]
    #: sizes of every pile each player picked up.
    pickups: dict[str, list[int]] = field(default_factory=dict)
    calls_made: dict[str, int] = field(default_factory=dict)
    calls_won: dict[str, int] = field(default_factory=dict)
    calls_lost: dict[str, int] = field(default_factory=dict)
    caught_lying: dict[str, int] = field(default_factory=dict)
    #: honest plays of this player that somebody called.
    wrongly_called: dict[str, int] = field(default_factory=dict)
    #: false cards this player got away with, counted only where the referee saw them
    #: (open play reveals, or cards it was shown); Trust Me scores these.
    unchallenged_false_cards_seen: dict[str, int] = field(default_factory=dict)
    #: True when the referee saw every play (open play), so the count above is complete.
    all_plays_seen: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["players"] = list(self.players)
        data["places"] = list(self.places)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        data = dict(data)
        data["players"] = tuple(data["players"])
        data["places"] = tuple(data["places"])
        return cls(**data)
